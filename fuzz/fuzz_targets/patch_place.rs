//! Patch placement (crates/patch), a longer randomized run of its property test. Half the
//! inputs are changes: a file of lines from a small vocabulary (so that repeated and blank
//! lines happen) and edits of it, rendered as a unified diff, Codex's envelope or
//! SEARCH/REPLACE blocks with the drift models write (trailing white space, indentation, a
//! dropped blank line); placed, the result is the new text or the patch is refused
//! (`filekit_patch::testing::check_change`). The other half are any bytes, as a patch and a
//! file: parsing and placing never panic, and placed splices apply to the file.
#![no_main]

use filekit_patch::{FileOp, parse, place, testing::check_change};
use libfuzzer_sys::fuzz_target;

/// Bytes to choices.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> usize {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b as usize
            }
            None => 0,
        }
    }
}

const VOCABULARY: &[&str] = &[
    "", "", "}", "}", "a", "b", "ab", "    a = 1", "    b = 1", "\tc = 2", "x y", "  z",
];

fn change(mut input: Input) {
    let n = 1 + input.byte() % 30;
    let old: Vec<String> = (0..n)
        .map(|_| VOCABULARY[input.byte() % VOCABULARY.len()].to_string())
        .collect();
    let mut new = old.clone();
    for _ in 0..1 + input.byte() % 4 {
        let at = (input.byte() % (n + 1)).min(new.len());
        let text = ["f", "g", "h", "fg"][input.byte() % 4];
        match input.byte() % 3 {
            0 if at < new.len() => {
                new.remove(at);
            }
            1 if at < new.len() => new[at] = format!("{text} changed"),
            _ => new.insert(at, format!("    {text} added")),
        }
    }
    let (format, drift_kind, context) = (input.byte() % 3, input.byte() % 4, 1 + input.byte() % 3);
    let join = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (old, new) = (join(&old), join(&new));
    if old == new {
        return;
    }
    if let Err(e) = check_change(&old, &new, format, drift_kind, context) {
        panic!("format {format}, drift {drift_kind}, context {context}: {e}");
    }
}

fn raw(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (patch, file) = text.split_once('\0').unwrap_or((&text, "a\nb\n\nc\n"));
    let Ok(parsed) = parse(patch, None) else {
        return;
    };
    for fp in &parsed.files {
        if let FileOp::Update { hunks, .. } = &fp.op {
            let placed = place(file, hunks, parsed.format);
            assert_eq!(placed.hunks.len(), hunks.len());
            if let Some(s) = placed.splices {
                s.apply(file).expect("placed splices apply to their file");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 0 => change(Input(rest)),
        Some((_, rest)) => raw(rest),
        None => {}
    }
});
