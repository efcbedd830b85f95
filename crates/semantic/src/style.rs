//! A file's style, as the code that writes into it reads it: its indentation (the step one
//! level adds, the indentation of a line), how text moves from one indentation to another,
//! the blank lines that set siblings apart, its quotes and whether it ends statements with
//! `;`. Every operation and refactor that writes code asks here, so that the file's own style
//! wins the same way everywhere.

use crate::Found;
use crate::ops::{BodyStyle, after_line};
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// The leading white space of the line holding `at`.
pub fn indent_at(text: &str, at: usize) -> &str {
    let line = &text[line_start(text, at)..];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// Where the line holding `at` starts, the white space before `at` on it, and whether `at` is
/// the line's first non-blank byte (all before it on the line is white space).
pub fn line_head(text: &str, at: usize) -> (usize, &str, bool) {
    let ls = line_start(text, at);
    let head = &text[ls..at];
    let indent_len = head.len() - head.trim_start().len();
    (ls, &text[ls..ls + indent_len], head.trim().is_empty())
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The file's indentation step: a tab if its code is tab-indented, else the smallest space
/// indentation of a line of code (at most 8: wider is alignment, not a step), else `default`.
/// Blank lines, lines at the margin, and comment lines (`*` inside a block comment, `#`)
/// tell nothing: a comment may sit at any column.
pub fn indent_unit(text: &str, default: &str) -> String {
    let mut smallest = usize::MAX;
    for line in text.lines().take(2000) {
        let code = line.trim_start();
        if code.is_empty() || code.len() == line.len() || code.starts_with(['*', '#']) {
            continue;
        }
        if line.starts_with('\t') {
            return "\t".to_string();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 {
            smallest = smallest.min(n);
        }
    }
    if smallest == usize::MAX || smallest > 8 {
        default.to_string()
    } else {
        " ".repeat(smallest)
    }
}

/// The width of `line`'s leading white space, in bytes.
pub(crate) fn ws_len(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Whether `line` starts by closing a block (`}`, `)`, `]`, an end tag).
pub(crate) fn is_closer(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(['}', ')', ']']) || t.starts_with("</")
}

// Blank lines: a new sibling or member is set apart as the file sets its neighbours apart.

/// A line that opens a block: what follows it is the block's first line, not a sibling.
fn is_opener(line: &str) -> bool {
    line.trim_end().ends_with(['{', '[', '(', ':'])
}

/// How many blank lines start at `at` (a line's start).
fn blank_lines_from(text: &str, at: usize) -> usize {
    text[at..]
        .split_inclusive('\n')
        .take_while(|l| l.ends_with('\n') && l.trim().is_empty())
        .count()
}

/// How many blank lines end at `at` (a line's start), and the start of the first of them.
fn blank_lines_before(text: &str, at: usize) -> (usize, usize) {
    let (mut n, mut start) = (0, at);
    while start > 0 {
        let ls = line_start(text, start - 1);
        if !text[ls..start].trim().is_empty() {
            break;
        }
        n += 1;
        start = ls;
    }
    (n, start)
}

/// The blank lines that set a new sibling of the whole lines `s..e` apart, as the file sets
/// this one apart: the gap after it when a sibling follows, else the gap before it when one
/// precedes, else none (a first member has no gap after its opening line).
pub(crate) fn sibling_gap(text: &str, s: usize, e: usize) -> usize {
    let after = blank_lines_from(text, e);
    let next: usize = text[e..]
        .split_inclusive('\n')
        .take(after)
        .map(str::len)
        .sum::<usize>()
        + e;
    if next < text.len() && !is_closer(&text[next..after_line(text, next)]) {
        return after;
    }
    let (before, first) = blank_lines_before(text, s);
    if first > 0 && !is_opener(&text[line_start(text, first - 1)..first]) {
        return before;
    }
    0
}

/// Content that is only a comment: it belongs to the line it is put beside, with no gap.
pub(crate) fn only_comment(content: &str) -> bool {
    let mut lines = content
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            ["//", "/*", "*", "#", "<!--", "-->"]
                .iter()
                .any(|c| l.starts_with(c))
        })
}

/// The blank lines between a body's members (the first two), or none when it has fewer.
pub(crate) fn member_gap(text: &str, members: &[Found]) -> usize {
    let [a, b, ..] = members else {
        return 0;
    };
    let end = after_line(text, a.range.end.saturating_sub(1).max(a.range.start));
    let start = line_start(text, b.range.start);
    if end > start {
        return 0;
    }
    text[end..start]
        .split_inclusive('\n')
        .filter(|l| l.trim().is_empty())
        .count()
}

/// `content` with its common indentation replaced by `indent` on every non-empty line,
/// without a trailing newline. A first line without indentation followed by lines that end
/// in an indented closer (`}`) is taken as copied from a file at the closer's column (its
/// first line was cut at the symbol), so copied and freshly written code both land right.
pub fn reindent(content: &str, indent: &str) -> String {
    let content = content.trim_end_matches(['\n', '\r']);
    let content = content.trim_start_matches(['\n', '\r']);
    let non_empty: Vec<&str> = content.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut first_indent = non_empty.first().map_or(0, |l| ws_len(l));
    if first_indent == 0
        && non_empty.len() > 1
        && let Some(last) = non_empty.last()
        && is_closer(last)
    {
        first_indent = ws_len(last);
    }
    let common = non_empty
        .iter()
        .skip(1)
        .map(|l| ws_len(l))
        .chain(std::iter::once(first_indent))
        .min()
        .unwrap_or(0);
    content
        .lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{indent}{}", &l[common.min(ws_len(l))..])
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `content` for a place whose first line starts mid-line at a target's start (a replace):
/// content copied from the file (first line cut at the target, its last line at or below
/// `indent`) goes back verbatim, so reading a symbol and writing it back changes nothing;
/// other content is re-indented to `indent`.
pub fn reindent_in_place(content: &str, indent: &str, style: BodyStyle) -> String {
    let trimmed = content.trim_end_matches(['\n', '\r']);
    let mut lines = trimmed.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    // Judged by the last line only: lines inside multi-line strings may sit anywhere.
    let absolute = ws_len(first) == 0
        && rest.last().is_some_and(|last| {
            last.starts_with(indent)
                && if is_closer(last) || style != BodyStyle::Block {
                    ws_len(last) >= indent.len()
                } else {
                    // A Python block's last line is deeper than its head: one at the head's
                    // column is relative content.
                    ws_len(last) > indent.len()
                }
        });
    // A decorated Python definition copied from the file: its `def`/`class` line sits at the
    // decorator's column.
    let decorated = style == BodyStyle::Block
        && first.starts_with('@')
        && rest.iter().all(|l| ws_len(l) >= indent.len())
        && rest.iter().any(|l| {
            let t = l.trim_start();
            ws_len(l) == indent.len()
                && ["def ", "async def ", "class ", "@"]
                    .iter()
                    .any(|k| t.starts_with(k))
        });
    if absolute || decorated || (indent.is_empty() && ws_len(first) == 0) {
        trimmed.to_string()
    } else {
        reindent(content, indent).trim_start().to_string()
    }
}

/// The code of `range` of `text` (starting on its first line's code) moved from the
/// indentation of the line it starts on to `indent`: each later line loses what it shares
/// with that indentation and gains `indent`; lines that start inside one of `verbatim` (a
/// multi-line string: its white space is the string's) stay as they are; blank lines become
/// empty.
pub fn reindent_range(
    text: &str,
    range: Range<usize>,
    indent: &str,
    verbatim: &[Range<usize>],
) -> String {
    let (_, old, _) = line_head(text, range.start);
    let mut out = String::new();
    let mut at = range.start;
    for (i, l) in text[range.clone()].split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let inside_string = i > 0 && verbatim.iter().any(|s| s.start < at && at < s.end);
        if inside_string {
            out.push_str(l);
        } else if !l.trim().is_empty() {
            let common = l
                .bytes()
                .zip(old.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            out.push_str(indent);
            out.push_str(&l[if i == 0 { 0 } else { common }..]);
        }
        at += l.len() + 1;
    }
    out
}

/// The byte ranges of the multi-line string nodes (of kind `kind`: `string` in Python,
/// `template_string` in TS/JS) that meet `range`: what [`reindent_range`] leaves verbatim.
pub fn multiline_strings(
    tree: &Tree,
    text: &str,
    range: &Range<usize>,
    kind: &str,
) -> Vec<Range<usize>> {
    let mut strings = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= range.start || n.start_byte() >= range.end {
            continue;
        }
        if n.kind() == kind && text[n.byte_range()].contains('\n') {
            strings.push(n.byte_range());
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    strings
}

/// `s` on one line: each run of white space (line breaks too) becomes one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A string literal's text without its quotes (`'a'`, `"a"`, `` `a` ``).
pub fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}

/// The quote the file's first string literal opens with (in document order), if it has one.
pub fn first_string_quote(root: Node, text: &str) -> Option<char> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "string" {
            return text[n.byte_range()].chars().next();
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}

/// Whether a TS/JS file ends its statements with `;`: most of its statements that can end
/// with one do (yes when it has none).
pub fn uses_semicolons(root: Node, text: &str) -> bool {
    let (mut with, mut without) = (0, 0);
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "expression_statement"
                | "lexical_declaration"
                | "variable_declaration"
                | "return_statement"
        ) {
            if text[n.byte_range()].ends_with(';') {
                with += 1;
            } else {
                without += 1;
            }
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    with >= without
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindent_moves_the_common_indentation() {
        assert_eq!(
            reindent("\n    a\n      b\n\n    c\n", "  "),
            "  a\n    b\n\n  c"
        );
        // A first line cut at the symbol, with the closer at the file's column.
        assert_eq!(
            reindent("f() {\n      x;\n    }", "  "),
            "  f() {\n    x;\n  }"
        );
    }

    #[test]
    fn the_indentation_step_is_the_files() {
        assert_eq!(indent_unit("a\n    b\n  c\n", "\t"), "  ");
        assert_eq!(indent_unit("a\n\tb\n", "  "), "\t");
        assert_eq!(indent_unit("a\n", "    "), "    ");
        // A JSDoc's ` * ` lines and a comment at an odd column are no step.
        assert_eq!(
            indent_unit("/**\n * doc\n */\nf() {\n  x;\n}\n", "    "),
            "  "
        );
        assert_eq!(
            indent_unit("def f():\n    x = 1\n   # note\n", "  "),
            "    "
        );
        // Past 8 columns it is alignment.
        assert_eq!(indent_unit("call(a,\n              b)\n", "  "), "  ");
    }

    #[test]
    fn a_range_moves_with_its_strings_untouched() {
        let text = "def f():\n    if x:\n        s = '''a\n  b'''\n        y()\n";
        let start = text.find("if x").unwrap();
        let range = start..text.len() - 1;
        let string = text.find("'''a").unwrap()..text.find("b'''").unwrap() + 4;
        assert_eq!(
            reindent_range(text, range, "", std::slice::from_ref(&string)),
            "if x:\n    s = '''a\n  b'''\n    y()"
        );
    }

    #[test]
    fn one_line_and_quotes() {
        assert_eq!(one_line("a  b\n\t c"), "a b c");
        assert_eq!(unquote("'./x'"), "./x");
        assert_eq!(unquote("\"y\""), "y");
    }
}
