//! The places a hunk fits at one level of tolerance. The work is linear in the file: each
//! level's lines are numbered once per text (equal lines, one number), and a hunk is found
//! with one scan of those numbers (Knuth-Morris-Pratt), whatever its length or the file's
//! repetitions. What each place costs beyond that (the indentation check, the blank lines
//! between lines) is paid from the placement's budget.

use super::drift::{Drift, Indent, find_drift};
use super::{Around, Failure};
use filekit_nearmiss::Work;
use std::borrow::Cow;
use std::collections::HashMap;

/// The level that compares lines one for one with the most tolerance: the blank-line level
/// compares the non-blank lines as it does.
pub(super) const LINE_LEVELS: usize = 5;
pub(super) const BLANK_LEVEL: usize = 5;

/// The places of a hunk named in a refusal, at most.
pub(super) const SHOWN_PLACES: usize = 10;

/// One line of the file: bytes `start..content_end` are its text, `..end` with its line end.
#[derive(Debug, Clone, Copy)]
pub(super) struct FLine {
    pub(super) start: usize,
    pub(super) content_end: usize,
    pub(super) end: usize,
}

pub(super) fn split_lines(text: &str) -> Vec<FLine> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let nl = memchr::memchr(b'\n', &b[start..]).map(|k| start + k);
        let (content_end, end) = match nl {
            Some(n) if n > start && b[n - 1] == b'\r' => (n - 1, n + 1),
            Some(n) => (n, n + 1),
            None => (b.len(), b.len()),
        };
        out.push(FLine {
            start,
            content_end,
            end,
        });
        start = end;
    }
    out
}

pub(super) fn typographic(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
        c => c,
    }
}

/// Runs of white space inside a trimmed line made one space (borrowed when there are none).
pub(super) fn squeeze(s: &str) -> Cow<'_, str> {
    let mut prev_space = false;
    let plain = s.chars().all(|c| {
        let ok = if c == ' ' {
            !prev_space
        } else {
            !c.is_whitespace()
        };
        prev_space = c == ' ';
        ok
    });
    if plain {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// A line as compared at a level (borrowed from the line when the level changes nothing but
/// its ends).
pub(super) fn norm(line: &str, level: usize) -> Cow<'_, str> {
    match level {
        0 => Cow::Borrowed(line),
        1 => Cow::Borrowed(line.trim_end()),
        2 => Cow::Borrowed(line.trim()),
        3 => squeeze(line.trim()),
        _ if line.chars().any(|c| c == '\u{2026}' || typographic(c) != c) => {
            let ascii: String = line
                .replace('\u{2026}', "...")
                .chars()
                .map(typographic)
                .collect();
            Cow::Owned(squeeze(ascii.trim()).into_owned())
        }
        _ => squeeze(line.trim()),
    }
}

/// Where a hunk's old lines are: file lines `first..last_excl`, and for each old line the file
/// line it is (`map`; `None` when they are the lines `first..` one for one).
#[derive(Debug, Clone)]
pub(super) struct Place {
    pub(super) first: usize,
    pub(super) last_excl: usize,
    pub(super) map: Option<Vec<Option<usize>>>,
    pub(super) drift: Drift,
}

impl Place {
    /// The file line old line `k` is, if any.
    pub(super) fn at(&self, k: usize) -> Option<usize> {
        match &self.map {
            None => Some(self.first + k),
            Some(map) => map.get(k).copied().flatten(),
        }
    }
}

/// The budget ran out while a hunk was being placed.
pub(super) struct Spent;

impl From<filekit_nearmiss::GaveUp> for Spent {
    fn from(_: filekit_nearmiss::GaveUp) -> Spent {
        Spent
    }
}

/// The lines of one level, numbered: equal lines (as the level compares them), one number.
pub(super) struct Numbered<'t> {
    pub(super) ids: Vec<u32>,
    pub(super) table: HashMap<Cow<'t, str>, u32>,
}

impl Numbered<'_> {
    /// The numbers of `old`'s lines at `level`, or `None` when one of them is in no line of
    /// the file (then the hunk is nowhere at this level).
    pub(super) fn pattern(&self, old: &[&str], level: usize) -> Option<Vec<u32>> {
        old.iter()
            .map(|l| self.table.get(norm(l, level).as_ref()).copied())
            .collect()
    }
}

/// The non-blank lines of the file: their line numbers, and their numbers at the most
/// tolerant line level.
pub(super) struct NonBlank {
    pub(super) at: Vec<usize>,
    pub(super) ids: Vec<u32>,
}

/// One text, split into lines, with each level's numbering made when first needed.
pub(super) struct Index<'t> {
    pub(super) text: &'t str,
    pub(super) lines: Vec<FLine>,
    pub(super) levels: [Option<Numbered<'t>>; LINE_LEVELS],
    pub(super) nonblank: Option<NonBlank>,
    /// Each line's indentation, made when a tolerant level first needs it.
    pub(super) indents: Option<Vec<Indent>>,
    /// The line end added lines take: the file's.
    pub(super) eol: &'static str,
    pub(super) ends_without_newline: bool,
}

impl<'t> Index<'t> {
    pub(super) fn new(text: &'t str, work: &mut Work) -> Result<Index<'t>, Spent> {
        work.spend(text.len() as u64)?;
        let lines = split_lines(text);
        let crlf = lines
            .iter()
            .any(|l| l.end > l.content_end + 1 && text.as_bytes()[l.content_end] == b'\r');
        Ok(Index {
            text,
            lines,
            levels: Default::default(),
            nonblank: None,
            indents: None,
            eol: if crlf { "\r\n" } else { "\n" },
            ends_without_newline: !text.is_empty() && !text.ends_with('\n'),
        })
    }

    /// The numbering of a level made before.
    pub(super) fn numbered(&self, level: usize) -> &Numbered<'t> {
        self.levels[level].as_ref().expect("numbered before")
    }

    pub(super) fn line(&self, k: usize) -> &'t str {
        let l = self.lines[k];
        &self.text[l.start..l.content_end]
    }

    pub(super) fn blank(&self, k: usize) -> bool {
        self.line(k).trim().is_empty()
    }

    pub(super) fn level(&mut self, level: usize, work: &mut Work) -> Result<&Numbered<'t>, Spent> {
        if self.levels[level].is_none() {
            work.spend(self.text.len() as u64 + 4 * self.lines.len() as u64)?;
            let mut table: HashMap<Cow<'t, str>, u32> = HashMap::new();
            let text = self.text;
            let ids = self
                .lines
                .iter()
                .map(|l| {
                    let next = table.len() as u32;
                    *table
                        .entry(norm(&text[l.start..l.content_end], level))
                        .or_insert(next)
                })
                .collect();
            self.levels[level] = Some(Numbered { ids, table });
        }
        Ok(self.numbered(level))
    }

    pub(super) fn nonblank(&mut self, work: &mut Work) -> Result<&NonBlank, Spent> {
        if self.nonblank.is_none() {
            let most = LINE_LEVELS - 1;
            self.level(most, work)?;
            let ids = &self.numbered(most).ids;
            let at: Vec<usize> = (0..self.lines.len()).filter(|&k| !self.blank(k)).collect();
            let nb_ids = at.iter().map(|&k| ids[k]).collect();
            self.nonblank = Some(NonBlank { at, ids: nb_ids });
        }
        Ok(self.nonblank.as_ref().expect("made above"))
    }

    /// Each line's indentation, for the tolerant levels' drift check.
    pub(super) fn indents(&mut self, work: &mut Work) -> Result<&[Indent], Spent> {
        if self.indents.is_none() {
            work.spend(self.text.len() as u64)?;
            self.indents = Some(
                (0..self.lines.len())
                    .map(|k| Indent::of(self.line(k)))
                    .collect(),
            );
        }
        Ok(self.indents.as_deref().expect("made above"))
    }
}

/// Every start at or after `from` where `pat` occurs in `seq`, in order (Knuth-Morris-Pratt:
/// one pass, whatever the repetitions).
pub(super) fn occurrences(
    seq: &[u32],
    pat: &[u32],
    from: usize,
    work: &mut Work,
) -> Result<Vec<usize>, Spent> {
    let mut out = Vec::new();
    if pat.is_empty() || from >= seq.len() || pat.len() > seq.len() - from {
        return Ok(out);
    }
    work.spend((seq.len() - from + 2 * pat.len()) as u64)?;
    let mut fail = vec![0usize; pat.len()];
    let mut k = 0;
    for i in 1..pat.len() {
        while k > 0 && pat[i] != pat[k] {
            k = fail[k - 1];
        }
        if pat[i] == pat[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let mut k = 0;
    for (i, &x) in seq.iter().enumerate().skip(from) {
        while k > 0 && x != pat[k] {
            k = fail[k - 1];
        }
        if x == pat[k] {
            k += 1;
        }
        if k == pat.len() {
            out.push(i + 1 - pat.len());
            k = fail[k - 1];
        }
    }
    Ok(out)
}

/// The places a hunk fits at one level.
pub(super) struct Found {
    /// The first places, in file order (at most [`SHOWN_PLACES`]).
    pub(super) places: Vec<Place>,
    /// More places may follow those (not all were checked).
    pub(super) more: bool,
    /// Every place was at or after the cursor.
    pub(super) from_cursor: bool,
    /// The place the line number names, and the one it names moved by the last hunk's shift.
    pub(super) by_hint: Option<Place>,
    pub(super) by_moved: Option<Place>,
}

/// A hunk's old lines and what is known of them, for the searches of each level.
pub(super) struct Wanted<'h> {
    pub(super) old: Vec<&'h str>,
    pub(super) end_of_file: bool,
    /// The old lines that are not blank, by their index.
    pub(super) nonblank: Vec<usize>,
    /// The old lines' indentation.
    pub(super) indents: Vec<Indent>,
    pub(super) gaps: Vec<Gap>,
}

/// The places a hunk fits at `level`, from `from` (or, when none, anywhere that does not
/// overlap the hunk before it): the first few, and those its line number names.
pub(super) fn find(
    index: &mut Index,
    wanted: &Wanted,
    level: usize,
    from: usize,
    around: &Around,
    work: &mut Work,
) -> Result<Found, Failure> {
    let n = index.lines.len();
    let m = wanted.old.len();
    let mut found = Found {
        places: Vec::new(),
        more: false,
        from_cursor: true,
        by_hint: None,
        by_moved: None,
    };
    let clear_of_cursor = |first: usize, last_excl: usize| {
        around.in_sequence || last_excl <= around.cursor || first >= around.cursor
    };
    if level >= 2 {
        index.indents(work)?;
    }
    if level < BLANK_LEVEL {
        let Some(pat) = index.level(level, work)?.pattern(&wanted.old, level) else {
            return Ok(found);
        };
        let ids = &index.numbered(level).ids;
        let mut starts = occurrences(ids, &pat, from, work)?;
        if starts.is_empty() && from > 0 {
            // Hunks out of order, or a header that was not the one meant.
            found.from_cursor = false;
            starts = occurrences(ids, &pat, 0, work)?;
            starts.retain(|&s| clear_of_cursor(s, s + m));
        }
        if wanted.end_of_file && n >= m && starts.binary_search(&(n - m)).is_ok() {
            starts = vec![n - m];
        }
        for (k, &s) in starts.iter().enumerate() {
            if found.places.len() == SHOWN_PLACES {
                found.more = k < starts.len();
                break;
            }
            if let Some(p) = line_place(index, wanted, level, s, work)? {
                found.places.push(p);
            }
        }
        if found.places.len() + usize::from(found.more) > 1 {
            let named = |h: Option<isize>| match h {
                Some(h) if h >= 1 => starts
                    .binary_search(&(h as usize - 1))
                    .ok()
                    .map(|_| h as usize - 1),
                _ => None,
            };
            if let Some(s) = named(around.hint.map(|h| h as isize)) {
                found.by_hint = line_place(index, wanted, level, s, work)?;
            }
            if around.shift != 0
                && found.by_hint.is_none()
                && let Some(s) = named(around.hint.map(|h| h as isize + around.shift))
            {
                found.by_moved = line_place(index, wanted, level, s, work)?;
            }
        }
        return Ok(found);
    }
    let mut start = from;
    let mut runs = blank_runs(index, wanted, start, work)?.unwrap_or_default();
    if runs.is_empty() && from > 0 {
        found.from_cursor = false;
        start = 0;
        runs = blank_runs(index, wanted, start, work)?.unwrap_or_default();
    }
    let place = |index: &Index, s: usize, work: &mut Work| -> Result<Option<Place>, Failure> {
        Ok(blank_place(index, wanted, s, start, work)?
            .filter(|p| found.from_cursor || clear_of_cursor(p.first, p.last_excl)))
    };
    if wanted.end_of_file
        && let Some(&s) = runs.last()
        && let Some(p) = place(index, s, work)?
        && p.last_excl == n
    {
        found.places.push(p);
        return Ok(found);
    }
    for (k, &s) in runs.iter().enumerate() {
        if found.places.len() == SHOWN_PLACES {
            found.more = k < runs.len();
            break;
        }
        if let Some(p) = place(index, s, work)? {
            found.places.push(p);
        }
    }
    if found.places.len() + usize::from(found.more) > 1 {
        // The runs whose place could start at line `h`: their first non-blank line is at most
        // as many lines after it as the hunk has blank lines before its first non-blank one.
        let named = |h: Option<isize>, work: &mut Work| -> Result<Option<Place>, Failure> {
            let Some(h) = h.filter(|&h| h >= 1).map(|h| h as usize - 1) else {
                return Ok(None);
            };
            let nb = index.nonblank.as_ref().expect("made");
            let lo = runs.partition_point(|&s| nb.at[s] < h);
            let hi = runs.partition_point(|&s| nb.at[s] <= h + wanted.nonblank[0]);
            for &s in &runs[lo..hi] {
                if let Some(p) = place(index, s, work)?
                    && p.first == h
                {
                    return Ok(Some(p));
                }
            }
            Ok(None)
        };
        found.by_hint = named(around.hint.map(|h| h as isize), work)?;
        if around.shift != 0 && found.by_hint.is_none() {
            found.by_moved = named(around.hint.map(|h| h as isize + around.shift), work)?;
        }
    }
    Ok(found)
}

/// The hunk at line `s`, found at line level `level`: its indentation checked at the tolerant
/// levels.
pub(super) fn line_place(
    index: &Index,
    wanted: &Wanted,
    level: usize,
    s: usize,
    work: &mut Work,
) -> Result<Option<Place>, Failure> {
    let m = wanted.old.len();
    let drift = if level >= 2 {
        let file = index
            .indents
            .as_deref()
            .expect("made for the tolerant levels");
        let pairs = wanted
            .indents
            .iter()
            .enumerate()
            .map(|(k, p)| (*p, file[s + k]));
        match checked_drift(pairs, work)? {
            Some(d) => d,
            None => return Ok(None),
        }
    } else {
        Drift::none()
    };
    Ok(Some(Place {
        first: s,
        last_excl: s + m,
        map: None,
        drift,
    }))
}

/// [`find_drift`], paying for the lines it compared.
fn checked_drift(
    pairs: impl Iterator<Item = (Indent, Indent)> + Clone,
    work: &mut Work,
) -> Result<Option<Drift>, Failure> {
    let compared = std::cell::Cell::new(0u64);
    let pairs = pairs.inspect(|_| compared.set(compared.get() + 1));
    let drift = find_drift(pairs);
    work.spend(compared.get())?;
    Ok(drift)
}

/// The hunk at line `s` at line level `level`, if it fits there.
pub(super) fn place_at(
    index: &mut Index,
    wanted: &Wanted,
    level: usize,
    s: usize,
    work: &mut Work,
) -> Result<Option<Place>, Failure> {
    let m = wanted.old.len();
    if s + m > index.lines.len() {
        return Ok(None);
    }
    if level >= 2 {
        index.indents(work)?;
    }
    let Some(pat) = index.level(level, work)?.pattern(&wanted.old, level) else {
        return Ok(None);
    };
    work.spend(m as u64)?;
    if index.numbered(level).ids[s..s + m] != pat[..] {
        return Ok(None);
    }
    line_place(index, wanted, level, s, work)
}

/// Where the hunk's non-blank lines follow one another among the file's non-blank lines (as
/// the most tolerant line level compares them), from line `from`: the index among the file's
/// non-blank lines of each run's first line. `None` when the hunk has no non-blank line.
pub(super) fn blank_runs(
    index: &mut Index,
    wanted: &Wanted,
    from: usize,
    work: &mut Work,
) -> Result<Option<Vec<usize>>, Failure> {
    if wanted.nonblank.is_empty() {
        return Ok(None);
    }
    let most = LINE_LEVELS - 1;
    index.nonblank(work)?;
    let texts: Vec<&str> = wanted.nonblank.iter().map(|&k| wanted.old[k]).collect();
    let Some(pat) = index.numbered(most).pattern(&texts, most) else {
        return Ok(Some(Vec::new()));
    };
    let nb = index.nonblank.as_ref().expect("made");
    let nb_from = nb.at.partition_point(|&k| k < from);
    Ok(Some(occurrences(&nb.ids, &pat, nb_from, work)?))
}

/// The blank lines the hunk has in each gap between two of its non-blank lines (and before
/// the first, after the last), and whether a change falls in the gap: where the file has
/// another number of blank lines there, the patch does not say where among them its change
/// goes, and the place is refused.
pub(super) struct Gap {
    /// The old line before the gap (-1 before the first).
    pub(super) before: isize,
    pub(super) blank: usize,
    pub(super) changed: bool,
}

impl Wanted<'_> {
    pub(super) fn gaps(nonblank: &[usize], old_len: usize, changes: &[isize]) -> Vec<Gap> {
        let count = nonblank.len();
        (0..=count)
            .map(|g| {
                let before = if g == 0 { -1 } else { nonblank[g - 1] as isize };
                let after = if g == count {
                    old_len as isize
                } else {
                    nonblank[g] as isize
                };
                Gap {
                    before,
                    blank: (after - before - 1) as usize,
                    changed: changes
                        .iter()
                        .any(|&c| c > 2 * before + 1 && c < 2 * after + 1),
                }
            })
            .collect()
    }
}

/// The place of the run of non-blank lines starting at non-blank line `s` (of [`blank_runs`]
/// from line `from`), if the blank lines around and between them allow it. A gap with a change
/// is checked first, in constant work; only a place that passes pays for its map.
pub(super) fn blank_place(
    index: &Index,
    wanted: &Wanted,
    s: usize,
    from: usize,
    work: &mut Work,
) -> Result<Option<Place>, Failure> {
    let old = &wanted.old;
    let n = index.lines.len();
    let nb = index.nonblank.as_ref().expect("made");
    let count = wanted.nonblank.len();
    let file_at = |k: usize| nb.at[s + k];
    // The file's blank lines in gap `g` (at the ends, at most as many as the hunk has there).
    let file_blank = |g: usize, want: usize| -> std::ops::Range<usize> {
        match (g > 0, g < count) {
            (true, true) => (file_at(g - 1) + 1)..file_at(g),
            (false, true) => {
                let b = file_at(0);
                let lo = from.min(b);
                let mut a = b;
                while a > lo && b - a < want && index.blank(a - 1) {
                    a -= 1;
                }
                a..b
            }
            (true, false) => {
                let a = file_at(count - 1) + 1;
                let mut b = a;
                while b < n && b - a < want && index.blank(b) {
                    b += 1;
                }
                a..b
            }
            (false, false) => 0..0,
        }
    };
    work.spend(wanted.gaps.iter().filter(|g| g.changed).count() as u64 + 1)?;
    for (g, gap) in wanted.gaps.iter().enumerate() {
        if gap.changed && file_blank(g, gap.blank).len() != gap.blank {
            return Ok(None);
        }
    }
    work.spend(old.len() as u64)?;
    let mut map = vec![None; old.len()];
    for (k, &p) in wanted.nonblank.iter().enumerate() {
        map[p] = Some(file_at(k));
    }
    // The blank lines of a gap are mapped one to one when the patch and the file have as many
    // there.
    for (g, gap) in wanted.gaps.iter().enumerate() {
        let blank = file_blank(g, gap.blank);
        if blank.len() == gap.blank {
            for (j, f) in blank.enumerate() {
                map[(gap.before + 1) as usize + j] = Some(f);
            }
        }
    }
    let first = map.iter().flatten().min().copied().unwrap_or(file_at(0));
    let last = map.iter().flatten().max().copied().unwrap_or(file_at(0));
    let file = index
        .indents
        .as_deref()
        .expect("made for the tolerant levels");
    let pairs = wanted
        .indents
        .iter()
        .zip(&map)
        .filter_map(|(p, f)| f.map(|f| (*p, file[f])));
    let Some(drift) = checked_drift(pairs, work)? else {
        return Ok(None);
    };
    Ok(Some(Place {
        first,
        last_excl: last + 1,
        map: Some(map),
        drift,
    }))
}
