//! `extract_variable` and `extract_constant` for Python without a language server:
//! a selected expression becomes `name = <expr>` on the line before the statement that
//! contains it (`extract_variable`; the name becomes local to the enclosing function, so it
//! must be unused in all of it), or a module-level `NAME = <expr>` (`extract_constant`, when
//! the expression uses nothing local, has no effects, reads no name the module binds more
//! than once and makes no new object in a function or loop) before the module-level
//! statement that contains it, after the module-level names it uses.
//!
//! Python has no constants: an `extract_constant` that one module-level name cannot mean (it
//! reads a local, or runs something) is a local assignment where the expression runs, exactly
//! `extract_variable`'s (its refusals too); [`Extracted::module_level`] says which one it was,
//! and the reply names it ("in enclosing scope", as tsserver words the same choice).
//!
//! Refused, naming the construct and its line: a selection that is not exactly one
//! expression; the right of `and`/`or`, a branch of `x if c else y`, an `elif` or loop
//! condition, a lambda's body, a default parameter value, a comprehension's element or
//! condition (only its first iterable runs once), a class body (it would add a class
//! attribute), a place after an earlier part of the statement that has effects, a name that
//! clashes.

use super::scopes::Analysis;
use crate::steps::{Extracted, field_is, invalid, line, quote, to_splices};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::Splice;
use std::ops::Range;
use tree_sitter::{Node, Tree};

const EXPRESSIONS: &[&str] = &[
    "identifier",
    "integer",
    "float",
    "string",
    "concatenated_string",
    "true",
    "false",
    "none",
    "call",
    "attribute",
    "subscript",
    "binary_operator",
    "unary_operator",
    "not_operator",
    "boolean_operator",
    "comparison_operator",
    "parenthesized_expression",
    "list",
    "tuple",
    "dictionary",
    "set",
    "list_comprehension",
    "dictionary_comprehension",
    "set_comprehension",
    "generator_expression",
    "lambda",
    "conditional_expression",
    "await",
    "ellipsis",
];

pub(crate) const SCOPES: &[&str] = &[
    "function_definition",
    "lambda",
    "class_definition",
    "list_comprehension",
    "dictionary_comprehension",
    "set_comprehension",
    "generator_expression",
];

pub(crate) fn parse(text: &str) -> Result<Tree, FkError> {
    let tree = crate::bounds::parse(crate::Lang::Python, text, None, false)?;
    if tree.root_node().has_error() {
        let mut at = tree.root_node();
        while let Some(ch) = {
            let mut c = at.walk();
            at.children(&mut c).find(|n| n.has_error())
        } {
            at = ch;
            if ch.is_error() || ch.is_missing() {
                break;
            }
        }
        let p = crate::position(text, at.start_byte());
        return Err(FkError::new(
            ErrorCode::ParseError,
            format!(
                "the file does not parse: a syntax error at line {}, column {}",
                p.line, p.column
            ),
        )
        .with_hint("fix the syntax error first; refactors work on files that parse"));
    }
    Ok(tree)
}

pub(crate) fn effect_at(n: Node) -> Option<Node> {
    match n.kind() {
        "call" | "await" | "named_expression" | "yield" => return Some(n),
        "lambda" => return None,
        _ => {}
    }
    let mut c = n.walk();
    let ch: Vec<Node> = n.named_children(&mut c).collect();
    ch.into_iter().find_map(effect_at)
}

pub(crate) fn fresh_at(n: Node) -> Option<Node> {
    if matches!(
        n.kind(),
        "list"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "lambda"
    ) {
        return Some(n);
    }
    let mut c = n.walk();
    let ch: Vec<Node> = n.named_children(&mut c).collect();
    ch.into_iter().find_map(fresh_at)
}

/// Identifiers `n` reads (not attribute names, not keyword argument names).
pub(crate) fn reads<'a>(n: Node<'a>, out: &mut Vec<Node<'a>>) {
    if n.kind() == "identifier" {
        let p = n.parent();
        let skip = p.is_some_and(|p| {
            (p.kind() == "attribute" && field_is(p, "attribute", n))
                || (p.kind() == "keyword_argument" && field_is(p, "name", n))
        });
        if !skip {
            out.push(n);
        }
        return;
    }
    let mut c = n.walk();
    let ch: Vec<Node> = n.named_children(&mut c).collect();
    for x in ch {
        reads(x, out);
    }
}

/// Where `name` is bound in the scope `scope` opens (a def, lambda, class, comprehension or
/// the module), by the scope model of renames ([`Analysis`]: `global` and `nonlocal`
/// followed), in the text's order, as syntax nodes.
pub(super) fn bindings_in<'a>(analysis: &Analysis, scope: Node<'a>, name: &str) -> Vec<Node<'a>> {
    match analysis.scope_opened_by(scope) {
        Some(s) => binding_nodes(analysis, scope, s, name, None),
        None => Vec::new(),
    }
}

fn bound_in(analysis: &Analysis, scope: Node, name: &str) -> bool {
    !bindings_in(analysis, scope, name).is_empty()
}

/// Whether `statement` binds `name` in the scope it is in (a `def` binds its name there, not
/// what its body binds).
fn binds_in_statement(analysis: &Analysis, statement: Node, name: &str) -> bool {
    let mut p = statement.parent();
    while let Some(x) = p {
        if let Some(s) = analysis.scope_opened_by(x) {
            let within = statement.byte_range();
            return !binding_nodes(analysis, x, s, name, Some(within)).is_empty();
        }
        p = x.parent();
    }
    false
}

/// The nodes of the bindings of `name` in scope `s` (opened by `scope`), those inside `within`
/// only when given.
fn binding_nodes<'a>(
    analysis: &Analysis,
    scope: Node<'a>,
    s: usize,
    name: &str,
    within: Option<Range<usize>>,
) -> Vec<Node<'a>> {
    let mut root = scope;
    while let Some(p) = root.parent() {
        root = p;
    }
    analysis
        .bindings(s, name)
        .into_iter()
        .filter(|o| {
            within
                .as_ref()
                .is_none_or(|r| r.start <= o.start && o.end <= r.end)
        })
        .filter_map(|o| root.named_descendant_for_byte_range(o.start, o.end))
        .collect()
}

/// The enclosing function (or module) scope of a node.
fn function_scope<'a>(n: Node<'a>) -> Node<'a> {
    let mut p = n.parent();
    while let Some(x) = p {
        if matches!(x.kind(), "function_definition" | "module") {
            return x;
        }
        p = x.parent();
    }
    n
}

pub(crate) fn expression_at<'a>(
    tree: &'a Tree,
    text: &str,
    range: Range<usize>,
) -> Result<Node<'a>, FkError> {
    if range.end > text.len()
        || !text.is_char_boundary(range.start)
        || !text.is_char_boundary(range.end)
    {
        return Err(invalid(
            format!(
                "the selection {}..{} is outside the text",
                range.start, range.end
            ),
            "select inside the file",
        ));
    }
    let sel = &text[range.clone()];
    let s = range.start + (sel.len() - sel.trim_start().len());
    let e = range.end - (sel.len() - sel.trim_end().len());
    if s >= e {
        return Err(invalid(
            "the selection is empty",
            "select the expression to extract",
        ));
    }
    let root = tree.root_node();
    let node = root.named_descendant_for_byte_range(s, e).unwrap_or(root);
    let p = crate::position(text, s);
    if node.start_byte() != s || node.end_byte() != e {
        let covers = if node.id() == root.id() {
            "several statements".to_string()
        } else {
            format!(
                "part of `{}` (a {} at line {})",
                quote(text, node),
                node.kind().replace('_', " "),
                line(text, node.start_byte())
            )
        };
        return Err(invalid(
            format!(
                "the selection at line {}, column {} is not one expression: it covers {covers}",
                p.line, p.column
            ),
            "select exactly one whole expression",
        ));
    }
    let mut node = node;
    while let Some(parent) = node.parent() {
        if parent.byte_range() == node.byte_range() && EXPRESSIONS.contains(&parent.kind()) {
            node = parent;
        } else {
            break;
        }
    }
    if !EXPRESSIONS.contains(&node.kind()) {
        return Err(invalid(
            format!(
                "the selection `{}` at line {} is a {}, not an expression",
                quote(text, node),
                p.line,
                node.kind().replace('_', " ")
            ),
            "select exactly one whole expression",
        ));
    }
    let parent = node.parent().expect("an expression has a parent");
    let what = quote(text, node);
    let target = match parent.kind() {
        "assignment" | "augmented_assignment" => field_is(parent, "left", node),
        "for_statement" | "for_in_clause" => field_is(parent, "left", node),
        "keyword_argument" => field_is(parent, "name", node),
        "named_expression" => field_is(parent, "name", node),
        "pattern_list" | "tuple_pattern" | "list_pattern" => true,
        "delete_statement" | "global_statement" | "nonlocal_statement" => true,
        "function_definition" | "class_definition" => field_is(parent, "name", node),
        "parameters" | "lambda_parameters" | "default_parameter" | "typed_parameter" => {
            !field_is(parent, "value", node)
        }
        "dotted_name" | "aliased_import" | "import_statement" | "import_from_statement" => true,
        _ => false,
    };
    if target {
        return Err(invalid(
            format!(
                "`{what}` at line {} is a name being bound or assigned, not a value to extract",
                p.line
            ),
            "select an expression whose value is used",
        ));
    }
    if parent.kind() == "call" && field_is(parent, "function", node) && node.kind() == "attribute" {
        return Err(invalid(
            format!("`{what}` at line {} is the method of a call", p.line),
            "select the whole call, or the object the method is called on",
        ));
    }
    // `__all__` lists the module's public names as literals, which tools (pyflakes, IDEs,
    // `from m import *` checkers) read without evaluating (found by benches/refactor_judged.py
    // in urllib3).
    let mut up = node.parent();
    while let Some(a) = up {
        if a.kind() == "assignment"
            && a.child_by_field_name("left")
                .is_some_and(|l| &text[l.byte_range()] == "__all__")
        {
            return Err(invalid(
                format!(
                    "`{what}` at line {} is in `__all__`, whose names tools read as literals",
                    p.line
                ),
                "leave `__all__` a list of literals",
            ));
        }
        up = a.parent();
    }
    Ok(node)
}

/// The extracted expression as the right side of `name = ...`: one spanning lines (adjacent
/// string literals, an operator at a line's end) continues its lines only inside brackets, so
/// it is parenthesized (found by benches/refactor_judged.py in urllib3).
fn right_side(text: &str, expr: Node) -> String {
    let t = &text[expr.byte_range()];
    let bracketed = matches!(
        expr.kind(),
        "parenthesized_expression"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "call"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "subscript"
    );
    if t.contains('\n') && !bracketed {
        format!("({t})")
    } else {
        t.to_string()
    }
}

/// Up to the statement that contains the expression, refusing where evaluating it first
/// changes what runs.
fn statement_of<'a>(text: &str, expr: Node<'a>, order: bool) -> Result<Node<'a>, FkError> {
    let what = quote(text, expr);
    let refuse = |construct: String, hint: &str| {
        invalid(
            format!(
                "`{what}` cannot be extracted: it is {construct}; evaluating it before the statement would change what runs"
            ),
            hint,
        )
    };
    let mut child = expr;
    loop {
        let parent = child.parent().expect("a statement is inside the module");
        let at = line(text, parent.start_byte());
        match parent.kind() {
            "boolean_operator" if field_is(parent, "right", child) => {
                let op = parent
                    .child_by_field_name("operator")
                    .map_or("", |o| &text[o.byte_range()]);
                return Err(refuse(
                    format!(
                        "the right of `{op}` (line {at}), which runs only depending on the left"
                    ),
                    "extract the whole condition, or select an expression outside it",
                ));
            }
            "conditional_expression"
                if parent.named_child(1).map(|c| c.id()) != Some(child.id()) =>
            {
                return Err(refuse(
                    format!("a branch of `x if c else y` (line {at})"),
                    "extract the whole conditional expression, or its condition",
                ));
            }
            "while_statement" if field_is(parent, "condition", child) => {
                return Err(refuse(
                    format!("a loop condition (line {at}), evaluated at every iteration"),
                    "select an expression outside the loop condition",
                ));
            }
            "elif_clause" => {
                return Err(refuse(
                    format!(
                        "in an `elif` (line {at}), evaluated only when the conditions above are false"
                    ),
                    "select an expression in the `elif`'s block",
                ));
            }
            "lambda" => {
                return Err(refuse(
                    format!("in a lambda (line {at}), evaluated at each call"),
                    "make it a `def` first, or select an expression outside it",
                ));
            }
            "default_parameter" | "typed_default_parameter" => {
                return Err(refuse(
                    format!(
                        "a default parameter value (line {at}), evaluated once when the `def` runs"
                    ),
                    "select an expression in the function's body",
                ));
            }
            "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression" => {
                // Only the first `for`'s iterable runs once, outside.
                let first_iter = {
                    let mut c = parent.walk();
                    parent
                        .named_children(&mut c)
                        .find(|x| x.kind() == "for_in_clause")
                        .and_then(|f| f.child_by_field_name("right"))
                };
                let is_first = first_iter.is_some_and(|r| {
                    r.start_byte() <= expr.start_byte() && expr.end_byte() <= r.end_byte()
                });
                if !is_first {
                    return Err(refuse(
                        format!("inside a comprehension (line {at}), evaluated for each element"),
                        "select the comprehension's first iterable, or an expression outside it",
                    ));
                }
            }
            "decorator" | "function_definition" | "class_definition" | "parameters" => {
                return Err(invalid(
                    format!(
                        "`{what}` is part of a declaration (line {at}), not of a statement of a block"
                    ),
                    "select an expression in a block",
                ));
            }
            _ => {}
        }
        if matches!(parent.kind(), "block" | "module") {
            if parent.kind() == "block"
                && parent
                    .parent()
                    .is_some_and(|p| p.kind() == "class_definition")
            {
                return Err(invalid(
                    format!(
                        "`{what}` is in a class body: a variable there would become a class attribute"
                    ),
                    "select an expression in a method",
                ));
            }
            return Ok(child);
        }
        if order {
            let mut c = parent.walk();
            for sib in parent.named_children(&mut c) {
                if sib.start_byte() >= child.start_byte() {
                    break;
                }
                // A conditional's condition (its middle) runs first; the first part does not.
                if parent.kind() == "conditional_expression" {
                    break;
                }
                if let Some(e) = effect_at(sib) {
                    return Err(invalid(
                        format!(
                            "`{what}` cannot be extracted: it would then run before `{}` (line {}), which runs first now and has effects",
                            quote(text, e),
                            line(text, e.start_byte())
                        ),
                        "extract the earlier expression first, or select another expression",
                    ));
                }
            }
        }
        child = parent;
    }
}

fn insertion(text: &str, at: usize, decl: String) -> Splice {
    let (ls, indent, first) = crate::style::line_head(text, at);
    if first {
        Splice::insert(ls, format!("{indent}{decl}\n"))
    } else {
        Splice::insert(at, format!("{decl}; "))
    }
}

fn replaced_range(n: Node) -> Range<usize> {
    if let Some(p) = n.parent()
        && p.kind() == "parenthesized_expression"
        && p.parent()
            .is_some_and(|g| EXPRESSIONS.contains(&g.kind()) || g.kind() == "argument_list")
    {
        return p.byte_range();
    }
    n.byte_range()
}

fn check_name(name: &str) -> Result<(), FkError> {
    crate::python::check_identifier(name)
}

fn all_nodes<'a>(n: Node<'a>, out: &mut Vec<Node<'a>>) {
    out.push(n);
    let mut c = n.walk();
    let ch: Vec<Node> = n.named_children(&mut c).collect();
    for x in ch {
        all_nodes(x, out);
    }
}

fn same_tokens(text: &str, a: Node, b: Node) -> bool {
    let norm = |n: Node| text[n.byte_range()].split_whitespace().collect::<String>();
    a.kind() == b.kind() && norm(a) == norm(b)
}

/// Extracts the expression `range` covers into `name = ...` before its statement; with `all`,
/// every identical occurrence whose statement is in the same block is replaced too.
pub fn extract_variable(
    text: &str,
    range: Range<usize>,
    name: &str,
    all: bool,
) -> Result<Extracted, FkError> {
    check_name(name)?;
    let tree = parse(text)?;
    let expr = expression_at(&tree, text, range)?;
    let pure = effect_at(expr).is_none() && fresh_at(expr).is_none();
    let mut refs = Vec::new();
    reads(expr, &mut refs);
    let order = !refs.is_empty() || !pure;
    let stmt = statement_of(text, expr, order)?;
    let block = stmt.parent().expect("a statement is in a block");
    // The name becomes local to the whole function: it must be unused there.
    let scope = function_scope(stmt);
    let mut nodes = Vec::new();
    all_nodes(scope, &mut nodes);
    if let Some(o) = nodes
        .iter()
        .find(|n| n.kind() == "identifier" && &text[n.byte_range()] == name)
    {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` is already used at line {} in the {} the variable would belong to",
                line(text, o.start_byte()),
                if scope.kind() == "module" {
                    "module"
                } else {
                    "function"
                }
            ),
        )
        .with_hint("choose another name"));
    }
    let mut sites = vec![(expr, stmt)];
    let mut skipped = Vec::new();
    if all {
        if !pure {
            return Err(invalid(
                format!(
                    "`{}` has effects or makes a new object each time: replacing every occurrence would run it once instead of at each",
                    quote(text, expr)
                ),
                "extract it without replacing every occurrence",
            ));
        }
        let mut in_block = Vec::new();
        all_nodes(block, &mut in_block);
        for n in in_block {
            if n.id() == expr.id() || !same_tokens(text, n, expr) {
                continue;
            }
            match statement_of(text, n, order) {
                Ok(s) if s.parent().map(|p| p.id()) == Some(block.id()) => sites.push((n, s)),
                Ok(_) => {}
                Err(e) => skipped.push(format!(
                    "line {}: {}",
                    line(text, n.start_byte()),
                    e.message
                )),
            }
        }
        sites.sort_by_key(|(n, _)| n.start_byte());
        if sites.len() > 1 {
            let first = sites[0].1.start_byte();
            let last_node = sites.last().expect("sites").0;
            let last = last_node.start_byte();
            let mut between = Vec::new();
            all_nodes(block, &mut between);
            if let Some(e) = between.iter().find(|n| {
                n.start_byte() >= first
                    && n.start_byte() < last
                    // an effect around the last occurrence happens after it is evaluated
                    && n.end_byte() < last_node.end_byte()
                    && (effect_at(**n).is_some_and(|e| e.id() == n.id())
                        || (matches!(
                            n.kind(),
                            "assignment" | "augmented_assignment" | "delete_statement"
                        ) && writes_any(text, **n, &refs)))
                    && !sites.iter().any(|(s, _)| {
                        s.start_byte() <= n.start_byte() && n.end_byte() <= s.end_byte()
                    })
            }) {
                return Err(invalid(
                    format!(
                        "`{}` may change between its occurrences: `{}` (line {}) runs in between",
                        quote(text, expr),
                        quote(text, *e),
                        line(text, e.start_byte())
                    ),
                    "extract it without replacing every occurrence",
                ));
            }
        }
    }
    let mut splices = vec![insertion(
        text,
        sites[0].1.start_byte(),
        format!("{name} = {}", right_side(text, expr)),
    )];
    for (n, _) in &sites {
        let r = replaced_range(*n);
        splices.push(Splice::new(r.start, r.end, name));
    }
    Ok(Extracted {
        splices: to_splices(text, splices)?,
        replaced: sites.len(),
        skipped,
        module_level: false,
        untyped: Vec::new(),
    })
}

fn top_statement(n: Node) -> Node {
    let mut x = n;
    while let Some(p) = x.parent() {
        if p.kind() == "module" {
            return x;
        }
        x = p;
    }
    x
}

/// Extracts the expression `range` covers into a module-level `NAME = ...`, when it uses
/// nothing local and has no effects; with `all`, every identical occurrence in the file that
/// means the same is replaced too. Otherwise `NAME = ...` where it runs ([`extract_variable`]).
pub fn extract_constant(
    text: &str,
    range: Range<usize>,
    name: &str,
    all: bool,
) -> Result<Extracted, FkError> {
    check_name(name)?;
    let tree = parse(text)?;
    let root = tree.root_node();
    let expr = expression_at(&tree, text, range.clone())?;
    let analysis = Analysis::new(text, &tree);
    // What one module-level name cannot mean, a local assigned where it runs can.
    let enclosing = || extract_variable(text, range.clone(), name, all);
    if effect_at(expr).is_some() {
        return enclosing();
    }
    let site_top = top_statement(expr);
    let in_function = {
        let mut p = expr.parent();
        let mut f = false;
        while let Some(x) = p {
            if matches!(
                x.kind(),
                "function_definition" | "lambda" | "for_statement" | "while_statement"
            ) {
                f = true;
            }
            p = x.parent();
        }
        f
    };
    // One module-level object shared where each run made its own.
    if in_function && fresh_at(expr).is_some() {
        return enclosing();
    }
    // Where it is evaluated (the right of `and`, an `elif`, a default value, a lambda's body)
    // matters only when what it reads can change: literals, operators and module-level names
    // bound once are the same value wherever and however often they are evaluated. An
    // attribute or an item can change (or raise).
    let mut inside = Vec::new();
    all_nodes(expr, &mut inside);
    let stable = !inside
        .iter()
        .any(|n| matches!(n.kind(), "attribute" | "subscript"));
    match statement_of(text, expr, false) {
        // A class body is fine for a module constant.
        Err(e) if !stable && !e.message.contains("class body") => return Err(e),
        _ => {}
    }
    let mut refs = Vec::new();
    reads(expr, &mut refs);
    let mut after = 0usize;
    for r in &refs {
        let rn = &text[r.byte_range()];
        // Enclosing scopes, innermost first: a binding in any but the module is local.
        let mut p = r.parent();
        while let Some(x) = p {
            if SCOPES.contains(&x.kind()) && bound_in(&analysis, x, rn) {
                return enclosing();
            }
            p = x.parent();
        }
        // Module-level bindings: one, before the constant.
        let mut c = root.walk();
        let binders: Vec<Node> = root
            .named_children(&mut c)
            .filter(|s| {
                binds_in_statement(&analysis, *s, rn) || {
                    matches!(
                        s.kind(),
                        "function_definition" | "class_definition" | "decorated_definition"
                    ) && def_name(text, *s) == Some(rn)
                }
            })
            .collect();
        // Bound more than once, a module-level name would keep one of its values; bound by
        // the statement itself, it is not bound yet before it.
        if binders.len() > 1 || binders.first().is_some_and(|b| b.id() == site_top.id()) {
            return enclosing();
        }
        if let Some(b) = binders.first() {
            after = after.max(b.end_byte());
        }
    }
    // The name: nowhere in the file.
    let mut nodes = Vec::new();
    all_nodes(root, &mut nodes);
    if let Some(o) = nodes
        .iter()
        .find(|n| n.kind() == "identifier" && &text[n.byte_range()] == name)
    {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` is already used at line {} of this module",
                line(text, o.start_byte())
            ),
        )
        .with_hint("choose a name the module does not use"));
    }
    let decl = format!("{name} = {}", right_side(text, expr));
    let insert = if after > site_top.start_byte() {
        let nl = text[after..]
            .find('\n')
            .map_or(text.len(), |i| after + i + 1);
        if nl == text.len() && !text.ends_with('\n') {
            Splice::insert(nl, format!("\n{decl}\n"))
        } else {
            Splice::insert(nl, format!("{decl}\n"))
        }
    } else {
        Splice::insert(site_top.start_byte(), format!("{decl}\n\n"))
    };
    let mut sites = vec![expr];
    let mut skipped = Vec::new();
    if all {
        for n in nodes.iter().copied() {
            if n.id() == expr.id() || !same_tokens(text, n, expr) {
                continue;
            }
            if n.start_byte() < insert.start
                && top_statement(n).start_byte() < insert.start
                && !in_def(n)
            {
                skipped.push(format!(
                    "line {}: it runs before the constant is assigned",
                    line(text, n.start_byte())
                ));
                continue;
            }
            let mut rs = Vec::new();
            reads(n, &mut rs);
            let local = rs.iter().find(|r| {
                let rn = &text[r.byte_range()];
                let mut p = r.parent();
                while let Some(x) = p {
                    if SCOPES.contains(&x.kind()) && bound_in(&analysis, x, rn) {
                        return true;
                    }
                    p = x.parent();
                }
                false
            });
            if let Some(l) = local {
                skipped.push(format!(
                    "line {}: `{}` is a local there",
                    line(text, n.start_byte()),
                    &text[l.byte_range()]
                ));
                continue;
            }
            sites.push(n);
        }
    }
    let mut splices = vec![insert];
    for n in &sites {
        let r = replaced_range(*n);
        splices.push(Splice::new(r.start, r.end, name));
    }
    Ok(Extracted {
        splices: to_splices(text, splices)?,
        replaced: sites.len(),
        skipped,
        module_level: true,
        untyped: Vec::new(),
    })
}

/// Whether an assignment or `del` writes a name of `reads`, or an attribute or item (which
/// an expression may read through another name).
fn writes_any(text: &str, n: Node, reads: &[Node]) -> bool {
    let target = if n.kind() == "delete_statement" {
        Some(n)
    } else {
        n.child_by_field_name("left")
    };
    let Some(target) = target else { return false };
    let mut nodes = Vec::new();
    all_nodes(target, &mut nodes);
    nodes.iter().any(|x| {
        matches!(x.kind(), "attribute" | "subscript")
            || (x.kind() == "identifier"
                && reads
                    .iter()
                    .any(|r| text[r.byte_range()] == text[x.byte_range()]))
    })
}

fn in_def(n: Node) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        if matches!(x.kind(), "function_definition" | "lambda") {
            return true;
        }
        p = x.parent();
    }
    false
}

fn def_name<'t>(text: &'t str, s: Node) -> Option<&'t str> {
    let d = if s.kind() == "decorated_definition" {
        s.child_by_field_name("definition")?
    } else {
        s
    };
    d.child_by_field_name("name").map(|n| &text[n.byte_range()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(src: &str, what: &str) -> Range<usize> {
        let s = src.find(what).expect("selection");
        s..s + what.len()
    }

    fn var(src: &str, what: &str, name: &str, all: bool) -> Result<String, FkError> {
        extract_variable(src, sel(src, what), name, all).map(|x| x.splices.apply(src).unwrap())
    }

    fn constant(src: &str, what: &str, name: &str) -> Result<String, FkError> {
        extract_constant(src, sel(src, what), name, false).map(|x| x.splices.apply(src).unwrap())
    }

    #[test]
    fn lines_continued_in_brackets_stay_bracketed_and_all_stays_literal() {
        assert_eq!(
            var(
                "def f(x):\n    raise E(\n        \"a \"\n        \"b\" % x\n    )\n",
                "\"a \"\n        \"b\"",
                "msg",
                false
            )
            .unwrap(),
            "def f(x):\n    msg = (\"a \"\n        \"b\")\n    raise E(\n        msg % x\n    )\n"
        );
        let err = var("__all__ = (\n    \"a\",\n)\n", "\"a\"", "n", false).unwrap_err();
        assert!(err.message.contains("`__all__`"), "{}", err.message);
    }

    #[test]
    fn extracts_a_variable_before_its_statement() {
        let src = "def area(w, h):\n    if w > 0:\n        print(w * h + 1)\n    return (w * h)\n";
        assert_eq!(
            var(src, "w * h", "size", false).unwrap(),
            "def area(w, h):\n    if w > 0:\n        size = w * h\n        print(size + 1)\n    return (w * h)\n"
        );
        let src = "def f(a):\n    x = a + 1\n    return x * (a + 1)\n";
        assert_eq!(
            var(src, "a + 1", "b", true).unwrap(),
            "def f(a):\n    b = a + 1\n    x = b\n    return x * b\n"
        );
        let src = "def f(a):\n    x = a + 1\n    a = 5\n    return x * (a + 1)\n";
        let e = var(src, "a + 1", "b", true).unwrap_err();
        assert!(e.message.contains("`a = 5` (line 3)"), "{}", e.message);
    }

    #[test]
    fn refuses_short_circuits_branches_loops_lambdas_defaults_and_class_bodies() {
        for (src, what, says) in [
            ("r = ok and check(x)\n", "check(x)", "right of `and`"),
            ("r = f(x) if c else 0\n", "f(x)", "branch"),
            ("while more(it):\n    pass\n", "more(it)", "loop condition"),
            ("if a:\n    pass\nelif g(x):\n    pass\n", "g(x)", "`elif`"),
            ("f = lambda a: a * 2\n", "a * 2", "lambda"),
            ("def f(a=g()):\n    return a\n", "g()", "default parameter"),
            ("ys = [y * 2 for y in xs]\n", "y * 2", "comprehension"),
            ("class C:\n    x = 1 + 2\n", "1 + 2", "class attribute"),
            ("r = step() + v\n", "v", "`step()`"),
        ] {
            let e = var(src, what, "extracted", false).unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
        // The first iterable of a comprehension runs once: fine.
        assert!(var("ys = [y for y in load(p)]\n", "load(p)", "it", false).is_ok());
    }

    #[test]
    fn refuses_non_expressions_and_clashing_names() {
        let e = var("x = a + b * c\n", "a + b", "y", false).unwrap_err();
        assert!(e.message.contains("not one expression"), "{}", e.message);
        let e = var("x = 1\n", "x", "y", false).unwrap_err();
        assert!(e.message.contains("being bound"), "{}", e.message);
        let e = var(
            "def f(a):\n    total = 0\n    return a + 1\n",
            "a + 1",
            "total",
            false,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert!(e.message.contains("line 2"), "{}", e.message);
        let e = var("x = (1 +\n", "1", "y", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
        let e = var("x = 1 + 2\n", "1 + 2", "class", false).unwrap_err();
        assert!(e.message.contains("keyword"), "{}", e.message);
    }

    #[test]
    fn extracts_a_module_constant() {
        let src = "import math\n\n\ndef circle(r):\n    return r * (2 * math.pi)\n";
        assert_eq!(
            constant(src, "2 * math.pi", "TAU").unwrap(),
            "import math\n\n\nTAU = 2 * math.pi\n\ndef circle(r):\n    return r * TAU\n"
        );
        let src = "def f(r):\n    return r * (K + 1)\n\nK = 2\n";
        assert_eq!(
            constant(src, "K + 1", "K1").unwrap(),
            "def f(r):\n    return r * K1\n\nK = 2\nK1 = K + 1\n"
        );
    }

    #[test]
    fn module_bindings_are_the_scope_models() {
        // Another function's parameter of the same name binds nothing of the module's.
        let src = "K = 2\n\ndef g(K):\n    return K\n\ndef f(r):\n    return r * (K + 1)\n";
        let x = extract_constant(src, sel(src, "K + 1"), "K1", false).unwrap();
        assert!(x.module_level);
        assert_eq!(
            x.splices.apply(src).unwrap(),
            "K = 2\n\ndef g(K):\n    return K\n\nK1 = K + 1\n\ndef f(r):\n    return r * K1\n"
        );
        // A function that declares it `global` and assigns it binds the module's again.
        let src =
            "K = 2\n\ndef bump():\n    global K\n    K = 3\n\ndef f(r):\n    return r * (K + 1)\n";
        let x = extract_constant(src, sel(src, "K + 1"), "K1", false).unwrap();
        assert!(!x.module_level);
    }

    #[test]
    fn a_constant_of_locals_effects_or_rebound_names_is_assigned_where_it_runs() {
        for (src, what, out) in [
            (
                "def f(r):\n    return r * 2\n",
                "r * 2",
                "def f(r):\n    X = r * 2\n    return X\n",
            ),
            (
                "def f():\n    n = 3\n    if n:\n        print(n * 2)\n",
                "n * 2",
                "def f():\n    n = 3\n    if n:\n        X = n * 2\n        print(X)\n",
            ),
            (
                "def f():\n    return g() + 1\n",
                "g() + 1",
                "def f():\n    X = g() + 1\n    return X\n",
            ),
            (
                "def f():\n    return [1, 2]\n",
                "[1, 2]",
                "def f():\n    X = [1, 2]\n    return X\n",
            ),
            (
                "n = 1\nn = 2\ndef f():\n    return n + 1\n",
                "n + 1",
                "n = 1\nn = 2\ndef f():\n    X = n + 1\n    return X\n",
            ),
        ] {
            assert_eq!(constant(src, what, "X").unwrap(), out, "{src}");
            let x = extract_constant(src, sel(src, what), "X", false).unwrap();
            assert!(!x.module_level);
        }
        let src = "def circle(r):\n    return r * (2 * 3)\n";
        assert!(
            extract_constant(src, sel(src, "2 * 3"), "X", false)
                .unwrap()
                .module_level
        );
    }

    #[test]
    fn a_constant_where_it_runs_keeps_the_refusals_of_a_variable() {
        for (src, what, says) in [
            (
                "def f(a):\n    return a and check(a * 2)\n",
                "a * 2",
                "right of `and`",
            ),
            (
                "def f(a):\n    while len(a) > 1:\n        a.pop()\n",
                "len(a) > 1",
                "loop condition",
            ),
            (
                "def f(a):\n    return step() + a * 3\n",
                "a * 3",
                "`step()`",
            ),
        ] {
            let e = constant(src, what, "X").unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
        let e = constant("def f(a):\n    X = 0\n    return a + 1\n", "a + 1", "X").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        let e = constant("X = 1\ndef f():\n    return 2 * 3\n", "2 * 3", "X").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
    }

    #[test]
    fn a_module_constant_that_reads_no_attribute_may_come_from_where_a_variable_may_not() {
        assert_eq!(
            constant("def f(ok):\n    return ok and 60 * 60\n", "60 * 60", "HOUR").unwrap(),
            "HOUR = 60 * 60\n\ndef f(ok):\n    return ok and HOUR\n"
        );
        assert_eq!(
            constant("def f(n=2 ** 10):\n    return n\n", "2 ** 10", "K").unwrap(),
            "K = 2 ** 10\n\ndef f(n=K):\n    return n\n"
        );
        // An attribute may change or raise: where it is read stays a refusal.
        let e = constant(
            "import os\n\ndef f(ok):\n    return ok and os.sep\n",
            "os.sep",
            "SEP",
        )
        .unwrap_err();
        assert!(e.message.contains("right of `and`"), "{}", e.message);
    }
}
