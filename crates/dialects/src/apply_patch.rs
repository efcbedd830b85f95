//! `apply_patch`: one tool for every edit format models emit (Codex's patch envelope, unified
//! diffs, SEARCH/REPLACE blocks), served in the curated table and, as Codex CLI's own tool, in
//! the `codex` table (one spec: a name never means two different tools).
//!
//! The patch is parsed and placed by `filekit-patch`; this module reads the files through the
//! workspace, refuses the whole patch when anything cannot be placed (nothing written), and
//! commits the rest as ONE request: updates and adds through the pipeline (`Edit::Ranges` of
//! the placed splices, `Edit::Create`), or, when the patch deletes or moves files, through the
//! file operations (`fsops`: the updates as its rewrites, the adds as `FileOp::Create`, and the
//! import updates a move needs from the refactor layer), atomic either way, one history entry. The reply
//! text is Codex's applier's (`Success. Updated the following files:` / `A`, `M`, `D`), with a
//! line per hunk placed with tolerance, and its failures in its words plus the near miss.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::PartError;
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits};
use filekit_core::fsops::{self, FsRequest, Rewrite};
use filekit_core::nearmiss::Difference;
use filekit_core::text::TextDoc;
use filekit_core::{ErrorCode, FkError};
use filekit_patch::{FileOp, Format, HunkOutcome, HunkReport, Placement, Splices, Tolerance};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) fn tools(dialect: &'static str) -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "apply_patch",
        dialect,
        description: LISTED_DESCRIPTION,
        input_schema: SCHEMA.clone(),
        read_only: false,
        destructive: true,
        idempotent: false,
        run: apply_patch,
        reject,
        guide: DESCRIPTION,
        reply: crate::ReplySchema::Typed(crate::reply::schema::<PatchReply>),
    }]
}

pub(crate) fn reject(err: &FkError) -> Value {
    crate::reply::failure(err)
}

/// What both tables list (Codex's own tool is a patch and a grammar in fewer bytes than the
/// long form); the guide, on the documentation page, is [`DESCRIPTION`].
const LISTED_DESCRIPTION: &str = "\
Add, delete, move and change files with one patch, all or nothing. `input` is Codex's envelope (`*** Begin Patch`, `*** Update File: PATH`, `@@` hunks of ` `, `-` and `+` lines, `*** End Patch`), a unified diff, or SEARCH/REPLACE blocks (the path, `<<<<<<< SEARCH`, old lines, `=======`, new lines, `>>>>>>> REPLACE`). Give about 3 lines of context; line numbers are only hints. A hunk found nowhere is refused with the closest text. dry_run writes nothing.

Example: {\"input\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def main():\\n-    debug = True\\n+    debug = False\\n*** End Patch\"}";

const DESCRIPTION: &str = "\
Apply a patch to files: add, delete, move and change them in one call. `input` is the patch, \
in any of these formats (detected; `format` forces one):
- Codex's envelope: `*** Begin Patch`, then `*** Add File: PATH` (lines starting with +), \
`*** Delete File: PATH`, `*** Update File: PATH` (optionally `*** Move to: NEW`) with hunks: \
`@@` (optionally followed by a line the hunk comes after, e.g. `@@ def main():`), then lines \
starting with ` ` (context), `-` (removed), `+` (added); `*** End of File` after a hunk that \
ends the file; `*** End Patch` last.
- A unified diff, as `git diff` or `diff -u` write it (several files; /dev/null creates or \
deletes; renames).
- SEARCH/REPLACE blocks: the file's path on a line, then `<<<<<<< SEARCH`, the exact old \
lines, `=======`, the new lines, `>>>>>>> REPLACE` (Cline's `------- SEARCH` / `+++++++ \
REPLACE` and Roo Code's `:start_line:N` also work). An empty SEARCH creates the file.
Give about 3 lines of context around each change; line numbers in `@@ -12,5 +12,6 @@` are \
hints. A hunk is placed where its context and removed lines are, exactly or allowing for \
white space, indentation, tabs, typographic quotes and blank lines (the file keeps its own \
context lines). Hunks of the envelope and SEARCH blocks go in file order: one whose lines are \
in several places goes to the first after the hunk before it (the reply names the others). \
SEARCH blocks apply one after another, each to the text the blocks before it left, so a block \
may edit what an earlier one wrote. In a diff, a hunk whose line number names none of its \
places is refused with them, as is a hunk found nowhere (with the closest text), or one that \
a dropped or added blank line lets fit a second place, and then nothing is written. The patch \
is applied to all its files at once, or not at all; sections that meet at one path (two \
moves to one destination, a move onto a file the patch deletes, adds or changes, a swap) are \
refused, naming both. `dry_run` shows the diffs and writes nothing. Adding a \
file that exists replaces it (the reply says so). Moving a TS/JS/Python file (`*** Move to:`, a \
rename) updates the imports that name it, unless `update_imports` is false.
Example: {\"input\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def main():\\n-    \
debug = True\\n+    debug = False\\n*** End Patch\"}";

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The patch: a Codex `*** Begin Patch` envelope, a unified diff, or SEARCH/REPLACE blocks.
    input: String,
    /// The patch's format, when it should not be detected.
    format: Option<FormatArg>,
    /// Show the diffs; write nothing.
    dry_run: Option<bool>,
    /// When the patch moves a TypeScript, JavaScript or Python file, rewrite the imports that
    /// name it (and its own relative imports) in the same change. Default true.
    update_imports: Option<bool>,
}

#[derive(Deserialize, Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum FormatArg {
    V4a,
    Unified,
    SearchReplace,
}

static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);

/// What the patch does to one file, once checked against the workspace.
struct Planned {
    path: String,
    /// The file as resolved (absolute), to find a file named twice.
    shown: String,
    /// Where it moves, as resolved: checked against every other path of the patch.
    dest: Option<String>,
    /// The section of the patch, in its own words, for a refusal that names it.
    section: String,
    kind: Kind,
    hunks: Vec<HunkReport>,
    error: Option<FkError>,
}

enum Kind {
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
    fn letter(&self) -> &'static str {
        match self {
            Kind::Add { .. } => "A",
            Kind::Delete => "D",
            Kind::Update { .. } => "M",
        }
    }
}

fn apply_patch(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: Args = parse("apply_patch", &SCHEMA, args)?;
    apply(
        ws,
        &args.input,
        args.format.map(|f| match f {
            FormatArg::V4a => Format::V4a,
            FormatArg::Unified => Format::Unified,
            FormatArg::SearchReplace => Format::SearchReplace,
        }),
        args.dry_run.unwrap_or(false),
        args.update_imports.unwrap_or(true),
    )
}

/// `apply_patch` with its arguments parsed: `input` in `format` (detected when `None`).
pub(crate) fn apply(
    ws: &Call,
    input: &str,
    format: Option<Format>,
    dry_run: bool,
    update_imports: bool,
) -> Result<ToolReply, FkError> {
    let patch = filekit_patch::parse(input, format).map_err(|e| {
        let message = if e.line == 0 {
            format!("Invalid patch: {}", e.found)
        } else {
            format!(
                "Invalid patch hunk on line {}: found {:?}; expected {}",
                e.line, e.found, e.expected
            )
        };
        FkError::new(ErrorCode::ParseError, message)
            .with_hint("fix the patch at that line and send all of it again; nothing was written")
            .with_details(
                json!({"line": e.line, "found": e.found, "expected": e.expected,
                "format": e.format.map(Format::name)}),
            )
    })?;
    let planned = plan(ws, &patch);
    let failed = planned
        .iter()
        .any(|p| p.error.is_some() || p.hunks.iter().any(|h| h.outcome == HunkOutcome::Refused));
    if failed {
        return Ok(refusal(ws, &patch, &planned, dry_run));
    }
    commit(ws, &patch, planned, dry_run, update_imports)
}

/// Reads and places every file of the patch; nothing is written.
fn plan(ws: &Call, patch: &filekit_patch::Patch) -> Vec<Planned> {
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

/// What apply_patch answers: every file of the patch with each hunk's outcome. A patch that
/// cannot be applied whole answers with `success: false`, the error fields and the same files,
/// and writes nothing.
#[derive(Serialize, JsonSchema)]
pub(crate) struct PatchReply {
    /// True when the whole patch was applied (or, in a dry run, would be).
    success: bool,
    /// The patch's format, as detected or given.
    format: FormatArg,
    dry_run: bool,
    /// One entry per file of the patch, in order.
    files: Vec<PatchedFile>,
    /// Files whose imports were rewritten because the patch moved a file: its importers, and
    /// the moved file for its own relative imports.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    imports_updated: Vec<ImportsUpdated>,
    /// The history entry that records the change: `undo` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history_entry: Option<i64>,
    /// Why the patch was not applied (every problem), and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'static str>,
}

/// What the patch does to one file.
#[derive(Serialize, JsonSchema)]
struct PatchedFile {
    /// The path as the patch names it.
    path: String,
    /// The file the path resolved to, relative to the first root (absolute in another root).
    resolved_path: String,
    op: FileOpName,
    /// Where the file is moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    move_to: Option<String>,
    /// An added file replaced one that existed (the history keeps its old content).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    replaced_existing: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hunks: Vec<Hunk>,
    /// Unified diff of the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// Why the diff was cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_note: Option<String>,
    /// Why this file cannot be patched.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<PartError>,
}

#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum FileOpName {
    Add,
    Delete,
    Update,
    UpdateMove,
}

/// What became of one hunk.
#[derive(Serialize, JsonSchema)]
struct Hunk {
    /// The hunk's number in its file's part of the patch, from 1.
    hunk: usize,
    /// The line of the patch where the hunk starts.
    patch_line: usize,
    /// Placed exactly, placed with the tolerances listed, or refused (see reason).
    outcome: OutcomeName,
    /// What the hunk's old lines were allowed to differ by (line_hint: its line number was
    /// off; first_in_order: its lines are in several places, listed in candidates, and it went
    /// to the first after the hunk before it, as its format orders hunks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tolerances: Vec<ToleranceName>,
    /// The line where the hunk was placed: of the file as it was, or for SEARCH/REPLACE
    /// blocks (applied one after another) of the text the blocks before it left.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    /// Why the hunk was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The lines where a hunk matches in several places: a refused one, or one placed at the
    /// first (first_in_order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    candidates: Vec<usize>,
    /// The closest text to a hunk found nowhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    near_miss: Option<HunkNearMiss>,
    /// The bound a hunk was refused at: the comparisons placing a file's hunks may take.
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<crate::filekit::LimitJson>,
}

#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum OutcomeName {
    Exact,
    Tolerated,
    Refused,
}

#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum ToleranceName {
    TrailingWhitespace,
    Indentation,
    TabsSpaces,
    Punctuation,
    BlankLines,
    LineHint,
    FirstInOrder,
}

#[derive(Serialize, JsonSchema)]
struct HunkNearMiss {
    line: usize,
    end_line: usize,
    similarity: f64,
    difference: DifferenceName,
    /// The closest text in the file.
    text: String,
    /// Character diff from the patch to the file: [-removed-] and {+added+}.
    diff: String,
}

#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum DifferenceName {
    LineEndings,
    Whitespace,
    Text,
}

#[derive(Serialize, JsonSchema)]
struct ImportsUpdated {
    file: String,
    /// Where the file itself moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_to: Option<String>,
    changes: Vec<SpecifierChange>,
}

#[derive(Serialize, JsonSchema)]
struct SpecifierChange {
    old: String,
    new: String,
    line: usize,
}

impl ImportsUpdated {
    fn of(f: &filekit_refactor::import_rewrites::FileChanges) -> ImportsUpdated {
        ImportsUpdated {
            file: f.file.clone(),
            moved_to: f.moved_to.clone(),
            changes: f
                .changes
                .iter()
                .map(|c| SpecifierChange {
                    old: c.old.clone(),
                    new: c.new.clone(),
                    line: c.line,
                })
                .collect(),
        }
    }
}

impl Hunk {
    fn of(h: &HunkReport) -> Hunk {
        Hunk {
            hunk: h.hunk,
            patch_line: h.patch_line,
            outcome: match h.outcome {
                HunkOutcome::Exact => OutcomeName::Exact,
                HunkOutcome::Tolerated => OutcomeName::Tolerated,
                HunkOutcome::Refused => OutcomeName::Refused,
            },
            tolerances: h
                .tolerances
                .iter()
                .map(|t| match t {
                    Tolerance::TrailingWhitespace => ToleranceName::TrailingWhitespace,
                    Tolerance::Indentation => ToleranceName::Indentation,
                    Tolerance::TabsSpaces => ToleranceName::TabsSpaces,
                    Tolerance::Punctuation => ToleranceName::Punctuation,
                    Tolerance::BlankLines => ToleranceName::BlankLines,
                    Tolerance::LineHint => ToleranceName::LineHint,
                    Tolerance::FirstInOrder => ToleranceName::FirstInOrder,
                })
                .collect(),
            line: h.line,
            reason: h.reason.clone(),
            candidates: h.candidates.clone(),
            // The placer names the closest text `found`; in this reply `found` is always a
            // count (the size a bound was met at), so the text is `text`.
            near_miss: h.near_miss.as_ref().map(|nm| HunkNearMiss {
                line: nm.line,
                end_line: nm.end_line,
                similarity: nm.similarity,
                difference: match nm.difference {
                    Difference::LineEndings => DifferenceName::LineEndings,
                    Difference::Whitespace => DifferenceName::Whitespace,
                    Difference::Text => DifferenceName::Text,
                },
                text: nm.found.clone(),
                diff: nm.diff.clone(),
            }),
            limit: h.limit.as_ref().map(crate::filekit::LimitJson::of),
        }
    }
}

impl PatchedFile {
    fn of(ws: &Call, p: &Planned) -> PatchedFile {
        PatchedFile {
            path: p.path.clone(),
            resolved_path: shape::shown_path(ws, &p.shown),
            op: match &p.kind {
                Kind::Add { .. } => FileOpName::Add,
                Kind::Delete => FileOpName::Delete,
                Kind::Update {
                    move_to: Some(_), ..
                } => FileOpName::UpdateMove,
                Kind::Update { .. } => FileOpName::Update,
            },
            move_to: match &p.kind {
                Kind::Update { move_to, .. } => move_to.clone(),
                _ => None,
            },
            replaced_existing: matches!(p.kind, Kind::Add { replaces: true, .. }),
            hunks: p.hunks.iter().map(Hunk::of).collect(),
            diff: None,
            diff_note: None,
            failure: p.error.as_ref().map(PartError::of),
        }
    }
}

impl From<Format> for FormatArg {
    fn from(f: Format) -> FormatArg {
        match f {
            Format::V4a => FormatArg::V4a,
            Format::Unified => FormatArg::Unified,
            Format::SearchReplace => FormatArg::SearchReplace,
        }
    }
}

/// The reply when something cannot be applied: every problem, in Codex's words first, and
/// nothing written.
fn refusal(
    ws: &Call,
    patch: &filekit_patch::Patch,
    planned: &[Planned],
    dry_run: bool,
) -> ToolReply {
    let mut text = String::new();
    let mut first_code: Option<&'static str> = None;
    for p in planned {
        if let Some(e) = &p.error {
            first_code.get_or_insert(e.code.as_str());
            text.push_str(&e.full_message());
            text.push('\n');
        }
        let FileOp::Update { hunks, .. } = &patch.files[planned_index(planned, p)].op else {
            continue;
        };
        for h in p.hunks.iter().filter(|h| h.outcome == HunkOutcome::Refused) {
            let ambiguous = !h.candidates.is_empty();
            first_code.get_or_insert(if h.limit.is_some() {
                "TOO_LARGE"
            } else if ambiguous {
                "AMBIGUOUS"
            } else {
                "NOT_FOUND"
            });
            let old = hunks[h.hunk - 1].old_lines().join("\n");
            if h.limit.is_some() {
                text.push_str(&format!(
                    "Hunk {} (patch line {}) of {} was not placed: checking where its lines fit \
                     took more work than a patch may take.\n",
                    h.hunk, h.patch_line, p.path
                ));
            } else if ambiguous {
                text.push_str(&format!(
                    "Hunk {} (patch line {}) matches more than one place in {}:\n{}\n",
                    h.hunk, h.patch_line, p.path, old
                ));
            } else {
                text.push_str(&format!(
                    "Failed to find expected lines in {}:\n{}\n",
                    p.path, old
                ));
            }
            if let Some(r) = &h.reason {
                text.push_str(&format!(
                    "(hunk {}, patch line {}: {r})\n",
                    h.hunk, h.patch_line
                ));
            }
            if let Some(nm) = &h.near_miss {
                text.push_str(&format!(
                    "The closest text is at line {} (similarity {:.2}); differences marked [-patch-]{{+file+}}:\n{}\n",
                    nm.line, nm.similarity, nm.diff
                ));
            }
        }
    }
    text.push_str("Nothing was written: fix the patch and send all of it again.\n");
    let value = PatchReply {
        success: false,
        format: patch.format.into(),
        dry_run,
        files: planned.iter().map(|p| PatchedFile::of(ws, p)).collect(),
        imports_updated: Vec::new(),
        history_entry: None,
        error: Some(text.trim_end().to_string()),
        error_code: Some(first_code.unwrap_or("INVALID_ARGUMENT")),
    };
    ToolReply::typed(&value, true, text)
}

fn planned_index(planned: &[Planned], p: &Planned) -> usize {
    planned
        .iter()
        .position(|q| std::ptr::eq(q, p))
        .unwrap_or_default()
}

fn commit(
    ws: &Call,
    patch: &filekit_patch::Patch,
    planned: Vec<Planned>,
    dry_run: bool,
    update_imports: bool,
) -> Result<ToolReply, FkError> {
    let tool = Some(ws.tool_name());
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
    } = Requests::of(&planned, needs_fs);
    let mut carried = Carried {
        diffs,
        ..Carried::default()
    };
    let edit_entry = if edits.is_empty() {
        None
    } else {
        carried.apply_edits(ws, edits, dry_run, tool.clone())
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
        carried.apply_file_ops(ws, &planned, request, update_imports, edit_entry);
    }
    let Carried {
        diffs,
        extra_diffs,
        errors,
        entries,
        imports,
        imports_updated,
    } = carried;
    let files: Vec<PatchedFile> = planned
        .iter()
        .map(|p| {
            let mut f = PatchedFile::of(ws, p);
            if let Some((_, d)) = diffs.iter().find(|(path, _)| *path == p.path) {
                let (d, note) = shape::capped_diff(d);
                f.diff = Some(d.to_string());
                f.diff_note = note;
            }
            f
        })
        .collect();
    if !errors.is_empty() {
        let mut text = String::new();
        for e in &errors {
            text.push_str(&e.full_message());
            text.push('\n');
        }
        text.push_str("Nothing was written: fix the patch and send all of it again.\n");
        let value = PatchReply {
            success: false,
            format: patch.format.into(),
            dry_run,
            files,
            imports_updated: Vec::new(),
            history_entry: None,
            error: Some(text.trim_end().to_string()),
            error_code: Some(errors[0].code.as_str()),
        };
        return Ok(ToolReply::typed(&value, true, text));
    }
    let mut text = String::new();
    if dry_run {
        text.push_str(
            "Dry run: nothing was written. The patch would update the following files:\n",
        );
    } else {
        text.push_str("Success. Updated the following files:\n");
    }
    for p in &planned {
        let path = match &p.kind {
            Kind::Update {
                move_to: Some(d), ..
            } => d.as_str(),
            _ => p.path.as_str(),
        };
        text.push_str(&format!("{} {}\n", p.kind.letter(), path));
    }
    for p in &planned {
        placement_notes(p, &mut text);
    }
    for line in imports.lines().filter(|l| !l.is_empty()) {
        match line.strip_prefix("; ") {
            Some(said) => text.push_str(&format!("Note: {said}.\n")),
            None => text.push_str(&format!("{line}\n")),
        }
    }
    if dry_run {
        for d in diffs.iter().map(|(_, d)| d).chain(&extra_diffs) {
            text.push_str(d);
        }
    }
    let value = PatchReply {
        success: true,
        format: patch.format.into(),
        dry_run,
        files,
        imports_updated: imports_updated.iter().map(ImportsUpdated::of).collect(),
        history_entry: entries.first().copied(),
        error: None,
        error_code: None,
    };
    Ok(ToolReply::typed(&value, false, text))
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
struct Carried {
    /// Each file's diff, by its path in the patch.
    diffs: Vec<(String, String)>,
    /// The diffs of importers rewritten for moved files: not files of the patch.
    extra_diffs: Vec<String>,
    errors: Vec<FkError>,
    entries: Vec<i64>,
    /// The import updates, worded, and per file.
    imports: String,
    imports_updated: Vec<filekit_refactor::import_rewrites::FileChanges>,
}

impl Carried {
    /// Applies the edit request (adds and in-place updates); its history entry.
    fn apply_edits(
        &mut self,
        ws: &Call,
        edits: Vec<FileEdits>,
        dry_run: bool,
        tool: Option<String>,
    ) -> Option<i64> {
        let report = ws.apply(EditRequest {
            files: edits,
            options: EditOptions::builder()
                .dry_run(dry_run)
                .atomic(true)
                .tool(tool)
                .build(),
        });
        for f in &report.files {
            self.diffs.push((f.path.clone(), f.diff.clone()));
            if let Some(e) = shape::first_error(f) {
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
        ws: &Call,
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
            let options = filekit_refactor::ops::Options {
                update_imports: true,
                remove_on_delete: false,
                renames: Default::default(),
            };
            match filekit_refactor::ops::apply_with(ws, request, &options) {
                Ok(mut applied) => {
                    self.imports = crate::file_ops::imports_text(&applied);
                    self.imports_updated = std::mem::take(&mut applied.files);
                    applied.report.take()
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

/// The notes on where `p`'s hunks were placed: the first of several places, or with a
/// tolerance.
fn placement_notes(p: &Planned, text: &mut String) {
    if let Kind::Add { replaces: true, .. } = p.kind {
        text.push_str(&format!(
            "Note: {} existed and was replaced (the history keeps its old content).\n",
            p.path
        ));
    }
    for h in &p.hunks {
        if h.tolerances.contains(&Tolerance::FirstInOrder) {
            let places: Vec<String> = h.candidates.iter().map(|l| l.to_string()).collect();
            text.push_str(&format!(
                "Note: {} hunk {} matches at lines {}: it was placed at the first, line {}, \
                 as this format orders hunks; if another was meant, undo and give more \
                 context lines.\n",
                p.path,
                h.hunk,
                places.join(", "),
                h.line.unwrap_or_default(),
            ));
        }
        let others: Vec<Tolerance> = h
            .tolerances
            .iter()
            .copied()
            .filter(|t| *t != Tolerance::FirstInOrder)
            .collect();
        if h.outcome == HunkOutcome::Tolerated && !others.is_empty() {
            let how: Vec<&str> = others.iter().map(|t| Tolerance::name(*t)).collect();
            text.push_str(&format!(
                "Note: {} hunk {} was placed at line {} allowing for {}.\n",
                p.path,
                h.hunk,
                h.line.unwrap_or_default(),
                how.join(", ")
            ));
        }
    }
}
