"""Hostile files and patterns against one server session (issue 23 items 5 and 10): a file
nested 10,000 levels deep overflowed the stack of the thread that parsed it and the server
process died; a 10-line YAML alias bomb took gigabytes; a glob of 150 nested braces made
globset panic. Each is now a TOO_LARGE reply, and the same session keeps answering."""

import pytest

pytestmark = pytest.mark.anyio

DEPTH = 10_000

# "Billion laughs": each line's sequence holds ten aliases of the one before (10^9 nodes).
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi")
)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def limit_of(result):
    assert result.isError, text_of(result)
    reply = result.structuredContent
    # The curated table's key, or the claude table's.
    assert reply.get("error_code", reply.get("errorCode")) == "TOO_LARGE", reply
    return reply["details"]["limit"]


async def test_deep_files_and_bombs_are_refused_and_the_session_keeps_answering(connect, workspace):
    (workspace / "deep.ts").write_text("const f = " + "[" * DEPTH + "]" * DEPTH + ";\n")
    (workspace / "deep.py").write_text("f = " + "[" * DEPTH + "]" * DEPTH + "\n")
    (workspace / "deep.yaml").write_text("f: " + "[" * DEPTH + "]" * DEPTH + "\n")
    (workspace / "deep.xml").write_text("<r>" + "<a>" * DEPTH + "</a>" * DEPTH + "</r>\n")
    (workspace / "bomb.yaml").write_text(BOMB)
    (workspace / "ok.ts").write_text("export function g() {\n  return 1;\n}\n")
    async with connect() as session:
        deep = await session.call_tool("file_read", {"file": "deep.ts", "symbol": "f"})
        # The same session, the same server process: it is still there and answers.
        ok = await session.call_tool("file_read", {"file": "ok.ts", "symbol": "g"})
        py = await session.call_tool("file_edit", {
            "file": "deep.py", "refactor": "rename_symbol", "symbol": "f", "new_name": "h"})
        yaml = await session.call_tool("file_read", {"file": "deep.yaml", "path": "$.f"})
        xml = await session.call_tool("file_read", {"file": "deep.xml", "xpath": "//a"})
        bomb = await session.call_tool("file_read", {"file": "bomb.yaml", "path": "$.i"})
        lines = await session.call_tool("read_files", {"files": [{"path": "ok.ts"}]})
    limit = limit_of(deep)
    assert limit["kind"] == "nesting" and limit["found"] > DEPTH and limit["max"] == 1000
    assert "nests" in text_of(deep) and "line range" in text_of(deep)
    assert not ok.isError, text_of(ok)
    assert ok.structuredContent["content"] == "export function g() {\n  return 1;\n}"
    for r in (py, yaml, xml):
        assert limit_of(r)["kind"] == "nesting"
    assert limit_of(bomb)["kind"] == "expansion"
    assert not lines.isError, text_of(lines)
    assert (workspace / "deep.py").read_text().startswith("f = [[[")


async def test_a_glob_of_nested_braces_is_refused_and_the_session_keeps_answering(connect, workspace):
    (workspace / "a.txt").write_text("x\n")
    braces = "{a," * 150 + "b" + "}" * 150
    async with connect("--tools", "claude") as session:
        refused = await session.call_tool("Glob", {"pattern": braces})
        grep = await session.call_tool("Grep", {"pattern": "x", "glob": braces})
        found = await session.call_tool("Glob", {"pattern": "*.txt"})
    for r in (refused, grep):
        assert r.isError, text_of(r)
        assert "nests {a,b} alternatives 150 levels deep" in text_of(r)
    assert not found.isError, text_of(found)
    assert "a.txt" in text_of(found)
