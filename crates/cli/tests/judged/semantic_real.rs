//! Real files through the real tools: for one file per language and format (from registry
//! packages, see crates/semantic/tests/judged/real_files.rs for the exhaustive table), `file_read`
//! gives the outline, every target of one outline level is read with `file_read`, and one
//! `file_edit` call writes them all back with `replace`, through the one write pipeline. The
//! file must be byte-identical afterwards.

use crate::common;
use common::*;
use serde_json::json;
use std::path::PathBuf;

use filekit_testkit::{krate, need, repo, site_packages};

/// Copies `src` into a sandbox as `name`, writes every target of one outline level back
/// through `file_edit`, and checks the file is unchanged. Returns how many were written.
fn roundtrip(src: PathBuf, name: &str, target_arg: &str) -> usize {
    let original = std::fs::read_to_string(need(src)).unwrap();
    let sb = Sandbox::new();
    sb.write(name, &original);
    let run = sb.call("file_read", json!({"file": name, "format": "summary"}));
    assert_eq!(run.code, 0, "{name}: {}", run.stdout);
    let outline = run.json["outline"].as_array().unwrap().clone();
    // The shallowest level with several targets: targets of one level never overlap.
    let depth = (0..8)
        .find(|d| outline.iter().filter(|e| e["depth"] == *d).count() >= 3)
        .unwrap_or(0);
    let targets: Vec<String> = outline
        .iter()
        .filter(|e| e["depth"] == depth)
        .filter_map(|e| e["name"].as_str().map(String::from))
        .take(15)
        .collect();
    assert!(!targets.is_empty(), "{name}: empty outline");
    let mut edits = Vec::new();
    let mut taken: Vec<((u64, u64), (u64, u64))> = Vec::new();
    for t in &targets {
        let run = sb.call("file_read", json!({"file": name, target_arg: t}));
        // Two definitions of one path (a merged TypeScript interface) are named by line
        // range instead; the reply says so.
        if run.json["error_code"] == "AMBIGUOUS" {
            continue;
        }
        assert_eq!(run.code, 0, "{name} {t}: {}", run.stdout);
        // A target matching several things (a repeated CSS selector) is written back once
        // per match by one edit only when all matches read the same; skip those.
        if run.json.get("results").is_some() {
            continue;
        }
        // Rust's `impl X` blocks share the path of `struct X`: a name resolves to one of
        // them, so two entries may read the same text. Each text is written back once.
        let at = |k: &str| {
            let p = &run.json["range"][k];
            (p["line"].as_u64().unwrap(), p["column"].as_u64().unwrap())
        };
        let (start, end) = (at("start"), at("end"));
        if taken.iter().any(|(s, e)| start < *e && *s < end) {
            continue;
        }
        taken.push((start, end));
        edits.push(json!({"target": t, "operation": "replace", "content": run.json["content"]}));
    }
    let run = sb.call("file_edit", json!({"file": name, "edits": edits}));
    assert_eq!(run.code, 0, "{name}: {}", run.stdout);
    assert_eq!(
        run.json["total_edits"],
        edits.len(),
        "{name}: {}",
        run.stdout
    );
    assert!(
        sb.read(name) == original,
        "{name}: writing back {targets:?} changed the file"
    );
    edits.len()
}

#[test]
fn real_files_round_trip_through_file_edit() {
    let ts = repo().join(".test-deps/node_modules/typescript");
    let deb = repo().join(".test-deps/debian");
    let table: Vec<(PathBuf, &str, &str)> = vec![
        (ts.join("lib/lib.es5.d.ts"), "lib.es5.d.ts", "symbol"),
        (
            ts.join("lib/_typingsInstaller.js"),
            "typingsInstaller.js",
            "symbol",
        ),
        (
            site_packages().join("_pytest/python.py"),
            "python.py",
            "symbol",
        ),
        (krate("serde_json").join("src/de.rs"), "de.rs", "symbol"),
        (
            deb.join("root/usr/share/gocode/src/github.com/src-d/gcfg/read.go"),
            "read.go",
            "symbol",
        ),
        (deb.join("java/ArrayList.java"), "ArrayList.java", "symbol"),
        (
            krate("syn").join("src/gen/token.css"),
            "token.css",
            "selector",
        ),
        (ts.join("package.json"), "package.json", "path"),
        (
            krate("log").join(".github/workflows/main.yml"),
            "main.yml",
            "path",
        ),
        (
            deb.join("root/usr/share/doc/libxml2/html/catalog.html"),
            "catalog.html",
            "selector",
        ),
        (
            deb.join("root/usr/share/doc/libxml2/html/examples/examples.xml"),
            "examples.xml",
            "xpath",
        ),
        (
            krate("tokio").join("CHANGELOG.md"),
            "CHANGELOG.md",
            "heading",
        ),
    ];
    let mut total = 0;
    for (src, name, arg) in table {
        let n = roundtrip(src, name, arg);
        println!("{name}: {n} targets written back unchanged");
        total += n;
    }
    assert!(total > 100, "only {total} targets");
}
