//! The edit history: every committed request, with what each file was before and after, in an
//! SQLite database (`history.db` in the workspace's state directory by default, see
//! [`crate::state`]: never in the tree, where a repository could ship one or link it to
//! another database).
//!
//! One entry per request: its time, the tool that made it, a one-line summary, and per path
//! the state before and after (a file's bytes and permissions, a directory, a link, or
//! nothing). Contents are stored once per distinct content (an entry's "after" is usually the
//! next one's "before") and compressed with LZ4; when the stored bytes pass a cap, the oldest
//! entries go first. A content an edit made is stored as that edit's splices of the content
//! before it (its base) when the writer gives them: a replace across thousands of files
//! changes a few bytes of each, and compressing and storing each new file whole was half the
//! cost of recording it. Chains of such contents are kept short ([`MAX_DEPTH`]), and a base
//! is kept as long as a content built on it is.
//!
//! The database is shared: the CLI and a running server may write it at the same time (WAL
//! mode, a busy timeout, one SQL transaction per entry). A history that cannot be opened or
//! written never stops an edit: the failure is kept as a warning, given once, that says how to
//! repair it ([`History::repair`]).
//!
//! [`crate::undo`] turns entries back into changes of the tree.
//!
//! This file is the API; `schema.rs` opens the database and migrates older schemas;
//! `store.rs` is the store of contents (whole or as splices of a base, and pruning).

use crate::diff;
use crate::error::{ErrorCode, FkError};
use crate::workspace::rfc3339;
use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

mod schema;
mod store;

pub(crate) use store::compress;
use store::*;
pub use store::{PreparedChange, PreparedNode, StoredContent};

/// Stored (compressed) bytes kept before the oldest entries are pruned.
pub const DEFAULT_CAP_BYTES: u64 = 512 * 1024 * 1024;

/// How long a write waits for another process that holds the database.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// 2 added `blobs.chash`, the `content_hash` of a blob, so that the version store can find
/// the versions commits wrote here instead of keeping a second copy of each. 3 added
/// `blobs.base` and `blobs.depth`: a blob with a base holds splices of the base's content
/// (see [`encode_splices`]), `depth` blobs away from one stored whole. 4 added the kind
/// `ranges` of a change's side (a streamed file's edited ranges): an older filekit, which
/// would take it for no file at all, refuses the database.
const SCHEMA_VERSION: i64 = 4;

/// The most blobs a content may be built through (the splices of the splices of ...) before
/// it is stored whole: reading a content back decompresses and applies that many.
pub const MAX_DEPTH: i64 = 8;

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Absent,
    File {
        bytes: Vec<u8>,
        mode: u32,
    },
    Dir {
        mode: u32,
    },
    Symlink {
        target: PathBuf,
    },
    /// A file too large to hold (streamed), known by its size and `content_hash`, and by
    /// the edits that make it of the other side of its change (which undo writes over that
    /// side, found on disk as the change left it).
    Ranges {
        size: u64,
        hash: String,
        mode: u32,
        edits: Vec<crate::content::RangeEdit>,
    },
}

impl Node {
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Absent => "absent",
            Node::File { .. } | Node::Ranges { .. } => "file",
            Node::Dir { .. } => "dir",
            Node::Symlink { .. } => "symlink",
        }
    }
}

/// One path's change in a committed request. `path` is absolute.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: PathBuf,
    pub before: Node,
    pub after: Node,
}

/// Why an entry was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A request of a tool.
    Change,
    /// The undo of another entry.
    Undo,
    /// The redo of an undone entry (the undo of an undo).
    Redo,
}

impl EntryKind {
    fn as_str(self) -> &'static str {
        match self {
            EntryKind::Change => "change",
            EntryKind::Undo => "undo",
            EntryKind::Redo => "redo",
        }
    }

    fn parse(s: &str) -> EntryKind {
        match s {
            "undo" => EntryKind::Undo,
            "redo" => EntryKind::Redo,
            _ => EntryKind::Change,
        }
    }
}

/// An entry as listed.
#[derive(Debug, Clone, Serialize)]
pub struct EntryInfo {
    pub id: i64,
    pub time: String,
    pub tool: String,
    pub summary: String,
    pub kind: EntryKind,
    /// The entry this one undid or redid.
    pub target: Option<i64>,
    /// The entry that undid this one, if it was undone.
    pub undone_by: Option<i64>,
    pub paths: Vec<String>,
}

/// One path of an entry, with its diff when both sides are text.
#[derive(Debug, Clone, Serialize)]
pub struct PathChange {
    pub path: String,
    pub before: &'static str,
    pub after: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
}

/// Which entries to list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Only entries that changed this path, or a path beneath it (absolute).
    pub path: Option<PathBuf>,
    pub limit: Option<usize>,
}

/// The history database of a workspace.
#[derive(Debug)]
pub struct History {
    conn: Mutex<Option<Connection>>,
    path: PathBuf,
    cap_bytes: u64,
    warned: AtomicBool,
    warning: Mutex<Option<String>>,
}

fn db_error(path: &Path, e: impl std::fmt::Display) -> FkError {
    FkError::new(
        ErrorCode::Io,
        format!("the edit history {} cannot be used: {e}", path.display()),
    )
    .with_hint(format!(
        "edits still work; to start a new history run `filekit history --repair` (it keeps the old file as {}.corrupt-<time>), or turn the history off with --no-history",
        path.display()
    ))
}

impl History {
    /// The history at `path`. Nothing is opened or created until the first entry is
    /// recorded (a session that only reads leaves no trace); listing a history that does not
    /// exist yet finds it empty.
    pub fn new(path: &Path, cap_bytes: u64) -> History {
        History {
            conn: Mutex::new(None),
            path: path.to_path_buf(),
            cap_bytes,
            warned: AtomicBool::new(false),
            warning: Mutex::new(None),
        }
    }

    /// Opens (or creates) the database at `path` now, failing if it cannot be used.
    pub fn open(path: &Path, cap_bytes: u64) -> Result<History, FkError> {
        let h = History::new(path, cap_bytes);
        drop(h.lock(true)?);
        Ok(h)
    }

    /// Moves an unusable database aside (as `<name>.corrupt-<unix time>`) and opens a new one.
    pub fn repair(path: &Path, cap_bytes: u64) -> Result<(History, Option<PathBuf>), FkError> {
        let mut moved = None;
        if path.exists() {
            let stamp = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let aside = PathBuf::from(format!("{}.corrupt-{stamp}", path.display()));
            std::fs::rename(path, &aside).map_err(|e| db_error(path, e))?;
            for suffix in ["-wal", "-shm"] {
                let side = PathBuf::from(format!("{}{suffix}", path.display()));
                if side.exists() {
                    let _ = std::fs::rename(&side, format!("{}{suffix}", aside.display()));
                }
            }
            moved = Some(aside);
        }
        Ok((History::open(path, cap_bytes)?, moved))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first failure to record since the history was opened, once: front ends show it
    /// to the user, so a broken history is noticed without failing every edit.
    pub fn take_warning(&self) -> Option<String> {
        self.warning.lock().ok()?.take()
    }

    /// Keeps `err` as the warning, the first time only.
    pub fn warn(&self, err: &FkError) {
        if !self.warned.swap(true, Ordering::Relaxed)
            && let Ok(mut w) = self.warning.lock()
        {
            *w = Some(err.full_message());
        }
    }

    /// The connection, opened on first use. `None` when the database does not exist and
    /// `create` is false.
    fn lock(
        &self,
        create: bool,
    ) -> Result<Option<std::sync::MutexGuard<'_, Option<Connection>>>, FkError> {
        let mut guard = self
            .conn
            .lock()
            .map_err(|_| db_error(&self.path, "a thread panicked while using it"))?;
        if guard.is_none() {
            if !create && !self.path.exists() {
                return Ok(None);
            }
            *guard = Some(schema::connect(&self.path)?);
        }
        Ok(Some(guard))
    }

    /// Makes the database at `source` (a history of an older filekit, which kept it in
    /// `.filekit/history.db` of the workspace) the history at `into`: copied whole, then
    /// migrated to this filekit's schema when opened. Only a user's explicit choice may do
    /// this: a database shipped in a workspace is never opened otherwise. Refuses when `into`
    /// already holds entries. Returns how many entries came with it.
    pub fn import(source: &Path, into: &Path) -> Result<i64, FkError> {
        let existing = History::new(into, DEFAULT_CAP_BYTES);
        if existing
            .list(&ListFilter::default())
            .is_ok_and(|l| !l.is_empty())
        {
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!("{} already holds a history", into.display()),
            )
            .with_hint("purge this workspace's state first (filekit state purge), or use the other database with --history FILE"));
        }
        drop(existing);
        let src = Connection::open_with_flags(source, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| db_error(source, e))?;
        let schema: i64 = src
            .query_row("SELECT value FROM meta WHERE key='schema'", [], |r| {
                r.get(0)
            })
            .map_err(|_| {
                db_error(
                    source,
                    "it is not a filekit history (no schema version in it)",
                )
            })?;
        if schema > SCHEMA_VERSION {
            return Err(db_error(
                source,
                format!(
                    "it has schema version {schema}; this filekit reads up to {SCHEMA_VERSION}"
                ),
            ));
        }
        if let Some(parent) = into.parent() {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)
                .map_err(|e| db_error(into, e))?;
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", into.display()));
        }
        let temp = PathBuf::from(format!("{}.import-{}", into.display(), std::process::id()));
        let _ = std::fs::remove_file(&temp);
        crate::state::write_private_file(&temp, b"").map_err(|e| db_error(&temp, e))?;
        let copied = src
            .execute("VACUUM INTO ?1", params![temp.to_string_lossy()])
            .map_err(|e| db_error(source, e));
        drop(src);
        if let Err(e) =
            copied.and_then(|_| std::fs::rename(&temp, into).map_err(|e| db_error(into, e)))
        {
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
        let h = History::open(into, DEFAULT_CAP_BYTES)?;
        let guard = h.lock(false)?;
        let conn = guard.as_ref().and_then(|g| g.as_ref()).expect("opened");
        conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
            .map_err(|e| db_error(into, e))
    }

    /// Forgets entry `id` and every content only it kept (a secret an edit read or wrote,
    /// say): its rows go, the freed pages are overwritten with zeros (`secure_delete`) and the
    /// write-ahead log is emptied into the database. A content another entry also holds stays
    /// with that entry. False when there is no such entry.
    pub fn forget(&self, id: i64) -> Result<bool, FkError> {
        let Some(mut guard) = self.lock(false)? else {
            return Ok(false);
        };
        let conn = guard.as_mut().expect("connected");
        let run = |conn: &mut Connection| -> rusqlite::Result<bool> {
            conn.pragma_update(None, "secure_delete", "ON")?;
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let gone = tx.execute("DELETE FROM entries WHERE id = ?1", params![id])? > 0;
            if gone {
                // Undos and redos that named it stay, for the record, naming nothing.
                tx.execute(
                    "UPDATE entries SET target = NULL WHERE target = ?1",
                    params![id],
                )?;
                tx.execute(
                    "UPDATE entries SET undone_by = NULL WHERE undone_by = ?1",
                    params![id],
                )?;
                free_unused_blobs(&tx)?;
            }
            tx.commit()?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            Ok(gone)
        };
        run(conn).map_err(|e| db_error(&self.path, e))
    }

    /// Records one entry and returns its id.
    pub fn record(
        &self,
        tool: &str,
        summary: &str,
        kind: EntryKind,
        target: Option<i64>,
        changes: &[Change],
    ) -> Result<i64, FkError> {
        // Hashing and compressing every content is most of the work for a large change set:
        // done on all cores before the database is locked.
        let prepared: Vec<PreparedChange> = changes.par_iter().map(PreparedChange::of).collect();
        self.record_prepared(tool, summary, kind, target, &prepared)
    }

    /// [`History::record`] of changes whose contents are already stored form: a writer of
    /// many files prepares each as it plans it, and need not keep every file's bytes until
    /// the record.
    pub fn record_prepared(
        &self,
        tool: &str,
        summary: &str,
        kind: EntryKind,
        target: Option<i64>,
        changes: &[PreparedChange],
    ) -> Result<i64, FkError> {
        let mut guard = self.lock(true)?.expect("created on demand");
        let conn = guard.as_mut().expect("opened");
        let path = &self.path;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| db_error(path, e))?;
        let time = rfc3339(SystemTime::now());
        tx.execute(
            "INSERT INTO entries(time, tool, summary, kind, target) VALUES(?1, ?2, ?3, ?4, ?5)",
            params![time, tool, summary, kind.as_str(), target],
        )
        .map_err(|e| db_error(path, e))?;
        let id = tx.last_insert_rowid();
        if let Some(t) = target {
            tx.execute(
                "UPDATE entries SET undone_by = ?1 WHERE id = ?2",
                params![id, t],
            )
            .map_err(|e| db_error(path, e))?;
        }
        let mut added: i64 = 0;
        for (seq, c) in changes.iter().enumerate() {
            let ((bk, bb, bm, bl), before) =
                store_node(&tx, &c.before, None, &mut added).map_err(|e| db_error(path, e))?;
            let ((ak, ab, am, al), _) =
                store_node(&tx, &c.after, before, &mut added).map_err(|e| db_error(path, e))?;
            tx.prepare_cached(
                "INSERT INTO changes VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    id,
                    seq as i64,
                    c.path.to_string_lossy(),
                    bk,
                    bb,
                    bm,
                    bl,
                    ak,
                    ab,
                    am,
                    al
                ])
            })
            .map_err(|e| db_error(path, e))?;
        }
        tx.execute(
            "UPDATE meta SET value = value + ?1 WHERE key = 'stored_bytes'",
            params![added],
        )
        .map_err(|e| db_error(path, e))?;
        prune(&tx, self.cap_bytes, id).map_err(|e| db_error(path, e))?;
        tx.commit().map_err(|e| db_error(path, e))?;
        Ok(id)
    }

    /// Entries, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<EntryInfo>, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Ok(Vec::new());
        };
        let conn = guard.as_ref().expect("opened");
        let path = &self.path;
        let limit = filter.limit.unwrap_or(50) as i64;
        let ids: Vec<i64> = match &filter.path {
            Some(p) => {
                let exact = p.to_string_lossy().into_owned();
                let under = format!("{}/%", exact.trim_end_matches('/'));
                let mut st = conn
                    .prepare(
                        "SELECT DISTINCT entry FROM changes WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\'
                         ORDER BY entry DESC LIMIT ?3",
                    )
                    .map_err(|e| db_error(path, e))?;
                st.query_map(params![exact, like_escape(&under), limit], |r| r.get(0))
                    .and_then(|rows| rows.collect::<Result<Vec<i64>, _>>())
                    .map_err(|e| db_error(path, e))?
            }
            None => {
                let mut st = conn
                    .prepare("SELECT id FROM entries ORDER BY id DESC LIMIT ?1")
                    .map_err(|e| db_error(path, e))?;
                st.query_map(params![limit], |r| r.get(0))
                    .and_then(|rows| rows.collect::<Result<Vec<i64>, _>>())
                    .map_err(|e| db_error(path, e))?
            }
        };
        ids.into_iter()
            .map(|id| entry_info(conn, id).map_err(|e| db_error(path, e)))
            .collect::<Result<Vec<Option<EntryInfo>>, _>>()
            .map(|v| v.into_iter().flatten().collect())
    }

    /// One entry, or NOT_FOUND naming the entries there are.
    pub fn entry(&self, id: i64) -> Result<EntryInfo, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Err(self.no_entry(None, id));
        };
        let conn = guard.as_ref().expect("opened");
        entry_info(conn, id)
            .map_err(|e| db_error(&self.path, e))?
            .ok_or_else(|| self.no_entry(Some(conn), id))
    }

    fn no_entry(&self, conn: Option<&Connection>, id: i64) -> FkError {
        let range: Option<(i64, i64)> = conn.and_then(|conn| {
            conn.query_row("SELECT min(id), max(id) FROM entries", [], |r| {
                Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?))
            })
            .ok()
            .flatten()
        });
        let hint = match range {
            Some((lo, hi)) => format!(
                "the history holds entries {lo} to {hi} (older ones may have been pruned); list them with `history`"
            ),
            None => "the history is empty: nothing has been recorded yet".to_string(),
        };
        FkError::new(
            ErrorCode::NotFound,
            format!("there is no history entry {id}"),
        )
        .with_hint(hint)
    }

    /// The changes of one entry, with their full before and after states.
    pub fn changes(&self, id: i64) -> Result<Vec<Change>, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Err(self.no_entry(None, id));
        };
        let conn = guard.as_ref().expect("opened");
        let path = &self.path;
        if entry_info(conn, id)
            .map_err(|e| db_error(path, e))?
            .is_none()
        {
            return Err(self.no_entry(Some(conn), id));
        }
        let mut st = conn
            .prepare(
                "SELECT path, before_kind, before_blob, before_mode, before_link,
                        after_kind, after_blob, after_mode, after_link
                 FROM changes WHERE entry = ?1 ORDER BY seq",
            )
            .map_err(|e| db_error(path, e))?;
        let rows = st
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    (r.get::<_, String>(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                    (r.get::<_, String>(5)?, r.get(6)?, r.get(7)?, r.get(8)?),
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| db_error(path, e))?;
        rows.into_iter()
            .map(|(p, b, a)| {
                Ok(Change {
                    path: PathBuf::from(p),
                    before: load_node(conn, b).map_err(|e| db_error(path, e))?,
                    after: load_node(conn, a).map_err(|e| db_error(path, e))?,
                })
            })
            .collect()
    }

    /// One entry's paths with a unified diff of each text file.
    pub fn show(&self, id: i64) -> Result<(EntryInfo, Vec<PathChange>), FkError> {
        let info = self.entry(id)?;
        let changes = self.changes(id)?;
        let shown = changes
            .iter()
            .map(|c| PathChange {
                path: c.path.display().to_string(),
                before: c.before.kind(),
                after: c.after.kind(),
                diff: text_diff(c),
            })
            .collect();
        Ok((info, shown))
    }

    /// The newest entry that `undo` with no id would undo: a change or redo not undone.
    pub fn last_undoable(&self, skip: usize) -> Result<Option<i64>, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Ok(None);
        };
        let conn = guard.as_ref().expect("opened");
        conn.query_row(
            "SELECT id FROM entries WHERE kind != 'undo' AND undone_by IS NULL
             ORDER BY id DESC LIMIT 1 OFFSET ?1",
            params![skip as i64],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| db_error(&self.path, e))
    }

    /// The newest undo that has not been redone (what `redo` with no id redoes), provided
    /// no change was recorded after it.
    pub fn last_redoable(&self) -> Result<Option<i64>, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Ok(None);
        };
        let conn = guard.as_ref().expect("opened");
        conn.query_row(
            "SELECT id FROM entries WHERE kind = 'undo' AND undone_by IS NULL
             AND id > coalesce((SELECT max(id) FROM entries WHERE kind = 'change'), 0)
             ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| db_error(&self.path, e))
    }

    /// Stored (compressed) bytes of contents.
    pub fn stored_bytes(&self) -> Result<u64, FkError> {
        let Some(guard) = self.lock(false)? else {
            return Ok(0);
        };
        let conn = guard.as_ref().expect("opened");
        conn.query_row("SELECT value FROM meta WHERE key='stored_bytes'", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|v| v.max(0) as u64)
        .map_err(|e| db_error(&self.path, e))
    }

    /// The stored contents whose `content_hash` starts with `prefix` (lowercase hex, as
    /// [`crate::hash::validate`] accepts), each checked against its hash: at most two
    /// distinct versions, enough to tell one from an ambiguous prefix. A history that cannot
    /// be read finds none.
    pub fn versions_named(&self, prefix: &str) -> Vec<(String, Vec<u8>)> {
        let Ok(Some(guard)) = self.lock(false) else {
            return Vec::new();
        };
        let conn = guard.as_ref().expect("opened");
        // Hex digits sort before 'g': every hash with the prefix lies in [prefix, prefix+'g').
        let found = conn
            .prepare_cached(
                "SELECT chash, min(id) FROM blobs WHERE chash >= ?1 AND chash < ?2
                 GROUP BY chash LIMIT 2",
            )
            .and_then(|mut st| {
                st.query_map(params![prefix, format!("{prefix}g")], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .unwrap_or_default();
        found
            .into_iter()
            .filter_map(|(h, id)| {
                let bytes = load_blob(conn, id).ok()?;
                (crate::hash::content_hash(&bytes) == h).then_some((h, bytes))
            })
            .collect()
    }
}

fn like_escape(s: &str) -> String {
    // Only the part before the final `/%` comes from the path.
    let (body, tail) = s.split_at(s.len() - 2);
    let mut out = String::with_capacity(s.len());
    for ch in body.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out.push_str(tail);
    out
}

fn entry_info(conn: &Connection, id: i64) -> rusqlite::Result<Option<EntryInfo>> {
    let row = conn
        .query_row(
            "SELECT id, time, tool, summary, kind, target, undone_by FROM entries WHERE id = ?1",
            params![id],
            |r| {
                Ok(EntryInfo {
                    id: r.get(0)?,
                    time: r.get(1)?,
                    tool: r.get(2)?,
                    summary: r.get(3)?,
                    kind: EntryKind::parse(&r.get::<_, String>(4)?),
                    target: r.get(5)?,
                    undone_by: r.get(6)?,
                    paths: Vec::new(),
                })
            },
        )
        .optional()?;
    let Some(mut info) = row else { return Ok(None) };
    let mut st = conn.prepare_cached("SELECT path FROM changes WHERE entry = ?1 ORDER BY seq")?;
    info.paths = st
        .query_map(params![id], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(Some(info))
}

fn text_diff(c: &Change) -> String {
    let text = |n: &Node| match n {
        Node::File { bytes, .. } => std::str::from_utf8(bytes).ok().map(str::to_string),
        Node::Absent => Some(String::new()),
        _ => None,
    };
    let (Some(old), Some(new)) = (text(&c.before), text(&c.after)) else {
        return String::new();
    };
    if old == new {
        return String::new();
    }
    let name = c.path.display().to_string();
    diff::unified_texts(&old, &new, &name, &name).0
}

/// Records a committed change set in the workspace's history, if it has one; a failure
/// becomes the history's warning. Returns the entry id.
pub fn record_commit(
    ws: &crate::Workspace,
    tool: &str,
    summary: &str,
    kind: EntryKind,
    target: Option<i64>,
    changes: &[Change],
) -> Option<i64> {
    record_in(ws, changes.is_empty(), |history| {
        history.record(tool, summary, kind, target, changes)
    })
}

/// [`record_commit`] of changes prepared by their writer (a `Change` entry of the history).
pub fn record_prepared_commit(
    ws: &crate::Workspace,
    tool: &str,
    summary: &str,
    changes: &[PreparedChange],
) -> Option<i64> {
    record_in(ws, changes.is_empty(), |history| {
        history.record_prepared(tool, summary, EntryKind::Change, None, changes)
    })
}

/// Runs `record` on the workspace's history unless there is none or nothing changed. Returns
/// the entry id, or `None` with a failure kept as the history's warning (a history that
/// fails never fails a write).
fn record_in(
    ws: &crate::Workspace,
    nothing_changed: bool,
    record: impl FnOnce(&History) -> Result<i64, FkError>,
) -> Option<i64> {
    let history = ws.history()?;
    if nothing_changed {
        return None;
    }
    record(history).map_err(|e| history.warn(&e)).ok()
}

/// A one-line summary of a change set: `edited 2 files: src/a.rs, src/b.rs`.
pub fn summarize(ws: &crate::Workspace, verb: &str, changes: &[Change]) -> String {
    let paths: Vec<&Path> = changes
        .iter()
        .filter(|c| !matches!((&c.before, &c.after), (Node::Absent, Node::Dir { .. })))
        .map(|c| c.path.as_path())
        .collect();
    summarize_paths(ws, verb, &paths)
}

/// [`summarize`] of the changed `paths` (absolute; directories made for them left out).
pub fn summarize_paths(ws: &crate::Workspace, verb: &str, paths: &[&Path]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .map(|p| {
            ws.roots()
                .iter()
                .find_map(|r| p.strip_prefix(r).ok())
                .unwrap_or(p)
                .display()
                .to_string()
        })
        .collect();
    let n = shown.len();
    let mut names = shown.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if n > 3 {
        names.push_str(&format!(" and {} more", n - 3));
    }
    format!(
        "{verb} {n} {}: {names}",
        if n == 1 { "path" } else { "paths" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables as schema version 1 made them (before `blobs.chash`).
    const SCHEMA_1: &str = "
        CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE entries(id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL,
            tool TEXT NOT NULL, summary TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER,
            undone_by INTEGER);
        CREATE TABLE blobs(id INTEGER PRIMARY KEY, hash BLOB NOT NULL, size INTEGER NOT NULL,
            stored INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE INDEX blobs_by_hash ON blobs(hash);
        CREATE TABLE changes(entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, path TEXT NOT NULL,
            before_kind TEXT NOT NULL, before_blob INTEGER, before_mode INTEGER, before_link TEXT,
            after_kind TEXT NOT NULL, after_blob INTEGER, after_mode INTEGER, after_link TEXT,
            PRIMARY KEY(entry, seq));
        CREATE INDEX changes_by_path ON changes(path);
        INSERT INTO meta VALUES('schema', 1), ('stored_bytes', 0);";

    fn file(text: &str) -> Node {
        Node::File {
            bytes: text.as_bytes().to_vec(),
            mode: 0o644,
        }
    }

    /// An entry recorded by an older filekit: `/a.txt` created with blob 1's content.
    fn old_entry_of_blob_1(conn: &Connection) {
        conn.execute(
            "INSERT INTO entries(time, tool, summary, kind) VALUES('t', 'edit', 'old entry', 'change')",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO changes VALUES(1, 0, '/a.txt', 'absent', NULL, NULL, NULL, 'file', 1, 420, NULL)",
            [],
        )
        .unwrap();
    }

    #[test]
    fn a_schema_1_history_is_migrated_and_keeps_its_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(SCHEMA_1)
            .unwrap();
        // An entry recorded the old way: its blob has no content hash.
        {
            let conn = Connection::open(&path).unwrap();
            let data = lz4_flex::compress_prepend_size(b"old\n");
            conn.execute(
                "INSERT INTO blobs(hash, size, stored, data) VALUES(x'00', 4, ?1, ?2)",
                params![data.len() as i64, data],
            )
            .unwrap();
            old_entry_of_blob_1(&conn);
        }
        let h = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        let old = crate::hash::content_hash(b"old\n");
        assert!(h.versions_named(&old).is_empty());
        assert_eq!(h.list(&ListFilter::default()).unwrap().len(), 1);
        let change = Change {
            path: PathBuf::from("/a.txt"),
            before: file("old\n"),
            after: file("new\n"),
        };
        h.record("edit", "new entry", EntryKind::Change, None, &[change])
            .unwrap();
        let new = crate::hash::content_hash(b"new\n");
        assert_eq!(
            h.versions_named(&new[..8]),
            vec![(new.clone(), b"new\n".to_vec())]
        );
        // Opened again (another process): already at version 2.
        let again = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        assert_eq!(again.list(&ListFilter::default()).unwrap().len(), 2);
        assert_eq!(again.versions_named(&new).len(), 1);
    }

    #[test]
    fn compressed_contents_come_back_whole() {
        // Small and large inputs through one thread's reused buffer and table (which grows
        // from the small kind to the large one and does not shrink back).
        let large: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for input in [
            &b"short text\n"[..],
            &large,
            b"",
            b"again short after a large one",
        ] {
            let data = compress(input);
            assert_eq!(lz4_flex::decompress_size_prepended(&data).unwrap(), input);
            assert_eq!(data[..4], (input.len() as u32).to_le_bytes());
        }
    }

    #[test]
    fn a_prefix_shared_by_two_versions_names_both() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::open(&dir.path().join("h.db"), DEFAULT_CAP_BYTES).unwrap();
        // Find two contents whose hashes share their first hex digit.
        let texts: Vec<String> = (0..64).map(|i| format!("text {i}\n")).collect();
        let hashes: Vec<String> = texts
            .iter()
            .map(|t| crate::hash::content_hash(t.as_bytes()))
            .collect();
        let (i, j) = (0..64)
            .flat_map(|i| (i + 1..64).map(move |j| (i, j)))
            .find(|&(i, j)| hashes[i][..1] == hashes[j][..1])
            .unwrap();
        let changes: Vec<Change> = [i, j]
            .iter()
            .map(|&k| Change {
                path: PathBuf::from(format!("/f{k}")),
                before: Node::Absent,
                after: file(&texts[k]),
            })
            .collect();
        h.record("edit", "two", EntryKind::Change, None, &changes)
            .unwrap();
        assert_eq!(h.versions_named(&hashes[i][..1]).len(), 2);
        assert_eq!(h.versions_named(&hashes[i]).len(), 1);
        let mut other = hashes[i].clone();
        let last = if other.ends_with('0') { "1" } else { "0" };
        other.replace_range(15.., last);
        assert!(other != hashes[j]);
        assert!(h.versions_named(&other).is_empty());
    }

    #[test]
    fn encoded_splices_apply_back_and_damaged_ones_are_refused() {
        let base = b"alpha beta gamma\n";
        let splices: Vec<(usize, usize, &[u8])> = vec![
            (0, 5, b"ALPHA"),
            (6, 6, b"new "),
            (11, 16, b""),
            (17, 17, b"tail\n"),
        ];
        let encoded = encode_splices(splices.iter().copied());
        let want = b"ALPHA new beta \ntail\n";
        assert_eq!(
            apply_encoded(base, &encoded, want.len()).as_deref(),
            Some(&want[..])
        );
        // Shifted as for a file with a BOM before its text.
        let bom = [b"\xEF\xBB\xBF".as_slice(), base].concat();
        let shifted = encode_splices(splices.iter().map(|&(s, e, t)| (s + 3, e + 3, t)));
        assert_eq!(
            apply_encoded(&bom, &shifted, want.len() + 3).unwrap(),
            [b"\xEF\xBB\xBF".as_slice(), want].concat()
        );
        assert_eq!(
            apply_encoded(base, &[], base.len()).as_deref(),
            Some(&base[..])
        );
        // Damaged: cut short, past the end of the base, of another size, numbers too long.
        assert_eq!(
            apply_encoded(base, &encoded[..encoded.len() - 1], want.len()),
            None
        );
        assert_eq!(apply_encoded(b"alpha", &encoded, want.len()), None);
        assert_eq!(apply_encoded(base, &encoded, want.len() + 1), None);
        assert_eq!(apply_encoded(base, &[0xff; 12], 0), None);
        let far = encode_splices([(40usize, 41usize, &b"x"[..])].into_iter());
        assert_eq!(apply_encoded(base, &far, base.len()), None);
    }

    /// A change of `old` into `new` with `new` stored as splices of `old`.
    fn spliced_change(path: &str, old: &str, splices: &[(usize, usize, &str)]) -> PreparedChange {
        let owned = filekit_splices::Splices::new(
            old,
            splices
                .iter()
                .map(|(s, e, t)| filekit_splices::Splice::new(*s, *e, *t))
                .collect(),
        )
        .unwrap();
        let new = owned.apply(old).unwrap();
        PreparedChange {
            path: PathBuf::from(path),
            before: PreparedNode::File {
                content: StoredContent::of(old.as_bytes()),
                mode: 0o644,
            },
            after: PreparedNode::File {
                content: StoredContent::spliced(new.as_bytes(), None, &owned, 0),
                mode: 0o644,
            },
        }
    }

    fn after_text(h: &History, id: i64) -> String {
        match &h.changes(id).unwrap()[0].after {
            Node::File { bytes, .. } => String::from_utf8(bytes.clone()).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn chains_of_splices_stop_at_the_most_depth_and_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let h = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        let mut text = "line\n".repeat(500);
        let mut ids = Vec::new();
        let mut texts = Vec::new();
        for i in 0..(2 * MAX_DEPTH + 3) as usize {
            let at = i * 5;
            let change = spliced_change("/f.txt", &text, &[(at, at + 4, "LINE")]);
            ids.push(
                h.record_prepared("edit", "one line", EntryKind::Change, None, &[change])
                    .unwrap(),
            );
            text.replace_range(at..at + 4, "LINE");
            texts.push(text.clone());
        }
        for (id, want) in ids.iter().zip(&texts) {
            assert_eq!(&after_text(&h, *id), want);
        }
        let conn = Connection::open(&path).unwrap();
        let (spliced, deepest, whole): (i64, i64, i64) = conn
            .query_row(
                "SELECT count(base), max(depth), count(*) - count(base) FROM blobs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(deepest, MAX_DEPTH);
        // The first before, and one whole content each time a chain was full.
        assert_eq!(whole, 3);
        assert_eq!(spliced, 2 * MAX_DEPTH + 1);
        // The first content again: found among the stored ones, whatever their form.
        let back = spliced_change("/f.txt", &texts[0], &[(0, 4, "line")]);
        let undo_like = h
            .record_prepared("edit", "back", EntryKind::Change, None, &[back])
            .unwrap();
        let blobs: i64 = conn
            .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            blobs,
            2 * MAX_DEPTH + 4,
            "both contents were stored already"
        );
        assert_eq!(after_text(&h, undo_like), "line\n".repeat(500));
    }

    #[test]
    fn pruning_keeps_a_content_while_another_is_built_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        // Room for a few whole contents that do not compress, not for all of them.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let noise: String = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 90) as u8)
            })
            .collect();
        let h = History::open(&path, 60_000).unwrap();
        let mut text = noise.clone();
        let mut kept = Vec::new();
        for i in 0..40usize {
            let at = i * 7;
            let change = spliced_change("/f.txt", &text, &[(at, at + 3, "abc")]);
            let id = h
                .record_prepared("edit", "e", EntryKind::Change, None, &[change])
                .unwrap();
            text.replace_range(at..at + 3, "abc");
            kept.push((id, text.clone()));
        }
        let listed = h
            .list(&ListFilter {
                path: None,
                limit: Some(100),
            })
            .unwrap();
        assert!(listed.len() < 40, "some entries were pruned");
        for info in &listed {
            let want = &kept.iter().find(|(id, _)| *id == info.id).unwrap().1;
            assert_eq!(&after_text(&h, info.id), want, "entry {}", info.id);
        }
        let conn = Connection::open(&path).unwrap();
        let stored: i64 = conn
            .query_row("SELECT coalesce(sum(stored), 0) FROM blobs", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(
            stored as u64,
            h.stored_bytes().unwrap(),
            "the count of stored bytes is kept"
        );
        assert!(stored <= 60_000, "{stored}");
        // No blob is kept that nothing needs: each is named by a change or built on.
        let orphans: i64 = conn
            .query_row(
                "SELECT count(*) FROM blobs WHERE id NOT IN
                   (SELECT before_blob FROM changes WHERE before_blob IS NOT NULL
                    UNION SELECT after_blob FROM changes WHERE after_blob IS NOT NULL
                    UNION SELECT base FROM blobs WHERE base IS NOT NULL)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0);
    }

    #[test]
    fn a_damaged_chain_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let h = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        let id = h
            .record_prepared(
                "edit",
                "e",
                EntryKind::Change,
                None,
                &[spliced_change("/f.txt", "abc\n", &[(0, 1, "A")])],
            )
            .unwrap();
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE blobs SET base = id WHERE base IS NOT NULL", [])
            .unwrap();
        let err = h.changes(id).unwrap_err();
        assert!(err.message.contains("damaged history"), "{}", err.message);
    }

    #[test]
    fn a_reader_of_whole_contents_only_fails_on_splices_rather_than_misread_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let h = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        let text: String = (0..300).map(|i| format!("line {i}\n")).collect();
        let cases: [&[(usize, usize, &str)]; 4] = [
            &[(0, 0, "x")],
            &[(5, 9, "")],
            &[
                (0, 4, "LINE"),
                (100, 120, "a longer replacement text, repeated, repeated"),
            ],
            &[(text.len(), text.len(), "appended\n")],
        ];
        for splices in cases {
            h.record_prepared(
                "edit",
                "e",
                EntryKind::Change,
                None,
                &[spliced_change("/f.txt", &text, splices)],
            )
            .unwrap();
        }
        let conn = Connection::open(&path).unwrap();
        let mut st = conn
            .prepare("SELECT data FROM blobs WHERE base IS NOT NULL")
            .unwrap();
        let spliced: Vec<Vec<u8>> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(spliced.len(), 4);
        for data in spliced {
            // What a schema-2 filekit does with a blob.
            assert!(lz4_flex::decompress_size_prepended(&data).is_err());
        }
    }

    #[test]
    fn a_schema_2_history_is_migrated_and_its_contents_stay_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_1).unwrap();
            conn.execute_batch(
                "ALTER TABLE blobs ADD COLUMN chash TEXT; UPDATE meta SET value = 2 WHERE key = 'schema';",
            )
            .unwrap();
            let data = lz4_flex::compress_prepend_size(b"old\n");
            conn.execute(
                "INSERT INTO blobs(hash, size, stored, data, chash) VALUES(x'00', 4, ?1, ?2, ?3)",
                params![data.len() as i64, data, crate::hash::content_hash(b"old\n")],
            )
            .unwrap();
            old_entry_of_blob_1(&conn);
        }
        let h = History::open(&path, DEFAULT_CAP_BYTES).unwrap();
        assert_eq!(after_text(&h, 1), "old\n");
        let old = crate::hash::content_hash(b"old\n");
        assert_eq!(
            h.versions_named(&old),
            vec![(old.clone(), b"old\n".to_vec())]
        );
        // A new content built on the old whole one.
        let id = h
            .record_prepared(
                "edit",
                "new",
                EntryKind::Change,
                None,
                &[spliced_change("/a.txt", "old\n", &[(0, 3, "new")])],
            )
            .unwrap();
        assert_eq!(after_text(&h, id), "new\n");
        let new = crate::hash::content_hash(b"new\n");
        assert_eq!(
            h.versions_named(&new),
            vec![(new.clone(), b"new\n".to_vec())]
        );
        let schema: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(schema, SCHEMA_VERSION);
    }
}
