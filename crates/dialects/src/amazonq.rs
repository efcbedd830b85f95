//! The `amazonq` dialect (Amazon Q Developer CLI's tools): `fs_read` and `fs_write` with the batch additions of
//! the batch_file_operations proposal.
//!
//! Departures from the proposal: line numbers are 1-based everywhere (its "replace_lines is
//! 0-based" contradicts its own fs_read, and one convention per table is what a model can keep), and the
//! new-line text rule of the engine applies to `new_str`. Directory and Search read modes run
//! on the engine's search module; `pattern_replace` is the engine's tree-wide replace
//! ([`filekit_core::replace`]), with the sed rules of [`filekit_core::sed`].

use crate::Call;
use crate::args::{missing_for, parse, parse_ref, schema_for};
use crate::file::PathFailure;
use crate::reply::{self, Details, Failure, PartError};
use crate::shape::{self, FailedEdit};
use crate::{ToolReply, ToolSpec};
use filekit_core::FkError;
use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileEdits, FileStatus};
use filekit_core::limits::ReplyBudget;
use filekit_core::read::{FileRead, ReadContent, ReadOptions, read_files_within};
use filekit_core::replace::TreeReplaceReport;
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "fs_read",
            dialect: "amazonq",
            description: FS_READ_DESCRIPTION,
            input_schema: &FS_READ_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: fs_read,
            reject: reject_read,
            guide: FS_READ_GUIDE,
            reply: crate::ReplySchema::Typed(reply::schema_failing::<FsReadReply, Failure>),
        },
        ToolSpec {
            name: "fs_write",
            dialect: "amazonq",
            description: FS_WRITE_DESCRIPTION,
            input_schema: &FS_WRITE_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: fs_write,
            reject: reject_write,
            guide: FS_WRITE_GUIDE,
            reply: crate::ReplySchema::Typed(reply::schema_failing::<FsWriteReply, Failure>),
        },
    ]
}

fn reject_read(err: &FkError) -> Value {
    FsReadReply::Rejected(Failure::of(err)).to_value()
}

fn reject_write(err: &FkError) -> Value {
    FsWriteReply::Rejected(Failure::of(err)).to_value()
}

/// An fs_write reply as its JSON and, since the Q CLI has no words of its own for writes, the
/// same JSON as the text the model reads.
fn serialized(reply: &FsWriteReply, is_error: bool) -> ToolReply {
    let value = reply.to_value();
    let text = shape::serialized(&value);
    ToolReply::new(value, is_error, text)
}

/// What fs_read answers, for its output schema: one read's entry; or, for a reply that is an
/// array (a read of several files, several operations), the array as MCP carries it,
/// `{results}`.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum FsReadReply {
    Entry(ReadEntry),
    Rejected(Failure),
    Many {
        /// One entry per file or per operation, in order.
        results: Vec<BatchItem>,
    },
}

impl FsReadReply {
    /// The reply as the tool answers it: several entries as a bare array, which MCP carries
    /// as the `{results}` its schema names.
    fn to_value(&self) -> Value {
        match self {
            FsReadReply::Many { results } => reply::to_value(results),
            reply => reply::to_value(reply),
        }
    }
}

/// One read's reply.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum ReadEntry {
    Lines(Box<LineEntry>),
    Image(Box<ImageEntry>),
    Directory(Box<DirectoryEntry>),
    Search(Box<SearchEntry>),
    Failed(Box<PathFailure>),
}

/// One operation of several: its entry, or the entries of an operation of several files.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum BatchItem {
    Entry(ReadEntry),
    Files {
        success: bool,
        /// In the reply to several operations, the entries of one that reads several files or
        /// images (`paths`, `image_paths`), in order.
        results: Vec<ReadEntry>,
    },
    /// An operation whose arguments were refused (the others ran).
    Rejected(Failure),
}

/// A text file's lines (Line mode).
#[derive(Serialize, JsonSchema)]
struct LineEntry {
    /// The path as resolved inside the workspace.
    path: String,
    success: bool,
    /// The lines, numbered `cat -n` style.
    content: String,
    /// The file's version: give it to fs_write's line edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// Last modification, RFC 3339 UTC.
    last_modified: String,
    /// First line returned, 1-based (negative when the read counted from the end).
    start_line: i64,
    /// Last line returned, inclusive.
    end_line: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<usize>,
    /// Set when the file is too large to be read whole: the bound's facts (it has no version).
    #[serde(skip_serializing_if = "Option::is_none")]
    unversioned: Option<Details>,
    /// The version of the lines returned, when a range was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    range_hash: Option<String>,
    /// True when the read was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_start_line: Option<i64>,
}

/// An image (Image mode).
#[derive(Serialize, JsonSchema)]
struct ImageEntry {
    path: String,
    success: bool,
    mime: String,
    size: u64,
    content_hash: String,
    last_modified: String,
    /// The image's bytes, base64 (shown to the model as an image, left out of the text).
    data: String,
}

/// A directory listing (Directory mode).
#[derive(Serialize, JsonSchema)]
struct DirectoryEntry {
    path: String,
    success: bool,
    /// The listing, one entry a line.
    content: String,
    /// Entries in all.
    total: usize,
    /// True when more entries are left than shown.
    truncated: bool,
    /// The entries skipped first.
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<usize>,
}

/// Search results (Search mode).
#[derive(Serialize, JsonSchema)]
struct SearchEntry {
    path: String,
    success: bool,
    /// The matching lines with their context, as text.
    content: String,
    /// The matching lines.
    matches: Vec<SearchMatch>,
    /// Matching lines in all.
    total_matches: u64,
    truncated: bool,
}

#[derive(Serialize, JsonSchema)]
struct SearchMatch {
    path: String,
    line: u64,
    text: String,
}

/// What fs_write answers, for its output schema: a file's entry, the entries of several
/// (`fileEdits`, as MCP carries an array: `{results}`), or a pattern_replace's report.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum FsWriteReply {
    File(Box<WriteEntry>),
    Files {
        /// One entry per file, in order.
        results: Vec<WriteEntry>,
    },
    Tree(Box<TreeReplaceReply>),
    TreeFailed(Box<CommandFailure>),
    Rejected(Failure),
}

impl FsWriteReply {
    /// The reply as the tool answers it: several entries as a bare array, which MCP carries
    /// as the `{results}` its schema names.
    fn to_value(&self) -> Value {
        match self {
            FsWriteReply::Files { results } => reply::to_value(results),
            reply => reply::to_value(reply),
        }
    }
}

/// One file of fs_write.
#[derive(Serialize, JsonSchema)]
struct WriteEntry {
    path: String,
    success: bool,
    /// With `fileEdits`: the file's edits applied, failed and skipped, and the failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    edits_applied: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edits_failed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edits_skipped: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed_edits: Vec<FailedEdit>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    error: Option<PartError>,
    /// The file's version after the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// True when the edits were merged with a change made since the read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    merged: bool,
    /// Unified diff of the change, capped for a model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_truncated: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
}

/// pattern_replace's report.
#[derive(Serialize, JsonSchema)]
struct TreeReplaceReply {
    /// `pattern_replace`.
    command: &'static str,
    success: bool,
    summary: String,
    /// Files the pattern chose.
    files_matched: usize,
    files_modified: usize,
    /// Files chosen where nothing matched.
    files_unchanged: usize,
    /// Files left alone (binary, not UTF-8, too large).
    files_skipped: usize,
    files_failed: usize,
    replacements: usize,
    /// The files changed, failed or skipped (unchanged ones are only counted).
    files: Vec<TreeFileEntry>,
    /// Why some diffs are left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_truncated: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rolled_back: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
}

/// One file of pattern_replace.
#[derive(Serialize, JsonSchema)]
struct TreeFileEntry {
    path: String,
    success: bool,
    replacements: usize,
    /// Why it was left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    error: Option<PartError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
}

/// A pattern_replace that chose no file, or a bad directory.
#[derive(Serialize, JsonSchema)]
struct CommandFailure {
    command: &'static str,
    #[serde(flatten)]
    failure: Failure,
}

// ---------------------------------------------------------------------------------------------
// fs_read

/// What fs_read lists (its arguments bare): what each mode takes and the one thing a model gets
/// wrong (line numbers copied into edits); the rest is in [`FS_READ_GUIDE`].
const FS_READ_DESCRIPTION: &str = "\
Read files with numbered lines, list directories, search, or look at images. `operations`: \
one or more reads, each {mode, ...}; several answer in order.
- Line: `path`, or `paths` for many files; `start_line`/`end_line` 1-based, inclusive, \
negative from the end.
- Directory: `path`, `depth`, `exclude_patterns`, `max_entries`, `offset`.
- Search: `pattern` (literal, case-insensitive) in `path`, `context_lines`.
- Image: `image_paths`.
A file's reply has its content_hash, which fs_write's line edits take. Do not copy the line \
numbers into edits.
Example: {\"operations\": [{\"mode\": \"Line\", \"path\": \"src/main.rs\", \"start_line\": 10, \"end_line\": 40}]}";

/// The long form of fs_read's description, on its documentation page.
const FS_READ_GUIDE: &str = "\
Read one or many text files with line numbers, list directories, search, or look at images. \
Every result carries the file's content_hash and last_modified: keep the content_hash to make \
line edits with fs_write (replace_lines, insert) without reading again.

Give `operations`, an array of reads (one or many), each with its `mode` and that mode's \
arguments: {\"operations\": [{\"mode\": \"Line\", \"path\": \"src/main.rs\", \"start_line\": 10}]}. \
One operation answers as that read; several answer with one result each, in order. The \
arguments of one read may also be given at the top level, without `operations`.

Modes:
- Line: `path` (one file; the reply is one object) or `paths` (many files in one call; the \
reply is an array, one entry per path, failed entries have success:false and an error). \
`start_line`/`end_line` pick a range: 1-based and inclusive, negative numbers count from the \
end (-1 is the last line); defaults 1 and -1 (the whole file). When a range is asked, \
range_hash is the hash of exactly those lines (fs_write accepts it for edits of those lines).
- Image: `image_paths` (png, jpeg, gif, webp): the images are shown to you.
- Directory: `path` of a directory: its entries `ls -l` style (type and permissions, size, \
modification time, path: the listed `path` joined with the entry's name, so that it reads \
back as shown), sorted; `depth` descends that many more levels (default 0: only \
the directory's own entries). .gitignore'd and hidden entries are left out, and so are \
those matching `exclude_patterns`; at most `max_entries` (default 1000) entries, in path \
order, from `offset` (default 0): the reply says how many more there are.
- Search: `pattern` (plain text, case-insensitive, per line) in the file or directory \
`path`: each matching line as `Line N: text`, with `context_lines` (default 2) around it; \
in a directory each group starts with the file's path. At most 1000 lines are shown.

The content is `cat -n` style: the line number, a tab, the line. Do not copy the numbers \
into edits. A file in another encoding than UTF-8 (UTF-16 with its byte order mark, Latin-1, \
Shift_JIS, GB18030, EUC-KR, ...) is shown decoded and searched as its text (the Q CLI shows \
each byte that is not UTF-8 as U+FFFD). `summary` is accepted and not used; so is `encoding` \
when it names UTF-8 (the Q CLI ignores it), another is refused. An argument fs_read does not \
take is refused \
with the closest valid name, and nothing is read (the Q CLI ignores unknown arguments; \
filekit refuses them, deliberately, so that a misspelled argument never changes what is done).

Example: {\"operations\": [{\"mode\": \"Line\", \"paths\": [\"src/main.rs\", \"Cargo.toml\"], \"start_line\": 1, \"end_line\": 40}, {\"mode\": \"Directory\", \"path\": \"src\"}]}";

/// The read modes.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
enum ReadMode {
    Line,
    Image,
    Directory,
    Search,
}

/// The arguments of one read: the top level of the batch proposal's shape, or one entry of the
/// shipping Q CLI's `operations`.
#[derive(Deserialize, JsonSchema)]
struct FsReadOp {
    /// The mode to run in: `Line` (text, numbered lines), `Image` (images to look at),
    /// `Directory` (a directory's entries) or `Search` (lines containing `pattern`).
    mode: ReadMode,
    /// Path of one file to read (or the directory to list or search), relative to the
    /// workspace root or absolute inside it. The reply is one object.
    path: Option<String>,
    /// Paths of several files to read in one call (Line mode). The reply is an array with one
    /// entry per path, in order.
    paths: Option<Vec<String>>,
    /// Paths of the images to show (Image mode).
    image_paths: Option<Vec<String>>,
    /// First line to read (Line mode): 1-based, inclusive; negative counts from the end.
    #[schemars(extend("default" = 1))]
    start_line: Option<i64>,
    /// Last line to read (Line mode): 1-based, inclusive; negative counts from the end (-1 is
    /// the last line).
    #[schemars(extend("default" = -1))]
    end_line: Option<i64>,
    /// Depth of a recursive directory listing (Directory mode): 0 lists only the directory's
    /// own entries, 1 their children too, and so on.
    #[schemars(extend("default" = 0))]
    depth: Option<usize>,
    /// Text to search for (required, for Search mode). Case-insensitive, matched per line,
    /// taken literally.
    pattern: Option<String>,
    /// Number of context lines around search results (Search mode).
    #[schemars(extend("default" = 2))]
    context_lines: Option<usize>,
    /// Globs of entries to leave out (Directory mode): names or paths relative to the listed
    /// directory (`node_modules`, `*.log`, `target/**`); a directory left out is not entered.
    /// They add to what is always left out (.gitignore'd and hidden entries).
    exclude_patterns: Option<Vec<String>>,
    /// At most this many entries (Directory mode); the reply says how many more there are.
    #[schemars(extend("default" = SEARCH_LIMIT), range(min = 1))]
    max_entries: Option<usize>,
    /// Entries to skip first (Directory mode), to page through a large listing with
    /// `max_entries`. Entries are in path order.
    #[schemars(extend("default" = 0))]
    offset: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
struct FsReadArgs {
    /// The reads to make, each `{mode, path, ...}` with the arguments of its mode (the Q
    /// CLI's shape): `{"operations": [{"mode": "Line", "path": "a.py", "start_line": 10}]}`.
    /// One operation answers as that read alone; several answer with one result each, in
    /// order. Leave it out to give `mode` and its arguments at the top level instead.
    #[schemars(length(min = 1))]
    operations: Option<Vec<FsReadOp>>,
    /// The mode of a read given at the top level (without `operations`): `Line` (text,
    /// numbered lines), `Image` (images to look at), `Directory` (a directory's entries) or
    /// `Search` (lines containing `pattern`).
    mode: Option<ReadMode>,
    /// Path of one file to read, relative to the workspace root or absolute inside it. The
    /// reply is one object.
    path: Option<String>,
    /// Paths of several files to read in one call. The reply is an array with one entry per
    /// path, in order.
    paths: Option<Vec<String>>,
    /// Paths of the images to show (Image mode).
    image_paths: Option<Vec<String>>,
    /// First line to read (Line mode): 1-based, inclusive; negative counts from the end.
    #[schemars(extend("default" = 1))]
    start_line: Option<i64>,
    /// Last line to read (Line mode): 1-based, inclusive; negative counts from the end (-1 is
    /// the last line).
    #[schemars(extend("default" = -1))]
    end_line: Option<i64>,
    /// Depth of a recursive directory listing (Directory mode): 0 lists only the directory's
    /// own entries, 1 their children too, and so on.
    #[schemars(extend("default" = 0))]
    depth: Option<usize>,
    /// Text to search for (required, for Search mode). Case-insensitive, matched per line,
    /// taken literally.
    pattern: Option<String>,
    /// Number of context lines around search results (Search mode).
    #[schemars(extend("default" = 2))]
    context_lines: Option<usize>,
    /// Globs of entries to leave out (Directory mode): names or paths relative to the listed
    /// directory (`node_modules`, `*.log`, `target/**`); a directory left out is not entered.
    /// They add to what is always left out (.gitignore'd and hidden entries).
    exclude_patterns: Option<Vec<String>>,
    /// At most this many entries (Directory mode); the reply says how many more there are.
    #[schemars(extend("default" = SEARCH_LIMIT), range(min = 1))]
    max_entries: Option<usize>,
    /// Entries to skip first (Directory mode), to page through a large listing with
    /// `max_entries`. Entries are in path order.
    #[schemars(extend("default" = 0))]
    offset: Option<usize>,
    /// Why this read is made (the Q CLI shows it to the user). Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    summary: Option<String>,
}

/// The arguments of the reads given at the top level, without `operations`.
const TOP_LEVEL_READ: &[&str] = &[
    "mode",
    "path",
    "paths",
    "image_paths",
    "start_line",
    "end_line",
    "depth",
    "pattern",
    "context_lines",
    "exclude_patterns",
    "max_entries",
    "offset",
];

static FS_READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FsReadArgs>);

fn fs_read(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let given: Vec<&str> = TOP_LEVEL_READ
        .iter()
        .copied()
        .filter(|k| args.get(*k).is_some())
        .collect();
    let args: FsReadArgs = parse("fs_read", &FS_READ_SCHEMA, args)?;
    let Some(ops) = args.operations else {
        let Some(mode) = args.mode else {
            return Err(missing_for(
                "fs_read",
                &FS_READ_SCHEMA,
                "",
                "operations",
                "give `operations`, an array of reads such as [{\"mode\": \"Line\", \"path\": \"src/main.rs\"}] (or `mode` and its arguments at the top level)",
            ));
        };
        let op = FsReadOp {
            mode,
            path: args.path,
            paths: args.paths,
            image_paths: args.image_paths,
            start_line: args.start_line,
            end_line: args.end_line,
            depth: args.depth,
            pattern: args.pattern,
            context_lines: args.context_lines,
            exclude_patterns: args.exclude_patterns,
            max_entries: args.max_entries,
            offset: args.offset,
        };
        return read_one(ws, &op, "", &ws.reply_budget()).map(Read::reply);
    };
    if !given.is_empty() {
        return Err(FkError::invalid(format!(
            "fs_read: `operations` and the top-level argument{} {} were both given",
            if given.len() == 1 { "" } else { "s" },
            given
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint(
            "put each read's mode, path and other arguments inside its entry of `operations`",
        ));
    }
    if ops.is_empty() {
        return Err(FkError::invalid("fs_read: `operations` is empty")
            .with_hint("give at least one operation, such as {\"mode\": \"Line\", \"path\": \"src/main.rs\"}"));
    }
    if ops.len() == 1 {
        // As the Q CLI does: a single operation answers as that read alone.
        return read_one(ws, &ops[0], "operations[0].", &ws.reply_budget()).map(Read::reply);
    }
    // Several: one result each, in order, and the Q CLI's text for a batch.
    let mut results = Vec::with_capacity(ops.len());
    let mut texts = Vec::with_capacity(ops.len());
    let mut images = Vec::new();
    let (mut ok, mut failed) = (0, 0);
    // The operations are one reply: each runs while the reply has room.
    let budget = ws.reply_budget();
    for (i, op) in ops.iter().enumerate() {
        let run = if budget.spent_for(1) {
            Err(budget.refusal(
                &format!("operations[{i}] was not run"),
                0,
                "run it in another call; the operations before it in this call ran",
            ))
        } else {
            read_one(ws, op, &format!("operations[{i}]."), &budget)
        };
        let read = match run {
            Ok(read) => read,
            Err(err) => Read {
                answer: ReadAnswer::Rejected(Failure::of(&err)),
                text: err.full_message(),
                images: Vec::new(),
            },
        };
        if matches!(op.mode, ReadMode::Directory | ReadMode::Search) {
            budget.settle(0, read.text.len() as u64);
        }
        let is_error = read.is_error();
        let kind = if is_error {
            failed += 1;
            "Error".to_string()
        } else {
            ok += 1;
            match op.mode {
                ReadMode::Image => "Result (Images)".to_string(),
                _ => "Result (Json)".to_string(),
            }
        };
        let body = if op.mode == ReadMode::Image && !is_error {
            format!("[{} images processed]", read.images.len())
        } else {
            read.text.trim_end().to_string()
        };
        texts.push(format!("=== Operation {} {kind} ===\n{body}", i + 1));
        images.extend(read.images);
        // One object per operation: an operation that answers with several entries (`paths`,
        // `image_paths`) has them in its `results`.
        results.push(match read.answer {
            ReadAnswer::One(entry) => BatchItem::Entry(entry),
            ReadAnswer::Several(entries) => BatchItem::Files {
                success: !is_error,
                results: entries,
            },
            ReadAnswer::Rejected(failure) => BatchItem::Rejected(failure),
        });
    }
    let summary = format!(
        "Summary: {} operations processed, {ok} successful, {failed} failed",
        ops.len()
    );
    let mut reply = ToolReply::new(
        FsReadReply::Many { results }.to_value(),
        failed > 0,
        format!("{}\n\n{summary}\n", texts.join("\n\n")),
    );
    reply.images = images;
    Ok(reply)
}

/// What one read answers: one entry; one per file for a read of several (`paths`,
/// `image_paths`); or, for an operation of several whose arguments were refused, the failure.
enum ReadAnswer {
    One(ReadEntry),
    Several(Vec<ReadEntry>),
    Rejected(Failure),
}

/// One read done: its answer, the text the model reads and the images it is shown.
struct Read {
    answer: ReadAnswer,
    text: String,
    images: Vec<(String, String)>,
}

impl Read {
    fn is_error(&self) -> bool {
        match &self.answer {
            ReadAnswer::One(entry) => entry.failed(),
            ReadAnswer::Several(entries) => entries.iter().any(ReadEntry::failed),
            ReadAnswer::Rejected(_) => true,
        }
    }

    /// The read as the whole reply of fs_read.
    fn reply(self) -> ToolReply {
        let is_error = self.is_error();
        let reply = match self.answer {
            ReadAnswer::One(entry) => FsReadReply::Entry(entry),
            ReadAnswer::Several(entries) => FsReadReply::Many {
                results: entries.into_iter().map(BatchItem::Entry).collect(),
            },
            ReadAnswer::Rejected(failure) => FsReadReply::Rejected(failure),
        };
        let mut reply = ToolReply::new(reply.to_value(), is_error, self.text);
        reply.images = self.images;
        reply
    }
}

impl ReadEntry {
    fn failed(&self) -> bool {
        matches!(self, ReadEntry::Failed(_))
    }
}

/// One read. `at` is where its arguments are in the call (`operations[1].`), for messages.
fn read_one(ws: &Call, op: &FsReadOp, at: &str, budget: &ReplyBudget) -> Result<Read, FkError> {
    let at = at.trim_end_matches('.');
    match op.mode {
        ReadMode::Directory => read_directory(ws, op, at),
        ReadMode::Search => search(ws, op, at),
        ReadMode::Image => read_images(ws, op, at, budget),
        ReadMode::Line => read_lines(ws, op, at, budget),
    }
}

fn read_lines(ws: &Call, args: &FsReadOp, at: &str, budget: &ReplyBudget) -> Result<Read, FkError> {
    let (paths, single) = match (&args.path, &args.paths) {
        (Some(_), Some(_)) => {
            return Err(
                FkError::invalid("fs_read: give either `path` or `paths`, not both")
                    .with_hint("`path` reads one file; `paths` reads several and returns an array"),
            );
        }
        (Some(p), None) => (vec![p.clone()], true),
        (None, Some(ps)) if !ps.is_empty() => (ps.clone(), false),
        (None, Some(_)) => {
            return Err(
                FkError::invalid("fs_read: `paths` is empty").with_hint("give at least one path")
            );
        }
        (None, None) => {
            return Err(missing_for(
                "fs_read",
                &FS_READ_SCHEMA,
                at,
                "path",
                "Line mode reads `path` (one file) or `paths` (several)",
            ));
        }
    };
    let range_asked = args.start_line.is_some() || args.end_line.is_some();
    let opts = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: Some(args.start_line.unwrap_or(1)),
        end_line: Some(args.end_line.unwrap_or(-1)),
        images: false,
        max_lines: None,
    };
    let results = read_files_within(ws, &paths, &opts, budget);
    let mut entries: Vec<ReadEntry> = results.iter().map(|r| line_entry(r, range_asked)).collect();
    let answer = if single && entries.len() == 1 {
        ReadAnswer::One(entries.remove(0))
    } else {
        ReadAnswer::Several(entries)
    };
    // The batch proposal's reply is this JSON (numbered content, content_hash, last_modified): the
    // model reads it as it is.
    let text = shape::serialized(&answer_value(&answer));
    Ok(Read {
        answer,
        text,
        images: Vec::new(),
    })
}

/// A read's answer as JSON: its entry, or its entries as an array.
fn answer_value(answer: &ReadAnswer) -> Value {
    match answer {
        ReadAnswer::One(entry) => reply::to_value(entry),
        ReadAnswer::Several(entries) => reply::to_value(entries),
        ReadAnswer::Rejected(failure) => reply::to_value(failure),
    }
}

/// One Line-mode result: `{path, success, content, content_hash, last_modified, ...}`.
fn line_entry(r: &FileRead, range_asked: bool) -> ReadEntry {
    let failed = |err: &FkError| ReadEntry::Failed(Box::new(PathFailure::of(&r.path, err)));
    match &r.result {
        Ok(ReadContent::Text(t)) => ReadEntry::Lines(Box::new(LineEntry {
            path: r.path.clone(),
            success: true,
            content: t.numbered(),
            content_hash: t.content_hash.clone(),
            last_modified: t.last_modified.clone(),
            start_line: t.first_number(),
            end_line: t.last_number(),
            total_lines: t.total_lines,
            unversioned: t.unversioned.as_ref().map(Details::of),
            range_hash: t.range_hash.clone().filter(|_| range_asked),
            truncated: t.truncated,
            next_start_line: t.next_line,
        })),
        Ok(ReadContent::Image(i)) => failed(
            &FkError::new(
                filekit_core::ErrorCode::Binary,
                format!(
                    "{} is an image ({}, {} bytes), not text",
                    r.path, i.mime, i.size
                ),
            )
            .with_hint("read it with mode Image and image_paths to look at it"),
        ),
        Ok(ReadContent::Binary(b)) => failed(
            &FkError::new(
                filekit_core::ErrorCode::Binary,
                format!("{} cannot be read as text: {}", r.path, b.description),
            )
            .with_hint(
                if b.mime.as_deref().is_some_and(|m| m.starts_with("image/")) {
                    "it is an image: read it with mode Image and image_paths to look at it"
                } else {
                    "only text files can be read as lines"
                },
            ),
        ),
        Err(err) => failed(err),
    }
}

fn read_images(
    ws: &Call,
    args: &FsReadOp,
    at: &str,
    budget: &ReplyBudget,
) -> Result<Read, FkError> {
    // The document's Image mode takes image_paths; path/paths are accepted as well because
    // models often send them.
    let paths: Vec<String> = match (&args.image_paths, &args.paths, &args.path) {
        (Some(ps), _, _) if !ps.is_empty() => ps.clone(),
        (None, Some(ps), _) if !ps.is_empty() => ps.clone(),
        (None, None, Some(p)) => vec![p.clone()],
        _ => {
            return Err(missing_for(
                "fs_read",
                &FS_READ_SCHEMA,
                at,
                "image_paths",
                "Image mode needs the paths of the images to show",
            ));
        }
    };
    let opts = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: None,
        end_line: None,
        images: true,
        max_lines: None,
    };
    let results = read_files_within(ws, &paths, &opts, budget);
    let mut images = Vec::new();
    let entries: Vec<ReadEntry> = results
        .iter()
        .map(|r| match &r.result {
            Ok(ReadContent::Image(i)) => {
                images.push((i.mime.clone(), i.data.clone()));
                ReadEntry::Image(Box::new(ImageEntry {
                    path: r.path.clone(),
                    success: true,
                    mime: i.mime.clone(),
                    size: i.size,
                    content_hash: i.content_hash.clone(),
                    last_modified: i.last_modified.clone(),
                    data: i.data.clone(),
                }))
            }
            Ok(_) => {
                let err = FkError::new(
                    filekit_core::ErrorCode::InvalidArgument,
                    format!("{} is not an image (png, jpeg, gif or webp)", r.path),
                )
                .with_hint("read text files with mode Line");
                ReadEntry::Failed(Box::new(PathFailure::of(&r.path, &err)))
            }
            Err(err) => ReadEntry::Failed(Box::new(PathFailure::of(&r.path, err))),
        })
        .collect();
    let answer = ReadAnswer::Several(entries);
    // The images themselves go to the model as images: the text is the reply without them.
    let mut shown = answer_value(&answer);
    for e in shown.as_array_mut().into_iter().flatten() {
        if let Some(m) = e.as_object_mut() {
            m.remove("data");
        }
    }
    Ok(Read {
        answer,
        text: shape::serialized(&shown),
        images,
    })
}

// ---------------------------------------------------------------------------------------------
// fs_write

/// What fs_write lists (its arguments bare): each command's arguments and the line-number rule
/// models get wrong; the rest is in [`FS_WRITE_GUIDE`].
const FS_WRITE_DESCRIPTION: &str = "\
Create and edit files: `command` with `path`, or `fileEdits` [{path, edits: [{command, ...}]}] \
for many edits of many files in one call.
- create: `file_text` as the file (it replaces one that exists; `overwrite: false` refuses).
- str_replace: `old_str` (exactly once, copied exactly) by `new_str`.
- insert: the lines of `new_str` after line `insert_line` (0: at the top).
- append: `new_str` at the end.
- replace_lines: lines `start_line`..`end_line` by `new_str`.
- pattern_replace: `sed_pattern` (s/re/new/flags) over the files of `directory` matching \
`file_pattern`.
Line numbers are 1-based and all refer to the file before this call. In `fileEdits`, insert \
and replace_lines take the file's `content_hash` from fs_read. `dry_run` shows the diff; \
`atomic` writes all or nothing.
Example: {\"command\": \"str_replace\", \"path\": \"src/app.py\", \"old_str\": \"DEBUG = True\", \"new_str\": \"DEBUG = False\"}";

/// The long form of fs_write's description, on its documentation page.
const FS_WRITE_GUIDE: &str = "\
Create and edit files: one edit with `path`, or many edits to many files in one call with \
`fileEdits` (an array of {path, edits}). Commands:
- create: write `file_text` as the file (parent directories are created). As in the Q CLI, \
it replaces a file that exists (the old content stays in the history: undo brings it back); \
`overwrite: false` refuses instead. `new_str` is taken when `file_text` is missing.
- str_replace: replace `old_str` (must occur exactly once; copy it exactly, with indentation) \
by `new_str`.
- insert: insert the lines of `new_str` AFTER line `insert_line` (0 = at the top).
- append: add the lines of `new_str` at the end of the file.
- replace_lines: replace lines `start_line`..`end_line` (inclusive) by the lines of `new_str`; \
\"\" deletes them.
- pattern_replace (not in fileEdits): a sed substitution `sed_pattern` \
(s/pattern/replacement/flags) over every file of `directory` whose name matches \
`file_pattern` (`recursive` for subdirectories, `exclude_patterns` to leave some out; \
.gitignore'd, hidden, binary and huge files are skipped). Like `sed -i`, line by line, but \
each file is written atomically, `dry_run: true` shows the diffs first and `atomic: true` \
changes all files or none. Patterns are Rust regex; `literal: true` takes them as text.

Line numbers are 1-BASED (the numbers fs_read shows) and every line edit (insert, \
replace_lines) of one file refers to the file as it was before this call, whatever their \
order: do not adjust numbers for earlier edits. Overlapping line edits are refused. Then \
str_replace edits apply in the order given, then appends. In `fileEdits`, insert and \
replace_lines need `content_hash` (a single insert or replace_lines with `path` may leave it \
out: it then edits the file as it is, and the reply gives the new content_hash): the file's hash from fs_read (or from the last fs_write reply), or the \
range_hash of exactly the lines edited; if the file changed since that content_hash, the \
edits are merged into it (reply: merged, with the diff written) unless they meet the other \
change, which is refused with CONFLICT showing both sides (or STALE with the current lines \
when that version is unknown). `new_str` of line edits is whole lines: a final newline is optional.

By default each failed edit is reported and the others still apply; `atomic: true` writes \
nothing unless every edit of every file succeeds; `stop_on_error: true` stops a file at its \
first failure and keeps the edits before it; `dry_run: true` only shows the diff. Each reply \
entry has the file's new content_hash and the unified diff. A file in another encoding than \
UTF-8 is edited in it, every byte outside the edit kept (the Q CLI refuses a file that is not \
UTF-8); a character the encoding cannot hold is refused, and nothing is written. `summary` is \
accepted and not used; so is `encoding` when it names UTF-8, another is refused. An argument fs_write does not take (at any depth) is refused with the closest valid \
name, and nothing is written (the Q CLI ignores unknown arguments; filekit refuses them, \
deliberately: a misspelled argument must not change what is written).

Example: {\"command\": \"replace_lines\", \"fileEdits\": [{\"path\": \"src/app.py\", \"edits\": \
[{\"command\": \"replace_lines\", \"start_line\": 10, \"end_line\": 12, \"new_str\": \"    return x\\n\", \
\"content_hash\": \"3f2a9c1e\"}, {\"command\": \"str_replace\", \"old_str\": \"DEBUG = True\", \
\"new_str\": \"DEBUG = False\"}]}]}";

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
enum WriteCommand {
    Create,
    StrReplace,
    Insert,
    Append,
    ReplaceLines,
    PatternReplace,
}

impl WriteCommand {
    fn name(self) -> &'static str {
        match self {
            WriteCommand::Create => "create",
            WriteCommand::StrReplace => "str_replace",
            WriteCommand::Insert => "insert",
            WriteCommand::Append => "append",
            WriteCommand::ReplaceLines => "replace_lines",
            WriteCommand::PatternReplace => "pattern_replace",
        }
    }
}

/// Which arguments each command needs: the one table behind both the schema's conditions
/// and the checks in [`to_edit`].
const NEEDS: &[(WriteCommand, &[&str])] = &[
    (WriteCommand::Create, &["file_text"]),
    (WriteCommand::StrReplace, &["old_str", "new_str"]),
    (
        WriteCommand::Insert,
        &["insert_line", "new_str", "content_hash"],
    ),
    (WriteCommand::Append, &["new_str"]),
    (
        WriteCommand::ReplaceLines,
        &["start_line", "end_line", "new_str", "content_hash"],
    ),
];

// The fields of one edit, shared by the single form (at the top level, with `path`) and each
// entry of `fileEdits[].edits`. (A `//` comment: a doc comment would become a schema text.)
#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// The command to run: `create`, `str_replace`, `insert`, `append` or `replace_lines`.
    /// With `fileEdits` each edit names its own command.
    command: Option<WriteCommand>,
    /// Content of the file to create (`create`); when it is missing, `new_str` is taken.
    file_text: Option<String>,
    /// `create` only: whether a file that exists is replaced (the default, as in the Q CLI;
    /// the old content stays in the history). `false` refuses to replace it.
    #[schemars(extend("default" = true))]
    overwrite: Option<bool>,
    /// The exact text to replace (`str_replace`); it must occur exactly once.
    old_str: Option<String>,
    /// The new text: the replacement (`str_replace`), the lines to insert (`insert`), to add at
    /// the end (`append`) or to put in place of the lines (`replace_lines`).
    new_str: Option<String>,
    /// `insert`: the lines of `new_str` go AFTER this 1-based line; 0 inserts at the top.
    insert_line: Option<i64>,
    /// `replace_lines`: first line to replace, 1-based, inclusive.
    start_line: Option<i64>,
    /// `replace_lines`: last line to replace, 1-based, inclusive.
    end_line: Option<i64>,
    /// `insert`/`replace_lines`: the content_hash fs_read returned for the file (or the
    /// range_hash of exactly the edited lines); 8 or more hex digits. A mismatch writes
    /// nothing. Required in `fileEdits`; a single edit with `path` may leave it out.
    content_hash: Option<String>,
}

impl EditArgs {
    fn has(&self, field: &str) -> bool {
        match field {
            "file_text" => self.file_text.is_some(),
            "old_str" => self.old_str.is_some(),
            "new_str" => self.new_str.is_some(),
            "insert_line" => self.insert_line.is_some(),
            "start_line" => self.start_line.is_some(),
            "end_line" => self.end_line.is_some(),
            "content_hash" => self.content_hash.is_some(),
            _ => true,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct FileEditArgs {
    /// Path of the file, relative to the workspace root or absolute inside it.
    path: String,
    /// The edits of this file. Line edits all refer to the file as it was before the call;
    /// str_replace edits then apply in order; appends last.
    edits: Vec<EditArgs>,
}

#[derive(Deserialize, JsonSchema)]
struct FsWriteArgs {
    /// Path of the file for a single edit (with `command` and its arguments at the top level).
    path: Option<String>,
    /// Many edits to many files in one call: [{path, edits: [{command, ...}, ...]}, ...]. The
    /// reply is an array with one entry per file.
    #[serde(rename = "fileEdits")]
    file_edits: Option<Vec<FileEditArgs>>,
    #[serde(flatten)]
    single: EditArgs,
    /// Preview: compute everything and return the diffs, write nothing.
    #[schemars(extend("default" = false))]
    dry_run: Option<bool>,
    /// All or nothing: write no file unless every edit of every file succeeds.
    #[schemars(extend("default" = false))]
    atomic: Option<bool>,
    /// Stop a file's edits at its first failure (the edits before it are kept).
    #[schemars(extend("default" = false))]
    stop_on_error: Option<bool>,
    /// `pattern_replace`: the directory whose files are searched.
    directory: Option<String>,
    /// `pattern_replace`: glob of the files to change. Without a `/` it matches file names
    /// (`*.js`, also in subdirectories when `recursive`); with one, paths relative to
    /// `directory` (`src/**/*.ts`).
    file_pattern: Option<String>,
    /// `pattern_replace`: a sed substitution, `s/pattern/replacement/flags` (any delimiter;
    /// flags g, i, N, m, s; `&`, `\1`, `$1`, `${name}` in the replacement). Matches are line
    /// by line unless flag m or s.
    sed_pattern: Option<String>,
    /// `pattern_replace`: look in subdirectories too.
    #[schemars(extend("default" = false))]
    recursive: Option<bool>,
    /// `pattern_replace`: globs of files or directories to leave out (`node_modules/**`).
    exclude_patterns: Option<Vec<String>>,
    /// `pattern_replace`: take the sed pattern as fixed text, and the replacement as written.
    #[schemars(extend("default" = false))]
    literal: Option<bool>,
    /// What the change does or why it is made (the Q CLI shows it to the user). Accepted and
    /// not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    summary: Option<String>,
}

static FS_WRITE_SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    let mut schema = schema_for::<FsWriteArgs>();
    // The conditions of the document: each command's own required arguments, on each edit.
    // Each `then` names the schemas of the properties it requires: JSON Schema validators in
    // strict mode (ajv's strictRequired) refuse a `required` whose properties the same
    // subschema does not define.
    let then = |properties: &Value, fields: &[&str]| {
        let defined: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| (f.to_string(), properties[*f].clone()))
            .collect();
        json!({"required": fields, "properties": defined})
    };
    let item_properties =
        schema["properties"]["fileEdits"]["items"]["properties"]["edits"]["items"]["properties"]
            .clone();
    let all_of: Vec<Value> = NEEDS
        .iter()
        .map(|(cmd, fields)| {
            json!({
                "if": {"properties": {"command": {"const": cmd.name()}}, "required": ["command"]},
                "then": then(&item_properties, fields),
            })
        })
        .collect();
    let item = &mut schema["properties"]["fileEdits"]["items"]["properties"]["edits"]["items"];
    item["required"] = json!(["command"]);
    item["allOf"] = Value::Array(all_of);
    let top = then(&schema["properties"], &["file_pattern", "sed_pattern"]);
    schema["allOf"] = json!([{
        "if": {"properties": {"command": {"const": "pattern_replace"}}, "required": ["command"]},
        "then": top,
    }]);
    schema
});

fn fs_write(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    // serde loses the argument path inside a flattened struct, so the top-level edit
    // fields are checked on their own first: a mistyped `old_str` is then named as such.
    parse_ref::<EditArgs>("fs_write", &FS_WRITE_SCHEMA, &args)?;
    let args: FsWriteArgs = parse("fs_write", &FS_WRITE_SCHEMA, args)?;
    if args.single.command == Some(WriteCommand::PatternReplace) {
        return pattern_replace(ws, args);
    }
    let single = match (&args.path, &args.file_edits) {
        (Some(_), Some(_)) => {
            return Err(FkError::invalid(
                "fs_write: give either `path` (one edit) or `fileEdits` (a batch), not both",
            )
            .with_hint("to make several edits, put them all in fileEdits"));
        }
        (None, None) => {
            return Err(missing_for(
                "fs_write",
                &FS_WRITE_SCHEMA,
                "",
                "path",
                "give `path` with one edit, or `fileEdits` for a batch",
            ));
        }
        (Some(_), None) => true,
        (None, Some(_)) => false,
    };

    let files = if let Some(path) = &args.path {
        let Some(command) = args.single.command else {
            return Err(missing_for(
                "fs_write",
                &FS_WRITE_SCHEMA,
                "",
                "command",
                "a single edit needs a command",
            ));
        };
        vec![FileEdits {
            base_hash: None,
            path: path.clone(),
            edits: vec![to_edit(command, &args.single, "", true)?],
        }]
    } else {
        let mut files = Vec::new();
        for (f, fe) in args.file_edits.iter().flatten().enumerate() {
            let mut edits = Vec::with_capacity(fe.edits.len());
            for (e, edit) in fe.edits.iter().enumerate() {
                let at = format!("fileEdits[{f}].edits[{e}]");
                let Some(command) = edit.command else {
                    return Err(missing_for(
                        "fs_write",
                        &FS_WRITE_SCHEMA,
                        &at,
                        "command",
                        "each edit names its command",
                    ));
                };
                edits.push(to_edit(command, edit, &at, false)?);
            }
            files.push(FileEdits {
                base_hash: None,
                path: fe.path.clone(),
                edits,
            });
        }
        if files.is_empty() {
            return Err(FkError::invalid("fs_write: `fileEdits` is empty")
                .with_hint("give at least one {path, edits}"));
        }
        files
    };

    let request = EditRequest {
        files,
        options: EditOptions::builder()
            .dry_run(args.dry_run.unwrap_or(false))
            .atomic(args.atomic.unwrap_or(false))
            .stop_on_error(args.stop_on_error.unwrap_or(false))
            .fuzzy_threshold(None)
            .per_edit_diffs(false)
            .build(),
    };
    let mut report = ws.apply(request);
    shape::word_report(&mut report, &FS_WRITE_WORDS);
    if !single {
        // Which edit failed, as the model wrote it: its place in the arguments.
        for (fi, f) in report.files.iter_mut().enumerate() {
            for o in &mut f.edits {
                if let Some(err) = &mut o.error {
                    err.message = format!(
                        "fileEdits[{fi}].edits[{}] ({}): {}",
                        o.index, o.command, err.message
                    );
                }
            }
        }
    }
    let mut entries: Vec<WriteEntry> = report
        .files
        .iter()
        .map(|f| {
            let err =
                shape::rolled_back_error(&report, f).or_else(|| shape::first_error(f).cloned());
            let skipped = f.edits.iter().filter(|o| o.skipped).count();
            let (diff, note) = shape::capped_diff(&f.diff);
            WriteEntry {
                path: f.path.clone(),
                success: err.is_none(),
                edits_applied: (!single).then_some(f.edits_applied),
                edits_failed: (!single).then_some(f.edits_failed),
                edits_skipped: (!single && skipped > 0).then_some(skipped),
                failed_edits: if single {
                    Vec::new()
                } else {
                    shape::failed_edit_list(f)
                },
                error: err.as_ref().map(PartError::of),
                content_hash: shape::current_hash(f),
                merged: f.merged(),
                diff: (!diff.is_empty()).then(|| diff.to_string()),
                diff_truncated: note,
                dry_run: report.dry_run,
            }
        })
        .collect();
    let value = if single && entries.len() == 1 {
        FsWriteReply::File(Box::new(entries.remove(0)))
    } else {
        FsWriteReply::Files { results: entries }
    };
    // The Q CLI answers a write with no text at all; the batch proposal's reply (content_hash, diff,
    // errors with their hint) is what the model reads.
    Ok(serialized(&value, !report.success()))
}

/// How fs_write names what an edit is about.
const FS_WRITE_WORDS: shape::Words = shape::Words {
    search: "old_str",
    // str_replace replaces exactly one match; there is no argument to ask for more.
    expect: None,
    empty: "give old_str the exact text to replace, with enough surrounding lines to be \
            unique; to add text without replacing any, use command insert (after a line) or \
            append",
    lines: ["start_line", "end_line", "insert_line", "content_hash"],
    exists: Some(
        "`overwrite` is false: leave it out (or set it to true) to replace the file, or change \
         it with str_replace, insert or append",
    ),
};

fn pattern_replace(ws: &Call, args: FsWriteArgs) -> Result<ToolReply, FkError> {
    if args.file_edits.is_some() {
        return Err(FkError::invalid(
            "fs_write: pattern_replace works on a directory and cannot be combined with fileEdits",
        )
        .with_hint("send the pattern_replace in a call of its own"));
    }
    let need = |value: Option<String>, name: &str, why: &str| {
        value.ok_or_else(|| missing_for("fs_write", &FS_WRITE_SCHEMA, "", name, why))
    };
    // The document's `path` is "file or directory": take it for `directory` when that is
    // left out.
    let directory = need(
        args.directory.or(args.path),
        "directory",
        "pattern_replace needs the directory to search",
    )?;
    let file_pattern = need(
        args.file_pattern,
        "file_pattern",
        "pattern_replace needs a glob of the files to change, such as *.js",
    )?;
    let sed_pattern = need(
        args.sed_pattern,
        "sed_pattern",
        "pattern_replace needs a sed substitution such as s/old/new/g",
    )?;
    let substitution = Substitution::parse(&sed_pattern, args.literal.unwrap_or(false))?;
    let selection = FileSelection {
        directory,
        file_pattern,
        recursive: args.recursive.unwrap_or(false),
        exclude_patterns: args.exclude_patterns.unwrap_or_default(),
        ..FileSelection::default()
    };
    let run = shape::run_tree_replace(
        ws,
        selection,
        substitution,
        args.dry_run.unwrap_or(false),
        args.atomic.unwrap_or(false),
    );
    let out = match run {
        Ok(out) => out,
        // No file chosen, or a bad directory: an answer about the request, not a rejection
        // of its arguments.
        Err(err) => {
            let value = FsWriteReply::TreeFailed(Box::new(CommandFailure {
                command: "pattern_replace",
                failure: Failure::of(&err),
            }));
            return Ok(serialized(&value, true));
        }
    };
    Ok(shape_tree_replace(ws, &out, &sed_pattern))
}

/// The pattern_replace reply: counts, then an entry for each file that changed, failed or was
/// skipped (unchanged files are only counted), diffs until the reply's diff budget is spent.
fn shape_tree_replace(ws: &Call, out: &TreeReplaceReport, sed_pattern: &str) -> ToolReply {
    let report = &out.report;
    let count = |s: FileStatus| out.count(s);
    let mut budget = shape::DiffBudget::new();
    let mut listed = shape::ListBudget::new(ws);
    let mut entries = Vec::new();
    for f in &report.files {
        if f.status() == FileStatus::Unchanged && f.success() || !listed.take(&f.path) {
            continue;
        }
        let err = shape::rolled_back_error(report, f).or_else(|| shape::first_error(f).cloned());
        let replacements: usize = f.edits.iter().map(|o| o.replacements).sum();
        entries.push(TreeFileEntry {
            path: f.path.clone(),
            success: err.is_none(),
            replacements,
            skipped: f.skipped().map(str::to_string),
            error: err.as_ref().map(PartError::of),
            diff: budget.take(&f.diff).map(str::to_string),
            content_hash: shape::current_hash(f).filter(|_| f.skipped().is_none()),
        });
    }
    listed.cut += out.dropped.not_listed;
    let modified = count(FileStatus::Modified);
    let skipped = count(FileStatus::Skipped) + out.walk_skipped.len();
    let summary = format!(
        "pattern_replace {sed_pattern}: {} replacement(s) in {modified} file(s){}; {} unchanged, {skipped} skipped, {} failed, of {} matched{}",
        out.replacements(),
        if report.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        },
        count(FileStatus::Unchanged) + out.unmatched,
        out.failed(),
        out.chosen,
        listed.note(ws, "directory or file_pattern"),
    );
    let cut_note = (budget.cut > 0 || out.previews_cut > 0).then(|| {
        format!(
            "the diffs of {} file(s) are left out to keep this reply readable; read those files, or narrow file_pattern, to see them",
            budget.cut + out.previews_cut
        )
    });
    let value = FsWriteReply::Tree(Box::new(TreeReplaceReply {
        command: "pattern_replace",
        success: out.success(),
        summary,
        files_matched: out.chosen,
        files_modified: modified,
        files_unchanged: count(FileStatus::Unchanged) + out.unmatched,
        files_skipped: skipped,
        files_failed: out.failed(),
        replacements: out.replacements(),
        files: entries,
        diff_truncated: cut_note,
        rolled_back: report.rolled_back,
        dry_run: report.dry_run,
    }));
    serialized(&value, !out.success())
}

/// One edit's arguments -> the engine's edit, after checking that the command has what it
/// needs (`at` is where the edit is in the arguments, for messages).
fn to_edit(command: WriteCommand, e: &EditArgs, at: &str, single: bool) -> Result<Edit, FkError> {
    if command == WriteCommand::PatternReplace {
        return Err(FkError::invalid(format!(
            "fs_write: {at}: pattern_replace works on a directory, not as an edit of one file"
        ))
        .with_hint("send it at the top level: {\"command\": \"pattern_replace\", \"directory\": ..., \"file_pattern\": ..., \"sed_pattern\": ...}"));
    }
    let needs = NEEDS
        .iter()
        .find(|(c, _)| *c == command)
        .map(|(_, f)| *f)
        .unwrap_or(&[]);
    for field in needs {
        // The shipping Q CLI's single edit (no `fileEdits`) has no content_hash: its insert
        // (and a single replace_lines) runs on the file as it is. The batch shape of seed
        // 000 keeps requiring it.
        if single && *field == "content_hash" {
            continue;
        }
        // The Q CLI's create takes `new_str` when `file_text` is missing.
        if *field == "file_text" && e.new_str.is_some() {
            continue;
        }
        if !e.has(field) {
            let why = format!("command {} needs it", command.name());
            let why = if *field == "content_hash" {
                format!(
                    "{why} (take it from fs_read or from the last fs_write reply for this file)"
                )
            } else {
                why
            };
            return Err(missing_for("fs_write", &FS_WRITE_SCHEMA, at, field, &why));
        }
    }
    let text = |o: &Option<String>| o.clone().unwrap_or_default();
    Ok(match command {
        WriteCommand::Create => Edit::Create {
            content: text(if e.file_text.is_some() {
                &e.file_text
            } else {
                &e.new_str
            }),
            // As the Q CLI: create replaces a file that exists (recorded in the history, so
            // undo brings it back); `overwrite: false` refuses instead.
            overwrite: e.overwrite.unwrap_or(true),
        },
        WriteCommand::StrReplace => Edit::ReplaceText {
            old: text(&e.old_str),
            new: text(&e.new_str),
            expected: Expected::Exactly(1),
            label: None,
        },
        WriteCommand::Insert => Edit::Insert {
            after: e.insert_line.unwrap_or(0),
            text: text(&e.new_str),
            content_hash: e.content_hash.clone(),
        },
        WriteCommand::Append => Edit::Append {
            text: text(&e.new_str),
        },
        WriteCommand::ReplaceLines => Edit::ReplaceLines {
            start: e.start_line.unwrap_or(0),
            end: e.end_line,
            new: text(&e.new_str),
            content_hash: e.content_hash.clone(),
        },
        WriteCommand::PatternReplace => unreachable!("refused above"),
    })
}

// ---------------------------------------------------------------------------------------------
// fs_read Directory and Search

/// Entries (Directory) and lines (Search) fs_read shows before it cuts the reply.
const SEARCH_LIMIT: usize = 1000;

fn read_directory(ws: &Call, args: &FsReadOp, at: &str) -> Result<Read, FkError> {
    use filekit_core::search::list::{ListOptions, list, render_long};
    let Some(path) = args.path.clone() else {
        return Err(missing_for(
            "fs_read",
            &FS_READ_SCHEMA,
            at,
            "path",
            "Directory mode lists the directory `path`",
        ));
    };
    let max_entries = args.max_entries.unwrap_or(SEARCH_LIMIT);
    if max_entries == 0 {
        return Err(FkError::invalid("fs_read: argument `max_entries` is 0")
            .with_hint("give at least 1, or leave it out for the default of 1000"));
    }
    let offset = args.offset.unwrap_or(0);
    let opts = ListOptions {
        path: Some(path.clone()),
        depth: args.depth.unwrap_or(0).saturating_add(1),
        filter: None,
        ignore: args.exclude_patterns.clone().unwrap_or_default(),
        walk: Default::default(),
        limit: Some(offset.saturating_add(max_entries)),
    };
    let mut listing = match list(ws, &opts) {
        Ok(l) => l,
        Err(err) => return Ok(failed_entry(&path, &err)),
    };
    // The page asked for: `offset` entries skipped, then at most `max_entries`.
    listing.entries.drain(..offset.min(listing.entries.len()));
    // Each entry as a path that reads back as it is shown: under the directory as it was
    // given (the Q CLI shows the listed path joined with each entry's name).
    let base = path.trim_end_matches('/');
    if !(base.is_empty() && !path.starts_with('/') || base == ".") {
        for e in &mut listing.entries {
            e.name = format!("{base}/{}", e.name);
        }
    }
    let shown_to = offset + listing.entries.len();
    let more = listing.total.saturating_sub(shown_to);
    let mut content = format!("total {}\n", listing.total);
    content.push_str(&render_long(&listing));
    if offset > 0 || more > 0 {
        content.push_str(&format!(
            "(showing entries {}-{shown_to} of {}",
            (offset + 1).min(listing.total.max(1)),
            listing.total
        ));
        if more > 0 {
            content.push_str(&format!(
                "; {more} more: give offset={shown_to} to see the next ones, or list a \
                 subdirectory, lower depth or add exclude_patterns"
            ));
        }
        content.push_str(")\n");
    }
    if listing.skipped.count > 0 {
        content.push_str(&format!(
            "({} unreadable entries skipped)\n",
            listing.skipped.count
        ));
    }
    Ok(entry_read(ReadEntry::Directory(Box::new(DirectoryEntry {
        path: listing.path.clone(),
        success: true,
        content,
        total: listing.total,
        truncated: more > 0,
        offset: (offset > 0).then_some(offset),
    }))))
}

fn search(ws: &Call, args: &FsReadOp, at: &str) -> Result<Read, FkError> {
    use filekit_core::search::grep::{GrepOptions, OutputMode, grep};
    let Some(path) = args.path.clone() else {
        return Err(missing_for(
            "fs_read",
            &FS_READ_SCHEMA,
            at,
            "path",
            "Search mode searches the file or directory `path`",
        ));
    };
    let Some(pattern) = args.pattern.clone().filter(|p| !p.is_empty()) else {
        return Err(missing_for(
            "fs_read",
            &FS_READ_SCHEMA,
            at,
            "pattern",
            "Search mode looks for the text `pattern` (case-insensitive)",
        ));
    };
    let context = args.context_lines.unwrap_or(2);
    let opts = GrepOptions {
        pattern,
        path: Some(path.clone()),
        mode: OutputMode::Content,
        before: context,
        after: context,
        case_insensitive: true,
        fixed_strings: true,
        head_limit: Some(SEARCH_LIMIT),
        max_line_chars: Some(1000),
        ..Default::default()
    };
    let result = match grep(ws, &opts) {
        Ok(r) => r,
        Err(err) => return Ok(failed_entry(&path, &err)),
    };
    let single_file = std::path::Path::new(&result.base).is_file();
    let mut content = String::new();
    let mut matches = Vec::new();
    for f in &result.files {
        if !single_file {
            content.push_str(&format!("{}:\n", f.path));
        }
        let mut previous: Option<u64> = None;
        for l in &f.lines {
            if result.context && previous.is_some_and(|p| l.line > p + 1) {
                content.push_str("--\n");
            }
            previous = Some(l.line);
            let sep = if l.is_match { ':' } else { '-' };
            content.push_str(&format!("Line {}{sep} {}\n", l.line, l.text));
            if l.is_match {
                matches.push(SearchMatch {
                    path: f.path.clone(),
                    line: l.line,
                    text: l.text.clone(),
                });
            }
        }
    }
    if result.total_files == 0 {
        content.push_str("No matches found\n");
    }
    if result.truncated {
        content.push_str(&format!(
            "... {} more lines not shown (cut at {SEARCH_LIMIT}): search a smaller path or a more specific pattern\n",
            result.total_rows - result.shown_rows
        ));
    }
    Ok(entry_read(ReadEntry::Search(Box::new(SearchEntry {
        path: result.base.clone(),
        success: true,
        content,
        matches,
        total_matches: result.total_matches,
        truncated: result.truncated,
    }))))
}

fn failed_entry(path: &str, err: &FkError) -> Read {
    entry_read(ReadEntry::Failed(Box::new(PathFailure::of(path, err))))
}

/// A read of one entry, its JSON the text the model reads.
fn entry_read(entry: ReadEntry) -> Read {
    let answer = ReadAnswer::One(entry);
    Read {
        text: shape::serialized(&answer_value(&answer)),
        answer,
        images: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_offer_only_what_is_served() {
        let read = FS_READ_SCHEMA.to_string();
        for mode in ["Line", "Image", "Directory", "Search"] {
            assert!(read.contains(&format!("\"{mode}\"")), "{mode} not offered");
        }
        for arg in ["depth", "pattern", "context_lines"] {
            assert!(FS_READ_SCHEMA["properties"][arg].is_object(), "{arg}");
        }
        let write = &*FS_WRITE_SCHEMA;
        let commands = &write["properties"]["command"]["enum"];
        assert_eq!(
            commands,
            &json!([
                "create",
                "str_replace",
                "insert",
                "append",
                "replace_lines",
                "pattern_replace"
            ])
        );
        assert_eq!(
            write["allOf"][0]["then"]["required"],
            json!(["file_pattern", "sed_pattern"])
        );
        assert!(
            write["properties"]["fileEdits"]["items"]["properties"]["edits"]["items"]["allOf"]
                .is_array()
        );
        assert!(write["properties"]["overwrite"].is_object());
    }
}
