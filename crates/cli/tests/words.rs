//! Errors in the words of the tool that was called: the engine reports
//! what went wrong as facts (`details.fact`: match count, empty search text, text not found),
//! and each dialect, and the CLI's `filekit edit`, says it with its own argument names and
//! numbers its edits from 1. Every case runs through `filekit call` (or the verb) and checks
//! the words the tool must use and the words of other tools it must not.

use crate::common::*;
use serde_json::{Value, json};

/// Asserts that `said` contains every one of `shows` and none of `hides`.
fn says(said: &str, shows: &[&str], hides: &[&str]) {
    for s in shows {
        assert!(said.contains(s), "expected {s:?} in:\n{said}");
    }
    for h in hides {
        assert!(!said.contains(h), "{h:?} should not be in:\n{said}");
    }
}

/// Words of the engine or of other tools that no reply may show.
const FOREIGN: &[&str] = &[
    "ask to replace all",
    "details.near_miss",
    "edit 0 (",
    "the search text (old_str)",
];

fn error_of(run: &Run) -> String {
    let v: &Value = &run.json;
    let first = if v.is_array() { &v[0] } else { v };
    first["error"].as_str().unwrap_or_default().to_string()
}

#[test]
fn claude_edit_names_replace_all_and_shows_the_near_miss_itself() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\nb\na\n");
    let run = sb.call_fails(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "z"}),
        1,
        &[],
    );
    let mut hides = FOREIGN.to_vec();
    hides.push("expected_replacements");
    says(
        &error_of(&run),
        &[
            "`old_string` matches 2 times in a.txt (at lines 1, 3)",
            "set `replace_all` to true to replace all 2",
        ],
        &hides,
    );
    assert_eq!(run.json["details"]["fact"], "match_count");

    sb.write("m.rs", "fn main() {\n    let total = compute(a, b);\n}\n");
    let run = sb.call_fails(
        "Edit",
        json!({"file_path": "m.rs", "old_string": "let total = compute(a, c);", "new_string": "x"}),
        1,
        &[],
    );
    says(
        &error_of(&run),
        &[
            "`old_string` was not found",
            "copy the text exactly as the file has it at line 2: \"let total = compute(a, b);\"",
        ],
        FOREIGN,
    );
}

#[test]
fn multi_edit_numbers_its_edits_from_one_and_names_old_string() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\n");
    let run = sb.call_fails(
        "MultiEdit",
        json!({"file_path": "a.txt", "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "", "new_string": "x"}
        ]}),
        1,
        &[],
    );
    says(
        &error_of(&run),
        &[
            "edit 2 of 2 failed, nothing was written",
            "`old_string` is empty",
            "only the first edit may have an empty old_string",
        ],
        &["insert or append", "old_str`", "edit 1 of 2"],
    );
}

#[test]
fn fs_write_names_old_str_and_its_own_commands() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\nb\na\n");
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "a", "new_str": "z"}),
        1,
        &[],
    );
    let mut hides = FOREIGN.to_vec();
    hides.extend(["replace_all", "expected_replacements", "old_string"]);
    says(
        &error_of(&run),
        &[
            "`old_str` matches 2 times in a.txt (at lines 1, 3)",
            "so that it matches once",
        ],
        &hides,
    );
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "", "new_str": "z"}),
        1,
        &[],
    );
    says(
        &error_of(&run),
        &[
            "`old_str` is empty",
            "use command insert (after a line) or append",
        ],
        FOREIGN,
    );
    // In a batch, the failed edit is named by its place in the arguments.
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "atomic": true, "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "str_replace", "old_str": "b", "new_str": "B"},
            {"command": "str_replace", "old_str": "a", "new_str": "z"}
        ]}]}),
        1,
        &[],
    );
    let failed = &run.json[0]["failed_edits"][0];
    says(
        failed["error"].as_str().unwrap(),
        &["fileEdits[0].edits[1] (str_replace): `old_str` matches 2 times"],
        FOREIGN,
    );
}

#[test]
fn edit_block_says_it_as_desktop_commander_does() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\nb\na\n");
    let run = sb.call_fails(
        "edit_block",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "z"}),
        1,
        &[],
    );
    let mut hides = FOREIGN.to_vec();
    hides.extend(["replace_all", "(str_replace)"]);
    says(
        &error_of(&run),
        &[
            "Expected 1 occurrences but found 2 in a.txt (at lines 1, 3)",
            "set expected_replacements to 2",
        ],
        &hides,
    );
    let run = sb.call_fails(
        "edit_block",
        json!({"file_path": "a.txt", "old_string": "", "new_string": "z"}),
        1,
        &[],
    );
    says(
        &error_of(&run),
        &["Empty search strings are not allowed"],
        &["insert or append", "old_str`"],
    );
    // batch_edit_blocks: its own argument name, per edit.
    let run = sb.call_fails(
        "batch_edit_blocks",
        json!({"path": "a.txt", "edits": [{"search": "a", "replace": "z"}]}),
        1,
        &[],
    );
    says(
        run.json["results"][0]["message"].as_str().unwrap(),
        &[
            "`search` matches 2 times",
            "set that edit's `expectedReplacements` to 2",
        ],
        FOREIGN,
    );
}

#[test]
fn filekit_edit_names_the_plan_s_fields_and_counts_from_one() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\nb\na\n");
    let plan = r#"{"files": [{"path": "a.txt", "edits": [
        {"str_replace": {"old": "b", "new": "B"}},
        {"str_replace": {"old": "a", "new": "z"}}
    ]}]}"#;
    let run = sb.filekit(&["edit", "-"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stdout);
    says(
        &run.stdout,
        &[
            "edit 2 (str_replace): AMBIGUOUS: `old` matches 2 times in a.txt",
            "set that edit's \"expected\" to 2 (or \"all\")",
            "edit 1 (str_replace): 1 change(s)",
        ],
        &["[0]", "[1]", "ask to replace all", "replace_all"],
    );
}

#[test]
fn line_errors_name_each_tool_s_own_line_arguments() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    // file:edit_file: start_line/end_line.
    let run = sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "start_line": 11, "end_line": 12, "new_content": "x"}),
        1,
        &[],
    );
    says(
        &run.stdout,
        &["`start_line` 11 is out of range: the file has 10 lines"],
        &["startLine", "`start` "],
    );
    // write_from_line: startLine/endLine.
    let run = sb.call_fails(
        "write_from_line",
        json!({"path": "a.txt", "startLine": 6, "endLine": 3, "content": "x"}),
        1,
        &[],
    );
    says(
        &run.stdout,
        &["`endLine` 3 is before `startLine` 6"],
        &["start_line", "end_line"],
    );
    // filekit edit: the plan's start/after and content_hash.
    let plan = r#"{"files": [{"path": "a.txt", "edits": [
        {"insert": {"after": 40, "text": "x"}}
    ]}]}"#;
    let run = sb.filekit(&["edit", "-"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stdout);
    says(
        &run.stdout,
        &[
            "`after` 40 is out of range: the file has 10 lines",
            "0 inserts at the top, 10 at the end",
        ],
        &["insert_line", "[0]"],
    );
    assert_eq!(sb.read("a.txt"), TEN_LINES);
}
