//! The pool of warm servers: one per (root, language), reused by a long-running process and
//! shut down at its end.

use super::*;

type Slot = Arc<Mutex<Option<Client>>>;

static POOL: LazyLock<Mutex<HashMap<(PathBuf, ServerKind), Slot>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Runs `f` with the warm server of `launch.kind` on `root`, starting `launch` when there is
/// none (or the one there died). A server whose request failed at the transport level is
/// dropped, so the next call starts a fresh one.
pub fn with_client<R>(
    launch: &Launch,
    root: &Path,
    f: impl FnOnce(&mut Client) -> Result<R, FkError>,
) -> Result<R, FkError> {
    let kind = launch.kind;
    let slot = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.entry((root.to_path_buf(), kind))
            .or_insert_with(|| Arc::new(Mutex::new(None)))
            .clone()
    };
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    if guard.as_mut().is_some_and(|c| !c.alive()) {
        *guard = None;
    }
    if guard.is_none() {
        *guard = Some(Client::start(launch, root)?);
    }
    let client = guard.as_mut().expect("started above");
    let r = f(client);
    if let Err(e) = &r
        && e.code == ErrorCode::Io
        && let Some(c) = guard.take()
    {
        c.shutdown();
    }
    r
}

/// Runs `f` with the warm server of `kind` on `root` if one is running; starts none.
pub fn with_running_client<R>(
    root: &Path,
    kind: ServerKind,
    f: impl FnOnce(&mut Client) -> Result<R, FkError>,
) -> Option<Result<R, FkError>> {
    let slot = {
        let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.get(&(root.to_path_buf(), kind))?.clone()
    };
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    let client = guard.as_mut()?;
    if !client.alive() {
        return None;
    }
    Some(f(client))
}

/// Stops every server of the pool (a CLI call's end, a server's shutdown).
pub fn shutdown_all() {
    let slots: Vec<Slot> = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.drain().map(|(_, s)| s).collect()
    };
    for s in slots {
        if let Some(c) = s.lock().unwrap_or_else(|e| e.into_inner()).take() {
            c.shutdown();
        }
    }
}
