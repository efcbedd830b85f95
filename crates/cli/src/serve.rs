//! `filekit serve`: the MCP server (crate `filekit-mcp`) behind a thin verb.

use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;

pub const AFTER_HELP: &str = "\
Tool tables (--tools, comma-separated):
  filekit             read_files, edit_files, replace_in_files: filekit's own design
                      (the default)
  amazonq             fs_read, fs_write
  file                file:read_file, file:edit_file, ... (served as file_read_file, ...)
  claude              Read, Write, Edit, MultiEdit
  desktop-commander   edit_block, batch_edit_blocks, write_from_line, ...
  semantic            file_read, file_edit: read and edit by symbol, JSONPath, heading
  all                 every table above

Examples:
  filekit serve --root .                      MCP over stdio (what MCP clients launch)
  filekit serve --root . --tools claude       only Read, Write, Edit, MultiEdit
  filekit serve --root . --http 8765          streamable HTTP at http://127.0.0.1:8765/mcp
  claude mcp add filekit -- filekit serve --root /path/to/project

Language servers (the semantic refactors of file_edit) run the workspace's code: the server
starts none unless given --trust-workspace (the renames and import clean-ups of TS/JS and
Python still work without one, syntactically).

Without --root, the client's MCP roots are used when it offers them (and followed when they
change), else the current directory. Logging goes to stderr; stdout carries only the
protocol.";

#[derive(Args)]
pub struct ServeArgs {
    /// Tool tables to serve, comma-separated (filekit, amazonq, file, claude,
    /// desktop-commander, semantic, all).
    #[arg(long, value_name = "LIST", default_value = "filekit")]
    tools: String,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio. ADDR is PORT (loopback) or
    /// HOST:PORT; port 0 picks a free port. The address is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
}

pub fn run(global: &GlobalArgs, args: ServeArgs) -> u8 {
    let tools = match filekit_mcp::select_tools(&args.tools) {
        Ok(tools) => tools,
        Err(message) => {
            eprintln!("filekit serve: {message}");
            return EXIT_BAD_REQUEST;
        }
    };
    let http = match args.http.as_deref().map(filekit_mcp::http_address) {
        None => None,
        Some(Ok(addr)) => Some(addr),
        Some(Err(message)) => {
            eprintln!("filekit serve: {message}");
            return EXIT_BAD_REQUEST;
        }
    };
    let mut workspace = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(err) => return crate::fail_early(&err),
    };
    // The server is one lease holder unless named: a client may still name itself per call.
    if workspace.holder().is_none() {
        workspace.set_holder(format!("filekit-serve-{}", std::process::id()));
    }
    // A server lives across calls: its import graphs are kept current by a file watcher.
    filekit_refactor::graph::watch_between_calls(true);
    let server = filekit_mcp::FilekitServer::new(filekit_mcp::ServeOptions {
        workspace,
        tools,
        follow_client_roots: global.roots.is_empty(),
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("filekit serve: cannot start the async runtime: {err}");
            return EXIT_FAILED;
        }
    };
    let served = match http {
        None => runtime.block_on(filekit_mcp::serve_stdio(server)),
        Some(addr) => runtime.block_on(filekit_mcp::serve_http(server, addr, |bound| {
            // One write, so that whoever watches stderr for the address never sees half a line.
            let line = format!("filekit serve: listening on http://{bound}/mcp\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        })),
    };
    match served {
        Ok(()) => EXIT_OK,
        Err(err) => {
            eprintln!("filekit serve: {err}");
            EXIT_FAILED
        }
    }
}
