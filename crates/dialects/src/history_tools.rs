//! The curated table's history and file-operation tools: `history`, `undo`, `redo` over the
//! engine's edit history ([`filekit_core::history`], [`filekit_core::undo`]), and
//! `manage_files` for deletes, moves and copies in one request ([`filekit_core::fsops`]).

use crate::Call;
use crate::args::{object, parse, schema_for};
use crate::shape::{self, Case};
use crate::wire::OpReportJson;
use crate::{ToolReply, ToolSpec};
use filekit_core::fsops::{FileOp, FsRequest};
use filekit_core::history::ListFilter;
use filekit_core::{ErrorCode, FkError, undo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "manage_files",
            dialect: "filekit",
            description: MANAGE_DESCRIPTION,
            input_schema: MANAGE_SCHEMA.clone(),
            read_only: false,
            destructive: true,
            idempotent: false,
            run: manage_files,
            reject,
        },
        ToolSpec {
            name: "history",
            dialect: "filekit",
            description: HISTORY_DESCRIPTION,
            input_schema: HISTORY_SCHEMA.clone(),
            read_only: true,
            destructive: false,
            idempotent: true,
            run: history,
            reject,
        },
        ToolSpec {
            name: "undo",
            dialect: "filekit",
            description: UNDO_DESCRIPTION,
            input_schema: UNDO_SCHEMA.clone(),
            read_only: false,
            destructive: true,
            idempotent: false,
            run: undo_tool,
            reject,
        },
        ToolSpec {
            name: "redo",
            dialect: "filekit",
            description: REDO_DESCRIPTION,
            input_schema: REDO_SCHEMA.clone(),
            read_only: false,
            destructive: true,
            idempotent: false,
            run: redo_tool,
            reject,
        },
    ]
}

fn reject(err: &FkError) -> Value {
    shape::failure(vec![], err, Case::Snake)
}

// ---------------------------------------------------------------------------------------------
// manage_files

const MANAGE_DESCRIPTION: &str = "\
Delete, move (rename) and copy files and directories, many in one call. Every path must be \
inside the workspace; a destination is never replaced unless `overwrite`; a directory is \
deleted with its contents only when `recursive`. With atomic: true either every operation \
happens or none does (even if filekit is killed part way). dry_run checks everything and \
changes nothing. Each call is one entry in the edit history: `undo` reverts it. Operations \
are checked against the tree as it is before the call (one may not use another's result). \
update_imports (default true) keeps TS/JS (and Python) imports right in the same step: every \
import, re-export, require() and import() naming a moved or copied file is rewritten in the \
style it had (and the moved files' own), deleted files' import declarations are removed and \
the uses left behind listed; a request with such rewrites is atomic.

Example: {\"operations\": [{\"op\": \"move\", \"from\": \"src/old.ts\", \"to\": \"src/lib/new.ts\"}, \
{\"op\": \"delete\", \"path\": \"tmp\", \"recursive\": true}], \"atomic\": true}";

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Operation {
    /// Delete a file, link or directory.
    Delete {
        /// The path to delete.
        path: String,
        /// Delete a directory with everything in it.
        #[serde(default)]
        recursive: bool,
    },
    /// Move or rename a file or directory (missing destination directories are made; a
    /// destination ending in `/` that is a directory receives the source under its name).
    Move {
        /// The current path.
        from: String,
        /// The new path.
        to: String,
        /// Replace an existing destination file.
        #[serde(default)]
        overwrite: bool,
    },
    /// Copy a file, or a directory with everything in it, keeping permissions.
    Copy {
        /// The path to copy.
        from: String,
        /// The path of the copy.
        to: String,
        /// Replace an existing destination file.
        #[serde(default)]
        overwrite: bool,
    },
}

#[derive(Deserialize, JsonSchema)]
struct ManageArgs {
    /// The operations, carried out in order.
    operations: Vec<Operation>,
    /// All or nothing (default false: each operation on its own).
    #[serde(default)]
    atomic: bool,
    /// Check and describe, change nothing.
    #[serde(default)]
    dry_run: bool,
    /// Rewrite the imports of moved/copied files and remove those of deleted ones (default
    /// true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
}

fn yes() -> bool {
    true
}

static MANAGE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ManageArgs>);

/// How manage_files words an existing destination and a directory with entries.
const MANAGE_WORDS: shape::OpWords = shape::OpWords {
    exists: "set that operation's `overwrite` to true to replace it, or choose another `to`",
    not_empty: "set that operation's `recursive` to true to delete it with everything in it",
};

fn manage_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ManageArgs = parse("manage_files", &MANAGE_SCHEMA, args)?;
    if args.operations.is_empty() {
        return Err(
            FkError::invalid("manage_files: no operations given").with_hint(
                "list at least one operation, e.g. {\"op\": \"delete\", \"path\": \"a.txt\"}",
            ),
        );
    }
    let ops = args
        .operations
        .into_iter()
        .map(|o| match o {
            Operation::Delete { path, recursive } => FileOp::Delete { path, recursive },
            Operation::Move {
                from,
                to,
                overwrite,
            } => FileOp::Move {
                from,
                to,
                overwrite,
            },
            Operation::Copy {
                from,
                to,
                overwrite,
            } => FileOp::Copy {
                from,
                to,
                overwrite,
            },
        })
        .collect();
    let mut applied = filekit_refactor::ops::apply(
        ws,
        FsRequest {
            ops,
            dry_run: args.dry_run,
            atomic: args.atomic,
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
        args.update_imports,
        args.update_imports,
    )?;
    let Some(mut report) = applied.report.take() else {
        return Err(FkError::invalid("manage_files: nothing was done"));
    };
    shape::word_fs_report(&mut report, &MANAGE_WORDS);
    let mut text = String::new();
    // Each operation as the model wrote it: its verb, paths relative to the root.
    let rel = |p: &str| crate::file_ops::relative(ws, p);
    for o in &report.ops {
        let paths = match &o.destination {
            Some(d) => format!("{} -> {}", rel(&o.source), rel(d)),
            None => rel(&o.source),
        };
        let files = format!("{} file{}", o.files, if o.files == 1 { "" } else { "s" });
        let done = match o.op {
            "delete" => "deleted",
            "move" => "moved",
            _ => "copied",
        };
        match &o.error {
            Some(e) => text.push_str(&format!("FAILED {} {paths}: {}\n", o.op, e.full_message())),
            None if report.dry_run => text.push_str(&format!("would {} {paths} ({files})\n", o.op)),
            None => text.push_str(&format!("{done} {paths} ({files})\n")),
        }
    }
    if report.rolled_back {
        text.push_str("nothing was changed: the request is atomic and an operation failed\n");
    }
    let imports = crate::file_ops::imports_text(&applied);
    if !imports.is_empty() {
        text.push_str(imports.trim_start_matches("; "));
        text.push('\n');
    }
    if let Some(e) = report.rewrites.iter().find_map(|r| r.error.as_ref()) {
        text.push_str(&format!("FAILED import rewrite: {}\n", e.full_message()));
    }
    let unresolved: Vec<Value> = applied
        .leftovers
        .iter()
        .flat_map(|l| {
            l.uses
                .iter()
                .map(|u| json!({"file": l.file, "line": u.line, "symbol": u.name, "from": l.specifier}))
        })
        .chain(applied.barrel_uses.iter().map(|u| {
            json!({"file": u.file, "line": u.line, "symbol": u.name, "from": u.specifier, "via": u.barrel})
        }))
        .collect();
    let left_behind: Vec<&filekit_refactor::import_rewrites::Leftover> =
        applied.leftovers.iter().filter(|l| !l.removed).collect();
    for l in &left_behind {
        text.push_str(&format!(
            "left behind: {}:{} '{}' (the file it names is deleted)\n",
            l.file, l.line, l.specifier
        ));
    }
    for u in &unresolved {
        text.push_str(&format!(
            "use left behind: {}:{} {}\n",
            u["file"].as_str().unwrap_or(""),
            u["line"],
            u["symbol"].as_str().unwrap_or("")
        ));
    }
    if let Some(id) = report.history_entry {
        text.push_str(&format!("history entry {id} (undo reverts it)\n"));
    }
    let value = object(vec![
        ("success", Some(json!(report.success()))),
        ("dry_run", Some(json!(report.dry_run))),
        ("atomic", Some(json!(report.atomic))),
        ("rolled_back", Some(json!(report.rolled_back))),
        (
            "operations",
            Some(json!(
                report
                    .ops
                    .iter()
                    .map(OpReportJson::from)
                    .collect::<Vec<_>>()
            )),
        ),
        (
            "imports_updated",
            (report.success() && !applied.files.is_empty()).then(|| json!(applied.files)),
        ),
        (
            "rewrites",
            (!report.rewrites.is_empty()).then(|| {
                json!(
                    report
                        .rewrites
                        .iter()
                        .map(|r| object(vec![
                            ("file", Some(json!(r.path))),
                            ("written", Some(json!(r.done))),
                            (
                                "diff",
                                report.dry_run.then(|| json!(shape::capped_diff(&r.diff).0))
                            ),
                            ("error", r.error.as_ref().map(|e| json!(e.full_message()))),
                        ]))
                        .collect::<Vec<_>>()
                )
            }),
        ),
        (
            "leftover_imports",
            (!left_behind.is_empty()).then(|| json!(left_behind)),
        ),
        (
            "unresolved_uses",
            (!unresolved.is_empty()).then(|| json!(unresolved)),
        ),
        (
            "warnings",
            (!applied.warnings.is_empty()).then(|| json!(applied.warnings)),
        ),
        ("history_entry", report.history_entry.map(|id| json!(id))),
    ]);
    Ok(ToolReply::new(value, !report.success(), text))
}

// ---------------------------------------------------------------------------------------------
// history

const HISTORY_DESCRIPTION: &str = "\
List the edit history: every change filekit made (edits, replaces, creates, deletes, moves, \
undos), newest first, with its id, time, tool, summary and paths. Filter by `path` (a file or \
a directory); give `entry` to see one entry's diff. Use the ids with `undo` and `redo`.

Example: {\"path\": \"src/app.ts\", \"limit\": 5}";

#[derive(Deserialize, JsonSchema)]
struct HistoryArgs {
    /// Only entries that changed this path (or a path beneath it).
    path: Option<String>,
    /// At most this many entries (default 20).
    limit: Option<usize>,
    /// Show this entry with the diff of each file.
    entry: Option<i64>,
}

static HISTORY_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<HistoryArgs>);

fn history_of<'a>(ws: &'a Call) -> Result<&'a filekit_core::history::History, FkError> {
    ws.history().map(|h| h.as_ref()).ok_or_else(|| {
        FkError::new(
            ErrorCode::InvalidArgument,
            "the edit history is off in this session",
        )
        .with_hint("start filekit without --no-history to record changes")
    })
}

fn history(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: HistoryArgs = parse("history", &HISTORY_SCHEMA, args)?;
    let h = history_of(ws)?;
    if let Some(id) = args.entry {
        return Ok(match h.show(id) {
            Ok((info, changes)) => {
                let mut text = format!(
                    "entry {} ({}, {}): {}\n",
                    info.id, info.time, info.tool, info.summary
                );
                for c in &changes {
                    if c.diff.is_empty() {
                        text.push_str(&format!("{}: {} -> {}\n", c.path, c.before, c.after));
                    } else {
                        text.push_str(shape::capped_diff(&c.diff).0);
                    }
                }
                ToolReply::new(
                    json!({"success": true, "entry": info, "changes": changes}),
                    false,
                    text,
                )
            }
            Err(e) => ToolReply::new(
                shape::failure(vec![], &e, Case::Snake),
                true,
                e.full_message(),
            ),
        });
    }
    let path = match &args.path {
        Some(p) => Some(ws.resolve_entry(p)?.absolute().to_path_buf()),
        None => None,
    };
    let entries = match h.list(&ListFilter {
        path,
        limit: Some(args.limit.unwrap_or(20)),
    }) {
        Ok(e) => e,
        Err(e) => {
            return Ok(ToolReply::new(
                shape::failure(vec![], &e, Case::Snake),
                true,
                e.full_message(),
            ));
        }
    };
    let mut text = String::new();
    for e in &entries {
        let state = match e.undone_by {
            Some(by) => format!(" [undone by {by}]"),
            None => String::new(),
        };
        text.push_str(&format!(
            "{:>5}  {}  {:<16} {}{state}\n",
            e.id, e.time, e.tool, e.summary
        ));
    }
    if entries.is_empty() {
        text.push_str("the history is empty\n");
    }
    Ok(ToolReply::new(
        json!({"success": true, "entries": entries}),
        false,
        text,
    ))
}

// ---------------------------------------------------------------------------------------------
// undo, redo

const UNDO_DESCRIPTION: &str = "\
Undo a change filekit made: the files of a history entry are put back as they were before it \
(created files removed, deleted ones restored, moves reversed), all or nothing. Without \
`entry`, undoes the newest change not yet undone; `last` undoes that many, newest first. \
Refuses, naming the files, when a file changed after the entry, unless `force`. The undo is \
itself an entry: `redo` brings the change back.

Example: {\"last\": 2}";

#[derive(Deserialize, JsonSchema)]
struct UndoArgs {
    /// The history entry to undo (default: the newest not yet undone).
    entry: Option<i64>,
    /// Undo this many of the newest entries, one after another.
    last: Option<usize>,
    /// Undo even if files changed after the entry (their later changes are lost).
    #[serde(default)]
    force: bool,
    /// Check and list the files, change nothing.
    #[serde(default)]
    dry_run: bool,
}

static UNDO_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<UndoArgs>);

fn undo_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: UndoArgs = parse("undo", &UNDO_SCHEMA, args)?;
    if args.entry.is_some() && args.last.is_some() {
        return Err(FkError::invalid("undo: give `entry` or `last`, not both")
            .with_hint("`entry` undoes one entry; `last` undoes the newest N"));
    }
    history_of(ws)?;
    let times = args.last.unwrap_or(1);
    if times == 0 {
        return Err(
            FkError::invalid("undo: `last` must be at least 1").with_hint("give last: 1 or more")
        );
    }
    let mut done = Vec::new();
    for _ in 0..times {
        match undo::undo(ws, args.entry, args.force, args.dry_run) {
            Ok(r) => done.push(r),
            Err(e) => return Ok(undo_failure(done, &e)),
        }
        if args.dry_run {
            break;
        }
    }
    Ok(undo_reply(done))
}

const REDO_DESCRIPTION: &str = "\
Redo what an undo reverted: without `entry`, the newest undo since the last change; with it, \
that undo entry (or the entry it undid). Refuses when the files changed since the undo, unless \
`force`. Recorded as an entry of its own.

Example: {\"dry_run\": true}";

#[derive(Deserialize, JsonSchema)]
struct RedoArgs {
    /// The undo entry to redo (default: the newest undo since the last change).
    entry: Option<i64>,
    /// Redo even if files changed after the undo.
    #[serde(default)]
    force: bool,
    /// Check and list the files, change nothing.
    #[serde(default)]
    dry_run: bool,
}

static REDO_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<RedoArgs>);

fn redo_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: RedoArgs = parse("redo", &REDO_SCHEMA, args)?;
    history_of(ws)?;
    Ok(match undo::redo(ws, args.entry, args.force, args.dry_run) {
        Ok(r) => undo_reply(vec![r]),
        Err(e) => undo_failure(Vec::new(), &e),
    })
}

fn undo_text(r: &undo::UndoReport) -> String {
    let verb = match (r.kind, r.dry_run) {
        (_, true) => "would revert",
        (filekit_core::history::EntryKind::Redo, _) => "redid",
        _ => "undid",
    };
    let mut s = format!(
        "{verb} entry {} ({}): {} path(s)",
        r.undone,
        r.summary,
        r.paths.len()
    );
    if let Some(e) = r.entry {
        s.push_str(&format!("; recorded as entry {e}"));
    }
    s
}

fn undo_reply(done: Vec<undo::UndoReport>) -> ToolReply {
    let text = done.iter().map(undo_text).collect::<Vec<_>>().join("\n");
    ToolReply::new(json!({"success": true, "reverted": done}), false, text)
}

fn undo_failure(done: Vec<undo::UndoReport>, e: &FkError) -> ToolReply {
    let mut text = done.iter().map(undo_text).collect::<Vec<_>>().join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&e.full_message());
    let mut value = shape::failure(vec![], e, Case::Snake);
    if let Some(m) = value.as_object_mut() {
        m.insert("reverted".into(), json!(done));
    }
    ToolReply::new(value, true, text)
}
