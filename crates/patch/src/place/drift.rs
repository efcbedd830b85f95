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

/// Finds a drift under which the indentation of every pair (patch line, file line) agrees.
pub(super) fn find_drift<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    file_uses_tabs: bool,
) -> Option<Drift> {
    let nonblank = pairs.filter(|(p, f)| !p.trim().is_empty() && !f.trim().is_empty());
    let Some((p0, f0)) = nonblank.clone().next() else {
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
        if nonblank.clone().all(|(p, f)| {
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
