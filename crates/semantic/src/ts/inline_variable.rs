//! `inline_variable` for TS/TSX/JS without a language server: a `const` (or a `let`
//! never reassigned) is replaced at every use by its initializer, parenthesized where
//! precedence needs it, and its declaration removed.
//!
//! Refused, naming the construct and its line: a `var`, a destructuring, a declaration without
//! initializer; a `let` assigned somewhere; an exported binding; a use before the declaration;
//! an initializer with effects used other than once, or whose single use runs later,
//! repeatedly, conditionally or after other effects; an initializer that makes a new object
//! used other than once or inside a loop or function (a branch is fine: making an object has
//! no effect), except a function that is only called (a closure made at each call does the
//! same); an initializer whose value may change before a use (a property read or a reassigned
//! variable, with an effect completed before the use, or anywhere in a loop around it); a
//! name of the initializer that means something else at a use (shadowing), or `this`,
//! `arguments`, `super` at a use inside a function with its own; a use as the callee of a call
//! when the initializer is a method (`const m = o.m; m()` would change `this`).

use crate::Lang;
use crate::steps::{field_is, invalid, line, quote, to_splices};
use crate::ts::extract::{
    all_nodes, assigned_at, bound_from, effect_at, fresh_at, parse_clean, reads_properties,
    references,
};
use crate::ts::inline::{is_open_context, is_primary};
use crate::ts::{OCCURRENCE_KINDS, Target, occurrences, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::{Node, Tree};

/// What inlining a variable did.
#[derive(Debug, Clone)]
pub struct Inlined {
    pub splices: Splices,
    pub name: String,
    /// Uses replaced.
    pub uses: usize,
}

const LOOPS: &[&str] = &[
    "for_statement",
    "for_in_statement",
    "while_statement",
    "do_statement",
];

const FUNCTIONS: &[&str] = &[
    "function_expression",
    "function",
    "function_declaration",
    "generator_function",
    "generator_function_declaration",
    "arrow_function",
    "method_definition",
];

/// What, between `use_` and the block `scope`, makes it run later, repeatedly or
/// conditionally.
fn deferred_by<'a>(use_: Node<'a>, scope: Node<'a>) -> Option<(Node<'a>, &'static str)> {
    let mut child = use_;
    while let Some(p) = child.parent() {
        if p.id() == scope.id() {
            return None;
        }
        if FUNCTIONS.contains(&p.kind()) {
            return Some((p, "a function, which runs later or several times"));
        }
        if LOOPS.contains(&p.kind()) {
            return Some((p, "a loop"));
        }
        match p.kind() {
            "if_statement" | "else_clause" | "switch_case" | "switch_default" | "catch_clause"
            | "finally_clause"
                if !field_is(p, "condition", child) =>
            {
                return Some((p, "a branch, which may not run"));
            }
            "ternary_expression" if !field_is(p, "condition", child) => {
                return Some((p, "a branch of `?:`, which may not run"));
            }
            "binary_expression"
                if field_is(p, "right", child)
                    && p.child_by_field_name("operator")
                        .is_some_and(|o| matches!(o.kind(), "&&" | "||" | "??")) =>
            {
                return Some((p, "the right of a short circuit, which may not run"));
            }
            _ => {}
        }
        child = p;
    }
    None
}

/// The name of the declaration `target` names: the declaration a use at a position resolves
/// to, or the one declaration of a name (refused when there is none or several).
fn declared_name<'a>(tree: &'a Tree, text: &str, target: &Target) -> Result<Node<'a>, FkError> {
    let root = tree.root_node();
    Ok(match target {
        Target::At(at) => {
            let n = root
                .descendant_for_byte_range(*at, *at)
                .filter(|n| OCCURRENCE_KINDS.contains(&n.kind()))
                .ok_or_else(|| {
                    let p = crate::position(text, *at);
                    FkError::new(
                        ErrorCode::NotFound,
                        format!("no variable name at line {}, column {}", p.line, p.column),
                    )
                    .with_hint("point the selection's start at the variable's name or a use of it")
                })?;
            let name = &text[n.byte_range()];
            let occ = occurrences(tree, text, name);
            let scopes = scopes_for(tree, text, &occ);
            let scope = bound_from(&scopes, n, name).ok_or_else(|| {
                FkError::new(
                    ErrorCode::NotFound,
                    format!("`{name}` is not declared in this file"),
                )
                .with_hint("inline a variable this file declares")
            })?;
            occ.iter()
                .find(|o| {
                    scopes
                        .declaring_scope(**o)
                        .is_some_and(|s| s.id() == scope.id())
                })
                .copied()
                .ok_or_else(|| {
                    FkError::new(ErrorCode::NotFound, format!("no declaration of `{name}`"))
                })?
        }
        Target::Name(name) => {
            let occ = occurrences(tree, text, name);
            let scopes = scopes_for(tree, text, &occ);
            let decls: Vec<Node> = occ
                .iter()
                .copied()
                .filter(|o| scopes.declaring_scope(*o).is_some())
                .collect();
            match decls.as_slice() {
                [one] => *one,
                [] => {
                    return Err(FkError::new(
                        ErrorCode::NotFound,
                        format!("no variable `{name}` is declared in this file"),
                    )
                    .with_hint("name a variable this file declares"));
                }
                many => {
                    let lines: Vec<String> = many
                        .iter()
                        .map(|d| line(text, d.start_byte()).to_string())
                        .collect();
                    return Err(FkError::new(
                        ErrorCode::Ambiguous,
                        format!(
                            "`{name}` is declared {} times (lines {})",
                            many.len(),
                            lines.join(", ")
                        ),
                    )
                    .with_hint("give the selection on the one to inline"));
                }
            }
        }
    })
}

/// Inlines the variable a target names (its declaration, or a use of it).
// Over 200 lines: the steps in order; what stays inline is the declaration's shape (read
// once, and every later step needs it) and the splices at the uses.
pub fn inline_variable(lang: Lang, text: &str, target: &Target) -> Result<Inlined, FkError> {
    let tree = parse_clean(lang, text)?;
    let name_node = declared_name(&tree, text, target)?;
    let name = text[name_node.byte_range()].to_string();
    let at_line = line(text, name_node.start_byte());
    let declarator = name_node
        .parent()
        .filter(|p| p.kind() == "variable_declarator" && field_is(*p, "name", name_node))
        .ok_or_else(|| {
            invalid(
                format!(
                    "`{name}` (line {at_line}) is not declared by `const` or `let` with a plain name: {}",
                    name_node.parent().map_or("?".into(), |p| p.kind().replace('_', " "))
                ),
                "inline_variable inlines `const x = ...` or `let x = ...` declarations",
            )
        })?;
    let decl = declarator
        .parent()
        .expect("a declarator is in a declaration");
    if decl.kind() == "variable_declaration" {
        return Err(invalid(
            format!(
                "`{name}` (line {at_line}) is a `var`: hoisted to its function, it can be used and assigned anywhere in it"
            ),
            "make it a `const` first",
        ));
    }
    let is_let = {
        let mut c = decl.walk();
        decl.children(&mut c).any(|x| x.kind() == "let")
    };
    let Some(init) = declarator.child_by_field_name("value") else {
        return Err(invalid(
            format!("`{name}` (line {at_line}) has no initializer"),
            "inline a variable declared with a value",
        ));
    };
    let stmt = match decl.parent() {
        Some(p) if p.kind() == "export_statement" => {
            return Err(invalid(
                format!("`{name}` (line {at_line}) is exported: other modules use it"),
                "remove the export first, or inline it where it is imported",
            ));
        }
        _ => decl,
    };
    if matches!(
        stmt.parent().map(|p| p.kind()),
        Some("for_statement" | "for_in_statement")
    ) {
        return Err(invalid(
            format!("`{name}` (line {at_line}) is a loop variable"),
            "inline a variable declared by a statement of its own",
        ));
    }
    let occ = occurrences(&tree, text, &name);
    let scopes = scopes_for(&tree, text, &occ);
    let scope = scopes
        .declaring_scope(name_node)
        .expect("a declarator's name declares");
    let uses: Vec<Node> = occ
        .iter()
        .copied()
        .filter(|o| {
            o.id() != name_node.id()
                && bound_from(&scopes, *o, &name).is_some_and(|s| s.id() == scope.id())
        })
        .collect();
    if let Some(e) = uses.iter().find(|u| {
        u.parent()
            .is_some_and(|p| p.kind() == "export_specifier" || (p.kind() == "export_statement"))
    }) {
        return Err(invalid(
            format!(
                "`{name}` is exported at line {}: other modules use it",
                line(text, e.start_byte())
            ),
            "remove the export first",
        ));
    }
    if is_let && let Some(a) = assigned_at(&uses) {
        return Err(invalid(
            format!(
                "`{name}` is a `let` assigned at line {}: its value is not its initializer everywhere",
                line(text, a.start_byte())
            ),
            "inline a `const`, or a `let` that is never reassigned",
        ));
    }
    if let Some(u) = uses.iter().find(|u| u.start_byte() < declarator.end_byte()) {
        return Err(invalid(
            format!(
                "`{name}` is used at line {} before its declaration (line {at_line}) ends",
                line(text, u.start_byte())
            ),
            "move the use after the declaration first",
        ));
    }
    let effect = effect_at(init);
    let fresh = if effect.is_none() {
        fresh_at(init)
    } else {
        None
    };
    let mut refs = Vec::new();
    references(init, &mut refs);
    // `this`, `arguments`, `super`, `new.target` are another function's inside a nested
    // non-arrow function or a class body (an arrow takes its definer's); those of a function
    // or class in the initializer are its own wherever it goes.
    let own_context = |p: Node| {
        p.kind() == "class_body" || (FUNCTIONS.contains(&p.kind()) && p.kind() != "arrow_function")
    };
    let contextual = refs.iter().find(|r| {
        (matches!(r.kind(), "this" | "super" | "meta_property")
            || &text[r.byte_range()] == "arguments")
            && crossed(**r, init, own_context).is_none()
            && !own_context(init)
    });
    if let Some(c) = contextual
        && let Some((u, f)) = uses
            .iter()
            .find_map(|u| crossed(*u, scope, own_context).map(|f| (u, f)))
    {
        return Err(invalid(
            format!(
                "`{}` in `{name}`'s initializer means another value at the use on line {}, inside {} (line {})",
                quote(text, *c),
                line(text, u.start_byte()),
                if f.kind() == "class_body" {
                    "a class"
                } else {
                    "a function with its own `this`"
                },
                line(text, f.start_byte())
            ),
            "keep the variable",
        ));
    }
    // A function only called: a closure made at each call does what the one made before did
    // (it captures the same variables, by reference), so it may be inlined at every call.
    let called_function = effect.is_none()
        && matches!(
            unparenthesized(init).kind(),
            "arrow_function" | "function_expression" | "function"
        )
        && uses.iter().all(|u| {
            u.parent()
                .is_some_and(|p| p.kind() == "call_expression" && field_is(p, "function", *u))
        });
    let variable = Variable {
        name: &name,
        init,
        stmt,
        scope,
        uses: &uses,
        refs: &refs,
    };
    runs_as_often(text, &variable, effect, fresh, called_function)?;
    value_holds(&tree, text, &variable, effect, called_function)?;
    // Shadowing: every name of the initializer means the same at each use.
    names_mean_the_same(&tree, text, &variable)?;
    let init_text = &text[init.byte_range()];
    // A long initializer used many times could make an edit of gigabytes: bounded here, the
    // pipeline then holds the result to the size of a file.
    let total = uses.len().saturating_mul(init_text.len() + 2);
    if total > crate::bounds::MAX_RESULT_BYTES {
        return Err(FkError::too_large(
            filekit_errors::Limit::ResultSize,
            total as u64,
            crate::bounds::MAX_RESULT_BYTES as u64,
            format!(
                "inlining `{name}` would write its {}-byte initializer at {} uses: {total} bytes, more than {}",
                init_text.len(),
                uses.len(),
                crate::bounds::MAX_RESULT_BYTES
            ),
        )
        .with_hint("keep the variable"));
    }
    let mut splices = Vec::new();
    for u in &uses {
        let p = u.parent().expect("a use has a parent");
        if p.kind() == "call_expression"
            && field_is(p, "function", *u)
            && matches!(init.kind(), "member_expression" | "subscript_expression")
        {
            return Err(invalid(
                format!(
                    "`{name}` is called at line {}: inlined, `{}(...)` would be a method call with another `this`",
                    line(text, u.start_byte()),
                    quote(text, init)
                ),
                "keep the variable, or call the method on its object yourself",
            ));
        }
        let new = if u.kind() == "shorthand_property_identifier" {
            format!("{name}: {init_text}")
        } else if init.kind() == "sequence_expression"
            || (!is_primary(init.kind()) && !u.parent().is_some_and(|p| is_open_context(p, *u)))
            || (matches!(
                init.kind(),
                "object" | "function_expression" | "function" | "class"
            ) && p.kind() == "expression_statement")
        {
            format!("({init_text})")
        } else {
            init_text.to_string()
        };
        splices.push(Splice::new(u.start_byte(), u.end_byte(), new));
    }
    splices.push(removal(text, decl, declarator));
    Ok(Inlined {
        splices: to_splices(text, splices)?,
        name,
        uses: uses.len(),
    })
}

/// The variable being inlined, as the checks see it.
struct Variable<'v, 'a> {
    name: &'v str,
    /// Its initializer.
    init: Node<'a>,
    /// The declaration statement.
    stmt: Node<'a>,
    /// The block it is declared in.
    scope: Node<'a>,
    uses: &'v [Node<'a>],
    /// The names the initializer reads (and `this` and its kin).
    refs: &'v [Node<'a>],
}

/// Refuses an initializer with effects that would not run exactly once, right after the
/// declaration, or one that makes a new object where a use may run several times (a function
/// only called is the same closure at each call).
fn runs_as_often(
    text: &str,
    v: &Variable,
    effect: Option<Node>,
    fresh: Option<Node>,
    called_function: bool,
) -> Result<(), FkError> {
    let Variable {
        name, uses, scope, ..
    } = *v;
    if let Some(e) = effect {
        if uses.len() != 1 {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer has effects (`{}`), and it is used {} times: inlined, it would run {} times instead of once",
                    quote(text, e),
                    uses.len(),
                    uses.len()
                ),
                "inline a variable whose initializer has no effects, or that is used once",
            ));
        }
        if let Some((d, why)) = deferred_by(uses[0], scope) {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer has effects (`{}`), and its use at line {} is inside {why} (line {})",
                    quote(text, e),
                    line(text, uses[0].start_byte()),
                    line(text, d.start_byte())
                ),
                "inline it only where the use runs once, right after the declaration",
            ));
        }
    } else if let Some(f) = fresh
        && !called_function
    {
        // A new object where the declaration made one: the same only where the use runs at
        // most once (a branch is fine: making an object has no effect).
        if uses.len() != 1 {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer makes a new object (`{}`), and it is used {} times: inlined, each use would get its own",
                    quote(text, f),
                    uses.len()
                ),
                "inline a variable whose initializer makes no object, or that is used once (a function: only called)",
            ));
        }
        if let Some(d) = crossed(uses[0], scope, |p| {
            FUNCTIONS.contains(&p.kind()) || LOOPS.contains(&p.kind())
        }) {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer makes a new object (`{}`), and its use at line {} is inside {} (line {}), which may run several times: each run would get its own",
                    quote(text, f),
                    line(text, uses[0].start_byte()),
                    if LOOPS.contains(&d.kind()) {
                        "a loop"
                    } else {
                        "a function"
                    },
                    line(text, d.start_byte())
                ),
                "inline it only where the use runs once",
            ));
        }
    }
    Ok(())
}

/// Refuses an initializer whose value may change between the declaration and a use: an
/// effect that runs in between (or in a loop around a use), or a use inside a function that
/// runs later.
fn value_holds(
    tree: &Tree,
    text: &str,
    v: &Variable,
    effect: Option<Node>,
    called_function: bool,
) -> Result<(), FkError> {
    let Variable {
        name,
        init,
        stmt,
        scope,
        uses,
        refs,
    } = *v;
    let root = tree.root_node();
    // Whether the value may change between the declaration and a use (a function's body reads
    // at each call, whether made before or at the call).
    let mutable = effect.is_some()
        || (!called_function
            && (reads_properties(init)
                || refs.iter().any(|r| {
                    r.kind() == "this" || {
                        let n = &text[r.byte_range()];
                        assigned_at(&occurrences(tree, text, n)).is_some()
                    }
                })));
    if mutable {
        // A loop around a use (after the declaration) runs an effect anywhere in it before
        // the use of its next iteration.
        let loops: Vec<Node> = uses
            .iter()
            .flat_map(|u| {
                let mut found = vec![];
                let mut p = u.parent();
                while let Some(x) = p
                    && x.id() != scope.id()
                {
                    if LOOPS.contains(&x.kind()) && x.start_byte() >= stmt.end_byte() {
                        found.push(x);
                    }
                    p = x.parent();
                }
                found
            })
            .collect();
        for n in all_nodes(tree) {
            if n.start_byte() < stmt.end_byte() || effect_at(n).is_none_or(|e| e.id() != n.id()) {
                continue;
            }
            // A function made after the declaration runs only where it is called, and a
            // call is an effect of its own.
            if crossed(n, root, |p| {
                FUNCTIONS.contains(&p.kind()) && p.start_byte() >= stmt.end_byte()
            })
            .is_some()
            {
                continue;
            }
            // An effect takes place once its operands are evaluated: before a use after it,
            // not before one inside it.
            let before_a_use = uses.iter().any(|u| u.start_byte() >= n.end_byte())
                || loops
                    .iter()
                    .any(|l| l.start_byte() <= n.start_byte() && n.end_byte() <= l.end_byte());
            if before_a_use {
                return Err(invalid(
                    format!(
                        "`{name}`'s value may change before its use: `{}` (line {}) runs between the declaration and the use",
                        quote(text, n),
                        line(text, n.start_byte())
                    ),
                    "inline a variable whose initializer reads nothing that changes",
                ));
            }
        }
        if effect.is_none()
            && let Some(d) = uses
                .iter()
                .find_map(|u| crossed(*u, scope, |p| FUNCTIONS.contains(&p.kind())))
        {
            return Err(invalid(
                format!(
                    "`{name}`'s value may change before its use inside a function, which runs later or several times (line {})",
                    line(text, d.start_byte())
                ),
                "inline a variable whose initializer reads nothing that changes",
            ));
        }
    }
    Ok(())
}

/// Refuses an initializer a name of which means something else at a use (another
/// declaration of it in between): renaming that one comes first.
fn names_mean_the_same(tree: &Tree, text: &str, v: &Variable) -> Result<(), FkError> {
    let Variable {
        name,
        init,
        uses,
        refs,
        ..
    } = *v;
    for r in refs {
        if !OCCURRENCE_KINDS.contains(&r.kind()) {
            continue;
        }
        let rn = &text[r.byte_range()];
        let rocc = occurrences(tree, text, rn);
        let rscopes = scopes_for(tree, text, &rocc);
        let bound = bound_from(&rscopes, *r, rn);
        // A name the initializer declares itself (a parameter of a function in it) goes along.
        if bound
            .is_some_and(|b| init.start_byte() <= b.start_byte() && b.end_byte() <= init.end_byte())
        {
            continue;
        }
        let there = bound.map(|s| s.id());
        for u in uses {
            let here = bound_from(&rscopes, *u, rn);
            if here.map(|s| s.id()) != there {
                let decl_line = here
                    .and_then(|s| {
                        rocc.iter().find(|o| {
                            rscopes
                                .declaring_scope(**o)
                                .is_some_and(|d| d.id() == s.id())
                        })
                    })
                    .map_or(0, |o| line(text, o.start_byte()));
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{rn}` in `{name}`'s initializer means something else at the use on line {}: another `{rn}` is declared at line {decl_line}",
                        line(text, u.start_byte())
                    ),
                )
                .with_hint("rename the inner declaration first"));
            }
        }
    }
    Ok(())
}

/// The first node between `use_` and the block `scope` for which `stop` holds.
fn crossed<'a>(use_: Node<'a>, scope: Node<'a>, stop: impl Fn(Node) -> bool) -> Option<Node<'a>> {
    let mut p = use_.parent();
    while let Some(x) = p {
        if x.id() == scope.id() {
            return None;
        }
        if stop(x) {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

fn unparenthesized(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression"
        && let Some(c) = n.named_child(0)
    {
        n = c;
    }
    n
}

/// The splice that removes a declarator: its whole statement's lines when it is alone, else
/// the declarator and a comma.
fn removal(text: &str, decl: Node, declarator: Node) -> Splice {
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl
        .named_children(&mut c)
        .filter(|x| x.kind() == "variable_declarator")
        .collect();
    if declarators.len() == 1 {
        let (s, e) = (decl.start_byte(), decl.end_byte());
        let ls = text[..s].rfind('\n').map_or(0, |i| i + 1);
        let after = &text[e..];
        let eol = after.find('\n');
        if text[ls..s].trim().is_empty() && after[..eol.unwrap_or(after.len())].trim().is_empty() {
            let end = eol.map_or(text.len(), |i| e + i + 1);
            return Splice::delete(ls, end);
        }
        let mut end = e;
        while text[end..].starts_with(' ') {
            end += 1;
        }
        return Splice::delete(s, end);
    }
    let i = declarators
        .iter()
        .position(|d| d.id() == declarator.id())
        .expect("the declarator is in its declaration");
    if i + 1 < declarators.len() {
        Splice::delete(declarator.start_byte(), declarators[i + 1].start_byte())
    } else {
        Splice::delete(declarators[i - 1].end_byte(), declarator.end_byte())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(src: &str, name: &str) -> Result<String, FkError> {
        inline_variable(Lang::TypeScript, src, &Target::Name(name.into()))
            .map(|x| x.splices.apply(src).unwrap())
    }

    #[test]
    fn an_edit_past_the_result_bound_is_refused_before_it_is_built() {
        let init = format!("'{}'", "x".repeat(5000));
        let src = format!(
            "function f() {{\n  const v = {init};\n{}}}\n",
            "  g(v);\n".repeat(8000)
        );
        let e = inline_variable(Lang::TypeScript, &src, &Target::Name("v".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
        assert!(e.message.contains("at 8000 uses"), "{}", e.message);
    }

    #[test]
    fn inlines_with_parentheses_where_precedence_needs_them() {
        let src = "function f(a: number, b: number) {\n  const sum = a + b;\n  return sum * 2 + g(sum) + { sum }.sum;\n}\n";
        assert_eq!(
            inline(src, "sum").unwrap(),
            "function f(a: number, b: number) {\n  return (a + b) * 2 + g(a + b) + { sum: a + b }.sum;\n}\n"
        );
    }

    #[test]
    fn inlines_a_let_never_reassigned_and_a_declarator_among_others() {
        let src = "let x = 1, y = 2;\nconsole.log(x + y);\n";
        assert_eq!(
            inline(src, "x").unwrap(),
            "let y = 2;\nconsole.log(1 + y);\n"
        );
        let src = "let n = 1;\nn++;\nlog(n);\n";
        let e = inline(src, "n").unwrap_err();
        assert!(e.message.contains("assigned at line 2"), "{}", e.message);
    }

    #[test]
    fn target_at_a_use_finds_the_declaration() {
        let src = "const k = 3;\nlog(k);\n";
        let at = src.rfind('k').unwrap();
        let out = inline_variable(Lang::JavaScript, src, &Target::At(at)).unwrap();
        assert_eq!(out.splices.apply(src).unwrap(), "log(3);\n");
    }

    #[test]
    fn effects_used_other_than_once_are_refused() {
        let e = inline("const v = next();\nlog(v, v);\n", "v").unwrap_err();
        assert!(e.message.contains("used 2 times"), "{}", e.message);
        let e = inline("const v = [];\nlog(v, v);\n", "v").unwrap_err();
        assert!(e.message.contains("new object"), "{}", e.message);
        let e = inline("const v = next();\n", "v").unwrap_err();
        assert!(e.message.contains("used 0 times"), "{}", e.message);
        // Used once, right after: fine.
        assert_eq!(
            inline("const v = next();\nlog(v);\n", "v").unwrap(),
            "log(next());\n"
        );
        // Used once, but after another effect, or later in a function: refused.
        let e = inline("const v = next();\nstep();\nlog(v);\n", "v").unwrap_err();
        assert!(e.message.contains("`step()`"), "{}", e.message);
        let e = inline("const v = next();\nsetTimeout(() => log(v));\n", "v").unwrap_err();
        assert!(e.message.contains("a function"), "{}", e.message);
    }

    #[test]
    fn a_function_only_called_is_inlined_at_every_call() {
        assert_eq!(
            inline(
                "const inc = (n: number) => n + 1;\nlog(inc(1), inc(2));\n",
                "inc"
            )
            .unwrap(),
            "log(((n: number) => n + 1)(1), ((n: number) => n + 1)(2));\n"
        );
        // Inside a callback and a branch too: a closure made there does the same.
        assert_eq!(
            inline(
                "function f(xs: number[]) {\n  const done = () => log(xs);\n  xs.forEach((x) => { if (x) { done(); } });\n}\n",
                "done"
            )
            .unwrap(),
            "function f(xs: number[]) {\n  xs.forEach((x) => { if (x) { (() => log(xs))(); } });\n}\n"
        );
        // Passed as a value twice, it would be two functions (removeEventListener misses).
        let e = inline("const h = () => 1;\nel.on('x', h);\nel.off('x', h);\n", "h").unwrap_err();
        assert!(e.message.contains("makes a new object"), "{}", e.message);
        assert!(e.message.contains("used 2 times"), "{}", e.message);
    }

    #[test]
    fn a_new_object_used_once_may_move_into_a_branch_not_a_loop_or_function() {
        assert_eq!(
            inline("const o = { a: 1 };\nif (c) {\n  log(o);\n}\n", "o").unwrap(),
            "if (c) {\n  log({ a: 1 });\n}\n"
        );
        let e = inline(
            "const o = [];\nfor (const x of xs) {\n  push(o, x);\n}\n",
            "o",
        )
        .unwrap_err();
        assert!(e.message.contains("a loop (line 2)"), "{}", e.message);
        let e = inline("const o = [];\nxs.forEach((x) => push(o, x));\n", "o").unwrap_err();
        assert!(e.message.contains("a function (line 2)"), "{}", e.message);
    }

    #[test]
    fn names_the_initializer_declares_go_along_and_this_stays_its_functions() {
        assert_eq!(
            inline("const t = { set: (h: () => void) => h() };\nlog(t);\n", "t").unwrap(),
            "log({ set: (h: () => void) => h() });\n"
        );
        let src = "class A {\n  x = 1;\n  m() {\n    const n = this.x;\n    return function () { return n; };\n  }\n}\n";
        let e = inline(src, "n").unwrap_err();
        assert!(e.message.contains("own `this`"), "{}", e.message);
        let src = "class A {\n  x = 1;\n  m() {\n    const f = () => this.x;\n    return function () { return f(); };\n  }\n}\n";
        let e = inline(src, "f").unwrap_err();
        assert!(e.message.contains("own `this`"), "{}", e.message);
        // A function expression's `this` is its own wherever it is made.
        let src = "class A {\n  m() {\n    const f = function () { return this; };\n    return function () { return f(); };\n  }\n}\n";
        assert_eq!(
            inline(src, "f").unwrap(),
            "class A {\n  m() {\n    return function () { return (function () { return this; })(); };\n  }\n}\n"
        );
    }

    #[test]
    fn shadowing_at_a_use_is_refused() {
        let src = "const a = 1;\nconst b = a + 1;\nfunction f(a: number) {\n  return b * a;\n}\n";
        let e = inline(src, "b").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert!(e.message.contains("declared at line 3"), "{}", e.message);
    }

    #[test]
    fn exported_before_use_var_and_method_callee_are_refused() {
        let e = inline("export const a = 1;\n", "a").unwrap_err();
        assert!(e.message.contains("exported"), "{}", e.message);
        let e = inline("const a = 1;\nexport { a };\n", "a").unwrap_err();
        assert!(e.message.contains("exported at line 2"), "{}", e.message);
        let e = inline("function f() { return a; }\nconst a = 1;\n", "a").unwrap_err();
        assert!(
            e.message.contains("before its declaration"),
            "{}",
            e.message
        );
        let e = inline("var a = 1;\nlog(a);\n", "a").unwrap_err();
        assert!(e.message.contains("`var`"), "{}", e.message);
        let e = inline("const m = o.run;\nm();\n", "m").unwrap_err();
        assert!(e.message.contains("`this`"), "{}", e.message);
        let e = inline("const { a } = o;\nlog(a);\n", "a").unwrap_err();
        assert!(e.message.contains("plain name"), "{}", e.message);
    }

    #[test]
    fn a_property_read_refused_when_a_call_may_change_it() {
        let e = inline("const n = o.count;\nbump(o);\nlog(n);\n", "n").unwrap_err();
        assert!(e.message.contains("`bump(o)`"), "{}", e.message);
        assert_eq!(
            inline("const n = o.count;\nlog(n);\n", "n").unwrap(),
            "log(o.count);\n"
        );
        // A call with one use as argument runs before the next use.
        let e = inline("const n = o.count;\nbump(n);\nlog(n);\n", "n").unwrap_err();
        assert!(e.message.contains("`bump(n)`"), "{}", e.message);
        // In a loop, an effect (even the call of the use) runs before the next iteration's.
        let e = inline(
            "const n = o.count;\nfor (const x of xs) {\n  log(n, x);\n}\n",
            "n",
        )
        .unwrap_err();
        assert!(e.message.contains("`log(n, x)`"), "{}", e.message);
        // An assignment of the value itself, and a function only made in between, change
        // nothing before the use.
        assert_eq!(
            inline(
                "const n = o.count;\nconst later = () => bump(o);\ntotal = n;\n",
                "n"
            )
            .unwrap(),
            "const later = () => bump(o);\ntotal = o.count;\n"
        );
    }
}
