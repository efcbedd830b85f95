//! Advisory leases: a holder takes a path for a while, and every filekit process (CLI calls,
//! servers) refuses other holders' writes to it with `LOCKED` until the lease is released or
//! expires.
//!
//! A lease is a small JSON file `locks/<hash of the absolute path>.json` in the workspace's state
//! directory ([`crate::state`]; `{path, holder, acquired, expires}`, times in Unix seconds). Files rather than a
//! database table: a write checks one `stat`/read of one small file, there is nothing to
//! migrate, and a stuck lease is visible and removable by hand. Taking and releasing hold an
//! exclusive `flock` on `locks/.lock`, so two processes cannot both take one path. A workspace
//! holds at most [`MAX_LEASES`] live leases: a caller cannot fill the disk with them.
//! A lease is written under a temporary name and renamed, so a reader never sees half of one.
//! Expired leases are ignored (and replaced by the next taker).
//!
//! Leases are advisory: tools that do not go through filekit do not see them; and an edit
//! request checks the leases it found when it began ([`Snapshot`]), so a lease taken while a
//! request runs applies from the next request.

use crate::error::{ErrorCode, FkError};
use crate::hash;
use crate::workspace::{Workspace, WsPath};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The most leases one workspace holds at once (expired ones are cleared to make room).
pub const MAX_LEASES: usize = 10_000;
/// A lease file is far smaller; a larger one is not a lease.
const MAX_LEASE_FILE_BYTES: u64 = 4096;
/// The longest lease (a day): a forgotten lease must not block a path for ever.
pub const MAX_SECONDS: u64 = 24 * 3600;
/// The lease length when none is given.
pub const DEFAULT_SECONDS: u64 = 300;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Lease {
    /// The absolute path.
    pub path: String,
    pub holder: String,
    /// Unix seconds.
    pub acquired: u64,
    pub expires: u64,
}

impl Lease {
    pub fn expires_rfc3339(&self) -> String {
        crate::workspace::rfc3339(UNIX_EPOCH + std::time::Duration::from_secs(self.expires))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The leases folder, when the workspace has a state directory.
fn dir(ws: &Workspace) -> Option<PathBuf> {
    ws.state().map(|s| s.locks_dir())
}

fn file_in(dir: &Path, p: &WsPath) -> PathBuf {
    let key = hash::content_hash(p.absolute().as_os_str().as_encoded_bytes());
    dir.join(format!("{key}.json"))
}

fn file_for(ws: &Workspace, p: &WsPath) -> Option<PathBuf> {
    dir(ws).map(|d| file_in(&d, p))
}

fn read_lease(file: &Path) -> Option<Lease> {
    let data = crate::state::read_state_file(file, MAX_LEASE_FILE_BYTES)?;
    serde_json::from_slice(&data).ok()
}

fn io_error(e: std::io::Error, what: &Path) -> FkError {
    FkError::from_io(&e, &what.display().to_string()).with_hint(
        "leases are kept in filekit's state directory (see `filekit state`); make it writable",
    )
}

fn no_state() -> FkError {
    FkError::new(
        ErrorCode::InvalidArgument,
        "leases need filekit's state directory, and this session has none",
    )
    .with_hint("start filekit with a state directory (the default, or --state-dir DIR)")
}

/// Holds the exclusive lock of the leases folder while alive.
struct FolderLock(#[allow(dead_code)] std::fs::File);

fn lock_folder(ws: &Workspace) -> Result<(FolderLock, PathBuf), FkError> {
    let state = ws.state().ok_or_else(no_state)?;
    let d = state.locks_dir();
    state.ensure_sub(&d)?;
    let path = d.join(".lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error(e, &path))?;
    rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| io_error(e.into(), &path))?;
    Ok((FolderLock(f), d))
}

/// The live lease on `p`, if any (expired leases are none).
pub fn current(ws: &Workspace, p: &WsPath) -> Option<Lease> {
    let l = read_lease(&file_for(ws, p)?)?;
    (l.expires > now()).then_some(l)
}

fn locked_error(ws: &Workspace, p: &WsPath, l: &Lease, doing: &str) -> FkError {
    let left = l.expires.saturating_sub(now());
    FkError::new(
        ErrorCode::Locked,
        format!(
            "{} is leased by {} until {} ({left} s from now); {doing} is refused",
            ws.display(p),
            l.holder,
            l.expires_rfc3339()
        ),
    )
    .with_hint("wait for the lease to expire or be released (unlock), or ask its holder; read the file meanwhile")
    .with_details(serde_json::json!({"holder": l.holder, "expires": l.expires_rfc3339()}))
}

/// Refuses a write to `p` by `holder` (None: an anonymous writer) when another holder has a
/// live lease on it.
pub fn check_write(ws: &Workspace, p: &WsPath, holder: Option<&str>) -> Result<(), FkError> {
    match current(ws, p) {
        Some(l) if Some(l.holder.as_str()) != holder => Err(locked_error(ws, p, &l, "writing")),
        _ => Ok(()),
    }
}

/// Refuses a move or removal of the folder `dir` by `holder` when another holder has a live
/// lease on something inside it: moving or removing the folder would move or remove the
/// leased file.
pub fn check_tree(ws: &Workspace, dir: &WsPath, holder: Option<&str>) -> Result<(), FkError> {
    let Some(folder) = self::dir(ws) else {
        return Ok(());
    };
    let has_leases = std::fs::read_dir(&folder).is_ok_and(|mut rd| {
        rd.any(|e| e.is_ok_and(|e| e.file_name().as_encoded_bytes().ends_with(b".json")))
    });
    if !has_leases {
        return Ok(());
    }
    let inside = list(ws).into_iter().find(|l| {
        Some(l.holder.as_str()) != holder
            && Path::new(&l.path).starts_with(dir.absolute())
            && Path::new(&l.path) != dir.absolute()
    });
    match inside {
        None => Ok(()),
        Some(l) => {
            let left = l.expires.saturating_sub(now());
            Err(FkError::new(
                ErrorCode::Locked,
                format!(
                    "{} holds {}, which is leased by {} until {} ({left} s from now); moving or deleting the folder is refused",
                    ws.display(dir),
                    l.path,
                    l.holder,
                    l.expires_rfc3339()
                ),
            )
            .with_hint("wait for the lease to expire or be released (unlock), or ask its holder")
            .with_details(serde_json::json!({"holder": l.holder, "expires": l.expires_rfc3339(), "leased": l.path})))
        }
    }
}

/// The leases of a workspace as a request found them when it began: which paths had a lease
/// file then. A request of thousands of files asks the folder once, not once per file (a
/// failed `open` of a long path each); a path that had a lease file is still read when it is
/// checked, so a lease released or expired meanwhile no longer refuses it. A lease taken
/// while a request runs applies from the next request.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The lease files' names (`<hash>.json`); empty when there is no folder.
    names: std::collections::HashSet<std::ffi::OsString>,
}

impl Snapshot {
    /// The leases folder of `ws` as it is now.
    pub fn take(ws: &Workspace) -> Snapshot {
        let Some(dir) = dir(ws) else {
            return Snapshot::default();
        };
        let names = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name())
                .filter(|n| n.as_encoded_bytes().ends_with(b".json"))
                .collect(),
            Err(_) => Default::default(),
        };
        Snapshot { names }
    }

    /// [`check_write`], for a path that had a lease file when the snapshot was taken.
    pub fn check_write(
        &self,
        ws: &Workspace,
        p: &WsPath,
        holder: Option<&str>,
    ) -> Result<(), FkError> {
        if self.names.is_empty() {
            return Ok(());
        }
        let Some(file) = file_for(ws, p) else {
            return Ok(());
        };
        match file.file_name() {
            Some(name) if self.names.contains(name) => check_write(ws, p, holder),
            _ => Ok(()),
        }
    }
}

fn check_holder(holder: &str) -> Result<(), FkError> {
    if holder.trim().is_empty() || holder.len() > 200 {
        return Err(
            FkError::invalid("the lease holder must be a name of 1 to 200 characters")
                .with_hint("give a name that identifies you, e.g. your agent's id"),
        );
    }
    Ok(())
}

/// Takes (or renews) a lease on `p` for `holder`, for `seconds`.
pub fn lock(ws: &Workspace, p: &WsPath, holder: &str, seconds: u64) -> Result<Lease, FkError> {
    check_holder(holder)?;
    if seconds == 0 || seconds > MAX_SECONDS {
        return Err(FkError::invalid(format!(
            "a lease lasts 1 to {MAX_SECONDS} seconds; {seconds} was asked"
        ))
        .with_hint(format!(
            "give ttl_seconds between 1 and {MAX_SECONDS} (default {DEFAULT_SECONDS})"
        )));
    }
    // No lease where no write may go (filekit's own data, `.git/`).
    ws.check_writable(p)?;
    let (_guard, dir) = lock_folder(ws)?;
    let file = file_in(&dir, p);
    let held = read_lease(&file);
    if let Some(l) = &held
        && l.expires > now()
        && l.holder != holder
    {
        return Err(locked_error(ws, p, l, "taking it"));
    }
    if held.is_none() {
        make_room(&dir)?;
    }
    let t = now();
    let lease = Lease {
        path: p.absolute().display().to_string(),
        holder: holder.to_string(),
        acquired: t,
        expires: t + seconds,
    };
    let data = serde_json::to_vec(&lease).expect("a lease serializes");
    crate::state::replace_private_file(&file, &data).map_err(|e| io_error(e, &file))?;
    Ok(lease)
}

/// Makes sure one more lease fits under [`MAX_LEASES`] (called with the folder locked):
/// expired leases are cleared when the folder is full, and a folder still full refuses.
fn make_room(dir: &Path) -> Result<(), FkError> {
    let lease_files = || -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.file_name().as_encoded_bytes().ends_with(b".json"))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    let files = lease_files();
    if files.len() < MAX_LEASES {
        return Ok(());
    }
    let t = now();
    let mut live = 0;
    for f in files {
        match read_lease(&f) {
            Some(l) if l.expires > t => live += 1,
            _ => {
                let _ = std::fs::remove_file(&f);
            }
        }
    }
    if live < MAX_LEASES {
        return Ok(());
    }
    Err(FkError::too_large(
        crate::error::Limit::Leases,
        live as u64,
        MAX_LEASES as u64,
        format!("the workspace already holds {live} leases, the most it may hold"),
    )
    .with_hint("release leases you no longer need (unlock), or wait for some to expire"))
}

/// Releases `holder`'s lease on `p`. Returns the released lease, or `None` when there was no
/// live lease. Another holder's live lease is refused unless `force`.
pub fn unlock(
    ws: &Workspace,
    p: &WsPath,
    holder: &str,
    force: bool,
) -> Result<Option<Lease>, FkError> {
    check_holder(holder)?;
    ws.check_writable(p)?;
    let Some(file) = file_for(ws, p) else {
        return Ok(None);
    };
    if std::fs::symlink_metadata(&file).is_err() {
        return Ok(None);
    }
    let (_guard, _) = lock_folder(ws)?;
    let Some(l) = read_lease(&file) else {
        let _ = std::fs::remove_file(&file);
        return Ok(None);
    };
    if l.expires > now() && l.holder != holder && !force {
        return Err(locked_error(ws, p, &l, "releasing it").with_hint(
            "only the holder releases a lease; wait for it to expire, or pass force to break it",
        ));
    }
    std::fs::remove_file(&file).map_err(|e| io_error(e, &file))?;
    Ok((l.expires > now()).then_some(l))
}

/// Every live lease of the workspace.
pub fn list(ws: &Workspace) -> Vec<Lease> {
    let Some(Ok(rd)) = dir(ws).map(std::fs::read_dir) else {
        return Vec::new();
    };
    let t = now();
    let mut out: Vec<Lease> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| read_lease(&e.path()))
        .filter(|l| l.expires > t)
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
