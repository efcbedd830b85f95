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
use crate::shape::{self, Case};
use crate::wire::{EditReportJson, status_word};
use crate::{ToolReply, ToolSpec};
use filekit_core::FkError;
use filekit_core::edit::FileStatus;
use filekit_core::read::{ReadContent, ReadOptions, read_file_within};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

/// Files one `read_files` call may name: a bound on reply size, far above what a model needs.
const MAX_FILES_PER_READ: usize = 1000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read_files",
            dialect: "filekit",
            description: READ_DESCRIPTION,
            input_schema: READ_SCHEMA.clone(),
            read_only: true,
            destructive: false,
            idempotent: true,
            run: read_files,
            reject,
        },
        ToolSpec {
            name: "edit_files",
            dialect: "filekit",
            description: EDIT_DESCRIPTION,
            input_schema: EDIT_SCHEMA.clone(),
            read_only: false,
            destructive: true,
            idempotent: false,
            run: edit_files,
            reject,
        },
        ToolSpec {
            name: "replace_in_files",
            dialect: "filekit",
            description: REPLACE_DESCRIPTION,
            input_schema: REPLACE_SCHEMA.clone(),
            read_only: false,
            destructive: true,
            idempotent: false,
            run: replace_in_files,
            reject,
        },
        ToolSpec {
            name: "lock",
            dialect: "filekit",
            description: LOCK_DESCRIPTION,
            input_schema: LOCK_SCHEMA.clone(),
            read_only: false,
            destructive: false,
            idempotent: true,
            run: lock_tool,
            reject,
        },
        ToolSpec {
            name: "unlock",
            dialect: "filekit",
            description: UNLOCK_DESCRIPTION,
            input_schema: UNLOCK_SCHEMA.clone(),
            read_only: false,
            destructive: false,
            idempotent: true,
            run: unlock_tool,
            reject,
        },
    ]
}

fn reject(err: &FkError) -> Value {
    shape::failure(vec![], err, Case::Snake)
}

// ---------------------------------------------------------------------------------------------
// read_files

const READ_DESCRIPTION: &str = "\
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
    let budget = ws.reply_budget();
    for spec in &args.files {
        let opts = ReadOptions {
            since_hash: spec.since_hash.clone(),
            start_line: spec.start_line,
            end_line: spec.end_line,
            images: true,
            max_lines: None,
        };
        let read = read_file_within(ws, &spec.path, &opts, &budget);
        let mut entry =
            serde_json::to_value(&read).unwrap_or_else(|e| json!({"error": e.to_string()}));
        match &read.result {
            Ok(ReadContent::Text(t)) if t.unchanged => {
                text.push_str(&format!(
                    "==> {} (unchanged since {}: {}, {} lines) <==\n",
                    read.path,
                    spec.since_hash.as_deref().unwrap_or_default(),
                    shape::read_version(t),
                    t.total_lines.unwrap_or_default()
                ));
            }
            Ok(ReadContent::Text(t)) if t.diff.is_some() => {
                text.push_str(&format!(
                    "==> {} (changed since {}; now {}, {} lines; the diff from your version follows) <==\n{}",
                    read.path,
                    spec.since_hash.as_deref().unwrap_or_default(),
                    shape::read_version(t),
                    t.total_lines.unwrap_or_default(),
                    t.diff.as_deref().unwrap_or_default()
                ));
            }
            Ok(ReadContent::Text(t)) => {
                if t.since_unknown && t.unversioned.is_some() {
                    text.push_str(&format!(
                        "[{}: too large to have versions, so since_hash does not apply; the lines follow]\n",
                        read.path,
                    ));
                } else if t.since_unknown {
                    text.push_str(&format!(
                        "[{}: version {} is not one filekit kept, so the whole content follows]\n",
                        read.path,
                        spec.since_hash.as_deref().unwrap_or_default()
                    ));
                }
                text.push_str(&format!(
                    "==> {} ({}, {}, last_modified {}) <==\n{}",
                    read.path,
                    shape::read_lines(t),
                    shape::read_version(t),
                    t.last_modified,
                    t.numbered()
                ));
                if let Some(on) = shape::read_on(t, "start_line") {
                    text.push_str(&on);
                    text.push('\n');
                }
            }
            Ok(ReadContent::Image(i)) => {
                text.push_str(&format!(
                    "==> {} (image {}, {} bytes, content_hash {}) <==\n",
                    read.path, i.mime, i.size, i.content_hash
                ));
                images.push((i.mime.clone(), i.data.clone()));
                // The image travels as image content; repeating its base64 here would double
                // the reply.
                if let Some(obj) = entry.as_object_mut() {
                    obj.remove("data");
                }
            }
            Ok(ReadContent::Binary(b)) => {
                text.push_str(&format!("==> {} <==\n{}\n", read.path, b.description));
            }
            Err(err) => {
                failed += 1;
                text.push_str(&format!(
                    "==> {} <==\nERROR {}\n",
                    read.path,
                    err.full_message()
                ));
            }
        }
        entries.push(entry);
    }
    let value = json!({
        "success": failed == 0,
        "files_read": args.files.len() - failed,
        "files_failed": failed,
        "files": entries,
    });
    let mut reply = ToolReply::new(value, failed > 0, text);
    reply.images = images;
    Ok(reply)
}

// ---------------------------------------------------------------------------------------------
// edit_files

const EDIT_DESCRIPTION: &str = "\
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
    let text = shape::write_summary(&report, true);
    let mut value = serde_json::to_value(EditReportJson::from(&report))
        .unwrap_or_else(|e| json!({"error": e.to_string()}));
    // Keep replies bounded: each file's diff is cut to its first hunks, with a note saying so.
    if let Some(files) = value.get_mut("files").and_then(Value::as_array_mut) {
        for (entry, file) in files.iter_mut().zip(&report.files) {
            let (diff, note) = shape::capped_diff(&file.diff);
            if let Some(obj) = entry.as_object_mut() {
                obj.insert("diff".into(), json!(diff));
                if let Some(note) = note {
                    obj.insert("diff_note".into(), json!(note));
                }
            }
        }
    }
    if let Some(obj) = value.as_object_mut() {
        obj.insert("success".into(), json!(report.success()));
    }
    Ok(ToolReply::new(value, !report.success(), text))
}

// ---------------------------------------------------------------------------------------------
// replace_in_files

const REPLACE_DESCRIPTION: &str = "\
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
    let run = shape::run_tree_replace(
        ws,
        selection,
        substitution,
        args.dry_run.unwrap_or(false),
        args.atomic.unwrap_or(false),
    );
    let out = match run {
        Ok(out) => out,
        // No file chosen, or a bad directory: an answer about the request, not a rejection.
        Err(err) => {
            let value = shape::failure(vec![], &err, Case::Snake);
            return Ok(ToolReply::new(value, true, err.full_message()));
        }
    };
    let report = &out.report;
    let mut text = String::new();
    let mut entries = Vec::new();
    let mut budget = shape::DiffBudget::new();
    let mut listed = shape::ListBudget::new(ws);
    for f in &report.files {
        if f.status() == FileStatus::Unchanged && f.success() || !listed.take(&f.path) {
            continue; // counted, not listed
        }
        let err = shape::rolled_back_error(report, f).or_else(|| shape::first_error(f).cloned());
        let replacements: usize = f.edits.iter().map(|o| o.replacements).sum();
        let mut entry = serde_json::Map::new();
        entry.insert("path".into(), json!(f.path));
        entry.insert("status".into(), json!(status_word(f.status())));
        entry.insert("replacements".into(), json!(replacements));
        if let Some(err) = &err {
            text.push_str(&format!("{}: FAILED {}\n", f.path, err.full_message()));
            entry.insert("error".into(), json!(err));
        } else if let Some(why) = f.skipped() {
            entry.insert("skipped".into(), json!(why));
        } else {
            text.push_str(&format!("{}: {replacements} replacement(s)\n", f.path));
        }
        if let Some(hash) = shape::current_hash(f).filter(|_| f.skipped().is_none()) {
            entry.insert("content_hash".into(), json!(hash));
        }
        if let Some(diff) = budget.take(&f.diff) {
            entry.insert("diff".into(), json!(diff));
        }
        entries.push(Value::Object(entry));
    }
    let changed = report
        .files
        .iter()
        .filter(|f| matches!(f.status(), FileStatus::Modified))
        .count();
    let failed = report.files.iter().filter(|f| !f.success()).count();
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
    if budget.cut > 0 {
        summary.push_str(&format!(
            "; {} diff(s) left out of this reply to keep it short (the changes are made as reported)",
            budget.cut
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
    let diffs: String = entries
        .iter()
        .filter_map(|e| e.get("diff").and_then(Value::as_str))
        .collect();
    let text = format!("{summary}\n{text}{diffs}");
    let value = json!({
        "success": report.success(),
        "replacements": out.replacements(),
        "files_matched": out.chosen,
        "files_changed": changed,
        "files_failed": failed,
        "dry_run": report.dry_run,
        "rolled_back": report.rolled_back,
        "files": entries,
    });
    Ok(ToolReply::new(value, !report.success(), text))
}

// ---------------------------------------------------------------------------------------------
// Output schemas

/// The JSON Schema of a curated tool's reply (what MCP serves as `outputSchema`). Only
/// `success` is required: a rejected or failed call answers with `success: false` and the
/// error fields, which fit the same schema.
pub(crate) fn output_schema(tool: &str) -> Option<Value> {
    let error_fields = json!({
        "error": {"type": "string", "description": "What went wrong, with a hint of what to do."},
        "error_code": {"type": "string", "description": "The error code, e.g. NOT_FOUND, STALE, INVALID_ARGUMENT."},
        "details": {"type": "object", "description": "Structured details of the error (near miss, ambiguous lines, unknown arguments, ...)."},
        "warning": {"type": "string", "description": "Something the caller should know that did not fail the call (e.g. the history could not record)."}
    });
    let engine_error = json!({
        "type": "object",
        "description": "The engine's error: code, message, hint and details.",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "hint": {"type": "string"},
            "details": {"type": "object"}
        }
    });
    let (required, mut properties) = match tool {
        "read_files" => (
            vec!["success"],
            json!({
                "success": {"type": "boolean", "description": "True when every file was read."},
                "files_read": {"type": "integer"},
                "files_failed": {"type": "integer"},
                "files": {"type": "array", "description": "One entry per file asked for, in order.", "items": {
                    "type": "object",
                    "required": ["path", "success"],
                    "properties": {
                        "path": {"type": "string"},
                        "resolved_path": {"type": "string"},
                        "success": {"type": "boolean"},
                        "kind": {"enum": ["text", "image", "binary"]},
                        "content": {"type": "string", "description": "The lines read, exactly as in the file (no line numbers)."},
                        "start_line": {"type": "integer"},
                        "end_line": {"type": "integer"},
                        "total_lines": {"type": "integer"},
                        "content_hash": {"type": "string", "description": "The file's version: give it to line edits."},
                        "range_hash": {"type": "string"},
                        "last_modified": {"type": "string"},
                        "size": {"type": "integer"},
                        "truncated": {"type": "boolean"},
                        "unchanged": {"type": "boolean", "description": "With since_hash: the file is still that version (no content)."},
                        "diff": {"type": "string", "description": "With since_hash: the unified diff from that version to the file now (no content)."},
                        "since_unknown": {"type": "boolean", "description": "With since_hash: that version is not one filekit kept; the content is whole."},
                        "mime": {"type": "string"},
                        "description": {"type": "string"},
                        "error": engine_error
                    }
                }}
            }),
        ),
        "edit_files" => (
            vec!["success"],
            json!({
                "success": {"type": "boolean", "description": "True when every edit of every file succeeded."},
                "dry_run": {"type": "boolean"},
                "atomic": {"type": "boolean"},
                "rolled_back": {"type": "boolean", "description": "True when atomic kept every file unwritten because something failed."},
                "history_entry": {"type": "integer", "description": "The history entry that records the change (for undo)."},
                "files": {"type": "array", "description": "One report per file, in order.", "items": {
                    "type": "object",
                    "required": ["path", "status", "written"],
                    "properties": {
                        "path": {"type": "string"},
                        "resolved_path": {"type": "string"},
                        "status": {"enum": ["created", "modified", "unchanged", "failed", "skipped"]},
                        "written": {"type": "boolean"},
                        "edits_applied": {"type": "integer"},
                        "edits_failed": {"type": "integer"},
                        "edits": {"type": "array", "description": "One outcome per edit, in the order given.", "items": {
                            "type": "object",
                            "properties": {
                                "index": {"type": "integer", "description": "The edit's place in the file's list, from 0."},
                                "command": {"type": "string", "description": "The kind of edit: create, str_replace, replace_lines, insert, append, ..."},
                                "label": {"type": "string"},
                                "success": {"type": "boolean"},
                                "replacements": {"type": "integer", "description": "How many places the edit changed."},
                                "fuzzy_similarity": {"type": "number", "description": "How close a fuzzy match was (0 to 1)."},
                                "line": {"type": "integer", "description": "The first line the edit changed, in the file as read."},
                                "diff": {"type": "string"},
                                "skipped": {"type": "boolean", "description": "True when the edit was not tried (an earlier one failed with stop_on_error)."},
                                "error": engine_error
                            }
                        }},
                        "diff": {"type": "string"},
                        "diff_note": {"type": "string"},
                        "lines_added": {"type": "integer"},
                        "lines_removed": {"type": "integer"},
                        "old_hash": {"type": "string"},
                        "new_hash": {"type": "string", "description": "The file's version after the edit: give it to the next line edit."},
                        "merged": {"type": "boolean", "description": "The file had changed since base_hash; the edits were merged into it (diff: what was written)."},
                        "merged_from": {"type": "string", "description": "The version the edits were made on, when merged."},
                        "last_modified": {"type": "string"},
                        "error": engine_error
                    }
                }}
            }),
        ),
        "replace_in_files" => (
            vec!["success"],
            json!({
                "success": {"type": "boolean"},
                "replacements": {"type": "integer"},
                "files_matched": {"type": "integer"},
                "files_changed": {"type": "integer"},
                "files_failed": {"type": "integer"},
                "dry_run": {"type": "boolean"},
                "rolled_back": {"type": "boolean"},
                "history_entry": {"type": "integer", "description": "The history entry that records the change (for undo)."},
                "files": {"type": "array", "description": "The files changed, failed or skipped (unchanged ones are only counted).", "items": {
                    "type": "object",
                    "required": ["path", "status", "replacements"],
                    "properties": {
                        "path": {"type": "string"},
                        "status": {"enum": ["created", "modified", "unchanged", "failed", "skipped"]},
                        "replacements": {"type": "integer"},
                        "skipped": {"type": "string"},
                        "content_hash": {"type": "string"},
                        "diff": {"type": "string"},
                        "error": engine_error
                    }
                }}
            }),
        ),
        "lock" | "unlock" => (
            vec!["success"],
            json!({
                "success": {"type": "boolean", "description": "True when every path was leased (or released)."},
                "holder": {"type": "string", "description": "The lease holder the call acted for."},
                "leases": {"type": "array", "description": "One entry per path, in order.", "items": {
                    "type": "object",
                    "required": ["path", "success"],
                    "properties": {
                        "path": {"type": "string"},
                        "success": {"type": "boolean"},
                        "holder": {"type": "string"},
                        "expires": {"type": "string", "description": "When the lease ends (RFC 3339)."},
                        "released": {"type": "boolean", "description": "unlock: a live lease was released."},
                        "error": engine_error
                    }
                }}
            }),
        ),
        _ => {
            let (required, properties) = crate::filekit_search::output_schema(tool)?;
            // A search that could not run answers with success false and the error fields
            // only: the report's fields are required of a search that ran.
            let mut all = properties.clone();
            if let (Some(all), Value::Object(errors)) = (all.as_object_mut(), &error_fields) {
                for (key, schema) in errors {
                    all.entry(key.clone()).or_insert(schema.clone());
                }
            }
            let mut schema = json!({
                "type": "object",
                "required": ["success"],
                "properties": all,
                "anyOf": [
                    {"description": "The search ran.", "required": required, "properties": properties},
                    {"description": "The search could not run.", "required": ["error", "error_code"], "properties": {"success": {"const": false}, "error": {"type": "string"}, "error_code": {"type": "string"}}}
                ]
            });
            schema["properties"]["success"] =
                json!({"type": "boolean", "description": "True when the call ran."});
            return Some(schema);
        }
    };
    if let (Some(props), Value::Object(errors)) = (properties.as_object_mut(), error_fields) {
        for (key, schema) in errors {
            props.entry(key).or_insert(schema);
        }
    }
    Some(json!({"type": "object", "required": required, "properties": properties}))
}

// ---------------------------------------------------------------------------------------------
// lock, unlock

const LOCK_DESCRIPTION: &str = "\
Lease files for a while so that other agents' writes to them are refused (advisory: every \
filekit client respects it). Use it only for the rare change that must not be interleaved \
with anyone else's (a rewrite of a whole file, a multi-step refactor); ordinary edits with \
base_hash are merged without it. Other holders' writes get LOCKED with your name and the \
expiry; a lease expires after ttl_seconds (default 300, at most 86400) and can be renewed by \
locking again. Release it with unlock as soon as you are done.

Example: {\"paths\": [\"src/schema.sql\"], \"ttl_seconds\": 120}";

const UNLOCK_DESCRIPTION: &str = "\
Release leases taken with lock. Only the holder releases a lease (force breaks another's). \
Releasing a path that has no live lease is not an error.

Example: {\"paths\": [\"src/schema.sql\"]}";

#[derive(Deserialize, JsonSchema)]
struct LockArgs {
    /// The files to lease (they need not exist yet).
    paths: Vec<String>,
    /// How long the lease lasts, in seconds (default 300, at most 86400).
    ttl_seconds: Option<u64>,
    /// Who holds the lease (default: this session's name).
    holder: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct UnlockArgs {
    /// The files to release.
    paths: Vec<String>,
    /// Whose lease to release (default: this session's name).
    holder: Option<String>,
    /// Break another holder's live lease.
    force: Option<bool>,
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

fn lease_json(l: &filekit_core::leases::Lease) -> Value {
    json!({"path": l.path, "holder": l.holder, "expires": l.expires_rfc3339()})
}

fn lock_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: LockArgs = parse("lock", &LOCK_SCHEMA, args)?;
    lease_paths(&args.paths, "lock")?;
    let holder = lease_holder(ws, args.holder, "lock")?;
    let ttl = args
        .ttl_seconds
        .unwrap_or(filekit_core::leases::DEFAULT_SECONDS);
    let mut entries = Vec::new();
    let mut text = String::new();
    let mut failed = 0;
    for path in &args.paths {
        match ws
            .resolve(path)
            .and_then(|p| filekit_core::leases::lock(ws, &p, &holder, ttl))
        {
            Ok(l) => {
                text.push_str(&format!(
                    "{path}: leased to {} until {}\n",
                    l.holder,
                    l.expires_rfc3339()
                ));
                let mut e = lease_json(&l);
                e["path"] = json!(path);
                e["success"] = json!(true);
                entries.push(e);
            }
            Err(err) => {
                failed += 1;
                text.push_str(&format!("{path}: FAILED {}\n", err.full_message()));
                entries.push(json!({"path": path, "success": false, "error": err}));
            }
        }
    }
    let value = json!({"success": failed == 0, "holder": holder, "leases": entries});
    Ok(ToolReply::new(value, failed > 0, text))
}

fn unlock_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: UnlockArgs = parse("unlock", &UNLOCK_SCHEMA, args)?;
    lease_paths(&args.paths, "unlock")?;
    let holder = lease_holder(ws, args.holder, "unlock")?;
    let force = args.force.unwrap_or(false);
    let mut entries = Vec::new();
    let mut text = String::new();
    let mut failed = 0;
    for path in &args.paths {
        match ws
            .resolve(path)
            .and_then(|p| filekit_core::leases::unlock(ws, &p, &holder, force))
        {
            Ok(released) => {
                text.push_str(&match &released {
                    Some(l) => format!("{path}: released (was leased to {})\n", l.holder),
                    None => format!("{path}: had no live lease\n"),
                });
                entries
                    .push(json!({"path": path, "success": true, "released": released.is_some()}));
            }
            Err(err) => {
                failed += 1;
                text.push_str(&format!("{path}: FAILED {}\n", err.full_message()));
                entries.push(json!({"path": path, "success": false, "error": err}));
            }
        }
    }
    let value = json!({"success": failed == 0, "holder": holder, "leases": entries});
    Ok(ToolReply::new(value, failed > 0, text))
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
  "files": [
    {
      "path": "a.txt",
      "resolved_path": "<root>/a.txt",
      "status": "modified",
      "written": true,
      "edits_applied": 2,
      "edits_failed": 1,
      "edits": [
        {
          "index": 0,
          "command": "replace_lines",
          "success": true,
          "replacements": 1,
          "line": 1
        },
        {
          "index": 1,
          "command": "str_replace",
          "success": true,
          "replacements": 1,
          "line": 3
        },
        {
          "index": 2,
          "command": "str_replace",
          "success": false,
          "replacements": 0,
          "error": {
            "code": "NOT_FOUND",
            "message": "`old` was not found in <root>/a.txt",
            "hint": "nothing similar is in the file: read it again and copy the text exactly, including indentation",
            "details": {
              "fact": "search_text_not_found",
              "near_miss": null,
              "wanted": "tow"
            }
          }
        }
      ],
      "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n-three\n+THREE\n",
      "lines_added": 2,
      "lines_removed": 2,
      "old_hash": "8ba6dab5185db767",
      "new_hash": "702273c83c32c4e0",
      "last_modified": "<time>"
    },
    {
      "path": "b/new.txt",
      "resolved_path": "<root>/b/new.txt",
      "status": "created",
      "written": true,
      "edits_applied": 1,
      "edits_failed": 0,
      "edits": [
        {
          "index": 0,
          "command": "create",
          "success": true,
          "replacements": 1,
          "line": 1
        }
      ],
      "diff": "--- /dev/null\n+++ b/b/new.txt\n@@ -0,0 +1,1 @@\n+hi\n",
      "lines_added": 1,
      "lines_removed": 0,
      "new_hash": "b34d1a3ab2bece70",
      "last_modified": "<time>",
      "created_dirs": [
        "<root>/b"
      ]
    },
    {
      "path": "gone.txt",
      "resolved_path": "<root>/gone.txt",
      "status": "failed",
      "written": false,
      "edits_applied": 0,
      "edits_failed": 0,
      "edits": [],
      "diff": "",
      "lines_added": 0,
      "lines_removed": 0,
      "error": {
        "code": "NOT_FOUND",
        "message": "<root>/gone.txt does not exist",
        "hint": "nothing with a similar name is in <root>; list that directory to see what is there"
      }
    }
  ],
  "dry_run": false,
  "atomic": false,
  "rolled_back": false,
  "success": false
}"#;
}
