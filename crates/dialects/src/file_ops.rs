//! File operations as tools: delete, rename/move and copy of the `file` dialect (seed 001:
//! `file:delete_file`, `file:rename_file`, `file:copy_file`) and of the `semantic` dialect
//! (seed 004: `file_create`, `file_delete`, `file_move`, `file_rename`, `file_duplicate`).
//!
//! All of them run through the engine's file operations ([`filekit_core::fsops`]) or, for
//! creating files, the edit pipeline, so paths are sandboxed, writes atomic, and every change
//! lands in the history. Seed 004's import and export updates (`updateImports`,
//! `renameExports`, `exportMapping`) belong to the refactoring engine, which is not built yet:
//! `updateImports` is accepted and the replies say that no importer was changed; asking for
//! export renames is refused with that reason. `file_duplicate`'s `symbolMapping` and
//! `renameSymbols` rename whole-word occurrences in the copy (textual, and said so).

use crate::args::{object, parse, schema_for};
use crate::shape::{self, Case};
use crate::templates;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest};
use filekit_core::fsops::{self, FileOp, FsReport, FsRequest, OpReport};
use filekit_core::{ErrorCode, FkError, Workspace};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec = |name, dialect, description, schema: &LazyLock<Value>, destructive, run| ToolSpec {
        name,
        dialect,
        description,
        input_schema: (**schema).clone(),
        read_only: false,
        destructive,
        idempotent: false,
        run,
        reject: if dialect == "file" {
            reject_snake
        } else {
            reject_camel
        },
    };
    vec![
        spec(
            "file:delete_file",
            "file",
            DELETE_FILE_DESCRIPTION,
            &DELETE_FILE_SCHEMA,
            true,
            delete_file,
        ),
        spec(
            "file:rename_file",
            "file",
            RENAME_FILE_DESCRIPTION,
            &RENAME_FILE_SCHEMA,
            true,
            rename_file,
        ),
        spec(
            "file:copy_file",
            "file",
            COPY_FILE_DESCRIPTION,
            &COPY_FILE_SCHEMA,
            false,
            copy_file,
        ),
        spec(
            "file_create",
            "semantic",
            FILE_CREATE_DESCRIPTION,
            &FILE_CREATE_SCHEMA,
            true,
            file_create,
        ),
        spec(
            "file_delete",
            "semantic",
            FILE_DELETE_DESCRIPTION,
            &FILE_DELETE_SCHEMA,
            true,
            file_delete,
        ),
        spec(
            "file_move",
            "semantic",
            FILE_MOVE_DESCRIPTION,
            &FILE_MOVE_SCHEMA,
            true,
            file_move,
        ),
        spec(
            "file_rename",
            "semantic",
            FILE_RENAME_DESCRIPTION,
            &FILE_RENAME_SCHEMA,
            true,
            file_rename,
        ),
        spec(
            "file_duplicate",
            "semantic",
            FILE_DUPLICATE_DESCRIPTION,
            &FILE_DUPLICATE_SCHEMA,
            false,
            file_duplicate,
        ),
    ]
}

fn reject_snake(err: &FkError) -> Value {
    shape::failure(vec![], err, Case::Snake)
}

fn reject_camel(err: &FkError) -> Value {
    shape::failure(vec![], err, Case::Camel)
}

fn run(ws: &Workspace, ops: Vec<FileOp>, dry_run: bool) -> FsReport {
    fsops::apply(
        ws,
        &FsRequest {
            ops,
            dry_run,
            tool: Some(crate::call_tool()),
            ..FsRequest::default()
        },
    )
}

fn error_of(r: &OpReport) -> Option<&FkError> {
    r.error.as_ref()
}

/// The reply of a one-operation tool of the `file` dialect.
fn file_reply(
    r: &OpReport,
    fields: Vec<(&'static str, Option<Value>)>,
    done_text: String,
) -> ToolReply {
    match error_of(r) {
        Some(e) => ToolReply::new(
            shape::failure(fields, e, Case::Snake),
            true,
            e.full_message(),
        ),
        None => {
            let mut pairs = fields;
            pairs.push(("success", Some(json!(true))));
            ToolReply::new(object(pairs), false, done_text)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// file:delete_file, file:rename_file, file:copy_file (seed 001)

const DELETE_FILE_DESCRIPTION: &str = "\
Delete a file (or an empty directory). The deletion is recorded in the edit history and can be \
undone. Refuses roots of the workspace and directories that are not empty.

Example: {\"path\": \"config/old-settings.json\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteFileArgs {
    /// File path to delete.
    path: String,
}

static DELETE_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<DeleteFileArgs>);

fn delete_file(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
    let args: DeleteFileArgs = parse("file:delete_file", &DELETE_FILE_SCHEMA, args)?;
    let report = run(
        ws,
        vec![FileOp::Delete {
            path: args.path.clone(),
            recursive: false,
        }],
        false,
    );
    let r = &report.ops[0];
    let text = format!("deleted {}", r.source);
    Ok(file_reply(
        r,
        vec![
            ("path", Some(json!(args.path))),
            ("deleted", Some(json!(r.done))),
        ],
        text,
    ))
}

const RENAME_FILE_DESCRIPTION: &str = "\
Rename or move a file (or a directory) to a new path. Missing destination directories are \
created; an existing destination is never replaced. Recorded in the edit history (undoable).

Example: {\"old_path\": \"src/UserProfile.jsx\", \"new_path\": \"src/components/UserProfile.jsx\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameFileArgs {
    /// Current file path.
    old_path: String,
    /// New file path.
    new_path: String,
}

static RENAME_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<RenameFileArgs>);

fn rename_file(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
    let args: RenameFileArgs = parse("file:rename_file", &RENAME_FILE_SCHEMA, args)?;
    let report = run(
        ws,
        vec![FileOp::Move {
            from: args.old_path.clone(),
            to: args.new_path.clone(),
            overwrite: false,
        }],
        false,
    );
    let r = &report.ops[0];
    let text = format!(
        "renamed {} to {}",
        r.source,
        r.destination.clone().unwrap_or_default()
    );
    Ok(file_reply(
        r,
        vec![
            ("old_path", Some(json!(args.old_path))),
            ("new_path", Some(json!(args.new_path))),
            (
                "directories_created",
                (!r.created_dirs.is_empty()).then(|| json!(r.created_dirs)),
            ),
        ],
        text,
    ))
}

const COPY_FILE_DESCRIPTION: &str = "\
Copy a file (or a directory with everything in it) to a new path, keeping permissions. Missing \
destination directories are created; an existing destination is never replaced.

Example: {\"source_path\": \"src/components/UserCard.jsx\", \"dest_path\": \"src/components/ProductCard.jsx\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CopyFileArgs {
    /// Source file path.
    source_path: String,
    /// Destination file path.
    dest_path: String,
}

static COPY_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<CopyFileArgs>);

fn copy_file(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
    let args: CopyFileArgs = parse("file:copy_file", &COPY_FILE_SCHEMA, args)?;
    let report = run(
        ws,
        vec![FileOp::Copy {
            from: args.source_path.clone(),
            to: args.dest_path.clone(),
            overwrite: false,
        }],
        false,
    );
    let r = &report.ops[0];
    let text = format!(
        "copied {} to {} ({} bytes)",
        r.source,
        r.destination.clone().unwrap_or_default(),
        r.bytes
    );
    Ok(file_reply(
        r,
        vec![
            ("source_path", Some(json!(args.source_path))),
            ("dest_path", Some(json!(args.dest_path))),
            ("size", error_of(r).is_none().then(|| json!(r.bytes))),
        ],
        text,
    ))
}

// ---------------------------------------------------------------------------------------------
// Seed 004: file_create, file_delete, file_move, file_rename, file_duplicate

/// What the replies of seed 004 say while imports are not updated.
const NO_IMPORT_UPDATES: &str =
    "import updates are not available yet in filekit: no importing file was changed";

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
#[serde(deny_unknown_fields, rename_all = "camelCase")]
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

fn file_create(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
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
        EditOptions {
            no_create_parents: !args.create_directories,
            ..EditOptions::default()
        },
    );
    let report = crate::apply(ws, request);
    let f = &report.files[0];
    if let Some(e) = shape::first_error(f) {
        return Ok(ToolReply::new(
            shape::failure(vec![("path", Some(json!(args.path)))], e, Case::Camel),
            true,
            e.full_message(),
        ));
    }
    let created_dirs: Vec<String> = f.created_dirs.iter().map(|d| relative(ws, d)).collect();
    let summary = format!("Created {} ({size} bytes)", args.path);
    let value = object(vec![
        ("success", Some(json!(true))),
        ("path", Some(json!(args.path))),
        ("created", Some(json!(f.written))),
        ("template", args.content.is_none().then(|| json!(template))),
        ("size", Some(json!(size))),
        ("directoriesCreated", Some(json!(created_dirs))),
        ("contentHash", shape::current_hash(f).map(|h| json!(h))),
        ("historyEntry", report.history_entry.map(|id| json!(id))),
        ("summary", Some(json!(summary))),
    ]);
    Ok(ToolReply::new(value, false, summary))
}

/// `path` relative to the first root that holds it, for replies in seed 004's style.
fn relative(ws: &Workspace, path: &str) -> String {
    ws.roots()
        .iter()
        .find_map(|r| std::path::Path::new(path).strip_prefix(r).ok())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| path.to_string())
}

const FILE_DELETE_DESCRIPTION: &str = "\
Delete files or directories (`path`, or several with `paths`). A directory with anything in \
it needs recursive: true. dryRun lists what would go without deleting. Every deletion is \
recorded in the edit history and can be undone. updateImports is accepted, but import \
clean-up is not available yet: the reply says so.

Example: {\"paths\": [\"src/old/A.ts\", \"src/old/B.ts\"]}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileDeleteArgs {
    /// Single path to delete.
    path: Option<String>,
    /// Multiple paths to delete.
    #[serde(default)]
    paths: Vec<String>,
    /// Delete directories with their contents (default false).
    #[serde(default)]
    recursive: bool,
    /// Remove imports of the deleted files from other files (not available yet; default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_DELETE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileDeleteArgs>);

fn file_delete(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
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
    let report = run(ws, ops, args.dry_run);
    let ok: Vec<&OpReport> = report.ops.iter().filter(|o| o.success).collect();
    let failed: Vec<Value> = report
        .ops
        .iter()
        .filter_map(|o| {
            o.error.as_ref().map(|e| {
                let mut v = shape::failure(
                    vec![("path", Some(json!(relative(ws, &o.source))))],
                    e,
                    Case::Camel,
                );
                v.as_object_mut().map(|m| m.remove("success"));
                v
            })
        })
        .collect();
    let listed: Vec<String> = ok.iter().map(|o| relative(ws, &o.source)).collect();
    let files: usize = ok.iter().map(|o| o.files).sum();
    let verb = if args.dry_run {
        "Would delete"
    } else {
        "Deleted"
    };
    let summary = format!(
        "{verb} {} path{} ({files} file{}){}",
        listed.len(),
        if listed.len() == 1 { "" } else { "s" },
        if files == 1 { "" } else { "s" },
        if failed.is_empty() {
            String::new()
        } else {
            format!("; {} failed", failed.len())
        }
    );
    let value = object(vec![
        ("success", Some(json!(report.success()))),
        (
            if args.dry_run {
                "wouldDelete"
            } else {
                "deleted"
            },
            Some(json!(listed)),
        ),
        ("updatedFiles", Some(json!([]))),
        (
            "totalDeleted",
            Some(json!(if args.dry_run { 0 } else { listed.len() })),
        ),
        ("totalImportsRemoved", Some(json!(0))),
        ("dryRun", args.dry_run.then(|| json!(true))),
        ("failed", (!failed.is_empty()).then(|| json!(failed))),
        (
            "warnings",
            args.update_imports.then(|| json!([NO_IMPORT_UPDATES])),
        ),
        ("historyEntry", report.history_entry.map(|id| json!(id))),
        ("summary", Some(json!(summary))),
    ]);
    let mut text = summary;
    for o in report.ops.iter().filter_map(|o| o.error.as_ref()) {
        text.push_str(&format!("\n{}", o.full_message()));
    }
    Ok(ToolReply::new(value, !report.success(), text))
}

const FILE_MOVE_DESCRIPTION: &str = "\
Move a file or directory to a new path (missing directories are created). An existing \
destination file is replaced only with overwrite; a destination ending in `/` that is a \
directory receives the source under its own name. dryRun checks everything and changes \
nothing. Undoable from the edit history. updateImports is accepted, but import updates are \
not available yet: the reply says so.

Example: {\"source\": \"src/services/UserService.ts\", \"destination\": \"src/auth/services/UserService.ts\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileMoveArgs {
    /// Current file path.
    source: String,
    /// New file path.
    destination: String,
    /// Update imports across the workspace (not available yet; default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Overwrite if destination exists (default false).
    #[serde(default)]
    overwrite: bool,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_MOVE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileMoveArgs>);

fn file_move(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
    let args: FileMoveArgs = parse("file_move", &FILE_MOVE_SCHEMA, args)?;
    let report = run(
        ws,
        vec![FileOp::Move {
            from: args.source.clone(),
            to: args.destination.clone(),
            overwrite: args.overwrite,
        }],
        args.dry_run,
    );
    let r = &report.ops[0];
    let fields = vec![
        ("source", Some(json!(args.source))),
        (
            "destination",
            Some(json!(
                r.destination
                    .as_deref()
                    .map(|d| relative(ws, d))
                    .unwrap_or(args.destination.clone())
            )),
        ),
    ];
    if let Some(e) = &r.error {
        return Ok(ToolReply::new(
            shape::failure(fields, e, Case::Camel),
            true,
            e.full_message(),
        ));
    }
    let summary = if args.dry_run {
        format!(
            "Would move {} ({} file(s)); no imports are updated",
            args.source, r.files
        )
    } else {
        format!(
            "Moved {} to {} ({} file(s)); no imports were updated",
            args.source, args.destination, r.files
        )
    };
    let mut pairs = fields;
    pairs.extend([
        ("success", Some(json!(true))),
        ("moved", Some(json!(r.done))),
        ("overwrote", r.overwrote.then(|| json!(true))),
        (
            "directoriesCreated",
            (!r.created_dirs.is_empty()).then(|| {
                json!(
                    r.created_dirs
                        .iter()
                        .map(|d| relative(ws, d))
                        .collect::<Vec<_>>()
                )
            }),
        ),
        ("importsUpdated", Some(json!([]))),
        ("totalFilesUpdated", Some(json!(0))),
        ("dryRun", args.dry_run.then(|| json!(true))),
        (
            "warnings",
            args.update_imports.then(|| json!([NO_IMPORT_UPDATES])),
        ),
        ("historyEntry", report.history_entry.map(|id| json!(id))),
        ("summary", Some(json!(summary))),
    ]);
    Ok(ToolReply::new(object(pairs), false, summary))
}

const FILE_RENAME_DESCRIPTION: &str = "\
Rename a file or directory in place: newName is the new name only, not a path. dryRun checks \
and changes nothing. Undoable from the edit history. updateImports is accepted, but import \
updates are not available yet (the reply says so); renameExports and exportMapping need the \
refactoring engine and are refused for now.

Example: {\"path\": \"src/services/UserService.ts\", \"newName\": \"AuthService.ts\"}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileRenameArgs {
    /// Current file path.
    path: String,
    /// New filename (not full path).
    new_name: String,
    /// Update imports (not available yet; default true).
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    update_imports: bool,
    /// Rename main export to match (not available yet).
    #[serde(default)]
    rename_exports: bool,
    /// Custom symbol renames (not available yet): {"Old": "New"}.
    #[serde(default)]
    export_mapping: BTreeMap<String, String>,
    /// Preview only (default false).
    #[serde(default)]
    dry_run: bool,
}

static FILE_RENAME_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FileRenameArgs>);

fn file_rename(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
    let args: FileRenameArgs = parse("file_rename", &FILE_RENAME_SCHEMA, args)?;
    if args.rename_exports || !args.export_mapping.is_empty() {
        return Err(FkError::invalid(
            "file_rename: renameExports and exportMapping need the refactoring engine, which filekit does not have yet",
        )
        .with_hint("rename the file without them, then rename the symbols with a text replace (replace_in_files)"));
    }
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
    let report = run(
        ws,
        vec![FileOp::Move {
            from: args.path.clone(),
            to: new_path.clone(),
            overwrite: false,
        }],
        args.dry_run,
    );
    let r = &report.ops[0];
    let fields = vec![
        ("oldPath", Some(json!(args.path))),
        ("newPath", Some(json!(new_path))),
    ];
    if let Some(e) = &r.error {
        return Ok(ToolReply::new(
            shape::failure(fields, e, Case::Camel),
            true,
            e.full_message(),
        ));
    }
    let summary = format!(
        "{} {} to {}; no imports {} updated",
        if args.dry_run {
            "Would rename"
        } else {
            "Renamed"
        },
        args.path,
        args.new_name,
        if args.dry_run { "are" } else { "were" }
    );
    let mut pairs = fields;
    pairs.extend([
        ("success", Some(json!(true))),
        ("renamed", Some(json!(r.done))),
        ("importsUpdated", Some(json!([]))),
        ("exportsRenamed", Some(json!([]))),
        ("dryRun", args.dry_run.then(|| json!(true))),
        (
            "warnings",
            args.update_imports.then(|| json!([NO_IMPORT_UPDATES])),
        ),
        ("historyEntry", report.history_entry.map(|id| json!(id))),
        ("summary", Some(json!(summary))),
    ]);
    Ok(ToolReply::new(object(pairs), false, summary))
}

const FILE_DUPLICATE_DESCRIPTION: &str = "\
Copy a file to a new path, optionally renaming symbols in the copy: symbolMapping \
{\"Old\": \"New\"} replaces every whole-word occurrence, and renameSymbols renames the source \
file's name (UserService in UserService.ts) to the destination's. The renames are textual \
(whole words, not scope-aware), and the reply says so. Missing directories are created; an \
existing destination is replaced only with overwrite. Undoable from the edit history.

Example: {\"source\": \"src/services/UserService.ts\", \"destination\": \"src/services/AdminService.ts\", \"renameSymbols\": true}";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
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

fn file_duplicate(ws: &Workspace, args: Value) -> Result<ToolReply, FkError> {
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
    let fields = vec![
        ("source", Some(json!(args.source))),
        ("destination", Some(json!(args.destination))),
    ];
    let (report_ok, size, renamed, history_entry, err) = if mapping.is_empty() {
        let report = run(
            ws,
            vec![FileOp::Copy {
                from: args.source.clone(),
                to: args.destination.clone(),
                overwrite: args.overwrite,
            }],
            false,
        );
        let r = &report.ops[0];
        (
            r.done,
            r.bytes as usize,
            Vec::new(),
            report.history_entry,
            r.error.clone(),
        )
    } else {
        let read = filekit_core::read::read_file(
            ws,
            &args.source,
            &filekit_core::read::ReadOptions::default(),
        );
        let text = match read.result {
            Ok(filekit_core::read::ReadContent::Text(t)) => t.content,
            Ok(_) => {
                let e = FkError::new(
                    ErrorCode::Binary,
                    format!("{} is not a text file", args.source),
                )
                .with_hint(
                    "symbols can be renamed in text files only; duplicate it without renames",
                );
                return Ok(ToolReply::new(
                    shape::failure(fields, &e, Case::Camel),
                    true,
                    e.full_message(),
                ));
            }
            Err(e) => {
                return Ok(ToolReply::new(
                    shape::failure(fields, &e, Case::Camel),
                    true,
                    e.full_message(),
                ));
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
        let report = crate::apply(ws, request);
        let f = &report.files[0];
        (
            f.written,
            size,
            renamed,
            report.history_entry,
            shape::first_error(f).cloned(),
        )
    };
    if let Some(e) = err {
        return Ok(ToolReply::new(
            shape::failure(fields, &e, Case::Camel),
            true,
            e.full_message(),
        ));
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
    let mut pairs = fields;
    pairs.extend([
        ("success", Some(json!(true))),
        ("duplicated", Some(json!(report_ok))),
        ("size", Some(json!(size))),
        (
            "symbolsRenamed",
            Some(json!(
                renamed
                    .iter()
                    .map(|(o, n, c)| json!({"old": o, "new": n, "occurrences": c}))
                    .collect::<Vec<_>>()
            )),
        ),
        ("precision", (!renamed.is_empty()).then(|| json!("textual"))),
        ("historyEntry", history_entry.map(|id| json!(id))),
        ("summary", Some(json!(summary))),
    ]);
    Ok(ToolReply::new(object(pairs), false, summary))
}
