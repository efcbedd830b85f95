//! The tests of the `filekit` binary, as one test binary (as ripgrep has it): each module is
//! a suite that runs the built binary the way a user, a script or an agent does. One binary
//! instead of one per file: each linked a ~160 MB debug executable, which cost CI minutes of
//! linking and gigabytes of disk. `cargo test -p filekit --test cli attack::` runs one suite.
//!
//! This is the hermetic stage: it needs nothing but the repository and the binary. Suites
//! that a real tool judges (the TypeScript compiler, language servers, Python, the MCP SDK
//! clients) are the `judged` binary (`tests/judged/`, `cargo test --test judged`).

mod common;
mod golden;

mod add_import;
mod amazonq;
mod amazonq_golden;
mod apply_patch;
mod attack;
mod bad_input;
mod bounds;
mod claude;
mod claude_golden;
mod curated_search;
mod desktop_commander;
mod desktop_commander_golden;
mod desktop_commander_search;
mod encoding_tables;
mod encodings;
mod extract_function;
mod extract_type;
mod faults;
mod file_golden;
mod file_tools;
mod filekit_golden;
mod first_run;
mod history;
mod http_connections;
mod kill;
mod large_files;
mod mcp_filesystem_golden;
mod move_imports;
mod parser_bounds;
mod planted_state;
mod readme_examples;
mod refactor_table;
mod replace_verb;
mod reply_bounds;
mod reply_budgets;
mod scale;
mod search;
mod semantic;
mod semantic_golden;
mod semantic_markup;
mod setup;
mod strict_args;
mod syntactic_refactors;
mod terminal_names;
mod verbs;
mod versions;
mod words;

/// Every file of `tests/` is a module of this binary: with `autotests = false`, a new file
/// that is not declared here would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    filekit_testkit::assert_every_test_file_declared(&dir, include_str!("tests.rs"), &["tests"]);
}
