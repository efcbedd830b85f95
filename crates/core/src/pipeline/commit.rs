//! Commit: planned files go to disk through the one commit step ([`transaction::run`]),
//! at the durability the request asks for, and what they changed goes to the history and the
//! version store.

use super::{FilePlan, PlannedWrite};
use crate::edit::{EditOptions, FileOutcome};
use crate::error::{ErrorCode, FkError};
use crate::history::{self, PreparedChange, PreparedNode, StoredContent};
use crate::intent_log::Intent;
use crate::interrupt::Writing;
use crate::transaction::{self, BATCH_SYNC_FILES, Durability, Op};
use crate::workspace::{FileMeta, Workspace, WriteMode, WsPath, rfc3339};
use rayon::prelude::*;

/// The largest commit whose versions go to the version store when there is no history.
const VERSIONS_WITHOUT_HISTORY: usize = 256;

/// How a commit of `files` files reaches the disk.
pub(super) fn durability(opts: &EditOptions, files: usize) -> Durability {
    if opts.no_fsync() {
        Durability::None
    } else {
        Durability::flushed(files)
    }
}

/// The commit step's op for a planned write; `read_as`: the file as it was read, which it
/// must still be.
fn write_op<'a>(w: &'a PlannedWrite, read_as: Option<FileMeta>, opts: &EditOptions) -> Op<'a> {
    let mode = match w.mode {
        WriteMode::Replace if opts.in_place() && w.spliced.is_none() => WriteMode::InPlace,
        other => other,
    };
    Op::Write {
        path: w.target.clone(),
        bytes: w.content(),
        mode,
        perm: None,
        read_as,
    }
}

/// Writes `plan` now, on the thread that planned it, through the commit step in the
/// request's `intent`, and gives back the bytes it wrote (the plan keeps none); what it
/// changed is recorded with the rest of its request ([`super::Batch::finish`]). Only for a
/// [`super::Batch::streaming`] that writes as it plans.
pub(super) fn write_now(
    ws: &Workspace,
    plan: &mut FilePlan,
    opts: &EditOptions,
    intent: Option<&Intent<'_>>,
) -> Option<Vec<u8>> {
    debug_assert!(!opts.dry_run() && !opts.atomic());
    let w = plan.write.take()?;
    let op = write_op(&w, plan.old_meta.clone(), opts);
    let outcome = transaction::run_in(
        ws,
        &[op],
        false,
        durability(opts, 1),
        opts.control(),
        intent,
    );
    let result = outcome
        .results
        .into_iter()
        .next()
        .expect("one result per op");
    settle(ws, plan, &w, result, &[]);
    Some(w.bytes)
}

/// Puts the commit step's result for `plan`'s write `w` in its report and, with a history,
/// prepares its change for the history (`made`: directories the commit made).
fn settle(
    ws: &Workspace,
    plan: &mut FilePlan,
    w: &PlannedWrite,
    result: Result<Option<FileMeta>, FkError>,
    made: &[&WsPath],
) {
    let meta = match result {
        Ok(meta) => meta,
        Err(e) if e.code == ErrorCode::Cancelled => {
            plan.cancel(e);
            return;
        }
        Err(e) => {
            plan.stale_at_commit = e.code == ErrorCode::Stale;
            plan.fail(e);
            return;
        }
    };
    if let FileOutcome::Changed { written, .. } = &mut plan.report.outcome {
        *written = true;
    }
    if let Some(meta) = &meta {
        plan.report.last_modified = Some(rfc3339(meta.modified));
    }
    let target = &w.target;
    plan.report.created_dirs = made
        .iter()
        .filter(|d| target.is_within(d))
        .map(|d| ws.display(d))
        .collect();
    if ws.history().is_some() {
        let after_mode = meta.as_ref().map_or(0o644, |m| m.mode);
        let new_content = match plan.new_content.take() {
            Some(c) => c,
            None => StoredContent::of(&w.bytes),
        };
        plan.change = Some(PreparedChange {
            path: target.absolute().to_path_buf(),
            before: match plan.old_content.take() {
                Some(content) => PreparedNode::File {
                    content,
                    mode: plan.old_mode.unwrap_or(after_mode),
                },
                None => PreparedNode::Absent,
            },
            after: PreparedNode::File {
                content: new_content,
                mode: after_mode,
            },
        });
    }
}

/// Writes the planned files that are not written yet through the commit step
/// ([`transaction::run`]), making missing parent directories first (unless `!write`), and
/// records in the history what changed: those and the files written as they were planned
/// (in the request's `intent`). A plain request's writes are in an intent until the history
/// has them (the caller's, or one of their own), so that a kill in between is finished by
/// the next start; every request holds a [`Writing`] until then, so that a front end that
/// stops waits for the history.
pub(super) fn commit(
    ws: &Workspace,
    plans: &mut [FilePlan],
    opts: &EditOptions,
    write: bool,
    intent: Option<&Intent<'_>>,
) -> Option<i64> {
    let _writing = Writing::begin();
    // The writes leave their plans: each is the commit's now, its plan's index beside it.
    let mut writes: Vec<(usize, PlannedWrite)> = if write {
        (plans.iter_mut().enumerate())
            .filter_map(|(i, p)| Some((i, p.write.take()?)))
            .collect()
    } else {
        Vec::new()
    };
    let count = writes.len();
    let mut dirs: Vec<WsPath> = Vec::new();
    for (_, w) in &writes {
        // A file that must exist has its directory (if it vanished, the write says so): only
        // new files look for directories to make, not every file of a tree-wide replace.
        if matches!(w.mode, WriteMode::Replace | WriteMode::InPlace) {
            continue;
        }
        for d in ws.missing_parents(&w.target) {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs.sort_by_key(|d| d.relative().components().count());
    let mut rolled_back = false;
    let mut changes: Vec<PreparedChange> = Vec::new();
    let tool = opts.tool().unwrap_or("edit");
    let own = match intent {
        None if count > 0 && !opts.atomic() => Intent::begin(ws, tool, true).ok(),
        _ => None,
    };
    let intent = intent.or(own.as_ref());
    if count > 0 {
        let mut ops: Vec<Op<'_>> = dirs
            .iter()
            .map(|d| Op::MakeDir {
                path: d.clone(),
                perm: None,
            })
            .collect();
        ops.extend((writes.iter()).map(|(i, w)| write_op(w, plans[*i].old_meta.clone(), opts)));
        let outcome = transaction::run_in(
            ws,
            &ops,
            opts.atomic(),
            durability(opts, count),
            opts.control(),
            intent,
        );
        drop(ops);
        rolled_back = outcome.rolled_back;
        let mut dir_results = outcome.results;
        let write_results = dir_results.split_off(dirs.len());
        let made: Vec<&WsPath> = dirs
            .iter()
            .zip(&dir_results)
            .filter(|(_, r)| r.is_ok() && !rolled_back)
            .map(|(d, _)| d)
            .collect();
        changes.extend(made.iter().map(|d| PreparedChange {
            path: d.absolute().to_path_buf(),
            before: PreparedNode::Absent,
            after: PreparedNode::Dir {
                mode: ws.metadata(d).ok().flatten().map_or(0o755, |m| m.mode),
            },
        }));
        // Written files are kept until the version store has them; a large commit with a
        // history gives them up now (see below), before the history's transaction.
        let keep_written = ws.history().is_none() || count <= BATCH_SYNC_FILES;
        for ((i, w), result) in writes.iter().zip(write_results) {
            settle(ws, &mut plans[*i], w, result, &made);
        }
        if !keep_written {
            writes = Vec::new();
        }
    }
    let made_dirs = changes.len();
    // In the request's order, with those written as they were planned.
    changes.extend(plans.iter_mut().filter_map(|p| p.change.take()));
    let mut entry = None;
    if !rolled_back && changes.len() > made_dirs {
        let paths: Vec<&std::path::Path> = changes[made_dirs..]
            .iter()
            .map(|c| c.path.as_path())
            .collect();
        let summary = history::summarize_paths(ws, "changed", &paths);
        entry = history::record_prepared_commit(ws, tool, &summary, &changes);
    }
    // The versions written, so that a later edit made on one can be merged. Those the
    // history recorded are found there: memory keeps them only for a commit of a few files (a
    // tree-wide one would copy every file it wrote only to push everything else out of
    // memory's cap). Without a history the store is the only copy, and a commit of more than
    // `VERSIONS_WITHOUT_HISTORY` files keeps none rather than write thousands of version
    // files: an edit made on one of its versions then applies while the file is unchanged and
    // is refused as STALE once it has changed. (Files written as they were planned kept no
    // bytes for this.)
    let remember = match entry {
        Some(_) => count <= BATCH_SYNC_FILES,
        None => count <= VERSIONS_WITHOUT_HISTORY,
    };
    if let Some(store) = ws.versions().filter(|_| remember && !writes.is_empty()) {
        let recorded = entry.is_some();
        let versions: Vec<(&[u8], Option<&str>)> = writes
            .iter()
            .filter(|(i, w)| plans[*i].report.written() && w.spliced.is_none())
            .map(|(i, w)| (w.bytes.as_slice(), plans[*i].report.new_hash.as_deref()))
            .collect();
        versions.par_iter().for_each(|(bytes, h)| {
            if recorded {
                store.record_in_memory(bytes, *h);
            } else {
                store.record(bytes, *h);
            }
        });
    }
    entry
}
