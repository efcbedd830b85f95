//! No function of filekit's own code runs over 200 lines unless a comment beside it says why:
//! a function that long is hard to read and harder to change, and when it must stay whole the
//! next maintainer should find the reason where they look, just above its `fn`. Test code
//! (`#[cfg(test)]` modules, `#[test]` functions, `tests/`, `benches/`, `fuzz/`) is exempt.

use filekit_testkit::function_length::{
    MAX_LINES, REASON, Unexplained, collect_sources, unexplained_long_functions,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[test]
fn no_function_runs_over_200_lines_without_a_reason() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect_sources(&root.join("crates"), &mut files);
    files.sort();
    assert!(
        files.len() > 50,
        "found only {} source files under {}: is the scan looking in the right place?",
        files.len(),
        root.join("crates").display()
    );

    // Parsing 60k lines in a debug build takes seconds: the files are shared among threads.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = files.len().div_ceil(workers);
    let reports: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| scope.spawn(|| report_on(&root, part)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let report = reports.concat();
    assert!(
        report.is_empty(),
        "functions over {MAX_LINES} lines with no reason stated beside them:\n{report}\
         Split each into named steps (a function per step, or a small struct carrying the \
         shared state), or, if it is genuinely one sequence, say why in a comment just above \
         its `fn` (after the doc comment) that starts `{REASON}`."
    );
}

/// One line per unexplained long function in `files`, named relative to `root`.
fn report_on(root: &Path, files: &[PathBuf]) -> String {
    let mut report = String::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let shown = file.strip_prefix(root).unwrap_or(file).display();
        let found = unexplained_long_functions(&text)
            .unwrap_or_else(|e| panic!("cannot parse {shown} as Rust: {e}"));
        for f in found {
            let _ = writeln!(
                report,
                "  {shown}:{} fn {} ({} lines)",
                f.line, f.name, f.lines
            );
        }
    }
    report
}

/// The scan itself: a long function is caught, a reason clears it, test code is skipped.
#[test]
fn the_scan_catches_a_long_function_and_accepts_a_stated_reason() {
    let body = "    let _ = 1;\n".repeat(MAX_LINES);
    let source = format!(
        "/// Long.\npub fn long() {{\n{body}}}\n\
         /// Long, with a reason.\n#[inline]\n{REASON} one sequence.\nfn explained() {{\n{body}}}\n\
         impl S {{\n    fn method(&self) {{\n{body}    }}\n}}\n\
         fn short() {{\n    let s = \"}}\";\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn helper() {{\n{body}    }}\n}}\n\
         #[test]\nfn a_test() {{\n{body}}}\n"
    );
    let found = unexplained_long_functions(&source).unwrap();
    let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["long", "method"]);
    assert_eq!(
        found[0],
        Unexplained {
            name: "long".into(),
            line: 2,
            lines: MAX_LINES + 2
        }
    );
}
