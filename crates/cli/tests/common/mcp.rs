//! A client of `filekit serve` over stdio, as an MCP client drives it: one JSON-RPC message a
//! line. Enough for the suites that attack a running server and then check it still answers.

use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command};
use std::sync::mpsc;

/// A running `filekit serve` (stdio) with its session initialized.
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

/// What a call got back.
pub enum Answer {
    /// The `result` of the call.
    Result(Value),
    /// A JSON-RPC error.
    Error(Value),
    /// The server ended (or closed its output) before it answered.
    Gone,
}

impl Answer {
    /// The result, or a panic saying what came instead.
    pub fn result(self) -> Value {
        match self {
            Answer::Result(v) => v,
            Answer::Error(e) => panic!("a JSON-RPC error instead of a result: {e}"),
            Answer::Gone => panic!("the server ended before it answered"),
        }
    }
}

impl StdioServer {
    /// Starts `cmd` (`filekit ... serve`, streams piped) and initializes the session.
    pub fn start(mut cmd: Command) -> StdioServer {
        let mut child = cmd.spawn().expect("run filekit serve");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = StdioServer {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "filekit-tests", "version": "1"}
            }),
        );
        assert!(matches!(init, Answer::Result(_)), "initialize failed");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let mut line = message.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).is_ok() && stdin.flush().is_ok()
    }

    /// Sends a request and waits (at most the suite's command timeout) for its answer;
    /// notifications and other messages on the way are passed over.
    pub fn request(&mut self, method: &str, params: Value) -> Answer {
        self.next_id += 1;
        let id = self.next_id;
        if !self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})) {
            return Answer::Gone;
        }
        let deadline = std::time::Instant::now() + super::COMMAND_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let Ok(message) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if message["id"] != json!(id) {
                        continue;
                    }
                    if let Some(error) = message.get("error") {
                        return Answer::Error(error.clone());
                    }
                    return Answer::Result(message["result"].clone());
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Answer::Gone,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("the server did not answer {method} within the suite's timeout")
                }
            }
        }
    }

    /// `tools/call` of `tool` with `args`.
    pub fn call(&mut self, tool: &str, args: Value) -> Answer {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// The text of a call's result (its first content block).
    pub fn text(result: &Value) -> String {
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The server's peak resident memory so far (`VmHWM`), in MiB.
    pub fn peak_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kib| kib / 1024)
    }

    /// True while the server process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        // Closing its input ends the session; a server that does not end is killed.
        self.stdin.take();
        for _ in 0..200 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
