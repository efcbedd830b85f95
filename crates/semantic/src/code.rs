//! Code symbols with tree-sitter: every definition of a file as a path (`UserService`,
//! `UserService.findById`, `config.server.start`), its kind, range, body and signature; the
//! import and export regions; the imports a symbol uses.
//!
//! Definitions are found by walking the syntax tree with a table of definition node kinds per
//! language rather than with the grammars' tags queries: the TypeScript query misses
//! definitions (class fields, object-literal methods, exported arrow functions), and the walk gives nesting (paths) for free.

use crate::ops::Splice;
use crate::{Dependency, Found, Lang, suggest};
use filekit_errors::{ErrorCode, FkError};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use tree_sitter::{Node, Tree};

/// A parsed source file.
pub struct Code<'t> {
    pub lang: Lang,
    pub text: &'t str,
    tree: Tree,
    /// The file's imports, found once: every target of a read asks for its dependencies
    /// (a region of 20,000 exports asked 20,000 times, each a walk of every statement).
    imports: std::cell::OnceCell<HashMap<String, String>>,
}

pub(crate) fn language(lang: Lang) -> tree_sitter::Language {
    match lang {
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
        Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
        Lang::Go => tree_sitter_go::LANGUAGE.into(),
        Lang::Java => tree_sitter_java::LANGUAGE.into(),
        Lang::Css => tree_sitter_css::LANGUAGE.into(),
        Lang::Yaml => tree_sitter_yaml::LANGUAGE.into(),
        Lang::Html => tree_sitter_html::LANGUAGE.into(),
        Lang::Json | Lang::Jsonl | Lang::Markdown | Lang::Xml => {
            unreachable!("not a tree-sitter language here")
        }
    }
}

/// The first syntax error of a tree, as (byte offset, what was wrong).
fn first_error(node: Node) -> Option<(usize, String)> {
    if !node.has_error() {
        return None;
    }
    if node.is_missing() {
        return Some((node.start_byte(), format!("missing {}", node.kind())));
    }
    if node.is_error() {
        return Some((node.start_byte(), "unexpected syntax".to_string()));
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if let Some(e) = first_error(child) {
            return Some(e);
        }
    }
    Some((node.start_byte(), "syntax error".to_string()))
}

/// The first syntax error of a tree-sitter tree, with its line and column.
pub fn syntax_error_at(text: &str, root: Node) -> Option<FkError> {
    let (at, what) = first_error(root)?;
    let pos = crate::position(text, at);
    Some(
        FkError::new(
            ErrorCode::ParseError,
            format!(
                "syntax error at line {}, column {}: {what}",
                pos.line,
                pos.column + 1
            ),
        )
        .with_details(json!({"line": pos.line, "column": pos.column + 1})),
    )
}

impl<'t> Code<'t> {
    /// `text` parsed; refused (`TOO_LARGE`) when its syntax tree nests deeper than
    /// [`crate::bounds::MAX_DEPTH`], before anything walks it.
    pub fn parse(lang: Lang, text: &'t str) -> Result<Code<'t>, FkError> {
        let tree = crate::bounds::parse(lang, text, None, false)?;
        Ok(Code {
            lang,
            text,
            tree,
            imports: std::cell::OnceCell::new(),
        })
    }

    /// `new_text` (this text with `splices`, sorted and disjoint, applied) parsed
    /// incrementally: tree-sitter reuses the unchanged parts of this tree, so checking an
    /// edited file costs about what the edit touched, not a second full parse.
    /// Refused like [`Code::parse`] when the new tree nests too deep.
    pub fn reparse<'n>(
        &self,
        new_text: &'n str,
        splices: &crate::ops::Splices,
    ) -> Result<Code<'n>, FkError> {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                self.text
                    .bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let point = |at: usize| {
            let row = starts.partition_point(|&s| s <= at) - 1;
            tree_sitter::Point {
                row,
                column: at - starts[row],
            }
        };
        let mut tree = self.tree.clone();
        // From the last splice back: the offsets of the ones before still hold.
        for Splice {
            start: s,
            end: e,
            text: new,
        } in splices.iter().rev()
        {
            let start = point(*s);
            let new_end = match new.rfind('\n') {
                Some(i) => tree_sitter::Point {
                    row: start.row + new.bytes().filter(|&b| b == b'\n').count(),
                    column: new.len() - i - 1,
                },
                None => tree_sitter::Point {
                    row: start.row,
                    column: start.column + new.len(),
                },
            };
            tree.edit(&tree_sitter::InputEdit {
                start_byte: *s,
                old_end_byte: *e,
                new_end_byte: s + new.len(),
                start_position: start,
                old_end_position: point(*e),
                new_end_position: new_end,
            });
        }
        let tree = crate::bounds::parse(self.lang, new_text, Some(&tree), true)?;
        Ok(Code {
            lang: self.lang,
            text: new_text,
            tree,
            imports: std::cell::OnceCell::new(),
        })
    }

    /// The first syntax error, as an error with its line and column, or `None`.
    pub fn syntax_error(&self) -> Option<FkError> {
        syntax_error_at(self.text, self.tree.root_node())
    }

    fn node_text(&self, n: Node) -> &'t str {
        &self.text[n.byte_range()]
    }

    /// Every definition of the file, in source order, with nested ones after their parent.
    /// Refused past [`crate::bounds::MAX_RESULT_BYTES`] of paths and signatures: a path
    /// names every definition around its own, so many definitions nested deep would take
    /// the file's size times its depth.
    pub fn symbols(&self) -> Result<Vec<Found>, FkError> {
        Ok(self.all_symbols()?.as_ref().clone())
    }

    /// [`Code::symbols`], shared: a text whose tree a server keeps keeps its symbols beside
    /// it ([`crate::parse_cache`]), so a symbol read again is a look-up, not a walk of the
    /// whole tree.
    fn all_symbols(&self) -> Result<Arc<Vec<Found>>, FkError> {
        if let Some(kept) = crate::parse_cache::symbols(self.lang, self.text) {
            return Ok(kept);
        }
        let found = Arc::new(self.walk_symbols()?);
        crate::parse_cache::keep_symbols(self.lang, self.text, &found);
        Ok(found)
    }

    fn walk_symbols(&self) -> Result<Vec<Found>, FkError> {
        self.walk_symbols_within(None)
    }

    /// The symbols of the nodes that hold one of the occurrences `within` names (see
    /// [`Walk::within`]), or of every node.
    fn walk_symbols_within(
        &self,
        within: Option<(&[usize], usize)>,
    ) -> Result<Vec<Found>, FkError> {
        let mut out = Vec::new();
        let mut budget = crate::bounds::ResultBudget::default();
        let root = self.tree.root_node();
        let mut walk = Walk {
            cursor: root.walk(),
            up: vec![root],
            out: &mut out,
            budget: &mut budget,
            within,
        };
        self.walk(&mut walk, "", 0)?;
        Ok(out)
    }

    /// Visits the named children of the cursor's node, and theirs, with one cursor and the
    /// ancestors kept as it goes down: tree-sitter finds a node's parent (and so its siblings)
    /// by descending from the root again, which in a file of many top-level definitions costs
    /// the file's breadth per look-up.
    fn walk<'a>(&self, w: &mut Walk<'a, '_>, parent: &str, depth: usize) -> Result<(), FkError>
    where
        't: 'a,
    {
        if !w.cursor.goto_first_child() {
            return Ok(());
        }
        loop {
            let child = w.cursor.node();
            if child.is_named() && w.visits(child) {
                match self.definition(child, parent, &w.up) {
                    Some(found) => {
                        let size =
                            found.path.len() + found.signature.as_ref().map_or(0, String::len);
                        w.budget.spend(size, "the symbols of this file")?;
                        let path = found.path.clone();
                        w.out.push(Found { depth, ..found });
                        w.up.push(child);
                        self.walk(w, &path, depth + 1)?;
                        w.up.pop();
                    }
                    None => {
                        w.up.push(child);
                        self.walk(w, parent, depth)?;
                        w.up.pop();
                    }
                }
            }
            if !w.cursor.goto_next_sibling() {
                break;
            }
        }
        w.cursor.goto_parent();
        Ok(())
    }

    /// `node` as a definition, if it is one; `up` holds its ancestors, its parent last.
    fn definition(&self, node: Node, parent: &str, up: &[Node]) -> Option<Found> {
        let (kind, name, body, prefix) = self.classify(node, Up(up))?;
        if name.is_empty() {
            return None;
        }
        let outer = self.outer(node, Up(up));
        let path = match (&prefix, parent.is_empty()) {
            // CSS rules are named by their selector or at-rule alone: dots belong to selectors.
            _ if self.lang == Lang::Css => name.clone(),
            (Some(p), _) => format!("{p}.{name}"),
            (None, true) => name.clone(),
            (None, false) => format!("{parent}.{name}"),
        };
        // A class field's `;` is the class body's token, not the field's: it belongs to it.
        // Its next sibling is looked for only when the text there is a `;` (white space is
        // no node): a sibling is found through the parent, from the root down.
        let mut end = outer.end_byte();
        if self.text[end..]
            .trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '\u{feff}' | '\u{2060}' | '\u{200b}')
            })
            .starts_with(';')
            && let Some(next) = outer.next_sibling()
            && next.kind() == ";"
        {
            end = next.end_byte();
        }
        let sig_end = body.as_ref().map_or(node.end_byte(), |b| b.start);
        let signature = signature_line(&self.text[node.start_byte()..sig_end]);
        Some(Found {
            kind: kind.to_string(),
            path,
            name,
            range: outer.start_byte()..end,
            body,
            signature: Some(signature),
            depth: 0,
        })
    }

    /// The node that holds a definition with what belongs to it: `export`, the single-
    /// declarator `const` statement, Python decorators.
    fn outer<'a>(&self, node: Node<'a>, up: Up<'_, 'a>) -> Node<'a> {
        let mut n = node;
        let mut level = 0;
        if n.kind() == "variable_declarator"
            && let Some(p) = up.nth(0)
            && matches!(p.kind(), "lexical_declaration" | "variable_declaration")
            && p.named_child_count() == 1
        {
            n = p;
            level = 1;
        }
        while let Some(p) = up.nth(level) {
            if matches!(p.kind(), "export_statement" | "decorated_definition") {
                n = p;
                level += 1;
            } else {
                break;
            }
        }
        n
    }

    fn field_text(&self, node: Node, field: &str) -> String {
        node.child_by_field_name(field)
            .map(|n| self.node_text(n).to_string())
            .unwrap_or_default()
    }

    fn body_of(node: Node) -> Option<std::ops::Range<usize>> {
        node.child_by_field_name("body").map(|b| b.byte_range())
    }

    /// (kind, name, body, path prefix that replaces the parent's) of a definition node.
    #[allow(clippy::type_complexity)]
    // Over 200 lines: one table: for each language, which node kinds are definitions, their kind
    // and name; a split per language would cut it where it reads best as one.
    fn classify(
        &self,
        node: Node,
        up: Up,
    ) -> Option<(
        &'static str,
        String,
        Option<std::ops::Range<usize>>,
        Option<String>,
    )> {
        let name = || self.field_text(node, "name");
        let body = || Self::body_of(node);
        let k = node.kind();
        let found = match self.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => match k {
                "class_declaration" | "abstract_class_declaration" | "class" => {
                    ("class", name(), body())
                }
                "function_declaration" | "generator_function_declaration" => {
                    ("function", name(), body())
                }
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    ("method", name(), body())
                }
                "interface_declaration" => ("interface", name(), body()),
                "enum_declaration" => ("enum", name(), body()),
                "type_alias_declaration" => ("type", name(), None),
                "internal_module" | "module" => ("namespace", name(), body()),
                "public_field_definition" | "property_signature" => ("property", name(), None),
                "field_definition" => ("property", self.field_text(node, "property"), None),
                "variable_declarator" => {
                    let value = node.child_by_field_name("value");
                    let value_kind = value.map(|v| v.kind()).unwrap_or("");
                    let top = up
                        .nth(1)
                        .is_some_and(|g| matches!(g.kind(), "program" | "export_statement"));
                    let kind = match value_kind {
                        "arrow_function"
                        | "function_expression"
                        | "function"
                        | "generator_function" => "function",
                        "class" => "class",
                        _ if !top => return None,
                        _ => match up.nth(0).and_then(|p| p.child(0)).map(|c| c.kind()) {
                            Some("const") => "const",
                            _ => "variable",
                        },
                    };
                    let body = value.and_then(|v| {
                        if v.kind() == "object" {
                            Some(v.byte_range())
                        } else {
                            Self::body_of(v)
                        }
                    });
                    (kind, name(), body)
                }
                // Object-literal members with a function or object value
                // (`config.server.start`).
                "pair" => {
                    // Only objects that are themselves named (a const's value, or a member of
                    // such an object): not option bags passed to calls.
                    let named_object = up
                        .nth(1)
                        .is_some_and(|h| matches!(h.kind(), "variable_declarator" | "pair"));
                    if !named_object {
                        return None;
                    }
                    let value = node.child_by_field_name("value")?;
                    let kind = match value.kind() {
                        "arrow_function" | "function_expression" | "function" => "method",
                        "object" => "property",
                        _ => return None,
                    };
                    let key = self.field_text(node, "key");
                    let key = key.trim_matches(|c| c == '"' || c == '\'').to_string();
                    let body = if value.kind() == "object" {
                        Some(value.byte_range())
                    } else {
                        Self::body_of(value)
                    };
                    (kind, key, body)
                }
                _ => return None,
            },
            Lang::Python => match k {
                "class_definition" => ("class", name(), body()),
                "function_definition" => {
                    let mut level = 0;
                    if up
                        .nth(0)
                        .is_some_and(|p| p.kind() == "decorated_definition")
                    {
                        level = 1;
                    }
                    let in_class = up.nth(level).is_some_and(|b| b.kind() == "block")
                        && up
                            .nth(level + 1)
                            .is_some_and(|c| c.kind() == "class_definition");
                    (if in_class { "method" } else { "function" }, name(), body())
                }
                _ => return None,
            },
            Lang::Rust => match k {
                "function_item" | "function_signature_item" => {
                    let in_impl = up
                        .nth(1)
                        .is_some_and(|g| matches!(g.kind(), "impl_item" | "trait_item"));
                    (if in_impl { "method" } else { "function" }, name(), body())
                }
                "struct_item" => ("struct", name(), body()),
                "enum_item" => ("enum", name(), body()),
                "union_item" => ("union", name(), body()),
                "trait_item" => ("trait", name(), body()),
                "mod_item" => ("module", name(), body()),
                "const_item" => ("const", name(), None),
                "static_item" => ("static", name(), None),
                "type_item" => ("type", name(), None),
                "macro_definition" => ("macro", name(), None),
                // `impl Foo` and `impl Trait for Foo`: methods are `Foo.method`.
                "impl_item" => {
                    let ty = self.field_text(node, "type");
                    let ty = ty.split('<').next().unwrap_or("").trim().to_string();
                    return Some(("impl", ty, body(), None));
                }
                _ => return None,
            },
            Lang::Go => match k {
                "function_declaration" => ("function", name(), body()),
                "method_declaration" => {
                    let receiver = node.child_by_field_name("receiver").and_then(|r| {
                        let mut stack = vec![r];
                        while let Some(n) = stack.pop() {
                            if n.kind() == "type_identifier" {
                                return Some(self.node_text(n).to_string());
                            }
                            let mut c = n.walk();
                            stack.extend(
                                n.named_children(&mut c)
                                    .collect::<Vec<_>>()
                                    .into_iter()
                                    .rev(),
                            );
                        }
                        None
                    });
                    return Some(("method", name(), body(), receiver));
                }
                "type_spec" => {
                    let ty = node.child_by_field_name("type");
                    let kind = match ty.map(|t| t.kind()) {
                        Some("struct_type") => "struct",
                        Some("interface_type") => "interface",
                        _ => "type",
                    };
                    let body = ty
                        .filter(|t| matches!(t.kind(), "struct_type" | "interface_type"))
                        .and_then(|t| {
                            let mut c = t.walk();
                            t.named_children(&mut c)
                                .find(|n| n.kind().ends_with("_list"))
                                .map(|n| n.byte_range())
                        });
                    (kind, name(), body)
                }
                "const_spec" | "var_spec" => {
                    let top = up.nth(1).is_some_and(|g| g.kind() == "source_file");
                    if !top {
                        return None;
                    }
                    (
                        if k == "const_spec" {
                            "const"
                        } else {
                            "variable"
                        },
                        name(),
                        None,
                    )
                }
                _ => return None,
            },
            Lang::Java => match k {
                "class_declaration" => ("class", name(), body()),
                "interface_declaration" => ("interface", name(), body()),
                "enum_declaration" => ("enum", name(), body()),
                "record_declaration" => ("record", name(), body()),
                "annotation_type_declaration" => ("annotation", name(), body()),
                "method_declaration" => ("method", name(), body()),
                "constructor_declaration" => ("constructor", name(), body()),
                "field_declaration" | "constant_declaration" => {
                    let decl = node.child_by_field_name("declarator")?;
                    ("field", self.field_text(decl, "name"), None)
                }
                _ => return None,
            },
            Lang::Css => {
                let block = || {
                    let mut c = node.walk();
                    node.named_children(&mut c)
                        .find(|n| n.kind() == "block")
                        .map(|b| b.byte_range())
                };
                match k {
                    "rule_set" => {
                        let sel = node
                            .child_by_field_name("selectors")
                            .or_else(|| node.named_child(0))?;
                        ("rule", signature_line(self.node_text(sel)), block())
                    }
                    "media_statement"
                    | "supports_statement"
                    | "keyframes_statement"
                    | "at_rule"
                    | "scope_statement"
                    | "namespace_statement" => {
                        let head_end = block().map_or(node.end_byte(), |b| b.start);
                        let head = signature_line(&self.text[node.start_byte()..head_end]);
                        ("at-rule", head, block())
                    }
                    _ => return None,
                }
            }
            Lang::Json | Lang::Jsonl | Lang::Markdown | Lang::Yaml | Lang::Html | Lang::Xml => {
                return None;
            }
        };
        Some((found.0, found.1, found.2, None))
    }

    /// The symbols of `all` that `target` names: those whose path it is, else those whose
    /// path ends with it (a CSS rule by one of its selectors); a Rust `impl` only when no
    /// other is named.
    fn candidates<'a>(&self, all: &'a [Found], target: &str) -> Vec<&'a Found> {
        let exact: Vec<&Found> = all.iter().filter(|f| f.path == target).collect();
        let candidates = if exact.is_empty() && self.lang == Lang::Css {
            // `.button` names a rule whose selector list holds it; `@media screen` an at-rule
            // that starts so.
            let wanted = signature_line(target);
            all.iter()
                .filter(|f| {
                    f.path.split(',').any(|s| s.trim() == wanted)
                        || (wanted.starts_with('@') && f.path.starts_with(&wanted))
                })
                .collect()
        } else if exact.is_empty() {
            let suffix = format!(".{target}");
            all.iter().filter(|f| f.path.ends_with(&suffix)).collect()
        } else {
            exact
        };
        // A Rust `impl Foo` shares its name with `struct Foo`: the type is what is meant.
        if candidates.iter().any(|f| f.kind != "impl") {
            candidates
                .into_iter()
                .filter(|f| f.kind != "impl")
                .collect()
        } else {
            candidates
        }
    }

    /// The one symbol `target` names, found by walking only the parts of the tree whose text
    /// holds its last name (a definition's name is text inside its range, so one named so
    /// lies in no other part): a one-shot read of one symbol in a large file then walks a
    /// small part of it. `None` when that finds none or several (the whole walk then says
    /// what is there), when a server keeps the file's symbols (a look-up), and for CSS,
    /// whose rules are named by their selectors with their white space made one.
    fn find_by_name(&self, target: &str) -> Option<Found> {
        if self.lang == Lang::Css || crate::parse_cache::keeping() {
            return None;
        }
        self.find_in_parts(target)
    }

    /// [`Code::find_by_name`]'s walk of the parts that hold the target's last name.
    fn find_in_parts(&self, target: &str) -> Option<Found> {
        let last = target.rsplit('.').next().filter(|n| !n.is_empty())?;
        // Every occurrence, overlapping ones too (`aa` twice in `aaa`).
        let step = last.chars().next().map_or(1, char::len_utf8);
        let mut at = Vec::new();
        let mut from = 0;
        while let Some(i) = self.text[from..].find(last) {
            at.push(from + i);
            from += i + step;
        }
        if at.is_empty() {
            return None;
        }
        let out = self.walk_symbols_within(Some((&at, last.len()))).ok()?;
        match self.candidates(&out, target).as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// The symbol `target` names: its full path, or a unique path suffix (`findById` for
    /// `UserService.findById`). Errors list the nearest symbols, or every candidate when the
    /// name is ambiguous.
    pub fn find(&self, target: &str) -> Result<Found, FkError> {
        let target = target.trim();
        if let Some(found) = self.find_by_name(target) {
            return Ok(found);
        }
        let all = self.all_symbols()?;
        let candidates = self.candidates(&all, target);
        match candidates.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(suggest::not_found(
                "symbol",
                target,
                &all,
                "name nested symbols by path, e.g. Class.method (format \"summary\" lists them all)",
            )),
            many => {
                let listed: Vec<String> = many
                    .iter()
                    .map(|f| {
                        let p = crate::position(self.text, f.range.start);
                        format!("{} ({}, line {})", f.path, f.kind, p.line)
                    })
                    .collect();
                Err(FkError::new(
                    ErrorCode::Ambiguous,
                    format!("symbol '{target}' matches {} symbols: {}", many.len(), listed.join(", ")),
                )
                .with_hint("name one by its full path (Parent.name); for two definitions with the same path, edit by line range")
                .with_details(json!({"candidates": many.iter().map(|f| json!({"target": f.path, "kind": f.kind, "line": crate::position(self.text, f.range.start).line})).collect::<Vec<_>>()})))
            }
        }
    }

    /// The top-level import (`imports`) or export (`exports`) statements.
    pub fn region(&self, region: &str) -> Result<Vec<Found>, FkError> {
        let kinds: &[&str] = match (region, self.lang) {
            ("imports", Lang::TypeScript | Lang::Tsx | Lang::JavaScript) => &["import_statement"],
            ("imports", Lang::Python) => &[
                "import_statement",
                "import_from_statement",
                "future_import_statement",
            ],
            ("imports", Lang::Rust) => &["use_declaration", "extern_crate_declaration"],
            ("imports", Lang::Go) => &["import_declaration"],
            ("imports", Lang::Java) => &["import_declaration"],
            ("imports", Lang::Css) => &["import_statement"],
            ("exports", Lang::TypeScript | Lang::Tsx | Lang::JavaScript) => &["export_statement"],
            ("exports", _) => {
                return Err(FkError::invalid(
                    "region 'exports' is for TypeScript and JavaScript files",
                )
                .with_hint("read the file's outline with format \"summary\" instead"));
            }
            _ => {
                return Err(FkError::invalid(format!("unknown region '{region}'"))
                    .with_hint("regions: imports, exports"));
            }
        };
        let root = self.tree.root_node();
        let mut cursor = root.walk();
        let found = root
            .named_children(&mut cursor)
            .filter(|n| kinds.contains(&n.kind()))
            .map(|n| Found {
                kind: n.kind().to_string(),
                path: region.to_string(),
                name: region.to_string(),
                range: n.byte_range(),
                body: None,
                signature: None,
                depth: 0,
            })
            .collect();
        Ok(found)
    }

    /// The imports of the file as local name -> module.
    fn imports(&self) -> &HashMap<String, String> {
        self.imports.get_or_init(|| self.find_imports())
    }

    fn find_imports(&self) -> HashMap<String, String> {
        let mut map = HashMap::new();
        let root = self.tree.root_node();
        let mut cursor = root.walk();
        for stmt in root.named_children(&mut cursor) {
            match (self.lang, stmt.kind()) {
                (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "import_statement") => {
                    let from = self
                        .field_text(stmt, "source")
                        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                        .to_string();
                    let mut stack = vec![stmt];
                    while let Some(n) = stack.pop() {
                        match n.kind() {
                            "import_specifier" => {
                                let local = n
                                    .child_by_field_name("alias")
                                    .or_else(|| n.child_by_field_name("name"));
                                if let Some(l) = local {
                                    map.insert(self.node_text(l).to_string(), from.clone());
                                }
                            }
                            "identifier" => {
                                map.insert(self.node_text(n).to_string(), from.clone());
                            }
                            "string" => {}
                            _ => {
                                let mut c = n.walk();
                                stack.extend(n.named_children(&mut c).collect::<Vec<_>>());
                            }
                        }
                    }
                }
                (Lang::Python, "import_from_statement") => {
                    let from = self.field_text(stmt, "module_name");
                    let mut c = stmt.walk();
                    for name in stmt.children_by_field_name("name", &mut c) {
                        let local = if name.kind() == "aliased_import" {
                            self.field_text(name, "alias")
                        } else {
                            self.node_text(name).to_string()
                        };
                        map.insert(local, from.clone());
                    }
                }
                (Lang::Python, "import_statement") => {
                    let mut c = stmt.walk();
                    for name in stmt.children_by_field_name("name", &mut c) {
                        let (local, module) = if name.kind() == "aliased_import" {
                            (
                                self.field_text(name, "alias"),
                                self.field_text(name, "name"),
                            )
                        } else {
                            let t = self.node_text(name).to_string();
                            (t.split('.').next().unwrap_or("").to_string(), t)
                        };
                        map.insert(local, module);
                    }
                }
                _ => {}
            }
        }
        map
    }

    /// The imports the text in `range` uses, in order of first use. Empty for languages
    /// whose imports are not mapped yet (Rust, Go, Java).
    pub fn dependencies(&self, range: std::ops::Range<usize>) -> Vec<Dependency> {
        let imports = self.imports();
        if imports.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Dependency> = Vec::new();
        let Some(start) = self
            .tree
            .root_node()
            .descendant_for_byte_range(range.start, range.end)
        else {
            return out;
        };
        let mut stack = vec![start];
        let mut seen = Vec::new();
        while let Some(n) = stack.pop() {
            if n.end_byte() <= range.start || n.start_byte() >= range.end {
                continue;
            }
            if n.child_count() == 0 && n.kind().ends_with("identifier") {
                let name = self.node_text(n);
                if imports.contains_key(name) && !seen.iter().any(|s: &(usize, String)| s.1 == name)
                {
                    seen.push((n.start_byte(), name.to_string()));
                }
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c).collect::<Vec<_>>());
        }
        seen.sort();
        for (_, name) in seen {
            out.push(Dependency {
                from: imports[&name].clone(),
                symbol: name,
            });
        }
        out
    }
}

/// The state of [`Code::symbols`]' walk.
struct Walk<'a, 'tree> {
    cursor: tree_sitter::TreeCursor<'tree>,
    /// The ancestors of the cursor's node and the node itself, the root first.
    up: Vec<Node<'tree>>,
    out: &'a mut Vec<Found>,
    budget: &'a mut crate::bounds::ResultBudget,
    /// Where a name starts in the text (sorted) and its length: only nodes that hold one of
    /// its occurrences whole are visited. `None`: every node.
    within: Option<(&'a [usize], usize)>,
}

impl Walk<'_, '_> {
    /// Whether the walk visits `node`.
    fn visits(&self, node: Node) -> bool {
        let Some((at, len)) = self.within else {
            return true;
        };
        let i = at.partition_point(|&o| o < node.start_byte());
        at.get(i).is_some_and(|&o| o + len <= node.end_byte())
    }
}

/// The ancestors of a node, its parent last.
#[derive(Clone, Copy)]
struct Up<'a, 'tree>(&'a [Node<'tree>]);

impl<'tree> Up<'_, 'tree> {
    /// The ancestor `level` levels above the node's parent (0: the parent).
    fn nth(self, level: usize) -> Option<Node<'tree>> {
        let i = self.0.len().checked_sub(level + 1)?;
        Some(self.0[i])
    }
}

/// A declaration's head on one line: white space runs become one space, a trailing `{`, `:`
/// (Python) or `=` (a const before its value) is dropped.
fn signature_line(s: &str) -> String {
    crate::style::one_line(s)
        .trim_end_matches(['{', ':', '=', ';'])
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(lang: Lang, src: &str) -> Vec<String> {
        Code::parse(lang, src)
            .unwrap()
            .symbols()
            .unwrap()
            .into_iter()
            .map(|f| format!("{} {}", f.kind, f.path))
            .collect()
    }

    /// The walk of the parts that hold a name finds what the whole walk finds, for every
    /// symbol of a file and for names that are not there or ambiguous.
    #[test]
    fn a_symbol_found_in_the_parts_that_hold_its_name_is_the_one_the_whole_walk_finds() {
        let sources = [
            (
                Lang::TypeScript,
                "import { Db } from './db';\nexport class A {\n  a: number;\n  f(x: number) {\n    const g = () => { function h() {} };\n    return x;\n  }\n}\nexport class AA extends A { f() {} aa = 1; }\nconst config = { server: { start() {}, 'a.b': () => 1 } };\nexport const handler = async () => 1;\ninterface I { f(): void; p: string }\n",
            ),
            (
                Lang::Python,
                "class A:\n    @staticmethod\n    def f(x):\n        def g():\n            pass\n        return g\n\ndef f():\n    pass\n\nclass AA(A):\n    def f(self):\n        pass\n",
            ),
            (
                Lang::Rust,
                "struct S { a: u8 }\nimpl S {\n    fn new() -> S { S { a: 0 } }\n}\ntrait T { fn t(&self); }\nimpl T for S { fn t(&self) {} }\nconst C: u8 = 1;\nmod m { fn new() {} }\n",
            ),
            (
                Lang::Go,
                "package p\ntype S struct { a int }\nfunc (s *S) Get() int { return s.a }\nfunc Get() {}\nconst C = 1\n",
            ),
            (
                Lang::Java,
                "class A { int x; void f() {} class B { void f() {} } }\n",
            ),
        ];
        for (lang, src) in sources {
            let code = Code::parse(lang, src).unwrap();
            let all = code.walk_symbols().unwrap();
            let mut targets: Vec<String> = all.iter().map(|f| f.path.clone()).collect();
            targets.extend(all.iter().map(|f| f.name.clone()));
            targets.extend(["nowhere", "a", "S.nowhere", "b", "A.f", "f"].map(String::from));
            for target in &targets {
                let whole = match code.candidates(&all, target).as_slice() {
                    [one] => Some((*one).clone()),
                    _ => None,
                };
                let parts = code.find_in_parts(target);
                assert_eq!(
                    parts
                        .as_ref()
                        .map(|f| (&f.path, &f.kind, &f.range, &f.signature, f.depth)),
                    whole
                        .as_ref()
                        .map(|f| (&f.path, &f.kind, &f.range, &f.signature, f.depth)),
                    "{lang:?} {target}"
                );
            }
        }
    }

    #[test]
    fn a_class_field_takes_its_semicolon_and_nothing_after_it() {
        let src = "export class A {\n  a: number;\n  b = 2 \t ;\n  c: string\n  // note\n  ;\n  d = 1\n  f() {}\n}\n";
        let code = Code::parse(Lang::TypeScript, src).unwrap();
        let text = |path: &str| &src[code.find(path).unwrap().range];
        assert_eq!(text("A.a"), "a: number;");
        assert_eq!(text("A.b"), "b = 2 \t ;");
        // A comment between: the `;` is not the field's next sibling.
        assert_eq!(text("A.c"), "c: string");
        assert_eq!(text("A.d"), "d = 1");
        assert_eq!(text("A.f"), "f() {}");
    }

    #[test]
    fn typescript_symbols_are_paths() {
        let src = "import { Database } from '../db';\n\
            export class UserService {\n  private db: Database;\n  async findById(id: string): Promise<User> {\n    function inner() {}\n    return this.db.find(id);\n  }\n}\n\
            export interface User { id: string }\n\
            export enum Color { Red }\n\
            type Alias = string;\n\
            export const handler = async (x: number) => { return x; };\n\
            const config = { server: { start() {}, stop: () => 1 } };\n\
            let counter = 0;\n";
        assert_eq!(
            paths(Lang::TypeScript, src),
            [
                "class UserService",
                "property UserService.db",
                "method UserService.findById",
                "function UserService.findById.inner",
                "interface User",
                "property User.id",
                "enum Color",
                "type Alias",
                "function handler",
                "const config",
                "property config.server",
                "method config.server.start",
                "method config.server.stop",
                "variable counter",
            ]
        );
    }

    #[test]
    fn exported_symbols_start_at_export_and_signatures_drop_bodies() {
        let src =
            "export class A {\n  async f(id: string): Promise<number> {\n    return 1;\n  }\n}\n";
        let code = Code::parse(Lang::TypeScript, src).unwrap();
        let a = code.find("A").unwrap();
        assert_eq!(&src[a.range.clone()], src.trim_end());
        assert_eq!(a.signature.as_deref(), Some("class A"));
        let f = code.find("f").unwrap();
        assert_eq!(f.path, "A.f");
        assert_eq!(
            f.signature.as_deref(),
            Some("async f(id: string): Promise<number>")
        );
    }

    #[test]
    fn missing_and_ambiguous_symbols_say_what_exists() {
        let src = "class A { run() {} }\nclass B { run() {} }\n";
        let code = Code::parse(Lang::TypeScript, src).unwrap();
        let err = code.find("run").unwrap_err();
        assert_eq!(err.code, ErrorCode::Ambiguous);
        assert!(
            err.message.contains("A.run") && err.message.contains("B.run"),
            "{err:?}"
        );
        let err = code.find("A.rn").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(
            err.hint
                .as_deref()
                .unwrap()
                .starts_with("nearest available: A.run (method)"),
            "{err:?}"
        );
    }

    #[test]
    fn dependencies_are_the_imports_a_symbol_uses() {
        let src = "import { Database } from '../db';\nimport type { User } from '../types';\nimport fs from 'fs';\n\
            export class S {\n  db: Database;\n  get(): User | null { return null; }\n}\nfunction g() { fs.readFileSync('x'); }\n";
        let code = Code::parse(Lang::TypeScript, src).unwrap();
        let s = code.find("S").unwrap();
        assert_eq!(
            code.dependencies(s.range),
            [
                Dependency {
                    symbol: "Database".into(),
                    from: "../db".into()
                },
                Dependency {
                    symbol: "User".into(),
                    from: "../types".into()
                },
            ]
        );
    }

    #[test]
    fn other_languages_name_their_definitions() {
        assert_eq!(
            paths(
                Lang::Python,
                "import os\nclass A:\n    @staticmethod\n    def f(x):\n        def g():\n            pass\n        return g\n\ndef top():\n    pass\n"
            ),
            ["class A", "method A.f", "function A.f.g", "function top"]
        );
        assert_eq!(
            paths(
                Lang::Rust,
                "struct S { a: u8 }\nimpl S {\n    fn new() -> S { S { a: 0 } }\n}\ntrait T { fn t(&self); }\nconst C: u8 = 1;\n"
            ),
            [
                "struct S",
                "impl S",
                "method S.new",
                "trait T",
                "method T.t",
                "const C"
            ]
        );
        assert_eq!(
            paths(
                Lang::Go,
                "package p\ntype S struct { A int }\nfunc (s *S) Run() error { return nil }\nfunc main() {}\nconst X = 1\n"
            ),
            ["struct S", "method S.Run", "function main", "const X"]
        );
        assert_eq!(
            paths(
                Lang::Java,
                "class A {\n  private int x;\n  A() {}\n  void run() {}\n  interface I { void go(); }\n}\n"
            ),
            [
                "class A",
                "field A.x",
                "constructor A.A",
                "method A.run",
                "interface A.I",
                "method A.I.go"
            ]
        );
    }

    #[test]
    fn css_rules_by_selector_and_at_rule() {
        let src = ".button, .link {\n  padding: 8px;\n}\n@media screen and (max-width: 600px) {\n  .button { padding: 4px; }\n}\n";
        assert_eq!(
            paths(Lang::Css, src),
            [
                "rule .button, .link",
                "at-rule @media screen and (max-width: 600px)",
                "rule .button"
            ]
        );
        let code = Code::parse(Lang::Css, src).unwrap();
        let media = code.find("@media screen").unwrap();
        assert!(src[media.range.clone()].starts_with("@media screen"));
        // A rule whose whole selector is `.button` wins over a list that holds it.
        assert_eq!(code.find(".button").unwrap().depth, 1);
        let twice = Code::parse(Lang::Css, "a { color: red; }\na { margin: 0; }\n").unwrap();
        assert_eq!(twice.find("a").unwrap_err().code, ErrorCode::Ambiguous);
        assert_eq!(code.find(".link").unwrap().path, ".button, .link");
        assert_eq!(code.find(".nope").unwrap_err().code, ErrorCode::NotFound);
    }

    #[test]
    fn incremental_reparse_agrees_with_a_full_parse() {
        let text = "function f() {\n  return 1;\n}\nclass A {\n  m() {}\n}\n";
        let code = Code::parse(Lang::TypeScript, text).unwrap();
        let one = text.find('1').unwrap();
        let body = text.find("{}").unwrap();
        let splices = vec![
            Splice::new(one, one + 1, "2 +\n    3"),
            Splice::new(body, body + 2, "{ return (; }"),
        ];
        let splices = crate::ops::Splices::new(text, splices).unwrap();
        let new = splices.apply(text).unwrap();
        let inc = code.reparse(&new, &splices).unwrap();
        let full = Code::parse(Lang::TypeScript, &new).unwrap();
        assert_eq!(
            inc.tree.root_node().to_sexp(),
            full.tree.root_node().to_sexp()
        );
        assert!(inc.syntax_error().is_some());
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let code = Code::parse(Lang::TypeScript, "function f() {\n  return (1;\n}\n").unwrap();
        let err = code.syntax_error().unwrap();
        assert_eq!(err.code, ErrorCode::ParseError);
        assert!(err.message.contains("line 2"), "{err:?}");
        assert!(
            Code::parse(Lang::TypeScript, "let a = 1;\n")
                .unwrap()
                .syntax_error()
                .is_none()
        );
    }
}
