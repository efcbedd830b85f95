//! The names a TS/TSX/JS module exports, and the renaming of one of them inside the module
//! (its declaration and every use, or the alias that makes it public). The renames at the
//! import sites of other modules are `ts::rename_in_importer`'s; putting both together
//! across a workspace is `filekit-refactor`'s job (this crate takes no paths).

use crate::Lang;
use crate::ops::Splice;
use crate::style::unquote;
use crate::ts::{Target, check_identifier, rename_in_file};
use filekit_errors::{ErrorCode, FkError};
use std::ops::Range;
use tree_sitter::Node;

/// One exported name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The name importers use (`default` for the default export).
    pub name: String,
    /// The module's own binding behind it, when the module declares it (`export class A`,
    /// `export { a as b }`: `a`; `export default class A`: `A`). None for re-exports.
    pub local: Option<String>,
    /// The bytes of the public name when it is written apart from the binding (the alias of
    /// `export { a as b }`, the name of a re-export `export { b } from`).
    pub public_range: Option<Range<usize>>,
    /// `export { b } from '...'`, `export * as b from '...'`.
    pub re_export: bool,
}

/// What a module exports: its names, and the specifiers of its `export * from` (whose names
/// only the other modules know).
#[derive(Debug, Clone, Default)]
pub struct Exports {
    pub names: Vec<Export>,
    pub star_from: Vec<String>,
}

impl Exports {
    pub fn get(&self, name: &str) -> Option<&Export> {
        self.names.iter().find(|e| e.name == name)
    }

    /// The default export, when it is a named declaration or a name, by that name.
    pub fn default_named(&self, local: &str) -> Option<&Export> {
        self.names
            .iter()
            .find(|e| e.name == "default" && e.local.as_deref() == Some(local))
    }

    /// The exported names, for messages.
    pub fn listed(&self) -> String {
        let mut v: Vec<String> = self
            .names
            .iter()
            .map(|e| match (&e.local, e.name.as_str()) {
                (Some(l), "default") => format!("default ({l})"),
                _ => e.name.clone(),
            })
            .collect();
        v.extend(self.star_from.iter().map(|s| format!("* from '{s}'")));
        if v.is_empty() {
            "nothing".into()
        } else {
            v.join(", ")
        }
    }
}

fn parse(lang: Lang, text: &str) -> Result<tree_sitter::Tree, FkError> {
    if !matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript) {
        return Err(FkError::invalid(format!(
            "exported symbols are renamed in TS/TSX/JS files, not {lang:?}"
        ))
        .with_hint("rename the file without renameExports/exportMapping"));
    }
    crate::ts::parse(lang, text)
}

/// The names a declaration binds (`const a = 1, { b } = x` binds `a`; patterns are left out).
fn declared(decl: Node, text: &str) -> Vec<String> {
    match decl.kind() {
        // `export declare function f(): void;`, as declaration files write their exports.
        "ambient_declaration" => decl
            .named_child(0)
            .map(|d| declared(d, text))
            .unwrap_or_default(),
        "lexical_declaration" | "variable_declaration" => {
            let mut c = decl.walk();
            decl.named_children(&mut c)
                .filter(|d| d.kind() == "variable_declarator")
                .filter_map(|d| d.child_by_field_name("name"))
                .filter(|n| n.kind() == "identifier")
                .map(|n| text[n.byte_range()].to_string())
                .collect()
        }
        _ => decl
            .child_by_field_name("name")
            .filter(|n| {
                matches!(
                    n.kind(),
                    "identifier" | "type_identifier" | "property_identifier"
                )
            })
            .map(|n| vec![text[n.byte_range()].to_string()])
            .unwrap_or_default(),
    }
}

/// Every name `text` exports (module level).
pub fn exports(lang: Lang, text: &str) -> Result<Exports, FkError> {
    let tree = parse(lang, text)?;
    let root = tree.root_node();
    let mut out = Exports::default();
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        if stmt.kind() != "export_statement" {
            continue;
        }
        let source = stmt
            .child_by_field_name("source")
            .map(|s| unquote(&text[s.byte_range()]));
        let mut c = stmt.walk();
        let children: Vec<Node> = stmt.children(&mut c).collect();
        let is_default = children.iter().any(|x| x.kind() == "default");
        if let Some(decl) = stmt.child_by_field_name("declaration") {
            let names = declared(decl, text);
            if is_default {
                out.names.push(Export {
                    name: "default".into(),
                    local: names.into_iter().next(),
                    public_range: None,
                    re_export: false,
                });
            } else {
                out.names.extend(names.into_iter().map(|n| Export {
                    name: n.clone(),
                    local: Some(n),
                    public_range: None,
                    re_export: false,
                }));
            }
            continue;
        }
        if is_default {
            let local = stmt
                .child_by_field_name("value")
                .filter(|v| v.kind() == "identifier")
                .map(|v| text[v.byte_range()].to_string());
            out.names.push(Export {
                name: "default".into(),
                local,
                public_range: None,
                re_export: false,
            });
            continue;
        }
        for part in &children {
            match part.kind() {
                "*" if source.is_some()
                    && !children.iter().any(|x| x.kind() == "namespace_export") =>
                {
                    out.star_from.push(source.clone().unwrap_or_default());
                }
                "namespace_export" => {
                    let mut n = part.walk();
                    if let Some(id) = part
                        .named_children(&mut n)
                        .find(|x| matches!(x.kind(), "identifier" | "string"))
                    {
                        out.names.push(Export {
                            name: unquote(&text[id.byte_range()]),
                            local: None,
                            public_range: Some(id.byte_range()),
                            re_export: true,
                        });
                    }
                }
                "export_clause" => {
                    let mut n = part.walk();
                    for spec in part.named_children(&mut n) {
                        if spec.kind() != "export_specifier" {
                            continue;
                        }
                        let Some(name) = spec.child_by_field_name("name") else {
                            continue;
                        };
                        let alias = spec.child_by_field_name("alias");
                        let public = alias.unwrap_or(name);
                        out.names.push(Export {
                            name: unquote(&text[public.byte_range()]),
                            local: source
                                .is_none()
                                .then(|| text[name.byte_range()].to_string()),
                            public_range: (alias.is_some() || source.is_some())
                                .then(|| public.byte_range()),
                            re_export: source.is_some(),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// The splices that rename the export `old` of `text` to `new` in the module itself: a
/// declared binding is renamed with all its uses (scope-aware); an alias or a re-export gets
/// the new public name. `old` may also be the name of the default export's declaration
/// (`export default class A`), which is then renamed like a binding. Errors: `new` not an
/// identifier, `old` not exported, `new` exported already or declared in the module scope.
pub fn rename_export(lang: Lang, text: &str, old: &str, new: &str) -> Result<Vec<Splice>, FkError> {
    check_identifier(new)?;
    let ex = exports(lang, text)?;
    let found = ex
        .get(old)
        .filter(|e| e.name != "default")
        .or_else(|| ex.default_named(old));
    let Some(found) = found.cloned() else {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("the file does not export `{old}` (it exports {})", ex.listed()),
        )
        .with_hint("name one of the file's exports; a name that comes through `export * from` is renamed in the file that declares it"));
    };
    if old == new {
        return Ok(Vec::new());
    }
    if ex.get(new).is_some() || ex.default_named(new).is_some() {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!("the file already exports `{new}`"),
        )
        .with_hint("choose another name, or rename that export first"));
    }
    let renamed = |local: &str| -> Result<Vec<Splice>, FkError> {
        Ok(rename_in_file(lang, text, &Target::Name(local.to_string()), new, false)?.splices)
    };
    match (&found.local, &found.public_range) {
        // `export class A`, `export { A }`, `export default class A`.
        (Some(local), None) => renamed(local),
        // `export { a as A }`: the public name only.
        (Some(_), Some(r)) => Ok(vec![Splice::new(r.start, r.end, new.to_string())]),
        // `export { A } from`: keeps the other module's name.
        (None, Some(r)) => {
            let written = &text[r.clone()];
            let aliased = text[..r.start].trim_end().ends_with(" as");
            if aliased || found.name != written || written.starts_with(['"', '\'']) {
                Ok(vec![Splice::new(r.start, r.end, new.to_string())])
            } else {
                Ok(vec![Splice::new(
                    r.start,
                    r.end,
                    format!("{written} as {new}"),
                )])
            }
        }
        (None, None) => Err(FkError::invalid(format!(
            "`{old}` is exported in a form that cannot be renamed syntactically"
        ))),
    }
}

/// What a module takes of `names` from the modules `resolves` accepts.
#[derive(Debug, Clone, Default)]
pub struct Through {
    /// Each name imported or re-exported by name (`import { a }`, `import { a as b }`,
    /// `export { a } from`), and each `ns.a` through a namespace import, with the byte
    /// offset where it is written.
    pub uses: Vec<(String, usize)>,
    /// The module passes them all on (`export * from`).
    pub star: bool,
}

/// Where `text` takes one of `names` from a module whose specifier `resolves` accepts: the
/// places a compiler reports once those names are gone from that module.
pub fn through(
    lang: Lang,
    text: &str,
    resolves: &dyn Fn(&str) -> bool,
    names: &std::collections::HashSet<String>,
) -> Result<Through, FkError> {
    let tree = parse(lang, text)?;
    let root = tree.root_node();
    let mut out = Through::default();
    let mut namespaces: Vec<String> = Vec::new();
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        let is_export = stmt.kind() == "export_statement";
        if stmt.kind() != "import_statement" && !is_export {
            continue;
        }
        let Some(src) = stmt.child_by_field_name("source") else {
            continue;
        };
        if !resolves(&unquote(&text[src.byte_range()])) {
            continue;
        }
        let mut c = stmt.walk();
        let children: Vec<Node> = stmt.children(&mut c).collect();
        if is_export
            && children.iter().any(|x| x.kind() == "*")
            && !children.iter().any(|x| x.kind() == "namespace_export")
        {
            out.star = true;
        }
        let mut stack = vec![stmt];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
            match n.kind() {
                "import_specifier" | "export_specifier" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let t = unquote(&text[name.byte_range()]);
                        if names.contains(&t) {
                            out.uses.push((t, name.start_byte()));
                        }
                    }
                }
                "namespace_import" => {
                    let mut c2 = n.walk();
                    if let Some(id) = n.named_children(&mut c2).find(|x| x.kind() == "identifier") {
                        namespaces.push(text[id.byte_range()].to_string());
                    }
                }
                _ => {}
            }
        }
    }
    if !namespaces.is_empty() {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
            if matches!(n.kind(), "member_expression" | "nested_type_identifier")
                && let (Some(obj), Some(prop)) = (
                    n.child_by_field_name("object")
                        .or_else(|| n.child_by_field_name("module")),
                    n.child_by_field_name("property")
                        .or_else(|| n.child_by_field_name("name")),
                )
                && namespaces.iter().any(|ns| ns == &text[obj.byte_range()])
                && names.contains(&text[prop.byte_range()])
            {
                out.uses
                    .push((text[prop.byte_range()].to_string(), prop.start_byte()));
            }
        }
    }
    out.uses.sort_by_key(|u| u.1);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, s: &[Splice]) -> String {
        crate::ops::apply(text, s)
    }

    #[test]
    fn lists_every_form() {
        let t = "export class A {}\nexport const b = 1, c = 2;\nconst d = 1;\nexport { d as D, d };\nexport { e, f as F } from './x';\nexport * from './y';\nexport * as ns from './z';\nexport default function g() {}\nexport interface I {}\nexport type T = 1;\n";
        let ex = exports(Lang::TypeScript, t).unwrap();
        let names: Vec<&str> = ex.names.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            ["A", "b", "c", "D", "d", "e", "F", "ns", "default", "I", "T"]
        );
        assert_eq!(ex.star_from, ["./y"]);
        assert_eq!(ex.default_named("g").unwrap().name, "default");
        // Declaration files: `export declare ...`.
        let d = "export declare function f(): void;\nexport declare class K {}\nexport declare const v: number, w: string;\n";
        let ex = exports(Lang::TypeScript, d).unwrap();
        let names: Vec<&str> = ex.names.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["f", "K", "v", "w"]);
    }

    #[test]
    fn renames_each_form() {
        let t = "export class A {}\nconst x: A = new A();\n";
        let s = rename_export(Lang::TypeScript, t, "A", "B").unwrap();
        assert_eq!(apply(t, &s), "export class B {}\nconst x: B = new B();\n");
        let t = "const d = 1;\nexport { d as D };\n";
        let s = rename_export(Lang::TypeScript, t, "D", "E").unwrap();
        assert_eq!(apply(t, &s), "const d = 1;\nexport { d as E };\n");
        let t = "export { e } from './x';\n";
        let s = rename_export(Lang::TypeScript, t, "e", "f").unwrap();
        assert_eq!(apply(t, &s), "export { e as f } from './x';\n");
        let t = "export default class S {}\nnew S();\n";
        let s = rename_export(Lang::TypeScript, t, "S", "T").unwrap();
        assert_eq!(apply(t, &s), "export default class T {}\nnew T();\n");
    }

    #[test]
    fn refuses_what_cannot_be() {
        let t = "export class A {}\nexport const B = 1;\nconst C = 2;\n";
        let e = rename_export(Lang::TypeScript, t, "Z", "Y").unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("A, B"), "{}", e.message);
        let e = rename_export(Lang::TypeScript, t, "A", "B").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        let e = rename_export(Lang::TypeScript, t, "A", "C").unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        let e = rename_export(Lang::TypeScript, t, "A", "1x").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn finds_what_comes_through() {
        let t = "import { a, b as c } from './m';\nimport * as ns from './m';\nexport { a as x } from './m';\nexport * from './m';\nimport { a as other } from './n';\nns.a(); ns.z; c;\n";
        let names = ["a".to_string(), "b".to_string()].into();
        let th = through(Lang::TypeScript, t, &|s| s == "./m", &names).unwrap();
        assert!(th.star);
        let got: Vec<(&str, usize)> = th
            .uses
            .iter()
            .map(|(n, at)| (n.as_str(), crate::position(t, *at).line))
            .collect();
        assert_eq!(got, [("a", 1), ("b", 1), ("a", 3), ("a", 6)]);
    }
}
