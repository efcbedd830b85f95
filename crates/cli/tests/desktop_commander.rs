//! The desktop-commander dialect (`edit_block`, `batch_edit_blocks`, `write_from_line`)
//! through `filekit call`, with the batch tools' argument and result shapes.

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn edit_block_with_expected_replacements() {
    let sb = Sandbox::new();
    sb.write("cfg.ts", "debug: false\nx\ndebug: false\n");
    let run = sb.call(
        "edit_block",
        json!({"file_path": "cfg.ts", "old_string": "debug: false", "new_string": "debug: true", "expected_replacements": 2}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("cfg.ts"), "debug: true\nx\ndebug: true\n");
    assert_eq!(run.json["replacements"], 2);

    sb.call_fails(
        "edit_block",
        json!({"file_path": "cfg.ts", "old_string": "debug: true", "new_string": "debug: false"}),
        1,
        &[
            "Expected 1 occurrences but found 2 in cfg.ts (at lines 1, 3)",
            "set expected_replacements to 2",
        ],
    );
}

#[test]
fn batch_edit_blocks_applies_in_sequence_with_labels_and_diffs() {
    let sb = Sandbox::new();
    sb.write(
        "spells.md",
        "Detect Magic\nLevel 1 Divination\n\nDetect Evil\nLevel 1 Divination\n",
    );
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "spells.md", "edits": [
            {"label": "Detect Magic", "search": "Detect Magic\nLevel 1 Divination", "replace": "### Detect Magic\n\n**Level 1 Divination**"},
            {"label": "Detect Evil", "search": "Detect Evil\nLevel 1 Divination", "replace": "### Detect Evil\n\n**Level 1 Divination**"},
            {"label": "sees the first edit", "search": "### Detect Magic", "replace": "### Detect Magic (ritual)"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("spells.md"),
        "### Detect Magic (ritual)\n\n**Level 1 Divination**\n\n### Detect Evil\n\n**Level 1 Divination**\n"
    );
    let r = &run.json;
    assert_eq!(r["success"], true);
    assert_eq!(
        (
            r["totalEdits"].as_u64(),
            r["successfulEdits"].as_u64(),
            r["failedEdits"].as_u64()
        ),
        (Some(3), Some(3), Some(0))
    );
    assert_eq!(r["results"][1]["label"], "Detect Evil");
    assert!(
        r["results"][1]["diff"]
            .as_str()
            .unwrap()
            .contains("+### Detect Evil")
    );
    assert!(
        r["finalDiff"]
            .as_str()
            .unwrap()
            .contains("+### Detect Magic (ritual)")
    );
}

#[test]
fn batch_edit_blocks_partial_success_and_stop_on_error() {
    let sb = Sandbox::new();
    sb.write("a.md", "one\ntwo\nthree\n");
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "a.md", "edits": [
            {"search": "one", "replace": "1"},
            {"search": "zwei", "replace": "2"},
            {"search": "three", "replace": "3"}
        ]}),
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        sb.read("a.md"),
        "1\ntwo\n3\n",
        "failures do not lose completed work"
    );
    assert_eq!(run.json["failedEdits"], 1);
    assert_eq!(run.json["results"][1]["success"], false);
    assert_eq!(run.json["results"][1]["errorCode"], "NOT_FOUND");

    sb.write("b.md", "one\ntwo\nthree\n");
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "b.md", "stopOnError": true, "edits": [
            {"search": "one", "replace": "1"},
            {"search": "zwei", "replace": "2"},
            {"search": "three", "replace": "3"}
        ]}),
    );
    assert_eq!(run.code, 1);
    assert_eq!(sb.read("b.md"), "1\ntwo\nthree\n");
    assert_eq!(run.json["results"][2]["skipped"], true);
    assert_eq!(run.json["skippedEdits"], 1);
}

#[test]
fn batch_edit_blocks_dry_run_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("a.md", "one\n");
    let before = sb.snapshot();
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "a.md", "dryRun": true, "edits": [{"search": "one", "replace": "1"}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["dryRun"], true);
    assert!(
        run.json["finalDiff"]
            .as_str()
            .unwrap()
            .contains("-one\n+1\n")
    );
    assert_eq!(before, sb.snapshot());
}

#[test]
fn batch_edit_blocks_fuzzy_only_when_asked() {
    let sb = Sandbox::new();
    sb.write(
        "a.py",
        "def handler(event, context):\n    return process(event)\n",
    );
    let edit = json!({"search": "def handler(event, ctx):\n    return process(event)", "replace": "def handler(event, context):\n    return process(event, context)"});
    // Without a threshold the near miss is only reported.
    let run = sb.call_fails(
        "batch_edit_blocks",
        json!({"path": "a.py", "edits": [edit]}),
        1,
        &["near miss"],
    );
    assert_eq!(run.json["results"][0]["details"]["near_miss"]["line"], 1);
    // With one, it applies and says so.
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "a.py", "fuzzyThreshold": 0.8, "edits": [edit]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.json["results"][0]["fuzzySimilarity"].as_f64().unwrap() >= 0.8);
    assert!(
        run.json["results"][0]["message"]
            .as_str()
            .unwrap()
            .contains("fuzzy")
    );
    assert!(sb.read("a.py").contains("process(event, context)"));

    sb.call_fails(
        "batch_edit_blocks",
        json!({"path": "a.py", "fuzzyThreshold": 7, "edits": [edit]}),
        2,
        &["between 0 and 1"],
    );
}

#[test]
fn write_from_line_to_the_end_and_to_a_line() {
    let sb = Sandbox::new();
    sb.write("a.md", TEN_LINES);
    let run = sb.call(
        "write_from_line",
        json!({"path": "a.md", "startLine": 8, "content": "new 8\nnew 9"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("a.md"),
        "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nnew 8\nnew 9\n"
    );
    assert_eq!(run.json["linesReplaced"], 3);
    assert_eq!(run.json["newLineCount"], 2);
    assert_eq!(
        run.json["message"],
        "Replaced lines 8-EOF (3 lines) with 2 lines"
    );

    let run = sb.call(
        "write_from_line",
        json!({"path": "a.md", "startLine": 2, "endLine": 6, "content": "middle\n"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("a.md"), "line 1\nmiddle\nline 7\nnew 8\nnew 9\n");
    assert_eq!(run.json["linesReplaced"], 5);
    assert!(run.json["diff"].as_str().unwrap().contains("+middle"));
}

#[test]
fn write_from_line_dry_run() {
    let sb = Sandbox::new();
    sb.write("a.md", TEN_LINES);
    let before = sb.snapshot();
    let run = sb.call(
        "write_from_line",
        json!({"path": "a.md", "startLine": 10, "content": "ten", "dryRun": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.json["message"]
            .as_str()
            .unwrap()
            .starts_with("DRY RUN: Would replace lines 10-EOF")
    );
    assert_eq!(before, sb.snapshot());
}

#[test]
fn large_batches_keep_their_reply_readable() {
    let sb = Sandbox::new();
    let text: String = (0..6_000)
        .map(|i| format!("entry number {i} of the register\n"))
        .collect();
    sb.write("reg.txt", &text);
    let edits: Vec<_> = (0..6_000)
        .step_by(8)
        .map(|i| {
            json!({"search": format!("entry number {i} of"), "replace": format!("ENTRY {i} of")})
        })
        .collect();
    let count = edits.len();
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "reg.txt", "edits": edits}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["successfulEdits"], count);
    // Every edit is reported with its line, but not with a diff of its own.
    let results = run.json["results"].as_array().unwrap();
    assert_eq!(results.len(), count);
    assert_eq!(results[10]["line"], 81);
    assert!(results.iter().all(|r| r.get("diff").is_none()));
    // The final diff is cut at a hunk boundary and says so; the file has every change.
    let diff = run.json["finalDiff"].as_str().unwrap();
    assert!(diff.len() <= 128 * 1024, "{}", diff.len());
    assert!(diff.starts_with("--- a/reg.txt\n+++ b/reg.txt\n@@ "));
    let shown = diff.matches("\n@@ ").count();
    let note = run.json["finalDiffTruncated"].as_str().unwrap();
    assert!(
        note.contains(&format!("first {shown} of {count} hunks")),
        "{note}"
    );
    assert_eq!(sb.read("reg.txt").matches("ENTRY").count(), count);

    // A small batch still gets a diff per edit.
    let run = sb.call(
        "batch_edit_blocks",
        json!({"path": "reg.txt", "edits": [{"search": "ENTRY 0 of", "replace": "entry 0 of"}]}),
    );
    assert!(
        run.json["results"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+entry 0 of")
    );
    assert!(run.json.get("finalDiffTruncated").is_none());
}

/// Desktop Commander's move_file is a rename (fs.rename): a folder moved onto an empty folder
/// replaces it; filekit does the same, and its undo puts the empty folder back with its own
/// mode, and redo the moved one with its.
#[test]
fn move_file_of_a_folder_onto_an_empty_folder_replaces_it_and_undo_brings_it_back() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.write("src/a.txt", "a\n").write("src/deep/b.txt", "b\n");
    std::fs::create_dir(sb.path("dest")).unwrap();
    let set_mode = |rel: &str, mode: u32| {
        std::fs::set_permissions(sb.path(rel), std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let mode = |rel: &str| {
        std::fs::metadata(sb.path(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    set_mode("src", 0o750);
    set_mode("dest", 0o700);
    let run = sb.call_in(
        "desktop-commander",
        "move_file",
        json!({"source": "src", "destination": "dest"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["overwrote"], true, "{}", run.stdout);
    assert_eq!(sb.read("dest/a.txt"), "a\n");
    assert_eq!(sb.read("dest/deep/b.txt"), "b\n");
    assert!(!sb.exists("src"));
    assert_eq!(mode("dest"), 0o750);

    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}\n{}", undo.stdout, undo.stderr);
    assert_eq!(sb.read("src/a.txt"), "a\n");
    assert_eq!(sb.read("src/deep/b.txt"), "b\n");
    assert!(sb.path("dest").is_dir());
    assert_eq!(std::fs::read_dir(sb.path("dest")).unwrap().count(), 0);
    assert_eq!((mode("src"), mode("dest")), (0o750, 0o700));

    let redo = sb.filekit(&["redo"], None);
    assert_eq!(redo.code, 0, "{}\n{}", redo.stdout, redo.stderr);
    assert_eq!(sb.read("dest/deep/b.txt"), "b\n");
    assert!(!sb.exists("src"));
    assert_eq!(mode("dest"), 0o750);
}

/// What a rename refuses, move_file refuses before anything moves: a folder onto a folder with
/// something in it, a file onto a folder, a folder onto a file.
#[test]
fn move_file_refuses_what_a_rename_cannot_replace() {
    let sb = Sandbox::new();
    sb.write("src/a.txt", "a\n")
        .write("full/kept.txt", "kept\n")
        .write("file.txt", "file\n");
    std::fs::create_dir(sb.path("empty")).unwrap();
    let cases = [
        (
            "src",
            "full",
            "full is a directory with 1 entry in it: only an empty directory is replaced",
        ),
        ("file.txt", "empty", "empty is an existing directory"),
        (
            "src",
            "file.txt",
            "file.txt is a file: a directory does not replace it",
        ),
    ];
    for (source, destination, needle) in cases {
        sb.call_fails_in(
            "desktop-commander",
            "move_file",
            json!({"source": source, "destination": destination}),
            1,
            &[needle],
        );
        assert!(sb.path("empty").is_dir());
    }
}
