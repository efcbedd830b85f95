//! `extract_type` for TS/TSX without a language server: a selected type becomes a
//! `type` alias (or, asked for an object type, an `interface`) declared before the statement
//! that uses it, exported when that statement is, and the selection is replaced by its name.
//!
//! As TypeScript's own refactor does, the type parameters of the declarations between the
//! selection and that statement which the type uses become the alias's own parameters
//! (`type T<V> = Foo<V>` used as `T<V>`), with their constraints. Refused, naming what forbids
//! it and where: a selection that is not exactly one type (a type predicate, `infer X`, a
//! tuple's `x?`), a JavaScript file, `this` (the alias lives outside the class), a `typeof` of
//! a parameter the alias's place cannot see, a name bound by `infer` or a mapped type around
//! the selection, a name already used in the file, `interface` for a type that is not an
//! object type.

use crate::Lang;
use crate::steps::{field_is, invalid, line, quote, to_splices};
use crate::style::uses_semicolons;
use crate::ts::check_identifier;
use crate::ts::extract::parse_clean;
use filekit_errors::FkError;
use filekit_splices::{Splice, Splices};
use std::ops::Range;
use tree_sitter::Node;

/// What the extracted type is declared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    /// `type Name = ...;`
    Alias,
    /// `interface Name { ... }` (object types only).
    Interface,
}

/// Node kinds that are a type on their own (what an alias can stand for).
const TYPES: &[&str] = &[
    "array_type",
    "conditional_type",
    "constructor_type",
    "function_type",
    "generic_type",
    "index_type_query",
    "intersection_type",
    "literal_type",
    "lookup_type",
    "nested_type_identifier",
    "object_type",
    "parenthesized_type",
    "predefined_type",
    "readonly_type",
    "template_literal_type",
    "tuple_type",
    "type_identifier",
    "type_query",
    "union_type",
];

/// Parents whose children are statements: the alias goes before one of those children.
const STATEMENT_LISTS: &[&str] = &[
    "program",
    "statement_block",
    "switch_case",
    "switch_default",
];

/// Extracts the type `range` covers into a declaration named `name`.
pub fn extract_type(
    lang: Lang,
    text: &str,
    range: Range<usize>,
    name: &str,
    kind: TypeKind,
) -> Result<Splices, FkError> {
    if !matches!(lang, Lang::TypeScript | Lang::Tsx) {
        return Err(invalid(
            "extract_type declares a TypeScript type: this file is not TypeScript",
            "use it in a .ts or .tsx file",
        ));
    }
    check_identifier(name)?;
    let tree = parse_clean(lang, text)?;
    let ty = type_at(text, tree.root_node(), range)?;
    let what = quote(text, ty);
    if kind == TypeKind::Interface && ty.kind() != "object_type" {
        return Err(invalid(
            format!(
                "`{what}` is a {}, not an object type: an interface declares an object type",
                ty.kind().replace('_', " ")
            ),
            "use typeKind \"type\" for a type alias",
        ));
    }
    if let Some(n) = crate::ts::extract::all_nodes(&tree).into_iter().find(|n| {
        matches!(
            n.kind(),
            "identifier" | "type_identifier" | "property_identifier"
        ) && &text[n.byte_range()] == name
    }) {
        return Err(invalid(
            format!(
                "`{name}` is already a name in this file (line {})",
                line(text, n.start_byte())
            ),
            "choose another name",
        ));
    }
    if let Some(t) = find(ty, &|n| {
        n.kind() == "this_type" || (n.kind() == "this" && in_kind(n, ty, "type_query"))
    }) {
        return Err(invalid(
            format!(
                "`{what}` uses `this` (line {}), which means nothing outside its class",
                line(text, t.start_byte())
            ),
            "select a type without `this`",
        ));
    }
    if let Some(u) = find(ty, &|n| {
        n.kind() == "predefined_type" && text[n.byte_range()].starts_with("unique")
    }) {
        return Err(invalid(
            format!(
                "`{what}` has `unique symbol` (line {}), a type only a `const` or a `readonly static` property may have",
                line(text, u.start_byte())
            ),
            "a unique symbol type cannot be named by an alias",
        ));
    }
    let stmt = statement_of(ty).ok_or_else(|| {
        invalid(
            format!("`{what}` is in no statement to declare the type before"),
            "select a type inside a declaration",
        )
    })?;
    let params = type_parameters(text, ty, stmt)?;
    let place = first_overload(text, stmt);
    let place = above_comments(text, place);

    let exported = stmt.kind() == "export_statement";
    let generics = if params.is_empty() {
        String::new()
    } else {
        let decl: Vec<String> = params
            .iter()
            .map(|p| match p.constraint {
                Some(c) => format!("{} {}", p.name, &text[c.byte_range()]),
                None => p.name.clone(),
            })
            .collect();
        format!("<{}>", decl.join(", "))
    };
    let body = &text[ty.byte_range()];
    let export = if exported { "export " } else { "" };
    let decl = match kind {
        TypeKind::Alias => {
            let semi = if uses_semicolons(tree.root_node(), text) {
                ";"
            } else {
                ""
            };
            format!("{export}type {name}{generics} = {body}{semi}")
        }
        TypeKind::Interface => format!("{export}interface {name}{generics} {body}"),
    };
    let use_text = if params.is_empty() {
        name.to_string()
    } else {
        let args: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        format!("{name}<{}>", args.join(", "))
    };
    let ls = text[..place].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[ls..place];
    let insert = if indent.trim().is_empty() {
        Splice::insert(ls, format!("{indent}{decl}\n"))
    } else {
        Splice::insert(place, format!("{decl}\n{}", " ".repeat(indent.len())))
    };
    to_splices(
        text,
        vec![
            insert,
            Splice::new(ty.start_byte(), ty.end_byte(), use_text),
        ],
    )
}

/// The type the selection covers exactly (white space around it aside).
fn type_at<'a>(text: &str, root: Node<'a>, range: Range<usize>) -> Result<Node<'a>, FkError> {
    let sel = &text[range.clone()];
    let start = range.start + (sel.len() - sel.trim_start().len());
    let end = range.end - (sel.len() - sel.trim_end().len());
    let p = crate::position(text, start);
    let not_a_type = |why: String| {
        invalid(
            format!(
                "the selection at line {}, column {} is not a type: {why}",
                p.line, p.column
            ),
            "select exactly one type, e.g. the text after `:` in an annotation",
        )
    };
    if start >= end {
        return Err(not_a_type("it is empty".into()));
    }
    let Some(mut n) = root.named_descendant_for_byte_range(start, end) else {
        return Err(not_a_type("it covers nothing".into()));
    };
    if n.start_byte() != start || n.end_byte() != end {
        return Err(not_a_type(format!(
            "it covers part of `{}` (line {})",
            quote(text, n),
            line(text, n.start_byte())
        )));
    }
    // The outermost node of exactly these bytes: `"a"` is a literal type's string.
    while let Some(parent) = n.parent()
        && parent.byte_range() == n.byte_range()
    {
        n = parent;
    }
    if matches!(n.kind(), "type_annotation" | "opting_type_annotation")
        && let Some(child) = n.named_child(0)
    {
        n = child;
    }
    if !TYPES.contains(&n.kind()) {
        return Err(not_a_type(format!(
            "`{}` is a {}",
            quote(text, n),
            n.kind().replace('_', " ")
        )));
    }
    if n.kind() == "type_identifier"
        && let Some(parent) = n.parent()
        && (field_is(parent, "name", n) || parent.kind() == "infer_type")
    {
        return Err(not_a_type(format!(
            "`{}` is the name a declaration declares",
            quote(text, n)
        )));
    }
    Ok(n)
}

/// The first node under `n` (itself included) that `pred` accepts.
fn find<'a>(n: Node<'a>, pred: &dyn Fn(Node<'a>) -> bool) -> Option<Node<'a>> {
    if pred(n) {
        return Some(n);
    }
    let mut c = n.walk();
    let children: Vec<Node> = n.named_children(&mut c).collect();
    children.into_iter().find_map(|ch| find(ch, pred))
}

/// Whether a node of `kind` is between `n` and `top` (both included).
fn in_kind(n: Node, top: Node, kind: &str) -> bool {
    let mut x = Some(n);
    while let Some(a) = x {
        if a.kind() == kind {
            return true;
        }
        if a.id() == top.id() {
            return false;
        }
        x = a.parent();
    }
    false
}

/// The statement the declaration goes before: the nearest ancestor that is an element of a
/// statement list (a block, the module), so that no `if` or loop without braces is split.
fn statement_of(n: Node) -> Option<Node> {
    let mut x = n;
    while let Some(p) = x.parent() {
        if STATEMENT_LISTS.contains(&p.kind()) && x.is_named() && x.kind() != "comment" {
            // A `case` label is not a statement of its case.
            if !(matches!(p.kind(), "switch_case") && field_is(p, "value", x)) {
                return Some(x);
            }
        }
        x = p;
    }
    None
}

/// The function a statement declares (under `export`, `declare`), when it is one.
fn declared_function<'a>(text: &'a str, n: Node) -> Option<&'a str> {
    let mut x = n;
    while matches!(x.kind(), "export_statement" | "ambient_declaration") {
        x = x
            .named_children(&mut x.walk())
            .find(|c| c.kind() != "comment" && c.kind() != "decorator")?;
    }
    if matches!(x.kind(), "function_signature" | "function_declaration") {
        return x
            .child_by_field_name("name")
            .map(|nm| &text[nm.byte_range()]);
    }
    None
}

/// Overload signatures must stay next to each other and to their implementation: the alias
/// goes before the first of them.
fn first_overload<'a>(text: &str, stmt: Node<'a>) -> Node<'a> {
    let Some(name) = declared_function(text, stmt) else {
        return stmt;
    };
    let mut first = stmt;
    while let Some(prev) = first.prev_named_sibling() {
        if prev.kind() == "comment" {
            // Comments between overloads belong to them.
            let mut p = prev;
            while p.kind() == "comment" {
                match p.prev_named_sibling() {
                    Some(q) => p = q,
                    None => return first,
                }
            }
            if declared_function(text, p) == Some(name) {
                first = p;
                continue;
            }
            return first;
        }
        if declared_function(text, prev) == Some(name) {
            first = prev;
        } else {
            break;
        }
    }
    first
}

/// Where a declaration placed before `stmt` starts: above the comments directly over it (its
/// doc comment stays its own).
fn above_comments(text: &str, stmt: Node) -> usize {
    let mut at = stmt;
    while let Some(prev) = at.prev_sibling()
        && prev.kind() == "comment"
        && text[prev.end_byte()..at.start_byte()].matches('\n').count() <= 1
        && text[prev.end_byte()..at.start_byte()].trim().is_empty()
        // A comment that ends a line of code belongs to that code.
        && line_start_before(text, prev.start_byte())
    {
        at = prev;
    }
    at.start_byte()
}

fn line_start_before(text: &str, at: usize) -> bool {
    text[..at]
        .rsplit('\n')
        .next()
        .is_some_and(|head| head.trim().is_empty())
}

/// A type parameter the alias takes over.
struct Param<'a> {
    name: String,
    constraint: Option<Node<'a>>,
}

/// The type parameters declared between `ty` and `stmt` that `ty` uses (and those their
/// constraints use), in the order they are declared; the refusals for names bound there that
/// an alias cannot take (`infer`, mapped types, parameters in `typeof`).
fn type_parameters<'a>(
    text: &str,
    ty: Node<'a>,
    stmt: Node<'a>,
) -> Result<Vec<Param<'a>>, FkError> {
    let what = quote(text, ty);
    // The names the type uses that it does not declare itself.
    let mut inner = Vec::new();
    collect(ty, &mut |n| {
        if n.kind() == "type_parameter"
            && let Some(nm) = n.child_by_field_name("name")
        {
            inner.push(text[nm.byte_range()].to_string());
        }
        if n.kind() == "infer_type"
            && let Some(nm) = n.named_child(0)
        {
            inner.push(text[nm.byte_range()].to_string());
        }
    });
    let mut types: Vec<&str> = vec![];
    let mut values: Vec<(&str, Node)> = vec![];
    collect(ty, &mut |n| {
        let t = &text[n.byte_range()];
        if n.kind() == "type_identifier" && !inner.iter().any(|i| i == t) {
            types.push(t);
        }
        if n.kind() == "type_query"
            && let Some(id) = find(n, &|x| x.kind() == "identifier")
        {
            values.push((&text[id.byte_range()], id));
        }
    });
    // Declarations on the way up, innermost first.
    let mut declared: Vec<Param<'a>> = vec![];
    let mut child = ty;
    let mut x = ty.parent();
    while let Some(a) = x {
        let mut c = a.walk();
        for ch in a.named_children(&mut c) {
            if ch.kind() == "type_parameters" && ch.id() != child.id() {
                let mut c2 = ch.walk();
                let ps: Vec<Node> = ch.named_children(&mut c2).collect();
                for p in ps.into_iter().rev() {
                    if let Some(nm) = p.child_by_field_name("name") {
                        declared.push(Param {
                            name: text[nm.byte_range()].to_string(),
                            constraint: p.child_by_field_name("constraint"),
                        });
                    }
                }
            }
        }
        if a.kind() == "conditional_type" && field_is(a, "consequence", child) {
            let mut bound = vec![];
            if let Some(right) = a.child_by_field_name("right") {
                collect(right, &mut |n| {
                    if n.kind() == "infer_type"
                        && let Some(nm) = n.named_child(0)
                    {
                        bound.push((text[nm.byte_range()].to_string(), nm));
                    }
                });
            }
            if let Some((b, at)) = bound.iter().find(|(b, _)| types.contains(&b.as_str())) {
                return Err(invalid(
                    format!(
                        "`{what}` uses `{b}`, which `infer {b}` binds around it (line {})",
                        line(text, at.start_byte())
                    ),
                    "select the whole conditional type",
                ));
            }
        }
        if a.kind() == "mapped_type_clause" || (a.kind() == "index_signature" && a.id() != ty.id())
        {
            let clause = if a.kind() == "mapped_type_clause" {
                Some(a)
            } else {
                a.named_children(&mut a.walk())
                    .find(|n| n.kind() == "mapped_type_clause")
            };
            if let Some(nm) = clause.and_then(|c| c.child_by_field_name("name"))
                && types.contains(&&text[nm.byte_range()])
            {
                return Err(invalid(
                    format!(
                        "`{what}` uses `{}`, which the mapped type around it binds (line {})",
                        &text[nm.byte_range()],
                        line(text, nm.start_byte())
                    ),
                    "select the whole mapped type",
                ));
            }
        }
        if let Some(params) = a.child_by_field_name("parameters") {
            for (v, at) in &values {
                if let Some(p) = find(params, &|n| {
                    n.kind() == "identifier" && &text[n.byte_range()] == *v
                }) {
                    return Err(invalid(
                        format!(
                            "`{what}` uses `typeof {v}` (line {}), the parameter at line {}, which is not in scope where the type would be declared",
                            line(text, at.start_byte()),
                            line(text, p.start_byte())
                        ),
                        "select a type that does not use a parameter",
                    ));
                }
            }
        }
        if a.id() == stmt.id() {
            break;
        }
        child = a;
        x = a.parent();
    }
    // Innermost declarations shadow outer ones of the same name.
    let mut seen: Vec<&str> = vec![];
    let mut kept: Vec<usize> = vec![];
    let mut wanted: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    loop {
        let before = kept.len();
        for (i, p) in declared.iter().enumerate() {
            if seen.contains(&p.name.as_str()) || !wanted.contains(&p.name) {
                continue;
            }
            seen.push(&p.name);
            kept.push(i);
            if let Some(c) = p.constraint {
                collect(c, &mut |n| {
                    if n.kind() == "type_identifier" {
                        wanted.push(text[n.byte_range()].to_string());
                    }
                });
            }
        }
        if kept.len() == before {
            break;
        }
    }
    // Declaration order: outer declarations first, each list in its order.
    kept.sort_by(|a, b| b.cmp(a));
    let mut out = vec![];
    for i in kept {
        let p = &declared[i];
        out.push(Param {
            name: p.name.clone(),
            constraint: p.constraint,
        });
    }
    Ok(out)
}

fn collect<'a>(n: Node<'a>, f: &mut dyn FnMut(Node<'a>)) {
    f(n);
    let mut c = n.walk();
    let children: Vec<Node> = n.named_children(&mut c).collect();
    for ch in children {
        collect(ch, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, what: &str, kind: TypeKind) -> Result<String, FkError> {
        let s = src.find(what).expect("selection in source");
        extract_type(Lang::TypeScript, src, s..s + what.len(), "Extracted", kind)
            .map(|x| x.apply(src).unwrap())
    }

    fn alias(src: &str, what: &str) -> Result<String, FkError> {
        run(src, what, TypeKind::Alias)
    }

    fn refused(src: &str, what: &str, needle: &str) {
        let err = alias(src, what).expect_err("refused");
        assert!(
            err.message.contains(needle),
            "{needle:?} not in {}",
            err.message
        );
    }

    #[test]
    fn an_annotation_becomes_an_alias_before_its_statement() {
        assert_eq!(
            alias(
                "function f(x: string | number) {\n  return x;\n}\n",
                "string | number"
            )
            .unwrap(),
            "type Extracted = string | number;\nfunction f(x: Extracted) {\n  return x;\n}\n"
        );
    }

    #[test]
    fn inside_a_function_it_goes_before_the_inner_statement() {
        assert_eq!(
            alias(
                "function f() {\n  const m: Map<string, number> = new Map();\n}\n",
                "Map<string, number>"
            )
            .unwrap(),
            "function f() {\n  type Extracted = Map<string, number>;\n  const m: Extracted = new Map();\n}\n"
        );
    }

    #[test]
    fn an_exported_user_exports_it_and_its_doc_comment_stays_its_own() {
        assert_eq!(
            alias(
                "/** Doc. */\nexport function f(x: { a: 1 }) {}\n",
                "{ a: 1 }"
            )
            .unwrap(),
            "export type Extracted = { a: 1 };\n/** Doc. */\nexport function f(x: Extracted) {}\n"
        );
    }

    #[test]
    fn an_object_type_becomes_an_interface_when_asked() {
        assert_eq!(
            run(
                "let p: { x: number; y: number } = { x: 1, y: 2 };\n",
                "{ x: number; y: number }",
                TypeKind::Interface
            )
            .unwrap(),
            "interface Extracted { x: number; y: number }\nlet p: Extracted = { x: 1, y: 2 };\n"
        );
        let err = run("let p: string[] = [];\n", "string[]", TypeKind::Interface).unwrap_err();
        assert!(
            err.message.contains("not an object type"),
            "{}",
            err.message
        );
    }

    #[test]
    fn type_parameters_it_uses_become_its_own() {
        assert_eq!(
            alias("class Box<T, K extends keyof T> {\n  get(k: K): T[K] | undefined { return undefined; }\n}\n", "T[K] | undefined")
                .unwrap(),
            "type Extracted<T, K extends keyof T> = T[K] | undefined;\nclass Box<T, K extends keyof T> {\n  get(k: K): Extracted<T, K> { return undefined; }\n}\n"
        );
        // A type parameter the type declares itself is not taken over.
        assert_eq!(
            alias("function f<T>(g: <T>(x: T) => T) {}\n", "<T>(x: T) => T").unwrap(),
            "type Extracted = <T>(x: T) => T;\nfunction f<T>(g: Extracted) {}\n"
        );
    }

    #[test]
    fn overloads_stay_together() {
        assert_eq!(
            alias(
                "export function f(x: string): string;\nexport function f(x: number): number;\nexport function f(x: any) { return x; }\n",
                "number): number"
                    .split(')')
                    .next()
                    .unwrap()
            )
            .unwrap(),
            "export type Extracted = number;\nexport function f(x: string): string;\nexport function f(x: Extracted): number;\nexport function f(x: any) { return x; }\n"
        );
    }

    #[test]
    fn refusals_name_what_forbids_them() {
        refused(
            "function f(a: string, b: typeof a) {}\n",
            "typeof a",
            "the parameter at line 1",
        );
        refused("class C { m(): this { return this; } }\n", "this", "`this`");
        refused(
            "type U<T> = T extends Array<infer E> ? E[] : never;\n",
            "E[]",
            "`infer E` binds",
        );
        refused(
            "type M<T> = { [K in keyof T]: K[] };\n",
            "K[]",
            "the mapped type",
        );
        refused(
            "function f(x: string) { return x; }\n",
            "x: string",
            "not a type",
        );
        refused(
            "function isS(x: unknown): x is string { return true; }\n",
            "x is string",
            "not a type",
        );
        refused(
            "interface Extracted {}\nlet a: number = 1;\n",
            "number",
            "already a name",
        );
        refused(
            "declare const s: unique symbol;\n",
            "unique symbol",
            "`unique symbol`",
        );
        refused(
            "let a: Map<string, number>;\n",
            "string, number",
            "not a type",
        );
        let err =
            extract_type(Lang::JavaScript, "let a = 1;\n", 4..5, "T", TypeKind::Alias).unwrap_err();
        assert!(err.message.contains("not TypeScript"));
        let err = alias("let a: = 1;\n", "=").unwrap_err();
        assert!(err.message.contains("does not parse"), "{}", err.message);
    }
}
