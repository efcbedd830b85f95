//! The staging primitive of every write (`Workspace::stage` and `PendingWrite::commit`, which
//! only the commit step calls): atomic replacement, permissions, no trace when dropped, the
//! write modes, and the races between staging and committing (a file or a link planted at the
//! target, a directory swapped for a link). Attacks through the public API are in
//! `tests/sandbox.rs`.

use super::*;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

const SECRET: &[u8] = b"top secret\n";

/// A temp dir holding `root/` (the workspace) and `outside/` with a secret file.
struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    ws: Workspace,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        for d in [&root, &outside] {
            fs::create_dir(d).unwrap();
        }
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::create_dir(root.join("src")).unwrap();
        fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        fs::write(root.join("real.txt"), "real\n").unwrap();
        let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        Fx {
            _tmp: tmp,
            root,
            outside,
            ws,
        }
    }

    fn assert_outside_intact(&self) {
        assert_eq!(fs::read(self.outside.join("secret.txt")).unwrap(), SECRET);
        let outside: Vec<_> = fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            outside,
            vec!["secret.txt"],
            "nothing may be created outside"
        );
    }

    fn write(&self, path: &str, bytes: &[u8], mode: WriteMode) -> Result<(), ErrorCode> {
        let p = self.ws.resolve(path).map_err(|e| e.code)?;
        let w = self.ws.stage(&p, bytes, mode, true).map_err(|e| e.code)?;
        w.commit().map(|_| ()).map_err(|e| e.code)
    }
}

fn dir_names(p: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn read_only_workspace_refuses_to_stage() {
    let fx = Fx::new();
    let ws = Workspace::new(std::slice::from_ref(&fx.root), true).unwrap();
    assert!(ws.read_only());
    let p = ws.resolve("real.txt").unwrap();
    let e = ws.stage(&p, b"x", WriteMode::Replace, false).unwrap_err();
    assert_eq!(e.code, ErrorCode::ReadOnly);
    assert!(e.hint.is_some());
    let p = ws.resolve("new.txt").unwrap();
    assert_eq!(
        ws.stage(&p, b"x", WriteMode::CreateNew, true)
            .unwrap_err()
            .code,
        ErrorCode::ReadOnly
    );
    assert_eq!(fs::read(fx.root.join("real.txt")).unwrap(), b"real\n");
    assert_eq!(dir_names(&fx.root), vec!["real.txt", "src"]);
    // Reads still work.
    assert!(ws.read(&ws.resolve("real.txt").unwrap()).is_ok());
}

#[test]
fn filekit_own_directory_is_not_writable() {
    let fx = Fx::new();
    fs::create_dir(fx.root.join(".filekit")).unwrap();
    fs::write(fx.root.join(".filekit/history.db"), "db").unwrap();
    for path in [
        ".filekit/history.db",
        ".filekit/new",
        ".filekit/a/b",
        "src/../.filekit/x",
    ] {
        let e = fx
            .ws
            .stage(
                &fx.ws.resolve(path).unwrap(),
                b"x",
                WriteMode::CreateOrReplace,
                true,
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::OutOfRoot, "{path}");
        assert!(e.message.contains(".filekit/"), "{}", e.message);
    }
    // Not through a link either: the link resolves into .filekit/.
    symlink(".filekit/history.db", fx.root.join("sneaky")).unwrap();
    assert_eq!(
        fx.write("sneaky", b"x", WriteMode::Replace),
        Err(ErrorCode::OutOfRoot)
    );
    assert_eq!(
        fs::read(fx.root.join(".filekit/history.db")).unwrap(),
        b"db"
    );
    assert_eq!(dir_names(&fx.root.join(".filekit")), vec!["history.db"]);
    // A nested directory of the same name is an ordinary directory.
    fx.write("src/.filekit/ok.txt", b"ok", WriteMode::CreateNew)
        .unwrap();
}

#[test]
fn stage_and_commit_replace_atomically_and_keep_permissions() {
    let fx = Fx::new();
    let target = fx.root.join("src/main.rs");
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    let p = fx.ws.resolve("src/main.rs").unwrap();
    let pending = fx
        .ws
        .stage(&p, b"fn main() { run() }\n", WriteMode::Replace, false)
        .unwrap();
    // Staged, not visible: the target is unchanged and one temporary file sits beside it.
    assert_eq!(fs::read(&target).unwrap(), b"fn main() {}\n");
    let names = dir_names(&fx.root.join("src"));
    assert_eq!(names.len(), 2, "{names:?}");
    let meta = pending.commit().unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"fn main() { run() }\n");
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    assert_eq!(
        dir_names(&fx.root.join("src")),
        vec!["main.rs"],
        "no temp file left"
    );
    assert_eq!(meta.len, 20);
    assert!(meta.is_file && !meta.is_dir);
    let m = fx.ws.metadata(&p).unwrap().unwrap();
    assert_eq!(m.len, 20);
    // What the commit reports (measured on the staged file) is the file now at the name.
    assert_eq!(
        (meta.ino, meta.mode, meta.modified),
        (m.ino, m.mode, m.modified)
    );
    assert_eq!(
        m.modified,
        fs::metadata(&target).unwrap().modified().unwrap()
    );
}

#[test]
fn dropping_a_staged_write_leaves_no_trace() {
    let fx = Fx::new();
    let before = dir_names(&fx.root);
    let p = fx.ws.resolve("real.txt").unwrap();
    let pending = fx
        .ws
        .stage(&p, b"never\n", WriteMode::Replace, false)
        .unwrap();
    assert_eq!(dir_names(&fx.root).len(), before.len() + 1);
    drop(pending);
    assert_eq!(fs::read(fx.root.join("real.txt")).unwrap(), b"real\n");
    assert_eq!(dir_names(&fx.root), before);

    let p = fx.ws.resolve("brand_new.txt").unwrap();
    drop(fx.ws.stage(&p, b"x", WriteMode::CreateNew, false).unwrap());
    assert_eq!(dir_names(&fx.root), before);
}

#[test]
fn write_modes_check_what_is_at_the_target() {
    let fx = Fx::new();
    let e = fx
        .ws
        .stage(
            &fx.ws.resolve("real.txt").unwrap(),
            b"x",
            WriteMode::CreateNew,
            false,
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("already exists") && e.hint.is_some());
    assert_eq!(fs::read(fx.root.join("real.txt")).unwrap(), b"real\n");

    assert_eq!(
        fx.write("missing.txt", b"x", WriteMode::Replace),
        Err(ErrorCode::NotFound)
    );
    assert!(!fx.root.join("missing.txt").exists());

    assert_eq!(
        fx.write("src", b"x", WriteMode::CreateOrReplace),
        Err(ErrorCode::IsDirectory)
    );
    assert_eq!(
        fx.write(".", b"x", WriteMode::CreateOrReplace),
        Err(ErrorCode::IsDirectory)
    );

    // Parents are created only when asked.
    let p = fx.ws.resolve("a/b/c.txt").unwrap();
    let e = fx
        .ws
        .stage(&p, b"x", WriteMode::CreateNew, false)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(!fx.root.join("a").exists());
    fx.ws
        .stage(&p, b"abc", WriteMode::CreateNew, true)
        .unwrap()
        .commit()
        .unwrap();
    assert_eq!(fs::read(fx.root.join("a/b/c.txt")).unwrap(), b"abc");

    // A file where a directory should be.
    assert_eq!(
        fx.write("real.txt/x.txt", b"x", WriteMode::CreateNew),
        Err(ErrorCode::Conflict)
    );
    assert_eq!(fs::read(fx.root.join("real.txt")).unwrap(), b"real\n");

    fx.write("fresh.txt", b"1", WriteMode::CreateOrReplace)
        .unwrap();
    fx.write("fresh.txt", b"2", WriteMode::CreateOrReplace)
        .unwrap();
    assert_eq!(fs::read(fx.root.join("fresh.txt")).unwrap(), b"2");
}

#[test]
fn create_new_does_not_overwrite_a_file_that_appeared_after_staging() {
    let fx = Fx::new();
    let p = fx.ws.resolve("race.txt").unwrap();
    let pending = fx
        .ws
        .stage(&p, b"mine", WriteMode::CreateNew, false)
        .unwrap();
    fs::write(fx.root.join("race.txt"), "theirs").unwrap();
    assert_eq!(pending.commit().unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(fs::read(fx.root.join("race.txt")).unwrap(), b"theirs");
    assert_eq!(dir_names(&fx.root), vec!["race.txt", "real.txt", "src"]);
}

#[test]
fn symlink_planted_at_the_target_after_resolve_is_not_followed() {
    let fx = Fx::new();
    let p = fx.ws.resolve("planted.txt").unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("planted.txt")).unwrap();
    for mode in [
        WriteMode::CreateNew,
        WriteMode::CreateOrReplace,
        WriteMode::Replace,
    ] {
        let e = fx.ws.stage(&p, b"pwned", mode, false).unwrap_err();
        assert!(matches!(e.code, ErrorCode::Conflict), "{mode:?}: {e}");
    }
    // Also when the link appears between stage and commit: the rename replaces the link
    // itself and never writes through it.
    let p = fx.ws.resolve("later.txt").unwrap();
    let pending = fx
        .ws
        .stage(&p, b"mine", WriteMode::CreateOrReplace, false)
        .unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("later.txt")).unwrap();
    pending.commit().unwrap();
    assert!(
        fs::symlink_metadata(fx.root.join("later.txt"))
            .unwrap()
            .is_file()
    );
    fx.assert_outside_intact();
}

#[test]
fn directory_swapped_for_a_symlink_after_resolve_cannot_lead_out() {
    let fx = Fx::new();
    fs::create_dir(fx.root.join("victim")).unwrap();
    fs::write(fx.root.join("victim/secret.txt"), "inside\n").unwrap();
    let read_target = fx.ws.resolve("victim/secret.txt").unwrap();
    let write_target = fx.ws.resolve("victim/new.txt").unwrap();
    // The race: the checked directory is replaced by a link to the outside.
    fs::rename(fx.root.join("victim"), fx.root.join("moved")).unwrap();
    symlink(&fx.outside, fx.root.join("victim")).unwrap();

    match fx.ws.read(&read_target) {
        Ok(fb) => assert_ne!(fb.bytes, SECRET, "read followed a swapped-in link outside"),
        Err(e) => assert_ne!(e.code, ErrorCode::NotFound, "{e}"),
    }
    assert!(fx.ws.open(&read_target).is_err());
    let staged = fx
        .ws
        .stage(&write_target, b"pwned", WriteMode::CreateNew, false);
    if let Ok(w) = staged {
        let _ = w.commit();
    }
    fx.assert_outside_intact();
}
