//! Placing the hunks of an update on a file's text.
//!
//! A hunk's old lines (context and removed) are looked for at levels of tolerance, in order
//! ([`Tolerance`]); the first level that finds them decides, and where it finds them in
//! several places the line number or the format's order names one, or the hunk is refused.
//! Blank lines are the one tolerance that changes a hunk's shape: a hunk that a dropped or
//! added blank line lets fit elsewhere is ambiguous even when it also fits exactly, unless its
//! line number names the exact place. This module decides; `search` finds the places a hunk
//! fits at one level, `drift` tells how its indentation maps to the file's, and `emit` writes
//! the splices of a placed hunk.

mod drift;
mod emit;
mod search;

pub use emit::IndentConvention;

use crate::{Format, Hunk, HunkLine};
use drift::Drift;
use emit::{Emit, Style, file_style, no_trailing_whitespace};
use filekit_errors::{Limit, LimitFacts};
use filekit_nearmiss::{NEAR_MISS_WORK, NearMiss, Work, closest_within};
use filekit_splices::{Splice, Splices};
use search::{
    BLANK_LEVEL, Found, Index, LINE_LEVELS, Place, Spent, Wanted, blank_place, blank_runs, find,
    occurrences, place_at, split_lines,
};
use serde::Serialize;

/// Comparisons the placement of one file's patch hunks may make beyond its passes over the
/// file (a few per level of tolerance for each of its first hunks): checking the places a
/// hunk's lines fit (indentation, blank lines between them). A hunk whose lines fit too many
/// places stops here and is refused saying so.
pub const PLACEMENT_WORK: u64 = 100_000_000;

/// Hunks whose passes over the text (numbering its lines at each level, reading the text a
/// SEARCH block left) the budget allows for on top of [`PLACEMENT_WORK`]; past them, the rest
/// share the fixed budget.
const PASSED_HUNKS: usize = 32;

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
    /// 1-based line where the hunk was placed: of the file as it was, or for SEARCH/REPLACE
    /// blocks (applied one after another) of the text the blocks before it left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where it could go, when it was refused for matching in several places (1-based lines;
    /// the first few when there are many).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// The closest text, when it was found nowhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_miss: Option<NearMiss>,
    /// The bound it was refused at: the work its placement may do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitFacts>,
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
///
/// The hunks of a diff and of Codex's envelope are all placed on `text`; SEARCH/REPLACE
/// blocks are applied one after another, each on the text the blocks before it left (as
/// aider, Cline and Roo Code apply them), and the result is one edit of `text`.
pub fn place_with(
    text: &str,
    hunks: &[Hunk],
    format: Format,
    convention: Option<IndentConvention>,
) -> Placement {
    // The work a placement may do: passes over the text (its levels, and for blocks applied
    // in sequence the text each block leaves) for each of the first hunks, and the budget for
    // the places a hunk's lines fit.
    let passes = 8 * hunks.len().clamp(1, PASSED_HUNKS) as u64;
    let budget = PLACEMENT_WORK.saturating_add(passes.saturating_mul(text.len() as u64));
    place_within(text, hunks, format, convention, budget)
}

/// [`place_with`] within `budget` comparisons.
pub(crate) fn place_within(
    text: &str,
    hunks: &[Hunk],
    format: Format,
    convention: Option<IndentConvention>,
    budget: u64,
) -> Placement {
    let mut work = Work::new(budget);
    let mut near_miss_work = Work::new(NEAR_MISS_WORK);
    let lines = split_lines(text);
    let placer = Placer {
        format,
        convention,
        style: file_style(text, &lines),
        clean_ends: no_trailing_whitespace(text, &lines),
        cursor: 0,
        shift: 0,
        reports: Vec::new(),
    };
    if format == Format::SearchReplace {
        placer.in_sequence(text, hunks, &mut work, &mut near_miss_work)
    } else {
        placer.on_one_text(text, hunks, &mut work, &mut near_miss_work)
    }
}

/// What placing the hunks of one file keeps from one hunk to the next.
struct Placer {
    format: Format,
    convention: Option<IndentConvention>,
    style: Style,
    clean_ends: bool,
    /// The line after the last hunk placed.
    cursor: usize,
    /// How many lines the last placed hunk was from its line number.
    shift: isize,
    reports: Vec<HunkReport>,
}

impl Placer {
    fn on_one_text(
        mut self,
        text: &str,
        hunks: &[Hunk],
        work: &mut Work,
        near_miss_work: &mut Work,
    ) -> Placement {
        let mut index = match Index::new(text, work) {
            Ok(i) => i,
            Err(Spent) => return self.all_spent(hunks, work),
        };
        let mut splices: Vec<Splice> = Vec::new();
        for (k, hunk) in hunks.iter().enumerate() {
            if let Some(s) = self.one(&mut index, k, hunk, 0, work, near_miss_work) {
                splices.extend(s);
            }
        }
        let all_placed = self
            .reports
            .iter()
            .all(|r| r.outcome != HunkOutcome::Refused);
        let splices = if all_placed {
            match Splices::sorted(text, splices) {
                Ok(s) => Some(s),
                Err(e) => {
                    // Two hunks claimed the same lines: refuse the later one.
                    if let Some(r) = self.reports.last_mut() {
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
            hunks: self.reports,
        }
    }

    /// SEARCH/REPLACE blocks: each placed on the text the blocks before it left; the edits
    /// compose into one edit of `text`.
    fn in_sequence(
        mut self,
        text: &str,
        hunks: &[Hunk],
        work: &mut Work,
        near_miss_work: &mut Work,
    ) -> Placement {
        let mut current = text.to_string();
        let mut edit = Splices::none(text);
        // Lines the blocks placed so far added (a Roo Code block's start line is of the file
        // before them).
        let mut grown: isize = 0;
        for (k, hunk) in hunks.iter().enumerate() {
            let mut index = match Index::new(&current, work) {
                Ok(i) => i,
                Err(Spent) => {
                    self.refuse_spent(k, hunk, work);
                    continue;
                }
            };
            let Some(list) = self.one(&mut index, k, hunk, grown, work, near_miss_work) else {
                continue;
            };
            let old_n = index.lines.len() as isize;
            let region_end = index
                .lines
                .get(self.cursor)
                .map_or(current.len(), |l| l.start);
            let step = Splices::sorted(&current, list).and_then(|s| {
                let next = s.apply(&current)?;
                let composed = edit.compose(&s)?;
                Ok((s, next, composed))
            });
            drop(index);
            match step {
                Ok((s, next, composed)) => {
                    let growth: isize = s
                        .iter()
                        .map(|x| x.text.len() as isize - (x.end - x.start) as isize)
                        .sum();
                    let end = (region_end as isize + growth) as usize;
                    current = next;
                    edit = composed;
                    let new_n = split_lines(&current).len();
                    // The next block is looked for after this one's lines, in the new text.
                    self.cursor = if end >= current.len() {
                        new_n
                    } else {
                        current[..end].matches('\n').count()
                    };
                    grown += new_n as isize - old_n;
                }
                Err(e) => {
                    if let Some(r) = self.reports.last_mut() {
                        r.outcome = HunkOutcome::Refused;
                        r.reason = Some(format!("its lines overlap another block's ({e})"));
                    }
                }
            }
        }
        let all_placed = self
            .reports
            .iter()
            .all(|r| r.outcome != HunkOutcome::Refused);
        Placement {
            splices: all_placed.then_some(edit),
            hunks: self.reports,
        }
    }

    fn all_spent(mut self, hunks: &[Hunk], work: &Work) -> Placement {
        for (k, hunk) in hunks.iter().enumerate() {
            self.refuse_spent(k, hunk, work);
        }
        Placement {
            splices: None,
            hunks: self.reports,
        }
    }

    fn refuse_spent(&mut self, k: usize, hunk: &Hunk, work: &Work) {
        let mut report = unplaced_report(k, hunk);
        let refusal = Refusal::spent(work);
        report.reason = Some(refusal.reason);
        report.limit = refusal.limit;
        self.reports.push(report);
    }

    /// Places hunk `k` on the index's text, reports it, and returns its splices when placed.
    fn one(
        &mut self,
        index: &mut Index,
        k: usize,
        hunk: &Hunk,
        hint_shift: isize,
        work: &mut Work,
        near_miss_work: &mut Work,
    ) -> Option<Vec<Splice>> {
        let mut report = unplaced_report(k, hunk);
        // Codex's envelope and SEARCH/REPLACE blocks have no line numbers: their hunks are
        // in file order.
        let around = Around {
            cursor: self.cursor,
            shift: self.shift,
            ordered: matches!(self.format, Format::V4a | Format::SearchReplace),
            in_sequence: self.format == Format::SearchReplace,
            after_a_hunk: self
                .reports
                .iter()
                .any(|r| r.outcome != HunkOutcome::Refused),
            hint: hunk
                .line_hint
                .map(|h| (h as isize + hint_shift).max(1) as usize),
        };
        let placed = place_one(index, hunk, &around, work).map_err(|e| match e {
            Failure::Refused(r) => r,
            Failure::Spent => Refusal::spent(work),
            Failure::Nowhere { tolerable } => {
                let wanted = hunk.old_lines().join("\n");
                let near_miss = closest_within(index.text, &wanted, near_miss_work)
                    .ok()
                    .flatten()
                    .map(Box::new);
                let reason = if tolerable {
                    "its old lines (context and removed) are not in the file, even allowing for \
                     white space, indentation, punctuation and blank lines"
                } else {
                    "its old lines (context and removed) are not in the file exactly, and are \
                     too short to place with tolerance: add context lines"
                };
                Refusal {
                    reason: reason.to_string(),
                    candidates: Vec::new(),
                    near_miss,
                    limit: None,
                }
            }
        });
        let out = match placed {
            Err(refusal) => {
                report.reason = Some(refusal.reason);
                report.candidates = refusal.candidates;
                report.near_miss = refusal.near_miss.map(|b| *b);
                report.limit = refusal.limit;
                None
            }
            Ok((m, level, note)) => {
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
                if let Some(h) = around.hint
                    && !old_is_empty(hunk)
                {
                    self.shift = m.first as isize + 1 - h as isize;
                }
                self.cursor = m.last_excl;
                let emit = Emit {
                    style: self.style,
                    strip_trailing: level >= 1 && self.clean_ends,
                    convention: self.convention,
                    text: index.text,
                    lines: &index.lines,
                    eol: index.eol,
                    format: self.format,
                    ends_without_newline: index.ends_without_newline,
                };
                let (hunk_splices, restyled) = emit.splices(hunk, &m);
                if restyled && !report.tolerances.contains(&Tolerance::TabsSpaces) {
                    report.tolerances.push(Tolerance::TabsSpaces);
                    report.tolerances.sort();
                    report.outcome = HunkOutcome::Tolerated;
                }
                Some(hunk_splices)
            }
        };
        self.reports.push(report);
        out
    }
}

/// The hunk only adds lines: it has no old lines to be found by.
fn old_is_empty(hunk: &Hunk) -> bool {
    hunk.lines.iter().all(|l| matches!(l, HunkLine::Added(_)))
}

/// The report of hunk `k` before it is placed: refused, until it is.
fn unplaced_report(k: usize, hunk: &Hunk) -> HunkReport {
    HunkReport {
        hunk: k + 1,
        patch_line: hunk.patch_line,
        outcome: HunkOutcome::Refused,
        tolerances: Vec::new(),
        line: None,
        reason: None,
        candidates: Vec::new(),
        near_miss: None,
        limit: None,
    }
}

struct Refusal {
    reason: String,
    candidates: Vec<usize>,
    near_miss: Option<Box<NearMiss>>,
    limit: Option<LimitFacts>,
}

impl Refusal {
    fn spent(work: &Work) -> Refusal {
        Refusal {
            reason: format!(
                "placing it took more than the {} comparisons a file's hunks may take (its lines \
                 fit too many places to check them all): add context lines that tell its place \
                 apart, give its line number, or split the patch into smaller ones",
                work.max()
            ),
            candidates: Vec::new(),
            near_miss: None,
            limit: Some(LimitFacts::new(Limit::SearchWork, work.spent(), work.max())),
        }
    }

    fn ambiguous(mut candidates: Vec<usize>, more: bool, how: &str) -> Refusal {
        candidates.sort_unstable();
        candidates.dedup();
        let n = if more {
            format!("at least {}", candidates.len())
        } else {
            candidates.len().to_string()
        };
        Refusal {
            reason: format!(
                "its old lines match in {n} places{how}, at lines {}{}: add context lines that \
                 tell them apart, or a line number that names one",
                join(&candidates),
                if more { ", ..." } else { "" },
            ),
            candidates,
            near_miss: None,
            limit: None,
        }
    }
}

enum Failure {
    Refused(Refusal),
    Spent,
    /// Found at no level; `tolerable`: long enough to have been tried with tolerance.
    Nowhere {
        tolerable: bool,
    },
}

impl From<Spent> for Failure {
    fn from(_: Spent) -> Failure {
        Failure::Spent
    }
}

impl From<filekit_nearmiss::GaveUp> for Failure {
    fn from(_: filekit_nearmiss::GaveUp) -> Failure {
        Failure::Spent
    }
}

/// Where a hunk was placed, at which level of tolerance, and what else is said about it.
type Placed = (Place, usize, PlaceNote);

/// What a placement says beyond its level.
enum PlaceNote {
    None,
    /// The line number named another line.
    HintOff,
    /// The first of these exact places (1-based lines), in the format's order.
    FirstOf(Vec<usize>),
}

/// What the hunks placed before say about where the next one goes.
#[derive(Clone, Copy)]
struct Around {
    /// The file line after the last hunk placed.
    cursor: usize,
    /// How many lines the last placed hunk was from its line number.
    shift: isize,
    /// The format's hunks are in file order (no line numbers).
    ordered: bool,
    /// Each hunk is placed on the text the ones before it left (SEARCH/REPLACE blocks), so it
    /// may take in lines the one before it wrote.
    in_sequence: bool,
    /// A hunk of the file was placed before this one: the place the order starts from is
    /// known.
    after_a_hunk: bool,
    /// The hunk's line number, in the text it is placed on.
    hint: Option<usize>,
}

fn place_one(
    index: &mut Index,
    hunk: &Hunk,
    around: &Around,
    work: &mut Work,
) -> Result<Placed, Failure> {
    let n = index.lines.len();
    let old = hunk.old_lines();
    if old.is_empty() {
        // Pure addition: where the line number says, else at the end of the file.
        let at = match around.hint {
            Some(h) if !hunk.end_of_file && h >= 1 && h - 1 <= n => h - 1,
            _ => n,
        };
        let at = at.max(around.cursor.min(n));
        return Ok((
            Place {
                first: at,
                last_excl: at,
                map: Some(Vec::new()),
                drift: Drift::none(),
            },
            0,
            PlaceNote::None,
        ));
    }
    // A V4A header narrows the search to what follows it.
    let mut from = around.cursor.min(n);
    if hunk.line_hint.is_none()
        && let Some(h) = &hunk.header
    {
        for level in 0..LINE_LEVELS {
            let Some(pat) = index.level(level, work)?.pattern(&[h.as_str()], level) else {
                continue;
            };
            let ids = &index.numbered(level).ids;
            if let Some(&at) = occurrences(ids, &pat, from, work)?.first() {
                from = at + 1;
                break;
            }
        }
    }
    let nonblank: Vec<usize> = (0..old.len())
        .filter(|&k| !old[k].trim().is_empty())
        .collect();
    let wanted = Wanted {
        gaps: Wanted::gaps(&nonblank, old.len(), &change_positions(hunk)),
        indents: old.iter().map(|l| drift::Indent::of(l)).collect(),
        end_of_file: hunk.end_of_file,
        nonblank,
        old,
    };
    let tolerable = enough_to_tolerate(&wanted.old);
    for (level, tolerance) in LEVELS.iter().enumerate() {
        if level >= 2 && !tolerable {
            break;
        }
        let Found {
            mut places,
            more,
            from_cursor,
            by_hint,
            by_moved,
        } = find(index, &wanted, level, from, around, work)?;
        if places.is_empty() && by_hint.is_none() && by_moved.is_none() {
            continue;
        }
        let how = match tolerance {
            None => String::new(),
            Some(t) => format!(" (allowing for {})", t.name()),
        };
        let firsts: Vec<usize> = places.iter().map(|p| p.first + 1).collect();
        // `confirmed`: the line number names the place, so no other reading of the hunk
        // competes with it.
        let (chosen, note, confirmed) = if places.len() == 1 && !more {
            let p = places.pop().expect("one place");
            let on_hint = around.hint.is_some_and(|h| h == p.first + 1);
            let note = if around.hint.is_some() && !on_hint {
                PlaceNote::HintOff
            } else {
                PlaceNote::None
            };
            (p, note, on_hint)
        } else if let Some(p) = by_hint {
            // The line number names one, as written or moved by as many lines as the hunk
            // before it was (a file that grew or shrank above them, as GNU patch assumes).
            (p, PlaceNote::None, true)
        } else if let Some(p) = by_moved {
            (p, PlaceNote::HintOff, true)
        } else if around.hint.is_none()
            && around.ordered
            && from_cursor
            && places.len() >= 2
            && places[0].last_excl <= places[1].first
            && (!wanted.nonblank.is_empty() || around.after_a_hunk || from > around.cursor)
        {
            // The formats without line numbers order their hunks: of matches alike (at one
            // level of tolerance), the first after the hunk before it is the one the format
            // means. Not where the places overlap: in a run of repeated lines, the hunk's
            // own lines do not say where it starts. Nor for a hunk of blank lines alone with
            // nothing before it (no hunk placed, no `@@` line found): its first place in the
            // file is a guess.
            let p = places.swap_remove(0);
            (p, PlaceNote::FirstOf(firsts.clone()), false)
        } else {
            return Err(Failure::Refused(Refusal::ambiguous(firsts, more, &how)));
        };
        if level < BLANK_LEVEL
            && tolerable
            && !confirmed
            && let Some((line, tolerance)) =
                rival(index, &wanted, level, &chosen, from, around, work)?
        {
            let mut candidates = firsts;
            candidates.extend([chosen.first + 1, line]);
            candidates.sort_unstable();
            candidates.dedup();
            return Err(Failure::Refused(Refusal {
                reason: format!(
                    "its old lines match at line {}{how}, and at line {line} allowing for {}: \
                     either could be the place meant; add context lines that tell them apart, \
                     or a line number that names one",
                    chosen.first + 1,
                    tolerance.name(),
                ),
                candidates,
                near_miss: None,
                limit: None,
            }));
        }
        return Ok((chosen, level, note));
    }
    Err(Failure::Nowhere { tolerable })
}

/// Another place than `chosen` that a more tolerant reading of the hunk fits, and that the
/// format's rules cannot tell from it: the place its line number names at a later level of
/// tolerance, or any place that only blank lines tell apart (a blank line dropped from a
/// hunk's context can make it fit exactly somewhere else). Its 1-based line and tolerance.
fn rival(
    index: &mut Index,
    wanted: &Wanted,
    level: usize,
    chosen: &Place,
    from: usize,
    around: &Around,
    work: &mut Work,
) -> Result<Option<(usize, Tolerance)>, Failure> {
    if let Some(h) = around.hint
        && h >= 1
    {
        let later_levels = LEVELS.iter().enumerate().take(LINE_LEVELS).skip(level + 1);
        for (later, tolerance) in later_levels {
            if let Some(p) = place_at(index, wanted, later, h - 1, work)?
                && p.first != chosen.first
                && let Some(t) = tolerance
            {
                return Ok(Some((p.first + 1, *t)));
            }
        }
    }
    // Every place of the level the hunk was found at: a run of non-blank lines that is one of
    // them, with the patch's own blank lines, is the same place.
    index.level(level, work)?;
    let Some(pat) = index.numbered(level).pattern(&wanted.old, level) else {
        return Ok(None);
    };
    let same_shape = occurrences(&index.numbered(level).ids, &pat, 0, work)?;
    let start = from.min(chosen.first);
    index.indents(work)?;
    let Some(runs) = blank_runs(index, wanted, start, work)? else {
        return Ok(None);
    };
    let (first_nb, last_nb) = (wanted.nonblank[0], *wanted.nonblank.last().expect("some"));
    for &s in &runs {
        let nb = index.nonblank.as_ref().expect("made");
        let at_first = nb.at[s];
        let at_last = nb.at[s + wanted.nonblank.len() - 1];
        let same = at_first >= first_nb
            && at_last - at_first == last_nb - first_nb
            && same_shape.binary_search(&(at_first - first_nb)).is_ok();
        if same {
            continue;
        }
        if let Some(p) = blank_place(index, wanted, s, start, work)?
            && p.first != chosen.first
        {
            return Ok(Some((p.first + 1, Tolerance::BlankLines)));
        }
    }
    Ok(None)
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
