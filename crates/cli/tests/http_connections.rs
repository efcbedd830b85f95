//! `serve --http` against connections that never finish: hundreds of
//! connections that send part of their headers and stop are closed by the server, and the
//! authenticated client is served while they are open, also when they have taken every
//! descriptor the process may open. The timeouts are set small here (a second or two); the
//! tests wait for what the server does and assert what it answers, never how long it took.

use crate::common;
use common::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::Duration;

/// A `serve --http` on a free loopback port, with its address and bearer token.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
    token: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server with `extra` options after `serve --http 127.0.0.1:0`; `nofile` sets
/// the descriptor limit (soft and hard) it starts under.
fn start(sb: &Sandbox, extra: &[&str], nofile: Option<u64>) -> HttpServer {
    let mut args = vec!["serve", "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut cmd: Command = sb.command(&args);
    if let Some(n) = nofile {
        // SAFETY: setrlimit between fork and exec touches only the child's own limit.
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: n,
                    rlim_max: n,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().expect("run filekit serve --http");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let (mut addr, mut token) = (None, None);
    while addr.is_none() {
        let line = lines
            .next()
            .expect("the server said where it listens")
            .unwrap();
        if let Some(rest) = line.split("bearer token ").nth(1) {
            token = rest.split_whitespace().next().map(str::to_string);
        }
        if let Some(rest) = line.split("listening on http://").nth(1) {
            addr = rest.trim_end_matches("/mcp").parse().ok();
        }
    }
    // The rest of its log is drained, so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    HttpServer {
        child,
        addr: addr.unwrap(),
        token: token.expect("a bearer token"),
    }
}

/// A connection that sends the start of a request's headers and then nothing.
fn stalled(addr: SocketAddr) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).ok()?;
    let _ = s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    Some(s)
}

/// Waits until the server closes `s` (a read gives end of file or an error): true, or false
/// after the suite's command timeout.
fn closed_by_server(mut s: TcpStream) -> bool {
    let deadline = std::time::Instant::now() + COMMAND_TIMEOUT;
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 512];
    while std::time::Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue, // a 408 or another answer before the close
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

/// The authenticated client's `initialize`, on a new connection: the status line of the
/// answer (or what went wrong).
fn initialize(server: &HttpServer) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        server.token,
        body.len()
    );
    // The server may be making room: a few tries, each a new connection.
    let mut last = String::new();
    for _ in 0..50 {
        let attempt = (|| -> std::io::Result<String> {
            let mut s = TcpStream::connect(server.addr)?;
            s.set_read_timeout(Some(COMMAND_TIMEOUT))?;
            s.write_all(request.as_bytes())?;
            let mut status = String::new();
            BufReader::new(s).read_line(&mut status)?;
            Ok(status)
        })();
        match attempt {
            Ok(status) if status.starts_with("HTTP/1.1 200") => return status,
            Ok(status) => last = status,
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    last
}

#[test]
fn connections_that_never_finish_their_headers_are_closed() {
    let sb = Sandbox::new();
    let server = start(
        &sb,
        &["--http-header-timeout", "1", "--http-idle-timeout", "2"],
        None,
    );
    let slow: Vec<TcpStream> = (0..300).filter_map(|_| stalled(server.addr)).collect();
    assert_eq!(slow.len(), 300);
    // Served while they are open.
    let status = initialize(&server);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    // Each is closed by the server, none left waiting for ever.
    let open = slow
        .into_iter()
        .filter(|s| !closed_by_server(s.try_clone().unwrap()))
        .count();
    assert_eq!(open, 0, "connections the server never closed");
    // A connection that sends nothing at all is closed too.
    let silent = TcpStream::connect(server.addr).unwrap();
    assert!(closed_by_server(silent));
}

#[test]
fn the_authenticated_client_is_served_when_stalled_connections_take_every_descriptor() {
    let sb = Sandbox::new();
    // Long timeouts: the stalled connections stay until the server needs their room.
    let server = start(
        &sb,
        &["--http-header-timeout", "600", "--http-idle-timeout", "600"],
        Some(128),
    );
    // More connections than the process has descriptors.
    let slow: Vec<TcpStream> = (0..300).filter_map(|_| stalled(server.addr)).collect();
    assert!(slow.len() >= 200, "{} connections", slow.len());
    for _ in 0..3 {
        let status = initialize(&server);
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    }
    // The cap closed the stalled connections it made room with.
    let closed = slow
        .into_iter()
        .take(50)
        .filter(|s| closed_by_server(s.try_clone().unwrap()))
        .count();
    assert_eq!(closed, 50);
}

#[test]
fn a_cap_on_connections_closes_the_idlest_for_a_new_client() {
    let sb = Sandbox::new();
    let server = start(
        &sb,
        &[
            "--http-max-connections",
            "20",
            "--http-header-timeout",
            "600",
            "--http-idle-timeout",
            "600",
        ],
        None,
    );
    let slow: Vec<TcpStream> = (0..40).filter_map(|_| stalled(server.addr)).collect();
    let status = initialize(&server);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    // The first ones, idle longest, made room for the later ones.
    let first = slow.into_iter().next().unwrap();
    assert!(closed_by_server(first));
}
