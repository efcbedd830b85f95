//! Attacks on the workspace sandbox: every way out of a root that file servers have shipped
//! (traversal, prefix matching, symlinks in every position, races) must be refused, and the
//! files outside must stay as they were.

#![cfg(unix)]

use filekit_core::ErrorCode;
use filekit_core::pipeline;
use filekit_core::read::{ReadOptions, read_file};
use filekit_core::workspace::Workspace;
use filekit_core::{Edit, EditOptions, EditRequest};
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

const SECRET: &[u8] = b"top secret\n";

/// A temp dir holding `root/` (the workspace), `root-evil/` (a sibling whose name starts with
/// the root's) and `outside/`, each with a secret file.
struct Fx {
    _tmp: tempfile::TempDir,
    base: PathBuf,
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
        let evil = base.join("root-evil");
        for d in [&root, &outside, &evil] {
            fs::create_dir(d).unwrap();
        }
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::write(evil.join("secret.txt"), SECRET).unwrap();
        fs::create_dir(root.join("src")).unwrap();
        fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        fs::write(root.join("real.txt"), "real\n").unwrap();
        let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        Fx {
            _tmp: tmp,
            base,
            root,
            outside,
            ws,
        }
    }

    fn code(&self, path: &str) -> ErrorCode {
        match self.ws.resolve(path) {
            Ok(p) => panic!(
                "{path} resolved to {} but should be refused",
                p.absolute().display()
            ),
            Err(e) => e.code,
        }
    }

    /// Refused at resolution, refused by a read, and nothing outside changed.
    fn assert_out(&self, path: &str) {
        assert_eq!(self.code(path), ErrorCode::OutOfRoot, "{path}");
        let r = read_file(&self.ws, path, &ReadOptions::default());
        assert_eq!(
            r.error().map(|e| e.code),
            Some(ErrorCode::OutOfRoot),
            "{path}"
        );
        self.assert_outside_intact();
    }

    fn assert_outside_intact(&self) {
        assert_eq!(fs::read(self.outside.join("secret.txt")).unwrap(), SECRET);
        assert_eq!(
            fs::read(self.base.join("root-evil/secret.txt")).unwrap(),
            SECRET
        );
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

    fn rel(&self, path: &str) -> PathBuf {
        self.ws.resolve(path).unwrap().relative().to_path_buf()
    }

    /// A new file written through the pipeline, as every writer writes one.
    fn create(&self, path: &str, bytes: &[u8]) -> Result<(), ErrorCode> {
        self.write(path, bytes, false)
    }

    /// A file written whole through the pipeline, replacing the one there.
    fn overwrite(&self, path: &str, bytes: &[u8]) -> Result<(), ErrorCode> {
        self.write(path, bytes, true)
    }

    fn write(&self, path: &str, bytes: &[u8], overwrite: bool) -> Result<(), ErrorCode> {
        let content = String::from_utf8(bytes.to_vec()).expect("the tests write text");
        let edits = vec![Edit::Create { content, overwrite }];
        let req = EditRequest::one_file(path, edits, EditOptions::default());
        let report = pipeline::apply(&self.ws, &req);
        let file = &report.files[0];
        let failed = file
            .error()
            .or_else(|| file.edits.iter().find_map(|e| e.error.as_ref()));
        match failed {
            None if file.written() => Ok(()),
            None => panic!("{path}: neither written nor refused: {file:?}"),
            Some(e) => Err(e.code),
        }
    }
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

#[test]
fn dot_dot_traversal_is_refused() {
    let fx = Fx::new();
    fx.assert_out("../outside/secret.txt");
    fx.assert_out("src/../../outside/secret.txt");
    fx.assert_out("./../../../../../../etc/passwd");
    fx.assert_out(&format!("{}/../outside/secret.txt", s(&fx.root)));
    fx.assert_out("..");
    // `..` that stays inside is fine.
    assert_eq!(fx.rel("src/../real.txt"), PathBuf::from("real.txt"));
    assert_eq!(fx.rel("./src/./main.rs"), PathBuf::from("src/main.rs"));
    assert_eq!(fx.rel("."), PathBuf::from(""));
}

#[test]
fn absolute_paths_outside_are_refused() {
    let fx = Fx::new();
    fx.assert_out("/etc/passwd");
    fx.assert_out("/");
    fx.assert_out(&s(&fx.outside.join("secret.txt")));
    let e = fx.ws.resolve("/etc/passwd").unwrap_err();
    assert!(
        e.message.contains(&s(&fx.root)),
        "names the allowed roots: {}",
        e.message
    );
    assert!(e.hint.is_some());
    // An absolute path inside is fine.
    let p = fx.ws.resolve(&s(&fx.root.join("src/main.rs"))).unwrap();
    assert_eq!(p.relative(), Path::new("src/main.rs"));
    assert_eq!(p.absolute(), fx.root.join("src/main.rs"));
    assert_eq!(fx.ws.display(&p), s(&fx.root.join("src/main.rs")));
}

#[test]
fn sibling_with_the_roots_name_as_prefix_is_outside() {
    let fx = Fx::new();
    fx.assert_out(&s(&fx.base.join("root-evil/secret.txt")));
    fx.assert_out(&format!("{}-evil/secret.txt", s(&fx.root)));
    fx.assert_out("../root-evil/secret.txt");
    assert_eq!(
        fx.overwrite(&format!("{}-evil/new.txt", s(&fx.root)), b"x"),
        Err(ErrorCode::OutOfRoot)
    );
    assert!(!fx.base.join("root-evil/new.txt").exists());
}

#[test]
fn symlink_to_a_file_outside_is_refused() {
    let fx = Fx::new();
    symlink(fx.outside.join("secret.txt"), fx.root.join("abs_link")).unwrap();
    symlink("../outside/secret.txt", fx.root.join("rel_link")).unwrap();
    fx.assert_out("abs_link");
    fx.assert_out("rel_link");
    let e = fx.ws.resolve("abs_link").unwrap_err();
    assert!(e.message.contains("symbolic link"), "{}", e.message);
    assert_eq!(
        fx.overwrite("abs_link", b"pwned"),
        Err(ErrorCode::OutOfRoot)
    );
    assert_eq!(
        fx.overwrite("rel_link", b"pwned"),
        Err(ErrorCode::OutOfRoot)
    );
    fx.assert_outside_intact();
}

#[test]
fn symlink_to_a_directory_outside_is_refused() {
    let fx = Fx::new();
    symlink(&fx.outside, fx.root.join("abs_dir")).unwrap();
    symlink("../outside", fx.root.join("rel_dir")).unwrap();
    fx.assert_out("abs_dir/secret.txt");
    fx.assert_out("rel_dir/secret.txt");
    fx.assert_out("abs_dir");
    assert_eq!(
        fx.create("abs_dir/new.txt", b"x"),
        Err(ErrorCode::OutOfRoot)
    );
    assert_eq!(
        fx.create("rel_dir/deep/new.txt", b"x"),
        Err(ErrorCode::OutOfRoot)
    );
    fx.assert_outside_intact();
}

#[test]
fn dangling_symlink_leading_outside_is_refused() {
    let fx = Fx::new();
    symlink(fx.outside.join("planted.txt"), fx.root.join("dangling_abs")).unwrap();
    symlink("../outside/planted.txt", fx.root.join("dangling_rel")).unwrap();
    symlink(
        "missing/../../outside/planted.txt",
        fx.root.join("dangling_tricky"),
    )
    .unwrap();
    for link in ["dangling_abs", "dangling_rel", "dangling_tricky"] {
        assert_eq!(fx.code(link), ErrorCode::OutOfRoot, "{link}");
        assert_eq!(fx.create(link, b"x"), Err(ErrorCode::OutOfRoot));
        assert_eq!(fx.overwrite(link, b"x"), Err(ErrorCode::OutOfRoot));
    }
    fx.assert_outside_intact();
}

#[test]
fn dangling_symlink_inside_creates_its_target() {
    let fx = Fx::new();
    symlink("src/new.rs", fx.root.join("dangling_in")).unwrap();
    assert_eq!(fx.rel("dangling_in"), PathBuf::from("src/new.rs"));
    fx.create("dangling_in", b"new\n").unwrap();
    assert_eq!(fs::read(fx.root.join("src/new.rs")).unwrap(), b"new\n");
    assert!(
        fs::symlink_metadata(fx.root.join("dangling_in"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn chained_symlinks_leading_outside_are_refused() {
    let fx = Fx::new();
    // first -> src/second -> ../third -> /outside/secret.txt
    symlink("src/second", fx.root.join("first")).unwrap();
    symlink("../third", fx.root.join("src/second")).unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("third")).unwrap();
    fx.assert_out("first");
    fx.assert_out("src/second");
    // A chain through a directory link: d1 -> d2 -> ../outside
    symlink("d2", fx.root.join("d1")).unwrap();
    symlink("../outside", fx.root.join("d2")).unwrap();
    fx.assert_out("d1/secret.txt");
    assert_eq!(fx.create("d1/x.txt", b"x"), Err(ErrorCode::OutOfRoot));
    fx.assert_outside_intact();
}

#[test]
fn chained_symlinks_inside_resolve_to_the_real_file() {
    let fx = Fx::new();
    symlink("b", fx.root.join("a")).unwrap();
    symlink(fx.root.join("src"), fx.root.join("b")).unwrap();
    assert_eq!(fx.rel("a/main.rs"), PathBuf::from("src/main.rs"));
}

#[test]
fn symlink_in_a_parent_component_is_checked() {
    let fx = Fx::new();
    fs::create_dir_all(fx.root.join("src/deep")).unwrap();
    symlink("../../../outside", fx.root.join("src/deep/up")).unwrap();
    fx.assert_out("src/deep/up/secret.txt");
    // A parent link that stays inside is followed.
    symlink("../..", fx.root.join("src/deep/top")).unwrap();
    assert_eq!(fx.rel("src/deep/top/real.txt"), PathBuf::from("real.txt"));
    // `..` is applied to the text of the path before any link is followed, so it cancels
    // the link rather than climbing from the link's target: these stay inside.
    assert_eq!(
        fx.rel("src/deep/top/../../outside/secret.txt"),
        PathBuf::from("src/outside/secret.txt")
    );
    // The pipeline makes the missing folder where the path lands, inside.
    assert_eq!(fx.create("src/deep/top/../outside/new.txt", b"x"), Ok(()));
    assert!(fx.root.join("src/deep/outside/new.txt").exists());
    // A link target's own `..` climbs from where the link is, and may not leave the root.
    symlink("top/../../..", fx.root.join("src/deep/up2")).unwrap();
    fx.assert_out("src/deep/up2/outside/secret.txt");
    let e = fx
        .ws
        .resolve("src/deep/up2/outside/secret.txt")
        .unwrap_err();
    assert!(
        e.message.contains("src/deep/top") && e.message.contains("symbolic link"),
        "{e}"
    );
    // ..unless it comes straight back in, through the root's own name.
    symlink("../../../root/real.txt", fx.root.join("src/deep/back")).unwrap();
    assert_eq!(fx.rel("src/deep/back"), PathBuf::from("real.txt"));
    symlink(
        "../../../root-evil/secret.txt",
        fx.root.join("src/deep/evil"),
    )
    .unwrap();
    fx.assert_out("src/deep/evil");
    fx.assert_outside_intact();
}

#[test]
fn symlink_inside_pointing_inside_is_followed_and_edits_its_target() {
    let fx = Fx::new();
    symlink("real.txt", fx.root.join("rel_alias")).unwrap();
    symlink(fx.root.join("real.txt"), fx.root.join("abs_alias")).unwrap();
    symlink("src", fx.root.join("srclink")).unwrap();
    assert_eq!(fx.rel("rel_alias"), PathBuf::from("real.txt"));
    assert_eq!(fx.rel("abs_alias"), PathBuf::from("real.txt"));
    assert_eq!(fx.rel("srclink/main.rs"), PathBuf::from("src/main.rs"));
    let p = fx.ws.resolve("abs_alias").unwrap();
    assert_eq!(p.absolute(), fx.root.join("real.txt"));

    // A read through the link reads the target.
    let r = read_file(&fx.ws, "abs_alias", &ReadOptions::default());
    assert_eq!(r.text().unwrap().content, "real\n");
    assert_eq!(
        r.resolved_path.as_deref(),
        Some(s(&fx.root.join("real.txt")).as_str())
    );

    // A write through the link writes the target and keeps the link.
    fx.overwrite("rel_alias", b"changed\n").unwrap();
    assert_eq!(fs::read(fx.root.join("real.txt")).unwrap(), b"changed\n");
    assert!(
        fs::symlink_metadata(fx.root.join("rel_alias"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn symlink_loops_are_refused_not_followed_forever() {
    let fx = Fx::new();
    symlink("loop_b", fx.root.join("loop_a")).unwrap();
    symlink("loop_a", fx.root.join("loop_b")).unwrap();
    symlink(".", fx.root.join("self")).unwrap();
    let e = fx.ws.resolve("loop_a").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.message.contains("symbolic links"), "{}", e.message);
    // A link to its own directory is no loop when walked once.
    assert_eq!(fx.rel("self/self/real.txt"), PathBuf::from("real.txt"));
}

#[test]
fn home_expansion() {
    // The only test in this binary that touches HOME (tests run in parallel threads).
    let fx = Fx::new();
    let home = fx.root.join("home");
    fs::create_dir(&home).unwrap();
    fs::write(home.join("notes.txt"), "n\n").unwrap();
    let old = std::env::var_os("HOME");
    // SAFETY: no other test in this process reads or writes HOME.
    unsafe { std::env::set_var("HOME", &home) };
    assert_eq!(fx.rel("~/notes.txt"), PathBuf::from("home/notes.txt"));
    assert_eq!(fx.rel("~"), PathBuf::from("home"));
    // `~user` is not expanded: it is an ordinary relative name.
    assert_eq!(fx.rel("~other/x"), PathBuf::from("~other/x"));
    unsafe { std::env::set_var("HOME", &fx.outside) };
    assert_eq!(fx.code("~/secret.txt"), ErrorCode::OutOfRoot);
    assert_eq!(fx.code("~"), ErrorCode::OutOfRoot);
    unsafe {
        match old {
            Some(h) => std::env::set_var("HOME", h),
            None => std::env::remove_var("HOME"),
        }
    }
    fx.assert_outside_intact();
}

#[test]
fn nul_bytes_and_empty_paths_are_invalid() {
    let fx = Fx::new();
    assert_eq!(
        fx.code("real.txt\0../../outside/secret.txt"),
        ErrorCode::InvalidArgument
    );
    assert_eq!(fx.code("\0"), ErrorCode::InvalidArgument);
    assert_eq!(fx.code(""), ErrorCode::InvalidArgument);
    let e = fx.ws.resolve("a\0b").unwrap_err();
    assert!(e.message.contains("NUL") && e.hint.is_some());
}

#[test]
fn multiple_roots() {
    let fx = Fx::new();
    let second = fx.base.join("second");
    fs::create_dir(&second).unwrap();
    fs::write(second.join("two.txt"), "two\n").unwrap();
    symlink(fx.root.join("real.txt"), second.join("to_first")).unwrap();
    let ws = Workspace::new(&[fx.root.clone(), second.clone()], false).unwrap();
    assert_eq!(ws.roots(), &[fx.root.clone(), second.clone()]);

    let p = ws.resolve(&s(&second.join("two.txt"))).unwrap();
    assert_eq!(p.root_index(), 1);
    assert_eq!(p.relative(), Path::new("two.txt"));
    let rel = ws.resolve("two.txt").unwrap();
    assert_eq!(
        (rel.root_index(), rel.absolute()),
        (0, fx.root.join("two.txt").as_path())
    );
    assert_eq!(ws.resolve("real.txt").unwrap().root_index(), 0);
    // A link must stay in its own root, even if it points into another allowed root.
    assert_eq!(
        ws.resolve(&s(&second.join("to_first"))).unwrap_err().code,
        ErrorCode::OutOfRoot
    );
    assert_eq!(
        ws.resolve(&s(&fx.outside)).unwrap_err().code,
        ErrorCode::OutOfRoot
    );
    fx.assert_outside_intact();
}

#[test]
fn nested_roots_fall_back_to_the_outer_root() {
    let fx = Fx::new();
    symlink("../real.txt", fx.root.join("src/up")).unwrap();
    let ws = Workspace::new(&[fx.root.join("src"), fx.root.clone()], false).unwrap();
    let p = ws.resolve("up").unwrap();
    assert_eq!((p.root_index(), p.relative()), (1, Path::new("real.txt")));
    let p = ws.resolve(&s(&fx.root.join("src/main.rs"))).unwrap();
    assert_eq!((p.root_index(), p.relative()), (0, Path::new("main.rs")));
}

#[test]
fn roots_must_exist_and_be_directories_and_are_canonical() {
    let fx = Fx::new();
    let e = Workspace::new(&[fx.base.join("nope")], false).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("nope") && e.hint.is_some());
    let e = Workspace::new(&[fx.root.join("real.txt")], false).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(
        Workspace::new(&[], false).unwrap_err().code,
        ErrorCode::InvalidArgument
    );

    // A root given through a symlink is canonical, and both spellings resolve.
    symlink(&fx.root, fx.base.join("root_link")).unwrap();
    let ws = Workspace::new(&[fx.base.join("root_link/./src/..")], false).unwrap();
    assert_eq!(ws.roots(), std::slice::from_ref(&fx.root));
    let p = ws.resolve(&s(&fx.base.join("root_link/real.txt"))).unwrap();
    assert_eq!(p.absolute(), fx.root.join("real.txt"));
    assert_eq!(ws.resolve(&s(&fx.root.join("real.txt"))).unwrap(), p);
}

#[test]
fn executable_bit_survives_a_write() {
    let fx = Fx::new();
    let target = fx.root.join("run.sh");
    fs::write(&target, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
    fx.overwrite("run.sh", b"#!/bin/sh\necho hi\n").unwrap();
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o755
    );
}

#[test]
fn read_errors_are_mapped() {
    let fx = Fx::new();
    let e = fx.ws.read(&fx.ws.resolve("src").unwrap()).unwrap_err();
    assert_eq!(e.code, ErrorCode::IsDirectory);
    assert!(e.hint.as_deref().unwrap().contains("list"));

    let e = fx
        .ws
        .read(&fx.ws.resolve("src/mian.rs").unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(
        e.hint
            .as_deref()
            .unwrap()
            .contains(&s(&fx.root.join("src/main.rs"))),
        "{e}"
    );

    // A missing directory part: the suggestion keeps the rest of the path.
    let e = fx
        .ws
        .read(&fx.ws.resolve("scr/main.rs").unwrap())
        .unwrap_err();
    assert!(
        e.hint
            .as_deref()
            .unwrap()
            .contains(&s(&fx.root.join("src/main.rs"))),
        "{e}"
    );

    let e = fx
        .ws
        .read(&fx.ws.resolve("zzzzzz.txt").unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.hint.as_deref().unwrap().contains("list"), "{e}");

    let e = fx
        .ws
        .read(&fx.ws.resolve("real.txt/x").unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);

    assert!(
        fx.ws
            .metadata(&fx.ws.resolve("nope").unwrap())
            .unwrap()
            .is_none()
    );
    assert!(
        fx.ws
            .metadata(&fx.ws.resolve(".").unwrap())
            .unwrap()
            .unwrap()
            .is_dir
    );

    let fb = fx.ws.read(&fx.ws.resolve("real.txt").unwrap()).unwrap();
    assert_eq!((fb.bytes.as_slice(), fb.meta.len), (&b"real\n"[..], 5));
}

#[test]
fn special_files_are_not_opened() {
    let fx = Fx::new();
    let fifo = fx.root.join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    // Opening a FIFO for reading would block until a writer came.
    let e = fx.ws.read(&fx.ws.resolve("fifo").unwrap()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}

#[test]
fn a_walk_path_opened_for_reading_names_what_resolving_it_would() {
    use std::io::Read;
    let fx = Fx::new();
    fs::create_dir(fx.root.join("src/deep")).unwrap();
    fs::write(fx.root.join("src/deep/x.rs"), "x\n").unwrap();
    symlink("deep", fx.root.join("src/linked")).unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("src/leak.txt")).unwrap();
    symlink(&fx.outside, fx.root.join("out")).unwrap();

    for path in ["src/main.rs", "real.txt", "src/deep/x.rs"] {
        let (mut file, found) = fx
            .ws
            .open_resolved(Path::new(path))
            .unwrap_or_else(|| panic!("{path} opens"));
        assert_eq!(found.path(), fx.ws.resolve(path).unwrap(), "{path}");
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text.as_bytes(), fs::read(fx.root.join(path)).unwrap());
    }
    // A link anywhere on the way, a path that is not plain, or nothing there: not this way
    // (the caller resolves such a path, which follows links inside the root and refuses the
    // rest).
    for path in [
        "src/linked/x.rs",
        "src/leak.txt",
        "out/secret.txt",
        "./real.txt",
        "src/../real.txt",
        "../outside/secret.txt",
        "/etc/passwd",
        "src/missing.rs",
        "",
    ] {
        assert!(fx.ws.open_resolved(Path::new(path)).is_none(), "{path}");
    }
    assert_eq!(
        fx.ws.resolve("src/linked/x.rs").unwrap().relative(),
        Path::new("src/deep/x.rs")
    );
    // With nested roots, the innermost root names a path: resolved, not taken from the open.
    let nested = Workspace::new(&[fx.root.clone(), fx.root.join("src")], false).unwrap();
    assert!(nested.open_resolved(Path::new("src/main.rs")).is_none());
    assert_eq!(nested.resolve("src/main.rs").unwrap().root_index(), 1);
    fx.assert_outside_intact();
}
