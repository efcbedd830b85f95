//! The bounds a file's structure is held to before anything walks it.
//!
//! A file in the workspace is untrusted input: its nesting is whatever its author chose. The
//! walks over syntax trees and documents (symbols, scopes, renames here; the YAML and HTML
//! models, the XML pairing, the JSON paths in `filekit-documents`) are recursive, and so are parts of the
//! libraries under them, so a file 10,000 levels deep would overflow the stack of the thread
//! that walks it and take the whole process down (a stack overflow is not a panic: nothing
//! catches it). Rather than rewrite every walk, every tree is measured once, right after
//! parsing, by an iterative walk, and refused past [`MAX_DEPTH`] with `TOO_LARGE`
//! (`Limit::Nesting`) before any recursive code sees it. Every tree-sitter parse of this
//! crate and of `filekit-documents` goes through [`parse`]; the documents' XML, JSON and YAML
//! layers apply the same bound to their own documents.
//!
//! What a level costs, measured as the smallest stack each walk needs at two depths
//! (`ulimit -s` and `RUST_MIN_STACK` bisected, `filekit call`): a symbol read about 700 bytes
//! per level in a release build (900 in a debug build), the YAML model 500 (3,800), JSON with
//! jsonc-parser and serde_json_path 500 (2,400), XML with sxd-document 260 (1,000), and the
//! Python scope analysis 2,500 (10,700). The last is more than the 2 MiB of the threads that
//! run calls in an MCP server (tokio's blocking pool) can give 1,000 levels, so tool calls
//! do not run on their caller's stack: `filekit_dialects` runs each on a thread of its own
//! with 64 MiB (`CALL_STACK`), where [`MAX_DEPTH`] levels of the deepest walk take a sixth
//! of it in a debug build. The walks that run on rayon's 2 MiB workers (the import graph's
//! parses, the renames in importers) are iterative. `crates/cli/tests/parser_bounds.rs`
//! runs every walk on trees just under the bound.
//!
//! Real files stay far below it: among the 4,900 source files of this repository's test
//! dependencies and cargo registry (TypeScript's compiler, pyright, rxjs, lodash, syn,
//! tokio...) the deepest tree is 741 levels (a generated Rust table: one `|` pattern of 740
//! alternatives), the next 96.
//!
//! Two grammars need a check *before* parsing: the external scanners of tree-sitter-python
//! and tree-sitter-yaml save their stack of indentation levels in tree-sitter's 1 KiB state
//! buffer without checking that it fits, and tree-sitter aborts the process (an `assert`
//! in C) when it does not: Python indented to about 400 different widths, YAML blocks nested
//! about 250 deep. [`scanner_state`] refuses such texts first.
//!
//! A tree's memory is bounded while it is built: a text under the size bound can still be
//! nothing but tokens (2 MB of `1,` builds 384 MB), so a parse is stopped once what
//! tree-sitter allocated for it ([`crate::tree_memory`]) passes [`MAX_SYNTAX_TREE_BYTES`].

use crate::Lang;
use crate::tree_memory::Meter;
use filekit_errors::{FkError, Limit};
use std::collections::HashSet;
use std::ops::ControlFlow;
use tree_sitter::{ParseOptions, ParseState, Tree};

/// The deepest syntax tree or document (levels below the root) the semantic tools accept.
pub const MAX_DEPTH: usize = 1_000;

/// The most memory one parse may build its syntax tree in (what tree-sitter allocates while
/// it parses, counted by [`crate::tree_memory`]); a parse that passes it is stopped and
/// refused with `TOO_LARGE` (`Limit::SyntaxTree`). A tree's size follows its text's tokens,
/// not its length, and a file under the size bound (`MAX_PARSE_SIZE`, 2 MiB) may still be
/// all tokens. Measured with 2 MB texts (release build): ordinary code takes 40 to 56 MB
/// (TypeScript, JavaScript, Python, Rust, CSS, HTML), the densest real files found 89 to 107
/// MB (a minified bundle, a table of objects, a table of numbers), one-digit numbers between
/// commas 384 MB. So 128 MiB: every one of those but the last, 700 KB of it, and a process
/// that parses stays far under the 500 MB a server may take.
pub const MAX_SYNTAX_TREE_BYTES: u64 = 128 << 20;

/// What a tree of ordinary code takes per byte of its text, at most (see
/// [`MAX_SYNTAX_TREE_BYTES`]), for the refusal's comparison.
const ORDINARY_TREE_BYTES_PER_BYTE: u64 = 28;

/// The tree memory the parses under way in one process may expect to take together: two
/// parses at the bound, or many smaller ones. A parse waits for its turn while the others
/// would pass it ([`ParseTurn`]), so that the calls a server runs at once, or the import
/// graph's parallel parses, do not each take [`MAX_SYNTAX_TREE_BYTES`] at the same time.
pub const MAX_SYNTAX_TREE_BYTES_AT_ONCE: u64 = 2 * MAX_SYNTAX_TREE_BYTES;

/// A parse's share of [`MAX_SYNTAX_TREE_BYTES_AT_ONCE`] while it runs: what a tree of
/// ordinary code of its text's length takes, at most the bound of one parse (which still
/// stops a denser text).
struct ParseTurn {
    bytes: u64,
}

struct ParsesUnderWay {
    bytes: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

static UNDER_WAY: ParsesUnderWay = ParsesUnderWay {
    bytes: std::sync::Mutex::new(0),
    freed: std::sync::Condvar::new(),
};

impl ParseTurn {
    /// Waits until a parse of `text_len` bytes fits beside the others (at once when none
    /// runs), then takes its share.
    fn take(text_len: usize) -> ParseTurn {
        let bytes = (text_len as u64)
            .saturating_mul(ORDINARY_TREE_BYTES_PER_BYTE)
            .clamp(1, MAX_SYNTAX_TREE_BYTES);
        let mut under_way = UNDER_WAY
            .bytes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *under_way > 0 && *under_way + bytes > MAX_SYNTAX_TREE_BYTES_AT_ONCE {
            under_way = UNDER_WAY
                .freed
                .wait(under_way)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *under_way += bytes;
        #[cfg(test)]
        turn_tests::saw(*under_way);
        ParseTurn { bytes }
    }
}

impl Drop for ParseTurn {
    fn drop(&mut self) {
        let mut under_way = UNDER_WAY
            .bytes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *under_way -= self.bytes;
        UNDER_WAY.freed.notify_all();
    }
}

/// The most different indentation widths a Python file may have (tree-sitter-python's
/// scanner fits at least 383 levels in its state).
pub const MAX_PYTHON_INDENTS: usize = 300;

/// The most different columns YAML blocks may start at (tree-sitter-yaml's scanner fits 253
/// levels in its state, and holds at most two levels per column).
pub const MAX_YAML_COLUMNS: usize = 120;

/// The most steps the paths of the targets of one read or edit (the matches of one JSONPath,
/// selector or XPath) may have together. A match carries its path, as long as the match is
/// deep, and the JSONPath engine builds every path before anything can be counted; so a
/// query may match [`MAX_TARGET_STEPS`] / (the document's depth) targets: 100,000 in a
/// document 20 levels deep, 4,000 in one 500 deep.
pub const MAX_TARGET_STEPS: usize = 2_000_000;

/// The most bytes the targets of one read, or the entries of one outline, take together: their
/// paths and their content. Nested targets overlap (`div` in a page of nested `div`s names
/// each level's whole subtree, `$..*` every value and every value inside it), so without it
/// a 1 MB file could make a reply of gigabytes.
pub const MAX_RESULT_BYTES: usize = 32 << 20;

/// Refuses `found` targets of `query` (`the selector 'div'`) in a document `depth` levels
/// deep past [`MAX_TARGET_STEPS`] / `depth`.
pub fn check_targets(query: &str, found: usize, depth: usize) -> Result<(), FkError> {
    let max = MAX_TARGET_STEPS / depth.max(1);
    if found <= max {
        return Ok(());
    }
    Err(FkError::too_large(
        Limit::Targets,
        found as u64,
        max as u64,
        format!(
            "{query} matches {found} targets in a document {depth} levels deep; one call takes \
at most {max} there"
        ),
    )
    .with_hint("narrow it (an index, a filter, a parent), or read the file by line range"))
}

/// The longest query (JSONPath, selector, XPath) a call may give, in bytes.
pub const MAX_QUERY_LEN: usize = 8 << 10;

/// The deepest a query's brackets may nest. The parsers of queries (serde_json_path's,
/// sxd-xpath's, the selector parser of `html.rs`) recurse once per level, so a query of
/// 100,000 nested parentheses overflowed any stack; real queries nest a few levels.
pub const MAX_QUERY_NESTING: usize = 32;

/// Refuses a `kind` query ("JSONPath") longer than [`MAX_QUERY_LEN`] or nesting its brackets
/// deeper than [`MAX_QUERY_NESTING`] (outside quotes), before its parser sees it.
pub fn check_query(kind: &str, query: &str) -> Result<(), FkError> {
    if query.len() > MAX_QUERY_LEN {
        return Err(FkError::too_large(
            Limit::RequestSize,
            query.len() as u64,
            MAX_QUERY_LEN as u64,
            format!(
                "the {kind} is {} bytes long; a query may be at most {MAX_QUERY_LEN}",
                query.len()
            ),
        )
        .with_hint("give a shorter query (several calls, or a wider query filtered by you)"));
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut chars = query.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (_, '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest <= MAX_QUERY_NESTING {
        return Ok(());
    }
    Err(FkError::too_large(
        Limit::Pattern,
        deepest as u64,
        MAX_QUERY_NESTING as u64,
        format!(
            "the {kind} nests its brackets {deepest} levels deep; a query may nest them at most \
{MAX_QUERY_NESTING} levels"
        ),
    )
    .with_hint("write it with fewer nested brackets"))
}

/// Bytes spent on the targets of one read or outline, refused past [`MAX_RESULT_BYTES`].
#[derive(Default)]
pub struct ResultBudget {
    used: usize,
}

impl ResultBudget {
    /// Spends `bytes` (a target's path, content, signature); `what` names the read for the
    /// error ("the outline of this HTML file").
    pub fn spend(&mut self, bytes: usize, what: &str) -> Result<(), FkError> {
        self.used = self.used.saturating_add(bytes);
        if self.used <= MAX_RESULT_BYTES {
            return Ok(());
        }
        Err(FkError::too_large(
            Limit::ResultSize,
            self.used as u64,
            MAX_RESULT_BYTES as u64,
            format!(
                "{what} would need more than {MAX_RESULT_BYTES} bytes for the paths and content \
of its targets (nested targets repeat what they hold)"
            ),
        )
        .with_hint(
            "read fewer or less nested targets (or format \"signature\"), or read the file by line range",
        ))
    }
}

/// "TypeScript", for messages.
pub(crate) fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::TypeScript => "TypeScript",
        Lang::Tsx => "TSX",
        Lang::JavaScript => "JavaScript",
        Lang::Python => "Python",
        Lang::Rust => "Rust",
        Lang::Go => "Go",
        Lang::Java => "Java",
        Lang::Css => "CSS",
        Lang::Json | Lang::Jsonl => "JSON",
        Lang::Markdown => "Markdown",
        Lang::Yaml => "YAML",
        Lang::Html => "HTML",
        Lang::Xml => "XML",
    }
}

/// `text` parsed by tree-sitter (reusing `old`, an edited earlier tree of it, when given),
/// refused with `TOO_LARGE` when its tree is deeper than [`MAX_DEPTH`] or when it would
/// overflow the grammar's scanner state ([`scanner_state`]). `edited` says, for the error,
/// that the text is the result of an edit rather than the file.
///
/// A text parsed whole before in this process is served its kept tree
/// ([`crate::parse_cache`]); an incremental parse is not looked up or kept.
pub fn parse(lang: Lang, text: &str, old: Option<&Tree>, edited: bool) -> Result<Tree, FkError> {
    if old.is_none()
        && let Some(tree) = crate::parse_cache::get(lang, text)
    {
        return Ok(tree);
    }
    let tree = parse_any_depth(lang, text, old)?;
    let what = if edited {
        format!("the edited {} file", lang_name(lang))
    } else {
        format!("this {} file", lang_name(lang))
    };
    check_tree(&tree, text, &what)?;
    if old.is_none() {
        crate::parse_cache::keep(lang, text, &tree);
    }
    Ok(tree)
}

/// [`parse`] without the depth check, for walks that are iterative (`imports.rs`): the
/// scanner check still applies, since it keeps the parser itself from aborting.
pub(crate) fn parse_any_depth(lang: Lang, text: &str, old: Option<&Tree>) -> Result<Tree, FkError> {
    scanner_state(lang, text)?;
    let meter = Meter::start();
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&crate::code::language(lang))
        .expect("grammar crates are built against this tree-sitter version");
    let mut stopped_at = None;
    let mut progress = |state: &ParseState| {
        if meter.bytes() <= MAX_SYNTAX_TREE_BYTES {
            return ControlFlow::Continue(());
        }
        stopped_at = Some(state.current_byte_offset());
        ControlFlow::Break(())
    };
    let bytes = text.as_bytes();
    let turn = ParseTurn::take(text.len());
    let tree = parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or_default(),
        old,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    drop(turn);
    let built = meter.bytes();
    match tree {
        Some(tree) if built <= MAX_SYNTAX_TREE_BYTES => Ok(tree),
        _ => Err(tree_too_large(
            lang,
            text.len(),
            built,
            stopped_at.unwrap_or(text.len()),
            old.is_some(),
        )),
    }
}

/// The refusal of a parse of `len` bytes of `lang` whose tree had taken `built` bytes, past
/// [`MAX_SYNTAX_TREE_BYTES`], when it was stopped at byte `at`.
fn tree_too_large(lang: Lang, len: usize, built: u64, at: usize, edited: bool) -> FkError {
    let what = if edited {
        format!("the edited {} file", lang_name(lang))
    } else {
        format!("this {} file", lang_name(lang))
    };
    let mib = MAX_SYNTAX_TREE_BYTES >> 20;
    FkError::too_large(
        Limit::SyntaxTree,
        built,
        MAX_SYNTAX_TREE_BYTES,
        format!(
            "the syntax tree of {what} passed the {mib} MiB one parse may build at byte {at} of \
its {len} (its text is dense in tokens: ordinary code of that size takes about {} MiB)",
            (len as u64 * ORDINARY_TREE_BYTES_PER_BYTE) >> 20,
        ),
    )
    .with_hint(
        "read and edit this file by line range, or search its text; a smaller file (this one split) can be read by symbol",
    )
}

/// Refuses a tree deeper than [`MAX_DEPTH`]: one iterative walk of every node (a cursor, no
/// recursion), so it is safe on any tree.
pub(crate) fn check_tree(tree: &Tree, text: &str, what: &str) -> Result<(), FkError> {
    let mut cursor = tree.walk();
    let (mut depth, mut deepest) = (0usize, 0usize);
    // Where the tree first went past the bound, for the message.
    let mut first_past: Option<usize> = None;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > deepest {
                deepest = depth;
                if depth > MAX_DEPTH && first_past.is_none() {
                    first_past = Some(cursor.node().start_byte());
                }
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return match first_past {
                    None => Ok(()),
                    Some(at) => Err(too_deep(
                        what,
                        deepest,
                        Some(crate::position(text, at).line),
                    )),
                };
            }
            depth -= 1;
        }
    }
}

/// The `TOO_LARGE` error of a document nested `found` levels deep (past [`MAX_DEPTH`]), first
/// past the bound at `line` when known.
pub fn too_deep(what: &str, found: usize, line: Option<usize>) -> FkError {
    let at = line
        .map(|l| format!(" (past the bound at line {l})"))
        .unwrap_or_default();
    FkError::too_large(
        Limit::Nesting,
        found as u64,
        MAX_DEPTH as u64,
        format!(
            "{what} nests {found} levels deep{at}; semantic targeting reads documents and syntax \
trees at most {MAX_DEPTH} levels deep"
        ),
    )
    .with_hint(HINT)
}

const HINT: &str = "read and edit this file by line range (read_files / edit_files), or grep it";

/// Refuses a text whose indentation would overflow its grammar's scanner state (see the
/// module's documentation). Each count is an upper bound of the scanner's stack: Python
/// pushes a level only for a width greater than the last, so never more levels than the
/// file has different widths; a YAML block level starts at a line's first token or after
/// the `- `, `? `, `: ` indicators that open it, at most two levels per column.
pub(crate) fn scanner_state(lang: Lang, text: &str) -> Result<(), FkError> {
    let (found, max, what) = match lang {
        Lang::Python => (
            python_indents(text),
            MAX_PYTHON_INDENTS,
            "indentation widths",
        ),
        Lang::Yaml => (yaml_columns(text), MAX_YAML_COLUMNS, "block columns"),
        _ => return Ok(()),
    };
    if found <= max {
        return Ok(());
    }
    Err(FkError::too_large(
        Limit::Nesting,
        found as u64,
        max as u64,
        format!(
            "this {} file has {found} different {what}; the {} parser keeps its indentation \
levels in a fixed buffer, so semantic targeting reads files with at most {max}",
            lang_name(lang),
            lang_name(lang)
        ),
    )
    .with_hint(HINT))
}

/// The different indentation widths of the non-blank lines, as tree-sitter-python measures
/// them (a tab to the next multiple of 8 counts 8, a form feed starts again at 0).
fn python_indents(text: &str) -> usize {
    let mut widths = HashSet::new();
    for line in text.split('\n') {
        let mut width = 0u32;
        let mut blank = true;
        for c in line.chars() {
            match c {
                ' ' => width += 1,
                '\t' => width += 8,
                '\x0c' => width = 0,
                '\r' => {}
                _ => {
                    blank = false;
                    break;
                }
            }
        }
        if !blank && width > 0 {
            widths.insert(width);
        }
    }
    widths.len()
}

/// The different columns at which a YAML block can start: each line's first token, and the
/// token after each of the block indicators (`- `, `? `, `: `) that lead it.
fn yaml_columns(text: &str) -> usize {
    let mut columns = HashSet::new();
    for line in text.split('\n') {
        let chars: Vec<char> = line.chars().collect();
        let mut i = chars.iter().take_while(|c| **c == ' ').count();
        loop {
            if i >= chars.len() || chars[i] == '\r' {
                break;
            }
            columns.insert(i);
            let indicator = matches!(chars[i], '-' | '?' | ':')
                && chars.get(i + 1).is_none_or(|c| *c == ' ' || *c == '\t');
            if !indicator {
                break;
            }
            i += 1;
            while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
                i += 1;
            }
        }
    }
    columns.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_nesting_is_counted_outside_quotes() {
        assert!(check_query("XPath", "//a[@id=')))(((']").is_ok());
        let deep = format!("{}//a{}", "(".repeat(33), ")".repeat(33));
        let err = check_query("XPath", &deep).unwrap_err();
        assert_eq!(err.details["limit"]["found"], 33);
        assert!(check_query("XPath", &format!("//a[{}]", "x".repeat(9000))).is_err());
    }

    #[test]
    fn python_widths_are_counted_as_the_scanner_counts_them() {
        assert_eq!(python_indents("a\n  b\n\tc\n        d\n   \n  # x\n"), 2);
        assert_eq!(python_indents("\x0c  a\n"), 1);
    }

    #[test]
    fn yaml_columns_include_compact_collections() {
        assert_eq!(yaml_columns("a:\n  b: 1\n- - - x\n"), 4);
        assert_eq!(yaml_columns("key: -1\n"), 1);
        assert_eq!(yaml_columns("? - a\n: - b\n"), 3);
    }
}

#[cfg(test)]
mod turn_tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    static MOST_UNDER_WAY: AtomicU64 = AtomicU64::new(0);

    pub(super) fn saw(under_way: u64) {
        MOST_UNDER_WAY.fetch_max(under_way, Ordering::Relaxed);
    }

    #[test]
    fn parses_at_once_stay_within_their_memory_together() {
        // Six parses of large files at once: two hold their turns at a time, and each of the
        // others waits (never refused), whatever the other tests of this binary parse.
        let large = MAX_SYNTAX_TREE_BYTES as usize;
        let done: Vec<bool> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..6)
                .map(|_| {
                    scope.spawn(|| {
                        let turn = ParseTurn::take(large);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        drop(turn);
                        true
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!(done, [true; 6]);
        let most = MOST_UNDER_WAY.load(Ordering::Relaxed);
        assert!(
            most <= MAX_SYNTAX_TREE_BYTES_AT_ONCE,
            "{most} bytes of parses under way at once"
        );
    }
}
