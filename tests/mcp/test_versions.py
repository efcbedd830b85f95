"""Versions over MCP: edits made on an old version are merged (or refused with CONFLICT),
reads since a version return only the diff, and leases taken by one server are respected by
another. Checked against the files on disk."""

import pytest

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


NUMBERED = "".join(f"line {i}\n" for i in range(1, 21))


async def read_hash(session, path):
    r = await session.call_tool("read_files", {"files": [{"path": path}]})
    assert not r.isError, text_of(r)
    return r.structuredContent["files"][0]["content_hash"]


async def test_a_stale_edit_is_merged_and_an_overlapping_one_conflicts(connect, workspace):
    (workspace / "a.txt").write_text(NUMBERED)
    async with connect() as session:
        v1 = await read_hash(session, "a.txt")
        # Another agent's change: a header at the top and line 15.
        other = await session.call_tool("edit_files", {"files": [{"path": "a.txt", "edits": [
            {"insert": {"after": 0, "text": "header\n"}},
            {"replace_lines": {"start": 15, "end": 15, "new": "theirs 15"}}]}]})
        assert not other.isError, text_of(other)
        ours = await session.call_tool("edit_files", {"files": [{"path": "a.txt", "base_hash": v1, "edits": [
            {"replace_lines": {"start": 5, "end": 5, "new": "ours 5"}},
            {"str_replace": {"old": "line 10\n", "new": "ours 10\n"}}]}]})
        assert not ours.isError, text_of(ours)
        f = ours.structuredContent["files"][0]
        assert f["merged"] is True and f["merged_from"] == v1
        assert "-line 5\n+ours 5\n" in f["diff"]
        assert "merged" in text_of(ours)
        conflict = await session.call_tool("edit_files", {"files": [{"path": "a.txt", "base_hash": v1, "edits": [
            {"replace_lines": {"start": 14, "end": 15, "new": "ours 14\nours 15"}}]}]})
        assert conflict.isError
        err = conflict.structuredContent["files"][0]
        assert err["error_code"] == "CONFLICT"
        c = err["details"]["conflicts"][0]
        assert c["current"] == "theirs 15\n" and c["yours"] == "ours 14\nours 15\n"
        assert "lines 14-15" in err["error"]
    expected = "header\n" + NUMBERED.replace("line 5\n", "ours 5\n").replace(
        "line 10\n", "ours 10\n").replace("line 15\n", "theirs 15\n")
    assert (workspace / "a.txt").read_text() == expected


async def test_reads_since_a_version(connect, workspace):
    (workspace / "a.txt").write_text(NUMBERED)
    async with connect() as session:
        v1 = await read_hash(session, "a.txt")
        same = await session.call_tool("read_files", {"files": [{"path": "a.txt", "since_hash": v1[:8]}]})
        entry = same.structuredContent["files"][0]
        assert entry["unchanged"] is True and "content" not in entry
        assert "unchanged since" in text_of(same)
        await session.call_tool("edit_files", {"files": [{"path": "a.txt", "edits": [
            {"str_replace": {"old": "line 12\n", "new": "twelve\n"}}]}]})
        changed = await session.call_tool("read_files", {"files": [{"path": "a.txt", "since_hash": v1}]})
        entry = changed.structuredContent["files"][0]
        assert "-line 12\n+twelve\n" in entry["diff"] and "content" not in entry
        assert "line 3\n" not in text_of(changed)
        unknown = await session.call_tool("read_files", {"files": [{"path": "a.txt", "since_hash": "0123456789abcdef"}]})
        entry = unknown.structuredContent["files"][0]
        assert entry["since_unknown"] is True and "twelve\n" in entry["content"]


async def test_a_lease_of_one_server_is_respected_by_another(connect, workspace):
    (workspace / "a.txt").write_text(NUMBERED)
    async with connect() as alice, connect() as bob:
        lock = await alice.call_tool("lock", {"paths": ["a.txt"], "ttl_seconds": 60})
        assert not lock.isError, text_of(lock)
        holder = lock.structuredContent["holder"]
        edit = {"files": [{"path": "a.txt", "edits": [{"replace_lines": {"start": 1, "end": 1, "new": "bob"}}]}]}
        refused = await bob.call_tool("edit_files", edit)
        assert refused.isError
        err = refused.structuredContent["files"][0]
        assert err["error_code"] == "LOCKED" and holder in err["error"]
        assert (workspace / "a.txt").read_text() == NUMBERED
        not_his = await bob.call_tool("unlock", {"paths": ["a.txt"]})
        assert not_his.isError
        mine = await alice.call_tool("edit_files", {"files": [{"path": "a.txt", "edits": [
            {"replace_lines": {"start": 2, "end": 2, "new": "alice"}}]}]})
        assert not mine.isError, text_of(mine)
        released = await alice.call_tool("unlock", {"paths": ["a.txt"]})
        assert released.structuredContent["leases"][0]["released"] is True
        now = await bob.call_tool("edit_files", edit)
        assert not now.isError, text_of(now)
        bad = await alice.call_tool("lock", {"paths": ["a.txt"], "ttl_seconds": 0})
        assert bad.isError and "1 to 86400 seconds" in text_of(bad)
    assert (workspace / "a.txt").read_text().startswith("bob\nalice\nline 3\n")
