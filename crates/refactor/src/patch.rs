//! A patch carried out on the workspace: each file of a parsed patch (`filekit-patch`)
//! resolved, read and placed; the sections that meet at one path refused before anything
//! runs; and the rest as ONE request: updates and adds through the pipeline (`Edit::Ranges`
//! of the placed splices, `Edit::Create`), or, when the patch deletes or moves files, through
//! the file operations (the updates as their rewrites, the adds as `FileOp::Create`, and the
//! import updates a move needs, [`crate::ops`]), atomic either way, one history entry. The
//! words of the reply are the dialect's.

use crate::ops::{self, Applied};
use filekit_core::edit::{Control, Edit, EditOptions, EditRequest, FileEdits};
use filekit_core::fsops::{self, FsRequest, Rewrite};
use filekit_core::text::TextDoc;
use filekit_core::{ErrorCode, FkError, Workspace, pipeline};
use filekit_patch::{FileOp, Format, HunkReport, Placement, Splices};
use serde_json::json;

/// Carries out a planned patch that every check passed (no [`Planned::error`], no refused
/// hunk): one atomic change, or, when a part fails, none (an edit request applied before
/// the file operations that then fail is undone).
pub fn carry_out(
    ws: &Workspace,
    control: Control,
    planned: &[Planned],
    dry_run: bool,
    update_imports: bool,
    tool: Option<String>,
) -> Carried {
    let needs_fs = planned.iter().any(|p| {
        matches!(
            p.kind,
            Kind::Delete
                | Kind::Update {
                    move_to: Some(_),
                    ..
                }
        )
    });
    let Requests {
        diffs,
        edits,
        rewrites,
        ops,
    } = Requests::of(planned, needs_fs);
    let mut carried = Carried {
        diffs,
        ..Carried::default()
    };
    let edit_entry = if edits.is_empty() {
        None
    } else {
        carried.apply_edits(ws, control, edits, dry_run, tool.clone())
    };
    if carried.errors.is_empty() && needs_fs {
        let request = FsRequest {
            ops,
            dry_run,
            atomic: true,
            tool,
            rewrites,
            ..FsRequest::default()
        };
        carried.apply_file_ops(ws, planned, request, update_imports, edit_entry);
    }
    carried
}

/// What the patch does to one file, once checked against the workspace.
pub struct Planned {
    pub path: String,
    /// The file as resolved (absolute), to find a file named twice.
    pub shown: String,
    /// Where it moves, as resolved: checked against every other path of the patch.
    pub dest: Option<String>,
    /// The section of the patch, in its own words, for a refusal that names it.
    pub section: String,
    pub kind: Kind,
    pub hunks: Vec<HunkReport>,
    pub error: Option<FkError>,
}

/// What a section of the patch does to its file.
pub enum Kind {
    Add {
        content: String,
        replaces: bool,
    },
    Delete,
    Update {
        move_to: Option<String>,
        splices: Option<Splices>,
        hash: String,
        bom: bool,
    },
}

impl Kind {
    /// Codex's letter for it: A, D or M.
    pub fn letter(&self) -> &'static str {
        match self {
            Kind::Add { .. } => "A",
            Kind::Delete => "D",
            Kind::Update { .. } => "M",
        }
    }
}

/// Reads and places every file of the patch; nothing is written.
pub fn plan(ws: &Workspace, patch: &filekit_patch::Patch) -> Vec<Planned> {
    let mut out: Vec<Planned> = Vec::new();
    for fp in &patch.files {
        let kind = match &fp.op {
            FileOp::Add { content } => Kind::Add {
                content: content.clone(),
                replaces: false,
            },
            FileOp::Delete => Kind::Delete,
            FileOp::Update { move_to, .. } => Kind::Update {
                move_to: move_to.clone(),
                splices: None,
                hash: String::new(),
                bom: false,
            },
        };
        let mut p = Planned {
            path: fp.path.clone(),
            shown: fp.path.clone(),
            dest: None,
            section: section(patch.format, fp),
            kind,
            hunks: Vec::new(),
            error: None,
        };
        let resolved = ws.resolve(&fp.path).and_then(|at| {
            ws.check_writable(&at)?;
            Ok(at)
        });
        let at = match resolved {
            Ok(at) => at,
            Err(e) => {
                p.error = Some(e);
                out.push(p);
                continue;
            }
        };
        p.shown = ws.display(&at);
        if let Some(q) = out.iter().find(|q| q.shown == p.shown) {
            p.error = Some(
                meeting(
                    &p.path,
                    format!(
                        "{} is named by two sections of the patch: {} and {}",
                        p.path, q.section, p.section
                    ),
                    [q, &p],
                )
                .with_hint("put all the changes to one file in one section of the patch"),
            );
            out.push(p);
            continue;
        }
        let meta = match ws.metadata(&at) {
            Ok(m) => m,
            Err(e) => {
                p.error = Some(e);
                out.push(p);
                continue;
            }
        };
        let is_dir = meta.as_ref().is_some_and(|m| m.is_dir);
        match &fp.op {
            FileOp::Add { content } => {
                if is_dir {
                    p.error = Some(
                        FkError::new(
                            ErrorCode::IsDirectory,
                            format!("Failed to write file {}: it is a directory", p.path),
                        )
                        .with_hint("add the file under another path"),
                    );
                }
                p.kind = Kind::Add {
                    content: content.clone(),
                    replaces: meta.is_some(),
                };
            }
            FileOp::Delete => {
                p.kind = Kind::Delete;
                if meta.is_none() {
                    p.error = Some(
                        FkError::new(
                            ErrorCode::NotFound,
                            format!("Failed to delete file {}: it does not exist", p.path),
                        )
                        .with_hint("remove the `Delete File` section, or check the path"),
                    );
                } else if is_dir {
                    p.error = Some(
                        FkError::new(
                            ErrorCode::IsDirectory,
                            format!("Failed to delete file {}: it is a directory", p.path),
                        )
                        .with_hint("a patch deletes files only"),
                    );
                }
            }
            FileOp::Update {
                move_to,
                hunks,
                create_if_missing,
            } => {
                if meta.is_none() && *create_if_missing {
                    let mut content = String::new();
                    for h in hunks {
                        for l in h.new_lines() {
                            content.push_str(l);
                            content.push('\n');
                        }
                    }
                    p.kind = Kind::Add {
                        content,
                        replaces: false,
                    };
                    out.push(p);
                    continue;
                }
                if let Some(dest) = move_to {
                    let checked = ws.resolve(dest).and_then(|d| {
                        ws.check_writable(&d)?;
                        Ok(ws.display(&d))
                    });
                    match checked {
                        Err(e) => p.error = Some(e),
                        // A move to where the file is already is no move.
                        Ok(d) if d == p.shown => {}
                        Ok(d) => p.dest = Some(d),
                    }
                }
                let move_to = &move_to.clone().filter(|_| p.dest.is_some());
                let bytes = match meta {
                    None => Err(FkError::new(
                        ErrorCode::NotFound,
                        format!("Failed to read file to update {}: it does not exist", p.path),
                    )
                    .with_hint("check the path, or add the file (`*** Add File:`, or a diff from /dev/null)")),
                    Some(_) if is_dir => Err(FkError::new(
                        ErrorCode::IsDirectory,
                        format!("Failed to read file to update {}: it is a directory", p.path),
                    )
                    .with_hint("a patch updates files only")),
                    Some(_) => ws.read(&at).map(|f| f.bytes),
                };
                let doc = bytes.and_then(|b| {
                    let hash = filekit_core::hash::content_hash(&b);
                    TextDoc::decode(&b, &p.path).map(|d| (d, hash))
                });
                match doc {
                    Err(e) => {
                        p.error = p.error.or(Some(e));
                        p.kind = Kind::Update {
                            move_to: move_to.clone(),
                            splices: None,
                            hash: String::new(),
                            bom: false,
                        };
                    }
                    Ok((doc, hash)) => {
                        let Placement { splices, hunks } = filekit_patch::place_with(
                            &doc.text,
                            hunks,
                            patch.format,
                            indent_convention(&p.path),
                        );
                        p.hunks = hunks;
                        p.kind = Kind::Update {
                            move_to: move_to.clone(),
                            splices,
                            hash,
                            bom: doc.bom,
                        };
                    }
                }
            }
        }
        out.push(p);
    }
    refuse_meetings(&mut out);
    out
}

/// A section of the patch as its format writes it, with its line.
fn section(format: Format, fp: &filekit_patch::FilePatch) -> String {
    let path = &fp.path;
    let what = match (&fp.op, format) {
        (FileOp::Add { .. }, Format::V4a) => format!("`*** Add File: {path}`"),
        (FileOp::Delete, Format::V4a) => format!("`*** Delete File: {path}`"),
        (
            FileOp::Update {
                move_to: Some(d), ..
            },
            Format::V4a,
        ) => format!("`*** Update File: {path}` with `*** Move to: {d}`"),
        (FileOp::Update { .. }, Format::V4a) => format!("`*** Update File: {path}`"),
        (FileOp::Add { .. }, _) => format!("the diff creating {path}"),
        (FileOp::Delete, _) => format!("the diff deleting {path}"),
        (
            FileOp::Update {
                move_to: Some(d), ..
            },
            _,
        ) => format!("the diff renaming {path} to {d}"),
        (FileOp::Update { .. }, Format::SearchReplace) => format!("the blocks for {path}"),
        (FileOp::Update { .. }, _) => format!("the diff of {path}"),
    };
    format!("{what} (patch line {})", fp.patch_line)
}

/// The refusal of two sections of one patch that meet at `path`.
fn meeting(path: &str, message: String, sections: [&Planned; 2]) -> FkError {
    FkError::new(ErrorCode::Conflict, message).with_details(json!({
        "path": path,
        "sections": sections.iter().map(|p| p.section.as_str()).collect::<Vec<_>>(),
    }))
}

/// Checks every move's destination against every other path of the patch (each section's own
/// path, and the other destinations) before anything runs: two sections that meet at one path
/// would lose one's work (two moves to one destination, a move onto a file the patch deletes,
/// adds or changes) or depend on an order the patch does not state (a swap, a chain of
/// moves). The later section is refused, naming both.
fn refuse_meetings(planned: &mut [Planned]) {
    for k in 0..planned.len() {
        let Some(dest) = planned[k].dest.clone() else {
            continue;
        };
        let mover = &planned[k];
        let other = (0..planned.len()).find(|&j| {
            j != k
                && (planned[j].shown == dest || (j < k && planned[j].dest.as_ref() == Some(&dest)))
        });
        let Some(j) = other else { continue };
        let them = &planned[j];
        let shown_dest = match &mover.kind {
            Kind::Update {
                move_to: Some(d), ..
            } => d.clone(),
            _ => dest.clone(),
        };
        let (message, hint) = if them.dest.as_ref() == Some(&dest) && them.shown != dest {
            (
                format!(
                    "two sections of the patch move a file to {shown_dest}: {} and {}",
                    them.section, mover.section
                ),
                "give each moved file a destination of its own".to_string(),
            )
        } else {
            match &them.kind {
                Kind::Delete => (
                    format!(
                        "{} moves {} to {shown_dest}, which {} deletes: the moved file would be lost",
                        mover.section, mover.path, them.section
                    ),
                    format!(
                        "leave out the section that deletes {shown_dest}, since the move replaces \
                         it, or move to another path"
                    ),
                ),
                Kind::Add { .. } => (
                    format!(
                        "{} moves {} to {shown_dest}, which {} adds: both would write it",
                        mover.section, mover.path, them.section
                    ),
                    "add the file, or move the other one, under another path".to_string(),
                ),
                Kind::Update {
                    move_to: Some(_), ..
                } => (
                    format!(
                        "{} moves {} to {shown_dest}, which {} moves away: moves onto a path the \
                         same patch moves (a swap, or a chain of moves) are not made in one patch, \
                         since their order would decide what each file holds",
                        mover.section, mover.path, them.section
                    ),
                    "move one of the files to a new name in a patch of its own first, then send \
                     the rest"
                        .to_string(),
                ),
                Kind::Update { .. } => (
                    format!(
                        "{} moves {} to {shown_dest}, which {} changes: the move would replace the \
                         changed file",
                        mover.section, mover.path, them.section
                    ),
                    format!("move to another path, or leave out the changes to {shown_dest}"),
                ),
            }
        };
        let later = k.max(j);
        if planned[later].error.is_none() {
            let err = meeting(&shown_dest, message, [&planned[j.min(k)], &planned[later]])
                .with_hint(format!("{hint}; nothing was written"));
            planned[later].error = Some(err);
        }
    }
}

/// How the language of `path` indents where its files agree (Python: PEP 8's four spaces),
/// for a file with no indented line to follow yet.
fn indent_convention(path: &str) -> Option<filekit_patch::IndentConvention> {
    let ext = std::path::Path::new(path).extension()?.to_str()?;
    matches!(ext, "py" | "pyi").then_some(filekit_patch::IndentConvention::Spaces(4))
}

/// The splices as the engine's requests take them (a proposal the commit step checks again),
/// shifted by `shift` bytes (a BOM the placement did not see). This is the one place this
/// tool touches the pipeline's edit representation.
fn engine_splices(s: &Splices, shift: usize) -> Vec<filekit_core::splices::Splice> {
    s.iter()
        .map(|x| filekit_core::splices::Splice::new(x.start + shift, x.end + shift, x.text.clone()))
        .collect()
}

/// A patch's files as the engine's requests: adds and in-place updates as one edit request,
/// or, when the patch moves or deletes, everything as one request of file operations (with
/// the updates as its rewrites). Adds of such a request have their diffs made here.
struct Requests {
    diffs: Vec<(String, String)>,
    edits: Vec<FileEdits>,
    rewrites: Vec<Rewrite>,
    ops: Vec<fsops::FileOp>,
}

impl Requests {
    fn of(planned: &[Planned], needs_fs: bool) -> Requests {
        let mut diffs: Vec<(String, String)> = Vec::new();
        let mut edits = Vec::new();
        let mut rewrites = Vec::new();
        let mut ops = Vec::new();
        for p in planned {
            match &p.kind {
                // With moves or deletes, the adds join them in one request of file operations:
                // one all-or-nothing change, one history entry, one undo.
                Kind::Add { content, .. } if needs_fs => {
                    ops.push(fsops::FileOp::Create {
                        path: p.path.clone(),
                        content: content.clone().into_bytes(),
                        overwrite: true,
                    });
                    let (diff, _) = filekit_core::diff::unified_texts(
                        "",
                        content,
                        "/dev/null",
                        &format!("b/{}", p.path),
                    );
                    diffs.push((p.path.clone(), diff));
                }
                Kind::Add { content, .. } => edits.push(FileEdits {
                    path: p.path.clone(),
                    edits: vec![Edit::Create {
                        content: content.clone(),
                        overwrite: true,
                    }],
                    base_hash: None,
                }),
                Kind::Update {
                    move_to,
                    splices: Some(s),
                    hash,
                    bom,
                } => {
                    if needs_fs {
                        if !s.is_empty() {
                            rewrites.push(Rewrite {
                                path: p.path.clone(),
                                content_hash: hash.clone(),
                                splices: engine_splices(s, if *bom { 3 } else { 0 }),
                            });
                        }
                        if let Some(dest) = move_to {
                            ops.push(fsops::FileOp::Move {
                                from: p.path.clone(),
                                to: dest.clone(),
                                overwrite: true,
                            });
                        }
                    } else {
                        edits.push(FileEdits {
                            path: p.path.clone(),
                            edits: vec![Edit::Ranges {
                                ranges: engine_splices(s, 0),
                                content_hash: hash.clone(),
                            }],
                            base_hash: None,
                        });
                    }
                }
                Kind::Update { splices: None, .. } => {}
                Kind::Delete => ops.push(fsops::FileOp::Delete {
                    path: p.path.clone(),
                    recursive: false,
                }),
            }
        }
        Requests {
            diffs,
            edits,
            rewrites,
            ops,
        }
    }
}

/// What carrying out a patch's requests gave.
#[derive(Default)]
pub struct Carried {
    /// Each file's diff, by its path in the patch.
    pub diffs: Vec<(String, String)>,
    /// The diffs of importers rewritten for moved files: not files of the patch.
    pub extra_diffs: Vec<String>,
    pub errors: Vec<FkError>,
    pub entries: Vec<i64>,
    /// The import updates the patch's moves needed (its report taken out).
    pub imports: Option<Applied>,
}

impl Carried {
    /// Applies the edit request (adds and in-place updates); its history entry.
    fn apply_edits(
        &mut self,
        ws: &Workspace,
        control: Control,
        edits: Vec<FileEdits>,
        dry_run: bool,
        tool: Option<String>,
    ) -> Option<i64> {
        let report = pipeline::apply(
            ws,
            &EditRequest {
                files: edits,
                options: EditOptions::builder()
                    .dry_run(dry_run)
                    .atomic(true)
                    .control(control)
                    .tool(tool)
                    .build(),
            },
        );
        for f in &report.files {
            self.diffs.push((f.path.clone(), f.diff.clone()));
            let first_error = f
                .error()
                .or_else(|| f.edits.iter().find_map(|e| e.error.as_ref()));
            if let Some(e) = first_error {
                self.errors.push(e.clone());
            }
        }
        if !report.success() && self.errors.is_empty() {
            self.errors
                .push(FkError::new(ErrorCode::Io, "the patch was not applied"));
        }
        self.entries.extend(report.history_entry);
        report.history_entry
    }

    /// Applies the request of file operations (moves with their import updates, deletes,
    /// adds, and the updates as rewrites); when it fails, the edit request applied before it
    /// (`edit_entry`) is undone.
    fn apply_file_ops(
        &mut self,
        ws: &Workspace,
        planned: &[Planned],
        request: FsRequest,
        update_imports: bool,
        edit_entry: Option<i64>,
    ) {
        let dry_run = request.dry_run;
        let moves = request
            .ops
            .iter()
            .any(|o| matches!(o, fsops::FileOp::Move { .. }));
        // Moves go through the refactor layer, which adds the import updates they need to
        // the same atomic request; a patch that only deletes has none to make.
        let report = if moves && update_imports {
            let options = ops::Options {
                update_imports: true,
                remove_on_delete: false,
                renames: Default::default(),
            };
            match ops::apply_with(ws, request, &options) {
                Ok(mut applied) => {
                    let report = applied.report.take();
                    self.imports = Some(applied);
                    report
                }
                Err(e) => {
                    self.errors.push(e);
                    None
                }
            }
        } else {
            Some(fsops::apply(ws, &request))
        };
        let report = report.unwrap_or_else(|| fsops::FsReport {
            ops: Vec::new(),
            rewrites: Vec::new(),
            dry_run,
            atomic: true,
            rolled_back: false,
            history_entry: None,
        });
        for r in &report.rewrites {
            self.diffs.push((r.path.clone(), r.diff.clone()));
            if let Some(e) = &r.error {
                self.errors.push(e.clone());
            }
        }
        for o in &report.ops {
            if let Some(e) = &o.error {
                self.errors.push(e.clone());
            }
        }
        if !report.success() && self.errors.is_empty() {
            self.errors
                .push(FkError::new(ErrorCode::Io, "the patch was not applied"));
        }
        self.entries.extend(report.history_entry);
        // The rewrites of importers are not files of the patch: their diffs are shown too.
        for r in &report.rewrites {
            if !planned.iter().any(|p| p.path == r.path) {
                self.extra_diffs.push(r.diff.clone());
            }
        }
        // The adds went first; a failure of the rest takes them back.
        if !self.errors.is_empty()
            && let Some(id) = edit_entry
        {
            if let Err(e) = filekit_core::undo::undo(ws, Some(id), false, false) {
                self.errors.push(e);
            }
            self.entries.clear();
        }
    }
}
