//! `inline_function` for TS/JS through the real binary: tsserver offers no such refactor, so
//! filekit inlines on the syntax trees (`precision: "syntactic"`), with or without the
//! language server on PATH. Judged by the TypeScript compiler of `scripts/setup-test-deps`
//! (`tsc` compiles it without an error) and by node: the compiled program prints the same
//! before and after.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn deps_bin() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.test-deps/node_modules/.bin")
        .canonicalize()
        .unwrap_or_else(|_| {
            panic!(".test-deps/node_modules/.bin is missing: run scripts/setup-test-deps once (typescript)")
        });
    assert!(
        bin.join("tsc").exists(),
        "tsc is missing from {}: run scripts/setup-test-deps",
        bin.display()
    );
    bin
}

fn path(server: bool) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("typescript-language-server").exists())
        .collect();
    if server {
        dirs.insert(0, deps_bin());
    }
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// `file_edit` through `filekit call`; with `server`, a trusted workspace
/// (`--trust-workspace`) with typescript-language-server on PATH.
fn call(sb: &Sandbox, args: Value, server: bool) -> common::Run {
    let c = json!({"tool_name": "file_edit", "tool_args": args});
    let verb: &[&str] = if server {
        &["--trust-workspace", "call"]
    } else {
        &["call"]
    };
    sb.filekit_env(verb, Some(&c.to_string()), &[("PATH", &path(server))])
}

const TSCONFIG: &str = r#"{
  "compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs",
                      "outDir": "out", "rootDir": "src"},
  "include": ["src"]
}
"#;

/// tsc passes; the compiled program's output. One tsc run both checks and compiles: it
/// exits non-zero on any type error.
fn run_program(sb: &Sandbox) -> String {
    let tsc = deps_bin().join("tsc");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(&tsc)
        .args(["-p"])
        .arg(sb.root())
        .args(["--outDir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tsc failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let run = Command::new("node")
        .arg(dir.path().join("main.js"))
        .output()
        .expect("node");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout).into_owned()
}

fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("tsconfig.json", TSCONFIG);
    sb.write(
        "src/geometry.ts",
        "/** The area of a rectangle. */\nexport function area(w: number, h: number): number {\n  return w * h;\n}\n\nexport const double = (x: number): number => x * 2;\n\nexport const describe = (name: string, size: number) => ({ name, size: double(size) });\n\nexport function perimeter(w: number, h: number): number {\n  return 2 * (w + h);\n}\n",
    );
    sb.write(
        "src/main.ts",
        "import { area, double as twice, describe } from './geometry';\nimport { report } from './report';\n\nlet counter = 0;\nfunction next(): number {\n  counter += 1;\n  return counter;\n}\n\nfunction label(n: number): string {\n  return `#${n}`;\n}\n\nconst a = area(1 + 2, 3) * 2;\nconst b = -area(a, twice(twice(3)));\nconst c = area(next(), 5);\nconsole.log(a, b, c, counter, [1, 2].map(label).join(','), label(7));\nconsole.log(JSON.stringify(describe('box', 4)), report(2, 3));\n",
    );
    sb.write(
        "src/report.ts",
        "import { area, perimeter } from './geometry';\n\nexport function report(w: number, h: number): string {\n  return `${area(w, h)} / ${perimeter(w, h)}`;\n}\n\nexport const fns = [perimeter];\n",
    );
    sb
}

#[test]
fn inlines_across_files_and_the_program_prints_the_same() {
    for server in [false, true] {
        let sb = project();
        let before = run_program(&sb);
        // A dry run: diffs, nothing written.
        let snap = sb.snapshot();
        let run = call(
            &sb,
            json!({"file": "src/geometry.ts", "refactor": "inline_function", "symbol": "area", "dry_run": true}),
            server,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(run.json["precision"], "syntactic");
        assert!(
            run.json["diff"]
                .as_str()
                .unwrap()
                .contains("+const a = ((1 + 2) * 3) * 2;"),
            "{}",
            run.stdout
        );
        assert_eq!(snap, sb.snapshot());

        let run = call(
            &sb,
            json!({"file": "src/geometry.ts", "refactor": "inline_function", "symbol": "area"}),
            server,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(
            run.json["files_affected"].as_array().unwrap().len(),
            3,
            "{}",
            run.stdout
        );
        let geometry = sb.read("src/geometry.ts");
        assert!(!geometry.contains("area"), "{geometry}");
        assert!(geometry.starts_with("export const double"), "{geometry}");
        let main = sb.read("src/main.ts");
        assert!(
            main.starts_with("import { double as twice, describe } from './geometry';"),
            "{main}"
        );
        assert!(main.contains("const b = -(a * twice(twice(3)));"), "{main}");
        assert!(main.contains("const c = next() * 5;"), "{main}");
        assert!(
            sb.read("src/report.ts")
                .contains("`${w * h} / ${perimeter(w, h)}`")
        );
        assert_eq!(run_program(&sb), before);

        // From a call site in an importer, through an alias; nested calls.
        let run = call(
            &sb,
            json!({"file": "src/main.ts", "refactor": "inline_function", "selection_range": {"start_line": 15, "start_column": 16, "end_line": 15, "end_column": 21}}),
            server,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let main = sb.read("src/main.ts");
        assert!(main.contains("-(a * ((3 * 2) * 2))"), "{main}");
        assert!(sb.read("src/geometry.ts").contains("size: size * 2"));
        assert!(!sb.read("src/geometry.ts").contains("double"));
        assert_eq!(run_program(&sb), before);

        // A local used as a value too: calls inlined, the declaration stays.
        let run = call(
            &sb,
            json!({"file": "src/main.ts", "refactor": "inline_function", "symbol": "label"}),
            server,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert!(
            run.json["warnings"][0]
                .as_str()
                .unwrap()
                .contains("used as a value"),
            "{}",
            run.stdout
        );
        assert!(sb.read("src/main.ts").contains("`#${7}`"));
        assert!(sb.read("src/main.ts").contains("function label("));
        assert_eq!(run_program(&sb), before);

        // An object-literal arrow.
        let run = call(
            &sb,
            json!({"file": "src/geometry.ts", "refactor": "inline_function", "symbol": "describe"}),
            server,
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert!(
            sb.read("src/main.ts")
                .contains("JSON.stringify(({ name: 'box', size: 4 * 2 }))"),
            "{}",
            sb.read("src/main.ts")
        );
        assert_eq!(run_program(&sb), before);

        // One undo per refactor.
        let undo = sb.filekit(&["undo"], None);
        assert_eq!(undo.code, 0, "{}", undo.stderr);
        assert!(sb.read("src/geometry.ts").contains("export const describe"));
        assert_eq!(run_program(&sb), before);
    }
}

#[test]
fn inlining_that_would_change_the_program_is_refused() {
    let sb = project();
    sb.write(
        "src/extra.ts",
        "import { next2 } from './seq';\n\nexport function twice(x: number): number {\n  return x + x;\n}\nexport function first(x: number, _y: number): number {\n  return x;\n}\nexport function maybe(c: boolean, x: number): number {\n  return c ? x : 0;\n}\nexport function fact(n: number): number {\n  return n <= 1 ? 1 : n * fact(n - 1);\n}\nexport function long(x: number): number {\n  const y = x + 1;\n  return y;\n}\nexport function withDefault(x: number = 1): number {\n  return x;\n}\nexport async function later(x: number): Promise<number> {\n  return x;\n}\nconst k = 3;\nexport function scaled(x: number): number {\n  return x * k;\n}\nexport const uses = [twice(next2()), first(1, next2()), maybe(true, next2()), fact(3), long(1), withDefault(), scaled(2)];\n",
    );
    sb.write(
        "src/seq.ts",
        "let i = 0;\nexport function next2(): number {\n  return ++i;\n}\n",
    );
    sb.write(
        "src/user.ts",
        "import { scaled } from './extra';\nexport const s = scaled(1);\n",
    );
    let cases: &[(&str, &str)] = &[
        ("twice", "evaluated more than once"),
        ("first", "would be dropped"),
        ("maybe", "evaluated only sometimes"),
        ("fact", "recursive"),
        ("long", "not a single `return expr;`"),
        ("withDefault", "default value"),
        ("later", "async"),
        ("scaled", "uses `k`"),
        ("nothing", "no module-level function `nothing`"),
    ];
    for (name, needle) in cases {
        let before = sb.snapshot();
        let run = call(
            &sb,
            json!({"file": "src/extra.ts", "refactor": "inline_function", "symbol": name}),
            false,
        );
        assert_eq!(run.code, 1, "{name}: {}", run.stdout);
        assert!(
            run.stdout.contains(needle),
            "{name}: expected {needle:?} in {}",
            run.stdout
        );
        assert_eq!(before, sb.snapshot(), "{name}");
    }
    // Exported and used as a value in another file.
    let run = call(
        &sb,
        json!({"file": "src/geometry.ts", "refactor": "inline_function", "symbol": "perimeter"}),
        false,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("exported and used as a value"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("src/report.ts line 7"),
        "{}",
        run.stdout
    );
    // Neither a name nor a range.
    let run = call(
        &sb,
        json!({"file": "src/geometry.ts", "refactor": "inline_function"}),
        false,
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("needs `selection_range`"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_refactor_verb_inlines_with_a_dry_run_first() {
    let sb = project();
    let before = run_program(&sb);
    let snap = sb.snapshot();
    let args = [
        "refactor",
        "inline_function",
        "src/geometry.ts",
        "--range",
        "2:16-2:20",
    ];
    let mut dry = args.to_vec();
    dry.extend(["--dry-run", "--color", "never"]);
    let run = sb.filekit_env(&dry, None, &[("PATH", &path(false))]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+const a = ((1 + 2) * 3) * 2;"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("-export function area("),
        "{}",
        run.stdout
    );
    assert_eq!(snap, sb.snapshot());
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let run = sb.filekit_env(&json_args, None, &[("PATH", &path(false))]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["refactor"], "inline_function");
    assert_eq!(run.json["action"], "Inline function 'area' (4 calls)");
    assert_eq!(run_program(&sb), before);
}
