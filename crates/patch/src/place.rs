//! Placing the hunks of an update on a file's text.

use crate::{Format, Hunk, HunkLine};
use filekit_core::limits::NEAR_MISS_WORK;
use filekit_core::nearmiss::{NearMiss, Work, closest_within};
use filekit_core::splices::{Splice, Splices};
use serde::Serialize;

/// What a hunk's old lines were allowed to differ by from the file's, in the order tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tolerance {
    /// White space at the ends of lines.
    TrailingWhitespace,
    /// The whole hunk indented more or less than the file (added lines are re-indented by the
    /// same amount).
    Indentation,
    /// Tabs against spaces, runs of white space inside lines.
    TabsSpaces,
    /// Typographic quotes, dashes, ellipses and non-breaking spaces against ASCII.
    Punctuation,
    /// A blank line dropped from, or added to, the hunk's context.
    BlankLines,
    /// The hunk's line number was not where it was found (reported, never needed to place).
    LineHint,
    /// Its lines are, exactly, in several places after the hunk before it: placed at the first,
    /// as its format orders hunks (Codex's envelope and SEARCH/REPLACE blocks are applied in
    /// file order, each at the first match after the last); the other places are reported.
    FirstInOrder,
}

impl Tolerance {
    pub fn name(self) -> &'static str {
        match self {
            Tolerance::TrailingWhitespace => "trailing white space",
            Tolerance::Indentation => "indentation",
            Tolerance::TabsSpaces => "tabs and spaces",
            Tolerance::Punctuation => "typographic punctuation",
            Tolerance::BlankLines => "blank lines",
            Tolerance::LineHint => "line number",
            Tolerance::FirstInOrder => "several places (the first after the hunk before it)",
        }
    }
}

const LEVELS: [Option<Tolerance>; 6] = [
    None,
    Some(Tolerance::TrailingWhitespace),
    Some(Tolerance::Indentation),
    Some(Tolerance::TabsSpaces),
    Some(Tolerance::Punctuation),
    Some(Tolerance::BlankLines),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HunkOutcome {
    /// Placed where its old lines are, exactly.
    Exact,
    /// Placed with the tolerances listed.
    Tolerated,
    /// Not placed: see `reason`.
    Refused,
}

/// What became of one hunk.
#[derive(Debug, Clone, Serialize)]
pub struct HunkReport {
    /// 1-based, in the order of the patch.
    pub hunk: usize,
    /// 1-based line of the patch where the hunk starts.
    pub patch_line: usize,
    pub outcome: HunkOutcome,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerances: Vec<Tolerance>,
    /// 1-based line of the file (as it was) where the hunk was placed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where it could go, when it was refused for matching in several places (1-based lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// The closest text, when it was found nowhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_miss: Option<NearMiss>,
}

/// The hunks of one file placed: the edit (when every hunk was placed) and a report per hunk.
#[derive(Debug, Clone)]
pub struct Placement {
    pub splices: Option<Splices>,
    pub hunks: Vec<HunkReport>,
}

impl Placement {
    pub fn refused(&self) -> impl Iterator<Item = &HunkReport> {
        self.hunks
            .iter()
            .filter(|h| h.outcome == HunkOutcome::Refused)
    }
}

/// One line of the file: bytes `start..content_end` are its text, `..end` with its line end.
#[derive(Debug, Clone, Copy)]
struct FLine {
    start: usize,
    content_end: usize,
    end: usize,
}

fn split_lines(text: &str) -> Vec<FLine> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let nl = memchr(b'\n', &b[start..]).map(|k| start + k);
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

fn memchr(c: u8, s: &[u8]) -> Option<usize> {
    s.iter().position(|&x| x == c)
}

fn typographic(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
        c => c,
    }
}

/// A line as compared at a level.
fn norm(line: &str, level: usize) -> String {
    match level {
        0 => line.to_string(),
        1 => line.trim_end().to_string(),
        2 => line.trim().to_string(),
        3 => line.split_whitespace().collect::<Vec<_>>().join(" "),
        _ => line
            .replace('\u{2026}', "...")
            .chars()
            .map(typographic)
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn indent_of(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

fn width(indent: &str, tab: usize) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { tab } else { 1 })
        .sum()
}

/// How the hunk's indentation maps to the file's: the first non-blank old line's indent in
/// the patch and in the file, the tab width that makes every line agree, and whether the file
/// indents with tabs.
#[derive(Debug, Clone)]
struct Drift {
    /// Whether added lines are re-indented at all (only when placed with tolerance).
    active: bool,
    patch0: usize,
    file0: usize,
    tab: usize,
    tabs: bool,
}

impl Drift {
    fn reindent(&self, line: &str) -> String {
        let ind = indent_of(line);
        let other_style = if self.tabs {
            ind.contains(' ') && width(ind, self.tab) >= self.tab
        } else {
            ind.contains('\t')
        };
        if !self.active || line.trim().is_empty() || (self.patch0 == self.file0 && !other_style) {
            return line.to_string();
        }
        let w = width(ind, self.tab) as isize - self.patch0 as isize + self.file0 as isize;
        let w = w.max(0) as usize;
        let new = if self.tabs {
            "\t".repeat(w / self.tab) + &" ".repeat(w % self.tab)
        } else {
            " ".repeat(w)
        };
        new + &line[ind.len()..]
    }
}

/// Finds a drift under which the indentation of every pair (patch line, file line) agrees.
fn find_drift(pairs: &[(&str, &str)], file_uses_tabs: bool) -> Option<Drift> {
    let nonblank: Vec<_> = pairs
        .iter()
        .filter(|(p, f)| !p.trim().is_empty() && !f.trim().is_empty())
        .collect();
    let Some((p0, f0)) = nonblank.first() else {
        return Some(Drift {
            active: true,
            patch0: 0,
            file0: 0,
            tab: 4,
            tabs: file_uses_tabs,
        });
    };
    for tab in [4, 8, 2] {
        let pw0 = width(indent_of(p0), tab) as isize;
        let fw0 = width(indent_of(f0), tab) as isize;
        if nonblank.iter().all(|(p, f)| {
            width(indent_of(p), tab) as isize - pw0 == width(indent_of(f), tab) as isize - fw0
        }) {
            let f_ind = indent_of(f0);
            return Some(Drift {
                active: true,
                patch0: pw0 as usize,
                file0: fw0 as usize,
                tab,
                tabs: if f_ind.is_empty() {
                    file_uses_tabs
                } else {
                    f_ind.starts_with('\t')
                },
            });
        }
    }
    None
}

/// Where a hunk's old lines are: for each old line (in order), the file line it is, if any.
#[derive(Debug, Clone)]
struct Match {
    /// File lines `first..last_excl` hold the hunk's old lines.
    first: usize,
    last_excl: usize,
    map: Vec<Option<usize>>,
}

/// Every place at or after `from` where `old` matches the file at `level`.
fn find_all(
    text: &str,
    lines: &[FLine],
    old: &[&str],
    level: usize,
    from: usize,
    changes: &[isize],
) -> Vec<Match> {
    let line = |k: usize| &text[lines[k].start..lines[k].content_end];
    let mut out = Vec::new();
    if level < 5 {
        let pat: Vec<String> = old.iter().map(|l| norm(l, level)).collect();
        if pat.len() > lines.len() {
            return out;
        }
        let file: Vec<String> = (0..lines.len()).map(|k| norm(line(k), level)).collect();
        for s in from..=lines.len() - pat.len() {
            if (0..pat.len()).all(|k| file[s + k] == pat[k]) {
                out.push(Match {
                    first: s,
                    last_excl: s + pat.len(),
                    map: (s..s + pat.len()).map(Some).collect(),
                });
            }
        }
        return out;
    }
    // Blank lines ignored on both sides.
    let pat: Vec<(usize, String)> = old
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| (k, norm(l, 4)))
        .collect();
    if pat.is_empty() {
        return out;
    }
    let file: Vec<(usize, String)> = (from..lines.len())
        .filter(|&k| !line(k).trim().is_empty())
        .map(|k| (k, norm(line(k), 4)))
        .collect();
    if pat.len() > file.len() {
        return out;
    }
    let blank_at = |k: usize| line(k).trim().is_empty();
    'candidates: for s in 0..=file.len() - pat.len() {
        if !(0..pat.len()).all(|k| file[s + k].1 == pat[k].1) {
            continue;
        }
        let mut map = vec![None; old.len()];
        for k in 0..pat.len() {
            map[pat[k].0] = Some(file[s + k].0);
        }
        // The blank lines of each gap between two non-blank old lines (and before the first,
        // after the last): mapped one to one when the patch and the file have as many there.
        // Where they differ, the patch does not say where among the file's blank lines its
        // changes go: a change in such a gap refuses this place.
        let n = old.len() as isize;
        let mut bounds: Vec<(isize, Option<usize>)> = vec![(-1, None)];
        bounds.extend(
            pat.iter()
                .zip(&file[s..])
                .map(|((k, _), (f, _))| (*k as isize, Some(*f))),
        );
        bounds.push((n, None));
        for w in bounds.windows(2) {
            let ((k1, f1), (k2, f2)) = (w[0], w[1]);
            let pblank: Vec<usize> = ((k1 + 1)..k2).map(|k| k as usize).collect();
            let fblank: Vec<usize> = match (f1, f2) {
                (Some(a), Some(b)) => ((a + 1)..b).collect(),
                (None, Some(b)) => {
                    let mut v: Vec<usize> = (from..b).rev().take_while(|&k| blank_at(k)).collect();
                    v.truncate(pblank.len());
                    v.reverse();
                    v
                }
                (Some(a), None) => ((a + 1)..lines.len())
                    .take_while(|&k| blank_at(k))
                    .take(pblank.len())
                    .collect(),
                (None, None) => Vec::new(),
            };
            if pblank.len() == fblank.len() {
                for (p, f) in pblank.iter().zip(&fblank) {
                    map[*p] = Some(*f);
                }
            } else if changes.iter().any(|&c| c > 2 * k1 + 1 && c < 2 * k2 + 1) {
                continue 'candidates;
            }
        }
        let first = map.iter().flatten().min().copied().unwrap_or(file[s].0);
        let last = map.iter().flatten().max().copied().unwrap_or(file[s].0);
        out.push(Match {
            first,
            last_excl: last + 1,
            map,
        });
    }
    out
}

/// Where a hunk's changes are among its old lines, in doubled positions: a removed line that
/// is old line r is at 2r+1 (the old line itself), an added line after c old lines at 2c.
fn change_positions(hunk: &Hunk) -> Vec<isize> {
    let mut out = Vec::new();
    let mut c: isize = 0;
    for l in &hunk.lines {
        match l {
            HunkLine::Context(_) => c += 1,
            HunkLine::Removed(_) => {
                out.push(2 * c + 1);
                c += 1;
            }
            HunkLine::Added(_) => out.push(2 * c),
        }
    }
    out
}

/// Enough text for a tolerant match to be trusted: two non-blank lines, or 16 characters.
fn enough_to_tolerate(old: &[&str]) -> bool {
    let nonblank = old.iter().filter(|l| !l.trim().is_empty()).count();
    let chars: usize = old
        .iter()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).count())
        .sum();
    nonblank >= 2 || chars >= 16
}

/// Places `hunks` on `text`, in order. Every hunk is reported; the splices exist only when
/// every hunk was placed.
pub fn place(text: &str, hunks: &[Hunk], format: Format) -> Placement {
    place_with(text, hunks, format, None)
}

/// [`place`], for a file of a language whose indentation `convention` added lines follow when
/// the file has no indented line of its own (a patch's tabs in a new Python module's first
/// indented block are the model's rendering, not the file's style).
pub fn place_with(
    text: &str,
    hunks: &[Hunk],
    format: Format,
    convention: Option<IndentConvention>,
) -> Placement {
    let lines = split_lines(text);
    let eol = if lines
        .iter()
        .any(|l| l.end > l.content_end + 1 && text.as_bytes()[l.content_end] == b'\r')
    {
        "\r\n"
    } else {
        "\n"
    };
    let file_uses_tabs = lines
        .iter()
        .any(|l| text[l.start..l.content_end].starts_with('\t'));
    let ends_without_newline = !text.is_empty() && !text.ends_with('\n');
    let style = file_style(text, &lines);
    let clean_ends = no_trailing_whitespace(text, &lines);
    let mut reports = Vec::new();
    let mut splices: Vec<Splice> = Vec::new();
    let mut cursor = 0usize;
    // How many lines the last placed hunk was from its line number.
    let mut shift = 0isize;
    let mut work = Work::new(NEAR_MISS_WORK);
    for (k, hunk) in hunks.iter().enumerate() {
        let mut report = HunkReport {
            hunk: k + 1,
            patch_line: hunk.patch_line,
            outcome: HunkOutcome::Refused,
            tolerances: Vec::new(),
            line: None,
            reason: None,
            candidates: Vec::new(),
            near_miss: None,
        };
        // Codex's envelope and SEARCH/REPLACE blocks have no line numbers: their hunks are
        // in file order.
        let ordered = matches!(format, Format::V4a | Format::SearchReplace);
        let around = Around {
            cursor,
            shift,
            ordered,
            file_uses_tabs,
        };
        match place_one(text, &lines, hunk, &around, &mut work) {
            Err(refusal) => {
                report.reason = Some(refusal.reason);
                report.candidates = refusal.candidates;
                report.near_miss = refusal.near_miss.map(|b| *b);
            }
            Ok((m, level, drift, note)) => {
                if let Some(t) = LEVELS[level] {
                    report.tolerances.push(t);
                }
                match note {
                    PlaceNote::None => {}
                    PlaceNote::HintOff => report.tolerances.push(Tolerance::LineHint),
                    PlaceNote::FirstOf(places) => {
                        report.tolerances.push(Tolerance::FirstInOrder);
                        report.candidates = places;
                    }
                }
                report.outcome = if report.tolerances.is_empty() {
                    HunkOutcome::Exact
                } else {
                    HunkOutcome::Tolerated
                };
                report.line = Some(m.first + 1);
                if let Some(h) = hunk.line_hint
                    && !m.map.is_empty()
                {
                    shift = m.first as isize + 1 - h as isize;
                }
                cursor = m.last_excl;
                let ctx = Emit {
                    style,
                    strip_trailing: level >= 1 && clean_ends,
                    convention,
                    text,
                    lines: &lines,
                    eol,
                    format,
                    ends_without_newline,
                };
                let (hunk_splices, restyled) = ctx.splices(hunk, &m, &drift);
                splices.extend(hunk_splices);
                if restyled && !report.tolerances.contains(&Tolerance::TabsSpaces) {
                    report.tolerances.push(Tolerance::TabsSpaces);
                    report.tolerances.sort();
                    report.outcome = HunkOutcome::Tolerated;
                }
            }
        }
        reports.push(report);
    }
    let all_placed = reports.iter().all(|r| r.outcome != HunkOutcome::Refused);
    let splices = if all_placed {
        match Splices::sorted(text, splices) {
            Ok(s) => Some(s),
            Err(e) => {
                // Two hunks claimed the same lines: refuse the later one.
                if let Some(r) = reports.last_mut() {
                    r.outcome = HunkOutcome::Refused;
                    r.reason = Some(format!("its lines overlap another hunk's ({e})"));
                }
                None
            }
        }
    } else {
        None
    };
    Placement {
        splices,
        hunks: reports,
    }
}

struct Refusal {
    reason: String,
    candidates: Vec<usize>,
    near_miss: Option<Box<NearMiss>>,
}

/// Where a hunk was placed, at which level of tolerance, with which drift, and what else is
/// said about the place.
type Placed = (Match, usize, Drift, PlaceNote);

/// What a placement says beyond its level.
enum PlaceNote {
    None,
    /// The line number named another line.
    HintOff,
    /// The first of these exact places (1-based lines), in the format's order.
    FirstOf(Vec<usize>),
}

/// What the hunks placed before say about where the next one goes, and the file's style.
#[derive(Clone, Copy)]
struct Around {
    /// The file line after the last hunk placed.
    cursor: usize,
    /// How many lines the last placed hunk was from its line number.
    shift: isize,
    /// The format's hunks are in file order (no line numbers).
    ordered: bool,
    file_uses_tabs: bool,
}

fn place_one(
    text: &str,
    lines: &[FLine],
    hunk: &Hunk,
    around: &Around,
    work: &mut Work,
) -> Result<Placed, Refusal> {
    let Around {
        cursor,
        shift,
        ordered,
        file_uses_tabs,
    } = *around;
    let old = hunk.old_lines();
    let no_drift = Drift {
        active: false,
        patch0: 0,
        file0: 0,
        tab: 4,
        tabs: file_uses_tabs,
    };
    if old.is_empty() {
        // Pure addition: where the line number says, else at the end of the file.
        let at = match hunk.line_hint {
            Some(h) if !hunk.end_of_file && h >= 1 && h - 1 <= lines.len() => h - 1,
            _ => lines.len(),
        };
        let at = at.max(cursor.min(lines.len()));
        return Ok((
            Match {
                first: at,
                last_excl: at,
                map: Vec::new(),
            },
            0,
            no_drift,
            PlaceNote::None,
        ));
    }
    // A V4A header narrows the search to what follows it.
    let mut from = cursor;
    if hunk.line_hint.is_none()
        && let Some(h) = &hunk.header
    {
        for level in 0..5 {
            let hs = find_all(text, lines, &[h.as_str()], level, cursor, &[]);
            if let Some(m) = hs.first() {
                from = m.first + 1;
                break;
            }
        }
    }
    let tolerable = enough_to_tolerate(&old);
    let changes = change_positions(hunk);
    for (level, _) in LEVELS.iter().enumerate() {
        if level >= 2 && !tolerable {
            break;
        }
        let mut found = find_all(text, lines, &old, level, from, &changes);
        if found.is_empty() && from > 0 {
            // Hunks out of order, or a header that was not the one meant.
            found = find_all(text, lines, &old, level, 0, &changes)
                .into_iter()
                .filter(|m| m.last_excl <= cursor || m.first >= cursor)
                .collect();
        }
        if hunk.end_of_file {
            let at_end: Vec<Match> = found
                .iter()
                .filter(|m| m.last_excl == lines.len())
                .cloned()
                .collect();
            if !at_end.is_empty() {
                found = at_end;
            }
        }
        // At the tolerant levels, the indentation must drift alike on every line.
        let mut with_drift: Vec<(Match, Drift)> = Vec::new();
        for m in found {
            let drift = if level >= 2 {
                let pairs: Vec<(&str, &str)> = old
                    .iter()
                    .zip(&m.map)
                    .filter_map(|(p, f)| {
                        f.map(|f| (*p, &text[lines[f].start..lines[f].content_end]))
                    })
                    .collect();
                match find_drift(&pairs, file_uses_tabs) {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                no_drift.clone()
            };
            with_drift.push((m, drift));
        }
        match with_drift.len() {
            0 => continue,
            1 => {
                let (m, d) = with_drift.pop().unwrap();
                let off = hunk.line_hint.is_some_and(|h| h != m.first + 1);
                return Ok((
                    m,
                    level,
                    d,
                    if off {
                        PlaceNote::HintOff
                    } else {
                        PlaceNote::None
                    },
                ));
            }
            _ => {
                // The line number names one, as written or moved by as many lines as the
                // hunk before it was (a file that grew or shrank above them, as GNU patch
                // assumes).
                if let Some(h) = hunk.line_hint {
                    let moved = h as isize + shift;
                    if let Some(pos) = with_drift.iter().position(|(m, _)| m.first + 1 == h) {
                        let (m, d) = with_drift.swap_remove(pos);
                        return Ok((m, level, d, PlaceNote::None));
                    }
                    if shift != 0
                        && let Some(pos) = with_drift
                            .iter()
                            .position(|(m, _)| m.first as isize + 1 == moved)
                    {
                        let (m, d) = with_drift.swap_remove(pos);
                        return Ok((m, level, d, PlaceNote::HintOff));
                    }
                }
                let candidates: Vec<usize> = with_drift.iter().map(|(m, _)| m.first + 1).collect();
                // The formats without line numbers order their hunks: of matches alike (at
                // one level of tolerance), the first after the hunk before it is the one the
                // format means.
                if hunk.line_hint.is_none()
                    && ordered
                    && tolerable
                    && with_drift.iter().all(|(m, _)| m.first >= cursor)
                {
                    let (m, d) = with_drift.swap_remove(0);
                    return Ok((m, level, d, PlaceNote::FirstOf(candidates)));
                }
                let how = match LEVELS[level] {
                    None => String::new(),
                    Some(t) => format!(" (allowing for {})", t.name()),
                };
                return Err(Refusal {
                    reason: format!(
                        "its old lines match in {} places{how}, at lines {}: add context lines \
                         that tell them apart, or a line number that names one",
                        candidates.len(),
                        join(&candidates),
                    ),
                    candidates,
                    near_miss: None,
                });
            }
        }
    }
    let wanted = old.join("\n");
    let near_miss = closest_within(text, &wanted, work)
        .ok()
        .flatten()
        .map(Box::new);
    let reason = if tolerable {
        "its old lines (context and removed) are not in the file, even allowing for white space, \
         indentation, punctuation and blank lines"
            .to_string()
    } else {
        "its old lines (context and removed) are not in the file exactly, and are too short to \
         place with tolerance: add context lines"
            .to_string()
    };
    Err(Refusal {
        reason,
        candidates: Vec::new(),
        near_miss,
    })
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a file indents: only with spaces, only with tabs, both, or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Spaces,
    Tabs,
    Mixed,
    Unindented,
}

/// How a language indents where its files agree on one way (Python's PEP 8: four spaces),
/// for a file that has no indented line to follow yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndentConvention {
    /// Spaces; a tab in an added line's indentation counts this many.
    Spaces(usize),
}

fn file_style(text: &str, lines: &[FLine]) -> Style {
    let (mut tabs, mut spaces) = (false, false);
    for l in lines {
        let t = &text[l.start..l.content_end];
        if t.trim().is_empty() {
            continue;
        }
        tabs |= t.starts_with('\t');
        spaces |= t.starts_with("  ");
    }
    match (tabs, spaces) {
        (false, true) => Style::Spaces,
        (true, false) => Style::Tabs,
        (true, true) => Style::Mixed,
        (false, false) => Style::Unindented,
    }
}

/// True when no line of the file ends in white space: then white space a tolerated hunk adds
/// at the end of a line is the drift its context lines had, not something the file does.
fn no_trailing_whitespace(text: &str, lines: &[FLine]) -> bool {
    lines.iter().all(|l| {
        let t = &text[l.start..l.content_end];
        t.trim().is_empty() || t.trim_end() == t
    })
}

/// A run of removed and added lines being gathered: the file lines removed (first, last),
/// each removed line's text in the patch with its file line, and each added line as written
/// and as it will be written.
#[derive(Default)]
struct Run {
    removed: Option<(usize, usize)>,
    removed_texts: Vec<(String, usize)>,
    added: Vec<(String, String)>,
}

struct Emit<'a> {
    style: Style,
    /// Strip white space at the ends of added lines (the hunk was placed allowing for it, and
    /// the file has none).
    strip_trailing: bool,
    /// How a file without indented lines indents, if its language says.
    convention: Option<IndentConvention>,
    text: &'a str,
    lines: &'a [FLine],
    eol: &'a str,
    format: Format,
    ends_without_newline: bool,
}

impl Emit<'_> {
    /// The splices of one placed hunk: each run of removed and added lines replaces the file
    /// lines it removes; the file's context lines stay as they are.
    /// The splices of one placed hunk: each run of removed and added lines replaces the file
    /// lines it removes; the file's context lines stay as they are. An added line that is a
    /// removed line of its run written again keeps the file's version of it (the patch changes
    /// nothing there). Added lines indented with tabs in a file indented only with spaces (or
    /// the reverse) take the file's style; the bool says that happened.
    fn splices(&self, hunk: &Hunk, m: &Match, drift: &Drift) -> (Vec<Splice>, bool) {
        let mut out = Vec::new();
        let mut old_k = 0usize;
        let mut run = Run::default();
        let mut restyled = false;
        for l in &hunk.lines {
            match l {
                HunkLine::Context(_) => {
                    let f = m.map.get(old_k).copied().flatten();
                    old_k += 1;
                    if let Some(f) = f {
                        self.flush(&mut out, &mut run, Some(f), hunk, m);
                    }
                }
                HunkLine::Removed(t) => {
                    let f = m.map.get(old_k).copied().flatten();
                    old_k += 1;
                    if let Some(f) = f {
                        run.removed = Some(match run.removed {
                            Some((a, _)) => (a, f),
                            None => (f, f),
                        });
                        run.removed_texts.push((t.clone(), f));
                    }
                }
                HunkLine::Added(t) => {
                    let (mut line, changed) = self.restyle(&drift.reindent(t), drift.tab);
                    restyled |= changed;
                    if self.strip_trailing {
                        line.truncate(line.trim_end().len());
                    }
                    run.added.push((t.clone(), line));
                }
            }
        }
        self.flush(&mut out, &mut run, None, hunk, m);
        (out, restyled)
    }

    fn restyle(&self, line: &str, tab: usize) -> (String, bool) {
        let ind = indent_of(line);
        let new = match (self.style, self.convention) {
            (Style::Spaces, _) if ind.contains('\t') => ind.replace('\t', &" ".repeat(tab)),
            (Style::Unindented, Some(IndentConvention::Spaces(n))) if ind.contains('\t') => {
                ind.replace('\t', &" ".repeat(n))
            }
            (Style::Tabs, _) if ind.starts_with(&" ".repeat(tab)) => {
                let w = width(ind, tab);
                "\t".repeat(w / tab) + &" ".repeat(w % tab)
            }
            _ => return (line.to_string(), false),
        };
        (new + &line[ind.len()..], true)
    }

    fn flush(
        &self,
        out: &mut Vec<Splice>,
        run: &mut Run,
        next_context: Option<usize>,
        hunk: &Hunk,
        m: &Match,
    ) {
        let removed = &mut run.removed;
        let mut kept: Vec<(String, usize)> = std::mem::take(&mut run.removed_texts);
        let added: Vec<String> = std::mem::take(&mut run.added)
            .into_iter()
            .map(
                |(raw, line)| match kept.iter().position(|(t, _)| *t == raw) {
                    Some(k) => {
                        let (_, f) = kept.remove(k);
                        self.text[self.lines[f].start..self.lines[f].content_end].to_string()
                    }
                    None => line,
                },
            )
            .collect();
        if removed.is_none() && added.is_empty() {
            return;
        }
        let lines = self.lines;
        let n = lines.len();
        let (start, end, reaches_end) = match removed.take() {
            Some((a, b)) => (lines[a].start, lines[b].end, b + 1 == n),
            None => {
                // Insert before the next context line, or after the hunk's last line.
                let at = next_context.unwrap_or(m.last_excl);
                if at < n {
                    (lines[at].start, lines[at].start, false)
                } else {
                    (self.text.len(), self.text.len(), true)
                }
            }
        };
        let mut body = String::new();
        for a in added {
            body.push_str(&a);
            body.push_str(self.eol);
        }
        if reaches_end && self.ends_without_newline {
            let inserting = start == end;
            if inserting {
                // After a last line without its newline: give it one first.
                body.insert_str(0, self.eol);
            }
            let keep_none = match self.format {
                Format::V4a => false,
                Format::Unified => hunk.new_no_newline,
                Format::SearchReplace => true,
            };
            if keep_none && body.ends_with(self.eol) {
                body.truncate(body.len() - self.eol.len());
            }
        } else if reaches_end && hunk.new_no_newline && body.ends_with(self.eol) {
            body.truncate(body.len() - self.eol.len());
        }
        out.push(Splice::new(start, end, body));
    }
}
