//! A cap on the live sessions of the streamable HTTP transport.
//!
//! rmcp's `LocalSessionManager` keeps every session until the client deletes it or it has been
//! idle for five minutes: 9,000 `initialize` requests grew the server from 101 MB to 1.26 GB.
//! [`CappedSessions`] wraps it and keeps at most `cap` sessions: a new session past the cap
//! closes the one used least recently among those with no request in flight (a request to it
//! then gets 404, as the MCP specification says for an unknown session, and a client starts a
//! new one). When every session has a request in flight, the new session is refused instead.

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Live sessions kept at most by `filekit serve --http`.
pub const MAX_HTTP_SESSIONS: usize = 100;

/// A session's use: when it was last used (a tick of the manager) and its requests in flight.
struct Use {
    last: u64,
    in_flight: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Tracker {
    sessions: HashMap<SessionId, Use>,
    tick: u64,
}

impl Tracker {
    fn touch(&mut self, id: &SessionId) -> Option<Arc<AtomicUsize>> {
        self.tick += 1;
        let tick = self.tick;
        let u = self.sessions.get_mut(id)?;
        u.last = tick;
        Some(Arc::clone(&u.in_flight))
    }
}

/// Counts a request in flight while its response stream is alive.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(counter: Arc<AtomicUsize>) -> InFlight {
        counter.fetch_add(1, Ordering::SeqCst);
        InFlight(counter)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Why a session was not created.
#[derive(Debug)]
pub enum CappedError {
    Inner(LocalSessionManagerError),
    AllBusy(usize),
}

impl std::fmt::Display for CappedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CappedError::Inner(e) => write!(f, "{e}"),
            CappedError::AllBusy(cap) => write!(
                f,
                "all {cap} MCP sessions this server keeps have a request in flight; retry when \
                 one has finished"
            ),
        }
    }
}

impl std::error::Error for CappedError {}

impl From<LocalSessionManagerError> for CappedError {
    fn from(e: LocalSessionManagerError) -> Self {
        CappedError::Inner(e)
    }
}

/// rmcp's local session manager with at most `cap` live sessions.
pub struct CappedSessions {
    inner: LocalSessionManager,
    cap: usize,
    tracker: Mutex<Tracker>,
}

impl CappedSessions {
    pub fn new(cap: usize) -> CappedSessions {
        CappedSessions {
            inner: LocalSessionManager::default(),
            cap: cap.max(1),
            tracker: Mutex::default(),
        }
    }

    fn tracker(&self) -> std::sync::MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self, id: &SessionId) -> Arc<AtomicUsize> {
        self.tracker()
            .touch(id)
            .unwrap_or_else(|| Arc::new(AtomicUsize::new(0)))
    }
}

impl SessionManager for CappedSessions {
    type Error = CappedError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        // Make room first: the oldest idle session goes.
        let victim = {
            let t = self.tracker();
            if t.sessions.len() < self.cap {
                None
            } else {
                let idle = t
                    .sessions
                    .iter()
                    .filter(|(_, u)| u.in_flight.load(Ordering::SeqCst) == 0)
                    .min_by_key(|(_, u)| u.last)
                    .map(|(id, _)| id.clone());
                match idle {
                    Some(id) => Some(id),
                    None => return Err(CappedError::AllBusy(self.cap)),
                }
            }
        };
        if let Some(id) = victim {
            self.tracker().sessions.remove(&id);
            // A session that already ended is gone either way.
            let _ = self.inner.close_session(&id).await;
        }
        let (id, transport) = self.inner.create_session().await?;
        let mut t = self.tracker();
        t.tick += 1;
        let last = t.tick;
        t.sessions.insert(
            id.clone(),
            Use {
                last,
                in_flight: Arc::new(AtomicUsize::new(0)),
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _busy = InFlight::new(self.touch(id));
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.tracker().sessions.contains_key(id) && self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.tracker().sessions.remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // The session is busy while the response stream of its request is alive.
        let busy = InFlight::new(self.touch(id));
        let stream = self.inner.create_stream(id, message).await?;
        Ok(stream.map(move |m| {
            let _held = &busy;
            m
        }))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // No external store: an unknown session is unknown (404).
        Ok(RestoreOutcome::NotSupported)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        None
    }
}
