"""Listing and calling the tool tables over MCP, checked against the files on disk."""

import json
import re

import anyio
import jsonschema
import pytest

from conftest import TABLES, TEXT_REPLIES, table_tools, workspace_state

pytestmark = pytest.mark.anyio

MCP_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def unique(tools):
    """The tools a server lists for several tables: a tool in two tables (the semantic
    table's file_read is also in the filekit table) is listed once, where it first appears."""
    seen = set()
    return [t for t in tools if not (t["mcp_name"] in seen or seen.add(t["mcp_name"]))]


def clashing(tools):
    """The names that tables define differently (the MCP filesystem server's and Desktop
    Commander's read_file): `--tools all` leaves them out. The curated `filekit` table lists
    its arguments bare (no descriptions): a tool it shares with another table (file_read,
    apply_patch) is the same tool, compared in the other table's described form."""
    shared = {t["mcp_name"] for t in tools if t["dialect"] != "filekit"}
    schemas = {}
    for t in tools:
        if t["dialect"] == "filekit" and t["mcp_name"] in shared:
            continue
        schemas.setdefault(t["mcp_name"], set()).add(json.dumps(t["input_schema"], sort_keys=True))
    return {name for name, shapes in schemas.items() if len(shapes) > 1}


def served_by_all(tools):
    """What `--tools all` lists: each tool once; a name the curated table has is its tool (the
    `semantic` table spells file_edit's arguments otherwise); no other name that tables define
    differently."""
    curated = {t["mcp_name"] for t in tools if t["dialect"] == "filekit"}
    left_out = clashing(tools) - curated
    kept = [t for t in tools if t["dialect"] == "filekit" or t["mcp_name"] not in curated]
    return [t for t in unique(kept) if t["mcp_name"] not in left_out]


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_initialize_names_the_server_and_offers_tools(connect):
    async with connect() as session:
        init = session.init_result
        assert init.serverInfo.name == "filekit"
        assert init.capabilities.tools is not None
        assert "filekit" in (init.instructions or "")


@pytest.mark.parametrize("table", TABLES + ["all", "claude,amazonq"])
async def test_each_table_lists_exactly_its_tools_with_valid_schemas(connect, table):
    if table == "all":
        expected = served_by_all(table_tools())
    else:
        expected = unique([t for d in table.split(",") for t in table_tools(d)])
    async with connect("--tools", table) as session:
        listed = (await session.list_tools()).tools
    assert [t.name for t in listed] == [t["mcp_name"] for t in expected]
    by_name = {t["mcp_name"]: t for t in expected}
    for tool in listed:
        spec = by_name[tool.name]
        assert MCP_NAME.match(tool.name), tool.name
        assert tool.description == spec["description"]
        assert tool.inputSchema == spec["input_schema"]
        jsonschema.Draft202012Validator.check_schema(tool.inputSchema)
        if spec["dialect"] in TEXT_REPLIES:
            assert tool.outputSchema is None, tool.name
        else:
            assert tool.outputSchema["type"] == "object"
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
        a = tool.annotations
        assert a is not None, tool.name
        assert a.readOnlyHint is spec["read_only"]
        # MCP gives these hints meaning only for a tool that writes: a reading tool has none.
        writes = not spec["read_only"]
        assert a.destructiveHint is (spec["destructive"] if writes else None)
        assert a.idempotentHint is (spec["idempotent"] if writes else None)
        assert a.openWorldHint is False


async def test_default_is_the_curated_table(connect):
    async with connect() as session:
        names = [t.name for t in (await session.list_tools()).tools]
    assert names == [
        "read_files", "edit_files", "replace_in_files", "lock", "unlock", "grep_files",
        "find_files", "list_dir", "file_read", "file_edit", "manage_files", "history", "undo",
        "redo", "apply_patch",
    ]


async def test_all_serves_every_built_table(connect):
    async with connect("--tools", "all") as session:
        names = [t.name for t in (await session.list_tools()).tools]
    assert names == [t["mcp_name"] for t in served_by_all(table_tools())]
    assert "file_read_file" in names and "Read" in names and "fs_write" in names
    assert "read_files" in names


async def test_read_returns_numbered_text_and_structured_reply(connect, workspace):
    (workspace / "a.txt").write_text("alpha\nbeta\ngamma\n")
    async with connect("--tools", "file") as session:
        result = await session.call_tool("file_read_file", {"path": "a.txt", "start_line": 2, "end_line": 2})
    assert not result.isError, text_of(result)
    assert result.structuredContent["success"] is True
    assert "beta" in text_of(result)


async def test_tables_of_tools_that_answer_in_text_send_text_alone(connect, workspace):
    """Claude Code's, Codex's and Amazon Q's tools answer in text: so do their tables, with no
    structuredContent beside it (amazonq's text is its reply's JSON)."""
    (workspace / "a.txt").write_text("alpha\nbeta\ngamma\n")
    async with connect("--tools", "claude,codex,amazonq") as session:
        read = await session.call_tool("Read", {"file_path": "a.txt", "offset": 2, "limit": 1})
        failed = await session.call_tool(
            "Edit", {"file_path": "a.txt", "old_string": "zeta", "new_string": "z"})
        patch = await session.call_tool("apply_patch", {
            "input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-gamma\n+GAMMA\n*** End Patch\n"})
        q = await session.call_tool("fs_read", {"operations": [{"mode": "Line", "path": "a.txt"}]})
    assert not read.isError and text_of(read).startswith("     2\tbeta\n... (1 more lines"), text_of(read)
    assert failed.isError and "not found" in text_of(failed)
    assert not patch.isError and text_of(patch).startswith("Success."), text_of(patch)
    assert not q.isError and json.loads(text_of(q))["content"].endswith("GAMMA\n"), text_of(q)
    for result in (read, failed, patch, q):
        assert result.structuredContent is None, result


async def test_edit_changes_the_file_on_disk(connect, workspace):
    (workspace / "app.js").write_text("const x = 1;\nconst y = 2;\n")
    async with connect("--tools", "claude") as session:
        result = await session.call_tool(
            "Edit", {"file_path": "app.js", "old_string": "y = 2", "new_string": "y = 3"}
        )
    assert not result.isError, text_of(result)
    assert (workspace / "app.js").read_text() == "const x = 1;\nconst y = 3;\n"


async def test_file_table_takes_mcp_and_document_names(connect, workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.js").write_text("one\ntwo\nthree\n")
    async with connect("--tools", "file") as session:
        by_mcp = await session.call_tool("file_read_file", {"path": "src/app.js"})
        by_doc = await session.call_tool("file:read_file", {"path": "src/app.js"})
        edit = await session.call_tool(
            "file_edit_file",
            {"path": "src/app.js", "start_line": 2, "end_line": 2, "new_content": "TWO"},
        )
    assert not by_mcp.isError and not by_doc.isError, text_of(by_mcp)
    assert by_mcp.structuredContent == by_doc.structuredContent
    assert not edit.isError, text_of(edit)
    assert (workspace / "src" / "app.js").read_text() == "one\nTWO\nthree\n"


async def test_an_array_reply_is_its_json_in_the_text(connect, workspace):
    (workspace / "a.txt").write_text("a\n")
    (workspace / "b.txt").write_text("b\n")
    async with connect("--tools", "amazonq") as session:
        result = await session.call_tool(
            "fs_read", {"mode": "Line", "paths": ["a.txt", "b.txt"]}
        )
    assert not result.isError, text_of(result)
    replies = json.loads(text_of(result))
    assert isinstance(replies, list) and len(replies) == 2
    assert result.structuredContent is None


async def test_failed_edit_is_an_error_result_and_leaves_the_file(connect, workspace):
    (workspace / "a.txt").write_text("keep me\n")
    async with connect("--tools", "claude") as session:
        result = await session.call_tool(
            "Edit", {"file_path": "a.txt", "old_string": "not there", "new_string": "x"}
        )
        still_up = await session.call_tool("Read", {"file_path": "a.txt"})
    assert result.isError
    assert "not there" in text_of(result) or "not found" in text_of(result).lower()
    assert not still_up.isError
    assert (workspace / "a.txt").read_text() == "keep me\n"


async def test_paths_outside_the_root_are_refused(connect, workspace, tmp_path):
    (tmp_path / "secret.txt").write_text("the password\n")
    async with connect("--tools", "claude") as session:
        result = await session.call_tool("Read", {"file_path": str(tmp_path / "secret.txt")})
        write = await session.call_tool("Write", {"file_path": "../escape.txt", "content": "x"})
    assert result.isError and "password" not in text_of(result)
    assert "is outside the workspace" in text_of(result), text_of(result)
    assert write.isError
    assert not (tmp_path / "escape.txt").exists()


async def test_read_only_refuses_writes(connect, workspace):
    async with connect("--tools", "claude", "--read-only") as session:
        result = await session.call_tool("Write", {"file_path": "new.txt", "content": "x"})
    assert result.isError
    assert not (workspace / "new.txt").exists()


async def test_unknown_tool_is_an_error_result_naming_the_closest(connect):
    async with connect("--tools", "claude") as session:
        result = await session.call_tool("Reed", {"file_path": "a.txt"})
        hidden = await session.call_tool("fs_read", {"mode": "Line", "path": "a.txt"})
    assert result.isError and "Read" in text_of(result)
    assert result.meta["filekit/rejected"] is True
    assert result.structuredContent["error_code"] == "UNKNOWN_TOOL"
    # A tool of a table that was not chosen is not served.
    assert hidden.isError and "unknown tool" in text_of(hidden)


@pytest.mark.parametrize("table", TABLES)
async def test_every_tool_rejects_bad_arguments_as_error_results(connect, table):
    async with connect("--tools", table) as session:
        for tool in (await session.list_tools()).tools:
            props = tool.inputSchema.get("properties", {})
            # Every declared argument with a value of the wrong JSON type.
            wrong = {
                name: ([] if schema.get("type") != "array" else {"not": "a list"})
                for name, schema in props.items()
            }
            # A tool without arguments has no argument to mistype.
            for args in (wrong if props else None,
                         {"no_such_argument": 1} if tool.inputSchema.get("required") else None):
                if args is None:
                    continue
                result = await session.call_tool(tool.name, args)
                assert result.isError, (tool.name, args)
                assert text_of(result).strip(), tool.name
        # Still serving after every rejection.
        assert (await session.list_tools()).tools


async def test_many_calls_in_flight_at_once(connect, workspace):
    for i in range(40):
        (workspace / f"f{i}.txt").write_text(f"file {i}\n")
    results = {}
    async with connect("--tools", "claude") as session:

        async def read(i):
            results[i] = await session.call_tool("Read", {"file_path": f"f{i}.txt"})

        async with anyio.create_task_group() as tg:
            for i in range(40):
                tg.start_soon(read, i)
    assert len(results) == 40
    for i, result in results.items():
        assert not result.isError
        assert text_of(result) == f"     1\tfile {i}\n"


async def test_a_call_of_many_megabytes_round_trips(connect, workspace):
    # A 2 MiB file as "\n"-heavy JSON: 4 MiB on the wire. The server holds files of up to 4 MiB
    # whole here (--max-file-size): a Write of more is refused, nothing written.
    big = "y\n" * (1024 * 1024)
    too_big = "y" * (6 * 1024 * 1024) + "\n"
    async with connect("--tools", "claude", "--max-file-size", "4M") as session:
        write = await session.call_tool("Write", {"file_path": "big.txt", "content": big})
        read = await session.call_tool("Read", {"file_path": "big.txt", "limit": 1})
        refused = await session.call_tool("Write", {"file_path": "huge.txt", "content": too_big})
    assert not write.isError, text_of(write)
    assert (workspace / "big.txt").read_text() == big
    assert not read.isError
    assert refused.isError and "larger than" in text_of(refused), text_of(refused)[:300]
    assert not (workspace / "huge.txt").exists()


async def test_curated_read_then_edit_with_the_version_read(connect, workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("import os\n\ndef main():\n    return 1\n")
    (workspace / "notes.md").write_text("# Notes\nDEBUG = True\n")
    async with connect() as session:
        read = await session.call_tool("read_files", {"files": [
            {"path": "src/app.py", "start_line": 3}, {"path": "notes.md"}, {"path": "gone.txt"}]})
        assert read.isError  # one file of three failed; the other two are there
        app, notes, gone = read.structuredContent["files"]
        assert app["content"] == "def main():\n    return 1\n" and app["start_line"] == 3
        assert "error" not in notes and gone["error_code"] == "NOT_FOUND"
        assert "     3\tdef main():" in text_of(read)
        edit = await session.call_tool("edit_files", {"files": [
            {"path": "src/app.py", "edits": [
                {"replace_lines": {"start": 4, "new": "    return 2\n",
                                   "content_hash": app["content_hash"]}},
                {"insert": {"after": 1, "text": "import sys\n"}}]},
            {"path": "notes.md", "edits": [{"str_replace": {"old": "True", "new": "False"}}]},
            {"path": "new/file.txt", "edits": [{"create": {"content": "hello\n"}}]},
        ]})
        assert not edit.isError, text_of(edit)
        statuses = [f["status"] for f in edit.structuredContent["files"]]
        assert statuses == ["modified", "modified", "created"]
        # The version read is old now: a line edit made on it that meets the changes made
        # since (the insert after line 1) is refused as a conflict.
        stale = await session.call_tool("edit_files", {"files": [{"path": "src/app.py", "edits": [
            {"replace_lines": {"start": 1, "end": 1, "new": "x", "content_hash": app["content_hash"]}}]}]})
        assert stale.isError and not (stale.meta or {}).get("filekit/rejected")
        assert stale.structuredContent["files"][0]["error_code"] == "CONFLICT"
    assert (workspace / "src" / "app.py").read_text() == "import os\nimport sys\n\ndef main():\n    return 2\n"
    assert (workspace / "notes.md").read_text() == "# Notes\nDEBUG = False\n"
    assert (workspace / "new" / "file.txt").read_text() == "hello\n"


async def test_curated_edit_dry_run_and_atomic_write_nothing(connect, workspace):
    (workspace / "a.txt").write_text("one\n")
    async with connect() as session:
        dry = await session.call_tool("edit_files", {
            "files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}],
            "options": {"dry_run": True}})
        atomic = await session.call_tool("edit_files", {
            "files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]},
                      {"path": "b.txt", "edits": [{"str_replace": {"old": "missing", "new": "x"}}]}],
            "options": {"atomic": True}})
        typo = await session.call_tool("edit_files", {
            "files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}],
            "options": {"dry_rnu": True}})
    assert not dry.isError and "+two" in dry.structuredContent["files"][0]["diff"]
    assert atomic.isError and atomic.structuredContent["rolled_back"] is True
    assert typo.isError and typo.meta["filekit/rejected"] and "dry_rnu" in text_of(typo)
    assert (workspace / "a.txt").read_text() == "one\n"


async def test_long_edits_report_progress_per_file(connect, workspace):
    files = 120
    for i in range(files):
        (workspace / f"m{i}.txt").write_text(f"value = {i}\n")
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total))

    plan = {"files": [{"path": f"m{i}.txt", "edits": [{"str_replace": {"old": "value", "new": "v"}}]}
                      for i in range(files)]}
    async with connect() as session:
        result = await session.call_tool("edit_files", plan, progress_callback=on_progress)
        quiet = await session.call_tool("edit_files", {"files": [{"path": "m0.txt", "edits": [
            {"str_replace": {"old": "v =", "new": "w ="}}]}]})
    assert not result.isError, text_of(result)
    assert sorted(p for p, _ in seen) == list(range(1, files + 1))
    assert {t for _, t in seen} == {files}
    assert not quiet.isError
    assert (workspace / "m7.txt").read_text() == "v = 7\n"


async def test_curated_replace_across_a_tree(connect, workspace):
    (workspace / "src" / "sub").mkdir(parents=True)
    (workspace / "src" / "a.ts").write_text("getUser(1)\nx = getUser(2)\n")
    (workspace / "src" / "sub" / "b.ts").write_text("getUser(3)\n")
    (workspace / "src" / "c.js").write_text("getUser(4)\n")
    async with connect() as session:
        dry = await session.call_tool("replace_in_files", {
            "expression": "s/getUser/fetchUser/g", "files": "*.ts", "directory": "src",
            "dry_run": True})
        assert not dry.isError, text_of(dry)
        assert dry.structuredContent["replacements"] == 3
        assert (workspace / "src" / "a.ts").read_text().startswith("getUser")
        real = await session.call_tool("replace_in_files", {
            "expression": "s/getUser/fetchUser/g", "files": "*.ts", "directory": "src"})
        bad = await session.call_tool("replace_in_files", {"expression": "s/(x/y/", "files": "*"})
        none = await session.call_tool("replace_in_files", {"expression": "s/a/b/", "files": "*.none"})
    assert not real.isError and real.structuredContent["files_changed"] == 2
    assert (workspace / "src" / "a.ts").read_text() == "fetchUser(1)\nx = fetchUser(2)\n"
    assert (workspace / "src" / "sub" / "b.ts").read_text() == "fetchUser(3)\n"
    assert (workspace / "src" / "c.js").read_text() == "getUser(4)\n"
    assert bad.isError and bad.meta["filekit/rejected"] and "regex" in text_of(bad)
    assert none.isError and "no files matched" in text_of(none)


async def test_curated_replies_fit_their_output_schemas(connect, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    calls = [
        ("read_files", {"files": [{"path": "a.txt"}, {"path": "missing.txt"}]}),
        ("read_files", {"files": "not a list"}),
        ("edit_files", {"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "alpha", "new": "beta"}}]}]}),
        ("edit_files", {"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "zzz", "new": "y"}}]}]}),
        ("replace_in_files", {"expression": "s/beta/gamma/", "files": "*.txt"}),
        ("replace_in_files", {"expression": "s/beta/gamma/", "files": "*.none"}),
    ]
    async with connect() as session:
        schemas = {t.name: t.outputSchema for t in (await session.list_tools()).tools}
        for name, args in calls:
            result = await session.call_tool(name, args)
            assert len(schemas[name]["properties"]) > 3, name  # a real schema, not a stub
            jsonschema.validate(result.structuredContent, schemas[name])


async def test_file_operations_history_and_undo_over_mcp(connect, workspace, state_home):
    """A move and a template create through the server land in the history in the
    workspace's state directory (never in the tree); undo over MCP puts the tree back."""
    (workspace / "old.ts").write_text("export const a = 1;\n")
    async with connect("--tools", "all") as session:
        moved = await session.call_tool(
            "manage_files", {"operations": [{"op": "move", "from": "old.ts", "to": "lib/new.ts"}]}
        )
        assert not moved.isError, text_of(moved)
        assert moved.structuredContent["history_entry"] == 1
        created = await session.call_tool(
            "file_create", {"path": "src/Cart.ts", "template": "typescript-class"}
        )
        assert not created.isError, text_of(created)
        assert created.structuredContent["directoriesCreated"] == ["src"]
        assert (workspace / "src/Cart.ts").read_text().startswith("export class Cart {")
        listed = await session.call_tool("history", {})
        tools = [e["tool"] for e in listed.structuredContent["entries"]]
        assert tools == ["file_create", "manage_files"]
        undone = await session.call_tool("undo", {"last": 2})
        assert not undone.isError, text_of(undone)
        assert len(undone.structuredContent["reverted"]) == 2
    assert (workspace / "old.ts").read_text() == "export const a = 1;\n"
    assert not (workspace / "lib").exists() and not (workspace / "src").exists()
    assert (workspace_state(state_home) / "history.db").is_file()
    assert not (workspace / ".filekit" / "history.db").exists()
