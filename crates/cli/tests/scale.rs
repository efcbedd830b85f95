//! Tree-wide writes that never fail part way on the open-file limit, and interruptions that
//! leave no litter: a few hundred files under a limit of 64 descriptors, atomic and not;
//! SIGINT, SIGTERM and SIGHUP mid-replace, a SIGKILL then the next start, and an MCP cancel,
//! each leaving every file entirely old or entirely new, no temporary file, a history entry
//! of exactly what was written and an undo that puts back every file. (The same at 20,000
//! files is in `scale_judged.rs`.)

use crate::common;

use common::Sandbox;
use common::trees::{
    Mcp, Tree, assert_no_litter, interrupt_when, limit_open_files, replace_command, run_to_end,
};
use rustix::process::Signal;
use serde_json::{Value, json};
use std::time::Duration;

const FILES: usize = 400;
/// Far below what a request of `FILES` files would hold if it kept one descriptor per file.
const LOW_LIMIT: u64 = 64;
const TIMEOUT: Duration = Duration::from_secs(300);

/// The paths of the newest history entry, relative to the root, sorted.
fn newest_entry_paths(sb: &Sandbox) -> Vec<String> {
    let run = sb.filekit(&["history", "--json", "--limit", "1"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let root = format!("{}/", sb.root().display());
    let mut paths: Vec<String> = run.json[0]["paths"]
        .as_array()
        .unwrap_or_else(|| panic!("no entry: {}", run.stdout))
        .iter()
        .map(|p| p.as_str().unwrap().trim_start_matches(&root).to_string())
        .collect();
    paths.sort();
    paths
}

fn history_len(sb: &Sandbox) -> usize {
    let run = sb.filekit(&["history", "--json", "--limit", "1000"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json.as_array().map_or(0, Vec::len)
}

/// The files of the tree that are new now, relative to the root, sorted.
fn new_files(sb: &Sandbox, tree: &Tree) -> Vec<String> {
    let mut out: Vec<String> = (0..tree.files)
        .filter(|&i| sb.read(&tree.rel(i)) == Tree::new_text(i))
        .map(|i| tree.rel(i))
        .collect();
    out.sort();
    out
}

/// After a request that wrote some files and was stopped (or not): the newest history entry
/// names exactly the files that are new, and one undo puts every file back.
fn written_files_are_recorded_and_undone(sb: &Sandbox, tree: &Tree, entries_before: usize) {
    let new = new_files(sb, tree);
    if new.is_empty() {
        assert_eq!(history_len(sb), entries_before, "an entry for nothing");
        return;
    }
    assert_eq!(history_len(sb), entries_before + 1, "one entry for the request");
    assert_eq!(newest_entry_paths(sb), new, "the entry is what was written");
    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(tree.census(sb), (tree.files, 0), "undo put every file back");
    assert_no_litter(sb, "after the undo");
}

#[test]
fn a_replace_of_hundreds_of_files_succeeds_under_a_hard_limit_of_64_open_files() {
    let sb = Sandbox::new();
    let tree = Tree::new(FILES);
    for atomic in [false, true] {
        tree.write_old(&sb);
        let mut cmd = replace_command(&sb, atomic);
        limit_open_files(&mut cmd, LOW_LIMIT, LOW_LIMIT);
        let (code, out, err) = run_to_end(cmd, TIMEOUT);
        assert_eq!(code, 0, "atomic {atomic}: {out}\n{err}");
        assert_eq!(tree.census(&sb), (0, FILES), "atomic {atomic}");
        assert_no_litter(&sb, "after the replace");
        let mut undo = sb.command(&["undo"]);
        limit_open_files(&mut undo, LOW_LIMIT, LOW_LIMIT);
        let (code, out, err) = run_to_end(undo, TIMEOUT);
        assert_eq!(code, 0, "undo: {out}\n{err}");
        assert_eq!(tree.census(&sb), (FILES, 0), "atomic {atomic}: undone");
        assert_no_litter(&sb, "after the undo");
    }
}

/// Every `code` in a reply, at any depth.
fn codes(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("code", Value::String(c)) => out.push(c.clone()),
                    _ => codes(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| codes(x, out)),
        _ => {}
    }
}

#[test]
fn a_limit_too_low_to_work_is_resource_exhausted_never_a_conflict_and_nothing_is_torn() {
    let sb = Sandbox::new();
    let tree = Tree::new(FILES);
    // Limits at which (on this suite's machines) a plain request still works, a file at a
    // time, and an atomic one, which keeps its journal beside its writes, cannot.
    for limit in [10, 12] {
        for atomic in [false, true] {
            tree.write_old(&sb);
            let entries = history_len(&sb);
            let mut cmd = replace_command(&sb, atomic);
            cmd.arg("--json");
            limit_open_files(&mut cmd, limit, limit);
            let (code, out, err) = run_to_end(cmd, TIMEOUT);
            let what = format!("limit {limit}, atomic {atomic}");
            assert!(code == 0 || code == 1, "{what}: exit {code}\n{err}");
            let reply: Value = serde_json::from_str(&out)
                .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {out}\n{err}"));
            let mut found = Vec::new();
            codes(&reply, &mut found);
            assert!(
                found.iter().all(|c| c == "RESOURCE_EXHAUSTED"),
                "{what}: {found:?}"
            );
            if code == 1 {
                assert!(!found.is_empty(), "{what}: a failure without its code");
                assert!(out.contains("ulimit -n"), "{what}: the way on is said");
            }
            assert_no_litter(&sb, &what);
            let (old, new) = tree.census(&sb);
            if atomic {
                assert!(old == FILES || new == FILES, "{what}: {old} old, {new} new");
            }
            written_files_are_recorded_and_undone(&sb, &tree, entries);
        }
    }
}

#[test]
fn an_edit_plan_of_hundreds_of_files_succeeds_under_a_hard_limit_of_64_open_files() {
    let sb = Sandbox::new();
    let tree = Tree::new(300);
    let files: Vec<Value> = (0..tree.files)
        .map(|i| json!({"path": tree.rel(i), "edits": [{"str_replace": {"old": "colour", "new": "color"}}]}))
        .collect();
    for atomic in [false, true] {
        tree.write_old(&sb);
        let plan = json!({"files": files, "options": {"atomic": atomic}});
        std::fs::write(sb.root().join("plan.json"), plan.to_string()).unwrap();
        let mut cmd = sb.command(&["edit", "plan.json"]);
        limit_open_files(&mut cmd, LOW_LIMIT, LOW_LIMIT);
        let (code, out, err) = run_to_end(cmd, TIMEOUT);
        assert_eq!(code, 0, "atomic {atomic}: {out}\n{err}");
        assert_eq!(tree.census(&sb), (0, tree.files), "atomic {atomic}");
        assert_no_litter(&sb, "after the edit");
    }
}

#[test]
fn the_soft_limit_on_open_files_is_raised_to_the_hard_one_at_start() {
    let sb = Sandbox::new();
    let mut cmd = sb.command(&["serve", "--tools", "filekit"]);
    limit_open_files(&mut cmd, LOW_LIMIT, 4096);
    let mcp = Mcp::start(cmd);
    let limits =
        std::fs::read_to_string(format!("/proc/{}/limits", mcp.child.id())).expect("limits");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a line for open files");
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers, ["4096", "4096"], "{line}");
    assert_eq!(mcp.finish(TIMEOUT), 0);
}

#[test]
fn sigint_sigterm_and_sighup_mid_replace_leave_every_file_old_or_new_and_an_exact_undo() {
    let sb = Sandbox::new();
    let tree = Tree::new(FILES);
    let (first, first_new) = tree.first_written();
    let mut stopped_part_way = 0;
    for signal in [Signal::INT, Signal::TERM, Signal::HUP] {
        for atomic in [false, true] {
            tree.write_old(&sb);
            let entries = history_len(&sb);
            let (code, out, err, sent) = interrupt_when(
                replace_command(&sb, atomic),
                &sb,
                Some((&first, &first_new)),
                signal,
                TIMEOUT,
            );
            let what = format!("{signal:?}, atomic {atomic}");
            let by_signal = 128 + signal.as_raw();
            assert!(
                code == 0 || (sent && code == by_signal),
                "{what}: exit {code}\n{out}\n{err}"
            );
            assert_no_litter(&sb, &what);
            let (old, new) = tree.census(&sb);
            if code == by_signal {
                assert!(
                    err.contains("interrupted"),
                    "{what}: the interruption is said\n{err}"
                );
                if atomic {
                    assert_eq!((old, new), (FILES, 0), "{what}: an atomic request is undone");
                } else if old > 0 {
                    stopped_part_way += 1;
                }
            } else {
                assert_eq!((old, new), (0, FILES), "{what}");
            }
            written_files_are_recorded_and_undone(&sb, &tree, entries);
        }
    }
    eprintln!("interrupted part way in {stopped_part_way} of 3 non-atomic runs");
}

#[test]
fn a_replace_killed_mid_write_is_finished_by_the_next_start_with_an_exact_undo() {
    let sb = Sandbox::new();
    let tree = Tree::new(FILES);
    let (first, first_new) = tree.first_written();
    tree.write_old(&sb);
    let (code, out, err, _) = interrupt_when(
        replace_command(&sb, false),
        &sb,
        Some((&first, &first_new)),
        Signal::KILL,
        TIMEOUT,
    );
    assert!(code == 0 || code == 128 + 9, "exit {code}\n{out}\n{err}");
    // The next start of filekit, whatever the verb, clears what the killed one left.
    let run = sb.filekit(&["ls", "."], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_no_litter(&sb, "after the next start");
    let (old, new) = tree.census(&sb);
    eprintln!("killed with {new} files written and {old} not: {}", run.stderr.trim());
    written_files_are_recorded_and_undone(&sb, &tree, 0);
}

#[test]
fn an_mcp_cancel_mid_replace_leaves_every_file_old_or_new_and_an_exact_undo() {
    let sb = Sandbox::new();
    let tree = Tree::new(FILES);
    let (first, first_new) = tree.first_written();
    for atomic in [false, true] {
        tree.write_old(&sb);
        let entries = history_len(&sb);
        let mut mcp = Mcp::start(sb.command(&["serve", "--tools", "filekit"]));
        let id = mcp.send_request(
            "tools/call",
            json!({"name": "replace_in_files", "arguments": {
                "expression": "s/colour/color/g", "files": "*.txt", "atomic": atomic}}),
        );
        let deadline = std::time::Instant::now() + TIMEOUT;
        while sb.read(&first) != first_new {
            assert!(std::time::Instant::now() < deadline, "the write never began");
            std::thread::yield_now();
        }
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": id, "reason": "test"}}));
        // The server ends once the call has stopped (or finished).
        assert_eq!(mcp.finish(TIMEOUT), 0);
        assert_no_litter(&sb, "after the cancel");
        let (old, new) = tree.census(&sb);
        eprintln!("cancelled (atomic {atomic}) with {new} files written and {old} not");
        if atomic {
            assert!(old == FILES || new == FILES, "atomic: {old} old, {new} new");
        }
        written_files_are_recorded_and_undone(&sb, &tree, entries);
    }
}
