//! Undo and redo: a history entry's paths put back as they were before it (or, for a redo,
//! after it), through the commit step, all or nothing, and recorded as a new entry.
//!
//! An undo first checks that every path is still as the entry left it; if any changed since
//! (another edit, a tool outside filekit), it refuses and names them, unless forced. A redo is
//! the undo of an undo.

use crate::content::{Content, SplicedFile};
use crate::error::{ErrorCode, FkError};
use crate::fsops::node_at;
use crate::history::{self, Change, EntryKind, History, Node};
use crate::transaction::{self, Durability, Op};
use crate::workspace::{Workspace, WriteMode, WsPath};
use serde::Serialize;
use serde_json::json;

/// What an undo or redo did.
#[derive(Debug, Clone, Serialize)]
pub struct UndoReport {
    /// The entry that was undone (for a redo: the undo that was undone).
    pub undone: i64,
    /// The entry recorded for this undo or redo.
    pub entry: Option<i64>,
    /// `undo` or `redo`.
    pub kind: EntryKind,
    /// Paths put back, absolute.
    pub paths: Vec<String>,
    /// Paths that had changed since the entry and were overwritten anyway (forced).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forced: Vec<String>,
    pub dry_run: bool,
    /// The undone entry's summary.
    pub summary: String,
}

fn history(ws: &Workspace) -> Result<&History, FkError> {
    ws.history().map(|h| h.as_ref()).ok_or_else(|| {
        FkError::new(
            ErrorCode::InvalidArgument,
            "the edit history is off in this session",
        )
        .with_hint("start filekit without --no-history to record edits so that they can be undone")
    })
}

/// Undoes entry `id`, or the newest entry not yet undone.
pub fn undo(
    ws: &Workspace,
    id: Option<i64>,
    force: bool,
    dry_run: bool,
) -> Result<UndoReport, FkError> {
    let h = history(ws)?;
    let id = match id {
        Some(id) => id,
        None => h.last_undoable(0)?.ok_or_else(|| {
            FkError::new(ErrorCode::NotFound, "there is nothing to undo: every recorded change is undone already, or none was recorded")
                .with_hint("list the history to see its entries")
        })?,
    };
    revert(ws, h, id, force, dry_run)
}

/// Redoes the undo `id` (an entry of kind `undo`), or the newest undo not yet redone.
pub fn redo(
    ws: &Workspace,
    id: Option<i64>,
    force: bool,
    dry_run: bool,
) -> Result<UndoReport, FkError> {
    let h = history(ws)?;
    let id = match id {
        Some(id) => {
            let info = h.entry(id)?;
            match (info.kind, info.target) {
                (EntryKind::Undo, _) => id,
                // Naming the undone entry itself: redo the undo that undid it.
                (_, _) if info.undone_by.is_some() => info.undone_by.unwrap_or(id),
                _ => {
                    return Err(FkError::new(
                        ErrorCode::InvalidArgument,
                        format!("entry {id} has not been undone, so there is nothing to redo"),
                    )
                    .with_hint("redo takes an undo entry (or an undone entry); list the history to find one"));
                }
            }
        }
        None => h.last_redoable()?.ok_or_else(|| {
            FkError::new(
                ErrorCode::NotFound,
                "there is nothing to redo: no undo since the last change",
            )
            .with_hint("undo something first; a new change after an undo ends what can be redone")
        })?,
    };
    revert(ws, h, id, force, dry_run)
}

fn revert(
    ws: &Workspace,
    h: &History,
    id: i64,
    force: bool,
    dry_run: bool,
) -> Result<UndoReport, FkError> {
    let info = h.entry(id)?;
    if let Some(by) = info.undone_by {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "entry {id} ({}) was already undone by entry {by}",
                info.summary
            ),
        )
        .with_hint(format!("to bring it back, redo entry {by}")));
    }
    let kind = if info.kind == EntryKind::Undo {
        EntryKind::Redo
    } else {
        EntryKind::Undo
    };
    let (targets, changed_since) = targets(ws, h, id, kind, force)?;
    let paths: Vec<String> = targets.iter().map(|(p, _, _)| ws.display(p)).collect();
    let mut report = UndoReport {
        undone: id,
        entry: None,
        kind,
        paths,
        forced: if force { changed_since } else { Vec::new() },
        dry_run,
        summary: info.summary.clone(),
    };
    if dry_run {
        return Ok(report);
    }

    let spliced = open_spliced(ws, id, &targets)?;
    let ops = transaction_ops(ws, &targets, &spliced)?;
    let durability = Durability::flushed_for(&ops);
    // Until the history has the undo: a front end that stops waits for it.
    let _writing = crate::interrupt::Writing::begin();
    let outcome = transaction::run(ws, &ops, true, durability);
    drop(ops);
    if let Some(err) = outcome.results.into_iter().find_map(Result::err) {
        return Err(FkError::new(
            err.code,
            format!(
                "the undo of entry {id} failed and changed nothing: {}",
                err.message
            ),
        )
        .with_hint(
            err.hint
                .unwrap_or_else(|| "fix the cause, then undo again".to_string()),
        ));
    }
    let recorded: Vec<Change> = targets
        .into_iter()
        .map(|(p, now, want)| Change {
            path: p.absolute().to_path_buf(),
            before: now,
            after: want,
        })
        .collect();
    let verb = if kind == EntryKind::Redo {
        "redo"
    } else {
        "undo"
    };
    let summary = format!("{verb} of entry {id}: {}", info.summary);
    report.entry = history::record_commit(ws, verb, &summary, kind, Some(id), &recorded);
    if report.entry.is_none() {
        // The tree was put back; without the entry a later undo of this undo is impossible,
        // which the caller must know.
        if let Some(w) = h.take_warning() {
            return Err(FkError::new(
                ErrorCode::Io,
                format!("entry {id} was undone, but the undo could not be recorded: {w}"),
            ));
        }
    }
    Ok(report)
}

/// Where each path of entry `id` is to go back to: its path, its state now and the state
/// before the entry; with the paths that changed since the entry. Refused when a path
/// changed since (unless `force`), or when it cannot be put back even forced.
#[allow(clippy::type_complexity)]
fn targets(
    ws: &Workspace,
    h: &History,
    id: i64,
    kind: EntryKind,
    force: bool,
) -> Result<(Vec<(WsPath, Node, Node)>, Vec<String>), FkError> {
    let changes = h.changes(id)?;
    let mut targets: Vec<(WsPath, Node, Node)> = Vec::with_capacity(changes.len());
    let mut changed_since: Vec<String> = Vec::new();
    // Paths whose entry kept only a streamed file's edited ranges, and that changed since:
    // those cannot be put back, even when forced.
    let mut unrecoverable: Vec<String> = Vec::new();
    for c in changes {
        let p = ws.resolve_entry(&c.path.to_string_lossy()).map_err(|e| {
            FkError::new(
                e.code,
                format!(
                    "cannot undo entry {id}: {} is not reachable in this workspace ({})",
                    c.path.display(),
                    e.message
                ),
            )
            .with_hint("open filekit on the roots the entry was made in")
        })?;
        let now = match &c.after {
            Node::Ranges { .. } => streamed_node_at(ws, &p, &c.after)?,
            _ => node_at(ws, &p)?,
        };
        if !same_state(&now, &c.after) {
            changed_since.push(format!(
                "{} (now {}, the entry left {})",
                c.path.display(),
                describe(&now),
                describe(&c.after)
            ));
            if matches!(c.before, Node::Ranges { .. }) {
                unrecoverable.push(c.path.display().to_string());
            }
        }
        targets.push((p, now, c.before));
    }
    if !unrecoverable.is_empty() && force {
        return Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "cannot {} entry {id}: it kept only the edited ranges of {} (streamed for its size), which can be put back only over the file as the entry left it, and it changed since",
                if kind == EntryKind::Redo { "redo" } else { "undo" },
                unrecoverable.join(", ")
            ),
        )
        .with_hint("undo the later entries first (see the history of this path), so that the file is as the entry left it"));
    }
    if !changed_since.is_empty() && !force {
        return Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "cannot {} entry {id}: {} changed after it: {}",
                if kind == EntryKind::Redo { "redo" } else { "undo" },
                if changed_since.len() == 1 { "a path" } else { "paths" },
                changed_since.join("; ")
            ),
        )
        .with_hint("undo the later entries first (see the history of these paths), or force it to overwrite the later changes")
        .with_details(json!({ "changed": changed_since })));
    }
    Ok((targets, changed_since))
}

/// The streamed files among `targets` opened with the edited ranges the entry kept of them.
fn open_spliced(
    ws: &Workspace,
    id: i64,
    targets: &[(WsPath, Node, Node)],
) -> Result<Vec<Option<SplicedFile>>, FkError> {
    // A streamed file is put back from the file as the entry left it (as `targets` checked), its
    // edited ranges replaced, copied as it is written.
    targets
        .iter()
        .map(|(p, _, want)| match want {
            Node::Ranges { edits, .. } => {
                let (file, meta) = ws.open(p)?;
                SplicedFile::new(file, meta.len, edits.clone())
                    .map(Some)
                    .ok_or_else(|| {
                        FkError::new(
                            ErrorCode::Internal,
                            format!(
                                "the edited ranges entry {id} kept of {} do not fit it: a damaged history",
                                ws.display(p)
                            ),
                        )
                    })
            }
            _ => Ok(None),
        })
        .collect()
}

/// The transaction that puts `targets` back.
fn transaction_ops<'a>(
    ws: &Workspace,
    targets: &'a [(WsPath, Node, Node)],
    spliced: &'a [Option<SplicedFile>],
) -> Result<Vec<Op<'a>>, FkError> {
    // Directories to make (outermost first), then contents, then removals (innermost first).
    let mut make: Vec<(WsPath, u32)> = Vec::new();
    let mut put: Vec<Op<'_>> = Vec::new();
    let mut removals: Vec<(WsPath, bool)> = Vec::new();
    // Directories that stay but had another mode (one a moved directory replaced). A mode
    // that lets its owner write and enter is set first, so that what goes in or out of the
    // directory can; one that does not, last, once that is done.
    let mut perms: Vec<Op<'_>> = Vec::new();
    for ((p, now, want), spliced) in targets.iter().zip(spliced) {
        match (now, want) {
            (a, b) if same_state(a, b) && mode_of(a) == mode_of(b) => {}
            (Node::Dir { .. }, Node::Dir { mode }) => perms.push(Op::SetPerm {
                path: p.clone(),
                perm: *mode,
            }),
            (Node::Absent, Node::Dir { mode }) => make.push((p.clone(), *mode)),
            (_, Node::Dir { .. }) => {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "cannot put back the directory {}: a {} is there now",
                        ws.display(p),
                        now.kind()
                    ),
                )
                .with_hint("move what is there out of the way, then undo again"));
            }
            (Node::Dir { .. }, Node::File { .. } | Node::Symlink { .. }) => {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "cannot put back {}: a directory is there now",
                        ws.display(p)
                    ),
                )
                .with_hint("move the directory out of the way, then undo again"));
            }
            (_, Node::Ranges { mode, .. }) => put.push(Op::Write {
                path: p.clone(),
                bytes: Content::Spliced(spliced.as_ref().expect("opened above")),
                mode: WriteMode::CreateOrReplace,
                perm: Some(*mode),
                read_as: ws.metadata(p).ok().flatten().filter(|m| m.is_file),
            }),
            (_, Node::File { bytes, mode }) => put.push(Op::Write {
                path: p.clone(),
                bytes: bytes.into(),
                mode: WriteMode::CreateOrReplace,
                perm: Some(*mode),
                // Checked just now to be as the entry left it: a change since is not undone.
                read_as: ws.metadata(p).ok().flatten().filter(|m| m.is_file),
            }),
            (_, Node::Symlink { target }) => {
                if *now != Node::Absent {
                    removals.push((p.clone(), false));
                }
                put.push(Op::Symlink {
                    path: p.clone(),
                    target: target.clone(),
                });
            }
            (Node::Dir { .. }, Node::Absent) => removals.push((p.clone(), false)),
            (_, Node::Absent) => removals.push((p.clone(), false)),
        }
    }
    // Parents that vanished outside filekit since.
    for op in &put {
        for d in ws.missing_parents(op.path()) {
            if !make.iter().any(|(m, _)| *m == d) {
                make.push((d, 0o755));
            }
        }
    }
    make.sort_by_key(|(d, _)| d.relative().components().count());
    removals.sort_by_key(|(d, _)| std::cmp::Reverse(d.relative().components().count()));
    // A link replacing a file: the file goes first.
    let (early, late): (Vec<_>, Vec<_>) = removals.into_iter().partition(|(p, _)| {
        put.iter()
            .any(|o| matches!(o, Op::Symlink { path, .. } if path == p))
    });
    let mut ops: Vec<Op<'a>> = make
        .iter()
        .map(|(d, mode)| Op::MakeDir {
            path: d.clone(),
            perm: Some(*mode),
        })
        .collect();
    let (perms_first, mut perms_last): (Vec<_>, Vec<_>) = perms
        .into_iter()
        .partition(|op| matches!(op, Op::SetPerm { perm, .. } if perm & 0o300 == 0o300));
    ops.extend(perms_first);
    ops.extend(
        early
            .into_iter()
            .map(|(path, recursive)| Op::Remove { path, recursive }),
    );
    ops.extend(put);
    ops.extend(
        late.into_iter()
            .map(|(path, recursive)| Op::Remove { path, recursive }),
    );
    // Innermost first: a parent's mode that takes away entering it comes last.
    perms_last.sort_by_key(|op| std::cmp::Reverse(op.path().relative().components().count()));
    ops.extend(perms_last);
    Ok(ops)
}

fn mode_of(n: &Node) -> Option<u32> {
    match n {
        Node::File { mode, .. } | Node::Ranges { mode, .. } | Node::Dir { mode } => Some(*mode),
        _ => None,
    }
}

/// What is at `p` now, where the entry left the streamed file `after`: that file (with the
/// edits that make the other side of it) when its size and content hash are the entry's,
/// hashed as it is read, never held; else what is there (a file by its size and hash).
fn streamed_node_at(ws: &Workspace, p: &WsPath, after: &Node) -> Result<Node, FkError> {
    let dir = ws.root_dir(p.root_index());
    match dir.symlink_metadata(p.rel_or_dot()) {
        Ok(m) if m.is_file() => {}
        _ => return node_at(ws, p),
    }
    let (file, meta) = ws.open(p)?;
    let mut h = crate::hash::StreamingHash::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        use std::os::unix::fs::FileExt;
        let n = file
            .read_at(&mut buf, at)
            .map_err(|e| FkError::from_io(&e, &ws.display(p)))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        at += n as u64;
    }
    let hash = h.finish();
    Ok(match after {
        Node::Ranges {
            size,
            hash: left,
            edits,
            ..
        } if *size == at && *left == hash => Node::Ranges {
            size: at,
            hash,
            mode: meta.mode,
            edits: edits.clone(),
        },
        _ => Node::Ranges {
            size: at,
            hash,
            mode: meta.mode,
            edits: Vec::new(),
        },
    })
}

/// Content equality: bytes for files, kind for directories, text for links.
fn same_state(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Absent, Node::Absent) => true,
        (Node::File { bytes: x, .. }, Node::File { bytes: y, .. }) => x == y,
        (
            Node::Ranges {
                size: a, hash: x, ..
            },
            Node::Ranges {
                size: b, hash: y, ..
            },
        ) => a == b && x == y,
        (Node::Dir { .. }, Node::Dir { .. }) => true,
        (Node::Symlink { target: x }, Node::Symlink { target: y }) => x == y,
        _ => false,
    }
}

fn describe(n: &Node) -> String {
    match n {
        Node::Absent => "absent".to_string(),
        Node::File { bytes, .. } => format!(
            "a file of {} bytes, hash {}",
            bytes.len(),
            crate::hash::content_hash(bytes)
        ),
        Node::Ranges { size, hash, .. } => format!("a file of {size} bytes, hash {hash}"),
        Node::Dir { .. } => "a directory".to_string(),
        Node::Symlink { target } => format!("a link to {}", target.display()),
    }
}
