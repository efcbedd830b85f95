//! `extract_function` and `extract_method` for TS/TSX/JS without a language server:
//! the selected statements (whole statements of one block) or one expression become a
//! function: a module-level function declared after the module-level statement that holds the
//! selection (`extract_function`; a function declaration is hoisted, so it exists wherever the
//! selection runs), or a method of the enclosing class declared after the member that holds it
//! (`extract_method`, called as `this.name(...)`).
//!
//! Its parameters are the locals the selection uses that the new place cannot see (declared
//! outside the selection, in a function around it); its result is what the selection declares
//! or assigns that is used after it: one name is returned as it is, several as an object that
//! the call site destructures. A TS parameter gets the type annotation of its declaration when
//! it has one the new place can see and that no condition before the selection may have
//! narrowed; otherwise it is left untyped and the result says so (`untyped`): under
//! `noImplicitAny` (part of `strict`) the compiler wants a type there.
//!
//! Refused, naming the construct and its line: a selection that is neither whole statements
//! nor one expression; `return`, `break` or `continue` that leave the selection; `yield`; `this`,
//! `super`, `arguments` or `new.target` of the enclosing function in a free function (or of a
//! function other than the method); an `import`/`export`; a name declared in the selection but
//! used before it; an expression that assigns a local; a name that clashes.

use crate::Lang;
pub use crate::steps::ExtractedFunction;
use crate::steps::{field_is, invalid, line, quote, to_splices};
use crate::style::{indent_unit, line_head, multiline_strings, reindent_range, uses_semicolons};
use crate::ts::extract::{
    all_nodes, assigned_at, bound_from, expression_at, parse_clean, top_statement,
};
use crate::ts::types::{Place, Untyped, declared_type, type_names};
use crate::ts::{Scopes, check_identifier, occurrences, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::Splice;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::{Node, Tree};

/// A regex of a declaration that `implements` the class `name` (for a search of the
/// workspace: such a class must have every member of `name`).
pub fn implements_pattern(name: &str) -> String {
    let name = name.replace('$', r"\$");
    format!(r"\bimplements\s+([\w$.<>,\s]*[\s,])?{name}\b")
}

/// Functions with their own `this`, `arguments` and `return`.
const OWN_THIS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "method_definition",
];

/// Every function, arrows included (their own `return`).
const FUNCTIONS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "method_definition",
    "arrow_function",
];

const LOOPS: &[&str] = &[
    "for_statement",
    "for_in_statement",
    "while_statement",
    "do_statement",
];

fn is_list(n: Node) -> bool {
    matches!(
        n.kind(),
        "program" | "statement_block" | "switch_case" | "switch_default" | "class_static_block"
    )
}

/// What the selection covers.
enum Selected<'a> {
    /// Whole statements of one list, in order.
    Statements(Vec<Node<'a>>),
    Expression(Node<'a>),
}

impl Selected<'_> {
    fn range(&self) -> Range<usize> {
        match self {
            Selected::Statements(s) => s[0].start_byte()..s[s.len() - 1].end_byte(),
            Selected::Expression(e) => e.byte_range(),
        }
    }
}

/// The statements a selection covers exactly, if it does (a statement's `;` may be left out).
fn statements_at<'a>(tree: &'a Tree, text: &str, s: usize, e: usize) -> Option<Vec<Node<'a>>> {
    let with_semi = |end: usize| end == e || (end == e + 1 && text[e..].starts_with(';'));
    let mut n = tree.root_node().descendant_for_byte_range(s, e)?;
    loop {
        if is_list(n) {
            let mut c = n.walk();
            let kids: Vec<Node> = n
                .named_children(&mut c)
                .filter(|k| !(n.kind() == "switch_case" && field_is(n, "value", *k)))
                .collect();
            let inside: Vec<Node> = kids
                .iter()
                .copied()
                .filter(|k| k.start_byte() >= s && k.end_byte() <= e + 1)
                .filter(|k| k.end_byte() <= e || with_semi(k.end_byte()))
                .collect();
            let partial = kids.iter().any(|k| {
                k.start_byte() < e && k.end_byte() > s && !inside.iter().any(|i| i.id() == k.id())
            });
            let first = inside.first()?;
            let last = inside.last()?;
            if partial
                || first.start_byte() != s
                || !with_semi(last.end_byte())
                || inside.iter().all(|k| k.kind() == "comment")
            {
                return None;
            }
            return Some(inside);
        }
        if let Some(p) = n.parent()
            && is_list(p)
            && n.start_byte() == s
            && with_semi(n.end_byte())
        {
            return Some(vec![n]);
        }
        if n.start_byte() < s {
            // Grown past the selection's start without meeting a list: the list's check
            // above decides whether it is whole statements.
            while !is_list(n) {
                n = n.parent()?;
            }
            continue;
        }
        n = n.parent()?;
    }
}

fn selected<'a>(tree: &'a Tree, text: &str, range: Range<usize>) -> Result<Selected<'a>, FkError> {
    if range.end <= text.len()
        && text.is_char_boundary(range.start)
        && text.is_char_boundary(range.end)
        && range.start < range.end
    {
        let sel = &text[range.clone()];
        let s = range.start + (sel.len() - sel.trim_start().len());
        let e = range.end - (sel.len() - sel.trim_end().len());
        if s < e
            && let Some(stmts) = statements_at(tree, text, s, e)
        {
            return Ok(Selected::Statements(stmts));
        }
    }
    expression_at(tree, text, range)
        .map(Selected::Expression)
        .map_err(|mut err| {
            err.message = err.message.replace(
                "is not one expression",
                "is neither whole statements nor one expression",
            );
            if err.hint.as_deref() == Some("select exactly one whole expression") {
                err.hint =
                    Some("select whole statements of one block, or one whole expression".into());
            }
            err
        })
}

/// Where the new function goes and what it may see.
struct Home<'a> {
    /// The node whose scope the new function sees: the program, or the class body.
    sees: Node<'a>,
    /// The class member the selection is in (extract_method).
    member: Option<Node<'a>>,
    /// Insert after this node.
    after: Node<'a>,
}

/// Whether `inner` is inside `outer` (or is it).
fn within(inner: Node, outer: Node) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

fn in_range(n: Node, r: &Range<usize>) -> bool {
    r.start <= n.start_byte() && n.end_byte() <= r.end
}

/// The nearest ancestor of `n` of one of `kinds` that is not inside `stop`'s range.
fn ancestor_of<'a>(n: Node<'a>, kinds: &[&str]) -> Option<Node<'a>> {
    let mut p = n.parent();
    while let Some(x) = p {
        if kinds.contains(&x.kind()) {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

/// Where to insert text after a node: at the end of its line when only white space or a line
/// comment follows it there.
fn after_node(text: &str, n: Node) -> usize {
    let mut end = n.end_byte();
    let rest = &text[end..];
    let rest_trim = rest.trim_start_matches([' ', '\t']);
    if rest_trim.starts_with(';') {
        end += rest.len() - rest_trim.len() + 1;
    }
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let tail = text[end..line_end].trim();
    if tail.is_empty() || tail.starts_with("//") {
        line_end
    } else {
        end
    }
}

/// A local the selection uses.
struct Local<'a> {
    name: String,
    scope: Node<'a>,
}

/// Whether a node is inside a function that starts inside the selection.
fn in_nested_function(n: Node, sel: &Range<usize>, kinds: &[&str]) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        if !in_range(x, sel) {
            return false;
        }
        if kinds.contains(&x.kind()) {
            return true;
        }
        p = x.parent();
    }
    false
}

/// Refuses `return`/`break`/`continue` that leave the selection, and `yield`; tells whether it
/// awaits.
/// What the selection's control flow asks of the call: whether it awaits, and whether it
/// returns (only at the end of its function's body, where the call can be `return`ed).
struct Flow {
    awaits: bool,
    returns: bool,
}

/// The function whose body the selection ends, when its last statement is the body's last.
fn ends_body<'a>(nodes: &[Node<'a>]) -> Option<Node<'a>> {
    let last = *nodes.last()?;
    let body = last.parent().filter(|b| b.kind() == "statement_block")?;
    let f = body.parent().filter(|f| FUNCTIONS.contains(&f.kind()))?;
    let mut next = last.next_named_sibling();
    while let Some(n) = next {
        if n.kind() != "comment" {
            return None;
        }
        next = n.next_named_sibling();
    }
    Some(f)
}

fn control_flow(text: &str, nodes: &[Node], sel: &Range<usize>) -> Result<Flow, FkError> {
    let mut awaits = false;
    let mut returns = false;
    let tail = ends_body(nodes).is_some();
    for n in nodes.iter().flat_map(|n| {
        let mut v = Vec::new();
        let mut stack = vec![*n];
        while let Some(x) = stack.pop() {
            v.push(x);
            let mut c = x.walk();
            stack.extend(x.children(&mut c));
        }
        v
    }) {
        let at = line(text, n.start_byte());
        match n.kind() {
            // At the end of the body, `return extracted(...)` returns what it returned, and
            // `undefined` where it ran to its end, as the body did.
            "return_statement" if !in_nested_function(n, sel, FUNCTIONS) && tail => returns = true,
            "return_statement" if !in_nested_function(n, sel, FUNCTIONS) => {
                return Err(invalid(
                    format!(
                        "the selection has `return` at line {at}: in the new function it would return from that function, not from the one around the selection"
                    ),
                    "select statements without a `return`, or the whole body up to it",
                ));
            }
            "yield_expression" if !in_nested_function(n, sel, OWN_THIS) => {
                return Err(invalid(
                    format!(
                        "the selection has `yield` at line {at}: a function cannot yield for the generator around it"
                    ),
                    "select statements without `yield`",
                ));
            }
            "await_expression" if !in_nested_function(n, sel, FUNCTIONS) => awaits = true,
            "for_in_statement"
                if !in_nested_function(n, sel, FUNCTIONS) && {
                    let mut c = n.walk();
                    n.children(&mut c).any(|x| x.kind() == "await")
                } =>
            {
                awaits = true
            }
            "break_statement" | "continue_statement" => {
                let word = if n.kind() == "break_statement" {
                    "break"
                } else {
                    "continue"
                };
                let target = match n.child_by_field_name("label") {
                    Some(l) => {
                        let label = &text[l.byte_range()];
                        let mut p = n.parent();
                        let mut found = None;
                        while let Some(x) = p {
                            if x.kind() == "labeled_statement"
                                && x.child_by_field_name("label")
                                    .is_some_and(|y| &text[y.byte_range()] == label)
                            {
                                found = Some(x);
                                break;
                            }
                            p = x.parent();
                        }
                        found
                    }
                    None => {
                        let kinds: &[&str] = if word == "break" {
                            &[
                                "for_statement",
                                "for_in_statement",
                                "while_statement",
                                "do_statement",
                                "switch_statement",
                            ]
                        } else {
                            LOOPS
                        };
                        ancestor_of(n, kinds)
                    }
                };
                if !target.is_some_and(|t| in_range(t, sel)) {
                    return Err(invalid(
                        format!(
                            "the selection has `{word}` at line {at}, which leaves it (its loop or switch is outside the selection)"
                        ),
                        "select the whole loop or switch, or statements without it",
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(Flow { awaits, returns })
}

/// The keyword that declares a name (`const`, `let`, `var`; `const` for a function or class).
fn declared_with(decl: Node) -> &'static str {
    let mut p = decl.parent();
    while let Some(x) = p {
        match x.kind() {
            "lexical_declaration" => {
                return if x.child(0).is_some_and(|k| k.kind() == "let") {
                    "let"
                } else {
                    "const"
                };
            }
            "variable_declaration" => return "var",
            k if FUNCTIONS.contains(&k) || k == "class_declaration" => return "const",
            _ => {}
        }
        p = x.parent();
    }
    "const"
}

/// Whether an identifier is part of a type (a parameter name of a function type, ...), not a
/// value the code reads; `typeof x` reads `x`.
fn in_type(n: Node) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        let k = x.kind();
        if k == "type_query" {
            return false;
        }
        if k.ends_with("_type")
            || matches!(
                k,
                "type_annotation"
                    | "type_arguments"
                    | "type_parameters"
                    | "type_alias_declaration"
                    | "interface_declaration"
                    | "type_predicate_annotation"
                    | "asserts_annotation"
                    | "implements_clause"
            )
        {
            return true;
        }
        if is_list(x) || k == "expression_statement" {
            return false;
        }
        p = x.parent();
    }
    false
}

/// A literal among the values an expression can take (a branch of `?:`, an operand of `||`,
/// `&&`, `??`), whose type TypeScript widens when a function returns it.
fn literal_at_top(n: Node) -> Option<Node> {
    match n.kind() {
        "number" | "string" | "true" | "false" => Some(n),
        "template_string" if n.named_child_count() == 0 => Some(n),
        "parenthesized_expression" => n.named_child(0).and_then(literal_at_top),
        "ternary_expression" => n
            .child_by_field_name("consequence")
            .and_then(literal_at_top)
            .or_else(|| {
                n.child_by_field_name("alternative")
                    .and_then(literal_at_top)
            }),
        "binary_expression"
            if n.child_by_field_name("operator")
                .is_some_and(|o| matches!(o.kind(), "||" | "&&" | "??")) =>
        {
            n.child_by_field_name("left")
                .and_then(literal_at_top)
                .or_else(|| n.child_by_field_name("right").and_then(literal_at_top))
        }
        _ => None,
    }
}

/// Whether an occurrence of a name before the selection tests or assigns it (a type checker
/// may narrow its type from there on).
fn tested(text: &str, o: Node) -> bool {
    let mut child = o;
    while let Some(p) = child.parent() {
        match p.kind() {
            "if_statement" | "while_statement" | "do_statement" | "for_statement"
                if field_is(p, "condition", child) =>
            {
                return true;
            }
            "ternary_expression" if field_is(p, "condition", child) => return true,
            "binary_expression"
                if field_is(p, "left", child)
                    && p.child_by_field_name("operator")
                        .is_some_and(|op| matches!(&text[op.byte_range()], "&&" | "||" | "??")) =>
            {
                return true;
            }
            "switch_statement" => return true,
            "assignment_expression" | "augmented_assignment_expression"
                if field_is(p, "left", child) =>
            {
                return true;
            }
            _ if is_list(p) => return false,
            _ => {}
        }
        child = p;
    }
    false
}

/// Where the new function goes: before the method the selection is in (extract_method,
/// refused outside a method or where `this` is another's), or after the top-level statement
/// that holds it.
fn home_of<'a>(
    text: &str,
    root: Node<'a>,
    nodes: &[Node<'a>],
    method: bool,
    name: &str,
    first_line: usize,
) -> Result<Home<'a>, FkError> {
    Ok(if method {
        let Some(body) = ancestor_of(nodes[0], &["class_body"]) else {
            return Err(invalid(
                format!("the selection at line {first_line} is not inside a class"),
                "use extract_function",
            ));
        };
        let mut member = nodes[0];
        while member.parent().is_some_and(|p| p.id() != body.id()) {
            member = member.parent().expect("inside the class body");
        }
        if !matches!(
            member.kind(),
            "method_definition" | "public_field_definition" | "field_definition"
        ) {
            return Err(invalid(
                format!(
                    "the selection at line {first_line} is in a {} of the class, not in a method",
                    member.kind().replace('_', " ")
                ),
                "select statements inside a method",
            ));
        }
        // The call is `this.name(...)`: inside a function with its own `this` (an object
        // literal's method, a `function` expression) that is not the class instance.
        let mut p = nodes[0].parent();
        while let Some(x) = p
            && x.id() != member.id()
        {
            if OWN_THIS.contains(&x.kind()) {
                return Err(invalid(
                    format!(
                        "the selection at line {first_line} is inside the function at line {}, which has its own `this`: the new method could not be called there as `this.{name}(...)`",
                        line(text, x.start_byte())
                    ),
                    "use extract_function, or select statements of the method itself",
                ));
            }
            p = x.parent();
        }
        Home {
            sees: body,
            member: Some(member),
            after: member,
        }
    } else {
        Home {
            sees: root,
            member: None,
            after: top_statement(*nodes.last().expect("a selection")),
        }
    })
}

/// Refuses a name the new function's place already has (the file's names for a function, the
/// class's members and `this.` uses for a method); for a method of a class that extends
/// another, the warning that a member of that name there would be overridden.
fn name_is_free(tree: &Tree, text: &str, name: &str, home: &Home) -> Result<Vec<String>, FkError> {
    let mut warnings = Vec::new();
    match &home.member {
        None => {
            if let Some(o) = occurrences(tree, text, name).first() {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{name}` is already declared or used at line {} of this file",
                        line(text, o.start_byte())
                    ),
                )
                .with_hint("choose a name the file does not use"));
            }
        }
        Some(_) => {
            let class = home.sees.parent().expect("a class body has a class");
            // A member of that name, or a use of one through `this`.
            if let Some(o) = all_nodes(tree).into_iter().find(|n| {
                within(*n, class)
                    && matches!(
                        n.kind(),
                        "property_identifier" | "private_property_identifier"
                    )
                    && &text[n.byte_range()] == name
                    && n.parent().is_some_and(|p| match p.kind() {
                        "member_expression" => p
                            .child_by_field_name("object")
                            .is_some_and(|o| o.kind() == "this"),
                        _ => field_is(p, "name", *n),
                    })
            }) {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{name}` is already a member or a name used at line {} of the class",
                        line(text, o.start_byte())
                    ),
                )
                .with_hint("choose a name the class does not use"));
            }
            let mut c = class.walk();
            if let Some(h) = class
                .named_children(&mut c)
                .find(|x| x.kind() == "class_heritage")
            {
                warnings.push(format!(
                    "the class {}: a member `{name}` there would be overridden",
                    quote(text, h)
                ));
            }
        }
    }
    Ok(warnings)
}

/// The new function's TS parameters as written: with their declared types (each type the
/// declaration gives, unless a test before the selection narrowed it; the type parameters it
/// uses join `generics`), and the parameters left untyped with the reason.
fn typed_parameters<'a>(
    tree: &'a Tree,
    text: &str,
    params: &[Local<'a>],
    by_name: &ByName<'a>,
    sel: &Range<usize>,
    sees: Node<'a>,
    generics: &mut Vec<Node<'a>>,
) -> (Vec<String>, Vec<Untyped>) {
    let mut untyped = Vec::new();
    let mut param_texts = Vec::new();
    for p in params {
        let (occ, scopes) = &by_name[&p.name];
        let same: Vec<Node> = occ
            .iter()
            .copied()
            .filter(|o| bound_from(scopes, *o, &p.name).map(|b| b.id()) == Some(p.scope.id()))
            .collect();
        let decl = same
            .iter()
            .copied()
            .find(|o| scopes.declaring_scope(*o).is_some());
        let ty = match decl {
            None => Err("its declaration was not found".to_string()),
            Some(d) => {
                // A test or an assignment before the selection may have narrowed it.
                let narrowed = same.iter().any(|o| {
                    o.start_byte() > d.start_byte()
                        && o.start_byte() < sel.start
                        && tested(text, *o)
                });
                declared_type(tree, text, d, &mut Place { sees, generics }, narrowed)
            }
        };
        match ty {
            Ok(t) => param_texts.push(format!("{}: {t}", p.name)),
            Err(why) => {
                untyped.push(Untyped::parameter(&p.name, why));
                param_texts.push(p.name.clone());
            }
        }
    }
    (param_texts, untyped)
}

/// The new function's type parameters as declared (`<T extends U>`) and as passed at the call
/// (`<T>`), from the type parameters of the functions around the selection that it uses.
fn type_parameters(text: &str, generics: &[Node]) -> (String, String) {
    if generics.is_empty() {
        return (String::new(), String::new());
    }
    let decl: Vec<&str> = generics.iter().map(|g| &text[g.byte_range()]).collect();
    let args: Vec<&str> = generics
        .iter()
        .map(|g| {
            g.child_by_field_name("name")
                .map_or("", |n| &text[n.byte_range()])
        })
        .collect();
    (
        format!("<{}>", decl.join(", ")),
        format!("<{}>", args.join(", ")),
    )
}

/// What replaces the selection: the call, with the statement that takes what it returns
/// (declared with the strongest keyword of the names it returns, or assigned when they are
/// the outer function's); for an expression, the call (parenthesized when awaited where an
/// operator would bind tighter).
fn call_in_place(
    selected: &Selected,
    call: String,
    returns: &[(String, Option<Node>, &'static str, Option<String>)],
    outer_returns: usize,
    returns_for_its_function: bool,
    is_async: bool,
    semi: &str,
) -> String {
    let names: Vec<&str> = returns.iter().map(|r| r.0.as_str()).collect();
    match selected {
        Selected::Statements(_) => {
            let kw = if returns.iter().any(|r| r.2 == "var") {
                "var"
            } else if returns.iter().any(|r| r.2 == "let") {
                "let"
            } else {
                "const"
            };
            match (names.len(), outer_returns > 0) {
                (0, _) if returns_for_its_function => format!("return {call}{semi}"),
                (0, _) => format!("{call}{semi}"),
                (1, false) => match &returns[0].3 {
                    Some(ty) => format!("{kw} {}: {ty} = {call}{semi}", names[0]),
                    None => format!("{kw} {} = {call}{semi}", names[0]),
                },
                (1, true) => format!("{} = {call}{semi}", names[0]),
                (_, false) => format!("{kw} {{ {} }} = {call}{semi}", names.join(", ")),
                (_, true) => format!("({{ {} }} = {call}){semi}", names.join(", ")),
            }
        }
        Selected::Expression(e) => {
            let plain = e.parent().is_some_and(|p| {
                matches!(
                    p.kind(),
                    "expression_statement"
                        | "variable_declarator"
                        | "return_statement"
                        | "arguments"
                        | "parenthesized_expression"
                        | "array"
                        | "pair"
                        | "template_substitution"
                        | "arrow_function"
                        | "assignment_expression"
                )
            });
            if is_async && !plain {
                format!("({call})")
            } else {
                call
            }
        }
    }
}

/// Refuses a selection of a constructor (extract_method) that holds or runs before its
/// `super(...)` call, or, in TS, sets a field: both must stay in the constructor.
fn constructor_keeps_its_start(
    tree: &Tree,
    text: &str,
    home: &Home,
    nodes: &[Node],
    sel: &Range<usize>,
    typed: bool,
) -> Result<(), FkError> {
    if let Some(m) = home.member
        && m.child_by_field_name("name")
            .is_some_and(|n| &text[n.byte_range()] == "constructor")
    {
        let super_call = all_nodes(tree).into_iter().find(|n| {
            within(*n, m)
                && n.kind() == "call_expression"
                && n.child_by_field_name("function")
                    .is_some_and(|f| f.kind() == "super")
        });
        if let Some(c) = super_call
            && c.start_byte() >= sel.start
        {
            return Err(invalid(
                format!(
                    "the selection {} `super(...)` of the constructor (line {}): a method cannot be called before it, and it must stay in the constructor",
                    if in_range(c, sel) {
                        "has"
                    } else {
                        "runs before"
                    },
                    line(text, c.start_byte())
                ),
                "select statements after the `super(...)` call",
            ));
        }
        if typed
            && let Some(a) = nodes
                .iter()
                .flat_map(|n| {
                    let mut v = Vec::new();
                    let mut st = vec![*n];
                    while let Some(x) = st.pop() {
                        v.push(x);
                        let mut c = x.walk();
                        st.extend(x.named_children(&mut c));
                    }
                    v
                })
                .find(|x| {
                    x.kind() == "assignment_expression"
                        && x.child_by_field_name("left").is_some_and(|l| {
                            l.kind() == "member_expression"
                                && l.child_by_field_name("object")
                                    .is_some_and(|o| o.kind() == "this")
                        })
                })
        {
            return Err(invalid(
                format!(
                    "the selection sets `{}` in the constructor (line {}): TypeScript checks that fields are set (and read-only ones only set) in the constructor itself",
                    quote(text, a.child_by_field_name("left").expect("checked")),
                    line(text, a.start_byte())
                ),
                "select statements that do not set fields",
            ));
        }
    }
    Ok(())
}

/// The types the new function states, in TS: the type parameters of the functions around
/// the selection that it uses (sorted later) and, returning for its function, that
/// function's declared return type. Refused when a type it uses is declared where the new
/// function cannot see it, or when the function it returns for takes its return type from
/// where it is passed.
fn types_it_states<'a>(
    tree: &'a Tree,
    text: &str,
    nodes: &[Node<'a>],
    sel: &Range<usize>,
    sees: Node<'a>,
    outer_fn: Option<Node<'a>>,
    typed: bool,
) -> Result<(Vec<Node<'a>>, Option<String>), FkError> {
    let mut generics: Vec<Node> = Vec::new();
    // Returning for its function, it returns that function's declared type (a literal it
    // returns would otherwise be widened).
    let mut return_type = None;
    if typed
        && let Some(f) = outer_fn
        && f.child_by_field_name("return_type").is_none()
        && matches!(
            f.kind(),
            "arrow_function" | "function_expression" | "function"
        )
    {
        return Err(invalid(
            format!(
                "the selection returns for the function at line {}, whose return type comes from where it is passed: the new function would infer its own",
                line(text, f.start_byte())
            ),
            "give that function a return type first, or select statements without a `return`",
        ));
    }
    if typed && let Some(ann) = outer_fn.and_then(|f| f.child_by_field_name("return_type")) {
        if let Err((nm, at)) = type_names(
            tree,
            text,
            ann,
            &mut Place {
                sees,
                generics: &mut generics,
            },
            sel,
        ) {
            return Err(invalid(
                format!(
                    "the function's return type uses `{nm}`, declared at line {at} where the new function cannot see it"
                ),
                "select statements without a `return`",
            ));
        }
        return_type = Some(
            text[ann.byte_range()]
                .trim_start_matches(':')
                .trim()
                .to_string(),
        );
    }
    if typed {
        for n in nodes {
            if let Err((nm, at)) = type_names(
                tree,
                text,
                *n,
                &mut Place {
                    sees,
                    generics: &mut generics,
                },
                sel,
            ) {
                return Err(invalid(
                    format!(
                        "the selection uses the type `{nm}`, declared at line {at} where the new function cannot see it"
                    ),
                    "move the type to module level first, or select statements that do not use it",
                ));
            }
        }
    }
    Ok((generics, return_type))
}

/// Every name in the selection: references, the names its patterns declare or assign
/// (`const { a } = o`, `({ a } = o)`), and `this` and its kin.
fn names_in<'a>(nodes: &[Node<'a>]) -> Vec<Node<'a>> {
    let mut refs = Vec::new();
    for n in nodes {
        let mut stack = vec![*n];
        while let Some(x) = stack.pop() {
            if matches!(
                x.kind(),
                "identifier"
                    | "shorthand_property_identifier"
                    | "shorthand_property_identifier_pattern"
                    | "this"
                    | "super"
                    | "meta_property"
            ) {
                refs.push(x);
                continue;
            }
            let mut c = x.walk();
            let ch: Vec<Node> = x.named_children(&mut c).collect();
            stack.extend(ch.into_iter().rev());
        }
    }
    refs
}

/// Refuses `this`, `super`, `new.target` or `arguments` of the function around the selection
/// where the new function would have its own: anywhere for a function at module level, and
/// for a method, all but the method's own `this` and `super`.
fn this_stays_the_same(
    tree: &Tree,
    text: &str,
    refs: &[Node],
    sel: &Range<usize>,
    home: &Home,
) -> Result<(), FkError> {
    for r in refs {
        let rn = &text[r.byte_range()];
        let kin = matches!(r.kind(), "this" | "super" | "meta_property")
            || (rn == "arguments" && r.kind() == "identifier" && {
                let occ = occurrences(tree, text, rn);
                bound_from(&scopes_for(tree, text, &occ), *r, rn).is_none()
            });
        if !kin {
            continue;
        }
        let owner = {
            let mut p = r.parent();
            let mut found = None;
            while let Some(x) = p {
                if OWN_THIS.contains(&x.kind()) || x.kind() == "class_body" {
                    found = Some(x);
                    break;
                }
                p = x.parent();
            }
            found
        };
        if owner.is_some_and(|o| in_range(o, sel)) {
            continue; // a function of the selection's own
        }
        let at = line(text, r.start_byte());
        let word = if r.kind() == "meta_property" {
            "new.target"
        } else {
            rn
        };
        match (&home.member, owner) {
            (None, _) => {
                return Err(invalid(
                    format!(
                        "the selection uses `{word}` at line {at}: a function at module level would have its own"
                    ),
                    if word == "this" || word == "super" {
                        "use extract_method"
                    } else {
                        "select statements that do not use it"
                    },
                ));
            }
            (Some(m), Some(o))
                if (o.id() == m.id() || o.id() == home.sees.id())
                    && matches!(word, "this" | "super") => {}
            (Some(_), _) => {
                return Err(invalid(
                    format!(
                        "the selection uses `{word}` at line {at}, which is not the method's: a new method would have its own"
                    ),
                    "select statements that do not use it",
                ));
            }
        }
    }
    Ok(())
}

/// A name the selection sets that is used after it: (name, the outer scope when the
/// selection assigns a local of it, the keyword that declares it, its declared type).
type Returned<'a> = (String, Option<Node<'a>>, &'static str, Option<String>);

/// Each name's occurrences in the file and the scopes they make.
type ByName<'a> = HashMap<String, (Vec<Node<'a>>, Scopes<'a>)>;

/// The names of the selection bound outside it: the new function's parameters (each with
/// the scope that binds it) and what it returns (what the selection sets that is read after
/// it), with the occurrences and scopes of each name. Refused where passing a name in or out
/// would change what the code does (a name set before it that a nested function reads, a
/// declaration without a value, an expression that assigns, ...).
// Over 200 lines: one pass over the selection's names, each name's checks on the occurrences
// and scopes that pass found for it (a split would find them again or pass them all).
fn locals<'a>(
    tree: &'a Tree,
    text: &'a str,
    refs: &[Node<'a>],
    sel: &Range<usize>,
    selected: &Selected<'a>,
    home: &Home<'a>,
    typed: bool,
) -> Result<(ByName<'a>, Vec<Local<'a>>, Vec<Returned<'a>>), FkError> {
    let mut by_name: ByName<'a> = HashMap::new();
    let mut params: Vec<Local<'a>> = Vec::new();
    // (name, outer scope when it is assigned, keyword, declared type)
    let mut returns: Vec<Returned<'a>> = Vec::new();
    for r in refs {
        if !matches!(
            r.kind(),
            "identifier"
                | "shorthand_property_identifier"
                | "shorthand_property_identifier_pattern"
        ) || in_type(*r)
        {
            continue;
        }
        let nm = text[r.byte_range()].to_string();
        let (occ, scopes) = by_name.entry(nm.clone()).or_insert_with(|| {
            let occ = occurrences(tree, text, &nm);
            let scopes = scopes_for(tree, text, &occ);
            (occ, scopes)
        });
        let Some(scope) = bound_from(scopes, *r, &nm) else {
            continue; // a global
        };
        if in_range(scope, sel) {
            continue; // declared and used inside
        }
        let decls: Vec<usize> = scopes
            .decls
            .get(&(scope.id(), nm.clone()))
            .cloned()
            .unwrap_or_default();
        let same: Vec<Node> = occ
            .iter()
            .copied()
            .filter(|o| bound_from(scopes, *o, &nm).map(|b| b.id()) == Some(scope.id()))
            .collect();
        let outside: Vec<Node> = same
            .iter()
            .copied()
            .filter(|o| !in_range(*o, sel))
            .collect();
        let declared_inside =
            !decls.is_empty() && decls.iter().all(|d| sel.start <= *d && *d < sel.end);
        if declared_inside {
            if let Some(o) = outside.iter().find(|o| o.start_byte() < sel.start) {
                return Err(invalid(
                    format!(
                        "`{nm}` is declared in the selection but used before it, at line {}",
                        line(text, o.start_byte())
                    ),
                    "select from before its first use",
                ));
            }
            // `f.x = ...` on a function's `const`: TypeScript allows it only on the
            // declaration that has the function.
            let function_init = same
                .iter()
                .find(|o| decls.contains(&o.start_byte()))
                .and_then(|d| d.parent())
                .filter(|h| h.kind() == "variable_declarator")
                .and_then(|h| h.child_by_field_name("value"))
                .is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                });
            if typed
                && function_init
                && let Some(o) = outside.iter().find(|o| {
                    o.parent().is_some_and(|m| {
                        m.kind() == "member_expression"
                            && field_is(m, "object", **o)
                            && m.parent().is_some_and(|a| {
                                a.kind() == "assignment_expression" && field_is(a, "left", m)
                            })
                    })
                })
            {
                return Err(invalid(
                    format!(
                        "`{nm}` is declared in the selection and gets a property assigned after it (line {}), which TypeScript allows only on the declaration of a function",
                        line(text, o.start_byte())
                    ),
                    "select the property assignments too",
                ));
            }
            if !outside.is_empty() && !returns.iter().any(|r| r.0 == nm) {
                let decl = same
                    .iter()
                    .copied()
                    .find(|o| decls.contains(&o.start_byte()))
                    .expect("a declaration");
                let declarator = decl
                    .parent()
                    .filter(|h| h.kind() == "variable_declarator" && field_is(*h, "name", decl));
                if let Some(d) = declarator
                    && d.child_by_field_name("value").is_none()
                    && assigned_at(
                        &same
                            .iter()
                            .copied()
                            .filter(|o| in_range(*o, sel))
                            .collect::<Vec<_>>(),
                    )
                    .is_none()
                {
                    return Err(invalid(
                        format!(
                            "`{nm}` is declared without a value in the selection (line {}) and used after it: the new function would return it unassigned",
                            line(text, decl.start_byte())
                        ),
                        "select its first assignment too, or leave its declaration out",
                    ));
                }
                // A `const` keeps a literal's own type (`0`); returned from a function it
                // is widened (`number`), and a test of it no longer narrows.
                if typed
                    && declared_with(decl) == "const"
                    && let Some(d) = declarator
                    && d.child_by_field_name("type").is_none()
                    && let Some(lit) = d.child_by_field_name("value").and_then(literal_at_top)
                {
                    return Err(invalid(
                        format!(
                            "`{nm}` is declared in the selection with the literal `{}` (line {}) among its values: returned, its type would widen",
                            quote(text, lit),
                            line(text, lit.start_byte())
                        ),
                        "give it a type annotation first, or select the statements that use it too",
                    ));
                }
                let ty = declarator
                    .and_then(|d| d.child_by_field_name("type"))
                    .map(|t| {
                        text[t.byte_range()]
                            .trim_start_matches(':')
                            .trim()
                            .to_string()
                    });
                returns.push((nm.clone(), None, declared_with(decl), ty));
            }
            continue;
        }
        if within(home.sees, scope) {
            continue; // the new place sees it
        }
        let inside: Vec<Node> = same.iter().copied().filter(|o| in_range(*o, sel)).collect();
        // A function made in the selection that uses it keeps the parameter, a copy: it would
        // neither see the local assigned later nor assign the local itself.
        if let Some(o) = inside
            .iter()
            .find(|o| in_nested_function(**o, sel, FUNCTIONS))
            && let Some(a) = assigned_at(&same)
        {
            return Err(invalid(
                format!(
                    "`{nm}` is used by a function made in the selection (line {}) and assigned at line {}: passed in, that function would have a copy of it",
                    line(text, o.start_byte()),
                    line(text, a.start_byte())
                ),
                "select the statements that assign it too, or leave that function out",
            ));
        }
        if let Some(a) = assigned_at(&inside) {
            if matches!(selected, Selected::Expression(_)) {
                return Err(invalid(
                    format!(
                        "the expression assigns `{nm}` (line {}), a local the new function could only change a copy of",
                        line(text, a.start_byte())
                    ),
                    "select the whole statement instead",
                ));
            }
            // Passed in, it is read at the call: one declared without a value may not be
            // assigned yet there, which the selection itself never reads.
            let read_inside = inside.iter().any(|o| {
                assigned_at(&[*o]).is_none()
                    || o.parent().is_some_and(|p| {
                        matches!(
                            p.kind(),
                            "augmented_assignment_expression" | "update_expression"
                        )
                    })
            });
            let unset = same.iter().any(|o| {
                o.parent().is_some_and(|d| {
                    d.kind() == "variable_declarator"
                        && field_is(d, "name", *o)
                        && d.child_by_field_name("value").is_none()
                })
            });
            if unset && !read_inside {
                return Err(invalid(
                    format!(
                        "the selection assigns `{nm}` (line {}), declared without a value outside it: passed in, it would be read before it may be assigned",
                        line(text, a.start_byte())
                    ),
                    "select its declaration too, or give it a value where it is declared",
                ));
            }
            if !outside.is_empty() && !returns.iter().any(|r| r.0 == nm) {
                returns.push((nm.clone(), Some(scope), "let", None));
            }
        }
        if !params.iter().any(|p| p.name == nm) {
            params.push(Local { name: nm, scope });
        }
    }
    Ok((by_name, params, returns))
}

/// Extracts the statements or the expression `range` covers into a function named `name`:
/// with `method`, a method of the enclosing class; otherwise a function at module level.
// Over 200 lines: the steps in order, each a named function or one check worded for the
// selection; the new function's text and its call are rendered here from the dozen values
// those steps computed, which a further split would only pass around.
pub fn extract_function(
    lang: Lang,
    text: &str,
    range: Range<usize>,
    name: &str,
    method: bool,
) -> Result<ExtractedFunction, FkError> {
    check_identifier(name)?;
    let tree = parse_clean(lang, text)?;
    let root = tree.root_node();
    let selected = selected(&tree, text, range)?;
    let sel = selected.range();
    let nodes: Vec<Node> = match &selected {
        Selected::Statements(s) => s.clone(),
        Selected::Expression(e) => vec![*e],
    };
    let first_line = line(text, sel.start);
    let typed = matches!(lang, Lang::TypeScript | Lang::Tsx);
    for n in &nodes {
        if matches!(n.kind(), "import_statement" | "export_statement") {
            return Err(invalid(
                format!(
                    "the selection has an `{}` at line {}, which must stay at module level",
                    if n.kind() == "import_statement" {
                        "import"
                    } else {
                        "export"
                    },
                    line(text, n.start_byte())
                ),
                "select statements without imports or exports",
            ));
        }
    }
    let flow = control_flow(text, &nodes, &sel)?;
    let mut is_async = flow.awaits;
    // Returning for its function, the new one returns what that one does: as a promise when
    // that one is async; not for a generator, whose `return` ends its iteration.
    let outer_fn = if flow.returns {
        ends_body(&nodes)
    } else {
        None
    };
    if let Some(f) = outer_fn {
        let mut c = f.walk();
        let kids: Vec<Node> = f.children(&mut c).collect();
        if kids.iter().any(|k| k.kind() == "*") || f.kind().starts_with("generator") {
            return Err(invalid(
                format!(
                    "the selection has `return` in a generator (line {}): a function cannot return for it",
                    line(text, f.start_byte())
                ),
                "select statements without a `return`",
            ));
        }
        if kids.iter().any(|k| k.kind() == "async") {
            is_async = true;
        }
    }

    let home = home_of(text, root, &nodes, method, name, first_line)?;

    let refs = names_in(&nodes);
    this_stays_the_same(&tree, text, &refs, &sel, &home)?;

    let (by_name, params, returns) = locals(&tree, text, &refs, &sel, &selected, &home, typed)?;
    let outer_returns = returns.iter().filter(|r| r.1.is_some()).count();
    if outer_returns > 0 && outer_returns < returns.len() {
        let (a, b) = (
            returns.iter().find(|r| r.1.is_some()).expect("one"),
            returns.iter().find(|r| r.1.is_none()).expect("one"),
        );
        return Err(invalid(
            format!(
                "the selection declares `{}` and assigns `{}`, both used after it: one call cannot both declare and assign",
                b.0, a.0
            ),
            "select the declaration and the assignment apart",
        ));
    }

    if returns.len() > 1
        && let Some(r) = returns.iter().find(|r| r.3.is_some() && r.2 != "const")
    {
        return Err(invalid(
            format!(
                "the selection declares `{}` with a type and other names used after it: destructured from one result, its type would be narrowed to the value it has there",
                r.0
            ),
            "select fewer statements, so that one name is used after them",
        ));
    }

    constructor_keeps_its_start(&tree, text, &home, &nodes, &sel, typed)?;

    if flow.returns && !returns.is_empty() {
        return Err(invalid(
            format!(
                "the selection returns for its function and `{}` it sets is used outside it too",
                returns[0].0
            ),
            "select statements without a `return`",
        ));
    }

    let (mut generics, return_type) =
        types_it_states(&tree, text, &nodes, &sel, home.sees, outer_fn, typed)?;

    let warnings = name_is_free(&tree, text, name, &home)?;

    let (param_texts, untyped) = if typed {
        typed_parameters(
            &tree,
            text,
            &params,
            &by_name,
            &sel,
            home.sees,
            &mut generics,
        )
    } else {
        (params.iter().map(|p| p.name.clone()).collect(), Vec::new())
    };

    // The new function.
    let semi = if uses_semicolons(tree.root_node(), text) {
        ";"
    } else {
        ""
    };
    let unit = indent_unit(text, "  ");
    // Lines inside a multi-line template string are the string's: they stay as they are.
    let reindent = |range: Range<usize>, indent: &str| {
        let strings = multiline_strings(&tree, text, &range, "template_string");
        reindent_range(text, range, indent, &strings)
    };
    let outer_indent = match home.member {
        Some(m) => line_head(text, m.start_byte()).1.to_string(),
        None => String::new(),
    };
    let body_indent = format!("{outer_indent}{unit}");
    let mut body = match &selected {
        Selected::Statements(_) => reindent(sel.clone(), &body_indent),
        Selected::Expression(e) => {
            let mut t = reindent(e.byte_range(), &body_indent);
            let expr_start = body_indent.len();
            t.insert_str(expr_start, "return ");
            if e.kind() == "sequence_expression" {
                t.insert(expr_start + "return ".len(), '(');
                t.push(')');
            }
            t.push_str(semi);
            t
        }
    };
    let names: Vec<String> = returns.iter().map(|r| r.0.clone()).collect();
    match names.len() {
        0 => {}
        1 => body.push_str(&format!("\n{body_indent}return {}{semi}", names[0])),
        _ => body.push_str(&format!(
            "\n{body_indent}return {{ {} }}{semi}",
            names.join(", ")
        )),
    }
    let asyncness = if is_async { "async " } else { "" };
    // Ending in `throw`, the selection ended its function there: the compiler knows a call
    // stops there too only when the function says it never returns.
    let never = typed
        && !is_async
        && !flow.returns
        && names.is_empty()
        && matches!(&selected, Selected::Statements(s) if s.last().is_some_and(|l| l.kind() == "throw_statement"));
    let annotation = match (&return_type, never) {
        (Some(t), _) => format!(": {t}"),
        (None, true) => ": never".to_string(),
        (None, false) => String::new(),
    };
    let params_text = format!("{}){annotation}", param_texts.join(", "));
    generics.sort_by_key(|g| g.start_byte());
    let (type_params, type_args) = type_parameters(text, &generics);
    let decl = match home.member {
        Some(m) => {
            let is_static = {
                let mut c = m.walk();
                m.children(&mut c).any(|x| x.kind() == "static")
            };
            // A class that `implements` another class's type must match its private members:
            // a new private one would break that, a public one does not.
            let implements = home.sees.parent().is_some_and(|class| {
                let mut c = class.walk();
                class
                    .named_children(&mut c)
                    .filter(|h| h.kind() == "class_heritage")
                    .any(|h| text[h.byte_range()].contains("implements"))
            });
            let private = if typed && !implements { "private " } else { "" };
            let stat = if is_static { "static " } else { "" };
            format!(
                "\n\n{outer_indent}{private}{stat}{asyncness}{name}{type_params}({params_text} {{\n{body}\n{outer_indent}}}"
            )
        }
        None => {
            format!("\n\n{asyncness}function {name}{type_params}({params_text} {{\n{body}\n}}")
        }
    };

    // The call.
    let args = params
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let callee = if home.member.is_some() {
        format!("this.{name}")
    } else {
        name.to_string()
    };
    let awaited = if is_async { "await " } else { "" };
    let call = format!("{awaited}{callee}{type_args}({args})");
    let replacement = call_in_place(
        &selected,
        call,
        &returns,
        outer_returns,
        flow.returns,
        is_async,
        semi,
    );
    let at = after_node(text, home.after);
    let splices = vec![
        Splice::new(sel.start, sel.end, replacement),
        Splice::insert(at, decl),
    ];
    Ok(ExtractedFunction {
        splices: to_splices(text, splices)?,
        params: params.into_iter().map(|p| p.name).collect(),
        returns: names,
        untyped,
        is_async,
        warnings,
        class: match home.member {
            Some(_) if typed => home
                .sees
                .parent()
                .and_then(|c| c.child_by_field_name("name"))
                .map(|n| text[n.byte_range()].to_string()),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(src: &str, what: &str) -> Range<usize> {
        let s = src.find(what).expect("selection in source");
        s..s + what.len()
    }

    fn fun(lang: Lang, src: &str, what: &str, method: bool) -> Result<String, FkError> {
        extract_function(lang, src, sel(src, what), "extracted", method)
            .map(|x| x.splices.apply(src).unwrap())
    }

    fn ts(src: &str, what: &str) -> Result<String, FkError> {
        fun(Lang::TypeScript, src, what, false)
    }

    #[test]
    fn statements_become_a_function_with_parameters_and_a_result() {
        let src = "export function total(items: number[], rate: number) {\n  let sum = 0;\n  for (const i of items) {\n    sum += i;\n  }\n  const taxed = sum * rate;\n  return taxed;\n}\n";
        let out = extract_function(
            Lang::TypeScript,
            src,
            sel(src, "let sum = 0;\n  for (const i of items) {\n    sum += i;\n  }\n  const taxed = sum * rate;"),
            "computeTaxed",
            false,
        )
        .unwrap();
        assert_eq!(out.params, ["items", "rate"]);
        assert_eq!(out.returns, ["taxed"]);
        assert!(out.untyped.is_empty(), "{:?}", out.untyped);
        assert_eq!(
            out.splices.apply(src).unwrap(),
            "export function total(items: number[], rate: number) {\n  const taxed = computeTaxed(items, rate);\n  return taxed;\n}\n\nfunction computeTaxed(items: number[], rate: number) {\n  let sum = 0;\n  for (const i of items) {\n    sum += i;\n  }\n  const taxed = sum * rate;\n  return taxed;\n}\n"
        );
    }

    #[test]
    fn several_results_are_an_object_destructured() {
        let src = "function f(n: number) {\n  const a = n + 1;\n  let b = n * 2;\n  b++;\n  console.log(a, b);\n}\n";
        assert_eq!(
            ts(src, "const a = n + 1;\n  let b = n * 2;").unwrap(),
            "function f(n: number) {\n  let { a, b } = extracted(n);\n  b++;\n  console.log(a, b);\n}\n\nfunction extracted(n: number) {\n  const a = n + 1;\n  let b = n * 2;\n  return { a, b };\n}\n"
        );
    }

    #[test]
    fn an_assigned_local_is_passed_and_assigned_back() {
        let src = "function f(xs: number[]) {\n  let max = 0;\n  for (const x of xs) {\n    if (x > max) {\n      max = x;\n    }\n  }\n  return max;\n}\n";
        assert_eq!(
            ts(src, "if (x > max) {\n      max = x;\n    }").unwrap(),
            "function f(xs: number[]) {\n  let max = 0;\n  for (const x of xs) {\n    max = extracted(x, max);\n  }\n  return max;\n}\n\nfunction extracted(x: number, max: number) {\n  if (x > max) {\n    max = x;\n  }\n  return max;\n}\n"
        );
        // An element of an iterable whose element type is not written: left untyped, named.
        let src = src.replace("number[]", "Iterable<number>");
        let out = extract_function(
            Lang::TypeScript,
            &src,
            sel(&src, "if (x > max) {\n      max = x;\n    }"),
            "e",
            false,
        )
        .unwrap();
        assert_eq!(out.untyped.len(), 1, "{:?}", out.untyped);
        assert_eq!(out.untyped[0].name, "x", "{:?}", out.untyped);
    }

    /// The signature of the function extracted from `what`, and its untyped parameters.
    fn signature(src: &str, what: &str) -> (String, Vec<Untyped>) {
        let x = extract_function(Lang::TypeScript, src, sel(src, what), "extracted", false)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let out = x.splices.apply(src).unwrap();
        let at = out.find("function extracted").expect("the new function");
        let sig = out[at..].lines().next().unwrap().to_string();
        (sig, x.untyped)
    }

    #[test]
    fn parameters_get_the_type_their_declaration_makes_evident() {
        for (src, what, expected) in [
            (
                "class Box<T> {\n  constructor(public v: T) {}\n}\nfunction f<T>(v: T) {\n  const b = new Box<T>(v);\n  g(b);\n}\n",
                "g(b);",
                "function extracted<T>(b: Box<T>) {",
            ),
            (
                "class Plain {}\nfunction f() {\n  const p = new Plain();\n  g(p);\n}\n",
                "g(p);",
                "function extracted(p: Plain) {",
            ),
            (
                "function f() {\n  const e = new Error('x');\n  g(e);\n}\n",
                "g(e);",
                "function extracted(e: Error) {",
            ),
            (
                "function f() {\n  const k = 'a';\n  let s = 'b';\n  const n = -1;\n  let on = true;\n  var big = 10n;\n  g(k, s, n, on, big);\n}\n",
                "g(k, s, n, on, big);",
                "function extracted(k: 'a', s: string, n: -1, on: boolean, big: bigint) {",
            ),
            (
                "interface Options {\n  a: number;\n}\nfunction f(u: unknown) {\n  const o = u as unknown as Options;\n  const p = <Options>u;\n  g(o, p);\n}\n",
                "g(o, p);",
                "function extracted(o: Options, p: Options) {",
            ),
            (
                "interface Options {\n  a: number;\n}\nfunction load(): Options {\n  return { a: 1 };\n}\nfunction f() {\n  const o = load();\n  g(o);\n}\n",
                "g(o);",
                "function extracted(o: Options) {",
            ),
            (
                "interface Options {\n  a: number;\n}\nasync function load(): Promise<Options> {\n  return { a: 1 };\n}\nasync function f() {\n  const o = await load();\n  g(o);\n}\n",
                "g(o);",
                "function extracted(o: Options) {",
            ),
            (
                "interface P {\n  a: string;\n  b: { c: number };\n  d?: number;\n}\nfunction f({ a, b: { c }, d = 1 }: P) {\n  g(a, c, d);\n}\n",
                "g(a, c, d);",
                "function extracted(a: P['a'], c: P['b']['c'], d: Exclude<P['d'], undefined>) {",
            ),
            (
                "interface P {\n  a: string;\n}\nfunction f(p: P) {\n  const { a: renamed } = p;\n  g(renamed);\n}\n",
                "g(renamed);",
                "function extracted(renamed: P['a']) {",
            ),
            (
                "interface Item {\n  n: number;\n}\nfunction f(xs: readonly Item[], ys: Array<Item>) {\n  for (const x of xs) {\n    for (const y of ys) {\n      g(x, y);\n    }\n  }\n}\n",
                "g(x, y);",
                "function extracted(x: Item, y: Item) {",
            ),
            (
                "function f(n = 3, ...rest: number[]) {\n  g(n, rest);\n}\n",
                "g(n, rest);",
                "function extracted(n: number, rest: number[]) {",
            ),
        ] {
            let (sig, untyped) = signature(src, what);
            assert_eq!(sig, expected, "{src}");
            assert!(untyped.is_empty(), "{src}: {untyped:?}");
        }
    }

    #[test]
    fn a_type_that_cannot_be_known_is_left_out_with_the_reason() {
        for (src, what, name, why) in [
            // Found on rxjs: a callback's parameter, typed by where the callback is passed.
            (
                "import { Observable } from './Observable';\nexport function tap<T>(source: Observable<T>): Observable<T> {\n  return new Observable<T>((subscriber) => {\n    source.subscribe(subscriber);\n  });\n}\n",
                "source.subscribe(subscriber);",
                "subscriber",
                "a parameter of the function at line 3, which takes its type from where that function is passed",
            ),
            (
                "function f(xs: number[]) {\n  xs.forEach(x => {\n    g(x);\n  });\n}\n",
                "g(x);",
                "x",
                "takes its type from where that function is passed",
            ),
            (
                "function f() {\n  const m = new Map();\n  g(m);\n}\n",
                "g(m);",
                "m",
                "infers the type arguments of `Map`",
            ),
            (
                "import { Subject } from './Subject';\nfunction f() {\n  const s = new Subject();\n  g(s);\n}\n",
                "g(s);",
                "s",
                "infers the type arguments of `Subject`",
            ),
            (
                "function f() {\n  class Local {}\n  const l = new Local();\n  g(l);\n}\n",
                "g(l);",
                "l",
                "declared at line 2 where the new function cannot see it",
            ),
            (
                "const K = pick();\nfunction f() {\n  const k = new K();\n  g(k);\n}\n",
                "g(k);",
                "k",
                "not declared as a class",
            ),
            (
                "function f() {\n  const o = { a: 1 } as const;\n  g(o);\n}\n",
                "g(o);",
                "o",
                "`as const`",
            ),
            (
                "function f() {\n  const r = compute();\n  g(r);\n}\n",
                "g(r);",
                "r",
                "return type is not stated here",
            ),
            (
                "function id<T>(v: T): T {\n  return v;\n}\nfunction f() {\n  const r = id(1);\n  g(r);\n}\n",
                "g(r);",
                "r",
                "return type is not stated here",
            ),
            (
                "function f() {\n  try {\n    h();\n  } catch (e) {\n    g(e);\n  }\n}\n",
                "g(e);",
                "e",
                "the error of a `catch`",
            ),
            (
                "function f(ps: [number, string]) {\n  const [a] = ps;\n  g(a);\n}\n",
                "g(a);",
                "a",
                "destructured from an array",
            ),
            (
                "function f(o: { a?: { b: number } }) {\n  const { a: { b } = { b: 1 } } = o;\n  g(b);\n}\n",
                "g(b);",
                "b",
                "with a default",
            ),
            (
                "interface P {\n  a: string;\n}\nfunction f(p: P | undefined) {\n  if (!p) {\n    return;\n  }\n  const { a } = p;\n  g(a);\n}\n",
                "g(a);",
                "a",
                "whose type is not known",
            ),
        ] {
            let (_, untyped) = signature(src, what);
            let u = untyped
                .iter()
                .find(|u| u.name == name)
                .unwrap_or_else(|| panic!("{src}: `{name}` typed: {untyped:?}"));
            assert!(u.why.contains(why), "{src}: {}", u.why);
        }
        // The reported case: the declared parameter keeps its type, the callback's is named.
        let src = "import { Observable } from './Observable';\nexport function tap<T>(source: Observable<T>): Observable<T> {\n  return new Observable<T>((subscriber) => {\n    source.subscribe(subscriber);\n  });\n}\n";
        let (sig, untyped) = signature(src, "source.subscribe(subscriber);");
        assert_eq!(
            sig,
            "function extracted<T>(source: Observable<T>, subscriber) {"
        );
        assert_eq!(untyped.len(), 1, "{untyped:?}");
    }

    #[test]
    fn an_expression_becomes_a_returned_value() {
        let src = "const k = 3;\nfunction f(a: number, b: number) {\n  return g(a * b + k);\n}\n";
        assert_eq!(
            ts(src, "a * b + k").unwrap(),
            "const k = 3;\nfunction f(a: number, b: number) {\n  return g(extracted(a, b));\n}\n\nfunction extracted(a: number, b: number) {\n  return a * b + k;\n}\n"
        );
    }

    #[test]
    fn await_makes_it_async_and_the_call_awaited() {
        let src = "async function f(url: string) {\n  const r = await fetch(url);\n  return r.json();\n}\n";
        assert_eq!(
            ts(src, "const r = await fetch(url);").unwrap(),
            "async function f(url: string) {\n  const r = await extracted(url);\n  return r.json();\n}\n\nasync function extracted(url: string) {\n  const r = await fetch(url);\n  return r;\n}\n"
        );
    }

    #[test]
    fn a_method_uses_this_and_is_called_through_it() {
        let src = "class Cart {\n  items: number[] = [];\n  total(rate: number) {\n    const sum = this.items.reduce((a, b) => a + b, 0);\n    return sum * rate;\n  }\n}\n";
        assert_eq!(
            fun(
                Lang::TypeScript,
                src,
                "const sum = this.items.reduce((a, b) => a + b, 0);",
                true
            )
            .unwrap(),
            "class Cart {\n  items: number[] = [];\n  total(rate: number) {\n    const sum = this.extracted();\n    return sum * rate;\n  }\n\n  private extracted() {\n    const sum = this.items.reduce((a, b) => a + b, 0);\n    return sum;\n  }\n}\n"
        );
        // JavaScript: no `private`.
        let js = "class A {\n  static run(x) {\n    console.log(this.name, x);\n  }\n}\n";
        assert_eq!(
            fun(Lang::JavaScript, js, "console.log(this.name, x);", true).unwrap(),
            "class A {\n  static run(x) {\n    this.extracted(x);\n  }\n\n  static extracted(x) {\n    console.log(this.name, x);\n  }\n}\n"
        );
    }

    #[test]
    fn a_method_is_not_extracted_from_a_function_with_its_own_this() {
        // Found by the judge on rxjs (TestScheduler): an object literal's method in a method.
        let src = "class S {\n  run(flag: boolean) {\n    return {\n      toBe(v: string) {\n        const x = v.trim();\n        log(x, flag);\n      },\n    };\n  }\n}\n";
        let e = fun(Lang::TypeScript, src, "const x = v.trim();", true).unwrap_err();
        assert!(
            e.message
                .contains("inside the function at line 4, which has its own `this`"),
            "{}",
            e.message
        );
        let src = "class S {\n  run(xs: number[]) {\n    xs.forEach(function (x) {\n      log(x);\n    });\n  }\n}\n";
        assert!(fun(Lang::TypeScript, src, "log(x);", true).is_err());
        // An arrow's `this` is the method's.
        let src = "class S {\n  run(xs: number[]) {\n    xs.forEach((x: number) => {\n      log(x);\n    });\n  }\n}\n";
        assert!(
            fun(Lang::TypeScript, src, "log(x);", true)
                .unwrap()
                .contains("this.extracted(x);")
        );
    }

    #[test]
    fn this_in_a_free_function_is_refused() {
        let src = "class A {\n  n = 1;\n  f() {\n    console.log(this.n);\n  }\n}\n";
        let e = ts(src, "console.log(this.n);").unwrap_err();
        assert!(e.message.contains("`this` at line 4"), "{}", e.message);
        assert_eq!(e.hint.as_deref(), Some("use extract_method"));
        // `this` of a function inside the selection is its own.
        let src = "function f() {\n  const o = { g() { return this; } };\n  return o;\n}\n";
        assert!(ts(src, "const o = { g() { return this; } };").is_ok());
    }

    #[test]
    fn leaving_the_selection_is_refused_with_the_reason() {
        for (src, what, says) in [
            (
                "function f(a: number) {\n  if (a) {\n    return 1;\n  }\n  return 2;\n}\n",
                "if (a) {\n    return 1;\n  }",
                "`return` at line 3",
            ),
            (
                "function f(xs: number[]) {\n  for (const x of xs) {\n    if (x) {\n      break;\n    }\n  }\n}\n",
                "if (x) {\n      break;\n    }",
                "`break` at line 4",
            ),
            (
                "function f(xs: number[]) {\n  for (const x of xs) {\n    if (x) continue;\n    g(x);\n  }\n}\n",
                "if (x) continue;",
                "`continue` at line 3",
            ),
            (
                "function* f() {\n  yield 1;\n  g();\n}\n",
                "yield 1;",
                "`yield` at line 2",
            ),
        ] {
            let e = ts(src, what).unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
        // A loop wholly inside, with its `break`, and a `return` of a function inside: fine.
        let src = "function f(xs: number[]) {\n  for (const x of xs) {\n    if (x) break;\n  }\n  const g = () => { return 1; };\n  return g;\n}\n";
        assert!(ts(src, "for (const x of xs) {\n    if (x) break;\n  }").is_ok());
        assert!(ts(src, "const g = () => { return 1; };").is_ok());
    }

    #[test]
    fn names_of_patterns_are_declared_or_assigned_too() {
        let src = "function f(o: { a: number }, p: { b: number }) {\n  let b = 0;\n  const { a } = o;\n  ({ b } = p);\n  return a + b;\n}\n";
        assert_eq!(
            ts(src, "const { a } = o;").unwrap(),
            "function f(o: { a: number }, p: { b: number }) {\n  let b = 0;\n  const a = extracted(o);\n  ({ b } = p);\n  return a + b;\n}\n\nfunction extracted(o: { a: number }) {\n  const { a } = o;\n  return a;\n}\n"
        );
        let out =
            extract_function(Lang::TypeScript, src, sel(src, "({ b } = p);"), "e", false).unwrap();
        assert_eq!(out.params, ["b", "p"]);
        assert_eq!(out.returns, ["b"]);
    }

    #[test]
    fn an_optional_function_parameter_keeps_its_type_whole() {
        let src = "function f(cb?: (n: number) => string) {\n  g(cb);\n}\n";
        assert!(
            ts(src, "g(cb);")
                .unwrap()
                .contains("function extracted(cb: ((n: number) => string) | undefined)")
        );
        // assigned in the selection, declared without a value before it: refused
        let src = "function f(c: boolean) {\n  let v: number;\n  if (c) {\n    v = 1;\n  } else {\n    v = 2;\n  }\n  return v;\n}\n";
        let e = ts(src, "if (c) {\n    v = 1;\n  } else {\n    v = 2;\n  }").unwrap_err();
        assert!(
            e.message.contains("declared without a value"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_selection_that_is_not_statements_or_an_expression_is_refused() {
        let src = "function f(a: number, b: number) {\n  const x = a + b * 2;\n  g(x);\n}\n";
        let e = ts(src, "a + b").unwrap_err();
        assert!(
            e.message
                .contains("neither whole statements nor one expression"),
            "{}",
            e.message
        );
        let e = ts(src, "2;\n  g(x)").unwrap_err();
        assert!(
            e.message
                .contains("neither whole statements nor one expression"),
            "{}",
            e.message
        );
    }

    #[test]
    fn returns_at_the_end_of_the_body_are_returned_by_the_call() {
        let src = "async function f(n: number): Promise<'a' | 'b'> {\n  log(n);\n  if (n > 0) {\n    return 'a';\n  }\n  return 'b';\n}\n";
        assert_eq!(
            ts(src, "if (n > 0) {\n    return 'a';\n  }\n  return 'b';").unwrap(),
            "async function f(n: number): Promise<'a' | 'b'> {\n  log(n);\n  return await extracted(n);\n}\n\nasync function extracted(n: number): Promise<'a' | 'b'> {\n  if (n > 0) {\n    return 'a';\n  }\n  return 'b';\n}\n"
        );
        let src = "function* g(n: number) {\n  yield n;\n  return n;\n}\n";
        assert!(
            ts(src, "return n;")
                .unwrap_err()
                .message
                .contains("generator")
        );
    }

    #[test]
    fn a_closure_over_an_assigned_local_is_refused() {
        let src =
            "function f() {\n  let n = 0;\n  const get = () => n;\n  n++;\n  return get();\n}\n";
        let e = ts(src, "const get = () => n;").unwrap_err();
        assert!(
            e.message
                .contains("used by a function made in the selection (line 3)"),
            "{}",
            e.message
        );
        let src = "function f() {\n  let it: number;\n  later(() => {\n    it = 1;\n  });\n  return () => it;\n}\n";
        assert!(ts(src, "later(() => {\n    it = 1;\n  });").is_err());
        // A const it closes over is the same value.
        let src = "function f(k: number) {\n  const get = () => k;\n  return get;\n}\n";
        assert!(ts(src, "const get = () => k;").is_ok());
    }

    #[test]
    fn returns_for_a_contextually_typed_function_are_refused() {
        let src = "const f: (n: number) => 'a' | 'b' = (n) => {\n  log(n);\n  return n > 0 ? 'a' : 'b';\n};\n";
        let e = ts(src, "return n > 0 ? 'a' : 'b';").unwrap_err();
        assert!(
            e.message
                .contains("return type comes from where it is passed"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_returned_const_with_a_literal_value_is_refused() {
        let src = "function f(k: string) {\n  const r = k === 'a' ? g() : 0;\n  if (!r) {\n    throw new Error();\n  }\n  return r;\n}\n";
        let e = ts(src, "const r = k === 'a' ? g() : 0;").unwrap_err();
        assert!(e.message.contains("the literal `0`"), "{}", e.message);
        // JavaScript has no types to widen.
        assert!(
            fun(
                Lang::JavaScript,
                src.replace(": string", "").as_str(),
                "const r = k === 'a' ? g() : 0;",
                false
            )
            .is_ok()
        );
    }

    #[test]
    fn a_selection_ending_in_throw_never_returns() {
        let src = "function f(n: number, why: string): number {\n  if (n > 0) {\n    return n;\n  }\n  throw new Error(why);\n}\n";
        let out = ts(src, "throw new Error(why);").unwrap();
        assert!(
            out.contains("function extracted(why: string): never {"),
            "{out}"
        );
    }

    #[test]
    fn a_clashing_name_is_refused() {
        let src = "function extracted() {}\nfunction f(a: number) {\n  g(a);\n}\n";
        let e = ts(src, "g(a);").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert!(e.message.contains("line 1"), "{}", e.message);
        let src = "class A {\n  extracted = 1;\n  f() {\n    g(1);\n  }\n}\n";
        let e = fun(Lang::TypeScript, src, "g(1);", true).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        let src = "class A {\n  f() {\n    g(this.extracted);\n  }\n}\n";
        let e = fun(Lang::TypeScript, src, "g(this.extracted);", true).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        // A property of something else is no member.
        let src = "class A {\n  f(xs: number[]) {\n    xs.extracted(1);\n  }\n}\n";
        assert!(fun(Lang::TypeScript, src, "xs.extracted(1);", true).is_ok());
        let e = fun(
            Lang::TypeScript,
            "function f() {\n  g(1);\n}\n",
            "g(1);",
            true,
        )
        .unwrap_err();
        assert!(e.message.contains("not inside a class"), "{}", e.message);
    }

    #[test]
    fn declared_inside_used_before_and_assigning_expressions_are_refused() {
        let src = "function f() {\n  h();\n  function h() { return 1; }\n}\n";
        let e = ts(src, "function h() { return 1; }").unwrap_err();
        assert!(
            e.message.contains("used before it, at line 2"),
            "{}",
            e.message
        );
        let src = "function f() {\n  let n = 0;\n  g(n++ + 1);\n  return n;\n}\n";
        let e = ts(src, "n++ + 1").unwrap_err();
        assert!(e.message.contains("assigns `n`"), "{}", e.message);
    }

    #[test]
    fn types_that_may_be_narrowed_or_not_visible_are_left_out() {
        let src = "function f(v: string | undefined) {\n  if (!v) {\n    return;\n  }\n  g(v.length);\n}\n";
        let out =
            extract_function(Lang::TypeScript, src, sel(src, "g(v.length);"), "e", false).unwrap();
        assert!(out.untyped[0].why.contains("narrowed"), "{:?}", out.untyped);
        // A local type is not visible at module level.
        let src = "function f(v: number) {\n  type Local = { n: number };\n  const o: Local = { n: v };\n  g(o);\n}\n";
        let out = extract_function(Lang::TypeScript, src, sel(src, "g(o);"), "e", false).unwrap();
        assert!(out.untyped[0].why.contains("`Local`"), "{:?}", out.untyped);
        let e = ts(src, "const o: Local = { n: v };").unwrap_err();
        assert!(e.message.contains("the type `Local`"), "{}", e.message);
    }

    #[test]
    fn type_parameters_around_become_the_functions_own() {
        let src = "function f<T extends object>(v: T) {\n  const xs: T[] = [v];\n  g(xs);\n}\n";
        assert_eq!(
            ts(src, "const xs: T[] = [v];").unwrap(),
            "function f<T extends object>(v: T) {\n  const xs: T[] = extracted<T>(v);\n  g(xs);\n}\n\nfunction extracted<T extends object>(v: T) {\n  const xs: T[] = [v];\n  return xs;\n}\n"
        );
    }

    #[test]
    fn type_parameters_of_the_selection_stay_its_own_and_expandos_are_refused() {
        let src =
            "function f() {\n  const id = <T>(x: T) => x;\n  id.tag = 'id';\n  return id;\n}\n";
        let e = ts(src, "const id = <T>(x: T) => x;").unwrap_err();
        assert!(
            e.message.contains("property assigned after it (line 3)"),
            "{}",
            e.message
        );
        let out = ts(src, "const id = <T>(x: T) => x;\n  id.tag = 'id';").unwrap();
        assert!(out.contains("function extracted() {"), "{out}");
        // An object's properties are no expando.
        let src = "function f() {\n  const o = { n: 1 };\n  o.n = 2;\n  return o;\n}\n";
        assert!(ts(src, "const o = { n: 1 };").is_ok());
    }

    #[test]
    fn constructors_keep_super_and_their_fields() {
        let src = "class B extends A {\n  x: number;\n  constructor(n: number) {\n    log(n);\n    super(n);\n    this.x = n;\n    log(this.x);\n  }\n}\n";
        let e = fun(Lang::TypeScript, src, "log(n);", true).unwrap_err();
        assert!(
            e.message.contains("runs before `super(...)`"),
            "{}",
            e.message
        );
        let e = fun(Lang::TypeScript, src, "this.x = n;", true).unwrap_err();
        assert!(e.message.contains("sets `this.x`"), "{}", e.message);
        assert!(fun(Lang::TypeScript, src, "log(this.x);", true).is_ok());
    }

    #[test]
    fn a_returned_declaration_keeps_its_type_or_is_refused_unassigned() {
        let src = "function f() {\n  let c: string | null = null;\n  c = g(c);\n}\n";
        assert_eq!(
            ts(src, "let c: string | null = null;").unwrap(),
            "function f() {\n  let c: string | null = extracted();\n  c = g(c);\n}\n\nfunction extracted() {\n  let c: string | null = null;\n  return c;\n}\n"
        );
        let src = "function f() {\n  let c: string;\n  c = g();\n}\n";
        let e = ts(src, "let c: string;").unwrap_err();
        assert!(e.message.contains("without a value"), "{}", e.message);
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused() {
        let e = ts("function f() {\n  g(;\n}\n", "g(").unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
    }
}
