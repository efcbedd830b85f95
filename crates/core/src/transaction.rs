//! The commit step: the only code that changes the file tree.
//!
//! Every writer (the edit pipeline, file operations, undo) turns its plan into a list of
//! `Op`s and hands it to `run`. Each op is atomic on its own (a write is a temporary file
//! renamed over its target, a delete or move is one rename). An *atomic* run makes the whole
//! list all-or-nothing, including across a crash or a `SIGKILL`:
//!
//! 1. A record of the run is made in the workspace's state directory
//!    (`<state>/journal/<tx>/`, see [`crate::state`]) and locked (`flock`) for as long as the
//!    run lives. Its manifest lists every op with what undoes it (the temporary file a write
//!    will use, where the old file's backup will be); it is written, synced and renamed into
//!    place before anything changes.
//! 2. New contents are staged next to their targets; the old files are kept as hard links
//!    (or renamed away, for deletes) in `.filekit/journal/<tx>/` of their root, which must be
//!    on their filesystem, before being replaced.
//! 3. When every op is done and flushed, the manifest is removed: that is the commit point.
//!
//! A run that fails part way rolls back at once. A run whose process died leaves its manifest
//! and an unlocked record; [`recover`], called by the front ends when they start, rolls it
//! back from the manifest. Nothing in the tree is ever read as a journal: the record lives
//! where a repository cannot ship or redirect one. Each undo step checks the disk first, so a rollback of steps that
//! never ran is harmless, and a rollback interrupted in turn can simply be run again.

use crate::content::Content;
use crate::edit::Control;
use crate::error::{ErrorCode, FkError};
use crate::intent_log::{self, Intent, Planned};
use crate::interrupt::Writing;
use crate::workspace::{
    DirectorySync, FileMeta, InPlace, PendingWrite, RESERVED_DIR, TreeChange, Workspace, WriteMode,
    WsPath,
};
use cap_std::fs::Dir;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One change to the tree.
#[derive(Debug)]
pub(crate) enum Op<'a> {
    /// Put `bytes` at `path` (a temporary file renamed over it). `perm` sets the permission
    /// bits; otherwise an existing file's are kept. Bytes not held in memory (a streamed
    /// file's, [`Content::Spliced`]) are never written in place.
    Write {
        path: WsPath,
        bytes: Content<'a>,
        mode: WriteMode,
        perm: Option<u32>,
        /// The file as the writer read it: if it is no longer that file when the write is
        /// put in place (another inode, size or modification time), the write is refused as
        /// `STALE`, so that another writer's change is not silently undone.
        read_as: Option<FileMeta>,
    },
    /// Remove a file, a symbolic link, or a directory (with everything in it only when
    /// `recursive`).
    Remove { path: WsPath, recursive: bool },
    /// Rename a file or directory. `replace` lets it replace what a rename replaces at `to`:
    /// a file or link, or an empty directory when a directory is renamed (kept for a
    /// rollback like a replaced file).
    Rename {
        from: WsPath,
        to: WsPath,
        replace: bool,
    },
    /// Make one directory (its parent must exist or be made by an earlier op).
    MakeDir { path: WsPath, perm: Option<u32> },
    /// Make a symbolic link at `path` pointing to `target` (as given; it is not followed).
    Symlink { path: WsPath, target: PathBuf },
    /// Set the permission bits of the directory at `path` (undo putting back the mode of a
    /// directory that a moved one replaced).
    SetPerm { path: WsPath, perm: u32 },
}

impl Op<'_> {
    /// The path the op changes (the destination, for a rename).
    pub fn path(&self) -> &WsPath {
        match self {
            Op::Write { path, .. }
            | Op::Remove { path, .. }
            | Op::MakeDir { path, .. }
            | Op::Symlink { path, .. }
            | Op::SetPerm { path, .. } => path,
            Op::Rename { to, .. } => to,
        }
    }
}

/// How written files reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// fsync each file and its directory (a few files).
    PerFile,
    /// Flush the files while they are staged, several at once, and each directory once after
    /// the renames (many files).
    Batched,
    /// No flush: each file is still replaced atomically, but a power cut may lose the run.
    None,
}

/// Commits that write more files than this are [`Durability::Batched`]: the files are flushed
/// while they are staged, several at once, and each directory once after the renames, instead
/// of an fsync of every file and its directory in turn (an fsync costs milliseconds; a
/// tree-wide replace writes thousands).
pub(crate) const BATCH_SYNC_FILES: usize = 8;

impl Durability {
    /// How a flushed commit that writes `files` files reaches the disk.
    pub(crate) fn flushed(files: usize) -> Durability {
        if files > BATCH_SYNC_FILES {
            Durability::Batched
        } else {
            Durability::PerFile
        }
    }

    /// [`Durability::flushed`] for the writes among `ops`.
    pub(crate) fn flushed_for(ops: &[Op]) -> Durability {
        Durability::flushed(ops.iter().filter(|o| matches!(o, Op::Write { .. })).count())
    }
}

/// What a [`run`] did.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// One result per op, in order: the new metadata of what the op left at its path.
    pub results: Vec<Result<Option<FileMeta>, FkError>>,
    /// An atomic run that failed and was undone: no op's change remains.
    pub rolled_back: bool,
}

/// Carries out `ops` in order. Directories to make are made first, then writes are staged,
/// then every op is done. Without `atomic`, a failed op is reported and the others still
/// happen; with it, the first failure undoes everything (see the module documentation).
pub(crate) fn run(ws: &Workspace, ops: &[Op<'_>], atomic: bool, durability: Durability) -> Outcome {
    run_in(ws, ops, atomic, durability, &Control::default(), None)
}

/// [`run`] under a caller's `control` (a cancel stops the run before its next op: an atomic
/// run is rolled back, a plain one keeps what it did and reports the rest cancelled), and,
/// for a plain run, in the caller's `intent`: the record of a request that writes through
/// several runs, or records its changes in the history after the run (see
/// [`crate::intent_log`]).
pub(crate) fn run_in(
    ws: &Workspace,
    ops: &[Op<'_>],
    atomic: bool,
    durability: Durability,
    control: &Control,
    intent: Option<&Intent<'_>>,
) -> Outcome {
    // Read-only sessions, filekit's own data and (unless allowed) `.git/` are refused here,
    // for every writer alike.
    let refused: Vec<Option<FkError>> = ops.iter().map(|op| writable(ws, op).err()).collect();
    if atomic && let Some(err) = refused.iter().flatten().next() {
        let err = err.clone();
        return Outcome {
            results: refused
                .into_iter()
                .map(|r| Err(r.unwrap_or_else(|| err.clone())))
                .collect(),
            rolled_back: true,
        };
    }
    if atomic
        && ops.len() > 1
        && ops.iter().any(|op| {
            matches!(
                op,
                Op::Write {
                    mode: WriteMode::InPlace,
                    ..
                }
            )
        })
    {
        let err = FkError::invalid(
            "in-place writes cannot be part of an atomic request: a file overwritten in place cannot be put back if another part fails",
        )
        .with_hint("drop one of the two: atomic (all or nothing) or in place (fast, file by file)");
        return Outcome {
            results: ops.iter().map(|_| Err(err.clone())).collect(),
            rolled_back: true,
        };
    }
    if atomic && ops.len() > 1 {
        run_journaled(ws, ops, durability, control)
    } else {
        run_plain(ws, ops, durability, refused, control, intent)
    }
}

/// The error of an op a run did not do because it was stopped.
fn stopped_error(ws: &Workspace, op: &Op<'_>) -> FkError {
    let shown = ws.display(op.path());
    if crate::interrupt::stop_requested() {
        FkError::new(
            ErrorCode::Cancelled,
            format!("{shown} was not changed: filekit was asked to end (interrupted) before it got to it"),
        )
        .with_hint("send the request again to do the rest")
    } else {
        FkError::new(
            ErrorCode::Cancelled,
            format!("{shown} was not changed: the request was cancelled before it got to it"),
        )
        .with_hint("send the request again to do the rest")
    }
}

/// The refusal of a write that would begin after this process was asked to stop writing.
pub(crate) fn stopping_error() -> FkError {
    FkError::new(
        ErrorCode::Cancelled,
        "nothing was written: filekit was asked to end (interrupted) before this request began writing",
    )
    .with_hint("send the request again")
}

fn writable(ws: &Workspace, op: &Op<'_>) -> Result<(), FkError> {
    if let Op::Rename { from, .. } = op {
        ws.check_writable(from)?;
    }
    ws.check_writable(op.path())?;
    // A folder moved or removed whole, or a link made, reaches more than its own path.
    match op {
        Op::Rename { from, to, .. } => ws.check_subtree(from, TreeChange::Move(to)),
        Op::Remove { path, .. } => ws.check_subtree(path, TreeChange::Remove),
        Op::Symlink { path, .. } => ws.check_link_at(path),
        Op::Write { .. } | Op::MakeDir { .. } | Op::SetPerm { .. } => Ok(()),
    }
}

/// Serializes, within this process, the last check of a file and the rename that replaces
/// it, so that two requests editing the same file at once never lose an edit: the second is
/// refused as stale. Across filekit processes, [`lock_across_processes`] does the same. (A
/// program other than filekit can still write between the two; that change is then lost, as
/// with any editor.)
static COMMIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes an exclusive `flock` on the file now at `path`, for the last check and the
/// replacement of the file. Without it, two processes could both find the file as they read
/// it and both replace it, the first one's edit lost. The lock is on the file's inode: a
/// process that opened it before another replaced it waits, then finds a new inode at the
/// path and reports `STALE`; one that opens it after locks the new inode and finds the same.
/// Opened without blocking (a FIFO swapped in must not hang the commit) and beneath the
/// root; `None` when there is nothing to lock (a new file) or it cannot be opened, where
/// this process's own lock is all there is. Released when the returned descriptor closes.
fn lock_across_processes(ws: &Workspace, path: &WsPath) -> Option<rustix::fd::OwnedFd> {
    use rustix::fs::{FlockOperation, Mode, OFlags, ResolveFlags, flock, openat2};
    let fd = openat2(
        ws.root_dir(path.root_index()),
        path.relative(),
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH,
    )
    .ok()?;
    flock(&fd, FlockOperation::LockExclusive).ok()?;
    Some(fd)
}

/// Puts a write in place (`put`: a staged file's rename, or an overwrite in place), unless
/// the file is no longer the one read as `read_as`.
fn put_in_place<T>(
    ws: &Workspace,
    path: &WsPath,
    read_as: Option<&FileMeta>,
    put: impl FnOnce() -> Result<T, FkError>,
) -> Result<T, FkError> {
    let _one_at_a_time = COMMIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _across_processes = read_as.and_then(|_| lock_across_processes(ws, path));
    if let Some(old) = read_as
        && changed_since(ws, path, old)
    {
        return Err(stale_error(&ws.display(path)));
    }
    put()
}

/// Whether the regular file now at `path` (links followed) is not the one `old` describes.
/// Gone or replaced by a directory is not "changed" here: the write reports it (or refuses
/// it). One `stat` of the path from its root's handle: the path, not a descriptor opened
/// before, because another writer may have renamed a new file to it meanwhile.
fn changed_since(ws: &Workspace, path: &WsPath, old: &FileMeta) -> bool {
    use rustix::fs::{AtFlags, FileType, statat};
    let Ok(now) = statat(
        ws.root_dir(path.root_index()),
        path.relative(),
        AtFlags::empty(),
    ) else {
        return false;
    };
    if !FileType::from_raw_mode(now.st_mode).is_file() {
        return false;
    }
    let modified = modified_of(&now);
    now.st_ino != old.ino || now.st_size as u64 != old.len || modified != old.modified
}

/// A `stat`'s modification time as [`FileMeta::modified`] gives it: before 1970 the
/// nanoseconds count forward from the (negative) second, and a time no `SystemTime` holds is
/// the epoch.
fn modified_of(st: &rustix::fs::Stat) -> std::time::SystemTime {
    use std::time::{Duration, UNIX_EPOCH};
    let nanos = Duration::new(0, st.st_mtime_nsec as u32);
    let whole = match u64::try_from(st.st_mtime) {
        Ok(secs) => UNIX_EPOCH.checked_add(Duration::from_secs(secs)),
        Err(_) => UNIX_EPOCH.checked_sub(Duration::from_secs(st.st_mtime.unsigned_abs())),
    };
    whole
        .and_then(|t| t.checked_add(nanos))
        .unwrap_or(UNIX_EPOCH)
}

fn stale_error(shown: &str) -> FkError {
    FkError::new(
        ErrorCode::Stale,
        format!(
            "{shown} was changed by another process while this request ran; it was not written, so that change is kept"
        ),
    )
    .with_hint("read the file again, then send the edit again")
}

/// The usual in-place overwrite, through one descriptor: the file opened for writing (no
/// link on the way, nothing but a regular file), locked, checked against `read_as` and
/// written, in half the system calls of the general way. The `flock` on the file
/// is what keeps two writers of it apart, in this process as across processes, so the
/// process-wide commit lock is not taken and writes to different files run at once. `None`
/// when this way does not apply (a link, a special file, an error opening): the general way
/// then finds out why and says so.
fn overwrite_through_one_descriptor(
    ws: &Workspace,
    path: &WsPath,
    bytes: &[u8],
    read_as: Option<&FileMeta>,
) -> Option<Result<InPlace, FkError>> {
    use rustix::fs::{FlockOperation, Mode, OFlags, ResolveFlags, flock, openat2};
    use std::io::Write;
    let read_as = read_as?;
    ws.check_writable(path).ok()?;
    let fd = openat2(
        ws.root_dir(path.root_index()),
        path.relative(),
        OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
    )
    .ok()?;
    let mut file = std::fs::File::from(fd);
    // Locked before it is measured: another writer may finish meanwhile, in this file or by
    // renaming a new one to its name (then this one is no longer the file). Any kind of file
    // can be locked; one that is not a regular file is let go here.
    flock(&file, FlockOperation::LockExclusive).ok()?;
    let now = cap_std::fs::Metadata::from_file(&file).ok()?;
    if !now.is_file() {
        return None;
    }
    if crate::workspace::has_other_names(&now) {
        return Some(Ok(InPlace::Shared));
    }
    let now = FileMeta::from_cap(&now);
    let shown = || ws.display(path);
    Some((|| {
        let at_path = rustix::fs::statat(
            ws.root_dir(path.root_index()),
            path.relative(),
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .ok();
        if at_path.is_none_or(|s| s.st_ino != now.ino)
            || now.ino != read_as.ino
            || now.len != read_as.len
            || now.modified != read_as.modified
        {
            return Err(stale_error(&shown()));
        }
        file.write_all(bytes)
            .and_then(|()| {
                if (bytes.len() as u64) < now.len {
                    file.set_len(bytes.len() as u64)
                } else {
                    Ok(())
                }
            })
            .map_err(|e| FkError::from_io(&e, &shown()))?;
        let meta =
            cap_std::fs::Metadata::from_file(&file).map_err(|e| FkError::from_io(&e, &shown()))?;
        Ok(InPlace::Written(FileMeta::from_cap(&meta), file))
    })())
}

static TX_COUNTER: AtomicU64 = AtomicU64::new(0);

pub(crate) fn new_tx_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // Asked of the system once: a tree-wide replace names a transaction per file.
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    format!(
        "{}-{}-{}",
        nanos,
        PID.get_or_init(std::process::id),
        TX_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn temp_name(tx: &str, i: usize) -> OsString {
    OsString::from(format!(".filekit.{tx}.{i}.tmp"))
}

/// Whether `temp` has the name of a temporary file of filekit's (a record names nothing else
/// for removal).
pub(crate) fn temp_name_is_ours(temp: &Path) -> bool {
    temp.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".filekit.") && n.ends_with(".tmp"))
}

fn run_plain(
    ws: &Workspace,
    ops: &[Op<'_>],
    durability: Durability,
    refused: Vec<Option<FkError>>,
    control: &Control,
    intent: Option<&Intent<'_>>,
) -> Outcome {
    let stopped = |ops: &[Op<'_>]| Outcome {
        results: ops.iter().map(|op| Err(stopped_error(ws, op))).collect(),
        rolled_back: false,
    };
    // A run of its own (not in a caller's record) that may stage files (an in-place write
    // of a file with other names is staged too) records them itself, so that a kill leaves
    // no temporary file behind.
    let stages = ops.iter().any(is_staged_write);
    let own = match intent {
        Some(_) => None,
        None if stages => match Intent::begin(ws, "", false) {
            Ok(own) => Some(own),
            Err(_) => return stopped(ops),
        },
        None => None,
    };
    let _writing = match (intent, &own) {
        (None, None) => match Writing::begin() {
            Some(w) => Some(w),
            None => return stopped(ops),
        },
        _ => None,
    };
    let intent = intent.or(own.as_ref());
    let results = refused.into_iter().map(|r| r.map(Err)).collect();
    let (results, _) = execute(
        ws,
        ops,
        durability,
        &new_tx_name(),
        Run::Plain(intent),
        control,
        results,
    );
    Outcome {
        results: results
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(FkError::new(
                        ErrorCode::Io,
                        "the operation was not carried out",
                    ))
                })
            })
            .collect(),
        rolled_back: false,
    }
}

type Results = Vec<Option<Result<Option<FileMeta>, FkError>>>;

/// Threads for staging and flushing files: more than the cores, since a thread mostly waits
/// for the device (creating, writing and flushing a file), and the device serves several.
const IO_THREADS: usize = 8;

fn io_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(IO_THREADS)
            .thread_name(|i| format!("filekit-io-{i}"))
            .build()
            .expect("a thread pool of a few threads can be made")
    })
}

/// How a run's changes can be undone or finished after a crash.
#[derive(Clone, Copy)]
enum Run<'a> {
    /// An atomic run: old files are kept where the manifest says before they are replaced or
    /// removed, and the first failure stops the run (the caller rolls back).
    Journaled(&'a Manifest),
    /// A plain run: a failed op is reported and the others still happen; its writes are
    /// logged in the record (when there is one) before their temporary files exist.
    Plain(Option<&'a Intent<'a>>),
}

/// How many writes a run stages before it puts them in place, and how many directories wait
/// for their flush: each staged write holds its directory open until its rename, so a run
/// of any size holds at most this many descriptors (and as many directories), whatever the
/// tree size. A share of the process's open-file limit (the front ends raise it to the hard
/// limit at start): under a limit of 256, 32; from 2,048 up, 256, where a larger window
/// would not be faster.
fn write_window() -> usize {
    static WINDOW: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WINDOW.get_or_init(|| {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(u64::MAX);
        usize::try_from(limit / 8)
            .unwrap_or(usize::MAX)
            .clamp(4, 256)
    })
}

/// Whether `err` is the process or the system out of descriptors: a window of writes that
/// meets it is staged again in smaller parts.
fn out_of_descriptors(err: &FkError) -> bool {
    const EMFILE: i32 = 24;
    const ENFILE: i32 = 23;
    err.source
        .as_ref()
        .and_then(|e| e.raw_os_error())
        .is_some_and(|n| n == EMFILE || n == ENFILE)
}

/// The end of the window of ops that starts at `next`: up to the `window`-th write still to
/// do, and the other ops up to the write after it.
fn window_end(ops: &[Op<'_>], results: &Results, next: usize, window: usize) -> usize {
    let mut writes = 0;
    let mut end = next;
    while end < ops.len() {
        if is_staged_write(&ops[end]) && results[end].is_none() {
            if writes == window {
                break;
            }
            writes += 1;
        }
        end += 1;
    }
    end
}

/// A write still to do once the in-place ones are done is staged (an in-place write left
/// undone is one of a file with other names: it is staged and renamed like any write).
fn is_staged_write(op: &Op<'_>) -> bool {
    matches!(op, Op::Write { .. })
}

/// Carries out `ops`: directories first, then in-place writes, then the rest in order, a
/// window at a time: the window's writes staged (and flushed) on the I/O threads, then each
/// op of the window done in order. `results` comes with the ops already refused filled in.
/// A cancel (of the caller's `control`, or of the process: see [`crate::interrupt`]) stops
/// the run before its next op: what is staged and not in place is removed, and every op not
/// done is an error saying so. Returns the results and whether an op failed.
// Over 200 lines: the write path in the order its guarantees need (directories, in-place writes,
// then windows of staged writes each put in place in order), with the cancel and failure checks
// between every step; each early return leaves `results` as recovery expects, which a split would
// pass through every part.
fn execute(
    ws: &Workspace,
    ops: &[Op<'_>],
    durability: Durability,
    tx: &str,
    how: Run<'_>,
    control: &Control,
    mut results: Results,
) -> (Results, bool) {
    let stop_at_failure = matches!(how, Run::Journaled(_));
    let mut failed = false;
    let stop = |results: &mut Results| {
        for (i, op) in ops.iter().enumerate() {
            if results[i].is_none() {
                results[i] = Some(Err(stopped_error(ws, op)));
            }
        }
    };
    for (i, op) in ops.iter().enumerate() {
        if let Op::MakeDir { path, perm } = op
            && results[i].is_none()
        {
            if control.is_cancelled() {
                stop(&mut results);
                return (results, true);
            }
            let r = make_dir(ws, path, *perm).map(|()| ws.metadata(path).ok().flatten());
            failed |= r.is_err();
            results[i] = Some(r);
            if failed && stop_at_failure {
                return (results, true);
            }
        }
    }
    let sync = durability != Durability::None;
    let in_place: Vec<usize> = (0..ops.len())
        .filter(|&i| {
            matches!(
                ops[i],
                Op::Write {
                    mode: WriteMode::InPlace,
                    bytes: Content::Bytes(_),
                    ..
                }
            ) && results[i].is_none()
        })
        .collect();
    // In-place writes (never in a journaled run) need their file to exist already and stage
    // nothing: done first, several at once, each with one descriptor it closes. A file with
    // other names is left to be staged and renamed like any write (`Ok(None)`): its other
    // names keep their bytes.
    let overwrite = |i: usize| -> Result<Option<FileMeta>, FkError> {
        if control.is_cancelled() {
            return Err(stopped_error(ws, &ops[i]));
        }
        let Op::Write {
            path,
            bytes: Content::Bytes(bytes),
            read_as,
            ..
        } = &ops[i]
        else {
            unreachable!("only writes are made in place")
        };
        let done = match overwrite_through_one_descriptor(ws, path, bytes, read_as.as_ref()) {
            Some(done) => done?,
            None => put_in_place(ws, path, read_as.as_ref(), || {
                ws.overwrite_in_place(path, bytes)
            })?,
        };
        match done {
            InPlace::Shared => Ok(None),
            InPlace::Written(meta, f) => {
                if sync {
                    f.sync_data()
                        .map_err(|e| FkError::from_io(&e, &ws.display(path)))?;
                }
                Ok(Some(meta))
            }
        }
    };
    let overwritten: Vec<(usize, Result<Option<FileMeta>, FkError>)> = if in_place.len() > 1 {
        io_pool().install(|| in_place.par_iter().map(|&i| (i, overwrite(i))).collect())
    } else {
        in_place.iter().map(|&i| (i, overwrite(i))).collect()
    };
    for (i, r) in overwritten {
        match r {
            Ok(None) => {}
            r => {
                failed |= r.is_err();
                results[i] = Some(r);
            }
        }
    }

    let mut flush = DirectorySync::new(durability == Durability::Batched);
    let mut window = write_window();
    let mut next = 0;
    while next < ops.len() {
        if control.is_cancelled() {
            break;
        }
        let end = window_end(ops, &results, next, window);
        let to_stage: Vec<usize> = (next..end)
            .filter(|&i| is_staged_write(&ops[i]) && results[i].is_none())
            .collect();
        let kept_at = match how {
            Run::Plain(Some(intent)) if !to_stage.is_empty() => {
                intent.log(&planned_for_log(ops, &to_stage, tx))
            }
            _ => to_stage.iter().map(|_| None).collect(),
        };
        let attempts = stage_all(ws, ops, &to_stage, tx, sync, durability);
        if window > 1
            && attempts
                .iter()
                .any(|(_, r)| r.as_ref().is_err_and(out_of_descriptors))
        {
            // Out of descriptors (other requests of the process, or a limit lower than it
            // looked): the staged files are removed and the window is staged again in
            // smaller parts, after the directories waiting for their flush let theirs go.
            drop(attempts);
            flush.sync_now(io_pool());
            window = (window / 2).max(1);
            continue;
        }
        let mut staged = Vec::with_capacity(attempts.len());
        for ((i, attempt), kept_at) in attempts.into_iter().zip(kept_at) {
            match attempt {
                Ok(p) => staged.push((i, p, kept_at)),
                Err(e) => {
                    results[i] = Some(Err(e));
                    failed = true;
                }
            }
        }
        if failed && stop_at_failure {
            // The staged files are dropped here, removing their temporary files.
            return (results, true);
        }
        let mut staged = staged.into_iter().peekable();
        for i in next..end {
            if results[i].is_some() {
                continue;
            }
            if control.is_cancelled() {
                // The window's staged files not in place yet are removed as they drop.
                break;
            }
            let step = match how {
                Run::Journaled(m) => Some(&m.steps[i]),
                Run::Plain(_) => None,
            };
            let result = match (&ops[i], step) {
                (Op::Write { path, read_as, .. }, step) => {
                    match staged.next_if(|(j, _, _)| *j == i) {
                        Some((_, pending, kept_at)) => {
                            flush.add(&pending);
                            put_in_place(ws, path, read_as.as_ref(), || {
                                if let Some(Undo::Write {
                                    existed, backup, ..
                                }) = step
                                {
                                    keep_backup(ws, path, *existed, backup)?;
                                }
                                if let Some(kept_at) = &kept_at {
                                    // Kept only so that a kill can be finished (a link, never
                                    // a copy a kill could cut short): a write goes on
                                    // without it.
                                    let dir = ws.root_dir(path.root_index());
                                    let _ = dir.hard_link(path.relative(), dir, kept_at);
                                }
                                pending.commit()
                            })
                            .map(Some)
                        }
                        None => continue,
                    }
                }
                (Op::Remove { path, recursive }, step) => {
                    let trash = match step {
                        Some(Undo::Remove { trash, .. }) => Some(trash),
                        _ => None,
                    };
                    remove(ws, path, *recursive, trash).map(|()| None)
                }
                (Op::Rename { from, to, replace }, step) => {
                    let backup = match step {
                        Some(Undo::Rename { backup, .. }) => Some(backup),
                        _ => None,
                    };
                    rename(ws, from, to, *replace, backup).map(|()| ws.metadata(to).ok().flatten())
                }
                (Op::Symlink { path, target }, _) => symlink(ws, path, target).map(|()| None),
                (Op::SetPerm { path, perm }, _) => set_dir_perm(ws, path, *perm).map(|()| None),
                (Op::MakeDir { .. }, _) => continue,
            };
            failed |= result.is_err();
            results[i] = Some(result);
            if failed && stop_at_failure {
                return (results, true);
            }
        }
        drop(staged);
        if flush.len() >= window {
            flush.sync_now(io_pool());
        }
        next = end;
    }
    if results.iter().any(Option::is_none) {
        stop(&mut results);
        failed = true;
        if stop_at_failure {
            return (results, true);
        }
    }
    flush.sync_now(io_pool());
    (results, failed)
}

/// The writes of `to_stage` as the intent log names them.
fn planned_for_log<'a>(ops: &'a [Op<'_>], to_stage: &[usize], tx: &str) -> Vec<Planned<'a>> {
    to_stage
        .iter()
        .filter_map(|&i| match &ops[i] {
            Op::Write {
                path,
                bytes,
                mode,
                read_as,
                ..
            } => Some(Planned {
                path,
                temp: path
                    .relative()
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(temp_name(tx, i)),
                mode: *mode,
                read_as_known: read_as.is_some(),
                bytes,
            }),
            _ => None,
        })
        .collect()
}

/// Stages the writes `to_stage` of `ops` (created, written, flushed unless `!sync`), several
/// at once on the I/O threads.
fn stage_all(
    ws: &Workspace,
    ops: &[Op<'_>],
    to_stage: &[usize],
    tx: &str,
    sync: bool,
    durability: Durability,
) -> Vec<(usize, Result<PendingWrite, FkError>)> {
    let stage = |i: usize| match &ops[i] {
        Op::Write {
            path,
            bytes,
            mode,
            perm,
            ..
        } => ws
            .stage_named(path, *bytes, *mode, sync, &temp_name(tx, i), *perm)
            .map(|mut p| {
                if durability == Durability::Batched {
                    p.defer_directory_sync();
                }
                p
            }),
        _ => unreachable!("only writes are staged"),
    };
    if to_stage.len() > 1 {
        io_pool().install(|| to_stage.par_iter().map(|&i| (i, stage(i))).collect())
    } else {
        to_stage.iter().map(|&i| (i, stage(i))).collect()
    }
}

/// The journal's record of one op: enough to undo it from the disk alone.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Undo {
    /// A write: the staged file `temp` (beside `path`) is renamed over it; an existing file
    /// is first hard-linked to `backup`.
    Write {
        root: usize,
        path: PathBuf,
        temp: PathBuf,
        existed: bool,
        backup: PathBuf,
    },
    /// A removal: `path` is renamed to `trash` (in the journal) and deleted at the end.
    Remove {
        root: usize,
        path: PathBuf,
        trash: PathBuf,
    },
    /// A rename; a file it replaces is first hard-linked to `backup`, an empty directory it
    /// replaces moved there.
    Rename {
        from_root: usize,
        from: PathBuf,
        to_root: usize,
        to: PathBuf,
        backup: PathBuf,
    },
    MakeDir {
        root: usize,
        path: PathBuf,
    },
    Symlink {
        root: usize,
        path: PathBuf,
    },
    /// A directory's permission bits set: `mode` is what they were.
    SetPerm {
        root: usize,
        path: PathBuf,
        mode: u32,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    /// Readers of the journal check this before trusting the rest.
    format: u32,
    /// The roots the steps' root numbers name, as they were: recovery applies a step only in
    /// the root of that path in the workspace that recovers it.
    roots: Vec<PathBuf>,
    /// The in-tree folder of this run's backups and removed entries, in each root it uses.
    staging: PathBuf,
    steps: Vec<Undo>,
}

const MANIFEST_FORMAT: u32 = 2;
/// The name of a journal directory being made (not yet locked under its final name).
const MAKING_SUFFIX: &str = ".new";
const JOURNAL_DIR: &str = "journal";

/// The in-tree folder under which runs keep their backups: `.filekit/journal`.
pub(crate) fn staging_base() -> PathBuf {
    Path::new(RESERVED_DIR).join(JOURNAL_DIR)
}

/// A live atomic run's journal. Its record (the manifest that says how to undo each op, and
/// the lock that says the run is alive) is in the workspace's state directory, never in the
/// tree: a journal in the tree could be planted by a repository and replayed as filekit's own
/// writes. Only what must be on the same filesystem as the files stays in the tree: the
/// backups (hard links) and the entries a delete renamed away, under `staging` in each root the
/// run uses. Without a state directory the run is still all or nothing, but only while its
/// process lives.
struct Journal {
    tx: String,
    /// `.filekit/journal/<tx>`, relative to each root used.
    staging: PathBuf,
    /// The record's folder in the state directory and its lock, held while the run lives.
    record: Option<(PathBuf, std::fs::File)>,
    roots_used: Vec<usize>,
}

impl Journal {
    fn begin(ws: &Workspace, roots_used: Vec<usize>) -> Result<Journal, FkError> {
        let tx = new_tx_name();
        let staging = staging_base().join(&tx);
        let record = match ws.state() {
            Some(state) => Some(begin_record(state, &tx)?),
            None => None,
        };
        let journal = Journal {
            tx,
            staging,
            record,
            roots_used,
        };
        for &r in &journal.roots_used {
            if let Err(e) = make_staging(ws.root_dir(r), &journal.staging) {
                let shown = ws.roots()[r].join(&journal.staging).display().to_string();
                journal.finish(ws);
                return Err(e.into_error(&shown));
            }
        }
        Ok(journal)
    }

    fn write_manifest(&self, ws: &Workspace, manifest: &Manifest) -> Result<(), FkError> {
        let Some((dir, _)) = &self.record else {
            return Ok(());
        };
        let io = |e: io::Error| FkError::from_io(&e, &dir.display().to_string());
        let bytes = serde_json::to_vec(manifest).map_err(|e| io(io::Error::other(e)))?;
        crate::state::replace_private_file_durably(&dir.join("manifest"), &bytes).map_err(io)?;
        sync_path(dir);
        let _ = ws;
        Ok(())
    }

    /// The commit point: without its manifest the journal is only garbage to clear.
    fn finish(self, ws: &Workspace) {
        if let Some((dir, _)) = &self.record {
            let _ = std::fs::remove_file(dir.join("manifest"));
            sync_path(dir);
        }
        let mut cleared = true;
        for &r in &self.roots_used {
            cleared &= clear_staging(ws.root_dir(r), &self.staging);
        }
        // A staging folder that could not be cleared (out of descriptors, say) keeps the
        // record, for the next start to clear it.
        if let Some((dir, _lock)) = self.record
            && cleared
        {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let _ = &self.tx;
    }
}

/// Makes the run's record folder `<state>/journal/<tx>` and locks it: made under a name
/// recovery passes over, and renamed once locked, so that a record under its final name is
/// locked for as long as its run lives.
pub(crate) fn begin_record(
    state: &crate::state::StateDir,
    tx: &str,
) -> Result<(PathBuf, std::fs::File), FkError> {
    let base = state.journal_dir();
    state.ensure_sub(&base)?;
    let dir = base.join(tx);
    let io = |e: io::Error| FkError::from_io(&e, &dir.display().to_string());
    let making = base.join(format!("{tx}{MAKING_SUFFIX}"));
    std::fs::create_dir(&making).map_err(io)?;
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(making.join("lock"))
        .map_err(io)?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| io(e.into()))?;
    std::fs::rename(&making, &dir).map_err(io)?;
    Ok((dir, lock))
}

/// Why the in-tree staging folder could not be used.
pub(crate) enum StagingError {
    /// `.filekit` or one of its folders is not a real directory (a link, a file).
    NotADirectory(PathBuf),
    Io(io::Error),
}

impl StagingError {
    fn into_error(self, shown: &str) -> FkError {
        match self {
            StagingError::NotADirectory(at) => FkError::new(
                ErrorCode::Conflict,
                format!(
                    "{} is not a directory filekit can use (a symbolic link or a file is never followed); an atomic request keeps its backups under {RESERVED_DIR}/ of each root it changes",
                    at.display()
                ),
            )
            .with_hint(format!(
                "remove or rename {} in the workspace, or send the request without atomic",
                at.display()
            )),
            StagingError::Io(e) => FkError::from_io(&e, shown).with_hint(format!(
                "an atomic request keeps its backups in {RESERVED_DIR}/ of each root it changes; make that directory writable"
            )),
        }
    }
}

/// Makes `staging` (`.filekit/journal/<tx>`) beneath `root`, each folder on the way a real
/// directory: a link planted at `.filekit` or `.filekit/journal` (even one inside the root) is
/// refused, never followed. `.filekit/` gets a `.gitignore` when made.
pub(crate) fn make_staging(root: &Dir, staging: &Path) -> Result<(), StagingError> {
    let mut at = PathBuf::new();
    for c in staging.components() {
        at.push(c);
        match root.create_dir(&at) {
            Ok(()) => {
                if at.as_os_str() == RESERVED_DIR {
                    let _ = root.write(Path::new(RESERVED_DIR).join(".gitignore"), b"*\n");
                }
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if !is_real_dir(root, &at) {
                    return Err(StagingError::NotADirectory(at));
                }
            }
            Err(e) => return Err(StagingError::Io(e)),
        }
    }
    Ok(())
}

/// Removes a run's staging folder, only when every folder on the way is still a real
/// directory. Whether it is gone (or was never made).
pub(crate) fn clear_staging(root: &Dir, staging: &Path) -> bool {
    let mut at = PathBuf::new();
    for c in staging.components() {
        at.push(c);
        if !is_real_dir(root, &at) {
            return root.symlink_metadata(&at).is_err();
        }
    }
    root.remove_dir_all(staging).is_ok()
}

/// Clears the staging folders a run named `tx` (a record of ours) may have left in the roots.
fn clear_all_staging(ws: &Workspace, tx: &str) {
    if tx.is_empty() || tx.contains(['/', '\0']) || tx.starts_with('.') {
        return;
    }
    let staging = staging_base().join(tx);
    for r in 0..ws.roots().len() {
        clear_staging(ws.root_dir(r), &staging);
    }
}

fn is_real_dir(root: &Dir, rel: &Path) -> bool {
    root.symlink_metadata(rel).is_ok_and(|m| m.is_dir())
}

fn sync_path(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

fn run_journaled(
    ws: &Workspace,
    ops: &[Op<'_>],
    durability: Durability,
    control: &Control,
) -> Outcome {
    let fail_all = |err: FkError| Outcome {
        results: ops.iter().map(|_| Err(err.clone())).collect(),
        rolled_back: true,
    };
    let Some(_writing) = Writing::begin() else {
        return fail_all(stopping_error());
    };
    recover_quietly(ws);
    let mut roots_used: Vec<usize> = ops
        .iter()
        .flat_map(|op| match op {
            Op::Rename { from, to, .. } => vec![from.root_index(), to.root_index()],
            other => vec![other.path().root_index()],
        })
        .collect();
    roots_used.sort_unstable();
    roots_used.dedup();
    let journal = match Journal::begin(ws, roots_used) {
        Ok(j) => j,
        Err(e) => return fail_all(e),
    };
    let steps: Vec<Undo> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| undo_step(ws, &journal, i, op))
        .collect();
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        roots: ws.roots().to_vec(),
        staging: journal.staging.clone(),
        steps,
    };
    if let Err(e) = journal.write_manifest(ws, &manifest) {
        journal.finish(ws);
        return fail_all(e);
    }

    let (results, failed) = execute(
        ws,
        ops,
        durability,
        &journal.tx,
        Run::Journaled(&manifest),
        control,
        ops.iter().map(|_| None).collect(),
    );
    if failed {
        rollback(ws, &manifest.steps, &RootMap::same(ws));
        journal.finish(ws);
        let cause = results
            .iter()
            .flatten()
            .find_map(|r| r.as_ref().err().cloned())
            .unwrap_or_else(|| FkError::new(ErrorCode::Io, "another operation failed"));
        // The ops that were done, or not reached, failed for the cause: said with its code
        // (out of descriptors, a full disk, a cancel), which is what the caller acts on.
        let not_done = match cause.code {
            ErrorCode::Cancelled => FkError::new(
                ErrorCode::Cancelled,
                if crate::interrupt::stop_requested() {
                    "not done: filekit was asked to end (interrupted) while this atomic request was writing; everything it had written was put back"
                } else {
                    "not done: the request was cancelled while writing; being atomic, everything it had written was put back"
                },
            )
            .with_hint("send the request again"),
            code => FkError::new(
                code,
                format!(
                    "not done: the request is atomic and another part of it failed ({})",
                    cause.message
                ),
            )
            .with_hint(cause.hint.clone().unwrap_or_else(|| {
                "fix the failed part, then send the whole request again".to_string()
            })),
        };
        return Outcome {
            results: results
                .into_iter()
                .map(|r| match r {
                    Some(Err(e)) if e.code != ErrorCode::Cancelled => Err(e),
                    _ => Err(not_done.clone()),
                })
                .collect(),
            rolled_back: true,
        };
    }
    journal.finish(ws);
    Outcome {
        results: results.into_iter().map(|r| r.unwrap_or(Ok(None))).collect(),
        rolled_back: false,
    }
}

/// The journal entry that undoes `op`, with the names it will use decided now.
fn undo_step(ws: &Workspace, journal: &Journal, i: usize, op: &Op<'_>) -> Undo {
    let in_journal = |name: String| journal.staging.join(name);
    match op {
        Op::Write { path, .. } => Undo::Write {
            root: path.root_index(),
            path: path.relative().to_path_buf(),
            temp: path
                .relative()
                .parent()
                .unwrap_or(Path::new(""))
                .join(temp_name(&journal.tx, i)),
            existed: ws.metadata(path).ok().flatten().is_some(),
            backup: in_journal(format!("b{i}")),
        },
        Op::Remove { path, .. } => Undo::Remove {
            root: path.root_index(),
            path: path.relative().to_path_buf(),
            trash: in_journal(format!("t{i}")),
        },
        Op::Rename { from, to, .. } => Undo::Rename {
            from_root: from.root_index(),
            from: from.relative().to_path_buf(),
            to_root: to.root_index(),
            to: to.relative().to_path_buf(),
            backup: in_journal(format!("b{i}")),
        },
        Op::MakeDir { path, .. } => Undo::MakeDir {
            root: path.root_index(),
            path: path.relative().to_path_buf(),
        },
        Op::Symlink { path, .. } => Undo::Symlink {
            root: path.root_index(),
            path: path.relative().to_path_buf(),
        },
        Op::SetPerm { path, perm } => Undo::SetPerm {
            root: path.root_index(),
            path: path.relative().to_path_buf(),
            // What is there now; a path that cannot be read keeps the mode asked for (the op
            // then fails, and its rollback sets nothing that changed).
            mode: ws.metadata(path).ok().flatten().map_or(*perm, |m| m.mode),
        },
    }
}

/// Keeps the file about to be replaced at `backup` (a hard link: no bytes copied; a copy
/// where links are not possible).
fn keep_backup(ws: &Workspace, path: &WsPath, existed: bool, backup: &Path) -> Result<(), FkError> {
    if !existed {
        return Ok(());
    }
    let dir = ws.root_dir(path.root_index());
    let shown = ws.display(path);
    match dir.hard_link(path.relative(), dir, backup) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(_) => dir
            .copy(path.relative(), dir, backup)
            .map(|_| ())
            .map_err(|e| FkError::from_io(&e, &shown)),
    }
}

fn make_dir(ws: &Workspace, path: &WsPath, perm: Option<u32>) -> Result<(), FkError> {
    let dir = ws.root_dir(path.root_index());
    let shown = ws.display(path);
    dir.create_dir(path.relative())
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => FkError::new(
                ErrorCode::Conflict,
                format!("cannot make directory {shown}: something of that name is already there"),
            )
            .with_hint("choose another name, or move what is there out of the way first"),
            _ => FkError::from_io(&e, &shown),
        })?;
    if let Some(perm) = perm {
        use cap_std::fs::PermissionsExt;
        dir.set_permissions(path.relative(), cap_std::fs::Permissions::from_mode(perm))
            .map_err(|e| FkError::from_io(&e, &shown))?;
    }
    Ok(())
}

/// Sets the permission bits of the directory at `path`; anything else there is refused (the
/// caller checked it was a directory: what is there now is no longer what it planned for).
fn set_dir_perm(ws: &Workspace, path: &WsPath, perm: u32) -> Result<(), FkError> {
    use cap_std::fs::PermissionsExt;
    let dir = ws.root_dir(path.root_index());
    let shown = ws.display(path);
    let meta = dir
        .symlink_metadata(path.rel_or_dot())
        .map_err(|e| FkError::from_io(&e, &shown))?;
    if !meta.is_dir() {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!("cannot set the mode of {shown}: it is no longer a directory"),
        )
        .with_hint("look at what is there now, then try again"));
    }
    dir.set_permissions(path.rel_or_dot(), cap_std::fs::Permissions::from_mode(perm))
        .map_err(|e| FkError::from_io(&e, &shown))
}

/// Removes `path`; with `trash`, by renaming it there (so that a rollback can put it back).
fn remove(
    ws: &Workspace,
    path: &WsPath,
    recursive: bool,
    trash: Option<&PathBuf>,
) -> Result<(), FkError> {
    let dir = ws.root_dir(path.root_index());
    let shown = ws.display(path);
    let meta = dir
        .symlink_metadata(path.relative())
        .map_err(|e| FkError::from_io(&e, &shown))?;
    if meta.is_dir() && !recursive {
        let empty = dir
            .read_dir(path.relative())
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(FkError::new(
                ErrorCode::IsDirectory,
                format!("{shown} is a directory that is not empty"),
            )
            .with_hint("delete what is in it first")
            .with_details(serde_json::json!({
                "fact": crate::Fact::DirectoryNotEmpty,
                "path": shown,
            })));
        }
    }
    // A tree is removed one entry at a time: make sure every entry can go before any does.
    if meta.is_dir() && recursive {
        refuse_blocked_removal(ws, path)?;
    }
    if let Some(trash) = trash {
        return dir
            .rename(path.relative(), dir, trash)
            .map_err(|e| FkError::from_io(&e, &shown));
    }
    if meta.is_dir() {
        if recursive {
            dir.remove_dir_all(path.relative())
                .map_err(|e| stopped_part_way(ws, path, &e))
        } else {
            dir.remove_dir(path.relative())
                .map_err(|e| FkError::from_io(&e, &shown))
        }
    } else {
        dir.remove_file(path.relative())
            .map_err(|e| FkError::from_io(&e, &shown))
    }
}

/// How many blockers of a removal an error names.
const BLOCKERS_NAMED: usize = 5;

/// Refuses the removal of the tree at `path` when something in it cannot be removed (see
/// [`crate::removable`]), naming what and why: nothing of it is removed then.
fn refuse_blocked_removal(ws: &Workspace, path: &WsPath) -> Result<(), FkError> {
    let dir = ws.root_dir(path.root_index());
    let found = crate::removable::blockers(dir, path.relative(), BLOCKERS_NAMED);
    if found.total == 0 {
        return Ok(());
    }
    let root = &ws.roots()[path.root_index()];
    let named: Vec<String> = found
        .first
        .iter()
        .map(|b| format!("{} ({})", root.join(&b.path).display(), b.why))
        .collect();
    let more = found.total - found.first.len();
    let list = if more > 0 {
        format!("{} and {more} more", named.join("; "))
    } else {
        named.join("; ")
    };
    Err(FkError::new(
        ErrorCode::PermissionDenied,
        format!(
            "cannot delete {}: {} of its entries cannot be removed, so nothing was deleted: {list}",
            ws.display(path),
            found.total
        ),
    )
    .with_hint("fix those entries' permissions or attributes (or unmount what is mounted there), or delete the parts that can go")
    .with_details(serde_json::json!({
        "blocked": found.first.iter().map(|b| serde_json::json!({
            "path": root.join(&b.path).display().to_string(),
            "why": b.why,
        })).collect::<Vec<_>>(),
        "blocked_count": found.total,
    })))
}

/// The error of a tree's removal that failed after some of it was removed (something changed
/// after it was checked): says what remains.
fn stopped_part_way(ws: &Workspace, path: &WsPath, e: &io::Error) -> FkError {
    let dir = ws.root_dir(path.root_index());
    let mut remaining = 0usize;
    let mut to_visit = vec![path.relative().to_path_buf()];
    while let Some(rel) = to_visit.pop() {
        remaining += 1;
        if let Ok(entries) = dir.read_dir(&rel) {
            for entry in entries.flatten() {
                let child = rel.join(entry.file_name());
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    to_visit.push(child);
                } else {
                    remaining += 1;
                }
            }
        }
    }
    FkError::new(
        ErrorCode::PermissionDenied,
        format!(
            "deleting {} stopped part way ({e}): {remaining} entries remain (the folder and what is still in it); what was deleted is recorded, so undo brings it back",
            ws.display(path)
        ),
    )
    .with_hint("see what remains with a listing, fix its permissions, then delete it again")
    .with_details(serde_json::json!({"remaining": remaining}))
}

fn rename(
    ws: &Workspace,
    from: &WsPath,
    to: &WsPath,
    replace: bool,
    backup: Option<&PathBuf>,
) -> Result<(), FkError> {
    let from_dir = ws.root_dir(from.root_index());
    let to_dir = ws.root_dir(to.root_index());
    let shown_to = ws.display(to);
    let moves_dir = || {
        from_dir
            .symlink_metadata(from.relative())
            .is_ok_and(|m| m.is_dir())
    };
    match to_dir.symlink_metadata(to.relative()) {
        Ok(m) if m.is_dir() && replace && moves_dir() => {
            // An empty directory is replaced, as a rename replaces it. A journaled run keeps
            // it for its rollback (moved whole, as it is), and puts back one that got entries
            // since the plan looked: those are never removed with it.
            if let Some(backup) = backup {
                to_dir
                    .rename(to.relative(), to_dir, backup)
                    .map_err(|e| FkError::from_io(&e, &shown_to))?;
                if !to_dir
                    .read_dir(backup)
                    .is_ok_and(|mut entries| entries.next().is_none())
                {
                    let _ = to_dir.rename(backup, to_dir, to.relative());
                    return Err(crate::fsops::destination_not_empty(&shown_to, None));
                }
            }
        }
        Ok(m) if m.is_dir() => {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!("{shown_to} already exists and is a directory"),
            )
            .with_hint("give the full destination path (including the new name), or delete the directory first"));
        }
        Ok(_) if !replace => {
            return Err(crate::fsops::already_exists(&shown_to));
        }
        Ok(_) => {
            if let Some(backup) = backup {
                let _ = to_dir.hard_link(to.relative(), to_dir, backup);
            }
        }
        Err(_) => {}
    }
    from_dir
        .rename(from.relative(), to_dir, to.relative())
        .map_err(|e| {
            let errno = e.raw_os_error();
            // A directory that got entries since the plan looked (Linux says ENOTEMPTY, some
            // systems EEXIST).
            if [rustix::io::Errno::NOTEMPTY, rustix::io::Errno::EXIST]
                .iter()
                .any(|n| errno == Some(n.raw_os_error()))
            {
                crate::fsops::destination_not_empty(&shown_to, None)
            } else if errno == Some(rustix::io::Errno::XDEV.raw_os_error()) {
                FkError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "cannot move {} to {shown_to}: they are on different filesystems",
                        ws.display(from)
                    ),
                )
                .with_hint("copy the file, then delete the original")
            } else {
                FkError::from_io(&e, &ws.display(from))
            }
        })
}

fn symlink(ws: &Workspace, path: &WsPath, target: &Path) -> Result<(), FkError> {
    let parent = path
        .parent()
        .ok_or_else(|| FkError::invalid("cannot make a root a link"))?;
    let dir = ws.root_dir(path.root_index());
    let shown = ws.display(path);
    let name = path
        .relative()
        .file_name()
        .ok_or_else(|| FkError::invalid(format!("{shown} has no file name")))?;
    // Through the parent's file descriptor: the link's text is stored as given, never
    // resolved (cap-std refuses to create links whose target it would not follow).
    let parent_dir = dir
        .open_dir(parent.rel_or_dot())
        .map_err(|e| FkError::from_io(&e, &shown))?;
    rustix::fs::symlinkat(target, &parent_dir, name)
        .map_err(|e| FkError::from_io(&e.into(), &shown))
}

/// Undoes journal steps, last first. Every step looks at the disk before acting, so steps
/// that never ran are left alone.
fn rollback(ws: &Workspace, steps: &[Undo], roots: &RootMap) {
    for step in steps.iter().rev() {
        match step {
            Undo::Write {
                root,
                path,
                temp,
                existed,
                backup,
            } => {
                let Some(dir) = roots.dir(ws, *root) else {
                    continue;
                };
                if *existed {
                    if dir.symlink_metadata(backup).is_ok() {
                        let _ = dir.rename(backup, dir, path);
                    }
                } else if let Ok(now) = dir.symlink_metadata(path) {
                    // The new file is ours if the temporary file is gone (renamed into place)
                    // or is the same file (hard-linked into place, not yet unlinked).
                    let ours = match dir.symlink_metadata(temp) {
                        Err(_) => true,
                        Ok(t) => same_file(&now, &t),
                    };
                    if ours {
                        let _ = dir.remove_file(path);
                    }
                }
                let _ = dir.remove_file(temp);
            }
            Undo::Remove { root, path, trash } => {
                let Some(dir) = roots.dir(ws, *root) else {
                    continue;
                };
                if dir.symlink_metadata(trash).is_ok() {
                    let _ = dir.rename(trash, dir, path);
                }
            }
            Undo::Rename {
                from_root,
                from,
                to_root,
                to,
                backup,
            } => {
                let (Some(fd), Some(td)) = (roots.dir(ws, *from_root), roots.dir(ws, *to_root))
                else {
                    continue;
                };
                if fd.symlink_metadata(from).is_err() && td.symlink_metadata(to).is_ok() {
                    let _ = td.rename(to, fd, from);
                }
                if td.symlink_metadata(backup).is_ok() {
                    let _ = td.rename(backup, td, to);
                }
            }
            Undo::MakeDir { root, path } => {
                if let Some(dir) = roots.dir(ws, *root) {
                    let _ = dir.remove_dir(path);
                }
            }
            Undo::Symlink { root, path } => {
                if let Some(dir) = roots.dir(ws, *root)
                    && dir
                        .symlink_metadata(path)
                        .is_ok_and(|m| m.file_type().is_symlink())
                {
                    let _ = dir.remove_file(path);
                }
            }
            Undo::SetPerm { root, path, mode } => {
                use cap_std::fs::PermissionsExt;
                if let Some(dir) = roots.dir(ws, *root)
                    && dir.symlink_metadata(path).is_ok_and(|m| m.is_dir())
                {
                    let _ = dir.set_permissions(path, cap_std::fs::Permissions::from_mode(*mode));
                }
            }
        }
    }
}

/// Which root of the workspace each root number of a journal names.
pub(crate) struct RootMap(Vec<Option<usize>>);

impl RootMap {
    /// A run of this process: its numbers are the workspace's.
    fn same(ws: &Workspace) -> RootMap {
        RootMap((0..ws.roots().len()).map(Some).collect())
    }

    /// A recorded run's roots, found among the workspace's by path (`None`: not one of them).
    pub(crate) fn of(ws: &Workspace, recorded: &[PathBuf]) -> RootMap {
        RootMap(
            recorded
                .iter()
                .map(|p| ws.roots().iter().position(|r| r == p))
                .collect(),
        )
    }

    pub(crate) fn covers(&self, i: usize) -> bool {
        self.0.get(i).is_some_and(Option::is_some)
    }

    /// The workspace's number of the recorded root `i`.
    pub(crate) fn index(&self, i: usize) -> Option<usize> {
        self.0.get(i).copied().flatten()
    }

    pub(crate) fn dir<'w>(&self, ws: &'w Workspace, i: usize) -> Option<&'w Dir> {
        self.index(i).map(|r| ws.root_dir(r))
    }
}

fn same_file(a: &cap_std::fs::Metadata, b: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// What [`recover`] found and did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Recovery {
    /// Interrupted atomic requests that were rolled back, by journal name.
    pub rolled_back: Vec<String>,
    /// Journals that were already committed or never started, cleared.
    pub cleared: Vec<String>,
    /// Records that named a path no write may reach (`.git/`, `.filekit/`, outside the
    /// roots): cleared without replaying any of their steps.
    pub refused: Vec<String>,
    /// Plain requests stopped part way (their process killed): their temporary files were
    /// removed and the files they had written recorded in the history.
    pub finished: Vec<FinishedRequest>,
}

/// A plain request whose process died part way, finished by [`recover`].
#[derive(Debug, Clone, Serialize)]
pub struct FinishedRequest {
    pub journal: String,
    /// Files it had written, now recorded in the history.
    pub files: usize,
    /// The history entry that records them (none without a history, or with no file).
    pub entry: Option<i64>,
}

/// Rolls back every atomic request whose process died part way, from its record in the
/// workspace's state directory (see the module documentation). Records still locked by a live
/// process are left alone, and so is a record of roots this workspace does not have (a later
/// start with them rolls it back). Nothing in the tree is read as a journal: a `.filekit/`
/// that a repository ships is never replayed. Front ends call this when they start; atomic
/// runs call it before they begin.
pub fn recover(ws: &Workspace) -> Result<Recovery, FkError> {
    let mut out = Recovery::default();
    if ws.read_only() {
        return Ok(out);
    }
    let Some(state) = ws.state() else {
        return Ok(out);
    };
    let base = state.journal_dir();
    let entries = match std::fs::read_dir(&base) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(FkError::from_io(&e, &base.display().to_string())),
    };
    let names: Vec<OsString> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    for name in names {
        let dir = base.join(&name);
        let shown = name.to_string_lossy().into_owned();
        if shown.ends_with(MAKING_SUFFIX) {
            // Being made right now, or abandoned before its run did anything: its name
            // holds the process id of its run.
            if is_old(&dir) || !process_alive(&shown) {
                let tx = shown.trim_end_matches(MAKING_SUFFIX);
                clear_all_staging(ws, tx);
                let _ = std::fs::remove_dir_all(&dir);
                out.cleared.push(shown);
            }
            continue;
        }
        // A record under its final name has its lock until its run, finished, removes the
        // folder; one found without it is such a removal cut short.
        let Ok(lock) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(dir.join("lock"))
        else {
            if std::fs::symlink_metadata(dir.join("manifest")).is_err() {
                clear_all_staging(ws, &shown);
                let _ = std::fs::remove_dir_all(&dir);
                out.cleared.push(shown);
            }
            continue;
        };
        if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let manifest: Option<Manifest> =
            crate::state::read_state_file(&dir.join("manifest"), MAX_RECORD_BYTES)
                .and_then(|b| serde_json::from_slice(&b).ok())
                .filter(|m: &Manifest| m.format == MANIFEST_FORMAT);
        if let Some(m) = &manifest {
            let roots = RootMap::of(ws, &m.roots);
            if !m
                .steps
                .iter()
                .all(|step| step_roots(step).all(|r| roots.covers(r)))
            {
                // Made for other roots than this workspace's: left for a filekit that has them.
                continue;
            }
            if manifest_is_sane(ws, m) {
                rollback(ws, &m.steps, &roots);
            } else {
                out.refused.push(shown.clone());
            }
            for r in (0..m.roots.len()).filter_map(|r| roots.0[r]) {
                clear_staging(ws.root_dir(r), &m.staging);
            }
        }
        // Without a manifest the run committed (the manifest goes first), died before
        // writing it, or was a plain request: nothing to undo; a plain request's log names
        // its temporary files to remove and the writes to record. Then only the folders to
        // clear (backups, made after its record, are under its name in the roots).
        if manifest.is_none() {
            if std::fs::symlink_metadata(dir.join(intent_log::LOG)).is_ok() {
                match intent_log::finish_dead(ws, &dir, &shown) {
                    intent_log::Finished::NotOurs => continue,
                    intent_log::Finished::Refused => out.refused.push(shown.clone()),
                    intent_log::Finished::Recorded { files, entry } => {
                        out.finished.push(FinishedRequest {
                            journal: shown.clone(),
                            files,
                            entry,
                        });
                    }
                }
            }
            clear_all_staging(ws, &shown);
        }
        let _ = std::fs::remove_dir_all(&dir);
        match manifest {
            _ if out.refused.last() == Some(&shown) => {}
            _ if out.finished.last().is_some_and(|f| f.journal == shown) => {}
            Some(_) => out.rolled_back.push(shown),
            None => out.cleared.push(shown),
        }
        drop(lock);
    }
    Ok(out)
}

/// A record's manifest or log is far smaller (a log line per write: about 200 bytes); a
/// larger file is not one.
pub(crate) const MAX_RECORD_BYTES: u64 = 256 << 20;

/// The root numbers a step names.
fn step_roots(step: &Undo) -> impl Iterator<Item = usize> {
    let (a, b) = match step {
        Undo::Write { root, .. }
        | Undo::Remove { root, .. }
        | Undo::MakeDir { root, .. }
        | Undo::Symlink { root, .. }
        | Undo::SetPerm { root, .. } => (*root, *root),
        Undo::Rename {
            from_root, to_root, ..
        } => (*from_root, *to_root),
    };
    [a, b].into_iter()
}

/// Checks a record before replaying it, although it comes from the user's own state
/// directory: every path a step changes is one the write policy allows (no `.git/`, no
/// `.filekit/`, no `..`, no absolute path), every backup and removed entry is in the run's own
/// staging folder, and every temporary file has filekit's temporary name. A record that fails
/// is not replayed at all.
fn manifest_is_sane(ws: &Workspace, m: &Manifest) -> bool {
    let staging_ok = m.staging.parent() == Some(staging_base().as_path())
        && m.staging
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    let kept = |p: &Path| {
        p.parent() == Some(m.staging.as_path())
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    let target = |p: &Path| ws.may_write_relative(p);
    staging_ok
        && m.steps.iter().all(|step| match step {
            Undo::Write {
                path, temp, backup, ..
            } => {
                target(path)
                    && kept(backup)
                    && temp.parent() == path.parent()
                    && temp_name_is_ours(temp)
            }
            Undo::Remove { path, trash, .. } => target(path) && kept(trash),
            Undo::Rename {
                from, to, backup, ..
            } => target(from) && target(to) && kept(backup),
            Undo::MakeDir { path, .. }
            | Undo::Symlink { path, .. }
            | Undo::SetPerm { path, .. } => target(path),
        })
}

/// Whether the process that named a journal `<time>-<pid>-<n>` still runs.
fn process_alive(journal_name: &str) -> bool {
    let Some(pid) = journal_name.split('-').nth(1) else {
        return false;
    };
    pid.parse::<u32>().is_ok() && Path::new("/proc").join(pid).exists()
}

/// Older than any run takes between making its journal and writing its manifest.
fn is_old(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir)
        .and_then(|m| m.modified())
        .map(|t| t.elapsed().unwrap_or_default().as_secs() > 60)
        .unwrap_or(false)
}

fn recover_quietly(ws: &Workspace) {
    let _ = recover(ws);
}

#[cfg(test)]
#[path = "transaction_rename_tests.rs"]
mod rename_tests;
