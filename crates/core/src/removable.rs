//! Whether a directory tree can be removed entirely, found out before any of it is.
//!
//! Removing a tree is one system call per entry; one that fails half way (a folder the user may
//! not write, a file marked immutable, a file system mounted inside) leaves the tree half
//! deleted. So a recursive delete first walks the tree and asks, for each folder, what the
//! kernel will ask when its entries go: may this user write and search it, is it immutable or
//! append-only, is it a sticky folder whose entries belong to others, is anything in it on
//! another file system. A tree with such a blocker is not touched, and the blockers are named.
//!
//! The walk goes through descriptors opened beneath the root with no link followed, keeps a
//! list of folders still to visit rather than recursing (the tree's depth is the workspace's
//! choice), and opens no file but regular ones, without blocking.

use cap_std::fs::Dir;
use rustix::fd::OwnedFd;
use rustix::fs::{
    Access, AtFlags, FileType, IFlags, Mode, OFlags, ResolveFlags, Stat, accessat, fstat,
    ioctl_getflags, openat2, statat,
};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Something in a tree that would stop its removal part way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blocker {
    /// Relative to the root.
    pub path: PathBuf,
    pub why: &'static str,
}

/// What the walk found: the first blockers (at most the number asked for) and how many there
/// are in all.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub first: Vec<Blocker>,
    pub total: usize,
}

impl Found {
    fn add(&mut self, path: &Path, why: &'static str, keep: usize) {
        self.total += 1;
        if self.first.len() < keep {
            self.first.push(Blocker {
                path: path.to_path_buf(),
                why,
            });
        }
    }
}

const NOT_WRITABLE: &str = "this user may not remove entries from this folder";
const IMMUTABLE: &str = "it is marked immutable or append-only (chattr)";
const MOUNTED: &str = "another file system is mounted here";
const STICKY: &str = "a sticky folder lets only the owner remove this entry";
const UNLISTED: &str = "this folder cannot be listed, so what is in it cannot be removed";

/// Walks the tree `top` (relative to `root`, a folder) and returns what would stop its
/// removal: the parent it is removed from, and every folder and file under it. Keeps the
/// first `keep` blockers.
pub(crate) fn blockers(root: &Dir, top: &Path, keep: usize) -> Found {
    let mut found = Found::default();
    let euid = rustix::process::geteuid();
    let beneath = |rel: &Path| -> rustix::io::Result<OwnedFd> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        openat2(
            root,
            rel,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_XDEV,
        )
    };
    let Ok(top_stat) = statat(root, top, AtFlags::SYMLINK_NOFOLLOW) else {
        return found;
    };
    // The folder `top` is removed from.
    let parent = top.parent().unwrap_or(Path::new(""));
    if let Ok(fd) = beneath(parent)
        && let Ok(st) = fstat(&fd)
    {
        check_folder(&fd, parent, &mut found, keep);
        if sticky_blocks(&st, &top_stat, euid) {
            found.add(top, STICKY, keep);
        }
    }
    let mut to_visit = vec![top.to_path_buf()];
    while let Some(rel) = to_visit.pop() {
        // A bind mount of the same file system has the same device number: the kernel's
        // refusal to cross a mount point (RESOLVE_NO_XDEV) is what tells.
        let fd = match beneath(&rel) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::XDEV) => {
                found.add(&rel, MOUNTED, keep);
                continue;
            }
            Err(_) => {
                found.add(&rel, UNLISTED, keep);
                continue;
            }
        };
        let Ok(st) = fstat(&fd) else { continue };
        if st.st_dev != top_stat.st_dev {
            found.add(&rel, MOUNTED, keep);
            continue;
        }
        check_folder(&fd, &rel, &mut found, keep);
        let Ok(entries) = rustix::fs::Dir::read_from(&fd) else {
            found.add(&rel, UNLISTED, keep);
            continue;
        };
        for entry in entries {
            let Ok(entry) = entry else {
                found.add(&rel, UNLISTED, keep);
                break;
            };
            let name = entry.file_name();
            if name == c"." || name == c".." {
                continue;
            }
            let name = Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()));
            let child = rel.join(name);
            let Ok(cst) = statat(&fd, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            if sticky_blocks(&st, &cst, euid) {
                found.add(&child, STICKY, keep);
            }
            match FileType::from_raw_mode(cst.st_mode) {
                FileType::Directory => to_visit.push(child),
                FileType::RegularFile => match openat2(
                    &fd,
                    name,
                    OFlags::RDONLY
                        | OFlags::NONBLOCK
                        | OFlags::NOFOLLOW
                        | OFlags::NOCTTY
                        | OFlags::CLOEXEC,
                    Mode::empty(),
                    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_XDEV,
                ) {
                    Err(rustix::io::Errno::XDEV) => found.add(&child, MOUNTED, keep),
                    Ok(f) if is_locked(&f) => found.add(&child, IMMUTABLE, keep),
                    _ if cst.st_dev != top_stat.st_dev => found.add(&child, MOUNTED, keep),
                    _ => {}
                },
                _ => {}
            }
        }
    }
    found
}

/// A folder whose entries this user cannot remove.
fn check_folder(fd: &OwnedFd, rel: &Path, found: &mut Found, keep: usize) {
    if accessat(
        fd,
        ".",
        Access::WRITE_OK | Access::EXEC_OK,
        AtFlags::EACCESS,
    )
    .is_err()
    {
        found.add(rel, NOT_WRITABLE, keep);
    } else if is_locked(fd) {
        found.add(rel, IMMUTABLE, keep);
    }
}

/// Immutable or append-only: neither it nor (for a folder) its entries can be removed, by
/// anyone, root included. A file system without these flags has none.
fn is_locked(fd: &OwnedFd) -> bool {
    ioctl_getflags(fd).is_ok_and(|f| f.intersects(IFlags::IMMUTABLE | IFlags::APPEND))
}

/// In a sticky folder (as /tmp), only the entry's owner, the folder's owner or root may
/// remove an entry.
fn sticky_blocks(folder: &Stat, entry: &Stat, euid: rustix::process::Uid) -> bool {
    const STICKY_BIT: u32 = 0o1000;
    folder.st_mode & STICKY_BIT != 0
        && !euid.is_root()
        && entry.st_uid != euid.as_raw()
        && folder.st_uid != euid.as_raw()
}
