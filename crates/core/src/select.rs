//! Choosing the files of a tree-wide operation: a directory, a glob for file names, exclude
//! globs, recursion, and the ignore rules people expect (.gitignore, hidden files).
//!
//! Rules (those of fs_write's `pattern_replace`):
//! - `file_pattern` without a `/` matches a file's *name*, so `*.js` finds `a.js` and, when
//!   `recursive`, `src/lib/b.js`; with a `/` it matches the path relative to `directory`
//!   (`src/**/*.ts`). `*` never crosses a `/`; `**` does; `{a,b}` alternates.
//! - `exclude_patterns` work the same way; a directory they match is not entered at all
//!   (`node_modules/**` and `node_modules` both prune `node_modules`).
//! - .gitignore, .ignore and git's global excludes are respected, hidden files skipped,
//!   unless asked otherwise; filekit's own `.filekit/` is never chosen.
//! - Symbolic links are not followed and not chosen (a link's target is chosen where it
//!   is, if it is in the tree), so that a file is never edited twice or outside the roots;
//!   they are counted as skipped.
//!
//! The walk yields paths; every file is then opened through [`Workspace::resolve`] by the
//! write pipeline, so the sandbox holds for what is chosen here too.

use crate::error::FkError;
use crate::search::{self, WalkFilter};
use crate::workspace::Workspace;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkState;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which files a tree-wide operation works on.
#[derive(Debug, Clone, Default)]
pub struct FileSelection {
    /// The directory to look in (relative to the first root, or absolute inside a root).
    pub directory: String,
    /// Glob for the files: a name pattern (`*.js`) or a relative path pattern (`src/**/*.ts`).
    pub file_pattern: String,
    /// Look in subdirectories too.
    pub recursive: bool,
    /// Globs of files and directories to leave out.
    pub exclude_patterns: Vec<String>,
    /// Also choose hidden files and look in hidden directories.
    pub hidden: bool,
    /// Also choose files that .gitignore and similar files exclude.
    pub no_ignore: bool,
    /// Also give each chosen file's size and modification time ([`Selected::stamps`]), from
    /// the walk's own metadata, so that a cache can tell which files changed.
    pub stamps: bool,
    /// Also list the directories the walk entered ([`Selected::dirs`]), e.g. to watch them.
    pub dirs: bool,
}

/// The files chosen, in path order, and what the walk left out.
#[derive(Debug, Clone, Default)]
pub struct Selected {
    /// How many files the selection chose (before a `keep` test).
    pub chosen: usize,
    /// The chosen files: relative to the first root when inside it (as people read them),
    /// otherwise absolute.
    pub files: Vec<String>,
    /// Entries passed over by the walk, with the reason (links, unreadable directories).
    pub skipped: Vec<(String, String)>,
    /// With [`FileSelection::stamps`]: each chosen file's (size, modification time), by the
    /// path as in `files`.
    pub stamps: std::collections::HashMap<String, (u64, std::time::SystemTime)>,
    /// With [`FileSelection::dirs`]: the directories walked below `directory` (named like
    /// `files`; pruned, ignored and hidden ones are not walked), in path order.
    pub dirs: Vec<String>,
}

/// Walks `selection.directory` and returns the files it chooses for which `keep` (called
/// with the path as it will be given, from the walk's threads) is true; `chosen` counts them
/// all. Errors: the directory is outside the roots, missing or not a directory; a glob does
/// not parse.
pub fn select(
    ws: &Workspace,
    selection: &FileSelection,
    keep: &(dyn Fn(&str) -> bool + Sync),
) -> Result<Selected, FkError> {
    let base = search::resolve_base(ws, Some(&selection.directory))?;
    if !base.is_dir {
        return Err(FkError::invalid(format!(
            "{} is a file, not a directory",
            base.abs.display()
        ))
        .with_hint("give the directory the file is in, with the file's name as the pattern of names"));
    }
    let root = base.abs.clone();
    let first_root = ws.roots()[0].clone();
    search::check_walk_pattern("file_pattern", &selection.file_pattern)?;
    let include = Matcher::new(
        std::slice::from_ref(&selection.file_pattern),
        "file_pattern",
    )?;
    let exclude = Matcher::new(&selection.exclude_patterns, "exclude_patterns")?;

    // The search module's walk: no links followed, ignore files even outside git.
    let mut walk = search::walk_builder(
        &base,
        WalkFilter {
            hidden: selection.hidden,
            ignored: selection.no_ignore,
        },
    );
    // A pattern with a `/` names subdirectories itself, so it implies recursion.
    if !selection.recursive && !selection.file_pattern.contains('/') {
        walk.max_depth(Some(1));
    }
    let prune_root = root.clone();
    let prune = exclude.clone();
    let hidden = base.hidden.clone();
    // This filter replaces the walk's own, so it keeps `.filekit/` and the state out itself.
    walk.filter_entry(move |entry| {
        if hidden.iter().any(|h| h == entry.path()) {
            return false;
        }
        let Some(rel) = search::below(entry.path(), &prune_root) else {
            return true;
        };
        if rel.as_os_str().is_empty() {
            return true;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if is_dir && rel.file_name().is_some_and(|n| n == ".filekit") {
            return false;
        }
        !(is_dir && prune.matches_dir(rel))
    });

    // A parallel walk (threads as ripgrep chooses them); the order is restored after.
    walk.threads(search::threads());
    let out = Mutex::new(Selected::default());
    // Counted apart from `out`: most files of a tree are not kept, and need no lock.
    let chosen = AtomicUsize::new(0);
    let stamps = selection.stamps;
    let want_dirs = selection.dirs;
    walk.build_parallel().run(|| {
        let (include, exclude, root, first_root, out, chosen) =
            (&include, &exclude, &root, &first_root, &out, &chosen);
        Box::new(move |entry| {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = error_path(&e).unwrap_or_else(|| root.clone());
                    if let Ok(mut out) = out.lock() {
                        out.skipped
                            .push((path.display().to_string(), format!("not walked: {e}")));
                    }
                    return WalkState::Continue;
                }
            };
            let Some(kind) = entry.file_type() else {
                return WalkState::Continue;
            };
            let Some(rel) = search::below(entry.path(), root) else {
                return WalkState::Continue;
            };
            if kind.is_dir() && want_dirs && !rel.as_os_str().is_empty() {
                let shown = search::below(entry.path(), first_root)
                    .unwrap_or(entry.path())
                    .display()
                    .to_string();
                if let Ok(mut out) = out.lock() {
                    out.dirs.push(shown);
                }
                return WalkState::Continue;
            }
            if kind.is_dir()
                || rel.as_os_str().is_empty()
                || !include.matches_file(rel)
                || exclude.matches_file(rel)
            {
                return WalkState::Continue;
            }
            if kind.is_symlink() {
                if let Ok(mut out) = out.lock() {
                    out.skipped.push((
                        entry.path().display().to_string(),
                        "symbolic link (not followed; its target is chosen where it is)".into(),
                    ));
                }
                return WalkState::Continue;
            }
            if !kind.is_file() {
                if let Some(special) = search::special_kind(kind)
                    && let Ok(mut out) = out.lock()
                {
                    out.skipped.push((
                        entry.path().display().to_string(),
                        format!("not a regular file ({special}): never opened"),
                    ));
                }
                return WalkState::Continue;
            }
            let below_first = search::below(entry.path(), first_root).unwrap_or(entry.path());
            let shown = match below_first.to_str() {
                Some(plain) => plain.to_owned(),
                None => below_first.display().to_string(),
            };
            // The caller's test (a read of the file) runs here, on the walk's threads.
            let kept = keep(&shown);
            chosen.fetch_add(1, Ordering::Relaxed);
            if !kept {
                return WalkState::Continue;
            }
            let stamp = if stamps {
                entry.metadata().ok().map(|m| {
                    (
                        m.len(),
                        m.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
                    )
                })
            } else {
                None
            };
            if let Ok(mut out) = out.lock() {
                if let Some(stamp) = stamp {
                    out.stamps.insert(shown.clone(), stamp);
                }
                out.files.push(shown);
            }
            WalkState::Continue
        })
    });
    let mut out = out.into_inner().unwrap_or_default();
    out.chosen = chosen.into_inner();
    out.files.sort_unstable();
    out.skipped.sort_unstable();
    out.dirs.sort_unstable();
    Ok(out)
}

fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// Globs split by what they match: names (no `/`) or relative paths.
#[derive(Clone)]
struct Matcher {
    names: GlobSet,
    paths: GlobSet,
    /// `dir/**` patterns also prune `dir` itself.
    dirs: GlobSet,
    empty: bool,
}

impl Matcher {
    fn new(patterns: &[String], what: &str) -> Result<Matcher, FkError> {
        let (mut names, mut paths, mut dirs) = (
            GlobSetBuilder::new(),
            GlobSetBuilder::new(),
            GlobSetBuilder::new(),
        );
        for p in patterns {
            let p = p.trim_start_matches("./");
            if p.is_empty() {
                return Err(FkError::invalid(format!("{what}: an empty glob"))
                    .with_hint("give a glob such as *.js or src/**/*.ts"));
            }
            let glob = build(p, what)?;
            if p.contains('/') {
                paths.add(glob);
                if let Some(dir) = p.strip_suffix("/**") {
                    dirs.add(build(dir, what)?);
                }
            } else {
                names.add(glob.clone());
                dirs.add(glob);
            }
        }
        let done = |b: GlobSetBuilder| b.build().map_err(|e| search::invalid_glob(what, "", &e));
        Ok(Matcher {
            names: done(names)?,
            paths: done(paths)?,
            dirs: done(dirs)?,
            empty: patterns.is_empty(),
        })
    }

    fn matches_file(&self, rel: &Path) -> bool {
        if self.empty {
            return false;
        }
        rel.file_name().is_some_and(|n| self.names.is_match(n)) || self.paths.is_match(rel)
    }

    fn matches_dir(&self, rel: &Path) -> bool {
        !self.empty
            && (self.dirs.is_match(rel)
                || rel.file_name().is_some_and(|n| self.dirs.is_match(n))
                || self.paths.is_match(rel))
    }
}

fn build(pattern: &str, what: &str) -> Result<Glob, FkError> {
    search::check_glob_nesting(what, pattern)?;
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| search::invalid_glob(what, pattern, &e))
}
