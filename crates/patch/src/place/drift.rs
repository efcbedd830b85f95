//! How a hunk's indentation maps to the file's.

pub(super) fn indent_of(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

pub(super) fn width(indent: &str, tab: usize) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { tab } else { 1 })
        .sum()
}

/// Whether a hunk's indentation drifted from the file's, and the tab width under which every
/// old line's indentation differs from the file's by the same width.
#[derive(Debug, Clone)]
pub(super) struct Drift {
    /// Whether added lines are re-indented at all (only when placed with tolerance).
    pub(super) active: bool,
    pub(super) tab: usize,
}

impl Drift {
    pub(super) fn none() -> Drift {
        Drift {
            active: false,
            tab: 4,
        }
    }

    /// An added line of the hunk, re-indented as `context` drifted: the indentation, in the
    /// patch and in the file, of the old line nearest to it. What the added line has beyond
    /// (or short of) the context line in the patch, it keeps relative to the context line in
    /// the file. Other lines of the hunk can say nothing about this one: in a file indented
    /// both with tabs and with spaces, each line's characters are its own.
    pub(super) fn reindent(&self, line: &str, context: Option<(&str, &str)>) -> String {
        let Some((patch, file)) = context else {
            return line.to_string();
        };
        if !self.active || line.trim().is_empty() || patch == file {
            return line.to_string();
        }
        let ind = indent_of(line);
        let rest = &line[ind.len()..];
        // The drift as characters in front of the file's indentation, or taken from it: the
        // added line loses or gains the same characters and keeps its own.
        if let Some(kept) = patch
            .strip_suffix(file)
            .and_then(|drift| ind.strip_prefix(drift))
        {
            return kept.to_string() + rest;
        }
        if let Some(drift) = file.strip_suffix(patch) {
            return drift.to_string() + line;
        }
        // The hunk wrote the context line's indentation in other characters (spaces for the
        // file's tabs): the added line is moved by the difference in width, written as the
        // file's line is when the added line indents as the hunk's context line does, in its
        // own characters when it does not.
        let w =
            (width(ind, self.tab) + width(file, self.tab)).saturating_sub(width(patch, self.tab));
        let as_context = ind.starts_with(patch) || patch.starts_with(ind);
        let tabs = if as_context && !file.is_empty() {
            file.starts_with('\t')
        } else {
            ind.starts_with('\t')
        };
        let new = if tabs {
            "\t".repeat(w / self.tab) + &" ".repeat(w % self.tab)
        } else {
            " ".repeat(w)
        };
        new + rest
    }
}

/// The tab widths a drift is tried with, in order.
const TABS: [usize; 3] = [4, 8, 2];

/// A line's indentation as the drift compares it, worked out once: its width at each tab
/// width, and whether the line is blank.
#[derive(Debug, Clone, Copy)]
pub(super) struct Indent {
    widths: [u32; 3],
    blank: bool,
}

impl Indent {
    pub(super) fn of(line: &str) -> Indent {
        let ind = indent_of(line);
        Indent {
            widths: TABS.map(|tab| width(ind, tab) as u32),
            blank: line.trim().is_empty(),
        }
    }
}

/// Finds a drift under which the indentation of every pair (patch line, file line) agrees.
pub(super) fn find_drift(pairs: impl Iterator<Item = (Indent, Indent)> + Clone) -> Option<Drift> {
    let nonblank = pairs.filter(|(p, f)| !p.blank && !f.blank);
    let Some((p0, f0)) = nonblank.clone().next() else {
        return Some(Drift {
            active: true,
            tab: 4,
        });
    };
    for (t, tab) in TABS.into_iter().enumerate() {
        let (pw0, fw0) = (p0.widths[t] as i64, f0.widths[t] as i64);
        if nonblank
            .clone()
            .all(|(p, f)| p.widths[t] as i64 - pw0 == f.widths[t] as i64 - fw0)
        {
            return Some(Drift { active: true, tab });
        }
    }
    None
}
