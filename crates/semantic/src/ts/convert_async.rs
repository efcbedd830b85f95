//! `convert_to_async` for TS/TSX/JS without a language server: a function whose
//! body returns a promise chain becomes `async`, the chain's callbacks inlined in order with
//! `await`, and its `.catch`/`.finally` a `try`/`catch`/`finally`, as TypeScript's
//! convertToAsyncFunction does for the shapes it can do without types:
//!
//! `return base.then(f1)...then(fn)[.catch(h) | .then(null, h)][.finally(g)]` as the last
//! statement of the body (or an arrow's expression body), each callback an arrow or function
//! expression of at most one parameter, or a function's name. What a `.then` callback returns
//! is awaited into the next one's parameter; inside a `try` a returned value is awaited
//! (`return await`) so that its rejection is caught there, as the chain's `.catch` caught it.
//!
//! Refused, naming the shape: no chain at the end; other `return`s; a `.then` with both
//! callbacks; a `.catch` or `.finally` followed by more links; a callback that is not a
//! function written in place or a name, that takes several parameters, a default or a rest,
//! a function expression using its own `this` or `arguments`; a callback that returns before
//! its end while more links follow; a `.finally` callback that returns a value or takes a
//! parameter; names the inlined callbacks declare that clash with another name of the
//! function; a generator, a getter, a setter, a constructor, a function already `async`, or
//! one whose declared return type is not a `Promise`.

use crate::Lang;
use crate::steps::{field_is, invalid, line, quote, to_splices};
use crate::style::{indent_at, indent_unit, uses_semicolons};
use crate::ts::extract::parse_clean;
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::Node;

const FUNCTIONS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
];

const HINT: &str = "convert_to_async converts a function that returns a chain of `.then`, then optionally `.catch` and `.finally`, at its end";

/// Converts the function at `at` (inside it, or on the name of a variable it initializes).
pub fn convert_to_async(lang: Lang, text: &str, at: usize) -> Result<Splices, FkError> {
    let tree = parse_clean(lang, text)?;
    let func = function_at(text, tree.root_node(), at)?;
    let fl = line(text, func.start_byte());
    check_function(text, func, fl)?;
    let body = func
        .child_by_field_name("body")
        .ok_or_else(|| invalid(format!("the function at line {fl} has no body"), HINT))?;
    // The statement the chain replaces (None: an arrow's expression body).
    let (ret, chain) = if body.kind() == "statement_block" {
        let mut returns = vec![];
        returns_in(body, &mut returns);
        let last = named(body).into_iter().rfind(|n| n.kind() != "comment");
        let Some(last) = last.filter(|l| l.kind() == "return_statement") else {
            return Err(invalid(
                format!("the function at line {fl} does not end with `return` of a promise chain"),
                HINT,
            ));
        };
        if let Some(other) = returns.iter().find(|r| r.id() != last.id()) {
            return Err(invalid(
                format!(
                    "the function at line {fl} returns at line {} too: only a function whose one `return` is its chain, at its end, is converted",
                    line(text, other.start_byte())
                ),
                HINT,
            ));
        }
        let e = last.named_child(0).ok_or_else(|| {
            invalid(
                format!(
                    "the `return` at line {} returns nothing",
                    line(text, last.start_byte())
                ),
                HINT,
            )
        })?;
        (Some(last), e)
    } else {
        (None, body)
    };
    let chain = unparen(chain);
    let (base, links) = links_of(text, chain)?;
    if links.is_empty() {
        return Err(invalid(
            format!(
                "the function at line {fl} returns `{}`, not a `.then`/`.catch`/`.finally` chain",
                quote(text, chain)
            ),
            HINT,
        ));
    }
    let shape = Shape::of(text, &links)?;
    check_names(text, func, &links)?;

    let semi = if uses_semicolons(tree.root_node(), text) {
        ";"
    } else {
        ""
    };
    let ts = matches!(lang, Lang::TypeScript | Lang::Tsx);
    let mut g = Gen {
        text,
        semi,
        ts,
        taken: identifiers(text, func),
    };
    let stmts = g.chain(base, &shape)?;
    let (stmt_start, indent) = match ret {
        Some(r) => (r.start_byte(), indent_at(text, r.start_byte()).to_string()),
        None => (
            body.start_byte(),
            indent_at(text, func.start_byte()).to_string(),
        ),
    };
    // One level of indentation as the function's body has it, else as the file has it.
    let unit = match indent.strip_prefix(indent_at(text, func.start_byte())) {
        Some(step) if !step.is_empty() => step.to_string(),
        _ => indent_unit(text, "  "),
    };
    let mut out = String::new();
    let inner = match ret {
        Some(_) => indent.clone(),
        None => format!("{indent}{unit}"),
    };
    render(&stmts, &inner, &unit, &mut out);
    let out = out.trim_start().trim_end_matches('\n').to_string();
    let replacement = match ret {
        Some(_) => out,
        None => format!("{{\n{inner}{out}\n{indent}}}"),
    };
    let replaced = match ret {
        Some(r) => r.byte_range(),
        None => stmt_start..body.end_byte(),
    };
    let mut splices = vec![Splice::new(replaced.start, replaced.end, replacement)];
    splices.push(Splice::insert(async_at(func), "async "));
    to_splices(text, splices)
}

fn named(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

fn unparen(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression"
        && let Some(inner) = n.named_child(0)
    {
        n = inner;
    }
    n
}

fn function_at<'a>(text: &str, root: Node<'a>, at: usize) -> Result<Node<'a>, FkError> {
    let start = root.descendant_for_byte_range(at, at);
    // On a variable's name: the function it is initialized with.
    if let Some(n) = start
        && n.kind() == "identifier"
        && let Some(p) = n.parent()
        && p.kind() == "variable_declarator"
        && field_is(p, "name", n)
        && let Some(v) = p.child_by_field_name("value").map(unparen)
        && FUNCTIONS.contains(&v.kind())
    {
        return Ok(v);
    }
    let mut x = start;
    while let Some(n) = x {
        if n.is_named() && FUNCTIONS.contains(&n.kind()) {
            return Ok(n);
        }
        x = n.parent();
    }
    let p = crate::position(text, at);
    Err(FkError::new(
        ErrorCode::NotFound,
        format!("no function at line {}, column {}", p.line, p.column),
    )
    .with_hint("point the selection's start into the function to convert"))
}

fn has_token(n: Node, kind: &str) -> Option<usize> {
    let mut c = n.walk();
    n.children(&mut c)
        .find(|ch| ch.kind() == kind)
        .map(|ch| ch.start_byte())
}

fn check_function(text: &str, func: Node, fl: usize) -> Result<(), FkError> {
    let refuse = |why: String| Err(invalid(format!("the function at line {fl} {why}"), HINT));
    if has_token(func, "async").is_some() {
        return refuse("is already `async`".into());
    }
    if has_token(func, "*").is_some() || func.kind().starts_with("generator") {
        return refuse("is a generator: an async generator is another thing".into());
    }
    if func.kind() == "method_definition" {
        if has_token(func, "get").is_some() || has_token(func, "set").is_some() {
            return refuse("is an accessor, which cannot be `async`".into());
        }
        if func
            .child_by_field_name("name")
            .is_some_and(|n| &text[n.byte_range()] == "constructor")
        {
            return refuse("is a constructor, which cannot be `async`".into());
        }
    }
    if let Some(rt) = func.child_by_field_name("return_type") {
        let ty = rt.named_child(0).unwrap_or(rt);
        let promise = ty.kind() == "generic_type"
            && ty
                .child_by_field_name("name")
                .is_some_and(|n| &text[n.byte_range()] == "Promise");
        if !promise {
            return refuse(format!(
                "declares it returns `{}`: an async function returns a `Promise`",
                quote(text, ty)
            ));
        }
    }
    Ok(())
}

/// The `return` statements of a body, not those of functions nested in it.
fn returns_in<'a>(n: Node<'a>, out: &mut Vec<Node<'a>>) {
    for ch in named(n) {
        if FUNCTIONS.contains(&ch.kind())
            || matches!(
                ch.kind(),
                "class"
                    | "class_declaration"
                    | "generator_function"
                    | "generator_function_declaration"
            )
        {
            continue;
        }
        if ch.kind() == "return_statement" {
            out.push(ch);
        }
        returns_in(ch, out);
    }
}

/// One link of a chain: the method and its callback (None: a link that passes the value on).
#[derive(Clone, Copy)]
struct Link<'a> {
    method: &'static str,
    callback: Option<Node<'a>>,
    at: Node<'a>,
}

fn is_nullish(text: &str, n: Node) -> bool {
    matches!(n.kind(), "null" | "undefined")
        || (n.kind() == "identifier" && &text[n.byte_range()] == "undefined")
}

/// The chain's base and its links, first link first.
fn links_of<'a>(text: &str, chain: Node<'a>) -> Result<(Node<'a>, Vec<Link<'a>>), FkError> {
    let mut links = vec![];
    let mut e = chain;
    loop {
        e = unparen(e);
        if e.kind() != "call_expression" {
            break;
        }
        let Some(callee) = e.child_by_field_name("function") else {
            break;
        };
        if callee.kind() != "member_expression" {
            break;
        }
        let Some(prop) = callee.child_by_field_name("property") else {
            break;
        };
        let method = match &text[prop.byte_range()] {
            "then" => "then",
            "catch" => "catch",
            "finally" => "finally",
            _ => break,
        };
        let l = line(text, prop.start_byte());
        if callee
            .child_by_field_name("object")
            .is_some_and(|o| text[o.end_byte()..prop.start_byte()].contains("?."))
        {
            return Err(invalid(
                format!("the `?.{method}` at line {l} may not run at all"),
                HINT,
            ));
        }
        let args: Vec<Node> = e
            .child_by_field_name("arguments")
            .map(|a| {
                named(a)
                    .into_iter()
                    .filter(|n| n.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        if args.iter().any(|a| a.kind() == "spread_element") {
            return Err(invalid(
                format!("the `.{method}` at line {l} spreads its arguments"),
                HINT,
            ));
        }
        if e.child_by_field_name("type_arguments").is_some() {
            return Err(invalid(
                format!(
                    "the `.{method}` at line {l} has type arguments, which `await` has no place for"
                ),
                HINT,
            ));
        }
        let first = args.first().copied().filter(|a| !is_nullish(text, *a));
        let second = args.get(1).copied().filter(|a| !is_nullish(text, *a));
        if args.len() > 2 || (method != "then" && args.len() > 1) {
            return Err(invalid(
                format!("the `.{method}` at line {l} has {} arguments", args.len()),
                HINT,
            ));
        }
        links.push(match (method, first, second) {
            ("then", Some(_), Some(_)) => {
                return Err(invalid(
                    format!("the `.then` at line {l} has both a fulfilled and a rejected callback: one `try` cannot catch the first one's errors and not the other's"),
                    "split it into `.then(f).catch(g)` if that is what you mean, or convert it by hand",
                ));
            }
            ("then", None, Some(r)) => Link { method: "catch", callback: Some(r), at: prop },
            (m, f, _) => Link { method: m, callback: f, at: prop },
        });
        e = callee
            .child_by_field_name("object")
            .expect("a member has an object");
    }
    links.reverse();
    Ok((e, links))
}

/// A chain's links sorted into the shape converted: `.then`s, then a `.catch`, then a
/// `.finally`.
struct Shape<'a> {
    thens: Vec<Node<'a>>,
    catch: Option<Node<'a>>,
    finally: Option<Node<'a>>,
}

impl<'a> Shape<'a> {
    fn of(text: &str, links: &[Link<'a>]) -> Result<Shape<'a>, FkError> {
        let mut s = Shape {
            thens: vec![],
            catch: None,
            finally: None,
        };
        let mut seen: Option<Link> = None;
        for l in links {
            if let Some(prev) = seen
                && (prev.method == "finally" || (prev.method == "catch" && l.method != "finally"))
            {
                return Err(invalid(
                    format!(
                        "the `.{}` at line {} follows a `.{}` (line {}): only `.then`s, then one `.catch`, then one `.finally` are converted",
                        l.method,
                        line(text, l.at.start_byte()),
                        prev.method,
                        line(text, prev.at.start_byte())
                    ),
                    HINT,
                ));
            }
            match (l.method, l.callback) {
                // A link without a callback passes the value (or the error) on.
                ("then", None) => {}
                ("then", Some(cb)) => s.thens.push(cb),
                ("catch", cb) => {
                    // Without a callback it passes the error on.
                    s.catch = cb;
                    seen = Some(*l);
                }
                (_, cb) => {
                    s.finally = cb;
                    seen = Some(*l);
                }
            }
        }
        Ok(s)
    }
}

/// A callback, as inlined.
struct Callback<'a> {
    /// Its parameter's pattern, with its type annotation (None: it takes none).
    param: Option<Node<'a>>,
    /// The pattern alone.
    pattern: Option<Node<'a>>,
    /// Its body: an expression or a block (None: a function's name, called).
    body: Option<Node<'a>>,
    /// A function's name passed as the callback.
    name: Option<Node<'a>>,
}

fn callback<'a>(text: &str, cb: Node<'a>, method: &str) -> Result<Callback<'a>, FkError> {
    let l = line(text, cb.start_byte());
    let refuse = |why: String| {
        Err(invalid(
            format!("the `.{method}` callback at line {l} {why}"),
            HINT,
        ))
    };
    match cb.kind() {
        "identifier" => {
            return Ok(Callback {
                param: None,
                pattern: None,
                body: None,
                name: Some(cb),
            });
        }
        "arrow_function" | "function_expression" | "function" => {}
        "member_expression" => {
            return refuse(format!(
                "is the method `{}`: called as a method it would get `this`, which `.{method}` does not give it",
                quote(text, cb)
            ));
        }
        _ => {
            return refuse(format!(
                "is `{}`, not a function written in place or a function's name",
                quote(text, cb)
            ));
        }
    }
    if cb.kind() != "arrow_function" {
        if cb.child_by_field_name("name").is_some() {
            return refuse("is a named function expression, which may call itself".into());
        }
        if has_token(cb, "*").is_some() {
            return refuse("is a generator".into());
        }
        if let Some((n, what)) = own_this(text, cb, true) {
            return refuse(format!(
                "uses its own {what} (line {}), which the function it is inlined into does not have",
                line(text, n.start_byte())
            ));
        }
    }
    let params: Vec<Node> = match cb.child_by_field_name("parameter") {
        Some(p) => vec![p],
        None => cb
            .child_by_field_name("parameters")
            .map(|ps| {
                named(ps)
                    .into_iter()
                    .filter(|n| n.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default(),
    };
    if params.len() > 1 {
        return refuse(format!(
            "takes {} parameters; a promise passes one value",
            params.len()
        ));
    }
    let (param, pattern) = match params.first() {
        None => (None, None),
        Some(&p) => {
            let pattern = if matches!(p.kind(), "required_parameter" | "optional_parameter") {
                if p.kind() == "optional_parameter" || p.child_by_field_name("value").is_some() {
                    return refuse("has an optional parameter or a default value".into());
                }
                p.child_by_field_name("pattern").unwrap_or(p)
            } else {
                p
            };
            if matches!(pattern.kind(), "rest_pattern" | "assignment_pattern") {
                return refuse("has a rest parameter or a default value".into());
            }
            if p.kind() == "required_parameter"
                && named(p)
                    .iter()
                    .any(|c| c.kind() == "accessibility_modifier")
            {
                return refuse("has a parameter property".into());
            }
            (Some(p), Some(pattern))
        }
    };
    // Inlined code is re-indented, which would change the text of a template literal.
    let mut stack = vec![cb];
    while let Some(x) = stack.pop() {
        if x.kind() == "template_string" && text[x.byte_range()].contains('\n') {
            return refuse(format!(
                "has a template literal over several lines (line {}), whose text re-indenting would change",
                line(text, x.start_byte())
            ));
        }
        stack.extend(named(x));
    }
    Ok(Callback {
        param,
        pattern,
        body: cb.child_by_field_name("body"),
        name: None,
    })
}

/// The first `this`, `arguments`, `super` or `new.target` of a function expression's own.
fn own_this<'a>(text: &str, n: Node<'a>, top: bool) -> Option<(Node<'a>, &'static str)> {
    if !top
        && matches!(
            n.kind(),
            "function_declaration"
                | "function_expression"
                | "function"
                | "method_definition"
                | "class"
                | "class_declaration"
                | "generator_function"
                | "generator_function_declaration"
        )
    {
        return None;
    }
    match n.kind() {
        "this" => return Some((n, "`this`")),
        "super" => return Some((n, "`super`")),
        "meta_property" => return Some((n, "`new.target`")),
        "identifier" if &text[n.byte_range()] == "arguments" => return Some((n, "`arguments`")),
        _ => {}
    }
    named(n).into_iter().find_map(|c| own_this(text, c, false))
}

/// Every identifier-like name in `n` (to pick fresh names and find clashes).
fn identifiers(text: &str, n: Node) -> Vec<String> {
    let mut out = vec![];
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind(),
            "identifier"
                | "shorthand_property_identifier"
                | "shorthand_property_identifier_pattern"
        ) {
            out.push(text[x.byte_range()].to_string());
        }
        stack.extend(named(x));
    }
    out
}

/// The names a callback brings into the function it is inlined into: its parameter's, and its
/// block's declarations (a `var` anywhere in it, not in nested functions).
fn declared<'a>(text: &str, cb: Node<'a>) -> Vec<(String, Node<'a>)> {
    let mut out = vec![];
    let bind = |pat: Node<'a>, out: &mut Vec<(String, Node<'a>)>| {
        let mut stack = vec![pat];
        while let Some(x) = stack.pop() {
            match x.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    out.push((text[x.byte_range()].to_string(), x));
                }
                "type_annotation" => {}
                "pair_pattern" => stack.extend(x.child_by_field_name("value")),
                "assignment_pattern" | "object_assignment_pattern" => {
                    stack.extend(x.child_by_field_name("left"));
                }
                _ => stack.extend(named(x)),
            }
        }
    };
    if let Some(ps) = cb.child_by_field_name("parameters") {
        for p in named(ps) {
            bind(p.child_by_field_name("pattern").unwrap_or(p), &mut out);
        }
    }
    if let Some(p) = cb.child_by_field_name("parameter") {
        bind(p, &mut out);
    }
    let Some(body) = cb
        .child_by_field_name("body")
        .filter(|b| b.kind() == "statement_block")
    else {
        return out;
    };
    let mut stack = vec![(body, true)];
    while let Some((x, top)) = stack.pop() {
        for ch in named(x) {
            match ch.kind() {
                "lexical_declaration" if top => {
                    for d in named(ch)
                        .into_iter()
                        .filter(|d| d.kind() == "variable_declarator")
                    {
                        bind(
                            d.child_by_field_name("name").expect("a declarator names"),
                            &mut out,
                        );
                    }
                }
                "variable_declaration" => {
                    for d in named(ch)
                        .into_iter()
                        .filter(|d| d.kind() == "variable_declarator")
                    {
                        bind(
                            d.child_by_field_name("name").expect("a declarator names"),
                            &mut out,
                        );
                    }
                }
                "function_declaration" | "class_declaration" | "generator_function_declaration" => {
                    if top && let Some(nm) = ch.child_by_field_name("name") {
                        out.push((text[nm.byte_range()].to_string(), nm));
                    }
                }
                k if FUNCTIONS.contains(&k) || k == "class" => {}
                _ => stack.push((ch, false)),
            }
        }
    }
    out
}

/// Inlined into one function, a name a callback declares must mean nothing else there.
fn check_names(text: &str, func: Node, links: &[Link]) -> Result<(), FkError> {
    for l in links {
        let Some(cb) = l.callback else { continue };
        if !matches!(
            cb.kind(),
            "arrow_function" | "function_expression" | "function"
        ) {
            continue;
        }
        let inside = cb.byte_range();
        for (name, at) in declared(text, cb) {
            let mut stack = vec![func];
            while let Some(x) = stack.pop() {
                if x.start_byte() >= inside.start && x.end_byte() <= inside.end {
                    continue;
                }
                if matches!(
                    x.kind(),
                    "identifier"
                        | "shorthand_property_identifier"
                        | "shorthand_property_identifier_pattern"
                ) && text[x.byte_range()] == name
                {
                    return Err(invalid(
                        format!(
                            "`{name}`, which the `.{}` callback declares (line {}), is also a name at line {}: inlined into one function they would clash",
                            l.method,
                            line(text, at.start_byte()),
                            line(text, x.start_byte())
                        ),
                        "rename one of them first (rename_symbol)",
                    ));
                }
                stack.extend(named(x));
            }
        }
    }
    Ok(())
}

/// A statement of the converted body: text (its first line unindented, the others as in the
/// file with `indent` their indentation there), or a block of statements.
enum Stmt {
    Text { text: String, indent: String },
    Block { head: String, body: Vec<Stmt> },
}

struct Gen<'a> {
    text: &'a str,
    semi: &'static str,
    ts: bool,
    taken: Vec<String>,
}

/// What the previous link hands the next one.
enum Value<'a> {
    /// The value of an expression (awaited when taken): its text, where it was, whether it
    /// needs no parentheses after `await`.
    Expr(String, Node<'a>, bool),
    /// `undefined`: the previous callback returned nothing.
    /// A value that is no promise (a literal, arithmetic): taken as it is, not awaited.
    Settled(String, Node<'a>),
    Undefined,
}

impl<'a> Gen<'a> {
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut i = 1;
        while self.taken.contains(&name) {
            i += 1;
            name = format!("{base}{i}");
        }
        self.taken.push(name.clone());
        name
    }

    fn stmt(&self, s: String, at: Node) -> Stmt {
        Stmt::Text {
            text: s,
            indent: indent_at(self.text, at.start_byte()).to_string(),
        }
    }

    fn awaited(&self, n: Node) -> String {
        await_text(&self.text[n.byte_range()], primary(n))
    }

    fn value(&self, n: Node<'a>) -> Value<'a> {
        let t = self.text[n.byte_range()].to_string();
        if settled(self.text, n) {
            Value::Settled(t, n)
        } else {
            Value::Expr(t, n, primary(n))
        }
    }

    fn chain(&mut self, base: Node<'a>, shape: &Shape<'a>) -> Result<Vec<Stmt>, FkError> {
        let in_try = shape.catch.is_some() || shape.finally.is_some();
        let mut out = vec![];
        let mut value = self.value(base);
        for (i, &cb) in shape.thens.iter().enumerate() {
            let last = i + 1 == shape.thens.len();
            let c = callback(self.text, cb, "then")?;
            value = self.then(&c, value, last, in_try, &mut out)?;
        }
        if shape.thens.is_empty() {
            self.ret(value, in_try, &mut out);
        }
        if !in_try {
            return Ok(out);
        }
        let mut blocks = vec![Stmt::Block {
            head: "try".into(),
            body: out,
        }];
        if let Some(cb) = shape.catch {
            let (head, body) = self.catch(cb, shape.finally.is_some())?;
            blocks.push(Stmt::Block { head, body });
        }
        if let Some(cb) = shape.finally {
            let body = self.finally(cb)?;
            blocks.push(Stmt::Block {
                head: "finally".into(),
                body,
            });
        }
        Ok(blocks)
    }

    /// `return` of the last value (awaited inside a `try`, so that its rejection is caught).
    fn ret(&self, value: Value<'a>, in_try: bool, out: &mut Vec<Stmt>) {
        match value {
            Value::Expr(t, n, p) => {
                let e = if in_try { await_text(&t, p) } else { t };
                out.push(self.stmt(format!("return {e}{}", self.semi), n));
            }
            Value::Settled(t, n) => out.push(self.stmt(format!("return {t}{}", self.semi), n)),
            Value::Undefined => {}
        }
    }

    /// Binds the value a callback receives: `const p = await value;`, or `await value;`.
    fn bind(
        &mut self,
        pattern: Option<&str>,
        param: Option<Node>,
        value: &Value<'a>,
        reassigned: bool,
        out: &mut Vec<Stmt>,
    ) {
        let kw = if reassigned { "let" } else { "const" };
        match (pattern, value) {
            (Some(p), Value::Expr(t, n, prim)) => {
                let decl = param.map_or(p.to_string(), |x| self.text[x.byte_range()].to_string());
                out.push(self.stmt(
                    format!("{kw} {decl} = {}{}", await_text(t, *prim), self.semi),
                    *n,
                ));
            }
            (Some(_), Value::Undefined) => {
                let decl = param.map_or(String::new(), |x| self.text[x.byte_range()].to_string());
                out.push(Stmt::Text {
                    text: format!("{kw} {decl} = undefined{}", self.semi),
                    indent: String::new(),
                });
            }
            (None, Value::Expr(t, n, prim)) => {
                out.push(self.stmt(format!("{}{}", await_text(t, *prim), self.semi), *n));
            }
            (Some(p), Value::Settled(t, n)) => {
                let decl = param.map_or(p.to_string(), |x| self.text[x.byte_range()].to_string());
                out.push(self.stmt(format!("{kw} {decl} = {t}{}", self.semi), *n));
            }
            (None, Value::Settled(..)) => {}
            (None, Value::Undefined) => {}
        }
    }

    fn then(
        &mut self,
        c: &Callback<'a>,
        value: Value<'a>,
        last: bool,
        in_try: bool,
        out: &mut Vec<Stmt>,
    ) -> Result<Value<'a>, FkError> {
        if let Some(f) = c.name {
            // `.then(f)`: f(value).
            let arg = match &value {
                Value::Expr(..) => {
                    let v = self.fresh("result");
                    self.bind(Some(&v), None, &value, false, out);
                    v
                }
                Value::Settled(t, _) => t.clone(),
                Value::Undefined => "undefined".to_string(),
            };
            let call = format!("{}({arg})", &self.text[f.byte_range()]);
            if last {
                let e = if in_try {
                    format!("await {call}")
                } else {
                    call
                };
                out.push(self.stmt(format!("return {e}{}", self.semi), f));
                return Ok(Value::Undefined);
            }
            // The next link awaits the call's value.
            return Ok(Value::Expr(call, f, true));
        }
        let reassigned = c.pattern.is_some_and(|p| {
            let names: Vec<String> = identifiers(self.text, p);
            c.body.is_some_and(|b| assigns(self.text, b, &names))
        });
        let pattern = c.pattern.map(|p| self.text[p.byte_range()].to_string());
        self.bind(pattern.as_deref(), c.param, &value, reassigned, out);
        let body = c.body.expect("a function written in place has a body");
        if body.kind() != "statement_block" {
            let v = self.value(body);
            if last {
                self.ret(v, in_try, out);
                return Ok(Value::Undefined);
            }
            return Ok(v);
        }
        let stmts: Vec<Node> = named(body);
        let mut returns = vec![];
        returns_in(body, &mut returns);
        if last {
            out.extend(self.inline(&stmts, &returns, in_try));
            return Ok(Value::Undefined);
        }
        let end = stmts.iter().rfind(|s| s.kind() != "comment").copied();
        let tail = end.filter(|e| e.kind() == "return_statement");
        if let Some(r) = returns
            .iter()
            .find(|r| Some(r.id()) != tail.map(|t| t.id()))
        {
            return Err(invalid(
                format!(
                    "the `.then` callback at line {} returns at line {} before its end, and more links follow: the next link would run after that `return` too",
                    line(self.text, body.start_byte()),
                    line(self.text, r.start_byte())
                ),
                HINT,
            ));
        }
        let kept: Vec<Node> = stmts
            .into_iter()
            .filter(|s| Some(s.id()) != tail.map(|t| t.id()))
            .collect();
        out.extend(self.inline(&kept, &[], false));
        Ok(match tail.and_then(|t| t.named_child(0)) {
            Some(e) => self.value(e),
            None => Value::Undefined,
        })
    }

    /// A callback's statements, its `return x` made `return await x` when `awaits`.
    fn inline(&self, stmts: &[Node], returns: &[Node], awaits: bool) -> Vec<Stmt> {
        stmts
            .iter()
            .map(|s| {
                let mut t = String::new();
                let mut at = s.start_byte();
                if awaits {
                    for r in returns.iter().filter(|r| {
                        r.start_byte() >= s.start_byte() && r.end_byte() <= s.end_byte()
                    }) {
                        if let Some(e) = r.named_child(0).filter(|e| !settled(self.text, *e)) {
                            t.push_str(&self.text[at..e.start_byte()]);
                            t.push_str(&self.awaited(e));
                            at = e.end_byte();
                        }
                    }
                }
                t.push_str(&self.text[at..s.end_byte()]);
                self.stmt(t, *s)
            })
            .collect()
    }

    fn catch(&mut self, cb: Node<'a>, awaits: bool) -> Result<(String, Vec<Stmt>), FkError> {
        let c = callback(self.text, cb, "catch")?;
        let any = if self.ts { ": any" } else { "" };
        if let Some(f) = c.name {
            let e = self.fresh("error");
            let call = format!("{}({e})", &self.text[f.byte_range()]);
            let call = if awaits {
                format!("await {call}")
            } else {
                call
            };
            return Ok((
                format!("catch ({e}{any})"),
                vec![self.stmt(format!("return {call}{}", self.semi), f)],
            ));
        }
        let head = match c.pattern {
            None => "catch".to_string(),
            Some(p) => {
                let annotation = c.param.and_then(|x| x.child_by_field_name("type"));
                let keep = annotation.is_some_and(|a| {
                    self.text[a.byte_range()].trim_start_matches(':').trim() == "unknown"
                });
                let ty = if keep { ": unknown" } else { any };
                format!("catch ({}{ty})", &self.text[p.byte_range()])
            }
        };
        let body = c.body.expect("a function written in place has a body");
        let mut out = vec![];
        if body.kind() != "statement_block" {
            let v = self.value(body);
            self.ret(v, awaits, &mut out);
            return Ok((head, out));
        }
        let mut returns = vec![];
        returns_in(body, &mut returns);
        Ok((head, self.inline(&named(body), &returns, awaits)))
    }

    fn finally(&mut self, cb: Node<'a>) -> Result<Vec<Stmt>, FkError> {
        let c = callback(self.text, cb, "finally")?;
        let l = line(self.text, cb.start_byte());
        if let Some(f) = c.name {
            return Ok(vec![self.stmt(
                format!("await {}(){}", &self.text[f.byte_range()], self.semi),
                f,
            )]);
        }
        if c.pattern.is_some() {
            return Err(invalid(
                format!(
                    "the `.finally` callback at line {l} takes a parameter, which `.finally` never gives"
                ),
                HINT,
            ));
        }
        let body = c.body.expect("a function written in place has a body");
        if body.kind() != "statement_block" {
            if settled(self.text, body) {
                return Ok(vec![]);
            }
            return Ok(vec![
                self.stmt(format!("{}{}", self.awaited(body), self.semi), body),
            ]);
        }
        let mut returns = vec![];
        returns_in(body, &mut returns);
        if let Some(r) = returns.first() {
            return Err(invalid(
                format!(
                    "the `.finally` callback at line {l} returns (line {}): in a `finally` block a `return` would replace the function's result",
                    line(self.text, r.start_byte())
                ),
                HINT,
            ));
        }
        Ok(self.inline(&named(body), &[], false))
    }
}

/// Whether evaluating `n` can give no promise (nothing to await): literals, arithmetic,
/// comparisons, `typeof`, `!`.
fn settled(text: &str, n: Node) -> bool {
    match n.kind() {
        "number" | "string" | "template_string" | "true" | "false" | "null" | "undefined" => true,
        "identifier" => &text[n.byte_range()] == "undefined",
        "parenthesized_expression" => n.named_child(0).is_some_and(|c| settled(text, c)),
        "unary_expression" => n
            .child_by_field_name("operator")
            .is_some_and(|o| matches!(o.kind(), "-" | "+" | "!" | "~" | "typeof")),
        "binary_expression" => n
            .child_by_field_name("operator")
            .is_some_and(|o| !matches!(o.kind(), "&&" | "||" | "??")),
        _ => false,
    }
}

fn primary(n: Node) -> bool {
    crate::ts::inline::is_primary(n.kind()) || n.kind() == "new_expression"
}

fn await_text(t: &str, primary: bool) -> String {
    if primary {
        format!("await {t}")
    } else {
        format!("await ({t})")
    }
}

/// Whether `n` assigns one of `names` (`x = `, `x += `, `x++`).
fn assigns(text: &str, n: Node, names: &[String]) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        let target = match x.kind() {
            "assignment_expression" | "augmented_assignment_expression" => {
                x.child_by_field_name("left")
            }
            "update_expression" => x.child_by_field_name("argument"),
            _ => None,
        };
        if let Some(t) = target
            && t.kind() == "identifier"
            && names.iter().any(|nm| nm == &text[t.byte_range()])
        {
            return true;
        }
        stack.extend(named(x));
    }
    false
}

fn render(stmts: &[Stmt], indent: &str, unit: &str, out: &mut String) {
    for s in stmts {
        match s {
            Stmt::Text { text, indent: was } => {
                out.push_str(indent);
                let mut lines = text.split('\n');
                out.push_str(lines.next().unwrap_or(""));
                for l in lines {
                    out.push('\n');
                    match l.strip_prefix(was.as_str()) {
                        Some(rest) if !was.is_empty() => {
                            out.push_str(indent);
                            out.push_str(rest);
                        }
                        _ => out.push_str(l),
                    }
                }
                out.push('\n');
            }
            Stmt::Block { head, body } => {
                // `} catch` and `} finally` continue the `try` on its closing line.
                if head != "try" && out.ends_with("}\n") {
                    out.pop();
                    out.push(' ');
                } else {
                    out.push_str(indent);
                }
                out.push_str(head);
                out.push_str(" {\n");
                render(body, &format!("{indent}{unit}"), unit, out);
                out.push_str(indent);
                out.push_str("}\n");
            }
        }
    }
}

/// Where `async ` goes: before `function`, an arrow's parameters, a method's name.
fn async_at(func: Node) -> usize {
    match func.kind() {
        "arrow_function" => func.start_byte(),
        "method_definition" => func
            .child_by_field_name("name")
            .map_or(func.start_byte(), |n| n.start_byte()),
        _ => has_token(func, "function").unwrap_or(func.start_byte()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(src: &str, at: &str) -> Result<String, FkError> {
        let lang = Lang::TypeScript;
        let at = src.find(at).expect("position in source");
        convert_to_async(lang, src, at).map(|s| s.apply(src).unwrap())
    }

    fn refused(src: &str, at: &str, needle: &str) {
        let err = conv(src, at).expect_err("refused");
        assert!(
            err.message.contains(needle),
            "{needle:?} not in {}",
            err.message
        );
    }

    #[test]
    fn then_callbacks_become_awaits_in_order() {
        assert_eq!(
            conv(
                "function load(url: string): Promise<number> {\n  const u = url.trim();\n  return fetch(u).then((res) => res.json()).then((data) => {\n    console.log(data);\n    return data.length;\n  });\n}\n",
                "load"
            )
            .unwrap(),
            "async function load(url: string): Promise<number> {\n  const u = url.trim();\n  const res = await fetch(u);\n  const data = await res.json();\n  console.log(data);\n  return data.length;\n}\n"
        );
    }

    #[test]
    fn catch_and_finally_become_try() {
        assert_eq!(
            conv(
                "const get = (k: string) => read(k).then((v) => v + 1).catch((e) => -1).finally(() => done());\n",
                "get"
            )
            .unwrap(),
            "const get = async (k: string) => {\n  try {\n    const v = await read(k);\n    return v + 1;\n  } catch (e: any) {\n    return -1;\n  } finally {\n    await done();\n  }\n};\n"
        );
        // `.then(undefined, h)` is a `.catch`; a name is called.
        assert_eq!(
            conv(
                "function f() {\n  return p().then(undefined, report);\n}\n",
                "f"
            )
            .unwrap(),
            "async function f() {\n  try {\n    return await p();\n  } catch (error: any) {\n    return report(error);\n  }\n}\n"
        );
    }

    #[test]
    fn a_name_callback_and_a_method() {
        assert_eq!(
            conv(
                "class A {\n  run() {\n    return this.load().then(parse).then(check);\n  }\n}\n",
                "run"
            )
            .unwrap(),
            "class A {\n  async run() {\n    const result = await this.load();\n    const result2 = await parse(result);\n    return check(result2);\n  }\n}\n"
        );
    }

    #[test]
    fn refusals_name_the_shape() {
        refused(
            "function f() { return p().then(a, b); }\n",
            "f",
            "both a fulfilled and a rejected",
        );
        refused(
            "function f() { return p().catch(h).then(g); }\n",
            "f",
            "follows a `.catch`",
        );
        refused(
            "function f() { if (x) return 1; return p().then(g); }\n",
            "f",
            "returns at line 1 too",
        );
        refused(
            "function f() { return p(); }\n",
            "f",
            "not a `.then`/`.catch`/`.finally` chain",
        );
        refused(
            "async function f() { return p().then(g); }\n",
            "f",
            "already `async`",
        );
        refused(
            "function f(): PromiseLike<number> { return p().then(g); }\n",
            "f",
            "returns a `Promise`",
        );
        refused(
            "function f() { return p().then(function () { return this.x; }); }\n",
            "f",
            "its own `this`",
        );
        refused(
            "function f() { return p().then((a, b) => a); }\n",
            "f",
            "takes 2 parameters",
        );
        refused(
            "function f() { return p().then(o.m); }\n",
            "f",
            "is the method `o.m`",
        );
        refused(
            "function f() { const x = 1; return p().then((x) => x); }\n",
            "f",
            "`x`, which the `.then` callback declares (line 1), is also a name",
        );
        refused(
            "function f() { return p().then((v) => { if (v) { return 1; } return 2; }).then(g); }\n",
            "f",
            "returns at line 1 before its end",
        );
        refused(
            "function f() { return p().finally(() => { return 1; }); }\n",
            "f",
            "`.finally` callback at line 1 returns",
        );
        refused("function* f() { return p().then(g); }\n", "f", "generator");
        refused("let x = 1;\n", "x", "no function");
        refused(
            "function f() {\n  return p().then((v) => {\n    return `a\n    b`;\n  });\n}\n",
            "f",
            "template literal over several lines",
        );
    }
}
