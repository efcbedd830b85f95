//! Glob: the files under a directory whose path relative to it matches a pattern, newest
//! first (the familiar Glob tool's order), ties broken by path.
//!
//! `*` and `?` stay within one directory, `**` crosses any number, `{a,b}` and `[abc]` work.
//! The walk is parallel; only the `limit` newest matches are kept while walking, and no more
//! of them than the workspace's reply bytes hold.

use super::{Skipped, WalkFilter, compile_glob, rel_string, resolve_base, walk_builder};
use crate::Workspace;
use crate::error::FkError;
use crate::workspace::rfc3339;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Default)]
pub struct GlobOptions {
    /// The pattern, matched against paths relative to `path` (`**/*.rs`, `src/*.{ts,tsx}`).
    pub pattern: String,
    /// The directory to search (default: the first root).
    pub path: Option<String>,
    pub walk: WalkFilter,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Keep at most this many files (the newest); `None`: all.
    pub limit: Option<usize>,
}

/// One matching file.
#[derive(Debug, Clone, Serialize)]
pub struct GlobMatch {
    /// Path relative to its workspace root, `/`-separated.
    pub path: String,
    /// Absolute path.
    pub absolute: String,
    /// Last modification, RFC 3339 UTC.
    pub modified: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct GlobResult {
    /// The searched directory, absolute.
    pub base: String,
    pub pattern: String,
    /// The matches, newest first.
    pub files: Vec<GlobMatch>,
    /// Matches found in all.
    pub total: usize,
    /// True when older matches were left out because of the limit or the reply's bytes.
    pub truncated: bool,
    pub skipped: Skipped,
}

/// A match while walking; the heap keeps the `limit` newest, so its top is the oldest kept.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    /// Newest first, then by path: `Reverse(mtime)` makes "greater" mean "older".
    order: (Reverse<SystemTime>, String),
}

/// An absolute pattern (`/repo/src/**/*.rs`) is split into its literal directory, which
/// becomes the search path (and goes through the workspace like any path), and the rest.
fn split_absolute(pattern: &str, path: Option<&str>) -> (Option<String>, String) {
    if !pattern.starts_with('/') {
        return (path.map(str::to_string), pattern.to_string());
    }
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts
        .iter()
        .position(|p| p.contains(['*', '?', '[', '{']))
        .unwrap_or(parts.len() - 1);
    let dir = parts[..literal].join("/");
    let rest = parts[literal..].join("/");
    (
        Some(if dir.is_empty() { "/".to_string() } else { dir }),
        rest,
    )
}

/// The newest matches: at most `limit` of them, and no more than one reply's bytes hold
/// (the newest is always kept), so that its top is the oldest kept.
#[derive(Default)]
struct Newest {
    heap: BinaryHeap<Candidate>,
    bytes: u64,
}

/// What a match takes of a reply: its path twice (relative and absolute), its time and the
/// fields around them.
fn match_cost(c: &Candidate) -> u64 {
    2 * c.order.1.len() as u64 + 64
}

impl Newest {
    /// True when a match no newer than `modified` would not be kept.
    fn full_for(&self, modified: SystemTime, limit: usize, max_bytes: u64) -> bool {
        (self.heap.len() >= limit || self.bytes >= max_bytes)
            && self
                .heap
                .peek()
                .is_some_and(|top| Reverse(modified) > top.order.0)
    }

    fn push(&mut self, candidate: Candidate, limit: usize, max_bytes: u64) {
        self.bytes += match_cost(&candidate);
        self.heap.push(candidate);
        while self.heap.len() > 1 && (self.heap.len() > limit || self.bytes > max_bytes) {
            if let Some(oldest) = self.heap.pop() {
                self.bytes -= match_cost(&oldest);
            }
        }
    }
}

/// One walker thread's matches.
struct ThreadHeap<'a> {
    newest: Newest,
    total: usize,
    limit: usize,
    max_bytes: u64,
    shared: &'a Mutex<Newest>,
    shared_total: &'a std::sync::atomic::AtomicUsize,
}

impl Drop for ThreadHeap<'_> {
    fn drop(&mut self) {
        self.shared_total
            .fetch_add(self.total, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut shared) = self.shared.lock() {
            for c in std::mem::take(&mut self.newest.heap) {
                shared.push(c, self.limit, self.max_bytes);
            }
        }
    }
}

pub fn glob(ws: &Workspace, opts: &GlobOptions) -> Result<GlobResult, FkError> {
    let (path, pattern) = split_absolute(&opts.pattern, opts.path.as_deref());
    let pattern = pattern.trim_start_matches("./");
    if pattern.is_empty() {
        return Err(FkError::invalid("the glob pattern is empty")
            .with_hint("give a pattern such as **/*.rs or src/*.{ts,tsx}"));
    }
    let matcher = compile_glob("glob pattern", pattern, opts.case_insensitive)?;
    let base = resolve_base(ws, path.as_deref())?;
    if !base.is_dir {
        return Err(
            FkError::invalid(format!("{} is a file, not a directory", base.abs.display()))
                .with_hint(
                    "give the directory to search in as `path`, and the file pattern as `pattern`",
                ),
        );
    }
    let limit = opts.limit.unwrap_or(usize::MAX);
    let mut builder = walk_builder(&base, opts.walk);
    // A pattern without `**` cannot match deeper than its own number of components.
    if !pattern.contains("**") {
        builder.max_depth(Some(pattern.split('/').count()));
    }
    builder.threads(super::threads());

    let max_bytes = ws.max_reply_bytes();
    let heap: Mutex<Newest> = Mutex::new(Newest::default());
    let total = std::sync::atomic::AtomicUsize::new(0);
    let skipped = Mutex::new(Skipped::default());
    let base_abs = base.abs.as_path();
    builder.build_parallel().run(|| {
        // Each thread keeps its own heap and count and merges them once, when the walk
        // drops its visitor: no lock per match.
        let mut local = ThreadHeap {
            newest: Newest::default(),
            total: 0,
            limit,
            max_bytes,
            shared: &heap,
            shared_total: &total,
        };
        let matcher = &matcher;
        let skipped = &skipped;
        Box::new(move |result| {
            let entry = match result {
                Ok(e) => e,
                Err(err) => {
                    super::note_walk_error(skipped, &err);
                    return ignore::WalkState::Continue;
                }
            };
            if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let rel = super::below(entry.path(), base_abs).unwrap_or(entry.path());
            if !matcher.is_match(rel) {
                return ignore::WalkState::Continue;
            }
            local.total += 1;
            let modified = match entry.metadata() {
                Ok(m) => m.modified().unwrap_or(UNIX_EPOCH),
                Err(err) => {
                    super::note_walk_error(skipped, &err);
                    UNIX_EPOCH
                }
            };
            // Compare before building the path string: most matches of a large, limited
            // glob are older than every kept one.
            if local.newest.full_for(modified, limit, max_bytes) {
                return ignore::WalkState::Continue;
            }
            let candidate = Candidate {
                order: (
                    Reverse(modified),
                    entry.path().to_string_lossy().into_owned(),
                ),
            };
            local.newest.push(candidate, limit, max_bytes);
            ignore::WalkState::Continue
        })
    });
    let kept = heap
        .into_inner()
        .map(|n| n.heap.into_sorted_vec())
        .unwrap_or_default();
    let total = total.into_inner();
    let files: Vec<GlobMatch> = kept
        .into_iter()
        .map(|c| {
            let (Reverse(modified), abs) = c.order;
            GlobMatch {
                path: rel_string(&base.root, Path::new(&abs)),
                modified: rfc3339(modified),
                absolute: abs,
            }
        })
        .collect();
    Ok(GlobResult {
        base: base.abs.display().to_string(),
        pattern: opts.pattern.clone(),
        truncated: total > files.len(),
        total,
        files,
        skipped: skipped.into_inner().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::split_absolute;

    #[test]
    fn absolute_patterns_split_at_their_first_wildcard() {
        assert_eq!(
            split_absolute("/repo/src/**/*.rs", Some("ignored")),
            (Some("/repo/src".to_string()), "**/*.rs".to_string())
        );
        assert_eq!(
            split_absolute("/repo/Cargo.toml", None),
            (Some("/repo".to_string()), "Cargo.toml".to_string())
        );
        assert_eq!(
            split_absolute("/*.conf", None),
            (Some("/".to_string()), "*.conf".to_string())
        );
        assert_eq!(
            split_absolute("src/*.rs", Some("web")),
            (Some("web".to_string()), "src/*.rs".to_string())
        );
    }
}
