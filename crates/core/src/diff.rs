//! Unified diffs of a text and its replacements, computed only where the text changed.
//!
//! The edit engine knows exactly which byte ranges it replaced, so the diff does not compare
//! whole files: each replaced range is widened to whole lines, nearby ranges are joined, and
//! only those regions are diffed line by line. A 10,000-edit request on a 100,000-line file
//! costs time in proportion to what changed, not to the file.

use similar::{DiffTag, TextDiff};

/// Lines of unchanged context around each change.
pub const CONTEXT: usize = 3;

/// One changed region: base lines `old_start..old_start+old.len()` became `new`.
struct Change<'a> {
    /// 0-based index of the first old line.
    old_start: usize,
    old: Vec<&'a str>,
    new: Vec<String>,
}

/// Counts of the lines a diff adds and removes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffStats {
    pub added: usize,
    pub removed: usize,
}

/// The unified diff from `base` to `base` with `splices` (sorted, non-overlapping
/// `(start, end, text)` byte replacements) applied. `old_name`/`new_name` head the diff
/// (`/dev/null` for a created file). Empty when nothing changed.
pub fn unified(
    base: &str,
    splices: &[(usize, usize, String)],
    old_name: &str,
    new_name: &str,
) -> (String, DiffStats) {
    let lines = Lines::new(base);
    let starts = &lines.starts;
    let line_of = |offset: usize| -> usize {
        // Index of the line containing `offset` (lines.len() for the end of the text).
        match starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    };

    let mut changes: Vec<Change> = Vec::new();
    let mut i = 0;
    while i < splices.len() {
        // A region of whole lines, from the start of the first splice's line to the first line
        // boundary after the last splice that joins it.
        let first_line = line_of(splices[i].0);
        let mut region_new = String::new();
        let mut cursor = starts[first_line];
        let mut end_line;
        loop {
            let (s, e, ref t) = splices[i];
            region_new.push_str(&base[cursor..s]);
            region_new.push_str(t);
            cursor = e;
            i += 1;
            let l = line_of(cursor);
            end_line = if starts[l] == cursor { l } else { l + 1 };
            // A removed line break joins the next line to the region.
            while end_line < lines.len() {
                let ends_at_break = match base[cursor..starts[end_line]].chars().last() {
                    Some(c) => c == '\n',
                    None => region_new.is_empty() || region_new.ends_with('\n'),
                };
                if ends_at_break {
                    break;
                }
                end_line += 1;
            }
            if i < splices.len() && splices[i].0 < starts[end_line] {
                continue;
            }
            break;
        }
        let region_end = starts[end_line];
        region_new.push_str(&base[cursor..region_end]);
        let old_region = &base[starts[first_line]..region_end];
        diff_region(old_region, &region_new, first_line, &mut changes);
    }
    render(&lines, &changes, old_name, new_name)
}

/// The unified diff between two whole texts.
pub fn unified_texts(old: &str, new: &str, old_name: &str, new_name: &str) -> (String, DiffStats) {
    if old == new {
        return (String::new(), DiffStats::default());
    }
    unified(old, &[(0, old.len(), new.to_string())], old_name, new_name)
}

fn diff_region<'a>(old: &'a str, new: &str, first_line: usize, out: &mut Vec<Change<'a>>) {
    if old == new {
        return;
    }
    // The usual region of a line-based replace: one line becomes one line.
    let one_line = |t: &str| memchr::memchr(b'\n', t.as_bytes()).is_none_or(|i| i + 1 == t.len());
    if one_line(old) && one_line(new) && !old.is_empty() && !new.is_empty() {
        out.push(Change {
            old_start: first_line,
            old: vec![old],
            new: vec![new.to_string()],
        });
        return;
    }
    let old_lines: Vec<&'a str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    // Most regions are a few lines with nothing in common once equal ends are set aside;
    // those need no diff algorithm (and its allocations), which matters for 10,000 regions.
    let head = old_lines
        .iter()
        .zip(&new_lines)
        .take_while(|(a, b)| a == b)
        .count();
    let tail = old_lines[head..]
        .iter()
        .rev()
        .zip(new_lines[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_mid = &old_lines[head..old_lines.len() - tail];
    let new_mid = &new_lines[head..new_lines.len() - tail];
    if old_mid.len() * new_mid.len() <= 64 && !old_mid.iter().any(|l| new_mid.contains(l)) {
        out.push(Change {
            old_start: first_line + head,
            old: old_mid.to_vec(),
            new: new_mid.iter().map(|s| s.to_string()).collect(),
        });
        return;
    }
    let diff = TextDiff::from_lines(old, new);
    for op in diff.ops() {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        out.push(Change {
            old_start: first_line + o.start,
            old: old_lines[o].to_vec(),
            new: new_lines[n].iter().map(|s| s.to_string()).collect(),
        });
    }
}

/// The lines of a text, found with one `memchr` pass: a diff of a few lines of a large file
/// needs their offsets, not a string slice per line.
struct Lines<'a> {
    text: &'a str,
    /// Where each line starts, then the end of the text.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.last() != Some(&text.len()) {
            starts.push(text.len());
        }
        Lines { text, starts }
    }

    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn get(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.starts[i + 1]]
    }
}

fn push_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

fn render(
    lines: &Lines,
    changes: &[Change],
    old_name: &str,
    new_name: &str,
) -> (String, DiffStats) {
    let mut stats = DiffStats::default();
    if changes.is_empty() {
        return (String::new(), stats);
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Offset of new line numbers against old ones, before the current change.
    let mut shift: i64 = 0;
    let mut c = 0;
    while c < changes.len() {
        // Group changes whose context would touch.
        let mut g = c + 1;
        while g < changes.len() {
            let prev_end = changes[g - 1].old_start + changes[g - 1].old.len();
            if changes[g].old_start > prev_end + 2 * CONTEXT {
                break;
            }
            g += 1;
        }
        let first = &changes[c];
        let ctx_start = first.old_start.saturating_sub(CONTEXT);
        let last = &changes[g - 1];
        let ctx_end = (last.old_start + last.old.len() + CONTEXT).min(lines.len());
        let mut body = String::new();
        let (mut old_count, mut new_count) = (0usize, 0usize);
        let mut line = ctx_start;
        let group_shift_start = shift;
        for ch in &changes[c..g] {
            while line < ch.old_start {
                push_line(&mut body, ' ', lines.get(line));
                old_count += 1;
                new_count += 1;
                line += 1;
            }
            for l in &ch.old {
                push_line(&mut body, '-', l);
            }
            for l in &ch.new {
                push_line(&mut body, '+', l);
            }
            old_count += ch.old.len();
            new_count += ch.new.len();
            stats.removed += ch.old.len();
            stats.added += ch.new.len();
            shift += ch.new.len() as i64 - ch.old.len() as i64;
            line = ch.old_start + ch.old.len();
        }
        while line < ctx_end {
            push_line(&mut body, ' ', lines.get(line));
            old_count += 1;
            new_count += 1;
            line += 1;
        }
        let old_from = if old_count == 0 {
            ctx_start
        } else {
            ctx_start + 1
        };
        let new_start = ctx_start as i64 + group_shift_start;
        let new_from = if new_count == 0 {
            new_start
        } else {
            new_start + 1
        };
        out.push_str(&format!(
            "@@ -{old_from},{old_count} +{new_from},{new_count} @@\n"
        ));
        out.push_str(&body);
        c = g;
    }
    (out, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(base: &str, splices: &[(usize, usize, String)]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for (s, e, t) in splices {
            out.push_str(&base[at..*s]);
            out.push_str(t);
            at = *e;
        }
        out.push_str(&base[at..]);
        out
    }

    /// The region-wise diff must equal a whole-text diff in the lines it adds and removes.
    fn check(base: &str, splices: Vec<(usize, usize, String)>) {
        let new = apply(base, &splices);
        let (d, stats) = unified(base, &splices, "a", "b");
        let (_, full) = unified_texts(base, &new, "a", "b");
        assert_eq!(stats, full, "diff:\n{d}");
        // Applying the diff's + and - lines reconstructs both sides.
        let mut old_side = String::new();
        let mut new_side = String::new();
        for l in d.lines().skip(2) {
            if l.starts_with("@@") || l.starts_with('\\') {
                continue;
            }
            match l.as_bytes()[0] {
                b' ' => {
                    old_side.push_str(&l[1..]);
                    new_side.push_str(&l[1..]);
                }
                b'-' => old_side.push_str(&l[1..]),
                b'+' => new_side.push_str(&l[1..]),
                _ => panic!("bad line {l}"),
            }
        }
        let strip = |s: &str| s.replace('\n', "");
        assert!(strip(base).contains(&old_side), "{d}");
        assert!(strip(&new).contains(&new_side), "{d}");
    }

    #[test]
    fn small_cases() {
        let base = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        check(base, vec![(2, 3, "B".into())]);
        check(base, vec![(0, 0, "top\n".into())]);
        check(base, vec![(base.len(), base.len(), "end\n".into())]);
        check(base, vec![(1, 2, "".into())]); // join lines a and b
        check(base, vec![(2, 4, "".into()), (16, 18, "X\nY\n".into())]);
        check("a\nb", vec![(2, 3, "c".into())]);
        check("a\nb", vec![(1, 3, "".into())]);
        check("", vec![(0, 0, "new\n".into())]);
        // Line-for-line changes (the usual replace) next to each other, apart, at the end of
        // a text without a final line break, and emptied.
        check(
            base,
            vec![(2, 3, "B".into()), (4, 5, "C".into()), (18, 19, "J".into())],
        );
        check("a\nb", vec![(2, 3, "B".into())]);
        check(base, vec![(2, 3, "".into())]);
        check(base, vec![(2, 3, "b1\nb2".into())]);
    }

    #[test]
    fn hunk_header_numbers() {
        let base = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        // Bytes 10..12 are line 6; three lines of context either side.
        let (d, _) = unified(base, &[(10, 12, "SIX\n".into())], "a", "b");
        assert!(d.contains("@@ -3,7 +3,7 @@"), "{d}");
        let (d, _) = unified(base, &[(0, 0, "0\n".into())], "a", "b");
        assert!(d.contains("@@ -1,3 +1,4 @@"), "{d}");
    }
}
