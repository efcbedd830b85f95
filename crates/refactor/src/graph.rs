//! The import graph of a workspace: every file (for resolution), and for every TS/TSX/JS
//! file its module references (`filekit_semantic::imports`). Built by the engine's walk
//! (`select`, .gitignore honoured, `node_modules` left out) and the engine's reads, parsed in
//! parallel, and kept per workspace between calls: a file is parsed again only when its size
//! or modification time changed. Rewrites computed from the graph are tied to the
//! `content_hash` of the text that was parsed, so a file changed behind an unchanged stamp is
//! refused as `STALE` by the commit step rather than rewritten wrongly.

use crate::paths::{is_code, name_of};
use crate::resolve::Files;
use crate::tsconfig::{self, Configs};
use filekit_core::select::{FileSelection, select};
use filekit_core::{FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::imports::{ModuleRef, module_refs};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
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
    pub files: Files,
    /// The parsed code files, by path.
    pub code: HashMap<String, Arc<Parsed>>,
    pub configs: Arc<Configs>,
    /// Files that could not be read or parsed (path, why).
    pub skipped: Vec<(String, String)>,
    /// How many files were parsed for this graph (the rest came from the cache).
    pub parsed: usize,
}

#[derive(Default)]
struct Cache {
    code: HashMap<String, Arc<Parsed>>,
    config_stamps: Vec<(String, (u64, SystemTime))>,
    configs: Arc<Configs>,
}

/// Graphs kept between calls, by the workspace's roots.
type Caches = HashMap<Vec<PathBuf>, Arc<Mutex<Cache>>>;

static CACHES: LazyLock<Mutex<Caches>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The import graph of `ws` as it is now.
pub fn build(ws: &Workspace) -> Result<Graph, FkError> {
    let selection = FileSelection {
        directory: String::new(),
        file_pattern: "*".into(),
        recursive: true,
        exclude_patterns: vec!["node_modules".into()],
        stamps: true,
        ..FileSelection::default()
    };
    let selected = select(ws, &selection, &|_| true)?;
    let cache = {
        let mut all = CACHES.lock().unwrap_or_else(|e| e.into_inner());
        all.entry(ws.roots().to_vec()).or_default().clone()
    };
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    let stamp_of = |f: &str| {
        selected
            .stamps
            .get(f)
            .copied()
            .unwrap_or((0, SystemTime::UNIX_EPOCH))
    };

    // Configs: reloaded all together when any of them changed.
    let config_files: Vec<String> = selected
        .files
        .iter()
        .filter(|f| tsconfig::is_config(name_of(f)))
        .cloned()
        .collect();
    let package_files: Vec<String> = selected
        .files
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
        let read = |p: &str| read_text(ws, p).ok();
        cache.configs = Arc::new(Configs::new(&config_files, &package_files, &read));
        cache.config_stamps = config_stamps;
    }

    let code_files: Vec<&String> = selected.files.iter().filter(|f| is_code(f)).collect();
    let stale: Vec<&String> = code_files
        .iter()
        .copied()
        .filter(|f| cache.code.get(*f).is_none_or(|p| p.stamp != stamp_of(f)))
        .collect();
    let fresh: Vec<(String, Result<Parsed, String>)> = stale
        .par_iter()
        .map(|f| ((*f).clone(), parse(ws, f, stamp_of(f))))
        .collect();
    let mut skipped = Vec::new();
    let parsed = fresh.len();
    for (f, p) in fresh {
        match p {
            Ok(p) => {
                cache.code.insert(f, Arc::new(p));
            }
            Err(why) => {
                cache.code.remove(&f);
                skipped.push((f, why));
            }
        }
    }
    // Forget files that are gone.
    if cache.code.len() > code_files.len() {
        let keep: std::collections::HashSet<&String> = code_files.iter().copied().collect();
        cache.code.retain(|k, _| keep.contains(k));
    }
    Ok(Graph {
        files: Files::new(selected.files.iter().cloned()),
        code: cache.code.clone(),
        configs: cache.configs.clone(),
        skipped,
        parsed,
    })
}

/// Byte splices `(start, end, replacement)` of one file.
pub type Splices = Vec<(usize, usize, String)>;

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
    rewritten: &[(String, Splices)],
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
        if let Some(p) = cache.code.remove(old) {
            entries.push((new.clone(), p));
        }
    }
    for (new, p) in entries {
        cache.code.insert(new, p);
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
            cache.code.remove(key);
            continue;
        };
        match shifted(&parsed, splices, stamp) {
            Some(p) => cache.code.insert(key.clone(), Arc::new(p)),
            None => cache.code.remove(key),
        };
    }
}

/// `parsed` after `splices` that each replace one reference's specifier.
fn shifted(
    parsed: &Parsed,
    splices: &[(usize, usize, String)],
    stamp: (u64, SystemTime),
) -> Option<Parsed> {
    let text = &parsed.text;
    let mut new_text = String::with_capacity(text.len() + 64);
    let mut last = 0;
    for (start, end, with) in splices {
        new_text.push_str(text.get(last..*start)?);
        new_text.push_str(with);
        last = *end;
    }
    new_text.push_str(text.get(last..)?);
    if new_text.len() as u64 != stamp.0 {
        return None;
    }
    let shift = |at: usize| -> isize {
        splices
            .iter()
            .filter(|(_, end, _)| *end <= at)
            .map(|(start, end, with)| with.len() as isize - (end - start) as isize)
            .sum()
    };
    let mut refs = Vec::with_capacity(parsed.refs.len());
    for r in &parsed.refs {
        let mut r = r.clone();
        if let Some((_, _, with)) = splices
            .iter()
            .find(|(start, end, _)| *start == r.span.start && *end == r.span.end)
        {
            let d = shift(r.span.start);
            let start = r.span.start.checked_add_signed(d)?;
            r.specifier = with.clone();
            r.span = start..start + with.len();
        } else if splices
            .iter()
            .any(|(start, end, _)| *start < r.span.end && r.span.start < *end)
        {
            // A splice that is not a specifier: parse again next time.
            return None;
        } else {
            let d = shift(r.span.start);
            r.span = r.span.start.checked_add_signed(d)?..r.span.end.checked_add_signed(d)?;
        }
        let ds = shift(r.statement.start);
        let de = shift(r.statement.end);
        r.statement =
            r.statement.start.checked_add_signed(ds)?..r.statement.end.checked_add_signed(de)?;
        refs.push(r);
    }
    Some(Parsed {
        stamp,
        hash: filekit_core::hash::content_hash(new_text.as_bytes()),
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
