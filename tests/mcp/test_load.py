"""Load (issue 9): one `filekit serve --http` (127.0.0.1 only) and 8 MCP clients at once,
each making a bounded number of mixed calls on the same workspace: reads, edits of its own
file, edits of a file they all share, searches. No crash, no lost edit (every edit the server
said it made is in the files at the end), and the server's memory stays bounded."""

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import http_server

pytestmark = pytest.mark.anyio

CLIENTS = 8
ROUNDS = 12
# Resident memory the server may reach under this load (it starts around 10-20 MiB).
MAX_RSS_KIB = 512 * 1024
STALE_RETRIES = 100


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def client(url, i, stale_counts, auth):
    async with httpx.AsyncClient(trust_env=False, headers=auth, timeout=httpx.Timeout(60, read=120)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                for k in range(ROUNDS):
                    # Its own file: nobody else touches it, so every edit must succeed.
                    r = await s.call_tool("edit_files", {"files": [{"path": f"client{i}.txt", "edits": [
                        {"str_replace": {"old": f"c{i} slot {k}\n", "new": f"c{i} done {k}\n"}}]}]})
                    assert not r.isError, text_of(r)
                    # The shared file: a concurrent edit makes this one stale; read and retry.
                    for _attempt in range(STALE_RETRIES):
                        r = await s.call_tool("edit_files", {"files": [{"path": "shared.txt", "edits": [
                            {"str_replace": {"old": f"shared {i} {k}\n", "new": f"shared {i} done {k}\n"}}]}]})
                        if not r.isError:
                            break
                        assert "STALE" in text_of(r) or "changed by another process" in text_of(r), text_of(r)
                        stale_counts[i] += 1
                        await s.call_tool("read_files", {"files": [{"path": "shared.txt"}]})
                    else:
                        raise AssertionError(f"client {i}: shared edit {k} stayed stale")
                    r = await s.call_tool("read_files", {"files": [{"path": f"client{i}.txt"}, {"path": "shared.txt"}]})
                    assert not r.isError, text_of(r)
                    assert f"c{i} done {k}" in text_of(r)
                    r = await s.call_tool("Grep", {"pattern": f"c{i} done", "output_mode": "count"})
                    assert not r.isError, text_of(r)
                    r = await s.call_tool("Glob", {"pattern": "**/*.txt"})
                    assert not r.isError and "shared.txt" in text_of(r), text_of(r)


async def test_eight_clients_lose_no_edit(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    for i in range(CLIENTS):
        (root / f"client{i}.txt").write_text("".join(f"c{i} slot {k}\n" for k in range(ROUNDS)))
    (root / "shared.txt").write_text(
        "".join(f"shared {i} {k}\n" for i in range(CLIENTS) for k in range(ROUNDS)))
    stale_counts = [0] * CLIENTS
    peak = 0
    with http_server(root, "--tools", "all") as server:
        url, proc = server.url, server.proc
        assert url.startswith("http://127.0.0.1:")
        done = anyio.Event()

        async def watch_memory():
            nonlocal peak
            while not done.is_set():
                peak = max(peak, rss_kib(proc.pid))
                await anyio.sleep(0.05)

        # A guard against a hang, not a timing assertion.
        with anyio.fail_after(240):
            async with anyio.create_task_group() as tg:
                tg.start_soon(watch_memory)
                async with anyio.create_task_group() as clients:
                    for i in range(CLIENTS):
                        clients.start_soon(client, url, i, stale_counts, server.auth)
                done.set()
        assert proc.poll() is None, "the server died under load"
    for i in range(CLIENTS):
        assert (root / f"client{i}.txt").read_text() == "".join(
            f"c{i} done {k}\n" for k in range(ROUNDS)), f"client {i} lost an edit"
    assert (root / "shared.txt").read_text() == "".join(
        f"shared {i} done {k}\n" for i in range(CLIENTS) for k in range(ROUNDS)), "a shared edit was lost"
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]
    assert 0 < peak < MAX_RSS_KIB, f"server resident memory peaked at {peak} KiB"
    print(f"peak RSS {peak} KiB; stale retries per client {stale_counts}")
