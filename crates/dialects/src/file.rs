//! The `file` dialect (the `file:` tools): `file:read_file`, `file:edit_file`, `file:create_file`,
//! `file:list_files`.
//!
//! The document gives argument shapes but no reply shapes; replies here follow the amazonq
//! ones (`path`, `success`, `error`, `content_hash`) so that an agent meets one convention,
//! and edits answer with the unified diff plus the updated lines, numbered, as the document
//! asks. `file:list_files` lists through the engine's search module. Delete, rename and copy
//! are in [`crate::file_ops`].

use crate::Call;
use crate::args::{missing_for, parse, schema_for};
use crate::reply::{self, Details, Failure, PartError, SchemaForm};
use crate::shape::{self, FailedEdit};
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest};
use filekit_core::read::{ReadContent, ReadOptions, read_file};
use filekit_core::{ErrorCode, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "file:read_file",
            dialect: "file",
            description: READ_DESCRIPTION,
            input_schema: &READ_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: read_file_tool,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<ReadReply>),
        },
        ToolSpec {
            name: "file:edit_file",
            dialect: "file",
            description: EDIT_DESCRIPTION,
            input_schema: &EDIT_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: edit_file,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<EditReply>),
        },
        ToolSpec {
            name: "file:create_file",
            dialect: "file",
            description: CREATE_DESCRIPTION,
            input_schema: &CREATE_SCHEMA,
            read_only: false,
            destructive: false,
            idempotent: false,
            run: create_file,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<CreateReply>),
        },
        ToolSpec {
            name: "file:list_files",
            dialect: "file",
            description: LIST_DESCRIPTION,
            input_schema: &LIST_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: list_files,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<ListReply>),
        },
    ]
}

fn reject(err: &FkError) -> Value {
    reply::failure(err)
}

/// The output schema of a tool of the table that answers `T`: a failure about its path has
/// `T`'s path beside the failure's fields, a rejected call the failure's alone.
pub(crate) fn schema<T: schemars::JsonSchema>(form: SchemaForm) -> Value {
    reply::schema_failing::<T, Failure>(form)
}

/// A failure about one path: the path beside the failure's fields.
#[derive(Serialize, JsonSchema)]
pub(crate) struct PathFailure {
    /// The path as given or as resolved inside the workspace.
    path: String,
    #[serde(flatten)]
    failure: Failure,
}

impl PathFailure {
    pub(crate) fn of(path: impl Into<String>, err: &FkError) -> PathFailure {
        PathFailure {
            path: path.into(),
            failure: Failure::of(err),
        }
    }

    pub(crate) fn reply(path: impl Into<String>, err: &FkError, text: String) -> ToolReply {
        ToolReply::typed(&PathFailure::of(path, err), true, text)
    }
}

/// What file:read_file answers.
#[derive(Serialize, JsonSchema)]
struct ReadReply {
    /// The path as resolved inside the workspace.
    path: String,
    success: bool,
    /// The lines read, numbered `cat -n` style.
    content: String,
    /// The first line read (counted from the end, negative, when the read was).
    start_line: i64,
    end_line: i64,
    /// Where to start the next read, when lines are left.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_start_line: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<usize>,
    /// The file's version: give it to file:edit_file to refuse the edit if the file changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// Set when the file is too large to be read whole: the bound's facts (it has no version).
    #[serde(skip_serializing_if = "Option::is_none")]
    unversioned: Option<Details>,
    /// The version of the lines returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    range_hash: Option<String>,
    /// Last modification, RFC 3339 UTC.
    last_modified: String,
}

/// What file:edit_file answers.
#[derive(Serialize, JsonSchema)]
struct EditReply {
    path: String,
    success: bool,
    edits_applied: usize,
    edits_failed: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed_edits: Vec<FailedEdit>,
    /// Why nothing was written.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    error: Option<PartError>,
    /// Unified diff of the change, capped for a model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// What the cap left out of `diff`.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_truncated: Option<String>,
    /// The changed lines with a few around them, numbered.
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_content: Option<String>,
    /// The file's version after the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// True when the edit was merged with a change made since the read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    merged: bool,
}

/// What file:create_file answers.
#[derive(Serialize, JsonSchema)]
struct CreateReply {
    path: String,
    success: bool,
    /// Lines of the new file.
    lines: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
}

/// What file:list_files answers.
#[derive(Serialize, JsonSchema)]
struct ListReply {
    /// The directory listed.
    path: String,
    success: bool,
    entries: Vec<ListEntry>,
    /// The listing as text, one entry a line.
    content: String,
    /// Entries in all (more than listed when `truncated`).
    total: usize,
    truncated: bool,
    /// Entries that could not be read.
    skipped: usize,
}

/// One entry of file:list_files.
#[derive(Serialize, JsonSchema)]
struct ListEntry {
    /// Relative to the listed directory, `/`-separated.
    path: String,
    name: String,
    #[serde(rename = "type")]
    kind: EntryType,
    size: u64,
    /// Last modification, RFC 3339 UTC.
    modified: String,
    /// Where a symbolic link points.
    #[serde(skip_serializing_if = "Option::is_none")]
    link_target: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum EntryType {
    File,
    Dir,
    Symlink,
    Other,
}

// ---------------------------------------------------------------------------------------------
// file:read_file

const READ_DESCRIPTION: &str = "\
Read a text file with line numbers (`cat -n` style: number, tab, line), the whole file or \
the lines `start_line`..`end_line` (1-based, inclusive; negative counts from the end, -1 is \
the last line). Use these numbers for file:edit_file. The reply also gives total_lines and \
the file's content_hash (pass it to file:edit_file to make sure the file has not changed \
since).

Example: {\"path\": \"middleware/auth.js\", \"start_line\": 40, \"end_line\": 60}";

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// File path to read, relative to the project root or absolute inside it.
    path: String,
    /// Starting line number (1-based, inclusive). Default: the first line.
    start_line: Option<i64>,
    /// Ending line number (1-based, inclusive). Default: the last line.
    end_line: Option<i64>,
}

static READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadArgs>);

fn read_file_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadArgs = parse("file:read_file", &READ_SCHEMA, args)?;
    let opts = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: args.start_line,
        end_line: args.end_line,
        images: false,
        max_lines: None,
    };
    let r = read_file(ws, &args.path, &opts);
    let not_text = |what: String| {
        FkError::new(
            ErrorCode::Binary,
            format!("{} cannot be read as text: {what}", r.path),
        )
        .with_hint("file:read_file shows text files with line numbers")
    };
    Ok(match &r.result {
        Ok(ReadContent::Text(t)) => {
            let numbered = t.numbered();
            let mut text = format!(
                "{} ({}, {})\n{numbered}",
                r.path,
                shape::read_lines(t),
                shape::read_version(t)
            );
            if let Some(on) = shape::read_on(t, "start_line") {
                text.push_str(&on);
                text.push('\n');
            }
            let value = ReadReply {
                path: r.path.clone(),
                success: true,
                content: numbered,
                start_line: t.first_number(),
                end_line: t.last_number(),
                next_start_line: t.next_line,
                total_lines: t.total_lines,
                content_hash: t.content_hash.clone(),
                unversioned: t.unversioned.as_ref().map(Details::of),
                range_hash: t.range_hash.clone(),
                last_modified: t.last_modified.clone(),
            };
            ToolReply::typed(&value, false, text)
        }
        Ok(ReadContent::Image(i)) => {
            let err = not_text(format!("an image ({})", i.mime));
            PathFailure::reply(&r.path, &err, err.full_message())
        }
        Ok(ReadContent::Binary(b)) => {
            let err = not_text(b.description.clone());
            PathFailure::reply(&r.path, &err, err.full_message())
        }
        Err(err) => PathFailure::reply(&r.path, err, err.full_message()),
    })
}

// ---------------------------------------------------------------------------------------------
// file:edit_file

const EDIT_DESCRIPTION: &str = "\
Replace line ranges of a file: one range with `start_line`, `end_line`, `new_content`, or \
several with `edits` (a list of {start_line, end_line, new_content}). Line numbers are \
1-based and inclusive, as file:read_file shows them. All ranges refer to the file as it was \
read, whatever their order (they are applied bottom-to-top), so never shift numbers for \
earlier edits; overlapping ranges are refused. `new_content` is whole lines (a final newline \
is optional); \"\" deletes the lines. Give `content_hash` from file:read_file: if the file \
changed since, your ranges (of the version you read) are merged into it (reply: merged) \
unless they meet the other change (CONFLICT, both sides shown). If any range fails, nothing \
is written.

The reply has the unified diff, the updated lines with their new numbers (each change with \
3 lines of context) and the new content_hash.

Example: {\"path\": \"src/utils.js\", \"edits\": [{\"start_line\": 1, \"end_line\": 3, \
\"new_content\": \"import axios from 'axios';\\nimport { logger } from './logger';\"}, \
{\"start_line\": 25, \"end_line\": 27, \"new_content\": \"try {\\n  return await apiCall(data);\\n} \
catch (error) {\\n  throw error;\\n}\"}]}";

#[derive(Deserialize, JsonSchema)]
struct RangeEdit {
    /// First line to replace (1-based, inclusive).
    start_line: i64,
    /// Last line to replace (1-based, inclusive).
    end_line: i64,
    /// The lines to put in their place ("" deletes them).
    new_content: String,
}

#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// File path to edit.
    path: String,
    /// List of edits {start_line, end_line, new_content}, all numbered against the file as read
    /// (for several edits in one call).
    edits: Option<Vec<RangeEdit>>,
    /// Starting line number for a single edit (1-based, inclusive).
    start_line: Option<i64>,
    /// Ending line number for a single edit (1-based, inclusive).
    end_line: Option<i64>,
    /// New content to replace the specified lines (single edit).
    new_content: Option<String>,
    /// Optional: the content_hash from file:read_file; if the file changed since, the ranges
    /// are merged into it, or refused with CONFLICT where they meet the other change.
    content_hash: Option<String>,
}

static EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditArgs>);

fn edit_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: EditArgs = parse("file:edit_file", &EDIT_SCHEMA, args)?;
    let single_given =
        args.start_line.is_some() || args.end_line.is_some() || args.new_content.is_some();
    let ranges: Vec<(i64, i64, String)> = match (&args.edits, single_given) {
        (Some(_), true) => {
            return Err(FkError::invalid(
                "file:edit_file: give either start_line/end_line/new_content (one edit) or `edits` (several), not both",
            )
            .with_hint("put every range in `edits`"));
        }
        (Some(edits), false) if edits.is_empty() => {
            return Err(FkError::invalid("file:edit_file: `edits` is empty")
                .with_hint("give at least one range"));
        }
        (Some(edits), false) => edits
            .iter()
            .map(|e| (e.start_line, e.end_line, e.new_content.clone()))
            .collect(),
        (None, _) => {
            let why = "a single edit needs start_line, end_line and new_content (or give `edits`)";
            let start = args.start_line.ok_or_else(|| {
                missing_for("file:edit_file", &EDIT_SCHEMA, "", "start_line", why)
            })?;
            let end = args
                .end_line
                .ok_or_else(|| missing_for("file:edit_file", &EDIT_SCHEMA, "", "end_line", why))?;
            let new = args.new_content.clone().ok_or_else(|| {
                missing_for("file:edit_file", &EDIT_SCHEMA, "", "new_content", why)
            })?;
            vec![(start, end, new)]
        }
    };
    let edits = ranges
        .into_iter()
        .map(|(start, end, new)| Edit::ReplaceLines {
            start,
            end: Some(end),
            new,
            content_hash: args.content_hash.clone(),
        })
        .collect();
    // The document's multi-edit is one bottom-to-top operation: half of it is no use.
    let options = EditOptions::builder().atomic(true).build();
    let request = EditRequest::one_file(args.path.clone(), edits, options);
    let mut report = ws.apply(request);
    shape::word_report(&mut report, &FILE_WORDS);
    let f = &report.files[0];
    let err = shape::first_error(f)
        .cloned()
        .or_else(|| shape::rolled_back_error(&report, f));
    let (diff, diff_note) = shape::capped_diff(&f.diff);
    let updated = (err.is_none() && (f.new_text.is_some() || !diff.is_empty()))
        .then(|| shape::updated_lines(f, diff));
    let value = EditReply {
        path: f.path.clone(),
        success: err.is_none(),
        edits_applied: if err.is_none() { f.edits_applied } else { 0 },
        edits_failed: f.edits_failed,
        failed_edits: shape::failed_edit_list(f),
        error: err.as_ref().map(PartError::of),
        diff: (!diff.is_empty() && err.is_none()).then(|| diff.to_string()),
        diff_truncated: diff_note,
        updated_content: updated.clone(),
        content_hash: shape::current_hash(f),
        merged: f.merged(),
    };
    let mut text = shape::write_summary(&report, false, shape::Diffs::All);
    if let Some(u) = updated.filter(|u| !u.is_empty()) {
        text.push_str("\nUpdated lines:\n");
        text.push_str(&u);
    }
    Ok(ToolReply::typed(&value, !report.success(), text))
}

// ---------------------------------------------------------------------------------------------
// file:create_file

const CREATE_DESCRIPTION: &str = "\
Create a new file with the given content (default: empty). Parent directories are created. \
Refuses to replace a file that exists: change existing files with file:edit_file. The reply \
gives the new file's content_hash and line count.

Example: {\"path\": \"src/utils/validation.js\", \"content\": \"export function \
validateRequired(value) {\\n  return value != null;\\n}\\n\"}";

#[derive(Deserialize, JsonSchema)]
struct CreateArgs {
    /// File path to create.
    path: String,
    /// Initial file content.
    #[serde(default)]
    #[schemars(extend("default" = ""))]
    content: String,
}

static CREATE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<CreateArgs>);

fn create_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: CreateArgs = parse("file:create_file", &CREATE_SCHEMA, args)?;
    let lines = filekit_core::text::LineIndex::new(&args.content).len();
    let create = Edit::Create {
        content: args.content,
        overwrite: false,
    };
    let request = EditRequest::one_file(args.path, vec![create], EditOptions::default());
    let mut report = ws.apply(request);
    shape::word_report(&mut report, &FILE_WORDS);
    let f = &report.files[0];
    let err = shape::first_error(f).cloned();
    Ok(match &err {
        Some(e) => PathFailure::reply(&f.path, e, format!("{}: {}", f.path, e.full_message())),
        None => {
            let value = CreateReply {
                path: f.path.clone(),
                success: true,
                lines,
                content_hash: shape::current_hash(f),
            };
            let text = format!(
                "created {} ({lines} lines, content_hash {})",
                f.path,
                shape::current_hash(f).unwrap_or_default()
            );
            ToolReply::typed(&value, false, text)
        }
    })
}

// ---------------------------------------------------------------------------------------------
// file:list_files

/// Entries file:list_files shows before it cuts the listing.
const LIST_LIMIT: usize = 1000;

const LIST_DESCRIPTION: &str = "\
List the files and directories in a directory (default: the project root), sorted by path, \
each with its type, size and last modification time. `filter` keeps only names matching a \
wildcard (`*.js`, `*.{ts,tsx}`); `recursive: true` descends into subdirectories (`depth` \
limits how far). .gitignore'd and hidden entries are left out. At most 1000 entries are \
returned; `truncated` and `total` say when more exist (list a subdirectory or use a filter).

Example: {\"path\": \"src\", \"filter\": \"*.jsx\", \"recursive\": true}";

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    /// Directory path to list (defaults to the project root).
    path: Option<String>,
    /// File filter pattern using wildcards (default: \"*\").
    #[schemars(extend("default" = "*"))]
    filter: Option<String>,
    /// Whether to list files recursively (default: false).
    #[schemars(extend("default" = false))]
    recursive: Option<bool>,
    /// With `recursive`: how many levels to descend (1: only the directory's own entries).
    /// Default: all.
    #[schemars(range(min = 1))]
    depth: Option<usize>,
}

static LIST_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ListArgs>);

fn list_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    use filekit_core::search::list::{ListOptions, list, render_long};
    let args: ListArgs = parse("file:list_files", &LIST_SCHEMA, args)?;
    let depth = if args.recursive.unwrap_or(false) {
        args.depth.unwrap_or(usize::MAX)
    } else {
        1
    };
    let opts = ListOptions {
        path: args.path.clone(),
        depth,
        filter: args.filter,
        ignore: Vec::new(),
        walk: Default::default(),
        limit: Some(LIST_LIMIT),
    };
    let shown_path = args.path.unwrap_or_else(|| ".".to_string());
    let listing = match list(ws, &opts) {
        Ok(l) => l,
        Err(err) => {
            return Ok(PathFailure::reply(shown_path, &err, err.full_message()));
        }
    };
    let mut text = render_long(&listing);
    if listing.truncated {
        text.push_str(&format!(
            "... {} more entries not shown (cut at {LIST_LIMIT}): list a subdirectory or give a filter\n",
            listing.omitted()
        ));
    }
    if listing.skipped.count > 0 {
        text.push_str(&format!(
            "({} unreadable entries skipped)\n",
            listing.skipped.count
        ));
    }
    use filekit_core::search::list::EntryKind;
    let entries: Vec<ListEntry> = listing
        .entries
        .iter()
        .map(|e| ListEntry {
            path: e.path.clone(),
            name: e.name.clone(),
            kind: match e.kind {
                EntryKind::File => EntryType::File,
                EntryKind::Dir => EntryType::Dir,
                EntryKind::Symlink => EntryType::Symlink,
                EntryKind::Other => EntryType::Other,
            },
            size: e.size,
            modified: e.modified.clone(),
            link_target: e.link_target.clone(),
        })
        .collect();
    let value = ListReply {
        path: listing.path.clone(),
        success: true,
        entries,
        content: text.clone(),
        total: listing.total,
        truncated: listing.truncated,
        skipped: listing.skipped.count,
    };
    Ok(ToolReply::typed(&value, false, text))
}
/// How the file:* tools name what an edit is about.
const FILE_WORDS: shape::Words = shape::Words {
    search: "old_content",
    expect: None,
    empty: "give the text to replace",
    lines: ["start_line", "end_line", "start_line", "content_hash"],
    exists: Some("the file exists: change it with file:edit_file, or pick another path"),
};
