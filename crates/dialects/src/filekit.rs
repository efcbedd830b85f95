//! The curated `filekit` table: filekit's own design, three tools that cover what the engine
//! does without the constraints of another tool family's shapes.
//!
//! - `read_files`: many files (or line ranges of them) in one call, each with its version
//!   (`content_hash`, `last_modified`) so that later line edits can be checked against it.
//! - `edit_files`: the edit plan of `filekit edit` ([`crate::edit_plan`]): many edits to many
//!   files in one call, line edits all referring to the file as read, text replacements in
//!   order, atomic per file (or for the whole request), with a dry run.
//! - `replace_in_files`: a sed `s/…/…/` expression over the files a glob chooses in a tree.
//!
//! Replies are the engine's own records (`FileRead`, `EditReport`) under `files`, so nothing
//! is lost in translation; the text a model reads is numbered lines for reads and a summary
//! plus diffs for edits.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::edit_plan::EditPlan;
use crate::reply::{self, PartError};
use crate::shape;
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::FkError;
use filekit_core::edit::{EditReport, FileStatus};
use filekit_core::read::{ReadContent, ReadOptions, read_file_within};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

/// Files one `read_files` call may name: a bound on reply size, far above what a model needs.
const MAX_FILES_PER_READ: usize = 1000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read_files",
            dialect: "filekit",
            description: READ_DESCRIPTION,
            input_schema: &READ_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: read_files,
            reject,
            guide: READ_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<ReadFilesReply>),
        },
        ToolSpec {
            name: "edit_files",
            dialect: "filekit",
            description: EDIT_DESCRIPTION,
            input_schema: &EDIT_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: edit_files,
            reject,
            guide: EDIT_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<EditFilesReply>),
        },
        ToolSpec {
            name: "replace_in_files",
            dialect: "filekit",
            description: REPLACE_DESCRIPTION,
            input_schema: &REPLACE_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: replace_in_files,
            reject,
            guide: REPLACE_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<ReplaceReply>),
        },
        ToolSpec {
            name: "lock",
            dialect: "filekit",
            description: LOCK_DESCRIPTION,
            input_schema: &LOCK_SCHEMA,
            read_only: false,
            destructive: false,
            idempotent: true,
            run: lock_tool,
            reject,
            guide: LOCK_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<LeaseReply>),
        },
        ToolSpec {
            name: "unlock",
            dialect: "filekit",
            description: UNLOCK_DESCRIPTION,
            input_schema: &UNLOCK_SCHEMA,
            read_only: false,
            destructive: false,
            idempotent: true,
            run: unlock_tool,
            reject,
            guide: UNLOCK_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<LeaseReply>),
        },
    ]
}

pub(crate) fn reject(err: &FkError) -> Value {
    reply::failure(err)
}

// ---------------------------------------------------------------------------------------------
// read_files

const READ_DESCRIPTION: &str = "\
Read files, whole or by line range, many in one call: list every file you need in `files`. Lines come back numbered (line number, tab, line; the numbers are not part of the file) under a header with the file's content_hash: give it to edit_files' line edits, which are then refused if the file changed. start_line/end_line are 1-based and inclusive; negative counts from the end. A long read stops at a whole line and says where to read on. Read again with `since_hash` (the content_hash you have) to get only the diff since.

Example: {\"files\": [{\"path\": \"src/app.py\"}, {\"path\": \"src/util.py\", \"start_line\": 40, \"end_line\": 80}]}";

/// The long form of [`READ_DESCRIPTION`], for the documentation page.
const READ_GUIDE: &str = "\
Read one or many files in one call, whole or by line range. Use it instead of reading files \
one by one: list every file (or range) you need in `files`.

Text comes back numbered (line number, tab, line; the first line is 1), under a header with \
the file's content_hash and last_modified. The numbers are not part of the file. Give \
content_hash to edit_files' line edits (replace_lines, insert) so that an edit is refused if \
the file changed after you read it. start_line/end_line are 1-based and inclusive; negative \
numbers count from the end (-1 is the last line). Images come back as images. A file that \
fails (missing, outside the workspace, binary) is reported on its own; the others still come \
back.

Already read a file? Give `since_hash` (its content_hash then) to get only what changed \
since: a unified diff, or `unchanged: true`; the whole file when that version is unknown \
(`since_unknown`).

Example: {\"files\": [{\"path\": \"src/app.py\"}, {\"path\": \"src/util.py\", \"start_line\": 40, \"end_line\": 80}]}";

#[derive(Deserialize, JsonSchema)]
struct ReadFilesArgs {
    /// The files to read, in the order you want them back.
    files: Vec<ReadSpec>,
    /// The files' encoding, when it is not the one detected (a WHATWG label: "shift_jis",
    /// "windows-1252", "utf-16le", "gb18030", "euc-kr"). Default: each file's own (UTF-8,
    /// UTF-16 by its byte order mark, else detected), named in the reply's `encoding`.
    encoding: Option<crate::edit_plan::EncodingLabel>,
}

#[derive(Deserialize, JsonSchema)]
struct ReadSpec {
    /// The file, relative to the first workspace root or absolute inside a root.
    path: String,
    /// First line to return, 1-based; negative counts from the end (default: 1).
    start_line: Option<i64>,
    /// Last line to return, inclusive; negative counts from the end (default: the last line).
    end_line: Option<i64>,
    /// The content_hash of the version you already have: the reply is then only what changed
    /// since (a unified diff of the whole file), or `unchanged: true`.
    since_hash: Option<String>,
}

static READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadFilesArgs>);

fn read_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadFilesArgs = parse("read_files", &READ_SCHEMA, args)?;
    if args.files.is_empty() {
        return Err(FkError::invalid("read_files: `files` is empty")
            .with_hint("list the files to read, e.g. {\"files\": [{\"path\": \"README.md\"}]}"));
    }
    if args.files.len() > MAX_FILES_PER_READ {
        return Err(FkError::invalid(format!(
            "read_files: {} files in one call; at most {MAX_FILES_PER_READ}",
            args.files.len()
        ))
        .with_hint("split the list into several calls"));
    }
    let mut entries = Vec::with_capacity(args.files.len());
    let mut text = String::new();
    let mut images = Vec::new();
    let mut failed = 0;
    let encoding = args.encoding.map(|e| e.0);
    let budget = ws.reply_budget();
    for (i, spec) in args.files.iter().enumerate() {
        // Past the reply's room, one entry stands for the rest.
        if let Some(rest) = budget.no_room_for_files(&spec.path, args.files.len() - i - 1) {
            failed += 1;
            text.push_str(&format!(
                "==> {} <==\nERROR {}\n",
                spec.path,
                rest.full_message()
            ));
            entries.push(ReadEntry {
                path: spec.path.clone(),
                body: ReadBody::Failed(PartError::of(&rest)),
            });
            break;
        }
        let opts = ReadOptions {
            since_hash: spec.since_hash.clone(),
            start_line: spec.start_line,
            end_line: spec.end_line,
            images: true,
            max_lines: None,
            encoding,
        };
        let read = read_file_within(ws, &spec.path, &opts, &budget);
        budget.charge(filekit_core::read::entry_bytes(&spec.path, &read.result));
        let path = shape::shown_path(ws, read.resolved_path.as_deref().unwrap_or(&read.path));
        let body = match &read.result {
            Ok(ReadContent::Text(t)) => {
                if t.unchanged {
                    text.push_str(&format!(
                        "==> {path} (unchanged since {}: {}, {} lines) <==\n",
                        spec.since_hash.as_deref().unwrap_or_default(),
                        shape::read_version(t),
                        t.total_lines.unwrap_or_default()
                    ));
                } else if let Some(diff) = &t.diff {
                    text.push_str(&format!(
                        "==> {path} (changed since {}; now {}, {} lines; the diff from your version follows) <==\n{diff}",
                        spec.since_hash.as_deref().unwrap_or_default(),
                        shape::read_version(t),
                        t.total_lines.unwrap_or_default(),
                    ));
                } else {
                    if t.since_unknown && t.unversioned.is_some() {
                        text.push_str(&format!(
                            "[{path}: too large to have versions, so since_hash does not apply; the lines follow]\n",
                        ));
                    } else if t.since_unknown {
                        text.push_str(&format!(
                            "[{path}: version {} is not one filekit kept, so the whole content follows]\n",
                            spec.since_hash.as_deref().unwrap_or_default()
                        ));
                    }
                    text.push_str(&format!(
                        "==> {path} ({}, {}, last_modified {}) <==\n{}",
                        shape::read_lines(t),
                        shape::read_version(t),
                        t.last_modified,
                        t.numbered()
                    ));
                }
                if let Some(on) = shape::read_on(t, "start_line") {
                    text.push_str(&on);
                    text.push('\n');
                }
                ReadBody::Text(TextBody::of(t))
            }
            Ok(ReadContent::Image(i)) => {
                text.push_str(&format!(
                    "==> {path} (image {}, {} bytes, content_hash {}) <==\n",
                    i.mime, i.size, i.content_hash
                ));
                // The image travels as image content; its base64 is not repeated here.
                images.push((i.mime.clone(), i.data.clone()));
                ReadBody::Image {
                    mime: i.mime.clone(),
                    size: i.size,
                    content_hash: i.content_hash.clone(),
                    last_modified: i.last_modified.clone(),
                }
            }
            Ok(ReadContent::Binary(b)) => {
                text.push_str(&format!("==> {path} <==\n{}\n", b.description));
                ReadBody::Binary {
                    size: b.size,
                    mime: b.mime.clone(),
                    description: b.description.clone(),
                    content_hash: b.content_hash.clone(),
                    last_modified: b.last_modified.clone(),
                    unversioned: b.unversioned.as_ref().map(LimitJson::of),
                }
            }
            Err(err) => {
                failed += 1;
                let err = shape::shown_error(ws, err);
                text.push_str(&format!("==> {path} <==\nERROR {}\n", err.full_message()));
                ReadBody::Failed(PartError::of(&err))
            }
        };
        entries.push(ReadEntry { path, body });
    }
    let files_read = entries.len() - failed;
    let value = ReadFilesReply {
        success: files_read == args.files.len(),
        files_read,
        files_failed: args.files.len() - files_read,
        files: entries,
    };
    let mut reply = ToolReply::typed(&value, !value.success, text);
    reply.images = images;
    Ok(reply)
}

/// What read_files answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ReadFilesReply {
    /// True when every file was read.
    success: bool,
    files_read: usize,
    /// The files not read, the ones the last entry stands for included.
    files_failed: usize,
    /// One entry per file asked for, in order; when the reply is full, one entry stands for
    /// the file where it filled and every one after it.
    files: Vec<ReadEntry>,
}

#[derive(Serialize, JsonSchema)]
struct ReadEntry {
    /// The file, relative to the workspace root.
    path: String,
    #[serde(flatten)]
    body: ReadBody,
}

/// What a file held, by kind, or why it could not be read.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ReadBody {
    Text(TextBody),
    /// An image: its data comes as image content beside the reply.
    Image {
        mime: String,
        size: u64,
        content_hash: String,
        last_modified: String,
    },
    Binary {
        size: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
        /// What the file is, since its bytes are not text.
        description: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        content_hash: Option<String>,
        last_modified: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        unversioned: Option<LimitJson>,
    },
    Failed(PartError),
}

#[derive(Serialize, JsonSchema)]
struct TextBody {
    /// The lines read, exactly as in the file (no line numbers); absent when only the diff
    /// since `since_hash` is given, or nothing changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    /// First line returned; negative when counted from the end (a file too large to be
    /// counted from its start).
    start_line: i64,
    end_line: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<usize>,
    /// The file's version: give it to line edits. Absent for a file too large to be read
    /// whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// The version of exactly the lines read.
    #[serde(skip_serializing_if = "Option::is_none")]
    range_hash: Option<String>,
    last_modified: String,
    size: u64,
    /// The file starts with a byte order mark, which belongs to no line.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    bom: bool,
    /// The file's encoding when it is not UTF-8 ("Shift_JIS", "UTF-16LE", "windows-1252"):
    /// `content` is its text, and edits are written back in that encoding.
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    /// When truncated: the start_line to read on from.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_line: Option<i64>,
    /// With since_hash: the file is still that version.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unchanged: bool,
    /// With since_hash: the unified diff from that version to the file now.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// With since_hash: that version is not one filekit kept, so the content is whole.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    since_unknown: bool,
    /// A file too large to be read whole has no version: the bound it is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    unversioned: Option<LimitJson>,
}

/// A bound a request went past: what (`file_size`, ...), how much was found, the most allowed
/// and in what unit.
#[derive(Serialize, JsonSchema)]
pub(crate) struct LimitJson {
    kind: String,
    found: u64,
    max: u64,
    unit: &'static str,
}

impl LimitJson {
    pub(crate) fn of(l: &filekit_core::LimitFacts) -> LimitJson {
        LimitJson {
            kind: serde_json::to_value(l.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            found: l.found,
            max: l.max,
            unit: l.unit,
        }
    }
}

impl TextBody {
    fn of(t: &filekit_core::read::TextRead) -> TextBody {
        let only_changes = t.unchanged || t.diff.is_some();
        TextBody {
            content: (!only_changes).then(|| t.content.clone()),
            start_line: t.first_number(),
            end_line: t.last_number(),
            total_lines: t.total_lines,
            content_hash: t.content_hash.clone(),
            range_hash: t.range_hash.clone(),
            last_modified: t.last_modified.clone(),
            size: t.size,
            bom: t.bom,
            encoding: t.encoding,
            truncated: t.truncated,
            next_line: t.next_line,
            unchanged: t.unchanged,
            diff: t.diff.clone(),
            since_unknown: t.since_unknown,
            unversioned: t.unversioned.as_ref().map(LimitJson::of),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// edit_files

const EDIT_DESCRIPTION: &str = "\
Create and edit files: many edits to many files in one call; batch what belongs together. Each edit is an object with one key:
- create {content, overwrite?}: the whole file
- str_replace {old, new, expected?}: exact text, which must occur `expected` times (default 1, or \"all\")
- replace_lines {start, end?, new, content_hash?}: lines start..end, inclusive
- insert {after, text, content_hash?}: after line `after` (0: at the top)
- append {text}
Every line number refers to the file as you read it, whatever the order of the edits: never shift them for earlier edits. A failed edit is reported with the closest near miss; the others still apply unless options.atomic. options.dry_run shows the diffs and writes nothing. base_hash (the content_hash you read) merges your edits into changes made since.

Example: {\"files\": [{\"path\": \"src/app.py\", \"edits\": [{\"replace_lines\": {\"start\": 10, \"end\": 12, \"new\": \"    return x\\n\", \"content_hash\": \"3f2a9c1e\"}}, {\"str_replace\": {\"old\": \"DEBUG = True\", \"new\": \"DEBUG = False\"}}]}], \"options\": {\"dry_run\": true}}";

/// The long form of [`EDIT_DESCRIPTION`], for the documentation page.
const EDIT_GUIDE: &str = "\
Create and edit files: many edits to many files in one call. Use it for every change, from \
one replacement to a refactor across files; batch what belongs together.

`files` lists each file with its `edits`; each edit is an object with one key:
- create {content, overwrite?}: write the whole file (its first edit; parents are created)
- str_replace {old, new, expected?, label?}: replace exact text; `old` must occur exactly \
`expected` times (default 1, or \"all\")
- replace_lines {start, end?, new, content_hash?}: replace lines start..end (inclusive)
- insert {after, text, content_hash?}: insert lines after line `after` (0 = at the top)
- append {text}: add lines at the end

Ordering: all line numbers in one call refer to the file as you read it, whatever the order \
of the edits (no need to adjust for earlier edits); str_replace edits then apply in order, \
each on the result of the one before; appends last. Give the content_hash from read_files \
with line edits: if the file changed, the edit is refused and the current lines are shown. \
Each file is written atomically; a failed edit is reported (with the closest near miss for \
str_replace) and the others still apply, unless options.atomic (write nothing unless all \
succeed) or options.stop_on_error. options.dry_run shows the diffs without writing. The \
reply gives each file's diff and its new content_hash for the next edit.

Several agents on one workspace: give each file's `base_hash` (the content_hash you read). If \
the file changed since, your edits (line numbers and texts of your version) are merged into \
it and the reply says merged: true with the diff written; where they meet the other change, \
the file is refused with CONFLICT showing both sides with line numbers. A path leased by \
another agent (tool lock) is refused with LOCKED.

Example: {\"files\": [{\"path\": \"src/app.py\", \"edits\": [{\"replace_lines\": {\"start\": 10, \"end\": 12, \"new\": \"    return x\\n\", \"content_hash\": \"3f2a9c1e\"}}, {\"str_replace\": {\"old\": \"DEBUG = True\", \"new\": \"DEBUG = False\"}}]}], \"options\": {\"dry_run\": true}}";

static EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditPlan>);

fn edit_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let plan: EditPlan = parse("edit_files", &EDIT_SCHEMA, args)?;
    let request = plan.into_request(false, false, false);
    if request.files.is_empty() {
        return Err(FkError::invalid("edit_files: `files` is empty").with_hint(
            "list the files to edit, e.g. {\"files\": [{\"path\": \"a.txt\", \"edits\": [...]}]}",
        ));
    }
    let mut report = ws.apply(request);
    // The plan's words: `old`, `expected`, `start`, `after`, ...
    shape::word_report(&mut report, &crate::edit_plan::PLAN_WORDS);
    let mut text = shape::write_summary(&report, true, shape::Diffs::Short);
    if let Some(entry) = report.history_entry {
        text.push_str(&format!("history_entry {entry}\n"));
    }
    let value = EditFilesReply::of(ws, &report);
    Ok(ToolReply::typed(&value, !report.success(), text))
}

/// What edit_files answers: what changed, file by file; a dry run's diffs, an apply's when
/// they are short (the text the model reads says the same).
#[derive(Serialize, JsonSchema)]
pub(crate) struct EditFilesReply {
    /// True when every edit of every file succeeded.
    success: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// True when the request was all or nothing and something failed: no file was written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rolled_back: bool,
    /// True when the call was cancelled before anything was written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cancelled: bool,
    /// The history entry that records the change: `undo` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    /// One report per file, in order.
    files: Vec<EditedFile>,
}

impl EditFilesReply {
    pub(crate) fn of(ws: &filekit_core::Workspace, report: &EditReport) -> EditFilesReply {
        EditFilesReply {
            success: report.success(),
            dry_run: report.dry_run,
            rolled_back: report.rolled_back,
            cancelled: report.cancelled,
            history_entry: report.history_entry,
            files: report
                .files
                .iter()
                .map(|f| EditedFile::of(ws, report, f))
                .collect(),
        }
    }
}

/// A file's status after a request.
#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Created,
    Modified,
    Unchanged,
    Failed,
    Skipped,
}

impl From<FileStatus> for Status {
    fn from(s: FileStatus) -> Status {
        match s {
            FileStatus::Created => Status::Created,
            FileStatus::Modified => Status::Modified,
            FileStatus::Unchanged => Status::Unchanged,
            FileStatus::Failed => Status::Failed,
            FileStatus::Skipped => Status::Skipped,
        }
    }
}

/// One file of a write.
#[derive(Serialize, JsonSchema)]
pub(crate) struct EditedFile {
    /// Relative to the workspace root.
    path: String,
    status: Status,
    edits_applied: usize,
    #[serde(skip_serializing_if = "is_zero")]
    edits_failed: usize,
    lines_added: usize,
    lines_removed: usize,
    /// The file's version now (after the write; before it when it was not written): give it
    /// to the next line edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// The edits that failed, were not tried, or matched only approximately.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    edits: Vec<EditNote>,
    /// The unified diff: always for a dry run, for a write when it is short.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// Why the diff is cut or left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_note: Option<String>,
    /// The file had changed since base_hash: the edits were merged into it (the diff is
    /// what was written).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    merged: bool,
    /// The version the merged edits were made on.
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_from: Option<String>,
    /// The file's encoding when it is not UTF-8: the edits were written in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    /// Directories made for the file, relative to the workspace root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    created_dirs: Vec<String>,
    /// Why the file was left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl EditedFile {
    pub(crate) fn of(
        ws: &filekit_core::Workspace,
        report: &EditReport,
        f: &filekit_core::edit::FileReport,
    ) -> EditedFile {
        let (diff, diff_note) = shape::reply_diff(report, f);
        let failure = f
            .error()
            .cloned()
            .or_else(|| shape::rolled_back_error(report, f));
        EditedFile {
            path: shape::shown_path(ws, &f.resolved_path),
            status: f.status().into(),
            edits_applied: f.edits_applied,
            edits_failed: f.edits_failed,
            lines_added: f.lines_added,
            lines_removed: f.lines_removed,
            content_hash: shape::current_hash(f),
            edits: f
                .edits
                .iter()
                .filter(|o| !o.success || o.skipped || o.fuzzy_similarity.is_some())
                .map(EditNote::of)
                .collect(),
            diff,
            diff_note,
            merged: f.merged(),
            merged_from: f.merged_from.clone(),
            encoding: f.encoding,
            created_dirs: f
                .created_dirs
                .iter()
                .map(|d| shape::shown_path(ws, d))
                .collect(),
            skipped: f.skipped().map(str::to_string),
            failure: failure.as_ref().map(PartError::of),
        }
    }
}

/// An edit worth naming: one that failed, was not tried, or matched approximately.
#[derive(Serialize, JsonSchema)]
struct EditNote {
    /// The edit's place in the file's list, from 0.
    index: usize,
    /// create, str_replace, replace_lines, insert or append.
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    /// How close an approximate match was (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    fuzzy_similarity: Option<f64>,
    /// Not tried: an earlier edit failed and stop_on_error is set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    not_tried: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

impl EditNote {
    fn of(o: &filekit_core::edit::EditOutcome) -> EditNote {
        EditNote {
            index: o.index,
            command: o.command,
            label: o.label.clone(),
            fuzzy_similarity: o.fuzzy_similarity,
            not_tried: o.skipped,
            failure: o.error.as_ref().map(PartError::of),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// replace_in_files

const REPLACE_DESCRIPTION: &str = "\
Replace text across a tree with one sed expression, `s/pattern/replacement/flags`, in every file the glob `files` chooses under `directory`. The pattern is a regular expression (escape ( [ . * to match them as text) unless `literal`; captures are $1 or \\1; flags g, i, or a number. Ignored, hidden and binary files are left alone. Try wide changes with dry_run first.

Example: {\"expression\": \"s/getUser/fetchUser/g\", \"files\": \"*.ts\", \"directory\": \"src\", \"dry_run\": true}";

/// The long form of [`REPLACE_DESCRIPTION`], for the documentation page.
const REPLACE_GUIDE: &str = "\
Replace text across many files with one sed expression: `s/pattern/replacement/flags` over \
every file that `files` (a glob) chooses under `directory`, recursively. Use it for renames \
and mechanical changes across a tree; use edit_files for changes you can spell out per file.

The pattern is a regular expression like sed -E (escape ( [ . * to match them as text), or \
plain text with `literal`; the replacement may use $1, ${name}, \\1 or & for captures; flags: g (every match on a line), i (ignore case), a \
number (only that match). Any delimiter works (s|a/b|c/d|g). .gitignore'd, hidden, binary \
and non-UTF-8 files are left alone. Use dry_run first on wide changes: it shows the diffs and \
writes nothing. Each file is written atomically; with atomic, nothing is written unless every \
file succeeds.

Example: {\"expression\": \"s/getUser/fetchUser/g\", \"files\": \"*.ts\", \"directory\": \"src\", \"dry_run\": true}";

#[derive(Deserialize, JsonSchema)]
struct ReplaceArgs {
    /// The sed substitution: s/pattern/replacement/flags (any delimiter).
    expression: String,
    /// Glob of the files to change: a name pattern (`*.js`) or a path pattern (`src/**/*.ts`).
    files: String,
    /// The directory to search (default: the first workspace root).
    directory: Option<String>,
    /// Look in subdirectories too (default true).
    recursive: Option<bool>,
    /// Globs of files and directories to leave out.
    exclude: Option<Vec<String>>,
    /// Treat the pattern and replacement as plain text, not a regular expression.
    literal: Option<bool>,
    /// Show the diffs; write nothing.
    dry_run: Option<bool>,
    /// All or nothing: write no file unless every file succeeds.
    atomic: Option<bool>,
}

static REPLACE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReplaceArgs>);

fn replace_in_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReplaceArgs = parse("replace_in_files", &REPLACE_SCHEMA, args)?;
    let substitution = Substitution::parse(&args.expression, args.literal.unwrap_or(false))?;
    let selection = FileSelection {
        directory: args.directory.unwrap_or_else(|| ".".to_string()),
        file_pattern: args.files,
        recursive: args.recursive.unwrap_or(true),
        exclude_patterns: args.exclude.unwrap_or_default(),
        ..FileSelection::default()
    };
    let literal = args.literal.unwrap_or(false);
    let run = shape::run_tree_replace(
        ws,
        selection.clone(),
        substitution,
        args.dry_run.unwrap_or(false),
        args.atomic.unwrap_or(false),
    );
    let out = match run {
        Ok(out) => out,
        // No file chosen, or a bad directory: an answer about the request, not a rejection.
        Err(err) => {
            return Ok(ToolReply::new(
                reply::failure(&err),
                true,
                err.full_message(),
            ));
        }
    };
    let report = &out.report;
    let mut text = String::new();
    let mut entries = Vec::new();
    let mut budget = shape::DiffBudget::new();
    let mut listed = shape::ListBudget::new(ws);
    // A dry run is for its diffs; a write says what changed, with its diffs only when short.
    let diff_lines: usize = report.files.iter().map(|f| f.diff.lines().count()).sum();
    let show_diffs = report.dry_run || diff_lines <= shape::SHORT_DIFF_LINES;
    for f in &report.files {
        if f.status() == FileStatus::Unchanged && f.success() || !listed.take(&f.path) {
            continue; // counted, not listed
        }
        let err = shape::rolled_back_error(report, f).or_else(|| shape::first_error(f).cloned());
        let replacements: usize = f.edits.iter().map(|o| o.replacements).sum();
        let path = shape::shown_path(ws, &f.resolved_path);
        if let Some(err) = &err {
            text.push_str(&format!("{path}: FAILED {}\n", err.full_message()));
        } else if f.skipped().is_none() {
            text.push_str(&format!("{path}: {replacements} replacement(s)\n"));
        }
        entries.push(ReplacedFile {
            path,
            status: f.status().into(),
            replacements,
            content_hash: shape::current_hash(f).filter(|_| f.skipped().is_none()),
            diff: show_diffs
                .then(|| budget.take(&f.diff).map(str::to_string))
                .flatten(),
            skipped: f.skipped().map(str::to_string),
            failure: err.as_ref().map(PartError::of),
        });
    }
    let changed = out.count(FileStatus::Modified);
    let failed = out.failed();
    listed.cut += out.dropped.not_listed;
    let mut summary = format!(
        "{}: {} replacement(s) in {changed} of {} file(s) matched{}",
        args.expression,
        out.replacements(),
        out.chosen,
        if report.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        },
    );
    if failed > 0 {
        summary.push_str(&format!(", {failed} failed"));
    }
    if report.rolled_back {
        summary.push_str(" (atomic: nothing written because something failed)");
    }
    if let Some(entry) = report.history_entry {
        summary.push_str(&format!("; history_entry {entry}"));
    }
    let hint = (out.replacements() == 0 && !literal)
        .then(|| occurs_literally(ws, selection, &args.expression))
        .flatten();
    if let Some(hint) = &hint {
        summary.push_str(&format!("; {hint}"));
    }
    if budget.cut > 0 {
        summary.push_str(&format!(
            "; {} diff(s) left out of this reply to keep it short (the changes are made as reported)",
            budget.cut
        ));
    }
    if !show_diffs {
        summary.push_str(&format!(
            "; the diffs ({diff_lines} lines) are left out: preview with dry_run to see them"
        ));
    }
    summary.push_str(&listed.note(ws, "`files` or `directory`"));
    if out.previews_cut > 0 {
        summary.push_str(&shape::previews_cut_note(
            ws,
            out.previews_cut,
            "`files` or `directory`",
        ));
    }
    let diffs: String = entries.iter().filter_map(|e| e.diff.as_deref()).collect();
    let text = format!("{summary}\n{text}{diffs}");
    let value = ReplaceReply {
        success: out.success(),
        replacements: out.replacements(),
        files_matched: out.chosen,
        files_changed: changed,
        files_failed: failed,
        dry_run: report.dry_run,
        rolled_back: report.rolled_back,
        history_entry: report.history_entry,
        files: entries,
        hint,
    };
    Ok(ToolReply::typed(&value, !out.success(), text))
}

/// For an expression that replaced nothing: what to do when its pattern, taken as plain
/// text, would replace something (`s/Version(parts[1])/.../` meant the text): the agent is
/// told, instead of being left with no replacement and no reason.
fn occurs_literally(ws: &Call, selection: FileSelection, expression: &str) -> Option<String> {
    let literal = Substitution::parse(expression, true).ok()?;
    let probe = shape::run_tree_replace(ws, selection, literal, true, false).ok()?;
    (probe.replacements() > 0).then(|| {
        format!(
            "taken as plain text the pattern would replace {} place(s): it is read as a regular \
             expression, so pass literal: true (or escape ( [ . * and the like)",
            probe.replacements()
        )
    })
}

/// What replace_in_files answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ReplaceReply {
    success: bool,
    replacements: usize,
    files_matched: usize,
    files_changed: usize,
    #[serde(skip_serializing_if = "is_zero")]
    files_failed: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rolled_back: bool,
    /// The history entry that records the change: `undo` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    /// The files changed, failed or skipped (unchanged ones are only counted).
    files: Vec<ReplacedFile>,
    /// Replaced nothing, but the pattern occurs as plain text: what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct ReplacedFile {
    path: String,
    status: Status,
    replacements: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

// ---------------------------------------------------------------------------------------------
// lock, unlock

const LOCK_DESCRIPTION: &str = "\
Lease files so that other agents' writes to them are refused (LOCKED) until you unlock them or ttl_seconds (default 300) pass. Only for a change that must not interleave with others': edits with base_hash are merged without it.

Example: {\"paths\": [\"src/schema.sql\"], \"ttl_seconds\": 120}";

/// The long form of [`LOCK_DESCRIPTION`], for the documentation page.
const LOCK_GUIDE: &str = "\
Lease files for a while so that other agents' writes to them are refused (advisory: every \
filekit client respects it). Use it only for the rare change that must not be interleaved \
with anyone else's (a rewrite of a whole file, a multi-step refactor); ordinary edits with \
base_hash are merged without it. Other holders' writes get LOCKED with your name and the \
expiry; a lease expires after ttl_seconds (default 300, at most 86400) and can be renewed by \
locking again. Release it with unlock as soon as you are done.

Example: {\"paths\": [\"src/schema.sql\"], \"ttl_seconds\": 120}";

const UNLOCK_DESCRIPTION: &str = "\
Release your leases (force: another's). A path without a lease is not an error.

Example: {\"paths\": [\"src/schema.sql\"]}";

/// The long form of [`UNLOCK_DESCRIPTION`], for the documentation page.
const UNLOCK_GUIDE: &str = "\
Release leases taken with lock. Only the holder releases a lease (force breaks another's). \
Releasing a path that has no live lease is not an error.

Example: {\"paths\": [\"src/schema.sql\"]}";

#[derive(Deserialize, JsonSchema)]
pub(crate) struct LockArgs {
    /// The files to lease (they need not exist yet).
    pub(crate) paths: Vec<String>,
    /// How long the lease lasts, in seconds (default 300, at most 86400).
    pub(crate) ttl_seconds: Option<u64>,
    /// Who holds the lease (default: this session's name).
    pub(crate) holder: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub(crate) struct UnlockArgs {
    /// The files to release.
    pub(crate) paths: Vec<String>,
    /// Whose lease to release (default: this session's name).
    pub(crate) holder: Option<String>,
    /// Break another holder's live lease.
    pub(crate) force: Option<bool>,
}

static LOCK_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<LockArgs>);
static UNLOCK_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<UnlockArgs>);

fn lease_holder(ws: &Call, given: Option<String>, tool: &str) -> Result<String, FkError> {
    given.or_else(|| ws.holder().map(str::to_string)).ok_or_else(|| {
        FkError::invalid(format!("{tool}: no holder: this session has no name"))
            .with_hint("give `holder` (a name for yourself, the same on your edits' options.holder), or run filekit with --holder NAME")
    })
}

/// The most paths one lock or unlock call names.
const MAX_LEASE_PATHS: usize = 1000;

fn lease_paths(paths: &[String], tool: &str) -> Result<(), FkError> {
    if paths.is_empty() {
        return Err(FkError::invalid(format!("{tool}: `paths` is empty"))
            .with_hint("list the files, e.g. {\"paths\": [\"src/app.py\"]}"));
    }
    if paths.len() > MAX_LEASE_PATHS {
        return Err(FkError::too_large(
            filekit_core::Limit::Leases,
            paths.len() as u64,
            MAX_LEASE_PATHS as u64,
            format!(
                "{tool}: {} paths in one call; one call names at most {MAX_LEASE_PATHS}",
                paths.len()
            ),
        )
        .with_hint("lease the files you are about to edit, not a whole tree; split the list into several calls"));
    }
    Ok(())
}

/// What lock and unlock answer.
#[derive(Serialize, JsonSchema)]
pub(crate) struct LeaseReply {
    /// True when every path was leased (or released).
    success: bool,
    /// The lease holder the call acted for.
    holder: String,
    /// One entry per path, in order.
    leases: Vec<LeaseEntry>,
}

#[derive(Serialize, JsonSchema)]
struct LeaseEntry {
    path: String,
    /// lock: when the lease ends (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    expires: Option<String>,
    /// unlock: whether a live lease was released.
    #[serde(skip_serializing_if = "Option::is_none")]
    released: Option<bool>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

fn lock_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    lock(ws, parse("lock", &LOCK_SCHEMA, args)?)
}

/// `lock` with its arguments parsed.
pub(crate) fn lock(ws: &Call, args: LockArgs) -> Result<ToolReply, FkError> {
    lease_paths(&args.paths, "lock")?;
    let holder = lease_holder(ws, args.holder, "lock")?;
    let ttl = args
        .ttl_seconds
        .unwrap_or(filekit_core::leases::DEFAULT_SECONDS);
    let mut entries = Vec::new();
    let mut text = String::new();
    let mut failed = 0;
    for path in &args.paths {
        let leased = ws
            .resolve(path)
            .and_then(|p| filekit_core::leases::lock(ws, &p, &holder, ttl));
        let path = shape::shown_path(ws, path);
        match leased {
            Ok(l) => {
                text.push_str(&format!(
                    "{path}: leased to {} until {}\n",
                    l.holder,
                    l.expires_rfc3339()
                ));
                entries.push(LeaseEntry {
                    path,
                    expires: Some(l.expires_rfc3339()),
                    released: None,
                    failure: None,
                });
            }
            Err(err) => {
                failed += 1;
                text.push_str(&format!("{path}: FAILED {}\n", err.full_message()));
                entries.push(LeaseEntry {
                    path,
                    expires: None,
                    released: None,
                    failure: Some(PartError::of(&err)),
                });
            }
        }
    }
    let value = LeaseReply {
        success: failed == 0,
        holder,
        leases: entries,
    };
    Ok(ToolReply::typed(&value, failed > 0, text))
}

fn unlock_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    unlock(ws, parse("unlock", &UNLOCK_SCHEMA, args)?)
}

/// `unlock` with its arguments parsed.
pub(crate) fn unlock(ws: &Call, args: UnlockArgs) -> Result<ToolReply, FkError> {
    lease_paths(&args.paths, "unlock")?;
    let holder = lease_holder(ws, args.holder, "unlock")?;
    let force = args.force.unwrap_or(false);
    let mut entries = Vec::new();
    let mut text = String::new();
    let mut failed = 0;
    for path in &args.paths {
        let released = ws
            .resolve(path)
            .and_then(|p| filekit_core::leases::unlock(ws, &p, &holder, force));
        let path = shape::shown_path(ws, path);
        match released {
            Ok(released) => {
                text.push_str(&match &released {
                    Some(l) => format!("{path}: released (was leased to {})\n", l.holder),
                    None => format!("{path}: had no live lease\n"),
                });
                entries.push(LeaseEntry {
                    path,
                    expires: None,
                    released: Some(released.is_some()),
                    failure: None,
                });
            }
            Err(err) => {
                failed += 1;
                text.push_str(&format!("{path}: FAILED {}\n", err.full_message()));
                entries.push(LeaseEntry {
                    path,
                    expires: None,
                    released: None,
                    failure: Some(PartError::of(&err)),
                });
            }
        }
    }
    let value = LeaseReply {
        success: failed == 0,
        holder,
        leases: entries,
    };
    Ok(ToolReply::typed(&value, failed > 0, text))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    /// One whole edit_files reply, as a client gets it (field order included): a file
    /// modified with an edit that failed, one created in a new directory, one missing. The
    /// workspace's path and the files' times are the only parts that vary between runs.
    #[test]
    fn an_edit_files_reply_is_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let ws = filekit_core::Workspace::new(std::slice::from_ref(&root), false).unwrap();
        let reply = crate::call_in(
            &ws,
            Some(&["filekit"]),
            "edit_files",
            json!({"files": [
                {"path": "a.txt", "edits": [
                    {"replace_lines": {"start": 1, "end": 1, "new": "ONE"}},
                    {"str_replace": {"old": "three", "new": "THREE"}},
                    {"str_replace": {"old": "tow", "new": "2"}},
                ]},
                {"path": "b/new.txt", "edits": [{"create": {"content": "hi\n"}}]},
                {"path": "gone.txt", "edits": [{"str_replace": {"old": "x", "new": "y"}}]},
            ]}),
        );
        assert!(reply.is_error);
        let mut value = reply.value;
        for f in value["files"].as_array_mut().unwrap() {
            if let Some(t) = f.get_mut("last_modified") {
                *t = Value::from("<time>");
            }
        }
        let text = serde_json::to_string_pretty(&value)
            .unwrap()
            .replace(root.to_str().unwrap(), "<root>");
        assert_eq!(text, PINNED_EDIT_FILES, "{text}");
    }

    const PINNED_EDIT_FILES: &str = r#"{
  "success": false,
  "files": [
    {
      "path": "a.txt",
      "status": "modified",
      "edits_applied": 2,
      "edits_failed": 1,
      "lines_added": 2,
      "lines_removed": 2,
      "content_hash": "702273c83c32c4e0",
      "edits": [
        {
          "index": 2,
          "command": "str_replace",
          "error": "`old` was not found in <root>/a.txt (nothing similar is in the file: read it again and copy the text exactly, including indentation)",
          "error_code": "NOT_FOUND",
          "details": {
            "fact": "search_text_not_found",
            "near_miss": null,
            "wanted": "tow"
          }
        }
      ],
      "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n-three\n+THREE\n"
    },
    {
      "path": "b/new.txt",
      "status": "created",
      "edits_applied": 1,
      "lines_added": 1,
      "lines_removed": 0,
      "content_hash": "b34d1a3ab2bece70",
      "diff": "--- /dev/null\n+++ b/b/new.txt\n@@ -0,0 +1,1 @@\n+hi\n",
      "created_dirs": [
        "b"
      ]
    },
    {
      "path": "gone.txt",
      "status": "failed",
      "edits_applied": 0,
      "lines_added": 0,
      "lines_removed": 0,
      "error": "<root>/gone.txt does not exist (nothing with a similar name is in <root>; list that directory to see what is there)",
      "error_code": "NOT_FOUND"
    }
  ]
}"#;
}
