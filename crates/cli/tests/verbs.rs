//! The verbs for people: `filekit read`, `filekit edit`, `filekit tools` and `--help`, run as
//! a person or a script would, checking what they print, what they write and how they exit.

use crate::common;
use common::*;

const PLAN_ALPHA: &str = r#"{"files": [{"path": "a.txt", "edits": [
    {"str_replace": {"old": "line 2", "new": "LINE TWO"}},
    {"append": {"text": "line 11"}}
]}]}"#;

#[test]
fn read_prints_a_header_and_numbered_lines() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.filekit(&["read", "a.txt", "--lines", "2:3"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut lines = run.stdout.lines();
    let header = lines.next().unwrap();
    assert!(
        header.contains("a.txt") && header.contains("lines 2-3 of 10"),
        "{header}"
    );
    assert!(header.contains("content_hash "), "{header}");
    assert_eq!(lines.next(), Some("     2\tline 2"));
    assert_eq!(lines.next(), Some("     3\tline 3"));

    // Negative numbers count from the end.
    let run = sb.filekit(&["read", "--lines=-2:", "a.txt"], None);
    assert!(
        run.stdout.contains("     9\tline 9\n    10\tline 10\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn read_json_and_per_file_errors() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.write("b.txt", "b\n");
    let run = sb.filekit(&["--json", "read", "a.txt", "missing.txt", "b.txt"], None);
    // One file failed: exit 1, and the others were still read.
    assert_eq!(run.code, 1, "{}", run.stderr);
    let files = run.json.as_array().expect("a JSON list");
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["success"], true);
    assert_eq!(files[0]["total_lines"], 10);
    assert_eq!(files[0]["content_hash"].as_str().unwrap().len(), 16);
    assert_eq!(files[1]["success"], false);
    assert_eq!(files[1]["error"]["code"], "NOT_FOUND");
    assert!(
        files[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    assert_eq!(files[2]["success"], true);
}

#[test]
fn edit_applies_a_plan_and_reports_each_edit() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let run = sb.filekit(&["edit"], Some(PLAN_ALPHA));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("a.txt"),
        TEN_LINES.replace("line 2\n", "LINE TWO\n") + "line 11\n"
    );
    assert!(
        run.stdout
            .contains("a.txt: modified, 2 edit(s) applied, 0 failed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("--- a/a.txt\n+++ b/a.txt\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("-line 2\n+LINE TWO\n"),
        "{}",
        run.stdout
    );
    // No terminal and no flag: no escape codes.
    assert!(!run.stdout.contains('\x1b'), "{}", run.stdout);
}

#[test]
fn edit_dry_run_and_json_write_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    std::fs::write(sb.path("plan.json"), PLAN_ALPHA).unwrap();
    let before = sb.snapshot();
    let run = sb.filekit(&["edit", "plan.json", "--dry-run"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("dry run: nothing written"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("+LINE TWO"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());

    let run = sb.filekit(&["--json", "edit", "plan.json", "--dry-run"], None);
    assert_eq!(run.json["dry_run"], true);
    assert_eq!(run.json["files"][0]["edits_applied"], 2);
    assert_eq!(run.json["files"][0]["written"], false);
    assert!(
        run.json["files"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+line 11")
    );
    assert_eq!(before, sb.snapshot());
}

#[test]
fn edit_failures_exit_1_and_atomic_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    sb.write("b.txt", "bravo\n");
    let plan = r#"{"files": [
        {"path": "a.txt", "edits": [{"str_replace": {"old": "line 1\n", "new": "one\n"}}]},
        {"path": "b.txt", "edits": [{"str_replace": {"old": "charlie", "new": "delta"}}]}
    ]}"#;
    let before = sb.snapshot();
    let run = sb.filekit(&["edit", "--atomic"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("not found"), "{}", run.stdout);
    assert!(
        run.stdout.contains("atomic: nothing written"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());

    // Without --atomic the good file is written and the bad one reported.
    let run = sb.filekit(&["edit"], Some(plan));
    assert_eq!(run.code, 1);
    assert!(sb.read("a.txt").starts_with("one\n"));
    assert_eq!(sb.read("b.txt"), "bravo\n");
}

#[test]
fn a_failed_create_says_so_once_and_shows_no_applied_edit() {
    let sb = Sandbox::new();
    sb.write("taken.txt", "x\n");
    // The edit itself fails: its line says why, and the file's line does not repeat it.
    let plan = r#"{"files": [{"path": "taken.txt", "edits": [{"create": {"content": "y\n"}}]}]}"#;
    let run = sb.filekit(&["edit"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("already exists").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("FAIL edit 1 (create)"),
        "{}",
        run.stdout
    );
    // The edit is planned but the write fails (a file stands where a folder must be made):
    // no "applied", no diff, no "ok" line for an edit that never reached the disk.
    let plan =
        r#"{"files": [{"path": "taken.txt/sub.txt", "edits": [{"create": {"content": "y\n"}}]}]}"#;
    let run = sb.filekit(&["edit"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("taken.txt/sub.txt: failed, nothing written"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("applied"), "{}", run.stdout);
    assert!(!run.stdout.contains(" ok "), "{}", run.stdout);
    assert!(!run.stdout.contains("+++"), "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("in the way").count(),
        1,
        "{}",
        run.stdout
    );
    // The engine's error names the file as the file's line does: relative to the root.
    assert!(
        run.stdout.contains("cannot create directory taken.txt:"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains(&sb.root().display().to_string()),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("taken.txt"), "x\n");
}

#[test]
fn bad_plans_exit_2_and_say_what_is_wrong() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let before = sb.snapshot();
    let run = sb.filekit(
        &["edit"],
        Some(r#"{"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "x"}}]}]}"#),
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("new"), "{}", run.stderr);
    assert!(run.stderr.contains("filekit edit --help"), "{}", run.stderr);
    // A misspelt option is refused, not ignored.
    let run = sb.filekit(
        &["edit"],
        Some(r#"{"files": [], "options": {"dry_rnu": true}}"#),
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("dry_rnu"), "{}", run.stderr);
    let run = sb.filekit(&["edit", "no-such-plan.json"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no-such-plan.json"), "{}", run.stderr);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn colors_follow_the_flag_no_color_and_clicolor_force() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    let args = ["edit", "--dry-run"];
    let plan = Some(PLAN_ALPHA);

    let run = sb.filekit(&["--color", "always", "edit", "--dry-run"], plan);
    assert!(
        run.stdout.contains("\x1b[31m-line 2\x1b[0m"),
        "{:?}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\x1b[32m+LINE TWO\x1b[0m"),
        "{:?}",
        run.stdout
    );

    let run = sb.filekit_env(&args, plan, &[("CLICOLOR_FORCE", "1")]);
    assert!(run.stdout.contains("\x1b[32m+LINE TWO"), "{:?}", run.stdout);

    // NO_COLOR (https://no-color.org) wins over CLICOLOR_FORCE.
    let run = sb.filekit_env(&args, plan, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!run.stdout.contains('\x1b'), "{:?}", run.stdout);
    assert!(run.stdout.contains("+LINE TWO"), "{:?}", run.stdout);

    let run = sb.filekit(&["--color", "never", "edit", "--dry-run"], plan);
    assert!(!run.stdout.contains('\x1b'), "{:?}", run.stdout);
}

#[test]
fn help_teaches_with_examples() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["--help"], None);
    assert_eq!(run.code, 0);
    for needle in [
        "call",
        "read",
        "edit",
        "Exit codes",
        "filekit call --json",
        "--root",
    ] {
        assert!(
            run.stdout.contains(needle),
            "--help lacks {needle:?}:\n{}",
            run.stdout
        );
    }
    let run = sb.filekit(&["edit", "--help"], None);
    for needle in ["replace_lines", "str_replace", "content_hash", "Examples:"] {
        assert!(run.stdout.contains(needle), "edit --help lacks {needle:?}");
    }
    let run = sb.filekit(&["call", "--help"], None);
    assert!(run.stdout.contains("tool_name"), "{}", run.stdout);
}

#[test]
fn tools_lists_every_dialect() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["tools", "--json"], None);
    assert_eq!(run.code, 0);
    let names: Vec<&str> = run
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for n in [
        "fs_read",
        "fs_write",
        "file:read_file",
        "file:edit_file",
        "file:create_file",
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "edit_block",
        "batch_edit_blocks",
        "write_from_line",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let run = sb.filekit(&["tools", "--dialect", "klingon"], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("invalid value 'klingon'") && run.stderr.contains("mcp-filesystem"),
        "the error names the tables: {}",
        run.stderr
    );
}

/// A verb whose reader stops early (`filekit read big.txt | head -c5`) ends quietly, as `cat`
/// does (killed by SIGPIPE), instead of panicking in its printing with exit code 101.
#[test]
fn a_closed_pipe_ends_a_verb_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    let lines: String = (1..=300_000).map(|n| format!("{n}\n")).collect();
    sb.write("big.txt", &lines);
    for args in [
        &["read", "big.txt"][..],
        &["read", "big.txt", "--json"],
        &["tools", "--json"],
        &["grep", "1", "big.txt"],
    ] {
        let mut child = sb.command(args).spawn().unwrap();
        drop(child.stdin.take());
        let mut first = [0u8; 5];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe's reading end is closed here, with most of the output unwritten.
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(status.code(), Some(101), "{args:?}: {err}");
        assert!(
            status.success() || status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {status:?} {err}"
        );
    }
}

/// Every verb that prints, with its standard output a pipe nobody reads any more (closed
/// before the verb writes a byte): it ends quietly, killed by SIGPIPE or exiting as usual,
/// never with a panic and exit code 101.
#[test]
fn every_verb_ends_quietly_when_its_output_pipe_is_closed() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\nworld\n")
        .write("src/m.ts", "export const x = 1;\nconsole.log(x);\n")
        .write(
            "plan.json",
            r#"{"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "hello", "new": "HI"}}]}]}"#,
        )
        .write(
            "fix.patch",
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-hello\n+HI\n world\n",
        );
    // A change to list, undo and redo.
    assert_eq!(
        sb.filekit(&["replace", "s/world/earth/", "a.txt"], None)
            .code,
        0
    );
    let call = r#"{"tool_name": "fs_read", "tool_args": {"mode": "Line", "path": "a.txt"}}"#;
    let verbs: &[&[&str]] = &[
        &["call", "--json", call],
        &["read", "a.txt"],
        &["read", "a.txt", "--json"],
        &["edit", "plan.json", "--dry-run"],
        &["edit", "plan.json", "--dry-run", "--json"],
        &["replace", "s/hello/HI/", "a.txt", "--dry-run"],
        &["patch", "fix.patch", "--dry-run"],
        &["grep", "hello"],
        &["grep", "hello", "--json"],
        &["glob", "**/*"],
        &["ls", "."],
        &["ls", ".", "--json"],
        &["mv", "a.txt", "b.txt", "--dry-run"],
        &["cp", "a.txt", "c.txt", "--dry-run"],
        &["rm", "a.txt", "--dry-run"],
        &[
            "refactor",
            "rename_symbol",
            "src/m.ts",
            "--symbol",
            "x",
            "--name",
            "y",
            "--dry-run",
        ],
        &["history"],
        &["history", "--json"],
        &["undo", "--dry-run"],
        &["lock", "a.txt"],
        &["unlock", "a.txt"],
        &["state"],
        &["setup", "claude-code"],
        &["tools"],
        &["tools", "--json"],
        &["--help"],
    ];
    for args in verbs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = sb.command(args).stdout(writer).spawn().unwrap();
        drop(child.stdin.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(status.code(), Some(101), "{args:?}: {err}");
        assert!(
            status.code().is_some_and(|c| c <= 2) || status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {status:?} {err}"
        );
    }
}

/// The whole of `filekit edit --json` (field order included) for a file modified with an
/// edit that failed, one created in a new directory and one missing: what a script reads.
/// The sandbox's path and the files' times are the only parts that vary between runs.
#[test]
fn edit_json_is_pinned() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\nthree\n");
    let plan = r#"{"files": [
        {"path": "a.txt", "edits": [
            {"replace_lines": {"start": 1, "end": 1, "new": "ONE"}},
            {"str_replace": {"old": "three", "new": "THREE"}},
            {"str_replace": {"old": "tow", "new": "2"}}
        ]},
        {"path": "b/new.txt", "edits": [{"create": {"content": "hi\n"}}]},
        {"path": "gone.txt", "edits": [{"str_replace": {"old": "x", "new": "y"}}]}
    ]}"#;
    let run = sb.filekit(&["--json", "edit"], Some(plan));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let root = sb.root().canonicalize().unwrap();
    let mut text = run.stdout.replace(root.to_str().unwrap(), "<root>");
    // Each `"last_modified": "<a time>"` becomes `"last_modified": "<time>"`.
    let key = "\"last_modified\": \"";
    let mut at = 0;
    while let Some(found) = text[at..].find(key) {
        let start = at + found + key.len();
        let end = start + text[start..].find('"').unwrap();
        text.replace_range(start..end, "<time>");
        at = start;
    }
    assert_eq!(text, PINNED_EDIT_JSON, "{text}");
}

const PINNED_EDIT_JSON: &str = r#"{
  "files": [
    {
      "path": "a.txt",
      "resolved_path": "<root>/a.txt",
      "status": "modified",
      "written": true,
      "edits_applied": 2,
      "edits_failed": 1,
      "edits": [
        {
          "index": 0,
          "command": "replace_lines",
          "success": true,
          "replacements": 1,
          "line": 1
        },
        {
          "index": 1,
          "command": "str_replace",
          "success": true,
          "replacements": 1,
          "line": 3
        },
        {
          "index": 2,
          "command": "str_replace",
          "success": false,
          "replacements": 0,
          "error": {
            "code": "NOT_FOUND",
            "message": "`old` was not found in <root>/a.txt",
            "hint": "nothing similar is in the file: read it again and copy the text exactly, including indentation",
            "details": {
              "fact": "search_text_not_found",
              "near_miss": null,
              "wanted": "tow"
            }
          }
        }
      ],
      "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n-three\n+THREE\n",
      "lines_added": 2,
      "lines_removed": 2,
      "old_hash": "8ba6dab5185db767",
      "new_hash": "702273c83c32c4e0",
      "last_modified": "<time>"
    },
    {
      "path": "b/new.txt",
      "resolved_path": "<root>/b/new.txt",
      "status": "created",
      "written": true,
      "edits_applied": 1,
      "edits_failed": 0,
      "edits": [
        {
          "index": 0,
          "command": "create",
          "success": true,
          "replacements": 1,
          "line": 1
        }
      ],
      "diff": "--- /dev/null\n+++ b/b/new.txt\n@@ -0,0 +1,1 @@\n+hi\n",
      "lines_added": 1,
      "lines_removed": 0,
      "new_hash": "b34d1a3ab2bece70",
      "last_modified": "<time>",
      "created_dirs": [
        "<root>/b"
      ]
    },
    {
      "path": "gone.txt",
      "resolved_path": "<root>/gone.txt",
      "status": "failed",
      "written": false,
      "edits_applied": 0,
      "edits_failed": 0,
      "edits": [],
      "diff": "",
      "lines_added": 0,
      "lines_removed": 0,
      "error": {
        "code": "NOT_FOUND",
        "message": "<root>/gone.txt does not exist",
        "hint": "nothing with a similar name is in <root>; list that directory to see what is there"
      }
    }
  ],
  "dry_run": false,
  "atomic": false,
  "rolled_back": false,
  "history_entry": 1
}
"#;

/// `filekit call '{...}'`, the call as an argument (as people type it), is the same call as
/// `--json '{...}'`; giving both is refused, naming them.
#[test]
fn call_takes_the_call_as_an_argument() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\n");
    let call = r#"{"tool_name": "Read", "tool_args": {"file_path": "a.txt"}}"#;
    let run = sb.filekit(&["call", call], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["content"], "     1\tone\n", "{}", run.stdout);
    let both = sb.filekit(&["call", call, "--json", call], None);
    assert_eq!(both.code, 2);
    assert!(both.stderr.contains("--json"), "{}", both.stderr);
}

/// A path outside the roots, given to a verb, is told how to add a root (`--root`); an agent
/// served over MCP, which cannot, is not.
#[test]
fn a_path_outside_the_roots_names_root_on_the_command_line_only() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("x.txt");
    std::fs::write(&path, "x\n").unwrap();
    let path = path.to_string_lossy().into_owned();
    let run = sb.filekit(&["read", &path], None);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("OUT_OF_ROOT"), "{}", run.stderr);
    assert!(run.stderr.contains("--root DIR"), "{}", run.stderr);

    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_filekit"));
    cmd.arg("--root")
        .arg(sb.root())
        .env("XDG_STATE_HOME", outside.path().join("state"))
        .args(["serve", "--tools", "claude"]);
    let mut session = crate::common::McpStdio::start(cmd);
    let reply = session.call_tool("Read", &serde_json::json!({"file_path": path}));
    let text = reply.to_string();
    assert!(text.contains("outside the workspace"), "{text}");
    assert!(!text.contains("--root"), "{text}");
}

/// `filekit serve` started by hand on a terminal says on stderr what it is, what it serves
/// and how to stop it, instead of waiting in silence; a client's pipe gets no such line.
#[test]
fn serve_on_a_terminal_says_what_it_is() {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::BufRead;
    let sb = Sandbox::new();
    let state = tempfile::tempdir().unwrap();
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_filekit"))
        .arg("--root")
        .arg(sb.root())
        .env("XDG_STATE_HOME", state.path())
        .arg("serve")
        .stdin(terminal)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.contains("an MCP server"), "{first}");
    assert!(first.contains("Tables: filekit"), "{first}");
    assert!(first.contains("Ctrl-C"), "{first}");
    drop(master);
}
