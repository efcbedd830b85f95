//! The one pipeline every write goes through (DESIGN.md section 2):
//! snapshot -> resolve -> preview -> commit -> report.
//!
//! 1. Snapshot: each file is read and decoded once.
//! 2. Resolve: line edits become byte splices of the text as read ([`crate::lines`]); text
//!    edits then apply in order, each on the result of the one before
//!    ([`crate::sequential`]); appends come last. A failed edit is reported with what to do;
//!    the others apply unless the request is atomic. When the edits name an older version of
//!    the file (`base_hash`, or a line edit's `content_hash`) that the version store holds,
//!    they are resolved against that version and merged into the file as it is
//!    ([`crate::merge`]); a conflict fails the file with both sides.
//! 3. Preview: the new text, a unified diff, per-edit outcomes.
//! 4. Commit (not for dry runs): every file is staged to a temporary file first, then renamed
//!    into place; with `atomic`, nothing is written unless everything succeeded.
//! 5. Report: an [`EditReport`] that the dialects shape into their replies.
//!
//! This module runs a request (its files planned in parallel, the checks across files, the
//! commit, retries of merges that went stale); its files are the steps: `plan` (one file,
//! the steps in order), `snapshot`, `resolve`, `preview`, `commit`, `report`.

use crate::edit::Progress;
use crate::edit::{EditOptions, EditReport, EditRequest, FileEdits, FileReport, FileStatus};
use crate::error::FkError;
use crate::history::{PreparedChange, StoredContent};
use crate::leases::Snapshot;
use crate::workspace::{FileBytes, FileMeta, Workspace, WriteMode, WsPath};
use rayon::prelude::*;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};

mod commit;
mod plan;
mod preview;
mod report;
mod resolve;
mod snapshot;

use commit::commit;
pub(crate) use commit::{missing_parents, write_now, writes_as_planned};
use plan::{names_version, plan_file};
use report::{cancelled_error, empty_report};

/// Applies an edit request: every file is planned (in parallel), then, unless dry run or
/// cancelled, written.
pub fn apply(ws: &Workspace, req: &EditRequest) -> EditReport {
    let opts = &req.options;
    let total = req.files.len();
    let planned = AtomicUsize::new(0);
    let leases = leases_of(ws, opts);
    let plans: Vec<FilePlan> = req
        .files
        .par_iter()
        .map(|fe| {
            let plan = plan_one(ws, fe, opts, &leases, None);
            let done = planned.fetch_add(1, Ordering::Relaxed) + 1;
            opts.control.report(Progress { done, total });
            plan
        })
        .collect();
    finish(ws, req, plans)
}

/// The leases a request's writes are checked against: taken once, when it begins (none for
/// a dry run, which writes nothing).
pub(crate) fn leases_of(ws: &Workspace, opts: &EditOptions) -> Snapshot {
    if opts.dry_run {
        Snapshot::default()
    } else {
        Snapshot::take(ws)
    }
}

/// The plan of one file of a request (cancelled when the request is). `leases`: as the
/// request found them ([`leases_of`]). `known`: the file as the caller read it, if it did;
/// the edits then apply to those bytes, and the commit step checks them against the file as
/// it is then, as it does for a file read here.
pub(crate) fn plan_one(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    leases: &Snapshot,
    known: Option<Known>,
) -> FilePlan {
    if opts.control.is_cancelled() {
        let mut plan = FilePlan::new(&fe.path);
        plan.fail(cancelled_error());
        return plan;
    }
    plan_file(ws, fe, opts, leases, known)
}

/// The rest of [`apply`] once every file of `req` is planned (`plans` in the order of
/// `req.files`): the checks across files, the commit and the report.
pub(crate) fn finish(ws: &Workspace, req: &EditRequest, mut plans: Vec<FilePlan>) -> EditReport {
    let opts = &req.options;
    let control = &opts.control;
    // Keyed by the absolute path's bytes (resolved paths are normalized): `Path`'s own hash
    // goes through the path byte by byte, which a tree of thousands of files feels.
    let mut seen: HashMap<&std::ffi::OsStr, usize> = HashMap::new();
    let mut twice: Vec<(usize, usize)> = Vec::new();
    for (i, plan) in plans.iter().enumerate() {
        if let Some(target) = &plan.target {
            match seen.entry(target.absolute().as_os_str()) {
                Entry::Occupied(first) => twice.push((*first.get(), i)),
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
    }
    drop(seen);
    for (first, i) in twice {
        plans[i].fail(
            FkError::invalid(format!(
                "{} appears twice in this request (entries {first} and {i})",
                req.files[i].path
            ))
            .with_hint("put all edits of one file in one entry; they are applied in order"),
        );
    }

    let cancelled = control.is_cancelled();
    let any_failure = plans.iter().any(|p| !p.report.success());
    let rolled_back = opts.atomic && any_failure;
    // Files written as they were planned are recorded even when the rest is not written.
    let write = !opts.dry_run && !rolled_back && !cancelled;
    let mut history_entry = commit(ws, &mut plans, opts, write);
    if write && !opts.atomic {
        retry_stale_merges(ws, req, &mut plans, opts, &mut history_entry);
    }
    let rolled_back = rolled_back || (opts.atomic && plans.iter().any(|p| !p.report.success()));
    let mut files: Vec<FileReport> = plans.into_iter().map(|p| p.report).collect();
    if rolled_back {
        for f in &mut files {
            f.written = false;
        }
    }
    if cancelled {
        for f in files.iter_mut().filter(|f| f.error.is_none() && !f.written) {
            f.error = Some(cancelled_error());
        }
    }
    EditReport {
        cancelled,
        files,
        dry_run: opts.dry_run,
        atomic: opts.atomic,
        rolled_back,
        history_entry,
    }
}

/// How many times a file whose edits name their version is planned again when another
/// writer changed it between planning and writing.
const MERGE_RETRIES: usize = 8;

/// Edits that name the version they were made on do not need the file to stay as it was
/// planned: when another writer changed it just before the write (`STALE` from the commit
/// step), they are merged again into the newer file and written, a few times at most.
/// Edits without a version keep their `STALE` (they were checked against what was read).
fn retry_stale_merges(
    ws: &Workspace,
    req: &EditRequest,
    plans: &mut [FilePlan],
    opts: &EditOptions,
    history_entry: &mut Option<i64>,
) {
    for (fe, plan) in req.files.iter().zip(plans.iter_mut()) {
        for _ in 0..MERGE_RETRIES {
            if !plan.stale_at_commit {
                break;
            }
            let names_version = plan.report.merged || names_version(fe);
            let base = fe
                .base_hash
                .clone()
                .or_else(|| plan.report.merged_from.clone())
                .or_else(|| plan.report.old_hash.clone());
            if !names_version || base.is_none() || ws.versions().is_none() {
                break;
            }
            let again = FileEdits {
                path: fe.path.clone(),
                edits: fe.edits.clone(),
                base_hash: base,
            };
            *plan = plan_file(ws, &again, opts, &leases_of(ws, opts), None);
            if plan.write.is_some() {
                let entry = commit(ws, std::slice::from_mut(plan), opts, true);
                if history_entry.is_none() {
                    *history_entry = entry;
                }
            }
        }
    }
}

/// A file its caller read already: a tree-wide replace's walk, which reads every file to
/// search it.
pub(crate) struct Known {
    /// Its path as [`Workspace::resolve`] gives it, when the caller has it (see
    /// [`Workspace::open_resolved`]); else it is resolved here.
    pub target: Option<WsPath>,
    pub bytes: FileBytes,
}

/// One file's planned change.
pub(crate) struct FilePlan {
    report: FileReport,
    /// The file before the request and after it, as the history stores them: made when the
    /// file is planned, so that a request of thousands of files does not hold every file's
    /// old bytes until the commit.
    old_content: Option<StoredContent>,
    new_content: Option<StoredContent>,
    old_mode: Option<u32>,
    /// Size and modification time of the file as read: a write is refused if another
    /// process changed the file since.
    old_meta: Option<FileMeta>,
    target: Option<WsPath>,
    write: Option<(Vec<u8>, WriteMode)>,
    /// The file changed between planning and writing (the commit step refused it).
    stale_at_commit: bool,
    /// Written, its change not recorded in the history yet.
    change: Option<PreparedChange>,
}

impl FilePlan {
    fn new(path: &str) -> FilePlan {
        FilePlan {
            report: empty_report(path),
            old_content: None,
            new_content: None,
            old_mode: None,
            old_meta: None,
            target: None,
            write: None,
            stale_at_commit: false,
            change: None,
        }
    }

    fn skip(&mut self, why: String) {
        self.report.status = FileStatus::Skipped;
        self.report.skipped = Some(why);
        self.write = None;
    }

    fn fail(&mut self, err: FkError) {
        self.report.error = Some(err);
        self.report.status = FileStatus::Failed;
        self.write = None;
    }
}
