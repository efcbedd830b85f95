//! Where filekit keeps the state it trusts: outside the workspace.
//!
//! The workspace is untrusted input (a cloned repository, a pull request, a model's own tool
//! calls). Anything filekit reads back as its own state and acts on (the edit history, the
//! versions it served, leases, the journals it replays after a crash) must therefore not live in
//! the tree, where a repository can ship a forged copy or a link can redirect it: a planted
//! journal would be replayed as filekit's own writes, a planted link would send the history's
//! database or the versions' pruning out of the roots. So each workspace's state is a directory
//! of the user's own state directory, keyed by its first root:
//!
//! ```text
//! <base>/workspaces/<name>-<hash of the first root>/
//!     root          the first root's path, for people looking at the folder
//!     history.db    the edit history (SQLite, with its -wal and -shm beside it)
//!     versions/     the versions reads served and commits wrote, by content_hash
//!     locks/        advisory leases
//!     journal/      the manifests of atomic runs in progress (their backups stay in the tree)
//! ```
//!
//! `<base>` is chosen by the front end (`$XDG_STATE_HOME/filekit`, `~/.local/state/filekit`,
//! or `--state-dir`): the engine reads no environment. Directories are made mode 0700 and files
//! 0600 (they hold copies of what was read, secrets included); a directory on the way that is a
//! symbolic link, not owned by this user, or writable by others is refused, as ssh refuses such
//! a `~/.ssh`.
//!
//! ```
//! use filekit_core::state::StateDir;
//! use std::path::Path;
//!
//! let base = tempfile::tempdir().unwrap();
//! let state = StateDir::for_root(base.path(), Path::new("/home/ann/src/app"));
//! assert!(state.path().starts_with(base.path().join("workspaces")));
//! assert_eq!(state.history_file(), state.path().join("history.db"));
//! // Nothing exists until something is kept.
//! assert!(!state.path().exists());
//! state.ensure().unwrap();
//! assert!(state.path().is_dir());
//! ```

use crate::error::FkError;
use std::io;
use std::path::{Path, PathBuf};

/// The folder of `<base>` that holds one folder per workspace.
const WORKSPACES: &str = "workspaces";

/// The state of one workspace (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    base: PathBuf,
    dir: PathBuf,
    first_root: Option<PathBuf>,
}

impl StateDir {
    /// The state of the workspace whose first root is `first_root` (its canonical path), under
    /// the user's state directory `base`. Nothing is created until [`StateDir::ensure`].
    pub fn for_root(base: &Path, first_root: &Path) -> StateDir {
        StateDir {
            base: base.to_path_buf(),
            dir: base.join(WORKSPACES).join(key(first_root)),
            first_root: Some(first_root.to_path_buf()),
        }
    }

    /// State kept in `dir` itself, for one workspace (tests, or a caller that chose the
    /// folder).
    pub fn at(dir: &Path) -> StateDir {
        StateDir {
            base: dir.to_path_buf(),
            dir: dir.to_path_buf(),
            first_root: None,
        }
    }

    /// The user's state directory this workspace's folder is in.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The workspace's folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn history_file(&self) -> PathBuf {
        self.dir.join("history.db")
    }

    pub fn versions_dir(&self) -> PathBuf {
        self.dir.join("versions")
    }

    pub fn locks_dir(&self) -> PathBuf {
        self.dir.join("locks")
    }

    pub fn journal_dir(&self) -> PathBuf {
        self.dir.join("journal")
    }

    /// Makes the workspace's folder (mode 0700, and its parents up from `base`), after checking
    /// that every existing folder on the way from `base` is a real directory of this user that
    /// nobody else may write. Returns its path.
    pub fn ensure(&self) -> Result<&Path, FkError> {
        ensure_private_dir(&self.base, &self.base)?;
        let mut at = self.base.clone();
        if let Ok(rest) = self.dir.strip_prefix(&self.base) {
            for c in rest.components() {
                at.push(c);
                ensure_private_dir(&at, &self.base)?;
            }
        }
        if let Some(root) = &self.first_root {
            let note = self.dir.join("root");
            if std::fs::symlink_metadata(&note).is_err() {
                let _ = write_private_file(&note, format!("{}\n", root.display()).as_bytes());
            }
        }
        Ok(&self.dir)
    }

    /// Makes `sub` (a folder of the workspace's state, such as [`StateDir::versions_dir`])
    /// under the same rules as [`StateDir::ensure`].
    pub fn ensure_sub(&self, sub: &Path) -> Result<(), FkError> {
        self.ensure()?;
        ensure_private_dir(sub, &self.base)
    }

    /// Removes the workspace's whole folder: its history, versions, leases and journals.
    /// Journals of runs still in progress are not looked at: call it when no filekit works on
    /// the workspace.
    pub fn purge(&self) -> Result<bool, FkError> {
        match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(state_error(&self.dir, e)),
            Ok(m) if !m.is_dir() => Err(state_error(
                &self.dir,
                io::Error::other("it is not a directory"),
            )),
            Ok(_) => std::fs::remove_dir_all(&self.dir)
                .map(|()| true)
                .map_err(|e| state_error(&self.dir, e)),
        }
    }
}

/// `<last component of the root>-<16 hex digits of its hash>`: readable, and unique per root
/// (two roots named `app` in different places get different folders).
fn key(first_root: &Path) -> String {
    let name: String = first_root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".to_string())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let name = name.trim_start_matches('.');
    let name = if name.is_empty() { "root" } else { name };
    let digest = xxhash_rust::xxh3::xxh3_64(first_root.as_os_str().as_encoded_bytes());
    format!("{name}-{digest:016x}")
}

fn state_error(path: &Path, e: impl std::fmt::Display) -> FkError {
    FkError::new(
        crate::ErrorCode::Io,
        format!("filekit's state directory {}: {e}", path.display()),
    )
    .with_hint(
        "filekit keeps its history, versions and leases in a private directory of yours; \
         fix that directory (a real directory of yours, mode 700), or choose another with \
         --state-dir",
    )
}

/// Makes `dir` (one level; its parent exists) mode 0700, or checks the existing one: a real
/// directory (not a link), owned by this user, not writable by group or others. `base` may
/// have missing parents: they are made as any directory would be (it is the user's choice).
fn ensure_private_dir(dir: &Path, base: &Path) -> Result<(), FkError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    match std::fs::symlink_metadata(dir) {
        Ok(m) => {
            if !m.is_dir() {
                return Err(state_error(
                    dir,
                    "it is not a directory (a symbolic link or a file is refused)",
                ));
            }
            if m.uid() != rustix::process::geteuid().as_raw() {
                return Err(state_error(dir, "it belongs to another user"));
            }
            if m.mode() & 0o022 != 0 {
                return Err(state_error(dir, "others may write in it"));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if dir == base
                && let Some(parent) = dir.parent()
            {
                std::fs::create_dir_all(parent).map_err(|e| state_error(parent, e))?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => Ok(()),
                // Made meanwhile by another filekit: check it as any existing one.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => ensure_private_dir(dir, base),
                Err(e) => Err(state_error(dir, e)),
            }
        }
        Err(e) => Err(state_error(dir, e)),
    }
}

/// Creates a new file readable by its owner only; an existing name (a file or a link) is an
/// error, never written through.
pub(crate) fn write_private_file(path: &Path, data: &[u8]) -> io::Result<()> {
    create_private_file(path, data, false)
}

fn create_private_file(path: &Path, data: &[u8], flush: bool) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(data)?;
    if flush {
        f.sync_all()?;
    }
    Ok(())
}

/// Puts `data` at `path`, a file of a state folder already checked, whole: written under a
/// temporary name beside it (created new, 0600, so never through a link), then renamed over
/// the old file, so that no reader sees half of it. Every file of the state that filekit
/// replaces is written here (SQLite writes its own). Not flushed: for caches and files that
/// live as long as their process (see [`replace_private_file_durably`]).
pub fn replace_private_file(path: &Path, data: &[u8]) -> io::Result<()> {
    replace_private(path, data, false)
}

/// [`replace_private_file`], with the file flushed to the disk before it is renamed into
/// place (the caller flushes the folder): for a record a crash must not lose, such as an
/// atomic run's manifest.
pub fn replace_private_file_durably(path: &Path, data: &[u8]) -> io::Result<()> {
    replace_private(path, data, true)
}

fn replace_private(path: &Path, data: &[u8], flush: bool) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static TEMPS: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("a state file needs a name"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        TEMPS.fetch_add(1, Ordering::Relaxed)
    ));
    let temp = path.with_file_name(temp_name);
    let written =
        create_private_file(&temp, data, flush).and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Writes `data` as the file `name` of the state base itself (the HTTP bearer token), after
/// the same checks as every folder of the state: a real directory of this user that nobody
/// else may write (a shared `/tmp`-like folder is refused, never made private behind its
/// owner's back). Returns the file's path.
pub fn write_in_base(base: &Path, name: &str, data: &[u8]) -> Result<PathBuf, FkError> {
    ensure_private_dir(base, base)?;
    let file = base.join(name);
    replace_private_file(&file, data).map_err(|e| state_error(&file, e))?;
    Ok(file)
}

/// Opens a file of the state for reading: never through a symbolic link at its name, never a
/// FIFO, socket or device (which could block or never end), and at most `max` bytes (a larger
/// one is `None`, as a missing one). The state directory is the user's, but a cache must not
/// hang or exhaust memory on whatever it finds there.
pub(crate) fn read_state_file(path: &Path, max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.len() > max {
        return None;
    }
    let mut out = Vec::with_capacity(m.len() as usize);
    f.take(max + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= max).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_readable_and_unique_per_root() {
        let a = key(Path::new("/home/ann/app"));
        let b = key(Path::new("/srv/app"));
        assert!(a.starts_with("app-") && b.starts_with("app-"), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(a, key(Path::new("/home/ann/app")));
        assert!(key(Path::new("/")).starts_with("root-"));
        assert!(key(Path::new("/x/.hidden")).starts_with("hidden-"));
        assert!(key(Path::new("/x/a b/ç")).starts_with("_-"));
    }

    #[test]
    fn folders_are_private_and_links_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("state");
        let s = StateDir::for_root(&base, Path::new("/w/app"));
        s.ensure().unwrap();
        for d in [&base, &base.join(WORKSPACES), &s.dir] {
            let mode = std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
        assert_eq!(
            std::fs::read_to_string(s.path().join("root")).unwrap(),
            "/w/app\n"
        );
        // A workspace folder replaced by a link (to anywhere) is refused.
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let other = StateDir::for_root(&base, Path::new("/w/other"));
        std::os::unix::fs::symlink(&elsewhere, other.path()).unwrap();
        let e = other.ensure().unwrap_err();
        assert!(e.message.contains("not a directory"), "{e}");
        // A base others may write in is refused.
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = s.ensure().unwrap_err();
        assert!(e.message.contains("others may write"), "{e}");
    }

    #[test]
    fn state_files_are_read_without_links_or_blocking() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_state_file(&f, 5).as_deref(), Some(&b"12345"[..]));
        assert_eq!(read_state_file(&f, 4), None);
        let l = t.path().join("l");
        std::os::unix::fs::symlink(&f, &l).unwrap();
        assert_eq!(read_state_file(&l, 100), None);
        let fifo = t.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(read_state_file(&fifo, 100), None);
    }
}
