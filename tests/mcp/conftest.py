"""Fixtures for the MCP end-to-end suite: start `filekit serve` as a subprocess, the way MCP
clients run it, and drive it with the official Python MCP SDK.

The binary comes from FILEKIT_BIN (crates/cli/tests/mcp_clients.rs sets it to the binary
cargo just built)."""

import contextlib
import json
import os
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TABLES = ["amazonq", "file", "claude", "desktop-commander"]


def filekit_bin() -> str:
    path = os.environ.get("FILEKIT_BIN")
    if not path:
        pytest.exit("FILEKIT_BIN is not set: run this suite through `cargo test --workspace`", 2)
    return path


def table_tools(dialect=None):
    """The tool specs `filekit tools --json` prints: what the server must list."""
    args = [filekit_bin(), "tools", "--json"]
    if dialect:
        args += ["--dialect", dialect]
    return json.loads(subprocess.run(args, check=True, capture_output=True).stdout)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


@contextlib.asynccontextmanager
async def stdio_session(root, *extra):
    params = StdioServerParameters(
        command=filekit_bin(),
        args=["serve", "--root", str(root), *extra],
        env={"PATH": os.environ.get("PATH", "")},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            session.init_result = init
            yield session


TRANSPORTS = {"stdio": stdio_session}


@pytest.fixture(params=sorted(TRANSPORTS))
def connect(request, workspace):
    """connect(*serve_args) -> async context manager giving an initialized ClientSession
    over each transport."""
    opener = TRANSPORTS[request.param]
    return lambda *extra: opener(workspace, *extra)
