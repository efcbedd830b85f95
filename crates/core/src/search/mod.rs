//! Read-only search: directory listings, glob and grep, on ripgrep's own crates.
//!
//! - [`list`]: the entries of a directory (type, size, modification time), flat, recursive
//!   with a depth limit, or as a tree; filtered by wildcards and `ignore` globs.
//! - [`glob`]: files whose path (relative to the search base) matches a glob with `**` and
//!   braces, newest first.
//! - [`grep`]: a Rust regex over the files of a tree, with context, counts or file names.
//!
//! Every search starts from a path resolved by [`Workspace::resolve`], so it cannot begin
//! outside the roots, and walks without following symbolic links, so it cannot leave them
//! (and a symlink loop is just an entry). `.gitignore`, `.ignore` and hidden files are skipped
//! by default, with options to include them; filekit's own `.filekit/` directory is never
//! shown. Directories and files that cannot be read are skipped and counted, never fatal.
//!
//! Results are sorted (the parallel walker finds files in no fixed order) and bounded: each
//! search keeps at most its `limit` of results in memory (the first by sort order), counts
//! the rest, and says so in its `truncated`/`total` fields so the caller can ask for more.

pub mod glob;
pub mod grep;
pub mod list;

use crate::Workspace;
use crate::error::{ErrorCode, FkError, Limit};
use crate::workspace::{RESERVED_DIR, WsPath};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many unreadable-path messages a result keeps (the rest are only counted).
const MAX_SKIP_MESSAGES: usize = 5;

/// Which files a walk sees besides the visible, not-ignored ones.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkFilter {
    /// Include hidden files and directories (names starting with `.`).
    pub hidden: bool,
    /// Include files that `.gitignore`, `.ignore` or git's excludes leave out.
    pub ignored: bool,
}

/// Paths a walk could not read: counted, with the first few messages.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Skipped {
    /// How many directories or files could not be read.
    pub count: usize,
    /// The first few reasons (`path: error`).
    pub messages: Vec<String>,
}

impl Skipped {
    fn add(&mut self, message: String) {
        self.count += 1;
        if self.messages.len() < MAX_SKIP_MESSAGES {
            self.messages.push(message);
        }
    }
}

/// A resolved search base: where the walk starts and what its paths are shown relative to.
pub(crate) struct Base {
    /// The real absolute path the walk starts at.
    pub abs: PathBuf,
    /// The root that holds it (absolute); result paths are relative to it.
    pub root: PathBuf,
    /// Which of the workspace's roots that is.
    pub root_index: usize,
    /// True when the base is a directory (false: a single file).
    pub is_dir: bool,
    /// What no walk enters: the root's `.filekit/`, and filekit's state where it lies in
    /// the root (see [`crate::protect`]).
    pub hidden: std::sync::Arc<Vec<PathBuf>>,
}

/// Resolves `path` (default: the first root) through the workspace and checks that it
/// exists; a missing path gets the workspace's similar-path suggestions.
pub(crate) fn resolve_base(ws: &Workspace, path: Option<&str>) -> Result<Base, FkError> {
    let given = path.filter(|p| !p.is_empty());
    let resolved: WsPath = match given {
        Some(p) => ws.resolve(p)?,
        None => ws.resolve(&ws.roots()[0].display().to_string())?,
    };
    let meta = ws.metadata(&resolved)?;
    let Some(meta) = meta else {
        // Reading a missing path yields the NOT_FOUND error with suggestions.
        return Err(ws
            .read(&resolved)
            .err()
            .unwrap_or_else(|| FkError::new(ErrorCode::NotFound, "the path does not exist")));
    };
    if is_reserved(ws, &resolved) {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!(
                "{} is filekit's own data directory, which searches do not show",
                ws.display(&resolved)
            ),
        )
        .with_hint("search the project's files instead"));
    }
    Ok(Base {
        abs: resolved.absolute().to_path_buf(),
        root: ws.roots()[resolved.root_index()].clone(),
        root_index: resolved.root_index(),
        is_dir: meta.is_dir,
        hidden: std::sync::Arc::new(
            std::iter::once(ws.roots()[resolved.root_index()].join(RESERVED_DIR))
                .chain(ws.state_in_root(resolved.root_index()))
                .collect(),
        ),
    })
}

fn is_reserved(ws: &Workspace, p: &WsPath) -> bool {
    let _ = ws;
    p.relative().components().next().map(|c| c.as_os_str()) == Some(RESERVED_DIR.as_ref())
}

/// A walk over `base` with filekit's rules: no symlinks followed, ignore files honoured
/// unless `filter.ignored`, hidden entries skipped unless `filter.hidden`, `.filekit/` of
/// the root never entered.
pub(crate) fn walk_builder(base: &Base, filter: WalkFilter) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(&base.abs);
    b.follow_links(false)
        .hidden(!filter.hidden)
        .ignore(!filter.ignored)
        .git_ignore(!filter.ignored)
        .git_global(!filter.ignored)
        .git_exclude(!filter.ignored)
        .parents(!filter.ignored)
        // .gitignore counts even outside a git repository: agents work in plain folders too.
        .require_git(false);
    let hidden = base.hidden.clone();
    b.filter_entry(move |e| !hidden.iter().any(|h| h == e.path()));
    b
}

/// `path` below `root`, as [`Path::strip_prefix`] gives it, but by comparing bytes first: a
/// walk's paths are its root joined with names, and comparing component by component for
/// every entry of a tree of thousands is a measurable part of the walk.
pub(crate) fn below<'p>(path: &'p Path, root: &Path) -> Option<&'p Path> {
    use std::os::unix::ffi::OsStrExt;
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    // Only a plain rest: `strip_prefix` would also drop empty and `.` components. (A name
    // starting with a dot, as `.github`, takes the slow way too: rare enough.)
    let plain = |rest: &[u8]| {
        !rest.is_empty()
            && !rest.starts_with(b".")
            && !rest.starts_with(b"/")
            && !rest.ends_with(b"/")
            // No `//` and no `/.`: a separator followed by another or by a dot. (One pass
            // of `memchr`; a `memmem` search builds its searcher on every call.)
            && !memchr::memchr_iter(b'/', rest).any(|i| matches!(rest.get(i + 1), Some(b'/' | b'.')))
    };
    match p.strip_prefix(r) {
        Some([]) => Some(Path::new("")),
        // A root given with a final `/` (as the root itself resolves) is followed by the
        // name; any other by a `/` and the name.
        Some(after) if !r.is_empty() => {
            let rest = if r.ends_with(b"/") {
                Some(after)
            } else {
                after.strip_prefix(b"/")
            };
            match rest {
                Some(rest) if plain(rest) => Some(Path::new(std::ffi::OsStr::from_bytes(rest))),
                _ => path.strip_prefix(root).ok(),
            }
        }
        _ => path.strip_prefix(root).ok(),
    }
}

/// `path` relative to `root`, with `/` separators, for display and for other tools.
pub(crate) fn rel_string(root: &Path, path: &Path) -> String {
    let rel = below(path, root).unwrap_or(path);
    let mut s = String::new();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            s.push('/');
        }
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}

/// Records a walk error (unreadable directory, broken entry) in `skipped`.
/// What a walk's entry is when it is a special file (a FIFO, a socket, a device), which a
/// walk reports and passes over: opening one for reading could wait forever.
pub(crate) fn special_kind(ft: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        Some("a FIFO")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else {
        None
    }
}

pub(crate) fn note_walk_error(skipped: &Mutex<Skipped>, err: &ignore::Error) {
    if let Ok(mut s) = skipped.lock() {
        s.add(err.to_string());
    }
}

/// How many threads a parallel walk uses: ripgrep's choice (the available cores, at most 12).
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(12)
}

/// Refuses a glob that could only name something above the directory it is matched in (a
/// `..` component, also as an alternative of `{a,b}`) or that is an absolute path: a walk
/// matches paths *below* its directory, so such a pattern would silently find nothing, and
/// it is most likely an attempt to reach files outside the workspace.
pub fn check_walk_pattern(what: &str, pattern: &str) -> Result<(), FkError> {
    check_pattern(what, pattern, false)
}

/// [`check_walk_pattern`] for globs where a leading `/` anchors the pattern at the directory
/// searched (ripgrep's `--glob`), so it is not an absolute path.
pub(crate) fn check_anchored_pattern(what: &str, pattern: &str) -> Result<(), FkError> {
    check_pattern(what, pattern, true)
}

fn check_pattern(what: &str, pattern: &str, anchored: bool) -> Result<(), FkError> {
    check_glob_nesting(what, pattern)?;
    let pattern_body = pattern.strip_prefix('!').unwrap_or(pattern);
    if !anchored && pattern_body.starts_with('/') {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!("the {what} '{pattern}' is an absolute path; it is matched against paths relative to the directory searched"),
        )
        .with_hint("give that directory (inside the workspace) as the directory to search, and a pattern relative to it such as **/*.rs"));
    }
    if pattern_body
        .split(['/', '\\', '{', '}', ','])
        .any(|part| part == "..")
    {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!("the {what} '{pattern}' has a `..` component; patterns match paths below the directory searched, never above it"),
        )
        .with_hint("search from a directory inside the workspace that holds the files, with a pattern without `..`"));
    }
    Ok(())
}

/// The most levels `{a,{b,c}}` alternatives may nest in a glob. globset turns a glob into a
/// regular expression recursively, one level per brace, and panics when the regex engine
/// refuses it (past about 125 levels); thousands of levels overflow the stack. Real globs
/// nest one or two levels.
pub const MAX_GLOB_NESTING: usize = 10;

/// Refuses a glob whose braces nest deeper than [`MAX_GLOB_NESTING`] (`TOO_LARGE`,
/// `Limit::Pattern`), before globset sees it. Every glob a caller gives goes through here:
/// [`check_walk_pattern`] (Glob, Grep's glob, list filters, `file_pattern`) and the globs of
/// `select` and of list's ignore list.
pub(crate) fn check_glob_nesting(what: &str, pattern: &str) -> Result<(), FkError> {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest <= MAX_GLOB_NESTING {
        return Ok(());
    }
    let shown: String = pattern.chars().take(60).collect();
    let more = if shown.len() < pattern.len() {
        "…"
    } else {
        ""
    };
    Err(FkError::too_large(
        Limit::Pattern,
        deepest as u64,
        MAX_GLOB_NESTING as u64,
        format!(
            "the {what} '{shown}{more}' nests {{a,b}} alternatives {deepest} levels deep; globs \
may nest them at most {MAX_GLOB_NESTING} levels"
        ),
    )
    .with_hint("write the alternatives side by side ({a,b,c}) or use several globs"))
}

/// Builds a matcher of one glob (or several, comma-free) with a PARSE_ERROR that names the
/// glob and what is wrong with it (a glob set of one: unlike globset's single-glob matcher,
/// whose construction panics on a regex the engine refuses, it reports the error).
pub(crate) fn compile_glob(
    what: &str,
    pattern: &str,
    case_insensitive: bool,
) -> Result<globset::GlobSet, FkError> {
    check_walk_pattern(what, pattern)?;
    let glob = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| invalid_glob(what, pattern, &e))?;
    globset::GlobSetBuilder::new()
        .add(glob)
        .build()
        .map_err(|e| invalid_glob(what, pattern, &e))
}

/// A matcher of one glob on `/`-separated relative paths (`*` within a directory, `**` at
/// any depth), for tools that match paths the engine listed; `what` names the argument in
/// its PARSE_ERROR.
pub fn path_glob(what: &str, pattern: &str) -> Result<globset::GlobSet, FkError> {
    compile_glob(what, pattern, false)
}

pub(crate) fn invalid_glob(what: &str, pattern: &str, e: &dyn std::fmt::Display) -> FkError {
    FkError::new(
        ErrorCode::ParseError,
        format!("invalid {what} '{pattern}': {e}"),
    )
    .with_hint(
        "globs use * (within a directory), ** (any depth), ? (one character), [abc] and {a,b}; \
         escape a literal special character with a backslash",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_agrees_with_strip_prefix() {
        let cases = [
            ("/a/b/c.rs", "/a"),
            ("/a/b/c.rs", "/a/b/c.rs"),
            ("/a/b/c.rs", "/a/"),
            ("/a/bc/d", "/a/b"),
            ("/a//b/./c", "/a"),
            ("/a/b", "/x"),
            ("a/b", "a"),
            ("/a/b", "/"),
            ("./a/b", "."),
            ("/a/b/", "/a"),
            ("/a/./b", "/a"),
            ("/a/b/.", "/a"),
            ("/a/.b/c", "/a"),
            ("/a/", "/a"),
            ("/a/b/.github/c", "/a"),
            ("/a/.", "/a"),
            ("/a/b.c/d..e", "/a"),
            ("/a/b/c", "/a/"),
            ("/a//b", "/a/"),
            ("/a/b/", "/a/"),
            ("/a/./b", "/a/."),
            ("/a/.b", "/a/."),
            ("/ab", "/a/"),
            ("/", "/"),
        ];
        for (path, root) in cases {
            let (path, root) = (Path::new(path), Path::new(root));
            assert_eq!(
                below(path, root),
                path.strip_prefix(root).ok(),
                "{path:?} below {root:?}"
            );
        }
    }
}
