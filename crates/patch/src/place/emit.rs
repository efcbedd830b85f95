//! The splices of a placed hunk: only its removed and added lines change the file.

use super::drift::{indent_of, width};
use super::search::{FLine, Place};
use crate::{Format, Hunk, HunkLine};
use filekit_splices::Splice;

/// How a file indents: only with spaces, only with tabs, both, or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
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

pub(super) fn file_style(text: &str, lines: &[FLine]) -> Style {
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
pub(super) fn no_trailing_whitespace(text: &str, lines: &[FLine]) -> bool {
    lines.iter().all(|l| {
        let t = &text[l.start..l.content_end];
        t.trim().is_empty() || t.trim_end() == t
    })
}

/// A run of removed and added lines being gathered: the file lines removed (first, last),
/// each removed line's text in the patch with its file line, and each added line as written
/// and as it will be written.
#[derive(Default)]
pub(super) struct Run {
    pub(super) removed: Option<(usize, usize)>,
    pub(super) removed_texts: Vec<(String, usize)>,
    pub(super) added: Vec<(String, String)>,
}

pub(super) struct Emit<'a> {
    pub(super) style: Style,
    /// Strip white space at the ends of added lines (the hunk was placed allowing for it, and
    /// the file has none).
    pub(super) strip_trailing: bool,
    /// How a file without indented lines indents, if its language says.
    pub(super) convention: Option<IndentConvention>,
    pub(super) text: &'a str,
    pub(super) lines: &'a [FLine],
    pub(super) eol: &'a str,
    pub(super) format: Format,
    pub(super) ends_without_newline: bool,
}

impl<'a> Emit<'a> {
    /// The splices of one placed hunk: each run of removed and added lines replaces the file
    /// lines it removes; the file's context lines stay as they are. An added line that is a
    /// removed line of its run written again keeps the file's version of it (the patch changes
    /// nothing there). Added lines indented with tabs in a file indented only with spaces (or
    /// the reverse) take the file's style; the bool says that happened.
    pub(super) fn splices(&self, hunk: &Hunk, m: &Place) -> (Vec<Splice>, bool) {
        let drift = &m.drift;
        let contexts = self.nearest_contexts(hunk, m);
        let mut out = Vec::new();
        let mut old_k = 0usize;
        let mut run = Run::default();
        let mut restyled = false;
        for (i, l) in hunk.lines.iter().enumerate() {
            match l {
                HunkLine::Context(_) => {
                    let f = m.at(old_k);
                    old_k += 1;
                    if let Some(f) = f {
                        self.flush(&mut out, &mut run, Some(f), hunk, m);
                    }
                }
                HunkLine::Removed(t) => {
                    let f = m.at(old_k);
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
                    let (mut line, changed) =
                        self.restyle(&drift.reindent(t, contexts[i]), drift.tab);
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

    /// For each line of the hunk, the indentation in the patch and in the file of the
    /// non-blank old line nearest to it (the one before it when two are as near).
    fn nearest_contexts<'h>(&self, hunk: &'h Hunk, m: &Place) -> Vec<Option<(&'h str, &'a str)>> {
        let mut old_k = 0usize;
        let olds: Vec<Option<(&str, &str)>> = hunk
            .lines
            .iter()
            .map(|l| {
                let (HunkLine::Context(t) | HunkLine::Removed(t)) = l else {
                    return None;
                };
                let f = m.at(old_k);
                old_k += 1;
                let f = &self.text[self.lines[f?].start..self.lines[f?].content_end];
                (!t.trim().is_empty() && !f.trim().is_empty()).then(|| (indent_of(t), indent_of(f)))
            })
            .collect();
        let mut before = vec![None; olds.len()];
        let mut last = None;
        for (i, o) in olds.iter().enumerate() {
            before[i] = last;
            if let Some(o) = o {
                last = Some((i, *o));
            }
        }
        let mut out = vec![None; olds.len()];
        let mut next: Option<(usize, (&str, &str))> = None;
        for i in (0..olds.len()).rev() {
            out[i] = match (before[i], next) {
                (Some((b, ob)), Some((a, oa))) => Some(if i - b <= a - i { ob } else { oa }),
                (b, a) => b.or(a).map(|(_, o)| o),
            };
            if let Some(o) = olds[i] {
                next = Some((i, o));
            }
        }
        out
    }

    pub(super) fn restyle(&self, line: &str, tab: usize) -> (String, bool) {
        let ind = indent_of(line);
        let new = match (self.style, self.convention) {
            (Style::Spaces, _) if ind.contains('\t') => ind.replace('\t', &" ".repeat(tab)),
            (Style::Unindented, Some(IndentConvention::Spaces(n))) if ind.contains('\t') => {
                ind.replace('\t', &" ".repeat(n))
            }
            (Style::Tabs, _) if ind.contains(&" ".repeat(tab)) => {
                let w = width(ind, tab);
                "\t".repeat(w / tab) + &" ".repeat(w % tab)
            }
            _ => return (line.to_string(), false),
        };
        (new + &line[ind.len()..], true)
    }

    pub(super) fn flush(
        &self,
        out: &mut Vec<Splice>,
        run: &mut Run,
        next_context: Option<usize>,
        hunk: &Hunk,
        m: &Place,
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
