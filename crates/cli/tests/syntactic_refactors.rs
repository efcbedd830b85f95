//! The refactors that need no language server, through the real binary: in a
//! workspace that is not trusted no server starts, and `file_edit`'s refactor mode computes
//! extract_variable, extract_constant (TS/JS and Python), inline_variable,
//! convert_to_arrow and convert_to_function on the syntax trees (`precision: "syntactic"`), through the one write
//! pipeline. A refused refactor names what forbids it and changes nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

fn edit(sb: &Sandbox, args: Value) -> common::Run {
    sb.call("file_edit", args)
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

fn range(sl: usize, sc: usize, el: usize, ec: usize) -> Value {
    json!({"start_line": sl, "start_column": sc, "end_line": el, "end_column": ec})
}

#[test]
fn extract_variable_and_constant_in_typescript() {
    let sb = Sandbox::new();
    sb.write(
        "src/area.ts",
        "export function area(w: number, h: number) {\n  return w * h + (60 * 60);\n}\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "src/area.ts", "refactor": "extract_variable",
               "selection_range": range(2, 9, 2, 14), "extracted_name": "size"}),
    ));
    assert_eq!(
        sb.read("src/area.ts"),
        "export function area(w: number, h: number) {\n  const size = w * h;\n  return size + (60 * 60);\n}\n"
    );
    let run = edit(
        &sb,
        json!({"file": "src/area.ts", "refactor": "extract_constant",
               "selection_range": range(3, 17, 3, 24), "extracted_name": "HOUR"}),
    );
    ok(&run);
    assert_eq!(
        run.json["action"],
        json!("Extract to constant in module scope")
    );
    assert_eq!(
        sb.read("src/area.ts"),
        "const HOUR = 60 * 60;\nexport function area(w: number, h: number) {\n  const size = w * h;\n  return size + HOUR;\n}\n"
    );
    // It reads a local: a constant in the function, before its statement.
    let run = edit(
        &sb,
        json!({"file": "src/area.ts", "refactor": "extract_constant",
               "selection_range": range(4, 9, 4, 20), "extracted_name": "TOTAL"}),
    );
    ok(&run);
    assert_eq!(
        run.json["action"],
        json!("Extract to constant in enclosing scope")
    );
    assert_eq!(
        sb.read("src/area.ts"),
        "const HOUR = 60 * 60;\nexport function area(w: number, h: number) {\n  const size = w * h;\n  const TOTAL = size + HOUR;\n  return TOTAL;\n}\n"
    );
}

#[test]
fn extract_in_python() {
    let sb = Sandbox::new();
    sb.write("calc.py", "def area(w, h):\n    return w * h + 1\n");
    ok(&edit(
        &sb,
        json!({"file": "calc.py", "refactor": "extract_variable",
               "selection_range": range(2, 11, 2, 16), "extracted_name": "size"}),
    ));
    assert_eq!(
        sb.read("calc.py"),
        "def area(w, h):\n    size = w * h\n    return size + 1\n"
    );
    // Python has no constants: one that reads a local is assigned in the function.
    let run = edit(
        &sb,
        json!({"file": "calc.py", "refactor": "extract_constant",
               "selection_range": range(3, 11, 3, 19), "extracted_name": "AREA"}),
    );
    ok(&run);
    assert_eq!(
        run.json["action"],
        json!("Extract to constant in enclosing scope")
    );
    assert_eq!(
        sb.read("calc.py"),
        "def area(w, h):\n    size = w * h\n    AREA = size + 1\n    return AREA\n"
    );
}

#[test]
fn inline_variable_and_convert_to_arrow() {
    let sb = Sandbox::new();
    sb.write(
        "main.js",
        "function twice(x) {\n  const d = x + x;\n  return d * d;\n}\nconsole.log(twice(2));\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "main.js", "refactor": "inline_variable", "selection_range": range(2, 8, 2, 9)}),
    ));
    assert_eq!(
        sb.read("main.js"),
        "function twice(x) {\n  return (x + x) * (x + x);\n}\nconsole.log(twice(2));\n"
    );
    ok(&edit(
        &sb,
        json!({"file": "main.js", "refactor": "convert_to_arrow", "selection_range": range(1, 9, 1, 9)}),
    ));
    assert_eq!(
        sb.read("main.js"),
        "const twice = (x) => {\n  return (x + x) * (x + x);\n};\nconsole.log(twice(2));\n"
    );
}

/// convert_to_function, convert_to_arrow's inverse: a dry run shows the diff and writes
/// nothing; the `const` becomes a declaration (hoisted, so a use above it is fine), an arrow
/// in an expression a function expression; one undo takes a conversion back.
#[test]
fn convert_to_function_turns_a_const_arrow_into_a_declaration() {
    let sb = Sandbox::new();
    let src = "export const area = (w: number, h: number): number => w * h;\nconst all = [1, 2].map((n) => area(n, n));\n";
    sb.write("src/shapes.ts", src);
    let dry = edit(
        &sb,
        json!({"file": "src/shapes.ts", "refactor": "convert_to_function", "selection_range": range(1, 20, 1, 20), "dry_run": true}),
    );
    ok(&dry);
    assert!(
        dry.stdout
            .contains("+export function area(w: number, h: number): number { return w * h; }"),
        "{}",
        dry.stdout
    );
    assert_eq!(sb.read("src/shapes.ts"), src, "a dry run wrote");
    ok(&edit(
        &sb,
        json!({"file": "src/shapes.ts", "refactor": "convert_to_function", "selection_range": range(1, 20, 1, 20)}),
    ));
    ok(&edit(
        &sb,
        json!({"file": "src/shapes.ts", "refactor": "convert_to_function", "selection_range": range(2, 24, 2, 24)}),
    ));
    assert_eq!(
        sb.read("src/shapes.ts"),
        "export function area(w: number, h: number): number { return w * h; }\nconst all = [1, 2].map(function (n) { return area(n, n); });\n"
    );
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(
        sb.read("src/shapes.ts"),
        "export function area(w: number, h: number): number { return w * h; }\nconst all = [1, 2].map((n) => area(n, n));\n"
    );
    // The arrow's `this` is the class's: a function would have its own.
    sb.write("src/c.ts", "class C {\n  x = 1;\n  f = () => this.x;\n}\n");
    let before = sb.snapshot();
    let run = edit(
        &sb,
        json!({"file": "src/c.ts", "refactor": "convert_to_function", "selection_range": range(3, 6, 3, 6)}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("`this`"), "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn refusals_name_what_forbids_them_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write(
        "src/a.ts",
        "console.log(f(1));\nfunction f(n: number) {\n  return n > 0 && g(n + 1);\n}\nfunction g(n: number) { return n; }\n",
    );
    sb.write("b.py", "def f(a):\n    return a and g(a * 2)\n");
    sb.write("broken.ts", "const x = (1 + ;\n");
    for (args, needle) in [
        (
            json!({"file": "src/a.ts", "refactor": "extract_variable", "selection_range": range(3, 18, 3, 26)}),
            "the right of `&&` (line 3)",
        ),
        (
            json!({"file": "src/a.ts", "refactor": "extract_variable", "selection_range": range(3, 13, 3, 19)}),
            "not one expression",
        ),
        (
            json!({"file": "src/a.ts", "refactor": "convert_to_arrow", "selection_range": range(2, 9, 2, 9)}),
            "before its declaration",
        ),
        (
            json!({"file": "b.py", "refactor": "extract_constant", "selection_range": range(2, 19, 2, 24)}),
            "the right of `and` (line 2)",
        ),
        (
            json!({"file": "broken.ts", "refactor": "extract_variable", "selection_range": range(1, 11, 1, 12)}),
            "does not parse",
        ),
    ] {
        let before = sb.snapshot();
        let run = edit(&sb, args.clone());
        assert_eq!(run.code, 1, "{args}: {}", run.stdout);
        assert!(
            run.stdout.contains(needle),
            "{args}: expected {needle:?} in {}",
            run.stdout
        );
        assert_eq!(before, sb.snapshot(), "{args}: files changed");
    }
}

/// `replace_all` extracts every identical occurrence in the scope (TS and Python), and
/// inline_variable takes the variable's name as `symbol`; both refused where they do not
/// apply, with nothing written.
#[test]
fn every_occurrence_and_inline_by_name() {
    let sb = Sandbox::new();
    let ts = "function f(a: number[]) {\n  const n = a.length;\n  console.log(a.length * 2, a.length + 1);\n  return n;\n}\nconst total = 2 + 3;\nconsole.log(total * total);\n";
    sb.write("t.ts", ts);
    let run = edit(
        &sb,
        json!({"file": "t.ts", "refactor": "extract_variable", "selection_range": range(3, 14, 3, 22),
               "extracted_name": "len", "replace_all": true}),
    );
    ok(&run);
    assert_eq!(
        sb.read("t.ts"),
        ts.replace(
            "  const n = a.length;\n  console.log(a.length * 2, a.length + 1);",
            "  const len = a.length;\n  const n = len;\n  console.log(len * 2, len + 1);"
        )
    );
    sb.write("t.ts", ts);
    let run = edit(
        &sb,
        json!({"file": "t.ts", "refactor": "inline_variable", "symbol": "total"}),
    );
    ok(&run);
    assert!(
        sb.read("t.ts")
            .ends_with("}\nconsole.log((2 + 3) * (2 + 3));\n"),
        "{}",
        sb.read("t.ts")
    );

    sb.write("m.py", "def f(x):\n    y = x * 2\n    return x * 2 + y\n");
    let run = edit(
        &sb,
        json!({"file": "m.py", "refactor": "extract_variable", "selection_range": range(2, 8, 2, 13),
               "extracted_name": "double", "replace_all": true}),
    );
    ok(&run);
    assert_eq!(
        sb.read("m.py"),
        "def f(x):\n    double = x * 2\n    y = double\n    return double + y\n"
    );
    // A call may have effects: extracting every occurrence is refused with why.
    sb.write(
        "n.py",
        "def f(xs):\n    print(len(xs))\n    return len(xs) + 1\n",
    );
    let run = edit(
        &sb,
        json!({"file": "n.py", "refactor": "extract_variable", "selection_range": range(2, 10, 2, 17),
               "extracted_name": "count", "replace_all": true}),
    );
    assert!(
        run.stdout.contains("replacing every occurrence"),
        "{}",
        run.stdout
    );

    // replace_all belongs to the two extracts; an unknown name to inline is refused by name.
    sb.write("t.ts", ts);
    let run = sb.call_fails(
        "file_edit",
        json!({"file": "t.ts", "refactor": "extract_type", "selection_range": range(1, 14, 1, 22),
               "replace_all": true}),
        2,
        &["replace_all"],
    );
    assert_eq!(run.json["success"], json!(false));
    let run = edit(
        &sb,
        json!({"file": "t.ts", "refactor": "inline_variable", "symbol": "missing"}),
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("missing"), "{}", run.stdout);
    assert_eq!(sb.read("t.ts"), ts);
}

/// `extracted_name` is checked by the file's language: `delete` names a Python variable but
/// not a JavaScript one, `$total` the reverse.
#[test]
fn the_extracted_name_follows_the_files_language() {
    let sb = Sandbox::new();
    sb.write("m.py", "def f(x):\n    return x * 2 + 1\n");
    let run = edit(
        &sb,
        json!({"file": "m.py", "refactor": "extract_variable", "selection_range": range(2, 11, 2, 16),
               "extracted_name": "delete"}),
    );
    ok(&run);
    assert_eq!(
        sb.read("m.py"),
        "def f(x):\n    delete = x * 2\n    return delete + 1\n"
    );
    sb.write("m.js", "function f(x) {\n  return x * 2 + 1;\n}\n");
    let run = sb.call_fails(
        "file_edit",
        json!({"file": "m.js", "refactor": "extract_variable", "selection_range": range(2, 9, 2, 14),
               "extracted_name": "delete"}),
        2,
        &["extracted_name"],
    );
    assert_eq!(run.json["success"], json!(false));
    let run = edit(
        &sb,
        json!({"file": "m.js", "refactor": "extract_variable", "selection_range": range(2, 9, 2, 14),
               "extracted_name": "$total"}),
    );
    ok(&run);
    let run = sb.call_fails(
        "file_edit",
        json!({"file": "m.py", "refactor": "extract_variable", "selection_range": range(3, 11, 3, 17),
               "extracted_name": "$total"}),
        2,
        &["extracted_name"],
    );
    assert_eq!(run.json["success"], json!(false));
}

/// extract_variable and extract_constant hold to the project's `strict` too: a callback moved
/// out of the call that typed its parameters would leave them implicitly `any`, so it is
/// refused, naming them, unless untyped parameters are asked for; `untyped_parameters` is
/// refused where nothing declares parameters.
#[test]
fn extracting_a_callback_under_strict_names_the_parameters_it_would_lose() {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true } }"#,
    );
    let src =
        "export function each(xs: number[]) {\n  xs.forEach((x, i) => console.log(x, i));\n}\n";
    sb.write("src/each.ts", src);
    for kind in ["extract_variable", "extract_constant"] {
        let run = sb.call_fails(
            "file_edit",
            json!({"file": "src/each.ts", "refactor": kind,
                   "selection_range": range(2, 13, 2, 40), "extracted_name": "log"}),
            1,
            &["`x`, `i` would have no type", "`strict` in tsconfig.json"],
        );
        assert_eq!(
            run.json["details"]["parameters"][1]["name"],
            json!("i"),
            "{}",
            run.stdout
        );
    }
    ok(&edit(
        &sb,
        json!({"file": "src/each.ts", "refactor": "extract_variable",
               "selection_range": range(2, 13, 2, 40), "extracted_name": "log",
               "untyped_parameters": true}),
    ));
    assert!(
        sb.read("src/each.ts")
            .contains("const log = (x, i) => console.log(x, i);")
    );
    sb.call_fails(
        "file_edit",
        json!({"file": "src/each.ts", "refactor": "inline_variable", "symbol": "log",
               "untyped_parameters": true}),
        2,
        &["`untyped_parameters` does not apply to inline_variable"],
    );
}
