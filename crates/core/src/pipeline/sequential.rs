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
//! So each edit costs about O(log n + its neighbourhood), and the result is exactly what the
//! naive sequential loop gives (checked against it by a property test).

use aho_corasick::{AhoCorasick, MatchKind};
use filekit_splices::{Splice, SpliceError, Splices};
use std::collections::{BTreeMap, HashMap};

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
}

/// Patterns with more base occurrences than this are matched by scanning the current text.
const DENSE_LIMIT: usize = 1 << 16;

/// A Fenwick tree of line-count deltas by base line, for line numbers in the current text.
struct LineDeltas {
    tree: Vec<i64>,
}

impl LineDeltas {
    fn new(lines: usize) -> Self {
        LineDeltas {
            tree: vec![0; lines + 2],
        }
    }
    fn add(&mut self, line: usize, delta: i64) {
        let mut i = line;
        while i < self.tree.len() {
            self.tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }
    /// Sum of deltas of lines `1..=line`.
    fn prefix(&self, line: usize) -> i64 {
        let mut i = line.min(self.tree.len() - 1);
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

/// The sequential editor over one base text.
pub struct Sequential<'a> {
    base: &'a str,
    /// Start offset of each base line (1-based lines: line n starts at `line_starts[n-1]`).
    line_starts: Vec<usize>,
    blocks: BTreeMap<(usize, usize), Block>,
    live: HashMap<u64, (usize, usize)>,
    next_id: u64,
    patterns: Vec<String>,
    automaton: Option<AhoCorasick>,
    /// Base occurrences of each pattern (start offsets), unless the pattern is dense.
    base_hits: Vec<Option<Vec<usize>>>,
    /// Blocks whose neighbourhood contained each pattern when scanned.
    hints: Vec<Vec<u64>>,
    /// How much context a new block's scan needs: the longest pattern still to come, less one.
    context: usize,
    deltas: LineDeltas,
}

impl<'a> Sequential<'a> {
    /// An editor over `base` that already carries `initial` (splices of `base`), and will be
    /// asked for `patterns`.
    pub fn new(base: &'a str, initial: Splices, patterns: Vec<String>) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', base.as_bytes()).map(|i| i + 1));
        let line_count = line_starts.len();
        let automaton = if patterns.iter().any(|p| !p.is_empty()) {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .ok()
        } else {
            None
        };
        let mut base_hits: Vec<Option<Vec<usize>>> = vec![Some(Vec::new()); patterns.len()];
        if let Some(ac) = &automaton {
            for m in ac.find_overlapping_iter(base) {
                let slot = &mut base_hits[m.pattern().as_usize()];
                if let Some(v) = slot {
                    if v.len() >= DENSE_LIMIT {
                        *slot = None;
                    } else {
                        v.push(m.start());
                    }
                }
            }
        }
        let context = patterns
            .iter()
            .map(|p| p.len())
            .max()
            .unwrap_or(1)
            .saturating_sub(1);
        let mut editor = Sequential {
            base,
            line_starts,
            blocks: BTreeMap::new(),
            live: HashMap::new(),
            next_id: 0,
            hints: vec![Vec::new(); patterns.len()],
            patterns,
            automaton,
            base_hits,
            context,
            deltas: LineDeltas::new(line_count),
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

    fn base_line(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    fn newlines(s: &str) -> i64 {
        memchr::memchr_iter(b'\n', s.as_bytes()).count() as i64
    }

    fn insert_block(&mut self, key: (usize, usize), text: String) {
        let id = self.next_id;
        self.next_id += 1;
        let delta = Self::newlines(&text) - Self::newlines(&self.base[key.0..key.1]);
        self.deltas.add(self.base_line(key.0), delta);
        self.live.insert(id, key);
        self.blocks.insert(key, Block { id, text });
    }

    fn remove_block(&mut self, key: (usize, usize)) -> Block {
        let block = self.blocks.remove(&key).expect("block exists");
        let delta = Self::newlines(&block.text) - Self::newlines(&self.base[key.0..key.1]);
        self.deltas.add(self.base_line(key.0), -delta);
        self.live.remove(&block.id);
        block
    }

    /// The segments of the current text from `pos` on: each a position and the text from it to
    /// the end of its segment.
    fn segments_from(&self, pos: Pos) -> SegmentsFrom<'_, 'a> {
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

    /// Text of the segment that `pos` is in, from `pos` to the segment's end.
    fn segment_text(&self, pos: Pos) -> (&str, (usize, usize), bool) {
        match pos {
            Pos::Block { key, off } => (&self.blocks[&key].text[off..], key, true),
            Pos::Base(p) => {
                let end = self
                    .blocks
                    .range((p + 1, 0)..)
                    .next()
                    .map(|(k, _)| k.0)
                    .unwrap_or(self.base.len());
                (&self.base[p..end], (p, end), false)
            }
        }
    }

    /// Up to `max` bytes of current text that come before `pos`, with the position of the
    /// first of them; pieces in text order.
    fn text_before(&self, pos: Pos, max: usize) -> Vec<(Pos, &str)> {
        let mut pieces: Vec<(Pos, &str)> = Vec::new();
        let mut need = max;
        // Walk back segment by segment.
        let mut cur = pos;
        while need > 0 {
            // The segment ending right before `cur`.
            let prev: Option<(Pos, &str)> = match cur {
                Pos::Block { key, off } if off > 0 => {
                    let t = &self.blocks[&key].text[..off];
                    Some((Pos::Block { key, off: 0 }, t))
                }
                Pos::Base(p) => {
                    // Base bytes before p down to the previous block's end, or that block.
                    let prev_block = self.blocks.range(..(p, usize::MAX)).next_back();
                    match prev_block {
                        Some((k, _)) if k.1 == p && k.0 <= p => {
                            let t = self.blocks[k].text.as_str();
                            Some((Pos::Block { key: *k, off: 0 }, t))
                        }
                        Some((k, _)) => Some((Pos::Base(k.1), &self.base[k.1..p])),
                        None if p > 0 => Some((Pos::Base(0), &self.base[..p])),
                        None => None,
                    }
                }
                Pos::Block { key, .. } => {
                    let prev_block = self.blocks.range(..key).next_back();
                    match prev_block {
                        Some((k, _)) if k.1 == key.0 => {
                            Some((Pos::Block { key: *k, off: 0 }, self.blocks[k].text.as_str()))
                        }
                        Some((k, _)) => Some((Pos::Base(k.1), &self.base[k.1..key.0])),
                        None if key.0 > 0 => Some((Pos::Base(0), &self.base[..key.0])),
                        None => None,
                    }
                }
            };
            let Some((start, text)) = prev else { break };
            if text.is_empty() {
                cur = start;
                continue;
            }
            if text.len() > need {
                let cut = floor_char_boundary(text, text.len() - need);
                let p = advance_within(start, cut);
                pieces.push((p, &text[cut..]));
                break;
            }
            need -= text.len();
            pieces.push((start, text));
            cur = start;
        }
        pieces.reverse();
        pieces
    }

    /// Up to `max` bytes of current text from `pos` on, as pieces.
    fn text_from(&self, pos: Option<Pos>, max: usize) -> Vec<(Pos, &str)> {
        let mut pieces = Vec::new();
        let Some(pos) = pos else { return pieces };
        let mut need = max;
        for (p, t) in self.segments_from(pos) {
            if need == 0 {
                break;
            }
            if t.is_empty() {
                continue;
            }
            let take = if t.len() > need {
                ceil_char_boundary(t, need)
            } else {
                t.len()
            };
            pieces.push((p, &t[..take]));
            need = need.saturating_sub(take);
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
        for (p, t) in self.segments_from(pos) {
            if left < t.len() {
                return Some(advance_within(p, left));
            }
            left -= t.len();
        }
        None
    }

    /// Every occurrence of `pattern` (index `pi`) in the current text, in text order,
    /// overlapping ones included.
    fn occurrences(&mut self, pi: usize) -> Vec<Pos> {
        let pattern = self.patterns[pi].clone();
        let m = pattern.len();
        let mut starts: Vec<Pos> = Vec::new();
        match &self.base_hits[pi] {
            None => {
                // Dense: scan the current text itself.
                let (text, map) = self.current_with_map();
                for i in overlapping(text.as_bytes(), pattern.as_bytes()) {
                    starts.push(map.pos_at(i));
                }
                return starts;
            }
            Some(hits) => {
                for &s in hits {
                    if self.base_untouched(s, s + m) {
                        starts.push(Pos::Base(s));
                    }
                }
            }
        }
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
            pieces.push((Pos::Block { key, off: 0 }, block_text));
            let hi = lo + block_text.len();
            pieces.extend(after);
            let window: String = pieces.iter().map(|(_, t)| *t).collect();
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
        starts
    }

    /// The non-overlapping occurrences of pattern `pi`, leftmost first, with their last bytes.
    pub fn find(&mut self, pi: usize) -> Vec<Occurrence> {
        let m = self.patterns[pi].len();
        if m == 0 {
            return Vec::new();
        }
        let mut out: Vec<Occurrence> = Vec::new();
        for start in self.occurrences(pi) {
            if let Some(prev) = out.last()
                && start <= prev.last
            {
                continue;
            }
            if let Some(last) = self.advance(start, m - 1) {
                out.push(Occurrence { start, last });
            }
        }
        out
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
        if let Some(block) = self.blocks.get(&(n, n)).cloned() {
            let mut t = self.remove_block((n, n)).text;
            debug_assert_eq!(t, block.text);
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
        let pieces = match self.blocks.range(..=(n, n)).next_back() {
            Some((k, b)) if k.1 == n => {
                let mut v = self.text_before(Pos::Block { key: *k, off: 0 }, max);
                v.push((Pos::Block { key: *k, off: 0 }, b.text.as_str()));
                v
            }
            Some((k, _)) => vec![(Pos::Base(k.1), &self.base[k.1..])],
            None => vec![(Pos::Base(0), self.base)],
        };
        let s: String = pieces.iter().map(|(_, t)| *t).collect();
        let cut = floor_char_boundary(&s, s.len().saturating_sub(max));
        s[cut..].to_string()
    }

    /// The 1-based line of `pos` in the current text.
    pub fn line_of(&self, pos: Pos) -> usize {
        let (a, extra) = match pos {
            Pos::Base(p) => (p, 0i64),
            Pos::Block { key, off } => (key.0, Self::newlines(&self.blocks[&key].text[..off])),
        };
        let line = self.base_line(a);
        let mut delta = self.deltas.prefix(line - 1);
        let line_start = self.line_starts[line - 1];
        // Blocks that start on the same base line and stand before `pos`.
        for (k, b) in self.blocks.range((line_start, 0)..) {
            let before = match pos {
                Pos::Base(p) => k.0 <= p,
                Pos::Block { key, .. } => *k < key,
            };
            if !before {
                break;
            }
            delta += Self::newlines(&b.text) - Self::newlines(&self.base[k.0..k.1]);
        }
        (line as i64 + delta + extra) as usize
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
                .map(|(_, t)| *t)
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
                .map(|(_, t)| *t)
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

    /// The current text, and a map from its byte offsets back to positions.
    pub fn current_with_map(&self) -> (String, PosMap) {
        let mut text = String::with_capacity(self.base.len());
        let mut marks = Vec::new();
        if let Some(first) = self.first_pos() {
            for (p, t) in self.segments_from(first) {
                if t.is_empty() {
                    continue;
                }
                marks.push((text.len(), p));
                text.push_str(t);
            }
        }
        (text, PosMap { marks })
    }

    /// The finished text as splices of the base. Blocks are disjoint and kept in base
    /// order, so an error is filekit's own.
    pub fn into_splices(self) -> Result<Splices, SpliceError> {
        Splices::new(
            self.base,
            self.blocks
                .into_iter()
                .map(|((a, b), block)| Splice::new(a, b, block.text))
                .collect(),
        )
    }

    /// Length of the text before any edit: a measure of what a scan of the text costs.
    pub fn base_len(&self) -> usize {
        self.base.len()
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

struct SegmentsFrom<'e, 'a> {
    ed: &'e Sequential<'a>,
    next: Option<Pos>,
}

impl<'e, 'a> Iterator for SegmentsFrom<'e, 'a> {
    type Item = (Pos, &'e str);
    fn next(&mut self) -> Option<Self::Item> {
        let pos = self.next?;
        let (text, key, is_block) = self.ed.segment_text(pos);
        self.next = self.ed.after(key, is_block);
        Some((pos, text))
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

fn pos_in_pieces(pieces: &[(Pos, &str)], mut i: usize) -> Pos {
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
            let occ = seq.find(ids[k]);
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
        #![proptest_config(ProptestConfig::with_cases(2000))]
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
        let occ = seq.find(0);
        assert_eq!(occ.len(), 1);
        seq.replace(&occ, "oe");
        let occ = seq.find(1);
        seq.replace(&occ, "drei");
        seq.push_end("end\n");
        let (t, _) = seq.current_with_map();
        assert_eq!(t, "héllo woerld\ndrei\nend\n");
    }
}
