"""extract_function and extract_method over MCP without a language server (issue 28): the
workspace is not trusted, so no server starts and file_edit's refactor mode computes them on
the syntax trees (precision "syntactic"); tsc (from scripts/setup-test-deps) judges the
TypeScript result under `strict`; a refused extraction says why and changes nothing."""

import pathlib
import subprocess

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


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def selection(sl, sc, el, ec):
    return {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec}


async def test_extract_function_and_method_without_a_server(connect_stdio, workspace):
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing: run scripts/setup-test-deps")
    (workspace / "src").mkdir()
    (workspace / "tsconfig.json").write_text(TSCONFIG)
    (workspace / "src" / "cart.ts").write_text(
        "export class Cart {\n  items: number[] = [];\n  total(rate: number): number {\n"
        "    let sum = 0;\n    for (const i of this.items) {\n      sum += i;\n    }\n"
        "    return sum * rate;\n  }\n}\n")
    (workspace / "shop.py").write_text("def total(items, rate):\n    s = sum(items)\n    return s * rate\n")
    async with connect_stdio("--tools", "semantic") as session:
        method = await session.call_tool("file_edit", {
            "file": "src/cart.ts", "refactor": "extract_method",
            "selectionRange": selection(4, 4, 7, 5), "extractedName": "sumItems"})
        function = await session.call_tool("file_edit", {
            "file": "shop.py", "refactor": "extract_function",
            "selectionRange": selection(2, 4, 2, 18), "extractedName": "subtotal"})
        before = (workspace / "shop.py").read_text()
        refused = await session.call_tool("file_edit", {
            "file": "shop.py", "refactor": "extract_function",
            "selectionRange": selection(2, 4, 2, 9)})
    assert not method.isError, text_of(method)
    assert method.structuredContent["precision"] == "syntactic"
    cart = (workspace / "src" / "cart.ts").read_text()
    assert "const sum = this.sumItems();" not in cart and "let sum = this.sumItems();" in cart, cart
    assert "private sumItems() {" in cart, cart
    out = subprocess.run([str(TSC), "--noEmit", "-p", str(workspace)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr + cart
    assert not function.isError, text_of(function)
    assert "s = subtotal(items)" in (workspace / "shop.py").read_text()
    assert "def subtotal(items):" in (workspace / "shop.py").read_text()
    assert refused.isError
    assert "neither whole statements nor one expression" in text_of(refused), text_of(refused)
    assert (workspace / "shop.py").read_text() == before
