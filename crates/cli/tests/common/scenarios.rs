//! The scenarios of tree-wide writes under limits and interruptions, at a size the caller
//! chooses: a few hundred files in the quick suite (`scale.rs`), 20,000 in the judged one
//! (`judged/scale.rs`). Each leaves every file entirely old or entirely new, no temporary
//! file, a history entry of exactly what was written, and an undo that puts every file back.

use super::Sandbox;
use super::trees::{
    Mcp, Tree, assert_no_litter, history_len, interrupt_when, limit_open_files, replace_command,
    replace_command_with, run_to_end, written_files_are_recorded_and_undone,
};
use rustix::process::Signal;
use serde_json::json;
use std::time::{Duration, Instant};

/// `filekit replace` over `files` files, atomic and not, under an open-file limit of `soft`
/// and `hard`: every file written, then one undo (under the same limit) puts them back.
pub fn replace_under_a_limit(files: usize, soft: u64, hard: u64, timeout: Duration) {
    let sb = Sandbox::in_memory();
    let tree = Tree::new(files);
    for atomic in [false, true] {
        tree.write_old(&sb);
        let what = format!("{files} files, limit {soft}/{hard}, atomic {atomic}");
        let mut cmd = replace_command(&sb, atomic);
        limit_open_files(&mut cmd, soft, hard);
        let start = Instant::now();
        let (code, out, err) = run_to_end(cmd, timeout);
        let took = start.elapsed();
        assert_eq!(code, 0, "{what}: {}\n{err}", tail(&out));
        eprintln!("{what}: replaced in {took:?}");
        assert_eq!(tree.census(&sb), (0, files), "{what}");
        assert_no_litter(&sb, &what);
        let mut undo = sb.command(&["undo"]);
        limit_open_files(&mut undo, soft, hard);
        let (code, out, err) = run_to_end(undo, timeout);
        assert_eq!(code, 0, "{what}: undo: {}\n{err}", tail(&out));
        assert_eq!(tree.census(&sb), (files, 0), "{what}: undone");
        assert_no_litter(&sb, &what);
    }
}

fn tail(out: &str) -> &str {
    &out[out.len().saturating_sub(2000)..]
}

/// `filekit replace` over `files` files, atomic and not, sent `signal` a quarter of the way
/// through its writes: it ends by the signal (or had ended already), an atomic request rolled
/// back or whole, a plain one's written files recorded; returns how many plain runs stopped part way. `more`:
/// more arguments of the replace.
pub fn replace_interrupted(
    files: usize,
    signals: &[Signal],
    more: &[&str],
    timeout: Duration,
) -> usize {
    let sb = Sandbox::in_memory();
    let tree = Tree::new(files);
    let (first, first_new) = tree.written_early();
    let mut part_way = 0;
    for &signal in signals {
        for atomic in [false, true] {
            tree.write_old(&sb);
            let entries = history_len(&sb);
            let (code, out, err, sent) = interrupt_when(
                replace_command_with(&sb, atomic, more),
                &sb,
                Some((&first, &first_new)),
                signal,
                timeout,
            );
            let what = format!("{files} files, {signal:?}, atomic {atomic} {more:?}");
            let by_signal = 128 + signal.as_raw();
            assert!(
                code == 0 || (sent && code == by_signal),
                "{what}: exit {code}\n{}\n{err}",
                tail(&out)
            );
            assert_no_litter(&sb, &what);
            let (old, new) = tree.census(&sb);
            eprintln!("{what}: {new} files written, {old} not");
            if code == by_signal {
                assert!(err.contains("interrupted"), "{what}: not said\n{err}");
                if atomic {
                    // The signal is sent when the first file reads new, which for an atomic
                    // request is during its commit: the request is rolled back, or, when its
                    // commit ended before the stop was seen, stands whole (and is recorded,
                    // checked below). Never a mix.
                    assert!(
                        (old, new) == (files, 0) || (old, new) == (0, files),
                        "{what}: neither rolled back nor whole: {new} written, {old} not"
                    );
                } else if old > 0 {
                    part_way += 1;
                }
            } else {
                assert_eq!((old, new), (0, files), "{what}");
            }
            written_files_are_recorded_and_undone(&sb, &tree, entries);
        }
    }
    part_way
}

/// A plain `filekit replace` over `files` files killed (SIGKILL) a quarter of the way
/// through its writes; the next start, whatever its verb, removes what it left and records
/// what it wrote. `more`: more arguments of the replace.
pub fn replace_killed_then_rerun(files: usize, more: &[&str], timeout: Duration) {
    let sb = Sandbox::in_memory();
    let tree = Tree::new(files);
    let (first, first_new) = tree.written_early();
    tree.write_old(&sb);
    let (code, out, err, _) = interrupt_when(
        replace_command_with(&sb, false, more),
        &sb,
        Some((&first, &first_new)),
        Signal::KILL,
        timeout,
    );
    assert!(
        code == 0 || code == 128 + Signal::KILL.as_raw(),
        "exit {code}\n{}\n{err}",
        tail(&out)
    );
    let run = sb.filekit(&["ls", "."], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_no_litter(&sb, "after the next start");
    let (old, new) = tree.census(&sb);
    eprintln!(
        "{files} files {more:?}, killed with {new} written and {old} not: {}",
        run.stderr.trim()
    );
    written_files_are_recorded_and_undone(&sb, &tree, 0);
}

/// `replace_in_files` over MCP (stdio) on `files` files, atomic and not, cancelled
/// (`notifications/cancelled`) a quarter of the way through its writes.
pub fn replace_cancelled_over_mcp(files: usize, timeout: Duration) {
    let sb = Sandbox::in_memory();
    let tree = Tree::new(files);
    let (first, first_new) = tree.written_early();
    for atomic in [false, true] {
        tree.write_old(&sb);
        let entries = history_len(&sb);
        let mut mcp = Mcp::start(sb.command(&["serve", "--tools", "filekit"]));
        let id = mcp.send_request("tools/call", replace_call(atomic));
        wait_until_written(&sb, &first, &first_new, timeout);
        mcp.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": id, "reason": "test"}}),
        );
        // The server ends once the call has stopped (or finished).
        assert_eq!(mcp.finish(timeout), 0);
        let what = format!("{files} files, cancelled, atomic {atomic}");
        assert_no_litter(&sb, &what);
        let (old, new) = tree.census(&sb);
        eprintln!("{what}: {new} files written, {old} not");
        if atomic {
            assert!(old == files || new == files, "{what}: {old} old, {new} new");
        }
        written_files_are_recorded_and_undone(&sb, &tree, entries);
    }
}

/// `filekit serve` sent SIGTERM while its `replace_in_files` over `files` files writes: it
/// ends by the signal once the writes have stopped.
pub fn server_ended_mid_replace(files: usize, timeout: Duration) {
    let sb = Sandbox::in_memory();
    let tree = Tree::new(files);
    let (first, first_new) = tree.written_early();
    for atomic in [false, true] {
        tree.write_old(&sb);
        let entries = history_len(&sb);
        let mut mcp = Mcp::start(sb.command(&["serve", "--tools", "filekit"]));
        mcp.send_request("tools/call", replace_call(atomic));
        wait_until_written(&sb, &first, &first_new, timeout);
        let pid = rustix::process::Pid::from_raw(mcp.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, Signal::TERM).unwrap();
        let code = mcp.finish(timeout);
        let what = format!("{files} files, server sent SIGTERM, atomic {atomic}");
        assert_eq!(code, 128 + Signal::TERM.as_raw(), "{what}");
        assert_no_litter(&sb, &what);
        let (old, new) = tree.census(&sb);
        eprintln!("{what}: {new} files written, {old} not");
        if atomic {
            assert!(old == files || new == files, "{what}: {old} old, {new} new");
        }
        written_files_are_recorded_and_undone(&sb, &tree, entries);
    }
}

fn replace_call(atomic: bool) -> serde_json::Value {
    json!({"name": "replace_in_files", "arguments": {
        "expression": "s/colour/color/g", "files": "*.txt", "atomic": atomic}})
}

fn wait_until_written(sb: &Sandbox, rel: &str, new: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while !std::fs::read_to_string(sb.path(rel)).is_ok_and(|t| t == new) {
        assert!(Instant::now() < deadline, "the write never began");
        std::thread::yield_now();
    }
}
