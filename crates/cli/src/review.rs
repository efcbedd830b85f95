//! `filekit replace -i`: review each change of a tree-wide replace, as fastmod does.
//!
//! The engine plans the replace as a dry run; each match is shown with its line before and
//! after, and the answer read from standard input: `y` (or Enter) accepts, `n` rejects, `e`
//! opens the new line(s) in $VISUAL/$EDITOR to change them first, `A` accepts this and every
//! later change, `q` stops reviewing. The accepted changes are then written in one request,
//! as byte ranges tied to the version of each file that was reviewed: a file changed during
//! the review is refused, not overwritten.

use crate::style::Style;
use crate::{EXIT_FAILED, EXIT_OK};
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits, FileStatus};
use filekit_core::replace::{TreeReplace, tree_replace};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use filekit_core::splices::Splice;
use filekit_core::text::Eol;
use filekit_core::{Workspace, pipeline};
use std::io::{BufRead, Write};

enum Answer {
    Yes,
    No,
    Edit,
    All,
    Quit,
    /// Standard input ended: nobody is there to answer.
    End,
}

pub fn run(
    ws: &Workspace,
    style: &Style,
    selection: FileSelection,
    substitution: Substitution,
    atomic: bool,
) -> u8 {
    let plan = TreeReplace {
        selection,
        substitution: substitution.clone(),
        options: EditOptions::builder().dry_run(true).build(),
    };
    let planned = match tree_replace(ws, &plan) {
        Ok(p) => p,
        Err(e) => return crate::replace::failed_to_start(&e),
    };
    // Every change the review may offer, counted before asking: a review that stops early
    // says how many it did not get to.
    let total: usize = planned
        .report
        .files
        .iter()
        .filter(|f| f.status() == FileStatus::Modified)
        .filter_map(|f| f.old_text.as_deref())
        .map(|text| {
            substitution
                .replacements_within(text, u64::MAX, None)
                .map_or(0, |found| found.len())
        })
        .sum();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut accept_all = false;
    let mut quit = false;
    let mut ended = false;
    let mut files: Vec<FileEdits> = Vec::new();
    let (mut accepted, mut offered) = (0usize, 0usize);
    for f in &planned.report.files {
        if quit {
            break;
        }
        if f.status() != FileStatus::Modified {
            continue;
        }
        let (Some(text), Some(hash)) = (&f.old_text, &f.old_hash) else {
            continue;
        };
        let eol = Eol::detect(text);
        // The changes accepted so far: the pipeline makes them one `Splices` of the text.
        let mut ranges: Vec<Splice> = Vec::new();
        // Where the last accepted (or edited) change ends: a later match inside it is moot.
        let mut covered = 0;
        // Every match as found, with the file's line breaks (no bound on the length: the
        // pipeline refuses a result too large to write).
        let found = substitution
            .replacements_within(text, u64::MAX, Some(eol))
            .unwrap_or_default();
        for Splice {
            start,
            end,
            text: new,
        } in found
        {
            if start < covered {
                continue;
            }
            offered += 1;
            let (line_start, line_end) = line_span(text, start, end);
            let before = &text[line_start..line_end];
            let after = format!("{}{new}{}", &text[line_start..start], &text[end..line_end]);
            let answer = if accept_all {
                Answer::All
            } else {
                let line = 1 + text[..start].matches('\n').count();
                eprintln!("{}", style.bold(&format!("{}:{line}", f.path)));
                eprint!("{}", style.diff(&hunk(before, &after)));
                ask(&mut input)
            };
            match answer {
                Answer::Yes | Answer::All => {
                    ranges.push(Splice::new(start, end, new));
                    covered = end;
                    accepted += 1;
                    accept_all |= matches!(answer, Answer::All);
                }
                Answer::No => {}
                Answer::Edit => match edit_in_editor(&after, ws.roots()) {
                    Ok(edited) => {
                        // The editor was shown these lines with only this change; its text
                        // replaces the whole lines, so changes accepted earlier on them give
                        // way to it.
                        ranges.retain(|r| r.end <= line_start);
                        ranges.push(Splice::new(line_start, line_end, edited));
                        covered = line_end;
                        accepted += 1;
                    }
                    Err(msg) => {
                        eprintln!("filekit: {msg}; the change is left out");
                    }
                },
                Answer::Quit | Answer::End => {
                    quit = true;
                    ended = matches!(answer, Answer::End);
                    // The change on screen got no answer.
                    offered -= 1;
                    break;
                }
            }
        }
        if !ranges.is_empty() {
            files.push(FileEdits {
                base_hash: None,
                path: f.path.clone(),
                edits: vec![Edit::Ranges {
                    ranges,
                    content_hash: hash.clone(),
                }],
            });
        }
    }
    let stopped = if ended {
        format!(" (standard input ended after {offered} answer(s): the rest were not reviewed)")
    } else if quit {
        format!(" (review stopped after {offered} answer(s))")
    } else {
        String::new()
    };
    if files.is_empty() {
        println!("{accepted} of {total} change(s) accepted; nothing written{stopped}");
        return EXIT_OK;
    }
    let report = pipeline::apply(
        ws,
        &EditRequest {
            files,
            options: EditOptions::builder()
                .atomic(atomic)
                .tool(Some("filekit replace -i".into()))
                .build(),
        },
    );
    crate::history_warning(ws);
    for f in &report.files {
        match f.error().or_else(|| f.edits[0].error.as_ref()) {
            Some(err) => println!("{} {}: {err}", style.red("FAIL"), f.path),
            None => println!("{}: written", f.path),
        }
    }
    println!(
        "{accepted} of {total} change(s) accepted in {} file(s){stopped}",
        report.files.len(),
    );
    if report.success() {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}

/// The whole lines `start..end` touches: from the start of its first line to the end of its
/// last (line break excluded).
fn line_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..]
        .find('\n')
        .map_or(text.len(), |i| end + i)
        .max(end);
    // Keep a CRLF line's \r out of what is shown and edited.
    let line_end = if line_end > line_start && text[..line_end].ends_with('\r') {
        line_end - 1
    } else {
        line_end
    };
    (line_start, line_end.max(end))
}

fn hunk(before: &str, after: &str) -> String {
    let mut out = String::new();
    for l in before.split('\n') {
        out.push_str(&format!("-{l}\n"));
    }
    for l in after.split('\n') {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

fn ask(input: &mut impl BufRead) -> Answer {
    loop {
        eprint!("Accept change? [y]es (default), [n]o, [e]dit, yes to [A]ll, [q]uit: ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            // End of input: nobody is there to answer.
            Ok(0) | Err(_) => return Answer::End,
            Ok(_) => {}
        }
        match line.trim() {
            "" | "y" | "Y" | "yes" => return Answer::Yes,
            "n" | "N" | "no" => return Answer::No,
            "e" | "E" | "edit" => return Answer::Edit,
            "A" | "a" | "all" => return Answer::All,
            "q" | "Q" | "quit" => return Answer::Quit,
            other => eprintln!("filekit: {other:?} is not an answer: type y, n, e, A or q"),
        }
    }
}

/// Opens `text` in the user's editor and returns what they saved. The editor is the person's
/// choice (`VISUAL`, `EDITOR`), but not a program of the workspace: `/bin/sh` by its absolute
/// name looks it up on a PATH without empty or relative entries or directories inside the
/// roots (`SearchPath`, as language servers are found), so a `vi` planted in the workspace is not it.
fn edit_in_editor(text: &str, roots: &[std::path::PathBuf]) -> Result<String, String> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_string());
    let file = tempfile::Builder::new()
        .prefix("filekit-review-")
        .suffix(".txt")
        .tempfile()
        .map_err(|e| format!("cannot make a file to edit: {e}"))?;
    std::fs::write(file.path(), text).map_err(|e| format!("cannot write {e}"))?;
    // Through the shell, so that EDITOR may carry arguments (`code --wait`).
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = filekit_dialects::verbs::SearchPath::new(&path, roots).value();
    let status = std::process::Command::new("/bin/sh")
        .env("PATH", path)
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("filekit-editor")
        .arg(file.path())
        .status()
        .map_err(|e| format!("cannot start the editor {editor:?}: {e}"))?;
    if !status.success() {
        return Err(format!("the editor {editor:?} failed ({status})"));
    }
    let edited =
        std::fs::read_to_string(file.path()).map_err(|e| format!("cannot read it back: {e}"))?;
    // Editors add a final line break; the edited lines are placed without one.
    Ok(edited.strip_suffix('\n').unwrap_or(&edited).to_string())
}
