//! extract_function and extract_method keep what a program does: small JavaScript and Python
//! programs, run before and after each extraction (Node and the `.venv` interpreter that
//! `scripts/setup-test-deps` installs), print the same. For the rules the extraction refuses,
//! the naive edit it refuses does change what the program prints.

use filekit_testkit as test_data;

use filekit_semantic::Lang;
use filekit_semantic::python;
use filekit_semantic::ts::extract_function::extract_function;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a program and returns what it printed (stdout, and an uncaught error's line), killed
/// after 30 s.
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
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{interpreter} did not finish in 30 s:\n{program}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let err_line = err.lines().find(|l| l.contains("Error")).unwrap_or("");
    format!("{out}{err_line}")
}

fn node(program: &str) -> String {
    run_with(".test-deps/mcp-node/node_modules/.bin/node", "-e", program)
}

fn python(program: &str) -> String {
    run_with(".venv/bin/python", "-c", program)
}

fn sel(src: &str, what: &str) -> std::ops::Range<usize> {
    let s = src
        .find(what)
        .unwrap_or_else(|| panic!("{what:?} in {src}"));
    s..s + what.len()
}

fn same_output(run: fn(&str) -> String, before: &str, after: &str) {
    assert_ne!(before, after, "the refactor changed nothing");
    let (a, b) = (run(before), run(after));
    assert!(!a.is_empty(), "the program prints nothing:\n{before}");
    assert!(!a.contains("Error"), "the program fails:\n{before}\n{a}");
    assert_eq!(
        a, b,
        "output changed:\n--- before\n{before}\n--- after\n{after}"
    );
}

#[test]
fn javascript_extractions_keep_output() {
    // (program, selection, method)
    let cases: &[(&str, &str, bool)] = &[
        (
            "function total(items, rate) {\n  let sum = 0;\n  for (const i of items) {\n    sum += i;\n  }\n  const taxed = sum * rate;\n  return taxed;\n}\nconsole.log(total([1, 2, 3], 2));\n",
            "let sum = 0;\n  for (const i of items) {\n    sum += i;\n  }",
            false,
        ),
        (
            "function f(n) {\n  const a = n + 1;\n  let b = n * 2;\n  b++;\n  return [a, b];\n}\nconsole.log(f(3));\n",
            "const a = n + 1;\n  let b = n * 2;",
            false,
        ),
        (
            "function max(xs) {\n  let m = -Infinity;\n  for (const x of xs) {\n    if (x > m) {\n      m = x;\n    }\n  }\n  return m;\n}\nconsole.log(max([3, 9, 2]));\n",
            "if (x > m) {\n      m = x;\n    }",
            false,
        ),
        (
            "class Cart {\n  constructor() { this.items = [2, 5]; }\n  total(rate) {\n    const s = this.items.reduce((a, b) => a + b, 0);\n    return s * rate;\n  }\n}\nconsole.log(new Cart().total(3));\n",
            "this.items.reduce((a, b) => a + b, 0)",
            true,
        ),
        (
            "async function f(x) {\n  const y = await Promise.resolve(x * 2);\n  console.log(y + 1);\n}\nf(20);\n",
            "const y = await Promise.resolve(x * 2);",
            false,
        ),
        (
            "function counter(start) {\n  let n = start;\n  const inc = () => { n += 1; return n; };\n  inc();\n  return inc() + n;\n}\nconsole.log(counter(5));\n",
            "inc();",
            false,
        ),
        (
            "let hits = 0;\nfor (let i = 0; i < 3; i++) {\n  hits += i;\n  console.log(i, hits);\n}\nconsole.log(hits);\n",
            "hits += i;\n  console.log(i, hits);",
            false,
        ),
        (
            "function g(o) {\n  const label = o.kind === 'a' ? 'A' : 'other';\n  function shout(s) { return s.toUpperCase() + '!'; }\n  return shout(label);\n}\nconsole.log(g({ kind: 'a' }), g({ kind: 'b' }));\n",
            "const label = o.kind === 'a' ? 'A' : 'other';\n  function shout(s) { return s.toUpperCase() + '!'; }",
            false,
        ),
        (
            "function pick(n) {\n  console.log('n', n);\n  if (n > 1) {\n    return 'many';\n  }\n  if (n === 1) {\n    return 'one';\n  }\n}\nconsole.log(pick(0), pick(1), pick(5));\n",
            "if (n > 1) {\n    return 'many';\n  }\n  if (n === 1) {\n    return 'one';\n  }",
            false,
        ),
    ];
    for (src, what, method) in cases {
        let out = extract_function(Lang::JavaScript, src, sel(src, what), "extracted", *method)
            .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(node, src, &out.splices.apply(src).unwrap());
    }
}

#[test]
fn python_extractions_keep_output() {
    let cases: &[(&str, &str, bool)] = &[
        (
            "def total(items, rate):\n    s = 0\n    for i in items:\n        s += i\n    taxed = s * rate\n    return taxed\n\nprint(total([1, 2, 3], 2))\n",
            "s = 0\n    for i in items:\n        s += i",
            false,
        ),
        (
            "def f(n):\n    a = n + 1\n    b = n * 2\n    if n > 2:\n        a = 0\n    return a, b\n\nprint(f(1), f(3))\n",
            "b = n * 2\n    if n > 2:\n        a = 0",
            false,
        ),
        (
            "class Cart:\n    def __init__(self):\n        self.items = [2, 5]\n\n    def total(self, rate):\n        s = sum(self.items)\n        return s * rate\n\nprint(Cart().total(3))\n",
            "s = sum(self.items)",
            true,
        ),
        (
            "import asyncio\n\nasync def f(x):\n    y = await asyncio.sleep(0, x * 2)\n    print(y + 1)\n\nasyncio.run(f(20))\n",
            "y = await asyncio.sleep(0, x * 2)",
            false,
        ),
        (
            "hits = 0\nfor i in range(3):\n    hits += i\nprint(hits)\n",
            "print(hits)",
            false,
        ),
        (
            "def run(xs):\n    last = None\n    out = []\n    for x in xs:\n        out.append((x, last))\n        last = x * 10\n    return out\n\nprint(run([1, 2, 3]))\n",
            "last = x * 10",
            false,
        ),
        (
            "def pick(n):\n    print('n', n)\n    if n > 1:\n        return 'many'\n    if n == 1:\n        return 'one'\n\nprint(pick(0), pick(1), pick(5))\n",
            "if n > 1:\n        return 'many'\n    if n == 1:\n        return 'one'",
            false,
        ),
    ];
    for (src, what, method) in cases {
        let out =
            python::extract_function::extract_function(src, sel(src, what), "extracted", *method)
                .unwrap_or_else(|e| panic!("{src}: {}", e.message));
        same_output(python, src, &out.splices.apply(src).unwrap());
    }
}

/// Each refused edit, done naively by hand, changes what the program prints.
#[test]
fn refused_edits_would_change_output() {
    type Refuses = fn(&str) -> bool;
    type Runs = fn(&str) -> String;
    let cases: [(Runs, &str, &str, Refuses); 4] = [
        (
            node,
            "class A {\n  constructor() { this.n = 7; }\n  f() {\n    console.log(this.n);\n  }\n}\nnew A().f();\n",
            "class A {\n  constructor() { this.n = 7; }\n  f() {\n    extracted();\n  }\n}\nfunction extracted() {\n  console.log(this && this.n);\n}\nnew A().f();\n",
            |s| {
                extract_function(
                    Lang::JavaScript,
                    s,
                    sel(s, "console.log(this.n);"),
                    "extracted",
                    false,
                )
                .is_err()
            },
        ),
        (
            node,
            "function f(a) {\n  if (a) {\n    return 'early';\n  }\n  return 'late';\n}\nconsole.log(f(1));\n",
            "function f(a) {\n  extracted(a);\n  return 'late';\n}\nfunction extracted(a) {\n  if (a) {\n    return 'early';\n  }\n}\nconsole.log(f(1));\n",
            |s| {
                extract_function(
                    Lang::JavaScript,
                    s,
                    sel(s, "if (a) {\n    return 'early';\n  }"),
                    "extracted",
                    false,
                )
                .is_err()
            },
        ),
        (
            python,
            "def f(xs):\n    for x in xs:\n        if x > 1:\n            break\n        print(x)\n\nf([1, 2, 3])\n",
            "def f(xs):\n    for x in xs:\n        extracted(x)\n        print(x)\n\ndef extracted(x):\n    for _ in [0]:\n        if x > 1:\n            break\n\nf([1, 2, 3])\n",
            |s| {
                python::extract_function::extract_function(
                    s,
                    sel(s, "if x > 1:\n            break"),
                    "extracted",
                    false,
                )
                .is_err()
            },
        ),
        (
            python,
            "n = 0\ndef bump():\n    global n\n    n += 1\n\nbump()\nprint(n)\n",
            "n = 0\ndef bump():\n    extracted()\n\ndef extracted():\n    n = 0\n    n += 1\n\nbump()\nprint(n)\n",
            |s| {
                python::extract_function::extract_function(
                    s,
                    sel(s, "global n\n    n += 1"),
                    "extracted",
                    false,
                )
                .is_err()
            },
        ),
    ];
    for (run, program, naive, refuses) in cases {
        assert_ne!(
            run(program),
            run(naive),
            "the naive edit keeps the output:\n{naive}"
        );
        assert!(refuses(program), "the refactor does not refuse:\n{program}");
    }
}
