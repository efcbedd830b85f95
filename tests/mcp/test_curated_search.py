"""The default table's search tools over MCP (issue 24 item 8): an agent that has only the
curated table finds files (find_files, list_dir), searches their contents (grep_files) and
edits at the line the search gave, over stdio and HTTP; bad inputs are error results in the
tools' own words, and every reply fits the tool's outputSchema."""

import jsonschema
import pytest

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def project(root):
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef handler(x):\n    return x + 1\n")
    (root / "src" / "util.py").write_text("def helper():\n    pass\n")
    (root / "README.md").write_text("# demo\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("def handler():\n    pass\n")


async def test_an_agent_with_the_default_table_finds_searches_and_edits(connect, workspace):
    project(workspace)
    async with connect() as session:
        schemas = {t.name: t.outputSchema for t in (await session.list_tools()).tools}
        for name in ("grep_files", "find_files", "list_dir"):
            assert name in schemas
        listing = await session.call_tool("list_dir", {"depth": 2})
        found = await session.call_tool("find_files", {"pattern": "**/*.py"})
        hits = await session.call_tool(
            "grep_files", {"pattern": r"def \w+\(x\)", "type": "py", "context": 1}
        )
        for name, result in (("list_dir", listing), ("find_files", found), ("grep_files", hits)):
            assert not result.isError, text_of(result)
            jsonschema.validate(result.structuredContent, schemas[name])
        # What the model reads: the tree, the paths, path:line:text rows.
        assert "src/\n" in text_of(listing) and "    app.py\n" in text_of(listing)
        assert [e["path"] for e in listing.structuredContent["entries"]] == [
            "README.md", "src", "src/app.py", "src/util.py"]
        assert sorted(f["path"] for f in found.structuredContent["files"]) == [
            "src/app.py", "src/util.py"]
        assert "src/app.py:3:def handler(x):" in text_of(hits)
        assert "src/app.py-4-    return x + 1" in text_of(hits)
        hit = hits.structuredContent["files"][0]
        # Lines as LINE:TEXT (a match) or LINE-TEXT (context), the path once per file.
        line = next(int(l.split(":", 1)[0]) for l in hit["lines"]
                    if l.split(":", 1)[0].isdigit())
        # The path and line go straight into read_files and edit_files.
        read = await session.call_tool(
            "read_files", {"files": [{"path": hit["path"], "start_line": line, "end_line": line}]})
        entry = read.structuredContent["files"][0]
        assert entry["content"] == "def handler(x):\n"
        edit = await session.call_tool("edit_files", {"files": [{"path": hit["path"], "edits": [
            {"replace_lines": {"start": line, "new": "def handler(y):\n",
                               "content_hash": entry["content_hash"]}}]}]})
        assert not edit.isError, text_of(edit)
    assert (workspace / "src" / "app.py").read_text().startswith("import os\n\ndef handler(y):")


async def test_search_errors_are_error_results_in_the_tools_words(connect, workspace, tmp_path):
    project(workspace)
    (tmp_path / "outside.txt").write_text("secret\n")
    async with connect() as session:
        schemas = {t.name: t.outputSchema for t in (await session.list_tools()).tools}
        bad_regex = await session.call_tool("grep_files", {"pattern": "def (", "path": "src"})
        missing = await session.call_tool("grep_files", {"pattern": "x", "path": "nope"})
        outside = await session.call_tool("grep_files", {"pattern": "secret", "path": str(tmp_path)})
        outside_list = await session.call_tool("list_dir", {"path": ".."})
        outside_find = await session.call_tool("find_files", {"pattern": "*.txt", "path": str(tmp_path)})
        unknown = await session.call_tool("find_files", {"pattern": "*.py", "glob": "*.py"})
        # A pattern that is not a regex is refused before anything is searched.
        assert bad_regex.isError and (bad_regex.meta or {}).get("filekit/rejected"), text_of(bad_regex)
        for result in (missing, outside, outside_list, outside_find):
            assert result.isError
            assert not (result.meta or {}).get("filekit/rejected"), text_of(result)
            assert "secret" not in text_of(result).replace("pattern", "")
        for result, name in ((bad_regex, "grep_files"), (missing, "grep_files"),
                             (outside, "grep_files"), (outside_list, "list_dir"),
                             (outside_find, "find_files"), (unknown, "find_files")):
            jsonschema.validate(result.structuredContent, schemas[name])
    assert "`pattern` \"def (\" is not a valid regex at line 1, column 5" in text_of(bad_regex)
    assert "unclosed group" in text_of(bad_regex), text_of(bad_regex)
    assert bad_regex.structuredContent["error_code"] == "INVALID_ARGUMENT"
    assert missing.structuredContent["error_code"] == "NOT_FOUND"
    for result in (outside, outside_list, outside_find):
        assert result.structuredContent["error_code"] == "OUT_OF_ROOT", text_of(result)
        assert "outside the workspace" in text_of(result)
    assert unknown.isError and unknown.meta["filekit/rejected"] is True
    assert "find_files: unknown argument `glob`" in text_of(unknown)
