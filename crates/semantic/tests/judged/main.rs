//! The semantic crate's judged stage: suites whose verdict comes from a real tool or a real
//! corpus the hermetic stage does not have (the TypeScript compiler, Node.js and Python
//! running refactored programs, pyflakes, registry sources), installed by
//! `scripts/setup-test-deps`. (Real files of every language and format are read and written
//! back in `filekit-documents`' judged stage, which sees both crates.)
//!
//! `cargo test -p filekit-semantic --test judged` (one suite:
//! `... --test judged refactor_semantics::`).

mod judge;

mod extract_function_programs;
mod extract_function_python;
mod extract_function_tsc;
mod refactor_real_code;
mod refactor_semantics;

/// Every file of `tests/judged/` is a suite of this binary: one left out would never run.
#[test]
fn every_judged_file_is_declared() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/judged");
    filekit_testkit::assert_every_test_file_declared(&here, include_str!("main.rs"), &["main"]);
}
