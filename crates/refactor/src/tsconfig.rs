//! The parts of `tsconfig.json` / `jsconfig.json` that move where a module is found:
//! `compilerOptions.baseUrl` and `compilerOptions.paths`, following `extends` (relative
//! files; a package name in `extends` is not followed). A file is governed by the nearest
//! `tsconfig.json` (or `jsconfig.json`) in its directory or above, as `tsc` without `-p`.

use crate::paths::{dir_of, join, normalize};
use std::collections::HashMap;

/// Module-resolution settings of one config file, `extends` applied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The config file (workspace-relative).
    pub file: String,
    /// `baseUrl`, workspace-relative.
    pub base_url: Option<String>,
    /// `paths`: pattern (with at most one `*`) → substitutions, workspace-relative.
    pub paths: Vec<(String, Vec<String>)>,
    /// The workspace's packages (`crate::packages`), tried after `paths` and `baseUrl`, as
    /// Node finds a workspace package linked into `node_modules`.
    pub packages: Vec<(String, Vec<String>)>,
}

/// Reads config texts by workspace-relative path.
pub type Reader<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// The settings of the config file `file`.
pub fn load(file: &str, read: &Reader<'_>) -> Config {
    let mut seen = Vec::new();
    let (base_url, paths, paths_dir) = load_raw(file, read, &mut seen);
    let paths_base = base_url.clone().or(paths_dir);
    let paths = paths
        .into_iter()
        .map(|(pattern, subs)| {
            let subs = subs
                .into_iter()
                .filter_map(|s| normalize(&join(paths_base.as_deref().unwrap_or(""), &s)))
                .collect();
            (pattern, subs)
        })
        .collect();
    Config {
        file: file.to_string(),
        base_url,
        paths,
        packages: Vec::new(),
    }
}

type Raw = (Option<String>, Vec<(String, Vec<String>)>, Option<String>);

/// (baseUrl resolved, paths as written, the directory of the config that gave `paths`).
fn load_raw(file: &str, read: &Reader<'_>, seen: &mut Vec<String>) -> Raw {
    if seen.iter().any(|s| s == file) || seen.len() > 16 {
        return (None, Vec::new(), None);
    }
    seen.push(file.to_string());
    let Some(text) = read(file) else {
        return (None, Vec::new(), None);
    };
    let Ok(value) = jsonc_parser::parse_to_serde_value::<serde_json::Value>(
        &text,
        &jsonc_parser::ParseOptions::default(),
    ) else {
        return (None, Vec::new(), None);
    };
    let dir = dir_of(file);
    let mut base: Raw = (None, Vec::new(), None);
    if let Some(ext) = value.get("extends").and_then(|e| e.as_str())
        && ext.starts_with('.')
    {
        let mut parent = join(dir, ext);
        if !parent.ends_with(".json") {
            parent.push_str(".json");
        }
        if let Some(parent) = normalize(&parent) {
            base = load_raw(&parent, read, seen);
        }
    }
    let options = value.get("compilerOptions");
    if let Some(url) = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(|u| u.as_str())
    {
        base.0 = normalize(&join(dir, url));
    }
    if let Some(paths) = options
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
    {
        base.1 = paths
            .iter()
            .map(|(k, v)| {
                let subs = v
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                (k.clone(), subs)
            })
            .collect();
        base.2 = Some(dir.to_string());
    }
    base
}

/// The configs of a workspace, and which one governs a directory.
#[derive(Debug, Default)]
pub struct Configs {
    /// By the directory holding them.
    by_dir: HashMap<String, Config>,
    /// For files no config governs: the workspace packages only.
    default: Config,
}

impl Configs {
    /// `files`: every config file of the workspace (`tsconfig.json`, `jsconfig.json`).
    /// `packages`: every package.json of the workspace.
    pub fn new(files: &[String], packages: &[String], read: &Reader<'_>) -> Configs {
        let mut mappings: Vec<(String, Vec<String>)> = packages
            .iter()
            .filter_map(|p| read(p).map(|text| crate::packages::mappings(p, &text)))
            .flatten()
            .collect();
        mappings.sort();
        let mut by_dir: HashMap<String, Config> = HashMap::new();
        for f in files {
            let config = load(f, read);
            let dir = dir_of(f).to_string();
            // tsconfig.json wins over jsconfig.json in the same directory.
            if by_dir.contains_key(&dir) && f.ends_with("jsconfig.json") {
                continue;
            }
            by_dir.insert(
                dir,
                Config {
                    packages: mappings.clone(),
                    ..config
                },
            );
        }
        Configs {
            by_dir,
            default: Config {
                packages: mappings,
                ..Config::default()
            },
        }
    }

    /// The config governing a file in directory `dir`.
    pub fn for_dir(&self, dir: &str) -> Option<&Config> {
        let mut d = dir;
        loop {
            if let Some(c) = self.by_dir.get(d) {
                return Some(c);
            }
            if d.is_empty() {
                return Some(&self.default);
            }
            d = dir_of(d);
        }
    }
}

/// Whether `name` is a config file this module reads.
pub fn is_config(name: &str) -> bool {
    name == "tsconfig.json" || name == "jsconfig.json"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extends_base_url_and_paths() {
        let files: HashMap<&str, &str> = [
            (
                "tsconfig.json",
                r#"{ // comments are allowed
                "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["./src/app/*"], }, }
            }"#,
            ),
            (
                "pkg/tsconfig.json",
                r#"{ "extends": "../tsconfig", "compilerOptions": { "baseUrl": "lib" } }"#,
            ),
        ]
        .into_iter()
        .collect();
        let read = |p: &str| files.get(p).map(|s| s.to_string());
        let root = load("tsconfig.json", &read);
        assert_eq!(root.base_url.as_deref(), Some(""));
        assert_eq!(
            root.paths,
            vec![("@app/*".to_string(), vec!["src/app/*".to_string()])]
        );
        let pkg = load("pkg/tsconfig.json", &read);
        assert_eq!(pkg.base_url.as_deref(), Some("pkg/lib"));
        // `paths` of the extended config are relative to the extending config's baseUrl.
        assert_eq!(pkg.paths[0].1, vec!["pkg/lib/src/app/*".to_string()]);
        let configs = Configs::new(
            &["tsconfig.json".to_string(), "pkg/tsconfig.json".to_string()],
            &[],
            &read,
        );
        assert_eq!(
            configs.for_dir("pkg/lib/x").unwrap().file,
            "pkg/tsconfig.json"
        );
        assert_eq!(configs.for_dir("src").unwrap().file, "tsconfig.json");
    }
}
