//! The semantic edit operations of 004 section 4.2 as byte ranges of the text as read:
//! `replace`, `replace_body`, `insert_before`, `insert_after`, `insert_into` (first, last,
//! sorted), `wrap`, `delete`. Inserted text is re-indented to its place: its common leading
//! white space is removed and the place's indentation put in front of each line, so an agent
//! may send code indented any way (or not at all).

use crate::Found;
use filekit_errors::{ErrorCode, FkError};

/// Where `insert_into` puts the new member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    First,
    Last,
    /// Before the first member whose name sorts after the new one's (by name, ignoring case).
    Sorted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Replace,
    ReplaceBody,
    InsertBefore,
    InsertAfter,
    InsertInto(Position),
    Wrap { before: String, after: String },
    Delete,
}

impl Operation {
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Replace => "replace",
            Operation::ReplaceBody => "replace_body",
            Operation::InsertBefore => "insert_before",
            Operation::InsertAfter => "insert_after",
            Operation::InsertInto(_) => "insert_into",
            Operation::Wrap { .. } => "wrap",
            Operation::Delete => "delete",
        }
    }

    /// `replace`, `insert` or `delete`: the `type` of an edit in a `FileEditResult`.
    pub fn change_type(&self) -> &'static str {
        match self {
            Operation::Replace | Operation::ReplaceBody | Operation::Wrap { .. } => "replace",
            Operation::InsertBefore | Operation::InsertAfter | Operation::InsertInto(_) => "insert",
            Operation::Delete => "delete",
        }
    }
}

/// What a body looks like, which decides where members go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyStyle {
    /// `{ ... }` (C-like languages).
    Braced,
    /// An indented block without delimiters (Python).
    Block,
    /// A Markdown section's text under its heading.
    Section,
}

/// One replacement: bytes `start..end` of the text as read become `text`. Operations
/// produce these one by one; [`order`] makes a call's splices one checked [`Splices`].
pub use filekit_splices::{Splice, Splices};

pub(crate) fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The offset just past the newline ending the line that holds `at` (or the text's end).
pub(crate) fn after_line(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// The leading white space of the line holding `at`.
pub fn indent_at(text: &str, at: usize) -> &str {
    let ls = line_start(text, at);
    let line = &text[ls..];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// The file's indentation step: a tab if lines are tab-indented, else the smallest space
/// indentation in use, else `default`.
pub fn indent_unit(text: &str, default: &str) -> String {
    let mut smallest = usize::MAX;
    for line in text.lines().take(2000) {
        if line.starts_with('\t') {
            return "\t".to_string();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 && n < line.len() && n < smallest {
            smallest = n;
        }
    }
    if smallest == usize::MAX || smallest > 8 {
        default.to_string()
    } else {
        " ".repeat(smallest)
    }
}

fn ws_len(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn is_closer(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(['}', ')', ']']) || t.starts_with("</")
}

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
fn sibling_gap(text: &str, s: usize, e: usize) -> usize {
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
fn only_comment(content: &str) -> bool {
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
fn member_gap(text: &str, members: &[Found]) -> usize {
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
pub(crate) fn reindent_in_place(content: &str, indent: &str, style: BodyStyle) -> String {
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

/// Whether `content` is the symbol's text as the file has it, columns included: its first line
/// starts at the symbol (no indentation) and it ends on the symbol's own last line. Such text
/// is written as it is: `reindent_in_place` judges columns by the last line, which a
/// multi-line string closing at another column (a raw string ending at column 0 inside a
/// module) would mislead.
fn copied_from(content: &str, current: &str) -> bool {
    let content = content.trim_end_matches(['\n', '\r']);
    content.contains('\n')
        && ws_len(content) == 0
        && content.lines().last() == current.trim_end_matches(['\n', '\r']).lines().last()
}

/// `range` widened to whole lines when nothing but white space shares its lines.
fn whole_lines(text: &str, range: &std::ops::Range<usize>) -> Option<(usize, usize)> {
    let ls = line_start(text, range.start);
    let le = after_line(text, range.end);
    let before = &text[ls..range.start];
    let after = &text[range.end..le];
    (before.trim().is_empty() && after.trim().is_empty()).then_some((ls, le))
}

/// The name a new member will have, for `sorted`: the first identifier that is not a
/// keyword or modifier.
pub fn first_name(content: &str) -> String {
    const SKIP: &[&str] = &[
        "export",
        "default",
        "public",
        "private",
        "protected",
        "static",
        "async",
        "readonly",
        "abstract",
        "override",
        "function",
        "class",
        "interface",
        "type",
        "enum",
        "const",
        "let",
        "var",
        "def",
        "fn",
        "pub",
        "func",
        "get",
        "set",
        "final",
        "void",
        "declare",
    ];
    content
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|w| !w.is_empty() && !SKIP.contains(w))
        .unwrap_or("")
        .to_string()
}

/// The replacement `op` makes at `target` of `text`. `members` are the target's direct
/// children (for `insert_into` `sorted`); `unit` is the file's indentation step.
pub fn plan(
    text: &str,
    target: &Found,
    op: &Operation,
    content: &str,
    style: BodyStyle,
    members: &[Found],
    unit: &str,
) -> Result<Splice, FkError> {
    let r = &target.range;
    let indent = indent_at(text, r.start).to_string();
    let no_body = || {
        FkError::new(
            ErrorCode::InvalidArgument,
            format!(
                "{} '{}' has no body for {}",
                target.kind,
                target.path,
                op.name()
            ),
        )
        .with_hint("use replace, insert_before or insert_after on it, or target its parent")
    };
    Ok(match op {
        Operation::Replace => {
            if style == BodyStyle::Section {
                Splice::new(r.start, r.end, section_text(text, r.end, content))
            } else if copied_from(content, &text[r.clone()]) {
                Splice::new(
                    r.start,
                    r.end,
                    content.trim_end_matches(['\n', '\r']).to_string(),
                )
            } else {
                Splice::new(r.start, r.end, reindent_in_place(content, &indent, style))
            }
        }
        Operation::Delete => match whole_lines(text, r) {
            Some((mut s, mut e)) => {
                // Deleting a block between two blank lines would leave two: take one. At the
                // end of the file, take the blank line before it.
                let prev_blank =
                    s == 0 || text[..s].ends_with("\n\n") || text[..s].ends_with("\n\r\n");
                // A first member: the blank line after it would open the body.
                let prev_opens = text[..s].trim_end().ends_with(['{', '[', '(']);
                let next_end = after_line(text, e);
                // A last member: the blank line before it would close the body.
                let next_closes = is_closer(&text[e..next_end]);
                if e < text.len()
                    && (prev_blank || prev_opens)
                    && text[e..next_end].trim().is_empty()
                {
                    e = next_end;
                } else if s > 0 && prev_blank && (e == text.len() || next_closes) {
                    s = line_start(text, s - 1);
                }
                Splice::new(s, e, String::new())
            }
            None => Splice::new(r.start, r.end, String::new()),
        },
        Operation::InsertBefore => match whole_lines(text, r) {
            Some((s, e)) => {
                let gap = if only_comment(content) {
                    String::new()
                } else {
                    "\n".repeat(sibling_gap(text, s, e))
                };
                Splice::new(s, s, format!("{}\n{gap}", reindent(content, &indent)))
            }
            None => Splice::new(r.start, r.start, format!("{} ", content.trim())),
        },
        Operation::InsertAfter => match whole_lines(text, r) {
            Some((s, e)) if text[..e].ends_with('\n') => {
                let gap = if only_comment(content) {
                    String::new()
                } else {
                    "\n".repeat(sibling_gap(text, s, e))
                };
                Splice::new(e, e, format!("{gap}{}\n", reindent(content, &indent)))
            }
            Some((_, e)) => Splice::new(e, e, format!("\n{}", reindent(content, &indent))),
            None => Splice::new(r.end, r.end, format!(" {}", content.trim())),
        },
        Operation::ReplaceBody => {
            let b = target.body.clone().ok_or_else(no_body)?;
            match style {
                BodyStyle::Braced if braced(text, &b) => {
                    if content.trim().is_empty() {
                        Splice::new(b.start + 1, b.end - 1, String::new())
                    } else {
                        let inner = format!("{indent}{unit}");
                        Splice::new(
                            b.start + 1,
                            b.end - 1,
                            format!("\n{}\n{indent}", reindent(content, &inner)),
                        )
                    }
                }
                BodyStyle::Section => Splice::new(b.start, b.end, section_body(text, &b, content)),
                _ => {
                    let body_indent = indent_at(text, b.start).to_string();
                    Splice::new(
                        b.start,
                        b.end,
                        reindent_in_place(content, &body_indent, style),
                    )
                }
            }
        }
        Operation::InsertInto(pos) => {
            let b = target.body.clone().ok_or_else(no_body)?;
            // A new member is set apart from the others as they are from each other.
            let gap = "\n".repeat(member_gap(text, members));
            let pos = if *pos == Position::Sorted {
                let name = first_name(content).to_lowercase();
                if let Some(next) = members.iter().find(|m| m.name.to_lowercase() > name) {
                    let at = match whole_lines(text, &next.range) {
                        Some((s, _)) => s,
                        None => next.range.start,
                    };
                    let member_indent = indent_at(text, next.range.start);
                    return Ok(Splice::new(
                        at,
                        at,
                        format!("{}\n{gap}", reindent(content, member_indent)),
                    ));
                }
                Position::Last
            } else {
                *pos
            };
            let member_indent = members
                .first()
                .map(|m| indent_at(text, m.range.start).to_string());
            match style {
                BodyStyle::Braced if braced(text, &b) => {
                    let inner = member_indent.unwrap_or_else(|| format!("{indent}{unit}"));
                    let new = reindent(content, &inner);
                    let inside = &text[b.start + 1..b.end - 1];
                    if inside.trim().is_empty() {
                        Splice::new(b.start + 1, b.end - 1, format!("\n{new}\n{indent}"))
                    } else if pos == Position::First {
                        Splice::new(b.start + 1, b.start + 1, format!("\n{new}{gap}"))
                    } else {
                        let close = b.end - 1;
                        let ls = line_start(text, close);
                        if ls > b.start && text[ls..close].trim().is_empty() {
                            Splice::new(ls, ls, format!("{gap}{new}\n"))
                        } else {
                            Splice::new(close, close, format!("\n{new}\n{indent}"))
                        }
                    }
                }
                BodyStyle::Section => {
                    let new = reindent(content, "");
                    if pos == Position::First {
                        Splice::new(b.start, b.start, format!("\n{new}\n"))
                    } else {
                        let before = &text[..b.end];
                        let lead = if before.ends_with("\n\n") {
                            ""
                        } else if before.ends_with('\n') {
                            "\n"
                        } else {
                            "\n\n"
                        };
                        let tail = if b.end < text.len() { "\n\n" } else { "\n" };
                        Splice::new(b.end, b.end, format!("{lead}{new}{tail}"))
                    }
                }
                _ => {
                    let inner =
                        member_indent.unwrap_or_else(|| indent_at(text, b.start).to_string());
                    let new = reindent(content, &inner);
                    if pos == Position::First {
                        let s = line_start(text, b.start);
                        Splice::new(s, s, format!("{new}\n{gap}"))
                    } else {
                        let e = after_line(text, b.end);
                        if text[..e].ends_with('\n') {
                            Splice::new(e, e, format!("{gap}{new}\n"))
                        } else {
                            Splice::new(e, e, format!("\n{new}"))
                        }
                    }
                }
            }
        }
        Operation::Wrap { before, after } => match whole_lines(text, r) {
            Some((s, e)) => {
                // A block wrapper (`try {`, `if x:`) takes the target one level in; a comment
                // (`/* ... */`, `<!-- ... -->`, `#if 0` ... `#endif`) leaves it where it is.
                let step = if comment_wrapper(before, after) {
                    ""
                } else {
                    unit
                };
                let inner: String = text[s..e]
                    .split_inclusive('\n')
                    .map(|l| {
                        if l.trim().is_empty() {
                            l.to_string()
                        } else {
                            format!("{step}{l}")
                        }
                    })
                    .collect();
                let nl = if inner.ends_with('\n') { "" } else { "\n" };
                let tail = if text[..e].ends_with('\n') { "\n" } else { "" };
                Splice::new(
                    s,
                    e,
                    format!(
                        "{}\n{inner}{nl}{}{tail}",
                        reindent(before, &indent),
                        reindent(after, &indent)
                    ),
                )
            }
            None => Splice::new(
                r.start,
                r.end,
                format!("{before}{}{after}", &text[r.clone()]),
            ),
        },
    })
}

/// A wrapper that comments the target out (or compiles it out) rather than nesting it.
fn comment_wrapper(before: &str, after: &str) -> bool {
    let (b, a) = (before.trim(), after.trim());
    b.starts_with("/*")
        || b.starts_with("<!--")
        || b.starts_with("{/*")
        || (b.starts_with('#') && !b.ends_with(':'))
        || b.starts_with("//")
        || a.ends_with("*/")
        || a.ends_with("-->")
}

fn braced(text: &str, b: &std::ops::Range<usize>) -> bool {
    let s = &text[b.clone()];
    b.len() >= 2
        && ((s.starts_with('{') && s.ends_with('}')) || (s.starts_with('[') && s.ends_with(']')))
}

/// A whole new section for `replace`: ends with a newline, and with a blank line when
/// another heading follows.
fn section_text(text: &str, end: usize, content: &str) -> String {
    // Content that ends its own lines (as a section read from the file does) keeps them.
    if content.ends_with('\n') {
        return content.to_string();
    }
    let body = content.trim_end_matches(['\n', '\r']);
    if end < text.len() {
        format!("{body}\n\n")
    } else {
        format!("{body}\n")
    }
}

/// A section's new text under its heading, set off by blank lines as Markdown writes it.
fn section_body(text: &str, b: &std::ops::Range<usize>, content: &str) -> String {
    let body = content.trim_matches(['\n', '\r']);
    if body.is_empty() {
        return if b.end < text.len() {
            "\n".to_string()
        } else {
            String::new()
        };
    }
    if b.end < text.len() {
        format!("\n{body}\n\n")
    } else {
        format!("\n{body}\n")
    }
}

/// Sorts the splices of one call's edits (each with its edit's number) and makes them one
/// edit of `text`, refusing two that overlap (two targets of one call that share text).
/// The numbered list comes back sorted too, for the reply's list of changes.
#[allow(clippy::type_complexity)]
pub fn order(
    text: &str,
    mut splices: Vec<(usize, Splice)>,
) -> Result<(Vec<(usize, Splice)>, Splices), FkError> {
    splices.sort_by_key(|(_, s)| (s.start, s.end));
    let checked = Splices::new(text, splices.iter().map(|(_, s)| s.clone()).collect());
    match checked {
        Ok(checked) => Ok((splices, checked)),
        // The edits are the caller's to name (their numbering, their targets): the fact
        // carries their indices in the request, counted from 0.
        Err(filekit_splices::SpliceError::Overlap { first, second }) => Err(FkError::new(
            ErrorCode::Conflict,
            "two changes overlap: the text one changes contains text the other changes",
        )
        .with_hint("edit the outer target once, or make two calls")
        .with_details(serde_json::json!({
            "fact": filekit_errors::Fact::EditsOverlap,
            "edit": splices[second].0,
            "conflicts_with": splices[first].0,
        }))),
        Err(e) => Err(e.into()),
    }
}

/// Tests' shorthand: `text` with `splices` (in order) applied, through [`Splices`].
#[cfg(test)]
pub(crate) fn apply(text: &str, splices: &[Splice]) -> String {
    Splices::new(text, splices.to_vec())
        .and_then(|s| s.apply(text))
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_written_back_as_the_file_has_it_is_unchanged() {
        // A const in a module whose raw string closes at column 0.
        let text = "mod t {\n    const J: &str = r#\"{\n  \"a\": 1\n}\"#;\n}\n";
        let start = text.find("const").unwrap();
        let end = text.find("#;").unwrap() + 2;
        let found = Found {
            kind: "const".into(),
            path: "t.J".into(),
            name: "J".into(),
            range: start..end,
            body: None,
            signature: None,
            depth: 1,
        };
        let own = &text[start..end];
        let splice = plan(
            text,
            &found,
            &Operation::Replace,
            own,
            BodyStyle::Braced,
            &[],
            "    ",
        )
        .unwrap();
        assert_eq!(splice.text, own);
    }

    #[test]
    fn reindent_moves_the_common_indentation() {
        assert_eq!(
            reindent("\n    a\n      b\n\n    c\n", "  "),
            "  a\n    b\n\n  c"
        );
        // Copied from a file: the first line was cut at the symbol, the closer keeps its column.
        assert_eq!(
            reindent("f() {\n      x;\n    }", "  "),
            "  f() {\n    x;\n  }"
        );
        assert_eq!(
            reindent_in_place("f() {\n      x;\n    }", "    ", BodyStyle::Braced),
            "f() {\n      x;\n    }"
        );
        assert_eq!(
            reindent_in_place("f() {\n  x;\n}", "    ", BodyStyle::Braced),
            "f() {\n      x;\n    }"
        );
        assert_eq!(
            reindent_in_place("def f():\n        pass", "    ", BodyStyle::Block),
            "def f():\n        pass"
        );
        assert_eq!(
            reindent_in_place("def f():\n    pass", "    ", BodyStyle::Block),
            "def f():\n        pass"
        );
        assert_eq!(indent_unit("a\n    b\n  c\n", "\t"), "  ");
        assert_eq!(indent_unit("a\n\tb\n", "  "), "\t");
        assert_eq!(first_name("export async function zeta() {}"), "zeta");
    }

    #[test]
    fn overlapping_splices_are_refused() {
        let err = order(
            &"x".repeat(9),
            vec![(0, Splice::new(0, 5, "")), (1, Splice::new(3, 8, ""))],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(
            order(
                &"x".repeat(9),
                vec![(1, Splice::new(5, 8, "")), (0, Splice::new(0, 5, ""))]
            )
            .is_ok()
        );
    }
}
