//! The write pipeline driven the way a dialect drives it: requests in, files on disk out.

use filekit_core::edit::FileStatus;
use filekit_core::{
    Edit, EditOptions, EditRequest, ErrorCode, Expected, FileEdits, Workspace, hash, pipeline,
};
use serde_json::Value;
use std::fs;
use std::path::Path;

fn ws(dir: &Path) -> Workspace {
    Workspace::new(&[dir.to_path_buf()], false).unwrap()
}

fn replace(old: &str, new: &str) -> Edit {
    Edit::ReplaceText {
        old: old.into(),
        new: new.into(),
        expected: Expected::Exactly(1),
        label: None,
    }
}

fn lines(start: i64, end: i64, new: &str) -> Edit {
    Edit::ReplaceLines {
        start,
        end: Some(end),
        new: new.into(),
        content_hash: None,
    }
}

fn one(path: &str, edits: Vec<Edit>) -> EditRequest {
    EditRequest {
        files: vec![FileEdits {
            base_hash: None,
            path: path.into(),
            edits,
        }],
        options: EditOptions::default(),
    }
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn line_edits_refer_to_the_file_as_read_then_text_edits_apply_in_order() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "1\n2\n3\n4\n5\n").unwrap();
    let req = one(
        "f.txt",
        vec![
            replace("TWO", "two"), // applies after the line edits, to their result
            lines(4, 4, "FOUR"),
            Edit::Insert {
                after: 1,
                text: "1.5\n".into(),
                content_hash: None,
            },
            lines(2, 2, "TWO"),
            Edit::Append { text: "6".into() },
        ],
    );
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.success(), "{report:#?}");
    assert_eq!(read(dir.path(), "f.txt"), "1\n1.5\ntwo\n3\nFOUR\n5\n6\n");
    let f = &report.files[0];
    assert_eq!(f.status(), FileStatus::Modified);
    assert_eq!(f.edits_applied, 5);
    assert!(
        f.diff.contains("-2\n") && f.diff.contains("+two\n"),
        "{}",
        f.diff
    );
    assert_eq!(
        f.new_hash.as_deref(),
        Some(hash::content_hash(b"1\n1.5\ntwo\n3\nFOUR\n5\n6\n").as_str())
    );
}

#[test]
fn overlapping_line_edits_conflict_and_name_each_other() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\nb\nc\nd\n").unwrap();
    let req = one("f.txt", vec![lines(1, 2, "x"), lines(2, 3, "y")]);
    let report = pipeline::apply(&ws(dir.path()), &req);
    let err = report.files[0].edits[1].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Conflict);
    // Named by the facts (the engine numbers nothing in its words; dialects count from 1).
    assert!(
        err.message
            .contains("overlaps an earlier edit of the file (lines 1-2)"),
        "{}",
        err.message
    );
    assert_eq!(err.details["conflicts_with"], 0);
    // Partial success is the default: the first edit applied.
    assert_eq!(read(dir.path(), "f.txt"), "x\nc\nd\n");
}

#[test]
fn atomic_requests_write_nothing_when_anything_fails() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    let mut req = EditRequest {
        files: vec![
            FileEdits {
                base_hash: None,
                path: "a.txt".into(),
                edits: vec![replace("alpha", "ALPHA")],
            },
            FileEdits {
                base_hash: None,
                path: "b.txt".into(),
                edits: vec![replace("gamma", "GAMMA")],
            },
        ],
        options: EditOptions::builder().atomic(true).build(),
    };
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.rolled_back && !report.success());
    assert_eq!(read(dir.path(), "a.txt"), "alpha\n");
    req.options = req.options.to_builder().atomic(false).build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(!report.success());
    assert_eq!(read(dir.path(), "a.txt"), "ALPHA\n");
}

#[test]
fn not_found_reports_the_closest_near_miss() {
    let dir = tempfile::tempdir().unwrap();
    let original = "function f() {\n    return price * qty;\n}\n";
    fs::write(dir.path().join("f.js"), original).unwrap();
    let report = pipeline::apply(
        &ws(dir.path()),
        &one(
            "f.js",
            vec![replace("return price * quantity;", "return 0;")],
        ),
    );
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains("line 2"), "{}", err.message);
    assert_eq!(err.details["near_miss"]["line"], 2);
    assert!(err.details["near_miss"]["similarity"].as_f64().unwrap() > 0.7);
    assert_eq!(report.files[0].status(), FileStatus::Failed);

    // Whitespace-only differences are named as such.
    let report = pipeline::apply(
        &ws(dir.path()),
        &one("f.js", vec![replace("return price * qty;\n  }", "x")]),
    );
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert!(err.message.contains("white space"), "{}", err.message);
    assert_eq!(read(dir.path(), "f.js"), original);
}

#[test]
fn fuzzy_applies_only_when_asked_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "colour = red\nsize = 3\n").unwrap();
    let mut req = one("f.txt", vec![replace("color = red", "colour = blue")]);
    assert!(!pipeline::apply(&ws(dir.path()), &req).success());
    req.options = req.options.to_builder().fuzzy_threshold(Some(0.8)).build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.success(), "{report:#?}");
    assert!(report.files[0].edits[0].fuzzy_similarity.unwrap() >= 0.8);
    assert_eq!(read(dir.path(), "f.txt"), "colour = blue\nsize = 3\n");
}

#[test]
fn ambiguous_matches_list_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "x = 1\ny = 2\nx = 1\n").unwrap();
    let report = pipeline::apply(
        &ws(dir.path()),
        &one("f.txt", vec![replace("x = 1", "x = 9")]),
    );
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Ambiguous);
    assert_eq!(err.details["lines"], serde_json::json!([1, 3]));
    let req = one(
        "f.txt",
        vec![Edit::ReplaceText {
            old: "x = 1".into(),
            new: "x = 9".into(),
            expected: Expected::All,
            label: None,
        }],
    );
    assert!(pipeline::apply(&ws(dir.path()), &req).success());
    assert_eq!(read(dir.path(), "f.txt"), "x = 9\ny = 2\nx = 9\n");
}

#[test]
fn stale_hashes_write_nothing_and_show_the_lines_now() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
    let old_hash = hash::content_hash(b"a\nB\nc\n");
    let req = one(
        "f.txt",
        vec![Edit::ReplaceLines {
            start: 2,
            end: Some(2),
            new: "x".into(),
            content_hash: Some(old_hash),
        }],
    );
    let report = pipeline::apply(&ws(dir.path()), &req);
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Stale);
    assert!(err.details["current"].as_str().unwrap().contains('b'));
    assert_eq!(read(dir.path(), "f.txt"), "a\nb\nc\n");

    // The hash a write reports chains into the next line edit.
    let good = hash::content_hash(b"a\nb\nc\n");
    let req = one(
        "f.txt",
        vec![Edit::ReplaceLines {
            start: 2,
            end: Some(2),
            new: "x".into(),
            content_hash: Some(good[..8].into()),
        }],
    );
    let report = pipeline::apply(&ws(dir.path()), &req);
    let next = report.files[0].new_hash.clone().unwrap();
    let req = one(
        "f.txt",
        vec![Edit::ReplaceLines {
            start: 3,
            end: Some(3),
            new: "y".into(),
            content_hash: Some(next),
        }],
    );
    assert!(pipeline::apply(&ws(dir.path()), &req).success());
    assert_eq!(read(dir.path(), "f.txt"), "a\nx\ny\n");
}

#[test]
fn without_hashes_nothing_is_hashed_yet_named_versions_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
    let no_hashes = |mut req: EditRequest| {
        req.options = req.options.to_builder().no_hashes(true).build();
        req
    };
    let report = pipeline::apply(
        &ws(dir.path()),
        &no_hashes(one("f.txt", vec![replace("a", "A")])),
    );
    assert!(report.success());
    assert_eq!(read(dir.path(), "f.txt"), "A\nb\nc\n");
    assert_eq!(report.files[0].old_hash, None);
    assert_eq!(report.files[0].new_hash, None);

    // An edit made on a version it names is checked against the file all the same.
    let stale = hash::content_hash(b"a\nb\nc\n");
    let edit = |h: String| Edit::ReplaceLines {
        start: 2,
        end: Some(2),
        new: "x".into(),
        content_hash: Some(h),
    };
    let report = pipeline::apply(&ws(dir.path()), &no_hashes(one("f.txt", vec![edit(stale)])));
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Stale);
    assert_eq!(read(dir.path(), "f.txt"), "A\nb\nc\n");
    let current = hash::content_hash(b"A\nb\nc\n");
    let report = pipeline::apply(
        &ws(dir.path()),
        &no_hashes(one("f.txt", vec![edit(current.clone())])),
    );
    assert!(report.success());
    assert_eq!(report.files[0].old_hash, Some(current));
    assert_eq!(
        report.files[0].new_hash,
        Some(hash::content_hash(b"A\nx\nc\n"))
    );
}

#[test]
fn files_keep_line_endings_bom_final_newline_and_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.txt");
    fs::write(&p, b"\xEF\xBB\xBFone\r\ntwo\r\nthree").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    let req = one(
        "w.txt",
        vec![replace("one\ntwo", "uno\ndos\ndos"), lines(3, 3, "tres\n")],
    );
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.success(), "{report:#?}");
    assert_eq!(
        fs::read(&p).unwrap(),
        b"\xEF\xBB\xBFuno\r\ndos\r\ndos\r\ntres"
    );
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn symlinks_inside_the_root_edit_their_target() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("real.txt"), "v1\n").unwrap();
    std::os::unix::fs::symlink("real.txt", dir.path().join("link.txt")).unwrap();
    assert!(
        pipeline::apply(&ws(dir.path()), &one("link.txt", vec![replace("v1", "v2")])).success()
    );
    assert!(
        fs::symlink_metadata(dir.path().join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(dir.path(), "real.txt"), "v2\n");
}

#[test]
fn create_refuses_existing_files_unless_asked_and_makes_parents() {
    let dir = tempfile::tempdir().unwrap();
    let w = ws(dir.path());
    let create = |overwrite| {
        one(
            "a/b/new.txt",
            vec![Edit::Create {
                content: "hi\n".into(),
                overwrite,
            }],
        )
    };
    let report = pipeline::apply(&w, &create(false));
    assert_eq!(report.files[0].status(), FileStatus::Created);
    assert!(report.files[0].diff.starts_with("--- /dev/null"));
    let report = pipeline::apply(&w, &create(false));
    assert_eq!(report.files[0].error().unwrap().code, ErrorCode::Conflict);
    let report = pipeline::apply(
        &w,
        &one(
            "a/b/new.txt",
            vec![
                Edit::Create {
                    content: "bye\n".into(),
                    overwrite: true,
                },
                replace("bye", "ciao"),
            ],
        ),
    );
    assert!(report.success());
    assert_eq!(read(dir.path(), "a/b/new.txt"), "ciao\n");
}

#[test]
fn stop_on_error_keeps_what_was_done_and_skips_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a b c\n").unwrap();
    let mut req = one(
        "f.txt",
        vec![replace("a", "A"), replace("zzz", "Z"), replace("c", "C")],
    );
    req.options = req.options.to_builder().stop_on_error(true).build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    let f = &report.files[0];
    assert!(f.edits[0].success && f.edits[1].error.is_some() && f.edits[2].skipped);
    assert_eq!(read(dir.path(), "f.txt"), "A b c\n");
}

#[test]
fn dry_runs_and_read_only_workspaces_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let mut req = one("f.txt", vec![replace("a", "b")]);
    req.options = req.options.to_builder().dry_run(true).build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.success() && !report.files[0].written());
    assert!(report.files[0].diff.contains("+b"));
    let ro = Workspace::new(&[dir.path().to_path_buf()], true).unwrap();
    req.options = req.options.to_builder().dry_run(false).build();
    let report = pipeline::apply(&ro, &req);
    assert_eq!(report.files[0].error().unwrap().code, ErrorCode::ReadOnly);
    assert_eq!(read(dir.path(), "f.txt"), "a\n");
}

#[test]
fn bad_files_fail_alone_with_clear_codes() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ok.txt"), "a\n").unwrap();
    fs::write(dir.path().join("bin.dat"), b"\x00\x01\x02").unwrap();
    // UTF-16 cut in the middle of a character: not text in any encoding.
    fs::write(dir.path().join("cut16.txt"), b"\xff\xfec\0a\0f").unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let req = EditRequest {
        files: [
            "ok.txt",
            "bin.dat",
            "cut16.txt",
            "sub",
            "missing.txt",
            "../outside.txt",
        ]
        .iter()
        .map(|p| FileEdits {
            base_hash: None,
            path: p.to_string(),
            edits: vec![replace("a", "b")],
        })
        .collect(),
        options: EditOptions::default(),
    };
    let report = pipeline::apply(&ws(dir.path()), &req);
    let codes: Vec<Option<ErrorCode>> = report
        .files
        .iter()
        .map(|f| f.error().map(|e| e.code))
        .collect();
    assert_eq!(
        codes,
        vec![
            None,
            Some(ErrorCode::Binary),
            Some(ErrorCode::Encoding),
            Some(ErrorCode::IsDirectory),
            Some(ErrorCode::NotFound),
            Some(ErrorCode::OutOfRoot)
        ]
    );
    assert_eq!(read(dir.path(), "ok.txt"), "b\n");
    assert_eq!(
        fs::read(dir.path().join("cut16.txt")).unwrap(),
        b"\xff\xfec\0a\0f"
    );
}

#[test]
fn empty_search_and_out_of_range_lines_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\nb\n").unwrap();
    let report = pipeline::apply(
        &ws(dir.path()),
        &one("f.txt", vec![replace("", "x"), lines(3, 3, "c")]),
    );
    let f = &report.files[0];
    assert_eq!(
        f.edits[0].error.as_ref().unwrap().code,
        ErrorCode::InvalidArgument
    );
    let e = f.edits[1].error.as_ref().unwrap();
    assert!(e.message.contains("2 lines"), "{}", e.message);
    assert_eq!(read(dir.path(), "f.txt"), "a\nb\n");
}

#[test]
fn a_path_given_twice_in_one_request_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let req = EditRequest {
        files: vec![
            FileEdits {
                base_hash: None,
                path: "f.txt".into(),
                edits: vec![replace("a", "b")],
            },
            FileEdits {
                base_hash: None,
                path: "./f.txt".into(),
                edits: vec![replace("a", "c")],
            },
        ],
        options: EditOptions::default(),
    };
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(
        report.files[1]
            .error()
            .as_ref()
            .unwrap()
            .message
            .contains("twice")
    );
    assert_eq!(read(dir.path(), "f.txt"), "b\n");
}

#[test]
fn many_sequential_edits_on_a_large_file_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..20_000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    // Each edit's result is the next edit's search text, so order matters.
    let mut edits = Vec::new();
    for i in (0..20_000).step_by(7) {
        edits.push(replace(&format!("line {i} of"), &format!("LINE {i} of")));
        edits.push(replace(&format!("LINE {i} of"), &format!("row {i} of")));
    }
    let report = pipeline::apply(&ws(dir.path()), &one("big.txt", edits));
    assert!(report.success());
    let want: String = (0..20_000)
        .map(|i| {
            if i % 7 == 0 {
                format!("row {i} of the file\n")
            } else {
                format!("line {i} of the file\n")
            }
        })
        .collect();
    assert_eq!(read(dir.path(), "big.txt"), want);
    assert_eq!(report.files[0].lines_added, 20_000usize.div_ceil(7));
}

#[test]
fn near_miss_searches_stop_at_their_budget_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..2_000).map(|i| format!("entry {i} = {i};\n")).collect();
    fs::write(dir.path().join("f.txt"), &text).unwrap();
    let mut req = one(
        "f.txt",
        (0..10)
            .map(|i| replace(&format!("entry {i} = {};", i + 1), "x"))
            .collect(),
    );
    // Room for three searches of this file: each costs a pass to build the text, two for
    // the white-space match and one for the word windows, and a little for the diffs.
    let budget = text.len() as u64 * 13;
    req.options = req
        .options
        .to_builder()
        .near_miss_budget(Some(budget))
        .build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    let edits = &report.files[0].edits;
    assert_eq!(edits.len(), 10);
    for (i, e) in edits.iter().enumerate() {
        let err = e.error.as_ref().unwrap();
        assert_eq!(err.code, ErrorCode::NotFound);
        if i < 3 {
            assert_eq!(err.details["near_miss"]["line"], i + 1, "edit {i}: {err}");
        } else {
            assert_eq!(err.details["near_miss"], Value::Null, "edit {i}: {err}");
            assert_eq!(
                err.details["near_miss_skipped"], "budget",
                "edit {i}: {err}"
            );
            assert_eq!(err.details["limit"]["kind"], "search_work");
            assert_eq!(err.details["limit"]["max"], budget);
            assert!(err.message.contains("no near miss searched"), "{err}");
            assert!(err.full_message().contains("fix the earlier failed edits"));
        }
    }
    assert_eq!(read(dir.path(), "f.txt"), text);
}

/// The attack: a search text of 4,000 lines that resembles nothing in a large file. Comparing
/// it character by character with the windows of lines that share its words took 39 s on a
/// 5 MB file; now the search gives up once it has made `NEAR_MISS_WORK` comparisons and says
/// so, and a similar search text that is close still gets its near miss.
#[test]
fn a_near_miss_search_of_thousands_of_lines_gives_up_at_its_work_budget() {
    use filekit_core::limits::NEAR_MISS_WORK;
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let mut i = 0;
    while text.len() < (2 << 20) - 100 {
        text.push_str(&format!("    let value_{i} = compute(alpha, beta_{i});\n"));
        i += 1;
    }
    fs::write(dir.path().join("big.rs"), &text).unwrap();
    // Its words are the file's, in lines the file does not have.
    let search: String = (0..4_000)
        .map(|k| {
            format!(
                "beta_{} alpha value_{} compute(let);\n",
                k * 7 % 1000,
                k * 13
            )
        })
        .collect();
    let report = pipeline::apply(&ws(dir.path()), &one("big.rs", vec![replace(&search, "x")]));
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.details["near_miss"], Value::Null);
    assert_eq!(err.details["near_miss_skipped"], "budget", "{err}");
    assert_eq!(err.details["limit"]["max"], NEAR_MISS_WORK);
    assert!(err.details["limit"]["found"].as_u64().unwrap() <= NEAR_MISS_WORK);
    assert!(err.message.contains("gave up"), "{err}");
    assert_eq!(read(dir.path(), "big.rs"), text);

    // A search text of the same size that is nearly in the file is found close.
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut near: String = lines[1000..5000].concat();
    near = near.replacen("compute(alpha", "compute(alfa", 1);
    let report = pipeline::apply(&ws(dir.path()), &one("big.rs", vec![replace(&near, "x")]));
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.details["near_miss"]["line"], 1001, "{err}");
    assert!(err.details["near_miss"]["similarity"].as_f64().unwrap() > 0.99);
}

fn sed(expr: &str) -> Edit {
    Edit::Substitute(filekit_core::sed::Substitution::parse(expr, false).unwrap())
}

#[test]
fn pattern_replace_goes_through_the_pipeline_like_any_edit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("f.txt"),
        "let a = 1;\r\nlet b = 2;\r\nconst c = 3;\r\n",
    )
    .unwrap();
    // A substitution and a line edit both refer to the file as read; a text edit follows.
    let req = one(
        "f.txt",
        vec![
            sed("s/let (\\w)/var \\1/g"),
            lines(3, 3, "const c = 4;"),
            replace("var b", "var bee"),
        ],
    );
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.success(), "{:?}", report.files[0].edits);
    let edits = &report.files[0].edits;
    assert_eq!(edits[0].command, "pattern_replace");
    assert_eq!(edits[0].replacements, 2);
    assert_eq!(edits[0].line, Some(1));
    assert_eq!(
        read(dir.path(), "f.txt"),
        "var a = 1;\r\nvar bee = 2;\r\nconst c = 4;\r\n"
    );

    // A replacement with a line break takes the file's line ending.
    let report = pipeline::apply(&ws(dir.path()), &one("f.txt", vec![sed("s/ = /\\n= /")]));
    assert!(report.success());
    assert!(read(dir.path(), "f.txt").starts_with("var a\r\n= 1;\r\nvar bee\r\n= 2;\r\n"));

    // No match: the edit succeeds with no replacement and the file is left alone.
    let before = read(dir.path(), "f.txt");
    let report = pipeline::apply(&ws(dir.path()), &one("f.txt", vec![sed("s/zzz/y/g")]));
    assert!(report.success());
    assert_eq!(report.files[0].status(), FileStatus::Unchanged);
    assert_eq!(report.files[0].edits[0].replacements, 0);
    assert_eq!(read(dir.path(), "f.txt"), before);
}

#[test]
fn pattern_replace_overlapping_a_line_edit_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a1\na2\na3\n").unwrap();
    let mut req = one("f.txt", vec![lines(2, 2, "b2"), sed("s/a/x/")]);
    req.options = req.options.to_builder().atomic(true).build();
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(!report.success());
    let err = report.files[0].edits[1].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("overlaps an earlier edit"), "{err}");
    assert_eq!(err.fact(), Some(filekit_core::Fact::EditsOverlap));
    assert_eq!(err.details["conflicts_with"], 0);
    assert!(err.message.contains("substitution s/a/x/"), "{err}");
    assert_eq!(read(dir.path(), "f.txt"), "a1\na2\na3\n");

    // Without atomic, the line edit applies and none of the substitution does.
    let report = pipeline::apply(
        &ws(dir.path()),
        &one("f.txt", vec![lines(2, 2, "b2"), sed("s/a/x/")]),
    );
    assert_eq!(report.files[0].edits_applied, 1);
    assert_eq!(read(dir.path(), "f.txt"), "a1\nb2\na3\n");
}

#[test]
fn progress_is_reported_per_file_and_cancel_writes_nothing() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..40).map(|i| format!("f{i}.txt")).collect();
    for n in &names {
        fs::write(dir.path().join(n), "old\n").unwrap();
    }
    let request = |control: filekit_core::Control| EditRequest {
        files: names
            .iter()
            .map(|n| FileEdits {
                base_hash: None,
                path: n.clone(),
                edits: vec![replace("old", "new")],
            })
            .collect(),
        options: EditOptions::builder().control(control).build(),
    };

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let control = filekit_core::Control::with_progress(move |p| sink.lock().unwrap().push(p));
    let report = pipeline::apply(&ws(dir.path()), &request(control));
    assert!(report.success() && !report.cancelled);
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by_key(|p| p.done);
    assert_eq!(seen.len(), 40);
    assert!(
        seen.iter()
            .enumerate()
            .all(|(i, p)| p.done == i + 1 && p.total == 40)
    );
    assert!(names.iter().all(|n| read(dir.path(), n) == "new\n"));

    // Cancelled once the first file is planned: nothing is written, and the report says so.
    let holder: Arc<Mutex<Option<filekit_core::Control>>> = Arc::default();
    let inner = holder.clone();
    let control = filekit_core::Control::with_progress(move |_| {
        if let Some(c) = inner.lock().unwrap().as_ref() {
            c.cancel();
        }
    });
    *holder.lock().unwrap() = Some(control.clone());
    let mut req = request(control);
    for f in &mut req.files {
        f.edits = vec![replace("new", "newer")];
    }
    let report = pipeline::apply(&ws(dir.path()), &req);
    assert!(report.cancelled);
    assert!(!report.success());
    assert!(report.files.iter().all(|f| !f.written()));
    let err = report.files[39].error().unwrap();
    assert_eq!(err.code, ErrorCode::Cancelled, "{err}");
    assert!(names.iter().all(|n| read(dir.path(), n) == "new\n"));
}

#[test]
fn byte_ranges_apply_only_to_the_version_they_were_computed_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "héllo world\n").unwrap();
    let hash = hash::content_hash("héllo world\n".as_bytes());
    let ranges = |r: Vec<(usize, usize, &str)>, h: &str| Edit::Ranges {
        ranges: r
            .into_iter()
            .map(|(a, b, t)| (a, b, t.to_string()).into())
            .collect(),
        content_hash: h.to_string(),
    };
    // Not on a character boundary (é is two bytes), then not sorted: refused.
    for bad in [vec![(2, 3, "x")], vec![(7, 12, "x"), (0, 1, "y")]] {
        let report = pipeline::apply(&ws(dir.path()), &one("f.txt", vec![ranges(bad, &hash)]));
        let err = report.files[0].edits[0].error.as_ref().unwrap();
        assert!(err.message.contains("does not fit"), "{err}");
    }
    let report = pipeline::apply(
        &ws(dir.path()),
        &one(
            "f.txt",
            vec![ranges(vec![(0, 6, "hi"), (7, 12, "there")], &hash)],
        ),
    );
    assert!(report.success(), "{:?}", report.files[0]);
    assert_eq!(read(dir.path(), "f.txt"), "hi there\n");
    // The same ranges on the new version: stale.
    let report = pipeline::apply(
        &ws(dir.path()),
        &one("f.txt", vec![ranges(vec![(0, 2, "yo")], &hash)]),
    );
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::Stale, "{err}");
    assert_eq!(read(dir.path(), "f.txt"), "hi there\n");
}

#[test]
fn overlapping_byte_ranges_are_refused_naming_the_range_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "héllo world\n").unwrap();
    let hash = hash::content_hash("héllo world\n".as_bytes());
    let edit = Edit::Ranges {
        ranges: vec![
            (0, 6, "hi".to_string()).into(),
            (3, 9, "there".to_string()).into(),
        ],
        content_hash: hash,
    };
    let report = pipeline::apply(&ws(dir.path()), &one("f.txt", vec![edit]));
    let err = report.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    assert!(err.message.contains("range 1 (3..9) does not fit"), "{err}");
    assert!(err.message.contains("overlapping"), "{err}");
    assert!(!report.files[0].written());
    assert_eq!(read(dir.path(), "f.txt"), "héllo world\n");
}

#[test]
fn one_file_named_twice_is_refused_for_the_second_entry() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one two\n").unwrap();
    fs::write(dir.path().join("real.txt"), "v1\n").unwrap();
    std::os::unix::fs::symlink("real.txt", dir.path().join("link.txt")).unwrap();
    let entry = |path: &str, edit: Edit| FileEdits {
        base_hash: None,
        path: path.into(),
        edits: vec![edit],
    };
    // The same file by three spellings, and a link and its target.
    let req = EditRequest {
        files: vec![
            entry("a.txt", replace("one", "1")),
            entry("./a.txt", replace("two", "2")),
            entry(
                &dir.path().join("sub/../a.txt").display().to_string(),
                replace("two", "2"),
            ),
            entry("real.txt", replace("v1", "v2")),
            entry("link.txt", replace("v1", "v3")),
        ],
        options: EditOptions::default(),
    };
    let report = pipeline::apply(&ws(dir.path()), &req);
    let errors: Vec<Option<String>> = report
        .files
        .iter()
        .map(|f| f.error().map(|e| e.message.clone()))
        .collect();
    assert_eq!(errors[0], None);
    assert_eq!(errors[3], None);
    for (i, first) in [(1, 0), (2, 0), (4, 3)] {
        let message = errors[i].as_deref().unwrap_or_default();
        assert!(
            message.contains(&format!(
                "appears twice in this request (entries {first} and {i})"
            )),
            "entry {i}: {message:?}"
        );
    }
    // Not atomic: the first entry of each file is written, the repeats are not.
    assert_eq!(read(dir.path(), "a.txt"), "1 two\n");
    assert_eq!(read(dir.path(), "real.txt"), "v2\n");
}

#[test]
fn text_edit_failures_are_facts_in_no_tool_s_words() {
    use filekit_core::Fact;
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("f.txt"),
        "x = 1\nlet total = compute(a, b);\nx = 1\n",
    )
    .unwrap();
    let report = pipeline::apply(
        &ws(dir.path()),
        &one(
            "f.txt",
            vec![
                replace("x = 1", "x = 9"),
                replace("", "z"),
                replace("let total = compute(a, c);", "y = 4"),
                Edit::ReplaceText {
                    old: "y".into(),
                    new: "w".into(),
                    expected: Expected::Exactly(0),
                    label: None,
                },
            ],
        ),
    );
    let errors: Vec<_> = report.files[0]
        .edits
        .iter()
        .map(|o| o.error.clone().unwrap())
        .collect();
    let facts: Vec<_> = errors.iter().map(|e| e.fact()).collect();
    assert_eq!(
        facts,
        [
            Some(Fact::MatchCount),
            Some(Fact::SearchTextEmpty),
            Some(Fact::SearchTextNotFound),
            Some(Fact::ExpectedCountZero),
        ]
    );
    assert_eq!(errors[0].details["count"], 2, "{errors:#?}");
    assert_eq!(errors[0].details["expected"], 1);
    assert_eq!(errors[0].details["lines"], serde_json::json!([1, 3]));
    assert_eq!(errors[2].details["near_miss"]["line"], 2, "{:?}", errors[2]);
    for e in &errors {
        let said = e.full_message();
        for word in [
            "old_str",
            "old_string",
            "replace all",
            "insert or append",
            "details.",
        ] {
            assert!(
                !said.contains(word),
                "{word:?} in the engine's words: {said}"
            );
        }
    }
    // The near miss is shown in the hint itself, not named as a field.
    assert!(
        errors[2]
            .hint
            .as_deref()
            .unwrap()
            .contains("\"let total = compute(a, b);\""),
        "{:?}",
        errors[2].hint
    );
}

/// The attack: 100,000 text edits of one long line (each token of a generated line renamed)
/// took 61 s, every edit counting its line number through all the edits before it on that
/// line. Each costs what its neighbourhood costs now; the result is the naive loop's.
#[test]
fn a_hundred_thousand_edits_on_one_line_apply_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let line: String = (0..n).map(|i| format!("[{i}]")).collect();
    fs::write(dir.path().join("one.txt"), format!("head\n{line}\ntail\n")).unwrap();
    let edits: Vec<Edit> = (0..n)
        .map(|i| replace(&format!("[{i}]"), &format!("({i})")))
        .collect();
    let report = pipeline::apply(&ws(dir.path()), &one("one.txt", edits));
    assert!(report.success(), "{:?}", report.files[0].error());
    let f = &report.files[0];
    assert_eq!(f.edits_applied, n);
    assert!(f.edits.iter().all(|o| o.line == Some(2)));
    let want: String = (0..n).map(|i| format!("({i})")).collect();
    assert_eq!(read(dir.path(), "one.txt"), format!("head\n{want}\ntail\n"));
}

/// The attack: 1,000 edits of one character that is everywhere in a 1 MB line took 37 s,
/// each listing a million matches before saying it is ambiguous. Each says so now with the
/// count, and the file is untouched.
#[test]
fn a_thousand_ambiguous_one_character_edits_on_a_long_line_are_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let line = "ab".repeat(500_000);
    fs::write(dir.path().join("one.txt"), &line).unwrap();
    let edits: Vec<Edit> = (0..1000).map(|_| replace("a", "c")).collect();
    let report = pipeline::apply(&ws(dir.path()), &one("one.txt", edits));
    let f = &report.files[0];
    assert_eq!(f.edits_failed, 1000);
    for o in &f.edits {
        let e = o.error.as_ref().unwrap();
        assert_eq!(e.code, ErrorCode::Ambiguous, "{e}");
        assert_eq!(e.details["count"], 500_000, "{e}");
        assert_eq!(e.details["lines"][0], 1, "{e}");
    }
    assert_eq!(read(dir.path(), "one.txt"), line);
}
