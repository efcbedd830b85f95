//! `filekit setup <client>`: each client's configuration parses in the client's documented
//! format with the keys it reads, and the command and arguments it names start the server
//! (initialize over stdio, then the chosen table's tools); `--write` merges into an existing
//! file without losing its other entries, atomically, with a backup, and refuses a file it
//! cannot read as the client's format without touching it.

use crate::common::Sandbox;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

const SERVER_TIMEOUT: Duration = Duration::from_secs(120);
const CLAUDE_TOOLS: [&str; 7] = ["Read", "Write", "Edit", "MultiEdit", "LS", "Glob", "Grep"];

fn real(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// `filekit --root <sandbox> setup ARGS` with HOME (and the clients' folders) in the sandbox.
fn setup(sb: &Sandbox, args: &[&str]) -> crate::common::Run {
    let home = sb.path("home");
    std::fs::create_dir_all(&home).unwrap();
    let home = home.to_string_lossy().into_owned();
    let mut all = vec!["setup"];
    all.extend_from_slice(args);
    sb.filekit_env(
        &all,
        None,
        &[
            ("HOME", &home),
            ("XDG_CONFIG_HOME", &format!("{home}/.config")),
            ("CODEX_HOME", &format!("{home}/.codex")),
        ],
    )
}

/// The `command` and `args` of the server `name` in a client's file, read as the client reads
/// it: JSON with `servers_key`, or Codex's TOML `[mcp_servers.NAME]`.
fn server_in(text: &str, format: &str, name: &str) -> (String, Vec<String>, Value) {
    if format == "toml" {
        let doc: toml_edit::DocumentMut = text.parse().expect("the config is valid TOML");
        let server = doc["mcp_servers"][name]
            .as_table_like()
            .unwrap_or_else(|| panic!("no [mcp_servers.{name}] table in:\n{text}"));
        let command = server.get("command").and_then(|c| c.as_str()).unwrap();
        let args = server.get("args").and_then(|a| a.as_array()).unwrap();
        let args = args
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        return (command.to_string(), args, Value::Null);
    }
    let doc: Value = serde_json::from_str(text).expect("the config is valid JSON");
    let key = if doc.get("servers").is_some() {
        "servers"
    } else {
        "mcpServers"
    };
    let server = doc[key][name].clone();
    let command = server["command"].as_str().expect("command").to_string();
    let args = server["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("args are strings").to_string())
        .collect();
    (command, args, server)
}

/// Starts `command args` as a client would (stdio, its own environment), sends initialize and
/// tools/list, and returns the server's name and the tools it serves.
fn start_server(sb: &Sandbox, command: &str, args: &[String]) -> (Value, Vec<String>) {
    let mut child = Command::new(command)
        .args(args)
        .current_dir("/")
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{command} {args:?} does not start: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, msg: Value| {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    };
    let answer = |id: u64, method: &str| -> Value {
        loop {
            let line = lines
                .recv_timeout(SERVER_TIMEOUT)
                .unwrap_or_else(|_| panic!("{command} {args:?}: no answer to {method}"));
            let reply: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "setup-test", "version": "1"}}}),
    );
    let init = answer(1, "initialize");
    let info = init["result"]["serverInfo"].clone();
    assert!(info.is_object(), "initialize: {init}");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    );
    let list = answer(2, "tools/list");
    let tools = list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list: {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    (info, tools)
}

/// Splits a POSIX shell line into words (plain words and single quotes, as `setup` quotes).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            ' ' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[test]
fn each_clients_config_parses_in_its_format_and_starts_the_server() {
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\n");
    let exe = real(Path::new(env!("CARGO_BIN_EXE_filekit")));
    let root = real(sb.root());
    for (client, format, key) in [
        ("claude-code", "json", "mcpServers"),
        ("claude-desktop", "json", "mcpServers"),
        ("vscode", "json", "servers"),
        ("cursor", "json", "mcpServers"),
        ("codex", "toml", "mcp_servers"),
    ] {
        let run = setup(&sb, &[client, "--tools", "claude", "--json"]);
        assert_eq!(run.code, 0, "{client}: {}", run.stderr);
        assert_eq!(run.json["format"], format, "{client}");
        let text = run.json["config"].as_str().unwrap();
        assert!(text.contains(key), "{client}: no {key} in\n{text}");
        let (command, args, entry) = server_in(text, format, "filekit");
        assert_eq!(
            command, exe,
            "{client}: the command is this binary's absolute path"
        );
        assert_eq!(
            args,
            ["serve", "--root", &root, "--tools", "claude"],
            "{client}"
        );
        if client == "vscode" {
            assert_eq!(entry["type"], "stdio", "VS Code needs type stdio: {entry}");
        }
        let (info, tools) = start_server(&sb, &command, &args);
        assert_eq!(tools, CLAUDE_TOOLS, "{client}: served {info}");

        // The text output (what a user copies) holds the same document.
        let run = setup(&sb, &[client, "--tools", "claude"]);
        assert_eq!(run.code, 0, "{client}: {}", run.stderr);
        assert!(run.stdout.contains(text), "{client}:\n{}", run.stdout);
    }
}

#[test]
fn claude_code_gets_a_claude_mcp_add_line_that_starts_the_server() {
    let sb = Sandbox::new();
    let dir = sb.path("my project");
    std::fs::create_dir_all(&dir).unwrap();
    let dir_s = dir.to_string_lossy().into_owned();
    let run = setup(
        &sb,
        &[
            "--root",
            &dir_s,
            "claude-code",
            "--tools",
            "claude",
            "--scope",
            "user",
            "--json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.json["claude_mcp_add"].as_str().unwrap();
    let words = shell_words(line);
    // claude mcp add [options] <name> -- <command> [args...]
    assert_eq!(
        words[..6],
        ["claude", "mcp", "add", "--scope", "user", "filekit"]
    );
    assert_eq!(words[6], "--", "{line}");
    assert_eq!(words[7], real(Path::new(env!("CARGO_BIN_EXE_filekit"))));
    // The folder with a space is one word: quoted.
    assert!(line.contains(&format!("'{}'", real(&dir))), "{line}");
    assert_eq!(
        words[8..],
        ["serve", "--root", &real(&dir), "--tools", "claude"]
    );
    let (_, tools) = start_server(&sb, &words[7], &words[8..]);
    assert_eq!(tools, CLAUDE_TOOLS);
    // The text output leads with the same line.
    let run = setup(
        &sb,
        &[
            "--root",
            &dir_s,
            "claude-code",
            "--tools",
            "claude",
            "--scope",
            "user",
        ],
    );
    assert!(run.stdout.lines().any(|l| l == line), "{}", run.stdout);
}

#[test]
fn write_merges_into_each_clients_default_file_keeping_other_entries() {
    let sb = Sandbox::new();
    let home = sb.path("home");
    let other = json!({"command": "npx", "args": ["-y", "other-server"]});
    let files: [(&str, PathBuf, &str); 4] = [
        ("claude-code", sb.path(".mcp.json"), "mcpServers"),
        (
            "claude-desktop",
            if cfg!(target_os = "macos") {
                home.join("Library/Application Support/Claude/claude_desktop_config.json")
            } else {
                home.join(".config/Claude/claude_desktop_config.json")
            },
            "mcpServers",
        ),
        ("vscode", sb.path(".vscode/mcp.json"), "servers"),
        ("cursor", home.join(".cursor/mcp.json"), "mcpServers"),
    ];
    for (client, file, key) in &files {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let old = json!({"theme": "dark", *key: {"other": other}});
        let old_text = serde_json::to_string_pretty(&old).unwrap();
        std::fs::write(file, &old_text).unwrap();
        std::fs::set_permissions(file, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();

        let run = setup(&sb, &[client, "--write", "--json"]);
        assert_eq!(run.code, 0, "{client}: {}", run.stderr);
        assert_eq!(run.json["written"], true, "{client}");
        assert_eq!(run.json["config_file"], file.to_string_lossy().as_ref());
        let new: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        assert_eq!(new["theme"], "dark", "{client}: {new}");
        assert_eq!(new[key]["other"], other, "{client}: {new}");
        let (command, args, _) = server_in(&new.to_string(), "json", "filekit");
        assert_eq!(args[..3], ["serve", "--root", &real(sb.root())]);
        let backup = PathBuf::from(run.json["backup"].as_str().unwrap());
        assert_eq!(
            backup,
            file.with_file_name(format!(
                "{}.bak",
                file.file_name().unwrap().to_string_lossy()
            ))
        );
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), old_text);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(file).unwrap().permissions().mode() & 0o777,
            0o600,
            "{client}: the file keeps its mode"
        );
        assert!(
            start_server(&sb, &command, &args)
                .1
                .contains(&"read_files".to_string())
        );

        // Again: the same entry is there, nothing is written, no second backup.
        let before = std::fs::read(file).unwrap();
        let run = setup(&sb, &[client, "--write", "--json"]);
        assert_eq!(run.code, 0, "{client}: {}", run.stderr);
        assert_eq!(run.json["written"], false, "{client}");
        assert_eq!(std::fs::read(file).unwrap(), before);
        assert!(!backup.with_extension("bak.1").exists());

        // Another table: the entry is replaced, the previous file kept as .bak.1.
        let run = setup(&sb, &[client, "--write", "--tools", "claude", "--json"]);
        assert_eq!(run.code, 0, "{client}: {}", run.stderr);
        assert_eq!(run.json["replaced"], true, "{client}");
        assert!(run.json["backup"].as_str().unwrap().ends_with(".bak.1"));
        let new: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        assert_eq!(new[key]["other"], other);
        assert_eq!(new[key].as_object().unwrap().len(), 2, "{new}");
        assert_eq!(new[key]["filekit"]["args"][4], "claude");
    }
    // No file yet: made, with its folder, and no backup.
    let fresh = Sandbox::new();
    let run = setup(&fresh, &["cursor", "--write", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["backup"], Value::Null);
    let made = fresh.read("home/.cursor/mcp.json");
    assert_eq!(server_in(&made, "json", "filekit").0, run.json["command"]);
}

#[test]
fn codex_write_keeps_the_toml_files_comments_and_tables() {
    let sb = Sandbox::new();
    let file = sb.path("home/.codex/config.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let old = "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\n# the docs server\ncommand = \"docs-mcp\"\nargs = [\"--port\", \"1\"]\n";
    std::fs::write(&file, old).unwrap();
    let run = setup(&sb, &["codex", "--write", "--tools", "claude", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let new = std::fs::read_to_string(&file).unwrap();
    assert!(
        new.starts_with(old),
        "the old text is kept as it was:\n{new}"
    );
    let (command, args, _) = server_in(&new, "toml", "filekit");
    let doc: toml_edit::DocumentMut = new.parse().unwrap();
    assert_eq!(
        doc["mcp_servers"]["docs"]["command"].as_str(),
        Some("docs-mcp")
    );
    assert_eq!(doc["model"].as_str(), Some("o3"));
    assert_eq!(
        std::fs::read_to_string(sb.path("home/.codex/config.toml.bak")).unwrap(),
        old
    );
    assert_eq!(start_server(&sb, &command, &args).1, CLAUDE_TOOLS);
}

#[test]
fn a_vscode_file_with_comments_keeps_them() {
    let sb = Sandbox::new();
    let old = "{\n  // my servers\n  \"servers\": {\n    \"other\": {\"type\": \"stdio\", \"command\": \"x\",},\n  },\n  \"inputs\": []\n}\n";
    sb.write(".vscode/mcp.json", old);
    let run = setup(&sb, &["vscode", "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = sb.read(".vscode/mcp.json");
    assert!(text.starts_with("{\n  // my servers\n  \"servers\": {\n    \"other\": {\"type\": \"stdio\", \"command\": \"x\",},"), "{text}");
    let new: Value = jsonc_parser::parse_to_serde_value(&text, &Default::default()).unwrap();
    assert_eq!(new["servers"]["other"]["command"], "x");
    assert_eq!(new["inputs"], json!([]));
    assert_eq!(new["servers"]["filekit"]["type"], "stdio");
    assert_eq!(sb.read(".vscode/mcp.json.bak"), old);
}

/// `--write` edits the file's text: another server's numbers of any size or form, its keys
/// written twice, the spacing and the order stay byte for byte; only the server's own entry
/// is written (and written again in place when it is there).
#[test]
fn write_keeps_other_entries_numbers_and_keys_as_written() {
    let sb = Sandbox::new();
    let other = "\"other\": {\"command\": \"x\", \"timeout\": 12345678901234567890123, \"ratio\": 1e5, \"tiny\": 1.50, \"env\": {\"A\": \"1\", \"A\": \"2\"}}";
    let old = format!(
        "{{\n  \"mcpServers\": {{\n    {other}\n  }},\n  \"globalShortcut\": \"\",\n  \"n\": -0.0e-7\n}}\n"
    );
    let file = sb.path("home/claude.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &old).unwrap();
    let config = file.to_string_lossy().into_owned();
    let run = setup(&sb, &["claude-desktop", "--config", &config, "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = std::fs::read_to_string(&file).unwrap();
    assert!(first.contains(other), "{first}");
    assert!(first.contains("\"n\": -0.0e-7"), "{first}");
    let (command, args, _) = server_in(&first, "json", "filekit");
    assert!(command.ends_with("filekit"), "{command}");
    assert_eq!(args[0], "serve");
    // Written again with other tables: only the entry changes.
    let run = setup(
        &sb,
        &[
            "claude-desktop",
            "--config",
            &config,
            "--write",
            "--tools",
            "claude",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let second = std::fs::read_to_string(&file).unwrap();
    assert!(second.contains(other), "{second}");
    assert_eq!(second.matches("\"filekit\"").count(), 1, "{second}");
    let (_, args, _) = server_in(&second, "json", "filekit");
    assert!(args.contains(&"claude".to_string()), "{args:?}");
    assert_eq!(
        first.replace(
            &first[first.find("\"filekit\"").unwrap()..first.rfind(']').unwrap()],
            ""
        ),
        second.replace(
            &second[second.find("\"filekit\"").unwrap()..second.rfind(']').unwrap()],
            ""
        ),
        "anything but the entry changed"
    );
}

/// `~` and `~/...` in `--root` (and `--config`) are the home folder, as in every path
/// filekit takes: a client's configuration passes them unexpanded.
#[test]
fn setup_expands_the_home_folder_in_its_paths() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path("home/src/app")).unwrap();
    let run = setup(
        &sb,
        &[
            "codex",
            "--root",
            "~/src/app",
            "--config",
            "~/codex.toml",
            "--write",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(sb.path("home/codex.toml")).unwrap();
    let (_, args, _) = server_in(&text, "toml", "filekit");
    assert!(args.contains(&real(&sb.path("home/src/app"))), "{args:?}");
}

#[test]
fn bad_requests_and_unreadable_files_are_refused_and_nothing_is_written() {
    let sb = Sandbox::new();
    let cases: [(&str, &str, &[&str], &[&str]); 5] = [
        (
            "bad.json",
            "{\"mcpServers\": {",
            &["cursor"],
            &["not valid JSON", "nothing was written"],
        ),
        (
            "list.json",
            "[1, 2]",
            &["claude-desktop"],
            &["JSON array", "expects an object"],
        ),
        (
            "arr.json",
            "{\"servers\": []}",
            &["vscode"],
            &["\"servers\"", "not an object of servers"],
        ),
        (
            "bad.toml",
            "model = \n",
            &["codex"],
            &["not valid TOML", "nothing was written"],
        ),
        (
            "str.toml",
            "mcp_servers = \"x\"\n",
            &["codex"],
            &["mcp_servers", "not a table"],
        ),
    ];
    for (name, text, client, needles) in cases {
        sb.write(name, text);
        let path = sb.path(name).to_string_lossy().into_owned();
        let mut args = client.to_vec();
        args.extend(["--write", "--config", &path]);
        let run = setup(&sb, &args);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        for n in needles {
            assert!(run.stderr.contains(n), "{name}: {n:?} in {}", run.stderr);
        }
        assert!(
            run.stderr.contains(&path),
            "{name}: the file is named: {}",
            run.stderr
        );
        assert_eq!(sb.read(name), text, "{name} is unchanged");
        assert!(
            !sb.exists(&format!("{name}.bak")),
            "{name}: no backup of a refused file"
        );
    }
    for (args, needle) in [
        (&["cursor", "--tools", "nope"][..], "unknown table 'nope'"),
        (
            &["cursor", "--scope", "user"][..],
            "--scope is an option of `claude mcp add`",
        ),
        (
            &["--root", "no/such/dir", "cursor"][..],
            "--root no/such/dir",
        ),
        (&["emacs"][..], "invalid value 'emacs'"),
    ] {
        let run = setup(&sb, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
    assert!(
        !sb.exists("home/.cursor"),
        "nothing was written for a bad request"
    );
}

#[test]
fn setup_help_names_every_client_and_its_file() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["setup", "--help"], None);
    assert_eq!(run.code, 0);
    for needle in [
        "claude-code",
        "claude-desktop",
        "vscode",
        "cursor",
        "codex",
        "claude_desktop_config.json",
        ".vscode/mcp.json",
        "~/.cursor/mcp.json",
        "config.toml",
        "--write",
        ".bak",
    ] {
        assert!(run.stdout.contains(needle), "{needle}:\n{}", run.stdout);
    }
}

/// A cloned repository that ships `.vscode` or `.mcp.json` as a link out of the root (here to
/// another MCP config of the user's) is not written through: the project file is resolved as
/// every workspace path is, and the link's target stays as it was.
#[test]
fn a_planted_link_out_of_the_root_is_not_written_through() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("mcp.json");
    let before = "{\"servers\": {}, \"mcpServers\": {}}\n";
    std::fs::write(&victim, before).unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path(".vscode")).unwrap();
    std::os::unix::fs::symlink(&victim, sb.path(".mcp.json")).unwrap();
    for client in ["vscode", "claude-code"] {
        let run = setup(&sb, &[client, "--write"]);
        assert_eq!(run.code, 2, "{client}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("cannot be written") && run.stderr.contains("--config"),
            "{client}: {}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            before,
            "{client}"
        );
    }
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        1,
        "no backup, no temporary file"
    );
}

/// Every start option `setup` takes goes into the configuration it writes, and the server
/// it configures starts with them: none is accepted and then lost.
#[test]
fn every_start_option_given_to_setup_is_in_the_servers_arguments() {
    let sb = Sandbox::new();
    let root = real(sb.root());
    let history = format!("{root}/../history-elsewhere.db");
    let run = setup(
        &sb,
        &[
            "claude-desktop",
            "--allow-git-writes",
            "--allow-protected-writes",
            "--allow-secret-reads",
            "--no-versions",
            "--history",
            &history,
            "--holder",
            "bob",
            "--max-file-size",
            "8M",
            "--json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (command, args, _) = server_in(run.json["config"].as_str().unwrap(), "json", "filekit");
    for flag in [
        "--allow-git-writes",
        "--allow-protected-writes",
        "--allow-secret-reads",
        "--no-versions",
    ] {
        assert!(
            args.iter().any(|a| a == flag),
            "{flag} missing from {args:?}"
        );
    }
    let after = |flag: &str| args[args.iter().position(|a| a == flag).unwrap() + 1].clone();
    assert_eq!(after("--holder"), "bob");
    assert_eq!(after("--max-file-size"), (8u64 << 20).to_string());
    assert!(
        after("--history").ends_with("history-elsewhere.db"),
        "{args:?}"
    );
    // The configured server starts with them.
    let (info, _) = start_server(&sb, &command, &args);
    assert!(info.is_object(), "{info}");

    let run = setup(&sb, &["claude-desktop", "--no-history", "--json"]);
    let (_, args, _) = server_in(run.json["config"].as_str().unwrap(), "json", "filekit");
    assert!(args.iter().any(|a| a == "--no-history"), "{args:?}");
}
