//! Three-way merge of whole lines: an agent's edits, made on the version it read (the
//! base), carried into the file as it is now.
//!
//! `ours` is the base with the agent's edits applied; `current` is the base with whatever
//! changed it since (other agents, people). Both are diffed against the base line by line
//! (Myers, as `git merge-file`); each changed region of ours is moved to its lines' place in
//! the current text. A region of ours conflicts with a region of theirs when they overlap or
//! touch (no unchanged base line between them, as `git merge-file` decides), unless both made
//! the very same change. The result is byte splices of the current text, so the pipeline
//! previews, diffs and commits it like any other edit.

use filekit_splices::{Splice, SpliceError, Splices};
use serde::Serialize;
use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};
use std::time::{Duration, Instant};

/// How long one diff may search for the shortest edit script. Past it, `similar` finishes
/// with a valid but coarser diff (Myers is O(N·D): two very different large versions would
/// otherwise take minutes); a coarser diff can only turn a merge into a conflict, never
/// into a wrong merge.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// A changed region: base lines `bs..be` became lines `ns..ne` of the other text (0-based,
/// half-open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hunk {
    bs: usize,
    be: usize,
    ns: usize,
    ne: usize,
}

/// One region where the agent's change and the file's change meet.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Conflict {
    /// Lines of the base (the version the agent read) that the agent changed: first line
    /// (1-based) and how many (0: the agent inserted after line `base_start - 1`).
    pub base_start: usize,
    pub base_count: usize,
    /// Those base lines.
    pub base: String,
    /// What the agent wanted there.
    pub yours: String,
    /// The lines of the file as it is now that were changed over the same region: first
    /// line (1-based) and how many.
    pub current_start: usize,
    pub current_count: usize,
    /// Those lines, as the file has them now.
    pub current: String,
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn hunks(a: &[&str], b: &[&str]) -> Vec<Hunk> {
    let ops =
        capture_diff_slices_deadline(Algorithm::Myers, a, b, Some(Instant::now() + DIFF_DEADLINE));
    let mut out: Vec<Hunk> = Vec::new();
    let mut open: Option<Hunk> = None;
    for op in ops {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            if let Some(h) = open.take() {
                out.push(h);
            }
            continue;
        }
        match &mut open {
            Some(h) => {
                h.be = old.end;
                h.ne = new.end;
            }
            None => {
                open = Some(Hunk {
                    bs: old.start,
                    be: old.end,
                    ns: new.start,
                    ne: new.end,
                })
            }
        }
    }
    out.extend(open);
    out
}

fn starts(ls: &[&str]) -> Vec<usize> {
    let mut s = Vec::with_capacity(ls.len() + 1);
    let mut at = 0;
    for l in ls {
        s.push(at);
        at += l.len();
    }
    s.push(at);
    s
}

/// Merges `ours` (base + the agent's edits) into `current` (base + changes since): the
/// splices of `current` that make the merge, or every conflict. (The inner error would be
/// filekit's own: hunks come in order and never overlap.)
pub fn merge(
    base: &str,
    ours: &str,
    current: &str,
) -> Result<Result<Splices, SpliceError>, Vec<Conflict>> {
    let b = lines(base);
    let o = lines(ours);
    let c = lines(current);
    let mine = hunks(&b, &o);
    let theirs = hunks(&b, &c);
    let c_starts = starts(&c);
    let mut splices = Vec::new();
    let mut conflicts = Vec::new();
    // Theirs hunks are sorted; `first` is the first that may still meet ours.
    let mut first = 0;
    let mut shift: isize = 0; // lines added by theirs hunks wholly before the current hunk
    for h in &mine {
        while first < theirs.len() && theirs[first].be < h.bs {
            let t = theirs[first];
            shift += (t.ne - t.ns) as isize - (t.be - t.bs) as isize;
            first += 1;
        }
        let meeting: Vec<Hunk> = theirs[first..]
            .iter()
            .take_while(|t| t.bs <= h.be)
            .copied()
            .collect();
        if meeting.is_empty() {
            let cs = (h.bs as isize + shift) as usize;
            let ce = (h.be as isize + shift) as usize;
            splices.push(Splice::new(
                c_starts[cs],
                c_starts[ce],
                o[h.ns..h.ne].concat(),
            ));
            continue;
        }
        if let [t] = meeting[..]
            && t.bs == h.bs
            && t.be == h.be
            && o[h.ns..h.ne] == c[t.ns..t.ne]
        {
            // The same change on both sides: already there.
            continue;
        }
        let cs = meeting[0].ns;
        let ce = meeting.last().map_or(cs, |t| t.ne);
        conflicts.push(Conflict {
            base_start: h.bs + 1,
            base_count: h.be - h.bs,
            base: b[h.bs..h.be].concat(),
            yours: o[h.ns..h.ne].concat(),
            current_start: cs + 1,
            current_count: ce - cs,
            current: c[cs..ce].concat(),
        });
    }
    if conflicts.is_empty() {
        Ok(Splices::new(current, splices))
    } else {
        Err(conflicts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(base: &str, ours: &str, current: &str) -> Result<String, Vec<Conflict>> {
        merge(base, ours, current).map(|s| s.unwrap().apply(current).unwrap())
    }

    const BASE: &str = "a\nb\nc\nd\ne\nf\ng\n";

    #[test]
    fn separate_changes_merge() {
        let ours = "a\nB\nc\nd\ne\nf\ng\n";
        let cur = "x\ny\na\nb\nc\nd\ne\nF\ng\n";
        assert_eq!(m(BASE, ours, cur).unwrap(), "x\ny\na\nB\nc\nd\ne\nF\ng\n");
    }

    #[test]
    fn overlapping_and_touching_changes_conflict() {
        let ours = "a\nB\nc\nd\ne\nf\ng\n";
        let err = m(BASE, ours, "a\nb2\nc\nd\ne\nf\ng\n").unwrap_err();
        assert_eq!(err.len(), 1);
        assert_eq!((err[0].base_start, err[0].base_count), (2, 1));
        assert_eq!(err[0].current, "b2\n");
        assert_eq!(err[0].yours, "B\n");
        // Touching: theirs changes c, ours b.
        assert!(m(BASE, ours, "a\nb\nC\nd\ne\nf\ng\n").is_err());
    }

    #[test]
    fn the_same_change_twice_is_not_a_conflict() {
        let both = "a\nB\nc\nd\ne\nf\ng\n";
        assert_eq!(m(BASE, both, both).unwrap(), both);
    }

    #[test]
    fn deletions_and_insertions_move_with_the_text() {
        let ours = "a\nb\nc\nd\nnew\ne\nf\ng\n";
        let cur = "c\nd\ne\nf\ng\n";
        assert_eq!(m(BASE, ours, cur).unwrap(), "c\nd\nnew\ne\nf\ng\n");
    }

    #[test]
    fn a_rewritten_file_conflicts_with_any_change() {
        let base: String = (0..20_000).map(|i| format!("old {i}\n")).collect();
        let cur: String = (0..20_000).map(|i| format!("new {i}\n")).collect();
        let ours = base.replacen("old 100\n", "ours\n", 1);
        let err = m(&base, &ours, &cur).unwrap_err();
        assert_eq!(err[0].yours, "ours\n");
    }

    #[test]
    fn a_last_line_without_a_break_is_kept() {
        assert_eq!(m("a\nb\nc", "A\nb\nc", "a\nb\nc\nd").unwrap(), "A\nb\nc\nd");
    }
}
