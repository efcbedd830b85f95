//! Every shell example of README.md and docs/ runs as written, in a fresh copy of the example
//! project `examples/demo/` (the files the examples name), with `filekit` on PATH and a home
//! folder of its own. A block whose first line starts with `$ ` is a session: its other
//! lines are what the commands print, checked in order (times masked; `...` stands for lines
//! left out). A block that cannot run here is preceded by `<!-- not run: REASON -->`, and the
//! reason is checked to be given.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One fenced `sh` block of a document.
struct Block {
    doc: String,
    line: usize,
    lines: Vec<String>,
    not_run: Option<String>,
}

fn sh_blocks(doc: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(doc).unwrap();
    let name = doc
        .strip_prefix(filekit_testkit::repo())
        .unwrap_or(doc)
        .display()
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let not_run = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("<!-- not run:"))
            .map(|r| r.trim_end_matches("-->").trim().to_string());
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim_end() != "```" {
            end += 1;
        }
        blocks.push(Block {
            doc: name.clone(),
            line: start,
            lines: lines[start..end].iter().map(|l| l.to_string()).collect(),
            not_run,
        });
        i = end + 1;
    }
    blocks
}

/// The commands of a block with what each is shown to print (sessions only). A command
/// continues over lines while a quote is open or a line ends with `\`.
fn commands(block: &Block) -> Vec<(String, Vec<String>)> {
    let session = block.lines.first().is_some_and(|l| l.starts_with("$ "));
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut pending: Option<String> = None;
    for line in &block.lines {
        if let Some(p) = pending.as_mut() {
            p.push('\n');
            p.push_str(line);
        } else if session {
            match line.strip_prefix("$ ") {
                Some(cmd) => pending = Some(cmd.to_string()),
                None => {
                    if line.trim() != "..." {
                        out.last_mut()
                            .expect("a session starts with a command")
                            .1
                            .push(line.trim_end().to_string());
                    }
                    continue;
                }
            }
        } else if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        } else {
            pending = Some(line.to_string());
        }
        let cmd = pending.as_ref().unwrap();
        if !quote_open(cmd) && !cmd.trim_end().ends_with('\\') {
            out.push((pending.take().unwrap(), Vec::new()));
        }
    }
    assert!(
        pending.is_none(),
        "{}:{}: a command is not closed",
        block.doc,
        block.line
    );
    out
}

/// Whether a quote of `cmd` is still open at its end, as sh reads it (a `#` after a space,
/// outside quotes, starts a comment).
fn quote_open(cmd: &str) -> bool {
    let mut quote = None;
    let mut prev = ' ';
    for c in cmd.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => {
                // The comment runs to the end of its line: a later line may still continue.
                return false;
            }
            None => {}
        }
        prev = c;
    }
    quote.is_some()
}

/// Times (`2026-11-23T01:10:54Z`) vary from run to run.
fn mask_times(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let shape = b"dddd-dd-ddTdd:dd:ddZ";
    while i < b.len() {
        let fits = i + shape.len() <= b.len()
            && shape.iter().zip(&b[i..]).all(|(s, c)| match s {
                b'd' => c.is_ascii_digit(),
                s => s == c,
            });
        if fits {
            out.push_str("<time>");
            i += shape.len();
        } else {
            let ch = line[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn docs() -> Vec<PathBuf> {
    let repo = filekit_testkit::repo();
    let mut docs = vec![repo.join("README.md")];
    let mut stack = vec![repo.join("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                docs.push(p);
            }
        }
    }
    docs
}

#[test]
fn every_shell_example_of_the_documentation_runs() {
    let bin = Path::new(env!("CARGO_BIN_EXE_filekit")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let demo = filekit_testkit::repo().join("examples/demo");
    let mut ran = 0;
    for doc in docs() {
        for block in sh_blocks(&doc) {
            if let Some(reason) = &block.not_run {
                assert!(
                    reason.len() > 10,
                    "{}:{}: say why the example is not run",
                    block.doc,
                    block.line
                );
                continue;
            }
            let scratch = tempfile::tempdir().unwrap();
            let work = scratch.path().join("demo");
            let home = scratch.path().join("home");
            filekit_testkit::copy_dir(&demo, &work);
            std::fs::create_dir_all(home.join("src/app")).unwrap();
            for (cmd, shown) in commands(&block) {
                let mut run = Command::new("sh");
                run.args(["-c", &cmd])
                    .current_dir(&work)
                    .env("PATH", &path)
                    .env("HOME", &home)
                    .env("NO_COLOR", "1")
                    .env_remove("XDG_STATE_HOME")
                    .env_remove("XDG_CONFIG_HOME")
                    .env_remove("FILEKIT_HOLDER")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut child = run.spawn().unwrap();
                // An interactive review (`-i`) is answered "yes to all".
                let answers: &[u8] = if cmd.contains(" -i ") { b"A\n" } else { b"" };
                std::io::Write::write_all(&mut child.stdin.take().unwrap(), answers).unwrap();
                let out = child.wait_with_output().unwrap();
                let printed = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                let at = format!("{}:{}: `{cmd}`", block.doc, block.line);
                assert!(out.status.success(), "{at} failed:\n{printed}");
                let mut lines = printed.lines().map(|l| mask_times(l.trim_end()));
                for want in &shown {
                    let want = mask_times(want);
                    assert!(
                        lines.any(|l| l == want),
                        "{at}: the documentation shows the line\n{want}\nwhich is not (in this order) in what it printed:\n{printed}"
                    );
                }
                ran += 1;
            }
        }
    }
    assert!(
        ran >= 20,
        "only {ran} examples ran: the blocks were not found"
    );
}

/// The README's table of tool tables names every table the code has and every tool of each
/// (by its name or its MCP name), so that a tool added or renamed cannot go unmentioned.
#[test]
fn the_readme_names_every_table_and_tool() {
    let readme = std::fs::read_to_string(filekit_testkit::repo().join("README.md")).unwrap();
    let section = &readme[readme
        .find("\n## The tools\n")
        .expect("a section The tools")..];
    let mut rows = std::collections::BTreeMap::new();
    for line in section
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("## "))
    {
        let cells: Vec<&str> = line.split(" | ").collect();
        if !line.starts_with("| `") || cells.len() < 2 {
            continue;
        }
        let table = cells[0]
            .trim_start_matches("| ")
            .trim_matches('`')
            .to_string();
        let named: Vec<String> = cells[1]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        rows.insert(table, named);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let tools: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut missing = Vec::new();
    for t in &tools {
        let table = t["dialect"].as_str().unwrap();
        let Some(named) = rows.get(table) else {
            missing.push(format!("the table `{table}` has no row"));
            continue;
        };
        let name = t["name"].as_str().unwrap();
        let mcp = t["mcp_name"].as_str().unwrap();
        if !named.iter().any(|n| n == name || n == mcp) {
            missing.push(format!("`{table}` row lacks `{name}`"));
        }
    }
    missing.dedup();
    assert!(missing.is_empty(), "README.md's The tools: {missing:#?}");
}

/// docs/tables.md's figures are what `tools/list` of each table weighs now (whole KB), and it
/// has a row for every table.
#[test]
fn the_table_guide_states_what_each_table_costs() {
    let guide = std::fs::read_to_string(filekit_testkit::repo().join("docs/tables.md")).unwrap();
    let section = &guide[guide.find("| `--tools` | tools |").expect("the cost table")..];
    let root = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    let mut rows = std::collections::BTreeSet::new();
    for line in section.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let table = cells[1].trim_matches('`');
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
        cmd.arg("--root")
            .arg(root.path())
            .env("XDG_STATE_HOME", root.path().join("state"))
            .args(["serve", "--tools", table]);
        let mut session = crate::common::McpStdio::start(cmd);
        let list = session.request("tools/list", serde_json::json!({}));
        let tools = list["result"]["tools"].as_array().unwrap().clone();
        let full = serde_json::to_string(&tools).unwrap().len();
        let bare: Vec<serde_json::Value> = tools
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.as_object_mut().unwrap().remove("outputSchema");
                t
            })
            .collect();
        let bare = serde_json::to_string(&bare).unwrap().len();
        let kb = |n: usize| format!("{} KB", (n + 500) / 1000);
        let measured = [tools.len().to_string(), kb(bare), kb(full)];
        if cells[2..5] != measured {
            wrong.push(format!(
                "| `{table}` | {} | {} | {} |",
                measured[0], measured[1], measured[2]
            ));
        }
        rows.insert(table.to_string());
    }
    assert_eq!(rows, tables(), "docs/tables.md has a cost row per table");
    assert!(
        wrong.is_empty(),
        "docs/tables.md's costs are out of date; measured now:\n{}",
        wrong.join("\n")
    );
}

/// The tables the code serves, from `filekit tools --json`.
fn tables() -> std::collections::BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let tools: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    tools
        .iter()
        .map(|t| t["dialect"].as_str().unwrap().to_string())
        .collect()
}

/// The README's layout names every crate of the workspace, and the dialects crate's
/// description every table the code has: a crate or table added cannot go unmentioned.
#[test]
fn the_layout_names_every_crate_and_the_dialects_crate_every_table() {
    let repo = filekit_testkit::repo();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let start = readme.find("\n## Layout\n").expect("a section Layout");
    let layout = &readme[start..];
    let layout = &layout[..layout[1..].find("\n## ").map_or(layout.len(), |e| e + 1)];
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(repo.join("crates")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().join("Cargo.toml").is_file() {
            crates.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    assert!(crates.len() >= 10, "crates found: {crates:?}");
    for name in &crates {
        assert!(
            layout.contains(&format!("`crates/{name}`")),
            "README's Layout does not name crates/{name}"
        );
    }
    let manifest = std::fs::read_to_string(repo.join("crates/dialects/Cargo.toml")).unwrap();
    let description = manifest
        .lines()
        .find(|l| l.starts_with("description"))
        .expect("the dialects crate has a description");
    for table in tables() {
        assert!(
            description.contains(&table),
            "the dialects crate's description does not name the table {table}"
        );
    }
}

/// Every refactor kind the code has (the `refactor` argument's values of `file_edit`) is
/// named in the README's refactors section and in `filekit refactor --help`.
#[test]
fn the_readme_and_the_refactor_help_name_every_refactor_kind() {
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["tools", "--json", "--dialect", "filekit"])
        .output()
        .unwrap();
    let tools: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let file_edit = tools
        .iter()
        .find(|t| t["name"] == "file_edit")
        .expect("the filekit table has file_edit");
    let kinds: Vec<&str> = file_edit["input_schema"]["properties"]["refactor"]["enum"]
        .as_array()
        .expect("file_edit's refactor argument lists its kinds")
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert!(kinds.len() >= 13, "{kinds:?}");
    let readme = std::fs::read_to_string(filekit_testkit::repo().join("README.md")).unwrap();
    let start = readme.find("\n## Refactors").expect("a section Refactors");
    let section = &readme[start..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |e| e + 1)];
    let help = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["refactor", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for kind in kinds {
        assert!(
            section.contains(&format!("`{kind}`")),
            "README's Refactors section does not name {kind}"
        );
        assert!(
            help.contains(kind),
            "filekit refactor --help does not name {kind}"
        );
    }
}
