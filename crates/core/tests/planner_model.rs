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

use crate::model;

use model::*;
use proptest::prelude::*;

fn file_strategy() -> impl Strategy<Value = File> {
    (
        prop::collection::vec("[abxé ]{0,5}", 1..8),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, bom, final_newline)| {
            normalize_file(lines, crlf, bom, final_newline)
        })
}

fn line_edits_strategy(n: usize) -> impl Strategy<Value = Vec<LineEdit>> {
    prop::collection::vec((0..=n, 0usize..3, any::<bool>(), "[aby\n]{0,6}"), 0..4)
        .prop_map(move |raw| sanitize_line_edits(n, raw))
}

fn case_strategy() -> impl Strategy<Value = (File, Vec<LineEdit>, Vec<TextEdit>, Vec<String>)> {
    file_strategy().prop_flat_map(|file| {
        let n = file.lines.len();
        (
            Just(file),
            line_edits_strategy(n),
            prop::collection::vec(
                ("[abxyé]{1,3}", "[abcz\n]{0,4}", any::<bool>())
                    .prop_map(|(old, new, all)| TextEdit { old, new, all }),
                0..4,
            ),
            prop::collection::vec("[cz\n]{0,4}", 1..3),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
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
