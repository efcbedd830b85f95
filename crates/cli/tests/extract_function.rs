//! extract_function and extract_method without a language server, through the real
//! binary: `file_edit`'s refactor mode (`filekit call`) and the `refactor` verb compute them on
//! the syntax trees (`precision: "syntactic"`) and write through the one pipeline; a refused
//! extraction names what forbids it and changes nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

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

#[test]
fn extract_function_in_typescript_with_an_untyped_parameter_warned() {
    let sb = Sandbox::new();
    sb.write(
        "src/cart.ts",
        "export function total(prices: number[], rate: number) {\n  let sum = 0;\n  for (const p of prices) {\n    sum += p;\n  }\n  const n = prices.length;\n  return (sum * rate) / n;\n}\n",
    );
    let run = sb.call(
        "file_edit",
        json!({"file": "src/cart.ts", "refactor": "extract_function",
               "selection_range": range(2, 2, 5, 3), "extracted_name": "sumOf"}),
    );
    ok(&run);
    assert_eq!(
        sb.read("src/cart.ts"),
        "export function total(prices: number[], rate: number) {\n  let sum = sumOf(prices);\n  const n = prices.length;\n  return (sum * rate) / n;\n}\n\nfunction sumOf(prices: number[]) {\n  let sum = 0;\n  for (const p of prices) {\n    sum += p;\n  }\n  return sum;\n}\n"
    );
    // A parameter whose type cannot be known (the result of a function that states no return
    // type) is named in the reply; no tsconfig asks for `noImplicitAny`, so it is written.
    let run = sb.call(
        "file_edit",
        json!({"file": "src/cart.ts", "refactor": "extract_function",
               "selection_range": range(4, 9, 4, 21), "extracted_name": "scaled"}),
    );
    ok(&run);
    assert!(
        sb.read("src/cart.ts")
            .contains("function scaled(sum, rate: number) {"),
        "{}",
        sb.read("src/cart.ts")
    );
    let warnings = run.json["warnings"].to_string();
    assert!(warnings.contains("parameter `sum`"), "{}", run.stdout);
    assert!(warnings.contains("no tsconfig.json"), "{}", run.stdout);
}

#[test]
fn extract_method_in_python_and_javascript() {
    let sb = Sandbox::new();
    sb.write(
        "shop.py",
        "class Cart:\n    def total(self, rate):\n        s = sum(self.items)\n        return s * rate\n",
    );
    ok(&sb.call(
        "file_edit",
        json!({"file": "shop.py", "refactor": "extract_method",
               "selection_range": range(3, 8, 3, 27), "extracted_name": "subtotal"}),
    ));
    assert_eq!(
        sb.read("shop.py"),
        "class Cart:\n    def total(self, rate):\n        s = self.subtotal()\n        return s * rate\n\n    def subtotal(self):\n        s = sum(self.items)\n        return s\n"
    );
    sb.write(
        "a.js",
        "class A {\n  run(x) {\n    console.log(this.name, x);\n  }\n}\n",
    );
    ok(&sb.call(
        "file_edit",
        json!({"file": "a.js", "refactor": "extract_method",
               "selection_range": range(3, 4, 3, 30), "extracted_name": "report"}),
    ));
    assert_eq!(
        sb.read("a.js"),
        "class A {\n  run(x) {\n    this.report(x);\n  }\n\n  report(x) {\n    console.log(this.name, x);\n  }\n}\n"
    );
}

#[test]
fn the_refactor_verb_extracts_with_a_dry_run_first() {
    let sb = Sandbox::new();
    let src = "function f(a: number, b: number) {\n  console.log(a * b);\n}\n";
    sb.write("src/m.ts", src);
    let snap = sb.snapshot();
    let run = sb.filekit(
        &[
            "refactor",
            "extract_function",
            "src/m.ts",
            "--range",
            "2:2-2:21",
            "--name",
            "show",
            "--dry-run",
            "--color",
            "never",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("+  show(a, b);"), "{}", run.stdout);
    assert_eq!(snap, sb.snapshot());
    let run = sb.filekit(
        &[
            "refactor",
            "extract_function",
            "src/m.ts",
            "--range",
            "2:2-2:21",
            "--name",
            "show",
            "--json",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/m.ts"),
        "function f(a: number, b: number) {\n  show(a, b);\n}\n\nfunction show(a: number, b: number) {\n  console.log(a * b);\n}\n"
    );
    // The verb's refusal is the tool's, and changes nothing.
    let snap = sb.snapshot();
    let run = sb.filekit(
        &[
            "refactor",
            "extract_function",
            "src/m.ts",
            "--range",
            "2:2-2:7",
            "--name",
            "show2",
        ],
        None,
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        format!("{}{}", run.stdout, run.stderr)
            .contains("neither whole statements nor one expression"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(snap, sb.snapshot());
}

#[test]
fn bad_inputs_are_refused_with_the_reason_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write(
        "src/a.ts",
        "function taken() {}\nclass K {\n  n = 1;\n  f(xs: number[]) {\n    for (const x of xs) {\n      if (x > this.n) {\n        return x;\n      }\n    }\n    return 0;\n  }\n}\n",
    );
    sb.write("b.py", "def f(a, b):\n    x = a + b * 2\n    return x\n");
    sb.write("broken.ts", "function f() {\n  g(;\n}\n");
    sb.write("broken.py", "def f(:\n    g(1)\n");
    for (args, needle) in [
        (
            json!({"file": "src/a.ts", "refactor": "extract_function", "selection_range": range(6, 6, 8, 7)}),
            "`return` at line 7",
        ),
        (
            json!({"file": "src/a.ts", "refactor": "extract_function", "selection_range": range(5, 4, 9, 5)}),
            "`return` at line 7",
        ),
        (
            json!({"file": "src/a.ts", "refactor": "extract_function", "selection_range": range(6, 10, 6, 20)}),
            "uses `this` at line 6",
        ),
        (
            json!({"file": "src/a.ts", "refactor": "extract_method", "selection_range": range(6, 10, 6, 20), "extracted_name": "f"}),
            "`f` is already a member or a name used at line 4 of the class",
        ),
        (
            json!({"file": "b.py", "refactor": "extract_function", "selection_range": range(2, 8, 2, 13)}),
            "neither whole statements nor one expression",
        ),
        (
            json!({"file": "b.py", "refactor": "extract_function", "selection_range": range(2, 4, 2, 17), "extracted_name": "f"}),
            "`f` is already bound or used at line 1",
        ),
        (
            json!({"file": "broken.ts", "refactor": "extract_function", "selection_range": range(2, 2, 2, 5)}),
            "does not parse",
        ),
        (
            json!({"file": "broken.py", "refactor": "extract_method", "selection_range": range(2, 4, 2, 8)}),
            "does not parse",
        ),
    ] {
        let before = sb.snapshot();
        let run = sb.call("file_edit", args.clone());
        assert_eq!(run.code, 1, "{args}: {}", run.stdout);
        assert!(
            run.stdout.contains(needle),
            "{args}: expected {needle:?} in {}",
            run.stdout
        );
        assert_eq!(before, sb.snapshot(), "{args}: files changed");
    }
}

/// A class that another file's class `implements` gets no new method: that class would lack
/// it. Its search goes through the workspace's own walk (only TS files).
#[test]
fn a_method_of_a_class_implemented_elsewhere_is_refused() {
    let sb = Sandbox::new();
    sb.write(
        "src/log.ts",
        "export class Log {\n  lines: string[] = [];\n  add(s: string) {\n    this.lines.push(s.trim());\n  }\n}\n",
    );
    sb.write(
        "src/other.ts",
        "import { Log } from './log';\nexport class Quiet implements Log {\n  lines: string[] = [];\n  add(_s: string) {}\n}\n",
    );
    sb.call_fails(
        "file_edit",
        json!({"file": "src/log.ts", "refactor": "extract_method",
               "selection_range": range(4, 4, 4, 30), "extracted_name": "push"}),
        1,
        &["a class in src/other.ts implements `Log`"],
    );
    // Without the implementing class it applies.
    std::fs::remove_file(sb.path("src/other.ts")).unwrap();
    ok(&sb.call(
        "file_edit",
        json!({"file": "src/log.ts", "refactor": "extract_method",
               "selection_range": range(4, 4, 4, 30), "extracted_name": "push"}),
    ));
    assert!(sb.read("src/log.ts").contains("private push(s: string) {"));
}

/// The project's own settings decide: under `strict` (here through `extends`), a parameter
/// whose type cannot be known is refused, named, with what to do (the case found on rxjs: a
/// callback's parameter, typed only by where the callback is passed); asked for, it is
/// written untyped with a warning. Nothing is written when it is refused.
#[test]
fn under_strict_a_parameter_without_a_known_type_is_refused_by_name() {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.base.json",
        "{\n  // the project's checks\n  \"compilerOptions\": { \"strict\": true, },\n}\n",
    );
    sb.write(
        "tsconfig.json",
        r#"{ "extends": "./tsconfig.base.json", "include": ["src"] }"#,
    );
    sb.write(
        "src/Observable.ts",
        "export class Observable<T> {\n  constructor(public subscribe: (s: { next(v: T): void }) => void) {}\n}\n",
    );
    let tap = "import { Observable } from './Observable';\n\nexport function tap<T>(source: Observable<T>): Observable<T> {\n  return new Observable<T>((subscriber) => {\n    source.subscribe(subscriber);\n  });\n}\n";
    sb.write("src/tap.ts", tap);
    let args = json!({"file": "src/tap.ts", "refactor": "extract_function",
                      "selection_range": range(5, 4, 5, 33), "extracted_name": "fkExtractedFn"});
    let run = sb.call_fails(
        "file_edit",
        args.clone(),
        1,
        &[
            "parameter `subscriber`",
            "noImplicitAny",
            "`strict` in tsconfig.base.json",
            "untyped_parameters",
        ],
    );
    assert_eq!(run.json["success"], json!(false), "{}", run.stdout);
    assert_eq!(sb.read("src/tap.ts"), tap);

    // The verb says it with its flag.
    let run = sb.filekit(
        &[
            "refactor",
            "extract_function",
            "src/tap.ts",
            "--range",
            "5:4-5:33",
            "--name",
            "fkExtractedFn",
        ],
        None,
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr.contains("parameter `subscriber`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--untyped-parameters"),
        "{}",
        run.stderr
    );
    assert_eq!(sb.read("src/tap.ts"), tap);

    // Asked for, the parameter is written untyped and the reply says so.
    let mut untyped = args.clone();
    untyped["untyped_parameters"] = json!(true);
    let run = sb.call("file_edit", untyped);
    ok(&run);
    assert!(
        sb.read("src/tap.ts")
            .contains("function fkExtractedFn<T>(source: Observable<T>, subscriber) {"),
        "{}",
        sb.read("src/tap.ts")
    );
    let warnings = run.json["warnings"].to_string();
    assert!(
        warnings.contains("parameter `subscriber`"),
        "{}",
        run.stdout
    );
}

/// Without `noImplicitAny` (no `strict` in the chain, or `strict` turned off again by the
/// file that extends it) an untyped parameter is what the project accepts: written, with a
/// warning that names it.
#[test]
fn without_no_implicit_any_an_untyped_parameter_is_written_with_a_warning() {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.base.json",
        r#"{ "compilerOptions": { "strict": true } }"#,
    );
    sb.write(
        "tsconfig.json",
        r#"{ "extends": "./tsconfig.base.json", "compilerOptions": { "noImplicitAny": false } }"#,
    );
    sb.write(
        "src/each.ts",
        "export function each(xs: number[]) {\n  xs.forEach((x) => {\n    console.log(x);\n  });\n}\n",
    );
    let run = sb.call(
        "file_edit",
        json!({"file": "src/each.ts", "refactor": "extract_function",
               "selection_range": range(3, 4, 3, 19), "extracted_name": "show"}),
    );
    ok(&run);
    assert!(sb.read("src/each.ts").contains("function show(x) {"));
    let warnings = run.json["warnings"].to_string();
    assert!(warnings.contains("parameter `x`"), "{}", run.stdout);
}
