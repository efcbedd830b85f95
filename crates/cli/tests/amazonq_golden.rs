//! Golden cases of the `amazonq` dialect: one row per call an agent trained on the Amazon Q
//! Developer CLI makes (`fs_read`, `fs_write`), with the reply (the part that matters) and
//! beside each the source it was taken from. Every row runs through `filekit call` and over
//! MCP stdio (see `golden/mod.rs`). Where filekit deliberately differs from the Q CLI (it
//! refuses unknown arguments, keeps its batch design's line-edit rules, numbers lines, reports
//! versions), the row says so.
//!
//! Sources, named by the constants below: the Q CLI's source at aws/amazon-q-developer-cli
//! 15cc8f3 (`crates/chat-cli/src/cli/chat/tools/fs_read.rs`, `fs_write.rs`, and the tool
//! specs the model is given, `tool_index.json`), and the batch shapes filekit's amazonq table
//! adds (docs/tools/amazonq.md).

use crate::common::*;
use crate::golden::*;
use serde_json::json;

const READ_SPEC: &str = "Q CLI tool_index.json, fs_read: \"Always provide an 'operations' array\"; example {\"operations\": [{\"mode\": \"Line\", \"path\": \"/file.txt\"}]}";
const READ_BATCH: &str = "Q CLI fs_read.rs, FsRead::invoke: several operations answer \"=== Operation N Result (Json) ===\" / \"=== Operation N Error ===\" and \"Summary: N operations processed, S successful, F failed\"";
const READ_LINE: &str = "Q CLI fs_read.rs, FsLine: start_line default 1, end_line default -1; convert_negative_index: a negative index counts from the end; the range is inclusive on both ends";
const READ_LINE_ERR: &str =
    "Q CLI fs_read.rs, FsLine::validate: \"'{path}' does not exist\", \"'{path}' is not a file\"";
const READ_DIR: &str = "Q CLI fs_read.rs, FsDirectory::invoke: each entry is shown `ls -l` style with ent.path(), the listed path joined with the entry's name; depth default 0";
const READ_DIR_ERR: &str =
    "Q CLI fs_read.rs, FsDirectory::validate: \"Directory not found\", \"Path is not a directory\"";
const READ_SEARCH: &str = "Q CLI tool_index.json, fs_read pattern: \"Case insensitive. The pattern matching is performed per line.\"; context_lines default 2 (fs_read.rs, FsSearch)";
const READ_SEARCH_EMPTY: &str =
    "Q CLI fs_read.rs, FsSearch::validate: \"Search pattern cannot be empty\"";
const READ_IMAGE: &str =
    "Q CLI fs_read.rs, FsImage::validate: \"'{path}' is not a supported image type\"";
const READ_MODES: &str = "Q CLI tool_index.json, fs_read mode: enum [\"Line\", \"Directory\", \"Search\", \"Image\"] (serde refuses any other tag)";
const WRITE_SPEC: &str = "Q CLI tool_index.json, fs_write: \"The `create` command will override the file at `path` if it already exists as a file, and otherwise create a new file\"";
const WRITE_CREATE: &str = "Q CLI fs_write.rs, FsWrite::invoke Create: create_dir_all(parent), then write file_text; canonical_create_command_text takes `new_str` when `file_text` is missing";
const WRITE_REPLACE: &str = "Q CLI fs_write.rs, StrReplace: exactly one match is replaced; 0 matches \"no occurrences of \\\"{old_str}\\\" were found\", more \"{x} occurrences of old_str were found when only 1 is expected\"";
const WRITE_INSERT: &str = "Q CLI tool_index.json, insert_line: \"The `new_str` will be inserted AFTER the line `insert_line` of `path`.\" (fs_write.rs: 0 inserts at the top)";
const WRITE_APPEND: &str = "Q CLI tool_index.json, fs_write: \"The `append` command will add content to the end of an existing file, automatically adding a newline if the file doesn't end with one. The file must exist.\"";
const WRITE_EXISTS: &str = "Q CLI fs_write.rs, FsWrite::validate: \"The provided path must exist in order to replace or insert contents into it\"";
const WRITE_COMMANDS: &str = "Q CLI tool_index.json, fs_write command: enum [\"create\", \"str_replace\", \"insert\", \"append\"], required [\"command\", \"path\"] (filekit adds replace_lines and pattern_replace)";
const STRICT: &str = "filekit, deliberately stricter than the Q CLI (whose serde ignores unknown keys): an unknown argument is refused with the closest valid name and nothing is done";
const BATCH_SHAPE: &str = "filekit's batch shape: fileEdits, replace_lines and insert need content_hash; line numbers 1-based; replies carry content_hash";
const SUMMARY: &str = "Q CLI tool_index.json: `summary` (fs_read: \"Optional description of the purpose of this batch operation\"; fs_write: \"A brief explanation of what the file change does\")";

fn cases() -> Vec<Case> {
    let ten = TEN_LINES.to_string();
    vec![
        // ---- fs_read, Line
        case("read_one_operation", READ_SPEC, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt"}]}))
            .file("a.txt", ten.clone())
            .shows(&["     1\tline 1\n", "    10\tline 10\n"]),
        case("read_from_start_line", READ_LINE, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "start_line": 9}]}))
            .file("a.txt", ten.clone())
            .shows(&["     9\tline 9\n    10\tline 10\n"]).hides(&["     8\t"]),
        case("read_negative_start_line_counts_from_the_end", READ_LINE, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "start_line": -2}]}))
            .file("a.txt", ten.clone())
            .shows(&["     9\tline 9\n    10\tline 10\n"]).hides(&["     8\t"]),
        case("read_range_is_inclusive", READ_LINE, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "start_line": 2, "end_line": 3}]}))
            .file("a.txt", ten.clone())
            .shows(&["     2\tline 2\n     3\tline 3\n"]).hides(&["     4\t", "     1\t"]),
        case("read_start_past_the_end_fails", "Q CLI fs_read.rs, FsLine::invoke: \"starting index: {start} is outside of the allowed range\"", "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "start_line": 50}]}))
            .file("a.txt", ten.clone()).fails().shows(&["50"]),
        case("read_missing_file_fails", READ_LINE_ERR, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/missing.txt"}]}))
            .fails().shows(&["$ROOT/missing.txt does not exist", "NOT_FOUND"]),
        case("read_a_directory_as_lines_fails", READ_LINE_ERR, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/sub"}]}))
            .file("sub/a.py", "x\n").fails().shows(&["directory"]),
        case("read_batch_of_operations", READ_BATCH, "fs_read",
            json!({"operations": [
                {"mode": "Line", "path": "$ROOT/a.txt", "start_line": -1},
                {"mode": "Search", "path": "$ROOT/b.txt", "pattern": "test"}
            ]}))
            .file("a.txt", ten.clone()).file("b.txt", "a test\nnone\n")
            .shows(&["line 10", "a test"]).hides(&["line 9"])
            .reads(&["=== Operation 1 Result (Json) ===", "=== Operation 2 Result (Json) ===", "Summary: 2 operations processed, 2 successful, 0 failed"]),
        case("read_batch_with_a_failed_operation", READ_BATCH, "fs_read",
            json!({"operations": [
                {"mode": "Line", "path": "$ROOT/a.txt"},
                {"mode": "Line", "path": "$ROOT/gone.txt"}
            ]}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["line 1", "$ROOT/gone.txt does not exist"])
            .reads(&["=== Operation 2 Error ===", "Summary: 2 operations processed, 1 successful, 1 failed"]),
        case("read_batch_with_a_refused_operation", READ_BATCH, "fs_read",
            json!({"operations": [
                {"mode": "Line", "path": "$ROOT/a.txt"},
                {"mode": "Search", "path": "$ROOT/a.txt", "pattern": ""}
            ]}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["line 1", "missing argument `operations[1].pattern`"])
            .reads(&["=== Operation 2 Error ===", "Summary: 2 operations processed, 1 successful, 1 failed"]),
        case("read_summary_is_accepted", SUMMARY, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "end_line": 1}], "summary": "look at the header"}))
            .file("a.txt", ten.clone()).shows(&["     1\tline 1\n"]).hides(&["     2\t"]),
        case("read_batch_shape_mode_at_the_top", "filekit's batch shape: fs_read {mode: \"Line\", paths: [...]} answers one entry per path with its content_hash", "fs_read",
            json!({"mode": "Line", "paths": ["$ROOT/a.txt", "$ROOT/b.txt"]}))
            .file("a.txt", "alpha\n").file("b.txt", "beta\n")
            .shows(&["     1\talpha\n", "     1\tbeta\n"]),
        // ---- fs_read, Directory
        case("directory_lists_paths_under_the_path_given", READ_DIR, "fs_read",
            json!({"operations": [{"mode": "Directory", "path": "$ROOT/sub"}]}))
            .file("sub/a.py", "x\n").file("sub/deep/b.py", "y\n")
            .shows(&[" $ROOT/sub/a.py\n", " $ROOT/sub/deep/\n"]).hides(&["b.py"]),
        case("directory_depth_descends", READ_DIR, "fs_read",
            json!({"operations": [{"mode": "Directory", "path": "sub", "depth": 1}]}))
            .file("sub/a.py", "x\n").file("sub/deep/b.py", "y\n")
            .shows(&[" sub/a.py\n", " sub/deep/b.py\n"]),
        case("directory_of_a_file_fails", READ_DIR_ERR, "fs_read",
            json!({"operations": [{"mode": "Directory", "path": "$ROOT/a.txt"}]}))
            .file("a.txt", "x\n").fails().shows(&["not a directory"]),
        case("directory_missing_fails", READ_DIR_ERR, "fs_read",
            json!({"operations": [{"mode": "Directory", "path": "$ROOT/nope"}]}))
            .fails().shows(&["NOT_FOUND"]),
        // ---- fs_read, Search and Image
        case("search_is_case_insensitive_per_line", READ_SEARCH, "fs_read",
            json!({"operations": [{"mode": "Search", "path": "$ROOT/b.txt", "pattern": "HELLO", "context_lines": 0}]}))
            .file("b.txt", "one\nhello world\nthree\n")
            .shows(&["Line 2: hello world"]).hides(&["one", "three"]),
        case("search_shows_two_context_lines_by_default", READ_SEARCH, "fs_read",
            json!({"operations": [{"mode": "Search", "path": "$ROOT/a.txt", "pattern": "line 5"}]}))
            .file("a.txt", ten.clone())
            .shows(&["Line 3- line 3", "Line 5: line 5", "Line 7- line 7"]).hides(&["line 8"]),
        case("search_empty_pattern_is_refused", READ_SEARCH_EMPTY, "fs_read",
            json!({"operations": [{"mode": "Search", "path": "$ROOT/a.txt", "pattern": ""}]}))
            .file("a.txt", ten.clone()).rejected().shows(&["missing argument `operations[0].pattern`"]),
        case("image_of_a_text_file_fails", READ_IMAGE, "fs_read",
            json!({"operations": [{"mode": "Image", "image_paths": ["$ROOT/a.txt"]}]}))
            .file("a.txt", "x\n").fails().shows(&["is not an image"]),
        // ---- fs_read, bad input
        case("read_unknown_mode_is_refused", READ_MODES, "fs_read",
            json!({"operations": [{"mode": "Lines", "path": "$ROOT/a.txt"}]}))
            .file("a.txt", "x\n").rejected().shows(&["Lines", "Line"]),
        case("read_misspelled_argument_is_refused", STRICT, "fs_read",
            json!({"operations": [{"mode": "Line", "path": "$ROOT/a.txt", "startLine": 2}]}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["unknown argument `operations[0].startLine`; did you mean `start_line`?"]),
        case("read_without_operations_is_refused", READ_SPEC, "fs_read", json!({"summary": "x"}))
            .rejected().shows(&["missing argument `operations`"]),
        // ---- fs_write
        case("create_makes_the_parents", WRITE_CREATE, "fs_write",
            json!({"command": "create", "path": "$ROOT/new/dir/f.txt", "file_text": "hello\n"}))
            .shows(&["new/dir/f.txt"]).then("new/dir/f.txt", Some("hello\n")),
        case("create_replaces_an_existing_file", WRITE_SPEC, "fs_write",
            json!({"command": "create", "path": "$ROOT/a.txt", "file_text": "new\n"}))
            .file("a.txt", "old\n").shows(&["-old", "+new"]).then("a.txt", Some("new\n")),
        case("create_with_overwrite_false_keeps_the_file", "filekit's fs_write schema: `overwrite` (create only, default true as the Q CLI replaces); false refuses, and the hint names the argument", "fs_write",
            json!({"command": "create", "path": "$ROOT/a.txt", "file_text": "new\n", "overwrite": false}))
            .file("a.txt", "old\n").fails()
            .shows(&["already exists", "`overwrite` is false: leave it out (or set it to true) to replace the file"])
            .then("a.txt", Some("old\n")),
        case("create_takes_new_str_when_file_text_is_missing", WRITE_CREATE, "fs_write",
            json!({"command": "create", "path": "$ROOT/n.txt", "new_str": "from new_str\n"}))
            .shows(&["+from new_str"]).then("n.txt", Some("from new_str\n")),
        case("str_replace_one_match", WRITE_REPLACE, "fs_write",
            json!({"command": "str_replace", "path": "$ROOT/a.txt", "old_str": "line 2\n", "new_str": "LINE 2\n"}))
            .file("a.txt", ten.clone()).shows(&["-line 2", "+LINE 2"])
            .then("a.txt", Some(&TEN_LINES.replace("line 2\n", "LINE 2\n"))),
        case("str_replace_not_found", WRITE_REPLACE, "fs_write",
            json!({"command": "str_replace", "path": "$ROOT/a.txt", "old_str": "line 11", "new_str": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`old_str` was not found", "NOT_FOUND"]).hides(&["details.near_miss"]),
        case("str_replace_more_than_one_match", WRITE_REPLACE, "fs_write",
            json!({"command": "str_replace", "path": "$ROOT/c.txt", "old_str": "a", "new_str": "z"}))
            .file("c.txt", "a\nb\na\n").fails()
            .shows(&["`old_str` matches 2 times", "at lines 1, 3", "AMBIGUOUS"])
            .hides(&["replace_all", "ask to replace all"]),
        case("str_replace_empty_old_str", "Q CLI fs_write.rs (str_replace of \"\" matches everywhere and is refused as more than one match); filekit names old_str and fs_write's own insert and append", "fs_write",
            json!({"command": "str_replace", "path": "$ROOT/a.txt", "old_str": "", "new_str": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`old_str` is empty", "use command insert (after a line) or append"]),
        case("str_replace_on_a_missing_file", WRITE_EXISTS, "fs_write",
            json!({"command": "str_replace", "path": "$ROOT/nope.txt", "old_str": "a", "new_str": "b"}))
            .fails().shows(&["NOT_FOUND"]).then("nope.txt", None),
        case("insert_after_a_line_without_content_hash", WRITE_INSERT, "fs_write",
            json!({"command": "insert", "path": "$ROOT/b.txt", "insert_line": 1, "new_str": "between\n"}))
            .file("b.txt", "one\ntwo\n").shows(&["+between"]).then("b.txt", Some("one\nbetween\ntwo\n")),
        case("insert_at_line_zero_goes_on_top", WRITE_INSERT, "fs_write",
            json!({"command": "insert", "path": "$ROOT/b.txt", "insert_line": 0, "new_str": "top"}))
            .file("b.txt", "one\ntwo\n").shows(&["+top"]).then("b.txt", Some("top\none\ntwo\n")),
        case("insert_past_the_end_stays_an_error", "Q CLI fs_write.rs clamps insert_line to the line count; filekit refuses it (\"an insert_line past the end stays an error\")", "fs_write",
            json!({"command": "insert", "path": "$ROOT/b.txt", "insert_line": 9, "new_str": "x"}))
            .file("b.txt", "one\ntwo\n").fails()
            .shows(&["`insert_line` 9 is out of range", "the file has 2 lines"]),
        case("append_adds_a_line_break_first", WRITE_APPEND, "fs_write",
            json!({"command": "append", "path": "$ROOT/b.txt", "new_str": "three"}))
            .file("b.txt", "one\ntwo").shows(&["+three"]).then("b.txt", Some("one\ntwo\nthree")),
        case("replace_lines_single_without_content_hash", "a single replace_lines in the shipping shape (no fileEdits) needs no content_hash and gives the new one", "fs_write",
            json!({"command": "replace_lines", "path": "$ROOT/a.txt", "start_line": 2, "end_line": 9, "new_str": "middle\n"}))
            .file("a.txt", ten.clone()).shows(&["+middle"])
            .then("a.txt", Some("line 1\nmiddle\nline 10\n")),
        case("replace_lines_end_before_start", BATCH_SHAPE, "fs_write",
            json!({"command": "replace_lines", "path": "$ROOT/a.txt", "start_line": 5, "end_line": 2, "new_str": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`end_line` 2 is before `start_line` 5"]).hides(&["startLine"]),
        case("replace_lines_stale_content_hash", BATCH_SHAPE, "fs_write",
            json!({"command": "replace_lines", "path": "$ROOT/a.txt", "start_line": 1, "end_line": 1, "new_str": "x", "content_hash": "0123456789abcdef"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["`content_hash` 0123456789abcdef names neither the file as it is now", "STALE"]),
        case("batch_line_edits_need_content_hash", BATCH_SHAPE, "fs_write",
            json!({"command": "insert", "fileEdits": [{"path": "$ROOT/b.txt", "edits": [
                {"command": "insert", "insert_line": 0, "new_str": "x"}]}]}))
            .file("b.txt", "one\n").rejected()
            .shows(&["missing argument `fileEdits[0].edits[0].content_hash`"]),
        case("write_summary_is_accepted", SUMMARY, "fs_write",
            json!({"command": "append", "path": "$ROOT/b.txt", "new_str": "two", "summary": "add a line"}))
            .file("b.txt", "one\n").shows(&["+two"]).then("b.txt", Some("one\ntwo\n")),
        // ---- fs_write, bad input
        case("write_unknown_command_is_refused", WRITE_COMMANDS, "fs_write",
            json!({"command": "delete", "path": "$ROOT/b.txt"}))
            .file("b.txt", "one\n").rejected().shows(&["delete", "str_replace"]),
        case("write_misspelled_file_text_is_refused", STRICT, "fs_write",
            json!({"command": "create", "path": "$ROOT/n.txt", "filetext": "x"}))
            .rejected().shows(&["unknown argument `filetext`; did you mean `file_text`?"])
            .then("n.txt", None),
        case("write_without_path_is_refused", WRITE_COMMANDS, "fs_write",
            json!({"command": "append", "new_str": "x"}))
            .rejected().shows(&["missing argument `path`"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("amazonq", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("amazonq", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed("amazonq", &cases(), &["fs_read", "fs_write"], 25);
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("amazonq", &cases());
}
