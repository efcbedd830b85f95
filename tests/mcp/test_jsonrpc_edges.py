"""JSON-RPC at its edges over stdio (issue 24 item 6), as raw lines so that no client library
smooths anything over: every request gets an answer that says what was wrong, with its id
when one could be read, and the server keeps serving."""

import json
import subprocess

import pytest

from test_bad_traffic import RawServer


@pytest.fixture
def raw(workspace):
    server = RawServer(workspace, "--tools", "claude,filekit")
    server.initialize()
    yield server
    if server.proc.poll() is None:
        server.close()


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(field)


def read_message(server):
    line = server.proc.stdout.readline()
    assert line, f"server closed stdout; stderr: {server.proc.stderr.read().decode()}"
    return json.loads(line)


def test_a_malformed_line_gets_a_parse_error(raw, workspace):
    (workspace / "a.txt").write_text("one\n")
    for line in [b"{this is not json", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\xff\xfe"]:
        raw.send_line(line)
        reply = read_message(raw)
        assert reply["id"] is None, reply
        assert reply["error"]["code"] == -32700, reply
        assert "not JSON" in reply["error"]["message"]
    # Well-formed JSON that is no message: Invalid Request.
    raw.send_line(b"[1, 2, 3]")
    assert read_message(raw)["error"]["code"] == -32600
    raw.send_line(b'{"jsonrpc": "2.0", "id": 3}')
    reply = read_message(raw)
    assert reply["error"]["code"] == -32600 and reply["id"] == 3
    assert raw.call(8, "Read", {"file_path": "a.txt"})["result"]["content"][0]["text"] == "     1\tone\n"


@pytest.mark.parametrize("params, needle", [
    ({"name": "Read", "arguments": [1, 2]}, "`arguments` must be an object"),
    ({"name": "Read", "arguments": "a.txt"}, "`arguments` must be an object"),
    ({"name": "Read", "arguments": 3}, "`arguments` must be an object"),
    ({"arguments": {"file_path": "a.txt"}}, "`name` (the tool to call) is missing"),
    ({"name": 7, "arguments": {}}, "`name` must be a string"),
    ("Read", "params must be an object"),
])
def test_tools_call_with_bad_params_gets_invalid_params(raw, params, needle):
    raw.send({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params})
    reply = raw.reply_to(11)
    assert reply["error"]["code"] == -32602, reply
    assert needle in reply["error"]["message"], reply
    raw.send({"jsonrpc": "2.0", "id": 12, "method": "tools/list", "params": 5})
    reply = raw.reply_to(12)
    assert reply["error"]["code"] == -32602, reply


def test_a_message_over_the_limit_is_answered_with_the_limit(raw, workspace):
    # Past the old 16 MiB limit: the message is read and reaches the tool, which answers it
    # (a file that large is over the bound of a file written whole, 32 MiB by default: a tool
    # error, not a JSON-RPC one).
    content = "y" * (40 * 1024 * 1024)
    reply = raw.call(20, "Write", {"file_path": "twenty.txt", "content": content})
    assert "error" not in reply, str(reply)[:500]
    assert reply["result"]["isError"] is True
    assert "is 41943040 bytes, larger than the 33554432 bytes" in reply["result"]["content"][0]["text"]
    (workspace / "twenty.txt").write_text("small\n")
    # Past the limit: answered, with the request's id (read as the line streamed past).
    huge = "z" * (65 * 1024 * 1024)
    raw.send({"jsonrpc": "2.0", "method": "tools/call", "params": {
        "name": "Write", "arguments": {"file_path": "huge.txt", "content": huge}}, "id": 21})
    reply = raw.reply_to(21)
    assert reply["error"]["code"] == -32600, str(reply)[:500]
    assert "over the limit of 67108864 bytes" in reply["error"]["message"]
    limit = reply["error"]["data"]["details"]["limit"]
    assert limit["kind"] == "request_size" and limit["max"] == 67108864
    assert limit["found"] > limit["max"]
    assert not (workspace / "huge.txt").exists()
    # Still serving, and the line was never held whole.
    assert raw.call(22, "Read", {"file_path": "twenty.txt", "limit": 1})["result"].get("isError") is not True
    peak = status_kib(raw.proc.pid, "VmHWM")
    assert peak < 500 * 1024, f"peak RSS {peak} KiB"


def test_no_progress_after_a_cancel(raw, workspace):
    for i in range(5_000):
        (workspace / f"f{i}.txt").write_text(f"value {i}\n")
    raw.send({"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {
        "name": "replace_in_files", "_meta": {"progressToken": "p30"},
        "arguments": {"expression": "s/value/worth/", "files": "**/*.txt", "dry_run": True}}})
    # Cancel once the call is well under way (its progress comes faster than it goes out).
    before = 0
    while before < 200:
        m = read_message(raw)
        assert m.get("id") != 30, "the call ended before it could be cancelled"
        before += m.get("method") == "notifications/progress"
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 30, "reason": "test"}})
    # The server reads the cancel before the ping after it. A notification it was handing out
    # at that moment may still follow the ping's answer; after the next ping's answer, none of
    # the cancelled call may come.
    after = []
    for ping in (31, 32, 33, 34, 35):
        raw.send({"jsonrpc": "2.0", "id": ping, "method": "ping"})
        while True:
            m = read_message(raw)
            assert m.get("id") != 30, "a cancelled call is not answered"
            if m.get("id") == ping:
                break
            if m.get("method") == "notifications/progress":
                if ping in (31, 32):
                    before += 1
                else:
                    after.append(m)
    assert after == [], f"{len(after)} progress notifications after the cancel ({before} before)"


def test_a_request_before_initialize_gets_a_clear_error(workspace):
    server = RawServer(workspace, "--tools", "claude")
    try:
        # A notification before initialize is dropped; the server keeps going.
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        reply = server.reply_to(1)
        assert reply["error"]["code"] == -32600, reply
        assert "before `initialize`" in reply["error"]["message"]
        assert "_meta" not in reply["error"]["message"]
        server.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert server.reply_to(2)["result"] == {}
        server.initialize()
        server.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert "Read" in json.dumps(server.reply_to(3)["result"])
    finally:
        assert server.close() == 0
