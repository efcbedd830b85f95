//! `filekit grep`, `filekit glob` and `filekit ls`: the engine's searches for people and
//! scripts. Text output follows ripgrep and fd (paths relative to the root), with notes on
//! what was cut or unreadable on stderr; `--json` prints the engine's result, which always
//! says whether it was truncated and how much was left out.

use crate::terminal;
use crate::{EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::FkError;
use filekit_core::search::WalkFilter;
use filekit_core::search::glob::{GlobOptions, glob};
use filekit_core::search::grep::{GrepOptions, GrepResult, OutputMode, grep, render};
use filekit_core::search::list::{ListOptions, Listing, list, render_long, render_tree};
use serde::Serialize;
use std::io::Write;

#[derive(Args)]
pub struct FilterArgs {
    /// Include hidden files and directories.
    #[arg(long, short = '.')]
    hidden: bool,
    /// Include files that .gitignore / .ignore leave out.
    #[arg(long)]
    no_ignore: bool,
    /// Print the engine's result as JSON (with `truncated` and the totals).
    #[arg(long)]
    json: bool,
}

impl FilterArgs {
    fn walk(&self) -> WalkFilter {
        WalkFilter {
            hidden: self.hidden,
            ignored: self.no_ignore,
        }
    }
}

#[derive(Args)]
pub struct GrepArgs {
    /// A Rust regex.
    pattern: String,
    /// The file or directory to search (default: the first root).
    path: Option<String>,
    /// Ignore case.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Take the pattern literally.
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    /// The files' encoding, when it is not the one detected (shift_jis, windows-1252,
    /// utf-16le, gb18030, euc-kr, ...). Default: each file's own.
    #[arg(short = 'E', long, value_name = "LABEL", value_parser = crate::encoding_arg)]
    encoding: Option<&'static filekit_core::encoding::Encoding>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    before_context: Option<usize>,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    context: Option<usize>,
    /// Hide line numbers (they are shown by default).
    #[arg(long)]
    no_line_number: bool,
    /// Only files matching this glob (ripgrep's --glob; `!` excludes).
    #[arg(short = 'g', long, value_name = "GLOB")]
    glob: Option<String>,
    /// Only files of this ripgrep type (rust, py, js, ...).
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    file_type: Option<String>,
    /// Print only the paths of files with a match.
    #[arg(short = 'l', long, conflicts_with = "count")]
    files_with_matches: bool,
    /// Print the number of matching lines per file.
    #[arg(short = 'c', long)]
    count: bool,
    /// Let a match span lines.
    #[arg(short = 'U', long)]
    multiline: bool,
    /// Show at most this many rows (lines, or files with -l/-c).
    #[arg(long, value_name = "N")]
    head_limit: Option<usize>,
    #[command(flatten)]
    filter: FilterArgs,
}

#[derive(Args)]
pub struct GlobArgs {
    /// The glob, matched against paths relative to PATH (`**/*.rs`, `src/*.{ts,tsx}`).
    pattern: String,
    /// The directory to search (default: the first root).
    path: Option<String>,
    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Show at most this many files (the newest).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    #[command(flatten)]
    filter: FilterArgs,
}

#[derive(Args)]
pub struct LsArgs {
    /// The directory to list (default: the first root).
    path: Option<String>,
    /// Descend into subdirectories.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// How many levels to show (implies --recursive when above 1).
    #[arg(long, value_name = "N")]
    depth: Option<usize>,
    /// Only names matching this wildcard.
    #[arg(long, value_name = "WILDCARD")]
    filter: Option<String>,
    /// Leave out entries matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    ignore: Vec<String>,
    /// Show a tree instead of `ls -l` lines.
    #[arg(long)]
    tree: bool,
    /// Show at most this many entries (default 1000).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    limit: usize,
    #[command(flatten)]
    filter_args: FilterArgs,
}

pub const GREP_AFTER_HELP: &str = "\
Output is path:line:text for matches and path-line-text for context lines, paths relative to
the root, files sorted by path; line numbers are those edit tools take. Binary files are skipped.

Examples:
  filekit grep 'fn \\w+' src -t rust -C 2
  filekit grep -i todo -l
  filekit grep TODO --json --head-limit 50";

pub const GLOB_AFTER_HELP: &str = "\
Prints matching files newest first. `*` stays within a directory, `**` crosses any number.

Examples:
  filekit glob '**/*.rs'
  filekit glob 'src/**/*.{ts,tsx}' --json";

pub const LS_AFTER_HELP: &str = "\
Examples:
  filekit ls src
  filekit ls -R --depth 2 --tree
  filekit ls --filter '*.rs' -R --json";

pub fn run_grep(global: &GlobalArgs, json: bool, args: GrepArgs) -> u8 {
    let mode = if args.files_with_matches {
        OutputMode::FilesWithMatches
    } else if args.count {
        OutputMode::Count
    } else {
        OutputMode::Content
    };
    let opts = GrepOptions {
        pattern: args.pattern,
        path: args.path,
        glob: args.glob,
        file_type: args.file_type,
        mode,
        before: args.before_context.or(args.context).unwrap_or(0),
        after: args.after_context.or(args.context).unwrap_or(0),
        case_insensitive: args.ignore_case,
        fixed_strings: args.fixed_strings,
        multiline: args.multiline,
        walk: args.filter.walk(),
        head_limit: args.head_limit,
        max_line_chars: None,
        encoding: args.encoding,
    };
    let line_numbers = !args.no_line_number;
    let json = json || args.filter.json;
    run(
        global,
        json,
        |ws| grep(ws, &opts),
        |r| {
            let text = render(&for_terminal_grep(r), line_numbers);
            let mut notes = String::new();
            if r.truncated {
                notes.push_str(&format!(
                    "filekit: {} more rows not shown: raise --head-limit or narrow the search\n",
                    r.total_rows - r.shown_rows
                ));
            }
            note_skipped(&mut notes, r.skipped.count);
            (text, notes, r.total_files > 0)
        },
    )
}

pub fn run_glob(global: &GlobalArgs, json: bool, args: GlobArgs) -> u8 {
    let opts = GlobOptions {
        pattern: args.pattern,
        path: args.path,
        walk: args.filter.walk(),
        case_insensitive: args.ignore_case,
        limit: args.limit,
    };
    let json = json || args.filter.json;
    run(
        global,
        json,
        |ws| glob(ws, &opts),
        |r| {
            let mut notes = String::new();
            let text: String = r
                .files
                .iter()
                .map(|f| format!("{}\n", terminal::path(&f.path)))
                .collect();
            if r.truncated {
                notes.push_str(&format!(
                    "filekit: {} more files not shown: raise --limit or narrow the pattern\n",
                    r.total - r.files.len()
                ));
            }
            note_skipped(&mut notes, r.skipped.count);
            (text, notes, r.total > 0)
        },
    )
}

pub fn run_ls(global: &GlobalArgs, json: bool, args: LsArgs) -> u8 {
    let depth = match (args.recursive, args.depth) {
        (_, Some(d)) => d.max(1),
        (true, None) => usize::MAX,
        (false, None) => 1,
    };
    let opts = ListOptions {
        path: args.path,
        depth,
        filter: args.filter,
        ignore: args.ignore,
        walk: args.filter_args.walk(),
        limit: Some(args.limit),
    };
    let tree = args.tree;
    let json = json || args.filter_args.json;
    run(
        global,
        json,
        |ws| list(ws, &opts),
        |l| {
            let mut notes = String::new();
            let shown = for_terminal_listing(l);
            let text = if tree {
                render_tree(&shown)
            } else {
                render_long(&shown)
            };
            if l.truncated {
                notes.push_str(&format!(
                    "filekit: {} more entries not shown: raise --limit or list a subdirectory\n",
                    l.omitted()
                ));
            }
            note_skipped(&mut notes, l.skipped.count);
            (text, notes, true)
        },
    )
}

/// A listing whose names, paths and link targets are quoted for people ([`terminal::path`]):
/// the engine's renderings then print nothing a terminal acts on.
fn for_terminal_listing(listing: &Listing) -> Listing {
    let mut shown = listing.clone();
    shown.path = terminal::path(&shown.path).into_owned();
    for e in &mut shown.entries {
        e.name = terminal::path(&e.name).into_owned();
        if let Some(t) = &mut e.link_target {
            *t = terminal::path(t).into_owned();
        }
    }
    shown
}

/// A grep result whose paths are quoted and whose lines show their control characters.
fn for_terminal_grep(result: &GrepResult) -> GrepResult {
    let mut shown = result.clone();
    for f in &mut shown.files {
        f.path = terminal::path(&f.path).into_owned();
        for l in &mut f.lines {
            if let std::borrow::Cow::Owned(t) = terminal::line(&l.text) {
                l.text = t;
            }
        }
    }
    shown
}

fn note_skipped(notes: &mut String, count: usize) {
    if count > 0 {
        notes.push_str(&format!(
            "filekit: {count} unreadable files or directories skipped\n"
        ));
    }
}

/// Runs a search and prints it; exit 0 when something was found, 1 when nothing was (as grep
/// does), 2 when the request was bad.
fn run<T: Serialize>(
    global: &GlobalArgs,
    json: bool,
    search: impl FnOnce(&filekit_core::Workspace) -> Result<T, FkError>,
    text: impl FnOnce(&T) -> (String, String, bool),
) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let result = match search(&ws) {
        Ok(r) => r,
        Err(e) => return crate::fail_early(&e),
    };
    // Notes (what was cut, what was unreadable) go to stderr so stdout stays pure results.
    let (rendered, notes, found) = text(&result);
    if !json {
        eprint!("{}", terminal::lines(&notes));
    }
    let mut out = std::io::stdout().lock();
    let written = if json {
        serde_json::to_writer_pretty(&mut out, &result)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        out.write_all(rendered.as_bytes())
    };
    // A closed pipe (`| head`) is not a failure of the search.
    let _ = written;
    if found { EXIT_OK } else { EXIT_FAILED }
}
