//! `filekit mv`, `cp`, `rm`: file operations through the engine (sandboxed, recorded in the
//! history, undoable).

use crate::style::Style;
use crate::terminal;
use crate::{EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::Workspace;
use filekit_core::fsops::{FileOp, FsReport, FsRequest};
use filekit_dialects::wire::FsReportJson;

pub const AFTER_HELP: &str = "\
Paths must be inside the workspace roots. Nothing is replaced unless --overwrite; a directory
is removed with its contents only with -r. A destination ending in / that is a directory
receives the source under its own name. Imports follow (unless --no-update-imports): mv
rewrites every TS/JS import, re-export, require(), import() and /// <reference> naming a moved
file, and the moved files' own; cp rewrites the copies' own relative imports; rm removes the
import declarations of deleted files and lists what is left behind. The operation and its
import rewrites are one step of the history: `filekit undo` reverts it all.

Examples:
  filekit mv src/old.ts src/lib/new.ts
  filekit cp templates/ src/generated/ --dry-run
  filekit rm -r build tmp --atomic";

#[derive(Args)]
pub struct MoveArgs {
    /// The file or directory to move.
    source: String,
    /// Its new path.
    destination: String,
    /// Replace an existing destination file (mv: a directory replaces an empty directory too).
    #[arg(long)]
    overwrite: bool,
    /// Check and describe (with the diff of every import rewrite); change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Leave imports as they are.
    #[arg(long)]
    no_update_imports: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct RemoveArgs {
    /// The files or directories to delete.
    #[arg(required = true)]
    paths: Vec<String>,
    /// Delete directories with everything in them.
    #[arg(short, long)]
    recursive: bool,
    /// All or nothing: if one path cannot be deleted, none is.
    #[arg(long)]
    atomic: bool,
    /// Check and describe (with the diff of every import removal); change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Leave the imports of deleted files as they are (they are still listed).
    #[arg(long)]
    no_update_imports: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run_move(global: &GlobalArgs, json: bool, args: MoveArgs, copy: bool) -> u8 {
    let op = if copy {
        FileOp::Copy {
            from: args.source,
            to: args.destination,
            overwrite: args.overwrite,
        }
    } else {
        FileOp::Move {
            from: args.source,
            to: args.destination,
            overwrite: args.overwrite,
        }
    };
    let tool = if copy { "filekit cp" } else { "filekit mv" };
    run(
        global,
        json || args.json,
        vec![op],
        args.dry_run,
        false,
        tool,
        !args.no_update_imports,
    )
}

pub fn run_remove(global: &GlobalArgs, json: bool, args: RemoveArgs) -> u8 {
    let ops = args
        .paths
        .into_iter()
        .map(|path| FileOp::Delete {
            path,
            recursive: args.recursive,
        })
        .collect();
    run(
        global,
        json || args.json,
        ops,
        args.dry_run,
        args.atomic,
        "filekit rm",
        !args.no_update_imports,
    )
}

fn run(
    global: &GlobalArgs,
    json: bool,
    ops: Vec<FileOp>,
    dry_run: bool,
    atomic: bool,
    tool: &str,
    update_imports: bool,
) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let is_delete = ops.iter().any(|o| matches!(o, FileOp::Delete { .. }));
    let applied = filekit_dialects::verbs::file_ops(
        &ws,
        FsRequest {
            ops,
            dry_run,
            atomic,
            tool: Some(tool.into()),
            ..FsRequest::default()
        },
        update_imports || is_delete,
        update_imports,
    );
    let mut applied = match applied {
        Ok(a) => a,
        Err(e) => return crate::fail_early(&e),
    };
    let Some(mut report) = applied.report.take() else {
        return EXIT_FAILED;
    };
    filekit_dialects::word_cli_fs_report(&mut report);
    crate::history_warning(&ws);
    if json {
        // The engine's report, with the import updates beside it.
        let mut value = serde_json::to_value(FsReportJson::from(&report)).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("imports".into(), serde_json::json!(applied.files));
            map.insert("leftovers".into(), serde_json::json!(applied.leftovers));
            map.insert("warnings".into(), serde_json::json!(applied.warnings));
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
    } else {
        let style = Style::new(global.color);
        print_report(&ws, &style, &report);
        print_imports(&ws, &style, &report, &applied);
    }
    if report.success() {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}

/// A path as the CLI says it: relative to the first root, as `filekit` takes it back.
fn shown(ws: &Workspace, path: &str) -> String {
    terminal::name(&filekit_dialects::shown_path(ws, path)).into_owned()
}

/// A message as the CLI says it: with the paths of the first root relative to it.
fn said(ws: &Workspace, text: &str) -> String {
    terminal::text(&filekit_dialects::shown_text(ws, text)).into_owned()
}

fn print_imports(
    ws: &Workspace,
    style: &Style,
    report: &FsReport,
    applied: &filekit_dialects::verbs::Applied,
) {
    let total: usize = applied.files.iter().map(|f| f.changes.len()).sum();
    if total > 0 {
        let verb = if report.dry_run {
            "would update"
        } else {
            "updated"
        };
        println!(
            "{} {total} import(s) in {} file(s)",
            style.green(verb),
            applied.files.len()
        );
    }
    for r in &report.rewrites {
        if report.dry_run {
            print!("{}", style.diff(&r.diff));
        } else if let Some(e) = &r.error {
            println!(
                "{} {}: {}",
                style.red("FAILED"),
                shown(ws, &r.path),
                said(ws, &e.to_string())
            );
        }
    }
    for l in applied.leftovers.iter().filter(|l| !l.removed) {
        println!(
            "{} {}:{} still imports '{}' ({} is deleted)",
            style.bold("left behind:"),
            terminal::name(&l.file),
            l.line,
            l.specifier,
            l.target
        );
    }
    for l in applied.leftovers.iter().filter(|l| l.removed) {
        for u in &l.uses {
            println!(
                "{} {}:{} uses {} (its import from '{}' was removed)",
                style.bold("unresolved:"),
                terminal::name(&l.file),
                u.line,
                u.name,
                l.specifier
            );
        }
    }
    for w in &applied.warnings {
        println!("{} {}", style.bold("warning:"), terminal::text(w));
    }
}

fn print_report(ws: &Workspace, style: &Style, report: &FsReport) {
    for o in &report.ops {
        let what = match &o.destination {
            Some(d) => format!("{} -> {}", shown(ws, &o.source), shown(ws, d)),
            None => shown(ws, &o.source),
        };
        match &o.error {
            Some(e) => println!(
                "{} {} {what}: {}",
                style.red("FAILED"),
                o.op,
                said(ws, &e.to_string())
            ),
            None => {
                let verb = match (o.op, report.dry_run) {
                    ("delete", true) => "would delete",
                    ("move", true) => "would move",
                    ("copy", true) => "would copy",
                    ("delete", _) => "deleted",
                    ("move", _) => "moved",
                    _ => "copied",
                };
                let kind = o.kind.unwrap_or("file");
                let size = if kind == "directory" {
                    format!(" ({} files, {} bytes)", o.files, o.bytes)
                } else {
                    String::new()
                };
                println!("{} {kind} {what}{size}", style.green(verb));
                for d in &o.created_dirs {
                    println!(
                        "  {}",
                        style.dim(&format!("made directory {}", shown(ws, d)))
                    );
                }
            }
        }
    }
    if report.rolled_back {
        println!(
            "{}",
            style.bold("nothing was changed: the request is atomic and something failed")
        );
    }
    if let Some(id) = report.history_entry {
        println!(
            "{}",
            style.dim(&format!(
                "history entry {id}: `filekit undo {id}` reverts it"
            ))
        );
    }
}
