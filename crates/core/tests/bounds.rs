//! The engine's bounds against a hostile workspace: special files that would block an open
//! for reading, and files or edits larger than a whole-file operation may hold. Every test
//! that could hang runs under a watchdog.

use filekit_core::edit::{Edit, EditRequest, Expected, FileEdits, FileStatus};
use filekit_core::replace::{TreeReplace, tree_replace};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use filekit_core::workspace::NotRegular;
use filekit_core::{Control, EditOptions, ErrorCode, Workspace, pipeline};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// Runs `f` on its own thread and waits at most `secs` seconds for it: an open for reading
/// that blocks (a FIFO with no writer) fails the test instead of hanging it.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| {
            panic!("{what} did not finish in {secs} s: did it open a FIFO for reading?")
        })
}

fn mkfifo(p: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
}

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

/// The bound of files held whole in these tests.
const MAX_FILE_SIZE: u64 = 2 << 20;

fn ws(root: &Path) -> Workspace {
    Workspace::new(&[root.to_path_buf()], false)
        .unwrap()
        .with_max_file_size(MAX_FILE_SIZE)
}

/// A FIFO and a socket, opened every way the engine opens a file for reading: each is
/// refused at once, by the type of what was opened.
#[test]
fn special_files_are_refused_by_every_open_and_never_block() {
    let (_dir, root) = root();
    mkfifo(&root.join("fifo.txt"));
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock.txt")).unwrap();
    within(60, "opening special files", move || {
        let ws = ws(&root);
        for (name, what) in [("fifo.txt", "a FIFO"), ("sock.txt", "a socket")] {
            let p = ws.resolve(name).unwrap();
            let e = ws.read(&p).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{name}");
            assert!(
                e.message.contains(&format!("not a regular file ({what})")),
                "{e}"
            );
            assert_eq!(e.details["not_regular"], what);
            let e = ws.open(&p).unwrap_err();
            assert_eq!(e.details["not_regular"], what);
            // The opens of walks: a search's, and a tree-wide replace's.
            let e = ws.open_found(0, Path::new(name)).unwrap_err();
            let inner = e.get_ref().and_then(|e| e.downcast_ref::<NotRegular>());
            assert_eq!(inner.map(|n| n.0), Some(what), "{name}: {e}");
            assert!(ws.open_resolved(Path::new(name)).is_none(), "{name}");
            let r = filekit_core::read::read_file(&ws, name, &Default::default());
            assert_eq!(r.error().map(|e| e.code), Some(ErrorCode::InvalidArgument));
        }
    });
}

/// The race of the attack, made deterministic: a tree-wide replace lists the files of a
/// directory before it opens any of them, and the first file it plans turns all the others
/// into FIFOs. Each of those is now a FIFO where the walk saw a regular file: the opens give
/// up on it (reported, skipped) and the request finishes.
#[test]
fn files_swapped_for_fifos_between_the_walk_and_the_open_are_skipped_by_a_replace() {
    let (_dir, root) = root();
    let names: Vec<String> = (0..200).map(|i| format!("f{i:03}.txt")).collect();
    for n in &names {
        fs::write(root.join(n), "old text\n").unwrap();
    }
    // The first thread to finish a file swaps the files; every thread waits in its progress
    // report until that is done, so each opened at most one file before the swap.
    let swapped = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let (swap_root, swap_names, flag, done2) =
        (root.clone(), names.clone(), swapped.clone(), done.clone());
    let control = Control::with_progress(move |_| {
        if flag.swap(true, Ordering::SeqCst) {
            while !done2.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            return;
        }
        for n in &swap_names {
            let fifo = swap_root.join(format!(".{n}.fifo"));
            mkfifo(&fifo);
            // A FIFO put in the file's place, as another program would swap it.
            fs::rename(&fifo, swap_root.join(n)).unwrap();
        }
        done2.store(true, Ordering::SeqCst);
    });
    let req = TreeReplace {
        selection: FileSelection {
            directory: root.display().to_string(),
            file_pattern: "*.txt".into(),
            ..FileSelection::default()
        },
        substitution: Substitution::parse("s/old/new/", false).unwrap(),
        options: EditOptions::builder().control(control).build(),
    };
    let r2 = root.clone();
    let out = within(60, "a replace over files swapped for FIFOs", move || {
        tree_replace(&ws(&r2), &req).unwrap()
    });
    assert!(swapped.load(Ordering::SeqCst));
    let skipped: Vec<_> = out
        .report
        .files
        .iter()
        .filter(|f| f.status() == FileStatus::Skipped)
        .collect();
    // Each thread opened at most one file before the swap; the rest met FIFOs at their
    // open (or, listed after it, in the walk itself).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let in_walk = out
        .walk_skipped
        .iter()
        .filter(|(_, why)| why.contains("a FIFO"))
        .count();
    assert!(
        skipped.len() + in_walk + threads >= names.len(),
        "{} skipped at the open, {in_walk} in the walk, {threads} threads",
        skipped.len()
    );
    assert!(
        !skipped.is_empty(),
        "no file was listed as a file and met as a FIFO"
    );
    for f in &skipped {
        assert_eq!(f.skipped(), Some("not a regular file (a FIFO)"), "{f:?}");
    }
    assert!(out.report.files.iter().all(|f| f.error().is_none()));
    // What was skipped is left as it is: still a FIFO, nothing written to it.
    for f in &skipped {
        let ft = fs::symlink_metadata(root.join(&f.path))
            .unwrap()
            .file_type();
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&ft), "{}", f.path);
    }
}

/// Special files in a tree are passed over by the walks, and said to be: a search, a
/// replace's selection.
#[test]
fn walks_report_special_files_and_pass_over_them() {
    let (_dir, root) = root();
    fs::write(root.join("a.txt"), "needle\n").unwrap();
    mkfifo(&root.join("b.txt"));
    let r2 = root.clone();
    let found = within(60, "a grep over a FIFO", move || {
        filekit_core::search::grep::grep(
            &ws(&r2),
            &filekit_core::search::grep::GrepOptions {
                pattern: "needle".into(),
                ..Default::default()
            },
        )
        .unwrap()
    });
    assert_eq!(found.total_files, 1);
    assert_eq!(found.skipped.count, 1);
    assert!(
        found.skipped.messages[0].ends_with("b.txt: not a regular file (a FIFO)"),
        "{:?}",
        found.skipped
    );
    let r2 = root.clone();
    let selected = within(60, "a selection over a FIFO", move || {
        filekit_core::select::select(
            &ws(&r2),
            &FileSelection {
                directory: r2.display().to_string(),
                file_pattern: "*.txt".into(),
                ..FileSelection::default()
            },
            &|_: &str| true,
        )
        .unwrap()
    });
    assert_eq!(selected.files, ["a.txt"]);
    assert_eq!(selected.skipped.len(), 1);
    assert!(
        selected.skipped[0].1.contains("a FIFO"),
        "{:?}",
        selected.skipped
    );
}

fn one(path: &str, edits: Vec<Edit>) -> EditRequest {
    EditRequest {
        files: vec![FileEdits {
            path: path.into(),
            edits,
            base_hash: None,
        }],
        options: EditOptions::default(),
    }
}

fn replace_text(old: &str, new: &str, expected: Expected) -> Edit {
    Edit::ReplaceText {
        old: old.into(),
        new: new.into(),
        expected,
        label: None,
    }
}

/// Work that grew with the product of two sizes: the preview of a line with a replacement
/// per character searched for the line's end once per replacement (a 2 MB line: minutes),
/// and a replacement of thousands of `&` was walked part by part at every match of every
/// line. Both are linear now; the watchdog is far above what that takes.
#[test]
fn many_replacements_on_one_line_and_long_replacements_cost_linear_work() {
    let (_dir, root) = root();
    let line = "x".repeat(MAX_FILE_SIZE as usize / 2);
    fs::write(root.join("one.txt"), &line).unwrap();
    fs::write(
        root.join("empty.txt"),
        "\n".repeat(MAX_FILE_SIZE as usize / 4),
    )
    .unwrap();
    let r2 = root.clone();
    let (one, empty) = within(300, "a replacement of every character", move || {
        let ws = ws(&r2);
        let sed = |e: &str| Edit::Substitute(Substitution::parse(e, false).unwrap());
        let single = pipeline::apply(&ws, &one("one.txt", vec![sed("s/x/y/g")]));
        let amps = format!("s/^/{}/g", "&".repeat(20_000));
        let empty = pipeline::apply(&ws, &one("empty.txt", vec![sed(&amps)]));
        (single, empty)
    });
    assert!(one.success(), "{:?}", one.files[0].error());
    assert_eq!(one.files[0].edits[0].replacements, line.len());
    assert_eq!(
        fs::read_to_string(root.join("one.txt")).unwrap(),
        "y".repeat(line.len())
    );
    assert!(empty.success(), "{:?}", empty.files[0].error());
    assert_eq!(empty.files[0].status(), FileStatus::Unchanged);
}

/// A new content or an edit's result over the bound of a file held whole: refused
/// (TOO_LARGE, with the facts) before anything of that size is built, and nothing on disk
/// changes. A file over it is streamed, not refused: a sparse one of 100 GB is a hole of NUL
/// bytes, binary from its first bytes, and said so without reading on.
#[test]
fn whole_file_operations_stop_at_max_file_size() {
    let (_dir, root) = root();
    let ws = ws(&root);
    let too_large = |e: &filekit_core::FkError, found: u64| {
        assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
        assert_eq!(e.details["limit"]["kind"], "file_size", "{e}");
        assert_eq!(e.details["limit"]["max"], MAX_FILE_SIZE, "{e}");
        assert_eq!(e.details["limit"]["found"], found, "{e}");
    };

    // A sparse file far over the bound: an edit says it is binary from its head, and a
    // whole read of it is refused before it is read, saying how to work with it.
    let big = root.join("big.txt");
    fs::File::create(&big).unwrap().set_len(100 << 30).unwrap();
    let r = within(60, "an edit of a 100 GB hole", {
        let ws = self::ws(&root);
        move || {
            pipeline::apply(
                &ws,
                &one(
                    "big.txt",
                    vec![replace_text("a", "b", Expected::Exactly(1))],
                ),
            )
        }
    });
    let e = r.files[0].error().unwrap();
    assert_eq!(e.code, ErrorCode::Binary, "{e}");
    assert!(e.message.contains(&(100u64 << 30).to_string()), "{e}");
    let e = ws.read(&ws.resolve("big.txt").unwrap()).unwrap_err();
    too_large(&e, 100 << 30);
    assert!(e.full_message().contains("range of its lines"), "{e}");
    assert_eq!(fs::metadata(&big).unwrap().len(), 100 << 30);

    // A new content one byte over the bound; at the bound it is written.
    let over = "x".repeat(MAX_FILE_SIZE as usize + 1);
    let create = |content: &str| Edit::Create {
        content: content.into(),
        overwrite: true,
    };
    let r = pipeline::apply(&ws, &one("new.txt", vec![create(&over)]));
    too_large(r.files[0].error().unwrap(), MAX_FILE_SIZE + 1);
    assert!(!root.join("new.txt").exists());
    let r = pipeline::apply(&ws, &one("new.txt", vec![create(&over[1..])]));
    assert!(r.success(), "{:?}", r.files[0]);
    assert_eq!(
        fs::metadata(root.join("new.txt")).unwrap().len(),
        MAX_FILE_SIZE
    );

    // Edits whose result would pass the bound: a replacement of every match, sed's `&`
    // repeated, an append. The file is as it was.
    let text = "ab\n".repeat(100_000);
    fs::write(root.join("f.txt"), &text).unwrap();
    let long = "y".repeat(100);
    let r = pipeline::apply(
        &ws,
        &one("f.txt", vec![replace_text("a", &long, Expected::All)]),
    );
    let e = r.files[0].edits[0].error.as_ref().unwrap();
    too_large(e, text.len() as u64 + 100_000 * 99);
    let sed = Edit::Substitute(
        Substitution::parse(&format!("s/a/{}/g", "&".repeat(100)), false).unwrap(),
    );
    let r = pipeline::apply(&ws, &one("f.txt", vec![sed]));
    let e = r.files[0].edits[0].error.as_ref().unwrap();
    assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    let append = Edit::Append {
        text: "z".repeat(MAX_FILE_SIZE as usize),
    };
    let r = pipeline::apply(&ws, &one("f.txt", vec![append]));
    assert_eq!(
        r.files[0].edits[0].error.as_ref().unwrap().code,
        ErrorCode::TooLarge
    );
    assert_eq!(fs::read_to_string(root.join("f.txt")).unwrap(), text);

    // A tree-wide replace streams a file over the bound, and passes over it as binary.
    let req = TreeReplace {
        selection: FileSelection {
            directory: root.display().to_string(),
            file_pattern: "big.txt".into(),
            ..FileSelection::default()
        },
        substitution: Substitution::parse("s/a/b/", false).unwrap(),
        options: EditOptions::builder().max_file_size(Some(u64::MAX)).build(),
    };
    let out = within(60, "a replace of a 100 GB file", move || {
        tree_replace(&ws, &req).unwrap()
    });
    let f = &out.report.files[0];
    assert_eq!(f.status(), FileStatus::Skipped);
    assert_eq!(f.skipped(), Some("binary file"), "{f:?}");
}
