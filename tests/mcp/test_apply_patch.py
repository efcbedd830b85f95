"""apply_patch over MCP (curated and codex tables), over stdio and streamable HTTP: the three
formats applied and checked on disk, Codex's reply text, and refusals that write nothing."""

import pytest

pytestmark = pytest.mark.anyio

APP = "def main():\n    debug = True\n    return debug\n\n\ndef other():\n    return 1\n"


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("table", ["codex", "filekit"])
async def test_every_format_applies_with_codex_reply_text(connect, workspace, table):
    (workspace / "app.py").write_text(APP)
    async with connect("--tools", table) as session:
        names = [t.name for t in (await session.list_tools()).tools]
        assert "apply_patch" in names
        v4a = await session.call_tool("apply_patch", {"input": (
            "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    debug = True\n"
            "+    debug = False\n*** Add File: notes/todo.md\n+- ship it\n*** End Patch\n")})
        unified = await session.call_tool("apply_patch", {"input": (
            "--- a/app.py\n+++ b/app.py\n@@ -6,2 +6,2 @@\n def other():\n-    return 1\n+    return 2\n")})
        blocks = await session.call_tool("apply_patch", {"input": (
            "app.py\n```python\n<<<<<<< SEARCH\n    return debug\n=======\n    return not debug\n"
            ">>>>>>> REPLACE\n```\n")})
    for r in (v4a, unified, blocks):
        assert not r.isError, text_of(r)
        assert text_of(r).startswith("Success. Updated the following files:\n"), text_of(r)
    assert text_of(v4a).startswith("Success. Updated the following files:\nM app.py\nA notes/todo.md\n")
    if table == "codex":
        # Codex's apply_patch answers in text alone.
        assert [r.structuredContent for r in (v4a, unified, blocks)] == [None] * 3
    else:
        assert [r.structuredContent["format"] for r in (v4a, unified, blocks)] == [
            "v4a", "unified", "search_replace"]
    assert (workspace / "app.py").read_text() == (
        APP.replace("debug = True", "debug = False")
        .replace("return 1", "return 2")
        .replace("return debug\n", "return not debug\n"))
    assert (workspace / "notes" / "todo.md").read_text() == "- ship it\n"


async def test_refusals_write_nothing_and_say_why(connect, workspace):
    (workspace / "app.py").write_text(APP)
    (workspace / "dup.py").write_text("x = 1\ny = 2\nx = 1\ny = 2\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    before = snapshot(workspace)
    cases = [
        ("*** Begin Patch\n*** Update File: app.py\n@@\n-    debug = Maybe\n+    debug = 0\n"
         "*** Add File: new.txt\n+x\n*** End Patch", "Failed to find expected lines in app.py"),
        ("*** Begin Patch\n*** Update File: app.py\nnot a hunk line\n*** End Patch", "line 3"),
        ("*** Begin Patch\n*** Update File: missing.py\n@@\n-a\n+b\n*** End Patch", "does not exist"),
        ("*** Begin Patch\n*** Delete File: missing.py\n*** End Patch", "Failed to delete file missing.py"),
        ("--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[evil]\n", ".git/"),
        ("*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch", "outside"),
        ("--- a/dup.py\n+++ b/dup.py\n@@ -2,2 +2,2 @@\n x = 1\n-y = 2\n+y = 3\n",
         "matches more than one place"),
    ]
    async with connect("--tools", "codex") as session:
        for patch, why in cases:
            r = await session.call_tool("apply_patch", {"input": patch})
            assert r.isError, patch
            assert why.lower() in text_of(r).lower(), (why, text_of(r))
    assert snapshot(workspace) == before
    assert not (workspace.parent / "escape.txt").exists()


async def test_near_miss_and_candidates_in_the_structured_reply(connect, workspace):
    (workspace / "app.py").write_text(APP)
    async with connect() as session:
        r = await session.call_tool("apply_patch", {"input": (
            "*** Begin Patch\n*** Update File: app.py\n@@\n def main():\n-    debug = Tru\n"
            "+    debug = 1\n*** End Patch")})
    hunk = r.structuredContent["files"][0]["hunks"][0]
    assert hunk["outcome"] == "refused"
    assert hunk["near_miss"]["line"] == 1
    assert "closest text is at line 1" in text_of(r)
