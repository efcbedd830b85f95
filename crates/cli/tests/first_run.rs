//! The first minutes of a new user: help texts that say what the server really serves, the
//! tool tables' documentation pages, `replace`'s exit codes and counts.

use crate::common::Sandbox;
use std::collections::BTreeMap;

/// The tools of every table, as `filekit tools --json` lists them: table -> MCP names.
fn tables() -> BTreeMap<String, Vec<String>> {
    let sb = Sandbox::new();
    let run = sb.filekit(&["tools", "--json"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in run.json.as_array().unwrap() {
        out.entry(t["dialect"].as_str().unwrap().to_string())
            .or_default()
            .push(t["mcp_name"].as_str().unwrap().to_string());
    }
    assert!(out.len() >= 6, "{out:?}");
    out
}

#[test]
fn serve_help_lists_the_tools_each_table_serves() {
    let sb = Sandbox::new();
    let help = sb.filekit(&["serve", "--help"], None);
    assert_eq!(help.code, 0, "{}", help.stderr);
    let section = help
        .stdout
        .split("Tool tables (--tools")
        .nth(1)
        .expect("a tool tables section")
        .split("\n\n")
        .next()
        .unwrap();
    // Each table's line, then its tools' names on the lines indented under it.
    let mut listed: BTreeMap<String, String> = BTreeMap::new();
    let mut current = String::new();
    for line in section.lines().skip(1) {
        if let Some(rest) = line.strip_prefix("  ")
            && !rest.starts_with(' ')
        {
            current = rest.split_whitespace().next().unwrap().to_string();
            listed.insert(current.clone(), String::new());
        } else if !current.is_empty() {
            let names = listed.get_mut(&current).unwrap();
            names.push_str(line.trim());
            names.push(' ');
        }
    }
    let tables = tables();
    for (table, tools) in &tables {
        let names: Vec<String> = listed
            .get(table)
            .unwrap_or_else(|| panic!("serve --help does not list the table {table}:\n{section}"))
            .split(',')
            .map(|n| n.trim().to_string())
            .collect();
        assert_eq!(&names, tools, "serve --help's list of table {table}");
    }
    assert!(listed.contains_key("all"), "{section}");
    // Every table --tools accepts is in the help, and nothing else.
    let bad = sb.filekit(&["serve", "--tools", "nope"], None);
    let accepted = bad.stderr.split("(tables: ").nth(1).unwrap().trim_end();
    let accepted: Vec<&str> = accepted.trim_end_matches(')').split(", ").collect();
    let mut in_help: Vec<&str> = listed.keys().map(String::as_str).collect();
    in_help.sort_unstable();
    let mut accepted_sorted = accepted.clone();
    accepted_sorted.sort_unstable();
    assert_eq!(in_help, accepted_sorted, "{}", bad.stderr);
}
