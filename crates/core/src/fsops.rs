//! File operations: delete, move (rename) and copy of files and directories.
//!
//! Each request is planned against the tree as it is (every path checked: inside the roots,
//! not in `.filekit/`, sources there, destinations free unless overwriting), then carried out
//! by the commit step ([`crate::transaction`]) like any write: a move is one rename, a delete
//! a rename into the journal or an unlink, a copy new files staged and renamed into place.
//! What changed is recorded in the history, so every operation can be undone. Creating files
//! is an edit (`Edit::Create`) and goes through the edit pipeline.
//!
//! Operations in one request are planned together against the tree before the request: one
//! may not depend on another's result (copy what an earlier one moved).
//!
//! A request may carry [`Rewrite`]s: byte splices of files' contents computed by a
//! refactoring (the import specifiers a move changes), committed in the same run of the
//! commit step as the operations, recorded as one history entry, previewed as diffs by a dry
//! run. A rewrite names a file as it is before the request; when an operation of the request
//! moves or copies that file, the splices apply to the moved file or to the copy.

use crate::error::{ErrorCode, FkError};
use crate::history::{self, Change, EntryKind, Node};
use crate::transaction::{self, Durability, Op};
use crate::workspace::{FileMeta, RESERVED_DIR, TreeChange, Workspace, WriteMode, WsPath};
use std::io;
use std::path::Path;

/// One operation on the tree.
#[derive(Debug, Clone)]
pub enum FileOp {
    /// Delete a file, a link, or a directory (one with anything in it only when `recursive`).
    Delete { path: String, recursive: bool },
    /// Move or rename a file or directory. A destination ending in `/` that is an existing
    /// directory receives the source under its own name.
    Move {
        from: String,
        to: String,
        overwrite: bool,
    },
    /// Copy a file, or a directory with everything in it.
    Copy {
        from: String,
        to: String,
        overwrite: bool,
    },
    /// Create a file with `content` (missing parent directories are made unless the request
    /// says not to), or replace the file there when `overwrite`: how a request that moves and
    /// deletes files adds new ones in the same all-or-nothing change and history entry.
    Create {
        path: String,
        content: Vec<u8>,
        overwrite: bool,
    },
    /// Make a directory and any missing parents (`mkdir -p`): one that is already there is
    /// not an error; a file (or a link) in its place is.
    MakeDir { path: String },
}

impl FileOp {
    fn name(&self) -> &'static str {
        match self {
            FileOp::Delete { .. } => "delete",
            FileOp::Move { .. } => "move",
            FileOp::Copy { .. } => "copy",
            FileOp::Create { .. } => "create",
            FileOp::MakeDir { .. } => "make_dir",
        }
    }
}

/// A request of file operations.
#[derive(Debug, Clone, Default)]
pub struct FsRequest {
    pub ops: Vec<FileOp>,
    /// Check and describe, change nothing.
    pub dry_run: bool,
    /// All or nothing, across a crash too (see [`crate::transaction`]).
    pub atomic: bool,
    /// Refuse (instead of making) missing parent directories of destinations.
    pub no_create_parents: bool,
    /// The tool or verb, for the history.
    pub tool: Option<String>,
    /// Content changes committed with the operations (see the module documentation).
    pub rewrites: Vec<Rewrite>,
}

/// Byte splices of one file's content, tied to the content they were computed on.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The file, as it is before the request.
    pub path: String,
    /// The `content_hash` of the content the splices were computed on: a file that changed
    /// since is reported `STALE` and the request is not done.
    pub content_hash: String,
    /// In order, not overlapping: a proposal made [`Splices`] of the content when the request
    /// is done, and refused if it does not fit it.
    ///
    /// [`Splices`]: filekit_splices::Splices
    pub splices: Vec<filekit_splices::Splice>,
}

/// What happened to one [`Rewrite`].
#[derive(Debug, Clone)]
pub struct RewriteReport {
    /// The file as given.
    pub path: String,
    /// Where the rewritten content is: the file itself, or where the request moves or
    /// copies it (absolute once resolved).
    pub written_to: String,
    /// A unified diff of the change (for dry runs and reports).
    pub diff: String,
    pub success: bool,
    /// True when written (false for dry runs and failures).
    pub done: bool,
    pub error: Option<FkError>,
}

/// What happened to one operation.
#[derive(Debug, Clone)]
pub struct OpReport {
    pub op: &'static str,
    /// The source (or the deleted path), absolute, once resolved; else as given.
    pub source: String,
    pub destination: Option<String>,
    /// `file`, `directory` or `symlink`.
    pub kind: Option<&'static str>,
    pub success: bool,
    /// True when the change was made (false for dry runs and failures).
    pub done: bool,
    /// Files (not directories) the operation covers.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Destination directories made.
    pub created_dirs: Vec<String>,
    /// An existing destination file was replaced.
    pub overwrote: bool,
    pub error: Option<FkError>,
}

/// What a request did.
#[derive(Debug, Clone)]
pub struct FsReport {
    pub ops: Vec<OpReport>,
    /// One per [`FsRequest::rewrites`], in order.
    pub rewrites: Vec<RewriteReport>,
    pub dry_run: bool,
    pub atomic: bool,
    /// An atomic request that failed and changed nothing.
    pub rolled_back: bool,
    /// The history entry of this request.
    pub history_entry: Option<i64>,
}

impl FsReport {
    pub fn success(&self) -> bool {
        !self.rolled_back
            && self.ops.iter().all(|o| o.success)
            && self.rewrites.iter().all(|r| r.success)
    }
}

/// One operation, checked and turned into commit ops.
struct Planned {
    report: OpReport,
    /// The rewrites this operation took over (indices into the request's).
    rewrites: Vec<usize>,
    dirs: Vec<WsPath>,
    ops: Vec<PlannedOp>,
    /// What the history records, when it is on.
    changes: Vec<Change>,
}

enum PlannedOp {
    Write {
        path: WsPath,
        bytes: Vec<u8>,
        mode: WriteMode,
        perm: u32,
        read_as: Option<FileMeta>,
    },
    Remove {
        path: WsPath,
        recursive: bool,
    },
    Rename {
        from: WsPath,
        to: WsPath,
        replace: bool,
    },
    MakeDir {
        path: WsPath,
        perm: u32,
    },
    Symlink {
        path: WsPath,
        target: std::path::PathBuf,
    },
}

/// A [`Rewrite`] read, checked and applied to the content it was computed on.
struct Prepared {
    at: WsPath,
    meta: FileMeta,
    old: Vec<u8>,
    new: Vec<u8>,
    report: RewriteReport,
    /// Taken over by a move or copy of the request (written there).
    taken: bool,
}

fn prepare(ws: &Workspace, rw: &Rewrite) -> Result<Prepared, FkError> {
    let at = ws.resolve(&rw.path)?;
    // A rewritten importer is written like any edit: another holder's lease refuses it.
    crate::leases::check_write(ws, &at, ws.holder())?;
    let file = ws.read(&at)?;
    let actual = crate::hash::content_hash(&file.bytes);
    if !crate::hash::matches(&rw.content_hash, &actual) {
        return Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "{} changed since it was read (content_hash {actual}, expected {})",
                ws.display(&at),
                rw.content_hash
            ),
        )
        .with_hint("send the request again: it is computed on the file as it is now"));
    }
    let name = ws.display(&at);
    // A file in another encoding is decoded, and each splice's text encoded into its bytes:
    // every byte outside the rewrites stays the file's. A UTF-8 file's text is its bytes as
    // they are (a BOM included), as the callers' offsets count them.
    let decoded;
    let (text, encoded) = match std::str::from_utf8(&file.bytes) {
        Ok(text) => (text, None),
        Err(_) => {
            decoded = crate::text::TextDoc::decode(&file.bytes, &name)
                .map_err(|e| e.with_hint("only text files are rewritten"))?;
            (decoded.text.as_str(), decoded.encoded.as_ref())
        }
    };
    // The same checks and splicing as the pipeline's byte-range edits.
    let splices = filekit_splices::Splices::new(text, rw.splices.clone()).map_err(|e| {
        let e = FkError::caller_splices(&e, &rw.splices, text.len());
        FkError::invalid(format!("a rewrite of {name}: {}", e.message))
            .with_hint("ranges must be in order, not overlapping, inside the text")
    })?;
    let new = match encoded {
        Some(encoded) => encoded.splice(text, &splices, &name)?,
        None => splices.apply(text)?.into_bytes(),
    };
    let (diff, _) = crate::diff::unified(text, &splices, &name, &name);
    Ok(Prepared {
        report: RewriteReport {
            path: rw.path.clone(),
            written_to: name,
            diff,
            success: true,
            done: false,
            error: None,
        },
        at,
        meta: file.meta,
        old: file.bytes,
        new,
        taken: false,
    })
}

fn failed_rewrite(rw: &Rewrite, err: FkError) -> RewriteReport {
    RewriteReport {
        path: rw.path.clone(),
        written_to: rw.path.clone(),
        diff: String::new(),
        success: false,
        done: false,
        error: Some(err),
    }
}

/// Carries out a request of file operations.
pub fn apply(ws: &Workspace, req: &FsRequest) -> FsReport {
    let record = ws.history().is_some() && !req.dry_run;
    let mut prepared: Vec<Result<Prepared, Box<RewriteReport>>> = req
        .rewrites
        .iter()
        .map(|rw| prepare(ws, rw).map_err(|e| Box::new(failed_rewrite(rw, e))))
        .collect();
    let mut planned: Vec<Result<Planned, Box<OpReport>>> = req
        .ops
        .iter()
        .map(|op| plan(ws, op, req, record, &mut prepared))
        .collect();
    let any_failed = planned.iter().any(Result::is_err) || prepared.iter().any(Result::is_err);
    let mut rolled_back = req.atomic && any_failed;
    let mut history_entry = None;
    if !req.dry_run && !rolled_back {
        (rolled_back, history_entry) = carry_out(ws, req, record, &mut prepared, &mut planned);
    }
    let ops = planned
        .into_iter()
        .map(|p| match p {
            Ok(p) => {
                let mut r = p.report;
                if rolled_back && r.error.is_none() {
                    r.success = false;
                    r.done = false;
                    r.error = Some(rolled_back_error());
                }
                r
            }
            Err(r) => *r,
        })
        .collect();
    let rewrites = prepared
        .into_iter()
        .map(|p| match p {
            Ok(p) => {
                let mut r = p.report;
                if rolled_back && r.error.is_none() {
                    r.success = false;
                    r.done = false;
                    r.error = Some(rolled_back_error());
                }
                r
            }
            Err(r) => *r,
        })
        .collect();
    FsReport {
        ops,
        rewrites,
        dry_run: req.dry_run,
        atomic: req.atomic,
        rolled_back,
        history_entry,
    }
}

/// Runs the planned operations and rewrites as one transaction, fills in their reports and
/// records what changed in the history. Returns whether the transaction was rolled back, and
/// the history entry.
fn carry_out(
    ws: &Workspace,
    req: &FsRequest,
    record: bool,
    prepared: &mut [Result<Prepared, Box<RewriteReport>>],
    planned: &mut [Result<Planned, Box<OpReport>>],
) -> (bool, Option<i64>) {
    let dirs = directories_to_make(planned);
    let Batch {
        ops,
        in_place,
        rewrites_start,
        spans,
    } = Batch::new(&dirs, prepared, planned);
    let durability = Durability::flushed_for(&ops);
    // Until the history has the changes: a front end that stops waits for it.
    let _writing = crate::interrupt::Writing::begin();
    let outcome = transaction::run(ws, &ops, req.atomic, durability);
    drop(ops);
    let rolled_back = outcome.rolled_back;
    let dir_ok: Vec<bool> = outcome.results[..dirs.len()]
        .iter()
        .map(|r| r.is_ok())
        .collect();
    let mut changes: Vec<Change> = Vec::new();
    for (k, &i) in in_place.iter().enumerate() {
        let Ok(p) = &mut prepared[i] else { continue };
        settle_rewrite(
            p,
            &outcome.results[rewrites_start + k],
            rolled_back,
            record,
            &mut changes,
        );
    }
    if record && !rolled_back {
        for (d, ok) in dirs.iter().zip(&dir_ok) {
            if *ok {
                changes.push(Change {
                    path: d.absolute().to_path_buf(),
                    before: Node::Absent,
                    after: Node::Dir {
                        mode: ws.metadata(d).ok().flatten().map_or(0o755, |m| m.mode),
                    },
                });
            }
        }
    }
    for (i, start, end) in spans {
        let Ok(p) = &mut planned[i] else { continue };
        let error = outcome.results[start..end]
            .iter()
            .find_map(|r| r.as_ref().err().cloned());
        p.report.created_dirs = dirs
            .iter()
            .zip(&dir_ok)
            .filter(|(d, ok)| **ok && p.dirs.contains(d))
            .map(|(d, _)| ws.display(d))
            .collect();
        settle_op(ws, p, error, rolled_back, record, &mut changes);
        for &k in &p.rewrites {
            if let Ok(r) = &mut prepared[k] {
                r.report.done = p.report.done;
                if let Some(e) = &p.report.error {
                    r.report.success = false;
                    r.report.error = Some(e.clone());
                }
            }
        }
    }
    let history_entry = if record && !changes.is_empty() {
        record_history(ws, req, planned, prepared, &changes)
    } else {
        None
    };
    (rolled_back, history_entry)
}

/// The directories the planned operations need made: shared ones once, outermost first.
fn directories_to_make(planned: &[Result<Planned, Box<OpReport>>]) -> Vec<WsPath> {
    let mut dirs: Vec<WsPath> = Vec::new();
    for p in planned.iter().flatten() {
        for d in &p.dirs {
            if !dirs.contains(d) {
                dirs.push(d.clone());
            }
        }
    }
    dirs.sort_by_key(|d| d.relative().components().count());
    dirs
}

/// A request's transaction: its directories, then the rewrites of files that stay where they
/// are, then each operation's steps; with where each part's results are.
struct Batch<'a> {
    ops: Vec<Op<'a>>,
    /// The rewrites written in place (indices into the prepared rewrites), in order from
    /// `rewrites_start` in `ops`.
    in_place: Vec<usize>,
    rewrites_start: usize,
    /// Per planned operation that did plan: its index and the range of its steps in `ops`.
    spans: Vec<(usize, usize, usize)>,
}

impl<'a> Batch<'a> {
    fn new(
        dirs: &[WsPath],
        prepared: &'a [Result<Prepared, Box<RewriteReport>>],
        planned: &'a [Result<Planned, Box<OpReport>>],
    ) -> Batch<'a> {
        let mut ops: Vec<Op<'a>> = Vec::new();
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for d in dirs {
            ops.push(Op::MakeDir {
                path: d.clone(),
                perm: None,
            });
        }
        let in_place: Vec<usize> = prepared
            .iter()
            .enumerate()
            .filter(|(_, p)| p.as_ref().is_ok_and(|p| !p.taken))
            .map(|(i, _)| i)
            .collect();
        let rewrites_start = ops.len();
        for &i in &in_place {
            let Ok(p) = &prepared[i] else { continue };
            ops.push(Op::Write {
                path: p.at.clone(),
                bytes: (&p.new).into(),
                mode: WriteMode::Replace,
                perm: None,
                read_as: Some(p.meta.clone()),
            });
        }
        for (i, p) in planned.iter().enumerate() {
            let Ok(p) = p else { continue };
            let start = ops.len();
            ops.extend(p.ops.iter().map(transaction_op));
            spans.push((i, start, ops.len()));
        }
        Batch {
            ops,
            in_place,
            rewrites_start,
            spans,
        }
    }
}

/// The transaction's step for a planned one.
fn transaction_op(op: &PlannedOp) -> Op<'_> {
    match op {
        PlannedOp::Write {
            path,
            bytes,
            mode,
            perm,
            read_as,
        } => Op::Write {
            path: path.clone(),
            bytes: bytes.into(),
            mode: *mode,
            perm: Some(*perm),
            read_as: read_as.clone(),
        },
        PlannedOp::Remove { path, recursive } => Op::Remove {
            path: path.clone(),
            recursive: *recursive,
        },
        PlannedOp::Rename { from, to, replace } => Op::Rename {
            from: from.clone(),
            to: to.clone(),
            replace: *replace,
        },
        PlannedOp::MakeDir { path, perm } => Op::MakeDir {
            path: path.clone(),
            perm: Some(*perm),
        },
        PlannedOp::Symlink { path, target } => Op::Symlink {
            path: path.clone(),
            target: target.clone(),
        },
    }
}

/// Reports an in-place rewrite's result, and records its change when it was written.
fn settle_rewrite(
    p: &mut Prepared,
    result: &Result<Option<FileMeta>, FkError>,
    rolled_back: bool,
    record: bool,
    changes: &mut Vec<Change>,
) {
    match result {
        Err(e) => {
            p.report.success = false;
            p.report.error = Some(e.clone());
        }
        Ok(_) if rolled_back => {
            p.report.success = false;
            p.report.error = Some(rolled_back_error());
        }
        Ok(_) => {
            p.report.done = true;
            if record {
                let mode = p.meta.mode;
                changes.push(Change {
                    path: p.at.absolute().to_path_buf(),
                    before: Node::File {
                        bytes: p.old.clone(),
                        mode,
                    },
                    after: Node::File {
                        bytes: p.new.clone(),
                        mode,
                    },
                });
            }
        }
    }
}

/// Reports a planned operation's result (`error`, its first failed step's), and records its
/// changes: all of them when it was done, what a failed one did remove otherwise.
fn settle_op(
    ws: &Workspace,
    p: &mut Planned,
    error: Option<FkError>,
    rolled_back: bool,
    record: bool,
    changes: &mut Vec<Change>,
) {
    match error {
        Some(e) => {
            if record && !rolled_back {
                // A delete that stopped part way: what it did remove is recorded, so
                // that undo brings it back.
                changes.extend(p.changes.drain(..).filter(|c| {
                    matches!(c.after, Node::Absent)
                        && match ws.resolve_entry(&c.path.to_string_lossy()) {
                            Ok(q) => matches!(node_at(ws, &q), Ok(Node::Absent)),
                            Err(e) => e.code == ErrorCode::NotFound,
                        }
                }));
            }
            p.report.success = false;
            p.report.error = Some(e);
        }
        None if rolled_back => {
            p.report.success = false;
            p.report.error = Some(rolled_back_error());
        }
        None => {
            p.report.done = true;
            if record {
                changes.append(&mut p.changes);
            }
        }
    }
}

/// The history entry of what the request changed, summarized by the operations done (or by
/// the changes when only rewrites were).
fn record_history(
    ws: &Workspace,
    req: &FsRequest,
    planned: &[Result<Planned, Box<OpReport>>],
    prepared: &[Result<Prepared, Box<RewriteReport>>],
    changes: &[Change],
) -> Option<i64> {
    let tool = req.tool.as_deref().unwrap_or("file operations");
    let done: Vec<&OpReport> = planned
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|p| &p.report)
        .filter(|r| r.done)
        .collect();
    let rewritten = prepared
        .iter()
        .filter(|r| r.as_ref().is_ok_and(|r| r.report.done))
        .count();
    let summary = if done.is_empty() {
        history::summarize(ws, "changed", changes)
    } else {
        summarize_ops(ws, &done, rewritten)
    };
    history::record_commit(ws, tool, &summary, EntryKind::Change, None, changes)
}

/// A history entry's summary of file operations: each operation as it was asked (up to three,
/// paths relative to their root), so that a move and a copy in one request read as both.
fn summarize_ops(ws: &Workspace, done: &[&OpReport], rewritten: usize) -> String {
    let shown = |p: &str| {
        ws.roots()
            .iter()
            .find_map(|r| std::path::Path::new(p).strip_prefix(r).ok())
            .map_or_else(|| p.to_string(), |q| q.display().to_string())
    };
    let mut parts: Vec<String> = done
        .iter()
        .take(3)
        .map(|r| {
            let verb = match r.op {
                "delete" => "deleted",
                "move" => "moved",
                "create" => "created",
                "make_dir" => "created",
                _ => "copied",
            };
            match &r.destination {
                Some(d) => format!("{verb} {} to {}", shown(&r.source), shown(d)),
                None => format!("{verb} {}", shown(&r.source)),
            }
        })
        .collect();
    if done.len() > 3 {
        parts.push(format!("and {} more operations", done.len() - 3));
    }
    let mut out = parts.join(", ");
    if rewritten > 0 {
        out.push_str(&format!("; rewrote {rewritten} file(s)"));
    }
    out
}

fn rolled_back_error() -> FkError {
    FkError::new(
        ErrorCode::Conflict,
        "not done: the request is atomic and another of its operations failed",
    )
    .with_hint("fix the failed operation, then send the whole request again")
}

fn failed_report(op: &FileOp, err: FkError) -> OpReport {
    let (source, destination) = match op {
        FileOp::Delete { path, .. } | FileOp::MakeDir { path } => (path.clone(), None),
        FileOp::Move { from, to, .. } | FileOp::Copy { from, to, .. } => {
            (from.clone(), Some(to.clone()))
        }
        FileOp::Create { path, .. } => (path.clone(), None),
    };
    OpReport {
        op: op.name(),
        source,
        destination,
        kind: None,
        success: false,
        done: false,
        files: 0,
        bytes: 0,
        created_dirs: Vec::new(),
        overwrote: false,
        error: Some(err),
    }
}

fn plan(
    ws: &Workspace,
    op: &FileOp,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, Box<OpReport>> {
    plan_inner(ws, op, req, record, rewrites).map_err(|e| Box::new(failed_report(op, e)))
}

/// The prepared rewrite of the file `q`, if the request has one not taken yet.
fn take_rewrite<'a>(
    rewrites: &'a mut [Result<Prepared, Box<RewriteReport>>],
    q: &WsPath,
) -> Option<(usize, &'a mut Prepared)> {
    rewrites.iter_mut().enumerate().find_map(|(i, r)| match r {
        Ok(p) if !p.taken && p.at == *q => Some((i, p)),
        _ => None,
    })
}

fn plan_inner(
    ws: &Workspace,
    op: &FileOp,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, FkError> {
    if ws.read_only() && !req.dry_run {
        return Err(FkError::new(
            ErrorCode::ReadOnly,
            format!("cannot {} files: the workspace is read-only", op.name()),
        )
        .with_hint(
            "run filekit without --read-only to allow changes, or use a dry run to preview",
        ));
    }
    match op {
        FileOp::Delete { path, recursive } => {
            plan_delete(ws, path, *recursive, req, record, rewrites)
        }
        FileOp::Move {
            from,
            to,
            overwrite,
        } => plan_move(ws, from, to, *overwrite, req, record, rewrites),
        FileOp::MakeDir { path } => plan_make_dir(ws, path, req, record),
        FileOp::Copy {
            from,
            to,
            overwrite,
        } => plan_copy(ws, from, to, *overwrite, req, record, rewrites),
        FileOp::Create {
            path,
            content,
            overwrite,
        } => plan_create(ws, path, content, *overwrite, req, record, rewrites),
    }
}

/// A delete: the tree under the path, refused for a non-empty directory without `recursive` or a
/// file the request also rewrites.
fn plan_delete(
    ws: &Workspace,
    path: &str,
    recursive: bool,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, FkError> {
    let p = source(ws, path, "delete")?;
    writable(ws, &p, req)?;
    tree_writable(ws, &p, TreeChange::Remove)?;
    let tree = capture(ws, &p)?;
    let kind = tree[0].1.kind_name();
    if matches!(tree[0].1, Node::Dir { .. }) && tree.len() > 1 && !recursive {
        let shown = ws.display(&p);
        return Err(FkError::new(
            ErrorCode::IsDirectory,
            format!(
                "{shown} is a directory with {} {} in it",
                tree.len() - 1,
                if tree.len() == 2 { "entry" } else { "entries" }
            ),
        )
        .with_hint("delete what is in it first")
        .with_details(serde_json::json!({
            "fact": crate::Fact::DirectoryNotEmpty,
            "path": shown,
            "entries": tree.len() - 1,
        })));
    }
    if let Some(q) = tree.iter().find_map(|(q, _)| {
        rewrites
            .iter()
            .any(|r| r.as_ref().is_ok_and(|r| r.at == *q))
            .then_some(q)
    }) {
        return Err(FkError::invalid(format!(
            "{} is deleted by this request and rewritten by it too",
            ws.display(q)
        ))
        .with_hint("do not rewrite a file that the same request deletes"));
    }
    let (files, bytes) = count(&tree);
    let changes = if record {
        tree.into_iter()
            .map(|(q, node)| Change {
                path: q.absolute().to_path_buf(),
                before: node,
                after: Node::Absent,
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Planned {
        report: report("delete", ws.display(&p), None, kind, files, bytes, false),
        rewrites: Vec::new(),
        dirs: Vec::new(),
        ops: vec![PlannedOp::Remove { path: p, recursive }],
        changes,
    })
}

/// A move: one rename of the tree, preceded by the in-place writes of the request's rewrites of
/// files in it.
fn plan_move(
    ws: &Workspace,
    from: &str,
    to: &str,
    overwrite: bool,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, FkError> {
    let src = source(ws, from, "move")?;
    let dst = destination(ws, &src, to, "move")?;
    writable(ws, &src, req)?;
    writable(ws, &dst, req)?;
    tree_writable(ws, &src, TreeChange::Move(&dst))?;
    // The source as a rename sees it: a link to a directory is a link.
    let moved_dir = ws
        .root_dir(src.root_index())
        .symlink_metadata(src.rel_or_dot())
        .is_ok_and(|m| m.is_dir());
    let overwrote = check_destination(ws, &dst, overwrite, moved_dir)?;
    let dirs = parents_to_make(ws, &dst, req)?;
    let tree = capture(ws, &src)?;
    let kind = tree[0].1.kind_name();
    let (files, bytes) = count(&tree);
    let moved_to = |q: &WsPath| {
        if *q == src {
            dst.absolute().to_path_buf()
        } else {
            dst.absolute().join(
                q.relative()
                    .strip_prefix(src.relative())
                    .unwrap_or(Path::new("")),
            )
        }
    };
    // Rewrites of moved files are written in place just before the move.
    let mut ops = Vec::new();
    let mut taken = Vec::new();
    let mut after: Vec<Node> = Vec::with_capacity(tree.len());
    for (q, node) in &tree {
        match (node, take_rewrite(rewrites, q)) {
            (Node::File { mode, .. }, Some((i, p))) => {
                p.taken = true;
                p.report.written_to = moved_to(q).display().to_string();
                taken.push(i);
                ops.push(PlannedOp::Write {
                    path: q.clone(),
                    bytes: p.new.clone(),
                    mode: WriteMode::Replace,
                    perm: *mode,
                    read_as: Some(p.meta.clone()),
                });
                after.push(Node::File {
                    bytes: p.new.clone(),
                    mode: *mode,
                });
            }
            _ => after.push(node.clone()),
        }
    }
    ops.push(PlannedOp::Rename {
        from: src.clone(),
        to: dst.clone(),
        replace: overwrite,
    });
    let mut changes = Vec::new();
    if record {
        if overwrote {
            changes.push(Change {
                path: dst.absolute().to_path_buf(),
                before: node_at(ws, &dst)?,
                after: Node::Absent,
            });
        }
        for (q, node) in &tree {
            changes.push(Change {
                path: q.absolute().to_path_buf(),
                before: node.clone(),
                after: Node::Absent,
            });
        }
        for ((q, _), node) in tree.iter().zip(after) {
            let moved = moved_to(q);
            match changes.iter_mut().find(|c| c.path == moved) {
                Some(c) => c.after = node,
                None => changes.push(Change {
                    path: moved,
                    before: Node::Absent,
                    after: node,
                }),
            }
        }
    }
    Ok(Planned {
        report: report(
            "move",
            ws.display(&src),
            Some(ws.display(&dst)),
            kind,
            files,
            bytes,
            overwrote,
        ),
        rewrites: taken,
        dirs,
        ops,
        changes,
    })
}

/// A new directory (nothing to do if one is there), with the parents it needs.
fn plan_make_dir(
    ws: &Workspace,
    path: &str,
    req: &FsRequest,
    record: bool,
) -> Result<Planned, FkError> {
    let p = ws.resolve_entry(path)?;
    if p.is_reserved() {
        return Err(reserved_error(ws, &p, "create"));
    }
    let mut dirs = Vec::new();
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    match node_at(ws, &p)? {
        Node::Dir { .. } => {}
        Node::Absent => {
            writable(ws, &p, req)?;
            dirs = parents_to_make(ws, &p, req)?;
            // What the new directories go into must be one (a file there would fail
            // the first of them, after the plan said yes).
            let base = dirs.first().unwrap_or(&p).parent();
            if let Some(base) = base
                && !matches!(node_at(ws, &base)?, Node::Dir { .. })
            {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "cannot create the directory {}: {} is not a directory",
                        ws.display(&p),
                        ws.display(&base)
                    ),
                )
                .with_hint("choose a path whose existing part is made of directories")
                .with_details(serde_json::json!({
                    "fact": crate::Fact::AlreadyExists,
                    "path": ws.display(&base),
                })));
            }
            // The directory itself is the operation's own step, so that its failure
            // is the operation's; its missing parents are made with the request's.
            ops.push(PlannedOp::MakeDir {
                path: p.clone(),
                perm: 0o755,
            });
            if record {
                changes.push(Change {
                    path: p.absolute().to_path_buf(),
                    before: Node::Absent,
                    after: Node::Dir { mode: 0o755 },
                });
            }
        }
        other => {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "cannot create the directory {}: a {} is there",
                    ws.display(&p),
                    other.kind_name()
                ),
            )
            .with_hint("choose another path, or move that entry away first")
            .with_details(serde_json::json!({
                "fact": crate::Fact::AlreadyExists,
                "path": ws.display(&p),
            })));
        }
    }
    Ok(Planned {
        report: report("make_dir", ws.display(&p), None, "directory", 0, 0, false),
        rewrites: Vec::new(),
        dirs,
        ops,
        changes,
    })
}

/// A copy: each entry of the tree written at the destination, rewritten files with their new bytes.
fn plan_copy(
    ws: &Workspace,
    from: &str,
    to: &str,
    overwrite: bool,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, FkError> {
    let src = source(ws, from, "copy")?;
    let dst = destination(ws, &src, to, "copy")?;
    writable(ws, &dst, req)?;
    ws.check_subtree(&src, TreeChange::Copy(&dst))?;
    let overwrote = check_destination(ws, &dst, overwrite, false)?;
    let dirs = parents_to_make(ws, &dst, req)?;
    let tree = capture(ws, &src)?;
    // A copy is a read that leaves the bytes elsewhere: a credential is not copied.
    for (q, node) in &tree {
        if matches!(node, Node::File { .. }) {
            ws.check_readable(q)?;
        }
    }
    let kind = tree[0].1.kind_name();
    let (files, bytes) = count(&tree);
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    let mut taken = Vec::new();
    for (q, mut node) in tree {
        let rel = q
            .relative()
            .strip_prefix(src.relative())
            .unwrap_or(Path::new(""));
        let target = if rel.as_os_str().is_empty() {
            dst.clone()
        } else {
            ws.resolve_entry(&dst.absolute().join(rel).to_string_lossy())?
        };
        if let (Node::File { mode, .. }, Some((i, p))) = (&node, take_rewrite(rewrites, &q)) {
            p.taken = true;
            p.report.written_to = target.absolute().display().to_string();
            taken.push(i);
            node = Node::File {
                bytes: p.new.clone(),
                mode: *mode,
            };
        }
        let before = if overwrote && target == dst {
            node_at(ws, &dst)?
        } else {
            Node::Absent
        };
        match &node {
            Node::File { bytes, mode } => ops.push(PlannedOp::Write {
                path: target.clone(),
                bytes: bytes.clone(),
                mode: if overwrite {
                    WriteMode::CreateOrReplace
                } else {
                    WriteMode::CreateNew
                },
                perm: *mode,
                read_as: None,
            }),
            Node::Dir { mode } => ops.push(PlannedOp::MakeDir {
                path: target.clone(),
                perm: *mode,
            }),
            Node::Symlink { target: t } => ops.push(PlannedOp::Symlink {
                path: target.clone(),
                target: t.clone(),
            }),
            Node::Absent => {}
            Node::Ranges { .. } => {
                unreachable!("a walk finds files whole; only the history keeps ranges")
            }
        }
        if record {
            changes.push(Change {
                path: target.absolute().to_path_buf(),
                before,
                after: node,
            });
        }
    }
    Ok(Planned {
        report: report(
            "copy",
            ws.display(&src),
            Some(ws.display(&dst)),
            kind,
            files,
            bytes,
            overwrote,
        ),
        rewrites: taken,
        dirs,
        ops,
        changes,
    })
}

/// A new file with the given content, or a replaced one with `overwrite`.
fn plan_create(
    ws: &Workspace,
    path: &str,
    content: &[u8],
    overwrite: bool,
    req: &FsRequest,
    record: bool,
    rewrites: &mut [Result<Prepared, Box<RewriteReport>>],
) -> Result<Planned, FkError> {
    let at = ws.resolve(path)?;
    writable(ws, &at, req)?;
    if content.len() as u64 > ws.max_file_size() {
        return Err(FkError::new(
            ErrorCode::TooLarge,
            format!(
                "{} would be {} bytes, more than filekit writes ({} bytes)",
                ws.display(&at),
                content.len(),
                ws.max_file_size()
            ),
        )
        .with_hint("write a smaller file"));
    }
    if rewrites
        .iter()
        .any(|r| r.as_ref().is_ok_and(|r| r.at == at))
    {
        return Err(FkError::invalid(format!(
            "{} is created by this request and rewritten by it too",
            ws.display(&at)
        ))
        .with_hint("create the file with its final content"));
    }
    let before = node_at(ws, &at)?;
    let overwrote = check_destination(ws, &at, overwrite, false)?;
    let dirs = parents_to_make(ws, &at, req)?;
    // A replaced file keeps its permissions; a new one gets a regular file's.
    let perm = match before {
        Node::File { mode, .. } => mode,
        _ => 0o644,
    };
    let changes = if record {
        vec![Change {
            path: at.absolute().to_path_buf(),
            before,
            after: Node::File {
                bytes: content.to_vec(),
                mode: perm,
            },
        }]
    } else {
        Vec::new()
    };
    Ok(Planned {
        report: report(
            "create",
            ws.display(&at),
            None,
            "file",
            1,
            content.len() as u64,
            overwrote,
        ),
        rewrites: Vec::new(),
        dirs,
        ops: vec![PlannedOp::Write {
            path: at,
            bytes: content.to_vec(),
            mode: if overwrote {
                WriteMode::Replace
            } else {
                WriteMode::CreateNew
            },
            perm,
            read_as: None,
        }],
        changes,
    })
}

/// The write policy for `p` (`.filekit/`, `.git/`, read-only, leases), checked while planning so
/// that a dry run says what a real run would refuse; a dry run in a read-only session is
/// still a dry run.
fn writable(ws: &Workspace, p: &WsPath, req: &FsRequest) -> Result<(), FkError> {
    if req.dry_run && ws.read_only() {
        return Ok(());
    }
    ws.check_writable(p)?;
    // A path another holder leased (a file; the contents of a directory are not checked).
    crate::leases::check_write(ws, p, ws.holder())
}

/// What a folder moved or removed whole reaches beyond its own path: the protected places
/// and names inside it (see [`crate::protect`]), and the leases other holders have on what it
/// holds.
fn tree_writable(ws: &Workspace, p: &WsPath, change: TreeChange<'_>) -> Result<(), FkError> {
    ws.check_subtree(p, change)?;
    crate::leases::check_tree(ws, p, ws.holder())
}

fn report(
    op: &'static str,
    source: String,
    destination: Option<String>,
    kind: &'static str,
    files: usize,
    bytes: u64,
    overwrote: bool,
) -> OpReport {
    OpReport {
        op,
        source,
        destination,
        kind: Some(kind),
        success: true,
        done: false,
        files,
        bytes,
        created_dirs: Vec::new(),
        overwrote,
        error: None,
    }
}

/// The sizes of the regular files at and under `p` (links not followed), from their metadata.
fn tree_bytes(ws: &Workspace, p: &WsPath) -> Result<u64, FkError> {
    let dir = ws.root_dir(p.root_index());
    let mut total = 0u64;
    let mut to_visit = vec![p.rel_or_dot().to_path_buf()];
    while let Some(rel) = to_visit.pop() {
        let meta = match dir.symlink_metadata(&rel) {
            Ok(m) => m,
            Err(_) => continue,
        };
        if meta.is_file() {
            total += meta.len();
        } else if meta.is_dir() {
            let entries = dir
                .read_dir(&rel)
                .map_err(|e| FkError::from_io(&e, &ws.display(p)))?;
            for e in entries.flatten() {
                to_visit.push(rel.join(e.file_name()));
            }
        }
        if total > MAX_TREE_BYTES {
            break;
        }
    }
    Ok(total)
}

fn count(tree: &[(WsPath, Node)]) -> (usize, u64) {
    tree.iter().fold((0, 0), |(n, b), (_, node)| match node {
        Node::File { bytes, .. } => (n + 1, b + bytes.len() as u64),
        _ => (n, b),
    })
}

impl Node {
    fn kind_name(&self) -> &'static str {
        match self {
            Node::Dir { .. } => "directory",
            Node::Symlink { .. } => "symlink",
            _ => "file",
        }
    }
}

fn reserved_error(ws: &Workspace, p: &WsPath, verb: &str) -> FkError {
    FkError::new(
        ErrorCode::OutOfRoot,
        format!(
            "cannot {verb} {}: {RESERVED_DIR}/ holds filekit's own data (edit history, journal)",
            ws.display(p)
        ),
    )
    .with_hint(format!(
        "use paths outside {RESERVED_DIR}/; see the history with `filekit history`"
    ))
}

/// The source of an operation: an existing entry, not a root, not in `.filekit/`.
fn source(ws: &Workspace, given: &str, verb: &str) -> Result<WsPath, FkError> {
    let p = ws.resolve_entry(given)?;
    if p.is_root() {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!(
                "cannot {verb} {}: it is a root of the workspace",
                ws.display(&p)
            ),
        )
        .with_hint(format!("{verb} the files inside it instead")));
    }
    if p.is_reserved() {
        return Err(reserved_error(ws, &p, verb));
    }
    if node_at(ws, &p)? == Node::Absent {
        return Err(ws.missing(&p));
    }
    Ok(p)
}

/// The destination of a move or copy: in the same root as the source, not inside it, not in
/// `.filekit/`. A destination written with a final `/` names a directory, which must exist
/// (as `mv` and `cp` have it): it receives the source under its own name.
fn destination(ws: &Workspace, src: &WsPath, given: &str, verb: &str) -> Result<WsPath, FkError> {
    let mut dst = ws.resolve_entry(given)?;
    if given.ends_with('/') || given.ends_with(std::path::MAIN_SEPARATOR) {
        if !matches!(node_at(ws, &dst)?, Node::Dir { .. }) {
            return Err(FkError::new(
                ErrorCode::NotFound,
                format!(
                    "cannot {verb} {} to {given}: there is no directory {} (a destination ending with `/` names a directory to {verb} into)",
                    ws.display(src),
                    ws.display(&dst)
                ),
            )
            .with_hint("create the directory first, or leave out the final `/` to give the new name"));
        }
        if let Some(name) = src.relative().file_name() {
            dst = ws.resolve_entry(&dst.absolute().join(name).to_string_lossy())?;
        }
    }
    if dst.is_root() {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "cannot {verb} onto {}: it is a root of the workspace",
                ws.display(&dst)
            ),
        )
        .with_hint("give a path inside the root, ending with `/` to keep the source's name"));
    }
    if dst.is_reserved() {
        return Err(reserved_error(ws, &dst, verb));
    }
    if dst.root_index() != src.root_index() {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!(
                "cannot {verb} {} to {}: they are in different roots of the workspace",
                ws.display(src),
                ws.display(&dst)
            ),
        )
        .with_hint("keep the destination in the source's root; to bring a file's content to another root, read it and write it there"));
    }
    if dst == *src {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!(
                "the source and the destination are the same: {}",
                ws.display(src)
            ),
        )
        .with_hint("give a different destination"));
    }
    if dst.is_within(src) {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!(
                "cannot {verb} the directory {} into itself ({})",
                ws.display(src),
                ws.display(&dst)
            ),
        )
        .with_hint("choose a destination outside the directory"));
    }
    Ok(dst)
}

/// The refusal of a destination that exists: a fact ([`crate::Fact::AlreadyExists`]) that
/// each front end words with its own way (if any) to ask for the file to be replaced.
pub(crate) fn already_exists(shown: &str) -> FkError {
    FkError::new(
        ErrorCode::Conflict,
        format!("the destination {shown} already exists"),
    )
    .with_hint("choose another destination")
    .with_details(serde_json::json!({"fact": crate::Fact::AlreadyExists, "path": shown}))
}

/// Whether the destination exists and is to be replaced. As a rename replaces them, and only
/// when the request asks to (`overwrite`): a file or link by a file or link, an empty
/// directory by a directory (`moved_dir`: the source of a move is one). Any other destination
/// that exists is refused, saying whether asking would help.
fn check_destination(
    ws: &Workspace,
    dst: &WsPath,
    overwrite: bool,
    moved_dir: bool,
) -> Result<bool, FkError> {
    let shown = ws.display(dst);
    let cannot = |message: String, hint: &str| {
        FkError::new(ErrorCode::Conflict, message)
            .with_hint(hint)
            .with_details(serde_json::json!({"fact": crate::Fact::CannotReplace, "path": shown}))
    };
    match node_at(ws, dst)? {
        Node::Absent => Ok(false),
        Node::Dir { .. } if moved_dir => match entries_in(ws, dst)? {
            0 if overwrite => Ok(true),
            0 => Err(already_exists(&shown)),
            n => Err(destination_not_empty(&shown, Some(n))),
        },
        Node::Dir { .. } => Err(cannot(
            format!("the destination {shown} is an existing directory"),
            "end the destination with `/` to put the source inside it, or give a new path",
        )),
        other if moved_dir => Err(cannot(
            format!(
                "the destination {shown} is a {}: a directory does not replace it",
                other.kind_name()
            ),
            "give a new path, or delete it first",
        )),
        _ if overwrite => Ok(true),
        _ => Err(already_exists(&shown)),
    }
}

/// The refusal of a directory moved onto a directory with entries in it (`entries`, when
/// counted), which a rename does not replace.
pub(crate) fn destination_not_empty(shown: &str, entries: Option<usize>) -> FkError {
    let what = match entries {
        Some(1) => "a directory with 1 entry in it".to_string(),
        Some(n) => format!("a directory with {n} entries in it"),
        None => "a directory with entries in it".to_string(),
    };
    let mut details = serde_json::json!({"fact": crate::Fact::CannotReplace, "path": shown});
    if let Some(n) = entries {
        details["entries"] = n.into();
    }
    FkError::new(
        ErrorCode::Conflict,
        format!("the destination {shown} is {what}: only an empty directory is replaced"),
    )
    .with_hint("end the destination with `/` to put the source inside it, give a new path, or move what is in it away first")
    .with_details(details)
}

/// How many entries the directory at `p` holds.
fn entries_in(ws: &Workspace, p: &WsPath) -> Result<usize, FkError> {
    let dir = ws.root_dir(p.root_index());
    dir.read_dir(p.rel_or_dot())
        .map(Iterator::count)
        .map_err(|e| FkError::from_io(&e, &ws.display(p)))
}

fn parents_to_make(ws: &Workspace, dst: &WsPath, req: &FsRequest) -> Result<Vec<WsPath>, FkError> {
    let dirs = ws.missing_parents(dst);
    if req.no_create_parents && !dirs.is_empty() {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!(
                "the directory {} does not exist",
                ws.display(dst.parent().as_ref().unwrap_or(dst))
            ),
        )
        .with_hint("create it first, or allow parent directories to be created"));
    }
    Ok(dirs)
}

/// What is at `p` (a link is not followed).
pub(crate) fn node_at(ws: &Workspace, p: &WsPath) -> Result<Node, FkError> {
    let dir = ws.root_dir(p.root_index());
    let shown = ws.display(p);
    let meta = match dir.symlink_metadata(p.rel_or_dot()) {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Node::Absent);
        }
        Err(e) => return Err(FkError::from_io(&e, &shown)),
    };
    use cap_std::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    if meta.file_type().is_symlink() {
        let target = dir
            .read_link_contents(p.relative())
            .map_err(|e| FkError::from_io(&e, &shown))?;
        Ok(Node::Symlink { target })
    } else if meta.is_dir() {
        Ok(Node::Dir { mode })
    } else if meta.is_file() {
        Ok(Node::File {
            bytes: read_regular(dir, p.relative()).map_err(|e| FkError::from_io(&e, &shown))?,
            mode,
        })
    } else {
        Err(FkError::invalid(format!(
            "{shown} is not a regular file, directory or link (a device, socket or pipe)"
        ))
        .with_hint("filekit moves, copies and deletes regular files, directories and links only"))
    }
}

/// The bytes of the regular file at `rel`: opened without blocking and without following a
/// link at its name, checked to be a regular file through the descriptor (a FIFO swapped in
/// after the tree was listed must not hang the request).
fn read_regular(dir: &cap_std::fs::Dir, rel: &Path) -> io::Result<Vec<u8>> {
    use cap_std::fs::OpenOptionsExt;
    use std::io::Read;
    let mut opts = cap_std::fs::OpenOptions::new();
    opts.read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32);
    let mut f = dir.open_with(rel, &opts)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(io::Error::other(
            "it is not a regular file (a device, socket or pipe was put in its place)",
        ));
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The most bytes of files a delete, move or copy of a tree holds at once: their contents are
/// kept for the history (so that undo can put them back) and a copy writes them.
pub const MAX_TREE_BYTES: u64 = 128 << 20;

/// `p` and, for a directory, everything beneath it (parents before children; links not
/// followed). Refused, before any file is read, when its files hold more than
/// [`MAX_TREE_BYTES`].
pub(crate) fn capture(ws: &Workspace, p: &WsPath) -> Result<Vec<(WsPath, Node)>, FkError> {
    let total = tree_bytes(ws, p)?;
    if total > MAX_TREE_BYTES {
        return Err(FkError::too_large(
            crate::error::Limit::FileSize,
            total,
            MAX_TREE_BYTES,
            format!(
                "{} holds at least {total} bytes of files; a delete, move or copy keeps what it changes for undo, at most {MAX_TREE_BYTES} bytes in one request",
                ws.display(p)
            ),
        )
        .with_hint("work on smaller parts of the tree, one request each"));
    }
    let mut out = vec![(p.clone(), node_at(ws, p)?)];
    let mut i = 0;
    while i < out.len() {
        if matches!(out[i].1, Node::Dir { .. }) {
            let dir_path = out[i].0.clone();
            let dir = ws.root_dir(dir_path.root_index());
            let mut names: Vec<std::ffi::OsString> = dir
                .read_dir(dir_path.rel_or_dot())
                .map_err(|e| FkError::from_io(&e, &ws.display(&dir_path)))?
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect();
            names.sort();
            for name in names {
                let child = dir_path.child(&name);
                let node = node_at(ws, &child)?;
                out.push((child, node));
            }
        }
        i += 1;
    }
    Ok(out)
}
