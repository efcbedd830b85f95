//! `apply_patch` (curated and `codex` tables) and `filekit patch`, driven the way an agent and
//! a person do: every format, drift the placement tolerates, and every bad input refused with
//! nothing written.

use crate::common;
use common::*;
use serde_json::json;

const APP: &str = "import os\n\n\ndef main():\n    debug = True\n    name = \"app\"\n    return run(name, debug)\n\n\ndef run(name, debug):\n    print(name)\n    return 0\n";

fn patch(sb: &Sandbox, input: &str) -> Run {
    sb.call("apply_patch", json!({ "input": input }))
}

fn history_len(sb: &Sandbox) -> usize {
    let run = sb.filekit(&["--json", "history"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json
        .as_array()
        .map(Vec::len)
        .unwrap_or_else(|| panic!("history: {}", run.stdout))
}

#[test]
fn codex_envelope_updates_and_adds_in_one_history_entry_and_one_undo() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    debug = True\n+    debug = False\n*** Add File: src/new.py\n+X = 1\n*** End Patch\n",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["success"], true);
    assert_eq!(run.json["format"], "v4a");
    assert_eq!(run.json["files"][0]["hunks"][0]["outcome"], "exact");
    assert_eq!(
        sb.read("src/app.py"),
        APP.replace("debug = True", "debug = False")
    );
    assert_eq!(sb.read("src/new.py"), "X = 1\n");
    assert_eq!(history_len(&sb), 1);
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(sb.read("src/app.py"), APP);
    assert!(!sb.exists("src/new.py"));
}

#[test]
fn codex_envelope_moves_and_deletes_in_one_history_entry() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP).write("old.txt", "bye\n");
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: lib/main.py\n@@\n def run(name, debug):\n-    print(name)\n+    print(name, debug)\n     return 0\n*** Delete File: old.txt\n*** End Patch",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!sb.exists("src/app.py") && !sb.exists("old.txt"));
    assert_eq!(
        sb.read("lib/main.py"),
        APP.replace("print(name)", "print(name, debug)")
    );
    assert_eq!(history_len(&sb), 1);
    assert_eq!(sb.filekit(&["undo"], None).code, 0);
    assert_eq!(sb.read("src/app.py"), APP);
    assert_eq!(sb.read("old.txt"), "bye\n");
    assert!(!sb.exists("lib/main.py"));
}

#[test]
fn a_move_in_a_patch_updates_the_imports_that_name_the_file_in_the_same_change() {
    let setup = |sb: &Sandbox| {
        sb.write(
            "src/util.ts",
            "import { b } from './b';\nexport const u = b + 1;\n",
        )
        .write("src/b.ts", "export const b = 1;\n")
        .write(
            "src/main.ts",
            "import { u } from './util';\nconsole.log(u);\n",
        );
    };
    // The patch moves util.ts into lib/ and changes its body: its own import of ./b and
    // main.ts's import of it follow, in one history entry.
    let moved = "*** Begin Patch\n*** Update File: src/util.ts\n*** Move to: src/lib/util.ts\n@@\n import { b } from './b';\n-export const u = b + 1;\n+export const u = b + 2;\n*** End Patch";
    let sb = Sandbox::new();
    setup(&sb);
    let run = patch(&sb, moved);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/lib/util.ts"),
        "import { b } from '../b';\nexport const u = b + 2;\n"
    );
    assert_eq!(
        sb.read("src/main.ts"),
        "import { u } from './lib/util';\nconsole.log(u);\n"
    );
    assert_eq!(
        run.json["imports_updated"][0]["file"], "src/main.ts",
        "{}",
        run.stdout
    );
    assert_eq!(history_len(&sb), 1);
    assert_eq!(sb.filekit(&["undo"], None).code, 0);
    assert_eq!(
        sb.read("src/main.ts"),
        "import { u } from './util';\nconsole.log(u);\n"
    );
    assert!(sb.exists("src/util.ts") && !sb.exists("src/lib/util.ts"));

    // Told not to, the imports stay as they were.
    let sb = Sandbox::new();
    setup(&sb);
    let run = sb.call(
        "apply_patch",
        json!({ "input": moved, "update_imports": false }),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/lib/util.ts"),
        "import { b } from './b';\nexport const u = b + 2;\n"
    );
    assert_eq!(
        sb.read("src/main.ts"),
        "import { u } from './util';\nconsole.log(u);\n"
    );

    // The patch changing the very import line the move rewrites: refused by name, nothing
    // written.
    let sb = Sandbox::new();
    setup(&sb);
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: src/util.ts\n*** Move to: src/lib/util.ts\n@@\n-import { b } from './b';\n+import { b } from './b.js';\n export const u = b + 1;\n*** End Patch",
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("import update of the move"),
        "{}",
        run.stdout
    );
    assert!(sb.exists("src/util.ts") && !sb.exists("src/lib/util.ts"));
    assert_eq!(
        sb.read("src/main.ts"),
        "import { u } from './util';\nconsole.log(u);\n"
    );
}

#[test]
fn a_git_diff_of_several_files_with_a_rename_a_create_and_a_delete() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\nthree\n")
        .write("b.txt", "keep\n")
        .write("gone.txt", "g\n");
    let diff = "diff --git a/a.txt b/a.txt\nindex 1111111..2222222 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\
diff --git a/b.txt b/c.txt\nsimilarity index 100%\nrename from b.txt\nrename to c.txt\n\
diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+fresh\n+file\n\
diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 4444444..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n";
    let run = patch(&sb, diff);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["format"], "unified");
    assert_eq!(sb.read("a.txt"), "one\nTWO\nthree\n");
    assert_eq!(sb.read("c.txt"), "keep\n");
    assert!(!sb.exists("b.txt") && !sb.exists("gone.txt"));
    assert_eq!(sb.read("new.txt"), "fresh\nfile\n");
    // Adds, updates, a rename and a delete: one change, one history entry, one undo.
    assert_eq!(history_len(&sb), 1);
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(sb.read("a.txt"), "one\ntwo\nthree\n");
    assert_eq!(sb.read("b.txt"), "keep\n");
    assert_eq!(sb.read("gone.txt"), "g\n");
    assert!(!sb.exists("c.txt") && !sb.exists("new.txt"));
}

#[test]
fn an_add_that_cannot_be_written_takes_the_moves_and_deletes_of_its_patch_back() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("gone.txt", "g\n");
    // The add lands under .git/, which no tool writes: nothing of the patch is done.
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n*** End Patch",
    );
    assert_ne!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(sb.read("a.txt"), "a\n");
    assert_eq!(sb.read("gone.txt"), "g\n");
    assert!(!sb.exists("b.txt") && !sb.exists(".git/hooks/post-checkout"));
}

#[test]
fn a_diff_u_without_prefixes_and_with_wrong_line_numbers() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    let diff = "--- src/app.py\t2024-05-01 10:00:00.000000000 +0200\n+++ src/app.py\t2024-05-02 10:00:00.000000000 +0200\n@@ -40,3 +40,3 @@\n def run(name, debug):\n-    print(name)\n+    print(name.upper())\n     return 0\n";
    let run = patch(&sb, diff);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/app.py"),
        APP.replace("print(name)", "print(name.upper())")
    );
    assert_eq!(
        run.json["files"][0]["hunks"][0]["tolerances"],
        json!(["line_hint"])
    );
}

#[test]
fn search_replace_blocks_of_aider_cline_and_roo() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    let aider = "Here is the change:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\n    debug = True\n=======\n    debug = False\n>>>>>>> REPLACE\n```\n";
    let run = patch(&sb, aider);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["format"], "search_replace");
    let cline = "src/app.py\n------- SEARCH\n    name = \"app\"\n=======\n    name = \"cli\"\n+++++++ REPLACE\n";
    assert_eq!(patch(&sb, cline).code, 0);
    let roo = "src/app.py\n<<<<<<< SEARCH\n:start_line:11\n-------\n    print(name)\n=======\n    print(name, flush=True)\n>>>>>>> REPLACE\n";
    assert_eq!(patch(&sb, roo).code, 0);
    assert_eq!(
        sb.read("src/app.py"),
        APP.replace("debug = True", "debug = False")
            .replace("\"app\"", "\"cli\"")
            .replace("print(name)", "print(name, flush=True)")
    );
    // An empty SEARCH creates a file that does not exist.
    let create = "docs/notes.md\n<<<<<<< SEARCH\n=======\n# Notes\n>>>>>>> REPLACE\n";
    assert_eq!(patch(&sb, create).code, 0);
    assert_eq!(sb.read("docs/notes.md"), "# Notes\n");
}

#[test]
fn drift_in_context_is_tolerated_and_the_file_keeps_its_own_lines() {
    let sb = Sandbox::new();
    // The file has trailing spaces the model did not copy, and the model wrote the method
    // without its class's indentation.
    let file = "class A:\n    def main(self):   \n        debug = True\n        return debug\n";
    sb.write("m.py", file);
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: m.py\n@@\n def main(self):\n-    debug = True\n+    debug = False\n+    if debug:\n+        print(self)\n     return debug\n*** End Patch",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("m.py"),
        "class A:\n    def main(self):   \n        debug = False\n        if debug:\n            print(self)\n        return debug\n"
    );
    let h = &run.json["files"][0]["hunks"][0];
    assert_eq!(h["outcome"], "tolerated");
    assert!(
        h["tolerances"]
            .as_array()
            .unwrap()
            .contains(&json!("indentation")),
        "{h}"
    );
}

#[test]
fn a_hunk_that_cannot_be_placed_is_refused_with_the_near_miss_and_nothing_is_written() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    let run = sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Add File: x.txt\n+x\n*** Update File: src/app.py\n@@\n def main():\n-    debug = Maybe\n+    debug = False\n*** End Patch"}),
        1,
        &["Failed to find expected lines in src/app.py", "Nothing was written"],
    );
    let h = &run.json["files"][1]["hunks"][0];
    assert_eq!(h["outcome"], "refused");
    assert_eq!(h["near_miss"]["line"], 4);
    assert!(
        h["near_miss"]["diff"]
            .as_str()
            .unwrap()
            .contains("[-Mayb-]"),
        "{h}"
    );
    assert_eq!(run.json["error_code"], "NOT_FOUND");
    assert!(!sb.exists("x.txt"));
}

#[test]
fn an_ambiguous_hunk_goes_first_in_order_and_says_so_or_in_a_diff_is_refused() {
    let file = "if a:\n    x = 1\n    y = 2\nif b:\n    x = 1\n    y = 2\n";
    let sb = Sandbox::new();
    sb.write("t.py", file);
    // A SEARCH block goes to the first place, as aider and Cline place it; the reply names
    // the other.
    let run = patch(
        &sb,
        "t.py\n<<<<<<< SEARCH\n    x = 1\n    y = 2\n=======\n    x = 1\n    y = 3\n>>>>>>> REPLACE\n",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(sb.read("t.py"), file.replacen("y = 2", "y = 3", 1));
    assert_eq!(
        run.json["files"][0]["hunks"][0]["candidates"],
        json!([2, 5])
    );
    assert_eq!(
        run.json["files"][0]["hunks"][0]["tolerances"],
        json!(["first_in_order"])
    );
    // A diff whose line number names neither place is refused with both.
    let sb = Sandbox::new();
    sb.write("t.py", file);
    let run = sb.call_fails(
        "apply_patch",
        json!({"input": "--- a/t.py\n+++ b/t.py\n@@ -3,2 +3,2 @@\n     x = 1\n-    y = 2\n+    y = 3\n"}),
        1,
        &["matches more than one place", "lines 2, 5"],
    );
    assert_eq!(
        run.json["files"][0]["hunks"][0]["candidates"],
        json!([2, 5])
    );
    assert_eq!(run.json["error_code"], "AMBIGUOUS");
    assert_eq!(sb.read("t.py"), file);
}

#[test]
fn a_malformed_envelope_names_the_line_and_what_was_expected() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    let run = sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\nstray text\n*** End Patch"}),
        2,
        &["line 6", "stray text", "expected a hunk line"],
    );
    assert_eq!(run.json["error_code"], "PARSE_ERROR");
    sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n"}),
        2,
        &["*** End Patch"],
    );
    sb.call_fails(
        "apply_patch",
        json!({"input": "please change a to b"}),
        2,
        &["no patch format recognised"],
    );
    // Unknown arguments and bad formats are refused from the schema.
    sb.call_fails(
        "apply_patch",
        json!({"input": "x", "patch": "y"}),
        2,
        &["patch"],
    );
    sb.call_fails(
        "apply_patch",
        json!({"input": "x", "format": "git"}),
        2,
        &["format"],
    );
}

#[test]
fn unknown_files_missing_deletes_git_and_outside_the_roots_are_refused() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    std::fs::create_dir_all(sb.path(".git")).unwrap();
    sb.write(".git/config", "[core]\n");
    sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch"}),
        1,
        &["Failed to read file to update nope.txt", "does not exist"],
    );
    sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch"}),
        1,
        &["Failed to delete file missing.txt"],
    );
    sb.call_fails(
        "apply_patch",
        json!({"input": "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[core] x\n"}),
        1,
        &[".git/"],
    );
    sb.call_fails(
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: ../escape.txt\n+x\n*** End Patch"}),
        1,
        &["OUT_OF_ROOT"],
    );
    assert!(!sb.root().parent().unwrap().join("escape.txt").exists());
    assert_eq!(sb.read("a.txt"), "a\n");
}

#[test]
fn dry_run_shows_diffs_and_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    let before = sb.snapshot();
    let run = sb.call(
        "apply_patch",
        json!({"input": "src/app.py\n<<<<<<< SEARCH\n    debug = True\n=======\n    debug = False\n>>>>>>> REPLACE\n", "dry_run": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["dry_run"], true);
    assert!(
        run.json["files"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    debug = False"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());
}

#[test]
fn an_add_over_an_existing_file_replaces_it_and_says_so() {
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch",
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["files"][0]["replaced_existing"], true);
    assert_eq!(sb.read("a.txt"), "new\n");
    assert_eq!(sb.filekit(&["undo"], None).code, 0);
    assert_eq!(sb.read("a.txt"), "old\n");
}

#[test]
fn the_patch_verb_reads_a_file_or_stdin_with_exit_codes() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\n");
    sb.write(
        "change.diff",
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
    );
    let run = sb.filekit(&["patch", "change.diff", "--dry-run"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Dry run"), "{}", run.stdout);
    assert!(run.stdout.contains("+2"), "{}", run.stdout);
    assert_eq!(sb.read("a.txt"), "one\ntwo\n");
    let run = sb.filekit(&["patch", "change.diff"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Success. Updated the following files:\nM a.txt\n"
    );
    assert_eq!(sb.read("a.txt"), "one\n2\n");
    // The same patch again: its old lines are gone.
    let run = sb.filekit(&["patch", "-"], Some(&sb.read("change.diff")));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("Failed to find expected lines"),
        "{}",
        run.stderr
    );
    let run = sb.filekit(
        &["patch", "-", "--json"],
        Some("*** Begin Patch\n*** Nope\n"),
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json["error_code"], "PARSE_ERROR");
}

#[test]
fn the_codex_table_serves_apply_patch() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["tools", "--dialect", "codex", "--json"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<&str> = run
        .json
        .as_array()
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, vec!["apply_patch"]);
}

/// `filekit call apply_patch` that must be refused with `needles` in its reply, writing
/// nothing and recording no history entry.
fn refused(sb: &Sandbox, input: &str, needles: &[&str]) -> Run {
    let entries = history_len(sb);
    let run = sb.call_fails("apply_patch", json!({ "input": input }), 1, needles);
    assert_eq!(history_len(sb), entries);
    run
}

#[test]
fn two_moves_to_one_destination_are_refused_naming_both_sections() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("b.txt", "b\n");
    let run = refused(
        &sb,
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: d.txt\n@@\n-a\n+A\n\
         *** Update File: b.txt\n*** Move to: d.txt\n@@\n-b\n+B\n*** End Patch",
        &[
            "two sections of the patch move a file to d.txt",
            "`*** Update File: a.txt` with `*** Move to: d.txt` (patch line 2)",
            "`*** Update File: b.txt` with `*** Move to: d.txt` (patch line 7)",
            "a destination of its own",
        ],
    );
    assert_eq!(run.json["error_code"], "CONFLICT");
    assert!(!sb.exists("d.txt"));
}

#[test]
fn a_move_onto_a_file_the_patch_deletes_is_refused() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("d.txt", "d\n");
    let run = refused(
        &sb,
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: d.txt\n@@\n-a\n+A\n\
         *** Delete File: d.txt\n*** End Patch",
        &[
            "moves a.txt to d.txt, which `*** Delete File: d.txt` (patch line 7) deletes",
            "the moved file would be lost",
        ],
    );
    assert_eq!(run.json["error_code"], "CONFLICT");
    assert_eq!(sb.read("a.txt"), "a\n");
    assert_eq!(sb.read("d.txt"), "d\n");
}

#[test]
fn a_swap_is_refused_saying_why_not_as_another_process_change() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("b.txt", "b\n");
    // Moves onto each other's paths: which content ends where would depend on an order the
    // patch does not state, so the patch is refused before anything runs.
    let run = refused(
        &sb,
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n\
         *** Update File: b.txt\n*** Move to: a.txt\n@@\n-b\n+B\n*** End Patch",
        &[
            "moves a.txt to b.txt",
            "moves away",
            "a swap",
            "in a patch of its own first",
        ],
    );
    assert!(!run.stdout.contains("another process"), "{}", run.stdout);
    // A unified diff's renames say the same.
    refused(
        &sb,
        "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n\
         diff --git a/b.txt b/a.txt\nsimilarity index 100%\nrename from b.txt\nrename to a.txt\n",
        &["the diff renaming a.txt to b.txt", "a swap"],
    );
    assert_eq!(sb.read("a.txt"), "a\n");
    assert_eq!(sb.read("b.txt"), "b\n");
}

#[test]
fn a_move_onto_a_path_the_patch_adds_is_refused() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    refused(
        &sb,
        "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: a.txt\n*** Move to: n.txt\n@@\n-a\n+A\n*** End Patch",
        &[
            "moves a.txt to n.txt, which `*** Add File: n.txt` (patch line 2) adds",
            "both would write it",
        ],
    );
    assert!(!sb.exists("n.txt"));
}

#[test]
fn a_move_onto_a_file_the_patch_leaves_alone_replaces_it_and_one_undo_restores_both() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n").write("d.txt", "old d\n");
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: d.txt\n@@\n-a\n+A\n*** End Patch",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(sb.read("d.txt"), "A\n");
    assert!(!sb.exists("a.txt"));
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(sb.read("a.txt"), "a\n");
    assert_eq!(sb.read("d.txt"), "old d\n");
}

#[test]
fn the_wrong_application_the_property_test_found_is_refused_as_ambiguous() {
    let sb = Sandbox::new();
    sb.write("f.txt", "}\n}\n\n}\n\n");
    // With its blank context line dropped, the hunk fits exactly one line above its line
    // number and at it only allowing for blank lines.
    let run = sb.filekit(
        &["patch", "-", "--json"],
        Some("--- a/f.txt\n+++ b/f.txt\n@@ -2,4 +2,3 @@\n }\n }\n-\n"),
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["error_code"], "AMBIGUOUS");
    assert_eq!(
        run.json["files"][0]["hunks"][0]["candidates"],
        json!([1, 2])
    );
    assert_eq!(sb.read("f.txt"), "}\n}\n\n}\n\n");
}

#[test]
fn search_replace_blocks_apply_in_sequence_through_the_patch_verb() {
    let sb = Sandbox::new();
    sb.write("src/app.py", APP);
    // The second block edits what the first one wrote, as aider, Cline and Roo Code allow.
    let blocks = "src/app.py\n<<<<<<< SEARCH\n    debug = True\n=======\n    debug = False\n    verbose = True\n>>>>>>> REPLACE\n\n\
                  src/app.py\n<<<<<<< SEARCH\n    debug = False\n    verbose = True\n    name = \"app\"\n=======\n    debug = False\n    verbose = False\n    name = \"app\"\n>>>>>>> REPLACE\n";
    let run = sb.filekit(&["patch", "-", "--json"], Some(blocks));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/app.py"),
        APP.replace(
            "    debug = True\n",
            "    debug = False\n    verbose = False\n"
        )
    );
    assert_eq!(run.json["files"][0]["hunks"][1]["outcome"], "exact");
    assert_eq!(history_len(&sb), 1);
}

#[test]
fn codex_hunks_with_one_line_of_context_go_where_codex_places_them() {
    let sb = Sandbox::new();
    let file = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n";
    sb.write("m.py", file);
    // `    pass` is in three places: each hunk goes to the first after the one before it.
    let run = patch(
        &sb,
        "*** Begin Patch\n*** Update File: m.py\n@@\n     pass\n+    return 1\n@@\n     pass\n+    return 2\n*** End Patch",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("m.py"),
        "def a():\n    pass\n    return 1\n\n\ndef b():\n    pass\n    return 2\n\n\ndef c():\n    pass\n"
    );
    let hunks = &run.json["files"][0]["hunks"];
    assert_eq!(hunks[0]["candidates"], json!([2, 6, 10]));
    assert_eq!(hunks[0]["tolerances"], json!(["first_in_order"]));
    assert_eq!(hunks[1]["line"], 6);
}

#[test]
fn git_quoted_paths_in_a_diff_name_the_files_they_spell() {
    let sb = Sandbox::new();
    let run = patch(
        &sb,
        "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\303\\251.txt\"\n@@ -0,0 +1 @@\n+cr\u{e8}me\n",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(sb.read("caf\u{e9}.txt"), "cr\u{e8}me\n");
    assert!(!sb.exists("caf\\303\\251.txt"));
    // Escapes that decode to no UTF-8 name are refused at their line.
    let run = sb.call_fails(
        "apply_patch",
        json!({"input": "--- /dev/null\n+++ \"b/\\377.txt\"\n@@ -0,0 +1 @@\n+x\n"}),
        2,
        &["line 2", "git's quoting"],
    );
    assert_eq!(run.json["error_code"], "PARSE_ERROR");
}
