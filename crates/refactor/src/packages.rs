//! Workspace packages (a `package.json` with a `name`, outside `node_modules`): what their
//! name and subpaths resolve to, from `exports` (a string, subpath keys with at most one
//! `*`, conditions `types` > `import` > `module` > `default` > `require`, nested), else
//! `types`/`typings`/`main`, else `index`, plus `name/*` for files of the package when it has
//! no `exports`. Given as `paths`-like mappings (pattern → workspace-relative substitutions)
//! so that resolution and rewriting treat them like tsconfig `paths`.

use crate::paths::{dir_of, join, normalize};
use serde_json::Value;

/// The mappings of one package.json (`file`, workspace-relative; `text` its content).
pub fn mappings(file: &str, text: &str) -> Vec<(String, Vec<String>)> {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(name) = value.get("name").and_then(Value::as_str) else {
        return Vec::new();
    };
    let dir = dir_of(file);
    let at = |target: &str| normalize(&join(dir, target));
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    match value.get("exports") {
        Some(Value::String(s)) => out.extend(at(s).map(|t| (name.to_string(), vec![t]))),
        Some(Value::Object(map)) if map.keys().any(|k| k.starts_with('.')) => {
            for (key, target) in map {
                let Some(target) = condition(target) else {
                    continue;
                };
                let pattern = match key.as_str() {
                    "." => name.to_string(),
                    k => match k.strip_prefix("./") {
                        Some(sub) => format!("{name}/{sub}"),
                        None => continue,
                    },
                };
                if let Some(t) = at(&target) {
                    out.push((pattern, vec![t]));
                }
            }
        }
        // Conditions at the top: the package's "." export.
        Some(v @ Value::Object(_)) => {
            if let Some(t) = condition(v).and_then(|t| at(&t)) {
                out.push((name.to_string(), vec![t]));
            }
        }
        _ => {
            let main = ["types", "typings", "main"]
                .iter()
                .find_map(|k| value.get(*k).and_then(Value::as_str));
            let main = main.and_then(at).unwrap_or_else(|| join(dir, "index"));
            out.push((name.to_string(), vec![main]));
            out.push((format!("{name}/*"), vec![join(dir, "*")]));
        }
    }
    out
}

/// The target an export names for TypeScript: the first of the preferred conditions.
fn condition(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => ["types", "import", "module", "default", "require", "node"]
            .iter()
            .find_map(|c| map.get(*c).and_then(condition)),
        Value::Array(items) => items.iter().find_map(condition),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_main_and_plain_packages() {
        let m = mappings(
            "packages/ui/package.json",
            r#"{"name": "@acme/ui", "exports": {".": {"types": "./src/index.ts", "default": "./dist/index.js"}, "./button/*": "./src/button/*.ts", "./package.json": "./package.json"}}"#,
        );
        assert!(m.contains(&("@acme/ui".into(), vec!["packages/ui/src/index.ts".into()])));
        assert!(m.contains(&(
            "@acme/ui/button/*".into(),
            vec!["packages/ui/src/button/*.ts".into()]
        )));
        let m = mappings(
            "libs/x/package.json",
            r#"{"name": "x", "main": "./lib/main.js"}"#,
        );
        assert_eq!(
            m,
            vec![
                ("x".to_string(), vec!["libs/x/lib/main.js".to_string()]),
                ("x/*".to_string(), vec!["libs/x/*".to_string()])
            ]
        );
        assert!(mappings("a/package.json", r#"{"private": true}"#).is_empty());
    }
}
