//! The type a TS declaration gives a name, written as text that means the same at another
//! place (a function extracted to module level, a method of the class): the annotation of its
//! declaration, or the type its declaration makes evident without a type checker (a
//! `new C<T>()`, a literal, an `as` cast, a call of a function of this file that states its
//! return type, a destructuring of a typed value, an element of a typed array), or why none
//! can be known. A parameter written without one is implicitly `any`, which the compiler
//! refuses under `noImplicitAny` (part of `strict`): the caller decides with the project's
//! settings, this module only says which names have no known type and why.

use crate::steps::{field_is, line};
use crate::ts::extract::bound_from;
use crate::ts::{occurrences, scopes_for};
use std::fmt;
use tree_sitter::{Node, Tree};

/// A name a refactor declares without a type (a parameter of an extracted function, or of a
/// function expression moved away from the place that typed it, or a variable whose value
/// states none), and why no type is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untyped {
    pub name: String,
    pub declared: Declared,
    pub why: String,
}

/// What an [`Untyped`] name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    Parameter,
    Variable,
}

impl Declared {
    pub fn as_str(self) -> &'static str {
        match self {
            Declared::Parameter => "parameter",
            Declared::Variable => "variable",
        }
    }
}

impl Untyped {
    pub(crate) fn parameter(name: impl Into<String>, why: impl Into<String>) -> Untyped {
        Untyped {
            name: name.into(),
            declared: Declared::Parameter,
            why: why.into(),
        }
    }
}

impl fmt::Display for Untyped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} `{}`: {}",
            self.declared.as_str(),
            self.name,
            self.why
        )
    }
}

/// What `const name = <expr>` (no annotation) would leave without a type that had one where
/// `expr` was written: the parameters of a function that took their types from that place
/// (an argument, a property of an object passed, a value assigned to a typed place), and an
/// empty array, whose element type the compiler cannot know apart from its uses.
pub(crate) fn declared_apart(text: &str, expr: Node, name: &str) -> Vec<Untyped> {
    let mut out = Vec::new();
    if expr.kind() == "array" && expr.named_child_count() == 0 {
        out.push(Untyped {
            name: name.to_string(),
            declared: Declared::Variable,
            why: "its value `[]` is an array whose element type the compiler cannot know".into(),
        });
    }
    // Down the nodes that pass their place's type on to what they hold.
    let mut stack = vec![expr];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        match n.kind() {
            "parenthesized_expression" | "array" => stack.extend(kids),
            "object" => {
                for k in kids {
                    match k.kind() {
                        "pair" => stack.extend(k.child_by_field_name("value")),
                        "method_definition" => untyped_parameters(text, k, &mut out),
                        _ => {}
                    }
                }
            }
            "ternary_expression" => {
                stack.extend(n.child_by_field_name("consequence"));
                stack.extend(n.child_by_field_name("alternative"));
            }
            "binary_expression"
                if n.child_by_field_name("operator")
                    .is_some_and(|o| matches!(o.kind(), "||" | "&&" | "??")) =>
            {
                stack.extend(n.child_by_field_name("left"));
                stack.extend(n.child_by_field_name("right"));
            }
            "arrow_function" | "function_expression" | "function" => {
                untyped_parameters(text, n, &mut out);
                // An expression body returns into the same lost place.
                stack.extend(
                    n.child_by_field_name("body")
                        .filter(|b| b.kind() != "statement_block"),
                );
            }
            _ => {}
        }
    }
    out
}

/// The parameters of `f` written without a type or a default.
fn untyped_parameters(text: &str, f: Node, out: &mut Vec<Untyped>) {
    let why = format!(
        "it is a parameter of the function at line {}, which takes its type from where that function is written; declared apart, it has none",
        line(text, f.start_byte())
    );
    if let Some(p) = f.child_by_field_name("parameter") {
        out.push(Untyped::parameter(&text[p.byte_range()], why.clone()));
    }
    let Some(ps) = f.child_by_field_name("parameters") else {
        return;
    };
    let mut c = ps.walk();
    for p in ps.named_children(&mut c) {
        if !matches!(p.kind(), "required_parameter" | "optional_parameter")
            || p.child_by_field_name("type").is_some()
            || p.child_by_field_name("value").is_some()
        {
            continue;
        }
        if let Some(pattern) = p.child_by_field_name("pattern")
            && pattern.kind() != "this"
        {
            out.push(Untyped::parameter(
                crate::steps::quote(text, pattern),
                why.clone(),
            ));
        }
    }
}

/// Where a type is written: the node whose scope the new declaration sees (the program, or a
/// class body), and the type parameters of functions around the old place that the type uses
/// (the new function declares them too).
pub(crate) struct Place<'a, 'g> {
    pub sees: Node<'a>,
    pub generics: &'g mut Vec<Node<'a>>,
}

/// Whether `inner` is inside `outer` (or is it).
fn within(inner: Node, outer: Node) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// Checks that every type name under `n` means the same at `place`: a type parameter of a
/// function around the old place is added to `place.generics`; a type declared in the
/// `moved` range goes with the code; another type the place cannot see is returned with the
/// line of the scope that declares it.
pub(crate) fn type_names<'a>(
    tree: &'a Tree,
    text: &str,
    n: Node<'a>,
    place: &mut Place<'a, '_>,
    moved: &std::ops::Range<usize>,
) -> Result<(), (String, usize)> {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
        if x.kind() != "type_identifier" {
            continue;
        }
        let nm = &text[x.byte_range()];
        let occ = occurrences(tree, text, nm);
        let scopes = scopes_for(tree, text, &occ);
        let Some(b) = bound_from(&scopes, x, nm) else {
            continue;
        };
        if within(place.sees, b) || (moved.start <= b.start_byte() && b.end_byte() <= moved.end) {
            continue;
        }
        let starts = scopes
            .decls
            .get(&(b.id(), nm.to_string()))
            .cloned()
            .unwrap_or_default();
        let decl = occ.iter().find(|o| starts.contains(&o.start_byte()));
        match decl.and_then(|d| d.parent()) {
            Some(tp) if tp.kind() == "type_parameter" => {
                if !place.generics.iter().any(|g| g.id() == tp.id()) {
                    place.generics.push(tp);
                }
            }
            _ => return Err((nm.to_string(), line(text, b.start_byte()))),
        }
    }
    Ok(())
}

/// The type text of a node of a type, visible at `place`.
fn visible_type<'a>(
    tree: &'a Tree,
    text: &str,
    ty: Node<'a>,
    place: &mut Place<'a, '_>,
) -> Result<String, String> {
    type_names(tree, text, ty, place, &(0..0)).map_err(|(nm, at)| {
        format!("its type uses `{nm}`, declared at line {at} where the new function cannot see it")
    })?;
    Ok(text[ty.byte_range()]
        .trim_start()
        .trim_start_matches(':')
        .trim()
        .to_string())
}

/// A type a condition may narrow to a part of it (a union, `unknown`), by its text.
fn narrowable(ty: &str) -> bool {
    ty.contains('|') || ty == "unknown"
}

/// Whether a type's text can take `[...]` or `| undefined` without parentheses.
fn simple(ty: &str) -> bool {
    ty.chars().all(|c| {
        c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '<' | '>' | '[' | ']' | ',' | ' ')
    })
}

/// The type to write for the name declared at `decl` (an occurrence that declares it), or
/// why there is none. `narrowed`: a condition or an assignment before the old place may have
/// narrowed the name, so a declared type that a condition can narrow is not its type there.
pub(crate) fn declared_type<'a>(
    tree: &'a Tree,
    text: &str,
    decl: Node<'a>,
    place: &mut Place<'a, '_>,
    narrowed: bool,
) -> Result<String, String> {
    let Some(mut h) = decl.parent() else {
        return Err("its declaration has no type annotation".into());
    };
    // `...rest: T[]`: the rest parameter has the annotation's type.
    let mut child = decl;
    if h.kind() == "rest_pattern" {
        child = h;
        h = h.parent().ok_or("its declaration has no type annotation")?;
        if h.kind() != "required_parameter" {
            return Err("it is the rest of a destructuring".into());
        }
    }
    let may_narrow = |ty: String, always: bool| {
        if narrowed && (always || narrowable(&ty)) {
            Err(format!(
                "its declared type `{ty}` may be narrowed by a condition before the selection"
            ))
        } else {
            Ok(ty)
        }
    };
    match h.kind() {
        "required_parameter" | "optional_parameter" if field_is(h, "pattern", child) => {
            let optional = h.kind() == "optional_parameter";
            let Some(ann) = h.child_by_field_name("type") else {
                // `x = 1`: the default's type, widened as a `let`'s.
                if let Some(value) = h.child_by_field_name("value")
                    && child.id() == decl.id()
                {
                    let (ty, may) = evident(tree, text, value, false, place)
                        .map_err(|_| untyped_parameter(text, h))?;
                    return may_narrow(ty, may);
                }
                return Err(untyped_parameter(text, h));
            };
            let ty = visible_type(tree, text, ann, place)?;
            let ty = may_narrow(ty, optional)?;
            Ok(match (optional, simple(&ty)) {
                (false, _) => ty,
                (true, true) => format!("{ty} | undefined"),
                // `(a) => b | undefined` would be a function returning `b | undefined`
                (true, false) => format!("({ty}) | undefined"),
            })
        }
        "arrow_function" if field_is(h, "parameter", decl) => Err(untyped_parameter(text, h)),
        "variable_declarator" if field_is(h, "name", decl) => {
            if let Some(ann) = h.child_by_field_name("type") {
                let ty = visible_type(tree, text, ann, place)?;
                return may_narrow(ty, false);
            }
            let constant = h.parent().is_some_and(|d| {
                d.kind() == "lexical_declaration" && d.child(0).is_some_and(|k| k.kind() == "const")
            });
            let Some(value) = h.child_by_field_name("value") else {
                return Err("it is declared without a type or a value".into());
            };
            let (ty, may) = evident(tree, text, value, constant, place)?;
            may_narrow(ty, may)
        }
        "object_pattern"
        | "pair_pattern"
        | "object_assignment_pattern"
        | "array_pattern"
        | "assignment_pattern" => {
            let ty = destructured(tree, text, decl, place)?;
            may_narrow(ty, true)
        }
        "for_in_statement" if field_is(h, "left", decl) => {
            let of = h
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "of");
            let right = h.child_by_field_name("right");
            match right {
                Some(r) if of && r.kind() == "identifier" => {
                    let element = element_type(tree, text, r, place)?;
                    may_narrow(element, false)
                }
                _ => Err(format!(
                    "it is an element of `{}`, whose type is not stated here",
                    right.map_or("", |r| &text[r.byte_range()])
                )),
            }
        }
        "catch_clause" => Err("it is the error of a `catch`".into()),
        _ => Err("its declaration has no type annotation".into()),
    }
}

/// Why a parameter without an annotation has no known type.
fn untyped_parameter(text: &str, param: Node) -> String {
    let f = if param.kind() == "arrow_function" {
        Some(param)
    } else {
        param.parent().and_then(|ps| ps.parent())
    };
    match f {
        Some(f)
            if matches!(
                f.kind(),
                "arrow_function" | "function_expression" | "function"
            ) =>
        {
            format!(
                "it is a parameter of the function at line {}, which takes its type from where that function is passed",
                line(text, f.start_byte())
            )
        }
        _ => "its declaration has no type annotation".into(),
    }
}

/// Globals that are classes of no type parameter in every `lib`: `new Error(...)` is an
/// `Error`. (A generic one, `new Map()`, infers arguments the bare name does not have.)
const PLAIN_GLOBAL_CLASSES: &[&str] = &[
    "Error",
    "TypeError",
    "RangeError",
    "SyntaxError",
    "ReferenceError",
    "EvalError",
    "URIError",
    "Date",
    "RegExp",
];

/// The type a variable's value makes evident, and whether a condition may narrow it (as for
/// an annotation: by its text). `constant`: declared with `const`, which keeps a literal's
/// own type (`'a'`); `let` and `var` widen it (`string`).
fn evident<'a>(
    tree: &'a Tree,
    text: &str,
    value: Node<'a>,
    constant: bool,
    place: &mut Place<'a, '_>,
) -> Result<(String, bool), String> {
    let mut v = value;
    while v.kind() == "parenthesized_expression" {
        v = v.named_child(0).ok_or("its value is empty")?;
    }
    let literal = |own: String, widened: &str| -> Result<(String, bool), String> {
        Ok((if constant { own } else { widened.to_string() }, false))
    };
    let t = &text[v.byte_range()];
    match v.kind() {
        "string" => literal(t.to_string(), "string"),
        "template_string" => {
            let mut c = v.walk();
            if v.named_children(&mut c)
                .any(|x| x.kind() == "template_substitution")
            {
                return Ok(("string".into(), false));
            }
            literal(t.to_string(), "string")
        }
        "number" if t.ends_with('n') && !t.starts_with("0x") && !t.starts_with("0X") => {
            literal(t.to_string(), "bigint")
        }
        "number" => literal(t.to_string(), "number"),
        "true" | "false" => literal(t.to_string(), "boolean"),
        "unary_expression"
            if v.child_by_field_name("operator").map(|o| o.kind()) == Some("-")
                && v.child_by_field_name("argument").is_some_and(|a| {
                    a.kind() == "number" && !text[a.byte_range()].ends_with('n')
                }) =>
        {
            let arg = v.child_by_field_name("argument").expect("checked");
            literal(format!("-{}", &text[arg.byte_range()]), "number")
        }
        "new_expression" => constructed(tree, text, v, place).map(|t| (t, false)),
        "as_expression" => {
            let last = v
                .child(v.child_count().saturating_sub(1))
                .ok_or("no type")?;
            if last.kind() == "const" {
                return Err("its value is declared `as const`, whose type is not stated".into());
            }
            visible_type(tree, text, last, place).map(|t| (t, true))
        }
        "type_assertion" => {
            let ty = v
                .named_child(0)
                .filter(|a| a.kind() == "type_arguments")
                .and_then(|a| a.named_child(0))
                .ok_or("no type")?;
            visible_type(tree, text, ty, place).map(|t| (t, true))
        }
        "call_expression" => returned(tree, text, v, false, place).map(|t| (t, true)),
        "await_expression" => {
            let call = v
                .named_child(0)
                .filter(|c| c.kind() == "call_expression")
                .ok_or("its value is awaited, and what it awaits states no type")?;
            returned(tree, text, call, true, place).map(|t| (t, true))
        }
        _ => Err(format!(
            "its declaration has no type annotation, and its value `{}` states no type",
            crate::steps::quote(text, v)
        )),
    }
}

/// The declaration that binds the identifier `id` (an occurrence that declares it), and the
/// scope it is declared in.
fn binding<'a>(tree: &'a Tree, text: &str, id: Node<'a>) -> Option<(Node<'a>, Node<'a>)> {
    let nm = &text[id.byte_range()];
    let occ = occurrences(tree, text, nm);
    let scopes = scopes_for(tree, text, &occ);
    let scope = bound_from(&scopes, id, nm)?;
    let starts = scopes.decls.get(&(scope.id(), nm.to_string()))?;
    let decl = occ
        .iter()
        .copied()
        .find(|o| starts.contains(&o.start_byte()))?;
    Some((decl, scope))
}

/// The instance type of `new C<T>(...)`: `C<T>`, when `C` names a class the new place sees.
fn constructed<'a>(
    tree: &'a Tree,
    text: &str,
    new: Node<'a>,
    place: &mut Place<'a, '_>,
) -> Result<String, String> {
    let ctor = new.child_by_field_name("constructor").ok_or("no class")?;
    let args = new.child_by_field_name("type_arguments");
    // `ns.C` of a namespace import, or a plain name.
    let head = {
        let mut h = ctor;
        while h.kind() == "member_expression" {
            h = h.child_by_field_name("object").ok_or("no class")?;
        }
        h
    };
    let shown = crate::steps::quote(text, new);
    if head.kind() != "identifier" {
        return Err(format!("its value `{shown}` does not name its class"));
    }
    let name = &text[ctor.byte_range()];
    match binding(tree, text, head) {
        None => {
            // A global: its type arguments are inferred unless given.
            if args.is_none() && !PLAIN_GLOBAL_CLASSES.contains(&name) {
                return Err(format!(
                    "its value `{shown}` infers the type arguments of `{name}`, which are not written"
                ));
            }
        }
        Some((decl, scope)) => {
            if !within(place.sees, scope) {
                return Err(format!(
                    "its value is a `{name}`, declared at line {} where the new function cannot see it",
                    line(text, decl.start_byte())
                ));
            }
            let holder = decl.parent().map(|p| p.kind()).unwrap_or_default();
            let class = matches!(holder, "class_declaration" | "abstract_class_declaration");
            let imported = matches!(
                holder,
                "import_specifier" | "import_clause" | "namespace_import"
            );
            if !(class || imported) {
                return Err(format!(
                    "its value is made by `{name}`, which is not declared as a class"
                ));
            }
            let generic = decl
                .parent()
                .and_then(|c| c.child_by_field_name("type_parameters"))
                .is_some();
            if args.is_none() && (imported || generic) {
                return Err(format!(
                    "its value `{shown}` infers the type arguments of `{name}`, which are not written"
                ));
            }
        }
    }
    let args = match args {
        Some(a) => visible_type(tree, text, a, place)?,
        None => String::new(),
    };
    Ok(format!("{name}{args}"))
}

/// The return type a call's function states (its `X` when the call awaits a `Promise<X>`), when it is a function of this file the new place sees, with no type parameters
/// and no overloads.
fn returned<'a>(
    tree: &'a Tree,
    text: &str,
    call: Node<'a>,
    awaited: bool,
    place: &mut Place<'a, '_>,
) -> Result<String, String> {
    let f = call.child_by_field_name("function").ok_or("no function")?;
    let no_type = || {
        format!(
            "its value `{}` is a call whose return type is not stated here",
            crate::steps::quote(text, call)
        )
    };
    if f.kind() != "identifier" {
        return Err(no_type());
    }
    let Some((decl, scope)) = binding(tree, text, f) else {
        return Err(no_type());
    };
    if !within(place.sees, scope) {
        return Err(no_type());
    }
    let holder = decl.parent().ok_or_else(no_type)?;
    let func = match holder.kind() {
        "function_declaration" => holder,
        "variable_declarator"
            if holder.parent().is_some_and(|d| {
                d.kind() == "lexical_declaration" && d.child(0).is_some_and(|k| k.kind() == "const")
            }) =>
        {
            holder
                .child_by_field_name("value")
                .filter(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                })
                .ok_or_else(no_type)?
        }
        _ => return Err(no_type()),
    };
    // Overloads: the implementation's signature is not what callers see.
    let overloaded = holder.prev_named_sibling().is_some_and(|s| {
        s.kind() == "function_signature"
            && s.child_by_field_name("name")
                .is_some_and(|n| text[n.byte_range()] == text[f.byte_range()])
    }) || holder.parent().is_some_and(|p| {
        p.kind() == "export_statement"
            && p.prev_named_sibling().is_some_and(|s| {
                s.kind() == "export_statement" && {
                    let mut c = s.walk();
                    s.named_children(&mut c)
                        .any(|x| x.kind() == "function_signature")
                }
            })
    });
    let Some(rt) = func.child_by_field_name("return_type") else {
        return Err(no_type());
    };
    if overloaded
        || func.child_by_field_name("type_parameters").is_some()
        || rt.kind() != "type_annotation"
    {
        return Err(no_type());
    }
    let ty = rt.named_child(0).ok_or_else(no_type)?;
    let ty = if awaited {
        ty.child_by_field_name("name")
            .filter(|n| ty.kind() == "generic_type" && &text[n.byte_range()] == "Promise")
            .and_then(|_| ty.child_by_field_name("type_arguments"))
            .filter(|a| a.named_child_count() == 1)
            .and_then(|a| a.named_child(0))
            .ok_or_else(no_type)?
    } else {
        ty
    };
    visible_type(tree, text, ty, place)
}

/// The type of a name a destructuring declares: the typed value's type indexed by the path
/// of property names (`P['a']['b']`), without `undefined` where the pattern gives a default.
fn destructured<'a>(
    tree: &'a Tree,
    text: &str,
    decl: Node<'a>,
    place: &mut Place<'a, '_>,
) -> Result<String, String> {
    let mut keys: Vec<String> = Vec::new();
    let mut default = false;
    let mut child = decl;
    if decl.kind() == "shorthand_property_identifier_pattern" {
        keys.push(format!("'{}'", &text[decl.byte_range()]));
    }
    let root = loop {
        let p = child
            .parent()
            .ok_or("its declaration has no type annotation")?;
        match p.kind() {
            "object_pattern" => {}
            "object_assignment_pattern" | "assignment_pattern" if field_is(p, "left", child) => {
                // A default of an outer level changes the type of the whole value there.
                if child.id() != decl.id() {
                    return Err("it is destructured from a value with a default".into());
                }
                default = true;
            }
            "pair_pattern" if field_is(p, "value", child) => {
                let key = p.child_by_field_name("key").ok_or("no key")?;
                let k = &text[key.byte_range()];
                keys.push(match key.kind() {
                    "property_identifier" => format!("'{k}'"),
                    "string" | "number" => k.to_string(),
                    _ => return Err("it is destructured by a computed key".into()),
                });
            }
            "array_pattern" => return Err("it is destructured from an array".into()),
            _ => break child,
        }
        child = p;
    };
    let holder = root.parent().ok_or("no declaration")?;
    let base = match holder.kind() {
        "variable_declarator" if field_is(holder, "name", root) => {
            match holder.child_by_field_name("type") {
                Some(ann) => visible_type(tree, text, ann, place)?,
                None => {
                    // `const { a } = o`: the declared type of `o`, when it is not one a
                    // condition could have narrowed.
                    let from = holder
                        .child_by_field_name("value")
                        .filter(|v| v.kind() == "identifier")
                        .ok_or("it is destructured from a value whose type is not stated here")?;
                    let (d, _) = binding(tree, text, from)
                        .ok_or("it is destructured from a value whose type is not stated here")?;
                    declared_type(tree, text, d, place, true).map_err(|why| {
                        format!(
                            "it is destructured from `{}`, whose type is not known: {why}",
                            &text[from.byte_range()]
                        )
                    })?
                }
            }
        }
        "required_parameter" if field_is(holder, "pattern", root) => {
            let ann = holder
                .child_by_field_name("type")
                .ok_or_else(|| untyped_parameter(text, holder))?;
            visible_type(tree, text, ann, place)?
        }
        _ => return Err("it is destructured from a value whose type is not stated here".into()),
    };
    keys.reverse();
    let base = if simple(&base) {
        base
    } else {
        format!("({base})")
    };
    let indexed = format!(
        "{base}{}",
        keys.iter().map(|k| format!("[{k}]")).collect::<String>()
    );
    Ok(if default {
        format!("Exclude<{indexed}, undefined>")
    } else {
        indexed
    })
}

/// The element type of an array the name `array` is declared with (`T[]`, `readonly T[]`,
/// `Array<T>`, `ReadonlyArray<T>`).
fn element_type<'a>(
    tree: &'a Tree,
    text: &str,
    array: Node<'a>,
    place: &mut Place<'a, '_>,
) -> Result<String, String> {
    let name = &text[array.byte_range()];
    let unknown = || format!("it is an element of `{name}`, whose type is not stated as an array");
    let (d, _) = binding(tree, text, array).ok_or_else(unknown)?;
    let holder = d.parent().ok_or_else(unknown)?;
    let ann = match holder.kind() {
        "required_parameter" | "variable_declarator" => holder.child_by_field_name("type"),
        _ => None,
    }
    .and_then(|a| a.named_child(0))
    .ok_or_else(unknown)?;
    let mut ty = ann;
    if ty.kind() == "readonly_type" {
        ty = ty.named_child(0).ok_or_else(unknown)?;
    }
    let element = match ty.kind() {
        "array_type" => ty.named_child(0),
        "generic_type"
            if ty
                .child_by_field_name("name")
                .is_some_and(|n| matches!(&text[n.byte_range()], "Array" | "ReadonlyArray")) =>
        {
            ty.child_by_field_name("type_arguments")
                .filter(|a| a.named_child_count() == 1)
                .and_then(|a| a.named_child(0))
        }
        _ => None,
    }
    .ok_or_else(unknown)?;
    visible_type(tree, text, element, place)
}
