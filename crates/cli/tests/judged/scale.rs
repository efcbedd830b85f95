//! The hermetic `scale.rs` at full size (heavy: minutes on a debug build): the same scenarios
//! (`common/scenarios.rs`) at 20,000 files, in memory (`Sandbox::in_memory`): a replace at a
//! soft and at a hard limit of 256 open files, atomic and not; SIGINT, SIGTERM, SIGHUP, a
//! SIGKILL then the next start, an MCP cancel and a server ended by SIGTERM, mid-replace.
//! `cargo test -p filekit --test judged scale::`.

use crate::common;

use common::scenarios;
use rustix::process::Signal;
use std::time::Duration;

const FILES: usize = 20_000;
const LIMIT: u64 = 256;
const TIMEOUT: Duration = Duration::from_secs(1800);

#[test]
fn a_replace_of_20000_files_succeeds_under_a_soft_limit_of_256_open_files() {
    // The hard limit this test runs under: filekit raises its soft limit to it.
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .maximum
        .unwrap_or(1 << 20);
    scenarios::replace_under_a_limit(FILES, LIMIT, hard, TIMEOUT);
}

#[test]
fn a_replace_of_20000_files_succeeds_under_a_hard_limit_of_256_open_files() {
    scenarios::replace_under_a_limit(FILES, LIMIT, LIMIT, TIMEOUT);
}

#[test]
fn sigint_sigterm_and_sighup_mid_replace_of_20000_files_leave_no_litter_and_an_exact_undo() {
    let signals = [Signal::INT, Signal::TERM, Signal::HUP];
    let part_way = scenarios::replace_interrupted(FILES, &signals, &[], TIMEOUT);
    eprintln!("interrupted part way in {part_way} of 3 plain runs");
}

#[test]
fn a_replace_of_20000_files_killed_mid_write_is_finished_by_the_next_start() {
    scenarios::replace_killed_then_rerun(FILES, &[], TIMEOUT);
}

#[test]
fn an_mcp_cancel_mid_replace_of_20000_files_leaves_no_litter_and_an_exact_undo() {
    scenarios::replace_cancelled_over_mcp(FILES, TIMEOUT);
}

#[test]
fn a_server_ended_mid_replace_of_20000_files_leaves_no_litter_and_an_exact_undo() {
    scenarios::server_ended_mid_replace(FILES, TIMEOUT);
}
