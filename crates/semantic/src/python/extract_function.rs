//! `extract_function` and `extract_method` for Python without a language server:
//! the selected statements (whole statements of one block) or one expression become a `def`:
//! at module level after the module-level statement that holds the selection (before it when
//! the selection is module-level code, which runs as the module loads), or a method of the
//! enclosing class after the method that holds it, called through its receiver (`self.name(...)`;
//! a `@classmethod` stays one).
//!
//! Its parameters are the names the selection reads that are bound in a function around it
//! (the new place cannot see them); its result is what the selection binds that is read after
//! it: one name returned as it is, several as a tuple unpacked at the call site. A name the
//! selection binds that was also bound before it is passed in too, so that a binding the
//! selection skips keeps its value.
//!
//! Refused, naming the construct and its line: a selection that is neither whole statements
//! nor one expression; `return`, `break` or `continue` that leave the selection; `yield`;
//! `global`/`nonlocal`; an expression that binds a name (`:=`); a method's selection in a
//! nested function or a `@staticmethod`; a name that clashes.

use super::scopes::Analysis;
use crate::python::check_identifier;
use crate::python::extract::{SCOPES, bindings_in, expression_at, parse, reads};
use crate::steps::{field_is, invalid, line, quote, to_splices};
use crate::style::{indent_unit, line_head, multiline_strings, reindent_range};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::Splice;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::{Node, Tree};

pub use crate::steps::ExtractedFunction;

fn in_range(n: Node, r: &Range<usize>) -> bool {
    r.start <= n.start_byte() && n.end_byte() <= r.end
}

fn is_list(n: Node) -> bool {
    matches!(n.kind(), "module" | "block")
}

/// The statements a selection covers exactly, if it does.
fn statements_at<'a>(tree: &'a Tree, s: usize, e: usize) -> Option<Vec<Node<'a>>> {
    let mut n = tree.root_node().descendant_for_byte_range(s, e)?;
    while !is_list(n) {
        if let Some(p) = n.parent()
            && is_list(p)
            && n.start_byte() == s
            && n.end_byte() == e
        {
            return Some(vec![n]);
        }
        n = n.parent()?;
    }
    let mut c = n.walk();
    let kids: Vec<Node> = n.named_children(&mut c).collect();
    let inside: Vec<Node> = kids
        .iter()
        .copied()
        .filter(|k| k.start_byte() >= s && k.end_byte() <= e)
        .collect();
    let partial = kids.iter().any(|k| {
        k.start_byte() < e && k.end_byte() > s && !inside.iter().any(|i| i.id() == k.id())
    });
    let (first, last) = (inside.first()?, inside.last()?);
    if partial
        || first.start_byte() != s
        || last.end_byte() != e
        || inside.iter().all(|k| k.kind() == "comment")
    {
        return None;
    }
    Some(inside)
}

/// Whether a node is inside a function or lambda that starts inside the selection.
fn in_nested(n: Node, sel: &Range<usize>, kinds: &[&str]) -> bool {
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

fn descendants<'a>(nodes: &[Node<'a>]) -> Vec<Node<'a>> {
    let mut out = Vec::new();
    let mut stack: Vec<Node> = nodes.iter().rev().copied().collect();
    while let Some(x) = stack.pop() {
        out.push(x);
        let mut c = x.walk();
        let ch: Vec<Node> = x.children(&mut c).collect();
        stack.extend(ch.into_iter().rev());
    }
    out
}

/// The scope (function, lambda, comprehension, or the module) whose binding of `n`'s name
/// `n` sees: class bodies are skipped, as Python does for the functions in them (a
/// selection directly in a class body is refused before).
fn binding_scope<'a>(
    text: &str,
    analysis: &Analysis,
    n: Node<'a>,
    cache: &mut HashMap<(usize, String), Vec<Node<'a>>>,
) -> (Node<'a>, Vec<Node<'a>>) {
    let name = text[n.byte_range()].to_string();
    let mut p = n.parent();
    while let Some(x) = p {
        if (SCOPES.contains(&x.kind()) && x.kind() != "class_definition") || x.kind() == "module" {
            let b = cache
                .entry((x.id(), name.clone()))
                .or_insert_with(|| bindings_in(analysis, x, &name))
                .clone();
            if !b.is_empty() || x.kind() == "module" {
                return (x, b);
            }
        }
        p = x.parent();
    }
    (n, vec![])
}

/// How control leaves the selection.
struct Flow<'a> {
    /// The function whose body the selection ends, when it does.
    tail_of: Option<Node<'a>>,
    /// The selection returns for that function: the call is returned.
    returns_for_it: bool,
    /// It awaits (or loops or enters asynchronously): the new function is async.
    is_async: bool,
}

/// The selection's control flow, refused where it could not leave a function the same way
/// (`return` but at the end of its function's body, `yield`, `break` or `continue` out of it,
/// `global`, a class body, `:=` in an expression).
fn control_flow<'a>(
    text: &str,
    nodes: &[Node<'a>],
    sel: &Range<usize>,
    expression: bool,
    first_line: usize,
) -> Result<Flow<'a>, FkError> {
    // Control flow, and what cannot move into a function. At the end of its function's body
    // the selection may return: the call is returned (`None` where it runs to its end, as the
    // body did), unless that function is a generator.
    let tail_of = {
        let last = nodes[nodes.len() - 1];
        let mut next = last.next_named_sibling();
        while next.is_some_and(|n| n.kind() == "comment") {
            next = next.and_then(|n| n.next_named_sibling());
        }
        last.parent()
            .filter(|b| b.kind() == "block" && next.is_none() && !expression)
            .and_then(|b| b.parent())
            .filter(|f| f.kind() == "function_definition")
    };
    let generator = tail_of.is_some_and(|f| {
        f.child_by_field_name("body").is_some_and(|b| {
            descendants(&[b]).iter().any(|y| {
                y.kind() == "yield"
                    && !in_nested(*y, &b.byte_range(), &["function_definition", "lambda"])
            })
        })
    });
    let mut returns_for_it = false;
    let all = descendants(nodes);
    let mut is_async = false;
    for n in &all {
        let at = line(text, n.start_byte());
        let nested = in_nested(*n, sel, &["function_definition", "lambda"]);
        match n.kind() {
            "return_statement" if !nested && tail_of.is_some() && !generator => {
                returns_for_it = true;
            }
            "return_statement" if !nested => {
                return Err(invalid(
                    format!(
                        "the selection has `return` at line {at}: in the new function it would return from that function, not from the one around the selection"
                    ),
                    "select statements without a `return`, or the whole body up to it",
                ));
            }
            "yield" if !nested => {
                return Err(invalid(
                    format!(
                        "the selection has `yield` at line {at}: a function cannot yield for the generator around it"
                    ),
                    "select statements without `yield`",
                ));
            }
            "await" if !nested => is_async = true,
            "break_statement" | "continue_statement" => {
                let mut p = n.parent();
                let mut target = None;
                while let Some(x) = p {
                    if matches!(x.kind(), "for_statement" | "while_statement") {
                        target = Some(x);
                        break;
                    }
                    p = x.parent();
                }
                if !target.is_some_and(|t| in_range(t, sel)) {
                    let word = if n.kind() == "break_statement" {
                        "break"
                    } else {
                        "continue"
                    };
                    return Err(invalid(
                        format!(
                            "the selection has `{word}` at line {at}, which leaves it (its loop is outside the selection)"
                        ),
                        "select the whole loop, or statements without it",
                    ));
                }
            }
            "global_statement" | "nonlocal_statement" | "future_import_statement" => {
                return Err(invalid(
                    format!(
                        "the selection has `{}` at line {at}, which would then declare names of the new function",
                        quote(text, *n)
                    ),
                    "select statements without it",
                ));
            }
            "named_expression" if expression && !nested => {
                return Err(invalid(
                    format!(
                        "the expression binds `{}` with `:=` (line {at}), a local the new function could only bind for itself",
                        quote(text, *n)
                    ),
                    "select the whole statement instead",
                ));
            }
            "for_statement" | "with_statement" if !nested => {
                let mut c = n.walk();
                if n.children(&mut c).any(|x| x.kind() == "async") {
                    is_async = true;
                }
            }
            _ => {}
        }
    }
    for n in nodes {
        if n.parent().is_some_and(|p| {
            p.kind() == "block" && p.parent().is_some_and(|g| g.kind() == "class_definition")
        }) {
            return Err(invalid(
                format!(
                    "the selection at line {first_line} is in a class body: moved into a function its names would no longer be class attributes"
                ),
                "select statements in a method",
            ));
        }
    }
    Ok(Flow {
        tail_of,
        returns_for_it,
        is_async,
    })
}

/// Where the new function goes and what it sees.
struct Home<'a> {
    /// The function around the selection, if any.
    enclosing: Option<Node<'a>>,
    /// The method's receiver (`self`, `cls`).
    receiver: Option<String>,
    class_method: bool,
    /// The scope the new function sees: the module, or the method.
    sees: Node<'a>,
    /// Insert after this node.
    after: Node<'a>,
}

/// At module level after the statement that holds the selection, or (a method) after the
/// method the selection is in, called through its receiver; refused outside a method, in a
/// `@staticmethod`, or without a receiver.
fn home_of<'a>(
    text: &str,
    root: Node<'a>,
    nodes: &[Node<'a>],
    method: bool,
    first_line: usize,
) -> Result<Home<'a>, FkError> {
    let enclosing = {
        let mut p = nodes[0].parent();
        let mut f = None;
        while let Some(x) = p {
            if x.kind() == "function_definition" {
                f = Some(x);
                break;
            }
            p = x.parent();
        }
        f
    };
    let mut receiver = None;
    let mut class_method = false;
    let (sees, after) = if method {
        let def = enclosing.filter(|f| {
            f.parent()
                .and_then(|b| {
                    if b.kind() == "decorated_definition" {
                        b.parent()
                    } else {
                        Some(b)
                    }
                })
                .is_some_and(|b| {
                    b.kind() == "block"
                        && b.parent().is_some_and(|c| c.kind() == "class_definition")
                })
        });
        let Some(def) = def else {
            return Err(invalid(
                format!(
                    "the selection at line {first_line} is not directly in a method of a class"
                ),
                "use extract_function",
            ));
        };
        let holder = match def.parent() {
            Some(p) if p.kind() == "decorated_definition" => p,
            _ => def,
        };
        let decorators = holder_decorators(text, holder);
        if decorators.iter().any(|d| d == "@staticmethod") {
            return Err(invalid(
                format!(
                    "the selection at line {first_line} is in a @staticmethod, which has no receiver to call a method through"
                ),
                "use extract_function",
            ));
        }
        class_method = decorators.iter().any(|d| d == "@classmethod");
        let params = def.child_by_field_name("parameters");
        let first = params.and_then(|p| {
            let mut c = p.walk();
            p.named_children(&mut c).next()
        });
        let Some(first) = first.filter(|f| f.kind() == "identifier") else {
            return Err(invalid(
                format!("the method around line {first_line} has no receiver parameter (`self`)"),
                "use extract_function",
            ));
        };
        receiver = Some(text[first.byte_range()].to_string());
        (def, holder)
    } else {
        let mut top = nodes[nodes.len() - 1];
        while let Some(p) = top.parent() {
            if p.kind() == "module" {
                break;
            }
            top = p;
        }
        (root, top)
    };
    Ok(Home {
        enclosing,
        receiver,
        class_method,
        sees,
        after,
    })
}

/// Refuses a name the place already has (any name of the file for a function, of the class
/// for a method); for a method of a class with bases, the warning that one of them may have
/// a member of that name.
fn name_is_free(
    text: &str,
    root: Node,
    sees: Node,
    name: &str,
    method: bool,
) -> Result<Vec<String>, FkError> {
    let mut warnings = Vec::new();
    if method {
        let class = {
            let mut p = sees.parent();
            while let Some(x) = p {
                if x.kind() == "class_definition" {
                    break;
                }
                p = x.parent();
            }
            p.expect("a method is in a class")
        };
        if let Some(o) = descendants(&[class])
            .into_iter()
            .find(|n| n.kind() == "identifier" && &text[n.byte_range()] == name)
        {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "`{name}` is already a member or a name used at line {} of the class",
                    line(text, o.start_byte())
                ),
            )
            .with_hint("choose a name the class does not use"));
        }
        if class.child_by_field_name("superclasses").is_some() {
            warnings.push(format!(
                "the class has base classes: a member `{name}` there would be overridden"
            ));
        }
    } else if let Some(o) = descendants(&[root])
        .into_iter()
        .find(|n| n.kind() == "identifier" && &text[n.byte_range()] == name)
    {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` is already bound or used at line {} of this file",
                line(text, o.start_byte())
            ),
        )
        .with_hint("choose a name the file does not use"));
    }
    Ok(warnings)
}

/// The new function's parameters (the names the selection reads that are bound before it,
/// or anywhere in a loop around it) and what it returns (what it binds that is read after
/// it), each name bound where the scope model of renames says. Refused for a name the
/// function around declares `global` or `nonlocal`.
fn parameters_and_results(
    text: &str,
    tree: &Tree,
    nodes: &[Node],
    sel: &Range<usize>,
    enclosing: Option<Node>,
    home: (Node, Option<&str>),
    expression: bool,
) -> Result<(Vec<String>, Vec<String>), FkError> {
    // A method's home has its receiver; a function's has none.
    let (sees, receiver) = home;
    let method = receiver.is_some();
    let analysis = Analysis::new(text, tree);
    let mut cache = HashMap::new();
    let mut ids = Vec::new();
    for n in nodes {
        reads(*n, &mut ids);
    }
    let mut params: Vec<String> = Vec::new();
    let mut returns: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // A name the function around declares `global` or `nonlocal` is not its local: moved, the
    // selection would bind a local of the new function instead.
    if let Some(f) = enclosing {
        for st in descendants(&[f]).into_iter().filter(|n| {
            matches!(n.kind(), "global_statement" | "nonlocal_statement") && !in_range(*n, sel)
        }) {
            let mut c = st.walk();
            let declared: Vec<Node> = st.named_children(&mut c).collect();
            if let Some(d) = declared.iter().find(|d| {
                ids.iter()
                    .any(|i| text[i.byte_range()] == text[d.byte_range()])
            }) {
                return Err(invalid(
                    format!(
                        "the selection uses `{}`, declared `{}` at line {}: the new function would not have that declaration",
                        &text[d.byte_range()],
                        if st.kind() == "global_statement" {
                            "global"
                        } else {
                            "nonlocal"
                        },
                        line(text, st.start_byte())
                    ),
                    "select statements that do not use it",
                ));
            }
        }
    }
    for id in &ids {
        let nm = text[id.byte_range()].to_string();
        let (scope, binds) = binding_scope(text, &analysis, *id, &mut cache);
        if scope.kind() == "module" || in_range(scope, sel) {
            continue;
        }
        if !seen.insert((scope.id(), nm.clone())) {
            continue;
        }
        // A method sees what its class's enclosing functions bind, as the selection did.
        if method && !in_range(sees, &scope.byte_range()) {
            continue;
        }
        if receiver == Some(nm.as_str()) && scope.id() == sees.id() {
            continue;
        }
        let inside = binds.iter().any(|b| in_range(*b, sel));
        // In a loop, a binding after the selection gives a value at the next turn.
        let looping = {
            let mut p = nodes[0].parent();
            let mut hit = false;
            while let Some(x) = p {
                if x.id() == scope.id() {
                    break;
                }
                hit |= matches!(x.kind(), "for_statement" | "while_statement");
                p = x.parent();
            }
            hit
        };
        // A value bound outside that the selection may see: before it (or anywhere, in a
        // loop); `x: int` alone declares a type, no value.
        let outside = binds.iter().any(|b| {
            !in_range(*b, sel)
                && (b.start_byte() < sel.start || looping)
                && !b.parent().is_some_and(|a| {
                    a.kind() == "assignment" && a.child_by_field_name("right").is_none()
                })
        });
        // `+=` reads its target too.
        let read_inside = ids.iter().any(|i| {
            text[i.byte_range()] == nm
                && (!binds.iter().any(|b| b.id() == i.id())
                    || i.parent().is_some_and(|p| {
                        p.kind() == "augmented_assignment" && field_is(p, "left", *i)
                    }))
        });
        // Read in the scope outside the selection (not where it is bound).
        let read_after = {
            let mut stack = vec![scope];
            let mut found = false;
            while let Some(x) = stack.pop() {
                if found {
                    break;
                }
                if in_range(x, sel) {
                    continue;
                }
                if x.kind() == "identifier"
                    && text[x.byte_range()] == nm
                    && !binds.iter().any(|b| b.id() == x.id())
                    && x.start_byte() >= sel.end
                    && !x.parent().is_some_and(|p| {
                        (p.kind() == "attribute" && field_is(p, "attribute", x))
                            || (p.kind() == "keyword_argument" && field_is(p, "name", x))
                    })
                {
                    found = true;
                }
                let mut c = x.walk();
                stack.extend(x.named_children(&mut c));
            }
            found
        };
        // In a loop, what the selection binds may be read before it at the next turn.
        let in_loop_read = inside && {
            let mut p = nodes[0].parent();
            let mut hit = false;
            while let Some(x) = p {
                if x.id() == scope.id() {
                    break;
                }
                if matches!(x.kind(), "for_statement" | "while_statement")
                    && descendants(&[x]).iter().any(|i| {
                        i.kind() == "identifier" && text[i.byte_range()] == nm && !in_range(*i, sel)
                    })
                {
                    hit = true;
                }
                p = x.parent();
            }
            hit
        };
        // A function made in the selection that uses it would close over the parameter, a
        // copy: not the local bound again later.
        if binds.len() > 1
            && binds.iter().any(|b| !in_range(*b, sel))
            && let Some(o) = ids.iter().find(|i| {
                text[i.byte_range()] == nm
                    && in_nested(**i, sel, &["function_definition", "lambda"])
            })
        {
            return Err(invalid(
                format!(
                    "`{nm}` is used by a function made in the selection (line {}) and bound more than once: passed in, that function would have a copy of it",
                    line(text, o.start_byte())
                ),
                "select the statements that bind it too, or leave that function out",
            ));
        }
        let returned = inside && (read_after || in_loop_read);
        // `x: int` before the selection, bound only in it: the annotation would stay alone.
        if inside
            && !returned
            && let Some(a) = binds.iter().find(|b| {
                !in_range(**b, sel)
                    && b.parent().is_some_and(|a| {
                        a.kind() == "assignment" && a.child_by_field_name("right").is_none()
                    })
            })
        {
            return Err(invalid(
                format!(
                    "`{nm}` is annotated at line {} and bound only in the selection: the annotation would be left alone",
                    line(text, a.start_byte())
                ),
                "select the annotation too",
            ));
        }
        // Bound by a statement of the selection itself (not under a condition or a loop) and
        // not read in it: the value from before is never seen.
        let always_bound = !read_inside
            && nodes.iter().any(|n| {
                n.kind() == "expression_statement"
                    && n.named_child(0).is_some_and(|a| {
                        a.kind() == "assignment"
                            && a.child_by_field_name("left").is_some_and(|l| {
                                l.kind() == "identifier" && text[l.byte_range()] == nm
                            })
                    })
            });
        if (read_inside && outside) || (returned && outside && !always_bound) {
            params.push(nm.clone());
        }
        if returned && !expression {
            returns.push(nm);
        }
    }
    Ok((params, returns))
}

/// Extracts the statements or the expression `range` covers into a `def name`: with `method`,
/// a method of the enclosing class; otherwise a module-level function.
pub fn extract_function(
    text: &str,
    range: Range<usize>,
    name: &str,
    method: bool,
) -> Result<ExtractedFunction, FkError> {
    check_identifier(name)?;
    let tree = parse(text)?;
    let root = tree.root_node();
    let stmts = if range.end <= text.len()
        && text.is_char_boundary(range.start)
        && text.is_char_boundary(range.end)
        && range.start < range.end
    {
        let s = &text[range.clone()];
        let a = range.start + (s.len() - s.trim_start().len());
        let b = range.end - (s.len() - s.trim_end().len());
        if a < b {
            statements_at(&tree, a, b)
        } else {
            None
        }
    } else {
        None
    };
    let (nodes, expression) = match stmts {
        Some(s) => (s, false),
        None => {
            let e = expression_at(&tree, text, range).map_err(|mut err| {
                err.message = err.message.replace(
                    "is not one expression",
                    "is neither whole statements nor one expression",
                );
                err
            })?;
            (vec![e], true)
        }
    };
    let sel = nodes[0].start_byte()..nodes[nodes.len() - 1].end_byte();
    let first_line = line(text, sel.start);

    let Flow {
        tail_of,
        returns_for_it,
        mut is_async,
    } = control_flow(text, &nodes, &sel, expression, first_line)?;

    let Home {
        enclosing,
        receiver,
        class_method,
        sees,
        after,
    } = home_of(text, root, &nodes, method, first_line)?;

    let (params, returns) = parameters_and_results(
        text,
        &tree,
        &nodes,
        &sel,
        enclosing,
        (sees, receiver.as_deref()),
        expression,
    )?;

    if returns_for_it && !returns.is_empty() {
        return Err(invalid(
            format!(
                "the selection returns for its function and `{}` it binds is used outside it too",
                returns[0]
            ),
            "select statements without a `return`",
        ));
    }
    if returns_for_it
        && tail_of.is_some_and(|f| {
            let mut c = f.walk();
            f.children(&mut c).any(|k| k.kind() == "async")
        })
    {
        is_async = true;
    }

    let warnings = name_is_free(text, root, sees, name, method)?;

    // The new function.
    let unit = indent_unit(text, "    ");
    // Lines inside a multi-line string are the string's: they stay as they are.
    let reindent = |range: Range<usize>, indent: &str| {
        let strings = multiline_strings(&tree, text, &range, "string");
        reindent_range(text, range, indent, &strings)
    };
    let outer = if method {
        line_head(text, after.start_byte()).1.to_string()
    } else {
        String::new()
    };
    let body_indent = format!("{outer}{unit}");
    let mut body = if expression {
        let mut t = reindent(sel.clone(), &body_indent);
        t.insert_str(body_indent.len(), "return ");
        t
    } else {
        reindent(sel.clone(), &body_indent)
    };
    if !returns.is_empty() {
        body.push_str(&format!("\n{body_indent}return {}", returns.join(", ")));
    }
    let mut all_params = params.clone();
    if let Some(r) = &receiver {
        all_params.insert(0, r.clone());
    }
    let asyncness = if is_async { "async " } else { "" };
    let deco = if class_method {
        format!("{outer}@classmethod\n")
    } else {
        String::new()
    };
    let def = format!(
        "{deco}{outer}{asyncness}def {name}({}):\n{body}\n",
        all_params.join(", ")
    );
    let callee = match &receiver {
        Some(r) => format!("{r}.{name}"),
        None => name.to_string(),
    };
    let awaited = if is_async { "await " } else { "" };
    let call = format!("{awaited}{callee}({})", params.join(", "));
    let replacement = if expression {
        let plain = nodes[0].parent().is_some_and(|p| {
            matches!(
                p.kind(),
                "expression_statement"
                    | "assignment"
                    | "return_statement"
                    | "argument_list"
                    | "parenthesized_expression"
                    | "list"
                    | "tuple"
                    | "pair"
            )
        });
        if is_async && !plain {
            format!("({call})")
        } else {
            call
        }
    } else if returns_for_it {
        format!("return {call}")
    } else if returns.is_empty() {
        call
    } else {
        format!("{} = {call}", returns.join(", "))
    };
    let insert = if !method && enclosing.is_none() {
        // Module-level code runs as the module loads: the function must exist before it.
        let mut top = nodes[0];
        while let Some(p) = top.parent() {
            if p.kind() == "module" {
                break;
            }
            top = p;
        }
        let (ls, _, _) = line_head(text, top.start_byte());
        Splice::insert(ls, format!("{def}\n\n"))
    } else {
        let end = after.end_byte();
        let at = text[end..].find('\n').map_or(text.len(), |i| end + i);
        let blank = if method { "\n" } else { "\n\n" };
        Splice::insert(at, format!("\n{blank}{}", def.trim_end_matches('\n')))
    };
    let splices = vec![Splice::new(sel.start, sel.end, replacement), insert];
    Ok(ExtractedFunction {
        splices: to_splices(text, splices)?,
        params,
        returns,
        untyped: vec![],
        is_async,
        warnings,
        class: None,
    })
}

/// The decorators' texts of a decorated definition (`@classmethod`).
fn holder_decorators(text: &str, holder: Node) -> Vec<String> {
    let mut c = holder.walk();
    holder
        .named_children(&mut c)
        .filter(|d| d.kind() == "decorator")
        .map(|d| text[d.byte_range()].trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(src: &str, what: &str) -> Range<usize> {
        let s = src.find(what).expect("selection in source");
        s..s + what.len()
    }

    fn py(src: &str, what: &str, method: bool) -> Result<String, FkError> {
        extract_function(src, sel(src, what), "extracted", method)
            .map(|x| x.splices.apply(src).unwrap())
    }

    #[test]
    fn statements_become_a_function_with_parameters_and_a_result() {
        let src = "def total(items, rate):\n    s = 0\n    for i in items:\n        s += i\n    taxed = s * rate\n    return taxed\n";
        assert_eq!(
            py(
                src,
                "s = 0\n    for i in items:\n        s += i\n    taxed = s * rate",
                false
            )
            .unwrap(),
            "def total(items, rate):\n    taxed = extracted(items, rate)\n    return taxed\n\n\ndef extracted(items, rate):\n    s = 0\n    for i in items:\n        s += i\n    taxed = s * rate\n    return taxed\n"
        );
    }

    #[test]
    fn several_results_are_a_tuple_and_a_rebound_name_is_passed_in() {
        let src =
            "def f(n):\n    a = n + 1\n    b = n * 2\n    if n:\n        a = 0\n    print(a, b)\n";
        assert_eq!(
            py(src, "b = n * 2\n    if n:\n        a = 0", false).unwrap(),
            "def f(n):\n    a = n + 1\n    b, a = extracted(n, a)\n    print(a, b)\n\n\ndef extracted(n, a):\n    b = n * 2\n    if n:\n        a = 0\n    return b, a\n"
        );
    }

    #[test]
    fn an_expression_is_returned_and_await_makes_it_async() {
        let src = "K = 3\n\nasync def f(a, b):\n    return g(await h(a) * b + K)\n";
        assert_eq!(
            py(src, "await h(a) * b + K", false).unwrap(),
            "K = 3\n\nasync def f(a, b):\n    return g(await extracted(a, b))\n\n\nasync def extracted(a, b):\n    return await h(a) * b + K\n"
        );
    }

    #[test]
    fn a_method_is_called_through_its_receiver() {
        let src = "class Cart:\n    def total(self, rate):\n        s = sum(self.items)\n        return s * rate\n";
        assert_eq!(
            py(src, "s = sum(self.items)", true).unwrap(),
            "class Cart:\n    def total(self, rate):\n        s = self.extracted()\n        return s * rate\n\n    def extracted(self):\n        s = sum(self.items)\n        return s\n"
        );
        let src =
            "class C:\n    @classmethod\n    def make(cls, n):\n        print(cls.__name__, n)\n";
        assert_eq!(
            py(src, "print(cls.__name__, n)", true).unwrap(),
            "class C:\n    @classmethod\n    def make(cls, n):\n        cls.extracted(n)\n\n    @classmethod\n    def extracted(cls, n):\n        print(cls.__name__, n)\n"
        );
        let src = "class C:\n    @staticmethod\n    def make(n):\n        print(n)\n";
        assert!(
            py(src, "print(n)", true)
                .unwrap_err()
                .message
                .contains("@staticmethod")
        );
    }

    #[test]
    fn an_annotation_without_a_value_is_not_passed_in() {
        let src = "def f(m):\n    out: str\n    out = str(m)\n    return out\n";
        assert_eq!(
            py(src, "out = str(m)", false).unwrap(),
            "def f(m):\n    out: str\n    out = extracted(m)\n    return out\n\n\ndef extracted(m):\n    out = str(m)\n    return out\n"
        );
    }

    #[test]
    fn a_name_bound_only_after_the_selection_is_not_passed_in() {
        let src = "def f(m):\n    out = str(m)\n    print(out)\n    out = 1\n    return out\n";
        let x =
            extract_function(src, sel(src, "out = str(m)\n    print(out)"), "e", false).unwrap();
        assert_eq!(x.params, ["m"]);
    }

    #[test]
    fn returns_at_the_end_of_the_body_are_returned_by_the_call() {
        let src = "def f(n):\n    print(n)\n    if n > 0:\n        return 'a'\n";
        assert_eq!(
            py(src, "if n > 0:\n        return 'a'", false).unwrap(),
            "def f(n):\n    print(n)\n    return extracted(n)\n\n\ndef extracted(n):\n    if n > 0:\n        return 'a'\n"
        );
        let src = "def g(n):\n    yield n\n    return n\n";
        assert!(py(src, "return n", false).is_err());
    }

    #[test]
    fn a_name_declared_global_around_is_refused() {
        let src =
            "g = None\n\ndef f():\n    global g\n    if g is None:\n        g = 1\n    return g\n";
        let e = extract_function(src, sel(src, "if g is None:\n        g = 1"), "e", false)
            .unwrap_err();
        assert!(
            e.message.contains("declared `global` at line 4"),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_annotation_left_alone_is_refused() {
        let src = "def f(m):\n    v: str\n    v = str(m)\n    print(v)\n    return 1\n";
        let e =
            extract_function(src, sel(src, "v = str(m)\n    print(v)"), "e", false).unwrap_err();
        assert!(e.message.contains("annotated at line 2"), "{}", e.message);
    }

    #[test]
    fn a_closure_over_a_rebound_name_is_refused() {
        let src = "def f():\n    n = 0\n    get = lambda: n\n    n = 1\n    return get()\n";
        let e = extract_function(src, sel(src, "get = lambda: n"), "e", false).unwrap_err();
        assert!(
            e.message
                .contains("used by a function made in the selection"),
            "{}",
            e.message
        );
    }

    #[test]
    fn module_level_code_gets_its_function_before_it() {
        let src = "import os\n\nx = 2\nprint(x * 3)\n";
        assert_eq!(
            py(src, "print(x * 3)", false).unwrap(),
            "import os\n\nx = 2\ndef extracted():\n    print(x * 3)\n\n\nextracted()\n"
        );
    }

    #[test]
    fn leaving_the_selection_is_refused_with_the_reason() {
        for (src, what, says) in [
            (
                "def f(a):\n    if a:\n        return 1\n    return 2\n",
                "if a:\n        return 1",
                "`return` at line 3",
            ),
            (
                "def f(xs):\n    for x in xs:\n        if x:\n            break\n",
                "if x:\n            break",
                "`break` at line 4",
            ),
            (
                "def f(xs):\n    for x in xs:\n        continue\n",
                "continue",
                "`continue` at line 3",
            ),
            (
                "def f():\n    yield 1\n    g()\n",
                "yield 1",
                "`yield` at line 2",
            ),
            (
                "def f():\n    global n\n    n = 1\n",
                "global n\n    n = 1",
                "`global n`",
            ),
        ] {
            let e = py(src, what, false).unwrap_err();
            assert!(e.message.contains(says), "{src}: {}", e.message);
        }
        assert!(
            py(
                "def f(xs):\n    for x in xs:\n        break\n",
                "for x in xs:\n        break",
                false
            )
            .is_ok()
        );
    }

    #[test]
    fn not_statements_clashing_names_and_broken_files_are_refused() {
        let src = "def f(a, b):\n    x = a + b * 2\n    g(x)\n";
        let e = py(src, "a + b", false).unwrap_err();
        assert!(
            e.message
                .contains("neither whole statements nor one expression"),
            "{}",
            e.message
        );
        let e = py(
            "def extracted():\n    pass\n\ndef f():\n    g(1)\n",
            "g(1)",
            false,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        let e = py("def f():\n    g(1)\n", "g(1)", true).unwrap_err();
        assert!(
            e.message.contains("not directly in a method"),
            "{}",
            e.message
        );
        let e = py("def f(:\n    g(1)\n", "g(1)", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
    }
}
