//! What moves, copies and deletes of files do to the imports of a workspace, as byte
//! splices ([`filekit_core::fsops::Rewrite`]) for the engine to commit together with the
//! operations themselves.

use crate::graph::{Graph, Parsed};
use crate::paths::{dir_of, join};
use crate::resolve::{
    FileSet, Files, Resolved, Via, mapped_specifier, relative_specifier, resolve,
};
use filekit_core::fsops::Rewrite;
use filekit_core::splices::Splice;
use filekit_semantic::imports::{ModuleRef, RefKind};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// One specifier changed (or to change).
#[derive(Debug, Clone, Serialize)]
pub struct SpecifierChange {
    pub old: String,
    pub new: String,
    /// 1-based line in the file as it is now.
    pub line: usize,
}

/// The specifiers changed in one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileChanges {
    /// The file as it is now (workspace-relative).
    pub file: String,
    /// Where it is after the request (differs when the file itself moves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    pub changes: Vec<SpecifierChange>,
}

/// The import updates of a request.
#[derive(Debug, Default)]
pub struct ImportRewrites {
    pub rewrites: Vec<Rewrite>,
    pub files: Vec<FileChanges>,
    /// References that could not be kept right, said plainly.
    pub warnings: Vec<String>,
}

/// The files after the request: `moves` maps old paths to new ones.
struct After<'a> {
    before: &'a Files,
    moves: &'a HashMap<String, String>,
    removed: &'a [String],
    copy: bool,
    added: HashMap<String, ()>,
}

impl FileSet for After<'_> {
    fn has_file(&self, path: &str) -> bool {
        if self.added.contains_key(path) {
            return true;
        }
        if !self.before.has_file(path) {
            return false;
        }
        let gone =
            (!self.copy && self.moves.contains_key(path)) || self.removed.iter().any(|r| r == path);
        !gone
    }
    fn has_dir(&self, path: &str) -> bool {
        // A directory exists if a file is under it (approximation good for resolution).
        self.before.has_dir(path)
            || self
                .added
                .keys()
                .any(|a| a.starts_with(path) && a.as_bytes().get(path.len()) == Some(&b'/'))
    }
}

/// The last path segments a relative specifier naming a moved file can end with: a quick
/// test that spares resolving the other references of files that do not move.
struct MovedNames<'a> {
    names: std::collections::HashSet<&'a str>,
}

impl<'a> MovedNames<'a> {
    fn new(moved: impl Iterator<Item = &'a String>) -> MovedNames<'a> {
        let mut names = std::collections::HashSet::new();
        for f in moved {
            let name = crate::paths::name_of(f);
            names.insert(name);
            if let Some(ext) = crate::paths::module_ext(name) {
                names.insert(&name[..name.len() - ext.len()]);
            }
            if let Some((stem, _)) = name.rsplit_once('.') {
                names.insert(stem);
                if stem == "index" {
                    // `./dir` names `dir/index.ts`.
                    names.insert(crate::paths::name_of(dir_of(f)));
                }
            }
        }
        MovedNames { names }
    }

    /// False only when `r` is relative and its last segment names no moved file.
    fn may_name(&self, r: &ModuleRef) -> bool {
        let spec = r.specifier.split(['?', '#']).next().unwrap_or(&r.specifier);
        let relative = crate::resolve::is_relative(spec)
            || (r.kind == RefKind::Reference && !spec.starts_with('/'));
        if !relative
            || matches!(
                r.kind,
                RefKind::PyFrom | RefKind::PyImport | RefKind::PyImportAs
            )
        {
            return true;
        }
        let last = crate::paths::name_of(spec);
        if last.is_empty() || last == "." || last == ".." {
            return true;
        }
        let stem = crate::paths::module_ext(last).map_or(last, |e| &last[..last.len() - e.len()]);
        self.names.contains(last) || self.names.contains(stem)
    }
}

/// A reference resolved: TS/JS or Python.
pub(crate) enum Target {
    Ts(Resolved),
    Py(String, crate::python::PyVia),
}

impl Target {
    pub(crate) fn file(&self) -> &str {
        match self {
            Target::Ts(r) => &r.file,
            Target::Py(f, _) => f,
        }
    }
}

pub(crate) fn resolve_any(
    files: &dyn FileSet,
    configs: &crate::tsconfig::Configs,
    file: &str,
    r: &ModuleRef,
) -> Option<Target> {
    match r.kind {
        RefKind::PyFrom | RefKind::PyImport | RefKind::PyImportAs => {
            crate::python::resolve(files, file, &r.specifier).map(|(f, v)| Target::Py(f, v))
        }
        _ => resolve(
            files,
            file,
            &r.specifier,
            configs.for_dir(dir_of(file)),
            r.kind == RefKind::Reference,
        )
        .map(Target::Ts),
    }
}

/// The import updates for moving (or, with `copy`, copying) files: `moves` maps every file
/// that moves (a directory's files one by one) to its new path, workspace-relative.
pub fn plan_moves(graph: &Graph, moves: &HashMap<String, String>, copy: bool) -> ImportRewrites {
    let after = After {
        before: &graph.files,
        moves,
        removed: &[],
        copy,
        added: moves.values().map(|v| (v.clone(), ())).collect(),
    };
    let map = |p: &str| moves.get(p).cloned().unwrap_or_else(|| p.to_string());
    let names = MovedNames::new(moves.keys());
    let mut files: Vec<(&String, &Arc<Parsed>)> = graph
        .code
        .iter()
        .filter(|(f, _)| !copy || moves.contains_key(*f))
        .collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    type PerFile = (Option<(Rewrite, FileChanges)>, Vec<String>);
    let results: Vec<PerFile> = files
        .par_iter()
        .map(|(file, parsed)| {
            let importer_moves = moves.contains_key(*file);
            let mut splices = Vec::new();
            let mut changes = Vec::new();
            let mut warnings = Vec::new();
            let new_importer = map(file);
            let lines = LineIndex::new(&parsed.text);
            for r in &parsed.refs {
                if !importer_moves && !names.may_name(r) {
                    continue;
                }
                let Some(t) = resolve_any(&graph.files, &graph.configs, file, r) else {
                    continue;
                };
                let target_moves = moves.contains_key(t.file());
                if !importer_moves && !target_moves {
                    continue;
                }
                // Within a copy, a file the copy does not include stays where it is.
                let new_target = if copy && !target_moves {
                    t.file().to_string()
                } else {
                    map(t.file())
                };
                let new_spec = match &t {
                    Target::Ts(res) => new_specifier(
                        &after,
                        &new_importer,
                        &new_target,
                        res,
                        r,
                        graph.configs.for_dir(dir_of(&new_importer)),
                        target_moves,
                    ),
                    // An absolute module name does not depend on where the importer is.
                    Target::Py(_, via) if via.dots == 0 && !target_moves => continue,
                    Target::Py(..) if r.kind == RefKind::PyImport => {
                        warnings.push(format!(
                            "{file}: 'import {}' binds the name of the module, so its uses would change too; it was left as it was (rewrite it, or use 'import ... as ...')",
                            r.specifier
                        ));
                        continue;
                    }
                    Target::Py(_, via) => crate::python::specifier(&new_importer, &new_target, via)
                        .filter(|s| {
                            crate::python::resolve(&after, &new_importer, s)
                                .is_some_and(|(f, _)| f == new_target)
                        }),
                };
                let Some(new_spec) = new_spec else {
                    warnings.push(format!(
                        "{file}: no specifier was found that resolves to {new_target} ('{}' left as it was)",
                        r.specifier
                    ));
                    continue;
                };
                if new_spec != r.specifier {
                    splices.push(Splice::new(r.span.start, r.span.end, new_spec.clone()));
                    changes.push(SpecifierChange {
                        old: r.specifier.clone(),
                        new: new_spec,
                        line: lines.line(r.span.start),
                    });
                }
            }
            let out = (!splices.is_empty()).then(|| {
                (
                    Rewrite {
                        path: (*file).clone(),
                        content_hash: parsed.hash.clone(),
                        splices,
                    },
                    FileChanges {
                        file: (*file).clone(),
                        moved_to: importer_moves.then(|| new_importer.clone()),
                        changes,
                    },
                )
            });
            (out, warnings)
        })
        .collect();
    let mut plan = ImportRewrites::default();
    for (out, mut warnings) in results {
        if let Some((rw, fc)) = out {
            plan.rewrites.push(rw);
            plan.files.push(fc);
        }
        plan.warnings.append(&mut warnings);
    }
    plan
}

/// The specifier for `target` from `importer` after the request, in the style of `r`, checked
/// to resolve to it.
fn new_specifier(
    after: &After<'_>,
    importer: &str,
    target: &str,
    res: &Resolved,
    r: &ModuleRef,
    config: Option<&crate::tsconfig::Config>,
    target_moves: bool,
) -> Option<String> {
    let (base, suffix) = match r.specifier.find(['?', '#']) {
        Some(i) => r.specifier.split_at(i),
        None => (r.specifier.as_str(), ""),
    };
    let reference = r.kind == RefKind::Reference;
    let mut candidates: Vec<String> = Vec::new();
    match &res.via {
        Via::Relative => {}
        // A mapped specifier does not depend on where the importer is.
        _ if !target_moves => candidates.push(base.to_string()),
        _ => {
            if let Some(s) = mapped_specifier(target, res) {
                candidates.push(s);
            }
        }
    }
    // A mapped specifier that becomes relative names a TypeScript source without its
    // extension (a relative `.ts` specifier needs `allowImportingTsExtensions`).
    let res = &match (&res.via, res.ext) {
        (Via::Paths(..) | Via::BaseUrl(_), crate::resolve::ExtStyle::Exact)
            if crate::paths::module_ext(target).is_some_and(|e| e.contains("ts")) =>
        {
            Resolved {
                ext: crate::resolve::ExtStyle::Omitted,
                ..res.clone()
            }
        }
        _ => res.clone(),
    };
    let mut rel = relative_specifier(importer, target, res, base);
    if reference && !base.starts_with('.') {
        rel = rel.trim_start_matches("./").to_string();
    }
    candidates.push(rel);
    // More explicit forms when the usual one is ambiguous after the move.
    let explicit = Resolved {
        index: false,
        ..res.clone()
    };
    candidates.push(relative_specifier(importer, target, &explicit, base));
    let exact = Resolved {
        index: false,
        ext: crate::resolve::ExtStyle::Exact,
        ..res.clone()
    };
    candidates.push(relative_specifier(importer, target, &exact, base));
    candidates.into_iter().find_map(|c| {
        let got = resolve(after, importer, &c, config, reference)?;
        (got.file == target).then(|| format!("{c}{suffix}"))
    })
}

/// A reference to a deleted file that the request leaves behind or removes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Leftover {
    pub file: String,
    pub line: usize,
    pub specifier: String,
    /// The deleted file it resolved to.
    pub target: String,
    /// `import`, `export`, `require`, ...
    pub kind: RefKind,
    /// The names the declaration bound (for `removedImports`).
    pub names: Vec<String>,
    /// The declaration was removed by the request.
    pub removed: bool,
    /// Uses of the removed names left in the file (1-based lines of the file after the
    /// removal), which no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<Use>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Use {
    pub name: String,
    pub line: usize,
}

/// The import clean-up of deleting `deleted` (every file, directories expanded): with
/// `remove`, import and re-export declarations of the deleted files are removed (and the
/// uses of their names left behind are listed); `require()`, `import()` and references are
/// always left and listed.
pub fn plan_delete(
    graph: &Graph,
    deleted: &[String],
    remove: bool,
) -> (ImportRewrites, Vec<Leftover>) {
    let set: std::collections::HashSet<&String> = deleted.iter().collect();
    let mut files: Vec<(&String, &Arc<Parsed>)> = graph
        .code
        .iter()
        .filter(|(f, _)| !set.contains(f))
        .collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut plan = ImportRewrites::default();
    let mut leftovers = Vec::new();
    for (file, parsed) in files {
        let lines = LineIndex::new(&parsed.text);
        let mut splices: Vec<Splice> = Vec::new();
        let mut removed_names: Vec<String> = Vec::new();
        let mut here = Vec::new();
        for r in &parsed.refs {
            let Some(t) = resolve_any(&graph.files, &graph.configs, file, r) else {
                continue;
            };
            let target = t.file().to_string();
            if !set.contains(&target) {
                continue;
            }
            let removable = remove
                && matches!(
                    r.kind,
                    RefKind::Import | RefKind::Export | RefKind::ImportEquals | RefKind::PyFrom
                );
            if removable {
                splices.push(Splice::new(
                    r.statement.start,
                    r.statement.end,
                    String::new(),
                ));
                if r.kind != RefKind::Export {
                    removed_names.extend(r.names.iter().cloned());
                }
            }
            here.push(Leftover {
                file: file.clone(),
                line: lines.line(r.span.start),
                specifier: r.specifier.clone(),
                target,
                kind: r.kind,
                names: r.names.clone(),
                removed: removable,
                uses: Vec::new(),
            });
        }
        if !removed_names.is_empty()
            && let Ok(lang) = filekit_semantic::Lang::of_path(file)
        {
            let uses = filekit_semantic::imports::uses_of(lang, &parsed.text, &removed_names);
            for l in here.iter_mut().filter(|l| l.removed) {
                l.uses = uses
                    .iter()
                    .filter(|(n, _)| l.names.contains(n))
                    .map(|(n, at)| Use {
                        name: n.clone(),
                        // The line in the file as the request leaves it: the removed
                        // declarations before the use took their lines with them.
                        line: lines.line(*at)
                            - splices
                                .iter()
                                .filter(|s| s.end <= *at && s.start < s.end)
                                .map(|s| parsed.text[s.start..s.end].matches('\n').count())
                                .sum::<usize>(),
                    })
                    .collect();
            }
        }
        if !splices.is_empty() {
            splices.sort_by_key(|s| s.start);
            splices.dedup_by_key(|s| s.start);
            plan.files.push(FileChanges {
                file: file.clone(),
                moved_to: None,
                changes: here
                    .iter()
                    .filter(|l| l.removed)
                    .map(|l| SpecifierChange {
                        old: l.specifier.clone(),
                        new: String::new(),
                        line: l.line,
                    })
                    .collect(),
            });
            plan.rewrites.push(Rewrite {
                path: file.clone(),
                content_hash: parsed.hash.clone(),
                splices,
            });
        }
        leftovers.extend(here);
    }
    (plan, leftovers)
}

/// Every file of the graph under `dir` (or `dir` itself), with its path below `dir`.
pub fn files_under<'a>(
    graph: &'a Graph,
    dir: &'a str,
) -> impl Iterator<Item = (&'a String, &'a str)> {
    graph.files.files.iter().filter_map(move |f| {
        if f == dir {
            Some((f, ""))
        } else {
            f.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .map(|rest| (f, rest))
        }
    })
}

/// The moves of every file when `from` (a file or a directory) moves to `to`.
pub fn expand_move(graph: &Graph, from: &str, to: &str) -> HashMap<String, String> {
    files_under(graph, from)
        .map(|(f, rest)| {
            (
                f.clone(),
                if rest.is_empty() {
                    to.to_string()
                } else {
                    join(to, rest)
                },
            )
        })
        .collect()
}

/// 1-based line numbers of byte offsets.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr_newlines(text));
        LineIndex { starts }
    }
    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(i, _)| i + 1)
}
