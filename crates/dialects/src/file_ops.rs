//! File operations as tools: delete, rename/move and copy of the `file` dialect (the `file:` tools:
//! `file:delete_file`, `file:rename_file`, `file:copy_file`) and of the `semantic` dialect
//! (the semantic table's `file_create`, `file_delete`, `file_move`, `file_rename`, `file_duplicate`).
//!
//! All of them run through the engine's file operations ([`filekit_core::fsops`]) or, for
//! creating files, the edit pipeline, so paths are sandboxed, writes atomic, and every change
//! lands in the history. The semantic table's `updateImports` (default true) goes through the
//! refactoring engine (`filekit-refactor`): the import graph of the workspace gives every
//! specifier that names a moved, renamed, copied or deleted file, and the rewrites are
//! committed in the same atomic request as the file operation (one history entry, one undo;
//! a dry run shows every diff). Export renames (`renameExports`, `exportMapping` of
//! `file_move`/`file_rename`) go in the same request: the file's export and its import sites
//! (`filekit_refactor::symbols`). `file_duplicate`'s `symbolMapping` and `renameSymbols`
//! rename in the copy, scope-aware in TS/JS files, whole words in others (said so).

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::{self, CamelFailure, CamelPartError, Failure, SchemaForm};
use crate::shape;
use crate::templates;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest};
use filekit_core::fsops::{self, FileOp, FsReport, FsRequest, OpReport};
use filekit_core::{ErrorCode, FkError};
use filekit_refactor::ops::Options;
use filekit_refactor::symbols::Renames;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec = |name,
                dialect,
                description,
                schema: &'static LazyLock<Value>,
                destructive,
                run,
                reply: fn(SchemaForm) -> Value| ToolSpec {
        name,
        dialect,
        description,
        input_schema: schema,
        read_only: false,
        destructive,
        idempotent: false,
        run,
        reject: if dialect == "file" {
            reject_snake
        } else {
            reject_camel
        },
        guide: "",
        reply: crate::ReplySchema::Typed(reply),
    };
    vec![
        spec(
            "file:delete_file",
            "file",
            DELETE_FILE_DESCRIPTION,
            &DELETE_FILE_SCHEMA,
            true,
            delete_file,
            file_schema::<DeleteFields>,
        ),
        spec(
            "file:rename_file",
            "file",
            RENAME_FILE_DESCRIPTION,
            &RENAME_FILE_SCHEMA,
            true,
            rename_file,
            file_schema::<RenameFields>,
        ),
        spec(
            "file:copy_file",
            "file",
            COPY_FILE_DESCRIPTION,
            &COPY_FILE_SCHEMA,
            false,
            copy_file,
            file_schema::<CopyFields>,
        ),
        spec(
            "file_create",
            "semantic",
            FILE_CREATE_DESCRIPTION,
            &FILE_CREATE_SCHEMA,
            true,
            file_create,
            reply::schema_failing::<FileCreateReply, CamelFailure>,
        ),
        spec(
            "file_delete",
            "semantic",
            FILE_DELETE_DESCRIPTION,
            &FILE_DELETE_SCHEMA,
            true,
            file_delete,
            reply::schema_failing::<FileDeleteReply, CamelFailure>,
        ),
        spec(
            "file_move",
            "semantic",
            FILE_MOVE_DESCRIPTION,
            &FILE_MOVE_SCHEMA,
            true,
            file_move,
            reply::schema_failing::<FileMoveReply, CamelFailure>,
        ),
        spec(
            "file_rename",
            "semantic",
            FILE_RENAME_DESCRIPTION,
            &FILE_RENAME_SCHEMA,
            true,
            file_rename,
            reply::schema_failing::<FileRenameReply, CamelFailure>,
        ),
        spec(
            "file_duplicate",
            "semantic",
            FILE_DUPLICATE_DESCRIPTION,
            &FILE_DUPLICATE_SCHEMA,
            false,
            file_duplicate,
            reply::schema_failing::<FileDuplicateReply, CamelFailure>,
        ),
    ]
}

fn reject_snake(err: &FkError) -> Value {
    reply::failure(err)
}

fn reject_camel(err: &FkError) -> Value {
    reply::to_value(&CamelFailure::of(err))
}

/// A `file:` tool's reply: its fields (`X`), and `success`.
#[derive(Serialize, JsonSchema)]
struct OpDone<X> {
    #[serde(flatten)]
    fields: X,
    success: bool,
}

/// A `file:` tool's failure: its fields, and the failure's after them.
#[derive(Serialize, JsonSchema)]
struct OpFailed<X> {
    #[serde(flatten)]
    fields: X,
    #[serde(flatten)]
    failure: Failure,
}

/// A failure has the tool's fields beside the failure's, a rejected call the failure's alone.
fn file_schema<X: JsonSchema>(form: SchemaForm) -> Value {
    reply::schema_failing::<OpDone<X>, Failure>(form)
}

/// file:delete_file's fields.
#[derive(Serialize, JsonSchema)]
struct DeleteFields {
    path: String,
    deleted: bool,
}

/// file:rename_file's fields.
#[derive(Serialize, JsonSchema)]
struct RenameFields {
    old_path: String,
    new_path: String,
    /// Directories made for the new path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    directories_created: Vec<String>,
    /// The files whose imports of the moved file were rewritten.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    imports_updated: Vec<ImportsRewritten>,
    /// References that could not be kept right.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

/// The specifiers rewritten in one file (file:rename_file).
#[derive(Serialize, JsonSchema)]
struct ImportsRewritten {
    /// The file as it is now (workspace-relative).
    file: String,
    /// Where it is after the request (when the file itself moves).
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_to: Option<String>,
    changes: Vec<SpecifierChange>,
}

/// One specifier rewritten.
#[derive(Serialize, JsonSchema)]
struct SpecifierChange {
    old: String,
    new: String,
    /// 1-based line in the file as it is now.
    line: usize,
}

fn specifier_changes(f: &filekit_refactor::import_rewrites::FileChanges) -> Vec<SpecifierChange> {
    f.changes
        .iter()
        .map(|c| SpecifierChange {
            old: c.old.clone(),
            new: c.new.clone(),
            line: c.line,
        })
        .collect()
}

/// file:copy_file's fields.
#[derive(Serialize, JsonSchema)]
struct CopyFields {
    source_path: String,
    dest_path: String,
    /// Bytes copied.
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
}

/// A failure of the semantic table's file tools: their fields (`X`), and the failure's.
#[derive(Serialize, JsonSchema)]
struct Failed<X> {
    #[serde(flatten)]
    fields: X,
    #[serde(flatten)]
    failure: CamelFailure,
}

impl<X: Serialize> Failed<X> {
    fn reply(fields: X, err: &FkError) -> ToolReply {
        let value = Failed {
            fields,
            failure: CamelFailure::of(err),
        };
        ToolReply::typed(&value, true, err.full_message())
    }
}

#[derive(Serialize, JsonSchema)]
struct PathField {
    path: String,
}

/// The paths of file_move and file_duplicate.
#[derive(Serialize, JsonSchema)]
struct MoveFields {
    source: String,
    destination: String,
}

/// The paths of file_rename.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RenamePaths {
    old_path: String,
    new_path: String,
}

/// What file_create answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileCreateReply {
    success: bool,
    path: String,
    /// True when the file was written.
    created: bool,
    /// The template the content came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    template: Option<String>,
    /// Bytes written.
    size: usize,
    directories_created: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// The history entry that undoes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    summary: String,
}

/// What file_delete answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileDeleteReply {
    success: bool,
    /// What was deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<Vec<String>>,
    /// What a dry run would delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    would_delete: Option<Vec<String>>,
    /// The import declarations removed, per file.
    updated_files: Vec<UpdatedFile>,
    total_deleted: usize,
    total_imports_removed: usize,
    /// Imports of the deleted files left in place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    leftover_imports: Vec<LeftoverImport>,
    /// Uses of the removed imports' names, which no longer compile.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unresolved_uses: Vec<UnresolvedUse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diffs: Option<Vec<FileDiff>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// The paths that could not be deleted, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed: Vec<PathError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    summary: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UpdatedFile {
    file: String,
    removed_imports: Vec<RemovedImport>,
}

#[derive(Serialize, JsonSchema)]
struct RemovedImport {
    symbols: Vec<String>,
    from: String,
    line: usize,
}

#[derive(Serialize, JsonSchema)]
struct LeftoverImport {
    file: String,
    line: usize,
    specifier: String,
    /// `import`, `import_equals`, `export`, `require`, `dynamic`, ...
    kind: String,
    /// The deleted file it names.
    target: String,
}

#[derive(Serialize, JsonSchema)]
struct UnresolvedUse {
    file: String,
    line: usize,
    symbol: String,
    from: String,
    /// The barrel it came through.
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<String>,
}

/// The diff of one file rewritten.
#[derive(Serialize, JsonSchema)]
struct FileDiff {
    file: String,
    diff: String,
}

/// A path that failed, and why.
#[derive(Serialize, JsonSchema)]
struct PathError {
    path: String,
    #[serde(flatten)]
    error: CamelPartError,
}

/// The specifiers changed in one file, or the occurrences of a renamed symbol.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ChangedFile {
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_to: Option<String>,
    changes: Vec<SpecifierChange>,
}

/// One symbol renamed, with its occurrences.
#[derive(Serialize, JsonSchema)]
struct SymbolRenamed {
    old: String,
    new: String,
    occurrences: usize,
}

/// What file_move answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileMoveReply {
    source: String,
    destination: String,
    success: bool,
    moved: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    overwrote: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    directories_created: Vec<String>,
    imports_updated: Vec<ChangedFile>,
    total_files_updated: usize,
    total_imports_updated: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    exports_renamed: Option<Vec<ChangedFile>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbols_renamed: Option<Vec<SymbolRenamed>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_symbols_renamed: Option<usize>,
    #[serde(flatten)]
    outcome: RewriteOutcome,
}

/// What file_rename answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileRenameReply {
    old_path: String,
    new_path: String,
    success: bool,
    renamed: bool,
    imports_updated: Vec<ChangedFile>,
    total_imports_updated: usize,
    exports_renamed: Vec<ChangedFile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbols_renamed: Option<Vec<SymbolRenamed>>,
    total_symbols_renamed: usize,
    #[serde(flatten)]
    outcome: RewriteOutcome,
}

/// How a move or rename rewrote the project, and what it did: the tail both replies share.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RewriteOutcome {
    /// `syntactic`: how the symbols were renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    precision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diffs: Option<Vec<FileDiff>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    summary: String,
}

impl RewriteOutcome {
    fn of(
        ws: &Call,
        report: &FsReport,
        applied: &filekit_refactor::ops::Applied,
        dry_run: bool,
        summary: String,
    ) -> RewriteOutcome {
        RewriteOutcome {
            precision: (!applied.renamed.is_empty()).then_some("syntactic"),
            diffs: dry_run.then(|| rewrite_diffs(ws, report)).flatten(),
            dry_run,
            warnings: applied.warnings.clone(),
            history_entry: report.history_entry,
            summary,
        }
    }
}

/// What file_duplicate answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileDuplicateReply {
    source: String,
    destination: String,
    success: bool,
    duplicated: bool,
    size: usize,
    symbols_renamed: Vec<SymbolRenamed>,
    /// `syntactic` (TS/JS, scope-aware) or `textual` (whole words).
    #[serde(skip_serializing_if = "Option::is_none")]
    precision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    imports_updated: Option<Vec<ChangedFile>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    summary: String,
}

fn run(ws: &Call, ops: Vec<FileOp>, dry_run: bool) -> FsReport {
    fsops::apply(
        ws,
        &FsRequest {
            ops,
            dry_run,
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
    )
}

/// How each tool words an existing destination and a directory that is not empty (see
/// [`shape::OpWords`]): the `file:` tools have no argument to replace a file or to delete
/// a directory with its contents, so their hints say what the agent can do instead.
const DELETE_FILE_WORDS: shape::OpWords = shape::OpWords {
    exists: "choose another path",
    not_empty: "file:delete_file deletes a directory only when it is empty: delete the files \
                in it first (file:list_files with recursive: true lists them)",
};
const RENAME_FILE_WORDS: shape::OpWords = shape::OpWords {
    exists: "file:rename_file never replaces a file: choose another new_path, or, if that \
             file is to be replaced, delete it first with file:delete_file",
    not_empty: "delete what is in it first",
};
const COPY_FILE_WORDS: shape::OpWords = shape::OpWords {
    exists: "file:copy_file never replaces a file: choose another dest_path, or, if that file \
             is to be replaced, delete it first with file:delete_file",
    not_empty: "delete what is in it first",
};
const FILE_CREATE_WORDS: shape::OpWords = shape::OpWords {
    exists: "pass overwrite: true to replace its whole content, or choose another path",
    not_empty: "delete what is in it first",
};
const FILE_DELETE_WORDS: shape::OpWords = shape::OpWords {
    exists: "choose another path",
    not_empty: "pass recursive: true to delete it with everything in it",
};
const FILE_MOVE_WORDS: shape::OpWords = shape::OpWords {
    exists: "pass overwrite: true to replace it, or choose another destination",
    not_empty: "delete what is in it first",
};
const FILE_RENAME_WORDS: shape::OpWords = shape::OpWords {
    exists: "file_rename never replaces a file: choose another newName, or move onto it with \
             file_move and overwrite: true",
    not_empty: "delete what is in it first",
};
const FILE_DUPLICATE_WORDS: shape::OpWords = shape::OpWords {
    exists: "pass overwrite: true to replace it, or choose another destination",
    not_empty: "delete what is in it first",
};

fn error_of(r: &OpReport) -> Option<&FkError> {
    r.error.as_ref()
}

/// The reply of a one-operation tool of the `file` dialect.
fn file_reply<X: Serialize>(r: &OpReport, fields: X, done_text: String) -> ToolReply {
    match error_of(r) {
        Some(e) => {
            let value = OpFailed {
                fields,
                failure: Failure::of(e),
            };
            ToolReply::typed(&value, true, e.full_message())
        }
        None => {
            let value = OpDone {
                fields,
                success: true,
            };
            ToolReply::typed(&value, false, done_text)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// file:delete_file, file:rename_file, file:copy_file (the `file:` tools)

const DELETE_FILE_DESCRIPTION: &str = "\
Delete a file (or an empty directory). The deletion is recorded in the edit history and can be \
undone. Refuses roots of the workspace and directories that are not empty.

Example: {\"path\": \"config/old-settings.json\"}";

#[derive(Deserialize, JsonSchema)]
struct DeleteFileArgs {
    /// File path to delete.
    path: String,
}

static DELETE_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<DeleteFileArgs>);

fn delete_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: DeleteFileArgs = parse("file:delete_file", &DELETE_FILE_SCHEMA, args)?;
    let mut report = run(
        ws,
        vec![FileOp::Delete {
            path: args.path.clone(),
            recursive: false,
        }],
        false,
    );
    shape::word_fs_report(&mut report, &DELETE_FILE_WORDS);
    let r = &report.ops[0];
    let text = format!("deleted {}", r.source);
    Ok(file_reply(
        r,
        DeleteFields {
            path: args.path,
            deleted: r.done,
        },
        text,
    ))
}

const RENAME_FILE_DESCRIPTION: &str = "\
Rename or move a file (or a directory) to a new path. Missing destination directories are \
created; an existing destination is never replaced. Every import, re-export, require() and \
import() of a moved TS/JS (or Python) file is rewritten to the new path in the style it had, \
and the moved files' own relative imports too; the reply lists the files changed. Recorded in \
the edit history as one step (undoable).

Example: {\"old_path\": \"src/UserProfile.jsx\", \"new_path\": \"src/components/UserProfile.jsx\"}";

#[derive(Deserialize, JsonSchema)]
struct RenameFileArgs {
    /// Current file path.
    old_path: String,
    /// New file path.
    new_path: String,
}

static RENAME_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<RenameFileArgs>);

fn rename_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: RenameFileArgs = parse("file:rename_file", &RENAME_FILE_SCHEMA, args)?;
    // The file table has no flag for it: imports are always kept right, and the reply says where.
    let (mut report, applied) = run_with_imports(
        ws,
        vec![FileOp::Move {
            from: args.old_path.clone(),
            to: args.new_path.clone(),
            overwrite: false,
        }],
        false,
        imports_only(true, false),
    )?;
    shape::word_fs_report(&mut report, &RENAME_FILE_WORDS);
    let r = &report.ops[0];
    let mut text = format!(
        "renamed {} to {}",
        r.source,
        r.destination.clone().unwrap_or_default()
    );
    text.push_str(&imports_text(&applied));
    let total: usize = applied.files.iter().map(|f| f.changes.len()).sum();
    let failure = rewrite_error(&report).filter(|_| r.error.is_none());
    if let Some(e) = failure {
        let value = OpFailed {
            fields: RenameFields {
                old_path: args.old_path,
                new_path: args.new_path,
                directories_created: Vec::new(),
                imports_updated: Vec::new(),
                warnings: Vec::new(),
            },
            failure: Failure::of(e),
        };
        return Ok(ToolReply::typed(&value, true, e.full_message()));
    }
    Ok(file_reply(
        r,
        RenameFields {
            old_path: args.old_path,
            new_path: args.new_path,
            directories_created: r.created_dirs.clone(),
            imports_updated: if total > 0 {
                applied
                    .files
                    .iter()
                    .map(|f| ImportsRewritten {
                        file: f.file.clone(),
                        moved_to: f.moved_to.clone(),
                        changes: specifier_changes(f),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            warnings: applied.warnings.clone(),
        },
        text,
    ))
}

/// The importers rewritten, for a reply text: `; updated 3 import(s) in 2 file(s): a.ts, b.ts`.
pub(crate) fn imports_text(applied: &filekit_refactor::ops::Applied) -> String {
    let mut text = String::new();
    let total: usize = applied.files.iter().map(|f| f.changes.len()).sum();
    if total > 0 {
        text.push_str(&format!(
            "; updated {total} import(s) in {} file(s): {}",
            applied.files.len(),
            applied
                .files
                .iter()
                .map(|f| f.file.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for w in &applied.warnings {
        text.push_str(&format!("\nwarning: {w}"));
    }
    text
}

const COPY_FILE_DESCRIPTION: &str = "\
Copy a file (or a directory with everything in it) to a new path, keeping permissions. Missing \
destination directories are created; an existing destination is never replaced.

Example: {\"source_path\": \"src/components/UserCard.jsx\", \"dest_path\": \"src/components/ProductCard.jsx\"}";

#[derive(Deserialize, JsonSchema)]
struct CopyFileArgs {
    /// Source file path.
    source_path: String,
    /// Destination file path.
    dest_path: String,
}

static COPY_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<CopyFileArgs>);

fn copy_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: CopyFileArgs = parse("file:copy_file", &COPY_FILE_SCHEMA, args)?;
    let mut report = run(
        ws,
        vec![FileOp::Copy {
            from: args.source_path.clone(),
            to: args.dest_path.clone(),
            overwrite: false,
        }],
        false,
    );
    shape::word_fs_report(&mut report, &COPY_FILE_WORDS);
    let r = &report.ops[0];
    let text = format!(
        "copied {} to {} ({} bytes)",
        r.source,
        r.destination.clone().unwrap_or_default(),
        r.bytes
    );
    Ok(file_reply(
        r,
        CopyFields {
            source_path: args.source_path,
            dest_path: args.dest_path,
            size: error_of(r).is_none().then_some(r.bytes),
        },
        text,
    ))
}

// ---------------------------------------------------------------------------------------------
// The semantic table: file_create, file_delete, file_move, file_rename, file_duplicate

/// Runs file operations with their import updates (see `filekit_refactor::ops`).
fn run_with_imports(
    ws: &Call,
    ops: Vec<FileOp>,
    dry_run: bool,
    opts: Options,
) -> Result<(FsReport, filekit_refactor::ops::Applied), FkError> {
    let mut applied = filekit_refactor::ops::apply_with(
        ws,
        FsRequest {
            ops,
            dry_run,
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
        &opts,
    )?;
    let report = applied.report.take().unwrap_or_else(|| FsReport {
        ops: Vec::new(),
        rewrites: Vec::new(),
        dry_run,
        atomic: false,
        rolled_back: false,
        history_entry: None,
    });
    Ok((report, applied))
}

/// Import updates on, `remove_on_delete` as given, no symbol renames.
fn imports_only(update_imports: bool, remove_on_delete: bool) -> Options {
    Options {
        update_imports,
        remove_on_delete,
        renames: Renames::default(),
    }
}

/// The renames of `renameExports`/`exportMapping` (or `renameSymbols`/`symbolMapping`).
fn renames(main: bool, mapping: &BTreeMap<String, String>, what: &'static str) -> Renames {
    Renames {
        mapping: mapping
            .iter()
            .map(|(o, n)| (o.clone(), n.clone()))
            .collect(),
        main,
        what,
    }
}

/// `exportsRenamed` of the semantic table's design (every occurrence renamed, per file), `symbolsRenamed`
/// (per symbol, with its occurrences) and the count of occurrences.
fn symbols_renamed(
    applied: &filekit_refactor::ops::Applied,
) -> (Vec<ChangedFile>, Vec<SymbolRenamed>, usize) {
    let total = applied.renamed.iter().map(|r| r.2).sum();
    let files = changes_per_file(&applied.symbols);
    (files, symbol_list(&applied.renamed), total)
}

fn symbol_list(renamed: &[(String, String, usize)]) -> Vec<SymbolRenamed> {
    renamed
        .iter()
        .map(|(o, n, c)| SymbolRenamed {
            old: o.clone(),
            new: n.clone(),
            occurrences: *c,
        })
        .collect()
}

/// One entry per file: its path, where it moved, and each change with its line.
fn changes_per_file(files: &[filekit_refactor::import_rewrites::FileChanges]) -> Vec<ChangedFile> {
    files
        .iter()
        .map(|f| ChangedFile {
            file: f.file.clone(),
            moved_to: f.moved_to.clone(),
            changes: specifier_changes(f),
        })
        .collect()
}

/// `importsUpdated` of the semantic table's design: one entry per file whose specifiers change, and the count
/// of specifiers.
fn imports_updated(applied: &filekit_refactor::ops::Applied) -> (Vec<ChangedFile>, usize) {
    let total = applied.files.iter().map(|f| f.changes.len()).sum();
    (changes_per_file(&applied.files), total)
}

/// The diffs of the rewritten files (what a dry run would write).
fn rewrite_diffs(ws: &Call, report: &FsReport) -> Option<Vec<FileDiff>> {
    (!report.rewrites.is_empty()).then(|| {
        report
            .rewrites
            .iter()
            .map(|r| FileDiff {
                file: relative(ws, &r.written_to),
                diff: shape::capped_diff(&r.diff).0.to_string(),
            })
            .collect()
    })
}

/// The first failure of the rewrites, when the file operation itself did not fail.
fn rewrite_error(report: &FsReport) -> Option<&FkError> {
    report.rewrites.iter().find_map(|r| r.error.as_ref())
}

const FILE_CREATE_DESCRIPTION: &str = "\
Create a new file with content, or from a template (typescript-module, typescript-class, \
typescript-interface, typescript-function, typescript-test, react-component, react-hook, \
react-context, express-controller, express-middleware, node-cli, json, yaml, markdown, \
markdown-readme, or a template of your own in .filekit/templates/<name>.<ext>). templateVars \
fill {{name}}-style placeholders; `name` defaults to the file's name. Parent directories are \
created unless createDirectories is false; an existing file is replaced only with overwrite. \
Undoable from the history.

Example: {\"path\": \"src/services/PaymentService.ts\", \"template\": \"typescript-class\", \
\"templateVars\": {\"name\": \"PaymentService\"}}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileCreateArgs {
    /// Path for the new file.
    path: String,
    /// Initial content (instead of a template).
    content: Option<String>,
    /// Template name (default "empty"): one of the built-in templates or a file stem in .filekit/templates/.
    template: Option<String>,
    /// Variables for the template's {{placeholders}}, e.g. {"name": "UserService"}.
    #[serde(default)]
    template_vars: BTreeMap<String, String>,
    /// Replace the file if it exists (default false).
    #[serde(default)]
    overwrite: bool,
    /// Create missing parent directories (default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    create_directories: bool,
    /// Accepted for compatibility; filekit has no editor to open.
    #[serde(default)]
    open_in_editor: bool,
}

fn yes() -> bool {
    true
}

static FILE_CREATE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileCreateArgs>);

fn file_create(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FileCreateArgs = parse("file_create", &FILE_CREATE_SCHEMA, args)?;
    let _ = args.open_in_editor;
    let template = args.template.clone().unwrap_or_else(|| "empty".into());
    let content = match (&args.content, args.template.as_deref()) {
        (Some(_), Some(t)) if t != "empty" => {
            return Err(FkError::invalid(format!(
                "file_create: both `content` and `template` ({t}) were given"
            ))
            .with_hint("give the content, or a template with templateVars, not both"));
        }
        (Some(c), _) => c.clone(),
        (None, _) => templates::render(ws, &template, &args.path, &args.template_vars)?,
    };
    let size = content.len();
    let request = EditRequest::one_file(
        args.path.clone(),
        vec![Edit::Create {
            content,
            overwrite: args.overwrite,
        }],
        EditOptions::builder()
            .no_create_parents(!args.create_directories)
            .build(),
    );
    let report = ws.apply(request);
    let f = &report.files[0];
    if let Some(e) = shape::first_error(f) {
        let e = &shape::op_in_words(e, &FILE_CREATE_WORDS);
        return Ok(Failed::reply(PathField { path: args.path }, e));
    }
    let created_dirs: Vec<String> = f.created_dirs.iter().map(|d| relative(ws, d)).collect();
    let summary = format!("Created {} ({size} bytes)", args.path);
    let value = FileCreateReply {
        success: true,
        path: args.path,
        created: f.written(),
        template: args.content.is_none().then(|| template.to_string()),
        size,
        directories_created: created_dirs,
        content_hash: shape::current_hash(f),
        history_entry: report.history_entry,
        summary: summary.clone(),
    };
    Ok(ToolReply::typed(&value, false, summary))
}

/// Paths for a sentence: `a.ts`, `a.ts, b.ts`, up to five, then "and N more".
fn named(paths: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        out.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    out
}

/// `path` relative to the first root that holds it, for replies in the semantic table's design's style.
pub(crate) fn relative(ws: &Call, path: &str) -> String {
    ws.roots()
        .iter()
        .find_map(|r| std::path::Path::new(path).strip_prefix(r).ok())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| path.to_string())
}

const FILE_DELETE_DESCRIPTION: &str = "\
Delete files or directories (`path`, or several with `paths`). A directory with anything in \
it needs recursive: true. dryRun lists what would go without deleting. Every deletion is \
recorded in the edit history and can be undone. updateImports (default true) removes the \
import and re-export declarations of the deleted files from the files that import them, in \
the same undoable step, and lists the uses of their names left behind (uses that no longer \
compile), also those that came through a barrel (`export * from`, `export { a } from`) whose \
re-export of a deleted file is removed; require() and import() calls of deleted files are listed as leftovers, not removed. \
With updateImports false nothing else changes and every import left behind is listed.

Example: {\"paths\": [\"src/old/A.ts\", \"src/old/B.ts\"]}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileDeleteArgs {
    /// Single path to delete.
    path: Option<String>,
    /// Multiple paths to delete.
    #[serde(default)]
    paths: Vec<String>,
    /// Delete directories with their contents (default false).
    #[serde(default)]
    recursive: bool,
    /// Remove imports of the deleted files from other files (default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_DELETE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileDeleteArgs>);

fn file_delete(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FileDeleteArgs = parse("file_delete", &FILE_DELETE_SCHEMA, args)?;
    let mut paths = args.paths.clone();
    if let Some(p) = &args.path {
        paths.insert(0, p.clone());
    }
    if paths.is_empty() {
        return Err(FkError::invalid("file_delete: no path given")
            .with_hint("give `path`, or several paths in `paths`"));
    }
    let ops = paths
        .iter()
        .map(|p| FileOp::Delete {
            path: p.clone(),
            recursive: args.recursive,
        })
        .collect();
    // The graph is always asked, so that imports left behind are listed even without
    // updateImports; they are removed only with it.
    let (mut report, applied) = run_with_imports(
        ws,
        ops,
        args.dry_run,
        imports_only(true, args.update_imports),
    )?;
    shape::word_fs_report(&mut report, &FILE_DELETE_WORDS);
    let ok: Vec<&OpReport> = report.ops.iter().filter(|o| o.success).collect();
    let failed: Vec<PathError> = report
        .ops
        .iter()
        .filter_map(|o| {
            o.error.as_ref().map(|e| PathError {
                path: relative(ws, &o.source),
                error: CamelPartError::of(e),
            })
        })
        .collect();
    let listed: Vec<String> = ok.iter().map(|o| relative(ws, &o.source)).collect();
    let files: usize = ok.iter().map(|o| o.files).sum();
    // updatedFiles: the declarations removed, per file, as {symbol, from}.
    let mut updated_files: Vec<UpdatedFile> = Vec::new();
    let mut removed_total = 0;
    let mut left_behind: Vec<LeftoverImport> = Vec::new();
    let mut unresolved: Vec<UnresolvedUse> = Vec::new();
    for l in &applied.leftovers {
        if l.removed {
            removed_total += 1;
            let entry = RemovedImport {
                symbols: l.names.clone(),
                from: l.specifier.clone(),
                line: l.line,
            };
            match updated_files.iter_mut().find(|f| f.file == l.file) {
                Some(f) => f.removed_imports.push(entry),
                None => updated_files.push(UpdatedFile {
                    file: l.file.clone(),
                    removed_imports: vec![entry],
                }),
            }
            for u in &l.uses {
                unresolved.push(UnresolvedUse {
                    file: l.file.clone(),
                    line: u.line,
                    symbol: u.name.clone(),
                    from: l.specifier.clone(),
                    via: None,
                });
            }
        } else {
            left_behind.push(LeftoverImport {
                file: l.file.clone(),
                line: l.line,
                specifier: l.specifier.clone(),
                kind: json!(l.kind).as_str().unwrap_or_default().to_string(),
                target: l.target.clone(),
            });
        }
    }
    for u in &applied.barrel_uses {
        unresolved.push(UnresolvedUse {
            file: u.file.clone(),
            line: u.line,
            symbol: u.name.clone(),
            from: u.specifier.clone(),
            via: Some(u.barrel.clone()),
        });
    }
    let files_note = if removed_total > 0 {
        let from: Vec<String> = updated_files.iter().map(|f| f.file.clone()).collect();
        format!(
            ", {} {removed_total} import(s) from {}",
            if args.dry_run {
                "would remove"
            } else {
                "removed"
            },
            named(&from)
        )
    } else if !left_behind.is_empty() {
        format!(", {} import(s) of them left behind", left_behind.len())
    } else {
        String::new()
    };
    let verb = if args.dry_run {
        "Would delete"
    } else {
        "Deleted"
    };
    let summary = format!(
        "{verb} {} ({files} file{}){files_note}{}",
        if listed.is_empty() {
            "nothing".to_string()
        } else {
            named(&listed)
        },
        if files == 1 { "" } else { "s" },
        if failed.is_empty() {
            String::new()
        } else {
            format!("; {} failed", failed.len())
        }
    );
    let value = FileDeleteReply {
        success: report.success(),
        deleted: (!args.dry_run).then(|| listed.clone()),
        would_delete: args.dry_run.then(|| listed.clone()),
        updated_files,
        total_deleted: if args.dry_run { 0 } else { listed.len() },
        total_imports_removed: removed_total,
        leftover_imports: left_behind,
        unresolved_uses: unresolved,
        diffs: rewrite_diffs(ws, &report),
        dry_run: args.dry_run,
        failed,
        history_entry: report.history_entry,
        summary: summary.clone(),
    };
    let mut text = summary;
    for o in report
        .ops
        .iter()
        .filter_map(|o| o.error.as_ref())
        .chain(rewrite_error(&report))
    {
        text.push_str(&format!("\n{}", o.full_message()));
    }
    Ok(ToolReply::typed(&value, !report.success(), text))
}

const FILE_MOVE_DESCRIPTION: &str = "\
Move a file or directory to a new path (missing directories are created). An existing \
destination file is replaced only with overwrite; a destination ending in `/` that is a \
directory receives the source under its own name. dryRun checks everything and changes \
nothing but shows every diff. updateImports (default true) rewrites every import, re-export, \
require(), import() and /// <reference> that names a moved file (in TS/TSX/JS files, resolved \
like TypeScript: extensionless, .js for .ts, index files, tsconfig baseUrl/paths, workspace \
package exports; and Python's from/import ... as), keeping each \
specifier's style, and the moved files' own relative imports; a directory moves with all its \
files. renameExports renames the file's main export (the one named after the file, \
UserService in UserService.ts) to the new file name, and exportMapping {\"Old\": \"New\"} the \
exports it names: in the file and at every import site (named imports, aliased ones keeping \
their local name, re-exports and their importers, ns.Old, default imports named after it); a \
name the file does not export, an invalid name or one that clashes with a binding where it \
lands is refused with nothing changed. The move, every rewrite and every rename are one \
atomic step of the edit history (one undo).

Example: {\"source\": \"src/services/UserService.ts\", \"destination\": \"src/auth/services/UserService.ts\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileMoveArgs {
    /// Current file path.
    source: String,
    /// New file path.
    destination: String,
    /// Update imports across the workspace (default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Overwrite if destination exists (default false).
    #[serde(default)]
    overwrite: bool,
    /// Rename the main export (named after the file) to match the new name (default false).
    #[serde(default)]
    rename_exports: bool,
    /// Exported symbols to rename everywhere with the move: {"Old": "New"}.
    #[serde(default)]
    export_mapping: BTreeMap<String, String>,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_MOVE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileMoveArgs>);

fn file_move(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FileMoveArgs = parse("file_move", &FILE_MOVE_SCHEMA, args)?;
    let (mut report, applied) = run_with_imports(
        ws,
        vec![FileOp::Move {
            from: args.source.clone(),
            to: args.destination.clone(),
            overwrite: args.overwrite,
        }],
        args.dry_run,
        Options {
            update_imports: args.update_imports,
            remove_on_delete: false,
            renames: renames(args.rename_exports, &args.export_mapping, "exportMapping"),
        },
    )?;
    shape::word_fs_report(&mut report, &FILE_MOVE_WORDS);
    let r = &report.ops[0];
    let destination = r
        .destination
        .as_deref()
        .map(|d| relative(ws, d))
        .unwrap_or(args.destination.clone());
    if let Some(e) = r.error.as_ref().or(rewrite_error(&report)) {
        let fields = MoveFields {
            source: args.source,
            destination,
        };
        return Ok(Failed::reply(fields, e));
    }
    let (imports, total) = imports_updated(&applied);
    let (exports, symbols, renamed) = symbols_renamed(&applied);
    let mut imports_note = if !args.update_imports {
        "imports not updated (updateImports: false)".to_string()
    } else {
        format!("{total} import(s) in {} file(s)", applied.files.len())
    };
    if !applied.renamed.is_empty() {
        imports_note.push_str(&format!(", renamed {renamed} symbol occurrence(s)"));
    }
    let summary = if args.dry_run {
        format!(
            "Would move {} ({} file(s)) and update {imports_note}",
            args.source, r.files
        )
    } else {
        format!(
            "Moved {} to {} ({} file(s)), updated {imports_note}",
            args.source, args.destination, r.files
        )
    };
    let any_renamed = !applied.renamed.is_empty();
    let value = FileMoveReply {
        source: args.source,
        destination,
        success: true,
        moved: r.done,
        overwrote: r.overwrote,
        directories_created: r.created_dirs.iter().map(|d| relative(ws, d)).collect(),
        imports_updated: imports,
        total_files_updated: applied.files.len(),
        total_imports_updated: total,
        exports_renamed: any_renamed.then_some(exports),
        symbols_renamed: any_renamed.then_some(symbols),
        total_symbols_renamed: any_renamed.then_some(renamed),
        outcome: RewriteOutcome::of(ws, &report, &applied, args.dry_run, summary.clone()),
    };
    Ok(ToolReply::typed(&value, false, summary))
}

const FILE_RENAME_DESCRIPTION: &str = "\
Rename a file or directory in place: newName is the new name only, not a path. dryRun checks \
and changes nothing but shows every diff. updateImports (default true) rewrites every import \
of the renamed file (or of the files of a renamed directory) in the style it had, in the same \
undoable step. renameExports renames the file's main export (the one named after the file, \
UserService in UserService.ts; userService in user-service.ts) to the new name, and \
exportMapping {\"Old\": \"New\"} the exports it names, in the file and at every import site \
(named imports, aliased ones keeping their local name, re-exports and their importers, ns.Old, \
default imports named after it), in the same step; syntactic (tree-sitter), and said so. A \
name the file does not export, an invalid name or one that clashes with a binding where it \
lands is refused with nothing changed.

Example: {\"path\": \"src/services/UserService.ts\", \"newName\": \"AuthService.ts\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileRenameArgs {
    /// Current file path.
    path: String,
    /// New filename (not full path).
    new_name: String,
    /// Update imports (default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Rename the main export (named after the file) to match the new name (default false).
    #[serde(default)]
    rename_exports: bool,
    /// Custom symbol renames, in the file and its importers: {"Old": "New"}.
    #[serde(default)]
    export_mapping: BTreeMap<String, String>,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_RENAME_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileRenameArgs>);

fn file_rename(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FileRenameArgs = parse("file_rename", &FILE_RENAME_SCHEMA, args)?;
    if args.new_name.is_empty()
        || args.new_name.contains('/')
        || args.new_name.contains('\\')
        || args.new_name == "."
        || args.new_name == ".."
    {
        return Err(FkError::invalid(format!(
            "file_rename: newName must be a file name, not a path ('{}')",
            args.new_name
        ))
        .with_hint("give only the new name (\"AuthService.ts\"); to move to another directory use file_move"));
    }
    let path = std::path::Path::new(&args.path);
    let new_path = path
        .with_file_name(&args.new_name)
        .to_string_lossy()
        .into_owned();
    let (mut report, applied) = run_with_imports(
        ws,
        vec![FileOp::Move {
            from: args.path.clone(),
            to: new_path.clone(),
            overwrite: false,
        }],
        args.dry_run,
        Options {
            update_imports: args.update_imports,
            remove_on_delete: false,
            renames: renames(args.rename_exports, &args.export_mapping, "exportMapping"),
        },
    )?;
    shape::word_fs_report(&mut report, &FILE_RENAME_WORDS);
    let r = &report.ops[0];
    if let Some(e) = r.error.as_ref().or(rewrite_error(&report)) {
        let fields = RenamePaths {
            old_path: args.path,
            new_path,
        };
        return Ok(Failed::reply(fields, e));
    }
    let (imports, total) = imports_updated(&applied);
    let (exports, symbols, renamed) = symbols_renamed(&applied);
    let mut summary = format!(
        "{} {} to {}, {} {total} import(s) in {} file(s)",
        if args.dry_run {
            "Would rename"
        } else {
            "Renamed"
        },
        args.path,
        args.new_name,
        if args.dry_run {
            "would update"
        } else {
            "updated"
        },
        applied.files.len()
    );
    if !applied.renamed.is_empty() {
        summary.push_str(&format!(
            ", {} {renamed} symbol occurrence(s) ({})",
            if args.dry_run {
                "would rename"
            } else {
                "renamed"
            },
            applied
                .renamed
                .iter()
                .map(|(o, n, _)| format!("{o} -> {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let any_renamed = !applied.renamed.is_empty();
    let value = FileRenameReply {
        old_path: args.path,
        new_path,
        success: true,
        renamed: r.done,
        imports_updated: imports,
        total_imports_updated: total,
        exports_renamed: exports,
        symbols_renamed: any_renamed.then_some(symbols),
        total_symbols_renamed: renamed,
        outcome: RewriteOutcome::of(ws, &report, &applied, args.dry_run, summary.clone()),
    };
    Ok(ToolReply::typed(&value, false, summary))
}

const FILE_DUPLICATE_DESCRIPTION: &str = "\
Copy a file to a new path, optionally renaming symbols in the copy: symbolMapping \
{\"Old\": \"New\"} renames the symbols it names, and renameSymbols the main export (named \
after the file: UserService in UserService.ts) to the destination's name. In TS/JS files the \
renames are scope-aware (declarations and their uses, syntactic); in other files they replace \
whole words (textual); the reply says which. The copy's own relative imports are rewritten to \
work from its new place. Missing directories are created; an existing destination is replaced \
only with overwrite. Undoable from the edit history.

Example: {\"source\": \"src/services/UserService.ts\", \"destination\": \"src/services/AdminService.ts\", \"renameSymbols\": true}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileDuplicateArgs {
    /// File to duplicate.
    source: String,
    /// Path for the copy.
    destination: String,
    /// Rename the main export (the source file's name) to the destination file's name.
    #[serde(default)]
    rename_symbols: bool,
    /// Custom renames in the copy: {"Old": "New"} (whole words).
    #[serde(default)]
    symbol_mapping: BTreeMap<String, String>,
    /// Overwrite if exists (default false).
    #[serde(default)]
    overwrite: bool,
}

static FILE_DUPLICATE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileDuplicateArgs>);

fn file_duplicate(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FileDuplicateArgs = parse("file_duplicate", &FILE_DUPLICATE_SCHEMA, args)?;
    let mut mapping: Vec<(String, String)> = args.symbol_mapping.clone().into_iter().collect();
    if args.rename_symbols {
        let stem = |p: &str| {
            std::path::Path::new(p)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let (old, new) = (stem(&args.source), stem(&args.destination));
        if !old.is_empty() && old != new && !mapping.iter().any(|(o, _)| *o == old) {
            mapping.push((old, new));
        }
    }
    let fields = || MoveFields {
        source: args.source.clone(),
        destination: args.destination.clone(),
    };
    let mut imports = (Vec::new(), 0);
    let code = filekit_semantic::Lang::of_path(&args.source).is_ok_and(|l| {
        matches!(
            l,
            filekit_semantic::Lang::TypeScript
                | filekit_semantic::Lang::Tsx
                | filekit_semantic::Lang::JavaScript
        )
    });
    let mut precision = "textual";
    let (report_ok, size, renamed, history_entry, err) = if mapping.is_empty() || code {
        // The copy's own relative imports are rewritten to work from its new place, and in
        // TS/JS the symbols are renamed scope-aware, in the same request.
        precision = "syntactic";
        let (report, applied) = run_with_imports(
            ws,
            vec![FileOp::Copy {
                from: args.source.clone(),
                to: args.destination.clone(),
                overwrite: args.overwrite,
            }],
            false,
            Options {
                update_imports: true,
                remove_on_delete: false,
                renames: renames(args.rename_symbols, &args.symbol_mapping, "symbolMapping"),
            },
        )?;
        imports = imports_updated(&applied);
        let r = &report.ops[0];
        let size = report
            .rewrites
            .first()
            .and_then(|w| ws.resolve(&w.written_to).ok())
            .and_then(|p| ws.metadata(&p).ok().flatten())
            .map_or(r.bytes as usize, |m| m.len as usize);
        (
            r.done,
            size,
            applied.renamed.clone(),
            report.history_entry,
            r.error.clone().or(rewrite_error(&report).cloned()),
        )
    } else {
        let read = filekit_core::read::read_file(
            ws,
            &args.source,
            &filekit_core::read::ReadOptions::default(),
        );
        let text = match read.result {
            Ok(filekit_core::read::ReadContent::Text(t)) if !t.truncated => t.content,
            Ok(filekit_core::read::ReadContent::Text(t)) => {
                let shown = read.resolved_path.as_deref().unwrap_or(&args.source);
                let e = filekit_core::limits::too_large_to_parse(shown, t.size);
                return Ok(Failed::reply(fields(), &e));
            }
            Ok(_) => {
                let e = FkError::new(
                    ErrorCode::Binary,
                    format!("{} is not a text file", args.source),
                )
                .with_hint(
                    "symbols can be renamed in text files only; duplicate it without renames",
                );
                return Ok(Failed::reply(fields(), &e));
            }
            Err(e) => {
                return Ok(Failed::reply(fields(), &e));
            }
        };
        let (new_text, renamed) = templates::rename_words(&text, &mapping)?;
        let size = new_text.len();
        let request = EditRequest::one_file(
            args.destination.clone(),
            vec![Edit::Create {
                content: new_text,
                overwrite: args.overwrite,
            }],
            EditOptions::default(),
        );
        let report = ws.apply(request);
        let f = &report.files[0];
        (
            f.written(),
            size,
            renamed,
            report.history_entry,
            shape::first_error(f).cloned(),
        )
    };
    if let Some(e) = err {
        let e = shape::op_in_words(&e, &FILE_DUPLICATE_WORDS);
        return Ok(Failed::reply(fields(), &e));
    }
    let total: usize = renamed.iter().map(|(_, _, n)| n).sum();
    let summary = if renamed.is_empty() {
        format!(
            "Duplicated {} to {} ({size} bytes)",
            args.source, args.destination
        )
    } else {
        format!(
            "Duplicated {} to {} with {total} symbol rename(s)",
            args.source, args.destination
        )
    };
    let value = FileDuplicateReply {
        source: args.source.clone(),
        destination: args.destination.clone(),
        success: true,
        duplicated: report_ok,
        size,
        symbols_renamed: symbol_list(&renamed),
        precision: (!renamed.is_empty()).then_some(precision),
        imports_updated: (imports.1 > 0).then_some(imports.0),
        history_entry,
        summary: summary.clone(),
    };
    Ok(ToolReply::typed(&value, false, summary))
}
