//! The server under the reply attacks at their real sizes (heavy: a 200,000-file tree, forty
//! 2 MB files, reads naming one 2 MB file 1,000 times), and reads by symbol of 2 MB sources
//! whose trees would take 400 MB: each table's `filekit serve`, started
//! under a 1 GiB address-space limit (`ulimit -v 1048576`), is sent every attack its tools
//! allow and answers a small read after each; its peak resident memory stays under 500 MB, and
//! every reply is cut at the reply bound with a way on. The hermetic `reply_bounds.rs` runs
//! the same attacks at a small configured bound, `parser_bounds.rs` the dense sources.
//!
//! Measured with a release build: `cargo test --release -p filekit --test judged
//! server_memory:: -- --nocapture` prints, per attack, the reply's size, the server's peak
//! memory, how long the call took and the processor time it took (never asserted: a loaded
//! machine is slower).

use crate::common;

use common::trees::Tree;
use common::{McpStdio, Sandbox};
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::time::Instant;

const TREE_FILES: usize = 200_000;
/// Address space the server may take (`ulimit -v 1048576`).
const ADDRESS_SPACE: u64 = 1 << 30;
/// Peak resident memory the server stays under.
const MAX_PEAK_MIB: u64 = 500;
/// What one reply carries by default (`filekit_core::limits::MAX_REPLY_BYTES`); a reply's
/// JSON-RPC message holds its value and its text, each escaped.
const MAX_REPLY: usize = 4 << 20;

fn two_mb() -> String {
    ("x".repeat(99) + "\n").repeat(20_000)
}

/// One attack: a tool, its arguments, and a phrase its reply must hold (the cut and the way
/// on, in that tool's words).
struct Attack {
    tool: &'static str,
    args: Value,
    says: &'static str,
}

fn attack(tool: &'static str, args: Value, says: &'static str) -> Attack {
    Attack { tool, args, says }
}

/// The server of `table` under the address-space limit.
fn start(sb: &Sandbox, table: &str) -> McpStdio {
    let mut cmd = sb.command(&["serve", "--tools", table]);
    // SAFETY: setrlimit between fork and exec touches only the child's own limit.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    McpStdio::start(cmd)
}

/// Sends each attack to `server` (of `table`) in turn: its reply holds what the attack says
/// and is cut near the reply bound, the server's peak resident memory stays under the rule,
/// and the small read (`read_tool` with `read_args`) answers after it. Returns the peak.
fn survive(
    server: &mut McpStdio,
    table: &str,
    attacks: Vec<Attack>,
    read_tool: &str,
    read_args: &Value,
) -> u64 {
    for a in attacks {
        let (began, cpu) = (Instant::now(), server.cpu_seconds());
        let result = server.call_tool(a.tool, &a.args);
        let took = began.elapsed();
        let cpu = server.cpu_seconds() - cpu;
        let size = result.to_string().len();
        let peak = server.peak_mib();
        eprintln!(
            "{table} {}: {size} bytes in {took:.2?} ({cpu:.2} s of processor time), peak {peak} MiB",
            a.tool
        );
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains(a.says),
            "{table} {}: no {:?} in {}",
            a.tool,
            a.says,
            &text[..text.len().min(2000)]
        );
        assert!(
            size < 6 * MAX_REPLY,
            "{table} {}: a reply of {size} bytes",
            a.tool
        );
        assert!(
            peak < MAX_PEAK_MIB,
            "{table} {}: the server's peak is {peak} MiB",
            a.tool
        );
        let read = server.call_tool(read_tool, read_args);
        assert!(
            read.to_string().contains("hello"),
            "{table}: after {}, the small read got {read}",
            a.tool
        );
    }
    assert!(server.alive(), "{table}: the server ended");
    server.peak_mib()
}

/// A source file of about 2 MB whose tree would be the densest a text makes, a node per byte
/// (about 400 MB), with a function `pick` to read by symbol: refused once its parse has
/// built `filekit_semantic::bounds::MAX_SYNTAX_TREE_BYTES`.
fn densest_source(python: bool) -> String {
    let numbers = "1,".repeat(1_000_000);
    if python {
        format!("def pick(i):\n    return TABLE[i]\n\n\nTABLE = [{numbers}0]\n")
    } else {
        format!(
            "export function pick(i: number): number {{\n    return table[i];\n}}\n\nexport const table = [{numbers}0];\n"
        )
    }
}

/// The reads by symbol of the densest sources, each refused for its tree.
fn dense_reads() -> Vec<Attack> {
    ["dense.ts", "dense.py"]
        .into_iter()
        .map(|file| {
            attack(
                "file_read",
                json!({"file": file, "symbol": "pick"}),
                "one parse may build",
            )
        })
        .collect()
}

#[test]
fn a_server_under_1_gib_answers_a_small_read_after_every_reply_attack() {
    // In memory: the subject is the server's memory and replies, not how fast a disk makes
    // 200,000 files.
    let sb = Sandbox::in_memory();
    sb.write("big.txt", &two_mb());
    sb.write("small.txt", "hello\n");
    let text = "alpha beta\n".repeat(190_000);
    for f in 0..40 {
        sb.write(&format!("dry/f{f:02}.txt"), &text);
    }
    // The slow cases: 100,000 edits of one long line, 1,000 one-character edits each
    // ambiguous on a 1 MB line.
    let tokens = 100_000;
    let long: String = (0..tokens).map(|i| format!("[{i}]")).collect();
    sb.write("one.txt", &format!("head\n{long}\ntail\n"));
    sb.write("ab.txt", &"ab".repeat(500_000));
    sb.write("dense.ts", &densest_source(false));
    sb.write("dense.py", &densest_source(true));
    let renames: Vec<Value> = (0..tokens)
        .map(|i| json!({"str_replace": {"old": format!("[{i}]"), "new": format!("({i})")}}))
        .collect();
    let ambiguous = vec![json!({"str_replace": {"old": "a", "new": "c"}}); 1000];
    Tree::new(TREE_FILES).write_old(&sb);
    // The tree's folders are d0 .. d1999, in the root: the attacks walk the root.
    let abs = |p: &str| sb.path(p).display().to_string();
    // As many as a read of many files takes (read_files takes at most 1,000).
    let many = vec!["big.txt"; 1000];
    let many_abs = vec![abs("big.txt"); 1000];
    let small = abs("small.txt");
    let tables: Vec<(&str, &str, Value, Vec<Attack>)> = vec![
        (
            "filekit",
            "read_files",
            json!({"files": [{"path": "small.txt"}]}),
            vec![
                attack(
                    "read_files",
                    json!({"files": many.iter().map(|p| json!({"path": p})).collect::<Vec<_>>()}),
                    "another call",
                ),
                attack("grep_files", json!({"pattern": "colour"}), ""),
                attack("find_files", json!({"pattern": "**/*.txt"}), ""),
                attack("list_dir", json!({"depth": 10}), ""),
                attack(
                    "edit_files",
                    json!({"files": [{"path": "one.txt", "edits": renames}]}),
                    "",
                ),
                attack(
                    "edit_files",
                    json!({"files": [{"path": "ab.txt", "edits": ambiguous}]}),
                    "matches 500000 times",
                ),
                attack(
                    "replace_in_files",
                    json!({"expression": "s/colour/color/", "files": "*.txt", "dry_run": true}),
                    "more file(s) not listed",
                ),
                attack(
                    "replace_in_files",
                    json!({"expression": "s/alpha/gamma/", "files": "*.txt", "directory": "dry", "dry_run": true}),
                    "not in this dry run's reply",
                ),
            ]
            .into_iter()
            .chain(dense_reads())
            .collect(),
        ),
        (
            "mcp-filesystem",
            "read_text_file",
            json!({"path": "small.txt"}),
            vec![
                attack(
                    "read_multiple_files",
                    json!({"paths": many}),
                    "another call",
                ),
                attack(
                    "directory_tree",
                    json!({"path": "."}),
                    "more entries not shown",
                ),
                attack(
                    "search_files",
                    json!({"path": ".", "pattern": "**/*.txt"}),
                    "more entries not shown",
                ),
            ],
        ),
        (
            "desktop-commander",
            "read_file",
            json!({"path": small}),
            vec![
                attack(
                    "read_multiple_files",
                    json!({"paths": many_abs}),
                    "another call",
                ),
                attack("list_directory", json!({"path": abs("."), "depth": 10}), ""),
            ],
        ),
        (
            "amazonq",
            "fs_read",
            json!({"operations": [{"mode": "Line", "path": small}]}),
            vec![
                attack(
                    "fs_read",
                    json!({"operations": [{"mode": "Line", "paths": many_abs}]}),
                    "another call",
                ),
                attack(
                    "fs_read",
                    json!({"operations": [{"mode": "Directory", "path": abs("."), "depth": 10}]}),
                    "",
                ),
                attack(
                    "fs_write",
                    json!({"command": "pattern_replace", "sed_pattern": "s/colour/color/", "file_pattern": "*.txt", "directory": abs("."), "recursive": true, "dry_run": true}),
                    "left out",
                ),
            ],
        ),
        (
            "claude",
            "Read",
            json!({"file_path": small}),
            vec![
                attack(
                    "Grep",
                    json!({"pattern": "colour", "path": abs("."), "output_mode": "content"}),
                    "",
                ),
                attack("Glob", json!({"pattern": "**/*.txt", "path": abs(".")}), ""),
                attack("LS", json!({"path": abs("d7")}), ""),
            ],
        ),
    ];
    let mut worst = 0;
    for (table, read_tool, read_args, attacks) in tables {
        let mut server = start(&sb, table);
        worst = worst.max(survive(&mut server, table, attacks, read_tool, &read_args));
    }
    eprintln!("peak resident memory of the servers: {worst} MiB");
    assert_eq!(sb.read("dry/f00.txt"), text, "a dry run wrote");
    let renamed: String = (0..tokens).map(|i| format!("({i})")).collect();
    assert_eq!(sb.read("one.txt"), format!("head\n{renamed}\ntail\n"));
    assert_eq!(
        sb.read("ab.txt"),
        "ab".repeat(500_000),
        "ambiguous edits wrote"
    );
}

/// A source file whose tree is as large as the parse cache keeps (a quarter of
/// `filekit_semantic::parse_cache::BUDGET_BYTES`, about 150,000 nodes): a function to read
/// by symbol, and an array of one-digit numbers, a node per byte (the most memory a tree
/// takes per byte of text). `n` makes each file's text its own.
fn dense_source(python: bool, n: usize) -> String {
    let numbers = (0..75_000)
        .map(|i| ((i + n) % 10).to_string())
        .collect::<Vec<_>>()
        .join(",");
    if python {
        format!("def pick_{n}(i):\n    return TABLE_{n}[i]\n\n\nTABLE_{n} = [{numbers}]\n")
    } else {
        format!(
            "export function pick_{n}(i: number): number {{\n    return table_{n}[i];\n}}\n\nexport const table_{n} = [{numbers}];\n"
        )
    }
}

/// The server's parse cache full, of the trees that take the most memory per byte, and then
/// the attacks that take the most memory of their own: the peak stays under the rule, and a
/// small read answers after each. The cache's charge for a tree is its nodes, so a workspace
/// of dense sources fills it sooner than its texts' length says, and no further.
#[test]
fn a_server_with_its_parse_cache_full_stays_under_the_peak_under_reply_attacks() {
    let sb = Sandbox::in_memory();
    sb.write("small.txt", "hello\n");
    sb.write("big.txt", &two_mb());
    let text = "alpha beta\n".repeat(190_000);
    for f in 0..40 {
        sb.write(&format!("dry/f{f:02}.txt"), &text);
    }
    let tokens = 100_000;
    let long: String = (0..tokens).map(|i| format!("[{i}]")).collect();
    sb.write("one.txt", &format!("head\n{long}\ntail\n"));
    let renames: Vec<Value> = (0..tokens)
        .map(|i| json!({"str_replace": {"old": format!("[{i}]"), "new": format!("({i})")}}))
        .collect();
    // Twice as many trees as the cache holds, of each language.
    let files = 8;
    for n in 0..files {
        sb.write(&format!("src/t{n}.ts"), &dense_source(false, n));
        sb.write(&format!("src/p{n}.py"), &dense_source(true, n));
    }
    sb.write("dense.ts", &densest_source(false));
    sb.write("dense.py", &densest_source(true));
    let mut server = start(&sb, "filekit");
    let small = || json!({"files": [{"path": "small.txt"}]});
    let read_symbol = |server: &mut McpStdio, file: String, symbol: String| {
        let began = Instant::now();
        let reply = server.call_tool("file_read", &json!({"file": file, "symbol": symbol}));
        let text = reply["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("[i]"),
            "{file} {symbol}: {}",
            &text[..text.len().min(2000)]
        );
        eprintln!(
            "file_read {file}: peak {} MiB after {:.2?}",
            server.peak_mib(),
            began.elapsed()
        );
    };
    // Each file twice: the second read of a kept tree is served from the cache.
    for _ in 0..2 {
        for n in 0..files {
            read_symbol(&mut server, format!("src/t{n}.ts"), format!("pick_{n}"));
            read_symbol(&mut server, format!("src/p{n}.py"), format!("pick_{n}"));
        }
    }
    let full = server.peak_mib();
    eprintln!("peak with the parse cache full: {full} MiB");
    assert!(
        full < MAX_PEAK_MIB,
        "the cache alone took the server to {full} MiB"
    );
    let attacks = vec![
        attack(
            "read_files",
            json!({"files": vec![json!({"path": "big.txt"}); 1000]}),
            "another call",
        ),
        attack(
            "edit_files",
            json!({"files": [{"path": "one.txt", "edits": renames}]}),
            "",
        ),
        attack(
            "replace_in_files",
            json!({"expression": "s/alpha/gamma/", "files": "*.txt", "directory": "dry", "dry_run": true}),
            "not in this dry run's reply",
        ),
    ]
    .into_iter()
    .chain(dense_reads())
    .collect();
    survive(&mut server, "filekit", attacks, "read_files", &small());
    // The kept trees still serve: the last files read answer again.
    read_symbol(
        &mut server,
        format!("src/p{}.py", files - 1),
        format!("pick_{}", files - 1),
    );
    assert!(server.alive(), "the server ended");
    assert_eq!(sb.read("dry/f00.txt"), text, "a dry run wrote");
}
