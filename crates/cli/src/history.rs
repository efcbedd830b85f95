//! `filekit history`, `undo`, `redo`: the edit history from the command line.

use crate::style::Style;
use crate::terminal;
use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::history::{DEFAULT_CAP_BYTES, EntryInfo, History, ListFilter};
use filekit_core::undo::{self, UndoReport};
use filekit_core::{FkError, Workspace};
use serde_json::json;

pub const HISTORY_AFTER_HELP: &str = "\
Every change filekit makes (edit, replace, create, delete, move, copy, undo) is recorded in
history.db in the workspace's state directory (see `filekit state`), with each file's content
before and after, so that it can be undone. --no-history turns recording off; --history FILE
puts the database elsewhere.

Examples:
  filekit history                      the newest entries
  filekit history --path src/app.ts    entries that changed src/app.ts
  filekit history --show 12            entry 12 with a colored diff of each file
  filekit undo                         undo the newest change
  filekit undo 12                      undo entry 12
  filekit undo --last 3                undo the three newest changes
  filekit redo                         bring back what the last undo reverted
  filekit history --repair             start a new history when the database is damaged";

#[derive(Args)]
pub struct HistoryArgs {
    /// Only entries that changed this file, or anything beneath this directory.
    #[arg(long)]
    path: Option<String>,
    /// At most this many entries.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Show one entry: its files, with a diff of each text file.
    #[arg(long, value_name = "ENTRY")]
    show: Option<i64>,
    /// Move a damaged database aside (kept as history.db.corrupt-<time>) and start anew.
    #[arg(long)]
    repair: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct UndoArgs {
    /// The entry to undo (default: the newest change not yet undone).
    entry: Option<i64>,
    /// Undo the newest N changes, one after another.
    #[arg(long, value_name = "N", conflicts_with = "entry")]
    last: Option<usize>,
    /// Undo even if files changed after the entry (their later changes are lost).
    #[arg(long)]
    force: bool,
    /// Check and list the files; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct RedoArgs {
    /// The undo entry to redo (default: the newest undo since the last change).
    entry: Option<i64>,
    /// Redo even if files changed since the undo.
    #[arg(long)]
    force: bool,
    /// Check and list the files; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn open(global: &GlobalArgs) -> Result<Workspace, FkError> {
    if global.no_history {
        return Err(FkError::invalid(
            "--no-history turns the history off; there is nothing to show or undo",
        )
        .with_hint("run the command without --no-history"));
    }
    let ws = crate::workspace(global)?;
    if ws.history().is_none() {
        return Err(FkError::invalid(
            "this session has no history: filekit has no state directory to keep it in",
        )
        .with_hint("give --state-dir DIR, or --history FILE"));
    }
    Ok(ws)
}

fn fail(json: bool, e: &FkError) -> u8 {
    if json {
        println!("{}", json!({"success": false, "error": e}));
    }
    eprintln!("filekit: {}", terminal::text(&e.to_string()));
    EXIT_FAILED
}

pub fn run_history(global: &GlobalArgs, json: bool, args: HistoryArgs) -> u8 {
    let json = json || args.json;
    let ws = match open(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let style = Style::new(global.color);
    if args.repair {
        let Some(path) = crate::history_path(global, &ws) else {
            return crate::fail_early(&FkError::invalid("this session has no history to repair"));
        };
        return match History::repair(&path, DEFAULT_CAP_BYTES) {
            Ok((_, moved)) => {
                match moved {
                    Some(old) => println!(
                        "started a new history at {}; the old one is kept as {}",
                        path.display(),
                        old.display()
                    ),
                    None => println!("started a new history at {}", path.display()),
                }
                EXIT_OK
            }
            Err(e) => fail(json, &e),
        };
    }
    let h = ws.history().expect("opened with a history");
    if let Some(id) = args.show {
        return match h.show(id) {
            Ok((info, changes)) => {
                if json {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&json!({"entry": info, "changes": changes}))
                            .unwrap_or_default()
                    );
                } else {
                    print_entry(&ws, &style, &info);
                    for c in &changes {
                        if c.diff.is_empty() {
                            println!("  {}: {} -> {}", shown(&ws, &c.path), c.before, c.after);
                        } else {
                            print!("{}", style.diff(&shown_diff(&ws, &c.diff)));
                        }
                    }
                }
                EXIT_OK
            }
            Err(e) => fail(json, &e),
        };
    }
    let path = match &args.path {
        Some(p) => match ws.resolve_entry(p) {
            Ok(p) => Some(p.absolute().to_path_buf()),
            Err(e) => return crate::fail_early(&e),
        },
        None => None,
    };
    match h.list(&ListFilter {
        path,
        limit: Some(args.limit),
    }) {
        Ok(entries) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&entries).unwrap_or_default()
                );
            } else if entries.is_empty() {
                println!("the history is empty");
            } else {
                for e in &entries {
                    print_entry(&ws, &style, e);
                }
            }
            EXIT_OK
        }
        Err(e) => fail(json, &e),
    }
}

/// A path as the CLI says it: relative to the first root, as `filekit` takes it back.
fn shown(ws: &Workspace, path: &str) -> String {
    terminal::name(&filekit_dialects::shown_path(ws, path)).into_owned()
}

/// A diff whose `---`/`+++` headers name files relative to the first root; the lines of the
/// files are left as they are.
fn shown_diff(ws: &Workspace, diff: &str) -> String {
    diff.split_inclusive('\n')
        .map(|line| {
            if line.starts_with("--- ") || line.starts_with("+++ ") {
                std::borrow::Cow::Owned(filekit_dialects::shown_text(ws, line))
            } else {
                std::borrow::Cow::Borrowed(line)
            }
        })
        .collect()
}

fn print_entry(ws: &Workspace, style: &Style, e: &EntryInfo) {
    let state = match e.undone_by {
        Some(by) => style.dim(&format!(" (undone by {by})")),
        None => String::new(),
    };
    println!(
        "{} {} {:<18} {}{state}",
        style.bold(&format!("{:>5}", e.id)),
        style.dim(&e.time),
        e.tool,
        terminal::text(&filekit_dialects::shown_text(
            ws,
            &filekit_dialects::what_it_did(&e.summary)
        ))
    );
}

fn print_undo(ws: &Workspace, style: &Style, r: &UndoReport) {
    // "undid: ..." or "redid: ..." and the change it was about, never the chain of entries.
    let did = filekit_dialects::undo_did(r);
    let (verb, rest) = did.split_once(": ").unwrap_or(("", &did));
    println!(
        "{}: {} {}",
        style.green(verb),
        terminal::text(&filekit_dialects::shown_text(ws, rest)),
        style.dim(&format!("(entry {})", r.undone))
    );
    const SHOWN: usize = 20;
    for p in r.paths.iter().take(SHOWN) {
        println!("  {}", shown(ws, p));
    }
    if r.paths.len() > SHOWN {
        println!(
            "  ... and {} more (--json lists them all)",
            r.paths.len() - SHOWN
        );
    }
    if let Some(e) = r.entry {
        println!("{}", style.dim(&format!("recorded as entry {e}")));
    }
}

pub fn run_undo(global: &GlobalArgs, json: bool, args: UndoArgs) -> u8 {
    let json = json || args.json;
    let ws = match open(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let style = Style::new(global.color);
    let times = args.last.unwrap_or(1);
    if times == 0 {
        eprintln!("filekit: --last must be at least 1");
        return EXIT_BAD_REQUEST;
    }
    let mut done = Vec::new();
    let mut failure = None;
    for _ in 0..times {
        match undo::undo(&ws, args.entry, args.force, args.dry_run) {
            Ok(r) => {
                if !json {
                    print_undo(&ws, &style, &r);
                }
                done.push(r);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
        if args.dry_run {
            break;
        }
    }
    finish(json, done, failure)
}

pub fn run_redo(global: &GlobalArgs, json: bool, args: RedoArgs) -> u8 {
    let json = json || args.json;
    let ws = match open(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let style = Style::new(global.color);
    match undo::redo(&ws, args.entry, args.force, args.dry_run) {
        Ok(r) => {
            if !json {
                print_undo(&ws, &style, &r);
            }
            finish(json, vec![r], None)
        }
        Err(e) => finish(json, Vec::new(), Some(e)),
    }
}

fn finish(json: bool, done: Vec<UndoReport>, failure: Option<FkError>) -> u8 {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"success": failure.is_none(), "reverted": done, "error": failure})
            )
            .unwrap_or_default()
        );
    }
    match failure {
        Some(e) => {
            eprintln!("filekit: {}", crate::terminal::text(&e.to_string()));
            EXIT_FAILED
        }
        None => EXIT_OK,
    }
}
