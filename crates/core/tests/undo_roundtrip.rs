//! Undo round trip: random sequences of edits, creates, moves, copies, deletes and tree-wide
//! replaces, recorded in a real SQLite history, then undone one by one; the tree must come
//! back byte for byte, with its permissions and its directories. Then everything is redone
//! and must give the tree as it was after the sequence.

use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileEdits};
use filekit_core::fsops::{self, FileOp, FsRequest};
use filekit_core::history::History;
use filekit_core::replace::{TreeReplace, tree_replace};
use filekit_core::sed::Substitution;
use filekit_core::select::FileSelection;
use filekit_core::{Workspace, pipeline, undo};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a tree is: each path (relative) with its kind, mode and bytes.
type Tree = BTreeMap<PathBuf, (char, u32, Vec<u8>)>;

fn snapshot(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if rel.starts_with(".filekit") {
                continue;
            }
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mode = m.permissions().mode() & 0o7777;
            if m.is_dir() {
                out.insert(rel, ('d', mode, Vec::new()));
                walk(root, &p, out);
            } else {
                out.insert(rel, ('f', mode, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Tree::new();
    walk(root, root, &mut out);
    out
}

#[derive(Debug, Clone)]
enum Step {
    Edit {
        file: usize,
        append: String,
    },
    Create {
        dir: usize,
        name: usize,
        body: String,
    },
    Move {
        file: usize,
        dir: usize,
    },
    MoveDir {
        dir: usize,
        to: usize,
    },
    Copy {
        file: usize,
        dir: usize,
    },
    Delete {
        file: usize,
    },
    DeleteDir {
        dir: usize,
    },
    Replace {
        from: char,
        to: char,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..8usize, "[a-z ]{0,12}").prop_map(|(file, append)| Step::Edit { file, append }),
        (0..4usize, 0..6usize, "[a-z\n]{0,20}").prop_map(|(dir, name, body)| Step::Create {
            dir,
            name,
            body
        }),
        (0..8usize, 0..4usize).prop_map(|(file, dir)| Step::Move { file, dir }),
        (0..4usize, 0..4usize).prop_map(|(dir, to)| Step::MoveDir { dir, to }),
        (0..8usize, 0..4usize).prop_map(|(file, dir)| Step::Copy { file, dir }),
        (0..8usize).prop_map(|file| Step::Delete { file }),
        (0..4usize).prop_map(|dir| Step::DeleteDir { dir }),
        (prop::char::range('a', 'e'), prop::char::range('v', 'z'))
            .prop_map(|(from, to)| Step::Replace { from, to }),
    ]
}

/// The files now in the tree (relative), sorted: steps pick among them by index.
fn files(tree: &Tree) -> Vec<PathBuf> {
    tree.iter()
        .filter(|(_, v)| v.0 == 'f')
        .map(|(k, _)| k.clone())
        .collect()
}

fn dirs(tree: &Tree) -> Vec<PathBuf> {
    let mut d: Vec<PathBuf> = vec![PathBuf::new()];
    d.extend(
        tree.iter()
            .filter(|(_, v)| v.0 == 'd')
            .map(|(k, _)| k.clone()),
    );
    d
}

fn pick<T: Clone>(v: &[T], i: usize) -> Option<T> {
    (!v.is_empty()).then(|| v[i % v.len()].clone())
}

/// Runs one step; returns whether it recorded a change (some steps may legitimately fail,
/// e.g. a move onto an existing name, and record nothing).
fn run(ws: &Workspace, root: &Path, s: &Step) -> bool {
    let tree = snapshot(root);
    let fs = |op: FileOp| {
        let r = fsops::apply(
            ws,
            &FsRequest {
                ops: vec![op],
                ..FsRequest::default()
            },
        );
        r.history_entry.is_some()
    };
    let abs = |rel: &Path| root.join(rel).to_string_lossy().into_owned();
    match s {
        Step::Edit { file, append } => {
            let Some(f) = pick(&files(&tree), *file) else {
                return false;
            };
            let r = pipeline::apply(
                ws,
                &EditRequest::one_file(
                    abs(&f),
                    vec![Edit::Append {
                        text: append.clone(),
                    }],
                    EditOptions::default(),
                ),
            );
            r.history_entry.is_some()
        }
        Step::Create { dir, name, body } => {
            let d = pick(&dirs(&tree), *dir).unwrap();
            let path = root.join(d).join(format!("new{name}/f{name}.txt"));
            let r = pipeline::apply(
                ws,
                &EditRequest::one_file(
                    path.to_string_lossy().into_owned(),
                    vec![Edit::Create {
                        content: body.clone(),
                        overwrite: false,
                    }],
                    EditOptions::default(),
                ),
            );
            r.history_entry.is_some()
        }
        Step::Move { file, dir } => {
            let (Some(f), Some(d)) = (pick(&files(&tree), *file), pick(&dirs(&tree), *dir)) else {
                return false;
            };
            let to = root
                .join(d)
                .join(format!("m-{}", f.file_name().unwrap().to_string_lossy()));
            fs(FileOp::Move {
                from: abs(&f),
                to: to.to_string_lossy().into_owned(),
                overwrite: false,
            })
        }
        Step::MoveDir { dir, to } => {
            let ds = dirs(&tree);
            let (Some(d), Some(t)) = (pick(&ds[1..], *dir), pick(&ds, *to)) else {
                return false;
            };
            let dest = root
                .join(t)
                .join(format!("md-{}", d.file_name().unwrap().to_string_lossy()));
            fs(FileOp::Move {
                from: abs(&d),
                to: dest.to_string_lossy().into_owned(),
                overwrite: false,
            })
        }
        Step::Copy { file, dir } => {
            let (Some(f), Some(d)) = (pick(&files(&tree), *file), pick(&dirs(&tree), *dir)) else {
                return false;
            };
            let to = root
                .join(d)
                .join(format!("c-{}", f.file_name().unwrap().to_string_lossy()));
            fs(FileOp::Copy {
                from: abs(&f),
                to: to.to_string_lossy().into_owned(),
                overwrite: true,
            })
        }
        Step::Delete { file } => {
            let Some(f) = pick(&files(&tree), *file) else {
                return false;
            };
            fs(FileOp::Delete {
                path: abs(&f),
                recursive: false,
            })
        }
        Step::DeleteDir { dir } => {
            let ds = dirs(&tree);
            let Some(d) = pick(&ds[1..], *dir) else {
                return false;
            };
            fs(FileOp::Delete {
                path: abs(&d),
                recursive: true,
            })
        }
        Step::Replace { from, to } => {
            let sub = Substitution::parse(&format!("s/{from}/{to}/g"), false).unwrap();
            let req = TreeReplace {
                selection: every_file(root),
                substitution: sub,
                options: EditOptions::default(),
            };
            tree_replace(ws, &req).is_ok_and(|r| r.report.history_entry.is_some())
        }
    }
}

/// Every file below `root`.
fn every_file(root: &Path) -> FileSelection {
    FileSelection {
        directory: root.to_string_lossy().into_owned(),
        file_pattern: "*".into(),
        recursive: true,
        ..FileSelection::default()
    }
}

fn seed_tree(root: &Path) {
    let files = [
        ("a.txt", "alpha\nbeta\n", 0o644),
        ("b.sh", "#!/bin/sh\necho abc\n", 0o755),
        ("src/c.rs", "fn main() { let x = 1; }\n", 0o600),
        ("src/lib/d.rs", "pub fn d() {}\r\nabcde\r\n", 0o640),
        ("docs/e.md", "# e\n\nsome text\n", 0o644),
        ("docs/bom.txt", "\u{feff}with a BOM\nabc\n", 0o644),
    ];
    for (p, body, mode) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::create_dir_all(root.join("empty/inner")).unwrap();
    std::fs::set_permissions(root.join("empty"), std::fs::Permissions::from_mode(0o750)).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn undoing_everything_restores_the_tree(steps in prop::collection::vec(step(), 1..10)) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        seed_tree(&root);
        let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        let db = root.join(".filekit/history.db");
        ws.set_history(Arc::new(History::new(&db, 1 << 30)));
        let before = snapshot(&root);
        let mut recorded = 0;
        for s in &steps {
            if run(&ws, &root, s) {
                recorded += 1;
            }
        }
        let after = snapshot(&root);
        for i in 0..recorded {
            let r = undo::undo(&ws, None, false, false);
            prop_assert!(r.is_ok(), "undo {} of {}: {:?}\nsteps: {:?}", i + 1, recorded, r.err(), steps);
        }
        prop_assert_eq!(&snapshot(&root), &before, "steps: {:?}", steps);
        prop_assert!(undo::undo(&ws, None, false, false).is_err(), "nothing left to undo");
        for i in 0..recorded {
            let r = undo::redo(&ws, None, false, false);
            prop_assert!(r.is_ok(), "redo {} of {}: {:?}\nsteps: {:?}", i + 1, recorded, r.err(), steps);
        }
        prop_assert_eq!(&snapshot(&root), &after, "steps: {:?}", steps);
    }
}

#[test]
fn undo_refuses_when_a_file_changed_since_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    seed_tree(&root);
    let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    ws.set_history(Arc::new(History::new(
        &root.join(".filekit/history.db"),
        1 << 30,
    )));
    let a = root.join("a.txt").to_string_lossy().into_owned();
    let edit = |old: &str, new: &str| {
        pipeline::apply(
            &ws,
            &EditRequest {
                files: vec![FileEdits {
                    base_hash: None,
                    path: a.clone(),
                    edits: vec![Edit::ReplaceText {
                        old: old.into(),
                        new: new.into(),
                        expected: Expected::Exactly(1),
                        label: None,
                    }],
                }],
                options: EditOptions::default(),
            },
        )
    };
    let first = edit("alpha", "ALPHA").history_entry.unwrap();
    // Someone else changes the file outside filekit.
    std::fs::write(root.join("a.txt"), "ALPHA\nbeta\nmore\n").unwrap();
    let err = undo::undo(&ws, Some(first), false, false).unwrap_err();
    assert_eq!(err.code.as_str(), "STALE");
    assert!(err.message.contains("a.txt"), "{}", err.message);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "ALPHA\nbeta\nmore\n"
    );
    let forced = undo::undo(&ws, Some(first), true, false).unwrap();
    assert_eq!(forced.forced.len(), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "alpha\nbeta\n"
    );
    let again = undo::undo(&ws, Some(first), false, false).unwrap_err();
    assert!(
        again.message.contains("already undone"),
        "{}",
        again.message
    );
}

#[test]
fn the_history_is_pruned_oldest_first_under_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    // Contents that do not compress: each entry stores about 2 x 20 KB.
    let cap = 200_000;
    ws.set_history(Arc::new(History::new(
        &root.join(".filekit/history.db"),
        cap,
    )));
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut noise = |n: usize| -> String {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 90) as u8)
            })
            .collect()
    };
    let mut ids = Vec::new();
    for i in 0..30 {
        let r = pipeline::apply(
            &ws,
            &EditRequest::one_file(
                root.join(format!("f{i}.txt"))
                    .to_string_lossy()
                    .into_owned(),
                vec![Edit::Create {
                    content: noise(20_000),
                    overwrite: false,
                }],
                EditOptions::default(),
            ),
        );
        ids.push(r.history_entry.unwrap());
    }
    let h = ws.history().unwrap();
    assert!(
        h.stored_bytes().unwrap() <= cap,
        "{}",
        h.stored_bytes().unwrap()
    );
    let kept = h.list(&Default::default()).unwrap();
    assert!(kept.len() < 30 && !kept.is_empty());
    assert_eq!(kept[0].id, *ids.last().unwrap(), "the newest entry is kept");
    assert!(h.entry(ids[0]).is_err(), "the oldest entry was pruned");
}

/// Contents an edit made are stored as its splices of the content before (the history's
/// `blobs.base`): what a request wrote and what it replaced come back whole, BOM and all, and
/// undo and redo give the files back byte for byte.
#[test]
fn contents_stored_as_splices_come_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    let db = root.join(".filekit/history.db");
    ws.set_history(Arc::new(History::new(&db, 1 << 30)));
    let lines: String = (0..2000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    std::fs::write(root.join("plain.txt"), &lines).unwrap();
    std::fs::write(root.join("bom.txt"), format!("\u{feff}{lines}")).unwrap();
    let mut states = vec![snapshot(&root)];
    let mut entries = Vec::new();
    for i in 0..12 {
        let r = if i % 3 == 2 {
            let req = TreeReplace {
                selection: every_file(&root),
                substitution: Substitution::parse(&format!("s/line {i}0 /LINE {i}0 /"), false)
                    .unwrap(),
                options: EditOptions::default(),
            };
            tree_replace(&ws, &req).unwrap().report
        } else {
            let files = ["plain.txt", "bom.txt"].map(|f| FileEdits {
                base_hash: None,
                path: root.join(f).to_string_lossy().into_owned(),
                edits: vec![Edit::ReplaceText {
                    old: format!("line {i} of"),
                    new: format!("line {i} (edited) of"),
                    expected: Expected::Exactly(1),
                    label: None,
                }],
            });
            pipeline::apply(
                &ws,
                &EditRequest {
                    files: files.to_vec(),
                    options: EditOptions::default(),
                },
            )
        };
        assert!(r.files.iter().all(|f| f.written()), "{:?}", r.files);
        entries.push(r.history_entry.unwrap());
        states.push(snapshot(&root));
    }
    let h = ws.history().unwrap();
    for (k, id) in entries.iter().enumerate() {
        for c in h.changes(*id).unwrap() {
            let rel = c.path.strip_prefix(&root).unwrap();
            let bytes = |n: &filekit_core::history::Node| match n {
                filekit_core::history::Node::File { bytes, .. } => bytes.clone(),
                other => panic!("{other:?}"),
            };
            assert_eq!(
                bytes(&c.before),
                states[k][rel].2,
                "entry {id} before {rel:?}"
            );
            assert_eq!(
                bytes(&c.after),
                states[k + 1][rel].2,
                "entry {id} after {rel:?}"
            );
        }
    }
    // The edits were stored as splices: a few bytes each, not a copy of each file.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (spliced, spliced_bytes, whole_bytes): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(base), coalesce(sum(CASE WHEN base IS NOT NULL THEN stored END), 0),
                    sum(CASE WHEN base IS NULL THEN stored END) FROM blobs",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(spliced >= 20, "{spliced} contents stored as splices");
    assert!(
        spliced_bytes * 20 < whole_bytes,
        "{spliced_bytes} bytes of splices, {whole_bytes} of whole contents"
    );
    for k in (0..entries.len()).rev() {
        undo::undo(&ws, None, false, false).unwrap();
        assert_eq!(
            snapshot(&root),
            states[k],
            "after undoing entry {}",
            entries[k]
        );
    }
    for k in 0..entries.len() {
        undo::redo(&ws, None, false, false).unwrap();
        assert_eq!(
            snapshot(&root),
            states[k + 1],
            "after redoing entry {}",
            entries[k]
        );
    }
}

#[test]
fn a_directory_made_with_its_parents_is_recorded_and_undone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    let state = tempfile::tempdir().unwrap();
    ws.set_history(Arc::new(History::new(
        &state.path().join("history.db"),
        1 << 30,
    )));
    std::fs::create_dir(root.join("a")).unwrap();
    std::fs::write(root.join("f.txt"), "x\n").unwrap();
    let mkdir = |path: &str| {
        fsops::apply(
            &ws,
            &FsRequest {
                ops: vec![FileOp::MakeDir { path: path.into() }],
                ..FsRequest::default()
            },
        )
    };
    let made = mkdir("a/b/c");
    assert!(made.success(), "{:?}", made.ops[0].error);
    let shown = |p: &str| root.join(p).display().to_string();
    // The parents are made with the request; the directory itself is the operation.
    assert_eq!(made.ops[0].created_dirs, [shown("a/b")]);
    assert!(root.join("a/b/c").is_dir());
    // `mkdir -p` of what exists: done, nothing made, nothing recorded.
    let again = mkdir("a/b");
    assert!(again.success() && again.ops[0].created_dirs.is_empty());
    assert_eq!(again.history_entry, None);
    // Over a file: refused, the file kept.
    let over = mkdir("f.txt");
    let err = over.ops[0].error.as_ref().unwrap();
    assert!(err.message.contains("a file is there"), "{}", err.message);
    assert_eq!(std::fs::read_to_string(root.join("f.txt")).unwrap(), "x\n");
    // Outside the root, and in filekit's reserved folder: refused, nothing made.
    let outside = tempfile::tempdir().unwrap();
    let out = mkdir(&outside.path().join("n").display().to_string());
    assert_eq!(
        out.ops[0].error.as_ref().unwrap().code.as_str(),
        "OUT_OF_ROOT"
    );
    assert!(!outside.path().join("n").exists());
    let reserved = mkdir(".filekit/x");
    assert!(reserved.ops[0].error.is_some());
    assert!(!root.join(".filekit/x").exists());
    std::fs::create_dir(root.join(".git")).unwrap();
    let git = mkdir(".git/hooks/x");
    assert!(git.ops[0].error.is_some());
    assert!(!root.join(".git/hooks").exists());
    // Undo takes away what it made, and only that.
    undo::undo(&ws, made.history_entry, false, false).unwrap();
    assert!(!root.join("a/b").exists());
    assert!(root.join("a").is_dir());
}
