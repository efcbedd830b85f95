//! XML (and SVG, XSD, XAML, .csproj) by XPath 1.0. `sxd-xpath` is a complete XPath 1.0
//! engine (axes, predicates, the core function library) over `sxd-document`'s tree, which
//! keeps no source positions; `roxmltree` parses the same text with the exact bytes of every
//! node. Each node a query selects is matched to its `roxmltree` twin by its place in the tree
//! (the index among its parent's children of its kind, an attribute by its expanded name), so
//! every match comes back with its bytes, and edits splice only those.
//!
//! Namespaces: every prefix the document declares is usable in queries; a default namespace
//! (`xmlns="…"`, as in SVG or old MSBuild files) is bound to the prefix `d`
//! (`//d:rect`), since XPath 1.0 names without a prefix never match namespaced elements.

use crate::html::plan_markup;
use filekit_errors::{ErrorCode, FkError, Limit};
use filekit_semantic::bounds::MAX_DEPTH;
use filekit_semantic::ops::{Operation, Splice};
use filekit_semantic::{Found, suggest};
use serde_json::json;
use std::collections::HashMap;
use std::ops::Range;
use sxd_xpath::nodeset::Node as XNode;

/// The prefix a default namespace is bound to in queries.
pub const DEFAULT_PREFIX: &str = "d";

fn options<'a>() -> roxmltree::ParsingOptions<'a> {
    roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    }
}

fn parse_error(e: &roxmltree::Error) -> FkError {
    let pos = e.pos();
    FkError::new(
        ErrorCode::ParseError,
        format!(
            "the XML does not parse: {e} (line {}, column {})",
            pos.row, pos.col
        ),
    )
    .with_hint("fix it by line range (read_files / edit_files), then target it by XPath")
    .with_details(json!({"line": pos.row, "column": pos.col}))
}

/// The parse error of an XML text, with line and column (or the bound it is over).
pub fn check(text: &str) -> Option<FkError> {
    parse_doc(text).err()
}

/// The most bytes the entity references of a document may add to it. An entity's text is
/// copied at each reference, so a small file can expand a thousandfold (a 1 MB file of one
/// 1 MB entity referenced a thousand times is 1 GB of text); real documents add little.
pub const MAX_ENTITY_TEXT: usize = 4 << 20;

/// `roxmltree`'s document of `text`, refused before parsing when its entity references
/// would add more than [`MAX_ENTITY_TEXT`] bytes, and after when its elements nest deeper than
/// [`filekit_semantic::bounds::MAX_DEPTH`] (measured without recursion; every later walk, and
/// `sxd-document`'s parser, recurses).
fn parse_doc(text: &str) -> Result<(roxmltree::Document<'_>, usize), FkError> {
    let added = entity_text(text);
    if added > MAX_ENTITY_TEXT {
        return Err(FkError::too_large(
            Limit::ExpandedText,
            added as u64,
            MAX_ENTITY_TEXT as u64,
            format!(
                "the entity references of this XML file would add {added} bytes of text to it; \
filekit expands at most {MAX_ENTITY_TEXT}"
            ),
        )
        .with_hint("read and edit this file by line range (read_files / edit_files), or grep it"));
    }
    let doc =
        roxmltree::Document::parse_with_options(text, options()).map_err(|e| parse_error(&e))?;
    // Levels below the document node, by node id (ids are dense, parents come first).
    let mut depths = vec![
        0u32;
        doc.descendants()
            .map(|n| n.id().get_usize() + 1)
            .max()
            .unwrap_or(1)
    ];
    let (mut deepest, mut first_past) = (0usize, None);
    for n in doc.descendants() {
        let d = n.parent().map_or(0, |p| depths[p.id().get_usize()] + 1);
        depths[n.id().get_usize()] = d;
        let d = d as usize;
        if d > deepest {
            deepest = d;
            if d > MAX_DEPTH && first_past.is_none() {
                first_past = Some(doc.text_pos_at(n.range().start).row as usize);
            }
        }
    }
    if deepest > MAX_DEPTH {
        return Err(filekit_semantic::bounds::too_deep(
            "this XML file",
            deepest,
            first_past,
        ));
    }
    Ok((doc, deepest))
}

/// The bytes the references to the internal entities of `text` add when expanded (an
/// over-estimate: every `&name;` outside the declarations counts, in comments too). As
/// `roxmltree` reads them: the first declaration of a name counts, values are literal text
/// that may reference other entities, at most 10 levels deep (deeper is its error).
fn entity_text(text: &str) -> usize {
    if !text.contains("<!ENTITY") {
        return 0;
    }
    // (name, value, the declaration's bytes).
    let mut decls: Vec<(&str, &str, Range<usize>)> = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("<!ENTITY") {
        let start = from + i;
        from = start + "<!ENTITY".len();
        let rest = text[from..].trim_start();
        let rest = rest.strip_prefix('%').map_or(rest, str::trim_start);
        let name_len = rest
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '>')
            .unwrap_or(rest.len());
        let (name, rest) = rest.split_at(name_len);
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue; // external: not read (no resolver is set)
        };
        let Some(len) = rest[1..].find(quote) else {
            continue;
        };
        let value_start = text.len() - rest.len() + 1;
        let end = value_start + len + 1;
        decls.push((name, &text[value_start..value_start + len], start..end));
        from = end;
    }
    let mut first: HashMap<&str, &str> = HashMap::new();
    for (name, value, _) in &decls {
        first.entry(name).or_insert(value);
    }
    // The references of a text: (name, bytes of `&name;`).
    fn refs<'a>(s: &'a str, known: &HashMap<&str, &str>) -> Vec<(&'a str, usize)> {
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(i) = rest.find('&') {
            rest = &rest[i + 1..];
            if let Some(j) = rest.find(';')
                && known.contains_key(&rest[..j])
            {
                out.push((&rest[..j], j + 2));
            }
        }
        out
    }
    // Expanded size of each entity, up to 10 levels of references (memoized per level).
    fn size<'a>(
        name: &'a str,
        level: usize,
        known: &HashMap<&'a str, &'a str>,
        memo: &mut HashMap<(&'a str, usize), usize>,
    ) -> usize {
        if level > 10 {
            return 0;
        }
        if let Some(&s) = memo.get(&(name, level)) {
            return s;
        }
        let value = known[name];
        let mut total = value.len();
        for (r, len) in refs(value, known) {
            total = total.saturating_add(size(r, level + 1, known, memo).saturating_sub(len));
        }
        memo.insert((name, level), total);
        total
    }
    let mut memo = HashMap::new();
    let mut added = 0usize;
    let mut outside = Vec::new();
    let mut at = 0;
    for (_, _, r) in &decls {
        outside.push(&text[at..r.start]);
        at = r.end;
    }
    outside.push(&text[at..]);
    for part in outside {
        for (r, len) in refs(part, &first) {
            added = added.saturating_add(size(r, 1, &first, &mut memo).saturating_sub(len));
        }
    }
    added
}

/// A parsed XML file.
pub struct XmlDoc<'t> {
    text: &'t str,
    doc: roxmltree::Document<'t>,
    /// How deep its nodes nest (levels below the document node).
    depth: usize,
    /// Namespace URI → the prefix queries use for it.
    prefixes: HashMap<String, String>,
    /// Each node's step in the XPath naming it alone (`b[2]`, `text()[1]`), by `NodeId`;
    /// paths are joined when asked for (all of them would take the size times the depth).
    steps: Vec<String>,
}

/// Which list of siblings a node is counted in.
#[derive(PartialEq, Eq, Clone, Copy)]
enum Class {
    Element,
    Text,
    Comment,
    Pi,
}

fn x_class(n: &XNode) -> Option<Class> {
    Some(match n {
        XNode::Element(_) => Class::Element,
        XNode::Text(_) => Class::Text,
        XNode::Comment(_) => Class::Comment,
        XNode::ProcessingInstruction(_) => Class::Pi,
        _ => return None,
    })
}

fn r_class(n: &roxmltree::Node) -> Option<Class> {
    Some(match n.node_type() {
        roxmltree::NodeType::Element => Class::Element,
        roxmltree::NodeType::Text => Class::Text,
        roxmltree::NodeType::Comment => Class::Comment,
        roxmltree::NodeType::PI => Class::Pi,
        roxmltree::NodeType::Root => return None,
    })
}

/// An XPath's compile error, with the character where it goes wrong: the first prefix of
/// the expression that no continuation could repair (sxd-xpath reports no positions).
fn xpath_error(xpath: &str, err: &sxd_xpath::ParserError) -> FkError {
    let factory = sxd_xpath::Factory::new();
    let incomplete = |e: &sxd_xpath::ParserError| {
        let s = format!("{e:?}");
        [
            "RanOutOfInput",
            "RightHandSideExpressionMissing",
            "ArgumentMissing",
            "TrailingSlash",
            "ExpectedQuote",
            "MismatchedQuoteCharacters",
            "EmptyPredicate",
        ]
        .iter()
        .any(|k| s.contains(k))
    };
    let chars: Vec<(usize, char)> = xpath.char_indices().collect();
    let mut position = chars.len() + 1;
    for (n, (i, c)) in chars.iter().enumerate() {
        let prefix = &xpath[..i + c.len_utf8()];
        if let Err(e) = factory.build(prefix)
            && !incomplete(&e)
        {
            position = n + 1;
            break;
        }
    }
    let at = if position > chars.len() {
        "at the end".to_string()
    } else {
        format!("at character {position}")
    };
    FkError::new(
        ErrorCode::InvalidArgument,
        format!("invalid XPath '{xpath}' {at}: {err}"),
    )
    .with_hint(
        "XPath 1.0, e.g. //dependency[@id='x'], /project/version, //item[2]/@name, //title/text()",
    )
    .with_details(json!({"position": position}))
}

fn kind_of(n: &roxmltree::Node) -> &'static str {
    match n.node_type() {
        roxmltree::NodeType::Element => "element",
        roxmltree::NodeType::Text => "text",
        roxmltree::NodeType::Comment => "comment",
        roxmltree::NodeType::PI => "processing-instruction",
        roxmltree::NodeType::Root => "root",
    }
}

// sxd's nodes are keys of the pairing map: they hash and compare by the node's address,
// which the document's interior mutability (its string pool) never changes.
#[allow(clippy::mutable_key_type)]
impl<'t> XmlDoc<'t> {
    pub fn parse(text: &'t str) -> Result<XmlDoc<'t>, FkError> {
        let (doc, depth) = parse_doc(text)?;
        let mut prefixes = HashMap::new();
        for n in doc.descendants().filter(|n| n.is_element()) {
            for ns in n.namespaces() {
                let p = ns.name().unwrap_or(DEFAULT_PREFIX).to_string();
                prefixes.entry(ns.uri().to_string()).or_insert(p);
            }
        }
        let mut x = XmlDoc {
            text,
            doc,
            depth,
            prefixes,
            steps: Vec::new(),
        };
        x.steps = x.name_all();
        Ok(x)
    }

    /// Every node's step, parents first: `b[2]` (of `/a/b[2]`), `text()[1]`.
    fn name_all(&self) -> Vec<String> {
        let count = self
            .doc
            .descendants()
            .map(|n| n.id().get_usize())
            .max()
            .unwrap_or(0)
            + 1;
        let mut steps = vec![String::new(); count];
        for p in self.doc.descendants() {
            let mut same: HashMap<(Option<&str>, &str), usize> = HashMap::new();
            for c in p.children().filter(|c| c.is_element()) {
                *same
                    .entry((c.tag_name().namespace(), c.tag_name().name()))
                    .or_default() += 1;
            }
            let mut seen: HashMap<(Option<&str>, &str), usize> = HashMap::new();
            let (mut texts, mut comments, mut pis) = (0, 0, 0);
            for c in p.children() {
                let step = match c.node_type() {
                    roxmltree::NodeType::Element => {
                        let key = (c.tag_name().namespace(), c.tag_name().name());
                        let k = seen.entry(key).or_default();
                        *k += 1;
                        let name = self.step_name(c);
                        if same[&key] > 1 {
                            format!("{name}[{k}]")
                        } else {
                            name
                        }
                    }
                    roxmltree::NodeType::Text => {
                        texts += 1;
                        format!("text()[{texts}]")
                    }
                    roxmltree::NodeType::Comment => {
                        comments += 1;
                        format!("comment()[{comments}]")
                    }
                    _ => {
                        pis += 1;
                        format!("processing-instruction()[{pis}]")
                    }
                };
                steps[c.id().get_usize()] = step;
            }
        }
        steps
    }

    /// Pairs every node of sxd's tree with its roxmltree twin, walking both at once: the
    /// i-th child of a kind of one is the i-th child of that kind of the other.
    fn pair<'d>(
        &self,
        x: XNode<'d>,
        r: roxmltree::Node<'_, 't>,
        map: &mut HashMap<XNode<'d>, roxmltree::NodeId>,
    ) {
        map.insert(x, r.id());
        let xs = x.children();
        for class in [Class::Element, Class::Text, Class::Comment, Class::Pi] {
            let xk = xs.iter().filter(|c| x_class(c) == Some(class));
            let rk = r.children().filter(|c| r_class(c) == Some(class));
            for (xc, rc) in xk.zip(rk) {
                if class == Class::Element {
                    self.pair(*xc, rc, map);
                } else {
                    map.insert(*xc, rc.id());
                }
            }
        }
    }

    /// Every node `xpath` selects, in document order. A query that evaluates to a number,
    /// string or boolean is refused with its value (there are no bytes to point at).
    pub fn query(&self, xpath: &str) -> Result<Vec<Found>, FkError> {
        filekit_semantic::bounds::check_query("XPath", xpath)?;
        let factory = sxd_xpath::Factory::new();
        let compiled = factory
            .build(xpath)
            .map_err(|e| xpath_error(xpath, &e))?
            .ok_or_else(|| FkError::invalid("the XPath is empty").with_hint("e.g. //item"))?;
        // sxd-document's parser does not read DTDs: the internal subset is blanked out (same
        // length, so nothing moves) before it parses.
        let for_sxd = blank_doctype(self.text);
        let package = sxd_document::parser::parse(&for_sxd).map_err(|e| {
            FkError::new(
                ErrorCode::ParseError,
                format!("the XPath engine cannot read this XML: {e:?}"),
            )
            .with_hint("read it by line range (read_files)")
        })?;
        let sdoc = package.as_document();
        let mut ctx = sxd_xpath::Context::new();
        for (uri, p) in &self.prefixes {
            ctx.set_namespace(p, uri);
        }
        let value = compiled.evaluate(&ctx, sdoc.root()).map_err(|e| {
            FkError::invalid(format!("XPath '{xpath}' failed: {e}"))
                .with_hint("check the function names and prefixes it uses")
        })?;
        let nodes = match value {
            sxd_xpath::Value::Nodeset(ns) => ns.document_order(),
            other => {
                let (kind, v) = match other {
                    sxd_xpath::Value::Boolean(b) => ("boolean", b.to_string()),
                    sxd_xpath::Value::Number(n) => ("number", n.to_string()),
                    sxd_xpath::Value::String(s) => ("string", s),
                    sxd_xpath::Value::Nodeset(_) => unreachable!("handled above"),
                };
                return Err(FkError::invalid(format!(
                    "XPath '{xpath}' evaluates to the {kind} {v}, not to nodes"
                ))
                .with_hint("select nodes to read or edit them, e.g. //item[@id='x']"));
            }
        };
        filekit_semantic::bounds::check_targets(
            &format!("the XPath '{xpath}'"),
            nodes.len(),
            self.depth,
        )?;
        let mut map = HashMap::new();
        if !nodes.is_empty() {
            self.pair(XNode::Root(sdoc.root()), self.doc.root(), &mut map);
        }
        let mut out = Vec::new();
        for n in nodes {
            if let Some(f) = self.twin(&n, &map) {
                out.push(f);
            }
        }
        if out.is_empty() {
            let all: Vec<Found> = self
                .doc
                .descendants()
                .filter(|n| n.is_element())
                .take(filekit_semantic::suggest::CANDIDATES)
                .map(|n| self.found(n))
                .collect();
            let ns_hint = if self.prefixes.values().any(|p| p == DEFAULT_PREFIX) {
                format!(
                    "; this document has a default namespace: name its elements {DEFAULT_PREFIX}:name (//{DEFAULT_PREFIX}:item)"
                )
            } else {
                String::new()
            };
            return Err(suggest::not_found(
                "xpath",
                xpath,
                &all,
                &format!("XPath 1.0 paths like /root/item[2], //item[@id='x']{ns_hint}"),
            ));
        }
        Ok(out)
    }

    /// The roxmltree node standing where sxd's node `n` stands.
    fn twin(&self, n: &XNode, map: &HashMap<XNode, roxmltree::NodeId>) -> Option<Found> {
        match n {
            XNode::Root(_) => {
                let root = self.doc.root_element();
                Some(self.found(root))
            }
            XNode::Attribute(a) => {
                let parent = XNode::Element(a.parent()?);
                let el = self.doc.get_node(*map.get(&parent)?)?;
                let name = a.name();
                let attr = el.attributes().find(|x| {
                    x.name() == name.local_part() && x.namespace() == name.namespace_uri()
                })?;
                Some(self.found_attr(el, attr))
            }
            _ => self.doc.get_node(*map.get(n)?).map(|r| self.found(r)),
        }
    }

    fn step_name(&self, n: roxmltree::Node) -> String {
        let tag = n.tag_name();
        match tag.namespace().and_then(|u| self.prefixes.get(u)) {
            Some(p) => format!("{p}:{}", tag.name()),
            None => tag.name().to_string(),
        }
    }

    /// An XPath selecting `n` alone: `/a/b[2]/c`.
    pub fn path_of(&self, n: roxmltree::Node) -> String {
        let steps: Vec<&str> = std::iter::successors(Some(n), |a| a.parent())
            .filter(|a| a.parent().is_some())
            .map(|a| self.steps[a.id().get_usize()].as_str())
            .collect();
        // One allocation: an outline makes a path per element, each as long as it is deep.
        let mut path = String::with_capacity(steps.iter().map(|s| s.len() + 1).sum());
        for s in steps.iter().rev() {
            path.push('/');
            path.push_str(s);
        }
        path
    }

    fn depth(n: roxmltree::Node) -> usize {
        n.ancestors()
            .filter(|a| a.is_element())
            .count()
            .saturating_sub(1)
    }

    /// The bytes between an element's start and end tags (`None` when self-closing).
    fn body(&self, n: roxmltree::Node) -> Option<Range<usize>> {
        let r = n.range();
        let s = &self.text[r.clone()];
        if s.ends_with("/>") && !s.contains("</") {
            return None;
        }
        // The start tag ends at the first '>' after its last attribute.
        let from = n
            .attributes()
            .map(|a| a.range().end)
            .max()
            .unwrap_or(r.start)
            .max(r.start);
        let open_end = from + self.text[from..r.end].find('>')? + 1;
        let close = r.start + s.rfind("</")?;
        (open_end <= close).then_some(open_end..close)
    }

    fn found(&self, n: roxmltree::Node) -> Found {
        self.found_at(n, self.path_of(n), Self::depth(n))
    }

    /// [`Self::found`], its path and depth known.
    fn found_at(&self, n: roxmltree::Node, path: String, depth: usize) -> Found {
        let range = n.range();
        let body = if n.is_element() { self.body(n) } else { None };
        let head_end = body.as_ref().map_or(range.end, |b| b.start);
        let sig: String = self.text[range.start..head_end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let sig = if sig.chars().count() > 120 {
            format!("{}…", sig.chars().take(120).collect::<String>())
        } else {
            sig
        };
        Found {
            kind: kind_of(&n).into(),
            path,
            name: if n.is_element() {
                n.tag_name().name().to_string()
            } else {
                kind_of(&n).to_string()
            },
            range,
            body,
            signature: n.is_element().then_some(sig),
            depth,
        }
    }

    fn found_attr(&self, el: roxmltree::Node, a: roxmltree::Attribute) -> Found {
        let qname = &self.text[a.range_qname()];
        Found {
            kind: "attribute".into(),
            path: format!("{}/@{qname}", self.path_of(el)),
            name: qname.to_string(),
            range: a.range(),
            body: Some(a.range_value()),
            signature: None,
            depth: Self::depth(el) + 1,
        }
    }

    /// Every element, as an outline entry whose path selects it again (refused past
    /// [`filekit_semantic::bounds::MAX_RESULT_BYTES`] of paths).
    pub fn outline(&self) -> Result<Vec<Found>, FkError> {
        let mut budget = filekit_semantic::bounds::ResultBudget::default();
        // Each path is its parent's and one step, made as the walk goes down (elements come
        // after their parents): an element costs its path's length, not a walk up its depth.
        let mut path = String::new();
        // The elements the walk is inside, each with the length of its parent's path.
        let mut open: Vec<(roxmltree::NodeId, usize)> = Vec::new();
        self.doc
            .descendants()
            .filter(|n| n.is_element())
            .map(|n| {
                let parent = n.parent().map(|p| p.id());
                while let Some(&(id, len)) = open.last() {
                    if Some(id) == parent {
                        break;
                    }
                    open.pop();
                    path.truncate(len);
                }
                open.push((n.id(), path.len()));
                path.push('/');
                path.push_str(&self.steps[n.id().get_usize()]);
                let f = self.found_at(n, path.clone(), open.len() - 1);
                budget.spend(f.path.len(), "the outline of this XML file")?;
                Ok(f)
            })
            .collect()
    }

    /// The replacement an operation makes at a match: elements as markup (see
    /// `html::plan_markup`); an attribute's `replace_body` sets its value, `delete` takes it
    /// with the space before it; text and comments are replaced or deleted.
    pub fn plan(
        &self,
        target: &Found,
        op: &Operation,
        content: &str,
        unit: &str,
    ) -> Result<Splice, FkError> {
        let text = self.text;
        match target.kind.as_str() {
            "element" if !matches!(op, Operation::InsertInto(_)) => {
                plan_markup(text, target, &[], op, content, unit)
            }
            "element" => {
                let children: Vec<Range<usize>> = self
                    .doc
                    .descendants()
                    .find(|n| n.is_element() && n.range() == target.range)
                    .map(|n| {
                        n.children()
                            .filter(|c| c.is_element())
                            .map(|c| c.range())
                            .collect()
                    })
                    .unwrap_or_default();
                plan_markup(text, target, &children, op, content, unit)
            }
            "attribute" => {
                let r = &target.range;
                match op {
                    Operation::Replace => Ok(Splice::new(r.start, r.end, content.trim().to_string())),
                    Operation::ReplaceBody => {
                        let b = target.body.clone().expect("attributes have a value");
                        let quote = text[..b.start].chars().last().unwrap_or('"');
                        let v = if quote == '"' {
                            content.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")
                        } else {
                            content.replace('&', "&amp;").replace('\'', "&apos;").replace('<', "&lt;")
                        };
                        Ok(Splice::new(b.start, b.end, v))
                    }
                    Operation::Delete => {
                        let s = text[..r.start].trim_end().len();
                        Ok(Splice::new(s, r.end, String::new()))
                    }
                    Operation::InsertBefore => Ok(Splice::new(r.start, r.start, format!("{} ", content.trim()))),
                    Operation::InsertAfter => Ok(Splice::new(r.end, r.end, format!(" {}", content.trim()))),
                    _ => Err(FkError::invalid(format!("{} does not apply to an attribute", op.name()))
                        .with_hint("attributes: replace, replace_body (the value), insert_before, insert_after, delete")),
                }
            }
            _ => match op {
                Operation::Replace
                | Operation::Delete
                | Operation::InsertBefore
                | Operation::InsertAfter => {
                    let r = &target.range;
                    Ok(match op {
                        Operation::Replace => Splice::new(r.start, r.end, content.to_string()),
                        Operation::Delete => Splice::new(r.start, r.end, String::new()),
                        Operation::InsertBefore => {
                            Splice::new(r.start, r.start, content.to_string())
                        }
                        _ => Splice::new(r.end, r.end, content.to_string()),
                    })
                }
                _ => Err(FkError::invalid(format!(
                    "{} does not apply to a {} node",
                    op.name(),
                    target.kind
                ))
                .with_hint("text and comment nodes: replace, delete, insert_before, insert_after")),
            },
        }
    }
}

/// `<!DOCTYPE x [ … ]>` with its internal subset replaced by spaces (byte lengths kept).
fn blank_doctype(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(start) = text.find("<!DOCTYPE") else {
        return text.into();
    };
    let Some(open) = text[start..].find('[').map(|i| start + i) else {
        return text.into();
    };
    let Some(close) = text[open..].find("]>").map(|i| open + i) else {
        return text.into();
    };
    if text[start..open].contains('>') {
        return text.into();
    }
    let mut s = String::with_capacity(text.len());
    s.push_str(&text[..open]);
    s.extend(
        text[open..=close]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' }),
    );
    s.push_str(&text[close + 1..]);
    s.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use filekit_semantic::ops::Position;

    const POM: &str = "<?xml version=\"1.0\"?>\n<!-- the project -->\n<project id=\"p\">\n  <name>demo</name>\n  <deps>\n    <dep id=\"a\" version=\"1\"/>\n    <dep id=\"b\" version=\"2\"/>\n  </deps>\n</project>\n";

    fn texts(xpath: &str) -> Vec<String> {
        let doc = XmlDoc::parse(POM).unwrap();
        doc.query(xpath)
            .unwrap()
            .iter()
            .map(|f| POM[f.range.clone()].to_string())
            .collect()
    }

    #[test]
    fn xpath_matches_have_their_bytes() {
        assert_eq!(texts("//dep[@id='b']"), ["<dep id=\"b\" version=\"2\"/>"]);
        assert_eq!(texts("/project/name/text()"), ["demo"]);
        assert_eq!(texts("//dep/@version"), ["version=\"1\"", "version=\"2\""]);
        assert_eq!(texts("//dep[last()]/@id"), ["id=\"b\""]);
        assert_eq!(texts("/comment()"), ["<!-- the project -->"]);
        assert_eq!(texts("//*[count(dep) = 2]").len(), 1);
        let doc = XmlDoc::parse(POM).unwrap();
        for f in doc.outline().unwrap() {
            let again = doc.query(&f.path).unwrap();
            assert_eq!(again[0].range, f.range, "{}", f.path);
        }
        let err = doc.query("//dep[@id='a'").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let err = doc.query("//dep]").unwrap_err();
        assert!(err.message.contains("at character 6"), "{err:?}");
        let err = doc.query("count(//dep)").unwrap_err();
        assert!(err.message.contains("number 2"), "{err:?}");
        let err = doc.query("//dependency").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(err.hint.unwrap().contains("/project/deps/dep[1]"));
    }

    #[test]
    fn the_outline_names_each_element_as_a_walk_up_from_it_would() {
        let text = "<r><a><b/><c><d/><d/></c></a><e/><a><b/></a><!-- x --><e><f/></e></r>";
        let doc = XmlDoc::parse(text).unwrap();
        let outline = doc.outline().unwrap();
        let elements: Vec<_> = doc.doc.descendants().filter(|n| n.is_element()).collect();
        assert_eq!(outline.len(), elements.len());
        for (f, n) in outline.iter().zip(elements) {
            assert_eq!(f.path, doc.path_of(n));
            assert_eq!(f.depth, XmlDoc::depth(n), "{}", f.path);
        }
        assert_eq!(outline[6].path, "/r/e[1]");
        assert_eq!(outline[10].path, "/r/e[2]/f");
        assert_eq!(outline[10].depth, 2);
    }

    #[test]
    fn default_namespaces_get_a_prefix() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><g><rect width=\"1\"/></g></svg>";
        let doc = XmlDoc::parse(svg).unwrap();
        let f = doc.query("//d:rect").unwrap();
        assert_eq!(&svg[f[0].range.clone()], "<rect width=\"1\"/>");
        assert_eq!(f[0].path, "/d:svg/d:g/d:rect");
        assert!(
            doc.query("//rect")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("d:name")
        );
    }

    #[test]
    fn edits_of_elements_and_attributes() {
        let doc = XmlDoc::parse(POM).unwrap();
        let one = |xpath: &str, op: Operation, content: &str| {
            let f = &doc.query(xpath).unwrap()[0];
            let out = apply(POM, &[doc.plan(f, &op, content, "  ").unwrap()]);
            assert!(check(&out).is_none(), "{out}");
            out
        };
        assert!(
            one(
                "/project/deps",
                Operation::InsertInto(Position::Last),
                "<dep id=\"c\"/>"
            )
            .contains("version=\"2\"/>\n    <dep id=\"c\"/>\n  </deps>")
        );
        assert!(
            one("//dep[1]/@version", Operation::ReplaceBody, "1 < 2")
                .contains("version=\"1 &lt; 2\"")
        );
        assert!(one("//dep[1]/@version", Operation::Delete, "").contains("<dep id=\"a\"/>"));
        assert!(one("/project/name", Operation::ReplaceBody, "x").contains("<name>x</name>"));
        assert_eq!(
            one("//dep[2]", Operation::Delete, ""),
            POM.replace("    <dep id=\"b\" version=\"2\"/>\n", "")
        );
        assert!(check("<a><b></a>").unwrap().message.contains("line 1"));
    }
}
