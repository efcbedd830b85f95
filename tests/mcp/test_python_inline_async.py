"""Python's inline_variable and convert_to_async over MCP (issue 28): syntactic, in a
workspace that is not trusted, each result run by Python and printing what the original
printed; a refusal is an error naming the construct and leaves the file as it was."""

import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.anyio

PROGRAM = (
    "import asyncio\n"
    "import types\n"
    "\n"
    "\n"
    "@types.coroutine\n"
    "def scaled(n):\n"
    "    factor = n + 1\n"
    "    yield from asyncio.sleep(0)\n"
    "    return factor * 2\n"
    "\n"
    "\n"
    "async def main():\n"
    "    print(await scaled(3))\n"
    "\n"
    "\n"
    "asyncio.run(main())\n"
)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def run(path: pathlib.Path) -> str:
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


async def test_inline_variable_and_convert_to_async_keep_what_python_prints(connect_stdio, workspace):
    prog = workspace / "prog.py"
    prog.write_text(PROGRAM)
    before = run(prog)
    async with connect_stdio("--tools", "semantic") as session:
        # `factor + 1` would be evaluated after the sleep: no effect, so it is inlined.
        inlined = await session.call_tool("file_edit", {
            "file": "prog.py", "refactor": "inline_variable", "symbol": "factor"})
        assert not inlined.isError, text_of(inlined)
        assert inlined.structuredContent["precision"] == "syntactic"
        converted = await session.call_tool("file_edit", {
            "file": "prog.py", "refactor": "convert_to_async",
            "selectionRange": {"startLine": 6, "startColumn": 4, "endLine": 6, "endColumn": 4}})
        assert not converted.isError, text_of(converted)
        after = prog.read_text()
        refused = await session.call_tool("file_edit", {
            "file": "prog.py", "refactor": "convert_to_async",
            "selectionRange": {"startLine": 4, "startColumn": 10, "endLine": 4, "endColumn": 10}})
    assert after == (
        "import asyncio\n\n\nasync def scaled(n):\n    await asyncio.sleep(0)\n"
        "    return (n + 1) * 2\n\n\nasync def main():\n    print(await scaled(3))\n\n\n"
        "asyncio.run(main())\n")
    assert run(prog) == before
    assert refused.isError
    assert "already `async`" in text_of(refused)
    assert prog.read_text() == after
