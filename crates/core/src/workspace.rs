//! The sandbox: the allowed roots, path resolution, and every open and write beneath them.
//!
//! A caller's path is expanded (`~`), made absolute against the first root, normalized and
//! assigned to a root by whole components (so `/srv/app` never admits `/srv/app-evil`). Its
//! symbolic links are then resolved one component at a time through the root's directory
//! handle; a link that leads out of that root, directly, through a chain or dangling, is
//! refused. The resulting [`WsPath`] names the real file, relative to its root.
//!
//! Every later open or write goes through the root's `cap_std` directory handle rather than by
//! absolute name, so a symlink swapped in after resolution cannot lead out of the root. Writes
//! are staged in a temporary file next to the target and renamed over it on commit.

use crate::error::{ErrorCode, FkError};
use crate::protect::{self, Guard, Guards, Probe, Reason, RootId};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, Metadata, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Linux gives up after 40 links too; a longer chain is almost surely a loop.
const MAX_SYMLINK_HOPS: usize = 40;

/// Directory (directly under a root) where filekit keeps its own data, such as history.
pub const RESERVED_DIR: &str = ".filekit";

/// Directory of git's own data: protected from writes unless the workspace allows them.
pub const GIT_DIR: &str = ".git";

/// The longest path Linux accepts (`PATH_MAX` less the terminating NUL), in bytes.
const MAX_PATH_BYTES: usize = 4095;

/// The longest name of one directory entry (`NAME_MAX`), in bytes.
const MAX_NAME_BYTES: usize = 255;

/// How many similar paths a NOT_FOUND hint names.
const MAX_SUGGESTIONS: usize = 5;

/// Directories larger than this are not fully scanned for suggestions.
const MAX_SUGGESTION_SCAN: usize = 20_000;

#[derive(Debug)]
struct Root {
    /// Canonical absolute path.
    path: PathBuf,
    /// Other spellings of the same directory (the path as given, when it went through a
    /// symlink such as macOS's /tmp), so callers may use either.
    aliases: Vec<PathBuf>,
    dir: Dir,
}

impl Root {
    /// `p` (absolute, normalized) relative to this root, if it is inside it.
    fn relative(&self, p: &Path) -> Option<PathBuf> {
        std::iter::once(&self.path)
            .chain(&self.aliases)
            .find_map(|base| p.strip_prefix(base).ok().map(Path::to_path_buf))
    }
}

/// The allowed roots of a session and the only door to the files beneath them.
#[derive(Debug)]
pub struct Workspace {
    roots: Vec<Root>,
    root_paths: Vec<PathBuf>,
    read_only: bool,
    /// Where committed writes are recorded, when the front end opened a history.
    history: Option<std::sync::Arc<crate::history::History>>,
    /// Whether writes may go inside `.git/` directories (off by default).
    git_writes: bool,
    /// The versions served and written, for merging stale edits (see [`crate::versions`]).
    versions: Option<std::sync::Arc<crate::versions::Versions>>,
    /// Who this session is, for advisory leases (see [`crate::leases`]).
    holder: Option<String>,
    /// Whether the person who started filekit trusts the workspace's code (off by default).
    trusted: bool,
    /// Where leases and the journals of atomic runs are kept (see [`crate::state`]).
    state: Option<crate::state::StateDir>,
    /// The places of each root no tool may touch (see [`crate::protect`]).
    guards: Guards,
    /// The roots by device and inode, to find the places in them.
    root_ids: Vec<RootId>,
    /// Whether tools may write the files that make programs run later (off by default).
    protected_writes: bool,
    /// Whether tools may read the credentials under the home folder (off by default).
    secret_reads: bool,
    /// The bytes one reply carries (see [`crate::limits::ReplyBudget`]).
    max_reply_bytes: u64,
    /// The largest file held whole; larger ones stream (see [`crate::limits`]).
    max_file_size: u64,
    /// How the person who started filekit adds a root, in the front end's words (a CLI flag),
    /// for the hint of a path outside the roots; `None` where the caller cannot (an agent).
    add_root_hint: Option<&'static str>,
}

/// A path inside the workspace, resolved: no `.`/`..`, no symbolic links.
#[derive(Debug, Clone)]
pub struct WsPath {
    root: usize,
    rel: PathBuf,
    abs: PathBuf,
    /// A protected name (relative to the root) that the path as given passed through before
    /// its links led here: a write here is a write there (see [`crate::protect`]). Not part
    /// of the path's identity.
    via: Option<PathBuf>,
}

impl PartialEq for WsPath {
    fn eq(&self, other: &WsPath) -> bool {
        self.root == other.root && self.rel == other.rel
    }
}

impl Eq for WsPath {}

impl std::hash::Hash for WsPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.root.hash(state);
        self.rel.hash(state);
    }
}

impl WsPath {
    /// The directory that holds this path (`None` for a root itself).
    pub fn parent(&self) -> Option<WsPath> {
        let rel = self.rel.parent()?.to_path_buf();
        let abs = self.abs.parent()?.to_path_buf();
        Some(WsPath {
            root: self.root,
            rel,
            abs,
            via: None,
        })
    }

    /// The entry `name` inside this directory. `name` must be one plain component (a name
    /// read from the directory itself), so the result needs no resolving.
    pub(crate) fn child(&self, name: &OsStr) -> WsPath {
        WsPath {
            root: self.root,
            rel: self.rel.join(name),
            abs: self.abs.join(name),
            via: None,
        }
    }

    /// True when `self` is `other` or lies beneath it.
    pub fn is_within(&self, other: &WsPath) -> bool {
        self.root == other.root && self.rel.starts_with(&other.rel)
    }

    /// True for a root itself.
    pub fn is_root(&self) -> bool {
        self.rel.as_os_str().is_empty()
    }

    /// True for paths inside `.filekit/`, filekit's own data, which no tool may change.
    pub fn is_reserved(&self) -> bool {
        is_reserved(&self.rel)
    }

    /// The absolute path of the real file.
    pub fn absolute(&self) -> &Path {
        &self.abs
    }

    /// The path relative to its root (empty for the root itself).
    pub fn relative(&self) -> &Path {
        &self.rel
    }

    /// Which of the workspace's roots holds this path.
    pub fn root_index(&self) -> usize {
        self.root
    }

    /// The relative path as cap-std wants it: the root itself is `.`, not the empty path.
    pub(crate) fn rel_or_dot(&self) -> &Path {
        if self.rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.rel
        }
    }
}

#[derive(Debug, Clone)]
pub struct FileMeta {
    pub len: u64,
    pub modified: SystemTime,
    pub is_dir: bool,
    pub is_file: bool,
    /// Permission bits (`0o644`, ...), without the file type.
    pub mode: u32,
    /// The inode number: every write by filekit replaces the file with a new one, so a
    /// different number means the file was written since.
    pub ino: u64,
    /// Last access and creation (birth) time, where the file system keeps them: for tools
    /// that show a file's metadata, never for deciding whether it changed.
    pub accessed: Option<SystemTime>,
    pub created: Option<SystemTime>,
}

impl FileMeta {
    pub(crate) fn from_cap(m: &Metadata) -> FileMeta {
        use cap_std::fs::PermissionsExt;
        FileMeta {
            len: m.len(),
            mode: m.permissions().mode() & 0o7777,
            // Filesystems without modification times still deserve a stable answer.
            modified: m.modified().map(|t| t.into_std()).unwrap_or(UNIX_EPOCH),
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            ino: cap_std::fs::MetadataExt::ino(m),
            accessed: m.accessed().ok().map(|t| t.into_std()),
            created: m.created().ok().map(|t| t.into_std()),
        }
    }
}

/// A path of the first (and only) root that [`Workspace::open_resolved`] opened: beneath the
/// root, through no link. Made into its [`WsPath`] only when wanted (most files a walk opens
/// are read and left). It holds the path of the root it was opened beneath, so it can name
/// no path of another workspace.
#[derive(Debug, Clone, Copy)]
pub struct Linkless<'a> {
    root: &'a Path,
    rel: &'a Path,
}

impl Linkless<'_> {
    /// The path, as [`Workspace::resolve`] gives it.
    pub fn path(&self) -> WsPath {
        WsPath {
            root: 0,
            abs: self.root.join(self.rel),
            rel: self.rel.to_path_buf(),
            via: None,
        }
    }
}

#[derive(Debug)]
pub struct FileBytes {
    pub bytes: Vec<u8>,
    pub meta: FileMeta,
}

/// What a staged write may find at its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// The target must not exist.
    CreateNew,
    /// The target must exist.
    Replace,
    /// Either.
    CreateOrReplace,
    /// The target must exist, and its bytes are overwritten in the same file, with no
    /// temporary file: much faster where creating files is slow, but a crash in the middle
    /// of the write leaves the file half-written (as `fastmod` or a plain `open(O_TRUNC)`
    /// would). Never part of an atomic run. Only [`crate::transaction`] writes this way.
    InPlace,
}

impl Workspace {
    /// Opens a workspace over `roots`. Each root must exist and be a directory.
    pub fn new(roots: &[PathBuf], read_only: bool) -> Result<Workspace, FkError> {
        if roots.is_empty() {
            return Err(FkError::invalid("no workspace root was given")
                .with_hint("name at least one directory that filekit may work in"));
        }
        let mut out = Vec::with_capacity(roots.len());
        for given in roots {
            let shown = given.display().to_string();
            let path = std::fs::canonicalize(given).map_err(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    FkError::new(
                        ErrorCode::NotFound,
                        format!("workspace root {shown} does not exist"),
                    )
                    .with_hint(
                        "create the directory first, or give an existing directory as a root",
                    )
                } else {
                    FkError::from_io(&e, &format!("workspace root {shown}"))
                }
            })?;
            if !path.is_dir() {
                return Err(
                    FkError::invalid(format!("workspace root {shown} is not a directory"))
                        .with_hint("give the directory that holds the files, not a file"),
                );
            }
            let dir = Dir::open_ambient_dir(&path, ambient_authority())
                .map_err(|e| FkError::from_io(&e, &format!("workspace root {shown}")))?;
            let mut aliases = Vec::new();
            if let Ok(abs) = std::path::absolute(given) {
                let lexical = normalize(&abs);
                if lexical != path {
                    aliases.push(lexical);
                }
            }
            out.push(Root { path, aliases, dir });
        }
        let root_ids: Vec<RootId> = out.iter().filter_map(|r| RootId::of(&r.path)).collect();
        let mut guards = Guards::new(out.len());
        if root_ids.len() == out.len()
            && let Some(home) = std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute())
                .and_then(|h| std::fs::canonicalize(h).ok())
        {
            guards.add_home(&root_ids, &home);
        }
        Ok(Workspace {
            root_paths: out.iter().map(|r| r.path.clone()).collect(),
            roots: out,
            read_only,
            history: None,
            git_writes: false,
            versions: None,
            holder: None,
            trusted: false,
            state: None,
            guards,
            root_ids,
            protected_writes: false,
            secret_reads: false,
            max_reply_bytes: crate::limits::MAX_REPLY_BYTES,
            max_file_size: crate::limits::DEFAULT_MAX_FILE_SIZE,
            add_root_hint: None,
        })
    }

    /// Lets tools write the files that make programs run later (MCP clients' configurations,
    /// shell start-up files, `~/.ssh/`, ...: see [`crate::protect`]), refused by default. The
    /// person's choice, made when filekit starts, never a tool call's. filekit's own state
    /// stays out of reach either way.
    pub fn with_protected_writes(mut self, allow: bool) -> Workspace {
        self.protected_writes = allow;
        self
    }

    /// True when tools may write the protected files.
    pub fn protected_writes(&self) -> bool {
        self.protected_writes
    }

    /// Lets tools read the credentials under the home folder (`~/.ssh/`, `~/.aws/`, ...),
    /// refused by default.
    pub fn with_secret_reads(mut self, allow: bool) -> Workspace {
        self.secret_reads = allow;
        self
    }

    /// True when tools may read credentials.
    pub fn secret_reads(&self) -> bool {
        self.secret_reads
    }

    /// Sets the bytes one reply carries ([`crate::limits::MAX_REPLY_BYTES`] unless the person
    /// who starts filekit says otherwise).
    pub fn with_max_reply_bytes(mut self, max: u64) -> Workspace {
        self.max_reply_bytes = max.max(1);
        self
    }

    /// The bytes one reply carries.
    pub fn max_reply_bytes(&self) -> u64 {
        self.max_reply_bytes
    }

    /// A budget for one reply: each call that returns files, entries or matches takes one.
    pub fn reply_budget(&self) -> crate::limits::ReplyBudget {
        crate::limits::ReplyBudget::new(self.max_reply_bytes)
    }

    /// Holds files of up to `bytes` whole and streams larger ones (see [`crate::limits`]).
    pub fn with_max_file_size(mut self, bytes: u64) -> Workspace {
        self.max_file_size = bytes;
        self
    }

    /// Names how a root is added (such as "add its folder with --root DIR") in the hint of a
    /// path outside the roots.
    pub fn with_add_root_hint(mut self, hint: Option<&'static str>) -> Workspace {
        self.add_root_hint = hint;
        self
    }

    /// The largest file this workspace holds whole.
    pub fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    /// The places filekit's state takes in root `i` (absolute), which no walk enters.
    pub fn state_in_root(&self, i: usize) -> Vec<PathBuf> {
        self.guards
            .state_places()
            .into_iter()
            .filter(|(r, _)| *r == i)
            .map(|(_, rel)| self.roots[i].path.join(rel))
            .collect()
    }

    /// The places inside the roots that filekit's state takes (its state base, a history
    /// named inside a root), each out of every tool's reach: for a front end to report at
    /// start.
    pub fn state_in_roots(&self) -> Vec<PathBuf> {
        self.guards
            .state_places()
            .into_iter()
            .map(|(i, rel)| self.roots[i].path.join(rel))
            .collect()
    }

    /// Keeps this workspace's leases and the journals of its atomic runs in `state` (the
    /// front end chose it; see [`crate::state`]). Without one, leases cannot be taken and an
    /// atomic run is still all or nothing, but not across a crash of the process.
    pub fn set_state(&mut self, state: crate::state::StateDir) {
        self.guards
            .add_state(&self.root_ids, &[state.base().to_path_buf()], true);
        self.state = Some(state);
    }

    /// The workspace's state directory, if the front end gave one.
    pub fn state(&self) -> Option<&crate::state::StateDir> {
        self.state.as_ref()
    }

    /// Records every later commit in `history` (see [`crate::history`]).
    pub fn set_history(&mut self, history: std::sync::Arc<crate::history::History>) {
        // A database named anywhere (`--history FILE`) is state too, with SQLite's files
        // beside it.
        let db = history.path();
        let files: Vec<PathBuf> = ["", "-wal", "-shm", "-journal"]
            .iter()
            .map(|suffix| {
                let mut name = db.as_os_str().to_owned();
                name.push(suffix);
                PathBuf::from(name)
            })
            .collect();
        self.guards.add_state(&self.root_ids, &files, false);
        self.history = Some(history);
    }

    /// The history commits are recorded in, if any.
    pub fn history(&self) -> Option<&std::sync::Arc<crate::history::History>> {
        self.history.as_ref()
    }

    /// Keeps every version later read or written in `versions`.
    pub fn set_versions(&mut self, versions: std::sync::Arc<crate::versions::Versions>) {
        self.versions = Some(versions);
    }

    /// The version store, if any.
    pub fn versions(&self) -> Option<&std::sync::Arc<crate::versions::Versions>> {
        self.versions.as_ref()
    }

    /// Names this session as a lease holder: its writes pass its own leases.
    pub fn set_holder(&mut self, holder: impl Into<String>) {
        self.holder = Some(holder.into());
    }

    /// The session's lease holder name, if any.
    pub fn holder(&self) -> Option<&str> {
        self.holder.as_deref()
    }

    /// The directory handle of root `i`: for the commit step, which works beneath it.
    pub(crate) fn root_dir(&self, i: usize) -> &Dir {
        &self.roots[i].dir
    }

    /// Allows (or again refuses) writes inside `.git/` directories, which are refused by
    /// default: a model has no business rewriting git's objects, refs, hooks or config, and
    /// a hook or a config entry written there runs code on the next git command.
    pub fn with_git_writes(mut self, allow: bool) -> Workspace {
        self.git_writes = allow;
        self
    }

    /// True when writes inside `.git/` directories are allowed.
    pub fn git_writes(&self) -> bool {
        self.git_writes
    }

    /// Says whether the person who started filekit trusts the workspace's code (off by
    /// default). The engine starts no program either way; a front end may start one that runs
    /// the workspace's code (a language server: it loads the project's configuration, its
    /// toolchain, compiler or plugins) only for a trusted workspace. It is the person's choice,
    /// made outside the workspace (an option), never a tool call's.
    pub fn with_trust(mut self, trusted: bool) -> Workspace {
        self.trusted = trusted;
        self
    }

    /// True when the workspace's code is trusted (see [`Workspace::with_trust`]).
    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// The canonical roots, in the order given.
    pub fn roots(&self) -> &[PathBuf] {
        &self.root_paths
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Resolves a caller's path to the real file it names inside one root (see the module
    /// documentation). The path need not exist.
    pub fn resolve(&self, path: &str) -> Result<WsPath, FkError> {
        if path.contains('\0') {
            return Err(FkError::invalid(format!(
                "the path '{}' contains a NUL byte (shown as \\0)",
                path.replace('\0', "\\0")
            ))
            .with_hint("give the path without NUL characters"));
        }
        if path.is_empty() {
            return Err(FkError::invalid("the path is empty").with_hint(format!(
                "give a file path, absolute or relative to {}",
                self.roots[0].path.display()
            )));
        }
        check_length(path)?;
        let expanded = expand_home(path)?;
        let abs = if expanded.is_absolute() {
            expanded
        } else {
            self.roots[0].path.join(expanded)
        };
        let norm = normalize(&abs);
        check_length(&norm.to_string_lossy())?;

        // With nested roots the innermost is tried first; an outer one may still admit a
        // symlink that leaves the inner one.
        let mut candidates: Vec<(usize, PathBuf)> = self
            .roots
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.relative(&norm).map(|rel| (i, rel)))
            .collect();
        candidates
            .sort_by_key(|(i, _)| std::cmp::Reverse(self.roots[*i].path.components().count()));
        if candidates.is_empty() {
            return Err(FkError::new(
                ErrorCode::OutOfRoot,
                format!(
                    "{path} is outside the workspace (it resolves to {}; allowed roots: {})",
                    norm.display(),
                    self.roots_list()
                ),
            )
            .with_hint(match self.add_root_hint {
                Some(add) => format!("give a path inside one of the allowed roots, or {add}"),
                None => "give a path inside one of the allowed roots".to_string(),
            }));
        }
        let mut first_err = None;
        for (i, rel) in candidates {
            match self.resolve_in(i, &rel, path) {
                Ok(p) => return self.outside_state(p),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.expect("at least one candidate root"))
    }

    /// Resolves `path` like [`Workspace::resolve`], except that a symbolic link at its last
    /// component is not followed: the result names the link itself. For operations on
    /// directory entries (delete, move, rename), which act on a link, not on what it points
    /// to.
    pub fn resolve_entry(&self, path: &str) -> Result<WsPath, FkError> {
        let full = self.resolve(path)?;
        if full.is_root() {
            return Ok(full);
        }
        let expanded = expand_home(path)?;
        let abs = if expanded.is_absolute() {
            expanded
        } else {
            self.roots[0].path.join(expanded)
        };
        let norm = normalize(&abs);
        let (Some(parent), Some(name)) = (norm.parent(), norm.file_name()) else {
            return Ok(full);
        };
        let parent = self.resolve(&parent.to_string_lossy())?;
        let mut entry = parent.child(name);
        // The entry as named, when links on the way made it another: a protected name there
        // protects the entry.
        entry.via = parent.via.as_ref().map(|v| v.join(name)).or_else(|| {
            self.roots[entry.root]
                .relative(&norm)
                .filter(|rel| *rel != entry.rel && self.is_protected_name(entry.root, rel))
        });
        Ok(entry)
    }

    /// NOT_FOUND for `p`, with similar paths that exist.
    pub fn missing(&self, p: &WsPath) -> FkError {
        self.not_found(p)
    }

    /// Follows the symlinks of `rel` beneath root `i`, one component at a time.
    fn resolve_in(&self, i: usize, rel: &Path, given: &str) -> Result<WsPath, FkError> {
        let root = &self.roots[i];
        // Most paths exist and pass through no link: one `openat2` that refuses links and
        // stays beneath the root proves that, where the walk below costs a `stat` (and an
        // open of its directory) per component. Anything else takes the walk. Not
        // `NOFOLLOW`: with `PATH` it would open a link at the end instead of failing on it.
        if self
            .open_linkless(i, rel, rustix::fs::OFlags::PATH)
            .is_some()
        {
            return Ok(WsPath {
                root: i,
                abs: root.path.join(rel),
                rel: rel.to_path_buf(),
                via: None,
            });
        }
        // A stack of components still to walk, the next one last.
        let mut pending: Vec<OsString> = path_parts(rel);
        pending.reverse();
        let mut done: Vec<OsString> = Vec::new();
        let mut hops = 0;
        // A protected name on the way is remembered: a link must not be a way round it.
        let mut via = self.is_protected_name(i, rel).then(|| rel.to_path_buf());
        let mut last_link: Option<(PathBuf, PathBuf)> = None;
        while let Some(c) = pending.pop() {
            if c == ".." {
                if done.pop().is_some() {
                    continue;
                }
                // Only a link's target can climb above the root (the path itself was
                // normalized). It may come back in (`../root/x`): the root's ancestors are
                // real directories, so the rest is taken lexically and walked again if it
                // lands inside this root.
                let mut back = root.path.parent().unwrap_or(&root.path).to_path_buf();
                back.extend(pending.iter().rev());
                match root.relative(&normalize(&back)) {
                    Some(inside) => {
                        pending = path_parts(&inside);
                        pending.reverse();
                        continue;
                    }
                    None => {
                        let link = last_link.as_ref().map(|(l, t)| (l.as_path(), t.as_path()));
                        return Err(self.escape_error(given, link));
                    }
                }
            }
            done.push(c);
            let cur: PathBuf = done.iter().collect();
            let meta = match root.dir.symlink_metadata(&cur) {
                Ok(m) => m,
                // Nothing beyond a missing entry or a plain file can be a link; the rest of
                // the path is taken as written (and still checked for `..`).
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) =>
                {
                    continue;
                }
                Err(e) => {
                    return Err(FkError::from_io(
                        &e,
                        &root.path.join(&cur).display().to_string(),
                    ));
                }
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            hops += 1;
            let link_abs = root.path.join(&cur);
            if hops > MAX_SYMLINK_HOPS {
                return Err(FkError::invalid(format!(
                    "{given}: too many levels of symbolic links (stopped at {}); the links probably form a loop",
                    link_abs.display()
                ))
                .with_hint("fix the symbolic links, or give the real path of the file"));
            }
            let target = root
                .dir
                .read_link_contents(&cur)
                .map_err(|e| FkError::from_io(&e, &link_abs.display().to_string()))?;
            done.pop();
            last_link = Some((link_abs.clone(), target.clone()));
            let mut parts = if target.is_absolute() {
                let Some(inside) = root.relative(&normalize(&target)) else {
                    return Err(self.escape_error(given, Some((&link_abs, &target))));
                };
                done.clear();
                path_parts(&inside)
            } else {
                path_parts(&target)
            };
            parts.reverse();
            pending.extend(parts);
            if via.is_none() && !pending.iter().any(|c| c == "..") {
                let now: PathBuf = done.iter().chain(pending.iter().rev()).collect();
                if self.is_protected_name(i, &now) {
                    via = Some(now);
                }
            }
        }
        let rel: PathBuf = done.iter().collect();
        Ok(WsPath {
            root: i,
            abs: root.path.join(&rel),
            rel,
            via,
        })
    }

    fn escape_error(&self, given: &str, link: Option<(&Path, &Path)>) -> FkError {
        let message = match link {
            Some((link, target)) => format!(
                "{given} leads outside the workspace through the symbolic link {} (-> {})",
                link.display(),
                target.display()
            ),
            None => format!("{given} leads outside the workspace"),
        };
        let err = FkError::new(ErrorCode::OutOfRoot, message).with_hint(format!(
            "only files inside the allowed roots ({}) can be used; give a path inside them",
            self.roots_list()
        ));
        // The link and where it leads, for a front end that names them in its own words.
        match link {
            Some((link, target)) => err.with_details(serde_json::json!({
                "link": link.display().to_string(),
                "target": target.display().to_string(),
            })),
            None => err,
        }
    }

    fn roots_list(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.path.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Metadata of the resolved path (following symlinks beneath the root), `None` if it does
    /// not exist.
    pub fn metadata(&self, p: &WsPath) -> Result<Option<FileMeta>, FkError> {
        match self.roots[p.root].dir.metadata(p.rel_or_dot()) {
            Ok(m) => Ok(Some(FileMeta::from_cap(&m))),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(self.io_error(p, &e)),
        }
    }

    /// The directories above `target` that do not exist yet, outermost first.
    pub(crate) fn missing_parents(&self, target: &WsPath) -> Vec<WsPath> {
        let mut out = Vec::new();
        let mut cur = target.parent();
        while let Some(dir) = cur {
            if dir.is_root() || self.metadata(&dir).ok().flatten().is_some() {
                break;
            }
            cur = dir.parent();
            out.push(dir);
        }
        out.reverse();
        out
    }

    /// Reads a whole file: one of at most [`Workspace::max_file_size`] bytes (a larger one is
    /// refused before it is read, and one that grows past the bound while it is read is
    /// refused too).
    pub fn read(&self, p: &WsPath) -> Result<FileBytes, FkError> {
        use crate::limits::too_large_to_edit;
        let max = self.max_file_size;
        let (file, meta) = self.open(p)?;
        if meta.len > max {
            return Err(too_large_to_edit(&self.display(p), meta.len, max));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
        file.take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.io_error(p, &e))?;
        if bytes.len() as u64 > max {
            return Err(too_large_to_edit(&self.display(p), bytes.len() as u64, max));
        }
        Ok(FileBytes { bytes, meta })
    }

    /// Opens a file for reading, beneath its root's handle. Only a regular file is read: a
    /// FIFO, a socket or a device is refused ("not a regular file"), found so by the opened
    /// descriptor (see `open_for_reading`), never by an earlier look at the path.
    pub fn open(&self, p: &WsPath) -> Result<(std::fs::File, FileMeta), FkError> {
        self.check_readable(p)?;
        let dir = &self.roots[p.root].dir;
        let (file, m) = open_for_reading(dir, p.rel_or_dot()).map_err(|e| {
            match e.get_ref().and_then(|e| e.downcast_ref::<NotRegular>()) {
                Some(special) => FkError::invalid(format!(
                    "{} is not a regular file ({})",
                    self.display(p),
                    special.0
                ))
                .with_hint("filekit reads and edits regular files only; give the path of one")
                .with_details(serde_json::json!({ "not_regular": special.0 })),
                None => self.io_error(p, &e),
            }
        })?;
        if m.is_dir() {
            return Err(self.is_dir_error(p));
        }
        Ok((file, FileMeta::from_cap(&m)))
    }

    /// Opens `rel` (relative to root `i`, normalized) with `flags` when it exists, stays
    /// beneath the root and passes through no link at all: the proof [`Workspace::resolve`]
    /// takes for such a path to name itself. `None` for anything else (or off Linux).
    fn open_linkless(
        &self,
        i: usize,
        rel: &Path,
        flags: rustix::fs::OFlags,
    ) -> Option<rustix::fd::OwnedFd> {
        if rel.as_os_str().is_empty() {
            return None;
        }
        #[cfg(target_os = "linux")]
        return rustix::fs::openat2(
            &self.roots[i].dir,
            rel,
            flags | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
            rustix::fs::ResolveFlags::BENEATH | rustix::fs::ResolveFlags::NO_SYMLINKS,
        )
        .ok();
        // Without `openat2`, no open proves this: the callers take their general way.
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (i, flags);
            None
        }
    }

    /// Opens `rel` (a walk's path relative to the only root, as [`crate::select`] gives
    /// it) for reading, with the path [`Workspace::resolve`] would give it (made on demand
    /// by [`Linkless::path`]): the open proves what resolving it would (it is there, beneath
    /// the root, through no link), so a file found and read by a tree-wide request is not
    /// looked up again to be written. `None`
    /// when that does not hold (several roots, whose innermost one names a path; a path
    /// not plain; a link; an error): open it with [`Workspace::open_found`] and resolve it.
    pub fn open_resolved<'a>(&'a self, rel: &'a Path) -> Option<(std::fs::File, Linkless<'a>)> {
        use std::path::Component;
        if self.roots.len() != 1 || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        self.readable_found(0, rel).ok()?;
        let fd = self.open_linkless(0, rel, rustix::fs::OFlags::RDONLY | READ_FLAGS)?;
        let (file, meta) = regular(fd).ok()?;
        if !meta.is_file() {
            return None;
        }
        let root = &self.roots[0].path;
        Some((file, Linkless { root, rel }))
    }

    /// Opens `rel` (relative to root `root`) for reading beneath the root's handle: for
    /// searches, whose walk found `rel` to be a regular file. A symlink swapped in since then
    /// cannot lead out of the root, and anything but a regular file found at the path now (a
    /// FIFO swapped in, a directory) is an error ([`NotRegular`] for a special file), never
    /// a read that waits.
    pub fn open_found(&self, root: usize, rel: &Path) -> io::Result<std::fs::File> {
        self.readable_found(root, rel)?;
        let (file, meta) = open_for_reading(&self.roots[root].dir, rel)?;
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory, not a file",
            ));
        }
        Ok(file)
    }

    /// Stages a write of `bytes` to `p`: a synced temporary file in the target's directory,
    /// with the existing file's permissions. Nothing is visible until [`PendingWrite::commit`].
    /// Only the commit step ([`crate::transaction`]) writes: everything else asks it to (it
    /// stages with [`Workspace::stage_with`]); this form is the unit tests'.
    #[cfg(test)]
    pub(crate) fn stage(
        &self,
        p: &WsPath,
        bytes: &[u8],
        mode: WriteMode,
        create_parents: bool,
    ) -> Result<PendingWrite, FkError> {
        self.stage_with(p, bytes.into(), mode, create_parents, true, None)
    }

    /// Stages like [`Workspace::stage`] into a temporary file of the given name, so that a
    /// journal written beforehand can name it (and recovery can remove it). `perm` sets the
    /// permissions (otherwise the existing file's are kept).
    pub(crate) fn stage_named(
        &self,
        p: &WsPath,
        bytes: crate::content::Content<'_>,
        mode: WriteMode,
        sync: bool,
        temp: &OsStr,
        perm: Option<u32>,
    ) -> Result<PendingWrite, FkError> {
        let pending = self.stage_with(p, bytes, mode, false, sync, Some(temp))?;
        if let Some(perm) = perm {
            use cap_std::fs::PermissionsExt;
            pending
                .parent
                .set_permissions(&pending.temp, Permissions::from_mode(perm))
                .map_err(|e| FkError::from_io(&e, &pending.shown))?;
        }
        Ok(pending)
    }

    fn stage_with(
        &self,
        p: &WsPath,
        bytes: crate::content::Content<'_>,
        mode: WriteMode,
        create_parents: bool,
        sync: bool,
        temp_name: Option<&OsStr>,
    ) -> Result<PendingWrite, FkError> {
        let shown = self.display(p);
        self.check_writable(p)?;
        let Some(name) = p.rel.file_name().map(OsStr::to_os_string) else {
            return Err(self.is_dir_error(p));
        };
        let root = &self.roots[p.root];
        let parent_rel = p.rel.parent().unwrap_or(Path::new(""));
        let parent = self.open_parent(p, &root.dir, parent_rel, create_parents)?;

        let existing = match parent.symlink_metadata(&name) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(FkError::from_io(&e, &shown)),
        };
        let perms: Option<Permissions> = match (&existing, mode) {
            (Some(m), _) if m.file_type().is_symlink() => {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!("{shown} became a symbolic link after its path was resolved; filekit does not write through a link planted at a file's name"),
                )
                .with_hint("check what replaced the file, then run the request again"));
            }
            (Some(m), _) if m.is_dir() => return Err(self.is_dir_error(p)),
            (Some(_), WriteMode::CreateNew) => {
                return Err(
                    FkError::new(ErrorCode::Conflict, format!("{shown} already exists"))
                        .with_hint("read it and edit it instead")
                        .with_details(serde_json::json!({
                            "fact": crate::Fact::AlreadyExists,
                            "path": shown,
                        })),
                );
            }
            (None, WriteMode::Replace | WriteMode::InPlace) => return Err(self.not_found(p)),
            (Some(m), _) => Some(m.permissions()),
            (None, _) => None,
        };

        // Created with the old file's permissions, which the umask can only narrow: the new
        // bytes are never readable by more users than the old ones were, and a changed mode
        // is set only when the umask did narrow it (one system call less per file).
        let create_mode = perms.as_ref().map_or(0o666, |p| p.mode() & 0o7777);
        let replacing = perms.is_some();
        let (temp, mut file) = match temp_name {
            Some(name) => {
                create_temp_named(&parent, name, create_mode).map(|f| (name.to_os_string(), f))
            }
            None => create_temp(&parent, create_mode),
        }
        .map_err(|e| {
            // The file may well be writable: only the new file beside it was refused, which
            // "check the file's permissions" would send the reader to the wrong place for.
            if replacing && e.kind() == io::ErrorKind::PermissionDenied {
                FkError::new(
                    ErrorCode::PermissionDenied,
                    format!("{shown}: its folder does not let this process create files (permission denied), and an atomic write makes the new content beside the file first; the file was left as it was"),
                )
                .with_hint("write the file in place, which needs only the file's own write permission, or make its folder writable")
                .with_details(serde_json::json!({
                    "fact": crate::Fact::FolderNotWritable,
                    "path": shown,
                }))
            } else {
                FkError::from_io(&e, &shown)
            }
        })?;
        let written = (|| -> io::Result<Metadata> {
            bytes.write_to(&mut file)?;
            // What the file will be at its name: a rename or a hard link keeps the inode,
            // its size and its modification time.
            let mut written = file.metadata()?;
            if let Some(perms) = perms
                && written.permissions().mode() & 0o7777 != perms.mode() & 0o7777
            {
                file.set_permissions(perms)?;
                written = file.metadata()?;
            }
            if sync {
                file.sync_all()?;
            }
            Ok(written)
        })();
        match written {
            Ok(written) => Ok(PendingWrite {
                parent,
                temp,
                target: name,
                mode,
                shown,
                committed: false,
                synced: sync,
                written: FileMeta::from_cap(&written),
            }),
            Err(e) => {
                let _ = parent.remove_file(&temp);
                Err(FkError::from_io(&e, &shown))
            }
        }
    }

    /// Overwrites the existing regular file `p` with `bytes` in place (see
    /// [`WriteMode::InPlace`]). Returns its new metadata and the open file, for the caller
    /// to flush (outside any lock it holds); or, for a file with other names, writes nothing
    /// ([`InPlace::Shared`]).
    pub(crate) fn overwrite_in_place(&self, p: &WsPath, bytes: &[u8]) -> Result<InPlace, FkError> {
        let shown = self.display(p);
        self.check_writable(p)?;
        let Some(name) = p.rel.file_name() else {
            return Err(self.is_dir_error(p));
        };
        let root = &self.roots[p.root];
        let parent =
            self.open_parent(p, &root.dir, p.rel.parent().unwrap_or(Path::new("")), false)?;
        match parent.symlink_metadata(name) {
            Ok(m) if m.is_file() => {}
            Ok(m) if m.is_dir() => return Err(self.is_dir_error(p)),
            Ok(_) => {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!("{shown} is no longer a regular file (a link or special file took its place); it was not written"),
                )
                .with_hint("check what replaced the file, then run the request again"));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(self.not_found(p)),
            Err(e) => return Err(FkError::from_io(&e, &shown)),
        }
        let mut options = OpenOptions::new();
        options.write(true);
        let mut file = parent
            .open_with(name, &options)
            .map_err(|e| FkError::from_io(&e, &shown))?;
        // Decided on the descriptor about to be written, not on the name.
        let opened = file.metadata().map_err(|e| FkError::from_io(&e, &shown))?;
        if has_other_names(&opened) {
            return Ok(InPlace::Shared);
        }
        file.write_all(bytes)
            .and_then(|()| file.set_len(bytes.len() as u64))
            .map_err(|e| FkError::from_io(&e, &shown))?;
        let m = file.metadata().map_err(|e| FkError::from_io(&e, &shown))?;
        Ok(InPlace::Written(FileMeta::from_cap(&m), file.into_std()))
    }

    /// Refuses a write to `p` when the workspace is read-only, or `p` is inside filekit's own
    /// data directory, or (unless allowed) inside a `.git/` directory. Every operation that
    /// changes a file goes through this check.
    pub fn check_writable(&self, p: &WsPath) -> Result<(), FkError> {
        // Named only for an error: this runs for every file written.
        let shown = || self.display(p);
        if self.read_only {
            return Err(FkError::new(
                ErrorCode::ReadOnly,
                format!("the workspace is read-only; {} was not written", shown()),
            )
            .with_hint("writes are turned off in this session; start filekit without read-only mode to allow them"));
        }
        if is_reserved(&p.rel) {
            return Err(FkError::new(
                ErrorCode::OutOfRoot,
                format!("{} is inside {RESERVED_DIR}/, which holds filekit's own data (edit history); tools may not write there", shown()),
            )
            .with_hint(format!("write somewhere else in the workspace, outside {RESERVED_DIR}/")));
        }
        if !self.git_writes && is_git_internal(&p.rel) {
            return Err(FkError::new(
                ErrorCode::OutOfRoot,
                format!("{} is inside {GIT_DIR}/, git's own data (objects, refs, hooks, config); filekit does not write there", shown()),
            )
            .with_hint(format!("edit the project's files instead and let git record them; to write inside {GIT_DIR}/ on purpose, start filekit with --allow-git-writes")));
        }
        self.check_unprotected(p)
    }

    /// Refuses a write to `p` when it is filekit's state, or (unless allowed) a protected
    /// file, by its own name or by a name it was reached through.
    fn check_unprotected(&self, p: &WsPath) -> Result<(), FkError> {
        let shown = || self.display(p);
        if self.guards.none_in(p.root) && (self.protected_writes || p.via.is_none()) {
            // Most roots hold no guarded place: only the names in every folder remain.
            return match (self.protected_writes, protect::by_name(&p.rel)) {
                (false, Some(what)) => Err(protected_error(&shown(), what)),
                _ => Ok(()),
            };
        }
        for rel in std::iter::once(&p.rel).chain(&p.via) {
            let probe = Probe::new(rel);
            if let Some(g) = self
                .guards
                .covering(p.root, &probe, |g| g.reason == Reason::State)
            {
                return Err(self.state_error(&shown(), g));
            }
            if self.protected_writes {
                continue;
            }
            if let Some(what) = protect::by_name(rel) {
                return Err(protected_error(&shown(), what));
            }
            if let Some(g) = self.guards.covering(p.root, &probe, |_| true) {
                return Err(protected_error(&shown(), reason_words(g.reason)));
            }
        }
        Ok(())
    }

    /// Refuses reading `p` when it is a credential under the home folder (unless allowed),
    /// by its own name or by a name it was reached through. (filekit's state is refused
    /// when a path is resolved.)
    pub fn check_readable(&self, p: &WsPath) -> Result<(), FkError> {
        if self.guards.none_in(p.root) {
            return Ok(());
        }
        for rel in std::iter::once(&p.rel).chain(&p.via) {
            if let Some(g) = self
                .guards
                .unreadable(p.root, &Probe::new(rel), self.secret_reads)
            {
                return Err(self.unreadable_error(&self.display(p), g));
            }
        }
        Ok(())
    }

    /// [`Workspace::check_readable`] for a path a walk found (relative to root `root`).
    fn readable_found(&self, root: usize, rel: &Path) -> io::Result<()> {
        if self.guards.none_in(root) {
            return Ok(());
        }
        match self
            .guards
            .unreadable(root, &Probe::new(rel), self.secret_reads)
        {
            None => Ok(()),
            Some(g) => {
                let e = self
                    .unreadable_error(&self.roots[root].path.join(rel).display().to_string(), g);
                Err(io::Error::new(io::ErrorKind::PermissionDenied, e.message))
            }
        }
    }

    /// Refuses a change of the whole tree at `from` that would reach a protected place: a
    /// folder holding one (filekit's state, a guarded place of the home folder) moved or
    /// removed, a protected name anywhere inside the tree where it is removed or where it
    /// lands, or a link that would land at a folder name the protected files live in. A
    /// `from` that is not a folder or a link needs nothing more than
    /// [`Workspace::check_writable`].
    pub fn check_subtree(&self, from: &WsPath, change: TreeChange<'_>) -> Result<(), FkError> {
        let dir = &self.roots[from.root].dir;
        let Ok(meta) = dir.symlink_metadata(from.rel_or_dot()) else {
            return Ok(());
        };
        let (removed, to) = match change {
            TreeChange::Remove => (true, None),
            TreeChange::Move(to) => (true, Some(to)),
            TreeChange::Copy(to) => (false, Some(to)),
        };
        if meta.file_type().is_symlink() {
            return to.map_or(Ok(()), |to| self.check_link_at(to));
        }
        if !meta.is_dir() {
            return Ok(());
        }
        let reaches = |g: &Guard| g.reason == Reason::State || !self.protected_writes;
        let gone = removed.then_some(from);
        for p in gone.into_iter().chain(to) {
            if let Some(g) = self.guards.within(p.root, &Probe::new(&p.rel), reaches) {
                let place = self.roots[p.root].path.join(&g.shown).display().to_string();
                let mut e = match g.reason {
                    Reason::State => self.state_error(&place, g),
                    other => protected_error(&place, reason_words(other)),
                };
                e.message = format!("{} holds {place}: {}", self.display(p), e.message);
                return Err(e);
            }
        }
        if self.protected_writes {
            return Ok(());
        }
        let mut stack = vec![from.rel.clone()];
        while let Some(d) = stack.pop() {
            let probe = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d.as_path()
            };
            let Ok(entries) = dir.read_dir(probe) else {
                continue;
            };
            for entry in entries.flatten() {
                let rel = d.join(entry.file_name());
                let below = rel.strip_prefix(&from.rel).unwrap_or(&rel);
                let kind = entry.file_type().ok();
                let here = removed.then(|| (from.root, rel.clone()));
                let there = to.map(|t| (t.root, t.rel.join(below)));
                for (root, at) in here.into_iter().chain(there) {
                    let shown = self.roots[root].path.join(&at).display().to_string();
                    if let Some(what) = protect::by_name(&at) {
                        return Err(protected_error(&shown, what));
                    }
                    if kind.is_some_and(|k| k.is_symlink())
                        && protect::is_protected_folder_name(&at)
                    {
                        return Err(protected_link_error(&shown));
                    }
                }
                if kind.is_some_and(|k| k.is_dir()) {
                    stack.push(rel);
                }
            }
        }
        Ok(())
    }

    /// Refuses a symbolic link made (or moved) at `p` when it would lead protected names
    /// elsewhere: at a folder name the protected files live in (`.claude`, `.vscode`,
    /// `.cursor`) or at a folder that holds a protected place.
    pub fn check_link_at(&self, p: &WsPath) -> Result<(), FkError> {
        let shown = self.display(p);
        if let Some(g) = self.guards.within(p.root, &Probe::new(&p.rel), |g| {
            g.reason == Reason::State || !self.protected_writes
        }) {
            return Err(match g.reason {
                Reason::State => self.state_error(&shown, g),
                _ => protected_link_error(&shown),
            });
        }
        if !self.protected_writes && protect::is_protected_folder_name(&p.rel) {
            return Err(protected_link_error(&shown));
        }
        Ok(())
    }

    /// True when `rel` (of root `i`) is protected, by name or by place: a resolution that
    /// passes through it remembers it.
    fn is_protected_name(&self, i: usize, rel: &Path) -> bool {
        protect::by_name(rel).is_some()
            || (!self.guards.none_in(i)
                && self
                    .guards
                    .covering(i, &Probe::new(rel), |_| true)
                    .is_some())
    }

    /// `p`, unless it (or a name it was reached through) is filekit's state, which no tool
    /// may see.
    fn outside_state(&self, p: WsPath) -> Result<WsPath, FkError> {
        if self.guards.none_in(p.root) {
            return Ok(p);
        }
        for rel in std::iter::once(&p.rel).chain(&p.via) {
            if let Some(g) = self
                .guards
                .covering(p.root, &Probe::new(rel), |g| g.reason == Reason::State)
            {
                return Err(self.state_error(&self.display(&p), g));
            }
        }
        Ok(p)
    }

    fn state_error(&self, shown: &str, g: &Guard) -> FkError {
        FkError::new(
            ErrorCode::OutOfRoot,
            format!("{shown} is filekit's own state (edit history, versions, leases, journals, access tokens), which no tool may read, list or change"),
        )
        .with_hint(format!(
            "work on the project's files; filekit keeps its state in {} of this root and leaves it out of every tool's view (start filekit with --state-dir DIR outside the roots to keep it elsewhere)",
            g.shown.display()
        ))
        .with_details(serde_json::json!({"protected": "filekit_state"}))
    }

    fn unreadable_error(&self, shown: &str, g: &Guard) -> FkError {
        if g.reason == Reason::State {
            return self.state_error(shown, g);
        }
        FkError::new(
            ErrorCode::OutOfRoot,
            format!("{shown} is {}: filekit does not let tools read credentials", reason_words(g.reason)),
        )
        .with_hint("read the project's files instead; to let tools read credentials on purpose, start filekit with --allow-secret-reads")
        .with_details(serde_json::json!({"protected": "credential"}))
    }

    /// Whether the write policy lets a change reach `rel` (a path relative to a root, with
    /// normal components only): what [`Workspace::check_writable`] decides, for paths that do
    /// not come from [`Workspace::resolve`] (a journal's record, checked before it is replayed).
    pub(crate) fn may_write_relative(&self, rel: &Path) -> bool {
        !self.read_only
            && !is_reserved(rel)
            && (self.git_writes || !is_git_internal(rel))
            && !rel.as_os_str().is_empty()
            && rel.components().all(|c| matches!(c, Component::Normal(_)))
    }

    fn open_parent(
        &self,
        p: &WsPath,
        root: &Dir,
        parent_rel: &Path,
        create_parents: bool,
    ) -> Result<Dir, FkError> {
        let shown_parent = || {
            self.roots[p.root]
                .path
                .join(parent_rel)
                .display()
                .to_string()
        };
        if parent_rel.as_os_str().is_empty() {
            return root
                .try_clone()
                .map_err(|e| FkError::from_io(&e, &shown_parent()));
        }
        match root.open_dir(parent_rel) {
            Ok(d) => return Ok(d),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create_parents => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(FkError::new(
                    ErrorCode::NotFound,
                    format!(
                        "cannot create {}: its directory {} does not exist",
                        self.display(p),
                        shown_parent()
                    ),
                )
                .with_hint(
                    "create the directory first, or ask for parent directories to be created",
                ));
            }
            Err(e) => return Err(parent_error(&e, &shown_parent())),
        }
        root.create_dir_all(parent_rel)
            .and_then(|()| root.open_dir(parent_rel))
            .map_err(|e| parent_error(&e, &shown_parent()))
    }

    /// The display form of a path: its absolute path.
    pub fn display(&self, p: &WsPath) -> String {
        p.abs.display().to_string()
    }

    fn is_dir_error(&self, p: &WsPath) -> FkError {
        FkError::new(
            ErrorCode::IsDirectory,
            format!("{} is a directory, not a file", self.display(p)),
        )
        .with_hint("list the directory to see its files, then give the path of a file inside it")
    }

    fn io_error(&self, p: &WsPath, e: &io::Error) -> FkError {
        match e.kind() {
            io::ErrorKind::NotFound => self.not_found(p),
            io::ErrorKind::NotADirectory => FkError::new(
                ErrorCode::NotFound,
                format!(
                    "{} does not exist: a part of its path is a file, not a directory",
                    self.display(p)
                ),
            )
            .with_hint("check the path; list its directories to see what is there"),
            io::ErrorKind::IsADirectory => self.is_dir_error(p),
            _ => FkError::from_io(e, &self.display(p)),
        }
    }

    /// NOT_FOUND for `p`, with a hint naming similar paths that exist.
    fn not_found(&self, p: &WsPath) -> FkError {
        let root = &self.roots[p.root];
        let parts = path_parts(&p.rel);
        let err = FkError::new(
            ErrorCode::NotFound,
            format!("{} does not exist", self.display(p)),
        );
        // The deepest directory of the path that exists, and the first part missing below it.
        let mut k = parts.len();
        let existing_dir = loop {
            if k == 0 {
                break PathBuf::new();
            }
            k -= 1;
            let prefix: PathBuf = parts[..k].iter().collect();
            let probe = if prefix.as_os_str().is_empty() {
                Path::new(".")
            } else {
                &prefix
            };
            if root.dir.metadata(probe).is_ok_and(|m| m.is_dir()) {
                break prefix;
            }
        };
        let dir_shown = if existing_dir.as_os_str().is_empty() {
            root.path.clone()
        } else {
            root.path.join(&existing_dir)
        };
        let Some(missing) = parts.get(k) else {
            return err;
        };
        let rest: PathBuf = parts[k + 1..].iter().collect();
        let suggestions = similar_entries(&root.dir, &existing_dir, missing)
            .into_iter()
            .filter_map(|name| {
                let mut candidate = existing_dir.join(name);
                // Joining an empty path would add a trailing separator.
                if !rest.as_os_str().is_empty() {
                    candidate.push(&rest);
                }
                (rest.as_os_str().is_empty() || root.dir.metadata(&candidate).is_ok())
                    .then(|| root.path.join(candidate).display().to_string())
            })
            .take(MAX_SUGGESTIONS)
            .collect::<Vec<_>>();
        if suggestions.is_empty() {
            err.with_hint(format!(
                "nothing with a similar name is in {}; list that directory to see what is there",
                dir_shown.display()
            ))
        } else {
            err.with_hint(format!("did you mean: {}", suggestions.join(", ")))
        }
    }
}

/// Flags added to every open for reading: a FIFO opened without `O_NONBLOCK` waits for a
/// writer (forever, in a walk), and a terminal opened without `O_NOCTTY` could become the
/// process's controlling terminal.
const READ_FLAGS: rustix::fs::OFlags =
    rustix::fs::OFlags::NONBLOCK.union(rustix::fs::OFlags::NOCTTY);

/// A FIFO, a socket or a device found where a regular file was to be read; the error an
/// open for reading gives for one (inside an [`io::Error`]), whatever the path looked like
/// before it was opened.
#[derive(Debug)]
pub struct NotRegular(pub &'static str);

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a regular file ({})", self.0)
    }
}

impl std::error::Error for NotRegular {}

/// Opens `rel` beneath `dir` for reading (see [`READ_FLAGS`]) and checks what was opened
/// ([`regular`]).
fn open_for_reading(dir: &Dir, rel: &Path) -> io::Result<(std::fs::File, Metadata)> {
    let mut options = OpenOptions::new();
    options.read(true).custom_flags(READ_FLAGS.bits() as i32);
    let file = match dir.open_with(rel, &options) {
        Ok(file) => file.into_std(),
        // A socket (or a device with no driver) cannot be opened at all: said as what it is.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
            use cap_std::fs::FileTypeExt;
            return match dir.symlink_metadata(rel).map(|m| m.file_type()) {
                Ok(t) if t.is_socket() => Err(not_regular("a socket")),
                Ok(t) if t.is_char_device() => Err(not_regular("a character device")),
                Ok(t) if t.is_block_device() => Err(not_regular("a block device")),
                _ => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    regular(file.into())
}

fn not_regular(what: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, NotRegular(what))
}

/// What an open for reading gave, found by `fstat` of the descriptor itself: a regular file,
/// with `O_NONBLOCK` cleared again so that its reads wait as usual, or a directory (the
/// caller refuses it in its own words); anything else is closed and is a [`NotRegular`]
/// error, before a byte is read.
fn regular(fd: rustix::fd::OwnedFd) -> io::Result<(std::fs::File, Metadata)> {
    use rustix::fs::{FileType, OFlags};
    let stat = rustix::fs::fstat(&fd)?;
    let what = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => {
            let flags = rustix::fs::fcntl_getfl(&fd)?;
            rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
            None
        }
        FileType::Directory => None,
        FileType::Fifo => Some("a FIFO"),
        FileType::Socket => Some("a socket"),
        FileType::CharacterDevice => Some("a character device"),
        FileType::BlockDevice => Some("a block device"),
        _ => Some("not a file or a directory"),
    };
    if let Some(what) = what {
        return Err(not_regular(what));
    }
    let file = std::fs::File::from(fd);
    let meta = Metadata::from_file(&file)?;
    Ok((file, meta))
}

fn parent_error(e: &io::Error, shown_parent: &str) -> FkError {
    match e.kind() {
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => FkError::new(
            ErrorCode::Conflict,
            format!("cannot create directory {shown_parent}: a file of that name (or of one of its parents) is in the way"),
        )
        .with_hint("choose another path, or move the file out of the way first"),
        _ => FkError::from_io(e, shown_parent),
    }
}

/// Names in `dir` that look like `missing`, best first.
fn similar_entries(root: &Dir, dir: &Path, missing: &OsStr) -> Vec<OsString> {
    let probe = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = root.read_dir(probe) else {
        return Vec::new();
    };
    let wanted = missing.to_string_lossy().to_lowercase();
    let wanted_stem = stem(&wanted);
    let mut scored: Vec<(f64, OsString)> = entries
        .take(MAX_SUGGESTION_SCAN)
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let lower = name.to_string_lossy().to_lowercase();
            let mut score = strsim::normalized_damerau_levenshtein(&wanted, &lower);
            // A wrong or missing extension (`main` for `main.rs`, `app.js` for `app.ts`).
            if !wanted_stem.is_empty() && stem(&lower) == wanted_stem {
                score = score.max(0.9);
            }
            (score >= 0.6).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, n)| n).collect()
}

fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    }
}

fn is_reserved(rel: &Path) -> bool {
    // Case-insensitive filesystems would let `.FILEKIT` reach the same directory.
    matches!(rel.components().next(), Some(Component::Normal(c)) if c.eq_ignore_ascii_case(RESERVED_DIR))
}

fn reason_words(r: Reason) -> &'static str {
    match r {
        Reason::State => "filekit's own state",
        Reason::RunsLater(what) | Reason::Secret(what) => what,
    }
}

fn protected_error(shown: &str, what: &str) -> FkError {
    FkError::new(
        ErrorCode::OutOfRoot,
        format!("{shown} is {what}: its content makes programs run later, so filekit does not let tools write, create, move or delete it"),
    )
    .with_hint("make this change yourself if you want it; to let tools write the protected files (SECURITY.md lists them), start filekit with --allow-protected-writes")
    .with_details(serde_json::json!({"protected": what}))
}

fn protected_link_error(shown: &str) -> FkError {
    FkError::new(
        ErrorCode::OutOfRoot,
        format!("{shown} would be a symbolic link where protected files live (a client's or the shell's configuration): the link would make programs read files of its choosing, so filekit does not make or move it there"),
    )
    .with_hint("make a real folder there, or start filekit with --allow-protected-writes to allow it")
    .with_details(serde_json::json!({"protected": "link"}))
}

/// True when a component of `rel` is `.git` (any case: case-insensitive filesystems).
fn is_git_internal(rel: &Path) -> bool {
    rel.components()
        .any(|c| matches!(c, Component::Normal(n) if n.eq_ignore_ascii_case(GIT_DIR)))
}

/// Refuses a path longer than the system takes, or with a name longer than it takes, before
/// any system call sees it.
fn check_length(path: &str) -> Result<(), FkError> {
    let head = |s: &str| -> String { s.chars().take(60).collect() };
    if path.len() > MAX_PATH_BYTES {
        return Err(FkError::invalid(format!(
            "the path is too long: {} bytes (it starts with '{}...'); the system takes at most {MAX_PATH_BYTES} bytes in a path",
            path.len(),
            head(path)
        ))
        .with_hint("give a shorter path: relative to the root, without repeated `..` or `./`"));
    }
    if let Some(name) = path.split('/').find(|n| n.len() > MAX_NAME_BYTES) {
        return Err(FkError::invalid(format!(
            "a name in the path is too long: '{}...' has {} bytes; the system takes at most {MAX_NAME_BYTES} bytes in one file or directory name",
            head(name),
            name.len()
        ))
        .with_hint("give a shorter name"));
    }
    Ok(())
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates a fresh temporary file in `dir`. `create_new` never follows a link at the name.
fn create_temp(dir: &Dir, mode: u32) -> io::Result<(OsString, cap_std::fs::File)> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(mode);
    let mut last_err = None;
    for _ in 0..64 {
        let name = OsString::from(format!(
            ".filekit.{}.{}.tmp",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match dir.open_with(&name, &options) {
            Ok(f) => return Ok((name, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("could not create a temporary file")))
}

fn create_temp_named(dir: &Dir, name: &OsStr, mode: u32) -> io::Result<cap_std::fs::File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(mode);
    dir.open_with(name, &options)
}

/// A write staged by the commit step: a synced temporary file waiting to be renamed over its
/// target. Dropped without [`commit`](PendingWrite::commit), it leaves no trace.
#[derive(Debug)]
pub(crate) struct PendingWrite {
    parent: Dir,
    temp: OsString,
    target: OsString,
    mode: WriteMode,
    shown: String,
    committed: bool,
    /// Staged with its own fsync (and its rename is then synced too); otherwise the caller
    /// syncs the filesystem.
    synced: bool,
    /// The staged file's metadata once written: its metadata at its name once committed.
    written: FileMeta,
}

/// The directories that hold the staged writes of a run, flushed once each after their
/// renames (the files themselves were flushed when staged), so that the renames are durable
/// too. A run of thousands of files in a few directories costs a few directory flushes, and
/// never waits for other programs' unwritten data as a whole-filesystem sync would. The
/// commit step flushes them when it holds as many as its window of writes, so that a run of
/// any size holds a bounded number of descriptors; a directory written again after that is
/// flushed again at the end.
pub(crate) struct DirectorySync {
    enabled: bool,
    dirs: Vec<std::fs::File>,
    seen: std::collections::HashSet<(u64, u64)>,
}

impl DirectorySync {
    /// A set that flushes nothing unless `enabled`.
    pub(crate) fn new(enabled: bool) -> DirectorySync {
        DirectorySync {
            enabled,
            dirs: Vec::new(),
            seen: std::collections::HashSet::new(),
        }
    }

    /// Adds the directory of `write` (before its rename), unless it is in the set already.
    pub(crate) fn add(&mut self, write: &PendingWrite) {
        use cap_std::fs::MetadataExt;
        if !self.enabled {
            return;
        }
        let Ok(m) = write.parent.dir_metadata() else {
            return;
        };
        if !self.seen.insert((m.dev(), m.ino())) {
            return;
        }
        // cap-std's directory handles are path-only descriptors, which fsync refuses: open
        // the directory for reading through its handle. Out of descriptors, the set is
        // flushed (after the renames made so far) to free its own.
        let open = || {
            rustix::fs::openat(
                &write.parent,
                ".",
                rustix::fs::OFlags::RDONLY
                    | rustix::fs::OFlags::DIRECTORY
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
        };
        let fd = match open() {
            Err(rustix::io::Errno::MFILE | rustix::io::Errno::NFILE) => {
                self.flush_all();
                self.seen.insert((m.dev(), m.ino()));
                open()
            }
            other => other,
        };
        if let Ok(fd) = fd {
            self.dirs.push(std::fs::File::from(fd));
        }
    }

    /// How many directories wait for their flush.
    pub(crate) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Flushes every directory in the set, several at once (the time is the device's, not the
    /// CPU's), and empties it.
    pub(crate) fn sync_now(&mut self, pool: &rayon::ThreadPool) {
        use rayon::prelude::*;
        let dirs = std::mem::take(&mut self.dirs);
        self.seen.clear();
        pool.install(|| {
            dirs.par_iter().for_each(|d| {
                // A filesystem that cannot sync a directory leaves the files in place all
                // the same.
                let _ = d.sync_all();
            })
        });
    }

    /// [`DirectorySync::sync_now`] on this thread.
    fn flush_all(&mut self) {
        for d in std::mem::take(&mut self.dirs) {
            let _ = d.sync_all();
        }
        self.seen.clear();
    }
}

impl PendingWrite {
    /// Leaves the flush of the directory to the caller ([`DirectorySync`]), for a file
    /// staged with its own flush in a run of many.
    pub(crate) fn defer_directory_sync(&mut self) {
        self.synced = false;
    }

    /// Atomically puts the staged bytes at the target and returns its new metadata.
    pub(crate) fn commit(mut self) -> Result<FileMeta, FkError> {
        self.put_in_place()?;
        self.committed = true;
        // Makes the rename itself durable. Some filesystems refuse fsync on a directory; the
        // file is in place either way, so that is not a failure of the write.
        if self.synced
            && let Ok(d) = self.parent.try_clone()
        {
            let _ = d.into_std_file().sync_all();
        }
        Ok(self.written.clone())
    }

    fn put_in_place(&mut self) -> Result<(), FkError> {
        if self.mode == WriteMode::CreateNew {
            // A hard link never replaces an existing name, so a file created by someone else
            // since staging is not overwritten.
            match self
                .parent
                .hard_link(&self.temp, &self.parent, &self.target)
            {
                Ok(()) => {
                    let _ = self.parent.remove_file(&self.temp);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(self.exists_error());
                }
                // Filesystems without hard links: check, then rename.
                Err(_) => {
                    if self.parent.symlink_metadata(&self.target).is_ok() {
                        return Err(self.exists_error());
                    }
                }
            }
        }
        self.parent
            .rename(&self.temp, &self.parent, &self.target)
            .map_err(|e| FkError::from_io(&e, &self.shown))
    }

    fn exists_error(&self) -> FkError {
        FkError::new(
            ErrorCode::Conflict,
            format!(
                "{} was created by someone else while this write was prepared",
                self.shown
            ),
        )
        .with_hint("read the file, then run the request again")
    }
}

impl Drop for PendingWrite {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.parent.remove_file(&self.temp);
        }
    }
}

/// How a tree changes as a whole (see [`Workspace::check_subtree`]).
#[derive(Debug, Clone, Copy)]
pub enum TreeChange<'a> {
    /// Removed.
    Remove,
    /// Moved to the path given.
    Move(&'a WsPath),
    /// Copied to the path given (the tree itself stays).
    Copy(&'a WsPath),
}

/// What an overwrite in place did.
pub(crate) enum InPlace {
    /// Written: the file's new metadata, and the file, for the caller to flush.
    Written(FileMeta, std::fs::File),
    /// Nothing: the file has other names (hard links, perhaps outside the roots), which an
    /// overwrite of its inode would change too. Write it by replacing its name instead.
    Shared,
}

/// True for a regular file with more than one name.
pub(crate) fn has_other_names(m: &Metadata) -> bool {
    m.is_file() && cap_std::fs::MetadataExt::nlink(m) > 1
}

/// RFC 3339 UTC timestamp with seconds precision, e.g. `2025-05-11T10:15:30Z`.
pub fn rfc3339(t: SystemTime) -> String {
    // humantime panics before 1970 and fails after 9999; file times can be anything.
    const LAST: Duration = Duration::from_secs(253_402_300_799);
    let t = t.clamp(UNIX_EPOCH, UNIX_EPOCH + LAST);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `~` and `~/rest` with `$HOME`; anything else unchanged (`~user`, `$HOME` are names). The
/// one expansion of every path filekit takes: a tool call's, and a root or folder given to a
/// front end (an MCP client's configuration passes `~/src/app` to filekit unexpanded).
pub fn expand_home(path: &str) -> Result<PathBuf, FkError> {
    let rest = match path.strip_prefix('~') {
        Some("") => "",
        Some(r) if r.starts_with('/') => r.trim_start_matches('/'),
        _ => return Ok(PathBuf::from(path)),
    };
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(rest)),
        None => Err(
            FkError::invalid(format!("cannot expand ~ in {path}: HOME is not set"))
                .with_hint("give an absolute path, or a path relative to the first root"),
        ),
    }
}

/// Lexical normalization of an absolute path: drops `.`, applies `..` (never above `/`).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// The parts of a relative path, `.` dropped and `..` kept as `..`.
fn path_parts(p: &Path) -> Vec<OsString> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(all(test, unix))]
#[path = "workspace_stage_tests.rs"]
mod stage_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../..")), PathBuf::from("/"));
    }

    #[test]
    fn rfc3339_clamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_secs(5)),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_746_958_530)),
            "2025-05-11T10:15:30Z"
        );
    }

    #[test]
    fn reserved_dir_is_case_insensitive() {
        assert!(is_reserved(Path::new(".filekit/history.db")));
        assert!(is_reserved(Path::new(".FileKit")));
        assert!(!is_reserved(Path::new("src/.filekit")));
        assert!(!is_reserved(Path::new(".filekitrc")));
    }

    #[test]
    fn git_internals_are_found_at_any_depth() {
        assert!(is_git_internal(Path::new(".git/config")));
        assert!(is_git_internal(Path::new("vendor/lib/.git/HEAD")));
        assert!(is_git_internal(Path::new(".GIT/hooks/pre-commit")));
        assert!(is_git_internal(Path::new("sub/.git")));
        assert!(!is_git_internal(Path::new(".gitignore")));
        assert!(!is_git_internal(Path::new("src/git/x.rs")));
    }

    #[test]
    fn lengths_are_checked() {
        assert!(check_length(&"a/".repeat(2048)).is_err());
        assert!(check_length(&"a/".repeat(2000)).is_ok());
        assert!(check_length(&"n".repeat(256)).is_err());
        assert!(check_length(&"n".repeat(255)).is_ok());
    }
}
