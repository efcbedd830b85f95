//! Grep: a Rust regex over the files of a tree (or one file), on ripgrep's searcher.
//!
//! Binary files (a NUL byte) are skipped, as ripgrep skips them. Line numbers are 1-based
//! and are those of the file on disk, so an edit tool can use them directly. The walk is
//! parallel; files are sorted by path afterwards so the output is stable. At most
//! [`MAX_KEPT_ROWS`] rows, and no more of them than the workspace's reply bytes hold
//! ([`crate::limits::ReplyBudget`]), are kept in memory whatever `head_limit` says; past
//! that matches are only counted and the result says it was truncated.

use super::{Skipped, WalkFilter, rel_string, resolve_base, walk_builder};
use crate::Workspace;
use crate::error::{ErrorCode, FkError};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Rows (lines in content mode, files otherwise) kept in memory by one search, whatever the
/// limit: past this, matches are counted but not kept.
pub const MAX_KEPT_ROWS: usize = 500_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The matching lines (with context lines when asked).
    #[default]
    Content,
    /// Only the paths of files with a match.
    FilesWithMatches,
    /// The number of matching lines per file.
    Count,
}

#[derive(Debug, Clone, Default)]
pub struct GrepOptions {
    /// A Rust regex (or a literal with `fixed_strings`).
    pub pattern: String,
    /// The file or directory to search (default: the first root).
    pub path: Option<String>,
    /// Only files matching this glob (ripgrep's `--glob`: `*.rs`, `*.{ts,tsx}`, `!*.min.js`).
    pub glob: Option<String>,
    /// Only files of this ripgrep file type (`rust`, `py`, `js`).
    pub file_type: Option<String>,
    pub mode: OutputMode,
    /// Context lines before and after each match.
    pub before: usize,
    pub after: usize,
    pub case_insensitive: bool,
    /// Take the pattern literally.
    pub fixed_strings: bool,
    /// Let the pattern span lines (`.` matches a line break too).
    pub multiline: bool,
    pub walk: WalkFilter,
    /// Keep at most this many output rows: lines in content mode, files otherwise.
    pub head_limit: Option<usize>,
    /// Cut lines longer than this many characters (minified files), saying how much was cut.
    pub max_line_chars: Option<usize>,
    /// The files' encoding, when the caller names it: every file is read as its text in it.
    /// `None`: each file's own (UTF-8, or the encoding its first bytes show).
    pub encoding: Option<&'static encoding_rs::Encoding>,
}

/// One line of output.
#[derive(Debug, Clone, Serialize)]
pub struct GrepLine {
    /// 1-based line number in the file.
    pub line: u64,
    pub text: String,
    /// False for a context line.
    pub is_match: bool,
}

/// What one file gave.
#[derive(Debug, Clone, Serialize)]
pub struct FileHits {
    /// Path relative to its workspace root, `/`-separated.
    pub path: String,
    /// Matching lines in the file.
    pub count: u64,
    /// The lines (content mode only), in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<GrepLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GrepResult {
    /// The searched file or directory, absolute.
    pub base: String,
    /// The workspace root the paths are relative to.
    pub root: String,
    pub mode: OutputMode,
    /// True when context lines were asked for (groups are then separated by `--`).
    pub context: bool,
    /// Files with a match, sorted by path (cut to the limit).
    pub files: Vec<FileHits>,
    /// Files with a match, in all.
    pub total_files: usize,
    /// Matching lines, in all.
    pub total_matches: u64,
    /// Output rows in all (lines in content mode, files otherwise) and how many are shown.
    pub total_rows: usize,
    pub shown_rows: usize,
    /// True when rows were left out (by `head_limit`, or by the memory cap).
    pub truncated: bool,
    /// Files searched.
    pub searched: usize,
    /// Binary files skipped.
    pub binary_skipped: usize,
    /// Files or directories that could not be read.
    pub skipped: Skipped,
}

/// Compiles the pattern; an invalid regex is a PARSE_ERROR with the regex crate's message,
/// which points at the position of the problem.
pub fn compile(opts: &GrepOptions) -> Result<RegexMatcher, FkError> {
    if opts.pattern.is_empty() {
        return Err(FkError::invalid("the search pattern is empty")
            .with_hint("give a regex such as `fn main` or `TODO|FIXME`"));
    }
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(opts.case_insensitive)
        .fixed_strings(opts.fixed_strings);
    if opts.multiline {
        b.multi_line(true).dot_matches_new_line(true);
    } else {
        // Lets the searcher find candidate lines fast (ripgrep does the same).
        b.line_terminator(Some(b'\n'));
    }
    b.build(&opts.pattern).map_err(|e| {
        // The regex crate's own message on the pattern as given (grep-regex wraps it in a
        // group first, which would shift the caret), with the position of the problem.
        let (message, position) = match regex_syntax::Parser::new().parse(&opts.pattern) {
            Err(regex_syntax::Error::Parse(err)) => (err.to_string(), Some(err.span().start)),
            Err(regex_syntax::Error::Translate(err)) => (err.to_string(), Some(err.span().start)),
            _ => (e.to_string(), None),
        };
        let at = position
            .map(|p| format!(" at line {}, column {}", p.line, p.column))
            .unwrap_or_default();
        // A valid regex refused by the line-oriented searcher can only match a line break.
        let hint = if position.is_none() && !opts.multiline {
            "the pattern can match a line break, which only a multiline search allows: set \
             multiline, or match within one line"
        } else {
            "the pattern is a Rust regex: escape special characters such as ( [ { . * + ? with \
             a backslash, or search for the text literally"
        };
        FkError::new(
            ErrorCode::ParseError,
            format!("invalid regex '{}'{at}: {message}", opts.pattern),
        )
        .with_hint(hint)
        .with_details(serde_json::json!({
            "offset": position.map(|p| p.offset),
            "line": position.map(|p| p.line),
            "column": position.map(|p| p.column),
        }))
    })
}

pub fn grep(ws: &Workspace, opts: &GrepOptions) -> Result<GrepResult, FkError> {
    let matcher = compile(opts)?;
    let base = resolve_base(ws, opts.path.as_deref())?;
    let mut builder = walk_builder(&base, opts.walk);
    if let Some(g) = opts.glob.as_deref().filter(|g| !g.is_empty()) {
        let mut ob = ignore::overrides::OverrideBuilder::new(&base.abs);
        // Several globs may come in one string, split by commas outside braces or spaces.
        for part in split_globs(g) {
            super::check_anchored_pattern("glob", &part)?;
            ob.add(&part)
                .map_err(|e| super::invalid_glob("glob", &part, &e))?;
        }
        let overrides = ob.build().map_err(|e| super::invalid_glob("glob", g, &e))?;
        builder.overrides(overrides);
    }
    if let Some(t) = opts.file_type.as_deref().filter(|t| !t.is_empty()) {
        builder.types(file_types(t)?);
    }
    builder.threads(super::threads());

    let mut searcher_builder = SearcherBuilder::new();
    searcher_builder
        .binary_detection(BinaryDetection::quit(b'\0'))
        // A line (or, multi-line, a file) longer than this is not held: the file is skipped.
        .heap_limit(Some(crate::limits::MAX_SEARCH_BUFFER as usize))
        // Counting lines costs time; only content shows them.
        .line_number(opts.mode == OutputMode::Content)
        .multi_line(opts.multiline);
    if opts.mode == OutputMode::Content {
        searcher_builder
            .before_context(opts.before)
            .after_context(opts.after);
    }
    let searcher_template = searcher_builder.build();
    let searcher_builder = &searcher_builder;

    let skipped = Mutex::new(Skipped::default());
    let searched = AtomicUsize::new(0);
    let binary = AtomicUsize::new(0);
    let kept_rows = AtomicUsize::new(0);
    let kept = Kept::new(ws.max_reply_bytes());
    let totals = Totals::default();
    let root = base.root.clone();
    builder.build_parallel().run(|| {
        let mut searcher = searcher_template.clone();
        let matcher = matcher.clone();
        let (kept, skipped, searched, binary, kept_rows, totals, root) = (
            &kept, &skipped, &searched, &binary, &kept_rows, &totals, &root,
        );
        let max_line_chars = opts.max_line_chars;
        let root_index = base.root_index;
        let mode = opts.mode;
        Box::new(move |result| {
            let entry = match result {
                Ok(e) => e,
                Err(err) => {
                    super::note_walk_error(skipped, &err);
                    return ignore::WalkState::Continue;
                }
            };
            if let Some(special) = entry.file_type().and_then(super::special_kind) {
                if let Ok(mut s) = skipped.lock() {
                    s.add(format!(
                        "{}: not a regular file ({special})",
                        entry.path().display()
                    ));
                }
                return ignore::WalkState::Continue;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            searched.fetch_add(1, Ordering::Relaxed);
            let path = rel_string(root, entry.path());
            // A file past what the reply already holds keeps no rows: it is only counted.
            let room = if kept.admits(&path) { kept.max } else { 0 };
            let mut sink = Collect {
                mode,
                count: 0,
                lines: Vec::new(),
                rows: 0,
                binary: false,
                kept_rows,
                max_line_chars,
                room,
                bytes: 0,
                cut: false,
            };
            // Opened beneath the root's handle, not by name: the walk found a regular file,
            // and a symlink put in its place since cannot lead out of the root.
            let rel = super::below(entry.path(), root).unwrap_or(entry.path());
            let searched_ok = ws.open_found(root_index, rel).and_then(|file| {
                // A file in another encoding is searched as its text, decoded.
                let encoding = match opts.encoding {
                    Some(named) => Some(named).filter(|e| *e != encoding_rs::UTF_8),
                    None => file_encoding(&file)?,
                };
                match encoding {
                    None => searcher.search_file(&matcher, &file, &mut sink),
                    Some(enc) => searcher_builder
                        .clone()
                        .encoding(grep_searcher::Encoding::new(enc.name()).ok())
                        .build()
                        .search_file(&matcher, &file, &mut sink),
                }
            });
            if let Err(err) = searched_ok {
                // grep-searcher's words for its heap limit ("configured allocation limit
                // (N) exceeded"), said in ours.
                let why = if err.to_string().contains("allocation limit") {
                    format!(
                        "a line (or, for a multi-line search, the file) is longer than the {} bytes a search holds",
                        crate::limits::MAX_SEARCH_BUFFER
                    )
                } else {
                    err.to_string()
                };
                if let Ok(mut s) = skipped.lock() {
                    s.add(format!("{}: {why}", entry.path().display()));
                }
                return ignore::WalkState::Continue;
            }
            if sink.binary {
                binary.fetch_add(1, Ordering::Relaxed);
                return ignore::WalkState::Continue;
            }
            if sink.count == 0 {
                return ignore::WalkState::Continue;
            }
            totals.files.fetch_add(1, Ordering::Relaxed);
            totals.matches.fetch_add(sink.count, Ordering::Relaxed);
            totals.rows.fetch_add(sink.rows, Ordering::Relaxed);
            if mode != OutputMode::Content
                && kept_rows.fetch_add(1, Ordering::Relaxed) >= MAX_KEPT_ROWS
            {
                kept.cut.store(true, Ordering::Relaxed);
                return ignore::WalkState::Continue;
            }
            let bytes = match mode {
                OutputMode::Content => sink.bytes,
                _ => row_cost(path.len()),
            };
            let hits = FileHits {
                path,
                count: sink.count,
                lines: sink.lines,
            };
            kept.offer(hits, bytes, sink.cut);
            ignore::WalkState::Continue
        })
    });

    let memory_cut =
        kept_rows.load(Ordering::Relaxed) > MAX_KEPT_ROWS || kept.cut.load(Ordering::Relaxed);
    // In path order, as the map keeps them.
    let mut files = kept.into_files();
    let total_files = totals.files.into_inner();
    let total_matches = totals.matches.into_inner();
    let total_rows = match opts.mode {
        OutputMode::Content => totals.rows.into_inner(),
        _ => total_files,
    };
    let limit = opts.head_limit.unwrap_or(usize::MAX);
    let mut shown_rows = 0usize;
    match opts.mode {
        OutputMode::Content => {
            let mut keep = 0;
            for f in &mut files {
                if shown_rows >= limit {
                    break;
                }
                let room = limit - shown_rows;
                f.lines.truncate(room);
                shown_rows += f.lines.len();
                keep += 1;
            }
            files.truncate(keep);
        }
        _ => {
            files.truncate(limit);
            shown_rows = files.len();
        }
    }
    Ok(GrepResult {
        base: base.abs.display().to_string(),
        root: base.root.display().to_string(),
        mode: opts.mode,
        context: opts.mode == OutputMode::Content && (opts.before > 0 || opts.after > 0),
        files,
        total_files,
        total_matches,
        total_rows,
        shown_rows,
        truncated: shown_rows < total_rows || memory_cut,
        searched: searched.into_inner(),
        binary_skipped: binary.into_inner(),
        skipped: skipped.into_inner().unwrap_or_default(),
    })
}

/// Splits `*.{ts,tsx} *.js` or `*.ts,*.js` into globs; commas inside braces stay.
fn split_globs(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// ripgrep's file-type definitions with `name` selected; an unknown name is refused with the
/// closest known names.
fn file_types(name: &str) -> Result<ignore::types::Types, FkError> {
    let mut tb = ignore::types::TypesBuilder::new();
    tb.add_defaults();
    let known: Vec<String> = tb
        .definitions()
        .into_iter()
        .map(|d| d.name().to_string())
        .collect();
    if !known.iter().any(|k| k == name) {
        let mut close: Vec<(f64, &String)> = known
            .iter()
            .map(|k| (strsim::jaro_winkler(name, k), k))
            .filter(|(s, _)| *s > 0.75)
            .collect();
        close.sort_by(|a, b| b.0.total_cmp(&a.0));
        let close: Vec<&str> = close.iter().take(5).map(|(_, k)| k.as_str()).collect();
        let hint = if close.is_empty() {
            "use one of ripgrep's file types (rust, py, js, ts, go, java, c, cpp, md, json, ...), or the `glob` argument".to_string()
        } else {
            format!(
                "did you mean {}? (or use the `glob` argument)",
                close.join(", ")
            )
        };
        return Err(FkError::invalid(format!("unknown file type '{name}'")).with_hint(hint));
    }
    tb.select(name);
    tb.build()
        .map_err(|e| FkError::invalid(format!("file type '{name}': {e}")))
}

/// What all files gave, counted whether or not their rows were kept.
#[derive(Default)]
struct Totals {
    files: AtomicUsize,
    matches: std::sync::atomic::AtomicU64,
    rows: AtomicUsize,
}

/// What a row takes of a reply besides its text: its line number or count, the fields
/// around it in whatever shape the reply has.
fn row_cost(text: usize) -> u64 {
    text as u64 + 16
}

/// The files a search keeps for its reply: the first ones in path order that the reply's
/// bytes hold, whatever order the parallel walk finds them in. A file is offered once searched;
/// past the bytes, the last file in path order is let go, and from then on no file after it
/// in path order is kept (the first is always kept, however large).
struct Kept {
    max: u64,
    cut: AtomicBool,
    state: Mutex<KeptFiles>,
}

#[derive(Default)]
struct KeptFiles {
    files: BTreeMap<String, (FileHits, u64)>,
    held: u64,
    /// Only paths below this one are kept.
    end: Option<String>,
}

impl Kept {
    fn new(max: u64) -> Kept {
        Kept {
            max,
            cut: AtomicBool::new(false),
            state: Mutex::new(KeptFiles::default()),
        }
    }

    /// True while a file at `path` could still be kept.
    fn admits(&self, path: &str) -> bool {
        self.state
            .lock()
            .is_ok_and(|s| s.end.as_deref().is_none_or(|end| path < end))
    }

    /// Keeps `hits` (`bytes` of the reply) while the bytes allow; `partial` when its own rows
    /// were cut, so that no file after it is kept.
    fn offer(&self, hits: FileHits, bytes: u64, partial: bool) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if partial {
            self.cut.store(true, Ordering::Relaxed);
        }
        if s.end
            .as_deref()
            .is_some_and(|end| hits.path.as_str() >= end)
        {
            self.cut.store(true, Ordering::Relaxed);
            return;
        }
        let s = &mut *s;
        let path = hits.path.clone();
        s.held += bytes;
        s.files.insert(path.clone(), (hits, bytes));
        if partial {
            // The smallest string after `path`: what follows it in path order is let go.
            let after = format!("{path}\0");
            for (_, (_, b)) in s.files.split_off(&after) {
                s.held -= b;
            }
            s.end = Some(after);
        }
        while s.held > self.max && s.files.len() > 1 {
            let Some((last, (_, b))) = s.files.pop_last() else {
                break;
            };
            s.held -= b;
            self.cut.store(true, Ordering::Relaxed);
            if s.end.as_deref().is_none_or(|end| last.as_str() < end) {
                s.end = Some(last);
            }
        }
    }

    fn into_files(self) -> Vec<FileHits> {
        self.state
            .into_inner()
            .map(|s| s.files.into_values().map(|(hits, _)| hits).collect())
            .unwrap_or_default()
    }
}

/// The encoding of a file that is not UTF-8, from its first bytes (see
/// [`crate::encoding::sniff`]).
fn file_encoding(file: &std::fs::File) -> std::io::Result<Option<&'static encoding_rs::Encoding>> {
    use std::os::unix::fs::FileExt;
    let mut head = vec![0u8; 8192];
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    Ok(crate::encoding::sniff(&head[..got]))
}

/// Collects one file's output.
struct Collect<'a> {
    mode: OutputMode,
    count: u64,
    lines: Vec<GrepLine>,
    /// Lines this file would show (kept or not).
    rows: usize,
    binary: bool,
    kept_rows: &'a AtomicUsize,
    max_line_chars: Option<usize>,
    /// The bytes of rows this file may keep (one reply's); `bytes` are those it keeps. Past
    /// them no row of this file is kept (`cut`), so that what is kept of it is its first rows.
    room: u64,
    bytes: u64,
    cut: bool,
}

impl Collect<'_> {
    fn keep(&mut self, first_line: Option<u64>, bytes: &[u8], is_match: bool) {
        let first = first_line.unwrap_or(0);
        for (number, line) in (first..).zip(bytes.split_inclusive(|b| *b == b'\n')) {
            self.rows += 1;
            if self.kept_rows.fetch_add(1, Ordering::Relaxed) >= MAX_KEPT_ROWS {
                continue;
            }
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            // What the row can take (a cut line: its characters, at most four bytes each,
            // and the note), asked before its text is made.
            let shown = self
                .max_line_chars
                .map_or(line.len(), |max| line.len().min(4 * max + 32));
            // The first row of a file that may keep any is kept, however long.
            let cost = row_cost(shown);
            if self.cut || (self.bytes + cost > self.room && (self.bytes > 0 || self.room == 0)) {
                self.cut = true;
                continue;
            }
            self.bytes += cost;
            let mut text = String::from_utf8_lossy(line).into_owned();
            if let Some(max) = self.max_line_chars
                && let Some((cut, _)) = text.char_indices().nth(max)
            {
                let more = text[cut..].chars().count();
                text.truncate(cut);
                text.push_str(&format!(" ... [{more} more characters]"));
            }
            self.lines.push(GrepLine {
                line: number,
                text,
                is_match,
            });
        }
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        // A multi-line match counts each of its lines, as `rg --count` does.
        let lines = m.bytes().split_inclusive(|b| *b == b'\n').count().max(1) as u64;
        self.count += lines;
        match self.mode {
            OutputMode::FilesWithMatches => Ok(false),
            OutputMode::Count => Ok(true),
            OutputMode::Content => {
                self.keep(m.line_number(), m.bytes(), true);
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if self.mode == OutputMode::Content {
            self.keep(c.line_number(), c.bytes(), false);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        // Whatever matched before the NUL byte is dropped: the file is binary.
        self.binary = true;
        self.count = 0;
        self.rows = 0;
        self.lines.clear();
        Ok(false)
    }
}

/// The result as `path:line:text` lines (`-` after the number for context lines, `--`
/// between context groups that are not adjacent), or paths, or `path:count`, like ripgrep prints.
pub fn render(result: &GrepResult, line_numbers: bool) -> String {
    use std::fmt::Write;
    // `write!` into one buffer: no string per line (this is on the hot path of large outputs).
    let mut out = String::new();
    for f in &result.files {
        match result.mode {
            OutputMode::FilesWithMatches => {
                out.push_str(&f.path);
                out.push('\n');
            }
            OutputMode::Count => {
                let _ = writeln!(out, "{}:{}", f.path, f.count);
            }
            OutputMode::Content => {
                let mut previous: Option<u64> = None;
                for l in &f.lines {
                    if result.context && previous.is_some_and(|p| l.line > p + 1) {
                        out.push_str("--\n");
                    }
                    previous = Some(l.line);
                    let sep = if l.is_match { ':' } else { '-' };
                    out.push_str(&f.path);
                    out.push(sep);
                    if line_numbers {
                        let _ = write!(out, "{}{sep}", l.line);
                    }
                    out.push_str(&l.text);
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_globs_split_on_commas_and_spaces_outside_braces() {
        assert_eq!(split_globs("*.{ts,tsx}"), ["*.{ts,tsx}"]);
        assert_eq!(
            split_globs("*.rs, *.toml !*.lock"),
            ["*.rs", "*.toml", "!*.lock"]
        );
        assert!(split_globs(" , ").is_empty());
    }

    #[test]
    fn invalid_regex_names_line_and_column() {
        let opts = GrepOptions {
            encoding: None,
            pattern: "ok\\d+[a-".into(),
            ..Default::default()
        };
        let err = compile(&opts).unwrap_err();
        assert_eq!(err.code, ErrorCode::ParseError);
        assert!(
            err.message.contains("at line 1, column 6"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("unclosed character class"),
            "{}",
            err.message
        );
    }

    #[test]
    fn unknown_file_types_suggest_close_names() {
        let err = file_types("pyhton").unwrap_err();
        assert!(err.full_message().contains("py"), "{}", err.full_message());
        assert!(file_types("rust").is_ok());
    }
}
