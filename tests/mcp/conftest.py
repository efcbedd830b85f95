"""Fixtures for the MCP end-to-end suite: start `filekit serve` as a subprocess, the way MCP
clients run it, and drive it with the official Python MCP SDK.

The binary comes from FILEKIT_BIN (crates/cli/tests/judged/mcp_clients.rs sets it to the binary
cargo just built)."""

import contextlib
import json
import os
import re
import signal
import subprocess
import tempfile
import time

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

TABLES = ["filekit", "amazonq", "file", "claude", "desktop-commander", "semantic", "codex",
          "mcp-filesystem"]

# The tables whose real tools answer in text alone (filekit_dialects::TEXT_REPLIES): their tools
# list no outputSchema and their replies carry no structuredContent; `filekit call` prints the
# typed reply.
TEXT_REPLIES = ["claude", "codex", "amazonq", "desktop-commander"]


def filekit_bin() -> str:
    path = os.environ.get("FILEKIT_BIN")
    if not path:
        pytest.exit("FILEKIT_BIN is not set: run this suite through `cargo test --workspace --test judged`", 2)
    return path


def table_tools(dialect=None):
    """The tool specs `filekit tools --json` prints: what the server must list."""
    args = [filekit_bin(), "tools", "--json"]
    if dialect:
        args += ["--dialect", dialect]
    return json.loads(subprocess.run(args, check=True, capture_output=True).stdout)


def definition_bytes(tools, outputs=True):
    """What the definitions of `tools` (the SDK's Tool objects) cost a session: their compact
    JSON as `tools/list` carries it, with or without the output schemas."""
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    if not outputs:
        for t in listed:
            t.pop("outputSchema", None)
    return len(json.dumps(listed, separators=(",", ":"), ensure_ascii=False).encode())


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """filekit's state directory (XDG_STATE_HOME) for every server a test starts: a folder of
    the test's own, outside its workspace, never the state of the user running the tests."""
    home = tmp_path / "state"
    home.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def workspace_state(state_home):
    """The one workspace folder filekit made under `state_home`."""
    found = list((state_home / "filekit" / "workspaces").iterdir())
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


def root_args(root):
    """`--root ROOT`, or nothing when root is None (the server then runs in the test's
    workspace directory and follows the client's roots)."""
    return [] if root is None else ["--root", str(root)]


@contextlib.asynccontextmanager
async def stdio_session(root, *extra, cwd=None, **session_options):
    params = StdioServerParameters(
        command=filekit_bin(),
        args=["serve", *root_args(root), *extra],
        env={"PATH": os.environ.get("PATH", ""), "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]},
        cwd=cwd,
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, **session_options) as session:
            init = await session.initialize()
            session.init_result = init
            yield session


class HttpServer:
    """A running `filekit serve --http`: its URL, its bearer token (read from the line it
    prints on stderr, and checked against the file it writes into its state directory), the
    process, and its state directory."""

    def __init__(self, url, token, proc, state_dir):
        self.url = url
        self.token = token
        self.proc = proc
        self.state_dir = state_dir

    @property
    def auth(self):
        """The header every request must carry."""
        return {"Authorization": f"Bearer {self.token}"}


@contextlib.contextmanager
def http_server(root, *extra, cwd=None, auth=True):
    """Starts `filekit serve --http 0` (its state directory is the test's XDG_STATE_HOME, see
    state_home) and yields an HttpServer once it listens; stops it with SIGINT (its graceful
    shutdown) afterwards. With auth=False the server is started with --http-no-auth."""
    with tempfile.TemporaryDirectory() as logdir:
        log_path = os.path.join(logdir, "stderr.log")
        state_dir = os.environ["XDG_STATE_HOME"]
        env = dict(os.environ)
        args = [filekit_bin(), "serve", *root_args(root), "--http", "0", *extra]
        if not auth:
            args.append("--http-no-auth")
        # The server appends to its own handle; we read through another, so our reads never
        # move the offset it writes at.
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=log, cwd=cwd, env=env)
        try:
            deadline = time.monotonic() + 30
            url = None
            while url is None:
                with open(log_path, "rb") as reader:
                    printed = reader.read()
                # Only a whole line: a partly written one could name a wrong port.
                found = re.search(rb"listening on (http://\S+)\n", printed)
                if found:
                    url = found.group(1).decode()
                elif proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"filekit serve --http did not start: {printed!r}")
                else:
                    time.sleep(0.01)
            token = None
            if auth:
                said = re.search(rb"bearer token ([0-9a-f]{64}) ", printed)
                assert said, printed
                token = said.group(1).decode()
                port = url.rsplit(":", 1)[1].split("/")[0]
                token_file = os.path.join(state_dir, "filekit", f"http-token-{port}")
                with open(token_file) as f:
                    assert f.read().strip() == token
                assert os.stat(token_file).st_mode & 0o777 == 0o600
                assert os.stat(os.path.dirname(token_file)).st_mode & 0o777 == 0o700
            else:
                assert b"no bearer token (--http-no-auth)" in printed
            yield HttpServer(url, token, proc, state_dir)
            if auth:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=10)
                # A graceful stop takes the token away with the server.
                assert not os.path.exists(token_file), token_file
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise
            # Over HTTP, stdout is unused: nothing may be printed there.
            assert proc.stdout.read() == b""
            proc.stdout.close()
            # Ended by SIGINT with nothing in flight, the server ends by the signal's own
            # action, as a shell expects of an interrupted program (its token removed first).
            assert code in (0, -signal.SIGINT), f"filekit serve --http exited with {code}"


@contextlib.asynccontextmanager
async def http_session(root, *extra, cwd=None, **session_options):
    with http_server(root, *extra, cwd=cwd) as server:
        # trust_env=False: never route loopback traffic through a proxy from the environment.
        async with httpx.AsyncClient(trust_env=False, headers=server.auth,
                                     timeout=httpx.Timeout(30, read=300)) as client:
            async with streamable_http_client(server.url, http_client=client) as (read, write, _):
                async with ClientSession(read, write, **session_options) as session:
                    session.init_result = await session.initialize()
                    yield session


TRANSPORTS = {"stdio": stdio_session, "http": http_session}


@pytest.fixture(params=sorted(TRANSPORTS))
def connect(request, workspace):
    """connect(*serve_args) -> async context manager giving an initialized ClientSession
    over each transport."""
    opener = TRANSPORTS[request.param]
    return lambda *extra: opener(workspace, *extra)


@pytest.fixture
def connect_stdio(workspace):
    """connect(*serve_args) over stdio alone: for the suites that judge what a refactor does
    to code (language servers, whole programs run before and after), which the transport does
    not change; the transports themselves are judged by every other suite, over both."""
    return lambda *extra: stdio_session(workspace, *extra)


@pytest.fixture(params=sorted(TRANSPORTS))
def open_session(request):
    """open_session(root_or_None, *serve_args, cwd=..., **ClientSession options)."""
    return TRANSPORTS[request.param]
