//! The curated table's search tools (`grep_files`, `find_files`, `list_dir`)
//! through `filekit call`, the way an agent that only has the default table finds its way:
//! search, then read and edit with the paths and line numbers the search gave.

use crate::common;
use common::*;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

fn ok(run: &Run) -> &Value {
    assert_eq!(
        run.code, 0,
        "exit code\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    &run.json
}

fn touch(sb: &Sandbox, rel: &str, secs: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(sb.path(rel))
        .unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

/// A small project: sources, a gitignored build dir, a hidden dir, a binary file and
/// filekit's own data directory.
fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(".gitignore", "target/\n")
        .write(
            "src/main.rs",
            "fn main() {\n    let total = add(1, 2);\n    println!(\"{total}\");\n}\n",
        )
        .write(
            "src/lib.rs",
            "// TODO: more\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        )
        .write("web/app.ts", "export const todo = 1; // todo (a+b)\n")
        .write("web/view.tsx", "// TODO render\n")
        .write("target/debug/out.rs", "// TODO generated\n")
        .write(".hidden/secret.rs", "// TODO hidden\n")
        .write(".filekit/history.txt", "TODO filekit data\n")
        .write_bytes("data.bin", b"TODO\0\x01\x02binary");
    sb
}

fn paths(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn grep_files_gives_paths_and_line_numbers_that_read_files_and_edit_files_take() {
    let sb = project();
    let run = sb.call("grep_files", json!({"pattern": "let total", "context": 1}));
    let v = ok(&run);
    assert_eq!(paths(v, "files"), ["src/main.rs"]);
    // The path once per file; each line as LINE:TEXT (a match) or LINE-TEXT (context).
    let lines = &v["files"][0]["lines"];
    assert_eq!(
        lines,
        &json!([
            "1-fn main() {",
            "2:    let total = add(1, 2);",
            "3-    println!(\"{total}\");",
        ])
    );
    assert_eq!(v["total_matches"], 1);
    // The path and the line go straight into the other curated tools.
    let read = sb.call(
        "read_files",
        json!({"files": [{"path": "src/main.rs", "start_line": 2, "end_line": 2}]}),
    );
    let read = ok(&read);
    assert_eq!(read["files"][0]["content"], "    let total = add(1, 2);\n");
    let hash = read["files"][0]["content_hash"].as_str().unwrap();
    let edit = sb.call(
        "edit_files",
        json!({"files": [{"path": "src/main.rs", "edits": [{"replace_lines": {"start": 2, "new": "    let total = add(2, 3);\n", "content_hash": hash}}]}]}),
    );
    ok(&edit);
    assert!(sb.read("src/main.rs").contains("add(2, 3)"));
}

#[test]
fn grep_files_follows_ripgrep_rules_and_its_filters() {
    let sb = project();
    // Ignored, hidden, binary files and .filekit/ are left out by default.
    let run = sb.call(
        "grep_files",
        json!({"pattern": "TODO", "output_mode": "files"}),
    );
    let v = ok(&run);
    assert_eq!(paths(v, "files"), ["src/lib.rs", "web/view.tsx"]);
    assert_eq!(v["binary_skipped"], 1);
    assert!(v["files"][0].get("lines").is_none());
    // include_hidden / include_ignored add them; .filekit/ never.
    let run = sb.call(
        "grep_files",
        json!({"pattern": "TODO", "output_mode": "files", "include_hidden": true, "include_ignored": true}),
    );
    assert_eq!(
        paths(ok(&run), "files"),
        [
            ".hidden/secret.rs",
            "src/lib.rs",
            "target/debug/out.rs",
            "web/view.tsx"
        ]
    );
    // ignore_case, glob, type, count.
    let run = sb.call(
        "grep_files",
        json!({"pattern": "todo", "ignore_case": true, "glob": "*.ts", "output_mode": "count"}),
    );
    let v = ok(&run);
    assert_eq!(paths(v, "files"), ["web/app.ts"]);
    assert_eq!(v["files"][0]["count"], 1);
    let run = sb.call(
        "grep_files",
        json!({"pattern": "TODO", "type": "rust", "output_mode": "files"}),
    );
    assert_eq!(paths(ok(&run), "files"), ["src/lib.rs"]);
    // literal: the pattern is text, not a regex.
    let run = sb.call("grep_files", json!({"pattern": "(a+b)", "literal": true}));
    let v = ok(&run);
    assert_eq!(paths(v, "files"), ["web/app.ts"]);
    assert_eq!(
        v["files"][0]["lines"][0],
        "1:export const todo = 1; // todo (a+b)"
    );
    // One file as the path.
    let run = sb.call("grep_files", json!({"pattern": "a", "path": "src/lib.rs"}));
    assert_eq!(paths(ok(&run), "files"), ["src/lib.rs"]);
}

#[test]
fn grep_files_pages_with_next_offset_until_every_row_is_seen() {
    let sb = Sandbox::new();
    for i in 0..7 {
        sb.write(&format!("f{i}.txt"), "needle\nhay\nneedle\n");
    }
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let run = sb.call(
            "grep_files",
            json!({"pattern": "needle", "max_results": 3, "offset": offset}),
        );
        let v = ok(&run).clone();
        assert_eq!(v["total_matches"], 14);
        for f in v["files"].as_array().unwrap() {
            for l in f["lines"].as_array().unwrap() {
                let line = l.as_str().unwrap().split(':').next().unwrap();
                seen.push(format!("{}:{line}", f["path"].as_str().unwrap()));
            }
        }
        // Rows left out: `next_offset` says where the next ones start; none: that was all.
        match v.get("next_offset") {
            Some(n) => offset = n.as_u64().unwrap() as usize,
            None => break,
        }
    }
    let expected: Vec<String> = (0..7)
        .flat_map(|i| [format!("f{i}.txt:1"), format!("f{i}.txt:3")])
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn grep_files_bad_inputs_are_clear_errors_in_its_own_words() {
    let sb = project();
    // A bad regex is a bad argument, refused before anything is searched: where, and what to do.
    let run = sb.call_fails(
        "grep_files",
        json!({"pattern": "fn (", "path": "src"}),
        2,
        &[
            "`pattern` \"fn (\" is not a valid regex at line 1, column 4",
            "unclosed group",
            "`literal: true`",
        ],
    );
    assert_eq!(run.json["error_code"], "INVALID_ARGUMENT");
    // A missing path, a path outside the roots.
    let run = sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "path": "nope/dir"}),
        1,
        &["does not exist"],
    );
    assert_eq!(run.json["error_code"], "NOT_FOUND");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "x\n").unwrap();
    let run = sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "path": outside.path()}),
        1,
        &["outside the workspace"],
    );
    assert_eq!(run.json["error_code"], "OUT_OF_ROOT");
    let run = sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "path": "../"}),
        1,
        &["outside the workspace"],
    );
    assert_eq!(run.json["error_code"], "OUT_OF_ROOT");
    // A glob that climbs out is refused, not silently empty.
    sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "glob": "../*.txt"}),
        1,
        &["`..` component"],
    );
    // Strict arguments: another tool's name for one is refused naming ours; nothing is done.
    let run = sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "ignoreCase": true}),
        2,
        &[
            "grep_files: unknown argument `ignoreCase`",
            "did you mean `ignore_case`?",
        ],
    );
    assert_eq!(run.json["error_code"], "INVALID_ARGUMENT");
    sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "case_insensitive": true}),
        2,
        &[
            "unknown argument `case_insensitive`",
            "takes: pattern, path",
        ],
    );
    sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "output_mode": "files_with_matches"}),
        2,
        &["output_mode"],
    );
    sb.call_fails("grep_files", json!({"path": "src"}), 2, &["pattern"]);
    sb.call_fails(
        "grep_files",
        json!({"pattern": "x", "max_results": 50000}),
        2,
        &["max_results"],
    );
}

#[test]
fn find_files_lists_newest_first_and_pages() {
    let sb = project();
    sb.write("src/old.rs", "\n").write("src/new.rs", "\n");
    touch(&sb, "src/old.rs", 1_000);
    touch(&sb, "src/main.rs", 2_000);
    touch(&sb, "src/lib.rs", 3_000);
    touch(&sb, "src/new.rs", 4_000);
    let run = sb.call("find_files", json!({"pattern": "**/*.rs"}));
    let v = ok(&run);
    // Newest first; the ignored target/ and the hidden dir are left out.
    assert_eq!(
        paths(v, "files"),
        ["src/new.rs", "src/lib.rs", "src/main.rs", "src/old.rs"]
    );
    assert_eq!(v["files"][0]["modified"], "1970-01-01T01:06:40Z");
    assert_eq!(v["total"], 4);
    let first = sb.call(
        "find_files",
        json!({"pattern": "**/*.rs", "max_results": 3}),
    );
    let first = ok(&first);
    assert_eq!(first["next_offset"], 3);
    let rest = sb.call(
        "find_files",
        json!({"pattern": "**/*.rs", "max_results": 3, "offset": 3}),
    );
    let rest = ok(&rest);
    assert_eq!(paths(rest, "files"), ["src/old.rs"]);
    assert!(rest.get("next_offset").is_none());
    // A path to search in, case, a pattern matching nothing.
    let run = sb.call(
        "find_files",
        json!({"pattern": "*.TS", "path": "web", "ignore_case": true}),
    );
    assert_eq!(paths(ok(&run), "files"), ["web/app.ts"]);
    let run = sb.call("find_files", json!({"pattern": "**/*.java"}));
    let v = ok(&run);
    assert_eq!(v["total"], 0);
    // Bad inputs.
    sb.call_fails(
        "find_files",
        json!({"pattern": "src/[", "path": "."}),
        1,
        &["invalid glob pattern 'src/['"],
    );
    sb.call_fails(
        "find_files",
        json!({"pattern": "*.rs", "path": "missing"}),
        1,
        &["does not exist"],
    );
    sb.call_fails(
        "find_files",
        json!({"pattern": "*.rs", "path": "/"}),
        1,
        &["outside the workspace"],
    );
    sb.call_fails(
        "find_files",
        json!({"pattern": "../**/*.rs"}),
        1,
        &["`..` component"],
    );
    sb.call_fails(
        "find_files",
        json!({"glob": "*.rs"}),
        2,
        &["unknown argument `glob`"],
    );
}

#[test]
fn list_dir_lists_one_level_or_a_tree() {
    let sb = project();
    let run = sb.call("list_dir", json!({}));
    let v = ok(&run);
    assert_eq!(v["path"], ".");
    // One level by default; ignored and hidden entries and .filekit/ left out.
    assert_eq!(paths(v, "entries"), ["data.bin", "src", "web"]);
    assert_eq!(v["entries"][1]["kind"], "dir");
    assert_eq!(v["entries"][0]["kind"], "file");
    assert_eq!(v["entries"][0]["size"], 13);
    let run = sb.call(
        "list_dir",
        json!({"path": "src", "depth": 2, "ignore": ["lib.rs"]}),
    );
    let v = ok(&run);
    assert_eq!(v["path"], "src");
    assert_eq!(paths(v, "entries"), ["src/main.rs"]);
    let run = sb.call(
        "list_dir",
        json!({"depth": 3, "include_hidden": true, "include_ignored": true}),
    );
    let listed = paths(ok(&run), "entries");
    assert!(
        listed.contains(&"target/debug/out.rs".to_string())
            && listed.contains(&".hidden/secret.rs".to_string())
            && listed.contains(&".gitignore".to_string())
            && !listed.iter().any(|p| p.starts_with(".filekit")),
        "{listed:?}"
    );
    let run = sb.call("list_dir", json!({"depth": 2, "max_entries": 2}));
    let v = ok(&run);
    assert_eq!(paths(v, "entries"), ["data.bin", "src"]);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["total"], 7);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("src/main.rs", sb.path("link.rs")).unwrap();
        let run = sb.call("list_dir", json!({}));
        let v = ok(&run);
        let link = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == "link.rs")
            .unwrap();
        assert_eq!(link["kind"], "symlink");
        assert_eq!(link["link_target"], "src/main.rs");
    }
    // Bad inputs.
    sb.call_fails(
        "list_dir",
        json!({"path": "src/main.rs"}),
        1,
        &["is a file, not a directory"],
    );
    sb.call_fails("list_dir", json!({"path": "nope"}), 1, &["does not exist"]);
    sb.call_fails(
        "list_dir",
        json!({"path": "/tmp"}),
        1,
        &["outside the workspace"],
    );
    sb.call_fails("list_dir", json!({"depth": 0}), 2, &["depth"]);
    sb.call_fails(
        "list_dir",
        json!({"recursive": true}),
        2,
        &["unknown argument `recursive`"],
    );
}
