//! `convert_to_async` for Python without a language server. Python has no `.then`
//! chains; its legacy asynchronous code is the generator-based coroutine, a `def` decorated
//! `@asyncio.coroutine` or `@types.coroutine` that waits with `yield from`. It becomes an
//! `async def` that waits with `await` (its operand parenthesized where `await` binds tighter),
//! the decorator dropped, and the decorator's import too once nothing else uses it (through
//! the unused-import removal of `imports.rs`).
//!
//! Refused, naming the construct and its line: a function not decorated so (a plain `def`
//! made `async` would change every caller), one already `async`; a bare `yield` or
//! `yield value` (a generator, not a coroutine); `yield from` in a nested function, lambda,
//! class or comprehension; a `@types.coroutine` function without `yield from` (the decorator
//! leaves it a plain function); `yield from` of a call of a plain generator of this file
//! (`await` takes no generator), and a call of the function by `yield from` in a plain
//! generator of this file (that cannot delegate to a native coroutine).

use super::*;
use crate::steps::{invalid, line, quote, to_splices};
use filekit_splices::Splices;
use std::collections::HashMap;

const HINT: &str = "convert_to_async converts a generator-based coroutine: a `def` decorated `@asyncio.coroutine` or `@types.coroutine` that waits with `yield from`";

/// Which decorator makes a generator-based coroutine, as written, and what it binds.
struct Decorator<'a> {
    node: Node<'a>,
    /// The name the decorator's expression starts with (`asyncio`, `types`, `coroutine`).
    head: String,
    /// `types.coroutine`, which leaves a function without `yield from` as it is.
    types: bool,
}

/// What each name of a module-level import statement stands for: (`asyncio`, `coroutine`) for
/// `from asyncio import coroutine`, (`asyncio`, ``) for `import asyncio`, by the bound name.
fn imported(text: &str, root: Node) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut c = root.walk();
    for st in root.named_children(&mut c) {
        match st.kind() {
            "import_statement" => {
                let mut c2 = st.walk();
                for n in st.children_by_field_name("name", &mut c2) {
                    let (module, bound) = if n.kind() == "aliased_import" {
                        let (Some(m), Some(a)) = (
                            n.child_by_field_name("name"),
                            n.child_by_field_name("alias"),
                        ) else {
                            continue;
                        };
                        (&text[m.byte_range()], &text[a.byte_range()])
                    } else {
                        (&text[n.byte_range()], &text[n.byte_range()])
                    };
                    out.push((bound.to_string(), squash(module), String::new()));
                }
            }
            "import_from_statement" => {
                let Some(m) = st.child_by_field_name("module_name") else {
                    continue;
                };
                let module = squash(&text[m.byte_range()]);
                let mut c2 = st.walk();
                for n in st.children_by_field_name("name", &mut c2) {
                    let (name, bound) = if n.kind() == "aliased_import" {
                        let (Some(x), Some(a)) = (
                            n.child_by_field_name("name"),
                            n.child_by_field_name("alias"),
                        ) else {
                            continue;
                        };
                        (&text[x.byte_range()], &text[a.byte_range()])
                    } else {
                        (&text[n.byte_range()], &text[n.byte_range()])
                    };
                    out.push((bound.to_string(), module.clone(), name.to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

/// The coroutine decorator among a definition's decorators, if any.
fn coroutine_decorator<'a>(
    text: &str,
    imports: &[(String, String, String)],
    def: Node<'a>,
) -> Option<Decorator<'a>> {
    let wrapper = def
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut c = wrapper.walk();
    let decorators: Vec<Node<'a>> = wrapper
        .named_children(&mut c)
        .filter(|d| d.kind() == "decorator")
        .collect();
    decorators.into_iter().find_map(|d| {
        let expr = squash(text[d.byte_range()].trim_start_matches('@'));
        let (head, rest) = expr.split_once('.').unwrap_or((&expr, ""));
        let (module, name) =
            imports
                .iter()
                .find(|(bound, _, _)| bound == head)
                .map(|(_, m, n)| {
                    if n.is_empty() {
                        (m.clone(), rest.to_string())
                    } else {
                        (
                            m.clone(),
                            if rest.is_empty() {
                                n.clone()
                            } else {
                                format!("{n}.{rest}")
                            },
                        )
                    }
                })?;
        (matches!(module.as_str(), "asyncio" | "types") && name == "coroutine").then(|| Decorator {
            node: d,
            head: head.to_string(),
            types: module == "types",
        })
    })
}

fn function_at(root: Node, at: usize) -> Option<Node> {
    let mut n = root.descendant_for_byte_range(at, at)?;
    loop {
        match n.kind() {
            "function_definition" => return Some(n),
            "decorated_definition" => return n.child_by_field_name("definition"),
            _ => n = n.parent()?,
        }
    }
}

fn is_yield_from(text: &str, y: Node) -> bool {
    let mut c = y.walk();
    let found = y.children(&mut c).any(|x| x.kind() == "from");
    found || text[y.byte_range()].starts_with("yield from")
}

/// The `yield` nodes of a function body, each with the nested function, lambda, class or
/// comprehension it is in, if any.
fn yields<'a>(n: Node<'a>, nested: Option<Node<'a>>, out: &mut Vec<(Node<'a>, Option<Node<'a>>)>) {
    if n.kind() == "yield" {
        out.push((n, nested));
    }
    let inner = match n.kind() {
        "function_definition" | "lambda" | "class_definition" => nested.or(Some(n)),
        k if scopes::is_comprehension(k) => nested.or(Some(n)),
        _ => nested,
    };
    let mut c = n.walk();
    let ch: Vec<Node> = n.named_children(&mut c).collect();
    for x in ch {
        yields(x, inner, out);
    }
}

fn is_async(def: Node) -> bool {
    let mut c = def.walk();
    def.children(&mut c).any(|x| x.kind() == "async")
}

/// The innermost function around `n`.
fn enclosing_function(n: Node) -> Option<Node> {
    let mut p = n.parent();
    while let Some(x) = p {
        if matches!(x.kind(), "function_definition" | "lambda") {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

/// Whether `def` is a plain generator: a `def` with a `yield` of its own, not `async`, not a
/// coroutine by decorator.
fn plain_generator(text: &str, imports: &[(String, String, String)], def: Node) -> bool {
    if is_async(def) || coroutine_decorator(text, imports, def).is_some() {
        return false;
    }
    let Some(body) = def.child_by_field_name("body") else {
        return false;
    };
    let mut ys = Vec::new();
    yields(body, None, &mut ys);
    ys.iter().any(|(_, nested)| nested.is_none())
}

fn kind_word(n: Node) -> &'static str {
    match n.kind() {
        "function_definition" => "a nested function",
        "lambda" => "a lambda",
        "class_definition" => "a class",
        _ => "a comprehension",
    }
}

fn primary(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "call"
            | "attribute"
            | "subscript"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

/// Converts the generator-based coroutine at `at` (inside it or on a decorator) to
/// `async def`.
pub fn convert_to_async(text: &str, at: usize) -> Result<Splices, FkError> {
    let tree = crate::python::extract::parse(text)?;
    let root = tree.root_node();
    let def = function_at(root, at).ok_or_else(|| {
        let p = crate::position(text, at);
        FkError::new(
            ErrorCode::NotFound,
            format!("no function at line {}, column {}", p.line, p.column),
        )
        .with_hint("point the selection's start inside the function, or on its decorator")
    })?;
    let name_node = def.child_by_field_name("name").expect("a def has a name");
    let name = &text[name_node.byte_range()];
    let fl = line(text, def.start_byte());
    if is_async(def) {
        return Err(invalid(
            format!("`{name}` (line {fl}) is already `async`"),
            HINT,
        ));
    }
    let imports = imported(text, root);
    let Some(dec) = coroutine_decorator(text, &imports, def) else {
        return Err(invalid(
            format!(
                "`{name}` (line {fl}) is not decorated `@asyncio.coroutine` or `@types.coroutine`: making a plain `def` `async` would change what every caller gets (a coroutine to await instead of its value or a generator)"
            ),
            HINT,
        ));
    };
    // The module's functions by name, and which are plain generators (each asked once).
    let mut top_defs: HashMap<&str, Vec<Node>> = HashMap::new();
    let mut c = root.walk();
    for st in root.named_children(&mut c) {
        let d = match st.kind() {
            "decorated_definition" => st.child_by_field_name("definition"),
            _ => Some(st),
        };
        if let Some(d) = d.filter(|d| d.kind() == "function_definition")
            && let Some(n) = d.child_by_field_name("name")
        {
            top_defs.entry(&text[n.byte_range()]).or_default().push(d);
        }
    }
    let mut plain: HashMap<usize, bool> = HashMap::new();
    let body = def.child_by_field_name("body").expect("a def has a body");
    let mut ys = Vec::new();
    yields(body, None, &mut ys);
    let mut cuts = Vec::new();
    for (y, nested) in &ys {
        // Counted only for a refusal: a line number costs a scan of the text before it.
        let yl = || line(text, y.start_byte());
        if let Some(n) = nested {
            if is_yield_from(text, *y) {
                return Err(invalid(
                    format!(
                        "`{}` at line {} is inside {} (line {}), not `{name}` itself: `await` there would not wait in `{name}`",
                        quote(text, *y),
                        yl(),
                        kind_word(*n),
                        line(text, n.start_byte())
                    ),
                    HINT,
                ));
            }
            continue;
        }
        if !is_yield_from(text, *y) {
            return Err(invalid(
                format!(
                    "`{}` at line {} is a bare `yield`: `{name}` is a generator, not a coroutine that waits only with `yield from`",
                    quote(text, *y),
                    yl()
                ),
                HINT,
            ));
        }
        let Some(operand) = y.named_child(0) else {
            return Err(invalid(
                format!("`yield from` at line {} has no operand", yl()),
                HINT,
            ));
        };
        if matches!(
            operand.kind(),
            "list"
                | "tuple"
                | "set"
                | "dictionary"
                | "string"
                | "concatenated_string"
                | "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression"
        ) {
            return Err(invalid(
                format!(
                    "`{}` at line {} delegates to an iterable, not an awaitable: `{name}` is a generator",
                    quote(text, *y),
                    yl()
                ),
                HINT,
            ));
        }
        if operand.kind() == "call"
            && let Some(f) = operand.child_by_field_name("function")
            && f.kind() == "identifier"
        {
            let callee = &text[f.byte_range()];
            let defs = top_defs.get(callee).map_or(&[][..], Vec::as_slice);
            if let Some(g) = defs.iter().find(|d| {
                *plain
                    .entry(d.id())
                    .or_insert_with(|| plain_generator(text, &imports, **d))
            }) {
                return Err(invalid(
                    format!(
                        "`{}` at line {}: `{callee}` (line {}) is a plain generator, which `await` cannot take",
                        quote(text, *y),
                        yl(),
                        line(text, g.start_byte())
                    ),
                    "convert or decorate that generator first",
                ));
            }
        }
        let open = if primary(operand.kind()) { "" } else { "(" };
        cuts.push(Splice::new(
            y.start_byte(),
            operand.start_byte(),
            format!("await {open}"),
        ));
        if !open.is_empty() {
            cuts.push(Splice::insert(operand.end_byte(), ")"));
        }
    }
    if dec.types && cuts.is_empty() {
        return Err(invalid(
            format!(
                "`{name}` (line {fl}) has no `yield from`: `@types.coroutine` leaves such a function as it is, so its callers get its value, not a coroutine"
            ),
            HINT,
        ));
    }
    // Callers in this file that delegate to it from a plain generator.
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() == "yield"
            && is_yield_from(text, n)
            && let Some(call) = n.named_child(0).filter(|x| x.kind() == "call")
            && call
                .child_by_field_name("function")
                .is_some_and(|f| f.kind() == "identifier" && &text[f.byte_range()] == name)
            && let Some(g) = enclosing_function(n)
            && g.kind() == "function_definition"
            && g.id() != def.id()
            && *plain
                .entry(g.id())
                .or_insert_with(|| plain_generator(text, &imports, g))
        {
            return Err(invalid(
                format!(
                    "`{name}` is delegated to by `yield from` at line {} in a plain generator (line {}): a generator cannot `yield from` a native coroutine",
                    line(text, n.start_byte()),
                    line(text, g.start_byte())
                ),
                "convert that caller first, or decorate it as a coroutine",
            ));
        }
    }
    // The decorator's lines go; `def` becomes `async def`.
    let d = dec.node;
    let ls = text[..d.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let after = &text[d.end_byte()..];
    let end = after
        .find('\n')
        .map_or(text.len(), |i| d.end_byte() + i + 1);
    cuts.push(Splice::delete(ls, end));
    cuts.push(Splice::insert(def.start_byte(), "async "));
    let converted = to_splices(text, cuts)?;
    let new_text = converted
        .apply(text)
        .map_err(|e| FkError::new(ErrorCode::Conflict, format!("convert_to_async: {e}")))?;
    let cleanup = import_cleanup(&new_text, &dec.head)?;
    converted.compose(&cleanup).map_err(|e| {
        FkError::new(
            ErrorCode::Conflict,
            format!("the refactor computed overlapping edits: {e}"),
        )
    })
}

/// The removal of the import that bound the decorator's first name, when the converted text
/// no longer uses it and nothing else on that statement goes with it.
fn import_cleanup(text: &str, head: &str) -> Result<Splices, FkError> {
    let tree = parse(text)?;
    let opts = ImportOptions {
        is_init: false,
        section: &|_| Section::ThirdParty,
    };
    let scan = imports::scan(text, &tree, &opts);
    let target = scan.stmts.iter().zip(&scan.used).find(|(st, used)| {
        st.items
            .iter()
            .zip(used.iter())
            .any(|(it, u)| !*u && it.bound(st.from.is_none()) == head)
    });
    let Some((st, used)) = target else {
        return Ok(Splices::none(text));
    };
    let others_used = st
        .items
        .iter()
        .zip(used.iter())
        .all(|(it, u)| *u || it.bound(st.from.is_none()) == head);
    if !others_used {
        return Ok(Splices::none(text));
    }
    let all = remove_unused_imports(text, &opts)?;
    let mine: Vec<Splice> = all
        .into_iter()
        .filter(|s| s.start < st.end && st.range.start <= s.end)
        .collect();
    to_splices(text, mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(src: &str, at: &str) -> Result<String, FkError> {
        let at = src.find(at).expect("marker in source");
        convert_to_async(src, at).map(|s| s.apply(src).unwrap())
    }

    #[test]
    fn converts_a_generator_coroutine_and_drops_its_import() {
        let src = "import asyncio\n\n\n@asyncio.coroutine\ndef fetch(n):\n    yield from asyncio.sleep(0)\n    x = yield from other(n)\n    return (yield from a or b) + x\n";
        assert_eq!(
            convert(src, "fetch").unwrap(),
            "import asyncio\n\n\nasync def fetch(n):\n    await asyncio.sleep(0)\n    x = await other(n)\n    return (await (a or b)) + x\n"
        );
        let src = "import types\nimport os\n\n\n@types.coroutine\ndef step():\n    yield from os.wait()\n";
        assert_eq!(
            convert(src, "step").unwrap(),
            "import os\n\n\nasync def step():\n    await os.wait()\n"
        );
        let src = "from types import coroutine, new_class\n\nnew_class\n\n@coroutine\n@other\ndef step(t):\n    return (yield from t)\n";
        assert_eq!(
            convert(src, "yield").unwrap(),
            "from types import new_class\n\nnew_class\n\n@other\nasync def step(t):\n    return (await t)\n"
        );
    }

    #[test]
    fn refusals_name_the_construct() {
        let e = convert("def f():\n    yield from g()\n", "f").unwrap_err();
        assert!(e.message.contains("not decorated"), "{}", e.message);
        let src = "import types\n@types.coroutine\ndef f():\n    yield 1\n";
        let e = convert(src, "def").unwrap_err();
        assert!(
            e.message.contains("bare `yield` at line 4") || e.message.contains("line 4"),
            "{}",
            e.message
        );
        let src = "import types\n@types.coroutine\ndef f():\n    def g():\n        yield from h()\n    return g\n";
        let e = convert(src, "def f").unwrap_err();
        assert!(
            e.message.contains("a nested function (line 4)"),
            "{}",
            e.message
        );
        let src = "import types\n@types.coroutine\ndef f():\n    return 1\n";
        let e = convert(src, "def").unwrap_err();
        assert!(e.message.contains("no `yield from`"), "{}", e.message);
        let src = "import types\ndef gen():\n    yield 1\n@types.coroutine\ndef f():\n    yield from gen()\n";
        let e = convert(src, "def f").unwrap_err();
        assert!(e.message.contains("plain generator"), "{}", e.message);
        let src = "import types\n@types.coroutine\ndef f():\n    yield from g()\ndef caller():\n    yield from f()\n";
        let e = convert(src, "def f").unwrap_err();
        assert!(e.message.contains("delegated to"), "{}", e.message);
        let src = "import types\n@types.coroutine\ndef f():\n    yield from [1, 2]\n";
        let e = convert(src, "def").unwrap_err();
        assert!(e.message.contains("an iterable"), "{}", e.message);
        let e = convert("async def f():\n    pass\n", "f").unwrap_err();
        assert!(e.message.contains("already `async`"), "{}", e.message);
        assert_eq!(
            convert("x = 1\n", "x").unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(
            convert("def f(:\n", "f").unwrap_err().code,
            ErrorCode::ParseError
        );
    }
}
