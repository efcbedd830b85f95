//! The module references of a TS/TSX/JS text, found with tree-sitter: `import ... from`,
//! `import type`, side-effect imports, `import x = require(...)`, `export ... from`,
//! `require(...)`, dynamic `import(...)` and `/// <reference path="..." />`, each with the
//! exact bytes of its specifier (inside the quotes), so that a refactoring can rewrite the
//! specifier and nothing else. Resolving specifiers to files is not done here (this crate
//! takes no paths): see `filekit-refactor`.

use crate::Lang;
use serde::Serialize;
use std::ops::Range;
use tree_sitter::Node;

/// How a module is referenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// `import ... from "x"`, `import "x"`, `import type ... from "x"`.
    Import,
    /// `import x = require("x")`.
    ImportEquals,
    /// `export ... from "x"`, `export * from "x"`.
    Export,
    /// `require("x")`.
    Require,
    /// `import("x")`.
    Dynamic,
    /// `/// <reference path="x" />`.
    Reference,
    /// Python `from x import y` (the specifier is `x`: `pkg.mod`, `.mod`, `..`).
    PyFrom,
    /// Python `import a.b as c` (aliased: the name bound does not depend on the path).
    PyImportAs,
    /// Python `import a.b` (binds `a`: renaming the module changes the name in uses).
    PyImport,
}

/// One module reference in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleRef {
    pub kind: RefKind,
    /// The specifier as written (between the quotes).
    pub specifier: String,
    /// Bytes of the specifier, inside the quotes.
    #[serde(skip)]
    pub span: Range<usize>,
    /// Bytes of the whole statement (an import or export declaration with its line end, a
    /// `require`/`import()` call, the reference comment).
    #[serde(skip)]
    pub statement: Range<usize>,
    /// The local names an import declaration binds (or an export re-exports; `*` for a
    /// namespace re-export). Empty for side-effect imports, calls and references.
    pub names: Vec<String>,
    /// `import type` / `export type`.
    pub type_only: bool,
}

/// Whether this module finds references in files of `lang`.
pub fn supported(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Python
    )
}

/// Every module reference of `text`, in text order. A text with syntax errors still gives
/// the references tree-sitter recovered.
pub fn module_refs(lang: Lang, text: &str) -> Vec<ModuleRef> {
    // Most of the cost is parsing; a text that names no module is not parsed.
    if !(text.contains("import")
        || text.contains("require")
        || text.contains("export")
        || text.contains("reference"))
    {
        return Vec::new();
    }
    let Some(tree) = parse(lang, text) else {
        return Vec::new();
    };
    if lang == Lang::Python {
        return python_refs(tree.root_node(), text);
    }
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" => {
                if let Some(r) = import_statement(node, text) {
                    out.push(r);
                }
                continue;
            }
            "export_statement" => {
                if let Some(source) = node.child_by_field_name("source") {
                    if let Some(r) = string_ref(source, text, RefKind::Export, node) {
                        out.push(ModuleRef {
                            names: export_names(node, text),
                            type_only: has_child(node, "type"),
                            statement: with_line_end(text, node.byte_range()),
                            ..r
                        });
                    }
                    continue;
                }
            }
            "call_expression" => {
                if let Some(r) = call_ref(node, text) {
                    out.push(r);
                }
            }
            "comment" => {
                if let Some(r) = reference_comment(node, text) {
                    out.push(r);
                }
                continue;
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|r| r.span.start);
    out
}

/// The uses of `names` in `text` outside import declarations: identifiers, type names and
/// shorthand properties (`{ name }`), as (name, byte offset), in text order. Syntactic: a
/// local that shadows a name is still listed.
pub fn uses_of(lang: Lang, text: &str, names: &[String]) -> Vec<(String, usize)> {
    let Some(tree) = parse(lang, text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" | "import_from_statement" => continue,
            "identifier" | "type_identifier" | "shorthand_property_identifier" => {
                let name = &text[node.byte_range()];
                if names.iter().any(|n| n == name) {
                    out.push((name.to_string(), node.start_byte()));
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|u| u.1);
    out
}

/// Python's `import` and `from ... import` statements, anywhere in the tree.
fn python_refs(root: Node, text: &str) -> Vec<ModuleRef> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_from_statement" => {
                if let Some(module) = node.child_by_field_name("module_name") {
                    let mut c = node.walk();
                    let names = node
                        .children_by_field_name("name", &mut c)
                        .map(|n| {
                            let n = n.child_by_field_name("alias").unwrap_or(n);
                            text[n.byte_range()].to_string()
                        })
                        .collect();
                    out.push(ModuleRef {
                        kind: RefKind::PyFrom,
                        specifier: text[module.byte_range()].to_string(),
                        span: module.byte_range(),
                        statement: with_line_end(text, node.byte_range()),
                        names,
                        type_only: false,
                    });
                }
                continue;
            }
            "import_statement" => {
                let mut c = node.walk();
                for name in node.children_by_field_name("name", &mut c) {
                    let (kind, module, bound) = if name.kind() == "aliased_import" {
                        let (Some(m), Some(a)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) else {
                            continue;
                        };
                        (RefKind::PyImportAs, m, text[a.byte_range()].to_string())
                    } else {
                        let t = &text[name.byte_range()];
                        (
                            RefKind::PyImport,
                            name,
                            t.split('.').next().unwrap_or(t).to_string(),
                        )
                    };
                    out.push(ModuleRef {
                        kind,
                        specifier: text[module.byte_range()].to_string(),
                        span: module.byte_range(),
                        statement: with_line_end(text, node.byte_range()),
                        names: vec![bound],
                        type_only: false,
                    });
                }
                continue;
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|r| r.span.start);
    out
}

/// The tree of a supported text. The walks of this module are iterative (explicit stacks),
/// so a tree of any depth is read; a text that would overflow the grammar's scanner state
/// (`bounds::scanner_state`) is not parsed and has no references.
fn parse(lang: Lang, text: &str) -> Option<tree_sitter::Tree> {
    if !supported(lang) {
        return None;
    }
    crate::bounds::parse_any_depth(lang, text, None).ok()
}

fn has_child(node: Node, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

/// The inner bytes of a string literal node, as a reference of `kind` in `statement`.
fn string_ref(string: Node, text: &str, kind: RefKind, statement: Node) -> Option<ModuleRef> {
    if string.kind() != "string" {
        return None;
    }
    let r = string.byte_range();
    if r.end < r.start + 2 {
        return None;
    }
    let span = r.start + 1..r.end - 1;
    Some(ModuleRef {
        kind,
        specifier: text.get(span.clone())?.to_string(),
        span,
        statement: statement.byte_range(),
        names: Vec::new(),
        type_only: false,
    })
}

/// A statement's range extended over the rest of its line when only white space follows,
/// so that removing the statement removes its line.
fn with_line_end(text: &str, r: Range<usize>) -> Range<usize> {
    let rest = &text[r.end..];
    let line = rest.find('\n').map_or(rest.len(), |i| i + 1);
    if rest[..line].trim().is_empty() {
        let start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
        if text[start..r.start].trim().is_empty() {
            return start..r.end + line;
        }
        return r.start..r.end + line;
    }
    r
}

fn import_statement(node: Node, text: &str) -> Option<ModuleRef> {
    let statement = with_line_end(text, node.byte_range());
    let type_only = has_child(node, "type");
    if let Some(source) = node.child_by_field_name("source") {
        let r = string_ref(source, text, RefKind::Import, node)?;
        return Some(ModuleRef {
            names: import_names(node, text),
            type_only,
            statement,
            ..r
        });
    }
    // `import x = require("y")`
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == "import_require_clause" {
            let source = child.child_by_field_name("source")?;
            let r = string_ref(source, text, RefKind::ImportEquals, node)?;
            let mut c = child.walk();
            let names = child
                .children(&mut c)
                .filter(|n| n.kind() == "identifier")
                .take(1)
                .map(|n| text[n.byte_range()].to_string())
                .collect();
            return Some(ModuleRef {
                names,
                type_only,
                statement,
                ..r
            });
        }
    }
    None
}

/// The local names of an import declaration: default, namespace and named (their aliases
/// when renamed).
fn import_names(node: Node, text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for clause in node.children(&mut cursor) {
        if clause.kind() != "import_clause" {
            continue;
        }
        let mut c = clause.walk();
        for part in clause.children(&mut c) {
            match part.kind() {
                "identifier" => names.push(text[part.byte_range()].to_string()),
                "namespace_import" => {
                    let mut n = part.walk();
                    if let Some(id) = part.children(&mut n).find(|x| x.kind() == "identifier") {
                        names.push(text[id.byte_range()].to_string());
                    }
                }
                "named_imports" => {
                    let mut n = part.walk();
                    for spec in part.children(&mut n) {
                        if spec.kind() != "import_specifier" {
                            continue;
                        }
                        let id = spec
                            .child_by_field_name("alias")
                            .or_else(|| spec.child_by_field_name("name"));
                        if let Some(id) = id {
                            names.push(text[id.byte_range()].to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    names
}

fn export_names(node: Node, text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for part in node.children(&mut cursor) {
        match part.kind() {
            "*" => names.push("*".to_string()),
            "namespace_export" => {
                let mut n = part.walk();
                if let Some(id) = part
                    .children(&mut n)
                    .find(|x| matches!(x.kind(), "identifier" | "string"))
                {
                    names.push(text[id.byte_range()].to_string());
                }
            }
            "export_clause" => {
                let mut n = part.walk();
                for spec in part.children(&mut n) {
                    if spec.kind() != "export_specifier" {
                        continue;
                    }
                    let id = spec
                        .child_by_field_name("alias")
                        .or_else(|| spec.child_by_field_name("name"));
                    if let Some(id) = id {
                        names.push(text[id.byte_range()].to_string());
                    }
                }
            }
            _ => {}
        }
    }
    names
}

/// `require("x")` and `import("x")` with one string argument.
fn call_ref(node: Node, text: &str) -> Option<ModuleRef> {
    let function = node.child_by_field_name("function")?;
    let kind = match function.kind() {
        "import" => RefKind::Dynamic,
        "identifier" if &text[function.byte_range()] == "require" => RefKind::Require,
        _ => return None,
    };
    let args = node.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let named: Vec<Node> = args.named_children(&mut cursor).collect();
    let [first, ..] = named.as_slice() else {
        return None;
    };
    if kind == RefKind::Require && named.len() != 1 {
        return None;
    }
    string_ref(*first, text, kind, node)
}

/// `/// <reference path="x" />` (not `types=` or `lib=`, which name packages).
fn reference_comment(node: Node, text: &str) -> Option<ModuleRef> {
    let r = node.byte_range();
    let comment = &text[r.clone()];
    if !comment.starts_with("///") {
        return None;
    }
    let body = comment[3..].trim_start();
    if !body.starts_with("<reference") {
        return None;
    }
    let at = comment.find("path=")? + "path=".len();
    let quote = comment[at..].chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let start = at + 1;
    let len = comment[start..].find(quote)?;
    let span = r.start + start..r.start + start + len;
    Some(ModuleRef {
        kind: RefKind::Reference,
        specifier: text[span.clone()].to_string(),
        span,
        statement: with_line_end(text, r),
        names: Vec::new(),
        type_only: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(lang: Lang, text: &str) -> Vec<(RefKind, String, Vec<String>)> {
        module_refs(lang, text)
            .into_iter()
            .map(|r| {
                assert_eq!(&text[r.span.clone()], r.specifier);
                (r.kind, r.specifier, r.names)
            })
            .collect()
    }

    #[test]
    fn every_kind_of_reference_with_its_span() {
        let text = r#"/// <reference path="./globals.d.ts" />
import a, { b as c, d } from "./ab";
import * as ns from '../ns/index.js';
import type { T } from "./types";
import "./side-effect";
import fs = require("fs");
export { x, y as z } from './xy';
export * from "./all";
export * as every from "./every";
export const k = 1;
const lazy = () => import("./lazy");
const old = require('./old');
function f() { return require(name); }
"#;
        let got = specs(Lang::TypeScript, text);
        let want = vec![
            (RefKind::Reference, "./globals.d.ts", vec![]),
            (RefKind::Import, "./ab", vec!["a", "c", "d"]),
            (RefKind::Import, "../ns/index.js", vec!["ns"]),
            (RefKind::Import, "./types", vec!["T"]),
            (RefKind::Import, "./side-effect", vec![]),
            (RefKind::ImportEquals, "fs", vec!["fs"]),
            (RefKind::Export, "./xy", vec!["x", "z"]),
            (RefKind::Export, "./all", vec!["*"]),
            (RefKind::Export, "./every", vec!["every"]),
            (RefKind::Dynamic, "./lazy", vec![]),
            (RefKind::Require, "./old", vec![]),
        ];
        let want: Vec<(RefKind, String, Vec<String>)> = want
            .into_iter()
            .map(|(k, s, n)| (k, s.to_string(), n.into_iter().map(String::from).collect()))
            .collect();
        assert_eq!(got, want);
        let refs = module_refs(Lang::TypeScript, text);
        assert!(refs[3].type_only);
        // A declaration's statement covers its whole line.
        assert_eq!(
            &text[refs[1].statement.clone()],
            "import a, { b as c, d } from \"./ab\";\n"
        );
    }

    #[test]
    fn python_imports() {
        let text = "import os\nimport pkg.mod as m\nfrom .sibling import a, b as c\nfrom ..up.deep import *\nfrom . import x\ndef f():\n    from pkg import late\n";
        let got = specs(Lang::Python, text);
        let want: Vec<(RefKind, String, Vec<String>)> = vec![
            (RefKind::PyImport, "os", vec!["os"]),
            (RefKind::PyImportAs, "pkg.mod", vec!["m"]),
            (RefKind::PyFrom, ".sibling", vec!["a", "c"]),
            (RefKind::PyFrom, "..up.deep", vec![]),
            (RefKind::PyFrom, ".", vec!["x"]),
            (RefKind::PyFrom, "pkg", vec!["late"]),
        ]
        .into_iter()
        .map(|(k, s, n)| (k, s.to_string(), n.into_iter().map(String::from).collect()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn javascript_and_tsx() {
        let js = "const x = require(\"./x\");\nimport('./y').then(() => {});\nexport { default } from './z.js';\n";
        let got: Vec<String> = specs(Lang::JavaScript, js)
            .into_iter()
            .map(|r| r.1)
            .collect();
        assert_eq!(got, ["./x", "./y", "./z.js"]);
        let tsx = "import { Button } from './Button';\nexport const App = () => <Button label=\"import('./no')\" />;\n";
        let got: Vec<String> = specs(Lang::Tsx, tsx).into_iter().map(|r| r.1).collect();
        assert_eq!(got, ["./Button"]);
    }

    #[test]
    fn strings_and_comments_that_only_look_like_imports_are_not_references() {
        let text = "const s = \"import x from './no'\";\n// import y from './no2'\n/* require('./no3') */\n";
        assert!(module_refs(Lang::TypeScript, text).is_empty());
    }
}
