//! The edit planner against the reference model of DESIGN.md section 3 (the model is the one
//! of the property test, crates/core/tests/model/mod.rs): random files (CRLF, BOM, no final
//! newline) and random line edits, text edits and appends, applied through the pipeline to a
//! real file, must give the model's bytes and the model's successes.
#![no_main]

#[path = "../../crates/core/tests/model/mod.rs"]
mod model;

use libfuzzer_sys::fuzz_target;
use model::*;

/// Bytes to strings over a small alphabet (so that matches happen), and to numbers.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn string(&mut self, alphabet: &[char], max: usize) -> String {
        let len = self.byte() as usize % (max + 1);
        (0..len)
            .map(|_| alphabet[self.byte() as usize % alphabet.len()])
            .collect()
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let flags = input.byte();
    let n_lines = 1 + input.byte() as usize % 8;
    let lines = (0..n_lines)
        .map(|_| input.string(&['a', 'b', 'x', ' ', 'é'], 5))
        .collect();
    let file = normalize_file(lines, flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    let n = file.lines.len();
    let raw = (0..input.byte() % 5)
        .map(|_| {
            (
                input.byte() as usize % (n + 1),
                input.byte() as usize % 3,
                input.byte() & 1 == 1,
                input.string(&['a', 'y', '\n', 'é'], 6),
            )
        })
        .collect();
    let line_edits = sanitize_line_edits(n, raw);
    let text_edits: Vec<TextEdit> = (0..input.byte() % 5)
        .map(|_| TextEdit {
            old: {
                let s = input.string(&['a', 'b', 'x', 'y', ' ', 'é'], 3);
                if s.is_empty() { "a".into() } else { s }
            },
            new: input.string(&['a', 'c', 'z', '\n'], 4),
            all: input.byte() & 1 == 1,
        })
        .collect();
    let appends: Vec<String> = (0..1 + input.byte() % 3)
        .map(|_| input.string(&['c', 'z', '\n'], 4))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (want, want_ok) = model(&file, &line_edits, &text_edits, &appends);
    let (got, got_ok) = run(dir.path(), &file, &line_edits, &text_edits, &appends);
    assert_eq!(got_ok, want_ok, "successes; file {file:?}");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "file {file:?}, line edits {line_edits:?}, text edits {text_edits:?}, appends {appends:?}"
    );
});
