//! The history database itself: opening it (WAL mode, a busy timeout), its tables, and the
//! migrations of older schema versions.

use super::{BUSY_TIMEOUT, SCHEMA_VERSION, db_error};
use crate::error::FkError;
use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

/// Puts the database in WAL mode, which lets readers and one writer work at once across
/// processes. The mode is kept in the file, so only its first user changes it. SQLite
/// answers "database is locked" to a journal mode pragma without calling the busy handler
/// while another process creates the file or opens its WAL, so the wait is done here.
fn use_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        let attempt = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))
            .and_then(|mode| {
                if mode.eq_ignore_ascii_case("wal") {
                    Ok(())
                } else {
                    conn.pragma_update(None, "journal_mode", "WAL")
                }
            });
        match attempt {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Opens the database at `path` (making its directory), in WAL mode with a busy timeout,
/// and creates or migrates its tables to [`SCHEMA_VERSION`].
pub(super) fn connect(path: &Path) -> Result<Connection, FkError> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        // Private: the history keeps copies of what was written, secrets included.
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| db_error(path, e))?;
    }
    // Made readable by its owner only before SQLite opens it: SQLite gives the database's
    // mode to the -wal and -shm files it makes beside it.
    match crate::state::write_private_file(path, b"") {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(db_error(path, e)),
    }
    // A link at the database's name is refused, never followed to another database.
    let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| db_error(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| db_error(path, e))?;
    use_wal(&conn).map_err(|e| db_error(path, e))?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(|e| db_error(path, e))?;
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
         CREATE TABLE IF NOT EXISTS entries(
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             time TEXT NOT NULL,
             tool TEXT NOT NULL,
             summary TEXT NOT NULL,
             kind TEXT NOT NULL,
             target INTEGER,
             undone_by INTEGER);
         CREATE TABLE IF NOT EXISTS blobs(
             id INTEGER PRIMARY KEY,
             hash BLOB NOT NULL,
             size INTEGER NOT NULL,
             stored INTEGER NOT NULL,
             data BLOB NOT NULL,
             chash TEXT,
             base INTEGER,
             depth INTEGER NOT NULL DEFAULT 0);
         CREATE INDEX IF NOT EXISTS blobs_by_hash ON blobs(hash);
         CREATE TABLE IF NOT EXISTS changes(
             entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
             seq INTEGER NOT NULL,
             path TEXT NOT NULL,
             before_kind TEXT NOT NULL, before_blob INTEGER, before_mode INTEGER, before_link TEXT,
             after_kind TEXT NOT NULL, after_blob INTEGER, after_mode INTEGER, after_link TEXT,
             PRIMARY KEY(entry, seq));
         CREATE INDEX IF NOT EXISTS changes_by_path ON changes(path);
         INSERT OR IGNORE INTO meta(key, value) VALUES('schema', 4);
         INSERT OR IGNORE INTO meta(key, value) VALUES('stored_bytes', 0);
         COMMIT;",
    )
    .map_err(|e| db_error(path, e))?;
    let schema_now = |conn: &Connection| -> rusqlite::Result<i64> {
        conn.query_row("SELECT value FROM meta WHERE key='schema'", [], |r| {
            r.get(0)
        })
    };
    let mut schema = schema_now(&conn).map_err(|e| db_error(path, e))?;
    if (1..=3).contains(&schema) {
        // Blobs stored before version 2 have no content hash: they are not found as
        // versions, which only makes an edit on them stale, as a pruned version would.
        // Blobs stored before version 3 are all whole. Checked again under the write
        // lock: another process may have migrated first.
        let migrate = |conn: &mut Connection| -> rusqlite::Result<i64> {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            if schema_now(&tx)? == 1 {
                tx.execute_batch(
                    "ALTER TABLE blobs ADD COLUMN chash TEXT;
                     UPDATE meta SET value = 2 WHERE key = 'schema';",
                )?;
            }
            if schema_now(&tx)? == 2 {
                tx.execute_batch(
                    "ALTER TABLE blobs ADD COLUMN base INTEGER;
                     ALTER TABLE blobs ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
                     UPDATE meta SET value = 3 WHERE key = 'schema';",
                )?;
            }
            if schema_now(&tx)? == 3 {
                tx.execute_batch("UPDATE meta SET value = 4 WHERE key = 'schema';")?;
            }
            let now = schema_now(&tx)?;
            tx.commit()?;
            Ok(now)
        };
        schema = migrate(&mut conn).map_err(|e| db_error(path, e))?;
    }
    if schema != SCHEMA_VERSION {
        return Err(db_error(
            path,
            format!("it has schema version {schema}; this filekit reads version {SCHEMA_VERSION}"),
        ));
    }
    conn.execute_batch("CREATE INDEX IF NOT EXISTS blobs_by_chash ON blobs(chash);")
        .map_err(|e| db_error(path, e))?;
    Ok(conn)
}
