//! The store of contents: each distinct content once, LZ4-compressed, or as the splices of
//! the content before it (a chain at most `MAX_DEPTH` long); pruning the oldest entries past
//! the cap, and freeing the contents no entry uses.
//!
//! A file too large to hold (streamed) is stored by its edited ranges only: each side of
//! its change (kind `ranges`) is its size, its `content_hash` and the splices that make it
//! of the other side, whose bytes are the file's. Such a side is no version of the file
//! (its `chash` is empty): it is only undone and redone, over the file as the change left it.

use super::*;
use crate::content::RangeEdit;

pub(super) type NodeRow = (&'static str, Option<i64>, Option<i64>, Option<String>);

/// A file's content as the history stores it: its hashes and its LZ4 form.
#[derive(Debug)]
pub struct StoredContent {
    /// Finds candidates for deduplication (the contents are compared).
    hash: [u8; 16],
    /// The `content_hash` agents know the version by.
    chash: String,
    size: usize,
    form: StoredForm,
}

#[derive(Debug)]
pub(super) enum StoredForm {
    /// The LZ4 form of the bytes.
    Whole(Vec<u8>),
    /// The LZ4 form of [`encode_splices`] of the content before it in the same change: only
    /// an "after" has this form.
    SplicesOfBefore(Vec<u8>),
    /// The LZ4 form of a streamed file's side of a change ([`encode_ranges`]).
    Ranges(Vec<u8>),
}

impl StoredContent {
    pub fn of(bytes: &[u8]) -> StoredContent {
        StoredContent::with_content_hash(bytes, None)
    }

    /// Like [`StoredContent::of`], given the bytes' `content_hash` if the caller has already
    /// worked it out (a planned write knows its old and new versions): one pass over them less.
    pub fn with_content_hash(bytes: &[u8], known: Option<String>) -> StoredContent {
        StoredContent::hashed(bytes, known, StoredForm::Whole(compress(bytes)))
    }

    /// The content `bytes` of an edit's "after", stored as `splices` of its "before": each
    /// splice replaces the before's bytes `start + shift .. end + shift` (`shift` skips a
    /// byte order mark before the text the splices edit). The caller guarantees that they
    /// make `bytes` of it.
    pub fn spliced(
        bytes: &[u8],
        known: Option<String>,
        splices: &filekit_splices::Splices,
        shift: usize,
    ) -> StoredContent {
        let encoded = encode_splices(
            splices
                .iter()
                .map(|s| (s.start + shift, s.end + shift, s.text.as_bytes())),
        );
        StoredContent::hashed(
            bytes,
            known,
            StoredForm::SplicesOfBefore([&SPLICES_MARK[..], &compress(&encoded)].concat()),
        )
    }

    /// Both sides of a change of a streamed file, by its edited ranges: `file` is the file as
    /// read with the edits (`old` holds the bytes each replaced), `before` its size and
    /// `content_hash`, `new_hash` the hash of the result.
    pub fn ranges_pair(
        file: &crate::content::SplicedFile,
        old: Vec<Vec<u8>>,
        before: (u64, String),
        new_hash: String,
    ) -> (StoredContent, StoredContent) {
        let edits = file.edits();
        // The ranges of the result that the edits wrote, and what they replaced.
        let mut shift: i64 = 0;
        let back: Vec<RangeEdit> = edits
            .iter()
            .zip(old)
            .map(|(e, old)| {
                let start = (e.start as i64 + shift) as u64;
                shift += e.text.len() as i64 - (e.end - e.start) as i64;
                RangeEdit {
                    start,
                    end: start + e.text.len() as u64,
                    text: old,
                }
            })
            .collect();
        (
            StoredContent::ranges(before.0, &before.1, &back),
            StoredContent::ranges(file.result_len(), &new_hash, edits),
        )
    }

    /// One side of a streamed file's change: `size` bytes of `content_hash` `chash`, made of
    /// the other side by `edits`.
    pub fn ranges(size: u64, chash: &str, edits: &[RangeEdit]) -> StoredContent {
        let payload = encode_ranges(size, chash, edits);
        StoredContent {
            hash: xxhash_rust::xxh3::xxh3_128(&payload).to_le_bytes(),
            chash: chash.to_string(),
            size: payload.len(),
            form: StoredForm::Ranges(compress(&payload)),
        }
    }

    /// Whether this is a side of a streamed file's change ([`StoredContent::ranges`]).
    pub(super) fn is_ranges(&self) -> bool {
        matches!(self.form, StoredForm::Ranges(_))
    }

    fn hashed(bytes: &[u8], known: Option<String>, form: StoredForm) -> StoredContent {
        let chash = known.unwrap_or_else(|| crate::hash::content_hash(bytes));
        debug_assert_eq!(chash, crate::hash::content_hash(bytes));
        StoredContent {
            hash: xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes(),
            chash,
            size: bytes.len(),
            form,
        }
    }
}

/// A streamed file's side of a change as its blob holds it: its size (8 bytes), its
/// `content_hash` (16 hex digits), then [`encode_splices`] of the edits that make it of the
/// other side.
fn encode_ranges(size: u64, chash: &str, edits: &[RangeEdit]) -> Vec<u8> {
    let mut out = size.to_le_bytes().to_vec();
    let mut h = [b'0'; 16];
    let given = chash.as_bytes();
    h[..given.len().min(16)].copy_from_slice(&given[..given.len().min(16)]);
    out.extend_from_slice(&h);
    out.extend(encode_splices(
        edits
            .iter()
            .map(|e| (e.start as usize, e.end as usize, e.text.as_slice())),
    ));
    out
}

/// [`encode_ranges`] read back: the size, the hash and the edits; `None` for data that is
/// not one (a damaged database).
fn decode_ranges(data: &[u8]) -> Option<(u64, String, Vec<RangeEdit>)> {
    let size = u64::from_le_bytes(data.get(..8)?.try_into().ok()?);
    let chash = std::str::from_utf8(data.get(8..24)?).ok()?.to_string();
    let mut rest = data.get(24..)?;
    let mut edits = Vec::new();
    let mut at: u64 = 0;
    while !rest.is_empty() {
        let start = at.checked_add(leb128(&mut rest)?)?;
        let end = start.checked_add(leb128(&mut rest)?)?;
        let len = usize::try_from(leb128(&mut rest)?).ok()?;
        let text = rest.get(..len)?.to_vec();
        rest = &rest[len..];
        edits.push(RangeEdit { start, end, text });
        at = end;
    }
    Some((size, chash, edits))
}

/// One LEB128 number of [`encode_splices`], taken from the front of `input`.
fn leb128(input: &mut &[u8]) -> Option<u64> {
    let mut n: u64 = 0;
    for shift in (0..u64::BITS).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        n |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

/// What the data of a blob of splices starts with: the LZ4 form (size first) of no bytes, which
/// the splices after it do not fit. A filekit that reads only whole contents (schema 2, still
/// running in another process when this one migrated the database) then fails to decompress
/// such a blob, instead of taking the splices for the content and writing them on an undo.
pub(super) const SPLICES_MARK: [u8; 4] = [0; 4];

/// Splices as a blob with a base stores them: for each, in order, the bytes kept since the
/// previous one, the bytes removed and the bytes inserted (three LEB128 numbers), then the
/// inserted bytes.
pub(super) fn encode_splices<'a>(
    splices: impl Iterator<Item = (usize, usize, &'a [u8])>,
) -> Vec<u8> {
    fn number(out: &mut Vec<u8>, mut n: usize) {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end, text) in splices {
        debug_assert!(at <= start && start <= end, "splices in order");
        number(&mut out, start - at);
        number(&mut out, end - start);
        number(&mut out, text.len());
        out.extend_from_slice(text);
        at = end;
    }
    out
}

/// `base` with the [`encode_splices`] form `encoded` applied: a content of `size` bytes, or
/// `None` if `encoded` does not fit `base` (a damaged database).
pub(super) fn apply_encoded(base: &[u8], mut encoded: &[u8], size: usize) -> Option<Vec<u8>> {
    fn number(input: &mut &[u8]) -> Option<usize> {
        let mut n: usize = 0;
        for shift in (0..usize::BITS).step_by(7) {
            let (&byte, rest) = input.split_first()?;
            *input = rest;
            n |= usize::from(byte & 0x7f).checked_shl(shift)?;
            if byte < 0x80 {
                return Some(n);
            }
        }
        None
    }
    let mut out = Vec::with_capacity(size);
    let mut at: usize = 0;
    while !encoded.is_empty() {
        let start = at.checked_add(number(&mut encoded)?)?;
        let end = start.checked_add(number(&mut encoded)?)?;
        let len = number(&mut encoded)?;
        out.extend_from_slice(base.get(at..start)?);
        out.extend_from_slice(encoded.get(..len)?);
        base.get(start..end)?;
        encoded = &encoded[len..];
        at = end;
    }
    out.extend_from_slice(base.get(at..)?);
    (out.len() == size).then_some(out)
}

/// What is at a path, with a file's content in stored form (see [`History::record_prepared`]).
#[derive(Debug)]
pub enum PreparedNode {
    Absent,
    File { content: StoredContent, mode: u32 },
    Dir { mode: u32 },
    Symlink { target: PathBuf },
}

impl PreparedNode {
    pub fn of(node: &Node) -> PreparedNode {
        match node {
            Node::Absent => PreparedNode::Absent,
            Node::File { bytes, mode } => PreparedNode::File {
                content: StoredContent::of(bytes),
                mode: *mode,
            },
            Node::Ranges {
                size,
                hash,
                mode,
                edits,
            } => PreparedNode::File {
                content: StoredContent::ranges(*size, hash, edits),
                mode: *mode,
            },
            Node::Dir { mode } => PreparedNode::Dir { mode: *mode },
            Node::Symlink { target } => PreparedNode::Symlink {
                target: target.clone(),
            },
        }
    }
}

/// One path's change, its contents in stored form. `path` is absolute.
#[derive(Debug)]
pub struct PreparedChange {
    pub path: PathBuf,
    pub before: PreparedNode,
    pub after: PreparedNode,
}

impl PreparedChange {
    pub fn of(c: &Change) -> PreparedChange {
        PreparedChange {
            path: c.path.clone(),
            before: PreparedNode::of(&c.before),
            after: PreparedNode::of(&c.after),
        }
    }
}

/// `bytes` in LZ4 block form after their length (what `lz4_flex::compress_prepend_size`
/// gives). Each thread keeps its output buffer and hash table: a new buffer of the largest
/// possible output, and a new table, for each of thousands of files was most of the cost.
pub(crate) fn compress(bytes: &[u8]) -> Vec<u8> {
    use lz4_flex::block::{CompressTable, compress_into_with_table, get_maximum_output_size};
    thread_local! {
        static SCRATCH: std::cell::RefCell<(Vec<u8>, CompressTable)> =
            std::cell::RefCell::new((Vec::new(), CompressTable::default()));
    }
    SCRATCH.with_borrow_mut(|(out, table)| {
        let most = get_maximum_output_size(bytes.len());
        if out.len() < most {
            out.resize(most, 0);
        }
        let n = compress_into_with_table(bytes, out, table)
            .expect("the output buffer holds the largest output");
        let mut data = Vec::with_capacity(4 + n);
        data.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        data.extend_from_slice(&out[..n]);
        data
    })
}

/// A stored blob: its row and how many blobs its content is built through.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlobRef {
    id: i64,
    depth: i64,
}

/// Stores `node`; a file's content that is splices of the content before it is stored on
/// `before`, the blob of that content. Returns its row's values and its blob.
pub(super) fn store_node(
    conn: &Connection,
    node: &PreparedNode,
    before: Option<BlobRef>,
    added: &mut i64,
) -> rusqlite::Result<(NodeRow, Option<BlobRef>)> {
    Ok(match node {
        PreparedNode::Absent => (("absent", None, None, None), None),
        PreparedNode::Dir { mode } => (("dir", None, Some(*mode as i64), None), None),
        PreparedNode::Symlink { target } => (
            (
                "symlink",
                None,
                None,
                Some(target.to_string_lossy().into_owned()),
            ),
            None,
        ),
        PreparedNode::File { content, mode } if content.is_ranges() => {
            let blob = store_blob(conn, content, None, added)?;
            (("ranges", Some(blob.id), Some(*mode as i64), None), None)
        }
        PreparedNode::File { content, mode } => {
            let blob = store_blob(conn, content, before, added)?;
            (
                ("file", Some(blob.id), Some(*mode as i64), None),
                Some(blob),
            )
        }
    })
}

/// The error for a database whose contents do not fit together.
pub(super) fn damaged(what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Blob,
        format!("damaged history: {what}").into(),
    )
}

pub(super) fn decompress(data: &[u8]) -> rusqlite::Result<Vec<u8>> {
    lz4_flex::decompress_size_prepended(data).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Blob, Box::new(e))
    })
}

/// The encoded splices of a blob with a base (see [`SPLICES_MARK`]).
pub(super) fn splices_of(data: &[u8]) -> rusqlite::Result<Vec<u8>> {
    match data.strip_prefix(&SPLICES_MARK[..]) {
        Some(rest) => decompress(rest),
        None => Err(damaged(
            "a content built on another without the mark of one",
        )),
    }
}

/// Stores `content` once: an equal content already stored is reused (the hash only finds
/// candidates; the contents are compared). Splices of the content before (`before`) are
/// stored as they are unless that would make a chain longer than [`MAX_DEPTH`].
pub(super) fn store_blob(
    conn: &Connection,
    content: &StoredContent,
    before: Option<BlobRef>,
    added: &mut i64,
) -> rusqlite::Result<BlobRef> {
    let (data, base) = match &content.form {
        StoredForm::Whole(data) | StoredForm::Ranges(data) => (data, None),
        StoredForm::SplicesOfBefore(data) => match before {
            Some(b) => (data, Some(b)),
            None => return Err(damaged("the splices of a content that was not stored")),
        },
    };
    // Our bytes, made only if a candidate is stored in another form.
    let ours = || -> rusqlite::Result<Vec<u8>> {
        match base {
            None => decompress(data),
            Some(b) => apply_encoded(&load_blob(conn, b.id)?, &splices_of(data)?, content.size)
                .ok_or_else(|| damaged("splices that do not fit their base")),
        }
    };
    let candidates: Vec<(i64, i64, Option<i64>, Vec<u8>)> = conn
        .prepare_cached("SELECT id, depth, base, data FROM blobs WHERE hash = ?1 AND size = ?2")?
        .query_map(params![&content.hash[..], content.size as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut our_bytes: Option<Vec<u8>> = None;
    for (id, depth, their_base, their_data) in candidates {
        let same = (their_base == base.map(|b| b.id) && their_data == *data) || {
            if our_bytes.is_none() {
                our_bytes = Some(ours()?);
            }
            load_blob(conn, id).is_ok_and(|theirs| Some(&theirs) == our_bytes.as_ref())
        };
        if same {
            return Ok(BlobRef { id, depth });
        }
    }
    // A streamed file's side is no version of it: not found by its content hash.
    let chash = (!content.is_ranges()).then_some(&content.chash);
    let mut insert = |data: &[u8], base: Option<BlobRef>| -> rusqlite::Result<BlobRef> {
        let depth = base.map_or(0, |b| b.depth + 1);
        conn.prepare_cached(
            "INSERT INTO blobs(hash, size, stored, data, chash, base, depth)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            &content.hash[..],
            content.size as i64,
            data.len() as i64,
            data,
            chash,
            base.map(|b| b.id),
            depth
        ])?;
        *added += data.len() as i64;
        Ok(BlobRef {
            id: conn.last_insert_rowid(),
            depth,
        })
    };
    match base {
        Some(b) if b.depth >= MAX_DEPTH => {
            let whole = match our_bytes {
                Some(bytes) => bytes,
                None => ours()?,
            };
            insert(&compress(&whole), None)
        }
        _ => insert(data, base),
    }
}

/// The content of blob `id`: decompressed, and built on its bases if it has any.
pub(super) fn load_blob(conn: &Connection, id: i64) -> rusqlite::Result<Vec<u8>> {
    // From the blob asked for down to one stored whole.
    let mut chain: Vec<(Vec<u8>, usize)> = Vec::new();
    let mut next = Some(id);
    while let Some(id) = next {
        if chain.len() as i64 > MAX_DEPTH {
            return Err(damaged(
                "a chain of contents longer than any filekit stores",
            ));
        }
        let (data, size, base): (Vec<u8>, i64, Option<i64>) = conn
            .prepare_cached("SELECT data, size, base FROM blobs WHERE id = ?1")?
            .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        chain.push((data, usize::try_from(size).unwrap_or(usize::MAX)));
        next = base;
    }
    let (whole, _) = chain.pop().expect("at least the blob asked for");
    let mut bytes = decompress(&whole)?;
    while let Some((data, size)) = chain.pop() {
        bytes = apply_encoded(&bytes, &splices_of(&data)?, size)
            .ok_or_else(|| damaged("splices that do not fit their base"))?;
    }
    Ok(bytes)
}

pub(super) fn load_node(
    conn: &Connection,
    (kind, blob, mode, link): (String, Option<i64>, Option<i64>, Option<String>),
) -> rusqlite::Result<Node> {
    let mode = mode.unwrap_or(0o644) as u32;
    Ok(match kind.as_str() {
        "file" => Node::File {
            bytes: load_blob(conn, blob.unwrap_or(-1))?,
            mode,
        },
        "ranges" => {
            let data = load_blob(conn, blob.unwrap_or(-1))?;
            let (size, hash, edits) =
                decode_ranges(&data).ok_or_else(|| damaged("the ranges of a streamed file"))?;
            Node::Ranges {
                size,
                hash,
                mode,
                edits,
            }
        }
        "dir" => Node::Dir { mode },
        "symlink" => Node::Symlink {
            target: PathBuf::from(link.unwrap_or_default()),
        },
        _ => Node::Absent,
    })
}

/// Deletes the oldest entries (never `keep`) until the stored bytes are under the cap.
pub(super) fn prune(conn: &Connection, cap: u64, keep: i64) -> rusqlite::Result<()> {
    loop {
        let stored: i64 =
            conn.query_row("SELECT value FROM meta WHERE key='stored_bytes'", [], |r| {
                r.get(0)
            })?;
        if stored <= cap as i64 {
            return Ok(());
        }
        let oldest: Option<i64> = conn.query_row(
            "SELECT min(id) FROM entries WHERE id != ?1",
            params![keep],
            |r| r.get(0),
        )?;
        let Some(oldest) = oldest else { return Ok(()) };
        conn.execute("DELETE FROM entries WHERE id = ?1", params![oldest])?;
        free_unused_blobs(conn)?;
    }
}

/// Deletes the blobs no change names, and counts their bytes out of `stored_bytes`. A blob
/// another is built on stays while that one does; once it goes, its base goes in a later round.
pub(super) fn free_unused_blobs(conn: &Connection) -> rusqlite::Result<()> {
    const UNUSED: &str = "id NOT IN
           (SELECT before_blob FROM changes WHERE before_blob IS NOT NULL
            UNION SELECT after_blob FROM changes WHERE after_blob IS NOT NULL
            UNION SELECT base FROM blobs WHERE base IS NOT NULL)";
    loop {
        let freed: i64 = conn.query_row(
            &format!("SELECT coalesce(sum(stored), 0) FROM blobs WHERE {UNUSED}"),
            [],
            |r| r.get(0),
        )?;
        if conn.execute(&format!("DELETE FROM blobs WHERE {UNUSED}"), [])? == 0 {
            return Ok(());
        }
        conn.execute(
            "UPDATE meta SET value = value - ?1 WHERE key = 'stored_bytes'",
            params![freed],
        )?;
    }
}
