//! Atomic requests survive SIGKILL: a child `filekit replace --atomic` over 500 files is killed
//! at random moments; the next start of filekit rolls back from the journal, and every file is
//! then entirely old or entirely new, all of them alike.

use crate::common;

use common::Sandbox;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

const FILES: usize = 500;
const TRIALS: usize = 50;

fn write_old(sb: &Sandbox) {
    for i in 0..FILES {
        sb.write(
            &format!("d{}/f{i}.txt", i % 10),
            &format!("file {i}\nold value\nend\n"),
        );
    }
}

/// Counts files with the old and the new content; panics on anything else (a torn file).
fn census(sb: &Sandbox) -> (usize, usize) {
    let (mut old, mut new) = (0, 0);
    for i in 0..FILES {
        let rel = format!("d{}/f{i}.txt", i % 10);
        let text = std::fs::read_to_string(sb.path(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        if text == format!("file {i}\nold value\nend\n") {
            old += 1;
        } else if text == format!("file {i}\nnew value\nend\n") {
            new += 1;
        } else {
            panic!("{rel} is neither old nor new: {text:?}");
        }
    }
    (old, new)
}

/// Temporary files of filekit left anywhere outside `.filekit/`.
fn leftovers(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == ".filekit" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if name.starts_with(".filekit.") {
                out.push(e.path().display().to_string());
            }
        }
    }
    out
}

fn replace_command(sb: &Sandbox) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
    cmd.arg("--root")
        .arg(sb.root())
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .args(["replace", "s/old value/new value/", ".", "--atomic"])
        .current_dir(sb.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

#[test]
fn atomic_requests_killed_at_random_moments_leave_all_old_or_all_new() {
    let sb = Sandbox::new();
    write_old(&sb);
    // One run to completion, to know how long a run takes here.
    let start = Instant::now();
    let status = replace_command(&sb).status().unwrap();
    let full = start.elapsed();
    assert!(status.success());
    assert_eq!(census(&sb), (0, FILES));

    let mut seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("kill test: a full run takes {full:?}; seed {seed}");
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut all_old, mut all_new, mut recovered) = (0, 0, 0);
    for trial in 0..TRIALS {
        write_old(&sb);
        // Kill anywhere from the start to a little past the usual end.
        let delay = full.mul_f64((next() % 1200) as f64 / 1000.0);
        let mut child = replace_command(&sb).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        // The next start of filekit recovers.
        let run = sb.filekit(&["ls", "."], None);
        assert_eq!(run.code, 0, "trial {trial}: {}", run.stderr);
        if run
            .stderr
            .contains("rolled back an interrupted atomic request")
        {
            recovered += 1;
        }
        let (old, new) = census(&sb);
        assert!(
            old == FILES || new == FILES,
            "trial {trial} (killed after {delay:?}): {old} files old and {new} new\n{}",
            run.stderr
        );
        if old == FILES {
            all_old += 1;
        } else {
            all_new += 1;
        }
        let left = leftovers(sb.root());
        assert!(
            left.is_empty(),
            "trial {trial}: temporary files left: {left:?}"
        );
        // Neither the records (in the state directory) nor the backups (in the tree).
        for journal in [sb.path(".filekit/journal"), sb.state_path("journal")] {
            if journal.exists() {
                let live: Vec<_> = std::fs::read_dir(&journal).unwrap().flatten().collect();
                assert!(live.is_empty(), "trial {trial}: journals left: {live:?}");
            }
        }
    }
    eprintln!(
        "kill test: {all_old} trials ended all old ({recovered} rolled back from a journal), {all_new} all new"
    );
    // The history is still readable after all the kills, and holds no entry for a request
    // that was rolled back (an entry is recorded only after the commit point).
    let run = sb.filekit(&["history", "--json", "--limit", "1000"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let entries = run.json.as_array().expect("a list of entries").len();
    assert!(
        (1..=all_new + 1).contains(&entries),
        "{entries} entries, {all_new} completed runs"
    );
}
