//! Bounded parsers, through the real `filekit` binary: files nested
//! past the bound are TOO_LARGE with the facts of the bound and files just under it work, in
//! every language and format; the Python and YAML scanners never see an indentation that
//! would make tree-sitter abort; YAML aliases and XML entities expand within a budget, in
//! bounded memory (each child's peak resident memory is measured); globs and queries that
//! nest too deep are refused before their parsers recurse. Every child runs under a deadline.

use crate::common;

use common::{Run, Sandbox};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The bound every tree and document is held to (`filekit_semantic::bounds::MAX_DEPTH`).
const MAX_DEPTH: u64 = 1000;

/// The most resident memory a child may take (the issue's bound for every process).
const MAX_RSS_KIB: u64 = 500 * 1024;

/// Runs `filekit --root <sandbox> ARGS` with `stdin`, killed after two minutes; returns what
/// it gave and its peak resident memory in KiB (`wait4`'s `ru_maxrss`).
// The child is reaped by `wait4` (which gives its resource usage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(sb: &Sandbox, args: &[&str], stdin: &str) -> (Run, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .current_dir(sb.root())
        .arg("--root")
        .arg(sb.root())
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run filekit");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + Duration::from_secs(120);
    let (status, rss) = loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our child, not yet reaped (std's handle never waited on it).
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(got >= 0, "wait4: {}", std::io::Error::last_os_error());
        if got == pid {
            break (status, usage.ru_maxrss as u64);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("filekit {args:?} ran past its two-minute deadline");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    writer.join().unwrap();
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let run = Run {
        code,
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    };
    (run, rss)
}

/// One tool call through `filekit call`.
fn call(sb: &Sandbox, tool: &str, args: Value) -> (Run, u64) {
    run(
        sb,
        &["call"],
        &json!({"tool": tool, "args": args}).to_string(),
    )
}

/// The call succeeded (and did not die).
fn ok(run: &Run, what: &str) {
    assert_eq!(
        run.code, 0,
        "{what}: exit code {}\nstdout: {}\nstderr: {}",
        run.code, run.stdout, run.stderr
    );
}

/// The call was refused with TOO_LARGE (exit code 1: a failed call, not a crash); its facts.
fn too_large(run: &Run, what: &str) -> Value {
    assert_eq!(
        run.code, 1,
        "{what}: exit code {}\nstdout: {}\nstderr: {}",
        run.code, run.stdout, run.stderr
    );
    let v = &run.json;
    let code = v.get("errorCode").or_else(|| v.get("error_code"));
    assert_eq!(code, Some(&json!("TOO_LARGE")), "{what}: {}", run.stdout);
    v["details"]["limit"].clone()
}

/// A construct of a language, nested `n` levels, and how it is targeted.
struct Deep {
    file: &'static str,
    make: fn(usize) -> String,
    target: (&'static str, &'static str),
}

fn deep_files() -> Vec<Deep> {
    fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }
    vec![
        Deep {
            file: "deep.ts",
            make: |n| format!("export const f = {};\n", nest("[", "", "]", n)),
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.tsx",
            make: |n| format!("export const f = {};\n", nest("<a>", "", "</a>", n)),
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.js",
            make: |n| {
                format!(
                    "export function f() {{ return {}; }}\n",
                    nest("(", "1", ")", n)
                )
            },
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.py",
            make: |n| {
                format!(
                    "import os\ndef f():\n    return {}\n",
                    nest("[", "os", "]", n)
                )
            },
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.rs",
            make: |n| format!("fn f() {{ let x = {}; }}\n", nest("[", "", "]", n)),
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.go",
            make: |n| {
                format!(
                    "package m\nfunc f() {{ x := {}; _ = x }}\n",
                    nest("(", "1", ")", n)
                )
            },
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.java",
            make: |n| format!("class f {{ int x = {}; }}\n", nest("(", "1", ")", n)),
            target: ("symbol", "f"),
        },
        Deep {
            file: "deep.css",
            make: |n| format!("a {}\n", nest("{ b ", "{ color: red; }", "}", n)),
            target: ("selector", "a"),
        },
        Deep {
            file: "deep.yaml",
            make: |n| format!("f: {}\n", nest("[", "", "]", n)),
            target: ("path", "$.f"),
        },
        Deep {
            file: "deep.html",
            make: |n| format!("<div id=\"f\">{}</div>\n", nest("<div>", "", "</div>", n)),
            target: ("selector", "#f"),
        },
        Deep {
            file: "deep.xml",
            make: |n| format!("<r><f>{}</f></r>\n", nest("<a>", "", "</a>", n)),
            target: ("xpath", "//f"),
        },
        Deep {
            file: "deep.json",
            make: |n| format!("{{\"f\": {}}}\n", nest("[", "", "]", n)),
            target: ("path", "$.f"),
        },
    ]
}

fn read_args(d: &Deep) -> Value {
    json!({"file": d.file, d.target.0: d.target.1})
}

/// The deepest nesting of `d` whose tree is within the bound, and the bound: found from the
/// depths the refusals of two deeper files report (a tree's depth grows by a fixed number
/// of levels per nesting, and has a fixed base).
fn just_under(sb: &Sandbox, d: &Deep) -> (usize, u64) {
    let mut facts = Vec::new();
    for n in [3000, 3100] {
        sb.write(d.file, &(d.make)(n));
        let (r, _) = call(sb, "file_read", read_args(d));
        let limit = too_large(&r, &format!("{} nested {n}", d.file));
        assert_eq!(limit["kind"], "nesting", "{}: {limit}", d.file);
        facts.push((
            limit["found"].as_u64().unwrap(),
            limit["max"].as_u64().unwrap(),
        ));
    }
    let per = (facts[1].0 - facts[0].0) / 100;
    assert!(per >= 1, "{}: {facts:?}", d.file);
    let base = facts[0].0 - per * 3000;
    let max = facts[0].1;
    (((max - base) / per) as usize, max)
}

#[test]
fn deep_files_are_refused_past_the_bound_and_read_just_under_it() {
    let sb = Sandbox::new();
    for d in deep_files() {
        let (n, max) = just_under(&sb, &d);
        let expected = if d.file.ends_with(".json") {
            512
        } else {
            MAX_DEPTH
        };
        assert_eq!(max, expected, "{}", d.file);
        // Just under the bound: the read, the outline and an edit of it work.
        sb.write(d.file, &(d.make)(n));
        let (r, _) = call(&sb, "file_read", read_args(&d));
        ok(&r, &format!("{} nested {n}, just under the bound", d.file));
        let (r, _) = call(
            &sb,
            "file_read",
            json!({"file": d.file, "format": "summary"}),
        );
        ok(&r, &format!("{} outline", d.file));
        let (r, _) = call(
            &sb,
            "file_edit",
            json!({"file": d.file, "target": d.target.1, "operation": "insert_before",
                   "content": if d.file.ends_with(".py") || d.file.ends_with(".yaml") { "" } else { " " },
                   "dry_run": true}),
        );
        assert!(
            r.code == 0 || !r.stdout.contains("TOO_LARGE"),
            "{}: an edit just under the bound: {}",
            d.file,
            r.stdout
        );
        // One step deeper: refused, naming the depth and the bound; the file is untouched.
        let deeper = (d.make)(n + 1);
        sb.write(d.file, &deeper);
        let (r, _) = call(&sb, "file_read", read_args(&d));
        let limit = too_large(&r, &format!("{} nested {}", d.file, n + 1));
        assert!(
            limit["found"].as_u64().unwrap() > max,
            "{}: {limit}",
            d.file
        );
        assert_eq!(limit["unit"], "levels");
        assert!(r.stdout.contains("line range"), "{}: {}", d.file, r.stdout);
        assert_eq!(sb.read(d.file), deeper);
    }
}

#[test]
fn refactors_just_under_the_bound_work_and_past_it_are_refused() {
    let sb = Sandbox::new();
    for d in deep_files()
        .into_iter()
        .filter(|d| d.file.ends_with(".ts") || d.file.ends_with(".py"))
    {
        let (n, _) = just_under(&sb, &d);
        for (nesting, refused) in [(n, false), (n + 1, true)] {
            sb.write(d.file, &(d.make)(nesting));
            for refactor in [
                json!({"refactor": "rename_symbol", "symbol": "f", "new_name": "g", "dry_run": true}),
                json!({"refactor": "organize_imports", "dry_run": true}),
                json!({"refactor": "remove_unused_imports", "dry_run": true}),
            ] {
                let mut args = refactor.clone();
                args["file"] = json!(d.file);
                let (r, _) = call(&sb, "file_edit", args);
                let what = format!("{} nested {nesting}: {refactor}", d.file);
                if refused {
                    assert_eq!(too_large(&r, &what)["kind"], "nesting");
                } else {
                    assert!(
                        r.code <= 1 && !r.stdout.contains("TOO_LARGE") && !r.json.is_null(),
                        "{what}: {}\n{}",
                        r.stdout,
                        r.stderr
                    );
                }
            }
        }
    }
}

/// What one parse may build (`filekit_semantic::bounds::MAX_SYNTAX_TREE_BYTES`).
const MAX_SYNTAX_TREE: u64 = 128 << 20;

/// A source file of about `size` bytes whose tree is the densest a text makes, a node per
/// byte: a function to read by symbol, then an array of one-digit numbers.
fn dense_source(python: bool, size: usize) -> String {
    let numbers: String = (0..size / 2).map(|i| ["1,", "2,", "3,"][i % 3]).collect();
    if python {
        format!("def pick(i):\n    return TABLE[i]\n\n\nTABLE = [{numbers}0]\n")
    } else {
        format!(
            "export function pick(i: number) {{\n    return table[i];\n}}\n\nexport const table = [{numbers}0];\n"
        )
    }
}

/// About `size` bytes of ordinary TypeScript: classes with typed fields, methods, loops,
/// template strings and comments, each class its own.
fn ordinary_typescript(size: usize) -> String {
    let mut text = String::from("import { readFile } from \"node:fs/promises\";\n\n");
    let mut n = 0;
    while text.len() < size {
        text += &format!(
            r#"/** Keeps the orders of one customer and what they cost. */
export class Ledger{n} {{
    private readonly entries: Map<string, number> = new Map();
    constructor(public readonly owner: string, private limit = {n}) {{}}

    add(name: string, amount: number): boolean {{
        if (amount <= 0 || this.entries.size >= this.limit) {{
            return false;
        }}
        const before = this.entries.get(name) ?? 0;
        this.entries.set(name, before + amount * 1.2);
        return true;
    }}

    total(): number {{
        let sum = 0;
        for (const [, value] of this.entries) {{
            sum += value;
        }}
        return Math.round(sum * 100) / 100;
    }}

    async load(path: string): Promise<string[]> {{
        const text = await readFile(path, "utf8");
        return text.split("\n").filter((line) => line.trim().length > 0).map((line) => `${{this.owner}}: ${{line}}`);
    }}
}}

"#
        );
        n += 1;
    }
    text
}

/// A file under the size bound whose tree would still be enormous (a node per byte: about
/// 400 MB for 2 MB) is refused before its parse passes what one parse may build, saying what
/// was too large and to read it by line range, with the process's memory bounded; ordinary
/// code of the same size reads. Through the curated table's `file_read` and `filekit read`.
#[test]
fn a_dense_file_is_refused_before_its_tree_passes_the_budget_and_ordinary_code_reads() {
    let sb = Sandbox::new();
    let size = 2_000_000;
    sb.write("dense.ts", &dense_source(false, size));
    sb.write("dense.py", &dense_source(true, size));
    let (ts, ts_rss) = call(
        &sb,
        "file_read",
        json!({"file": "dense.ts", "symbol": "pick"}),
    );
    let limit = too_large(&ts, "dense.ts");
    let (py, py_rss) = run(&sb, &["read", "dense.py", "--symbol", "pick"], "");
    let message = ts.json["error"].as_str().unwrap_or_default();
    for (file, message, rss) in [
        ("dense.ts", message, ts_rss),
        ("dense.py", &py.stderr, py_rss),
    ] {
        assert!(
            message.contains("syntax tree of this") && message.contains("line range"),
            "{file}: {message}"
        );
        // The budget and the rest of the process: measured 184 MiB alone, and beside the other
        // tests under load once 251 MiB and once over 288 MiB (not understood: tree-sitter
        // allocates through the C library's malloc, whose arenas and trimming vary with the
        // threads' timing, and the count is of live bytes, not of pages touched); the
        // unbounded parse took 531 MiB, which this still fails.
        assert!(
            rss < (MAX_SYNTAX_TREE >> 10) + 256 * 1024,
            "{file}: the refused parse took the process to {} MiB",
            rss >> 10
        );
    }
    assert_eq!(py.code, 1, "{}{}", py.stdout, py.stderr);
    assert_eq!(limit["kind"], "syntax_tree", "{}", ts.stdout);
    assert_eq!(
        limit["max"].as_u64(),
        Some(MAX_SYNTAX_TREE),
        "{}",
        ts.stdout
    );
    assert!(
        limit["found"].as_u64().unwrap() > MAX_SYNTAX_TREE,
        "{limit}"
    );
    let code = ordinary_typescript(size);
    let last = code.matches("export class").count() - 1;
    sb.write("ordinary.ts", &code);
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "ordinary.ts", "symbol": format!("Ledger{last}.total")}),
    );
    ok(&r, "2 MB of ordinary TypeScript");
    assert!(r.stdout.contains("Math.round"), "{}", r.stdout);
}

#[test]
fn indentation_that_would_overflow_the_scanners_is_refused_before_parsing() {
    let sb = Sandbox::new();
    // Python: 600 indentation widths and a string (tree-sitter aborted the process).
    let defs = |n: usize| -> String {
        (0..n)
            .map(|i| format!("{}def f():\n", " ".repeat(i)))
            .collect::<String>()
            + &format!("{}return \"s\"\n", " ".repeat(n))
    };
    sb.write("indent.py", &defs(600));
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "indent.py", "symbol": "f"}),
    );
    let limit = too_large(&r, "600 indentation widths");
    assert_eq!(
        (limit["found"].as_u64(), limit["max"].as_u64()),
        (Some(600), Some(300))
    );
    sb.write("indent.py", &defs(300));
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "indent.py", "symbol": "f"}),
    );
    ok(&r, "300 indentation widths");
    // YAML: block sequences nested in block mappings, two levels per column.
    let blocks = |n: usize| -> String {
        "f:\n".to_string()
            + &(0..n)
                .map(|i| format!("{}- k:\n", "  ".repeat(i)))
                .collect::<String>()
            + &format!("{}- 1\n", "  ".repeat(n))
    };
    // (1,000 blocks: a 1 MB file; 3,000 would pass the size bound before the scanner's.)
    for (n, refused) in [(118, false), (119, true), (1000, true)] {
        sb.write("blocks.yaml", &blocks(n));
        let (r, _) = call(
            &sb,
            "file_read",
            json!({"file": "blocks.yaml", "path": "$.f"}),
        );
        if refused {
            assert_eq!(too_large(&r, &format!("{n} YAML blocks"))["max"], 120);
        } else {
            ok(&r, &format!("{n} YAML blocks"));
        }
    }
}

#[test]
fn yaml_aliases_expand_within_a_budget_in_bounded_memory() {
    let sb = Sandbox::new();
    // Ten lines, 10^9 nodes.
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (p, n) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        bomb.push_str(&format!(
            "{n}: &{n} [{}]\n",
            vec![format!("*{p}"); 10].join(", ")
        ));
    }
    sb.write("bomb.yaml", &bomb);
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "bomb.yaml", "path": "$.i"}),
    );
    let limit = too_large(&r, "the billion laughs");
    assert_eq!(limit["kind"], "expansion");
    assert_eq!(limit["max"], 200_000);
    assert!(rss < MAX_RSS_KIB, "the alias bomb took {rss} KiB");
    eprintln!("YAML alias bomb: peak RSS {} MiB", rss / 1024);
    // Few nodes, much text: a 200 KB string copied a hundred times.
    let big = "y".repeat(200_000);
    sb.write(
        "text.yaml",
        &format!(
            "a: &a \"{big}\"\nb: &b [{}]\nc: [{}]\n",
            ["*a"; 10].join(", "),
            ["*b"; 10].join(", ")
        ),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "text.yaml", "path": "$.c"}),
    );
    assert_eq!(too_large(&r, "a text bomb")["kind"], "expanded_text");
    assert!(rss < MAX_RSS_KIB, "the text bomb took {rss} KiB");
    // Aliases within the budget are values like any other (the last anchor before them).
    sb.write(
        "ok.yaml",
        "base: &b {x: 1}\ncopy: *b\nbase2: &b {x: 2}\nlater: *b\n",
    );
    let (r, _) = call(&sb, "file_read", json!({"file": "ok.yaml", "path": "$..x"}));
    ok(&r, "aliases within the budget");
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "ok.yaml", "path": "$.base2.x"}),
    );
    ok(&r, "an anchor's own value");
    assert_eq!(r.json["content"], "2");
}

#[test]
fn xml_depth_and_entities_are_bounded_in_memory() {
    let sb = Sandbox::new();
    let n = 100_000;
    sb.write(
        "deep.xml",
        &format!("<r>{}{}</r>\n", "<a>".repeat(n), "</a>".repeat(n)),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "deep.xml", "xpath": "//a"}),
    );
    let limit = too_large(&r, "100,000 levels of XML");
    assert_eq!(
        (limit["kind"].as_str(), limit["found"].as_u64()),
        (Some("nesting"), Some(100_001))
    );
    assert!(rss < MAX_RSS_KIB, "the deep XML took {rss} KiB");
    eprintln!("XML 100,000 deep: peak RSS {} MiB", rss / 1024);
    // One 1 MB entity referenced a thousand times: a gigabyte of text.
    let entity = "x".repeat(1_000_000);
    sb.write(
        "entities.xml",
        &format!(
            "<!DOCTYPE r [<!ENTITY e \"{entity}\">]><r><f>{}</f></r>",
            "&e;".repeat(1000)
        ),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "entities.xml", "format": "summary"}),
    );
    let limit = too_large(&r, "an entity bomb");
    assert_eq!(limit["kind"], "expanded_text");
    assert!(rss < MAX_RSS_KIB, "the entity bomb took {rss} KiB");
    eprintln!("XML entity bomb: peak RSS {} MiB", rss / 1024);
    // Entities used as they are meant to be: read.
    sb.write(
        "ok.xml",
        "<!DOCTYPE r [<!ENTITY co \"Example Corp\">]><r><name>&co;</name><by>&co;</by></r>",
    );
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "ok.xml", "format": "summary"}),
    );
    ok(&r, "a few entity references");
}

#[test]
fn wide_and_deep_documents_are_bounded_in_what_one_read_returns() {
    let sb = Sandbox::new();
    // 500 levels, then 100,000 values at the bottom: every match's path is 500 steps.
    let wide = vec!["1"; 100_000].join(",");
    sb.write(
        "wide.json",
        &format!("{}{wide}{}\n", "[".repeat(500), "]".repeat(500)),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "wide.json", "path": "$..*"}),
    );
    let limit = too_large(&r, "$..* of a deep and wide JSON");
    assert_eq!(limit["kind"], "targets");
    assert!(rss < MAX_RSS_KIB, "took {rss} KiB");
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "wide.json", "path": "$[0][0][0]"}),
    );
    ok(&r, "one target of it");
    // Nested targets repeat what they hold: `div` names every level's subtree, 900 copies of
    // 42 KB of `<i></i>`, past the 32 MiB a read returns. (More would only cost time: the HTML
    // scanner reads its stack of 900 open tags at every token.)
    let body = "<i></i>".repeat(6_000);
    sb.write(
        "nested.html",
        &format!("{}{body}{}\n", "<div>".repeat(900), "</div>".repeat(900)),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "nested.html", "selector": "div"}),
    );
    let limit = too_large(&r, "div of nested divs");
    assert_eq!(limit["kind"], "result_size");
    assert!(rss < MAX_RSS_KIB, "took {rss} KiB");
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "nested.html", "selector": "div > i:nth-child(3)"}),
    );
    ok(&r, "one element of it");
    assert_eq!(r.json["content"], "<i></i>");
    // An XML outline of deep paths.
    let leaves = "<b/>".repeat(50_000);
    sb.write(
        "wide.xml",
        &format!(
            "<r>{}{leaves}{}</r>\n",
            "<a>".repeat(900),
            "</a>".repeat(900)
        ),
    );
    let (r, rss) = call(
        &sb,
        "file_read",
        json!({"file": "wide.xml", "format": "summary"}),
    );
    assert_eq!(
        too_large(&r, "an outline of deep paths")["kind"],
        "result_size"
    );
    assert!(rss < MAX_RSS_KIB, "took {rss} KiB");
}

#[test]
fn globs_of_nested_braces_are_refused_not_a_panic() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let braces = |n: usize| format!("{}b{}", "{a,".repeat(n), "}".repeat(n));
    // The exact panic case (150 levels: `filekit call` exited 101), and far past it.
    for n in [150, 100_000] {
        let (r, _) = call(&sb, "Glob", json!({"pattern": braces(n)}));
        assert_eq!(
            r.code, 1,
            "Glob of {n} nested braces: {}\n{}",
            r.stdout, r.stderr
        );
        assert!(
            r.stdout
                .contains(&format!("nests {{a,b}} alternatives {n} levels deep")),
            "{}",
            r.stdout
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    let (r, _) = run(&sb, &["glob", &braces(150)], "");
    assert_eq!(
        r.code, 2,
        "filekit glob (a bad request): {}\n{}",
        r.stdout, r.stderr
    );
    assert!(r.stderr.contains("TOO_LARGE"), "{}", r.stderr);
    // The other places a glob is given.
    let (r, _) = call(&sb, "Grep", json!({"pattern": "x", "glob": braces(150)}));
    assert!(r.stdout.contains("150 levels deep"), "Grep: {}", r.stdout);
    let (r, _) = call(&sb, "LS", json!({"path": ".", "ignore": [braces(150)]}));
    assert!(r.stdout.contains("150 levels deep"), "LS: {}", r.stdout);
    let (r, _) = call(
        &sb,
        "replace_in_files",
        json!({"expression": "s/x/y/", "directory": ".", "files": braces(150)}),
    );
    assert!(
        r.stdout.contains("150 levels deep"),
        "replace_in_files: {}",
        r.stdout
    );
    assert_eq!(sb.read("a.txt"), "x\n");
    // Ten levels, and real patterns, are globs as before.
    let (r, _) = call(
        &sb,
        "Glob",
        json!({"pattern": format!("{{{},*.txt}}", braces(9))}),
    );
    ok(&r, "ten levels");
    assert!(r.stdout.contains("a.txt"), "{}", r.stdout);
}

#[test]
fn queries_nesting_too_deep_are_refused_before_their_parsers_recurse() {
    let sb = Sandbox::new();
    sb.write("q.xml", "<r><a/></r>\n")
        .write("q.json", "{\"a\": 1}\n")
        .write("q.html", "<div><p>x</p></div>\n");
    let n = 40;
    let cases = [
        json!({"file": "q.xml", "xpath": format!("{}//a{}", "(".repeat(n), ")".repeat(n))}),
        json!({"file": "q.json", "path": format!("$[?{}@.a{}]", "(".repeat(n), ")".repeat(n))}),
        json!({"file": "q.html", "selector": format!("{}x{}", ":not(".repeat(n), ")".repeat(n))}),
    ];
    for args in cases {
        let (r, _) = call(&sb, "file_read", args.clone());
        let limit = too_large(&r, &args.to_string());
        assert_eq!(
            (limit["kind"].as_str(), limit["max"].as_u64()),
            (Some("pattern"), Some(32))
        );
    }
    // 100,000 nested parentheses overflowed any stack: now a refusal by length.
    let long = format!("{}//a{}", "(".repeat(100_000), ")".repeat(100_000));
    let (r, _) = call(&sb, "file_read", json!({"file": "q.xml", "xpath": long}));
    assert_eq!(too_large(&r, "a 200 KB XPath")["kind"], "request_size");
    let (r, _) = call(
        &sb,
        "file_read",
        json!({"file": "q.xml", "xpath": "((//a))"}),
    );
    ok(&r, "a query within the bounds");
}
