//! The stdio transport: one JSON-RPC message per line in, one per line out.
//!
//! rmcp's line transport leaves a client waiting at its edges: a line that is not JSON gets no
//! answer, a line over 16 MiB is dropped without a word, a `tools/call` whose `arguments` is not
//! an object (or that has no `name`) is taken for an unknown method (-32601), and a request
//! before `initialize` gets an answer about missing `_meta` keys. This transport reads the
//! lines itself and answers each of those as JSON-RPC says, before rmcp sees them:
//!
//! - not JSON: -32700 (id null: none could be read);
//! - over [`MAX_MESSAGE_BYTES`]: -32600 naming the limit, with the request's id when its
//!   top-level `id` could be read while the line streamed past (the line itself is never
//!   held: memory stays bounded by the limit);
//! - JSON that is not a message (an array, a scalar, no `jsonrpc`...): -32600;
//! - a standard MCP method with params of the wrong shape (`tools/call` without a string
//!   `name`, `arguments` not an object): -32602;
//! - a request other than `initialize`, `ping` or `server/discover` before the lifecycle
//!   started (and without the inline protocol metadata of stateless clients): -32600 saying to
//!   send `initialize` first; a notification then is dropped (rmcp would end the session).
//!
//! Every message goes out through one writer task, in the order it was handed to the
//! transport: rmcp sends each message from a task of its own, so without this a progress
//! notification handed out before a reply could reach the client after it.

use filekit_core::{FkError, Limit};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest message (one line) the stdio transport accepts: as the HTTP transport's body,
/// far above any sane request (a whole file to write is a few megabytes), and a bound on what
/// one line can make the server hold.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The MCP methods a client sends a server (their params have a shape the specification
/// gives; rmcp takes a request of one of them whose params do not fit for an unknown method).
const STANDARD_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "completion/complete",
    "logging/setLevel",
];

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// What a read of one line gave.
enum LineRead {
    Line,
    /// A line over the limit: its size and the top-level `id` it had, if one was seen.
    Oversized(usize, Option<Value>),
    Eof,
    Io(std::io::Error),
}

/// What to do with a line.
enum Judged {
    Deliver(Box<ClientJsonRpcMessage>),
    Reply(Vec<u8>),
    Ignore,
}

/// The stdio transport (see the module documentation).
pub struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Set while the rest of an oversized line streams past.
    oversized: Option<(usize, IdScanner)>,
    /// The writer's queue. Unbounded as rmcp's own sending is (it spawns a task per message
    /// without waiting for it): what a client that stops reading leaves here, rmcp would hold.
    out: Option<mpsc::UnboundedSender<Vec<u8>>>,
    writer: Option<tokio::task::JoinHandle<()>>,
    /// A request other than ping/discover has gone to rmcp: the lifecycle has started.
    started: bool,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, mut write: W) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let writer = tokio::spawn(async move {
            while let Some(buf) = rx.recv().await {
                if write.write_all(&buf).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            oversized: None,
            out: Some(tx),
            writer: Some(writer),
            started: false,
        }
    }

    /// Reads one `\n`-terminated line into `self.line`, never past [`MAX_MESSAGE_BYTES`].
    /// Cancellation-safe: a partial line (or the state of one being skipped) stays in `self`.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(a) => a,
                Err(e) => return LineRead::Io(e),
            };
            if available.is_empty() {
                return LineRead::Eof;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            let mut done = None;
            if let Some((size, scanner)) = &mut self.oversized {
                *size += take;
                scanner.feed(chunk);
                if newline.is_some() {
                    done = Some(LineRead::Oversized(*size, scanner.id.take()));
                }
            } else if self.line.len() + take > MAX_MESSAGE_BYTES + 1 {
                // Over the limit: from here on the line is only measured and scanned for its
                // id, never kept.
                let mut scanner = IdScanner::default();
                scanner.feed(&self.line);
                scanner.feed(chunk);
                let size = self.line.len() + take;
                self.line = Vec::new();
                if newline.is_some() {
                    done = Some(LineRead::Oversized(size, scanner.id.take()));
                } else {
                    self.oversized = Some((size, scanner));
                }
            } else {
                self.line.extend_from_slice(chunk);
                if newline.is_some() {
                    done = Some(LineRead::Line);
                }
            }
            self.read.consume(take);
            if let Some(d) = done {
                if matches!(d, LineRead::Oversized(..)) {
                    self.oversized = None;
                }
                return d;
            }
        }
    }

    /// Hands a line to the writer.
    fn queue(&self, line: Vec<u8>) -> std::io::Result<()> {
        match &self.out {
            Some(out) => out.send(line).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
            }),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the transport is closed",
            )),
        }
    }

    /// Decides what to do with a whole line (without its line break).
    fn judge(&mut self, line: &[u8]) -> Judged {
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                return Judged::Reply(error_line(
                    Value::Null,
                    PARSE_ERROR,
                    format!("Parse error: the message is not JSON ({e})"),
                    None,
                ));
            }
        };
        let Some(object) = value.as_object() else {
            return Judged::Reply(error_line(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: a message is one JSON-RPC object (MCP has no batches)".into(),
                None,
            ));
        };
        let id = object.get("id").cloned();
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let (Some(m), Some(id)) = (&method, &id)
            && !self.started
            && !matches!(m.as_str(), "initialize" | "ping" | "server/discover")
            && !has_inline_protocol_version(&value)
        {
            return Judged::Reply(error_line(
                id.clone(),
                INVALID_REQUEST,
                format!(
                    "Invalid Request: `{m}` before `initialize`: the session has not started; \
                     send `initialize`, then `notifications/initialized`, then `{m}`"
                ),
                None,
            ));
        }
        if let (Some(m), None) = (&method, &id)
            && !self.started
        {
            crate::log_line!(
                "filekit serve: ignored the notification {m} sent before `initialize`"
            );
            return Judged::Ignore;
        }
        if method.as_deref() == Some("tools/call")
            && let Some(id) = &id
            && let Some(problem) = tools_call_problem(object.get("params"))
        {
            return Judged::Reply(error_line(
                id.clone(),
                INVALID_PARAMS,
                format!("Invalid params for tools/call: {problem}"),
                None,
            ));
        }
        let params_not_object = object.get("params").is_some_and(|p| !p.is_object());
        match serde_json::from_value::<ClientJsonRpcMessage>(value) {
            Ok(ClientJsonRpcMessage::Request(r)) => {
                if let ClientRequest::CustomRequest(c) = &r.request
                    && STANDARD_REQUESTS.contains(&c.method.as_str())
                {
                    return Judged::Reply(error_line(
                        json!(r.id),
                        INVALID_PARAMS,
                        format!(
                            "Invalid params for {}: they do not have the shape the MCP \
                             specification gives",
                            c.method
                        ),
                        None,
                    ));
                }
                if !matches!(
                    r.request,
                    ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_)
                ) {
                    self.started = true;
                }
                Judged::Deliver(Box::new(ClientJsonRpcMessage::Request(r)))
            }
            Ok(message) => Judged::Deliver(Box::new(message)),
            // A notification gets no answer, whatever it is (JSON-RPC).
            Err(_) if id.is_none() && method.is_some() => Judged::Ignore,
            // A request in form whose params are not an object.
            Err(_) if method.is_some() && params_not_object => Judged::Reply(error_line(
                id.unwrap_or(Value::Null),
                INVALID_PARAMS,
                format!(
                    "Invalid params for {}: params must be an object (or left out)",
                    method.unwrap_or_default()
                ),
                None,
            )),
            Err(e) => Judged::Reply(error_line(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                format!("Invalid Request: not a JSON-RPC 2.0 message ({e})"),
                None,
            )),
        }
    }
}

/// A request of the stateless lifecycle carries its protocol version inline.
fn has_inline_protocol_version(v: &Value) -> bool {
    v.pointer("/params/_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"))
}

/// What is wrong with the params of a `tools/call`, if anything.
fn tools_call_problem(params: Option<&Value>) -> Option<String> {
    let Some(params) = params else {
        return Some("it has no params: give {\"name\": <tool>, \"arguments\": {...}}".into());
    };
    let Some(p) = params.as_object() else {
        return Some(format!("params must be an object, not {}", kind_of(params)));
    };
    match p.get("name") {
        Some(Value::String(_)) => {}
        None => return Some("`name` (the tool to call) is missing".into()),
        Some(other) => {
            return Some(format!(
                "`name` must be a string (the tool to call), not {}",
                kind_of(other)
            ));
        }
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "`arguments` must be an object of the tool's arguments, not {}",
            kind_of(other)
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON-RPC error response as a line.
fn error_line(id: Value, code: i64, message: String, data: Option<Value>) -> Vec<u8> {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = data {
        error["data"] = d;
    }
    let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
        .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The reply to a line over the limit.
fn oversized_line(size: usize, id: Option<Value>) -> Vec<u8> {
    let err = FkError::too_large(
        Limit::RequestSize,
        size as u64,
        MAX_MESSAGE_BYTES as u64,
        format!(
            "Invalid Request: the message is {size} bytes, over the limit of {} bytes ({} MiB) \
             for one message; it was not read. Send less per call: split a batch into several \
             calls, or write a large file in parts",
            MAX_MESSAGE_BYTES,
            MAX_MESSAGE_BYTES >> 20
        ),
    );
    error_line(
        id.unwrap_or(Value::Null),
        INVALID_REQUEST,
        err.message.clone(),
        Some(json!({"code": err.code, "details": *err.details})),
    )
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<rmcp::RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Queued now, not when the future is polled: the order of the calls is the order out.
        let queued = match serde_json::to_vec(&item) {
            Err(e) => Err(std::io::Error::other(e)),
            Ok(mut line) => {
                line.push(b'\n');
                self.queue(line)
            }
        };
        std::future::ready(queued)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Oversized(size, id) => {
                    crate::log_line!(
                        "filekit serve: refused a message of {size} bytes (limit {MAX_MESSAGE_BYTES})"
                    );
                    self.queue(oversized_line(size, id)).ok()?;
                    continue;
                }
                LineRead::Eof => return None,
                LineRead::Io(e) => {
                    crate::log_line!("filekit serve: cannot read stdin: {e}");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let mut text = line.strip_suffix(b"\n").unwrap_or(&line);
            text = text.strip_suffix(b"\r").unwrap_or(text);
            text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                self.line = line;
                self.line.clear();
                continue;
            }
            let judged = self.judge(text);
            // Keep the buffer's capacity for the next line, unless it grew large.
            if line.capacity() <= 1 << 20 {
                self.line = line;
                self.line.clear();
            }
            match judged {
                Judged::Deliver(m) => return Some(*m),
                Judged::Reply(r) => self.queue(r).ok()?,
                Judged::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Replies already queued go out; then the writer ends with the last sender.
        self.out = None;
        if let Some(w) = self.writer.take() {
            let _ = w.await;
        }
        Ok(())
    }
}

/// Finds the top-level `"id"` of a JSON object streaming past, in constant memory.
#[derive(Default)]
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    at_key: bool,
    /// The key or id string being read (bounded).
    text: Option<Vec<u8>>,
    /// The text is a key (else the id's value).
    text_is_key: bool,
    want: Want,
    /// A number (or literal) id being read.
    scalar: Vec<u8>,
    id: Option<Value>,
    done: bool,
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Want {
    #[default]
    Nothing,
    Colon,
    Value,
    InScalar,
}

/// Longer keys and ids are not what is looked for.
const MAX_ID_TEXT: usize = 256;

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.done {
                return;
            }
            if self.in_string {
                if let Some(t) = &mut self.text
                    && t.len() < MAX_ID_TEXT
                {
                    t.push(b);
                }
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    self.end_string();
                }
                continue;
            }
            if self.want == Want::InScalar {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') {
                    self.scalar.push(b);
                    if self.scalar.len() > MAX_ID_TEXT {
                        self.want = Want::Nothing;
                    }
                    continue;
                }
                self.id = serde_json::from_slice::<Value>(&self.scalar)
                    .ok()
                    .filter(Value::is_number);
                self.done = self.id.is_some();
                self.want = Want::Nothing;
                if self.done {
                    return;
                }
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.at_key {
                        self.text = Some(vec![b'"']);
                        self.text_is_key = true;
                    } else if self.depth == 1 && self.want == Want::Value {
                        self.text = Some(vec![b'"']);
                        self.text_is_key = false;
                        self.want = Want::Nothing;
                    }
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.want = Want::Nothing;
                    self.at_key = self.depth == 1 && b == b'{';
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.want = Want::Nothing;
                }
                b':' => {
                    if self.depth == 1 && self.want == Want::Colon {
                        self.want = Want::Value;
                    }
                    self.at_key = false;
                }
                b',' => {
                    if self.depth == 1 {
                        self.at_key = true;
                    }
                    self.want = Want::Nothing;
                }
                b' ' | b'\t' | b'\r' | b'\n' => {}
                _ => {
                    if self.depth == 1 && self.want == Want::Value {
                        self.want = Want::InScalar;
                        self.scalar.clear();
                        self.scalar.push(b);
                    } else {
                        self.want = Want::Nothing;
                    }
                }
            }
        }
    }

    fn end_string(&mut self) {
        let Some(text) = self.text.take() else {
            return;
        };
        if text.len() >= MAX_ID_TEXT {
            return;
        }
        if self.text_is_key {
            self.at_key = false;
            if text == b"\"id\"" {
                self.want = Want::Colon;
            }
        } else if let Ok(v) = serde_json::from_slice::<Value>(&text) {
            self.id = Some(v);
            self.done = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(text: &str) -> Option<Value> {
        let mut s = IdScanner::default();
        // In pieces, as a stream brings it.
        for chunk in text.as_bytes().chunks(3) {
            s.feed(chunk);
        }
        s.feed(b"\n");
        s.id
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        assert_eq!(
            id_of(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#),
            Some(json!(7))
        );
        assert_eq!(id_of(r#"{"id": "a\"b", "x": 1}"#), Some(json!("a\"b")));
        assert_eq!(
            id_of(r#"{"params":{"id":1,"a":[{"id":2}]},"method":"m","id":-3}"#),
            Some(json!(-3))
        );
        assert_eq!(id_of(r#"{"params":{"id":1}}"#), None);
        assert_eq!(id_of(r#"{"ids":1,"xid":2}"#), None);
        assert_eq!(id_of(r#"{"x":"id","y":{"id":5}}"#), None);
        assert_eq!(id_of(r#"{"id":null}"#), None);
        assert_eq!(id_of(r#"["id", 4]"#), None);
    }

    #[test]
    fn tools_call_params_are_checked() {
        assert!(tools_call_problem(Some(&json!({"name": "Read", "arguments": {}}))).is_none());
        assert!(tools_call_problem(Some(&json!({"name": "Read"}))).is_none());
        for bad in [
            json!({"name": "Read", "arguments": [1]}),
            json!({"name": "Read", "arguments": "x"}),
            json!({"name": "Read", "arguments": 3}),
            json!({"arguments": {}}),
            json!({"name": 4}),
            json!([1]),
        ] {
            assert!(tools_call_problem(Some(&bad)).is_some(), "{bad}");
        }
        assert!(tools_call_problem(None).is_some());
    }
}
