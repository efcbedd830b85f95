//! No function of filekit's own code runs over 200 lines unless a comment beside it says why:
//! a function that long is hard to read and harder to change, and when it must stay whole the
//! next maintainer should find the reason where they look, just above its `fn`. Test code
//! (`#[cfg(test)]` modules, `#[test]` functions, `tests/`, `benches/`, `fuzz/`) is exempt.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

const MAX_LINES: usize = 200;

/// What a reason comment starts with; it sits between the doc comment (or attributes) and the
/// `fn`, and goes on to say why the function stays whole.
const REASON: &str = "// Over 200 lines:";

/// A function over the limit with no reason stated beside it.
#[derive(Debug, PartialEq)]
struct Unexplained {
    name: String,
    line: usize,
    lines: usize,
}

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

/// Every `.rs` file under `dir`, leaving out test, bench and fuzz folders and build output.
fn collect_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            let skipped = ["tests", "benches", "fuzz", "target"].contains(&name.as_ref())
                || name.starts_with('.');
            if !skipped {
                collect_sources(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn unexplained_long_functions(text: &str) -> syn::Result<Vec<Unexplained>> {
    let file = syn::parse_file(text)?;
    let mut scan = Scan {
        lines: text.lines().collect(),
        found: Vec::new(),
    };
    scan.visit_file(&file);
    Ok(scan.found)
}

struct Scan<'a> {
    lines: Vec<&'a str>,
    found: Vec<Unexplained>,
}

impl Scan<'_> {
    /// Checks one function: `fn_token` is its `fn` keyword, `close` its body's closing brace.
    fn check(
        &mut self,
        name: &syn::Ident,
        attrs: &[syn::Attribute],
        fn_token: &syn::token::Fn,
        close: proc_macro2::Span,
    ) {
        let fn_line = fn_token.span.start().line;
        let lines = close.end().line + 1 - fn_line;
        if lines > MAX_LINES && !self.reason_above(attrs, fn_line) {
            self.found.push(Unexplained {
                name: name.to_string(),
                line: fn_line,
                lines,
            });
        }
    }

    /// Whether a reason comment is among the attributes, doc comments and comments that run
    /// up from the `fn` line without a break.
    fn reason_above(&self, attrs: &[syn::Attribute], fn_line: usize) -> bool {
        // Lines are 1-based; index `fn_line - 1` is the `fn` line itself.
        let mut top = attrs
            .iter()
            .map(|a| a.pound_token.span.start().line)
            .min()
            .unwrap_or(fn_line)
            .min(fn_line);
        while top > 1 && self.lines[top - 2].trim_start().starts_with("//") {
            top -= 1;
        }
        self.lines[top - 1..fn_line - 1].iter().any(|line| {
            line.trim_start()
                .strip_prefix(REASON)
                .is_some_and(|why| !why.trim().is_empty())
        })
    }
}

/// Code that builds only for tests: `#[cfg(test)]` (alone or in an `all(...)`) or `#[test]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if attr.path().is_ident("test") {
            return true;
        }
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let cfg = list.tokens.to_string().replace(' ', "");
        cfg == "test"
            || (cfg.starts_with("all(") && cfg[4..].split([',', ')']).any(|c| c == "test"))
    })
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        let close = item.block.brace_token.span.close();
        self.check(&item.sig.ident, &item.attrs, &item.sig.fn_token, close);
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        let close = item.block.brace_token.span.close();
        self.check(&item.sig.ident, &item.attrs, &item.sig.fn_token, close);
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        if let Some(body) = &item.default {
            let close = body.brace_token.span.close();
            self.check(&item.sig.ident, &item.attrs, &item.sig.fn_token, close);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}
