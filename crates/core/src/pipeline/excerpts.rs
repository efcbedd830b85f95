//! The diff of a streamed file: excerpts of whole lines around its edited ranges, each read
//! from the file and diffed as a text of its own ([`diff::hunks`]), numbered where it stands
//! in the file. Excerpts reach a line further than the context on each side, and those that
//! would meet are one: hunks are grouped as a diff of the whole file groups them. A diff
//! longer than [`MAX_STREAMED_DIFF`] stops after the hunk that passes it.

use super::streamed::FileText;
use crate::content::RangeEdit;
use crate::diff::{self, CONTEXT, DiffStats, Place};
use crate::limits::MAX_STREAMED_DIFF;
use crate::lines::TextLines;
use crate::sequential::BaseText;
use filekit_splices::Splice;

/// Counts line breaks forward through a text, from where it last counted: the edits come in
/// order, so the lines between them are read once (or, far apart, found by the index).
struct LineCursor<'a> {
    text: &'a FileText,
    at: usize,
    breaks: usize,
}

impl LineCursor<'_> {
    /// The 1-based line that holds byte `offset` (at or after the last one asked).
    fn line_of(&mut self, offset: usize) -> usize {
        if offset < self.at || offset - self.at > 1 << 16 {
            self.breaks = self.text.newlines_before(offset);
        } else {
            let between = self.text.bytes(self.at, offset);
            self.breaks += memchr::memchr_iter(b'\n', &between).count();
        }
        self.at = offset;
        self.breaks + 1
    }
}

/// The unified diff of `text` (a file whose text starts after `body` bytes) with `edits`
/// (ranges of the file's bytes) made, headed by the two names; what it adds and removes; and
/// whether it stopped before the last change.
pub(super) fn diff(
    text: &FileText,
    body: u64,
    edits: &[RangeEdit],
    old_name: &str,
    new_name: &str,
) -> (String, DiffStats, bool) {
    let lines = TextLines::line_count(text);
    let margin = CONTEXT + 1;
    let mut cursor = LineCursor {
        text,
        at: 0,
        breaks: 0,
    };
    // Excerpts as (first line, last line, the edits in them).
    let mut excerpts: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        let (start, end) = ((e.start - body) as usize, (e.end - body) as usize);
        let first = cursor.line_of(start);
        let last = if end > start {
            cursor.line_of(end - 1)
        } else {
            first
        };
        let from = first.saturating_sub(margin).max(1);
        let to = (last + margin).min(lines.max(1));
        match excerpts.last_mut() {
            Some((_, prev_to, range)) if from <= *prev_to + 1 => {
                *prev_to = (*prev_to).max(to);
                range.end = i + 1;
            }
            _ => excerpts.push((from, to, i..i + 1)),
        }
    }
    let mut out = String::new();
    let mut stats = DiffStats::default();
    let mut shift: i64 = 0;
    for (k, (from, to, range)) in excerpts.iter().enumerate() {
        if out.len() as u64 > MAX_STREAMED_DIFF {
            return (out, stats, k < excerpts.len());
        }
        let (a, b) = (TextLines::start(text, *from), TextLines::end(text, *to));
        let excerpt = BaseText::text(text, a, b);
        let splices: Vec<Splice> = edits[range.clone()]
            .iter()
            .map(|e| {
                Splice::new(
                    (e.start - body) as usize - a,
                    (e.end - body) as usize - a,
                    String::from_utf8_lossy(&e.text),
                )
            })
            .collect();
        let place = Place {
            names: out.is_empty().then_some((old_name, new_name)),
            lines_before: from - 1,
            shift,
        };
        let here = diff::hunks(&excerpt, &splices, place, CONTEXT, &mut out);
        stats.added += here.added;
        stats.removed += here.removed;
        shift += here.added as i64 - here.removed as i64;
    }
    (out, stats, false)
}
