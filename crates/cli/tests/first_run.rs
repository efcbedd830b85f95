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
fn serve_help_says_what_of_desktop_commander_is_out_of_scope() {
    let sb = Sandbox::new();
    let help = sb.filekit(&["serve", "--help"], None);
    assert_eq!(help.code, 0, "{}", help.stderr);
    let text = help.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(
            "Desktop Commander's process, terminal and search-session tools (start_process, \
             interact_with_process, start_search, ...) are out of scope"
        ),
        "{}",
        help.stdout
    );
    // Its file tools are served.
    let tools = &tables()["desktop-commander"];
    for name in ["read_file", "write_file", "list_directory", "get_file_info"] {
        assert!(tools.iter().any(|t| t == name), "{tools:?}");
    }
    assert!(!tools.iter().any(|t| t == "start_process"), "{tools:?}");
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

/// The README's rule: 2 is a bad request (nothing attempted), 1 the operation ran and found
/// or did nothing to do it on (as grep and rg exit 1 when nothing matched) or failed.
#[test]
fn replace_exits_1_when_no_file_matches_and_2_for_a_bad_request() {
    let sb = Sandbox::new();
    sb.write("src/a.js", "const a = 1;\n");
    let before = sb.snapshot();
    for args in [
        &["replace", "s/a/b/", "src", "--glob", "*.py"][..],
        &["replace", "s/a/b/", "src", "--glob", "*.py", "--json"][..],
        &["replace", "s/a/b/", "src", "--glob", "*.py", "--dry-run"][..],
        &["replace", "-i", "s/a/b/", "src", "--glob", "*.py"][..],
    ] {
        let run = sb.filekit(args, None);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("no files matched"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("*.py"), "{args:?}: {}", run.stderr);
    }
    for (args, needle) in [
        (&["replace", "s/a/b/", "no/such/dir"][..], "does not exist"),
        (
            &["replace", "-i", "s/a/b/", "no/such/dir"][..],
            "does not exist",
        ),
        (&["replace", "s/a/b/x", "src"][..], "unknown flag"),
        (&["replace", "s/a/b/", "src", "--glob", "{a"][..], "glob"),
    ] {
        let run = sb.filekit(args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
    // Files matched, the pattern did not: done, nothing to do.
    let run = sb.filekit(&["replace", "s/zzz/b/", "src"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn replace_review_counts_every_change_when_standard_input_ends() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\nx\n").write("b.txt", "x\n");
    // No answer at all: three changes were found, none accepted.
    let before = sb.snapshot();
    let run = sb.filekit(&["replace", "-i", "s/x/y/", "."], Some(""));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "0 of 3 change(s) accepted; nothing written (standard input ended after 0 answer(s)"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());
    // One yes, then the end: one written, the count still of three.
    let run = sb.filekit(&["replace", "-i", "s/x/y/", "."], Some("y\n"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "1 of 3 change(s) accepted in 1 file(s) (standard input ended after 1 answer(s)"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("a.txt") + &sb.read("b.txt"), "y\nx\nx\n");
    // q is an answer that stops: said so, with the same count.
    let run = sb.filekit(&["replace", "-i", "s/x/y/", "."], Some("n\nq\n"));
    assert!(
        run.stdout.contains(
            "0 of 2 change(s) accepted; nothing written (review stopped after 1 answer(s))"
        ),
        "{}",
        run.stdout
    );
}

/// docs/tools/TABLE.md is what `filekit tools --markdown --dialect TABLE` generates from the
/// table: a change to a tool's description or schema that is not in the page fails here.
#[test]
fn the_tool_tables_pages_are_what_the_tables_generate() {
    let sb = Sandbox::new();
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools");
    let tables = tables();
    for (table, tools) in &tables {
        let run = sb.filekit(&["tools", "--markdown", "--dialect", table], None);
        assert_eq!(run.code, 0, "{table}: {}", run.stderr);
        let page = &run.stdout;
        // The page documents every tool of the table, by name, with its arguments.
        for tool in tools {
            assert!(page.contains(&format!("| `{tool}` |")), "{table}: {tool}");
        }
        assert_eq!(
            page.matches("\n## ").count(),
            tools.len(),
            "{table}: one section per tool"
        );
        assert!(page.contains("**Takes**") && page.contains("**Returns**"));
        let file = docs.join(format!("{table}.md"));
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            committed == *page,
            "{} is not what the table generates: run\n  \
             cargo run -p filekit -- tools --markdown --dialect {table} > docs/tools/{table}.md",
            file.display()
        );
    }
    // No page of a table that is gone.
    for entry in std::fs::read_dir(&docs).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let table = name.strip_suffix(".md").unwrap_or(&name);
        assert!(
            tables.contains_key(table),
            "docs/tools/{name}: no such table"
        );
    }
}

/// `scripts/setup-test-deps` on a machine without its prerequisites: one message per missing
/// tool, and it stops before installing anything.
#[test]
fn setup_test_deps_names_each_missing_prerequisite_first() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // A PATH with only what the script's own first lines use.
    let bin = tempfile::tempdir().unwrap();
    for tool in ["bash", "env", "dirname", "cat"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| std::path::Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{tool} not found"));
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    let out = std::process::Command::new(bin.path().join("bash"))
        .arg(repo.join("scripts/setup-test-deps"))
        .env_clear()
        .env("PATH", bin.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for tool in [
        "`cargo`",
        "a C compiler",
        "`python3`",
        "`node`",
        "`npm`",
        "`tar`",
        "`apt-get`",
        "`dpkg-deb`",
    ] {
        let line = stderr
            .lines()
            .find(|l| l.contains(&format!("missing {tool}")))
            .unwrap_or_else(|| panic!("no message for {tool}:\n{stderr}"));
        assert!(line.contains("Install it:"), "{line}");
    }
    assert!(stderr.contains("nothing was installed"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
