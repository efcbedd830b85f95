//! The MCP end-to-end suite (tests/mcp, pytest): `filekit serve` started as a subprocess and
//! driven by the official Python MCP SDK, the way MCP clients run it. This test runs that
//! suite against the binary cargo just built, so `cargo test --workspace` covers it.
//! The Python environment comes from `scripts/setup-test-deps` (`.ci/run` calls it).

use std::path::Path;
use std::process::Command;

#[test]
fn python_mcp_client_suite_passes() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root");
    let python = repo.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-test-deps once to create the Python environment \
         (the official MCP SDK, pytest, pytest-timeout, jsonschema) that the MCP end-to-end tests need",
        python.display()
    );
    let output = Command::new(&python)
        // A hung server fails its test after five minutes instead of hanging the whole run.
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--timeout=300",
            "tests/mcp",
        ])
        .current_dir(&repo)
        .env("FILEKIT_BIN", env!("CARGO_BIN_EXE_filekit"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python MCP client suite failed:\n{stdout}\n{stderr}"
    );
    println!("{stdout}");
}
