//! Text edits applied one after another, each on the result of the one before, without
//! rebuilding or rescanning the whole text for every edit.
//!
//! The naive way (find the search text in the current text, check it is unique, splice a new
//! string) costs O(file) per edit: 10,000 edits on a 100,000-line file would move gigabytes.
//! Here the current text is the base text plus a set of *blocks*: non-overlapping replacements
//! of base ranges, kept in base order. An occurrence of a search text in the current text is
//! then either
//!
//! - an occurrence in the base that no block overlaps (found once, for every search text at
//!   the same time, by one Aho-Corasick pass over the base), or
//! - an occurrence that touches a block. Each new block's neighbourhood (its text plus as many
//!   bytes around it as the longest search text still to come, less one) is scanned once with
//!   the same automaton, and each search text found there records the block as a *hint*.
//!   An occurrence touching blocks is fully inside the neighbourhood of the newest block it
//!   touches, and that block's text is unchanged since it was scanned, so the hints are
//!   complete; they are rechecked against the current text when used.
//!
//! Line numbers come from the base's line breaks and, for the blocks before a position, the
//! line breaks each block adds or removes: kept per bucket of base bytes in a Fenwick tree,
//! so that the blocks on the position's own line are not each visited (100,000 edits of one
//! line would be quadratic).
//!
//! So each edit costs about O(log n + its neighbourhood), and the result is exactly what the
//! naive sequential loop gives (checked against it by a property test).
//!
//! The base is read through [`BaseText`]: a text in memory, or a file over the workspace's
//! bound read a window at a time ([`super::streamed`]), whose occurrences the caller finds in
//! a pass over it and hands over.

use aho_corasick::{AhoCorasick, MatchKind};
use filekit_splices::{Splice, SpliceError, Splices};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// The text edits were made on, as the editor reads it: only around blocks and matches,
/// except for a pattern too frequent to track by its occurrences (see [`BaseText::whole`]).
pub trait BaseText {
    /// Its length in bytes.
    fn len(&self) -> usize;
    /// The text of bytes `a..b`, both on character boundaries.
    fn text(&self, a: usize, b: usize) -> Cow<'_, str>;
    /// The character boundary at or before `at`.
    fn floor_boundary(&self, at: usize) -> usize;
    /// The character boundary at or after `at`.
    fn ceil_boundary(&self, at: usize) -> usize;
    /// Line breaks before byte `at`.
    fn newlines_before(&self, at: usize) -> usize;
    /// The whole text, when it is held in memory.
    fn whole(&self) -> Option<&str>;

    /// Line breaks in bytes `a..b`.
    fn newlines(&self, a: usize, b: usize) -> usize {
        self.newlines_before(b) - self.newlines_before(a)
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A base text in memory, with the start of each of its lines.
pub struct MemText<'a> {
    text: &'a str,
    /// `line_starts[n]`: where line `n + 1` starts.
    line_starts: Vec<usize>,
}

impl<'a> MemText<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        MemText { text, line_starts }
    }
}

impl BaseText for MemText<'_> {
    fn len(&self) -> usize {
        self.text.len()
    }

    fn text(&self, a: usize, b: usize) -> Cow<'_, str> {
        Cow::Borrowed(&self.text[a..b])
    }

    fn floor_boundary(&self, at: usize) -> usize {
        floor_char_boundary(self.text, at)
    }

    fn ceil_boundary(&self, at: usize) -> usize {
        ceil_char_boundary(self.text, at)
    }

    fn newlines_before(&self, at: usize) -> usize {
        // The starts at or before `at`, less the first line's.
        self.line_starts.partition_point(|&s| s <= at) - 1
    }

    fn whole(&self) -> Option<&str> {
        Some(self.text)
    }
}

/// Where an occurrence starts, or where a byte is, in the current text.
///
/// Ordered as the current text is: a block `(a, b)` stands where base bytes `a..b` were, so it
/// comes after every base byte before `a` and before base byte `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pos {
    /// Base byte `p`, which no block covers.
    Base(usize),
    /// Byte `off` of the text of block `key`.
    Block { key: (usize, usize), off: usize },
}

impl Pos {
    fn order(&self) -> (usize, u8, usize, usize) {
        match *self {
            Pos::Block { key: (a, b), off } => (a, 0, b, off),
            Pos::Base(p) => (p, 1, 0, 0),
        }
    }
}

impl PartialOrd for Pos {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pos {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

#[derive(Debug, Clone)]
struct Block {
    id: u64,
    text: String,
    /// Line breaks its text has, less those of the base bytes it stands for.
    newlines: i64,
}

/// Patterns with more base occurrences than this are matched by scanning the current text.
pub const DENSE_LIMIT: usize = 1 << 16;

/// Base bytes per bucket of [`LineDeltas`] at least (as a power of two); more for a long
/// base, so that the tree has at most about a million buckets. The unit tests' texts are
/// short: theirs are two bytes, so that their blocks fall in many buckets.
const MIN_BUCKET_SHIFT: u32 = if cfg!(test) { 1 } else { 6 };

/// The line breaks blocks add or remove, summed per bucket of base bytes (the bucket of a
/// block's start) in a Fenwick tree: the line of a position is the base's line there plus the
/// sum for the blocks before it.
struct LineDeltas {
    shift: u32,
    tree: Vec<i64>,
}

impl LineDeltas {
    fn new(base_len: usize) -> Self {
        let mut shift = MIN_BUCKET_SHIFT;
        while (base_len >> shift) > (1 << 20) {
            shift += 1;
        }
        LineDeltas {
            shift,
            tree: vec![0; (base_len >> shift) + 2],
        }
    }

    fn bucket(&self, offset: usize) -> usize {
        offset >> self.shift
    }

    fn add(&mut self, offset: usize, delta: i64) {
        let mut i = self.bucket(offset) + 1;
        while i < self.tree.len() {
            self.tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// Sum of the deltas of buckets before `bucket`.
    fn before(&self, bucket: usize) -> i64 {
        let mut i = bucket.min(self.tree.len() - 1);
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// One occurrence of a search text in the current text.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence {
    pub start: Pos,
    /// The position of its last byte.
    pub last: Pos,
}

/// The occurrences of a search text: how many there are, and the first of them.
#[derive(Debug, Clone)]
pub struct Found {
    /// Non-overlapping occurrences, leftmost first.
    pub count: usize,
    /// The first of them, as many as asked for.
    pub first: Vec<Occurrence>,
}

/// A search text occurs more often in a base not held in memory than its occurrences are
/// kept ([`Sequential::with_hits`]).
#[derive(Debug)]
pub struct TooFrequent;

/// The base occurrences of each pattern (start offsets, overlapping ones included), found by
/// `automaton` in `text`; `None` for a pattern with more than `limit`.
pub fn base_hits(automaton: &AhoCorasick, text: &str, patterns: usize, limit: usize) -> Hits {
    let mut hits: Hits = vec![Some(Vec::new()); patterns];
    for m in automaton.find_overlapping_iter(text) {
        record_hit(&mut hits, m.pattern().as_usize(), m.start(), limit);
    }
    hits
}

/// The occurrences of each pattern in a base: see [`base_hits`].
pub type Hits = Vec<Option<Vec<usize>>>;

/// Records an occurrence of pattern `p` at `start`, unless the pattern has more than `limit`.
pub fn record_hit(hits: &mut Hits, p: usize, start: usize, limit: usize) {
    let slot = &mut hits[p];
    if let Some(v) = slot {
        if v.len() >= limit {
            *slot = None;
        } else {
            v.push(start);
        }
    }
}

/// The automaton that finds every pattern (overlapping matches), if there is one to find.
pub fn automaton(patterns: &[String]) -> Option<AhoCorasick> {
    if patterns.iter().any(|p| !p.is_empty()) {
        AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(patterns)
            .ok()
    } else {
        None
    }
}

/// A piece of the current text: a block's text, or base bytes `a..b`.
#[derive(Clone, Copy)]
enum Seg<'e> {
    Block(&'e str),
    Base(usize, usize),
}

impl Seg<'_> {
    fn len(&self) -> usize {
        match self {
            Seg::Block(t) => t.len(),
            Seg::Base(a, b) => b - a,
        }
    }
}

/// The sequential editor over one base text.
pub struct Sequential<B: BaseText> {
    base: B,
    blocks: BTreeMap<(usize, usize), Block>,
    live: HashMap<u64, (usize, usize)>,
    next_id: u64,
    patterns: Vec<String>,
    automaton: Option<AhoCorasick>,
    /// Base occurrences of each pattern (start offsets), unless the pattern is dense.
    base_hits: Hits,
    /// Blocks whose neighbourhood contained each pattern when scanned.
    hints: Vec<Vec<u64>>,
    /// How much context a new block's scan needs: the longest pattern still to come, less one.
    context: usize,
    deltas: LineDeltas,
    /// Counts each change of the current text: a dense pattern's count is kept until then.
    version: u64,
    /// The last look for a dense pattern: (pattern, version, what was found).
    dense_found: Option<(usize, u64, Found)>,
}

impl<'a> Sequential<MemText<'a>> {
    /// An editor over `base` that already carries `initial` (splices of `base`), and will be
    /// asked for `patterns`.
    pub fn new(base: &'a str, initial: Splices, patterns: Vec<String>) -> Self {
        let automaton = automaton(&patterns);
        let hits = match &automaton {
            Some(ac) => base_hits(ac, base, patterns.len(), DENSE_LIMIT),
            None => vec![Some(Vec::new()); patterns.len()],
        };
        Sequential::with_hits(
            MemText::new(base),
            initial.into_iter().collect(),
            patterns,
            automaton,
            hits,
        )
    }

    /// The finished text as splices of the base. Blocks are disjoint and kept in base
    /// order, so an error is filekit's own.
    pub fn into_splices(self) -> Result<Splices, SpliceError> {
        let base = self.base.text;
        Splices::new(base, self.into_blocks())
    }
}

impl<B: BaseText> Sequential<B> {
    /// An editor over `base` that already carries `initial` (sorted, disjoint splices of it),
    /// and will be asked for `patterns`, which `automaton` finds; `hits` are their
    /// occurrences in the base ([`base_hits`]: `None` for a pattern found too often).
    pub fn with_hits(
        base: B,
        initial: Vec<Splice>,
        patterns: Vec<String>,
        automaton: Option<AhoCorasick>,
        hits: Hits,
    ) -> Self {
        let context = patterns
            .iter()
            .map(|p| p.len())
            .max()
            .unwrap_or(1)
            .saturating_sub(1);
        let mut editor = Sequential {
            deltas: LineDeltas::new(base.len()),
            base,
            blocks: BTreeMap::new(),
            live: HashMap::new(),
            next_id: 0,
            hints: vec![Vec::new(); patterns.len()],
            patterns,
            automaton,
            base_hits: hits,
            context,
            version: 0,
            dense_found: None,
        };
        for Splice { start, end, text } in initial {
            editor.insert_block((start, end), text);
        }
        for key in editor.blocks.keys().copied().collect::<Vec<_>>() {
            editor.scan_block(key);
        }
        editor
    }

    /// Narrows the context scanned around new blocks to what the patterns still to come need.
    pub fn set_context(&mut self, longest_remaining: usize) {
        self.context = longest_remaining.saturating_sub(1);
    }

    fn newlines(s: &str) -> i64 {
        memchr::memchr_iter(b'\n', s.as_bytes()).count() as i64
    }

    fn insert_block(&mut self, key: (usize, usize), text: String) {
        let id = self.next_id;
        self.next_id += 1;
        self.version += 1;
        let newlines = Self::newlines(&text) - self.base.newlines(key.0, key.1) as i64;
        self.deltas.add(key.0, newlines);
        self.live.insert(id, key);
        self.blocks.insert(key, Block { id, text, newlines });
    }

    fn remove_block(&mut self, key: (usize, usize)) -> Block {
        let block = self.blocks.remove(&key).expect("block exists");
        self.version += 1;
        self.deltas.add(key.0, -block.newlines);
        self.live.remove(&block.id);
        block
    }

    /// The segments of the current text from `pos` on: each a position and the text from it to
    /// the end of its segment.
    fn segments_from(&self, pos: Pos) -> SegmentsFrom<'_, B> {
        SegmentsFrom {
            ed: self,
            next: Some(pos),
        }
    }

    /// The position of the first byte after block `key` or after base byte range ending at
    /// `end_base`, i.e. where the current text continues after base offset `b` given that the
    /// next block may start exactly there.
    fn after(&self, key_or_base_end: (usize, usize), is_block: bool) -> Option<Pos> {
        let b = key_or_base_end.1;
        let next_block = if is_block {
            self.blocks
                .range((
                    std::ops::Bound::Excluded(key_or_base_end),
                    std::ops::Bound::Unbounded,
                ))
                .next()
        } else {
            self.blocks.range((b, 0)..).next()
        };
        match next_block {
            Some((k, _)) if k.0 == b => Some(Pos::Block { key: *k, off: 0 }),
            _ if b < self.base.len() => Some(Pos::Base(b)),
            _ => None,
        }
    }

    /// The segment that `pos` is in, from `pos` to the segment's end.
    fn segment(&self, pos: Pos) -> (Seg<'_>, (usize, usize), bool) {
        match pos {
            Pos::Block { key, off } => (Seg::Block(&self.blocks[&key].text[off..]), key, true),
            Pos::Base(p) => {
                let end = self
                    .blocks
                    .range((p + 1, 0)..)
                    .next()
                    .map(|(k, _)| k.0)
                    .unwrap_or(self.base.len());
                (Seg::Base(p, end), (p, end), false)
            }
        }
    }

    /// The last `need` bytes (or a little more, to a character boundary) of `seg`, which
    /// starts at `start`, with their position; all of it when it is no longer.
    fn tail_of<'s>(&'s self, start: Pos, seg: Seg<'s>, need: usize) -> (Pos, Cow<'s, str>, bool) {
        match seg {
            Seg::Block(t) if t.len() > need => {
                let cut = floor_char_boundary(t, t.len() - need);
                (advance_within(start, cut), Cow::Borrowed(&t[cut..]), true)
            }
            Seg::Block(t) => (start, Cow::Borrowed(t), false),
            Seg::Base(a, b) if b - a > need => {
                let cut = self.base.floor_boundary(b - need).max(a);
                (
                    Pos::Base(cut),
                    Cow::Owned(self.base.text(cut, b).into_owned()),
                    true,
                )
            }
            Seg::Base(a, b) => (start, Cow::Owned(self.base.text(a, b).into_owned()), false),
        }
    }

    /// Up to `max` bytes of current text that come before `pos`, with the position of the
    /// first of them; pieces in text order.
    fn text_before(&self, pos: Pos, max: usize) -> Vec<(Pos, Cow<'_, str>)> {
        let mut pieces: Vec<(Pos, Cow<'_, str>)> = Vec::new();
        let mut need = max;
        // Walk back segment by segment.
        let mut cur = pos;
        while need > 0 {
            // The segment ending right before `cur`.
            let prev: Option<(Pos, Seg<'_>)> = match cur {
                Pos::Block { key, off } if off > 0 => {
                    let t = &self.blocks[&key].text[..off];
                    Some((Pos::Block { key, off: 0 }, Seg::Block(t)))
                }
                Pos::Base(p) => {
                    // Base bytes before p down to the previous block's end, or that block.
                    let prev_block = self.blocks.range(..(p, usize::MAX)).next_back();
                    match prev_block {
                        Some((k, b)) if k.1 == p && k.0 <= p => {
                            Some((Pos::Block { key: *k, off: 0 }, Seg::Block(&b.text)))
                        }
                        Some((k, _)) => Some((Pos::Base(k.1), Seg::Base(k.1, p))),
                        None if p > 0 => Some((Pos::Base(0), Seg::Base(0, p))),
                        None => None,
                    }
                }
                Pos::Block { key, .. } => {
                    let prev_block = self.blocks.range(..key).next_back();
                    match prev_block {
                        Some((k, b)) if k.1 == key.0 => {
                            Some((Pos::Block { key: *k, off: 0 }, Seg::Block(&b.text)))
                        }
                        Some((k, _)) => Some((Pos::Base(k.1), Seg::Base(k.1, key.0))),
                        None if key.0 > 0 => Some((Pos::Base(0), Seg::Base(0, key.0))),
                        None => None,
                    }
                }
            };
            let Some((start, seg)) = prev else { break };
            if seg.len() == 0 {
                cur = start;
                continue;
            }
            let (at, text, cut) = self.tail_of(start, seg, need);
            need = need.saturating_sub(text.len());
            pieces.push((at, text));
            if cut {
                break;
            }
            cur = start;
        }
        pieces.reverse();
        pieces
    }

    /// Up to `max` bytes of current text from `pos` on, as pieces.
    fn text_from(&self, pos: Option<Pos>, max: usize) -> Vec<(Pos, Cow<'_, str>)> {
        let mut pieces = Vec::new();
        let Some(pos) = pos else { return pieces };
        let mut need = max;
        for (p, seg) in self.segments_from(pos) {
            if need == 0 {
                break;
            }
            let text: Cow<'_, str> = match seg {
                Seg::Block(t) if t.len() > need => Cow::Borrowed(&t[..ceil_char_boundary(t, need)]),
                Seg::Block(t) => Cow::Borrowed(t),
                Seg::Base(a, b) => {
                    let end = if b - a > need {
                        self.base.ceil_boundary(a + need).min(b)
                    } else {
                        b
                    };
                    self.base.text(a, end)
                }
            };
            if text.is_empty() {
                continue;
            }
            need = need.saturating_sub(text.len());
            pieces.push((p, text));
        }
        pieces
    }

    /// Scans the neighbourhood of block `key` for every pattern and records hints.
    fn scan_block(&mut self, key: (usize, usize)) {
        let Some(ac) = &self.automaton else { return };
        let block = &self.blocks[&key];
        let before = self.text_before(Pos::Block { key, off: 0 }, self.context);
        let after = self.text_from(self.after(key, true), self.context);
        let mut window = String::new();
        for (_, t) in &before {
            window.push_str(t);
        }
        let lo = window.len();
        window.push_str(&block.text);
        let hi = window.len();
        for (_, t) in &after {
            window.push_str(t);
        }
        let id = block.id;
        let mut found: Vec<usize> = Vec::new();
        for m in ac.find_overlapping_iter(&window) {
            let touches = if lo == hi {
                m.start() < lo && m.end() > lo
            } else {
                m.start() < hi && m.end() > lo
            };
            if touches {
                found.push(m.pattern().as_usize());
            }
        }
        found.sort_unstable();
        found.dedup();
        for p in found {
            self.hints[p].push(id);
        }
    }

    /// Whether base range `s..e` is untouched by every block.
    fn base_untouched(&self, s: usize, e: usize) -> bool {
        match self.blocks.range(..(e, 0)).next_back() {
            Some(((_, b), _)) => *b <= s,
            None => true,
        }
    }

    /// The position `n` bytes after `pos`, if the text is that long.
    fn advance(&self, pos: Pos, n: usize) -> Option<Pos> {
        let mut left = n;
        for (p, seg) in self.segments_from(pos) {
            if left < seg.len() {
                return Some(advance_within(p, left));
            }
            left -= seg.len();
        }
        None
    }

    /// Every occurrence of pattern `pi` in the current text, in text order, overlapping ones
    /// included; `None` for a dense pattern, which is found in the current text instead.
    fn occurrences(&mut self, pi: usize) -> Option<Vec<Pos>> {
        let m = self.patterns[pi].len();
        let mut starts: Vec<Pos> = Vec::new();
        for &s in self.base_hits[pi].as_ref()? {
            if self.base_untouched(s, s + m) {
                starts.push(Pos::Base(s));
            }
        }
        let pattern = self.patterns[pi].clone();
        let mut ids = std::mem::take(&mut self.hints[pi]);
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|id| self.live.contains_key(id));
        for id in &ids {
            let key = self.live[id];
            let before = self.text_before(Pos::Block { key, off: 0 }, m.saturating_sub(1));
            let after = self.text_from(self.after(key, true), m.saturating_sub(1));
            let block_text = self.blocks[&key].text.as_str();
            let mut pieces = before;
            let lo: usize = pieces.iter().map(|(_, t)| t.len()).sum();
            pieces.push((Pos::Block { key, off: 0 }, Cow::Borrowed(block_text)));
            let hi = lo + block_text.len();
            pieces.extend(after);
            let window: String = pieces.iter().map(|(_, t)| t.as_ref()).collect();
            for i in overlapping(window.as_bytes(), pattern.as_bytes()) {
                let touches = if lo == hi {
                    i < lo && i + m > lo
                } else {
                    i < hi && i + m > lo
                };
                if touches {
                    starts.push(pos_in_pieces(&pieces, i));
                }
            }
        }
        // Keep the hints: a later edit may use the same pattern.
        self.hints[pi] = ids;
        starts.sort_unstable();
        starts.dedup();
        Some(starts)
    }

    /// The non-overlapping occurrences of pattern `pi`, leftmost first: how many there are,
    /// and the first `keep` of them with their last bytes. A pattern too frequent to be
    /// tracked in a base not held in memory is [`TooFrequent`].
    pub fn find(&mut self, pi: usize, keep: usize) -> Result<Found, TooFrequent> {
        let m = self.patterns[pi].len();
        let mut found = Found {
            count: 0,
            first: Vec::new(),
        };
        if m == 0 {
            return Ok(found);
        }
        let Some(starts) = self.occurrences(pi) else {
            return self.find_dense(pi, keep);
        };
        let mut last_end: Option<Pos> = None;
        for start in starts {
            if let Some(prev) = last_end
                && start <= prev
            {
                continue;
            }
            // An untouched base occurrence ends in the base; one touching a block is walked.
            let last = match start {
                Pos::Base(s) if self.base_untouched(s, s + m) => Some(Pos::Base(s + m - 1)),
                _ => self.advance(start, m - 1),
            };
            if let Some(last) = last {
                found.count += 1;
                if found.first.len() < keep {
                    found.first.push(Occurrence { start, last });
                }
                last_end = Some(last);
            }
        }
        Ok(found)
    }

    /// [`Sequential::find`] of a dense pattern: in the current text, assembled. What it
    /// finds is kept until the text changes: a run of edits that all fail on the same
    /// frequent text does not assemble it again for each.
    fn find_dense(&mut self, pi: usize, keep: usize) -> Result<Found, TooFrequent> {
        if self.base.whole().is_none() {
            return Err(TooFrequent);
        }
        if let Some((p, v, found)) = &self.dense_found
            && *p == pi
            && *v == self.version
            && (found.first.len() >= keep.min(found.count))
        {
            let mut found = found.clone();
            found.first.truncate(keep);
            return Ok(found);
        }
        let pattern = self.patterns[pi].clone();
        let m = pattern.len();
        let (text, map) = self.current_with_map();
        let mut found = Found {
            count: 0,
            first: Vec::new(),
        };
        for i in memchr::memmem::find_iter(text.as_bytes(), pattern.as_bytes()) {
            found.count += 1;
            if found.first.len() < keep {
                found.first.push(Occurrence {
                    start: map.pos_at(i),
                    last: map.pos_at(i + m - 1),
                });
            }
        }
        self.dense_found = Some((pi, self.version, found.clone()));
        Ok(found)
    }

    /// Replaces the occurrences (non-overlapping, in text order) with `replacement`.
    pub fn replace(&mut self, occurrences: &[Occurrence], replacement: &str) {
        let mut last_created: Option<(usize, usize)> = None;
        for occ in occurrences.iter().rev() {
            let remap = |p: Pos,
                         last_created: Option<(usize, usize)>,
                         blocks: &BTreeMap<(usize, usize), Block>| match p {
                Pos::Block { key, off } if !blocks.contains_key(&key) => Pos::Block {
                    key: last_created.expect("a consumed block was merged into the newest"),
                    off,
                },
                other => other,
            };
            let start = remap(occ.start, last_created, &self.blocks);
            let last = remap(occ.last, last_created, &self.blocks);
            last_created = Some(self.replace_range(start, last, replacement));
        }
    }

    /// Replaces the current text from byte `start` to byte `last` (inclusive) with `text`.
    /// Returns the key of the block that now holds the result.
    fn replace_range(&mut self, start: Pos, last: Pos, text: &str) -> (usize, usize) {
        let (a, prefix) = match start {
            Pos::Base(p) => (p, String::new()),
            Pos::Block { key, off } => (key.0, self.blocks[&key].text[..off].to_string()),
        };
        let (b, suffix) = match last {
            Pos::Base(q) => (q + 1, String::new()),
            Pos::Block { key, off } => {
                // A match ends on a character boundary, so the byte after its last byte is one.
                (key.1, self.blocks[&key].text[off + 1..].to_string())
            }
        };
        let lower = match start {
            Pos::Base(p) => (p + 1, 0),
            Pos::Block { key, .. } => key,
        };
        let upper = match last {
            Pos::Base(q) => (q, usize::MAX),
            Pos::Block { key, .. } => key,
        };
        let consumed: Vec<(usize, usize)> = if lower <= upper {
            self.blocks.range(lower..=upper).map(|(k, _)| *k).collect()
        } else {
            Vec::new()
        };
        for k in consumed {
            self.remove_block(k);
        }
        let mut merged = prefix;
        merged.push_str(text);
        merged.push_str(&suffix);
        let key = (a, b);
        self.insert_block(key, merged);
        self.scan_block(key);
        key
    }

    /// Adds `text` at the very end of the current text.
    pub fn push_end(&mut self, text: &str) {
        let n = self.base.len();
        if self.blocks.contains_key(&(n, n)) {
            let mut t = self.remove_block((n, n)).text;
            t.push_str(text);
            self.insert_block((n, n), t);
        } else {
            self.insert_block((n, n), text.to_string());
        }
        self.scan_block((n, n));
    }

    /// Whether the current text is empty or ends with a line break.
    pub fn ends_with_newline(&self) -> bool {
        let tail = self.text_before_end(1);
        tail.is_empty() || tail.ends_with('\n')
    }

    fn first_pos(&self) -> Option<Pos> {
        match self.blocks.iter().next() {
            Some((k, _)) if k.0 == 0 => Some(Pos::Block { key: *k, off: 0 }),
            _ if !self.base.is_empty() => Some(Pos::Base(0)),
            Some((k, _)) => Some(Pos::Block { key: *k, off: 0 }),
            None => None,
        }
    }

    /// The last `max` bytes of the current text.
    fn text_before_end(&self, max: usize) -> String {
        let n = self.base.len();
        // A position past everything: after block (n, n) if any, else after base end.
        let pieces: Vec<(Pos, Cow<'_, str>)> = match self.blocks.range(..=(n, n)).next_back() {
            Some((k, b)) if k.1 == n => {
                let mut v = self.text_before(Pos::Block { key: *k, off: 0 }, max);
                v.push((
                    Pos::Block { key: *k, off: 0 },
                    Cow::Borrowed(b.text.as_str()),
                ));
                v
            }
            Some((k, _)) => {
                let from = self.base.floor_boundary(n.saturating_sub(max)).max(k.1);
                vec![(Pos::Base(from), self.base.text(from, n))]
            }
            None => {
                let from = self.base.floor_boundary(n.saturating_sub(max));
                vec![(Pos::Base(from), self.base.text(from, n))]
            }
        };
        let s: String = pieces.iter().map(|(_, t)| t.as_ref()).collect();
        let cut = floor_char_boundary(&s, s.len().saturating_sub(max));
        s[cut..].to_string()
    }

    /// The 1-based line of `pos` in the current text: the base's line breaks before it, and
    /// what the blocks before it add or remove (those of earlier buckets from the tree, those
    /// of its own bucket one by one).
    pub fn line_of(&self, pos: Pos) -> usize {
        let (a, extra) = match pos {
            Pos::Base(p) => (p, 0i64),
            Pos::Block { key, off } => (key.0, Self::newlines(&self.blocks[&key].text[..off])),
        };
        let bucket = self.deltas.bucket(a);
        let mut delta = self.deltas.before(bucket);
        let bucket_start = bucket << self.deltas.shift;
        for (k, b) in self.blocks.range((bucket_start, 0)..) {
            let before = match pos {
                Pos::Base(p) => k.0 <= p,
                Pos::Block { key, .. } => *k < key,
            };
            if !before {
                break;
            }
            delta += b.newlines;
        }
        (1 + self.base.newlines_before(a) as i64 + delta + extra) as usize
    }

    /// Up to `max` bytes of current text before and after an occurrence, each cut at a line
    /// break: the whole lines an occurrence stands in.
    pub fn line_context(&self, occ: &Occurrence, max: usize) -> (String, String) {
        // Most lines are short: look at a small span first and widen it only when no line
        // break is in it, so that 10,000 edits do not each copy `max` bytes.
        let mut span = max.min(256);
        let before = loop {
            let text: String = self
                .text_before(occ.start, span)
                .iter()
                .map(|(_, t)| t.as_ref())
                .collect();
            if let Some(i) = text.rfind('\n') {
                break text[i + 1..].to_string();
            }
            if span >= max {
                break text;
            }
            span = (span * 8).min(max);
        };
        let after_start = self.advance(occ.last, 1);
        let mut span = max.min(256);
        let after = loop {
            let text: String = self
                .text_from(after_start, span)
                .iter()
                .map(|(_, t)| t.as_ref())
                .collect();
            if let Some(i) = text.find('\n') {
                break text[..=i].to_string();
            }
            if span >= max {
                break text;
            }
            span = (span * 8).min(max);
        };
        (before, after)
    }

    /// The current text, and a map from its byte offsets back to positions. The whole base
    /// is read: for a base in memory.
    pub fn current_with_map(&self) -> (String, PosMap) {
        let mut text = String::with_capacity(self.base.len());
        let mut marks = Vec::new();
        if let Some(first) = self.first_pos() {
            for (p, seg) in self.segments_from(first) {
                if seg.len() == 0 {
                    continue;
                }
                marks.push((text.len(), p));
                match seg {
                    Seg::Block(t) => text.push_str(t),
                    Seg::Base(a, b) => text.push_str(&self.base.text(a, b)),
                }
            }
        }
        (text, PosMap { marks })
    }

    /// The finished text as splices of the base: sorted and disjoint.
    pub fn into_blocks(self) -> Vec<Splice> {
        self.blocks
            .into_iter()
            .map(|((a, b), block)| Splice::new(a, b, block.text))
            .collect()
    }

    /// Length of the text before any edit: a measure of what a scan of the text costs.
    pub fn base_len(&self) -> usize {
        self.base.len()
    }

    /// Whether the base is held in memory (a near miss is searched in its whole text).
    pub fn in_memory(&self) -> bool {
        self.base.whole().is_some()
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

/// Maps offsets of an assembled current text back to positions.
pub struct PosMap {
    marks: Vec<(usize, Pos)>,
}

impl PosMap {
    pub fn pos_at(&self, offset: usize) -> Pos {
        let i = match self.marks.binary_search_by_key(&offset, |(o, _)| *o) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let (o, p) = self.marks[i];
        advance_within(p, offset - o)
    }
}

struct SegmentsFrom<'e, B: BaseText> {
    ed: &'e Sequential<B>,
    next: Option<Pos>,
}

impl<'e, B: BaseText> Iterator for SegmentsFrom<'e, B> {
    type Item = (Pos, Seg<'e>);
    fn next(&mut self) -> Option<Self::Item> {
        let pos = self.next?;
        let (seg, key, is_block) = self.ed.segment(pos);
        self.next = self.ed.after(key, is_block);
        Some((pos, seg))
    }
}

/// Start offsets of every occurrence of `needle` in `hay`, overlapping ones included.
fn overlapping(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let finder = memchr::memmem::Finder::new(needle);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = finder.find(&hay[from..]) {
        out.push(from + i);
        from += i + 1;
    }
    out
}

fn advance_within(p: Pos, n: usize) -> Pos {
    match p {
        Pos::Base(b) => Pos::Base(b + n),
        Pos::Block { key, off } => Pos::Block { key, off: off + n },
    }
}

fn pos_in_pieces(pieces: &[(Pos, Cow<'_, str>)], mut i: usize) -> Pos {
    for (p, t) in pieces {
        if i < t.len() {
            return advance_within(*p, i);
        }
        i -= t.len();
    }
    unreachable!("offset inside the window")
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference semantics: find in the whole current text, count non-overlapping
    /// matches, replace them if the count is what was expected.
    fn naive(
        base: &str,
        initial: &[(usize, usize, String)],
        edits: &[(String, String, usize)],
    ) -> (String, Vec<bool>, Vec<usize>) {
        let initial = initial.iter().cloned().map(Splice::from).collect();
        let mut text = Splices::new(base, initial).unwrap().apply(base).unwrap();
        let mut ok = Vec::new();
        let mut lines = Vec::new();
        for (old, new, n) in edits {
            let found: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
            if found.len() == *n {
                lines.push(1 + text[..found[0]].matches('\n').count());
                text = text.replace(old.as_str(), new);
                ok.push(true);
            } else {
                ok.push(false);
            }
        }
        (text, ok, lines)
    }

    fn fast(
        base: &str,
        initial: &[(usize, usize, String)],
        edits: &[(String, String, usize)],
    ) -> (String, Vec<bool>, Vec<usize>) {
        let mut patterns: Vec<String> = Vec::new();
        let mut ids = Vec::new();
        for (old, _, _) in edits {
            let id = patterns.iter().position(|p| p == old).unwrap_or_else(|| {
                patterns.push(old.clone());
                patterns.len() - 1
            });
            ids.push(id);
        }
        let initial = initial.iter().cloned().map(Splice::from).collect();
        let mut seq = Sequential::new(base, Splices::new(base, initial).unwrap(), patterns);
        let mut ok = Vec::new();
        let mut lines = Vec::new();
        for (k, (_, new, n)) in edits.iter().enumerate() {
            let longest = edits[k + 1..].iter().map(|e| e.0.len()).max().unwrap_or(0);
            seq.set_context(longest);
            let found = seq.find(ids[k], usize::MAX).unwrap();
            let occ = found.first;
            assert_eq!(occ.len(), found.count);
            if occ.len() == *n {
                lines.push(seq.line_of(occ[0].start));
                seq.replace(&occ, new);
                ok.push(true);
            } else {
                ok.push(false);
            }
            // The position map and the assembled text agree with the splices.
            let (cur, _) = seq.current_with_map();
            let ends = cur.is_empty() || cur.ends_with('\n');
            assert_eq!(seq.ends_with_newline(), ends);
        }
        // Sorted and disjoint, or `into_splices` refuses.
        let text = seq.into_splices().unwrap().apply(base).unwrap();
        (text, ok, lines)
    }

    fn edits_strategy() -> impl Strategy<Value = Vec<(String, String, usize)>> {
        prop::collection::vec(("[ab\n]{1,4}", "[abc\n]{0,4}", 1usize..3), 1..25)
    }

    fn initial_strategy(len: usize) -> impl Strategy<Value = Vec<(usize, usize, String)>> {
        prop::collection::vec((0..=len, 0usize..3, "[ab\n]{0,3}"), 0..4).prop_map(move |v| {
            let mut out: Vec<(usize, usize, String)> = Vec::new();
            let mut sorted: Vec<_> = v
                .into_iter()
                .map(|(s, l, t)| (s, (s + l).min(len), t))
                .collect();
            sorted.sort();
            let mut at = 0;
            for (s, e, t) in sorted {
                if s >= at && !(s == e && out.last().is_some_and(|l| l.0 == s && l.1 == s)) {
                    out.push((s, e, t));
                    at = e.max(s);
                    if e > s {
                        at = e;
                    }
                }
            }
            out
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20_251_127),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn sequential_matches_the_naive_loop(
            (base, initial) in "[ab\n]{0,40}".prop_flat_map(|b| { let n = b.len(); (Just(b), initial_strategy(n)) }),
            edits in edits_strategy(),
        ) {
            let want = naive(&base, &initial, &edits);
            let got = fast(&base, &initial, &edits);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn multibyte_text_and_push_end() {
        let base = "héllo wörld\nzwei\n";
        let mut seq = Sequential::new(base, Splices::none(base), vec!["ö".into(), "zwei".into()]);
        let occ = seq.find(0, 1).unwrap().first;
        assert_eq!(occ.len(), 1);
        seq.replace(&occ, "oe");
        let occ = seq.find(1, 1).unwrap().first;
        seq.replace(&occ, "drei");
        seq.push_end("end\n");
        let (t, _) = seq.current_with_map();
        assert_eq!(t, "héllo woerld\ndrei\nend\n");
    }
}
