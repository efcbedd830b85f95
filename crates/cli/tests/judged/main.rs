//! The judged stage of the `filekit` binary's tests: suites whose verdict comes from a real
//! tool the hermetic stage does not have: the TypeScript compiler and language server,
//! Node.js and Python running the refactored programs, pyflakes, the official MCP SDK's
//! clients, real registry packages as corpora. `scripts/setup-test-deps` installs them into
//! `.test-deps/` and `.venv/`; a missing one fails its test with what to run, never skips it.
//! Heavy runs live here too (hunks of thousands of lines on megabyte files, trees of tens of
//! thousands of files, the release build of the README's install command): the hermetic stage
//! stays a quick loop.
//!
//! `cargo test -p filekit --test judged` (after `scripts/setup-test-deps`);
//! one suite: `... --test judged refactor_tsc::`.

#[path = "../common/mod.rs"]
mod common;

mod convert_async;
mod export_renames;
mod extract_strict;
mod inline_function;
mod large_files;
mod mcp_clients;
mod patch_work;
mod programs;
mod python_inline_async;
mod python_refactors;
mod readme_install;
mod refactor_judged;
mod refactor_tsc;
mod refactor_verb;
mod scale;
mod semantic_real;
mod server_memory;
mod symbol_refactors;

/// Every file of `tests/judged/` is a module of this binary: one left out would never run.
#[test]
fn every_judged_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/judged");
    filekit_testkit::assert_every_test_file_declared(&dir, include_str!("main.rs"), &["main"]);
}
