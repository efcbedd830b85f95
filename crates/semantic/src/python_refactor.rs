//! Syntactic refactors of Python without a language server: rename a binding and its
//! references by Python's scoping rules, organize imports (isort's layout) and remove unused
//! imports. Everything is computed on tree-sitter-python trees as splices of the text as read;
//! nothing here reads files or resolves module names (callers pass closures that do).
//!
//! Scopes are Python's: the module, functions and lambdas, class bodies (not seen from the
//! functions inside them), and comprehensions (whose first iterable is evaluated outside).
//! A name bound anywhere in a scope is local to all of it; `global` and `nonlocal` redirect
//! it. A class attribute is renamed in the class body, through the methods' first parameter
//! (`self.x`, `cls.x`) and through the class's name (`Cls.x`); what flows through other
//! objects is out of reach of the syntax (replies say `precision: "syntactic"`).
//! String annotations (`"Foo"`, `Optional["Foo"]`, `cast("Foo", x)`) and `__all__` entries
//! are renamed with the names they stand for.

use crate::ops::Splice;
use filekit_errors::{ErrorCode, FkError};
use std::collections::{BTreeMap, HashSet};
use tree_sitter::{Node, Tree};

fn parse(text: &str) -> Result<Tree, FkError> {
    crate::bounds::parse(crate::Lang::Python, text, None, false)
}

/// Python's hard keywords (soft keywords such as `match`, `case`, `type` can name things).
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Refuses a name that cannot be a Python identifier.
pub fn check_identifier(name: &str) -> Result<(), FkError> {
    let mut chars = name.chars();
    let ok_start = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_');
    let ok_rest = chars.all(|c| c.is_alphanumeric() || c == '_');
    if !ok_start || !ok_rest {
        return Err(
            FkError::invalid(format!("`{name}` is not a valid Python identifier")).with_hint(
                "a name starts with a letter or _ and goes on with letters, digits or _",
            ),
        );
    }
    if KEYWORDS.contains(&name) {
        return Err(FkError::invalid(format!("`{name}` is a Python keyword"))
            .with_hint("choose a name that is not a Python keyword"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scopes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Function,
    Class,
    Comprehension,
}

#[derive(Debug)]
struct Scope {
    kind: ScopeKind,
    parent: Option<usize>,
    bound: HashSet<String>,
    globals: HashSet<String>,
    nonlocals: HashSet<String>,
    /// A method's first parameter (`self`, `cls`), when the scope is a method of a class.
    first_param: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OccKind {
    /// An identifier of the code.
    Name,
    /// A name inside a string annotation.
    Str,
    /// An entry of `__all__` (the range is the string's content).
    All,
    /// `X` of `from m import X` without alias: the imported name and the local binding.
    FromImport,
    /// The first name of `import a.b` without alias: bound, but it names a module.
    ModuleImport,
}

#[derive(Debug, Clone)]
struct Occ {
    start: usize,
    end: usize,
    name: String,
    scope: usize,
    binding: bool,
    kind: OccKind,
}

/// `obj.name`.
#[derive(Debug, Clone)]
struct Attr {
    /// The object's text without white space (`self`, `pkg.mod`).
    obj: String,
    /// The object's occurrence when it is a plain name.
    obj_occ: Option<usize>,
    start: usize,
    end: usize,
    name: String,
    scope: usize,
    assigned: bool,
}

/// A function or class definition.
#[derive(Debug, Clone)]
struct Def {
    name: String,
    /// Where its name is bound.
    scope: usize,
    /// Its own scope.
    inner: usize,
    class: bool,
}

/// An imported module spec and how a name of it was imported (for importers).
#[derive(Debug, Clone)]
struct FromItem {
    module: String,
    /// The imported name's range and text.
    name: (usize, usize, String),
    alias: Option<String>,
    scope: usize,
}

#[derive(Debug, Clone)]
struct StraightItem {
    module: String,
    alias: Option<String>,
}

struct Analysis<'t> {
    text: &'t str,
    scopes: Vec<Scope>,
    occs: Vec<Occ>,
    attrs: Vec<Attr>,
    defs: Vec<Def>,
    from_items: Vec<FromItem>,
    /// Modules `from m import *` takes everything from.
    star_from: Vec<String>,
    straight: Vec<StraightItem>,
    kwargs: Vec<Kwarg>,
}

/// `f(name=...)`: the callee (a plain name's occurrence, or an attribute) and the keyword.
#[derive(Debug, Clone)]
struct Kwarg {
    func_occ: Option<usize>,
    func_attr: Option<usize>,
    start: usize,
    end: usize,
    name: String,
}

fn is_comprehension(kind: &str) -> bool {
    matches!(
        kind,
        "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The content range of a plain string literal (no f/b prefix, no interpolation).
fn string_content(text: &str, n: Node) -> Option<(usize, usize)> {
    if n.kind() != "string" {
        return None;
    }
    let mut c = n.walk();
    let mut start = None;
    let mut end = None;
    for ch in n.children(&mut c) {
        match ch.kind() {
            "string_start" => {
                let s = &text[ch.byte_range()];
                if s.chars()
                    .any(|c| c.is_alphabetic() && !matches!(c, 'r' | 'R' | 'u' | 'U'))
                {
                    return None;
                }
                start = Some(ch.end_byte());
            }
            "string_end" => end = Some(ch.start_byte()),
            "interpolation" => return None,
            _ => {}
        }
    }
    Some((start?, end?))
}

impl<'t> Analysis<'t> {
    fn new(text: &'t str, tree: &Tree) -> Analysis<'t> {
        let mut a = Analysis {
            text,
            scopes: vec![Scope {
                kind: ScopeKind::Module,
                parent: None,
                bound: HashSet::new(),
                globals: HashSet::new(),
                nonlocals: HashSet::new(),
                first_param: None,
            }],
            occs: Vec::new(),
            attrs: Vec::new(),
            defs: Vec::new(),
            from_items: Vec::new(),
            star_from: Vec::new(),
            straight: Vec::new(),
            kwargs: Vec::new(),
        };
        a.visit(tree.root_node(), 0, false);
        // A name a function declares `global` and binds is a module binding.
        let mut globals = Vec::new();
        for s in &a.scopes[1..] {
            for g in &s.globals {
                if s.bound.contains(g) {
                    globals.push(g.clone());
                }
            }
        }
        a.scopes[0].bound.extend(globals);
        a
    }

    fn t(&self, n: Node) -> &'t str {
        &self.text[n.byte_range()]
    }

    fn new_scope(&mut self, kind: ScopeKind, parent: usize) -> usize {
        self.scopes.push(Scope {
            kind,
            parent: Some(parent),
            bound: HashSet::new(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            first_param: None,
        });
        self.scopes.len() - 1
    }

    fn occ(&mut self, n: Node, scope: usize, binding: bool, kind: OccKind) -> usize {
        let name = self.t(n).to_string();
        if binding {
            self.scopes[scope].bound.insert(name.clone());
        }
        self.occs.push(Occ {
            start: n.start_byte(),
            end: n.end_byte(),
            name,
            scope,
            binding,
            kind,
        });
        self.occs.len() - 1
    }

    /// Binds the names of an assignment target.
    fn targets(&mut self, n: Node, s: usize) {
        match n.kind() {
            "identifier" => {
                self.occ(n, s, true, OccKind::Name);
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "list_splat_pattern"
            | "parenthesized_expression"
            | "expression_list"
            | "tuple"
            | "list" => {
                let mut c = n.walk();
                let ch: Vec<Node> = n.named_children(&mut c).collect();
                for x in ch {
                    self.targets(x, s);
                }
            }
            "attribute" => self.attribute(n, s, false, true),
            _ => self.visit(n, s, false),
        }
    }

    fn attribute(&mut self, n: Node, s: usize, ann: bool, assigned: bool) {
        let (Some(obj), Some(attr)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("attribute"),
        ) else {
            return;
        };
        let before = self.occs.len();
        self.visit(obj, s, ann);
        let obj_occ = (obj.kind() == "identifier")
            .then(|| (before..self.occs.len()).find(|&i| self.occs[i].start == obj.start_byte()))
            .flatten();
        self.attrs.push(Attr {
            obj: squash(self.t(obj)),
            obj_occ,
            start: attr.start_byte(),
            end: attr.end_byte(),
            name: self.t(attr).to_string(),
            scope: s,
            assigned,
        });
    }

    /// The nearest scope that is not a comprehension (where `:=` binds).
    fn non_comprehension(&self, mut s: usize) -> usize {
        while self.scopes[s].kind == ScopeKind::Comprehension {
            s = self.scopes[s].parent.unwrap_or(0);
        }
        s
    }

    /// Names in a string annotation: `"Foo"`, `"Optional[m.Foo]"`.
    fn string_annotation(&mut self, n: Node, s: usize) {
        let Some((a, b)) = string_content(self.text, n) else {
            return;
        };
        let body = &self.text[a..b];
        let bytes = body.as_bytes();
        let mut i = 0;
        let mut prev_word: Option<(String, Option<usize>)> = None;
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_alphabetic() || c == b'_' {
                let st = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &body[st..i];
                let dotted = st > 0 && bytes[st - 1] == b'.';
                if dotted {
                    if let Some((obj, obj_occ)) = prev_word.clone() {
                        self.attrs.push(Attr {
                            obj: obj.clone(),
                            obj_occ,
                            start: a + st,
                            end: a + i,
                            name: word.to_string(),
                            scope: s,
                            assigned: false,
                        });
                        prev_word = Some((format!("{obj}.{word}"), None));
                    }
                } else if !KEYWORDS.contains(&word) {
                    self.occs.push(Occ {
                        start: a + st,
                        end: a + i,
                        name: word.to_string(),
                        scope: s,
                        binding: false,
                        kind: OccKind::Str,
                    });
                    prev_word = Some((word.to_string(), Some(self.occs.len() - 1)));
                } else {
                    prev_word = None;
                }
            } else {
                if c != b'.' {
                    prev_word = None;
                }
                i += 1;
            }
        }
    }

    fn params(&mut self, params: Node, outer: usize, inner: usize) {
        let mut c = params.walk();
        let ch: Vec<Node> = params.named_children(&mut c).collect();
        for p in ch {
            match p.kind() {
                "identifier" => {
                    self.occ(p, inner, true, OccKind::Name);
                }
                "typed_parameter" => {
                    let mut c2 = p.walk();
                    let kids: Vec<Node> = p.named_children(&mut c2).collect();
                    for k in kids {
                        if k.kind() == "type" {
                            self.visit(k, outer, true);
                        } else {
                            self.param_name(k, inner);
                        }
                    }
                }
                "default_parameter" | "typed_default_parameter" => {
                    if let Some(t) = p.child_by_field_name("type") {
                        self.visit(t, outer, true);
                    }
                    if let Some(v) = p.child_by_field_name("value") {
                        self.visit(v, outer, false);
                    }
                    if let Some(n) = p.child_by_field_name("name") {
                        self.param_name(n, inner);
                    }
                }
                "list_splat_pattern" | "dictionary_splat_pattern" | "tuple_pattern" => {
                    self.param_name(p, inner)
                }
                _ => {}
            }
        }
    }

    fn param_name(&mut self, n: Node, inner: usize) {
        if n.kind() == "identifier" {
            self.occ(n, inner, true, OccKind::Name);
        } else {
            let mut c = n.walk();
            let ch: Vec<Node> = n.named_children(&mut c).collect();
            for x in ch {
                self.param_name(x, inner);
            }
        }
    }

    fn first_param_name(&self, params: Node) -> Option<String> {
        let mut c = params.walk();
        let first = params.named_children(&mut c).next()?;
        match first.kind() {
            "identifier" => Some(self.t(first).to_string()),
            "typed_parameter" => {
                let mut c2 = first.walk();
                let id = first
                    .named_children(&mut c2)
                    .find(|k| k.kind() == "identifier")?;
                Some(self.t(id).to_string())
            }
            _ => None,
        }
    }

    fn visit_children(&mut self, n: Node, s: usize, ann: bool) {
        let mut c = n.walk();
        let ch: Vec<Node> = n.named_children(&mut c).collect();
        for x in ch {
            self.visit(x, s, ann);
        }
    }

    fn visit(&mut self, n: Node, s: usize, ann: bool) {
        match n.kind() {
            "identifier" => {
                self.occ(n, s, false, OccKind::Name);
            }
            "comment" => {}
            "string" | "concatenated_string" => {
                if ann {
                    if n.kind() == "string" {
                        self.string_annotation(n, s);
                    }
                } else {
                    self.visit_children(n, s, false);
                }
            }
            "type" => self.visit_children(n, s, true),
            "function_definition" => {
                let Some(name) = n.child_by_field_name("name") else {
                    return;
                };
                self.occ(name, s, true, OccKind::Name);
                let f = self.new_scope(ScopeKind::Function, s);
                if let Some(tp) = n.child_by_field_name("type_parameters") {
                    self.visit(tp, f, true);
                }
                if let Some(p) = n.child_by_field_name("parameters") {
                    if self.scopes[s].kind == ScopeKind::Class && !self.is_staticmethod(n) {
                        self.scopes[f].first_param = self.first_param_name(p);
                    }
                    self.params(p, s, f);
                }
                if let Some(r) = n.child_by_field_name("return_type") {
                    self.visit(r, s, true);
                }
                self.defs.push(Def {
                    name: self.t(name).to_string(),
                    scope: s,
                    inner: f,
                    class: false,
                });
                if let Some(b) = n.child_by_field_name("body") {
                    self.visit(b, f, false);
                }
            }
            "lambda" => {
                let f = self.new_scope(ScopeKind::Function, s);
                if let Some(p) = n.child_by_field_name("parameters") {
                    self.params(p, s, f);
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.visit(b, f, false);
                }
            }
            "class_definition" => {
                let Some(name) = n.child_by_field_name("name") else {
                    return;
                };
                self.occ(name, s, true, OccKind::Name);
                if let Some(sc) = n.child_by_field_name("superclasses") {
                    self.visit(sc, s, false);
                }
                let c = self.new_scope(ScopeKind::Class, s);
                if let Some(tp) = n.child_by_field_name("type_parameters") {
                    self.visit(tp, c, true);
                }
                self.defs.push(Def {
                    name: self.t(name).to_string(),
                    scope: s,
                    inner: c,
                    class: true,
                });
                if let Some(b) = n.child_by_field_name("body") {
                    self.visit(b, c, false);
                }
            }
            k if is_comprehension(k) => {
                let c = self.new_scope(ScopeKind::Comprehension, s);
                let mut cur = n.walk();
                let ch: Vec<Node> = n.named_children(&mut cur).collect();
                let mut first = true;
                // Clauses first (they bind what the body uses).
                for x in &ch {
                    match x.kind() {
                        "for_in_clause" => {
                            if let Some(r) = x.child_by_field_name("right") {
                                self.visit(r, if first { s } else { c }, false);
                            }
                            first = false;
                            if let Some(l) = x.child_by_field_name("left") {
                                self.targets(l, c);
                            }
                        }
                        "if_clause" => self.visit(*x, c, false),
                        _ => {}
                    }
                }
                for x in &ch {
                    if !matches!(x.kind(), "for_in_clause" | "if_clause") {
                        self.visit(*x, c, false);
                    }
                }
            }
            "assignment" => {
                if let Some(t) = n.child_by_field_name("type") {
                    self.visit(t, s, true);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    self.visit(r, s, false);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    let all = s == 0 && self.t(l) == "__all__";
                    self.targets(l, s);
                    if all && let Some(r) = n.child_by_field_name("right") {
                        self.all_entries(r);
                    }
                }
            }
            "augmented_assignment" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.visit(r, s, false);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    if l.kind() == "identifier" {
                        // A use and a binding.
                        let name = self.t(l).to_string();
                        self.scopes[s].bound.insert(name);
                        self.occ(l, s, false, OccKind::Name);
                        if s == 0
                            && self.t(l) == "__all__"
                            && let Some(r) = n.child_by_field_name("right")
                        {
                            self.all_entries(r);
                        }
                    } else {
                        self.targets(l, s);
                    }
                }
            }
            "named_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.visit(v, s, false);
                }
                if let Some(name) = n.child_by_field_name("name") {
                    let target = self.non_comprehension(s);
                    self.occ(name, target, true, OccKind::Name);
                }
            }
            "for_statement" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.visit(r, s, false);
                }
                if let Some(l) = n.child_by_field_name("left") {
                    self.targets(l, s);
                }
                for f in ["body", "alternative"] {
                    if let Some(b) = n.child_by_field_name(f) {
                        self.visit(b, s, false);
                    }
                }
            }
            "as_pattern" => {
                let mut c = n.walk();
                let ch: Vec<Node> = n.named_children(&mut c).collect();
                for x in ch {
                    if x.kind() == "as_pattern_target" {
                        let mut c2 = x.walk();
                        let kids: Vec<Node> = x.named_children(&mut c2).collect();
                        for k in kids {
                            self.targets(k, s);
                        }
                    } else {
                        self.visit(x, s, ann);
                    }
                }
            }
            "except_clause" => {
                let alias = n.child_by_field_name("alias").map(|a| a.id());
                let mut c = n.walk();
                let ch: Vec<Node> = n.named_children(&mut c).collect();
                for x in ch {
                    if Some(x.id()) == alias {
                        self.targets(x, s);
                    } else {
                        self.visit(x, s, false);
                    }
                }
            }
            "import_statement" => {
                let mut c = n.walk();
                let names: Vec<Node> = n.children_by_field_name("name", &mut c).collect();
                for name in names {
                    if name.kind() == "aliased_import" {
                        if let (Some(m), Some(a)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) {
                            self.occ(a, s, true, OccKind::Name);
                            self.straight.push(StraightItem {
                                module: squash(self.t(m)),
                                alias: Some(self.t(a).to_string()),
                            });
                        }
                    } else if let Some(first) = name.named_child(0) {
                        self.occ(first, s, true, OccKind::ModuleImport);
                        self.straight.push(StraightItem {
                            module: squash(self.t(name)),
                            alias: None,
                        });
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = n.child_by_field_name("module_name") else {
                    return;
                };
                let module = squash(self.t(module));
                let mut c = n.walk();
                if n.named_children(&mut c)
                    .any(|x| x.kind() == "wildcard_import")
                {
                    self.star_from.push(module.clone());
                }
                let mut c = n.walk();
                let names: Vec<Node> = n.children_by_field_name("name", &mut c).collect();
                for name in names {
                    let (nm, alias) = if name.kind() == "aliased_import" {
                        (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        )
                    } else {
                        (Some(name), None)
                    };
                    let Some(nm) = nm else { continue };
                    let item = FromItem {
                        module: module.clone(),
                        name: (nm.start_byte(), nm.end_byte(), self.t(nm).to_string()),
                        alias: alias.map(|a| self.t(a).to_string()),
                        scope: s,
                    };
                    match alias {
                        Some(a) => {
                            self.occ(a, s, true, OccKind::Name);
                        }
                        None => {
                            self.occ(nm, s, true, OccKind::FromImport);
                        }
                    }
                    self.from_items.push(item);
                }
            }
            "future_import_statement" => {}
            "global_statement" | "nonlocal_statement" => {
                let global = n.kind() == "global_statement";
                let mut c = n.walk();
                let ids: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|x| x.kind() == "identifier")
                    .collect();
                for id in ids {
                    let name = self.t(id).to_string();
                    if global {
                        self.scopes[s].globals.insert(name);
                    } else {
                        self.scopes[s].nonlocals.insert(name);
                    }
                    self.occ(id, s, false, OccKind::Name);
                }
            }
            "attribute" => self.attribute(n, s, ann, false),
            "keyword_argument" => {
                let bound_kw = n
                    .child_by_field_name("name")
                    .is_some_and(|k| self.t(k) == "bound");
                if let Some(v) = n.child_by_field_name("value") {
                    self.visit(v, s, ann || bound_kw);
                }
            }
            "call" => {
                let func = n.child_by_field_name("function");
                let is_cast = func.is_some_and(|f| {
                    let t = self.t(f);
                    t == "cast" || t.ends_with(".cast")
                });
                let (occs_before, attrs_before) = (self.occs.len(), self.attrs.len());
                if let Some(f) = func {
                    self.visit(f, s, false);
                }
                let func_occ = func.filter(|f| f.kind() == "identifier").and_then(|f| {
                    (occs_before..self.occs.len()).find(|&i| self.occs[i].start == f.start_byte())
                });
                let func_attr = func
                    .filter(|f| f.kind() == "attribute")
                    .and_then(|f| f.child_by_field_name("attribute"))
                    .and_then(|a| {
                        (attrs_before..self.attrs.len())
                            .find(|&i| self.attrs[i].start == a.start_byte())
                    });
                if let Some(args) = n.child_by_field_name("arguments") {
                    let mut c = args.walk();
                    let ch: Vec<Node> = args.named_children(&mut c).collect();
                    for (i, x) in ch.into_iter().enumerate() {
                        if x.kind() == "keyword_argument"
                            && let Some(k) = x.child_by_field_name("name")
                        {
                            self.kwargs.push(Kwarg {
                                func_occ,
                                func_attr,
                                start: k.start_byte(),
                                end: k.end_byte(),
                                name: self.t(k).to_string(),
                            });
                        }
                        self.visit(x, s, ann || (is_cast && i == 0));
                    }
                }
            }
            "subscript" => {
                let value = n.child_by_field_name("value");
                let typing = value.is_some_and(|v| {
                    let t = self.t(v);
                    let last = t.rsplit('.').next().unwrap_or(t);
                    last.chars().next().is_some_and(char::is_uppercase) && last != "Literal"
                });
                let mut c = n.walk();
                let ch: Vec<Node> = n.named_children(&mut c).collect();
                for x in ch {
                    let is_value = Some(x.id()) == value.map(|v| v.id());
                    self.visit(x, s, if is_value { ann } else { ann || typing });
                }
            }
            "dotted_name" => {
                // In patterns: `Color.RED` reads `Color`.
                if let Some(first) = n.named_child(0) {
                    self.occ(first, s, false, OccKind::Name);
                }
            }
            "keyword_pattern" => {
                let mut c = n.walk();
                let ch: Vec<Node> = n.named_children(&mut c).skip(1).collect();
                for x in ch {
                    self.visit(x, s, ann);
                }
            }
            _ => self.visit_children(n, s, ann),
        }
    }

    fn is_staticmethod(&self, def: Node) -> bool {
        let Some(p) = def.parent().filter(|p| p.kind() == "decorated_definition") else {
            return false;
        };
        let mut c = p.walk();
        p.named_children(&mut c).any(|d| {
            d.kind() == "decorator" && self.t(d).trim_start_matches('@').trim() == "staticmethod"
        })
    }

    fn all_entries(&mut self, n: Node) {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind() == "string" {
                if let Some((a, b)) = string_content(self.text, x) {
                    let name = self.text[a..b].to_string();
                    if !name.is_empty() && check_identifier(&name).is_ok() {
                        self.occs.push(Occ {
                            start: a,
                            end: b,
                            name,
                            scope: 0,
                            binding: false,
                            kind: OccKind::All,
                        });
                    }
                }
                continue;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
    }

    /// The scope whose binding a name used in scope `s` refers to; `None` for builtins and
    /// undefined names.
    fn resolve(&self, s: usize, name: &str) -> Option<usize> {
        let sc = &self.scopes[s];
        if sc.kind == ScopeKind::Module {
            return sc.bound.contains(name).then_some(0);
        }
        if sc.globals.contains(name) {
            return Some(0);
        }
        let mut skip_local = false;
        if sc.nonlocals.contains(name) {
            skip_local = true;
        }
        if !skip_local && sc.bound.contains(name) {
            return Some(s);
        }
        let mut p = sc.parent;
        while let Some(i) = p {
            let x = &self.scopes[i];
            match x.kind {
                ScopeKind::Class => {}
                ScopeKind::Module => return x.bound.contains(name).then_some(0),
                _ => {
                    if x.globals.contains(name) {
                        return Some(0);
                    }
                    if x.bound.contains(name) && !x.nonlocals.contains(name) {
                        return Some(i);
                    }
                }
            }
            p = x.parent;
        }
        None
    }

    /// Whether a binding of scope `target` would be seen from scope `s` (before any other).
    fn visible_from(&self, s: usize, target: usize) -> bool {
        if s == target {
            return true;
        }
        let mut p = self.scopes[s].parent;
        while let Some(i) = p {
            if i == target {
                return self.scopes[i].kind != ScopeKind::Class;
            }
            p = self.scopes[i].parent;
        }
        false
    }

    fn line_col(&self, at: usize) -> String {
        let p = crate::position(self.text, at);
        format!("line {}, column {}", p.line, p.column)
    }

    /// The occurrences (indices) that refer to the binding of `name` in scope `s`.
    fn refs_of(&self, s: usize, name: &str) -> Vec<usize> {
        (0..self.occs.len())
            .filter(|&i| {
                let o = &self.occs[i];
                o.name == name
                    && if o.kind == OccKind::All {
                        s == 0
                    } else {
                        self.resolve(o.scope, name) == Some(s)
                    }
            })
            .collect()
    }

    /// `self.x`/`cls.x` in the methods of class scope `c`, and `Cls.x` through the class's
    /// own name.
    fn class_attrs(&self, c: usize, name: &str) -> Vec<usize> {
        let class_def = self.defs.iter().find(|d| d.inner == c);
        (0..self.attrs.len())
            .filter(|&i| {
                let a = &self.attrs[i];
                if a.name != name {
                    return false;
                }
                let Some(oi) = a.obj_occ else { return false };
                let o = &self.occs[oi];
                let Some(b) = self.resolve(o.scope, &o.name) else {
                    return false;
                };
                let via_self = self.scopes[b].kind == ScopeKind::Function
                    && self.scopes[b].parent == Some(c)
                    && self.scopes[b].first_param.as_deref() == Some(o.name.as_str());
                let via_class = class_def.is_some_and(|d| d.name == o.name && b == d.scope);
                via_self || via_class
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Rename

/// Which binding a rename starts from.
#[derive(Debug, Clone)]
pub enum Target {
    /// A name or a path of names: `helper` (its module binding, or its only binding in the
    /// file), `Class.method`, `function.local`, `Class.method.local`.
    Name(String),
    /// The name at this byte offset (a binding or a use).
    At(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    Name(usize),
    ClassAttr(usize),
}

/// What a rename in one file found out about the renamed binding.
#[derive(Debug, Clone, Default)]
pub struct PyRename {
    pub splices: Vec<Splice>,
    /// The old name.
    pub name: String,
    /// The binding is a module-level name (other modules may import it).
    pub module_level: bool,
    /// The binding is `from MODULE import name` (unaliased): MODULE as written.
    pub imported_from: Option<String>,
    pub warnings: Vec<String>,
}

fn not_found(what: String) -> FkError {
    FkError::new(ErrorCode::NotFound, what).with_hint(
        "name a binding of this file: `name` (module level), `Class.method`, `function.local`, or give selectionRange on it",
    )
}

impl Analysis<'_> {
    fn find_target(&self, target: &Target) -> Result<(Binding, String), FkError> {
        match target {
            Target::At(off) => {
                if let Some(o) = self
                    .occs
                    .iter()
                    .find(|o| o.start <= *off && *off <= o.end && o.kind != OccKind::All)
                {
                    let b = self.resolve(o.scope, &o.name).ok_or_else(|| {
                        not_found(format!(
                            "`{}` at {} is not bound in this file (a builtin or an undefined name)",
                            o.name,
                            self.line_col(o.start)
                        ))
                    })?;
                    let binding = if self.scopes[b].kind == ScopeKind::Class {
                        Binding::ClassAttr(b)
                    } else {
                        Binding::Name(b)
                    };
                    return Ok((binding, o.name.clone()));
                }
                if let Some(a) = self.attrs.iter().find(|a| a.start <= *off && *off <= a.end) {
                    for (c, _) in self
                        .scopes
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.kind == ScopeKind::Class)
                    {
                        if self
                            .class_attrs(c, &a.name)
                            .iter()
                            .any(|&i| self.attrs[i].start == a.start)
                        {
                            return Ok((Binding::ClassAttr(c), a.name.clone()));
                        }
                    }
                    return Err(FkError::invalid(format!(
                        "`{}.{}` at {}: an attribute of an object whose type only a type checker knows",
                        a.obj,
                        a.name,
                        self.line_col(a.start)
                    ))
                    .with_hint("point at the attribute's declaration in its class (or use pyright-langserver for a semantic rename)"));
                }
                Err(FkError::new(
                    ErrorCode::NotFound,
                    format!("no name at {}", self.line_col(*off)),
                )
                .with_hint("point selectionRange's start at the name to rename"))
            }
            Target::Name(path) => {
                let segs: Vec<&str> = path.split('.').collect();
                for s in &segs {
                    check_identifier(s).map_err(|e| FkError {
                        message: format!("symbol: {}", e.message),
                        ..e
                    })?;
                }
                let last = *segs.last().expect("split yields one");
                if segs.len() == 1 {
                    if self.scopes[0].bound.contains(last) {
                        return Ok((Binding::Name(0), last.to_string()));
                    }
                    let mut scopes: Vec<usize> = (0..self.scopes.len())
                        .filter(|&i| {
                            self.scopes[i].bound.contains(last)
                                && self.scopes[i].kind != ScopeKind::Class
                        })
                        .collect();
                    let classes: Vec<usize> = (0..self.scopes.len())
                        .filter(|&i| {
                            self.scopes[i].bound.contains(last)
                                && self.scopes[i].kind == ScopeKind::Class
                        })
                        .collect();
                    if scopes.is_empty() && classes.len() == 1 {
                        return Ok((Binding::ClassAttr(classes[0]), last.to_string()));
                    }
                    scopes.extend(classes);
                    return match scopes.len() {
                        0 => Err(not_found(format!("no binding of `{last}` in this file"))),
                        1 => Ok((Binding::Name(scopes[0]), last.to_string())),
                        n => {
                            let mut at: Vec<String> = scopes
                                .iter()
                                .filter_map(|&s| {
                                    self.occs
                                        .iter()
                                        .find(|o| o.binding && o.scope == s && o.name == last)
                                        .map(|o| self.line_col(o.start))
                                })
                                .collect();
                            at.sort();
                            Err(FkError::new(
                                ErrorCode::Ambiguous,
                                format!("`{last}` is bound in {n} scopes of this file ({})", at.join("; ")),
                            )
                            .with_hint("name it by path (`function.local`, `Class.method`) or give selectionRange on the one to rename"))
                        }
                    };
                }
                let mut cur = 0;
                for seg in &segs[..segs.len() - 1] {
                    let d = self
                        .defs
                        .iter()
                        .find(|d| d.scope == cur && d.name == *seg)
                        .ok_or_else(|| {
                            not_found(format!("`{path}`: no function or class `{seg}` there"))
                        })?;
                    cur = d.inner;
                }
                if self.scopes[cur].kind == ScopeKind::Class {
                    let declared = self.scopes[cur].bound.contains(last)
                        || self
                            .class_attrs(cur, last)
                            .iter()
                            .any(|&i| self.attrs[i].assigned);
                    if declared {
                        return Ok((Binding::ClassAttr(cur), last.to_string()));
                    }
                } else if self.scopes[cur].bound.contains(last) {
                    return Ok((Binding::Name(cur), last.to_string()));
                }
                Err(not_found(format!(
                    "`{path}`: `{last}` is not declared there"
                )))
            }
        }
    }

    /// The splices and checks of renaming a binding; `keep_public` keeps an unaliased
    /// `from m import old` importing `old` (as `old as new`).
    fn rename(
        &self,
        binding: Binding,
        old: &str,
        new: &str,
        keep_public: bool,
    ) -> Result<Vec<Splice>, FkError> {
        let mut out: Vec<Splice> = Vec::new();
        let clash = |at: usize, why: &str| {
            FkError::new(
                ErrorCode::Conflict,
                format!("renaming `{old}` to `{new}`: {why} ({})", self.line_col(at)),
            )
            .with_hint("choose another name, or rename that one first")
        };
        match binding {
            Binding::Name(s) => {
                if let Some(o) = self
                    .occs
                    .iter()
                    .find(|o| o.name == new && o.binding && self.resolve(o.scope, new) == Some(s))
                {
                    return Err(clash(
                        o.start,
                        &format!("`{new}` is already bound in the same scope"),
                    ));
                }
                let refs = self.refs_of(s, old);
                for &i in &refs {
                    let o = &self.occs[i];
                    if o.kind == OccKind::All {
                        continue;
                    }
                    if let Some(other) = self.resolve(o.scope, new)
                        && other != s
                    {
                        return Err(clash(
                            o.start,
                            &format!("this use would refer to another `{new}`"),
                        ));
                    }
                }
                // An unbound use of `new` (a builtin, a global of another module) that the
                // renamed binding would capture.
                if let Some(o) = self.occs.iter().find(|o| {
                    o.name == new
                        && o.kind != OccKind::All
                        && self.resolve(o.scope, new).is_none()
                        && self.visible_from(o.scope, s)
                }) {
                    return Err(clash(
                        o.start,
                        &format!(
                            "`{new}` is used here for a builtin or undefined name that it would shadow"
                        ),
                    ));
                }
                for &i in &refs {
                    let o = &self.occs[i];
                    match o.kind {
                        OccKind::ModuleImport => {
                            return Err(FkError::invalid(format!(
                                "`{old}` is bound by `import {old}...`: it names a module"
                            ))
                            .with_hint("rename the module with file_rename (imports follow), or import it `as` another name"));
                        }
                        OccKind::FromImport if keep_public => {
                            out.push(Splice::new(o.start, o.end, format!("{old} as {new}")))
                        }
                        _ => out.push(Splice::new(o.start, o.end, new.to_string())),
                    }
                }
            }
            Binding::ClassAttr(c) => {
                if self.scopes[c].bound.contains(new) || !self.class_attrs(c, new).is_empty() {
                    let at = self
                        .occs
                        .iter()
                        .find(|o| o.binding && o.scope == c && o.name == new)
                        .map(|o| o.start)
                        .or_else(|| {
                            self.class_attrs(c, new)
                                .first()
                                .map(|&i| self.attrs[i].start)
                        })
                        .unwrap_or(0);
                    return Err(clash(
                        at,
                        &format!("the class already has an attribute `{new}`"),
                    ));
                }
                for i in self.refs_of(c, old) {
                    let o = &self.occs[i];
                    out.push(Splice::new(o.start, o.end, new.to_string()));
                }
                for i in self.class_attrs(c, old) {
                    let a = &self.attrs[i];
                    out.push(Splice::new(a.start, a.end, new.to_string()));
                }
            }
        }
        out.sort_by_key(|s| s.start);
        out.dedup_by_key(|s| s.start);
        Ok(out)
    }
}

/// Renames a binding of one Python file and its references in their scopes. `keep_public`
/// keeps the names other modules see: an unaliased imported name becomes `old as new`
/// (the file scope). A module-level rename also renames `__all__`'s entry.
pub fn rename_in_file(
    text: &str,
    target: &Target,
    new: &str,
    keep_public: bool,
) -> Result<PyRename, FkError> {
    check_identifier(new)?;
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let (binding, name) = a.find_target(target)?;
    let mut out = PyRename {
        name: name.clone(),
        ..PyRename::default()
    };
    if name == new {
        return Ok(out);
    }
    out.splices = a.rename(binding, &name, new, keep_public)?;
    match binding {
        Binding::Name(0) => {
            out.module_level = true;
            out.imported_from = a
                .from_items
                .iter()
                .find(|f| f.scope == 0 && f.alias.is_none() && f.name.2 == name)
                .map(|f| f.module.clone());
        }
        Binding::Name(s) => {
            if let Some(d) = a.defs.iter().find(|d| d.inner == s && !d.class)
                && a.occs.iter().any(|o| {
                    o.binding && o.scope == s && o.name == name && is_param(&tree, o.start)
                })
            {
                // `f(name=...)` calls of this function in this file follow.
                let calls_it = |k: &Kwarg| match (k.func_occ, k.func_attr) {
                    (Some(i), _) => {
                        a.occs[i].name == d.name && a.resolve(a.occs[i].scope, &d.name) == Some(d.scope)
                    }
                    (_, Some(j)) => {
                        a.scopes[d.scope].kind == ScopeKind::Class
                            && a.class_attrs(d.scope, &d.name).contains(&j)
                    }
                    _ => false,
                };
                let calls: Vec<&Kwarg> = a.kwargs.iter().filter(|k| calls_it(k)).collect();
                if let Some(k) = calls.iter().find(|k| k.name == new) {
                    return Err(FkError::new(
                        ErrorCode::Conflict,
                        format!("renaming `{name}` to `{new}`: the call at {} already passes `{new}=`", a.line_col(k.start)),
                    )
                    .with_hint("choose another name"));
                }
                for k in calls.iter().filter(|k| k.name == name) {
                    out.splices.push(Splice::new(k.start, k.end, new.to_string()));
                }
                out.splices.sort_by_key(|s| s.start);
                out.warnings.push(format!(
                    "`{name}` is a parameter: keyword arguments `{name}=` are renamed in this file's calls of `{}`, not in other modules",
                    d.name
                ));
            }
        }
        Binding::ClassAttr(_) => out.warnings.push(format!(
            "`{name}` is a class attribute: renamed in its class, through `self`/`cls` and the class's name; uses through other objects and subclasses are not renamed"
        )),
    }
    Ok(out)
}

/// Where the binding a target names is first bound (for a language server's rename, which
/// takes a position).
pub fn binding_offset(text: &str, target: &Target) -> Result<usize, FkError> {
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let (binding, name) = a.find_target(target)?;
    let scope = match binding {
        Binding::Name(s) | Binding::ClassAttr(s) => s,
    };
    a.occs
        .iter()
        .find(|o| o.binding && o.scope == scope && o.name == name)
        .map(|o| o.start)
        .or_else(|| {
            a.class_attrs(scope, &name)
                .first()
                .map(|&i| a.attrs[i].start)
        })
        .ok_or_else(|| not_found(format!("no binding of `{name}` in this file")))
}

fn is_param(tree: &Tree, at: usize) -> bool {
    let mut n = tree.root_node().descendant_for_byte_range(at, at);
    while let Some(x) = n {
        match x.kind() {
            "parameters" | "lambda_parameters" => return true,
            "function_definition" | "block" | "module" => return false,
            _ => n = x.parent(),
        }
    }
    false
}

/// What renaming a module-level name changes in a file that may import it.
#[derive(Debug, Clone, Default)]
pub struct ImporterRename {
    pub splices: Vec<Splice>,
    /// The file binds the name at module level under the old name (`from m import old`,
    /// `from m import *`): modules importing it from this file change too.
    pub re_exports: bool,
}

/// In a file that may import from the renamed module (`resolves(spec)` says whether a module
/// name as written, `pkg.mod` or `.mod`, names it), the splices renaming `old` to `new`:
/// `from m import old` (and its uses, when unaliased), `m.old` through `import m`/`import
/// pkg.m`/`from pkg import m`, string annotations, `__all__`.
pub fn rename_in_importer(
    text: &str,
    resolves: &dyn Fn(&str) -> bool,
    old: &str,
    new: &str,
) -> Result<ImporterRename, FkError> {
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let mut out = ImporterRename::default();
    let mut module_names: HashSet<String> = HashSet::new();
    let mut splices: Vec<Splice> = Vec::new();
    for f in &a.from_items {
        let sub = if f.module.ends_with('.') {
            format!("{}{}", f.module, f.name.2)
        } else {
            format!("{}.{}", f.module, f.name.2)
        };
        if resolves(&sub) {
            module_names.insert(f.alias.clone().unwrap_or_else(|| f.name.2.clone()));
            continue;
        }
        if f.name.2 != old || !resolves(&f.module) {
            continue;
        }
        match &f.alias {
            Some(_) => splices.push(Splice::new(f.name.0, f.name.1, new.to_string())),
            None => {
                splices.extend(a.rename(Binding::Name(f.scope), old, new, false)?);
                if f.scope == 0 {
                    out.re_exports = true;
                }
            }
        }
    }
    if a.star_from.iter().any(|m| resolves(m)) {
        out.re_exports = true;
        // Unbound uses of `old` come from the star import.
        for o in &a.occs {
            if o.name == old && o.kind != OccKind::All && a.resolve(o.scope, old).is_none() {
                splices.push(Splice::new(o.start, o.end, new.to_string()));
            }
            if o.name == new && o.binding && o.scope == 0 {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{new}` is already bound at {}, where `{old}` comes from a star import",
                        a.line_col(o.start)
                    ),
                ));
            }
        }
    }
    for s in &a.straight {
        if resolves(&s.module) {
            module_names.insert(s.alias.clone().unwrap_or_else(|| s.module.clone()));
        }
    }
    if !module_names.is_empty() {
        for at in &a.attrs {
            if at.name == old && module_names.contains(&at.obj) {
                // The object's first name must be the module's import, not a local.
                let root = at.obj.split('.').next().unwrap_or("");
                let scope = at.obj_occ.map(|i| a.occs[i].scope).unwrap_or(at.scope);
                if a.resolve(scope, root).is_some_and(|b| b != 0)
                    && !a.from_items.iter().any(|f| f.scope != 0)
                {
                    continue;
                }
                splices.push(Splice::new(at.start, at.end, new.to_string()));
            }
        }
    }
    splices.sort_by_key(|s| s.start);
    splices.dedup_by_key(|s| s.start);
    out.splices = splices;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Imports

/// isort's sections, in their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    Future,
    Stdlib,
    ThirdParty,
    FirstParty,
    Local,
}

include!("python_stdlib.rs");

/// Whether a top-level module name is in Python's standard library.
pub fn is_stdlib(top: &str) -> bool {
    STDLIB.binary_search(&top).is_ok()
}

/// One name of an import statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Item {
    name: String,
    alias: Option<String>,
}

impl Item {
    fn bound(&self, straight: bool) -> String {
        match &self.alias {
            Some(a) => a.clone(),
            None if straight => self.name.split('.').next().unwrap_or("").to_string(),
            None => self.name.clone(),
        }
    }

    fn render(&self) -> String {
        match &self.alias {
            Some(a) => format!("{} as {a}", self.name),
            None => self.name.clone(),
        }
    }
}

/// One import statement as parsed.
#[derive(Debug, Clone)]
struct Stmt {
    /// `None` for `import a, b`; the module of `from m import ...`.
    from: Option<String>,
    items: Vec<Item>,
    star: bool,
    /// The statement's bytes (without its trailing comment).
    range: std::ops::Range<usize>,
    /// With a trailing same-line comment.
    end: usize,
    /// Comments of the statement (inside its parentheses and after it on its line).
    comments: Vec<String>,
    /// Kept whatever its use (`# noqa`, in a try block).
    keep: bool,
    scope_node: usize,
}

/// Options of the import clean-ups.
pub struct ImportOptions<'a> {
    /// The file is a package's `__init__.py`: its imports of the package's own modules
    /// re-export them.
    pub is_init: bool,
    /// The section of a module name as written (`os.path`, `requests`, `.models`).
    pub section: &'a dyn Fn(&str) -> Section,
}

fn in_try(n: Node) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        match x.kind() {
            "try_statement" => return true,
            "function_definition" | "class_definition" | "module" => return false,
            _ => p = x.parent(),
        }
    }
    false
}

fn is_import(kind: &str) -> bool {
    matches!(
        kind,
        "import_statement" | "import_from_statement" | "future_import_statement"
    )
}

fn parse_stmt(text: &str, n: Node) -> Stmt {
    let from = match n.kind() {
        "future_import_statement" => Some("__future__".to_string()),
        "import_from_statement" => n
            .child_by_field_name("module_name")
            .map(|m| squash(&text[m.byte_range()])),
        _ => None,
    };
    let mut c = n.walk();
    let items: Vec<Item> = n
        .children_by_field_name("name", &mut c)
        .map(|x| {
            if x.kind() == "aliased_import" {
                Item {
                    name: x
                        .child_by_field_name("name")
                        .map(|m| squash(&text[m.byte_range()]))
                        .unwrap_or_default(),
                    alias: x
                        .child_by_field_name("alias")
                        .map(|a| text[a.byte_range()].to_string()),
                }
            } else {
                Item {
                    name: squash(&text[x.byte_range()]),
                    alias: None,
                }
            }
        })
        .collect();
    let mut c = n.walk();
    let star = n
        .named_children(&mut c)
        .any(|x| x.kind() == "wildcard_import");
    let mut comments = Vec::new();
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "comment" {
            comments.push((x.start_byte(), text[x.byte_range()].to_string()));
        }
        let mut c = x.walk();
        stack.extend(x.children(&mut c));
    }
    // A comment after the statement on its line.
    let mut end = n.end_byte();
    if let Some(next) = n.next_sibling()
        && next.kind() == "comment"
        && !text[n.end_byte()..next.start_byte()].contains('\n')
    {
        comments.push((next.start_byte(), text[next.byte_range()].to_string()));
        end = next.end_byte();
    }
    comments.sort();
    let comments: Vec<String> = comments.into_iter().map(|c| c.1).collect();
    let keep = comments.iter().any(|c| c.contains("noqa")) || in_try(n);
    Stmt {
        from,
        items,
        star,
        range: n.byte_range(),
        end,
        comments,
        keep,
        scope_node: n.parent().map_or(0, |p| p.id()),
    }
}

/// Every import statement, with the names it binds and whether they are used.
struct ImportScan {
    stmts: Vec<Stmt>,
    /// Per statement, per item: used?
    used: Vec<Vec<bool>>,
}

fn scan(text: &str, tree: &Tree, opts: &ImportOptions) -> ImportScan {
    let a = Analysis::new(text, tree);
    let mut stmts = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut nodes = Vec::new();
    while let Some(n) = stack.pop() {
        if is_import(n.kind()) {
            nodes.push(n);
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    nodes.sort_by_key(|n| n.start_byte());
    let mut used = Vec::new();
    // The same import twice in one block of statements: the second is a duplicate.
    let mut seen: HashSet<(usize, Option<String>, Item)> = HashSet::new();
    for n in nodes {
        let st = parse_stmt(text, n);
        let straight = st.from.is_none();
        let mut u = Vec::new();
        for item in &st.items {
            let bound = item.bound(straight);
            // The scope the statement binds in: that of its binding occurrence.
            let bind_scope = a
                .occs
                .iter()
                .find(|o| o.binding && o.name == bound && st.range.contains(&o.start))
                .map(|o| o.scope);
            let is_used = st.keep
                || st.from.as_deref() == Some("__future__")
                || item.alias.as_deref() == Some(item.name.as_str())
                || (opts.is_init
                    && st.from.as_deref().is_some_and(|m| {
                        matches!((opts.section)(m), Section::Local | Section::FirstParty)
                    }))
                || bind_scope.is_none_or(|s| {
                    a.occs.iter().any(|o| {
                        o.name == bound
                            && !st.range.contains(&o.start)
                            && (!o.binding || o.kind == OccKind::All)
                            && if o.kind == OccKind::All {
                                s == 0
                            } else {
                                a.resolve(o.scope, &bound) == Some(s)
                            }
                    })
                });
            let first = seen.insert((st.scope_node, st.from.clone(), item.clone()));
            u.push(is_used && (first || st.keep));
        }
        used.push(u);
        stmts.push(st);
    }
    ImportScan { stmts, used }
}

const LINE_LENGTH: usize = 88;

/// A `from` statement's text, wrapped like isort's black profile when too long.
fn render_from(indent: &str, module: &str, names: &[String], comments: &[String]) -> String {
    let comment = if comments.is_empty() {
        String::new()
    } else {
        format!("  {}", comments.join(" "))
    };
    let one = format!("{indent}from {module} import {}{comment}", names.join(", "));
    if one.len() <= LINE_LENGTH || names.len() == 1 {
        return one;
    }
    let mut s = format!("{indent}from {module} import ({comment}\n");
    for n in names {
        s.push_str(&format!("{indent}    {n},\n"));
    }
    s.push_str(&format!("{indent})"));
    s
}

fn render_stmt(indent: &str, st: &Stmt, items: &[Item]) -> String {
    match &st.from {
        None => {
            let comment = if st.comments.is_empty() {
                String::new()
            } else {
                format!("  {}", st.comments.join(" "))
            };
            let names: Vec<String> = items.iter().map(Item::render).collect();
            format!("{indent}import {}{comment}", names.join(", "))
        }
        Some(m) => {
            let names: Vec<String> = items.iter().map(Item::render).collect();
            render_from(indent, m, &names, &st.comments)
        }
    }
}

fn indent_of(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..at]
}

/// Whole-line removal of `range` (with its line end when it is alone on its lines).
fn remove_lines(text: &str, range: std::ops::Range<usize>) -> Splice {
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let alone_before = text[line_start..range.start].trim().is_empty();
    let after = &text[range.end..];
    let eol = after.find('\n');
    let alone_after = after[..eol.unwrap_or(after.len())].trim().is_empty();
    if alone_before && alone_after {
        let end = eol.map_or(text.len(), |e| range.end + e + 1);
        Splice::new(line_start, end, String::new())
    } else {
        Splice::new(range.start, range.end, String::new())
    }
}

/// For statements removed whole: the splices, emptied blocks given a `pass` or, for an
/// `if TYPE_CHECKING:` with nothing else, removed.
fn removals(text: &str, tree: &Tree, removed: &[std::ops::Range<usize>]) -> Vec<Splice> {
    let mut out = Vec::new();
    let mut handled: HashSet<usize> = HashSet::new();
    for r in removed {
        if handled.contains(&r.start) {
            continue;
        }
        let node = tree
            .root_node()
            .descendant_for_byte_range(r.start, r.end)
            .map(|n| {
                let mut n = n;
                while !is_import(n.kind()) {
                    match n.parent() {
                        Some(p) => n = p,
                        None => break,
                    }
                }
                n
            });
        let block = node
            .and_then(|n| n.parent())
            .filter(|p| p.kind() == "block");
        if let Some(block) = block {
            let mut c = block.walk();
            let stmts: Vec<Node> = block
                .named_children(&mut c)
                .filter(|x| x.kind() != "comment")
                .collect();
            let all_gone = stmts
                .iter()
                .all(|s| removed.iter().any(|r| r.start == s.start_byte()));
            if all_gone {
                for s in &stmts {
                    handled.insert(s.start_byte());
                }
                let owner = block.parent();
                let type_checking_if = owner.filter(|o| {
                    o.kind() == "if_statement"
                        && o.child_by_field_name("alternative").is_none()
                        && o.child_by_field_name("condition")
                            .is_some_and(|c| text[c.byte_range()].ends_with("TYPE_CHECKING"))
                });
                if let Some(o) = type_checking_if {
                    out.push(remove_lines(text, o.byte_range()));
                } else {
                    let first = stmts[0];
                    let last = stmts[stmts.len() - 1];
                    out.push(Splice::new(
                        first.start_byte(),
                        last.end_byte(),
                        "pass".to_string(),
                    ));
                }
                continue;
            }
        }
        out.push(remove_lines(text, r.clone()));
    }
    out
}

/// Removes the imports whose names the file does not use. Kept: `__future__` imports,
/// `import x as x` re-exports, names listed in `__all__`, imports marked `# noqa`, imports in
/// `try` blocks (availability probes), and in an `__init__.py` its imports of the package's
/// own modules (re-exports). An `if TYPE_CHECKING:` block left empty goes too.
pub fn remove_unused_imports(text: &str, opts: &ImportOptions) -> Result<Vec<Splice>, FkError> {
    let tree = parse(text)?;
    let s = scan(text, &tree, opts);
    let mut out = Vec::new();
    let mut removed = Vec::new();
    for (st, used) in s.stmts.iter().zip(&s.used) {
        if st.star || used.iter().all(|u| *u) {
            continue;
        }
        if used.iter().all(|u| !*u) {
            removed.push(st.range.start..st.end);
            continue;
        }
        let items: Vec<Item> = st
            .items
            .iter()
            .zip(used)
            .filter(|(_, u)| **u)
            .map(|(i, _)| i.clone())
            .collect();
        let indent = indent_of(text, st.range.start);
        let rendered = render_stmt(indent, st, &items);
        out.push(Splice::new(
            st.range.start,
            st.end,
            &rendered[indent.len()..],
        ));
    }
    out.extend(removals(text, &tree, &removed));
    out.sort_by_key(|s| s.start);
    Ok(tidy_deletions(text, out))
}

/// Merges adjacent deletions, and lets a deletion of whole lines that starts the file or
/// follows a blank line take the blank lines after it (no blank lines left at the top, no
/// runs of blank lines where an import block was).
fn tidy_deletions(text: &str, splices: Vec<Splice>) -> Vec<Splice> {
    let mut merged: Vec<Splice> = Vec::new();
    for s in splices {
        match merged.last_mut() {
            Some(l) if l.text.is_empty() && s.text.is_empty() && l.end == s.start => l.end = s.end,
            _ => merged.push(s),
        }
    }
    for s in merged.iter_mut() {
        let whole_lines =
            (s.start == 0 || text[..s.start].ends_with('\n')) && text[..s.end].ends_with('\n');
        if !s.text.is_empty() || !whole_lines {
            continue;
        }
        if s.start == 0 || text[..s.start].ends_with("\n\n") {
            let rest = &text[s.end..];
            let blank: usize = rest
                .split_inclusive('\n')
                .take_while(|l| l.trim().is_empty() && l.ends_with('\n'))
                .map(str::len)
                .sum();
            s.end += blank;
        }
    }
    merged
}

fn type_rank(name: &str) -> u8 {
    if name.len() > 1 && name.chars().any(char::is_alphabetic) && name.to_uppercase() == name {
        0
    } else if name.chars().next().is_some_and(char::is_uppercase) {
        1
    } else {
        2
    }
}

/// isort's key of a module name: relative dots come first as `.`, then `_`.
fn module_key(m: &str) -> String {
    let dots = m.len() - m.trim_start_matches('.').len();
    let key = if dots > 0 {
        format!("{}_{}", &m[..dots], &m[dots..])
    } else {
        m.to_string()
    };
    key.to_lowercase()
}

fn name_key(i: &Item) -> (u8, String, String) {
    (
        type_rank(&i.name),
        i.name.to_lowercase(),
        i.alias.clone().unwrap_or_default(),
    )
}

/// Sorts and merges the imports of each block of consecutive import statements (at module
/// level and in `if TYPE_CHECKING:` blocks) the way isort does with its black profile:
/// `__future__`, standard library, third party, first party (modules of the workspace),
/// local (relative) sections, a blank line between; `import x` before `from x import y` in
/// a section; modules and names sorted (constants, classes, then the rest); duplicates
/// merged; `as` imports on lines of their own; lines over 88 columns wrapped in
/// parentheses. Unused imports are dropped as `remove_unused_imports` does. Comments above an
/// import move with it; same-line comments stay on its line.
pub fn organize_imports(text: &str, opts: &ImportOptions) -> Result<Vec<Splice>, FkError> {
    let tree = parse(text)?;
    let s = scan(text, &tree, opts);
    // Blocks: consecutive statements with the same parent and only blank lines and comments
    // between.
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for (i, st) in s.stmts.iter().enumerate() {
        if st.keep && in_try_at(&tree, st.range.start) {
            continue;
        }
        match blocks.last_mut() {
            Some(b)
                if s.stmts[*b.last().expect("non-empty")].scope_node == st.scope_node
                    && between_is_blank_or_comments(
                        text,
                        s.stmts[*b.last().expect("non-empty")].end,
                        st.range.start,
                    ) =>
            {
                b.push(i)
            }
            _ => blocks.push(vec![i]),
        }
    }
    let mut out = Vec::new();
    for block in blocks {
        let first = &s.stmts[block[0]];
        let last = &s.stmts[*block.last().expect("non-empty")];
        let indent = indent_of(text, first.range.start).to_string();
        // Section -> straight items (with comments), from-modules -> items.
        type Straight = BTreeMap<(String, Item), (Vec<String>, Vec<String>)>;
        let mut straight: BTreeMap<Section, Straight> = BTreeMap::new();
        type From = BTreeMap<(String, String), (String, Vec<(Item, Vec<String>, Vec<String>)>)>;
        let mut froms: BTreeMap<Section, From> = BTreeMap::new();
        let mut stars: Vec<(Section, String, Vec<String>, Vec<String>)> = Vec::new();
        let mut orphans: Vec<String> = Vec::new();
        let mut prev_end = first.range.start;
        for &i in &block {
            let st = &s.stmts[i];
            // Comments between the previous statement and this one belong to this one.
            let gap = &text[prev_end..st.range.start];
            let mut lead: Vec<String> = gap
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with('#'))
                .map(str::to_string)
                .collect();
            // A comment block that had a blank line above it keeps it (isort does).
            if !lead.is_empty() && gap[..gap.find('#').unwrap_or(0)].matches('\n').count() > 1 {
                lead.insert(0, String::new());
            }
            prev_end = st.end;
            let module = st.from.clone();
            let section = match &module {
                Some(m) if m == "__future__" => Section::Future,
                Some(m) if m.starts_with('.') => Section::Local,
                Some(m) => (opts.section)(m),
                None => Section::Stdlib, // per item below
            };
            let mut lead_used = false;
            let mut take_lead = || {
                if lead_used {
                    vec![]
                } else {
                    lead_used = true;
                    lead.clone()
                }
            };
            if st.star {
                let m = module.clone().unwrap_or_default();
                stars.push((section, m, take_lead(), st.comments.clone()));
                continue;
            }
            for (item, used) in st.items.iter().zip(&s.used[i]) {
                if !*used {
                    continue;
                }
                match &module {
                    None => {
                        let sec = (opts.section)(&item.name);
                        let e = straight
                            .entry(sec)
                            .or_default()
                            .entry((module_key(&item.name), item.clone()))
                            .or_default();
                        e.0.extend(take_lead());
                        e.1.extend(st.comments.iter().cloned());
                    }
                    Some(m) => {
                        let e = froms
                            .entry(section)
                            .or_default()
                            .entry((module_key(m), m.clone()))
                            .or_insert_with(|| (m.clone(), vec![]));
                        e.1.push((item.clone(), take_lead(), st.comments.clone()));
                    }
                }
            }
            if !lead_used {
                // Every name of it dropped: its comments stay, at the end of the block.
                orphans.extend(lead);
            }
        }
        let mut sections: Vec<String> = Vec::new();
        let all_sections = [
            Section::Future,
            Section::Stdlib,
            Section::ThirdParty,
            Section::FirstParty,
            Section::Local,
        ];
        for sec in all_sections {
            let mut lines: Vec<String> = Vec::new();
            for ((_, item), (lead, comments)) in straight.remove(&sec).unwrap_or_default() {
                let mut dedup = comments.clone();
                dedup.dedup();
                for l in &lead {
                    lines.push(if l.is_empty() {
                        l.clone()
                    } else {
                        format!("{indent}{l}")
                    });
                }
                let c = if dedup.is_empty() {
                    String::new()
                } else {
                    format!("  {}", dedup.join(" "))
                };
                lines.push(format!("{indent}import {}{c}", item.render()));
            }
            let mut from_entries: Vec<(String, Vec<String>)> = Vec::new();
            for (_, (m, mut items)) in froms.remove(&sec).unwrap_or_default() {
                items.sort_by_key(|a| name_key(&a.0));
                // Runs of names without `as` form one statement; each `as` import its own.
                let mut run: Vec<String> = Vec::new();
                let mut run_lead: Vec<String> = Vec::new();
                let mut run_comments: Vec<String> = Vec::new();
                let mut seen: HashSet<Item> = HashSet::new();
                let flush = |run: &mut Vec<String>,
                             lead: &mut Vec<String>,
                             comments: &mut Vec<String>,
                             out: &mut Vec<(String, Vec<String>)>| {
                    if run.is_empty() {
                        return;
                    }
                    comments.dedup();
                    out.push((
                        render_from(&indent, &m, run, comments),
                        std::mem::take(lead),
                    ));
                    run.clear();
                    comments.clear();
                };
                for (item, lead, comments) in items {
                    if !seen.insert(item.clone()) {
                        run_lead.extend(lead);
                        continue;
                    }
                    if item.alias.is_some() {
                        flush(
                            &mut run,
                            &mut run_lead,
                            &mut run_comments,
                            &mut from_entries,
                        );
                        let mut l = run_lead.clone();
                        run_lead.clear();
                        l.extend(lead);
                        from_entries
                            .push((render_from(&indent, &m, &[item.render()], &comments), l));
                    } else {
                        run.push(item.render());
                        run_lead.extend(lead);
                        for c in comments {
                            if !run_comments.contains(&c) {
                                run_comments.push(c);
                            }
                        }
                    }
                }
                flush(
                    &mut run,
                    &mut run_lead,
                    &mut run_comments,
                    &mut from_entries,
                );
            }
            for (ssec, m, lead, comments) in &stars {
                if *ssec == sec {
                    let names = vec!["*".to_string()];
                    from_entries.push((render_from(&indent, m, &names, comments), lead.clone()));
                }
            }
            for (line, lead) in from_entries {
                for l in lead {
                    lines.push(if l.is_empty() {
                        l
                    } else {
                        format!("{indent}{l}")
                    });
                }
                lines.push(line);
            }
            if lines.is_empty() {
                continue;
            }
            while lines.first().is_some_and(|l| l.is_empty()) {
                lines.remove(0);
            }
            sections.push(lines.join("\n"));
        }
        if !orphans.is_empty() {
            let c: Vec<String> = orphans.iter().map(|c| format!("{indent}{c}")).collect();
            sections.push(c.join("\n"));
        }
        let new = sections.join("\n\n");
        let new = new
            .strip_prefix(indent.as_str())
            .unwrap_or(&new)
            .to_string();
        let (start, end) = (first.range.start, last.end);
        if text[start..end] != new {
            if new.is_empty() {
                let removed: Vec<std::ops::Range<usize>> = block
                    .iter()
                    .map(|&i| s.stmts[i].range.start..s.stmts[i].end)
                    .collect();
                out.extend(removals(text, &tree, &removed));
            } else {
                out.push(Splice::new(start, end, new));
            }
        }
    }
    out.sort_by_key(|s| s.start);
    Ok(out)
}

fn in_try_at(tree: &Tree, at: usize) -> bool {
    tree.root_node()
        .descendant_for_byte_range(at, at)
        .is_some_and(in_try)
}

fn between_is_blank_or_comments(text: &str, a: usize, b: usize) -> bool {
    a <= b
        && text[a..b]
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, splices: &[Splice]) -> String {
        crate::ops::apply(text, splices)
    }

    fn rename(src: &str, target: &str, new: &str) -> Result<String, FkError> {
        let t = if let Some(off) = target.strip_prefix('@') {
            Target::At(off.parse().unwrap())
        } else {
            Target::Name(target.into())
        };
        rename_in_file(src, &t, new, false).map(|r| run(src, &r.splices))
    }

    #[test]
    fn scopes_globals_nonlocals_comprehensions() {
        let src = "x = 1\n\ndef f(x):\n    return x\n\ndef g():\n    global x\n    x = 2\n    return [x for x in range(x)]\n\ndef h():\n    y = x\n    def inner():\n        nonlocal y\n        y = x\n    return y\n\nclass C:\n    x = 3\n    def m(self):\n        return x + self.x\n";
        let got = rename(src, "x", "z").unwrap();
        assert_eq!(
            got,
            "z = 1\n\ndef f(x):\n    return x\n\ndef g():\n    global z\n    z = 2\n    return [x for x in range(z)]\n\ndef h():\n    y = z\n    def inner():\n        nonlocal y\n        y = z\n    return y\n\nclass C:\n    x = 3\n    def m(self):\n        return z + self.x\n"
        );
        let got = rename(src, "h.y", "w").unwrap();
        assert!(
            got.contains("    w = z\n") || got.contains("    w = x\n"),
            "{got}"
        );
        assert!(got.contains("nonlocal w\n        w = x"), "{got}");
        let got = rename(src, "C.x", "attr").unwrap();
        assert!(got.contains("    attr = 3\n"), "{got}");
        assert!(got.contains("return x + self.attr"), "{got}");
    }

    #[test]
    fn parameters_take_their_keyword_arguments() {
        let src = "def f(a, b=1):\n    return a + b\n\n\nclass C:\n    def m(self, a):\n        return a\n\n    def n(self):\n        return self.m(a=1) + f(2, b=3) + g(b=4)\n\n\ndef g(b):\n    return b\n";
        let got = rename(src, "f.b", "step").unwrap();
        assert!(
            got.contains("def f(a, step=1):\n    return a + step\n"),
            "{got}"
        );
        assert!(got.contains("f(2, step=3) + g(b=4)"), "{got}");
        let got = rename(src, "C.m.a", "value").unwrap();
        assert!(got.contains("self.m(value=1)"), "{got}");
        assert_eq!(
            rename(src, "f.a", "b").unwrap_err().code,
            ErrorCode::Conflict
        );
    }

    #[test]
    fn bad_inputs() {
        let src = "a = 1\nb = 2\ndef f():\n    a = 3\n    return a + len([])\n";
        assert_eq!(rename(src, "a", "b").unwrap_err().code, ErrorCode::Conflict);
        assert_eq!(
            rename(src, "a", "len").unwrap_err().code,
            ErrorCode::Conflict
        );
        assert_eq!(
            rename(src, "a", "class").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            rename(src, "nope", "z").unwrap_err().code,
            ErrorCode::NotFound
        );
        let src2 = "def f():\n    v = 1\n    return v\ndef g():\n    v = 2\n    return v\n";
        assert_eq!(
            rename(src2, "v", "w").unwrap_err().code,
            ErrorCode::Ambiguous
        );
        assert_eq!(
            rename(src2, "g.v", "w").unwrap(),
            "def f():\n    v = 1\n    return v\ndef g():\n    w = 2\n    return w\n"
        );
    }

    #[test]
    fn strings_all_and_imports() {
        let src = "from typing import Optional, cast\n__all__ = [\"Foo\", \"bar\"]\nclass Foo:\n    def clone(self) -> \"Foo\":\n        return cast(\"Foo\", self)\nx: Optional[\"Foo\"] = None\n";
        let got = rename(src, "Foo", "Bar").unwrap();
        assert_eq!(got, src.replace("Foo", "Bar"));
        let imp = "from .m import helper\nfrom . import m\nimport pkg.m\nfrom .m import helper as h2\n\nhelper(); m.helper(); pkg.m.helper(); h2()\n";
        let r =
            rename_in_importer(imp, &|s| s == ".m" || s == "pkg.m", "helper", "assist").unwrap();
        assert!(r.re_exports);
        assert_eq!(
            run(imp, &r.splices),
            "from .m import assist\nfrom . import m\nimport pkg.m\nfrom .m import assist as h2\n\nassist(); m.assist(); pkg.m.assist(); h2()\n"
        );
    }

    fn opts(init: bool) -> ImportOptions<'static> {
        ImportOptions {
            is_init: init,
            section: &|m: &str| {
                let top = m.split('.').next().unwrap_or(m);
                if m.starts_with('.') {
                    Section::Local
                } else if is_stdlib(top) {
                    Section::Stdlib
                } else if top == "mypkg" {
                    Section::FirstParty
                } else {
                    Section::ThirdParty
                }
            },
        }
    }

    #[test]
    fn organize_like_isort() {
        let src = "\"\"\"doc\"\"\"\nimport sys\nfrom .b import y\nimport requests\nfrom __future__ import annotations\nimport os, json\n# about a\nfrom .a import x\nfrom mypkg.core import Z, A_CONST, func\nfrom os import path\nfrom .b import y, w\nimport unused_mod\n\nprint(sys, y, requests, os, json, x, Z, A_CONST, func, path, w)\n";
        let s = organize_imports(src, &opts(false)).unwrap();
        assert_eq!(
            run(src, &s),
            "\"\"\"doc\"\"\"\nfrom __future__ import annotations\n\nimport json\nimport os\nimport sys\nfrom os import path\n\nimport requests\n\nfrom mypkg.core import A_CONST, Z, func\n\n# about a\nfrom .a import x\nfrom .b import w, y\n\nprint(sys, y, requests, os, json, x, Z, A_CONST, func, path, w)\n"
        );
        // Idempotent.
        let once = run(src, &s);
        assert!(organize_imports(&once, &opts(false)).unwrap().is_empty());
    }

    #[test]
    fn remove_unused_keeps_reexports_and_type_checking() {
        let src = "from __future__ import annotations\nimport os\nimport typing\nfrom x import a, b  # note\nfrom y import c as c\n\nif typing.TYPE_CHECKING:\n    from z import T\n    from z import U\n\n__all__ = [\"b\"]\n\ndef f(v: U) -> None:\n    pass\n";
        let s = remove_unused_imports(src, &opts(false)).unwrap();
        assert_eq!(
            run(src, &s),
            "from __future__ import annotations\nimport typing\nfrom x import b  # note\nfrom y import c as c\n\nif typing.TYPE_CHECKING:\n    from z import U\n\n__all__ = [\"b\"]\n\ndef f(v: U) -> None:\n    pass\n"
        );
        let src2 =
            "import typing\nif typing.TYPE_CHECKING:\n    from z import T\n\nx = typing.Any\n";
        let s = remove_unused_imports(src2, &opts(false)).unwrap();
        assert_eq!(run(src2, &s), "import typing\n\nx = typing.Any\n");
        let init = "from .core import thing\nimport os\n";
        let s = remove_unused_imports(init, &opts(true)).unwrap();
        assert_eq!(run(init, &s), "from .core import thing\n");
    }
}
