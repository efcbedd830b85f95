//! The file templates of the semantic table's `file_create`, the user's own templates
//! (`.filekit/templates/<name>` or `<name>.<ext>` in the first root), and whole-word renames
//! for `file_duplicate`.
//!
//! A template is text with `{{placeholders}}`. `name` defaults to the new file's name without
//! its extension; `Name` (PascalCase), `camelName` and `kebabName` are derived from it.
//! A placeholder with no value is an error that lists what the template needs.

use crate::Call;
use filekit_core::read::{ReadContent, ReadOptions, read_file};
use filekit_core::{ErrorCode, FkError};
use std::collections::BTreeMap;

/// The built-in templates, by the names the semantic table's design gives them.
const BUILT_IN: &[(&str, &str)] = &[
    ("empty", ""),
    ("typescript-module", "/**\n * {{name}}\n */\n\nexport {};\n"),
    (
        "typescript-class",
        "export class {{Name}} {\n  constructor() {}\n}\n",
    ),
    ("typescript-interface", "export interface {{Name}} {\n}\n"),
    (
        "typescript-function",
        "export function {{camelName}}(): void {\n}\n",
    ),
    (
        "typescript-test",
        "import { describe, expect, it } from 'vitest';\n\ndescribe('{{name}}', () => {\n  it('works', () => {\n    expect(true).toBe(true);\n  });\n});\n",
    ),
    (
        "react-component",
        "import React from 'react';\n\nexport interface {{Name}}Props {}\n\nexport function {{Name}}(props: {{Name}}Props) {\n  return <div className=\"{{kebabName}}\" />;\n}\n\nexport default {{Name}};\n",
    ),
    (
        "react-hook",
        "import { useState } from 'react';\n\nexport function {{camelName}}() {\n  const [state, setState] = useState(null);\n  return { state, setState };\n}\n",
    ),
    (
        "react-context",
        "import React, { createContext, useContext } from 'react';\n\nexport interface {{Name}}Value {}\n\nconst {{Name}}Context = createContext<{{Name}}Value | undefined>(undefined);\n\nexport function {{Name}}Provider({ children }: { children: React.ReactNode }) {\n  return <{{Name}}Context.Provider value={{{{}}}}>{children}</{{Name}}Context.Provider>;\n}\n\nexport function use{{Name}}() {\n  const value = useContext({{Name}}Context);\n  if (value === undefined) {\n    throw new Error('use{{Name}} must be used inside {{Name}}Provider');\n  }\n  return value;\n}\n",
    ),
    (
        "express-controller",
        "import { Request, Response } from 'express';\n\nexport class {{Name}} {\n  async index(req: Request, res: Response) {\n    res.json([]);\n  }\n}\n",
    ),
    (
        "express-middleware",
        "import { NextFunction, Request, Response } from 'express';\n\nexport function {{camelName}}(req: Request, res: Response, next: NextFunction) {\n  next();\n}\n",
    ),
    (
        "node-cli",
        "#!/usr/bin/env node\n\nfunction main(args: string[]): number {\n  console.log('{{name}}', args);\n  return 0;\n}\n\nprocess.exit(main(process.argv.slice(2)));\n",
    ),
    ("json", "{}\n"),
    ("yaml", "# {{name}}\n"),
    ("markdown", "# {{name}}\n"),
    (
        "markdown-readme",
        "# {{name}}\n\n## Installation\n\n## Usage\n\n## License\n",
    ),
];

/// The names of the built-in templates.
pub(crate) fn names() -> Vec<&'static str> {
    BUILT_IN.iter().map(|(n, _)| *n).collect()
}

/// The text of template `name` for a new file at `path`, with its placeholders filled.
pub(crate) fn render(
    ws: &Call,
    name: &str,
    path: &str,
    vars: &BTreeMap<String, String>,
) -> Result<String, FkError> {
    let template = match BUILT_IN.iter().find(|(n, _)| *n == name) {
        Some((_, t)) => t.to_string(),
        None => user_template(ws, name, path)?,
    };
    let stem = std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = vars.get("name").cloned().unwrap_or(stem);
    let words = split_words(&base);
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    values.insert("name".into(), base.clone());
    values.insert("Name".into(), words.iter().map(|w| capitalize(w)).collect());
    values.insert(
        "camelName".into(),
        words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_lowercase()
                } else {
                    capitalize(w)
                }
            })
            .collect(),
    );
    values.insert(
        "kebabName".into(),
        words
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>()
            .join("-"),
    );
    for (k, v) in vars {
        values.insert(k.clone(), v.clone());
    }
    fill(&template, &values, name)
}

/// A user's template: `.filekit/templates/<name>`, or `<name>.<ext>` with the new file's
/// extension.
fn user_template(ws: &Call, name: &str, path: &str) -> Result<String, FkError> {
    let unknown = || {
        FkError::new(ErrorCode::NotFound, format!("there is no template '{name}'")).with_hint(format!(
            "use one of: {}; or put your own in .filekit/templates/{name} (or {name}.<ext>) in the first root",
            names().join(", ")
        ))
    };
    if name.is_empty() || name.contains('/') || name.contains('\\') || name.starts_with('.') {
        return Err(FkError::invalid(format!(
            "'{name}' is not a template name: templates are named, never given by path"
        ))
        .with_hint(format!(
            "use one of: {}; or the name of a file in .filekit/templates/",
            names().join(", ")
        )));
    }
    let mut candidates = vec![format!(".filekit/templates/{name}")];
    if let Some(ext) = std::path::Path::new(path).extension() {
        candidates.push(format!(
            ".filekit/templates/{name}.{}",
            ext.to_string_lossy()
        ));
    }
    for c in candidates {
        let read = read_file(ws, &c, &ReadOptions::default());
        match read.result {
            Ok(ReadContent::Text(t)) if !t.truncated => return Ok(t.content),
            // Read in part only: a template is used whole.
            Ok(ReadContent::Text(t)) => {
                let shown = read.resolved_path.as_deref().unwrap_or(&c);
                return Err(filekit_core::limits::file_too_large(
                    shown,
                    t.size,
                    filekit_core::limits::MAX_READ_BYTES,
                    "use as a template",
                    "make the template smaller",
                ));
            }
            Ok(_) => {
                return Err(FkError::new(
                    ErrorCode::Binary,
                    format!("the template {c} is not text"),
                )
                .with_hint("templates must be UTF-8 text files"));
            }
            Err(e) if e.code == ErrorCode::NotFound => continue,
            Err(e) => return Err(e),
        }
    }
    Err(unknown())
}

/// Fills `{{key}}` placeholders. `{{{{}}}}` stands for a literal `{{}}`.
fn fill(template: &str, values: &BTreeMap<String, String>, name: &str) -> Result<String, FkError> {
    let mut out = String::with_capacity(template.len());
    let mut missing: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        if let Some(tail) = after.strip_prefix("{{}}}}") {
            out.push_str("{{}}");
            rest = tail;
            continue;
        }
        match after.find("}}") {
            Some(j) => {
                let key = after[..j].trim();
                match values.get(key) {
                    Some(v) => out.push_str(v),
                    None => {
                        if !missing.iter().any(|m| m == key) {
                            missing.push(key.to_string());
                        }
                    }
                }
                rest = &after[j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    if !missing.is_empty() {
        return Err(FkError::invalid(format!(
            "the template '{name}' needs {} that templateVars does not give",
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint(format!(
            "add them to templateVars, e.g. {{\"{}\": \"...\"}}",
            missing[0]
        )));
    }
    Ok(out)
}

/// `UserService`, `user-service`, `user_service` -> `["User", "Service"]`-like words.
fn split_words(s: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in s.chars() {
        if !ch.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.push(ch);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// One rename of [`rename_words`]: old name, new name, occurrences.
pub(crate) type Renamed = (String, String, usize);

/// Replaces whole-word occurrences of each `old` with its `new`, all in one pass over the
/// text (so `A -> B, B -> A` swaps). Returns the text and, per mapping, its occurrences.
pub(crate) fn rename_words(
    text: &str,
    mapping: &[(String, String)],
) -> Result<(String, Vec<Renamed>), FkError> {
    for (old, _) in mapping {
        if old.is_empty()
            || !old
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return Err(FkError::invalid(format!(
                "'{old}' is not a symbol name: symbol renames take identifiers"
            ))
            .with_hint("map identifiers only, e.g. {\"UserService\": \"AdminService\"}"));
        }
    }
    let alternatives: Vec<String> = mapping.iter().map(|(o, _)| regex::escape(o)).collect();
    let re = regex::Regex::new(&format!(r"\b(?:{})\b", alternatives.join("|")))
        .map_err(|e| FkError::invalid(format!("cannot build the rename: {e}")))?;
    let mut counts = vec![0usize; mapping.len()];
    let out = re.replace_all(text, |caps: &regex::Captures<'_>| {
        let m = &caps[0];
        match mapping.iter().position(|(o, _)| o == m) {
            Some(i) => {
                counts[i] += 1;
                mapping[i].1.clone()
            }
            None => m.to_string(),
        }
    });
    let report = mapping
        .iter()
        .zip(counts)
        .map(|((o, n), c)| (o.clone(), n.clone(), c))
        .collect();
    Ok((out.into_owned(), report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_cases() {
        assert_eq!(split_words("UserService"), ["User", "Service"]);
        assert_eq!(split_words("user-service"), ["user", "service"]);
        let values: BTreeMap<String, String> = [("name".to_string(), "x".to_string())].into();
        assert_eq!(fill("a {{name}} b", &values, "t").unwrap(), "a x b");
        let err = fill("{{missing}}", &values, "t").unwrap_err();
        assert!(err.message.contains("`missing`"), "{}", err.message);
        assert_eq!(fill("v={{{{}}}}", &values, "t").unwrap(), "v={{}}");
    }

    #[test]
    fn renames_are_whole_words_and_simultaneous() {
        let (out, counts) = rename_words(
            "A AB B A_",
            &[("A".into(), "B".into()), ("B".into(), "A".into())],
        )
        .unwrap();
        assert_eq!(out, "B AB A A_");
        assert_eq!(counts[0].2, 1);
        assert_eq!(counts[1].2, 1);
        assert!(rename_words("x", &[("a b".into(), "c".into())]).is_err());
    }
}
