//! The amazonq dialect (`fs_read`, `fs_write`) through `filekit call`, with the argument shapes
//! of its document.

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn fs_read_one_path_gives_numbered_content_and_version() {
    let sb = Sandbox::new();
    sb.write("src/a.txt", TEN_LINES);
    let run = sb.call("fs_read", json!({"mode": "Line", "path": "src/a.txt"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let r = &run.json;
    assert_eq!(r["path"], "src/a.txt");
    assert_eq!(r["success"], true);
    assert!(
        r["content"]
            .as_str()
            .unwrap()
            .starts_with("     1\tline 1\n     2\tline 2\n")
    );
    assert_eq!(r["content_hash"].as_str().unwrap().len(), 16);
    assert!(r["last_modified"].as_str().unwrap().ends_with('Z'));
    assert_eq!(r["total_lines"], 10);
    assert!(
        r.get("range_hash").is_none(),
        "no range asked, no range_hash"
    );
}

#[test]
fn fs_read_range_counts_negative_lines_from_the_end() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call(
        "fs_read",
        json!({"mode": "Line", "path": "a.txt", "start_line": -3, "end_line": -1}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json["content"],
        "     8\tline 8\n     9\tline 9\n    10\tline 10\n"
    );
    assert_eq!(
        (
            run.json["start_line"].as_i64(),
            run.json["end_line"].as_i64()
        ),
        (Some(8), Some(10))
    );
    assert!(run.json["range_hash"].is_string());
}

#[test]
fn fs_read_paths_gives_an_array_with_failed_entries() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n").write("b.txt", "beta\n");
    let run = sb.call(
        "fs_read",
        json!({"mode": "Line", "paths": ["a.txt", "missing.txt", "b.txt"]}),
    );
    assert_eq!(run.code, 1, "one entry failed");
    let arr = run.json.as_array().unwrap();
    assert_eq!(arr.len(), 3);
    assert_eq!(arr[0]["content"], "     1\talpha\n");
    assert_eq!(arr[1]["success"], false);
    assert_eq!(arr[1]["path"], "missing.txt");
    assert_eq!(arr[1]["error_code"], "NOT_FOUND");
    assert!(arr[1]["error"].as_str().unwrap().contains("missing.txt"));
    assert_eq!(arr[2]["content"], "     1\tbeta\n");
}

#[test]
fn fs_read_image_mode_returns_the_image() {
    let sb = Sandbox::new();
    sb.write_bytes("pic.png", PNG_1X1);
    let run = sb.call(
        "fs_read",
        json!({"mode": "Image", "image_paths": ["pic.png"]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json[0]["success"], true);
    assert_eq!(run.json[0]["mime"], "image/png");
    assert!(!run.json[0]["data"].as_str().unwrap().is_empty());
}

#[test]
fn fs_read_directory_mode_lists_entries_ls_style_to_a_depth() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n").write("src/lib.rs", "fn a() {}\n");
    sb.write("src/deep/more.rs", "\n");
    let run = sb.call("fs_read", json!({"mode": "Directory", "path": "."}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["success"], true);
    let content = run.json["content"].as_str().unwrap();
    assert!(content.starts_with("total 2\n"), "{content}");
    assert!(
        content.contains("-rw") && content.contains(" a.txt\n"),
        "{content}"
    );
    assert!(
        content.contains("drwx") && content.contains(" src/\n"),
        "{content}"
    );
    assert!(
        !content.contains("lib.rs"),
        "depth 0 lists only the directory: {content}"
    );

    let run = sb.call(
        "fs_read",
        json!({"mode": "Directory", "path": ".", "depth": 1}),
    );
    let content = run.json["content"].as_str().unwrap();
    assert!(content.contains(" src/lib.rs\n"), "{content}");
    assert!(!content.contains("more.rs"), "{content}");
    assert_eq!(run.json["truncated"], false);
}

#[test]
fn fs_read_search_mode_is_case_insensitive_with_context_lines() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES)
        .write("b.txt", "nothing\nLINE 5 here (a+b)\n");
    let run = sb.call(
        "fs_read",
        json!({"mode": "Search", "path": "a.txt", "pattern": "LINE 5", "context_lines": 1}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json["content"],
        "Line 4- line 4\nLine 5: line 5\nLine 6- line 6\n"
    );
    assert_eq!(run.json["matches"][0]["line"], 5);

    // A directory: every file, each group headed by its path; the pattern is taken literally.
    let run = sb.call(
        "fs_read",
        json!({"mode": "Search", "path": ".", "pattern": "(A+B)", "context_lines": 0}),
    );
    assert_eq!(run.json["content"], "b.txt:\nLine 2: LINE 5 here (a+b)\n");
    assert_eq!(run.json["total_matches"], 1);

    sb.call_fails(
        "fs_read",
        json!({"mode": "Search", "path": "."}),
        2,
        &["pattern"],
    );
    sb.call_fails(
        "fs_read",
        json!({"mode": "Lines", "path": "a.txt"}),
        2,
        &["mode", "expected one of: Line, Image, Directory, Search"],
    );
}

#[test]
fn fs_write_create_makes_parents_and_reports_the_version() {
    let sb = Sandbox::new();
    let run = sb.call(
        "fs_write",
        json!({"command": "create", "path": "deep/er/new.txt", "file_text": "Hello, world!"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["success"], true);
    assert_eq!(sb.read("deep/er/new.txt"), "Hello, world!");
    assert_eq!(
        run.json["content_hash"].as_str().unwrap(),
        hash_of(&sb, "deep/er/new.txt")
    );
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("+Hello, world!")
    );
}

#[test]
fn fs_write_create_replaces_an_existing_file_and_undo_brings_it_back() {
    // The Q CLI's fs_write description: "The `create` command will override the file at
    // `path` if it already exists as a file".
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    let run = sb.call(
        "fs_write",
        json!({"command": "create", "path": "a.txt", "file_text": "new\n"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "new\n");
    assert!(
        run.json["diff"].as_str().unwrap().contains("-old"),
        "{}",
        run.stdout
    );
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(sb.read("a.txt"), "old\n");
    // `overwrite: false` refuses, and says how to replace it.
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "create", "path": "a.txt", "file_text": "new\n", "overwrite": false}),
        1,
        &["already exists"],
    );
    assert_eq!(run.json["error_code"], "CONFLICT");
    assert_eq!(sb.read("a.txt"), "old\n");
}

#[test]
fn fs_write_create_takes_new_str_when_file_text_is_missing() {
    // The Q CLI's FsWrite::Create: "including `new_str` as a fallback".
    let sb = Sandbox::new();
    let run = sb.call(
        "fs_write",
        json!({"command": "create", "path": "n.txt", "new_str": "from new_str\n"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("n.txt"), "from new_str\n");
    sb.call_fails(
        "fs_write",
        json!({"command": "create", "path": "m.txt"}),
        2,
        &["missing argument `file_text`"],
    );
    assert!(!sb.exists("m.txt"));
}

#[test]
fn fs_write_single_line_edits_need_no_content_hash_and_give_the_new_one() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\n");
    let run = sb.call(
        "fs_write",
        json!({"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "one and a half"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "one\none and a half\ntwo\n");
    assert_eq!(run.json["content_hash"], hash_of(&sb, "a.txt"));
    let run = sb.call(
        "fs_write",
        json!({"command": "replace_lines", "path": "a.txt", "start_line": 3, "end_line": 3, "new_str": "2"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "one\none and a half\n2\n");
    assert_eq!(run.json["content_hash"], hash_of(&sb, "a.txt"));
    // The seed's rules stand: an insert_line past the end is an error.
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "insert", "path": "a.txt", "insert_line": 9, "new_str": "x"}),
        1,
        &["`insert_line` 9 is out of range", "the file has 3 lines"],
    );
    assert_eq!(run.json["error_code"], "INVALID_ARGUMENT");
    // A content_hash given is still checked.
    sb.call_fails(
        "fs_write",
        json!({"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "x", "content_hash": "0123456789abcdef"}),
        1,
        &["content_hash"],
    );
    assert_eq!(sb.read("a.txt"), "one\none and a half\n2\n");
}

#[test]
fn fs_read_operations_shape_of_the_shipping_q_cli() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES).write("sub/b.py", "print(1)\n");
    // One operation answers as that read alone.
    let run = sb.call(
        "fs_read",
        json!({"operations": [{"mode": "Line", "path": "a.txt", "start_line": 9}], "summary": "look"}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["content"], "     9\tline 9\n    10\tline 10\n");
    assert_eq!(run.json["content_hash"], hash_of(&sb, "a.txt"));
    // Several answer with one result each, in order; a failed one fails only itself.
    let run = sb.call(
        "fs_read",
        json!({"operations": [
            {"mode": "Line", "path": "a.txt", "start_line": -1},
            {"mode": "Search", "path": "sub/b.py", "pattern": "PRINT"},
            {"mode": "Line", "path": "missing.txt"},
            {"mode": "Directory", "path": "sub"}
        ]}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let results = run.json.as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["content"], "    10\tline 10\n");
    assert_eq!(results[1]["matches"][0]["line"], 1);
    assert_eq!(results[2]["error_code"], "NOT_FOUND");
    assert!(
        results[3]["content"]
            .as_str()
            .unwrap()
            .contains(" sub/b.py\n")
    );
    // The seed's shape (mode at the top level) stays; mixing both is refused.
    let run = sb.call("fs_read", json!({"mode": "Line", "path": "sub/b.py"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    sb.call_fails(
        "fs_read",
        json!({"mode": "Line", "operations": [{"mode": "Line", "path": "a.txt"}]}),
        2,
        &["`operations` and the top-level argument `mode`"],
    );
    sb.call_fails(
        "fs_read",
        json!({"operations": [{"mode": "Line", "path": "a.txt", "startLine": 2}]}),
        2,
        &["unknown argument `operations[0].startLine`; did you mean `start_line`?"],
    );
    sb.call_fails(
        "fs_read",
        json!({"operations": [{"mode": "Line"}]}),
        2,
        &["missing argument `operations[0].path`"],
    );
    sb.call_fails("fs_read", json!({}), 2, &["missing argument `operations`"]);
}

#[test]
fn fs_read_directory_lists_paths_that_read_back_as_given() {
    let sb = Sandbox::new();
    sb.write("sub/a.py", "print(1)\n")
        .write("sub/deep/b.py", "x\n");
    let root = sb.root().canonicalize().unwrap().display().to_string();
    for base in ["sub".to_string(), "sub/".to_string(), format!("{root}/sub")] {
        let run = sb.call(
            "fs_read",
            json!({"operations": [{"mode": "Directory", "path": base, "depth": 1}]}),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let content = run.json["content"].as_str().unwrap().to_string();
        let shown: Vec<&str> = content
            .lines()
            .skip(1)
            .filter(|l| l.starts_with('-'))
            .map(|l| l.rsplit(' ').next().unwrap())
            .collect();
        assert_eq!(shown.len(), 2, "{content}");
        for path in shown {
            let read = sb.call(
                "fs_read",
                json!({"operations": [{"mode": "Line", "path": path}]}),
            );
            assert_eq!(
                read.code, 0,
                "{path} listed under {base} does not read back: {}",
                read.stdout
            );
        }
    }
}

#[test]
fn fs_write_single_commands() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\nthree\n");
    let run = sb.call(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "2"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.json,
        json!({"path": "a.txt", "success": true, "content_hash": hash_of(&sb, "a.txt"), "diff": run.json["diff"]})
    );
    assert_eq!(sb.read("a.txt"), "one\n2\nthree\n");

    let hash = run.json["content_hash"].as_str().unwrap().to_string();
    let run = sb.call(
        "fs_write",
        json!({"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "one and a half", "content_hash": hash}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "one\none and a half\n2\nthree\n");

    let run = sb.call(
        "fs_write",
        json!({"command": "append", "path": "a.txt", "new_str": "four"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "one\none and a half\n2\nthree\nfour\n");
}

#[test]
fn fs_write_replace_lines_is_one_based_and_inclusive() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let hash = hash_of(&sb, "a.txt");
    let run = sb.call(
        "fs_write",
        json!({"command": "replace_lines", "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "replace_lines", "start_line": 2, "end_line": 3, "new_str": "TWO-THREE\n", "content_hash": hash}
        ]}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("a.txt").starts_with("line 1\nTWO-THREE\nline 4\n"));
}

#[test]
fn fs_write_batch_line_edits_refer_to_the_file_as_read() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES)
        .write("b.json", "{\"debug\": false, \"version\": \"1.0.0\"}\n");
    let hash = hash_of(&sb, "a.txt");
    // Listed top to bottom on purpose: numbers are those of the file as read, not shifted.
    let run = sb.call(
        "fs_write",
        json!({"command": "str_replace", "fileEdits": [
            {"path": "a.txt", "edits": [
                {"command": "insert", "insert_line": 0, "new_str": "header", "content_hash": hash},
                {"command": "replace_lines", "start_line": 5, "end_line": 5, "new_str": "FIVE\nFIVE+", "content_hash": hash},
                {"command": "replace_lines", "start_line": 9, "end_line": 10, "new_str": "", "content_hash": hash},
                {"command": "append", "new_str": "footer\n"},
                {"command": "str_replace", "old_str": "line 2", "new_str": "LINE TWO"}
            ]},
            {"path": "b.json", "edits": [
                {"command": "str_replace", "old_str": "\"debug\": false", "new_str": "\"debug\": true"},
                {"command": "str_replace", "old_str": "\"version\": \"1.0.0\"", "new_str": "\"version\": \"1.1.0\""}
            ]}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("a.txt"),
        "header\nline 1\nLINE TWO\nline 3\nline 4\nFIVE\nFIVE+\nline 6\nline 7\nline 8\nfooter\n"
    );
    assert_eq!(
        sb.read("b.json"),
        "{\"debug\": true, \"version\": \"1.1.0\"}\n"
    );
    let arr = run.json.as_array().unwrap();
    assert_eq!(arr[0]["edits_applied"], 5);
    assert_eq!(arr[0]["edits_failed"], 0);
    assert!(arr[0].get("failed_edits").is_none());
    assert_eq!(
        arr[0]["content_hash"].as_str().unwrap(),
        hash_of(&sb, "a.txt")
    );
    assert_eq!(arr[1]["edits_applied"], 2);
}

#[test]
fn fs_write_partial_success_reports_failed_edits() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\nbeta\n");
    let run = sb.call(
        "fs_write",
        json!({"command": "str_replace", "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "str_replace", "old_str": "alpha", "new_str": "ALPHA"},
            {"command": "str_replace", "old_str": "gamma", "new_str": "GAMMA"}
        ]}]}),
    );
    assert_eq!(run.code, 1);
    let f = &run.json[0];
    assert_eq!(f["success"], false);
    assert_eq!(
        (f["edits_applied"].as_u64(), f["edits_failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(f["failed_edits"][0]["command"], "str_replace");
    assert_eq!(f["failed_edits"][0]["index"], 1);
    assert!(
        f["failed_edits"][0]["error"]
            .as_str()
            .unwrap()
            .contains("not found")
    );
    assert_eq!(sb.read("a.txt"), "ALPHA\nbeta\n", "the good edit is kept");
    assert_eq!(f["content_hash"].as_str().unwrap(), hash_of(&sb, "a.txt"));
}

#[test]
fn fs_write_atomic_writes_nothing_when_an_edit_fails() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n").write("b.txt", "beta\n");
    let run = sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "atomic": true, "fileEdits": [
            {"path": "a.txt", "edits": [{"command": "str_replace", "old_str": "alpha", "new_str": "A"}]},
            {"path": "b.txt", "edits": [{"command": "str_replace", "old_str": "gamma", "new_str": "G"}]}
        ]}),
        1,
        &["not written", "atomic"],
    );
    assert_eq!(run.json[0]["success"], false);
    assert_eq!(run.json[1]["success"], false);
}

#[test]
fn fs_write_stop_on_error_keeps_earlier_edits() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\nb\nc\n");
    let run = sb.call(
        "fs_write",
        json!({"command": "str_replace", "stop_on_error": true, "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "str_replace", "old_str": "a", "new_str": "A"},
            {"command": "str_replace", "old_str": "zzz", "new_str": "Z"},
            {"command": "str_replace", "old_str": "c", "new_str": "C"}
        ]}]}),
    );
    assert_eq!(run.code, 1);
    assert_eq!(sb.read("a.txt"), "A\nb\nc\n");
    assert_eq!(run.json[0]["edits_skipped"], 1);
}

#[test]
fn fs_write_dry_run_shows_the_diff_and_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    let before = sb.snapshot();
    let run = sb.call(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "alpha", "new_str": "omega", "dry_run": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["dry_run"], true);
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("-alpha\n+omega")
    );
    assert_eq!(before, sb.snapshot());
    assert_eq!(
        run.json["content_hash"].as_str().unwrap(),
        hash_of(&sb, "a.txt"),
        "the version on disk"
    );
}

#[test]
fn fs_write_pattern_replace_the_documents_example() {
    let sb = Sandbox::new();
    sb.write("a.js", "const x = 1;\nconst y = 2;\n");
    sb.write("src/b.js", "const z = 3; // const\n");
    sb.write("node_modules/m/c.js", "const m = 0;\n");
    sb.write("dist/d.js", "const d = 0;\n");
    sb.write("README.md", "const in prose\n");
    let dir = sb.root().display().to_string();
    // Exactly the call of Amazon Q's documented example, first as a dry run.
    let mut args = json!({
        "command": "pattern_replace",
        "directory": dir,
        "file_pattern": "*.js",
        "sed_pattern": "s/const /let /g",
        "recursive": true,
        "exclude_patterns": ["node_modules/**", "dist/**"],
        "dry_run": true
    });
    let before = sb.snapshot();
    let run = sb.call("fs_write", args.clone());
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(before, sb.snapshot(), "a dry run writes nothing");
    assert_eq!(run.json["dry_run"], true);
    assert_eq!(run.json["files_matched"], 2);
    assert_eq!(run.json["files_modified"], 2);
    assert_eq!(run.json["replacements"], 3);
    let files = run.json["files"].as_array().unwrap();
    assert!(files[0]["path"].as_str().unwrap().ends_with("a.js"));
    let diff = files[0]["diff"].as_str().unwrap();
    assert!(diff.contains("-const x = 1;\n+let x = 1;\n"), "{diff}");
    assert!(diff.contains("-const y = 2;\n+let y = 2;\n"), "{diff}");

    args.as_object_mut().unwrap().remove("dry_run");
    let run = sb.call("fs_write", args);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.js"), "let x = 1;\nlet y = 2;\n");
    assert_eq!(sb.read("src/b.js"), "let z = 3; // const\n");
    assert_eq!(sb.read("node_modules/m/c.js"), "const m = 0;\n");
    assert_eq!(sb.read("dist/d.js"), "const d = 0;\n");
    assert_eq!(sb.read("README.md"), "const in prose\n");
    assert!(
        run.json["summary"]
            .as_str()
            .unwrap()
            .contains("3 replacement(s) in 2 file(s)")
    );
}

#[test]
fn fs_write_pattern_replace_flags_references_and_skips() {
    let sb = Sandbox::new();
    sb.write("a.txt", "aaa\nfoo(bar)\n");
    sb.write_bytes("b.txt", b"aaa\0binary\n");
    // Only the second match of each line, and a group reference.
    let run = sb.call(
        "fs_write",
        json!({"command": "pattern_replace", "directory": ".", "file_pattern": "*.txt",
               "sed_pattern": "s/a/X/2"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "aXa\nfoo(bar)\n");
    assert_eq!(run.json["files_skipped"], 1);
    let skipped = run.json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("b.txt"))
        .unwrap();
    assert_eq!(skipped["skipped"], "binary file");
    let run = sb.call(
        "fs_write",
        json!({"command": "pattern_replace", "path": ".", "file_pattern": "a.txt",
               "sed_pattern": "s/(\\w+)\\((\\w+)\\)/\\2.\\1()/"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "aXa\nbar.foo()\n");
    // Literal mode: the pattern is text.
    let run = sb.call(
        "fs_write",
        json!({"command": "pattern_replace", "directory": ".", "file_pattern": "a.txt",
               "sed_pattern": "s/bar.foo()/x.y()/", "literal": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "aXa\nx.y()\n");
}

#[test]
fn fs_write_pattern_replace_bad_input() {
    let sb = Sandbox::new();
    sb.write("a.js", "const x = 1;\n");
    let call = |sed: &str| {
        json!({"command": "pattern_replace", "directory": ".", "file_pattern": "*.js",
               "sed_pattern": sed})
    };
    // Malformed expressions point at the character.
    sb.call_fails(
        "fs_write",
        call("s/a/b"),
        2,
        &["unterminated", "character 6"],
    );
    sb.call_fails("fs_write", call("s/a/b/q"), 2, &["unknown flag `q`", "^"]);
    sb.call_fails(
        "fs_write",
        call("s/(a)(b)/$9/"),
        2,
        &["refers to group 9, but the pattern has 2 groups"],
    );
    sb.call_fails(
        "fs_write",
        call("s/(a/b/"),
        2,
        &["invalid regex", "unclosed group"],
    );
    // A directory outside the roots; no file matched.
    let mut outside = call("s/a/b/");
    outside["directory"] = json!("..");
    sb.call_fails("fs_write", outside, 1, &["outside the workspace"]);
    let mut none = call("s/a/b/");
    none["file_pattern"] = json!("*.py");
    sb.call_fails("fs_write", none, 1, &["no files matched", "*.py"]);
    let mut missing = call("s/a/b/");
    missing.as_object_mut().unwrap().remove("sed_pattern");
    sb.call_fails(
        "fs_write",
        missing,
        2,
        &["missing argument `sed_pattern`", "s/old/new/g"],
    );
    // Not inside fileEdits.
    sb.call_fails(
        "fs_write",
        json!({"fileEdits": [{"path": "a.js", "edits": [{"command": "pattern_replace"}]}]}),
        2,
        &["works on a directory"],
    );
    assert_eq!(sb.read("a.js"), "const x = 1;\n");
}

#[test]
fn fs_write_line_edits_need_a_content_hash() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.call_fails(
        "fs_write",
        json!({"command": "replace_lines", "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "replace_lines", "start_line": 1, "end_line": 2, "new_str": "x"}
        ]}]}),
        2,
        &[
            "missing argument `fileEdits[0].edits[0].content_hash`",
            "replace_lines needs it",
            "fs_read",
        ],
    );
    sb.call_fails(
        "fs_write",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "line 1"}),
        2,
        &["missing argument `new_str`", "str_replace needs it"],
    );
}

#[test]
fn fs_write_mistyped_nested_argument_names_its_path() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.call_fails(
        "fs_write",
        json!({"command": "replace_lines", "fileEdits": [{"path": "a.txt", "edits": [
            {"command": "append", "new_str": "x"},
            {"command": "replace_lines", "start_line": "10", "end_line": 10, "new_str": "x", "content_hash": "abcdef12"}
        ]}]}),
        2,
        &["fileEdits[0].edits[1].start_line", "invalid type: string \"10\", expected i64", "integer"],
    );
}
