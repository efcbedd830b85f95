//! The harness of the golden tables (`*_golden.rs`): one row per call an agent trained on a
//! real tool makes, the reply it must get, and the source it was taken from. Every row runs
//! three times against the real binary, in a fresh workspace each time: through `filekit
//! call`, over MCP stdio (`filekit serve --tools <dialect>`, spoken to in JSON-RPC lines), and
//! over MCP streamable HTTP (one `filekit serve --http` per table, one session per row whose
//! client roots are the row's workspace; a plain HTTP/1.1 client over a socket). Over MCP
//! a row is checked against the text content only, what a client hands the model (with the
//! strings of that text when it is JSON), never against structuredContent, which many
//! clients do not show (and the tables whose real tools answer in text alone do not send);
//! the typed reply, with every field, is what `filekit call` prints.

#![allow(dead_code)] // each table uses the part it needs

use crate::common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// No call in these tables takes long; a hung process fails its case instead of the suite.
const TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The tool ran and succeeded (exit 0; MCP isError false).
    Ok,
    /// The tool ran and failed (exit 1; MCP isError true).
    Failed,
    /// The call was refused before anything was attempted (exit 2; MCP isError true and
    /// `_meta["filekit/rejected"]`).
    Rejected,
}

pub struct Case {
    pub name: &'static str,
    pub source: &'static str,
    /// Files the workspace starts with.
    pub files: Vec<(&'static str, String)>,
    /// Files the workspace starts with that are not UTF-8 (Latin-1 text, sounds).
    pub bytes: Vec<(&'static str, Vec<u8>)>,
    /// Calls made before the row's call, through `filekit call` in the same workspace and
    /// state (a change to undo, a lease held by another agent); each must succeed.
    pub given: Vec<(&'static str, Value)>,
    pub tool: &'static str,
    /// `$ROOT` in a string stands for the workspace root (absolute paths, as Claude Code sends).
    pub args: Value,
    pub outcome: Outcome,
    /// Text the reply must show (`$ROOT` as above), over both channels.
    pub shows: Vec<&'static str>,
    /// Text the reply must not show.
    pub hides: Vec<&'static str>,
    /// Text the model must read over MCP (the text content), beyond `shows`.
    pub reads: Vec<&'static str>,
    /// Text the model must not read over MCP (where the JSON of `filekit call` may have it).
    pub unread: Vec<&'static str>,
    /// Text the typed reply must carry (what `filekit call` prints), beyond `shows`: a table
    /// whose real tools answer in text alone sends a model the text only.
    pub typed: Vec<&'static str>,
    /// A failure that still wrote some of its edits (a batch that goes on after a failed
    /// edit): the files are checked by `after` only.
    pub partial: bool,
    /// Files after the call: their content, or `None` for absent. A rejected or failed call
    /// must also leave every file as it was.
    pub after: Vec<(&'static str, Option<String>)>,
}

pub fn case(name: &'static str, source: &'static str, tool: &'static str, args: Value) -> Case {
    Case {
        name,
        source,
        files: Vec::new(),
        bytes: Vec::new(),
        given: Vec::new(),
        tool,
        args,
        outcome: Outcome::Ok,
        shows: Vec::new(),
        hides: Vec::new(),
        reads: Vec::new(),
        unread: Vec::new(),
        typed: Vec::new(),
        partial: false,
        after: Vec::new(),
    }
}

impl Case {
    pub fn file(mut self, path: &'static str, content: impl Into<String>) -> Self {
        self.files.push((path, content.into()));
        self
    }
    pub fn bytes(mut self, path: &'static str, content: impl Into<Vec<u8>>) -> Self {
        self.bytes.push((path, content.into()));
        self
    }
    pub fn given(mut self, tool: &'static str, args: Value) -> Self {
        self.given.push((tool, args));
        self
    }
    pub fn fails(mut self) -> Self {
        self.outcome = Outcome::Failed;
        self
    }
    pub fn rejected(mut self) -> Self {
        self.outcome = Outcome::Rejected;
        self
    }
    pub fn shows(mut self, needles: &[&'static str]) -> Self {
        self.shows.extend_from_slice(needles);
        self
    }
    pub fn hides(mut self, needles: &[&'static str]) -> Self {
        self.hides.extend_from_slice(needles);
        self
    }
    pub fn partly(mut self) -> Self {
        self.partial = true;
        self
    }
    pub fn reads(mut self, needles: &[&'static str]) -> Self {
        self.reads.extend_from_slice(needles);
        self
    }
    pub fn unread(mut self, needles: &[&'static str]) -> Self {
        self.unread.extend_from_slice(needles);
        self
    }
    pub fn typed(mut self, needles: &[&'static str]) -> Self {
        self.typed.extend_from_slice(needles);
        self
    }
    pub fn then(mut self, path: &'static str, content: Option<&str>) -> Self {
        self.after.push((path, content.map(str::to_string)));
        self
    }
}

/// `$ROOT` replaced by the workspace root, in every string of a value.
fn rooted(v: &Value, root: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("$ROOT", root)),
        Value::Array(a) => Value::Array(a.iter().map(|x| rooted(x, root)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), rooted(x, root)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Every string in a value, one per line: what a reply says, whatever its shape.
fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn setup(c: &Case) -> Sandbox {
    setup_in(c, None)
}

/// [`setup`], with the calls given before the row made in the state home `state` (that of a
/// server shared by the table's rows) instead of the sandbox's own.
fn setup_in(c: &Case, state: Option<&Path>) -> Sandbox {
    let sb = Sandbox::new();
    for (path, content) in &c.files {
        sb.write(path, content);
    }
    for (path, content) in &c.bytes {
        sb.write_bytes(path, content);
    }
    for (tool, args) in &c.given {
        let a = via_call_in(
            &sb,
            state.unwrap_or(sb.xdg_state_home()),
            tool,
            &rooted(args, &root_of(&sb)),
        );
        assert!(
            a.outcome == Outcome::Ok,
            "{}: the call given before it, {tool}, did not succeed:\n{}",
            c.name,
            a.said
        );
    }
    sb
}

fn root_of(sb: &Sandbox) -> String {
    sb.root().canonicalize().unwrap().display().to_string()
}

/// What one channel answered: the outcome and everything the reply says.
struct Answer {
    outcome: Outcome,
    said: String,
    /// The JSON reply (`filekit call`), or `null`.
    value: Value,
}

/// Waits for a child with the table's timeout, reading its output meanwhile.
fn finish(mut child: Child, what: &str) -> (i32, String, String) {
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: no answer within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        status.code().unwrap_or(-1),
        out_reader.join().unwrap(),
        err_reader.join().unwrap(),
    )
}

/// The row's call through `filekit call --tools <dialect>`: the tool of the row's table, also
/// where another table has a tool of the same name.
fn via_call(sb: &Sandbox, dialect: &str, tool: &str, args: &Value) -> Answer {
    call_with(sb, sb.xdg_state_home(), Some(dialect), tool, args)
}

/// A call given before a row, to a tool of any table.
fn via_call_in(sb: &Sandbox, state: &Path, tool: &str, args: &Value) -> Answer {
    call_with(sb, state, None, tool, args)
}

fn call_with(
    sb: &Sandbox,
    state: &Path,
    dialect: Option<&str>,
    tool: &str,
    args: &Value,
) -> Answer {
    let mut command = Command::new(env!("CARGO_BIN_EXE_filekit"));
    command
        .current_dir(sb.root())
        .arg("--root")
        .arg(sb.root())
        .arg("call");
    if let Some(dialect) = dialect {
        command.args(["--tools", dialect]);
    }
    let mut child = command
        .env("XDG_STATE_HOME", state)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run filekit call");
    let call = json!({"tool_name": tool, "tool_args": args});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(call.to_string().as_bytes())
        .unwrap();
    let (code, stdout, stderr) = finish(child, &format!("filekit call {tool}"));
    let outcome = match code {
        0 => Outcome::Ok,
        1 => Outcome::Failed,
        2 => Outcome::Rejected,
        other => panic!("filekit call {tool}: exit code {other}\n{stdout}\n{stderr}"),
    };
    let value: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("filekit call {tool}: not JSON ({e}):\n{stdout}\n{stderr}"));
    let mut said = String::new();
    strings(&value, &mut said);
    said.push_str(&stderr);
    Answer {
        outcome,
        said,
        value,
    }
}

/// `tools/call` of `tool` on a stdio session, as an answer.
fn call_over(mcp: &mut McpStdio, tool: &str, args: &Value) -> Answer {
    let response = mcp.request("tools/call", json!({"name": tool, "arguments": args}));
    answer_of(tool, &response)
}

/// What a `tools/call` response says: its outcome, the text content (and its strings when it
/// is JSON), and the structured reply's strings when the table asks for them.
fn answer_of(tool: &str, response: &Value) -> Answer {
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("tools/call {tool}: no result: {response}"));
    let is_error = result["isError"].as_bool().unwrap_or(false);
    let rejected = result["_meta"]["filekit/rejected"] == json!(true);
    let outcome = match (is_error, rejected) {
        (false, false) => Outcome::Ok,
        (true, false) => Outcome::Failed,
        (true, true) => Outcome::Rejected,
        (false, true) => panic!("tools/call {tool}: rejected but not an error: {result}"),
    };
    // What the model reads: the text content (and, when it is JSON, its strings).
    let mut said = String::new();
    for block in result["content"].as_array().into_iter().flatten() {
        if let Some(text) = block["text"].as_str() {
            said.push_str(text);
            said.push('\n');
            if let Ok(value) = serde_json::from_str::<Value>(text) {
                strings(&value, &mut said);
            }
        } else {
            // Another block (an image, a sound, a file) as its kind and what names it.
            let kind = block["type"].as_str().unwrap_or("?");
            let inner = if kind == "resource" {
                &block["resource"]
            } else {
                block
            };
            let mime = inner["mimeType"].as_str().unwrap_or("");
            let uri = inner["uri"].as_str().unwrap_or("");
            said.push_str(&format!("[{kind} block: {mime} {uri}]\n"));
        }
    }
    Answer {
        outcome,
        said,
        value: result["structuredContent"].clone(),
    }
}

/// One `filekit serve --tools <dialect> --http 0` for a whole table, without `--root`: each
/// row is an MCP session of its own whose client announces the row's sandbox as its root
/// (the server asks with roots/list on the session's GET stream), so one server process
/// serves every row. Its state home is shared by the rows' `given` calls.
struct HttpServer {
    child: Child,
    /// `127.0.0.1:port`.
    addr: String,
    token: String,
    state: tempfile::TempDir,
    /// What the server says on stderr, for a failure's message.
    said: Receiver<String>,
}

impl HttpServer {
    fn start(dialect: &str) -> HttpServer {
        let state = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(state.path())
            .args(["serve", "--tools", dialect, "--http", "0"])
            .env("XDG_STATE_HOME", state.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run filekit serve --http");
        let stderr = child.stderr.take().unwrap();
        let (tx, said) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (mut addr, mut token) = (None, None);
        let deadline = Instant::now() + TIMEOUT;
        while addr.is_none() || token.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = said.recv_timeout(left) else {
                let _ = child.kill();
                panic!("filekit serve --http did not say where it listens within {TIMEOUT:?}");
            };
            if let Some(rest) = line.split("listening on http://").nth(1) {
                addr = rest.split('/').next().map(str::to_string);
            }
            if let Some(rest) = line.split("bearer token ").nth(1) {
                token = rest.split_whitespace().next().map(str::to_string);
            }
        }
        HttpServer {
            child,
            addr: addr.unwrap(),
            token: token.unwrap(),
            state,
            said,
        }
    }

    /// One HTTP/1.1 exchange on a new connection (closed after it): the status, the session
    /// id the server gave, and the body read to its end (chunks joined).
    fn exchange(&self, method: &str, session: Option<&str>, body: Option<&Value>) -> Http {
        let mut stream = self.connect();
        self.send(&mut stream, method, session, body, "close");
        let mut reader = BufReader::new(stream);
        let (status, headers) = read_head(&mut reader);
        let mut body = String::new();
        if headers.contains("transfer-encoding: chunked") {
            while let Some(chunk) = read_chunk(&mut reader) {
                body.push_str(&chunk);
            }
        } else {
            let _ = reader.read_to_string(&mut body);
        }
        let session = header(&headers, "mcp-session-id");
        Http {
            status,
            session,
            body,
        }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.addr).expect("connect to filekit serve --http");
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream
    }

    fn send(
        &self,
        stream: &mut TcpStream,
        method: &str,
        session: Option<&str>,
        body: Option<&Value>,
        connection: &str,
    ) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: {connection}\r\n",
            self.addr,
            self.token,
            body.len()
        );
        if let Some(id) = session {
            head.push_str(&format!(
                "Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
    }

    /// A session whose root is the sandbox: initialize (with the roots capability), the
    /// roots/list the server then sends on the GET stream answered with `root`.
    fn session(&self, root: &str) -> String {
        let init = self.exchange(
            "POST",
            None,
            Some(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"roots": {"listChanged": true}},
                "clientInfo": {"name": "golden", "version": "1"}}}),
            ),
        );
        assert_eq!(init.status, 200, "initialize: {}", init.body);
        let id = init.session.expect("initialize gave no Mcp-Session-Id");
        let note = self.exchange(
            "POST",
            Some(&id),
            Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        );
        assert!(note.status / 100 == 2, "initialized: {}", note.status);
        // The server's roots/list comes on the session's standalone stream.
        let mut stream = self.connect();
        self.send(&mut stream, "GET", Some(&id), None, "keep-alive");
        let mut reader = BufReader::new(stream);
        let (status, _) = read_head(&mut reader);
        assert_eq!(status, 200, "GET stream of the session");
        let mut events = String::new();
        let ask = loop {
            let chunk = read_chunk(&mut reader).expect("the GET stream ended before roots/list");
            events.push_str(&chunk);
            if let Some(m) = sse_messages(&events)
                .into_iter()
                .find(|m| m["method"] == "roots/list")
            {
                break m;
            }
        };
        let uri = format!("file://{root}");
        let answer = self.exchange(
            "POST",
            Some(&id),
            Some(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": uri, "name": "sandbox"}]}})),
        );
        assert!(
            answer.status / 100 == 2,
            "roots/list answer: {}",
            answer.status
        );
        id
    }

    fn call(&self, session: &str, tool: &str, args: &Value) -> Answer {
        let reply = self.exchange(
            "POST",
            Some(session),
            Some(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": args}})),
        );
        let response = sse_messages(&reply.body)
            .into_iter()
            .chain(serde_json::from_str::<Value>(&reply.body).ok())
            .find(|m| m["id"] == json!(2))
            .unwrap_or_else(|| {
                panic!("tools/call {tool} over HTTP: no response in {}", reply.body)
            });
        let _ = self.exchange("DELETE", Some(session), None);
        answer_of(tool, &response)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Http {
    status: u32,
    session: Option<String>,
    body: String,
}

/// The status line and the headers (lower-cased), up to the blank line.
fn read_head(reader: &mut BufReader<TcpStream>) -> (u32, String) {
    let mut status = String::new();
    reader.read_line(&mut status).expect("an HTTP status line");
    let code = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut headers = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        headers.push_str(&line.to_ascii_lowercase());
    }
    (code, headers)
}

fn header(headers: &str, name: &str) -> Option<String> {
    headers
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .map(|v| v.trim().to_string())
}

/// The next chunk of a chunked body, or `None` at its end.
fn read_chunk(reader: &mut BufReader<TcpStream>) -> Option<String> {
    let mut size = String::new();
    if reader.read_line(&mut size).ok()? == 0 {
        return None;
    }
    let size = usize::from_str_radix(size.trim(), 16).ok()?;
    let mut data = vec![0; size + 2];
    reader.read_exact(&mut data).ok()?;
    (size > 0).then(|| String::from_utf8_lossy(&data[..size]).into_owned())
}

/// The JSON messages of an event stream's `data:` lines.
fn sse_messages(events: &str) -> Vec<Value> {
    events
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// Runs every case over MCP streamable HTTP: one `filekit serve --http` for the table, one
/// session per row with the row's sandbox as its root.
pub fn over_mcp_http(dialect: &str, all: &[Case]) {
    let server = HttpServer::start(dialect);
    let mut wrong = Vec::new();
    for c in all {
        let sb = setup_in(c, Some(server.state.path()));
        let before = contents(&sb, c);
        let session = server.session(&root_of(&sb));
        let answer = server.call(&session, c.tool, &rooted(&c.args, &root_of(&sb)));
        wrong.extend(check(c, "MCP HTTP", &sb, &before, &answer));
    }
    let log: Vec<String> = server.said.try_iter().collect();
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n\n{}\n\nfilekit serve said:\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n"),
        log.join("\n")
    );
    println!(
        "{} golden cases of the {dialect} dialect pass over MCP HTTP",
        all.len()
    );
}

/// Checks one answer against its row; returns what is wrong, if anything.
fn check(
    c: &Case,
    channel: &str,
    sb: &Sandbox,
    before: &[(String, Option<String>)],
    a: &Answer,
) -> Vec<String> {
    let root = root_of(sb);
    let mut wrong = Vec::new();
    let at = format!("{} [{channel}] ({})", c.name, c.source);
    // What must not be said is looked for with the sandbox's root written `$ROOT`: the root
    // is a random temporary name, which may hold the text by chance (`/tmp/.tmpgu5one`).
    let masked = a.said.replace(&root, "$ROOT");
    if a.outcome != c.outcome {
        wrong.push(format!(
            "{at}: outcome {:?}, expected {:?}\n{}",
            a.outcome, c.outcome, a.said
        ));
    }
    for n in &c.shows {
        let n = n.replace("$ROOT", &root);
        if !a.said.contains(&n) {
            wrong.push(format!("{at}: expected {n:?} in the reply:\n{}", a.said));
        }
    }
    if !channel.starts_with("MCP") {
        for n in &c.typed {
            let n = n.replace("$ROOT", &root);
            if !a.said.contains(&n) {
                wrong.push(format!(
                    "{at}: expected {n:?} in the typed reply:\n{}",
                    a.said
                ));
            }
        }
    }
    if channel.starts_with("MCP") {
        for n in &c.reads {
            let n = n.replace("$ROOT", &root);
            if !a.said.contains(&n) {
                wrong.push(format!(
                    "{at}: expected {n:?} in the text the model reads:\n{}",
                    a.said
                ));
            }
        }
        for n in &c.unread {
            if masked.contains(n) {
                wrong.push(format!(
                    "{at}: {n:?} should not be in the text the model reads:\n{}",
                    a.said
                ));
            }
        }
    }
    for n in &c.hides {
        if masked.contains(n) {
            wrong.push(format!(
                "{at}: {n:?} should not be in the reply:\n{}",
                a.said
            ));
        }
    }
    for (path, content) in &c.after {
        let now = std::fs::read_to_string(sb.path(path)).ok();
        if &now != content {
            wrong.push(format!("{at}: {path} is {now:?}, expected {content:?}"));
        }
    }
    if c.outcome != Outcome::Ok && !c.partial {
        for (path, content) in before {
            let now = std::fs::read_to_string(sb.path(path)).ok();
            if &now != content {
                wrong.push(format!("{at}: a call that did not succeed changed {path}"));
            }
        }
    }
    wrong
}

fn contents(sb: &Sandbox, c: &Case) -> Vec<(String, Option<String>)> {
    c.files
        .iter()
        .map(|(p, _)| (p.to_string(), std::fs::read_to_string(sb.path(p)).ok()))
        .collect()
}

/// Runs every case through `filekit call`, panicking with every difference, and checks each
/// reply against the output schema the table lists for its tool (`filekit tools --json`, the
/// fields one level deep) and against its whole schema (every field at every depth, as
/// `docs/tools/` gives it).
pub fn through_filekit_call_against_schemas(dialect: &str, all: &[Case]) {
    let listing = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["tools", "--json", "--dialect", dialect])
        .output()
        .expect("run filekit tools");
    let tools: Vec<Value> = serde_json::from_slice(&listing.stdout).expect("a JSON list of tools");
    let schema_of = |tool: &str| {
        tools
            .iter()
            .find(|t| t["name"] == tool)
            .map(|t| t["output_schema"].clone())
            .unwrap_or_else(|| panic!("{tool} is not a tool of {dialect}"))
    };
    // The dialect's table and its validators are built once per tool, not once per case:
    // compiling two schemas per row was most of this test's time.
    let table = filekit_dialects::tools(Some(dialect));
    let mut validators: std::collections::HashMap<&str, Vec<(&str, Value, jsonschema::Validator)>> =
        std::collections::HashMap::new();
    let mut wrong = Vec::new();
    for c in all {
        let sb = setup(c);
        let before = contents(&sb, c);
        let answer = via_call(&sb, dialect, c.tool, &rooted(&c.args, &root_of(&sb)));
        wrong.extend(check(c, "filekit call", &sb, &before, &answer));
        let forms = validators.entry(c.tool).or_insert_with(|| {
            let spec = table
                .iter()
                .find(|t| t.name == c.tool)
                .unwrap_or_else(|| panic!("{} is not a tool of {dialect}", c.tool));
            [
                ("listed", schema_of(c.tool)),
                ("whole", filekit_dialects::documented_output_schema(spec)),
            ]
            .into_iter()
            .map(|(form, schema)| {
                let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| {
                    panic!("{}: the {form} output schema does not compile: {e}", c.tool)
                });
                (form, schema, validator)
            })
            .collect()
        });
        for (form, schema, validator) in forms.iter() {
            let form = *form;
            // As MCP carries it: a reply that is not an object (fs_read of several files) as
            // `{results}`.
            let structured = filekit_mcp::structured(answer.value.clone());
            let errors: Vec<String> = validator
                .iter_errors(&structured)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            // A reply carries no field its schema lacks (the schemas leave objects open): its
            // keys are the schema's fields, or those of one of its variants (at any depth of
            // variants of variants).
            fn names(key: &str, schema: &Value) -> bool {
                schema["properties"].get(key).is_some()
                    || ["oneOf", "anyOf"].iter().any(|k| {
                        schema[*k]
                            .as_array()
                            .is_some_and(|vs| vs.iter().any(|v| names(key, v)))
                    })
            }
            let named = |key: &String| names(key, schema);
            if let Some(obj) = structured.as_object() {
                let unnamed: Vec<&String> = obj.keys().filter(|k| !named(k)).collect();
                if !unnamed.is_empty() {
                    wrong.push(format!(
                        "{} [filekit call]: {}'s {form} output schema does not name {unnamed:?}\n{}",
                        c.name, c.tool, answer.value
                    ));
                }
            }
            if !errors.is_empty() {
                wrong.push(format!(
                    "{} [filekit call]: the reply does not fit {}'s {form} output schema: {}\n{}",
                    c.name,
                    c.tool,
                    errors.join("; "),
                    answer.value
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n")
    );
}

/// Runs every case over MCP stdio against `filekit serve --tools <dialect>`.
pub fn over_mcp_stdio(dialect: &str, all: &[Case]) {
    let mut wrong = Vec::new();
    for c in all {
        let sb = setup(c);
        let before = contents(&sb, c);
        let mut mcp = McpStdio::start(sb.command(&["serve", "--tools", dialect]));
        let answer = call_over(&mut mcp, c.tool, &rooted(&c.args, &root_of(&sb)));
        drop(mcp);
        wrong.extend(check(c, "MCP stdio", &sb, &before, &answer));
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n")
    );
    println!(
        "{} golden cases of the {dialect} dialect pass over MCP stdio",
        all.len()
    );
}

/// Every case names its source and checks something; the names are unique; every tool of
/// the table has a row; there are at least `min` rows.
pub fn well_formed(dialect: &str, all: &[Case], tools: &[&str], min: usize) {
    let mut names = std::collections::HashSet::new();
    for c in all {
        assert!(names.insert(c.name), "two cases named {}", c.name);
        assert!(c.source.len() > 20, "{}: no source", c.name);
        assert!(
            !c.shows.is_empty()
                || !c.after.is_empty()
                || !c.reads.is_empty()
                || !c.typed.is_empty(),
            "{}: checks nothing",
            c.name
        );
        assert!(
            tools.contains(&c.tool),
            "{}: {} is not a {dialect} tool",
            c.name,
            c.tool
        );
    }
    for t in tools {
        assert!(all.iter().any(|c| c.tool == *t), "no case of {t}");
    }
    assert!(
        all.len() >= min,
        "{} cases of {dialect}, fewer than {min}",
        all.len()
    );
}
