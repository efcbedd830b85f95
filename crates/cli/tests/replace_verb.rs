//! `filekit replace` as a person runs it: dry run with diffs, the write, the interactive
//! review answered on standard input (with a scripted $EDITOR for `e`), JSON, and refusals.

use crate::common;
use common::*;

fn tree(sb: &Sandbox) {
    sb.write("src/a.js", "const a = 1;\nconst b = 2; const c = 3;\n");
    sb.write("src/b.js", "const x;\r\n");
    sb.write("src/notes.md", "const in prose\n");
}

#[test]
fn dry_run_shows_diffs_then_the_run_writes() {
    let sb = Sandbox::new();
    tree(&sb);
    let before = sb.snapshot();
    let run = sb.filekit(
        &[
            "replace",
            "s/const (\\w)/let \\1/g",
            "src",
            "--glob",
            "*.js",
            "--dry-run",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(before, sb.snapshot());
    assert!(
        run.stdout.contains("src/a.js: 3 replacement(s)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("--- a/src/a.js\n+++ b/src/a.js\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("-const b = 2; const c = 3;\n+let b = 2; let c = 3;\n")
    );
    assert!(
        run.stdout.contains("4 replacement(s) in 2 file(s)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("dry run: nothing written"));

    let run = sb.filekit(
        &["replace", "s/const (\\w)/let \\1/g", "src", "-g", "*.js"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A real run reports counts; the diffs were shown by the dry run (or ask with --diff).
    assert!(
        run.stdout.contains("src/a.js: 3 replacement(s)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("--- a/"), "{}", run.stdout);
    assert_eq!(sb.read("src/a.js"), "let a = 1;\nlet b = 2; let c = 3;\n");
    assert_eq!(sb.read("src/b.js"), "let x;\r\n");
    assert_eq!(sb.read("src/notes.md"), "const in prose\n");

    let run = sb.filekit(
        &[
            "replace",
            "s/let/const/",
            "src",
            "-g",
            "b.js",
            "--diff",
            "--no-fsync",
        ],
        None,
    );
    assert!(
        run.stdout.contains("-let x;\r\n+const x;\r\n"),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("src/b.js"), "const x;\r\n");
    let run = sb.filekit(
        &["--json", "replace", "s/let/var/", "src", "-g", "*.js"],
        None,
    );
    assert_eq!(run.json["replacements"], 2);
    assert_eq!(run.json["files_matched"], 2);
    assert_eq!(run.json["files_unmatched"], 1);
    assert_eq!(run.json["report"]["files"][0]["path"], "src/a.js");
}

#[test]
fn interactive_review_accepts_rejects_and_accepts_all() {
    let sb = Sandbox::new();
    tree(&sb);
    // a.js: yes to line 1, no to the first of line 2, then all the rest.
    let run = sb.filekit(
        &["replace", "-i", "s/const/let/g", "src"],
        Some("y\nn\nA\n"),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("Accept change?"), "{}", run.stderr);
    assert!(run.stderr.contains("src/a.js:2"), "{}", run.stderr);
    assert_eq!(sb.read("src/a.js"), "let a = 1;\nconst b = 2; let c = 3;\n");
    assert_eq!(sb.read("src/b.js"), "let x;\r\n");
    assert_eq!(sb.read("src/notes.md"), "let in prose\n");
    assert!(
        run.stdout
            .contains("4 of 5 change(s) accepted in 3 file(s)"),
        "{}",
        run.stdout
    );
}

#[test]
fn interactive_review_edits_and_quits() {
    let sb = Sandbox::new();
    tree(&sb);
    // `e` runs $EDITOR on the proposed line; this one rewrites it.
    let editor = "sed -i s/let/EDITED/";
    let run = sb.filekit_env(
        &["replace", "-i", "s/const/let/", "src", "-g", "a.js"],
        Some("e\nq\n"),
        &[("EDITOR", editor), ("VISUAL", editor)],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/a.js"),
        "EDITED a = 1;\nconst b = 2; const c = 3;\n"
    );
    assert!(run.stdout.contains("review stopped"), "{}", run.stdout);

    // Quitting before accepting anything writes nothing.
    let before = sb.snapshot();
    let run = sb.filekit(&["replace", "-i", "s/const/let/", "src"], Some("q\n"));
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("nothing written"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn refusals_exit_2_and_change_nothing() {
    let sb = Sandbox::new();
    tree(&sb);
    let before = sb.snapshot();
    let run = sb.filekit(&["replace", "s/a/b/q", "src"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown flag `q`"), "{}", run.stderr);
    let run = sb.filekit(&["replace", "s/a/b/", "no/such/dir"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    let run = sb.filekit(&["replace", "s/a/b/", "/"], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("outside the workspace"),
        "{}",
        run.stderr
    );
    let run = sb.filekit(&["--read-only", "replace", "s/const/let/", "src"], None);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("read-only"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}

/// `--in-place` overwrites each file in its own inode (as fastmod does), keeps line endings
/// and permissions, is recorded in the history like any run, and is undone as one.
#[test]
fn in_place_keeps_the_files_inodes_and_is_undone_as_one() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let sb = Sandbox::new();
    tree(&sb);
    std::fs::set_permissions(sb.path("src/b.js"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = sb.snapshot();
    let inode = |rel: &str| std::fs::metadata(sb.path(rel)).unwrap().ino();
    let inodes = (inode("src/a.js"), inode("src/b.js"));
    let run = sb.filekit(
        &[
            "replace",
            "--in-place",
            "s/const (\\w)/let \\1/g",
            "src",
            "-g",
            "*.js",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("4 replacement(s) in 2 file(s)"),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("src/a.js"), "let a = 1;\nlet b = 2; let c = 3;\n");
    assert_eq!(sb.read("src/b.js"), "let x;\r\n");
    assert_eq!(sb.read("src/notes.md"), "const in prose\n");
    assert_eq!((inode("src/a.js"), inode("src/b.js")), inodes);
    let mode = std::fs::metadata(sb.path("src/b.js"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    // A file made shorter is cut to its new length, not left with the old tail.
    let run = sb.filekit(
        &["replace", "--in-place", "-F", "s/let b = 2; //", "src"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sb.read("src/a.js"), "let a = 1;\nlet c = 3;\n");
    for _ in 0..2 {
        let undo = sb.filekit(&["undo"], None);
        assert_eq!(undo.code, 0, "{}\n{}", undo.stdout, undo.stderr);
    }
    let mut after = sb.snapshot();
    after.retain(|p, _| !p.starts_with(sb.path(".filekit")));
    assert!(before == after, "undo did not restore the tree");
}

#[test]
fn in_place_cannot_be_atomic_or_interactive() {
    let sb = Sandbox::new();
    tree(&sb);
    let before = sb.snapshot();
    for extra in ["--atomic", "-i"] {
        let run = sb.filekit(
            &["replace", "--in-place", extra, "s/const/let/", "src"],
            None,
        );
        assert_eq!(run.code, 2, "{extra}: {}", run.stderr);
        assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    }
    assert_eq!(before, sb.snapshot());
}

#[test]
fn rewritten_files_keep_their_modes_under_a_narrow_umask() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let modes = [
        ("shared.txt", 0o664),
        ("secret.txt", 0o600),
        ("run.sh", 0o755),
    ];
    for (name, mode) in modes {
        sb.write(name, "old value\n");
        std::fs::set_permissions(sb.path(name), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    // The new file of each is created under the process's umask; 077 takes away every bit
    // but the owner's, which the write must give back.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 077 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_filekit"))
        .arg("--root")
        .arg(sb.root())
        .args(["replace", "s/old/new/", "."])
        .current_dir(sb.root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, mode) in modes {
        assert_eq!(sb.read(name), "new value\n", "{name}");
        let now = std::fs::metadata(sb.path(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777;
        assert_eq!(now, mode, "{name}: {now:o}, was {mode:o}");
    }
}

/// `filekit replace EXPR FILE` edits that file alone, as `sed -i EXPR FILE` does: a name with
/// glob characters is matched as written, a hidden or ignored file named is still edited, and
/// `--glob` beside a file is refused.
#[test]
fn a_file_as_path_replaces_in_that_file_alone() {
    let sb = Sandbox::new();
    sb.write("a[1].txt", "x\n")
        .write("a1.txt", "x\n")
        .write("sub/a[1].txt", "x\n")
        .write(".hidden", "x\n")
        .write(".gitignore", "ignored.txt\n")
        .write("ignored.txt", "x\n");
    let run = sb.filekit(&["replace", "s/x/y/", "a[1].txt"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(sb.read("a[1].txt"), "y\n");
    assert_eq!(sb.read("a1.txt"), "x\n");
    assert_eq!(sb.read("sub/a[1].txt"), "x\n");
    for named in [".hidden", "ignored.txt"] {
        let run = sb.filekit(&["replace", "s/x/y/", named], None);
        assert_eq!(run.code, 0, "{named}: {}{}", run.stdout, run.stderr);
        assert_eq!(sb.read(named), "y\n");
    }
    let run = sb.filekit(&["replace", "s/x/y/", "a1.txt", "--glob", "*.md"], None);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("--glob"), "{}", run.stderr);
    assert_eq!(sb.read("a1.txt"), "x\n");
}

/// A replacement that gives back the text it replaced changes no file, and the summary says
/// so rather than "1 replacement(s) in 0 file(s)"; the files counted are the files searched.
#[test]
fn replacements_that_change_nothing_are_named_as_such() {
    let sb = Sandbox::new();
    sb.write("a.py", "def a():\n    return 1\n");
    let run = sb.filekit(&["replace", "s/def/def/", "a.py"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("0 replacement(s) in 0 file(s); 1 unchanged, 0 skipped, 0 failed, of 1 file(s) searched; 1 replacement(s) gave back the text they replaced"),
        "{}",
        run.stdout
    );
}

/// A writable file in a folder this user may not create files in: the atomic write's new
/// file beside it is what was refused, and the error says so (and that `--in-place` works)
/// instead of sending the user to the file's own permissions; `--in-place` then writes it.
#[test]
fn a_writable_file_in_a_read_only_folder_is_told_about_in_place() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.write("locked/a.txt", "colour\n");
    let mode = |p: &str, m: u32| {
        std::fs::set_permissions(sb.path(p), std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode("locked/a.txt", 0o666);
    mode("locked", 0o555);
    let run = filekit_unprivileged(&sb, &["replace", "s/colour/color/", "locked"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("its folder does not let this process create files"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("--in-place"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("check the file's permissions"),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("locked/a.txt"), "colour\n");
    let run = filekit_unprivileged(&sb, &["replace", "--in-place", "s/colour/color/", "locked"]);
    mode("locked", 0o755);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(sb.read("locked/a.txt"), "color\n");
}
