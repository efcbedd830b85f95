//! add_import for TS/TSX/JS without a language server: which name a file uses without
//! declaring it ([`missing_name`]), and the edit that imports it from a module the caller
//! chose ([`import_edit`]), in the file's style: merged into an existing import of that
//! module (in order when its names are sorted), else a new declaration after the last
//! import, with the file's quotes and semicolons, `import type` when the name is used only as
//! a type and the file already writes type-only imports. Which modules export the name is
//! `filekit-refactor`'s question (this crate takes no paths).

use crate::Lang;
use crate::style::{first_string_quote, uses_semicolons};
use crate::ts::extract::parse_clean;
use crate::ts::{OCCURRENCE_KINDS, Target, occurrences, scopes_for};
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::Node;

/// A name the file uses and neither declares nor imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub name: String,
    /// Every free use is in a type position (`x: Name`, `implements Name`, `Name<T>`).
    pub type_only: bool,
    /// The first free use (byte offset), for messages.
    pub first_use: usize,
}

fn at(text: &str, offset: usize) -> String {
    let p = crate::position(text, offset);
    format!("line {}, column {}", p.line, p.column)
}

/// The name `target` points at (an identifier at a position, or a name), checked: the file
/// parses, uses the name somewhere no declaration of the file binds, and neither declares nor
/// imports it at module level.
pub fn missing_name(lang: Lang, text: &str, target: &Target) -> Result<Missing, FkError> {
    let tree = parse_clean(lang, text)?;
    let name = match target {
        Target::Name(n) => {
            crate::ts::check_identifier(n)?;
            n.clone()
        }
        Target::At(offset) => {
            let node = tree
                .root_node()
                .descendant_for_byte_range(*offset, *offset)
                .filter(|n| OCCURRENCE_KINDS.contains(&n.kind()))
                .ok_or_else(|| {
                    FkError::invalid(format!(
                        "no identifier at {}: add_import takes the position of a name the file uses",
                        at(text, *offset)
                    ))
                    .with_hint("put the selection's start on the name, or give it as `symbol`")
                })?;
            text[node.byte_range()].to_string()
        }
    };
    let occ = occurrences(&tree, text, &name);
    let scopes = scopes_for(&tree, text, &occ);
    let mut free = Vec::new();
    let mut declared_at_module = None;
    let mut bound_use = None;
    for n in &occ {
        if let Some(scope) = scopes.declaring_scope(*n) {
            if scope.kind() == "program" && declared_at_module.is_none() {
                declared_at_module = Some(*n);
            }
            continue;
        }
        if !scopes.is_reference(*n) {
            continue;
        }
        match scopes.binding(*n) {
            None => free.push(*n),
            Some(_) => {
                if let Target::At(o) = target
                    && n.byte_range().contains(o)
                {
                    bound_use = Some(*n);
                }
            }
        }
    }
    if let Some(d) = declared_at_module {
        let what = if crate::ts::ancestor(d, &["import_statement"]).is_some() {
            "imported"
        } else {
            "declared"
        };
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` is already {what} in this file at {}",
                at(text, d.start_byte())
            ),
        )
        .with_hint("nothing to import: the name is bound already"));
    }
    if let Some(u) = bound_use {
        let decl = scopes
            .binding(u)
            .and_then(|s| {
                scopes
                    .decls
                    .get(&(s.id(), name.clone()))
                    .and_then(|v| v.first().copied())
            })
            .unwrap_or(u.start_byte());
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "`{name}` at {} is declared in its scope at {}: an import would not reach it",
                at(text, u.start_byte()),
                at(text, decl)
            ),
        )
        .with_hint("nothing to import: the name is bound already"));
    }
    let Some(first) = free.first() else {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("`{name}` is not used in this file: nothing needs importing"),
        )
        .with_hint("give the name of an identifier the file uses without declaring it"));
    };
    Ok(Missing {
        type_only: free.iter().all(|n| n.kind() == "type_identifier"),
        first_use: first.start_byte(),
        name,
    })
}

/// What to import, and from where.
#[derive(Debug, Clone)]
pub struct ImportSpec<'a> {
    pub name: &'a str,
    /// The module specifier as it is to be written (`./x`, `@app/x`, `rxjs`).
    pub module: &'a str,
    /// The module's default export is that name: `import name from`.
    pub default: bool,
    /// The name is used only as a type.
    pub type_only: bool,
}

/// One top-level import declaration.
struct Decl<'t> {
    node: Node<'t>,
    source: String,
    type_only: bool,
    default: Option<Node<'t>>,
    namespace: bool,
    named: Option<Node<'t>>,
}

fn decls<'t>(root: Node<'t>, text: &str) -> Vec<Decl<'t>> {
    let mut out = Vec::new();
    let mut c = root.walk();
    for stmt in root.named_children(&mut c) {
        if stmt.kind() != "import_statement" {
            continue;
        }
        let Some(src) = stmt.child_by_field_name("source") else {
            continue;
        };
        let mut d = Decl {
            node: stmt,
            source: text[src.byte_range()]
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string(),
            type_only: false,
            default: None,
            namespace: false,
            named: None,
        };
        let mut c2 = stmt.walk();
        for ch in stmt.children(&mut c2) {
            match ch.kind() {
                "type" => d.type_only = true,
                "import_clause" => {
                    let mut c3 = ch.walk();
                    for part in ch.named_children(&mut c3) {
                        match part.kind() {
                            "identifier" => d.default = Some(part),
                            "namespace_import" => d.namespace = true,
                            "named_imports" => d.named = Some(part),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        out.push(d);
    }
    out
}

/// The splices that import `spec.name` from `spec.module` into `text`.
pub fn import_edit(lang: Lang, text: &str, spec: &ImportSpec) -> Result<Splices, FkError> {
    let tree = parse_clean(lang, text)?;
    let root = tree.root_node();
    let all = decls(root, text);
    if lang == Lang::JavaScript && all.is_empty() && is_commonjs(root, text) {
        return Err(FkError::invalid(format!(
            "this file is a CommonJS module (it calls `require` and has no import or export): an `import` of `{}` would not run in it",
            spec.name
        ))
        .with_hint(format!(
            "write `const {{ {} }} = require('{}')` yourself",
            spec.name, spec.module
        )));
    }
    let type_style = all.iter().any(|d| d.type_only);
    let want_type = spec.type_only && type_style && !spec.default;
    let same: Vec<&Decl> = all.iter().filter(|d| d.source == spec.module).collect();
    let splice = if spec.default {
        same.iter()
            .find(|d| !d.type_only && d.default.is_none() && d.named.is_some())
            .and_then(|d| d.named)
            .map(|named| {
                Splice::new(
                    named.start_byte(),
                    named.start_byte(),
                    format!("{}, ", spec.name),
                )
            })
    } else {
        let into = same
            .iter()
            .find(|d| d.named.is_some() && d.type_only == want_type)
            .or_else(|| same.iter().find(|d| d.named.is_some() && !d.type_only));
        match into {
            Some(d) => Some(merge_named(
                text,
                d.named.expect("found with one"),
                spec.name,
            )),
            None => same
                .iter()
                .find(|d| !d.type_only && !d.namespace && d.named.is_none())
                .and_then(|d| d.default)
                .map(|def| {
                    Splice::new(
                        def.end_byte(),
                        def.end_byte(),
                        format!(", {{ {} }}", spec.name),
                    )
                }),
        }
    };
    let splice = match splice {
        Some(s) => s,
        None => new_declaration(root, text, &all, spec, want_type),
    };
    Ok(Splices::new(text, vec![splice])?)
}

fn is_commonjs(root: Node, text: &str) -> bool {
    let mut c = root.walk();
    let exports = root
        .named_children(&mut c)
        .any(|n| n.kind() == "export_statement");
    !exports && text.contains("require(")
}

/// `name` added to `{ a, b }`: at its place when the names are sorted (as TypeScript's
/// organize imports or a case-sensitive sort left them), else last; the list's own
/// separator (`, ` or a line break and indentation).
fn merge_named(text: &str, named: Node, name: &str) -> Splice {
    let mut c = named.walk();
    let specs: Vec<Node> = named
        .named_children(&mut c)
        .filter(|n| n.kind() == "import_specifier")
        .collect();
    if specs.is_empty() {
        return Splice::new(
            named.start_byte(),
            named.end_byte(),
            format!("{{ {name} }}"),
        );
    }
    let key = |n: &Node| {
        n.child_by_field_name("name")
            .map_or(&text[n.byte_range()], |x| &text[x.byte_range()])
            .to_string()
    };
    let keys: Vec<String> = specs.iter().map(key).collect();
    let folded = |s: &str| (s.to_lowercase(), s.to_string());
    let sorted_folded = keys.windows(2).all(|w| folded(&w[0]) <= folded(&w[1]));
    let sorted_plain = keys.windows(2).all(|w| w[0] <= w[1]);
    let pos = if sorted_folded {
        keys.iter()
            .position(|k| folded(k) > folded(name))
            .unwrap_or(keys.len())
    } else if sorted_plain {
        keys.iter()
            .position(|k| k.as_str() > name)
            .unwrap_or(keys.len())
    } else {
        keys.len()
    };
    let sep = if specs.len() >= 2 {
        text[specs[0].end_byte()..specs[1].start_byte()].to_string()
    } else {
        let before = &text[named.start_byte() + 1..specs[0].start_byte()];
        match before.rfind('\n') {
            Some(i) => format!(",\n{}", &before[i + 1..]),
            None => ", ".to_string(),
        }
    };
    if pos < specs.len() {
        let at = specs[pos].start_byte();
        Splice::new(at, at, format!("{name}{sep}"))
    } else {
        let at = specs[specs.len() - 1].end_byte();
        Splice::new(at, at, format!("{sep}{name}"))
    }
}

/// A new declaration after the last import (or, with none, before the first statement that
/// is not the file's header comment, shebang or directive), in the file's quotes and
/// semicolons.
fn new_declaration(
    root: Node,
    text: &str,
    all: &[Decl],
    spec: &ImportSpec,
    want_type: bool,
) -> Splice {
    let quote = all
        .first()
        .and_then(|d| d.node.child_by_field_name("source"))
        .and_then(|s| text[s.byte_range()].chars().next())
        .or_else(|| first_string_quote(root, text))
        .unwrap_or('\'');
    let semicolon = match all.last() {
        Some(d) => text[d.node.byte_range()].trim_end().ends_with(';'),
        None => uses_semicolons(root, text),
    };
    let clause = if spec.default {
        spec.name.to_string()
    } else {
        format!("{{ {} }}", spec.name)
    };
    let line = format!(
        "import {}{clause} from {quote}{}{quote}{}",
        if want_type { "type " } else { "" },
        spec.module,
        if semicolon { ";" } else { "" }
    );
    if let Some(last) = all.last() {
        let end = last.node.end_byte();
        return match text[end..].find('\n') {
            Some(i) => Splice::new(end + i + 1, end + i + 1, format!("{line}\n")),
            None => Splice::new(text.len(), text.len(), format!("\n{line}\n")),
        };
    }
    let mut c = root.walk();
    let children: Vec<Node> = root.children(&mut c).collect();
    let mut i = 0;
    while i < children.len() {
        let n = children[i];
        let header = match n.kind() {
            "hash_bang_line" => true,
            "expression_statement" => n.named_child(0).is_some_and(|x| x.kind() == "string"),
            // A comment followed by a blank line heads the file; one right above a statement
            // belongs to it.
            "comment" => children
                .get(i + 1)
                .is_none_or(|next| text[n.end_byte()..next.start_byte()].matches('\n').count() > 1),
            _ => false,
        };
        if !header {
            break;
        }
        i += 1;
    }
    match children.get(i) {
        Some(n) => {
            let line_start = text[..n.start_byte()].rfind('\n').map_or(0, |j| j + 1);
            Splice::new(line_start, line_start, format!("{line}\n\n"))
        }
        None => {
            let prefix = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            Splice::new(text.len(), text.len(), format!("{prefix}{line}\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, name: &str, module: &str, default: bool, type_only: bool) -> String {
        let s = import_edit(
            Lang::TypeScript,
            text,
            &ImportSpec {
                name,
                module,
                default,
                type_only,
            },
        )
        .unwrap();
        s.apply(text).unwrap()
    }

    #[test]
    fn merges_into_an_import_of_the_module_in_order() {
        let t = "import { a, c } from './x';\n\nc(a, b);\n";
        assert_eq!(
            edit(t, "b", "./x", false, false),
            "import { a, b, c } from './x';\n\nc(a, b);\n"
        );
        let t = "import { c, a } from './x';\nc(a, b);\n";
        assert_eq!(
            edit(t, "b", "./x", false, false),
            "import { c, a, b } from './x';\nc(a, b);\n"
        );
        let t = "import {\n  a,\n  c,\n} from \"./x\"\nd(a, c)\n";
        assert_eq!(
            edit(t, "d", "./x", false, false),
            "import {\n  a,\n  c,\n  d,\n} from \"./x\"\nd(a, c)\n"
        );
        let t = "import X from './x';\nnew X(y);\n";
        assert_eq!(
            edit(t, "y", "./x", false, false),
            "import X, { y } from './x';\nnew X(y);\n"
        );
        let t = "import { y } from './x';\nnew X(y);\n";
        assert_eq!(
            edit(t, "X", "./x", true, false),
            "import X, { y } from './x';\nnew X(y);\n"
        );
    }

    #[test]
    fn new_declarations_follow_the_files_style() {
        let t = "import { a } from \"./a\"\n\nlet v: B = a\n";
        assert_eq!(
            edit(t, "B", "./b", false, true),
            "import { a } from \"./a\"\nimport { B } from \"./b\"\n\nlet v: B = a\n"
        );
        let t = "import type { A } from './a';\n\nlet v: B;\n";
        assert_eq!(
            edit(t, "B", "./b", false, true),
            "import type { A } from './a';\nimport type { B } from './b';\n\nlet v: B;\n"
        );
        let t = "// header\n\n/** doc */\nexport const v = B;\n";
        assert_eq!(
            edit(t, "B", "./b", false, false),
            "// header\n\nimport { B } from './b';\n\n/** doc */\nexport const v = B;\n"
        );
    }

    #[test]
    fn refusals_say_what_and_where() {
        let m = |t: &str, target: Target| missing_name(Lang::TypeScript, t, &target);
        let e = m("import { a } from './a';\na();\n", Target::Name("a".into())).unwrap_err();
        assert!(e.message.contains("already imported"), "{}", e.message);
        let e = m("const a = 1;\n", Target::Name("b".into())).unwrap_err();
        assert!(e.message.contains("not used"), "{}", e.message);
        let e = m("function f(a) { return a; }\n", Target::At(23)).unwrap_err();
        assert!(e.message.contains("declared in its scope"), "{}", e.message);
        let e = m("let x = (;\n", Target::Name("x".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
        let ok = m("let v: Foo = make();\n", Target::Name("Foo".into())).unwrap();
        assert!(ok.type_only);
        let ok = m("let v: Foo = new Foo();\n", Target::At(18)).unwrap();
        assert_eq!(ok.name, "Foo");
        assert!(!ok.type_only);
        // A JSX element's name is a use.
        let jsx = "export const App = () => <Button label=\"x\" />;\n";
        let ok = missing_name(Lang::Tsx, jsx, &Target::Name("Button".into())).unwrap();
        assert!(!ok.type_only);
        // A CommonJS script gets no `import`.
        let e = import_edit(
            Lang::JavaScript,
            "const fs = require('fs');\nmodule.exports = f;\n",
            &ImportSpec {
                name: "f",
                module: "./f",
                default: false,
                type_only: false,
            },
        )
        .unwrap_err();
        assert!(e.message.contains("CommonJS"), "{}", e.message);
    }
}
