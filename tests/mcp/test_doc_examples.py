"""Every tool-call example printed in the design documents (extracted into doc_examples.json by
scripts/extract-doc-examples) is accepted: its arguments fit the served input schema, and the
server runs the call rather than rejecting its arguments. The example paths
(/path/to/file.txt) lie outside the test workspace, so the calls may fail as operations (not
found, outside the root); what must not happen is a rejection of the arguments."""

import json
import pathlib

import jsonschema
import pytest

from conftest import table_tools

pytestmark = pytest.mark.anyio

EXAMPLES = json.loads((pathlib.Path(__file__).parent / "doc_examples.json").read_text())
REJECTED = "filekit/rejected"

# Examples the served tables knowingly do not accept, with the reason the server gives. Each
# must still be rejected for exactly that reason, so this list cannot go stale silently.
KNOWN_DEVIATIONS = [
    # The amazonq dialect requires content_hash on line-addressed edits (DESIGN.md: line edits
    # are checked against the version read); the document's insert/replace_lines examples omit it.
    ("fs_write", "insert", "content_hash"),
    ("fs_write", "replace_lines", "content_hash"),
]


def deviation(example):
    args = example["arguments"]
    commands = {args.get("command")} | {
        edit.get("command") for fe in args.get("fileEdits", []) for edit in fe.get("edits", [])
    }
    for tool, command, reason in KNOWN_DEVIATIONS:
        if example["tool"] == tool and command in commands:
            return reason
    return None


def test_the_documents_have_examples_for_every_table_with_examples():
    documents = {e["document"][:3] for e in EXAMPLES}
    assert documents == {"000", "001", "003"}
    assert len(EXAMPLES) >= 15


async def test_every_document_example_is_accepted(connect):
    specs = {t["name"]: t for t in table_tools()}
    accepted = 0
    async with connect("--tools", "all") as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        for example in EXAMPLES:
            spec = specs.get(example["tool"])
            if spec is None:
                # A tool with no engine part yet is not served at all (never as a stub).
                mcp_name = example["tool"].replace(":", "_")
                assert mcp_name not in listed and example["tool"] not in listed
                continue
            tool = listed[spec["mcp_name"]]
            result = await session.call_tool(tool.name, example["arguments"])
            rejected = (result.meta or {}).get(REJECTED)
            reason = deviation(example)
            if reason:
                assert rejected and reason in result.content[0].text, (example, result)
                continue
            jsonschema.validate(example["arguments"], tool.inputSchema)
            assert not rejected, (example, result.content[0].text)
            accepted += 1
    assert accepted >= 11


async def test_a_rejected_call_is_marked_rejected(connect):
    async with connect("--tools", "claude") as session:
        rejected = await session.call_tool("Edit", {"file_path": 1})
        failed = await session.call_tool("Read", {"file_path": "missing.txt"})
    assert rejected.isError and rejected.meta[REJECTED] is True
    assert failed.isError and not (failed.meta or {}).get(REJECTED)


async def test_every_tool_description_example_is_accepted(connect):
    """Each tool's description ends with one short example for the model; a model copies it,
    so it must fit the schema and run (here against files that do not exist: an operation
    failure is fine, a rejection of the arguments is not)."""
    import re

    async with connect("--tools", "all") as session:
        tools = (await session.list_tools()).tools
        for tool in tools:
            found = re.findall(r"Example[^:]*:\s*(\{.*)", tool.description)
            assert len(found) == 1, (tool.name, found)
            example = json.loads(found[0])
            jsonschema.validate(example, tool.inputSchema)
            result = await session.call_tool(tool.name, example)
            assert not (result.meta or {}).get(REJECTED), (tool.name, result.content[0].text)
