use crate::testing::*;
use crate::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Parses `patch`, places its one update on `text`, and returns the new text or the reports.
fn apply_one(text: &str, patch: &str) -> Result<(String, Vec<HunkReport>), Vec<HunkReport>> {
    let p = parse(patch, None).expect("parses");
    let FileOp::Update { hunks, .. } = &p.files[0].op else {
        panic!("not an update: {:?}", p.files[0].op)
    };
    let placed = place(text, hunks, p.format);
    match placed.splices {
        Some(s) => Ok((s.apply(text).unwrap(), placed.hunks)),
        None => Err(placed.hunks),
    }
}

const FILE: &str = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    y = 2\n    return y\n";

#[test]
fn detects_each_format() {
    assert_eq!(
        parse("*** Begin Patch\n*** Delete File: a\n*** End Patch", None)
            .unwrap()
            .format,
        Format::V4a
    );
    assert_eq!(
        parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", None)
            .unwrap()
            .format,
        Format::Unified
    );
    for sr in [
        "x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
        "x.py\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n",
        "x.py\n<<<<<<< SEARCH\n:start_line:3\n-------\na\n=======\nb\n>>>>>>> REPLACE\n",
        "x.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
    ] {
        let p = parse(sr, None).unwrap();
        assert_eq!(p.format, Format::SearchReplace, "{sr}");
        assert_eq!(p.files[0].path, "x.py");
    }
    let e = parse("just some words", None).unwrap_err();
    assert!(e.expected.contains("*** Begin Patch"), "{e}");
}

#[test]
fn v4a_parses_add_delete_update_move() {
    let p = parse(
        "*** Begin Patch\n*** Add File: n.txt\n+hello\n+world\n*** Delete File: old.txt\n\
         *** Update File: a.py\n*** Move to: b.py\n@@ def a():\n-    x = 1\n+    x = 2\n\
         *** End of File\n*** End Patch\n",
        None,
    )
    .unwrap();
    assert_eq!(p.files.len(), 3);
    assert_eq!(
        p.files[0].op,
        FileOp::Add {
            content: "hello\nworld\n".into()
        }
    );
    assert_eq!(p.files[1].op, FileOp::Delete);
    let FileOp::Update { move_to, hunks, .. } = &p.files[2].op else {
        panic!()
    };
    assert_eq!(move_to.as_deref(), Some("b.py"));
    assert_eq!(hunks[0].header.as_deref(), Some("def a():"));
    assert!(hunks[0].end_of_file);
}

#[test]
fn malformed_input_names_the_line_and_what_was_expected() {
    let e = parse("*** Begin Patch\n*** Frob File: a\n*** End Patch", None).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.expected.contains("*** Update File:"), "{e}");
    let e = parse(
        "*** Begin Patch\n*** Update File: a\n@@\n x\n?y\n*** End Patch",
        None,
    )
    .unwrap_err();
    assert_eq!(e.line, 5);
    let e = parse("*** Begin Patch\n*** Update File: a\n@@\n-x\n", None).unwrap_err();
    assert!(e.expected.contains("*** End Patch"), "{e}");
    let e = parse("--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n", None).unwrap_err();
    assert_eq!(e.line, 3);
    let e = parse("x.py\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", None).unwrap_err();
    assert_eq!(e.line, 4);
    let e = parse("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", None).unwrap_err();
    assert!(e.expected.contains("path"), "{e}");
}

#[test]
fn unified_git_diff_with_renames_creates_deletes_and_no_newline() {
    let d = "diff --git a/src/x.rs b/src/y.rs\nsimilarity index 90%\nrename from src/x.rs\n\
             rename to src/y.rs\n--- a/src/x.rs\n+++ b/src/y.rs\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n\
             diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n\
             diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n";
    let p = parse(d, None).unwrap();
    assert_eq!(p.files.len(), 3);
    assert_eq!(p.files[0].path, "src/x.rs");
    let FileOp::Update { move_to, hunks, .. } = &p.files[0].op else {
        panic!()
    };
    assert_eq!(move_to.as_deref(), Some("src/y.rs"));
    assert!(hunks[0].old_no_newline && hunks[0].new_no_newline);
    assert_eq!(
        p.files[1],
        FilePatch {
            path: "new.txt".into(),
            op: FileOp::Add {
                content: "n\n".into()
            },
            patch_line: 13
        }
    );
    assert_eq!(p.files[2].op, FileOp::Delete);
    assert_eq!(p.files[2].path, "gone.txt");
    // A file without a final newline, changed, stays without one.
    let (out, _) = apply_one("a\nb", d).unwrap();
    assert_eq!(out, "a\nc");
}

#[test]
fn diff_u_paths_without_prefixes_and_timestamps() {
    let d = "--- lib/x.txt\t2024-01-01 10:00:00.000000000 +0000\n+++ lib/x.txt\t2024-01-02 10:00:00.000000000 +0000\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let p = parse(d, None).unwrap();
    assert_eq!(p.files[0].path, "lib/x.txt");
    assert_eq!(
        apply_one("one\ntwo\nthree\n", d).unwrap().0,
        "one\nTWO\nthree\n"
    );
}

#[test]
fn exact_placement_keeps_everything_else() {
    let (out, r) = apply_one(
        FILE,
        "*** Begin Patch\n*** Update File: f.py\n@@ def b():\n-    y = 2\n+    y = 3\n*** End Patch",
    )
    .unwrap();
    assert_eq!(out, FILE.replace("y = 2", "y = 3"));
    assert_eq!(r[0].outcome, HunkOutcome::Exact);
    assert_eq!(r[0].line, Some(7));
}

#[test]
fn context_with_drift_never_overwrites_the_files_lines() {
    // Context written with trailing spaces and a tab: the file keeps its own.
    let file = "a = 1   \nb = 2\nc = 3\n";
    let (out, r) = apply_one(
        file,
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n",
    )
    .unwrap();
    assert_eq!(out, "a = 1   \nb = 20\nc = 3\n");
    assert_eq!(r[0].tolerances, vec![Tolerance::TrailingWhitespace]);
}

#[test]
fn indentation_drift_reindents_added_lines() {
    let patch = "*** Begin Patch\n*** Update File: f.py\n@@ def b():\n-  y = 2\n+  y = 3\n+  if y:\n+    y += 1\n   return y\n*** End Patch";
    let (out, r) = apply_one(FILE, patch).unwrap();
    assert_eq!(
        out,
        FILE.replace("    y = 2\n", "    y = 3\n    if y:\n      y += 1\n")
    );
    assert_eq!(r[0].tolerances, vec![Tolerance::Indentation]);
}

#[test]
fn tabs_against_spaces() {
    let file = "fn f() {\n\tlet a = 1;\n\tlet b = 2;\n}\n";
    let patch = "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n fn f() {\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n }\n";
    let (out, r) = apply_one(file, patch).unwrap();
    assert_eq!(out, "fn f() {\n\tlet a = 1;\n\tlet b = 3;\n}\n");
    assert!(
        r[0].tolerances.contains(&Tolerance::Indentation)
            || r[0].tolerances.contains(&Tolerance::TabsSpaces)
    );
}

#[test]
fn typographic_punctuation() {
    let file = "say(\"hello\")\nsay('bye')\nend\n";
    let patch = "x\n<<<<<<< SEARCH\nsay(\u{201C}hello\u{201D})\nsay(\u{2018}bye\u{2019})\n=======\nsay(\u{201C}hello\u{201D})\nsay('ciao')\n>>>>>>> REPLACE\n";
    let (out, r) = apply_one(file, patch).unwrap();
    assert_eq!(out, "say(\"hello\")\nsay('ciao')\nend\n");
    assert_eq!(r[0].tolerances, vec![Tolerance::Punctuation]);
}

#[test]
fn a_blank_context_line_dropped_or_added() {
    // The patch leaves out the two blank lines between the functions.
    let patch = "--- a/f\n+++ b/f\n@@ -2,5 +2,5 @@\n     return x\n def b():\n-    y = 2\n+    y = 5\n     return y\n";
    let (out, r) = apply_one(FILE, patch).unwrap();
    assert_eq!(out, FILE.replace("y = 2", "y = 5"));
    assert!(r[0].tolerances.contains(&Tolerance::BlankLines));
    // And one that adds a blank line the file does not have.
    let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n def a():\n \n-    x = 1\n+    x = 9\n";
    let (out, _) = apply_one(FILE, patch).unwrap();
    assert_eq!(out, FILE.replace("x = 1", "x = 9"));
}

#[test]
fn a_change_next_to_blank_lines_the_patch_miscounts_is_refused() {
    // The file has a blank line between the two context lines; the patch has none, and adds
    // a block there: whether the block goes before or after the file's blank line, the patch
    // does not say.
    let file = "import a\n\nrun()\n";
    let e = apply_one(
        file,
        "--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n import a\n+import b\n+\n run()\n",
    )
    .unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Refused);
    // The same with the blank line in the patch applies exactly.
    let (out, _) = apply_one(
        file,
        "--- a/f\n+++ b/f\n@@ -1,3 +1,5 @@\n import a\n \n+import b\n+\n run()\n",
    )
    .unwrap();
    assert_eq!(out, "import a\n\nimport b\n\nrun()\n");
}

#[test]
fn added_lines_take_the_files_indentation_style() {
    // A file indented with spaces only; the patch adds lines indented with tabs.
    let (out, r) = apply_one(
        "if x:\n    a = 1\n",
        "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n if x:\n     a = 1\n+\tb = 2\n",
    )
    .unwrap();
    assert_eq!(out, "if x:\n    a = 1\n    b = 2\n");
    assert!(r[0].tolerances.contains(&Tolerance::TabsSpaces));
}

#[test]
fn a_line_removed_and_added_again_keeps_the_files_version() {
    // The model's copy of `)` has trailing spaces; it removes and re-adds it around a change.
    let file = "call(\n    a,\n)\nend\n";
    let (out, _) = apply_one(
        file,
        "f\n<<<<<<< SEARCH\n    a,\n)  \n=======\n    a,\n    b,\n)  \n>>>>>>> REPLACE\n",
    )
    .unwrap();
    assert_eq!(out, "call(\n    a,\n    b,\n)\nend\n");
}

#[test]
fn ambiguous_hunks_go_first_in_order_or_where_the_line_number_says_else_are_refused() {
    let file = "x\nret\ny\nx\nret\ny\n";
    // SEARCH blocks (and Codex's hunks) go in file order: the first place after the block
    // before, the other places reported.
    let (out, r) = apply_one(
        file,
        "f\n<<<<<<< SEARCH\nx\nret\n=======\nx\nRET\n>>>>>>> REPLACE\n",
    )
    .unwrap();
    assert_eq!(out, "x\nRET\ny\nx\nret\ny\n");
    assert_eq!(r[0].tolerances, vec![Tolerance::FirstInOrder]);
    assert_eq!(r[0].candidates, vec![1, 4]);
    // After a block placed further down, the first place is the one after it.
    let (out, r) = apply_one(
        "a\nx\nret\nb\nx\nret\nc\n",
        "f\n<<<<<<< SEARCH\nret\nb\n=======\nret\nB\n>>>>>>> REPLACE\n\
         f\n<<<<<<< SEARCH\nx\nret\n=======\nx\nRET\n>>>>>>> REPLACE\n",
    )
    .unwrap();
    assert_eq!(out, "a\nx\nret\nB\nx\nRET\nc\n");
    assert_eq!(r[1].line, Some(5));
    // A diff's hunk goes where its line number says, and is refused when it names none.
    let (out, _) = apply_one(file, "--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n x\n-ret\n+RET\n").unwrap();
    assert_eq!(out, "x\nret\ny\nx\nRET\ny\n");
    let e = apply_one(file, "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n x\n-ret\n+RET\n").unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Refused);
    assert_eq!(e[0].candidates, vec![1, 4]);
    // So is a Roo Code block whose start line names neither place.
    let e = apply_one(
        file,
        "f\n<<<<<<< SEARCH\n:start_line:3\n-------\nx\nret\n=======\nx\nRET\n>>>>>>> REPLACE\n",
    )
    .unwrap_err();
    assert_eq!(e[0].candidates, vec![1, 4]);
}

#[test]
fn an_ambiguous_hunk_follows_the_shift_of_the_hunk_before_it() {
    // Every line number is 7 too high (a file edited above them since the diff was made):
    // the first hunk is unique and shows the shift, which names the second's place among two.
    let mut file = String::from("head\nunique\nend\n");
    for _ in 0..3 {
        file.push_str("a\nb\nc\nd\ne\nf\ng\nh\n");
    }
    file.push_str("x\nret\ny\n");
    file.push_str("a\nb\nc\nd\ne\nf\ng\nh\n");
    file.push_str("x\nret\ny\n");
    // `x ret y` is at lines 28 and 39.
    let patch = "--- a/f\n+++ b/f\n@@ -9,2 +9,2 @@\n-unique\n+UNIQUE\n end\n\
                 @@ -35,3 +35,3 @@\n x\n-ret\n+RET\n y\n";
    let (out, r) = apply_one(&file, patch).unwrap();
    assert_eq!(
        out,
        file.replace("unique", "UNIQUE").replacen("ret", "RET", 1)
    );
    assert_eq!(r[1].line, Some(28));
    assert!(r[1].tolerances.contains(&Tolerance::LineHint));
    // Without the shift of a hunk before it, an off line number names neither.
    let e = apply_one(
        &file,
        "--- a/f\n+++ b/f\n@@ -35,3 +35,3 @@\n x\n-ret\n+RET\n y\n",
    )
    .unwrap_err();
    assert_eq!(e[0].candidates, vec![28, 39]);
}

#[test]
fn trailing_white_space_a_tolerated_hunk_adds_is_dropped_in_a_file_without_any() {
    // The model wrote every line with two trailing spaces, its added lines too.
    let file = "def f():\n    a = 1\n    b = 2\n    return a\n";
    let patch = "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n def f():  \n     a = 1  \n-    b = 2\n+    b = 3  \n+    c = 4  \n     return a  \n";
    let (out, r) = apply_one(file, patch).unwrap();
    assert_eq!(
        out,
        "def f():\n    a = 1\n    b = 3\n    c = 4\n    return a\n"
    );
    assert_eq!(r[0].tolerances, vec![Tolerance::TrailingWhitespace]);
    // A file that has trailing white space of its own keeps what the patch adds.
    let spaced = file.replace("return a", "return a ");
    let patch = patch.replace("return a  ", "return a ");
    let exact = "--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-    b = 2\n+    b = 3  \n";
    let (out, _) = apply_one(&spaced, exact).unwrap();
    assert!(out.contains("    b = 3  \n"), "{out}");
    let (out, _) = apply_one(&spaced, &patch).unwrap();
    assert!(out.contains("    b = 3  \n"), "{out}");
}

#[test]
fn tabs_in_a_python_file_without_indented_lines_become_pep8_spaces() {
    let file = "import os\n\nX = 1\n";
    let patch = "--- a/m.py\n+++ b/m.py\n@@ -3,1 +3,3 @@\n-X = 1\n+if os:\n+\tX = 1\n";
    let p = parse(patch, None).unwrap();
    let FileOp::Update { hunks, .. } = &p.files[0].op else {
        panic!()
    };
    let placed = place_with(file, hunks, p.format, Some(IndentConvention::Spaces(4)));
    let out = placed.splices.unwrap().apply(file).unwrap();
    assert_eq!(out, "import os\n\nif os:\n    X = 1\n");
    assert!(placed.hunks[0].tolerances.contains(&Tolerance::TabsSpaces));
    // Without a convention (a Makefile, Go) the tabs are what the patch says.
    let (out, _) = apply_one(file, patch).unwrap();
    assert_eq!(out, "import os\n\nif os:\n\tX = 1\n");
}

#[test]
fn a_hunk_found_nowhere_is_refused_with_the_near_miss() {
    let e = apply_one(
        FILE,
        "*** Begin Patch\n*** Update File: f\n@@\n def b():\n-    y = 22\n+    y = 3\n*** End Patch",
    )
    .unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Refused);
    let nm = e[0].near_miss.as_ref().expect("a near miss");
    assert_eq!(nm.line, 6);
}

#[test]
fn line_hints_that_are_off_still_place_a_unique_hunk() {
    let (out, r) = apply_one(
        FILE,
        "--- a/f\n+++ b/f\n@@ -40,3 +40,3 @@\n def b():\n-    y = 2\n+    y = 4\n     return y\n",
    )
    .unwrap();
    assert_eq!(out, FILE.replace("y = 2", "y = 4"));
    assert_eq!(r[0].tolerances, vec![Tolerance::LineHint]);
}

#[test]
fn short_hunks_get_no_tolerance() {
    // `}` with different indentation must not be matched loosely.
    let e = apply_one(
        "  }\n",
        "f\n<<<<<<< SEARCH\n}\n=======\n};\n>>>>>>> REPLACE\n",
    )
    .unwrap_err();
    assert!(e[0].reason.as_ref().unwrap().contains("too short"));
}

#[test]
fn pure_additions_and_end_of_file() {
    let (out, _) = apply_one(
        "a\nb",
        "*** Begin Patch\n*** Update File: f\n@@\n+c\n*** End Patch",
    )
    .unwrap();
    assert_eq!(out, "a\nb\nc\n");
    let (out, _) = apply_one("a\nb\n", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+x\n").unwrap();
    assert_eq!(out, "a\nx\nb\n");
}

#[test]
fn crlf_files_stay_crlf() {
    let (out, _) = apply_one(
        "a\r\nb\r\nc\r\n",
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    )
    .unwrap();
    assert_eq!(out, "a\r\nB\r\nc\r\n");
}

#[test]
fn several_blocks_for_one_file_apply_in_order() {
    let patch = "f.py\n<<<<<<< SEARCH\n    x = 1\n=======\n    x = 10\n>>>>>>> REPLACE\n\nf.py\n<<<<<<< SEARCH\n    y = 2\n=======\n    y = 20\n>>>>>>> REPLACE\n";
    let p = parse(patch, None).unwrap();
    assert_eq!(p.files.len(), 1);
    let (out, _) = apply_one(FILE, patch).unwrap();
    assert_eq!(
        out,
        FILE.replace("x = 1", "x = 10").replace("y = 2", "y = 20")
    );
}

#[test]
fn a_hunk_exact_away_from_its_line_number_and_tolerated_at_it_is_ambiguous() {
    // The property test's case: with a blank context line dropped, the hunk fits exactly one
    // line above its line number, and at it only allowing for blank lines. Either could be
    // meant: refused with both, never placed at the offset.
    let file = "}\n}\n\n}\n\n";
    let e = apply_one(file, "--- a/f\n+++ b/f\n@@ -2,4 +2,3 @@\n }\n }\n-\n").unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Refused);
    assert_eq!(e[0].candidates, vec![1, 2]);
    let reason = e[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("at line 1") && reason.contains("at line 2 allowing for blank lines"),
        "{reason}"
    );
    // Codex's envelope has no line number: as ambiguous.
    let e = apply_one(
        file,
        "*** Begin Patch\n*** Update File: f\n@@\n }\n }\n-\n*** End Patch",
    )
    .unwrap_err();
    assert_eq!(e[0].candidates, vec![1, 2]);
    // A line number that names the exact place settles it.
    let (out, r) = apply_one(file, "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n }\n }\n-\n").unwrap();
    assert_eq!(out, "}\n}\n}\n\n");
    assert_eq!(r[0].outcome, HunkOutcome::Exact);
    // The same with another tolerance: exact at line 1, at its line number (5) only allowing
    // for trailing white space.
    let file = "a = 1\nb = 2\nc = 3\nx\na = 1 \nb = 2\nc = 3\n";
    let e = apply_one(
        file,
        "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n",
    )
    .unwrap_err();
    assert_eq!(e[0].candidates, vec![1, 5]);
    assert!(
        e[0].reason
            .as_deref()
            .unwrap()
            .contains("trailing white space")
    );
}

#[test]
fn search_replace_blocks_apply_one_after_another() {
    let file = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    // The second block's SEARCH holds what the first one wrote (aider, Cline and Roo Code
    // apply blocks in sequence, each on the text the ones before it left).
    let patch = "f.py\n<<<<<<< SEARCH\n    return 1\n=======\n    x = 1\n    return x\n>>>>>>> REPLACE\n\
                 f.py\n<<<<<<< SEARCH\n    x = 1\n    return x\n\n\ndef g():\n=======\n    x = 10\n    return x\n\n\ndef g():\n>>>>>>> REPLACE\n";
    let (out, r) = apply_one(file, patch).unwrap();
    assert_eq!(
        out,
        "def f():\n    x = 10\n    return x\n\n\ndef g():\n    return 2\n"
    );
    assert_eq!(r[1].outcome, HunkOutcome::Exact);
    assert_eq!(r[1].line, Some(2));
    // A block whose SEARCH is what an earlier block replaced is no longer there.
    let patch = "f.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 10\n>>>>>>> REPLACE\n\
                 f.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 100\n>>>>>>> REPLACE\n";
    let e = apply_one(file, patch).unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Exact);
    assert_eq!(e[1].outcome, HunkOutcome::Refused);
    // Roo Code's start line is of the file before the blocks: a block that grew the text above
    // moves it.
    let file = "a\nx\nret\nb\nx\nret\n";
    let (out, r) = apply_one(
        file,
        "f\n<<<<<<< SEARCH\n:start_line:1\n-------\na\n=======\na\nnew 1\nnew 2\n>>>>>>> REPLACE\n\
         f\n<<<<<<< SEARCH\n:start_line:5\n-------\nx\nret\n=======\nx\nRET\n>>>>>>> REPLACE\n",
    )
    .unwrap();
    assert_eq!(out, "a\nnew 1\nnew 2\nx\nret\nb\nx\nRET\n");
    assert_eq!(r[1].line, Some(7));
}

#[test]
fn codex_hunks_with_short_context_go_in_order_as_codex_places_them() {
    let file = "def a():\n    pass\n\ndef b():\n    pass\n\ndef c():\n    pass\n";
    // One line of context that every function has: each hunk goes to the first place after
    // the hunk before it (Codex's applier searches from where the last hunk ended).
    let (out, r) = apply_one(
        file,
        "*** Begin Patch\n*** Update File: f.py\n@@\n     pass\n+    x = 1\n@@\n     pass\n-\n+\n+# b ends\n*** End Patch",
    )
    .unwrap();
    assert_eq!(
        out,
        "def a():\n    pass\n    x = 1\n\ndef b():\n    pass\n\n# b ends\ndef c():\n    pass\n"
    );
    assert_eq!(r[0].line, Some(2));
    assert_eq!(r[0].candidates, vec![2, 5, 8]);
    assert_eq!(r[1].line, Some(5));
    // A blank line alone as context: the first blank line after the hunk before it.
    let file = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n";
    let (out, r) = apply_one(
        file,
        "*** Begin Patch\n*** Update File: f.py\n@@ def b():\n-    pass\n+    return\n@@\n \n+# before c\n*** End Patch",
    )
    .unwrap();
    assert_eq!(r[1].candidates, vec![7, 8]);
    assert_eq!(r[1].line, Some(7));
    assert_eq!(
        out,
        "def a():\n    pass\n\n\ndef b():\n    return\n\n# before c\n\ndef c():\n    pass\n"
    );
}

#[test]
fn in_order_is_refused_where_the_places_overlap() {
    // A run of repeated lines: the hunk's own lines do not say where in it it starts.
    let e = apply_one(
        "}\n\n}\n\n}\n\n",
        "*** Begin Patch\n*** Update File: f\n@@\n }\n \n }\n-\n*** End Patch",
    )
    .unwrap_err();
    assert_eq!(e[0].outcome, HunkOutcome::Refused);
    assert_eq!(e[0].candidates, vec![1, 3]);
    // Blank lines alone, with no hunk before them and no `@@` line: their first place in the
    // file is a guess.
    let file = "a\n\n\nb\n\n\nc\n";
    let e = apply_one(
        file,
        "*** Begin Patch\n*** Update File: f\n@@\n \n+x\n \n*** End Patch",
    )
    .unwrap_err();
    assert_eq!(e[0].candidates, vec![2, 5]);
    // After a hunk, or a `@@` line, the first place after it is the one the format means.
    let (out, _) = apply_one(
        file,
        "*** Begin Patch\n*** Update File: f\n@@ b\n \n+x\n \n*** End Patch",
    )
    .unwrap();
    assert_eq!(out, "a\n\n\nb\n\nx\n\nc\n");
    // With Codex's end-of-file mark, the place at the end is the one meant.
    let (out, _) = apply_one(
        "a\nb\nc\nx\na\nb\nc\n",
        "*** Begin Patch\n*** Update File: f\n@@\n a\n b\n-c\n*** End of File\n*** End Patch",
    )
    .unwrap();
    assert_eq!(out, "a\nb\nc\nx\na\nb\n");
}

/// A unified diff that changes line `at` (1-based) of `n` lines `x` into `y`, with `context`
/// lines of context on each side.
fn diff_in_identical_lines(n: usize, at: usize, context: usize) -> (String, String) {
    let file = "x\n".repeat(n);
    let start = at - context;
    let mut patch = format!(
        "--- a/f\n+++ b/f\n@@ -{start},{} +{start},{} @@\n",
        2 * context + 1,
        2 * context + 1
    );
    patch.push_str(&" x\n".repeat(context));
    patch.push_str("-x\n+y\n");
    patch.push_str(&" x\n".repeat(context));
    (file, patch)
}

#[test]
fn a_long_hunk_of_identical_lines_costs_what_the_file_costs() {
    // 1,001 identical lines against 20,000: every one of 19,000 places fits. Comparing each
    // place line by line would take 19 million comparisons; the placement takes a pass.
    let (file, patch) = diff_in_identical_lines(20_000, 10_000, 500);
    let p = parse(&patch, None).unwrap();
    let FileOp::Update { hunks, .. } = &p.files[0].op else {
        panic!()
    };
    let placed = place::place_within(&file, hunks, p.format, None, 2_000_000);
    assert_eq!(
        placed.hunks[0].outcome,
        HunkOutcome::Exact,
        "{:?}",
        placed.hunks
    );
    let out = placed.splices.unwrap().apply(&file).unwrap();
    assert_eq!(out.lines().position(|l| l == "y"), Some(9_999));
    // Without a line number (Codex's envelope), its places overlap: refused, naming the first.
    let v4a = format!(
        "*** Begin Patch\n*** Update File: f\n@@\n{}-x\n+y\n*** End Patch",
        " x\n".repeat(500)
    );
    let p = parse(&v4a, None).unwrap();
    let FileOp::Update { hunks, .. } = &p.files[0].op else {
        panic!()
    };
    let placed = place::place_within(&file, hunks, p.format, None, 2_000_000);
    let r = &placed.hunks[0];
    assert_eq!(r.outcome, HunkOutcome::Refused);
    assert_eq!(r.candidates.len(), 10, "{r:?}");
    assert!(
        r.reason.as_deref().unwrap().contains("at least 10 places"),
        "{r:?}"
    );
    assert!(r.limit.is_none());
}

#[test]
fn a_hunk_whose_places_cost_more_than_the_budget_is_refused_saying_so() {
    // Lines `a`, every 200th indented: once indentation is allowed for, a hunk of 200 lines `a`
    // fits every place, and each place is refused only at its indented line, after comparing
    // 100 lines on average: 30,000 places cost 3 million comparisons.
    let file: String = (0..30_000)
        .map(|k| if k % 200 == 199 { " a\n" } else { "a\n" })
        .collect();
    let mut patch = String::from("--- a/f\n+++ b/f\n@@ -1,200 +1,200 @@\n");
    patch.push_str(&" a\n".repeat(100));
    patch.push_str("-a\n+b\n");
    patch.push_str(&" a\n".repeat(99));
    let p = parse(&patch, None).unwrap();
    let FileOp::Update { hunks, .. } = &p.files[0].op else {
        panic!()
    };
    let placed = place::place_within(&file, hunks, p.format, None, 1_000_000);
    let r = &placed.hunks[0];
    assert_eq!(r.outcome, HunkOutcome::Refused);
    let limit = r.limit.expect("the budget's facts");
    assert_eq!(limit.kind, filekit_errors::Limit::SearchWork);
    assert_eq!(limit.max, 1_000_000);
    assert!(
        r.reason.as_deref().unwrap().contains("1000000 comparisons"),
        "{r:?}"
    );
    assert!(placed.splices.is_none());
}

#[test]
fn git_quoted_paths_are_decoded() {
    let d = "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\n--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-a\n+b\n\
             diff --git a/x \"b/x\\ny\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/x\\ny\"\n@@ -0,0 +1 @@\n+n\n\
             diff --git \"a/q\\\"\\\\\\t.txt\" \"b/r.txt\"\nsimilarity index 100%\nrename from \"q\\\"\\\\\\t.txt\"\nrename to r.txt\n";
    let p = parse(d, None).unwrap();
    assert_eq!(p.files[0].path, "café.txt");
    assert_eq!(p.files[1].path, "x\ny");
    assert!(matches!(p.files[1].op, FileOp::Add { .. }));
    assert_eq!(p.files[2].path, "q\"\\\t.txt");
    let FileOp::Update { move_to, .. } = &p.files[2].op else {
        panic!("{:?}", p.files[2].op)
    };
    assert_eq!(move_to.as_deref(), Some("r.txt"));
    // Quoting that does not decode to a UTF-8 name is refused at its line, saying how it
    // should read.
    for (bad, line) in [
        (
            "--- \"a/\\377.txt\"\n+++ \"b/\\377.txt\"\n@@ -1 +1 @@\n-a\n+b\n",
            1,
        ),
        ("--- a/x\n+++ \"b/x\\000\"\n@@ -1 +1 @@\n-a\n+b\n", 2),
        ("--- a/x\n+++ \"b/x\\q\"\n@@ -1 +1 @@\n-a\n+b\n", 2),
        (
            "diff --git \"a/x \"b/x\"\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            1,
        ),
        ("--- a/x\n+++ \"b/unterminated\n@@ -1 +1 @@\n-a\n+b\n", 2),
    ] {
        let e = parse(bad, None).unwrap_err();
        assert_eq!(e.line, line, "{bad}: {e}");
        assert!(e.expected.contains("git's quoting"), "{e}");
    }
}

// ---------------------------------------------------------------- properties

fn file_strategy() -> impl Strategy<Value = Vec<String>> {
    // Lines from a small vocabulary, so that repeats (and ambiguity) happen.
    let line = prop_oneof![
        Just(String::new()),
        "[a-e]{1,3}".prop_map(|s| s),
        "[a-e]{1,2}".prop_map(|s| format!("    {s} = 1")),
        "[a-e]{1,2}".prop_map(|s| format!("\t{s} = 2")),
        Just("}".to_string()),
    ];
    prop::collection::vec(line, 1..30)
}

fn change_strategy() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    file_strategy().prop_flat_map(|old| {
        let n = old.len();
        let edits = prop::collection::vec((0..n, 0..3usize, "[f-h]{1,4}"), 1..4);
        (Just(old), edits).prop_map(|(old, edits)| {
            let mut new = old.clone();
            for (at, kind, text) in edits {
                let at = at.min(new.len());
                match kind {
                    0 if at < new.len() => {
                        new.remove(at);
                    }
                    1 if at < new.len() => new[at] = format!("{text} changed"),
                    _ => new.insert(at, format!("    {text} added")),
                }
            }
            (old, new)
        })
    })
}

fn join_lines(v: &[String]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

fn lines_of(v: &[&str]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn cases_the_property_test_found_stay_fixed() {
    // ((old, new), format, drift kind, context), as proptest shrank them.
    type Case = (
        &'static [&'static str],
        &'static [&'static str],
        usize,
        usize,
        usize,
    );
    let cases: &[Case] = &[
        (&[""], &["f changed"], 0, 2, 1),
        (&[""], &["    f added", ""], 1, 2, 1),
        (&["a", ""], &["", "    f added"], 1, 3, 3),
        (&["}", "}", "", "}", ""], &["}", "}", "", "}"], 0, 3, 3),
        (
            &["}", "", "}", "", "}", ""],
            &["}", "", "}", "", "}"],
            1,
            1,
            3,
        ),
    ];
    for &(old, new, format, drift_kind, context) in cases {
        for format in [format, 1 - format] {
            for drift_kind in [drift_kind, 0, 3] {
                check_change(&lines_of(old), &lines_of(new), format, drift_kind, context)
                    .unwrap_or_else(|e| panic!("{old:?} -> {new:?}: {e}"));
            }
        }
    }
}

/// Found by the `patch_place` fuzz target: SEARCH/REPLACE blocks (format 2) whose second
/// block adds a space-indented line to a file indented with tabs only. The line takes the
/// file's tabs and the hunk says so (`TabsSpaces`); the property now allows that.
#[test]
fn an_added_line_takes_the_files_tabs_and_says_so() {
    let old = [
        "\tc = 2", "\tc = 2", "", "}", "", "", "", "}", "}", "b", "", "}", "", "", "}", "}",
    ];
    let new = [
        "h changed",
        "\tc = 2",
        "",
        "}",
        "",
        "",
        "",
        "}",
        "}",
        "b",
        "",
        "}",
        "",
        "}",
        "    h added",
        "}",
    ];
    check_change(&lines_of(&old), &lines_of(&new), 2, 0, 3).unwrap_or_else(|e| panic!("{e}"));
}

/// Found by the `patch_place` fuzz target: Codex's envelope with every hunk line indented two
/// more spaces (drift 2) on a file indented with tabs and with spaces. The added line, four
/// spaces once the drift is taken off, keeps its four spaces: a file of both styles gives no
/// reason to turn them into a tab.
#[test]
fn an_added_line_under_drift_in_a_mixed_file_keeps_its_spaces() {
    let old = [
        "",
        "}",
        "}",
        "",
        "",
        "",
        "\tc = 2",
        "x y",
        "a",
        "}",
        "    a = 1",
        "",
        "",
    ];
    let new = [
        "",
        "}",
        "}",
        "",
        "    fg added",
        "",
        "",
        "\tc = 2",
        "x y",
        "a",
        "}",
        "    a = 1",
        "",
        "",
    ];
    check_change(&lines_of(&old), &lines_of(&new), 1, 2, 2).unwrap_or_else(|e| panic!("{e}"));
}

/// Each added line follows the old line nearest to it, in a file indented both ways: drifted
/// two spaces, a line of spaces next to a tab-indented line keeps its spaces, and one that
/// indents as its tab-indented neighbour does keeps the neighbour's tab.
#[test]
fn added_lines_in_a_file_of_tabs_and_spaces_follow_their_nearest_line() {
    let file = "if a:\n    b = 1\n\tc = 2\n\td = 3\n";
    let patch = "*** Begin Patch\n*** Update File: f\n@@\n   if a:\n       b = 1\n+      e = 4\n   \tc = 2\n+  \t\tf = 5\n   \td = 3\n*** End Patch";
    let (out, r) = apply_one(file, patch).unwrap();
    assert_eq!(
        out,
        "if a:\n    b = 1\n    e = 4\n\tc = 2\n\t\tf = 5\n\td = 3\n"
    );
    assert_eq!(r[0].tolerances, vec![Tolerance::Indentation]);
}

/// A model that writes a tab-indented file's lines with spaces: the added lines, deeper than
/// the context, take the file's tabs for all of their indentation.
#[test]
fn added_lines_deeper_than_spaced_context_take_the_files_tabs() {
    let file = "fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n";
    let patch = "--- a/f\n+++ b/f\n@@ -2,3 +2,5 @@\n     if x {\n         y();\n+        if z {\n+            w();\n+        }\n     }\n";
    let (out, _) = apply_one(file, patch).unwrap();
    assert_eq!(
        out,
        "fn f() {\n\tif x {\n\t\ty();\n\t\tif z {\n\t\t\tw();\n\t\t}\n\t}\n}\n"
    );
}

proptest! {
    // Fixed: the same cases on every run and machine; nothing is written into the checkout.
    // A longer, randomized run is the `patch_place` fuzz target.
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0x5eed_f11e),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn patches_apply_to_the_expected_text_or_are_refused((old, new) in change_strategy(),
                                                         format in 0..3usize,
                                                         drift_kind in 0..4usize,
                                                         context in 1..4usize) {
        let (old, new) = (join_lines(&old), join_lines(&new));
        prop_assume!(old != new);
        let checked = check_change(&old, &new, format, drift_kind, context);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}
