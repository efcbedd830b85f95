#!/usr/bin/env python3
"""The slow cases of a hostile workspace, each timed against the 2 s every call must end in
(done, or cut or refused saying how to go on): the degraded cases of the second attack pass at
their real sizes, as the judged `server_memory` and `patch_work` suites run them (those assert
memory and replies, never a time; this prints the times).

Cases, each a call to a warm `filekit serve` over stdio (one server per table, lean JSON-RPC
over pipes), or a `filekit patch` process:
  - hunk placement: hunks of 400, 1,000 and 10,000 identical lines against a 2 MB file of
    them, placed by a line number and without one (ambiguous);
  - replies: reads naming one 2 MB file 1,000 times (every table's read of many files) and
    200,000 files that do not exist (a 1 MB request whose every failure is said), a
    tree, a listing, a glob and a search of 200,000 files, tree-wide dry runs over them and
    over forty 2 MB files whose every line changes;
  - many edits on one line: 100,000 edits of one 400 KB line, 1,000 ambiguous one-character
    edits of a 1 MB line;
  - parses: reads by symbol of 2 MB sources of one-digit numbers (TypeScript, Python), whose
    trees would take 400 MB, and of 2 MB of ordinary TypeScript.

Each row: the case, its time (the median of --runs) and the processor time it took (user and
system: a loaded machine stretches the first, less the second), OVER when the time passes the
bound, the reply's size and the server's peak resident memory (VmHWM) so far. Files a case changes
are written back before each run. The workspace is built under --scratch (default /dev/shm:
the subject is filekit's work, not a disk's speed).

Usage: python3 benches/work_budgets.py [--filekit target/release/filekit] [--runs 3]
       [--scratch /dev/shm] [--only SUBSTRING]
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUND = 2.0
TREE_FILES = 200_000
PER_DIR = 100


def two_mb():
    return ("x" * 99 + "\n") * 20_000


def dense_source(python):
    numbers = "1," * 1_000_000
    if python:
        return f"def pick(i):\n    return TABLE[i]\n\n\nTABLE = [{numbers}0]\n"
    return (f"export function pick(i: number): number {{\n    return table[i];\n}}\n\n"
            f"export const table = [{numbers}0];\n")


def ordinary_typescript(size):
    parts = ['import { readFile } from "node:fs/promises";\n\n']
    n, length = 0, len(parts[0])
    while length < size:
        part = f"""/** Keeps the orders of one customer and what they cost. */
export class Ledger{n} {{
    private readonly entries: Map<string, number> = new Map();
    constructor(public readonly owner: string, private limit = {n}) {{}}

    add(name: string, amount: number): boolean {{
        if (amount <= 0 || this.entries.size >= this.limit) {{
            return false;
        }}
        const before = this.entries.get(name) ?? 0;
        this.entries.set(name, before + amount * 1.2);
        return true;
    }}

    total(): number {{
        let sum = 0;
        for (const [, value] of this.entries) {{
            sum += value;
        }}
        return Math.round(sum * 100) / 100;
    }}
}}

"""
        parts.append(part)
        length += len(part)
        n += 1
    return "".join(parts), n - 1


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def build(root):
    """The workspace; returns the files cases change, with their content to put back."""
    write(root, "small.txt", "hello\n")
    write(root, "big.txt", two_mb())
    text = "alpha beta\n" * 190_000
    for f in range(40):
        write(root, f"dry/f{f:02}.txt", text)
    long = "".join(f"[{i}]" for i in range(100_000))
    restore = {
        "one.txt": f"head\n{long}\ntail\n",
        "ab.txt": "ab" * 500_000,
        "lines.txt": "x\n" * 1_000_000,
    }
    for rel, content in restore.items():
        write(root, rel, content)
    write(root, "src/dense.ts", dense_source(False))
    write(root, "src/dense.py", dense_source(True))
    code, last = ordinary_typescript(2_000_000)
    write(root, "src/ordinary.ts", code)
    for i in range(TREE_FILES):
        write(root, f"tree/d{i // PER_DIR}/f{i}.txt", f"file {i}\nthe colour of it\nend\n")
    return restore, last


class Server:
    def __init__(self, filekit, root, table):
        self.proc = subprocess.Popen([filekit, "--root", root, "serve", "--tools", table],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return line, message

    def call(self, tool, args):
        line, message = self.request("tools/call", {"name": tool, "arguments": args})
        content = message.get("result", {}).get("content") or [{}]
        return len(line), content[0].get("text", "")

    def cpu_seconds(self):
        """Processor time the server took so far (user and system)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
        return 0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def hunk(length, at, unified):
    before = length // 2
    body = " x\n" * before + "-x\n+y\n" + " x\n" * (length - before - 1)
    if unified:
        return f"--- a/lines.txt\n+++ b/lines.txt\n@@ -{at},{length} +{at},{length} @@\n{body}"
    return f"*** Begin Patch\n*** Update File: lines.txt\n@@\n{body}*** End Patch\n"


def row(name, times, cpus, size, peak, note=""):
    median = statistics.median(times)
    cpu = statistics.median(cpus)
    verdict = "OVER" if median > BOUND else "ok"
    print(f"{name:<58} {median:6.2f} s {cpu:6.2f} s  {verdict:<4} {size:>9} B {peak:>4} MiB  "
          f"{note}", flush=True)
    return median


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filekit", default=os.path.join(ROOT, "target/release/filekit"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scratch", default="/dev/shm")
    parser.add_argument("--only", default="")
    opts = parser.parse_args()
    if not os.path.exists(opts.filekit):
        sys.exit(f"no {opts.filekit}: cargo build --release -p filekit, or give --filekit")
    root = tempfile.mkdtemp(prefix="filekit-budgets-", dir=opts.scratch)
    try:
        print(f"building the workspace in {root} ({TREE_FILES} files)...", flush=True)
        restore, last = build(root)
        print(f"{'case':<58} {'time':>8} {'cpu':>8}  {'':<4} {'reply':>11} {'peak':>8}",
              flush=True)
        over = []

        def put_back():
            for rel, content in restore.items():
                write(root, rel, content)

        def measure(name, server, tool, args, says=""):
            if opts.only not in name:
                return
            times, cpus, size, text = [], [], 0, ""
            for _ in range(opts.runs):
                put_back()
                began, cpu = time.perf_counter(), server.cpu_seconds()
                size, text = server.call(tool, args)
                times.append(time.perf_counter() - began)
                cpus.append(server.cpu_seconds() - cpu)
            note = "" if says in text else f"(no {says!r} in the reply)"
            if row(name, times, cpus, size, server.peak_mib(), note) > BOUND:
                over.append(name)

        def patch(name, text):
            if opts.only not in name:
                return
            times, cpus, out = [], [], b""
            for _ in range(opts.runs):
                put_back()
                began = time.perf_counter()
                cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
                done = subprocess.run([opts.filekit, "--root", root, "--no-history", "patch",
                                       "-", "--json"], input=text.encode(),
                                      capture_output=True)
                times.append(time.perf_counter() - began)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus.append(after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime)
                out = done.stdout
            if row(name, times, cpus, len(out), 0, "(a process)") > BOUND:
                over.append(name)

        for length in (400, 1_000, 10_000):
            patch(f"patch: {length}-line hunk of identical lines, at a line", hunk(length, 500_000, True))
            patch(f"patch: {length}-line hunk of identical lines, ambiguous", hunk(length, 1, False))

        many = ["big.txt"] * 1000
        # A request of 1 MB naming 200,000 files that do not exist: each failure is said.
        missing = ["a"] * 200_000
        missing_abs = [os.path.join(root, "a")] * 200_000
        many_abs = [os.path.join(root, "big.txt")] * 1000
        tree = os.path.join(root, "tree")
        tables = {
            "filekit": [
                ("read_files: one 2 MB file 1,000 times", "read_files",
                 {"files": [{"path": p} for p in many]}, "another call"),
                ("grep_files: 200,000 files", "grep_files",
                 {"pattern": "colour", "path": "tree"}, ""),
                ("find_files: 200,000 files", "find_files",
                 {"pattern": "tree/**/*.txt"}, ""),
                ("list_dir: 200,000 files, depth 10", "list_dir",
                 {"path": "tree", "depth": 10}, ""),
                ("replace_in_files dry run: 200,000 files", "replace_in_files",
                 {"expression": "s/colour/color/", "files": "*.txt", "directory": "tree",
                  "dry_run": True}, ""),
                ("replace_in_files dry run: 40 files of 2 MB, every line", "replace_in_files",
                 {"expression": "s/alpha/gamma/", "files": "*.txt", "directory": "dry",
                  "dry_run": True}, ""),
                ("edit_files: 100,000 edits of one line", "edit_files",
                 {"files": [{"path": "one.txt", "edits": [
                     {"str_replace": {"old": f"[{i}]", "new": f"({i})"}}
                     for i in range(100_000)]}]}, ""),
                ("edit_files: 1,000 ambiguous edits of a 1 MB line", "edit_files",
                 {"files": [{"path": "ab.txt", "edits": [
                     {"str_replace": {"old": "a", "new": "c"}}] * 1000}]}, ""),
                ("file_read by symbol: 2 MB of one-digit numbers (TS)", "file_read",
                 {"file": "src/dense.ts", "symbol": "pick"}, ""),
                ("file_read by symbol: 2 MB of one-digit numbers (Python)", "file_read",
                 {"file": "src/dense.py", "symbol": "pick"}, ""),
                ("file_read by symbol: 2 MB of ordinary TypeScript", "file_read",
                 {"file": "src/ordinary.ts", "symbol": f"Ledger{last}.total"}, "Math.round"),
            ],
            "mcp-filesystem": [
                ("read_multiple_files: one 2 MB file 1,000 times", "read_multiple_files",
                 {"paths": many}, "another call"),
                ("read_multiple_files: 200,000 missing files", "read_multiple_files",
                 {"paths": missing}, "another call"),
                ("directory_tree: 200,000 files", "directory_tree", {"path": "tree"}, ""),
                ("search_files: 200,000 files", "search_files",
                 {"path": "tree", "pattern": "**/*.txt"}, ""),
            ],
            "desktop-commander": [
                ("read_multiple_files (desktop-commander): 1,000 times", "read_multiple_files",
                 {"paths": many_abs}, "another call"),
                ("read_multiple_files (desktop-commander): 200,000 missing", "read_multiple_files",
                 {"paths": missing_abs}, "another call"),
                ("list_directory: 200,000 files, depth 10", "list_directory",
                 {"path": tree, "depth": 10}, ""),
            ],
            "amazonq": [
                ("fs_read Line: one 2 MB file 1,000 times", "fs_read",
                 {"operations": [{"mode": "Line", "paths": many_abs}]}, "another call"),
                ("fs_read Line: 200,000 missing files", "fs_read",
                 {"operations": [{"mode": "Line", "paths": missing_abs}]}, "another call"),
                ("fs_read Directory: 200,000 files, depth 10", "fs_read",
                 {"operations": [{"mode": "Directory", "path": tree, "depth": 10}]}, ""),
                ("fs_write pattern_replace dry run: 200,000 files", "fs_write",
                 {"command": "pattern_replace", "sed_pattern": "s/colour/color/",
                  "file_pattern": "*.txt", "directory": tree, "recursive": True,
                  "dry_run": True}, ""),
            ],
            "claude": [
                ("Grep content: 200,000 files", "Grep",
                 {"pattern": "colour", "path": tree, "output_mode": "content"}, ""),
                ("Glob: 200,000 files", "Glob", {"pattern": "**/*.txt", "path": tree}, ""),
            ],
        }
        for table, cases in tables.items():
            server = Server(opts.filekit, root, table)
            for name, tool, args, says in cases:
                measure(name, server, tool, args, says)
            server.close()
        print(f"\n{len(over)} case(s) over {BOUND:.0f} s" + (": " + "; ".join(over) if over else ""))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
