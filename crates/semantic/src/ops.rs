//! The semantic edit operations of `file_edit` as byte ranges of the text as read:
//! `replace`, `replace_body`, `insert_before`, `insert_after`, `insert_into` (first, last,
//! sorted), `wrap`, `delete`. Inserted text is re-indented to its place: its common leading
//! white space is removed and the place's indentation put in front of each line, so an agent
//! may send code indented any way (or not at all).

use crate::Found;
use crate::style::{
    indent_at, is_closer, member_gap, only_comment, reindent, reindent_in_place, sibling_gap,
    ws_len,
};
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

/// The offset where the line holding `at` starts.
pub fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The offset just past the newline ending the line that holds `at` (or the text's end).
pub fn after_line(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
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
// Over 200 lines: one arm per edit operation (replace, delete, insert before/after/into, replace
// body, wrap), each the text that operation makes at the target with the closures they share
// (indentation, whole lines); `insert_into`, the longest, is the first to move out.
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
    fn copied_code_goes_back_at_its_columns() {
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
