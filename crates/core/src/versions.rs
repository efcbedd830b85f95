//! The version store: the content of every version of a file that filekit served in a read
//! or wrote in a commit, addressed by its `content_hash`.
//!
//! An agent that edits from what it read names that version (`base_hash`, or the
//! `content_hash` of a line edit). When the file changed since, the pipeline finds the
//! version here and merges the agent's edits into the file as it is now ([`crate::merge`]),
//! instead of refusing them or writing them blindly.
//!
//! Two layers:
//! - memory: an LRU bounded in bytes ([`DEFAULT_MEMORY_BYTES`]); a long-lived server answers
//!   most look-ups from it;
//! - disk: `versions/<hash>` (LZ4) in the workspace's state directory ([`crate::state`], never
//!   in the tree), written when a version is recorded (files larger than [`LARGE_BYTES`] go
//!   only there), so that a version a `filekit call` process served is known to the next
//!   process and to a running server. The folder is pruned oldest first past
//!   [`DEFAULT_DISK_BYTES`]: each process measures it before its first write and keeps the
//!   count, so the cap holds across processes.
//!
//! The store is a cache: a version that is missing or damaged (checked against its hash on
//! load) only means an edit based on it is refused as `STALE`, as without the store. A file
//! there that is a link, a FIFO or a device, or larger than a version may be, is no version.

use crate::hash;
use crate::history::History;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes of versions kept in memory by default.
pub const DEFAULT_MEMORY_BYTES: usize = 64 << 20;
/// Bytes of compressed versions kept on disk by default.
pub const DEFAULT_DISK_BYTES: u64 = 256 << 20;
/// Versions larger than this are kept on disk only.
pub const LARGE_BYTES: usize = 1 << 20;
/// Versions larger than this are not kept at all (reads stream such files anyway).
pub const MAX_VERSION_BYTES: usize = 16 << 20;

struct Entry {
    bytes: Arc<Vec<u8>>,
    tick: u64,
}

#[derive(Default)]
struct Memory {
    entries: HashMap<String, Entry>,
    /// tick -> hash, oldest first.
    order: BTreeMap<u64, String>,
    bytes: usize,
    tick: u64,
}

impl Memory {
    fn touch(&mut self, h: &str) -> Option<Arc<Vec<u8>>> {
        self.tick += 1;
        let tick = self.tick;
        let e = self.entries.get_mut(h)?;
        self.order.remove(&e.tick);
        e.tick = tick;
        self.order.insert(tick, h.to_string());
        Some(Arc::clone(&e.bytes))
    }

    fn insert(&mut self, h: String, bytes: Arc<Vec<u8>>, cap: usize) {
        if self.touch(&h).is_some() {
            return;
        }
        self.tick += 1;
        self.bytes += bytes.len();
        self.order.insert(self.tick, h.clone());
        self.entries.insert(
            h,
            Entry {
                bytes,
                tick: self.tick,
            },
        );
        while self.bytes > cap {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.bytes.len();
            }
        }
    }

    fn find_prefix(&self, prefix: &str) -> Vec<String> {
        self.entries
            .keys()
            .filter(|k| hash::matches(prefix, k))
            .cloned()
            .collect()
    }
}

/// The store of one workspace (see the module documentation).
pub struct Versions {
    memory: Mutex<Memory>,
    memory_cap: usize,
    /// `versions/` of the workspace's state; `None` keeps versions in memory only.
    dir: Option<PathBuf>,
    disk_cap: u64,
    /// Bytes in the folder as this process counts them: measured before its first write,
    /// then kept up to date by its own writes and prunes (`None` until measured).
    disk_bytes: Mutex<Option<u64>>,
}

impl std::fmt::Debug for Versions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Versions").field("dir", &self.dir).finish()
    }
}

/// What a look-up of a caller's hash found.
#[derive(Debug, Clone)]
pub enum Lookup {
    Found {
        hash: String,
        bytes: Arc<Vec<u8>>,
    },
    /// No stored version has this hash.
    Unknown,
    /// The prefix names several stored versions.
    Ambiguous(Vec<String>),
}

impl Versions {
    /// A store kept in `dir` (and in memory).
    pub fn on_disk(dir: PathBuf) -> Versions {
        Versions::with_limits(Some(dir), DEFAULT_MEMORY_BYTES, DEFAULT_DISK_BYTES)
    }

    /// A store in memory only (a read-only workspace, tests).
    pub fn in_memory() -> Versions {
        Versions::with_limits(None, DEFAULT_MEMORY_BYTES, 0)
    }

    pub fn with_limits(dir: Option<PathBuf>, memory_cap: usize, disk_cap: u64) -> Versions {
        Versions {
            memory: Mutex::new(Memory::default()),
            memory_cap,
            dir,
            disk_cap,
            disk_bytes: Mutex::new(None),
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Keeps `bytes`, whose content hash is `h` (computed when `None`).
    pub fn record(&self, bytes: &[u8], h: Option<&str>) {
        self.keep(bytes, h, true);
    }

    /// Keeps a version that the history also holds (a commit it recorded): in memory only,
    /// since [`Versions::lookup`] finds it in the history when memory no longer has it.
    /// A commit of thousands of files then writes no file per version.
    pub fn record_in_memory(&self, bytes: &[u8], h: Option<&str>) {
        self.keep(bytes, h, false);
    }

    fn keep(&self, bytes: &[u8], h: Option<&str>, on_disk: bool) {
        if bytes.len() > MAX_VERSION_BYTES {
            return;
        }
        let h = h.map_or_else(|| hash::content_hash(bytes), str::to_string);
        let known = self.memory.lock().map(|mut m| m.touch(&h).is_some());
        if known.unwrap_or(false) {
            return;
        }
        // Large versions go to disk only, unless there is no disk.
        if (bytes.len() <= LARGE_BYTES || self.dir.is_none() || !on_disk)
            && let Ok(mut m) = self.memory.lock()
        {
            m.insert(h.clone(), Arc::new(bytes.to_vec()), self.memory_cap);
        }
        if on_disk {
            self.write_disk(&h, bytes);
        }
    }

    /// The version a caller's hash (full or a prefix of 8+ hex digits) names, in this store
    /// or among the contents `history` recorded.
    pub fn lookup(&self, given: &str, history: Option<&History>) -> Lookup {
        let given = given.trim().to_ascii_lowercase();
        if hash::validate(&given).is_err() {
            return Lookup::Unknown;
        }
        let mut names = self
            .memory
            .lock()
            .map(|m| m.find_prefix(&given))
            .unwrap_or_default();
        for n in self.disk_names(&given) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let mut recorded = history.map_or_else(Vec::new, |h| h.versions_named(&given));
        for (n, _) in &recorded {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        match names.len() {
            0 => Lookup::Unknown,
            1 => {
                let h = names.pop().expect("one");
                if let Some(bytes) = self.load(&h) {
                    return Lookup::Found { hash: h, bytes };
                }
                match recorded.iter().position(|(n, _)| *n == h) {
                    Some(i) => {
                        let bytes = Arc::new(recorded.swap_remove(i).1);
                        if let Ok(mut m) = self.memory.lock() {
                            m.insert(h.clone(), Arc::clone(&bytes), self.memory_cap);
                        }
                        Lookup::Found { hash: h, bytes }
                    }
                    None => Lookup::Unknown,
                }
            }
            _ => {
                names.sort();
                Lookup::Ambiguous(names)
            }
        }
    }

    fn load(&self, h: &str) -> Option<Arc<Vec<u8>>> {
        if let Some(b) = self.memory.lock().ok().and_then(|mut m| m.touch(h)) {
            return Some(b);
        }
        let path = self.dir.as_ref()?.join(h);
        let data = crate::state::read_state_file(&path, MAX_STORED_BYTES)?;
        let bytes = decompress_bounded(&data, MAX_VERSION_BYTES)?;
        if hash::content_hash(&bytes) != h {
            // Damaged: forget it.
            let _ = std::fs::remove_file(&path);
            return None;
        }
        let bytes = Arc::new(bytes);
        if bytes.len() <= LARGE_BYTES
            && let Ok(mut m) = self.memory.lock()
        {
            m.insert(h.to_string(), Arc::clone(&bytes), self.memory_cap);
        }
        Some(bytes)
    }

    fn disk_names(&self, prefix: &str) -> Vec<String> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        if prefix.len() == 16 {
            return if std::fs::symlink_metadata(dir.join(prefix)).is_ok_and(|m| m.is_file()) {
                vec![prefix.to_string()]
            } else {
                Vec::new()
            };
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        rd.filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.len() == 16 && hash::matches(prefix, n))
            .collect()
    }

    fn write_disk(&self, h: &str, bytes: &[u8]) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(h);
        if std::fs::symlink_metadata(&path).is_ok() {
            return;
        }
        // Copies of project files: readable by their owner only.
        {
            use std::os::unix::fs::DirBuilderExt;
            if std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .is_err()
            {
                return;
            }
        }
        let data = crate::history::compress(bytes);
        let mut counted = self.disk_bytes.lock().unwrap_or_else(|e| e.into_inner());
        let before = match *counted {
            Some(n) => n,
            None => folder_bytes(dir),
        };
        if crate::state::replace_private_file(&path, &data).is_err() {
            *counted = Some(before);
            return;
        }
        let after = before + data.len() as u64;
        *counted = Some(if after > self.disk_cap {
            self.prune_to_cap()
        } else {
            after
        });
    }

    /// Removes the oldest versions on disk until the folder is under its cap.
    pub fn prune(&self) {
        let total = self.prune_to_cap();
        if let Ok(mut counted) = self.disk_bytes.lock() {
            *counted = Some(total);
        }
    }

    /// Prunes and returns the bytes left in the folder. Only files named as versions (and
    /// temporary files of versions) are counted and removed: nothing else is the store's.
    fn prune_to_cap(&self) -> u64 {
        let Some(dir) = &self.dir else { return 0 };
        let mut files = version_files(dir);
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        if total <= self.disk_cap {
            return total;
        }
        files.sort();
        for (_, len, path) in files {
            if total <= self.disk_cap {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        total
    }
}

/// Compressed versions are never larger than this (LZ4's worst case on the largest version).
const MAX_STORED_BYTES: u64 = MAX_VERSION_BYTES as u64 + MAX_VERSION_BYTES as u64 / 200 + 64;

/// LZ4 with its size in front, refused when that size is over `max` before any memory is
/// asked for it.
fn decompress_bounded(data: &[u8], max: usize) -> Option<Vec<u8>> {
    let size = u32::from_le_bytes(data.get(..4)?.try_into().ok()?) as usize;
    if size > max {
        return None;
    }
    lz4_flex::decompress_size_prepended(data).ok()
}

/// The store's own files in `dir` (named as a version, or a version's temporary file; regular
/// files only): modification time, size, path.
fn version_files(dir: &Path) -> Vec<(std::time::SystemTime, u64, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            (name.len() == 16 && hash::validate(&name).is_ok())
                || (name.starts_with('.') && name.ends_with(".tmp"))
        })
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            m.is_file().then_some(())?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect()
}

fn folder_bytes(dir: &Path) -> u64 {
    version_files(dir).iter().map(|f| f.1).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_is_bounded_and_lru() {
        let v = Versions::with_limits(None, 10, 0);
        v.record(b"aaaa", None);
        v.record(b"bbbb", None);
        // Touch a, then add c: b is the oldest and goes.
        assert!(matches!(
            v.lookup(&hash::content_hash(b"aaaa"), None),
            Lookup::Found { .. }
        ));
        v.record(b"cccc", None);
        assert!(matches!(
            v.lookup(&hash::content_hash(b"bbbb"), None),
            Lookup::Unknown
        ));
        assert!(matches!(
            v.lookup(&hash::content_hash(b"aaaa")[..8], None),
            Lookup::Found { .. }
        ));
    }

    #[test]
    fn disk_survives_a_new_store_and_damage_is_detected() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("state").join("versions");
        let h = hash::content_hash(b"hello\n");
        Versions::on_disk(dir.clone()).record(b"hello\n", None);
        {
            use std::os::unix::fs::PermissionsExt;
            for p in [dir.join(&h), dir.clone()] {
                let mode = std::fs::metadata(&p).unwrap().permissions().mode();
                assert_eq!(mode & 0o077, 0, "{} {mode:o}", p.display());
            }
        }
        match Versions::on_disk(dir.clone()).lookup(&h[..10], None) {
            Lookup::Found { bytes, .. } => assert_eq!(&bytes[..], b"hello\n"),
            other => panic!("{other:?}"),
        }
        std::fs::write(dir.join(&h), lz4_flex::compress_prepend_size(b"other\n")).unwrap();
        assert!(matches!(
            Versions::on_disk(dir.clone()).lookup(&h, None),
            Lookup::Unknown
        ));
        assert!(!dir.join(&h).exists());
    }

    #[test]
    fn large_versions_stay_in_memory_when_there_is_no_disk() {
        let big = vec![b'x'; LARGE_BYTES + 1];
        let v = Versions::in_memory();
        v.record(&big, None);
        assert!(matches!(
            v.lookup(&hash::content_hash(&big), None),
            Lookup::Found { .. }
        ));
        let d = tempfile::tempdir().unwrap();
        let v = Versions::on_disk(d.path().join("v"));
        v.record(&big, None);
        assert!(v.memory.lock().unwrap().entries.is_empty());
        assert!(matches!(
            v.lookup(&hash::content_hash(&big), None),
            Lookup::Found { .. }
        ));
    }

    fn bytes_in(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    }

    #[test]
    fn disk_stays_under_its_cap_after_every_write() {
        let d = tempfile::tempdir().unwrap();
        let v = Versions::with_limits(Some(d.path().join("v")), 0, 2000);
        for i in 0..200 {
            v.record(format!("version {i} {}\n", "x".repeat(i)).as_bytes(), None);
            let total = bytes_in(&d.path().join("v"));
            assert!(total <= 2000, "after {i}: {total}");
        }
    }

    #[test]
    fn the_cap_holds_across_stores_of_one_folder() {
        // Each `filekit call` process has a store of its own over the same folder: one that
        // counted only its own writes would let the folder grow by a cap per process.
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("v");
        for i in 0..100 {
            let v = Versions::with_limits(Some(dir.clone()), 0, 3000);
            v.record(
                format!("process {i} {}\n", "y".repeat(100 + i)).as_bytes(),
                None,
            );
            let total = bytes_in(&dir);
            assert!(total <= 3000, "after process {i}: {total}");
        }
    }

    #[test]
    fn special_and_oversized_files_are_no_versions() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("v");
        std::fs::create_dir(&dir).unwrap();
        let v = Versions::on_disk(dir.clone());
        // A FIFO named like a version: a look-up must not block on it.
        let fifo_hash = hash::content_hash(b"fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join(&fifo_hash),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(v.lookup(&fifo_hash, None), Lookup::Unknown));
        // A link to a real version's file is not followed.
        let real = tempfile::tempdir().unwrap();
        let other = Versions::on_disk(real.path().to_path_buf());
        other.record(b"secret\n", None);
        let secret = hash::content_hash(b"secret\n");
        std::os::unix::fs::symlink(real.path().join(&secret), dir.join(&secret)).unwrap();
        assert!(matches!(v.lookup(&secret, None), Lookup::Unknown));
        // A header that claims 4 GiB asks for no memory.
        let huge = hash::content_hash(b"huge");
        let mut data = u32::MAX.to_le_bytes().to_vec();
        data.extend_from_slice(&[0; 16]);
        std::fs::write(dir.join(&huge), data).unwrap();
        assert!(matches!(v.lookup(&huge, None), Lookup::Unknown));
    }
}
