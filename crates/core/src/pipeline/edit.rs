//! What an edit request says, and what the engine reports back.
//!
//! These types are the engine's whole vocabulary for writes: every dialect's tool call
//! (`fs_write`, `Edit`, `batch_edit_blocks`, `file:edit_file`, ...) is converted into an
//! [`EditRequest`], applied by [`crate::pipeline::apply`], and answered from the [`EditReport`].

use crate::error::FkError;
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

/// Options that apply to the whole request, in groups: what it does, how durable its writes
/// are, what it reports, who asks, and which files it takes on. Built with
/// [`EditOptions::builder`] (or [`EditOptions::to_builder`] from other options), which
/// normalises them: a dry run writes nothing, so it has no durability to choose (`no_fsync`
/// and `in_place` are off). Read through the methods of the same names.
#[derive(Debug, Clone, Default)]
pub struct EditOptions {
    /// What the request does.
    run: Run,
    /// How its writes reach the disk, and what of the files it keeps in memory.
    writing: Writing,
    /// What it reports.
    reporting: Reporting,
    /// Who asks.
    caller: Caller,
    /// Which files it takes on, and what it may make for them.
    limits: FileLimits,
}

/// What the request does (see [`EditOptions`]).
#[derive(Debug, Clone, Default)]
struct Run {
    /// Compute everything, write nothing.
    dry_run: bool,
    /// All or nothing: if any edit of any file fails, no file is written.
    atomic: bool,
    /// Stop at the first failed edit of a file; edits before it are kept.
    stop_on_error: bool,
    /// When set, a search text that is not found exactly may apply to its closest near miss if
    /// the similarity (0..1) reaches this threshold. The report says it was fuzzy.
    fuzzy_threshold: Option<f64>,
    /// Work the near-miss searches of one file may do in this request, in comparisons (`None`:
    /// [`crate::limits::NEAR_MISS_WORK`]). Bounds the time of a request whose edits all fail,
    /// or of one search text of thousands of lines; a search that runs out says so.
    near_miss_budget: Option<u64>,
}

/// How its writes reach the disk, and what of the files it keeps in memory (see
/// [`EditOptions`]).
#[derive(Debug, Clone, Default)]
struct Writing {
    /// Do not flush written files to disk. Each file is still replaced atomically (no reader
    /// ever sees half of it), but a power cut right after the request may lose it, as with
    /// `sed -i` or fastmod. For speed on trees that are under version control anyway.
    no_fsync: bool,
    /// Overwrite existing files in place instead of writing a temporary file and renaming it
    /// (see [`crate::workspace::WriteMode::InPlace`]): faster where creating files is slow, but
    /// a crash mid-write can leave a file half-written. Not with `atomic`.
    in_place: bool,
    /// Keep no texts in the report (`old_text`, `new_text`): for requests over many files,
    /// whose reports would otherwise hold every changed file twice.
    lean: bool,
}

/// What it reports (see [`EditOptions`]).
#[derive(Debug, Clone, Default)]
struct Reporting {
    /// Include a diff per text edit in the report.
    per_edit_diffs: bool,
    /// Compute no diffs: for unattended runs where nobody reads them.
    no_diffs: bool,
    /// Report no content hashes (`old_hash`, `new_hash`) unless the request names a version:
    /// for runs whose reports nobody reads as versions. The history and the version store hash
    /// what they keep themselves.
    no_hashes: bool,
}

/// Who asks (see [`EditOptions`]).
#[derive(Debug, Clone, Default)]
struct Caller {
    /// Progress reports and cancellation for long requests.
    control: Control,
    /// The tool or verb that made the request, as the history names it (`fs_write`,
    /// `filekit replace`).
    tool: Option<String>,
    /// Who writes, for advisory leases (`None`: the workspace's holder). A path leased by
    /// another holder is refused as `LOCKED`.
    holder: Option<String>,
}

/// Which files it takes on, and what it may make for them (see [`EditOptions`]).
#[derive(Debug, Clone, Default)]
struct FileLimits {
    /// Skip files larger than this many bytes.
    max_file_size: Option<u64>,
    /// Stream files larger than this many bytes, even under the workspace's bound.
    stream_above: Option<u64>,
    /// Skip (status `Skipped`, not a failure) files that are binary or not UTF-8, instead of
    /// failing on them: for edits over many files chosen by pattern.
    skip_non_text: bool,
    /// Refuse to make missing parent directories of created files.
    no_create_parents: bool,
    /// The encoding the caller names for the files' text, instead of the one detected.
    encoding: Option<&'static encoding_rs::Encoding>,
}

impl EditOptions {
    /// Options with every default: apply the edits (not a dry run), each file on its own,
    /// flushed, reported in full, for the workspace's holder.
    pub fn builder() -> EditOptionsBuilder {
        EditOptionsBuilder::default()
    }

    /// A builder that starts from these options.
    pub fn to_builder(&self) -> EditOptionsBuilder {
        EditOptionsBuilder(self.clone())
    }

    pub fn dry_run(&self) -> bool {
        self.run.dry_run
    }

    pub fn atomic(&self) -> bool {
        self.run.atomic
    }

    pub fn stop_on_error(&self) -> bool {
        self.run.stop_on_error
    }

    pub fn fuzzy_threshold(&self) -> Option<f64> {
        self.run.fuzzy_threshold
    }

    pub fn near_miss_budget(&self) -> Option<u64> {
        self.run.near_miss_budget
    }

    pub fn no_fsync(&self) -> bool {
        self.writing.no_fsync
    }

    pub fn in_place(&self) -> bool {
        self.writing.in_place
    }

    pub fn lean(&self) -> bool {
        self.writing.lean
    }

    pub fn per_edit_diffs(&self) -> bool {
        self.reporting.per_edit_diffs
    }

    pub fn no_diffs(&self) -> bool {
        self.reporting.no_diffs
    }

    pub fn no_hashes(&self) -> bool {
        self.reporting.no_hashes
    }

    pub fn control(&self) -> &Control {
        &self.caller.control
    }

    pub fn tool(&self) -> Option<&str> {
        self.caller.tool.as_deref()
    }

    pub fn holder(&self) -> Option<&str> {
        self.caller.holder.as_deref()
    }

    pub fn max_file_size(&self) -> Option<u64> {
        self.limits.max_file_size
    }

    pub fn stream_above(&self) -> Option<u64> {
        self.limits.stream_above
    }

    /// The encoding the caller names for the files' text (`None`: each file's own, detected).
    pub fn encoding(&self) -> Option<&'static encoding_rs::Encoding> {
        self.limits.encoding
    }

    pub fn skip_non_text(&self) -> bool {
        self.limits.skip_non_text
    }

    pub fn no_create_parents(&self) -> bool {
        self.limits.no_create_parents
    }
}

/// Builds [`EditOptions`] (see there): each setter sets one option; [`build`] normalises.
///
/// [`build`]: EditOptionsBuilder::build
#[derive(Debug, Clone, Default)]
pub struct EditOptionsBuilder(EditOptions);

impl EditOptionsBuilder {
    /// The options as set, normalised.
    pub fn build(&self) -> EditOptions {
        let mut opts = self.0.clone();
        if opts.run.dry_run {
            opts.writing.no_fsync = false;
            opts.writing.in_place = false;
        }
        opts
    }

    /// Compute everything, write nothing.
    pub fn dry_run(&mut self, dry_run: bool) -> &mut Self {
        self.0.run.dry_run = dry_run;
        self
    }

    /// All or nothing: if any edit of any file fails, no file is written.
    pub fn atomic(&mut self, atomic: bool) -> &mut Self {
        self.0.run.atomic = atomic;
        self
    }

    /// Stop at the first failed edit of a file; edits before it are kept.
    pub fn stop_on_error(&mut self, stop_on_error: bool) -> &mut Self {
        self.0.run.stop_on_error = stop_on_error;
        self
    }

    /// When set, a search text that is not found exactly may apply to its closest near miss if
    /// the similarity (0..1) reaches this threshold. The report says it was fuzzy.
    pub fn fuzzy_threshold(&mut self, fuzzy_threshold: Option<f64>) -> &mut Self {
        self.0.run.fuzzy_threshold = fuzzy_threshold;
        self
    }

    /// Work the near-miss searches of one file may do in this request, in comparisons (`None`:
    /// [`crate::limits::NEAR_MISS_WORK`]). Bounds the time of a request whose edits all fail,
    /// or of one search text of thousands of lines; a search that runs out says so.
    pub fn near_miss_budget(&mut self, near_miss_budget: Option<u64>) -> &mut Self {
        self.0.run.near_miss_budget = near_miss_budget;
        self
    }

    /// Do not flush written files to disk. Each file is still replaced atomically (no reader
    /// ever sees half of it), but a power cut right after the request may lose it, as with
    /// `sed -i` or fastmod. For speed on trees that are under version control anyway.
    pub fn no_fsync(&mut self, no_fsync: bool) -> &mut Self {
        self.0.writing.no_fsync = no_fsync;
        self
    }

    /// Overwrite existing files in place instead of writing a temporary file and renaming it
    /// (see [`crate::workspace::WriteMode::InPlace`]): faster where creating files is slow, but
    /// a crash mid-write can leave a file half-written. Not with `atomic`.
    pub fn in_place(&mut self, in_place: bool) -> &mut Self {
        self.0.writing.in_place = in_place;
        self
    }

    /// Keep no texts in the report (`old_text`, `new_text`): for requests over many files,
    /// whose reports would otherwise hold every changed file twice.
    pub fn lean(&mut self, lean: bool) -> &mut Self {
        self.0.writing.lean = lean;
        self
    }

    /// Include a diff per text edit in the report.
    pub fn per_edit_diffs(&mut self, per_edit_diffs: bool) -> &mut Self {
        self.0.reporting.per_edit_diffs = per_edit_diffs;
        self
    }

    /// Compute no diffs: for unattended runs where nobody reads them.
    pub fn no_diffs(&mut self, no_diffs: bool) -> &mut Self {
        self.0.reporting.no_diffs = no_diffs;
        self
    }

    /// Report no content hashes (`old_hash`, `new_hash`) unless the request names a version:
    /// for runs whose reports nobody reads as versions. The history and the version store hash
    /// what they keep themselves.
    pub fn no_hashes(&mut self, no_hashes: bool) -> &mut Self {
        self.0.reporting.no_hashes = no_hashes;
        self
    }

    /// Progress reports and cancellation for long requests.
    pub fn control(&mut self, control: Control) -> &mut Self {
        self.0.caller.control = control;
        self
    }

    /// The tool or verb that made the request, as the history names it (`fs_write`,
    /// `filekit replace`).
    pub fn tool(&mut self, tool: Option<String>) -> &mut Self {
        self.0.caller.tool = tool;
        self
    }

    /// Who writes, for advisory leases (`None`: the workspace's holder). A path leased by
    /// another holder is refused as `LOCKED`.
    pub fn holder(&mut self, holder: Option<String>) -> &mut Self {
        self.0.caller.holder = holder;
        self
    }

    /// Skip files larger than this many bytes.
    /// Decode the files in this encoding rather than the one detected in each.
    pub fn encoding(&mut self, encoding: Option<&'static encoding_rs::Encoding>) -> &mut Self {
        self.0.limits.encoding = encoding;
        self
    }

    pub fn max_file_size(&mut self, max_file_size: Option<u64>) -> &mut Self {
        self.0.limits.max_file_size = max_file_size;
        self
    }

    /// Stream files larger than this many bytes, even under the workspace's bound: for a
    /// request that plans many files at once (a tree-wide replace).
    pub fn stream_above(&mut self, stream_above: Option<u64>) -> &mut Self {
        self.0.limits.stream_above = stream_above;
        self
    }

    /// Skip (status `Skipped`, not a failure) files that are binary or not UTF-8, instead of
    /// failing on them: for edits over many files chosen by pattern.
    pub fn skip_non_text(&mut self, skip_non_text: bool) -> &mut Self {
        self.0.limits.skip_non_text = skip_non_text;
        self
    }

    /// Refuse to make missing parent directories of created files.
    pub fn no_create_parents(&mut self, no_create_parents: bool) -> &mut Self {
        self.0.limits.no_create_parents = no_create_parents;
        self
    }
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
/// flag that stops the request. A request cancelled before it writes writes nothing; one
/// cancelled while writing stops before its next file (never inside one: a staged file is
/// put in place or removed): an atomic request is rolled back, a plain one keeps what it
/// wrote, reports it as written and records it as one history entry, and reports the rest
/// cancelled. A tree-wide replace whose files are written as they are planned (not flushed,
/// not atomic: see `pipeline::Batch::streaming`) stops planning the same way.
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

    /// Whether the request was cancelled, or this process asked to stop writing
    /// ([`crate::interrupt::request_stop`]).
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || crate::interrupt::stop_requested()
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
#[derive(Debug, Clone)]
pub struct EditOutcome {
    /// Position of the edit in its file's list, from 0.
    pub index: usize,
    pub command: &'static str,
    pub label: Option<String>,
    pub success: bool,
    /// How many places this edit changed (matches replaced, or 1 for a line edit).
    pub replacements: usize,
    /// Set when the edit applied to a near miss: the similarity of what was found.
    pub fuzzy_similarity: Option<f64>,
    /// The 1-based line where the edit took effect, in the text as it was when the edit applied.
    pub line: Option<usize>,
    pub diff: Option<String>,
    pub error: Option<FkError>,
    /// Set when the edit was not attempted because an earlier one failed with `stop_on_error`.
    pub skipped: bool,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// What became of one file: one of these, so that a file cannot be both written and failed,
/// or skipped with an error.
#[derive(Debug, Clone)]
pub enum FileOutcome {
    /// Every edit succeeded and the text is the same as before.
    Unchanged,
    /// The edits change the file (`created`: it did not exist). `written`: the change is on
    /// disk (not in a dry run, nor when an atomic request was rolled back).
    Changed { created: bool, written: bool },
    /// Nothing of the file was written: `error` is the file's own failure (missing, binary,
    /// outside the roots, write refused); without one, every edit failed and says why.
    Failed { error: Option<FkError> },
    /// Left alone on purpose (not text, or over the size limit) when the request asked to
    /// skip such files rather than fail on them: `reason` says which.
    Skipped { reason: String },
    /// The request was cancelled before this file was written: `planned` is what its edits
    /// made of it, `error` says it was not written.
    Cancelled { planned: Planned, error: FkError },
}

/// What a file's edits made of it when the request was cancelled before it was written.
#[derive(Debug, Clone)]
pub enum Planned {
    Unchanged,
    Changed { created: bool },
    Skipped { reason: String },
}

/// The engine's report on one file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The path as the caller gave it.
    pub path: String,
    /// The absolute path inside the workspace.
    pub resolved_path: String,
    pub outcome: FileOutcome,
    pub edits_applied: usize,
    pub edits_failed: usize,
    pub edits: Vec<EditOutcome>,
    /// Unified diff from the file as read to the file as it is after this request.
    pub diff: String,
    /// Set when `diff` covers only the first of the file's changes: a streamed file's diff
    /// stops at a bound ([`crate::limits::MAX_STREAMED_DIFF`]); `lines_added` and
    /// `lines_removed` count what it shows.
    pub diff_truncated: bool,
    pub lines_added: usize,
    pub lines_removed: usize,
    pub old_hash: Option<String>,
    /// The version after this request: hand it to the next line edit.
    pub new_hash: Option<String>,
    pub last_modified: Option<String>,
    /// Directories that were made to hold the file (absolute, outermost first).
    pub created_dirs: Vec<String>,
    /// The version the edits were made on, when they were made on an older version and
    /// merged into the file as it was: `diff` is then from the file as it was to the result.
    pub merged_from: Option<String>,
    /// The file's encoding when it is not UTF-8 (`Shift_JIS`, `UTF-16LE`): its edits were
    /// spliced into its bytes in that encoding.
    pub encoding: Option<&'static str>,
    /// The file's text after the request (decoded, without BOM). Not serialized: dialects
    /// that show updated lines take them from here.
    pub new_text: Option<String>,
    /// The file's text before the request, when it existed.
    pub old_text: Option<String>,
}

impl FileReport {
    pub fn success(&self) -> bool {
        self.error().is_none() && self.edits_failed == 0
    }

    /// The outcome in one word.
    pub fn status(&self) -> FileStatus {
        match &self.outcome {
            FileOutcome::Unchanged
            | FileOutcome::Cancelled {
                planned: Planned::Unchanged,
                ..
            } => FileStatus::Unchanged,
            FileOutcome::Changed { created, .. }
            | FileOutcome::Cancelled {
                planned: Planned::Changed { created },
                ..
            } => {
                if *created {
                    FileStatus::Created
                } else {
                    FileStatus::Modified
                }
            }
            FileOutcome::Failed { .. } => FileStatus::Failed,
            FileOutcome::Skipped { .. }
            | FileOutcome::Cancelled {
                planned: Planned::Skipped { .. },
                ..
            } => FileStatus::Skipped,
        }
    }

    /// Whether the new content was written to disk (false for dry runs and failures).
    pub fn written(&self) -> bool {
        matches!(self.outcome, FileOutcome::Changed { written: true, .. })
    }

    /// A failure of the file as a whole (missing, binary, outside the roots, write refused,
    /// request cancelled).
    pub fn error(&self) -> Option<&FkError> {
        match &self.outcome {
            FileOutcome::Failed { error } => error.as_ref(),
            FileOutcome::Cancelled { error, .. } => Some(error),
            _ => None,
        }
    }

    pub fn error_mut(&mut self) -> Option<&mut FkError> {
        match &mut self.outcome {
            FileOutcome::Failed { error } => error.as_mut(),
            FileOutcome::Cancelled { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Why the file was skipped (status `Skipped`).
    pub fn skipped(&self) -> Option<&str> {
        match &self.outcome {
            FileOutcome::Skipped { reason }
            | FileOutcome::Cancelled {
                planned: Planned::Skipped { reason },
                ..
            } => Some(reason),
            _ => None,
        }
    }

    /// Whether the edits were made on an older version and merged (see `merged_from`).
    pub fn merged(&self) -> bool {
        self.merged_from.is_some()
    }
}

/// The engine's report on a whole request.
#[derive(Debug, Clone)]
pub struct EditReport {
    /// True when the request was cancelled (or the process asked to stop writing) before it
    /// was done: the files written by then are reported written (a plain request), the rest
    /// cancelled.
    pub cancelled: bool,
    pub files: Vec<FileReport>,
    pub dry_run: bool,
    pub atomic: bool,
    /// Set when `atomic` kept every file unwritten because something failed.
    pub rolled_back: bool,
    /// The history entry that records this request's writes (to undo it).
    pub history_entry: Option<i64>,
}

impl EditReport {
    /// True when every edit of every file succeeded (and, unless dry run, was written).
    pub fn success(&self) -> bool {
        !self.rolled_back && self.files.iter().all(FileReport::success)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_has_no_durability_to_choose() {
        let mut builder = EditOptions::builder();
        builder.no_fsync(true).in_place(true).lean(true);
        let opts = builder.build();
        assert!(opts.no_fsync() && opts.in_place() && opts.lean());
        let dry = opts.to_builder().dry_run(true).build();
        assert!(dry.dry_run() && !dry.no_fsync() && !dry.in_place() && dry.lean());
        // The builder keeps what was set: a later `dry_run(false)` gets the durability back.
        let mut b = builder.clone();
        assert!(b.dry_run(true).dry_run(false).build().in_place());
    }
}
