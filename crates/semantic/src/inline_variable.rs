//! `inline_variable` for TS/TSX/JS without a language server (issue 28): a `const` (or a `let`
//! never reassigned) is replaced at every use by its initializer, parenthesized where
//! precedence needs it, and its declaration removed.
//!
//! Refused, naming the construct and its line: a `var`, a destructuring, a declaration without
//! initializer; a `let` assigned somewhere; an exported binding; a use before the declaration;
//! an initializer with effects (or one that makes a new object) used other than once, or whose
//! single use runs later, repeatedly or after other effects; an initializer whose value may
//! change before a use (a property read or a reassigned variable, with effects between); a
//! name of the initializer that means something else at a use (shadowing); a use as the callee
//! of a call when the initializer is a method (`const m = o.m; m()` would change `this`).

use crate::Lang;
use crate::extract::{
    all_nodes, assigned_at, bound_from, effect_at, field_is, fresh_at, invalid, line, parse_clean,
    quote, reads_properties, references, to_splices,
};
use crate::inline::{is_open_context, is_primary};
use crate::refactor::{OCCURRENCE_KINDS, Target, occurrences, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::Node;

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

/// Inlines the variable a target names (its declaration, or a use of it).
pub fn inline_variable(lang: Lang, text: &str, target: &Target) -> Result<Inlined, FkError> {
    let tree = parse_clean(lang, text)?;
    let root = tree.root_node();
    let name_node = match target {
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
                    .with_hint("point selectionRange's start at the variable's name or a use of it")
                })?;
            let name = &text[n.byte_range()];
            let occ = occurrences(&tree, text, name);
            let scopes = scopes_for(&tree, text, &occ);
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
            let occ = occurrences(&tree, text, name);
            let scopes = scopes_for(&tree, text, &occ);
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
                    .with_hint("give selectionRange on the one to inline"));
                }
            }
        }
    };
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
    let effect = effect_at(init).or_else(|| fresh_at(init));
    if let Some(e) = effect {
        if uses.len() != 1 {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer has effects or makes a new object (`{}`), and it is used {} times: inlined, it would run {} times instead of once",
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
    }
    // Whether the value may change between the declaration and a use.
    let mut refs = Vec::new();
    references(init, &mut refs);
    let mutable = effect.is_some()
        || reads_properties(init)
        || refs.iter().any(|r| {
            r.kind() == "this" || {
                let n = &text[r.byte_range()];
                assigned_at(&occurrences(&tree, text, n)).is_some()
            }
        });
    if mutable && let Some(last) = uses.iter().map(|u| u.start_byte()).max() {
        for n in all_nodes(&tree) {
            if n.start_byte() < stmt.end_byte() || n.start_byte() >= last {
                continue;
            }
            if effect_at(n).is_some_and(|e| e.id() == n.id())
                && !uses.iter().any(|u| {
                    n.start_byte() <= u.start_byte()
                        && u.end_byte() <= n.end_byte()
                        && n.kind() == "call_expression"
                        && is_argument_of(*u, n)
                })
            {
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
            && let Some((d, why)) = uses.iter().find_map(|u| deferred_by(*u, scope))
            && why.starts_with("a function")
        {
            return Err(invalid(
                format!(
                    "`{name}`'s value may change before its use inside {why} (line {})",
                    line(text, d.start_byte())
                ),
                "inline a variable whose initializer reads nothing that changes",
            ));
        }
    }
    // Shadowing: every name of the initializer means the same at each use.
    for r in &refs {
        if !OCCURRENCE_KINDS.contains(&r.kind()) {
            continue;
        }
        let rn = &text[r.byte_range()];
        let rocc = occurrences(&tree, text, rn);
        let rscopes = scopes_for(&tree, text, &rocc);
        let there = bound_from(&rscopes, *r, rn).map(|s| s.id());
        for u in &uses {
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
    let init_text = &text[init.byte_range()];
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

fn is_argument_of(u: Node, call: Node) -> bool {
    call.child_by_field_name("arguments")
        .is_some_and(|a| a.start_byte() <= u.start_byte() && u.end_byte() <= a.end_byte())
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
    }
}
