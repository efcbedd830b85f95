//! Workspace roots offered by the client (MCP `roots`), used when `filekit serve` got no
//! `--root`. MCP roots are deprecated in newer protocol revisions (and in rmcp since 1.8);
//! they are served where the negotiated protocol still has them, and `--root` always works.

use filekit_core::Workspace;
use rmcp::RoleServer;
use rmcp::service::Peer;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedRwLockWriteGuard, RwLock};

/// How long to wait for the client to answer `roots/list` before keeping the workspace we have.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// The workspace of one session, replaceable when the client's roots change.
pub(crate) struct SessionWorkspace {
    pub(crate) current: Arc<RwLock<Arc<Workspace>>>,
    /// True when no `--root` was given: follow the client's roots.
    follow_client: bool,
    /// Held from `initialize` until the first roots answer arrives, so that no tool call runs
    /// against the fallback workspace while the client's roots are on their way.
    first_fetch: Mutex<Option<OwnedRwLockWriteGuard<Arc<Workspace>>>>,
}

impl SessionWorkspace {
    pub(crate) fn new(workspace: Arc<Workspace>, follow_client: bool) -> Self {
        SessionWorkspace {
            current: Arc::new(RwLock::new(workspace)),
            follow_client,
            first_fetch: Mutex::new(None),
        }
    }

    /// Called while answering `initialize`: when the client offers roots and we follow them,
    /// hold the workspace until they arrive. The client sends no call before our answer.
    pub(crate) fn client_offers_roots(&self, offers: bool) {
        if !(self.follow_client && offers) {
            return;
        }
        if let Ok(guard) = Arc::clone(&self.current).try_write_owned()
            && let Ok(mut slot) = self.first_fetch.lock()
        {
            *slot = Some(guard);
        }
    }

    /// Fetches the client's roots (after `initialized`, or when they changed) and opens the
    /// workspace on them. Failures keep the workspace as it was and are logged to stderr.
    pub(crate) fn refresh(&self, peer: Peer<RoleServer>) {
        if !self.follow_client {
            return;
        }
        let held = self
            .first_fetch
            .lock()
            .ok()
            .and_then(|mut slot| slot.take());
        let current = Arc::clone(&self.current);
        tokio::spawn(async move {
            let fetched = fetch_roots(&peer).await;
            let mut guard = match held {
                Some(guard) => guard,
                None => current.write_owned().await,
            };
            match fetched {
                Ok(roots) if !roots.is_empty() => match Workspace::new(&roots, guard.read_only())
                    .map(|ws| {
                        ws.with_git_writes(guard.git_writes())
                            .with_protected_writes(guard.protected_writes())
                            .with_secret_reads(guard.secret_reads())
                            .with_max_reply_bytes(guard.max_reply_bytes())
                            .with_trust(guard.is_trusted())
                            .with_max_file_size(guard.max_file_size())
                    }) {
                    Ok(mut ws) => {
                        carry_history(&guard, &mut ws);
                        if let Err(e) = filekit_core::transaction::recover(&ws) {
                            crate::log_line!("filekit serve: warning: {e}");
                        }
                        crate::log_line!(
                            "filekit serve: workspace roots from the client: {roots:?}"
                        );
                        *guard = Arc::new(ws);
                    }
                    Err(err) => {
                        crate::log_line!(
                            "filekit serve: cannot open the client's roots {roots:?}: {err}"
                        )
                    }
                },
                Ok(_) => crate::log_line!(
                    "filekit serve: the client offers no file roots; keeping {:?}",
                    guard.roots()
                ),
                Err(message) => {
                    crate::log_line!("filekit serve: {message}; keeping {:?}", guard.roots())
                }
            }
        });
    }
}

/// Gives a workspace opened on the client's roots the state of the one it replaces: the state
/// directory of the new first root under the same base, with its history and versions (or the
/// same database, when one was named), and the same lease holder.
fn carry_history(old: &Workspace, new: &mut Workspace) {
    use filekit_core::history::{DEFAULT_CAP_BYTES, History};
    use filekit_core::state::StateDir;
    use filekit_core::versions::Versions;
    let new_state = old
        .state()
        .map(|s| StateDir::for_root(s.base(), &new.roots()[0]));
    if let Some(state) = &new_state
        && !new.read_only()
        && let Err(e) = state.ensure()
    {
        crate::log_line!("filekit serve: warning: {e}");
    }
    if let Some(v) = old.versions() {
        match &new_state {
            Some(state) if v.dir().is_some() && !new.read_only() => {
                new.set_versions(Arc::new(Versions::on_disk(state.versions_dir())));
            }
            _ => new.set_versions(Arc::clone(v)),
        }
    }
    if let Some(h) = old.holder() {
        new.set_holder(h);
    }
    if let Some(h) = old.history() {
        match (old.state(), &new_state) {
            (Some(old_state), Some(state)) if h.path() == old_state.history_file() => {
                new.set_history(Arc::new(History::new(
                    &state.history_file(),
                    DEFAULT_CAP_BYTES,
                )));
            }
            _ => new.set_history(Arc::clone(h)),
        }
    }
    if let Some(state) = new_state {
        new.set_state(state);
    }
}

#[allow(deprecated)] // MCP roots: deprecated upstream, still offered by many clients.
async fn fetch_roots(peer: &Peer<RoleServer>) -> Result<Vec<PathBuf>, String> {
    let answer = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots())
        .await
        .map_err(|_| "the client did not answer roots/list in time".to_string())?
        .map_err(|err| format!("roots/list failed: {err}"))?;
    Ok(answer
        .roots
        .iter()
        .filter_map(|root| file_uri_path(&root.uri))
        .collect())
}

/// The local path of a `file://` URI (`file:///home/me/my%20project`), or `None` for other
/// schemes and remote hosts.
pub(crate) fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = path.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            decoded.push(byte);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(decoded).ok()?;
    Some(PathBuf::from(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/my%20project"),
            Some(PathBuf::from("/home/me/my project"))
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some(PathBuf::from("/srv/x"))
        );
        assert_eq!(file_uri_path("file://server/share"), None);
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(
            file_uri_path("file:///bad%zzname"),
            Some(PathBuf::from("/bad%zzname"))
        );
    }
}
