//! `convert_to_arrow` and its inverse `convert_to_function` for TS/TSX/JS without a language
//! server. To an arrow: a function expression becomes an arrow function, a function
//! declaration `const f = (...) => {...};`. To a function: an arrow function that is the whole
//! value of a `const` becomes a function declaration, any other a function expression; an
//! expression body becomes `{ return ...; }`.
//!
//! To an arrow is refused, naming what forbids it and where:
//! `this`, `arguments`, `new.target` or `super` in
//! the function (not in functions nested in it, which have their own; arrows inside share
//! them, so they count), a generator, overload signatures, a default export; for a
//! declaration, a use before it in the file (a declaration is hoisted, a `const` is not); a
//! use as a constructor (`new f`) or of `f.prototype` (an arrow has neither); a function
//! expression that calls itself by its own name. To a function is refused where the arrow
//! uses `this`, `arguments`, `super` or `new.target` (an arrow takes them from the code around
//! it, a function has its own) and where the `const` has a type annotation a declaration
//! cannot carry.

use crate::Lang;
use crate::steps::{field_is, invalid, line, to_splices};
use crate::ts::extract::{bound_from, parse_clean};
use crate::ts::{occurrences, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::{Node, Tree};

const FUNCTION_KINDS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "generator_function",
];

/// Kinds with their own `this`/`arguments`: a search for them stops there.
const OWN_THIS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "generator_function",
    "method_definition",
    "class_declaration",
    "class",
];

/// The first `this`, `arguments`, `super` or `new.target` that belongs to the function.
fn own_binding<'a>(text: &str, n: Node<'a>, top: bool) -> Option<(Node<'a>, String)> {
    if !top && OWN_THIS.contains(&n.kind()) {
        return None;
    }
    match n.kind() {
        "this" | "super" => return Some((n, format!("`{}`", n.kind()))),
        "meta_property" => return Some((n, format!("`{}`", &text[n.byte_range()]))),
        "identifier" if &text[n.byte_range()] == "arguments" => {
            return Some((n, "`arguments`".into()));
        }
        _ => {}
    }
    let mut c = n.walk();
    let children: Vec<Node> = n.named_children(&mut c).collect();
    children
        .into_iter()
        .find_map(|ch| own_binding(text, ch, false))
}

fn function_at<'a>(tree: &'a Tree, text: &str, at: usize) -> Result<Node<'a>, FkError> {
    let mut n = tree.root_node().descendant_for_byte_range(at, at);
    while let Some(x) = n {
        if x.is_named() && FUNCTION_KINDS.contains(&x.kind()) {
            return Ok(x);
        }
        if matches!(x.kind(), "arrow_function" | "method_definition") {
            let p = crate::position(text, at);
            return Err(invalid(
                format!(
                    "the function at line {}, column {} is {}, not a function expression or declaration",
                    p.line,
                    p.column,
                    if x.kind() == "arrow_function" {
                        "already an arrow function"
                    } else {
                        "a method"
                    }
                ),
                "point at a `function` declaration or expression",
            ));
        }
        n = x.parent();
    }
    let p = crate::position(text, at);
    Err(FkError::new(
        ErrorCode::NotFound,
        format!("no function at line {}, column {}", p.line, p.column),
    )
    .with_hint("point the selection's start at a `function` declaration or expression"))
}

/// How uses of the function's name forbid the conversion.
fn check_uses(
    text: &str,
    tree: &Tree,
    name: Node,
    decl_start: Option<usize>,
) -> Result<(), FkError> {
    let nm = &text[name.byte_range()];
    let occ = occurrences(tree, text, nm);
    let scopes = scopes_for(tree, text, &occ);
    let Some(scope) = scopes.declaring_scope(name) else {
        return Ok(());
    };
    for o in &occ {
        if o.id() == name.id() || bound_from(&scopes, *o, nm).map(|s| s.id()) != Some(scope.id()) {
            continue;
        }
        let l = line(text, o.start_byte());
        if let Some(start) = decl_start
            && o.start_byte() < start
        {
            return Err(invalid(
                format!(
                    "`{nm}` is used at line {l}, before its declaration: a function declaration is hoisted, a `const` arrow is not"
                ),
                "move the declaration above its first use first",
            ));
        }
        let p = o.parent().expect("a use has a parent");
        if p.kind() == "new_expression" && field_is(p, "constructor", *o) {
            return Err(invalid(
                format!(
                    "`{nm}` is used as a constructor (`new {nm}`) at line {l}: an arrow function cannot be"
                ),
                "keep it a function, or make it a class",
            ));
        }
        if p.kind() == "member_expression"
            && field_is(p, "object", *o)
            && p.child_by_field_name("property")
                .is_some_and(|x| &text[x.byte_range()] == "prototype")
        {
            return Err(invalid(
                format!("`{nm}.prototype` is used at line {l}: an arrow function has no prototype"),
                "keep it a function",
            ));
        }
    }
    Ok(())
}

/// Converts the function at byte `at` (its `function` keyword, name or anywhere in it, the
/// innermost one) to an arrow function.
pub fn convert_to_arrow(lang: Lang, text: &str, at: usize) -> Result<Splices, FkError> {
    let tree = parse_clean(lang, text)?;
    let func = function_at(&tree, text, at)?;
    let l = line(text, func.start_byte());
    let name = func.child_by_field_name("name");
    let label = name.map_or("the function".to_string(), |n| {
        format!("`{}`", &text[n.byte_range()])
    });
    {
        let mut c = func.walk();
        if func.kind().starts_with("generator") || func.children(&mut c).any(|x| x.kind() == "*") {
            return Err(invalid(
                format!("{label} (line {l}) is a generator: there are no generator arrows"),
                "keep it a function",
            ));
        }
    }
    if let Some((n, what)) = own_binding(text, func, true) {
        return Err(invalid(
            format!(
                "{label} (line {l}) uses {what} at line {}: an arrow function takes it from the code around it instead",
                line(text, n.start_byte())
            ),
            "keep it a function",
        ));
    }
    let is_async = {
        let mut c = func.walk();
        func.children(&mut c).any(|x| x.kind() == "async")
    };
    let type_params = func
        .child_by_field_name("type_parameters")
        .map(|t| &text[t.byte_range()]);
    let params = func
        .child_by_field_name("parameters")
        .map_or("()", |p| &text[p.byte_range()]);
    let ret = func
        .child_by_field_name("return_type")
        .map_or("", |r| &text[r.byte_range()]);
    let body = func
        .child_by_field_name("body")
        .map(|b| &text[b.byte_range()])
        .ok_or_else(|| {
            invalid(
                format!("{label} (line {l}) has no body"),
                "convert a function with a body",
            )
        })?;
    let type_params = match type_params {
        // In TSX `<T>(` would open an element: `<T,>(` does not.
        Some(t) if lang == Lang::Tsx && !t.contains(',') && !t.contains("extends") => {
            format!("{},>", &t[..t.len() - 1])
        }
        Some(t) => t.to_string(),
        None => String::new(),
    };
    let asy = if is_async { "async " } else { "" };
    let arrow = format!("{asy}{type_params}{params}{ret} => {body}");
    let splice = if func.kind() == "function_declaration" {
        let name = name.expect("a declaration has a name");
        let nm = &text[name.byte_range()];
        let outer = func.parent().filter(|p| p.kind() == "export_statement");
        if let Some(e) = outer {
            let mut c = e.walk();
            if e.children(&mut c).any(|x| x.kind() == "default") {
                return Err(invalid(
                    format!(
                        "`{nm}` (line {l}) is a default export: `export default` takes an expression, and the name would be lost"
                    ),
                    "keep it a function",
                ));
            }
        }
        let stmt = outer.unwrap_or(func);
        // Overload signatures (`function f(a: string): void;`) cannot go with a `const`.
        let mut prev = stmt.prev_named_sibling();
        while let Some(p) = prev {
            let sig = if p.kind() == "export_statement" {
                p.named_child(0)
            } else {
                Some(p)
            };
            if sig.is_some_and(|s| {
                s.kind() == "function_signature"
                    && s.child_by_field_name("name")
                        .is_some_and(|x| &text[x.byte_range()] == nm)
            }) {
                return Err(invalid(
                    format!(
                        "`{nm}` has overload signatures (line {}): a `const` cannot be overloaded that way",
                        line(text, p.start_byte())
                    ),
                    "keep it a function",
                ));
            }
            if p.kind() != "comment" {
                break;
            }
            prev = p.prev_named_sibling();
        }
        check_uses(text, &tree, name, Some(stmt.start_byte()))?;
        let semi = if crate::style::uses_semicolons(tree.root_node(), text) {
            ";"
        } else {
            ""
        };
        Splice::new(
            func.start_byte(),
            func.end_byte(),
            format!("const {nm} = {arrow}{semi}"),
        )
    } else {
        if let Some(n) = name {
            // `function self() { ... self() ... }`: the name only exists inside.
            let nm = &text[n.byte_range()];
            let occ = occurrences(&tree, text, nm);
            let scopes = scopes_for(&tree, text, &occ);
            if let Some(o) = occ.iter().find(|o| {
                o.id() != n.id()
                    && bound_from(&scopes, **o, nm).is_some_and(|s| s.id() == func.id())
            }) {
                return Err(invalid(
                    format!(
                        "{label} (line {l}) refers to itself by its own name at line {}: an arrow function has no such name",
                        line(text, o.start_byte())
                    ),
                    "keep it a function",
                ));
            }
        }
        // The variable it is assigned to, used as a constructor or for its prototype.
        if let Some(p) = func.parent()
            && p.kind() == "variable_declarator"
            && let Some(v) = p.child_by_field_name("name")
            && v.kind() == "identifier"
        {
            check_uses(text, &tree, v, None)?;
        }
        let open = func.parent().is_some_and(|p| match p.kind() {
            "arguments"
            | "array"
            | "parenthesized_expression"
            | "return_statement"
            | "spread_element"
            | "template_substitution" => true,
            "variable_declarator" | "pair" | "public_field_definition" | "field_definition" => {
                field_is(p, "value", func)
            }
            "assignment_expression" => field_is(p, "right", func),
            _ => false,
        });
        if open {
            Splice::new(func.start_byte(), func.end_byte(), arrow)
        } else {
            Splice::new(func.start_byte(), func.end_byte(), format!("({arrow})"))
        }
    };
    to_splices(text, vec![splice])
}

/// The arrow function at byte `at` (anywhere in it, the innermost one).
fn arrow_at<'a>(tree: &'a Tree, text: &str, at: usize) -> Result<Node<'a>, FkError> {
    let mut n = tree.root_node().descendant_for_byte_range(at, at);
    while let Some(x) = n {
        if x.kind() == "arrow_function" {
            return Ok(x);
        }
        n = x.parent();
    }
    let p = crate::position(text, at);
    Err(FkError::new(
        ErrorCode::NotFound,
        format!("no arrow function at line {}, column {}", p.line, p.column),
    )
    .with_hint("point the selection's start at an arrow function (its parameters or `=>`)"))
}

/// Converts the arrow function at byte `at` to a function: a declaration when it is the whole
/// value of a `const` declaring only it (`const f = () => 1;` becomes `function f() { return
/// 1; }`), otherwise a function expression.
pub fn convert_to_function(lang: Lang, text: &str, at: usize) -> Result<Splices, FkError> {
    let tree = parse_clean(lang, text)?;
    let arrow = arrow_at(&tree, text, at)?;
    let l = line(text, arrow.start_byte());
    // `this` and the rest in the arrow, or in arrows inside it, are the surrounding code's;
    // a function would have its own.
    if let Some((n, what)) = own_binding(text, arrow, true) {
        return Err(invalid(
            format!(
                "the arrow function (line {l}) uses {what} at line {}: it is the code around it's, and a function would have its own",
                line(text, n.start_byte())
            ),
            "keep it an arrow function",
        ));
    }
    let is_async = {
        let mut c = arrow.walk();
        arrow.children(&mut c).any(|x| x.kind() == "async")
    };
    let type_params = arrow
        .child_by_field_name("type_parameters")
        .map_or("", |t| &text[t.byte_range()]);
    let params = match (
        arrow.child_by_field_name("parameters"),
        arrow.child_by_field_name("parameter"),
    ) {
        (Some(p), _) => text[p.byte_range()].to_string(),
        (None, Some(p)) => format!("({})", &text[p.byte_range()]),
        (None, None) => "()".to_string(),
    };
    let ret = arrow
        .child_by_field_name("return_type")
        .map_or("", |r| &text[r.byte_range()]);
    let body = arrow
        .child_by_field_name("body")
        .expect("an arrow function has a body");
    let body = if body.kind() == "statement_block" {
        text[body.byte_range()].to_string()
    } else {
        format!("{{ return {}; }}", &text[body.byte_range()])
    };
    let asy = if is_async { "async " } else { "" };
    // The `const` it is the whole value of, declaring only it.
    let declarator = arrow
        .parent()
        .filter(|p| p.kind() == "variable_declarator" && field_is(*p, "value", arrow));
    let declaration = declarator.and_then(|d| d.parent()).filter(|decl| {
        decl.kind() == "lexical_declaration"
            && decl.child(0).is_some_and(|k| k.kind() == "const")
            && decl.named_child_count() == 1
    });
    if let (Some(d), Some(decl)) = (declarator, declaration) {
        let name = d
            .child_by_field_name("name")
            .expect("a declarator has a name");
        if name.kind() == "identifier" {
            let nm = &text[name.byte_range()];
            if let Some(t) = d.child_by_field_name("type") {
                return Err(invalid(
                    format!(
                        "`{nm}` (line {l}) is declared with the type `{}`, which a function declaration cannot carry",
                        text[t.byte_range()].trim_start_matches(':').trim()
                    ),
                    "type its parameters and result instead, then convert; or keep it an arrow function",
                ));
            }
            // The declaration's own `;` goes: a function declaration ends with its body.
            let function = format!("{asy}function {nm}{type_params}{params}{ret} {body}");
            return to_splices(
                text,
                vec![Splice::new(decl.start_byte(), decl.end_byte(), function)],
            );
        }
    }
    let function = format!("{asy}function {type_params}{params}{ret} {body}");
    // A function expression where a statement starts would be read as a declaration.
    let statement_start = arrow
        .parent()
        .is_some_and(|p| p.kind() == "expression_statement");
    let function = if statement_start {
        format!("({function})")
    } else {
        function
    };
    to_splices(
        text,
        vec![Splice::new(arrow.start_byte(), arrow.end_byte(), function)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(lang: Lang, src: &str, at: &str) -> Result<String, FkError> {
        convert_to_arrow(lang, src, src.find(at).expect("anchor")).map(|s| s.apply(src).unwrap())
    }

    #[test]
    fn a_declaration_becomes_a_const_arrow() {
        let src = "export async function load<T>(url: string): Promise<T> {\n  return (await fetch(url)).json();\n}\nload('x');\n";
        assert_eq!(
            conv(Lang::TypeScript, src, "load").unwrap(),
            "export const load = async <T>(url: string): Promise<T> => {\n  return (await fetch(url)).json();\n};\nload('x');\n"
        );
        let src = "function id<T>(x: T) { return x; }\n";
        assert_eq!(
            conv(Lang::Tsx, src, "id").unwrap(),
            "const id = <T,>(x: T) => { return x; };\n"
        );
    }

    #[test]
    fn an_expression_becomes_an_arrow() {
        let src = "items.map(function (x) { return x * 2; });\nconst f = function named(a) { return a; };\n";
        assert_eq!(
            conv(Lang::JavaScript, src, "function (x)").unwrap(),
            "items.map((x) => { return x * 2; });\nconst f = function named(a) { return a; };\n"
        );
        assert_eq!(
            conv(Lang::JavaScript, src, "named").unwrap(),
            "items.map(function (x) { return x * 2; });\nconst f = (a) => { return a; };\n"
        );
        // A callee needs parentheses.
        let src = "const g = function () { return 1; }.call(null);\n";
        assert_eq!(
            conv(Lang::JavaScript, src, "function").unwrap(),
            "const g = (() => { return 1; }).call(null);\n"
        );
    }

    #[test]
    fn refuses_what_an_arrow_cannot_do() {
        for (src, at, says) in [
            ("function f() { return this.x; }\n", "f", "`this`"),
            (
                "function f() { return arguments.length; }\n",
                "f",
                "`arguments`",
            ),
            (
                "function F() { if (!new.target) throw 1; }\n",
                "F",
                "`new.target`",
            ),
            (
                "const o = { m: function () { return () => this; } };\n",
                "function",
                "`this`",
            ),
            ("function* g() { yield 1; }\n", "g", "generator"),
            (
                "f();\nfunction f() { return 1; }\n",
                "function",
                "before its declaration",
            ),
            ("function P() {}\nconst p = new P();\n", "P", "constructor"),
            ("function P() {}\nP.prototype.x = 1;\n", "P", "prototype"),
            (
                "const f = function fact(n) { return n ? n * fact(n - 1) : 1; };\n",
                "function",
                "its own name",
            ),
            (
                "export default function f() { return 1; }\n",
                "function",
                "default export",
            ),
            (
                "function f(a: string): void;\nfunction f(a: any) {}\n",
                "function f(a: any)",
                "overload",
            ),
            ("const o = { m() { return 1; } };\n", "m()", "a method"),
        ] {
            let e = conv(Lang::TypeScript, src, at).unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
        // `this` in a nested function is that function's own: fine.
        let src = "function f() { return function () { return this; }; }\n";
        assert_eq!(
            conv(Lang::JavaScript, src, "f").unwrap(),
            "const f = () => { return function () { return this; }; };\n"
        );
    }

    fn to_function(lang: Lang, src: &str, at: &str) -> Result<String, FkError> {
        convert_to_function(lang, src, src.find(at).expect("anchor")).map(|s| s.apply(src).unwrap())
    }

    #[test]
    fn a_const_arrow_becomes_a_declaration_and_others_expressions() {
        let src = "export const load = async <T,>(url: string): Promise<T> => {\n  return (await fetch(url)).json();\n};\nload('x');\n";
        assert_eq!(
            to_function(Lang::TypeScript, src, "=>").unwrap(),
            "export async function load<T,>(url: string): Promise<T> {\n  return (await fetch(url)).json();\n}\nload('x');\n"
        );
        let src = "const double = x => x * 2;\nconst pair = (a, b) => ({ a, b });\n";
        assert_eq!(
            to_function(Lang::JavaScript, src, "x =>").unwrap(),
            "function double(x) { return x * 2; }\nconst pair = (a, b) => ({ a, b });\n"
        );
        assert_eq!(
            to_function(Lang::JavaScript, src, "(a, b)").unwrap(),
            "const double = x => x * 2;\nfunction pair(a, b) { return ({ a, b }); }\n"
        );
        // In an expression, and the innermost arrow around the selection.
        let src = "items.map((x) => x + 1).forEach(y => log(() => y));\n";
        assert_eq!(
            to_function(Lang::JavaScript, src, "(x)").unwrap(),
            "items.map(function (x) { return x + 1; }).forEach(y => log(() => y));\n"
        );
        assert_eq!(
            to_function(Lang::JavaScript, src, "() => y").unwrap(),
            "items.map((x) => x + 1).forEach(y => log(function () { return y; }));\n"
        );
        // `let`, or several declarators: an expression, the variable kept.
        let src = "let f = () => 1, g = 2;\n";
        assert_eq!(
            to_function(Lang::JavaScript, src, "()").unwrap(),
            "let f = function () { return 1; }, g = 2;\n"
        );
    }

    #[test]
    fn refuses_what_a_function_would_change() {
        for (src, at, says) in [
            ("class A { f = () => this.x; }\n", "()", "`this`"),
            (
                "function g() { return () => arguments[0]; }\n",
                "() =>",
                "`arguments`",
            ),
            ("const h: Handler = (e) => e;\n", "(e)", "`Handler`"),
            ("const k = 1;\n", "k", "no arrow function"),
        ] {
            let e = to_function(Lang::TypeScript, src, at).unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
    }
}
