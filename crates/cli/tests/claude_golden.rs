//! Golden cases of the `claude` dialect: one row per call an agent trained on Claude Code
//! makes, with the reply (the part that matters) that Claude Code gives, and beside each the
//! source it was taken from. Every row runs twice against the real binary, in a fresh
//! workspace each time: through `filekit call`, and over MCP stdio (`filekit serve --tools
//! claude`, spoken to in JSON-RPC lines). Where filekit deliberately differs (it refuses what
//! Claude Code would only ask about, it shows near misses), the row says so.
//!
//! Sources, named by the constants below:
//! - the tool input schemas Anthropic publishes with the Agent SDK (`sdk-tools.d.ts` of
//!   `@anthropic-ai/claude-agent-sdk` 0.3.332, Claude Code 2.1.332; the same types are in the
//!   "Agent SDK reference - TypeScript" page, section "Tool Input Types");
//! - Claude Code's tool descriptions and messages as shipped in `@anthropic-ai/claude-code`
//!   (`cli.js` of 2.1.112, the last release published as JavaScript), quoted in each row;
//! - for `MultiEdit` and `LS`, which Claude Code no longer ships, their last documented shapes
//!   (`MultiEditInput`, `LSInput` of the same SDK reference).

use crate::common::*;
use crate::golden::*;
use serde_json::json;

const SDK_SCHEMA: &str = "@anthropic-ai/claude-agent-sdk 0.3.332 sdk-tools.d.ts (Agent SDK reference - TypeScript, Tool Input Types)";
const STRICT: &str = "Claude Code 2.1.112 cli.js: every tool's input is a z.strictObject; an unrecognized key fails validation with \"An unexpected parameter `KEY` was provided\" and the tool does not run";
const COERCE: &str = "Claude Code 2.1.112 cli.js: number arguments are wrapped in a preprocess that reads strings matching /^-?\\d+(\\.\\d+)?$/ as numbers, boolean arguments one that reads \"true\"/\"false\"";
const READ_DESC: &str = "Claude Code Read description: \"By default, it reads up to 2000 lines starting from the beginning of the file\", \"Any lines longer than 2000 characters will be truncated\", \"Results are returned using cat -n format, with line numbers starting at 1\"";
const READ_CALL: &str = "Claude Code 2.1.112 cli.js, Read.call: the first line read is `offset === 0 ? 0 : offset - 1`; schema offset: nonnegative integer, limit: positive integer";
const READ_WARN: &str = "Claude Code 2.1.112 cli.js, Read.mapToolResultToToolResultBlockParam: \"Warning: the file exists but is shorter than the provided offset (N). The file has M lines.\" / \"Warning: the file exists but the contents are empty.\" (in a system-reminder), not an error";
const EDIT_VALIDATE: &str = "Claude Code 2.1.112 cli.js, Edit.validateInput";
const EDIT_CALL: &str = "Claude Code 2.1.112 cli.js, Edit.call: replace_all ? content.replaceAll(old, new) : content.replace(old, new)";
const GREP_SCHEMA_DOC: &str = "GrepInput (sdk-tools.d.ts 0.3.332): head_limit \"Defaults to 250 when unspecified. Pass 0 for unlimited\"; offset \"Skip first N lines/entries before applying head_limit, equivalent to | tail -n +N | head -N\"; context \"Number of lines to show before and after each match (rg -C)\"; -o \"Print only the matched (non-empty) parts of each matching line, one match per output line\"";
const GREP_RESULT: &str = "Claude Code 2.1.112 cli.js, Grep.mapToolResultToToolResultBlockParam: \"Found N files\" + paths; \"No files found\"; content \"No matches found\"; count \"Found N total occurrences across M files.\"";
const GLOB_DESC: &str = "Claude Code Glob description: \"Returns matching file paths sorted by modification time\"; result \"No files found\" when none";
const MULTI_EDIT: &str = "MultiEditInput (Agent SDK reference, Claude Code 1.x-2.0): {file_path, edits: [{old_string, new_string, replace_all?}]}, edits applied in sequence, atomically; its description: to create a file, a first edit with an empty old_string";
const LS_DOC: &str =
    "LSInput (Agent SDK reference, Claude Code 1.x-2.0): {path, ignore?: string[]}";
const SEED: &str =
    "the claude table's reply: ToolResult {success, content, shortResult?, error?, filePath?}";

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

const MAIN_RS: &str = "fn main() {\n    let line = read_line();\n    println!(\"{line}\");\n}\n";

fn cases() -> Vec<Case> {
    let ten = TEN_LINES.to_string();
    vec![
        // ---- Item 1: unknown arguments are refused, named, and nothing is done.
        case("grep_file_path_is_not_grep_s", STRICT, "Grep",
            json!({"pattern": "line", "file_path": "$ROOT/src/main.rs"}))
            .file("src/main.rs", MAIN_RS).file("other.rs", "let line = 1;\n").rejected()
            .shows(&["Grep: unknown argument `file_path`; did you mean `path`?", "Grep takes: pattern, path, glob"])
            .hides(&["other.rs"]),
        case("edit_replace_all_camel_case", STRICT, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replaceAll": true}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Edit: unknown argument `replaceAll`; did you mean `replace_all`?", "nothing was done"])
            .then("a.txt", Some(TEN_LINES)),
        case("grep_include_is_glob", STRICT, "Grep", json!({"pattern": "x", "include": "*.py"}))
            .file("a.py", "x = 1\n").rejected()
            .shows(&["unknown argument `include`; did you mean `glob`?"]),
        case("read_misspelled_offset", STRICT, "Read", json!({"file_path": "$ROOT/a.txt", "offest": 5}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Read: unknown argument `offest`; did you mean `offset`?"]),
        case("write_unknown_encoding_writes_nothing", STRICT, "Write",
            json!({"file_path": "$ROOT/new.txt", "content": "x\n", "encoding": "utf8"}))
            .rejected().shows(&["Write: unknown argument `encoding`", "Write takes: file_path, content"])
            .then("new.txt", None),
        case("glob_directory_is_path", STRICT, "Glob", json!({"pattern": "*.rs", "directory": "$ROOT/src"}))
            .file("src/main.rs", MAIN_RS).rejected()
            .shows(&["Glob: unknown argument `directory`; did you mean `path`?"]),
        case("multi_edit_unknown_key_inside_an_edit", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "one\n"},
                {"old_string": "line", "new_string": "row", "replaceAll": true}]}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["MultiEdit: unknown argument `edits[1].replaceAll`; did you mean `replace_all`?", "`edits[1]` takes: old_string, new_string, replace_all"])
            .then("a.txt", Some(TEN_LINES)),
        case("ls_unknown_recursive", LS_DOC, "LS", json!({"path": "$ROOT", "recursive": true}))
            .rejected().shows(&["LS: unknown argument `recursive`", "LS takes: path, ignore"]),
        case("edit_old_str_is_old_string", STRICT, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_str": "line 1", "new_string": "one"}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["unknown argument `old_str`; did you mean `old_string`?"])
            .then("a.txt", Some(TEN_LINES)),
        // ---- Item 3: numbers and booleans sent as strings, as Claude Code takes them.
        case("read_offset_and_limit_as_strings", COERCE, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": "4", "limit": "2"}))
            .file("a.txt", ten.clone())
            .shows(&["     4\tline 4\n     5\tline 5\n"]).hides(&["line 6"]),
        case("edit_replace_all_as_string", COERCE, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": "true"}))
            .file("a.txt", "line a\nline b\n").then("a.txt", Some("row a\nrow b\n")),
        case("grep_flags_and_limits_as_strings", COERCE, "Grep",
            json!({"pattern": "ALPHA", "path": "$ROOT", "-i": "true", "output_mode": "content", "head_limit": "1", "-n": "false"}))
            .file("a.txt", "alpha 1\nalpha 2\n")
            .shows(&["$ROOT/a.txt:alpha 1"]).hides(&["alpha 2\n", "a.txt:1:"]),
        case("a_string_that_is_not_a_number_is_refused", COERCE, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": "two"}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Read: argument `offset`: invalid type: string \"two\""]),
        case("only_true_and_false_are_booleans", COERCE, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": "yes"}))
            .file("a.txt", "line a\nline b\n").rejected()
            .shows(&["Edit: argument `replace_all`: invalid type: string \"yes\""])
            .then("a.txt", Some("line a\nline b\n")),
        // ---- Read
        case("read_is_cat_n_from_line_1", READ_DESC, "Read", json!({"file_path": "$ROOT/a.txt"}))
            .file("a.txt", ten.clone())
            .shows(&["     1\tline 1\n", "    10\tline 10\n"]),
        case("read_offset_0_reads_from_the_start", READ_CALL, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": 0, "limit": 2}))
            .file("a.txt", ten.clone())
            .shows(&["     1\tline 1\n     2\tline 2\n"]).hides(&["line 3", "not a line"]),
        case("read_offset_past_the_end_is_a_warning", READ_WARN, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": 50}))
            .file("a.txt", ten.clone())
            .shows(&["Warning: the file exists but is shorter than the provided offset (50). The file has 10 lines."]),
        case("read_empty_file_is_a_warning", READ_WARN, "Read", json!({"file_path": "$ROOT/empty.txt"}))
            .file("empty.txt", "")
            .shows(&["Warning: the file exists but the contents are empty."]),
        case("read_cuts_lines_over_2000_characters", READ_DESC, "Read", json!({"file_path": "$ROOT/min.js"}))
            .file("min.js", format!("{}\nshort\n", "x".repeat(2500)))
            .shows(&["... [line truncated: 2000 of 2500 characters shown]", "     2\tshort\n"])
            .hides(&[concat!("xxxxxxxxxx", "xxxxxxxxxx", "... [line truncated: 2000 of 2500 characters shown]x")]),
        case("read_stops_at_2000_lines_by_default", READ_DESC, "Read", json!({"file_path": "$ROOT/big.txt"}))
            .file("big.txt", numbered(2100))
            .shows(&["  2000\tline 2000\n"]).typed(&["Read lines 1-2000 of 2100"]).hides(&["line 2001\n"]),
        case("read_limit_0_is_refused", READ_CALL, "Read", json!({"file_path": "$ROOT/a.txt", "limit": 0}))
            .file("a.txt", ten.clone()).rejected().shows(&["`limit` is 0"]),
        case("read_takes_pages_and_allow_large", SDK_SCHEMA, "Read",
            json!({"file_path": "$ROOT/a.txt", "pages": "1-2", "allow_large": true, "limit": 1}))
            .file("a.txt", ten.clone()).shows(&["     1\tline 1\n"]),
        case("read_missing_file", "Claude Code 2.1.112 cli.js, Read: \"File does not exist.\" (with a similar name when there is one)", "Read",
            json!({"file_path": "$ROOT/nope.txt"}))
            .fails().shows(&["$ROOT/nope.txt does not exist"]),
        // ---- Edit
        case("edit_replaces_the_one_occurrence", EDIT_CALL, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 3\n", "new_string": "three\n"}))
            .file("a.txt", ten.clone())
            .shows(&["has been updated", "     3\tthree\n"])
            .then("a.txt", Some(&TEN_LINES.replace("line 3\n", "three\n"))),
        case("edit_replace_all", EDIT_CALL, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": true}))
            .file("a.txt", ten.clone()).then("a.txt", Some(&TEN_LINES.replace("line", "row"))),
        case("edit_ambiguous_without_replace_all", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"Found N matches of the string to replace, but replace_all is false.\" (filekit: AMBIGUOUS with the lines)", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "a", "new_string": "c"}))
            .file("a.txt", "a\nb\na\n").fails()
            .shows(&["matches 2 times", "at lines 1, 3"]).typed(&["AMBIGUOUS"]).then("a.txt", Some("a\nb\na\n")),
        case("edit_not_found_shows_the_near_miss", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"String to replace not found in file.\" (filekit, better: the closest text, its line and a character diff)", "Edit",
            json!({"file_path": "$ROOT/main.rs", "old_string": "let lin = read_line();", "new_string": "let l = 1;"}))
            .file("main.rs", MAIN_RS).fails()
            .shows(&["not found", "line 2"]).typed(&["NOT_FOUND"]).then("main.rs", Some(MAIN_RS)),
        case("edit_same_strings", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"No changes to make: old_string and new_string are exactly the same.\"", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 1", "new_string": "line 1"}))
            .file("a.txt", ten.clone()).rejected().shows(&["exactly the same"]),
        case("edit_empty_old_string_creates_a_missing_file", EDIT_VALIDATE, "Edit",
            json!({"file_path": "$ROOT/src/new.ts", "old_string": "", "new_string": "export const a = 1;\n"}))
            .typed(&["Created $ROOT/src/new.ts"]).then("src/new.ts", Some("export const a = 1;\n")),
        case("edit_empty_old_string_fills_an_empty_file", EDIT_VALIDATE, "Edit",
            json!({"file_path": "$ROOT/empty.txt", "old_string": "", "new_string": "now\n"}))
            .file("empty.txt", "").then("empty.txt", Some("now\n")),
        case("edit_empty_old_string_on_a_file_with_content", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"Cannot create new file - file already exists.\"", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "", "new_string": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["cannot create a new file: $ROOT/a.txt already exists"]).typed(&["CONFLICT"])
            .then("a.txt", Some(TEN_LINES)),
        // ---- MultiEdit
        case("multi_edit_applies_in_sequence", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "first\n"},
                {"old_string": "first\nline 2", "new_string": "first\nsecond"}]}))
            .file("a.txt", ten.clone())
            .then("a.txt", Some(&TEN_LINES.replace("line 1\nline 2", "first\nsecond"))),
        case("multi_edit_failure_counts_from_1_and_writes_nothing", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "first\n"},
                {"old_string": "no such text", "new_string": "x"}]}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["edit 2 of 2 failed, nothing was written"]).hides(&["edit 1 of 2"])
            .then("a.txt", Some(TEN_LINES)),
        case("multi_edit_creates_with_a_first_empty_old_string", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/new.py", "edits": [
                {"old_string": "", "new_string": "a = 1\nb = 2\n"},
                {"old_string": "b = 2", "new_string": "b = 3"}]}))
            .then("new.py", Some("a = 1\nb = 3\n")),
        case("multi_edit_with_no_edits", MULTI_EDIT, "MultiEdit", json!({"file_path": "$ROOT/a.txt", "edits": []}))
            .file("a.txt", ten.clone()).rejected().shows(&["`edits` is empty"]),
        // ---- Write
        case("write_creates_with_parents", "Claude Code Write description: \"Writes a file to the local filesystem. This tool will overwrite the existing file if there is one\"", "Write",
            json!({"file_path": "$ROOT/notes/todo.md", "content": "# TODO\n"}))
            .then("notes/todo.md", Some("# TODO\n")),
        case("write_overwrites", "Claude Code Write description: \"This tool will overwrite the existing file if there is one\"", "Write",
            json!({"file_path": "$ROOT/a.txt", "content": "new\n"}))
            .file("a.txt", ten.clone()).then("a.txt", Some("new\n")),
        // ---- Grep
        case("grep_files_with_matches_is_the_default", GREP_RESULT, "Grep", json!({"pattern": "alpha", "path": "$ROOT"}))
            .file("a.txt", "alpha\n").file("b.txt", "beta\n").file("c.txt", "alpha beta\n")
            .shows(&["Found 2 files", "$ROOT/a.txt", "$ROOT/c.txt"]).hides(&["b.txt"]),
        case("grep_content_with_line_numbers", GREP_RESULT, "Grep",
            json!({"pattern": "println", "path": "$ROOT", "output_mode": "content"}))
            .file("main.rs", MAIN_RS).shows(&["$ROOT/main.rs:3:    println!(\"{line}\");"]),
        case("grep_count", GREP_RESULT, "Grep", json!({"pattern": "a", "path": "$ROOT", "output_mode": "count"}))
            .file("x.txt", "a\na\nb\n").file("y.txt", "a\n")
            .shows(&["$ROOT/x.txt:2", "$ROOT/y.txt:1", "Found 3 total occurrences across 2 files."]),
        case("grep_no_files", GREP_RESULT, "Grep", json!({"pattern": "zzz_none", "path": "$ROOT"}))
            .file("a.txt", "alpha\n").shows(&["No files found"]),
        case("grep_no_content_matches", GREP_RESULT, "Grep",
            json!({"pattern": "zzz_none", "path": "$ROOT", "output_mode": "content"}))
            .file("a.txt", "alpha\n").shows(&["No matches found"]),
        case("grep_head_limit_0_is_unlimited", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content", "head_limit": 0}))
            .file("big.txt", numbered(1100))
            .shows(&["$ROOT/big.txt:1100:line 1100"]).hides(&["not shown"]),
        case("grep_default_cap_says_what_was_left_out", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content"}))
            .file("big.txt", numbered(1100))
            .shows(&["$ROOT/big.txt:1000:line 1000", "100 more lines not shown", "offset=1000"])
            .hides(&["line 1001\n"]),
        case("grep_offset_pages_through_rows", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content", "offset": 2, "head_limit": 2}))
            .file("a.txt", ten.clone())
            .shows(&["$ROOT/a.txt:3:line 3\n$ROOT/a.txt:4:line 4\n", "offset=4"])
            .hides(&["a.txt:2:", "a.txt:5:"]),
        case("grep_offset_in_files_mode", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "x", "path": "$ROOT", "offset": 1, "head_limit": 1}))
            .file("a.txt", "x\n").file("b.txt", "x\n").file("c.txt", "x\n")
            .shows(&["$ROOT/b.txt", "offset=2"]).hides(&["$ROOT/a.txt", "$ROOT/c.txt"]),
        case("grep_context_is_dash_c", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "line 5", "path": "$ROOT", "output_mode": "content", "context": 1}))
            .file("a.txt", ten.clone())
            .shows(&["$ROOT/a.txt-4-line 4\n$ROOT/a.txt:5:line 5\n$ROOT/a.txt-6-line 6\n"]),
        case("grep_only_matching", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "v[0-9]+", "path": "$ROOT", "output_mode": "content", "-o": true}))
            .file("a.txt", "use v1 and v22\nnone\n")
            .shows(&["$ROOT/a.txt:1:v1\n$ROOT/a.txt:1:v22\n"]).hides(&["use v1"]),
        // ---- Glob and LS
        case("glob_finds_by_pattern", GLOB_DESC, "Glob", json!({"pattern": "**/*.rs", "path": "$ROOT"}))
            .file("src/main.rs", MAIN_RS).file("README.md", "# r\n")
            .shows(&["$ROOT/src/main.rs"]).hides(&["README.md"]),
        case("glob_nothing", GLOB_DESC, "Glob", json!({"pattern": "*.zzz", "path": "$ROOT"}))
            .shows(&["No files found"]),
        case("ls_lists_a_tree", LS_DOC, "LS", json!({"path": "$ROOT", "ignore": ["*.log"]}))
            .file("src/main.rs", MAIN_RS).file("debug.log", "x\n")
            .shows(&["- $ROOT/", "  - src/", "    - main.rs"]).hides(&["debug.log"]),
        case("a_failed_result_says_why_in_content", SEED, "Read", json!({"file_path": "$ROOT/dir"}))
            .file("dir/x.txt", "x\n").fails().shows(&["directory"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("claude", &cases());
}

/// Over MCP the rows are checked against the text content and the structured reply too: the
/// claude dialect's reply fields (`content`, `error`, `filePath`) are what the table's reference page gives.
#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("claude", &cases());
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("claude", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "claude",
        &cases(),
        &["Read", "Write", "Edit", "MultiEdit", "LS", "Glob", "Grep"],
        15,
    );
}
