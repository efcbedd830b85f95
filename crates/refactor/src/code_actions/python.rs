//! Python's refactors without a language server (`precision: "syntactic"`):
//! `rename_symbol` across the modules of the workspace, `organize_imports` and
//! `remove_unused_imports`. The scopes and the edits of one file come from
//! `filekit_semantic::python`; which files import the renamed module, and which
//! section an import belongs to, from the import graph and Python module resolution.

use super::{At, Draft, Precision, Refactor, Request, byte_at, walk_name};
use crate::graph;
use crate::python;
use crate::resolve::FileSet;
use crate::source::{Source, load};
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::python::{self as py, ImportOptions, Section, Target, is_stdlib};
use std::collections::HashSet;

/// isort's section of a module name, from `importer`: relative names are local, the standard
/// library's names are its own, names of the workspace's modules are first party, the rest
/// third party.
fn section(files: &dyn FileSet, importer: &str, module: &str) -> Section {
    if module.starts_with('.') {
        return Section::Local;
    }
    if module == "__future__" {
        return Section::Future;
    }
    let top = module.split('.').next().unwrap_or(module);
    if is_stdlib(top) {
        Section::Stdlib
    } else if python::resolve(files, importer, top).is_some()
        || python::resolve(files, importer, module).is_some()
    {
        Section::FirstParty
    } else {
        Section::ThirdParty
    }
}

pub(super) fn syntactic(ws: &Workspace, req: &Request, src: &Source) -> Result<Draft, FkError> {
    let rename_of = match &req.refactor {
        Refactor::OrganizeImports | Refactor::RemoveUnusedImports => None,
        Refactor::RenameSymbol {
            at,
            new_name,
            workspace_scope,
        } => Some(Rename {
            at,
            new: new_name,
            workspace_scope: *workspace_scope,
        }),
        // Python's other kinds are one file's, in the shared module.
        _ => return super::syntactic::syntactic(ws, req, Lang::Python, src),
    };
    let mut draft = Draft::new(Precision::Syntactic);
    let text = src.text.as_str();
    let graph = graph::build(ws)?;
    let me = walk_name(ws, &req.file)?;
    if let Some(rename_of) = rename_of {
        rename(ws, req, &rename_of, src, &graph, me, &mut draft)?;
        return Ok(draft);
    }
    let is_init = me
        .rsplit('/')
        .next()
        .is_some_and(|n| n.starts_with("__init__."));
    let classify = |m: &str| section(&graph.files, &me, m);
    let opts = ImportOptions {
        is_init,
        section: &classify,
    };
    let s = if matches!(req.refactor, Refactor::RemoveUnusedImports) {
        py::remove_unused_imports(text, &opts)?
    } else {
        py::organize_imports(text, &opts)?
    };
    draft.files.insert(req.file.clone(), (src.clone(), s));
    Ok(draft)
}

/// A rename's own data.
struct Rename<'r> {
    at: &'r At,
    new: &'r str,
    workspace_scope: bool,
}

fn rename(
    ws: &Workspace,
    req: &Request,
    rename_of: &Rename,
    src: &Source,
    graph: &graph::Graph,
    me: String,
    draft: &mut Draft,
) -> Result<(), FkError> {
    let (new, workspace_scope) = (rename_of.new, rename_of.workspace_scope);
    let text = src.text.as_str();
    let target = match rename_of.at {
        At::Selection(s) => Target::At(byte_at(text, s.start_line, s.start_column, "start")?),
        At::Symbol(name) => Target::Name(name.clone()),
    };
    let mut r = py::rename_in_file(text, &target, new, !workspace_scope)?;
    draft.symbol = Some(r.name.clone());
    if !workspace_scope {
        if r.module_level {
            draft.warnings.push(format!(
                "`{}` is a module-level name: with scope \"file\" the modules that import it are not changed",
                r.name
            ));
        }
        draft.warnings.append(&mut r.warnings);
        draft
            .files
            .insert(req.file.clone(), (src.clone(), r.splices));
        return Ok(());
    }
    let mut origin = me;
    let mut origin_src = src.clone();
    // An imported name is renamed where it is defined.
    if let Some(spec) = r.imported_from.clone() {
        let Some((def, _)) = python::resolve(&graph.files, &origin, &spec) else {
            return Err(FkError::invalid(format!(
                "`{}` is imported from `{spec}`, which is not a module of the workspace",
                r.name
            ))
            .with_hint(
                "rename the local name only with scope \"file\" (it becomes `name as newName`)",
            ));
        };
        origin_src = load(ws, &def)?;
        r = py::rename_in_file(&origin_src.text, &Target::Name(r.name.clone()), new, false)
            .map_err(|e| FkError {
                message: format!("{def}: {}", e.message),
                ..e
            })?;
        origin = def;
    }
    draft.warnings.append(&mut r.warnings);
    let old = r.name.clone();
    draft
        .files
        .insert(origin.clone(), (origin_src.clone(), r.splices));
    if !r.module_level {
        return Ok(());
    }
    // Importers (by `from m import old`, `import m` then `m.old`), and through the modules
    // that import the name and so re-export it, their importers.
    let mut files: Vec<&String> = graph.code.keys().filter(|f| python::is_python(f)).collect();
    files.sort();
    let mut origins = vec![origin.clone()];
    let mut done: HashSet<String> = HashSet::new();
    while let Some(o) = origins.pop() {
        if !done.insert(o.clone()) {
            continue;
        }
        for f in &files {
            if **f == o || **f == origin {
                continue;
            }
            let fsrc = match draft.files.get(*f) {
                Some((s, _)) => s.clone(),
                None => {
                    let parsed = &graph.code[*f];
                    if !parsed.text.contains(old.as_str()) {
                        continue;
                    }
                    Source {
                        text: parsed.text.to_string(),
                        hash: parsed.hash.clone(),
                    }
                }
            };
            let resolves = |spec: &str| {
                python::resolve(&graph.files, f, spec).is_some_and(|(file, _)| file == o)
            };
            let ir = match py::rename_in_importer(&fsrc.text, &resolves, &old, new) {
                Ok(ir) => ir,
                Err(e) if e.code == ErrorCode::Conflict => {
                    return Err(FkError {
                        message: format!("{f}: {}", e.message),
                        ..e
                    });
                }
                Err(_) => continue,
            };
            if ir.re_exports {
                origins.push((*f).clone());
            }
            if ir.splices.is_empty() {
                continue;
            }
            let entry = draft
                .files
                .entry((*f).clone())
                .or_insert_with(|| (fsrc.clone(), vec![]));
            let have: HashSet<usize> = entry.1.iter().map(|s| s.start).collect();
            entry
                .1
                .extend(ir.splices.into_iter().filter(|s| !have.contains(&s.start)));
            entry.1.sort_by_key(|s| s.start);
        }
    }
    Ok(())
}

/// Refuses to inline a module-level `name` of `file` that another module of the workspace
/// imports (`from m import name`, or `m.name` after `import m`): the import graph's modules
/// that contain the name are asked where they refer to it.
pub(super) fn not_imported(ws: &Workspace, file: &str, name: &str) -> Result<(), FkError> {
    let graph = graph::build(ws)?;
    let me = walk_name(ws, file)?;
    let mut files: Vec<&String> = graph
        .code
        .keys()
        .filter(|f| python::is_python(f) && **f != me)
        .collect();
    files.sort();
    for f in files {
        let parsed = &graph.code[f];
        if !parsed.text.contains(name) {
            continue;
        }
        let resolves =
            |spec: &str| python::resolve(&graph.files, f, spec).is_some_and(|(t, _)| t == me);
        // The references a rename would change are the module's uses of the name.
        let uses = py::rename_in_importer(&parsed.text, &resolves, name, "__filekit_probe__");
        if uses.is_ok_and(|u| !u.splices.is_empty() || u.re_exports) {
            return Err(FkError::invalid(format!(
                "`{name}` is imported by {f}: inlined, that import would fail"
            ))
            .with_hint("inline it where it is imported first, or keep the variable"));
        }
    }
    Ok(())
}
