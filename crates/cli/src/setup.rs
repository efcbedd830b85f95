//! `filekit setup <client>`: the configuration that makes an MCP client start `filekit serve`,
//! printed, or merged into the client's configuration file with `--write`.
//!
//! Each client's documented format: Claude Code `claude mcp add NAME -- COMMAND ARGS...` (or
//! the project's `.mcp.json`, `mcpServers`); Claude Desktop `claude_desktop_config.json`,
//! `mcpServers`; VS Code `.vscode/mcp.json`, `servers` with `"type": "stdio"`; Cursor
//! `~/.cursor/mcp.json`, `mcpServers`; Codex `~/.codex/config.toml`, `[mcp_servers.NAME]`.
//! Every entry has `command` (this binary's absolute path) and `args` (`serve`, the roots, the
//! tables).

use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const AFTER_HELP: &str = "\
Clients and the file --write merges into (--config FILE to choose another):
  claude-code     .mcp.json in the first root (the project scope of `claude mcp add`);
                  printed: the `claude mcp add` line (local scope, or --scope)
  claude-desktop  claude_desktop_config.json: ~/Library/Application Support/Claude/ (macOS),
                  %APPDATA%\\Claude\\ (Windows), ~/.config/Claude/ (Linux)
  vscode          .vscode/mcp.json in the first root (\"servers\", \"type\": \"stdio\")
  cursor          ~/.cursor/mcp.json
  codex           config.toml in $CODEX_HOME, else ~/.codex/ ([mcp_servers.NAME])

The command is the absolute path of this filekit binary; the arguments are `serve`, each root
as an absolute --root (default: the current directory), --tools, and --read-only,
--trust-workspace and --state-dir when given. --write keeps every other entry of the file (a
server of the same name is replaced), writes it atomically, keeps the file's mode, and leaves
the old file next to it as FILE.bak (FILE.bak.1, ... when that exists). Only the server's own
entry is written: the rest of the file (other servers' numbers and keys as written, comments,
trailing commas) stays byte for byte.

Examples:
  filekit setup claude-code --root ~/src/app
  filekit setup claude-desktop --root ~/src/app --tools claude --write
  filekit setup vscode --tools filekit,claude --json
  filekit setup codex --root . --write";

#[derive(ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Vscode,
    Cursor,
    Codex,
}

#[derive(ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    Local,
    Project,
    User,
}

#[derive(Args)]
pub struct SetupArgs {
    /// The MCP client to configure.
    #[arg(value_enum, value_name = "CLIENT")]
    client: Client,
    /// Tool tables to serve, comma-separated (as `filekit serve --tools`).
    #[arg(long, value_name = "LIST", default_value = "filekit")]
    tools: String,
    /// The server's name in the client's configuration.
    #[arg(long, value_name = "NAME", default_value = "filekit")]
    name: String,
    /// Merge the entry into the client's configuration file instead of printing it.
    #[arg(long)]
    write: bool,
    /// The configuration file to write (default: the client's; see below).
    #[arg(long, value_name = "FILE", value_parser = crate::home_path)]
    config: Option<PathBuf>,
    /// claude-code only: the --scope of the printed `claude mcp add` line.
    #[arg(long, value_enum, default_value_t = Scope::Local)]
    scope: Scope,
    /// Print the entry, the file and what was done as JSON.
    #[arg(long)]
    json: bool,
}

impl Client {
    fn label(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Vscode => "VS Code",
            Client::Cursor => "Cursor",
            Client::Codex => "Codex",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Vscode => "vscode",
            Client::Cursor => "cursor",
            Client::Codex => "codex",
        }
    }

    /// The key that holds the servers in the client's JSON file (Codex: the TOML table).
    fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            Client::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }
}

/// What `setup` prints or writes.
struct Entry {
    name: String,
    command: String,
    args: Vec<String>,
}

impl Entry {
    /// The server's entry in the JSON clients' files.
    fn json(&self, client: Client) -> Value {
        let mut entry = serde_json::Map::new();
        if matches!(client, Client::Vscode | Client::ClaudeCode) {
            entry.insert("type".into(), json!("stdio"));
        }
        entry.insert("command".into(), json!(self.command));
        entry.insert("args".into(), json!(self.args));
        Value::Object(entry)
    }

    /// The whole file for this entry alone, as the client documents it.
    fn document(&self, client: Client) -> String {
        if client == Client::Codex {
            let mut doc = toml_edit::DocumentMut::new();
            merge_toml(&mut doc, self);
            return doc.to_string();
        }
        let doc = json!({ client.servers_key(): { self.name.clone(): self.json(client) } });
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    }

    /// `claude mcp add [--scope S] NAME -- COMMAND ARGS...`, quoted for a POSIX shell.
    fn claude_mcp_add(&self, scope: Scope) -> String {
        let mut words = vec!["claude".to_string(), "mcp".into(), "add".into()];
        if scope != Scope::Local {
            words.push("--scope".into());
            words.push(
                match scope {
                    Scope::Project => "project",
                    Scope::User => "user",
                    Scope::Local => "local",
                }
                .into(),
            );
        }
        words.push(self.name.clone());
        words.push("--".into());
        words.push(self.command.clone());
        words.extend(self.args.iter().cloned());
        words
            .iter()
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A word as a POSIX shell reads it back: as is when it is plain, else in single quotes.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,:=@%+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub fn run(global: &GlobalArgs, json_flag: bool, args: SetupArgs) -> u8 {
    let json_out = json_flag || args.json;
    match setup(global, &args) {
        Ok(report) => {
            if json_out {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.json).unwrap_or_default()
                );
            } else {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(report.text.as_bytes());
            }
            for w in &report.warnings {
                eprintln!("filekit setup: warning: {w}");
            }
            EXIT_OK
        }
        Err(SetupError::Bad(message)) => {
            eprintln!("filekit setup: {message}");
            EXIT_BAD_REQUEST
        }
        Err(SetupError::Failed(message)) => {
            eprintln!("filekit setup: {message}");
            EXIT_FAILED
        }
    }
}

enum SetupError {
    /// The request was bad: nothing was attempted.
    Bad(String),
    /// Writing the file failed: nothing was changed.
    Failed(String),
}

struct Report {
    text: String,
    json: Value,
    warnings: Vec<String>,
}

fn setup(global: &GlobalArgs, args: &SetupArgs) -> Result<Report, SetupError> {
    if let Err(message) = filekit_mcp::select_tools(&args.tools) {
        return Err(SetupError::Bad(message));
    }
    if args.name.trim().is_empty() {
        return Err(SetupError::Bad(
            "--name: the server's name is empty; give a name such as filekit".into(),
        ));
    }
    if args.scope != Scope::Local && args.client != Client::ClaudeCode {
        return Err(SetupError::Bad(format!(
            "--scope is an option of `claude mcp add` (claude-code), not of {}",
            args.client.id()
        )));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| {
            SetupError::Failed(format!("cannot find the path of this filekit binary: {e}"))
        })?;
    let mut warnings = Vec::new();
    let in_build_folder = exe
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "release" || d == "debug" || d == "profiling")
        && exe
            .ancestors()
            .any(|a| a.file_name().is_some_and(|n| n == "target"));
    if in_build_folder {
        warnings.push(format!(
            "{} is inside a cargo build folder: `cargo clean` or a rebuild removes or changes \
             it under the client; `cargo install --locked --path crates/cli` puts filekit in \
             ~/.cargo/bin, then run `filekit setup` from there",
            exe.display()
        ));
    }
    let roots = absolute_roots(global)?;
    let mut serve_args = vec!["serve".to_string()];
    for root in &roots {
        serve_args.push("--root".into());
        serve_args.push(root.to_string_lossy().into_owned());
    }
    serve_args.push("--tools".into());
    serve_args.push(args.tools.clone());
    if global.read_only {
        serve_args.push("--read-only".into());
    }
    if global.trust_workspace {
        serve_args.push("--trust-workspace".into());
    }
    // Every start option given to `setup` is the server's too: a flag `setup` accepted and
    // left out of the configuration would be silently lost.
    for (given, flag) in [
        (global.allow_git_writes, "--allow-git-writes"),
        (global.allow_protected_writes, "--allow-protected-writes"),
        (global.allow_secret_reads, "--allow-secret-reads"),
        (global.no_history, "--no-history"),
        (global.no_versions, "--no-versions"),
    ] {
        if given {
            serve_args.push(flag.into());
        }
    }
    for (path, flag) in [
        (&global.state_dir, "--state-dir"),
        (&global.history, "--history"),
    ] {
        if let Some(path) = path {
            let path = std::path::absolute(path)
                .map_err(|e| SetupError::Bad(format!("{flag} {}: {e}", path.display())))?;
            serve_args.push(flag.into());
            serve_args.push(path.to_string_lossy().into_owned());
        }
    }
    if let Some(holder) = &global.holder {
        serve_args.push("--holder".into());
        serve_args.push(holder.clone());
    }
    if let Some(size) = global.max_file_size {
        serve_args.push("--max-file-size".into());
        serve_args.push(size.to_string());
    }
    if let Some(size) = global.max_reply_bytes {
        serve_args.push("--max-reply-bytes".into());
        serve_args.push(size.to_string());
    }
    let entry = Entry {
        name: args.name.clone(),
        command: exe.to_string_lossy().into_owned(),
        args: serve_args,
    };
    let config = match &args.config {
        Some(path) => std::path::absolute(path)
            .map_err(|e| SetupError::Bad(format!("--config {}: {e}", path.display())))?,
        None => default_config(args.client, &roots)?,
    };
    let mut json_report = json!({
        "client": args.client.id(),
        "name": entry.name,
        "command": entry.command,
        "args": entry.args,
        "config_file": config.to_string_lossy(),
        "format": if args.client == Client::Codex { "toml" } else { "json" },
        "config": entry.document(args.client),
        "written": false,
    });
    if args.client == Client::ClaudeCode {
        json_report["claude_mcp_add"] = json!(entry.claude_mcp_add(args.scope));
    }
    let mut text = String::new();
    if args.write {
        let outcome = write_config(args.client, &config, &entry)?;
        json_report["written"] = json!(outcome.changed);
        json_report["replaced"] = json!(outcome.replaced);
        json_report["backup"] = json!(outcome.backup.as_ref().map(|b| b.to_string_lossy()));
        if !outcome.changed {
            text.push_str(&format!(
                "{}: the server '{}' is already configured this way in {}; nothing written.\n",
                args.client.label(),
                entry.name,
                config.display()
            ));
        } else {
            text.push_str(&format!(
                "{}: {} the server '{}' in {}{}.\n",
                args.client.label(),
                if outcome.replaced {
                    "replaced"
                } else {
                    "added"
                },
                entry.name,
                config.display(),
                match &outcome.backup {
                    Some(b) => format!(" (the old file is {})", b.display()),
                    None => String::new(),
                }
            ));
            text.push_str(&format!(
                "It starts: {} {}\n{}\n",
                shell_quote(&entry.command),
                entry
                    .args
                    .iter()
                    .map(|a| shell_quote(a))
                    .collect::<Vec<_>>()
                    .join(" "),
                restart_hint(args.client)
            ));
        }
    } else {
        if args.client == Client::ClaudeCode {
            text.push_str(&format!(
                "# Claude Code: run this (or `filekit setup claude-code --write` to write the \
                 project's {}):\n{}\n\n# The same server in {}:\n",
                config.display(),
                entry.claude_mcp_add(args.scope),
                config.display()
            ));
        } else {
            text.push_str(&format!(
                "# {}: merge this into {} (or run again with --write):\n",
                args.client.label(),
                config.display()
            ));
        }
        text.push_str(&entry.document(args.client));
    }
    Ok(Report {
        text,
        json: json_report,
        warnings,
    })
}

fn restart_hint(client: Client) -> &'static str {
    match client {
        Client::ClaudeCode => {
            "Start claude in the project and approve the project's server when asked (/mcp lists it)."
        }
        Client::ClaudeDesktop => "Quit and reopen Claude Desktop to load it.",
        Client::Vscode => {
            "VS Code shows the server in .vscode/mcp.json; start it there or from the Chat view's tools."
        }
        Client::Cursor => {
            "Cursor lists it in Settings > MCP; reload the window if it is not there."
        }
        Client::Codex => "The next codex session starts it (/mcp lists it).",
    }
}

/// The roots as absolute, real paths of existing directories (default: the current directory).
fn absolute_roots(global: &GlobalArgs) -> Result<Vec<PathBuf>, SetupError> {
    let given =
        if global.roots.is_empty() {
            vec![std::env::current_dir().map_err(|e| {
                SetupError::Failed(format!("cannot read the current directory: {e}"))
            })?]
        } else {
            global.roots.clone()
        };
    given
        .iter()
        .map(|root| match std::fs::canonicalize(root) {
            Ok(real) if real.is_dir() => Ok(real),
            Ok(_) => Err(SetupError::Bad(format!(
                "--root {}: not a directory; give the project's folder",
                root.display()
            ))),
            Err(e) => Err(SetupError::Bad(format!(
                "--root {}: {e}; give an existing folder",
                root.display()
            ))),
        })
        .collect()
}

fn home() -> Result<PathBuf, SetupError> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .ok_or_else(|| {
            SetupError::Bad(
                "no home folder (HOME is not set): give the file with --config FILE".into(),
            )
        })
}

/// A project file of the first root, resolved as every path into the workspace is: a cloned
/// repository may ship `.vscode` or `.mcp.json` as a link out of the root (to another
/// config of the user's), which must not be written through.
fn in_workspace(roots: &[PathBuf], rel: &str) -> Result<PathBuf, SetupError> {
    let refused = |e: filekit_core::FkError| {
        SetupError::Bad(format!(
            "{rel} of {} cannot be written: {}; give the file with --config FILE",
            roots[0].display(),
            e.message
        ))
    };
    let ws = filekit_core::Workspace::new(&roots[..1], false).map_err(refused)?;
    Ok(ws.resolve(rel).map_err(refused)?.absolute().to_path_buf())
}

/// The file a client reads its MCP servers from.
fn default_config(client: Client, roots: &[PathBuf]) -> Result<PathBuf, SetupError> {
    Ok(match client {
        Client::ClaudeCode => in_workspace(roots, ".mcp.json")?,
        Client::Vscode => in_workspace(roots, ".vscode/mcp.json")?,
        Client::Cursor => home()?.join(".cursor").join("mcp.json"),
        Client::Codex => match std::env::var_os("CODEX_HOME").map(PathBuf::from) {
            Some(dir) if dir.is_absolute() => dir.join("config.toml"),
            _ => home()?.join(".codex").join("config.toml"),
        },
        Client::ClaudeDesktop => {
            let dir = if cfg!(target_os = "macos") {
                home()?.join("Library/Application Support/Claude")
            } else if cfg!(windows) {
                match std::env::var_os("APPDATA") {
                    Some(d) => PathBuf::from(d).join("Claude"),
                    None => home()?.join("AppData").join("Roaming").join("Claude"),
                }
            } else {
                match std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from) {
                    Some(d) if d.is_absolute() => d.join("Claude"),
                    _ => home()?.join(".config").join("Claude"),
                }
            };
            dir.join("claude_desktop_config.json")
        }
    })
}

struct Outcome {
    changed: bool,
    replaced: bool,
    backup: Option<PathBuf>,
}

/// Merges the entry into `path` (made when missing), atomically, with a backup of the old file.
fn write_config(client: Client, path: &Path, entry: &Entry) -> Result<Outcome, SetupError> {
    // A configuration file kept as a link (dotfiles) stays one: the file it names is written.
    let path = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            SetupError::Failed(format!(
                "{} is a link to a file that cannot be reached ({e}); fix the link or give \
                 --config",
                path.display()
            ))
        })?,
        _ => path.to_path_buf(),
    };
    let path = path.as_path();
    let old = match std::fs::read(path) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            SetupError::Bad(format!(
                "{} is not UTF-8 text; fix it or give another file with --config",
                path.display()
            ))
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(SetupError::Failed(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let (new_text, replaced) = if client == Client::Codex {
        merged_toml(path, old.as_deref(), entry)?
    } else {
        merged_json(client, path, old.as_deref(), entry)?
    };
    if old.as_deref() == Some(new_text.as_str()) {
        return Ok(Outcome {
            changed: false,
            replaced,
            backup: None,
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| SetupError::Failed(format!("cannot make {}: {e}", dir.display())))?;
    let backup = match &old {
        Some(_) => Some(backup(path)?),
        None => None,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".filekit-setup-")
        .tempfile_in(dir)
        .map_err(|e| SetupError::Failed(format!("cannot write in {}: {e}", dir.display())))?;
    let written = tmp
        .write_all(new_text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all());
    if let Err(e) = written {
        return Err(SetupError::Failed(format!(
            "cannot write {}: {e}; it is unchanged",
            path.display()
        )));
    }
    // The file keeps its mode (a config holding tokens is often 0600).
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path).map_err(|e| {
        SetupError::Failed(format!(
            "cannot replace {}: {}; it is unchanged",
            path.display(),
            e.error
        ))
    })?;
    Ok(Outcome {
        changed: true,
        replaced,
        backup,
    })
}

/// Copies `path` to the first free `path.bak`, `path.bak.1`, ... and returns it.
fn backup(path: &Path) -> Result<PathBuf, SetupError> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    for n in 0..1000 {
        let candidate = if n == 0 {
            path.with_file_name(format!("{name}.bak"))
        } else {
            path.with_file_name(format!("{name}.bak.{n}"))
        };
        if std::fs::symlink_metadata(&candidate).is_ok() {
            continue;
        }
        return std::fs::copy(path, &candidate)
            .map(|_| candidate.clone())
            .map_err(|e| {
                SetupError::Failed(format!(
                    "cannot back up {} to {}: {e}; nothing was written",
                    path.display(),
                    candidate.display()
                ))
            });
    }
    Err(SetupError::Failed(format!(
        "{} has 1000 backups next to it; remove old ones ({name}.bak.*)",
        path.display()
    )))
}

/// Merges the entry into a JSON (or JSONC) file by editing its text: only the server's own
/// entry (and, when missing, the servers' object) is written; every other byte stays as the
/// user wrote it (numbers of any size or form, comments, trailing commas, duplicate keys).
fn merged_json(
    client: Client,
    path: &Path,
    old: Option<&str>,
    entry: &Entry,
) -> Result<(String, bool), SetupError> {
    use jsonc_parser::cst::{CstInputValue, CstRootNode};
    let Some(text) = old.filter(|t| !t.trim().is_empty()) else {
        return Ok((entry.document(client), false));
    };
    let root = CstRootNode::parse(text, &jsonc_parser::ParseOptions::default()).map_err(|e| {
        SetupError::Bad(format!(
            "{} is not valid JSON ({e}); fix it (nothing was written), or give another file \
             with --config",
            path.display()
        ))
    })?;
    let Some(top) = root.value().and_then(|v| v.as_object()) else {
        let found = root.value().map_or("nothing", |v| node_kind(&v));
        return Err(SetupError::Bad(format!(
            "{} holds a JSON {found} where {} expects an object; fix it (nothing was written)",
            path.display(),
            client.label()
        )));
    };
    let key = client.servers_key();
    // Where a key is written twice, the last one counts (as JavaScript reads it).
    let named = |o: &jsonc_parser::cst::CstObject, name: &str| {
        o.properties()
            .into_iter()
            .filter(|p| p.decoded_name().as_deref() == Some(name))
            .collect::<Vec<_>>()
    };
    let servers = match named(&top, key).pop() {
        Some(prop) => match prop.value().and_then(|v| v.as_object()) {
            Some(servers) => servers,
            None => {
                let found = prop.value().map_or("nothing", |v| node_kind(&v));
                return Err(SetupError::Bad(format!(
                    "\"{key}\" in {} is a JSON {found}, not an object of servers; fix it \
                     (nothing was written)",
                    path.display()
                )));
            }
        },
        None => top.object_value_or_set(key),
    };
    let value = || {
        let mut fields = Vec::new();
        if matches!(client, Client::Vscode | Client::ClaudeCode) {
            fields.push(("type".to_string(), CstInputValue::String("stdio".into())));
        }
        fields.push((
            "command".to_string(),
            CstInputValue::String(entry.command.clone()),
        ));
        fields.push((
            "args".to_string(),
            CstInputValue::Array(
                entry
                    .args
                    .iter()
                    .map(|a| CstInputValue::String(a.clone()))
                    .collect(),
            ),
        ));
        CstInputValue::Object(fields)
    };
    let ours = named(&servers, &entry.name);
    let replaced = !ours.is_empty();
    if replaced {
        for prop in ours {
            prop.set_value(value());
        }
    } else {
        servers.append(&entry.name, value());
    }
    let mut out = root.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, replaced))
}

/// What a JSON value of the document is, for a refusal.
fn node_kind(n: &jsonc_parser::cst::CstNode) -> &'static str {
    if n.as_object().is_some() {
        "object"
    } else if n.as_array().is_some() {
        "array"
    } else if n.as_string_lit().is_some() {
        "string"
    } else if n.as_number_lit().is_some() {
        "number"
    } else if n.as_boolean_lit().is_some() {
        "boolean"
    } else if n.as_null_keyword().is_some() {
        "null"
    } else {
        "value"
    }
}

fn merged_toml(
    path: &Path,
    old: Option<&str>,
    entry: &Entry,
) -> Result<(String, bool), SetupError> {
    let mut doc = match old {
        None => toml_edit::DocumentMut::new(),
        Some(text) => text.parse::<toml_edit::DocumentMut>().map_err(|e| {
            SetupError::Bad(format!(
                "{} is not valid TOML ({}); fix it (nothing was written), or give another file \
                 with --config",
                path.display(),
                e.to_string().trim()
            ))
        })?,
    };
    if let Some(item) = doc.get("mcp_servers")
        && !item.is_table_like()
    {
        return Err(SetupError::Bad(format!(
            "mcp_servers in {} is a {}, not a table of servers; fix it (nothing was written)",
            path.display(),
            item.type_name()
        )));
    }
    let replaced = doc
        .get("mcp_servers")
        .and_then(|s| s.get(&entry.name))
        .is_some();
    merge_toml(&mut doc, entry);
    Ok((doc.to_string(), replaced))
}

/// Sets `[mcp_servers.NAME]` to the entry's command and args, keeping the rest of the file.
fn merge_toml(doc: &mut toml_edit::DocumentMut, entry: &Entry) {
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .expect("checked to be a table");
    let mut server = toml_edit::Table::new();
    server.insert("command", toml_edit::value(entry.command.as_str()));
    let mut args = toml_edit::Array::new();
    for a in &entry.args {
        args.push(a.as_str());
    }
    server.insert("args", toml_edit::value(args));
    servers.insert(&entry.name, toml_edit::Item::Table(server));
}
