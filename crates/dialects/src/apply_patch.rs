//! `apply_patch`: one tool for every edit format models emit (Codex's patch envelope, unified
//! diffs, SEARCH/REPLACE blocks), served in the curated table and, as Codex CLI's own tool, in
//! the `codex` table (one spec: a name never means two different tools).
//!
//! The patch is parsed and placed by `filekit-patch` and planned and carried out by the
//! refactor layer (`filekit_refactor::patch`: every file read and placed, sections that meet
//! at one path refused, the rest ONE atomic request with the import updates its moves need);
//! this module refuses the whole patch when anything cannot be placed (nothing written) and
//! words the reply. The reply text is Codex's applier's (`Success. Updated the following files:` / `A`, `M`, `D`), with a
//! line per hunk placed with tolerance, and its failures in its words plus the near miss.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::PartError;
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::nearmiss::Difference;
use filekit_core::{ErrorCode, FkError};
use filekit_patch::{FileOp, Format, HunkOutcome, HunkReport, Tolerance};
use filekit_refactor::patch::{self as patch_plan, Carried, Kind, Planned};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) fn tools(dialect: &'static str) -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "apply_patch",
        dialect,
        description: LISTED_DESCRIPTION,
        input_schema: &SCHEMA,
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
rename) updates the imports that name it, unless `update_imports` is false. A file in another \
encoding than UTF-8 (UTF-16 with its byte order mark, Latin-1, Shift_JIS, GB18030, EUC-KR, \
...) is found by its content, its hunks placed on its decoded text and written in it, every \
byte outside them kept; a character the encoding cannot hold is refused, and nothing is \
written. In the `codex` table, `encoding` is taken when it names UTF-8 (Codex ignores it, and \
reads and writes UTF-8); another is refused.
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
    let planned = patch_plan::plan(ws, &patch);
    let failed = planned
        .iter()
        .any(|p| p.error.is_some() || p.hunks.iter().any(|h| h.outcome == HunkOutcome::Refused));
    if failed {
        return Ok(refusal(ws, &patch, &planned, dry_run));
    }
    commit(ws, &patch, planned, dry_run, update_imports)
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
    let Carried {
        diffs,
        extra_diffs,
        errors,
        entries,
        imports,
    } = patch_plan::carry_out(
        ws,
        ws.control(),
        &planned,
        dry_run,
        update_imports,
        Some(ws.tool_name()),
    );
    let (imports, imports_updated) = match imports {
        Some(applied) => (crate::file_ops::imports_text(&applied), applied.files),
        None => (String::new(), Vec::new()),
    };
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
