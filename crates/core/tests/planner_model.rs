//! The whole edit planner (line edits, text edits and appends in one request, through
//! `pipeline::apply` and the bytes on disk) against a small reference model of DESIGN.md
//! section 3, on random files with LF or CRLF line endings, with or without a BOM and a final
//! newline:
//!
//! - a file is a list of lines, a line ending, a BOM flag and a final-newline flag;
//! - new text is whole lines: `"a"` and `"a\n"` are one line, `""` none;
//! - line edits (replace_lines, insert) all address the file as read and apply together;
//! - text edits then apply in order, each on the result of the one before, and fail (leaving
//!   the text as it was) unless the count of matches is the one expected; their `\n` becomes
//!   the file's line ending;
//! - appends come last, as whole lines, each keeping the text's final line break (or its
//!   lack) as it is when the append applies;
//! - the BOM, the line ending and the presence of the final newline are kept.

use filekit_core::{Edit, EditOptions, EditRequest, Expected, Workspace, pipeline};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct File {
    lines: Vec<String>,
    crlf: bool,
    bom: bool,
    final_newline: bool,
}

impl File {
    fn eol(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }

    fn render_text(&self, lines: &[String]) -> String {
        let mut s = lines.join(self.eol());
        if self.final_newline && !lines.is_empty() {
            s.push_str(self.eol());
        }
        s
    }

    fn bytes(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice("\u{feff}".as_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out
    }
}

#[derive(Debug, Clone)]
enum LineEdit {
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
struct TextEdit {
    old: String,
    new: String,
    all: bool,
}

/// DESIGN.md's whole lines of a new text.
fn whole_lines(s: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.split('\n').map(str::to_string).collect()
}

/// The reference model: the file's bytes after the request, and which edits succeeded.
fn model(
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
            for j in k..=*end {
                lines.extend(inserted[j].iter().cloned());
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

fn file_strategy() -> impl Strategy<Value = File> {
    (
        prop::collection::vec("[abx ]{0,5}", 1..8),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, bom, final_newline)| {
            // Without a final newline an empty last line would not be a line at all
            // (`a\n` is one line): such a file is the one with the final newline.
            let final_newline = final_newline || lines.last().is_some_and(String::is_empty);
            // A file without any line break has no style of its own: new lines get `\n`.
            let crlf = crlf && (final_newline || lines.len() > 1);
            File {
                final_newline,
                lines,
                crlf,
                bom,
            }
        })
}

/// Disjoint line edits of a file of `n` lines: replaced ranges never touch each other, and
/// an insert is never at the edge of or inside a replaced range (both would be conflicts or
/// order questions the model does not decide).
fn line_edits_strategy(n: usize) -> impl Strategy<Value = Vec<LineEdit>> {
    prop::collection::vec((0..=n, 0usize..3, any::<bool>(), "[aby\n]{0,6}"), 0..4).prop_map(
        move |raw| {
            let mut taken = vec![false; n + 2];
            let mut insert_at = vec![false; n + 1];
            let mut out = Vec::new();
            for (at, len, is_insert, new) in raw {
                if is_insert {
                    // Not next to or inside a replaced range, once per position.
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
                    // Neither overlapping nor adjacent to another range or an insert.
                    if (start - 1..=end + 1).any(|k| taken[k])
                        || (start - 1..=end).any(|k| insert_at[k])
                    {
                        continue;
                    }
                    for k in start..=end {
                        taken[k] = true;
                    }
                    out.push(LineEdit::Replace { start, end, new });
                }
            }
            out
        },
    )
}

fn case_strategy() -> impl Strategy<Value = (File, Vec<LineEdit>, Vec<TextEdit>, Vec<String>)> {
    file_strategy().prop_flat_map(|file| {
        let n = file.lines.len();
        (
            Just(file),
            line_edits_strategy(n),
            prop::collection::vec(
                ("[abxy]{1,3}", "[abcz\n]{0,4}", any::<bool>())
                    .prop_map(|(old, new, all)| TextEdit { old, new, all }),
                0..4,
            ),
            prop::collection::vec("[cz\n]{0,4}", 1..3),
        )
    })
}

fn run(
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
    let options = EditOptions {
        no_fsync: true,
        ..EditOptions::default()
    };
    let report = pipeline::apply(&ws, &EditRequest::one_file("f.txt", edits, options));
    let f = &report.files[0];
    assert!(f.error.is_none(), "file error: {:?}", f.error);
    let ok = f.edits.iter().map(|o| o.success).collect();
    (std::fs::read(&path).unwrap(), ok)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn planner_matches_the_reference_model(
        (file, line_edits, text_edits, appends) in case_strategy()
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (want, want_ok) = model(&file, &line_edits, &text_edits, &appends);
        let (got, got_ok) = run(dir.path(), &file, &line_edits, &text_edits, &appends);
        prop_assert_eq!(&got_ok, &want_ok, "which edits succeeded");
        prop_assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "file {:?}",
            file
        );
    }
}
