//! Directory listings: the entries of a directory with type, size and modification time,
//! flat or recursive to a depth, filtered, as a sorted list or a tree.
//!
//! A listing of a directory with a million entries stays bounded: only the first `limit`
//! entries in path order are kept (a heap of that size while walking), and no more of them
//! than the workspace's reply bytes hold ([`crate::limits::ReplyBudget`]); the rest are
//! counted, and only the kept entries are `stat`ed.

use super::{
    Base, Skipped, WalkFilter, compile_glob, invalid_glob, rel_string, resolve_base, walk_builder,
};
use crate::Workspace;
use crate::error::{FkError, Limit, LimitFacts};
use crate::workspace::rfc3339;
use serde::Serialize;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::sync::Mutex;

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    /// The directory (default: the first root).
    pub path: Option<String>,
    /// How many levels to descend: 1 lists the directory's own entries, 2 their children too.
    pub depth: usize,
    /// Only entries whose name matches this wildcard (`*.rs`); directories are still entered.
    pub filter: Option<String>,
    /// Entries whose name or relative path matches one of these globs are left out, and not
    /// entered (`node_modules`, `*.log`, `target/**`). A glob that starts with `/` is anchored,
    /// as in `.gitignore`: it is matched against the relative path only (`/*.log` leaves out
    /// the listed directory's own logs, not those of its subdirectories).
    pub ignore: Vec<String>,
    pub walk: WalkFilter,
    /// Keep at most this many entries (the first in path order); `None`: all.
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a listing.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// Path relative to the listed directory, `/`-separated.
    pub name: String,
    /// Path relative to its workspace root (usable as a path argument of any tool).
    pub path: String,
    pub kind: EntryKind,
    /// Size in bytes (of the link itself for symlinks).
    pub size: u64,
    /// Last modification, RFC 3339 UTC.
    pub modified: String,
    /// Unix permission bits (`0o755`), for `ls -l` style output.
    pub mode: u32,
    /// 1 for the directory's own entries, 2 for their children, ...
    pub depth: usize,
    /// Where a symbolic link points (as written in the link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_target: Option<String>,
}

/// The result of a listing.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    /// The listed directory, absolute.
    pub path: String,
    pub entries: Vec<Entry>,
    /// Entries found in all (`entries.len()` unless truncated).
    pub total: usize,
    /// True when entries were left out because of the limit or the reply's bytes.
    pub truncated: bool,
    /// Set when the reply's bytes, not the limit, cut the entries: the facts (`result_size`,
    /// the bytes the entries found would take, the bytes one reply carries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_limit: Option<LimitFacts>,
    /// Directories or entries that could not be read.
    pub skipped: Skipped,
}

impl Listing {
    /// How many entries the limit left out.
    pub fn omitted(&self) -> usize {
        self.total - self.entries.len()
    }
}

/// What an entry takes of a reply: its name and path, and its fields (kind, size, time, mode)
/// in whatever shape the reply has.
fn entry_cost(key: &str) -> u64 {
    2 * key.len() as u64 + 64
}

/// An entry found by the walk, before it is `stat`ed. Ordered by `key` (the relative path
/// with separators as `\0`, so a directory's children sort right after it).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    key: String,
    abs: PathBuf,
    depth: usize,
}

/// Lists a directory.
pub fn list(ws: &Workspace, opts: &ListOptions) -> Result<Listing, FkError> {
    let base = resolve_base(ws, opts.path.as_deref())?;
    if !base.is_dir {
        return Err(FkError::new(
            crate::error::ErrorCode::InvalidArgument,
            format!("{} is a file, not a directory", base.abs.display()),
        )
        .with_hint("give a directory to list; read a file with a read tool"));
    }
    let filter = opts
        .filter
        .as_deref()
        .filter(|f| !f.is_empty() && *f != "*")
        .map(|f| compile_glob("filter", f, false))
        .transpose()?;
    let ignore = ignore_set(&opts.ignore)?;
    let depth = opts.depth.max(1);
    let limit = opts.limit.unwrap_or(usize::MAX);

    let mut builder = walk_builder(&base, opts.walk);
    builder.max_depth(Some(depth));
    if let Some(set) = ignore.clone() {
        let base_abs = base.abs.clone();
        let hidden = base.hidden.clone();
        builder.filter_entry(move |e| {
            if hidden.iter().any(|h| h == e.path()) {
                return false;
            }
            let rel = super::below(e.path(), &base_abs).unwrap_or(e.path());
            e.depth() == 0 || !set.is_match(e.file_name(), rel)
        });
    }
    // `filter_entry` replaces the builder's filter: keep `.filekit/` and the state out here too.
    let hidden = base.hidden.clone();
    let skipped = Mutex::new(Skipped::default());
    let mut heap: BinaryHeap<Found> = BinaryHeap::new();
    let mut total = 0usize;
    // The heap keeps the longest run of entries, in path order, that the limit and the reply
    // bytes allow: once an entry is let go, no entry after it in path order is kept.
    let max_bytes = ws.max_reply_bytes();
    let (mut held, mut wanted) = (0u64, 0u64);
    let mut cutoff: Option<String> = None;
    let mut bytes_cut = false;
    for result in builder.build() {
        let entry = match result {
            Ok(e) => e,
            Err(err) => {
                super::note_walk_error(&skipped, &err);
                continue;
            }
        };
        if entry.depth() == 0 || hidden.iter().any(|h| entry.path().starts_with(h)) {
            continue;
        }
        if let Some(f) = &filter
            && !f.is_match(entry.file_name())
        {
            continue;
        }
        total += 1;
        let key = sort_key(&base, entry.path());
        let cost = entry_cost(&key);
        wanted += cost;
        if cutoff.as_ref().is_some_and(|c| key >= *c) {
            continue;
        }
        held += cost;
        heap.push(Found {
            key,
            abs: entry.into_path(),
            depth: 0,
        });
        while heap.len() > 1 && (heap.len() > limit || held > max_bytes) {
            bytes_cut |= heap.len() <= limit;
            let Some(last) = heap.pop() else { break };
            held -= entry_cost(&last.key);
            if cutoff.as_ref().is_none_or(|c| last.key < *c) {
                cutoff = Some(last.key);
            }
        }
    }
    let mut kept = heap.into_sorted_vec();
    let kept_len = kept.len();
    let mut skipped = skipped.into_inner().unwrap_or_default();
    let mut entries = Vec::with_capacity(kept.len());
    for found in kept.iter_mut() {
        found.depth = found.key.matches('\0').count() + 1;
        match describe(&base, found) {
            Ok(e) => entries.push(e),
            Err(msg) => skipped.add(msg),
        }
    }
    Ok(Listing {
        path: base.abs.display().to_string(),
        truncated: total > kept_len,
        reply_limit: bytes_cut.then(|| LimitFacts::new(Limit::ResultSize, wanted, max_bytes)),
        total,
        entries,
        skipped,
    })
}

/// The ignore globs of a listing: those matched against an entry's name or its relative
/// path, and the anchored ones (written with a leading `/`), against its relative path only.
#[derive(Clone)]
struct IgnoreSet {
    name_or_path: globset::GlobSet,
    path_only: globset::GlobSet,
}

impl IgnoreSet {
    fn is_match(&self, name: &std::ffi::OsStr, rel: &std::path::Path) -> bool {
        self.name_or_path.is_match(name)
            || self.name_or_path.is_match(rel)
            || self.path_only.is_match(rel)
    }
}

fn ignore_set(globs: &[String]) -> Result<Option<IgnoreSet>, FkError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut name_or_path = globset::GlobSetBuilder::new();
    let mut path_only = globset::GlobSetBuilder::new();
    for g in globs {
        super::check_glob_nesting("ignore glob", g)?;
        let (set, pattern) = match g.strip_prefix('/') {
            Some(anchored) => (&mut path_only, anchored),
            None => (&mut name_or_path, g.as_str()),
        };
        let glob = globset::GlobBuilder::new(pattern.trim_end_matches('/'))
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| invalid_glob("ignore glob", g, &e))?;
        set.add(glob);
    }
    let build = |set: globset::GlobSetBuilder| {
        set.build()
            .map_err(|e| invalid_glob("ignore glob", &globs.join(", "), &e))
    };
    Ok(Some(IgnoreSet {
        name_or_path: build(name_or_path)?,
        path_only: build(path_only)?,
    }))
}

fn sort_key(base: &Base, path: &std::path::Path) -> String {
    rel_string(&base.abs, path).replace('/', "\0")
}

fn describe(base: &Base, found: &Found) -> Result<Entry, String> {
    let meta = std::fs::symlink_metadata(&found.abs)
        .map_err(|e| format!("{}: {e}", found.abs.display()))?;
    let ft = meta.file_type();
    let kind = if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else if ft.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    };
    let link_target = ft
        .is_symlink()
        .then(|| std::fs::read_link(&found.abs).ok())
        .flatten()
        .map(|t| t.display().to_string());
    Ok(Entry {
        name: found.key.replace('\0', "/"),
        path: rel_string(&base.root, &found.abs),
        kind,
        size: meta.len(),
        modified: rfc3339(meta.modified().unwrap_or(std::time::UNIX_EPOCH)),
        mode: mode_of(&meta),
        depth: found.depth,
        link_target,
    })
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// The listing as an indented tree, the familiar LS shape:
///
/// ```text
/// - /abs/dir/
///   - src/
///     - main.rs
///   - Cargo.toml
/// ```
///
/// Directories end with `/`, symlinks show their target.
pub fn render_tree(listing: &Listing) -> String {
    let mut out = format!("- {}/\n", listing.path.trim_end_matches('/'));
    for e in &listing.entries {
        let name = e.name.rsplit('/').next().unwrap_or(&e.name);
        out.push_str(&"  ".repeat(e.depth));
        out.push_str("- ");
        out.push_str(name);
        match e.kind {
            EntryKind::Dir => out.push('/'),
            EntryKind::Symlink => {
                out.push_str(" -> ");
                out.push_str(e.link_target.as_deref().unwrap_or("?"));
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

/// The listing `ls -l` style: type and permissions, size, modification time, relative path.
pub fn render_long(listing: &Listing) -> String {
    let mut out = String::new();
    for e in &listing.entries {
        let t = match e.kind {
            EntryKind::Dir => 'd',
            EntryKind::Symlink => 'l',
            EntryKind::File => '-',
            EntryKind::Other => '?',
        };
        let mut perms = String::with_capacity(9);
        for shift in [6u32, 3, 0] {
            let bits = (e.mode >> shift) & 7;
            perms.push(if bits & 4 != 0 { 'r' } else { '-' });
            perms.push(if bits & 2 != 0 { 'w' } else { '-' });
            perms.push(if bits & 1 != 0 { 'x' } else { '-' });
        }
        out.push_str(&format!(
            "{t}{perms} {:>10} {} {}",
            e.size, e.modified, e.name
        ));
        if e.kind == EntryKind::Dir {
            out.push('/');
        }
        if let Some(target) = &e.link_target {
            out.push_str(" -> ");
            out.push_str(target);
        }
        out.push('\n');
    }
    out
}
