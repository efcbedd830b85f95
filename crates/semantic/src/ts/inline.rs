//! `inline_function` for TS/TSX/JS without a language server (tsserver offers no such
//! refactor): a function whose body is one `return expr;` (or an arrow with an expression
//! body) is replaced at every call by its expression, the arguments substituted for the
//! parameters (parenthesized where precedence needs it). Refused, with the reason: an
//! argument with side effects that would be evaluated twice, never, conditionally or out of
//! order; recursion; `this`, `super` or `arguments` in the body; parameters with defaults,
//! rest or patterns; `async` functions and generators; a name of the body that means
//! something else at a call site. Nothing here reads files: the caller passes each file's
//! text and says which binding (the declaration, or an import of it) to inline.

use crate::Lang;
use crate::ops::{Splice, Splices};
use crate::style::one_line;
use crate::ts::{OCCURRENCE_KINDS, Scopes, Target, ancestor, occurrences, parse, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use std::collections::HashSet;
use tree_sitter::{Node, Tree};

/// The function to inline, as found in its file.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// Exported (`export function f`, `export const f`, `export { f }`).
    pub exported: bool,
    /// Exported through an `export { f }` list (the declaration stays while that does).
    pub export_list: bool,
    /// Bytes of the declaration's statement with its doc comment, whole lines.
    pub removal: (usize, usize),
    /// Where the declaration's name is.
    pub name_at: usize,
    params: Vec<String>,
    /// The body expression's bytes and text.
    body: (usize, usize),
    body_kind: String,
    /// Uses of parameters in the body: (start, end, parameter index, shorthand `{ a }`,
    /// needs no parentheses there, conditionally evaluated).
    uses: Vec<ParamUse>,
    /// Names the body refers to that are not its parameters, with where they are bound in
    /// the declaring file (`None`: a global).
    free: Vec<(String, Option<usize>)>,
    /// The body has no effects of its own (so a call of it with pure arguments is pure).
    pure: bool,
}

#[derive(Debug, Clone)]
struct ParamUse {
    start: usize,
    end: usize,
    param: usize,
    shorthand: bool,
    bare_ok: bool,
    conditional: bool,
}

fn invalid(msg: String, hint: &str) -> FkError {
    FkError::new(ErrorCode::InvalidArgument, msg).with_hint(hint.to_string())
}

const HINT: &str = "inline_function inlines functions whose body is a single `return expr;` (or an arrow with an expression body)";

/// The kinds that never need parentheses around them (here and in `inline_variable`).
pub(crate) fn is_primary(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "number"
            | "string"
            | "template_string"
            | "true"
            | "false"
            | "null"
            | "undefined"
            | "this"
            | "member_expression"
            | "subscript_expression"
            | "call_expression"
            | "parenthesized_expression"
            | "array"
            | "regex"
            | "non_null_expression"
            | "property_identifier"
            | "bigint"
    )
}

/// Contexts where an expression needs no parentheses (but a comma expression does).
pub(crate) fn is_open_context(parent: Node, child: Node) -> bool {
    match parent.kind() {
        "arguments"
        | "array"
        | "template_substitution"
        | "parenthesized_expression"
        | "return_statement"
        | "spread_element"
        | "jsx_expression" => true,
        "variable_declarator" | "pair" => parent
            .child_by_field_name("value")
            .is_some_and(|v| v.id() == child.id()),
        "assignment_expression" => parent
            .child_by_field_name("right")
            .is_some_and(|v| v.id() == child.id()),
        _ => false,
    }
}

/// Whether evaluating an argument can have an effect (or depend on one).
fn has_effects(n: Node) -> bool {
    match n.kind() {
        "identifier"
        | "number"
        | "string"
        | "true"
        | "false"
        | "null"
        | "undefined"
        | "this"
        | "regex"
        | "property_identifier" => false,
        "template_string" => {
            let mut c = n.walk();
            n.named_children(&mut c)
                .any(|x| x.kind() == "template_substitution")
        }
        "member_expression"
        | "parenthesized_expression"
        | "unary_expression"
        | "non_null_expression"
        | "binary_expression"
        | "as_expression" => {
            if n.kind() == "unary_expression" {
                let op = n.child_by_field_name("operator").map(|o| o.kind());
                if op == Some("delete") {
                    return true;
                }
            }
            let mut c = n.walk();
            n.named_children(&mut c).any(|x| has_effects(x))
        }
        "type_identifier" | "predefined_type" | "generic_type" | "type_arguments" => false,
        _ => true,
    }
}

/// Like [`has_effects`], with calls of the inlined function itself (pure body, pure
/// arguments) counted as pure.
fn effectful(n: Node, text: &str, local: &str, pure_body: bool) -> bool {
    if n.kind() == "call_expression"
        && pure_body
        && n.child_by_field_name("function")
            .is_some_and(|f| &text[f.byte_range()] == local)
    {
        let Some(args) = n.child_by_field_name("arguments") else {
            return false;
        };
        let mut c = args.walk();
        return args
            .named_children(&mut c)
            .any(|a| effectful(a, text, local, pure_body));
    }
    if !has_effects(n) {
        return false;
    }
    match n.kind() {
        "parenthesized_expression" | "binary_expression" | "unary_expression" => {
            let mut c = n.walk();
            n.named_children(&mut c)
                .any(|x| effectful(x, text, local, pure_body))
        }
        _ => true,
    }
}

fn has_kind(n: Node, text: &str, pred: &dyn Fn(Node, &str) -> bool) -> Option<usize> {
    if pred(n, text) {
        return Some(n.start_byte());
    }
    let mut c = n.walk();
    let ch: Vec<Node> = n.children(&mut c).collect();
    ch.into_iter().find_map(|x| has_kind(x, text, pred))
}

fn line_of(text: &str, at: usize) -> usize {
    crate::position(text, at).line
}

/// Whole lines of a statement, with a doc comment right above it and one blank line.
fn statement_lines(text: &str, stmt: Node) -> (usize, usize) {
    let mut start = stmt.start_byte();
    let mut prev = stmt.prev_sibling();
    while let Some(p) = prev {
        if p.kind() == "comment" && text[p.end_byte()..start].matches('\n').count() <= 1 {
            start = p.start_byte();
            prev = p.prev_sibling();
        } else {
            break;
        }
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let after = &text[stmt.end_byte()..];
    let mut end = after
        .find('\n')
        .map_or(text.len(), |i| stmt.end_byte() + i + 1);
    // One blank line that separated it from the next statement goes too, when the one
    // above is blank as well (or it starts the file).
    let blank_above = line_start == 0 || text[..line_start].ends_with("\n\n");
    if blank_above && text[end..].starts_with('\n') {
        end += 1;
    }
    (line_start, end)
}

/// Finds the function a target names: its declaration in this file.
pub fn function_at(lang: Lang, text: &str, target: &Target) -> Result<Function, FkError> {
    let tree = parse(lang, text)?;
    let root = tree.root_node();
    let name_node = match target {
        Target::Name(name) => {
            let mut found = None;
            for n in occurrences(&tree, text, name) {
                let p = n.parent();
                let is_decl = p.is_some_and(|p| {
                    (p.kind() == "function_declaration" || p.kind() == "variable_declarator")
                        && p.child_by_field_name("name")
                            .is_some_and(|x| x.id() == n.id())
                });
                if is_decl && ancestor(n, &["statement_block", "class_body"]).is_none() {
                    found = Some(n);
                    break;
                }
            }
            found.ok_or_else(|| {
                FkError::new(
                    ErrorCode::NotFound,
                    format!("no module-level function `{name}` in this file"),
                )
                .with_hint("name a function declared in this file, or give the selection on it")
            })?
        }
        Target::At(at) => {
            let n = root
                .descendant_for_byte_range(*at, *at)
                .filter(|n| n.kind() == "identifier")
                .ok_or_else(|| {
                    let p = crate::position(text, *at);
                    FkError::new(
                        ErrorCode::NotFound,
                        format!("no name at line {}, column {}", p.line, p.column),
                    )
                    .with_hint("point the selection's start at the function's name or a call of it")
                })?;
            // A use: its declaration in this file.
            let name = text[n.byte_range()].to_string();
            let occ = occurrences(&tree, text, &name);
            let scopes = scopes_for(&tree, text, &occ);
            let Some(scope) = scopes.binding(n) else {
                return Err(FkError::new(
                    ErrorCode::NotFound,
                    format!("`{name}` is not declared in this file"),
                ));
            };
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
    };
    describe(text, &tree, name_node)
}

/// For a target that is an imported name: the module specifier and the name it has there.
pub fn imported_at(lang: Lang, text: &str, target: &Target) -> Option<(String, String)> {
    let tree = parse(lang, text).ok()?;
    let name = match target {
        Target::Name(n) => n.clone(),
        Target::At(at) => {
            let n = tree.root_node().descendant_for_byte_range(*at, *at)?;
            text[n.byte_range()].to_string()
        }
    };
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "import_specifier" {
            let local = n
                .child_by_field_name("alias")
                .or_else(|| n.child_by_field_name("name"))?;
            if text[local.byte_range()] == name {
                let imported = n.child_by_field_name("name")?;
                let stmt = ancestor(n, &["import_statement"])?;
                let src = stmt.child_by_field_name("source")?;
                let spec = text[src.byte_range()].trim_matches(|c| c == '"' || c == '\'');
                return Some((spec.to_string(), text[imported.byte_range()].to_string()));
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    None
}

// Over 200 lines: one pass over the declaration: its form (function, arrow, method), its
// parameters, its body expression and each name of the body with the scope it is bound in, the
// refusals worded for that declaration.
fn describe(text: &str, tree: &Tree, name_node: Node) -> Result<Function, FkError> {
    let name = text[name_node.byte_range()].to_string();
    let decl = name_node.parent().expect("a name has a parent");
    let (func, stmt) = match decl.kind() {
        "function_declaration" => (decl, decl),
        "variable_declarator" => {
            let value = decl
                .child_by_field_name("value")
                .ok_or_else(|| invalid(format!("`{name}` is not a function"), HINT))?;
            if !matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function"
            ) {
                return Err(invalid(
                    format!(
                        "`{name}` is not a function (it is bound to a {})",
                        value.kind()
                    ),
                    HINT,
                ));
            }
            let lexical = decl.parent().expect("a declarator is in a declaration");
            let mut c = lexical.walk();
            if lexical
                .named_children(&mut c)
                .filter(|x| x.kind() == "variable_declarator")
                .count()
                != 1
            {
                return Err(invalid(
                    format!("`{name}` is declared with others in one statement"),
                    "declare it on its own first",
                ));
            }
            (value, lexical)
        }
        "generator_function_declaration" => {
            return Err(invalid(format!("`{name}` is a generator"), HINT));
        }
        _ => {
            return Err(invalid(
                format!("`{name}` is not a function declaration"),
                HINT,
            ));
        }
    };
    let (stmt, exported) = match stmt.parent() {
        Some(p) if p.kind() == "export_statement" => {
            let mut c = p.walk();
            if p.children(&mut c).any(|x| x.kind() == "default") {
                return Err(invalid(
                    format!("`{name}` is a default export"),
                    "inline named functions",
                ));
            }
            (p, true)
        }
        _ => (stmt, false),
    };
    {
        let mut c = func.walk();
        if func
            .children(&mut c)
            .any(|x| x.kind() == "async" || x.kind() == "*")
        {
            return Err(invalid(
                format!(
                    "`{name}` is async or a generator: its calls return a promise or an iterator, not its expression"
                ),
                HINT,
            ));
        }
    }
    // Parameters: plain names.
    let mut params = Vec::new();
    if let Some(p) = func.child_by_field_name("parameter") {
        params.push(text[p.byte_range()].to_string());
    } else if let Some(ps) = func.child_by_field_name("parameters") {
        let mut c = ps.walk();
        for p in ps.named_children(&mut c) {
            let id = match p.kind() {
                "identifier" => Some(p),
                "required_parameter" | "optional_parameter" => {
                    if p.child_by_field_name("value").is_some() {
                        None
                    } else {
                        p.child_by_field_name("pattern")
                            .filter(|x| x.kind() == "identifier")
                    }
                }
                "comment" => continue,
                _ => None,
            };
            let Some(id) = id else {
                return Err(invalid(
                    format!(
                        "`{name}` has a parameter with a default value, a rest or a pattern (`{}`)",
                        &text[p.byte_range()]
                    ),
                    "inline_function substitutes plain parameters only",
                ));
            };
            let pname = &text[id.byte_range()];
            if pname == "this" {
                return Err(invalid(format!("`{name}` declares `this`"), HINT));
            }
            params.push(pname.to_string());
        }
    }
    // The body expression.
    let body = func
        .child_by_field_name("body")
        .ok_or_else(|| invalid(format!("`{name}` has no body"), HINT))?;
    let expr = if body.kind() == "statement_block" {
        let mut c = body.walk();
        let stmts: Vec<Node> = body
            .named_children(&mut c)
            .filter(|x| x.kind() != "comment")
            .collect();
        match stmts.as_slice() {
            [r] if r.kind() == "return_statement" => r
                .named_child(0)
                .filter(|x| x.kind() != "comment")
                .ok_or_else(|| invalid(format!("`{name}` returns nothing"), HINT))?,
            _ => {
                return Err(invalid(
                    format!("the body of `{name}` is not a single `return expr;`"),
                    HINT,
                ));
            }
        }
    } else {
        body
    };
    if let Some(at) = has_kind(expr, text, &|n, t| {
        matches!(n.kind(), "this" | "super")
            || (n.kind() == "identifier" && &t[n.byte_range()] == "arguments")
    }) {
        return Err(invalid(
            format!(
                "the body of `{name}` uses `{}` (line {}): its meaning would change at the call sites",
                word(text, at),
                line_of(text, at)
            ),
            HINT,
        ));
    }
    if let Some(at) = has_kind(expr, text, &|n, t| {
        n.kind() == "identifier" && t[n.byte_range()] == name
    }) {
        return Err(invalid(
            format!(
                "`{name}` is recursive (line {}): it cannot be inlined",
                line_of(text, at)
            ),
            HINT,
        ));
    }
    // Identifier occurrences in the body and what they are bound to.
    let mut uses = Vec::new();
    let mut free: Vec<(String, Option<usize>)> = Vec::new();
    let mut stack = vec![expr];
    let mut ids = Vec::new();
    while let Some(n) = stack.pop() {
        if OCCURRENCE_KINDS.contains(&n.kind()) {
            ids.push(n);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    ids.sort_by_key(|n| n.start_byte());
    let mut names: HashSet<String> = HashSet::new();
    for n in &ids {
        names.insert(text[n.byte_range()].to_string());
    }
    for nm in names {
        let occ = occurrences(tree, text, &nm);
        let scopes = scopes_for(tree, text, &occ);
        for n in ids.iter().filter(|n| text[n.byte_range()] == nm) {
            if scopes.declaring_scope(*n).is_some() {
                // Declared inside the body (an arrow's parameter): not free.
                continue;
            }
            let bound = scopes.binding(*n);
            if bound.is_some_and(|b| b.id() == func.id())
                && let Some(i) = params.iter().position(|p| *p == nm)
            {
                {
                    let parent = n.parent().expect("in the body");
                    uses.push(ParamUse {
                        start: n.start_byte(),
                        end: n.end_byte(),
                        param: i,
                        shorthand: n.kind() == "shorthand_property_identifier",
                        bare_ok: n.id() == expr.id() || is_open_context(parent, *n),
                        conditional: conditional(*n, expr),
                    });
                    continue;
                }
            }
            if !free.iter().any(|(f, _)| *f == nm) {
                free.push((nm.clone(), bound.map(|b| b.id())));
            }
        }
    }
    uses.sort_by_key(|u| u.start);
    let export_list = exported_by_list(text, tree, &name);
    Ok(Function {
        name,
        exported: exported || export_list,
        export_list,
        removal: statement_lines(text, stmt),
        name_at: name_node.start_byte(),
        params,
        body: (expr.start_byte(), expr.end_byte()),
        body_kind: expr.kind().to_string(),
        uses,
        free,
        pure: !has_effects(expr),
    })
}

fn word(text: &str, at: usize) -> &str {
    let end = text[at..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .map_or(text.len(), |i| at + i);
    &text[at..end]
}

/// Whether `n` is evaluated only sometimes when `top` is: under `?:`, `&&`, `||`, `??`, or
/// inside a nested function.
fn conditional(n: Node, top: Node) -> bool {
    let mut child = n;
    let mut p = n.parent();
    while let Some(x) = p {
        match x.kind() {
            "ternary_expression"
                if x.child_by_field_name("condition")
                    .is_none_or(|c| c.id() != child.id()) =>
            {
                return true;
            }
            "binary_expression" => {
                let op = x.child_by_field_name("operator").map(|o| o.kind());
                if matches!(op, Some("&&" | "||" | "??"))
                    && x.child_by_field_name("right")
                        .is_some_and(|r| r.id() == child.id())
                {
                    return true;
                }
            }
            "arrow_function" | "function_expression" | "function" => return true,
            _ => {}
        }
        if x.id() == top.id() {
            break;
        }
        child = x;
        p = x.parent();
    }
    false
}

fn exported_by_list(text: &str, tree: &Tree, name: &str) -> bool {
    let mut c = tree.root_node().walk();
    tree.root_node().named_children(&mut c).any(|s| {
        s.kind() == "export_statement"
            && s.child_by_field_name("source").is_none()
            && has_kind(s, text, &|n, t| {
                n.kind() == "export_specifier"
                    && n.child_by_field_name("name")
                        .is_some_and(|x| &t[x.byte_range()] == name)
            })
            .is_some()
    })
}

/// What inlining did in one file.
#[derive(Debug, Clone, Default)]
pub struct Inlined {
    pub splices: Vec<Splice>,
    pub calls: usize,
    /// Uses that are not calls (`[1].map(f)`, `new f()`): "line N".
    pub value_uses: Vec<String>,
    /// The file's import of the function (in an importer): its removal, when nothing else
    /// uses it.
    pub import_removal: Option<Splice>,
}

/// Which binding of a file is the function.
pub enum Binding<'a> {
    /// The declaration itself (the declaring file).
    Declaration,
    /// An import of it under this local name.
    Import(&'a str),
}

/// Replaces the calls of the function in one file. `f` comes from [`function_at`] on the
/// declaring file (`decl_text`); `text` is this file's text.
// Over 200 lines: the calls of one file innermost first, each checked (arguments' side effects, the
// body's names meaning the same here) and substituted into the results of the calls inside it, then
// the outermost made the splices; the checks share the call's argument map.
pub fn inline_calls(
    lang: Lang,
    text: &str,
    decl_text: &str,
    f: &Function,
    binding: Binding,
) -> Result<Inlined, FkError> {
    let tree = parse(lang, text)?;
    let local = match binding {
        Binding::Declaration => f.name.clone(),
        Binding::Import(l) => l.to_string(),
    };
    let same_file = matches!(binding, Binding::Declaration);
    let occ = occurrences(&tree, text, &local);
    let scopes = scopes_for(&tree, text, &occ);
    // The scope node of the binding.
    let target_scope = if same_file {
        occ.iter()
            .find(|n| n.start_byte() == f.name_at)
            .and_then(|n| scopes.declaring_scope(*n))
    } else {
        occ.iter()
            .find(|n| n.parent().is_some_and(|p| p.kind() == "import_specifier"))
            .and_then(|n| scopes.declaring_scope(*n))
    };
    let Some(target_scope) = target_scope else {
        return Ok(Inlined::default());
    };
    let mut out = Inlined::default();
    let mut calls: Vec<Node> = Vec::new();
    let mut import_spec = None;
    for n in &occ {
        if scopes.binding(*n).map(|s| s.id()) != Some(target_scope.id()) {
            continue;
        }
        if same_file && n.start_byte() == f.name_at {
            continue;
        }
        let Some(parent) = n.parent() else { continue };
        match parent.kind() {
            "import_specifier" => {
                import_spec = Some(parent);
                continue;
            }
            "export_specifier" => continue,
            "call_expression"
                if parent
                    .child_by_field_name("function")
                    .is_some_and(|x| x.id() == n.id()) =>
            {
                calls.push(parent)
            }
            _ => out
                .value_uses
                .push(format!("line {}", line_of(text, n.start_byte()))),
        }
    }
    // Innermost calls first, so that an outer call's arguments carry the inner results.
    calls.sort_by_key(|c| c.end_byte() - c.start_byte());
    // Calls replaced so far: nested ones overlap (an inner call inside an outer one's
    // arguments), so these are not yet one edit; the outermost become its splices below.
    let mut done: Vec<Splice> = Vec::new();
    // Replaced calls whose result is not primary (it needs parentheses as an operand).
    let mut compound: HashSet<(usize, usize)> = HashSet::new();
    for call in &calls {
        let text_of = |a: Node| -> Result<String, FkError> {
            let (s, e) = (a.start_byte(), a.end_byte());
            let mut inner: Vec<&Splice> =
                done.iter().filter(|d| d.start >= s && d.end <= e).collect();
            inner.sort_by_key(|d| d.start);
            let mut kept: Vec<Splice> = Vec::new();
            for d in inner {
                if kept.last().is_some_and(|k| d.start < k.end) {
                    continue;
                }
                kept.push(Splice::new(d.start - s, d.end - s, d.text.clone()));
            }
            // The argument's text with the calls inside it replaced: splices of that text.
            let arg = &text[s..e];
            Ok(Splices::new(arg, kept)?.apply(arg)?)
        };
        let args_node = call.child_by_field_name("arguments");
        let mut args: Vec<Node> = Vec::new();
        if let Some(a) = args_node {
            let mut c = a.walk();
            for x in a.named_children(&mut c) {
                if x.kind() == "comment" {
                    continue;
                }
                if x.kind() == "spread_element" {
                    return Err(invalid(
                        format!(
                            "the call at line {} spreads its arguments",
                            line_of(text, x.start_byte())
                        ),
                        "inline_function needs the arguments one by one",
                    ));
                }
                args.push(x);
            }
        }
        let at = line_of(text, call.start_byte());
        // Side effects: an impure argument must be evaluated exactly once, unconditionally,
        // and be the only impure one (its order with the others would change).
        let impure: Vec<usize> = (0..args.len())
            .filter(|&i| effectful(args[i], text, &local, f.pure))
            .collect();
        for &i in &impure {
            let n_uses = f.uses.iter().filter(|u| u.param == i).count();
            let cond = f.uses.iter().any(|u| u.param == i && u.conditional);
            let arg = one_line(&text[args[i].byte_range()]);
            if i >= f.params.len() || n_uses == 0 {
                return Err(effects(&f.name, at, &arg, "dropped"));
            }
            if n_uses > 1 {
                return Err(effects(&f.name, at, &arg, "evaluated more than once"));
            }
            if cond {
                return Err(effects(&f.name, at, &arg, "evaluated only sometimes"));
            }
        }
        if impure.len() > 1 {
            let arg = one_line(&text[args[impure[1]].byte_range()]);
            return Err(effects(&f.name, at, &arg, "evaluated in another order"));
        }
        // Names of the body must mean the same here.
        for (nm, bound) in &f.free {
            let here = resolve_at(&tree, text, *call, nm);
            let ok = if same_file {
                here == *bound
            } else {
                bound.is_none() && here.is_none()
            };
            if !ok {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "the body of `{}` uses `{nm}`, which means something else at line {at}{}",
                        f.name,
                        if same_file {
                            ""
                        } else {
                            " of this file (or is not in scope there)"
                        }
                    ),
                )
                .with_hint("rename the local that shadows it, or import it there first"));
            }
        }
        // Substitute.
        let (bs, be) = f.body;
        let mut body = String::new();
        let mut pos = bs;
        for u in &f.uses {
            body.push_str(&decl_text[pos..u.start]);
            let (arg, kind) = match args.get(u.param) {
                Some(a) => (text_of(*a)?, a.kind()),
                None => ("undefined".to_string(), "undefined"),
            };
            let kind = match args.get(u.param) {
                Some(a) if compound.contains(&(a.start_byte(), a.end_byte())) => {
                    "binary_expression"
                }
                _ => kind,
            };
            let arg = if u.bare_ok && kind != "sequence_expression" || is_primary(kind) {
                arg
            } else {
                format!("({arg})")
            };
            if u.shorthand {
                body.push_str(&format!("{}: {arg}", f.params[u.param]));
            } else {
                body.push_str(&arg);
            }
            pos = u.end;
        }
        body.push_str(&decl_text[pos..be]);
        let result_kind = match f.uses.first() {
            Some(u) if u.start == bs && u.end == be => {
                args.get(u.param).map_or("undefined", |a| a.kind())
            }
            _ => f.body_kind.as_str(),
        };
        let parent = call.parent();
        let open = parent.is_some_and(|p| is_open_context(p, *call));
        let statement_start =
            parent.is_some_and(|p| matches!(p.kind(), "expression_statement" | "arrow_function"));
        let starts_badly =
            body.starts_with('{') || body.starts_with("function") || body.starts_with("class");
        let comma = result_kind == "sequence_expression";
        let bare_here = is_primary(result_kind)
            || (open && !comma)
            || (statement_start && !comma && !starts_badly);
        let needs = !bare_here || (statement_start && starts_badly);
        let replacement = if needs { format!("({body})") } else { body };
        if !needs && !is_primary(result_kind) {
            compound.insert((call.start_byte(), call.end_byte()));
        }
        done.push(Splice::new(call.start_byte(), call.end_byte(), replacement));
        out.calls += 1;
    }
    // Outermost results only (inner ones are inside them).
    done.sort_by_key(|d| (d.start, std::cmp::Reverse(d.end)));
    let mut last_end = 0;
    for d in done {
        if d.start < last_end {
            continue;
        }
        last_end = d.end;
        out.splices.push(d);
    }
    if let Some(spec) = import_spec
        && out.value_uses.is_empty()
    {
        out.import_removal = Some(remove_specifier(text, spec));
    }
    Ok(out)
}

/// The local names under which a file imports `name` from the module `resolves` accepts.
/// Refused when the file reaches the module otherwise (a namespace import, `require`, a
/// re-export): those uses cannot be followed syntactically.
pub fn import_locals(
    lang: Lang,
    text: &str,
    resolves: &dyn Fn(&str) -> bool,
    name: &str,
) -> Result<Vec<String>, FkError> {
    let tree = parse(lang, text)?;
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        let src = match n.kind() {
            "import_statement" | "export_statement" => n.child_by_field_name("source"),
            "call_expression" => n
                .child_by_field_name("function")
                .filter(|f| matches!(&text[f.byte_range()], "require" | "import"))
                .and_then(|_| n.child_by_field_name("arguments"))
                .and_then(|a| a.named_child(0)),
            _ => None,
        };
        let Some(src) = src else { continue };
        let spec = text[src.byte_range()].trim_matches(|c| c == '"' || c == '\'' || c == '`');
        if !resolves(spec) {
            continue;
        }
        let line = line_of(text, n.start_byte());
        let cannot = |how: &str| {
            Err(FkError::new(
                ErrorCode::Conflict,
                format!("line {line} {how} the module of `{name}`: its uses there cannot be followed syntactically"),
            )
            .with_hint("import it by name (`import { name } from ...`) there first"))
        };
        match n.kind() {
            "call_expression" => return cannot("loads"),
            "export_statement" => {
                let re_exported = has_kind(n, text, &|x, t| {
                    x.kind() == "export_specifier"
                        && x.child_by_field_name("name")
                            .is_some_and(|y| &t[y.byte_range()] == name)
                })
                .is_some();
                let star = {
                    let mut c = n.walk();
                    n.children(&mut c).any(|x| x.kind() == "*")
                };
                if re_exported || star {
                    return cannot("re-exports");
                }
            }
            _ => {
                let mut found_ns = false;
                let mut s2 = vec![n];
                while let Some(x) = s2.pop() {
                    let mut c = x.walk();
                    s2.extend(x.named_children(&mut c));
                    match x.kind() {
                        "namespace_import" => found_ns = true,
                        "import_specifier" => {
                            let imported = x.child_by_field_name("name");
                            if imported.is_some_and(|i| &text[i.byte_range()] == name) {
                                let local = x.child_by_field_name("alias").or(imported);
                                if let Some(l) = local {
                                    out.push(text[l.byte_range()].to_string());
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if found_ns && text.contains(&format!(".{name}")) {
                    return cannot("imports as a namespace");
                }
            }
        }
    }
    Ok(out)
}

fn effects(name: &str, line: usize, arg: &str, what: &str) -> FkError {
    FkError::new(
        ErrorCode::Conflict,
        format!("inlining `{name}` at line {line}: the argument `{arg}` has side effects and would be {what}"),
    )
    .with_hint("store the argument in a variable first (extract_variable), then inline")
}

/// The scope node id a name resolves to at `at` (`None`: not declared in the file).
fn resolve_at(tree: &Tree, text: &str, at: Node, name: &str) -> Option<usize> {
    let occ = occurrences(tree, text, name);
    let scopes: Scopes = scopes_for(tree, text, &occ);
    let mut p = Some(at);
    while let Some(x) = p {
        if scopes.decls.contains_key(&(x.id(), name.to_string())) {
            return Some(x.id());
        }
        p = x.parent();
    }
    None
}

/// The removal of one `import { name }` specifier (the whole statement when it is alone).
fn remove_specifier(text: &str, spec: Node) -> Splice {
    let named = spec.parent().expect("a specifier is in braces");
    let clause = named.parent();
    let mut c = named.walk();
    let specs: Vec<Node> = named
        .named_children(&mut c)
        .filter(|x| x.kind() == "import_specifier")
        .collect();
    let alone = specs.len() == 1
        && clause.is_some_and(|cl| {
            let mut c = cl.walk();
            cl.named_children(&mut c).count() == 1
        });
    if alone && let Some(stmt) = ancestor(spec, &["import_statement"]) {
        let line_start = text[..stmt.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let mut end = text[stmt.end_byte()..]
            .find('\n')
            .map_or(text.len(), |i| stmt.end_byte() + i + 1);
        // At the top of the file (or after a blank line) the blank lines after it go too.
        if line_start == 0 || text[..line_start].ends_with("\n\n") {
            while text[end..].starts_with('\n') {
                end += 1;
            }
        }
        return Splice::new(line_start, end, String::new());
    }
    // `a, name, b`: with the comma after it, or before it when it is last.
    let s = spec.start_byte();
    let e = spec.end_byte();
    let after = &text[e..];
    let trimmed = after.trim_start();
    if trimmed.starts_with(',') {
        let comma = e + (after.len() - trimmed.len()) + 1;
        let rest = &text[comma..];
        let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        Splice::new(s, comma + ws, String::new())
    } else {
        let before = &text[..s];
        let comma = before.trim_end().len() - 1;
        Splice::new(comma, e, String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(src: &str, name: &str) -> Result<String, FkError> {
        let f = function_at(Lang::TypeScript, src, &Target::Name(name.into()))?;
        let r = inline_calls(Lang::TypeScript, src, src, &f, Binding::Declaration)?;
        let mut s = r.splices;
        if r.value_uses.is_empty() {
            s.push(Splice::new(f.removal.0, f.removal.1, String::new()));
        }
        Ok(crate::ops::Splices::sorted(src, s)
            .unwrap()
            .apply(src)
            .unwrap())
    }

    #[test]
    fn inlines_with_precedence() {
        let src = "function area(w: number, h: number): number {\n  return w * h;\n}\n\nconst sq = (x: number) => x * x;\nconst a = area(1 + 2, 3) * 2;\nconst b = sq(sq(2));\nconsole.log(a, b, area(a, b));\n";
        let got = inline(src, "area").unwrap();
        assert_eq!(
            got,
            "const sq = (x: number) => x * x;\nconst a = ((1 + 2) * 3) * 2;\nconst b = sq(sq(2));\nconsole.log(a, b, a * b);\n"
        );
        let got = inline(&got, "sq").unwrap();
        assert_eq!(
            got,
            "const a = ((1 + 2) * 3) * 2;\nconst b = (2 * 2) * (2 * 2);\nconsole.log(a, b, a * b);\n"
        );
    }

    #[test]
    fn refusals() {
        let twice =
            "function twice(x: number) { return x + x; }\nlet i = 0;\nconsole.log(twice(i++));\n";
        assert!(
            inline(twice, "twice")
                .unwrap_err()
                .message
                .contains("more than once")
        );
        let drop =
            "function k(x: number, y: number) { return x; }\nconsole.log(k(1, Math.random()));\n";
        assert!(inline(drop, "k").unwrap_err().message.contains("dropped"));
        let rec = "function f(n: number): number { return n ? f(n - 1) : 0; }\nf(2);\n";
        assert!(inline(rec, "f").unwrap_err().message.contains("recursive"));
        let this = "function g(this: any) { return this.x; }\n";
        assert!(inline(this, "g").is_err());
        let block = "function h(a: number) { const b = a; return b; }\nh(1);\n";
        assert!(
            inline(block, "h")
                .unwrap_err()
                .message
                .contains("single `return expr;`")
        );
        let shadow = "const k = 2;\nfunction m(a: number) { return a * k; }\nfunction u() { const k = 5; return m(1); }\n";
        assert_eq!(inline(shadow, "m").unwrap_err().code, ErrorCode::Conflict);
    }
}
