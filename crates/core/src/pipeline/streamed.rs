//! Planning a file over the workspace's bound: streamed, never held whole.
//!
//! One pass reads the file a window of whole lines at a time: it hashes it (the version its
//! edits may name), checks that it is UTF-8 text, indexes its line breaks (a count per granule
//! of bytes, [`FileText`]), finds every occurrence of the text edits' search texts (one
//! Aho-Corasick automaton, with the seams between windows searched too) and makes the
//! substitutions' replacements, line by line as sed does. The edits are then resolved as a
//! file held whole resolves them ([`super::resolve::resolve_with`]): line edits and
//! substitutions against the file as read, text edits in order on the result of the ones
//! before ([`crate::sequential`] over the file, reading only the windows around its blocks),
//! appends last. What they make is written by copying the file around the edited ranges
//! ([`SplicedFile`]); the history keeps only those ranges, before and after; the diff is made
//! of excerpts of whole lines around them.
//!
//! What a streamed file has not: merges of an older version (no version of it is kept), a
//! near miss for a search text not found (that would search all of it), a whole new content
//! (a create over it), and more than [`MAX_STREAMED_EDITS`] bytes of edits.

use super::preview::spliced_hash_of_file;
use super::report::outcome;
use super::resolve::{EditBase, Growth, edits_too_large, resolve_with, text_patterns};
use super::{FilePlan, PlannedWrite};
use crate::content::{RangeEdit, SplicedFile};
use crate::edit::{Edit, EditOptions, EditOutcome, FileEdits, FileOutcome};
use crate::error::{ErrorCode, FkError, Limit};
use crate::hash;
use crate::history::StoredContent;
use crate::limits::{MAX_SEARCH_BUFFER, MAX_STREAMED_EDITS, MAX_STREAMED_MATCHES, SPLICE_COST};
use crate::lines::TextLines;
use crate::sed::Substitution;
use crate::sequential::{self, BaseText, Hits, Sequential};
use crate::text::{Eol, UTF8_BOM};
use crate::workspace::{Workspace, WriteMode, WsPath, rfc3339};
use aho_corasick::AhoCorasick;
use filekit_splices::Splice;
use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Bytes a pass reads at once (more for a longer line, up to [`MAX_SEARCH_BUFFER`]). The
/// unit tests' are a few bytes, so that their small files have many windows and seams.
const WINDOW: usize = if cfg!(test) { 16 } else { 1 << 20 };

/// Bytes per granule of the index of line breaks, at least (as a power of two): a line's
/// place is found by reading at most one granule. More for a file so large that the index
/// would pass a million granules. The unit tests' are 8 bytes.
const MIN_GRANULE_SHIFT: u32 = if cfg!(test) { 3 } else { 12 };

/// A text file over the workspace's bound, read a window at a time through its descriptor,
/// with an index of its line breaks: how many come before each granule of its text.
/// Offsets are the text's (after a byte order mark).
pub(super) struct FileText {
    file: File,
    /// Where the text starts in the file (the length of its BOM).
    body: u64,
    len: usize,
    shift: u32,
    /// `breaks[g]`: line breaks before byte `g << shift` of the text.
    breaks: Vec<u64>,
    lines: usize,
    ends_with_newline: bool,
}

impl FileText {
    /// Bytes `a..b` of the text. A file that changed under the read gives what it gives: the
    /// commit step refuses to write over a file that is not as it was read.
    fn read(&self, a: usize, b: usize) -> Vec<u8> {
        let mut buf = vec![0u8; b.saturating_sub(a)];
        if self
            .file
            .read_exact_at(&mut buf, self.body + a as u64)
            .is_err()
        {
            buf.clear();
        }
        buf
    }

    /// Where the `k`th line break (1-based) is.
    fn break_at(&self, k: usize) -> usize {
        let k = k as u64;
        // The last granule with fewer than `k` breaks before it holds the `k`th.
        let g = self.breaks.partition_point(|&n| n < k).saturating_sub(1);
        let from = g << self.shift;
        let to = ((g + 1) << self.shift).min(self.len);
        let granule = self.read(from, to);
        let nth = (k - self.breaks[g] - 1) as usize;
        memchr::memchr_iter(b'\n', &granule)
            .nth(nth)
            .map_or(self.len, |i| from + i)
    }
}

impl TextLines for FileText {
    fn line_count(&self) -> usize {
        self.lines
    }

    fn len(&self) -> usize {
        self.len
    }

    fn start(&self, n: usize) -> usize {
        if n <= 1 {
            0
        } else if n > self.lines {
            self.len
        } else {
            self.break_at(n - 1) + 1
        }
    }

    fn end(&self, n: usize) -> usize {
        if n >= self.lines {
            self.len
        } else {
            self.break_at(n) + 1
        }
    }

    fn bytes(&self, a: usize, b: usize) -> Cow<'_, [u8]> {
        Cow::Owned(self.read(a, b))
    }
}

impl BaseText for FileText {
    fn len(&self) -> usize {
        self.len
    }

    fn text(&self, a: usize, b: usize) -> Cow<'_, str> {
        match String::from_utf8(self.read(a, b)) {
            Ok(s) => Cow::Owned(s),
            Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        }
    }

    fn floor_boundary(&self, at: usize) -> usize {
        let from = at.saturating_sub(3);
        let bytes = self.read(from, (at + 1).min(self.len));
        let mut i = at;
        while i > from && bytes.get(i - from).is_some_and(|&c| is_continuation(c)) {
            i -= 1;
        }
        i
    }

    fn ceil_boundary(&self, at: usize) -> usize {
        let to = (at + 4).min(self.len);
        let bytes = self.read(at, to);
        let mut i = at;
        while i < to && is_continuation(bytes[i - at]) {
            i += 1;
        }
        i
    }

    fn newlines_before(&self, at: usize) -> usize {
        let g = (at >> self.shift).min(self.breaks.len() - 1);
        let from = g << self.shift;
        let before = memchr::memchr_iter(b'\n', &self.read(from, at)).count();
        self.breaks[g] as usize + before
    }

    fn whole(&self) -> Option<&str> {
        None
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Per edit: a substitution's replacements as the pass made them, or why it made none.
type Substituted = Vec<Option<Result<Vec<Splice>, FkError>>>;

/// A streamed file's text as its edits resolve against it (see [`EditBase`]): the
/// substitutions were made by the pass, the occurrences of the search texts found by it.
struct Streamed<'a> {
    text: &'a FileText,
    eol: Eol,
    /// Per edit: a substitution's replacements, or why it has none (taken when resolved:
    /// they may be most of what the edits hold).
    substituted: std::cell::RefCell<Substituted>,
    automaton: Option<AhoCorasick>,
    hits: std::cell::RefCell<Option<Hits>>,
}

impl<'a> EditBase for Streamed<'a> {
    type Text = &'a FileText;

    fn lines(&self) -> &dyn TextLines {
        self.text
    }

    fn eol(&self) -> Eol {
        self.eol
    }

    fn line_of(&self, offset: usize) -> usize {
        let breaks = self.text.newlines_before(offset);
        // The end of a text that ends with a line break is on its last line, as
        // `LineIndex::line_of` has it.
        if offset == self.text.len && breaks > 0 && self.text.ends_with_newline {
            breaks
        } else {
            breaks + 1
        }
    }

    fn substitution(
        &self,
        index: usize,
        _substitution: &Substitution,
        _display: &str,
    ) -> Result<Vec<Splice>, FkError> {
        match self.substituted.borrow_mut()[index].take() {
            Some(found) => found,
            None => Ok(Vec::new()),
        }
    }

    fn ranges(&self, ranges: &[Splice]) -> Result<Vec<Splice>, FkError> {
        let mut at = 0;
        for (k, r) in ranges.iter().enumerate() {
            let fits = r.start >= at
                && r.end >= r.start
                && r.end <= self.text.len
                && self.text.floor_boundary(r.start) == r.start
                && self.text.floor_boundary(r.end) == r.end;
            if !fits {
                return Err(FkError::invalid(format!(
                    "byte range {} ({}..{}) does not fit the text: the ranges must be sorted, disjoint, inside its {} bytes and on character boundaries",
                    k + 1,
                    r.start,
                    r.end,
                    self.text.len
                ))
                .with_hint("compute the ranges again on the file as it is"));
            }
            at = r.end;
        }
        Ok(ranges.to_vec())
    }

    fn sequential(
        &self,
        initial: Vec<Splice>,
        patterns: Vec<String>,
    ) -> Result<Sequential<Self::Text>, FkError> {
        let hits = self
            .hits
            .borrow_mut()
            .take()
            .unwrap_or_else(|| vec![Some(Vec::new()); patterns.len()]);
        Ok(Sequential::with_hits(
            self.text,
            initial,
            patterns,
            self.automaton.clone(),
            hits,
        ))
    }
}

impl BaseText for &FileText {
    fn len(&self) -> usize {
        self.len
    }
    fn text(&self, a: usize, b: usize) -> Cow<'_, str> {
        BaseText::text(*self, a, b)
    }
    fn floor_boundary(&self, at: usize) -> usize {
        BaseText::floor_boundary(*self, at)
    }
    fn ceil_boundary(&self, at: usize) -> usize {
        BaseText::ceil_boundary(*self, at)
    }
    fn newlines_before(&self, at: usize) -> usize {
        BaseText::newlines_before(*self, at)
    }
    fn whole(&self) -> Option<&str> {
        None
    }
}

/// What the pass over a streamed file found.
struct Pass {
    hash: String,
    text: FileText,
    hits: Hits,
    substituted: Substituted,
}

/// The pass over `file` (`size` bytes, a text after `body` bytes of BOM): see the module
/// documentation. `subs`: the substitutions, by edit index.
#[allow(clippy::too_many_arguments)]
fn pass(
    file: &File,
    size: u64,
    body: u64,
    display: &str,
    automaton: Option<&AhoCorasick>,
    patterns: &[String],
    subs: &[(usize, &Substitution)],
    edits: usize,
) -> Result<Pass, FkError> {
    let io_err = |e: std::io::Error| FkError::from_io(&e, display);
    let len = (size - body) as usize;
    let mut shift = MIN_GRANULE_SHIFT;
    while (len >> shift) > (1 << 20) {
        shift += 1;
    }
    let mut hasher = hash::StreamingHash::new();
    hasher.update(&UTF8_BOM[..body as usize]);
    let mut breaks: Vec<u64> = vec![0];
    let mut newlines: u64 = 0;
    let mut last_byte: Option<u8> = None;
    let mut hits: Hits = vec![Some(Vec::new()); patterns.len()];
    let longest = patterns.iter().map(String::len).max().unwrap_or(0);
    // The end of the text before the window: what a match across the seam starts in.
    let mut seam: Vec<u8> = Vec::new();
    let mut substituted: Substituted = vec![None; edits];
    let mut held = vec![0u64; edits];
    for (i, _) in subs {
        substituted[*i] = Some(Ok(Vec::new()));
    }
    let mut buf: Vec<u8> = vec![0u8; WINDOW.min(len.max(1))];
    let mut filled = 0usize;
    let mut at = 0usize; // text offset of buf[0]
    loop {
        if filled == buf.len() {
            // No line break in a full window: room for a longer line.
            if buf.len() as u64 >= MAX_SEARCH_BUFFER {
                unreachable!("a window of a line too long is cut before it is full");
            }
            buf.resize((buf.len() * 2).min(MAX_SEARCH_BUFFER as usize), 0);
        }
        let n = file
            .read_at(&mut buf[filled..], body + (at + filled) as u64)
            .map_err(io_err)?;
        let end = n == 0 || at + filled + n >= len;
        filled += n;
        if n == 0 && filled == 0 {
            break;
        }
        // Whole lines, unless the window is a line longer than a search holds.
        let cut = if end {
            filled.min(len - at)
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(i) => i + 1,
                // A line longer than a search holds: cut before its last character (which
                // may be cut itself), the rest read with the next window.
                None if filled as u64 >= MAX_SEARCH_BUFFER => {
                    let mut last = filled - 1;
                    while last > 0 && is_continuation(buf[last]) {
                        last -= 1;
                    }
                    if last == 0 { filled } else { last }
                }
                None => continue,
            }
        };
        let whole_lines = end || buf[cut - 1] == b'\n';
        let window = &buf[..cut];
        hasher.update(window);
        if let Some(nul) = memchr::memchr(0, window) {
            return Err(binary_error(display, size, at + nul));
        }
        let text = std::str::from_utf8(window).map_err(|e| {
            let valid = e.valid_up_to();
            let line = newlines as usize + memchr::memchr_iter(b'\n', &window[..valid]).count();
            FkError::new(
                ErrorCode::Encoding,
                format!(
                    "{display} is not valid UTF-8 (first invalid byte at offset {}, line {})",
                    at + valid,
                    line + 1
                ),
            )
            .with_hint(STREAMED_UTF8_ONLY)
        })?;
        // Line breaks counted a granule at a time (memchr counts with vector instructions);
        // each granule that ends in the window records the count before the next one.
        let mut from = 0;
        while from < window.len() {
            let granule_end = (((at + from) >> shift) + 1) << shift;
            let to = (granule_end - at).min(window.len());
            newlines += memchr::memchr_iter(b'\n', &window[from..to]).count() as u64;
            if to == granule_end - at {
                breaks.push(newlines);
            }
            from = to;
        }
        last_byte = window.last().copied().or(last_byte);
        if let Some(ac) = automaton {
            // Matches across the seam start in the text before and end in this window.
            if !seam.is_empty() {
                let head = ceil_boundary(text, longest.saturating_sub(1).min(text.len()));
                let mut joined = seam.clone();
                joined.extend_from_slice(&window[..head]);
                let joined_str = String::from_utf8_lossy(&joined);
                let seam_at = at - seam.len();
                for m in ac.find_overlapping_iter(joined_str.as_ref()) {
                    if m.start() < seam.len() && m.end() > seam.len() {
                        let p = m.pattern().as_usize();
                        sequential::record_hit(
                            &mut hits,
                            p,
                            seam_at + m.start(),
                            MAX_STREAMED_MATCHES,
                        );
                    }
                }
            }
            if let [one] = patterns {
                // One search text: its occurrences found with memchr's vector search.
                let finder = memchr::memmem::Finder::new(one.as_bytes());
                let mut from = 0;
                while let Some(i) = finder.find(&window[from..]) {
                    let start = at + from + i;
                    sequential::record_hit(&mut hits, 0, start, MAX_STREAMED_MATCHES);
                    from += i + 1;
                }
            } else {
                for m in ac.find_overlapping_iter(text) {
                    let p = m.pattern().as_usize();
                    sequential::record_hit(&mut hits, p, at + m.start(), MAX_STREAMED_MATCHES);
                }
            }
            // The text so far keeps its last characters, as many bytes as a match may
            // need before the next window.
            seam.extend_from_slice(window);
            let over = seam.len().saturating_sub(longest.saturating_sub(1));
            let mut keep = over;
            while keep > 0 && keep < seam.len() && is_continuation(seam[keep]) {
                keep -= 1;
            }
            seam.drain(..keep);
        }
        for (i, sub) in subs {
            let slot = substituted[*i].as_mut().expect("a substitution");
            let Ok(found) = slot else { continue };
            if !whole_lines {
                *slot = Err(line_too_long(display, sub));
                continue;
            }
            let more = sub
                .replacements_within(text, u64::MAX, None)
                .unwrap_or_default();
            for s in more {
                held[*i] += s.text.len() as u64 + SPLICE_COST;
                found.push(Splice::new(s.start + at, s.end + at, s.text));
            }
            if held[*i] > MAX_STREAMED_EDITS {
                *slot = Err(edits_too_large(display, held[*i], MAX_STREAMED_EDITS));
            }
        }
        buf.copy_within(cut..filled, 0);
        filled -= cut;
        at += cut;
        if end {
            break;
        }
    }
    // The granule the text ends in has no end in it: its entry is the count before it.
    breaks.truncate((len >> shift) + 1);
    while breaks.len() <= (len >> shift) {
        breaks.push(newlines);
    }
    let ends_with_newline = last_byte.is_none_or(|b| b == b'\n');
    let lines = newlines as usize + usize::from(len > 0 && !ends_with_newline);
    Ok(Pass {
        hash: hasher.finish(),
        text: FileText {
            file: file.try_clone().map_err(io_err)?,
            body,
            len,
            shift,
            breaks,
            lines,
            ends_with_newline,
        },
        hits,
        substituted,
    })
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// What to do with a file streamed for its size that is not UTF-8.
const STREAMED_UTF8_ONLY: &str = "a file streamed for its size (over the workspace's bound) is edited as UTF-8 text only: raise the bound above its size (--max-file-size) to edit it in its own encoding, or convert it to UTF-8 first (for example with iconv)";

/// The refusal of an edit of a file over the workspace's bound (`max`) whose text is in
/// another encoding than UTF-8 (`enc`): it is edited in its encoding only when held whole.
fn other_encoding(display: &str, size: u64, max: u64, enc: &str) -> FkError {
    FkError::new(
        ErrorCode::Encoding,
        format!(
            "{display} is {enc} text of {size} bytes, over the {max} bytes filekit holds whole: a file that large is streamed, and edited as UTF-8 text only"
        ),
    )
    .with_hint(format!(
        "raise the bound above its size (--max-file-size) to edit it in {enc}, or convert it to UTF-8 first (for example with iconv -f {enc} -t UTF-8)"
    ))
}

fn binary_error(display: &str, size: u64, at: usize) -> FkError {
    FkError::new(
        ErrorCode::Binary,
        format!(
            "{display} is a binary file ({size} bytes, a NUL byte at offset {at}); it cannot be edited as text"
        ),
    )
    .with_hint("edit text files only; to replace a binary file, write it with other tools")
}

/// Why a file whose head is not UTF-8 text cannot be edited: UTF-16 or UTF-32 text, or
/// binary.
fn not_text(display: &str, size: u64, head: &[u8]) -> FkError {
    use content_inspector::ContentType as C;
    let encoding = match content_inspector::inspect(head) {
        C::UTF_16LE => Some("UTF-16LE"),
        C::UTF_16BE => Some("UTF-16BE"),
        C::UTF_32LE => Some("UTF-32LE"),
        C::UTF_32BE => Some("UTF-32BE"),
        _ => None,
    };
    match encoding {
        Some(enc) => FkError::new(
            ErrorCode::Encoding,
            format!("{display} is {enc} text, not UTF-8"),
        )
        .with_hint(format!(
            "filekit edits UTF-8 text; convert it first, for example with iconv -f {enc} -t UTF-8"
        )),
        None => FkError::new(
            ErrorCode::Binary,
            format!("{display} is a binary file ({size} bytes); it cannot be edited as text"),
        )
        .with_hint("edit text files only; to replace a binary file, write it with other tools"),
    }
}

fn line_too_long(display: &str, sub: &Substitution) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        MAX_SEARCH_BUFFER + 1,
        MAX_SEARCH_BUFFER,
        format!(
            "{display}, a file streamed for its size, has a line longer than the {MAX_SEARCH_BUFFER} bytes a substitution holds at once, so {} cannot be made line by line",
            sub.expression()
        ),
    )
    .with_hint("replace a text instead (a search text and its replacement), which is found across windows of any line")
}

/// The style of the first line break of `file`'s text (from `body`): read until it is met.
fn first_eol(file: &File, body: u64, size: u64) -> std::io::Result<Eol> {
    let mut buf = vec![0u8; 64 << 10];
    let mut at = body;
    let mut prev: Option<u8> = None;
    while at < size {
        let n = file.read_at(&mut buf, at)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            let before = if i > 0 { Some(buf[i - 1]) } else { prev };
            return Ok(if before == Some(b'\r') {
                Eol::CrLf
            } else {
                Eol::Lf
            });
        }
        prev = Some(buf[n - 1]);
        at += n as u64;
    }
    Ok(Eol::Lf)
}

/// Plans the edits `fe` of the file `target` (`display`), which is over the workspace's
/// bound: the streamed counterpart of the rest of `plan_file_inner` for a file that exists.
/// `hashed`: whether the report carries its versions.
#[allow(clippy::too_many_arguments)]
// Over 200 lines: the streamed counterpart of `plan_file_inner`'s steps, in the same order (the one
// pass over the file, the version check, resolve, the ranges and their old bytes, diff, hashes, the
// planned write), on the open file and the pass's results that every step reads.
pub(super) fn plan_streamed(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &EditOptions,
    target: &WsPath,
    display: &str,
    hashed: bool,
    plan: &mut FilePlan,
) -> Result<(), FkError> {
    let max = ws.max_file_size();
    let (file, meta) = ws.open(target)?;
    let size = meta.len;
    if let Edit::Create { .. } = fe.edits[0] {
        return Err(crate::limits::file_too_large(
            display,
            size,
            max,
            "replace",
            "edit its lines, text or a pattern in it (those stream through it, and what they replace is kept for undo), or raise the bound with --max-file-size",
        ));
    }
    // Text or not, by its head, as a file held whole is told.
    let mut head = vec![0u8; 8192.min(size as usize)];
    file.read_exact_at(&mut head, 0)
        .map_err(|e| FkError::from_io(&e, display))?;
    // Text in another encoding is spliced only in a file held whole (see `crate::encoding`).
    if let Some(enc) = crate::encoding::sniff(&head) {
        return Err(other_encoding(display, size, max, enc.name()));
    }
    if crate::text::is_binary(&head) {
        return Err(not_text(display, size, &head));
    }
    let body = if head.starts_with(UTF8_BOM) {
        UTF8_BOM.len() as u64
    } else {
        0
    };
    let eol = first_eol(&file, body, size).map_err(|e| FkError::from_io(&e, display))?;
    let (patterns, _) = text_patterns(fe, eol);
    let automaton = sequential::automaton(&patterns);
    let mut subs: Vec<(usize, &Substitution)> = Vec::new();
    let mut whole_text_subs: Vec<usize> = Vec::new();
    for (i, e) in fe.edits.iter().enumerate() {
        if let Edit::Substitute(s) = e {
            if s.line_by_line() {
                subs.push((i, s));
            } else {
                whole_text_subs.push(i);
            }
        }
    }
    let mut found = pass(
        &file,
        size,
        body,
        display,
        automaton.as_ref(),
        &patterns,
        &subs,
        fe.edits.len(),
    )?;
    for i in whole_text_subs {
        found.substituted[i] = Some(Err(FkError::too_large(
            Limit::FileSize,
            size,
            max,
            format!(
                "{display} is {size} bytes, over the {max} bytes filekit holds whole, and flag m or s makes a substitution match across lines, which needs the whole text"
            ),
        )
        .with_hint("leave out m and s (a substitution then works line by line), or raise the bound with --max-file-size")));
    }
    // Replacement texts in the file's line breaks, as a file held whole gets them.
    for found in found.substituted.iter_mut().flatten().flatten() {
        for s in found.iter_mut() {
            if eol.needs_conversion(&s.text) {
                s.text = eol.convert(&s.text);
            }
        }
    }
    let base_hash = found.hash.clone();
    if let Some(given) = &fe.base_hash {
        hash::validate(given)
            .map_err(|m| FkError::invalid(m.replace("content_hash", "base_hash")))?;
        if !hash::matches(given, &base_hash) {
            return Err(FkError::new(
                ErrorCode::Stale,
                format!(
                    "{display} changed since version {given} (it is {base_hash} now); it is streamed for its size, and filekit keeps no older version of it to merge the edits into"
                ),
            )
            .with_hint("read the lines you meant to change again and redo the edits on them")
            .with_details(serde_json::json!({"base_hash": given, "current_hash": base_hash})));
        }
    }
    let mut outcomes: Vec<EditOutcome> = fe
        .edits
        .iter()
        .enumerate()
        .map(|(i, e)| outcome(i, e))
        .collect();
    let text = &found.text;
    let base = Streamed {
        text,
        eol,
        substituted: std::cell::RefCell::new(std::mem::take(&mut found.substituted)),
        automaton,
        hits: std::cell::RefCell::new(Some(std::mem::take(&mut found.hits))),
    };
    let splices = match fe.edits.as_slice() {
        // One substitution: its replacements are the edit (a tree-wide replace's every file).
        [Edit::Substitute(_)] => Ok(lone_substitution(&base, &mut outcomes[0])),
        _ => resolve_with(
            &base,
            fe,
            &base_hash,
            0,
            opts,
            Growth {
                max_len: u64::MAX,
                max_held: MAX_STREAMED_EDITS,
            },
            display,
            &mut outcomes,
        ),
    };
    let splices = match splices {
        Ok(s) => s,
        Err(err) => return Err(fail_edits(plan, outcomes, err)),
    };
    plan.report.old_hash = hashed.then(|| base_hash.clone());
    plan.report.last_modified = Some(rfc3339(meta.modified));
    let applied = outcomes.iter().filter(|o| o.success).count();
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    // Ranges in the file's bytes, their old bytes read for the history (and the check).
    let edits: Vec<RangeEdit> = splices
        .into_iter()
        .filter(|s| s.start != s.end || !s.text.is_empty())
        .map(|s| RangeEdit {
            start: s.start as u64 + body,
            end: s.end as u64 + body,
            text: s.text.into_bytes(),
        })
        .collect();
    let replaced: u64 = edits.iter().map(|e| e.end - e.start).sum();
    let added: u64 = edits
        .iter()
        .map(|e| e.text.len() as u64 + SPLICE_COST)
        .sum();
    if replaced + added > MAX_STREAMED_EDITS {
        let err = edits_too_large(display, replaced + added, MAX_STREAMED_EDITS);
        return Err(fail_edits(plan, outcomes, err));
    }
    let old_bytes: Vec<Vec<u8>> = edits
        .iter()
        .map(|e| {
            let mut b = vec![0u8; (e.end - e.start) as usize];
            file.read_exact_at(&mut b, e.start).map(|()| b)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| FkError::from_io(&e, display))?;
    let changed = edits.iter().zip(&old_bytes).any(|(e, old)| e.text != *old);
    let failed_all = applied == 0 && failed > 0;
    plan.report.edits_applied = applied;
    plan.report.edits_failed = failed;
    plan.report.edits = outcomes;
    plan.report.outcome = if failed_all {
        FileOutcome::Failed { error: None }
    } else if changed {
        FileOutcome::Changed {
            created: false,
            written: false,
        }
    } else {
        FileOutcome::Unchanged
    };
    if !changed || failed_all {
        plan.report.new_hash = plan.report.old_hash.clone();
        return Ok(());
    }
    let spliced = SplicedFile::new(
        file.try_clone()
            .map_err(|e| FkError::from_io(&e, display))?,
        size,
        edits,
    )
    .ok_or_else(|| {
        FkError::new(
            ErrorCode::Internal,
            format!("the edits of {display} do not fit the file: a filekit bug"),
        )
    })?;
    if !opts.no_diffs() {
        let diff_path = if target.root_index() == 0 {
            target.relative().display().to_string()
        } else {
            display.trim_start_matches('/').to_string()
        };
        let (diff, stats, cut) = super::excerpts::diff(
            text,
            body,
            spliced.edits(),
            &format!("a/{diff_path}"),
            &format!("b/{diff_path}"),
        );
        plan.report.diff = diff;
        plan.report.lines_added = stats.added;
        plan.report.lines_removed = stats.removed;
        plan.report.diff_truncated = cut;
    }
    let with_history = ws.history().is_some() && !opts.dry_run();
    let new_hash = (hashed || with_history)
        .then(|| spliced_hash_of_file(&spliced))
        .transpose()
        .map_err(|e| FkError::from_io(&e, display))?;
    plan.report.new_hash = new_hash.clone().filter(|_| hashed);
    if with_history && let Some(new_hash) = new_hash {
        let (before, after) =
            StoredContent::ranges_pair(&spliced, old_bytes, (size, base_hash), new_hash);
        plan.old_content = Some(before);
        plan.new_content = Some(after);
        plan.old_mode = Some(meta.mode);
    }
    plan.old_meta = Some(meta);
    if applied > 0 && !opts.dry_run() {
        plan.write = Some(PlannedWrite {
            target: target.clone(),
            bytes: Vec::new(),
            spliced: Some(spliced),
            mode: WriteMode::Replace,
        });
    }
    Ok(())
}

/// The edits of one file refused as a whole by `err`: each edit that had succeeded says so.
fn fail_edits(plan: &mut FilePlan, mut outcomes: Vec<EditOutcome>, err: FkError) -> FkError {
    for o in outcomes.iter_mut().filter(|o| o.success) {
        o.success = false;
        o.error = Some(err.clone());
    }
    plan.report.edits_failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    plan.report.edits = outcomes;
    err
}

/// A streamed file's only edit, a substitution: its replacements as the pass made them,
/// those that change nothing (an empty match replaced by nothing) left out.
fn lone_substitution(base: &Streamed, outcome: &mut EditOutcome) -> Vec<Splice> {
    let found = match base.substituted.borrow_mut()[0].take() {
        Some(Ok(found)) => found,
        Some(Err(e)) => {
            outcome.error = Some(e);
            return Vec::new();
        }
        None => Vec::new(),
    };
    let found: Vec<Splice> = found
        .into_iter()
        .filter(|s| s.start != s.end || !s.text.is_empty())
        .collect();
    outcome.success = true;
    outcome.replacements = found.len();
    outcome.line = found.first().map(|s| base.line_of(s.start));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{EditRequest, Expected};
    use crate::text::LineIndex;
    use proptest::prelude::*;

    /// A file over its workspace's bound, streamed, and the same file in a workspace that
    /// holds it whole.
    struct Twins {
        _dirs: (tempfile::TempDir, tempfile::TempDir),
        streamed: Workspace,
        whole: Workspace,
    }

    impl Twins {
        fn new(bytes: &[u8]) -> Twins {
            let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            std::fs::write(a.path().join("f.txt"), bytes).unwrap();
            std::fs::write(b.path().join("f.txt"), bytes).unwrap();
            let root = |d: &tempfile::TempDir| d.path().canonicalize().unwrap();
            // Every test file is longer.
            let streamed = Workspace::new(&[root(&a)], false)
                .unwrap()
                .with_max_file_size(8);
            let whole = Workspace::new(&[root(&b)], false).unwrap();
            Twins {
                _dirs: (a, b),
                streamed,
                whole,
            }
        }

        fn bytes(ws: &Workspace) -> Vec<u8> {
            std::fs::read(ws.roots()[0].join("f.txt")).unwrap()
        }
    }

    /// What a report says, as both paths must say it (a near miss is not searched in a
    /// streamed file: only the code of a failure is compared).
    fn summary(r: &crate::edit::EditReport) -> Vec<String> {
        let f = &r.files[0];
        let mut out = vec![
            format!("{:?} {:?}", f.status(), f.error().map(|e| e.code)),
            format!("+{} -{}", f.lines_added, f.lines_removed),
            f.diff.clone(),
            format!("{:?}", f.new_hash),
        ];
        for o in &f.edits {
            out.push(format!(
                "{} {} {} {:?} {:?}",
                o.command,
                o.success,
                o.replacements,
                o.line,
                o.error.as_ref().map(|e| e.code)
            ));
        }
        out
    }

    fn text_edit() -> impl Strategy<Value = Edit> {
        let expected = prop_oneof![(1usize..3).prop_map(Expected::Exactly), Just(Expected::All)];
        ("[ab\n]{1,4}", "[abxé\n]{0,4}", expected).prop_map(|(old, new, expected)| {
            Edit::ReplaceText {
                old,
                new,
                expected,
                label: None,
            }
        })
    }

    fn line_edit() -> impl Strategy<Value = Edit> {
        let n = prop_oneof![-40i64..-1, 1i64..40];
        prop_oneof![
            (n.clone(), 0i64..3, "[xy\n]{0,6}").prop_map(|(start, len, new)| {
                Edit::ReplaceLines {
                    start,
                    end: Some(if start < 0 {
                        (start + len).min(-1)
                    } else {
                        start + len
                    }),
                    new,
                    content_hash: None,
                }
            }),
            (n.clone(), "[xy\n]{0,6}").prop_map(|(start, new)| Edit::ReplaceLines {
                start,
                end: None,
                new,
                content_hash: None,
            }),
            (prop_oneof![-40i64..0, 0i64..40], "[xy\n]{0,6}").prop_map(|(after, text)| {
                Edit::Insert {
                    after,
                    text,
                    content_hash: None,
                }
            }),
            "[xy\n]{0,6}".prop_map(|text| Edit::Append { text }),
        ]
    }

    fn substitution() -> impl Strategy<Value = Edit> {
        prop_oneof![
            Just("s/a/Z/g"),
            Just("s/^b/Q/"),
            Just("s/ab$/<&>/g"),
            Just("s/b*/-/g"),
            Just("s/é/e/2"),
        ]
        .prop_map(|e| Edit::Substitute(Substitution::parse(e, false).unwrap()))
    }

    fn file() -> impl Strategy<Value = Vec<u8>> {
        (
            any::<bool>(),
            any::<bool>(),
            prop::collection::vec("[ab é]{0,12}", 20..60),
            any::<bool>(),
        )
            .prop_map(|(bom, crlf, lines, final_newline)| {
                let eol = if crlf { "\r\n" } else { "\n" };
                let mut text = lines.join(eol);
                if final_newline {
                    text.push_str(eol);
                }
                let mut bytes = if bom { UTF8_BOM.to_vec() } else { Vec::new() };
                bytes.extend_from_slice(text.as_bytes());
                bytes
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 400,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20_251_127),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Streamed, a file's edits make what they make of it held whole: the same bytes,
        /// outcomes, diff and version (windows of a few bytes, so every edit meets seams).
        #[test]
        fn a_streamed_file_is_edited_as_a_file_held_whole(
            bytes in file(),
            edits in prop::collection::vec(
                prop_oneof![4 => text_edit(), 3 => line_edit(), 1 => substitution()],
                1..6,
            ),
            lone in prop::option::of(substitution()),
        ) {
            let edits = match lone {
                Some(s) => vec![s],
                None => edits,
            };
            let twins = Twins::new(&bytes);
            prop_assert!(bytes.len() as u64 > twins.streamed.max_file_size());
            let req = EditRequest::one_file("f.txt", edits, EditOptions::default());
            let streamed = crate::pipeline::apply(&twins.streamed, &req);
            let whole = crate::pipeline::apply(&twins.whole, &req);
            prop_assert_eq!(summary(&streamed), summary(&whole));
            // Held whole, the report keeps the texts; streamed, it has none.
            prop_assert!(streamed.files[0].old_text.is_none());
            prop_assert_eq!(Twins::bytes(&twins.streamed), Twins::bytes(&twins.whole));
        }

        /// Search texts cut from the file itself, up to several windows long: found across
        /// the seams between windows, and made unique or ambiguous by what surrounds them.
        #[test]
        fn search_texts_longer_than_a_window_are_found_across_its_seams(
            (bytes, cuts) in file().prop_flat_map(|b| {
                let n = b.len();
                (Just(b), prop::collection::vec((0..n, 1usize..60, "[xé\n]{0,3}"), 1..5))
            }),
        ) {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let body = text.trim_start_matches('\u{feff}');
            let edits: Vec<Edit> = cuts
                .into_iter()
                .filter_map(|(at, len, new)| {
                    let at = (0..=at.min(body.len())).rev().find(|&i| body.is_char_boundary(i))?;
                    let end = (at + len).min(body.len());
                    let end = (end..=body.len()).find(|&i| body.is_char_boundary(i))?;
                    (end > at).then(|| Edit::ReplaceText {
                        old: body[at..end].to_string(),
                        new,
                        expected: Expected::Exactly(1),
                        label: None,
                    })
                })
                .collect();
            prop_assume!(!edits.is_empty());
            let twins = Twins::new(&bytes);
            let req = EditRequest::one_file("f.txt", edits, EditOptions::default());
            let streamed = crate::pipeline::apply(&twins.streamed, &req);
            let whole = crate::pipeline::apply(&twins.whole, &req);
            prop_assert_eq!(summary(&streamed), summary(&whole));
            prop_assert_eq!(Twins::bytes(&twins.streamed), Twins::bytes(&twins.whole));
        }
    }

    #[test]
    fn a_files_lines_are_found_through_its_index_as_a_line_index_finds_them() {
        for text in [
            "",
            "a",
            "a\n",
            "\n\n",
            "ab\ncd\nef",
            "é\nxyzxyzxyz\n\n\nlong line here\nq",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, text).unwrap();
            let file = File::open(&path).unwrap();
            let pass = pass(&file, text.len() as u64, 0, "f", None, &[], &[], 0).unwrap();
            let ft = &pass.text;
            let li = LineIndex::new(text);
            assert_eq!(TextLines::line_count(ft), li.len(), "{text:?}");
            for n in 1..=li.len() {
                assert_eq!(TextLines::start(ft, n), li.start(n), "{text:?} start {n}");
                assert_eq!(TextLines::end(ft, n), li.end(n), "{text:?} end {n}");
            }
            for at in 0..=text.len() {
                let want = text[..]
                    .as_bytes()
                    .iter()
                    .take(at)
                    .filter(|&&b| b == b'\n')
                    .count();
                assert_eq!(BaseText::newlines_before(ft, at), want, "{text:?} at {at}");
                let floor = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
                assert_eq!(
                    BaseText::floor_boundary(ft, at),
                    floor,
                    "{text:?} floor {at}"
                );
                let ceil = (at..=text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap();
                assert_eq!(BaseText::ceil_boundary(ft, at), ceil, "{text:?} ceil {at}");
            }
            assert_eq!(pass.hash, hash::content_hash(text.as_bytes()));
        }
    }
}
