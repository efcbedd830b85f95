//! The `claude` dialect's read-only search tools (Claude Code's tools): `LS`, `Glob` and `Grep`, with
//! the familiar argument shapes and the `ToolResult` reply. Paths in replies are absolute, as
//! the familiar tools give them; every reply says whether it was cut and how to see the rest.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::claude::{self, ToolResult};
use crate::reply;
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::FkError;
use filekit_core::search::WalkFilter;
use filekit_core::search::glob::{GlobOptions, glob};
use filekit_core::search::grep::{GrepOptions, GrepResult, OutputMode, grep};
use filekit_core::search::list::{ListOptions, list, render_tree};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::sync::LazyLock;

/// Entries LS shows before it cuts the listing (the familiar tool's cap).
const LS_LIMIT: usize = 1000;
/// Files Glob shows before it cuts the list (the familiar tool's cap).
const GLOB_LIMIT: usize = 100;
/// Longer lines (minified code) are cut in Grep's content, saying how much was cut.
const MAX_LINE_CHARS: usize = 1000;
/// Output rows Grep shows when no `head_limit` is given.
const GREP_DEFAULT_LIMIT: usize = 1000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec = |name, description, schema: &'static LazyLock<Value>, run, reply| ToolSpec {
        name,
        dialect: "claude",
        description,
        input_schema: schema,
        read_only: true,
        destructive: false,
        idempotent: true,
        run,
        reject,
        guide: "",
        reply,
    };
    vec![
        spec(
            "LS",
            LS_DESCRIPTION,
            &LS_SCHEMA,
            ls,
            ReplySchema::Typed(claude::schema::<LsFields>),
        ),
        spec(
            "Glob",
            GLOB_DESCRIPTION,
            &GLOB_SCHEMA,
            glob_tool,
            ReplySchema::Typed(claude::schema::<GlobFields>),
        ),
        spec(
            "Grep",
            GREP_DESCRIPTION,
            &GREP_SCHEMA,
            grep_tool,
            ReplySchema::Typed(claude::schema::<GrepFields>),
        ),
    ]
}

fn reject(err: &FkError) -> Value {
    failure(err)
}

fn failure(err: &FkError) -> Value {
    reply::to_value(&claude::Failed::of(err))
}

fn walk_filter(include_hidden: Option<bool>, include_ignored: Option<bool>) -> WalkFilter {
    WalkFilter {
        hidden: include_hidden.unwrap_or(false),
        ignored: include_ignored.unwrap_or(false),
    }
}

fn failed(err: &FkError) -> ToolReply {
    ToolReply::new(failure(err), true, err.full_message())
}

/// LS's own fields.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LsFields {
    /// The absolute path of the directory listed.
    file_path: String,
    /// True when the listing was cut; the text says how to see the rest.
    truncated: bool,
    /// How many entries there are in all.
    total: usize,
}

/// Glob's own fields.
#[derive(Serialize, JsonSchema)]
struct GlobFields {
    /// True when the reply was cut; the text says how to see the rest.
    truncated: bool,
    /// How many files matched in all.
    total: usize,
}

/// Grep's own fields.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GrepFields {
    /// Files with a match.
    num_files: usize,
    /// Matching lines.
    num_matches: u64,
    /// True when the reply was cut; the text says how to see the rest.
    truncated: bool,
    /// Rows shown in content.
    shown_rows: usize,
    /// Rows in all (lines in content mode, files otherwise).
    total_rows: usize,
    /// The head_limit that cut the rows shown, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    applied_limit: Option<usize>,
    /// The offset the rows shown start at, when not 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    applied_offset: Option<usize>,
}

fn success<X: Serialize>(content: String, short: String, fields: X) -> ToolReply {
    ToolResult::reply(content.clone(), short, fields, content)
}

fn absolute(root: &str, rel: &str) -> String {
    if rel.is_empty() {
        root.to_string()
    } else {
        Path::new(root).join(rel).display().to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// LS

const LS_DESCRIPTION: &str = "\
List a directory as a tree (directories end with /, symlinks show their target), sorted by \
path, descending into subdirectories. .gitignore'd and hidden entries are left out (unless \
`include_ignored` / `include_hidden`); `ignore` takes more globs to leave out (their directories are not entered). At most 1000 entries are \
shown: the reply says how many were left out; list a subdirectory or add `ignore` globs to \
see them. Prefer Glob and Grep when you know what you are looking for.

Example: {\"path\": \"src\", \"ignore\": [\"*.snap\", \"fixtures\"]}";

#[derive(Deserialize, JsonSchema)]
struct LsArgs {
    /// The directory to list (absolute inside the workspace, or relative to its root).
    path: String,
    /// Globs of entries to leave out (matched against names and relative paths).
    ignore: Option<Vec<String>>,
    /// How many levels to descend (1: only the directory's own entries). Default: all.
    #[schemars(range(min = 1))]
    depth: Option<usize>,
    /// Include hidden files and directories (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Include files that .gitignore or .ignore leave out. Default: false.
    include_ignored: Option<bool>,
}

static LS_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<LsArgs>);

fn ls(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: LsArgs = parse("LS", &LS_SCHEMA, args)?;
    let opts = ListOptions {
        path: Some(args.path),
        depth: args.depth.unwrap_or(usize::MAX),
        filter: None,
        ignore: args.ignore.unwrap_or_default(),
        walk: walk_filter(args.include_hidden, args.include_ignored),
        limit: Some(LS_LIMIT),
    };
    let listing = match list(ws, &opts) {
        Ok(l) => l,
        Err(e) => return Ok(failed(&e)),
    };
    let mut content = render_tree(&listing);
    if listing.truncated {
        content.push_str(&format!(
            "... {} more entries not shown (listing cut at {LS_LIMIT}): list a subdirectory, \
             lower `depth` or add `ignore` globs to see them\n",
            listing.omitted()
        ));
    }
    if listing.skipped.count > 0 {
        content.push_str(&format!(
            "({} unreadable entries skipped: {})\n",
            listing.skipped.count,
            listing.skipped.messages.join("; ")
        ));
    }
    let short = format!(
        "Listed {} of {} entries",
        listing.entries.len(),
        listing.total
    );
    Ok(success(
        content,
        short,
        LsFields {
            file_path: listing.path,
            truncated: listing.truncated,
            total: listing.total,
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// Glob

const GLOB_DESCRIPTION: &str = "\
Find files by name pattern, newest first (most recently modified first). `pattern` is \
matched against paths relative to `path` (default: the workspace root): `*` stays within a \
directory, `**` crosses any number (`**/*.rs`, `src/**/*.{ts,tsx}`). .gitignore'd and \
hidden files are left out unless `include_ignored` / `include_hidden` say otherwise. At most 100 files are shown; the reply says how many more \
matched (narrow the pattern or the path to see them).

Example: {\"pattern\": \"src/**/*.test.ts\"}";

#[derive(Deserialize, JsonSchema)]
struct GlobArgs {
    /// The glob to match file paths against (`**/*.js`, `src/**/*.{ts,tsx}`).
    pattern: String,
    /// The directory to search in. Default: the workspace root.
    path: Option<String>,
    /// Include hidden files and directories (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Include files that .gitignore or .ignore leave out. Default: false.
    include_ignored: Option<bool>,
}

static GLOB_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<GlobArgs>);

fn glob_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: GlobArgs = parse("Glob", &GLOB_SCHEMA, args)?;
    let opts = GlobOptions {
        pattern: args.pattern,
        path: args.path,
        walk: walk_filter(args.include_hidden, args.include_ignored),
        case_insensitive: false,
        limit: Some(GLOB_LIMIT),
    };
    let result = match glob(ws, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(failed(&e)),
    };
    let mut content = if result.files.is_empty() {
        "No files found\n".to_string()
    } else {
        result
            .files
            .iter()
            .map(|f| format!("{}\n", f.absolute))
            .collect()
    };
    if result.truncated {
        content.push_str(&format!(
            "... {} more files matched (only the {GLOB_LIMIT} newest are shown): use a more \
             specific pattern or path to see them\n",
            result.total - result.files.len()
        ));
    }
    let short = format!("Found {} files", result.total);
    Ok(success(
        content,
        short,
        GlobFields {
            truncated: result.truncated,
            total: result.total,
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// Grep

const GREP_DESCRIPTION: &str = "\
Search file contents with a Rust regex (ripgrep's engine and rules: .gitignore'd, hidden \
and binary files are skipped; `include_ignored` / `include_hidden` add the first two). `output_mode`: `files_with_matches` (default: the paths), \
`content` (the matching lines as path:line:text, line numbers usable by edit tools; `-A`, \
`-B`, `-C` (or `context`) add context lines shown as path-line-text; `-o` shows only the \
matched parts, one per row), `count` (matching lines per file). \
Filter files with `glob` (`*.{ts,tsx}`) or `type` (ripgrep's types: rust, py, js, ...). \
`-i` ignores case; `multiline` lets a match span lines. `head_limit` caps the rows shown \
(default 1000; 0 for no cap) and `offset` skips the first rows, to page through many \
results; the reply says how many were left out.

Example: {\"pattern\": \"fn \\\\w+_handler\", \"type\": \"rust\", \"output_mode\": \"content\", \"-C\": 2}";

#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "snake_case")]
enum GrepMode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

#[derive(Deserialize, JsonSchema)]
struct GrepArgs {
    /// The Rust regex to search for.
    pattern: String,
    /// The file or directory to search. Default: the workspace root.
    path: Option<String>,
    /// Only files whose name matches this glob (`*.js`, `*.{ts,tsx}`, `!*.min.js`).
    glob: Option<String>,
    /// `content` (matching lines), `files_with_matches` (paths, the default) or `count`.
    output_mode: Option<GrepMode>,
    /// Lines of context before each match (content mode).
    #[serde(rename = "-B")]
    before: Option<usize>,
    /// Lines of context after each match (content mode).
    #[serde(rename = "-A")]
    after: Option<usize>,
    /// Lines of context before and after each match (content mode). Same as `context`.
    #[serde(rename = "-C")]
    context: Option<usize>,
    /// Lines of context before and after each match (content mode). Same as `-C`.
    #[serde(rename = "context")]
    context_long: Option<usize>,
    /// Show line numbers (content mode). Default: true.
    #[serde(rename = "-n")]
    line_numbers: Option<bool>,
    /// Ignore case.
    #[serde(rename = "-i")]
    case_insensitive: Option<bool>,
    /// Show only the matched parts of each matching line, one per row (content mode; no
    /// context lines). Default: false.
    #[serde(rename = "-o")]
    only_matching: Option<bool>,
    /// Only files of this ripgrep type (`rust`, `py`, `js`, `ts`, `go`, `md`, ...).
    #[serde(rename = "type")]
    file_type: Option<String>,
    /// Show at most this many rows (lines in content mode, files otherwise). Default 1000; 0
    /// shows all.
    #[schemars(range(min = 0))]
    head_limit: Option<usize>,
    /// Skip this many rows first (lines in content mode, files otherwise), to page through
    /// results with head_limit. Default 0.
    #[schemars(range(min = 0))]
    offset: Option<usize>,
    /// Let the pattern span lines (`.` matches line breaks too).
    multiline: Option<bool>,
    /// Include hidden files and directories (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Include files that .gitignore or .ignore leave out. Default: false.
    include_ignored: Option<bool>,
}

static GREP_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<GrepArgs>);

fn grep_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: GrepArgs = parse("Grep", &GREP_SCHEMA, args)?;
    let mode = match args.output_mode.unwrap_or_default() {
        GrepMode::Content => OutputMode::Content,
        GrepMode::FilesWithMatches => OutputMode::FilesWithMatches,
        GrepMode::Count => OutputMode::Count,
    };
    // As in the familiar tool, head_limit 0 means no cap.
    let limit = match args.head_limit {
        Some(0) => None,
        Some(n) => Some(n),
        None => Some(GREP_DEFAULT_LIMIT),
    };
    let offset = args.offset.unwrap_or(0);
    let only_matching = args.only_matching.unwrap_or(false) && mode == OutputMode::Content;
    let context = args.context_long.or(args.context);
    let (before, after) = if only_matching {
        (0, 0)
    } else {
        (
            args.before.or(context).unwrap_or(0),
            args.after.or(context).unwrap_or(0),
        )
    };
    let case_insensitive = args.case_insensitive.unwrap_or(false);
    let multiline = args.multiline.unwrap_or(false);
    let opts = GrepOptions {
        pattern: args.pattern.clone(),
        path: args.path,
        glob: args.glob,
        file_type: args.file_type,
        mode,
        before,
        after,
        case_insensitive,
        fixed_strings: false,
        multiline,
        walk: walk_filter(args.include_hidden, args.include_ignored),
        // The rows skipped are found too, then dropped.
        head_limit: limit.map(|l| l.saturating_add(offset)),
        max_line_chars: Some(MAX_LINE_CHARS),
        encoding: None,
    };
    let mut result = match grep(ws, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(failed(&e)),
    };
    skip_rows(&mut result, offset);
    let only = if only_matching {
        let re = regex::RegexBuilder::new(&args.pattern)
            .case_insensitive(case_insensitive)
            .multi_line(multiline)
            .dot_matches_new_line(multiline)
            .build()
            .ok();
        if re.is_none() {
            // The engine compiled it; this cannot differ, but a row is never lost over it.
            return Ok(failed(&FkError::invalid(
                "Grep: the pattern could not be compiled for -o",
            )));
        }
        re
    } else {
        None
    };
    let page = Page { limit, offset };
    let content = grep_content(
        &result,
        args.line_numbers.unwrap_or(true),
        page,
        only.as_ref(),
    );
    let short = format!(
        "Found {} matching lines in {} files",
        result.total_matches, result.total_files
    );
    let more = result
        .total_rows
        .saturating_sub(offset.saturating_add(result.shown_rows));
    Ok(success(
        content,
        short,
        GrepFields {
            num_files: result.total_files,
            num_matches: result.total_matches,
            truncated: more > 0 || result.truncated,
            shown_rows: result.shown_rows,
            total_rows: result.total_rows,
            applied_limit: limit.filter(|_| more > 0),
            applied_offset: (offset > 0).then_some(offset),
        },
    ))
}

/// The rows asked for: at most `limit` (None: all) after skipping `offset`.
#[derive(Clone, Copy)]
struct Page {
    limit: Option<usize>,
    offset: usize,
}

/// Drops the first `n` output rows of a result (lines in content mode, files otherwise): the
/// `offset` of the familiar tool.
pub(crate) fn skip_rows(r: &mut GrepResult, n: usize) {
    if n == 0 {
        return;
    }
    let mut left = n;
    match r.mode {
        OutputMode::Content => {
            let mut drop_files = 0;
            for f in &mut r.files {
                if left == 0 {
                    break;
                }
                let take = left.min(f.lines.len());
                f.lines.drain(..take);
                left -= take;
                if f.lines.is_empty() {
                    drop_files += 1;
                } else {
                    break;
                }
            }
            r.files.drain(..drop_files);
        }
        _ => {
            let take = left.min(r.files.len());
            r.files.drain(..take);
            left -= take;
        }
    }
    r.shown_rows = r.shown_rows.saturating_sub(n - left);
}

/// The familiar Grep text: absolute paths, a summary line, and a note when rows were cut.
/// With `only` (`-o`), each match of a matching line is a row of its own.
fn grep_content(
    r: &GrepResult,
    line_numbers: bool,
    page: Page,
    only: Option<&regex::Regex>,
) -> String {
    let abs = |rel: &str| absolute(&r.root, rel);
    let mut out = String::new();
    match r.mode {
        OutputMode::FilesWithMatches => {
            if r.total_files == 0 {
                out.push_str("No files found\n");
            } else {
                out.push_str(&format!("Found {} files\n", r.total_files));
                for f in &r.files {
                    out.push_str(&abs(&f.path));
                    out.push('\n');
                }
            }
        }
        OutputMode::Count => {
            for f in &r.files {
                out.push_str(&format!("{}:{}\n", abs(&f.path), f.count));
            }
            out.push_str(&format!(
                "\nFound {} total occurrences across {} files.\n",
                r.total_matches, r.total_files
            ));
        }
        OutputMode::Content => {
            if r.total_files == 0 {
                out.push_str("No matches found\n");
            }
            for f in &r.files {
                let path = abs(&f.path);
                let mut previous: Option<u64> = None;
                for l in &f.lines {
                    if r.context && previous.is_some_and(|p| l.line > p + 1) {
                        out.push_str("--\n");
                    }
                    previous = Some(l.line);
                    let sep = if l.is_match { ':' } else { '-' };
                    let parts: Vec<&str> = match only {
                        Some(re) if l.is_match => re
                            .find_iter(&l.text)
                            .map(|m| m.as_str())
                            .filter(|m| !m.is_empty())
                            .collect(),
                        _ => vec![l.text.as_str()],
                    };
                    for text in parts {
                        if line_numbers {
                            out.push_str(&format!("{path}{sep}{}{sep}{text}\n", l.line));
                        } else {
                            out.push_str(&format!("{path}{sep}{text}\n"));
                        }
                    }
                }
            }
        }
    }
    let unit = if r.mode == OutputMode::Content {
        "lines"
    } else {
        "files"
    };
    let next = page.offset.saturating_add(r.shown_rows);
    let more = r.total_rows.saturating_sub(next);
    if page.offset > 0 {
        out.push_str(&format!(
            "(the first {} {unit} skipped: offset {})\n",
            page.offset.min(r.total_rows),
            page.offset
        ));
    }
    if more > 0 {
        let limit = page
            .limit
            .map_or_else(|| "none".to_string(), |l| l.to_string());
        out.push_str(&format!(
            "... {more} more {unit} not shown (head_limit {limit}): give offset={next} to see \
             the next ones, raise head_limit, or narrow the search with path, glob or type\n"
        ));
    } else if r.truncated {
        out.push_str(&format!(
            "... more {unit} matched than filekit keeps in memory: narrow the search with \
             path, glob or type\n"
        ));
    }
    if r.skipped.count > 0 {
        out.push_str(&format!(
            "({} unreadable files or directories skipped: {})\n",
            r.skipped.count,
            r.skipped.messages.join("; ")
        ));
    }
    out
}
