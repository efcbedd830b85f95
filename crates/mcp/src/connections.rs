//! The HTTP transport's connections, each bounded in time, and all of them in number.
//!
//! Any local process can open connections to a loopback port and leave them there: 300
//! connections that never finished their headers once held the server's descriptors until
//! the authenticated client's own connection timed out. So:
//!
//! - a request's headers must arrive within [`ConnectionLimits::header_timeout`] of the
//!   moment the server starts waiting for them (the first request's, and each next one's on
//!   a kept-alive connection; hyper's header read timeout), else the connection is closed;
//! - a connection on which no byte moves either way for [`ConnectionLimits::idle_timeout`],
//!   with no request being answered, is closed (a response stream of the MCP transport sends
//!   a keep-alive comment every 15 s, so an open stream is never idle);
//! - at most [`ConnectionLimits::max_connections`] connections are served at once, and when
//!   a new one comes past that, or the process is out of descriptors, the connection that
//!   has been idle longest is closed to make room: stalled connections go first, and a client
//!   that sends a request is served.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

/// How long the headers of a request may take to arrive.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may stay with no byte moving and no request in hand.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Connections served at once (fewer when the process may open fewer descriptors).
pub const MAX_CONNECTIONS: usize = 256;

/// The bounds on the HTTP transport's connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout: HEADER_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// One open connection as the registry sees it.
struct Conn {
    /// When a byte last moved, in milliseconds since the registry started.
    last_active: AtomicU64,
    /// Requests being answered on it.
    busy: AtomicUsize,
    /// Cancelled to close it.
    close: CancellationToken,
}

impl Conn {
    fn idle_for(&self, now: u64) -> u64 {
        if self.busy.load(Ordering::Acquire) > 0 {
            0
        } else {
            now.saturating_sub(self.last_active.load(Ordering::Acquire))
        }
    }
}

/// The open connections.
struct Registry {
    start: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Registry {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn len(&self) -> usize {
        self.open.lock().map_or(0, |o| o.len())
    }

    fn register(&self) -> (u64, Arc<Conn>) {
        let conn = Arc::new(Conn {
            last_active: AtomicU64::new(self.now()),
            busy: AtomicUsize::new(0),
            close: CancellationToken::new(),
        });
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut open) = self.open.lock() {
            open.insert(id, Arc::clone(&conn));
        }
        (id, conn)
    }

    fn unregister(&self, id: u64) {
        if let Ok(mut open) = self.open.lock() {
            open.remove(&id);
        }
    }

    /// Closes the connection idle longest (none while every one is answering a request), and
    /// takes it out of the count at once: its task ends, and its descriptor is freed, soon.
    fn evict_idlest(&self) -> bool {
        let now = self.now();
        let Ok(mut open) = self.open.lock() else {
            return false;
        };
        let idlest = open
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
            // Idle as long (within a millisecond): the one accepted first goes first.
            .max_by_key(|(id, c)| (c.idle_for(now), std::cmp::Reverse(**id)))
            .map(|(id, _)| *id);
        match idlest.and_then(|id| open.remove(&id)) {
            Some(conn) => {
                conn.close.cancel();
                true
            }
            None => false,
        }
    }
}

/// A connection's stream that notes when a byte moves.
struct Watched<S> {
    inner: S,
    conn: Arc<Conn>,
    registry: Arc<Registry>,
}

impl<S> Watched<S> {
    fn touch(&self) {
        self.conn
            .last_active
            .store(self.registry.now(), Ordering::Release);
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// `EMFILE` and `ENFILE` on Linux (the BSDs' values are the same).
const EMFILE: i32 = 24;
const ENFILE: i32 = 23;

/// True for the accept errors that say the process (or the system) is out of descriptors.
fn out_of_descriptors(err: &std::io::Error) -> bool {
    matches!(err.raw_os_error(), Some(EMFILE | ENFILE))
}

/// Serves `router` on `listener` under `limits` until `shutdown` is cancelled.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let registry = Arc::new(Registry {
        start: Instant::now(),
        next: AtomicU64::new(0),
        open: Mutex::new(HashMap::new()),
    });
    let max = limits.max_connections.max(1);
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                // A reply goes out in more than one write (headers, then the event stream's
                // chunks): with Nagle's algorithm on, the second waits for the client's
                // delayed acknowledgement of the first, some 40 ms per call on loopback.
                let _ = stream.set_nodelay(true);
                stream
            }
            Err(err) => {
                // Out of descriptors: make room by closing the idlest connection, then accept
                // again once its task has let its descriptor go. Any other error (a connection
                // reset before it was accepted) concerns that connection alone.
                if out_of_descriptors(&err) {
                    registry.evict_idlest();
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        while registry.len() >= max {
            if !registry.evict_idlest() {
                break;
            }
        }
        let (id, conn) = registry.register();
        let io = hyper_util::rt::TokioIo::new(Watched {
            inner: stream,
            conn: Arc::clone(&conn),
            registry: Arc::clone(&registry),
        });
        // The router as a hyper service that counts the requests it is answering on this
        // connection: one with a request in hand is not idle, however long the engine takes.
        let service = {
            let (router, conn, registry) =
                (router.clone(), Arc::clone(&conn), Arc::clone(&registry));
            hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                use tower::ServiceExt as _;
                let router = router.clone();
                let conn = Arc::clone(&conn);
                let registry = Arc::clone(&registry);
                conn.busy.fetch_add(1, Ordering::AcqRel);
                async move {
                    let response = router.oneshot(request.map(axum::body::Body::new)).await;
                    conn.last_active.store(registry.now(), Ordering::Release);
                    conn.busy.fetch_sub(1, Ordering::AcqRel);
                    response
                }
            })
        };
        let registry = Arc::clone(&registry);
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let connection = builder.serve_connection(io, service);
            tokio::select! {
                _ = connection => {}
                () = conn.close.cancelled() => {}
                () = idle(&conn, &registry, limits.idle_timeout) => {}
                () = shutdown.cancelled() => {}
            }
            registry.unregister(id);
        });
    }
}

/// Ends when `conn` has had no byte move and no request in hand for `timeout`.
async fn idle(conn: &Conn, registry: &Registry, timeout: Duration) {
    let timeout_ms = timeout.as_millis() as u64;
    loop {
        let idle = conn.idle_for(registry.now());
        if idle >= timeout_ms {
            return;
        }
        tokio::time::sleep(Duration::from_millis(timeout_ms - idle)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idlest_free_connection_is_closed_first() {
        let registry = Registry {
            start: Instant::now() - Duration::from_secs(100),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        };
        let (_, old) = registry.register();
        let (_, busy) = registry.register();
        let (_, new) = registry.register();
        old.last_active.store(1_000, Ordering::Release);
        busy.last_active.store(0, Ordering::Release);
        busy.busy.store(1, Ordering::Release);
        assert!(registry.evict_idlest());
        assert!(old.close.is_cancelled());
        assert!(!busy.close.is_cancelled() && !new.close.is_cancelled());
        assert!(registry.evict_idlest());
        assert!(new.close.is_cancelled());
        // Only a connection answering a request is left: none is closed.
        assert!(!registry.evict_idlest());
        assert_eq!(registry.len(), 1);
    }
}
