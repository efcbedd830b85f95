"""The refactor mode of file_edit over MCP: the server keeps typescript-language-server warm
between calls (the second rename sees the first), the syntactic path without it, the error
that says how to install it, and undo of a multi-file refactor. tsc (from
scripts/setup-test-deps) judges the results."""

import os
import pathlib
import subprocess

import pytest

pytestmark = pytest.mark.anyio

REPO = pathlib.Path(__file__).resolve().parents[2]
DEPS_BIN = REPO / ".test-deps" / "node_modules" / ".bin"

TSCONFIG = """{
  "compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext",
                      "moduleResolution": "bundler"},
  "include": ["src"]
}
"""


def deps_bin():
    for exe in ("tsc", "typescript-language-server"):
        if not (DEPS_BIN / exe).exists():
            pytest.fail(f"{DEPS_BIN / exe} is missing: run scripts/setup-test-deps")
    return str(DEPS_BIN)


def path_without_server():
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not (pathlib.Path(d) / "typescript-language-server").exists())


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def type_check(root):
    out = subprocess.run([str(DEPS_BIN / "tsc"), "--noEmit", "-p", str(root)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def project(root):
    (root / "src" / "lib").mkdir(parents=True)
    (root / "tsconfig.json").write_text(TSCONFIG)
    (root / "src" / "lib" / "math.ts").write_text(
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n")
    (root / "src" / "app.ts").write_text(
        "import { add } from './lib/math';\n\nexport function area(r: number): number {\n"
        "  const squared = r * r;\n  return add(squared, 0) * 3.14;\n}\n")
    type_check(root)


async def test_warm_server_renames_twice_and_undo_reverts(connect_stdio, workspace, monkeypatch):
    monkeypatch.setenv("PATH", deps_bin() + os.pathsep + path_without_server())
    project(workspace)
    # A language server runs the workspace's code: the server must be told to trust it.
    async with connect_stdio("--trust-workspace") as session:
        first = await session.call_tool("file_edit", {
            "file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "new_name": "sum"})
        assert not first.isError, text_of(first)
        reply = first.structuredContent
        assert reply["precision"] == "semantic"
        assert sorted(reply["files_affected"]) == ["src/app.ts", "src/lib/math.ts"]
        # The warm server sees what the first call wrote.
        second = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "rename_symbol", "symbol": "sum", "new_name": "total"})
        assert not second.isError, text_of(second)
        assert "export function total(" in (workspace / "src/lib/math.ts").read_text()
        assert "return total(squared, 0)" in (workspace / "src/app.ts").read_text()
        type_check(workspace)
        extract = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "extract_constant",
            "selection_range": {"start_line": 5, "start_column": 9, "end_line": 5, "end_column": 33},
            "extracted_name": "scaled"})
        assert not extract.isError, text_of(extract)
        assert "const scaled = total(squared, 0) * 3.14;" in (workspace / "src/app.ts").read_text()
        type_check(workspace)
        undo = await session.call_tool("undo", {"last": 2})
        assert not undo.isError, text_of(undo)
    assert "export function sum(" in (workspace / "src/lib/math.ts").read_text()
    assert "return sum(squared, 0) * 3.14;" in (workspace / "src/app.ts").read_text()
    type_check(workspace)


async def test_without_the_server_renames_and_imports_syntactically(connect_stdio, workspace, monkeypatch):
    monkeypatch.setenv("PATH", path_without_server())
    project(workspace)
    async with connect_stdio("--tools", "semantic") as session:
        dry = await session.call_tool("file_edit", {
            "file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add",
            "newName": "sum", "dryRun": True})
        assert not dry.isError, text_of(dry)
        assert dry.structuredContent["precision"] == "syntactic"
        assert "+import { sum } from './lib/math';" in dry.structuredContent["diff"]
        assert "export function add(" in (workspace / "src/lib/math.ts").read_text()
        renamed = await session.call_tool("file_edit", {
            "file": "src/lib/math.ts", "refactor": "rename_symbol", "symbol": "add", "newName": "sum"})
        assert not renamed.isError, text_of(renamed)
        assert renamed.structuredContent["totalEdits"] == 3
        (workspace / "src" / "use.ts").write_text("export const v = sum(1, 2);\n")
        imported = await session.call_tool("file_edit", {
            "file": "src/use.ts", "refactor": "add_import", "symbol": "sum"})
    # Not trusted: add_import too is done on the syntax trees, and type-checks.
    assert not imported.isError, text_of(imported)
    assert imported.structuredContent["precision"] == "syntactic"
    assert (workspace / "src/use.ts").read_text().startswith("import { sum } from './lib/math';\n")
    type_check(workspace)


async def test_bad_refactor_arguments_are_rejected(connect_stdio, workspace, monkeypatch):
    monkeypatch.setenv("PATH", path_without_server())
    project(workspace)
    async with connect_stdio("--tools", "semantic") as session:
        result = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "rename_symbol", "symbol": "add", "newName": "not valid"})
    assert result.isError
    assert "not a valid identifier" in text_of(result)


def python_project(root):
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("from .core import helper\n\n__all__ = [\"helper\"]\n")
    (root / "pkg" / "core.py").write_text(
        "import os\nimport sys\n\n\ndef helper(x: int) -> int:\n    total = x * 2\n    return total\n")
    (root / "pkg" / "app.py").write_text(
        "import json\nfrom . import core\nfrom .core import helper\n\n\n"
        "def run() -> str:\n    return json.dumps([helper(1), core.helper(2)])\n")


def pyflakes_clean(root):
    python = REPO / ".venv" / "bin" / "python"
    out = subprocess.run([str(python), "-m", "pyflakes", "pkg"], cwd=root, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    run = subprocess.run([str(python), "-c", "import pkg.app; print(pkg.app.run())"], cwd=root,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


async def test_python_refactors_without_a_server(connect_stdio, workspace, monkeypatch):
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    monkeypatch.setenv("PATH", os.pathsep.join(d for d in dirs if not (pathlib.Path(d) / "pyright-langserver").exists()))
    python_project(workspace)
    async with connect_stdio() as session:
        dry = await session.call_tool("file_edit", {
            "file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "helper",
            "new_name": "assist", "dry_run": True})
        assert not dry.isError, text_of(dry)
        assert dry.structuredContent["precision"] == "syntactic"
        assert "+from .core import assist" in dry.structuredContent["diff"]
        assert "def helper(" in (workspace / "pkg" / "core.py").read_text()
        renamed = await session.call_tool("file_edit", {
            "file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "helper", "new_name": "assist"})
        assert not renamed.isError, text_of(renamed)
        assert sorted(renamed.structuredContent["files_affected"]) == [
            "pkg/__init__.py", "pkg/app.py", "pkg/core.py"]
        assert (workspace / "pkg" / "__init__.py").read_text() == (
            "from .core import assist\n\n__all__ = [\"assist\"]\n")
        local = await session.call_tool("file_edit", {
            "file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "assist.total", "new_name": "doubled"})
        assert not local.isError, text_of(local)
        cleaned = await session.call_tool("file_edit", {
            "file": "pkg/core.py", "refactor": "remove_unused_imports"})
        assert not cleaned.isError, text_of(cleaned)
        assert (workspace / "pkg" / "core.py").read_text() == (
            "def assist(x: int) -> int:\n    doubled = x * 2\n    return doubled\n")
        assert pyflakes_clean(workspace).strip() == "[2, 4]"
        keyword = await session.call_tool("file_edit", {
            "file": "pkg/core.py", "refactor": "rename_symbol", "symbol": "assist", "new_name": "lambda"})
        assert keyword.isError
        assert "Python keyword" in text_of(keyword)
        undo = await session.call_tool("undo", {"last": 3})
        assert not undo.isError, text_of(undo)
    assert (workspace / "pkg" / "core.py").read_text() == (
        "import os\nimport sys\n\n\ndef helper(x: int) -> int:\n    total = x * 2\n    return total\n")
    assert "from .core import helper\n" in (workspace / "pkg" / "app.py").read_text()


async def test_inline_function_is_syntactic_even_with_the_server(connect_stdio, workspace, monkeypatch):
    monkeypatch.setenv("PATH", deps_bin() + os.pathsep + path_without_server())
    project(workspace)
    async with connect_stdio("--trust-workspace") as session:
        dry = await session.call_tool("file_edit", {
            "file": "src/lib/math.ts", "refactor": "inline_function", "symbol": "add", "dry_run": True})
        assert not dry.isError, text_of(dry)
        assert dry.structuredContent["precision"] == "syntactic"
        assert "+  return squared + 0 * 3.14;" not in dry.structuredContent["diff"]
        assert "+  return (squared + 0) * 3.14;" in dry.structuredContent["diff"]
        done = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "inline_function",
            "selection_range": {"start_line": 5, "start_column": 9, "end_line": 5, "end_column": 12}})
        assert not done.isError, text_of(done)
        assert sorted(done.structuredContent["files_affected"]) == ["src/app.ts", "src/lib/math.ts"]
        assert (workspace / "src" / "lib" / "math.ts").read_text() == ""
        assert (workspace / "src" / "app.ts").read_text() == (
            "export function area(r: number): number {\n  const squared = r * r;\n"
            "  return (squared + 0) * 3.14;\n}\n")
        type_check(workspace)
        recursive = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "inline_function", "symbol": "area"})
        assert recursive.isError
        assert "not a single `return expr;`" in text_of(recursive)


async def test_without_the_server_extract_inline_and_convert_are_syntactic(connect_stdio, workspace, monkeypatch):
    """Issue 28: extract_variable, inline_variable and convert_to_arrow work in a workspace that
    is not trusted (no language server), and tsc accepts each result."""
    monkeypatch.setenv("PATH", path_without_server())
    project(workspace)
    app = workspace / "src" / "app.ts"
    async with connect_stdio("--tools", "semantic") as session:
        for args in (
            {"refactor": "extract_variable", "extractedName": "total",
             "selectionRange": {"startLine": 5, "startColumn": 9, "endLine": 5, "endColumn": 24}},
            {"refactor": "inline_variable",
             "selectionRange": {"startLine": 4, "startColumn": 8, "endLine": 4, "endColumn": 8}},
            {"refactor": "convert_to_arrow",
             "selectionRange": {"startLine": 3, "startColumn": 16, "endLine": 3, "endColumn": 16}},
        ):
            result = await session.call_tool("file_edit", {"file": "src/app.ts", **args})
            assert not result.isError, text_of(result)
            assert result.structuredContent["precision"] == "syntactic"
            type_check(workspace)
        refused = await session.call_tool("file_edit", {
            "file": "src/app.ts", "refactor": "extract_variable",
            "selectionRange": {"startLine": 4, "startColumn": 16, "endLine": 4, "endColumn": 22}})
    assert app.read_text() == (
        "import { add } from './lib/math';\n\nexport const area = (r: number): number => {\n"
        "  const total = add(r * r, 0);\n  return total * 3.14;\n};\n")
    assert refused.isError
    assert "not one expression" in text_of(refused)
