//! Renames of exported symbols that go with a move, rename or copy of a file (the semantic table's
//! `renameExports` / `exportMapping` of `file_rename`, `symbolMapping` / `renameSymbols` of
//! `file_duplicate`): the export renamed in the file itself (declaration and uses,
//! scope-aware, or its alias), and, for a move, at every import site of the workspace: named
//! imports (an aliased one keeps its local name), re-exports (and, through them, their own
//! importers), `ns.Old` through namespace imports, default imports named after the export.
//! The splices are computed on the texts of the import graph (tied to their `content_hash`)
//! and merged by the caller with the specifier rewrites of the same files, so that each file
//! gets one rewrite in the one atomic request. Syntactic (tree-sitter), like the rename of
//! `file_edit`'s refactor mode, whose functions it uses.

use crate::graph::Graph;
use crate::import_rewrites::{FileChanges, SpecifierChange};
use crate::paths::name_of;
use filekit_core::{ErrorCode, FkError};
use filekit_semantic::Lang;
use filekit_semantic::imports::RefKind;
use filekit_semantic::ts::exports::{self, Exports};
use filekit_semantic::ts::{self as syn, Target};
use std::collections::{BTreeMap, HashSet};

use filekit_core::splices::Splice;

/// The symbol renames a request asks for.
#[derive(Debug, Clone, Default)]
pub struct Renames {
    /// `{ "Old": "New" }`: export names (or the name of the default export's declaration).
    pub mapping: Vec<(String, String)>,
    /// Rename the main export (the one named after the file) to the new file name.
    pub main: bool,
    /// The option's name, for messages (`exportMapping`, `symbolMapping`).
    pub what: &'static str,
}

impl Renames {
    pub fn is_empty(&self) -> bool {
        self.mapping.is_empty() && !self.main
    }
}

/// The renames of one request.
#[derive(Debug, Default)]
pub struct SymbolRewrites {
    /// Splices by file (as it is before the request), sorted, not overlapping.
    pub splices: BTreeMap<String, Vec<Splice>>,
    /// The renames made: (old, new, occurrences in the workspace).
    pub renamed: Vec<(String, String, usize)>,
    pub warnings: Vec<String>,
}

fn stem(path: &str) -> &str {
    let name = name_of(path);
    let name = name.strip_suffix(".d.ts").unwrap_or(name);
    match crate::paths::module_ext(name) {
        Some(e) => &name[..name.len() - e.len()],
        None => name.rsplit_once('.').map_or(name, |(s, _)| s),
    }
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// `auth-service` → `AuthService` (or `authService` when `lower`).
fn identifier_from(stem: &str, lower: bool) -> String {
    let mut out = String::new();
    for word in stem.split(|c: char| !(c.is_alphanumeric() || c == '$')) {
        let mut cs = word.chars();
        if let Some(f) = cs.next() {
            out.extend(f.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    if lower && let Some(f) = out.chars().next() {
        let rest = out[f.len_utf8()..].to_string();
        out = f.to_lowercase().collect::<String>() + &rest;
    }
    out
}

fn error_in(file: &str, what: &str, e: FkError) -> FkError {
    FkError {
        message: format!("{what}: {file}: {}", e.message),
        ..e
    }
}

/// The renames asked for `file` going to `to`: the mapping, and with `main` the export named
/// after the file (`UserService` of UserService.ts; `userService` of user-service.ts) to the
/// name of the new file (the mapping wins for the same name).
pub fn wanted(
    graph: &Graph,
    file: &str,
    to: &str,
    r: &Renames,
) -> Result<Vec<(String, String)>, FkError> {
    let (_, ex) = exports_of(graph, file, r.what)?;
    let mut out = r.mapping.clone();
    let flag = if r.what == "exportMapping" {
        "renameExports"
    } else {
        "renameSymbols"
    };
    if r.main {
        let (old_stem, new_stem) = (stem(file), stem(to));
        if old_stem != new_stem {
            let candidates = ex.names.iter().filter_map(|e| {
                let name = if e.name == "default" {
                    e.local.as_deref()?
                } else {
                    e.name.as_str()
                };
                Some(name)
            });
            let exact = candidates.clone().find(|n| *n == old_stem);
            let main = exact.or_else(|| candidates.clone().find(|n| squash(n) == squash(old_stem)));
            let Some(main) = main else {
                return Err(FkError::new(
                    ErrorCode::NotFound,
                    format!(
                        "{flag}: {file} exports no symbol named after the file ({old_stem}); it exports {}",
                        ex.listed()
                    ),
                )
                .with_hint(format!(
                    "name the export to rename with {}: {{\"Old\": \"New\"}}",
                    r.what
                )));
            };
            let new = if main == old_stem {
                new_stem.to_string()
            } else {
                identifier_from(new_stem, main.starts_with(char::is_lowercase))
            };
            syn::check_identifier(&new).map_err(|e| {
                FkError {
                    message: format!(
                        "{flag}: the new file name gives `{new}` for `{main}`, which cannot be a name: {}",
                        e.message
                    ),
                    ..e
                }
                .with_hint(format!("give the new name with {}", r.what))
            })?;
            if !out.iter().any(|(o, _)| o == main) {
                out.push((main.to_string(), new));
            }
        }
    }
    let mut seen = HashSet::new();
    for (_, new) in &out {
        syn::check_identifier(new).map_err(|e| error_in(file, r.what, e))?;
        if !seen.insert(new.clone()) {
            return Err(FkError::invalid(format!(
                "{}: two symbols would be renamed to `{new}`",
                r.what
            ))
            .with_hint("give every symbol its own new name"));
        }
    }
    Ok(out)
}

fn exports_of(graph: &Graph, file: &str, what: &str) -> Result<(Lang, Exports), FkError> {
    let Some(parsed) = graph.code.get(file) else {
        return Err(FkError::invalid(format!(
            "{what}: {file} is not a TS/TSX/JS file of the workspace, so it has no exports to rename"
        ))
        .with_hint("rename symbols with a file (not a directory) of TS/TSX/JS code"));
    };
    let lang = Lang::of_path(file)?;
    let ex = exports::exports(lang, &parsed.text).map_err(|e| error_in(file, what, e))?;
    Ok((lang, ex))
}

/// The splices of `renames` in `file`, and with `importers`, in every file that imports it
/// (and through re-exports, their importers). Any rename that cannot be made (a name the file
/// does not export, a new name that clashes with a binding where it would land) is an error:
/// nothing is planned.
pub fn plan(
    graph: &Graph,
    file: &str,
    renames: &[(String, String)],
    importers: bool,
    what: &str,
) -> Result<SymbolRewrites, FkError> {
    let mut out = SymbolRewrites::default();
    if renames.is_empty() {
        return Ok(out);
    }
    let (lang, ex) = exports_of(graph, file, what)?;
    let text = &graph.code[file].text;
    let mut here = Vec::new();
    for (old, new) in renames {
        let s = match exports::rename_export(lang, text, old, new) {
            Ok(s) => s,
            // In a copy, a name the file declares or imports without exporting it is
            // renamed too (an imported one locally: `import { Old as New }`).
            Err(e) if !importers && e.code == ErrorCode::NotFound => {
                let local =
                    |keep| syn::rename_in_file(lang, text, &Target::Name(old.clone()), new, keep);
                match local(false) {
                    Ok(r) if r.imported_from.is_some() => local(true)?.splices,
                    Ok(r) => r.splices,
                    Err(e2) if e2.code == ErrorCode::NotFound => {
                        return Err(error_in(file, what, e));
                    }
                    Err(e2) => return Err(error_in(file, what, e2)),
                }
            }
            Err(e) => return Err(error_in(file, what, e)),
        };
        here.push(s.len());
        add(&mut out.splices, file, s, what)?;
    }
    let mut files: Vec<&String> = graph.code.keys().collect();
    files.sort();
    let mut counts: Vec<usize> = renames.iter().map(|_| 0).collect();
    if importers {
        for (i, (old, new)) in renames.iter().enumerate() {
            let default_only = ex.get(old).is_none_or(|e| e.name == "default");
            let mut queue = vec![file.to_string()];
            let mut done: HashSet<String> = HashSet::new();
            while let Some(module) = queue.pop() {
                if !done.insert(module.clone()) {
                    continue;
                }
                for f in &files {
                    if **f == module || *f == file {
                        continue;
                    }
                    let parsed = &graph.code[*f];
                    if !parsed.text.contains(old.as_str()) {
                        continue;
                    }
                    let names_module = |r: &filekit_semantic::imports::ModuleRef| {
                        crate::import_rewrites::resolve_any(&graph.files, &graph.configs, f, r)
                            .is_some_and(|t| t.file() == module)
                    };
                    let refs: Vec<_> = parsed.refs.iter().filter(|r| names_module(r)).collect();
                    if refs.is_empty() {
                        continue;
                    }
                    let Ok(flang) = Lang::of_path(f) else {
                        continue;
                    };
                    if flang == Lang::Python {
                        continue;
                    }
                    for r in &refs {
                        if matches!(
                            r.kind,
                            RefKind::Require | RefKind::Dynamic | RefKind::ImportEquals
                        ) {
                            out.warnings.push(format!(
                                "{f}: uses of `{old}` through {} '{}' are not renamed (only import and export declarations are followed)",
                                match r.kind {
                                    RefKind::Require => "require",
                                    RefKind::Dynamic => "import()",
                                    _ => "import =",
                                },
                                r.specifier
                            ));
                        }
                    }
                    let splices = if default_only {
                        // A default import named like the export follows it.
                        if refs
                            .iter()
                            .any(|r| r.kind == RefKind::Import && r.names.iter().any(|n| n == old))
                        {
                            syn::rename_in_file(
                                flang,
                                &parsed.text,
                                &Target::Name(old.clone()),
                                new,
                                false,
                            )
                            .map_err(|e| error_in(f, what, e))?
                            .splices
                        } else {
                            continue;
                        }
                    } else {
                        let resolves = |spec: &str| {
                            refs.iter()
                                .any(|r| r.specifier == spec && r.kind != RefKind::Reference)
                        };
                        let ir = syn::rename_in_importer(flang, &parsed.text, &resolves, old, new)
                            .map_err(|e| error_in(f, what, e))?;
                        if ir.re_exports {
                            let fex = exports::exports(flang, &parsed.text)
                                .map_err(|e| error_in(f, what, e))?;
                            if fex.get(new).is_some() {
                                return Err(FkError::new(
                                    ErrorCode::Conflict,
                                    format!(
                                        "{what}: {f} re-exports `{old}` and already exports `{new}`"
                                    ),
                                )
                                .with_hint("choose another name, or rename that export first"));
                            }
                            queue.push((*f).clone());
                        }
                        ir.splices
                    };
                    counts[i] += splices.len();
                    add(&mut out.splices, f, splices, what)?;
                }
            }
        }
    }
    for (i, (old, new)) in renames.iter().enumerate() {
        out.renamed
            .push((old.clone(), new.clone(), here[i] + counts[i]));
    }
    Ok(out)
}

/// Adds splices of one file, refusing two that overlap differently.
fn add(
    map: &mut BTreeMap<String, Vec<Splice>>,
    file: &str,
    splices: Vec<Splice>,
    what: &str,
) -> Result<(), FkError> {
    if splices.is_empty() {
        return Ok(());
    }
    let v = map.entry(file.to_string()).or_default();
    v.extend(splices);
    merge(v).map_err(|e| error_in(file, what, e))
}

/// Sorts splices, drops exact duplicates (two renames that make the same change) and
/// refuses overlaps, naming the two changes. This collects a file's changes from several
/// renames before the text is at hand; the commit step makes them `Splices` of the text.
pub fn merge(v: &mut Vec<Splice>) -> Result<(), FkError> {
    v.sort_by(|a, b| (a.start, a.end, &a.text).cmp(&(b.start, b.end, &b.text)));
    v.dedup();
    for w in v.windows(2) {
        if w[1].start < w[0].end || (w[1].start == w[0].start && w[0].start != w[0].end) {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "two changes meet at bytes {}..{} ('{}' and '{}')",
                    w[1].start, w[0].end, w[0].text, w[1].text
                ),
            )
            .with_hint("make the renames in separate requests"));
        }
    }
    Ok(())
}

/// The renamed occurrences per file, in the shape of the import changes (old and new text,
/// 1-based line in the file as it is now).
pub fn changes(
    graph: &Graph,
    plan: &SymbolRewrites,
    moves: &std::collections::HashMap<String, String>,
) -> Vec<FileChanges> {
    plan.splices
        .iter()
        .filter_map(|(file, splices)| {
            let text = &graph.code.get(file)?.text;
            Some(FileChanges {
                file: file.clone(),
                moved_to: moves.get(file).cloned(),
                changes: splices
                    .iter()
                    .map(|s| SpecifierChange {
                        old: text[s.start..s.end].to_string(),
                        new: s.text.clone(),
                        line: text[..s.start].matches('\n').count() + 1,
                    })
                    .collect(),
            })
        })
        .collect()
}
