//! Resolve: a file's edits become splices of the text they were made on, each edit with its
//! outcome (line edits and substitutions against the text as read, text edits in order on
//! the result of the ones before, appends last), or the error that refused it.

use super::preview::edit_hunk;
use crate::edit::{Edit, EditOptions, EditOutcome, Expected, FileEdits};
use crate::error::{ErrorCode, Fact, FkError, Limit, LimitFacts};
use crate::hash;
use crate::limits::NEAR_MISS_WORK;
use crate::lines::{IndexedText, LineTarget, SpliceSet, TextLines};
use crate::nearmiss::{self, Difference};
use crate::sequential::{BaseText, Occurrence, Sequential};
use crate::text::{Eol, LineIndex, TextDoc};
use filekit_splices::{Splice, Splices};
use std::collections::HashMap;

/// A `replace_ranges` edit's offsets mean something only for the version of the file they
/// were computed on: `content_hash` must be the file's.
fn check_version(base_hash: &str, content_hash: &str) -> Result<(), FkError> {
    if hash::matches(content_hash, base_hash) {
        return Ok(());
    }
    Err(FkError::new(
        ErrorCode::Stale,
        format!(
            "content_hash {content_hash} is not the file's ({base_hash}): the byte ranges were computed on another version"
        ),
    )
    .with_hint("read the file again and compute the ranges on what it holds now"))
}

/// The refusal of edits whose changes meet changes made to the file since their version.
pub(super) fn conflict_error(
    display: &str,
    from: &str,
    current: &str,
    conflicts: &[crate::merge::Conflict],
) -> FkError {
    let range = |start: usize, count: usize| match count {
        0 => format!("after line {}", start - 1),
        1 => format!("line {start}"),
        n => format!("lines {start}-{}", start + n - 1),
    };
    let parts: Vec<String> = conflicts
        .iter()
        .map(|c| {
            format!(
                "your change of {} (of version {}) meets {} of the file now, which reads: {:?} (you wanted: {:?})",
                range(c.base_start, c.base_count),
                &from[..from.len().min(8)],
                range(c.current_start, c.current_count),
                shorten(&c.current, 300),
                shorten(&c.yours, 300),
            )
        })
        .collect();
    FkError::new(
        ErrorCode::Conflict,
        format!(
            "{display} changed since version {from} that the edits were made on, and {} of their changes meet changes made since: {}; nothing was written",
            conflicts.len(),
            parts.join("; ")
        ),
    )
    .with_hint("read the file again (read with since_hash to see only what changed) and send the edits again on the text as it is now; the edits that did not meet a change were not written either")
    .with_details(serde_json::json!({
        "base_hash": from,
        "current_hash": current,
        "conflicts": conflicts,
    }))
}

/// The splices of a file's only edit, a substitution (every file of a tree-wide replace).
/// Its matches are sorted and disjoint by construction, so they need none of the overlap
/// checks and sequential text that mixed edits do, nor an index of every line: on a frequent
/// pattern those were most of the work.
fn lone_substitution(
    substitution: &crate::sed::Substitution,
    base_doc: &TextDoc,
    max: u64,
    display: &str,
    outcome: &mut EditOutcome,
) -> Result<Splices, FkError> {
    let base = base_doc.text.as_str();
    // An empty match replaced by nothing changes nothing: `Splices` drops those.
    let found = match substitution.splices_within(base, max, Some(base_doc.eol)) {
        Ok(found) => found?,
        Err(len) => {
            outcome.error = Some(result_too_large(display, len, max));
            return Ok(Splices::none(base));
        }
    };
    outcome.success = true;
    outcome.replacements = found.len();
    outcome.line = found.iter().next().map(|s| {
        let breaks = memchr::memchr_iter(b'\n', &base.as_bytes()[..s.start]).count();
        // The end of a text that ends with a line break is on its last line, as
        // `LineIndex::line_of` has it.
        if s.start == base.len() && breaks > 0 && base.ends_with('\n') {
            breaks
        } else {
            breaks + 1
        }
    });
    Ok(found)
}

/// Resolves the edits of one file against `base_doc` (phases 1 to 3): the splices of its
/// text, and each edit's outcome in `outcomes`; edits that would make the text longer than
/// `max` bytes are refused. An error is filekit's own (splices it computed that do not
/// fit): the edits' own failures are in `outcomes`.
#[allow(clippy::too_many_arguments)]
pub(super) fn resolve_edits(
    fe: &FileEdits,
    base_doc: &TextDoc,
    base_hash: &str,
    start: usize,
    opts: &EditOptions,
    max: u64,
    display: &str,
    outcomes: &mut [EditOutcome],
) -> Result<Splices, FkError> {
    let base = base_doc.text.as_str();
    if start == 0
        && let [Edit::Substitute(substitution)] = fe.edits.as_slice()
    {
        return lone_substitution(substitution, base_doc, max, display, &mut outcomes[0]);
    }
    let index = LineIndex::new(base);
    let whole = WholeText {
        doc: base_doc,
        indexed: IndexedText {
            text: base,
            index: &index,
        },
        max,
    };
    let limits = Growth {
        max_len: max,
        max_held: u64::MAX,
    };
    let blocks = resolve_with(
        &whole, fe, base_hash, start, opts, limits, display, outcomes,
    )?;
    Ok(Splices::new(base, blocks)?)
}

/// What the edits of one file are resolved against: its text held whole, or a streamed
/// file read through its index of line breaks ([`super::streamed`]).
pub(super) trait EditBase {
    type Text: BaseText;
    fn lines(&self) -> &dyn TextLines;
    fn eol(&self) -> Eol;
    /// The 1-based line that holds byte `offset` (the last line for the end of the text).
    fn line_of(&self, offset: usize) -> usize;
    /// The replacements of edit `index`, a substitution, as found (empty matches
    /// included), their texts in the file's line breaks; refused when they make the text
    /// longer than a whole text may be, or hold more than a streamed file's edits may.
    fn substitution(
        &self,
        index: usize,
        substitution: &crate::sed::Substitution,
        display: &str,
    ) -> Result<Vec<Splice>, FkError>;
    /// The splices of a `replace_ranges` edit, checked to fit the text.
    fn ranges(&self, ranges: &[Splice]) -> Result<Vec<Splice>, FkError>;
    /// The editor of the text edits, over `initial` (sorted, disjoint splices of the text).
    fn sequential(
        &self,
        initial: Vec<Splice>,
        patterns: Vec<String>,
    ) -> Result<Sequential<Self::Text>, FkError>;
}

/// A text held whole, with its line index.
struct WholeText<'a> {
    doc: &'a TextDoc,
    indexed: IndexedText<'a>,
    max: u64,
}

impl<'a> EditBase for WholeText<'a> {
    type Text = crate::sequential::MemText<'a>;

    fn lines(&self) -> &dyn TextLines {
        &self.indexed
    }

    fn eol(&self) -> Eol {
        self.doc.eol
    }

    fn line_of(&self, offset: usize) -> usize {
        self.indexed.index.line_of(offset)
    }

    fn substitution(
        &self,
        _index: usize,
        substitution: &crate::sed::Substitution,
        display: &str,
    ) -> Result<Vec<Splice>, FkError> {
        substitution
            .replacements_within(&self.doc.text, self.max, Some(self.doc.eol))
            .map_err(|len| result_too_large(display, len, self.max))
    }

    fn ranges(&self, ranges: &[Splice]) -> Result<Vec<Splice>, FkError> {
        let base = self.doc.text.as_str();
        Splices::new(base, ranges.to_vec())
            .map(|s| s.into_iter().collect())
            .map_err(|e| FkError::caller_splices(&e, ranges, base.len()))
    }

    fn sequential(
        &self,
        initial: Vec<Splice>,
        patterns: Vec<String>,
    ) -> Result<Sequential<Self::Text>, FkError> {
        let base = self.indexed.text;
        Ok(Sequential::new(
            base,
            Splices::new(base, initial)?,
            patterns,
        ))
    }
}

/// How much a file's text edits may make of it: its length (a text held whole), and the
/// bytes of new text they hold (a streamed file's, [`crate::limits::MAX_STREAMED_EDITS`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Growth {
    pub max_len: u64,
    pub max_held: u64,
}

/// The search texts of a file's text edits, each once, in the file's line breaks: the
/// patterns, and which one each edit searches for.
pub(super) fn text_patterns(fe: &FileEdits, eol: Eol) -> (Vec<String>, Vec<Option<usize>>) {
    let mut pattern_ids: HashMap<String, usize> = HashMap::new();
    let mut patterns: Vec<String> = Vec::new();
    let mut edit_pattern: Vec<Option<usize>> = vec![None; fe.edits.len()];
    for (i, edit) in fe.edits.iter().enumerate() {
        if let Edit::ReplaceText { old, .. } = edit
            && !old.is_empty()
        {
            let p = eol.convert(old);
            let id = *pattern_ids.entry(p.clone()).or_insert_with(|| {
                patterns.push(p);
                patterns.len() - 1
            });
            edit_pattern[i] = Some(id);
        }
    }
    (patterns, edit_pattern)
}

/// [`resolve_edits`] against any [`EditBase`]: the splices of the text (sorted, disjoint),
/// each edit's outcome in `outcomes`.
#[allow(clippy::too_many_arguments)]
// Over 200 lines: the three resolve phases in the order their meaning needs (line edits against the
// text as read, text edits each on the result of the one before, appends last), sharing the splice
// set, the outcomes and whether a failed edit stopped the rest.
pub(super) fn resolve_with<E: EditBase>(
    base: &E,
    fe: &FileEdits,
    base_hash: &str,
    start: usize,
    opts: &EditOptions,
    growth: Growth,
    display: &str,
    outcomes: &mut [EditOutcome],
) -> Result<Vec<Splice>, FkError> {
    let target_lines = LineTarget {
        lines: base.lines(),
        eol: base.eol(),
        file_hash: base_hash,
    };
    let mut stopped = false;

    // Resolve, phase 1: line edits, all against the text as read.
    let mut splices = SpliceSet::default();
    for (i, edit) in fe.edits.iter().enumerate().skip(start) {
        if let Edit::Ranges {
            ranges,
            content_hash,
        } = edit
        {
            if stopped {
                outcomes[i].skipped = true;
                continue;
            }
            let result = check_version(base_hash, content_hash)
                .and_then(|()| base.ranges(ranges))
                .and_then(|found| {
                    let first_line = found.first().map(|s| base.line_of(s.start));
                    splices
                        .add_all(i, "replace_ranges".into(), found)
                        .map(|()| first_line)
                });
            match result {
                Ok(first_line) => {
                    outcomes[i].success = true;
                    outcomes[i].replacements = ranges.len();
                    outcomes[i].line = first_line;
                }
                Err(e) => {
                    outcomes[i].error = Some(e);
                    stopped = opts.stop_on_error();
                }
            }
            continue;
        }
        if let Edit::Substitute(substitution) = edit {
            if stopped {
                outcomes[i].skipped = true;
                continue;
            }
            // As found, empty matches included: the splice set checks them against the
            // other edits before they become splices of the text.
            let found = match base.substitution(i, substitution, display) {
                Ok(found) => found,
                Err(e) => {
                    outcomes[i].error = Some(e);
                    stopped = opts.stop_on_error();
                    continue;
                }
            };
            let count = found.len();
            let first_line = found.first().map(|s| base.line_of(s.start));
            let what = format!("substitution {}", substitution.expression());
            match splices.add_all(i, what, found) {
                Ok(()) => {
                    outcomes[i].success = true;
                    outcomes[i].replacements = count;
                    outcomes[i].line = first_line;
                }
                Err(e) => {
                    outcomes[i].error = Some(e);
                    stopped = opts.stop_on_error();
                }
            }
            continue;
        }
        let resolved = match edit {
            Edit::ReplaceLines {
                start,
                end,
                new,
                content_hash,
            } => {
                let what = match end {
                    Some(e) => format!("lines {start}-{e}"),
                    None => format!("lines {start}-end"),
                };
                Some((
                    what,
                    target_lines.replace_lines(*start, *end, new, content_hash.as_deref()),
                    *start,
                ))
            }
            Edit::Insert {
                after,
                text,
                content_hash,
            } => Some((
                format!("insert after line {after}"),
                target_lines.insert_after(*after, text, content_hash.as_deref()),
                after + 1,
            )),
            Edit::Create { .. } => Some((
                "create".into(),
                Err(
                    FkError::invalid("create must be the first edit of its file")
                        .with_hint("put create first, followed by edits of the new content"),
                ),
                0,
            )),
            _ => None,
        };
        let Some((what, result, line)) = resolved else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        match result.and_then(|s| splices.add(i, what, s)) {
            Ok(()) => {
                outcomes[i].success = true;
                outcomes[i].replacements = 1;
                outcomes[i].line = Some(resolve_line(line, base.lines().line_count()));
            }
            Err(e) => {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error();
            }
        }
    }
    let initial = splices.into_sorted();

    // Resolve, phase 2: text edits in order, each on the result of the one before.
    let eol = base.eol();
    let (patterns, edit_pattern) = text_patterns(fe, eol);
    // The longest pattern of the edits after each one: how much context a new block needs.
    let mut longest_after = vec![0usize; fe.edits.len() + 1];
    for i in (0..fe.edits.len()).rev() {
        let here = edit_pattern[i].map_or(0, |p| patterns[p].len());
        longest_after[i] = longest_after[i + 1].max(here);
    }
    let len = base.lines().len() as u64;
    let len = initial.iter().fold(len, |l, s| {
        l + s.text.len() as u64 - (s.end - s.start) as u64
    });
    let held = initial.iter().map(|s| s.text.len() as u64).sum();
    let mut seq = base.sequential(initial, patterns)?;
    let mut scope = TextEditScope {
        opts,
        display: display.to_string(),
        len,
        growth,
        held,
        near_miss: nearmiss::Work::new(opts.near_miss_budget().unwrap_or(NEAR_MISS_WORK)),
    };
    for (i, edit) in fe.edits.iter().enumerate() {
        let Edit::ReplaceText {
            old, new, expected, ..
        } = edit
        else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        seq.set_context(longest_after[i + 1]);
        match apply_text_edit(
            &mut seq,
            edit_pattern[i],
            old,
            &eol.convert(new),
            *expected,
            &mut scope,
        ) {
            Ok(done) => {
                outcomes[i].success = true;
                outcomes[i].replacements = done.count;
                outcomes[i].line = Some(done.line);
                outcomes[i].fuzzy_similarity = done.fuzzy;
                outcomes[i].diff = done.diff;
            }
            Err(e) => {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error();
            }
        }
    }

    // Resolve, phase 3: appends.
    for (i, edit) in fe.edits.iter().enumerate() {
        let Edit::Append { text } = edit else {
            continue;
        };
        if stopped {
            outcomes[i].skipped = true;
            continue;
        }
        let lines = crate::text::split_new_lines(text);
        if !lines.is_empty() {
            let mut add = String::new();
            let ends_nl = seq.ends_with_newline();
            let joined = lines.join(eol.as_str());
            if ends_nl {
                add.push_str(&joined);
                add.push_str(eol.as_str());
            } else {
                add.push_str(eol.as_str());
                add.push_str(&joined);
            }
            if let Err(e) = scope.grow(1, 0, add.len()) {
                outcomes[i].error = Some(e);
                stopped = opts.stop_on_error();
                continue;
            }
            seq.push_end(&add);
        }
        outcomes[i].success = true;
        outcomes[i].replacements = 1;
    }

    Ok(seq.into_blocks())
}

fn resolve_line(n: i64, count: usize) -> usize {
    if n < 0 {
        (count as i64 + 1 + n).max(1) as usize
    } else {
        n.max(1) as usize
    }
}

/// A create or write of `len` bytes, over the `max` bytes a request writes whole.
pub(super) fn content_too_large(display: &str, len: usize, max: u64) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        len as u64,
        max,
        format!(
            "the new content of {display} is {len} bytes, larger than the {max} bytes filekit writes whole"
        ),
    )
    .with_hint("write a smaller file, for example by splitting the content across several files")
}

/// Edits that would make a file held whole `len` bytes long, over the workspace's bound `max`.
pub(super) fn result_too_large(display: &str, len: u64, max: u64) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        len,
        max,
        format!(
            "the edits would make {display} {len} bytes long, larger than the {max} bytes filekit holds whole"
        ),
    )
    .with_hint("replace fewer matches, or with shorter text, in one request (or raise the bound with --max-file-size)")
}

/// Matches whose lines an ambiguous search text's refusal lists.
const LISTED_MATCHES: usize = 50;

/// The refusal of a search text that occurs more often in a streamed file than its matches
/// are kept ([`crate::limits::MAX_STREAMED_MATCHES`]).
fn too_frequent(display: &str, expected: Expected) -> FkError {
    use crate::limits::MAX_STREAMED_MATCHES;
    let found = MAX_STREAMED_MATCHES as u64 + 1;
    let err = FkError::too_large(
        Limit::Targets,
        found,
        MAX_STREAMED_MATCHES as u64,
        format!(
            "the search text occurs more than {MAX_STREAMED_MATCHES} times in {display}, a file streamed for its size: more matches than filekit keeps track of in one"
        ),
    );
    match expected {
        Expected::Exactly(_) => err.with_hint(
            "add surrounding lines to the search text so that it matches once",
        ),
        Expected::All => err.with_hint(
            "replace it with a pattern replacement (a substitution), which works through the file line by line, or with a more specific search text",
        ),
    }
}

struct TextEditDone {
    count: usize,
    line: usize,
    fuzzy: Option<f64>,
    diff: Option<String>,
}

/// What the text edits of one file share: the request's options, the file's name for
/// messages, and what is left of its near-miss budget (comparisons, [`NEAR_MISS_WORK`] unless
/// the request sets its own): a near miss costs a few scans of the whole text and diffs of the
/// search text with the best candidates; without a bound, thousands of failing edits, or one
/// search text of thousands of lines, would take minutes. Within it, every failure of a
/// typical request gets its near miss; past it, failures say the search gave up and why.
struct TextEditScope<'o> {
    opts: &'o EditOptions,
    display: String,
    /// The length of the text as the edits so far made it: an edit that would make it larger
    /// than its bound is refused before it is made.
    len: u64,
    growth: Growth,
    /// Bytes of new text the edits so far hold.
    held: u64,
    near_miss: nearmiss::Work,
}

impl TextEditScope<'_> {
    /// Accounts for `count` replacements of `old_len` bytes by `new_len` bytes each, unless
    /// that makes the text larger than its bound, or its edits hold more than theirs.
    fn grow(&mut self, count: usize, old_len: usize, new_len: usize) -> Result<(), FkError> {
        let len = self.len as u128 + count as u128 * new_len as u128;
        let len = len.saturating_sub(count as u128 * old_len as u128);
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        if len > self.growth.max_len {
            return Err(result_too_large(&self.display, len, self.growth.max_len));
        }
        // Each replacement is a splice of its own, besides its text.
        let cost = crate::limits::SPLICE_COST as u128;
        let held = self.held as u128 + count as u128 * (new_len as u128 + cost);
        let held = u64::try_from(held).unwrap_or(u64::MAX);
        if held > self.growth.max_held {
            return Err(edits_too_large(&self.display, held, self.growth.max_held));
        }
        self.len = len;
        self.held = held;
        Ok(())
    }
}

/// The refusal of edits of a streamed file that would hold more than `max` bytes (the
/// ranges they replace and their new text).
pub(super) fn edits_too_large(display: &str, held: u64, max: u64) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        held,
        max,
        format!(
            "the edits of {display}, a file streamed for its size, would hold {held} bytes of ranges and new text, more than the {max} bytes filekit holds for one file's edits"
        ),
    )
    .with_hint("make fewer or smaller replacements in one request (a narrower pattern, fewer lines at a time)")
}

// Over 200 lines: one text edit's cases in order: found as often as expected (replaced), found a
// wrong number of times (each place listed), not found (the near miss, applied when fuzzy matching
// is asked for); they share what the search found and the edit's scope.
fn apply_text_edit<B: BaseText>(
    seq: &mut Sequential<B>,
    pattern: Option<usize>,
    old: &str,
    new: &str,
    expected: Expected,
    scope: &mut TextEditScope,
) -> Result<TextEditDone, FkError> {
    let opts = scope.opts;
    let display = scope.display.as_str();
    let Some(pi) = pattern else {
        return Err(
            FkError::invalid("the search text is empty: there is nothing to search for")
                .with_hint(
                    "give the exact text to replace, with enough surrounding lines to be unique",
                )
                .with_details(serde_json::json!({"fact": Fact::SearchTextEmpty})),
        );
    };
    if expected == Expected::Exactly(0) {
        return Err(FkError::invalid("the expected count of matches is 0")
            .with_hint("expect at least 1 match, or leave the count out for exactly one")
            .with_details(serde_json::json!({"fact": Fact::ExpectedCountZero})));
    }
    // All of them to replace, or the first few to list.
    let keep = match expected {
        Expected::All => usize::MAX,
        Expected::Exactly(n) => n.max(LISTED_MATCHES),
    };
    let Ok(found) = seq.find(pi, keep) else {
        return Err(too_frequent(display, expected));
    };
    let wanted = seq.patterns()[pi].clone();
    let count_ok = match expected {
        Expected::All => found.count > 0,
        Expected::Exactly(n) => found.count == n,
    };
    let occs = found.first;
    if count_ok {
        scope.grow(occs.len(), wanted.len(), new.len())?;
        let line = seq.line_of(occs[0].start);
        let diff = opts.per_edit_diffs().then(|| {
            let (before, after) = seq.line_context(&occs[0], 4096);
            edit_hunk(line, &before, &wanted, new, &after)
        });
        seq.replace(&occs, new);
        return Ok(TextEditDone {
            count: occs.len(),
            line,
            fuzzy: None,
            diff,
        });
    }
    if found.count > 0 {
        let lines: Vec<usize> = occs
            .iter()
            .take(LISTED_MATCHES)
            .map(|o| seq.line_of(o.start))
            .collect();
        let want = match expected {
            Expected::Exactly(n) => n,
            Expected::All => 1,
        };
        let list = lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(FkError::new(
            ErrorCode::Ambiguous,
            format!(
                "the search text matches {} times in {display} (at lines {list}{}), but {want} {} expected",
                found.count,
                if found.count > lines.len() { ", ..." } else { "" },
                if want == 1 { "match was" } else { "matches were" },
            ),
        )
        .with_hint(if want == 1 {
            format!("add surrounding lines to the search text so that it matches once, or expect all {} matches", found.count)
        } else {
            format!("expect {} matches, or make the search text more specific", found.count)
        })
        .with_details(serde_json::json!({
            "fact": Fact::MatchCount,
            "count": found.count,
            "lines": lines,
            "expected": want,
        })));
    }
    // Not found: the closest near miss, applied only if the caller asked for fuzzy matching.
    let gave_up = |why: &str, hint: &str, work: &nearmiss::Work| {
        FkError::new(
            ErrorCode::NotFound,
            format!(
                "the search text was not found in {display} ({why}{})",
                if opts.fuzzy_threshold().is_some() {
                    ", so fuzzy matching was not tried either"
                } else {
                    ""
                }
            ),
        )
        .with_hint(hint)
        .with_details(serde_json::json!({
            "fact": Fact::SearchTextNotFound,
            "near_miss": null,
            "near_miss_skipped": "budget",
            "limit": LimitFacts::new(Limit::SearchWork, work.spent(), work.max()),
            "wanted": old,
        }))
    };
    // A streamed file is not held whole to be searched for a near miss.
    if !seq.in_memory() {
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!("the search text was not found in {display}"),
        )
        .with_hint("read the lines you meant to change again and copy them exactly (the file is streamed for its size, so no near miss was searched)")
        .with_details(serde_json::json!({
            "fact": Fact::SearchTextNotFound,
            "near_miss": null,
            "near_miss_skipped": "streamed",
            "wanted": old,
        })));
    }
    // Building the current text costs a pass over it.
    if scope.near_miss.exhausted() || scope.near_miss.spend(seq.base_len() as u64).is_err() {
        return Err(gave_up(
            "no near miss searched: earlier failures of this request used up the near-miss search",
            "fix the earlier failed edits first (their errors show the near misses), then send this one again",
            &scope.near_miss,
        ));
    }
    let (text, map) = seq.current_with_map();
    let Ok(near) = nearmiss::closest_within(&text, &wanted, &mut scope.near_miss) else {
        return Err(gave_up(
            &format!(
                "the search for a near miss gave up: it would have taken more than {} comparisons",
                scope.near_miss.max()
            ),
            "read the lines you meant to change again and copy them exactly; a shorter search text (a few lines that are unique in the file) is checked faster",
            &scope.near_miss,
        ));
    };
    if let (Some(threshold), Some(nm), Expected::Exactly(1)) =
        (opts.fuzzy_threshold(), &near, expected)
        && nm.similarity >= threshold
        && nm.end > nm.start
    {
        scope.grow(1, nm.end - nm.start, new.len())?;
        let occ = Occurrence {
            start: map.pos_at(nm.start),
            last: map.pos_at(nm.end - 1),
        };
        let line = seq.line_of(occ.start);
        let diff = opts.per_edit_diffs().then(|| {
            let (before, after) = seq.line_context(&occ, 4096);
            edit_hunk(line, &before, &nm.found, new, &after)
        });
        seq.replace(&[occ], new);
        return Ok(TextEditDone {
            count: 1,
            line,
            fuzzy: Some(nm.similarity),
            diff,
        });
    }
    drop(map);
    let mut err = FkError::new(
        ErrorCode::NotFound,
        format!("the search text was not found in {display}"),
    );
    match near {
        Some(nm) => {
            let what = match nm.difference {
                Difference::LineEndings => "differs only in line endings".to_string(),
                Difference::Whitespace => "differs only in white space".to_string(),
                Difference::Text => format!("similarity {:.2}", nm.similarity),
            };
            let lines = if nm.end_line > nm.line {
                format!("lines {}-{}", nm.line, nm.end_line)
            } else {
                format!("line {}", nm.line)
            };
            err.message.push_str(&format!(
                "; the closest near miss is at {lines} ({what}); wanted vs found: {}",
                shorten(&nm.diff, 600)
            ));
            err = err
                .with_hint(format!(
                    "copy the text exactly as the file has it at {lines}: {:?}, or read those lines again",
                    shorten(&nm.found, 300)
                ))
                .with_details(serde_json::json!({
                    "fact": Fact::SearchTextNotFound,
                    "near_miss": nm,
                    "wanted": old,
                }));
            if let Some(t) = opts.fuzzy_threshold() {
                err.message
                    .push_str(&format!(" (below the fuzzy threshold {t})"));
            }
        }
        None => {
            err = err
                .with_hint("nothing similar is in the file: read it again and copy the text exactly, including indentation")
                .with_details(serde_json::json!({
                    "fact": Fact::SearchTextNotFound,
                    "near_miss": null,
                    "wanted": old,
                }));
        }
    }
    Err(err)
}

fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}
