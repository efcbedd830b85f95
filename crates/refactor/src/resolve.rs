//! Resolving a specifier to a workspace file the way TypeScript (`moduleResolution`
//! `node10`/`bundler`) and Node do, and writing a specifier for a file in the style another
//! was written in.
//!
//! Relative specifiers (`./a`, `../lib/b.js`, `.`): the exact file, then the TypeScript
//! extensions (`.ts`, `.tsx`, `.d.ts`, then `.js`, `.jsx`, ...), a `.js` specifier that
//! names a `.ts`/`.tsx` file (`.mjs` → `.mts`, `.cjs` → `.cts`), then `index` files of a
//! directory. Non-relative specifiers: the governing tsconfig's `paths` (longest prefix
//! first), then its `baseUrl`. Anything else (packages) is not a workspace file.

use crate::paths::{MODULE_EXTS, dir_of, join, module_ext, name_of, normalize, relative};
use crate::tsconfig::Config;
use std::collections::HashSet;

/// The extensions tried after an extensionless specifier, in TypeScript's order.
const TRY_EXTS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs", ".json",
];

/// How a specifier named its file, to be kept when it is rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtStyle {
    /// `./a` for `a.ts`.
    Omitted,
    /// `./a.ts`, `./data.json`, `./style.css`: the file's own name.
    Exact,
    /// `./a.js` for `a.ts` (the output's extension).
    Output,
}

/// How a specifier was resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// `./`, `../`, `.`, `..`.
    Relative,
    /// A `paths` pattern of the governing config: (pattern, the substitution used).
    Paths(String, String),
    /// The governing config's `baseUrl`.
    BaseUrl(String),
}

/// A specifier resolved to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub file: String,
    pub ext: ExtStyle,
    /// The specifier named a directory and the file is its `index`.
    pub index: bool,
    pub via: Via,
}

/// The files of a workspace (`/`-separated, relative), and their directories.
pub trait FileSet {
    fn has_file(&self, path: &str) -> bool;
    fn has_dir(&self, path: &str) -> bool;
}

/// A plain set of files, with their directories.
#[derive(Debug, Default, Clone)]
pub struct Files {
    pub files: HashSet<String>,
    pub dirs: HashSet<String>,
}

impl Files {
    pub fn new(files: impl IntoIterator<Item = String>) -> Files {
        let mut set = Files::default();
        for f in files {
            set.insert(f);
        }
        set
    }

    pub fn insert(&mut self, f: String) {
        let mut d = dir_of(&f);
        while !d.is_empty() && self.dirs.insert(d.to_string()) {
            d = dir_of(d);
        }
        self.files.insert(f);
    }

    /// Removes the file `path`, or every file and directory under the directory `path`;
    /// returns how many files were removed.
    pub fn remove_under(&mut self, path: &str) -> usize {
        if self.files.remove(path) {
            return 1;
        }
        if !self.dirs.contains(path) {
            return 0;
        }
        let prefix = format!("{path}/");
        let before = self.files.len();
        self.files.retain(|f| !f.starts_with(&prefix));
        self.dirs.retain(|d| d != path && !d.starts_with(&prefix));
        before - self.files.len()
    }
}

impl FileSet for Files {
    fn has_file(&self, path: &str) -> bool {
        self.files.contains(path)
    }
    fn has_dir(&self, path: &str) -> bool {
        path.is_empty() || self.dirs.contains(path)
    }
}

impl<T: FileSet> FileSet for std::sync::Arc<T> {
    fn has_file(&self, path: &str) -> bool {
        (**self).has_file(path)
    }
    fn has_dir(&self, path: &str) -> bool {
        (**self).has_dir(path)
    }
}

pub fn is_relative(spec: &str) -> bool {
    spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../")
}

/// Resolves `spec`, written in `importer`, against `files`.
pub fn resolve(
    files: &dyn FileSet,
    importer: &str,
    spec: &str,
    config: Option<&Config>,
    reference: bool,
) -> Option<Resolved> {
    let spec = spec.split(['?', '#']).next().unwrap_or(spec);
    if is_relative(spec) || reference {
        let base = normalize(&join(dir_of(importer), spec))?;
        return as_file_or_dir(files, &base, spec.ends_with('/'), reference).map(
            |(file, ext, index)| Resolved {
                file,
                ext,
                index,
                via: Via::Relative,
            },
        );
    }
    let config = config?;
    if let Some(r) = mapped(files, spec, &config.paths) {
        return Some(r);
    }
    if let Some(base_url) = config.base_url.as_ref()
        && let Some(candidate) = normalize(&join(base_url, spec))
        && let Some((file, ext, index)) = as_file_or_dir(files, &candidate, false, false)
    {
        return Some(Resolved {
            file,
            ext,
            index,
            via: Via::BaseUrl(base_url.clone()),
        });
    }
    mapped(files, spec, &config.packages)
}

/// `spec` through `paths`-like mappings: the pattern with the longest prefix before its `*`
/// wins; its substitutions are tried in order.
fn mapped(files: &dyn FileSet, spec: &str, mappings: &[(String, Vec<String>)]) -> Option<Resolved> {
    let mut matches: Vec<(usize, &String, &Vec<String>, &str)> = Vec::new();
    for (pattern, subs) in mappings {
        match pattern.split_once('*') {
            Some((pre, post))
                if spec.len() >= pre.len() + post.len()
                    && spec.starts_with(pre)
                    && spec.ends_with(post) =>
            {
                matches.push((
                    pre.len(),
                    pattern,
                    subs,
                    &spec[pre.len()..spec.len() - post.len()],
                ));
            }
            Some(_) => {}
            None if pattern == spec => matches.push((usize::MAX, pattern, subs, "")),
            None => {}
        }
    }
    matches.sort_by_key(|m| std::cmp::Reverse(m.0));
    if let Some((_, pattern, subs, star)) = matches.first() {
        for sub in subs.iter() {
            let candidate = sub.replacen('*', star, 1);
            if let Some((file, ext, index)) =
                normalize(&candidate).and_then(|c| as_file_or_dir(files, &c, false, false))
            {
                return Some(Resolved {
                    file,
                    ext,
                    index,
                    via: Via::Paths(pattern.to_string(), sub.clone()),
                });
            }
        }
    }
    None
}

/// The file `base` names: itself, with an extension, with its output extension swapped for
/// the source's, or its directory's `index`.
fn as_file_or_dir(
    files: &dyn FileSet,
    base: &str,
    dir_only: bool,
    exact_only: bool,
) -> Option<(String, ExtStyle, bool)> {
    if !dir_only && let Some(f) = as_file(files, base, exact_only) {
        return Some(f);
    }
    if exact_only || !files.has_dir(base) {
        return None;
    }
    for ext in TRY_EXTS {
        let f = join(base, &format!("index{ext}"));
        if files.has_file(&f) {
            return Some((f, ExtStyle::Omitted, true));
        }
    }
    None
}

fn as_file(files: &dyn FileSet, base: &str, exact_only: bool) -> Option<(String, ExtStyle, bool)> {
    let name = name_of(base);
    let ext = module_ext(name);
    // TypeScript first tries the sources an output extension stands for.
    if let Some(out) = ext
        && !exact_only
    {
        let stem = &base[..base.len() - out.len()];
        let sources: &[&str] = match out {
            ".js" => &[".ts", ".tsx", ".d.ts"],
            ".jsx" => &[".tsx", ".d.ts"],
            ".mjs" => &[".mts", ".d.mts"],
            ".cjs" => &[".cts", ".d.cts"],
            _ => &[],
        };
        for s in sources {
            let f = format!("{stem}{s}");
            if files.has_file(&f) {
                return Some((f, ExtStyle::Output, false));
            }
        }
    }
    if files.has_file(base) {
        return Some((base.to_string(), ExtStyle::Exact, false));
    }
    if exact_only {
        return None;
    }
    for e in TRY_EXTS {
        let f = format!("{base}{e}");
        if files.has_file(&f) {
            return Some((f, ExtStyle::Omitted, false));
        }
    }
    None
}

/// The output extension of a source's (`.ts` → `.js`), or the extension itself.
fn output_ext(ext: &str) -> &str {
    match ext {
        ".ts" | ".d.ts" => ".js",
        ".tsx" => ".jsx",
        ".mts" | ".d.mts" => ".mjs",
        ".cts" | ".d.cts" => ".cjs",
        e => e,
    }
}

/// The path `target` is named by in a specifier of style (`ext`, `index`): the file with its
/// extension as the style says, or its directory when the index is omitted and it is one.
pub fn module_path(target: &str, ext: ExtStyle, index: bool) -> String {
    let name = name_of(target);
    let file_ext = module_ext(name).unwrap_or("");
    let stem = &name[..name.len() - file_ext.len()];
    if index && stem == "index" && ext == ExtStyle::Omitted {
        return dir_of(target).to_string();
    }
    let named = match ext {
        ExtStyle::Omitted if !file_ext.is_empty() => stem.to_string(),
        ExtStyle::Output if !file_ext.is_empty() => format!("{stem}{}", output_ext(file_ext)),
        _ => name.to_string(),
    };
    join(dir_of(target), &named)
}

/// A relative specifier from `importer` to `target` in the style of `old` (which resolved
/// as `res`): extension and `index` as they were, `./` prefix, a trailing `/` kept.
pub fn relative_specifier(importer: &str, target: &str, res: &Resolved, old: &str) -> String {
    let path = module_path(target, res.ext, res.index);
    let rel = relative(dir_of(importer), &path);
    let mut spec = if rel.is_empty() {
        ".".to_string()
    } else if rel.starts_with("..") {
        rel
    } else {
        format!("./{rel}")
    };
    if old.ends_with('/') && !spec.ends_with('/') {
        spec.push('/');
    }
    spec
}

/// A non-relative specifier for `target` through the same `paths` pattern or `baseUrl`,
/// if the target is still under it.
pub fn mapped_specifier(target: &str, res: &Resolved) -> Option<String> {
    let path = module_path(target, res.ext, res.index);
    match &res.via {
        Via::Relative => None,
        Via::BaseUrl(base) => {
            let rel = if base.is_empty() {
                path
            } else {
                path.strip_prefix(&format!("{base}/"))?.to_string()
            };
            (!rel.starts_with('.')).then_some(rel)
        }
        Via::Paths(pattern, sub) => {
            let (ppre, ppost) = pattern.split_once('*').unwrap_or((pattern, ""));
            match sub.split_once('*') {
                Some((spre, spost)) => {
                    let rest = path.strip_prefix(spre)?;
                    let mid = if spost.is_empty() {
                        rest
                    } else {
                        rest.strip_suffix(spost)?
                    };
                    if !pattern.contains('*') {
                        return None;
                    }
                    Some(format!("{ppre}{mid}{ppost}"))
                }
                None => {
                    // An exact pattern names one file only.
                    let same = normalize(sub)? == path
                        || MODULE_EXTS.iter().any(|e| format!("{sub}{e}") == target)
                        || join(sub, "index") == path;
                    same.then(|| pattern.clone())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Files {
        Files::new(
            [
                "src/a.ts",
                "src/b.tsx",
                "src/lib/index.ts",
                "src/lib/util.js",
                "src/types.d.ts",
                "src/data.json",
                "src/style.css",
                "src/app/main.ts",
            ]
            .map(String::from),
        )
    }

    #[test]
    fn relative_resolution_like_typescript() {
        let f = files();
        let r = |spec: &str| resolve(&f, "src/app/main.ts", spec, None, false);
        assert_eq!(r("../a").unwrap().file, "src/a.ts");
        assert_eq!(r("../a").unwrap().ext, ExtStyle::Omitted);
        assert_eq!(r("../a.js").unwrap().file, "src/a.ts");
        assert_eq!(r("../a.js").unwrap().ext, ExtStyle::Output);
        assert_eq!(r("../b.js").unwrap().file, "src/b.tsx");
        assert_eq!(r("../lib").unwrap().file, "src/lib/index.ts");
        assert!(r("../lib").unwrap().index);
        assert_eq!(r("../lib/").unwrap().file, "src/lib/index.ts");
        assert_eq!(r("../lib/util").unwrap().file, "src/lib/util.js");
        assert_eq!(r("../lib/util.js").unwrap().ext, ExtStyle::Exact);
        assert_eq!(r("../types").unwrap().file, "src/types.d.ts");
        assert_eq!(r("../data.json").unwrap().file, "src/data.json");
        assert_eq!(r("../style.css").unwrap().file, "src/style.css");
        assert_eq!(r("../missing"), None);
        assert_eq!(r("react"), None);
        assert_eq!(
            resolve(&f, "src/lib/util.js", ".", None, false)
                .unwrap()
                .file,
            "src/lib/index.ts"
        );
    }

    #[test]
    fn specifiers_keep_their_style() {
        let f = files();
        let res = resolve(&f, "src/app/main.ts", "../a.js", None, false).unwrap();
        assert_eq!(
            relative_specifier("src/x/y/z.ts", "src/q/a.ts", &res, "../a.js"),
            "../../q/a.js"
        );
        let res = resolve(&f, "src/app/main.ts", "../lib", None, false).unwrap();
        assert_eq!(
            relative_specifier("src/main.ts", "src/core/index.ts", &res, "../lib"),
            "./core"
        );
        assert_eq!(
            relative_specifier("src/main.ts", "src/core/lib.ts", &res, "../lib"),
            "./core/lib"
        );
        assert_eq!(
            relative_specifier("src/core/x.ts", "src/core/index.ts", &res, "../lib"),
            "."
        );
        let res = resolve(&f, "src/app/main.ts", "../data.json", None, false).unwrap();
        assert_eq!(
            relative_specifier("src/app/main.ts", "data/data.json", &res, "../data.json"),
            "../../data/data.json"
        );
    }

    #[test]
    fn paths_and_base_url() {
        let f = files();
        let config = Config {
            file: "tsconfig.json".into(),
            base_url: Some("src".into()),
            paths: vec![
                ("@lib/*".into(), vec!["src/lib/*".into()]),
                ("@app".into(), vec!["src/app/main".into()]),
            ],
            packages: vec![("@acme/ui/*".into(), vec!["src/lib/*.js".into()])],
        };
        let r = |spec: &str| resolve(&f, "src/app/main.ts", spec, Some(&config), false);
        let lib = r("@lib/util").unwrap();
        assert_eq!(lib.file, "src/lib/util.js");
        assert_eq!(
            mapped_specifier("src/lib/deep/util.js", &lib).as_deref(),
            Some("@lib/deep/util")
        );
        assert_eq!(mapped_specifier("src/other/util.js", &lib), None);
        assert_eq!(r("@app").unwrap().file, "src/app/main.ts");
        let base = r("lib/util").unwrap();
        assert_eq!(base.via, Via::BaseUrl("src".into()));
        assert_eq!(
            mapped_specifier("src/x/util.js", &base).as_deref(),
            Some("x/util")
        );
        // A workspace package's exports, after paths and baseUrl.
        let pkg = r("@acme/ui/util").unwrap();
        assert_eq!(pkg.file, "src/lib/util.js");
        assert_eq!(
            mapped_specifier("src/lib/tools.js", &pkg).as_deref(),
            Some("@acme/ui/tools")
        );
    }
}
