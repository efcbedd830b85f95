//! One running language server: started, initialized, spoken to with requests and
//! notifications (its own requests answered), documents kept in sync, and stopped.

use super::*;

use crate::framing::{read_message, write_message};

/// A running language server.
pub struct Client {
    pub kind: ServerKind,
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) rx: Receiver<Value>,
    pub(crate) next_id: i64,
    /// Documents open in the server: uri -> (version, text).
    pub(crate) open: HashMap<String, (i64, String)>,
    /// Edits the server asked the client to apply (`workspace/applyEdit`) since last taken.
    pub(crate) applied: Vec<Value>,
    /// The last error message the server showed.
    pub(crate) last_error: Option<String>,
    /// Documents whose diagnostics the server has published since they last changed.
    pub(crate) diagnosed: std::collections::HashSet<String>,
    /// The indentation the server formats new code with: (tab size, spaces).
    pub(crate) indent: (u32, bool),
}

/// Merges the object `extra` into `base`, key by key (objects recursively).
pub(crate) fn merge(base: &mut Value, extra: &Value) {
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

pub(crate) fn lsp_error(method: &str, msg: impl std::fmt::Display) -> FkError {
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
    pub(crate) fn wait_log(&mut self, needle: &str, timeout: Duration) -> Result<(), FkError> {
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

    pub(crate) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub(crate) fn send(&mut self, v: &Value) -> Result<(), FkError> {
        write_message(&mut self.stdin, v).map_err(|e| {
            lsp_error(
                v.get("method").and_then(Value::as_str).unwrap_or("reply"),
                format!("the server's input is closed ({e})"),
            )
        })
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) -> Result<(), FkError> {
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
    pub(crate) fn handle(&mut self, msg: Value) -> Result<(), FkError> {
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
    pub(crate) fn serve(&mut self, method: &str, params: &Value) -> Result<Value, ()> {
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
}

impl Client {
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
