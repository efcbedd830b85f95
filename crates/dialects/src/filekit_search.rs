//! The curated table's read-only search tools: `grep_files` (content search, ripgrep's
//! rules), `find_files` (files by glob, newest first) and `list_dir` (a directory's entries,
//! flat or as a tree). They call the same engine searches as the claude dialect's `Grep`,
//! `Glob` and `LS` (`filekit_core::search`); only the arguments and the reply differ: snake
//! case, paths relative to the first root (usable as they are by read_files and edit_files),
//! and every cut reply says how to get the rest (`next_offset`).

use crate::Call;
use crate::args::{parse, schema_for};
use crate::claude_search::skip_rows;
use crate::reply;
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::search::WalkFilter;
use filekit_core::search::glob::{GlobOptions, glob};
use filekit_core::search::grep::{GrepOptions, OutputMode, grep};
use filekit_core::search::list::{EntryKind, ListOptions, list};
use filekit_core::{ErrorCode, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::sync::LazyLock;

/// Rows grep_files shows by default (lines in content mode, files otherwise).
const GREP_DEFAULT_LIMIT: usize = 200;
/// Files find_files shows by default.
const FIND_DEFAULT_LIMIT: usize = 200;
/// Entries list_dir shows by default.
const LIST_DEFAULT_LIMIT: usize = 1000;
/// The most rows, files or entries one reply may carry, whatever the limit asked.
const MAX_LIMIT: usize = 10_000;
/// The deepest tree list_dir shows.
const MAX_DEPTH: usize = 64;
/// Longer lines (minified code) are cut in grep_files' content, saying how much was cut.
const MAX_LINE_CHARS: usize = 1000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec =
        |name, (description, guide), schema: &'static LazyLock<Value>, run, reply| ToolSpec {
            name,
            dialect: "filekit",
            description,
            input_schema: schema,
            read_only: true,
            destructive: false,
            idempotent: true,
            run,
            reject,
            guide,
            reply: ReplySchema::Typed(reply),
        };
    vec![
        spec(
            "grep_files",
            (GREP_DESCRIPTION, GREP_GUIDE),
            &GREP_SCHEMA,
            grep_files,
            reply::schema::<GrepReply>,
        ),
        spec(
            "find_files",
            (FIND_DESCRIPTION, FIND_GUIDE),
            &FIND_SCHEMA,
            find_files,
            reply::schema::<FindReply>,
        ),
        spec(
            "list_dir",
            (LIST_DESCRIPTION, LIST_GUIDE),
            &LIST_SCHEMA,
            list_dir,
            reply::schema::<ListReply>,
        ),
    ]
}

fn reject(err: &FkError) -> Value {
    reply::failure(err)
}

/// A search that could not run (bad regex or glob, missing path, path outside the roots): an
/// answer about the request, with the error fields of the curated table.
fn failed(err: &FkError) -> ToolReply {
    ToolReply::new(reply::failure(err), true, err.full_message())
}

fn walk_filter(include_hidden: Option<bool>, include_ignored: Option<bool>) -> WalkFilter {
    WalkFilter {
        hidden: include_hidden.unwrap_or(false),
        ignored: include_ignored.unwrap_or(false),
    }
}

/// The limit asked (`0`: the most a reply carries), or the default, checked against
/// [`MAX_LIMIT`].
fn row_limit(
    tool: &str,
    arg: &str,
    given: Option<usize>,
    default: usize,
) -> Result<usize, FkError> {
    match given {
        None => Ok(default),
        Some(0) => Ok(MAX_LIMIT),
        Some(n) if n <= MAX_LIMIT => Ok(n),
        Some(n) => Err(FkError::invalid(format!(
            "{tool}: {arg} {n} is more than one reply carries ({MAX_LIMIT})"
        ))
        .with_hint(format!(
            "ask for at most {MAX_LIMIT} (0 means {MAX_LIMIT}), or narrow the search"
        ))),
    }
}

/// A path as the curated tools show it: relative to the first root when it is in the first
/// root (what `read_files` and `edit_files` resolve relative paths against), absolute otherwise.
struct Shown<'a> {
    root: &'a Path,
    first: bool,
}

impl<'a> Shown<'a> {
    fn new(ws: &Call, root: &'a Path) -> Shown<'a> {
        Shown {
            root,
            first: ws.roots().first().is_some_and(|r| r == root),
        }
    }

    fn path(&self, rel: &str) -> String {
        if self.first {
            if rel.is_empty() {
                ".".to_string()
            } else {
                rel.to_string()
            }
        } else if rel.is_empty() {
            self.root.display().to_string()
        } else {
            self.root.join(rel).display().to_string()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// grep_files

const GREP_DESCRIPTION: &str = "\
Search file contents with a regular expression (ripgrep's engine; ignored, hidden and binary files skipped) under `path`, one file or a tree. Choose files with `glob` (`*.{ts,tsx}`, `!*.min.js`) or `type` (rust, py, ts, ...). Replies are `path:line:text` lines (`path-line-text` for context lines); line numbers are the file's, for read_files and edit_files as they are. output_mode files or count for less. A cut reply gives `next_offset` for `offset`.

Example: {\"pattern\": \"def \\\\w+_handler\", \"path\": \"src\", \"type\": \"py\", \"context\": 2}";

/// The long form of [`GREP_DESCRIPTION`], for the documentation page.
const GREP_GUIDE: &str = "\
Search the contents of files with a regular expression (ripgrep's engine and rules): every \
file under `path` (default: the workspace root), or one file. .gitignore'd, hidden and binary \
files are skipped (`include_ignored`, `include_hidden` add the first two). Choose files with \
`glob` (`*.{ts,tsx}`, `!*.min.js`; several separated by commas) and `type` (ripgrep's types: \
rust, py, js, ts, go, java, md, ...).

`output_mode`: `content` (the default: matching lines as path:line:text; `context`, or \
`before`/`after`, adds lines around them as path-line-text, groups separated by --), \
`files` (only the paths of files with a match) or `count` (matching lines per file). Line \
numbers are the file's, 1-based: give them to read_files and edit_files as they are. Paths \
are relative to the workspace root.

The pattern is a Rust regex (`fn \\w+\\(`, `TODO|FIXME`); `literal` takes it as plain text; \
`ignore_case`; `multiline` lets a match span lines. At most `max_results` rows come back \
(default 200: lines in content mode, files otherwise); a cut reply gives `next_offset`: call \
again with `offset` set to it for the next rows.

Example: {\"pattern\": \"def \\\\w+_handler\", \"path\": \"src\", \"type\": \"py\", \"context\": 2}";

#[derive(Deserialize, JsonSchema, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum GrepMode {
    /// Matching lines (and context lines), with line numbers.
    #[default]
    Content,
    /// Only the paths of files with a match.
    Files,
    /// The number of matching lines per file.
    Count,
}

#[derive(Deserialize, JsonSchema)]
struct GrepArgs {
    /// The regular expression to search for (Rust regex syntax), or plain text with `literal`.
    #[schemars(length(min = 1))]
    pattern: String,
    /// The file or directory to search, relative to the workspace root or absolute inside it.
    /// Default: the workspace root.
    path: Option<String>,
    /// Only files whose path matches this glob (`*.rs`, `src/**/*.{ts,tsx}`, `!*.min.js`;
    /// several separated by commas).
    glob: Option<String>,
    /// Only files of this ripgrep type (`rust`, `py`, `js`, `ts`, `go`, `java`, `md`, ...).
    #[serde(rename = "type")]
    file_type: Option<String>,
    /// `content` (matching lines, the default), `files` (paths of files with a match) or
    /// `count` (matching lines per file).
    output_mode: Option<GrepMode>,
    /// Match upper and lower case alike. Default: false.
    ignore_case: Option<bool>,
    /// Take `pattern` as plain text, not a regular expression. Default: false.
    literal: Option<bool>,
    /// Let a match span lines (`.` matches a line break too). Default: false.
    multiline: Option<bool>,
    /// Lines of context before and after each match (content mode). Default: 0.
    context: Option<usize>,
    /// Lines of context before each match (content mode); overrides `context` before.
    before: Option<usize>,
    /// Lines of context after each match (content mode); overrides `context` after.
    after: Option<usize>,
    /// The most rows to return (lines in content mode, files otherwise). Default 200; 0 for
    /// the most one reply carries (10000).
    #[schemars(range(max = 10000))]
    max_results: Option<usize>,
    /// Skip this many rows first: the `next_offset` of the previous reply. Default 0.
    offset: Option<usize>,
    /// Search hidden files and directories too (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Search files that .gitignore or .ignore leave out too. Default: false.
    include_ignored: Option<bool>,
    /// The files' encoding when detection gets it wrong: a WHATWG label ("shift_jis").
    encoding: Option<crate::edit_plan::EncodingLabel>,
}

static GREP_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<GrepArgs>);

fn grep_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: GrepArgs = parse("grep_files", &GREP_SCHEMA, args)?;
    let mode = args.output_mode.unwrap_or_default();
    let limit = row_limit(
        "grep_files",
        "max_results",
        args.max_results,
        GREP_DEFAULT_LIMIT,
    )?;
    let offset = args.offset.unwrap_or(0);
    let context = args.context.unwrap_or(0);
    let opts = GrepOptions {
        pattern: args.pattern.clone(),
        path: args.path,
        glob: args.glob,
        file_type: args.file_type,
        mode: match mode {
            GrepMode::Content => OutputMode::Content,
            GrepMode::Files => OutputMode::FilesWithMatches,
            GrepMode::Count => OutputMode::Count,
        },
        before: args.before.unwrap_or(context),
        after: args.after.unwrap_or(context),
        case_insensitive: args.ignore_case.unwrap_or(false),
        fixed_strings: args.literal.unwrap_or(false),
        multiline: args.multiline.unwrap_or(false),
        walk: walk_filter(args.include_hidden, args.include_ignored),
        // The rows skipped are found too, then dropped.
        head_limit: Some(limit.saturating_add(offset)),
        max_line_chars: Some(MAX_LINE_CHARS),
        encoding: args.encoding.map(|e| e.0),
    };
    // A pattern that is not a regex is a bad argument, refused before anything is searched
    // (as replace_in_files refuses its expression): INVALID_ARGUMENT naming the pattern and
    // the regex error, with the engine's position in `details`.
    if let Err(e) = filekit_core::search::grep::compile(&opts) {
        let regex_error = e
            .message
            .strip_prefix(&format!("invalid regex '{}'", opts.pattern));
        let message = match regex_error {
            Some(rest) => format!(
                "grep_files: `pattern` {:?} is not a valid regex{rest}",
                opts.pattern
            ),
            None => format!("grep_files: {}", e.message),
        };
        let hint = match regex_error {
            Some(_) => e.hint.map(|h| format!("{h} (`literal: true`)")),
            None => e.hint,
        };
        return Err(FkError {
            code: ErrorCode::InvalidArgument,
            message,
            hint,
            ..e
        });
    }
    let mut result = match grep(ws, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(failed(&e)),
    };
    skip_rows(&mut result, offset);
    let shown = Shown::new(ws, Path::new(&result.root));
    let next = offset.saturating_add(result.shown_rows);
    let more = result.total_rows.saturating_sub(next);
    let mut text = String::new();
    let files: Vec<GrepFile> = result
        .files
        .iter()
        .map(|f| {
            let path = shown.path(&f.path);
            match mode {
                GrepMode::Files => text.push_str(&format!("{path}\n")),
                GrepMode::Count => text.push_str(&format!("{path}:{}\n", f.count)),
                GrepMode::Content => {
                    let mut previous: Option<u64> = None;
                    for l in &f.lines {
                        if result.context && previous.is_some_and(|p| l.line > p + 1) {
                            text.push_str("--\n");
                        }
                        previous = Some(l.line);
                        let sep = if l.is_match { ':' } else { '-' };
                        text.push_str(&format!("{path}{sep}{}{sep}{}\n", l.line, l.text));
                    }
                }
            }
            GrepFile {
                path,
                count: f.count,
                lines: (mode == GrepMode::Content).then(|| {
                    f.lines
                        .iter()
                        .map(|l| {
                            let sep = if l.is_match { ':' } else { '-' };
                            format!("{}{sep}{}", l.line, l.text)
                        })
                        .collect()
                }),
            }
        })
        .collect();
    let unit = if mode == GrepMode::Content {
        "lines"
    } else {
        "files"
    };
    let hint = (result.total_files == 0)
        .then(|| occurs_literally(ws, &opts))
        .flatten()
        .map(|files| {
            format!(
                "as plain text it occurs in {files}{} file(s): the pattern is read as a regular \
                 expression, so pass literal: true (or escape ( [ . * and the like)",
                if files >= LITERAL_PROBE_FILES {
                    "+"
                } else {
                    ""
                }
            )
        });
    let mut summary = if result.total_files == 0 {
        let mut none = format!(
            "No match for {} in {} files searched",
            args.pattern, result.searched
        );
        if let Some(hint) = &hint {
            none.push_str(&format!("; {hint}"));
        }
        none
    } else {
        format!(
            "{} matching lines in {} files ({} files searched)",
            result.total_matches, result.total_files, result.searched
        )
    };
    if offset > 0 {
        summary.push_str(&format!("; the first {offset} {unit} skipped (offset)"));
    }
    text.insert_str(0, &format!("{summary}\n"));
    if more > 0 {
        text.push_str(&format!(
            "... {more} more {unit} not shown (max_results {limit}): call again with offset \
             {next} for the next ones, or narrow the search with path, glob or type\n"
        ));
    } else if result.truncated {
        text.push_str(&format!(
            "... more {unit} matched than one search keeps in memory: narrow the search with \
             path, glob or type\n"
        ));
    }
    if result.skipped.count > 0 {
        text.push_str(&format!(
            "({} unreadable files or directories skipped: {})\n",
            result.skipped.count,
            result.skipped.messages.join("; ")
        ));
    }
    let value = GrepReply {
        success: true,
        files,
        total_files: result.total_files,
        total_matches: result.total_matches,
        files_searched: result.searched,
        binary_skipped: result.binary_skipped,
        next_offset: (more > 0).then_some(next),
        truncated: result.truncated && more == 0,
        unreadable: Unread::of(&result.skipped),
        hint,
    };
    Ok(ToolReply::typed(&value, false, text))
}

/// The most files the literal probe of a regex that found nothing counts.
const LITERAL_PROBE_FILES: usize = 20;

/// In how many files the pattern of a regex search that found nothing occurs as plain text,
/// when it does and reads differently as a regex (`Version(parts[1])`): the agent meant the
/// text, and is told so instead of being left with "no match".
fn occurs_literally(ws: &Call, opts: &GrepOptions) -> Option<usize> {
    if opts.fixed_strings || regex::escape(&opts.pattern) == opts.pattern {
        return None;
    }
    let probe = GrepOptions {
        fixed_strings: true,
        mode: OutputMode::FilesWithMatches,
        head_limit: Some(LITERAL_PROBE_FILES),
        ..opts.clone()
    };
    grep(ws, &probe)
        .ok()
        .map(|r| r.total_files)
        .filter(|&n| n > 0)
}

/// What grep_files answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct GrepReply {
    /// True when the search ran (a search with no match succeeds too).
    success: bool,
    /// The files with a match, sorted by path (after offset, up to max_results rows).
    files: Vec<GrepFile>,
    /// Files with a match, in all.
    total_files: usize,
    /// Matching lines, in all.
    total_matches: u64,
    files_searched: usize,
    /// Binary files passed over.
    #[serde(skip_serializing_if = "is_zero")]
    binary_skipped: usize,
    /// Rows were left out: give this as `offset` for the next ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<usize>,
    /// More matched than one search keeps in memory: narrow it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    unreadable: Option<Unread>,
    /// Found nothing, but the pattern occurs as plain text: what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct GrepFile {
    /// Relative to the workspace root (absolute when in another root).
    path: String,
    /// Matching lines in the file.
    count: u64,
    /// content mode: the lines shown, in file order: `LINE:TEXT` for a match, `LINE-TEXT`
    /// for a context line (cut past 1000 characters, saying so).
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<String>>,
}

/// Files or directories that could not be read: how many, and the first few reasons.
#[derive(Serialize, JsonSchema)]
struct Unread {
    count: usize,
    messages: Vec<String>,
}

impl Unread {
    fn of(s: &filekit_core::search::Skipped) -> Option<Unread> {
        (s.count > 0).then(|| Unread {
            count: s.count,
            messages: s.messages.clone(),
        })
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

// ---------------------------------------------------------------------------------------------
// find_files

const FIND_DESCRIPTION: &str = "\
Find files by glob, newest first. `*` stays in one directory, `**` crosses any number: `**/*.rs` is every Rust file, `*.rs` only those at the top of `path`. Ignored and hidden files are left out unless asked for.

Example: {\"pattern\": \"src/**/*.test.{ts,tsx}\"}";

/// The long form of [`FIND_DESCRIPTION`], for the documentation page.
const FIND_GUIDE: &str = "\
Find files by path pattern, newest first (most recently modified first). `pattern` is a glob \
matched against paths relative to `path` (default: the workspace root): `*` stays within one \
directory, `**` crosses any number (`**/*.rs` finds every Rust file, `*.rs` only those at the \
top), `{a,b}` and `[abc]` work. .gitignore'd and hidden files are left out unless \
`include_ignored` / `include_hidden`. Paths come back relative to the workspace root, with \
their modification time. At most `max_results` (default 200) come back; a cut reply gives \
`next_offset` for the older ones.

Example: {\"pattern\": \"src/**/*.test.{ts,tsx}\"}";

#[derive(Deserialize, JsonSchema)]
struct FindArgs {
    /// The glob to match paths against, relative to `path` (`**/*.py`, `src/*.{ts,tsx}`).
    #[schemars(length(min = 1))]
    pattern: String,
    /// The directory to search in, relative to the workspace root or absolute inside it.
    /// Default: the workspace root.
    path: Option<String>,
    /// Match upper and lower case alike. Default: false.
    ignore_case: Option<bool>,
    /// The most files to return (the newest). Default 200; 0 for the most one reply carries
    /// (10000).
    #[schemars(range(max = 10000))]
    max_results: Option<usize>,
    /// Skip this many of the newest files first: the `next_offset` of the previous reply.
    /// Default 0.
    offset: Option<usize>,
    /// Include hidden files and directories (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Include files that .gitignore or .ignore leave out. Default: false.
    include_ignored: Option<bool>,
}

static FIND_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<FindArgs>);

fn find_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: FindArgs = parse("find_files", &FIND_SCHEMA, args)?;
    let limit = row_limit(
        "find_files",
        "max_results",
        args.max_results,
        FIND_DEFAULT_LIMIT,
    )?;
    let offset = args.offset.unwrap_or(0);
    let opts = GlobOptions {
        pattern: args.pattern.clone(),
        path: args.path,
        walk: walk_filter(args.include_hidden, args.include_ignored),
        case_insensitive: args.ignore_case.unwrap_or(false),
        limit: Some(limit.saturating_add(offset)),
    };
    let result = match glob(ws, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(failed(&e)),
    };
    let mut text = String::new();
    let files: Vec<FoundFile> = result
        .files
        .iter()
        .skip(offset)
        .map(|f| {
            let path = shown_abs(ws, &f.absolute);
            text.push_str(&format!("{path}\n"));
            FoundFile {
                path,
                modified: f.modified.clone(),
            }
        })
        .collect();
    let next = offset.saturating_add(files.len());
    let more = result.total.saturating_sub(next);
    let summary = if result.total == 0 {
        format!("No files match {}", args.pattern)
    } else if offset > 0 {
        format!(
            "{} files match {}, newest first; the {offset} newest skipped (offset)",
            result.total, args.pattern
        )
    } else {
        format!(
            "{} files match {}, newest first",
            result.total, args.pattern
        )
    };
    text.insert_str(0, &format!("{summary}\n"));
    if more > 0 {
        text.push_str(&format!(
            "... {more} older files not shown (max_results {limit}): call again with offset \
             {next} for them, or narrow the pattern or the path\n"
        ));
    }
    if result.skipped.count > 0 {
        text.push_str(&format!(
            "({} unreadable directories skipped: {})\n",
            result.skipped.count,
            result.skipped.messages.join("; ")
        ));
    }
    let value = FindReply {
        success: true,
        files,
        total: result.total,
        next_offset: (more > 0).then_some(next),
        unreadable: Unread::of(&result.skipped),
    };
    Ok(ToolReply::typed(&value, false, text))
}

/// What find_files answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct FindReply {
    success: bool,
    /// The matching files, newest first.
    files: Vec<FoundFile>,
    /// Files that match, in all.
    total: usize,
    /// Older matches were left out: give this as `offset` for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unreadable: Option<Unread>,
}

#[derive(Serialize, JsonSchema)]
struct FoundFile {
    /// Relative to the workspace root (absolute when in another root).
    path: String,
    /// Last modification, RFC 3339 UTC.
    modified: String,
}

/// An absolute path of a search result as the curated tools show it (see [`Shown`]).
fn shown_abs(ws: &Call, absolute: &str) -> String {
    let abs = Path::new(absolute);
    match ws.roots().first().and_then(|r| abs.strip_prefix(r).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Some(rel) => rel.display().to_string(),
        None => absolute.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// list_dir

const LIST_DESCRIPTION: &str = "\
List a directory's entries (directories end with /), sorted; `depth` descends as a tree (default 1). Ignored and hidden entries are left out unless asked for; `ignore` leaves out more. Use find_files or grep_files when you know what you are looking for.

Example: {\"path\": \"src\", \"depth\": 2, \"ignore\": [\"__pycache__\", \"*.snap\"]}";

/// The long form of [`LIST_DESCRIPTION`], for the documentation page.
const LIST_GUIDE: &str = "\
List a directory: its entries (directories end with /, symbolic links show their target and \
are not followed), sorted by path. `depth` descends into subdirectories as a tree (1: the \
directory's own entries, the default; 3: three levels). .gitignore'd and hidden entries are \
left out unless `include_ignored` / `include_hidden`; `ignore` takes more globs to leave out \
(`node_modules`, `*.log`; their directories are not entered). Each entry has its path \
relative to the workspace root, kind, size and modification time. At most `max_entries` \
(default 1000) come back; the reply says how many were left out. Use find_files or \
grep_files when you know what you are looking for.

Example: {\"path\": \"src\", \"depth\": 2, \"ignore\": [\"__pycache__\", \"*.snap\"]}";

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    /// The directory to list, relative to the workspace root or absolute inside it. Default:
    /// the workspace root.
    path: Option<String>,
    /// How many levels to list: 1 is the directory's own entries (the default), 2 their
    /// children too, and so on.
    #[schemars(range(min = 1, max = 64))]
    depth: Option<usize>,
    /// Globs of entries to leave out, matched against names and paths relative to the
    /// directory (`node_modules`, `*.log`, `build/**`); their directories are not entered.
    ignore: Option<Vec<String>>,
    /// The most entries to return (the first in path order). Default 1000; 0 for the most one
    /// reply carries (10000).
    #[schemars(range(max = 10000))]
    max_entries: Option<usize>,
    /// Include hidden files and directories (names starting with `.`). Default: false.
    include_hidden: Option<bool>,
    /// Include entries that .gitignore or .ignore leave out. Default: false.
    include_ignored: Option<bool>,
}

static LIST_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ListArgs>);

fn list_dir(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ListArgs = parse("list_dir", &LIST_SCHEMA, args)?;
    let limit = row_limit(
        "list_dir",
        "max_entries",
        args.max_entries,
        LIST_DEFAULT_LIMIT,
    )?;
    let depth = args.depth.unwrap_or(1);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(FkError::invalid(format!(
            "list_dir: depth {depth} is not a number of levels from 1 to {MAX_DEPTH}"
        ))
        .with_hint("give depth 1 for the directory's own entries, 2 for their children too, ..."));
    }
    let opts = ListOptions {
        path: args.path,
        depth,
        filter: None,
        ignore: args.ignore.unwrap_or_default(),
        walk: walk_filter(args.include_hidden, args.include_ignored),
        limit: Some(limit),
    };
    let listing = match list(ws, &opts) {
        Ok(l) => l,
        Err(e) => return Ok(failed(&e)),
    };
    let dir = shown_abs(ws, &listing.path);
    let mut text = format!(
        "{}/ ({} entries{})\n",
        if dir == "." {
            "."
        } else {
            dir.trim_end_matches('/')
        },
        listing.total,
        if listing.truncated {
            format!(", the first {} shown", listing.entries.len())
        } else {
            String::new()
        }
    );
    let mut entries = Vec::with_capacity(listing.entries.len());
    for e in &listing.entries {
        let name = e.name.rsplit('/').next().unwrap_or(&e.name);
        text.push_str(&"  ".repeat(e.depth));
        text.push_str(name);
        let kind = match e.kind {
            EntryKind::Dir => {
                text.push('/');
                Kind::Dir
            }
            EntryKind::Symlink => {
                text.push_str(" -> ");
                text.push_str(e.link_target.as_deref().unwrap_or("?"));
                Kind::Symlink
            }
            EntryKind::File => Kind::File,
            EntryKind::Other => Kind::Other,
        };
        text.push('\n');
        let path = shown_abs(
            ws,
            &Path::new(&listing.path).join(&e.name).display().to_string(),
        );
        entries.push(ListedEntry {
            path,
            kind,
            size: e.size,
            modified: e.modified.clone(),
            depth: e.depth,
            link_target: e.link_target.clone(),
        });
    }
    if listing.truncated {
        text.push_str(&format!(
            "... {} more entries not shown (max_entries {limit}): list a subdirectory, lower \
             depth or add ignore globs to see them\n",
            listing.omitted()
        ));
    }
    if listing.skipped.count > 0 {
        text.push_str(&format!(
            "({} unreadable entries skipped: {})\n",
            listing.skipped.count,
            listing.skipped.messages.join("; ")
        ));
    }
    let value = ListReply {
        success: true,
        path: dir,
        entries,
        total: listing.total,
        truncated: listing.truncated,
        unreadable: Unread::of(&listing.skipped),
    };
    Ok(ToolReply::typed(&value, false, text))
}

/// What list_dir answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ListReply {
    success: bool,
    /// The directory listed.
    path: String,
    /// The entries, sorted by path (a directory's children right after it).
    entries: Vec<ListedEntry>,
    /// Entries found in all.
    total: usize,
    /// Entries were left out (max_entries).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    unreadable: Option<Unread>,
}

#[derive(Serialize, JsonSchema)]
struct ListedEntry {
    /// Relative to the workspace root (absolute when in another root).
    path: String,
    kind: Kind,
    /// Bytes (of the link itself for a symlink).
    size: u64,
    /// Last modification, RFC 3339 UTC.
    modified: String,
    /// 1 for the directory's own entries, 2 for their children, ...
    depth: usize,
    /// Where a symbolic link points, as written in the link.
    #[serde(skip_serializing_if = "Option::is_none")]
    link_target: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}
