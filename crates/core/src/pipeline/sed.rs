//! sed's `s` command: `s<d>pattern<d>replacement<d>flags`, parsed once and applied to a text
//! as byte-range replacements, so that it goes through the one write pipeline like any edit.
//!
//! What matches GNU sed:
//! - any delimiter character (`s|a|b|`, `s#a#b#g`); `\<d>` in the pattern or the replacement
//!   is a literal delimiter;
//! - line by line: a match never crosses a line break, `^` and `$` are the start and end of
//!   each line, and without `g` only the first match *of each line* is replaced;
//! - flags `g` (every match), `i`/`I` (ignore case), a number `N` (only the N-th match of each
//!   line), `Ng` (the N-th and every later one);
//! - in the replacement, `&` is the whole match, `\1`..`\9` are groups, `\n` and `\t` are a
//!   line break and a tab, `\&` and `\\` are a literal `&` and backslash, and any other `\c`
//!   is `c`;
//! - empty matches: `s/x*/-/g` on `abc` gives `-a-b-c-`.
//!
//! Where filekit differs from GNU sed:
//! - the pattern is a Rust regex (as with `sed -E` or `sd`): `(`, `)`, `{`, `+`, `?` and `|`
//!   are operators unescaped, and `\d`, `\w`, `(?<name>..)`, lookaround-free Unicode classes
//!   are available; BRE's `\(..\)` is not;
//! - the replacement also takes `$1`, `${1}`, `${name}`, `$name` and `$$` (a literal `$`), as
//!   `sd` does; `$1abc` is refused as ambiguous (write `${1}abc`), as `sd` does;
//! - a line's end excludes its `\r` in CRLF files, so `$` sits before the `\r` and the line
//!   ending survives every replacement;
//! - flag `m` runs the pattern over the whole text, so a match may cross lines (`^`/`$` still
//!   match at every line) and `N` counts matches in the whole text; flag `s` does the same
//!   and also lets `.` match a line break. GNU sed's `M`/`e`/`p`/`w` flags and addresses
//!   (`1,5s/..`) are not taken: one expression is one substitution over every line;
//! - a group reference to a group the pattern does not have (`\3` with two groups) is an
//!   error, not an empty string.
//!
//! Where filekit differs from `sd`: `&` is the whole match and `\1` a group (in sd both are
//! literal), and the match is line by line unless `m`/`s` is given (sd matches across lines).
//!
//! Literal mode (`literal: true`) takes the pattern as a fixed string and the replacement as
//! written: only `\<d>` and `\\` are escapes; `&` and `$` are plain characters.
//!
//! A substitution works on decoded text and produces text, so it cannot make a file invalid
//! UTF-8; files that are not UTF-8 to begin with are skipped by the tree-wide replace.

use crate::error::{ErrorCode, FkError};
use crate::text::Eol;
use filekit_splices::{Splice, SpliceError, Splices};
use regex::{Captures, Regex, RegexBuilder};
use std::sync::Arc;

/// One `s` command, ready to apply.
#[derive(Debug, Clone)]
pub struct Substitution {
    expression: String,
    /// Shared by every clone: a clone of a `Regex` brings a new pool of search caches, which a
    /// tree-wide replace (one clone per file) would allocate and warm up thousands of times.
    regex: Arc<Regex>,
    /// The same pattern over bytes, to rule files out before they are decoded.
    bytes_regex: Arc<regex::bytes::Regex>,
    /// The replacement's parts, a run of equal ones as one (`&&&&` is the match four times):
    /// a replacement of thousands of parts costs a step per run, not per part, at each match.
    replacement: Vec<(Part, usize)>,
    /// Replace every match from the `occurrence`-th on, not only that one.
    global: bool,
    /// 1-based: which match (of each line, or of the text in whole-text mode) is replaced.
    occurrence: usize,
    scope: Scope,
    /// The replacement when it refers to no group: the same text for every match, which
    /// needs no captures.
    fixed: Option<String>,
}

/// What the pattern is run over, and how the lines it may match are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// `m`/`s`: the whole text, so a match may cross lines.
    WholeText,
    /// Each line, and one search of the whole text finds exactly the matches the line-by-line
    /// run would replace: a fixed string without a line break or `\r` (so no match crosses a
    /// line or reaches into a CRLF's `\r`), replaced at every match of each line.
    LinesFoundByWholeSearch,
    /// Each line, of those a search of the whole text finds a match in (a match within a line
    /// is also one of the whole text).
    MatchingLines,
    /// Each line, every one: the pattern's meaning differs between a line and the whole text
    /// (`\A`, `\z`, flags turning multi-line off), so a whole-text search rules nothing out.
    EveryLine,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Group(usize),
    Named(String),
}

impl Substitution {
    /// Parses `s<d>pattern<d>replacement<d>flags`. Errors point at the character (1-based, in
    /// `details.position`) and say how to write it instead.
    pub fn parse(expression: &str, literal: bool) -> Result<Substitution, FkError> {
        let chars: Vec<(usize, char)> = expression.char_indices().collect();
        let err = |at: usize, what: &str, hint: &str| malformed(expression, at, what, hint);
        match chars.first() {
            Some((_, 's')) => {}
            Some(_) => {
                return Err(err(
                    0,
                    "a substitution starts with `s`",
                    "write it as s/pattern/replacement/flags",
                ));
            }
            None => {
                return Err(err(
                    0,
                    "the expression is empty",
                    "write it as s/pattern/replacement/flags",
                ));
            }
        }
        let Fields {
            pattern: pattern_text,
            replacement: replacement_text,
            replacement_start,
            flags: flags_text,
            flags_start,
        } = split_fields(expression, &chars, literal)?;
        let Flags {
            global,
            ignore_case,
            whole_text,
            dot_all,
            occurrence,
        } = parse_flags(expression, &flags_text, flags_start)?;

        let pattern = if literal {
            regex::escape(&pattern_text)
        } else {
            pattern_text.clone()
        };
        if pattern.is_empty() {
            return Err(err(
                2,
                "the pattern is empty",
                "give the text or regex to replace between the first two delimiters",
            ));
        }
        let regex = RegexBuilder::new(&pattern)
            .case_insensitive(ignore_case)
            .multi_line(true)
            // `$` before a CRLF line's `\r`, as a line of such a file ends there.
            .crlf(true)
            .dot_matches_new_line(dot_all)
            .build()
            .map_err(|e| {
                FkError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "invalid regex in the sed expression {expression:?} (pattern from character 3): {e}"
                    ),
                )
                .with_hint("patterns are Rust regex syntax (like sed -E); escape operators such as ( [ . * with a backslash to match them literally, or ask for literal mode")
                .with_details(serde_json::json!({"expression": expression, "position": 3}))
            })?;
        let bytes_regex = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(ignore_case)
            .multi_line(true)
            .crlf(true)
            .dot_matches_new_line(dot_all)
            .build()
            // Same pattern and flags as the regex built above, which already parsed it.
            .map_err(|e| {
                FkError::invalid(format!("invalid regex in {expression:?}: {e}"))
                    .with_hint("escape regex operators with a backslash, or ask for literal mode")
            })?;
        let replacement = if literal {
            vec![Part::Literal(unescape_literal(&replacement_text))]
        } else {
            parse_replacement(&replacement_text, &regex)
                .map_err(|(at, what, hint)| err(replacement_start + at, &what, &hint))?
        };
        let replacement = runs(replacement);
        let fixed = match replacement.as_slice() {
            [] => Some(String::new()),
            [(Part::Literal(t), n)] => Some(t.repeat(*n)),
            _ => None,
        };
        let occurrence = occurrence.unwrap_or(1);
        let scope = if whole_text {
            Scope::WholeText
        } else if literal && global && occurrence == 1 && !pattern_text.contains(['\n', '\r']) {
            Scope::LinesFoundByWholeSearch
        } else if literal
            || !(pattern.contains("\\A") || pattern.contains("\\z") || pattern.contains("(?-"))
        {
            Scope::MatchingLines
        } else {
            Scope::EveryLine
        };
        Ok(Substitution {
            scope,
            fixed,
            expression: expression.to_string(),
            regex: Arc::new(regex),
            bytes_regex: Arc::new(bytes_regex),
            replacement,
            global,
            occurrence,
        })
    }

    /// `text` with every replacement made: what `sed` would print for it.
    pub fn apply(&self, text: &str) -> Result<String, SpliceError> {
        self.splices(text)?.apply(text)
    }

    /// Whether the substitution would change anything in `text` (one search, no splices).
    pub fn matches(&self, text: &str) -> bool {
        // A pattern whose meaning differs between a line and the whole text (`\A`) cannot be
        // ruled out by a search of the whole text.
        self.scope == Scope::EveryLine || self.regex.is_match(text)
    }

    /// Like [`Substitution::matches`], on a file's raw bytes, before it is decoded: a UTF-8
    /// file whose bytes do not match cannot match once decoded either (a file in another
    /// encoding can: [`crate::encoding::may_be_other_text`]).
    pub fn may_match_bytes(&self, bytes: &[u8]) -> bool {
        self.scope == Scope::EveryLine || self.bytes_regex.is_match(bytes)
    }

    /// The expression as given.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// Whether each match lies within one line (no `m` or `s` flag): the substitution can
    /// then be made a run of whole lines at a time, as a streamed file is read.
    pub fn line_by_line(&self) -> bool {
        self.scope != Scope::WholeText
    }

    /// The replacements this substitution makes in `text`. Empty when nothing matches.
    /// Matches are found in order and never overlap, so an error is filekit's own.
    pub fn splices(&self, text: &str) -> Result<Splices, SpliceError> {
        match self.splices_within(text, u64::MAX, None) {
            Ok(found) => found,
            Err(_) => Ok(Splices::none(text)),
        }
    }

    /// Like [`Substitution::splices`], but stops as soon as the replacements made so far
    /// would make `text` longer than `max` bytes (a replacement repeats the match: `&&&&`
    /// makes a text four times as long), with `Err` of that length: the replacements of a
    /// text too long to be written are never all held. With `eol`, replacement texts get
    /// the file's line breaks (after the bound is checked, as a file's edits are).
    pub fn splices_within(
        &self,
        text: &str,
        max: u64,
        eol: Option<Eol>,
    ) -> Result<Result<Splices, SpliceError>, u64> {
        Ok(Splices::new(
            text,
            self.replacements_within(text, max, eol)?,
        ))
    }

    /// The replacements of [`Substitution::splices_within`] as found, one per match (an
    /// empty match replaced by nothing included), for a collector that checks them against
    /// a request's other edits before they become [`Splices`].
    pub fn replacements_within(
        &self,
        text: &str,
        max: u64,
        eol: Option<Eol>,
    ) -> Result<Vec<Splice>, u64> {
        let mut out = Found {
            list: Vec::new(),
            len: text.len() as u64,
            max,
        };
        self.collect(text, &mut out)?;
        if let Some(eol) = eol {
            for s in &mut out.list {
                if eol.needs_conversion(&s.text) {
                    s.text = eol.convert(&s.text);
                }
            }
        }
        Ok(out.list)
    }

    fn collect(&self, text: &str, out: &mut Found) -> Result<(), u64> {
        match self.scope {
            Scope::WholeText | Scope::LinesFoundByWholeSearch => {
                return self.replace_in(text, 0, out);
            }
            Scope::EveryLine => {
                let mut at = 0;
                for line in text.split_inclusive('\n') {
                    self.replace_in_line(text, at, at + line.len(), out)?;
                    at += line.len();
                }
                return Ok(());
            }
            Scope::MatchingLines => {}
        }
        // Most lines of most files do not match. One search of the whole text finds the
        // lines that may: a match within a line is also a match of the whole text (`^`, `$`
        // and `\b` mean the same at line breaks), so the first match at or after a line's
        // start lies in the first line that has one. Only those lines are searched line by
        // line, which keeps sed's per-line semantics exact.
        let bytes = text.as_bytes();
        let mut from = 0;
        while from < text.len() {
            let Some(m) = self.regex.find_at(text, from) else {
                break;
            };
            let line_start = memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |i| i + 1);
            let line_end = memchr::memchr(b'\n', &bytes[m.start()..])
                .map_or(text.len(), |i| m.start() + i + 1);
            self.replace_in_line(text, line_start, line_end, out)?;
            from = line_end;
        }
        Ok(())
    }

    /// Appends the replacements within the line `start..end` of `text` (its line break and a
    /// CRLF's `\r` excluded).
    fn replace_in_line(
        &self,
        text: &str,
        start: usize,
        end: usize,
        out: &mut Found,
    ) -> Result<(), u64> {
        let line = &text[start..end];
        let content = line.strip_suffix('\n').unwrap_or(line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        self.replace_in(content, start, out)
    }

    /// Appends the replacements within `hay`, which starts at `offset` in the whole text.
    fn replace_in(&self, hay: &str, offset: usize, out: &mut Found) -> Result<(), u64> {
        if let Some(fixed) = &self.fixed {
            let wanted = self.regex.find_iter(hay).skip(self.occurrence - 1);
            let wanted = wanted.take(if self.global { usize::MAX } else { 1 });
            for m in wanted {
                out.push(m.start() + offset, m.end() + offset, fixed.clone())?;
            }
            return Ok(());
        }
        for (k, caps) in self.regex.captures_iter(hay).enumerate() {
            let n = k + 1;
            if n < self.occurrence {
                continue;
            }
            let m = caps.get(0).expect("group 0 always matches");
            // The length first: a replacement that repeats a long match many times is not
            // built when it alone would pass the bound.
            let len = self.expanded_len(&caps);
            out.check(m.start() + offset, m.end() + offset, len)?;
            out.push(m.start() + offset, m.end() + offset, self.expand(&caps))?;
            if !self.global {
                break;
            }
        }
        Ok(())
    }

    fn expanded_len(&self, caps: &Captures) -> usize {
        self.replacement
            .iter()
            .map(|(part, n)| {
                let one = match part {
                    Part::Literal(t) => t.len(),
                    Part::Group(g) => caps.get(*g).map_or(0, |m| m.len()),
                    Part::Named(name) => caps.name(name).map_or(0, |m| m.len()),
                };
                one.saturating_mul(*n)
            })
            .fold(0usize, usize::saturating_add)
    }

    fn expand(&self, caps: &Captures) -> String {
        let mut s = String::new();
        for (part, n) in &self.replacement {
            let one = match part {
                Part::Literal(t) => t.as_str(),
                Part::Group(g) => caps.get(*g).map_or("", |m| m.as_str()),
                Part::Named(name) => caps.name(name).map_or("", |m| m.as_str()),
            };
            if !one.is_empty() {
                for _ in 0..*n {
                    s.push_str(one);
                }
            }
        }
        s
    }
}

/// `parts` with adjacent literals joined and runs of equal parts counted.
fn runs(parts: Vec<Part>) -> Vec<(Part, usize)> {
    let mut out: Vec<(Part, usize)> = Vec::new();
    for part in parts {
        match (out.last_mut(), part) {
            (Some((Part::Literal(prev), 1)), Part::Literal(t)) => prev.push_str(&t),
            (Some((prev, n)), part) if *prev == part => *n += 1,
            (_, part) => out.push((part, 1)),
        }
    }
    out
}

/// Replacements collected so far, and the length they make the text.
struct Found {
    list: Vec<Splice>,
    len: u64,
    max: u64,
}

impl Found {
    /// `Err` (the length it would make) when replacing `start..end` by `new_len` bytes makes
    /// the text longer than the bound.
    fn check(&self, start: usize, end: usize, new_len: usize) -> Result<u64, u64> {
        let len = (self.len + new_len as u64).saturating_sub((end - start) as u64);
        if len > self.max { Err(len) } else { Ok(len) }
    }

    fn push(&mut self, start: usize, end: usize, new: String) -> Result<(), u64> {
        self.len = self.check(start, end, new.len())?;
        self.list.push(Splice::new(start, end, new));
        Ok(())
    }
}

/// The parts of `s<d>pattern<d>replacement<d>flags` (the pattern with `\<d>` made the
/// delimiter, escaped for the regex unless `literal`), with where the replacement and the
/// flags start (char indices).
struct Fields {
    pattern: String,
    replacement: String,
    replacement_start: usize,
    flags: String,
    flags_start: usize,
}

/// Splits an expression (its `chars`, after a checked leading `s`) at its delimiter.
fn split_fields(
    expression: &str,
    chars: &[(usize, char)],
    literal: bool,
) -> Result<Fields, FkError> {
    let err = |at: usize, what: &str, hint: &str| malformed(expression, at, what, hint);
    let Some(&(_, delim)) = chars.get(1) else {
        return Err(err(
            1,
            "no delimiter after `s`",
            "write it as s/pattern/replacement/flags",
        ));
    };
    if delim == '\\' || delim == '\n' || delim.is_alphanumeric() {
        return Err(err(
            1,
            &format!("{delim:?} cannot be the delimiter"),
            "use a punctuation character such as /, |, # or :",
        ));
    }
    // Split at unescaped delimiters; `\<d>` becomes the delimiter itself (escaped for the
    // regex when it is a regex operator), other escapes are kept for the next stage.
    let mut fields: Vec<String> = vec![String::new()];
    let mut field_starts = vec![2usize];
    let mut i = 2;
    while i < chars.len() && fields.len() < 3 {
        let c = chars[i].1;
        if c == '\\' && i + 1 < chars.len() {
            let next = chars[i + 1].1;
            let in_pattern = fields.len() == 1;
            let field = fields.last_mut().expect("one field");
            if next == delim {
                if in_pattern && !literal {
                    field.push_str(&regex::escape(&delim.to_string()));
                } else {
                    field.push(delim);
                }
            } else {
                field.push('\\');
                field.push(next);
            }
            i += 2;
            continue;
        }
        if c == delim {
            fields.push(String::new());
            field_starts.push(i + 1);
        } else {
            fields.last_mut().expect("one field").push(c);
        }
        i += 1;
    }
    if fields.len() < 3 {
        let what = if fields.len() == 1 {
            "the pattern"
        } else {
            "the replacement"
        };
        return Err(err(
            chars.len(),
            &format!("unterminated expression: {what} has no closing `{delim}`"),
            &format!(
                "end it with `{delim}` (s{delim}pattern{delim}replacement{delim}), and write a `{delim}` inside as \\{delim}"
            ),
        ));
    }
    // Everything after the third delimiter is flags.
    let flags: String = chars[i.min(chars.len())..].iter().map(|(_, c)| c).collect();
    fields.pop();
    let replacement = fields.pop().expect("replacement");
    let pattern = fields.pop().expect("pattern");
    Ok(Fields {
        pattern,
        replacement,
        replacement_start: field_starts[1],
        flags,
        flags_start: field_starts[2],
    })
}

/// The flags of an expression.
struct Flags {
    global: bool,
    ignore_case: bool,
    /// `m` (or `s`): the pattern matches across lines.
    whole_text: bool,
    dot_all: bool,
    /// `N`: the N-th match of each line is replaced.
    occurrence: Option<usize>,
}

/// Parses the flags `flags_text`, which start at char `flags_start` of `expression`.
fn parse_flags(expression: &str, flags_text: &str, flags_start: usize) -> Result<Flags, FkError> {
    let err = |at: usize, what: &str, hint: &str| malformed(expression, at, what, hint);
    let (mut global, mut ignore_case, mut whole_text, mut dot_all) = (false, false, false, false);
    let mut occurrence: Option<usize> = None;
    let flag_chars: Vec<char> = flags_text.chars().collect();
    let mut k = 0;
    while k < flag_chars.len() {
        let at = flags_start + k;
        let c = flag_chars[k];
        match c {
            'g' if !global => global = true,
            'i' | 'I' if !ignore_case => ignore_case = true,
            'm' if !whole_text => whole_text = true,
            's' if !dot_all => {
                dot_all = true;
                whole_text = true;
            }
            '0'..='9' if occurrence.is_none() => {
                let digits: String = flag_chars[k..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let n: usize = digits.parse().unwrap_or(0);
                if n == 0 {
                    return Err(err(
                        at,
                        "the occurrence number must be 1 or more",
                        "N replaces the N-th match of each line: use 1, 2, ...",
                    ));
                }
                occurrence = Some(n);
                k += digits.chars().count();
                continue;
            }
            'g' | 'i' | 'I' | 'm' | 's' | '0'..='9' => {
                return Err(err(
                    at,
                    &format!("flag `{c}` is given twice"),
                    "give each flag once",
                ));
            }
            _ => {
                return Err(err(
                    at,
                    &format!("unknown flag `{c}`"),
                    "flags are g (every match), i (ignore case), a number N (the N-th match), m (match across lines), s (m, and `.` matches a line break)",
                ));
            }
        }
        k += 1;
    }
    Ok(Flags {
        global,
        ignore_case,
        whole_text,
        dot_all,
        occurrence,
    })
}

fn malformed(expression: &str, at: usize, what: &str, hint: &str) -> FkError {
    // `at` is a char index; the caret line needs the width of what precedes it.
    let col = expression.chars().take(at).count();
    FkError::new(
        ErrorCode::InvalidArgument,
        format!(
            "malformed sed expression at character {}: {what}\n  {expression}\n  {}^",
            at + 1,
            " ".repeat(col)
        ),
    )
    .with_hint(hint.to_string())
    .with_details(serde_json::json!({"expression": expression, "position": at + 1}))
}

fn unescape_literal(text: &str) -> String {
    text.replace("\\\\", "\\")
}

/// A problem in a replacement: (char index in the replacement, what, hint).
type ReplacementError = (usize, String, String);

/// Refuses a reference to group `g` when the pattern has only `groups`.
fn check_group(at: usize, g: usize, written: &str, groups: usize) -> Result<(), ReplacementError> {
    if g > groups {
        return Err((
            at,
            format!(
                "{written} refers to group {g}, but the pattern has {groups} group{}",
                if groups == 1 { "" } else { "s" }
            ),
            "number groups from 1 in the order of their opening parentheses, or use & for the whole match".to_string(),
        ));
    }
    Ok(())
}

/// The replacement's parts, with group references checked against `regex`.
fn parse_replacement(text: &str, regex: &Regex) -> Result<Vec<Part>, ReplacementError> {
    let groups = regex.captures_len() - 1;
    let names: Vec<&str> = regex.capture_names().flatten().collect();
    let chars: Vec<char> = text.chars().collect();
    let mut parts: Vec<Part> = Vec::new();
    let mut lit = String::new();
    let flush = |lit: &mut String, parts: &mut Vec<Part>| {
        if !lit.is_empty() {
            parts.push(Part::Literal(std::mem::take(lit)));
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                match n {
                    'n' => lit.push('\n'),
                    't' => lit.push('\t'),
                    'r' => lit.push('\r'),
                    '1'..='9' => {
                        let g = n as usize - '0' as usize;
                        check_group(i, g, &format!("\\{n}"), groups)?;
                        flush(&mut lit, &mut parts);
                        parts.push(Part::Group(g));
                    }
                    // `\&`, `\\`, `\$` and any other escaped character stand for themselves.
                    other => lit.push(other),
                }
                i += 2;
            }
            '&' => {
                flush(&mut lit, &mut parts);
                parts.push(Part::Group(0));
                i += 1;
            }
            '$' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                if n == '$' {
                    lit.push('$');
                    i += 2;
                } else if n == '{' {
                    let Some(close) = chars[i + 2..].iter().position(|&c| c == '}') else {
                        return Err((
                            i,
                            "`${` has no closing `}`".to_string(),
                            "write a group reference as ${1} or ${name}, or a literal $ as $$"
                                .to_string(),
                        ));
                    };
                    let name: String = chars[i + 2..i + 2 + close].iter().collect();
                    flush(&mut lit, &mut parts);
                    parts.push(group_by_name(i, &name, groups, &names)?);
                    i += close + 3;
                } else if n.is_ascii_digit() || n.is_alphabetic() || n == '_' {
                    let word: String = chars[i + 1..]
                        .iter()
                        .take_while(|c| c.is_alphanumeric() || **c == '_')
                        .collect();
                    let digits = word.chars().take_while(char::is_ascii_digit).count();
                    if digits > 0 && digits < word.chars().count() {
                        return Err((
                            i,
                            format!(
                                "${word} is ambiguous: group {} followed by text, or a group named {word}?",
                                &word[..digits]
                            ),
                            format!(
                                "write ${{{}}}{} for the group followed by text",
                                &word[..digits],
                                &word[digits..]
                            ),
                        ));
                    }
                    flush(&mut lit, &mut parts);
                    parts.push(group_by_name(i, &word, groups, &names)?);
                    i += 1 + word.chars().count();
                } else {
                    lit.push('$');
                    i += 1;
                }
            }
            _ => {
                lit.push(c);
                i += 1;
            }
        }
    }
    flush(&mut lit, &mut parts);
    Ok(parts)
}

fn group_by_name(
    at: usize,
    name: &str,
    groups: usize,
    names: &[&str],
) -> Result<Part, ReplacementError> {
    if let Ok(g) = name.parse::<usize>() {
        check_group(at, g, &format!("${name}"), groups)?;
        return Ok(Part::Group(g));
    }
    if names.contains(&name) {
        return Ok(Part::Named(name.to_string()));
    }
    let known = if names.is_empty() {
        "the pattern has no named groups".to_string()
    } else {
        format!("its named groups are {}", names.join(", "))
    };
    Err((
        at,
        format!("${name} names no group of the pattern ({known}; it has {groups} numbered)"),
        "name a group with (?<name>...) in the pattern, or write a literal $ as $$".to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(expr: &str, text: &str) -> String {
        Substitution::parse(expr, false)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .apply(text)
            .unwrap()
    }

    fn fails(expr: &str) -> FkError {
        Substitution::parse(expr, false).expect_err(expr)
    }

    #[test]
    fn delimiters_and_escaped_delimiters() {
        assert_eq!(run("s|/usr|/opt|", "/usr/bin\n"), "/opt/bin\n");
        assert_eq!(run("s/a\\/b/X/", "a/b\n"), "X\n");
        assert_eq!(run("s|a\\|b|X|", "a|b ab\n"), "X ab\n");
        assert_eq!(run("s,x,\\,,g", "x.x\n"), ",.,\n");
    }

    #[test]
    fn line_by_line_by_default() {
        assert_eq!(run("s/a/b/", "aa\naa\n"), "ba\nba\n");
        assert_eq!(run("s/a/b/g", "aa\naa\n"), "bb\nbb\n");
        assert_eq!(run("s/^/> /", "x\ny\n"), "> x\n> y\n");
        assert_eq!(run("s/$/;/", "x\r\ny\r\n"), "x;\r\ny;\r\n");
        assert_eq!(run("s/a.b/X/", "a\nb\n"), "a\nb\n");
        assert_eq!(run("s/2/X/2", "1212\n2222\n"), "121X\n2X22\n");
        assert_eq!(run("s/2/X/2g", "2222\n"), "2XXX\n");
        assert_eq!(run("s/x*/-/g", "abc\n"), "-a-b-c-\n");
        assert_eq!(run("s/b*/-/g", "abc\n"), "-a-c-\n");
    }

    #[test]
    fn anchors_to_the_text_mean_each_line_in_line_mode() {
        assert_eq!(run("s/\\Afoo/bar/", "x\nfoo\n"), "x\nbar\n");
        assert_eq!(run("s/o\\z/0/", "foo\nboo\n"), "fo0\nbo0\n");
        let s = Substitution::parse("s/\\Afoo/bar/", false).unwrap();
        assert!(s.matches("x\nfoo\n"));
    }

    #[test]
    fn whole_text_modes() {
        assert_eq!(run("s/a\\nb/X/m", "a\nb\n"), "X\n");
        assert_eq!(run("s/a.b/X/s", "a\nb\n"), "X\n");
        assert_eq!(run("s/^b/X/m", "a\nb\n"), "a\nX\n");
        assert_eq!(run("s/a/X/m", "a\na\n"), "X\na\n");
    }

    #[test]
    fn replacement_references() {
        assert_eq!(
            run("s/(\\w+) (\\w+)/\\2 \\1/", "hello world\n"),
            "world hello\n"
        );
        assert_eq!(
            run("s/(\\w+) (\\w+)/$2 ${1}!/", "hello world\n"),
            "world hello!\n"
        );
        assert_eq!(run("s/(?<w>\\w+)/[${w}]/g", "a b\n"), "[a] [b]\n");
        assert_eq!(run("s/(?<w>\\w+)/<$w>/", "a b\n"), "<a> b\n");
        assert_eq!(run("s/o/[&]/g", "foo\n"), "f[o][o]\n");
        assert_eq!(run("s/o/\\&/", "foo\n"), "f&o\n");
        assert_eq!(run("s/o/$$1/", "foo\n"), "f$1o\n");
        assert_eq!(run("s/,/\\n/g", "a,b\n"), "a\nb\n");
        assert_eq!(run("s/,/\\t/", "a,b\n"), "a\tb\n");
        assert_eq!(run("s/a/\\\\/", "a\n"), "\\\n");
        assert_eq!(run("s/a/\\./", "a\n"), ".\n");
        assert_eq!(run("s/A/b/i", "a A\n"), "b A\n");
        assert_eq!(run("s/A/b/Ig", "a A\n"), "b b\n");
    }

    #[test]
    fn literal_mode_takes_text_as_written() {
        let s = Substitution::parse("s/a.b(/$1&\\\\/g", true).unwrap();
        let found: Vec<(usize, usize, String)> = s
            .splices("a.b( axb(\n")
            .unwrap()
            .into_iter()
            .map(|s| (s.start, s.end, s.text))
            .collect();
        assert_eq!(found, vec![(0, 4, "$1&\\".to_string())]);
    }

    /// A literal `g` substitution is found by one search of the whole text; whatever the
    /// flags, the result is sed's line by line one, which this test works out with `str`'s
    /// own replace on each line (its line break and a CRLF's `\r` left out).
    #[test]
    fn literal_mode_replaces_what_each_line_would() {
        fn by_lines(text: &str, pat: &str, rep: &str, global: bool) -> String {
            let mut out = String::new();
            for line in text.split_inclusive('\n') {
                let body = line.strip_suffix('\n').unwrap_or(line);
                let body = body.strip_suffix('\r').unwrap_or(body);
                out.push_str(&match global {
                    true => body.replace(pat, rep),
                    false => body.replacen(pat, rep, 1),
                });
                out.push_str(&line[body.len()..]);
            }
            out
        }
        let texts = [
            "self.a = self.b;\nx\r\nself.self.\r\n\nno\nself.",
            "aaaa\naa\r\na",
            "a.b( a.b(\r\na.b(\n",
            "",
            "\r\n\r\n",
        ];
        for text in texts {
            for (pat, rep) in [("self.", "this."), ("aa", "a"), ("a", ""), ("a.b(", "[x]")] {
                for global in [true, false] {
                    let expr = format!("s/{pat}/{rep}/{}", if global { "g" } else { "" });
                    let got = Substitution::parse(&expr, true)
                        .unwrap()
                        .apply(text)
                        .unwrap();
                    assert_eq!(got, by_lines(text, pat, rep, global), "{expr} on {text:?}");
                }
            }
        }
        // A line break or `\r` in the pattern keeps the search line by line: no match.
        let s = Substitution::parse("s/a\r/X/g", true).unwrap();
        assert_eq!(s.apply("a\r\na\rb\n").unwrap(), "a\r\nXb\n");
        // Text that would be an anchor or a flag group in a regex is only text here.
        for pat in ["\\A", "(?-m)"] {
            for flags in ["", "2", "g"] {
                let text = format!("x{pat}{pat}\n{pat}\r\nno\n");
                let got = Substitution::parse(&format!("s/{pat}/Y/{flags}"), true).unwrap();
                let want = match flags {
                    "" => "xY{pat}\nY\r\nno\n".replace("{pat}", pat),
                    "2" => format!("x{pat}Y\n{pat}\r\nno\n"),
                    _ => "xYY\nY\r\nno\n".to_string(),
                };
                assert_eq!(got.apply(&text).unwrap(), want, "{pat} {flags}");
                assert!(got.matches(&text) && !got.matches("A (m)\n"));
            }
        }
    }

    #[test]
    fn malformed_expressions_point_at_the_character() {
        let e = fails("s/a/b");
        assert!(e.message.contains("unterminated"), "{e}");
        assert!(
            e.message.contains("the replacement has no closing `/`"),
            "{e}"
        );
        assert_eq!(e.details["position"], 6);
        let e = fails("s/a");
        assert!(e.message.contains("the pattern has no closing"), "{e}");
        let e = fails("s/a/b/q");
        assert!(e.message.contains("unknown flag `q`"), "{e}");
        assert_eq!(e.details["position"], 7);
        assert!(e.message.ends_with("\n  s/a/b/q\n        ^"), "{e}");
        let e = fails("s/(a)(b)/$9/");
        assert!(
            e.message
                .contains("refers to group 9, but the pattern has 2 groups"),
            "{e}"
        );
        assert_eq!(e.details["position"], 10);
        let e = fails("s/(a)/\\3/");
        assert!(e.message.contains("group 3"), "{e}");
        let e = fails("s/(a)/$1abc/");
        assert!(e.message.contains("ambiguous"), "{e}");
        assert!(e.hint.as_deref().unwrap().contains("${1}abc"), "{e}");
        let e = fails("s/a/${x/");
        assert!(e.message.contains("no closing `}`"), "{e}");
        let e = fails("s/a/$nope/");
        assert!(e.message.contains("names no group"), "{e}");
        let e = fails("s/a/b/gg");
        assert!(e.message.contains("twice"), "{e}");
        let e = fails("s/a/b/0");
        assert!(e.message.contains("1 or more"), "{e}");
        let e = fails("y/a/b/");
        assert!(e.message.contains("starts with `s`"), "{e}");
        let e = fails("sabc");
        assert!(e.message.contains("cannot be the delimiter"), "{e}");
        let e = fails("s//x/");
        assert!(e.message.contains("pattern is empty"), "{e}");
        let e = fails("s/(a/x/");
        assert!(e.message.contains("invalid regex"), "{e}");
        assert!(e.message.contains("unclosed group"), "{e}");
    }
}
