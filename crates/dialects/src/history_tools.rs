//! The curated table's history and file-operation tools: `history`, `undo`, `redo` over the
//! engine's edit history ([`filekit_core::history`], [`filekit_core::undo`]), and
//! `manage_files` for deletes, moves and copies in one request ([`filekit_core::fsops`]).

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::{self, PartError};
use crate::shape;
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::fsops::{FileOp, FsRequest};
use filekit_core::history::ListFilter;
use filekit_core::{ErrorCode, FkError, undo};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "manage_files",
            dialect: "filekit",
            description: MANAGE_DESCRIPTION,
            input_schema: &MANAGE_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: manage_files,
            reject,
            guide: MANAGE_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<ManageReply>),
        },
        ToolSpec {
            name: "history",
            dialect: "filekit",
            description: HISTORY_DESCRIPTION,
            input_schema: &HISTORY_SCHEMA,
            read_only: true,
            destructive: false,
            idempotent: true,
            run: history,
            reject,
            guide: HISTORY_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<HistoryReply>),
        },
        ToolSpec {
            name: "undo",
            dialect: "filekit",
            description: UNDO_DESCRIPTION,
            input_schema: &UNDO_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: undo_tool,
            reject,
            guide: UNDO_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<UndoReply>),
        },
        ToolSpec {
            name: "redo",
            dialect: "filekit",
            description: REDO_DESCRIPTION,
            input_schema: &REDO_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: redo_tool,
            reject,
            guide: REDO_GUIDE,
            reply: ReplySchema::Typed(reply::schema::<UndoReply>),
        },
    ]
}

fn reject(err: &FkError) -> Value {
    reply::failure(err)
}

// ---------------------------------------------------------------------------------------------
// manage_files

const MANAGE_DESCRIPTION: &str = "\
Delete, move (rename) and copy files and directories, many in one call; paths as the tree is before the call. A destination is never replaced unless `overwrite`, a directory deleted only when `recursive`. With atomic, all happen or none. Moves keep TS/JS and Python imports right (update_imports, default true). Each call is one entry in the edit history: undo reverts it.

Example: {\"operations\": [{\"op\": \"move\", \"from\": \"src/old.ts\", \"to\": \"src/lib/new.ts\"}, {\"op\": \"delete\", \"path\": \"tmp\", \"recursive\": true}], \"atomic\": true}";

/// The long form of [`MANAGE_DESCRIPTION`], for the documentation page.
const MANAGE_GUIDE: &str = "\
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
        /// Replace an existing destination file (or, for a directory, an empty directory).
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
    let unresolved: Vec<UseLeftBehind> = applied
        .leftovers
        .iter()
        .flat_map(|l| {
            l.uses.iter().map(|u| UseLeftBehind {
                file: l.file.clone(),
                line: u.line,
                symbol: u.name.clone(),
                from: l.specifier.clone(),
                via: None,
            })
        })
        .chain(applied.barrel_uses.iter().map(|u| UseLeftBehind {
            file: u.file.clone(),
            line: u.line,
            symbol: u.name.clone(),
            from: u.specifier.clone(),
            via: Some(u.barrel.clone()),
        }))
        .collect();
    let left_behind: Vec<ImportLeftBehind> = applied
        .leftovers
        .iter()
        .filter(|l| !l.removed)
        .map(|l| ImportLeftBehind {
            file: l.file.clone(),
            line: l.line,
            specifier: l.specifier.clone(),
        })
        .collect();
    for l in &left_behind {
        text.push_str(&format!(
            "left behind: {}:{} '{}' (the file it names is deleted)\n",
            l.file, l.line, l.specifier
        ));
    }
    for u in &unresolved {
        text.push_str(&format!(
            "use left behind: {}:{} {}\n",
            u.file, u.line, u.symbol
        ));
    }
    if let Some(id) = report.history_entry {
        text.push_str(&format!("history_entry {id}\n"));
    }
    let value = ManageReply {
        success: report.success(),
        dry_run: report.dry_run,
        rolled_back: report.rolled_back,
        history_entry: report.history_entry,
        operations: report
            .ops
            .iter()
            .map(|o| OpEntry {
                op: o.op,
                path: shape::shown_path(ws, &o.source),
                to: o.destination.as_deref().map(|d| shape::shown_path(ws, d)),
                file_count: o.files,
                overwrote: o.overwrote,
                failure: o.error.as_ref().map(PartError::of),
            })
            .collect(),
        imports_updated: if report.success() {
            applied
                .files
                .iter()
                .map(|f| ImportsUpdated {
                    file: f.file.clone(),
                    imports: f.changes.len(),
                })
                .collect()
        } else {
            Vec::new()
        },
        rewrites: report
            .rewrites
            .iter()
            .filter(|r| report.dry_run || r.error.is_some())
            .map(|r| Rewrite {
                file: shape::shown_path(ws, &r.path),
                diff: report
                    .dry_run
                    .then(|| shape::capped_diff(&r.diff).0.to_string()),
                failure: r.error.as_ref().map(PartError::of),
            })
            .collect(),
        leftover_imports: left_behind,
        unresolved_uses: unresolved,
        warnings: applied.warnings.clone(),
    };
    Ok(ToolReply::typed(&value, !report.success(), text))
}

/// What manage_files answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ManageReply {
    success: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// True when the request was all or nothing and an operation failed: nothing changed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rolled_back: bool,
    /// The history entry that records the change: `undo` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    /// One per operation, in order.
    operations: Vec<OpEntry>,
    /// The files whose imports were rewritten, with how many.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    imports_updated: Vec<ImportsUpdated>,
    /// A dry run's import rewrites (with their diffs), and the rewrites that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rewrites: Vec<Rewrite>,
    /// Imports of deleted files that could not be removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    leftover_imports: Vec<ImportLeftBehind>,
    /// Uses of names that came from deleted files, which no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unresolved_uses: Vec<UseLeftBehind>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct OpEntry {
    /// delete, move or copy.
    op: &'static str,
    /// The path deleted, moved or copied.
    path: String,
    /// Where it went (move, copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    /// Files it covered (1 for a file).
    file_count: usize,
    /// An existing destination was replaced.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    overwrote: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

#[derive(Serialize, JsonSchema)]
struct ImportsUpdated {
    file: String,
    imports: usize,
}

#[derive(Serialize, JsonSchema)]
struct Rewrite {
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

#[derive(Serialize, JsonSchema)]
struct ImportLeftBehind {
    file: String,
    line: usize,
    specifier: String,
}

#[derive(Serialize, JsonSchema)]
struct UseLeftBehind {
    file: String,
    line: usize,
    symbol: String,
    /// The import specifier it came from.
    from: String,
    /// The barrel it came through.
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// history

const HISTORY_DESCRIPTION: &str = "\
What filekit changed, newest first: each entry's id, what it did and its paths; `path` filters, `entry` shows one entry's diff. undo and redo take the ids.

Example: {\"path\": \"src/app.ts\", \"limit\": 5}";

/// The long form of [`HISTORY_DESCRIPTION`], for the documentation page.
const HISTORY_GUIDE: &str = "\
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
                let entry = HistoryEntry::of(ws, &info);
                let mut text = format!(
                    "entry {} ({}, {}): {}\n",
                    entry.id, entry.time, entry.tool, entry.did
                );
                let changes: Vec<PathChange> = changes
                    .iter()
                    .map(|c| {
                        let path = shape::shown_path(ws, &c.path);
                        if c.diff.is_empty() {
                            text.push_str(&format!("{path}: {} -> {}\n", c.before, c.after));
                        } else {
                            text.push_str(shape::capped_diff(&c.diff).0);
                        }
                        PathChange {
                            path,
                            before: c.before,
                            after: c.after,
                            diff: (!c.diff.is_empty())
                                .then(|| shape::capped_diff(&c.diff).0.to_string()),
                        }
                    })
                    .collect();
                ToolReply::typed(
                    &HistoryReply {
                        success: true,
                        entries: vec![entry],
                        changes,
                    },
                    false,
                    text,
                )
            }
            Err(e) => ToolReply::new(reply::failure(&e), true, e.full_message()),
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
        Err(e) => return Ok(ToolReply::new(reply::failure(&e), true, e.full_message())),
    };
    let entries: Vec<HistoryEntry> = entries.iter().map(|e| HistoryEntry::of(ws, e)).collect();
    let mut text = String::new();
    for e in &entries {
        let state = match e.undone_by {
            Some(by) => format!(" [undone by {by}]"),
            None => String::new(),
        };
        text.push_str(&format!(
            "{:>5}  {}  {:<16} {}{state}\n",
            e.id, e.time, e.tool, e.did
        ));
    }
    if entries.is_empty() {
        text.push_str("the history is empty\n");
    }
    Ok(ToolReply::typed(
        &HistoryReply {
            success: true,
            entries,
            changes: Vec::new(),
        },
        false,
        text,
    ))
}

/// What history answers: the entries, newest first; with `entry`, that one and its changes.
#[derive(Serialize, JsonSchema)]
pub(crate) struct HistoryReply {
    success: bool,
    entries: Vec<HistoryEntry>,
    /// With `entry`: each path it changed, with its diff when both sides are text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changes: Vec<PathChange>,
}

#[derive(Serialize, JsonSchema)]
struct HistoryEntry {
    id: i64,
    time: String,
    tool: String,
    /// What the change did, in a line: "undid: ..." and "redid: ..." name the change an undo
    /// or redo put back or brought back, not the chain of entries between.
    did: String,
    /// The entry that undid this one, when it was undone.
    #[serde(skip_serializing_if = "Option::is_none")]
    undone_by: Option<i64>,
    /// Relative to the workspace root.
    paths: Vec<String>,
}

impl HistoryEntry {
    fn of(ws: &Call, e: &filekit_core::history::EntryInfo) -> HistoryEntry {
        HistoryEntry {
            id: e.id,
            time: e.time.clone(),
            tool: e.tool.clone(),
            did: what_it_did(&e.summary),
            undone_by: e.undone_by,
            paths: e.paths.iter().map(|p| shape::shown_path(ws, p)).collect(),
        }
    }
}

#[derive(Serialize, JsonSchema)]
struct PathChange {
    path: String,
    /// file, dir, link or absent.
    before: &'static str,
    after: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

/// What an entry did, from its summary: an undo's summary is "undo of entry N: " before the
/// summary of what it undid, which may itself be an undo or a redo. Each of those steps
/// turns the change around once, so what the entry did is the first change's summary,
/// reverted ("undid: ...") after an odd number of steps and brought back ("redid: ...") after
/// an even one.
pub fn what_it_did(summary: &str) -> String {
    let mut rest = summary;
    let mut turns = 0;
    while let Some(after) = rest
        .strip_prefix("undo of entry ")
        .or_else(|| rest.strip_prefix("redo of entry "))
    {
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let Some(next) = after[digits..].strip_prefix(": ").filter(|_| digits > 0) else {
            break;
        };
        rest = next;
        turns += 1;
    }
    match turns {
        0 => summary.to_string(),
        n if n % 2 == 1 => format!("undid: {rest}"),
        _ => format!("redid: {rest}"),
    }
}

// ---------------------------------------------------------------------------------------------
// undo, redo

const UNDO_DESCRIPTION: &str = "\
Undo a change filekit made (the newest, `last` N, or `entry`): its files are put back as they were, all or nothing. A file changed since is refused unless `force`. redo brings the change back.

Example: {\"last\": 2}";

/// The long form of [`UNDO_DESCRIPTION`], for the documentation page.
const UNDO_GUIDE: &str = "\
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
            Err(e) => return Ok(undo_failure(ws, done, &e)),
        }
        if args.dry_run {
            break;
        }
    }
    Ok(undo_reply(ws, done))
}

const REDO_DESCRIPTION: &str = "\
Redo what the newest undo (or undo `entry`) reverted. A file changed since is refused unless `force`.

Example: {\"dry_run\": true}";

/// The long form of [`REDO_DESCRIPTION`], for the documentation page.
const REDO_GUIDE: &str = "\
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
        Ok(r) => undo_reply(ws, vec![r]),
        Err(e) => undo_failure(ws, Vec::new(), &e),
    })
}

/// What one undo or redo step did, in a line: "undid: ..." or "redid: ..." and the change it
/// was about (a dry run: "would undo: ...").
pub fn undo_did(r: &undo::UndoReport) -> String {
    let verb = match r.kind {
        filekit_core::history::EntryKind::Redo => "redo",
        _ => "undo",
    };
    let did = what_it_did(&format!("{verb} of entry {}: {}", r.undone, r.summary));
    if !r.dry_run {
        return did;
    }
    match did.split_once(": ") {
        Some(("undid", rest)) => format!("would undo: {rest}"),
        Some(("redid", rest)) => format!("would redo: {rest}"),
        _ => format!("would revert: {did}"),
    }
}

fn undo_text(r: &undo::UndoReport) -> String {
    match r.entry {
        Some(e) => format!("{}; history_entry {e}", undo_did(r)),
        None => undo_did(r),
    }
}

/// What undo and redo answer: what each step put back, in order.
#[derive(Serialize, JsonSchema)]
pub(crate) struct UndoReply {
    success: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// The steps done (with `last`, several), each with its own history entry.
    reverted: Vec<Reverted>,
}

#[derive(Serialize, JsonSchema)]
struct Reverted {
    /// What the step did: "undid: ..." or "redid: ..." and the change it was about.
    did: String,
    /// The entry whose change was put back (for a redo, the undo that was reverted).
    entry_reverted: i64,
    /// The entry that records this step (absent in a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    /// Relative to the workspace root.
    paths: Vec<String>,
    /// Paths that had changed since and were overwritten anyway (force).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    forced: Vec<String>,
}

fn reverted(ws: &Call, done: &[undo::UndoReport]) -> Vec<Reverted> {
    done.iter()
        .map(|r| Reverted {
            did: undo_did(r),
            entry_reverted: r.undone,
            history_entry: r.entry,
            paths: r.paths.iter().map(|p| shape::shown_path(ws, p)).collect(),
            forced: r.forced.iter().map(|p| shape::shown_path(ws, p)).collect(),
        })
        .collect()
}

fn undo_reply(ws: &Call, done: Vec<undo::UndoReport>) -> ToolReply {
    let text = done.iter().map(undo_text).collect::<Vec<_>>().join("\n");
    let value = UndoReply {
        success: true,
        dry_run: done.iter().any(|r| r.dry_run),
        reverted: reverted(ws, &done),
    };
    ToolReply::typed(&value, false, text)
}

fn undo_failure(ws: &Call, done: Vec<undo::UndoReport>, e: &FkError) -> ToolReply {
    let mut text = done.iter().map(undo_text).collect::<Vec<_>>().join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&e.full_message());
    let mut value = reply::failure(e);
    if let Some(m) = value.as_object_mut() {
        m.insert("reverted".into(), reply::to_value(&reverted(ws, &done)));
    }
    ToolReply::new(value, true, text)
}

#[cfg(test)]
mod tests {
    use super::what_it_did;

    #[test]
    fn an_entry_says_what_it_did_not_the_chain_of_entries() {
        assert_eq!(
            what_it_did("rename x -> y in 3 files"),
            "rename x -> y in 3 files"
        );
        assert_eq!(
            what_it_did("undo of entry 13: edit a.py"),
            "undid: edit a.py"
        );
        assert_eq!(
            what_it_did("redo of entry 16: undo of entry 13: edit a.py"),
            "redid: edit a.py"
        );
        assert_eq!(
            what_it_did("undo of entry 17: redo of entry 16: undo of entry 13: edit a.py"),
            "undid: edit a.py"
        );
        // A summary that only looks like one is what it says.
        assert_eq!(what_it_did("undo of entry x: y"), "undo of entry x: y");
    }
}
