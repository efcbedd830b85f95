//! What renaming an exported symbol changes in the other files of a workspace, found with
//! the import graph: the files that import the declaring module (by name, through an alias,
//! a namespace, or a re-export, and transitively through the modules that re-export it,
//! `export * from` barrels too), each renamed by `filekit_semantic::ts`'s
//! `rename_in_importer` on the text the graph parsed (tied to its `content_hash`).
//!
//! Only files that can change are parsed again: a file that does not contain the old name
//! and re-exports nothing with `export *` is never looked at, and a specifier is resolved
//! with the graph's resolver (relative paths, `paths`, `baseUrl`, workspace packages), the
//! one every move uses.

use crate::graph::{Graph, Parsed};
use crate::paths::dir_of;
use crate::resolve::resolve;
use filekit_core::{ErrorCode, FkError};
use filekit_semantic::Lang;
use filekit_semantic::imports::RefKind;
use filekit_semantic::ops::Splice;
use filekit_semantic::ts::rename_in_importer;
use memchr::memmem;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The file a TS/JS module specifier written in `importer` names, if it is a workspace file.
pub fn resolve_specifier(graph: &Graph, importer: &str, spec: &str) -> Option<String> {
    resolve(
        &graph.files,
        importer,
        spec,
        graph.configs.for_dir(dir_of(importer)),
        false,
    )
    .map(|r| r.file)
}

/// One file a rename changes: the text parsed (and its hash) and the splices on it.
#[derive(Debug)]
pub struct Change {
    pub parsed: Arc<Parsed>,
    pub splices: Vec<Splice>,
}

/// An importer renamed: its index among the candidates, its splices, whether it re-exports.
type Renamed = (usize, Vec<Splice>, bool);

fn is_ts(path: &str) -> Option<Lang> {
    Lang::of_path(path)
        .ok()
        .filter(|l| matches!(l, Lang::TypeScript | Lang::Tsx | Lang::JavaScript))
}

/// The renames of `old` to `new` in the files that import it from `origin` (the declaring
/// file, whose own rename the caller makes), directly or through re-exports. A new name
/// already declared where an importer binds the old one is a `CONFLICT` naming the file.
pub fn rename_in_importers(
    graph: &Graph,
    origin: &str,
    old: &str,
    new: &str,
) -> Result<BTreeMap<String, Change>, FkError> {
    let finder = memmem::Finder::new(old.as_bytes());
    // The files that may change or pass the name on, with the files their import and export
    // declarations name: only those that contain the name, or re-export a whole module.
    let candidates: Vec<(&String, &Arc<Parsed>, Vec<String>)> = graph
        .code
        .par_iter()
        .filter(|(f, _)| f.as_str() != origin && is_ts(f).is_some())
        .filter_map(|(f, p)| {
            let star = p
                .refs
                .iter()
                .any(|r| r.kind == RefKind::Export && r.names.iter().any(|n| n == "*"));
            if !star && finder.find(p.text.as_bytes()).is_none() {
                return None;
            }
            let targets: Vec<String> = p
                .refs
                .iter()
                .filter(|r| matches!(r.kind, RefKind::Import | RefKind::Export))
                .filter_map(|r| resolve_specifier(graph, f, &r.specifier))
                .collect();
            (!targets.is_empty()).then_some((f, p, targets))
        })
        .collect();
    let mut importers_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (_, _, targets)) in candidates.iter().enumerate() {
        for t in targets {
            importers_of.entry(t.as_str()).or_default().push(i);
        }
    }

    let mut out: BTreeMap<String, Change> = BTreeMap::new();
    let mut done: HashSet<String> = HashSet::from([origin.to_string()]);
    let mut level: HashSet<String> = HashSet::from([origin.to_string()]);
    while !level.is_empty() {
        let mut files: Vec<usize> = level
            .iter()
            .flat_map(|o| importers_of.get(o.as_str()).into_iter().flatten().copied())
            .collect();
        files.sort_unstable();
        files.dedup();
        let results: Vec<Result<Option<Renamed>, FkError>> = files
            .par_iter()
            .map(|&i| {
                let (f, p, targets) = &candidates[i];
                let lang = is_ts(f).expect("filtered");
                let from_level: HashSet<&str> = targets
                    .iter()
                    .map(String::as_str)
                    .filter(|t| level.contains(*t))
                    .collect();
                let resolves = |spec: &str| {
                    resolve_specifier(graph, f, spec)
                        .is_some_and(|t| from_level.contains(t.as_str()))
                };
                match rename_in_importer(lang, &p.text, &resolves, old, new) {
                    Ok(r) => Ok(Some((i, r.splices, r.re_exports))),
                    Err(e) if e.code == ErrorCode::Conflict => Err(FkError {
                        message: format!("{f}: {}", e.message),
                        ..e
                    }),
                    Err(_) => Ok(None),
                }
            })
            .collect();
        let mut next = HashSet::new();
        for r in results {
            let Some((i, splices, re_exports)) = r? else {
                continue;
            };
            let (f, p, _) = &candidates[i];
            if re_exports && done.insert((*f).clone()) {
                next.insert((*f).clone());
            }
            if splices.is_empty() {
                continue;
            }
            let entry = out.entry((*f).clone()).or_insert_with(|| Change {
                parsed: Arc::clone(p),
                splices: vec![],
            });
            let have: HashSet<usize> = entry.splices.iter().map(|s| s.start).collect();
            entry
                .splices
                .extend(splices.into_iter().filter(|s| !have.contains(&s.start)));
            entry.splices.sort_by_key(|s| s.start);
        }
        level = next;
    }
    Ok(out)
}
