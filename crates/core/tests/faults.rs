//! Faults during a batch: files deleted, changed or replaced by a directory by
//! another process between the read and the write, and a full disk. In every case the
//! affected file is reported, no file is left half-written (no temporary file either), and
//! the other files of a non-atomic batch are still written.
//!
//! The faults are injected at a fixed point: the progress callback runs after every file of
//! the batch has been read and planned, and before anything is written.

use filekit_core::edit::{FileReport, FileStatus};
use filekit_core::{
    Control, Edit, EditOptions, EditRequest, Expected, FileEdits, Workspace, pipeline,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

fn replace(old: &str, new: &str) -> Edit {
    Edit::ReplaceText {
        old: old.into(),
        new: new.into(),
        expected: Expected::Exactly(1),
        label: None,
    }
}

/// Names of filekit's temporary files left anywhere under `dir`.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if e.file_name().to_string_lossy().ends_with(".tmp") {
                out.push(p);
            }
        }
    }
    out
}

/// Applies `edits` (one entry per file) with `fault` run once, after planning and before
/// writing.
fn apply_with_fault(
    root: &Path,
    files: Vec<(&str, Vec<Edit>)>,
    atomic: bool,
    fault: impl FnOnce() + Send + 'static,
) -> Vec<FileReport> {
    let ws = Workspace::new(&[root.to_path_buf()], false).unwrap();
    let total = files.len();
    let fault = Arc::new(Mutex::new(Some(fault)));
    let control = Control::with_progress(move |p| {
        if p.done == total
            && let Some(f) = fault.lock().unwrap().take()
        {
            f();
        }
    });
    let request = EditRequest {
        files: files
            .into_iter()
            .map(|(path, edits)| FileEdits {
                base_hash: None,
                path: path.into(),
                edits,
            })
            .collect(),
        options: EditOptions::builder()
            .atomic(atomic)
            .control(control)
            .build(),
    };
    pipeline::apply(&ws, &request).files
}

fn error_of(r: &FileReport) -> String {
    r.error()
        .as_ref()
        .map(|e| format!("{} {}", e.code.as_str(), e.full_message()))
        .unwrap_or_default()
}

#[test]
fn files_deleted_changed_or_replaced_by_a_directory_mid_batch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for name in ["a", "b", "c", "d", "e"] {
        std::fs::write(root.join(format!("{name}.txt")), "old\n").unwrap();
    }
    let r = root.clone();
    let reports = apply_with_fault(
        &root,
        ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]
            .into_iter()
            .map(|n| (n, vec![replace("old", "new")]))
            .collect(),
        false,
        move || {
            std::fs::remove_file(r.join("b.txt")).unwrap();
            std::fs::remove_file(r.join("c.txt")).unwrap();
            std::fs::create_dir(r.join("c.txt")).unwrap();
            std::fs::write(r.join("d.txt"), "changed by someone else\n").unwrap();
        },
    );
    // The others are written.
    for (i, name) in [(0, "a"), (4, "e")] {
        assert_eq!(
            reports[i].status(),
            FileStatus::Modified,
            "{name}: {}",
            error_of(&reports[i])
        );
        assert!(reports[i].written());
        assert_eq!(
            std::fs::read_to_string(root.join(format!("{name}.txt"))).unwrap(),
            "new\n"
        );
    }
    // Deleted: reported, and not brought back.
    assert_eq!(reports[1].status(), FileStatus::Failed);
    assert!(
        error_of(&reports[1]).starts_with("NOT_FOUND"),
        "{}",
        error_of(&reports[1])
    );
    assert!(!root.join("b.txt").exists(), "a deleted file came back");
    // Replaced by a directory: reported, the directory left alone.
    assert_eq!(reports[2].status(), FileStatus::Failed);
    assert!(
        error_of(&reports[2]).contains("is a directory"),
        "{}",
        error_of(&reports[2])
    );
    assert!(root.join("c.txt").is_dir());
    // Changed: reported as stale, the other process's change kept.
    assert_eq!(reports[3].status(), FileStatus::Failed);
    let e = error_of(&reports[3]);
    assert!(
        e.starts_with("STALE") && e.contains("changed by another process"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("d.txt")).unwrap(),
        "changed by someone else\n"
    );
    assert!(temp_files(&root).is_empty(), "{:?}", temp_files(&root));
}

#[test]
fn atomic_batch_with_a_file_changed_mid_batch_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for name in ["a.txt", "b.txt"] {
        std::fs::write(root.join(name), "old\n").unwrap();
    }
    let r = root.clone();
    let reports = apply_with_fault(
        &root,
        vec![
            ("a.txt", vec![replace("old", "new")]),
            ("b.txt", vec![replace("old", "new")]),
        ],
        true,
        move || std::fs::write(r.join("b.txt"), "changed\n").unwrap(),
    );
    assert!(
        error_of(&reports[1]).starts_with("STALE"),
        "{}",
        error_of(&reports[1])
    );
    assert!(!reports[0].written());
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "old\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("b.txt")).unwrap(),
        "changed\n"
    );
    assert!(temp_files(&root).is_empty());
}

/// A small tmpfs, unmounted when dropped. Mounting needs root with CAP_SYS_ADMIN.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("run mount");
        assert!(
            out.status.success(),
            "cannot mount a small tmpfs to fill ({}): this test needs root with CAP_SYS_ADMIN",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        SmallDisk { dir }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
#[ignore = "needs root (mounts a small tmpfs); .ci/run runs the ignored tests as root"]
fn disk_full_reports_the_file_and_leaves_it_whole() {
    let disk = SmallDisk::mount("256k");
    let root = disk.dir.path().to_path_buf();
    std::fs::write(root.join("small.txt"), "old\n").unwrap();
    std::fs::write(root.join("big.txt"), "old\n").unwrap();
    let huge = "x".repeat(1024 * 1024);
    for atomic in [false, true] {
        let reports = apply_with_fault(
            &root,
            vec![
                ("big.txt", vec![replace("old", &huge)]),
                ("small.txt", vec![replace("old", "new")]),
            ],
            atomic,
            || {},
        );
        let e = error_of(&reports[0]);
        assert!(
            e.contains("disk is full") && e.contains("free some space"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("big.txt")).unwrap(),
            "old\n"
        );
        assert!(temp_files(&root).is_empty(), "{:?}", temp_files(&root));
        if atomic {
            assert!(!reports[1].written());
            assert_eq!(
                std::fs::read_to_string(root.join("small.txt")).unwrap(),
                "old\n"
            );
        } else {
            assert!(reports[1].written(), "{}", error_of(&reports[1]));
            assert_eq!(
                std::fs::read_to_string(root.join("small.txt")).unwrap(),
                "new\n"
            );
            std::fs::write(root.join("small.txt"), "old\n").unwrap();
        }
    }
}
