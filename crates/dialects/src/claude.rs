//! The `claude` dialect (Claude Code's tools): `Read`, `Write`, `Edit`, `MultiEdit`, with the argument
//! shapes of the familiar coding-agent tools and its `ToolResult` reply
//! `{success, content, shortResult?, error?, images?, filePath?}` (plus `contentHash` and,
//! on failure, `errorCode`/`details`). The read-only LS, Glob and Grep are in `claude_search`.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::{self, CamelFailure, Details, SchemaForm};
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileStatus};
use filekit_core::read::{ReadContent, ReadOptions, TextRead, read_file};
use filekit_core::text::LineIndex;
use filekit_core::{ErrorCode, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

/// Lines `Read` returns when no `limit` is given, as in the familiar tool.
const DEFAULT_LIMIT: usize = 2000;
/// Characters of a line `Read` shows; longer lines are cut, as in the familiar tool ("Any
/// lines longer than 2000 characters will be truncated", its Read description).
const MAX_LINE_CHARS: usize = 2000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "Read",
            dialect: "claude",
            description: READ_DESCRIPTION,
            input_schema: &READ_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: read,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<ReadFields>),
        },
        ToolSpec {
            name: "Write",
            dialect: "claude",
            description: WRITE_DESCRIPTION,
            input_schema: &WRITE_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: true,
            run: write,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<WriteFields>),
        },
        ToolSpec {
            name: "Edit",
            dialect: "claude",
            description: EDIT_DESCRIPTION,
            input_schema: &EDIT_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: edit,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<WriteFields>),
        },
        ToolSpec {
            name: "MultiEdit",
            dialect: "claude",
            description: MULTI_EDIT_DESCRIPTION,
            input_schema: &MULTI_EDIT_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: multi_edit,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(schema::<WriteFields>),
        },
    ]
}

/// Claude Code's `ToolResult`, as every tool of the table answers: `success`, the text the
/// tool gives, a one-line summary, and the tool's own fields.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolResult<X> {
    /// True when the call did all it was asked.
    success: bool,
    /// The text the tool gives (file content, listing, search results or messages).
    content: String,
    /// A one-line summary of the result.
    short_result: String,
    #[serde(flatten)]
    fields: X,
}

impl<X: Serialize> ToolResult<X> {
    pub(crate) fn reply(
        content: String,
        short_result: String,
        fields: X,
        text: String,
    ) -> ToolReply {
        let value = ToolResult {
            success: true,
            content,
            short_result,
            fields,
        };
        ToolReply::typed(&value, false, text)
    }
}

/// A failed `ToolResult`: `content` repeats the error so a harness that shows only `content`
/// still shows why.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Failed {
    /// The error's text.
    content: String,
    /// The absolute path of the file the call was about.
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<String>,
    #[serde(flatten)]
    failure: CamelFailure,
}

impl Failed {
    pub(crate) fn of(err: &FkError) -> Failed {
        Failed {
            content: err.full_message(),
            file_path: None,
            failure: CamelFailure::of(err),
        }
    }
}

/// The output schema of a tool of the table whose own fields are `X`.
pub(crate) fn schema<X: JsonSchema>(form: SchemaForm) -> Value {
    reply::schema_failing::<ToolResult<X>, Failed>(form)
}

fn failure(err: &FkError, file_path: Option<&str>) -> Value {
    reply::to_value(&Failed {
        content: err.full_message(),
        file_path: file_path.map(str::to_string),
        failure: CamelFailure::of(err),
    })
}

fn reject(err: &FkError) -> Value {
    failure(err, None)
}

/// Read's own fields.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ReadFields {
    /// The image read, as base64 data with its MIME type.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<ImageData>,
    /// The absolute path of the file.
    file_path: String,
    /// The file's version: give it to line edits so that they are refused if the file changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// Set when the file is too large to be read whole: the bound's facts (it has no version).
    #[serde(skip_serializing_if = "Option::is_none")]
    unversioned: Option<Details>,
    /// The file's number of lines, when the read returned none (empty, or an offset past the
    /// end).
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<usize>,
    /// Why the read returned no lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ImageData {
    data: String,
    media_type: String,
}

/// The fields of Write, Edit and MultiEdit.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WriteFields {
    /// The absolute path of the file.
    file_path: String,
    /// The file's version after the call: give it to line edits so that they are refused if
    /// the file changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Read

const READ_DESCRIPTION: &str = "\
Read a file. Text comes back `cat -n` style (line number, tab, line; numbers start at 1); \
by default up to 2000 lines from the start. For long files give `offset` (the 1-based line \
to start at; 0 also means the first line) and `limit` (how many lines). An offset past the \
end is not an error: the reply says how many lines the file has. Lines longer than 2000 \
characters are cut, marked `... [line truncated: 2000 of N characters shown]` (old_string may \
still be a part of such a line that is shown). Images (png, jpeg, gif, webp) are shown to \
you. The line numbers are not part of the file: never copy them into old_string. `pages` \
(PDF pages) and `allow_large` are accepted and change nothing: filekit reads text and images, \
in pages of `limit` lines.

Example: {\"file_path\": \"src/server.ts\", \"offset\": 200, \"limit\": 100}";

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// The path of the file to read (absolute inside the workspace, or relative to its root).
    file_path: String,
    /// The line number to start reading from (1-based; 0 is the first line too). Only for
    /// files too long to read at once.
    #[schemars(extend("default" = 1))]
    offset: Option<i64>,
    /// The number of lines to read.
    #[schemars(extend("default" = DEFAULT_LIMIT), range(min = 1))]
    limit: Option<usize>,
    /// Page range of a PDF ("1-5"). Accepted and not used: filekit does not read PDFs.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    pages: Option<String>,
    /// Read a file over the usual size limits. Accepted and not used: a read is bounded by
    /// `limit` lines.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    allow_large: Option<bool>,
}

static READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadArgs>);

fn read(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadArgs = parse("Read", &READ_SCHEMA, args)?;
    if args.limit == Some(0) {
        return Err(FkError::invalid("Read: argument `limit` is 0")
            .with_hint("give at least 1 line, or leave it out"));
    }
    // As in the familiar tool, offset 0 reads from the first line, like 1.
    let start = match args.offset {
        None | Some(0) => 1,
        Some(n) => n,
    };
    let opts = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: Some(start),
        end_line: None,
        images: true,
        max_lines: Some(args.limit.unwrap_or(DEFAULT_LIMIT)),
    };
    let r = read_file(ws, &args.file_path, &opts);
    let file_path = r.resolved_path.clone().unwrap_or_else(|| r.path.clone());
    if let Err(err) = &r.result
        && err.code == ErrorCode::InvalidArgument
        && start > 1
        && let Some(reply) = past_the_end(ws, &args.file_path, &file_path, start)
    {
        return Ok(reply);
    }
    let reply = match &r.result {
        Ok(ReadContent::Text(t)) if t.total_lines == Some(0) => {
            empty_or_short(&file_path, t, start)
        }
        Ok(ReadContent::Text(t)) => {
            let (numbered, cut) = number_lines_cut(&t.content, t.start_line);
            let short = format!("Read {}", shape::read_lines(t));
            let mut text = numbered.clone();
            if cut > 0 {
                text.push_str(&format!(
                    "({cut} line{} longer than {MAX_LINE_CHARS} characters cut: an old_string \
                     may be any part of a line that is shown)\n",
                    if cut == 1 { "" } else { "s" }
                ));
            }
            if t.truncated || shape::lines_after(t) != Some(0) {
                let more = match shape::lines_after(t) {
                    Some(n) => format!("{n} more lines"),
                    None => "more lines".to_string(),
                };
                text.push_str(&format!(
                    "... ({more}: Read again with offset={} to continue)\n",
                    t.end_line + 1
                ));
            }
            if t.unversioned.is_some() {
                text.push_str(&format!("({})\n", shape::read_version(t)));
            }
            let fields = ReadFields {
                images: Vec::new(),
                file_path,
                content_hash: t.content_hash.clone(),
                unversioned: t.unversioned.as_ref().map(Details::of),
                total_lines: None,
                warning: None,
            };
            ToolResult::reply(numbered, short, fields, text)
        }
        Ok(ReadContent::Image(i)) => {
            let short = format!("Read image ({}, {} bytes)", i.mime, i.size);
            let content = format!("Image file {file_path}: {}, {} bytes", i.mime, i.size);
            let fields = ReadFields {
                images: vec![ImageData {
                    data: i.data.clone(),
                    media_type: i.mime.clone(),
                }],
                file_path,
                content_hash: Some(i.content_hash.clone()),
                unversioned: None,
                total_lines: None,
                warning: None,
            };
            let mut reply = ToolResult::reply(content, short.clone(), fields, short);
            reply.images.push((i.mime.clone(), i.data.clone()));
            reply
        }
        Ok(ReadContent::Binary(b)) => {
            let err = FkError::new(
                ErrorCode::Binary,
                format!("{} cannot be read as text: {}", r.path, b.description),
            )
            .with_hint("Read shows text files and images only");
            ToolReply::new(failure(&err, Some(&file_path)), true, err.full_message())
        }
        Err(err) => ToolReply::new(failure(err, Some(&file_path)), true, err.full_message()),
    };
    Ok(reply)
}

/// `cat -n` numbering with lines over [`MAX_LINE_CHARS`] characters cut and marked; also how
/// many were cut.
fn number_lines_cut(text: &str, first: usize) -> (String, usize) {
    let mut cut = 0;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push_str(&format!("{:>6}\t", first + i));
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((end, _)) => {
                cut += 1;
                out.push_str(&line[..end]);
                out.push_str(&format!(
                    "... [line truncated: {MAX_LINE_CHARS} of {} characters shown]",
                    line.chars().count()
                ));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    (out, cut)
}

/// The familiar tool's warnings for a read that returns no lines: the file is empty, or
/// shorter than the offset. Not errors: the file exists, and the reply says how long it is.
fn empty_or_short(file_path: &str, t: &TextRead, start: i64) -> ToolReply {
    let warning = if t.total_lines == Some(0) {
        "Warning: the file exists but the contents are empty.".to_string()
    } else {
        format!(
            "Warning: the file exists but is shorter than the provided offset ({start}). The file \
             has {} lines.",
            t.total_lines.unwrap_or_default()
        )
    };
    let text = format!("{warning}\n");
    let fields = ReadFields {
        images: Vec::new(),
        file_path: file_path.to_string(),
        content_hash: t.content_hash.clone(),
        unversioned: None,
        total_lines: t.total_lines,
        warning: Some(warning.clone()),
    };
    ToolResult::reply(String::new(), warning, fields, text)
}

/// A read that the engine refused with an offset past the end: when that is what happened
/// (the file is shorter than `start`), the warning reply; otherwise `None` and the refusal
/// stands.
fn past_the_end(ws: &Call, path: &str, file_path: &str, start: i64) -> Option<ToolReply> {
    let probe = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: Some(-1),
        end_line: None,
        images: false,
        max_lines: Some(1),
    };
    match read_file(ws, path, &probe).result {
        Ok(ReadContent::Text(t)) if t.total_lines.is_some_and(|n| start > n as i64) => {
            Some(empty_or_short(file_path, &t, start))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Write

const WRITE_DESCRIPTION: &str = "\
Write a whole file: creates it (and its parent directories) or replaces all of its content. \
To change part of an existing file prefer Edit or MultiEdit, which send only the change. \
The content is written exactly as given.

Example: {\"file_path\": \"notes/todo.md\", \"content\": \"# TODO\\n- ship it\\n\"}";

#[derive(Deserialize, JsonSchema)]
struct WriteArgs {
    /// The path of the file to write.
    file_path: String,
    /// The content to write to the file.
    content: String,
}

static WRITE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<WriteArgs>);

fn write(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: WriteArgs = parse("Write", &WRITE_SCHEMA, args)?;
    let lines = LineIndex::new(&args.content).len();
    let request = EditRequest::one_file(
        args.file_path,
        vec![Edit::Create {
            content: args.content,
            overwrite: true,
        }],
        EditOptions::default(),
    );
    let report = ws.apply(request);
    let f = &report.files[0];
    let file_path = display_path(f);
    if let Some(err) = shape::first_error(f) {
        return Ok(ToolReply::new(
            failure(err, Some(&file_path)),
            true,
            err.full_message(),
        ));
    }
    let verb = if f.status() == FileStatus::Created {
        "Created"
    } else {
        "Wrote"
    };
    let content = format!("{verb} {file_path} ({lines} lines)");
    let fields = WriteFields {
        file_path,
        content_hash: shape::current_hash(f),
    };
    let short = format!("{verb} {lines} lines");
    Ok(ToolResult::reply(content.clone(), short, fields, content))
}

/// The edit an empty old_string stands for: create the file with `content`. Refused, as in
/// the familiar tool, when the file exists and has content (only white space counts as
/// none).
fn create_with(ws: &Call, tool: &str, path: &str, content: String) -> Result<Edit, FkError> {
    let whole = ReadOptions {
        encoding: None,
        since_hash: None,
        start_line: None,
        end_line: None,
        images: false,
        max_lines: None,
    };
    let r = read_file(ws, path, &whole);
    match &r.result {
        Err(e) if e.code == ErrorCode::NotFound => Ok(Edit::Create {
            content,
            overwrite: false,
        }),
        Ok(ReadContent::Text(t)) if t.content.trim().is_empty() => Ok(Edit::Create {
            content,
            overwrite: true,
        }),
        Ok(_) => Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "{tool}: cannot create a new file: {} already exists (an empty old_string \
                 creates a file)",
                r.resolved_path.as_deref().unwrap_or(path)
            ),
        )
        .with_hint(
            "to change the file, put the text to replace in old_string; to replace all of it, \
             use Write",
        )),
        // Not readable (a directory, outside the roots, ...): the same refusal a write gets.
        Err(e) => Err(e.clone()),
    }
}

/// The absolute path of a reported file when the engine resolved it.
fn display_path(f: &filekit_core::FileReport) -> String {
    if f.resolved_path.is_empty() {
        f.path.clone()
    } else {
        f.resolved_path.clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Edit and MultiEdit

const EDIT_DESCRIPTION: &str = "\
Replace an exact string in a file. `old_string` must occur exactly once (include enough \
surrounding lines to make it unique) unless `replace_all` is true, which replaces every \
occurrence. Copy old_string exactly as Read shows the file after the line-number tab, with \
its indentation. If it is not found, the reply shows the closest text in the file and how it \
differs; if it occurs several times, the lines where. The reply shows the edited lines, \
numbered. An empty old_string creates the file with new_string as its content (refused if \
the file exists with content).

Example: {\"file_path\": \"src/app.ts\", \"old_string\": \"const port = 3000;\", \"new_string\": \
\"const port = Number(process.env.PORT ?? 3000);\"}";

const MULTI_EDIT_DESCRIPTION: &str = "\
Make several exact-string replacements in one file in one call. The edits apply in order, \
each to the result of the one before (so a later edit can match text an earlier one wrote), \
and all-or-nothing: if any edit fails, the file is left unchanged and the reply says which \
edit failed (counting from 1) and why. Each edit works as in Edit (old_string must be unique \
unless replace_all). To create a file, give a new path and a first edit with an empty \
old_string and the file's content as new_string; the edits after it apply to that content.

Example: {\"file_path\": \"src/app.ts\", \"edits\": [{\"old_string\": \"let a = 1;\", \"new_string\": \
\"const a = 1;\"}, {\"old_string\": \"foo(\", \"new_string\": \"bar(\", \"replace_all\": true}]}";

#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// The path of the file to modify.
    file_path: String,
    /// The text to replace: exactly as in the file.
    old_string: String,
    /// The text to replace it with (must differ from old_string).
    new_string: String,
    /// Replace every occurrence of old_string (default false: it must occur exactly once).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    replace_all: bool,
}

#[derive(Deserialize, JsonSchema)]
struct OneEdit {
    /// The text to replace: exactly as in the file (after the edits before this one).
    old_string: String,
    /// The text to replace it with.
    new_string: String,
    /// Replace every occurrence of old_string.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    replace_all: bool,
}

#[derive(Deserialize, JsonSchema)]
struct MultiEditArgs {
    /// The path of the file to modify.
    file_path: String,
    /// The edits, applied in order; all succeed or none is written.
    edits: Vec<OneEdit>,
}

static EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditArgs>);
static MULTI_EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<MultiEditArgs>);

fn edit(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: EditArgs = parse("Edit", &EDIT_SCHEMA, args)?;
    let edit = OneEdit {
        old_string: args.old_string,
        new_string: args.new_string,
        replace_all: args.replace_all,
    };
    replace_strings(ws, "Edit", args.file_path, vec![edit])
}

fn multi_edit(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: MultiEditArgs = parse("MultiEdit", &MULTI_EDIT_SCHEMA, args)?;
    if args.edits.is_empty() {
        return Err(FkError::invalid("MultiEdit: `edits` is empty")
            .with_hint("give at least one {old_string, new_string}"));
    }
    replace_strings(ws, "MultiEdit", args.file_path, args.edits)
}

/// How Edit names what an edit is about.
const EDIT_WORDS: shape::Words = shape::Words {
    search: "old_string",
    expect: Some("set `replace_all` to true"),
    empty: "put the exact text to replace in old_string, with enough surrounding lines to be \
            unique (an empty old_string only creates a file that does not exist or is empty)",
    lines: shape::NO_LINES,
    exists: Some(
        "to change the file, put the text to replace in old_string; to replace all of it, use \
         Write",
    ),
};

/// How MultiEdit names it (the failed edit is named in the message).
const MULTI_EDIT_WORDS: shape::Words = shape::Words {
    search: "old_string",
    expect: Some("set that edit's `replace_all` to true"),
    empty: "put the exact text to replace in that edit's old_string, with enough surrounding \
            lines to be unique (only the first edit may have an empty old_string, to create \
            the file)",
    lines: shape::NO_LINES,
    exists: Some(
        "to change the file, put the text to replace in old_string; to replace all of it, use \
         Write",
    ),
};

fn replace_strings(
    ws: &Call,
    tool: &str,
    file_path: String,
    edits: Vec<OneEdit>,
) -> Result<ToolReply, FkError> {
    // As in the familiar tool: an edit that changes nothing is a mistake worth telling.
    if let Some(i) = edits.iter().position(|e| e.old_string == e.new_string) {
        let which = if tool == "MultiEdit" {
            format!("edits[{i}]: ")
        } else {
            String::new()
        };
        return Err(FkError::invalid(format!(
            "{tool}: {which}old_string and new_string are exactly the same: no change to make"
        ))
        .with_hint("give the new text in new_string"));
    }
    let count = edits.len();
    let mut edits = edits.into_iter().peekable();
    // As in the familiar tool, an empty old_string (first) creates the file: when it does not
    // exist, or is empty.
    let mut planned = Vec::with_capacity(count);
    if let Some(first) = edits.next_if(|e| e.old_string.is_empty()) {
        match create_with(ws, tool, &file_path, first.new_string) {
            Ok(create) => planned.push(create),
            // The file's state, not the call, is what is wrong: a failure, not a rejection.
            Err(err) => {
                return Ok(ToolReply::new(
                    failure(&err, Some(&file_path)),
                    true,
                    err.full_message(),
                ));
            }
        }
    }
    planned.extend(edits.map(|e| Edit::ReplaceText {
        old: e.old_string,
        new: e.new_string,
        expected: if e.replace_all {
            Expected::All
        } else {
            Expected::Exactly(1)
        },
        label: None,
    }));
    let request = EditRequest::one_file(
        file_path,
        planned,
        EditOptions::builder().atomic(true).build(),
    );
    let mut report = ws.apply(request);
    shape::word_report(
        &mut report,
        if tool == "MultiEdit" {
            &MULTI_EDIT_WORDS
        } else {
            &EDIT_WORDS
        },
    );
    let f = &report.files[0];
    let file_path = display_path(f);
    if let Some(err) = shape::first_error(f) {
        let mut err = err.clone();
        if tool == "MultiEdit"
            && let Some(o) = f.edits.iter().find(|o| o.error.is_some())
        {
            err.message = format!(
                "edit {} of {count} failed, nothing was written: {}",
                o.index + 1,
                err.message
            );
        }
        return Ok(ToolReply::new(
            failure(&err, Some(&file_path)),
            true,
            err.full_message(),
        ));
    }
    let replaced: usize = f.edits.iter().map(|o| o.replacements).sum();
    let snippet = shape::updated_lines(f, shape::capped_diff(&f.diff).0);
    let content = format!(
        "The file {file_path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}"
    );
    let short = if f.status() == FileStatus::Created {
        format!("Created {file_path}")
    } else if tool == "MultiEdit" {
        format!("Applied {count} edits ({replaced} replacements)")
    } else {
        let line = f.edits[0]
            .line
            .map(|l| format!(" at line {l}"))
            .unwrap_or_default();
        format!(
            "Replaced {replaced} occurrence{}{line}",
            if replaced == 1 { "" } else { "s" }
        )
    };
    let fields = WriteFields {
        file_path,
        content_hash: shape::current_hash(f),
    };
    Ok(ToolResult::reply(content.clone(), short, fields, content))
}
