#!/usr/bin/env python3
"""Speed: what a tool call costs, against its peers, in one run.

Every row is a ratio against a peer (above 1: filekit is faster), the median of the rounds'
ratios with their spread (min-max), each round timing filekit and its peer back to back:

  - over MCP stdio, with a lean JSON-RPC client (lines over pipes, no SDK, which would add
    ~0.5 ms per call and hide the difference), against the official Node filesystem server
    (@modelcontextprotocol/server-filesystem): a `ping`, a trivial call
    (`list_allowed_directories`), a 100-line and a 10,000-line read through `read_text_file`
    (mcp-filesystem table), `read_files` (filekit's own) and `Read` (claude table), each
    against the Node server's `read_text_file` of the same file; per round the median of
    `--calls` calls after a warm-up;
  - whole processes, by their processor time (user + system, spawn to exit): `filekit
    --version` against `rg --version` (when ripgrep is installed), and `filekit call` of a
    small read (goal: under 3 ms);
  - `file_read` of a symbol in a generated 10,000-line TypeScript file, as one `filekit call`
    process (processor time, goal 30 ms) and in a warm server (goal 5 ms);
  - a tree-wide replace through `fs_write pattern_replace` (the default: atomic, durable,
    undoable) against fastmod on the .rs files of cargo's registry (thousands of files), on
    tmpfs (`--tmpfs`, default /dev/shm) and on disk (`--disk`, default a folder under
    benches/out): each round copies the tree afresh for each tool, and both must leave the
    same bytes.

The Node server comes from .test-deps/mcp-filesystem (scripts/setup-test-deps) or is installed
by this script into benches/.tools/node; fastmod is installed with `cargo install --root
benches/.tools` when it is missing. Builds target/release/filekit unless --filekit is given.

Usage: python3 benches/speed.py [--rounds 7] [--calls 200] [--filekit BIN] [--skip replace]
"""

import argparse
import hashlib
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
TOOLS = os.path.join(ROOT, "benches", ".tools")
OUT = os.path.join(ROOT, "benches", "out")
NODE_PACKAGE = "@modelcontextprotocol/server-filesystem"
NODE_VERSION = "2026.8.31"
REGISTRY = os.path.expanduser("~/.cargo/registry/src")
# A file larger than this is left out of the replace corpus (a few generated tables): the
# bound is the same for every tool, so each is asked the same work.
MAX_CORPUS_FILE = 2 << 20


# ---------------------------------------------------------------------------- peers, set-up


def node_command():
    """The Node filesystem server: the pinned copy of the test dependencies, else one this
    script installs (never at test time)."""
    node = shutil.which("node")
    local_node = os.path.join(ROOT, ".test-deps", "mcp-node", "node_modules", ".bin", "node")
    if os.path.exists(local_node):
        node = local_node
    for base in [os.path.join(ROOT, ".test-deps", "mcp-filesystem"), os.path.join(TOOLS, "node")]:
        entry = os.path.join(base, "node_modules", NODE_PACKAGE, "dist", "index.js")
        if os.path.exists(entry):
            return [node, entry]
    base = os.path.join(TOOLS, "node")
    os.makedirs(base, exist_ok=True)
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--ignore-scripts",
                    "--prefix", base, f"{NODE_PACKAGE}@{NODE_VERSION}"], check=True)
    return [node, os.path.join(base, "node_modules", NODE_PACKAGE, "dist", "index.js")]


def fastmod_binary():
    exe = shutil.which("fastmod") or os.path.join(TOOLS, "bin", "fastmod")
    if not os.path.exists(exe):
        subprocess.run(["cargo", "install", "--quiet", "--locked", "--root", TOOLS, "fastmod"],
                       check=True)
    return exe


# ---------------------------------------------------------------------------- a lean client


class Server:
    """An MCP server over stdio, driven by JSON-RPC lines: one request out, its reply in."""

    def __init__(self, command, cwd=None, env=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        self.next_id = 0
        self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "speed-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout ({self.proc.args})")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def time_calls(self, method, params, calls, warmup=20):
        """The median time of `calls` requests (seconds), after `warmup` untimed ones. The
        request's bytes are built once, so that the loop measures the server."""
        head = b'{"jsonrpc":"2.0","method":' + json.dumps(method).encode()
        if params is not None:
            head += b',"params":' + json.dumps(params).encode()
        head += b',"id":'
        stdin = self.proc.stdin
        readline = self.proc.stdout.readline
        samples = []
        for i in range(warmup + calls):
            self.next_id += 1
            line = head + str(self.next_id).encode() + b"}\n"
            start = time.perf_counter()
            stdin.write(line)
            stdin.flush()
            reply = readline()
            elapsed = time.perf_counter() - start
            if i == 0:
                checked = json.loads(reply)
                if "error" in checked or checked.get("result", {}).get("isError"):
                    raise RuntimeError(f"{method} {params}: {reply[:600]!r}")
            if i >= warmup:
                samples.append(elapsed)
        return statistics.median(samples)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def call_params(tool, arguments):
    return {"name": tool, "arguments": arguments}


# ---------------------------------------------------------------------------- whole processes


def time_process(argv, runs=20, stdin=None, env=None):
    """The median processor time (user + system) of `argv` as a whole process, spawn to exit,
    stdout discarded: what the process costs, whatever else the machine runs (its wall time
    on a shared machine is mostly waiting for a core)."""
    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if done.returncode != 0:
            raise RuntimeError(f"{argv} exited with {done.returncode}")
    return statistics.median(samples)


# ---------------------------------------------------------------------------- corpora


def text_file(lines):
    """`lines` lines of about 38 bytes, as a source file has (10,000 lines: ~380 KB)."""
    return "".join(f"line {i:05}: the quick brown fox jumps {i % 97:02}\n" for i in range(lines))


def ts_file(lines):
    """A TypeScript module of about `lines` lines: classes with methods, and functions (the
    file of benches/semantic.py)."""
    out = ["import { Db } from './db';\n", "import type { User } from './types';\n", "\n"]
    i = 0
    while len(out) < lines:
        out.append(f"export class Service{i} {{\n")
        out.append("  private db: Db;\n\n")
        for m in range(5):
            out.append(f"  async find{m}(id: string): Promise<User | null> {{\n")
            out.append(f"    const key = `user:${{id}}:{m}`;\n")
            out.append("    return this.db.get(key);\n")
            out.append("  }\n\n")
        out.append("}\n\n")
        out.append(f"export function calculateTotal{i}(items: number[]): number {{\n")
        out.append("  let t = 0;\n")
        out.append("  for (const x of items) t += x;\n")
        out.append("  return t;\n")
        out.append("}\n\n")
        i += 1
    return "".join(out), i


def registry_corpus():
    files = []
    for dirpath, dirnames, filenames in os.walk(REGISTRY):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                if os.path.getsize(path) <= MAX_CORPUS_FILE:
                    files.append(os.path.relpath(path, REGISTRY))
    return files


def copy_corpus(files, dest):
    shutil.rmtree(dest, ignore_errors=True)
    for rel in files:
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(REGISTRY, rel), target)
    subprocess.run(["sync"], check=True)


def tree_hash(dest):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(dest):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, dest).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


# ---------------------------------------------------------------------------- the report


class Table:
    def __init__(self):
        self.rows = []

    def add(self, work, filekit_s, peer, peer_s, ratios, goal, met):
        self.rows.append((work, filekit_s, peer, peer_s, ratios, goal, met))
        self.print_row(self.rows[-1])
        sys.stdout.flush()

    @staticmethod
    def ms(seconds):
        value = statistics.median(seconds) * 1000
        spread = (min(seconds) * 1000, max(seconds) * 1000)
        digits = 3 if value < 1 else 1
        return f"{value:.{digits}f} ms ({spread[0]:.{digits}f}-{spread[1]:.{digits}f})"

    def print_row(self, row):
        work, filekit_s, peer, peer_s, ratios, goal, met = row
        ratio = ""
        if ratios:
            ratio = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
        peer_text = f"{peer} {self.ms(peer_s)}" if peer_s else peer
        print(f"| {work} | {self.ms(filekit_s)} | {peer_text} | {ratio} | {goal} | "
              f"{'yes' if met else 'NO'} |")


def median(values):
    return statistics.median(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=200, help="timed calls per server per round")
    ap.add_argument("--filekit", help="the filekit binary (default: build target/release)")
    ap.add_argument("--tmpfs", default="/dev/shm")
    ap.add_argument("--disk", default=os.path.join(OUT, "speed-replace"))
    ap.add_argument("--skip", action="append", default=[],
                    choices=["mcp", "process", "semantic", "replace"])
    args = ap.parse_args()

    filekit = args.filekit
    if not filekit:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "filekit"], cwd=ROOT, check=True)
        filekit = os.path.join(ROOT, "target", "release", "filekit")
    filekit = os.path.abspath(filekit)

    work = tempfile.mkdtemp(prefix="filekit-speed-")
    state = os.path.join(work, "state")
    ws = os.path.join(work, "ws")
    os.makedirs(ws)
    small_path, big_path = os.path.join(ws, "small.txt"), os.path.join(ws, "big.txt")
    with open(small_path, "w") as f:
        f.write(text_file(100))
    with open(big_path, "w") as f:
        f.write(text_file(10_000))
    ts, classes = ts_file(10_000)
    with open(os.path.join(ws, "big.ts"), "w") as f:
        f.write(ts)
    env = dict(os.environ, XDG_STATE_HOME=state)

    def filekit_server(tables):
        return Server([filekit, "--root", ws, "serve", "--tools", tables], env=env)

    table = Table()
    print(f"filekit {filekit}; {args.rounds} rounds; per MCP row the median of {args.calls} "
          f"calls a round; ratio = peer / filekit (above 1: filekit faster), median (min-max)")
    print("| work | filekit | peer | ratio | goal | met |")
    print("|---|---|---|---|---|---|")
    try:
        if "mcp" not in args.skip:
            mcp_rows(args, table, filekit_server, node_command(), ws, small_path, big_path)
        if "process" not in args.skip:
            process_rows(args, table, filekit, ws, env)
        if "semantic" not in args.skip:
            semantic_rows(args, table, filekit, filekit_server, ws, env, classes)
        if "replace" not in args.skip:
            replace_rows(args, table, filekit, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def mcp_rows(args, table, filekit_server, node, ws, small_path, big_path):
    servers = {
        "node": Server([*node, ws]),
        "mcp-filesystem": filekit_server("mcp-filesystem"),
        "claude": filekit_server("claude"),
        "filekit": filekit_server("filekit"),
    }
    fs = servers["mcp-filesystem"]
    node_server = servers["node"]

    def per_round(measures):
        """Each measure's time per round, the measures of a round back to back."""
        times = [[] for _ in measures]
        for _ in range(args.rounds):
            for i, (server, method, params) in enumerate(measures):
                times[i].append(server.time_calls(method, params, args.calls))
        return times

    try:
        ping_fk, ping_node = per_round([(fs, "ping", None), (node_server, "ping", None)])
        table.add("JSON-RPC `ping` round trip", ping_fk, "Node", ping_node,
                  [n / f for f, n in zip(ping_fk, ping_node)], "the floor", True)
        trivial = call_params("list_allowed_directories", {})
        triv_fk, triv_node, ping_again = per_round(
            [(fs, "tools/call", trivial), (node_server, "tools/call", trivial), (fs, "ping", None)])
        above = [t - p for t, p in zip(triv_fk, ping_again)]
        table.add("trivial call (`list_allowed_directories`)", triv_fk, "Node", triv_node,
                  [n / f for f, n in zip(triv_fk, triv_node)],
                  f"<= ping + 0.03 ms (now ping + {median(above) * 1000:.3f} ms)",
                  median(above) <= 0.00003)
        for label, path, goal in [("100-line", small_path, 5.0), ("10,000-line", big_path, 3.0)]:
            node_read = call_params("read_text_file", {"path": path})
            name = os.path.basename(path)
            for server, tool, arguments in [
                ("mcp-filesystem", "read_text_file", {"path": path}),
                ("filekit", "read_files", {"files": [{"path": name}]}),
                ("claude", "Read", {"file_path": path}),
            ]:
                fk, peer = per_round([(servers[server], "tools/call", call_params(tool, arguments)),
                                      (node_server, "tools/call", node_read)])
                ratios = [n / f for f, n in zip(fk, peer)]
                table.add(f"read a {label} file, `{tool}`", fk, "Node `read_text_file`", peer,
                          ratios, f">= {goal:g}x", median(ratios) >= goal)
    finally:
        for s in servers.values():
            s.close()


def process_rows(args, table, filekit, ws, env):
    rg = shutil.which("rg")
    runs = 20
    version, peer = [], []
    call_small, spawn_floor = [], []
    small_call = json.dumps({"tool_name": "read_files",
                             "tool_args": {"files": [{"path": "small.txt"}]}}).encode()
    for _ in range(args.rounds):
        version.append(time_process([filekit, "--version"], runs))
        if rg:
            peer.append(time_process([rg, "--version"], runs))
        spawn_floor.append(time_process(["/bin/true"], runs))
        call_small.append(time_process([filekit, "--root", ws, "call"], runs, stdin=small_call,
                                       env=env))
    ratios = [p / v for v, p in zip(version, peer)] if rg else []
    table.add("`filekit --version`, whole process", version, "`rg --version`" if rg else
              "(no rg)", peer, ratios, "(spawn floor, /bin/true: "
              f"{median(spawn_floor) * 1000:.2f} ms)", True)
    table.add("`filekit call` `read_files` of a 100-line file, whole process", call_small,
              "`rg --version`" if rg else "(no rg)", peer,
              [p / c for c, p in zip(call_small, peer)] if rg else [], "<= 3 ms",
              median(call_small) <= 0.003)


def semantic_rows(args, table, filekit, filekit_server, ws, env, classes):
    symbol = f"Service{classes // 2}.find3"
    call = json.dumps({"tool_name": "file_read",
                       "tool_args": {"file": "big.ts", "symbol": symbol}}).encode()
    whole, warm = [], []
    server = filekit_server("semantic")
    try:
        params = call_params("file_read", {"file": "big.ts", "symbol": symbol})
        for _ in range(args.rounds):
            whole.append(time_process([filekit, "--root", ws, "call"], 10, stdin=call, env=env))
            warm.append(server.time_calls("tools/call", params, max(10, args.calls // 10),
                                          warmup=3))
    finally:
        server.close()
    design = [0.5] * len(whole)
    table.add("`file_read` by symbol, 10,000-line TypeScript, whole process", whole,
              "the design's 500 ms", design, [0.5 / w for w in whole], "<= 30 ms",
              median(whole) <= 0.030)
    table.add("`file_read` by symbol, 10,000-line TypeScript, warm server", warm,
              "the design's 500 ms", design, [0.5 / w for w in warm], "<= 5 ms",
              median(warm) <= 0.005)


def replace_rows(args, table, filekit, env):
    fastmod = fastmod_binary()
    files = registry_corpus()
    if len(files) < 1000:
        print(f"(replace rows skipped: {REGISTRY} has {len(files)} .rs files; build the "
              "workspace once to fill it)")
        return
    pattern, replacement = "unsafe_op_in_unsafe_fn", "UNSAFE_OP_IN_UNSAFE_FN"
    for place, base in [("tmpfs", args.tmpfs), ("disk", args.disk)]:
        if not os.path.isdir(os.path.dirname(base.rstrip("/")) or "/"):
            continue
        tree = os.path.join(base, "filekit-speed-replace")
        fk_times, peer_times = [], []
        expected = None
        for _ in range(args.rounds):
            copy_corpus(files, tree)
            call = json.dumps({"tool_name": "fs_write", "tool_args": {
                "command": "pattern_replace", "directory": ".", "file_pattern": "*.rs",
                "recursive": True, "literal": True,
                "sed_pattern": f"s/{pattern}/{replacement}/g"}}).encode()
            start = time.perf_counter()
            done = subprocess.run([filekit, "--root", tree, "call", "--tools", "amazonq"],
                                  input=call, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=env)
            fk_times.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise RuntimeError(f"fs_write pattern_replace failed: {done.stdout[:800]!r}")
            got = tree_hash(tree)
            copy_corpus(files, tree)
            start = time.perf_counter()
            subprocess.run([fastmod, "--accept-all", "--fixed-strings", "--extensions", "rs",
                            pattern, replacement], cwd=tree, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            peer_times.append(time.perf_counter() - start)
            theirs = tree_hash(tree)
            if got != theirs or (expected and got != expected):
                raise RuntimeError(f"filekit and fastmod left different trees on {place}")
            expected = got
        shutil.rmtree(tree, ignore_errors=True)
        ratios = [p / f for f, p in zip(fk_times, peer_times)]
        goal = "faster than fastmod" if place == "tmpfs" else "the ratio"
        table.add(f"tree-wide replace, `fs_write pattern_replace`, {len(files):,} files, {place}",
                  fk_times, "fastmod", peer_times, ratios, goal,
                  median(ratios) > 1 if place == "tmpfs" else True)


if __name__ == "__main__":
    main()
