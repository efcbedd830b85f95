"""What an agent trained on the real tools sends and reads, over MCP: the Amazon Q CLI's
shipping shapes (fs_read `operations`, fs_write create over a file, line edits without a
content_hash), the text content each dialect's tools answer with (the words the model reads,
which many clients show instead of structuredContent), and errors in the called tool's own
argument names."""

import json
import re

import pytest

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_amazonq_shipping_shapes(connect, workspace):
    (workspace / "sub").mkdir()
    (workspace / "sub" / "a.py").write_text("print(1)\n")
    (workspace / "old.txt").write_text("old\n")
    async with connect("--tools", "amazonq") as session:
        listing = await session.call_tool(
            "fs_read", {"operations": [{"mode": "Directory", "path": "sub"}]}
        )
        assert not listing.isError, text_of(listing)
        assert "sub/a.py" in text_of(listing)
        read = await session.call_tool(
            "fs_read",
            {"operations": [{"mode": "Line", "path": "sub/a.py", "start_line": 1}]},
        )
        assert not read.isError, text_of(read)
        assert "print(1)" in text_of(read)
        assert reply_of(read)["content_hash"]
        create = await session.call_tool(
            "fs_write", {"command": "create", "path": "old.txt", "new_str": "new\n"}
        )
        assert not create.isError, text_of(create)
        insert = await session.call_tool(
            "fs_write",
            {"command": "insert", "path": "old.txt", "insert_line": 1, "new_str": "more"},
        )
        assert not insert.isError, text_of(insert)
        assert reply_of(insert)["content_hash"]
        batch = await session.call_tool(
            "fs_write",
            {"command": "insert", "fileEdits": [{"path": "old.txt", "edits": [
                {"command": "insert", "insert_line": 0, "new_str": "top"}]}]},
        )
        assert batch.isError
        assert "fileEdits[0].edits[0].content_hash" in text_of(batch)
    assert (workspace / "old.txt").read_text() == "new\nmore\n"


def reply_of(result):
    """The reply as the dialect shaped it: structuredContent (an array reply is wrapped), or the
    text of a table whose real tools answer in text alone (amazonq's is its reply's JSON)."""
    s = result.structuredContent
    if s is None:
        return json.loads(text_of(result))
    return s["results"] if set(s) == {"results"} else s


async def test_amazonq_text_is_the_serialized_reply(connect, workspace):
    """The Q CLI answers fs_write with no text and its reads with the raw lines; filekit's
    amazonq replies are the seed's JSON objects, and the model reads exactly that JSON, with no
    structuredContent beside it (test_schemas.py validates the typed replies)."""
    (workspace / "a.txt").write_text("one\ntwo\n")
    (workspace / "d").mkdir()
    (workspace / "d" / "b.txt").write_text("x\n")
    calls = [
        ("fs_read", {"operations": [{"mode": "Line", "path": "a.txt"}]}),
        ("fs_read", {"mode": "Line", "paths": ["a.txt", "missing.txt"]}),
        ("fs_read", {"operations": [{"mode": "Directory", "path": "d"}]}),
        ("fs_read", {"operations": [{"mode": "Search", "path": "a.txt", "pattern": "TWO"}]}),
        ("fs_write", {"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "2"}),
        ("fs_write", {"command": "str_replace", "path": "a.txt", "old_str": "zzz", "new_str": "2"}),
        ("fs_write", {"command": "append", "fileEdits": [
            {"path": "a.txt", "edits": [{"command": "append", "new_str": "three"}]}]}),
        ("fs_write", {"command": "pattern_replace", "directory": ".", "file_pattern": "*.txt",
                      "sed_pattern": "s/x/y/", "recursive": True, "dry_run": True}),
    ]
    async with connect("--tools", "amazonq") as session:
        for name, args in calls:
            result = await session.call_tool(name, args)
            text = text_of(result)
            assert result.structuredContent is None, (name, args)
            reply = json.loads(text)
            entries = reply if isinstance(reply, list) else [reply]
            assert all("success" in e for e in entries), (name, args, text)
            for generic in ["edit applied", "edits applied;", "FAILED:"]:
                assert generic not in text, (name, args, text)
        # Several operations: the Q CLI's framing, one part per operation.
        both = await session.call_tool("fs_read", {"operations": [
            {"mode": "Line", "path": "a.txt"}, {"mode": "Line", "path": "nope.txt"}]})
    text = text_of(both)
    assert "=== Operation 1 Result (Json) ===" in text, text
    assert "=== Operation 2 Error ===" in text, text
    assert "Summary: 2 operations processed, 1 successful, 1 failed" in text, text
    assert both.isError


async def test_edit_block_text_is_desktop_commander_s(connect, workspace):
    lines = [f"line {i}" for i in range(1, 41)]
    (workspace / "big.txt").write_text("\n".join(lines) + "\n")
    (workspace / "c.txt").write_text("a\nb\na\n")
    async with connect("--tools", "desktop-commander") as session:
        ok = await session.call_tool(
            "edit_block", {"file_path": "big.txt", "old_string": "line 20\n", "new_string": "LINE 20\n"})
        many = await session.call_tool(
            "edit_block", {"file_path": "c.txt", "old_string": "a", "new_string": "z"})
        near = await session.call_tool(
            "edit_block", {"file_path": "big.txt", "old_string": "line 3O", "new_string": "x"})
        empty = await session.call_tool(
            "edit_block", {"file_path": "c.txt", "old_string": "", "new_string": "x"})
        missing = await session.call_tool(
            "edit_block", {"file_path": "nope.txt", "old_string": "a", "new_string": "x"})
        batch = await session.call_tool(
            "batch_edit_blocks", {"path": "c.txt", "edits": [{"search": "b", "replace": "B"}]})
        from_line = await session.call_tool(
            "write_from_line", {"path": "c.txt", "startLine": 3, "content": "end\n"})
    # Its success text (performSearchReplace): a status line, then the edited region with
    # ten lines around it (JavaScript split counts: 41 "lines" for 40 and a final newline).
    text = text_of(ok)
    assert not ok.isError, text
    assert text.startswith("[Reading 22 lines from line 9 (total: 41 lines, 10 remaining)]\n\nline 10\n"), text
    assert "LINE 20\nline 21" in text, text
    # As the real tool's, the reply is its text alone; the version to edit against is in it.
    assert ok.structuredContent is None
    assert re.search(r"\[1 replacement; contentHash [0-9a-f]{16}\]$", text), text
    text = text_of(many)
    assert many.isError
    assert text.startswith("Expected 1 occurrences but found 2 in c.txt"), text
    assert "set expected_replacements to 2" in text, text
    assert "edit 0" not in text and "(str_replace)" not in text and "replace_all" not in text, text
    text = text_of(near)
    assert near.isError
    assert text.startswith("Exact match not found, but found a similar text with"), text
    assert "% similarity" in text, text
    assert text_of(empty).startswith("Empty search strings are not allowed."), text_of(empty)
    assert text_of(missing).startswith("Error: "), text_of(missing)
    for result in (batch, from_line):
        assert not result.isError, text_of(result)
        assert result.structuredContent is None
        assert json.loads(text_of(result))["success"] is True, text_of(result)
    assert (workspace / "c.txt").read_text() == "a\nB\nend\n"


async def test_errors_in_each_tool_s_own_words_over_mcp(open_session, workspace):
    (workspace / "c.txt").write_text("a\nb\na\n")
    edit = {"file_path": "c.txt", "old_string": "a", "new_string": "z"}
    async with open_session(workspace, "--tools", "claude,amazonq") as session:
        claude = text_of(await session.call_tool("Edit", edit))
        multi = text_of(await session.call_tool("MultiEdit", {"file_path": "c.txt", "edits": [
            {"old_string": "b", "new_string": "B"}, {"old_string": "", "new_string": "x"}]}))
        q = text_of(await session.call_tool(
            "fs_write", {"command": "str_replace", "path": "c.txt", "old_str": "", "new_str": "z"}))
    assert "set `replace_all` to true" in claude and "ask to replace all" not in claude, claude
    assert "edit 2 of 2 failed" in multi and "`old_string` is empty" in multi, multi
    assert "`old_str` is empty" in q and "use command insert (after a line) or append" in q, q
    assert (workspace / "c.txt").read_text() == "a\nb\na\n"
