//! What an edit request says, and what the engine reports back.
//!
//! These types are the engine's whole vocabulary for writes: every dialect's tool call
//! (`fs_write`, `Edit`, `batch_edit_blocks`, `file:edit_file`, ...) is converted into an
//! [`EditRequest`], applied by [`crate::pipeline::apply`], and answered from the [`EditReport`].

use crate::error::FkError;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One change to one file. Line numbers are 1-based and inclusive; negative numbers count
/// from the end (-1 is the last line).
#[derive(Debug, Clone)]
pub enum Edit {
    /// Write the whole file. Refused when the file exists unless `overwrite`.
    Create { content: String, overwrite: bool },
    /// Replace an exact text. `expected` says how many matches there must be.
    ReplaceText {
        old: String,
        new: String,
        expected: Expected,
        label: Option<String>,
    },
    /// Replace lines `start..=end` (`end: None` means to the end of the file) with the whole
    /// lines of `new` (see [`crate::text::split_new_lines`]). `content_hash`, when given, must
    /// name either the whole file or exactly these lines.
    ReplaceLines {
        start: i64,
        end: Option<i64>,
        new: String,
        content_hash: Option<String>,
    },
    /// Insert the whole lines of `text` after line `after` (0 = at the top).
    Insert {
        after: i64,
        text: String,
        content_hash: Option<String>,
    },
    /// Add the whole lines of `text` at the end of the file.
    Append { text: String },
    /// A sed `s` command over the whole file, as read (like a line edit, it sees none of the
    /// request's other edits, and may not change the text they change).
    Substitute(crate::sed::Substitution),
    /// Replace byte ranges of the decoded text as read (sorted, disjoint), for callers that
    /// located the text themselves (an interactive review, a parser). The offsets mean
    /// nothing for another version of the file, so `content_hash` of the whole file is
    /// required. They are the caller's proposal: the pipeline makes them [`Splices`] of the
    /// text as read, and refuses ranges that do not fit it with `INVALID_ARGUMENT`.
    ///
    /// [`Splices`]: filekit_splices::Splices
    Ranges {
        ranges: Vec<filekit_splices::Splice>,
        content_hash: String,
    },
}

impl Edit {
    /// The command name used in reports (`str_replace`, `replace_lines`, ...).
    pub fn command(&self) -> &'static str {
        match self {
            Edit::Create { .. } => "create",
            Edit::ReplaceText { .. } => "str_replace",
            Edit::ReplaceLines { .. } => "replace_lines",
            Edit::Insert { .. } => "insert",
            Edit::Append { .. } => "append",
            Edit::Substitute(_) => "pattern_replace",
            Edit::Ranges { .. } => "replace_ranges",
        }
    }

    pub fn label(&self) -> Option<&str> {
        match self {
            Edit::ReplaceText { label, .. } => label.as_deref(),
            _ => None,
        }
    }
}

/// How many times a search text must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Exactly this many non-overlapping matches (1 by default); all of them are replaced.
    Exactly(usize),
    /// Every match, at least one.
    All,
}

/// The edits for one file.
#[derive(Debug, Clone)]
pub struct FileEdits {
    pub path: String,
    pub edits: Vec<Edit>,
    /// The version (`content_hash` of the whole file, or a prefix of 8+ hex digits) the edits
    /// were made on. When the file changed since and the version is in the workspace's
    /// [`crate::versions`] store, the edits are merged into the file as it is now
    /// ([`crate::merge`]); when the version is unknown, the file is refused as `STALE`.
    /// A `content_hash` of a line edit that names a stored version of the whole file acts the
    /// same way. `None`: the edits apply to the file as it is.
    pub base_hash: Option<String>,
}

/// Options that apply to the whole request.
#[derive(Debug, Clone, Default)]
pub struct EditOptions {
    /// Compute everything, write nothing.
    pub dry_run: bool,
    /// All or nothing: if any edit of any file fails, no file is written.
    pub atomic: bool,
    /// Stop at the first failed edit of a file; edits before it are kept.
    pub stop_on_error: bool,
    /// When set, a search text that is not found exactly may apply to its closest near miss
    /// if the similarity (0..1) reaches this threshold. The report says it was fuzzy.
    pub fuzzy_threshold: Option<f64>,
    /// Include a diff per text edit in the report.
    pub per_edit_diffs: bool,
    /// Work the near-miss searches of one file may do in this request, in comparisons
    /// (`None`: [`crate::limits::NEAR_MISS_WORK`]). Bounds the time of a request whose edits
    /// all fail, or of one search text of thousands of lines; a search that runs out says so.
    pub near_miss_budget: Option<u64>,
    /// Progress reports and cancellation for long requests.
    pub control: Control,
    /// Skip (status `Skipped`, not a failure) files that are binary or not UTF-8, instead of
    /// failing on them: for edits over many files chosen by pattern.
    pub skip_non_text: bool,
    /// Skip files larger than this many bytes.
    pub max_file_size: Option<u64>,
    /// Do not flush written files to disk. Each file is still replaced atomically (no reader
    /// ever sees half of it), but a power cut right after the request may lose it, as with
    /// `sed -i` or fastmod. For speed on trees that are under version control anyway.
    pub no_fsync: bool,
    /// Overwrite existing files in place instead of writing a temporary file and renaming it
    /// (see [`crate::workspace::WriteMode::InPlace`]): faster where creating files is slow,
    /// but a crash mid-write can leave a file half-written. Not with `atomic`.
    pub in_place: bool,
    /// Keep no texts in the report (`old_text`, `new_text`): for requests over many files,
    /// whose reports would otherwise hold every changed file twice.
    pub lean: bool,
    /// Compute no diffs: for unattended runs where nobody reads them.
    pub no_diffs: bool,
    /// Report no content hashes (`old_hash`, `new_hash`) unless the request names a version:
    /// for runs whose reports nobody reads as versions. The history and the version store
    /// hash what they keep themselves.
    pub no_hashes: bool,
    /// Refuse to make missing parent directories of created files.
    pub no_create_parents: bool,
    /// The tool or verb that made the request, as the history names it (`fs_write`,
    /// `filekit replace`).
    pub tool: Option<String>,
    /// Who writes, for advisory leases (`None`: the workspace's holder). A path leased by
    /// another holder is refused as `LOCKED`.
    pub holder: Option<String>,
}

/// How far a request is, as reported to [`Control`]'s callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Files planned (read, edited in memory, diffed) so far.
    pub done: usize,
    /// Files in the request; 0 while that is not known yet (a tree-wide replace plans files
    /// as its walk finds them).
    pub total: usize,
}

type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// A caller's hold on a running request: a callback that hears of each planned file, and a
/// flag that stops the request. A stop is honoured until writing starts: a cancelled request
/// writes nothing, and once writing starts it finishes (each file's write is a rename, so
/// there is never a half-written file either way). A tree-wide replace whose files are
/// written as they are planned (not flushed, not atomic: see `pipeline::Batch::streaming`)
/// stops planning: the files written by then stay written, are reported as such and are one
/// history entry; the rest are reported cancelled.
#[derive(Clone, Default)]
pub struct Control {
    progress: Option<Arc<ProgressFn>>,
    cancelled: Arc<AtomicBool>,
}

impl Control {
    /// A control that calls `on_progress` after each file is planned (from worker threads).
    pub fn with_progress(on_progress: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        Control {
            progress: Some(Arc::new(on_progress)),
            cancelled: Arc::default(),
        }
    }

    /// Asks the request to stop; safe from any thread.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    pub(crate) fn report(&self, progress: Progress) {
        if let Some(f) = &self.progress {
            f(progress);
        }
    }
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("progress", &self.progress.is_some())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// A request to change one or more files.
#[derive(Debug, Clone, Default)]
pub struct EditRequest {
    pub files: Vec<FileEdits>,
    pub options: EditOptions,
}

impl EditRequest {
    /// A request for the edits of one file, with `options`.
    pub fn one_file(path: impl Into<String>, edits: Vec<Edit>, options: EditOptions) -> Self {
        EditRequest {
            files: vec![FileEdits {
                base_hash: None,
                path: path.into(),
                edits,
            }],
            options,
        }
    }
}

/// What happened to one edit.
#[derive(Debug, Clone, Serialize)]
pub struct EditOutcome {
    /// Position of the edit in its file's list, from 0.
    pub index: usize,
    pub command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub success: bool,
    /// How many places this edit changed (matches replaced, or 1 for a line edit).
    pub replacements: usize,
    /// Set when the edit applied to a near miss: the similarity of what was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuzzy_similarity: Option<f64>,
    /// The 1-based line where the edit took effect, in the text as it was when the edit applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<FkError>,
    /// Set when the edit was not attempted because an earlier one failed with `stop_on_error`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Created,
    Modified,
    /// Every edit succeeded but the text is the same as before.
    Unchanged,
    /// Nothing was written to this file (all its edits failed, or the file failed as a whole).
    Failed,
    /// Left alone on purpose: not text, or over the size limit (see `skipped`), when the
    /// request asked to skip such files rather than fail on them.
    Skipped,
}

/// The engine's report on one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The path as the caller gave it.
    pub path: String,
    /// The absolute path inside the workspace.
    pub resolved_path: String,
    pub status: FileStatus,
    /// Whether the new content was written to disk (false for dry runs and failures).
    pub written: bool,
    pub edits_applied: usize,
    pub edits_failed: usize,
    pub edits: Vec<EditOutcome>,
    /// Unified diff from the file as read to the file as it is after this request.
    pub diff: String,
    pub lines_added: usize,
    pub lines_removed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_hash: Option<String>,
    /// The version after this request: hand it to the next line edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// A failure of the file as a whole (missing, binary, outside the roots, write refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<FkError>,
    /// Why the file was skipped (status `Skipped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Directories that were made to hold the file (absolute, outermost first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<String>,
    /// Set when the edits were made on an older version (`merged_from`) and merged into the
    /// file as it was: `diff` is then from the file as it was to the result.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub merged: bool,
    /// The version the edits were made on, when they were merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_from: Option<String>,
    /// The file's text after the request (decoded, without BOM). Not serialized: dialects
    /// that show updated lines take them from here.
    #[serde(skip)]
    pub new_text: Option<String>,
    /// The file's text before the request, when it existed.
    #[serde(skip)]
    pub old_text: Option<String>,
}

impl FileReport {
    pub fn success(&self) -> bool {
        self.error.is_none() && self.edits_failed == 0
    }
}

/// The engine's report on a whole request.
#[derive(Debug, Clone, Serialize)]
pub struct EditReport {
    /// True when the caller cancelled the request before anything was written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    pub files: Vec<FileReport>,
    pub dry_run: bool,
    pub atomic: bool,
    /// Set when `atomic` kept every file unwritten because something failed.
    pub rolled_back: bool,
    /// The history entry that records this request's writes (to undo it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_entry: Option<i64>,
}

impl EditReport {
    /// True when every edit of every file succeeded (and, unless dry run, was written).
    pub fn success(&self) -> bool {
        !self.rolled_back && self.files.iter().all(FileReport::success)
    }

    /// The concatenated diffs of all files.
    pub fn combined_diff(&self) -> String {
        self.files.iter().map(|f| f.diff.as_str()).collect()
    }
}
