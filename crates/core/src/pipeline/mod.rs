//! The one pipeline every write goes through (ARCHITECTURE.md says why there is one):
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
//! commit, retries of merges that went stale); its private files are the steps: `plan` (one
//! file, the steps in order), `snapshot`, `resolve`, `preview`, `commit`, `report`. Its
//! public ones are its vocabulary ([`edit`]) and the resolvers the steps use, which other
//! parts of the engine use too (re-exported at the crate's root): [`lines`], [`sequential`],
//! [`sed`], [`diff`]; the near miss of a text not found is its own crate's
//! (`filekit-nearmiss`), which the patch placement shares.

use crate::edit::Progress;
use crate::edit::{EditOptions, EditReport, EditRequest, FileEdits, FileOutcome, FileReport};
use crate::error::FkError;
use crate::history::{PreparedChange, StoredContent};
use crate::intent_log::Intent;
use crate::leases::Snapshot;
use crate::workspace::{FileBytes, FileMeta, Workspace, WriteMode, WsPath};
use rayon::prelude::*;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod diff;
pub mod edit;
pub mod lines;
pub mod sed;
pub mod sequential;

mod commit;
mod excerpts;
mod plan;
mod preview;
mod report;
mod resolve;
mod snapshot;
mod streamed;

use commit::commit;
use commit::write_now;
use plan::{names_version, plan_file};
use report::{cancelled_error, empty_report, not_written_as_cancelled};

/// Applies an edit request: every file is planned (in parallel), then, unless dry run or
/// cancelled, written.
pub fn apply(ws: &Workspace, req: &EditRequest) -> EditReport {
    let batch = Batch::begin(ws, &req.options, req.files.len());
    let plans: Vec<FilePlan> = req
        .files
        .par_iter()
        .map(|fe| batch.plan(fe, None).0)
        .collect();
    batch.finish(&req.files, plans)
}

/// A request run file by file: [`Batch::begin`] with its options, [`Batch::plan`] each file
/// (from any thread, in any order), then [`Batch::finish`] with every file's plan. [`apply`]
/// is one; a tree-wide replace is another, which plans each file as its walk finds it and,
/// when the request allows ([`Batch::streaming`]), writes it there too.
pub(crate) struct Batch<'a> {
    ws: &'a Workspace,
    opts: &'a EditOptions,
    /// The leases as the request found them when it began.
    leases: Snapshot,
    /// Files in the request, for progress (0: not known while it runs).
    total: usize,
    planned: AtomicUsize,
    /// Each file is written as soon as it is planned (see [`Batch::streaming`]), in this
    /// record of the request's writes.
    write_as_planned: bool,
    intent: Option<Intent<'a>>,
}

impl<'a> Batch<'a> {
    /// A request of `total` files, written together once every file is planned.
    pub(crate) fn begin(ws: &'a Workspace, opts: &'a EditOptions, total: usize) -> Self {
        Batch {
            ws,
            opts,
            leases: leases_of(ws, opts),
            total,
            planned: AtomicUsize::new(0),
            write_as_planned: false,
            intent: None,
        }
    }

    /// A request whose number of files is not known until it ends, whose files are written
    /// as soon as each is planned when they stand alone (not atomic, not a dry run) and are
    /// not flushed: a tree-wide replace then holds no file's new bytes beyond its own write.
    /// Flushed writes wait for the batch: its flushes run on many threads at once (a flush
    /// waits for the device) and its directories are flushed once each at the end, where the
    /// walk's few threads would flush file after file.
    pub(crate) fn streaming(ws: &'a Workspace, opts: &'a EditOptions) -> Self {
        let write_as_planned = !opts.dry_run() && !opts.atomic() && opts.no_fsync();
        Batch {
            write_as_planned,
            intent: write_as_planned
                .then(|| Intent::begin(ws, opts.tool().unwrap_or("edit"), true).ok())
                .flatten(),
            ..Batch::begin(ws, opts, 0)
        }
    }

    /// The plan of one file of the request (cancelled when the request is). `known`: the
    /// file as the caller read it, if it did; the edits then apply to those bytes, and the
    /// commit step checks them against the file as it is then, as it does for a file read
    /// here. When the batch writes as it plans, the file is written now, and the bytes it
    /// wrote come back (the plan keeps none) for the caller to reuse their memory; what it
    /// changed is recorded with the rest of the request ([`Batch::finish`]).
    pub(crate) fn plan(&self, fe: &FileEdits, known: Option<Known>) -> (FilePlan, Option<Vec<u8>>) {
        self.plan_with(fe, known, self.opts)
    }

    /// [`Batch::plan`] with `opts` for this file: the request's, with what its report keeps
    /// changed (a file whose diff no reply would show is planned without one).
    pub(crate) fn plan_with(
        &self,
        fe: &FileEdits,
        known: Option<Known>,
        opts: &EditOptions,
    ) -> (FilePlan, Option<Vec<u8>>) {
        let mut plan = if self.opts.control().is_cancelled() {
            let mut plan = FilePlan::new(&fe.path);
            plan.fail(cancelled_error());
            plan
        } else {
            plan_file(self.ws, fe, opts, &self.leases, known)
        };
        let done = self.planned.fetch_add(1, Ordering::Relaxed) + 1;
        self.opts.control().report(Progress {
            done,
            total: self.total,
        });
        let written = if self.write_as_planned {
            write_now(self.ws, &mut plan, self.opts, self.intent.as_ref())
        } else {
            None
        };
        (plan, written)
    }

    /// How many files were planned so far.
    pub(crate) fn planned(&self) -> usize {
        self.planned.load(Ordering::Relaxed)
    }

    /// The rest of the request once every file of `files` is planned (`plans` in the order
    /// of `files`): the checks across files, the commit and the report.
    pub(crate) fn finish(self, files: &[FileEdits], mut plans: Vec<FilePlan>) -> EditReport {
        let (ws, opts) = (self.ws, self.opts);
        // Held until the history has what was written as it was planned.
        let intent = self.intent;
        let control = &opts.control();
        // Keyed by the absolute path's bytes (resolved paths are normalized): `Path`'s own
        // hash goes through the path byte by byte, which a tree of thousands of files feels.
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
                    files[i].path
                ))
                .with_hint("put all edits of one file in one entry; they are applied in order"),
            );
        }

        let cancelled = control.is_cancelled();
        let any_failure = plans.iter().any(|p| !p.report.success());
        let rolled_back = opts.atomic() && any_failure;
        // Files written as they were planned are recorded even when the rest is not written.
        let write = !opts.dry_run() && !rolled_back && !cancelled;
        let mut history_entry = commit(ws, &mut plans, opts, write, intent.as_ref());
        drop(intent);
        if write && !opts.atomic() {
            retry_stale_merges(ws, files, &mut plans, opts, &mut history_entry);
        }
        // Cancelled while writing: what was written stays (a plain request) and the rest is
        // reported cancelled.
        let cancelled = cancelled || (write && control.is_cancelled());
        let rolled_back =
            rolled_back || (opts.atomic() && plans.iter().any(|p| !p.report.success()));
        let mut files: Vec<FileReport> = plans.into_iter().map(|p| p.report).collect();
        if rolled_back {
            for f in &mut files {
                if let FileOutcome::Changed { written, .. } = &mut f.outcome {
                    *written = false;
                }
            }
        }
        if cancelled {
            for f in &mut files {
                f.outcome = not_written_as_cancelled(std::mem::replace(
                    &mut f.outcome,
                    FileOutcome::Failed { error: None },
                ));
            }
        }
        EditReport {
            cancelled,
            files,
            dry_run: opts.dry_run(),
            atomic: opts.atomic(),
            rolled_back,
            history_entry,
        }
    }
}

/// The leases a request's writes are checked against: taken once, when it begins (none for
/// a dry run, which writes nothing).
fn leases_of(ws: &Workspace, opts: &EditOptions) -> Snapshot {
    if opts.dry_run() {
        Snapshot::default()
    } else {
        Snapshot::take(ws)
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
    files: &[FileEdits],
    plans: &mut [FilePlan],
    opts: &EditOptions,
    history_entry: &mut Option<i64>,
) {
    for (fe, plan) in files.iter().zip(plans.iter_mut()) {
        for _ in 0..MERGE_RETRIES {
            if !plan.stale_at_commit {
                break;
            }
            let names_version = plan.report.merged() || names_version(fe);
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
                let entry = commit(ws, std::slice::from_mut(plan), opts, true, None);
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
    /// What to write, when the file changes and the request writes; the commit step takes it.
    write: Option<PlannedWrite>,
    /// The file changed between planning and writing (the commit step refused it).
    stale_at_commit: bool,
    /// Written, its change not recorded in the history yet.
    change: Option<PreparedChange>,
}

/// A planned file's new content, where it goes and how.
struct PlannedWrite {
    target: WsPath,
    bytes: Vec<u8>,
    /// A streamed file's new content, instead of `bytes`: the file as read with its edited
    /// ranges replaced, copied as it is written.
    spliced: Option<crate::content::SplicedFile>,
    mode: WriteMode,
}

impl PlannedWrite {
    /// What the commit step writes.
    fn content(&self) -> crate::content::Content<'_> {
        match &self.spliced {
            Some(s) => crate::content::Content::Spliced(s),
            None => (&self.bytes).into(),
        }
    }
}

impl FilePlan {
    /// The file's report as planned.
    pub(crate) fn report(&self) -> &FileReport {
        &self.report
    }

    /// The file's report as planned, for a caller that bounds what a reply shows of it.
    pub(crate) fn report_mut(&mut self) -> &mut FileReport {
        &mut self.report
    }

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
        self.report.outcome = FileOutcome::Skipped { reason: why };
        self.write = None;
    }

    fn fail(&mut self, err: FkError) {
        self.report.outcome = FileOutcome::Failed { error: Some(err) };
        self.write = None;
    }

    /// Not written because the request was stopped before its turn (`err` says so).
    fn cancel(&mut self, err: FkError) {
        self.report.outcome = report::not_written_as_cancelled_with(
            std::mem::replace(
                &mut self.report.outcome,
                FileOutcome::Failed { error: None },
            ),
            err,
        );
        self.write = None;
    }
}
