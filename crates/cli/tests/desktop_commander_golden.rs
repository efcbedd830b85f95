//! Golden cases of the `desktop-commander` dialect: one row per call an agent trained on
//! Desktop Commander makes (`edit_block`, and the `batch_edit_blocks` and `write_from_line`
//! of its ADR), with the reply (the part that matters) and beside each the source it was taken
//! from. Every row runs through `filekit call` and over MCP stdio (see `golden/mod.rs`); over
//! MCP the text the model reads is checked, which for edit_block is Desktop Commander's own
//! wording. Where filekit deliberately differs (it refuses unknown arguments and range
//! rewrites, it names the lines of every match), the row says so.
//!
//! Sources, named by the constants below: wonderwhy-er/DesktopCommanderMCP at 1eccc8b
//! (`src/tools/edit.ts`: `performSearchReplace`, `handleEditBlock`; `src/tools/schemas.ts`:
//! `EditBlockArgsSchema`; `src/error-handlers.ts`: `createErrorResponse`), and seed 003 (the
//! ADR of batch_edit_blocks and write_from_line, which Desktop Commander has not shipped).

use crate::common::*;
use crate::golden::*;
use serde_json::json;

const DONE: &str = "DesktopCommanderMCP 1eccc8b src/tools/edit.ts, performSearchReplace: after an exact replacement the text is \"[Reading N lines from start|line K (total: T lines, R remaining)]\" and the edited region of the new file with 10 lines around it";
const COUNT: &str = "DesktopCommanderMCP src/tools/edit.ts: \"Expected {e} occurrences but found {c} in {path}. ... if you want to replace all {c} occurrences, set expected_replacements to {c}.\"";
const EXPECTED: &str = "DesktopCommanderMCP src/tools/schemas.ts, EditBlockArgsSchema: expected_replacements number, default 1; edit.ts: count === expected replaces every occurrence (split/join)";
const EMPTY: &str = "DesktopCommanderMCP src/tools/edit.ts: \"Empty search strings are not allowed. Please provide a non-empty string to search for.\"";
const FUZZY: &str = "DesktopCommanderMCP src/tools/edit.ts: FUZZY_THRESHOLD 0.7; at or above, \"Exact match not found, but found a similar text with N% similarity\" and \"Differences:\" in highlightDifferences' {-removed-}{+added+} notation; below, \"Search content not found in {path}. The closest match was ... with only N% similarity, which is below the 70% threshold\"; nothing is written";
const ERROR: &str = "DesktopCommanderMCP src/error-handlers.ts, createErrorResponse: \"Error: {message}\", isError true (a path that cannot be read)";
const RANGE: &str = "DesktopCommanderMCP src/tools/edit.ts, handleEditBlock: range and content count only when not \"\"; a range rewrite of a text file: \"Range-based editing not supported for {path}. For text files, use old_string and new_string parameters instead.\"";
const SCHEMA: &str = "DesktopCommanderMCP src/tools/schemas.ts, EditBlockArgsSchema: {file_path, old_string?, new_string?, expected_replacements?, range?, content?, options?, origin?: 'ui'|'llm'}; \"Must provide either (old_string + new_string) or (range + content)\"";
const LINE_ENDINGS: &str = "DesktopCommanderMCP src/tools/edit.ts: the search text is normalized to the file's line endings (normalizeLineEndings) before it is matched";
const STRICT: &str = "filekit, deliberately stricter than Desktop Commander (whose zod schemas strip unknown keys): an unknown argument is refused with the closest valid name and nothing is written (issue 24 item 1)";
const BATCH: &str = "seed 003 (ADR-002), batch_edit_blocks: edits apply in order, each to the result of the previous; a failed edit is reported and the others apply unless stopOnError; the file is written once; BatchEditBlocksResult {success, totalEdits, successfulEdits, failedEdits, results[{index, label, success, message}], finalDiff}";
const BATCH_ARGS: &str = "seed 003 (ADR-002), BatchEditBlocksArgs {path, edits[{search, replace, label?, expectedReplacements?}], stopOnError?, dryRun?, fuzzyThreshold?}";
const FROM_LINE: &str = "seed 003 (ADR-002), write_from_line: startLine 1-indexed inclusive, endLine optional (to EOF); message `Replaced lines ${startLine}-${endLine || 'EOF'}` / `DRY RUN: Would replace lines ...`; WriteFromLineResult {success, message, linesReplaced, newLineCount, diff}";

fn forty() -> String {
    (1..=40).map(|i| format!("line {i}\n")).collect()
}

fn cases() -> Vec<Case> {
    let ten = TEN_LINES.to_string();
    vec![
        // ---- edit_block, what it answers
        case("edit_block_replaces_one_exact_match", DONE, "edit_block",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 2\n", "new_string": "LINE 2\n"}))
            .file("a.txt", ten.clone())
            .reads(&["[Reading 11 lines from start (total: 11 lines, 0 remaining)]\n\nline 1\nLINE 2\nline 3"])
            .then("a.txt", Some(&TEN_LINES.replace("line 2\n", "LINE 2\n"))),
        case("edit_block_preview_is_centered_on_the_edit", DONE, "edit_block",
            json!({"file_path": "$ROOT/big.txt", "old_string": "line 20\n", "new_string": "LINE 20\n"}))
            .file("big.txt", forty())
            .reads(&["[Reading 22 lines from line 9 (total: 41 lines, 10 remaining)]\n\nline 10\n", "LINE 20\nline 21"])
            .hides(&["line 9\n", "line 32"])
            .then("big.txt", Some(&forty().replace("line 20\n", "LINE 20\n"))),
        case("edit_block_expected_replacements_replaces_all", EXPECTED, "edit_block",
            json!({"file_path": "$ROOT/cfg.ts", "old_string": "debug: false", "new_string": "debug: true", "expected_replacements": 2}))
            .file("cfg.ts", "debug: false\nx\ndebug: false\n")
            .reads(&["[Reading 4 lines from start (total: 4 lines, 0 remaining)]\n\ndebug: true\nx\ndebug: true\n"]).then("cfg.ts", Some("debug: true\nx\ndebug: true\n")),
        case("edit_block_multi_line_block", DONE, "edit_block",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 4\nline 5\n", "new_string": "four and five\n"}))
            .file("a.txt", ten.clone()).reads(&["line 3\nfour and five\nline 6"])
            .then("a.txt", Some(&TEN_LINES.replace("line 4\nline 5\n", "four and five\n"))),
        case("edit_block_search_in_lf_matches_a_crlf_file", LINE_ENDINGS, "edit_block",
            json!({"file_path": "$ROOT/w.txt", "old_string": "one\ntwo", "new_string": "1\n2"}))
            .file("w.txt", "one\r\ntwo\r\nthree\r\n")
            .then("w.txt", Some("1\r\n2\r\nthree\r\n")),
        // ---- edit_block, failed searches (nothing is written)
        case("edit_block_more_matches_than_expected", COUNT, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a", "new_string": "z"}))
            .file("c.txt", "a\nb\na\n").fails()
            .shows(&["Expected 1 occurrences but found 2 in $ROOT/c.txt (at lines 1, 3)", "set expected_replacements to 2"])
            .hides(&["replace_all", "edit 0", "(str_replace)", "ask to replace all"]),
        case("edit_block_fewer_matches_than_expected", COUNT, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a", "new_string": "z", "expected_replacements": 3}))
            .file("c.txt", "a\nb\na\n").fails()
            .shows(&["Expected 3 occurrences but found 2", "set expected_replacements to 2"]),
        case("edit_block_empty_search", EMPTY, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "", "new_string": "z"}))
            .file("c.txt", "a\n").fails()
            .shows(&["Empty search strings are not allowed. Please provide a non-empty string to search for."])
            .hides(&["insert or append", "old_str`"]),
        case("edit_block_similar_text_above_the_threshold", FUZZY, "edit_block",
            json!({"file_path": "$ROOT/m.rs", "old_string": "let total = compute(a, c);", "new_string": "x"}))
            .file("m.rs", "fn main() {\n    let total = compute(a, b);\n}\n").fails()
            .shows(&["Exact match not found, but found a similar text with", "% similarity", "line 2", "use the exact text found in the file",
                "Differences:\nlet total = compute(a, {-c-}{+b+});"])
            .hides(&["details.near_miss", "[-only in old_string-]"]),
        case("edit_block_closest_text_below_the_threshold", FUZZY, "edit_block",
            json!({"file_path": "$ROOT/m.rs", "old_string": "let sum = calculate(a, b);", "new_string": "x"}))
            .file("m.rs", "fn main() {\n    let total = compute(a, b);\n}\n").fails()
            .shows(&["Search content not found in $ROOT/m.rs. The closest match was \"let total = compute(a, b);\" (line 2) with only 69% similarity, which is below the 70% threshold"]),
        case("edit_block_missing_file", ERROR, "edit_block",
            json!({"file_path": "$ROOT/nope.txt", "old_string": "a", "new_string": "b"}))
            .fails().shows(&["$ROOT/nope.txt does not exist"]).reads(&["Error: $ROOT/nope.txt does not exist"]).then("nope.txt", None),
        // ---- edit_block, arguments
        case("edit_block_range_rewrite_of_a_text_file_is_refused", RANGE, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "range": "Sheet1!A1:B2", "content": [["a", "b"]], "old_string": "a", "new_string": "b"}))
            .file("c.txt", "a\n").rejected()
            .shows(&["range-based editing is not supported", "use old_string and new_string"]),
        case("edit_block_empty_range_and_content_are_ignored", RANGE, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "range": "", "content": "", "old_string": "a", "new_string": "b"}))
            .file("c.txt", "a\n").reads(&["\n\nb\n"]).then("c.txt", Some("b\n")),
        case("edit_block_origin_is_accepted", SCHEMA, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a", "new_string": "b", "origin": "llm"}))
            .file("c.txt", "a\n").reads(&["\n\nb\n"]).then("c.txt", Some("b\n")),
        case("edit_block_camel_case_count_is_refused", STRICT, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a", "new_string": "z", "expectedReplacements": 2}))
            .file("c.txt", "a\na\n").rejected()
            .shows(&["unknown argument `expectedReplacements`; did you mean `expected_replacements`?"]),
        case("edit_block_without_new_string_is_refused", SCHEMA, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a"}))
            .file("c.txt", "a\n").rejected().shows(&["new_string"]),
        case("edit_block_count_below_one_is_refused", EXPECTED, "edit_block",
            json!({"file_path": "$ROOT/c.txt", "old_string": "a", "new_string": "z", "expected_replacements": 0}))
            .file("c.txt", "a\n").fails().shows(&["expected_replacements"]),
        // ---- batch_edit_blocks
        case("batch_edits_apply_in_sequence_with_labels", BATCH, "batch_edit_blocks",
            json!({"path": "$ROOT/spells.md", "edits": [
                {"label": "Detect Magic", "search": "Detect Magic\nLevel 1", "replace": "### Detect Magic\n\n**Level 1**"},
                {"label": "heading", "search": "### Detect Magic", "replace": "## Detect Magic"}
            ]}))
            .file("spells.md", "Detect Magic\nLevel 1\n")
            .shows(&["Detect Magic", "heading", "replaced 1 occurrence at line 1"])
            .then("spells.md", Some("## Detect Magic\n\n**Level 1**\n")),
        case("batch_a_failed_edit_does_not_stop_the_others", BATCH, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "edits": [
                {"search": "one", "replace": "1"},
                {"search": "missing", "replace": "x"},
                {"search": "three", "replace": "3"}
            ]}))
            .file("c.txt", "one\ntwo\nthree\n").fails().partly()
            .shows(&["`search` was not found", "replaced 1 occurrence at line 3"])
            .then("c.txt", Some("1\ntwo\n3\n")),
        case("batch_stop_on_error_keeps_the_edits_before", BATCH, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "stopOnError": true, "edits": [
                {"search": "one", "replace": "1"},
                {"search": "missing", "replace": "x"},
                {"search": "three", "replace": "3"}
            ]}))
            .file("c.txt", "one\ntwo\nthree\n").fails().partly()
            .shows(&["not attempted: an earlier edit failed and stopOnError is set"])
            .then("c.txt", Some("1\ntwo\nthree\n")),
        case("batch_dry_run_writes_nothing", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "dryRun": true, "edits": [{"search": "two", "replace": "2"}]}))
            .file("c.txt", "one\ntwo\n").shows(&["would replace 1 occurrence", "+2"])
            .then("c.txt", Some("one\ntwo\n")),
        case("batch_expected_replacements", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "edits": [{"search": "a", "replace": "z", "expectedReplacements": 2}]}))
            .file("c.txt", "a\nb\na\n").shows(&["replaced 2 occurrences"]).then("c.txt", Some("z\nb\nz\n")),
        case("batch_count_mismatch_names_expected_replacements", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "edits": [{"search": "a", "replace": "z"}]}))
            .file("c.txt", "a\nb\na\n").fails()
            .shows(&["`search` matches 2 times", "set that edit's `expectedReplacements` to 2"])
            .hides(&["replace_all", "expected_replacements`"]),
        case("batch_fuzzy_threshold_applies_a_near_miss", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/f.txt", "fuzzyThreshold": 0.8, "edits": [{"search": "color = red", "replace": "colour = blue"}]}))
            .file("f.txt", "colour = red\nsize = 3\n").shows(&["fuzzy match"])
            .then("f.txt", Some("colour = blue\nsize = 3\n")),
        case("batch_empty_edits_is_refused", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "edits": []}))
            .file("c.txt", "a\n").rejected().shows(&["`edits` is empty"]),
        case("batch_threshold_out_of_range_is_refused", BATCH_ARGS, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "fuzzyThreshold": 1.5, "edits": [{"search": "a", "replace": "b"}]}))
            .file("c.txt", "a\n").rejected().shows(&["fuzzyThreshold"]),
        case("batch_snake_case_key_is_refused", STRICT, "batch_edit_blocks",
            json!({"path": "$ROOT/c.txt", "edits": [{"search": "a", "replace": "b", "expected_replacements": 2}]}))
            .file("c.txt", "a\na\n").rejected()
            .shows(&["unknown argument `edits[0].expected_replacements`; did you mean `expectedReplacements`?"]),
        // ---- write_from_line
        case("write_from_line_to_the_end", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 9, "content": "nine\nten\n"}))
            .file("a.txt", ten.clone()).shows(&["Replaced lines 9-EOF (2 lines) with 2 lines"])
            .then("a.txt", Some(&TEN_LINES.replace("line 9\nline 10\n", "nine\nten\n"))),
        case("write_from_line_between_lines", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 2, "endLine": 9, "content": "middle"}))
            .file("a.txt", ten.clone()).shows(&["Replaced lines 2-9 (8 lines) with 1 lines"])
            .then("a.txt", Some("line 1\nmiddle\nline 10\n")),
        case("write_from_line_dry_run", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 10, "content": "last\n", "dryRun": true}))
            .file("a.txt", ten.clone()).shows(&["DRY RUN: Would replace lines 10-EOF", "+last"])
            .then("a.txt", Some(TEN_LINES)),
        case("write_from_line_stale_content_hash", "filekit's addition to seed 003: contentHash ties the edit to the version read; a mismatch writes nothing", "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 1, "content": "x", "contentHash": "0123456789abcdef"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`contentHash` 0123456789abcdef names neither the file as it is now"])
            .hides(&["content_hash"]),
        case("write_from_line_start_past_the_end", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 20, "content": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`startLine` 20 is out of range: the file has 10 lines"])
            .hides(&["start_line", "insert_line"]),
        case("write_from_line_end_before_start", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 5, "endLine": 2, "content": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`endLine` 2 is before `startLine` 5", "give `startLine` <= `endLine`"])
            .hides(&["start_line", "end_line"]),
        case("write_from_line_without_content_is_refused", FROM_LINE, "write_from_line",
            json!({"path": "$ROOT/a.txt", "startLine": 1}))
            .file("a.txt", ten.clone()).rejected().shows(&["missing required argument `content`"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    through_filekit_call("desktop-commander", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("desktop-commander", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "desktop-commander",
        &cases(),
        &["edit_block", "batch_edit_blocks", "write_from_line"],
        25,
    );
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("desktop-commander", &cases());
}
