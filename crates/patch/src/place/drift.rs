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

/// How the hunk's indentation maps to the file's: the first non-blank old line's indent in
/// the patch and in the file, the tab width that makes every line agree, and whether the file
/// indents with tabs.
#[derive(Debug, Clone)]
pub(super) struct Drift {
    /// Whether added lines are re-indented at all (only when placed with tolerance).
    pub(super) active: bool,
    pub(super) patch0: usize,
    pub(super) file0: usize,
    pub(super) tab: usize,
    pub(super) tabs: bool,
}

impl Drift {
    pub(super) fn none(file_uses_tabs: bool) -> Drift {
        Drift {
            active: false,
            patch0: 0,
            file0: 0,
            tab: 4,
            tabs: file_uses_tabs,
        }
    }

    pub(super) fn reindent(&self, line: &str) -> String {
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

/// The tab widths a drift is tried with, in order.
const TABS: [usize; 3] = [4, 8, 2];

/// A line's indentation as the drift compares it, worked out once: its width at each tab
/// width, whether it starts with a tab, and whether the line is blank.
#[derive(Debug, Clone, Copy)]
pub(super) struct Indent {
    widths: [u32; 3],
    starts_with_tab: bool,
    unindented: bool,
    blank: bool,
}

impl Indent {
    pub(super) fn of(line: &str) -> Indent {
        let ind = indent_of(line);
        Indent {
            widths: TABS.map(|tab| width(ind, tab) as u32),
            starts_with_tab: ind.starts_with('\t'),
            unindented: ind.is_empty(),
            blank: line.trim().is_empty(),
        }
    }
}

/// Finds a drift under which the indentation of every pair (patch line, file line) agrees.
pub(super) fn find_drift(
    pairs: impl Iterator<Item = (Indent, Indent)> + Clone,
    file_uses_tabs: bool,
) -> Option<Drift> {
    let nonblank = pairs.filter(|(p, f)| !p.blank && !f.blank);
    let Some((p0, f0)) = nonblank.clone().next() else {
        return Some(Drift {
            active: true,
            patch0: 0,
            file0: 0,
            tab: 4,
            tabs: file_uses_tabs,
        });
    };
    for (t, tab) in TABS.into_iter().enumerate() {
        let (pw0, fw0) = (p0.widths[t] as i64, f0.widths[t] as i64);
        if nonblank
            .clone()
            .all(|(p, f)| p.widths[t] as i64 - pw0 == f.widths[t] as i64 - fw0)
        {
            return Some(Drift {
                active: true,
                patch0: pw0 as usize,
                file0: fw0 as usize,
                tab,
                tabs: if f0.unindented {
                    file_uses_tabs
                } else {
                    f0.starts_with_tab
                },
            });
        }
    }
    None
}
