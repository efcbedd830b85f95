"""Every tool schema of every table, as `filekit serve --tools <table>` lists it, compiles under
ajv in strict mode (draft 2020-12: `ajv/dist/2020`, strict: true, nothing logged), and the
structuredContent of a sample reply of each tool (tests/mcp/schema_samples.py: calls that
work, fail and are rejected) validates against the tool's outputSchema. The tables whose real
tools answer in text alone (TEXT_REPLIES) list no outputSchema and send no structuredContent:
their typed replies, as `filekit call --lines` prints them (one process for a table's samples,
so that a search session serves the next call), validate against the output schema of their
type (`filekit tools --json`). Node and ajv come from .test-deps/mcp-node
(scripts/setup-test-deps)."""

import json
import os
import pathlib
import subprocess

import pytest

from conftest import TABLES, TEXT_REPLIES, filekit_bin, stdio_session, table_tools
from schema_samples import SAMPLES, populate

pytestmark = pytest.mark.anyio

REPO = pathlib.Path(__file__).resolve().parents[2]
NODE_DEPS = REPO / ".test-deps" / "mcp-node" / "node_modules"
NODE = NODE_DEPS / ".bin" / "node"


def node_deps():
    if not NODE.exists():
        pytest.fail(f"{NODE} is missing: run scripts/setup-test-deps (it installs Node 22, ajv, "
                    "the MCP conformance suite and MCP Inspector into .test-deps/mcp-node)")
    return NODE_DEPS


def ajv(schemas, instances):
    """The problems ajv (strict) finds: schemas that do not compile or make it warn, instances
    that do not validate."""
    deps = node_deps()
    run = subprocess.run(
        [str(NODE), str(REPO / "tests" / "mcp" / "node" / "ajv_check.mjs")],
        input=json.dumps({"schemas": schemas, "instances": instances}).encode(),
        capture_output=True, timeout=120, env={**os.environ, "NODE_DEPS": str(deps)})
    assert run.returncode == 0, run.stderr.decode()
    return json.loads(run.stdout)["errors"]


@pytest.mark.parametrize("table", TABLES)
async def test_every_schema_compiles_under_ajv_strict_and_every_reply_fits(table, tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    async with stdio_session(root, "--tools", table, "--holder", "agent") as session:
        tools = (await session.list_tools()).tools
        schemas = []
        text_alone = table in TEXT_REPLIES
        if text_alone:
            assert not [t.name for t in tools if t.outputSchema], table
            typed = {t["mcp_name"]: t["output_schema"] for t in table_tools(table)}
        for tool in tools:
            schemas.append({"label": f"{tool.name} inputSchema", "schema": tool.inputSchema})
            output = typed[tool.name] if text_alone else tool.outputSchema
            schemas.append({"label": f"{tool.name} outputSchema", "schema": output})
        by_name = {t.name: typed[t.name] if text_alone else t.outputSchema for t in tools}
        # Every tool has sample calls, and at least one that works.
        sampled = {name for name, _ in SAMPLES[table]}
        assert sampled == set(by_name), (
            f"add sample calls of {sorted(set(by_name) - sampled)} to tests/mcp/schema_samples.py")
        calls = TypedCalls(root, table) if text_alone else None
        instances = []
        worked = set()
        session_id = None  # "$SESSION" in a sample: the session the last search started
        for i, (name, args) in enumerate(SAMPLES[table]):
            args = {k: session_id if v == "$SESSION" else v for k, v in args.items()}
            if text_alone:
                is_error, reply = calls.reply(name, args)
            else:
                result = await session.call_tool(name, args)
                assert result.structuredContent is not None, name
                is_error, reply = result.isError, result.structuredContent
            if isinstance(reply, dict) and reply.get("sessionId"):
                session_id = reply["sessionId"]
            if not is_error:
                worked.add(name)
            instances.append({"label": f"{name} sample {i} {json.dumps(args)[:120]}",
                              "schema": by_name[name], "data": reply})
    if calls:
        calls.close()
    assert worked == set(by_name), f"no sample call of {sorted(set(by_name) - worked)} works"
    errors = ajv(schemas, instances)
    assert not errors, "\n".join(errors)


class TypedCalls:
    """Typed replies as `filekit call --lines` prints them, a line per call, from one process."""

    def __init__(self, root, table):
        self.process = subprocess.Popen(
            [filekit_bin(), "call", "--lines", "--root", str(root), "--tools", table],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=root,
            env={"PATH": os.environ.get("PATH", ""),
                 "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]})

    def reply(self, tool, args):
        """Whether a call failed, and its typed reply in the object its output schema
        describes (an array reply, as `{"results": [...]}`)."""
        call = json.dumps({"tool_name": tool, "tool_args": args})
        self.process.stdin.write(call.encode() + b"\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"filekit call --lines ended before answering {call}"
        answer = json.loads(line)
        assert answer["status"] in (0, 1, 2), answer
        reply = answer["reply"]
        return answer["status"] != 0, reply if isinstance(reply, dict) else {"results": reply}

    def close(self):
        self.process.stdin.close()
        self.process.stdout.close()
        self.process.wait(timeout=60)


def test_ajv_check_finds_what_it_must():
    """The checker itself: a schema ajv strict refuses (a `required` property its subschema does
    not define, as fs_write's schema once had), an unknown keyword, and a reply that does not fit
    are each reported."""
    bad = {"type": "object", "properties": {"command": {"type": "string"}},
           "allOf": [{"if": {"properties": {"command": {"const": "x"}}}, "then": {"required": ["file_pattern"]}}]}
    typo = {"type": "object", "properies": {}}
    fits = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    errors = ajv([{"label": "bad", "schema": bad}, {"label": "typo", "schema": typo},
                  {"label": "fine", "schema": fits}],
                 [{"label": "reply", "schema": fits, "data": {"n": "three"}},
                  {"label": "good reply", "schema": fits, "data": {"n": 3}}])
    assert len(errors) == 3, errors
    assert errors[0].startswith("bad: ") and "strictRequired" in errors[0]
    assert errors[1].startswith("typo: ") and "properies" in errors[1]
    assert errors[2].startswith("reply: ") and "/n must be integer" in errors[2]


def test_mcp_inspector_strict_reports_nothing(tmp_path, state_home):
    """MCP Inspector's CLI (--strict: every tool-schema portability problem, warnings included,
    on stderr; exit 6 on an error) over every tool of every table, as `filekit serve --tools
    all` lists them over stdio, and, for the names tables define differently (which `all`
    leaves out, saying so on stderr), as each of those tables lists them."""
    deps = node_deps()
    root = tmp_path / "ws"
    root.mkdir()
    env = {"PATH": f"{deps / '.bin'}:{os.environ.get('PATH', '')}", "HOME": str(tmp_path),
           "XDG_STATE_HOME": str(state_home), "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")}
    expected = json.loads(subprocess.run(
        [os.environ["FILEKIT_BIN"], "tools", "--json"], capture_output=True, check=True).stdout)
    shapes = {}
    for t in expected:
        shapes.setdefault(t["mcp_name"], set()).add(json.dumps(t["input_schema"], sort_keys=True))
    clashing = {name for name, s in shapes.items() if len(s) > 1}
    tables = ["all"] + sorted({t["dialect"] for t in expected if t["mcp_name"] in clashing})
    listed = set()
    for table in tables:
        run = subprocess.run(
            [str(deps / ".bin" / "inspector"), "--cli", "--strict", "--method", "tools/list",
             os.environ["FILEKIT_BIN"], "serve", "--root", str(root), "--tools", table],
            capture_output=True, timeout=120, env=env, cwd=tmp_path)
        said = [line for line in run.stderr.decode().splitlines()
                if line.strip() and "--tools all " not in line]
        assert run.returncode == 0 and not said, run.stderr.decode()
        listed |= {t["name"] for t in json.loads(run.stdout)["tools"]}
    assert listed == {t["mcp_name"] for t in expected}
