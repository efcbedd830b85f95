//! The record a plain (not atomic) request keeps of its writes while it runs, so that the
//! next start after the process was killed can finish what it left: remove its temporary
//! files, and record in the history the files it had already put in place, as the request
//! would have, so that undo restores them.
//!
//! An atomic run has its manifest (see [`crate::transaction`]), which undoes everything. A
//! plain run keeps what it wrote: its record (`<state>/journal/<tx>/`, locked while the
//! request lives, like an atomic run's) holds a log, `writes`, one JSON line per write
//! appended before its temporary file is created: where it goes, its temporary file, whether
//! a file was there, where that file is kept (a hard link under `.filekit/journal/<tx>/` of
//! its root, made just before the rename) and the hash of the new bytes. The request removes
//! the record once the history has its changes. A record whose request died is found by
//! [`crate::transaction::recover`]: no walk of the tree, only the paths the log names.

use crate::error::FkError;
use crate::history::{self, Change, EntryKind, Node};
use crate::interrupt::Writing;
use crate::transaction::{
    MAX_RECORD_BYTES, RootMap, begin_record, clear_staging, make_staging, new_tx_name,
    staging_base, temp_name_is_ours,
};
use crate::workspace::{Workspace, WriteMode, WsPath};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The log's name in a record folder.
pub(crate) const LOG: &str = "writes";
const FORMAT: u32 = 1;

/// The log's first line.
#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    /// The tool or verb of the request, as the history names it.
    tool: String,
    roots: Vec<PathBuf>,
    /// `.filekit/journal/<tx>`: where the old files are kept, in each root used.
    staging: PathBuf,
    /// Whether the request records its changes in a history (and keeps the old files for it).
    record: bool,
}

/// One write, logged before its temporary file exists.
#[derive(Serialize, Deserialize)]
struct Entry {
    root: usize,
    path: PathBuf,
    temp: PathBuf,
    /// A file was at `path` when the write was logged.
    existed: bool,
    /// Where that file is kept (a hard link made just before the rename).
    backup: Option<PathBuf>,
    /// The content hash of the bytes written.
    hash: String,
}

/// A plain request's record of its writes, from before its first write until the history
/// has them: dropped once the caller recorded them, it removes the record and the kept
/// files. It holds a [`Writing`]: a front end that stops waits for it.
pub(crate) struct Intent<'w> {
    ws: &'w Workspace,
    /// The record's folder and its lock; `None` without a state directory (or when it could
    /// not be made: the writes go on, only a kill could then leave temporary files).
    record: Option<(PathBuf, std::fs::File)>,
    staging: PathBuf,
    keep_old_files: bool,
    log: Mutex<Log>,
    _writing: Writing,
}

struct Log {
    file: Option<std::fs::File>,
    /// Roots whose staging folder exists (made when a first old file is kept there).
    staged_roots: Vec<usize>,
    /// Roots whose staging folder could not be made: no old file kept there.
    unstageable: Vec<usize>,
    kept: usize,
}

/// A write as the log will name it.
pub(crate) struct Planned<'a> {
    pub path: &'a WsPath,
    pub temp: PathBuf,
    pub mode: WriteMode,
    pub read_as_known: bool,
    pub bytes: &'a crate::content::Content<'a>,
}

impl<'w> Intent<'w> {
    /// Begins the record of a request named `tool` (`keep_old_files`: the caller records its
    /// changes in the history, so a killed run's may be recorded too). `Err` when this process
    /// was asked to stop writing.
    pub(crate) fn begin(
        ws: &'w Workspace,
        tool: &str,
        keep_old_files: bool,
    ) -> Result<Intent<'w>, FkError> {
        let writing = Writing::begin().ok_or_else(crate::transaction::stopping_error)?;
        let tx = new_tx_name();
        let keep_old_files = keep_old_files && ws.history().is_some();
        let mut record = None;
        let mut file = None;
        if !ws.read_only()
            && let Some(state) = ws.state()
            && let Ok((dir, lock)) = begin_record(state, &tx)
        {
            let header = Header {
                format: FORMAT,
                tool: tool.to_string(),
                roots: ws.roots().to_vec(),
                staging: staging_base().join(&tx),
                record: keep_old_files,
            };
            file = open_log(&dir, &header).ok();
            record = Some((dir, lock));
        }
        Ok(Intent {
            ws,
            keep_old_files: keep_old_files && file.is_some(),
            record,
            staging: staging_base().join(&tx),
            log: Mutex::new(Log {
                file,
                staged_roots: Vec::new(),
                unstageable: Vec::new(),
                kept: 0,
            }),
            _writing: writing,
        })
    }

    /// Logs `writes` before their temporary files are created; returns, for each, where the
    /// file it replaces is to be kept (if it is).
    pub(crate) fn log(&self, writes: &[Planned<'_>]) -> Vec<Option<PathBuf>> {
        let ws = self.ws;
        let none = || writes.iter().map(|_| None).collect();
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if log.file.is_none() {
            return none();
        }
        let mut lines = Vec::new();
        let mut kept_at = Vec::with_capacity(writes.len());
        for w in writes {
            // What a file was there and what was written matter only to a record that keeps
            // the old files for the history; without one, the log names temporary files.
            let existed = self.keep_old_files
                && match w.mode {
                    WriteMode::CreateNew => false,
                    WriteMode::Replace | WriteMode::InPlace => true,
                    WriteMode::CreateOrReplace => {
                        w.read_as_known || ws.metadata(w.path).ok().flatten().is_some()
                    }
                };
            let root = w.path.root_index();
            let backup = (existed && self.stage_in(ws, &mut log, root)).then(|| {
                log.kept += 1;
                self.staging.join(format!("b{}", log.kept))
            });
            let entry = Entry {
                root,
                path: w.path.relative().to_path_buf(),
                temp: w.temp.clone(),
                existed,
                backup: backup.clone(),
                hash: if self.keep_old_files {
                    w.bytes.content_hash().unwrap_or_default()
                } else {
                    String::new()
                },
            };
            if serde_json::to_writer(&mut lines, &entry).is_ok() {
                lines.push(b'\n');
            }
            kept_at.push(backup);
        }
        // One write of whole lines to a file opened for appending: a kill leaves whole lines
        // (at worst a last line cut short, which recovery passes over).
        let written = log.file.as_ref().map(|mut f| f.write_all(&lines));
        if !matches!(written, Some(Ok(()))) {
            // Without its log the run cannot be finished after a kill: keep no old files
            // that nothing would name.
            return none();
        }
        kept_at
    }

    /// Makes the staging folder of `root` once; whether old files can be kept there.
    fn stage_in(&self, ws: &Workspace, log: &mut Log, root: usize) -> bool {
        if log.staged_roots.contains(&root) {
            return true;
        }
        if log.unstageable.contains(&root) {
            return false;
        }
        if make_staging(ws.root_dir(root), &self.staging).is_ok() {
            log.staged_roots.push(root);
            true
        } else {
            log.unstageable.push(root);
            false
        }
    }
}

impl Drop for Intent<'_> {
    /// The request's changes are in the history (or it records none): the record and the
    /// kept files go.
    fn drop(&mut self) {
        let Some((dir, _lock)) = self.record.take() else {
            return;
        };
        // The log goes first: a record without it has nothing left to finish, only folders
        // to clear. A staging folder that could not be cleared (out of descriptors, say)
        // keeps the record, for the next start to clear it.
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        drop(log.file.take());
        let _ = std::fs::remove_file(dir.join(LOG));
        let mut cleared = true;
        for &r in &log.staged_roots {
            cleared &= clear_staging(self.ws.root_dir(r), &self.staging);
        }
        if cleared {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

fn open_log(dir: &Path, header: &Header) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(dir.join(LOG))?;
    let mut line = serde_json::to_vec(header).map_err(std::io::Error::other)?;
    line.push(b'\n');
    f.write_all(&line)?;
    Ok(f)
}

/// What finishing a dead request's record did.
pub(crate) enum Finished {
    /// Its temporary files were removed and `files` files it had written were recorded in
    /// the history (`entry`).
    Recorded { files: usize, entry: Option<i64> },
    /// Made for other roots than this workspace's: left for a filekit that has them.
    NotOurs,
    /// It names a path no write may reach: cleared without touching any path it names.
    Refused,
}

/// Finishes the record at `dir` of a request whose process died (its lock is held by the
/// caller): removes the temporary files its log names, and records in the history the files
/// it had put in place (the file now at the path has the logged hash) with the kept old file
/// as their "before". The caller then clears the record and its staging folders.
pub(crate) fn finish_dead(ws: &Workspace, dir: &Path, tx: &str) -> Finished {
    let Some(bytes) = crate::state::read_state_file(&dir.join(LOG), MAX_RECORD_BYTES) else {
        return Finished::Recorded {
            files: 0,
            entry: None,
        };
    };
    let mut lines = bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let Some(header) = lines
        .next()
        .and_then(|l| serde_json::from_slice::<Header>(l).ok())
        .filter(|h| h.format == FORMAT)
    else {
        return Finished::Refused;
    };
    // A last line cut short by the kill was never acted on: its temporary file was not
    // created yet.
    let entries: Vec<Entry> = lines
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    let roots = RootMap::of(ws, &header.roots);
    if !entries.iter().all(|e| roots.covers(e.root)) {
        return Finished::NotOurs;
    }
    let staging = staging_base().join(tx);
    let sane = header.staging == staging
        && entries.iter().all(|e| {
            ws.may_write_relative(&e.path)
                && e.temp.parent() == e.path.parent()
                && temp_name_is_ours(&e.temp)
                && e.backup
                    .as_ref()
                    .is_none_or(|b| b.parent() == Some(&staging))
        });
    if !sane {
        return Finished::Refused;
    }
    for e in &entries {
        if let Some(root) = roots.dir(ws, e.root)
            && root.symlink_metadata(&e.temp).is_ok_and(|m| m.is_file())
        {
            let _ = root.remove_file(&e.temp);
        }
    }
    if !header.record || ws.history().is_none() {
        return Finished::Recorded {
            files: 0,
            entry: None,
        };
    }
    // Per path, in the log's order: the first write's old file, and the file now there if
    // one of the writes put it there.
    let mut changes: Vec<Change> = Vec::new();
    let mut seen: std::collections::HashMap<(usize, &Path), usize> = Default::default();
    for e in &entries {
        let Some(root) = roots.dir(ws, e.root) else {
            continue;
        };
        let Some((now, mode)) = read_linkless(root, &e.path) else {
            continue;
        };
        if crate::hash::content_hash(&now) != e.hash {
            continue;
        }
        let after = Node::File { bytes: now, mode };
        let key = (e.root, e.path.as_path());
        if let Some(&k) = seen.get(&key) {
            changes[k].after = after;
            continue;
        }
        let before = match (&e.backup, e.existed) {
            (_, false) => Node::Absent,
            (Some(backup), true) => match read_linkless(root, backup) {
                Some((bytes, mode)) => Node::File { bytes, mode },
                None => continue,
            },
            (None, true) => continue,
        };
        seen.insert(key, changes.len());
        changes.push(Change {
            path: ws.roots()[roots.index(e.root).expect("covered above")].join(&e.path),
            before,
            after,
        });
    }
    let files = changes.len();
    let summary = history::summarize(
        ws,
        "stopped part way (recorded at the next start), changed",
        &changes,
    );
    let entry = history::record_commit(
        ws,
        &header.tool,
        &summary,
        EntryKind::Change,
        None,
        &changes,
    );
    Finished::Recorded { files, entry }
}

/// A regular file's bytes and permission bits, opened beneath the root through no link.
fn read_linkless(root: &cap_std::fs::Dir, rel: &Path) -> Option<(Vec<u8>, u32)> {
    use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let fd = openat2(
        root,
        rel,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
    )
    .ok()?;
    let mut f = std::fs::File::from(fd);
    let m = f.metadata().ok()?;
    if !m.is_file() {
        return None;
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.read_to_end(&mut bytes).ok()?;
    Some((bytes, m.permissions().mode() & 0o7777))
}

#[cfg(test)]
mod tests {
    use crate::history::History;
    use crate::state::StateDir;
    use crate::transaction::recover;
    use crate::workspace::Workspace;
    use serde_json::json;
    use std::path::Path;
    use std::sync::Arc;

    /// A workspace over a fresh root, its state in a private folder beside it, with a history.
    fn workspace(tmp: &Path) -> Workspace {
        use std::os::unix::fs::PermissionsExt;
        let root = tmp.join("root");
        let state = tmp.join("state");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&state).unwrap();
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
        let mut ws = Workspace::new(&[root], false).unwrap();
        ws.set_history(Arc::new(History::new(&state.join("history.db"), 1 << 30)));
        ws.set_state(StateDir::at(&state));
        ws
    }

    /// A dead request's record: its lock (not held) and its log, `lines` after the header.
    fn plant(ws: &Workspace, tx: &str, lines: &[serde_json::Value]) {
        let dir = ws.state().unwrap().journal_dir().join(tx);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lock"), "").unwrap();
        let mut log = json!({"format": 1, "tool": "filekit replace", "roots": ws.roots(),
            "staging": format!(".filekit/journal/{tx}"), "record": true})
        .to_string();
        for l in lines {
            log.push('\n');
            log.push_str(&l.to_string());
        }
        std::fs::write(dir.join(super::LOG), log).unwrap();
    }

    #[test]
    fn a_killed_requests_writes_are_recorded_and_its_temporary_files_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = workspace(tmp.path());
        let root = ws.roots()[0].clone();
        let tx = "1-999999-0";
        // a.txt was written (its old bytes kept), b.txt was not (its temporary file is
        // there), c.txt was created, d.txt was changed since by someone else.
        std::fs::create_dir_all(root.join(".filekit/journal").join(tx)).unwrap();
        std::fs::write(root.join(".filekit/journal").join(tx).join("b1"), "old a\n").unwrap();
        std::fs::write(root.join("a.txt"), "new a\n").unwrap();
        std::fs::write(root.join("b.txt"), "old b\n").unwrap();
        std::fs::write(root.join(".filekit.t.1.tmp"), "new b\n").unwrap();
        std::fs::write(root.join("c.txt"), "new c\n").unwrap();
        std::fs::write(root.join("d.txt"), "someone else's\n").unwrap();
        let hash = |t: &str| crate::hash::content_hash(t.as_bytes());
        plant(
            &ws,
            tx,
            &[
                json!({"root": 0, "path": "a.txt", "temp": ".filekit.t.0.tmp", "existed": true,
                       "backup": format!(".filekit/journal/{tx}/b1"), "hash": hash("new a\n")}),
                json!({"root": 0, "path": "b.txt", "temp": ".filekit.t.1.tmp", "existed": true,
                       "backup": format!(".filekit/journal/{tx}/b2"), "hash": hash("new b\n")}),
                json!({"root": 0, "path": "c.txt", "temp": ".filekit.t.2.tmp", "existed": false,
                       "backup": null, "hash": hash("new c\n")}),
                json!({"root": 0, "path": "d.txt", "temp": ".filekit.t.3.tmp", "existed": true,
                       "backup": format!(".filekit/journal/{tx}/b3"), "hash": hash("new d\n")}),
            ],
        );
        let done = recover(&ws).unwrap();
        assert_eq!(done.finished.len(), 1, "{done:?}");
        assert_eq!(done.finished[0].files, 2, "{done:?}");
        assert!(!root.join(".filekit.t.1.tmp").exists());
        assert!(!root.join(".filekit/journal").join(tx).exists());
        assert!(!ws.state().unwrap().journal_dir().join(tx).exists());
        let entry = done.finished[0].entry.expect("an entry");
        crate::undo::undo(&ws, Some(entry), false, false).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "old a\n"
        );
        assert!(!root.join("c.txt").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("b.txt")).unwrap(),
            "old b\n"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("d.txt")).unwrap(),
            "someone else's\n"
        );
    }

    #[test]
    fn a_log_naming_what_no_write_may_reach_is_cleared_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = workspace(tmp.path());
        let root = ws.roots()[0].clone();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join("keep.txt"), "the project's file\n").unwrap();
        std::fs::write(root.join(".filekit.x.0.tmp"), "a file named like ours\n").unwrap();
        let forged = [
            // A temporary file that is not named as filekit names them.
            json!({"root": 0, "path": "a.txt", "temp": "keep.txt", "existed": false,
                   "backup": null, "hash": ""}),
            // A path inside .git/.
            json!({"root": 0, "path": ".git/config", "temp": ".git/.filekit.x.0.tmp",
                   "existed": false, "backup": null, "hash": ""}),
            // A temporary file away from its target.
            json!({"root": 0, "path": "sub/a.txt", "temp": ".filekit.x.0.tmp",
                   "existed": false, "backup": null, "hash": ""}),
            // A path that climbs out.
            json!({"root": 0, "path": "../a.txt", "temp": "../.filekit.x.0.tmp",
                   "existed": false, "backup": null, "hash": ""}),
        ];
        for (i, line) in forged.iter().enumerate() {
            let tx = format!("{i}-999999-0");
            plant(&ws, &tx, std::slice::from_ref(line));
            let done = recover(&ws).unwrap();
            assert_eq!(done.refused, std::slice::from_ref(&tx), "{line}: {done:?}");
            assert!(!ws.state().unwrap().journal_dir().join(&tx).exists());
        }
        assert!(root.join("keep.txt").exists());
        assert!(root.join(".git/config").exists());
        assert!(
            root.join(".filekit.x.0.tmp").exists(),
            "a sane log's file only"
        );
    }
}
