//! File operations with their import updates, in one request of the engine.

use crate::graph::{self, Graph};
use crate::import_rewrites::{self, FileChanges, ImportRewrites, Leftover};
use crate::symbols::{self, Renames};
use filekit_core::fsops::{self, FileOp, FsReport, FsRequest};
use filekit_core::workspace::WsPath;
use filekit_core::{ErrorCode, FkError, Workspace};
use std::collections::HashMap;

/// What [`apply`] did.
#[derive(Debug, Default)]
pub struct Applied {
    pub report: Option<FsReport>,
    /// The specifiers changed (moves, copies) or declarations removed (deletes).
    pub files: Vec<FileChanges>,
    /// References to deleted files (removed or left behind).
    pub leftovers: Vec<Leftover>,
    pub warnings: Vec<String>,
    /// Uses of names that came from deleted files through barrels whose re-exports the
    /// request removes (see [`crate::barrels`]).
    pub barrel_uses: Vec<crate::barrels::BarrelUse>,
    /// Symbols renamed with the request ([`Options::renames`]): every occurrence per file.
    pub symbols: Vec<FileChanges>,
    /// (old, new, occurrences) of each symbol renamed.
    pub renamed: Vec<(String, String, usize)>,
    /// Code files parsed for this request (the others came from the cache), and in the graph.
    pub parsed: usize,
    pub graph_files: usize,
}

/// How the import graph names a path: relative to the first root, or absolute in others.
fn key(p: &WsPath) -> String {
    if p.root_index() == 0 {
        p.relative().to_string_lossy().into_owned()
    } else {
        p.absolute().to_string_lossy().into_owned()
    }
}

/// Where a move or copy puts `from` (as fsops decides it), if it can be told.
fn destination(ws: &Workspace, from: &WsPath, to: &str) -> Option<WsPath> {
    let dst = ws.resolve_entry(to).ok()?;
    if (to.ends_with('/') || to.ends_with(std::path::MAIN_SEPARATOR))
        && ws.metadata(&dst).ok().flatten().is_some_and(|m| m.is_dir)
        && let Some(name) = from.relative().file_name()
    {
        return ws
            .resolve_entry(&dst.absolute().join(name).to_string_lossy())
            .ok();
    }
    Some(dst)
}

/// What [`apply_with`] does besides the request's operations.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rewrite the specifiers that name moved or copied files, clean up after deletes.
    pub update_imports: bool,
    /// On deletes, remove the import and re-export declarations of the deleted files.
    pub remove_on_delete: bool,
    /// Exported symbols of the one file the request moves or copies to rename with it: for a
    /// move in the file and at every import site, for a copy in the copy only.
    pub renames: Renames,
}

/// Carries out `req` and, when `update_imports`, the import updates it needs, in one
/// atomic request: moves and copies rewrite the specifiers that name moved files (and the
/// moved or copied files' own), deletes remove the import and re-export declarations of
/// deleted files (`remove_on_delete`) and list every reference left behind. Operations that
/// cannot be planned (a missing source, ...) are left for the engine to report.
pub fn apply(
    ws: &Workspace,
    req: FsRequest,
    update_imports: bool,
    remove_on_delete: bool,
) -> Result<Applied, FkError> {
    apply_with(
        ws,
        req,
        &Options {
            update_imports,
            remove_on_delete,
            renames: Renames::default(),
        },
    )
}

/// [`apply`] with symbol renames (see [`Options`]). A rename that cannot be made is an
/// error before anything is written.
pub fn apply_with(ws: &Workspace, mut req: FsRequest, opts: &Options) -> Result<Applied, FkError> {
    let (update_imports, remove_on_delete) = (opts.update_imports, opts.remove_on_delete);
    if !opts.renames.is_empty() && !update_imports {
        return Err(FkError::invalid(format!(
            "{} renames symbols at every import site, and updateImports is false",
            opts.renames.what
        ))
        .with_hint("leave updateImports on (the default) to rename symbols with the file"));
    }
    let mut applied = Applied::default();
    let mut moves_done: HashMap<String, String> = HashMap::new();
    let mut copies_or_deletes = 0;
    if update_imports {
        let graph: Graph = graph::build(ws)?;

        applied.parsed = graph.parsed;
        applied.graph_files = graph.code.len();
        let mut moves: HashMap<String, String> = HashMap::new();
        let mut copies: HashMap<String, String> = HashMap::new();
        let mut deleted: Vec<String> = Vec::new();
        for op in &req.ops {
            match op {
                FileOp::Move { from, to, .. } | FileOp::Copy { from, to, .. } => {
                    let Ok(src) = ws.resolve_entry(from) else {
                        continue;
                    };
                    let Some(dst) = destination(ws, &src, to) else {
                        continue;
                    };
                    let m = import_rewrites::expand_move(&graph, &key(&src), &key(&dst));
                    if matches!(op, FileOp::Move { .. }) {
                        moves.extend(m);
                    } else {
                        copies.extend(m);
                    }
                }
                // A new file has no importers yet.
                FileOp::Create { .. } => {}
                FileOp::Delete { path, .. } => {
                    if let Ok(p) = ws.resolve_entry(path) {
                        let k = key(&p);
                        deleted.extend(
                            import_rewrites::files_under(&graph, &k).map(|(f, _)| f.clone()),
                        );
                    }
                }
                // A new directory holds no code yet: no import points into it.
                FileOp::MakeDir { .. } => {}
            }
        }
        copies_or_deletes = copies.len() + deleted.len();
        moves_done = moves.clone();
        let mut plans: Vec<ImportRewrites> = Vec::new();
        if !moves.is_empty() {
            plans.push(import_rewrites::plan_moves(&graph, &moves, false));
        }
        if !copies.is_empty() {
            plans.push(import_rewrites::plan_moves(&graph, &copies, true));
        }
        if !deleted.is_empty() {
            let (p, leftovers) = import_rewrites::plan_delete(&graph, &deleted, remove_on_delete);
            if remove_on_delete {
                applied.barrel_uses = crate::barrels::uses_through(&graph, &deleted, &leftovers);
            }
            applied.leftovers = leftovers;
            plans.push(p);
        }
        let sym = if opts.renames.is_empty() {
            None
        } else {
            let (from, to, copy) = match req.ops.as_slice() {
                [FileOp::Move { from, to, .. }] => (from, to, false),
                [FileOp::Copy { from, to, .. }] => (from, to, true),
                _ => {
                    return Err(FkError::invalid(format!(
                        "{} renames the symbols of one file moved, renamed or copied",
                        opts.renames.what
                    ))
                    .with_hint("move or copy one file per request when renaming its symbols"));
                }
            };
            let src = ws.resolve_entry(from)?;
            let dst = destination(ws, &src, to).ok_or_else(|| {
                FkError::invalid(format!("cannot tell where {to} is in the workspace"))
            })?;
            let (file, new) = (key(&src), key(&dst));
            // A source that is not there: the operation itself says so.
            let exists = ws.metadata(&src).ok().flatten().is_some();
            if !exists {
                None
            } else {
                if import_rewrites::files_under(&graph, &file).any(|(_, rest)| !rest.is_empty()) {
                    return Err(FkError::invalid(format!(
                        "{}: {from} is a directory; symbols are renamed with one file",
                        opts.renames.what
                    ))
                    .with_hint("move the directory without renames, or rename files one by one"));
                }
                let renames = symbols::wanted(&graph, &file, &new, &opts.renames)?;
                let sp = symbols::plan(&graph, &file, &renames, !copy, opts.renames.what)?;
                let moved: HashMap<String, String> = [(file.clone(), new.clone())].into();
                applied.symbols = symbols::changes(&graph, &sp, &moved);
                applied.renamed = sp.renamed.clone();
                Some(sp)
            }
        };
        for p in plans {
            // A file the caller rewrites too (a patch that changes a file it moves) gets one
            // rewrite with both changes; a change of the same bytes is refused by name.
            for r in p.rewrites {
                match req.rewrites.iter_mut().find(|c| c.path == r.path) {
                    Some(c) => {
                        c.splices.extend(r.splices);
                        symbols::merge(&mut c.splices).map_err(|e| {
                            FkError::new(
                                ErrorCode::Conflict,
                                format!(
                                    "{}: the change asked for and the import update of the move \
                                     meet ({})",
                                    r.path, e.message
                                ),
                            )
                            .with_hint(
                                "leave the import line to the move, or turn the import update off",
                            )
                        })?;
                    }
                    None => req.rewrites.push(r),
                }
            }
            applied.files.extend(p.files);
            applied.warnings.extend(p.warnings);
        }
        if let Some(sp) = sym {
            applied.warnings.extend(sp.warnings);
            // One rewrite per file: the symbols' splices join the specifiers'.
            for (file, splices) in sp.splices {
                match req.rewrites.iter_mut().find(|r| r.path == file) {
                    Some(r) => {
                        r.splices.extend(splices);
                        symbols::merge(&mut r.splices)?;
                    }
                    None => req.rewrites.push(fsops::Rewrite {
                        content_hash: graph.code[&file].hash.clone(),
                        path: file,
                        splices,
                    }),
                }
            }
        }
        if !req.rewrites.is_empty() {
            req.atomic = true;
        }
    }
    let report = fsops::apply(ws, &req);
    // A committed move: the cached graph follows it without reading the files again.
    // (Symbol renames change the names a reference binds: those files are parsed again.)
    if report.success()
        && !req.dry_run
        && !moves_done.is_empty()
        && copies_or_deletes == 0
        && applied.symbols.is_empty()
    {
        let rewritten: Vec<(String, Vec<filekit_core::splices::Splice>)> = req
            .rewrites
            .iter()
            .map(|r| (r.path.clone(), r.splices.clone()))
            .collect();
        graph::record_move(ws, &moves_done, &rewritten);
    }
    applied.report = Some(report);
    Ok(applied)
}
