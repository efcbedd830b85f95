//! Tree-wide writes that never fail part way on the open-file limit, and interruptions that
//! leave no litter, on a few hundred files: under a limit of 64 descriptors (atomic and
//! not), SIGINT, SIGTERM and SIGHUP mid-replace, a SIGKILL then the next start, an MCP
//! cancel and a server ended mid-replace, each leaving every file entirely old or entirely
//! new, no temporary file, a history entry of exactly what was written and an undo that
//! puts back every file (`common/scenarios.rs`). The same at 20,000 files is in
//! `judged/scale.rs`.

use crate::common;

use common::Sandbox;
use common::scenarios;
use common::trees::{
    Mcp, Tree, assert_no_litter, history_len, limit_open_files, replace_command, run_to_end,
    written_files_are_recorded_and_undone,
};
use rustix::process::Signal;
use serde_json::{Value, json};
use std::time::Duration;

const FILES: usize = 400;
/// Far below what a request of `FILES` files would hold if it kept one descriptor per file.
const LOW_LIMIT: u64 = 64;
const TIMEOUT: Duration = Duration::from_secs(300);

#[test]
fn a_replace_of_hundreds_of_files_succeeds_under_a_hard_limit_of_64_open_files() {
    scenarios::replace_under_a_limit(FILES, LOW_LIMIT, LOW_LIMIT, TIMEOUT);
}

#[test]
fn sigint_sigterm_and_sighup_mid_replace_leave_every_file_old_or_new_and_an_exact_undo() {
    let signals = [Signal::INT, Signal::TERM, Signal::HUP];
    let part_way = scenarios::replace_interrupted(FILES, &signals, &[], TIMEOUT);
    eprintln!("interrupted part way in {part_way} of 3 plain runs");
}

#[test]
fn a_replace_killed_mid_write_is_finished_by_the_next_start_with_an_exact_undo() {
    scenarios::replace_killed_then_rerun(FILES, &[], TIMEOUT);
}

/// Unflushed, a plain replace writes each file as its walk finds it: one record for the
/// whole walk.
#[test]
fn an_unflushed_replace_interrupted_or_killed_mid_walk_leaves_no_litter_and_an_exact_undo() {
    let part_way = scenarios::replace_interrupted(FILES, &[Signal::INT], &["--no-fsync"], TIMEOUT);
    eprintln!("interrupted part way in {part_way} of 1 plain run");
    scenarios::replace_killed_then_rerun(FILES, &["--no-fsync"], TIMEOUT);
}

#[test]
fn an_mcp_cancel_mid_replace_leaves_every_file_old_or_new_and_an_exact_undo() {
    scenarios::replace_cancelled_over_mcp(FILES, TIMEOUT);
}

#[test]
fn a_server_ended_by_sigterm_mid_replace_leaves_every_file_old_or_new_and_an_exact_undo() {
    scenarios::server_ended_mid_replace(FILES, TIMEOUT);
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
fn sigint_sigterm_and_sighup_remove_the_http_token_file() {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    for signal in [Signal::INT, Signal::TERM, Signal::HUP] {
        let mut child = sb
            .command(&["serve", "--http", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let said = "listening on http://127.0.0.1:";
        let port = loop {
            line.clear();
            assert!(err.read_line(&mut line).unwrap() > 0, "serve ended early");
            if let Some(at) = line.find(said) {
                let rest = &line[at + said.len()..];
                break rest[..rest.find('/').unwrap()].to_string();
            }
        };
        let token = sb
            .xdg_state_home()
            .join(format!("filekit/http-token-{port}"));
        assert!(
            token.exists(),
            "{signal:?}: no token file {}",
            token.display()
        );
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(signal.as_raw()),
            "{signal:?}: {status:?}"
        );
        assert!(!token.exists(), "{signal:?}: the token file is left");
    }
}
