//! # filekit-lsp
//!
//! The language-server bridge: a small Language Server Protocol client over
//! stdio JSON-RPC that starts `typescript-language-server --stdio`, `pyright-langserver
//! --stdio` or `rust-analyzer` on a workspace root and asks it for renames, organized imports
//! and the refactors of the semantic table. It returns the server's workspace edit as data
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
//!
//! Which server a file gets, and LSP's coordinates (UTF-16 columns) against byte offsets:
//!
//! ```
//! use filekit_lsp::{ServerKind, offset, path_of, position, uri};
//! use std::path::Path;
//!
//! assert_eq!(ServerKind::for_path("src/app.tsx"), Some(ServerKind::TypeScript));
//! assert_eq!(ServerKind::for_path("notes.md"), None);
//!
//! let text = "let s = \"é\";\nlet t = 1;\n";
//! let (line, character) = position(text, text.rfind("t =").unwrap());
//! assert_eq!((line, character), (1, 4));
//! assert_eq!(offset(text, line, character), text.rfind("t =").unwrap());
//! // `é` is one UTF-16 unit and two bytes: the quote after it is column 10, byte 11.
//! assert_eq!(position(text, 11), (0, 10));
//!
//! let u = uri(Path::new("/work/my app/a.ts"));
//! assert_eq!(u, "file:///work/my%20app/a.ts");
//! assert_eq!(path_of(&u).unwrap(), Path::new("/work/my app/a.ts"));
//! ```

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

mod client;
mod edits;
mod framing;
mod operations;
mod pool;
mod positions;

pub use client::Client;
pub use edits::{LspRange, TextEdit, WsEdit};
pub use pool::{shutdown_all, with_client, with_running_client};
pub use positions::{offset, path_of, position, uri};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{read_message, write_message};

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
