//! The `file` dialect (`file:read_file`, `file:edit_file`, `file:create_file`) through
//! `filekit call`, in the `{"thoughts", "headline", "tool_name", "tool_args"}` call format of
//! its document.

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn read_file_whole_and_range() {
    let sb = Sandbox::new();
    sb.write("middleware/auth.js", TEN_LINES);
    let run = sb.call("file:read_file", json!({"path": "middleware/auth.js"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["total_lines"], 10);
    assert!(
        run.json["content"]
            .as_str()
            .unwrap()
            .ends_with("    10\tline 10\n")
    );

    let run = sb.call(
        "file:read_file",
        json!({"path": "middleware/auth.js", "start_line": 4, "end_line": 6}),
    );
    assert_eq!(
        run.json["content"],
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n"
    );
    assert_eq!(
        run.json["content_hash"].as_str().unwrap(),
        hash_of(&sb, "middleware/auth.js")
    );
}

#[test]
fn the_mcp_name_works_too() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let run = sb.call("file_read_file", json!({"path": "a.txt"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["content"], "     1\tx\n");
}

#[test]
fn edit_file_single_range() {
    let sb = Sandbox::new();
    sb.write("config/api.js", TEN_LINES);
    let run = sb.call(
        "file:edit_file",
        json!({"path": "config/api.js", "start_line": 5, "end_line": 5, "new_content": "const API_URL = 'https://api.myapp.com/v2';"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let text = sb.read("config/api.js");
    assert!(
        text.contains("line 4\nconst API_URL = 'https://api.myapp.com/v2';\nline 6\n"),
        "{text}"
    );
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("-line 5\n+const API_URL")
    );
    // The changed line with three lines of context on each side, numbered.
    assert_eq!(
        run.json["updated_content"],
        "     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tconst API_URL = 'https://api.myapp.com/v2';\n     6\tline 6\n     7\tline 7\n     8\tline 8\n"
    );
    assert_eq!(
        run.json["content_hash"].as_str().unwrap(),
        hash_of(&sb, "config/api.js")
    );
}

#[test]
fn edit_file_multiple_ranges_use_the_numbers_as_read() {
    let sb = Sandbox::new();
    let lines: String = (1..=30).map(|i| format!("l{i}\n")).collect();
    sb.write("src/utils.js", &lines);
    let run = sb.call(
        "file:edit_file",
        json!({"path": "src/utils.js", "edits": [
            {"start_line": 1, "end_line": 3, "new_content": "import axios from 'axios';\nimport { logger } from './logger';\nimport { validateInput } from './validation';\nimport x from 'x';"},
            {"start_line": 25, "end_line": 27, "new_content": "try {\n    return await apiCall(data);\n} catch (error) {\n    throw error;\n}"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let text = sb.read("src/utils.js");
    assert!(text.starts_with("import axios from 'axios';\n"));
    assert!(text.contains("import x from 'x';\nl4\n"));
    assert!(text.contains("l24\ntry {\n"));
    assert!(text.contains("    throw error;\n}\nl28\n"));
    assert_eq!(run.json["edits_applied"], 2);
    let updated = run.json["updated_content"].as_str().unwrap();
    assert!(updated.contains("     1\timport axios"), "{updated}");
    assert!(
        updated.contains("   ...\n"),
        "two separate regions: {updated}"
    );
    assert!(
        updated.contains("    26\ttry {"),
        "new numbering: {updated}"
    );
}

#[test]
fn edit_file_is_all_or_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "edits": [
            {"start_line": 1, "end_line": 1, "new_content": "ok"},
            {"start_line": 20, "end_line": 21, "new_content": "out of range"}
        ]}),
        1,
        &["20", "out of range", "10 lines"],
    );
    assert_eq!(run.json["edits_applied"], 0);
    assert_eq!(run.json["failed_edits"][0]["index"], 1);
}

#[test]
fn edit_file_wants_one_form() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "start_line": 1, "edits": [{"start_line": 1, "end_line": 1, "new_content": "x"}]}),
        2,
        &["not both"],
    );
    sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "start_line": 1, "new_content": "x"}),
        2,
        &["missing argument `end_line`", "integer"],
    );
}

#[test]
fn create_file_makes_parents_and_refuses_existing_files() {
    let sb = Sandbox::new();
    let run = sb.call(
        "file:create_file",
        json!({"path": "src/utils/validation.js", "content": "export function validateEmail(email) {\n    return true;\n}"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["lines"], 3);
    assert_eq!(
        sb.read("src/utils/validation.js"),
        "export function validateEmail(email) {\n    return true;\n}"
    );
    assert_eq!(
        run.json["content_hash"].as_str().unwrap(),
        hash_of(&sb, "src/utils/validation.js")
    );

    let run = sb.call_fails(
        "file:create_file",
        json!({"path": "src/utils/validation.js", "content": "x"}),
        1,
        &["already exists", "file:edit_file"],
    );
    assert!(
        !run.error().contains("overwrite: true"),
        "this tool has no overwrite flag: {}",
        run.error()
    );

    let run = sb.call("file:create_file", json!({"path": "empty.txt"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("empty.txt"), "");
}
