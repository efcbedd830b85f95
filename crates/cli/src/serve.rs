//! `filekit serve`: the MCP server (crate `filekit-mcp`) behind a thin verb.

use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `filekit serve --help`'s text after the options: the tool tables listed from the tables
/// themselves (the MCP names each serves), then the examples and rules.
pub fn after_help() -> String {
    let mut out = String::from(
        "Tool tables (--tools, comma-separated), each with the names its tools are served under:\n",
    );
    for (table, what) in filekit_mcp::TABLES {
        out.push_str(&format!("  {table:<19} {what}\n"));
        if *table == "all" {
            if let Some(note) = filekit_mcp::select("all").ok().and_then(|s| s.note()) {
                for line in note.lines() {
                    out.push_str(&wrap(line, 22, 96));
                }
            }
            continue;
        }
        let names: Vec<String> = filekit_mcp::select_tools(table)
            .map(|tools| tools.iter().map(|t| t.mcp_name()).collect())
            .unwrap_or_default();
        out.push_str(&wrap(&names.join(", "), 22, 96));
    }
    out.push('\n');
    out.push_str(AFTER_TABLES);
    out
}

/// `text` broken at spaces into lines of at most `width` columns, each indented by `indent`.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > width {
            out.push_str(&format!("{pad}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{pad}{line}\n"));
    }
    out
}

const AFTER_TABLES: &str = "\
Desktop Commander's process, terminal and search-session tools (start_process,
interact_with_process, start_search, ...) are out of scope: its table serves its file and edit
tools only.

Examples:
  filekit serve --root .                      MCP over stdio (what MCP clients launch)
  filekit serve --root . --tools claude       only Claude Code's tools
  filekit serve --root . --http 8765          streamable HTTP at http://127.0.0.1:8765/mcp
  claude mcp add filekit -- filekit serve --root /path/to/project

Streamable HTTP (--http):
  Token     Every request needs `Authorization: Bearer <token>`. The token is made at start
            from the system's random source, printed on stderr and written (mode 0600, its
            folder 0700) to http-token-<port> in the state directory (--state-dir, else
            $XDG_STATE_HOME/filekit, else ~/.local/state/filekit); it is removed at exit. A
            missing or wrong token gets 401. --http-no-auth turns this off (loopback only).
  Host      The Host header must name the bound address (loopback names for a loopback
            bind), else 403: a DNS-rebinding page cannot reach the server.
  Origin    A request with an Origin header (a browser's) must come from this server's own
            address (http://127.0.0.1:<port>, http://localhost:<port>, http://[::1]:<port>,
            or the bound address); any other origin gets 403. Requests without Origin (every
            MCP client that is not a browser) pass.
  Limits    At most 100 live sessions: past it the oldest idle session is closed
            (a request to it then gets 404, and the client starts a new session); a session
            idle for 5 minutes is closed. Request bodies up to 64 MiB. A request's headers
            must arrive within 10 s (--http-header-timeout), a connection with nothing moving
            and no request in hand is closed after 60 s (--http-idle-timeout), and at most 256
            connections are served at once, fewer where the descriptor limit is lower
            (--http-max-connections): past it the connection idle longest is closed, so a
            client that sends a request is served however many others stall.

Language servers (the semantic refactors of file_edit) run the workspace's code: the server
starts none unless given --trust-workspace (the renames and import clean-ups of TS/JS and
Python still work without one, syntactically).

Without --root, the client's MCP roots are used when it offers them (and followed when they
change), else the current directory. Logging goes to stderr; stdout carries only the
protocol.";

/// `--tools`'s help, naming the tables the code has.
fn tables_help() -> String {
    format!(
        "Tool tables to serve, comma-separated ({}, all; their tools are listed below)",
        filekit_dialects::DIALECTS.join(", ")
    )
}

#[derive(Args)]
pub struct ServeArgs {
    #[arg(long, value_name = "LIST", default_value = "filekit", help = tables_help())]
    tools: String,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio. ADDR is PORT (loopback) or
    /// HOST:PORT; port 0 picks a free port. The address is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http on a loopback address only: accept requests without the bearer token.
    /// Any local process (another user's too) can reach a loopback port; use this only where
    /// that is fine.
    #[arg(long, requires = "http")]
    http_no_auth: bool,
    /// With --http: seconds a request's headers may take to arrive before the connection is
    /// closed.
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = filekit_mcp::HEADER_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    http_header_timeout: u64,
    /// With --http: seconds a connection may stay with nothing moving and no request in hand.
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = filekit_mcp::IDLE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    http_idle_timeout: u64,
    /// With --http: connections served at once (past it, the one idle longest is closed).
    #[arg(long, value_name = "N", requires = "http", default_value_t = filekit_mcp::MAX_CONNECTIONS as u64, value_parser = clap::value_parser!(u64).range(1..))]
    http_max_connections: u64,
}

pub fn run(global: &GlobalArgs, args: ServeArgs) -> u8 {
    let tools = match filekit_mcp::select(&args.tools) {
        Ok(selection) => {
            for line in selection.note().iter().flat_map(|note| note.lines()) {
                filekit_mcp::log_line!("filekit serve: {line}");
            }
            selection.tools
        }
        Err(message) => {
            filekit_mcp::log_line!("filekit serve: {message}");
            return EXIT_BAD_REQUEST;
        }
    };
    let http = match args.http.as_deref().map(filekit_mcp::http_address) {
        None => None,
        Some(Ok(addr)) => Some(addr),
        Some(Err(message)) => {
            filekit_mcp::log_line!("filekit serve: {message}");
            return EXIT_BAD_REQUEST;
        }
    };
    let mut workspace = match crate::workspace(global) {
        // An agent cannot add a root: its hint names none of the command line's flags.
        Ok(ws) => ws.with_add_root_hint(None),
        Err(err) => return crate::fail_early(&err),
    };
    // A root that holds filekit's state (root = the home folder, or --state-dir inside a
    // root) is served with the state out of every tool's view; said once, at start.
    for place in workspace.state_in_roots() {
        filekit_mcp::log_line!(
            "filekit serve: filekit's state {} is inside a root; no tool can read, list, change or remove it",
            place.display()
        );
    }
    // The server is one lease holder unless named: a client may still name itself per call.
    if crate::holder_name(global).is_none() {
        workspace.set_holder(format!("filekit-serve-{}", std::process::id()));
    }
    // Started by hand on a terminal, a stdio server would otherwise wait in silence, as if
    // hung: say what it is, what it serves and how to stop it (stderr: stdout is the protocol).
    if http.is_none() && std::io::stdin().is_terminal() {
        let roots: Vec<String> = (workspace.roots().iter())
            .map(|r| r.display().to_string())
            .collect();
        let state = (workspace.state())
            .map(|s| s.path().display().to_string())
            .unwrap_or_else(|| "none (read-only, or no home folder)".into());
        filekit_mcp::log_line!(
            "filekit serve: an MCP server, waiting for a client's JSON-RPC on standard input (MCP clients start it themselves: `filekit setup CLIENT` writes their configuration). Tables: {}; roots: {}; state: {state}. Ctrl-C or Ctrl-D stops it.",
            args.tools,
            roots.join(", ")
        );
    }
    // A server lives across calls: its import graphs are kept current by a file watcher.
    filekit_dialects::verbs::watch_between_calls(true);
    let server = filekit_mcp::FilekitServer::new(filekit_mcp::ServeOptions {
        workspace,
        tools,
        follow_client_roots: global.roots.is_empty(),
    });
    // Over stdio one thread does the protocol's I/O: a call is read, handed to a call thread
    // and its reply written by tasks of one thread, so no task wakes another thread on the way
    // (a wake across threads is a system call and a context switch: most of what a trivial
    // call cost with a worker per core). The tools run on the call threads either way; HTTP
    // serves many connections, and keeps a worker per core.
    let builder = match http {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(_) => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match { builder }.enable_all().build() {
        Ok(rt) => rt,
        Err(err) => {
            filekit_mcp::log_line!("filekit serve: cannot start the async runtime: {err}");
            return EXIT_FAILED;
        }
    };
    let served = match http {
        None => runtime.block_on(filekit_mcp::serve_stdio(server)),
        Some(addr) if args.http_no_auth && !addr.ip().is_loopback() => {
            filekit_mcp::log_line!(
                "filekit serve: --http-no-auth is only for a loopback address, not {addr}: \
                 anyone who reaches it could read and write the workspace"
            );
            return EXIT_BAD_REQUEST;
        }
        Some(addr) => {
            let Some(state) = crate::state_base(global) else {
                filekit_mcp::log_line!(
                    "filekit serve: no state directory for the bearer token: neither \
                     XDG_STATE_HOME nor HOME is set (give --state-dir DIR)"
                );
                return EXIT_BAD_REQUEST;
            };
            let connections = filekit_mcp::ConnectionLimits {
                header_timeout: std::time::Duration::from_secs(args.http_header_timeout),
                idle_timeout: std::time::Duration::from_secs(args.http_idle_timeout),
                max_connections: connections_within_descriptors(
                    usize::try_from(args.http_max_connections).unwrap_or(usize::MAX),
                ),
            };
            runtime.block_on(serve_http(
                server,
                addr,
                args.http_no_auth,
                &state,
                connections,
            ))
        }
    };
    match served {
        Ok(()) => EXIT_OK,
        Err(err) => {
            filekit_mcp::log_line!("filekit serve: {err}");
            EXIT_FAILED
        }
    }
}

/// `serve --http`: binds, makes the bearer token (unless `no_auth`), writes it into the state
/// directory, says where it listens, and serves until it is asked to end (SIGINT, SIGTERM,
/// SIGHUP: see `signals`), which removes the token file.
async fn serve_http(
    server: filekit_mcp::FilekitServer,
    addr: std::net::SocketAddr,
    no_auth: bool,
    state: &Path,
    connections: filekit_mcp::ConnectionLimits,
) -> std::io::Result<()> {
    let token = if no_auth { None } else { Some(new_token()?) };
    let options = filekit_mcp::HttpOptions {
        token: token.clone(),
        max_sessions: filekit_mcp::MAX_HTTP_SESSIONS,
        connections,
    };
    let listener = filekit_mcp::bind_http(addr, &options).await?;
    let bound = listener.local_addr()?;
    let mut said = String::new();
    let token_file = match &token {
        Some(token) => {
            let file = write_token(state, bound.port(), token)?;
            // Ended by a signal (SIGINT, SIGTERM, SIGHUP), the server removes it too.
            crate::signals::remove_at_exit(file.clone(), token.clone());
            said.push_str(&format!(
                "filekit serve: bearer token {token} (clients send \"Authorization: Bearer \
                 <token>\"; also in {})\n",
                file.display()
            ));
            Some(file)
        }
        None => {
            said.push_str("filekit serve: warning: no bearer token (--http-no-auth): any local process can use this server\n");
            None
        }
    };
    // One write, so that whoever watches stderr for the address never sees half a line.
    said.push_str(&format!("filekit serve: listening on http://{bound}/mcp\n"));
    let _ = std::io::Write::write_all(&mut std::io::stderr(), said.as_bytes());
    let served = filekit_mcp::serve_http(server, listener, options).await;
    if let (Some(file), Some(token)) = (token_file, token) {
        // Only our own token: another server may have taken the port (and the file) since.
        if std::fs::read_to_string(&file).is_ok_and(|t| t.trim() == token) {
            let _ = std::fs::remove_file(&file);
        }
        crate::signals::keep_at_exit(&file);
    }
    served
}

/// Descriptors the server keeps for itself beside its connections: the files a call opens,
/// the history, the watcher, the listener.
const RESERVED_DESCRIPTORS: u64 = 64;

/// `wanted` connections, or as many as the descriptor limit leaves room for (the soft limit,
/// raised to the hard one at start): the cap is reached before the process runs out of
/// descriptors, so the connection idle longest is closed to make room rather than a new one
/// left waiting in the backlog.
fn connections_within_descriptors(wanted: usize) -> usize {
    #[cfg(target_os = "linux")]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        if let Some(current) = limit.current {
            let room = current.saturating_sub(RESERVED_DESCRIPTORS).max(1);
            return wanted.min(usize::try_from(room).unwrap_or(usize::MAX));
        }
    }
    wanted
}

/// 32 bytes from the operating system's random source, in hex.
fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| std::io::Error::other(format!("no random bytes for the token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes the token to `<state>/http-token-<port>` as every file of the state is written
/// (`filekit_core::state::write_in_base`: the folder checked as private, the file 0600 and
/// replaced whole): a state folder others may write is refused, not made private.
fn write_token(state: &Path, port: u16, token: &str) -> std::io::Result<PathBuf> {
    filekit_core::state::write_in_base(
        state,
        &format!("http-token-{port}"),
        format!("{token}\n").as_bytes(),
    )
    .map_err(|e| {
        std::io::Error::other(format!(
            "cannot keep the bearer token: {} ({})",
            e.message,
            e.hint
                .as_deref()
                .unwrap_or("give --state-dir a private folder of yours")
        ))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_help_states_the_session_cap() {
        assert!(super::after_help().contains(&format!(
            "At most {} live sessions",
            filekit_mcp::MAX_HTTP_SESSIONS
        )));
    }
}
