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
    assert result.structuredContent["total_edits"] == 1
    assert (workspace / "svc.ts").read_text().endswith(
        "    return this.db.get(id);\n  }\n\n  size() {\n    return 0;\n  }\n}\n")


async def test_a_missing_symbol_is_an_error_listing_the_nearest(connect, workspace):
    (workspace / "svc.ts").write_text(SERVICE)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool("file_edit", {
            "file": "svc.ts", "target": "UserService.fnd", "operation": "delete"})
    assert result.isError
    assert result.structuredContent["errorCode"] == "NOT_FOUND"
    assert "UserService.find (method)" in text_of(result)
    assert (workspace / "svc.ts").read_text() == SERVICE


CONFIG = """# deployment
name: shop  # the service
env:
  - name: MODE
    value: prod
"""

PAGE = """<html>
<body>
  <ul id="menu">
    <li>one</li>
  </ul>
</body>
</html>
"""

PROJ = """<Project>
  <ItemGroup>
    <PackageReference Include="Serilog" Version="3.1.1" />
  </ItemGroup>
</Project>
"""


async def test_yaml_html_and_xml_are_read_by_path_selector_and_xpath(connect, workspace):
    (workspace / "deploy.yaml").write_text(CONFIG)
    (workspace / "index.html").write_text(PAGE)
    (workspace / "App.csproj").write_text(PROJ)
    async with connect("--tools", "semantic") as session:
        y = await session.call_tool("file_read", {"file": "deploy.yaml", "path": "$.env[0].value"})
        h = await session.call_tool("file_read", {"file": "index.html", "selector": "#menu > li"})
        x = await session.call_tool("file_read", {"file": "App.csproj", "xpath": "//PackageReference/@Version"})
    for r in (y, h, x):
        assert not r.isError, text_of(r)
    assert y.structuredContent["content"] == "prod"
    assert y.structuredContent["range"]["start"] == {"line": 5, "column": 11}
    assert h.structuredContent["content"] == "<li>one</li>"
    assert x.structuredContent["content"] == 'Version="3.1.1"'
    assert x.structuredContent["kind"] == "attribute"


async def test_yaml_html_and_xml_edits_through_the_default_table(connect, workspace):
    (workspace / "deploy.yaml").write_text(CONFIG)
    (workspace / "index.html").write_text(PAGE)
    (workspace / "App.csproj").write_text(PROJ)
    async with connect() as session:
        y = await session.call_tool("file_edit", {
            "file": "deploy.yaml", "target": "$.name", "operation": "replace", "content": "store"})
        h = await session.call_tool("file_edit", {
            "file": "index.html", "target": "#menu", "operation": "insert_into", "content": "<li>two</li>"})
        x = await session.call_tool("file_edit", {
            "file": "App.csproj", "target": "//PackageReference/@Version", "operation": "replace_body",
            "content": "4.0.0"})
    for r in (y, h, x):
        assert not r.isError, text_of(r)
    assert (workspace / "deploy.yaml").read_text() == CONFIG.replace("name: shop", "name: store")
    assert (workspace / "index.html").read_text() == PAGE.replace(
        "<li>one</li>\n", "<li>one</li>\n    <li>two</li>\n")
    assert (workspace / "App.csproj").read_text() == PROJ.replace("3.1.1", "4.0.0")


async def test_bad_selector_and_xpath_say_where(connect, workspace):
    (workspace / "index.html").write_text(PAGE)
    (workspace / "App.csproj").write_text(PROJ)
    async with connect("--tools", "semantic") as session:
        h = await session.call_tool("file_read", {"file": "index.html", "selector": "ul >> li"})
        x = await session.call_tool("file_edit", {
            "file": "App.csproj", "target": "//ItemGroup[", "operation": "delete"})
    assert h.isError and "at character 5" in text_of(h)
    assert x.isError and "invalid XPath" in text_of(x)
    assert (workspace / "App.csproj").read_text() == PROJ


async def test_a_json_members_range_starts_at_its_key(connect, workspace):
    # Seed 004's "JSON path read": $.scripts of package.json, range from line 8 column 2 (the
    # key) to line 11 column 3; the content is the value.
    lines = ['{', '  "name": "app",', '  "version": "1.0.0",', '  "private": true,',
             '  "main": "index.js",', '  "license": "MIT",', '  "type": "module",',
             '  "scripts": {', '    "build": "tsc",', '    "test": "vitest"', '  }', '}']
    (workspace / "package.json").write_text("\n".join(lines) + "\n")
    async with connect("--tools", "semantic") as session:
        r = await session.call_tool("file_read", {"file": "package.json", "path": "$.scripts"})
    assert not r.isError, text_of(r)
    assert r.structuredContent["range"] == {"start": {"line": 8, "column": 2},
                                            "end": {"line": 11, "column": 3}}
    assert r.structuredContent["content"].startswith("{\n    \"build\"")
