//! The semantic crate's integration tests, as one test binary (as ripgrep, and this
//! workspace's core and cli, have them): one link of the parsers instead of one per file.
//! `cargo test -p filekit-semantic --test semantic real_files::` runs one suite.

#[allow(dead_code)] // each suite uses the part it needs
#[path = "support/test_data.rs"]
mod test_data;

#[path = "support/judge.rs"]
mod judge;

mod extract_function_programs;
mod extract_function_python;
mod extract_function_tsc;
mod jsonpath_cts;
mod real_files;
mod refactor_real_code;
mod refactor_semantics;
mod roundtrip;

/// Every file of `tests/` is a suite of this binary: one left out would silently never run.
#[test]
fn every_test_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("tests.rs");
    for entry in std::fs::read_dir(&here).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "tests" {
            assert!(
                declared.contains(&format!("mod {module};")),
                "tests/{name} is not declared in tests/tests.rs"
            );
        }
    }
}
