//! `filekit replace`: a sed substitution over a tree, with colored diffs, a progress bar, and
//! an interactive review (`-i`) of each change.

use crate::style::Style;
use crate::terminal;
use crate::{EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::edit::{EditOptions, FileReport, FileStatus};
use filekit_core::replace::{TreeReplace, TreeReplaceReport, tree_replace};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use filekit_core::{Control, ErrorCode};
use filekit_dialects::wire::EditReportJson;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::io::Write;
use std::time::Duration;

pub const AFTER_HELP: &str = "\
EXPR is a sed substitution: s/pattern/replacement/flags, with any delimiter (s|a|b|g).
  flags      g every match (default: the first of each line), i ignore case, N only the N-th
             match of each line (Ng: the N-th and later), m match across lines, s m and `.`
             matches a line break
  pattern    a Rust regex (like sed -E): \\d, \\w, (a|b), x+, (?<name>...); --literal for text
  replacement  & the match, \\1 or $1 or ${1} a group, ${name} a named group, \\n a line
             break, \\t a tab, $$ a dollar sign

Files: every file under PATH (default .) whose name matches --glob (default every file), in
subdirectories too, but .gitignore'd, hidden, binary and huge files, and --exclude globs.
A glob without / matches names (*.js); with / it matches paths under PATH (src/**/*.ts).

Each file is written once, atomically, keeping its line endings, BOM and permissions.

Examples:
  filekit replace 's/const /let /g' src --glob '*.js' --dry-run
  filekit replace 's/(\\w+)_id\\b/${1}Id/g' . --glob '*.ts' --exclude 'node_modules/**'
  filekit replace -F 's|foo(|bar(|g' --atomic
  filekit replace -i 's/colour/color/g' docs

Exit codes: 0 done (or nothing to replace in the files found); 1 no file matched (as grep and
rg exit 1 when nothing matched), or a file failed; 2 the request was bad: the expression or a
glob is not valid, or the directory does not exist or is outside the roots (nothing was
attempted).";

#[derive(Args)]
pub struct ReplaceArgs {
    /// The sed substitution, s/pattern/replacement/flags.
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    expr: String,
    /// The directory to work in, or one file (as `sed -i EXPR FILE`).
    #[arg(value_name = "PATH", default_value = ".")]
    path: String,
    /// Only files matching this glob (alternatives as {a,b}: '*.{js,ts}').
    #[arg(long, short = 'g', value_name = "GLOB", default_value = "*")]
    glob: String,
    /// Leave out files and directories matching this glob (repeatable).
    #[arg(long, short = 'x', value_name = "GLOB")]
    exclude: Vec<String>,
    /// Only PATH itself, not its subdirectories.
    #[arg(long)]
    no_recursive: bool,
    /// Also hidden files and directories.
    #[arg(long)]
    hidden: bool,
    /// Also files that .gitignore and similar files leave out.
    #[arg(long)]
    no_ignore: bool,
    /// The pattern is text, not a regex, and the replacement is taken as written.
    #[arg(long, short = 'F')]
    literal: bool,
    /// Show the diffs; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The files' encoding, when it is not the one detected in each (shift_jis,
    /// windows-1252, utf-16le, ...): they are searched and written in it.
    #[arg(long, value_name = "LABEL", value_parser = crate::encoding_arg)]
    encoding: Option<&'static filekit_core::encoding::Encoding>,
    /// Show the diff of each file changed (a dry run always does).
    #[arg(long)]
    diff: bool,
    /// All or nothing: write no file unless every file succeeds.
    #[arg(long)]
    atomic: bool,
    /// Do not flush the files to disk (as sed -i and fastmod do not): each is still replaced
    /// atomically, but a power cut just after may lose the change.
    #[arg(long)]
    no_fsync: bool,
    /// Overwrite each file in place instead of writing a new file and renaming it over the
    /// old one (as fastmod does): faster where creating files is slow, but a crash in the
    /// middle of a write can leave that file half-written. The history still records it.
    #[arg(long, conflicts_with_all = ["atomic", "interactive"])]
    in_place: bool,
    /// Review each change: accept, reject, edit, accept all, or quit.
    #[arg(long, short = 'i', conflicts_with_all = ["dry_run", "json"])]
    interactive: bool,
    /// Print the engine's report as JSON.
    #[arg(long)]
    json: bool,
}

/// A PATH that is a file selects that file alone: its directory, its name as the glob (its
/// special characters matched as themselves), wherever ignore files or a leading dot would
/// leave it out, since it was named.
fn one_file(
    ws: &filekit_core::Workspace,
    args: &ReplaceArgs,
    selection: &mut FileSelection,
) -> Result<(), filekit_core::FkError> {
    let at = ws.resolve(&args.path)?;
    if !ws.metadata(&at)?.is_some_and(|m| m.is_file) {
        return Ok(());
    }
    if args.glob != "*" {
        return Err(filekit_core::FkError::invalid(format!(
            "{} is a file, and --glob chooses among the files of a directory",
            args.path
        ))
        .with_hint("give the file alone, or its directory with --glob"));
    }
    let name = at
        .relative()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = at.absolute().parent().map(|p| p.display().to_string());
    selection.directory = parent.unwrap_or_else(|| ".".into());
    selection.file_pattern = name
        .chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' | '{' | '}' | '\\' => format!("[{c}]"),
            c => c.to_string(),
        })
        .collect();
    selection.recursive = false;
    selection.hidden = true;
    selection.no_ignore = true;
    Ok(())
}

pub fn run(global: &GlobalArgs, json: bool, args: ReplaceArgs) -> u8 {
    let json = json || args.json;
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let substitution = match Substitution::parse(&args.expr, args.literal) {
        Ok(s) => s,
        Err(e) => return crate::fail_early(&e),
    };
    let mut selection = FileSelection {
        directory: args.path.clone(),
        file_pattern: args.glob.clone(),
        recursive: !args.no_recursive,
        exclude_patterns: args.exclude.clone(),
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        stamps: false,
        dirs: false,
    };
    if let Err(e) = one_file(&ws, &args, &mut selection) {
        return crate::fail_early(&e);
    }
    let style = Style::new(global.color);
    if args.interactive {
        return crate::review::run(&ws, &style, selection, substitution, args.atomic);
    }
    let bar = progress_bar();
    let on_progress = bar.clone();
    // A hidden bar still takes its lock and works out a rate on every update: one per file.
    let shown = !bar.is_hidden();
    let control = Control::with_progress(move |p| {
        if !shown {
            return;
        }
        // A total of 0 is not known yet: the bar grows with the files found.
        on_progress.set_length(p.total.max(p.done) as u64);
        on_progress.set_position(p.done as u64);
    });
    let request = TreeReplace {
        selection,
        substitution,
        options: EditOptions::builder()
            .dry_run(args.dry_run)
            .encoding(args.encoding)
            .atomic(args.atomic)
            .no_fsync(args.no_fsync)
            .in_place(args.in_place)
            // Nothing here shows the texts; a real run without --diff prints counts only,
            // and computing thousands of diffs nobody reads would cost more than the replace.
            .lean(true)
            .no_diffs(!args.dry_run && !args.diff && !json)
            // Only --json shows the files' versions.
            .no_hashes(!json)
            .control(control)
            .tool(Some("filekit replace".into()))
            .build(),
    };
    let result = tree_replace(&ws, &request);
    bar.finish_and_clear();
    crate::history_warning(&ws);
    let out = match result {
        Ok(out) => out,
        Err(e) => return failed_to_start(&e),
    };
    if json {
        print_json(&out);
    } else {
        print_human(&style, &out);
    }
    if out.success() { EXIT_OK } else { EXIT_FAILED }
}

/// The exit code and message of a replace that did not run: 1 when the request was good but
/// no file matched (nothing to do, as grep's 1), else 2 (the request was bad).
pub fn failed_to_start(err: &filekit_core::FkError) -> u8 {
    if no_file_matched(err) {
        eprintln!("filekit: {}", crate::terminal::text(&err.to_string()));
        EXIT_FAILED
    } else {
        crate::fail_early(err)
    }
}

/// The engine's "no files matched" (a walk that found no file to work on), not a missing
/// directory (also NOT_FOUND, but a bad request).
fn no_file_matched(err: &filekit_core::FkError) -> bool {
    err.code == filekit_core::ErrorCode::NotFound && err.message.starts_with("no files matched")
}

/// A bar on standard error for long runs; hidden when standard error is not a terminal.
pub fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos}/{len} files {wide_bar} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn print_json(out: &TreeReplaceReport) {
    let value = serde_json::json!({
        "files_matched": out.chosen,
        "files_unmatched": out.unmatched,
        "replacements": out.replacements(),
        "files_not_listed": out.dropped.not_listed,
        "walk_skipped": out.walk_skipped.iter().map(|(p, why)| serde_json::json!({"path": p, "reason": why})).collect::<Vec<_>>(),
        "report": EditReportJson::from(&out.report),
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    );
}

fn print_human(style: &Style, out: &TreeReplaceReport) {
    // Standard output flushes at every line; a dry run over a tree prints megabytes of diff.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Writing fails only when standard output is closed; there is no one left to tell.
    let _ = write_human(&mut w, style, out).and_then(|()| w.flush());
}

fn write_human(w: &mut impl Write, style: &Style, out: &TreeReplaceReport) -> std::io::Result<()> {
    let report = &out.report;
    for f in &report.files {
        match f.status() {
            FileStatus::Unchanged => continue,
            FileStatus::Skipped => {
                let why = f.skipped().unwrap_or("");
                writeln!(
                    w,
                    "{} {}: skipped ({})",
                    style.dim("skip"),
                    terminal::name(&f.path),
                    terminal::text(why)
                )?;
            }
            // Not reached when the request was stopped: counted in the summary.
            _ if f.error().is_some_and(|e| e.code == ErrorCode::Cancelled) => continue,
            _ => {
                let n: usize = f.edits.iter().map(|o| o.replacements).sum();
                if let Some(err) = f.error().or_else(|| f.edits[0].error.as_ref()) {
                    writeln!(
                        w,
                        "{} {}: {}",
                        style.red("FAIL"),
                        terminal::name(&f.path),
                        terminal::text(&err.to_string())
                    )?;
                    if err.fact() == Some(filekit_core::Fact::FolderNotWritable) {
                        writeln!(w, "  --in-place writes such a file where it is")?;
                    }
                } else {
                    writeln!(
                        w,
                        "{}",
                        style.bold(&format!("{}: {n} replacement(s)", terminal::name(&f.path)))
                    )?;
                    if !f.diff.is_empty() {
                        w.write_all(style.diff(&f.diff).as_bytes())?;
                    }
                    if f.diff_truncated {
                        writeln!(
                            w,
                            "{}",
                            style.dim("... (the diff of this large file stops here; its other changes are made all the same)")
                        )?;
                    }
                }
            }
        }
    }
    let not_reached = |f: &&FileReport| f.error().is_some_and(|e| e.code == ErrorCode::Cancelled);
    // The files a dry run counted without keeping their reports: none reached when stopped.
    let dropped = (!report.cancelled).then_some(&out.dropped);
    let count = |s: FileStatus| {
        (report.files.iter())
            .filter(|f| f.status() == s && !not_reached(f))
            .count()
            + dropped.map_or(0, |d| d.files_with(s))
    };
    // Replacements that gave back the text they replaced change no file: counted apart, so
    // that "N replacement(s) in 0 file(s)" never reads as a contradiction.
    let replacements_in = |status: FileStatus| -> usize {
        (report.files.iter())
            .filter(|f| f.status() == status && !not_reached(f))
            .flat_map(|f| &f.edits)
            .filter(|o| o.success)
            .map(|o| o.replacements)
            .sum::<usize>()
            + dropped.map_or(0, |d| d.replacements_with(status))
    };
    let same_text = replacements_in(FileStatus::Unchanged);
    let mut summary = format!(
        "{} replacement(s) in {} file(s); {} unchanged, {} skipped, {} failed, of {} file(s) searched",
        replacements_in(FileStatus::Modified) + replacements_in(FileStatus::Created),
        count(FileStatus::Modified),
        count(FileStatus::Unchanged) + out.unmatched,
        count(FileStatus::Skipped) + out.walk_skipped.len(),
        (report.files.iter())
            .filter(|f| !f.success() && !not_reached(f))
            .count()
            + dropped.map_or(0, |d| d.failed),
        out.chosen
    );
    if same_text > 0 {
        summary.push_str(&format!(
            "; {same_text} replacement(s) gave back the text they replaced"
        ));
    }
    if report.dry_run {
        summary.push_str(" (dry run: nothing written)");
    } else if report.rolled_back && report.cancelled {
        summary.push_str(" (atomic: stopped while writing, so what it had written was put back: nothing written)");
    } else if report.rolled_back {
        summary.push_str(" (atomic: nothing written because something failed)");
    } else if report.cancelled {
        let written = report.files.iter().filter(|f| f.written()).count();
        let stopped = report.files.iter().filter(not_reached).count();
        summary.push_str(&format!(
            " (stopped part way: the {written} file(s) listed above were written and are one history entry, which undo reverts; {stopped} were not reached)"
        ));
    }
    if out.dropped.not_listed > 0 {
        summary.push_str(&format!(
            "; {} more file(s) not listed: the ones above took the bytes one reply carries \
             (raise --max-reply-bytes or narrow the files)",
            out.dropped.not_listed
        ));
    }
    if out.previews_cut > 0 {
        summary.push_str(&format!(
            "; the diffs of {} more file(s) are not shown: the ones above took the bytes one \
             reply carries (raise --max-reply-bytes or narrow the files)",
            out.previews_cut
        ));
    }
    writeln!(w, "{}", style.bold(&summary))
}
