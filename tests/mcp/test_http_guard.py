"""The streamable HTTP transport's guards (issue 23 item 10): a bearer token by default,
Origin validation, and a cap on live sessions.

Any local process can reach a loopback port, and a web page in the user's browser can send
requests to one: without a token and an Origin check, both could read and write the workspace.
9,000 `initialize` requests used to grow the server from 101 MB to 1.26 GB."""

import subprocess

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import filekit_bin, http_server

pytestmark = pytest.mark.anyio

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


async def test_the_sdk_works_with_the_token_and_fails_without(workspace):
    (workspace / "a.txt").write_text("hello\n")
    with http_server(workspace, "--tools", "claude") as server:
        async with httpx.AsyncClient(trust_env=False, headers=server.auth, timeout=30) as http:
            async with streamable_http_client(server.url, http_client=http) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    read_back = await session.call_tool("Read", {"file_path": "a.txt"})
                    assert not read_back.isError
                    assert "hello" in read_back.content[0].text
        # The same client without the token gets nowhere.
        with pytest.raises(Exception):
            with anyio.fail_after(60):
                async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
                    async with streamable_http_client(server.url, http_client=http) as (read, write, _):
                        async with ClientSession(read, write) as session:
                            await session.initialize()


def test_a_missing_or_wrong_token_gets_401(workspace):
    with http_server(workspace) as server:
        wrong = server.token[:-1] + ("0" if server.token[-1] != "0" else "1")
        with httpx.Client(trust_env=False, timeout=30) as http:
            for auth in [{}, {"Authorization": f"Bearer {wrong}"}, {"Authorization": f"Bearer {server.token}x"},
                         {"Authorization": f"Basic {server.token}"}, {"Authorization": "Bearer"}]:
                refused = http.post(server.url, headers={**ACCEPT, **auth}, json=INIT)
                assert refused.status_code == 401, (auth, refused.status_code, refused.text)
                assert refused.headers["www-authenticate"] == "Bearer"
                assert refused.headers["connection"] == "close"
                body = refused.json()
                assert body["jsonrpc"] == "2.0" and body["id"] is None
                assert "Unauthorized" in body["error"]["message"]
                assert server.token not in refused.text
            # GET and DELETE too.
            assert http.get(server.url, headers={"Accept": "text/event-stream"}).status_code == 401
            assert http.delete(server.url).status_code == 401
            # The scheme is case-insensitive, as HTTP says.
            ok = http.post(server.url, headers={**ACCEPT, "Authorization": f"bearer {server.token}"}, json=INIT)
            assert ok.status_code == 200, ok.text


def test_a_foreign_origin_gets_403(workspace):
    with http_server(workspace) as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        headers = {**ACCEPT, **server.auth}
        with httpx.Client(trust_env=False, timeout=30) as http:
            for origin in ["http://evil.example", "http://localhost:1", f"https://127.0.0.1:{port}",
                           f"http://127.0.0.1.evil.example:{port}", "null"]:
                refused = http.post(server.url, headers={**headers, "Origin": origin}, json=INIT)
                assert refused.status_code == 403, (origin, refused.status_code)
                assert refused.headers["connection"] == "close"
            for origin in [f"http://127.0.0.1:{port}", f"http://localhost:{port}", None]:
                extra = {"Origin": origin} if origin else {}
                ok = http.post(server.url, headers={**headers, **extra}, json=INIT)
                assert ok.status_code == 200, (origin, ok.status_code, ok.text)


def test_no_auth_is_for_loopback_only(workspace):
    with http_server(workspace, auth=False) as server:
        with httpx.Client(trust_env=False, timeout=30) as http:
            assert http.post(server.url, headers=ACCEPT, json=INIT).status_code == 200
    run = subprocess.run([filekit_bin(), "serve", "--root", str(workspace), "--http", "0.0.0.0:0",
                          "--http-no-auth"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    assert run.returncode == 2
    assert "--http-no-auth is only for a loopback address" in run.stderr.decode()


def test_help_states_the_token_origin_and_limits():
    run = subprocess.run([filekit_bin(), "serve", "--help"], capture_output=True, timeout=30, check=True)
    text = run.stdout.decode()
    for needle in ["Authorization: Bearer", "http-token-<port>", "Origin", "At most 100 live sessions",
                   "--http-no-auth", "--trust-workspace"]:
        assert needle in text, needle


def test_nine_thousand_initializes_stay_bounded_and_evict_the_oldest(workspace):
    with http_server(workspace, "--tools", "claude") as server:
        headers = {**ACCEPT, **server.auth}
        with httpx.Client(trust_env=False, timeout=60) as http:
            def initialize():
                r = http.post(server.url, headers=headers, json=INIT)
                assert r.status_code == 200, (r.status_code, r.text)
                return r.headers["mcp-session-id"]

            def tools_list(session):
                return http.post(server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                 headers={**headers, "Mcp-Session-Id": session,
                                          "Mcp-Protocol-Version": "2025-06-18"})

            first = initialize()
            http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                      headers={**headers, "Mcp-Session-Id": first, "Mcp-Protocol-Version": "2025-06-18"})
            assert tools_list(first).status_code == 200
            for _ in range(9_000):
                initialize()
            # The first session was the oldest idle one long ago: it is gone (404, as the
            # specification says for a session the server no longer knows).
            assert tools_list(first).status_code == 404
            # And the server still answers.
            last = initialize()
            http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                      headers={**headers, "Mcp-Session-Id": last, "Mcp-Protocol-Version": "2025-06-18"})
            listed = tools_list(last)
            assert listed.status_code == 200 and "Read" in listed.text
        peak = status_kib(server.proc.pid, "VmHWM")
        print(f"peak RSS after 9,000 initializes: {peak} KiB")
        assert peak < 500 * 1024, f"the server's resident memory peaked at {peak} KiB"
