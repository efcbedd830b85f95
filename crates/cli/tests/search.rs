//! The search tools (claude `LS`/`Glob`/`Grep`, `file:list_files`) and the `filekit grep`,
//! `glob` and `ls` verbs, driven the way an agent or a person would, on generated trees.

use crate::common;
use common::*;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

fn content(run: &Run) -> String {
    assert_eq!(
        run.code, 0,
        "exit code\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    run.json["content"].as_str().unwrap().to_string()
}

/// Sets a file's modification time to `secs` seconds after the epoch.
fn touch(sb: &Sandbox, rel: &str, secs: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(sb.path(rel))
        .unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

fn abs(sb: &Sandbox, rel: &str) -> String {
    sb.path(rel).to_str().unwrap().to_string()
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
        .write("web/app.ts", "export const todo = 1; // todo\n")
        .write("web/view.tsx", "// TODO render\n")
        .write("target/debug/out.rs", "// TODO generated\n")
        .write(".hidden/secret.rs", "// TODO hidden\n")
        .write(".filekit/history.txt", "TODO filekit data\n")
        .write_bytes("data.bin", b"TODO\0\x01\x02binary");
    sb
}

// ---------------------------------------------------------------------------------------------
// Grep

#[test]
fn grep_content_gives_line_numbers_that_match_the_file() {
    let sb = project();
    let run = sb.call(
        "Grep",
        json!({"pattern": "a \\+ b|fn add", "output_mode": "content"}),
    );
    let text = content(&run);
    let lib = abs(&sb, "src/lib.rs");
    assert_eq!(
        text,
        format!("{lib}:2:pub fn add(a: i32, b: i32) -> i32 {{\n{lib}:3:    a + b\n")
    );
    // The numbers are the file's own: line 3 of the file is the match.
    assert_eq!(sb.read("src/lib.rs").lines().nth(2), Some("    a + b"));
    assert_eq!(run.json["numMatches"], 2);
    assert_eq!(run.json["truncated"], false);
}

#[test]
fn grep_skips_ignored_hidden_binary_and_filekit_files_by_default() {
    let sb = project();
    let run = sb.call("Grep", json!({"pattern": "TODO"}));
    let text = content(&run);
    assert_eq!(
        text,
        format!(
            "Found 2 files\n{}\n{}\n",
            abs(&sb, "src/lib.rs"),
            abs(&sb, "web/view.tsx")
        )
    );
    for absent in ["target", ".hidden", ".filekit", "data.bin"] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
}

#[test]
fn grep_context_lines_and_group_separators() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.call(
        "Grep",
        json!({"pattern": "line (2|9)$", "path": "a.txt", "output_mode": "content", "-B": 1, "-A": 0}),
    );
    let p = abs(&sb, "a.txt");
    assert_eq!(
        content(&run),
        format!("{p}-1-line 1\n{p}:2:line 2\n--\n{p}-8-line 8\n{p}:9:line 9\n")
    );
    // Without context, matches far apart are not separated (as ripgrep prints them).
    let run = sb.call(
        "Grep",
        json!({"pattern": "line (2|9)$", "path": "a.txt", "output_mode": "content"}),
    );
    assert_eq!(content(&run), format!("{p}:2:line 2\n{p}:9:line 9\n"));
    let run = sb.call(
        "Grep",
        json!({"pattern": "line 5", "path": "a.txt", "output_mode": "content", "-C": 1, "-n": false}),
    );
    assert_eq!(
        content(&run),
        format!("{p}-line 4\n{p}:line 5\n{p}-line 6\n")
    );
}

#[test]
fn grep_count_case_insensitive_glob_and_type() {
    let sb = project();
    let run = sb.call(
        "Grep",
        json!({"pattern": "todo", "-i": true, "output_mode": "count"}),
    );
    let text = content(&run);
    assert_eq!(
        text,
        format!(
            "{}:1\n{}:1\n{}:1\n\nFound 3 total occurrences across 3 files.\n",
            abs(&sb, "src/lib.rs"),
            abs(&sb, "web/app.ts"),
            abs(&sb, "web/view.tsx")
        )
    );
    let run = sb.call(
        "Grep",
        json!({"pattern": "todo", "-i": true, "glob": "*.{ts,tsx}"}),
    );
    assert_eq!(run.json["numFiles"], 2, "{}", run.stdout);
    let run = sb.call(
        "Grep",
        json!({"pattern": "todo", "-i": true, "type": "rust"}),
    );
    assert_eq!(
        content(&run),
        format!("Found 1 files\n{}\n", abs(&sb, "src/lib.rs"))
    );
}

#[test]
fn grep_multiline_spans_lines() {
    let sb = project();
    let run = sb.call(
        "Grep",
        json!({"pattern": "i32 \\{\\n\\s+a \\+ b", "multiline": true, "output_mode": "content"}),
    );
    let lib = abs(&sb, "src/lib.rs");
    assert_eq!(
        content(&run),
        format!("{lib}:2:pub fn add(a: i32, b: i32) -> i32 {{\n{lib}:3:    a + b\n")
    );
    // Without multiline a pattern that names a line break is refused, and told why.
    let run = sb.call(
        "Grep",
        json!({"pattern": "i32 \\{\\n\\s+a", "output_mode": "content"}),
    );
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    assert!(run.error().contains("set multiline"), "{}", run.error());
    // Across lines `\s` can match the break; without multiline each line is searched alone.
    let run = sb.call(
        "Grep",
        json!({"pattern": "i32 \\{\\s+a \\+", "output_mode": "content"}),
    );
    assert_eq!(content(&run), "No matches found\n");
}

#[test]
fn grep_head_limit_says_what_was_left_out() {
    let sb = Sandbox::new();
    let many: String = (1..=50).map(|i| format!("hit {i}\n")).collect();
    sb.write("many.txt", &many);
    let run = sb.call(
        "Grep",
        json!({"pattern": "hit", "output_mode": "content", "head_limit": 5}),
    );
    let text = content(&run);
    assert_eq!(text.lines().filter(|l| l.contains(":hit ")).count(), 5);
    assert!(
        text.contains("45 more lines not shown (head_limit 5)"),
        "{text}"
    );
    assert_eq!(run.json["truncated"], true);
    assert_eq!(run.json["totalRows"], 50);
    assert_eq!(run.json["shownRows"], 5);
}

#[test]
fn grep_bad_inputs_are_explained() {
    let sb = project();
    let run = sb.call("Grep", json!({"pattern": "fn (main"}));
    assert_eq!(run.code, 1);
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    let err = run.error();
    assert!(
        err.contains("invalid regex 'fn (main' at line 1, column 4")
            && err.contains("unclosed group"),
        "{err}"
    );
    assert_eq!(run.json["details"]["offset"], 3);

    let run = sb.call("Grep", json!({"pattern": "x", "glob": "[z-a]"}));
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    assert!(
        run.error().contains("invalid glob '[z-a]'"),
        "{}",
        run.error()
    );

    let run = sb.call("Grep", json!({"pattern": "x", "type": "rsut"}));
    assert!(run.error().contains("unknown file type 'rsut'"));
    assert!(run.error().contains("rust"), "{}", run.error());

    let run = sb.call("Grep", json!({"pattern": "x", "path": "/etc"}));
    assert_eq!(run.json["errorCode"], "OUT_OF_ROOT");

    let run = sb.call("Grep", json!({"pattern": "x", "path": "scr"}));
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(run.error().contains(&abs(&sb, "src")), "{}", run.error());

    sb.call_fails(
        "Grep",
        json!({"pattern": "x", "output_mode": "lines"}),
        2,
        &["output_mode"],
    );
    sb.call_fails("Grep", json!({"path": "src"}), 2, &["pattern"]);
    // head_limit 0 is Claude Code's "no cap" (claude_golden.rs), not a bad input; a negative
    // one is.
    sb.call_fails(
        "Grep",
        json!({"pattern": "x", "head_limit": -1}),
        2,
        &["head_limit"],
    );
}

// ---------------------------------------------------------------------------------------------
// Symlinks and unreadable files

#[test]
fn walks_survive_symlink_loops_and_do_not_leave_the_root() {
    let sb = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("leak.rs"), "// TODO outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path("src/escape")).unwrap();
    std::os::unix::fs::symlink("loop", sb.path("src/loop")).unwrap();
    std::os::unix::fs::symlink("..", sb.path("src/up")).unwrap();

    let run = sb.call("Grep", json!({"pattern": "TODO", "-i": true}));
    assert!(!content(&run).contains("outside"), "{}", run.stdout);
    assert_eq!(run.json["numFiles"], 3);

    let run = sb.call("Glob", json!({"pattern": "**/*.rs"}));
    let text = content(&run);
    assert!(!text.contains("leak.rs"), "{text}");
    assert_eq!(text.lines().count(), 2, "{text}");

    let run = sb.call("LS", json!({"path": "src"}));
    let text = content(&run);
    assert!(text.contains("- loop -> loop\n"), "{text}");
    assert!(text.contains("- up -> ..\n"), "{text}");
    assert!(!text.contains("leak.rs"), "{text}");

    // Naming the link as the path to search is refused: it resolves outside.
    let run = sb.call("Grep", json!({"pattern": "TODO", "path": "src/escape"}));
    assert_eq!(run.json["errorCode"], "OUT_OF_ROOT");
}

#[test]
fn unreadable_files_are_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let sb = project();
    sb.write("src/locked.rs", "// TODO locked\n");
    // Readable by its owner only: the search runs as another user.
    std::fs::set_permissions(
        sb.path("src/locked.rs"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let call = json!({"tool_name": "Grep", "tool_args": {"pattern": "TODO"}});
    let run = call_unprivileged(&sb, &call);
    let text = content(&run);
    assert!(
        text.contains("1 unreadable files or directories skipped"),
        "{text}"
    );
    assert!(text.contains("lib.rs"), "{text}");
    std::fs::set_permissions(
        sb.path("src/locked.rs"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Glob

#[test]
fn glob_is_newest_first_with_double_star_and_braces() {
    let sb = project();
    touch(&sb, "src/main.rs", 1_000);
    touch(&sb, "src/lib.rs", 3_000);
    touch(&sb, "web/app.ts", 2_000);
    touch(&sb, "web/view.tsx", 4_000);
    let run = sb.call("Glob", json!({"pattern": "**/*.{rs,ts,tsx}"}));
    let expected: String = ["web/view.tsx", "src/lib.rs", "web/app.ts", "src/main.rs"]
        .iter()
        .map(|p| format!("{}\n", abs(&sb, p)))
        .collect();
    assert_eq!(content(&run), expected);
    assert_eq!(run.json["total"], 4);

    // `*` stays within one directory, relative to `path`.
    let run = sb.call("Glob", json!({"pattern": "*.rs", "path": "src"}));
    assert_eq!(
        content(&run),
        format!("{}\n{}\n", abs(&sb, "src/lib.rs"), abs(&sb, "src/main.rs"))
    );
    let run = sb.call("Glob", json!({"pattern": "*.rs"}));
    assert_eq!(content(&run), "No files found\n");
    // An absolute pattern searches from its literal directory, inside the workspace only.
    let run = sb.call(
        "Glob",
        json!({"pattern": format!("{}/*.rs", abs(&sb, "src"))}),
    );
    assert_eq!(
        content(&run),
        format!("{}\n{}\n", abs(&sb, "src/lib.rs"), abs(&sb, "src/main.rs"))
    );
    let run = sb.call("Glob", json!({"pattern": "/etc/*.conf"}));
    assert_eq!(run.json["errorCode"], "OUT_OF_ROOT");
}

#[test]
fn glob_cuts_at_100_and_says_how_many_more() {
    let sb = Sandbox::new();
    for i in 0..130 {
        sb.write(&format!("f/{i:03}.txt"), "x\n");
        touch(&sb, &format!("f/{i:03}.txt"), 1_000 + i);
    }
    let run = sb.call("Glob", json!({"pattern": "f/*.txt"}));
    let text = content(&run);
    assert!(
        text.starts_with(&format!("{}\n", abs(&sb, "f/129.txt"))),
        "{text}"
    );
    assert!(text.contains("... 30 more files matched"), "{text}");
    assert_eq!(run.json["truncated"], true);
    assert_eq!(run.json["total"], 130);
}

#[test]
fn glob_bad_inputs_are_explained() {
    let sb = project();
    let run = sb.call("Glob", json!({"pattern": "src/{a,b"}));
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    assert!(
        run.error().contains("invalid glob pattern 'src/{a,b'"),
        "{}",
        run.error()
    );
    let run = sb.call("Glob", json!({"pattern": "*.rs", "path": "../"}));
    assert_eq!(run.json["errorCode"], "OUT_OF_ROOT");
    let run = sb.call("Glob", json!({"pattern": "*.rs", "path": "src/main.rs"}));
    assert!(run.error().contains("is a file, not a directory"));
    sb.call_fails("Glob", json!({"path": "src"}), 2, &["pattern"]);
}

// ---------------------------------------------------------------------------------------------
// LS and file:list_files

#[test]
fn ls_shows_a_sorted_tree_and_leaves_out_ignore_globs() {
    let sb = project();
    sb.write("src/a-b.rs", "\n").write("src/a/inner.rs", "\n");
    let run = sb.call(
        "LS",
        json!({"path": abs(&sb, "."), "ignore": ["web", "*.bin"]}),
    );
    let root = sb.root().to_str().unwrap();
    assert_eq!(
        content(&run),
        format!(
            "- {root}/\n  - src/\n    - a/\n      - inner.rs\n    - a-b.rs\n    - lib.rs\n    - main.rs\n"
        )
    );
    let run = sb.call("LS", json!({"path": "src", "depth": 1}));
    assert!(!content(&run).contains("inner.rs"));
    let run = sb.call("LS", json!({"path": "src", "ignore": ["[z-a]"]}));
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    let run = sb.call("LS", json!({"path": "srcc"}));
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(run.error().contains("did you mean"), "{}", run.error());
}

#[test]
fn large_directories_are_cut_with_a_count() {
    let sb = Sandbox::new();
    for i in 0..1_050 {
        sb.write(&format!("big/{i:04}"), "");
    }
    let run = sb.call("LS", json!({"path": "big"}));
    let text = content(&run);
    assert!(text.contains("  - 0000\n") && text.contains("  - 0999\n"));
    assert!(
        !text.contains("  - 1000\n"),
        "the first 1000 by name are kept"
    );
    assert!(text.contains("... 50 more entries not shown"), "{text}");
    assert_eq!(run.json["total"], 1_050);
    assert_eq!(run.json["truncated"], true);

    let run = sb.call("file:list_files", json!({"path": "big"}));
    assert_eq!(run.json["entries"].as_array().unwrap().len(), 1_000);
    assert_eq!(run.json["total"], 1_050);
    assert_eq!(run.json["truncated"], true);
}

#[test]
fn list_files_filters_and_recurses() {
    let sb = project();
    sb.write("web/deep/x.ts", "\n");
    let run = sb.call("file:list_files", json!({"path": "web", "filter": "*.ts"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names = |run: &Run| -> Vec<String> {
        run.json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&run), ["web/app.ts"]);
    let run = sb.call(
        "file:list_files",
        json!({"path": "web", "filter": "*.ts", "recursive": true}),
    );
    assert_eq!(names(&run), ["web/app.ts", "web/deep/x.ts"]);
    let entry = &run.json["entries"][0];
    assert_eq!(entry["type"], "file");
    assert_eq!(entry["size"], 31);
    assert!(entry["modified"].as_str().unwrap().ends_with('Z'));

    let run = sb.call("file:list_files", json!({}));
    assert_eq!(
        names(&run),
        ["data.bin", "src", "web"],
        "root by default; hidden, ignored and .filekit left out"
    );
    let run = sb.call("file:list_files", json!({"path": "src/main.rs"}));
    assert_eq!(run.json["success"], false);
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("not a directory")
    );
}

// ---------------------------------------------------------------------------------------------
// CLI verbs

#[test]
fn cli_grep_glob_and_ls_print_text_and_json() {
    let sb = project();
    let run = sb.filekit(&["grep", "TODO", "-C", "1"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "src/lib.rs:1:// TODO: more\nsrc/lib.rs-2-pub fn add(a: i32, b: i32) -> i32 {\nweb/view.tsx:1:// TODO render\n"
    );
    let run = sb.filekit(&["grep", "todo", "-i", "-c", "--json"], None);
    assert_eq!(run.json["total_files"], 3, "{}", run.stdout);
    assert_eq!(run.json["truncated"], false);
    assert_eq!(run.json["files"][0]["path"], "src/lib.rs");
    let run = sb.filekit(&["grep", "TODO", "--hidden", "--no-ignore", "-l"], None);
    assert_eq!(
        run.stdout,
        ".hidden/secret.rs\nsrc/lib.rs\ntarget/debug/out.rs\nweb/view.tsx\n"
    );
    let run = sb.filekit(&["grep", "no such text anywhere"], None);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    let run = sb.filekit(&["grep", "a{2"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("PARSE_ERROR"), "{}", run.stderr);

    touch(&sb, "src/main.rs", 5_000);
    touch(&sb, "src/lib.rs", 6_000);
    let run = sb.filekit(&["glob", "src/*.rs"], None);
    assert_eq!(run.stdout, "src/lib.rs\nsrc/main.rs\n");
    let run = sb.filekit(&["glob", "**/*.rs", "--json", "--limit", "1"], None);
    assert_eq!(run.json["total"], 2);
    assert_eq!(run.json["truncated"], true);
    assert_eq!(run.json["files"][0]["path"], "src/lib.rs");

    let run = sb.filekit(&["ls", "src", "--tree"], None);
    let root = sb.root().to_str().unwrap();
    assert_eq!(
        run.stdout,
        format!("- {root}/src/\n  - lib.rs\n  - main.rs\n")
    );
    let run = sb.filekit(&["ls", "--json"], None);
    let names: Vec<&str> = run.json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["data.bin", "src", "web"]);
    assert_eq!(run.json["entries"][1]["kind"], "dir");
    let run = sb.filekit(&["ls", "nope"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("NOT_FOUND"), "{}", run.stderr);
}

#[test]
fn search_tools_are_listed_with_their_schemas() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["tools", "--json"], None);
    let tools = run.json.as_array().unwrap();
    let schema = |name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not served"))["input_schema"]
            .clone()
    };
    let grep = schema("Grep");
    for arg in [
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-A",
        "-B",
        "-C",
        "-n",
        "-i",
        "head_limit",
        "multiline",
    ] {
        assert!(grep["properties"][arg].is_object(), "Grep lacks {arg}");
    }
    assert_eq!(grep["required"], json!(["pattern"]));
    assert_eq!(schema("Glob")["required"], json!(["pattern"]));
    assert_eq!(schema("LS")["required"], json!(["path"]));
    let list = schema("file:list_files");
    for arg in ["path", "filter", "recursive"] {
        assert!(
            list["properties"][arg].is_object(),
            "list_files lacks {arg}"
        );
    }
}

#[test]
fn hidden_and_ignored_files_can_be_included() {
    let sb = project();
    let run = sb.call(
        "Grep",
        json!({"pattern": "TODO", "include_hidden": true, "include_ignored": true}),
    );
    let text = content(&run);
    assert!(text.contains(&abs(&sb, ".hidden/secret.rs")), "{text}");
    assert!(text.contains(&abs(&sb, "target/debug/out.rs")), "{text}");
    assert!(
        !text.contains(".filekit"),
        "filekit's own data is never shown: {text}"
    );
    assert!(
        !text.contains("data.bin"),
        "binary files stay skipped: {text}"
    );

    let run = sb.call(
        "Glob",
        json!({"pattern": "**/*.rs", "include_ignored": true}),
    );
    assert!(content(&run).contains("out.rs"));
    assert!(!content(&run).contains("secret.rs"));
    let run = sb.call("LS", json!({"path": ".", "include_hidden": true}));
    let text = content(&run);
    assert!(
        text.contains("- .hidden/\n") && text.contains("- .gitignore\n"),
        "{text}"
    );
    assert!(!text.contains(".filekit"), "{text}");
}

#[test]
fn very_long_lines_are_cut_for_the_model() {
    let sb = Sandbox::new();
    sb.write(
        "min.js",
        &format!("{}needle{}\n", "a".repeat(10), "b".repeat(5000)),
    );
    let run = sb.call(
        "Grep",
        json!({"pattern": "needle", "output_mode": "content"}),
    );
    let text = content(&run);
    assert!(text.contains(" ... [4016 more characters]"), "{text}");
    assert!(text.len() < 1200, "{}", text.len());
    // The CLI prints the whole line, as ripgrep does.
    let run = sb.filekit(&["grep", "needle"], None);
    assert_eq!(run.stdout.len(), "min.js:1:".len() + 5016 + 1);
}

#[test]
fn every_search_tool_refuses_paths_outside_the_roots_and_suggests_missing_ones() {
    let sb = project();
    let outside = [
        ("LS", json!({"path": "/etc"})),
        ("Glob", json!({"pattern": "*", "path": "/etc"})),
        ("Grep", json!({"pattern": "x", "path": "../.."})),
        ("file:list_files", json!({"path": "/etc"})),
        ("fs_read", json!({"mode": "Directory", "path": "/etc"})),
        (
            "fs_read",
            json!({"mode": "Search", "path": "/etc", "pattern": "root"}),
        ),
    ];
    for (tool, args) in outside {
        let run = sb.call(tool, args.clone());
        assert_eq!(run.code, 1, "{tool} {args}: {}", run.stdout);
        assert_eq!(run.json["success"], false, "{tool} {args}");
        let code = run.json.get("errorCode").or(run.json.get("error_code"));
        assert_eq!(
            code,
            Some(&json!("OUT_OF_ROOT")),
            "{tool} {args}: {}",
            run.stdout
        );
    }
    let missing = [
        ("LS", json!({"path": "sr"})),
        ("Glob", json!({"pattern": "*", "path": "sr"})),
        ("file:list_files", json!({"path": "sr"})),
        ("fs_read", json!({"mode": "Directory", "path": "sr"})),
        (
            "fs_read",
            json!({"mode": "Search", "path": "src/lib.r", "pattern": "add"}),
        ),
    ];
    for (tool, args) in missing {
        let run = sb.call(tool, args.clone());
        assert_eq!(run.json["success"], false, "{tool} {args}");
        assert!(
            run.error().contains("did you mean") && run.error().contains(&abs(&sb, "src")),
            "{tool} {args}: {}",
            run.error()
        );
    }
}
