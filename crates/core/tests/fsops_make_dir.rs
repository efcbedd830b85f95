//! `FileOp::MakeDir` (`mkdir -p`): nested directories made and recorded as one undoable
//! change; an existing directory is success with nothing recorded; a file in the way, a path
//! through a file, filekit's own folder, a path out of the roots (by `..` or through a link)
//! and a read-only workspace are refused with nothing made.

use filekit_core::fsops::{self, FileOp, FsReport, FsRequest};
use filekit_core::history::History;
use filekit_core::{ErrorCode, Fact, Workspace, undo};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn workspace(read_only: bool) -> (tempfile::TempDir, PathBuf, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    std::fs::write(root.join("file.txt"), "x").unwrap();
    let mut ws = Workspace::new(std::slice::from_ref(&root), read_only).unwrap();
    let db = dir.path().join("history.db");
    ws.set_history(Arc::new(History::new(&db, 1 << 30)));
    (dir, root, ws)
}

fn make_dir(ws: &Workspace, path: &str, dry_run: bool) -> FsReport {
    fsops::apply(
        ws,
        &FsRequest {
            ops: vec![FileOp::MakeDir { path: path.into() }],
            dry_run,
            ..FsRequest::default()
        },
    )
}

fn entries(root: &Path) -> usize {
    walk(root)
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            1 + if p.is_dir() && !p.is_symlink() {
                walk(&p)
            } else {
                0
            }
        })
        .sum()
}

#[test]
fn nested_directories_are_made_and_undone_as_one_change() {
    let (_dir, root, ws) = workspace(false);
    let report = make_dir(&ws, "a/b/c", false);
    assert!(report.success(), "{report:?}");
    assert!(root.join("a/b/c").is_dir());
    assert!(report.ops[0].done);
    assert!(report.history_entry.is_some(), "not recorded");
    undo::undo(&ws, None, false, false).unwrap();
    assert!(!root.join("a").exists(), "undo left the directories");
}

#[test]
fn an_existing_directory_is_success_and_records_nothing() {
    let (_dir, root, ws) = workspace(false);
    std::fs::create_dir(root.join("there")).unwrap();
    let report = make_dir(&ws, "there", false);
    assert!(report.success(), "{report:?}");
    assert!(report.history_entry.is_none());
}

#[test]
fn a_file_in_the_way_is_refused() {
    let (_dir, root, ws) = workspace(false);
    let before = entries(&root);
    for path in ["file.txt", "file.txt/sub", "file.txt/sub/deeper"] {
        let report = make_dir(&ws, path, false);
        let err = report.ops[0]
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("{path}: made"));
        assert_eq!(err.fact(), Some(Fact::AlreadyExists), "{path}: {err:?}");
        assert_eq!(entries(&root), before, "{path}: something was made");
    }
    assert_eq!(std::fs::read_to_string(root.join("file.txt")).unwrap(), "x");
}

#[test]
fn out_of_the_roots_and_filekits_folder_are_refused() {
    let (dir, root, ws) = workspace(false);
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let before = entries(&root);
    for path in [
        "../escaped",
        "link/planted",
        ".filekit/mine",
        "/tmp/../escaped2",
    ] {
        let report = make_dir(&ws, path, false);
        let err = report.ops[0]
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("{path}: made"));
        assert_eq!(err.code, ErrorCode::OutOfRoot, "{path}: {err:?}");
    }
    assert_eq!(entries(&root), before);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!dir.path().join("escaped").exists());
}

#[test]
fn a_dry_run_and_a_read_only_workspace_make_nothing() {
    let (_dir, root, ws) = workspace(false);
    let report = make_dir(&ws, "dry/run", true);
    assert!(report.success() && !report.ops[0].done, "{report:?}");
    assert!(!root.join("dry").exists());
    let (_dir, root, ws) = workspace(true);
    let report = make_dir(&ws, "ro", false);
    assert_eq!(
        report.ops[0].error.as_ref().map(|e| e.code),
        Some(ErrorCode::ReadOnly)
    );
    assert!(!root.join("ro").exists());
}
