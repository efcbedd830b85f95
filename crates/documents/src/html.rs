//! HTML by CSS selector. `tree-sitter-html` gives every element with its exact bytes (start
//! tag, content, end tag; it reads real-world HTML with void elements, implied end tags,
//! `<script>`/`<style>` raw text), and a small selector engine of our own matches over that
//! tree. (`scraper`/html5ever build a DOM with no source positions, and `lol_html` streams
//! without whole-element ranges, so neither can hand back the bytes an edit must splice.)
//!
//! Supported selector syntax: type (`div`, `*`), `#id`, `.class`, attributes (`[href]`,
//! `[type=text]`, `[class~=a]`, `[lang|=en]`, `[href^=https]`, `[href$=".pdf"]`, `[x*=y]`, with
//! ` i` for case-insensitive values), pseudo-classes `:first-child`, `:last-child`,
//! `:only-child`, `:nth-child(2n+1|odd|even)`, `:nth-last-child(..)`, `:first-of-type`,
//! `:last-of-type`, `:nth-of-type(..)`, `:not(..)`, `:root`, `:empty`; combinators descendant
//! (space), child `>`, adjacent `+`, sibling `~`; lists `a, b`. Anything else is an error
//! with its position.

use filekit_errors::{ErrorCode, FkError};
use filekit_semantic::ops::{Operation, Position, Splice, after_line, line_start};
use filekit_semantic::style::{indent_at, reindent};
use filekit_semantic::{Found, suggest};
use serde_json::json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::Node;

/// One element of a markup document (HTML here, XML in `xml.rs`).
#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    /// `(name, value)`; names lower-cased for HTML.
    pub attrs: Vec<(String, String)>,
    pub range: Range<usize>,
    /// The bytes between the start and end tags (`None` for a void or self-closing element).
    pub body: Option<Range<usize>>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
}

/// A parsed HTML file: its elements in document order.
pub struct HtmlDoc<'t> {
    text: &'t str,
    pub elements: Vec<Element>,
    roots: Vec<usize>,
    /// Each element's step in its path (see [`HtmlDoc::path_of`]): `#id` when its id is
    /// unique (the path starts there), else its tag among its siblings. Paths are joined when
    /// asked for: all of them at once would take the document's size times its depth.
    steps: Vec<String>,
    depths: Vec<usize>,
    /// Each element's place among its siblings: (index, index among those of its name,
    /// siblings, siblings of its name), so that `:nth-child` and the sibling combinators
    /// cost no scan of the siblings.
    places: Vec<(usize, usize, usize, usize)>,
}

/// What one selection has found out, so that a complex selector is matched once per element
/// and part (`a b c` against a deep document would otherwise try every chain of ancestors).
#[derive(Default)]
struct Memo {
    /// (element, part list) -> whether the parts match going left from the element.
    rest: HashMap<(usize, usize, usize), bool>,
    /// (element, part list) -> whether an ancestor matches them.
    ancestor: HashMap<(usize, usize, usize), bool>,
    /// (parent, part list) -> for each child, whether an earlier sibling matches them.
    earlier: HashMap<(Option<usize>, usize, usize), Vec<bool>>,
}

/// The key of a list of parts (a prefix of a complex selector's parts).
fn parts_key(rest: &[(Comb, Compound)]) -> (usize, usize) {
    (rest.as_ptr() as usize, rest.len())
}

fn trimmed(text: &str, r: Range<usize>) -> Range<usize> {
    r.start..r.start + text[r.clone()].trim_end().len()
}

/// A few entities decoded in attribute values (enough for selector matching).
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The parse error of an HTML text (tree-sitter-html recovers from most malformed markup;
/// what it cannot read is reported with its line and column).
pub fn check(text: &str) -> Option<FkError> {
    let tree = match parse_tree(text) {
        Ok(t) => t,
        Err(e) => return Some(e),
    };
    filekit_semantic::code::syntax_error_at(text, tree.root_node()).map(|e| FkError {
        message: format!("the HTML does not parse: {}", e.message),
        ..e
    })
}

/// The syntax tree, refused past [`filekit_semantic::bounds::MAX_DEPTH`] levels.
fn parse_tree(text: &str) -> Result<tree_sitter::Tree, FkError> {
    filekit_semantic::bounds::parse(filekit_semantic::Lang::Html, text, None, false)
}

impl<'t> HtmlDoc<'t> {
    pub fn parse(text: &'t str) -> Result<HtmlDoc<'t>, FkError> {
        let tree = parse_tree(text)?;
        let mut doc = HtmlDoc {
            text,
            elements: Vec::new(),
            roots: Vec::new(),
            steps: Vec::new(),
            depths: Vec::new(),
            places: Vec::new(),
        };
        doc.collect(tree.root_node(), None);
        doc.name_all();
        Ok(doc)
    }

    fn collect(&mut self, n: Node, parent: Option<usize>) {
        let mut cur = n.walk();
        for ch in n.named_children(&mut cur) {
            if matches!(ch.kind(), "element" | "script_element" | "style_element") {
                let idx = self.element(ch, parent);
                self.collect(ch, Some(idx));
            }
        }
    }

    fn element(&mut self, n: Node, parent: Option<usize>) -> usize {
        let text = self.text;
        let mut cur = n.walk();
        let kids: Vec<Node> = n.children(&mut cur).collect();
        let start = kids
            .iter()
            .find(|k| matches!(k.kind(), "start_tag" | "self_closing_tag"));
        let end = kids.iter().find(|k| k.kind() == "end_tag");
        let mut name = String::new();
        let mut attrs = Vec::new();
        if let Some(st) = start {
            let mut c = st.walk();
            for a in st.named_children(&mut c) {
                match a.kind() {
                    "tag_name" => name = text[a.byte_range()].to_ascii_lowercase(),
                    "attribute" => {
                        let mut ac = a.walk();
                        let mut an = String::new();
                        let mut av = String::new();
                        for p in a.named_children(&mut ac) {
                            match p.kind() {
                                "attribute_name" => an = text[p.byte_range()].to_ascii_lowercase(),
                                "attribute_value" => av = decode(&text[p.byte_range()]),
                                "quoted_attribute_value" => {
                                    let q = &text[p.byte_range()];
                                    av = decode(q.get(1..q.len().saturating_sub(1)).unwrap_or(""));
                                }
                                _ => {}
                            }
                        }
                        attrs.push((an, av));
                    }
                    _ => {}
                }
            }
        }
        let range = trimmed(text, n.byte_range());
        let body = match (start, end) {
            (Some(st), _) if st.kind() == "self_closing_tag" => None,
            (Some(st), Some(et)) => Some(st.end_byte()..et.start_byte()),
            (Some(st), None) if is_void(&name) => {
                let _ = st;
                None
            }
            (Some(st), None) => Some(st.end_byte()..range.end.max(st.end_byte())),
            (None, _) => None,
        };
        let idx = self.elements.len();
        self.elements.push(Element {
            name,
            attrs,
            range,
            body,
            parent,
            children: Vec::new(),
        });
        match parent {
            Some(p) => self.elements[p].children.push(idx),
            None => self.roots.push(idx),
        }
        idx
    }

    /// Every element `selector` matches, in document order.
    pub fn select(&self, selector: &str) -> Result<Vec<Found>, FkError> {
        let list = parse_selector(selector)?;
        let memo = RefCell::new(Memo::default());
        let hits: Vec<usize> = (0..self.elements.len())
            .filter(|&i| list.iter().any(|c| self.matches_complex(i, c, &memo)))
            .collect();
        let depth = self.depths.iter().max().map_or(0, |d| d + 1);
        filekit_semantic::bounds::check_targets(
            &format!("the selector '{selector}'"),
            hits.len(),
            depth,
        )?;
        let hits: Vec<Found> = hits.into_iter().map(|i| self.found(i)).collect();
        if hits.is_empty() {
            let all: Vec<Found> = (0..self.elements.len())
                .take(suggest::CANDIDATES)
                .map(|i| self.found(i))
                .collect();
            return Err(suggest::not_found(
                "selector",
                selector,
                &all,
                "CSS selectors: tag, #id, .class, [attr=value], a > b, a b, :nth-child(n)",
            ));
        }
        Ok(hits)
    }

    /// Every element, as an outline entry whose path selects it again (refused past
    /// [`filekit_semantic::bounds::MAX_RESULT_BYTES`] of paths).
    pub fn outline(&self) -> Result<Vec<Found>, FkError> {
        let mut budget = filekit_semantic::bounds::ResultBudget::default();
        (0..self.elements.len())
            .map(|i| {
                let f = self.found(i);
                budget.spend(f.path.len(), "the outline of this HTML file")?;
                Ok(f)
            })
            .collect()
    }

    fn siblings(&self, i: usize) -> &[usize] {
        match self.elements[i].parent {
            Some(p) => &self.elements[p].children,
            None => &self.roots,
        }
    }

    /// A selector naming element `i` alone: `#id` when its id is unique, else its parent's
    /// path `> tag` (with `:nth-of-type(n)` among same-named siblings).
    pub fn path_of(&self, i: usize) -> String {
        let mut steps = vec![self.steps[i].as_str()];
        let mut at = i;
        while !self.steps[at].starts_with('#')
            && let Some(p) = self.elements[at].parent
        {
            steps.push(&self.steps[p]);
            at = p;
        }
        steps.reverse();
        steps.join(" > ")
    }

    /// Every element's path and depth, parents first (document order puts them first).
    fn name_all(&mut self) {
        let mut ids: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for e in &self.elements {
            if let Some((_, id)) = e.attrs.iter().find(|(n, _)| n == "id") {
                *ids.entry(id.as_str()).or_default() += 1;
            }
        }
        // The step of each element among its siblings.
        let mut steps = vec![String::new(); self.elements.len()];
        let mut places = vec![(0, 0, 0, 0); self.elements.len()];
        let lists: Vec<&[usize]> = std::iter::once(self.roots.as_slice())
            .chain(self.elements.iter().map(|e| e.children.as_slice()))
            .collect();
        for sibs in lists {
            let mut count: std::collections::HashMap<&str, usize> =
                std::collections::HashMap::new();
            for &s in sibs {
                *count.entry(self.elements[s].name.as_str()).or_default() += 1;
            }
            let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
            for (index, &s) in sibs.iter().enumerate() {
                let name = self.elements[s].name.as_str();
                let n = seen.entry(name).or_default();
                *n += 1;
                places[s] = (index, *n - 1, sibs.len(), count[name]);
                steps[s] = if count[name] > 1 {
                    format!("{name}:nth-of-type({n})")
                } else {
                    name.to_string()
                };
            }
        }
        let mut depths = Vec::with_capacity(self.elements.len());
        for (i, e) in self.elements.iter().enumerate() {
            let unique_id = e.attrs.iter().find(|(n, _)| n == "id").and_then(|(_, id)| {
                (!id.is_empty()
                    && !id.contains(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                    && ids.get(id.as_str()) == Some(&1))
                .then(|| format!("#{id}"))
            });
            if let Some(id) = unique_id {
                steps[i] = id;
            }
            depths.push(e.parent.map_or(0, |p| depths[p] + 1));
        }
        self.steps = steps;
        self.depths = depths;
        self.places = places;
    }

    fn depth(&self, i: usize) -> usize {
        self.depths[i]
    }

    fn found(&self, i: usize) -> Found {
        let e = &self.elements[i];
        let start_tag_end = e.body.as_ref().map_or(e.range.end, |b| b.start);
        let sig: String = self.text[e.range.start..start_tag_end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let sig = if sig.chars().count() > 120 {
            format!("{}…", sig.chars().take(120).collect::<String>())
        } else {
            sig
        };
        Found {
            kind: "element".into(),
            path: self.path_of(i),
            name: e.name.clone(),
            range: e.range.clone(),
            body: e.body.clone(),
            signature: Some(sig),
            depth: self.depth(i),
        }
    }

    /// The direct child elements of the element at `range` (for `insert_into`).
    pub fn children_of(&self, range: &Range<usize>) -> Vec<Range<usize>> {
        self.elements
            .iter()
            .find(|e| &e.range == range)
            .map(|e| {
                e.children
                    .iter()
                    .map(|&c| self.elements[c].range.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn matches_complex(&self, i: usize, c: &Complex, memo: &RefCell<Memo>) -> bool {
        let Some((last, rest)) = c.parts.split_last() else {
            return false;
        };
        self.matches_compound(i, &last.1, memo) && self.matches_rest(i, last.0, rest, memo)
    }

    /// Whether the parts before a matched compound match, going left from element `i` by
    /// `comb`. Memoized per (element, parts): each pair is decided once, so a selection
    /// costs the elements times the parts (times the siblings' or ancestors' links once).
    fn matches_rest(
        &self,
        i: usize,
        comb: Comb,
        rest: &[(Comb, Compound)],
        memo: &RefCell<Memo>,
    ) -> bool {
        let Some((prev, before)) = rest.split_last() else {
            return true;
        };
        let (ptr, len) = parts_key(rest);
        if let Some(&known) = memo.borrow().rest.get(&(i, ptr, len)) {
            return known;
        }
        // Element `x` stands where the part before is wanted.
        let at = |x: usize| {
            self.matches_compound(x, &prev.1, memo) && self.matches_rest(x, prev.0, before, memo)
        };
        let found = match comb {
            Comb::Child => self.elements[i].parent.is_some_and(at),
            Comb::Descendant => self.ancestor_matches(i, rest, memo),
            Comb::Adjacent => {
                let index = self.places[i].0;
                index > 0 && at(self.siblings(i)[index - 1])
            }
            Comb::Sibling => self.earlier_matches(i, rest, memo),
            Comb::None => true,
        };
        memo.borrow_mut().rest.insert((i, ptr, len), found);
        found
    }

    /// Whether an ancestor of `i` matches the last part of `rest` and the parts before it:
    /// the parent does, or an ancestor of the parent (each element decided once).
    fn ancestor_matches(&self, i: usize, rest: &[(Comb, Compound)], memo: &RefCell<Memo>) -> bool {
        let (ptr, len) = parts_key(rest);
        let (prev, before) = rest.split_last().expect("called with a part");
        // The chain of ancestors up to the first one already decided, then decided from the
        // top down (no recursion along the chain: a document may be 1,000 levels deep).
        let mut chain = Vec::new();
        let mut p = self.elements[i].parent;
        let mut above = false;
        while let Some(x) = p {
            if let Some(&known) = memo.borrow().ancestor.get(&(x, ptr, len)) {
                above = known;
                break;
            }
            chain.push(x);
            p = self.elements[x].parent;
        }
        // `above`: whether an ancestor of the last element of the chain matches.
        for &x in chain.iter().rev() {
            let here = self.matches_compound(x, &prev.1, memo)
                && self.matches_rest(x, prev.0, before, memo);
            // For the children of `x`: an ancestor of theirs matches.
            above = above || here;
            memo.borrow_mut().ancestor.insert((x, ptr, len), above);
        }
        above
    }

    /// Whether an earlier sibling of `i` matches the last part of `rest` and the parts before
    /// it (decided for all the siblings at once, in one pass).
    fn earlier_matches(&self, i: usize, rest: &[(Comb, Compound)], memo: &RefCell<Memo>) -> bool {
        let (ptr, len) = parts_key(rest);
        let parent = self.elements[i].parent;
        let index = self.places[i].0;
        if let Some(list) = memo.borrow().earlier.get(&(parent, ptr, len)) {
            return list[index];
        }
        let (prev, before) = rest.split_last().expect("called with a part");
        let sibs = self.siblings(i);
        let mut list = Vec::with_capacity(sibs.len());
        let mut any = false;
        for &s in sibs {
            list.push(any);
            any = any
                || (self.matches_compound(s, &prev.1, memo)
                    && self.matches_rest(s, prev.0, before, memo));
        }
        let found = list[index];
        memo.borrow_mut().earlier.insert((parent, ptr, len), list);
        found
    }

    fn matches_compound(&self, i: usize, c: &Compound, memo: &RefCell<Memo>) -> bool {
        let e = &self.elements[i];
        if let Some(t) = &c.tag
            && *t != e.name
        {
            return false;
        }
        let attr = |n: &str| {
            e.attrs
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
        };
        for s in &c.simple {
            let ok = match s {
                Simple::Id(id) => attr("id") == Some(id.as_str()),
                Simple::Class(cl) => {
                    attr("class").is_some_and(|v| v.split_whitespace().any(|w| w == cl))
                }
                Simple::Attr {
                    name,
                    op,
                    value,
                    ci,
                } => match attr(name) {
                    None => false,
                    Some(v) => {
                        let (v, want) = if *ci {
                            (v.to_lowercase(), value.to_lowercase())
                        } else {
                            (v.to_string(), value.clone())
                        };
                        match op {
                            AttrOp::Exists => true,
                            AttrOp::Eq => v == want,
                            AttrOp::Word => v.split_whitespace().any(|w| w == want),
                            AttrOp::Dash => v == want || v.starts_with(&format!("{want}-")),
                            AttrOp::Prefix => !want.is_empty() && v.starts_with(&want),
                            AttrOp::Suffix => !want.is_empty() && v.ends_with(&want),
                            AttrOp::Contains => !want.is_empty() && v.contains(&want),
                        }
                    }
                },
                Simple::Nth {
                    a,
                    b,
                    of_type,
                    last,
                } => {
                    let (index, of_name, count, named) = self.places[i];
                    let (pos, len) = if *of_type {
                        (of_name, named)
                    } else {
                        (index, count)
                    };
                    let n = if *last { len - pos } else { pos + 1 } as i64;
                    nth(*a, *b, n)
                }
                Simple::Not(list) => !list.iter().any(|c| self.matches_complex(i, c, memo)),
                Simple::Root => e.parent.is_none(),
                Simple::Empty => {
                    e.children.is_empty()
                        && e.body
                            .as_ref()
                            .is_none_or(|b| self.text[b.clone()].trim().is_empty())
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// The replacement an operation makes at an element.
    pub fn plan(
        &self,
        target: &Found,
        op: &Operation,
        content: &str,
        unit: &str,
    ) -> Result<Splice, FkError> {
        let children = if matches!(op, Operation::InsertInto(_)) {
            self.children_of(&target.range)
        } else {
            Vec::new()
        };
        plan_markup(self.text, target, &children, op, content, unit)
    }
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "source"
            | "track"
            | "wbr"
            | "param"
            | "keygen"
    )
}

/// Whether `n` (1-based) is of the form `a*k + b` for some k >= 0.
fn nth(a: i64, b: i64, n: i64) -> bool {
    if a == 0 {
        return n == b;
    }
    let d = n - b;
    d % a == 0 && d / a >= 0
}

/// Edits of a markup element (HTML or XML): `replace`, `delete`, `insert_before`/`after` and
/// `wrap` as for code (whole lines with their indentation when the element has its lines to
/// itself); `replace_body` sets the content between the tags; `insert_into` adds a child
/// first or last (or before the first child whose name sorts after the new one's).
pub(crate) fn plan_markup(
    text: &str,
    target: &Found,
    children: &[Range<usize>],
    op: &Operation,
    content: &str,
    unit: &str,
) -> Result<Splice, FkError> {
    let no_body = || {
        FkError::invalid(format!(
            "{} '{}' is empty (void or self-closing): {} needs content between tags",
            target.kind,
            target.path,
            op.name()
        ))
        .with_hint("use replace to write it with a start and an end tag")
    };
    let indent = indent_at(text, target.range.start).to_string();
    match op {
        Operation::ReplaceBody => {
            let b = target.body.clone().ok_or_else(no_body)?;
            let inner = &text[b.clone()];
            if content.trim().is_empty() {
                Ok(Splice::new(b.start, b.end, String::new()))
            } else if inner.contains('\n') || content.trim().contains('\n') {
                let deeper = format!("{indent}{unit}");
                Ok(Splice::new(
                    b.start,
                    b.end,
                    format!("\n{}\n{indent}", reindent(content, &deeper)),
                ))
            } else {
                Ok(Splice::new(b.start, b.end, content.trim().to_string()))
            }
        }
        Operation::InsertInto(pos) => {
            let b = target.body.clone().ok_or_else(no_body)?;
            let inner = &text[b.clone()];
            let before = match pos {
                Position::First => children.first(),
                Position::Last => None,
                Position::Sorted => {
                    let key = filekit_semantic::ops::first_name(content).to_lowercase();
                    children.iter().find(|c| {
                        filekit_semantic::ops::first_name(&text[(*c).clone()]).to_lowercase() > key
                    })
                }
            };
            if !inner.contains('\n') {
                // On one line: inline.
                let at = before.map_or(b.end, |c| c.start);
                return Ok(Splice::new(at, at, content.trim().to_string()));
            }
            let child_indent = children
                .first()
                .map(|c| indent_at(text, c.start).to_string())
                .unwrap_or_else(|| format!("{indent}{unit}"));
            let new = reindent(content, &child_indent);
            match (before, children.last()) {
                (Some(c), _) if text[line_start(text, c.start)..c.start].trim().is_empty() => {
                    let s = line_start(text, c.start);
                    Ok(Splice::new(s, s, format!("{new}\n")))
                }
                (Some(c), _) => Ok(Splice::new(
                    c.start,
                    c.start,
                    format!("{}\n{child_indent}", new.trim_start()),
                )),
                (None, Some(last))
                    if text[last.end..after_line(text, last.end)].trim().is_empty() =>
                {
                    let e = after_line(text, last.end);
                    Ok(Splice::new(e, e, format!("{new}\n")))
                }
                (None, Some(last)) => Ok(Splice::new(last.end, last.end, format!("\n{new}"))),
                (None, None) => {
                    // Before the end tag's line.
                    let close_ls = line_start(text, b.end);
                    if text[close_ls..b.end].trim().is_empty() && close_ls > b.start {
                        Ok(Splice::new(close_ls, close_ls, format!("{new}\n")))
                    } else {
                        Ok(Splice::new(b.end, b.end, format!("\n{new}\n{indent}")))
                    }
                }
            }
        }
        // Markup written at column 0 (its last line a closing tag left of the place) is
        // re-indented to the place; anything else goes back verbatim: text lines of markup
        // may sit at any column, and white space inside CDATA, <pre> or raw-text elements is
        // content.
        Operation::Replace => {
            let r = &target.range;
            let c = content.trim_end_matches(['\n', '\r']);
            let ws = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
            let mut lines = c.lines().filter(|l| !l.trim().is_empty());
            let first = lines.next().unwrap_or("");
            let last = lines.next_back();
            let sensitive = ["<![CDATA[", "<pre", "<textarea", "<script", "<style"]
                .iter()
                .any(|k| c.contains(k));
            let relative = !sensitive
                && (ws(first) > 0
                    || last
                        .is_some_and(|l| l.trim_start().starts_with("</") && ws(l) < indent.len()));
            if relative {
                Ok(Splice::new(
                    r.start,
                    r.end,
                    reindent(c, &indent).trim_start().to_string(),
                ))
            } else {
                Ok(Splice::new(r.start, r.end, c.to_string()))
            }
        }
        _ => filekit_semantic::ops::plan(
            text,
            target,
            op,
            content,
            filekit_semantic::ops::BodyStyle::Braced,
            &[],
            unit,
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Selectors

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comb {
    None,
    Descendant,
    Child,
    Adjacent,
    Sibling,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrOp {
    Exists,
    Eq,
    Word,
    Dash,
    Prefix,
    Suffix,
    Contains,
}

#[derive(Debug, Clone)]
enum Simple {
    Id(String),
    Class(String),
    Attr {
        name: String,
        op: AttrOp,
        value: String,
        ci: bool,
    },
    Nth {
        a: i64,
        b: i64,
        of_type: bool,
        last: bool,
    },
    Not(Vec<Complex>),
    Root,
    Empty,
}

#[derive(Debug, Clone, Default)]
struct Compound {
    tag: Option<String>,
    simple: Vec<Simple>,
}

#[derive(Debug, Clone)]
struct Complex {
    /// Each compound with the combinator that joins it to the one before.
    parts: Vec<(Comb, Compound)>,
}

struct SelParser<'s> {
    chars: Vec<char>,
    at: usize,
    src: &'s str,
}

fn sel_error(src: &str, at: usize, msg: &str) -> FkError {
    FkError::new(
        ErrorCode::InvalidArgument,
        format!(
            "invalid CSS selector '{src}' at character {}: {msg}",
            at + 1
        ),
    )
    .with_hint(
        "supported: tag, *, #id, .class, [attr], [attr=v] (~= |= ^= $= *=, i), :first-child, \
:last-child, :only-child, :nth-child(an+b), :nth-last-child, :first-of-type, :last-of-type, \
:nth-of-type, :not(..), :root, :empty; combinators: space, >, +, ~; lists with ,",
    )
    .with_details(json!({"position": at + 1}))
}

/// A selector list, or its error with the character where it went wrong.
fn parse_selector(src: &str) -> Result<Vec<Complex>, FkError> {
    filekit_semantic::bounds::check_query("selector", src)?;
    let mut p = SelParser {
        chars: src.chars().collect(),
        at: 0,
        src,
    };
    let list = p.list()?;
    p.ws();
    if p.at < p.chars.len() {
        return Err(p.err(&format!("unexpected '{}'", p.chars[p.at])));
    }
    Ok(list)
}

impl SelParser<'_> {
    fn err(&self, msg: &str) -> FkError {
        sel_error(self.src, self.at, msg)
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    fn ws(&mut self) -> bool {
        let s = self.at;
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
        self.at > s
    }
    fn ident(&mut self) -> Result<String, FkError> {
        let s = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_' || c as u32 > 127)
        {
            self.at += 1;
        }
        if s == self.at {
            return Err(self.err("expected a name"));
        }
        Ok(self.chars[s..self.at].iter().collect())
    }
    fn list(&mut self) -> Result<Vec<Complex>, FkError> {
        let mut out = vec![self.complex()?];
        loop {
            self.ws();
            if self.peek() == Some(',') {
                self.at += 1;
                out.push(self.complex()?);
            } else {
                return Ok(out);
            }
        }
    }
    fn complex(&mut self) -> Result<Complex, FkError> {
        self.ws();
        let mut parts = vec![(Comb::None, self.compound()?)];
        loop {
            let had_ws = self.ws();
            let comb = match self.peek() {
                Some('>') => Comb::Child,
                Some('+') => Comb::Adjacent,
                Some('~') => Comb::Sibling,
                Some(',') | Some(')') | None => return Ok(Complex { parts }),
                Some(_) if had_ws => Comb::Descendant,
                Some(c) => return Err(self.err(&format!("unexpected '{c}'"))),
            };
            if comb != Comb::Descendant {
                self.at += 1;
                self.ws();
            }
            parts.push((comb, self.compound()?));
        }
    }
    fn compound(&mut self) -> Result<Compound, FkError> {
        let mut c = Compound::default();
        let mut star = false;
        match self.peek() {
            Some('*') => {
                self.at += 1;
                star = true;
            }
            Some(ch) if ch.is_alphabetic() => c.tag = Some(self.ident()?.to_ascii_lowercase()),
            _ => {}
        }
        loop {
            match self.peek() {
                Some('#') => {
                    self.at += 1;
                    c.simple.push(Simple::Id(self.ident()?));
                }
                Some('.') => {
                    self.at += 1;
                    c.simple.push(Simple::Class(self.ident()?));
                }
                Some('[') => {
                    self.at += 1;
                    c.simple.push(self.attr()?);
                }
                Some(':') => {
                    self.at += 1;
                    c.simple.push(self.pseudo()?);
                }
                _ => break,
            }
        }
        if c.tag.is_none() && c.simple.is_empty() && !star {
            return Err(match self.peek() {
                None => self.err("expected a selector, found the end"),
                Some(ch) => self.err(&format!("expected a selector, found '{ch}'")),
            });
        }
        Ok(c)
    }
    fn attr(&mut self) -> Result<Simple, FkError> {
        self.ws();
        let name = self.ident()?.to_ascii_lowercase();
        self.ws();
        let op = match (self.peek(), self.chars.get(self.at + 1)) {
            (Some(']'), _) => {
                self.at += 1;
                return Ok(Simple::Attr {
                    name,
                    op: AttrOp::Exists,
                    value: String::new(),
                    ci: false,
                });
            }
            (Some('='), _) => AttrOp::Eq,
            (Some('~'), Some('=')) => AttrOp::Word,
            (Some('|'), Some('=')) => AttrOp::Dash,
            (Some('^'), Some('=')) => AttrOp::Prefix,
            (Some('$'), Some('=')) => AttrOp::Suffix,
            (Some('*'), Some('=')) => AttrOp::Contains,
            _ => return Err(self.err("expected ], =, ~=, |=, ^=, $= or *=")),
        };
        self.at += if op == AttrOp::Eq { 1 } else { 2 };
        self.ws();
        let value = match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.at += 1;
                let s = self.at;
                while self.peek().is_some_and(|c| c != q) {
                    self.at += 1;
                }
                if self.peek().is_none() {
                    return Err(self.err("unterminated string"));
                }
                let v: String = self.chars[s..self.at].iter().collect();
                self.at += 1;
                v
            }
            _ => self.ident()?,
        };
        self.ws();
        let mut ci = false;
        if matches!(self.peek(), Some('i' | 'I')) {
            ci = true;
            self.at += 1;
            self.ws();
        } else if matches!(self.peek(), Some('s' | 'S')) {
            self.at += 1;
            self.ws();
        }
        if self.peek() != Some(']') {
            return Err(self.err("expected ]"));
        }
        self.at += 1;
        Ok(Simple::Attr {
            name,
            op,
            value,
            ci,
        })
    }
    fn pseudo(&mut self) -> Result<Simple, FkError> {
        let at = self.at;
        let name = self.ident()?.to_ascii_lowercase();
        let nth = |a, b, of_type, last| Simple::Nth {
            a,
            b,
            of_type,
            last,
        };
        Ok(match name.as_str() {
            "first-child" => nth(0, 1, false, false),
            "last-child" => nth(0, 1, false, true),
            "only-child" => Simple::Not(vec![Complex {
                parts: vec![(
                    Comb::None,
                    Compound {
                        tag: None,
                        simple: vec![Simple::Not(vec![Complex {
                            parts: vec![(
                                Comb::None,
                                Compound {
                                    tag: None,
                                    simple: vec![nth(0, 1, false, false), nth(0, 1, false, true)],
                                },
                            )],
                        }])],
                    },
                )],
            }]),
            "first-of-type" => nth(0, 1, true, false),
            "last-of-type" => nth(0, 1, true, true),
            "root" => Simple::Root,
            "empty" => Simple::Empty,
            "nth-child" | "nth-last-child" | "nth-of-type" | "nth-last-of-type" => {
                if self.peek() != Some('(') {
                    return Err(self.err("expected ( after :nth-…"));
                }
                self.at += 1;
                let s = self.at;
                while self.peek().is_some_and(|c| c != ')') {
                    self.at += 1;
                }
                if self.peek().is_none() {
                    return Err(self.err("expected )"));
                }
                let arg: String = self.chars[s..self.at].iter().collect();
                let (a, b) = parse_nth(&arg).ok_or_else(|| {
                    sel_error(self.src, s, &format!("'{arg}' is not an+b, odd or even"))
                })?;
                self.at += 1;
                nth(a, b, name.ends_with("of-type"), name.contains("last"))
            }
            "not" => {
                if self.peek() != Some('(') {
                    return Err(self.err("expected ( after :not"));
                }
                self.at += 1;
                let list = self.list()?;
                self.ws();
                if self.peek() != Some(')') {
                    return Err(self.err("expected )"));
                }
                self.at += 1;
                Simple::Not(list)
            }
            _ => {
                return Err(sel_error(
                    self.src,
                    at - 1,
                    &format!("the pseudo-class :{name} is not supported"),
                ));
            }
        })
    }
}

fn parse_nth(arg: &str) -> Option<(i64, i64)> {
    let s: String = arg
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    match s.as_str() {
        "odd" => return Some((2, 1)),
        "even" => return Some((2, 0)),
        _ => {}
    }
    if let Some((a, b)) = s.split_once('n') {
        let a = match a {
            "" | "+" => 1,
            "-" => -1,
            x => x.parse().ok()?,
        };
        let b = if b.is_empty() { 0 } else { b.parse().ok()? };
        Some((a, b))
    } else {
        Some((0, s.parse().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;

    const PAGE: &str = "<!DOCTYPE html>\n<html>\n<body>\n  <div id=\"main\" class=\"a b\">\n    <p>Hi &amp; <b>x</b></p>\n    <img src=x.png>\n    <p class=\"note\">two</p>\n  </div>\n  <ul><li>1</li><li>2</li></ul>\n</body>\n</html>\n";

    fn texts(sel: &str) -> Vec<String> {
        let doc = HtmlDoc::parse(PAGE).unwrap();
        doc.select(sel)
            .unwrap()
            .iter()
            .map(|f| PAGE[f.range.clone()].to_string())
            .collect()
    }

    #[test]
    fn selectors_match_elements_with_their_bytes() {
        assert_eq!(texts("#main > p.note"), ["<p class=\"note\">two</p>"]);
        assert_eq!(texts("div p b"), ["<b>x</b>"]);
        assert_eq!(texts("img[src$=png]"), ["<img src=x.png>"]);
        assert_eq!(texts("li:nth-child(2), li:first-child").len(), 2);
        assert_eq!(texts("p:not(.note)"), ["<p>Hi &amp; <b>x</b></p>"]);
        assert_eq!(texts("img + p"), ["<p class=\"note\">two</p>"]);
        assert_eq!(texts("b:only-child"), ["<b>x</b>"]);
        assert_eq!(texts("ul > *").len(), 2);
        let doc = HtmlDoc::parse(PAGE).unwrap();
        assert!(doc.select("ul > :only-child").is_err());
        for f in doc.outline().unwrap() {
            let again = doc.select(&f.path).unwrap();
            assert_eq!(again.len(), 1, "{}", f.path);
            assert_eq!(again[0].range, f.range);
        }
        let err = doc.select("div >> p").unwrap_err();
        assert!(err.message.contains("at character 6"), "{err:?}");
        let err = doc.select("p:hover").unwrap_err();
        assert!(err.message.contains(":hover is not supported"), "{err:?}");
        let err = doc.select("section").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
    }

    #[test]
    fn edits_of_elements() {
        let doc = HtmlDoc::parse(PAGE).unwrap();
        let t = &doc.select("#main").unwrap()[0];
        let s = doc
            .plan(
                t,
                &Operation::InsertInto(Position::Last),
                "<p>three</p>",
                "  ",
            )
            .unwrap();
        assert!(apply(PAGE, &[s]).contains("two</p>\n    <p>three</p>\n  </div>"));
        let s = doc
            .plan(
                t,
                &Operation::InsertInto(Position::First),
                "<h1>T</h1>",
                "  ",
            )
            .unwrap();
        assert!(apply(PAGE, &[s]).contains("class=\"a b\">\n    <h1>T</h1>\n    <p>Hi"));
        let li = &doc.select("li:first-child").unwrap()[0];
        let s = doc.plan(li, &Operation::ReplaceBody, "one", "  ").unwrap();
        assert!(apply(PAGE, &[s]).contains("<ul><li>one</li>"));
        let img = &doc.select("img").unwrap()[0];
        let s = doc.plan(img, &Operation::Delete, "", "  ").unwrap();
        assert!(apply(PAGE, &[s]).contains("</p>\n    <p class"));
        assert!(doc.plan(img, &Operation::ReplaceBody, "x", "  ").is_err());
    }
}
