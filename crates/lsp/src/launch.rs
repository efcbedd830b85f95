//! Which program may be started as a language server, and with what `PATH`.
//!
//! A language server runs the workspace's code: it reads the project's configuration, asks
//! its toolchain (`rust-toolchain.toml` chooses rust-analyzer's), loads its compiler and
//! plugins (typescript-language-server prefers the project's own `node_modules/typescript`),
//! runs its interpreter (pyright) and build scripts. The caller asks for one only when the
//! person who started filekit trusts the workspace (`filekit_errors::Workspace::is_trusted`, which this crate does not link).
//! Even then the workspace does not choose the program:
//!
//! - the executable is looked up here, never by the system: only absolute `PATH` entries
//!   whose directory (resolved) lies outside every root are searched (an empty or relative
//!   entry means "the working directory", which is a root), and an executable whose real file
//!   lies inside a root is passed over. What was passed over, and why, is kept for the reply.
//! - the server's own `PATH` is the same filtered list, so the interpreter of a script server
//!   (`#!/usr/bin/env node`), the `python3` pyright runs and the `cargo` rust-analyzer runs
//!   are found outside the roots too.
//! - the choices a workspace makes through the server are pinned: a rustup proxy is resolved
//!   to its toolchain's binary under the user's toolchain (`RUSTUP_TOOLCHAIN`, also given to
//!   the server, so a `rust-toolchain.toml` of the workspace chooses nothing), and
//!   typescript-language-server gets the TypeScript installed beside it (`tsserver.path`),
//!   never the workspace's `node_modules/typescript` and its plugins, and no automatic typings
//!   acquisition (which runs npm).

use crate::ServerKind;
use filekit_errors::{ErrorCode, FkError};
use serde_json::{Value, json};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A candidate executable that was not started, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    pub candidate: PathBuf,
    pub why: String,
}

impl PassedOver {
    fn json(&self) -> Value {
        json!({"candidate": self.candidate.to_string_lossy(), "why": self.why})
    }
}

/// A language server that may be started: its executable (an absolute path outside every
/// root), the environment its process gets, and the initialization options that pin what it
/// would otherwise take from the workspace.
#[derive(Debug, Clone)]
pub struct Launch {
    pub kind: ServerKind,
    /// What is executed.
    pub exe: PathBuf,
    /// Candidates found before it (earlier on PATH) that were passed over.
    pub passed_over: Vec<PassedOver>,
    /// The server's `PATH`: the absolute entries outside every root.
    pub(crate) path: OsString,
    /// Variables set for the server (the pinned toolchain).
    pub(crate) env: Vec<(OsString, OsString)>,
    /// Merged into the `initializationOptions` of `initialize`.
    pub(crate) init_options: Value,
}

impl Launch {
    /// A line for a reply about what was passed over, if anything was.
    pub fn warning(&self) -> Option<String> {
        if self.passed_over.is_empty() {
            return None;
        }
        Some(format!(
            "started {} and passed over {}",
            self.exe.display(),
            describe(&self.passed_over)
        ))
    }
}

fn describe(passed: &[PassedOver]) -> String {
    passed
        .iter()
        .map(|p| format!("{} ({})", p.candidate.display(), p.why))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The entries of a `PATH` value judged against the roots.
#[derive(Debug, Clone, Default)]
pub struct SearchPath {
    /// Absolute directories outside every root (resolved), in order.
    dirs: Vec<PathBuf>,
    /// Entries left out because of where they are: (the entry as given, the directory a
    /// program there would be looked up in, why).
    left_out: Vec<(PathBuf, String)>,
}

/// The root that `p` (resolved) lies in, if any.
fn inside<'a>(p: &Path, roots: &'a [PathBuf]) -> Option<&'a PathBuf> {
    roots.iter().find(|r| p.starts_with(r))
}

impl SearchPath {
    /// Judges each entry of `path` (a `PATH` value): empty and relative entries are left out
    /// (they name the working directory, which is a root), so are entries whose directory
    /// lies inside a root (resolved, links followed) and entries that do not exist.
    pub fn new(path: &OsStr, roots: &[PathBuf]) -> SearchPath {
        let mut out = SearchPath::default();
        for entry in std::env::split_paths(path) {
            if entry.as_os_str().is_empty() {
                out.left_out.push((
                    PathBuf::new(),
                    "found through an empty PATH entry, which means the working directory (a \
                     workspace root)"
                        .into(),
                ));
                continue;
            }
            if entry.is_relative() {
                let why = format!(
                    "found through the relative PATH entry `{}`, which names a directory of \
                     the working directory (a workspace root)",
                    entry.display()
                );
                out.left_out.push((entry, why));
                continue;
            }
            // A directory that does not exist holds no program; one inside a root could be
            // made by the workspace later, so none is kept.
            let Ok(dir) = entry.canonicalize() else {
                continue;
            };
            match inside(&dir, roots) {
                Some(r) => {
                    let why = format!(
                        "its PATH entry {} is inside the workspace root {}",
                        entry.display(),
                        r.display()
                    );
                    out.left_out.push((entry, why));
                }
                None => {
                    if !out.dirs.contains(&dir) {
                        out.dirs.push(dir);
                    }
                }
            }
        }
        out
    }

    /// The `PATH` value for a program started with these entries.
    pub fn value(&self) -> OsString {
        std::env::join_paths(&self.dirs).unwrap_or_default()
    }

    /// Finds `name` in the kept directories: the first executable whose real file lies outside
    /// every root. Candidates passed over on the way (in the left-out entries too, looked up
    /// against the working directory and each root) are listed, in PATH order.
    pub fn find(&self, name: &str, roots: &[PathBuf]) -> (Option<PathBuf>, Vec<PassedOver>) {
        let mut passed = Vec::new();
        let cwd = std::env::current_dir().ok();
        for (entry, why) in &self.left_out {
            let bases = cwd.iter().chain(roots);
            let mut seen = Vec::new();
            for base in bases {
                let c = base.join(entry).join(name);
                if is_executable(&c) && !seen.contains(&c) {
                    seen.push(c.clone());
                    passed.push(PassedOver {
                        candidate: c,
                        why: why.clone(),
                    });
                }
            }
        }
        for dir in &self.dirs {
            let c = dir.join(name);
            if !is_executable(&c) {
                continue;
            }
            let real = match c.canonicalize() {
                Ok(r) => r,
                Err(_) => continue,
            };
            if let Some(r) = inside(&real, roots) {
                passed.push(PassedOver {
                    why: format!(
                        "it is {}, inside the workspace root {}",
                        real.display(),
                        r.display()
                    ),
                    candidate: c,
                });
                continue;
            }
            return (Some(c), passed);
        }
        (None, passed)
    }
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Finds the server of `kind` for a workspace over `roots` (canonical), with `path` as the
/// `PATH` to search, and pins its choices (see the module documentation).
pub fn locate(kind: ServerKind, path: &OsStr, roots: &[PathBuf]) -> Result<Launch, FkError> {
    let search = SearchPath::new(path, roots);
    let (exe_name, _) = kind.command();
    let (found, passed_over) = search.find(exe_name, roots);
    let Some(exe) = found else {
        return Err(missing(kind, &passed_over));
    };
    let mut launch = Launch {
        kind,
        exe,
        passed_over,
        path: search.value(),
        env: Vec::new(),
        init_options: json!({}),
    };
    match kind {
        ServerKind::Rust => pin_rustup(&mut launch, &search, roots)?,
        ServerKind::TypeScript => pin_typescript(&mut launch, roots)?,
        ServerKind::Python => {}
    }
    Ok(launch)
}

/// The error of a server that was not found, naming what was passed over.
fn missing(kind: ServerKind, passed: &[PassedOver]) -> FkError {
    let (exe, _) = kind.command();
    let message = if passed.is_empty() {
        format!("`{exe}` is not on PATH")
    } else {
        format!(
            "no `{exe}` outside the workspace was found on PATH; passed over {} (a program of \
             the workspace is never started)",
            describe(passed)
        )
    };
    FkError::new(ErrorCode::NotFound, message)
        .with_hint(format!(
            "install it ({}) in a directory outside the workspace and put that directory on \
             PATH by its absolute name",
            kind.install_hint()
        ))
        .with_details(json!({
            "server": exe,
            "install": kind.install_hint(),
            "passed_over": passed.iter().map(PassedOver::json).collect::<Vec<_>>(),
        }))
}

/// How long a helper program (rustup) may take to answer.
const HELPER_TIMEOUT: Duration = Duration::from_secs(20);

/// Runs a helper outside the workspace (working directory `/`, the filtered PATH) and gives
/// its standard output, or why it failed.
fn helper_output(exe: &Path, args: &[&str], launch: &Launch) -> Result<String, String> {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .current_dir("/")
        .env("PATH", &launch.path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &launch.env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", exe.display()))?;
    let deadline = Instant::now() + HELPER_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} {} did not answer within {} s",
                    exe.display(),
                    args.join(" "),
                    HELPER_TIMEOUT.as_secs()
                ));
            }
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!(
            "{} {} failed: {}",
            exe.display(),
            args.join(" "),
            first.trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether `exe` is a rustup proxy (a link to, or a copy under another name of, rustup):
/// the rustup it is, if so.
fn rustup_of(exe: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let real = exe.canonicalize().ok()?;
    let name = real.file_name()?.to_string_lossy();
    if name == "rustup" || name == "rustup-init" {
        return Some(real);
    }
    // A hard link: the same file as the `rustup` beside it.
    let sibling = exe.parent()?.join("rustup");
    let (a, b) = (
        std::fs::metadata(&real).ok()?,
        std::fs::metadata(&sibling).ok()?,
    );
    (a.dev() == b.dev() && a.ino() == b.ino()).then(|| sibling.canonicalize().ok())?
}

/// rust-analyzer: a rustup proxy runs the toolchain the working directory's
/// `rust-toolchain.toml` names (which may be a path into the workspace), and so do the
/// `cargo` and `rustc` proxies the server runs. The user's toolchain (their
/// `RUSTUP_TOOLCHAIN`, else rustup's active toolchain outside the workspace) is pinned for the
/// server's whole process tree, and a proxy is replaced by the binary it would run.
fn pin_rustup(launch: &mut Launch, search: &SearchPath, roots: &[PathBuf]) -> Result<(), FkError> {
    let proxy = rustup_of(&launch.exe);
    let rustup = match &proxy {
        Some(r) => Some(r.clone()),
        None => search.find("rustup", roots).0,
    };
    let Some(rustup) = rustup else {
        // No rustup: nothing reads a toolchain file.
        return Ok(());
    };
    let fail = |message: String| {
        FkError::new(ErrorCode::NotFound, message)
            .with_hint(ServerKind::Rust.install_hint())
            .with_details(
                json!({"server": "rust-analyzer", "install": ServerKind::Rust.install_hint()}),
            )
    };
    // No toolchain is downloaded on the workspace's word.
    launch.env.push(("RUSTUP_AUTO_INSTALL".into(), "0".into()));
    let toolchain = match std::env::var_os("RUSTUP_TOOLCHAIN").filter(|t| !t.is_empty()) {
        Some(t) => t,
        None => {
            let shown = helper_output(&rustup, &["show", "active-toolchain"], launch)
                .map_err(|e| fail(format!("cannot tell rustup's toolchain: {e}")))?;
            match shown.split_whitespace().next() {
                Some(t) => t.into(),
                None => return Err(fail("rustup names no active toolchain".into())),
            }
        }
    };
    launch
        .env
        .push(("RUSTUP_TOOLCHAIN".into(), toolchain.clone()));
    if proxy.is_some() {
        let which = helper_output(&rustup, &["which", "rust-analyzer"], launch).map_err(|e| {
            fail(format!(
                "rust-analyzer is not installed for the toolchain {}: {e}",
                toolchain.to_string_lossy()
            ))
        })?;
        let real = PathBuf::from(&which);
        let canonical = real
            .canonicalize()
            .map_err(|e| fail(format!("rustup names {which} for rust-analyzer: {e}")))?;
        if let Some(r) = inside(&canonical, roots) {
            return Err(missing(
                ServerKind::Rust,
                &[PassedOver {
                    candidate: real,
                    why: format!(
                        "the toolchain {} has it inside the workspace root {}",
                        toolchain.to_string_lossy(),
                        r.display()
                    ),
                }],
            ));
        }
        launch.exe = real;
    }
    Ok(())
}

/// typescript-language-server: it takes the workspace's `node_modules/typescript` (and with
/// it tsserver plugins found there) before its own. It is given the TypeScript beside it,
/// found as Node finds its own `require("typescript")`, outside every root.
fn pin_typescript(launch: &mut Launch, roots: &[PathBuf]) -> Result<(), FkError> {
    let script = launch
        .exe
        .canonicalize()
        .unwrap_or_else(|_| launch.exe.clone());
    let mut passed = Vec::new();
    for dir in script.ancestors().skip(1) {
        if dir.file_name() == Some(OsStr::new("node_modules")) {
            continue;
        }
        let tsserver = dir.join("node_modules/typescript/lib/tsserver.js");
        let Ok(real) = tsserver.canonicalize() else {
            continue;
        };
        if let Some(r) = inside(&real, roots) {
            passed.push(PassedOver {
                candidate: tsserver,
                why: format!("it is inside the workspace root {}", r.display()),
            });
            continue;
        }
        launch.init_options = json!({
            "tsserver": {"path": real.to_string_lossy()},
            "disableAutomaticTypingAcquisition": true
        });
        return Ok(());
    }
    let mut message = format!(
        "typescript-language-server ({}) has no TypeScript of its own outside the workspace: it \
         would load the workspace's node_modules/typescript",
        launch.exe.display()
    );
    if !passed.is_empty() {
        message.push_str(&format!("; passed over {}", describe(&passed)));
    }
    Err(FkError::new(ErrorCode::NotFound, message)
        .with_hint(
            "install typescript beside it: npm install -g typescript typescript-language-server",
        )
        .with_details(json!({
            "server": "typescript-language-server",
            "install": ServerKind::TypeScript.install_hint(),
            "passed_over": passed.iter().map(PassedOver::json).collect::<Vec<_>>(),
        })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn entries_inside_the_roots_relative_or_empty_are_left_out() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("tools");
        exe(&root.join("node_modules/.bin/srv"));
        exe(&outside.join("srv"));
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let path = std::env::join_paths([
            PathBuf::from(""),
            PathBuf::from("bin"),
            root.join("node_modules/.bin"),
            outside.clone(),
            base.join("missing"),
        ])
        .unwrap();
        let roots = vec![root.clone()];
        let s = SearchPath::new(&path, &roots);
        assert_eq!(s.value(), outside.as_os_str());
        let (found, passed) = s.find("srv", &roots);
        assert_eq!(found, Some(outside.join("srv")));
        assert_eq!(passed.len(), 1, "{passed:?}");
        assert_eq!(passed[0].candidate, root.join("node_modules/.bin/srv"));
        assert!(passed[0].why.contains("inside the workspace root"));
    }

    #[test]
    fn a_link_out_of_a_kept_directory_into_a_root_is_passed_over() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let root = base.join("root");
        exe(&root.join("evil"));
        std::fs::create_dir_all(base.join("tools")).unwrap();
        std::os::unix::fs::symlink(root.join("evil"), base.join("tools/srv")).unwrap();
        let roots = vec![root.clone()];
        let s = SearchPath::new(base.join("tools").as_os_str(), &roots);
        let (found, passed) = s.find("srv", &roots);
        assert_eq!(found, None);
        assert!(
            passed[0]
                .why
                .contains(&root.join("evil").display().to_string())
        );
    }
}
