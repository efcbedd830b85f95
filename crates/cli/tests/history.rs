//! The edit history, undo and redo, and the file operations, driven as a user or agent would:
//! through `filekit call`, the CLI verbs, and a real SQLite file.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;

fn history(sb: &Sandbox) -> Vec<Value> {
    let run = sb.filekit(&["history", "--json", "--limit", "1000"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json.as_array().expect("entries").clone()
}

#[test]
fn an_edit_is_recorded_and_undone_and_redone() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\n");
    std::fs::set_permissions(sb.path("a.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "two", "new_string": "TWO"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let entries = history(&sb);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["tool"], "Edit");
    assert!(entries[0]["summary"].as_str().unwrap().contains("a.txt"));

    let run = sb.filekit(&["undo", "--json"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sb.read("a.txt"), "one\ntwo\n");
    let mode = std::fs::metadata(sb.path("a.txt"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "permissions come back with the content");
    assert_eq!(run.json["reverted"][0]["undone"], entries[0]["id"]);

    let run = sb.filekit(&["redo"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sb.read("a.txt"), "one\nTWO\n");
    // What the redo did, not the chain of entries behind it ("redo of entry 2: undo of ...").
    assert!(
        run.stdout
            .starts_with("redid: changed 1 path: a.txt (entry 2)"),
        "{}",
        run.stdout
    );
    let run = sb.filekit(&["history"], None);
    assert!(!run.stdout.contains(" of entry "), "{}", run.stdout);
    assert!(
        run.stdout.contains("undid: changed 1 path"),
        "{}",
        run.stdout
    );
    let kinds: Vec<String> = history(&sb)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["redo", "undo", "change"]);
}

#[test]
fn a_tree_wide_replace_is_one_entry_and_undoes_as_one() {
    let sb = Sandbox::new();
    for i in 0..6 {
        sb.write(
            &format!("src/m{i}.rs"),
            &format!("fn f{i}() {{ old_name(); }}\n"),
        );
    }
    let run = sb.filekit(&["replace", "s/old_name/new_name/g", "src"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let entries = history(&sb);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["tool"], "filekit replace");
    assert_eq!(entries[0]["paths"].as_array().unwrap().len(), 6);
    // Show gives a diff per file.
    let id = entries[0]["id"].as_i64().unwrap().to_string();
    let run = sb.filekit(&["history", "--show", &id, "--color", "never"], None);
    assert!(
        run.stdout.contains("-fn f3() { old_name(); }")
            && run.stdout.contains("+fn f3() { new_name(); }"),
        "{}",
        run.stdout
    );

    let run = sb.filekit(&["undo", &id], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for i in 0..6 {
        assert_eq!(
            sb.read(&format!("src/m{i}.rs")),
            format!("fn f{i}() {{ old_name(); }}\n")
        );
    }
}

#[test]
fn undo_refuses_a_file_changed_since_naming_it_unless_forced() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\n");
    sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
    );
    std::fs::write(sb.path("a.txt"), "changed by someone else\n").unwrap();
    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("a.txt") && run.stderr.contains("changed after it"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("force"),
        "the hint says how to go on: {}",
        run.stderr
    );
    assert_eq!(sb.read("a.txt"), "changed by someone else\n");
    let run = sb.filekit(&["undo", "--force"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sb.read("a.txt"), "one\n");
}

#[test]
fn history_filters_by_path_and_lists_newest_first() {
    let sb = Sandbox::new();
    sb.write("a/x.txt", "x\n").write("b/y.txt", "y\n");
    sb.call(
        "Write",
        json!({"file_path": sb.path("a/x.txt"), "content": "x2\n"}),
    );
    sb.call(
        "Write",
        json!({"file_path": sb.path("b/y.txt"), "content": "y2\n"}),
    );
    sb.call(
        "Write",
        json!({"file_path": sb.path("a/x.txt"), "content": "x3\n"}),
    );
    let run = sb.filekit(&["history", "--path", "a", "--json"], None);
    let ids: Vec<i64> = run
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [3, 1]);
    let run = sb.call("history", json!({"path": "b/y.txt"}));
    assert_eq!(run.json["entries"].as_array().unwrap().len(), 1);
    let run = sb.call("history", json!({"entry": 2}));
    assert!(
        run.json["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+y2"),
        "{}",
        run.stdout
    );
    let run = sb.call("history", json!({"entry": 99}));
    assert_eq!(run.code, 1);
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("no history entry 99"),
        "{}",
        run.stdout
    );
}

#[test]
fn file_tools_of_the_file_dialect_delete_rename_and_copy_undoably() {
    let sb = Sandbox::new();
    sb.write("src/UserCard.jsx", "export const UserCard = 1;\n");
    let run = sb.call(
        "file:copy_file",
        json!({"source_path": "src/UserCard.jsx", "dest_path": "src/cards/ProductCard.jsx"}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(
        sb.read("src/cards/ProductCard.jsx"),
        "export const UserCard = 1;\n"
    );
    let run = sb.call(
        "file:rename_file",
        json!({"old_path": "src/UserCard.jsx", "new_path": "src/components/UserCard.jsx"}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert!(!sb.exists("src/UserCard.jsx") && sb.exists("src/components/UserCard.jsx"));
    let run = sb.call(
        "file:delete_file",
        json!({"path": "src/cards/ProductCard.jsx"}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert!(!sb.exists("src/cards/ProductCard.jsx"));
    // Undo all three, newest first: the tree is as it was.
    let run = sb.filekit(&["undo", "--last", "3"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(sb.exists("src/UserCard.jsx"));
    assert!(
        !sb.exists("src/components") && !sb.exists("src/cards"),
        "directories made by the operations are gone"
    );
}

#[test]
fn semantic_file_tools_follow_their_design() {
    let sb = Sandbox::new();
    let run = sb.call(
        "file_create",
        json!({"path": "src/services/PaymentService.ts", "template": "typescript-class"}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(
        run.json["directoriesCreated"],
        json!(["src", "src/services"])
    );
    assert_eq!(
        sb.read("src/services/PaymentService.ts"),
        "export class PaymentService {\n  constructor() {}\n}\n"
    );
    let run = sb.call(
        "file_create",
        json!({"path": "docs/x.md", "template": "markdown", "createDirectories": false}),
    );
    assert_eq!(run.json["success"], false);
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{}",
        run.stdout
    );
    let run = sb.call(
        "file_create",
        json!({"path": "a.ts", "template": "no-such-template"}),
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("typescript-class"),
        "lists the templates: {}",
        run.stdout
    );
    // A user template.
    sb.write(
        ".filekit/templates/service.ts",
        "// {{name}} by {{author}}\n",
    );
    let run = sb.call(
        "file_create",
        json!({"path": "b.ts", "template": "service", "templateVars": {"author": "me"}}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(sb.read("b.ts"), "// b by me\n");
    for bad in ["../../etc/passwd", "/etc/passwd", ".hidden"] {
        let run = sb.call("file_create", json!({"path": "d.ts", "template": bad}));
        let error = run.json["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("not a template name"),
            "{bad}: {}",
            run.stdout
        );
        assert!(!sb.exists("d.ts"));
    }
    let run = sb.call(
        "file_create",
        json!({"path": "c.ts", "template": "service"}),
    );
    assert!(
        run.json["error"].as_str().unwrap().contains("`author`"),
        "{}",
        run.stdout
    );

    let run = sb.call("file_duplicate", json!({"source": "src/services/PaymentService.ts", "destination": "src/services/RefundService.ts", "renameSymbols": true}));
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(run.json["symbolsRenamed"][0]["occurrences"], 1);
    assert!(
        sb.read("src/services/RefundService.ts")
            .contains("class RefundService")
    );

    let run = sb.call(
        "file_rename",
        json!({"path": "src/services/RefundService.ts", "newName": "Refunds.ts"}),
    );
    assert_eq!(run.json["renamed"], true, "{}", run.stdout);
    assert!(sb.exists("src/services/Refunds.ts"));
    let run = sb.call(
        "file_rename",
        json!({"path": "src/services/Refunds.ts", "newName": "../x.ts"}),
    );
    assert_eq!(
        run.code, 2,
        "a path as newName is a bad request: {}",
        run.stdout
    );

    let run = sb.call(
        "file_move",
        json!({"source": "src/services/Refunds.ts", "destination": "src/billing/", "dryRun": true}),
    );
    // A final `/` names a directory to move into, which must exist.
    assert_eq!(run.json["success"], false, "{}", run.stdout);
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("there is no directory"),
        "{}",
        run.stdout
    );
    assert!(sb.exists("src/services/Refunds.ts"));
    sb.write("src/billing/.keep", "");
    let run = sb.call(
        "file_move",
        json!({"source": "src/services/Refunds.ts", "destination": "src/billing/"}),
    );
    assert_eq!(run.json["moved"], true, "{}", run.stdout);
    assert!(sb.exists("src/billing/Refunds.ts"));

    let run = sb.call(
        "file_delete",
        json!({"paths": ["src/billing", "b.ts"], "dryRun": true}),
    );
    assert_eq!(
        run.json["success"], false,
        "a non-empty directory needs recursive: {}",
        run.stdout
    );
    let run = sb.call(
        "file_delete",
        json!({"paths": ["src/billing", "b.ts"], "recursive": true}),
    );
    assert_eq!(run.json["totalDeleted"], 2, "{}", run.stdout);
    assert!(!sb.exists("src/billing") && !sb.exists("b.ts"));
    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        sb.exists("src/billing/Refunds.ts") && sb.exists("src/billing/.keep") && sb.exists("b.ts")
    );
}

#[test]
fn manage_files_is_all_or_nothing_when_atomic() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n")
        .write("b.txt", "b\n")
        .write("taken.txt", "t\n");
    let before = sb.snapshot();
    let run = sb.call(
        "manage_files",
        json!({"atomic": true, "operations": [
            {"op": "move", "from": "a.txt", "to": "moved/a.txt"},
            {"op": "copy", "from": "b.txt", "to": "taken.txt"}
        ]}),
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.json["rolled_back"], true, "{}", run.stdout);
    assert!(run.stdout.contains("already exists"), "{}", run.stdout);
    assert_eq!(
        before,
        sb.snapshot()
            .into_iter()
            .filter(|(p, _)| !p.starts_with(sb.path(".filekit")))
            .collect()
    );
    let run = sb.call(
        "manage_files",
        json!({"atomic": true, "operations": [
            {"op": "move", "from": "a.txt", "to": "moved/a.txt"},
            {"op": "copy", "from": "b.txt", "to": "taken.txt", "overwrite": true},
            {"op": "delete", "path": "b.txt"}
        ]}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(sb.read("taken.txt"), "b\n");
    assert!(!sb.exists("a.txt") && !sb.exists("b.txt") && sb.exists("moved/a.txt"));
    let run = sb.call("undo", json!({}));
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(sb.read("taken.txt"), "t\n");
    assert_eq!(sb.read("a.txt"), "a\n");
    assert_eq!(sb.read("b.txt"), "b\n");
    assert!(!sb.exists("moved"));
}

#[test]
fn bad_file_operations_are_refused_with_what_to_do() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n")
        .write("b.txt", "b\n")
        .write("dir/inner.txt", "i\n");
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"op": "move", "from": "a.txt", "to": "b.txt"}),
            "already exists",
        ),
        (
            json!({"op": "copy", "from": "a.txt", "to": "b.txt"}),
            "set that operation's `overwrite` to true",
        ),
        (
            json!({"op": "move", "from": "missing.txt", "to": "c.txt"}),
            "does not exist",
        ),
        (
            json!({"op": "move", "from": "dir", "to": "dir/sub/dir2"}),
            "into itself",
        ),
        (
            json!({"op": "move", "from": "a.txt", "to": "../outside.txt"}),
            "outside",
        ),
        (
            json!({"op": "copy", "from": "/etc/hostname", "to": "h.txt"}),
            "outside",
        ),
        (
            json!({"op": "delete", "path": "."}),
            "root of the workspace",
        ),
        (json!({"op": "delete", "path": "dir"}), "recursive"),
        (json!({"op": "delete", "path": ".filekit"}), ".filekit"),
        (
            json!({"op": "move", "from": "a.txt", "to": ".filekit/a.txt"}),
            ".filekit",
        ),
        (
            json!({"op": "move", "from": "a.txt", "to": "a.txt"}),
            "the same",
        ),
        (
            json!({"op": "move", "from": "a.txt", "to": "dir"}),
            "existing directory",
        ),
    ];
    // A `.filekit/` as a repository may ship one (templates): still no tool's to change.
    sb.write(".filekit/templates/service.ts", "export class X {}\n");
    for (op, needle) in cases {
        let before = sb.snapshot();
        let run = sb.call("manage_files", json!({"operations": [op]}));
        assert_eq!(run.code, 1, "{op}: {}", run.stdout);
        // The message, then what to do in parentheses.
        let error = run.json["operations"][0]["error"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            error.contains(needle),
            "{op}: expected {needle:?} in {error}"
        );
        assert!(
            error.ends_with(')') && run.json["operations"][0]["error_code"].is_string(),
            "{op}: no hint or code: {}",
            run.json
        );
        assert_eq!(before, sb.snapshot(), "{op}: files changed");
    }
    // Editing filekit's own data is refused too.
    sb.call_fails(
        "Write",
        json!({"file_path": sb.path(".filekit/history.db"), "content": "x"}),
        1,
        &[".filekit"],
    );
}

#[test]
fn moves_across_roots_are_refused() {
    let sb = Sandbox::new();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("o.txt"), "o\n").unwrap();
    sb.write("a.txt", "a\n");
    let call = json!({"tool_name": "manage_files", "tool_args": {"operations": [
        {"op": "move", "from": "a.txt", "to": other.path().join("a.txt")}
    ]}});
    let run = sb.filekit(
        &["--root", other.path().to_str().unwrap(), "call"],
        Some(&call.to_string()),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("different roots"), "{}", run.stdout);
    assert!(sb.exists("a.txt") && !other.path().join("a.txt").exists());
}

#[test]
fn a_corrupt_history_never_stops_an_edit_and_repair_starts_anew() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    // A read makes the workspace's state directory; then its history is damaged.
    assert_eq!(sb.filekit(&["read", "a.txt"], None).code, 0);
    std::fs::write(
        sb.state_path("history.db"),
        "this is not a database, it is garbage of some length to be sure\n",
    )
    .unwrap();
    let run = sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(run.code, 0, "the edit succeeds: {}", run.stdout);
    assert_eq!(sb.read("a.txt"), "b\n");
    let warning = run.json["warning"].as_str().unwrap_or_default();
    assert!(
        warning.contains("history") && warning.contains("--repair"),
        "{}",
        run.stdout
    );

    let run = sb.filekit(&["history"], None);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--repair"), "{}", run.stderr);
    let run = sb.filekit(&["history", "--repair"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let kept = std::fs::read_dir(sb.state_dir())
        .unwrap()
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("history.db.corrupt-")
        });
    assert!(kept, "the damaged file is kept aside");
    sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "b", "new_string": "c"}),
    );
    assert_eq!(history(&sb).len(), 1);
}

#[test]
fn a_locked_history_waits_and_loses_no_entry() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
    );
    let db = rusqlite::Connection::open(sb.state_path("history.db")).unwrap();
    db.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let mut edit = std::process::Command::new(env!("CARGO_BIN_EXE_filekit"));
    edit.args(["--root", sb.root().to_str().unwrap(), "call", "--json"])
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .arg(json!({"tool_name": "Edit", "tool_args": {"file_path": "a.txt", "old_string": "b", "new_string": "c"}}).to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = edit.spawn().unwrap();
    let pid = child.id();
    // The handshake: the edit has written the file (it records the history after), and a
    // thread of it sleeps in SQLite's busy handler, waiting for this lock.
    let deadline = std::time::Instant::now() + common::COMMAND_TIMEOUT;
    loop {
        if sb.read("a.txt") == "c\n" && sleeping_thread(pid) {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the edit ended while the history was locked: {:?}",
            child.wait_with_output()
        );
        assert!(
            std::time::Instant::now() < deadline,
            "the edit never waited for the locked history"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    db.execute_batch("COMMIT").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(sb.read("a.txt"), "c\n");
    assert_eq!(history(&sb).len(), 2);
}

/// Whether a thread of process `pid` sleeps in `nanosleep` (where SQLite's busy handler
/// waits), as the kernel reports in `/proc/<pid>/task/*/wchan`. A kernel that does not say
/// (wchan "0") counts as yes: the file written is then the whole handshake.
fn sleeping_thread(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        let wchan = std::fs::read_to_string(t.path().join("wchan")).unwrap_or_default();
        wchan.contains("nanosleep") || wchan == "0"
    })
}

#[test]
fn concurrent_processes_lose_no_history_entry() {
    let sb = Sandbox::new();
    const WRITERS: usize = 4;
    const EDITS: usize = 8;
    for w in 0..WRITERS {
        sb.write(&format!("w{w}.txt"), "0\n");
    }
    let root = sb.root().to_path_buf();
    let state_home = sb.xdg_state_home().to_path_buf();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let root = root.clone();
            let state_home = state_home.clone();
            std::thread::spawn(move || {
                for e in 0..EDITS {
                    let call = json!({"tool_name": "Write", "tool_args": {
                        "file_path": root.join(format!("w{w}.txt")), "content": format!("{}\n", e + 1)}});
                    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filekit"))
                        .args(["--root", root.to_str().unwrap(), "call", "--json", &call.to_string()])
                        .env("XDG_STATE_HOME", &state_home)
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    assert!(!stdout.contains("warning"), "{stdout}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(history(&sb).len(), WRITERS * EDITS);
    let db = rusqlite::Connection::open(sb.state_path("history.db")).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn reads_leave_no_history_and_no_history_records_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    assert_eq!(
        sb.filekit(&["--no-versions", "read", "a.txt"], None).code,
        0
    );
    assert_eq!(sb.filekit(&["grep", "a"], None).code, 0);
    assert!(!sb.exists(".filekit"), "a read made .filekit/");
    let kept = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(sb.state_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(kept(), ["root"], "only the note of which root this is");
    // A read keeps the version it served (for merges), and nothing else.
    assert_eq!(sb.filekit(&["read", "a.txt"], None).code, 0);
    assert_eq!(kept(), ["root", "versions"]);
    assert!(!sb.exists(".filekit"), "a read made .filekit/");
    let run = sb.filekit(&["--no-history", "--no-versions", "call", "--json", &json!({"tool_name": "Write", "tool_args": {"file_path": sb.path("a.txt"), "content": "b\n"}}).to_string()], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!sb.exists(".filekit"));
    // The journal folder holds a write's record while it runs (its temporary file, for the
    // next start to remove after a kill), and is empty after.
    assert_eq!(
        kept(),
        ["journal", "root", "versions"],
        "no history was recorded"
    );
    assert_eq!(
        std::fs::read_dir(sb.state_path("journal")).unwrap().count(),
        0
    );
    let run = sb.filekit(&["--no-history", "undo"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--no-history"), "{}", run.stderr);
    let run = sb.call("undo", json!({}));
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("nothing to undo"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_cli_verbs_move_copy_and_remove() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("d/x.txt", "x\n");
    assert_eq!(sb.filekit(&["cp", "d", "e"], None).code, 0);
    assert_eq!(sb.read("e/x.txt"), "x\n");
    // A final `/` names a directory, which must exist: no file named after it.
    let run = sb.filekit(&["mv", "a.txt", "nowhere/"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("there is no directory nowhere"),
        "{}",
        run.stdout
    );
    assert!(sb.exists("a.txt") && !sb.exists("nowhere"));
    assert_eq!(sb.filekit(&["mv", "a.txt", "e/"], None).code, 0);
    assert!(sb.exists("e/a.txt"));
    let run = sb.filekit(&["rm", "d"], None);
    assert_eq!(run.code, 1, "a directory needs -r");
    let run = sb.filekit(&["rm", "-r", "d", "--json"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["ops"][0]["files"], 1);
    let run = sb.filekit(&["rm", "-r", "e", "missing", "--atomic"], None);
    assert_eq!(run.code, 1);
    assert!(sb.exists("e/a.txt"), "atomic: nothing deleted");
    assert!(run.stdout.contains("does not exist"), "{}", run.stdout);
}

/// What `mv`, `history --show` and `undo` print names files as every other verb does:
/// relative to the root, as `filekit` takes them back; `--json` keeps the engine's report.
#[test]
fn moves_history_and_undo_name_files_relative_to_the_root() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("e/x.txt", "x\n");
    let root = sb.root().canonicalize().unwrap().display().to_string();
    let said = |run: &common::Run| format!("{}{}", run.stdout, run.stderr);

    let run = sb.filekit(&["mv", "a.txt", "e/"], None);
    assert_eq!(run.code, 0, "{}", said(&run));
    assert!(
        run.stdout.contains("moved file a.txt -> e/a.txt"),
        "{}",
        said(&run)
    );
    assert!(!said(&run).contains(&root), "{}", said(&run));
    // A failure's message too.
    let run = sb.filekit(&["mv", "gone.txt", "f.txt"], None);
    assert_ne!(run.code, 0);
    assert!(said(&run).contains("gone.txt"), "{}", said(&run));
    assert!(!said(&run).contains(&root), "{}", said(&run));

    let id = history(&sb)[0]["id"].as_i64().unwrap().to_string();
    let run = sb.filekit(&["history"], None);
    assert!(!said(&run).contains(&root), "{}", said(&run));
    let run = sb.filekit(&["history", "--show", &id], None);
    assert_eq!(run.code, 0, "{}", said(&run));
    assert!(run.stdout.contains("e/a.txt"), "{}", said(&run));
    assert!(!said(&run).contains(&root), "{}", said(&run));

    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 0, "{}", said(&run));
    assert!(run.stdout.contains("\n  e/a.txt\n"), "{}", said(&run));
    assert!(!said(&run).contains(&root), "{}", said(&run));
    assert!(sb.exists("a.txt"));

    // --json stays the engine's report, paths and all.
    let run = sb.filekit(&["redo", "--json"], None);
    assert_eq!(run.code, 0, "{}", said(&run));
    let paths = run.json["reverted"][0]["paths"].as_array().unwrap();
    assert!(
        paths.iter().all(|p| p.as_str().unwrap().starts_with(&root)),
        "{}",
        run.stdout
    );
}

#[test]
fn the_history_names_the_verb_that_made_each_change() {
    let sb = Sandbox::new();
    sb.write("x.ts", "const a = 1;\nexport const b = a + 2;\n");
    let patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
    sb.write("change.diff", patch);
    let run = sb.filekit(&["patch", "change.diff"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = sb.filekit(&["rename-symbol", "x.ts", "a", "c"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = sb.filekit(
        &[
            "refactor",
            "extract_constant",
            "x.ts",
            "--range",
            "2:17-2:22",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let tools: Vec<String> = history(&sb)
        .iter()
        .map(|e| e["tool"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        tools,
        ["filekit refactor", "filekit rename-symbol", "filekit patch"],
        "newest first, each under the command that was typed"
    );
    let run = sb.filekit(&["history"], None);
    assert!(run.stdout.contains("filekit patch"), "{}", run.stdout);
}
