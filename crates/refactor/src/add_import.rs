//! add_import without a language server: the modules that export a name a file lacks, found
//! on the workspace's import graph, and the import of it from the one chosen.
//!
//! TS/TSX/JS: the workspace's modules that declare the name as a named export (or as their
//! default export's name: imported as `import Name from`, the default export being the
//! module's declaration of that name, as TypeScript's own auto-import does), the modules that
//! re-export it, and the packages the nearest package.json depends on whose type entry
//! (`exports` "types" condition, `types`/`typings`, `index.d.ts`, `@types/<pkg>`) exports it,
//! read through the workspace sandbox (`node_modules/<pkg>/package.json` and the `.d.ts`
//! files it leads to, never a walk of `node_modules`). Re-exporters (`export { a } from`, and
//! barrels the file imports that reach it by `export *`) are candidates only when no module
//! declares it: they offer the same declaration again. Packages export named declarations
//! only (a package's default export has no name to match). Imports of a module the file
//! imports already are merged into that import. The specifier is written like the file's other
//! imports: its `paths` aliases when it uses them, else relative with their extension style
//! (`./x`, `./x.js`), and `.js` for an ESM package's TypeScript with no relative import to
//! copy.
//!
//! Python: the workspace's modules that define the name at top level (or, when none does,
//! that re-export it in `__all__`), named relative (`.x`) or absolute (`pkg.x`) as the file's
//! imports are.
//!
//! One candidate is applied; several are an `AMBIGUOUS` refusal listing them (`details.
//! candidates`: module, file, export) for the caller to pass one as `module`.

use crate::graph::{self, Graph};
use crate::paths::{dir_of, join, module_ext, normalize};
use crate::python;
use crate::resolve::{self, ExtStyle, FileSet, Resolved, Via};
use crate::tsconfig::Config;
use filekit_core::splices::Splices;
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::imports::{RefKind, module_refs};
use filekit_semantic::python as py;
use filekit_semantic::ts::Target;
use filekit_semantic::ts::add_import::{self as ts, ImportSpec};
use filekit_semantic::ts::exports::exports;
use serde_json::{Value, json};
use std::collections::HashSet;

/// Packages of one package.json looked into, at most.
const MAX_PACKAGES: usize = 256;
/// Declaration files read for one package (its entry and the `export *` it follows).
const MAX_PACKAGE_FILES: usize = 32;
/// Declaration files read for one request, over all packages: each is bounded in size by the
/// workspace's reads, this bounds their number.
const MAX_DECLARATION_READS: usize = 512;

/// How a module offers the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// `export function Name`, `export { Name }`.
    Named,
    /// `export default class Name`: imported as `import Name from`.
    Default,
    /// `export { Name } from`, `export * from` (a barrel).
    ReExport,
    /// A package's type entry exports it.
    Package,
    /// Python: defined at the module's top level.
    Defined,
    /// Python: imported and re-exported (`__all__`, `import X as X`).
    Listed,
    /// Python: a module of a package (`from . import name`).
    Submodule,
}

impl Export {
    pub fn as_str(self) -> &'static str {
        match self {
            Export::Named => "named export",
            Export::Default => "default export",
            Export::ReExport => "re-export",
            Export::Package => "package export",
            Export::Defined => "top-level definition",
            Export::Listed => "re-export",
            Export::Submodule => "submodule",
        }
    }
}

/// A module that offers the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The specifier as the import would write it.
    pub module: String,
    /// The file behind it (workspace-relative; a package's type entry).
    pub file: String,
    pub export: Export,
}

/// The import, ready to write.
#[derive(Debug)]
pub struct Added {
    pub name: String,
    pub chosen: Candidate,
    pub splices: Splices,
}

/// Imports the name `target` points at into `importer` (as the graph names it; `text` its
/// content as read) from its one candidate, or from `module` when the caller chose.
pub fn add_import(
    ws: &Workspace,
    importer: &str,
    text: &str,
    target: &Target,
    module: Option<&str>,
) -> Result<Added, FkError> {
    let lang = Lang::of_path(importer)?;
    let is_py = python::is_python(importer);
    let (name, type_only) = if is_py {
        let t = match target {
            Target::Name(n) => py::Target::Name(n.clone()),
            Target::At(o) => py::Target::At(*o),
        };
        (py::missing_name(text, &t)?, false)
    } else {
        let m = ts::missing_name(lang, text, target)?;
        (m.name, m.type_only)
    };
    let graph = graph::build(ws)?;
    let (candidates, searched) = if is_py {
        python_candidates(&graph, importer, text, &name)
    } else {
        ts_candidates(ws, &graph, importer, lang, text, &name)
    };
    if candidates.is_empty() {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("no module exports `{name}`: searched {searched}"),
        )
        .with_hint("check the name's spelling, or write the import yourself"));
    }
    let chosen = match module {
        Some(m) => {
            let resolves_to = |file: &str| {
                if is_py {
                    python::resolve(&*graph.files, importer, m).is_some_and(|(f, _)| f == file)
                } else {
                    let config = graph.configs.for_dir(dir_of(importer));
                    resolve::resolve(&*graph.files, importer, m, config, false)
                        .is_some_and(|r| r.file == file)
                }
            };
            let found = candidates
                .iter()
                .find(|c| c.module == m)
                .or_else(|| candidates.iter().find(|c| resolves_to(&c.file)));
            match found {
                // Another spelling of a candidate's file is written in the file's style.
                Some(c) => c.clone(),
                None => {
                    return Err(FkError::invalid(format!(
                        "module '{m}' is not among the modules that export `{name}`: {}",
                        listed(&candidates)
                    ))
                    .with_hint("pass one of these as `module`")
                    .with_details(json!({"candidates": described(&candidates)})));
                }
            }
        }
        None if candidates.len() == 1 => candidates[0].clone(),
        None => {
            return Err(FkError::new(
                ErrorCode::Ambiguous,
                format!(
                    "{} modules export `{name}`: {}; nothing was written",
                    candidates.len(),
                    listed(&candidates)
                ),
            )
            .with_hint("choose one and pass its module as `module`")
            .with_details(json!({"candidates": described(&candidates)})));
        }
    };
    let splices = if is_py {
        py::import_edit(text, &name, &chosen.module)?
    } else {
        ts::import_edit(
            lang,
            text,
            &ImportSpec {
                name: &name,
                module: &chosen.module,
                default: chosen.export == Export::Default,
                type_only,
            },
        )?
    };
    Ok(Added {
        name,
        chosen,
        splices,
    })
}

fn listed(c: &[Candidate]) -> String {
    c.iter()
        .map(|c| format!("'{}' ({}, {})", c.module, c.file, c.export.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn described(c: &[Candidate]) -> Value {
    c.iter()
        .map(|c| json!({"module": c.module, "file": c.file, "export": c.export.as_str()}))
        .collect()
}

fn read_text(ws: &Workspace, path: &str) -> Option<String> {
    let p = ws.resolve(path).ok()?;
    String::from_utf8(ws.read(&p).ok()?.bytes).ok()
}

fn read_json(ws: &Workspace, path: &str) -> Option<Value> {
    serde_json::from_str(&read_text(ws, path)?).ok()
}

fn is_script(f: &str) -> bool {
    module_ext(crate::paths::name_of(f)).is_some()
}

// ---------------------------------------------------------------------------------------------
// TS/TSX/JS

fn ts_candidates(
    ws: &Workspace,
    graph: &Graph,
    importer: &str,
    lang: Lang,
    text: &str,
    name: &str,
) -> (Vec<Candidate>, String) {
    let config = graph.configs.for_dir(dir_of(importer));
    let files = &*graph.files;
    // The modules the file imports (or re-exports) from now, as written and as resolved.
    let imported: Vec<(String, Resolved)> = module_refs(lang, text)
        .into_iter()
        .filter(|r| matches!(r.kind, RefKind::Import | RefKind::Export))
        .filter_map(|r| {
            resolve::resolve(files, importer, &r.specifier, config, false)
                .map(|res| (r.specifier, res))
        })
        .collect();
    let mut code: Vec<&String> = graph
        .code
        .keys()
        .filter(|f| *f != importer && is_script(f))
        .collect();
    code.sort();
    let mut declaring = Vec::new();
    let mut re_exporting = Vec::new();
    for f in &code {
        let parsed = &graph.code[*f];
        if !parsed.text.contains(name) {
            continue;
        }
        let Ok(flang) = Lang::of_path(f) else {
            continue;
        };
        let Ok(ex) = exports(flang, &parsed.text) else {
            continue;
        };
        if let Some(e) = ex.get(name) {
            if e.re_export {
                re_exporting.push(((*f).clone(), Export::ReExport));
            } else {
                declaring.push(((*f).clone(), Export::Named));
            }
        } else if ex.default_named(name).is_some() {
            declaring.push(((*f).clone(), Export::Default));
        }
    }
    // A barrel the file imports already that reaches the name through `export *`.
    let mut through_star = Vec::new();
    for (_, res) in &imported {
        let known = declaring
            .iter()
            .chain(&re_exporting)
            .any(|(f, _)| *f == res.file);
        if !known && star_reaches(graph, &res.file, name, &mut HashSet::new()) {
            through_star.push((res.file.clone(), Export::ReExport));
        }
    }
    let (packages, package_names) = package_candidates(ws, graph, importer, name);
    let searched = format!(
        "{} TS/JS modules of the workspace and the type entries of {} package{} the nearest package.json depends on{}",
        code.len(),
        package_names.len(),
        if package_names.len() == 1 { "" } else { "s" },
        if package_names.is_empty() {
            String::new()
        } else {
            format!(
                " ({}{})",
                package_names
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if package_names.len() > 8 { ", ..." } else { "" }
            )
        }
    );
    let spec_of = |file: &str| ts_specifier(ws, graph, importer, config, &imported, file);
    let to_candidates = |list: &[(String, Export)]| -> Vec<Candidate> {
        list.iter()
            .map(|(file, export)| Candidate {
                module: spec_of(file),
                file: file.clone(),
                export: *export,
            })
            .collect()
    };
    // Re-exporters and barrels offer the same declaration again: only when nothing declares it.
    let mut chosen = to_candidates(&declaring);
    chosen.extend(packages);
    if chosen.is_empty() {
        chosen = to_candidates(&re_exporting);
        chosen.extend(to_candidates(&through_star));
    }
    let mut seen = HashSet::new();
    chosen.retain(|c| seen.insert(c.module.clone()));
    (chosen, searched)
}

/// Whether `file`'s exports reach `name`, directly or through its `export *` chains.
fn star_reaches(graph: &Graph, file: &str, name: &str, seen: &mut HashSet<String>) -> bool {
    if seen.len() > MAX_PACKAGE_FILES || !seen.insert(file.to_string()) {
        return false;
    }
    let Some(parsed) = graph.code.get(file) else {
        return false;
    };
    let Ok(lang) = Lang::of_path(file) else {
        return false;
    };
    let Ok(ex) = exports(lang, &parsed.text) else {
        return false;
    };
    if ex.get(name).is_some() {
        return true;
    }
    let config = graph.configs.for_dir(dir_of(file));
    ex.star_from.iter().any(|s| {
        resolve::resolve(&*graph.files, file, s, config, false)
            .is_some_and(|r| star_reaches(graph, &r.file, name, seen))
    })
}

/// The specifier of `target` for `importer`: the one it imports the module by already, else
/// through the `paths` aliases it uses, else relative in the style of its relative imports.
fn ts_specifier(
    ws: &Workspace,
    graph: &Graph,
    importer: &str,
    config: Option<&Config>,
    imported: &[(String, Resolved)],
    target: &str,
) -> String {
    if let Some((spec, _)) = imported.iter().find(|(_, r)| r.file == target) {
        return spec.clone();
    }
    let files = &*graph.files;
    let is_module = |r: &Resolved| module_ext(crate::paths::name_of(&r.file)).is_some();
    if let Some(config) = config
        && let Some((_, sample)) = imported
            .iter()
            .find(|(_, r)| matches!(r.via, Via::Paths(..)) && is_module(r))
    {
        for (pattern, subs) in &config.paths {
            for sub in subs {
                let res = Resolved {
                    file: target.to_string(),
                    ext: sample.ext,
                    index: true,
                    via: Via::Paths(pattern.clone(), sub.clone()),
                };
                if let Some(s) = resolve::mapped_specifier(target, &res)
                    && resolve::resolve(files, importer, &s, Some(config), false)
                        .is_some_and(|r| r.file == target)
                {
                    return s;
                }
            }
        }
    }
    let sample = imported
        .iter()
        .find(|(s, r)| resolve::is_relative(s) && r.via == Via::Relative && is_module(r));
    let ext = match sample {
        Some((_, r)) => r.ext,
        None if is_esm(ws, graph, importer) => ExtStyle::Output,
        None => ExtStyle::Omitted,
    };
    let res = Resolved {
        file: target.to_string(),
        ext,
        index: ext == ExtStyle::Omitted,
        via: Via::Relative,
    };
    resolve::relative_specifier(importer, target, &res, "")
}

/// An ES module whose relative imports name their output file (`.mts`, or a `.ts` of a
/// package with `"type": "module"`): Node's ESM resolution wants the extension.
fn is_esm(ws: &Workspace, graph: &Graph, importer: &str) -> bool {
    if importer.ends_with(".mts") {
        return true;
    }
    if !(importer.ends_with(".ts") || importer.ends_with(".tsx")) {
        return false;
    }
    let mut d = dir_of(importer);
    loop {
        let p = join(d, "package.json");
        if graph.files.has_file(&p) {
            return read_json(ws, &p)
                .is_some_and(|v| v.get("type").and_then(Value::as_str) == Some("module"));
        }
        if d.is_empty() {
            return false;
        }
        d = dir_of(d);
    }
}

/// The packages the nearest package.json of `importer` depends on whose type entry exports
/// `name`, and the names of the packages looked into.
fn package_candidates(
    ws: &Workspace,
    graph: &Graph,
    importer: &str,
    name: &str,
) -> (Vec<Candidate>, Vec<String>) {
    let mut d = dir_of(importer).to_string();
    let manifest = loop {
        let p = join(&d, "package.json");
        if graph.files.has_file(&p) {
            break Some(p);
        }
        if d.is_empty() {
            break None;
        }
        d = dir_of(&d).to_string();
    };
    let Some(v) = manifest.and_then(|m| read_json(ws, &m)) else {
        return (vec![], vec![]);
    };
    let mut deps: Vec<String> = Vec::new();
    for key in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(map) = v.get(key).and_then(Value::as_object) {
            for dep in map.keys() {
                if !deps.contains(dep) && valid_package_name(dep) {
                    deps.push(dep.clone());
                }
            }
        }
    }
    deps.truncate(MAX_PACKAGES);
    let mut out = Vec::new();
    let mut reads = 0;
    for dep in &deps {
        if reads >= MAX_DECLARATION_READS {
            break;
        }
        let Some(entry) = type_entry(ws, &d, dep) else {
            continue;
        };
        let mut seen = HashSet::new();
        let found = declaration_exports(ws, &entry, name, &mut seen);
        reads += seen.len();
        if found {
            out.push(Candidate {
                module: dep.clone(),
                file: entry,
                export: Export::Package,
            });
        }
    }
    (out, deps)
}

/// A package name that is a name, not a path (`a`, `@scope/a`): nothing in package.json may
/// make this read outside `node_modules/<name>`.
fn valid_package_name(n: &str) -> bool {
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    match n.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(a, b)| ok(a) && ok(b)),
        None => ok(n),
    }
}

/// The declaration file a package's types start from, found from `dir` (the package.json's)
/// up to the root: its own types, else `@types/<name>`.
fn type_entry(ws: &Workspace, dir: &str, dep: &str) -> Option<String> {
    let types_pkg = match dep.strip_prefix('@') {
        Some(scoped) => format!("@types/{}", scoped.replacen('/', "__", 1)),
        None => format!("@types/{dep}"),
    };
    let mut base = dir.to_string();
    loop {
        for pkg in [dep, types_pkg.as_str()] {
            let pdir = join(&base, &format!("node_modules/{pkg}"));
            let Some(v) = read_json(ws, &join(&pdir, "package.json")) else {
                continue;
            };
            let named = types_of(&v)
                .and_then(|t| normalize(&join(&pdir, &t)))
                .filter(|t| t.starts_with(&format!("{pdir}/")));
            for candidate in named
                .into_iter()
                .flat_map(|t| declaration_files(&t))
                .chain([join(&pdir, "index.d.ts")])
            {
                if ws.resolve(&candidate).is_ok_and(|p| ws.read(&p).is_ok()) {
                    return Some(candidate);
                }
            }
        }
        if base.is_empty() {
            return None;
        }
        base = dir_of(&base).to_string();
    }
}

/// `exports["."]`'s types condition, `types`, `typings`.
fn types_of(v: &Value) -> Option<String> {
    fn condition(v: &Value) -> Option<String> {
        match v {
            Value::String(s) if s.ends_with(".d.ts") => Some(s.clone()),
            Value::Object(map) => map
                .get("types")
                .and_then(condition_any)
                .or_else(|| map.values().find_map(condition)),
            Value::Array(items) => items.iter().find_map(condition),
            _ => None,
        }
    }
    fn condition_any(v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            other => condition(other),
        }
    }
    let exported = v.get("exports").and_then(|e| match e {
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => {
            map.get(".").and_then(condition)
        }
        other => condition(other),
    });
    exported.or_else(|| {
        ["types", "typings"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str).map(String::from))
    })
}

/// The declaration files a types path may name: itself, `.js` as `.d.ts`, with `.d.ts`
/// added, its `index.d.ts`.
fn declaration_files(t: &str) -> Vec<String> {
    let mut v = vec![];
    if t.ends_with(".d.ts") || t.ends_with(".d.mts") || t.ends_with(".d.cts") {
        v.push(t.to_string());
    } else if let Some(stem) = t.strip_suffix(".js") {
        v.push(format!("{stem}.d.ts"));
    } else if let Some(stem) = t.strip_suffix(".mjs") {
        v.push(format!("{stem}.d.mts"));
    } else {
        v.push(format!("{t}.d.ts"));
        v.push(join(t, "index.d.ts"));
    }
    v
}

/// Whether the declaration file `file` exports `name`, directly, by a named re-export, or
/// through the `export *` of the package's own files.
fn declaration_exports(ws: &Workspace, file: &str, name: &str, seen: &mut HashSet<String>) -> bool {
    if seen.len() >= MAX_PACKAGE_FILES || !seen.insert(file.to_string()) {
        return false;
    }
    let Some(text) = read_text(ws, file) else {
        return false;
    };
    let Ok(ex) = exports(Lang::TypeScript, &text) else {
        return false;
    };
    if ex.get(name).is_some() {
        return true;
    }
    let pkg_root = package_root(file);
    ex.star_from.iter().any(|s| {
        if !resolve::is_relative(s) {
            return false;
        }
        let Some(base) = normalize(&join(dir_of(file), s)) else {
            return false;
        };
        if !base.starts_with(&pkg_root) {
            return false;
        }
        declaration_files(&base)
            .into_iter()
            .find(|f| ws.resolve(f).is_ok_and(|p| ws.read(&p).is_ok()))
            .is_some_and(|f| declaration_exports(ws, &f, name, seen))
    })
}

/// `…/node_modules/<pkg>/` (or `@scope/pkg`) of a file inside a package.
fn package_root(file: &str) -> String {
    let Some(i) = file.rfind("node_modules/") else {
        return String::new();
    };
    let rest = &file[i + "node_modules/".len()..];
    let parts = if rest.starts_with('@') { 2 } else { 1 };
    let pkg: Vec<&str> = rest.split('/').take(parts).collect();
    format!("{}{}/", &file[..i + "node_modules/".len()], pkg.join("/"))
}

// ---------------------------------------------------------------------------------------------
// Python

fn python_candidates(
    graph: &Graph,
    importer: &str,
    text: &str,
    name: &str,
) -> (Vec<Candidate>, String) {
    let files = &*graph.files;
    let refs = module_refs(Lang::Python, text);
    // `from X import ...` of the file, resolved.
    let imported: Vec<(String, String, python::PyVia)> = refs
        .iter()
        .filter(|r| r.kind == RefKind::PyFrom)
        .filter_map(|r| {
            python::resolve(files, importer, &r.specifier)
                .map(|(f, via)| (r.specifier.clone(), f, via))
        })
        .collect();
    let mut modules: Vec<&String> = graph
        .code
        .keys()
        .filter(|f| *f != importer && python::is_python(f))
        .collect();
    modules.sort();
    let mut defining = Vec::new();
    let mut listing = Vec::new();
    for f in &modules {
        let t = &graph.code[*f].text;
        if !t.contains(name) {
            continue;
        }
        match py::offers(t, name) {
            Some(py::Offered::Defined) => defining.push(((*f).clone(), Export::Defined)),
            Some(py::Offered::Listed) => listing.push(((*f).clone(), Export::Listed)),
            None => {}
        }
    }
    let searched = format!(
        "{} Python modules of the workspace (top-level definitions and `__all__`)",
        modules.len()
    );
    let relative_style = imported.iter().any(|(s, _, _)| s.starts_with('.'));
    let absolute_via = imported
        .iter()
        .find(|(s, _, _)| !s.starts_with('.'))
        .map(|(_, _, v)| v.clone());
    let in_package = files.has_file(&join(dir_of(importer), "__init__.py"));
    let spec_of = |target: &str| -> Option<String> {
        if let Some((s, _, _)) = imported.iter().find(|(_, f, _)| f == target) {
            return Some(s.clone());
        }
        let relative = python::PyVia {
            dots: 1,
            root: String::new(),
        };
        let absolute = absolute_via.clone().unwrap_or(python::PyVia {
            dots: 0,
            root: if target.starts_with("src/") {
                "src".into()
            } else {
                String::new()
            },
        });
        let first = if relative_style || (absolute_via.is_none() && in_package) {
            [&relative, &absolute]
        } else {
            [&absolute, &relative]
        };
        first
            .into_iter()
            .find_map(|via| python::specifier(importer, target, via))
            .filter(|s| python::resolve(files, importer, s).is_some_and(|(f, _)| f == target))
    };
    // `from package import name` of a module `package/name.py` (or `package/name/`).
    for f in &modules {
        let (package, stem) = match f.strip_suffix("/__init__.py") {
            Some(d) => (dir_of(d), crate::paths::name_of(d)),
            None => (dir_of(f), crate::paths::name_of(f).trim_end_matches(".py")),
        };
        let init = join(package, "__init__.py");
        if stem == name && !package.is_empty() && files.has_file(&init) {
            defining.push(((*f).clone(), Export::Submodule));
        }
    }
    let to_candidates = |list: &[(String, Export)]| -> Vec<Candidate> {
        list.iter()
            .filter_map(|(file, export)| {
                let from = if *export == Export::Submodule {
                    let d = file.strip_suffix("/__init__.py").unwrap_or(file);
                    join(dir_of(d), "__init__.py")
                } else {
                    file.clone()
                };
                spec_of(&from).map(|module| Candidate {
                    module,
                    file: file.clone(),
                    export: *export,
                })
            })
            .collect()
    };
    // A module that re-exports in `__all__` offers the same definition again.
    let chosen = if defining.is_empty() {
        to_candidates(&listing)
    } else {
        to_candidates(&defining)
    };
    (chosen, searched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_are_names_not_paths() {
        for ok in ["rxjs", "@scope/pkg", "lodash.merge", "a-b_c"] {
            assert!(valid_package_name(ok), "{ok}");
        }
        for bad in [
            "../x",
            "a/../b",
            "@scope/../x",
            "@scope",
            ".bin",
            "",
            "a/b",
            "/etc",
        ] {
            assert!(!valid_package_name(bad), "{bad}");
        }
    }

    #[test]
    fn where_a_packages_types_start() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(
            types_of(&v(
                r#"{"exports": {".": {"import": {"types": "./esm/index.d.ts", "default": "./esm/index.js"}}}, "types": "./old.d.ts"}"#
            )),
            Some("./esm/index.d.ts".into())
        );
        assert_eq!(
            types_of(&v(r#"{"typings": "lib/main.d.ts"}"#)),
            Some("lib/main.d.ts".into())
        );
        assert_eq!(types_of(&v(r#"{"main": "index.js"}"#)), None);
        assert_eq!(declaration_files("p/dist/index.js"), ["p/dist/index.d.ts"]);
        assert_eq!(
            declaration_files("p/types"),
            ["p/types.d.ts", "p/types/index.d.ts"]
        );
        assert_eq!(
            package_root("node_modules/@s/p/dist/x.d.ts"),
            "node_modules/@s/p/"
        );
        assert_eq!(package_root("a/node_modules/p/x.d.ts"), "a/node_modules/p/");
    }
}
