//! The JSON of the engine's write reports, as filekit's own replies give them (the
//! `edit_files` tool, `filekit edit --json`, `filekit mv --json`, the history's operations):
//! the engine's reports carry no serialization of their own, so that what a client reads is
//! decided here, at the front, and an engine type can change without changing a reply. Field
//! names and order are the replies' (tests pin them).

use filekit_core::FkError;
use filekit_core::edit::{EditOutcome, EditReport, FileReport, FileStatus};
use filekit_core::fsops::{FsReport, OpReport, RewriteReport};
use serde::Serialize;

/// An [`EditReport`] as JSON.
#[derive(Serialize)]
pub struct EditReportJson<'a> {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cancelled: bool,
    files: Vec<FileReportJson<'a>>,
    dry_run: bool,
    atomic: bool,
    rolled_back: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
}

impl<'a> From<&'a EditReport> for EditReportJson<'a> {
    fn from(r: &'a EditReport) -> Self {
        EditReportJson {
            cancelled: r.cancelled,
            files: r.files.iter().map(FileReportJson::from).collect(),
            dry_run: r.dry_run,
            atomic: r.atomic,
            rolled_back: r.rolled_back,
            history_entry: r.history_entry,
        }
    }
}

/// A [`FileReport`] as JSON: its outcome as the flags replies have always had (`status`,
/// `written`, `error`, `skipped`, `merged`).
#[derive(Serialize)]
pub struct FileReportJson<'a> {
    path: &'a str,
    resolved_path: &'a str,
    status: &'static str,
    written: bool,
    edits_applied: usize,
    edits_failed: usize,
    edits: Vec<EditOutcomeJson<'a>>,
    diff: &'a str,
    /// The diff of a large (streamed) file stops at a bound: set when it did.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    diff_truncated: bool,
    lines_added: usize,
    lines_removed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_hash: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_hash: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_modified: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a FkError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<&'a str>,
    #[serde(skip_serializing_if = "no_dirs")]
    created_dirs: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    merged: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_from: Option<&'a str>,
}

fn no_dirs(dirs: &&[String]) -> bool {
    dirs.is_empty()
}

/// A file's status as replies spell it.
pub fn status_word(status: FileStatus) -> &'static str {
    match status {
        FileStatus::Created => "created",
        FileStatus::Modified => "modified",
        FileStatus::Unchanged => "unchanged",
        FileStatus::Failed => "failed",
        FileStatus::Skipped => "skipped",
    }
}

impl<'a> From<&'a FileReport> for FileReportJson<'a> {
    fn from(f: &'a FileReport) -> Self {
        FileReportJson {
            path: &f.path,
            resolved_path: &f.resolved_path,
            status: status_word(f.status()),
            written: f.written(),
            edits_applied: f.edits_applied,
            edits_failed: f.edits_failed,
            edits: f.edits.iter().map(EditOutcomeJson::from).collect(),
            diff: &f.diff,
            diff_truncated: f.diff_truncated,
            lines_added: f.lines_added,
            lines_removed: f.lines_removed,
            old_hash: f.old_hash.as_deref(),
            new_hash: f.new_hash.as_deref(),
            last_modified: f.last_modified.as_deref(),
            error: f.error(),
            skipped: f.skipped(),
            created_dirs: &f.created_dirs,
            merged: f.merged(),
            merged_from: f.merged_from.as_deref(),
        }
    }
}

/// An [`EditOutcome`] as JSON.
#[derive(Serialize)]
pub struct EditOutcomeJson<'a> {
    index: usize,
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'a str>,
    success: bool,
    replacements: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    fuzzy_similarity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a FkError>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    skipped: bool,
}

impl<'a> From<&'a EditOutcome> for EditOutcomeJson<'a> {
    fn from(o: &'a EditOutcome) -> Self {
        EditOutcomeJson {
            index: o.index,
            command: o.command,
            label: o.label.as_deref(),
            success: o.success,
            replacements: o.replacements,
            fuzzy_similarity: o.fuzzy_similarity,
            line: o.line,
            diff: o.diff.as_deref(),
            error: o.error.as_ref(),
            skipped: o.skipped,
        }
    }
}

/// An [`FsReport`] as JSON.
#[derive(Serialize)]
pub struct FsReportJson<'a> {
    ops: Vec<OpReportJson<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rewrites: Vec<RewriteReportJson<'a>>,
    dry_run: bool,
    atomic: bool,
    rolled_back: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
}

impl<'a> From<&'a FsReport> for FsReportJson<'a> {
    fn from(r: &'a FsReport) -> Self {
        FsReportJson {
            ops: r.ops.iter().map(OpReportJson::from).collect(),
            rewrites: r.rewrites.iter().map(RewriteReportJson::from).collect(),
            dry_run: r.dry_run,
            atomic: r.atomic,
            rolled_back: r.rolled_back,
            history_entry: r.history_entry,
        }
    }
}

/// An [`OpReport`] (one move, copy, delete or create) as JSON.
#[derive(Serialize)]
pub struct OpReportJson<'a> {
    op: &'static str,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    destination: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    success: bool,
    done: bool,
    files: usize,
    bytes: u64,
    #[serde(skip_serializing_if = "no_dirs")]
    created_dirs: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    overwrote: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a FkError>,
}

impl<'a> From<&'a OpReport> for OpReportJson<'a> {
    fn from(o: &'a OpReport) -> Self {
        OpReportJson {
            op: o.op,
            source: &o.source,
            destination: o.destination.as_deref(),
            kind: o.kind,
            success: o.success,
            done: o.done,
            files: o.files,
            bytes: o.bytes,
            created_dirs: &o.created_dirs,
            overwrote: o.overwrote,
            error: o.error.as_ref(),
        }
    }
}

/// A [`RewriteReport`] (the rewrite of a file's content a file operation carried) as JSON.
#[derive(Serialize)]
pub struct RewriteReportJson<'a> {
    path: &'a str,
    written_to: &'a str,
    diff: &'a str,
    success: bool,
    done: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a FkError>,
}

impl<'a> From<&'a RewriteReport> for RewriteReportJson<'a> {
    fn from(r: &'a RewriteReport) -> Self {
        RewriteReportJson {
            path: &r.path,
            written_to: &r.written_to,
            diff: &r.diff,
            success: r.success,
            done: r.done,
            error: r.error.as_ref(),
        }
    }
}
