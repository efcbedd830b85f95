//! Versioned reads of one or many files.
//!
//! Every successful read reports the whole file's `content_hash` and `last_modified`, so an
//! agent can hand the version back with a line edit. A read of a line range also reports the
//! range's own hash, computed exactly as the edit pipeline recomputes it (see [`TextRead`]).
//! Images come back as images when asked for; other binary files are described, not shown.
//! A read returns at most [`MAX_READ_BYTES`] of text: one that would return more stops at a
//! whole line and says which line to read on from (`next_line`).
//!
//! Files above the workspace's bound ([`Workspace::max_file_size`]) are streamed, and a read
//! of one costs what its range costs: lines counted from the start are read from its start
//! to the last line asked for and no further; lines counted from the end are found by
//! reading backwards from its end, a window at a time, and numbered from the end
//! (`from_end`). Such a read has no whole-file version: no `content_hash`, no `total_lines`
//! unless the read went through the whole file, and its reply says so (`unversioned`, with
//! the size and the bound), so that nobody takes a merge or a `since_hash` for something
//! that applies to it. Edits of such a file name the lines they change by their
//! `range_hash`.

use crate::error::{ErrorCode, FkError, Limit, LimitFacts};
use crate::hash;
use crate::limits::{MAX_READ_BYTES, ReplyBudget};
use crate::text::{self, LineIndex, TextDoc};
use crate::workspace::{FileMeta, Workspace, rfc3339};
use base64::Engine as _;
use serde::Serialize;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;

/// How much of a file is inspected to tell text from binary (as [`text::is_binary`] does).
const HEAD_LEN: usize = 8192;

const CHUNK: usize = 1024 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// First line, 1-based; negative counts from the end (-1 is the last line). Default 1.
    pub start_line: Option<i64>,
    /// Last line, inclusive; negative counts from the end. Default: the last line.
    pub end_line: Option<i64>,
    /// Return images as images (MIME + base64) rather than describing them.
    pub images: bool,
    /// Cap on returned lines (None = no cap); when cut, `truncated` is set.
    pub max_lines: Option<usize>,
    /// The version the caller already has (`content_hash`, or 8+ hex digits of it): a text
    /// file that still has it comes back `unchanged` with no content; one that changed comes
    /// back as a unified diff from that version (of the whole file) when the workspace's
    /// version store holds it, else whole, with `since_unknown` set.
    pub since_hash: Option<String>,
    /// The text's encoding, when the caller names it: the file is decoded in it, not in the
    /// one detected (see [`crate::encoding`]).
    pub encoding: Option<&'static encoding_rs::Encoding>,
}

/// The result of reading one file.
///
/// Serialized as `{"path", "resolved_path"?, "success": true, "kind", ...content fields}` or
/// `{"path", "resolved_path"?, "success": false, "error": {"code", "message", "hint"?}}`.
#[derive(Debug, Clone)]
pub struct FileRead {
    /// The path as the caller gave it.
    pub path: String,
    /// The absolute path of the real file, when the path could be resolved.
    pub resolved_path: Option<String>,
    pub result: Result<ReadContent, FkError>,
}

impl FileRead {
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }

    pub fn error(&self) -> Option<&FkError> {
        self.result.as_ref().err()
    }

    pub fn text(&self) -> Option<&TextRead> {
        match &self.result {
            Ok(ReadContent::Text(t)) => Some(t),
            _ => None,
        }
    }
}

impl Serialize for FileRead {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Repr<'a> {
            path: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            resolved_path: Option<&'a str>,
            success: bool,
            #[serde(flatten)]
            content: Option<&'a ReadContent>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a FkError>,
        }
        Repr {
            path: &self.path,
            resolved_path: self.resolved_path.as_deref(),
            success: self.result.is_ok(),
            content: self.result.as_ref().ok(),
            error: self.result.as_ref().err(),
        }
        .serialize(s)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadContent {
    Text(TextRead),
    Image(ImageRead),
    Binary(BinaryRead),
}

#[derive(Debug, Clone, Serialize)]
pub struct TextRead {
    /// The selected lines exactly as in the file: no line numbers, BOM stripped, line
    /// terminators kept.
    pub content: String,
    /// First returned line (1-based); 1 for an empty read. Counted from the end (1 is the
    /// last line) when `from_end` is set.
    pub start_line: usize,
    /// Last returned line (inclusive); 0 when nothing was returned. Counted from the end
    /// when `from_end` is set.
    pub end_line: usize,
    /// The file's number of lines; `None` for a file too large to be read whole
    /// (`unversioned`) when the read did not go through all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<usize>,
    /// Hash of the whole file's raw bytes (BOM included); `None` for a file too large to be
    /// read whole (`unversioned`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    /// When a range was asked (or the read was truncated): hash of exactly the returned
    /// lines' text, terminators included, BOM excluded. Equals
    /// `hash::content_hash(&text[li.start(start_line)..li.end(end_line)])` for the decoded
    /// text and its [`LineIndex`] `li`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_hash: Option<String>,
    pub last_modified: String,
    /// Size of the file in bytes.
    pub size: u64,
    /// Whether the file starts with a UTF-8 byte order mark, which belongs to no line: its
    /// text is `size` less its 3 bytes long.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bom: bool,
    /// The file's encoding when it is not UTF-8 (`Shift_JIS`, `UTF-16LE`, `windows-1252`):
    /// `content` is its text decoded, and edits are written back in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<&'static str>,
    /// Set when the read stopped before the lines asked for ended: cut by `max_lines`, or at
    /// [`MAX_READ_BYTES`] of text; `next_line` says where to read on.
    pub truncated: bool,
    /// When `truncated`: the first line not returned, the start of the next read (negative,
    /// counted from the end, when the read was counted from the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_line: Option<i64>,
    /// A file over the bound read by lines counted from its end: `start_line` and `end_line`
    /// count from the end (1 is the last line, which a caller names -1), because its lines
    /// were not counted from its start.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub from_end: bool,
    /// With `since_hash`: the file is still that version; `content` is empty.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// With `since_hash`: the unified diff from that version to the file as it is;
    /// `content` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// With `since_hash`: the version is not one filekit kept, so the content is whole.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub since_unknown: bool,
    /// Set when the file is larger than the workspace's bound (the facts: `kind`
    /// `file_size`, `found` its size, `max` the bound): it was streamed and has no whole-file
    /// version (no `content_hash`; `since_hash` and merges do not apply to it). Its lines are
    /// edited by number, with the `range_hash` of a read of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unversioned: Option<LimitFacts>,
}

impl TextRead {
    /// The number a caller gives for `start_line`: negative when the read counted from the
    /// end.
    pub fn first_number(&self) -> i64 {
        signed(self.start_line, self.from_end)
    }

    /// The number a caller gives for `end_line` (see [`TextRead::first_number`]).
    pub fn last_number(&self) -> i64 {
        signed(self.end_line, self.from_end)
    }

    /// The content with its line numbers, `cat -n` style ([`text::number_lines`]): negative
    /// when the read counted from the end, as a caller names those lines.
    pub fn numbered(&self) -> String {
        if !self.from_end {
            return text::number_lines(&self.content, self.start_line);
        }
        let mut out = String::with_capacity(self.content.len() + self.content.len() / 4);
        for (i, line) in self.content.split_inclusive('\n').enumerate() {
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            let n = self.first_number() + i as i64;
            out.push_str(&format!("{n:>6}\t{line}\n"));
        }
        out
    }
}

fn signed(n: usize, from_end: bool) -> i64 {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    if from_end { -n } else { n }
}

#[derive(Debug, Clone, Serialize)]
pub struct ImageRead {
    pub mime: String,
    /// The file's bytes, base64 (standard alphabet, padded).
    pub data: String,
    pub size: u64,
    pub content_hash: String,
    pub last_modified: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BinaryRead {
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// What the file is, e.g. "binary file (ELF executable), 12345 bytes; not shown".
    pub description: String,
    /// `None` for a file larger than the workspace's bound (`unversioned`): it is not read
    /// whole to be hashed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    pub last_modified: String,
    /// As [`TextRead::unversioned`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unversioned: Option<LimitFacts>,
}

/// Reads one file. Never panics on bad input; every failure is in `result`.
pub fn read_file(ws: &Workspace, path: &str, opts: &ReadOptions) -> FileRead {
    read_file_within(ws, path, opts, &ReplyBudget::unlimited())
}

/// Reads one file as one part of a reply that `budget` bounds: the file is measured when it
/// is opened and not read when what it could return no longer fits (the first part of a
/// reply always does); then its `result` is the budget's `TOO_LARGE` refusal, saying to
/// read it in another call. What the read returns is charged; what it reserved beyond that is
/// given back.
pub fn read_file_within(
    ws: &Workspace,
    path: &str,
    opts: &ReadOptions,
    budget: &ReplyBudget,
) -> FileRead {
    let p = match ws.resolve(path) {
        Ok(p) => p,
        Err(e) => {
            return FileRead {
                path: path.to_string(),
                resolved_path: None,
                result: Err(e),
            };
        }
    };
    let shown = ws.display(&p);
    let result = ws.open(&p).and_then(|(file, meta)| {
        let reserved = reply_cost(meta.len);
        if !budget.reserve(reserved) {
            return Err(budget.refusal(
                &format!("{shown} was not read"),
                reserved,
                "read it in another call; the files before it in this call were read",
            ));
        }
        let read = read_open(ws, file, &meta, &shown, opts);
        budget.settle(reserved, read.as_ref().map_or(0, ReadContent::reply_bytes));
        read
    });
    FileRead {
        path: path.to_string(),
        resolved_path: Some(shown),
        result,
    }
}

/// Many files in one call, results in the order given; one file's failure never stops the
/// others. Together they are one reply: the workspace's [`ReplyBudget`] bounds them, and a
/// file past it is not read (its result says so).
pub fn read_files(ws: &Workspace, paths: &[String], opts: &ReadOptions) -> Vec<FileRead> {
    read_files_within(ws, paths, opts, &ws.reply_budget())
}

/// [`read_files`] as a part of a reply that `budget` bounds (a call that reads several
/// times, each time many files). Each file's entry is charged too, a failure with its
/// message; when the reply has no room for the next entry, one result stands for that file
/// and the rest ([`ReplyBudget::no_room_for_files`]), so the results are fewer than the paths.
pub fn read_files_within(
    ws: &Workspace,
    paths: &[String],
    opts: &ReadOptions,
    budget: &ReplyBudget,
) -> Vec<FileRead> {
    let mut reads = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        if let Some(rest) = budget.no_room_for_files(path, paths.len() - i - 1) {
            reads.push(FileRead {
                path: path.clone(),
                resolved_path: None,
                result: Err(rest),
            });
            break;
        }
        let read = read_file_within(ws, path, opts, budget);
        budget.charge(entry_bytes(path, &read.result));
        reads.push(read);
    }
    reads
}

/// What the entry of a file in a reply about many files costs beside its content: its path
/// and status, and a failure's message.
pub fn entry_bytes<T>(path: &str, result: &Result<T, FkError>) -> u64 {
    crate::limits::reply_entry_bytes(path)
        + result
            .as_ref()
            .err()
            .map_or(0, |e| e.full_message().len() as u64)
}

/// What a read of a file of `size` bytes is expected to put in a reply, reserved before it is
/// read: its text, at most the [`MAX_READ_BYTES`] one read returns. An image's base64 is a
/// third more, charged once it is made.
fn reply_cost(size: u64) -> u64 {
    size.min(MAX_READ_BYTES)
}

impl ReadContent {
    /// The bytes this read puts in a reply.
    pub fn reply_bytes(&self) -> u64 {
        match self {
            ReadContent::Text(t) => {
                (t.content.len() + t.diff.as_ref().map_or(0, String::len)) as u64
            }
            ReadContent::Image(i) => i.data.len() as u64,
            ReadContent::Binary(b) => b.description.len() as u64,
        }
    }
}

fn read_open(
    ws: &Workspace,
    mut file: File,
    meta: &FileMeta,
    shown: &str,
    opts: &ReadOptions,
) -> Result<ReadContent, FkError> {
    let io_err = |e: io::Error| FkError::from_io(&e, shown);
    let last_modified = rfc3339(meta.modified);
    let bound = ws.max_file_size();
    if meta.len > bound {
        return read_streamed(file, shown, opts, last_modified, meta.len, bound);
    }
    let mut bytes = Vec::with_capacity(meta.len as usize);
    file.by_ref()
        .take(bound + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > bound {
        // Grown past the bound since it was measured: read as the large file it now is.
        drop(bytes);
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        let size = file.metadata().map_err(io_err)?.len();
        return read_streamed(file, shown, opts, last_modified, size.max(bound + 1), bound);
    }
    let size = bytes.len() as u64;
    let content_hash = hash::content_hash(&bytes);

    // Text in an encoding the caller names is decoded in it (UTF-16 without a BOM has NULs).
    let named = opts.encoding.filter(|e| *e != encoding_rs::UTF_8);
    if named.is_none()
        && let Some(kind) = classify_nontext(&bytes, shown)?
    {
        return Ok(match kind {
            Kind::Image(img) if opts.images && size <= MAX_READ_BYTES => {
                ReadContent::Image(ImageRead {
                    mime: img.mime.to_string(),
                    data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                    size,
                    content_hash,
                    last_modified,
                })
            }
            kind => ReadContent::Binary(describe(&kind, size, Some(content_hash), last_modified)),
        });
    }

    let doc = TextDoc::decode_as(&bytes, opts.encoding, shown)?;
    let li = LineIndex::new(&doc.text);
    let mut sel = select(li.len(), opts, shown)?;
    // A version served: an edit made on it can be merged later.
    if let Some(store) = ws.versions() {
        store.record(&bytes, Some(&content_hash));
    }
    if let Some(since) = &opts.since_hash {
        hash::validate(since)
            .map_err(|m| FkError::invalid(m.replace("content_hash", "since_hash")))?;
        if hash::matches(since, &content_hash) {
            let mut read =
                sel.into_read(String::new(), li.len(), content_hash, last_modified, size);
            read.bom = doc.bom;
            read.encoding = doc.encoding();
            read.range_hash = None;
            read.unchanged = true;
            return Ok(ReadContent::Text(read));
        }
        let old = match ws
            .versions()
            .map(|v| v.lookup(since, ws.history().map(|h| &**h)))
        {
            Some(crate::versions::Lookup::Found { bytes, .. }) => {
                TextDoc::decode(&bytes, shown).ok()
            }
            _ => None,
        };
        if let Some(old) = old {
            let name = shown.trim_start_matches('/');
            let (diff, _) = crate::diff::unified_texts(
                &old.text,
                &doc.text,
                &format!("a/{name}"),
                &format!("b/{name}"),
            );
            let mut read =
                sel.into_read(String::new(), li.len(), content_hash, last_modified, size);
            read.bom = doc.bom;
            read.encoding = doc.encoding();
            read.range_hash = None;
            read.diff = Some(diff);
            return Ok(ReadContent::Text(read));
        }
        sel.cap_bytes(&li, shown)?;
        let content = sel.content(&doc.text, &li);
        let whole = sel.start == 1 && sel.end == li.len() && !sel.truncated;
        let mut read = sel.into_read(content, li.len(), content_hash, last_modified, size);
        read.bom = doc.bom;
        read.encoding = doc.encoding();
        read.since_unknown = true;
        if whole {
            read.range_hash = None;
        }
        return Ok(ReadContent::Text(read));
    }
    sel.cap_bytes(&li, shown)?;
    let content = sel.content(&doc.text, &li);
    let mut read = sel.into_read(content, li.len(), content_hash, last_modified, size);
    read.bom = doc.bom;
    read.encoding = doc.encoding();
    Ok(ReadContent::Text(read))
}

/// A file larger than the workspace's `bound`: the lines asked for, counted from its start
/// (read from the start to the last of them) or from its end (found reading backwards from
/// the end), at most [`MAX_READ_BYTES`] of them, with no whole-file hash.
fn read_streamed(
    mut file: File,
    shown: &str,
    opts: &ReadOptions,
    last_modified: String,
    size: u64,
    bound: u64,
) -> Result<ReadContent, FkError> {
    let io_err = |e: io::Error| FkError::from_io(&e, shown);
    let facts = LimitFacts::new(Limit::FileSize, size, bound);
    // Refuse bad arguments before a pass over a big file, not after.
    check_args(opts, 0, shown)?;
    let from_end = opts.start_line.is_some_and(|n| n < 0);
    if from_end != opts.end_line.is_some_and(|n| n < 0) && opts.end_line.is_some() {
        return Err(FkError::too_large(
            Limit::FileSize,
            size,
            bound,
            format!(
                "{shown} is {size} bytes, larger than the {bound} bytes filekit reads whole, so its lines are counted either from its start or from its end, not both: lines {}..{} mix the two",
                opts.start_line.unwrap_or(1),
                opts.end_line.unwrap_or(-1)
            ),
        )
        .with_hint("give both line numbers from the start (1 is the first line) or both from the end (-1 is the last line)"));
    }
    if let Some(since) = &opts.since_hash {
        hash::validate(since)
            .map_err(|m| FkError::invalid(m.replace("content_hash", "since_hash")))?;
    }
    let head = read_head(&mut file).map_err(io_err)?;
    if let Some(kind) = classify_nontext(&head, shown)? {
        let mut described = describe(&kind, size, None, last_modified);
        described.unversioned = Some(facts);
        return Ok(ReadContent::Binary(described));
    }
    let bom = head.starts_with(UTF8_BOM);
    let mut read = if from_end {
        read_from_end(&file, shown, opts, size, bom)?
    } else {
        read_from_start(&mut file, shown, opts, bom)?
    };
    read.last_modified = last_modified;
    read.size = size;
    read.bom = bom;
    read.since_unknown = opts.since_hash.is_some();
    read.unversioned = Some(facts);
    Ok(ReadContent::Text(read))
}

/// Lines counted from the start of a streamed file: read from its start to the last line
/// asked for.
fn read_from_start(
    file: &mut File,
    shown: &str,
    opts: &ReadOptions,
    bom: bool,
) -> Result<TextRead, FkError> {
    let first = opts.start_line.unwrap_or(1).max(1) as usize;
    let asked = opts.end_line.map_or(usize::MAX, |e| e as usize);
    let mut last = asked;
    if let Some(max) = opts.max_lines.filter(|m| *m > 0) {
        last = last.min(first.saturating_add(max - 1));
    }
    let scan = scan(file, shown, (first, last), bom)?;
    let content = String::from_utf8(scan.lines).map_err(|_| changed_while_reading(shown))?;
    let ranged = opts.start_line.is_some() || opts.end_line.is_some();
    let (start, end, total, truncated) = match scan.total_lines {
        // The read reached the end: the file's lines are known, and so is what the range
        // selects (or why it selects nothing), exactly as for a small file.
        Some(total) => {
            let sel = select(total, opts, shown)?;
            match scan.cut_after {
                Some(kept) => (sel.start, kept, Some(total), true),
                None => (sel.start, sel.end, Some(total), sel.truncated),
            }
        }
        None => match scan.cut_after {
            Some(kept) => (first, kept, None, true),
            // Stopped after `last`, which is before the end: more lines follow.
            None => (first, last, None, last < asked),
        },
    };
    let range_hash = (ranged || truncated).then(|| hash::content_hash(content.as_bytes()));
    let (start, end) = if end < start { (1, 0) } else { (start, end) };
    Ok(text_read(
        content,
        (start, end, false),
        total,
        range_hash,
        truncated.then(|| signed(end + 1, false)),
    ))
}

/// A text read of a streamed file, its version facts left for the caller to fill in.
/// `lines`: the first and last line returned, and whether they count from the end.
fn text_read(
    content: String,
    lines: (usize, usize, bool),
    total_lines: Option<usize>,
    range_hash: Option<String>,
    next_line: Option<i64>,
) -> TextRead {
    TextRead {
        content,
        start_line: lines.0,
        end_line: lines.1,
        total_lines,
        content_hash: None,
        range_hash,
        last_modified: String::new(),
        size: 0,
        bom: false,
        encoding: None,
        truncated: next_line.is_some(),
        next_line,
        from_end: lines.2,
        unchanged: false,
        diff: None,
        since_unknown: false,
        unversioned: None,
    }
}

/// Lines counted from the end of a streamed file (`start_line` negative, `end_line` negative
/// or none): their place found by reading backwards from the end, a window at a time,
/// counting line breaks; they are numbered from the end. A read that reaches the top of the
/// file has counted all its lines, and numbers them from the start as a small file's read
/// does.
fn read_from_end(
    file: &File,
    shown: &str,
    opts: &ReadOptions,
    size: u64,
    bom: bool,
) -> Result<TextRead, FkError> {
    let io_err = |e: io::Error| FkError::from_io(&e, shown);
    let first = opts.start_line.map_or(1, |n| n.unsigned_abs()) as usize;
    let asked_last = opts.end_line.map_or(1, |n| n.unsigned_abs()) as usize;
    if asked_last > first {
        return Err(FkError::invalid(format!(
            "lines {}..{} select nothing: the start (line -{first}) is after the end (line -{asked_last})",
            opts.start_line.unwrap_or(-1),
            opts.end_line.unwrap_or(-1)
        ))
        .with_hint("give the start first: -20..-1 are the last twenty lines"));
    }
    let body = if bom { UTF8_BOM.len() as u64 } else { 0 };
    let lines = lines_from_end(file, body, size, first, asked_last).map_err(io_err)?;
    // The lines to return, counted from the end (1 the last), and whether that is all the
    // range asked for.
    let (k_first, k_last, cut) = match lines.total {
        // The top was reached: the range selects exactly what it selects in a small file.
        Some(total) => {
            let sel = select(total, opts, shown)?;
            if sel.end == 0 {
                let empty = text_read(String::new(), (1, 0, false), Some(total), None, None);
                return Ok(empty);
            }
            (total + 1 - sel.start, total + 1 - sel.end, sel.truncated)
        }
        None => match opts.max_lines.filter(|m| *m > 0) {
            Some(max) if first - asked_last + 1 > max => (first, first + 1 - max, true),
            _ => (first, asked_last, false),
        },
    };
    let start_at = lines.start_of(k_first).unwrap_or(body);
    // At most MAX_READ_BYTES of it, cut after a whole line: an end not kept is further.
    let want = lines
        .end_of(k_last)
        .map_or(MAX_READ_BYTES + 1, |end| end.saturating_sub(start_at));
    let take = want.min(MAX_READ_BYTES);
    let mut bytes = vec![0u8; take as usize];
    file.read_exact_at(&mut bytes, start_at).map_err(io_err)?;
    let mut kept_last = k_last;
    if take < want {
        let Some(nl) = memchr::memrchr(b'\n', &bytes) else {
            return Err(FkError::too_large(
                Limit::FileSize,
                want,
                MAX_READ_BYTES,
                format!(
                    "line -{k_first} of {shown} is longer than the {MAX_READ_BYTES} bytes a read returns"
                ),
            )
            .with_hint("search the file for what you need in that line instead"));
        };
        bytes.truncate(nl + 1);
        let kept = memchr::memchr_iter(b'\n', &bytes).count();
        kept_last = k_first + 1 - kept;
    }
    let content = String::from_utf8(bytes).map_err(|e| {
        let at = start_at - body + e.utf8_error().valid_up_to() as u64;
        FkError::new(
            ErrorCode::Encoding,
            format!("{shown} is not valid UTF-8 (an invalid byte at offset {at})"),
        )
        .with_hint(
            "filekit reads UTF-8 text; convert the file to UTF-8 first (for example with iconv)",
        )
    })?;
    let range_hash = Some(hash::content_hash(content.as_bytes()));
    let more = cut || kept_last > k_last;
    Ok(match lines.total {
        Some(total) => {
            let (start, end) = (total + 1 - k_first, total + 1 - kept_last);
            let next = more.then(|| signed(end + 1, false));
            text_read(content, (start, end, false), Some(total), range_hash, next)
        }
        None => {
            let next = more.then(|| signed(kept_last - 1, true));
            text_read(content, (k_first, kept_last, true), None, range_hash, next)
        }
    })
}

/// The starts of the last lines of a file, found reading backwards from its end: those of
/// the lines a read may return (it returns at most [`MAX_READ_BYTES`], so no more lines than
/// that before the first one it returns, the furthest from the end) and of the line after
/// the last one asked for.
struct FromEnd {
    /// `starts[i]`: where line `-(low + i)` starts (after the line break before it).
    starts: std::collections::VecDeque<u64>,
    low: usize,
    /// Where line `-(last - 1)` starts, the end of line `-last`.
    after_last: Option<u64>,
    last: usize,
    /// Where the text starts (after a BOM) and ends.
    body: u64,
    size: u64,
    /// The file's lines, when the search reached its top.
    total: Option<usize>,
}

impl FromEnd {
    /// Where line `-k` starts (the top of the text for a line above the first); `None` for a
    /// line not kept (too far below the first line asked for to be returned).
    fn start_of(&self, k: usize) -> Option<u64> {
        if k == self.last.wrapping_sub(1) && self.after_last.is_some() {
            return self.after_last;
        }
        match k.checked_sub(self.low) {
            Some(i) if i < self.starts.len() => Some(self.starts[i]),
            Some(_) => Some(self.body),
            None => None,
        }
    }

    /// Where line `-k` ends, after its line break (`None`: see [`FromEnd::start_of`]).
    fn end_of(&self, k: usize) -> Option<u64> {
        if k <= 1 {
            Some(self.size)
        } else {
            self.start_of(k - 1)
        }
    }
}

/// The starts of the last `first` lines of the text `body..size` of `file` (those a read of
/// lines `-first..-last` needs), read backwards in windows of [`CHUNK`] bytes counting line
/// breaks: line `-k` starts after the `k`th break before the end, not counting the break that
/// ends the last line.
fn lines_from_end(
    file: &File,
    body: u64,
    size: u64,
    first: usize,
    last: usize,
) -> io::Result<FromEnd> {
    let mut last_byte = [0u8; 1];
    let ends_with_break = size > body && {
        file.read_exact_at(&mut last_byte, size - 1)?;
        last_byte[0] == b'\n'
    };
    // A read returns at most MAX_READ_BYTES, so no more lines than that after its first.
    let keep = MAX_READ_BYTES as usize + 2;
    let mut found = FromEnd {
        starts: std::collections::VecDeque::new(),
        low: 1,
        after_last: None,
        last,
        body,
        size,
        total: None,
    };
    let mut k = 0usize;
    let mut buf = vec![0u8; CHUNK];
    // Breaks are looked for below `at`: the last line's own break is not one before it.
    let mut at = if ends_with_break { size - 1 } else { size };
    'back: while at > body {
        let from = at.saturating_sub(CHUNK as u64).max(body);
        let window = &mut buf[..(at - from) as usize];
        file.read_exact_at(window, from)?;
        for i in memchr::memrchr_iter(b'\n', window) {
            if k == first {
                break 'back;
            }
            k += 1;
            let start = from + i as u64 + 1;
            found.starts.push_back(start);
            if found.starts.len() > keep {
                found.starts.pop_front();
                found.low += 1;
            }
            if k + 1 == last {
                found.after_last = Some(start);
            }
        }
        at = from;
    }
    // A break above line -first was found (the loop stopped on it), or the top was reached.
    found.total = (at <= body).then(|| if size > body { k + 1 } else { 0 });
    Ok(found)
}

fn read_head(file: &mut File) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD_LEN);
    file.by_ref().take(HEAD_LEN as u64).read_to_end(&mut head)?;
    Ok(head)
}

fn changed_while_reading(shown: &str) -> FkError {
    FkError::new(
        ErrorCode::Io,
        format!("{shown} changed while it was being read"),
    )
    .with_hint("read it again")
}

struct Scan {
    /// The file's lines, when the pass reached its end.
    total_lines: Option<usize>,
    /// The collected lines' bytes (BOM stripped).
    lines: Vec<u8>,
    /// When the lines asked for were more than [`MAX_READ_BYTES`] bytes: the last line kept.
    cut_after: Option<usize>,
}

/// Reads `file` from its start in chunks, checking that it is UTF-8 text and keeping the
/// lines `want` (1-based, inclusive) up to [`MAX_READ_BYTES`] bytes of them; stops after the
/// last line wanted, or at the end. `bom`: whether the file starts with a UTF-8 BOM, which
/// belongs to no line.
fn scan(file: &mut File, shown: &str, want: (usize, usize), bom: bool) -> Result<Scan, FkError> {
    let io_err = |e: io::Error| FkError::from_io(&e, shown);
    file.seek(SeekFrom::Start(0)).map_err(io_err)?;
    let (a, b) = want;
    // Room for a UTF-8 sequence cut at the end of the previous chunk.
    let mut buf = vec![0u8; CHUNK + 4];
    let mut carry = 0usize;
    let mut text_len = 0u64;
    let mut newlines = 0usize;
    let mut last_byte = None;
    let mut lines = Vec::new();
    // The line being collected starts here in `lines` (to drop it when it is cut).
    let mut line_start = 0usize;
    let mut cut_after = None;
    let mut reached_end = false;
    'read: loop {
        let n = match file.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        };
        if n == 0 {
            reached_end = true;
            break;
        }
        let data_len = carry + n;
        let valid = match std::str::from_utf8(&buf[..data_len]) {
            Ok(_) => data_len,
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => {
                let at = e.valid_up_to();
                let line = newlines + memchr::memchr_iter(b'\n', &buf[..at]).count() + 1;
                return Err(encoding_error(shown, text_len + at as u64, line, bom));
            }
        };
        let seg = &buf[..valid];
        let mut pos = 0;
        let keep = |from: usize, to: usize, line: usize, lines: &mut Vec<u8>| {
            if line >= a && line <= b {
                lines.extend_from_slice(&seg[from..to]);
            }
        };
        for nl in memchr::memchr_iter(b'\n', seg) {
            let line = newlines + 1;
            keep(pos, nl + 1, line, &mut lines);
            newlines += 1;
            pos = nl + 1;
            if line >= a && line <= b {
                if lines.len() as u64 > MAX_READ_BYTES {
                    lines.truncate(line_start);
                    cut_after = Some(line - 1);
                    break 'read;
                }
                line_start = lines.len();
            }
            if newlines >= b {
                break 'read;
            }
        }
        let line = newlines + 1;
        if pos < seg.len() {
            keep(pos, seg.len(), line, &mut lines);
            if line >= a && line <= b && lines.len() as u64 > MAX_READ_BYTES {
                lines.truncate(line_start);
                cut_after = Some(line - 1);
                break 'read;
            }
        }
        if let Some(&c) = seg.last() {
            last_byte = Some(c);
        }
        text_len += valid as u64;
        buf.copy_within(valid..data_len, 0);
        carry = data_len - valid;
    }
    if cut_after == Some(a.saturating_sub(1)) {
        return Err(FkError::too_large(
            Limit::FileSize,
            lines.len() as u64,
            MAX_READ_BYTES,
            format!("line {a} of {shown} is longer than the {MAX_READ_BYTES} bytes a read returns"),
        )
        .with_hint("search the file for what you need in that line instead"));
    }
    if reached_end && carry > 0 {
        return Err(encoding_error(shown, text_len, newlines + 1, bom));
    }
    // The BOM is part of line 1's bytes here; the decoded text has none.
    if bom && a == 1 && lines.starts_with(UTF8_BOM) {
        lines.drain(..UTF8_BOM.len());
    }
    let total_lines = reached_end.then(|| {
        let body_len = text_len.saturating_sub(if bom { UTF8_BOM.len() as u64 } else { 0 });
        let partial = body_len > 0 && last_byte != Some(b'\n');
        newlines + usize::from(partial)
    });
    Ok(Scan {
        total_lines,
        lines,
        cut_after,
    })
}

/// The same words as [`TextDoc::decode`] uses for a small file; offsets count from after
/// the BOM.
fn encoding_error(shown: &str, offset: u64, line: usize, bom: bool) -> FkError {
    let at = offset.saturating_sub(if bom { UTF8_BOM.len() as u64 } else { 0 });
    FkError::new(
        ErrorCode::Encoding,
        format!("{shown} is not valid UTF-8 (first invalid byte at offset {at}, line {line})"),
    )
    .with_hint("filekit reads UTF-8 text; convert the file to UTF-8 first (for example with iconv)")
}

/// The lines a read returns, after negative numbers, defaults and `max_lines`.
struct Selection {
    start: usize,
    end: usize,
    truncated: bool,
    ranged: bool,
}

impl Selection {
    /// Cuts the selection after the last whole line that keeps what it returns within
    /// [`MAX_READ_BYTES`]; refused when its first line alone is longer.
    fn cap_bytes(&mut self, li: &LineIndex, shown: &str) -> Result<(), FkError> {
        if self.end == 0 {
            return Ok(());
        }
        let from = li.start(self.start);
        let fits = |n: usize| (li.end(n) - from) as u64 <= MAX_READ_BYTES;
        if fits(self.end) {
            return Ok(());
        }
        if !fits(self.start) {
            return Err(FkError::too_large(
                Limit::FileSize,
                (li.end(self.start) - from) as u64,
                MAX_READ_BYTES,
                format!(
                    "line {} of {shown} is longer than the {MAX_READ_BYTES} bytes a read returns",
                    self.start
                ),
            )
            .with_hint("search the file for what you need in that line instead"));
        }
        // The last line that fits, by bisection: `fits` holds at `lo` and fails at `hi`.
        let (mut lo, mut hi) = (self.start, self.end);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        self.end = lo;
        self.truncated = true;
        Ok(())
    }

    /// The selected lines of `text`.
    fn content(&self, text: &str, li: &LineIndex) -> String {
        if self.end == 0 {
            String::new()
        } else {
            text[li.start(self.start)..li.end(self.end)].to_string()
        }
    }

    fn into_read(
        self,
        content: String,
        total_lines: usize,
        content_hash: String,
        last_modified: String,
        size: u64,
    ) -> TextRead {
        let range_hash =
            (self.ranged || self.truncated).then(|| hash::content_hash(content.as_bytes()));
        TextRead {
            content,
            start_line: self.start,
            end_line: self.end,
            total_lines: Some(total_lines),
            content_hash: Some(content_hash),
            range_hash,
            last_modified,
            size,
            bom: false,
            encoding: None,
            truncated: self.truncated,
            next_line: self.truncated.then(|| signed(self.end + 1, false)),
            from_end: false,
            unchanged: false,
            diff: None,
            since_unknown: false,
            unversioned: None,
        }
    }
}

fn how_to_ask(total: usize) -> String {
    if total == 0 {
        "read it without a range".to_string()
    } else {
        format!(
            "ask for lines 1..{total}; negative numbers count from the end (-1 is the last line)"
        )
    }
}

fn line_count(total: usize, shown: &str) -> String {
    match total {
        0 => format!("{shown} is empty (0 lines)"),
        1 => format!("{shown} has 1 line"),
        n => format!("{shown} has {n} lines"),
    }
}

/// Refusals that do not depend on the file.
fn check_args(opts: &ReadOptions, total: usize, shown: &str) -> Result<(), FkError> {
    for (which, n) in [("start_line", opts.start_line), ("end_line", opts.end_line)] {
        if n == Some(0) {
            let known = if total == 0 {
                String::new()
            } else {
                format!(" ({})", line_count(total, shown))
            };
            return Err(FkError::invalid(format!(
                "{which} 0 is not a line: lines are numbered from 1{known}"
            ))
            .with_hint("the first line is 1 and the last is -1"));
        }
    }
    if opts.max_lines == Some(0) {
        return Err(
            FkError::invalid("max_lines is 0: a read must be allowed at least one line")
                .with_hint("give max_lines of 1 or more, or leave it out for no cap"),
        );
    }
    Ok(())
}

fn select(total: usize, opts: &ReadOptions, shown: &str) -> Result<Selection, FkError> {
    check_args(opts, total, shown)?;
    let ask = how_to_ask(total);
    let from_end = |n: i64| if n < 0 { total as i64 + 1 + n } else { n };
    // A start before the first line (`-500` of a 120-line file) reads from the top, as
    // `tail -n 500` would; an end past the last line stops at the last line.
    let start = opts.start_line.map_or(1, |n| from_end(n).max(1));
    let end = opts
        .end_line
        .map_or(total as i64, |n| from_end(n).min(total as i64));
    let ranged = opts.start_line.is_some() || opts.end_line.is_some();
    if total == 0 && start == 1 {
        return Ok(Selection {
            start: 1,
            end: 0,
            truncated: false,
            ranged,
        });
    }
    if start > total as i64 {
        return Err(FkError::invalid(format!(
            "start line {} is past the end: {}",
            opts.start_line.unwrap_or(start),
            line_count(total, shown)
        ))
        .with_hint(ask));
    }
    if start > end {
        let given =
            |n: Option<i64>, default: &str| n.map_or(default.to_string(), |n| n.to_string());
        return Err(FkError::invalid(format!(
            "lines {}..{} select nothing: the start (line {start}) is after the end (line {end}); {}",
            given(opts.start_line, "1"),
            given(opts.end_line, "-1"),
            line_count(total, shown)
        ))
        .with_hint(ask));
    }
    let (start, mut end) = (start as usize, end as usize);
    let mut truncated = false;
    if let Some(max) = opts.max_lines
        && end - start + 1 > max
    {
        end = start + max - 1;
        truncated = true;
    }
    Ok(Selection {
        start,
        end,
        truncated,
        ranged,
    })
}

/// What a non-text file is.
enum Kind {
    Image(ImageKind),
    Other {
        what: &'static str,
        mime: Option<&'static str>,
    },
}

struct ImageKind {
    name: &'static str,
    mime: &'static str,
    dims: Option<(u32, u32)>,
}

/// `None` for text. UTF-16 and UTF-32 text are an ENCODING error rather than binary: the
/// agent can act on "convert it to UTF-8".
fn classify_nontext(bytes: &[u8], shown: &str) -> Result<Option<Kind>, FkError> {
    let head = &bytes[..bytes.len().min(HEAD_LEN)];
    if let Some(img) = image_kind(head) {
        return Ok(Some(Kind::Image(img)));
    }
    if !text::is_binary(head) {
        return Ok(None);
    }
    use content_inspector::ContentType as C;
    let encoding = match content_inspector::inspect(head) {
        C::UTF_16LE => Some("UTF-16LE"),
        C::UTF_16BE => Some("UTF-16BE"),
        C::UTF_32LE => Some("UTF-32LE"),
        C::UTF_32BE => Some("UTF-32BE"),
        _ => None,
    };
    if let Some(enc) = encoding {
        return Err(FkError::new(
            ErrorCode::Encoding,
            format!("{shown} is {enc} text, not UTF-8"),
        )
        .with_hint(format!(
            "filekit reads UTF-8 text; convert it first, for example with iconv -f {enc} -t UTF-8"
        )));
    }
    let (what, mime) = binary_kind(head);
    Ok(Some(Kind::Other { what, mime }))
}

fn image_kind(h: &[u8]) -> Option<ImageKind> {
    let be32 = |i: usize| {
        h.get(i..i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let le16 = |i: usize| {
        h.get(i..i + 2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let le32 = |i: usize| {
        h.get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let img = |name, mime, dims| Some(ImageKind { name, mime, dims });
    if h.starts_with(b"\x89PNG\r\n\x1a\n") {
        let dims = (h.get(12..16) == Some(&b"IHDR"[..]))
            .then(|| be32(16).zip(be32(20)))
            .flatten();
        return img("PNG", "image/png", dims);
    }
    if h.starts_with(b"\xFF\xD8\xFF") {
        return img("JPEG", "image/jpeg", None);
    }
    // GIF and WebP signatures are plain ASCII, so a text file could begin with them; a real
    // image has NUL bytes or bytes that are not UTF-8 in its header.
    let binary = h.contains(&0) || std::str::from_utf8(h).is_err_and(|e| e.error_len().is_some());
    if binary && (h.starts_with(b"GIF87a") || h.starts_with(b"GIF89a")) {
        return img("GIF", "image/gif", le16(6).zip(le16(8)));
    }
    if binary && h.len() >= 12 && &h[..4] == b"RIFF" && &h[8..12] == b"WEBP" {
        return img("WebP", "image/webp", None);
    }
    // "BM" alone starts plenty of text files; also require the header's reserved zeros and
    // a known DIB header size.
    if h.starts_with(b"BM")
        && h.get(6..10) == Some(&[0u8; 4][..])
        && matches!(le32(14), Some(12 | 40 | 52 | 56 | 64 | 108 | 124))
    {
        let dims = if le32(14) == Some(12) {
            le16(18).zip(le16(20))
        } else {
            le32(18)
                .zip(le32(22))
                .map(|(w, h)| (w, (h as i32).unsigned_abs()))
        };
        return img("BMP", "image/bmp", dims);
    }
    None
}

fn binary_kind(h: &[u8]) -> (&'static str, Option<&'static str>) {
    let at = |i: usize, magic: &[u8]| h.get(i..i + magic.len()) == Some(magic);
    if at(0, b"\x7fELF") {
        let what = match h.get(16) {
            Some(1) => "ELF relocatable object",
            Some(2) => "ELF executable",
            Some(3) => "ELF shared library or executable",
            Some(4) => "ELF core dump",
            _ => "ELF file",
        };
        return (what, Some("application/x-elf"));
    }
    if at(0, b"\xCA\xFE\xBA\xBE") {
        // Java classes and universal Mach-O binaries share a magic; the next word tells
        // (a class's version is at least 45; a fat binary has a handful of architectures).
        let next = h
            .get(4..8)
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        return if next >= 45 {
            ("Java class file", Some("application/java-vm"))
        } else {
            ("Mach-O universal binary", Some("application/x-mach-binary"))
        };
    }
    let table: &[(usize, &[u8], &'static str, Option<&'static str>)] = &[
        (
            0,
            b"MZ",
            "Windows executable",
            Some("application/vnd.microsoft.portable-executable"),
        ),
        (
            0,
            b"\xFE\xED\xFA\xCE",
            "Mach-O binary",
            Some("application/x-mach-binary"),
        ),
        (
            0,
            b"\xFE\xED\xFA\xCF",
            "Mach-O binary",
            Some("application/x-mach-binary"),
        ),
        (
            0,
            b"\xCE\xFA\xED\xFE",
            "Mach-O binary",
            Some("application/x-mach-binary"),
        ),
        (
            0,
            b"\xCF\xFA\xED\xFE",
            "Mach-O binary",
            Some("application/x-mach-binary"),
        ),
        (0, b"\0asm", "WebAssembly module", Some("application/wasm")),
        (0, b"PK\x03\x04", "ZIP archive", Some("application/zip")),
        (
            0,
            b"PK\x05\x06",
            "ZIP archive (empty)",
            Some("application/zip"),
        ),
        (
            0,
            b"\x1F\x8B",
            "gzip-compressed data",
            Some("application/gzip"),
        ),
        (
            0,
            b"BZh",
            "bzip2-compressed data",
            Some("application/x-bzip2"),
        ),
        (
            0,
            b"\xFD7zXZ\0",
            "xz-compressed data",
            Some("application/x-xz"),
        ),
        (
            0,
            b"\x28\xB5\x2F\xFD",
            "zstd-compressed data",
            Some("application/zstd"),
        ),
        (
            0,
            b"7z\xBC\xAF\x27\x1C",
            "7-Zip archive",
            Some("application/x-7z-compressed"),
        ),
        (
            0,
            b"Rar!\x1A\x07",
            "RAR archive",
            Some("application/vnd.rar"),
        ),
        (257, b"ustar", "tar archive", Some("application/x-tar")),
        (0, b"%PDF-", "PDF document", Some("application/pdf")),
        (
            0,
            b"SQLite format 3\0",
            "SQLite database",
            Some("application/vnd.sqlite3"),
        ),
        (0, b"II*\0", "TIFF image", Some("image/tiff")),
        (0, b"MM\0*", "TIFF image", Some("image/tiff")),
        (0, b"\0\0\x01\0", "Windows icon", Some("image/x-icon")),
        (0, b"wOFF", "WOFF font", Some("font/woff")),
        (0, b"wOF2", "WOFF2 font", Some("font/woff2")),
        (0, b"OggS", "Ogg media", Some("audio/ogg")),
        (0, b"fLaC", "FLAC audio", Some("audio/flac")),
        (0, b"ID3", "MP3 audio", Some("audio/mpeg")),
        (4, b"ftyp", "MP4/QuickTime media", Some("video/mp4")),
        (
            0,
            b"\x1A\x45\xDF\xA3",
            "Matroska/WebM media",
            Some("video/webm"),
        ),
    ];
    if at(0, b"RIFF") && at(8, b"WAVE") {
        return ("WAV audio", Some("audio/wav"));
    }
    table
        .iter()
        .find(|(i, magic, _, _)| at(*i, magic))
        .map_or(("binary data", None), |&(_, _, what, mime)| (what, mime))
}

fn describe(
    kind: &Kind,
    size: u64,
    content_hash: Option<String>,
    last_modified: String,
) -> BinaryRead {
    let (description, mime) = match kind {
        Kind::Image(img) => {
            let dims = img
                .dims
                .map_or(String::new(), |(w, h)| format!(", {w}x{h} pixels"));
            let why = if size > MAX_READ_BYTES {
                "too large to return as an image"
            } else {
                "ask for images to get it as an image"
            };
            (
                format!(
                    "image file ({}{dims}), {size} bytes; not shown: {why}",
                    img.name
                ),
                Some(img.mime),
            )
        }
        Kind::Other { what, mime } => (
            format!("binary file ({what}), {size} bytes; not shown"),
            *mime,
        ),
    };
    BinaryRead {
        size,
        mime: mime.map(str::to_string),
        description,
        content_hash,
        last_modified,
        unversioned: None,
    }
}
