//! The engine's integration tests, as one test binary (as ripgrep has it): one link of the
//! engine and SQLite instead of one per file. `cargo test -p filekit-core --test core faults::`
//! runs one suite. `sandbox.rs` stays a binary of its own: it sets `HOME`, which no other
//! thread of its process may read meanwhile.

mod model;

mod bounds;
mod faults;
mod fsops_create;
mod fsops_make_dir;
mod fsops_rewrites;
mod merge_real;
mod pipeline;
mod planner_model;
mod read;
mod replace;
mod sed_vs_gnu;
mod undo_roundtrip;
mod versions;

/// Every file of `tests/` is a suite of this binary (or `sandbox.rs`): one left out would
/// silently never run.
#[test]
fn every_test_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("tests.rs");
    for entry in std::fs::read_dir(&here).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module == "tests" || module == "sandbox" {
            continue;
        }
        assert!(
            declared.contains(&format!("mod {module};")),
            "tests/{name} is not declared in tests/tests.rs"
        );
    }
}
