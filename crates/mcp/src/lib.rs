//! # filekit-mcp
//!
//! The MCP server. It serves the tool tables of `filekit-dialects` with the official Rust MCP
//! SDK (`rmcp`): `tools/list` lists the chosen tables with annotations and schemas,
//! `tools/call` runs the dialect's tool on one of its call threads and answers with text content and
//! `structuredContent`. Every failure of a call (unknown tool, bad arguments, a failed edit)
//! is a tool result with `isError: true` and the engine's message, never a protocol error or a
//! crash: models read tool results, while clients tend to hide protocol errors.
//!
//! The engine knows nothing of MCP; this crate only adapts. Logging goes to stderr, because
//! stdout is the protocol channel over stdio.
//!
//! What `filekit serve --root . --tools claude` runs (compiled, not run: it serves until its
//! client leaves):
//!
//! ```no_run
//! use filekit_core::Workspace;
//! use filekit_mcp::{FilekitServer, ServeOptions, select_tools};
//!
//! # async fn serve() -> std::io::Result<()> {
//! let workspace = Workspace::new(&[std::env::current_dir()?], false).unwrap();
//! let tools = select_tools("claude").unwrap(); // Read, Write, Edit, MultiEdit, LS, Glob, Grep
//! let server = FilekitServer::new(ServeOptions {
//!     workspace,
//!     follow_client_roots: false,
//!     tools,
//! });
//! filekit_mcp::serve_stdio(server).await
//! # }
//! ```

/// A line on the server's standard error, the log an MCP client keeps (or drops). Unlike
/// `eprintln!`, a closed or full stderr is ignored: a client that closed the pipe must not
/// panic the task that was logging (which once dropped a client's roots).
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod call_threads;
#[cfg(feature = "http")]
mod connections;
mod roots;
#[cfg(feature = "http")]
mod sessions;
mod stdio;
mod tables;

pub use stdio::MAX_MESSAGE_BYTES;

#[cfg(feature = "http")]
pub use connections::{ConnectionLimits, HEADER_TIMEOUT, IDLE_TIMEOUT, MAX_CONNECTIONS};
#[cfg(feature = "http")]
pub use sessions::MAX_HTTP_SESSIONS;

pub use tables::{Selection, TABLES, select, select_tools};

use filekit_core::edit::Progress;
use filekit_core::{Control, Workspace};
use filekit_dialects::{Media, ToolSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ResourceContents, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use roots::SessionWorkspace;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The `_meta` key set on a result whose call was rejected before anything was attempted.
pub const REJECTED_META_KEY: &str = "filekit/rejected";

/// What `filekit serve` was asked to serve.
pub struct ServeOptions {
    /// The open workspace (roots and read-only already applied).
    pub workspace: Workspace,
    /// True when the roots were not given on the command line: then the client's MCP roots,
    /// when it offers them, replace the workspace's roots, and changes to them are followed.
    pub follow_client_roots: bool,
    /// The tools to list and accept, from [`select_tools`].
    pub tools: Vec<ToolSpec>,
}

/// One MCP session's view of filekit: the workspace and the tools it serves. Over streamable
/// HTTP, [`FilekitServer::for_new_session`] makes one per session, sharing the tool tables.
pub struct FilekitServer {
    workspace: SessionWorkspace,
    /// The workspace each new session starts from (the command line's, or the fallback).
    initial: Arc<Workspace>,
    follow_client_roots: bool,
    /// The tools served, by MCP name, in listing order.
    tools: Arc<Vec<ServedTool>>,
    by_name: Arc<HashMap<String, usize>>,
    /// Calls that may run at once, across every session of the process (see
    /// [`MAX_CALLS_AT_ONCE`]).
    running: Arc<tokio::sync::Semaphore>,
    /// The threads the calls run on, shared by every session.
    threads: Arc<call_threads::CallThreads>,
}

/// Tool calls that run at once in one server, whatever the number of sessions or of calls a
/// client sends without waiting: each holds at most one reply's bytes
/// (`filekit_core::limits::MAX_REPLY_BYTES`) besides the files it works on, so memory is
/// bounded by this many of them; the others wait their turn (and can be cancelled while
/// they wait). A file's whole-file bound and the reply's, times this, stay far under the
/// half gigabyte a server is measured against.
pub const MAX_CALLS_AT_ONCE: usize = 8;

struct ServedTool {
    spec: ToolSpec,
    listed: Tool,
}

impl FilekitServer {
    pub fn new(options: ServeOptions) -> Self {
        let tools: Vec<ServedTool> = options
            .tools
            .into_iter()
            .map(|spec| ServedTool {
                listed: mcp_tool(&spec),
                spec,
            })
            .collect();
        let mut by_name = HashMap::new();
        for (i, t) in tools.iter().enumerate() {
            by_name.insert(t.spec.mcp_name(), i);
            // `filekit call` accepts the document name too (`file:read_file`); so do we,
            // for clients that pass names through unchanged.
            by_name.insert(t.spec.name.to_string(), i);
        }
        // A table that sends structured content carries its reply twice in one message, as
        // its text and as its structured part: each gets half the bytes a reply may carry,
        // so that the message stays within them.
        let workspace = if tools
            .iter()
            .any(|t| filekit_dialects::structured_replies(&t.spec))
        {
            let max = options.workspace.max_reply_bytes();
            options.workspace.with_max_reply_bytes(max / 2)
        } else {
            options.workspace
        };
        let initial = Arc::new(workspace);
        // A server is asked about the same files again and again: a file read by symbol twice
        // unchanged is parsed once.
        filekit_dialects::keep_parse_trees();
        FilekitServer {
            workspace: SessionWorkspace::new(Arc::clone(&initial), options.follow_client_roots),
            initial,
            follow_client_roots: options.follow_client_roots,
            tools: Arc::new(tools),
            by_name: Arc::new(by_name),
            running: Arc::new(tokio::sync::Semaphore::new(MAX_CALLS_AT_ONCE)),
            threads: Arc::new(call_threads::CallThreads::new(MAX_CALLS_AT_ONCE)),
        }
    }

    /// A server for a new session (streamable HTTP): same tools, its own workspace state, so
    /// one client's roots never change another's workspace.
    pub fn for_new_session(&self) -> Self {
        FilekitServer {
            workspace: SessionWorkspace::new(Arc::clone(&self.initial), self.follow_client_roots),
            initial: Arc::clone(&self.initial),
            follow_client_roots: self.follow_client_roots,
            tools: Arc::clone(&self.tools),
            by_name: Arc::clone(&self.by_name),
            running: Arc::clone(&self.running),
            threads: Arc::clone(&self.threads),
        }
    }

    /// The index in `tools` of the tool a call names, when this server serves it.
    fn served(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The reply to a call naming a tool this server does not serve: an error result that
    /// names the tools it does serve (and the closest ones), so a model can correct itself.
    fn unknown_tool(&self, name: &str) -> CallToolResult {
        let served: Vec<String> = self.tools.iter().map(|t| t.spec.mcp_name()).collect();
        let close: Vec<String> = filekit_dialects::closest_tool_names(name)
            .into_iter()
            .filter_map(filekit_dialects::find_tool)
            .map(|t| t.mcp_name())
            .filter(|n| served.contains(n))
            .collect();
        let mut message = format!("unknown tool '{name}'");
        if !close.is_empty() {
            message.push_str(&format!("; did you mean {}?", close.join(" or ")));
        }
        message.push_str(&format!(" (tools served: {})", served.join(", ")));
        let mut result = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
        result.structured_content = Some(json!({
            "success": false,
            "error": message,
            "error_code": "UNKNOWN_TOOL",
            "closest": close,
        }));
        result.meta = Some(rejected_meta());
        result
    }
}

/// The MCP listing of one tool (what `tools/list` serves): its MCP name, the model-facing
/// description, the input schema, an output schema where its table's replies are structured
/// (replies are objects, see [`structured`]; not the tables whose real tools answer in text
/// alone, [`filekit_dialects::TEXT_REPLIES`]) and the annotations.
pub fn mcp_tool(spec: &ToolSpec) -> Tool {
    let input_schema = match filekit_dialects::input_schema(spec) {
        Value::Object(map) => map,
        // The dialects crate tests that every schema is an object; this keeps the listing
        // valid even if one were not.
        _ => JsonObject::from_iter([("type".to_string(), json!("object"))]),
    };
    // MCP gives the destructive and idempotent hints meaning only for a tool that writes: a
    // reading tool's would be bytes every session pays for nothing.
    let annotations = ToolAnnotations::new()
        .read_only(spec.read_only)
        .open_world(false);
    let annotations = if spec.read_only {
        annotations
    } else {
        annotations
            .destructive(spec.destructive)
            .idempotent(spec.idempotent)
    };
    let tool = Tool::new(spec.mcp_name(), spec.description, Arc::new(input_schema))
        .with_annotations(annotations);
    if filekit_dialects::structured_replies(spec) {
        tool.with_raw_output_schema(Arc::new(output_schema(spec)))
    } else {
        tool
    }
}

/// The output schema of a tool (every tool has one that names its reply's fields). Replies the
/// dialect shapes as an object are served as they are; any other reply (a JSON array, as
/// `fs_read` with `paths` gives) is served as `{"results": <reply>}`, which fs_read's schema
/// describes.
fn output_schema(spec: &ToolSpec) -> JsonObject {
    match filekit_dialects::output_schema(spec) {
        Value::Object(map) => map,
        // Every schema is an object; an empty schema would still be valid.
        _ => JsonObject::new(),
    }
}

/// `_meta` of a rejected call: `{"filekit/rejected": true}`.
fn rejected_meta() -> rmcp::model::MetaObject {
    rmcp::model::MetaObject(JsonObject::from_iter([(
        REJECTED_META_KEY.to_string(),
        json!(true),
    )]))
}

/// The dialect reply as MCP structuredContent, which must be a JSON object.
pub fn structured(value: Value) -> Value {
    match value {
        Value::Object(_) => value,
        other => json!({ "results": other }),
    }
}

impl ServerHandler for FilekitServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("filekit", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "filekit: batched, safe file reads and edits inside the workspace roots. Read \
                 files first (replies carry content_hash and numbered lines); line numbers in \
                 one request all refer to the file as read; every write is atomic per file.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.workspace
            .client_offers_roots(request.capabilities.roots.is_some());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.workspace.refresh(context.peer);
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.workspace.refresh(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(|t| t.listed.clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(index) = self.served(&request.name) else {
            return Ok(self.unknown_tool(&request.name).into());
        };
        let name = self.tools[index].spec.name;
        let tools = Arc::clone(&self.tools);
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // Waits while the client's roots are being fetched (see SessionWorkspace).
        let workspace = Arc::clone(&*self.workspace.current.read().await);
        // A turn among the calls that run at once; a call cancelled while it waits ends here.
        let turn = tokio::select! {
            turn = Arc::clone(&self.running).acquire_owned() => turn,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("request cancelled", None));
            }
        };
        let Ok(turn) = turn else {
            return Err(ErrorData::internal_error("the server is stopping", None));
        };
        let (control, progress_sent) = progress_control(&context);
        let engine_control = control.clone();
        // Engine calls are synchronous and may take a while (a batch over many files): they
        // run on the call threads, so other calls in flight keep being served.
        let run = self.threads.run(move || {
            let spec = &tools[index].spec;
            let reply = filekit_dialects::call_tool(&workspace, spec, args, engine_control);
            drop(turn);
            reply
        });
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                let message = format!(
                    "{name}: cannot start a thread for the call: {e}; the system is out of \
                     threads or memory, try again when it has some"
                );
                log_line!("filekit serve: {message}");
                return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
            }
        };
        let reply = tokio::select! {
            joined = run => joined,
            () = context.ct.cancelled() => {
                // The engine stops before writing anything if it has not started writing yet,
                // and before its next file if it has (the file being written is put in place
                // or removed; an atomic request is rolled back, a plain one records what it
                // wrote). The client asked not to hear the answer, nor of the call's
                // progress: the forwarding ends now, with what it had queued.
                control.cancel();
                if let Some(forwarding) = progress_sent {
                    forwarding.abort();
                }
                return Err(ErrorData::internal_error("request cancelled", None));
            }
        };
        // Every progress notification goes out before the result: the engine's copy of the
        // control is gone with its thread; dropping ours ends the forwarding task.
        drop(control);
        if let Some(forwarding) = progress_sent {
            let _ = forwarding.await;
        }
        let reply = match reply {
            Ok(reply) => reply,
            Err(_) => {
                // A panic outside the tool (the tool's own is an error reply already) is a
                // bug; report it as a failed call and keep serving.
                let message = format!("internal error in {name}: the call panicked");
                log_line!("filekit serve: {message}");
                return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
            }
        };
        // A reply that is only images (the MCP filesystem server's read_media_file) has no
        // empty text block before them.
        let mut content =
            if reply.text.is_empty() && !(reply.images.is_empty() && reply.media.is_empty()) {
                Vec::new()
            } else {
                vec![ContentBlock::text(reply.text)]
            };
        for (mime, data) in reply.images {
            content.push(ContentBlock::image(data, mime));
        }
        for media in reply.media {
            content.push(match media {
                Media::Audio { mime, data } => ContentBlock::audio(data, mime),
                Media::Resource { uri, mime, data } => {
                    ContentBlock::resource(ResourceContents::blob(data, uri).with_mime_type(mime))
                }
            });
        }
        let mut result = if reply.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        if filekit_dialects::structured_replies(&self.tools[index].spec) {
            result.structured_content = Some(structured(reply.value));
        }
        if reply.rejected {
            // Tells a client (and the test suite) that nothing was attempted: the arguments
            // did not parse or fit, as opposed to an operation that ran and failed.
            result.meta = Some(rejected_meta());
        }
        Ok(result.into())
    }
}

/// The engine control of one call: a cancellation flag, and, when the client gave a progress
/// token, a callback that forwards each planned file as a progress notification. The engine
/// calls back from its worker threads; the notifications go out from the async side.
/// The task forwarding notifications comes back too, to be awaited before the result.
fn progress_control(
    context: &RequestContext<RoleServer>,
) -> (Control, Option<tokio::task::JoinHandle<()>>) {
    let Some(token) = context.meta.get_progress_token() else {
        return (Control::default(), None);
    };
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let peer = context.peer.clone();
    // Cancelled by the service loop as it reads `notifications/cancelled`, before it reads
    // the next message: no progress is handed out after that (what was handed out before goes
    // out before any reply to a later request).
    let cancelled = context.ct.clone();
    let forwarding = tokio::spawn(async move {
        while let Some(p) = receiver.recv().await {
            if cancelled.is_cancelled() {
                break;
            }
            let mut note = ProgressNotificationParam::new(token.clone(), p.done as f64);
            if p.total > 0 {
                note = note.with_total(p.total as f64);
            }
            if peer.notify_progress(note).await.is_err() {
                break; // the client is gone
            }
        }
    });
    let control = Control::with_progress(move |p| {
        // Fails only when the forwarding task has ended (client gone): nothing to tell then.
        let _ = sender.send(p);
    });
    (control, Some(forwarding))
}

/// Serves MCP over stdin/stdout until the client closes the stream.
pub async fn serve_stdio(server: FilekitServer) -> std::io::Result<()> {
    let threads = Arc::clone(&server.threads);
    let (read, write) = rmcp::transport::stdio_pipes();
    let running = server
        .serve(stdio::LineTransport::new(read, write))
        .await
        .map_err(std::io::Error::other)?;
    let served = running.waiting().await.map_err(std::io::Error::other);
    calls_stopped(threads).await;
    served.map(|_| ())
}

/// Returns once no call runs: the server is ending, and a call its client left (cancelled)
/// may still be stopping.
async fn calls_stopped(threads: Arc<call_threads::CallThreads>) {
    let _ = tokio::task::spawn_blocking(move || threads.wait_until_idle()).await;
}

/// The largest request body the HTTP transport accepts. Edits can carry whole files; this is
/// well above any sane edit and still bounds memory per request.
#[cfg(feature = "http")]
const MAX_HTTP_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Where `--http` listens: `PORT` alone (or `localhost:PORT`) means loopback (`127.0.0.1:PORT`), so that serving over
/// HTTP never exposes the workspace to the network unless a host is named.
pub fn http_address(spec: &str) -> Result<std::net::SocketAddr, String> {
    let port_only = spec.strip_prefix("localhost:").unwrap_or(spec);
    if let Ok(port) = port_only.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    spec.parse().map_err(|_| {
        format!("--http: '{spec}' is not PORT or HOST:PORT (e.g. 8765 or 127.0.0.1:8765)")
    })
}

/// How the HTTP transport guards itself.
#[cfg(feature = "http")]
pub struct HttpOptions {
    /// The bearer token every request must carry (`Authorization: Bearer <token>`); `None`
    /// turns authentication off, which only a loopback address allows.
    pub token: Option<String>,
    /// Live sessions kept at most (see [`MAX_HTTP_SESSIONS`]).
    pub max_sessions: usize,
    /// The bounds on connections: header and idle timeouts, how many at once.
    pub connections: ConnectionLimits,
}

/// Binds `addr` for [`serve_http`], refusing options the address does not allow (no token
/// on an address other than loopback).
#[cfg(feature = "http")]
pub async fn bind_http(
    addr: std::net::SocketAddr,
    options: &HttpOptions,
) -> std::io::Result<tokio::net::TcpListener> {
    if options.token.is_none() && !addr.ip().is_loopback() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{addr} is not a loopback address: serving it without a bearer token would let \
                 anyone who reaches it read and write the workspace (drop --http-no-auth)"
            ),
        ));
    }
    tokio::net::TcpListener::bind(addr).await
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` on `listener` (from [`bind_http`])
/// until Ctrl-C.
///
/// Every request must carry the bearer token of `options` (any local process can reach a
/// loopback port; a missing or wrong token gets 401 with `WWW-Authenticate: Bearer`); its
/// `Host` must name the bound address and its `Origin`, when it has one, must be this server
/// itself (a browser page elsewhere gets 403); at most `options.max_sessions` sessions live at
/// once (the oldest idle one is closed past it); connections are bounded in time and number
/// (`options.connections`, see the `connections` module).
#[cfg(feature = "http")]
pub async fn serve_http(
    server: FilekitServer,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
) -> std::io::Result<()> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let addr = listener.local_addr()?;
    let mut config = StreamableHttpServerConfig::default();
    config.max_request_body_bytes = MAX_HTTP_BODY_BYTES;
    if !addr.ip().is_loopback() {
        // The default host check admits loopback names only; a server bound to another
        // address was asked for explicitly, so admit the hosts that reach it.
        config.allowed_hosts.push(addr.ip().to_string());
        config.allowed_hosts.push(addr.to_string());
    }
    // A browser names the page that sends a request in `Origin`: only this server's own
    // address (as the allowed hosts spell it) is admitted; a request without one (any
    // client that is not a browser) passes.
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "[::1]".into()];
    if !addr.ip().is_loopback() {
        hosts.push(match addr.ip() {
            std::net::IpAddr::V4(ip) => ip.to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        });
    }
    let origins: Vec<String> = hosts
        .iter()
        .map(|h| format!("http://{h}:{}", addr.port()))
        .collect();
    config = config
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    let shutdown = config.cancellation_token.clone();
    let threads = Arc::clone(&server.threads);
    let service = StreamableHttpService::new(
        move || Ok(server.for_new_session()),
        std::sync::Arc::new(sessions::CappedSessions::new(options.max_sessions)),
        config,
    );
    let token: Option<Arc<str>> = options.token.map(Arc::from);
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(move |request, next| {
                let token = token.clone();
                async move { authorize(token.as_deref(), request, next).await }
            }));
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    let served = connections::serve(listener, router, options.connections, shutdown).await;
    calls_stopped(threads).await;
    served
}

/// Passes a request that carries the bearer token (or any, without a token); answers 401
/// otherwise, with a JSON-RPC error as the body.
#[cfg(feature = "http")]
async fn authorize(
    token: Option<&str>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let Some(token) = token else {
        return refusals_close(next.run(request).await);
    };
    let given = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        });
    let message = match given {
        Some(g) if same_secret(g.as_bytes(), token.as_bytes()) => {
            return refusals_close(next.run(request).await);
        }
        Some(_) => "the bearer token is wrong",
        None => "this server needs a bearer token: send `Authorization: Bearer <token>`",
    };
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32001,
            "message": format!(
                "Unauthorized: {message} (filekit serve prints the token on stderr at start and \
                 writes it to http-token-<port> in its state directory)"
            ),
        }
    });
    axum::response::Response::builder()
        .status(axum::http::StatusCode::UNAUTHORIZED)
        .header(axum::http::header::WWW_AUTHENTICATE, "Bearer")
        .header(axum::http::header::CONNECTION, "close")
        .header(axum::http::header::CONTENT_TYPE, "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .expect("a valid response")
}

/// A refusal (403: a foreign Host or Origin) is answered before its body is read, so the
/// connection cannot carry another request reliably: say so (`Connection: close`), or a client
/// that reuses it finds it closed under its next request.
#[cfg(feature = "http")]
fn refusals_close(mut response: axum::response::Response) -> axum::response::Response {
    if response.status() == axum::http::StatusCode::FORBIDDEN {
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    response
}

/// Compares two secrets in time that depends on their lengths only.
#[cfg(feature = "http")]
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_content_is_always_an_object() {
        assert_eq!(structured(json!({"a": 1})), json!({"a": 1}));
        assert_eq!(structured(json!([1, 2])), json!({"results": [1, 2]}));
        assert_eq!(structured(json!("x")), json!({"results": "x"}));
    }

    #[cfg(feature = "http")]
    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        assert!(!same_secret(b"", b"a"));
    }

    #[test]
    fn http_addresses_default_to_loopback() {
        assert_eq!(http_address("8765").unwrap().to_string(), "127.0.0.1:8765");
        assert_eq!(
            http_address("0.0.0.0:80").unwrap().to_string(),
            "0.0.0.0:80"
        );
        assert_eq!(http_address("[::1]:9").unwrap().to_string(), "[::1]:9");
        assert!(
            http_address("localhost")
                .unwrap_err()
                .contains("PORT or HOST:PORT")
        );
    }

    #[test]
    fn every_listed_tool_has_annotations_and_schemas() {
        for spec in filekit_dialects::tools(None) {
            let tool = mcp_tool(&spec);
            let a = tool.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(spec.read_only));
            assert_eq!(a.open_world_hint, Some(false));
            let writes = |hint: bool| (!spec.read_only).then_some(hint);
            assert_eq!(a.destructive_hint, writes(spec.destructive));
            assert_eq!(a.idempotent_hint, writes(spec.idempotent));
            match &tool.output_schema {
                Some(schema) => assert_eq!(schema["type"], "object"),
                None => assert!(
                    !filekit_dialects::structured_replies(&spec),
                    "{}: no output schema",
                    spec.name
                ),
            }
            assert_eq!(tool.input_schema["type"], "object");
        }
    }
}
