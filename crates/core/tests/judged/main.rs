//! The engine's judged stage: suites whose verdict comes from a real tool or corpus the
//! hermetic stage does not have: GNU sed as the reference of `sed.rs`, and consecutive npm
//! releases of real packages (`scripts/setup-test-deps`) as the merge's corpus.
//!
//! `cargo test -p filekit-core --test judged`.

mod merge_real;
mod sed_vs_gnu;

/// Every file of `tests/judged/` is a suite of this binary: one left out would never run.
#[test]
fn every_judged_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/judged");
    filekit_testkit::assert_every_test_file_declared(&here, include_str!("main.rs"), &["main"]);
}
