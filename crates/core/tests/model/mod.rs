//! The reference model of the edit rules (line edits on the file as read, text edits in order) shared by the planner's property test
//! (crates/core/tests/planner_model.rs) and its fuzz target (fuzz/fuzz_targets/planner.rs):
//! see planner_model.rs for the rules it encodes.
#![allow(dead_code)] // each user takes a different part

use filekit_core::{Edit, EditOptions, EditRequest, Expected, Workspace, pipeline};

#[derive(Debug, Clone)]
pub struct File {
    pub lines: Vec<String>,
    pub crlf: bool,
    pub bom: bool,
    pub final_newline: bool,
}

impl File {
    pub fn eol(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }

    pub fn render_text(&self, lines: &[String]) -> String {
        let mut s = lines.join(self.eol());
        if self.final_newline && !lines.is_empty() {
            s.push_str(self.eol());
        }
        s
    }

    pub fn bytes(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice("\u{feff}".as_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out
    }
}

#[derive(Debug, Clone)]
pub enum LineEdit {
    /// Replace lines start..=end (1-based) with these whole lines.
    Replace {
        start: usize,
        end: usize,
        new: String,
    },
    /// Insert after line `after` (0: at the top).
    Insert { after: usize, new: String },
}

#[derive(Debug, Clone)]
pub struct TextEdit {
    pub old: String,
    pub new: String,
    pub all: bool,
}

/// The whole lines of a new text, as the edit rules take them.
pub fn whole_lines(s: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.split('\n').map(str::to_string).collect()
}

/// The reference model: the file's bytes after the request, and which edits succeeded.
pub fn model(
    file: &File,
    line_edits: &[LineEdit],
    text_edits: &[TextEdit],
    appends: &[String],
) -> (Vec<u8>, Vec<bool>) {
    // Line edits, against the numbering of the file as read.
    let n = file.lines.len();
    let mut replaced = vec![None::<usize>; n + 1];
    let mut inserted: Vec<Vec<String>> = vec![Vec::new(); n + 1];
    for (i, e) in line_edits.iter().enumerate() {
        match e {
            LineEdit::Replace { start, end, .. } => {
                for slot in &mut replaced[*start..=*end] {
                    *slot = Some(i);
                }
            }
            LineEdit::Insert { after, new } => inserted[*after].extend(whole_lines(new)),
        }
    }
    let mut lines = inserted[0].clone();
    let mut k = 1;
    while k <= n {
        if let Some(i) = replaced[k] {
            let LineEdit::Replace { end, new, .. } = &line_edits[i] else {
                unreachable!()
            };
            lines.extend(whole_lines(new));
            for after in &inserted[k..=*end] {
                lines.extend(after.iter().cloned());
            }
            k = end + 1;
        } else {
            lines.push(file.lines[k - 1].clone());
            lines.extend(inserted[k].iter().cloned());
            k += 1;
        }
    }
    let mut ok = vec![true; line_edits.len()];
    let mut text = file.render_text(&lines);
    // Text edits, in order.
    for e in text_edits {
        let count = text.matches(e.old.as_str()).count();
        let fits = if e.all { count >= 1 } else { count == 1 };
        ok.push(fits);
        if fits {
            text = text.replace(e.old.as_str(), &e.new.replace('\n', file.eol()));
        }
    }
    // Appends, as whole lines at the end.
    for a in appends {
        let add = whole_lines(a);
        ok.push(true);
        if add.is_empty() {
            continue;
        }
        // The last line keeps or lacks its line break as it is now (an empty text counts as
        // ending with one).
        if text.is_empty() || text.ends_with('\n') {
            text.push_str(&add.join(file.eol()));
            text.push_str(file.eol());
        } else {
            text.push_str(file.eol());
            text.push_str(&add.join(file.eol()));
        }
    }
    (file.bytes(&text), ok)
}

/// Makes a file the model and the engine see alike: without a final newline an empty last
/// line would not be a line at all (`a\n` is one line), and a file without any line break
/// has no line-ending style of its own (new lines get `\n`).
pub fn normalize_file(lines: Vec<String>, crlf: bool, bom: bool, final_newline: bool) -> File {
    let lines = if lines.is_empty() {
        vec![String::new()]
    } else {
        lines
    };
    let final_newline = final_newline || lines.last().is_some_and(String::is_empty);
    let crlf = crlf && (final_newline || lines.len() > 1);
    File {
        final_newline,
        lines,
        crlf,
        bom,
    }
}

/// Keeps the line edits of a file of `n` lines that the model decides: replaced ranges never
/// touch each other, and an insert is never at the edge of or inside a replaced range (both
/// would be conflicts or order questions).
pub fn sanitize_line_edits(n: usize, raw: Vec<(usize, usize, bool, String)>) -> Vec<LineEdit> {
    let mut taken = vec![false; n + 2];
    let mut insert_at = vec![false; n + 1];
    let mut out = Vec::new();
    for (at, len, is_insert, new) in raw {
        let at = at.min(n);
        if is_insert {
            if insert_at[at] || taken[at] || taken[at + 1] {
                continue;
            }
            insert_at[at] = true;
            out.push(LineEdit::Insert { after: at, new });
        } else {
            let start = at.max(1);
            if start > n {
                continue;
            }
            let end = (start + len).min(n);
            if (start - 1..=end + 1).any(|k| taken[k]) || (start - 1..=end).any(|k| insert_at[k]) {
                continue;
            }
            for slot in &mut taken[start..=end] {
                *slot = true;
            }
            out.push(LineEdit::Replace { start, end, new });
        }
    }
    out
}

/// Writes `file` to `dir/f.txt`, applies the edits in one request through the pipeline, and
/// returns the bytes on disk and which edits succeeded.
pub fn run(
    dir: &std::path::Path,
    file: &File,
    line_edits: &[LineEdit],
    text_edits: &[TextEdit],
    appends: &[String],
) -> (Vec<u8>, Vec<bool>) {
    let path = dir.join("f.txt");
    std::fs::write(&path, file.bytes(&file.render_text(&file.lines))).unwrap();
    let mut edits = Vec::new();
    for e in line_edits {
        edits.push(match e {
            LineEdit::Replace { start, end, new } => Edit::ReplaceLines {
                start: *start as i64,
                end: Some(*end as i64),
                new: new.clone(),
                content_hash: None,
            },
            LineEdit::Insert { after, new } => Edit::Insert {
                after: *after as i64,
                text: new.clone(),
                content_hash: None,
            },
        });
    }
    for e in text_edits {
        edits.push(Edit::ReplaceText {
            old: e.old.clone(),
            new: e.new.clone(),
            expected: if e.all {
                Expected::All
            } else {
                Expected::Exactly(1)
            },
            label: None,
        });
    }
    for a in appends {
        edits.push(Edit::Append { text: a.clone() });
    }
    let ws = Workspace::new(&[dir.to_path_buf()], false).unwrap();
    let options = EditOptions::builder().no_fsync(true).build();
    let report = pipeline::apply(&ws, &EditRequest::one_file("f.txt", edits, options));
    let f = &report.files[0];
    assert!(f.error().is_none(), "file error: {:?}", f.error());
    let ok = f.edits.iter().map(|o| o.success).collect();
    (std::fs::read(&path).unwrap(), ok)
}
