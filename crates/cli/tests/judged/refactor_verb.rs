//! Every refactor kind through the CLI's `refactor` verb, without a language server (issue
//! 28), as a person at a terminal runs them one after another on a small TS project and a
//! Python module (`--range`, `--name`, `--symbol`; rename_symbol with `rename-symbol`); tsc (under `strict`) and Python judge the
//! results. The same sequence runs over MCP in tests/mcp/test_every_refactor_kind.py.

use crate::common::Sandbox;
use std::path::Path;
use std::process::Command;

const APP_TS: &str = "import { helper } from './util';
import { unused } from './other';

export function area(w: number, h: number): number {
  const scale = 2;
  return w * h * scale;
}

export const greet = function (name: string): string {
  return \"hi \" + name;
};

export function load(): Promise<number> {
  return fetchValue().then((v) => v + 1);
}

function fetchValue(): Promise<number> {
  return Promise.resolve(41);
}

export function shape(p: { x: number; y: number }): number {
  return p.x + p.y + helper(1) + Other.size;
}

function twice(n: number): number {
  return n * 2;
}

export function useTwice(): number {
  return twice(3);
}

export class Counter {
  count = 0;
  bump(by: number): number {
    this.count += by;
    return this.count;
  }
}
";

const SHOP_PY: &str = "import asyncio
import types

from util import helper


def total(items, rate):
    s = sum(items)
    return s * rate


def price(n):
    tax = 0.2
    return n * (1 + tax)


def combined(n):
    return helper(n) + other(n)


@types.coroutine
def fetch():
    value = yield from asyncio.sleep(0, result=5)
    return value


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return len(self.items)
";

/// `--range` of the first `needle` in `text`: START_LINE:START_COLUMN-END_LINE:END_COLUMN
/// (1-based lines, 0-based columns in characters).
fn range_of(text: &str, needle: &str) -> String {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` in\n{text}"));
    let pos = |i: usize| {
        let line = text[..i].matches('\n').count() + 1;
        let column = text[text[..i].rfind('\n').map_or(0, |n| n + 1)..i]
            .chars()
            .count();
        format!("{line}:{column}")
    };
    format!("{}-{}", pos(at), pos(at + needle.len()))
}

enum Arg {
    None,
    Range(&'static str),
    RangeNamed(&'static str, &'static str),
    Symbol(&'static str),
}

/// A refactor kind, its arguments, and a check of the file's text after it.
type Step<'a> = (&'a str, Arg, &'a dyn Fn(&str) -> bool);

/// Runs each step on `file` with the verb, then its check on the file's new text.
fn run_steps(sb: &Sandbox, file: &str, steps: &[Step]) {
    for (kind, arg, check) in steps {
        let text = sb.read(file);
        let mut args: Vec<String> = vec!["refactor".into(), kind.to_string(), file.into()];
        match arg {
            Arg::None => {}
            Arg::Range(needle) => args.extend(["--range".into(), range_of(&text, needle)]),
            Arg::RangeNamed(needle, name) => args.extend([
                "--range".into(),
                range_of(&text, needle),
                "--name".into(),
                name.to_string(),
            ]),
            Arg::Symbol(name) => args.extend(["--symbol".into(), name.to_string()]),
        }
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = sb.filekit(&args, None);
        assert_eq!(
            run.code, 0,
            "{file} {kind}: {}\n{}\n{text}",
            run.stdout, run.stderr
        );
        assert_eq!(
            run.json["precision"], "syntactic",
            "{file} {kind}: {}",
            run.stdout
        );
        let after = sb.read(file);
        assert!(check(&after), "{file} {kind}:\n{after}");
    }
}

#[test]
fn every_kind_through_the_refactor_verb() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tsc = repo.join(".test-deps/node_modules/typescript/bin/tsc");
    assert!(
        tsc.is_file(),
        "typescript is missing from .test-deps: run scripts/setup-test-deps"
    );
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020",
            "module": "esnext", "moduleResolution": "bundler"}, "include": ["src"]}"#,
    );
    sb.write("src/app.ts", APP_TS);
    sb.write(
        "src/util.ts",
        "export function helper(n: number): number {\n  return n;\n}\n",
    );
    sb.write(
        "src/other.ts",
        "export const unused = 1;\n\nexport class Other {\n  static size = 3;\n}\n",
    );
    sb.write("shop.py", SHOP_PY);
    sb.write(
        "util.py",
        "def helper(n):\n    return n + 1\n\n\ndef other(n):\n    return n * 10\n",
    );

    let ts: Vec<Step> = vec![
        ("add_import", Arg::Symbol("Other"), &|t| {
            t.contains("import { Other, unused } from './other';")
        }),
        ("remove_unused_imports", Arg::None, &|t| {
            !t.contains("unused")
        }),
        ("organize_imports", Arg::None, &|t| {
            t.find("'./other'") < t.find("'./util'")
        }),
        ("inline_variable", Arg::Symbol("scale"), &|t| {
            !t.contains("scale") && t.contains("w * h * 2")
        }),
        (
            "extract_variable",
            Arg::RangeNamed("w * h", "product"),
            &|t| t.contains("const product = w * h;"),
        ),
        (
            "extract_constant",
            Arg::RangeNamed("\"hi \"", "GREETING"),
            &|t| t.contains("const GREETING = \"hi \";"),
        ),
        (
            "extract_type",
            Arg::RangeNamed("{ x: number; y: number }", "Point"),
            &|t| {
                t.contains("type Point = { x: number; y: number };")
                    && t.contains("shape(p: Point)")
            },
        ),
        ("inline_function", Arg::Symbol("twice"), &|t| {
            t.contains("return 3 * 2;")
        }),
        ("convert_to_arrow", Arg::Range("function (name"), &|t| {
            t.contains("export const greet = (name: string): string => {")
        }),
        (
            "convert_to_function",
            Arg::Range("(name: string): string =>"),
            &|t| t.contains("export function greet(name: string): string {"),
        ),
        ("convert_to_async", Arg::Range("load"), &|t| {
            t.contains(
                "export async function load(): Promise<number> {\n  const v = await fetchValue();",
            )
        }),
        (
            "extract_function",
            Arg::RangeNamed("p.x + p.y", "sumXY"),
            &|t| t.contains("function sumXY(") && t.contains("sumXY(p)"),
        ),
        (
            "extract_method",
            Arg::RangeNamed("this.count += by;", "add"),
            &|t| t.contains("this.add(by);"),
        ),
    ];
    run_steps(&sb, "src/app.ts", &ts);
    // rename_symbol has its own verb, across the files that import the name.
    let run = sb.filekit(&["rename-symbol", "src/util.ts", "helper", "assist"], None);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(sb.read("src/app.ts").contains("assist(1)"));
    assert!(sb.read("src/util.ts").contains("function assist("));
    let out = Command::new("node")
        .arg(&tsc)
        .args(["--noEmit", "-p", ".", "--pretty", "false"])
        .current_dir(sb.root())
        .output()
        .expect("node runs tsc");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        sb.read("src/app.ts")
    );

    let py: Vec<Step> = vec![
        ("inline_variable", Arg::Symbol("tax"), &|t| {
            !t.contains("tax") && t.contains("(1 + 0.2)")
        }),
        ("extract_constant", Arg::RangeNamed("0.2", "TAX"), &|t| {
            t.contains("TAX = 0.2") && t.contains("(1 + TAX)")
        }),
        (
            "extract_variable",
            Arg::RangeNamed("s * rate", "amount"),
            &|t| t.contains("amount = s * rate"),
        ),
        (
            "extract_function",
            Arg::RangeNamed("sum(items)", "subtotal"),
            &|t| t.contains("def subtotal(items):"),
        ),
        (
            "extract_method",
            Arg::RangeNamed("self.items.append(item)", "push"),
            &|t| t.contains("self.push(item)"),
        ),
        ("add_import", Arg::Symbol("other"), &|t| {
            t.contains("from util import helper, other")
        }),
        ("convert_to_async", Arg::Range("fetch"), &|t| {
            t.contains("async def fetch():") && t.contains("await asyncio.sleep(0, result=5)")
        }),
    ];
    run_steps(&sb, "shop.py", &py);
    let out = Command::new(repo.join(".venv/bin/python"))
        .args([
            "-c",
            "import asyncio, shop; print(shop.total([1, 2], 2), shop.price(10), \
             shop.combined(1), asyncio.run(shop.fetch()), shop.Cart().add(3))",
        ])
        .current_dir(sb.root())
        .output()
        .expect("python runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>(),
        ["6", "12.0", "12", "5", "1"],
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        sb.read("shop.py")
    );
}
