//! Every bad input of the foundation issue, through `filekit call` the way an agent sends it:
//! each gets an error that names the problem and what to do, the right exit code, and leaves
//! every file on disk exactly as it was (`call_fails` compares a snapshot of the tree).

use crate::common;
use common::*;
use serde_json::json;

/// Exit code of a call that ran and failed.
const FAILED: i32 = 1;
/// Exit code of a call rejected before anything was attempted.
const BAD_REQUEST: i32 = 2;

#[test]
fn missing_file_names_similar_paths() {
    let sb = Sandbox::new();
    sb.write("src/config.json", "{}\n");
    let run = sb.call_fails(
        "file:read_file",
        json!({"path": "src/confg.json"}),
        FAILED,
        &["does not exist", "did you mean"],
    );
    let shown = sb.path("src/config.json").display().to_string();
    let error = run.json["error"].as_str().unwrap();
    assert!(error.contains(&shown), "{error}");
    // The suggestion is the file itself, not a directory-looking path.
    assert!(!error.contains(&format!("{shown}/")), "{error}");
    assert_eq!(run.json["error_code"], "NOT_FOUND");

    // The same for an edit, in another dialect.
    sb.call_fails(
        "Edit",
        json!({"file_path": "src/confg.json", "old_string": "{}", "new_string": "[]"}),
        FAILED,
        &["does not exist", "config.json"],
    );
}

#[test]
fn directory_given_for_a_file() {
    let sb = Sandbox::new();
    sb.write("src/a.txt", "a\n");
    let run = sb.call_fails(
        "Read",
        json!({"file_path": "src"}),
        FAILED,
        &["is a directory", "list the directory"],
    );
    assert_eq!(run.json["errorCode"], "IS_DIRECTORY");
    sb.call_fails(
        "fs_write",
        json!({"command": "append", "path": "src", "new_str": "x"}),
        FAILED,
        &["is a directory"],
    );
}

#[test]
fn file_that_is_not_utf8() {
    let sb = Sandbox::new();
    // Latin-1 is read and edited in its encoding.
    sb.write_bytes("latin1.txt", b"caf\xe9 au lait\nline two\n");
    let run = sb.call(
        "edit_block",
        json!({"file_path": "latin1.txt", "old_string": "two", "new_string": "2"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        std::fs::read(sb.path("latin1.txt")).unwrap(),
        b"caf\xe9 au lait\nline 2\n"
    );
    let run = sb.call("file:read_file", json!({"path": "latin1.txt"}));
    assert!(run.stdout.contains("café au lait"), "{}", run.stdout);
    // UTF-16 cut in the middle of a character is not UTF-16: refused, saying where.
    sb.write_bytes("cut.txt", b"\xff\xfea\0b");
    let run = sb.call_fails(
        "edit_block",
        json!({"file_path": "cut.txt", "old_string": "a", "new_string": "x"}),
        FAILED,
        &["not valid UTF-16LE", "offset 4", "convert it to UTF-8"],
    );
    assert_eq!(run.json["errorCode"], "ENCODING");
}

#[test]
fn binary_file_is_described_and_not_edited() {
    let sb = Sandbox::new();
    sb.write_bytes("blob.bin", b"head\0\x01\x02tail\n");
    let run = sb.call_fails(
        "Edit",
        json!({"file_path": "blob.bin", "old_string": "head", "new_string": "x"}),
        FAILED,
        &["binary file", "cannot be edited as text"],
    );
    assert_eq!(run.json["errorCode"], "BINARY");
    // A read describes it and never dumps the bytes.
    let run = sb.call("fs_read", json!({"mode": "Line", "path": "blob.bin"}));
    assert!(run.stdout.contains("binary"), "{}", run.stdout);
    assert!(!run.stdout.contains("tail"), "{}", run.stdout);
}

#[test]
fn line_numbers_out_of_range() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "start_line": 11, "end_line": 12, "new_content": "x"}),
        FAILED,
        &["out of range", "the file has 10 lines"],
    );
    sb.call_fails(
        "write_from_line",
        json!({"path": "a.txt", "startLine": 20, "content": "x"}),
        FAILED,
        &["out of range"],
    );
    sb.call_fails(
        "file:read_file",
        json!({"path": "a.txt", "start_line": 15}),
        FAILED,
        &["10 lines"],
    );
}

#[test]
fn overlapping_line_edits() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "edits": [
            {"start_line": 2, "end_line": 4, "new_content": "x"},
            {"start_line": 4, "end_line": 6, "new_content": "y"}
        ]}),
        FAILED,
        &[
            "edit 2 (lines 4-6) overlaps edit 1 (lines 2-4)",
            "merge the two edits",
        ],
    );
    assert!(run.stdout.contains("CONFLICT"), "{}", run.stdout);
}

#[test]
fn stale_or_wrong_content_hash() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let read = sb.call("fs_read", json!({"mode": "Line", "path": "a.txt"}));
    let hash = read.json["content_hash"].as_str().unwrap().to_string();
    // Someone else changes the file after it was read.
    sb.write("a.txt", &TEN_LINES.replace("line 3", "LINE THREE"));
    // The edit meets the other change (line 3 on both sides): a conflict, both sides shown.
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "replace_lines", "path": "a.txt", "start_line": 3, "end_line": 3,
               "new_str": "three\n", "content_hash": hash}),
        FAILED,
        &["changed since version", "LINE THREE", "read the file again"],
    );
    assert_eq!(run.json["error_code"], "CONFLICT");
    assert_eq!(
        run.json["details"]["conflicts"][0]["current"], "LINE THREE\n",
        "{}",
        run.stdout
    );
    // A version filekit never served cannot be merged: stale, with the lines as they are.
    let never = format!("{:016x}", 0x0123_4567_89ab_cdefu64);
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "replace_lines", "path": "a.txt", "start_line": 3, "end_line": 3,
               "new_str": "three\n", "content_hash": never}),
        FAILED,
        &["changed since it was read", "read the file again"],
    );
    assert_eq!(run.json["error_code"], "STALE");
    assert!(
        run.json["details"]["current"]
            .as_str()
            .unwrap()
            .contains("LINE THREE"),
        "{}",
        run.stdout
    );
    // A hash that is not hex at all is an argument error.
    sb.call_fails(
        "fs_write",
        json!({"command": "insert", "path": "a.txt", "insert_line": 1,
               "new_str": "x\n", "content_hash": "not-a-hash"}),
        FAILED,
        &["content_hash"],
    );
}

#[test]
fn empty_search_text() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "", "new_str": "x"}),
        FAILED,
        &[
            "`old_str` is empty",
            "use command insert (after a line) or append",
        ],
    );
    sb.call_fails(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "", "new_string": "x"}),
        FAILED,
        &["empty"],
    );
}

#[test]
fn search_text_not_found_gives_the_near_miss() {
    let sb = Sandbox::new();
    sb.write(
        "calc.js",
        "function f() {\n  const total = price * qty;\n  return total;\n}\n",
    );
    let run = sb.call_fails(
        "edit_block",
        json!({"file_path": "calc.js", "old_string": "const total = price * quantity;",
               "new_string": "const total = 0;"}),
        FAILED,
        &["not found", "line 2", "similarity"],
    );
    let near = &run.json["details"]["near_miss"];
    assert_eq!(near["line"], 2);
    // The closest stretch of the file, exactly as it is there (ready to copy).
    assert_eq!(near["found"], "const total = price * qty;");
    assert!(near["similarity"].as_f64().unwrap() > 0.8);
    assert_eq!(
        run.json["details"]["wanted"],
        "const total = price * quantity;"
    );
}

#[test]
fn several_matches_list_their_lines() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n");
    let run = sb.call_fails(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 9"}),
        FAILED,
        &["3 times", "lines 1, 3, 5"],
    );
    assert_eq!(run.json["details"]["lines"], json!([1, 3, 5]));
    // The expected count makes it work.
    let run = sb.call(
        "edit_block",
        json!({"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 9",
               "expected_replacements": 3}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n");
}

#[test]
fn paths_outside_the_roots() {
    let sb = Sandbox::new();
    sb.write("inside.txt", "in\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let secret = outside.path().join("secret.txt");
    let evil = format!("{}-evil/x.txt", sb.root().display());
    std::os::unix::fs::symlink(outside.path(), sb.path("link")).unwrap();

    for path in [
        secret.to_str().unwrap(),
        "../outside.txt",
        evil.as_str(),
        "link/secret.txt",
    ] {
        let run = sb.call_fails(
            "Write",
            json!({"file_path": path, "content": "pwned\n"}),
            FAILED,
            &["outside the workspace", "allowed roots"],
        );
        assert_eq!(run.json["errorCode"], "OUT_OF_ROOT", "{path}");
        sb.call_fails(
            "file:read_file",
            json!({"path": path}),
            FAILED,
            &["outside the workspace"],
        );
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret\n");
    assert!(!std::path::Path::new(&evil).exists());
}

#[test]
fn malformed_json() {
    let sb = Sandbox::new();
    let before = sb.snapshot();
    let run = sb.filekit(
        &["call"],
        Some(r#"{"tool_name": "Read", "tool_args": {"file_path": "a"#),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stdout);
    assert_eq!(run.json["error_code"], "PARSE_ERROR");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("line 1, column")
    );

    let run = sb.filekit(&["call", "--json", "[1, 2]"], None);
    assert_eq!(run.code, BAD_REQUEST);
    assert!(run.stdout.contains("tool_name"), "{}", run.stdout);

    let run = sb.filekit(&["call"], Some(""));
    assert_eq!(run.code, BAD_REQUEST);
    assert!(!run.json["error"].as_str().unwrap().is_empty());
    assert_eq!(before, sb.snapshot());

    // A plan for `filekit edit` that is not JSON.
    let run = sb.filekit(&["edit"], Some("{files: ["));
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stderr);
    assert!(run.stderr.contains("line 1"), "{}", run.stderr);
}

#[test]
fn unknown_tool_suggests_the_closest_names() {
    let sb = Sandbox::new();
    let run = sb.call_fails(
        "fs_reed",
        json!({}),
        BAD_REQUEST,
        &["unknown tool 'fs_reed'"],
    );
    assert_eq!(run.json["error_code"], "UNKNOWN_TOOL");
    assert_eq!(run.json["closest"][0], "fs_read");
    // (`read_file` itself is a tool of the mcp-filesystem table.)
    let run = sb.call_fails("file_reed_file", json!({}), BAD_REQUEST, &["did you mean"]);
    assert_eq!(run.json["closest"][0], "file:read_file");
    // A name two tables share is one suggestion, and the message stays short: the list of
    // every tool is `filekit tools`.
    let run = sb.call_fails("raed_file", json!({}), BAD_REQUEST, &["filekit tools"]);
    let closest: Vec<&str> = (run.json["closest"].as_array().unwrap().iter())
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut unique = closest.clone();
    unique.dedup();
    assert_eq!(closest, unique, "{closest:?}");
    assert!(run.stderr.len() < 300, "{}", run.stderr);
}

#[test]
fn missing_or_mistyped_arguments() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call_fails(
        "Edit",
        json!({"file_path": "a.txt", "new_string": "x"}),
        BAD_REQUEST,
        &["missing required argument `old_string`", "string"],
    );
    assert_eq!(run.json["success"], false);
    sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": 5, "new_str": "x"}),
        BAD_REQUEST,
        &["argument `old_str`", "expected a string"],
    );
    sb.call_fails(
        "file:edit_file",
        json!({"path": "a.txt", "start_line": "two", "end_line": 3, "new_content": "x"}),
        BAD_REQUEST,
        &["start_line", "integer"],
    );
    sb.call_fails(
        "fs_write",
        json!({"fileEdits": [{"path": "a.txt", "edits": [
            {"command": "replace_lines", "start_line": 1, "end_line": "3", "new_str": "x"}]}]}),
        BAD_REQUEST,
        &["fileEdits[0].edits[0].end_line", "integer"],
    );
    sb.call_fails(
        "fs_write",
        json!({"command": "str_rep", "path": "a.txt", "old_str": "a", "new_str": "b"}),
        BAD_REQUEST,
        &["unknown value `str_rep`", "str_replace"],
    );
    sb.call_fails(
        "batch_edit_blocks",
        json!({"edits": "not a list"}),
        BAD_REQUEST,
        &["edits"],
    );
    sb.call_fails(
        "Read",
        json!("a.txt"),
        BAD_REQUEST,
        &["must be a JSON object"],
    );
}

#[test]
fn read_only_workspace_refuses_every_write() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let before = sb.snapshot();
    let call = json!({"tool_name": "Write", "tool_args": {"file_path": "a.txt", "content": "x"}});
    let run = sb.filekit(&["--read-only", "call", "--json", &call.to_string()], None);
    assert_eq!(run.code, FAILED, "{}", run.stdout);
    assert!(run.stdout.contains("read-only"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
    // Reads still work.
    let call = json!({"tool_name": "Read", "tool_args": {"file_path": "a.txt"}});
    let run = sb.filekit(&["--read-only", "call", "--json", &call.to_string()], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// Permission denied: the binary runs as a user the files' modes apply to (see
/// `call_unprivileged`).
#[test]
fn permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.write("locked.txt", "private\n");
    sb.write("open.txt", "public\n");
    let before = sb.snapshot();
    let first = call_unprivileged(
        &sb,
        &json!({"tool_name": "Read", "tool_args": {"file_path": "open.txt"}}),
    );
    assert_eq!(first.code, 0, "{} {}", first.stdout, first.stderr);
    // The owner's alone now (the sandbox itself is writable by its owner only).
    std::fs::set_permissions(
        sb.path("locked.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();

    let run = call_unprivileged(
        &sb,
        &json!({"tool_name": "Read", "tool_args": {"file_path": "locked.txt"}}),
    );
    assert_eq!(run.code, FAILED, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["errorCode"], "PERMISSION_DENIED", "{}", run.stdout);
    assert!(run.stdout.contains("permission"), "{}", run.stdout);

    // Readable but not writable by this user: the edit fails and the file is untouched.
    let run = call_unprivileged(
        &sb,
        &json!({"tool_name": "Edit", "tool_args": {
        "file_path": "open.txt", "old_string": "public", "new_string": "changed"}}),
    );
    assert_eq!(run.code, FAILED, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["errorCode"], "PERMISSION_DENIED", "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}
