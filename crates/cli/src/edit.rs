//! `filekit edit`: apply a plan (see [`filekit_dialects::edit_plan`]) and show what it did: a colored diff per
//! file and one line per edit.

use crate::style::Style;
use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::edit::{EditReport, FileReport, FileStatus};
use filekit_core::pipeline;
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_dialects::edit_plan::EditPlan;
use filekit_dialects::wire::EditReportJson;
use std::io::Read;
use std::path::PathBuf;

#[derive(Args)]
pub struct EditArgs {
    /// The plan file (JSON); `-` or nothing reads it from standard input.
    #[arg(value_name = "PLAN")]
    plan: Option<PathBuf>,
    /// Show what would change; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// All or nothing: write no file unless every edit of every file succeeds.
    #[arg(long)]
    atomic: bool,
    /// Stop a file's edits at its first failure (the edits before it are kept).
    #[arg(long)]
    stop_on_error: bool,
    /// The files' encoding, when it is not the one detected (shift_jis, windows-1252,
    /// utf-16le, ...: WHATWG labels); over the plan's `options.encoding`.
    #[arg(long, value_name = "LABEL", value_parser = crate::encoding_arg)]
    encoding: Option<&'static filekit_core::encoding::Encoding>,
    /// Print the engine's report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(global: &GlobalArgs, json: bool, args: EditArgs) -> u8 {
    let source = match read_plan(args.plan.as_deref()) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("filekit: {msg}");
            return EXIT_BAD_REQUEST;
        }
    };
    let plan = match EditPlan::parse(&source) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("filekit: invalid plan: {msg}");
            eprintln!("filekit: see `filekit edit --help` for the plan format");
            return EXIT_BAD_REQUEST;
        }
    };
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let mut request = plan.into_request(args.dry_run, args.atomic, args.stop_on_error);
    request.options = request
        .options
        .to_builder()
        .tool(Some("filekit edit".into()))
        .encoding(args.encoding.or(request.options.encoding()))
        .build();
    let mut report = pipeline::apply(&ws, &request);
    filekit_dialects::edit_plan::word_report(&mut report);
    crate::history_warning(&ws);
    if json || args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&EditReportJson::from(&report)).unwrap_or_default()
        );
    } else {
        print_report(&Style::new(global.color), &ws, &report);
    }
    if report.success() {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}

/// The plan's text: at most [`MAX_REQUEST_SIZE`] bytes, like a tool call.
fn read_plan(path: Option<&std::path::Path>) -> Result<String, String> {
    use filekit_core::limits::MAX_REQUEST_SIZE;
    let mut s = String::new();
    match path {
        Some(p) if p.as_os_str() != "-" => std::fs::File::open(p)
            .and_then(|f| f.take(MAX_REQUEST_SIZE + 1).read_to_string(&mut s))
            .map_err(|e| format!("cannot read the plan {}: {e}", p.display()))?,
        _ => {
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                return Err(
                    "no plan given: name a plan file, or pipe one to standard input (see --help)"
                        .into(),
                );
            }
            std::io::stdin()
                .take(MAX_REQUEST_SIZE + 1)
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read the plan from standard input: {e}"))?
        }
    };
    if s.len() as u64 > MAX_REQUEST_SIZE {
        return Err(format!(
            "the plan is larger than the {MAX_REQUEST_SIZE} bytes filekit reads in one request: split it into several plans"
        ));
    }
    Ok(s)
}

fn print_report(style: &Style, ws: &Workspace, report: &EditReport) {
    for f in &report.files {
        print_file(style, ws, report, f);
    }
    let count = |s: FileStatus| report.files.iter().filter(|f| f.status() == s).count();
    let mut summary = format!(
        "{} file{}: {} created, {} modified, {} unchanged, {} failed",
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" },
        count(FileStatus::Created),
        count(FileStatus::Modified),
        count(FileStatus::Unchanged),
        report.files.iter().filter(|f| !f.success()).count(),
    );
    if report.dry_run {
        summary.push_str(" (dry run: nothing written)");
    } else if report.rolled_back {
        summary.push_str(" (atomic: nothing written because something failed)");
    }
    println!("{}", style.bold(&summary));
}

fn print_file(style: &Style, ws: &Workspace, report: &EditReport, f: &FileReport) {
    let status = match f.status() {
        FileStatus::Created => "created",
        FileStatus::Modified => "modified",
        FileStatus::Unchanged => "unchanged",
        FileStatus::Failed => "failed",
        FileStatus::Skipped => "skipped",
    };
    let mut head = format!("{}: {status}", crate::terminal::name(&f.path));
    // A file that failed with every edit in place failed while being written: its edits were
    // planned, not applied, and its diff was never made.
    let failed_writing = !f.success() && f.edits_failed == 0;
    if failed_writing {
        head.push_str(", nothing written");
    } else if f.edits_applied + f.edits_failed > 0 {
        head.push_str(&format!(
            ", {} edit(s) applied, {} failed",
            f.edits_applied, f.edits_failed
        ));
    }
    match (&f.old_hash, &f.new_hash) {
        (Some(old), Some(new)) if f.written() && old != new => {
            head.push_str(&format!(", content_hash {old} -> {new}"))
        }
        (None, Some(new)) if f.written() => head.push_str(&format!(", content_hash {new}")),
        _ => {}
    }
    if let Some(from) = &f.merged_from {
        head.push_str(&format!(
            ", merged (made on {from}, the file had changed since)"
        ));
    }
    let head = if f.success() {
        style.bold(&head)
    } else {
        style.red(&head)
    };
    println!("{head}");
    if let Some(err) = f.error() {
        // An edit's failure is the file's: said once, on the edit's line below.
        let said_by_an_edit = f.edits.iter().any(|o| {
            o.error
                .as_ref()
                .is_some_and(|e| e.to_string() == err.to_string())
        });
        if !said_by_an_edit {
            println!(
                "  {} {}",
                style.red("error:"),
                crate::terminal::text(&said(ws, err))
            );
        }
    }
    if failed_writing {
        println!();
        return;
    }
    if !f.diff.is_empty() {
        print!("{}", style.diff(&f.diff));
    }
    if f.diff_truncated {
        println!(
            "{}",
            style.dim("... (the diff of this large file stops here; its other changes are made all the same)")
        );
    }
    for o in &f.edits {
        // Edits are numbered from 1, as a person counts them in the plan.
        let what = match &o.label {
            Some(l) => format!("edit {} ({}, {l})", o.index + 1, o.command),
            None => format!("edit {} ({})", o.index + 1, o.command),
        };
        if o.skipped {
            println!(
                "  {} {what}: not attempted (stop on error)",
                style.dim("skip")
            );
        } else if let Some(err) = &o.error {
            println!(
                "  {} {what}: {}",
                style.red("FAIL"),
                crate::terminal::text(&said(ws, err))
            );
        } else {
            let mut line = format!(
                "{} {what}: {} change(s)",
                style.green(" ok "),
                o.replacements
            );
            if let Some(l) = o.line {
                line.push_str(&format!(" at line {l}"));
            }
            if let Some(s) = o.fuzzy_similarity {
                line.push_str(&format!(" (fuzzy, similarity {s:.2})"));
            }
            println!("  {line}");
        }
    }
    if report.rolled_back && f.success() {
        println!(
            "  {}",
            style.dim("not written: the request is atomic and another edit failed")
        );
    }
    println!();
}

/// An engine error with the root's files named relative to it, as the file lines name them.
/// An out-of-root error keeps its absolute paths: they say where the path leads and which
/// roots are allowed, which a relative name cannot.
fn said(ws: &Workspace, err: &FkError) -> String {
    if err.code == ErrorCode::OutOfRoot {
        err.to_string()
    } else {
        filekit_dialects::shown_text(ws, &err.to_string())
    }
}
