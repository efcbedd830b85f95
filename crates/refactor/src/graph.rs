//! The import graph of a workspace: every file (for resolution), and for every TS/TSX/JS
//! file its module references (`filekit_semantic::imports`). Built by the engine's walk
//! (`select`, .gitignore honoured, `node_modules` left out) and the engine's reads, parsed in
//! parallel, and kept per workspace between calls: a file is parsed again only when its size
//! or modification time changed. Rewrites computed from the graph are tied to the
//! `content_hash` of the text that was parsed, so a file changed behind an unchanged stamp is
//! refused as `STALE` by the commit step rather than rewritten wrongly.
//!
//! A long-lived front end turns on [`watch_between_calls`]: a file watcher
//! ([`crate::watch`]) then records what changes between calls, and a warm build looks at
//! those paths only (a stat each, a parse for the changed ones) instead of walking the tree.

use crate::paths::{dir_of, is_code, name_of};
use crate::resolve::Files;
use crate::tsconfig::{self, Configs};
use crate::watch::{Changes, Watch};
use filekit_core::select::{FileSelection, select};
use filekit_core::splices::{Assoc, Splice, Splices};
use filekit_core::{FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::imports::{ModuleRef, module_refs};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

/// One parsed file.
#[derive(Debug)]
pub struct Parsed {
    stamp: (u64, SystemTime),
    /// The `content_hash` of the text parsed.
    pub hash: String,
    pub refs: Vec<ModuleRef>,
    /// The text, for rewrites that need more than spans (removals, line numbers).
    pub text: Arc<str>,
}

/// A workspace's import graph at one moment.
pub struct Graph {
    /// Every file the walk chose (code or not), workspace-relative.
    pub files: Arc<Files>,
    /// The parsed code files, by path.
    pub code: Arc<HashMap<String, Arc<Parsed>>>,
    pub configs: Arc<Configs>,
    /// Files that could not be read or parsed (path, why).
    pub skipped: Vec<(String, String)>,
    /// How many files were parsed for this graph (the rest came from the cache).
    pub parsed: usize,
    /// Whether the tree was walked for it, or only the watcher's changes looked at.
    pub freshness: Freshness,
}

#[derive(Default)]
struct Cache {
    code: Arc<HashMap<String, Arc<Parsed>>>,
    config_stamps: Vec<(String, (u64, SystemTime))>,
    configs: Arc<Configs>,
    /// Every file of the last walk, kept up to date by the watcher between walks.
    files: Arc<Files>,
    watch: Watching,
    /// With a watcher: every directory is watched and a walk has seen the tree since, so the
    /// watcher's changes are all there is to look at.
    trusted: bool,
}

#[derive(Default)]
enum Watching {
    #[default]
    Off,
    On(Watch),
    /// Could not start or could not watch a directory: walks from then on.
    Failed,
}

/// Graphs kept between calls, by the workspace's roots.
type Caches = HashMap<Vec<PathBuf>, Arc<Mutex<Cache>>>;

static CACHES: LazyLock<Mutex<Caches>> = LazyLock::new(|| Mutex::new(HashMap::new()));

static WATCH: AtomicBool = AtomicBool::new(false);

/// Long-lived front ends (`filekit serve`) call this once: the graphs kept between calls are
/// then kept current by a file watcher ([`crate::watch`]) rather than by a walk per call.
/// Without it (a `filekit call` process), each [`build`] walks the tree and compares stamps.
pub fn watch_between_calls(on: bool) {
    WATCH.store(on, Ordering::Relaxed);
}

/// How the last [`build`] of a workspace's graph found what changed (for tests and benches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// The tree was walked (no watcher, a first build, or a watcher that could not tell).
    Walked,
    /// Only the paths the watcher reported were looked at.
    Watched,
}

/// The import graph of `ws` as it is now.
pub fn build(ws: &Workspace) -> Result<Graph, FkError> {
    let cache = {
        let mut all = CACHES.lock().unwrap_or_else(|e| e.into_inner());
        all.entry(ws.roots().to_vec()).or_default().clone()
    };
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    let root = ws.roots()[0].clone();
    let watching = WATCH.load(Ordering::Relaxed);
    if watching && matches!(cache.watch, Watching::Off) {
        // A read-only workspace gets no `.filekit/` for the cookies: it walks unless one is there.
        cache.watch = match Watch::start(&root, !ws.read_only()) {
            Ok(w) => Watching::On(w),
            Err(_) => Watching::Failed,
        };
        cache.trusted = false;
    }
    let mut changed = None;
    if let Watching::On(w) = &cache.watch
        && cache.trusted
        && w.sync()
        && let Changes::Paths(paths, gone) = w.take()
    {
        changed = Some((paths, gone));
    }
    let mut outcome = match changed {
        Some((paths, gone)) => {
            if let Watching::On(w) = &mut cache.watch {
                for p in &gone {
                    w.gone(p);
                }
            }
            apply_changes(ws, &mut cache, &root, paths)?
        }
        None => None,
    };
    if outcome.is_none() {
        if let Watching::On(w) = &cache.watch {
            w.clear();
        }
        let first = !cache.trusted;
        let mut done = walk(ws, &mut cache, &root)?;
        if first && let Watching::On(w) = &cache.watch {
            // Directories were being watched while the walk went on: walk once more, so that
            // a change made before its directory was watched is seen too.
            w.clear();
            let again = walk(ws, &mut cache, &root)?;
            done.skipped = again.skipped;
            done.parsed += again.parsed;
        }
        cache.trusted = matches!(cache.watch, Watching::On(_));
        outcome = Some(done);
    }
    let done = outcome.expect("set above");
    Ok(Graph {
        files: cache.files.clone(),
        code: cache.code.clone(),
        configs: cache.configs.clone(),
        skipped: done.skipped,
        parsed: done.parsed,
        freshness: done.freshness,
    })
}

struct Done {
    skipped: Vec<(String, String)>,
    parsed: usize,
    freshness: Freshness,
}

fn selection(directory: &str, recursive: bool) -> FileSelection {
    FileSelection {
        directory: directory.to_string(),
        file_pattern: "*".into(),
        recursive,
        exclude_patterns: vec!["node_modules".into()],
        stamps: true,
        dirs: true,
        ..FileSelection::default()
    }
}

/// Walks the whole tree and brings the cache up to date by stamps.
fn walk(ws: &Workspace, cache: &mut Cache, root: &Path) -> Result<Done, FkError> {
    let selected = select(ws, &selection("", true), &|_| true)?;
    watch_dirs(cache, root, &selected.dirs);
    let stamp_of = |f: &str| {
        selected
            .stamps
            .get(f)
            .copied()
            .unwrap_or((0, SystemTime::UNIX_EPOCH))
    };
    load_configs(ws, cache, &selected.files, &stamp_of);

    let code_files: Vec<&String> = selected.files.iter().filter(|f| is_code(f)).collect();
    let stale: Vec<(String, (u64, SystemTime))> = code_files
        .iter()
        .filter(|f| cache.code.get(**f).is_none_or(|p| p.stamp != stamp_of(f)))
        .map(|f| ((*f).clone(), stamp_of(f)))
        .collect();
    let (skipped, parsed) = parse_into(ws, cache, stale);
    // Forget files that are gone.
    if cache.code.len() > code_files.len() {
        let keep: HashSet<&String> = code_files.iter().copied().collect();
        Arc::make_mut(&mut cache.code).retain(|k, _| keep.contains(k));
    }
    cache.files = Arc::new(Files::new(selected.files.iter().cloned()));
    Ok(Done {
        skipped,
        parsed,
        freshness: Freshness::Walked,
    })
}

/// Watches the directories a walk entered (the root and `.filekit/` are watched from the
/// start). A directory that cannot be watched turns the watcher off: walks from then on.
fn watch_dirs(cache: &mut Cache, root: &Path, dirs: &[String]) {
    let Watching::On(w) = &mut cache.watch else {
        return;
    };
    for d in dirs {
        if w.watch_dir(&root.join(d)).is_err() {
            cache.watch = Watching::Failed;
            cache.trusted = false;
            return;
        }
    }
}

/// Reloads the configs when the stamp of one of them changed.
fn load_configs(
    ws: &Workspace,
    cache: &mut Cache,
    files: &[String],
    stamp_of: &dyn Fn(&str) -> (u64, SystemTime),
) {
    let config_files: Vec<String> = files
        .iter()
        .filter(|f| tsconfig::is_config(name_of(f)))
        .cloned()
        .collect();
    let package_files: Vec<String> = files
        .iter()
        .filter(|f| name_of(f) == "package.json")
        .cloned()
        .collect();
    let config_stamps: Vec<(String, (u64, SystemTime))> = config_files
        .iter()
        .chain(&package_files)
        .map(|f| (f.clone(), stamp_of(f)))
        .collect();
    if config_stamps != cache.config_stamps {
        let read = |p: &str| Ok(read_text(ws, p).ok());
        cache.configs = Arc::new(Configs::new(&config_files, &package_files, &read));
        cache.config_stamps = config_stamps;
    }
}

/// Reads and parses `files` in parallel into the cache: (the files skipped, how many parsed).
fn parse_into(
    ws: &Workspace,
    cache: &mut Cache,
    files: Vec<(String, (u64, SystemTime))>,
) -> (Vec<(String, String)>, usize) {
    let fresh: Vec<(String, Result<Parsed, String>)> = files
        .into_par_iter()
        .map(|(f, stamp)| {
            let p = parse(ws, &f, stamp);
            (f, p)
        })
        .collect();
    let mut skipped = Vec::new();
    let parsed = fresh.len();
    for (f, p) in fresh {
        match p {
            Ok(p) => {
                Arc::make_mut(&mut cache.code).insert(f, Arc::new(p));
            }
            Err(why) => {
                Arc::make_mut(&mut cache.code).remove(&f);
                skipped.push((f, why));
            }
        }
    }
    (skipped, parsed)
}

fn is_ignore_file(name: &str) -> bool {
    matches!(name, ".gitignore" | ".ignore")
}

/// Brings the cache up to date with the paths the watcher reported, looking at nothing
/// else. `None` when only a walk can tell (an ignore file changed, a listing failed).
fn apply_changes(
    ws: &Workspace,
    cache: &mut Cache,
    root: &Path,
    paths: HashSet<PathBuf>,
) -> Result<Option<Done>, FkError> {
    let mut reparse: Vec<(String, (u64, SystemTime))> = Vec::new();
    // Directories whose entries are new to the graph: listed (ignore rules apply).
    let mut list: HashSet<String> = HashSet::new();
    let mut configs_changed = false;
    for abs in paths {
        let Ok(rel) = abs.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.is_empty() {
            continue;
        }
        let name = name_of(&rel);
        let parts: Vec<&str> = rel.split('/').collect();
        let hidden_parent = parts[..parts.len() - 1]
            .iter()
            .any(|p| p.starts_with('.') || *p == "node_modules");
        if hidden_parent {
            continue;
        }
        if is_ignore_file(name) {
            return Ok(None);
        }
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let config = tsconfig::is_config(name) || name == "package.json";
        let meta = std::fs::symlink_metadata(&abs);
        // A file that became a directory, or a directory that became a file.
        let was_dir = cache.files.dirs.contains(&rel);
        let is_dir = meta.as_ref().is_ok_and(|m| m.is_dir());
        if (was_dir && !is_dir) || (is_dir && cache.files.files.contains(&rel)) {
            Arc::make_mut(&mut cache.files).remove_under(&rel);
            let prefix = format!("{rel}/");
            Arc::make_mut(&mut cache.code).retain(|k, _| k != &rel && !k.starts_with(&prefix));
        }
        match meta {
            Ok(m) if m.is_file() => {
                if cache.files.files.contains(&rel) {
                    let stamp = (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH));
                    if is_code(&rel) && cache.code.get(&rel).is_none_or(|p| p.stamp != stamp) {
                        reparse.push((rel, stamp));
                    }
                    configs_changed |= config;
                } else {
                    list.insert(dir_of(&rel).to_string());
                }
            }
            Ok(m) if m.is_dir() => {
                if let Watching::On(w) = &cache.watch
                    && !w.is_watched(&abs)
                {
                    list.insert(dir_of(&rel).to_string());
                }
            }
            // Gone, or now a link (links are not followed by the walk either).
            _ => {
                let n = Arc::make_mut(&mut cache.files).remove_under(&rel);
                if n > 0 {
                    let prefix = format!("{rel}/");
                    Arc::make_mut(&mut cache.code)
                        .retain(|k, _| k != &rel && !k.starts_with(&prefix));
                }
                if let Watching::On(w) = &mut cache.watch {
                    w.gone(&abs);
                }
                configs_changed |= config;
            }
        }
    }
    // New entries: the directory is listed as the walk would list it, and a new directory
    // in it is walked whole and watched.
    let mut new_dirs: Vec<String> = Vec::new();
    for dir in &list {
        let Ok(selected) = select(ws, &selection(dir, false), &|_| true) else {
            continue;
        };
        for f in &selected.files {
            if !cache.files.files.contains(f) {
                let stamp = selected.stamps.get(f).copied();
                let stamp = stamp.unwrap_or((0, SystemTime::UNIX_EPOCH));
                configs_changed |= tsconfig::is_config(name_of(f)) || name_of(f) == "package.json";
                if is_code(f) {
                    reparse.push((f.clone(), stamp));
                }
                Arc::make_mut(&mut cache.files).insert(f.clone());
            }
        }
        for d in selected.dirs {
            let watched = match &cache.watch {
                Watching::On(w) => w.is_watched(&root.join(&d)),
                _ => true,
            };
            if !watched {
                new_dirs.push(d);
            }
        }
    }
    for d in new_dirs {
        let selected = match select(ws, &selection(&d, true), &|_| true) {
            Ok(s) => s,
            Err(_) => return Ok(None),
        };
        let mut dirs = vec![d.clone()];
        dirs.extend(selected.dirs.iter().cloned());
        watch_dirs(cache, root, &dirs);
        for f in &selected.files {
            if !cache.files.files.contains(f) {
                let stamp = selected.stamps.get(f).copied();
                let stamp = stamp.unwrap_or((0, SystemTime::UNIX_EPOCH));
                configs_changed |= tsconfig::is_config(name_of(f)) || name_of(f) == "package.json";
                if is_code(f) {
                    reparse.push((f.clone(), stamp));
                }
                Arc::make_mut(&mut cache.files).insert(f.clone());
            }
        }
    }
    if !matches!(cache.watch, Watching::On(_)) {
        return Ok(None);
    }
    if configs_changed {
        let files: Vec<String> = cache
            .files
            .files
            .iter()
            .filter(|f| tsconfig::is_config(name_of(f)) || name_of(f) == "package.json")
            .cloned()
            .collect();
        let stamp_of = |f: &str| {
            ws.resolve(f)
                .ok()
                .and_then(|p| ws.metadata(&p).ok().flatten())
                .map_or((0, SystemTime::UNIX_EPOCH), |m| (m.len, m.modified))
        };
        let mut sorted = files;
        sorted.sort();
        load_configs(ws, cache, &sorted, &stamp_of);
    }
    reparse.sort();
    reparse.dedup_by(|a, b| a.0 == b.0);
    let (skipped, parsed) = parse_into(ws, cache, reparse);
    Ok(Some(Done {
        skipped,
        parsed,
        freshness: Freshness::Watched,
    }))
}

/// Brings the cached graph up to date after a committed move (or rename) without reading
/// the files again: `moved` maps old paths to new ones (the files keep their content, so
/// their entries move), `rewritten` lists files whose specifiers changed, by their path
/// before the request, with the splices applied; their new stamps are asked of the engine
/// and their references shifted. A file changed by someone else in between would carry a
/// wrong entry until its next change, but every rewrite computed from it is tied to the
/// `content_hash` parsed, so the commit step would refuse it as `STALE`.
pub fn record_move(
    ws: &Workspace,
    moved: &HashMap<String, String>,
    rewritten: &[(String, Vec<Splice>)],
) {
    let cache = {
        let all = CACHES.lock().unwrap_or_else(|e| e.into_inner());
        match all.get(ws.roots()) {
            Some(c) => c.clone(),
            None => return,
        }
    };
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    let mut entries: Vec<(String, Arc<Parsed>)> = Vec::new();
    for (old, new) in moved {
        if let Some(p) = Arc::make_mut(&mut cache.code).remove(old) {
            entries.push((new.clone(), p));
        }
    }
    for (new, p) in entries {
        Arc::make_mut(&mut cache.code).insert(new, p);
    }
    for (old, new) in moved {
        if Arc::make_mut(&mut cache.files).remove_under(old) > 0 {
            Arc::make_mut(&mut cache.files).insert(new.clone());
        }
    }
    for (old, splices) in rewritten {
        let key = moved.get(old).unwrap_or(old);
        let Some(parsed) = cache.code.get(key).cloned() else {
            continue;
        };
        let stamp = ws
            .resolve(key)
            .ok()
            .and_then(|p| ws.metadata(&p).ok().flatten())
            .map(|m| (m.len, m.modified));
        let Some(stamp) = stamp else {
            Arc::make_mut(&mut cache.code).remove(key);
            continue;
        };
        match shifted(&parsed, splices, stamp) {
            Some(p) => Arc::make_mut(&mut cache.code).insert(key.clone(), Arc::new(p)),
            None => Arc::make_mut(&mut cache.code).remove(key),
        };
    }
}

/// `parsed` after `splices` (of its text, as the commit step applied them) that each replace
/// one reference's specifier; `None` when they do not fit it or the file is not what they
/// make (it is parsed again next time).
fn shifted(parsed: &Parsed, splices: &[Splice], stamp: (u64, SystemTime)) -> Option<Parsed> {
    let text = &parsed.text;
    let edit = Splices::new(text, splices.to_vec()).ok()?;
    if edit.result_len() as u64 != stamp.0 {
        return None;
    }
    let new_text = edit.apply(text).ok()?;
    // Where a position before the edit is after it: specifiers replace non-empty ranges,
    // so a position at a splice's start stays before its new text.
    let shift = |at: usize| edit.map(at, Assoc::Before);
    let mut refs = Vec::with_capacity(parsed.refs.len());
    for r in &parsed.refs {
        let mut r = r.clone();
        if let Some(s) = edit
            .iter()
            .find(|s| s.start == r.span.start && s.end == r.span.end)
        {
            let start = shift(r.span.start);
            r.specifier = s.text.clone();
            r.span = start..start + s.text.len();
        } else if edit
            .iter()
            .any(|s| s.start < r.span.end && r.span.start < s.end)
        {
            // A splice that is not a specifier: parse again next time.
            return None;
        } else {
            let start = shift(r.span.start);
            r.span = start..start + r.span.len();
        }
        r.statement = shift(r.statement.start)..shift(r.statement.end);
        refs.push(r);
    }
    Some(Parsed {
        stamp,
        hash: edit.result_hash(),
        refs,
        text: new_text.into(),
    })
}

/// Forgets the cached graph of `ws` (tests, and front ends that know everything changed).
pub fn forget(ws: &Workspace) {
    let mut all = CACHES.lock().unwrap_or_else(|e| e.into_inner());
    all.remove(&ws.roots().to_vec());
}

fn read_text(ws: &Workspace, path: &str) -> Result<String, String> {
    let p = ws.resolve(path).map_err(|e| e.message.clone())?;
    let file = ws.read(&p).map_err(|e| e.message.clone())?;
    String::from_utf8(file.bytes).map_err(|_| "not UTF-8 text".to_string())
}

fn parse(ws: &Workspace, path: &str, stamp: (u64, SystemTime)) -> Result<Parsed, String> {
    let text = read_text(ws, path)?;
    let lang = Lang::of_path(path).map_err(|e| e.message.clone())?;
    let refs = module_refs(lang, &text);
    Ok(Parsed {
        stamp,
        hash: filekit_core::hash::content_hash(text.as_bytes()),
        refs,
        text: text.into(),
    })
}
