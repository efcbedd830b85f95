"""The semantic tools (file_read, file_edit of document 004) over MCP: served by
`--tools semantic` and by the default `filekit` table."""

import pytest

pytestmark = pytest.mark.anyio

SERVICE = """import { Database } from './db';

export class UserService {
  constructor(private db: Database) {}

  find(id: string) {
    return this.db.get(id);
  }
}
"""


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


async def test_read_a_symbol_with_structured_metadata(connect, workspace):
    (workspace / "svc.ts").write_text(SERVICE)
    async with connect("--tools", "semantic") as session:
        names = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("file_read", {"file": "svc.ts", "symbol": "UserService.find"})
    assert names == [
        "file_read", "file_edit", "file_create", "file_delete", "file_move", "file_rename",
        "file_duplicate",
    ]
    assert not result.isError, text_of(result)
    reply = result.structuredContent
    assert reply["content"] == "find(id: string) {\n    return this.db.get(id);\n  }"
    assert reply["kind"] == "method"
    assert reply["range"]["start"] == {"line": 6, "column": 2}
    assert "return this.db.get(id);" in text_of(result)


async def test_edit_through_the_default_table_writes_the_file(connect, workspace):
    (workspace / "svc.ts").write_text(SERVICE)
    async with connect() as session:
        result = await session.call_tool("file_edit", {
            "file": "svc.ts", "target": "UserService", "operation": "insert_into",
            "content": "size() {\n  return 0;\n}",
        })
    assert not result.isError, text_of(result)
    assert result.structuredContent["totalEdits"] == 1
    assert (workspace / "svc.ts").read_text().endswith(
        "    return this.db.get(id);\n  }\n  size() {\n    return 0;\n  }\n}\n")


async def test_a_missing_symbol_is_an_error_listing_the_nearest(connect, workspace):
    (workspace / "svc.ts").write_text(SERVICE)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool("file_edit", {
            "file": "svc.ts", "target": "UserService.fnd", "operation": "delete"})
    assert result.isError
    assert result.structuredContent["errorCode"] == "NOT_FOUND"
    assert "UserService.find (method)" in text_of(result)
    assert (workspace / "svc.ts").read_text() == SERVICE
