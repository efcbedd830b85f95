//! Python's inline_variable and convert_to_async without a language server,
//! through `filekit call` (file_edit's refactor mode) and the `refactor` verb: the result is
//! run by Python before and after, and the bad inputs change nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn range(sl: usize, sc: usize, el: usize, ec: usize) -> Value {
    json!({"start_line": sl, "start_column": sc, "end_line": el, "end_column": ec})
}

fn ok(run: &common::Run) {
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], json!(true), "{}", run.stdout);
    assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
}

/// What `python FILE` prints (the repository's virtualenv, from `scripts/setup-test-deps`).
fn run_python(sb: &Sandbox, file: &str) -> String {
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    assert!(
        py.exists(),
        "{} is missing: run scripts/setup-test-deps",
        py.display()
    );
    let out = Command::new(py)
        .arg(sb.path(file))
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn inline_variable_in_python_by_position_and_by_name() {
    let sb = Sandbox::new();
    sb.write(
        "calc.py",
        "def area(w, h):\n    size = w + h\n    return size * size\n\n\ndef label(n):\n    text = str(n)\n    return text.upper()\n\n\nprint(area(2, 3), label(7))\n",
    );
    let before = run_python(&sb, "calc.py");
    ok(&sb.call(
        "file_edit",
        json!({"file": "calc.py", "refactor": "inline_variable", "selection_range": range(2, 4, 2, 8)}),
    ));
    ok(&sb.call(
        "file_edit",
        json!({"file": "calc.py", "refactor": "inline_variable", "symbol": "text"}),
    ));
    assert_eq!(
        sb.read("calc.py"),
        "def area(w, h):\n    return (w + h) * (w + h)\n\n\ndef label(n):\n    return str(n).upper()\n\n\nprint(area(2, 3), label(7))\n"
    );
    assert_eq!(run_python(&sb, "calc.py"), before);
    // Through the verb, and undone in one step.
    sb.write(
        "v.py",
        "def f(a):\n    b = a - 1\n    return -b\n\n\nprint(f(5))\n",
    );
    let run = sb.filekit(
        &[
            "refactor",
            "inline_variable",
            "v.py",
            "--symbol",
            "b",
            "--json",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("v.py"),
        "def f(a):\n    return -(a - 1)\n\n\nprint(f(5))\n"
    );
    assert_eq!(run_python(&sb, "v.py"), "-4\n");
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}{}", undo.stdout, undo.stderr);
    assert_eq!(
        sb.read("v.py"),
        "def f(a):\n    b = a - 1\n    return -b\n\n\nprint(f(5))\n"
    );
}

/// A private module-level name is inlined only when no other module imports it.
#[test]
fn a_module_level_name_is_inlined_unless_another_module_imports_it() {
    let sb = Sandbox::new();
    sb.write("pkg/__init__.py", "")
        .write(
            "pkg/conf.py",
            "_RATE = 3\n_UNIT = 2\n\n\ndef cost(n):\n    return n * _RATE * _UNIT\n",
        )
        .write(
            "pkg/use.py",
            "from .conf import _RATE, cost\n\nprint(cost(2), _RATE)\n",
        )
        .write("main.py", "import pkg.conf\n\nprint(pkg.conf.cost(1))\n");
    sb.call_fails(
        "file_edit",
        json!({"file": "pkg/conf.py", "refactor": "inline_variable", "symbol": "_RATE"}),
        1,
        &["`_RATE` is imported by pkg/use.py"],
    );
    ok(&sb.call(
        "file_edit",
        json!({"file": "pkg/conf.py", "refactor": "inline_variable", "symbol": "_UNIT"}),
    ));
    assert_eq!(
        sb.read("pkg/conf.py"),
        "_RATE = 3\n\n\ndef cost(n):\n    return n * _RATE * 2\n"
    );
    assert_eq!(run_python(&sb, "main.py"), "6\n");
    sb.write("main.py", "import pkg.conf\n\nprint(pkg.conf._RATE)\n");
    sb.write("pkg/use.py", "");
    sb.call_fails(
        "file_edit",
        json!({"file": "pkg/conf.py", "refactor": "inline_variable", "symbol": "_RATE"}),
        1,
        &["`_RATE` is imported by main.py"],
    );
}

#[test]
fn convert_to_async_in_python_keeps_what_the_program_prints() {
    let sb = Sandbox::new();
    let src = "import asyncio\nimport types\n\n\n@types.coroutine\ndef tick():\n    yield\n\n\n@types.coroutine\ndef twice(n):\n    yield from tick()\n    got = yield from half(n)\n    return got * 4\n\n\nasync def half(n):\n    return n / 2\n\n\nprint(asyncio.run(twice(3)))\n";
    sb.write("co.py", src);
    let before = run_python(&sb, "co.py");
    ok(&sb.call(
        "file_edit",
        json!({"file": "co.py", "refactor": "convert_to_async", "selection_range": range(11, 4, 11, 4)}),
    ));
    assert_eq!(
        sb.read("co.py"),
        src.replace(
            "@types.coroutine\ndef twice(n):\n    yield from tick()\n    got = yield from half(n)",
            "async def twice(n):\n    await tick()\n    got = await half(n)"
        )
    );
    assert_eq!(run_python(&sb, "co.py"), before);
    // `tick` is a bare-yield generator: refused, naming it.
    sb.call_fails(
        "file_edit",
        json!({"file": "co.py", "refactor": "convert_to_async", "selection_range": range(6, 4, 6, 4)}),
        1,
        &["bare `yield`", "line 7"],
    );
    // Through the verb: the last coroutine decorator goes with its import.
    sb.write(
        "one.py",
        "import types\n\n\n@types.coroutine\ndef f(x):\n    return (yield from x)\n",
    );
    let run = sb.filekit(
        &[
            "refactor",
            "convert_to_async",
            "one.py",
            "--range",
            "5:4-5:4",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(sb.read("one.py"), "async def f(x):\n    return (await x)\n");
}

#[test]
fn bad_python_inputs_are_refused_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write(
        "m.py",
        "LIMIT = 3\n\n\ndef f(n):\n    k = n\n    k += 1\n    return k\n\n\ndef g(n):\n    return n\n",
    );
    sb.write("broken.py", "def f(:\n    x = 1\n");
    for (args, code, needle) in [
        (
            json!({"file": "m.py", "refactor": "inline_variable", "symbol": "k"}),
            1,
            "augmented assignment at line 6",
        ),
        (
            json!({"file": "m.py", "refactor": "inline_variable", "symbol": "LIMIT"}),
            1,
            "public module-level name",
        ),
        (
            json!({"file": "m.py", "refactor": "inline_variable", "symbol": "nowhere"}),
            1,
            "no binding of `nowhere`",
        ),
        (
            json!({"file": "m.py", "refactor": "inline_variable", "symbol": "1x"}),
            1,
            "not a valid Python identifier",
        ),
        (
            json!({"file": "m.py", "refactor": "inline_variable", "selection_range": range(2, 0, 2, 0)}),
            1,
            "no name at line 2",
        ),
        (
            json!({"file": "broken.py", "refactor": "inline_variable", "symbol": "x"}),
            1,
            "does not parse",
        ),
        (
            json!({"file": "m.py", "refactor": "convert_to_async", "selection_range": range(11, 4, 11, 4)}),
            1,
            "would change what every caller gets",
        ),
        (
            json!({"file": "broken.py", "refactor": "convert_to_async", "selection_range": range(1, 0, 1, 0)}),
            1,
            "does not parse",
        ),
    ] {
        sb.call_fails("file_edit", args, code, &[needle]);
    }
}
