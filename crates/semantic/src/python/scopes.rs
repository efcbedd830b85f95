//! Scopes: what every name of a Python module binds and where it is read, written or
//! imported (the analysis renames and import clean-ups are made on).

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScopeKind {
    Module,
    Function,
    Class,
    Comprehension,
}

#[derive(Debug)]
pub(super) struct Scope {
    pub(super) kind: ScopeKind,
    pub(super) parent: Option<usize>,
    pub(super) bound: HashSet<String>,
    pub(super) globals: HashSet<String>,
    pub(super) nonlocals: HashSet<String>,
    /// A method's first parameter (`self`, `cls`), when the scope is a method of a class.
    pub(super) first_param: Option<String>,
    /// The syntax node that opens it (its `id`): the module, a def, lambda, class or
    /// comprehension.
    pub(super) node: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OccKind {
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
pub(super) struct Occ {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) name: String,
    pub(super) scope: usize,
    pub(super) binding: bool,
    pub(super) kind: OccKind,
}

/// `obj.name`.
#[derive(Debug, Clone)]
pub(super) struct Attr {
    /// The object's text without white space (`self`, `pkg.mod`).
    pub(super) obj: String,
    /// The object's occurrence when it is a plain name.
    pub(super) obj_occ: Option<usize>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) name: String,
    pub(super) scope: usize,
    pub(super) assigned: bool,
}

/// A function or class definition.
#[derive(Debug, Clone)]
pub(super) struct Def {
    pub(super) name: String,
    /// Where its name is bound.
    pub(super) scope: usize,
    /// Its own scope.
    pub(super) inner: usize,
    pub(super) class: bool,
}

/// An imported module spec and how a name of it was imported (for importers).
#[derive(Debug, Clone)]
pub(super) struct FromItem {
    pub(super) module: String,
    /// The imported name's range and text.
    pub(super) name: (usize, usize, String),
    pub(super) alias: Option<String>,
    pub(super) scope: usize,
}

#[derive(Debug, Clone)]
pub(super) struct StraightItem {
    pub(super) module: String,
    pub(super) alias: Option<String>,
}

pub(super) struct Analysis<'t> {
    pub(super) text: &'t str,
    pub(super) scopes: Vec<Scope>,
    pub(super) occs: Vec<Occ>,
    pub(super) attrs: Vec<Attr>,
    pub(super) defs: Vec<Def>,
    pub(super) from_items: Vec<FromItem>,
    /// Modules `from m import *` takes everything from.
    pub(super) star_from: Vec<String>,
    pub(super) straight: Vec<StraightItem>,
    pub(super) kwargs: Vec<Kwarg>,
    /// Where the targets of augmented assignments (`x += 1`) start: occurrences that read
    /// their name and bind it.
    pub(super) augmented: HashSet<usize>,
}

/// `f(name=...)`: the callee (a plain name's occurrence, or an attribute) and the keyword.
#[derive(Debug, Clone)]
pub(super) struct Kwarg {
    pub(super) func_occ: Option<usize>,
    pub(super) func_attr: Option<usize>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) name: String,
}

pub(super) fn is_comprehension(kind: &str) -> bool {
    matches!(
        kind,
        "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

pub(super) fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The content range of a plain string literal (no f/b prefix, no interpolation).
pub(super) fn string_content(text: &str, n: Node) -> Option<(usize, usize)> {
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
    pub(super) fn new(text: &'t str, tree: &Tree) -> Analysis<'t> {
        let mut a = Analysis {
            text,
            scopes: vec![Scope {
                kind: ScopeKind::Module,
                parent: None,
                bound: HashSet::new(),
                globals: HashSet::new(),
                nonlocals: HashSet::new(),
                first_param: None,
                node: tree.root_node().id(),
            }],
            occs: Vec::new(),
            attrs: Vec::new(),
            defs: Vec::new(),
            from_items: Vec::new(),
            star_from: Vec::new(),
            straight: Vec::new(),
            kwargs: Vec::new(),
            augmented: HashSet::new(),
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

    pub(super) fn t(&self, n: Node) -> &'t str {
        &self.text[n.byte_range()]
    }

    /// The scope `node` opens (the module, a def, lambda, class or comprehension), if it
    /// opens one.
    pub(super) fn scope_opened_by(&self, node: Node) -> Option<usize> {
        self.scopes.iter().position(|s| s.node == node.id())
    }

    /// The scope a binding of `name` made in scope `s` binds in: its own, or the module's
    /// when `s` declares it `global`, or the nearest enclosing function's that binds it when
    /// `s` declares it `nonlocal`.
    pub(super) fn binding_scope(&self, s: usize, name: &str) -> usize {
        let scope = &self.scopes[s];
        if scope.globals.contains(name) {
            return 0;
        }
        if scope.nonlocals.contains(name) {
            let mut p = scope.parent;
            while let Some(x) = p {
                if self.scopes[x].kind == ScopeKind::Function && self.scopes[x].bound.contains(name)
                {
                    return x;
                }
                p = self.scopes[x].parent;
            }
        }
        s
    }

    /// The occurrences that bind `name` in scope `s` (its own bindings, those of the scopes
    /// that declare it `global` or `nonlocal` there, and the targets of `+=`, which read and
    /// bind), in the text's order.
    pub(super) fn bindings(&self, s: usize, name: &str) -> Vec<&Occ> {
        self.occs
            .iter()
            .filter(|o| {
                o.name == name
                    && matches!(
                        o.kind,
                        OccKind::Name | OccKind::FromImport | OccKind::ModuleImport
                    )
                    && (o.binding || self.augmented.contains(&o.start))
                    && self.binding_scope(o.scope, name) == s
            })
            .collect()
    }

    pub(super) fn new_scope(&mut self, kind: ScopeKind, parent: usize, node: Node) -> usize {
        self.scopes.push(Scope {
            kind,
            parent: Some(parent),
            bound: HashSet::new(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            first_param: None,
            node: node.id(),
        });
        self.scopes.len() - 1
    }

    pub(super) fn occ(&mut self, n: Node, scope: usize, binding: bool, kind: OccKind) -> usize {
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
    pub(super) fn targets(&mut self, n: Node, s: usize) {
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

    pub(super) fn attribute(&mut self, n: Node, s: usize, ann: bool, assigned: bool) {
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
    pub(super) fn non_comprehension(&self, mut s: usize) -> usize {
        while self.scopes[s].kind == ScopeKind::Comprehension {
            s = self.scopes[s].parent.unwrap_or(0);
        }
        s
    }

    /// Names in a string annotation: `"Foo"`, `"Optional[m.Foo]"`.
    pub(super) fn string_annotation(&mut self, n: Node, s: usize) {
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

    pub(super) fn params(&mut self, params: Node, outer: usize, inner: usize) {
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

    pub(super) fn param_name(&mut self, n: Node, inner: usize) {
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

    pub(super) fn first_param_name(&self, params: Node) -> Option<String> {
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

    pub(super) fn visit_children(&mut self, n: Node, s: usize, ann: bool) {
        let mut c = n.walk();
        let ch: Vec<Node> = n.named_children(&mut c).collect();
        for x in ch {
            self.visit(x, s, ann);
        }
    }

    // Over 200 lines: one arm per kind of Python syntax node the scope model treats, each what that
    // construct binds, reads or opens; split, one tree walk would be spread over two dozen
    // functions.
    pub(super) fn visit(&mut self, n: Node, s: usize, ann: bool) {
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
                let f = self.new_scope(ScopeKind::Function, s, n);
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
                let f = self.new_scope(ScopeKind::Function, s, n);
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
                let c = self.new_scope(ScopeKind::Class, s, n);
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
                let c = self.new_scope(ScopeKind::Comprehension, s, n);
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
                        self.augmented.insert(l.start_byte());
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

    pub(super) fn is_staticmethod(&self, def: Node) -> bool {
        let Some(p) = def.parent().filter(|p| p.kind() == "decorated_definition") else {
            return false;
        };
        let mut c = p.walk();
        p.named_children(&mut c).any(|d| {
            d.kind() == "decorator" && self.t(d).trim_start_matches('@').trim() == "staticmethod"
        })
    }

    pub(super) fn all_entries(&mut self, n: Node) {
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
    pub(super) fn resolve(&self, s: usize, name: &str) -> Option<usize> {
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
    pub(super) fn visible_from(&self, s: usize, target: usize) -> bool {
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

    pub(super) fn line_col(&self, at: usize) -> String {
        let p = crate::position(self.text, at);
        format!("line {}, column {}", p.line, p.column)
    }

    /// The occurrences (indices) that refer to the binding of `name` in scope `s`.
    pub(super) fn refs_of(&self, s: usize, name: &str) -> Vec<usize> {
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
    pub(super) fn class_attrs(&self, c: usize, name: &str) -> Vec<usize> {
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
