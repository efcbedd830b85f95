//! What filekit reads of `tsconfig.json` / `jsconfig.json`, following `extends` (a relative
//! file, or a package's config in `node_modules`; a list of them, each overriding the ones
//! before): where a module is found (`compilerOptions.baseUrl` and `compilerOptions.paths`),
//! and whether the compiler refuses a declaration without a type (`noImplicitAny`, which
//! `strict` turns on), which decides what a refactor may write. A file is governed by the
//! nearest `tsconfig.json` (or `jsconfig.json`) in its directory or above, as `tsc` without
//! `-p`.

use crate::paths::{dir_of, join, normalize};
use serde_json::Value;
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

/// Reads config texts by workspace-relative path: `Ok(None)` when there is no such file,
/// `Err` with the reason when there is one that cannot be read.
pub type Reader<'a> = dyn Fn(&str) -> Result<Option<String>, String> + 'a;

/// One config file of a chain.
#[derive(Debug)]
enum Layer {
    Read {
        file: String,
        value: Value,
    },
    /// A file of the chain that cannot be read or parsed (or is not found): its settings are
    /// not known.
    Unknown {
        file: String,
        why: String,
    },
}

/// How many files a chain may have (`tsc` has no bound; a cycle is cut where it closes).
const MAX_CHAIN: usize = 16;

/// The config file `file` and the files it extends, most basic first: each file's settings
/// override those of the files before it.
fn chain(file: &str, read: &Reader<'_>) -> Vec<Layer> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    chain_into(file, read, &mut seen, &mut out);
    out
}

fn chain_into(file: &str, read: &Reader<'_>, seen: &mut Vec<String>, out: &mut Vec<Layer>) {
    if seen.iter().any(|s| s == file) || seen.len() >= MAX_CHAIN {
        return;
    }
    seen.push(file.to_string());
    let unknown = |why: String| Layer::Unknown {
        file: file.to_string(),
        why,
    };
    let text = match read(file) {
        Ok(Some(t)) => t,
        Ok(None) => return out.push(unknown("it is not found".into())),
        Err(why) => return out.push(unknown(why)),
    };
    let value = match jsonc_parser::parse_to_serde_value::<Value>(
        &text,
        &jsonc_parser::ParseOptions::default(),
    ) {
        Ok(v) => v,
        Err(e) => return out.push(unknown(format!("it does not parse: {e}"))),
    };
    let extends: Vec<&str> = match value.get("extends") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    for ext in extends {
        match extended(dir_of(file), ext, read) {
            Some(parent) => chain_into(&parent, read, seen, out),
            None => out.push(Layer::Unknown {
                file: ext.to_string(),
                why: format!("{file} extends it, and it is not found"),
            }),
        }
    }
    out.push(Layer::Read {
        file: file.to_string(),
        value,
    });
}

/// The file an `extends` of a config in `dir` names: a relative path (`.json` added when it
/// has no extension), or a package's config found in a `node_modules` of `dir` or above
/// (`pkg/tsconfig.json` for a bare `pkg`), as the compiler looks for it.
fn extended(dir: &str, ext: &str, read: &Reader<'_>) -> Option<String> {
    if ext.starts_with("./") || ext.starts_with("../") || ext == "." || ext == ".." {
        let mut path = join(dir, ext);
        if !path.ends_with(".json") {
            path.push_str(".json");
        }
        return normalize(&path);
    }
    if ext.starts_with('/') {
        return None;
    }
    let mut d = dir;
    loop {
        let base = join(d, &format!("node_modules/{ext}"));
        let candidates = if ext.ends_with(".json") {
            vec![base]
        } else {
            vec![format!("{base}.json"), format!("{base}/tsconfig.json")]
        };
        for c in candidates {
            if let Some(c) = normalize(&c)
                && matches!(read(&c), Ok(Some(_)))
            {
                return Some(c);
            }
        }
        if d.is_empty() {
            return None;
        }
        d = dir_of(d);
    }
}

/// The settings of the config file `file`.
pub fn load(file: &str, read: &Reader<'_>) -> Config {
    // baseUrl resolved, paths as written, the directory of the config that gave `paths`.
    let (mut base_url, mut paths, mut paths_dir) = (None, Vec::new(), None);
    for layer in chain(file, read) {
        let Layer::Read { file, value } = layer else {
            continue;
        };
        let dir = dir_of(&file);
        let options = value.get("compilerOptions");
        if let Some(url) = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(|u| u.as_str())
        {
            base_url = normalize(&join(dir, url));
        }
        if let Some(p) = options
            .and_then(|o| o.get("paths"))
            .and_then(|p| p.as_object())
        {
            paths = p
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
                .collect::<Vec<(String, Vec<String>)>>();
            paths_dir = Some(dir.to_string());
        }
    }
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

/// Whether the compiler refuses a declaration whose type it would have to take as `any`
/// (`noImplicitAny`, on when `strict` is and `noImplicitAny` is not set), and what says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplicitAny {
    pub refused: bool,
    /// The setting that decides, and where (`` `strict` in tsconfig.json ``), or why it is
    /// not known (then it is taken as refused: a result the compiler may refuse is not
    /// written on a guess).
    pub because: String,
}

/// What a setting of the chain is.
enum Setting {
    /// Set by this file.
    Set(bool, String),
    /// A file that may set it cannot be read.
    Unknown(String),
    NotSet,
}

fn setting(layers: &[Layer], key: &str) -> Setting {
    for layer in layers.iter().rev() {
        match layer {
            Layer::Read { file, value } => {
                if let Some(b) = value
                    .get("compilerOptions")
                    .and_then(|o| o.get(key))
                    .and_then(Value::as_bool)
                {
                    return Setting::Set(b, file.clone());
                }
            }
            Layer::Unknown { file, why } => {
                return Setting::Unknown(format!("{file} cannot be read ({why})"));
            }
        }
    }
    Setting::NotSet
}

/// `noImplicitAny` for a file in directory `dir` (workspace-relative), from the nearest
/// `tsconfig.json` and the files it extends.
pub fn implicit_any(dir: &str, read: &Reader<'_>) -> ImplicitAny {
    let mut d = dir;
    let config = loop {
        let candidate = join(d, "tsconfig.json");
        match read(&candidate) {
            Ok(None) => {}
            // Found (readable or not): the chain says what it knows.
            _ => break Some(candidate),
        }
        if d.is_empty() {
            break None;
        }
        d = dir_of(d);
    };
    let Some(config) = config else {
        return ImplicitAny {
            refused: false,
            because: "no tsconfig.json governs the file, and the compiler's default is off".into(),
        };
    };
    let layers = chain(&config, read);
    let unknown = |why: String| ImplicitAny {
        refused: true,
        because: format!(
            "the settings of {config} are not known: {why}; the result is held to `noImplicitAny`"
        ),
    };
    match setting(&layers, "noImplicitAny") {
        Setting::Set(b, file) => ImplicitAny {
            refused: b,
            because: format!("`noImplicitAny` is {b} in {file}"),
        },
        Setting::Unknown(why) => unknown(why),
        Setting::NotSet => match setting(&layers, "strict") {
            Setting::Set(b, file) => ImplicitAny {
                refused: b,
                because: if b {
                    format!("`noImplicitAny` is on through `strict` in {file}")
                } else {
                    format!("`strict` is false in {file}, and `noImplicitAny` is not set")
                },
            },
            Setting::Unknown(why) => unknown(why),
            Setting::NotSet => ImplicitAny {
                refused: false,
                because: format!(
                    "neither `strict` nor `noImplicitAny` is set in {config} or the files it extends"
                ),
            },
        },
    }
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
            .filter_map(|p| {
                read(p)
                    .ok()
                    .flatten()
                    .map(|text| crate::packages::mappings(p, &text))
            })
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
        let read = |p: &str| Ok(files.get(p).map(|s| s.to_string()));
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

    /// A reader of in-memory configs; a text of `!` stands for a file that cannot be read.
    fn reader<'a>(
        files: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&str) -> Result<Option<String>, String> + 'a {
        move |p: &str| match files.iter().find(|(f, _)| *f == p) {
            Some((_, "!")) => Err("permission denied".into()),
            Some((_, t)) => Ok(Some(t.to_string())),
            None => Ok(None),
        }
    }

    fn implicit(files: &[(&str, &str)], dir: &str) -> ImplicitAny {
        implicit_any(dir, &reader(files))
    }

    #[test]
    fn no_implicit_any_follows_strict_through_the_chain() {
        // No config: the compiler's default.
        let a = implicit(&[], "src");
        assert!(!a.refused, "{a:?}");
        assert!(a.because.contains("no tsconfig.json"), "{a:?}");
        // `strict` of the config itself, with comments and trailing commas.
        let a = implicit(
            &[(
                "tsconfig.json",
                "{ // checks\n \"compilerOptions\": { \"strict\": true, }, }",
            )],
            "src/internal",
        );
        assert!(a.refused, "{a:?}");
        assert_eq!(
            a.because,
            "`noImplicitAny` is on through `strict` in tsconfig.json"
        );
        // Through a relative `extends` (without `.json`), from a nested config.
        let files = [
            (
                "tsconfig.base.json",
                r#"{ "compilerOptions": { "strict": true } }"#,
            ),
            ("pkg/tsconfig.json", r#"{ "extends": "../tsconfig.base" }"#),
        ];
        let a = implicit(&files, "pkg/src");
        assert!(a.refused, "{a:?}");
        assert!(a.because.contains("tsconfig.base.json"), "{a:?}");
        // The nearest config governs: one without the setting, beside the strict one.
        let a = implicit(
            &[
                (
                    "tsconfig.json",
                    r#"{ "compilerOptions": { "strict": true } }"#,
                ),
                ("tools/tsconfig.json", r#"{ "compilerOptions": {} }"#),
            ],
            "tools",
        );
        assert!(!a.refused, "{a:?}");
        assert!(a.because.contains("neither"), "{a:?}");
    }

    #[test]
    fn an_explicit_no_implicit_any_wins_over_strict_at_any_level() {
        let base = ("base.json", r#"{ "compilerOptions": { "strict": true } }"#);
        let a = implicit(
            &[
                base,
                (
                    "tsconfig.json",
                    r#"{ "extends": "./base.json", "compilerOptions": { "noImplicitAny": false } }"#,
                ),
            ],
            "",
        );
        assert!(!a.refused, "{a:?}");
        assert_eq!(a.because, "`noImplicitAny` is false in tsconfig.json");
        let a = implicit(
            &[
                (
                    "base.json",
                    r#"{ "compilerOptions": { "noImplicitAny": true } }"#,
                ),
                (
                    "tsconfig.json",
                    r#"{ "extends": "./base.json", "compilerOptions": { "strict": false } }"#,
                ),
            ],
            "",
        );
        assert!(a.refused, "{a:?}");
        assert_eq!(a.because, "`noImplicitAny` is true in base.json");
        let a = implicit(
            &[
                base,
                (
                    "tsconfig.json",
                    r#"{ "extends": "./base.json", "compilerOptions": { "strict": false } }"#,
                ),
            ],
            "",
        );
        assert!(!a.refused, "{a:?}");
    }

    #[test]
    fn packages_and_lists_in_extends_are_followed() {
        // A package's config in a node_modules above the config, as `tsc` finds it.
        let files = [
            (
                "node_modules/@tsconfig/strictest/tsconfig.json",
                r#"{ "compilerOptions": { "strict": true } }"#,
            ),
            (
                "app/tsconfig.json",
                r#"{ "extends": "@tsconfig/strictest" }"#,
            ),
        ];
        let a = implicit(&files, "app/src");
        assert!(a.refused, "{a:?}");
        assert!(
            a.because
                .contains("node_modules/@tsconfig/strictest/tsconfig.json"),
            "{a:?}"
        );
        // In a list, each overrides the ones before it.
        let files = [
            ("a.json", r#"{ "compilerOptions": { "strict": true } }"#),
            ("b.json", r#"{ "compilerOptions": { "strict": false } }"#),
            (
                "tsconfig.json",
                r#"{ "extends": ["./a.json", "./b.json"] }"#,
            ),
        ];
        assert!(!implicit(&files, "").refused);
        let files = [
            ("a.json", r#"{ "compilerOptions": { "strict": true } }"#),
            ("b.json", r#"{ "compilerOptions": { "strict": false } }"#),
            (
                "tsconfig.json",
                r#"{ "extends": ["./b.json", "./a.json"] }"#,
            ),
        ];
        assert!(implicit(&files, "").refused);
    }

    #[test]
    fn a_chain_that_cannot_be_read_is_taken_as_refusing() {
        for (files, says) in [
            (
                vec![("tsconfig.json", r#"{ "extends": "./missing.json" }"#)],
                "missing.json cannot be read (it is not found)",
            ),
            (
                vec![("tsconfig.json", r#"{ "extends": "@org/base" }"#)],
                "@org/base cannot be read (tsconfig.json extends it, and it is not found)",
            ),
            (
                vec![("tsconfig.json", "{ \"compilerOptions\": ")],
                "tsconfig.json cannot be read (it does not parse",
            ),
            (
                vec![("tsconfig.json", "!")],
                "tsconfig.json cannot be read (permission denied)",
            ),
        ] {
            let a = implicit(&files, "src");
            assert!(a.refused, "{files:?}: {a:?}");
            assert!(a.because.contains(says), "{files:?}: {}", a.because);
        }
        // What the config itself sets is known whatever its base.
        let a = implicit(
            &[(
                "tsconfig.json",
                r#"{ "extends": "./missing.json", "compilerOptions": { "noImplicitAny": false } }"#,
            )],
            "",
        );
        assert!(!a.refused, "{a:?}");
        // A cycle ends.
        let a = implicit(
            &[
                ("tsconfig.json", r#"{ "extends": "./b.json" }"#),
                (
                    "b.json",
                    r#"{ "extends": "./tsconfig.json", "compilerOptions": { "strict": true } }"#,
                ),
            ],
            "",
        );
        assert!(a.refused, "{a:?}");
    }
}
