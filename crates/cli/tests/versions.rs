//! Versions, merges, reads since a version and leases through the real `filekit` binary:
//! `filekit call` (one process per call, so versions must persist between processes),
//! `filekit read --since`, `filekit lock`/`unlock`, and concurrent processes editing one file.

use crate::common;

use common::*;
use serde_json::{Value, json};

fn read_hash(sb: &Sandbox, path: &str) -> String {
    let r = sb.call("read_files", json!({"files": [{"path": path}]}));
    assert_eq!(r.code, 0, "{}", r.stdout);
    r.json["files"][0]["content_hash"]
        .as_str()
        .unwrap()
        .to_string()
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn edit_files_with_a_stale_base_hash_is_merged_across_processes() {
    let sb = Sandbox::new();
    sb.write("a.txt", &numbered(12));
    let v1 = read_hash(&sb, "a.txt");
    // Another agent (another process) changes the top of the file.
    let other = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "edits": [{"insert": {"after": 0, "text": "header\n"}}]}]}),
    );
    assert_eq!(other.code, 0, "{}", other.stdout);
    // We edit line 10 of the version we read, and a text of it.
    let ours = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "base_hash": v1[..10], "edits": [
            {"replace_lines": {"start": 10, "end": 10, "new": "TEN"}},
            {"str_replace": {"old": "line 12", "new": "TWELVE"}}]}]}),
    );
    assert_eq!(ours.code, 0, "{}", ours.stdout);
    let f = &ours.json["files"][0];
    assert_eq!(f["merged"], true, "{}", ours.stdout);
    assert_eq!(f["merged_from"], v1);
    assert!(
        f["diff"].as_str().unwrap().contains("-line 10\n+TEN\n"),
        "{}",
        ours.stdout
    );
    assert_eq!(
        sb.read("a.txt"),
        format!("header\n{}", numbered(12))
            .replace("line 10\n", "TEN\n")
            .replace("line 12\n", "TWELVE\n")
    );
}

#[test]
fn a_conflict_shows_both_sides_and_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", &numbered(8));
    let v1 = read_hash(&sb, "a.txt");
    let other = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "edits": [{"replace_lines": {"start": 4, "end": 4, "new": "theirs"}}]}]}),
    );
    assert_eq!(other.code, 0);
    let before = sb.read("a.txt");
    let ours = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "base_hash": v1, "edits": [
            {"replace_lines": {"start": 3, "end": 4, "new": "ours 3\nours 4"}}]}]}),
    );
    assert_eq!(ours.code, 1, "{}", ours.stdout);
    let err = &ours.json["files"][0];
    assert_eq!(err["error_code"], "CONFLICT", "{}", ours.stdout);
    assert!(err["error"].as_str().unwrap().contains("lines 3-4"));
    assert_eq!(err["details"]["conflicts"][0]["current"], "theirs\n");
    assert_eq!(err["details"]["conflicts"][0]["yours"], "ours 3\nours 4\n");
    assert_eq!(err["details"]["conflicts"][0]["current_start"], 4);
    assert_eq!(sb.read("a.txt"), before);
    // Unknown and malformed bases.
    let unknown = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "base_hash": "0123456789abcdef", "edits": [
            {"replace_lines": {"start": 1, "end": 1, "new": "x"}}]}]}),
    );
    assert_eq!(unknown.json["files"][0]["error_code"], "STALE");
    let bad = sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "base_hash": "12", "edits": [
            {"replace_lines": {"start": 1, "end": 1, "new": "x"}}]}]}),
    );
    assert_eq!(bad.json["files"][0]["error_code"], "INVALID_ARGUMENT");
    assert!(
        bad.stdout.contains("base_hash '12' is too short"),
        "{}",
        bad.stdout
    );
    assert_eq!(sb.read("a.txt"), before);
}

#[test]
fn content_hash_of_other_tables_merges() {
    let sb = Sandbox::new();
    sb.write("q.txt", &numbered(10));
    sb.write("f.txt", &numbered(10));
    let q = sb.call("fs_read", json!({"mode": "Line", "path": "q.txt"}));
    let qh = q.json["content_hash"].as_str().unwrap().to_string();
    let f = sb.call("file:read_file", json!({"path": "f.txt"}));
    let fh = f.json["content_hash"].as_str().unwrap().to_string();
    sb.write("q.txt", &numbered(10).replace("line 1\n", "first\n"));
    sb.write("f.txt", &numbered(10).replace("line 1\n", "first\n"));
    let r = sb.call(
        "fs_write",
        json!({"command": "replace_lines", "path": "q.txt", "start_line": 9, "end_line": 9,
               "new_str": "nine", "content_hash": qh}),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["merged"], true, "{}", r.stdout);
    assert_eq!(
        sb.read("q.txt"),
        numbered(10)
            .replace("line 1\n", "first\n")
            .replace("line 9\n", "nine\n")
    );
    let r = sb.call(
        "file:edit_file",
        json!({"path": "f.txt", "start_line": 5, "end_line": 6, "new_content": "five-six",
               "content_hash": fh}),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["merged"], true, "{}", r.stdout);
    assert_eq!(
        sb.read("f.txt"),
        numbered(10)
            .replace("line 1\n", "first\n")
            .replace("line 5\nline 6\n", "five-six\n")
    );
}

#[test]
fn reads_since_a_version() {
    let sb = Sandbox::new();
    sb.write("a.txt", &numbered(30));
    let v1 = read_hash(&sb, "a.txt");
    let same = sb.call(
        "read_files",
        json!({"files": [{"path": "a.txt", "since_hash": v1}]}),
    );
    assert_eq!(same.json["files"][0]["unchanged"], true, "{}", same.stdout);
    assert!(
        same.json["files"][0].get("content").is_none(),
        "{}",
        same.stdout
    );
    sb.call(
        "edit_files",
        json!({"files": [{"path": "a.txt", "edits": [{"replace_lines": {"start": 20, "end": 20, "new": "twenty"}}]}]}),
    );
    let changed = sb.call(
        "read_files",
        json!({"files": [{"path": "a.txt", "since_hash": v1}]}),
    );
    let d = changed.json["files"][0]["diff"].as_str().unwrap();
    assert!(
        d.contains("-line 20\n+twenty\n") && !d.contains("line 5\n"),
        "{d}"
    );
    // The verb: a diff for people, JSON for programs, the whole file for an unknown version.
    let verb = sb.filekit(&["read", "a.txt", "--since", &v1], None);
    assert_eq!(verb.code, 0, "{}", verb.stderr);
    assert!(verb.stdout.contains("changed since") && verb.stdout.contains("+twenty"));
    assert!(!verb.stdout.contains("line 5\n"), "{}", verb.stdout);
    let now = read_hash(&sb, "a.txt");
    let verb = sb.filekit(&["read", "a.txt", "--since", &now[..8]], None);
    assert!(verb.stdout.contains("unchanged"), "{}", verb.stdout);
    let verb = sb.filekit(
        &["read", "a.txt", "--since", "0123456789abcdef", "--json"],
        None,
    );
    assert_eq!(verb.json[0]["since_unknown"], true);
    assert!(
        verb.json[0]["content"]
            .as_str()
            .unwrap()
            .contains("twenty\n")
    );
    let bad = sb.filekit(&["read", "a.txt", "--since", "nothex!!"], None);
    assert_eq!(bad.code, 2, "{}", bad.stdout);
    assert!(bad.stderr.contains("since_hash"), "{}", bad.stderr);
}

#[test]
fn leases_across_processes() {
    let sb = Sandbox::new();
    sb.write("a.txt", &numbered(3));
    let lock = sb.filekit(&["--holder", "alice", "lock", "a.txt", "--ttl", "60"], None);
    assert_eq!(lock.code, 0, "{}", lock.stderr);
    assert!(lock.stdout.contains("leased to alice"), "{}", lock.stdout);
    let edit = json!({"files": [{"path": "a.txt", "edits": [{"replace_lines": {"start": 1, "end": 1, "new": "bob"}}]}]});
    let bob = sb.filekit_env(
        &[
            "call",
            "--json",
            &json!({"tool_name": "edit_files", "tool_args": edit}).to_string(),
        ],
        None,
        &[("FILEKIT_HOLDER", "bob")],
    );
    assert_eq!(bob.code, 1, "{}", bob.stdout);
    let err = &bob.json["files"][0];
    assert_eq!(err["error_code"], "LOCKED");
    assert!(err["error"].as_str().unwrap().contains("leased by alice"));
    assert_eq!(sb.read("a.txt"), numbered(3));
    // Bob may not take or release it; alice may write.
    assert_eq!(
        sb.filekit(&["--holder", "bob", "lock", "a.txt"], None).code,
        1
    );
    assert_eq!(
        sb.filekit(&["--holder", "bob", "unlock", "a.txt"], None)
            .code,
        1
    );
    let alice = sb.filekit_env(
        &[
            "call",
            "--json",
            &json!({"tool_name": "edit_files", "tool_args": edit}).to_string(),
        ],
        None,
        &[("FILEKIT_HOLDER", "alice")],
    );
    assert_eq!(alice.code, 0, "{}", alice.stdout);
    let released = sb.filekit(&["--holder", "alice", "unlock", "a.txt", "--json"], None);
    assert_eq!(
        released.json["leases"][0]["released"], true,
        "{}",
        released.stdout
    );
    let bob = sb.filekit_env(
        &["call", "--json", &json!({"tool_name": "edit_files", "tool_args": {"files": [{"path": "a.txt", "edits": [{"replace_lines": {"start": 2, "end": 2, "new": "bob"}}]}]}}).to_string()],
        None,
        &[("FILEKIT_HOLDER", "bob")],
    );
    assert_eq!(bob.code, 0, "{}", bob.stdout);
    assert_eq!(sb.read("a.txt"), "bob\nbob\nline 3\n");
    // Without a holder (the lock tool's own example), the CLI's holder is its user's: each
    // call is a process of its own, and the lease still serves the agent that took it.
    let as_user = |args: &[&str], stdin: Option<&str>| {
        sb.filekit_env(args, stdin, &[("USER", "carol"), ("FILEKIT_HOLDER", "")])
    };
    let call = |tool: &str, args: Value| json!({"tool_name": tool, "tool_args": args}).to_string();
    let lock = as_user(
        &["call"],
        Some(&call(
            "lock",
            json!({"paths": ["a.txt"], "ttl_seconds": 120}),
        )),
    );
    assert_eq!(lock.code, 0, "{}{}", lock.stdout, lock.stderr);
    assert_eq!(lock.json["holder"], "filekit-cli-carol", "{}", lock.stdout);
    let by_bob = sb.filekit_env(
        &["call", "--json", &call("edit_files", edit.clone())],
        None,
        &[("FILEKIT_HOLDER", "bob")],
    );
    assert_eq!(
        by_bob.json["files"][0]["error_code"], "LOCKED",
        "{}",
        by_bob.stdout
    );
    assert!(
        by_bob.stdout.contains("leased by filekit-cli-carol"),
        "{}",
        by_bob.stdout
    );
    let by_carol = as_user(&["call"], Some(&call("edit_files", edit.clone())));
    assert_eq!(by_carol.code, 0, "{}", by_carol.stdout);
    let unlock = as_user(
        &["call"],
        Some(&call("unlock", json!({"paths": ["a.txt"]}))),
    );
    assert_eq!(
        unlock.json["leases"][0]["released"], true,
        "{}",
        unlock.stdout
    );
    // Bad inputs: no paths, a zero ttl, a path outside the root.
    sb.call_fails(
        "lock",
        json!({"paths": [], "holder": "x"}),
        2,
        &["`paths` is empty"],
    );
    sb.call_fails(
        "lock",
        json!({"paths": ["a.txt"], "holder": "x", "ttl_seconds": 0}),
        1,
        &["1 to 86400 seconds"],
    );
    sb.call_fails(
        "lock",
        json!({"paths": ["../outside.txt"], "holder": "x"}),
        1,
        &["outside"],
    );
}

/// Eight processes edit one file at once, all from the same (soon stale) version: four edit
/// lines far apart (each must end in the file), and two pairs edit the same line (one of
/// each pair wins, the other is told CONFLICT).
#[test]
fn concurrent_processes_from_one_stale_version() {
    let sb = Sandbox::new();
    sb.write("shared.txt", &numbered(60));
    let v1 = read_hash(&sb, "shared.txt");
    let jobs: Vec<(usize, String)> = vec![
        (5, "p0".into()),
        (15, "p1".into()),
        (25, "p2".into()),
        (35, "p3".into()),
        (45, "pair-a-1".into()),
        (45, "pair-a-2".into()),
        (55, "pair-b-1".into()),
        (55, "pair-b-2".into()),
    ];
    let children: Vec<_> = jobs
        .iter()
        .map(|(line, text)| {
            let call = json!({"tool_name": "edit_files", "tool_args": {"files": [{"path": "shared.txt", "base_hash": v1, "edits": [
                {"replace_lines": {"start": line, "end": line, "new": text}}]}]}});
            std::process::Command::new(env!("CARGO_BIN_EXE_filekit"))
                .arg("--root")
                .arg(sb.root())
                .args(["call", "--json", &call.to_string()])
                .env("XDG_STATE_HOME", sb.xdg_state_home())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let replies: Vec<Value> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
                panic!(
                    "{} {}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        })
        .collect();
    let text = sb.read("shared.txt");
    let code = |r: &Value| r["files"][0]["error_code"].as_str().map(str::to_string);
    for ((_, t), r) in jobs.iter().zip(&replies).take(4) {
        assert_eq!(code(r), None, "{t}: {r}");
        assert!(text.contains(&format!("{t}\n")), "{t} lost:\n{text}");
    }
    for pair in [4, 6] {
        let (a, b) = (&replies[pair], &replies[pair + 1]);
        let won: Vec<bool> = [a, b].iter().map(|r| code(r).is_none()).collect();
        assert_eq!(won.iter().filter(|w| **w).count(), 1, "{a}\n{b}");
        let (winner, loser) = if won[0] {
            (pair, pair + 1)
        } else {
            (pair + 1, pair)
        };
        assert_eq!(
            code(&replies[loser]).as_deref(),
            Some("CONFLICT"),
            "{}",
            replies[loser]
        );
        assert!(text.contains(&format!("{}\n", jobs[winner].1)));
        assert!(!text.contains(&format!("{}\n", jobs[loser].1)));
    }
    assert_eq!(text.lines().count(), 60);
}

#[test]
fn the_edit_verb_takes_a_base_hash() {
    let sb = Sandbox::new();
    sb.write("a.txt", &numbered(6));
    let v1 = hash_of(&sb, "a.txt");
    sb.write("a.txt", &numbered(6).replace("line 6\n", "six\n"));
    let plan = json!({"files": [{"path": "a.txt", "base_hash": v1, "edits": [
        {"replace_lines": {"start": 1, "end": 1, "new": "one"}}]}]});
    let run = sb.filekit(&["edit"], Some(&plan.to_string()));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("merged (made on"), "{}", run.stdout);
    assert_eq!(
        sb.read("a.txt"),
        "one\nline 2\nline 3\nline 4\nline 5\nsix\n"
    );
    // A plan with a base_hash that is not hex is refused before anything is attempted.
    let bad = json!({"files": [{"path": "a.txt", "base_hash": "not-a-hash", "edits": [
        {"replace_lines": {"start": 1, "end": 1, "new": "x"}}]}]});
    let run = sb.filekit(&["edit"], Some(&bad.to_string()));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        (run.stdout.clone() + &run.stderr).contains("base_hash 'not-a-hash' is not hexadecimal"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// A version that a commit wrote is kept once, in the history, not again as a file of its own;
/// the next process still finds it there as a merge base. Without a history, the version
/// store keeps it as a file.
#[test]
fn a_written_version_is_found_in_the_history_by_the_next_process() {
    for history in [true, false] {
        let sb = Sandbox::new();
        sb.write("a.txt", &numbered(12));
        let mut args = vec![];
        if !history {
            args.push("--no-history");
        }
        args.push("call");
        let call = json!({"tool_name": "edit_files", "tool_args": {"files": [{"path": "a.txt", "edits": [
            {"str_replace": {"old": "line 2\n", "new": "TWO\n"}}]}]}});
        let ours = sb.filekit(&args, Some(&call.to_string()));
        assert_eq!(ours.code, 0, "{}", ours.stdout);
        let written = ours.json["files"][0]["content_hash"]
            .as_str()
            .unwrap()
            .to_string();
        let version_file = sb.state_path(&format!("versions/{written}"));
        assert_eq!(version_file.exists(), !history, "history: {history}");
        // Someone changes the end of the file outside filekit.
        let theirs = sb.read("a.txt").replace("line 12\n", "twelve\n");
        sb.write("a.txt", &theirs);
        // An edit made on the version filekit wrote is merged into the file as it is now.
        let call = json!({"tool_name": "edit_files", "tool_args": {"files": [{"path": "a.txt", "base_hash": written, "edits": [
            {"replace_lines": {"start": 5, "end": 5, "new": "FIVE"}}]}]}});
        let next = sb.filekit(&args, Some(&call.to_string()));
        assert_eq!(next.code, 0, "history: {history}\n{}", next.stdout);
        assert_eq!(next.json["files"][0]["merged"], true, "{}", next.stdout);
        assert_eq!(
            sb.read("a.txt"),
            numbered(12)
                .replace("line 2\n", "TWO\n")
                .replace("line 5\n", "FIVE\n")
                .replace("line 12\n", "twelve\n")
        );
    }
}
