//! The `desktop-commander` dialect (Desktop Commander's editing tools): `edit_block`, `batch_edit_blocks`
//! and `write_from_line`, with Desktop Commander's argument names (camelCase in the ADR's
//! tools, snake_case in edit_block) and the ADR's result shapes.

use crate::Call;
use crate::args::{parse, schema_for};
use crate::reply::{self, CamelFailure, CamelPartError, Details};
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected};
use filekit_core::text::{LineIndex, split_new_lines};
use filekit_core::{Fact, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "edit_block",
            dialect: "desktop-commander",
            description: EDIT_BLOCK_DESCRIPTION,
            input_schema: &EDIT_BLOCK_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: edit_block,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(|form| {
                reply::schema_failing::<EditBlockReply, Failed>(form)
            }),
        },
        ToolSpec {
            name: "batch_edit_blocks",
            dialect: "desktop-commander",
            description: BATCH_DESCRIPTION,
            input_schema: &BATCH_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: false,
            run: batch_edit_blocks,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(|form| {
                reply::schema_failing::<BatchReply, Failed>(form)
            }),
        },
        ToolSpec {
            name: "write_from_line",
            dialect: "desktop-commander",
            description: WRITE_FROM_LINE_DESCRIPTION,
            input_schema: &WRITE_FROM_LINE_SCHEMA,
            read_only: false,
            destructive: true,
            idempotent: true,
            run: write_from_line,
            reject,
            guide: "",
            reply: crate::ReplySchema::Typed(|form| {
                reply::schema_failing::<WriteFromLineReply, Failed>(form)
            }),
        },
    ]
}

/// A failed call of the table's tools: the error's text as `message`, beside its fields.
#[derive(Serialize, JsonSchema)]
struct Failed {
    /// What went wrong.
    message: String,
    #[serde(flatten)]
    failure: CamelFailure,
}

impl Failed {
    fn of(err: &FkError) -> Failed {
        Failed {
            message: err.full_message(),
            failure: CamelFailure::of(err),
        }
    }
}

fn reject(err: &FkError) -> Value {
    reply::to_value(&Failed::of(err))
}

/// What edit_block answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EditBlockReply {
    success: bool,
    /// What was done, in Desktop Commander's words.
    message: String,
    /// How many occurrences were replaced.
    replacements: usize,
    /// The change as a unified diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// The file's version after the edit: give it to the next edit to refuse it if the file
    /// changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
}

/// What batch_edit_blocks answers: its design defines the result as this object, which is
/// also the text the model reads.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BatchReply {
    /// True when every edit applied.
    success: bool,
    total_edits: usize,
    successful_edits: usize,
    failed_edits: usize,
    /// Edits not tried because an earlier one failed with `stopOnError`.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped_edits: Option<usize>,
    /// One result per edit, in the order given.
    results: Vec<BatchEditResult>,
    /// The whole change as a unified diff, capped for a model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    final_diff: Option<String>,
    /// What the cap left out of `finalDiff`.
    #[serde(skip_serializing_if = "Option::is_none")]
    final_diff_truncated: Option<String>,
    /// The file's version after the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    /// True for a dry run: nothing was written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// The file's own failure (missing, binary, ...): none of its edits applied.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    error: Option<CamelPartError>,
}

/// One edit of a batch_edit_blocks call.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BatchEditResult {
    /// The edit's place in the list, from 0.
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    success: bool,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// The line the edit starts at, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    /// How close the fuzzy match was, when the edit was placed by one.
    #[serde(skip_serializing_if = "Option::is_none")]
    fuzzy_similarity: Option<f64>,
    /// True when it was not tried (an earlier edit failed with `stopOnError`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    skipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Details>,
}

/// What write_from_line answers: its design defines the result as this object, which is also
/// the text the model reads.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WriteFromLineReply {
    success: bool,
    message: String,
    /// Lines of the file replaced.
    lines_replaced: i64,
    /// Lines written in their place.
    new_line_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
}

/// A failed write_from_line: nothing replaced.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WriteFromLineFailed {
    message: String,
    lines_replaced: usize,
    new_line_count: usize,
    #[serde(flatten)]
    failure: CamelFailure,
}

// ---------------------------------------------------------------------------------------------
// edit_block

const EDIT_BLOCK_DESCRIPTION: &str = "\
Replace one block of text in a file: `old_string` must occur exactly \
`expected_replacements` times (default 1), and every occurrence is replaced by `new_string`. \
Include enough surrounding lines to make the block unique. If it is not found, the reply \
shows the closest text in the file (line, similarity, and a character diff of what you sent \
against what is there) so you can fix the edit, also when it is below the 70% similarity \
threshold; if it occurs more often than expected, the lines where. For many edits to one \
file use batch_edit_blocks. `range`, `content` and `options` (Desktop Commander's range \
rewrite of spreadsheets) are accepted and ignored when empty; filekit edits text, so a \
`range` with `content` is refused. `origin` is accepted and not used. An argument edit_block \
does not take is refused with the closest valid name, and nothing is written (Desktop \
Commander drops unknown arguments silently; filekit refuses them, deliberately: an ignored \
`expectedReplacements` would replace fewer places than meant).

Example: {\"file_path\": \"src/config.ts\", \"old_string\": \"debug: false\", \"new_string\": \
\"debug: true\"}";

#[derive(Deserialize, JsonSchema)]
struct EditBlockArgs {
    /// The file to edit.
    file_path: String,
    /// The exact text to find.
    old_string: String,
    /// The text to put in its place.
    new_string: String,
    /// How many times old_string must occur; all of them are replaced.
    #[schemars(extend("default" = 1), range(min = 1))]
    expected_replacements: Option<usize>,
    /// Desktop Commander's range rewrite of a spreadsheet ("Sheet1!A1:C10"). Ignored when
    /// empty; filekit edits text files only, so a range with content is refused.
    range: Option<String>,
    /// The new cells of a range rewrite (with `range`). Ignored when empty.
    #[schemars(extend("anyOf" = [
        {"type": "string"},
        {"type": "array"},
        {"type": "object", "additionalProperties": true},
        {"type": "number"},
        {"type": "boolean"}
    ]))]
    content: Option<Value>,
    /// Options of a range rewrite (with `range`). Ignored.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    options: Option<serde_json::Map<String, Value>>,
    /// Who made the call: `llm` or `ui` (Desktop Commander's file preview). Accepted and not
    /// used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    origin: Option<Origin>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Origin {
    Ui,
    Llm,
}

/// Desktop Commander's fuzzy threshold: at or above it, a near miss is "a similar text";
/// below it, "only N% similarity, which is below the 70% threshold".
const FUZZY_THRESHOLD: f64 = 0.7;

static EDIT_BLOCK_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditBlockArgs>);

fn edit_block(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: EditBlockArgs = parse("edit_block", &EDIT_BLOCK_SCHEMA, args)?;
    let given = |v: &Option<Value>| v.as_ref().is_some_and(|v| !v.is_null() && v != "");
    if args.range.as_deref().is_some_and(|r| !r.is_empty()) && given(&args.content) {
        return Err(FkError::invalid(format!(
            "edit_block: range-based editing is not supported for {}: filekit edits text files",
            args.file_path
        ))
        .with_hint(
            "use old_string and new_string; if your client must send range and content, send \
             them as empty strings",
        ));
    }
    let expected = args.expected_replacements.unwrap_or(1);
    let replace = args.new_string.clone();
    let request = EditRequest::one_file(
        args.file_path.clone(),
        vec![Edit::ReplaceText {
            old: args.old_string.clone(),
            new: args.new_string,
            expected: Expected::Exactly(expected),
            label: None,
        }],
        EditOptions::default(),
    );
    let report = ws.apply(request);
    let f = &report.files[0];
    let Some(err) = shape::first_error(f) else {
        let o = &f.edits[0];
        let message = format!(
            "Successfully applied edit to {}: {}",
            f.path,
            shape::outcome_message(o, false)
        );
        let hash = shape::current_hash(f);
        let value = EditBlockReply {
            success: true,
            message,
            replacements: o.replacements,
            diff: (!f.diff.is_empty()).then(|| f.diff.clone()),
            content_hash: hash.clone(),
        };
        // Desktop Commander's words: the edited region of the file as it is now.
        let mut text = preview(
            f.new_text.as_deref().unwrap_or(""),
            o.line.unwrap_or(1),
            &replace,
        );
        if let Some(h) = hash {
            text.push_str(&format!(
                "\n\n[{} replacement{}; contentHash {h}]",
                o.replacements,
                if o.replacements == 1 { "" } else { "s" }
            ));
        }
        return Ok(ToolReply::typed(&value, false, text));
    };
    // A failure of the edit (not of the file) is told in Desktop Commander's words; the
    // engine's facts stay in `details`.
    let err = if f.error().is_none() {
        in_dc_words(err, &args.file_path, &args.old_string)
    } else {
        err.clone()
    };
    let value = Failed::of(&err);
    // Desktop Commander's error responses: "Error: <message>"; its own search results
    // (not found, count) are its message as it is.
    let text = if f.error().is_some() {
        format!("Error: {}", err.full_message())
    } else {
        err.full_message()
    };
    Ok(ToolReply::typed(&value, true, text))
}

/// What Desktop Commander answers after an edit: the new file's lines from ten before the
/// edit to ten after it, under a status line (its `performSearchReplace`; `line` is where
/// the edit starts, 1-based; its counts are those of JavaScript's `split('\n')`).
fn preview(new_text: &str, line: usize, replace: &str) -> String {
    let lines: Vec<&str> = new_text.split('\n').collect();
    let total = lines.len();
    let start = line.saturating_sub(1).min(total);
    let from = start.saturating_sub(10);
    let to = total
        .min(start + replace.split('\n').count() + 10)
        .max(from);
    format!(
        "[Reading {} lines from {} (total: {total} lines, {} remaining)]\n\n{}",
        to - from,
        if from == 0 {
            "start".to_string()
        } else {
            format!("line {from}")
        },
        total - to,
        lines[from..to].join("\n")
    )
}

/// How edit_block names what an edit is about (for the failures Desktop Commander has no
/// words of its own for).
const EDIT_BLOCK_WORDS: shape::Words = shape::Words {
    search: "old_string",
    expect: Some("set `expected_replacements` to {n}"),
    empty: "put the exact text to replace in old_string, with enough surrounding lines to be unique",
    lines: shape::NO_LINES,
    exists: None,
};

/// How batch_edit_blocks names them.
const BATCH_WORDS: shape::Words = shape::Words {
    search: "search",
    expect: Some("set that edit's `expectedReplacements` to {n}"),
    empty: "put the exact text to replace in `search`, with enough surrounding lines to be unique",
    lines: shape::NO_LINES,
    exists: None,
};

/// How write_from_line names its arguments.
const FROM_LINE_WORDS: shape::Words = shape::Words {
    search: "content",
    expect: None,
    empty: "give `content`",
    lines: ["startLine", "endLine", "startLine", "contentHash"],
    exists: None,
};

/// A failed search told as Desktop Commander tells it (its `performSearchReplace`): an
/// empty search text; a count other than `expected_replacements`; a text not found, with
/// the closest match and its similarity, above its threshold ("found a similar text") or
/// below it ("only N% similarity, which is below the 70% threshold"). The facts stay in
/// `details`.
fn in_dc_words(err: &FkError, path: &str, search: &str) -> FkError {
    let mut out = err.clone();
    match err.fact() {
        Some(Fact::SearchTextEmpty) => {
            out.message = "Empty search strings are not allowed. Please provide a non-empty \
                           string to search for."
                .to_string();
            out.hint = Some(EDIT_BLOCK_WORDS.empty.to_string());
            return out;
        }
        Some(Fact::MatchCount) => {
            let count = err.details["count"].as_u64().unwrap_or(0);
            let want = err.details["expected"].as_u64().unwrap_or(1);
            let lines: Vec<String> = err.details["lines"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| l.to_string())
                .collect();
            out.message = format!(
                "Expected {want} occurrences but found {count} in {path} (at lines {}{}). \
                 Double check and make sure you understand all occurrences and if you want to \
                 replace all {count} occurrences, set expected_replacements to {count}.",
                lines.join(", "),
                if (lines.len() as u64) < count {
                    ", ..."
                } else {
                    ""
                }
            );
            out.hint = Some(
                "If there are many occurrences and you want to change some of them and keep the \
                 rest, do it one by one, by adding more lines around each occurrence. If you want \
                 to replace a specific occurrence, make old_string more unique by adding more \
                 lines around it."
                    .to_string(),
            );
            return out;
        }
        Some(Fact::SearchTextNotFound) => {}
        _ => return shape::in_words(err, path, &EDIT_BLOCK_WORDS),
    }
    let Some(near) = err.details.get("near_miss").filter(|n| !n.is_null()) else {
        out.message =
            format!("Search content not found in {path}, and no text in the file is close to it");
        out.hint =
            Some("read the file again and copy the text exactly, with its indentation".into());
        return out;
    };
    let similarity = near["similarity"].as_f64().unwrap_or(0.0);
    let percent = (similarity * 100.0).round();
    let line = near["line"].as_u64().unwrap_or(0);
    let found = near["found"].as_str().unwrap_or("");
    if similarity >= FUZZY_THRESHOLD {
        // Desktop Commander's notation (its highlightDifferences); the engine's own
        // character diff stays in details.near_miss.diff.
        let diff = dc_differences(search, found);
        out.message = format!(
            "Exact match not found, but found a similar text with {percent}% similarity at \
             line {line} of {path}: {found:?}\n\nDifferences:\n{diff}"
        );
        out.hint =
            Some("to replace this text, use the exact text found in the file as old_string".into());
    } else {
        out.message = format!(
            "Search content not found in {path}. The closest match was {found:?} (line {line}) \
             with only {percent}% similarity, which is below the {}% threshold",
            (FUZZY_THRESHOLD * 100.0).round()
        );
        out.hint =
            Some("read the file again and copy the text exactly, with its indentation".into());
    }
    out
}

/// The difference of the search text and the text found as Desktop Commander shows it (its
/// `highlightDifferences`): the common prefix, `{-what only the search has-}{+what only the
/// file has+}`, the common suffix.
fn dc_differences(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<char>, Vec<char>) = (expected.chars().collect(), actual.chars().collect());
    let min = e.len().min(a.len());
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(min - prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let text = |c: &[char]| c.iter().collect::<String>();
    format!(
        "{}{{-{}-}}{{+{}+}}{}",
        text(&e[..prefix]),
        text(&e[prefix..e.len() - suffix]),
        text(&a[prefix..a.len() - suffix]),
        text(&e[e.len() - suffix..])
    )
}

// ---------------------------------------------------------------------------------------------
// batch_edit_blocks

const BATCH_DESCRIPTION: &str = "\
Apply many search/replace edits to ONE file in one call (hundreds are fine). The edits apply \
in order, each to the result of the one before; each `search` must occur exactly \
`expectedReplacements` times (default 1). A failed edit is reported and the others still \
apply (`stopOnError: true` stops at the first failure and keeps the edits before it); the \
file is written once at the end if any edit succeeded. `dryRun: true` previews without \
writing. `fuzzyThreshold` (0..1) lets an edit whose search text is not found exactly apply \
to its closest near miss when the similarity is at least that much; without it, only exact \
matches apply and a near miss is only reported. `label` names an edit in the results. The \
reply has a result per edit (with its line, and its own diff when the batch has at most 100 \
edits) and the cumulative finalDiff (cut after 128 KiB at a hunk boundary, with \
finalDiffTruncated saying what was left out).

Example: {\"path\": \"docs/spells.md\", \"edits\": [{\"label\": \"Detect Magic\", \"search\": \
\"Detect Magic\\nLevel 1 Divination\", \"replace\": \"### Detect Magic\\n\\n**Level 1 Divination**\"}], \
\"stopOnError\": false}";

#[derive(Deserialize, JsonSchema)]
struct BlockEdit {
    /// The exact text to find (in the file as the edits before this one left it).
    search: String,
    /// The text to put in its place.
    replace: String,
    /// A name for this edit in the results (for example the section it changes).
    label: Option<String>,
    /// How many times `search` must occur; all of them are replaced.
    #[serde(rename = "expectedReplacements")]
    #[schemars(extend("default" = 1), range(min = 1))]
    expected_replacements: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
struct BatchArgs {
    /// The one file to edit.
    path: String,
    /// The edits, applied in order.
    edits: Vec<BlockEdit>,
    /// Stop at the first failed edit; the edits before it are kept and written.
    #[serde(rename = "stopOnError")]
    #[schemars(extend("default" = false))]
    stop_on_error: Option<bool>,
    /// Preview the results and diffs without writing the file.
    #[serde(rename = "dryRun")]
    #[schemars(extend("default" = false))]
    dry_run: Option<bool>,
    /// Let an edit apply to its closest near miss when the similarity (0..1) is at least this
    /// much. Leave it out for exact matches only.
    #[serde(rename = "fuzzyThreshold")]
    #[schemars(range(min = 0.0, max = 1.0))]
    fuzzy_threshold: Option<f64>,
}

static BATCH_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<BatchArgs>);

fn batch_edit_blocks(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: BatchArgs = parse("batch_edit_blocks", &BATCH_SCHEMA, args)?;
    if args.edits.is_empty() {
        return Err(FkError::invalid("batch_edit_blocks: `edits` is empty")
            .with_hint("give at least one {search, replace}"));
    }
    if let Some(t) = args.fuzzy_threshold
        && !(0.0..=1.0).contains(&t)
    {
        return Err(FkError::invalid(format!(
            "batch_edit_blocks: argument `fuzzyThreshold` is {t}; it must be between 0 and 1"
        ))
        .with_hint("0.9 accepts near misses that differ by about a tenth; leave it out for exact matches only"));
    }
    let total = args.edits.len();
    let dry_run = args.dry_run.unwrap_or(false);
    let request = EditRequest::one_file(
        args.path,
        args.edits
            .into_iter()
            .map(|e| Edit::ReplaceText {
                old: e.search,
                new: e.replace,
                expected: Expected::Exactly(e.expected_replacements.unwrap_or(1)),
                label: e.label,
            })
            .collect(),
        EditOptions::builder()
            .dry_run(dry_run)
            .stop_on_error(args.stop_on_error.unwrap_or(false))
            // DESIGN: fuzzy matching applies only when the caller asks for it.
            .fuzzy_threshold(args.fuzzy_threshold)
            // The final diff shows every change; a diff per edit helps only while they are few.
            .per_edit_diffs(total <= shape::MAX_PER_EDIT_DIFFS)
            .atomic(false)
            .build(),
    );
    let mut report = ws.apply(request);
    shape::word_report(&mut report, &BATCH_WORDS);
    let f = &report.files[0];
    let results: Vec<BatchEditResult> = f
        .edits
        .iter()
        .map(|o| BatchEditResult {
            index: o.index,
            label: o.label.clone(),
            success: o.success,
            message: shape::outcome_message(o, dry_run),
            diff: o.diff.clone().filter(|d| !d.is_empty()),
            line: o.line,
            fuzzy_similarity: o.fuzzy_similarity,
            skipped: o.skipped,
            error_code: o.error.as_ref().map(|e| e.code.as_str()),
            details: o
                .error
                .as_ref()
                .filter(|e| !e.details.is_null())
                .map(|e| Details::of(&e.details)),
        })
        .collect();
    let successful = f.edits.iter().filter(|o| o.success).count();
    let skipped = f.edits.iter().filter(|o| o.skipped).count();
    // A file that failed as a whole (missing, binary, ...) applied none of its edits.
    let failed = if f.error().is_some() && f.edits.is_empty() {
        total
    } else {
        f.edits.iter().filter(|o| !o.success && !o.skipped).count()
    };
    let (final_diff, diff_note) = shape::capped_diff(&f.diff);
    let value = BatchReply {
        success: report.success(),
        total_edits: total,
        successful_edits: successful,
        failed_edits: failed,
        skipped_edits: (skipped > 0).then_some(skipped),
        results,
        final_diff: (!f.diff.is_empty()).then(|| final_diff.to_string()),
        final_diff_truncated: diff_note,
        content_hash: shape::current_hash(f),
        dry_run,
        error: f.error().map(CamelPartError::of),
    };
    // No Desktop Commander wording exists for this tool (filekit's design defines its result as this
    // object): the model reads the reply itself.
    let value = reply::to_value(&value);
    let text = shape::serialized(&value);
    Ok(ToolReply::new(value, !report.success(), text))
}

// ---------------------------------------------------------------------------------------------
// write_from_line

const WRITE_FROM_LINE_DESCRIPTION: &str = "\
Replace the lines of a file from `startLine` to `endLine` (1-based, inclusive), or from \
`startLine` to the end of the file when `endLine` is left out, with `content`. Lines before \
startLine (and after endLine) are kept as they are. `content` is whole lines: a final newline \
is optional, and \"\" deletes the lines. Use it to replace a large section or the rest of a \
file without sending the whole file. Give `contentHash` (from a read, or the last reply) to \
refuse the edit if the file changed since. `dryRun: true` previews the diff.

Example: {\"path\": \"docs/spells.md\", \"startLine\": 2070, \"content\": \"### Find Traps\\n\\n**Level 2 \
Divination**\\n\"}";

#[derive(Deserialize, JsonSchema)]
struct WriteFromLineArgs {
    /// The file to edit.
    path: String,
    /// First line to replace (1-indexed, inclusive).
    #[serde(rename = "startLine")]
    start_line: i64,
    /// Last line to replace (1-indexed, inclusive). Leave it out to replace to the end of the
    /// file.
    #[serde(rename = "endLine")]
    end_line: Option<i64>,
    /// The new lines.
    content: String,
    /// Preview the diff without writing.
    #[serde(rename = "dryRun")]
    #[schemars(extend("default" = false))]
    dry_run: Option<bool>,
    /// Optional: the file's content hash from a read or the last reply (or the hash of exactly
    /// the replaced lines); the edit is refused if the file changed.
    #[serde(rename = "contentHash")]
    content_hash: Option<String>,
}

static WRITE_FROM_LINE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<WriteFromLineArgs>);

fn write_from_line(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: WriteFromLineArgs = parse("write_from_line", &WRITE_FROM_LINE_SCHEMA, args)?;
    let dry_run = args.dry_run.unwrap_or(false);
    let new_line_count = split_new_lines(&args.content).len();
    let (start, end) = (args.start_line, args.end_line);
    let request = EditRequest::one_file(
        args.path,
        vec![Edit::ReplaceLines {
            start,
            end,
            new: args.content,
            content_hash: args.content_hash,
        }],
        EditOptions::builder().dry_run(dry_run).build(),
    );
    let mut report = ws.apply(request);
    shape::word_report(&mut report, &FROM_LINE_WORDS);
    let f = &report.files[0];
    if let Some(err) = shape::first_error(f) {
        let value = reply::to_value(&WriteFromLineFailed {
            message: err.full_message(),
            lines_replaced: 0,
            new_line_count: 0,
            failure: CamelFailure::of(err),
        });
        let text = shape::serialized(&value);
        return Ok(ToolReply::new(value, true, text));
    }
    // The numbers as the engine resolved them against the file as read (negatives from the
    // end, no endLine = the last line).
    let total = f
        .old_text
        .as_deref()
        .map(|t| LineIndex::new(t).len())
        .unwrap_or(0) as i64;
    let resolve = |n: i64| if n < 0 { total + 1 + n } else { n };
    let (first, last) = (resolve(start), end.map(resolve).unwrap_or(total));
    let lines_replaced = (last - first + 1).max(0);
    let range = match end {
        Some(_) => format!("{first}-{last}"),
        None => format!("{first}-EOF"),
    };
    let message = if dry_run {
        format!(
            "DRY RUN: Would replace lines {range} ({lines_replaced} lines) with {new_line_count} lines"
        )
    } else {
        format!("Replaced lines {range} ({lines_replaced} lines) with {new_line_count} lines")
    };
    let value = reply::to_value(&WriteFromLineReply {
        success: true,
        message,
        lines_replaced,
        new_line_count,
        diff: (!f.diff.is_empty()).then(|| f.diff.clone()),
        content_hash: shape::current_hash(f),
        dry_run,
    });
    // filekit's design defines this tool's result as this object: the model reads it as it is.
    let text = shape::serialized(&value);
    Ok(ToolReply::new(value, false, text))
}

#[cfg(test)]
mod tests {
    use super::dc_differences;

    #[test]
    fn differences_in_desktop_commanders_notation() {
        // As its highlightDifferences: common prefix, {-search only-}{+file only+}, suffix.
        assert_eq!(
            dc_differences("let total = compute(a, c);", "let total = compute(a, b);"),
            "let total = compute(a, {-c-}{+b+});"
        );
        assert_eq!(dc_differences("abc", "abc"), "abc{--}{++}");
        assert_eq!(dc_differences("aXc", "ac"), "a{-X-}{++}c");
        assert_eq!(dc_differences("é1", "é2"), "é{-1-}{+2+}");
    }
}
