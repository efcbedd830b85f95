//! Planning one file: its steps in order. The file as it is (snapshot), the edits as
//! splices of its text (resolve, merged into the file when they name an older version), what
//! that makes of it (preview), and what the commit step will need: the bytes to write and
//! the before and after for the history.

use super::preview::spliced_hash;
use super::report::outcome;
use super::resolve::{conflict_error, content_too_large, resolve_edits, result_too_large};
use super::snapshot::{Before, check_create_base, find_merge_base, read_before};
use super::{FilePlan, Known, PlannedWrite};
use crate::diff;
use crate::edit::{Edit, EditOptions, EditOutcome, FileEdits, FileOutcome};
use crate::error::{ErrorCode, Fact, FkError};
use crate::hash;
use crate::history::StoredContent;
use crate::leases::Snapshot;
use crate::text::TextDoc;
use crate::workspace::{FileBytes, FileMeta, Workspace, WriteMode, WsPath, rfc3339};
use filekit_splices::Splices;

pub(super) fn plan_file(
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
pub(super) fn names_version(fe: &FileEdits) -> bool {
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

/// Marks `plan` skipped when `err` says its file is not text (binary, not UTF-8, not a
/// regular file where a walk found one), for a request that skips such files; whether it
/// did.
fn skipped_as_not_text(err: &FkError, plan: &mut FilePlan) -> bool {
    let why = match err.code {
        ErrorCode::Binary => "binary file".to_string(),
        ErrorCode::Encoding => "not UTF-8 text".to_string(),
        // A FIFO, a socket or a device where the walk found a file: passed over.
        _ => match err.details.get("not_regular") {
            Some(what) => format!(
                "not a regular file ({})",
                what.as_str().unwrap_or("special file")
            ),
            None => return false,
        },
    };
    plan.skip(why);
    true
}

pub(super) fn plan_file_inner(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    leases: &Snapshot,
    known: Option<Known>,
    plan: &mut FilePlan,
) -> Result<(), FkError> {
    let mut file = check_target(ws, fe, opts, leases, known, plan)?;
    let hashed = !opts.no_hashes() || names_version(fe);
    // A file over the workspace's bound (or the request's) is streamed, never held whole.
    let whole = ws
        .max_file_size()
        .min(opts.stream_above().unwrap_or(u64::MAX));
    if file.known.is_none()
        && let Some(meta) = file.exists.as_ref().filter(|m| m.len > whole)
    {
        return plan_as_stream(ws, fe, opts, &file, meta.len, hashed, plan);
    }
    let mut outcomes: Vec<EditOutcome> = fe
        .edits
        .iter()
        .enumerate()
        .map(|(i, e)| outcome(i, e))
        .collect();

    let Some(Base {
        before,
        doc: base_doc,
        mode,
        first_is_create,
    }) = snapshot(ws, fe, opts, &mut file, hashed, &mut outcomes, plan)?
    else {
        return Ok(());
    };
    let Target {
        target, display, ..
    } = file;
    plan.report.old_hash = before.hash.clone();
    plan.report.encoding = base_doc.encoding();
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
        plan.report.outcome = FileOutcome::Unchanged;
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
            ws.max_file_size(),
            &display,
            &mut outcomes,
        ),
        Some(from) => merged_splices(
            fe,
            opts,
            ws.max_file_size(),
            from,
            base,
            &base_hash,
            start,
            &display,
            &mut outcomes,
            plan,
        ),
    };
    let (final_splices, encoded_bytes) = match writable_splices(resolved, ws, &base_doc, &display) {
        Ok(checked) => checked,
        Err(err) => {
            fail_edits(&err, outcomes, plan);
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
    let hash_only = opts.dry_run() && opts.lean() && !first_is_create;
    let new_text = if untouched || hash_only {
        String::new()
    } else {
        final_splices.apply(base)?
    };
    let (old_name, new_name) = diff_names(&target, &display, existed);
    let (diff_text, stats) = match old_text {
        _ if untouched || opts.no_diffs() => (String::new(), diff::DiffStats::default()),
        Some(old) if first_is_create => diff::unified_texts(old, &new_text, &old_name, &new_name),
        Some(_) => diff::unified(base, &final_splices, &old_name, &new_name),
        None => diff::unified_texts("", &new_text, &old_name, &new_name),
    };
    let changed = !untouched
        && if hash_only {
            final_splices
                .iter()
                .any(|s| base[s.start..s.end] != *s.text)
        } else {
            old_text != Some(new_text.as_str())
        };
    let (applied, failed_all) = report_preview(plan, outcomes, diff_text, stats, existed, changed);
    if !changed || failed_all {
        plan.report.new_hash = before.hash.clone();
        // Nothing to write: keep nothing of the file (a tree-wide request reads thousands).
        if existed {
            plan.report.new_text = old_text.map(str::to_string).filter(|_| !untouched);
        }
        return Ok(());
    }
    if hash_only {
        plan.report.new_hash = hashed.then(|| match &encoded_bytes {
            Some(bytes) => hash::content_hash(bytes),
            None => spliced_hash(base_doc.bom, base, &final_splices),
        });
        return Ok(());
    }
    // Without a BOM the file's bytes are its text: hashed and written without a copy.
    let mut new_text = new_text;
    let bom = base_doc.bom;
    let encoded = encoded_bytes.is_some();
    let bom_bytes = encoded_bytes.or_else(|| bom.then(|| base_doc.encode(&new_text)));
    plan.report.new_hash =
        hashed.then(|| hash::content_hash(bom_bytes.as_deref().unwrap_or(new_text.as_bytes())));
    if !opts.lean() {
        plan.report.old_text = old_text.map(str::to_string);
    }
    keep_what_was(ws, opts, first_is_create, before, base_doc, plan);
    // A dry run writes nothing: its bytes were only needed for the hash.
    if applied > 0 && !opts.dry_run() {
        let bytes = match bom_bytes {
            Some(b) => b,
            None if opts.lean() => std::mem::take(&mut new_text).into_bytes(),
            None => new_text.as_bytes().to_vec(),
        };
        if ws.history().is_some() {
            let known = plan.report.new_hash.clone();
            // A file in another encoding is stored whole: the splices are of its text.
            plan.new_content = Some(
                if first_is_create || plan.old_content.is_none() || encoded {
                    StoredContent::with_content_hash(&bytes, known)
                } else {
                    // The old content is stored as the text it was (after its BOM): these
                    // splices of it make the new one.
                    let shift = if bom { crate::text::UTF8_BOM.len() } else { 0 };
                    StoredContent::spliced(&bytes, known, &final_splices, shift)
                },
            );
        }
        plan.write = Some(PlannedWrite {
            target: target.clone(),
            bytes,
            spliced: None,
            mode,
        });
    }
    if !opts.lean() {
        plan.report.new_text = Some(new_text);
    }
    Ok(())
}

/// The file a request's edits go to, checked before anything is planned for it.
struct Target {
    target: WsPath,
    display: String,
    /// Its bytes, when the caller read them already.
    known: Option<FileBytes>,
    /// Its metadata; `None` when nothing is there.
    exists: Option<FileMeta>,
}

/// Resolves the file `fe` edits and checks that it may be written (read-only session, lease,
/// write policy), that its directory is there when the request makes none, and that it is
/// not a directory.
fn check_target(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    leases: &Snapshot,
    known: Option<Known>,
    plan: &mut FilePlan,
) -> Result<Target, FkError> {
    if fe.edits.is_empty() {
        return Err(FkError::invalid(format!("no edits given for {}", fe.path))
            .with_hint("give at least one edit for each file"));
    }
    if ws.read_only() && !opts.dry_run() {
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
    if !opts.dry_run() {
        leases.check_write(ws, &target, opts.holder().or(ws.holder()))?;
    }
    // The write policy before anything is planned for the file (the folders it would make
    // included), so that a dry run says what a real run would refuse.
    if !ws.read_only() {
        ws.check_writable(&target)?;
    }
    let exists = match &known {
        Some(fb) => Some(fb.meta.clone()),
        None => ws.metadata(&target)?,
    };
    if exists.is_none() && opts.no_create_parents() && !ws.missing_parents(&target).is_empty() {
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
    Ok(Target {
        target,
        display,
        known,
        exists,
    })
}

/// Plans a file too large to hold whole (`len` bytes) as a stream, unless the request's size
/// limit skips it.
fn plan_as_stream(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    file: &Target,
    len: u64,
    hashed: bool,
    plan: &mut FilePlan,
) -> Result<(), FkError> {
    let create = matches!(fe.edits[0], Edit::Create { .. });
    if let Some(limit) = opts.max_file_size().filter(|l| !create && len > *l) {
        plan.skip(format!(
            "larger than the limit of {limit} bytes ({len} bytes)"
        ));
        return Ok(());
    }
    let (target, display) = (&file.target, &file.display);
    match super::streamed::plan_streamed(ws, fe, opts, target, display, hashed, plan) {
        Err(e) if opts.skip_non_text() && skipped_as_not_text(&e, plan) => Ok(()),
        other => other,
    }
}

/// The snapshot of a file: the text the edits apply to (a create's new content, or the file's
/// text) and what was on disk before.
struct Base {
    before: Before,
    doc: TextDoc,
    mode: WriteMode,
    /// Whether the first edit is a create, whose content is the text the others apply to.
    first_is_create: bool,
}

/// Takes the snapshot of `file`; `None` when the file is skipped (over the request's size
/// limit, or not text in a request that skips such files).
fn snapshot(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    file: &mut Target,
    hashed: bool,
    outcomes: &mut Vec<EditOutcome>,
    plan: &mut FilePlan,
) -> Result<Option<Base>, FkError> {
    let (target, display, exists) = (&file.target, file.display.as_str(), &file.exists);
    let known = file.known.take();
    // Snapshot: the text the edits apply to, and what was on disk before.
    let (before, doc, mode, first_is_create) = match &fe.edits[0] {
        Edit::Create { content, overwrite } => {
            if content.len() as u64 > ws.max_file_size() {
                let err = content_too_large(display, content.len(), ws.max_file_size());
                outcomes[0].error = Some(err.clone());
                plan.report.edits = std::mem::take(outcomes);
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
                plan.report.edits = std::mem::take(outcomes);
                plan.report.edits_failed = 1;
                return Err(err);
            }
            let before = if exists.is_some() {
                read_before(ws, target, display, known, hashed, opts.encoding())?
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
                return Err(ws.read(target).err().unwrap_or_else(|| {
                    FkError::new(ErrorCode::NotFound, format!("{display} does not exist"))
                }));
            }
            if let (Some(limit), Some(meta)) = (opts.max_file_size(), &exists)
                && meta.len > limit
            {
                plan.skip(format!(
                    "larger than the limit of {limit} bytes ({} bytes)",
                    meta.len
                ));
                return Ok(None);
            }
            let before = match read_before(ws, target, display, known, hashed, opts.encoding()) {
                Err(e) if opts.skip_non_text() && skipped_as_not_text(&e, plan) => {
                    return Ok(None);
                }
                other => other?,
            };
            let mut before = before;
            let doc = before.doc.take().expect("a read file is decoded");
            (before, doc, WriteMode::Replace, false)
        }
    };
    Ok(Some(Base {
        before,
        doc,
        mode,
        first_is_create,
    }))
}

/// The splices of edits made on an older version (`from`: its hash and text), carried into
/// the file as it is now (`base`); a conflict fails every edit that had applied (and the caller
/// reports the edits with the file's error).
#[allow(clippy::too_many_arguments)]
fn merged_splices(
    fe: &FileEdits,
    opts: &EditOptions,
    max: u64,
    (from, from_doc): &(String, TextDoc),
    base: &str,
    base_hash: &str,
    start: usize,
    display: &str,
    outcomes: &mut [EditOutcome],
    plan: &mut FilePlan,
) -> Result<Splices, FkError> {
    // Merge: the edits apply to the version they were made on; the result is carried
    // into the file as it is now.
    let ours = resolve_edits(fe, from_doc, from, start, opts, max, display, outcomes)
        .and_then(|ours| Ok(ours.apply(&from_doc.text)?));
    match ours.map(|ours| crate::merge::merge(&from_doc.text, &ours, base)) {
        Err(e) => Err(e),
        Ok(Ok(splices)) => {
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
            Err(conflict_error(display, from, base_hash, &conflicts))
        }
    }
}

/// The resolved splices, refused when what they would make of the file is more than a file
/// filekit holds whole. A file in another encoding than UTF-8 gets its edits spliced into its
/// bytes, each new text encoded (returned beside the splices): one the encoding cannot hold is
/// refused here, before anything is written.
fn writable_splices(
    resolved: Result<Splices, FkError>,
    ws: &Workspace,
    base_doc: &TextDoc,
    display: &str,
) -> Result<(Splices, Option<Vec<u8>>), FkError> {
    let splices = resolved?;
    if splices.result_len() as u64 > ws.max_file_size() {
        return Err(result_too_large(
            display,
            splices.result_len() as u64,
            ws.max_file_size(),
        ));
    }
    match base_doc.encoded.as_ref().filter(|_| !splices.is_empty()) {
        Some(enc) => {
            let bytes = enc.splice(&base_doc.text, &splices, display)?;
            Ok((splices, Some(bytes)))
        }
        None => Ok((splices, None)),
    }
}

/// Fails every edit that had applied with `err`, the file's error, and reports the edits.
fn fail_edits(err: &FkError, mut outcomes: Vec<EditOutcome>, plan: &mut FilePlan) {
    for o in outcomes.iter_mut().filter(|o| o.success) {
        o.success = false;
        o.error = Some(err.clone());
    }
    plan.report.edits_failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    plan.report.edits = outcomes;
}

/// The names in the diff's headers, as `git diff` gives them: relative to the first root, so
/// that `patch -p1` in that root applies it; files of other roots keep their absolute path.
fn diff_names(target: &WsPath, display: &str, existed: bool) -> (String, String) {
    let diff_path = if target.root_index() == 0 {
        target.relative().display().to_string()
    } else {
        display.trim_start_matches('/').to_string()
    };
    if existed {
        (format!("a/{diff_path}"), format!("b/{diff_path}"))
    } else {
        ("/dev/null".to_string(), format!("b/{diff_path}"))
    }
}

/// Reports the preview: the file's outcome, its edits and its diff. Returns how many edits
/// applied, and whether all failed.
fn report_preview(
    plan: &mut FilePlan,
    outcomes: Vec<EditOutcome>,
    diff_text: String,
    stats: diff::DiffStats,
    existed: bool,
    changed: bool,
) -> (usize, bool) {
    let applied = outcomes.iter().filter(|o| o.success).count();
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let failed_all = applied == 0 && failed > 0;
    plan.report.outcome = if failed_all {
        FileOutcome::Failed { error: None }
    } else if !existed || changed {
        FileOutcome::Changed {
            created: !existed,
            written: false,
        }
    } else {
        FileOutcome::Unchanged
    };
    plan.report.edits_applied = applied;
    plan.report.edits_failed = failed;
    plan.report.edits = outcomes;
    plan.report.diff = diff_text;
    plan.report.lines_added = stats.added;
    plan.report.lines_removed = stats.removed;
    (applied, failed_all)
}

/// Keeps what the file was for the commit step: its metadata, and, for the history, its
/// bytes and mode.
fn keep_what_was(
    ws: &Workspace,
    opts: &EditOptions,
    first_is_create: bool,
    before: Before,
    base_doc: TextDoc,
    plan: &mut FilePlan,
) {
    if ws.history().is_some() && !opts.dry_run() {
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
}
