//! `inline_function` for TS/TSX/JS, computed on syntax trees (`precision: "syntactic"`)
//! because tsserver offers no such refactor: the function's calls in its own file and, when
//! it is exported, in every file that imports it by name are replaced by its expression
//! (`filekit_semantic::ts::inline`), the imports left unused go, and the declaration goes when no
//! use remains. The importers come from the import graph and its resolution.

use super::{At, Draft, Precision, Request, walk_name};
use crate::graph;
use crate::paths::dir_of;
use crate::python::is_python;
use crate::resolve::resolve;
use crate::source::{Source, load};
use filekit_core::splices::Splice;
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::ts::Target;
use filekit_semantic::ts::inline::{self, Binding};
use std::collections::BTreeMap;

pub(super) fn inline_function(
    ws: &Workspace,
    req: &Request,
    at: &At,
    lang: Lang,
    src: &Source,
) -> Result<Draft, FkError> {
    let text = src.text.as_str();
    let target = super::syntactic::target(text, at)?;
    let me = walk_name(ws, &req.file)?;
    let graph = graph::build(ws)?;
    let resolves_to = |importer: &str, spec: &str, file: &str| {
        resolve(
            &graph.files,
            importer,
            spec,
            graph.configs.for_dir(dir_of(importer)),
            false,
        )
        .is_some_and(|r| r.file == file)
    };
    // The declaration: here, or where an imported name comes from.
    let (origin, origin_src, f) = match inline::function_at(lang, text, &target) {
        Ok(f) => (me.clone(), src.clone(), f),
        Err(err) => {
            let Some((spec, name)) = inline::imported_at(lang, text, &target) else {
                return Err(err);
            };
            let Some(r) = resolve(
                &graph.files,
                &me,
                &spec,
                graph.configs.for_dir(dir_of(&me)),
                false,
            ) else {
                return Err(FkError::invalid(format!(
                    "`{name}` is imported from '{spec}', which is not a file of the workspace"
                )));
            };
            let osrc = load(ws, &r.file)?;
            let olang = Lang::of_path(&r.file)?;
            let f = inline::function_at(olang, &osrc.text, &Target::Name(name))?;
            (r.file, osrc, f)
        }
    };
    let olang = Lang::of_path(&origin)?;
    let mut files: BTreeMap<String, (Source, Vec<Splice>)> = BTreeMap::new();
    let here = inline::inline_calls(
        olang,
        &origin_src.text,
        &origin_src.text,
        &f,
        Binding::Declaration,
    )
    .map_err(|e| FkError {
        message: format!("{origin}: {}", e.message),
        ..e
    })?;
    let mut calls = here.calls;
    let mut value_uses: Vec<String> = here
        .value_uses
        .iter()
        .map(|u| format!("{origin} {u}"))
        .collect();
    files.insert(origin.clone(), (origin_src.clone(), here.splices));
    if f.exported {
        let mut names: Vec<&String> = graph
            .code
            .keys()
            .filter(|g| **g != origin && !is_python(g))
            .collect();
        names.sort();
        for g in names {
            let parsed = &graph.code[g];
            if !parsed.text.contains(f.name.as_str()) {
                continue;
            }
            let glang = Lang::of_path(g)?;
            let resolves = |spec: &str| resolves_to(g, spec, &origin);
            let locals =
                inline::import_locals(glang, &parsed.text, &resolves, &f.name).map_err(|e| {
                    FkError {
                        message: format!("{g}: {}", e.message),
                        ..e
                    }
                })?;
            if locals.is_empty() {
                continue;
            }
            let gsrc = Source {
                text: parsed.text.to_string(),
                hash: parsed.hash.clone(),
            };
            let mut splices = Vec::new();
            for local in &locals {
                let r = inline::inline_calls(
                    glang,
                    &gsrc.text,
                    &origin_src.text,
                    &f,
                    Binding::Import(local),
                )
                .map_err(|e| FkError {
                    message: format!("{g}: {}", e.message),
                    ..e
                })?;
                calls += r.calls;
                value_uses.extend(r.value_uses.iter().map(|u| format!("{g} {u}")));
                splices.extend(r.splices);
                splices.extend(r.import_removal);
            }
            splices.sort_by_key(|s| s.start);
            files.insert(g.clone(), (gsrc, splices));
        }
        if !value_uses.is_empty() {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "`{}` is exported and used as a value, not called ({}): inlining its calls would leave those uses of a function that other modules see",
                    f.name,
                    value_uses.join(", ")
                ),
            )
            .with_hint("replace those uses with calls (or an arrow) first"));
        }
    }
    if calls == 0 {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("`{}` has no calls to inline", f.name),
        )
        .with_hint("delete the function with file_edit's delete operation if it is unused"));
    }
    let mut warnings = Vec::new();
    if value_uses.is_empty() && !f.export_list {
        let entry = files.get_mut(&origin).expect("inserted");
        entry
            .1
            .push(Splice::new(f.removal.0, f.removal.1, String::new()));
        entry.1.sort_by_key(|s| s.start);
    } else if f.export_list {
        warnings.push(format!(
            "`{}` stays: it is listed in an `export {{ }}`",
            f.name
        ));
    } else {
        warnings.push(format!(
            "`{}` stays: it is still used as a value ({})",
            f.name,
            value_uses.join(", ")
        ));
    }
    // The file asked about is named as the caller named it.
    if origin == me
        && let Some(e) = files.remove(&origin)
    {
        files.insert(req.file.clone(), e);
    }
    Ok(Draft {
        title: Some(format!(
            "Inline function '{}' ({calls} call{})",
            f.name,
            if calls == 1 { "" } else { "s" }
        )),
        files,
        created: vec![],
        symbol: Some(f.name.clone()),
        warnings,
        ..Draft::new(Precision::Syntactic)
    })
}
