//! Tree-wide replace: which files are chosen, what is skipped and why, and that the write
//! pipeline's guarantees (dry run, atomic, line endings) hold across a tree.

use filekit_core::edit::FileStatus;
use filekit_core::replace::{TreeReplace, tree_replace};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use filekit_core::{EditOptions, ErrorCode, Workspace};
use std::fs;
use std::path::Path;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        ("a.js", b"const a = 1;\nconst b = 2;\n"),
        ("sub/b.js", b"const c = 3;\r\n"),
        ("sub/none.js", b"nothing to see\n"),
        ("sub/deep/c.js", b"let d = 4; const e = 5;\n"),
        ("node_modules/lib/x.js", b"const x = 0;\n"),
        ("dist/out.js", b"const y = 0;\n"),
        (".hidden/h.js", b"const h = 0;\n"),
        ("gen/ignored.js", b"const i = 0;\n"),
        ("bin.js", b"const x = \0binary\n"),
        ("latin.js", b"const caf\xe9 = 1;\n"),
        ("notes.txt", b"const in text\n"),
        (".gitignore", b"gen/\n"),
    ];
    for (name, bytes) in files {
        let p = dir.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
    std::os::unix::fs::symlink("a.js", dir.path().join("link.js")).unwrap();
    dir
}

fn request(dir: &Path, pattern: &str, recursive: bool, sed: &str) -> TreeReplace {
    TreeReplace {
        selection: FileSelection {
            directory: dir.display().to_string(),
            file_pattern: pattern.into(),
            recursive,
            exclude_patterns: vec!["node_modules/**".into(), "dist".into()],
            ..FileSelection::default()
        },
        substitution: Substitution::parse(sed, false).unwrap(),
        options: EditOptions::default(),
    }
}

fn ws(dir: &Path) -> Workspace {
    Workspace::new(&[dir.to_path_buf()], false).unwrap()
}

/// The chosen paths (relative to the root, where they are).
fn names(files: &[filekit_core::FileReport]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn chooses_by_name_recursively_and_skips_what_is_not_source_text() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let out = tree_replace(
        &ws(&root),
        &request(&root, "*.js", true, "s/const (\\w)/let \\1/g"),
    )
    .unwrap();
    let report = &out.report;
    let chosen = names(&report.files);
    assert_eq!(
        chosen,
        ["a.js", "bin.js", "latin.js", "sub/b.js", "sub/deep/c.js"],
        "ignored, hidden, excluded and linked files are not chosen"
    );
    assert!(report.success(), "{:?}", report.files);
    let status = |name: &str| {
        report
            .files
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap()
    };
    assert_eq!(status("bin.js").status(), FileStatus::Skipped);
    assert_eq!(status("bin.js").skipped(), Some("binary file"));
    // Latin-1 is replaced in its encoding.
    assert_eq!(status("latin.js").status(), FileStatus::Modified);
    assert_eq!(status("a.js").edits[0].replacements, 2);
    assert_eq!(out.replacements(), 5);
    // sub/none.js was chosen, and ruled out by a search of its bytes.
    assert_eq!((out.chosen, out.unmatched), (6, 1));
    assert_eq!(out.walk_skipped.len(), 1);
    assert!(out.walk_skipped[0].0.ends_with("link.js"));

    let read = |p: &str| fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(read("a.js"), "let a = 1;\nlet b = 2;\n");
    assert_eq!(read("sub/b.js"), "let c = 3;\r\n");
    assert_eq!(read("sub/deep/c.js"), "let d = 4; let e = 5;\n");
    assert_eq!(
        fs::read(root.join("latin.js")).unwrap(),
        b"let caf\xe9 = 1;\n"
    );
    for untouched in [
        "node_modules/lib/x.js",
        "dist/out.js",
        ".hidden/h.js",
        "gen/ignored.js",
        "notes.txt",
    ] {
        assert!(read(untouched).starts_with("const"), "{untouched} changed");
    }
    assert_eq!(
        fs::read(root.join("bin.js")).unwrap(),
        b"const x = \0binary\n"
    );
}

#[test]
fn non_recursive_path_patterns_and_dry_runs() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let mut req = request(&root, "*.js", false, "s/const/let/");
    req.options = req.options.to_builder().dry_run(true).build();
    let out = tree_replace(&ws(&root), &req).unwrap();
    let chosen = names(&out.report.files);
    assert_eq!(chosen, ["a.js", "bin.js", "latin.js"]);
    let a = &out.report.files[0];
    assert!(
        a.diff.contains("-const a = 1;\n+let a = 1;\n"),
        "{}",
        a.diff
    );
    assert!(!a.written());
    assert!(
        fs::read_to_string(root.join("a.js"))
            .unwrap()
            .starts_with("const")
    );

    // A pattern with a slash matches paths, and implies looking in subdirectories.
    let out = tree_replace(
        &ws(&root),
        &request(&root, "sub/**/*.js", false, "s/const/var/"),
    )
    .unwrap();
    let chosen = names(&out.report.files);
    assert_eq!(chosen, ["sub/b.js", "sub/deep/c.js"]);
}

#[test]
fn a_file_that_vanishes_mid_run_fails_alone_or_undoes_an_atomic_run() {
    for atomic in [false, true] {
        let dir = tree();
        let root = dir.path().canonicalize().unwrap();
        let mut req = request(&root, "*.js", true, "s/const/let/g");
        req.options = req.options.to_builder().atomic(atomic).build();
        // Once every file is planned, and before anything is written, one file disappears.
        let doomed = root.join("sub/deep/c.js");
        req.options = req
            .options
            .to_builder()
            .control(filekit_core::Control::with_progress(move |p| {
                if p.done == p.total {
                    let _ = fs::remove_file(&doomed);
                }
            }))
            .build();
        let out = tree_replace(&ws(&root), &req).unwrap();
        let report = &out.report;
        assert!(!report.success());
        let c = report
            .files
            .iter()
            .find(|f| f.path.ends_with("c.js"))
            .unwrap();
        assert!(c.error().is_some(), "{c:?}");
        assert!(
            !root.join("sub/deep/c.js").exists(),
            "a vanished file is not brought back"
        );
        let a = fs::read_to_string(root.join("a.js")).unwrap();
        if atomic {
            assert!(report.rolled_back);
            assert_eq!(
                a, "const a = 1;\nconst b = 2;\n",
                "atomic: the others are put back"
            );
        } else {
            assert_eq!(a, "let a = 1;\nlet b = 2;\n", "the others are still done");
        }
    }
}

#[test]
fn bad_requests_say_what_to_fix() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let ws = ws(&root);
    let err = tree_replace(&ws, &request(&root, "*.rs", true, "s/a/b/")).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains("no files matched"), "{err}");
    assert!(err.message.contains("\"*.rs\""), "{err}");
    assert!(err.message.contains("node_modules/**"), "{err}");

    let err = tree_replace(&ws, &request(&root, "*.{js", true, "s/a/b/")).unwrap_err();
    assert!(err.message.contains("invalid file_pattern"), "{err}");

    let mut req = request(&root, "*.js", true, "s/a/b/");
    req.selection.directory = "../".into();
    let err = tree_replace(&ws, &req).unwrap_err();
    assert_eq!(err.code, ErrorCode::OutOfRoot, "{err}");

    req.selection.directory = "a.js".into();
    let err = tree_replace(&ws, &req).unwrap_err();
    assert!(err.message.contains("not a directory"), "{err}");

    req.selection.directory = "nope".into();
    let err = tree_replace(&ws, &req).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
}

#[test]
fn a_file_rewritten_to_the_same_size_meanwhile_is_stale_in_every_write_mode() {
    // Someone else rewrites the file between its read and its write, to bytes of the same
    // length, in the same inode: only its modification time tells. (Set a second ahead: two
    // writes within one tick of the kernel's clock can carry the same time.)
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let theirs = "const z = 9;\r\n";
    for in_place in [false, true] {
        for no_fsync in [false, true] {
            let path = root.join("sub/b.js");
            fs::write(&path, "const c = 3;\r\n").unwrap();
            let mut req = request(&root, "b.js", true, "s/const/let/g");
            req.options = req.options.to_builder().in_place(in_place).build();
            req.options = req.options.to_builder().no_fsync(no_fsync).build();
            let target = path.clone();
            req.options = req
                .options
                .to_builder()
                .control(filekit_core::Control::with_progress(move |p| {
                    if p.done == 1 && p.total == 0 {
                        let before = fs::metadata(&target).unwrap().modified().unwrap();
                        let file = fs::OpenOptions::new().write(true).open(&target).unwrap();
                        std::io::Write::write_all(&mut &file, theirs.as_bytes()).unwrap();
                        file.set_modified(before + std::time::Duration::from_secs(1))
                            .unwrap();
                    }
                }))
                .build();
            let out = tree_replace(&ws(&root), &req).unwrap();
            let b = &out.report.files[0];
            let mode = format!("in_place {in_place}, no_fsync {no_fsync}");
            assert_eq!(
                b.error().map(|e| e.code),
                Some(ErrorCode::Stale),
                "{mode}: {b:?}"
            );
            assert!(!b.written(), "{mode}");
            assert_eq!(fs::read_to_string(&path).unwrap(), theirs, "{mode}");
        }
    }
}

#[test]
fn in_place_runs_refuse_atomic_and_stale_files_and_report_vanished_ones() {
    // Atomic and in place together: nothing is written, every file says why.
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let mut req = request(&root, "*.js", true, "s/const/let/g");
    req.options = req.options.to_builder().in_place(true).build();
    req.options = req.options.to_builder().atomic(true).build();
    let out = tree_replace(&ws(&root), &req).unwrap();
    assert!(out.report.rolled_back);
    for f in out
        .report
        .files
        .iter()
        .filter(|f| f.status() != FileStatus::Skipped)
    {
        let e = f.error().unwrap_or_else(|| panic!("{f:?}"));
        assert!(
            e.message
                .contains("in-place writes cannot be part of an atomic"),
            "{e}"
        );
    }
    assert_eq!(
        fs::read_to_string(root.join("a.js")).unwrap(),
        "const a = 1;\nconst b = 2;\n"
    );

    // Between planning and writing (the hook acts when the request's one file is planned),
    // a file vanishes, or is changed by someone else: the first fails, the second is
    // refused as stale (its change kept). Flushed or not: unflushed, each file is written as
    // soon as it is planned.
    let between = |pattern: &str, no_fsync: bool, act: Box<dyn Fn() + Send + Sync>| {
        let mut req = request(&root, pattern, true, "s/const/let/g");
        req.options = req.options.to_builder().in_place(true).build();
        req.options = req.options.to_builder().no_fsync(no_fsync).build();
        req.options = req
            .options
            .to_builder()
            .control(filekit_core::Control::with_progress(move |p| {
                if p.done == 1 && p.total == 0 {
                    act();
                }
            }))
            .build();
        let out = tree_replace(&ws(&root), &req).unwrap();
        assert_eq!(out.report.files.len(), 1, "{:?}", out.report.files);
        out.report.files[0].clone()
    };
    for no_fsync in [false, true] {
        let doomed = root.join("sub/deep/c.js");
        fs::write(&doomed, "let d = 4; const e = 5;\n").unwrap();
        let c = between(
            "c.js",
            no_fsync,
            Box::new(move || fs::remove_file(&doomed).unwrap()),
        );
        assert!(
            c.error().is_some() && !c.written(),
            "no_fsync {no_fsync}: {c:?}"
        );
        assert!(!root.join("sub/deep/c.js").exists());
        let changed = root.join("sub/b.js");
        fs::write(&changed, "const c = 3;\r\n").unwrap();
        let b = between(
            "b.js",
            no_fsync,
            Box::new(move || fs::write(&changed, "const theirs = 1;\n").unwrap()),
        );
        assert_eq!(
            b.error().map(|e| e.code),
            Some(ErrorCode::Stale),
            "{no_fsync}"
        );
        assert!(!b.written());
        assert_eq!(
            fs::read_to_string(root.join("sub/b.js")).unwrap(),
            "const theirs = 1;\n"
        );
        fs::write(root.join("a.js"), "const a = 1;\nconst b = 2;\n").unwrap();
        let a = between("a.js", no_fsync, Box::new(|| {}));
        assert!(a.written() && a.error().is_none(), "{a:?}");
        assert_eq!(
            fs::read_to_string(root.join("a.js")).unwrap(),
            "let a = 1;\nlet b = 2;\n"
        );
    }
}

#[test]
fn files_written_as_planned_are_one_history_entry_even_when_the_run_is_cancelled() {
    use filekit_core::history::History;
    use std::sync::Arc;
    for in_place in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for i in 0..40 {
            fs::write(
                root.join(format!("f{i:02}.js")),
                format!("const v{i} = {i};\n"),
            )
            .unwrap();
        }
        let mut ws = ws(&root);
        ws.set_history(Arc::new(History::new(
            &root.join(".filekit/history.db"),
            1 << 30,
        )));
        let mut req = request(&root, "*.js", false, "s/const/let/");
        req.options = req.options.to_builder().in_place(in_place).build();
        req.options = req.options.to_builder().no_fsync(true).build();
        // Cancelled once ten files are planned: those written stay written and are reported
        // and recorded as such; the others are left as they were, reported as cancelled.
        let slot: Arc<std::sync::OnceLock<filekit_core::Control>> = Arc::default();
        let in_hook = slot.clone();
        let control = filekit_core::Control::with_progress(move |p| {
            if p.total == 0
                && p.done == 10
                && let Some(c) = in_hook.get()
            {
                c.cancel();
            }
        });
        slot.set(control.clone()).unwrap();
        req.options = req.options.to_builder().control(control).build();
        let out = tree_replace(&ws, &req).unwrap();
        let report = &out.report;
        let mode = format!("in_place {in_place}");
        assert!(report.cancelled, "{mode}");
        assert_eq!(report.files.len(), 40, "{mode}");
        let mut written = 0;
        for f in &report.files {
            let now = fs::read_to_string(root.join(&f.path)).unwrap();
            if f.written() {
                written += 1;
                assert!(f.error().is_none(), "{mode}: {f:?}");
                assert!(now.starts_with("let "), "{mode}: {}: {now}", f.path);
            } else {
                assert_eq!(f.error().map(|e| e.code), Some(ErrorCode::Cancelled));
                assert!(now.starts_with("const "), "{mode}: {}: {now}", f.path);
            }
        }
        // Writing follows planning on another thread: how many of the ten planned files were
        // written when the cancel came is the scheduler's to say, never all forty.
        assert!(written < 40, "{mode}: {written} written");
        let Some(entry) = report.history_entry else {
            assert_eq!(written, 0, "{mode}: files written, no history entry");
            continue;
        };
        filekit_core::undo::undo(&ws, Some(entry), false, false).unwrap();
        for i in 0..40 {
            assert_eq!(
                fs::read_to_string(root.join(format!("f{i:02}.js"))).unwrap(),
                format!("const v{i} = {i};\n"),
                "{mode}: undone"
            );
        }
    }
}

#[test]
fn bom_crlf_files_keep_their_bytes_and_undo_gives_back_the_original() {
    use filekit_core::history::History;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let original = b"\xEF\xBB\xBFfirst\r\nconst c = 3;\r\nconst d = 4;\r\n".to_vec();
    fs::write(root.join("bom.js"), &original).unwrap();
    fs::write(root.join("plain.js"), "x\ny\nconst z = 1;\n").unwrap();
    let mut ws = ws(&root);
    ws.set_history(Arc::new(History::new(
        &root.join(".filekit/history.db"),
        1 << 30,
    )));
    // The replacement's line break is written in each file's own style.
    let req = request(
        &root,
        "*.js",
        false,
        "s/const (\\w)/let $1\\n  \\/\\/ was const/",
    );
    let out = tree_replace(&ws, &req).unwrap();
    assert!(out.report.success(), "{:?}", out.report.files);
    let file = |name: &str| out.report.files.iter().find(|f| f.path == name).unwrap();
    // The first match is on line 2 of bom.js and on line 3 of plain.js.
    assert_eq!(file("bom.js").edits[0].line, Some(2));
    assert_eq!(file("plain.js").edits[0].line, Some(3));
    assert_eq!(file("bom.js").edits[0].replacements, 2);
    assert_eq!(
        fs::read(root.join("bom.js")).unwrap(),
        b"\xEF\xBB\xBFfirst\r\nlet c\r\n  // was const = 3;\r\nlet d\r\n  // was const = 4;\r\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("plain.js")).unwrap(),
        "x\ny\nlet z\n  // was const = 1;\n"
    );
    // The reported version is the hash of the bytes on disk, BOM included.
    assert_eq!(
        file("bom.js").new_hash.as_deref(),
        Some(filekit_core::hash::content_hash(&fs::read(root.join("bom.js")).unwrap()).as_str())
    );
    filekit_core::undo::undo(&ws, out.report.history_entry, false, false).unwrap();
    assert_eq!(fs::read(root.join("bom.js")).unwrap(), original);
    assert_eq!(
        fs::read_to_string(root.join("plain.js")).unwrap(),
        "x\ny\nconst z = 1;\n"
    );
}

#[test]
fn previews_of_files_with_lone_carriage_returns_count_lines_at_line_feeds() {
    // Old Mac line ends (`\r` alone) inside lines: the diff's lines end at `\n` only. A
    // multi-line region of such lines once made the diff index past its own lines and panic.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut text = String::from("start\n");
    for i in 1..=9 {
        text.push_str(&format!("l{i}\rr\n"));
    }
    text.push_str("end\n");
    fs::write(root.join("g.txt"), &text).unwrap();
    let mut req = request(
        &root,
        "*.txt",
        true,
        r"s/start\n((?:l[0-9]\r.\n)+)end/begin\nz\n${1}fin/m",
    );
    req.options = req.options.to_builder().dry_run(true).build();
    let out = tree_replace(&ws(&root), &req).unwrap();
    let f = &out.report.files[0];
    assert!(f.success(), "{:?}", f.error());
    assert_eq!(
        f.diff,
        "--- a/g.txt\n+++ b/g.txt\n\
         @@ -1,4 +1,5 @@\n-start\n+begin\n+z\n l1\rr\n l2\rr\n l3\rr\n\
         @@ -8,4 +9,4 @@\n l7\rr\n l8\rr\n l9\rr\n-end\n+fin\n"
    );
}

#[test]
fn an_in_place_write_waits_for_a_writer_holding_the_file_then_keeps_its_change() {
    // Another writer takes the file's lock just before the write (as another filekit does
    // around its own check and write), changes the file, then lets go. The in-place write
    // must wait for it and then refuse the file as stale, whether the other writer rewrote
    // the same file or renamed a new one over it; written at once, its edit would be lost.
    use rustix::fs::{FlockOperation, flock};
    for (renames, no_fsync) in [(false, false), (true, false), (false, true), (true, true)] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let target = root.join("a.js");
        fs::write(&target, "const a = 1;\n").unwrap();
        let mut req = request(&root, "a.js", true, "s/const/let/");
        req.options = req.options.to_builder().in_place(true).build();
        req.options = req.options.to_builder().no_fsync(no_fsync).build();
        let holder = target.clone();
        let other: std::sync::Arc<std::sync::Mutex<Option<std::thread::JoinHandle<()>>>> =
            Default::default();
        let other_in_hook = other.clone();
        req.options = req
            .options
            .to_builder()
            .control(filekit_core::Control::with_progress(move |p| {
                // The request's one file is planned, not written yet (an in-place write follows
                // its planning at once): take the lock here, change the file a little later.
                if p.done != 1 || p.total != 0 {
                    return;
                }
                let file = fs::File::open(&holder).unwrap();
                flock(&file, FlockOperation::LockExclusive).unwrap();
                let path = holder.clone();
                let thread = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    if renames {
                        let temp = path.with_extension("tmp");
                        fs::write(&temp, "const theirs = 2;\n").unwrap();
                        fs::rename(&temp, &path).unwrap();
                    } else {
                        fs::write(&path, "const theirs = 2;\n").unwrap();
                    }
                    drop(file);
                });
                *other_in_hook.lock().unwrap() = Some(thread);
            }))
            .build();
        let out = tree_replace(&ws(&root), &req).unwrap();
        if let Some(thread) = other.lock().unwrap().take() {
            thread.join().unwrap();
        }
        let f = &out.report.files[0];
        assert_eq!(
            f.error().map(|e| e.code),
            Some(ErrorCode::Stale),
            "renames {renames}, no_fsync {no_fsync}: {f:?}"
        );
        assert!(!f.written());
        assert_eq!(fs::read_to_string(&target).unwrap(), "const theirs = 2;\n");
    }
}

#[test]
fn a_leased_file_is_refused_alone_and_its_holder_still_writes_it() {
    use filekit_core::leases;
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    // Leases live in the state directory, which both workspaces of the root share.
    let state_home = tempfile::tempdir().unwrap();
    let state = filekit_core::state::StateDir::for_root(state_home.path(), &root);
    let mut holder = ws(&root);
    holder.set_state(state.clone());
    holder.set_holder("agent-a");
    let b = holder.resolve("sub/b.js").unwrap();
    leases::lock(&holder, &b, "agent-a", 60).unwrap();
    // A lease on a file the request does not touch is no reason to refuse anything.
    let none = holder.resolve("sub/none.js").unwrap();
    leases::lock(&holder, &none, "agent-a", 60).unwrap();

    let mut other = ws(&root);
    other.set_state(state);
    other.set_holder("agent-b");
    let out = tree_replace(&other, &request(&root, "*.js", true, "s/const/let/g")).unwrap();
    let file = |name: &str| {
        out.report
            .files
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap_or_else(|| panic!("{name} in {:?}", names(&out.report.files)))
    };
    let locked = file("b.js");
    assert_eq!(locked.error().map(|e| e.code), Some(ErrorCode::Locked));
    assert!(!locked.written());
    assert_eq!(
        fs::read_to_string(root.join("sub/b.js")).unwrap(),
        "const c = 3;\r\n"
    );
    assert!(file("a.js").written() && file("c.js").written());
    assert_eq!(
        fs::read_to_string(root.join("a.js")).unwrap(),
        "let a = 1;\nlet b = 2;\n"
    );

    // The holder's own request passes its lease; once released, anyone's does.
    let out = tree_replace(&holder, &request(&root, "b.js", true, "s/const/var/")).unwrap();
    assert!(out.report.success(), "{:?}", out.report.files);
    assert_eq!(
        fs::read_to_string(root.join("sub/b.js")).unwrap(),
        "var c = 3;\r\n"
    );
    leases::unlock(&holder, &b, "agent-a", false).unwrap();
    let out = tree_replace(&other, &request(&root, "b.js", true, "s/var/let/")).unwrap();
    assert!(out.report.success(), "{:?}", out.report.files);
    assert_eq!(
        fs::read_to_string(root.join("sub/b.js")).unwrap(),
        "let c = 3;\r\n"
    );
}

/// A lean dry run (a tool's preview) keeps the reports of the files its reply lists, the
/// first in path order, and only counts the others: a tree of any size is previewed in the
/// memory of one reply, with its counts whole.
#[test]
fn a_lean_dry_run_keeps_the_reports_one_reply_lists_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..300 {
        let p = root.join(format!("d{}/f{i:03}.txt", i / 50));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, format!("file {i}\nthe colour of it\n")).unwrap();
    }
    // Two files the substitution leaves as they were, and one that is not text.
    fs::write(root.join("d0/same.txt"), "no match here\n").unwrap();
    fs::write(root.join("d0/same2.txt"), "color\n").unwrap();
    fs::write(root.join("d5/bin.txt"), b"colour\0\n").unwrap();
    let bound = 4_000;
    let ws = ws(&root).with_max_reply_bytes(bound);
    let mut req = request(&root, "*.txt", true, "s/colou?r/color/");
    req.options = req.options.to_builder().dry_run(true).lean(true).build();
    let out = tree_replace(&ws, &req).unwrap();
    let kept = &out.report.files;
    let cost: u64 = kept
        .iter()
        .map(|f| filekit_core::limits::reply_entry_bytes(&f.path))
        .sum();
    assert!(cost <= bound, "{} reports kept, {cost} bytes", kept.len());
    assert!(kept.len() > 10, "{} reports kept", kept.len());
    // The first files in path order, none of them unchanged (a reply only counts those).
    let mut all: Vec<String> = (0..300)
        .map(|i| format!("d{}/f{i:03}.txt", i / 50))
        .chain(["d5/bin.txt".to_string()])
        .collect();
    all.sort();
    assert_eq!(names(kept), all[..kept.len()]);
    // The counts are the whole tree's.
    assert_eq!(kept.len() + out.dropped.files + out.unmatched, 303);
    assert_eq!(out.replacements(), 301);
    assert_eq!(out.count(FileStatus::Modified), 300);
    assert_eq!(out.count(FileStatus::Unchanged) + out.unmatched, 2);
    assert_eq!(out.count(FileStatus::Skipped), 1);
    assert_eq!(out.failed(), 0);
    assert!(out.success());
    // A run that is not a lean dry run keeps every file's report.
    let mut req = req.clone();
    req.options = req.options.to_builder().lean(false).build();
    let out = tree_replace(&ws, &req).unwrap();
    assert_eq!(out.report.files.len() + out.unmatched, 303);
    assert_eq!(out.dropped.files, 0);
}
