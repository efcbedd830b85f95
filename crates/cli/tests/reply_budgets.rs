//! What a curated reply costs the model, against what it says. A dry run's reply costs at most
//! 1.5 times the plain diff of its change (the unified diffs it shows): counts, paths and
//! version hashes beside the diff, never the change said twice. An apply says what changed
//! (files, counts, its history entry) and shows a long diff only when asked: the agent wrote
//! the edits, and saw the dry run's diff if it wanted one.

use crate::common::*;
use serde_json::{Value, json};

/// A small package: one module defines `compute_total`, three import and call it, and every
/// module rounds with `math.floor` in a dozen functions.
fn package(sb: &Sandbox) {
    let module = |name: &str, import: bool| {
        let mut text = String::from("import math\n");
        if import {
            text.push_str("\nfrom pkg.core import compute_total\n");
        }
        text.push_str("\nDEBUG = False\n");
        if !import {
            text.push_str("\n\ndef compute_total(values):\n    return math.floor(sum(values))\n");
        }
        for i in 0..12 {
            text.push_str(&format!(
                "\n\ndef {name}_step_{i}(values):\n    \"\"\"Step {i} of {name}.\"\"\"\n    total = compute_total(values)\n    return math.floor(total * {i})\n"
            ));
        }
        text
    };
    sb.write("pkg/__init__.py", "");
    sb.write("pkg/core.py", &module("core", false));
    for name in ["orders", "invoices", "reports"] {
        sb.write(&format!("pkg/{name}.py"), &module(name, true));
    }
}

/// Bytes of the reply's text content (what a client hands the model) and of its structured
/// content as compact JSON.
fn costs(result: &Value) -> (usize, usize) {
    let text = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .map(str::len)
                .sum()
        })
        .unwrap_or(0);
    (text, result["structuredContent"].to_string().len())
}

/// Every `diff` string in a reply, at any depth.
fn diffs(value: &Value, out: &mut String) {
    match value {
        Value::Object(obj) => {
            for (k, v) in obj {
                match (k.as_str(), v) {
                    ("diff", Value::String(d)) => out.push_str(d),
                    (_, v) => diffs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| diffs(v, out)),
        _ => {}
    }
}

fn serve(sb: &Sandbox) -> McpStdio {
    McpStdio::start(sb.command(&["serve", "--tools", "filekit"]))
}

#[test]
fn a_dry_run_costs_at_most_one_and_a_half_times_its_diff() {
    let sb = Sandbox::new();
    package(&sb);
    let mut mcp = serve(&sb);
    let dry_runs = [
        (
            "edit_files",
            json!({"files": [{"path": "pkg/invoices.py", "edits": [
                {"str_replace": {"old": "Step 0 of invoices", "new": "Step zero of invoices"}},
                {"str_replace": {"old": "Step 1 of invoices", "new": "Step one of invoices"}},
                {"str_replace": {"old": "Step 2 of invoices", "new": "Step two of invoices"}}]}],
                "options": {"dry_run": true}}),
        ),
        (
            "replace_in_files",
            json!({"expression": "s/math\\.floor/math.trunc/g", "files": "*.py", "dry_run": true}),
        ),
        (
            "file_edit",
            json!({"file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "compute_total",
                   "new_name": "sum_values", "dry_run": true}),
        ),
    ];
    let before = sb.snapshot();
    for (tool, args) in dry_runs {
        let result = mcp.call_tool(tool, &args);
        assert_ne!(result["isError"], true, "{tool}: {result}");
        let mut diff = String::new();
        diffs(&result["structuredContent"], &mut diff);
        assert!(diff.contains("\n+"), "{tool}: no diff in {result}");
        let (text, structured) = costs(&result);
        let bound = diff.len() * 3 / 2;
        assert!(
            text <= bound && structured <= bound,
            "{tool}: a dry run of a {}-byte diff costs {text} bytes of text and {structured} \
             of structured content (at most {bound}):\n{result}",
            diff.len()
        );
    }
    assert_eq!(sb.snapshot(), before, "a dry run wrote");
}

/// The rename applied says which files changed, how much, and its history entry; its long
/// diff (the dry run's) is not said again.
#[test]
fn an_apply_says_what_changed_without_its_long_diff() {
    let sb = Sandbox::new();
    package(&sb);
    let mut mcp = serve(&sb);
    let args = json!({"file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "compute_total",
                      "new_name": "sum_values"});
    let mut dry = args.clone();
    dry["dry_run"] = json!(true);
    let preview = mcp.call_tool("file_edit", &dry);
    let mut diff = String::new();
    diffs(&preview["structuredContent"], &mut diff);

    let applied = mcp.call_tool("file_edit", &args);
    assert_ne!(applied["isError"], true, "{applied}");
    let text = applied["content"][0]["text"].as_str().unwrap();
    for file in [
        "pkg/core.py",
        "pkg/orders.py",
        "pkg/invoices.py",
        "pkg/reports.py",
    ] {
        assert!(text.contains(file), "{file} not named: {text}");
    }
    assert!(text.contains("history_entry "), "{text}");
    assert!(!text.contains("@@"), "the diff said again: {text}");
    let (text_bytes, _) = costs(&applied);
    assert!(
        text_bytes * 10 < diff.len(),
        "an apply of a {}-byte change costs {text_bytes} bytes: {text}",
        diff.len()
    );
    assert!(sb.read("pkg/orders.py").contains("sum_values(values)"));
}
