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
//! `EditBlockArgsSchema`; `src/error-handlers.ts`: `createErrorResponse`), and for
//! batch_edit_blocks and write_from_line, which Desktop Commander has not shipped, the shapes
//! filekit's reference page (docs/tools/desktop-commander.md) gives them.

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
const STRICT: &str = "filekit, deliberately stricter than Desktop Commander (whose zod schemas strip unknown keys): an unknown argument is refused with the closest valid name and nothing is written";
const BATCH: &str = "batch_edit_blocks: edits apply in order, each to the result of the previous; a failed edit is reported and the others apply unless stopOnError; the file is written once; BatchEditBlocksResult {success, totalEdits, successfulEdits, failedEdits, results[{index, label, success, message}], finalDiff}";
const BATCH_ARGS: &str = "BatchEditBlocksArgs {path, edits[{search, replace, label?, expectedReplacements?}], stopOnError?, dryRun?, fuzzyThreshold?}";
const FROM_LINE: &str = "write_from_line: startLine 1-indexed inclusive, endLine optional (to EOF); message `Replaced lines ${startLine}-${endLine || 'EOF'}` / `DRY RUN: Would replace lines ...`; WriteFromLineResult {success, message, linesReplaced, newLineCount, diff}";

const READ: &str = "DesktopCommanderMCP 1eccc8b (npm 0.2.46) src/utils/files/text.ts, readFileWithSmartPositioning and generateEnhancedStatusMessage: \"[Reading N lines from start|line K (total: T lines, R remaining)]\" or \"[Reading last N lines (total: T lines)]\", a blank line, the lines joined with \\n (readline: no line endings); offset 0-based, negative = tail (length ignored), length default 1000";
const READ_DIR: &str = "DesktopCommanderMCP src/tools/filesystem.ts, readFileFromDisk: a directory answers \"This is a directory, not a file. Use the list_directory tool instead of read_file for directories.\" and its listing";
const READ_MANY: &str = "DesktopCommanderMCP src/handlers/filesystem-handlers.ts, handleReadMultipleFiles: one summary line per file (\"path: text/plain (text)\", \"path: Error - msg\"), then \"\\n--- path contents: ---\\n\" and the file read as read_file reads it";
const WRITE: &str = "DesktopCommanderMCP src/handlers/filesystem-handlers.ts, handleWriteFile: \"Successfully wrote to|appended to {path} ({lines} lines) \" (content.split('\\n').length), the performance tip past fileWriteLineLimit (50); append adds the content as it is (fs.appendFile)";
const WRITE_GUARD: &str = "DesktopCommanderMCP src/handlers/filesystem-handlers.ts, handleWriteFile (issue #541): no mode and a file with content: \"Write rejected to prevent accidental data loss: ...\"; nothing written";
const MKDIR: &str = "DesktopCommanderMCP src/tools/filesystem.ts, createDirectory: fs.mkdir recursive; \"Successfully created directory {path}\"";
const LIST: &str = "DesktopCommanderMCP src/tools/filesystem.ts, listDirectory: \"[DIR] name\" / \"[FILE] name\", relative paths, depth default 2, nested directories cut at 100 entries with \"[WARNING] dir: N items hidden (showing first 100 of T total)\", \"[NOT_FOUND] name — path does not exist\"";
const MOVE: &str = "DesktopCommanderMCP src/handlers/filesystem-handlers.ts, handleMoveFile: fs.rename (a file over a file replaces it, a folder over an empty folder too; a folder with entries is ENOTEMPTY); \"Successfully moved {source} to {destination}\"";
const INFO: &str = "DesktopCommanderMCP src/tools/filesystem.ts, getFileInfo, and handleGetFileInfo's formatValue: \"key: value\" lines: size, created/modified/accessed (Date as JSON), isDirectory, isFile, permissions (3 octal digits), fileType, lineCount/lastLine/appendPosition for text";
const NOT_SERVED: &str = "filekit: Desktop Commander's readers of URLs (isUrl), spreadsheets (sheet, range), its PDF, DOCX and spreadsheet writers (write_file by extension, src/utils/files/factory.ts) are out of scope, refused with the reason; nothing is read from the network";
const NUMBER: &str = "DesktopCommanderMCP 0.2.52 dist/tools/schemas.js, ReadFileArgsSchema: offset and length are z.number() (1.0 is 1); filekit refuses a fraction, since no line starts there";
const INFO_LATIN1: &str = "DesktopCommanderMCP 0.2.52 getFileInfo: a file whose bytes are not UTF-8 is fileType binary, with its metadata";
const IGNORED: &str = "DesktopCommanderMCP 0.2.52 dist/tools/schemas.js: zod objects strip keys they do not name, so `encoding` is taken and unused (fs.readFile/readline as UTF-8); filekit takes it when it names UTF-8 and refuses another, which it would not use";
const SANDBOX: &str = "DesktopCommanderMCP validatePath refuses a path outside allowedDirectories; filekit refuses it through its workspace (Workspace::resolve), in its own words";

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
        case("write_from_line_stale_content_hash", "filekit's addition: contentHash ties the edit to the version read; a mismatch writes nothing", "write_from_line",
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
        // ---- read_file
        case("read_file_whole_file_under_its_status_line", READ, "read_file",
            json!({"path": "$ROOT/a.txt"}))
            .file("a.txt", ten.clone())
            .reads(&["[Reading 10 lines from start (total: 10 lines, 0 remaining)]\n\nline 1\nline 2\n"])
            .shows(&["line 10"]).then("a.txt", Some(TEN_LINES)),
        case("read_file_offset_and_length", READ, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": 2, "length": 3}))
            .file("a.txt", ten.clone())
            .reads(&["[Reading 3 lines from line 2 (total: 10 lines, 5 remaining)]\n\nline 3\nline 4\nline 5"])
            .hides(&["line 2\n", "line 6"]),
        case("read_file_negative_offset_is_the_tail", READ, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": -2, "length": 1}))
            .file("a.txt", ten.clone())
            .reads(&["[Reading last 2 lines (total: 10 lines)]\n\nline 9\nline 10"])
            .hides(&["line 8"]),
        case("read_file_past_the_end_reads_nothing", READ, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": 50}))
            .file("a.txt", ten.clone())
            .reads(&["[Reading 0 lines from line 50 (total: 10 lines, 0 remaining)]\n\n"]),
        case("read_file_crlf_lines_come_without_endings", READ, "read_file",
            json!({"path": "$ROOT/w.txt"}))
            .file("w.txt", "one\r\ntwo\r\n")
            .reads(&["(total: 2 lines, 0 remaining)]\n\none\ntwo"]).hides(&["\r"]),
        case("read_file_directory_answers_its_listing", READ_DIR, "read_file",
            json!({"path": "$ROOT/src"}))
            .file("src/lib.rs", "x\n")
            .reads(&["This is a directory, not a file. Use the list_directory tool instead of read_file for directories.\n\n[FILE] lib.rs"]),
        case("read_file_missing", ERROR, "read_file", json!({"path": "$ROOT/nope.txt"}))
            .fails().shows(&["$ROOT/nope.txt does not exist"]).reads(&["Error: $ROOT/nope.txt does not exist"]),
        case("read_file_outside_the_workspace", SANDBOX, "read_file", json!({"path": "/etc/hostname"}))
            .fails().shows(&["outside the workspace"]),
        case("read_file_url_is_refused", NOT_SERVED, "read_file",
            json!({"path": "https://example.com/", "isUrl": true}))
            .rejected().shows(&["isUrl is not supported", "no network access, by design", "save the page into the workspace"]),
        case("read_file_offset_as_a_number_with_no_fraction", NUMBER, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": 1.0, "length": 2.0}))
            .file("a.txt", "one\ntwo\nthree\nfour\n")
            .reads(&["two\nthree"]).unread(&["one", "four"]),
        case("read_file_offset_with_a_fraction_is_refused", NUMBER, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": 1.5}))
            .file("a.txt", "one\n").rejected().shows(&["1.5 is not a whole number of lines"]),
        case("read_file_sheet_is_refused", NOT_SERVED, "read_file",
            json!({"path": "$ROOT/a.txt", "sheet": "Sheet1"}))
            .file("a.txt", "a\n").rejected().shows(&["sheet and range (spreadsheets) are not supported"]),
        case("read_file_mistyped_offset_is_refused", STRICT, "read_file",
            json!({"path": "$ROOT/a.txt", "ofset": 2}))
            .file("a.txt", "a\n").rejected().shows(&["unknown argument `ofset`; did you mean `offset`?"]),
        case("read_file_offset_as_a_string_is_refused", SCHEMA, "read_file",
            json!({"path": "$ROOT/a.txt", "offset": "2"}))
            .file("a.txt", "a\n").rejected().shows(&["offset"]),
        // ---- read_multiple_files
        case("read_multiple_files_summary_then_contents", READ_MANY, "read_multiple_files",
            json!({"paths": ["$ROOT/a.txt", "$ROOT/missing.txt"]}))
            .file("a.txt", "alpha\nbeta\n")
            .shows(&["$ROOT/missing.txt does not exist", "alpha\nbeta"])
            .reads(&["$ROOT/a.txt: text/plain (text)\n$ROOT/missing.txt: Error - $ROOT/missing.txt does not exist",
                "\n--- $ROOT/a.txt contents: ---\n[Reading 2 lines from start (total: 2 lines, 0 remaining)]\n\nalpha\nbeta"]),
        case("read_multiple_files_of_none_readable_fails", READ_MANY, "read_multiple_files",
            json!({"paths": ["$ROOT/missing.txt", "$ROOT/gone.txt"]}))
            .fails()
            .shows(&["$ROOT/missing.txt does not exist", "$ROOT/gone.txt does not exist"]),
        case("read_multiple_files_without_paths_is_refused", READ_MANY, "read_multiple_files", json!({}))
            .rejected().shows(&["missing required argument `paths`"]),
        // ---- write_file
        case("write_file_creates_a_file", WRITE, "write_file",
            json!({"path": "$ROOT/new.txt", "content": "hello\nworld\n"}))
            .reads(&["Successfully wrote to $ROOT/new.txt (3 lines) "])
            .then("new.txt", Some("hello\nworld\n")),
        case("write_file_append_adds_the_content_as_it_is", WRITE, "write_file",
            json!({"path": "$ROOT/log.txt", "content": "two", "mode": "append"}))
            .file("log.txt", "one")
            .reads(&["Successfully appended to $ROOT/log.txt (1 lines) "]).then("log.txt", Some("onetwo")),
        case("write_file_rewrite_replaces_the_content", WRITE, "write_file",
            json!({"path": "$ROOT/a.txt", "content": "new\n", "mode": "rewrite"}))
            .file("a.txt", ten.clone()).reads(&["Successfully wrote to $ROOT/a.txt (2 lines) "])
            .then("a.txt", Some("new\n")),
        case("write_file_over_content_without_mode_is_refused", WRITE_GUARD, "write_file",
            json!({"path": "$ROOT/a.txt", "content": "oops"}))
            .file("a.txt", "keep me\n").fails()
            .shows(&["Write rejected to prevent accidental data loss: $ROOT/a.txt already exists with content (8 bytes), and no 'mode' was specified"])
            .then("a.txt", Some("keep me\n")),
        case("write_file_over_the_line_limit_gives_the_tip", WRITE, "write_file",
            json!({"path": "$ROOT/big.txt", "content": forty() + &forty()}))
            .reads(&["Successfully wrote to $ROOT/big.txt (81 lines) ✅ File written successfully! (81 lines)\n            \n💡 Performance tip: For optimal speed, consider chunking files into ≤30 line pieces in future operations."])
            .then("big.txt", Some(&(forty() + &forty()))),
        case("write_file_of_a_converted_format_is_refused", NOT_SERVED, "write_file",
            json!({"path": "$ROOT/report.docx", "content": "# Report\n", "mode": "rewrite"}))
            .rejected().shows(&[".docx files are not supported", "filekit writes text files only"])
            .then("report.docx", None),
        case("write_file_unknown_mode_is_refused", WRITE, "write_file",
            json!({"path": "$ROOT/a.txt", "content": "x", "mode": "overwrite"}))
            .rejected().shows(&["mode"]).then("a.txt", None),
        case("write_file_into_filekit_state_is_refused", SANDBOX, "write_file",
            json!({"path": "$ROOT/.filekit/evil", "content": "x", "mode": "rewrite"}))
            .fails().shows(&[".filekit"]).then(".filekit/evil", None),
        // ---- create_directory
        case("create_directory_makes_the_parents", MKDIR, "create_directory",
            json!({"path": "$ROOT/a/b/c"}))
            .reads(&["Successfully created directory $ROOT/a/b/c"]).shows(&["$ROOT/a/b/c"]),
        case("create_directory_over_a_file_is_refused", MKDIR, "create_directory",
            json!({"path": "$ROOT/f.txt"}))
            .file("f.txt", "x\n").fails().shows(&["cannot create the directory $ROOT/f.txt: a file is there"])
            .then("f.txt", Some("x\n")),
        // ---- list_directory
        case("list_directory_two_levels_by_default", LIST, "list_directory",
            json!({"path": "$ROOT"}))
            .file("src/lib.rs", "x\n").file("src/deep/mod.rs", "x\n").file("README.md", "x\n")
            .shows(&["[FILE] README.md", "[DIR] src", "[DIR] src/deep", "[FILE] src/lib.rs"])
            .hides(&["src/deep/mod.rs"]),
        case("list_directory_depth_one", LIST, "list_directory",
            json!({"path": "$ROOT", "depth": 1}))
            .file("src/lib.rs", "x\n").shows(&["[DIR] src"]).hides(&["lib.rs"]),
        case("list_directory_missing_path", LIST, "list_directory",
            json!({"path": "$ROOT/nowhere"}))
            .shows(&["[NOT_FOUND] nowhere — path does not exist"]),
        // ---- move_file
        case("move_file_renames", MOVE, "move_file",
            json!({"source": "$ROOT/a.txt", "destination": "$ROOT/b.txt"}))
            .file("a.txt", "x\n").reads(&["Successfully moved $ROOT/a.txt to $ROOT/b.txt"])
            .then("a.txt", None).then("b.txt", Some("x\n")),
        case("move_file_over_a_file_replaces_it", MOVE, "move_file",
            json!({"source": "$ROOT/a.txt", "destination": "$ROOT/b.txt"}))
            .file("a.txt", "new\n").file("b.txt", "old\n").reads(&["Successfully moved $ROOT/a.txt to $ROOT/b.txt"])
            .then("a.txt", None).then("b.txt", Some("new\n")),
        case("move_file_of_a_folder_onto_an_empty_folder_replaces_it", MOVE, "move_file",
            json!({"source": "$ROOT/src", "destination": "$ROOT/dest"}))
            .file("src/a.txt", "a\n").file("dest/.keep", "").given("file:delete_file", json!({"path": "dest/.keep"}))
            .reads(&["Successfully moved $ROOT/src to $ROOT/dest"])
            .then("src/a.txt", None).then("dest/a.txt", Some("a\n")),
        case("move_file_onto_a_folder_with_files_is_refused", MOVE, "move_file",
            json!({"source": "$ROOT/src", "destination": "$ROOT/dest"}))
            .file("src/a.txt", "a\n").file("dest/kept.txt", "kept\n").fails()
            .shows(&["the destination $ROOT/dest is a directory with 1 entry in it: only an empty directory is replaced"])
            .then("src/a.txt", Some("a\n")).then("dest/kept.txt", Some("kept\n")),
        case("move_file_missing_source", MOVE, "move_file",
            json!({"source": "$ROOT/nope.txt", "destination": "$ROOT/b.txt"}))
            .fails().shows(&["$ROOT/nope.txt does not exist"]).then("b.txt", None),
        case("move_file_out_of_the_workspace_is_refused", SANDBOX, "move_file",
            json!({"source": "$ROOT/a.txt", "destination": "/tmp/filekit-golden-moved-out.txt"}))
            .file("a.txt", "x\n").fails().shows(&["outside the workspace"]).then("a.txt", Some("x\n")),
        case("read_file_takes_encoding_utf8", IGNORED, "read_file",
            json!({"path": "$ROOT/a.txt", "encoding": "utf8"}))
            .file("a.txt", "alpha\n").reads(&["alpha"]),
        case("edit_block_takes_encoding_utf8", IGNORED, "edit_block",
            json!({"file_path": "$ROOT/a.txt", "old_string": "alpha", "new_string": "beta", "encoding": "UTF-8"}))
            .file("a.txt", "alpha\n").then("a.txt", Some("beta\n")),
        case("read_file_refuses_another_encoding", IGNORED, "read_file",
            json!({"path": "$ROOT/a.txt", "encoding": "latin1"}))
            .file("a.txt", "alpha\n").rejected()
            .shows(&["`encoding` \"latin1\" is not taken", "its own encoding, detected", "read_files"]),
        // ---- get_file_info
        case("get_file_info_of_a_latin1_file_is_binary", INFO_LATIN1, "get_file_info",
            json!({"path": "$ROOT/l1.txt"}))
            .bytes("l1.txt", b"caf\xe9\n".to_vec())
            .reads(&["size: 5\n", "fileType: binary", "isBinary: true"]),
        case("get_file_info_of_a_text_file", INFO, "get_file_info",
            json!({"path": "$ROOT/a.txt"}))
            .file("a.txt", ten.clone())
            .reads(&["size: 71\ncreated: \"", "isDirectory: false\nisFile: true\npermissions: 6", "fileType: text\nlineCount: 10\nlastLine: 9\nappendPosition: 10"]),
        case("get_file_info_of_a_directory", INFO, "get_file_info",
            json!({"path": "$ROOT/d"}))
            .file("d/x.txt", "x\n").reads(&["isDirectory: true\nisFile: false"]).hides(&["lineCount"]),
        case("get_file_info_missing", INFO, "get_file_info", json!({"path": "$ROOT/nope"}))
            .fails().shows(&["$ROOT/nope does not exist"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("desktop-commander", &cases());
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
        &[
            "edit_block",
            "batch_edit_blocks",
            "write_from_line",
            "read_file",
            "read_multiple_files",
            "write_file",
            "create_directory",
            "list_directory",
            "move_file",
            "get_file_info",
        ],
        60,
    );
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("desktop-commander", &cases());
}
