//! `FileOp::Create`: a file made (or replaced) in the same all-or-nothing request, and history
//! entry, as the moves and deletes beside it; refused where any write is refused.

use filekit_core::fsops::{self, FileOp, FsRequest};
use filekit_core::history::History;
use filekit_core::{ErrorCode, Workspace, undo};
use std::fs;
use std::sync::Arc;

fn setup() -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("old.txt"), "old\n").unwrap();
    fs::write(root.join("kept.txt"), "kept\n").unwrap();
    let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    ws.set_history(Arc::new(History::new(
        &tmp.path().join("history.db"),
        1 << 30,
    )));
    (tmp, ws)
}

fn create(path: &str, content: &str, overwrite: bool) -> FileOp {
    FileOp::Create {
        path: path.into(),
        content: content.as_bytes().to_vec(),
        overwrite,
    }
}

fn request(ops: Vec<FileOp>) -> FsRequest {
    FsRequest {
        ops,
        atomic: true,
        ..FsRequest::default()
    }
}

#[test]
fn creates_with_a_delete_in_one_history_entry_that_one_undo_takes_back() {
    let (tmp, ws) = setup();
    let root = tmp.path().join("ws");
    let report = fsops::apply(
        &ws,
        &request(vec![
            FileOp::Delete {
                path: "old.txt".into(),
                recursive: false,
            },
            create("src/deep/new.txt", "new\n", false),
            create("kept.txt", "replaced\n", true),
        ]),
    );
    assert!(report.success(), "{report:?}");
    assert_eq!(
        fs::read_to_string(root.join("src/deep/new.txt")).unwrap(),
        "new\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("kept.txt")).unwrap(),
        "replaced\n"
    );
    assert!(report.ops[2].overwrote);
    assert!(!root.join("old.txt").exists());
    let entry = report.history_entry.expect("one history entry");
    undo::undo(&ws, Some(entry), false, false).unwrap();
    assert_eq!(fs::read_to_string(root.join("old.txt")).unwrap(), "old\n");
    assert_eq!(fs::read_to_string(root.join("kept.txt")).unwrap(), "kept\n");
    assert!(!root.join("src/deep/new.txt").exists());
}

#[test]
fn a_create_refused_stops_the_whole_atomic_request() {
    let (tmp, ws) = setup();
    let root = tmp.path().join("ws");
    for (op, code) in [
        // An existing file, not to be replaced.
        (create("kept.txt", "x\n", false), ErrorCode::Conflict),
        // filekit's own state and git's internals are written by no request.
        (
            create(".git/hooks/pre-commit", "#!/bin/sh\n", true),
            ErrorCode::OutOfRoot,
        ),
        (create(".filekit/x", "x", true), ErrorCode::OutOfRoot),
        // Outside the roots.
        (create("../escape.txt", "x", true), ErrorCode::OutOfRoot),
    ] {
        let report = fsops::apply(
            &ws,
            &request(vec![
                FileOp::Delete {
                    path: "old.txt".into(),
                    recursive: false,
                },
                op,
            ]),
        );
        assert!(!report.success());
        let err = report.ops[1].error.as_ref().expect("the create's error");
        assert_eq!(err.code, code, "{err:?}");
        assert_eq!(fs::read_to_string(root.join("old.txt")).unwrap(), "old\n");
        assert_eq!(fs::read_to_string(root.join("kept.txt")).unwrap(), "kept\n");
        assert!(!tmp.path().join("escape.txt").exists());
    }
}
