//! Attacks on sizes, time and special files, through `filekit call` the way
//! an agent sends them: a sparse 100 GB file (it costs no disk), writes at and over the bound
//! of a file's size, a request over the bound of a request, a search text of thousands of
//! lines, files swapped for FIFOs while a search or a replace walks. Each run is killed if it
//! does not end (a hang fails the test), and its peak resident memory (`wait4`) must stay
//! under 500 MB.

use crate::common;
use common::*;
use filekit_core::limits::{
    DEFAULT_MAX_FILE_SIZE, MAX_PARSE_SIZE, MAX_REQUEST_SIZE, NEAR_MISS_WORK,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The most resident memory any of these runs may take.
const MAX_RSS_MIB: u64 = 500;
/// No run takes long; one that has not ended after this hung.
const TIMEOUT: Duration = Duration::from_secs(180);
const HUNDRED_GB: u64 = 100 << 30;

fn call_bytes(tool: &str, args: &Value) -> Vec<u8> {
    json!({"tool_name": tool, "tool_args": args})
        .to_string()
        .into_bytes()
}

/// One call, measured; asserts the memory bound and says what it took (shown with
/// `--nocapture`: these are the figures SECURITY.md quotes).
fn measured(sb: &Sandbox, tool: &str, args: Value, what: &str) -> Run {
    measured_with(sb, &[], tool, args, what)
}

/// [`measured`] with options of `filekit` before the verb (`--max-file-size`).
fn measured_with(sb: &Sandbox, options: &[&str], tool: &str, args: Value, what: &str) -> Run {
    let mut verb = options.to_vec();
    verb.push("call");
    let m = run_measured(sb.command(&verb), call_bytes(tool, &args), TIMEOUT);
    eprintln!("peak RSS {:>4} MiB: {what} ({tool})", m.peak_mib());
    assert!(
        m.peak_mib() < MAX_RSS_MIB,
        "{what} ({tool}): peak resident memory {} MiB\n{}",
        m.peak_mib(),
        m.run.stdout
    );
    m.run
}

/// A sparse file of `size` bytes that starts with `head`: no disk but its head.
fn sparse(sb: &Sandbox, rel: &str, head: &[u8], size: u64) {
    sb.write_bytes(rel, head);
    std::fs::OpenOptions::new()
        .write(true)
        .open(sb.path(rel))
        .unwrap()
        .set_len(size)
        .unwrap();
}

/// The error code of a reply, in either spelling.
fn code(run: &Run) -> &str {
    run.json
        .get("error_code")
        .or_else(|| run.json.get("errorCode"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Numbered lines of text, `n` of them.
fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i} of the head\n")).collect()
}

/// The attack: `truncate -s 100G big.txt`, then an edit (24 GB of memory and the kernel's
/// OOM killer before). A file over the bound is streamed now, not refused, but this one is a
/// hole of NUL bytes after its first lines: every text edit says it is binary from its first
/// bytes, without reading on; a whole new content over it and a parse of it are refused
/// TOO_LARGE with the facts and a way on. Memory stays bounded and the file is as it was.
#[test]
fn edits_of_a_sparse_100_gb_file_are_refused_before_it_is_read() {
    let sb = Sandbox::new();
    sparse(&sb, "big.txt", lines(100).as_bytes(), HUNDRED_GB);
    sparse(&sb, "big.ts", b"export function f() {}\n", HUNDRED_GB);
    let edits: Vec<(&str, Value)> = vec![
        (
            "Edit",
            json!({"file_path": "big.txt", "old_string": "line 1 of", "new_string": "x"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": "big.txt", "edits": [{"old_string": "line 1 of", "new_string": "x"}]}),
        ),
        (
            "Write",
            json!({"file_path": "big.txt", "content": "small\n"}),
        ),
        (
            "fs_write",
            json!({"command": "str_replace", "path": "big.txt", "old_str": "line 1 of", "new_str": "x"}),
        ),
        (
            "file:edit_file",
            json!({"path": "big.txt", "start_line": 1, "end_line": 1, "new_content": "x"}),
        ),
        (
            "edit_files",
            json!({"files": [{"path": "big.txt", "edits": [{"str_replace": {"old": "line 1 of", "new": "x"}}]}]}),
        ),
        (
            "edit_block",
            json!({"file_path": "big.txt", "old_string": "line 1 of", "new_string": "x"}),
        ),
        (
            "write_from_line",
            json!({"path": "big.txt", "startLine": 1, "endLine": 1, "content": "x"}),
        ),
        (
            "file_edit",
            json!({"file": "big.ts", "target": "f", "operation": "replace", "content": "export function f() { return 1; }"}),
        ),
        ("file_read", json!({"file": "big.ts", "symbol": "f"})),
    ];
    for (tool, args) in edits {
        let run = measured(&sb, tool, args.clone(), "an edit of a sparse 100 GB file");
        assert_eq!(run.code, 1, "{tool}: {}", run.stdout);
        let all = format!("{}{}", run.stdout, run.stderr);
        let (why, way_on) = match tool {
            "Write" => ("TOO_LARGE", "lines"),
            "file_edit" | "file_read" => ("TOO_LARGE", "range"),
            _ => ("BINARY", "binary"),
        };
        assert!(all.contains(why), "{tool}: {all}");
        assert!(all.contains(&HUNDRED_GB.to_string()), "{tool}: {all}");
        assert!(all.contains(way_on), "{tool}: {all}");
        for rel in ["big.txt", "big.ts"] {
            assert_eq!(std::fs::metadata(sb.path(rel)).unwrap().len(), HUNDRED_GB);
        }
    }
    let run = sb.call("Write", json!({"file_path": "big.txt", "content": "x\n"}));
    assert_eq!(code(&run), "TOO_LARGE");
    let limit = &run.json["details"]["limit"];
    assert_eq!(
        (
            limit["kind"].as_str(),
            limit["found"].as_u64(),
            limit["max"].as_u64()
        ),
        (
            Some("file_size"),
            Some(HUNDRED_GB),
            Some(DEFAULT_MAX_FILE_SIZE)
        )
    );
}

/// A write of the largest content a file held whole may have works; one byte more is refused
/// with the facts, before anything is written (a 1 GB write through `call` reached 8.5 GB
/// before). The bound set with `--max-file-size`.
#[test]
fn a_write_at_the_bound_works_and_one_byte_more_is_refused() {
    const MAX_FILE_SIZE: u64 = 64 << 10;
    let bound = ["--max-file-size=64K"];
    let sb = Sandbox::new();
    let at = "x".repeat(MAX_FILE_SIZE as usize - 1) + "\n";
    let run = measured_with(
        &sb,
        &bound,
        "Write",
        json!({"file_path": "at.txt", "content": at}),
        "a write at the bound",
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        std::fs::metadata(sb.path("at.txt")).unwrap().len(),
        MAX_FILE_SIZE
    );

    let over = "x".repeat(MAX_FILE_SIZE as usize) + "\n";
    for (tool, args) in [
        ("Write", json!({"file_path": "over.txt", "content": over})),
        (
            "fs_write",
            json!({"command": "create", "path": "over.txt", "file_text": over}),
        ),
        (
            "edit_files",
            json!({"files": [{"path": "over.txt", "edits": [{"create": {"content": over}}]}]}),
        ),
    ] {
        let run = measured_with(&sb, &bound, tool, args, "a write one byte over the bound");
        assert_eq!(
            run.code,
            1,
            "{tool}: {}",
            &run.stdout[..run.stdout.len().min(2000)]
        );
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains("TOO_LARGE"), "{tool}");
        assert!(
            all.contains(&(MAX_FILE_SIZE + 1).to_string()),
            "{tool}: the size"
        );
        assert!(!sb.exists("over.txt"), "{tool}: nothing written");
    }
    let call =
        json!({"tool_name": "Write", "tool_args": {"file_path": "over.txt", "content": over}});
    let run = sb.filekit(&[bound[0], "call"], Some(&call.to_string()));
    let limit = &run.json["details"]["limit"];
    assert_eq!(
        (
            limit["found"].as_u64(),
            limit["max"].as_u64(),
            limit["unit"].as_str()
        ),
        (Some(MAX_FILE_SIZE + 1), Some(MAX_FILE_SIZE), Some("bytes"))
    );
}

/// A 5-line read of a sparse 100 GB file (35 s before: the whole file was hashed) costs what
/// five lines cost, in every dialect's read tool, and no reply shows a hash it does not have.
#[test]
fn five_lines_of_a_sparse_100_gb_file_cost_five_lines_and_show_no_version() {
    let sb = Sandbox::new();
    sparse(&sb, "big.txt", lines(1000).as_bytes(), HUNDRED_GB);
    let five = lines(5);
    let reads: Vec<(&str, Value)> = vec![
        (
            "Read",
            json!({"file_path": "big.txt", "offset": 1, "limit": 5}),
        ),
        (
            "fs_read",
            json!({"mode": "Line", "path": "big.txt", "start_line": 1, "end_line": 5}),
        ),
        (
            "file:read_file",
            json!({"path": "big.txt", "start_line": 1, "end_line": 5}),
        ),
        (
            "read_files",
            json!({"files": [{"path": "big.txt", "start_line": 1, "end_line": 5}]}),
        ),
    ];
    for (tool, args) in reads {
        let run = measured(&sb, tool, args, "a 5-line read of a sparse 100 GB file");
        assert_eq!(run.code, 0, "{tool}: {}", run.stdout);
        let reply = match run.json.get("files") {
            Some(files) => files[0].clone(),
            None => run.json.clone(),
        };
        let content = reply["content"].as_str().unwrap_or_default();
        for line in five.lines() {
            assert!(content.contains(line), "{tool}: {content}");
        }
        assert!(!content.contains("line 6 of"), "{tool}: {content}");
        assert!(reply.get("content_hash").is_none(), "{tool}: {reply}");
        assert!(reply.get("contentHash").is_none(), "{tool}: {reply}");
        let facts = &reply["unversioned"];
        assert_eq!(
            (facts["kind"].as_str(), facts["found"].as_u64()),
            (Some("file_size"), Some(HUNDRED_GB)),
            "{tool}: {reply}"
        );
        assert!(!run.stdout.contains("content_hash 0"), "{tool}");
    }
    // All zeros: binary, described, with no hash either.
    sparse(&sb, "zeros.bin", b"", HUNDRED_GB);
    let run = measured(
        &sb,
        "read_files",
        json!({"files": [{"path": "zeros.bin"}]}),
        "a read of 100 GB of zeros",
    );
    let f = &run.json["files"][0];
    assert_eq!(f["kind"], "binary", "{f}");
    assert!(f.get("content_hash").is_none(), "{f}");
}

/// A tool call larger than a call may be is refused before it is parsed (it was read whole
/// and parsed whole).
#[test]
fn a_call_over_the_bound_of_a_request_is_refused_before_it_is_parsed() {
    let sb = Sandbox::new();
    let content = "y".repeat(MAX_REQUEST_SIZE as usize);
    let run = measured(
        &sb,
        "Write",
        json!({"file_path": "huge.txt", "content": content}),
        "a call over the request bound",
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json["error_code"], "TOO_LARGE");
    let limit = &run.json["details"]["limit"];
    assert_eq!(
        (limit["kind"].as_str(), limit["max"].as_u64()),
        (Some("request_size"), Some(MAX_REQUEST_SIZE))
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("smaller calls")
    );
    assert!(!sb.exists("huge.txt"));
}

/// A search text of 4,000 lines that resembles nothing, against a file at the bound (39 s on
/// a 5 MB file before): the near-miss search gives up at its budget of comparisons and the
/// reply says so as facts.
#[test]
fn a_near_miss_search_of_thousands_of_lines_gives_up_and_says_so() {
    let sb = Sandbox::new();
    let mut text = String::new();
    let mut i = 0;
    while text.len() < (2 << 20) - 100 {
        text.push_str(&format!("    let value_{i} = compute(alpha, beta_{i});\n"));
        i += 1;
    }
    sb.write("big.rs", &text);
    let search: String = (0..4_000)
        .map(|k| {
            format!(
                "beta_{} alpha value_{} compute(let);\n",
                k * 7 % 1000,
                k * 13
            )
        })
        .collect();
    let run = measured(
        &sb,
        "Edit",
        json!({"file_path": "big.rs", "old_string": search, "new_string": "x"}),
        "a 4,000-line search text that is nowhere",
    );
    assert_eq!(run.code, 1);
    assert_eq!(code(&run), "NOT_FOUND", "{}", run.stdout);
    let details = &run.json["details"];
    assert_eq!(details["near_miss"], Value::Null, "{details}");
    assert_eq!(details["near_miss_skipped"], "budget", "{details}");
    assert_eq!(details["limit"]["kind"], "search_work");
    assert_eq!(details["limit"]["max"], NEAR_MISS_WORK);
    assert_eq!(sb.read("big.rs"), text);
}

/// A semantic read of every export of a file at the bound: each export's dependencies walked
/// all of the file's statements again (a 2 MB file of 27,000 exports: more than 3 minutes);
/// the imports are found once now.
#[test]
fn a_semantic_read_of_every_export_of_a_large_file_ends_within_memory() {
    let sb = Sandbox::new();
    let mut text = String::from("import { helper } from \"./helper\";\n");
    let mut i = 0;
    while (text.len() as u64) < MAX_PARSE_SIZE - 200 {
        text.push_str(&format!(
            "export function f{i}(a: number): number {{\n  return helper(a) * {i};\n}}\n"
        ));
        i += 1;
    }
    sb.write("big.ts", &text);
    let run = measured(
        &sb,
        "file_read",
        json!({"file": "big.ts", "region": "exports"}),
        "the exports region of a file at the bound",
    );
    assert_eq!(run.code, 0, "{}", &run.stdout[..run.stdout.len().min(2000)]);
    assert_eq!(run.json["results"].as_array().unwrap().len(), i);
}

/// Renames a FIFO over each of `names` and a regular file back, again and again, until
/// `stop`: a file the walk listed may be a FIFO when it is opened.
fn swap_for_fifos(root: &Path, names: Vec<String>, stop: Arc<AtomicBool>) {
    let mut round = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for n in &names {
            let fifo = root.join(format!(".{n}.{round}.fifo"));
            let file = root.join(format!(".{n}.{round}.file"));
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap();
            assert!(made.success());
            std::fs::write(&file, "needle old\n").unwrap();
            let _ = std::fs::rename(&fifo, root.join(n));
            let _ = std::fs::rename(&file, root.join(n));
        }
        round += 1;
    }
}

/// The attack's race: files are swapped for FIFOs (and back) while Grep and
/// replace_in_files walk them (6 of 56 calls hung forever in `open` before). Every call ends
/// with an answer; a FIFO met where a file was listed is reported, never opened blocking.
#[test]
fn grep_and_replace_finish_while_files_turn_into_fifos() {
    let sb = Sandbox::new();
    let names: Vec<String> = (0..40).map(|i| format!("f{i:02}.txt")).collect();
    for n in &names {
        sb.write(n, "needle old\n");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, names, stop) = (sb.root().to_path_buf(), names.clone(), stop.clone());
        std::thread::spawn(move || swap_for_fifos(&root, names, stop))
    };
    let mut met = 0;
    for round in 0..30 {
        for (tool, args) in [
            ("Grep", json!({"pattern": "needle", "glob": "f*.txt"})),
            (
                "replace_in_files",
                json!({"expression": "s/old/new/", "files": "f*.txt", "dry_run": round % 2 == 0}),
            ),
        ] {
            let m = run_measured(sb.command(&["call"]), call_bytes(tool, &args), TIMEOUT);
            assert!(
                m.run.code == 0 || m.run.code == 1,
                "{tool}: {}",
                m.run.stdout
            );
            assert!(
                m.run.json.is_object(),
                "{tool}: an answer: {}",
                m.run.stdout
            );
            if m.run.stdout.contains("not a regular file (a FIFO)") {
                met += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!("{met} of 60 calls met a FIFO where a file had been");
}
