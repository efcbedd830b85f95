//! What a delete takes away from barrels: a module that re-exported a deleted file
//! (`export * from './deleted'`, `export { a } from './deleted'`) loses those names when the
//! re-export is removed, and every file that imports them from the barrel (by name, through
//! `ns.a`, or through a further `export *`) is left with a use that no longer resolves. Those
//! uses are listed, at the places a compiler reports them (the imported name, the `ns.a`).

use crate::graph::Graph;
use crate::import_rewrites::{Leftover, resolve_any};
use filekit_semantic::Lang;
use filekit_semantic::imports::RefKind;
use filekit_semantic::ts::exports;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// A use of a name that came from a deleted file through a barrel.
#[derive(Debug, Clone, Serialize)]
pub struct BarrelUse {
    pub file: String,
    /// 1-based line of the use in the file (which the request does not change).
    pub line: usize,
    pub name: String,
    /// The specifier of the barrel in the file.
    pub specifier: String,
    /// The barrel the name no longer comes from.
    pub barrel: String,
}

/// The names `file` exports, with those of its `export *` modules (followed in the graph).
fn exported(graph: &Graph, file: &str, seen: &mut HashSet<String>) -> HashSet<String> {
    let mut out = HashSet::new();
    if !seen.insert(file.to_string()) {
        return out;
    }
    let Some(parsed) = graph.code.get(file) else {
        return out;
    };
    let Ok(lang) = Lang::of_path(file) else {
        return out;
    };
    let Ok(ex) = exports::exports(lang, &parsed.text) else {
        return out;
    };
    out.extend(
        ex.names
            .iter()
            .filter(|e| e.name != "default")
            .map(|e| e.name.clone()),
    );
    for r in &parsed.refs {
        if r.kind == RefKind::Export
            && r.names == ["*"]
            && let Some(t) = resolve_any(&graph.files, &graph.configs, file, r)
        {
            let inner = exported(graph, t.file(), seen);
            out.extend(inner);
        }
    }
    out
}

/// The uses left behind through barrels whose re-exports of `deleted` files the request
/// removes (`leftovers` of [`crate::import_rewrites::plan_delete`] with `remove`).
pub fn uses_through(graph: &Graph, deleted: &[String], leftovers: &[Leftover]) -> Vec<BarrelUse> {
    let deleted: HashSet<&String> = deleted.iter().collect();
    // The names each barrel loses.
    let mut lost: BTreeMap<String, (HashSet<String>, HashSet<String>)> = BTreeMap::new();
    for l in leftovers
        .iter()
        .filter(|l| l.removed && l.kind == RefKind::Export)
    {
        let entry = lost.entry(l.file.clone()).or_default();
        for n in &l.names {
            if n == "*" {
                entry
                    .1
                    .extend(exported(graph, &l.target, &mut HashSet::new()));
            } else {
                entry.0.insert(n.clone());
            }
        }
    }
    let mut queue: Vec<(String, HashSet<String>)> = Vec::new();
    for (barrel, (named, star)) in lost {
        // A name the barrel still exports otherwise is not lost.
        let still: HashSet<String> = graph
            .code
            .get(&barrel)
            .and_then(|p| Some((Lang::of_path(&barrel).ok()?, p)))
            .and_then(|(lang, p)| exports::exports(lang, &p.text).ok())
            .map(|ex| ex.names.into_iter().map(|e| e.name).collect())
            .unwrap_or_default();
        let mut names = named.clone();
        names.extend(
            star.into_iter()
                .filter(|n| !still.contains(n) || named.contains(n)),
        );
        if !names.is_empty() {
            queue.push((barrel, names));
        }
    }
    let mut files: Vec<&String> = graph.code.keys().collect();
    files.sort();
    let mut out = Vec::new();
    let mut done: HashSet<String> = HashSet::new();
    while let Some((barrel, names)) = queue.pop() {
        if !done.insert(barrel.clone()) {
            continue;
        }
        for f in &files {
            if **f == barrel || deleted.contains(f) {
                continue;
            }
            let parsed = &graph.code[*f];
            let passes_on = parsed
                .refs
                .iter()
                .any(|r| r.kind == RefKind::Export && r.names == ["*"]);
            if !passes_on && !names.iter().any(|n| parsed.text.contains(n.as_str())) {
                continue;
            }
            let refs: Vec<&filekit_semantic::imports::ModuleRef> = parsed
                .refs
                .iter()
                .filter(|r| matches!(r.kind, RefKind::Import | RefKind::Export))
                .filter(|r| {
                    resolve_any(&graph.files, &graph.configs, f, r)
                        .is_some_and(|t| t.file() == barrel)
                })
                .collect();
            if refs.is_empty() {
                continue;
            }
            let Ok(lang) = Lang::of_path(f) else {
                continue;
            };
            let resolves = |spec: &str| refs.iter().any(|r| r.specifier == spec);
            let Ok(th) = exports::through(lang, &parsed.text, &resolves, &names) else {
                continue;
            };
            for (name, at) in th.uses {
                let r = refs
                    .iter()
                    .find(|r| r.statement.contains(&at))
                    .unwrap_or(&refs[0]);
                out.push(BarrelUse {
                    file: (*f).clone(),
                    line: parsed.text[..at].matches('\n').count() + 1,
                    name,
                    specifier: r.specifier.clone(),
                    barrel: barrel.clone(),
                });
            }
            if th.star {
                queue.push(((*f).clone(), names.clone()));
            }
        }
    }
    out
}
