//! add_import for Python: which name a module uses without binding it, whether a module
//! defines a name at top level (or lists it in `__all__`), and the `from MODULE import name`
//! that imports it, merged into an import of that module (re-rendered in isort's layout, in
//! order when its names were sorted) or a new statement after the last top-level import (or
//! the docstring and the header comments).

use super::imports::{Item, indent_of, is_import, module_key, name_key, parse_stmt, render_stmt};
use super::scopes::{Analysis, OccKind, squash};
use super::*;
use filekit_splices::Splices;

/// How a module offers a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Bound at top level by a `def`, a `class` or an assignment.
    Defined,
    /// Imported at top level and re-exported: listed in `__all__`, or imported `as` itself.
    Listed,
}

fn at(text: &str, offset: usize) -> String {
    let p = crate::position(text, offset);
    format!("line {}, column {}", p.line, p.column)
}

/// The name `target` points at, checked: the module parses, reads the name where nothing
/// of the module binds it, and does not bind it at module level.
pub fn missing_name(text: &str, target: &Target) -> Result<String, FkError> {
    let tree = crate::python::extract::parse(text)?;
    let a = Analysis::new(text, &tree);
    let name = match target {
        Target::Name(n) => {
            check_identifier(n)?;
            n.clone()
        }
        Target::At(offset) => a
            .occs
            .iter()
            .find(|o| o.start <= *offset && *offset <= o.end && o.kind != OccKind::All)
            .map(|o| o.name.clone())
            .ok_or_else(|| {
                FkError::invalid(format!(
                    "no name at {}: add_import takes the position of a name the module uses",
                    at(text, *offset)
                ))
                .with_hint("put the selection's start on the name, or give it as `symbol`")
            })?,
    };
    if let Some(b) = a
        .occs
        .iter()
        .find(|o| o.binding && o.scope == 0 && o.name == name)
    {
        let what = if matches!(b.kind, OccKind::FromImport | OccKind::ModuleImport)
            || tree
                .root_node()
                .descendant_for_byte_range(b.start, b.end)
                .is_some_and(|n| {
                    let mut p = Some(n);
                    while let Some(x) = p {
                        if is_import(x.kind()) {
                            return true;
                        }
                        p = x.parent();
                    }
                    false
                }) {
            "imported"
        } else {
            "bound"
        };
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` is already {what} at module level at {}",
                at(text, b.start)
            ),
        )
        .with_hint("nothing to import: the name is bound already"));
    }
    let uses: Vec<_> = a
        .occs
        .iter()
        // `__all__` promises the name to importers: an entry is a use.
        .filter(|o| {
            o.name == name
                && !o.binding
                && matches!(o.kind, OccKind::Name | OccKind::Str | OccKind::All)
        })
        .collect();
    if let Target::At(offset) = target
        && let Some(o) = uses.iter().find(|o| o.start <= *offset && *offset <= o.end)
        && let Some(s) = a.resolve(o.scope, &name)
    {
        let decl = a
            .occs
            .iter()
            .find(|d| d.binding && d.scope == s && d.name == name)
            .map_or(o.start, |d| d.start);
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` at {} is bound in its scope at {}: an import would not reach it",
                at(text, o.start),
                at(text, decl)
            ),
        )
        .with_hint("nothing to import: the name is bound already"));
    }
    if !uses.iter().any(|o| a.resolve(o.scope, &name).is_none()) {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("`{name}` is not used in this module where nothing binds it: nothing needs importing"),
        )
        .with_hint("give the name of a name the module reads without binding it"));
    }
    Ok(name)
}

/// Whether the module `text` offers `name` to importers. A module that does not parse offers
/// nothing.
pub fn offers(text: &str, name: &str) -> Option<Offered> {
    let tree = parse(text).ok()?;
    if tree.root_node().has_error() {
        return None;
    }
    let a = Analysis::new(text, &tree);
    let mut listed = false;
    let mut defined = false;
    let mut imported = false;
    for o in a.occs.iter().filter(|o| o.name == name) {
        match o.kind {
            OccKind::All => listed = true,
            OccKind::Name if o.binding && o.scope == 0 => {
                let in_import = tree
                    .root_node()
                    .descendant_for_byte_range(o.start, o.end)
                    .is_some_and(|n| {
                        let mut p = Some(n);
                        while let Some(x) = p {
                            if is_import(x.kind()) {
                                return true;
                            }
                            p = x.parent();
                        }
                        false
                    });
                // `from m import X as X`: the explicit re-export of typing's conventions.
                let as_itself = tree
                    .root_node()
                    .descendant_for_byte_range(o.start, o.end)
                    .and_then(|n| n.parent())
                    .filter(|p| p.kind() == "aliased_import")
                    .is_some_and(|p| {
                        p.child_by_field_name("name")
                            .is_some_and(|n| squash(&text[n.byte_range()]) == name)
                    });
                if as_itself {
                    listed = true;
                    imported = true;
                } else if in_import {
                    imported = true;
                } else {
                    defined = true;
                }
            }
            OccKind::FromImport | OccKind::ModuleImport if o.scope == 0 => imported = true,
            _ => {}
        }
    }
    if defined {
        Some(Offered::Defined)
    } else if listed && imported {
        Some(Offered::Listed)
    } else {
        None
    }
}

/// The splices that import `name` from `module` (as written after `from`) into `text`.
pub fn import_edit(text: &str, name: &str, module: &str) -> Result<Splices, FkError> {
    let tree = crate::python::extract::parse(text)?;
    let root = tree.root_node();
    let mut c = root.walk();
    let top: Vec<Node> = root.named_children(&mut c).collect();
    let same = top.iter().find(|n| {
        n.kind() == "import_from_statement" && {
            let st = parse_stmt(text, **n);
            // `as` imports keep a statement of their own, as isort writes them.
            st.from.as_deref() == Some(module)
                && !st.star
                && st.items.iter().all(|i| i.alias.is_none())
        }
    });
    if let Some(n) = same {
        let st = parse_stmt(text, *n);
        let mut items = st.items.clone();
        let sorted = items.windows(2).all(|w| name_key(&w[0]) <= name_key(&w[1]));
        items.push(Item {
            name: name.to_string(),
            alias: None,
        });
        if sorted {
            items.sort_by_key(name_key);
        }
        let indent = indent_of(text, st.range.start);
        let rendered = render_stmt(indent, &st, &items);
        let rendered = rendered
            .strip_prefix(indent)
            .unwrap_or(&rendered)
            .to_string();
        return Ok(Splices::new(
            text,
            vec![Splice::new(st.range.start, st.end, rendered)],
        )?);
    }
    let line = format!("from {module} import {name}");
    if let Some(at) = sorted_place(text, &top, module) {
        return Ok(Splices::new(
            text,
            vec![Splice::new(at, at, format!("{line}\n"))],
        )?);
    }
    let last_import = top.iter().rev().find(|n| is_import(n.kind()));
    let splice = match last_import {
        Some(n) => {
            let end = parse_stmt(text, *n).end;
            match text[end..].find('\n') {
                Some(i) => Splice::new(end + i + 1, end + i + 1, format!("{line}\n")),
                None => Splice::new(text.len(), text.len(), format!("\n{line}\n")),
            }
        }
        None => {
            // After the docstring and the header comments (those followed by a blank line).
            let mut i = 0;
            while i < top.len() {
                let n = top[i];
                let header = match n.kind() {
                    "expression_statement" => {
                        i == 0 && n.named_child(0).is_some_and(|x| x.kind() == "string")
                    }
                    "comment" => top.get(i + 1).is_none_or(|next| {
                        text[n.end_byte()..next.start_byte()].matches('\n').count() > 1
                    }),
                    _ => false,
                };
                if !header {
                    break;
                }
                i += 1;
            }
            match top.get(i) {
                Some(n) => {
                    let line_start = text[..n.start_byte()].rfind('\n').map_or(0, |j| j + 1);
                    let blank_before = i > 0
                        && !text[..line_start].ends_with("\n\n")
                        && top[i - 1].kind() == "expression_statement";
                    Splice::new(
                        line_start,
                        line_start,
                        format!("{}{line}\n\n", if blank_before { "\n" } else { "" }),
                    )
                }
                None => {
                    let prefix = if text.is_empty() || text.ends_with("\n\n") {
                        ""
                    } else if text.ends_with('\n') {
                        "\n"
                    } else {
                        "\n\n"
                    };
                    Splice::new(text.len(), text.len(), format!("{prefix}{line}\n"))
                }
            }
        }
    };
    Ok(Splices::new(text, vec![splice])?)
}

/// Where a `from module import` statement goes among the file's own kind of it, when those
/// are sorted (as isort leaves them): the first run of consecutive top-level imports whose
/// `from` statements of the same kind (relative, or absolute of the same top package) are in
/// isort's order; before the first that sorts after it, or after the last of them.
fn sorted_place(text: &str, top: &[Node], module: &str) -> Option<usize> {
    let relative = module.starts_with('.');
    let package = module.split('.').next().unwrap_or("");
    let same_kind = |m: &str| {
        if relative {
            m.starts_with('.')
        } else {
            !m.starts_with('.') && m.split('.').next() == Some(package)
        }
    };
    let key = module_key(module);
    let mut i = 0;
    while i < top.len() {
        if !is_import(top[i].kind()) {
            i += 1;
            continue;
        }
        // A run of imports: only comments and white space between them.
        let mut run = Vec::new();
        while i < top.len() && (is_import(top[i].kind()) || top[i].kind() == "comment") {
            if is_import(top[i].kind()) {
                run.push(top[i]);
            }
            i += 1;
        }
        let kin: Vec<(String, Node)> = run
            .iter()
            .filter(|n| n.kind() == "import_from_statement")
            .filter_map(|n| parse_stmt(text, *n).from.map(|m| (m, *n)))
            .filter(|(m, _)| same_kind(m))
            .collect();
        if kin.is_empty() {
            continue;
        }
        let keys: Vec<String> = kin.iter().map(|(m, _)| module_key(m)).collect();
        if !keys.windows(2).all(|w| w[0] <= w[1]) {
            return None;
        }
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |j| j + 1);
        return Some(match keys.iter().position(|k| *k > key) {
            Some(p) => line_start(kin[p].1.start_byte()),
            None => {
                let end = parse_stmt(text, kin[kin.len() - 1].1).end;
                text[end..].find('\n').map_or(text.len(), |j| end + j + 1)
            }
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, name: &str, module: &str) -> String {
        import_edit(text, name, module)
            .unwrap()
            .apply(text)
            .unwrap()
    }

    #[test]
    fn merges_and_inserts_like_isort() {
        assert_eq!(
            edit("from .x import a, c\n\nb(a, c)\n", "b", ".x"),
            "from .x import a, b, c\n\nb(a, c)\n"
        );
        assert_eq!(
            edit("import os\n\nY(os)\n", "Y", "pkg.m"),
            "import os\nfrom pkg.m import Y\n\nY(os)\n"
        );
        // Among sorted imports of its kind, at its place.
        assert_eq!(
            edit(
                "from .a import x\nfrom .c import z\n\nimport late\n\nx(Y, z)\n",
                "Y",
                ".b"
            ),
            "from .a import x\nfrom .b import Y\nfrom .c import z\n\nimport late\n\nx(Y, z)\n"
        );
        assert_eq!(
            edit("\"\"\"Doc.\"\"\"\nY()\n", "Y", ".m"),
            "\"\"\"Doc.\"\"\"\n\nfrom .m import Y\n\nY()\n"
        );
        let long = "from .exceptions import (\n    AAAAAAAAAAAAAAAAAAAA,\n    BBBBBBBBBBBBBBBBBBBBBBB,\n    CCCCCCCCCCCCCCCCCCCCC,\n)\n";
        assert_eq!(
            edit(long, "BZ", ".exceptions"),
            "from .exceptions import (\n    AAAAAAAAAAAAAAAAAAAA,\n    BBBBBBBBBBBBBBBBBBBBBBB,\n    BZ,\n    CCCCCCCCCCCCCCCCCCCCC,\n)\n"
        );
    }

    #[test]
    fn what_a_module_offers_and_what_a_module_lacks() {
        assert_eq!(offers("def f():\n    pass\n", "f"), Some(Offered::Defined));
        assert_eq!(
            offers("from .a import f\n__all__ = ['f']\n", "f"),
            Some(Offered::Listed)
        );
        assert_eq!(offers("from .a import f\n", "f"), None);
        assert_eq!(
            offers("from http.client import E as E  # noqa: F401\n", "E"),
            Some(Offered::Listed)
        );
        assert_eq!(offers("def g():\n    f = 1\n", "f"), None);
        let e = missing_name("from .a import f\nf()\n", &Target::Name("f".into())).unwrap_err();
        assert!(e.message.contains("already imported"), "{}", e.message);
        let e = missing_name("x = 1\n", &Target::Name("f".into())).unwrap_err();
        assert!(e.message.contains("not used"), "{}", e.message);
        assert_eq!(
            missing_name("def g():\n    return f()\n", &Target::At(20)).unwrap(),
            "f"
        );
        let e = missing_name("def g(f):\n    return f()\n", &Target::At(21)).unwrap_err();
        assert!(e.message.contains("bound in its scope"), "{}", e.message);
    }
}
