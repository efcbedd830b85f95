//! No function of filekit's own code runs over 200 lines unless a comment beside it says why
//! (the rule and its tests: `tests/function_length.rs`). The scan lives in the library, not in
//! the test, so that its parser's features (`syn`, `proc-macro2` with span locations) are the
//! same in every build of the tests: a dev-dependency only of this crate's test would give the
//! hermetic and the judged stages different features and make the second rebuild everything
//! that uses a procedural macro.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

pub const MAX_LINES: usize = 200;

/// What a reason comment starts with; it sits between the doc comment (or attributes) and the
/// `fn`, and goes on to say why the function stays whole.
pub const REASON: &str = "// Over 200 lines:";

/// A function over the limit with no reason stated beside it.
#[derive(Debug, PartialEq)]
pub struct Unexplained {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// Every `.rs` file under `dir`, leaving out test, bench and fuzz folders and build output.
pub fn collect_sources(dir: &Path, out: &mut Vec<PathBuf>) {
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

pub fn unexplained_long_functions(text: &str) -> syn::Result<Vec<Unexplained>> {
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
