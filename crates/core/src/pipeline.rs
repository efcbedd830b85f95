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

use crate::diff;
use crate::edit::Progress;
use crate::edit::{
    Edit, EditOptions, EditOutcome, EditReport, EditRequest, Expected, FileEdits, FileReport,
    FileStatus,
};
use crate::error::{ErrorCode, Fact, FkError, Limit, LimitFacts};
use crate::hash;
use crate::history::{self, PreparedChange, PreparedNode, StoredContent};
use crate::leases::Snapshot;
use crate::limits::{MAX_FILE_SIZE, NEAR_MISS_WORK};
use crate::lines::{LineTarget, SpliceSet};
use crate::nearmiss::{self, Difference};
use crate::sequential::{Occurrence, Sequential};
use crate::text::{LineIndex, TextDoc};
use crate::transaction::{self, Durability, Op};
use crate::workspace::{FileBytes, FileMeta, Workspace, WriteMode, WsPath, rfc3339};
use filekit_splices::{Splice, Splices};
use rayon::prelude::*;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The splices of a `replace_ranges` edit, after checking that they are for this version of
/// the file and fit its text (sorted, disjoint, inside it and on character boundaries): the
/// caller's ranges are its input, refused with `INVALID_ARGUMENT` when they do not fit.
fn check_ranges(
    base: &str,
    base_hash: &str,
    ranges: &[Splice],
    content_hash: &str,
) -> Result<Splices, FkError> {
    if !hash::matches(content_hash, base_hash) {
        return Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "content_hash {content_hash} is not the file's ({base_hash}): the byte ranges were computed on another version"
            ),
        )
        .with_hint("read the file again and compute the ranges on what it holds now"));
    }
    Splices::new(base, ranges.to_vec()).map_err(|e| FkError::caller_splices(&e, ranges, base.len()))
}

/// A create (a whole new content) with a `base_hash` is only written over that version.
fn check_create_base(fe: &FileEdits, current: Option<&str>, display: &str) -> Result<(), FkError> {
    let Some(given) = &fe.base_hash else {
        return Ok(());
    };
    hash::validate(given).map_err(|m| FkError::invalid(m.replace("content_hash", "base_hash")))?;
    match current {
        Some(h) if !hash::matches(given, h) => Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "{display} changed since version {given} (it is {h} now); a create writes the whole file, so it is not merged"
            ),
        )
        .with_hint("read the file again and edit it, or create it without base_hash to overwrite it")
        .with_details(serde_json::json!({"base_hash": given, "current_hash": h}))),
        _ => Ok(()),
    }
}

/// The version of the file that the edits were made on, when it is not the current one
/// (`current`) and the workspace's store holds it: `fe.base_hash`, or else a `content_hash`
/// of a line edit that names a stored version of the whole file.
fn find_merge_base(
    ws: &Workspace,
    fe: &FileEdits,
    current: &str,
    display: &str,
) -> Result<Option<(String, TextDoc)>, FkError> {
    use crate::versions::Lookup;
    let decode = |h: String, bytes: &[u8]| -> Result<Option<(String, TextDoc)>, FkError> {
        Ok(Some((h, TextDoc::decode(bytes, display)?)))
    };
    if let Some(given) = &fe.base_hash {
        hash::validate(given)
            .map_err(|m| FkError::invalid(m.replace("content_hash", "base_hash")))?;
        if hash::matches(given, current) {
            return Ok(None);
        }
        let unknown = || {
            FkError::new(
                ErrorCode::Stale,
                format!(
                    "{display} changed since version {given} (it is {current} now), and that version is not among those filekit kept, so the edits cannot be merged"
                ),
            )
            .with_hint("read the file again and redo the edits on what it holds now (filekit keeps the versions it served in reads and wrote; older ones are pruned)")
            .with_details(serde_json::json!({"base_hash": given, "current_hash": current}))
        };
        let Some(store) = ws.versions() else {
            return Err(unknown());
        };
        return match store.lookup(given, ws.history().map(|h| &**h)) {
            Lookup::Found { hash, bytes } => decode(hash, &bytes),
            Lookup::Unknown => Err(unknown()),
            Lookup::Ambiguous(names) => Err(FkError::invalid(format!(
                "base_hash {given} names {} stored versions ({})",
                names.len(),
                names.join(", ")
            ))
            .with_hint("give more digits of the content_hash a read returned")),
        };
    }
    let Some(store) = ws.versions() else {
        return Ok(None);
    };
    let mut found: Option<(String, std::sync::Arc<Vec<u8>>)> = None;
    for e in &fe.edits {
        let h = match e {
            Edit::ReplaceLines {
                content_hash: Some(h),
                ..
            }
            | Edit::Insert {
                content_hash: Some(h),
                ..
            }
            | Edit::Ranges {
                content_hash: h, ..
            } => h,
            _ => continue,
        };
        if hash::validate(h).is_err() || hash::matches(h, current) {
            continue;
        }
        if let Lookup::Found { hash, bytes } = store.lookup(h, ws.history().map(|h| &**h)) {
            match &found {
                Some((first, _)) if *first != hash => {
                    return Err(FkError::invalid(format!(
                        "the edits of {display} name two versions of it ({first} and {hash})"
                    ))
                    .with_hint(
                        "make all edits of one file on one version, or send them in two requests",
                    ));
                }
                Some(_) => {}
                None => found = Some((hash, bytes)),
            }
        }
    }
    match found {
        Some((h, bytes)) => decode(h, &bytes),
        None => Ok(None),
    }
}

/// The refusal of edits whose changes meet changes made to the file since their version.
fn conflict_error(
    display: &str,
    from: &str,
    current: &str,
    conflicts: &[crate::merge::Conflict],
) -> FkError {
    let range = |start: usize, count: usize| match count {
        0 => format!("after line {}", start - 1),
        1 => format!("line {start}"),
        n => format!("lines {start}-{}", start + n - 1),
    };
    let parts: Vec<String> = conflicts
        .iter()
        .map(|c| {
            format!(
                "your change of {} (of version {}) meets {} of the file now, which reads: {:?} (you wanted: {:?})",
                range(c.base_start, c.base_count),
                &from[..from.len().min(8)],
                range(c.current_start, c.current_count),
                shorten(&c.current, 300),
                shorten(&c.yours, 300),
            )
        })
        .collect();
    FkError::new(
        ErrorCode::Conflict,
        format!(
            "{display} changed since version {from} that the edits were made on, and {} of their changes meet changes made since: {}; nothing was written",
            conflicts.len(),
            parts.join("; ")
        ),
    )
    .with_hint("read the file again (read with since_hash to see only what changed) and send the edits again on the text as it is now; the edits that did not meet a change were not written either")
    .with_details(serde_json::json!({
        "base_hash": from,
        "current_hash": current,
        "conflicts": conflicts,
    }))
}

fn cancelled_error() -> FkError {
    FkError::new(
        ErrorCode::Cancelled,
        "the request was cancelled before anything was written",
    )
    .with_hint("send it again to apply it")
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

fn empty_report(path: &str) -> FileReport {
    FileReport {
        path: path.to_string(),
        resolved_path: String::new(),
        status: FileStatus::Failed,
        written: false,
        edits_applied: 0,
        edits_failed: 0,
        edits: Vec::new(),
        diff: String::new(),
        lines_added: 0,
        lines_removed: 0,
        old_hash: None,
        new_hash: None,
        last_modified: None,
        error: None,
        skipped: None,
        created_dirs: Vec::new(),
        merged: false,
        merged_from: None,
        new_text: None,
        old_text: None,
    }
}

fn outcome(index: usize, edit: &Edit) -> EditOutcome {
    EditOutcome {
        index,
        command: edit.command(),
        label: edit.label().map(str::to_string),
        success: false,
        replacements: 0,
        fuzzy_similarity: None,
        line: None,
        diff: None,
        error: None,
        skipped: false,
    }
}

fn plan_file(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    leases: &Snapshot,
    known: Option<Known>,
) -> FilePlan {
    let mut plan = FilePlan::new(&fe.path);
    match plan_file_inner(ws, fe, opts, leases, known, &mut plan) {
        Ok(()) => {}
        Err(e) => plan.fail(e),
    }
    plan
}

/// Whether `fe` was made on a version of its file that it names: a `base_hash`, or a line
/// edit's or range edit's `content_hash`. Such a request needs the file's hash to be checked.
fn names_version(fe: &FileEdits) -> bool {
    fe.base_hash.is_some()
        || fe.edits.iter().any(|e| {
            matches!(
                e,
                Edit::ReplaceLines {
                    content_hash: Some(_),
                    ..
                } | Edit::Insert {
                    content_hash: Some(_),
                    ..
                } | Edit::Ranges { .. }
            )
        })
}

/// The file as it is on disk before the request.
struct Before {
    /// The decoded file; taken as the base text when the edits apply to it (not a create).
    doc: Option<TextDoc>,
    hash: Option<String>,
    meta: Option<FileMeta>,
}

/// `known`: the file as the caller read it, if it did. `hashed`: whether its content hash is
/// wanted.
fn read_before(
    ws: &Workspace,
    p: &WsPath,
    display: &str,
    known: Option<FileBytes>,
    hashed: bool,
) -> Result<Before, FkError> {
    let fb = match known {
        Some(fb) => fb,
        None => ws.read(p)?,
    };
    let hash = hashed.then(|| hash::content_hash(&fb.bytes));
    let doc = TextDoc::decode_owned(fb.bytes, display)?;
    Ok(Before {
        hash,
        doc: Some(doc),
        meta: Some(fb.meta),
    })
}

fn plan_file_inner(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    leases: &Snapshot,
    known: Option<Known>,
    plan: &mut FilePlan,
) -> Result<(), FkError> {
    if fe.edits.is_empty() {
        return Err(FkError::invalid(format!("no edits given for {}", fe.path))
            .with_hint("give at least one edit for each file"));
    }
    if ws.read_only() && !opts.dry_run {
        return Err(FkError::new(
            ErrorCode::ReadOnly,
            format!("cannot edit {}: the workspace is read-only", fe.path),
        )
        .with_hint(
            "run filekit without --read-only to allow writes, or use a dry run to preview",
        ));
    }
    let (target, known) = match known {
        Some(Known {
            target: Some(target),
            bytes,
        }) => (target, Some(bytes)),
        other => (ws.resolve(&fe.path)?, other.map(|k| k.bytes)),
    };
    let display = ws.display(&target);
    plan.report.resolved_path = display.clone();
    plan.target = Some(target.clone());
    if !opts.dry_run {
        leases.check_write(ws, &target, opts.holder.as_deref().or(ws.holder()))?;
    }
    let exists = match &known {
        Some(fb) => Some(fb.meta.clone()),
        None => ws.metadata(&target)?,
    };
    if exists.is_none() && opts.no_create_parents && !missing_parents(ws, &target).is_empty() {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!(
                "cannot create {display}: its directory {} does not exist",
                target.parent().map(|p| ws.display(&p)).unwrap_or_default()
            ),
        )
        .with_hint("create the directory first, or allow parent directories to be created"));
    }
    if let Some(meta) = &exists
        && meta.is_dir
    {
        return Err(FkError::new(
            ErrorCode::IsDirectory,
            format!("{display} is a directory, not a file"),
        )
        .with_hint("give the path of a file; list the directory to see its files"));
    }

    let hashed = !opts.no_hashes || names_version(fe);
    let mut outcomes: Vec<EditOutcome> = fe
        .edits
        .iter()
        .enumerate()
        .map(|(i, e)| outcome(i, e))
        .collect();

    // Snapshot: the text the edits apply to, and what was on disk before.
    let (before, base_doc, mode, first_is_create) = match &fe.edits[0] {
        Edit::Create { content, overwrite } => {
            if content.len() as u64 > MAX_FILE_SIZE {
                let err = content_too_large(&display, content.len());
                outcomes[0].error = Some(err.clone());
                plan.report.edits = outcomes;
                plan.report.edits_failed = 1;
                return Err(err);
            }
            if exists.is_some() && !overwrite {
                let err = FkError::new(
                    ErrorCode::Conflict,
                    format!("{display} already exists; a create does not replace it"),
                )
                .with_hint("edit the file instead")
                .with_details(serde_json::json!({"fact": Fact::AlreadyExists, "path": display}));
                outcomes[0].error = Some(err.clone());
                plan.report.edits = outcomes;
                plan.report.edits_failed = 1;
                return Err(err);
            }
            let before = if exists.is_some() {
                read_before(ws, &target, &display, known, hashed)?
            } else {
                Before {
                    doc: None,
                    hash: None,
                    meta: None,
                }
            };
            // The new content keeps the old file's BOM; line endings are the caller's.
            let bom = before.doc.as_ref().is_some_and(|d| d.bom);
            let doc = TextDoc::from_text(content.clone(), bom);
            outcomes[0].success = true;
            outcomes[0].replacements = 1;
            outcomes[0].line = Some(1);
            let mode = if exists.is_some() {
                WriteMode::Replace
            } else {
                WriteMode::CreateNew
            };
            (before, doc, mode, true)
        }
        _ => {
            if exists.is_none() {
                return Err(ws.read(&target).err().unwrap_or_else(|| {
                    FkError::new(ErrorCode::NotFound, format!("{display} does not exist"))
                }));
            }
            if let (Some(limit), Some(meta)) = (opts.max_file_size, &exists)
                && meta.len > limit
            {
                plan.skip(format!(
                    "larger than the limit of {limit} bytes ({} bytes)",
                    meta.len
                ));
                return Ok(());
            }
            let before = match read_before(ws, &target, &display, known, hashed) {
                Err(e)
                    if opts.skip_non_text
                        && matches!(e.code, ErrorCode::Binary | ErrorCode::Encoding) =>
                {
                    let why = if e.code == ErrorCode::Binary {
                        "binary file"
                    } else {
                        "not UTF-8 text"
                    };
                    plan.skip(why.to_string());
                    return Ok(());
                }
                // A FIFO, a socket or a device where the walk found a file: passed over.
                Err(e) if opts.skip_non_text && e.details.get("not_regular").is_some() => {
                    let what = e.details["not_regular"].as_str().unwrap_or("special file");
                    plan.skip(format!("not a regular file ({what})"));
                    return Ok(());
                }
                other => other?,
            };
            let mut before = before;
            let doc = before.doc.take().expect("a read file is decoded");
            (before, doc, WriteMode::Replace, false)
        }
    };
    plan.report.old_hash = before.hash.clone();
    plan.report.last_modified = before.meta.as_ref().map(|m| rfc3339(m.modified));

    let base = base_doc.text.as_str();
    let base_hash = if first_is_create {
        hash::content_hash(&base_doc.encode(base))
    } else {
        before.hash.clone().unwrap_or_default()
    };
    // The version the edits were made on, when it is not the file as it is now.
    let merge_base = if first_is_create {
        check_create_base(fe, before.hash.as_deref(), &display)?;
        None
    } else {
        find_merge_base(ws, fe, &base_hash, &display)?
    };
    // A tree-wide replace sends one substitution to thousands of files, most of which do not
    // match: settle those with one search, before any index of the text is built.
    if !first_is_create
        && merge_base.is_none()
        && fe
            .edits
            .iter()
            .all(|e| matches!(e, Edit::Substitute(s) if !s.matches(base)))
    {
        for o in &mut outcomes {
            o.success = true;
        }
        plan.report.status = FileStatus::Unchanged;
        plan.report.edits_applied = outcomes.len();
        plan.report.edits = outcomes;
        plan.report.new_hash = before.hash.clone();
        return Ok(());
    }
    let start = usize::from(first_is_create);
    let resolved = match &merge_base {
        None => resolve_edits(
            fe,
            &base_doc,
            &base_hash,
            start,
            opts,
            &display,
            &mut outcomes,
        ),
        Some((from, from_doc)) => {
            // Merge: the edits apply to the version they were made on; the result is carried
            // into the file as it is now.
            let ours = resolve_edits(fe, from_doc, from, start, opts, &display, &mut outcomes)
                .and_then(|ours| Ok(ours.apply(&from_doc.text)?));
            match ours.map(|ours| crate::merge::merge(&from_doc.text, &ours, base)) {
                Err(e) => Err(e),
                Ok(Ok(splices)) => {
                    plan.report.merged = true;
                    plan.report.merged_from = Some(from.clone());
                    splices.map_err(FkError::from)
                }
                Ok(Err(conflicts)) => {
                    for o in outcomes.iter_mut().filter(|o| o.success) {
                        o.success = false;
                        o.error = Some(FkError::new(
                            ErrorCode::Conflict,
                            "not written: the edits of this file meet changes made since their version (see the file's error)",
                        ));
                    }
                    plan.report.edits_failed =
                        outcomes.iter().filter(|o| o.error.is_some()).count();
                    plan.report.edits = outcomes;
                    return Err(conflict_error(&display, from, &base_hash, &conflicts));
                }
            }
        }
    };

    // What the edits would make of the file, refused before it is built when that is more
    // than a file filekit holds whole; and edits filekit got wrong (that do not fit the text
    // they were resolved on), refused before anything is written.
    let refused = match resolved {
        Ok(splices) if splices.result_len() as u64 > MAX_FILE_SIZE => {
            Err(result_too_large(&display, splices.result_len() as u64))
        }
        other => other,
    };
    let final_splices = match refused {
        Ok(splices) => splices,
        Err(err) => {
            for o in outcomes.iter_mut().filter(|o| o.success) {
                o.success = false;
                o.error = Some(err.clone());
            }
            plan.report.edits_failed = outcomes.iter().filter(|o| o.error.is_some()).count();
            plan.report.edits = outcomes;
            return Err(err);
        }
    };

    // Preview.
    let existed = before.meta.is_some();
    // The text before the request: the base, unless the base is a create's new content.
    let old_text: Option<&str> = if first_is_create {
        before.doc.as_ref().map(|d| d.text.as_str())
    } else {
        Some(base)
    };
    // Most files of a tree-wide request have nothing to change: no new text, diff or bytes.
    let untouched = !first_is_create && final_splices.is_empty();
    // A lean dry run (a tree-wide preview) needs the new text only for its hash, which the
    // splices give without building it.
    let hash_only = opts.dry_run && opts.lean && !first_is_create;
    let new_text = if untouched || hash_only {
        String::new()
    } else {
        final_splices.apply(base)?
    };
    // Diff headers name the file as `git diff` would: relative to the first root, so that
    // `patch -p1` in that root applies it; files of other roots keep their absolute path.
    let diff_path = if target.root_index() == 0 {
        target.relative().display().to_string()
    } else {
        display.trim_start_matches('/').to_string()
    };
    let (old_name, new_name) = if existed {
        (format!("a/{diff_path}"), format!("b/{diff_path}"))
    } else {
        ("/dev/null".to_string(), format!("b/{diff_path}"))
    };
    let (diff_text, stats) = match old_text {
        _ if untouched || opts.no_diffs => (String::new(), diff::DiffStats::default()),
        Some(old) if first_is_create => diff::unified_texts(old, &new_text, &old_name, &new_name),
        Some(_) => diff::unified(base, &final_splices, &old_name, &new_name),
        None => diff::unified_texts("", &new_text, &old_name, &new_name),
    };
    let applied = outcomes.iter().filter(|o| o.success).count();
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let changed = !untouched
        && if hash_only {
            final_splices
                .iter()
                .any(|s| base[s.start..s.end] != *s.text)
        } else {
            old_text != Some(new_text.as_str())
        };
    plan.report.status = if applied == 0 && failed > 0 {
        FileStatus::Failed
    } else if !existed {
        FileStatus::Created
    } else if changed {
        FileStatus::Modified
    } else {
        FileStatus::Unchanged
    };
    plan.report.edits_applied = applied;
    plan.report.edits_failed = failed;
    plan.report.edits = outcomes;
    plan.report.diff = diff_text;
    plan.report.lines_added = stats.added;
    plan.report.lines_removed = stats.removed;
    if !changed || plan.report.status == FileStatus::Failed {
        plan.report.new_hash = before.hash.clone();
        // Nothing to write: keep nothing of the file (a tree-wide request reads thousands).
        if existed {
            plan.report.new_text = old_text.map(str::to_string).filter(|_| !untouched);
        }
        return Ok(());
    }
    if hash_only {
        plan.report.new_hash = hashed.then(|| spliced_hash(base_doc.bom, base, &final_splices));
        return Ok(());
    }
    // Without a BOM the file's bytes are its text: hashed and written without a copy.
    let mut new_text = new_text;
    let bom = base_doc.bom;
    let bom_bytes = bom.then(|| base_doc.encode(&new_text));
    plan.report.new_hash =
        hashed.then(|| hash::content_hash(bom_bytes.as_deref().unwrap_or(new_text.as_bytes())));
    if !opts.lean {
        plan.report.old_text = old_text.map(str::to_string);
    }
    // The history keeps what the file was.
    if ws.history().is_some() && !opts.dry_run {
        // The text as read is those bytes (with its BOM put back).
        let old = if first_is_create {
            before.doc.map(TextDoc::into_bytes)
        } else {
            Some(base_doc.into_bytes())
        };
        plan.old_content = old
            .as_deref()
            .map(|old| StoredContent::with_content_hash(old, before.hash.clone()));
        plan.old_mode = before.meta.as_ref().map(|m| m.mode);
    }
    plan.old_meta = before.meta;
    // A dry run writes nothing: its bytes were only needed for the hash.
    if applied > 0 && !opts.dry_run {
        let bytes = match bom_bytes {
            Some(b) => b,
            None if opts.lean => std::mem::take(&mut new_text).into_bytes(),
            None => new_text.as_bytes().to_vec(),
        };
        if ws.history().is_some() {
            let known = plan.report.new_hash.clone();
            plan.new_content = Some(if first_is_create || plan.old_content.is_none() {
                StoredContent::with_content_hash(&bytes, known)
            } else {
                // The old content is stored as the text it was (after its BOM): these
                // splices of it make the new one.
                let shift = if bom { crate::text::UTF8_BOM.len() } else { 0 };
                StoredContent::spliced(&bytes, known, &final_splices, shift)
            });
        }
        plan.write = Some((bytes, mode));
    }
    if !opts.lean {
        plan.report.new_text = Some(new_text);
    }
    Ok(())
}

/// The content hash of the file `base` (after a BOM if `bom`) becomes with `splices` applied.
fn spliced_hash(bom: bool, base: &str, splices: &Splices) -> String {
    if !bom {
        // The file's bytes are the text: its hash is the one the splices computed.
        return splices.result_hash();
    }
    let mut h = hash::StreamingHash::new();
    h.update(crate::text::UTF8_BOM);
    let mut at = 0;
    for s in splices {
        h.update(&base.as_bytes()[at..s.start]);
        h.update(s.text.as_bytes());
        at = s.end;
    }
    h.update(&base.as_bytes()[at..]);
    h.finish()
}

/// The splices of a file's only edit, a substitution (every file of a tree-wide replace).
/// Its matches are sorted and disjoint by construction, so they need none of the overlap
/// checks and sequential text that mixed edits do, nor an index of every line: on a frequent
/// pattern those were most of the work.
fn lone_substitution(
    substitution: &crate::sed::Substitution,
    base_doc: &TextDoc,
    display: &str,
    outcome: &mut EditOutcome,
) -> Result<Splices, FkError> {
    let base = base_doc.text.as_str();
    // An empty match replaced by nothing changes nothing: `Splices` drops those.
    let found = match substitution.splices_within(base, MAX_FILE_SIZE, Some(base_doc.eol)) {
        Ok(found) => found?,
        Err(len) => {
            outcome.error = Some(result_too_large(display, len));
            return Ok(Splices::none(base));
        }
    };
    outcome.success = true;
    outcome.replacements = found.len();
    outcome.line = found.iter().next().map(|s| {
        let breaks = memchr::memchr_iter(b'\n', &base.as_bytes()[..s.start]).count();
        // The end of a text that ends with a line break is on its last line, as
        // `LineIndex::line_of` has it.
        if s.start == base.len() && breaks > 0 && base.ends_with('\n') {
            breaks
        } else {
            breaks + 1
        }
    });
    Ok(found)
}

/// Resolves the edits of one file against `base_doc` (phases 1 to 3): the splices of its
/// text, and each edit's outcome in `outcomes`. An error is filekit's own (splices it
/// computed that do not fit): the edits' own failures are in `outcomes`.
#[allow(clippy::too_many_arguments)]
fn resolve_edits(
    fe: &FileEdits,
    base_doc: &TextDoc,
    base_hash: &str,
    start: usize,
    opts: &EditOptions,
    display: &str,
    outcomes: &mut [EditOutcome],
) -> Result<Splices, FkError> {
    let base = base_doc.text.as_str();
    if start == 0
        && let [Edit::Substitute(substitution)] = fe.edits.as_slice()
    {
        return lone_substitution(substitution, base_doc, display, &mut outcomes[0]);
    }
    let index = LineIndex::new(base);
    let target_lines = LineTarget {
        text: base,
        index: &index,
        eol: base_doc.eol,
        file_hash: base_hash,
    };
    let mut stopped = false;

    // Resolve, phase 1: line edits, all against the text as read.
    let mut splices = SpliceSet::default();
    for (i, edit) in fe.edits.iter().enumerate().skip(start) {
        if let Edit::Ranges {
            ranges,
            content_hash,
        } = edit
        {
            if stopped {
                outcomes[i].skipped = true;
                continue;
            }
            let result = check_ranges(base, base_hash, ranges, content_hash).and_then(|found| {
                let first_line = found.iter().next().map(|s| index.line_of(s.start));
                splices
                    .add_all(i, "replace_ranges".into(), found.into_iter().collect())
                    .map(|()| first_line)
            });
            match result {
                Ok(first_line) => {
                    outcomes[i].success = true;
                    outcomes[i].replacements = ranges.len();
                    outcomes[i].line = first_line;
                }
                Err(e) => {
                    outcomes[i].error = Some(e);
                    stopped = opts.stop_on_error;
                }
            }
            continue;
        }
        if let Edit::Substitute(substitution) = edit {
            if stopped {
                outcomes[i].skipped = true;
                continue;
            }
            // As found, empty matches included: the splice set checks them against the
            // other edits before they become splices of the text.
            let found =
                match substitution.replacements_within(base, MAX_FILE_SIZE, Some(base_doc.eol)) {
                    Ok(found) => found,
                    Err(len) => {
                        outcomes[i].error = Some(result_too_large(display, len));
                        stopped = opts.stop_on_error;
                        continue;
                    }
                };
            let count = found.len();
            let first_line = found.first().map(|s| index.line_of(s.start));
            let what = format!("substitution {}", substitution.expression());
            match splices.add_all(i, what, found) {
                Ok(()) => {
                    outcomes[i].success = true;
                    outcomes[i].replacements = count;
                    outcomes[i].line = first_line;
                }
                Err(e) => {
                    outcomes[i].error = Some(e);
                    stopped = opts.stop_on_error;
                }
            }
            continue;
        }
        let resolved = match edit {
            Edit::ReplaceLines {
                start,
                end,
                new,
                content_hash,
            } => {
                let what = match end {
                    Some(e) => format!("lines {start}-{e}"),
                    None => format!("lines {start}-end"),
                };
                Some((
                    what,
                    target_lines.replace_lines(*start, *end, new, content_hash.as_deref()),
                    *start,
                ))
            }
            Edit::Insert {
                after,
                text,
                content_hash,
            } => Some((
                format!("insert after line {after}"),
                target_lines.insert_after(*after, text, content_hash.as_deref()),
                after + 1,
            )),
            Edit::Create { .. } => Some((
                "create".into(),
                Err(
                    FkError::invalid("create must be the first edit of its file")
                        .with_hint("put create first, followed by edits of the new content"),
                ),
                0,
            )),
            _ => None,
        };
        let Some((what, result, line)) = resolved else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        match result.and_then(|s| splices.add(i, what, s)) {
            Ok(()) => {
                outcomes[i].success = true;
                outcomes[i].replacements = 1;
                outcomes[i].line = Some(resolve_line(line, index.len()));
            }
            Err(e) => {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error;
            }
        }
    }
    let initial = splices.into_splices(base)?;

    // Resolve, phase 2: text edits in order, each on the result of the one before.
    let eol = base_doc.eol;
    let mut pattern_ids: HashMap<String, usize> = HashMap::new();
    let mut patterns: Vec<String> = Vec::new();
    let mut edit_pattern: Vec<Option<usize>> = vec![None; fe.edits.len()];
    for (i, edit) in fe.edits.iter().enumerate() {
        if let Edit::ReplaceText { old, .. } = edit
            && !old.is_empty()
        {
            let p = eol.convert(old);
            let id = *pattern_ids.entry(p.clone()).or_insert_with(|| {
                patterns.push(p);
                patterns.len() - 1
            });
            edit_pattern[i] = Some(id);
        }
    }
    // The longest pattern of the edits after each one: how much context a new block needs.
    let mut longest_after = vec![0usize; fe.edits.len() + 1];
    for i in (0..fe.edits.len()).rev() {
        let here = edit_pattern[i].map_or(0, |p| patterns[p].len());
        longest_after[i] = longest_after[i + 1].max(here);
    }
    let len = initial.result_len() as u64;
    let mut seq = Sequential::new(base, initial, patterns);
    let mut scope = TextEditScope {
        opts,
        display: display.to_string(),
        len,
        near_miss: nearmiss::Work::new(opts.near_miss_budget.unwrap_or(NEAR_MISS_WORK)),
    };
    for (i, edit) in fe.edits.iter().enumerate() {
        let Edit::ReplaceText {
            old, new, expected, ..
        } = edit
        else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        seq.set_context(longest_after[i + 1]);
        match apply_text_edit(
            &mut seq,
            edit_pattern[i],
            old,
            &eol.convert(new),
            *expected,
            &mut scope,
        ) {
            Ok(done) => {
                outcomes[i].success = true;
                outcomes[i].replacements = done.count;
                outcomes[i].line = Some(done.line);
                outcomes[i].fuzzy_similarity = done.fuzzy;
                outcomes[i].diff = done.diff;
            }
            Err(e) => {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error;
            }
        }
    }

    // Resolve, phase 3: appends.
    for (i, edit) in fe.edits.iter().enumerate() {
        let Edit::Append { text } = edit else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        let lines = crate::text::split_new_lines(text);
        if !lines.is_empty() {
            let mut add = String::new();
            let ends_nl = seq.ends_with_newline();
            let joined = lines.join(eol.as_str());
            if ends_nl {
                add.push_str(&joined);
                add.push_str(eol.as_str());
            } else {
                add.push_str(eol.as_str());
                add.push_str(&joined);
            }
            if let Err(e) = scope.grow(1, 0, add.len()) {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error;
                continue;
            }
            seq.push_end(&add);
        }
        outcomes[i].success = true;
        outcomes[i].replacements = 1;
    }

    Ok(seq.into_splices()?)
}

fn resolve_line(n: i64, count: usize) -> usize {
    if n < 0 {
        (count as i64 + 1 + n).max(1) as usize
    } else {
        n.max(1) as usize
    }
}

/// A create or write of `len` bytes, over [`MAX_FILE_SIZE`].
fn content_too_large(display: &str, len: usize) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        len as u64,
        MAX_FILE_SIZE,
        format!(
            "the new content of {display} is {len} bytes, larger than the {MAX_FILE_SIZE} bytes filekit writes whole"
        ),
    )
    .with_hint("write a smaller file, for example by splitting the content across several files")
}

/// Edits that would make a file of `len` bytes, over [`MAX_FILE_SIZE`].
fn result_too_large(display: &str, len: u64) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        len,
        MAX_FILE_SIZE,
        format!(
            "the edits would make {display} {len} bytes long, larger than the {MAX_FILE_SIZE} bytes filekit writes whole"
        ),
    )
    .with_hint("replace fewer matches, or with shorter text, in one request")
}

struct TextEditDone {
    count: usize,
    line: usize,
    fuzzy: Option<f64>,
    diff: Option<String>,
}

/// What the text edits of one file share: the request's options, the file's name for
/// messages, and what is left of its near-miss budget (comparisons, [`NEAR_MISS_WORK`] unless
/// the request sets its own): a near miss costs a few scans of the whole text and diffs of the
/// search text with the best candidates; without a bound, thousands of failing edits, or one
/// search text of thousands of lines, would take minutes. Within it, every failure of a
/// typical request gets its near miss; past it, failures say the search gave up and why.
struct TextEditScope<'o> {
    opts: &'o EditOptions,
    display: String,
    /// The length of the text as the edits so far made it: an edit that would make it larger
    /// than [`MAX_FILE_SIZE`] is refused before it is made.
    len: u64,
    near_miss: nearmiss::Work,
}

impl TextEditScope<'_> {
    /// Accounts for `count` replacements of `old_len` bytes by `new_len` bytes each, unless
    /// that makes the text larger than [`MAX_FILE_SIZE`].
    fn grow(&mut self, count: usize, old_len: usize, new_len: usize) -> Result<(), FkError> {
        let len = self.len as u128 + count as u128 * new_len as u128;
        let len = len.saturating_sub(count as u128 * old_len as u128);
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        if len > MAX_FILE_SIZE {
            return Err(result_too_large(&self.display, len));
        }
        self.len = len;
        Ok(())
    }
}

fn apply_text_edit(
    seq: &mut Sequential,
    pattern: Option<usize>,
    old: &str,
    new: &str,
    expected: Expected,
    scope: &mut TextEditScope,
) -> Result<TextEditDone, FkError> {
    let opts = scope.opts;
    let display = scope.display.as_str();
    let Some(pi) = pattern else {
        return Err(
            FkError::invalid("the search text is empty: there is nothing to search for")
                .with_hint(
                    "give the exact text to replace, with enough surrounding lines to be unique",
                )
                .with_details(serde_json::json!({"fact": Fact::SearchTextEmpty})),
        );
    };
    if expected == Expected::Exactly(0) {
        return Err(FkError::invalid("the expected count of matches is 0")
            .with_hint("expect at least 1 match, or leave the count out for exactly one")
            .with_details(serde_json::json!({"fact": Fact::ExpectedCountZero})));
    }
    let occs = seq.find(pi);
    let wanted = seq.patterns()[pi].clone();
    let count_ok = match expected {
        Expected::All => !occs.is_empty(),
        Expected::Exactly(n) => occs.len() == n,
    };
    if count_ok {
        scope.grow(occs.len(), wanted.len(), new.len())?;
        let line = seq.line_of(occs[0].start);
        let diff = opts.per_edit_diffs.then(|| {
            let (before, after) = seq.line_context(&occs[0], 4096);
            edit_hunk(line, &before, &wanted, new, &after)
        });
        seq.replace(&occs, new);
        return Ok(TextEditDone {
            count: occs.len(),
            line,
            fuzzy: None,
            diff,
        });
    }
    if !occs.is_empty() {
        let lines: Vec<usize> = occs.iter().take(50).map(|o| seq.line_of(o.start)).collect();
        let want = match expected {
            Expected::Exactly(n) => n,
            Expected::All => 1,
        };
        let list = lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(FkError::new(
            ErrorCode::Ambiguous,
            format!(
                "the search text matches {} times in {display} (at lines {list}{}), but {want} {} expected",
                occs.len(),
                if occs.len() > lines.len() { ", ..." } else { "" },
                if want == 1 { "match was" } else { "matches were" },
            ),
        )
        .with_hint(if want == 1 {
            format!("add surrounding lines to the search text so that it matches once, or expect all {} matches", occs.len())
        } else {
            format!("expect {} matches, or make the search text more specific", occs.len())
        })
        .with_details(serde_json::json!({
            "fact": Fact::MatchCount,
            "count": occs.len(),
            "lines": lines,
            "expected": want,
        })));
    }
    // Not found: the closest near miss, applied only if the caller asked for fuzzy matching.
    let gave_up = |why: &str, hint: &str, work: &nearmiss::Work| {
        FkError::new(
            ErrorCode::NotFound,
            format!(
                "the search text was not found in {display} ({why}{})",
                if opts.fuzzy_threshold.is_some() {
                    ", so fuzzy matching was not tried either"
                } else {
                    ""
                }
            ),
        )
        .with_hint(hint)
        .with_details(serde_json::json!({
            "fact": Fact::SearchTextNotFound,
            "near_miss": null,
            "near_miss_skipped": "budget",
            "limit": LimitFacts::new(Limit::SearchWork, work.spent(), work.max()),
            "wanted": old,
        }))
    };
    // Building the current text costs a pass over it.
    if scope.near_miss.exhausted() || scope.near_miss.spend(seq.base_len() as u64).is_err() {
        return Err(gave_up(
            "no near miss searched: earlier failures of this request used up the near-miss search",
            "fix the earlier failed edits first (their errors show the near misses), then send this one again",
            &scope.near_miss,
        ));
    }
    let (text, map) = seq.current_with_map();
    let Ok(near) = nearmiss::closest_within(&text, &wanted, &mut scope.near_miss) else {
        return Err(gave_up(
            &format!(
                "the search for a near miss gave up: it would have taken more than {} comparisons",
                scope.near_miss.max()
            ),
            "read the lines you meant to change again and copy them exactly; a shorter search text (a few lines that are unique in the file) is checked faster",
            &scope.near_miss,
        ));
    };
    if let (Some(threshold), Some(nm), Expected::Exactly(1)) =
        (opts.fuzzy_threshold, &near, expected)
        && nm.similarity >= threshold
        && nm.end > nm.start
    {
        scope.grow(1, nm.end - nm.start, new.len())?;
        let occ = Occurrence {
            start: map.pos_at(nm.start),
            last: map.pos_at(nm.end - 1),
        };
        let line = seq.line_of(occ.start);
        let diff = opts.per_edit_diffs.then(|| {
            let (before, after) = seq.line_context(&occ, 4096);
            edit_hunk(line, &before, &nm.found, new, &after)
        });
        seq.replace(&[occ], new);
        return Ok(TextEditDone {
            count: 1,
            line,
            fuzzy: Some(nm.similarity),
            diff,
        });
    }
    drop(map);
    let mut err = FkError::new(
        ErrorCode::NotFound,
        format!("the search text was not found in {display}"),
    );
    match near {
        Some(nm) => {
            let what = match nm.difference {
                Difference::LineEndings => "differs only in line endings".to_string(),
                Difference::Whitespace => "differs only in white space".to_string(),
                Difference::Text => format!("similarity {:.2}", nm.similarity),
            };
            let lines = if nm.end_line > nm.line {
                format!("lines {}-{}", nm.line, nm.end_line)
            } else {
                format!("line {}", nm.line)
            };
            err.message.push_str(&format!(
                "; the closest near miss is at {lines} ({what}); wanted vs found: {}",
                shorten(&nm.diff, 600)
            ));
            err = err
                .with_hint(format!(
                    "copy the text exactly as the file has it at {lines}: {:?}, or read those lines again",
                    shorten(&nm.found, 300)
                ))
                .with_details(serde_json::json!({
                    "fact": Fact::SearchTextNotFound,
                    "near_miss": nm,
                    "wanted": old,
                }));
            if let Some(t) = opts.fuzzy_threshold {
                err.message
                    .push_str(&format!(" (below the fuzzy threshold {t})"));
            }
        }
        None => {
            err = err
                .with_hint("nothing similar is in the file: read it again and copy the text exactly, including indentation")
                .with_details(serde_json::json!({
                    "fact": Fact::SearchTextNotFound,
                    "near_miss": null,
                    "wanted": old,
                }));
        }
    }
    Err(err)
}

fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

/// A unified hunk for one text edit: the whole lines it stood in, before and after.
fn edit_hunk(line: usize, before: &str, old: &str, new: &str, after: &str) -> String {
    let old_text = format!("{before}{old}{after}");
    let new_text = format!("{before}{new}{after}");
    let old_lines: Vec<&str> = old_text.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new_text.split_inclusive('\n').collect();
    let mut out = format!(
        "@@ -{line},{} +{line},{} @@\n",
        old_lines.len(),
        new_lines.len()
    );
    for l in old_lines {
        out.push('-');
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    }
    for l in new_lines {
        out.push('+');
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Requests that write more files than this are committed with [`Durability::Batched`]: the
/// files are flushed while they are staged, several at once, and each directory once after
/// the renames, instead of an fsync of every file and its directory in turn (an fsync costs
/// milliseconds; a tree-wide replace writes thousands).
const BATCH_SYNC_FILES: usize = 8;

/// The largest commit whose versions go to the version store when there is no history.
const VERSIONS_WITHOUT_HISTORY: usize = 256;

/// How a commit of `files` files reaches the disk.
fn durability(opts: &EditOptions, files: usize) -> Durability {
    if opts.no_fsync {
        Durability::None
    } else if files > BATCH_SYNC_FILES {
        Durability::Batched
    } else {
        Durability::PerFile
    }
}

/// The write of a planned file (which has a target and bytes).
fn write_op<'a>(plan: &'a FilePlan, opts: &EditOptions) -> Op<'a> {
    let (bytes, mode) = plan.write.as_ref().expect("a planned write");
    let mode = match mode {
        WriteMode::Replace if opts.in_place => WriteMode::InPlace,
        other => *other,
    };
    Op::Write {
        path: plan.target.clone().expect("a planned write has its target"),
        bytes,
        mode,
        perm: None,
        read_as: plan.old_meta.clone(),
    }
}

/// Whether each file of a request with `opts` may be written as soon as it is planned
/// ([`write_now`]) rather than all of them once every file is planned: when its files stand
/// alone (not atomic, not a dry run) and are not flushed. A tree-wide replace then holds no
/// file's new bytes beyond its own write. Flushed writes wait for the batch: its flushes run
/// on many threads at once (a flush waits for the device) and its directories are flushed
/// once each at the end, where the walk's few threads would flush file after file.
pub(crate) fn writes_as_planned(opts: &EditOptions) -> bool {
    !opts.dry_run && !opts.atomic && opts.no_fsync
}

/// Writes `plan` now, on the thread that planned it, through the commit step, and gives
/// back the bytes it wrote (the plan keeps none); what it changed is recorded with the rest
/// of its request ([`finish`]). Only for requests that [`writes_as_planned`] allows.
pub(crate) fn write_now(
    ws: &Workspace,
    plan: &mut FilePlan,
    opts: &EditOptions,
) -> Option<Vec<u8>> {
    debug_assert!(writes_as_planned(opts));
    plan.target.as_ref()?;
    plan.write.as_ref()?;
    let outcome = transaction::run(ws, &[write_op(plan, opts)], false, durability(opts, 1));
    let result = outcome
        .results
        .into_iter()
        .next()
        .expect("one result per op");
    settle(ws, plan, result, &[]);
    plan.write.take().map(|(bytes, _)| bytes)
}

/// Puts the commit step's result for `plan` in its report and, with a history, prepares
/// its change for the history (`made`: directories the commit made).
fn settle(
    ws: &Workspace,
    plan: &mut FilePlan,
    result: Result<Option<FileMeta>, FkError>,
    made: &[&WsPath],
) {
    let meta = match result {
        Ok(meta) => meta,
        Err(e) => {
            plan.stale_at_commit = e.code == ErrorCode::Stale;
            plan.fail(e);
            return;
        }
    };
    plan.report.written = true;
    if let Some(meta) = &meta {
        plan.report.last_modified = Some(rfc3339(meta.modified));
    }
    let target = plan.target.as_ref().expect("written");
    plan.report.created_dirs = made
        .iter()
        .filter(|d| target.is_within(d))
        .map(|d| ws.display(d))
        .collect();
    if ws.history().is_some() {
        let after_mode = meta.as_ref().map_or(0o644, |m| m.mode);
        let new_content = match plan.new_content.take() {
            Some(c) => c,
            None => StoredContent::of(&plan.write.as_ref().expect("written").0),
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
/// records in the history what changed: those and the files written as they were planned.
fn commit(ws: &Workspace, plans: &mut [FilePlan], opts: &EditOptions, write: bool) -> Option<i64> {
    let writing: Vec<usize> = (0..plans.len())
        .filter(|&i| write && plans[i].target.is_some() && plans[i].write.is_some())
        .collect();
    let mut dirs: Vec<WsPath> = Vec::new();
    for &i in &writing {
        let target = plans[i].target.as_ref().expect("filtered");
        // A file that must exist has its directory (if it vanished, the write says so): only
        // new files look for directories to make, not every file of a tree-wide replace.
        if matches!(
            plans[i].write,
            Some((_, WriteMode::Replace | WriteMode::InPlace))
        ) {
            continue;
        }
        for d in missing_parents(ws, target) {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs.sort_by_key(|d| d.relative().components().count());
    let mut rolled_back = false;
    let mut changes: Vec<PreparedChange> = Vec::new();
    if !writing.is_empty() {
        let mut ops: Vec<Op<'_>> = dirs
            .iter()
            .map(|d| Op::MakeDir {
                path: d.clone(),
                perm: None,
            })
            .collect();
        ops.extend(writing.iter().map(|&i| write_op(&plans[i], opts)));
        let outcome = transaction::run(ws, &ops, opts.atomic, durability(opts, writing.len()));
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
        let keep_written = ws.history().is_none() || writing.len() <= BATCH_SYNC_FILES;
        for (&i, result) in writing.iter().zip(write_results) {
            settle(ws, &mut plans[i], result, &made);
            if !keep_written {
                plans[i].write = None;
            }
        }
    }
    let made_dirs = changes.len();
    // In the request's order, with those written as they were planned.
    changes.extend(plans.iter_mut().filter_map(|p| p.change.take()));
    let mut entry = None;
    if !rolled_back && changes.len() > made_dirs {
        let tool = opts.tool.as_deref().unwrap_or("edit");
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
        Some(_) => writing.len() <= BATCH_SYNC_FILES,
        None => writing.len() <= VERSIONS_WITHOUT_HISTORY,
    };
    if let Some(store) = ws.versions().filter(|_| remember && !writing.is_empty()) {
        let recorded = entry.is_some();
        let versions: Vec<(&[u8], Option<&str>)> = writing
            .iter()
            .map(|&i| &plans[i])
            .filter(|p| p.report.written)
            .filter_map(|p| Some((p.write.as_ref()?.0.as_slice(), p.report.new_hash.as_deref())))
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

/// The directories above `target` that do not exist yet, outermost first.
pub(crate) fn missing_parents(ws: &Workspace, target: &WsPath) -> Vec<WsPath> {
    let mut out = Vec::new();
    let mut cur = target.parent();
    while let Some(dir) = cur {
        if dir.is_root() || ws.metadata(&dir).ok().flatten().is_some() {
            break;
        }
        cur = dir.parent();
        out.push(dir);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_of_spliced_text_is_that_of_the_text_built() {
        let base = "one two\nthree two\n";
        let splices = vec![Splice::new(4, 7, "2"), Splice::new(14, 17, "deux")];
        let splices = Splices::new(base, splices).unwrap();
        let built = splices.apply(base).unwrap();
        assert_eq!(built, "one 2\nthree deux\n");
        assert_eq!(
            spliced_hash(false, base, &splices),
            hash::content_hash(built.as_bytes())
        );
        let with_bom = TextDoc::from_text(built.clone(), true).encode(&built);
        assert_eq!(
            spliced_hash(true, base, &splices),
            hash::content_hash(&with_bom)
        );
        assert_eq!(
            spliced_hash(false, base, &Splices::none(base)),
            hash::content_hash(base.as_bytes())
        );
    }
}
