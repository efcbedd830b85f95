//! The claude dialect (`Read`, `Write`, `Edit`, `MultiEdit`) through `filekit call`, with
//! the argument shapes of the familiar tools and the `ToolResult` reply.

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn read_numbers_lines_and_pages_with_offset_and_limit() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call(
        "Read",
        json!({"file_path": sb.path("a.txt").to_str().unwrap()}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["success"], true);
    assert!(
        run.json["content"]
            .as_str()
            .unwrap()
            .starts_with("     1\tline 1\n")
    );
    assert!(run.json["filePath"].as_str().unwrap().ends_with("a.txt"));

    let run = sb.call(
        "Read",
        json!({"file_path": "a.txt", "offset": 4, "limit": 2}),
    );
    assert_eq!(run.json["content"], "     4\tline 4\n     5\tline 5\n");
    assert_eq!(run.json["shortResult"], "Read lines 4-5 of 10");
}

#[test]
fn read_shows_images_as_images() {
    let sb = Sandbox::new();
    sb.write_bytes("img/pic.png", PNG_1X1);
    let run = sb.call("Read", json!({"file_path": "img/pic.png"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["images"][0]["mediaType"], "image/png");
    assert!(
        run.json["images"][0]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBOR")
    );
}

#[test]
fn write_creates_with_parents_and_overwrites() {
    let sb = Sandbox::new();
    let run = sb.call(
        "Write",
        json!({"file_path": "notes/todo.md", "content": "# TODO\n"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("notes/todo.md"), "# TODO\n");
    assert!(run.json["content"].as_str().unwrap().starts_with("Created"));
    let run = sb.call(
        "Write",
        json!({"file_path": "notes/todo.md", "content": "# DONE\n"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("notes/todo.md"), "# DONE\n");
    assert_eq!(
        run.json["contentHash"].as_str().unwrap(),
        hash_of(&sb, "notes/todo.md")
    );
}

#[test]
fn edit_replaces_once_or_all() {
    let sb = Sandbox::new();
    sb.write("app.ts", "const port = 3000;\nfoo(1);\nfoo(2);\n");
    let run = sb.call(
        "Edit",
        json!({"file_path": "app.ts", "old_string": "const port = 3000;", "new_string": "const port = 8080;"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.json["content"]
            .as_str()
            .unwrap()
            .contains("     1\tconst port = 8080;")
    );
    assert_eq!(run.json["shortResult"], "Replaced 1 occurrence at line 1");

    let run = sb.call(
        "Edit",
        json!({"file_path": "app.ts", "old_string": "foo(", "new_string": "bar(", "replace_all": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("app.ts"), "const port = 8080;\nbar(1);\nbar(2);\n");
    assert_eq!(run.json["shortResult"], "Replaced 2 occurrences at line 2");
}

#[test]
fn edit_with_no_change_is_refused() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    sb.call_fails(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "x", "new_string": "x"}),
        2,
        &["exactly the same"],
    );
}

#[test]
fn multi_edit_applies_in_order() {
    let sb = Sandbox::new();
    sb.write("a.ts", "let a = 1;\nfoo(a);\nfoo(2);\n");
    let run = sb.call(
        "MultiEdit",
        json!({"file_path": "a.ts", "edits": [
            {"old_string": "let a = 1;", "new_string": "const a = 1;"},
            {"old_string": "foo(", "new_string": "bar(", "replace_all": true},
            {"old_string": "const a", "new_string": "const b"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.ts"), "const b = 1;\nbar(a);\nbar(2);\n");
    assert_eq!(run.json["shortResult"], "Applied 3 edits (4 replacements)");
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let sb = Sandbox::new();
    sb.write("a.ts", "let a = 1;\n");
    let run = sb.call_fails(
        "MultiEdit",
        json!({"file_path": "a.ts", "edits": [
            {"old_string": "let a", "new_string": "const a"},
            {"old_string": "missing text", "new_string": "x"}
        ]}),
        1,
        &[
            "edit 2 of 2 failed, nothing was written",
            "`old_string` was not found",
        ],
    );
    assert_eq!(run.json["success"], false);
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert_eq!(run.json["content"], run.json["error"]);
}
