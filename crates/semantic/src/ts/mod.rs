//! Syntactic refactors of TS/TSX/JS without a language server. This module holds the scopes
//! and what stands on them alone: rename a declaration and its references in their scope
//! (and, across files, in the files that import it by name), organize imports, remove unused
//! imports. The other refactors are its modules, one per kind: [`extract`]
//! (extract_variable, extract_constant), [`extract_function`], [`extract_type`],
//! [`inline`] (inline_function), [`inline_variable`], [`convert`] (convert_to_arrow, convert_to_function),
//! [`convert_async`], [`add_import`]; [`exports`] is what a module exports, [`types`] the
//! types a parameter can be given. Everything is computed on tree-sitter trees as splices of
//! the text as read; nothing here reads files or resolves paths beyond the string arithmetic
//! of relative import specifiers over a list of known paths.
//!
//! Scopes are lexical: `var` and parameters belong to their function, `let`/`const`/classes/
//! types to their block, imports to the module. A reference is bound to the nearest enclosing
//! scope that declares its name. What the syntax cannot tell (types flowing through
//! properties, `obj.member` renames, dynamic code) is out of reach: replies call this
//! precision "syntactic", and the language-server bridge is the semantic path.

use crate::Lang;
use crate::ops::Splice;
use crate::style::{one_line, unquote};
use filekit_errors::{ErrorCode, FkError};
use std::collections::{BTreeMap, HashMap, HashSet};
use tree_sitter::{Node, Tree};

pub mod add_import;
pub mod convert;
pub mod convert_async;
pub mod exports;
pub mod extract;
pub mod extract_function;
pub mod extract_type;
pub mod inline;
pub mod inline_variable;
pub mod types;

pub(crate) fn parse(lang: Lang, text: &str) -> Result<Tree, FkError> {
    if !matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript) {
        return Err(FkError::invalid(format!(
            "syntactic refactors are built for TS/TSX/JS files, not {lang:?}"
        ))
        .with_hint("with a language server on PATH (pyright-langserver, rust-analyzer) filekit asks it instead"));
    }
    crate::bounds::parse(lang, text, None, false)
}

/// JavaScript and TypeScript reserved words that cannot name a binding.
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "let",
    "static",
    "yield",
    "await",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
];

/// Refuses a name that cannot be a JS/TS identifier.
pub fn check_identifier(name: &str) -> Result<(), FkError> {
    let mut chars = name.chars();
    let ok_start = chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
    let ok_rest = chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    if !ok_start || !ok_rest {
        return Err(
            FkError::invalid(format!("`{name}` is not a valid identifier")).with_hint(
                "a name starts with a letter, _ or $ and goes on with letters, digits, _ or $",
            ),
        );
    }
    if RESERVED.contains(&name) {
        return Err(FkError::invalid(format!("`{name}` is a reserved word"))
            .with_hint("choose a name that is not a JavaScript/TypeScript keyword"));
    }
    Ok(())
}

pub(crate) const OCCURRENCE_KINDS: &[&str] = &[
    "identifier",
    "type_identifier",
    "shorthand_property_identifier",
    "shorthand_property_identifier_pattern",
];

const FUNCTIONS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// What declares parameters without a body: types and signatures.
const SIGNATURES: &[&str] = &[
    "function_type",
    "constructor_type",
    "call_signature",
    "construct_signature",
    "method_signature",
    "abstract_method_signature",
    "function_signature",
];

/// Whether a parameter (or parameter list) belongs to a type or a signature rather than to a
/// function with a body.
fn in_signature(param: Node) -> bool {
    let list = if param.kind() == "formal_parameters" {
        Some(param)
    } else {
        param.parent()
    };
    list.and_then(|l| l.parent())
        .is_some_and(|owner| SIGNATURES.contains(&owner.kind()))
}

const BLOCKS: &[&str] = &[
    "program",
    "statement_block",
    "for_statement",
    "for_in_statement",
    "class_body",
    "switch_body",
];

pub(crate) fn ancestor<'a>(n: Node<'a>, kinds: &[&str]) -> Option<Node<'a>> {
    let mut p = n.parent();
    while let Some(x) = p {
        if kinds.contains(&x.kind()) {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

fn is_field(parent: Node, field: &str, child: Node) -> bool {
    parent.child_by_field_name(field).map(|c| c.id()) == Some(child.id())
}

/// One file's bindings: which identifier occurrences declare a name, and in which scope.
pub(crate) struct Scopes<'t> {
    text: &'t str,
    /// (scope node id, name) -> declaring occurrences' byte starts.
    pub(crate) decls: HashMap<(usize, String), Vec<usize>>,
}

impl<'t> Scopes<'t> {
    fn text_of(&self, n: Node) -> &'t str {
        &self.text[n.byte_range()]
    }

    /// The scope an occurrence declares its name in, when it is a declaration.
    pub(crate) fn declaring_scope<'a>(&self, id: Node<'a>) -> Option<Node<'a>> {
        let parent = id.parent()?;
        let pk = parent.kind();
        // Walk up through destructuring patterns to what declares them.
        let mut holder = parent;
        let mut child = id;
        if id.kind() == "shorthand_property_identifier_pattern" {
            // in an object_pattern
        } else if id.kind() == "shorthand_property_identifier" {
            return None;
        }
        loop {
            match holder.kind() {
                "object_pattern" | "array_pattern" | "rest_pattern" => {}
                "pair_pattern" if is_field(holder, "value", child) => {}
                "assignment_pattern" if is_field(holder, "left", child) => {}
                "object_assignment_pattern" if is_field(holder, "left", child) => {}
                _ => break,
            }
            child = holder;
            holder = holder.parent()?;
        }
        let hk = holder.kind();
        match hk {
            "variable_declarator" if is_field(holder, "name", child) => {
                let decl = holder.parent()?;
                if decl.kind() == "variable_declaration" {
                    // `var`: the function's scope.
                    ancestor(decl, FUNCTIONS)
                        .and_then(|f| f.child_by_field_name("body"))
                        .or_else(|| ancestor(decl, &["program"]))
                } else {
                    ancestor(decl, BLOCKS)
                }
            }
            // A parameter of a type (`cb: (_super: number) => void`, an interface's method, an
            // overload's signature) names a slot of that type, not a binding of any scope.
            "required_parameter" | "optional_parameter" | "formal_parameters"
                if in_signature(holder) =>
            {
                None
            }
            "required_parameter" | "optional_parameter" if is_field(holder, "pattern", child) => {
                ancestor(holder, FUNCTIONS)
            }
            "formal_parameters" => ancestor(holder, FUNCTIONS),
            "arrow_function" if is_field(holder, "parameter", child) => Some(holder),
            "catch_clause" if is_field(holder, "parameter", child) => Some(holder),
            "for_in_statement" if is_field(holder, "left", child) => Some(holder),
            _ if child.id() != id.id() => None,
            "function_declaration"
            | "generator_function_declaration"
            | "class_declaration"
            | "abstract_class_declaration"
            | "interface_declaration"
            | "type_alias_declaration"
            | "enum_declaration"
                if is_field(parent, "name", id) =>
            {
                ancestor(parent, BLOCKS)
            }
            "function_expression" | "function" | "class" | "generator_function"
                if is_field(parent, "name", id) =>
            {
                Some(parent)
            }
            "type_parameter" if is_field(parent, "name", id) => parent.parent()?.parent(),
            "import_specifier" => {
                let local = parent
                    .child_by_field_name("alias")
                    .or_else(|| parent.child_by_field_name("name"))?;
                (local.id() == id.id()).then(|| ancestor(parent, &["program"]))?
            }
            "import_clause" | "namespace_import" => ancestor(parent, &["program"]),
            _ => {
                let _ = pk;
                None
            }
        }
    }

    /// Whether an occurrence is a use of a local binding at all (not an imported or
    /// re-exported name that merely looks like one).
    pub(crate) fn is_reference(&self, id: Node) -> bool {
        let Some(parent) = id.parent() else {
            return false;
        };
        match parent.kind() {
            "import_specifier" => {
                // `import { a as b }`: `a` names the other module's export.
                parent.child_by_field_name("alias").is_none() || !is_field(parent, "name", id)
            }
            "export_specifier" => {
                let re_export = ancestor(parent, &["export_statement"])
                    .is_some_and(|e| e.child_by_field_name("source").is_some());
                !re_export && is_field(parent, "name", id)
            }
            _ => true,
        }
    }

    /// The scope node that a reference resolves to: the nearest enclosing scope declaring it.
    pub(crate) fn binding<'a>(&self, id: Node<'a>) -> Option<Node<'a>> {
        let name = self.text_of(id).to_string();
        let mut p = Some(id);
        while let Some(x) = p {
            if self.decls.contains_key(&(x.id(), name.clone())) {
                return Some(x);
            }
            p = x.parent();
        }
        None
    }
}

/// Every occurrence node of `name` in the tree, in source order.
pub(crate) fn occurrences<'a>(tree: &'a Tree, text: &str, name: &str) -> Vec<Node<'a>> {
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    let mut visited_children = false;
    loop {
        let n = cursor.node();
        if !visited_children {
            if OCCURRENCE_KINDS.contains(&n.kind()) && &text[n.byte_range()] == name {
                out.push(n);
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            visited_children = false;
        } else if cursor.goto_parent() {
            visited_children = true;
        } else {
            break;
        }
    }
    out
}

pub(crate) fn scopes_for<'t>(tree: &Tree, text: &'t str, occ: &[Node]) -> Scopes<'t> {
    let mut s = Scopes {
        text,
        decls: HashMap::new(),
    };
    let _ = tree;
    for n in occ {
        if let Some(scope) = s.declaring_scope(*n) {
            s.decls
                .entry((scope.id(), text[n.byte_range()].to_string()))
                .or_default()
                .push(n.start_byte());
        }
    }
    s
}

/// Which declaration a rename starts from.
#[derive(Debug, Clone)]
pub enum Target {
    /// A name: its module-level declaration, or its only declaration in the file.
    Name(String),
    /// The identifier at this byte offset (a declaration or a reference).
    At(usize),
}

/// What a rename in one file found out about the renamed binding.
#[derive(Debug, Clone, Default)]
pub struct FileRename {
    pub splices: Vec<Splice>,
    /// The old name.
    pub name: String,
    /// The binding is module-level and exported under its old name.
    pub exported: bool,
    /// The binding is an import `{ name }` from this specifier.
    pub imported_from: Option<String>,
}

/// The splice that renames one occurrence node.
fn rename_splice(text: &str, n: Node, new: &str, keep_public: bool) -> Splice {
    let old = &text[n.byte_range()];
    let parent = n.parent();
    let (s, e) = (n.start_byte(), n.end_byte());
    match (n.kind(), parent.map(|p| p.kind())) {
        ("shorthand_property_identifier" | "shorthand_property_identifier_pattern", _) => {
            Splice::new(s, e, format!("{old}: {new}"))
        }
        (_, Some("import_specifier"))
            if parent.is_some_and(|p| p.child_by_field_name("alias").is_none()) =>
        {
            // The imported name stays; the local binding gets the new name.
            if keep_public {
                Splice::new(s, e, format!("{old} as {new}"))
            } else {
                Splice::new(s, e, new.to_string())
            }
        }
        (_, Some("export_specifier"))
            if keep_public && parent.is_some_and(|p| p.child_by_field_name("alias").is_none()) =>
        {
            Splice::new(s, e, format!("{new} as {old}"))
        }
        _ => Splice::new(s, e, new.to_string()),
    }
}

/// Renames a binding of one file and its references in its scope. `keep_public` keeps the
/// names other modules see (an exported name becomes `new as old`, an imported one `old as
/// new`): the file scope. Without it, exported and imported names change too, for a rename
/// that also changes the other files.
pub fn rename_in_file(
    lang: Lang,
    text: &str,
    target: &Target,
    new: &str,
    keep_public: bool,
) -> Result<FileRename, FkError> {
    check_identifier(new)?;
    let tree = parse(lang, text)?;
    rename_in_tree(&tree, text, target, new, keep_public)
}

/// [`rename_in_file`] on a tree already parsed from `text`.
fn rename_in_tree(
    tree: &Tree,
    text: &str,
    target: &Target,
    new: &str,
    keep_public: bool,
) -> Result<FileRename, FkError> {
    let name = match target {
        Target::Name(n) => {
            if n.contains('.') {
                return Err(FkError::invalid(format!(
                    "`{n}`: a member (Class.member) cannot be renamed syntactically: its uses go through objects whose type only a type checker knows"
                ))
                .with_hint("install the language server (npm install -g typescript typescript-language-server) for semantic renames, or rename the declaration's own name"));
            }
            check_identifier(n).map_err(|e| FkError {
                message: format!("symbol: {}", e.message),
                ..e
            })?;
            n.clone()
        }
        Target::At(offset) => {
            let node = tree
                .root_node()
                .descendant_for_byte_range(*offset, *offset)
                .filter(|n| OCCURRENCE_KINDS.contains(&n.kind()))
                .ok_or_else(|| {
                    let p = crate::position(text, *offset);
                    FkError::new(
                        ErrorCode::NotFound,
                        format!("no identifier at line {}, column {}", p.line, p.column),
                    )
                    .with_hint("point the selection's start at the name to rename")
                })?;
            text[node.byte_range()].to_string()
        }
    };
    let occ = occurrences(tree, text, &name);
    let scopes = scopes_for(tree, text, &occ);
    // The binding to rename: a scope node id.
    let scope_id = match target {
        Target::At(offset) => {
            let node = occ
                .iter()
                .find(|n| n.start_byte() <= *offset && *offset <= n.end_byte())
                .copied();
            node.and_then(|n| scopes.binding(n)).map(|s| s.id())
        }
        Target::Name(_) => {
            let root = tree.root_node().id();
            let mut scopes_named: Vec<usize> = scopes
                .decls
                .keys()
                .filter(|(_, n)| *n == name)
                .map(|(s, _)| *s)
                .collect();
            scopes_named.sort_unstable();
            scopes_named.dedup();
            if scopes_named.contains(&root) {
                Some(root)
            } else if scopes_named.len() == 1 {
                Some(scopes_named[0])
            } else if scopes_named.len() > 1 {
                let mut lines: Vec<String> = scopes
                    .decls
                    .iter()
                    .filter(|((_, n), _)| *n == name)
                    .flat_map(|(_, starts)| starts.iter())
                    .map(|s| {
                        let p = crate::position(text, *s);
                        format!("line {} column {}", p.line, p.column)
                    })
                    .collect();
                lines.sort();
                return Err(FkError::new(
                    ErrorCode::Ambiguous,
                    format!(
                        "`{name}` is declared in {} scopes of this file ({})",
                        scopes_named.len(),
                        lines.join(", ")
                    ),
                )
                .with_hint(
                    "give the selection (its start on the declaration to rename) to choose one",
                ));
            } else {
                None
            }
        }
    };
    let Some(scope_id) = scope_id else {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("no declaration of `{name}` in this file"),
        )
        .with_hint("rename where the symbol is declared (or imported); a global or a property cannot be renamed syntactically"));
    };
    // The new name must not be declared in the scope of the renamed binding already (a
    // shadowing declaration in an inner scope is not detected).
    if new != name {
        let occ_new = occurrences(tree, text, new);
        let scopes_new = scopes_for(tree, text, &occ_new);
        let clash = scopes_new
            .decls
            .iter()
            .find(|((scope, _), _)| *scope == scope_id);
        if let Some((_, starts)) = clash {
            let p = crate::position(text, starts[0]);
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "`{new}` is already declared in the same scope (line {}, column {})",
                    p.line, p.column
                ),
            )
            .with_hint("choose another name, or rename that declaration first"));
        }
    }
    let mut out = FileRename {
        name: name.clone(),
        ..FileRename::default()
    };
    let root_id = tree.root_node().id();
    let mut seen = HashSet::new();
    for n in &occ {
        if !scopes.is_reference(*n) && scopes.declaring_scope(*n).is_none() {
            continue;
        }
        if scopes.binding(*n).map(|s| s.id()) != Some(scope_id) {
            continue;
        }
        if !seen.insert(n.start_byte()) {
            continue;
        }
        if scope_id == root_id {
            let parent = n.parent();
            match parent.map(|p| p.kind()) {
                Some("export_specifier")
                    if parent.is_some_and(|p| p.child_by_field_name("alias").is_none()) =>
                {
                    out.exported = true
                }
                Some("import_specifier") => {
                    let p = parent.expect("matched");
                    if p.child_by_field_name("alias").is_none() {
                        out.imported_from = import_source(text, p);
                    }
                }
                _ => {}
            }
            if scopes.declaring_scope(*n).is_some()
                && ancestor(*n, &["export_statement"]).is_some_and(|e| {
                    e.child_by_field_name("declaration").is_some() && !has_child_kind(e, "default")
                })
            {
                out.exported = true;
            }
        }
        out.splices.push(rename_splice(text, *n, new, keep_public));
    }
    out.splices.sort_by_key(|s| s.start);
    Ok(out)
}

fn has_child_kind(n: Node, kind: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c).any(|x| x.kind() == kind)
}

/// The module specifier of the import or export statement holding `n`.
fn import_source(text: &str, n: Node) -> Option<String> {
    let stmt = ancestor(n, &["import_statement", "export_statement"])?;
    let src = stmt.child_by_field_name("source")?;
    Some(unquote(&text[src.byte_range()]))
}

/// What renaming an export changes in a file that imports from the renamed module.
#[derive(Debug, Clone, Default)]
pub struct ImporterRename {
    pub splices: Vec<Splice>,
    /// The file re-exports the name under its old name (`export { a } from`, `export *
    /// from`): its own importers change too.
    pub re_exports: bool,
}

/// In a file that may import from the module renamed (`resolves(specifier)` says whether a
/// specifier names it), the splices renaming `old` to `new`: named imports (and their uses
/// when not aliased), re-exports, `ns.old` through namespace imports.
pub fn rename_in_importer(
    lang: Lang,
    text: &str,
    resolves: &dyn Fn(&str) -> bool,
    old: &str,
    new: &str,
) -> Result<ImporterRename, FkError> {
    let tree = parse(lang, text)?;
    let root = tree.root_node();
    let mut out = ImporterRename::default();
    let mut namespaces: Vec<String> = Vec::new();
    let mut local_rename = false;
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        let is_import = stmt.kind() == "import_statement";
        let is_export = stmt.kind() == "export_statement";
        if !is_import && !is_export {
            continue;
        }
        let Some(src) = stmt.child_by_field_name("source") else {
            continue;
        };
        if !resolves(&unquote(&text[src.byte_range()])) {
            continue;
        }
        let mut stack = vec![stmt];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
            match n.kind() {
                "import_specifier" | "export_specifier" => {
                    let Some(name) = n.child_by_field_name("name") else {
                        continue;
                    };
                    if &text[name.byte_range()] != old {
                        continue;
                    }
                    if n.child_by_field_name("alias").is_some() {
                        out.splices.push(Splice::new(
                            name.start_byte(),
                            name.end_byte(),
                            new.to_string(),
                        ));
                    } else if is_import {
                        local_rename = true;
                    } else {
                        out.splices.push(Splice::new(
                            name.start_byte(),
                            name.end_byte(),
                            new.to_string(),
                        ));
                        out.re_exports = true;
                    }
                }
                "namespace_import" => {
                    let mut c2 = n.walk();
                    if let Some(id) = n.named_children(&mut c2).find(|x| x.kind() == "identifier") {
                        namespaces.push(text[id.byte_range()].to_string());
                    }
                }
                _ => {}
            }
        }
        if is_export
            && has_child_kind(stmt, "*")
            && stmt.child_by_field_name("declaration").is_none()
        {
            let mut c = stmt.walk();
            if !stmt
                .named_children(&mut c)
                .any(|x| x.kind() == "namespace_export")
            {
                out.re_exports = true;
            }
        }
    }
    if local_rename {
        check_identifier(new)?;
        let r = rename_in_tree(&tree, text, &Target::Name(old.to_string()), new, false)?;
        out.splices.extend(r.splices);
    }
    if !namespaces.is_empty() {
        // `ns.old` member accesses.
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
            if matches!(n.kind(), "member_expression" | "nested_type_identifier")
                && let (Some(obj), Some(prop)) = (
                    n.child_by_field_name("object")
                        .or_else(|| n.child_by_field_name("module")),
                    n.child_by_field_name("property")
                        .or_else(|| n.child_by_field_name("name")),
                )
                && namespaces.iter().any(|ns| ns == &text[obj.byte_range()])
                && &text[prop.byte_range()] == old
            {
                out.splices.push(Splice::new(
                    prop.start_byte(),
                    prop.end_byte(),
                    new.to_string(),
                ));
            }
        }
    }
    out.splices.sort_by_key(|s| s.start);
    out.splices.dedup_by_key(|s| s.start);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Imports

/// One import declaration as parsed.
#[derive(Debug, Clone)]
struct Import {
    /// Byte range of the statement (with a trailing same-line comment).
    range: std::ops::Range<usize>,
    /// Comments and blank-free lines directly above it that belong to it.
    lead: std::ops::Range<usize>,
    source: String,
    quote: char,
    semicolon: bool,
    type_only: bool,
    default: Option<String>,
    namespace: Option<String>,
    /// Specifier texts (`a`, `a as b`, `type a`) with their local names.
    named: Vec<(String, String)>,
    /// `import x from` has braces even when empty (`import {} from`).
    has_braces: bool,
    side_effect: bool,
    /// The original statement text, kept verbatim when the import is not changed.
    original: String,
}

fn parse_imports(text: &str, tree: &Tree) -> Vec<Import> {
    let root = tree.root_node();
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let children: Vec<Node> = root.children(&mut cursor).collect();
    for (i, stmt) in children.iter().enumerate() {
        if stmt.kind() != "import_statement" {
            continue;
        }
        let Some(src) = stmt.child_by_field_name("source") else {
            continue;
        };
        let src_text = &text[src.byte_range()];
        let mut imp = Import {
            range: stmt.byte_range(),
            lead: stmt.start_byte()..stmt.start_byte(),
            source: unquote(src_text),
            quote: src_text.chars().next().unwrap_or('\''),
            semicolon: text[stmt.byte_range()].trim_end().ends_with(';'),
            type_only: false,
            default: None,
            namespace: None,
            named: Vec::new(),
            has_braces: false,
            side_effect: true,
            original: String::new(),
        };
        let mut c = stmt.walk();
        for ch in stmt.children(&mut c) {
            match ch.kind() {
                "type" => imp.type_only = true,
                "import_clause" => {
                    imp.side_effect = false;
                    let mut c2 = ch.walk();
                    for part in ch.named_children(&mut c2) {
                        match part.kind() {
                            "identifier" => imp.default = Some(text[part.byte_range()].into()),
                            "namespace_import" => {
                                let mut c3 = part.walk();
                                imp.namespace = part
                                    .named_children(&mut c3)
                                    .find(|x| x.kind() == "identifier")
                                    .map(|x| text[x.byte_range()].to_string());
                            }
                            "named_imports" => {
                                imp.has_braces = true;
                                let mut c3 = part.walk();
                                for spec in part.named_children(&mut c3) {
                                    if spec.kind() != "import_specifier" {
                                        continue;
                                    }
                                    let local = spec
                                        .child_by_field_name("alias")
                                        .or_else(|| spec.child_by_field_name("name"))
                                        .map(|x| text[x.byte_range()].to_string())
                                        .unwrap_or_default();
                                    imp.named.push((one_line(&text[spec.byte_range()]), local));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        // A comment on the same line after the statement belongs to it.
        if let Some(next) = children.get(i + 1)
            && next.kind() == "comment"
            && !text[stmt.end_byte()..next.start_byte()].contains('\n')
        {
            imp.range.end = next.end_byte();
        }
        // Comments directly above (no blank line between) belong to it, unless they are
        // the file's first lines (a header stays at the top).
        let mut j = i;
        while j > 0 {
            let prev = children[j - 1];
            let gap = &text[prev.end_byte()..children[j].start_byte()];
            if prev.kind() != "comment" || gap.matches('\n').count() > 1 {
                break;
            }
            if j >= 2 && !text[children[j - 2].end_byte()..prev.start_byte()].contains('\n') {
                // a trailing comment of the statement before
                break;
            }
            if j == 1 {
                break;
            }
            imp.lead.start = prev.start_byte();
            j -= 1;
        }
        imp.original = text[imp.lead.start..imp.range.end].to_string();
        out.push(imp);
    }
    out
}

fn render(imp: &Import) -> String {
    let q = imp.quote;
    let semi = if imp.semicolon { ";" } else { "" };
    if imp.side_effect {
        return format!("import {q}{}{q}{semi}", imp.source);
    }
    let mut clause = Vec::new();
    if let Some(d) = &imp.default {
        clause.push(d.clone());
    }
    if let Some(ns) = &imp.namespace {
        clause.push(format!("* as {ns}"));
    }
    if !imp.named.is_empty() {
        let names: Vec<&str> = imp.named.iter().map(|(s, _)| s.as_str()).collect();
        clause.push(format!("{{ {} }}", names.join(", ")));
    }
    let ty = if imp.type_only { "type " } else { "" };
    format!(
        "import {ty}{} from {q}{}{q}{semi}",
        clause.join(", "),
        imp.source
    )
}

/// The names the file uses outside its import declarations.
fn used_names(text: &str, tree: &Tree) -> HashSet<String> {
    let mut used = HashSet::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "import_statement" {
            continue;
        }
        if OCCURRENCE_KINDS.contains(&n.kind())
            || (n.kind() == "property_identifier"
                && n.parent().is_some_and(|p| p.kind() == "jsx_attribute"))
        {
            used.insert(text[n.byte_range()].to_string());
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    // JSX with the classic runtime uses `React` implicitly.
    if text.contains('<') && has_jsx(tree.root_node()) {
        used.insert("React".into());
    }
    used
}

fn has_jsx(n: Node) -> bool {
    if n.kind().starts_with("jsx_") {
        return true;
    }
    let mut c = n.walk();
    n.children(&mut c).any(has_jsx)
}

/// Drops unused bindings of an import; `None` when nothing of it is left.
fn prune(imp: &Import, used: &HashSet<String>) -> Option<Import> {
    if imp.side_effect {
        return Some(imp.clone());
    }
    let mut out = imp.clone();
    out.default = imp.default.clone().filter(|d| used.contains(d));
    out.namespace = imp.namespace.clone().filter(|d| used.contains(d));
    out.named.retain(|(_, local)| used.contains(local));
    if out.default.is_none() && out.namespace.is_none() && out.named.is_empty() {
        return None;
    }
    Some(out)
}

/// Whole-line removal of `range` (with its line's newline when it is alone on its lines).
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

/// Removes the import specifiers the file does not use, and declarations left empty.
/// Side-effect imports (`import './polyfill'`) stay.
pub fn remove_unused_imports(lang: Lang, text: &str) -> Result<Vec<Splice>, FkError> {
    let tree = parse(lang, text)?;
    let imports = parse_imports(text, &tree);
    let used = used_names(text, &tree);
    let mut out = Vec::new();
    for imp in &imports {
        match prune(imp, &used) {
            None => out.push(remove_lines(text, imp.lead.start..imp.range.end)),
            Some(p)
                if p.named.len() != imp.named.len()
                    || p.default != imp.default
                    || p.namespace != imp.namespace =>
            {
                let stmt_end = imp
                    .range
                    .end
                    .min(imp.range.start + imp.original.len() - (imp.range.start - imp.lead.start));
                let stmt_text = &text[imp.range.start..stmt_end];
                let tail = stmt_text
                    .find(';')
                    .map(|i| imp.range.start + i + 1)
                    .unwrap_or(stmt_end);
                let end = if imp.semicolon { tail } else { stmt_end };
                let end = end.min(statement_end(text, imp));
                out.push(Splice::new(imp.range.start, end, render(&p)));
            }
            Some(_) => {}
        }
    }
    Ok(out)
}

/// The end of an import statement itself (without a trailing comment).
fn statement_end(text: &str, imp: &Import) -> usize {
    let s = &text[imp.range.clone()];
    // The source string closes the statement, then an optional `;`.
    let q = imp.quote;
    let needle = format!("{q}{}{q}", imp.source);
    match s.find(&needle) {
        Some(i) => {
            let mut e = imp.range.start + i + needle.len();
            let rest = &text[e..];
            let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if text[e + ws..].starts_with(';') {
                e += ws + 1;
            }
            e
        }
        None => imp.range.end,
    }
}

fn sort_key(s: &str) -> (String, String) {
    (s.to_lowercase(), s.to_string())
}

/// Sorts and merges the import declarations (as TypeScript's organize imports does: unused
/// bindings dropped, imports of one module merged, sorted by module then by name). Side-effect
/// imports stay where they are and in their order: they split the imports into groups sorted
/// on their own. A comment above an import moves with it; the file's header comment stays.
pub fn organize_imports(lang: Lang, text: &str) -> Result<Vec<Splice>, FkError> {
    let tree = parse(lang, text)?;
    let imports = parse_imports(text, &tree);
    if imports.is_empty() {
        return Ok(vec![]);
    }
    let used = used_names(text, &tree);
    // Consecutive imports (only comments and white space between) form a block.
    let mut blocks: Vec<Vec<&Import>> = Vec::new();
    for imp in &imports {
        match blocks.last_mut() {
            Some(b)
                if text[b.last().expect("non-empty").range.end..imp.lead.start]
                    .trim()
                    .is_empty() =>
            {
                b.push(imp)
            }
            _ => blocks.push(vec![imp]),
        }
    }
    let mut out = Vec::new();
    for block in blocks {
        let start = block[0].lead.start;
        let end = statement_end_with_comment(text, block.last().expect("non-empty"));
        let mut lines: Vec<String> = Vec::new();
        // Groups between side-effect imports.
        let mut group: Vec<&Import> = Vec::new();
        let flush = |group: &mut Vec<&Import>, lines: &mut Vec<String>| {
            // (module, type-only, slot) -> the merged import and the imports it came from.
            type Key = (String, String, bool, u8);
            let mut merged: BTreeMap<Key, (Import, Vec<&Import>)> = BTreeMap::new();
            for imp in group.drain(..) {
                let Some(p) = prune(imp, &used) else { continue };
                // A namespace import cannot merge with named ones.
                let slot = if p.namespace.is_some() { 1 } else { 0 };
                let (k1, k2) = sort_key(&p.source);
                let mut key = (k1, k2, p.type_only, slot);
                if let Some((m, _)) = merged.get(&key)
                    && m.default.is_some()
                    && p.default.is_some()
                    && m.default != p.default
                {
                    key.3 = 2; // two defaults: two declarations
                }
                match merged.get_mut(&key) {
                    Some((m, from)) => {
                        if m.default.is_none() {
                            m.default = p.default.clone();
                        }
                        m.named.extend(p.named.clone());
                        from.push(imp);
                    }
                    None => {
                        merged.insert(key, (p, vec![imp]));
                    }
                }
            }
            for (_, (mut m, from)) in merged {
                let before = m.named.clone();
                m.named.sort_by_key(|a| sort_key(&a.0));
                m.named.dedup();
                let untouched = from.len() == 1
                    && before == m.named
                    && from[0].named == m.named
                    && from[0].default == m.default
                    && from[0].namespace == m.namespace;
                if untouched {
                    lines.push(from[0].original.clone());
                } else {
                    let comments: String = from.iter().map(|i| comments_of(text, i)).collect();
                    lines.push(format!("{comments}{}", render(&m)));
                }
            }
        };
        for imp in block.iter() {
            if imp.side_effect {
                flush(&mut group, &mut lines);
                lines.push(imp.original.clone());
            } else {
                group.push(imp);
            }
        }
        flush(&mut group, &mut lines);
        let new = lines.join("\n");
        if text[start..end] != new {
            if new.is_empty() {
                out.push(remove_lines(text, start..end));
            } else {
                out.push(Splice::new(start, end, new));
            }
        }
    }
    Ok(out)
}

/// The leading comments of an import (for a merged import: those of its first part).
fn comments_of(text: &str, imp: &Import) -> String {
    let lead = &text[imp.lead.start..imp.range.start];
    let trail_start = statement_end(text, imp);
    let trail = text[trail_start..imp.range.end].trim_end();
    if trail.is_empty() {
        lead.to_string()
    } else {
        // a same-line comment goes above the rewritten import
        format!("{lead}{}\n", trail.trim_start())
    }
}

fn statement_end_with_comment(_text: &str, imp: &Import) -> usize {
    imp.range.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, splices: &[Splice]) -> String {
        crate::ops::apply(text, splices)
    }

    #[test]
    fn rename_respects_scopes() {
        let src = "const a = 1;\nfunction f(a: number) { return a; }\nexport const b = a + 1;\nconst o = { a };\n";
        let r =
            rename_in_file(Lang::TypeScript, src, &Target::Name("a".into()), "z", false).unwrap();
        assert_eq!(
            run(src, &r.splices),
            "const z = 1;\nfunction f(a: number) { return a; }\nexport const b = z + 1;\nconst o = { a: z };\n"
        );
    }

    #[test]
    fn rename_onto_a_declared_name_is_refused() {
        let src = "const a = 1;\nconst b = 2;\nexport const c = a + b;\n";
        let err = rename_in_file(Lang::TypeScript, src, &Target::Name("a".into()), "b", false)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains("line 2"), "{}", err.message);
    }

    #[test]
    fn organize_sorts_merges_and_keeps_side_effects() {
        let src = "// header\n\nimport { b, a } from './z';\nimport './polyfill';\nimport { y } from './b';\n// about x\nimport { x } from './b';\nimport { unused } from './c';\n\nconsole.log(a, b, x, y);\n";
        let s = organize_imports(Lang::TypeScript, src).unwrap();
        assert_eq!(
            run(src, &s),
            "// header\n\nimport { a, b } from './z';\nimport './polyfill';\n// about x\nimport { x, y } from './b';\n\nconsole.log(a, b, x, y);\n"
        );
    }

    #[test]
    fn remove_unused() {
        let src =
            "import A, { b, c } from './m';\nimport './side';\nimport * as ns from './n';\nc();\n";
        let s = remove_unused_imports(Lang::TypeScript, src).unwrap();
        assert_eq!(
            run(src, &s),
            "import { c } from './m';\nimport './side';\nc();\n"
        );
    }
}
