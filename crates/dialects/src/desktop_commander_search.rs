//! Desktop Commander's search sessions in the `desktop-commander` table: `start_search`,
//! `get_more_search_results`, `stop_search` and `list_searches`, with its argument names and
//! the texts it answers (read from wonderwhy-er/DesktopCommanderMCP:
//! `src/handlers/search-handlers.ts`, `src/search-manager.ts`, `src/tools/schemas.ts`).
//!
//! The real tool runs ripgrep in the background and pages its output as it comes; filekit's
//! engine search (its glob for names, its grep for content) is fast enough to run to the end
//! inside `start_search`, so a session is born complete and the later calls page what it
//! kept. Sessions live in the process (a server's, for as long as it runs): at most
//! [`MAX_SESSIONS`], each keeping at most [`MAX_KEPT`] results; the oldest session goes when a
//! new one would pass the bound, and the reply that drops it says so.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::desktop_commander::Origin;
use crate::reply::{self, CamelFailure};
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::search::WalkFilter;
use filekit_core::search::glob::{GlobOptions, glob};
use filekit_core::search::grep::{GrepOptions, OutputMode, grep};
use filekit_core::{ErrorCode, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeSet, VecDeque};
use std::sync::{LazyLock, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Sessions a process keeps; a new one past this drops the oldest.
const MAX_SESSIONS: usize = 32;

/// Results one session keeps (matches and context lines, or files); past this they are only
/// counted, and the replies say so.
const MAX_KEPT: usize = 10_000;

/// Results `start_search` shows (the real tool's first ten).
const INITIAL_SHOWN: usize = 10;

/// Characters of a match shown per result before `...` (the real tool's cut).
const MATCH_SHOWN: usize = 100;

/// Lines longer than this are cut when kept; only the first [`MATCH_SHOWN`] are ever shown.
const MAX_LINE_CHARS: usize = 1000;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec =
        |name, description, schema: &'static LazyLock<Value>, read_only, run, reply| ToolSpec {
            name,
            dialect: "desktop-commander",
            description,
            input_schema: schema,
            read_only,
            destructive: false,
            idempotent: read_only,
            run,
            reject,
            guide: "",
            reply: ReplySchema::Typed(reply),
        };
    vec![
        ToolSpec {
            guide: START_SEARCH_GUIDE,
            ..spec(
                "start_search",
                START_SEARCH_DESCRIPTION,
                &START_SEARCH_SCHEMA,
                true,
                start_search,
                reply::schema_failing::<StartReply, CamelFailure>,
            )
        },
        spec(
            "get_more_search_results",
            GET_MORE_DESCRIPTION,
            &GET_MORE_SCHEMA,
            true,
            get_more_search_results,
            reply::schema_failing::<MoreReply, CamelFailure>,
        ),
        spec(
            "stop_search",
            STOP_SEARCH_DESCRIPTION,
            &SESSION_SCHEMA,
            true,
            stop_search,
            reply::schema_failing::<StopReply, CamelFailure>,
        ),
        spec(
            "list_searches",
            LIST_SEARCHES_DESCRIPTION,
            &LIST_SEARCHES_SCHEMA,
            true,
            list_searches,
            reply::schema_failing::<ListSearchesReply, CamelFailure>,
        ),
    ]
}

fn reject(err: &FkError) -> Value {
    reply::to_value(&CamelFailure::of(err))
}

/// A failed call, in the real tool's words (`what` is its "Error starting search session"
/// and the like) with filekit's message and hint after them.
fn failed(what: &str, err: &FkError) -> ToolReply {
    ToolReply::typed(
        &CamelFailure::of(err),
        true,
        format!("{what}: {}", err.full_message()),
    )
}

// ---------------------------------------------------------------------------------------------
// The sessions

#[derive(Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum SearchType {
    /// Files whose name matches the pattern.
    #[default]
    Files,
    /// Lines of files whose text matches the pattern.
    Content,
}

impl SearchType {
    fn as_str(self) -> &'static str {
        match self {
            SearchType::Files => "files",
            SearchType::Content => "content",
        }
    }
}

/// One result: a file (name search), or a line of one (content search).
struct Found {
    /// Absolute path.
    file: String,
    /// 1-based line (content search).
    line: Option<u64>,
    /// What matched in the line, or the whole (trimmed) context line.
    text: Option<String>,
}

struct Session {
    id: String,
    search_type: SearchType,
    pattern: String,
    started: Instant,
    /// How long the search itself took.
    search_ms: u128,
    results: Vec<Found>,
    /// Matching lines (content) or files (names), in all, kept or not.
    total_matches: usize,
    /// Context lines, in all.
    total_context: usize,
    /// Some paths could not be read.
    incomplete: bool,
}

impl Session {
    fn total_results(&self) -> usize {
        self.total_matches + self.total_context
    }

    /// Said after the results when some were only counted.
    fn kept_note(&self) -> String {
        if self.total_results() > self.results.len() {
            format!(
                "\nfilekit kept the first {} of {} results of this search: narrow it (path, \
                 filePattern, pattern) to see the rest.",
                self.results.len(),
                self.total_results()
            )
        } else {
            String::new()
        }
    }
}

#[derive(Default)]
struct Sessions {
    started: u64,
    open: VecDeque<Session>,
}

static SESSIONS: LazyLock<Mutex<Sessions>> = LazyLock::new(Mutex::default);

fn sessions() -> std::sync::MutexGuard<'static, Sessions> {
    // A panic while holding the lock leaves whole sessions behind (each is inserted at once).
    SESSIONS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn unknown_session(id: &str) -> FkError {
    FkError::new(
        ErrorCode::NotFound,
        format!("Search session {id} not found"),
    )
    .with_hint(
        "sessions live in a running server (one `filekit call` is a process of its own: \
         `filekit call --lines` runs many in one; a server keeps its newest sessions only); \
         start_search again",
    )
}

fn shown(f: &Found) -> String {
    match (&f.line, &f.text) {
        (Some(line), Some(text)) => {
            let cut: String = text.chars().take(MATCH_SHOWN).collect();
            let more = if text.chars().count() > MATCH_SHOWN {
                "..."
            } else {
                ""
            };
            format!("📄 {}:{line} - {cut}{more}\n", f.file)
        }
        _ => format!("📁 {}\n", f.file),
    }
}

/// One result of a search session.
#[derive(Serialize, JsonSchema)]
struct FoundReply {
    /// The file's absolute path.
    file: String,
    /// The line, from 1 (a content search's).
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// What matched in the line, or the whole (trimmed) context line.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// `content` (a line) or `file` (a name).
    #[serde(rename = "type")]
    kind: &'static str,
}

fn found_reply(f: &Found) -> FoundReply {
    FoundReply {
        file: f.file.clone(),
        line: f.line,
        text: f.text.clone(),
        kind: if f.line.is_some() { "content" } else { "file" },
    }
}

/// What start_search answers: the session, complete, and its first results.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct StartReply {
    success: bool,
    session_id: String,
    /// Always true: filekit's search runs to its end inside start_search.
    is_complete: bool,
    total_results: usize,
    /// Milliseconds the search took.
    runtime: u64,
    /// The first results; get_more_search_results pages the rest.
    results: Vec<FoundReply>,
    /// The oldest session, dropped to keep the bound on sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped_session: Option<String>,
}

/// What get_more_search_results answers: one page of a session's results.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MoreReply {
    success: bool,
    session_id: String,
    is_complete: bool,
    /// Results kept (matches and context lines, or files).
    total_results: usize,
    /// Matching lines.
    total_matches: usize,
    returned_count: usize,
    has_more_results: bool,
    results: Vec<FoundReply>,
}

/// What stop_search answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct StopReply {
    success: bool,
    session_id: String,
    /// False when no session has this id.
    found: bool,
}

/// What list_searches answers.
#[derive(Serialize, JsonSchema)]
struct ListSearchesReply {
    success: bool,
    sessions: Vec<SessionEntry>,
    count: usize,
}

/// One session of list_searches.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SessionEntry {
    id: String,
    /// `files` or `content`.
    search_type: &'static str,
    pattern: String,
    is_complete: bool,
    total_results: usize,
}

// ---------------------------------------------------------------------------------------------
// start_search

const START_SEARCH_DESCRIPTION: &str = "\
Search files by name (searchType \"files\", the default) or by content (\"content\") under \
`path`, in a session whose results you page with get_more_search_results. A name pattern \
without wildcards matches names containing it (`config` finds app.config.ts); with them it is \
a glob (`*.test.ts`). A content pattern is a regex (`literalSearch: true` for plain text); \
each match comes with `contextLines` lines around it (default 5). `filePattern` keeps files \
matching a glob (`*.ts|*.js`). Case is ignored unless `ignoreCase` is false; hidden files \
are skipped unless `includeHidden`; .gitignore'd files are skipped. The reply shows the \
first 10 results and the session id.

Example: {\"path\": \"src\", \"pattern\": \"TODO\", \"searchType\": \"content\", \
\"filePattern\": \"*.ts\", \"contextLines\": 0}";

const START_SEARCH_GUIDE: &str = "\
filekit runs the search to the end inside start_search, so every session is COMPLETED when \
it starts and stop_search has nothing to stop (it answers as Desktop Commander does for a \
session that exists). `timeout_ms` and `earlyTermination` are accepted and not used: the \
search is bounded by its results instead (filekit keeps at most 10,000 per session, and \
says when it kept fewer than it found), and a name search gives every match, sorted by \
path, rather than stopping at the first exact one. `maxResults` caps the results kept in \
all (Desktop Commander passes it to ripgrep, which caps matches per file). Both the \
pattern and `filePattern` must match in a name search (ripgrep's globs would take either). \
A pattern that is not a valid regex or glob is refused with where it is wrong, where the \
real tool reports an empty search. Sessions live in the server process: a server keeps its \
32 newest (the start_search that drops the oldest says so), and through `filekit call`, one \
process per call, a session does not outlive its start_search.";

#[derive(Deserialize, JsonSchema)]
struct StartSearchArgs {
    /// The directory to search in.
    path: String,
    /// The name (substring or glob) or content (regex) pattern.
    pattern: String,
    /// `files` (by name, the default) or `content`.
    #[serde(rename = "searchType")]
    #[schemars(extend("default" = "files"))]
    search_type: Option<SearchType>,
    /// Only files matching this glob; several separated by `|` (`*.ts|*.tsx`).
    #[serde(rename = "filePattern")]
    file_pattern: Option<String>,
    /// Ignore case (default true).
    #[serde(rename = "ignoreCase")]
    #[schemars(extend("default" = true))]
    ignore_case: Option<bool>,
    /// Keep at most this many results in all.
    #[serde(rename = "maxResults")]
    max_results: Option<f64>,
    /// Search hidden files and directories too (default false).
    #[serde(rename = "includeHidden")]
    #[schemars(extend("default" = false))]
    include_hidden: Option<bool>,
    /// Lines shown before and after each content match (default 5).
    #[serde(rename = "contextLines")]
    #[schemars(extend("default" = 5))]
    context_lines: Option<f64>,
    /// Accepted and not used: the search runs to its end, bounded by its results.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    timeout_ms: Option<f64>,
    /// Accepted and not used: a name search gives every match.
    #[serde(rename = "earlyTermination")]
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    early_termination: Option<bool>,
    /// Take a content pattern as plain text, not a regex (default false).
    #[serde(rename = "literalSearch")]
    #[schemars(extend("default" = false))]
    literal_search: Option<bool>,
    /// Who made the call: `llm` or `ui`. Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    origin: Option<Origin>,
}

static START_SEARCH_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<StartSearchArgs>);

fn start_search(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: StartSearchArgs = parse("start_search", &START_SEARCH_SCHEMA, args)?;
    let search_type = args.search_type.unwrap_or_default();
    let started = Instant::now();
    let found = match search_type {
        SearchType::Files => find_files(ws, &args),
        SearchType::Content => find_content(ws, &args),
    };
    let found = match found {
        Ok(f) => f,
        Err(err) => return Ok(failed("Error starting search session", &err)),
    };
    let mut all = sessions();
    all.started += 1;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let session = Session {
        id: format!("search_{}_{millis}", all.started),
        search_type,
        pattern: args.pattern.clone(),
        started,
        search_ms: started.elapsed().as_millis(),
        results: found.results,
        total_matches: found.total_matches,
        total_context: found.total_context,
        incomplete: found.incomplete,
    };

    let kind = match search_type {
        SearchType::Files => "file search",
        SearchType::Content => "content search",
    };
    let mut text = format!(
        "Started {kind} session: {}\nPattern: \"{}\"\nPath: {}\nStatus: COMPLETED\nRuntime: \
         {}ms\nTotal results: {}\n\n",
        session.id, args.pattern, args.path, session.search_ms, session.total_matches
    );
    if !session.results.is_empty() {
        text.push_str("Initial results:\n");
        for f in session.results.iter().take(INITIAL_SHOWN) {
            text.push_str(&shown(f));
        }
        if session.results.len() > INITIAL_SHOWN {
            text.push_str(&format!(
                "... and {} more results\n",
                session.results.len() - INITIAL_SHOWN
            ));
        }
    }
    text.push_str("\n✅ Search completed.");
    text.push_str(&session.kept_note());

    let mut dropped = None;
    if all.open.len() >= MAX_SESSIONS {
        dropped = all.open.pop_front().map(|s| s.id);
    }
    if let Some(id) = &dropped {
        text.push_str(&format!(
            "\nfilekit keeps the {MAX_SESSIONS} newest search sessions: {id} was dropped."
        ));
    }
    let value = StartReply {
        success: true,
        session_id: session.id.clone(),
        is_complete: true,
        total_results: session.total_matches,
        runtime: u64::try_from(session.search_ms).unwrap_or(u64::MAX),
        results: session
            .results
            .iter()
            .take(INITIAL_SHOWN)
            .map(found_reply)
            .collect(),
        dropped_session: dropped,
    };
    all.open.push_back(session);
    Ok(ToolReply::typed(&value, false, text))
}

/// What a search found, before it becomes a session.
struct Findings {
    results: Vec<Found>,
    total_matches: usize,
    total_context: usize,
    incomplete: bool,
}

fn kept_at_most(args: &StartSearchArgs) -> usize {
    // Any JSON number, as the real tool takes it; none above zero sets no cap.
    args.max_results
        .filter(|&m| m >= 1.0)
        .map_or(MAX_KEPT, |m| (m as usize).min(MAX_KEPT))
}

fn walk_filter(args: &StartSearchArgs) -> WalkFilter {
    WalkFilter {
        hidden: args.include_hidden.unwrap_or(false),
        ignored: false,
    }
}

/// The `|`-separated globs of `filePattern`, empty ones left out.
fn file_patterns(args: &StartSearchArgs) -> Vec<&str> {
    args.file_pattern
        .as_deref()
        .unwrap_or("")
        .split('|')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// A glob as ripgrep takes one: without a `/` it matches a name at any depth.
fn at_any_depth(glob: &str) -> String {
    if glob.contains('/') {
        glob.to_string()
    } else {
        format!("**/{glob}")
    }
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', ']', '{', '}'])
}

fn find_files(ws: &Call, args: &StartSearchArgs) -> Result<Findings, FkError> {
    let case_insensitive = args.ignore_case.unwrap_or(true);
    let names = |pattern: String| -> Result<Vec<(String, String)>, FkError> {
        let result = glob(
            ws,
            &GlobOptions {
                pattern: at_any_depth(&pattern),
                path: Some(args.path.clone()),
                walk: walk_filter(args),
                case_insensitive,
                limit: None,
            },
        )?;
        Ok(result
            .files
            .into_iter()
            .map(|m| (m.absolute, m.path))
            .collect())
    };
    // A name with an extension and no wildcard is the file's whole name, as the real tool
    // takes it; any other plain text is a part of the name.
    let pattern = if is_glob(&args.pattern)
        || args.pattern.rsplit_once('.').is_some_and(|(_, ext)| {
            !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }) {
        args.pattern.clone()
    } else {
        format!("*{}*", args.pattern)
    };
    let mut files = names(pattern)?;
    let filters = file_patterns(args);
    if !filters.is_empty() {
        let mut allowed = BTreeSet::new();
        for f in filters {
            allowed.extend(names(f.to_string())?.into_iter().map(|(_, rel)| rel));
        }
        files.retain(|(_, rel)| allowed.contains(rel));
    }
    files.sort();
    let total = files.len();
    files.truncate(kept_at_most(args));
    Ok(Findings {
        results: files
            .into_iter()
            .map(|(file, _)| Found {
                file,
                line: None,
                text: None,
            })
            .collect(),
        total_matches: total,
        total_context: 0,
        incomplete: false,
    })
}

fn find_content(ws: &Call, args: &StartSearchArgs) -> Result<Findings, FkError> {
    let filters = file_patterns(args);
    let glob = match filters.as_slice() {
        [] => None,
        [one] => Some(at_any_depth(one)),
        several if several.iter().any(|g| g.contains(['{', '}'])) => {
            return Err(FkError::invalid(format!(
                "filePattern '{}': a glob with {{...}} cannot be one of several separated by |",
                args.file_pattern.as_deref().unwrap_or("")
            ))
            .with_hint("use one glob with {a,b} (`*.{ts,tsx}`), or several without braces"));
        }
        several => Some(format!(
            "{{{}}}",
            several
                .iter()
                .map(|g| at_any_depth(g))
                .collect::<Vec<_>>()
                .join(",")
        )),
    };
    // Any JSON number, as the real tool takes it: below one, no context.
    let context = args.context_lines.map_or(5, |c| c.max(0.0) as usize);
    let opts = GrepOptions {
        pattern: args.pattern.clone(),
        path: Some(args.path.clone()),
        glob,
        mode: OutputMode::Content,
        before: context,
        after: context,
        case_insensitive: args.ignore_case.unwrap_or(true),
        fixed_strings: args.literal_search.unwrap_or(false),
        walk: walk_filter(args),
        head_limit: Some(kept_at_most(args)),
        max_line_chars: Some(MAX_LINE_CHARS),
        ..GrepOptions::default()
    };
    let result = grep(ws, &opts)?;
    // What matched in a line, as the real tool shows it: the first match, not the line.
    let first_match = regex::RegexBuilder::new(&if opts.fixed_strings {
        regex::escape(&opts.pattern)
    } else {
        opts.pattern.clone()
    })
    .case_insensitive(opts.case_insensitive)
    .build()
    .ok();
    let root = result.root.trim_end_matches('/');
    let mut results = Vec::new();
    for hits in &result.files {
        let file = format!("{root}/{}", hits.path);
        for l in &hits.lines {
            let text = if l.is_match {
                first_match
                    .as_ref()
                    .and_then(|re| re.find(&l.text))
                    .filter(|m| !m.is_empty())
                    .map_or_else(|| l.text.clone(), |m| m.as_str().to_string())
            } else {
                l.text.trim().to_string()
            };
            results.push(Found {
                file: file.clone(),
                line: Some(l.line),
                text: Some(text),
            });
        }
    }
    let total_matches = usize::try_from(result.total_matches).unwrap_or(usize::MAX);
    Ok(Findings {
        results,
        total_matches,
        total_context: result.total_rows.saturating_sub(total_matches),
        incomplete: result.skipped.count > 0,
    })
}

// ---------------------------------------------------------------------------------------------
// get_more_search_results

const GET_MORE_DESCRIPTION: &str = "\
Page the results of a start_search session: `offset` is the first result (0-based, default \
0), `length` how many (default 100); a negative offset gives the last -offset results. The \
reply says the session's totals and the offset of the next page when there are more.

Example: {\"sessionId\": \"search_1_1700000000000\", \"offset\": 10, \"length\": 50}";

#[derive(Deserialize, JsonSchema)]
struct GetMoreArgs {
    /// The session id start_search gave.
    #[serde(rename = "sessionId")]
    session_id: String,
    /// First result, 0-based; negative: the last -offset results.
    #[schemars(extend("default" = 0))]
    offset: Option<f64>,
    /// How many results at most (ignored with a negative offset).
    #[schemars(extend("default" = 100))]
    length: Option<f64>,
}

static GET_MORE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<GetMoreArgs>);

fn get_more_search_results(_ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: GetMoreArgs = parse("get_more_search_results", &GET_MORE_SCHEMA, args)?;
    // Any JSON number, as the real tool takes it (a fraction goes toward zero, as its slice
    // takes one).
    let offset = args.offset.map_or(0, |o| o as i64);
    let length = args.length.map_or(100, |l| l as i64);
    let all = sessions();
    let Some(session) = all.open.iter().find(|s| s.id == args.session_id) else {
        return Ok(failed(
            "Error reading search results",
            &unknown_session(&args.session_id),
        ));
    };
    let kept = &session.results;
    let (page, more) = if offset < 0 {
        let n = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
        (&kept[kept.len().saturating_sub(n)..], false)
    } else {
        let from = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(kept.len());
        let n = usize::try_from(length.max(0)).unwrap_or(usize::MAX);
        let to = from.saturating_add(n).min(kept.len());
        (&kept[from..to], from.saturating_add(n) < kept.len())
    };
    let mut text = format!(
        "Search session: {}\nStatus: COMPLETED\nRuntime: {}s\nTotal results found: {} ({} \
         matches)\n",
        session.id,
        (session.started.elapsed().as_millis() + 500) / 1000,
        session.total_results(),
        session.total_matches
    );
    if offset < 0 {
        text.push_str(&format!("Showing last {} results\n\n", page.len()));
    } else {
        // The real tool's arithmetic: an empty page shows as "offset-(offset-1)".
        text.push_str(&format!(
            "Showing results {offset}-{}\n\n",
            offset + i64::try_from(page.len()).unwrap_or(i64::MAX) - 1
        ));
    }
    if page.is_empty() {
        text.push_str(if session.total_results() == 0 {
            "No matches found."
        } else {
            "No results in this range."
        });
    } else {
        text.push_str("Results:\n");
        for f in page {
            text.push_str(&shown(f));
        }
    }
    if offset >= 0 && more {
        text.push_str(&format!(
            "\n📖 More results available. Use get_more_search_results with offset: {}",
            offset + i64::try_from(page.len()).unwrap_or(i64::MAX)
        ));
    }
    text.push_str("\n✅ Search completed.");
    if session.incomplete {
        text.push_str(
            "\n⚠️  Warning: Some files were inaccessible due to permissions. Results may be \
             incomplete.",
        );
    }
    text.push_str(&session.kept_note());
    let value = MoreReply {
        success: true,
        session_id: session.id.clone(),
        is_complete: true,
        total_results: session.total_results(),
        total_matches: session.total_matches,
        returned_count: page.len(),
        has_more_results: more,
        results: page.iter().map(found_reply).collect(),
    };
    Ok(ToolReply::typed(&value, false, text))
}

// ---------------------------------------------------------------------------------------------
// stop_search

const STOP_SEARCH_DESCRIPTION: &str = "\
Stop a start_search session. filekit's searches finish inside start_search, so this only \
confirms the session; its results stay readable with get_more_search_results.

Example: {\"sessionId\": \"search_1_1700000000000\"}";

#[derive(Deserialize, JsonSchema)]
struct SessionArgs {
    /// The session id start_search gave.
    #[serde(rename = "sessionId")]
    session_id: String,
}

static SESSION_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<SessionArgs>);

fn stop_search(_ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: SessionArgs = parse("stop_search", &SESSION_SCHEMA, args)?;
    let found = sessions().open.iter().any(|s| s.id == args.session_id);
    let id = &args.session_id;
    let text = if found {
        format!("Search session {id} terminated successfully.")
    } else {
        format!("Search session {id} not found or already completed.")
    };
    let value = StopReply {
        success: true,
        session_id: id.clone(),
        found,
    };
    Ok(ToolReply::typed(&value, false, text))
}

// ---------------------------------------------------------------------------------------------
// list_searches

const LIST_SEARCHES_DESCRIPTION: &str = "\
List the search sessions this server keeps: id, type, pattern, status and result count.

Example: {}";

#[derive(Deserialize)]
struct ListSearchesArgs {}

/// No arguments, and any other is refused (a struct without fields gives a schema that names
/// no key, which would leave the object open).
static LIST_SEARCHES_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| json!({"type": "object", "properties": {}, "additionalProperties": false}));

fn list_searches(_ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let ListSearchesArgs {} = parse("list_searches", &LIST_SEARCHES_SCHEMA, args)?;
    let all = sessions();
    let text = if all.open.is_empty() {
        "No active searches.".to_string()
    } else {
        let mut text = format!("Active Searches ({}):\n\n", all.open.len());
        for s in &all.open {
            text.push_str(&format!(
                "Session: {}\n  Type: {}\n  Pattern: \"{}\"\n  Status: ✅ COMPLETED\n  Runtime: \
                 {}s\n  Results: {}\n\n",
                s.id,
                s.search_type.as_str(),
                s.pattern,
                (s.started.elapsed().as_millis() + 500) / 1000,
                s.total_results()
            ));
        }
        text
    };
    let value = ListSearchesReply {
        success: true,
        sessions: all
            .open
            .iter()
            .map(|s| SessionEntry {
                id: s.id.clone(),
                search_type: s.search_type.as_str(),
                pattern: s.pattern.clone(),
                is_complete: true,
                total_results: s.total_results(),
            })
            .collect(),
        count: all.open.len(),
    };
    Ok(ToolReply::typed(&value, false, text))
}
