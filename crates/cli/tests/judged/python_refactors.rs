//! The refactor mode of `file_edit` for Python without a language server (`precision:
//! "syntactic"`), through the real binary, judged by Python itself on a real code base:
//! urllib3 2.2.3 as PyPI ships it (36 modules, relative imports, `__all__`, `if
//! TYPE_CHECKING:` blocks, string annotations), unpacked by `scripts/setup-test-deps`, with
//! pyflakes (pinned, in `.venv`). After every refactor `python -m compileall` passes, pyflakes
//! reports nothing new (no undefined name), and `import urllib3` still works and sees the
//! renamed names.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// The virtualenv's Python, with pyflakes.
fn python() -> PathBuf {
    let py = repo().join(".venv/bin/python");
    assert!(
        py.exists(),
        "{} is missing: run scripts/setup-test-deps (the Python refactor tests need its pyflakes)",
        py.display()
    );
    let ok = Command::new(&py)
        .args(["-c", "import pyflakes"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "pyflakes is missing from .venv: run scripts/setup-test-deps"
    );
    py
}

/// urllib3's package directory, as the wheel ships it.
fn urllib3_src() -> PathBuf {
    let dir = repo().join(".test-deps/python/urllib3-2.2.3/urllib3");
    assert!(
        dir.join("__init__.py").exists(),
        "{} is missing: run scripts/setup-test-deps (it unpacks urllib3 2.2.3's wheel from PyPI)",
        dir.display()
    );
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "__pycache__") {
            continue;
        }
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A sandbox holding a fresh copy of urllib3.
fn urllib3() -> Sandbox {
    let sb = Sandbox::new();
    copy_dir(&urllib3_src(), &sb.path("urllib3"));
    sb
}

fn modules(sb: &Sandbox) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "py") {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(&sb.path("urllib3"), sb.root(), &mut out);
    out.sort();
    out
}

/// Runs the virtualenv's Python in the sandbox (bytecode kept out of it).
fn py(sb: &Sandbox, args: &[&str]) -> (bool, String) {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(python())
        .args(args)
        .current_dir(sb.root())
        .env("PYTHONPYCACHEPREFIX", cache.path())
        .output()
        .expect("run python");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// pyflakes' messages on the package, without line numbers.
fn pyflakes(sb: &Sandbox) -> Vec<String> {
    let (_, out) = py(sb, &["-m", "pyflakes", "urllib3"]);
    out.lines().map(str::to_string).collect()
}

/// pyflakes' unused-import messages on `file`, but for lines marked `# noqa` (the lines the
/// project keeps on purpose, as flake8 would).
fn unused_imports(sb: &Sandbox, file: &str) -> Vec<String> {
    let text = sb.read(file);
    let lines: Vec<&str> = text.lines().collect();
    let (_, out) = py(sb, &["-m", "pyflakes", file]);
    out.lines()
        .filter(|l| l.contains("imported but unused"))
        .filter(|l| {
            let n: usize = l
                .split(':')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            !lines
                .get(n.wrapping_sub(1))
                .is_some_and(|t| t.contains("noqa"))
        })
        .map(str::to_string)
        .collect()
}

/// compileall passes, pyflakes finds no undefined name, `snippet` runs.
/// pyflakes' findings, for a caller that compares their count with a baseline.
fn still_works(sb: &Sandbox, what: &str, snippet: &str) -> Vec<String> {
    let (ok, out) = py(sb, &["-m", "compileall", "-q", "urllib3"]);
    assert!(ok, "{what}: compileall failed:\n{out}");
    let flakes = pyflakes(sb);
    let undefined: Vec<&String> = flakes
        .iter()
        .filter(|l| l.contains("undefined name"))
        .collect();
    assert!(undefined.is_empty(), "{what}: pyflakes: {undefined:#?}");
    let (ok, out) = py(sb, &["-c", snippet]);
    assert!(ok, "{what}: `{snippet}` failed:\n{out}");
    flakes
}

/// PATH without pyright-langserver (the syntactic path is under test).
fn path_without_server() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("pyright-langserver").exists())
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn call(sb: &Sandbox, args: Value) -> common::Run {
    let c = json!({"tool_name": "file_edit", "tool_args": args});
    sb.filekit_env(
        &["call"],
        Some(&c.to_string()),
        &[("PATH", &path_without_server())],
    )
}

/// PATH with pyright-langserver (from `scripts/setup-test-deps`) first.
fn path_with_server() -> String {
    let bin = repo().join(".test-deps/node_modules/.bin");
    assert!(
        bin.join("pyright-langserver").exists(),
        "pyright-langserver is missing from {}: run scripts/setup-test-deps",
        bin.display()
    );
    format!("{}:{}", bin.display(), path_without_server())
}

/// The package's files, for comparing two results.
fn package(sb: &Sandbox) -> Vec<(PathBuf, Vec<u8>)> {
    sb.snapshot()
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|x| x == "py"))
        .map(|(p, c)| (p.strip_prefix(sb.root()).unwrap().to_path_buf(), c))
        .collect()
}

/// With pyright-langserver on PATH renames are pyright's (`precision: "semantic"`): judged the
/// same way, and compared with the syntactic rename of the same symbol.
#[test]
fn semantic_renames_with_pyright_agree_with_the_syntactic_ones() {
    let server = path_with_server();
    let mut same = 0;
    let mut differ = Vec::new();
    for (file, symbol, new, _, check) in CASES {
        let what = format!("{symbol} → {new} (pyright)");
        let sb = urllib3();
        let c = json!({"tool_name": "file_edit", "tool_args": {"file": file, "refactor": "rename_symbol", "symbol": symbol, "new_name": new}});
        let run = sb.filekit_env(
            &["--trust-workspace", "call"],
            Some(&c.to_string()),
            &[("PATH", &server)],
        );
        assert_eq!(run.code, 0, "{what}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.json["precision"], "semantic", "{what}: {}", run.stdout);
        let syntactic = urllib3();
        ok(&call(
            &syntactic,
            json!({"file": file, "refactor": "rename_symbol", "symbol": symbol, "new_name": new}),
        ));
        // The same bytes as the syntactic rename, which `renames_of_urllib3_...` judges with
        // Python: judged again only where pyright's result differs.
        if package(&sb) == package(&syntactic) {
            same += 1;
        } else {
            still_works(&sb, &what, check);
            differ.push(what);
        }
    }
    // Measured: pyright 1.1.408 and the syntactic rename give the same bytes on all 13.
    assert_eq!(
        same,
        CASES.len(),
        "pyright and the syntactic rename differ on {differ:?}"
    );
}

fn ok(run: &common::Run) -> &Value {
    assert_eq!(
        run.code, 0,
        "expected success\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], json!(true), "{}", run.stdout);
    assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
    &run.json
}

/// (file, symbol, new name, at least this many files changed, a check of the result)
type Case = (
    &'static str,
    &'static str,
    &'static str,
    usize,
    &'static str,
);

/// A dozen renames of real symbols of urllib3: module-level functions and classes used across
/// modules (through `from .m import X`, relative imports of every depth, the package's
/// `__init__` re-exports and `__all__`, string annotations), a method, and locals of methods.
const CASES: &[Case] = &[
    (
        "urllib3/util/url.py",
        "parse_url",
        "parse_address",
        5,
        "import urllib3.util as u; from urllib3.poolmanager import PoolManager; \
             assert u.parse_address('http://h:81/p').port == 81 and not hasattr(u, 'parse_url')",
    ),
    (
        "urllib3/exceptions.py",
        "MaxRetryError",
        "RetriesExhaustedError",
        4,
        "import urllib3; from urllib3.util.retry import Retry; \
             assert issubclass(urllib3.exceptions.RetriesExhaustedError, Exception)",
    ),
    (
        "urllib3/_collections.py",
        "HTTPHeaderDict",
        "HeaderDict",
        6,
        "import urllib3; h = urllib3.HeaderDict(a='1'); h.add('a', '2'); \
             assert h.getlist('a') == ['1', '2']",
    ),
    (
        "urllib3/util/util.py",
        "to_str",
        "as_text",
        3,
        "import urllib3; from urllib3.util.util import as_text; assert as_text(b'x') == 'x'",
    ),
    (
        "urllib3/util/ssl_.py",
        "resolve_cert_reqs",
        "cert_reqs_from",
        3,
        "import ssl, urllib3; from urllib3.util import cert_reqs_from; \
             assert cert_reqs_from('CERT_NONE') == ssl.CERT_NONE",
    ),
    (
        "urllib3/util/timeout.py",
        "Timeout",
        "TimeoutConfig",
        6,
        "import urllib3; t = urllib3.TimeoutConfig(connect=2.0); assert t.connect_timeout == 2.0",
    ),
    (
        "urllib3/util/response.py",
        "is_fp_closed",
        "fp_is_closed",
        2,
        "import io, urllib3; from urllib3.util.response import fp_is_closed; \
             f = io.BytesIO(); f.close(); assert fp_is_closed(f)",
    ),
    (
        "urllib3/util/retry.py",
        "Retry",
        "RetryPolicy",
        6,
        "import urllib3; assert 'RetryPolicy' in urllib3.__all__; \
             r = urllib3.RetryPolicy(total=3).increment(); assert r.total == 2",
    ),
    (
        "urllib3/util/url.py",
        "_encode_invalid_chars",
        "_percent_encode",
        1,
        "from urllib3.util.url import parse_url; assert parse_url('http://h/a b').path == '/a%20b'",
    ),
    (
        "urllib3/poolmanager.py",
        "PoolManager.urlopen.redirect_location",
        "location",
        1,
        "import urllib3; urllib3.PoolManager()",
    ),
    (
        "urllib3/connectionpool.py",
        "HTTPConnectionPool.urlopen.release_this_conn",
        "release_after",
        1,
        "import urllib3; urllib3.HTTPConnectionPool('localhost')",
    ),
    (
        "urllib3/response.py",
        "HTTPResponse._init_length",
        "_initial_length",
        1,
        "import io, urllib3; r = urllib3.HTTPResponse(io.BytesIO(b'abc'), \
             headers={'content-length': '3'}, preload_content=False); \
             assert r.length_remaining == 3",
    ),
    (
        "urllib3/fields.py",
        "format_multipart_header_param",
        "multipart_param",
        1,
        "from urllib3.fields import RequestField; \
             f = RequestField('n', 'd', filename='f.txt'); f.make_multipart(); \
             assert 'filename=\"f.txt\"' in f.render_headers()",
    ),
];

#[test]
fn renames_of_urllib3_keep_it_importable_and_pyflakes_clean() {
    let baseline = {
        let sb = urllib3();
        let flakes = pyflakes(&sb);
        assert!(
            !flakes.iter().any(|l| l.contains("undefined name")),
            "{flakes:#?}"
        );
        flakes.len()
    };
    for (file, symbol, new, min_files, check) in CASES {
        let sb = urllib3();
        let what = format!("{symbol} → {new}");
        // A dry run first: diffs, nothing written.
        let before = sb.snapshot();
        let run = call(
            &sb,
            json!({"file": file, "refactor": "rename_symbol", "symbol": symbol, "new_name": new, "dry_run": true}),
        );
        let reply = ok(&run);
        assert!(
            reply["diff"].as_str().unwrap_or("").contains(new),
            "{what}: {reply}"
        );
        assert_eq!(before, sb.snapshot(), "{what}: a dry run wrote");
        let run = call(
            &sb,
            json!({"file": file, "refactor": "rename_symbol", "symbol": symbol, "new_name": new}),
        );
        let reply = ok(&run);
        let files = reply["files_affected"].as_array().unwrap();
        assert!(files.len() >= *min_files, "{what}: only {files:?} changed");
        let last = symbol.rsplit('.').next().unwrap();
        assert!(
            sb.read(file).contains(new),
            "{what}: the new name is not in {file}"
        );
        // Python judges.
        let flakes = still_works(&sb, &what, check);
        assert_eq!(flakes.len(), baseline, "{what}: pyflakes' findings changed");
        // No use of the old name is left where it was bound (module-level renames).
        if !symbol.contains('.') {
            let (ok, out) = py(
                &sb,
                &[
                    "-c",
                    &format!(
                        "import importlib, sys; m = importlib.import_module('{}'); \
                         sys.exit(hasattr(m, '{last}'))",
                        file.trim_end_matches(".py").replace('/', ".")
                    ),
                ],
            );
            assert!(ok, "{what}: the module still has `{last}`: {out}");
        }
    }
}

/// Reverses the single-line imports of a module's first import block (the block isort
/// formatted) and adds an unused import and a duplicate: `None` when the block has
/// multi-line statements or comments.
fn scramble(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let is_imp = |l: &str| l.starts_with("import ") || l.starts_with("from ");
    let first = lines
        .iter()
        .position(|l| is_imp(l) && !l.starts_with("from __future__"))?;
    // A comment above the block would move with the import that comes first.
    if first > 0 && lines[first - 1].starts_with('#') {
        return None;
    }
    let mut last = first;
    let mut i = first;
    while i < lines.len() && (is_imp(lines[i]) || lines[i].is_empty()) {
        if lines[i].contains('(') || lines[i].contains('#') || lines[i].ends_with('\\') {
            return None;
        }
        if is_imp(lines[i]) {
            last = i;
        }
        i += 1;
    }
    let mut block: Vec<&str> = lines[first..=last]
        .iter()
        .copied()
        .filter(|l| !l.is_empty())
        .collect();
    if block.len() < 3 {
        return None;
    }
    let dup = block[0];
    block.reverse();
    block.insert(1, "import zlib");
    block.push(dup);
    let mut out: Vec<&str> = lines[..first].to_vec();
    out.extend(block);
    out.extend(&lines[last + 1..]);
    Some(out.join("\n") + "\n")
}

#[test]
fn organize_imports_sorts_urllib3_back_the_way_isort_left_it() {
    let py_ = python();
    let _ = py_;
    let sb = urllib3();
    let files = modules(&sb);
    assert!(files.len() >= 30, "{files:?}");
    // urllib3 is formatted by isort (black profile): organizing changes nothing.
    for f in &files {
        let run = call(&sb, json!({"file": f, "refactor": "organize_imports"}));
        let reply = ok(&run);
        assert_eq!(reply["total_edits"], 0, "{f}: {reply}");
    }
    // Scrambled, with an unused import and a duplicate: organized back to the original bytes.
    let mut scrambled = 0;
    for f in &files {
        let original = sb.read(f);
        let Some(s) = scramble(&original) else {
            continue;
        };
        sb.write(f, &s);
        let run = call(&sb, json!({"file": f, "refactor": "organize_imports"}));
        ok(&run);
        assert_eq!(sb.read(f), original, "{f}: not organized back");
        assert!(unused_imports(&sb, f).is_empty(), "{f}");
        scrambled += 1;
    }
    assert!(
        scrambled >= 15,
        "only {scrambled} modules could be scrambled"
    );
    still_works(
        &sb,
        "organize_imports",
        "import urllib3; urllib3.PoolManager()",
    );
}

#[test]
fn remove_unused_imports_on_urllib3() {
    let sb = urllib3();
    let files = modules(&sb);
    // Nothing unused but what the project marks `# noqa` or probes in `try`: no change (the
    // package's `__init__.py` re-exports, `__all__` names, `if TYPE_CHECKING:` imports used
    // by annotations all stay).
    for f in &files {
        let run = call(&sb, json!({"file": f, "refactor": "remove_unused_imports"}));
        assert_eq!(ok(&run)["total_edits"], 0, "{f}: {}", run.stdout);
    }
    // Unused imports added at module level, in a name list, and in `if TYPE_CHECKING:`
    // blocks (one that becomes empty and goes), and a duplicate: removed.
    let mut changed = 0;
    for f in &files {
        let original = sb.read(f);
        let future = "from __future__ import annotations\n\n";
        if !original.contains(future) {
            continue;
        }
        let mut s = original.replacen(
            future,
            &format!("{future}import sched\nfrom colorsys import hls_to_rgb, rgb_to_hls\n"),
            1,
        );
        s = s.replacen("\nimport typing\n", "\nimport typing\nimport typing\n", 1);
        s = s.replacen(
            "\nif typing.TYPE_CHECKING:\n",
            "\nif typing.TYPE_CHECKING:\n    from fractions import Fraction\n\nif typing.TYPE_CHECKING:\n    from decimal import Decimal\n",
            1,
        );
        sb.write(f, &s);
        let run = call(&sb, json!({"file": f, "refactor": "remove_unused_imports"}));
        ok(&run);
        let now = sb.read(f);
        assert!(unused_imports(&sb, f).is_empty(), "{f}:\n{now}");
        for gone in ["sched", "colorsys", "Fraction", "Decimal"] {
            assert!(!now.contains(gone), "{f}: {gone} is still there:\n{now}");
        }
        assert!(
            now.matches("\nimport typing\n").count() <= 1,
            "{f}: the duplicate stays"
        );
        changed += 1;
        sb.write(f, &original);
    }
    assert!(changed >= 25, "only {changed} modules");
    still_works(
        &sb,
        "remove_unused_imports",
        "import urllib3; urllib3.PoolManager()",
    );
}

/// A small package that exercises what urllib3 does not: `import pkg.mod` then `pkg.mod.X`,
/// `from pkg import mod` then `mod.X`, `from m import *`, `global`, class attributes through
/// `self`, aliases, a file-scoped rename.
fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "app/__init__.py",
        "from .core import helper\n\n__all__ = [\"helper\"]\n",
    );
    sb.write(
        "app/core.py",
        "import typing\n\nCOUNT = 0\n\n\ndef helper(x: int) -> int:\n    global COUNT\n    COUNT += 1\n    return x * 2\n\n\nclass Box:\n    size = 1\n\n    def __init__(self, items: typing.List[int]) -> None:\n        self.items = items\n\n    def grow(self) -> \"Box\":\n        self.size += len(self.items)\n        return self\n",
    );
    sb.write(
        "app/use.py",
        "import app.core\nfrom app import core as c\nfrom . import core\nfrom .core import helper as h\nfrom app.core import *\n\n\ndef run() -> int:\n    return app.core.helper(1) + c.helper(2) + core.helper(3) + h(4) + helper(5)\n",
    );
    sb.write(
        "main.py",
        "from app import helper\nfrom app.core import Box\n\nprint(helper(1), Box([1]).grow().size)\n",
    );
    sb
}

fn run_main(sb: &Sandbox) -> String {
    let (ok, out) = py(
        sb,
        &[
            "-c",
            "import runpy; runpy.run_path('main.py'); import app.use; print(app.use.run())",
        ],
    );
    assert!(ok, "{out}");
    let (_, flakes) = py(sb, &["-m", "pyflakes", "app", "main.py"]);
    assert!(!flakes.contains(": undefined name"), "{flakes}");
    out
}

#[test]
fn renames_follow_every_import_form_and_undo_in_one_step() {
    let sb = project();
    let before_out = run_main(&sb);
    let before = sb.snapshot();
    let run = call(
        &sb,
        json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "assist"}),
    );
    let reply = ok(&run);
    assert_eq!(
        reply["summary"], "Renamed helper → assist (4 files, 10 edits; syntactic)",
        "{reply}"
    );
    assert_eq!(
        sb.read("app/use.py"),
        "import app.core\nfrom app import core as c\nfrom . import core\nfrom .core import assist as h\nfrom app.core import *\n\n\ndef run() -> int:\n    return app.core.assist(1) + c.assist(2) + core.assist(3) + h(4) + assist(5)\n"
    );
    assert_eq!(
        sb.read("app/__init__.py"),
        "from .core import assist\n\n__all__ = [\"assist\"]\n"
    );
    assert_eq!(
        sb.read("main.py"),
        "from app import assist\nfrom app.core import Box\n\nprint(assist(1), Box([1]).grow().size)\n"
    );
    assert_eq!(run_main(&sb), before_out);
    // One history entry: one undo restores every file.
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}{}", undo.stdout, undo.stderr);
    let restored: Vec<_> = sb
        .snapshot()
        .into_iter()
        .filter(|(p, _)| !p.components().any(|c| c.as_os_str() == ".filekit"))
        .collect();
    let was: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| !p.components().any(|c| c.as_os_str() == ".filekit"))
        .collect();
    assert_eq!(restored, was);

    // From an importer: renamed where it is defined.
    let run = call(
        &sb,
        json!({"file": "main.py", "refactor": "rename_symbol", "symbol": "Box", "new_name": "Crate"}),
    );
    ok(&run);
    assert!(sb.read("app/core.py").contains("class Crate:\n"));
    assert!(sb.read("app/core.py").contains("-> \"Crate\":"));
    assert_eq!(run_main(&sb), before_out);

    // A class attribute through `self`, by position (line 13 `    size = 1`, column 4).
    let run = call(
        &sb,
        json!({"file": "app/core.py", "refactor": "rename_symbol", "selection_range": {"start_line": 13, "start_column": 4, "end_line": 13, "end_column": 8}, "new_name": "volume"}),
    );
    let reply = ok(&run);
    assert!(
        reply["warnings"][0]
            .as_str()
            .unwrap()
            .contains("class attribute"),
        "{reply}"
    );
    assert!(
        sb.read("app/core.py")
            .contains("self.volume += len(self.items)")
    );
    sb.write("main.py", &sb.read("main.py").replace(".size", ".volume"));
    assert_eq!(run_main(&sb), before_out);

    // A `global` name: the declaration and the function's uses.
    let run = call(
        &sb,
        json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "COUNT", "new_name": "CALLS"}),
    );
    ok(&run);
    assert!(
        sb.read("app/core.py")
            .contains("    global CALLS\n    CALLS += 1\n")
    );

    // File scope: the imported name stays, the local one changes.
    let run = call(
        &sb,
        json!({"file": "main.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "aid", "scope": "file"}),
    );
    ok(&run);
    assert!(
        sb.read("main.py")
            .starts_with("from app import helper as aid\n")
    );
    assert!(sb.read("main.py").contains("print(aid(1)"));
    assert!(sb.read("app/core.py").contains("def helper("));
    assert_eq!(run_main(&sb), before_out);
}

#[test]
fn bad_python_renames_are_refused_and_change_nothing() {
    let sb = project();
    sb.write(
        "app/dup.py",
        "import os\n\n\ndef f():\n    v = 1\n    return v\n\n\ndef g():\n    v = 2\n    return v + len(os.sep)\n",
    );
    let cases: Vec<(Value, i32, &str)> = vec![
        (
            json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "nowhere", "new_name": "x"}),
            1,
            "no binding of `nowhere`",
        ),
        (
            json!({"file": "app/dup.py", "refactor": "rename_symbol", "symbol": "v", "new_name": "w"}),
            1,
            "bound in 2 scopes",
        ),
        (
            json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "1abc"}),
            2,
            "not a valid Python identifier",
        ),
        (
            json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "lambda"}),
            2,
            "Python keyword",
        ),
        (
            json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "Box"}),
            1,
            "already bound in the same scope",
        ),
        (
            json!({"file": "app/dup.py", "refactor": "rename_symbol", "symbol": "g.v", "new_name": "len"}),
            1,
            "builtin",
        ),
        (
            json!({"file": "app/dup.py", "refactor": "rename_symbol", "symbol": "os", "new_name": "system"}),
            1,
            "names a module",
        ),
        (
            json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "Box.nothing", "new_name": "x"}),
            1,
            "not declared there",
        ),
        (
            json!({"file": "app/core.py", "refactor": "organize_imports", "symbol": "x"}),
            2,
            "`symbol` does not apply",
        ),
    ];
    for (args, code, needle) in cases {
        let before = sb.snapshot();
        let run = call(&sb, args.clone());
        assert_eq!(run.code, code, "{args}: {}{}", run.stdout, run.stderr);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(needle), "{args}: expected {needle:?} in {all}");
        assert_eq!(before, sb.snapshot(), "{args}");
    }
    // A name imported from outside the workspace cannot be renamed where it is defined.
    sb.write("app/ext.py", "from os import path\n\nprint(path)\n");
    let run = call(
        &sb,
        json!({"file": "app/ext.py", "refactor": "rename_symbol", "symbol": "path", "new_name": "p"}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("not a module of the workspace"),
        "{}",
        run.stdout
    );
    // A rename that would collide in an importer.
    sb.write(
        "app/clash.py",
        "from .core import helper\n\nassist = 1\nprint(helper(assist))\n",
    );
    let before = sb.snapshot();
    let run = call(
        &sb,
        json!({"file": "app/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "assist"}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("app/clash.py"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn the_cli_verbs_on_python() {
    let sb = project();
    let path = path_without_server();
    let before = sb.snapshot();
    let run = sb.filekit_env(
        &[
            "rename-symbol",
            "app/core.py",
            "helper",
            "assist",
            "--dry-run",
            "--color",
            "never",
        ],
        None,
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+def assist(x: int) -> int:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Would rename helper → assist (4 files"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());
    sb.write("app/messy.py", "import sys\nimport os, json\nfrom app.core import Box\nfrom .core import helper\nimport requests\nfrom __future__ import annotations\n\nprint(sys, os, requests, Box, helper)\n");
    let run = sb.filekit_env(
        &["refactor", "organize_imports", "app/messy.py", "--json"],
        None,
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["precision"], "syntactic");
    assert_eq!(
        sb.read("app/messy.py"),
        "from __future__ import annotations\n\nimport os\nimport sys\n\nimport requests\n\nfrom app.core import Box\n\nfrom .core import helper\n\nprint(sys, os, requests, Box, helper)\n"
    );
}

#[test]
fn python_modules_follow_a_move_and_python_still_imports_them() {
    let sb = Sandbox::new();
    sb.write("app/__init__.py", "");
    sb.write("app/util.py", "def helper():\n    return 1\n");
    sb.write("app/core/__init__.py", "");
    sb.write(
        "app/core/models.py",
        "from ..util import helper\n\nclass User:\n    id = helper()\n",
    );
    sb.write("app/api/__init__.py", "");
    sb.write(
        "app/api/views.py",
        "from ..core.models import User\nimport app.core.models as m\nimport app.core.models\n\nVIEW = (User, m)\n",
    );
    sb.write(
        "main.py",
        "from app.core.models import User\nfrom app.api.views import VIEW\nprint(User.id, len(VIEW))\n",
    );
    let run = sb.call(
        "file_move",
        json!({"source": "app/core/models.py", "destination": "app/domain/models.py"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("app/api/views.py"),
        "from ..domain.models import User\nimport app.domain.models as m\nimport app.core.models\n\nVIEW = (User, m)\n"
    );
    assert_eq!(
        sb.read("main.py"),
        "from app.domain.models import User\nfrom app.api.views import VIEW\nprint(User.id, len(VIEW))\n"
    );
    // `import app.core.models` binds `app`: left, and said so.
    let warnings = run.json["warnings"].to_string();
    assert!(
        warnings.contains("import app.core.models"),
        "{}",
        run.stdout
    );
    // Python is the judge for the rest: with the unaliased import fixed by hand, it runs.
    let views = sb
        .read("app/api/views.py")
        .replace("import app.core.models\n", "");
    sb.write("app/api/views.py", &views);
    sb.write("app/domain/__init__.py", "");
    let out = std::process::Command::new("python3")
        .arg("main.py")
        .current_dir(sb.root())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1 2\n");
}

/// pyright offers no extract refactors: with the workspace trusted and pyright-langserver on
/// PATH, a Python extract is still done on the syntax tree.
#[test]
fn python_extract_with_pyright_on_path_is_syntactic() {
    let bin = filekit_testkit::test_dep("node_modules/.bin");
    assert!(
        bin.join("pyright-langserver").exists(),
        "pyright-langserver is missing from {}: run scripts/setup-test-deps",
        bin.display()
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sb = Sandbox::new();
    sb.write("calc.py", "def area(w, h):\n    return w * h + 1\n");
    let c = json!({"tool_name": "file_edit", "tool_args": {"file": "calc.py",
        "refactor": "extract_variable", "selection_range": {"start_line": 2, "start_column": 11, "end_line": 2, "end_column": 16}, "extracted_name": "size"}});
    let run = sb.filekit_env(
        &["--trust-workspace", "call"],
        Some(&c.to_string()),
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
    assert_eq!(
        sb.read("calc.py"),
        "def area(w, h):\n    size = w * h\n    return size + 1\n"
    );
}
