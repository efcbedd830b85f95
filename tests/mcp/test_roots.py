"""With no --root, the server uses the roots the client offers (MCP roots) and follows their
changes; with --root, the command line wins."""

import anyio
import pytest
from mcp import types

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


@pytest.fixture
def dirs(tmp_path):
    made = {}
    for name in ("cwd", "first", "second"):
        d = tmp_path / name
        d.mkdir()
        (d / "where.txt").write_text(f"{name}\n")
        made[name] = d
    return made


class Roots:
    """A client's roots, changeable during the session."""

    def __init__(self, path):
        self.path = path

    async def __call__(self, context):
        return types.ListRootsResult(roots=[types.Root(uri=self.path.as_uri())])


async def where(session):
    result = await session.call_tool("Read", {"file_path": "where.txt"})
    assert not result.isError, text_of(result)
    return text_of(result).split("\t", 1)[1].strip()


async def test_client_roots_are_used_and_followed(open_session, dirs):
    roots = Roots(dirs["first"])
    async with open_session(None, "--tools", "claude", cwd=dirs["cwd"],
                            list_roots_callback=roots) as session:
        # The first call waits for the roots: it never sees the fallback directory.
        assert await where(session) == "first"
        roots.path = dirs["second"]
        await session.send_roots_list_changed()
        # The change is fetched asynchronously; poll (bounded) until it shows.
        with anyio.fail_after(10):
            while await where(session) != "second":
                await anyio.sleep(0.02)
        outside = await session.call_tool("Read", {"file_path": str(dirs["first"] / "where.txt")})
        assert outside.isError


async def test_command_line_roots_win_over_client_roots(open_session, dirs):
    roots = Roots(dirs["first"])
    async with open_session(dirs["second"], "--tools", "claude", cwd=dirs["cwd"],
                            list_roots_callback=roots) as session:
        assert await where(session) == "second"


async def test_without_client_roots_the_current_directory_is_the_root(open_session, dirs):
    async with open_session(None, "--tools", "claude", cwd=dirs["cwd"]) as session:
        assert await where(session) == "cwd"


async def test_client_roots_are_used_when_the_servers_stderr_is_closed(dirs):
    """A client that closed the server's stderr (its reading end gone): logging the roots it
    fetched must not panic the task that fetches them (each log line of serve ignores a
    closed stderr), or the calls would run in the start folder instead of the client's root."""
    import os

    from conftest import filekit_bin
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    read_end, write_end = os.pipe()
    os.close(read_end)
    closed_stderr = os.fdopen(write_end, "w")
    params = StdioServerParameters(
        command=filekit_bin(),
        args=["serve", "--tools", "claude"],
        env={"PATH": os.environ.get("PATH", ""), "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]},
        cwd=dirs["cwd"],
    )
    try:
        async with stdio_client(params, errlog=closed_stderr) as (read, write):
            async with ClientSession(read, write,
                                     list_roots_callback=Roots(dirs["first"])) as session:
                await session.initialize()
                assert await where(session) == "first"
                # Still serving after more log lines.
                assert await where(session) == "first"
    finally:
        closed_stderr.close()
