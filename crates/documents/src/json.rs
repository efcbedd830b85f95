//! JSON and JSONC by RFC 9535 JSONPath: `serde_json_path` evaluates the query on the
//! document's value and gives each match's normalized path; the path is then walked through
//! `jsonc-parser`'s syntax tree to find the match's exact bytes. Edits splice those bytes, so
//! comments and formatting elsewhere are kept.

use filekit_errors::{ErrorCode, FkError, Limit};
use filekit_semantic::ops::{Position, Splice, line_start};
use filekit_semantic::style::{indent_at, reindent};
use filekit_semantic::{Found, suggest};
use jsonc_parser::ast::{ObjectPropName, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
use serde_json::{Value, json};
use serde_json_path::{JsonPath, PathElement};
use std::ops::Range;

/// A parsed JSON/JSONC document.
pub struct JsonDoc<'t> {
    text: &'t str,
    ast: Ast<'t>,
    value: Value,
}

/// One JSONPath match with what edits need besides its value's bytes.
#[derive(Debug, Clone)]
pub struct Match {
    pub found: Found,
    /// The member holding the value: `"key": value` in an object, the element in an array;
    /// `None` for the root.
    pub member: Option<Range<usize>>,
    /// The members before and after it in its container, for commas on delete.
    prev: Option<Range<usize>>,
    next: Option<Range<usize>>,
    /// For an object or array value: its members, with their keys (objects) for `sorted`.
    children: Vec<(String, Range<usize>)>,
}

/// The parse error of a JSON text, with line and column.
pub fn check(text: &str) -> Option<FkError> {
    parse_ast(text).err()
}

fn parse_ast(text: &str) -> Result<Ast<'_>, FkError> {
    let parsed = jsonc_parser::parse_to_ast(
        text,
        &CollectOptions {
            comments: CommentCollectionStrategy::Off,
            tokens: false,
        },
        &ParseOptions::default(),
    )
    .map_err(|e| parse_error(text, &e))?;
    parsed.value.ok_or_else(|| {
        FkError::new(ErrorCode::ParseError, "the file holds no JSON value")
            .with_hint("write the whole file instead")
    })
}

/// The deepest JSON `jsonc-parser` reads (its own bound, which keeps its recursive parser
/// and our recursive walks of its tree and value within any thread's stack).
pub const MAX_JSON_DEPTH: usize = 512;

fn parse_error(text: &str, e: &jsonc_parser::errors::ParseError) -> FkError {
    if matches!(
        e.kind(),
        jsonc_parser::errors::ParseErrorKind::NestingDepthExceeded
    ) {
        let found = nesting(text);
        return FkError::too_large(
            Limit::Nesting,
            found as u64,
            MAX_JSON_DEPTH as u64,
            format!(
                "this JSON file nests {found} levels deep (past the bound at line {}); \
semantic targeting reads JSON at most {MAX_JSON_DEPTH} levels deep",
                e.line_display()
            ),
        )
        .with_hint("read and edit this file by line range (read_files / edit_files), or grep it");
    }
    FkError::new(
        ErrorCode::ParseError,
        format!("the JSON does not parse: {e}"),
    )
    .with_hint("fix it by line range (read_files / edit_files), then target it by path")
}

/// How deep the arrays and objects of a JSON(C) text nest (brackets outside strings and
/// comments), for the error of a text past [`MAX_JSON_DEPTH`].
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for d in chars.by_ref() {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
            }
            '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn kind_of(v: &Ast) -> &'static str {
    match v {
        Ast::Object(_) => "object",
        Ast::Array(_) => "array",
        Ast::StringLit(_) => "string",
        Ast::NumberLit(_) => "number",
        Ast::BooleanLit(_) => "boolean",
        Ast::NullKeyword(_) => "null",
    }
}

fn range_of(r: jsonc_parser::common::Range) -> Range<usize> {
    r.start..r.end
}

/// `$.a.b[0]` where keys are plain identifiers, `$['a b']` otherwise (shared by the YAML
/// layer, whose paths are the same JSONPaths).
pub(crate) fn display_path(elements: &[String]) -> String {
    let mut s = String::from("$");
    for e in elements {
        if let Some(i) = e.strip_prefix('#') {
            s.push_str(&format!("[{i}]"));
        } else if !e.is_empty()
            && e.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !e.starts_with(|c: char| c.is_ascii_digit())
        {
            s.push('.');
            s.push_str(e);
        } else {
            s.push_str(&format!(
                "['{}']",
                e.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    s
}

impl<'t> JsonDoc<'t> {
    pub fn parse(text: &'t str) -> Result<JsonDoc<'t>, FkError> {
        let ast = parse_ast(text)?;
        let value = jsonc_parser::parse_to_serde_value::<Value>(text, &ParseOptions::default())
            .map_err(|e| parse_error(text, &e))?;
        Ok(JsonDoc { text, ast, value })
    }

    /// Every match of `path`, in the query's order (bounded: [`filekit_semantic::bounds::check_targets`]).
    pub fn query(&self, path: &str) -> Result<Vec<Match>, FkError> {
        self.query_with(path, true)
    }

    /// The outline: keys (or items) of the first two levels.
    pub fn outline(&self) -> Result<Vec<Found>, FkError> {
        let mut v: Vec<Found> = self
            .query_with("$.*", false)?
            .into_iter()
            .map(|m| m.found)
            .collect();
        let inner: Vec<Found> = self
            .query_with("$.*.*", false)
            .map(|m| m.into_iter().map(|m| m.found).collect())
            .unwrap_or_default();
        v.extend(inner);
        v.sort_by_key(|f| f.range.start);
        for f in &mut v {
            f.depth -= 1;
        }
        Ok(v)
    }

    /// [`JsonDoc::query`], bounded in matches or not (an outline's paths are two levels).
    fn query_with(&self, path: &str, bounded: bool) -> Result<Vec<Match>, FkError> {
        let parsed = parse_path(path)?;
        let located = located(&parsed, &self.value, path, bounded)?;
        let mut out = Vec::new();
        for node in located.iter() {
            let elements: Vec<String> = node
                .location()
                .iter()
                .map(|e| match e {
                    PathElement::Name(n) => n.to_string(),
                    PathElement::Index(i) => format!("#{i}"),
                })
                .collect();
            out.push(self.walk(&elements, normalized(node.location()))?);
        }
        if out.is_empty() {
            let mut all = Vec::new();
            self.paths(&self.ast, &mut Vec::new(), &mut all);
            return Err(suggest::not_found(
                "path",
                path,
                &all,
                "paths start with $; keys with dots or spaces go in brackets: $['a.b']",
            ));
        }
        Ok(out)
    }

    /// Every path of the document (bounded), for suggestions.
    fn paths(&self, v: &Ast, prefix: &mut Vec<String>, out: &mut Vec<Found>) {
        const MAX: usize = 5000;
        if out.len() >= MAX {
            return;
        }
        let push = |key: String, child: &Ast, prefix: &mut Vec<String>, out: &mut Vec<Found>| {
            prefix.push(key.clone());
            out.push(Found {
                kind: kind_of(child).into(),
                path: display_path(prefix),
                name: key,
                range: 0..0,
                body: None,
                signature: None,
                depth: prefix.len(),
            });
            self.paths(child, prefix, out);
            prefix.pop();
        };
        match v {
            Ast::Object(o) => {
                for p in &o.properties {
                    push(p.name.clone().into_string(), &p.value, prefix, out);
                }
            }
            Ast::Array(a) => {
                for (i, e) in a.elements.iter().enumerate().take(3) {
                    push(format!("#{i}"), e, prefix, out);
                }
            }
            _ => {}
        }
    }

    fn walk(&self, elements: &[String], normalized: String) -> Result<Match, FkError> {
        let mut v = &self.ast;
        let (mut member, mut prev, mut next) = (None, None, None);
        for e in elements {
            let lost = || {
                FkError::new(
                    ErrorCode::Io,
                    format!("JSONPath match {normalized} is not in the syntax tree"),
                )
            };
            match (v, e.strip_prefix('#')) {
                (Ast::Array(a), Some(i)) => {
                    let i: usize = i.parse().map_err(|_| lost())?;
                    let el = a.elements.get(i).ok_or_else(lost)?;
                    member = Some(range_of(el.range()));
                    prev = i
                        .checked_sub(1)
                        .and_then(|j| a.elements.get(j))
                        .map(|p| range_of(p.range()));
                    next = a.elements.get(i + 1).map(|n| range_of(n.range()));
                    v = el;
                }
                (Ast::Object(o), _) => {
                    // The value of a duplicated key is its last one, as serde_json reads it.
                    let i = o
                        .properties
                        .iter()
                        .rposition(|p| p.name.as_str() == e.as_str())
                        .ok_or_else(lost)?;
                    let p = &o.properties[i];
                    member = Some(range_of(p.range));
                    prev = i.checked_sub(1).map(|j| range_of(o.properties[j].range));
                    next = o.properties.get(i + 1).map(|n| range_of(n.range));
                    v = &p.value;
                }
                _ => return Err(lost()),
            }
        }
        let range = range_of(v.range());
        let children = match v {
            Ast::Object(o) => o
                .properties
                .iter()
                .map(|p| (prop_name(&p.name), range_of(p.range)))
                .collect(),
            Ast::Array(a) => a
                .elements
                .iter()
                .map(|e| {
                    let r = range_of(e.range());
                    (self.text[r.clone()].to_string(), r)
                })
                .collect(),
            _ => Vec::new(),
        };
        let body = matches!(v, Ast::Object(_) | Ast::Array(_)).then(|| range.clone());
        Ok(Match {
            found: Found {
                kind: kind_of(v).into(),
                path: normalized,
                name: elements.last().cloned().unwrap_or_else(|| "$".into()),
                range,
                body,
                signature: None,
                depth: elements.len(),
            },
            member,
            prev,
            next,
            children,
        })
    }

    /// The replacement an operation makes at a match. JSON has no bodies or wrappers, so
    /// `replace_body` and `wrap` are refused; members get their commas.
    pub fn plan(
        &self,
        m: &Match,
        op: &filekit_semantic::ops::Operation,
        content: &str,
        unit: &str,
    ) -> Result<Splice, FkError> {
        use filekit_semantic::ops::Operation as Op;
        let text = self.text;
        let r = &m.found.range;
        let root_refused = |what: &str| {
            FkError::invalid(format!(
                "{what} needs a member of an object or array, not the root $"
            ))
            .with_hint("target a key or element (e.g. $.name), or insert_into $")
        };
        Ok(match op {
            Op::Replace => Splice::new(
                r.start,
                r.end,
                filekit_semantic::style::reindent_in_place(
                    content,
                    indent_at(text, r.start),
                    filekit_semantic::ops::BodyStyle::Braced,
                ),
            ),
            Op::Delete => {
                let mem = m.member.clone().ok_or_else(|| root_refused("delete"))?;
                match (&m.prev, &m.next) {
                    (_, Some(n)) => Splice::new(
                        line_aware_start(text, mem.start),
                        line_aware_start(text, n.start),
                        String::new(),
                    ),
                    (Some(p), None) => Splice::new(p.end, mem.end, String::new()),
                    (None, None) => {
                        // The only member: leave an empty container.
                        let container = self.container_of(&mem);
                        Splice::new(container.start + 1, container.end - 1, String::new())
                    }
                }
            }
            Op::InsertBefore => {
                let mem = m
                    .member
                    .clone()
                    .ok_or_else(|| root_refused("insert_before"))?;
                let indent = indent_at(text, mem.start);
                Splice::new(
                    mem.start,
                    mem.start,
                    format!("{},\n{indent}", reindent(content, indent).trim_start()),
                )
            }
            Op::InsertAfter => {
                let mem = m
                    .member
                    .clone()
                    .ok_or_else(|| root_refused("insert_after"))?;
                let indent = indent_at(text, mem.start);
                Splice::new(
                    mem.end,
                    mem.end,
                    format!(",\n{}", reindent(content, indent)),
                )
            }
            Op::InsertInto(pos) => {
                if m.found.body.is_none() {
                    return Err(FkError::invalid(format!(
                        "{} is a {}: insert_into needs an object or array",
                        m.found.path, m.found.kind
                    ))
                    .with_hint("use insert_after on it, or target its parent"));
                }
                let outer = indent_at(text, r.start).to_string();
                let children = &m.children;
                let before = match pos {
                    Position::Sorted => {
                        let key = sort_key(content, m.found.kind == "object");
                        children.iter().find(|(k, _)| k.to_lowercase() > key)
                    }
                    Position::First => children.first(),
                    Position::Last => None,
                };
                if let Some((_, at)) = before {
                    let indent = indent_at(text, at.start);
                    Splice::new(
                        at.start,
                        at.start,
                        format!("{},\n{indent}", reindent(content, indent).trim_start()),
                    )
                } else if let Some((_, last)) = children.last() {
                    let indent = indent_at(text, last.start);
                    Splice::new(
                        last.end,
                        last.end,
                        format!(",\n{}", reindent(content, indent)),
                    )
                } else {
                    let inner = format!("{outer}{unit}");
                    Splice::new(
                        r.start + 1,
                        r.end - 1,
                        format!("\n{}\n{outer}", reindent(content, &inner)),
                    )
                }
            }
            Op::ReplaceBody | Op::Wrap { .. } => {
                return Err(
                    FkError::invalid(format!("{} does not apply to JSON", op.name())).with_hint(
                        "JSON edits: replace, delete, insert_before, insert_after, insert_into",
                    ),
                );
            }
        })
    }

    /// The object or array whose member spans `mem`.
    fn container_of(&self, mem: &Range<usize>) -> Range<usize> {
        fn find(v: &Ast, mem: &Range<usize>) -> Option<Range<usize>> {
            let own = range_of(v.range());
            let kids: Vec<(Range<usize>, &Ast)> = match v {
                Ast::Object(o) => o
                    .properties
                    .iter()
                    .map(|p| (range_of(p.range), &p.value))
                    .collect(),
                Ast::Array(a) => a
                    .elements
                    .iter()
                    .map(|e| (range_of(e.range()), e))
                    .collect(),
                _ => return None,
            };
            for (r, child) in kids {
                if &r == mem {
                    return Some(own);
                }
                if r.start <= mem.start && mem.end <= r.end {
                    return find(child, mem);
                }
            }
            None
        }
        find(&self.ast, mem).unwrap_or(0..self.text.len())
    }
}

/// Deleting from a member's line start keeps the next member's indentation right.
fn line_aware_start(text: &str, at: usize) -> usize {
    let ls = line_start(text, at);
    if text[ls..at].trim().is_empty() {
        ls
    } else {
        at
    }
}

fn prop_name(n: &ObjectPropName) -> String {
    n.clone().into_string()
}

/// The key of a new `"key": value` member (objects) or the element's text (arrays),
/// lower-cased, for `sorted`.
fn sort_key(content: &str, object: bool) -> String {
    let c = content.trim();
    if object {
        if let Some(rest) = c.strip_prefix('"') {
            return rest.split('"').next().unwrap_or("").to_lowercase();
        }
        return c.split(':').next().unwrap_or("").trim().to_lowercase();
    }
    c.to_lowercase()
}

/// JSON Lines: one JSON value per line, queried as the array of the lines' values (`$[0]`
/// is the first record, `$[*].name` every record's name). Blank lines are not records.
pub struct JsonlDoc<'t> {
    text: &'t str,
    /// Each record: its line's byte range in `text` and the parsed line.
    records: Vec<(Range<usize>, JsonDoc<'t>)>,
    value: Value,
}

fn shift(r: &Range<usize>, by: usize) -> Range<usize> {
    r.start + by..r.end + by
}

impl<'t> JsonlDoc<'t> {
    pub fn parse(text: &'t str) -> Result<JsonlDoc<'t>, FkError> {
        let mut records = Vec::new();
        let mut at = 0;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            let body = line.trim_end_matches(['\n', '\r']);
            if !body.trim().is_empty() {
                let doc = JsonDoc::parse(body).map_err(|e| FkError {
                    message: format!("line {}: {}", n + 1, e.message),
                    ..e
                })?;
                records.push((at..at + body.len(), doc));
            }
            at += line.len();
        }
        let value = Value::Array(records.iter().map(|(_, d)| d.value.clone()).collect());
        Ok(JsonlDoc {
            text,
            records,
            value,
        })
    }

    /// The first line that is not a JSON value, as an error.
    pub fn check(text: &str) -> Option<FkError> {
        JsonlDoc::parse(text).err()
    }

    /// Every match of `path` over the records, with ranges in the whole text (bounded:
    /// [`filekit_semantic::bounds::check_targets`]).
    pub fn query(&self, path: &str) -> Result<Vec<(usize, Match)>, FkError> {
        self.query_with(path, true)
    }

    /// The outline: one entry per record.
    pub fn outline(&self) -> Vec<Found> {
        self.query_with("$[*]", false)
            .map(|m| {
                m.into_iter()
                    .map(|(_, m)| Found {
                        depth: 0,
                        ..m.found
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn query_with(&self, path: &str, bounded: bool) -> Result<Vec<(usize, Match)>, FkError> {
        let parsed = parse_path(path)?;
        let mut out = Vec::new();
        for node in located(&parsed, &self.value, path, bounded)?.iter() {
            let elements: Vec<String> = node
                .location()
                .iter()
                .map(|e| match e {
                    PathElement::Name(n) => n.to_string(),
                    PathElement::Index(i) => format!("#{i}"),
                })
                .collect();
            let Some(i) = elements
                .first()
                .and_then(|e| e.strip_prefix('#'))
                .and_then(|i| i.parse::<usize>().ok())
            else {
                continue;
            };
            let (line, doc) = &self.records[i];
            let mut m = doc.walk(&elements[1..], normalized(node.location()))?;
            let by = line.start;
            m.found.range = shift(&m.found.range, by);
            m.found.body = m.found.body.as_ref().map(|b| shift(b, by));
            m.found.name = elements.last().cloned().unwrap_or_default();
            m.found.depth = elements.len();
            m.member = m.member.as_ref().map(|r| shift(r, by));
            m.prev = m.prev.as_ref().map(|r| shift(r, by));
            m.next = m.next.as_ref().map(|r| shift(r, by));
            m.children = m
                .children
                .iter()
                .map(|(k, r)| (k.clone(), shift(r, by)))
                .collect();
            out.push((i, m));
        }
        if out.is_empty() {
            let all: Vec<Found> = (0..self.records.len().min(20))
                .map(|i| Found {
                    kind: "record".into(),
                    path: format!("$[{i}]"),
                    name: format!("{i}"),
                    range: 0..0,
                    body: None,
                    signature: None,
                    depth: 1,
                })
                .collect();
            return Err(suggest::not_found(
                "path",
                path,
                &all,
                "records are $[0], $[1], ...; fields $[0].name, $[*].name",
            ));
        }
        Ok(out)
    }

    /// An edit at a match: a whole record (`$[3]`) is a line (replace writes one line, delete
    /// takes the line, inserts add lines); inside a record it is a JSON edit of that line.
    pub fn plan(
        &self,
        record: usize,
        m: &Match,
        op: &filekit_semantic::ops::Operation,
        content: &str,
    ) -> Result<Splice, FkError> {
        use filekit_semantic::ops::Operation as Op;
        let line = &self.records[record].0;
        let one_line = || -> Result<String, FkError> {
            let v: Value = jsonc_parser::parse_to_serde_value(content, &ParseOptions::default())
                .map_err(|e| FkError::invalid(format!("`content` is not one JSON value: {e}")))?;
            Ok(v.to_string())
        };
        if m.found.depth == 1 {
            let eol = if self.text[line.end..].starts_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            let after = (line.end + eol.len()).min(self.text.len());
            return Ok(match op {
                Op::Replace => Splice::new(line.start, line.end, one_line()?),
                Op::Delete => Splice::new(line.start, after, String::new()),
                Op::InsertBefore => {
                    Splice::new(line.start, line.start, format!("{}{eol}", one_line()?))
                }
                Op::InsertAfter if after > line.end => {
                    Splice::new(after, after, format!("{}{eol}", one_line()?))
                }
                Op::InsertAfter => Splice::new(line.end, line.end, format!("{eol}{}", one_line()?)),
                _ => self.plan_in_record(record, m, op, content)?,
            });
        }
        self.plan_in_record(record, m, op, content)
    }

    fn plan_in_record(
        &self,
        record: usize,
        m: &Match,
        op: &filekit_semantic::ops::Operation,
        content: &str,
    ) -> Result<Splice, FkError> {
        let (line, doc) = &self.records[record];
        let by = line.start;
        let back = |r: &Range<usize>| r.start - by..r.end - by;
        let local = Match {
            found: Found {
                range: back(&m.found.range),
                body: m.found.body.as_ref().map(back),
                ..m.found.clone()
            },
            member: m.member.as_ref().map(back),
            prev: m.prev.as_ref().map(back),
            next: m.next.as_ref().map(back),
            children: m
                .children
                .iter()
                .map(|(k, r)| (k.clone(), back(r)))
                .collect(),
        };
        // A record stays on one line: the new value is written compactly.
        let compact = content
            .split('\n')
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let Splice {
            start: s,
            end: e,
            text: new,
        } = doc.plan(&local, op, &compact, "")?;
        let new = new.split('\n').map(str::trim).collect::<Vec<_>>().join(" ");
        Ok(Splice::new(s + by, e + by, new))
    }
}

/// A match's normalized path as RFC 9535 section 2.7 writes it (`$['a\\'b'][0]`), with the
/// escapes that make it a valid JSONPath again (serde_json_path's `Display` leaves quotes,
/// backslashes and control characters unescaped).
pub(crate) fn normalized(location: &serde_json_path::NormalizedPath) -> String {
    let mut s = String::from("$");
    for e in location.iter() {
        match e {
            PathElement::Index(i) => s.push_str(&format!("[{i}]")),
            PathElement::Name(n) => {
                s.push_str("['");
                for c in n.chars() {
                    match c {
                        '\'' => s.push_str("\\'"),
                        '\\' => s.push_str("\\\\"),
                        '\u{8}' => s.push_str("\\b"),
                        '\u{c}' => s.push_str("\\f"),
                        '\n' => s.push_str("\\n"),
                        '\r' => s.push_str("\\r"),
                        '\t' => s.push_str("\\t"),
                        c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                        c => s.push(c),
                    }
                }
                s.push_str("']");
            }
        }
    }
    s
}

/// How deep a JSON value nests (0 for a scalar), measured without recursion.
fn value_depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// The matches of `parsed` (the text `path`) with their locations. Each location is a list as
/// long as the match is deep, so a bounded query is counted first (without locations) and
/// refused past [`filekit_semantic::bounds::check_targets`].
pub(crate) fn located<'v>(
    parsed: &JsonPath,
    value: &'v Value,
    path: &str,
    bounded: bool,
) -> Result<serde_json_path::LocatedNodeList<'v>, FkError> {
    if bounded {
        let count = parsed.query(value).len();
        let depth = value_depth(value);
        filekit_semantic::bounds::check_targets(&format!("the path '{path}'"), count, depth)?;
    }
    Ok(parsed.query_located(value))
}

pub(crate) fn parse_path(path: &str) -> Result<JsonPath, FkError> {
    filekit_semantic::bounds::check_query("JSONPath", path)?;
    JsonPath::parse(path).map_err(|e| {
        let pos = e.position();
        FkError::new(
            ErrorCode::InvalidArgument,
            format!("invalid JSONPath '{path}' at character {}: {}", pos + 1, e.message()),
        )
        .with_hint("JSONPath (RFC 9535) starts with $, e.g. $.scripts.build, $.items[0], $..name, $.deps[?@.dev]")
        .with_details(json!({"position": pos + 1}))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use filekit_semantic::ops::Operation;

    #[test]
    fn jsonl_records_are_lines() {
        let text = "{\"id\": 1, \"name\": \"a\"}\n\n{\"id\": 2, \"name\": \"b\"}\n";
        let doc = JsonlDoc::parse(text).unwrap();
        let names = doc.query("$[*].name").unwrap();
        assert_eq!(names.len(), 2);
        assert_eq!(&text[names[1].1.found.range.clone()], "\"b\"");
        let (i, m) = &doc.query("$[1]").unwrap()[0];
        assert_eq!(&text[m.found.range.clone()], "{\"id\": 2, \"name\": \"b\"}");
        let del = doc.plan(*i, m, &Operation::Delete, "").unwrap();
        assert_eq!(apply(text, &[del]), "{\"id\": 1, \"name\": \"a\"}\n\n");
        let add = doc
            .plan(*i, m, &Operation::InsertAfter, "{\n  \"id\": 3\n}")
            .unwrap();
        assert!(apply(text, &[add]).ends_with("\"b\"}\n{\"id\":3}\n"));
        let (j, n) = &names[0];
        let set = doc.plan(*j, n, &Operation::Replace, "\"z\"").unwrap();
        assert!(apply(text, &[set]).starts_with("{\"id\": 1, \"name\": \"z\"}\n"));
        let field = doc
            .plan(
                *j,
                &doc.query("$[0]").unwrap()[0].1,
                &Operation::InsertInto(Position::Last),
                "\"x\": [1,\n 2]",
            )
            .unwrap();
        let out = apply(text, &[field]);
        assert!(
            out.starts_with("{\"id\": 1, \"name\": \"a\", \"x\": [1, 2]}\n"),
            "{out}"
        );
        assert_eq!(
            JsonlDoc::check("{}\n{oops\n").unwrap().code,
            ErrorCode::ParseError
        );
    }

    const PKG: &str = "{\n  // build tools\n  \"name\": \"x\",\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"test\": \"vitest\"\n  },\n  \"tags\": [1, 2]\n}\n";

    fn edit(path: &str, op: Operation, content: &str) -> String {
        let doc = JsonDoc::parse(PKG).unwrap();
        let m = &doc.query(path).unwrap()[0];
        let s = doc.plan(m, &op, content, "  ").unwrap();
        let out = apply(PKG, &[s]);
        assert!(check(&out).is_none(), "{out}");
        out
    }

    #[test]
    fn paths_find_exact_source_ranges() {
        let doc = JsonDoc::parse(PKG).unwrap();
        let m = doc.query("$.scripts").unwrap();
        assert_eq!(
            &PKG[m[0].found.range.clone()],
            "{\n    \"build\": \"tsc\",\n    \"test\": \"vitest\"\n  }"
        );
        assert_eq!(m[0].found.path, "$['scripts']");
        let all = doc.query("$..build").unwrap();
        assert_eq!(&PKG[all[0].found.range.clone()], "\"tsc\"");
    }

    #[test]
    fn edits_keep_comments_and_commas_right() {
        assert!(
            edit("$.scripts.build", Operation::Replace, "\"tsc -b\"").contains(
                "// build tools\n  \"name\": \"x\",\n  \"scripts\": {\n    \"build\": \"tsc -b\","
            )
        );
        assert_eq!(
            edit("$.scripts.test", Operation::Delete, ""),
            PKG.replace(",\n    \"test\": \"vitest\"", "")
        );
        assert_eq!(
            edit("$.scripts.build", Operation::Delete, ""),
            PKG.replace("\"build\": \"tsc\",\n    ", "")
        );
        assert!(
            edit(
                "$.scripts",
                Operation::InsertInto(Position::Last),
                "\"lint\": \"eslint\""
            )
            .contains("\"test\": \"vitest\",\n    \"lint\": \"eslint\"\n  }")
        );
        assert!(
            edit(
                "$.scripts",
                Operation::InsertInto(Position::Sorted),
                "\"check\": \"tsc\""
            )
            .contains("\"build\": \"tsc\",\n    \"check\": \"tsc\",\n    \"test\"")
        );
        assert!(
            edit(
                "$.scripts",
                Operation::InsertInto(Position::First),
                "\"a\": \"b\""
            )
            .contains("{\n    \"a\": \"b\",\n    \"build\"")
        );
        assert!(edit("$.tags", Operation::InsertInto(Position::Last), "3").contains("[1, 2,\n"));
    }

    #[test]
    fn bad_paths_point_at_the_character_and_misses_list_keys() {
        let doc = JsonDoc::parse(PKG).unwrap();
        let err = doc.query("$.scripts[").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.message.contains("at character"), "{err:?}");
        let err = doc.query("$.script").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(err.hint.unwrap().contains("$.scripts (object)"));
        assert_eq!(
            JsonDoc::parse("{\"a\": }").err().unwrap().code,
            ErrorCode::ParseError
        );
    }
}
