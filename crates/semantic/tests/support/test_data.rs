//! Where the tests that read real files find them: the repository's `.test-deps` and
//! `.venv` (filled by `scripts/setup-test-deps`) and the cargo registry. Included with
//! `#[path]` by `crates/semantic/tests/real_files.rs` and `crates/cli/tests/semantic_real.rs`
//! (test crates cannot share a module otherwise).

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn need(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup-test-deps (it installs the registry packages whose \
         files these tests read)",
        path.display()
    );
    path
}

/// The newest unpacked version of a crate in the cargo registry.
pub fn krate(name: &str) -> PathBuf {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cargo"));
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .expect("the cargo registry")
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
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

/// The site-packages folder of the repository's `.venv`.
pub fn site_packages() -> PathBuf {
    let lib = need(repo().join(".venv/lib"));
    std::fs::read_dir(&lib)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("python")
        })
        .expect(".venv/lib/python3.x")
        .join("site-packages")
}
