//! Syntactic refactors of Python without a language server. This module holds rename (a
//! binding and its references by Python's scoping rules), organize imports (isort's layout)
//! and remove unused imports; the other refactors are its modules: [`extract`]
//! (extract_variable, extract_constant), [`extract_function`], [`inline_variable`],
//! [`convert_async`], and add_import (re-exported here). Everything is computed on tree-sitter-python trees as splices of the text as read;
//! nothing here reads files or resolves module names (callers pass closures that do).
//!
//! Scopes are Python's: the module, functions and lambdas, class bodies (not seen from the
//! functions inside them), and comprehensions (whose first iterable is evaluated outside).
//! A name bound anywhere in a scope is local to all of it; `global` and `nonlocal` redirect
//! it. A class attribute is renamed in the class body, through the methods' first parameter
//! (`self.x`, `cls.x`) and through the class's name (`Cls.x`); what flows through other
//! objects is out of reach of the syntax (replies say `precision: "syntactic"`).
//! String annotations (`"Foo"`, `Optional["Foo"]`, `cast("Foo", x)`) and `__all__` entries
//! are renamed with the names they stand for.

use crate::ops::Splice;
use filekit_errors::{ErrorCode, FkError};
use std::collections::{BTreeMap, HashSet};
use tree_sitter::{Node, Tree};

mod add_import;
pub mod convert_async;
pub mod extract;
pub mod extract_function;
mod imports;
pub mod inline_variable;
mod rename;
mod scopes;

pub use add_import::{Offered, import_edit, missing_name, offers};
pub use imports::*;
pub use rename::*;

fn parse(text: &str) -> Result<Tree, FkError> {
    crate::bounds::parse(crate::Lang::Python, text, None, false)
}

/// Python's hard keywords (soft keywords such as `match`, `case`, `type` can name things).
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Refuses a name that cannot be a Python identifier.
pub fn check_identifier(name: &str) -> Result<(), FkError> {
    let mut chars = name.chars();
    let ok_start = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_');
    let ok_rest = chars.all(|c| c.is_alphanumeric() || c == '_');
    if !ok_start || !ok_rest {
        return Err(
            FkError::invalid(format!("`{name}` is not a valid Python identifier")).with_hint(
                "a name starts with a letter or _ and goes on with letters, digits or _",
            ),
        );
    }
    if KEYWORDS.contains(&name) {
        return Err(FkError::invalid(format!("`{name}` is a Python keyword"))
            .with_hint("choose a name that is not a Python keyword"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, splices: &[Splice]) -> String {
        crate::ops::apply(text, splices)
    }

    fn rename(src: &str, target: &str, new: &str) -> Result<String, FkError> {
        let t = if let Some(off) = target.strip_prefix('@') {
            Target::At(off.parse().unwrap())
        } else {
            Target::Name(target.into())
        };
        rename_in_file(src, &t, new, false).map(|r| run(src, &r.splices))
    }

    #[test]
    fn scopes_globals_nonlocals_comprehensions() {
        let src = "x = 1\n\ndef f(x):\n    return x\n\ndef g():\n    global x\n    x = 2\n    return [x for x in range(x)]\n\ndef h():\n    y = x\n    def inner():\n        nonlocal y\n        y = x\n    return y\n\nclass C:\n    x = 3\n    def m(self):\n        return x + self.x\n";
        let got = rename(src, "x", "z").unwrap();
        assert_eq!(
            got,
            "z = 1\n\ndef f(x):\n    return x\n\ndef g():\n    global z\n    z = 2\n    return [x for x in range(z)]\n\ndef h():\n    y = z\n    def inner():\n        nonlocal y\n        y = z\n    return y\n\nclass C:\n    x = 3\n    def m(self):\n        return z + self.x\n"
        );
        let got = rename(src, "h.y", "w").unwrap();
        assert!(
            got.contains("    w = z\n") || got.contains("    w = x\n"),
            "{got}"
        );
        assert!(got.contains("nonlocal w\n        w = x"), "{got}");
        let got = rename(src, "C.x", "attr").unwrap();
        assert!(got.contains("    attr = 3\n"), "{got}");
        assert!(got.contains("return x + self.attr"), "{got}");
    }

    #[test]
    fn parameters_take_their_keyword_arguments() {
        let src = "def f(a, b=1):\n    return a + b\n\n\nclass C:\n    def m(self, a):\n        return a\n\n    def n(self):\n        return self.m(a=1) + f(2, b=3) + g(b=4)\n\n\ndef g(b):\n    return b\n";
        let got = rename(src, "f.b", "step").unwrap();
        assert!(
            got.contains("def f(a, step=1):\n    return a + step\n"),
            "{got}"
        );
        assert!(got.contains("f(2, step=3) + g(b=4)"), "{got}");
        let got = rename(src, "C.m.a", "value").unwrap();
        assert!(got.contains("self.m(value=1)"), "{got}");
        assert_eq!(
            rename(src, "f.a", "b").unwrap_err().code,
            ErrorCode::Conflict
        );
    }

    #[test]
    fn bad_inputs() {
        let src = "a = 1\nb = 2\ndef f():\n    a = 3\n    return a + len([])\n";
        assert_eq!(rename(src, "a", "b").unwrap_err().code, ErrorCode::Conflict);
        assert_eq!(
            rename(src, "a", "len").unwrap_err().code,
            ErrorCode::Conflict
        );
        assert_eq!(
            rename(src, "a", "class").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            rename(src, "nope", "z").unwrap_err().code,
            ErrorCode::NotFound
        );
        let src2 = "def f():\n    v = 1\n    return v\ndef g():\n    v = 2\n    return v\n";
        assert_eq!(
            rename(src2, "v", "w").unwrap_err().code,
            ErrorCode::Ambiguous
        );
        assert_eq!(
            rename(src2, "g.v", "w").unwrap(),
            "def f():\n    v = 1\n    return v\ndef g():\n    w = 2\n    return w\n"
        );
    }

    #[test]
    fn strings_all_and_imports() {
        let src = "from typing import Optional, cast\n__all__ = [\"Foo\", \"bar\"]\nclass Foo:\n    def clone(self) -> \"Foo\":\n        return cast(\"Foo\", self)\nx: Optional[\"Foo\"] = None\n";
        let got = rename(src, "Foo", "Bar").unwrap();
        assert_eq!(got, src.replace("Foo", "Bar"));
        let imp = "from .m import helper\nfrom . import m\nimport pkg.m\nfrom .m import helper as h2\n\nhelper(); m.helper(); pkg.m.helper(); h2()\n";
        let r =
            rename_in_importer(imp, &|s| s == ".m" || s == "pkg.m", "helper", "assist").unwrap();
        assert!(r.re_exports);
        assert_eq!(
            run(imp, &r.splices),
            "from .m import assist\nfrom . import m\nimport pkg.m\nfrom .m import assist as h2\n\nassist(); m.assist(); pkg.m.assist(); h2()\n"
        );
    }

    fn opts(init: bool) -> ImportOptions<'static> {
        ImportOptions {
            is_init: init,
            section: &|m: &str| {
                let top = m.split('.').next().unwrap_or(m);
                if m.starts_with('.') {
                    Section::Local
                } else if is_stdlib(top) {
                    Section::Stdlib
                } else if top == "mypkg" {
                    Section::FirstParty
                } else {
                    Section::ThirdParty
                }
            },
        }
    }

    #[test]
    fn organize_like_isort() {
        let src = "\"\"\"doc\"\"\"\nimport sys\nfrom .b import y\nimport requests\nfrom __future__ import annotations\nimport os, json\n# about a\nfrom .a import x\nfrom mypkg.core import Z, A_CONST, func\nfrom os import path\nfrom .b import y, w\nimport unused_mod\n\nprint(sys, y, requests, os, json, x, Z, A_CONST, func, path, w)\n";
        let s = organize_imports(src, &opts(false)).unwrap();
        assert_eq!(
            run(src, &s),
            "\"\"\"doc\"\"\"\nfrom __future__ import annotations\n\nimport json\nimport os\nimport sys\nfrom os import path\n\nimport requests\n\nfrom mypkg.core import A_CONST, Z, func\n\n# about a\nfrom .a import x\nfrom .b import w, y\n\nprint(sys, y, requests, os, json, x, Z, A_CONST, func, path, w)\n"
        );
        // Idempotent.
        let once = run(src, &s);
        assert!(organize_imports(&once, &opts(false)).unwrap().is_empty());
    }

    #[test]
    fn remove_unused_keeps_reexports_and_type_checking() {
        let src = "from __future__ import annotations\nimport os\nimport typing\nfrom x import a, b  # note\nfrom y import c as c\n\nif typing.TYPE_CHECKING:\n    from z import T\n    from z import U\n\n__all__ = [\"b\"]\n\ndef f(v: U) -> None:\n    pass\n";
        let s = remove_unused_imports(src, &opts(false)).unwrap();
        assert_eq!(
            run(src, &s),
            "from __future__ import annotations\nimport typing\nfrom x import b  # note\nfrom y import c as c\n\nif typing.TYPE_CHECKING:\n    from z import U\n\n__all__ = [\"b\"]\n\ndef f(v: U) -> None:\n    pass\n"
        );
        let src2 =
            "import typing\nif typing.TYPE_CHECKING:\n    from z import T\n\nx = typing.Any\n";
        let s = remove_unused_imports(src2, &opts(false)).unwrap();
        assert_eq!(run(src2, &s), "import typing\n\nx = typing.Any\n");
        let init = "from .core import thing\nimport os\n";
        let s = remove_unused_imports(init, &opts(true)).unwrap();
        assert_eq!(run(init, &s), "from .core import thing\n");
    }
}
