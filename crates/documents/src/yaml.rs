//! YAML by RFC 9535 JSONPath. `tree-sitter-yaml` parses the text into a syntax tree with
//! exact byte ranges (and keeps going past errors, like the code parsers); this module turns
//! the tree into a JSON value (YAML 1.2 core schema: `null`/`~`, `true`/`false`, integers
//! including `0x`/`0o`, floats, strings; quoted and block scalars decoded; aliases resolved)
//! that `serde_json_path` queries, then walks each match's normalized path back through the
//! tree to its bytes. Edits splice those bytes, so comments, anchors, quoting and layout
//! elsewhere are kept.
//!
//! A file of several documents (`---`) is queried as the array of its documents (`$[0]`,
//! `$[1].name`). Not supported: merge keys (`<<: *base` is an ordinary key), complex keys
//! (a mapping as a key is named by its text), and walking *through* an alias (`$.copy.x`
//! where `copy: *base`): the error names the anchor to target instead.

use crate::json::display_path;
use filekit_errors::{ErrorCode, FkError, Limit};
use filekit_semantic::bounds::MAX_DEPTH;
use filekit_semantic::ops::{Operation, Position, Splice, after_line, line_start};
use filekit_semantic::style::{indent_at, reindent};
use filekit_semantic::{Found, suggest};
use serde_json::{Map, Number, Value};
use serde_json_path::PathElement;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// A YAML node as the queries and edits see it.
#[derive(Debug, Clone)]
struct YNode {
    /// The value's bytes (with its anchor and tag, if any).
    range: Range<usize>,
    kind: YKind,
    anchor: Option<String>,
}

#[derive(Debug, Clone)]
enum YKind {
    /// Members: key, the member's bytes (`key: value`), the value.
    Map {
        flow: bool,
        members: Vec<(String, Range<usize>, YNode)>,
    },
    /// Items: the item's bytes (`- value`, or the element of a flow sequence), the value.
    Seq {
        flow: bool,
        items: Vec<(Range<usize>, YNode)>,
    },
    Scalar(Value),
    Alias(String),
}

/// A parsed YAML file.
pub struct YamlDoc<'t> {
    text: &'t str,
    root: YNode,
    value: Value,
}

/// One JSONPath match with what edits need.
#[derive(Debug, Clone)]
pub struct Match {
    pub found: Found,
    /// The member holding the value (`key: value`, `- item`), `None` for the root.
    member: Option<Range<usize>>,
    /// Whether that member sits in a flow collection (`[a, b]`, `{a: 1}`): commas.
    flow: bool,
    /// Whether the member is a sequence item.
    item: bool,
    prev: Option<Range<usize>>,
    next: Option<Range<usize>>,
    /// For a mapping or sequence value: its members with their keys (or text).
    children: Vec<(String, Range<usize>)>,
    /// The matched value is a collection written in flow style.
    value_flow: bool,
    /// The matched value is a sequence.
    value_seq: bool,
}

/// The syntax tree, refused past [`filekit_semantic::bounds::MAX_DEPTH`] levels.
fn parse_tree(text: &str) -> Result<Tree, FkError> {
    filekit_semantic::bounds::parse(filekit_semantic::Lang::Yaml, text, None, false)
}

/// The most lines tree-sitter-yaml reads: its scanner keeps rows in 16 bits.
pub const MAX_LINES: usize = 32_767;

/// The parse error of a YAML text, with line and column.
pub fn check(text: &str) -> Option<FkError> {
    check_tree(text, None)
}

/// [`check`] of a tree already parsed (or parsed here when `None`).
fn check_tree(text: &str, tree: Option<&Tree>) -> Option<FkError> {
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    if lines > MAX_LINES {
        return Some(
            FkError::new(
                ErrorCode::ParseError,
                format!(
                    "this YAML file has {lines} lines; the YAML parser reads at most {MAX_LINES} \
(tree-sitter-yaml keeps line numbers in 16 bits)"
                ),
            )
            .with_hint("read and edit it by line range (read_files / edit_files), or grep it"),
        );
    }
    let parsed;
    let tree = match tree {
        Some(t) => t,
        None => {
            parsed = match parse_tree(text) {
                Ok(t) => t,
                Err(e) => return Some(e),
            };
            &parsed
        }
    };
    filekit_semantic::code::syntax_error_at(text, tree.root_node()).map(|e| FkError {
        message: format!("the YAML does not parse: {}", e.message),
        ..e
    })
}

/// A node's bytes without trailing white space and without the comment lines tree-sitter
/// puts at the end of a block (they belong to what follows).
fn trimmed(text: &str, r: Range<usize>) -> Range<usize> {
    let mut end = r.start + text[r.clone()].trim_end().len();
    loop {
        let ls = text[r.start..end].rfind('\n').map(|i| r.start + i + 1);
        match ls {
            Some(ls) if text[ls..end].trim_start().starts_with('#') => {
                end = r.start + text[r.start..ls].trim_end().len();
            }
            _ => return r.start..end,
        }
    }
}

struct Builder<'t> {
    text: &'t str,
}

impl<'t> Builder<'t> {
    fn t(&self, n: Node) -> &'t str {
        &self.text[n.byte_range()]
    }

    /// A `block_node` / `flow_node` (or the collection or scalar itself) as a [`YNode`].
    fn node(&self, n: Node) -> YNode {
        let mut anchor = None;
        let mut tag = None;
        let mut content = None;
        if matches!(n.kind(), "block_node" | "flow_node") {
            let mut c = n.walk();
            for ch in n.named_children(&mut c) {
                match ch.kind() {
                    "anchor" => {
                        anchor = Some(self.t(ch).trim_start_matches('&').to_string());
                    }
                    "tag" => tag = Some(self.t(ch).to_string()),
                    "comment" => {}
                    _ => content = Some(ch),
                }
            }
        } else {
            content = Some(n);
        }
        let range = trimmed(self.text, n.byte_range());
        let kind = match content {
            None => YKind::Scalar(Value::Null),
            Some(c) => self.kind(c, tag.as_deref()),
        };
        YNode {
            range,
            kind,
            anchor,
        }
    }

    fn kind(&self, c: Node, tag: Option<&str>) -> YKind {
        match c.kind() {
            "block_mapping" | "flow_mapping" => {
                let flow = c.kind() == "flow_mapping";
                let mut members = Vec::new();
                let mut cur = c.walk();
                for p in c.named_children(&mut cur) {
                    match p.kind() {
                        "block_mapping_pair" | "flow_pair" => {
                            let key = p
                                .child_by_field_name("key")
                                .map(|k| self.key(k))
                                .unwrap_or_default();
                            let range = trimmed(self.text, p.byte_range());
                            let value = match p.child_by_field_name("value") {
                                Some(v) => self.node(v),
                                // `key:` with nothing after it: null, at the member's end.
                                None => YNode {
                                    range: range.end..range.end,
                                    kind: YKind::Scalar(Value::Null),
                                    anchor: None,
                                },
                            };
                            members.push((key, range, value));
                        }
                        // `{a}`: a key with a null value.
                        "flow_node" => {
                            let range = trimmed(self.text, p.byte_range());
                            members.push((
                                self.key(p),
                                range.clone(),
                                YNode {
                                    range: range.end..range.end,
                                    kind: YKind::Scalar(Value::Null),
                                    anchor: None,
                                },
                            ));
                        }
                        _ => {}
                    }
                }
                YKind::Map { flow, members }
            }
            "block_sequence" | "flow_sequence" => {
                let flow = c.kind() == "flow_sequence";
                let mut items = Vec::new();
                let mut cur = c.walk();
                for it in c.named_children(&mut cur) {
                    match it.kind() {
                        "block_sequence_item" => {
                            let range = trimmed(self.text, it.byte_range());
                            let mut ic = it.walk();
                            let value = it
                                .named_children(&mut ic)
                                .find(|v| v.kind() != "comment")
                                .map(|v| self.node(v))
                                .unwrap_or(YNode {
                                    range: range.end..range.end,
                                    kind: YKind::Scalar(Value::Null),
                                    anchor: None,
                                });
                            items.push((range, value));
                        }
                        "flow_node" => {
                            let v = self.node(it);
                            items.push((v.range.clone(), v));
                        }
                        // `[a: 1]`: a single-pair mapping as an element.
                        "flow_pair" => {
                            let range = trimmed(self.text, it.byte_range());
                            let key = it
                                .child_by_field_name("key")
                                .map(|k| self.key(k))
                                .unwrap_or_default();
                            let value = it
                                .child_by_field_name("value")
                                .map(|v| self.node(v))
                                .unwrap_or(YNode {
                                    range: range.end..range.end,
                                    kind: YKind::Scalar(Value::Null),
                                    anchor: None,
                                });
                            items.push((
                                range.clone(),
                                YNode {
                                    range: range.clone(),
                                    kind: YKind::Map {
                                        flow: true,
                                        members: vec![(key, range, value)],
                                    },
                                    anchor: None,
                                },
                            ));
                        }
                        _ => {}
                    }
                }
                YKind::Seq { flow, items }
            }
            "alias" => YKind::Alias(self.t(c).trim_start_matches('*').to_string()),
            "block_scalar" => YKind::Scalar(Value::String(block_scalar(self.t(c)))),
            "double_quote_scalar" => YKind::Scalar(Value::String(double_quoted(self.t(c)))),
            "single_quote_scalar" => YKind::Scalar(Value::String(single_quoted(self.t(c)))),
            "plain_scalar" => {
                let raw = fold_plain(self.t(c));
                if tag.is_some_and(|t| t == "!!str") {
                    return YKind::Scalar(Value::String(raw));
                }
                let mut cur = c.walk();
                let typed = c.named_children(&mut cur).next().map(|k| k.kind());
                YKind::Scalar(match typed {
                    Some("null_scalar") => Value::Null,
                    Some("boolean_scalar") => Value::Bool(raw.eq_ignore_ascii_case("true")),
                    Some("integer_scalar") => int(&raw).unwrap_or(Value::String(raw)),
                    Some("float_scalar") => raw
                        .replace('_', "")
                        .parse::<f64>()
                        .ok()
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                        .unwrap_or(Value::String(raw)),
                    _ => Value::String(raw),
                })
            }
            _ => YKind::Scalar(Value::String(self.t(c).to_string())),
        }
    }

    /// A key's name: a scalar's string, or (complex keys) its text.
    fn key(&self, k: Node) -> String {
        match self.node(k).kind {
            YKind::Scalar(Value::String(s)) => s,
            YKind::Scalar(Value::Null) => "null".to_string(),
            YKind::Scalar(v) => v.to_string(),
            _ => self.t(k).to_string(),
        }
    }
}

fn int(raw: &str) -> Option<Value> {
    let s = raw.replace('_', "");
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let n = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(o) = body.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(Value::from(if neg { -n } else { n }))
}

/// Lines of a multi-line flow scalar folded: line breaks become spaces, blank lines newlines.
fn fold_lines(s: &str) -> String {
    let mut out = String::new();
    let mut pending_blank = 0;
    for (i, line) in s.split('\n').enumerate() {
        let l = if i == 0 { line.trim_end() } else { line.trim() };
        if l.is_empty() && i > 0 {
            pending_blank += 1;
            continue;
        }
        if i > 0 {
            if pending_blank > 0 {
                out.push_str(&"\n".repeat(pending_blank));
            } else {
                out.push(' ');
            }
        }
        pending_blank = 0;
        out.push_str(l);
    }
    out
}

fn fold_plain(s: &str) -> String {
    if s.contains('\n') {
        fold_lines(s)
    } else {
        s.to_string()
    }
}

fn single_quoted(s: &str) -> String {
    let inner = s
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .unwrap_or(s);
    fold_plain(inner).replace("''", "'")
}

fn double_quoted(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    // An escaped line break joins lines without a space.
    let inner = inner.replace("\\\r\n", "").replace("\\\n", "");
    let inner = if inner.contains('\n') {
        fold_lines(&inner)
    } else {
        inner
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |chars: &mut std::str::Chars, n: usize| {
            let h: String = chars.take(n).collect();
            u32::from_str_radix(&h, 16).ok().and_then(char::from_u32)
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') | Some('\t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('e') => out.push('\x1b'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('N') => out.push('\u{85}'),
            Some('_') => out.push('\u{a0}'),
            Some('L') => out.push('\u{2028}'),
            Some('P') => out.push('\u{2029}'),
            Some('x') => out.extend(hex(&mut chars, 2)),
            Some('u') => out.extend(hex(&mut chars, 4)),
            Some('U') => out.extend(hex(&mut chars, 8)),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A `|` or `>` scalar's value: its lines without their indentation, folded for `>`, with the
/// chomping of its header (`-` strip, `+` keep, clip by default).
fn block_scalar(s: &str) -> String {
    let (header, rest) = s.split_once('\n').unwrap_or((s, ""));
    let header = header.split('#').next().unwrap_or("").trim();
    let folded = header.starts_with('>');
    let chomp = if header.contains('-') {
        '-'
    } else if header.contains('+') {
        '+'
    } else {
        ' '
    };
    let explicit: Option<usize> = header
        .chars()
        .find(|c| c.is_ascii_digit())
        .and_then(|c| c.to_digit(10))
        .map(|d| d as usize);
    let lines: Vec<&str> = rest.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let indent = explicit.unwrap_or_else(|| {
        lines
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| l.len() - l.trim_start_matches(' ').len())
    });
    let body: Vec<&str> = lines
        .iter()
        .map(|l| if l.len() >= indent { &l[indent..] } else { "" })
        .collect();
    let mut out = String::new();
    if folded {
        let mut prev_text = false;
        for l in &body {
            if l.is_empty() {
                out.push('\n');
                prev_text = false;
            } else {
                if prev_text && !l.starts_with([' ', '\t']) {
                    out.push(' ');
                } else if prev_text {
                    out.push('\n');
                }
                out.push_str(l);
                prev_text = true;
            }
        }
    } else {
        out = body.join("\n");
    }
    let content = out.trim_end_matches('\n');
    match chomp {
        '-' => content.to_string(),
        '+' => format!("{out}\n"),
        _ if content.is_empty() => String::new(),
        _ => format!("{content}\n"),
    }
}

/// The most nodes the aliases of a YAML file may copy into its value. An alias stands for a
/// copy of what its anchor names, so ten lines of aliases of aliases ("billion laughs") stand
/// for 10^9 nodes; real files copy a few small mappings.
pub const MAX_ALIAS_NODES: usize = 200_000;

/// The most bytes of text (strings and keys) the aliases of a YAML file may copy.
pub const MAX_ALIAS_TEXT: usize = 4 << 20;

/// The JSON value of a parsed YAML file, built once with its aliases expanded: what each
/// alias copies is counted and held to [`MAX_ALIAS_NODES`] and [`MAX_ALIAS_TEXT`], and the
/// value's depth (aliases make it deeper than the file) to [`filekit_semantic::bounds::MAX_DEPTH`].
struct Expand<'a> {
    /// Anchored nodes by name, in the order they end (an alias refers to the last anchor of
    /// its name that ends before it: never one it is inside of).
    anchors: HashMap<&'a str, Vec<&'a YNode>>,
    nodes: usize,
    text: usize,
}

impl<'a> Expand<'a> {
    fn new(root: &'a YNode) -> Expand<'a> {
        let mut anchors: HashMap<&'a str, Vec<&'a YNode>> = HashMap::new();
        // Iterative: the tree's depth is bounded, but this needs no stack either way.
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if let Some(a) = &n.anchor {
                anchors.entry(a).or_default().push(n);
            }
            match &n.kind {
                YKind::Seq { items, .. } => stack.extend(items.iter().map(|(_, v)| v)),
                YKind::Map { members, .. } => stack.extend(members.iter().map(|(_, _, v)| v)),
                _ => {}
            }
        }
        for list in anchors.values_mut() {
            list.sort_by_key(|n| n.range.end);
        }
        Expand {
            anchors,
            nodes: 0,
            text: 0,
        }
    }

    /// The node alias `name` (at byte `at`) stands for.
    fn target(&self, name: &str, at: usize) -> Option<&'a YNode> {
        let list = self.anchors.get(name)?;
        let i = list.partition_point(|n| n.range.end <= at);
        i.checked_sub(1).map(|i| list[i])
    }

    /// Counts a node (with `text` bytes of key or string) that an alias copies.
    fn copy(&mut self, text: usize) -> Result<(), FkError> {
        self.nodes += 1;
        self.text += text;
        if self.nodes > MAX_ALIAS_NODES {
            return Err(FkError::too_large(
                Limit::Expansion,
                self.nodes as u64,
                MAX_ALIAS_NODES as u64,
                format!(
                    "the aliases of this YAML file copy more than {MAX_ALIAS_NODES} nodes (aliases \
of aliases multiply); filekit expands at most {MAX_ALIAS_NODES}"
                ),
            )
            .with_hint(EXPANSION_HINT));
        }
        if self.text > MAX_ALIAS_TEXT {
            return Err(FkError::too_large(
                Limit::ExpandedText,
                self.text as u64,
                MAX_ALIAS_TEXT as u64,
                format!(
                    "the aliases of this YAML file copy more than {MAX_ALIAS_TEXT} bytes of text; \
filekit expands at most {MAX_ALIAS_TEXT}"
                ),
            )
            .with_hint(EXPANSION_HINT));
        }
        Ok(())
    }

    /// The value of `n` at `depth`; `copied` when it is reached through an alias.
    fn value(&mut self, n: &'a YNode, depth: usize, copied: bool) -> Result<Value, FkError> {
        if depth > MAX_DEPTH {
            return Err(filekit_semantic::bounds::too_deep(
                "the value of this YAML file (aliases expanded)",
                depth,
                None,
            ));
        }
        // An alias of an alias: followed without recursion (each target ends before the
        // alias, so the chain ends).
        let mut n = n;
        let mut copied = copied;
        while let YKind::Alias(a) = &n.kind {
            match self.target(a, n.range.start) {
                Some(t) => {
                    n = t;
                    copied = true;
                }
                None => return Ok(Value::Null),
            }
        }
        let own_text = match &n.kind {
            YKind::Scalar(Value::String(s)) => s.len(),
            _ => 0,
        };
        if copied {
            self.copy(own_text)?;
        }
        Ok(match &n.kind {
            YKind::Scalar(v) => v.clone(),
            YKind::Alias(_) => unreachable!("followed above"),
            YKind::Seq { items, .. } => {
                let mut out = Vec::with_capacity(items.len());
                for (_, v) in items {
                    out.push(self.value(v, depth + 1, copied)?);
                }
                Value::Array(out)
            }
            YKind::Map { members, .. } => {
                let mut m = Map::new();
                for (k, _, v) in members {
                    if copied {
                        self.copy(k.len())?;
                    }
                    m.insert(k.clone(), self.value(v, depth + 1, copied)?);
                }
                Value::Object(m)
            }
        })
    }
}

const EXPANSION_HINT: &str = "read and edit this file by line range (read_files / edit_files), or target the anchored nodes themselves";

fn kind_name(n: &YNode) -> &'static str {
    match &n.kind {
        YKind::Map { .. } => "mapping",
        YKind::Seq { .. } => "sequence",
        YKind::Alias(_) => "alias",
        YKind::Scalar(Value::Null) => "null",
        YKind::Scalar(Value::Bool(_)) => "boolean",
        YKind::Scalar(Value::Number(_)) => "number",
        YKind::Scalar(_) => "string",
    }
}

impl<'t> YamlDoc<'t> {
    pub fn parse(text: &'t str) -> Result<YamlDoc<'t>, FkError> {
        let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
        let tree = if lines > MAX_LINES {
            None
        } else {
            Some(parse_tree(text)?)
        };
        if let Some(err) = check_tree(text, tree.as_ref()) {
            return Err(err.with_hint(
                "fix it by line range (read_files / edit_files), then target it by path",
            ));
        }
        let tree = tree.expect("a file past the limit is refused above");
        let b = Builder { text };
        let mut docs = Vec::new();
        let mut cur = tree.root_node().walk();
        for d in tree.root_node().named_children(&mut cur) {
            if d.kind() != "document" {
                continue;
            }
            let mut dc = d.walk();
            let content = d
                .named_children(&mut dc)
                .find(|c| matches!(c.kind(), "block_node" | "flow_node"));
            let node = match content {
                Some(c) => b.node(c),
                None => YNode {
                    range: d.end_byte()..d.end_byte(),
                    kind: YKind::Scalar(Value::Null),
                    anchor: None,
                },
            };
            docs.push((trimmed(text, d.byte_range()), node));
        }
        let root = match docs.len() {
            0 => YNode {
                range: 0..0,
                kind: YKind::Scalar(Value::Null),
                anchor: None,
            },
            1 => docs.pop().expect("one document").1,
            _ => YNode {
                range: 0..text.len(),
                kind: YKind::Seq {
                    flow: false,
                    items: docs,
                },
                anchor: None,
            },
        };
        let value = Expand::new(&root).value(&root, 0, false)?;
        Ok(YamlDoc { text, root, value })
    }

    /// Every match of `path`, in the query's order (bounded: [`filekit_semantic::bounds::check_targets`]).
    pub fn query(&self, path: &str) -> Result<Vec<Match>, FkError> {
        self.query_with(path, true)
    }

    /// [`YamlDoc::query`], bounded in matches or not (an outline's paths are two levels).
    fn query_with(&self, path: &str, bounded: bool) -> Result<Vec<Match>, FkError> {
        let parsed = crate::json::parse_path(path)?;
        let mut out = Vec::new();
        // A match reached through an alias has no bytes of its own: skipped, and the error
        // only when nothing else matched.
        let mut through_alias = None;
        for node in crate::json::located(&parsed, &self.value, path, bounded)?.iter() {
            let elements: Vec<String> = node
                .location()
                .iter()
                .map(|e| match e {
                    PathElement::Name(n) => n.to_string(),
                    PathElement::Index(i) => format!("#{i}"),
                })
                .collect();
            match self.walk(&elements, crate::json::normalized(node.location())) {
                Ok(m) => out.push(m),
                Err(e) if e.code == ErrorCode::InvalidArgument => {
                    through_alias.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if let (true, Some(e)) = (out.is_empty(), through_alias) {
            return Err(e);
        }
        if out.is_empty() {
            let mut all = Vec::new();
            paths(&self.root, &mut Vec::new(), &mut all);
            return Err(suggest::not_found(
                "path",
                path,
                &all,
                "paths start with $; keys with dots or spaces go in brackets: $['a.b']",
            ));
        }
        Ok(out)
    }

    fn walk(&self, elements: &[String], normalized: String) -> Result<Match, FkError> {
        let mut v = &self.root;
        let (mut member, mut prev, mut next) = (None, None, None);
        let (mut flow, mut item) = (false, false);
        for (depth, e) in elements.iter().enumerate() {
            let lost = || {
                FkError::new(
                    ErrorCode::Io,
                    format!("JSONPath match {normalized} is not in the syntax tree"),
                )
            };
            match (&v.kind, e.strip_prefix('#')) {
                (YKind::Seq { flow: f, items }, Some(i)) => {
                    let i: usize = i.parse().map_err(|_| lost())?;
                    let (r, el) = items.get(i).ok_or_else(lost)?;
                    member = Some(r.clone());
                    prev = i.checked_sub(1).map(|j| items[j].0.clone());
                    next = items.get(i + 1).map(|n| n.0.clone());
                    flow = *f;
                    item = true;
                    v = el;
                }
                (YKind::Map { flow: f, members }, _) => {
                    let i = members
                        .iter()
                        .rposition(|(k, _, _)| k == e)
                        .ok_or_else(lost)?;
                    let (_, r, val) = &members[i];
                    member = Some(r.clone());
                    prev = i.checked_sub(1).map(|j| members[j].1.clone());
                    next = members.get(i + 1).map(|n| n.1.clone());
                    flow = *f;
                    item = false;
                    v = val;
                }
                (YKind::Alias(a), _) => {
                    return Err(FkError::invalid(format!(
                        "{normalized} goes through the alias *{a} at {}",
                        display_path(&elements[..depth])
                    ))
                    .with_hint(format!(
                        "edit the anchored node &{a} itself, or replace the alias"
                    )));
                }
                _ => return Err(lost()),
            }
        }
        let children = match &v.kind {
            YKind::Map { members, .. } => members
                .iter()
                .map(|(k, r, _)| (k.clone(), r.clone()))
                .collect(),
            YKind::Seq { items, .. } => items
                .iter()
                .map(|(r, _)| (self.text[r.clone()].to_string(), r.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let (value_flow, value_seq) = match &v.kind {
            YKind::Map { flow, .. } => (*flow, false),
            YKind::Seq { flow, .. } => (*flow, true),
            _ => (false, false),
        };
        let body = matches!(v.kind, YKind::Map { .. } | YKind::Seq { .. }).then(|| v.range.clone());
        Ok(Match {
            found: Found {
                kind: kind_name(v).into(),
                path: normalized,
                name: elements
                    .last()
                    .map(|e| e.strip_prefix('#').unwrap_or(e).to_string())
                    .unwrap_or_else(|| "$".into()),
                range: v.range.clone(),
                body,
                signature: None,
                depth: elements.len(),
            },
            member,
            flow,
            item,
            prev,
            next,
            children,
            value_flow,
            value_seq,
        })
    }

    /// Whether the document is a mapping or a sequence: what a JSONPath can walk into. Any
    /// line of prose parses as a YAML string, so a string alone says nothing of the file.
    pub fn is_collection(&self) -> bool {
        matches!(self.root.kind, YKind::Map { .. } | YKind::Seq { .. })
    }

    /// The outline: keys of the first two levels (documents and their keys, for a stream).
    pub fn outline(&self) -> Vec<Found> {
        let mut v: Vec<Found> = self
            .query_with("$.*", false)
            .map(|m| m.into_iter().map(|m| m.found).collect())
            .unwrap_or_default();
        v.extend(
            self.query_with("$.*.*", false)
                .map(|m| m.into_iter().map(|m| m.found).collect::<Vec<_>>())
                .unwrap_or_default(),
        );
        v.sort_by_key(|f| f.range.start);
        for f in &mut v {
            f.depth -= 1;
        }
        v
    }

    /// The replacement an operation makes at a match. Block members are whole lines (new
    /// ones take the indentation of their siblings, sequence items get their `- `); members
    /// of flow collections get their commas.
    // Over 200 lines: one arm per edit operation (replace, delete, insert before/after/into,
    // replace body, wrap), each the YAML text that operation makes at the match with the closures
    // they share (the lead, an item's text); `insert_into`, the longest, is the first to move out.
    pub fn plan(
        &self,
        m: &Match,
        op: &Operation,
        content: &str,
        unit: &str,
    ) -> Result<Splice, FkError> {
        let text = self.text;
        let r = &m.found.range;
        let root_refused = |what: &str| {
            FkError::invalid(format!(
                "{what} needs a member of a mapping or sequence, not the root $"
            ))
            .with_hint("target a key or item (e.g. $.name), or insert_into $")
        };
        let item_text = |c: &str, is_item: bool| -> String {
            let c = c.trim_matches(['\n', '\r']);
            if is_item && !c.trim_start().starts_with('-') {
                format!("- {}", reindent(c, "  ").trim_start())
            } else {
                c.to_string()
            }
        };
        Ok(match op {
            Operation::Replace => {
                if r.is_empty() {
                    // `key:` with no value yet.
                    let c = content.trim();
                    if c.is_empty() {
                        Splice::new(r.start, r.end, String::new())
                    } else if c.contains('\n') {
                        let member = m.member.clone().unwrap_or(r.clone());
                        let inner = format!("{}{unit}", indent_at(text, member.start));
                        Splice::new(r.start, r.end, format!("\n{}", reindent(content, &inner)))
                    } else {
                        Splice::new(r.start, r.end, format!(" {c}"))
                    }
                } else {
                    let c = content.trim_matches(['\n', '\r']);
                    let inline = m.member.as_ref().is_some_and(|mem| {
                        line_start(text, mem.start) == line_start(text, r.start)
                            && mem.start != r.start
                    });
                    // A mapping or sequence (not a multi-line scalar).
                    let head = c.trim_start().lines().next().unwrap_or("");
                    let block_content = c.contains('\n')
                        && !head.starts_with(['[', '{', '|', '>', '"', '\''])
                        && (head.starts_with("- ")
                            || head.contains(": ")
                            || head
                                .split(" #")
                                .next()
                                .unwrap_or("")
                                .trim_end()
                                .ends_with(':'));
                    if inline && block_content && !m.flow && !m.item {
                        // A scalar after `key:` becomes a block under it.
                        let member = m.member.clone().unwrap_or(r.clone());
                        let inner = format!("{}{unit}", indent_at(text, member.start));
                        let start = text[..r.start].trim_end_matches([' ', '\t']).len();
                        Splice::new(start, r.end, format!("\n{}", reindent(c, &inner)))
                    } else {
                        let lead = &text[line_start(text, r.start)..r.start];
                        let indent = if lead.trim().is_empty() {
                            lead.to_string()
                        } else {
                            // `- value`: later lines line up with the value.
                            " ".repeat(lead.chars().count())
                        };
                        let indent = if inline && !m.item {
                            // Lines after the first of a block value go under the key.
                            let member = m.member.clone().unwrap_or(r.clone());
                            format!("{}{unit}", indent_at(text, member.start))
                        } else {
                            indent
                        };
                        let lead = &text[line_start(text, r.start)..r.start];
                        let new =
                            if !c.contains('\n') || absolute(c, &indent, lead, &text[r.clone()]) {
                                c.to_string()
                            } else {
                                reindent(c, &indent).trim_start().to_string()
                            };
                        Splice::new(r.start, r.end, new)
                    }
                }
            }
            Operation::Delete => {
                let mem = m.member.clone().ok_or_else(|| root_refused("delete"))?;
                if m.flow {
                    match (&m.prev, &m.next) {
                        (_, Some(n)) => Splice::new(mem.start, n.start, String::new()),
                        (Some(p), None) => Splice::new(p.end, mem.end, String::new()),
                        (None, None) => Splice::new(mem.start, mem.end, String::new()),
                    }
                } else {
                    match whole_lines(text, &mem) {
                        Some((s, e)) => Splice::new(s, e, String::new()),
                        // `- a: 1` deleting the first key of an item's mapping: the key's
                        // line goes, the next key takes its place after the dash.
                        None => match &m.next {
                            Some(n) => Splice::new(mem.start, n.start, String::new()),
                            None => Splice::new(mem.start, mem.end, String::new()),
                        },
                    }
                }
            }
            Operation::InsertBefore | Operation::InsertAfter => {
                let mem = m.member.clone().ok_or_else(|| root_refused(op.name()))?;
                let before = matches!(op, Operation::InsertBefore);
                if m.flow {
                    let c = content.trim();
                    if before {
                        Splice::new(mem.start, mem.start, format!("{c}, "))
                    } else {
                        Splice::new(mem.end, mem.end, format!(", {c}"))
                    }
                } else {
                    let indent = indent_at(text, mem.start).to_string();
                    // A member that does not start its line (`- a: 1`): its column.
                    let col =
                        " ".repeat(text[line_start(text, mem.start)..mem.start].chars().count());
                    let indent = if text[line_start(text, mem.start)..mem.start]
                        .trim()
                        .is_empty()
                    {
                        indent
                    } else {
                        col
                    };
                    let new = reindent(&item_text(content, m.item), &indent);
                    if before {
                        match whole_lines(text, &mem) {
                            Some((s, _)) => Splice::new(s, s, format!("{new}\n")),
                            None => Splice::new(
                                mem.start,
                                mem.start,
                                format!("{}\n{indent}", new.trim_start()),
                            ),
                        }
                    } else {
                        let e = after_line(text, mem.end);
                        if text[..e].ends_with('\n') {
                            Splice::new(e, e, format!("{new}\n"))
                        } else {
                            Splice::new(e, e, format!("\n{new}"))
                        }
                    }
                }
            }
            Operation::InsertInto(pos) => {
                if m.found.body.is_none() {
                    if r.is_empty() && m.member.is_some() {
                        // `key:` with nothing yet: the first member under it.
                        let member = m.member.clone().unwrap_or(r.clone());
                        let inner = format!("{}{unit}", indent_at(text, member.start));
                        return Ok(Splice::new(
                            r.start,
                            r.end,
                            format!("\n{}", reindent(content, &inner)),
                        ));
                    }
                    return Err(FkError::invalid(format!(
                        "{} is a {}: insert_into needs a mapping or sequence",
                        m.found.path, m.found.kind
                    ))
                    .with_hint("use insert_after on it, or target its parent"));
                }
                let children = &m.children;
                let before = match pos {
                    Position::Sorted => {
                        let key = if m.value_seq {
                            content.trim().trim_start_matches('-').trim().to_lowercase()
                        } else {
                            content
                                .split(':')
                                .next()
                                .unwrap_or("")
                                .trim()
                                .trim_matches(['"', '\''])
                                .to_lowercase()
                        };
                        children.iter().find(|(k, _)| {
                            let k = if m.value_seq {
                                k.trim_start_matches('-').trim()
                            } else {
                                k.as_str()
                            };
                            k.to_lowercase() > key
                        })
                    }
                    Position::First => children.first(),
                    Position::Last => None,
                };
                if m.value_flow {
                    let c = content.trim();
                    match (before, children.last()) {
                        (Some((_, at)), _) => Splice::new(at.start, at.start, format!("{c}, ")),
                        (None, Some((_, last))) => {
                            Splice::new(last.end, last.end, format!(", {c}"))
                        }
                        (None, None) => Splice::new(r.end - 1, r.end - 1, c.to_string()),
                    }
                } else {
                    let Some((_, first)) = children.first() else {
                        return Err(FkError::invalid(format!("{} is empty", m.found.path)));
                    };
                    let indent = {
                        let ls = line_start(text, first.start);
                        if text[ls..first.start].trim().is_empty() {
                            text[ls..first.start].to_string()
                        } else {
                            " ".repeat(text[ls..first.start].chars().count())
                        }
                    };
                    let new = reindent(&item_text(content, m.value_seq), &indent);
                    match before {
                        Some((_, at)) => match whole_lines(text, at) {
                            Some((s, _)) => Splice::new(s, s, format!("{new}\n")),
                            None => Splice::new(
                                at.start,
                                at.start,
                                format!("{}\n{indent}", new.trim_start()),
                            ),
                        },
                        None => {
                            let last = &children.last().expect("not empty").1;
                            let e = after_line(text, last.end);
                            if text[..e].ends_with('\n') {
                                Splice::new(e, e, format!("{new}\n"))
                            } else {
                                Splice::new(e, e, format!("\n{new}"))
                            }
                        }
                    }
                }
            }
            Operation::ReplaceBody | Operation::Wrap { .. } => {
                return Err(
                    FkError::invalid(format!("{} does not apply to YAML", op.name())).with_hint(
                        "YAML edits: replace, delete, insert_before, insert_after, insert_into",
                    ),
                );
            }
        })
    }
}

/// Whether multi-line `content` for a value starting mid-line after `lead` is laid out for
/// its place already (its first line cut at the value, as `file_read` returns it): every later
/// line at least as deep as the place, and a first line that opens a block (`key:`) followed
/// by a deeper line. Otherwise it is relative and gets re-indented. `a:\n  b:` at a place
/// two deep is either (a null `a` then `b`, or `b` under `a`): it is taken as laid out when
/// the value it replaces has its second line at the same depth.
fn absolute(content: &str, indent: &str, lead: &str, original: &str) -> bool {
    let lines: Vec<&str> = content.lines().collect();
    let rest: Vec<&str> = lines[1..]
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let ws = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    // Where the first line's content sits in the file: after the lead (`- ` or `key: `).
    let first_col = if lead.trim().is_empty() {
        indent.len()
    } else {
        lead.chars().count()
    };
    if rest.is_empty() || rest.iter().any(|l| ws(l) < indent.len().min(first_col)) {
        return false;
    }
    let first = lines[0].split(" #").next().unwrap_or("").trim_end();
    let opens = first.ends_with(':') || first.ends_with(": |") || first.ends_with(": >");
    if !opens || ws(rest[0]) > first_col {
        return true;
    }
    original
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| ws(l) == ws(rest[0]))
}

/// Every path of the document (bounded), for suggestions.
fn paths(v: &YNode, prefix: &mut Vec<String>, out: &mut Vec<Found>) {
    const MAX: usize = 5000;
    if out.len() >= MAX {
        return;
    }
    let push = |key: String, child: &YNode, prefix: &mut Vec<String>, out: &mut Vec<Found>| {
        prefix.push(key.clone());
        out.push(Found {
            kind: kind_name(child).into(),
            path: display_path(prefix),
            name: key.trim_start_matches('#').to_string(),
            range: 0..0,
            body: None,
            signature: None,
            depth: prefix.len(),
        });
        paths(child, prefix, out);
        prefix.pop();
    };
    match &v.kind {
        YKind::Map { members, .. } => {
            for (k, _, c) in members {
                push(k.clone(), c, prefix, out);
            }
        }
        YKind::Seq { items, .. } => {
            for (i, (_, c)) in items.iter().enumerate().take(3) {
                push(format!("#{i}"), c, prefix, out);
            }
        }
        _ => {}
    }
}

/// `range` widened to whole lines when nothing but white space (or a comment after it) shares
/// its lines.
fn whole_lines(text: &str, range: &Range<usize>) -> Option<(usize, usize)> {
    let ls = line_start(text, range.start);
    let le = after_line(text, range.end);
    let before = &text[ls..range.start];
    let after = text[range.end..le].trim();
    (before.trim().is_empty() && (after.is_empty() || after.starts_with('#'))).then_some((ls, le))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;

    const DOC: &str = "# settings\nname: demo  # the name\nversion: 1.2\nlist:\n  - a\n  - b: 1\n    c: [1, 2]\nempty:\nblock: |\n  line1\n  line2\nanch: &x {k: v}\nali: *x\nquoted: \"a\\tb\"\nhex: 0x1F\n";

    fn edit(path: &str, op: Operation, content: &str) -> String {
        let doc = YamlDoc::parse(DOC).unwrap();
        let m = &doc.query(path).unwrap()[0];
        let s = doc.plan(m, &op, content, "  ").unwrap();
        let out = apply(DOC, &[s]);
        assert!(check(&out).is_none(), "{out}");
        out
    }

    #[test]
    fn values_follow_the_core_schema() {
        let doc = YamlDoc::parse(DOC).unwrap();
        assert_eq!(
            doc.value,
            serde_json::json!({"name": "demo", "version": 1.2, "list": ["a", {"b": 1, "c": [1, 2]}],
                "empty": null, "block": "line1\nline2\n", "anch": {"k": "v"}, "ali": {"k": "v"},
                "quoted": "a\tb", "hex": 31})
        );
        let m = doc.query("$.list[1].c[1]").unwrap();
        assert_eq!(&DOC[m[0].found.range.clone()], "2");
        let m = doc.query("$.list").unwrap();
        assert_eq!(
            &DOC[m[0].found.range.clone()],
            "- a\n  - b: 1\n    c: [1, 2]"
        );
        assert_eq!(doc.query("$..k").unwrap().len(), 1);
        let err = doc.query("$.ali.k").unwrap_err();
        assert!(err.message.contains("alias *x"), "{err:?}");
        let err = doc.query("$.nam").unwrap_err();
        assert!(err.hint.unwrap().contains("$.name (string)"));
    }

    #[test]
    fn edits_keep_comments_and_layout() {
        assert!(edit("$.name", Operation::Replace, "other").contains("name: other  # the name\n"));
        assert_eq!(
            edit("$.version", Operation::Delete, ""),
            DOC.replace("version: 1.2\n", "")
        );
        assert!(
            edit("$.list", Operation::InsertInto(Position::Last), "z")
                .contains("    c: [1, 2]\n  - z\nempty:")
        );
        assert!(
            edit(
                "$.list[1]",
                Operation::InsertInto(Position::Sorted),
                "bb: 2"
            )
            .contains("  - b: 1\n    bb: 2\n    c: [1, 2]\n")
        );
        assert!(
            edit("$.list[1].c", Operation::InsertInto(Position::Last), "3")
                .contains("c: [1, 2, 3]")
        );
        assert!(
            edit("$.empty", Operation::Replace, "x: 1\ny: 2")
                .contains("empty:\n  x: 1\n  y: 2\nblock")
        );
        assert!(
            edit("$.name", Operation::Replace, "a: 1\nb: 2")
                .contains("name:\n  a: 1\n  b: 2  # the name")
        );
        assert!(
            edit("$.list[0]", Operation::InsertAfter, "a2").contains("  - a\n  - a2\n  - b: 1")
        );
        assert!(edit("$.anch.k", Operation::Delete, "").contains("anch: &x {}"));
    }

    #[test]
    fn files_past_the_parser_limit_are_refused_clearly() {
        let text = "a: 1\n".repeat(MAX_LINES + 1);
        let err = YamlDoc::parse(&text).err().unwrap();
        assert!(err.message.contains("reads at most 32767"), "{err:?}");
    }

    #[test]
    fn documents_of_a_stream_are_an_array() {
        let text = "a: 1\n---\nb: 2\n";
        let doc = YamlDoc::parse(text).unwrap();
        let m = doc.query("$[1].b").unwrap();
        assert_eq!(&text[m[0].found.range.clone()], "2");
        assert_eq!(check("a: [1\nb: 2\n").unwrap().code, ErrorCode::ParseError);
    }
}
