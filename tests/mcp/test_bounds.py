"""Issue 23, sizes and special files over MCP: the attacks of crates/cli/tests/bounds.rs
through one long-running `filekit serve` (stdio), as an MCP client drives it. A sparse 100 GB
file (no disk: a hole of NUL bytes after its first lines) is edited (binary, said as soon as
its stream meets the hole), read five lines at a time and written over; files are swapped for
FIFOs while Grep and replace_in_files walk them. No call hangs (each has a deadline), the
server keeps answering, and its peak resident memory (VmHWM) stays under 500 MB."""

import os
import threading

import anyio
import pytest

from conftest import stdio_session

pytestmark = pytest.mark.anyio

MAX_HWM_KIB = 500 * 1024
HUNDRED_GB = 100 << 30
# The bound of a file held whole, as the server is started with it (--max-file-size).
MAX_FILE_SIZE = 2 << 20
CALL_TIMEOUT = 120


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def server_pid(root):
    """The `filekit serve` this test process started for `root` (stdio: our child)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == me and b"serve" in args and str(root).encode() in args:
            return int(entry)
    raise AssertionError("the filekit serve process was not found")


def hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def sparse(path, head, size):
    path.write_bytes(head)
    os.truncate(path, size)


async def call(session, tool, args):
    with anyio.fail_after(CALL_TIMEOUT):
        return await session.call_tool(tool, args)


async def test_a_sparse_100_gb_file_costs_the_server_nothing(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    head = "".join(f"line {i} of the head\n" for i in range(1, 1001))
    sparse(root / "big.txt", head.encode(), HUNDRED_GB)
    async with stdio_session(root, "--tools", "all", "--max-file-size", "2M") as s:
        pid = server_pid(root)
        for tool, args, why in [
            ("Edit", {"file_path": "big.txt", "old_string": "line 1 of", "new_string": "x"}, "binary"),
            ("edit_files", {"files": [{"path": "big.txt", "edits": [{"str_replace": {"old": "line 1 of", "new": "x"}}]}]}, "binary"),
            ("Write", {"file_path": "big.txt", "content": "small\n"}, "larger than"),
        ]:
            r = await call(s, tool, args)
            assert r.isError, text_of(r)
            assert why in text_of(r), text_of(r)
        r = await call(s, "Read", {"file_path": "big.txt", "offset": 1, "limit": 5})
        assert not r.isError, text_of(r)
        # Claude Code's Read answers in text alone: the lines, that more follow, and why there
        # is no version.
        said = text_of(r)
        assert said.startswith("     1\tline 1 of the head\n"), said
        assert "     5\tline 5 of the head\n... (more lines" in said and "line 6 of" not in said
        assert f"(no content_hash: the file is {HUNDRED_GB} bytes" in said, said
        r = await call(s, "read_files", {"files": [{"path": "big.txt", "start_line": 1, "end_line": 5}]})
        assert not r.isError, text_of(r)
        assert "no content_hash" in text_of(r)
        # A write at the bound works; one byte more is refused.
        r = await call(s, "Write", {"file_path": "at.txt", "content": "x" * MAX_FILE_SIZE})
        assert not r.isError, text_of(r)[:500]
        r = await call(s, "Write", {"file_path": "over.txt", "content": "x" * (MAX_FILE_SIZE + 1)})
        assert r.isError and "larger than" in text_of(r), text_of(r)[:500]
        peak = hwm_kib(pid)
    print(f"filekit serve peak resident memory: {peak // 1024} MiB")
    assert peak < MAX_HWM_KIB, f"filekit serve peaked at {peak} KiB"
    assert os.path.getsize(root / "big.txt") == HUNDRED_GB
    assert not (root / "over.txt").exists()
    assert os.path.getsize(root / "at.txt") == MAX_FILE_SIZE


def swap_for_fifos(root, names, stop):
    """Renames a FIFO over each file and a regular file back, until `stop`."""
    n = 0
    while not stop.is_set():
        for name in names:
            fifo = root / f".{name}.{n}.fifo"
            file = root / f".{name}.{n}.file"
            os.mkfifo(fifo)
            file.write_text("needle old\n")
            os.replace(fifo, root / name)
            os.replace(file, root / name)
        n += 1


async def test_the_server_keeps_answering_while_files_turn_into_fifos(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    names = [f"f{i:02}.txt" for i in range(40)]
    for name in names:
        (root / name).write_text("needle old\n")
    (root / "plain.txt").write_text("still here\n")
    stop = threading.Event()
    swapper = threading.Thread(target=swap_for_fifos, args=(root, names, stop))
    async with stdio_session(root, "--tools", "all") as s:
        pid = server_pid(root)
        swapper.start()
        try:
            for k in range(20):
                r = await call(s, "Grep", {"pattern": "needle", "glob": "f*.txt"})
                assert not r.isError or "no files" in text_of(r), text_of(r)
                r = await call(s, "replace_in_files",
                               {"expression": "s/old/new/", "files": "f*.txt", "dry_run": k % 2 == 0})
                assert text_of(r), "an answer"
        finally:
            stop.set()
            swapper.join()
        # The server was never stuck: a plain read still answers at once.
        r = await call(s, "Read", {"file_path": "plain.txt"})
        assert not r.isError and "still here" in text_of(r), text_of(r)
        peak = hwm_kib(pid)
    assert peak < MAX_HWM_KIB, f"filekit serve peaked at {peak} KiB"
