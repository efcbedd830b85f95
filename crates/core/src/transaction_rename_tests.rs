//! A rename that replaces an empty directory, as a rename does: kept and put back when the run
//! rolls back, and never done over a directory that holds anything (one that got entries after
//! the plan looked included), in an atomic run as in a plain one.

use super::*;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// A workspace with `moved/inner.txt` and the empty directory `empty` (mode 0700).
fn fixture() -> (tempfile::TempDir, PathBuf, Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap().join("ws");
    fs::create_dir_all(root.join("moved")).unwrap();
    fs::write(root.join("moved/inner.txt"), "inner\n").unwrap();
    fs::create_dir(root.join("empty")).unwrap();
    fs::set_permissions(root.join("empty"), fs::Permissions::from_mode(0o700)).unwrap();
    let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
    (tmp, root, ws)
}

fn rename_op<'a>(ws: &Workspace, from: &str, to: &str) -> Op<'a> {
    Op::Rename {
        from: ws.resolve_entry(from).unwrap(),
        to: ws.resolve_entry(to).unwrap(),
        replace: true,
    }
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// Nothing left of a run in the tree's staging folder.
fn staging_cleared(root: &Path) -> bool {
    fs::read_dir(root.join(staging_base())).map_or(true, |mut d| d.next().is_none())
}

#[test]
fn an_atomic_run_replaces_an_empty_directory_and_clears_what_it_kept() {
    let (_tmp, root, ws) = fixture();
    let out = run(
        &ws,
        &[rename_op(&ws, "moved", "empty")],
        true,
        Durability::None,
    );
    assert!(out.results[0].is_ok(), "{:?}", out.results);
    assert_eq!(
        fs::read_to_string(root.join("empty/inner.txt")).unwrap(),
        "inner\n"
    );
    assert!(!root.join("moved").exists());
    assert!(staging_cleared(&root));
}

#[test]
fn a_rolled_back_run_puts_the_replaced_empty_directory_back() {
    let (_tmp, root, ws) = fixture();
    let ino = fs::metadata(root.join("empty")).unwrap().ino();
    // The second rename fails (no such source), after the first replaced `empty`.
    let ops = [
        rename_op(&ws, "moved", "empty"),
        rename_op(&ws, "missing", "elsewhere"),
    ];
    let out = run(&ws, &ops, true, Durability::None);
    assert!(out.rolled_back);
    // Undone because the second failed, not refused itself.
    let first = out.results[0].as_ref().unwrap_err();
    assert!(
        first.message.starts_with("not done: the request is atomic"),
        "{first:?}"
    );
    assert!(out.results[1].is_err());
    assert_eq!(
        fs::read_to_string(root.join("moved/inner.txt")).unwrap(),
        "inner\n"
    );
    // The very directory that was there, its mode and all, and empty.
    assert_eq!(fs::metadata(root.join("empty")).unwrap().ino(), ino);
    assert_eq!(mode(&root.join("empty")), 0o700);
    assert_eq!(fs::read_dir(root.join("empty")).unwrap().count(), 0);
    assert!(staging_cleared(&root));
}

#[test]
fn a_directory_with_an_entry_is_never_replaced_atomic_or_not() {
    for atomic in [true, false] {
        let (_tmp, root, ws) = fixture();
        // Planned as empty; an entry arrives before the rename.
        fs::write(root.join("empty/late.txt"), "late\n").unwrap();
        let out = run(
            &ws,
            &[rename_op(&ws, "moved", "empty")],
            atomic,
            Durability::None,
        );
        let err = out.results[0].as_ref().unwrap_err();
        assert_eq!(err.fact(), Some(crate::Fact::CannotReplace), "{err:?}");
        assert!(
            err.message.contains("only an empty directory is replaced"),
            "{}",
            err.message
        );
        assert_eq!(
            fs::read_to_string(root.join("empty/late.txt")).unwrap(),
            "late\n"
        );
        assert_eq!(
            fs::read_to_string(root.join("moved/inner.txt")).unwrap(),
            "inner\n"
        );
        assert!(staging_cleared(&root), "atomic: {atomic}");
    }
}
