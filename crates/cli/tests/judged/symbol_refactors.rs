//! The refactor mode of `file_edit` (the semantic table's design) and the `rename-symbol` and
//! `refactor` verbs, through the real binary: with typescript-language-server on PATH (from
//! `scripts/setup-test-deps`, precision "semantic") and without it (precision "syntactic").
//! The TypeScript compiler of the same npm install judges every result: `tsc --noEmit` must
//! pass on the refactored project.

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
            panic!(
                ".test-deps/node_modules/.bin is missing: run scripts/setup-test-deps once to \
                 install typescript and typescript-language-server (the refactor tests need them)"
            )
        });
    for exe in ["tsc", "typescript-language-server"] {
        assert!(
            bin.join(exe).exists(),
            "{exe} is missing from {}: run scripts/setup-test-deps",
            bin.display()
        );
    }
    bin
}

/// PATH without any directory that holds a language server.
fn path_without_server() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("typescript-language-server").exists())
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// PATH with the test deps' server first.
fn path_with_server() -> String {
    format!("{}:{}", deps_bin().display(), path_without_server())
}

/// `file_edit` through `filekit call`: with `server`, the workspace is trusted
/// (`--trust-workspace`: a language server runs the workspace's code) and the test deps'
/// server is on PATH; without, neither.
fn call(sb: &Sandbox, args: Value, server: bool) -> common::Run {
    let (path, verb): (String, &[&str]) = if server {
        (path_with_server(), &["--trust-workspace", "call"])
    } else {
        (path_without_server(), &["call"])
    };
    let c = json!({"tool_name": "file_edit", "tool_args": args});
    sb.filekit_env(verb, Some(&c.to_string()), &[("PATH", &path)])
}

fn ok(run: &common::Run) -> &Value {
    assert_eq!(
        run.code, 0,
        "expected success\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], json!(true), "{}", run.stdout);
    &run.json
}

/// `tsc --noEmit` on the sandbox's project must pass.
fn type_checks(sb: &Sandbox) {
    let out = Command::new(deps_bin().join("tsc"))
        .args(["--noEmit", "-p"])
        .arg(sb.root())
        .env("PATH", path_with_server())
        .output()
        .expect("run tsc");
    assert!(
        out.status.success(),
        "tsc --noEmit failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

const TSCONFIG: &str = r#"{
  "compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext",
                      "moduleResolution": "bundler", "noUnusedLocals": false},
  "include": ["src"]
}
"#;

/// A small project: a library module, a barrel, importers by name, alias, namespace and
/// re-export, and a local that shadows the renamed name.
fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("tsconfig.json", TSCONFIG);
    sb.write(
        "src/lib/math.ts",
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport const PI = 3.14;\n\nexport function twice(n: number): number {\n  return add(n, n);\n}\n",
    );
    sb.write("src/lib/index.ts", "export { add, PI } from './math';\n");
    sb.write(
        "src/app.ts",
        "import { add } from './lib';\nimport { add as plus, twice } from './lib/math.js';\nimport * as m from './lib/math';\n\nfunction shadow(add: number): number {\n  return add * 2;\n}\n\nexport const total = add(1, 2) + plus(3, 4) + m.add(5, 6) + twice(shadow(1));\n",
    );
    sb.write(
        "src/other.ts",
        "// does not import it\nexport function add(x: string): string {\n  return x + x;\n}\nexport const s = add('a');\n",
    );
    sb
}

/// The projects the refactors start from type-check (checked here once, not for every
/// sandbox made of them), so a failed check after a refactor is the refactor's doing.
#[test]
fn the_projects_type_check_as_written() {
    type_checks(&project());
    type_checks(&imports_project());
    type_checks(&calc_project());
}

/// The project's own files of a snapshot (not the history).
fn project_files(snap: &std::collections::BTreeMap<PathBuf, Vec<u8>>) -> Vec<(PathBuf, Vec<u8>)> {
    snap.iter()
        .filter(|(p, _)| !p.components().any(|c| c.as_os_str() == ".filekit"))
        .map(|(p, c)| (p.clone(), c.clone()))
        .collect()
}

fn rename_add(sb: &Sandbox, server: bool) -> Value {
    let run = call(
        sb,
        json!({"file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "sum"}),
        server,
    );
    ok(&run).clone()
}

#[test]
fn rename_across_files_without_a_server_type_checks_and_undoes() {
    let sb = project();
    let before = sb.snapshot();
    let reply = rename_add(&sb, false);
    assert_eq!(reply["precision"], "syntactic");
    assert_eq!(reply["refactor"], "rename_symbol");
    let mut files: Vec<&str> = reply["files_affected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["src/app.ts", "src/lib/index.ts", "src/lib/math.ts"]);
    assert!(
        sb.read("src/lib/math.ts")
            .contains("export function sum(a: number")
    );
    assert!(sb.read("src/lib/math.ts").contains("return sum(n, n);"));
    assert_eq!(
        sb.read("src/lib/index.ts"),
        "export { sum, PI } from './math';\n"
    );
    let app = sb.read("src/app.ts");
    assert!(app.starts_with("import { sum } from './lib';\nimport { sum as plus, twice }"));
    assert!(app.contains("function shadow(add: number): number {\n  return add * 2;"));
    assert!(app.contains("sum(1, 2) + plus(3, 4) + m.sum(5, 6)"));
    // A file with its own `add` is not touched.
    assert!(
        sb.read("src/other.ts")
            .contains("export function add(x: string)")
    );
    type_checks(&sb);
    // One history entry: one undo restores every file.
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}{}", undo.stdout, undo.stderr);
    assert!(
        project_files(&before) == project_files(&sb.snapshot()),
        "undo restores every file"
    );
}

/// The importers are found through the import graph, with its resolver: `export *` barrels
/// pass the name on, and tsconfig `paths` aliases name the declaring file too.
#[test]
fn rename_without_a_server_follows_export_star_barrels_and_path_aliases() {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        &TSCONFIG.replace(
            "\"noUnusedLocals\": false}",
            "\"noUnusedLocals\": false, \"baseUrl\": \".\", \"paths\": {\"@lib/*\": [\"src/lib/*\"]}}",
        ),
    );
    sb.write(
        "src/lib/math.ts",
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    );
    sb.write("src/lib/all.ts", "export * from './math';\n");
    sb.write("src/lib/index.ts", "export * from './all';\n");
    sb.write(
        "src/app.ts",
        "import { add } from './lib';\nexport const one = add(1, 2);\n",
    );
    sb.write(
        "src/alias.ts",
        "import { add } from '@lib/math';\nimport { add as plus } from '@lib/all';\nexport const two = add(3, 4) + plus(5, 6);\n",
    );
    type_checks(&sb);
    let reply = rename_add(&sb, false);
    assert_eq!(reply["precision"], "syntactic");
    let mut files: Vec<&str> = reply["files_affected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["src/alias.ts", "src/app.ts", "src/lib/math.ts"]);
    assert_eq!(
        sb.read("src/app.ts"),
        "import { sum } from './lib';\nexport const one = sum(1, 2);\n"
    );
    assert_eq!(
        sb.read("src/alias.ts"),
        "import { sum } from '@lib/math';\nimport { sum as plus } from '@lib/all';\nexport const two = sum(3, 4) + plus(5, 6);\n"
    );
    assert_eq!(sb.read("src/lib/all.ts"), "export * from './math';\n");
    type_checks(&sb);
}

#[test]
fn rename_across_files_with_the_server_type_checks() {
    let sb = project();
    let reply = rename_add(&sb, true);
    assert_eq!(reply["precision"], "semantic");
    assert_eq!(reply["server"], "typescript-language-server");
    assert!(reply["total_edits"].as_u64().unwrap() >= 5, "{reply}");
    assert!(sb.read("src/lib/math.ts").contains("export function sum("));
    let app = sb.read("src/app.ts");
    assert!(app.contains("function shadow(add: number)"), "{app}");
    assert!(
        sb.read("src/other.ts")
            .contains("export function add(x: string)")
    );
    type_checks(&sb);
}

#[test]
fn rename_of_an_imported_name_renames_its_declaration() {
    let sb = project();
    let run = call(
        &sb,
        json!({"file": "src/app.ts", "refactor": "rename_symbol", "selection_range": {"start_line": 2, "start_column": 22, "end_line": 2, "end_column": 27}, "new_name": "double"}),
        false,
    );
    ok(&run);
    assert!(
        sb.read("src/lib/math.ts")
            .contains("export function double(n: number)")
    );
    assert!(sb.read("src/app.ts").contains("plus, double } from"));
    type_checks(&sb);
}

#[test]
fn rename_with_file_scope_keeps_the_public_name() {
    let sb = project();
    let run = call(
        &sb,
        json!({"file": "src/app.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "addUp", "scope": "file"}),
        false,
    );
    let reply = ok(&run);
    assert_eq!(reply["files_affected"], json!(["src/app.ts"]));
    let app = sb.read("src/app.ts");
    assert!(
        app.starts_with("import { add as addUp } from './lib';"),
        "{app}"
    );
    assert!(app.contains("addUp(1, 2)"));
    assert!(app.contains("return add * 2;"));
    type_checks(&sb);
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diffs() {
    for server in [false, true] {
        let sb = project();
        let before = sb.snapshot();
        let run = call(
            &sb,
            json!({"file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "sum", "dry_run": true}),
            server,
        );
        let reply = ok(&run);
        assert_eq!(reply["dry_run"], true);
        let diff = reply["diff"].as_str().unwrap();
        assert!(diff.contains("+export function sum("), "{diff}");
        assert!(diff.contains("src/app.ts"), "{diff}");
        assert_eq!(before, sb.snapshot(), "a dry run writes nothing");
    }
}

const IMPORTS: &str = "// header comment\n\nimport { z, a } from './lib/math';\nimport './side';\n// about b\nimport { twice } from './lib/math';\nimport { PI, add } from './lib';\nimport { unusedThing } from './lib/math';\n\nexport const v = a + z + twice(PI) + add(1, 2);\n";

fn imports_project() -> Sandbox {
    let sb = project();
    sb.write(
        "src/lib/math.ts",
        "export const a = 1;\nexport const z = 2;\nexport const unusedThing = 3;\nexport const PI = 3.14;\nexport function add(x: number, y: number): number { return x + y; }\nexport function twice(n: number): number { return n * 2; }\n",
    );
    sb.write("src/side.ts", "export {};\n");
    sb.write("src/app.ts", "export const nothing = 0;\n");
    sb.write("src/imports.ts", IMPORTS);
    sb
}

#[test]
fn organize_imports_without_a_server() {
    let sb = imports_project();
    let run = call(
        &sb,
        json!({"file": "src/imports.ts", "refactor": "organize_imports"}),
        false,
    );
    assert_eq!(ok(&run)["precision"], "syntactic");
    assert_eq!(
        sb.read("src/imports.ts"),
        "// header comment\n\nimport { a, z } from './lib/math';\nimport './side';\nimport { add, PI } from './lib';\n// about b\nimport { twice } from './lib/math';\n\nexport const v = a + z + twice(PI) + add(1, 2);\n"
    );
    type_checks(&sb);
}

#[test]
fn remove_unused_imports_without_a_server() {
    let sb = imports_project();
    let run = call(
        &sb,
        json!({"file": "src/imports.ts", "refactor": "remove_unused_imports"}),
        false,
    );
    ok(&run);
    let text = sb.read("src/imports.ts");
    assert!(!text.contains("unusedThing"), "{text}");
    assert!(
        text.contains("import './side';"),
        "side-effect import kept: {text}"
    );
    assert!(text.contains("// about b\nimport { twice }"), "{text}");
    type_checks(&sb);
}

#[test]
fn organize_and_remove_imports_with_the_server() {
    let sb = imports_project();
    let run = call(
        &sb,
        json!({"file": "src/imports.ts", "refactor": "remove_unused_imports"}),
        true,
    );
    assert_eq!(ok(&run)["precision"], "semantic");
    assert!(!sb.read("src/imports.ts").contains("unusedThing"));
    type_checks(&sb);
    let run = call(
        &sb,
        json!({"file": "src/imports.ts", "refactor": "organize_imports"}),
        true,
    );
    assert_eq!(ok(&run)["precision"], "semantic");
    let text = sb.read("src/imports.ts");
    assert!(text.contains("import './side';"), "{text}");
    assert_eq!(text.matches("from './lib/math'").count(), 2, "{text}");
    type_checks(&sb);
}

const CALC: &str = "import { PI } from './lib/math';

export class Cart {
  items: number[] = [];
  total(): number {
    let sum = 0;
    for (const i of this.items) {
      sum += i * 2;
    }
    return sum;
  }
}

export function area(r: number): number {
  const squared = r * r;
  return squared * PI;
}

export const double = function (x: number): number {
  return x * 2;
};

export function load(): Promise<number> {
  return Promise.resolve(1).then((v) => v + 1);
}

export function circle(r: number): { radius: number; area: number } {
  return { radius: r, area: area(r) };
}

export function scale(values: number[]): number[] {
  const out: number[] = [];
  for (const v of values) {
    out.push(v * 10);
  }
  return out;
}
";

fn calc_project() -> Sandbox {
    let sb = project();
    sb.write("src/calc.ts", CALC);
    sb
}

fn range(sl: usize, sc: usize, el: usize, ec: usize) -> Value {
    json!({"start_line": sl, "start_column": sc, "end_line": el, "end_column": ec})
}

#[test]
fn every_code_action_type_checks() {
    // (refactor, file, selection_range, extracted_name, texts the result must contain)
    type Case<'a> = (&'a str, &'a str, Value, Option<&'a str>, &'a [&'a str]);
    let cases: Vec<Case> = vec![
        (
            "extract_function",
            "src/calc.ts",
            range(33, 2, 35, 3),
            Some("fill"),
            &["function fill(", "fill("],
        ),
        (
            "extract_method",
            "src/calc.ts",
            range(6, 4, 9, 5),
            Some("sumItems"),
            &["this.sumItems()", "private sumItems()"],
        ),
        (
            "extract_variable",
            "src/calc.ts",
            range(16, 9, 16, 21),
            Some("scaled"),
            &["const scaled = squared * PI;", "return scaled;"],
        ),
        (
            "extract_constant",
            "src/calc.ts",
            range(20, 9, 20, 14),
            Some("doubled"),
            &["doubled"],
        ),
        (
            "extract_type",
            "src/calc.ts",
            range(27, 35, 27, 68),
            Some("Circle"),
            &["type Circle = {", "): Circle {"],
        ),
        (
            "inline_variable",
            "src/calc.ts",
            range(15, 8, 15, 15),
            None,
            &["return r * r * PI;"],
        ),
        (
            "convert_to_arrow",
            "src/calc.ts",
            range(19, 15, 21, 1),
            None,
            &["export const double = (x: number): number => x * 2;"],
        ),
        (
            "convert_to_async",
            "src/calc.ts",
            range(23, 16, 23, 20),
            None,
            &["export async function load()", "await Promise.resolve(1)"],
        ),
        (
            "add_import",
            "src/use.ts",
            range(1, 21, 1, 26),
            None,
            &["import { twice } from"],
        ),
    ];
    for (kind, file, sel, name, expect) in cases {
        let sb = calc_project();
        if kind == "add_import" {
            // A use of a name that is not imported yet.
            sb.write("src/use.ts", "export const three = twice(1);\n");
        }
        let mut args = json!({"file": file, "refactor": kind, "selection_range": sel});
        if let Some(n) = name {
            args["extracted_name"] = json!(n);
        }
        let run = call(&sb, args, true);
        let reply = ok(&run);
        assert_eq!(reply["precision"], "semantic", "{kind}");
        assert_eq!(reply["refactor"], kind);
        let text = sb.read(file);
        for e in expect {
            assert!(text.contains(e), "{kind}: expected {e:?} in\n{text}");
        }
        assert_ne!(
            text,
            if file == "src/calc.ts" { CALC } else { "" },
            "{kind}"
        );
        type_checks(&sb);
        // Each refactor is one undoable entry.
        let undo = sb.filekit(&["undo"], None);
        assert_eq!(undo.code, 0, "{kind}: {}", undo.stderr);
        if file == "src/calc.ts" {
            assert_eq!(sb.read(file), CALC, "{kind}: undo restores the file");
        }
    }
}

#[test]
fn a_refactor_the_server_does_not_offer_there_lists_what_it_offers() {
    let sb = calc_project();
    let before = sb.snapshot();
    // extract_type on a statement that is no type.
    let run = call(
        &sb,
        json!({"file": "src/calc.ts", "refactor": "extract_type", "selection_range": range(15, 2, 15, 24)}),
        true,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("offers no extract_type")
    );
    assert_eq!(before, sb.snapshot());
}

/// add_import was the last TS code action only a server did: without one (not trusted, or
/// trusted with none on PATH) it is done on the syntax trees, and says so.
#[test]
fn without_the_server_code_actions_are_syntactic() {
    let sb = calc_project();
    sb.write("src/use.ts", "export const three = twice(1);\n");
    let before = sb.snapshot();
    let args = json!({"file": "src/use.ts", "refactor": "add_import", "selection_range": range(1, 21, 1, 26), "dry_run": true});
    let run = call(&sb, args.clone(), false);
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    assert!(
        run.stdout.contains("+import { twice } from './lib/math';"),
        "{}",
        run.stdout
    );
    let c = json!({"tool_name": "file_edit", "tool_args": args});
    let run = sb.filekit_env(
        &["--trust-workspace", "call"],
        Some(&c.to_string()),
        &[("PATH", &path_without_server())],
    );
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
}

#[test]
fn bad_arguments_are_refused_and_change_nothing() {
    let sb = calc_project();
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"file": "src/calc.ts", "refactor": "teleport"}),
            "teleport",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "area"}),
            "needs `new_name`",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "new_name": "x"}),
            "needs `symbol`",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "area", "new_name": "1abc"}),
            "not a valid identifier",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "area", "new_name": "class"}),
            "reserved word",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "area", "new_name": "x", "scope": "galaxy"}),
            "scope must be",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "extract_function"}),
            "needs `selection_range`",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "organize_imports", "new_name": "x"}),
            "`new_name` does not apply",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "area", "new_name": "x", "target": "area"}),
            "direct-edit mode",
        ),
        (
            json!({"file": "src/calc.ts", "target": "area", "operation": "delete", "new_name": "x"}),
            "refactor mode",
        ),
        (json!({"refactor": "organize_imports"}), "`file` is missing"),
        (
            json!({"file": "../outside.ts", "refactor": "organize_imports"}),
            "outside",
        ),
        (
            json!({"file": "src/calc.ts", "refactor": "extract_function", "selection_range": range(3, 5, 1, 0)}),
            "ends before it starts",
        ),
    ];
    for (args, needle) in cases {
        for server in [false, true] {
            let before = sb.snapshot();
            let run = call(&sb, args.clone(), server);
            assert_ne!(run.code, 0, "{args}: {}", run.stdout);
            let all = format!("{}{}", run.stdout, run.stderr);
            assert!(all.contains(needle), "{args}: expected {needle:?} in {all}");
            assert_eq!(before, sb.snapshot(), "{args}");
        }
    }
    // Ranges and names that are only wrong once the file is read: failures, not rejections.
    for (server, kind) in [
        (false, "rename_symbol"),
        (true, "rename_symbol"),
        (true, "extract_variable"),
    ] {
        let mut args = json!({"file": "src/calc.ts", "refactor": kind, "selection_range": range(900, 0, 901, 0)});
        if kind == "rename_symbol" {
            args["new_name"] = json!("x");
        }
        let run = call(&sb, args, server);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(run.stdout.contains("outside the file"), "{}", run.stdout);
    }
    let run = call(
        &sb,
        json!({"file": "src/calc.ts", "refactor": "rename_symbol", "symbol": "nowhere", "new_name": "x"}),
        false,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("no declaration of `nowhere`"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_cli_verbs_show_diffs_and_json() {
    let sb = project();
    let before = sb.snapshot();
    let path = path_without_server();
    let run = sb.filekit_env(
        &[
            "rename-symbol",
            "src/lib/math.ts",
            "add",
            "sum",
            "--dry-run",
            "--color",
            "never",
        ],
        None,
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+export function sum("),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Would rename add → sum (3 files"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());
    let run = sb.filekit_env(
        &[
            "rename-symbol",
            "src/lib/math.ts",
            "add",
            "sum",
            "--color",
            "always",
        ],
        None,
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("\u{1b}[32m+export function sum("),
        "{}",
        run.stdout
    );
    type_checks(&sb);

    let sb = calc_project();
    let server_path = path_with_server();
    let run = sb.filekit_env(
        &[
            "--trust-workspace",
            "refactor",
            "extract_function",
            "src/calc.ts",
            "--range",
            "33:2-35:3",
            "--name",
            "fill",
            "--json",
        ],
        None,
        &[("PATH", &server_path)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["refactor"], "extract_function");
    assert!(sb.read("src/calc.ts").contains("function fill("));
    type_checks(&sb);
    let run = sb.filekit_env(
        &[
            "--trust-workspace",
            "refactor",
            "extract_function",
            "src/calc.ts",
            "--range",
            "33-35",
        ],
        None,
        &[("PATH", &server_path)],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("START_LINE:START_COLUMN"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_server_edit_outside_the_roots_is_refused() {
    // The project spans more than the workspace root (app/): the server reads shared/, and
    // its rename edits shared/x.ts, which filekit may not write. Nothing is written at all.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("app")).unwrap();
    std::fs::create_dir_all(d.join("shared")).unwrap();
    std::fs::write(
        d.join("tsconfig.json"),
        TSCONFIG.replace("[\"src\"]", "[\"app\", \"shared\"]"),
    )
    .unwrap();
    let shared = "export function helper(): number {\n  return 1;\n}\n";
    let app = "import { helper } from '../shared/x';\n\nexport const one = helper();\n";
    std::fs::write(d.join("shared/x.ts"), shared).unwrap();
    std::fs::write(d.join("app/a.ts"), app).unwrap();
    let c = json!({"tool_name": "file_edit", "tool_args": {"file": "a.ts", "refactor": "rename_symbol", "symbol": "helper", "new_name": "aid"}});
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .arg("--root")
        .arg(d.join("app"))
        .args(["--trust-workspace", "call", "--json", &c.to_string()])
        .env("PATH", path_with_server())
        .env("XDG_STATE_HOME", common::test_state_home())
        .output()
        .unwrap();
    let run = common::Run::parse(out);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["error_code"], "OUT_OF_ROOT", "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(d.join("shared/x.ts")).unwrap(),
        shared
    );
    assert_eq!(std::fs::read_to_string(d.join("app/a.ts")).unwrap(), app);
}

#[test]
fn a_syntactic_rename_onto_a_declared_name_is_refused() {
    let sb = project();
    let before = sb.snapshot();
    // `twice` is declared next to `add`.
    let run = call(
        &sb,
        json!({"file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "twice"}),
        false,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["error_code"], "CONFLICT", "{}", run.stdout);
    // `total` is declared in a file that imports `add`: its import would clash.
    let run = call(
        &sb,
        json!({"file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "total"}),
        false,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["error_code"], "CONFLICT", "{}", run.stdout);
    assert!(
        run.json["error"].as_str().unwrap().contains("src/app.ts"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());
}
