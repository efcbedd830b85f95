//! The semantic crate's integration tests, as one test binary (as ripgrep, and this
//! workspace's core and cli, have them): one link of the parsers instead of one per file.
//! `cargo test -p filekit-semantic --test semantic roundtrip::` runs one suite.
//!
//! This is the hermetic stage; suites that a real tool judges (tsc, Node.js, Python, real
//! registry sources) are the `judged` binary (`tests/judged/`, `cargo test --test judged`).

mod roundtrip;

/// Every file of `tests/` is a suite of this binary: one left out would silently never run.
#[test]
fn every_test_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    filekit_testkit::assert_every_test_file_declared(&here, include_str!("tests.rs"), &["tests"]);
}
