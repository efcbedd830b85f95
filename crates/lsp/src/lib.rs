//! # filekit-lsp
//!
//! The language-server bridge (issue 8 item 4): a small Language Server Protocol client over
//! stdio JSON-RPC that starts `typescript-language-server --stdio`, `pyright-langserver
//! --stdio` or `rust-analyzer` on a workspace root and asks it for renames, organized imports
//! and the refactors of seed 004's table. It returns the server's workspace edit as data
//! ([`WsEdit`]); it never writes a file: the caller applies the edit through the one write
//! pipeline (dry run, sandbox, history, undo).
//!
//! Servers are kept warm in a process-wide pool, one per (root, language): a long-running
//! process (the MCP server) reuses it between calls; a short one (a CLI call) starts it once
//! and ends it with [`shutdown_all`].
//!
//! The framing (`Content-Length` headers) and the dozen messages used are written here over
//! `serde_json` values rather than with a full LSP type crate: what is read from the replies
//! is a few fields, and the servers' own extensions (`_typescript.*` commands) are untyped
//! anyway.

use filekit_errors::{ErrorCode, FkError};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

pub mod launch;
pub use launch::{Launch, PassedOver};

/// How long one request may take. The first request of a fresh server includes loading the
/// project, which takes seconds on a large one.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The language servers filekit knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerKind {
    TypeScript,
    Python,
    Rust,
}

impl ServerKind {
    /// The server for a file, by extension.
    pub fn for_path(path: &str) -> Option<ServerKind> {
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        Some(match ext.as_str() {
            "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => ServerKind::TypeScript,
            "py" | "pyi" => ServerKind::Python,
            "rs" => ServerKind::Rust,
            _ => return None,
        })
    }

    /// The executable and its arguments.
    pub fn command(self) -> (&'static str, &'static [&'static str]) {
        match self {
            ServerKind::TypeScript => ("typescript-language-server", &["--stdio"]),
            ServerKind::Python => ("pyright-langserver", &["--stdio"]),
            ServerKind::Rust => ("rust-analyzer", &[]),
        }
    }

    /// How to install the server.
    pub fn install_hint(self) -> &'static str {
        match self {
            ServerKind::TypeScript => "npm install -g typescript typescript-language-server",
            ServerKind::Python => "npm install -g pyright (or pip install pyright)",
            ServerKind::Rust => "rustup component add rust-analyzer",
        }
    }

    fn language_id(path: &Path) -> &'static str {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "ts" | "mts" | "cts" => "typescript",
            "tsx" => "typescriptreact",
            "jsx" => "javascriptreact",
            "js" | "mjs" | "cjs" => "javascript",
            "py" | "pyi" => "python",
            "rs" => "rust",
            _ => "plaintext",
        }
    }

    /// Finds the server for a workspace over `roots` (canonical) on this process's `PATH`:
    /// an executable outside every root, reached through an absolute `PATH` entry, with the
    /// workspace's choices pinned (see [`launch`]). Call it only for a trusted workspace.
    pub fn locate(self, roots: &[PathBuf]) -> Result<Launch, FkError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        launch::locate(self, &path, roots)
    }

    /// The error of a refactor that needs this server in a workspace that is not trusted.
    pub fn not_trusted(self, what: &str) -> FkError {
        let (exe, _) = self.command();
        FkError::new(
            ErrorCode::NotTrusted,
            format!(
                "{what} needs a language server ({exe}), and a language server runs the \
                 workspace's code (its configuration, toolchain, compiler, plugins, build \
                 scripts): filekit starts none for a workspace it was not told to trust"
            ),
        )
        .with_hint(
            "if the person running filekit trusts this workspace's code, they can start filekit \
             with --trust-workspace (`filekit serve --trust-workspace` for MCP); no tool call \
             can turn it on",
        )
        .with_details(json!({"server": exe, "option": "--trust-workspace"}))
    }
}

// ---------------------------------------------------------------------------------------------
// URIs and positions

/// `file://` URI of an absolute path (percent-encoded).
pub fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI.
pub fn path_of(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// LSP position (0-based line, UTF-16 column) of a byte offset.
pub fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col: usize = before[start..].chars().map(char::len_utf16).sum();
    (line as u32, col as u32)
}

/// Byte offset of an LSP position (clamped to the line's end and the text's end).
pub fn offset(text: &str, line: u32, character: u32) -> usize {
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0u32;
    for (i, c) in text[start..line_end].char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    line_end
}

// ---------------------------------------------------------------------------------------------
// Workspace edits

/// An LSP range: (line, UTF-16 column) of its start and end.
pub type LspRange = ((u32, u32), (u32, u32));

/// One text edit of a server's workspace edit, in LSP positions of the file as the server saw
/// it. Positions only, without the text they are positions of, so not yet splices: the
/// refactor step that reads the file turns a file's edits into `Splices` of its text
/// (`filekit_lsp::offset` for each position).
#[derive(Debug, Clone, PartialEq)]
pub struct TextEdit {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub new_text: String,
}

/// A server's workspace edit: text edits per file, files to create, and operations filekit
/// does not apply (renames and deletes of files), described.
#[derive(Debug, Clone, Default)]
pub struct WsEdit {
    pub files: BTreeMap<PathBuf, Vec<TextEdit>>,
    pub created: Vec<PathBuf>,
    pub unsupported: Vec<String>,
}

impl WsEdit {
    pub fn is_empty(&self) -> bool {
        self.files.values().all(|e| e.is_empty()) && self.created.is_empty()
    }

    fn add(&mut self, v: &Value) {
        if let Some(changes) = v.get("changes").and_then(Value::as_object) {
            for (u, edits) in changes {
                self.add_edits(u, edits);
            }
        }
        for dc in v
            .get("documentChanges")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match dc.get("kind").and_then(Value::as_str) {
                Some("create") => {
                    if let Some(p) = dc.get("uri").and_then(Value::as_str).and_then(path_of) {
                        self.created.push(p);
                    }
                }
                Some(k) => self.unsupported.push(format!(
                    "{k} {}",
                    dc.get("oldUri")
                        .or_else(|| dc.get("uri"))
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                )),
                None => {
                    if let Some(u) = dc.pointer("/textDocument/uri").and_then(Value::as_str) {
                        self.add_edits(u, dc.get("edits").unwrap_or(&Value::Null));
                    }
                }
            }
        }
    }

    fn add_edits(&mut self, u: &str, edits: &Value) {
        let Some(p) = path_of(u) else { return };
        let list = self.files.entry(p).or_default();
        for e in edits.as_array().into_iter().flatten() {
            let pos = |k: &str| {
                (
                    e.pointer(&format!("/range/{k}/line"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0) as u32,
                    e.pointer(&format!("/range/{k}/character"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0) as u32,
                )
            };
            list.push(TextEdit {
                start: pos("start"),
                end: pos("end"),
                new_text: e
                    .get("newText")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The client

/// A running language server.
pub struct Client {
    pub kind: ServerKind,
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Documents open in the server: uri -> (version, text).
    open: HashMap<String, (i64, String)>,
    /// Edits the server asked the client to apply (`workspace/applyEdit`) since last taken.
    applied: Vec<Value>,
    /// The last error message the server showed.
    last_error: Option<String>,
    /// Documents whose diagnostics the server has published since they last changed.
    diagnosed: std::collections::HashSet<String>,
    /// The indentation the server formats new code with: (tab size, spaces).
    indent: (u32, bool),
}

/// `FILEKIT_LSP_TRACE=1` prints every message to and from servers on stderr.
static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("FILEKIT_LSP_TRACE").is_some_and(|v| v == "1"));

fn trace(dir: &str, v: &Value) {
    if *TRACE {
        let s = v.to_string();
        let cut: String = s.chars().take(2000).collect();
        eprintln!("lsp {dir} {cut}");
    }
}

fn write_message(w: &mut impl Write, v: &Value) -> std::io::Result<()> {
    trace("->", v);
    let body = serde_json::to_vec(v).expect("JSON values serialize");
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(&body)?;
    w.flush()
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    let v = serde_json::from_slice(&body).ok()?;
    trace("<-", &v);
    Some(v)
}

/// Merges the object `extra` into `base`, key by key (objects recursively).
fn merge(base: &mut Value, extra: &Value) {
    if let (Some(b), Some(e)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            match b.get_mut(k) {
                Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                _ => {
                    b.insert(k.clone(), v.clone());
                }
            }
        }
    }
}

fn lsp_error(method: &str, msg: impl std::fmt::Display) -> FkError {
    FkError::new(ErrorCode::Io, format!("language server: {method}: {msg}"))
}

impl Client {
    /// Starts the server `launch` located on `root` and initializes it. Its process gets the
    /// filtered `PATH` and the pinned toolchain of the launch.
    pub fn start(launch: &Launch, root: &Path) -> Result<Client, FkError> {
        let kind = launch.kind;
        let exe = launch.exe.clone();
        let (_, args) = kind.command();
        let mut cmd = Command::new(&exe);
        cmd.args(args)
            .current_dir(root)
            .env("PATH", &launch.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in &launch.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().map_err(|e| {
            FkError::new(
                ErrorCode::Io,
                format!("could not start {}: {e}", exe.display()),
            )
            .with_hint(kind.install_hint())
        })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_message(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            kind,
            child,
            stdin,
            rx,
            next_id: 0,
            open: HashMap::new(),
            applied: Vec::new(),
            last_error: None,
            diagnosed: Default::default(),
            indent: (2, true),
        };
        let root_uri = uri(root);
        let mut init_options = json!({"preferences": {"quotePreference": "auto", "providePrefixAndSuffixTextForRename": false}, "tsserver": {"useSyntaxServer": "never"}});
        merge(&mut init_options, &launch.init_options);
        let init = c.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root_uri,
                "rootPath": root,
                "workspaceFolders": [{"uri": root_uri, "name": root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default()}],
                "capabilities": {
                    "general": {"positionEncodings": ["utf-16"]},
                    "workspace": {
                        "applyEdit": true,
                        "configuration": true,
                        "workspaceFolders": true,
                        "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"]},
                        "didChangeWatchedFiles": {"dynamicRegistration": false}
                    },
                    "textDocument": {
                        "synchronization": {"didSave": false, "dynamicRegistration": false},
                        "rename": {"prepareSupport": false},
                        "publishDiagnostics": {},
                        "codeAction": {
                            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                                "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                                "refactor.rewrite", "source", "source.organizeImports"
                            ]}},
                            "resolveSupport": {"properties": ["edit"]},
                            "dataSupport": true,
                            "isPreferredSupport": true
                        }
                    }
                },
                "initializationOptions": init_options
            }),
        );
        if let Err(e) = init {
            return Err(FkError::new(
                ErrorCode::Io,
                format!(
                    "{} did not start as a language server: {}",
                    exe.display(),
                    e.message
                ),
            )
            .with_hint(format!(
                "check that it runs; to install it: {}",
                kind.install_hint()
            )));
        }
        c.notify("initialized", json!({}))?;
        if kind == ServerKind::Python {
            // pyright starts its analysis once it has settings, and a rename reaches the
            // other files only after it has found the workspace's source files.
            c.notify("workspace/didChangeConfiguration", json!({"settings": {}}))?;
            c.wait_log("source file", REQUEST_TIMEOUT)?;
        }
        Ok(c)
    }

    /// Serves the server until it logs a message containing `needle` (or `timeout` passes).
    fn wait_log(&mut self, needle: &str, timeout: Duration) -> Result<(), FkError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => {
                    let logged = msg.get("method").and_then(Value::as_str)
                        == Some("window/logMessage")
                        && msg
                            .pointer("/params/message")
                            .and_then(Value::as_str)
                            .is_some_and(|m| m.contains(needle));
                    self.handle(msg)?;
                    if logged {
                        return Ok(());
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(lsp_error("initialize", "the server exited"));
                }
            }
        }
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn send(&mut self, v: &Value) -> Result<(), FkError> {
        write_message(&mut self.stdin, v).map_err(|e| {
            lsp_error(
                v.get("method").and_then(Value::as_str).unwrap_or("reply"),
                format!("the server's input is closed ({e})"),
            )
        })
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), FkError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its answer, serving the server's own requests meanwhile.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, FkError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match self.rx.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(lsp_error(
                        method,
                        format!("no answer within {} s", REQUEST_TIMEOUT.as_secs()),
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(lsp_error(method, "the server exited"));
                }
            };
            let m = msg.get("method").and_then(Value::as_str);
            match (m, msg.get("id")) {
                (None, Some(rid)) if rid.as_i64() == Some(id) => {
                    if let Some(err) = msg.get("error") {
                        let text = err
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("failed");
                        return Err(FkError::new(
                            ErrorCode::InvalidArgument,
                            format!("the language server refused {method}: {text}"),
                        ));
                    }
                    return Ok(msg.get("result").cloned().unwrap_or(Value::Null));
                }
                (None, _) => {} // an answer to something we no longer wait for
                _ => self.handle(msg)?,
            }
        }
    }

    /// Serves a request of the server or takes note of a notification.
    fn handle(&mut self, msg: Value) -> Result<(), FkError> {
        let m = msg.get("method").and_then(Value::as_str).unwrap_or("");
        match msg.get("id") {
            Some(rid) => {
                let rid = rid.clone();
                let result = self.serve(m, msg.get("params").unwrap_or(&Value::Null));
                let reply = match result {
                    Ok(r) => json!({"jsonrpc": "2.0", "id": rid, "result": r}),
                    Err(()) => {
                        json!({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "not supported by filekit"}})
                    }
                };
                self.send(&reply)
            }
            None => {
                if m == "window/showMessage"
                    && msg.pointer("/params/type").and_then(Value::as_i64) == Some(1)
                {
                    self.last_error = msg
                        .pointer("/params/message")
                        .and_then(Value::as_str)
                        .map(String::from);
                }
                if m == "textDocument/publishDiagnostics"
                    && let Some(u) = msg.pointer("/params/uri").and_then(Value::as_str)
                {
                    self.diagnosed.insert(u.to_string());
                }
                Ok(())
            }
        }
    }

    /// Waits until the server has published the diagnostics of `path` (quick fixes are
    /// computed against them), then until it has been quiet for a moment.
    pub fn wait_diagnostics(&mut self, path: &Path, timeout: Duration) -> Result<(), FkError> {
        let u = uri(path);
        let deadline = Instant::now() + timeout;
        let mut quiet_since: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            if self.diagnosed.contains(&u) && quiet_since.is_none() {
                quiet_since = Some(now);
            }
            let wait = match quiet_since {
                Some(_) => Duration::from_millis(300),
                None => deadline - now,
            };
            match self.rx.recv_timeout(wait) {
                Ok(msg) => {
                    self.handle(msg)?;
                    if quiet_since.is_some() {
                        quiet_since = Some(Instant::now());
                    }
                }
                Err(RecvTimeoutError::Timeout) if quiet_since.is_some() => return Ok(()),
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(lsp_error("diagnostics", "the server exited"));
                }
            }
        }
    }

    /// The indentation the server should format new code with.
    pub fn set_indent(&mut self, tab_size: u32, insert_spaces: bool) {
        self.indent = (tab_size, insert_spaces);
    }

    /// Answers a request of the server.
    fn serve(&mut self, method: &str, params: &Value) -> Result<Value, ()> {
        match method {
            "workspace/applyEdit" => {
                self.applied
                    .push(params.get("edit").cloned().unwrap_or(Value::Null));
                Ok(json!({"applied": true}))
            }
            "workspace/configuration" => {
                let items = params
                    .get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|i| match i.get("section").and_then(Value::as_str) {
                            Some("formattingOptions") => json!({
                                "tabSize": self.indent.0,
                                "indentSize": self.indent.0,
                                "insertSpaces": self.indent.1,
                                "convertTabsToSpaces": self.indent.1
                            }),
                            _ => Value::Null,
                        })
                        .collect(),
                ))
            }
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "workspace/workspaceFolders"
            | "_typescript.rename" => Ok(Value::Null),
            _ => Err(()),
        }
    }

    /// Makes the server see `text` as the content of `path` (opening the document, or
    /// replacing its text when it changed).
    pub fn sync(&mut self, path: &Path, text: &str) -> Result<(), FkError> {
        let u = uri(path);
        match self.open.get(&u) {
            Some((_, t)) if t == text => Ok(()),
            Some((v, _)) => {
                let v = v + 1;
                self.diagnosed.remove(&u);
                self.open.insert(u.clone(), (v, text.to_string()));
                self.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": u, "version": v}, "contentChanges": [{"text": text}]}),
                )
            }
            None => {
                self.open.insert(u.clone(), (1, text.to_string()));
                self.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": u, "languageId": ServerKind::language_id(path), "version": 1, "text": text}}),
                )
            }
        }
    }

    /// Whether a document is open in the server.
    pub fn is_open(&self, path: &Path) -> bool {
        self.open.contains_key(&uri(path))
    }

    /// Tells the server that a file it does not hold open now has `text` on disk: opened
    /// with that text and closed again, so the server takes the new content at once without
    /// keeping (and diagnosing) every file a refactor wrote.
    pub fn changed_on_disk(&mut self, path: &Path, text: &str) -> Result<(), FkError> {
        if self.is_open(path) {
            return self.sync(path, text);
        }
        self.sync(path, text)?;
        self.close(path)
    }

    /// The documents open in the server.
    pub fn open_documents(&self) -> Vec<PathBuf> {
        self.open.keys().filter_map(|u| path_of(u)).collect()
    }

    /// Closes a document (one that no longer exists).
    pub fn close(&mut self, path: &Path) -> Result<(), FkError> {
        let u = uri(path);
        if self.open.remove(&u).is_some() {
            self.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}))?;
        }
        Ok(())
    }

    /// textDocument/rename at an LSP position.
    pub fn rename(
        &mut self,
        path: &Path,
        pos: (u32, u32),
        new_name: &str,
    ) -> Result<WsEdit, FkError> {
        let r = self.request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(path)}, "position": {"line": pos.0, "character": pos.1}, "newName": new_name}),
        )?;
        if r.is_null() {
            return Err(FkError::new(
                ErrorCode::InvalidArgument,
                "the language server cannot rename this symbol (it is not a renameable name, or a library's)",
            )
            .with_hint("point at a declaration or a use of a symbol of the workspace"));
        }
        let mut e = WsEdit::default();
        e.add(&r);
        Ok(e)
    }

    /// Runs a command and collects the edits the server asks to apply while it runs.
    pub fn execute(&mut self, command: &str, arguments: Value) -> Result<WsEdit, FkError> {
        self.applied.clear();
        self.last_error = None;
        self.request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": arguments}),
        )?;
        let mut e = WsEdit::default();
        for v in std::mem::take(&mut self.applied) {
            e.add(&v);
        }
        Ok(e)
    }

    /// The code actions at a range (LSP positions), with `only` kinds and diagnostics.
    pub fn code_actions(
        &mut self,
        path: &Path,
        range: LspRange,
        only: Option<&[&str]>,
        diagnostics: Value,
    ) -> Result<Vec<Value>, FkError> {
        let mut context = json!({"diagnostics": diagnostics, "triggerKind": 1});
        if let Some(o) = only {
            context["only"] = json!(o);
        }
        let r = self.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(path)},
                "range": {"start": {"line": range.0.0, "character": range.0.1}, "end": {"line": range.1.0, "character": range.1.1}},
                "context": context
            }),
        )?;
        Ok(r.as_array().cloned().unwrap_or_default())
    }

    /// The workspace edit of a code action (or command): its edit, resolved if need be, and
    /// what its command asks to apply.
    pub fn perform(&mut self, action: &Value) -> Result<WsEdit, FkError> {
        let mut action = action.clone();
        if action.get("edit").is_none()
            && action.get("data").is_some()
            && action.get("command").is_none()
        {
            action = self.request("codeAction/resolve", action)?;
        }
        let mut e = WsEdit::default();
        if let Some(edit) = action.get("edit") {
            e.add(edit);
        }
        // A Command literal has a string `command`; a CodeAction may carry a Command.
        let command = match action.get("command") {
            Some(Value::String(_)) => Some(action.clone()),
            Some(c @ Value::Object(_)) => Some(c.clone()),
            _ => None,
        };
        if let Some(c) = command {
            let name = c.get("command").and_then(Value::as_str).unwrap_or("");
            let args = c.get("arguments").cloned().unwrap_or(json!([]));
            let more = self.execute(name, args)?;
            for (p, edits) in more.files {
                e.files.entry(p).or_default().extend(edits);
            }
            e.created.extend(more.created);
            e.unsupported.extend(more.unsupported);
        }
        if e.is_empty()
            && let Some(msg) = self.last_error.take()
        {
            return Err(FkError::new(
                ErrorCode::InvalidArgument,
                format!("the language server could not apply it: {msg}"),
            ));
        }
        Ok(e)
    }

    /// Asks the server to stop, then ends it.
    pub fn shutdown(mut self) {
        if self.alive() {
            let _ = self.send(&json!({"jsonrpc": "2.0", "id": -1, "method": "shutdown"}));
            let _ = self.notify("exit", Value::Null);
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if !self.alive() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A server is never left behind by a client that was not shut down.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The pool of warm servers

type Slot = Arc<Mutex<Option<Client>>>;

static POOL: LazyLock<Mutex<HashMap<(PathBuf, ServerKind), Slot>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Runs `f` with the warm server of `launch.kind` on `root`, starting `launch` when there is
/// none (or the one there died). A server whose request failed at the transport level is
/// dropped, so the next call starts a fresh one.
pub fn with_client<R>(
    launch: &Launch,
    root: &Path,
    f: impl FnOnce(&mut Client) -> Result<R, FkError>,
) -> Result<R, FkError> {
    let kind = launch.kind;
    let slot = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.entry((root.to_path_buf(), kind))
            .or_insert_with(|| Arc::new(Mutex::new(None)))
            .clone()
    };
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    if guard.as_mut().is_some_and(|c| !c.alive()) {
        *guard = None;
    }
    if guard.is_none() {
        *guard = Some(Client::start(launch, root)?);
    }
    let client = guard.as_mut().expect("started above");
    let r = f(client);
    if let Err(e) = &r
        && e.code == ErrorCode::Io
        && let Some(c) = guard.take()
    {
        c.shutdown();
    }
    r
}

/// Runs `f` with the warm server of `kind` on `root` if one is running; starts none.
pub fn with_running_client<R>(
    root: &Path,
    kind: ServerKind,
    f: impl FnOnce(&mut Client) -> Result<R, FkError>,
) -> Option<Result<R, FkError>> {
    let slot = {
        let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.get(&(root.to_path_buf(), kind))?.clone()
    };
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    let client = guard.as_mut()?;
    if !client.alive() {
        return None;
    }
    Some(f(client))
}

/// Stops every server of the pool (a CLI call's end, a server's shutdown).
pub fn shutdown_all() {
    let slots: Vec<Slot> = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.drain().map(|(_, s)| s).collect()
    };
    for s in slots {
        if let Some(c) = s.lock().unwrap_or_else(|e| e.into_inner()).take() {
            c.shutdown();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_utf16() {
        let t = "a\nxé😀b\n";
        assert_eq!(position(t, t.find('b').unwrap()), (1, 4));
        assert_eq!(offset(t, 1, 4), t.find('b').unwrap());
        assert_eq!(offset(t, 5, 0), t.len());
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/c#d.ts");
        assert_eq!(uri(p), "file:///tmp/a%20b/c%23d.ts");
        assert_eq!(path_of(&uri(p)).unwrap(), p);
    }

    #[test]
    fn framing_round_trips() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"a": "é"})).unwrap();
        let mut r = BufReader::new(&buf[..]);
        assert_eq!(read_message(&mut r).unwrap(), json!({"a": "é"}));
    }
}
