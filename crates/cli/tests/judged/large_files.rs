//! A 300 MB log, as large files are met in real trees: read from its end, edited (by its
//! text, and by its last line counted from the end), undone, and replaced across a tree,
//! through `filekit` as people and agents run it, each run's peak resident memory measured
//! (`wait4`) and held under 256 MiB; every result is checked against the log as it was
//! generated, a line at a time. Heavy (a 300 MB file, runs of many seconds): the judged
//! stage. `cargo test -p filekit --test judged large_files:: -- --nocapture` prints the
//! figures.

use crate::common;
use common::*;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The most resident memory a run on the large file may take.
const MAX_RSS_MIB: u64 = 256;
/// A run that has not ended after this hung.
const TIMEOUT: Duration = Duration::from_secs(1200);
/// Lines of the log: about 300 MB.
const LINES: usize = 6_700_000;

/// Line `i` (1-based) of the log, with its line break.
fn line(i: usize) -> String {
    format!(
        "{i:09} request id={} status=ok took={}ms\n",
        i % 1000,
        i % 97
    )
}

fn write_log(sb: &Sandbox, rel: &str) -> u64 {
    std::fs::create_dir_all(sb.path(rel).parent().unwrap()).unwrap();
    let f = std::fs::File::create(sb.path(rel)).unwrap();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    for i in 1..=LINES {
        w.write_all(line(i).as_bytes()).unwrap();
    }
    w.flush().unwrap();
    std::fs::metadata(sb.path(rel)).unwrap().len()
}

/// Checks the file line by line against the log with `change` made to each line (1-based
/// number and text in; what the line must be out), without holding it.
fn check_log(sb: &Sandbox, rel: &str, change: impl Fn(usize, String) -> String) {
    let f = std::fs::File::open(sb.path(rel)).unwrap();
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut got = String::new();
    for i in 1..=LINES {
        got.clear();
        r.read_line(&mut got).unwrap();
        let want = change(i, line(i));
        assert!(got == want, "{rel} line {i}: {got:?}, expected {want:?}");
    }
    got.clear();
    assert_eq!(
        r.read_line(&mut got).unwrap(),
        0,
        "{rel}: lines after the last"
    );
}

/// One run of `filekit ARGS` (with `stdin`), measured: asserts the memory bound and says
/// what it took.
fn measured(sb: &Sandbox, args: &[&str], stdin: &str, what: &str) -> Run {
    let start = Instant::now();
    let m = run_measured(sb.command(args), stdin.as_bytes().to_vec(), TIMEOUT);
    eprintln!(
        "peak RSS {:>4} MiB, {:>6.1} s: {what}",
        m.peak_mib(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        m.peak_mib() < MAX_RSS_MIB,
        "{what}: peak resident memory {} MiB\n{}\n{}",
        m.peak_mib(),
        m.run.stdout,
        m.run.stderr
    );
    m.run
}

fn call(sb: &Sandbox, tool: &str, args: Value, what: &str) -> Run {
    let call = json!({"tool_name": tool, "tool_args": args}).to_string();
    measured(sb, &["call"], &call, what)
}

#[test]
fn a_300_mb_log_is_read_from_its_end_edited_undone_and_replaced_in_bounded_memory() {
    let sb = Sandbox::new();
    let size = write_log(&sb, "logs/big.log");
    assert!(size > 300_000_000, "{size}");
    eprintln!("the log: {size} bytes, {LINES} lines");

    // Its last lines, found from its end.
    let r = measured(
        &sb,
        &["read", "--lines=-20:", "logs/big.log"],
        "",
        "read --lines=-20:",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let shown: Vec<&str> = r.stdout.lines().skip(1).collect();
    assert_eq!(shown.len(), 20);
    assert_eq!(
        shown[19],
        format!("    -1\t{}", line(LINES).trim_end()),
        "{}",
        r.stdout
    );

    // A text edit in its middle, as an agent sends it.
    let mid = LINES / 2;
    let old = line(mid).trim_end().to_string();
    let new = old.replace("status=ok", "status=EDITED");
    let r = call(
        &sb,
        "Edit",
        json!({"file_path": "logs/big.log", "old_string": old, "new_string": new}),
        "Edit of a line in the middle",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.json["shortResult"]
            .as_str()
            .unwrap()
            .contains(&format!("line {mid}"))
    );
    check_log(&sb, "logs/big.log", |i, l| {
        if i == mid {
            l.replace("status=ok", "status=EDITED")
        } else {
            l
        }
    });

    // Its last line, counted from the end, tied to the read of it.
    let r = measured(
        &sb,
        &["read", "--json", "--lines=-1:", "logs/big.log"],
        "",
        "read --lines=-1: (for its range_hash)",
    );
    let hash = r.json[0]["range_hash"].as_str().unwrap().to_string();
    let r = call(
        &sb,
        "edit_files",
        json!({"files": [{"path": "logs/big.log", "edits": [
            {"replace_lines": {"start": -1, "end": -1, "new": "the last line, replaced\n", "content_hash": hash}}
        ]}]}),
        "edit_files of line -1",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);

    // Both undone, to the byte.
    for what in ["undo of the line edit", "undo of the text edit"] {
        let r = measured(&sb, &["undo"], "", what);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    check_log(&sb, "logs/big.log", |_, l| l);
    let history = std::fs::metadata(sb.state_path("history.db"))
        .unwrap()
        .len();
    eprintln!("the history after four entries of the log: {history} bytes");
    assert!(history < 1 << 20, "the history keeps ranges, not the log");

    // A replace across a tree of the log and small files, as sed or fastmod would make it.
    for k in 0..200 {
        sb.write(&format!("src/f{k}.txt"), "request id=42 status=ok\nother\n");
    }
    let r = measured(
        &sb,
        &["replace", "s/id=42 status=ok/id=42 status=OK/", "."],
        "",
        "replace across a tree of the log and 200 small files",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    check_log(&sb, "logs/big.log", |i, l| {
        if i % 1000 == 42 {
            l.replace("status=ok", "status=OK")
        } else {
            l
        }
    });
    assert_eq!(sb.read("src/f7.txt"), "request id=42 status=OK\nother\n");
    let r = measured(&sb, &["undo"], "", "undo of the replace");
    assert_eq!(r.code, 0, "{}", r.stderr);
    check_log(&sb, "logs/big.log", |_, l| l);
    assert_eq!(sb.read("src/f7.txt"), "request id=42 status=ok\nother\n");
}
