"""Every refactor of the semantic design over MCP, without a language server (issue 28): the
workspace is not trusted, so no server starts and file_edit's refactor mode computes each
kind on the syntax trees. One session runs every kind on a small TypeScript project and the
seven that exist in Python on a Python module, one after the other, as an agent would; then
tsc (from scripts/setup-test-deps, under `strict`) and Python judge the results, and each
reply says it was done syntactically."""

import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.anyio

REPO = pathlib.Path(__file__).resolve().parents[2]
TSC = REPO / ".test-deps" / "node_modules" / ".bin" / "tsc"

TSCONFIG = """{
  "compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext",
                      "moduleResolution": "bundler"},
  "include": ["src"]
}
"""

APP_TS = """import { helper } from './util';
import { unused } from './other';

export function area(w: number, h: number): number {
  const scale = 2;
  return w * h * scale;
}

export const greet = function (name: string): string {
  return "hi " + name;
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
"""

UTIL_TS = "export function helper(n: number): number {\n  return n;\n}\n"
OTHER_TS = "export const unused = 1;\n\nexport class Other {\n  static size = 3;\n}\n"

SHOP_PY = '''import asyncio
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
'''

UTIL_PY = "def helper(n):\n    return n + 1\n\n\ndef other(n):\n    return n * 10\n"


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def selection_of(text, needle, occurrence=0):
    """The selectionRange of the `occurrence`-th `needle` in `text` (1-based lines, 0-based
    columns in characters, end exclusive)."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    end = at + len(needle)

    def pos(i):
        line = text.count("\n", 0, i) + 1
        column = i - (text.rfind("\n", 0, i) + 1)
        return line, column

    (sl, sc), (el, ec) = pos(at), pos(end)
    return {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec}


async def test_every_kind_without_a_language_server(connect_stdio, workspace):
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing: run scripts/setup-test-deps")
    src = workspace / "src"
    src.mkdir()
    (workspace / "tsconfig.json").write_text(TSCONFIG)
    (src / "app.ts").write_text(APP_TS)
    (src / "util.ts").write_text(UTIL_TS)
    (src / "other.ts").write_text(OTHER_TS)
    (workspace / "shop.py").write_text(SHOP_PY)
    (workspace / "util.py").write_text(UTIL_PY)
    app = src / "app.ts"
    shop = workspace / "shop.py"

    def at(path, needle, occurrence=0):
        return selection_of(path.read_text(), needle, occurrence)

    # (file, arguments after `file`, a check of the file after it) in the order an agent
    # might ask; every selection is found in the file as the previous step left it.
    ts_steps = [
        ("add_import", lambda: {"symbol": "Other"},
         lambda t: "Other" in t.split("from './other'")[0].splitlines()[-1]),
        ("remove_unused_imports", lambda: {}, lambda t: "unused" not in t),
        ("organize_imports", lambda: {}, lambda t: t.index("'./other'") < t.index("'./util'")),
        ("rename_symbol", lambda: {"symbol": "helper", "newName": "assist"},
         lambda t: "assist(1)" in t and "helper" not in t),
        ("extract_variable", lambda: {"selectionRange": at(app, "w * h"), "extractedName": "product"},
         lambda t: "const product = w * h;" in t),
        ("extract_constant", lambda: {"selectionRange": at(app, '"hi "'), "extractedName": "GREETING"},
         lambda t: 'const GREETING = "hi ";' in t),
        ("extract_type", lambda: {"selectionRange": at(app, "{ x: number; y: number }"), "extractedName": "Point"},
         lambda t: "type Point = { x: number; y: number };" in t and "shape(p: Point)" in t),
        ("inline_variable", lambda: {"symbol": "scale"},
         lambda t: "scale" not in t and "product * 2" in t),
        ("inline_function", lambda: {"symbol": "twice"}, lambda t: "twice(3)" not in t),
        ("convert_to_arrow", lambda: {"selectionRange": at(app, "function (name")},
         lambda t: "=>" in t.split("greet")[1].split(";")[0] and "function (name" not in t),
        ("convert_to_function", lambda: {"selectionRange": at(app, "(name: string): string =>")},
         lambda t: "export function greet(name: string): string {" in t),
        ("convert_to_async", lambda: {"selectionRange": at(app, "load")},
         lambda t: "async function load" in t and "await fetchValue()" in t),
        ("extract_function", lambda: {"selectionRange": at(app, "p.x + p.y"), "extractedName": "sumXY"},
         lambda t: "function sumXY(" in t and "sumXY(p)" in t),
        ("extract_method", lambda: {"selectionRange": at(app, "this.count += by;"), "extractedName": "add"},
         lambda t: "this.add(by);" in t),
    ]
    py_steps = [
        ("inline_variable", lambda: {"symbol": "tax"}, lambda t: "tax" not in t and "(1 + 0.2)" in t),
        ("extract_constant", lambda: {"selectionRange": at(shop, "0.2"), "extractedName": "TAX"},
         lambda t: "TAX = 0.2" in t and "(1 + TAX)" in t),
        ("extract_variable", lambda: {"selectionRange": at(shop, "s * rate"), "extractedName": "amount"},
         lambda t: "amount = s * rate" in t),
        ("extract_function", lambda: {"selectionRange": at(shop, "sum(items)"), "extractedName": "subtotal"},
         lambda t: "def subtotal(items):" in t),
        ("extract_method", lambda: {"selectionRange": at(shop, "self.items.append(item)"), "extractedName": "push"},
         lambda t: "self.push(item)" in t),
        ("add_import", lambda: {"symbol": "other"}, lambda t: "from util import helper, other" in t),
        ("convert_to_async", lambda: {"selectionRange": at(shop, "fetch")},
         lambda t: "async def fetch():" in t and "await asyncio.sleep(0, result=5)" in t and "types" not in t),
    ]
    async with connect_stdio("--tools", "semantic") as session:
        for path, steps in [(app, ts_steps), (shop, py_steps)]:
            name = str(path.relative_to(workspace))
            for kind, args, check in steps:
                reply = await session.call_tool("file_edit", {"file": name, "refactor": kind, **args()})
                assert not reply.isError, f"{name} {kind}: {text_of(reply)}"
                assert reply.structuredContent["precision"] == "syntactic", (kind, reply.structuredContent)
                after = path.read_text()
                assert check(after), f"{name} {kind}:\n{after}"
    out = subprocess.run([str(TSC), "--noEmit", "-p", str(workspace)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr + app.read_text()
    run = subprocess.run(
        [sys.executable, "-c",
         "import asyncio, shop; print(shop.total([1, 2], 2), shop.price(10), shop.combined(1),"
         " asyncio.run(shop.fetch()), shop.Cart().add(3))"],
        cwd=workspace, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr + shop.read_text()
    assert run.stdout.split() == ["6", "12.0", "12", "5", "1"], run.stdout
