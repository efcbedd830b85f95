//! The engine's integration tests, as one test binary (as ripgrep has it): one link of the
//! engine and SQLite instead of one per file. `cargo test -p filekit-core --test core faults::`
//! runs one suite. `sandbox.rs` stays a binary of its own: it sets `HOME`, which no other
//! thread of its process may read meanwhile.
//!
//! This is the hermetic stage; suites judged by a real tool or corpus (GNU sed, two npm
//! releases of real packages) are the `judged` binary (`tests/judged/`, `cargo test --test judged`).

mod model;

mod bounds;
mod faults;
mod fsops_create;
mod fsops_make_dir;
mod fsops_rewrites;
mod pipeline;
mod planner_model;
mod read;
mod replace;
mod undo_roundtrip;
mod versions;

/// Every file of `tests/` is a suite of this binary (or `sandbox.rs`): one left out would
/// silently never run.
#[test]
fn every_test_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    filekit_testkit::assert_every_test_file_declared(
        &here,
        include_str!("tests.rs"),
        &["tests", "sandbox"],
    );
}
