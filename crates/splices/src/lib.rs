//! # filekit-splices
//!
//! The one value every filekit edit becomes. Line edits, text replacements, sed scripts,
//! semantic operations, import rewrites, language-server edits, merges and patches all end
//! as byte splices of one text: "replace `start..end` by `text`". [`Splices`] is that list as
//! a checked value, in the spirit of helix-core's `ChangeSet`:
//!
//! - it can only be built through checks: every splice inside the text and on character
//!   boundaries, sorted, none overlapping another;
//! - it is tied to the text it edits: its length and content hash are recorded, and
//!   [`Splices::apply`] refuses any other text;
//! - it composes ([`Splices::compose`]), inverts ([`Splices::invert`]) and maps a position
//!   ([`Splices::map`]) or a line ([`Splices::map_line`]) of the old text into the new one.
//!
//! ```
//! use filekit_splices::{Assoc, Splice, Splices};
//!
//! let base = "let a = 1;\nlet b = 2;\n";
//! let edit = Splices::new(base, vec![Splice::new(4, 5, "x"), Splice::new(15, 16, "y")])?;
//! let after = edit.apply(base)?;
//! assert_eq!(after, "let x = 1;\nlet y = 2;\n");
//!
//! // Undo is the inverse, checked against the text it now applies to.
//! assert_eq!(edit.invert(base)?.apply(&after)?, base);
//!
//! // Another edit of the result composes into one edit of the original.
//! let next = Splices::new(&after, vec![Splice::new(0, 0, "// two lets\n")])?;
//! let both = edit.compose(&next)?;
//! assert_eq!(both.apply(base)?, "// two lets\nlet x = 1;\nlet y = 2;\n");
//!
//! // Positions and lines of the original, in the result.
//! assert_eq!(both.map(11, Assoc::Before), 23);
//! assert_eq!(both.map_line(base, 2), 3);
//!
//! // What does not fit is refused, saying why.
//! assert!(Splices::new(base, vec![Splice::new(0, 5, ""), Splice::new(3, 4, "")]).is_err());
//! # Ok::<(), filekit_splices::SpliceError>(())
//! ```

use std::fmt;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// One replacement of the bytes `start..end` of a text by `text`; `start == end` inserts.
///
/// A bare splice is only a proposal: it becomes an edit inside a checked [`Splices`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Splice {
    pub fn new(start: usize, end: usize, text: impl Into<String>) -> Splice {
        Splice {
            start,
            end,
            text: text.into(),
        }
    }

    /// Inserts `text` before byte `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Splice {
        Splice::new(at, at, text)
    }

    /// Removes the bytes `start..end`.
    pub fn delete(start: usize, end: usize) -> Splice {
        Splice::new(start, end, String::new())
    }

    /// How much longer (or, negative, shorter) the text becomes.
    fn growth(&self) -> isize {
        self.text.len() as isize - (self.end - self.start) as isize
    }
}

impl From<(usize, usize, String)> for Splice {
    fn from((start, end, text): (usize, usize, String)) -> Splice {
        Splice { start, end, text }
    }
}

/// Which side of an edit a position sticks to when the edit touches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assoc {
    /// Before what was inserted there (a position inside replaced text goes to its start).
    Before,
    /// After what was inserted there (a position inside replaced text goes to its end).
    After,
}

/// Why splices were refused. Splice numbers are positions in the list as given, from 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpliceError {
    /// `start > end`.
    Reversed {
        splice: usize,
        start: usize,
        end: usize,
    },
    /// The range reaches past the end of the text.
    OutOfBounds {
        splice: usize,
        start: usize,
        end: usize,
        len: usize,
    },
    /// A bound falls inside a multi-byte character.
    NotOnCharBoundary { splice: usize, at: usize },
    /// Two splices change the same bytes, or one inserts inside text another replaces.
    Overlap { first: usize, second: usize },
    /// The list given as ordered is not (see [`Splices::sorted`]).
    NotSorted { splice: usize },
    /// The splices were made for another text than the one they are applied to or composed with.
    WrongText {
        expected_len: usize,
        expected_hash: String,
        found_len: usize,
        found_hash: String,
    },
}

impl fmt::Display for SpliceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpliceError::Reversed { splice, start, end } => {
                write!(f, "splice {splice} ends before it starts ({start}..{end})")
            }
            SpliceError::OutOfBounds {
                splice,
                start,
                end,
                len,
            } => write!(
                f,
                "splice {splice} ({start}..{end}) reaches past the end of the text of {len} bytes"
            ),
            SpliceError::NotOnCharBoundary { splice, at } => write!(
                f,
                "splice {splice} cuts a character at byte {at}: splices must fall on character boundaries"
            ),
            SpliceError::Overlap { first, second } => {
                write!(f, "splices {first} and {second} change overlapping text")
            }
            SpliceError::NotSorted { splice } => write!(
                f,
                "splice {splice} starts before the one listed ahead of it ends: splices must be sorted"
            ),
            SpliceError::WrongText {
                expected_len,
                expected_hash,
                found_len,
                found_hash,
            } => write!(
                f,
                "the splices were made for a text of {expected_len} bytes with hash {expected_hash}, not this one of {found_len} bytes with hash {found_hash}"
            ),
        }
    }
}

impl std::error::Error for SpliceError {}

/// Sorted, non-overlapping splices of one text, tied to that text's length and hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splices {
    base_len: usize,
    base_hash: u64,
    result_len: usize,
    result_hash: u64,
    list: Vec<Splice>,
}

impl Splices {
    /// The edit of `base` that changes nothing.
    pub fn none(base: &str) -> Splices {
        let hash = xxh3_64(base.as_bytes());
        Splices {
            base_len: base.len(),
            base_hash: hash,
            result_len: base.len(),
            result_hash: hash,
            list: Vec::new(),
        }
    }

    /// Splices of `base` given in order: each starts at or after the end of the one before.
    /// Inserts at one place apply in the order given. Splices that change nothing (an empty
    /// insert) are dropped.
    pub fn new(base: &str, splices: Vec<Splice>) -> Result<Splices, SpliceError> {
        let mut last_end = 0;
        for (k, s) in splices.iter().enumerate() {
            check_one(base, k, s)?;
            if s.start < last_end {
                return Err(if k > 0 && s.start < splices[k - 1].start {
                    SpliceError::NotSorted { splice: k }
                } else {
                    SpliceError::Overlap {
                        first: k - 1,
                        second: k,
                    }
                });
            }
            last_end = s.end;
        }
        Ok(Splices::checked(base, splices))
    }

    /// Splices of `base` in any order: sorted by position (inserts at one place keep the
    /// order given), then checked like [`Splices::new`]. An overlap names both splices by
    /// their position in the list as given.
    pub fn sorted(base: &str, splices: Vec<Splice>) -> Result<Splices, SpliceError> {
        for (k, s) in splices.iter().enumerate() {
            check_one(base, k, s)?;
        }
        let mut numbered: Vec<(usize, Splice)> = splices.into_iter().enumerate().collect();
        // Stable: inserts at one place keep their order, and an insert goes before a
        // replacement that starts where it is.
        numbered.sort_by_key(|(_, s)| (s.start, s.end));
        for pair in numbered.windows(2) {
            let (a, sa) = &pair[0];
            let (b, sb) = &pair[1];
            if sb.start < sa.end {
                return Err(SpliceError::Overlap {
                    first: *a.min(b),
                    second: *a.max(b),
                });
            }
        }
        Ok(Splices::checked(
            base,
            numbered.into_iter().map(|(_, s)| s).collect(),
        ))
    }

    /// Builds the value from splices already checked against `base`.
    fn checked(base: &str, mut list: Vec<Splice>) -> Splices {
        list.retain(|s| s.start != s.end || !s.text.is_empty());
        let mut result = Xxh3::new();
        let mut at = 0;
        let mut result_len = base.len();
        for s in &list {
            result.update(&base.as_bytes()[at..s.start]);
            result.update(s.text.as_bytes());
            at = s.end;
            result_len = (result_len as isize + s.growth()) as usize;
        }
        result.update(&base.as_bytes()[at..]);
        Splices {
            base_len: base.len(),
            base_hash: xxh3_64(base.as_bytes()),
            result_len,
            result_hash: result.digest(),
            list,
        }
    }

    /// The splices, sorted.
    pub fn iter(&self) -> std::slice::Iter<'_, Splice> {
        self.list.iter()
    }

    /// The splices, sorted, as a slice (for a consumer that walks them by index).
    pub fn as_slice(&self) -> &[Splice] {
        &self.list
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The length in bytes of the text the splices edit.
    pub fn base_len(&self) -> usize {
        self.base_len
    }

    /// The length in bytes of the text they make.
    pub fn result_len(&self) -> usize {
        self.result_len
    }

    /// The content hash (xxh3, 16 hex digits) of the text the splices edit.
    pub fn base_hash(&self) -> String {
        format!("{:016x}", self.base_hash)
    }

    /// The content hash of the text they make.
    pub fn result_hash(&self) -> String {
        format!("{:016x}", self.result_hash)
    }

    /// Whether `text` is the text these splices were made for.
    pub fn fits(&self, text: &str) -> bool {
        text.len() == self.base_len && xxh3_64(text.as_bytes()) == self.base_hash
    }

    /// `base` with the splices applied; refused if `base` is not the text they were made for.
    pub fn apply(&self, base: &str) -> Result<String, SpliceError> {
        if !self.fits(base) {
            return Err(self.wrong_text(base));
        }
        let mut out = String::with_capacity(self.result_len);
        let mut at = 0;
        for s in &self.list {
            out.push_str(&base[at..s.start]);
            out.push_str(&s.text);
            at = s.end;
        }
        out.push_str(&base[at..]);
        Ok(out)
    }

    /// The splices that turn the result back into `base` (which must be the text these were
    /// made for): what undo applies.
    pub fn invert(&self, base: &str) -> Result<Splices, SpliceError> {
        if !self.fits(base) {
            return Err(self.wrong_text(base));
        }
        let mut shift: isize = 0;
        let list = self
            .list
            .iter()
            .map(|s| {
                let start = (s.start as isize + shift) as usize;
                shift += s.growth();
                Splice::new(start, start + s.text.len(), &base[s.start..s.end])
            })
            .collect();
        Ok(Splices {
            base_len: self.result_len,
            base_hash: self.result_hash,
            result_len: self.base_len,
            result_hash: self.base_hash,
            list,
        })
    }

    /// One edit of the original text that does what `self` then `next` do; `next` must be
    /// splices of the text `self` makes.
    pub fn compose(&self, next: &Splices) -> Result<Splices, SpliceError> {
        if next.base_len != self.result_len || next.base_hash != self.result_hash {
            return Err(SpliceError::WrongText {
                expected_len: self.result_len,
                expected_hash: self.result_hash(),
                found_len: next.base_len,
                found_hash: next.base_hash(),
            });
        }
        // In the coordinates of the middle text, `self`'s splices cover what they inserted and
        // `next`'s what they replace. Each run of ranges that overlap or touch becomes one
        // splice of the original; no byte of the original survives inside a run, so its new
        // text is made of the two edits' texts alone.
        let mut ranges: Vec<Range> = Vec::with_capacity(self.list.len() + next.list.len());
        let mut shift: isize = 0;
        for (k, s) in self.list.iter().enumerate() {
            let start = (s.start as isize + shift) as usize;
            ranges.push(Range {
                start,
                end: start + s.text.len(),
                first: true,
                index: k,
            });
            shift += s.growth();
        }
        for (k, s) in next.list.iter().enumerate() {
            ranges.push(Range {
                start: s.start,
                end: s.end,
                first: false,
                index: k,
            });
        }
        // Stable, so inserts of `next` at one place keep their order.
        ranges.sort_by_key(|r| r.start);
        let mut out = Vec::new();
        let mut i = 0;
        while i < ranges.len() {
            let mut j = i + 1;
            let mut end = ranges[i].end;
            while j < ranges.len() && ranges[j].start <= end {
                end = end.max(ranges[j].end);
                j += 1;
            }
            out.push(self.join_run(next, &ranges[i..j]));
            i = j;
        }
        Ok(Splices {
            base_len: self.base_len,
            base_hash: self.base_hash,
            result_len: next.result_len,
            result_hash: next.result_hash,
            list: out,
        })
    }

    /// The splice of the original text that a run of touching middle-text ranges makes.
    fn join_run(&self, next: &Splices, run: &[Range]) -> Splice {
        let run_start = run[0].start;
        let run_end = run.iter().map(|r| r.end).max().unwrap_or(run_start);
        // Where the run lies in the original: a bound that is a bound of one of `self`'s
        // splices is that splice's; any other lies in text `self` left alone (a splice of
        // `self` touching it would be in the run) and maps back through the shift.
        let start = run
            .iter()
            .filter(|r| r.first && r.start == run_start)
            .map(|r| self.list[r.index].start)
            .min()
            .unwrap_or_else(|| self.to_base(run_start));
        let end = run
            .iter()
            .filter(|r| r.first && r.end == run_end)
            .map(|r| self.list[r.index].end)
            .max()
            .unwrap_or_else(|| self.to_base(run_end));
        // The middle text of the run: `self`'s inserted texts fill it (the rest of it is
        // covered by `next`'s splices, which replace it anyway).
        let mut middle = vec![None::<u8>; run_end - run_start];
        for r in run.iter().filter(|r| r.first) {
            let t = self.list[r.index].text.as_bytes();
            middle[r.start - run_start..r.end - run_start]
                .iter_mut()
                .zip(t)
                .for_each(|(m, b)| *m = Some(*b));
        }
        let mut text: Vec<u8> = Vec::new();
        let mut at = run_start;
        for r in run.iter().filter(|r| !r.first) {
            let s = &next.list[r.index];
            text.extend(middle[at - run_start..s.start - run_start].iter().flatten());
            text.extend_from_slice(s.text.as_bytes());
            at = s.end;
        }
        text.extend(middle[at - run_start..].iter().flatten());
        Splice {
            start,
            end,
            // Whole characters from whole texts: each piece starts and ends on a boundary of
            // the middle text, which is valid UTF-8.
            text: String::from_utf8(text).expect("composed splices cut a character"),
        }
    }

    /// The original position of a middle-text position that no splice of `self` touches.
    fn to_base(&self, pos: usize) -> usize {
        let mut shift: isize = 0;
        for s in &self.list {
            if (s.start as isize + shift) as usize >= pos {
                break;
            }
            shift += s.growth();
        }
        (pos as isize - shift) as usize
    }

    /// Where byte position `pos` of the original text is in the result. A position an edit
    /// touches goes to the start or end of what replaced it, as `assoc` says.
    pub fn map(&self, pos: usize, assoc: Assoc) -> usize {
        let mut shift: isize = 0;
        for s in &self.list {
            if pos < s.start {
                break;
            }
            let new_start = (s.start as isize + shift) as usize;
            let new_end = new_start + s.text.len();
            if s.start == s.end {
                // An insert at `pos`: before or after it.
                if pos == s.start && assoc == Assoc::Before {
                    return new_start;
                }
            } else if pos < s.end {
                return match assoc {
                    Assoc::Before => new_start,
                    Assoc::After => new_end,
                };
            }
            shift += s.growth();
        }
        (pos as isize + shift) as usize
    }

    /// The line (from 1) of the result where line `line` of `base` (the text these splices
    /// were made for) now starts: lines inserted before it, at its start included, push it
    /// down; a line an edit replaced goes to the start of its replacement. Lines past the end
    /// map past the end by the same count.
    pub fn map_line(&self, base: &str, line: usize) -> usize {
        let line = line.max(1);
        // The byte where the line starts, and how many lines past the end it is.
        let (start, beyond) = if line == 1 {
            (0, 0)
        } else {
            match base.match_indices('\n').nth(line - 2) {
                Some((i, _)) => (i + 1, 0),
                None => (base.len(), line - 1 - newlines(base)),
            }
        };
        let line = line - beyond;
        let mut lines = line as isize;
        for s in &self.list {
            // Splices wholly before the line start, or inserting at it, move it down.
            if s.end > start {
                if s.start < start {
                    // The line start was replaced: it now starts where the replacement does.
                    lines -= newlines(&base[s.start..start]) as isize;
                }
                break;
            }
            lines += newlines(&s.text) as isize - newlines(&base[s.start..s.end]) as isize;
        }
        lines.max(1) as usize + beyond
    }

    fn wrong_text(&self, found: &str) -> SpliceError {
        SpliceError::WrongText {
            expected_len: self.base_len,
            expected_hash: self.base_hash(),
            found_len: found.len(),
            found_hash: format!("{:016x}", xxh3_64(found.as_bytes())),
        }
    }
}

impl<'a> IntoIterator for &'a Splices {
    type Item = &'a Splice;
    type IntoIter = std::slice::Iter<'a, Splice>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl IntoIterator for Splices {
    type Item = Splice;
    type IntoIter = std::vec::IntoIter<Splice>;
    /// The splices, sorted, by value (for a consumer that takes their texts).
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

/// A range of the middle text in [`Splices::compose`], and whose splice covers it.
struct Range {
    start: usize,
    end: usize,
    first: bool,
    index: usize,
}

fn check_one(base: &str, k: usize, s: &Splice) -> Result<(), SpliceError> {
    if s.start > s.end {
        return Err(SpliceError::Reversed {
            splice: k,
            start: s.start,
            end: s.end,
        });
    }
    if s.end > base.len() {
        return Err(SpliceError::OutOfBounds {
            splice: k,
            start: s.start,
            end: s.end,
            len: base.len(),
        });
    }
    for at in [s.start, s.end] {
        if !base.is_char_boundary(at) {
            return Err(SpliceError::NotOnCharBoundary { splice: k, at });
        }
    }
    Ok(())
}

fn newlines(s: &str) -> usize {
    s.bytes().filter(|b| *b == b'\n').count()
}

#[cfg(test)]
mod tests;
