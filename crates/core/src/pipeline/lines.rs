//! Line-addressed edits resolved into byte replacements on the text as read.
//!
//! All line edits of one request refer to the file as it was read (the model numbered the lines it
//! read, not the ones an earlier edit of the same request left), so
//! they are resolved together against that one text and never shift each other's numbers.
//! Two edits that address overlapping lines are a conflict; the later one in the list fails and
//! names the earlier one. Inserts at the same place keep their listed order.

use crate::error::{ErrorCode, Fact, FkError};
use crate::hash;
use crate::text::{Eol, LineIndex, split_new_lines};
use filekit_splices::{Splice, SpliceError, Splices};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A text's lines as line edits address them (see [`LineIndex`]): held in memory, or a
/// streamed file's, found through its index of line breaks.
pub trait TextLines {
    /// How many lines the text has.
    fn line_count(&self) -> usize;
    /// Its length in bytes.
    fn len(&self) -> usize;
    /// Where 1-based line `n` starts; `n = line_count() + 1` gives the end of the text.
    fn start(&self, n: usize) -> usize;
    /// Where line `n` ends, after its line break.
    fn end(&self, n: usize) -> usize;
    /// Bytes `a..b` of the text.
    fn bytes(&self, a: usize, b: usize) -> Cow<'_, [u8]>;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A text in memory with its [`LineIndex`].
pub struct IndexedText<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
}

impl TextLines for IndexedText<'_> {
    fn line_count(&self) -> usize {
        self.index.len()
    }

    fn len(&self) -> usize {
        self.text.len()
    }

    fn start(&self, n: usize) -> usize {
        self.index.start(n)
    }

    fn end(&self, n: usize) -> usize {
        self.index.end(n)
    }

    fn bytes(&self, a: usize, b: usize) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.text.as_bytes()[a..b])
    }
}

/// The text as read, with what line edits need to know about it.
pub struct LineTarget<'a> {
    pub lines: &'a dyn TextLines,
    pub eol: Eol,
    /// The whole file's content hash (of its bytes as stored, BOM included).
    pub file_hash: &'a str,
}

impl LineTarget<'_> {
    fn line_count(&self) -> usize {
        self.lines.line_count()
    }

    fn ends_with_newline(&self) -> bool {
        let len = self.lines.len();
        len == 0 || *self.lines.bytes(len - 1, len) == *b"\n"
    }

    /// Turns a caller's line number (1-based, negative from the end) into 1-based, or says why not.
    fn line_number(&self, n: i64, what: Which) -> Result<usize, FkError> {
        let count = self.line_count() as i64;
        let resolved = if n < 0 { count + 1 + n } else { n };
        if resolved < 1 || resolved > count {
            return Err(out_of_range(what, n, self.line_count()));
        }
        Ok(resolved as usize)
    }

    /// Joins `lines` as whole lines in the file's style, each ending with a line break.
    fn whole_lines(&self, lines: &[&str]) -> String {
        let eol = self.eol.as_str();
        let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 2).sum());
        for l in lines {
            out.push_str(l);
            out.push_str(eol);
        }
        out
    }

    /// Checks a `content_hash` against the whole file or the addressed lines `first..=last`.
    fn check_hash(&self, given: Option<&str>, first: usize, last: usize) -> Result<(), FkError> {
        let Some(given) = given else { return Ok(()) };
        hash::validate(given).map_err(FkError::invalid)?;
        if hash::matches(given, self.file_hash) {
            return Ok(());
        }
        let addressed = (first >= 1 && first <= last && last <= self.line_count()).then(|| {
            self.lines
                .bytes(self.lines.start(first), self.lines.end(last))
        });
        let lines_hash = addressed.as_deref().map(hash::content_hash);
        if let Some(h) = &lines_hash
            && hash::matches(given, h)
        {
            return Ok(());
        }
        let excerpt = match &addressed {
            Some(bytes) => crate::text::number_lines(&String::from_utf8_lossy(bytes), first),
            None => String::new(),
        };
        Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "the version {given} names neither the file as it is now ({}) nor lines {first}-{last} ({}): the file changed since it was read",
                self.file_hash,
                lines_hash.as_deref().unwrap_or("-"),
            ),
        )
        .with_hint("read the file again and redo the edit against the lines as they are now")
        .with_details(serde_json::json!({
            "fact": Fact::Version,
            "given": given,
            "file_hash": self.file_hash,
            "lines_hash": lines_hash,
            "lines": [first, last],
            "current": excerpt,
        })))
    }

    /// Replace lines `start..=end` (`end` None: to the end of the file) with the lines of `new`.
    pub fn replace_lines(
        &self,
        start: i64,
        end: Option<i64>,
        new: &str,
        content_hash: Option<&str>,
    ) -> Result<Splice, FkError> {
        let count = self.line_count();
        // Starting one past the last line with no end is an append: "replace from here on".
        if end.is_none() && start == count as i64 + 1 {
            self.check_hash(content_hash, 1, count)?;
            return self.insert_after(count as i64, new, None);
        }
        let s = self.line_number(start, Which::Start)?;
        let e = match end {
            None => count,
            Some(e) => self.line_number(e, Which::End)?,
        };
        if e < s {
            return Err(FkError::invalid(format!(
                "end line {} is before start line {start}",
                end.unwrap_or_default()
            ))
            .with_hint("give a start line at or before the end line (both 1-based, inclusive)")
            .with_details(serde_json::json!({
                "fact": Fact::LineOrder,
                "start": start,
                "end": end,
            })));
        }
        self.check_hash(content_hash, s, e)?;
        let lines = split_new_lines(new);
        let mut range = (self.lines.start(s), self.lines.end(e));
        let mut text = self.whole_lines(&lines);
        if e == count && !self.ends_with_newline() {
            // The last line had no line break: the new last line gets none either.
            if lines.is_empty() {
                if s > 1 {
                    // Deleting the tail: the new last line loses its break, as the old one had none.
                    let prev_end = self.lines.end(s - 1);
                    let crlf =
                        prev_end >= 2 && *self.lines.bytes(prev_end - 2, prev_end) == *b"\r\n";
                    let eol_len = if crlf { 2 } else { 1 };
                    range.0 = prev_end - eol_len;
                }
            } else {
                text.truncate(text.len() - self.eol.as_str().len());
            }
        }
        Ok(Splice {
            start: range.0,
            end: range.1,
            text,
        })
    }

    /// Insert the lines of `new` after line `after` (0 = at the top; negative from the end).
    pub fn insert_after(
        &self,
        after: i64,
        new: &str,
        content_hash: Option<&str>,
    ) -> Result<Splice, FkError> {
        let count = self.line_count();
        let k = if after < 0 {
            count as i64 + 1 + after
        } else {
            after
        };
        if k < 0 || k > count as i64 {
            return Err(out_of_range(Which::After, after, count));
        }
        let k = k as usize;
        if k >= 1 {
            self.check_hash(content_hash, k, k)?;
        } else {
            self.check_hash(content_hash, 1, 0)?;
        }
        let lines = split_new_lines(new);
        if lines.is_empty() {
            let at = if k == 0 { 0 } else { self.lines.end(k) };
            return Ok(Splice {
                start: at,
                end: at,
                text: String::new(),
            });
        }
        if k == count && count > 0 && !self.ends_with_newline() {
            let mut text = String::from(self.eol.as_str());
            text.push_str(&lines.join(self.eol.as_str()));
            return Ok(Splice {
                start: self.lines.len(),
                end: self.lines.len(),
                text,
            });
        }
        let at = if k == 0 { 0 } else { self.lines.end(k) };
        Ok(Splice {
            start: at,
            end: at,
            text: self.whole_lines(&lines),
        })
    }
}

/// Which line number of an edit is out of range.
#[derive(Clone, Copy)]
enum Which {
    Start,
    End,
    After,
}

fn out_of_range(which: Which, n: i64, count: usize) -> FkError {
    let (label, key) = match which {
        Which::Start => ("start line", "start"),
        Which::End => ("end line", "end"),
        Which::After => ("the line to insert after,", "after"),
    };
    let hint = match which {
        _ if count == 0 => {
            "the file is empty: insert at the top (after line 0) or append instead".to_string()
        }
        Which::After => format!("0 inserts at the top, {count} at the end"),
        _ => format!("lines are 1-based: use 1..{count}, or -1 for the last line"),
    };
    FkError::invalid(format!(
        "{label} {n} is out of range: the file has {count} line{}",
        if count == 1 { "" } else { "s" }
    ))
    .with_hint(hint)
    .with_details(serde_json::json!({
        "fact": Fact::LineOutOfRange,
        "which": key,
        "value": n,
        "line_count": count,
    }))
}

/// Splices accepted so far, checked for overlap as each new one arrives: the collector of a
/// request's edits of one file, which names *which* two edits overlap (in the words of each),
/// and then yields the checked [`Splices`].
#[derive(Default)]
pub struct SpliceSet {
    /// (start, end, list position) -> (edit index, text)
    accepted: BTreeMap<(usize, usize), (usize, String)>,
    /// Human description of each accepted edit by its index, for conflict messages.
    described: BTreeMap<usize, String>,
}

impl SpliceSet {
    /// Accepts `splice` from edit `index` (described in neutral words as `what`, e.g. "lines 3-5"), or
    /// fails naming the earlier edit it overlaps. Inserts at one place join in listed order.
    pub fn add(&mut self, index: usize, what: String, splice: Splice) -> Result<(), FkError> {
        let Splice { start, end, text } = splice;
        if let Some(other) = self.overlapping(start, end) {
            let other_what = self.described.get(&other).cloned().unwrap_or_default();
            return Err(FkError::new(
                ErrorCode::Conflict,
                format!(
                    "this edit ({what}) overlaps an earlier edit of the file ({other_what}): line edits and pattern replacements in one request all refer to the file as read, so they may not change the same text"
                ),
            )
            .with_hint("merge the two edits into one, or send the second in a later request")
            .with_details(serde_json::json!({
                "fact": Fact::EditsOverlap,
                "edit": index,
                "what": what,
                "conflicts_with": other,
                "other_what": other_what,
            })));
        }
        self.described.insert(index, what);
        match self.accepted.get_mut(&(start, end)) {
            Some((_, existing)) if start == end => existing.push_str(&text),
            _ => {
                self.accepted.insert((start, end), (index, text));
            }
        }
        Ok(())
    }

    /// Accepts all of `splices` (sorted, disjoint) from edit `index`, or none of them when
    /// any overlaps an earlier edit.
    pub fn add_all(
        &mut self,
        index: usize,
        what: String,
        splices: Vec<Splice>,
    ) -> Result<(), FkError> {
        for s in &splices {
            if self.overlapping(s.start, s.end).is_some() {
                return self.add(index, what, s.clone());
            }
        }
        for s in splices {
            self.add(index, what.clone(), s)?;
        }
        Ok(())
    }

    fn overlapping(&self, start: usize, end: usize) -> Option<usize> {
        // The accepted range that starts last before our end is the only one that can reach us.
        let upper = if start == end {
            (start, start)
        } else {
            (end, 0)
        };
        let before = self
            .accepted
            .range(..upper)
            .rev()
            .find(|((s, e), _)| !(s == e && *s == start && start == end));
        if let Some(((s, e), (i, _))) = before {
            let hit = if start == end {
                s < e && *s < start && start < *e
            } else if s == e {
                start < *s && *s < end
            } else {
                *s < end && start < *e
            };
            if hit {
                return Some(*i);
            }
        }
        if start < end {
            // An insert strictly inside our range.
            if let Some((_, (i, _))) = self
                .accepted
                .range((start + 1, 0)..(end, 0))
                .find(|((s, e), _)| s == e)
            {
                return Some(*i);
            }
        }
        None
    }

    /// The accepted splices as one edit of `base` (the text they were resolved on). Inserts
    /// at one place were joined in listed order, so they are in order and disjoint already:
    /// an error is filekit's own.
    pub fn into_splices(self, base: &str) -> Result<Splices, SpliceError> {
        Splices::new(base, self.into_sorted())
    }

    /// The accepted splices, sorted (and disjoint, the set saw to it): for a text that is not
    /// held to check them against (a streamed file's, whose offsets its reads checked).
    pub fn into_sorted(self) -> Vec<Splice> {
        self.accepted
            .into_iter()
            .map(|((start, end), (_, text))| Splice { start, end, text })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, splices: &[Splice]) -> String {
        Splices::new(text, splices.to_vec())
            .and_then(|s| s.apply(text))
            .unwrap()
    }

    fn target(text: &str) -> (LineIndex, Eol) {
        (LineIndex::new(text), Eol::detect(text))
    }

    fn run(text: &str, f: impl Fn(&LineTarget) -> Result<Splice, FkError>) -> String {
        let (index, eol) = target(text);
        let lines = IndexedText {
            text,
            index: &index,
        };
        let t = LineTarget {
            lines: &lines,
            eol,
            file_hash: &hash::content_hash(text.as_bytes()),
        };
        let s = f(&t).unwrap();
        apply(text, &[s])
    }

    #[test]
    fn replace_keeps_final_newline_state() {
        assert_eq!(
            run("a\nb\nc\n", |t| t.replace_lines(2, Some(2), "X", None)),
            "a\nX\nc\n"
        );
        assert_eq!(
            run("a\nb\nc", |t| t.replace_lines(3, Some(3), "X\n", None)),
            "a\nb\nX"
        );
        assert_eq!(
            run("a\nb\nc", |t| t.replace_lines(2, Some(3), "", None)),
            "a"
        );
        assert_eq!(
            run("a\nb\nc\n", |t| t.replace_lines(2, Some(3), "", None)),
            "a\n"
        );
        assert_eq!(
            run("a\r\nb\r\n", |t| t.replace_lines(1, Some(1), "X\nY", None)),
            "X\r\nY\r\nb\r\n"
        );
        assert_eq!(
            run("a\nb\nc\n", |t| t.replace_lines(-1, None, "Z", None)),
            "a\nb\nZ\n"
        );
        assert_eq!(
            run("a\nb\n", |t| t.replace_lines(3, None, "c", None)),
            "a\nb\nc\n"
        );
    }

    #[test]
    fn insert_rules() {
        assert_eq!(run("a\nb\n", |t| t.insert_after(0, "X", None)), "X\na\nb\n");
        assert_eq!(
            run("a\nb\n", |t| t.insert_after(1, "X\n", None)),
            "a\nX\nb\n"
        );
        assert_eq!(run("a\nb", |t| t.insert_after(2, "X", None)), "a\nb\nX");
        assert_eq!(run("", |t| t.insert_after(0, "X", None)), "X\n");
        assert_eq!(run("a\n", |t| t.insert_after(-1, "\n", None)), "a\n\n");
    }

    #[test]
    fn out_of_range_and_conflicts() {
        let text = "a\nb\nc\n";
        let (index, eol) = target(text);
        let h = hash::content_hash(text.as_bytes());
        let lines = IndexedText {
            text,
            index: &index,
        };
        let t = LineTarget {
            lines: &lines,
            eol,
            file_hash: &h,
        };
        assert!(
            t.replace_lines(4, Some(4), "x", None)
                .unwrap_err()
                .message
                .contains("3 lines")
        );
        assert!(t.replace_lines(0, Some(1), "x", None).is_err());
        assert_eq!(
            t.replace_lines(1, Some(1), "x", Some("deadbeef"))
                .unwrap_err()
                .code,
            ErrorCode::Stale
        );
        assert!(t.replace_lines(2, Some(2), "x", Some(&h[..8])).is_ok());
        let line2 = hash::content_hash(b"b\n");
        assert!(t.replace_lines(2, Some(2), "x", Some(&line2)).is_ok());

        let mut set = SpliceSet::default();
        set.add(
            0,
            "r 1-2".into(),
            t.replace_lines(1, Some(2), "x", None).unwrap(),
        )
        .unwrap();
        let err = set
            .add(
                1,
                "r 2-3".into(),
                t.replace_lines(2, Some(3), "y", None).unwrap(),
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(
            err.message
                .contains("overlaps an earlier edit of the file (r 1-2)")
        );
        assert_eq!(err.details["conflicts_with"], 0);
        assert_eq!(err.details["edit"], 1);
        // Inside insert conflicts; inserts at the boundary do not.
        let err = set
            .add(2, "i 1".into(), t.insert_after(1, "z", None).unwrap())
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        set.add(3, "i 2".into(), t.insert_after(2, "p", None).unwrap())
            .unwrap();
        set.add(4, "i 2".into(), t.insert_after(2, "q", None).unwrap())
            .unwrap();
        set.add(5, "i 0".into(), t.insert_after(0, "top", None).unwrap())
            .unwrap();
        assert_eq!(
            set.into_splices(text).unwrap().apply(text).unwrap(),
            "top\nx\np\nq\nc\n"
        );
    }
}
