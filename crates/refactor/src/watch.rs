//! The file watcher that keeps a cached import graph current between calls of a long-lived
//! front end (`filekit serve`), so that a warm call walks nothing.
//!
//! Built on the `notify` crate (inotify, FSEvents, ReadDirectoryChangesW, kqueue). Every
//! directory the graph's walk entered is watched on its own (not recursively: the walk
//! already knows which directories count, so `node_modules`, ignored and hidden trees cost
//! no watch); a directory that appears later is watched when the graph takes it in. The
//! handler only records which paths changed; the graph looks at them (stat, re-read, parse)
//! when it is next asked for.
//!
//! Events arrive on the watcher's thread a moment after the change. So that a call made
//! right after a change sees it, [`Watch::sync`] writes a cookie file into `.filekit/` (a
//! watched directory) and waits until its own event comes back: every change made before
//! the cookie has been recorded by then (watchman's technique). `.filekit/` must be a real
//! directory of the root (a link planted there, even to a directory inside the root, turns
//! the watcher off), and cookies are made through the descriptor opened when the watch
//! started, so that a link swapped in later cannot send them out of the root. When the watcher cannot be
//! trusted (it could not start or watch a directory, its queue overflowed, it reported an
//! error, or the cookie did not come back in time) the graph walks the tree and compares
//! stamps, as without a watcher.

use notify::event::{EventKind, ModifyKind, RenameMode};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

const COOKIE_PREFIX: &str = "graph-cookie-";
/// How long [`Watch::sync`] waits for its cookie before falling back to a walk.
const COOKIE_WAIT: Duration = Duration::from_secs(2);

#[derive(Default)]
struct State {
    /// Paths changed since the last [`Watch::take`].
    dirty: HashSet<PathBuf>,
    /// Of those, paths removed or moved away (a directory among them lost its watch, even if
    /// a new one is there by now).
    gone: HashSet<PathBuf>,
    /// Why the recorded changes cannot be trusted (overflow, an error of the watcher).
    lost: Option<String>,
    /// Cookies whose event came back.
    cookies: HashSet<PathBuf>,
}

struct Shared {
    state: Mutex<State>,
    cond: Condvar,
}

/// What changed since the last call, as far as the watcher knows.
pub enum Changes {
    /// These absolute paths (files or directories) may have changed; nothing else did. The
    /// second set holds those that were removed or moved away at some point.
    Paths(HashSet<PathBuf>, HashSet<PathBuf>),
    /// The watcher cannot tell: walk.
    Unknown(String),
}

/// A watcher of one root's directories.
pub struct Watch {
    watcher: RecommendedWatcher,
    shared: Arc<Shared>,
    root: PathBuf,
    cookie_dir: PathBuf,
    /// `.filekit/`, opened once with no link followed: cookies are made and removed through it.
    cookie_fd: rustix::fd::OwnedFd,
    watched: HashSet<PathBuf>,
}

static COOKIES: AtomicU64 = AtomicU64::new(0);

impl Watch {
    /// Starts watching `root` (not its subdirectories: see [`Watch::watch_dir`]) and its
    /// `.filekit/` directory, where the cookies go (made when `may_create`, else it must be
    /// there already).
    pub fn start(root: &Path, may_create: bool) -> Result<Watch, String> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            cond: Condvar::new(),
        });
        let cookie_dir = root.join(".filekit");
        let handler_shared = Arc::clone(&shared);
        let handler_cookies = cookie_dir.clone();
        let handler_root = root.to_path_buf();
        let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            record(&handler_shared, &handler_root, &handler_cookies, res)
        })
        .map_err(|e| format!("the file watcher did not start: {e}"))?;
        let cookie_fd = open_cookie_dir(&cookie_dir, may_create)?;
        let mut w = Watch {
            watcher,
            shared,
            root: root.to_path_buf(),
            cookie_dir: cookie_dir.clone(),
            cookie_fd,
            watched: HashSet::new(),
        };
        w.watch_dir(root)?;
        w.watch_dir(&cookie_dir)?;
        Ok(w)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Watches one directory (its entries, not its subdirectories). Watching one twice is a
    /// no-op; a directory that moved is watched again under its new name.
    pub fn watch_dir(&mut self, dir: &Path) -> Result<(), String> {
        if self.watched.contains(dir) {
            return Ok(());
        }
        self.watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
        self.watched.insert(dir.to_path_buf());
        Ok(())
    }

    pub fn is_watched(&self, dir: &Path) -> bool {
        self.watched.contains(dir)
    }

    /// Forgets a directory that is gone (the system dropped its watch with it).
    pub fn gone(&mut self, dir: &Path) {
        self.watched.retain(|d| !d.starts_with(dir));
    }

    /// Makes sure every change made before this call has been recorded: writes a cookie
    /// file and waits for its event. False when it did not come back in time.
    pub fn sync(&self) -> bool {
        use rustix::fs::{AtFlags, Mode, OFlags, openat, unlinkat};
        let n = COOKIES.fetch_add(1, Ordering::Relaxed);
        let name = format!("{COOKIE_PREFIX}{}-{n}", std::process::id());
        let cookie = self.cookie_dir.join(&name);
        let made = openat(
            &self.cookie_fd,
            name.as_str(),
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        );
        if made.is_err() {
            return false;
        }
        let state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        let (mut state, _) = self
            .shared
            .cond
            .wait_timeout_while(state, COOKIE_WAIT, |s| !s.cookies.contains(&cookie))
            .unwrap_or_else(|e| e.into_inner());
        let seen = state.cookies.remove(&cookie);
        drop(state);
        let _ = unlinkat(&self.cookie_fd, name.as_str(), AtFlags::empty());
        seen
    }

    /// The changes recorded since the last call (after [`Watch::sync`]), and forgets them.
    pub fn take(&self) -> Changes {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(why) = state.lost.take() {
            state.dirty.clear();
            state.gone.clear();
            return Changes::Unknown(why);
        }
        Changes::Paths(
            std::mem::take(&mut state.dirty),
            std::mem::take(&mut state.gone),
        )
    }

    /// Forgets what was recorded so far (just before a walk that sees it all anyway).
    pub fn clear(&self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.dirty.clear();
        state.gone.clear();
        state.lost = None;
    }
}

/// The watcher thread's handler: remembers which paths changed.
/// Opens (making it when `may_create`) the root's `.filekit/` for the cookies: a real
/// directory, never a link.
fn open_cookie_dir(dir: &Path, may_create: bool) -> Result<rustix::fd::OwnedFd, String> {
    use rustix::fs::{Mode, OFlags, mkdirat, openat};
    let made = may_create
        && match mkdirat(rustix::fs::CWD, dir, Mode::from_raw_mode(0o755)) {
            Ok(()) => true,
            Err(rustix::io::Errno::EXIST) => false,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        };
    let fd = openat(
        rustix::fs::CWD,
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| {
        format!(
            "{} is not a directory filekit can use for its cookies ({e}); the graph walks instead",
            dir.display()
        )
    })?;
    if made
        && let Ok(f) = openat(
            &fd,
            ".gitignore",
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
    {
        let _ = rustix::io::write(&f, b"*\n");
    }
    Ok(fd)
}

fn record(shared: &Shared, root: &Path, cookie_dir: &Path, res: notify::Result<notify::Event>) {
    let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
    let event = match res {
        Ok(e) => e,
        Err(e) => {
            state.lost = Some(format!("the file watcher reported an error: {e}"));
            return;
        }
    };
    if event.need_rescan() {
        state.lost = Some("the file watcher lost events (its queue overflowed)".into());
        return;
    }
    // Reads (opens, closes) change nothing.
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    let gone = matches!(
        event.kind,
        EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(
                RenameMode::From | RenameMode::Both | RenameMode::Any | RenameMode::Other
            ))
    );
    let mut cookie = false;
    for (i, p) in event.paths.into_iter().enumerate() {
        if p.starts_with(cookie_dir) {
            let is_cookie = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(COOKIE_PREFIX));
            if is_cookie && matches!(event.kind, EventKind::Create(_)) {
                state.cookies.insert(p);
                cookie = true;
            }
            continue;
        }
        // A path named otherwise than under the root (a system that reports the real path
        // of a linked root) cannot be placed: walk.
        if !p.starts_with(root) {
            state.lost = Some(format!("the file watcher named {}", p.display()));
            continue;
        }
        // `Both` names the old path first.
        if gone && i == 0 {
            state.gone.insert(p.clone());
        }
        state.dirty.insert(p);
    }
    if cookie {
        shared.cond.notify_all();
    }
}
