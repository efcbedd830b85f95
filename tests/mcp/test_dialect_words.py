"""What an agent trained on the real tools sends and reads, over MCP: the Amazon Q CLI's
shipping shapes (fs_read `operations`, fs_write create over a file, line edits without a
content_hash), the text content each dialect's tools answer with (the words the model reads,
which many clients show instead of structuredContent), and errors in the called tool's own
argument names."""

import json

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
        assert read.structuredContent["content_hash"]
        create = await session.call_tool(
            "fs_write", {"command": "create", "path": "old.txt", "new_str": "new\n"}
        )
        assert not create.isError, text_of(create)
        insert = await session.call_tool(
            "fs_write",
            {"command": "insert", "path": "old.txt", "insert_line": 1, "new_str": "more"},
        )
        assert not insert.isError, text_of(insert)
        assert insert.structuredContent["content_hash"]
        batch = await session.call_tool(
            "fs_write",
            {"command": "insert", "fileEdits": [{"path": "old.txt", "edits": [
                {"command": "insert", "insert_line": 0, "new_str": "top"}]}]},
        )
        assert batch.isError
        assert "fileEdits[0].edits[0].content_hash" in text_of(batch)
    assert (workspace / "old.txt").read_text() == "new\nmore\n"
