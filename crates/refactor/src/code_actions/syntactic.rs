//! The refactors computed on the syntax trees of TS/TSX/JS (and Python's) without
//! a language server (`precision: "syntactic"`): each is one call of `filekit-semantic` on the
//! file's text; a workspace rename finds the files it changes with [`crate::rename`] on the
//! import graph, add_import its candidates with [`crate::add_import`].

use super::{
    At, Draft, ExtractCode, ExtractValue, Precision, Refactor, Request, byte_at, walk_name,
};
use crate::source::{Source, load};
use filekit_core::splices::Splice;
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::ts::{self as syn, Target};
use std::collections::HashSet;

/// A file as the import graph parsed it, as the pipeline reads it (without a UTF-8 BOM, which
/// the graph's text keeps), with `splices` on the graph's text moved onto it.
fn graph_source(p: &crate::graph::Parsed, splices: Vec<Splice>) -> (Source, Vec<Splice>) {
    const BOM: &str = "\u{feff}";
    let skip = if p.text.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let src = Source {
        text: p.text[skip..].to_string(),
        hash: p.hash.clone(),
    };
    let splices = splices
        .into_iter()
        .map(|s| {
            Splice::new(
                s.start.saturating_sub(skip),
                s.end.saturating_sub(skip),
                s.text,
            )
        })
        .collect();
    (src, splices)
}

// Over 200 lines: the dispatch of every refactor kind to its syntax-tree implementation, one arm
// per kind; an arm that grows past a few calls (rename's importers, extract's Python variant)
// belongs in a function of its own.
pub(super) fn syntactic(
    ws: &Workspace,
    req: &Request,
    lang: Lang,
    src: &Source,
) -> Result<Draft, FkError> {
    let mut draft = Draft::new(Precision::Syntactic);
    let text = src.text.as_str();
    match &req.refactor {
        Refactor::OrganizeImports => {
            let s = syn::organize_imports(lang, text)?;
            draft.files.insert(req.file.clone(), (src.clone(), s));
        }
        Refactor::RemoveUnusedImports => {
            let s = syn::remove_unused_imports(lang, text)?;
            draft.files.insert(req.file.clone(), (src.clone(), s));
        }
        Refactor::RenameSymbol {
            at,
            new_name,
            workspace_scope,
        } => {
            let new = new_name.as_str();
            let target = target(text, at)?;
            let keep_public = !workspace_scope;
            let mut r = syn::rename_in_file(lang, text, &target, new, keep_public)?;
            draft.symbol = Some(r.name.clone());
            let mut origin = walk_name(ws, &req.file)?;
            let mut origin_src = src.clone();
            if !workspace_scope {
                if r.exported {
                    draft.warnings.push(format!(
                        "`{}` is exported: with scope \"file\" the files that import it are not changed",
                        r.name
                    ));
                }
                draft
                    .files
                    .insert(req.file.clone(), (src.clone(), r.splices));
                return Ok(draft);
            }
            // One walk and one resolver: the import graph's (kept warm by a server).
            let graph = crate::graph::build(ws)?;
            // An imported name is renamed where it is declared.
            if let Some(spec) = r.imported_from.clone() {
                let Some(def) = crate::rename::resolve_specifier(&graph, &origin, &spec) else {
                    return Err(FkError::invalid(format!(
                        "`{}` is imported from '{spec}', which is not a file of the workspace",
                        r.name
                    ))
                    .with_hint("rename the local name only with scope \"file\""));
                };
                origin_src = match graph.code.get(&def) {
                    Some(p) => graph_source(p, vec![]).0,
                    None => load(ws, &def)?,
                };
                let def_lang = Lang::of_path(&def)?;
                r = syn::rename_in_file(
                    def_lang,
                    &origin_src.text,
                    &Target::Name(r.name.clone()),
                    new,
                    false,
                )?;
                origin = def;
            }
            let old = r.name.clone();
            let exported = r.exported;
            draft
                .files
                .insert(origin.clone(), (origin_src.clone(), r.splices));
            if exported {
                // Importers by name, and through re-exports, their importers.
                let changes = crate::rename::rename_in_importers(&graph, &origin, &old, new)?;
                for (f, c) in changes {
                    let (fsrc, splices) = graph_source(&c.parsed, c.splices);
                    let entry = draft.files.entry(f).or_insert_with(|| (fsrc, vec![]));
                    let have: HashSet<usize> = entry.1.iter().map(|s| s.start).collect();
                    entry
                        .1
                        .extend(splices.into_iter().filter(|s| !have.contains(&s.start)));
                    entry.1.sort_by_key(|s| s.start);
                }
            }
        }
        Refactor::ExtractVariable(x) | Refactor::ExtractConstant(x) => {
            // The engine's kinds, on the syntax tree.
            use filekit_semantic::{python, ts};
            let ExtractValue {
                selection,
                name,
                replace_all,
                untyped_parameters,
            } = x;
            let range = byte_range(text, selection)?;
            let constant = matches!(req.refactor, Refactor::ExtractConstant(_));
            let default = if constant { "EXTRACTED" } else { "extracted" };
            let name = name.clone().unwrap_or_else(|| default.into());
            let all = *replace_all;
            let x = match (lang, constant) {
                (Lang::Python, false) => {
                    python::extract::extract_variable(text, range, &name, all)?
                }
                (Lang::Python, true) => python::extract::extract_constant(text, range, &name, all)?,
                (_, false) => ts::extract::extract_variable(lang, text, range, &name, all)?,
                (_, true) => ts::extract::extract_constant(lang, text, range, &name, all)?,
            };
            if constant {
                // Where the constant went, in tsserver's words for the same choice (in Python,
                // "enclosing scope" is a local assignment: the language has no constants).
                draft.title = Some(
                    if x.module_level {
                        "Extract to constant in module scope"
                    } else {
                        "Extract to constant in enclosing scope"
                    }
                    .into(),
                );
            }
            super::untyped::check(
                ws,
                &req.file,
                *untyped_parameters,
                lang,
                &x.untyped,
                &mut draft.warnings,
            )?;
            draft.symbol = Some(name);
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        Refactor::ExtractType {
            selection,
            name,
            type_kind,
        } => {
            use filekit_semantic::ts::extract_type::extract_type;
            let name = name.clone().unwrap_or_else(|| "ExtractedType".into());
            let x = extract_type(lang, text, byte_range(text, selection)?, &name, *type_kind)?;
            draft.symbol = Some(name);
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        Refactor::ExtractFunction(x) | Refactor::ExtractMethod(x) => {
            use filekit_semantic::{python, ts};
            let ExtractCode {
                selection,
                name,
                untyped_parameters,
            } = x;
            let range = byte_range(text, selection)?;
            let method = matches!(req.refactor, Refactor::ExtractMethod(_));
            let name = name.clone().unwrap_or_else(|| "extracted".into());
            let x = match lang {
                Lang::Python => {
                    python::extract_function::extract_function(text, range, &name, method)?
                }
                _ => ts::extract_function::extract_function(lang, text, range, &name, method)?,
            };
            if let Some(class) = &x.class {
                implemented_elsewhere(ws, class, &name)?;
            }
            super::untyped::check(
                ws,
                &req.file,
                *untyped_parameters,
                lang,
                &x.untyped,
                &mut draft.warnings,
            )?;
            draft.warnings.extend(x.warnings);
            draft.symbol = Some(name);
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        Refactor::InlineVariable(at) => {
            let target = target(text, at)?;
            let (name, splices) = if lang == Lang::Python {
                use filekit_semantic::python::Target as PyTarget;
                let target = match target {
                    Target::At(at) => PyTarget::At(at),
                    Target::Name(n) => PyTarget::Name(n),
                };
                let x = filekit_semantic::python::inline_variable::inline_variable(text, &target)?;
                if x.module_level {
                    super::python::not_imported(ws, &req.file, &x.name)?;
                }
                (x.name, x.splices)
            } else {
                let x =
                    filekit_semantic::ts::inline_variable::inline_variable(lang, text, &target)?;
                (x.name, x.splices)
            };
            draft.symbol = Some(name);
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&splices)));
        }
        Refactor::ConvertToArrow(sel) => {
            let at = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let x = filekit_semantic::ts::convert::convert_to_arrow(lang, text, at)?;
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        Refactor::ConvertToFunction(sel) => {
            let at = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let x = filekit_semantic::ts::convert::convert_to_function(lang, text, at)?;
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        Refactor::ConvertToAsync(sel) => {
            let at = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let x = if lang == Lang::Python {
                filekit_semantic::python::convert_async::convert_to_async(text, at)?
            } else {
                filekit_semantic::ts::convert_async::convert_to_async(lang, text, at)?
            };
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        Refactor::AddImport { at, module } => {
            // The candidates are the refactor layer's (the import graph), the edit semantic's.
            let target = target(text, at)?;
            let me = walk_name(ws, &req.file)?;
            let x = crate::add_import::add_import(ws, &me, text, &target, module.as_deref())?;
            draft.symbol = Some(x.name);
            draft.title = Some(format!(
                "import from '{}' ({})",
                x.chosen.module,
                x.chosen.export.as_str()
            ));
            draft
                .files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        // Its importers are the import graph's: computed on its own.
        Refactor::InlineFunction(at) => {
            return super::inline_function::inline_function(ws, req, at, lang, src);
        }
    }
    Ok(draft)
}

/// The target at a position (a selection's start) or by name.
pub(super) fn target(text: &str, at: &At) -> Result<Target, FkError> {
    Ok(match at {
        At::Selection(s) => Target::At(byte_at(text, s.start_line, s.start_column, "start")?),
        At::Symbol(name) => Target::Name(name.clone()),
    })
}

/// The bytes of a selection.
fn byte_range(text: &str, s: &super::Selection) -> Result<std::ops::Range<usize>, FkError> {
    Ok(byte_at(text, s.start_line, s.start_column, "start")?
        ..byte_at(text, s.end_line, s.end_column, "end")?)
}

/// Refuses a new method of `class` when a TS class of the workspace `implements` it: that
/// class would then lack the method.
fn implemented_elsewhere(ws: &Workspace, class: &str, name: &str) -> Result<(), FkError> {
    use filekit_core::search::grep::{GrepOptions, OutputMode, grep};
    let found = grep(
        ws,
        &GrepOptions {
            pattern: filekit_semantic::ts::extract_function::implements_pattern(class),
            glob: Some("*.{ts,tsx,mts,cts}".into()),
            mode: OutputMode::FilesWithMatches,
            head_limit: Some(1),
            ..Default::default()
        },
    )?;
    if let Some(f) = found.files.first() {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "a class in {} implements `{class}`: it would lack the new method `{name}`",
                f.path
            ),
        )
        .with_hint("use extract_function, or add the method to the classes that implement it"));
    }
    Ok(())
}

/// The engine's edit value as the draft's list of splices (checked again as one edit when
/// written).
fn listed(s: &filekit_core::splices::Splices) -> Vec<Splice> {
    s.iter().cloned().collect()
}
