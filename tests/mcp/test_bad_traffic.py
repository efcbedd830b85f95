"""The server stays up under bad traffic, spoken as raw JSON-RPC lines over stdio so that the
client library cannot smooth anything over; and stdout carries only protocol messages."""

import json
import subprocess

import pytest

from conftest import filekit_bin


class RawServer:
    def __init__(self, root, *extra):
        self.proc = subprocess.Popen(
            [filekit_bin(), "serve", "--root", str(root), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send_line(self, line: bytes):
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def send(self, message):
        self.send_line(json.dumps(message).encode())

    def reply_to(self, request_id):
        """Reads stdout until the reply to `request_id`; every line must be JSON-RPC."""
        while True:
            line = self.proc.stdout.readline()
            assert line, f"server closed stdout; stderr: {self.proc.stderr.read().decode()}"
            message = json.loads(line)
            assert message.get("jsonrpc") == "2.0", message
            if message.get("id") == request_id:
                return message

    def initialize(self):
        self.send({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}},
        })
        reply = self.reply_to(0)
        assert reply["result"]["serverInfo"]["name"] == "filekit"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id, name, arguments):
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
        return self.reply_to(request_id)

    def close(self):
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


@pytest.fixture
def raw(workspace):
    server = RawServer(workspace, "--tools", "claude,filekit")
    server.initialize()
    yield server
    if server.proc.poll() is None:
        server.close()


def test_malformed_json_and_unknown_methods_do_not_stop_the_server(raw, workspace):
    (workspace / "a.txt").write_text("one\n")
    raw.send_line(b"{this is not json")
    raw.send_line(b"[1, 2, 3]")
    raw.send_line(b"")
    raw.send({"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}})
    assert raw.reply_to(7)["error"]["code"] == -32601
    reply = raw.call(8, "Read", {"file_path": "a.txt"})
    assert reply["result"]["content"][0]["text"] == "     1\tone\n"


def test_wrong_argument_types_are_error_results(raw):
    reply = raw.call(3, "Edit", {"file_path": 42, "old_string": ["x"], "new_string": None})
    assert reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"]
    reply = raw.call(4, "Read", "not an object")
    assert "error" in reply or reply["result"]["isError"] is True
    assert raw.call(5, "Read", {"file_path": "missing.txt"})["result"]["isError"] is True


def test_a_message_of_many_megabytes_is_handled(raw, workspace):
    # 40 MiB of content: more than a file filekit holds whole (32 MiB by default), so the
    # message is read and answered with that refusal, and the server goes on.
    big = "x" * (40 * 1024 * 1024) + "\n"
    reply = raw.call(9, "Write", {"file_path": "big.txt", "content": big})
    assert reply["result"].get("isError") is True
    assert "larger than" in reply["result"]["content"][0]["text"]
    assert not (workspace / "big.txt").exists()
    at_bound = "x" * (2 * 1024 * 1024 - 1) + "\n"
    reply = raw.call(10, "Write", {"file_path": "big.txt", "content": at_bound})
    assert reply["result"].get("isError") is not True, reply["result"]["content"][0]["text"]
    assert (workspace / "big.txt").stat().st_size == len(at_bound)
    reply = raw.call(11, "Read", {"file_path": "big.txt", "limit": 1})
    assert reply["result"].get("isError") is not True


def test_closing_stdin_ends_the_server_cleanly(raw):
    assert raw.close() == 0


@pytest.mark.parametrize("table, reason", [("bogus", "unknown table"), ("semantc", "unknown table 'semantc'")])
def test_unknown_tables_fail_at_start_with_a_clear_message(workspace, table, reason):
    run = subprocess.run([filekit_bin(), "serve", "--root", str(workspace), "--tools", table],
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    assert run.returncode == 2
    assert reason in run.stderr.decode()
    assert run.stdout == b""


def test_http_survives_malformed_posts(workspace):
    from conftest import http_server
    import httpx

    (workspace / "a.txt").write_text("one\n")
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with http_server(workspace, "--tools", "claude") as server:
        url = server.url
        headers.update(server.auth)
        with httpx.Client(trust_env=False, timeout=30) as http:
            bad = http.post(url, content=b"{not json", headers=headers)
            assert 400 <= bad.status_code < 500
            wrong = http.post(url, content=b"[1,2,3]", headers=headers)
            assert 400 <= wrong.status_code < 500
            init = http.post(url, headers=headers, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "raw", "version": "0"}},
            })
            assert init.status_code == 200
            assert "filekit" in init.text


def test_a_cancelled_write_leaves_the_file_whole_and_the_server_serving(raw, workspace):
    old = "old\n" * 1000
    (workspace / "big.txt").write_text(old)
    new = "new line of text\n" * 400_000
    raw.send({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
              "params": {"name": "Write", "arguments": {"file_path": "big.txt", "content": new}}})
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 20, "reason": "test"}})
    # The server keeps serving; whatever point the write had reached, the file is either the
    # old content or the new one, never a mix.
    reply = raw.call(21, "Read", {"file_path": "big.txt", "limit": 1})
    assert reply["result"].get("isError") is not True
    on_disk = (workspace / "big.txt").read_text()
    assert on_disk in (old, new)


def test_a_cancelled_batch_writes_all_its_files_or_none(raw, workspace):
    files = 400
    for i in range(files):
        (workspace / f"c{i}.txt").write_text(f"before {i}\n")
    raw.send({"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {
        "name": "MultiEdit", "arguments": {"file_path": "c0.txt", "edits": [
            {"old_string": "before", "new_string": "after"}]}}})
    assert raw.reply_to(30)["result"].get("isError") is not True
    raw.send({"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {
        "name": "edit_files", "arguments": {"files": [
            {"path": f"c{i}.txt", "edits": [{"str_replace": {"old": "before", "new": "after"}}]}
            for i in range(1, files)]}}})
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 31, "reason": "test"}})
    # Still serving; then the batch is either whole or absent (the engine stops only before
    # writing starts, and a write that started finishes), never some files of it.
    reply = raw.call(32, "Read", {"file_path": "c0.txt"})
    assert reply["result"].get("isError") is not True
    raw.close()
    changed = sum((workspace / f"c{i}.txt").read_text().startswith("after") for i in range(1, files))
    assert changed in (0, files - 1), changed


def test_http_refuses_foreign_host_headers(workspace):
    """DNS rebinding: a web page cannot reach the loopback server under another host name."""
    from conftest import http_server
    import httpx

    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Host": "attacker.example"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    with http_server(workspace, "--tools", "claude") as server:
        url = server.url
        headers.update(server.auth)
        with httpx.Client(trust_env=False, timeout=30) as http:
            refused = http.post(url, headers=headers, json=body)
            assert refused.status_code == 403, refused.status_code
            del headers["Host"]
            assert http.post(url, headers=headers, json=body).status_code == 200
