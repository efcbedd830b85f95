//! The property the placement keeps, as functions: the crate's property test and the
//! `patch_place` fuzz target (a longer, randomized run) both check it. A change between two
//! texts is rendered as a patch in each format, with the drift models write, and placed: the
//! result is the new text, or the patch is refused.

use crate::{FileOp, HunkOutcome, Tolerance, parse, place};

/// `old` to `new` as a unified diff of file `f` with `context` lines of context (similar's).
pub fn render_unified(old: &str, new: &str, context: usize) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = String::from("--- a/f\n+++ b/f\n");
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(context)
            .missing_newline_hint(true)
            .to_string(),
    );
    out
}

/// `old` to `new` as Codex's envelope: hunks of up to 3 lines of context, no line numbers.
pub fn render_v4a(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = String::from("*** Begin Patch\n*** Update File: f\n");
    for group in diff.grouped_ops(3) {
        out.push_str("@@\n");
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                out.push(sign);
                out.push_str(change.value().trim_end_matches('\n'));
                out.push('\n');
            }
        }
    }
    out.push_str("*** End Patch\n");
    out
}

/// `old` to `new` as SEARCH/REPLACE blocks of file `f`, one per hunk of up to 3 lines of
/// context, in file order.
pub fn render_search_replace(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = String::new();
    for group in diff.grouped_ops(3) {
        let (mut search, mut replace) = (String::new(), String::new());
        for op in group {
            for change in diff.iter_changes(&op) {
                let line = change.value().trim_end_matches('\n');
                if change.tag() != similar::ChangeTag::Insert {
                    search.push_str(line);
                    search.push('\n');
                }
                if change.tag() != similar::ChangeTag::Delete {
                    replace.push_str(line);
                    replace.push('\n');
                }
            }
        }
        out.push_str(&format!(
            "f\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n"
        ));
    }
    out
}

/// Adds trailing white space to the context lines of a rendered patch, or shifts every line of
/// each hunk by two spaces of indentation when `indent` (hunks whose old lines are all blank
/// have no indentation to drift from, and are left alone); or, when `blank_mode`, drops the
/// first blank context line of each hunk.
pub fn drift(patch: &str, indent: bool, blank_mode: bool) -> String {
    let is_body = |l: &str| {
        (l.starts_with(' ') || l.starts_with('-') || l.starts_with('+'))
            && !l.starts_with("---")
            && !l.starts_with("+++")
    };
    let lines: Vec<&str> = patch.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_body(lines[i]) {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && is_body(lines[i]) {
            i += 1;
        }
        let hunk = &lines[start..i];
        // A blank context line between two non-blank context lines: dropping it changes
        // nothing the patch says (next to a change, it would move the change, and the patch
        // would mean another edit, which a_change_next_to_blank_lines_... covers).
        let is_ctx = |l: &str| l.starts_with(' ') && !l[1..].trim().is_empty();
        let drop_blank = (1..hunk.len().saturating_sub(1)).find(|&k| {
            (hunk[k] == " " || hunk[k].is_empty()) && is_ctx(hunk[k - 1]) && is_ctx(hunk[k + 1])
        });
        let shift = indent
            && hunk
                .iter()
                .any(|l| !l.starts_with('+') && !l[1..].trim().is_empty());
        for (k, l) in hunk.iter().enumerate() {
            if blank_mode && Some(k) == drop_blank {
                continue;
            }
            if l.is_empty() {
                out.push('\n');
                continue;
            }
            let (sign, rest) = l.split_at(1);
            let mut rest = rest.to_string();
            if shift && !rest.trim().is_empty() {
                rest = format!("  {rest}");
            }
            if sign == " " && !indent && !blank_mode {
                rest.push_str("  ");
            }
            out.push_str(sign);
            out.push_str(&rest);
            out.push('\n');
        }
    }
    out
}

/// Renders the change from `old` to `new` as a patch (0: unified with `context` lines, 1:
/// Codex's envelope, 2: SEARCH/REPLACE blocks, drift left out), with the drift `drift_kind` says (0: none, 1: trailing white space, 2:
/// indentation, 3: a blank context line dropped), places it on `old`, and checks that the
/// result is `new` or the patch is refused; a clean diff with the usual context must apply.
/// `text` with each line's leading tabs written as four spaces.
fn tabs_as_spaces(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|l| {
            let rest = l.trim_start_matches('\t');
            "    ".repeat(l.len() - rest.len()) + rest
        })
        .collect()
}

pub fn check_change(
    old: &str,
    new: &str,
    format: usize,
    drift_kind: usize,
    context: usize,
) -> Result<(), String> {
    let patch = match format {
        0 => render_unified(old, new, context),
        1 => render_v4a(old, new),
        _ => render_search_replace(old, new),
    };
    let patch = match drift_kind {
        _ if format > 1 => patch,
        0 => patch,
        1 => drift(&patch, false, false),
        2 => drift(&patch, true, false),
        _ => drift(&patch, false, true),
    };
    let parsed = parse(&patch, None).unwrap();
    let FileOp::Update { hunks, .. } = &parsed.files[0].op else {
        panic!()
    };
    let placed = place(old, hunks, parsed.format);
    if let Some(s) = placed.splices {
        let got = s.apply(old).unwrap();
        // Codex's envelope has no line numbers: a hunk whose lines are in several places goes
        // to the first after the hunk before it, by the format's own rule, and the reply names
        // the others. The generator renders such hunks without the `@@` line that would tell
        // them apart, so there the first place is what the patch says, not a wrong reading.
        let first_in_order = placed.hunks.iter().any(|h| {
            h.tolerances.contains(&Tolerance::FirstInOrder)
                && h.candidates.len() >= 2
                && h.line == h.candidates.first().copied()
        });
        // Added lines take the file's tabs or spaces, and the hunk says so: the generator's
        // added lines are indented with spaces whatever the file.
        let restyled = placed
            .hunks
            .iter()
            .any(|h| h.tolerances.contains(&Tolerance::TabsSpaces))
            && tabs_as_spaces(&got) == tabs_as_spaces(new);
        if got != new && !first_in_order && !restyled {
            return Err(format!(
                "applied wrong:\n{patch}\ngot: {got:?}\nwanted: {new:?}\nreports: {:?}",
                placed.hunks
            ));
        }
    }
    // A clean diff with the usual context applies.
    if drift_kind == 0
        && format == 0
        && context == 3
        && placed
            .hunks
            .iter()
            .any(|h| h.outcome == HunkOutcome::Refused)
    {
        return Err(format!("clean patch refused:\n{patch}\n{:?}", placed.hunks));
    }
    Ok(())
}
