//! `inline_variable` for Python without a language server: a name assigned once
//! (`name = expr` in a function, or a private module-level name, which the caller checks no
//! other module imports: `Inlined::module_level`) is replaced at every use by
//! its initializer, parenthesized where precedence needs it, and its assignment removed (the
//! block keeps a `pass` if it empties). The same rules as the TS/JS kind
//! (`crate::ts::inline_variable`), on Python's scopes (`scopes.rs`).
//!
//! Refused, naming the construct and its line: any other binding of the name (assigned again,
//! augmented assignment, a `for` target, `with`/`except ... as`, unpacking, `:=`, an import,
//! a `def`/`class`, a parameter), `global`/`nonlocal`/`del` of it, a class attribute, a
//! public module-level name (other modules may import it) or one listed in `__all__`; a use
//! before the assignment or outside its block; an initializer with effects (a call, `await`,
//! `yield`, `:=`) or that makes a new object, used other than once or where its use runs
//! later, repeatedly or conditionally; an initializer whose value may change before a use (an
//! attribute or subscript read, a rebound name, with effects between, or a use in a nested
//! function or a loop); with effects, a read of an attribute or item before the use (it
//! would then run first); an initializer that binds by `:=`; a name of the initializer that
//! means something else at a use; a use in an f-string that its initializer's quotes, comments
//! or line breaks would end (before Python 3.12).

use super::rename::Binding;
use super::scopes::*;
use super::*;
use crate::steps::{field_is, invalid, line, quote, to_splices};

/// What inlining a variable did.
#[derive(Debug, Clone)]
pub struct Inlined {
    pub splices: filekit_splices::Splices,
    pub name: String,
    /// Uses replaced.
    pub uses: usize,
    /// The name was a (private) module-level one: the caller checks that no other module
    /// imports it.
    pub module_level: bool,
}
use filekit_splices::Splice as Cut;
use std::collections::HashMap;

const HINT: &str = "inline_variable inlines a name assigned once by `name = value`";

/// What a binding of the name (other than the assignment inlined) is, for the refusal.
fn binding_construct(n: Node) -> &'static str {
    let mut child = n;
    while let Some(p) = child.parent() {
        match p.kind() {
            "assignment" if field_is(p, "left", child) => {
                return if child.id() == n.id() {
                    "assigned again"
                } else {
                    "unpacked by an assignment"
                };
            }
            "augmented_assignment" => return "changed by an augmented assignment",
            "for_statement" => return "the target of a `for` loop",
            "for_in_clause" => return "the target of a comprehension's `for`",
            "with_item" | "with_clause" => return "bound by `with ... as`",
            "except_clause" => return "bound by `except ... as`",
            "as_pattern" if p.parent().is_some_and(|g| g.kind() == "with_item") => {
                return "bound by `with ... as`";
            }
            "as_pattern" if p.parent().is_some_and(|g| g.kind() == "except_clause") => {
                return "bound by `except ... as`";
            }
            "as_pattern" | "case_clause" | "case_pattern" => return "bound by a `case` pattern",
            "named_expression" => return "assigned by `:=`",
            "function_definition" => {
                return if field_is(p, "name", child) {
                    "defined by `def`"
                } else {
                    "a parameter"
                };
            }
            "lambda" => return "a parameter",
            "class_definition" => return "defined by `class`",
            "import_statement" | "import_from_statement" => return "imported",
            "delete_statement" => return "deleted by `del`",
            "global_statement" => return "declared `global`",
            "nonlocal_statement" => return "declared `nonlocal`",
            "block" | "module" | "expression_statement" => break,
            _ => {}
        }
        child = p;
    }
    "bound again"
}

const LOOPS: &[&str] = &["for_statement", "while_statement"];

/// What, between `use_` and the block `scope`, makes it run later, repeatedly or
/// conditionally.
fn deferred_by<'a>(use_: Node<'a>, block: Node<'a>) -> Option<(Node<'a>, &'static str)> {
    let mut child = use_;
    while let Some(p) = child.parent() {
        if p.id() == block.id() {
            return None;
        }
        match p.kind() {
            "function_definition" | "lambda" => {
                return Some((p, "a function, which runs later or several times"));
            }
            "for_statement" if !field_is(p, "right", child) => return Some((p, "a loop")),
            "while_statement" => return Some((p, "a loop")),
            k if is_comprehension(k) && !first_iterable(p, child) => {
                return Some((p, "a comprehension, which runs it per item"));
            }
            "if_statement" if !field_is(p, "condition", child) => {
                return Some((p, "a branch, which may not run"));
            }
            "elif_clause" | "else_clause" | "except_clause" | "finally_clause" | "case_clause" => {
                return Some((p, "a branch, which may not run"));
            }
            "conditional_expression" if p.named_child(1).map(|c| c.id()) != Some(child.id()) => {
                return Some((p, "a branch of `x if c else y`, which may not run"));
            }
            "boolean_operator" if field_is(p, "right", child) => {
                return Some((p, "the right of `and`/`or`, which may not run"));
            }
            "assert_statement" => return Some((p, "an `assert`, which `python -O` skips")),
            _ => {}
        }
        child = p;
    }
    None
}

/// Whether `child` of comprehension `c` is (inside) its first iterable, evaluated once outside.
fn first_iterable(c: Node, child: Node) -> bool {
    let mut cur = c.walk();
    let first = c
        .named_children(&mut cur)
        .find(|x| x.kind() == "for_in_clause");
    first.is_some_and(|f| {
        f.child_by_field_name("right").is_some_and(|r| {
            r.start_byte() <= child.start_byte() && child.end_byte() <= r.end_byte()
        }) && f.start_byte() <= child.start_byte()
            && child.end_byte() <= f.end_byte()
    })
}

fn is_ancestor(a: Node, n: Node) -> bool {
    let mut cur = Some(n);
    while let Some(x) = cur {
        if x.id() == a.id() {
            return true;
        }
        cur = x.parent();
    }
    false
}

fn node_at<'a>(tree: &'a Tree, o: &Occ) -> Option<Node<'a>> {
    tree.root_node()
        .descendant_for_byte_range(o.start, o.end)
        .filter(|n| n.kind() == "identifier" && n.start_byte() == o.start && n.end_byte() == o.end)
}

/// Nodes that change state when they run.
fn effect_node(n: Node) -> bool {
    matches!(
        n.kind(),
        "call" | "await" | "yield" | "named_expression" | "delete_statement"
    )
}

/// Kinds that bind tighter than any operator, so an initializer of one needs no parentheses.
fn is_primary(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "integer"
            | "float"
            | "string"
            | "true"
            | "false"
            | "none"
            | "ellipsis"
            | "call"
            | "attribute"
            | "subscript"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
    )
}

/// Whether any expression may stand at `u` in `p` unparenthesized (a whole value).
fn is_open_context(p: Node, u: Node) -> bool {
    match p.kind() {
        "assignment" => field_is(p, "right", u),
        "return_statement"
        | "argument_list"
        | "parenthesized_expression"
        | "list"
        | "set"
        | "tuple"
        | "expression_list" => true,
        "keyword_argument" | "pair" => field_is(p, "value", u),
        "subscript" => field_is(p, "subscript", u),
        "if_statement" | "while_statement" | "elif_clause" => field_is(p, "condition", u),
        "expression_statement" => true,
        _ => false,
    }
}

/// The text replacing a use `u` by the initializer `init`.
fn replacement(text: &str, init: Node, u: Node) -> Result<String, FkError> {
    let t = &text[init.byte_range()];
    let p = u.parent().expect("a use has a parent");
    let mut in_fstring = false;
    let mut cur = Some(p);
    while let Some(x) = cur.filter(|x| !matches!(x.kind(), "block" | "module")) {
        in_fstring |= x.kind() == "interpolation";
        cur = x.parent();
    }
    if in_fstring {
        let mut strings = Vec::new();
        let mut stack = vec![init];
        while let Some(x) = stack.pop() {
            if matches!(x.kind(), "string" | "comment") {
                strings.push(x);
            }
            let mut c = x.walk();
            stack.extend(x.children(&mut c));
        }
        if !strings.is_empty() || t.contains(['\n', '\\']) {
            return Err(invalid(
                format!(
                    "`{}` is used in an f-string at line {}: its initializer `{}` has quotes, a comment or a line break that an f-string cannot hold before Python 3.12",
                    &text[u.byte_range()],
                    line(text, u.start_byte()),
                    quote(text, init)
                ),
                "keep the variable, or move its use out of the f-string",
            ));
        }
        let plain = matches!(
            init.kind(),
            "identifier" | "call" | "attribute" | "subscript" | "integer" | "float"
        );
        if p.kind() == "interpolation" {
            return Ok(if plain {
                t.to_string()
            } else {
                format!("({t})")
            });
        }
    }
    let paren = match init.kind() {
        "expression_list" => {
            !(matches!(p.kind(), "assignment" | "return_statement") && is_open_context(p, u))
        }
        "named_expression" | "yield" => true,
        "lambda" => !matches!(
            p.kind(),
            "assignment" | "return_statement" | "argument_list" | "keyword_argument"
        ),
        "integer" | "float" => p.kind() == "attribute",
        "concatenated_string" => !is_open_context(p, u),
        k => !is_primary(k) && !is_open_context(p, u),
    };
    Ok(if paren {
        format!("({t})")
    } else {
        t.to_string()
    })
}

/// The assignment statement's removal: its lines when it is alone on them (a `pass` when its
/// block empties), else the statement and its `;`.
fn removal(text: &str, stmt: Node) -> Cut {
    let (s, e) = (stmt.start_byte(), stmt.end_byte());
    let block = stmt.parent().expect("a statement is in a block");
    let others = {
        let mut c = block.walk();
        block
            .named_children(&mut c)
            .filter(|x| x.id() != stmt.id() && x.kind() != "comment")
            .count()
    };
    let needs_pass = others == 0 && block.kind() == "block";
    let ls = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let after = &text[e..];
    let eol = after.find('\n').map_or(text.len(), |i| e + i);
    let rest = text[e..eol].trim_start();
    let alone_before = text[ls..s].trim().is_empty();
    let alone_after = rest.is_empty() || rest.starts_with('#');
    if needs_pass {
        return Cut::new(s, e, "pass".to_string());
    }
    if alone_before && alone_after {
        let end = if eol < text.len() { eol + 1 } else { eol };
        return Cut::delete(ls, end);
    }
    if rest.starts_with(';') {
        let semi = e + text[e..].find(';').expect("starts with it") + 1;
        let mut end = semi;
        while text[end..].starts_with([' ', '\t']) {
            end += 1;
        }
        if !alone_before || !text[end..eol].trim().is_empty() {
            return Cut::delete(s, end);
        }
    }
    // `a(); name = 1`: from the `;` before it.
    let semi = text[ls..s].rfind(';').map_or(s, |i| ls + i);
    Cut::delete(semi, e)
}

impl Analysis<'_> {
    fn in_function_below(&self, mut s: usize, top: usize) -> bool {
        while s != top {
            if self.scopes[s].kind == ScopeKind::Function {
                return true;
            }
            match self.scopes[s].parent {
                Some(p) => s = p,
                None => return false,
            }
        }
        false
    }
}

/// What the checks of a Python variable's inlining share.
struct Variable<'v, 'a> {
    name: &'v str,
    /// Its initializer, the assignment statement and the block it is in.
    init: Node<'a>,
    stmt: Node<'a>,
    block: Node<'a>,
    /// The scope it is bound in.
    decl_scope: usize,
    /// Each use, with its scope.
    uses: &'v [(Node<'a>, usize)],
    /// The names the initializer reads, each with the scope it resolves to there.
    reads: &'v [(&'v Occ, Option<usize>)],
}

/// Refuses an initializer whose value may change between the assignment and a use (from the
/// assignment to the last use, and through every loop a use is in): a use in a nested
/// function, a name it reads bound again, an effect, a write to an object, or (with effects)
/// a read of state that the initializer would now follow instead of precede.
fn value_holds(
    tree: &Tree,
    text: &str,
    a: &Analysis,
    v: &Variable,
    effect: Option<Node>,
    reads_objects: bool,
    rebound_at: &dyn Fn(&Occ, Option<usize>) -> Vec<usize>,
) -> Result<(), FkError> {
    let Variable {
        name,
        init,
        stmt,
        block,
        decl_scope,
        uses,
        reads,
    } = *v;
    // From the assignment to the last use, and through every loop a use is in.
    let mut end = 0;
    let mut in_loop = false;
    for (u, s) in uses {
        end = end.max(u.start_byte());
        let mut cur = u.parent();
        while let Some(x) = cur {
            if x.id() == block.id() {
                break;
            }
            if LOOPS.contains(&x.kind()) || is_comprehension(x.kind()) {
                end = end.max(x.end_byte());
                in_loop = true;
            }
            cur = x.parent();
        }
        if effect.is_none() && a.in_function_below(*s, decl_scope) {
            return Err(invalid(
                format!(
                    "`{name}`'s value may change before its use inside a nested function at line {}: `{}` reads {}",
                    line(text, u.start_byte()),
                    quote(text, init),
                    if reads_objects {
                        "an attribute or item"
                    } else {
                        "a name that is assigned again"
                    }
                ),
                "inline a variable whose initializer reads nothing that changes",
            ));
        }
    }
    for (o, r) in reads {
        if let Some(at) = rebound_at(o, *r)
            .into_iter()
            .find(|&at| at >= stmt.end_byte() && at < end)
        {
            return Err(invalid(
                format!(
                    "`{}` in `{name}`'s initializer is rebound at line {} before a use",
                    o.name,
                    line(text, at)
                ),
                "inline a variable whose initializer reads nothing that changes",
            ));
        }
    }
    // The calls whose arguments hold a use, and where the last use starts.
    let mut around_use = std::collections::HashSet::new();
    for (u, _) in uses {
        let mut cur = u.parent();
        while let Some(x) = cur.filter(|x| x.id() != block.id()) {
            if x.kind() == "call"
                && x.child_by_field_name("arguments").is_some_and(|args| {
                    args.start_byte() <= u.start_byte() && u.end_byte() <= args.end_byte()
                })
            {
                around_use.insert(x.id());
            }
            cur = x.parent();
        }
    }
    let last_use = uses.iter().map(|(u, _)| u.start_byte()).max().unwrap_or(0);
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= stmt.end_byte() || n.start_byte() >= end {
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.start_byte() < stmt.end_byte() {
            continue;
        }
        let writes_object = matches!(n.kind(), "assignment" | "augmented_assignment")
            && n.child_by_field_name("left").is_some_and(|l| {
                let mut st = vec![l];
                let mut hit = false;
                while let Some(x) = st.pop() {
                    hit |= matches!(x.kind(), "attribute" | "subscript");
                    let mut c = x.walk();
                    st.extend(x.named_children(&mut c));
                }
                hit
            });
        // `f(name)` as the last use: the call runs after its arguments, as the initializer
        // did (a use after it, or in the loop's next round, would see what it changed).
        let encloses_use = !in_loop && around_use.contains(&n.id()) && last_use < n.end_byte();
        // With effects, the initializer ran before what reads state between it and its
        // use; inlined, it runs after (`v = xs.pop(); return xs[0] + v`).
        let read_before = effect.is_some()
            && matches!(n.kind(), "attribute" | "subscript")
            && n.end_byte() <= last_use
            && !n
                .parent()
                .is_some_and(|p| field_is(p, "function", n) && around_use.contains(&p.id()));
        if (effect_node(n) && !encloses_use) || writes_object || read_before {
            return Err(invalid(
                format!(
                    "`{name}`'s value may change before its use: `{}` (line {}) runs between the assignment and a use",
                    quote(text, n),
                    line(text, n.start_byte())
                ),
                "inline a variable whose initializer reads nothing that changes",
            ));
        }
    }
    Ok(())
}

/// Refuses an initializer a name of which means something else at a use (another binding of
/// it in the use's scope): renaming that one comes first. Each name and each scope of a use
/// is compared once.
fn names_mean_the_same(
    a: &Analysis,
    text: &str,
    name: &str,
    reads: &[(&Occ, Option<usize>)],
    uses: &[(Node, usize)],
) -> Result<(), FkError> {
    let mut seen = std::collections::HashSet::new();
    let distinct_reads: Vec<&(&Occ, Option<usize>)> = reads
        .iter()
        .filter(|(o, r)| seen.insert((o.name.as_str(), *r)))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let use_scopes: Vec<&(Node, usize)> = uses.iter().filter(|(_, s)| seen.insert(*s)).collect();
    for (o, there) in distinct_reads {
        for (u, s) in use_scopes.iter().copied() {
            let here = a.resolve(*s, &o.name);
            if here != *there {
                let decl_line = here
                    .and_then(|h| {
                        a.occs.iter().find(|x| {
                            x.binding && x.name == o.name && a.resolve(x.scope, &x.name) == Some(h)
                        })
                    })
                    .map_or(0, |x| line(text, x.start));
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{}` in `{name}`'s initializer means something else at the use on line {}: another `{}` is bound at line {decl_line}",
                        o.name,
                        line(text, u.start_byte()),
                        o.name
                    ),
                )
                .with_hint("rename the inner binding first"));
            }
        }
    }
    Ok(())
}

/// The uses of the variable (each with its scope), refused where a use is no plain read its
/// initializer can replace: `__all__`, a string annotation, `+=`, `global`, `nonlocal`, a
/// `case` pattern, `del`.
fn plain_uses<'a>(
    tree: &'a Tree,
    text: &str,
    a: &Analysis,
    refs: &[usize],
    name: &str,
) -> Result<Vec<(Node<'a>, usize)>, FkError> {
    let mut uses = Vec::new();
    for &i in refs {
        let o = &a.occs[i];
        if o.binding {
            continue;
        }
        let refuse = |what: &str| {
            Err(invalid(
                format!(
                    "`{name}` is {what} at line {}: its value is not its initializer everywhere",
                    line(text, o.start)
                ),
                "inline a variable that is assigned once and never rebound",
            ))
        };
        match o.kind {
            OccKind::All => {
                return Err(invalid(
                    format!(
                        "`{name}` is listed in `__all__` at line {}: other modules import it",
                        line(text, o.start)
                    ),
                    "remove it from `__all__` first",
                ));
            }
            OccKind::Str => {
                return Err(invalid(
                    format!(
                        "`{name}` is used in a string annotation at line {}",
                        line(text, o.start)
                    ),
                    "keep the variable, or write the annotation without quotes",
                ));
            }
            _ => {}
        }
        let Some(n) = node_at(tree, o) else {
            return refuse("named in a way the inline cannot replace");
        };
        let p = n.parent().expect("a name has a parent");
        match p.kind() {
            "augmented_assignment" if field_is(p, "left", n) => {
                return refuse("changed by an augmented assignment");
            }
            "global_statement" => return refuse("declared `global`"),
            "nonlocal_statement" => return refuse("declared `nonlocal`"),
            "dotted_name" => {
                return Err(invalid(
                    format!(
                        "`{name}` is used in a `case` pattern at line {}",
                        line(text, o.start)
                    ),
                    "keep the variable",
                ));
            }
            _ => {}
        }
        if p.kind() == "delete_statement"
            || (p.kind() == "expression_list"
                && p.parent().is_some_and(|g| g.kind() == "delete_statement"))
        {
            return refuse("deleted by `del`");
        }
        uses.push((n, o.scope));
    }
    Ok(uses)
}

/// Refuses a use before the assignment or outside its block (it may run when the assignment
/// did not), and an initializer that binds a name by `:=` (inlined, later).
fn uses_follow_the_assignment(text: &str, v: &Variable, at_line: usize) -> Result<(), FkError> {
    let Variable {
        name,
        init,
        stmt,
        block,
        uses,
        ..
    } = *v;
    for (u, _) in uses {
        if u.start_byte() < stmt.end_byte() {
            return Err(invalid(
                format!(
                    "`{name}` is used at line {} before its assignment (line {at_line})",
                    line(text, u.start_byte())
                ),
                "move the use after the assignment first",
            ));
        }
        if !is_ancestor(block, *u) {
            return Err(invalid(
                format!(
                    "`{name}` is used at line {} outside the block it is assigned in (line {at_line}): that use may run when the assignment did not",
                    line(text, u.start_byte())
                ),
                "inline a variable whose uses follow its assignment in the same block",
            ));
        }
    }
    // `x = (y := f())`: inlined, `y` would be bound later, after code that may read it.
    let mut stack = vec![init];
    while let Some(x) = stack.pop() {
        if x.kind() == "named_expression" {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer binds a name by `:=` (`{}`, line {}): inlined, it would bind it later",
                    quote(text, x),
                    line(text, x.start_byte())
                ),
                "keep the variable, or move the `:=` out of its initializer first",
            ));
        }
        // A lambda's `:=` binds in the lambda; a comprehension's binds here.
        if x.kind() == "lambda" {
            continue;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    Ok(())
}

/// Refuses an initializer with effects (or that makes a new object) that would not run
/// exactly once, right after the assignment.
fn runs_once(text: &str, v: &Variable, effect: Option<Node>) -> Result<(), FkError> {
    let Variable {
        name, block, uses, ..
    } = *v;
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
        if let Some((d, why)) = deferred_by(uses[0].0, block) {
            return Err(invalid(
                format!(
                    "`{name}`'s initializer has effects (`{}`), and its use at line {} is inside {why} (line {})",
                    quote(text, e),
                    line(text, uses[0].0.start_byte()),
                    line(text, d.start_byte())
                ),
                "inline it only where the use runs once, right after the assignment",
            ));
        }
    }
    Ok(())
}

/// Inlines the variable a target names (its assignment, or a use of it).
// Over 200 lines: the steps in order; what stays inline is the assignment's shape (read
// once, and every later step needs it), where the names it reads are bound again, and the
// splices at the uses.
pub fn inline_variable(text: &str, target: &Target) -> Result<Inlined, FkError> {
    let tree = crate::python::extract::parse(text)?;
    let a = Analysis::new(text, &tree);
    let (binding, name) = a.find_target(target).map_err(|mut e| {
        // find_target's hints speak of renames.
        e.hint = Some(match e.code {
            ErrorCode::Ambiguous => "name it by path (`function.local`, `Class.method.local`) or give the selection on the one to inline".into(),
            ErrorCode::NotFound => "point the selection's start at the variable's name or a use of it, or give its name (or `function.local`) as symbol".into(),
            _ => return e,
        });
        e
    })?;
    let scope = match binding {
        Binding::Name(s) => s,
        Binding::ClassAttr(_) => {
            return Err(invalid(
                format!(
                    "`{name}` is a class attribute: other code reads it through the class or its instances"
                ),
                HINT,
            ));
        }
    };
    let refs = a.refs_of(scope, &name);
    let bindings: Vec<&Occ> = refs
        .iter()
        .map(|&i| &a.occs[i])
        .filter(|o| o.binding)
        .collect();
    let Some(first) = bindings.first() else {
        return Err(invalid(
            format!("`{name}` is not assigned in this file"),
            HINT,
        ));
    };
    let decl = node_at(&tree, first).ok_or_else(|| {
        invalid(
            format!(
                "`{name}` (line {}) is imported, not assigned",
                line(text, first.start)
            ),
            HINT,
        )
    })?;
    let at_line = line(text, decl.start_byte());
    let assignment = decl
        .parent()
        .filter(|p| p.kind() == "assignment" && field_is(*p, "left", decl))
        .ok_or_else(|| {
            invalid(
                format!(
                    "`{name}` is {} at line {at_line}: only a name whose one binding is a plain `{name} = value` is inlined",
                    binding_construct(decl)
                ),
                HINT,
            )
        })?;
    let stmt = assignment
        .parent()
        .filter(|p| p.kind() == "expression_statement")
        .ok_or_else(|| {
            invalid(
                format!("`{name}` (line {at_line}) is assigned in a chain (`a = {name} = ...`)"),
                HINT,
            )
        })?;
    let Some(init) = assignment.child_by_field_name("right") else {
        return Err(invalid(
            format!("`{name}` (line {at_line}) is only annotated, not assigned"),
            HINT,
        ));
    };
    if init.kind() == "assignment" {
        return Err(invalid(
            format!("`{name}` (line {at_line}) is assigned in a chain (`{name} = a = ...`)"),
            HINT,
        ));
    }
    if scope == 0 && (!name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"))) {
        return Err(invalid(
            format!(
                "`{name}` (line {at_line}) is a public module-level name: other modules may import it"
            ),
            "inline a function's local variable, or a module-level name starting with `_`",
        ));
    }
    if let Some(o) = bindings.get(1) {
        let what = node_at(&tree, o).map_or("bound again", binding_construct);
        return Err(invalid(
            format!(
                "`{name}` is {what} at line {}: its value is not its initializer everywhere",
                line(text, o.start)
            ),
            "inline a variable that is assigned once and never rebound",
        ));
    }
    let uses = plain_uses(&tree, text, &a, &refs, &name)?;
    let block = stmt.parent().expect("a statement is in a block");
    let early = Variable {
        name: &name,
        init,
        stmt,
        block,
        decl_scope: first.scope,
        uses: &uses,
        reads: &[],
    };
    uses_follow_the_assignment(text, &early, at_line)?;
    let effect =
        crate::python::extract::effect_at(init).or_else(|| crate::python::extract::fresh_at(init));
    runs_once(text, &early, effect)?;
    // The names the initializer reads, each with the scope it resolves to there.
    let decl_scope = first.scope;
    let reads: Vec<(&Occ, Option<usize>)> = a
        .occs
        .iter()
        .filter(|o| {
            !o.binding
                && o.kind == OccKind::Name
                && init.start_byte() <= o.start
                && o.end <= init.end_byte()
        })
        .map(|o| (o, a.resolve(o.scope, &o.name)))
        // A name local to a lambda or comprehension of the initializer goes with it.
        .filter(|(o, r)| o.scope == decl_scope || *r == a.resolve(decl_scope, &o.name))
        .collect();
    // Where each name the initializer reads is bound, augmented or deleted (computed once
    // per name: an initializer may read thousands).
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, o) in a.occs.iter().enumerate() {
        by_name.entry(o.name.as_str()).or_default().push(i);
    }
    let mut rebinds: HashMap<(&str, usize), Vec<usize>> = HashMap::new();
    for (o, r) in &reads {
        let Some(r) = *r else { continue };
        rebinds.entry((o.name.as_str(), r)).or_insert_with(|| {
            by_name[o.name.as_str()]
                .iter()
                .map(|&i| &a.occs[i])
                .filter(|x| {
                    x.kind != OccKind::All
                        && a.resolve(x.scope, &x.name) == Some(r)
                        && (x.binding
                            || node_at(&tree, x).is_some_and(|n| {
                                n.parent().is_some_and(|p| {
                                    (p.kind() == "augmented_assignment" && field_is(p, "left", n))
                                        || p.kind() == "delete_statement"
                                })
                            }))
                })
                .map(|x| x.start)
                .collect()
        });
    }
    let rebound_at = |o: &Occ, r: Option<usize>| -> Vec<usize> {
        r.and_then(|r| rebinds.get(&(o.name.as_str(), r)))
            .cloned()
            .unwrap_or_default()
    };
    let reads_objects = {
        let mut stack = vec![init];
        let mut found = false;
        while let Some(x) = stack.pop() {
            if matches!(x.kind(), "attribute" | "subscript") {
                found = true;
                break;
            }
            if matches!(x.kind(), "lambda") {
                continue;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        found
    };
    let mutable =
        effect.is_some() || reads_objects || reads.iter().any(|(o, r)| rebound_at(o, *r).len() > 1);
    if mutable {
        let variable = Variable {
            name: &name,
            init,
            stmt,
            block,
            decl_scope,
            uses: &uses,
            reads: &reads,
        };
        value_holds(
            &tree,
            text,
            &a,
            &variable,
            effect,
            reads_objects,
            &rebound_at,
        )?;
    }
    // Shadowing: every name of the initializer means the same at each use.
    names_mean_the_same(&a, text, &name, &reads, &uses)?;
    let mut cuts = Vec::new();
    // A long initializer used many times could make an edit of gigabytes: bounded here, the
    // pipeline then holds the result to the size of a file.
    let total = uses.len().saturating_mul(init.byte_range().len() + 2);
    if total > crate::bounds::MAX_RESULT_BYTES {
        return Err(FkError::too_large(
            filekit_errors::Limit::ResultSize,
            total as u64,
            crate::bounds::MAX_RESULT_BYTES as u64,
            format!(
                "inlining `{name}` would write its {}-byte initializer at {} uses: {total} bytes, more than {}",
                init.byte_range().len(),
                uses.len(),
                crate::bounds::MAX_RESULT_BYTES
            ),
        )
        .with_hint("keep the variable"));
    }
    for (u, _) in &uses {
        cuts.push(Cut::new(
            u.start_byte(),
            u.end_byte(),
            replacement(text, init, *u)?,
        ));
    }
    cuts.push(removal(text, stmt));
    Ok(Inlined {
        splices: to_splices(text, cuts)?,
        name,
        uses: uses.len(),
        module_level: scope == 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(src: &str, name: &str) -> Result<String, FkError> {
        inline_variable(src, &Target::Name(name.into())).map(|x| x.splices.apply(src).unwrap())
    }

    fn refused(src: &str, name: &str, says: &str) {
        let e = inline(src, name).unwrap_err();
        assert!(e.message.contains(says), "{says:?} not in: {}", e.message);
    }

    #[test]
    fn inlines_with_parentheses_where_precedence_needs_them() {
        let src = "def f(a, b):\n    total = a + b\n    return total * 2 + g(total) + [total][0] + total.bit_length()\n";
        assert_eq!(
            inline(src, "total").unwrap(),
            "def f(a, b):\n    return (a + b) * 2 + g(a + b) + [a + b][0] + (a + b).bit_length()\n"
        );
        let src = "def f(a):\n    n = 1\n    pair = a, n\n    return n.real, pair, g(pair)\n";
        assert_eq!(
            inline(src, "n").unwrap(),
            "def f(a):\n    pair = a, 1\n    return (1).real, pair, g(pair)\n"
        );
        assert_eq!(
            inline(src, "pair").unwrap(),
            "def f(a):\n    n = 1\n    return n.real, (a, n), g((a, n))\n"
        );
        let src = "def f(a):\n    pair = a, 1\n    return g(pair)\n";
        assert_eq!(
            inline(src, "pair").unwrap(),
            "def f(a):\n    return g((a, 1))\n"
        );
        let src = "def f(c):\n    k = lambda v: v if c else 0\n    return k(1)\n";
        assert_eq!(
            inline(src, "k").unwrap(),
            "def f(c):\n    return (lambda v: v if c else 0)(1)\n"
        );
    }

    #[test]
    fn target_at_a_use_keeps_a_pass_and_semicolons() {
        let src = "def f():\n    k = 3\n    print(k)\n";
        let at = src.rfind('k').unwrap();
        let out = inline_variable(src, &Target::At(at)).unwrap();
        assert_eq!(out.splices.apply(src).unwrap(), "def f():\n    print(3)\n");
        assert_eq!(out.uses, 1);
        assert_eq!(
            inline("def f():\n    unused = 3\n", "unused").unwrap(),
            "def f():\n    pass\n"
        );
        assert_eq!(
            inline("def f(a):\n    x = a; print(x)\n", "x").unwrap(),
            "def f(a):\n    print(a)\n"
        );
        assert_eq!(
            inline("_private = 2\nprint(_private)\n", "_private").unwrap(),
            "print(2)\n"
        );
    }

    #[test]
    fn every_other_binding_is_refused_with_its_construct() {
        let f = |body: &str| format!("def f(o, xs):\n    v = o\n{body}    return v\n");
        refused(&f("    v += 1\n"), "v", "augmented assignment at line 3");
        refused(&f("    for v in xs:\n        pass\n"), "v", "`for` loop");
        refused(&f("    with o as v:\n        pass\n"), "v", "`with ... as`");
        refused(&f("    v, w = xs\n"), "v", "unpacked");
        refused(&f("    v = 2\n"), "v", "assigned again at line 3");
        refused(&f("    if (v := 2):\n        pass\n"), "v", "`:=`");
        refused(&f("    del v\n"), "v", "`del`");
        refused(
            &f("    def g():\n        nonlocal v\n        v = 1\n"),
            "f.v",
            "assigned again at line 5",
        );
        refused(
            &f("    def g():\n        nonlocal v\n        print(v)\n"),
            "v",
            "`nonlocal`",
        );
        refused(
            &f("    try:\n        pass\n    except E as v:\n        pass\n"),
            "v",
            "`except",
        );
        refused(&f("    import v\n"), "v", "imported");
        refused(
            "LIMIT = 3\nprint(LIMIT)\n",
            "LIMIT",
            "public module-level name",
        );
        refused("_n = 3\n__all__ = ['_n']\n", "_n", "`__all__`");
        refused("class C:\n    x = 1\n    y = x\n", "x", "class attribute");
        refused("def f(a):\n    return a\n", "a", "a parameter at line 1");
    }

    #[test]
    fn uses_before_or_outside_the_block_are_refused() {
        refused(
            "def f(c):\n    if c:\n        v = 1\n    return v\n",
            "v",
            "outside the block",
        );
        refused(
            "def f():\n    def g():\n        return v\n    v = 1\n    return g\n",
            "v",
            "before its assignment",
        );
    }

    #[test]
    fn effects_used_other_than_once_or_deferred_are_refused() {
        refused(
            "def f(it):\n    v = next(it)\n    return v, v\n",
            "v",
            "used 2 times",
        );
        refused("def f():\n    v = []\n    return v, v\n", "v", "new object");
        assert_eq!(
            inline("def f(it):\n    v = next(it)\n    return g(v)\n", "v").unwrap(),
            "def f(it):\n    return g(next(it))\n"
        );
        refused(
            "def f(it):\n    v = next(it)\n    step()\n    return v\n",
            "v",
            "`step()`",
        );
        refused(
            "def f(it):\n    v = next(it)\n    return lambda: v\n",
            "v",
            "a function",
        );
        refused(
            "def f(it, xs):\n    v = next(it)\n    for x in xs:\n        g(v)\n",
            "v",
            "a loop",
        );
        refused(
            "def f(it, c):\n    v = next(it)\n    return c and v\n",
            "v",
            "`and`/`or`",
        );
        refused(
            "def f(it):\n    v = next(it)\n    return [v for _ in range(3)]\n",
            "v",
            "comprehension",
        );
        refused(
            "async def f(t):\n    v = await t\n    return v + v\n",
            "v",
            "used 2 times",
        );
    }

    #[test]
    fn values_that_may_change_before_a_use_are_refused() {
        refused(
            "def f(o):\n    n = o.count\n    bump(o)\n    return n\n",
            "n",
            "`bump(o)`",
        );
        refused(
            "def f(o):\n    n = o.count\n    o.count = 2\n    return n\n",
            "n",
            "o.count = 2",
        );
        refused(
            "def f(o):\n    n = o.count\n    return lambda: n\n",
            "n",
            "nested function",
        );
        refused(
            "def f(o, xs):\n    n = o[0]\n    for x in xs:\n        g(n)\n        o[0] = x\n",
            "n",
            "o[0] = x",
        );
        refused(
            "def f(a):\n    n = a\n    a = 2\n    return n\n",
            "n",
            "rebound at line 3",
        );
        refused(
            "def f(o, xs):\n    n = o.count\n    for x in xs:\n        log(n)\n",
            "n",
            "`log(n)`",
        );
        refused(
            "def f(xs):\n    v = xs.pop()\n    return xs[0] + v\n",
            "v",
            "`xs[0]`",
        );
        assert_eq!(
            inline("def f(xs):\n    v = xs.pop()\n    self.log(v)\n", "v").unwrap(),
            "def f(xs):\n    self.log(xs.pop())\n"
        );
        refused(
            "def f():\n    x = (y := 1)\n    z = y\n    return x, z\n",
            "x",
            "by `:=`",
        );
        // A call around the first use runs before the second.
        refused(
            "def f(o):\n    n = o.count\n    log(n)\n    return n\n",
            "n",
            "`log(n)`",
        );
        assert_eq!(
            inline("def f(o):\n    n = o.count\n    return g(n)\n", "n").unwrap(),
            "def f(o):\n    return g(o.count)\n"
        );
    }

    #[test]
    fn a_name_meaning_something_else_at_a_use_is_refused() {
        let src = "def f(a):\n    b = a + 1\n    def g(a):\n        return b * a\n    return g\n";
        let e = inline(src, "b").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert!(e.message.contains("bound at line 3"), "{}", e.message);
        let src = "def f(x):\n    b = x\n    return [b for x in range(3)]\n";
        assert_eq!(inline(src, "b").unwrap_err().code, ErrorCode::Conflict);
    }

    #[test]
    fn an_edit_past_the_result_bound_is_refused_before_it_is_built() {
        let init = format!("({})", vec!["a"; 2100].join(", "));
        let src = format!("def f(a):\n    v = {init}\n{}", "    g(v)\n".repeat(8000));
        let e = inline(&src, "v").unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
        assert!(e.message.contains("at 8000 uses"), "{}", e.message);
    }

    #[test]
    fn a_name_bound_in_several_functions_is_named_by_path() {
        let src = "def f():\n    v = 1\n    return v\n\n\ndef g():\n    v = 2\n    return v\n";
        let e = inline(src, "v").unwrap_err();
        assert_eq!(e.code, ErrorCode::Ambiguous);
        assert!(e.hint.unwrap().contains("the one to inline"));
        assert_eq!(
            inline(src, "g.v").unwrap(),
            "def f():\n    v = 1\n    return v\n\n\ndef g():\n    return 2\n"
        );
    }

    #[test]
    fn bad_inputs() {
        assert_eq!(
            inline("def f(:\n    x = 1\n", "x").unwrap_err().code,
            ErrorCode::ParseError
        );
        assert_eq!(
            inline("x = 1\n", "nope").unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(
            inline("x = 1\n", "1x").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        let e = inline_variable("print(len)\n", &Target::At(7)).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        refused(
            "def f(s):\n    q = 'a'\n    return f\"{q}\"\n",
            "q",
            "f-string",
        );
        refused(
            "def f(s):\n    q = 'a'\n    return f\"{q if s else 1}\"\n",
            "q",
            "f-string",
        );
        assert_eq!(
            inline(
                "def f(s):\n    q = s + 1\n    return f\"{q if s else 1}{q}\"\n",
                "q"
            )
            .unwrap(),
            "def f(s):\n    return f\"{(s + 1) if s else 1}{(s + 1)}\"\n"
        );
    }
}
