//! How the filekit binary is linked.
//!
//! A Rust program is position-independent, and every pointer in its data (vtables, the
//! grammars' tables, string tables) is a relocation the dynamic loader applies at each start:
//! some 42,000 of them here, a fifth of a short `filekit call`'s time. Packed relative
//! relocations (`DT_RELR`: GNU ld 2.38 and glibc 2.36, lld 15) store them as a bitmap the
//! loader applies in a fraction of that. They are asked for where the linker makes them and
//! the C library runs them: the flag is tried on a small program first, with warnings as
//! errors (a linker that does not know it, or a C library without `GLIBC_ABI_DT_RELR`, only
//! warns). Set here rather than in a cargo configuration file so that every build of the
//! binary takes it: the README's `cargo install --path crates/cli` as the tests' builds.

use std::path::PathBuf;
use std::process::{Command, Stdio};

const PACK_RELATIVE_RELOCS: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    if native
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && links_with(PACK_RELATIVE_RELOCS)
    {
        println!("cargo:rustc-link-arg-bins={PACK_RELATIVE_RELOCS}");
    }
}

/// Whether the C compiler driver that links Rust programs (`cc`, or the linker configured for
/// the target) links a program with `flag` without a warning.
fn links_with(flag: &str) -> bool {
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("probe.c");
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    Command::new(linker)
        .arg(&source)
        .arg("-o")
        .arg(out.join("probe"))
        .args(["-pie", "-fPIE", flag, "-Wl,--fatal-warnings"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
