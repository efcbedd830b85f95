//! The closest near miss of a search text that was not found.
//!
//! A model that gets "not found" guesses again; a model that is shown where the text nearly is,
//! and how it differs, fixes its edit in one retry. Candidates are found cheaply (line-ending
//! and whitespace-insensitive matches first, then windows of lines that share the most words
//! with the search text) and only the best few are compared character by character.
//!
//! The search and the text are the caller's: a search text of thousands of lines compared with
//! windows of a large file would take minutes (a character diff costs the product of the
//! lengths when the texts differ much). Every step is therefore paid from a [`Work`] budget
//! counted in comparisons, never in time: each scan pays its length, and each character
//! comparison is counted (`distance` is Myers' algorithm, run by this module so that it can
//! count); a diff that shows the alignment is run only when its cost, known from the distance,
//! is within what is left. When the budget runs out the search gives up ([`GaveUp`]) and the
//! caller says so, instead of answering late.
//!
//! A leaf crate: it takes two texts and knows no files, errors or engine, so that the engine's
//! edits and the patch placement (which links no engine) find near misses alike.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use std::collections::HashSet;

/// Character comparisons the near-miss search of one failed edit may make (line-ending and
/// white-space matches, the word windows, the character diffs of the best candidates): a
/// search text of thousands of lines against a large file stops here and says it gave up.
pub const NEAR_MISS_WORK: u64 = 50_000_000;

/// How a near miss differs from what was wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Difference {
    /// Only the line endings differ (LF against CRLF).
    LineEndings,
    /// Only white space differs (indentation, spaces, blank lines).
    Whitespace,
    /// The text itself differs.
    Text,
}

/// Where a search text nearly is.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    /// Byte range of the near miss in the searched text.
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
    /// 1-based line where it starts, and where it ends.
    pub line: usize,
    pub end_line: usize,
    /// 0..1, 1 meaning equal up to the named difference.
    pub similarity: f64,
    pub difference: Difference,
    pub found: String,
    /// Character diff from wanted to found: `[-removed-]` and `{+added+}`.
    pub diff: String,
}

/// A budget of work for near-miss searches, in comparisons: of bytes by the scans, of
/// characters by the diffs (with each step of a diff counted as one).
#[derive(Debug, Clone)]
pub struct Work {
    max: u64,
    spent: u64,
}

/// The budget ran out: the search stopped before it could say what is closest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaveUp;

impl Work {
    pub fn new(max: u64) -> Work {
        Work { max, spent: 0 }
    }

    /// What the budget was.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// How much has been spent (at most [`Work::max`]).
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Whether nothing is left.
    pub fn exhausted(&self) -> bool {
        self.spent >= self.max
    }

    /// Pays `n`, or gives up (spending all that is left) when that is more than is left.
    pub fn spend(&mut self, n: u64) -> Result<(), GaveUp> {
        match self.spent.checked_add(n) {
            Some(total) if total <= self.max => {
                self.spent = total;
                Ok(())
            }
            _ => {
                self.spent = self.max;
                Err(GaveUp)
            }
        }
    }
}

/// The closest near miss of `wanted` in `text`, if anything is reasonably close, with no
/// bound on the work: for texts the caller knows to be small.
pub fn closest(text: &str, wanted: &str) -> Option<NearMiss> {
    closest_within(text, wanted, &mut Work::new(u64::MAX)).unwrap_or(None)
}

/// The closest near miss of `wanted` in `text`, paid from `work`; [`GaveUp`] when the work
/// ran out before the search could tell.
pub fn closest_within(
    text: &str,
    wanted: &str,
    work: &mut Work,
) -> Result<Option<NearMiss>, GaveUp> {
    if wanted.trim().is_empty() || text.is_empty() {
        return Ok(None);
    }
    if let Some(m) = line_ending_match(text, wanted, work)? {
        return Ok(Some(m));
    }
    if let Some(m) = whitespace_match(text, wanted, work)? {
        return Ok(Some(m));
    }
    word_window_match(text, wanted, work)
}

fn make(
    text: &str,
    wanted: &str,
    start: usize,
    end: usize,
    similarity: f64,
    difference: Difference,
    work: &mut Work,
) -> Result<NearMiss, GaveUp> {
    let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count();
    let found = &text[start..end];
    let end_line =
        line + memchr::memchr_iter(b'\n', found.trim_end_matches('\n').as_bytes()).count();
    work.spend(start as u64)?;
    Ok(NearMiss {
        start,
        end,
        line,
        end_line,
        similarity: (similarity * 1000.0).round() / 1000.0,
        difference,
        found: found.to_string(),
        diff: char_diff(&aligned(wanted, found, work)?),
    })
}

fn line_ending_match(
    text: &str,
    wanted: &str,
    work: &mut Work,
) -> Result<Option<NearMiss>, GaveUp> {
    let variants = [
        wanted.replace("\r\n", "\n"),
        wanted.replace("\r\n", "\n").replace('\n', "\r\n"),
    ];
    for v in variants {
        if v == wanted {
            continue;
        }
        work.spend((text.len() + 2 * wanted.len()) as u64)?;
        if let Some(i) = memchr::memmem::find(text.as_bytes(), v.as_bytes()) {
            return make(
                text,
                wanted,
                i,
                i + v.len(),
                1.0,
                Difference::LineEndings,
                work,
            )
            .map(Some);
        }
    }
    Ok(None)
}

/// Text with all white space removed, and the offset in the original of each kept byte.
fn strip_whitespace(s: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(s.len());
    let mut map = Vec::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if !c.is_whitespace() {
            out.push(c);
            map.extend((0..c.len_utf8()).map(|k| i + k));
        }
    }
    (out, map)
}

fn whitespace_match(text: &str, wanted: &str, work: &mut Work) -> Result<Option<NearMiss>, GaveUp> {
    let (w, _) = strip_whitespace(wanted);
    if w.len() < 3 {
        return Ok(None);
    }
    // Stripping, then one search of what is left.
    work.spend((2 * text.len() + wanted.len()) as u64)?;
    let (t, map) = strip_whitespace(text);
    let Some(i) = memchr::memmem::find(t.as_bytes(), w.as_bytes()) else {
        return Ok(None);
    };
    let start = map[i];
    // The byte after the last byte matched: the map has every byte of a kept character, so
    // this is the end of that character, multi-byte or not.
    let end = map[i + w.len() - 1] + 1;
    // Take whole lines when the wanted text starts or ends with line structure.
    let start = if wanted.starts_with(char::is_whitespace) {
        text[..start].rfind('\n').map_or(0, |p| p + 1)
    } else {
        start
    };
    let end = if wanted.ends_with('\n') {
        text[end..].find('\n').map_or(text.len(), |p| end + p + 1)
    } else {
        end
    };
    let sim = ratio(wanted, &text[start..end], work)?;
    make(text, wanted, start, end, sim, Difference::Whitespace, work).map(Some)
}

/// The least similarity a near miss made of different text must have to be shown.
const MIN_SIMILARITY: f64 = 0.3;

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 2)
}

/// The similarity of `a` and `b` (0..1): twice the characters they have in common (their
/// longest common subsequence) over their total length, as `similar`'s ratio of an optimal
/// diff.
fn ratio(a: &str, b: &str, work: &mut Work) -> Result<f64, GaveUp> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    work.spend((a.len() + b.len()) as u64)?;
    let total = a.len() + b.len();
    if total == 0 {
        return Ok(1.0);
    }
    let d = distance(&a, &b, usize::MAX, work)?.unwrap_or(total);
    Ok((total - d) as f64 / total as f64)
}

/// The number of characters to delete and insert to turn `a` into `b` (the length of the
/// shortest edit script: `a.len() + b.len() - 2 * lcs`), by Myers' O((N+M)D) greedy algorithm
/// with one array of furthest-reaching paths; `None` once it is known to be more than
/// `max_d` (which bounds the work at O((N+M) max_d)). Every comparison and every step is paid
/// from `work`, so a pair of long texts that differ much gives up instead of taking minutes.
fn distance(
    a: &[char],
    b: &[char],
    max_d: usize,
    work: &mut Work,
) -> Result<Option<usize>, GaveUp> {
    // Equal ends cost one comparison per character and shorten the search.
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    work.spend((prefix + suffix + 1) as u64)?;
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (n, m) = (a.len() as isize, b.len() as isize);
    if n == 0 || m == 0 {
        return Ok(((n + m) as usize <= max_d).then_some((n + m) as usize));
    }
    let max = n + m;
    let last = max.min(isize::try_from(max_d).unwrap_or(isize::MAX));
    // v[k + max]: the furthest x reached on diagonal k (x - y = k).
    let mut v = vec![0isize; 2 * max as usize + 2];
    // Paid as it goes from what is left, settled with `work` at the end.
    let mut left = work.max - work.spent;
    let found = 'search: {
        for d in 0..=last {
            let mut k = -d;
            while k <= d {
                let i = (k + max) as usize;
                let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                    v[i + 1]
                } else {
                    v[i - 1] + 1
                };
                let mut y = x - k;
                // The snake: equal characters along the diagonal, one comparison each.
                if x < n && y < m {
                    let run = a[x as usize..]
                        .iter()
                        .zip(&b[y as usize..])
                        .take_while(|(p, q)| p == q)
                        .count();
                    x += run as isize;
                    y += run as isize;
                    let cost = run as u64 + 1;
                    if cost > left {
                        break 'search Err(GaveUp);
                    }
                    left -= cost;
                } else if left == 0 {
                    break 'search Err(GaveUp);
                } else {
                    left -= 1;
                }
                v[i] = x;
                if x >= n && y >= m {
                    break 'search Ok(Some(d as usize));
                }
                k += 2;
            }
        }
        Ok(None)
    };
    work.spent = match found {
        Ok(_) => work.max - left,
        Err(GaveUp) => work.max,
    };
    found
}

/// The character diff of `a` and `b`, for showing an alignment: computed by `similar` once
/// its cost, bounded by the distance of the two, is paid.
fn aligned<'a>(a: &'a str, b: &'a str, work: &mut Work) -> Result<TextDiff<'a, 'a, str>, GaveUp> {
    let ca: Vec<char> = a.chars().collect();
    let cb: Vec<char> = b.chars().collect();
    work.spend((ca.len() + cb.len()) as u64)?;
    let d = distance(&ca, &cb, usize::MAX, work)?.unwrap_or(ca.len() + cb.len());
    aligned_at(a, b, ca.len() + cb.len(), d, work)
}

/// [`aligned`] for texts of `chars` characters in all whose distance `d` is known.
fn aligned_at<'a>(
    a: &'a str,
    b: &'a str,
    chars: usize,
    d: usize,
    work: &mut Work,
) -> Result<TextDiff<'a, 'a, str>, GaveUp> {
    // Myers' linear-space diff costs O((N+M)D); twice that covers its halving.
    work.spend(2 * chars as u64 * (d as u64 + 1))?;
    Ok(TextDiff::from_chars(a, b))
}

fn word_window_match(
    text: &str,
    wanted: &str,
    work: &mut Work,
) -> Result<Option<NearMiss>, GaveUp> {
    // All of its words: a search text of thousands of lines is told from its neighbours
    // by the words of all of its lines.
    work.spend(wanted.len() as u64)?;
    let wanted_words: HashSet<&str> = words(wanted).collect();
    if wanted_words.is_empty() {
        return Ok(None);
    }
    // One pass over the text's words.
    work.spend(text.len() as u64)?;
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let line_end = |i: usize| line_starts.get(i + 1).copied().unwrap_or(text.len());
    let scores: Vec<u32> = (0..line_starts.len())
        .map(|i| {
            let line = &text[line_starts[i]..line_end(i)];
            let mut seen: HashSet<&str> = HashSet::new();
            words(line)
                .filter(|w| wanted_words.contains(w) && seen.insert(w))
                .count() as u32
        })
        .collect();
    let k = wanted.trim_end_matches('\n').split('\n').count().max(1);
    let n = line_starts.len();
    let k = k.min(n);
    // Sliding sums of k lines; keep the best few window starts.
    let mut sum: u32 = scores[..k].iter().sum();
    let mut windows: Vec<(u32, usize)> = vec![(sum, 0)];
    for j in 1..=(n - k) {
        sum = sum + scores[j + k - 1] - scores[j - 1];
        windows.push((sum, j));
    }
    windows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    windows.truncate(6);
    let mut best: Option<(f64, usize, usize)> = None;
    let wanted_chars: Vec<char> = wanted.chars().collect();
    let n = wanted_chars.len();
    for &(score, j) in &windows {
        if score == 0 {
            break;
        }
        let (s, e) = (line_starts[j], line_end(j + k - 1));
        // A window is worth aligning only if it can beat the best so far (or the least
        // similarity shown): trimmed to what it has in common with `wanted` (L characters),
        // its similarity is at most 2L / (n + L), so it needs L > need * n / (2 - need),
        // which bounds its distance, and the work of finding it.
        let need = best.map_or(MIN_SIMILARITY, |(r, _, _)| r);
        let common = (need * n as f64 / (2.0 - need)).floor() as usize;
        let window: Vec<char> = text[s..e].chars().collect();
        work.spend((n + window.len()) as u64)?;
        let max_d = (n + window.len()).saturating_sub(2 * common);
        let Some(d) = distance(&wanted_chars, &window, max_d, work)? else {
            continue;
        };
        let diff = aligned_at(wanted, &text[s..e], n + window.len(), d, work)?;
        let (s, e) = trim_to_match(&diff, wanted, s, e);
        let r = ratio(wanted, &text[s..e], work)?;
        if best.is_none_or(|(br, _, _)| r > br) {
            best = Some((r, s, e));
        }
    }
    let Some((r, s, e)) = best else {
        return Ok(None);
    };
    if r < MIN_SIMILARITY {
        return Ok(None);
    }
    make(text, wanted, s, e, r, Difference::Text, work).map(Some)
}

/// Narrows the window `s..e` to the part the character diff aligns with `wanted`, so that a
/// search text that is part of a line is compared with that part.
fn trim_to_match(diff: &TextDiff<'_, '_, str>, wanted: &str, s: usize, e: usize) -> (usize, usize) {
    let window_len = e - s;
    let mut first: Option<usize> = None;
    let mut last = 0;
    let mut at = 0;
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => {
                first.get_or_insert(at);
                last = at + len;
                at += len;
            }
            ChangeTag::Insert => at += len,
            ChangeTag::Delete => {}
        }
    }
    match first {
        Some(f) => {
            // Keep whole lines when the wanted text is whole lines.
            let f = if wanted.starts_with(char::is_whitespace) || f == 0 {
                0
            } else {
                f
            };
            let l = if wanted.ends_with('\n') {
                window_len
            } else {
                last
            };
            (s + f, s + l.max(f))
        }
        None => (s, e),
    }
}

/// `[-removed-]{+added+}` character diff from `wanted` to `found` (as `diff` aligns them),
/// capped in length.
fn char_diff(diff: &TextDiff<'_, '_, str>) -> String {
    let mut out = String::new();
    let mut tag: Option<ChangeTag> = None;
    let close = |out: &mut String, t: Option<ChangeTag>| match t {
        Some(ChangeTag::Delete) => out.push_str("-]"),
        Some(ChangeTag::Insert) => out.push_str("+}"),
        _ => {}
    };
    for change in diff.iter_all_changes() {
        if tag != Some(change.tag()) {
            close(&mut out, tag);
            match change.tag() {
                ChangeTag::Delete => out.push_str("[-"),
                ChangeTag::Insert => out.push_str("{+"),
                ChangeTag::Equal => {}
            }
            tag = Some(change.tag());
        }
        out.push_str(change.value());
        if out.len() > 4000 {
            out.push_str(" ...(cut)");
            tag = None;
            break;
        }
    }
    close(&mut out, tag);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing the planner (fuzz/run planner): a whitespace-only near miss that
    /// ends in a multi-byte character sliced the text inside that character and panicked.
    #[test]
    fn whitespace_near_miss_ending_in_a_multibyte_character() {
        let m = closest("x aé\n", "xaé").unwrap();
        assert_eq!(m.difference, Difference::Whitespace);
        let m = closest("keep\n  a b\u{1F600}\nrest\n", "ab\u{1F600}").unwrap();
        assert_eq!(m.difference, Difference::Whitespace);
        assert_eq!(m.line, 2);
    }

    #[test]
    fn whitespace_only_difference_is_named() {
        let text = "fn a() {\n    let x = 1;\n    let y = 2;\n}\n";
        let m = closest(text, "let x = 1;\nlet y = 2;").unwrap();
        assert_eq!(m.difference, Difference::Whitespace);
        assert_eq!(m.line, 2);
    }

    #[test]
    fn line_ending_difference_is_named() {
        let m = closest("a\r\nb\r\n", "a\nb").unwrap();
        assert_eq!(m.difference, Difference::LineEndings);
    }

    #[test]
    fn text_difference_finds_the_closest_lines() {
        let text = "alpha beta\nconst total = price * qty;\nreturn total;\n";
        let m = closest(text, "const total = price * quantity;").unwrap();
        assert_eq!(m.difference, Difference::Text);
        assert_eq!(m.line, 2);
        assert!(m.similarity > 0.8, "{}", m.similarity);
        // From wanted to found: the file lacks "uanti".
        assert_eq!(m.diff, "const total = price * q[-uanti-]ty;");
    }

    /// The distance is that of an optimal diff: checked against the longest common
    /// subsequence by dynamic programming, on random texts of a small alphabet.
    #[test]
    fn distance_is_exact_and_stops_at_its_cap_and_its_budget() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        for _ in 0..2000 {
            let a: Vec<char> = (0..next(12))
                .map(|_| (b'a' + next(3) as u8) as char)
                .collect();
            let b: Vec<char> = (0..next(12))
                .map(|_| (b'a' + next(3) as u8) as char)
                .collect();
            let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    lcs[i][j] = if a[i - 1] == b[j - 1] {
                        lcs[i - 1][j - 1] + 1
                    } else {
                        lcs[i - 1][j].max(lcs[i][j - 1])
                    };
                }
            }
            let want = a.len() + b.len() - 2 * lcs[a.len()][b.len()];
            let mut work = Work::new(u64::MAX);
            assert_eq!(
                distance(&a, &b, usize::MAX, &mut work),
                Ok(Some(want)),
                "{a:?} {b:?}"
            );
            if want > 0 {
                let got = distance(&a, &b, want - 1, &mut Work::new(u64::MAX));
                assert_eq!(got, Ok(None), "{a:?} {b:?}");
            }
        }
        // Two long texts that differ everywhere: the work runs out, and all of it is spent.
        let a: Vec<char> = "ab".repeat(5_000).chars().collect();
        let b: Vec<char> = "cd".repeat(5_000).chars().collect();
        let mut work = Work::new(1_000_000);
        assert_eq!(distance(&a, &b, usize::MAX, &mut work), Err(GaveUp));
        assert!(work.exhausted());
    }

    #[test]
    fn nothing_close_gives_none() {
        assert!(closest("alpha\nbeta\n", "zzz qqq").is_none());
    }
}
