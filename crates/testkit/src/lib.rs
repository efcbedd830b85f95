//! What filekit's test suites share (a dev-dependency only; never part of a build users get).
//!
//! The tests come in two stages. The **hermetic** stage (`cargo test --workspace`) needs
//! nothing but the repository: no network, nothing installed, nothing read outside the
//! checkout and the scratch folders the tests make. The **judged** stage (each crate's
//! `judged` test target, built with the `judged` feature) asks real tools for a verdict:
//! the TypeScript compiler, pyflakes, language servers, the official MCP clients and peer
//! servers, registry packages as corpora. Its tools come from `scripts/setup-test-deps`,
//! which fills `.test-deps/` and `.venv/`; [`test_dep`] is how a judged test finds one, and
//! it fails (never skips) with what to run when the tool is missing.
//!
//! ```no_run
//! let rxjs = filekit_testkit::test_dep("node_modules/rxjs");
//! let scratch = tempfile_like_dir();
//! filekit_testkit::copy_dir(&rxjs.join("src"), &scratch);
//! let errors = filekit_testkit::tsc_errors(&scratch, "tsconfig.base.json");
//! assert!(errors.is_empty(), "{errors:?}");
//! # fn tempfile_like_dir() -> std::path::PathBuf { unimplemented!() }
//! ```

pub mod function_length;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root folder.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// `path`, which `scripts/setup-test-deps` installs; fails with what to run when it is
/// missing.
pub fn need(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup-test-deps once (it installs the tools and corpora \
         of the judged test stage into .test-deps/ and .venv/)",
        path.display()
    );
    path
}

/// A file or folder of `.test-deps/` (`"node_modules/.bin/tsc"`, `"python/urllib3-2.2.3"`).
pub fn test_dep(rel: &str) -> PathBuf {
    need(repo().join(".test-deps").join(rel))
}

/// The Node.js the judged stage runs its npm tools on (22, installed from npm by
/// `scripts/setup-test-deps`: many machines have an older one).
pub fn node() -> PathBuf {
    test_dep("mcp-node/node_modules/.bin/node")
}

/// The Python of the repository's `.venv` (the MCP SDK, pytest, pyflakes).
pub fn venv_python() -> PathBuf {
    need(repo().join(".venv/bin/python"))
}

/// The site-packages folder of the repository's `.venv`.
pub fn site_packages() -> PathBuf {
    let lib = need(repo().join(".venv/lib"));
    std::fs::read_dir(&lib)
        .expect("reading .venv/lib")
        .map(|e| e.expect("an entry of .venv/lib").path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python"))
        })
        .expect(".venv/lib/python3.x")
        .join("site-packages")
}

/// The newest unpacked version of a crate in the cargo registry (judged stage only: the
/// registry is outside the repository).
pub fn krate(name: &str) -> PathBuf {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cargo"));
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .expect("the cargo registry")
        .flat_map(|d| {
            std::fs::read_dir(d.expect("a registry index").path())
                .into_iter()
                .flatten()
        })
        .map(|e| e.expect("a registry entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| panic!("crate {name} is not in the cargo registry (cargo fetch)"))
}

/// Copies the folder `from` to `to`, leaving out Python's `__pycache__` (a judge compiles
/// afresh) and following no link.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("creating {}: {e}", to.display()));
    for entry in
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()))
    {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("an entry's type");
        if kind.is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("copying {}: {e}", entry.path().display()));
        }
    }
}

/// One error `tsc --noEmit` reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TscError {
    /// The file, as tsc names it (relative to the folder it ran in).
    pub file: String,
    pub line: usize,
    /// `TS2304` and the like.
    pub code: String,
    pub message: String,
}

/// Runs the judged stage's TypeScript compiler (`--noEmit --pretty false -p project`) in
/// `dir` and returns its errors.
pub fn tsc_errors(dir: &Path, project: &str) -> Vec<TscError> {
    let tsc = test_dep("node_modules/typescript/bin/tsc");
    let out = Command::new(node())
        .arg(tsc)
        .args(["--noEmit", "--pretty", "false", "-p", project])
        .current_dir(dir)
        .output()
        .expect("node runs tsc");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (loc, rest) = l.split_once("): error ")?;
            let (file, pos) = loc.rsplit_once('(')?;
            let line = pos.split(',').next()?.parse().ok()?;
            let (code, message) = rest.split_once(": ")?;
            Some(TscError {
                file: file.to_string(),
                line,
                code: code.to_string(),
                message: message.to_string(),
            })
        })
        .collect()
}

/// Fails when a `.rs` file of `dir` is not declared as a module in `declared` (the source of
/// the test binary's root, `include_str!`d): with `autotests = false`, an undeclared file
/// would silently never run. `except` names files that are roots or shared helpers.
pub fn assert_every_test_file_declared(dir: &Path, declared: &str, except: &[&str]) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
    {
        let name = entry
            .expect("a folder entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if except.contains(&module) {
            continue;
        }
        assert!(
            declared.contains(&format!("\nmod {module};\n")),
            "{}/{name} is not a module of its test binary: declare `mod {module};` in its root",
            dir.display()
        );
    }
}
