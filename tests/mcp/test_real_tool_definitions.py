"""What the real clients of the drop-in tables send their models: Claude Code and Codex CLI (the
releases pinned in scripts/setup-test-deps, in .test-deps/agents) each run once, pointed at a
local fake endpoint that records the request and answers "ok", and the definitions of the tools
that filekit's `claude` and `codex` tables serve are taken from the request. No network, no
login: a dummy key, a fresh home, telemetry off.

The bytes measured must be those crates/mcp/tests/real_tools.json records (the hermetic test
there holds each table to 1.1x of them), so a release that changes its tools' definitions fails
here until the record and the table follow it; and filekit's own listing of the table is held to
the same 1.1x here, from its `tools/list` over MCP, with no output schema (the real tools declare
none).
"""

import http.server
import json
import os
import pathlib
import subprocess
import threading

import pytest

from conftest import stdio_session

pytestmark = pytest.mark.anyio

REPO = pathlib.Path(__file__).resolve().parents[2]
AGENTS = REPO / ".test-deps" / "agents" / "node_modules"
REAL_TOOLS = json.loads((REPO / "crates" / "mcp" / "tests" / "real_tools.json").read_text())
PINNED = json.loads((REPO / ".test-deps" / "agents" / "package.json").read_text()
                    if (REPO / ".test-deps" / "agents" / "package.json").exists() else "{}")


def compact(value):
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


class FakeModel(http.server.BaseHTTPRequestHandler):
    """A model endpoint that records every request body and answers with one text block "ok":
    Anthropic's Messages API (streamed or not) and OpenAI's Responses API (streamed)."""

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.end_headers()

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        self.server.requests.append((self.path, body))
        if self.path.split("?")[0].endswith("/responses"):
            item = {"type": "message", "role": "assistant", "id": "msg_1",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
            usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
                     "output_tokens_details": None, "total_tokens": 2}
            self.stream([
                ("response.created", {"type": "response.created", "response": {"id": "resp_1"}}),
                ("response.output_item.done",
                 {"type": "response.output_item.done", "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed",
                                        "response": {"id": "resp_1", "usage": usage}}),
            ])
            return
        message = {"id": "msg_1", "type": "message", "role": "assistant",
                   "model": body.get("model", "m"), "stop_reason": None, "stop_sequence": None,
                   "usage": {"input_tokens": 1, "output_tokens": 1}}
        if body.get("stream"):
            self.stream([
                ("message_start", {"type": "message_start", "message": {**message, "content": []}}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": "ok"}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                   "delta": {"stop_reason": "end_turn", "stop_sequence": None}}),
                ("message_stop", {"type": "message_stop"}),
            ])
            return
        data = json.dumps({**message, "content": [{"type": "text", "text": "ok"}],
                           "stop_reason": "end_turn"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


@pytest.fixture
def fake_model():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def installed(package):
    """The path of a pinned package of .test-deps/agents, checked to be the pinned release."""
    path = AGENTS / package
    pinned = PINNED.get("dependencies", {}).get(package)
    if not (path / "package.json").exists() or not pinned:
        pytest.fail(f"{path} is missing: run scripts/setup-test-deps (it installs {package} into "
                    ".test-deps/agents)")
    version = json.loads((path / "package.json").read_text())["version"]
    assert version == pinned, f"{package} {version} installed, {pinned} pinned"
    return path


def run_client(argv, env, cwd):
    """Runs one client to its end; what it printed, for the failure message."""
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{argv[:2]} exited {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


def first_tools(server):
    """The tools of the first request the fake model got that carried any."""
    for _, body in server.requests:
        if body.get("tools"):
            return body["tools"]
    raise AssertionError(f"no request carried tools: {[p for p, _ in server.requests]}")


async def filekit_listing(tmp_path, table):
    """filekit's table as `tools/list` serves it: names, descriptions, input schemas; and
    whether any tool declares an output schema."""
    root = tmp_path / "fk"
    root.mkdir()
    async with stdio_session(root, "--tools", table) as session:
        tools = (await session.list_tools()).tools
    lean = [{"name": t.name, "description": t.description, "inputSchema": t.inputSchema}
            for t in tools]
    return lean, [t.name for t in tools if t.outputSchema]


def check(table, theirs, listing):
    """The real tools measured are those recorded, and filekit's listing of the table is at
    most 1.1x of them."""
    record = REAL_TOOLS["tables"][table]
    assert sorted(t["name"] for t in theirs) == sorted(record["tools"])
    real = compact(theirs)
    assert real == record["bytes"], (
        f"{record['source']}: its tools now cost {real} bytes, real_tools.json records "
        f"{record['bytes']}: update the record (and the table, if it grew past 1.1x)")
    lean, with_output = listing
    mine = compact(lean)
    assert mine * 10 <= real * 11, f"{table}: {mine} bytes, its real tools' {real}"
    assert not with_output, f"{table}: {with_output} declare an output schema; the real tools do not"


async def test_claude_codes_tools_cost_what_is_recorded(tmp_path, fake_model):
    package = installed("@anthropic-ai/claude-code")
    node = REPO / ".test-deps" / "mcp-node" / "node_modules" / ".bin" / "node"
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
           "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{fake_model.server_port}",
           "ANTHROPIC_API_KEY": "sk-ant-dummy",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}
    said = run_client([str(node), str(package / "cli.js"), "-p", "hi"], env, work)
    assert said.strip() == "ok", said
    wanted = REAL_TOOLS["tables"]["claude"]["tools"]
    theirs = [{"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}
              for t in first_tools(fake_model) if t["name"] in wanted]
    check("claude", theirs, await filekit_listing(tmp_path, "claude"))


async def test_codexs_apply_patch_costs_what_is_recorded(tmp_path, fake_model):
    installed("@openai/codex")
    codex_home, work = tmp_path / "codex-home", tmp_path / "work"
    codex_home.mkdir()
    work.mkdir()
    # A model provider of its own, at the fake endpoint, keyed by a dummy variable.
    (codex_home / "config.toml").write_text(f"""\
model = "gpt-5.5"
model_provider = "local"

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:{fake_model.server_port}/v1"
wire_api = "responses"
env_key = "FILEKIT_TEST_KEY"
""")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home"),
           "CODEX_HOME": str(codex_home), "FILEKIT_TEST_KEY": "dummy"}
    said = run_client([str(AGENTS / ".bin" / "codex"), "exec", "--skip-git-repo-check", "hi"],
                      env, work)
    assert said.strip().endswith("ok"), said
    [tool] = [t for t in first_tools(fake_model) if t.get("name") == "apply_patch"]
    # A freeform tool: its argument is a grammar, not a schema; MCP has no `type` of tool.
    assert tool["type"] == "custom" and "format" in tool, tool
    theirs = [{k: v for k, v in tool.items() if k != "type"}]
    check("codex", theirs, await filekit_listing(tmp_path, "codex"))
