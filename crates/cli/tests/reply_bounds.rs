//! A total bound on each reply (a reply's size was bounded only per item before): a read of many files, a tree, a
//! search and a tree-wide dry run each stop where one reply is full and say where to go on,
//! and a server that is sent them keeps answering. Hermetic and quick: the bound is made
//! small (`--max-reply-bytes`) and the trees a few thousand files; the attacks at their real
//! sizes, against a release server under an address-space limit, are the judged
//! `server_memory` suite.

use crate::common;
use common::*;
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;

/// The reply bound these runs set: small, so a few files fill it.
const MAX_REPLY: usize = 100_000;

/// A file of 40,000 bytes: two and a half fit in one reply.
fn forty_kb() -> String {
    ("z".repeat(79) + "\n").repeat(500)
}

/// `filekit --max-reply-bytes MAX_REPLY call [--tools T]` with the call on stdin.
fn bounded_call(sb: &Sandbox, tables: Option<&str>, tool: &str, args: Value) -> Run {
    let bound = MAX_REPLY.to_string();
    let mut argv = vec!["--max-reply-bytes", &bound, "call"];
    if let Some(t) = tables {
        argv.extend(["--tools", t]);
    }
    let call = json!({"tool_name": tool, "tool_args": args});
    sb.filekit(&argv, Some(&call.to_string()))
}

/// Every read of many files of every table: the first files are read, the rest are refused
/// with the bound and "another call", nothing past the bound is held, and the reply's size
/// is the bound's and not the request's.
#[test]
fn reads_of_many_files_stop_where_the_reply_is_full() {
    let sb = Sandbox::new();
    sb.write("big.txt", &forty_kb());
    let many = vec!["big.txt"; 200];
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "filekit",
            "read_files",
            json!({"files": many.iter().map(|p| json!({"path": p})).collect::<Vec<_>>()}),
        ),
        (
            "mcp-filesystem",
            "read_multiple_files",
            json!({"paths": many}),
        ),
        (
            "desktop-commander",
            "read_multiple_files",
            json!({"paths": many}),
        ),
        (
            "amazonq",
            "fs_read",
            json!({"operations": [{"mode": "Line", "paths": many}]}),
        ),
    ];
    for (table, tool, args) in cases {
        let run = bounded_call(&sb, Some(table), tool, args);
        let out = format!("{}{}", run.stdout, run.stderr);
        assert!(
            out.contains("not read") && out.contains(&MAX_REPLY.to_string()),
            "{table} {tool}: no refusal naming the bound\n{}",
            &out[out.len().saturating_sub(2000)..]
        );
        assert!(
            out.contains("another call"),
            "{table} {tool}: no way on\n{}",
            &out[out.len().saturating_sub(2000)..]
        );
        // Read while the reply had room (the reply carries each file's content, and some
        // tables its text twice): never the 200 files asked for.
        let read = out.matches(&"z".repeat(79)).count() / 500;
        assert!(
            (1..=8).contains(&read),
            "{table} {tool}: {read} files' content in the reply"
        );
        assert!(
            out.len() < 12 * MAX_REPLY,
            "{table} {tool}: a reply of {} bytes",
            out.len()
        );
    }
}

/// A tree of 3,000 files listed, searched and shown as a tree by every table that does:
/// each reply stops at the bound and says how to see the rest; the CLI's `ls` too.
#[test]
fn listings_and_trees_stop_where_the_reply_is_full() {
    let sb = Sandbox::new();
    for d in 0..30 {
        for f in 0..100 {
            sb.write(&format!("tree/dir{d:02}/file_{f:03}.txt"), "x\n");
        }
    }
    let cases: Vec<(&str, &str, Value, &str)> = vec![
        (
            "mcp-filesystem",
            "directory_tree",
            json!({"path": "tree"}),
            "list a subdirectory",
        ),
        (
            "mcp-filesystem",
            "search_files",
            json!({"path": "tree", "pattern": "**/*.txt"}),
            "list a subdirectory",
        ),
        (
            "mcp-filesystem",
            "list_directory_with_sizes",
            json!({"path": "tree"}),
            "",
        ),
        (
            "claude",
            "LS",
            json!({"path": sb.path("tree").display().to_string()}),
            "",
        ),
    ];
    for (table, tool, args, way_on) in cases {
        let run = bounded_call(&sb, Some(table), tool, args);
        let out = format!("{}{}", run.stdout, run.stderr);
        assert!(
            out.len() < 6 * MAX_REPLY,
            "{table} {tool}: a reply of {} bytes",
            out.len()
        );
        if !way_on.is_empty() {
            assert!(
                out.contains("more entries not shown")
                    && out.contains(&format!("at most {MAX_REPLY} bytes"))
                    && out.contains(way_on),
                "{table} {tool}: {}",
                &out[out.len().saturating_sub(600)..]
            );
        }
    }
    // The CLI's listing: cut at the bound (not at --limit), said on stderr, exact in JSON.
    let bound = MAX_REPLY.to_string();
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "ls",
            "-R",
            "tree",
            "--limit",
            "100000",
            "--json",
        ],
        None,
    );
    let listing = &run.json;
    assert_eq!(listing["truncated"], true, "{}", run.stdout);
    assert_eq!(listing["total"], 3030);
    assert_eq!(listing["reply_limit"]["max"], MAX_REPLY);
    let kept = listing["entries"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() < 3030);
    // The first entries in path order: a continuation starts where they end.
    let names: Vec<&str> = kept.iter().map(|e| e["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.replace('/', "\0"));
    assert_eq!(names, sorted);
    assert_eq!(names[0], "dir00");
    // A glob keeps the newest matches that fit.
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "glob",
            "tree/**/*.txt",
            "--limit",
            "100000",
            "--json",
        ],
        None,
    );
    assert_eq!(
        run.json["truncated"],
        true,
        "{}",
        &run.stdout[..run.stdout.len().min(500)]
    );
    assert_eq!(run.json["total"], 3000);
    let kept = run.json["files"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 3000, "{kept} files kept");
    assert!(
        run.stdout.len() < 2 * MAX_REPLY,
        "{} bytes",
        run.stdout.len()
    );
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "ls",
            "-R",
            "tree",
            "--limit",
            "100000",
        ],
        None,
    );
    assert!(
        run.stderr.contains("more entries not shown"),
        "{}",
        run.stderr
    );
}

/// grep over files of long matching lines: the rows kept are the first in path and line
/// order, as many as the bound holds, and the result says it was cut.
#[test]
fn grep_keeps_its_first_rows_while_the_reply_lasts() {
    let sb = Sandbox::new();
    let line = format!("needle {}\n", "y".repeat(1000));
    for f in 0..200 {
        sb.write(&format!("logs/f{f:03}.log"), &line.repeat(5));
    }
    let bound = MAX_REPLY.to_string();
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "grep",
            "needle",
            "logs",
            "--json",
        ],
        None,
    );
    let r = &run.json;
    assert_eq!(
        r["truncated"],
        true,
        "{}",
        &run.stdout[..run.stdout.len().min(500)]
    );
    assert_eq!(r["total_files"], 200);
    let files = r["files"].as_array().unwrap();
    let shown: usize = files
        .iter()
        .map(|f| f["lines"].as_array().unwrap().len())
        .sum();
    assert!(shown > 0 && shown * 1000 < 2 * MAX_REPLY, "{shown} rows");
    // A prefix in path order: every file but the last whole, and none after a gap.
    for (i, f) in files.iter().enumerate() {
        assert_eq!(f["path"], format!("logs/f{i:03}.log"));
        if i + 1 < files.len() {
            assert_eq!(f["lines"].as_array().unwrap().len(), 5, "{}", f["path"]);
        }
    }
    let run = sb.filekit(
        &["--max-reply-bytes", &bound, "grep", "needle", "logs"],
        None,
    );
    assert!(run.stdout.len() < 2 * MAX_REPLY);
    assert!(run.stderr.contains("more rows not shown"), "{}", run.stderr);
}

/// A tree-wide dry run whose every line changes: the diffs are kept while the reply lasts,
/// the rest are counted and named as left out; nothing is written.
#[test]
fn a_tree_wide_dry_run_keeps_its_diffs_while_the_reply_lasts() {
    let sb = Sandbox::new();
    let text = "alpha beta\n".repeat(400);
    for f in 0..100 {
        sb.write(&format!("src/f{f:03}.txt"), &text);
    }
    let before = sb.snapshot();
    let run = bounded_call(
        &sb,
        Some("filekit"),
        "replace_in_files",
        json!({"expression": "s/alpha/gamma/", "files": "*.txt", "directory": "src", "dry_run": true}),
    );
    assert!(
        run.stdout.len() < 6 * MAX_REPLY,
        "a reply of {} bytes",
        run.stdout.len()
    );
    // `filekit call` prints the reply's value: the first files keep their diffs, the rest
    // their counts (the text's note is checked through the server below).
    let files = run.json["files"].as_array().unwrap();
    let with_diff = files.iter().filter(|f| f.get("diff").is_some()).count();
    assert!((1..100).contains(&with_diff), "{with_diff} diffs kept");
    assert_eq!(files.len(), 100, "every file still listed");
    assert_eq!(run.json["files_changed"], 100, "every file still counted");
    let run = bounded_call(
        &sb,
        Some("amazonq"),
        "fs_write",
        json!({"command": "pattern_replace", "sed_pattern": "s/alpha/gamma/", "file_pattern": "*.txt", "directory": "src", "dry_run": true}),
    );
    assert!(
        run.stdout.contains("are left out"),
        "{}",
        &run.stdout[..run.stdout.len().min(1500)]
    );
    let bound = MAX_REPLY.to_string();
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "replace",
            "s/alpha/gamma/",
            "src",
            "--dry-run",
        ],
        None,
    );
    assert!(
        run.stdout.len() < 3 * MAX_REPLY,
        "{} bytes",
        run.stdout.len()
    );
    assert!(
        run.stdout.contains("are not shown"),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(800)..]
    );
    assert_eq!(sb.snapshot(), before, "a dry run wrote");
}

/// A tree-wide dry run of more files than one reply lists: the engine keeps only the files
/// listed (the first in path order) and counts the rest, and every count of the reply is the
/// whole tree's, in every tool that previews a tree and in `filekit replace --dry-run`.
#[test]
fn a_tree_wide_dry_run_past_its_listing_counts_every_file() {
    let sb = Sandbox::new();
    let files = 2_000;
    for f in 0..files {
        sb.write(&format!("t/d{}/f{f:04}.txt", f / 100), "the colour of it\n");
    }
    sb.write("t/same.txt", "no match\n");
    let before = sb.snapshot();
    let run = bounded_call(
        &sb,
        Some("filekit"),
        "replace_in_files",
        json!({"expression": "s/colou?r/color/", "files": "*.txt", "directory": "t", "dry_run": true}),
    );
    assert!(
        run.stdout.len() < 2 * MAX_REPLY,
        "{} bytes",
        run.stdout.len()
    );
    let listed: Vec<&str> = run.json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        (100..files).contains(&listed.len()),
        "{} listed",
        listed.len()
    );
    let mut first: Vec<String> = (0..files)
        .map(|f| format!("t/d{}/f{f:04}.txt", f / 100))
        .collect();
    first.sort();
    assert_eq!(
        listed,
        first[..listed.len()],
        "the first files in path order"
    );
    assert_eq!(
        (&run.json["files_changed"], &run.json["replacements"]),
        (&json!(files), &json!(files))
    );
    assert_eq!(run.json["success"], true);
    let run = bounded_call(
        &sb,
        Some("amazonq"),
        "fs_write",
        json!({"command": "pattern_replace", "sed_pattern": "s/colou?r/color/", "file_pattern": "*.txt", "directory": "t", "recursive": true, "dry_run": true}),
    );
    assert_eq!(
        (&run.json["files_modified"], &run.json["replacements"]),
        (&json!(files), &json!(files))
    );
    assert_eq!(run.json["files_unchanged"], 1);
    let summary = run.json["summary"].as_str().unwrap();
    let not_listed = files - run.json["files"].as_array().unwrap().len();
    assert!(
        summary.contains(&format!("{not_listed} more file(s) not listed")),
        "{summary}"
    );
    let bound = MAX_REPLY.to_string();
    let run = sb.filekit(
        &[
            "--max-reply-bytes",
            &bound,
            "replace",
            "s/colou?r/color/",
            "t",
            "--dry-run",
        ],
        None,
    );
    assert!(
        run.stdout.contains(&format!(
            "{files} replacement(s) in {files} file(s); 1 unchanged"
        )),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(800)..]
    );
    assert!(run.stdout.contains("more file(s) not listed"));
    assert!(
        run.stdout.len() < 3 * MAX_REPLY,
        "{} bytes",
        run.stdout.len()
    );
    assert_eq!(sb.snapshot(), before, "a dry run wrote");
}

/// The server is sent each attack in turn (a read naming one file 1,000 times, a tree, a
/// dry run) and answers a small read after each; every reply is cut at the bound, its whole
/// message counted: these tables send the text and the structured part, which share it.
#[test]
fn a_server_answers_a_small_read_after_each_oversized_reply() {
    let sb = Sandbox::new();
    sb.write("big.txt", &forty_kb());
    sb.write("small.txt", "hello\n");
    for f in 0..1500 {
        sb.write(&format!("tree/d{:02}/f{f:04}.txt", f % 15), "alpha\n");
    }
    let bound = MAX_REPLY.to_string();
    let mut cmd = sb.command(&[
        "--max-reply-bytes",
        &bound,
        "serve",
        "--tools",
        "filekit,mcp-filesystem",
    ]);
    // Under a 1 GiB address-space limit, as the judged suite runs it: a server that reserves
    // more than it uses (an allocator arena a thread) fails to start a thread or to allocate.
    // SAFETY: setrlimit between fork and exec touches only the child's own limit.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut server = McpStdio::start(cmd);
    let attacks: Vec<(&str, Value)> = vec![
        (
            "read_multiple_files",
            json!({"paths": vec!["big.txt"; 1000]}),
        ),
        (
            "read_files",
            json!({"files": vec![json!({"path": "big.txt"}); 1000]}),
        ),
        // Files that do not exist: each failure is said in the reply, and is charged to it.
        (
            "read_multiple_files",
            json!({"paths": vec!["nope.txt"; 20_000]}),
        ),
        (
            "read_files",
            json!({"files": vec![json!({"path": "nope.txt"}); 1000]}),
        ),
        ("directory_tree", json!({"path": "tree"})),
        (
            "search_files",
            json!({"path": "tree", "pattern": "**/*.txt"}),
        ),
        (
            "replace_in_files",
            json!({"expression": "s/alpha/gamma/", "files": "*.txt", "directory": "tree", "dry_run": true}),
        ),
    ];
    for (tool, args) in attacks {
        let result = server.call_tool(tool, &args);
        let size = result.to_string().len();
        // The bound counts what the reply carries (contents, entries, failures); the framing
        // of the message (JSON escapes, line numbers) adds a little.
        assert!(
            size <= MAX_REPLY + MAX_REPLY / 10,
            "{tool}: a reply of {size} bytes"
        );
        if tool == "replace_in_files" {
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert!(
                text.contains("more file(s) not listed")
                    && text.contains("narrow `files` or `directory`"),
                "{}",
                &text[..text.len().min(1500)]
            );
        }
        let small = server.call_tool("read_files", &json!({"files": [{"path": "small.txt"}]}));
        assert!(small.to_string().contains("hello"), "after {tool}: {small}");
    }
    assert!(server.alive());
    assert_eq!(sb.read("tree/d00/f0000.txt"), "alpha\n");
}
