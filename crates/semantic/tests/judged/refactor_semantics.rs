//! The syntactic refactors keep what a program does: small JavaScript programs
//! that print, run by Node before and after each refactor, print the same. And for the rules
//! the refactors refuse, the naive edit they refuse does change what a program prints (so the
//! refusal is needed), while the refactor refuses it.
//!
//! Node is the one `scripts/setup-test-deps` installs (`.test-deps/mcp-node`, Node 22), as CI
//! runs it before the tests.

use filekit_testkit as test_data;

use filekit_semantic::Lang;
use filekit_semantic::python;
use filekit_semantic::ts::Target;
use filekit_semantic::ts::convert::convert_to_arrow;
use filekit_semantic::ts::extract::{extract_constant, extract_variable};
use filekit_semantic::ts::inline_variable::inline_variable;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a JavaScript program with Node and returns what it printed.
fn run(program: &str) -> String {
    run_with(".test-deps/mcp-node/node_modules/.bin/node", "-e", program)
}

/// Runs a Python program with the `.venv` interpreter `scripts/setup-test-deps` makes.
fn run_py(program: &str) -> String {
    run_with(".venv/bin/python", "-c", program)
}

/// Runs a program and returns what it printed (stdout, and an uncaught error's message),
/// killed after 30 s.
fn run_with(interpreter: &str, flag: &str, program: &str) -> String {
    let exe = test_data::need(test_data::repo().join(interpreter));
    let mut child = Command::new(exe)
        .arg(flag)
        .arg(program)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the interpreter starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if child.try_wait().expect("wait for node").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{interpreter} did not finish in 30 s:\n{program}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    // An uncaught error's first line (its message), not its stack of temporary paths.
    let err_line = err.lines().find(|l| l.contains("Error")).unwrap_or("");
    format!("{out}{err_line}")
}

fn sel(src: &str, what: &str) -> std::ops::Range<usize> {
    let s = src.find(what).expect("selection");
    s..s + what.len()
}

fn same_output(before: &str, after: &str) {
    same_output_with(run, before, after)
}

fn same_output_with(run: fn(&str) -> String, before: &str, after: &str) {
    assert_ne!(before, after, "the refactor changed nothing");
    let (a, b) = (run(before), run(after));
    assert!(!a.is_empty(), "the program prints nothing:\n{before}");
    assert_eq!(
        a, b,
        "output changed:\n--- before\n{before}\n--- after\n{after}"
    );
}

#[test]
fn extract_variable_keeps_output() {
    let cases = [
        (
            "let calls = 0;\nfunction f(x) { calls++; return x * 2; }\nfunction g(a) {\n  const r = [a + 1, f(a + 1), a + 1];\n  return r.join(',') + ':' + calls;\n}\nconsole.log(g(3), g(4));\n",
            "a + 1",
            true,
        ),
        (
            "const o = { n: 2, m() { return this.n; } };\nconsole.log(o.m() * 10 + (o.n ? 1 : 0));\n",
            "o.m()",
            false,
        ),
        (
            "function h(s) {\n  if (s.length > 2) {\n    console.log(s.toUpperCase() + '!');\n  }\n}\nh('abc'); h('a');\n",
            "s.toUpperCase()",
            false,
        ),
        // A literal default value, named before its function.
        (
            "function d(x = 40 + 2) { return x; }\nconsole.log(d(), d(1));\n",
            "40 + 2",
            false,
        ),
    ];
    for (src, what, all) in cases {
        let out = extract_variable(Lang::JavaScript, src, sel(src, what), "extracted", all)
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(src, &out.splices.apply(src).unwrap());
    }
}

#[test]
fn extract_constant_keeps_output() {
    let cases = [
        "main();\nfunction main() {\n  console.log(60 * 60 * 24);\n}\n",
        "const K = 3;\nfunction f(x) { return x * (K + 1); }\nconsole.log(f(2), f(5));\n",
    ];
    for (src, what) in cases.iter().zip(["60 * 60 * 24", "K + 1"]) {
        let out = extract_constant(Lang::JavaScript, src, sel(src, what), "CONST_VALUE", true)
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(src, &out.splices.apply(src).unwrap());
    }
}

#[test]
fn inline_variable_keeps_output() {
    let cases = [
        (
            "function f(a, b) {\n  const s = a + b;\n  return s * s - s;\n}\nconsole.log(f(2, 3));\n",
            "s",
        ),
        (
            "let log = [];\nconst v = log.push('x');\nconsole.log(v, log);\n",
            "v",
        ),
        (
            "const t = true ? 1 : 2;\nconsole.log(t + 1, typeof t);\n",
            "t",
        ),
        (
            "const p = { a: 1 };\nconst q = p;\nconsole.log(JSON.stringify({ q }));\n",
            "q",
        ),
        // A closure called at each use; one counting through a variable it captures.
        (
            "let n = 0;\nconst bump = (k) => { n += k; return n; };\nconsole.log(bump(1), bump(2), [1, 2].map((x) => bump(x)), n);\n",
            "bump",
        ),
        // A new object moved into a branch that runs once.
        (
            "const o = { a: [1] };\nif (process.argv.length > 0) {\n  console.log(JSON.stringify(o));\n}\n",
            "o",
        ),
    ];
    for (src, name) in cases {
        let out = inline_variable(Lang::JavaScript, src, &Target::Name(name.into()))
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(src, &out.splices.apply(src).unwrap());
    }
}

#[test]
fn convert_to_arrow_keeps_output() {
    let cases = [
        (
            "function add(a, b = 1) { return a + b; }\nconsole.log(add(2), add(2, 3), add.length);\n",
            "add",
        ),
        (
            "const xs = [1, 2, 3].map(function (x) { return x * x; });\nconsole.log(xs);\n",
            "function (x)",
        ),
        (
            "class C { n = 5; get() { const f = function () { return 7; }; return this.n + f(); } }\nconsole.log(new C().get());\n",
            "function ()",
        ),
    ];
    for (src, at) in cases {
        let out = convert_to_arrow(Lang::JavaScript, src, src.find(at).unwrap())
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(src, &out.apply(src).unwrap());
    }
}

/// Each refused edit, done naively by hand, changes what the program prints: the refusal
/// protects something real.
#[test]
fn refused_edits_would_change_output() {
    // (program, naive edit of it, the refactor that must refuse it)
    type Refuse = fn(&str) -> bool;
    let cases: [(&str, &str, Refuse); 6] = [
        (
            "const o = null;\nconsole.log(o && o.x);\n",
            "const o = null;\nconst v = o.x;\nconsole.log(o && v);\n",
            |s| extract_variable(Lang::JavaScript, s, sel(s, "o.x"), "v", false).is_err(),
        ),
        (
            "let i = 0;\nconst xs = [];\nwhile (i < 3) { xs.push(i); i++; }\nconsole.log(xs);\n",
            "let i = 0;\nconst xs = [];\nconst c = i < 3;\nwhile (c) { xs.push(i); i++; if (i > 9) break; }\nconsole.log(xs);\n",
            |s| extract_variable(Lang::JavaScript, s, sel(s, "i < 3"), "c", false).is_err(),
        ),
        (
            "let n = 0;\nconst next = () => ++n;\nconsole.log(next() + n);\n",
            "let n = 0;\nconst next = () => ++n;\nconst v = n;\nconsole.log(next() + v);\n",
            |s| {
                let at = s.rfind("n)").unwrap();
                extract_variable(Lang::JavaScript, s, at..at + 1, "v", false).is_err()
            },
        ),
        (
            "let n = 0;\nconst v = ++n;\nconsole.log(v, v);\n",
            "let n = 0;\nconsole.log(++n, ++n);\n",
            |s| inline_variable(Lang::JavaScript, s, &Target::Name("v".into())).is_err(),
        ),
        (
            "const o = { n: 1, f: function () { return this.n; } };\nconsole.log(o.f());\n",
            "const o = { n: 1, f: () => { return this.n; } };\nconsole.log(o.f());\n",
            |s| convert_to_arrow(Lang::JavaScript, s, s.find("function").unwrap()).is_err(),
        ),
        (
            "console.log(sq(3));\nfunction sq(x) { return x * x; }\n",
            "console.log(sq(3));\nconst sq = (x) => { return x * x; };\n",
            |s| convert_to_arrow(Lang::JavaScript, s, s.find("function").unwrap()).is_err(),
        ),
    ];
    for (program, naive, refuses) in cases {
        assert_ne!(
            run(program),
            run(naive),
            "the naive edit keeps the output:\n{naive}"
        );
        assert!(refuses(program), "the refactor does not refuse:\n{program}");
    }
}

#[test]
fn python_extractions_keep_output() {
    let cases = [
        (
            "def area(w, h):\n    if w > 0:\n        print(w * h + 1, (w * h) * 2)\n    return w * h\n\nprint(area(2, 3), area(0, 1))\n",
            "w * h",
            true,
        ),
        (
            "calls = []\ndef f(x):\n    calls.append(x)\n    return x\n\nprint(f(1) + f(2), calls)\n",
            "f(1)",
            false,
        ),
    ];
    for (src, what, all) in cases {
        let s = src.find(what).unwrap();
        let out = python::extract::extract_variable(src, s..s + what.len(), "extracted", all)
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output_with(run_py, src, &out.splices.apply(src).unwrap());
    }
    let src = "import math\n\n\ndef circle(r):\n    return round(r * (2 * math.pi), 3)\n\nprint(circle(1), circle(2))\n";
    let s = src.find("2 * math.pi").unwrap();
    let out = python::extract::extract_constant(src, s..s + 11, "TAU", false).unwrap();
    same_output_with(run_py, src, &out.splices.apply(src).unwrap());
    // The refused edit would change the output: `x.y` runs only when `x` is truthy.
    let program = "x = None\nprint(x and x.y)\n";
    let naive = "x = None\nv = x.y\nprint(x and v)\n";
    assert_ne!(run_py(program), run_py(naive));
    let s = program.find("x.y").unwrap();
    assert!(python::extract::extract_variable(program, s..s + 3, "v", false).is_err());
}

#[test]
fn python_inline_variable_keeps_output_and_refuses_what_would_change_it() {
    use filekit_semantic::python::{Target as PyTarget, inline_variable as py_inline};
    let inline =
        |src: &str, name: &str| py_inline::inline_variable(src, &PyTarget::Name(name.into()));
    let cases = [
        (
            "def f(a, b):\n    s = a + b\n    return s * s - s, -s, s.bit_length()\n\nprint(f(2, 3))\n",
            "f.s",
        ),
        (
            "def f(xs):\n    v = xs.pop()\n    print(v, xs)\n\nf([1, 2])\n",
            "v",
        ),
        (
            "def f(c):\n    t = 1 if c else 2\n    return t + 1, f\"{t}!\"\n\nprint(f(True), f(False))\n",
            "t",
        ),
        (
            "def f(a):\n    pair = a, a + 1\n    return len(pair), pair\n\nprint(f(3))\n",
            "pair",
        ),
        (
            "def f(c):\n    k = lambda v: v * 2 if c else v\n    return k(3)\n\nprint(f(True), f(False))\n",
            "k",
        ),
    ];
    for (src, name) in cases {
        let out = inline(src, name).unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output_with(run_py, src, &out.splices.apply(src).unwrap());
    }
    // (program, the naive inline of `v`, which prints something else: the refactor refuses it)
    let refused = [
        (
            "def f(xs):\n    v = xs.pop()\n    return v, v\n\nprint(f([1, 2, 3]))\n",
            "def f(xs):\n    return xs.pop(), xs.pop()\n\nprint(f([1, 2, 3]))\n",
        ),
        (
            "def f(xs):\n    v = xs.pop()\n    return xs[-1] + v\n\nprint(f([1, 2, 3]))\n",
            "def f(xs):\n    return xs[-1] + xs.pop()\n\nprint(f([1, 2, 3]))\n",
        ),
        (
            "class O:\n    n = 1\ndef f(o):\n    v = o.n\n    o.n = 5\n    return v\n\nprint(f(O()))\n",
            "class O:\n    n = 1\ndef f(o):\n    o.n = 5\n    return o.n\n\nprint(f(O()))\n",
        ),
        (
            "def f(o):\n    v = o[0]\n    out = []\n    for x in range(3):\n        out.append(v)\n        o[0] = x\n    return out\n\nprint(f([9]))\n",
            "def f(o):\n    out = []\n    for x in range(3):\n        out.append(o[0])\n        o[0] = x\n    return out\n\nprint(f([9]))\n",
        ),
        (
            "def f(x):\n    v = x\n    return [v for x in range(2)]\n\nprint(f(7))\n",
            "def f(x):\n    return [x for x in range(2)]\n\nprint(f(7))\n",
        ),
        (
            "def f(it):\n    v = next(it)\n    return [v for _ in range(2)]\n\nprint(f(iter([1, 2, 3])))\n",
            "def f(it):\n    return [next(it) for _ in range(2)]\n\nprint(f(iter([1, 2, 3])))\n",
        ),
    ];
    for (program, naive) in refused {
        assert_ne!(
            run_py(program),
            run_py(naive),
            "the naive edit keeps the output:\n{naive}"
        );
        assert!(
            inline(program, "v").is_err(),
            "the refactor does not refuse:\n{program}"
        );
    }
}

#[test]
fn python_convert_to_async_keeps_output() {
    use filekit_semantic::python::convert_async::convert_to_async;
    let src = "import asyncio\nimport types\n\n\n@types.coroutine\ndef tick():\n    yield\n\n\n@types.coroutine\ndef add(a, b):\n    yield from tick()\n    return a + b\n\n\n@types.coroutine\ndef total(xs):\n    s = 0\n    for x in xs:\n        s += yield from add(s, x)\n    return (yield from add(s, 0 if s else 1)) * 2\n\n\nasync def main():\n    print(await total([1, 2, 3]), await add(2, 2))\n\n\nasyncio.run(main())\n";
    for at in ["def add", "def total"] {
        let out = convert_to_async(src, src.find(at).unwrap() + 4)
            .unwrap_or_else(|e| panic!("{at}: {}", e.message));
        same_output_with(run_py, src, &out.apply(src).unwrap());
    }
}
