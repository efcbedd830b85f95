#!/usr/bin/env python3
"""MCP latency: filekit serve against the official Node filesystem server, over stdio, driven
by the official Python MCP SDK (the .venv that scripts/setup-test-deps creates).

  - a small read, 1,000 calls one after another: filekit `Read` (claude table) and `fs_read`
    (amazonq table) against `read_text_file` of @modelcontextprotocol/server-filesystem
    (installed from npm into benches/out/node by this script); median and p99 per call;
  - the same calls as raw JSON-RPC lines over pipes (no SDK), closer to server-side latency;
  - start-up: process spawn to the first `tools/list` reply, over raw pipes, median of 30.

Usage: .venv/bin/python benches/mcp_latency.py [--calls N]
Builds target/release/filekit if needed. Writes benches/out/mcp_latency.json.
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "filekit")
OUT = os.path.join(ROOT, "benches", "out")
NODE_DIR = os.path.join(OUT, "node")
NODE_PACKAGE = "@modelcontextprotocol/server-filesystem"


def node_server():
    entry = os.path.join(NODE_DIR, "node_modules", NODE_PACKAGE, "dist", "index.js")
    if not os.path.exists(entry):
        os.makedirs(NODE_DIR, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", NODE_DIR, NODE_PACKAGE], check=True)
    version = json.load(open(os.path.join(NODE_DIR, "node_modules", NODE_PACKAGE, "package.json")))["version"]
    return entry, version


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def time_calls(command, args, tool, arguments, calls):
    params = StdioServerParameters(command=command, args=args, env={"PATH": os.environ["PATH"]})
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for _ in range(50):  # warm-up
                result = await session.call_tool(tool, arguments)
                assert not result.isError, result
            samples = []
            for _ in range(calls):
                start = time.perf_counter()
                result = await session.call_tool(tool, arguments)
                samples.append(time.perf_counter() - start)
                assert not result.isError
    return samples


def time_raw_calls(command, args, tool, arguments, calls):
    """The same calls as raw JSON-RPC lines over pipes, without the SDK: closer to the
    servers' own latency, since the Python SDK adds a fixed cost per call to both."""
    proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def send(message):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def reply(request_id):
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{command} closed stdout")
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "bench", "version": "0"}}})
    reply(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    samples = []
    for i in range(1, calls + 51):
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": tool, "arguments": arguments}})
        result = reply(i)["result"]
        elapsed = time.perf_counter() - start
        assert not result.get("isError"), result
        if i > 50:  # after the warm-up
            samples.append(elapsed)
    proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    return samples


def startup(command, args, runs=30):
    """Spawn to the first tools/list reply, speaking raw JSON-RPC lines."""
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    payload = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        proc.stdin.write(payload)
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{command} closed stdout before answering tools/list")
            if json.loads(line).get("id") == 1:
                break
        samples.append(time.perf_counter() - start)
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    return samples


def ms(seconds):
    return f"{seconds * 1000:.3f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    opts = parser.parse_args()
    if not os.path.exists(BIN):
        subprocess.run(["cargo", "build", "--release", "-p", "filekit"], cwd=ROOT, check=True)
    entry, node_version = node_server()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        small = os.path.join(tmp, "small.txt")
        with open(small, "w") as f:
            f.writelines(f"line {i} of a small file\n" for i in range(1, 41))
        cases = {
            "filekit Read": (BIN, ["serve", "--root", tmp, "--tools", "claude"], "Read",
                             {"file_path": small}),
            "filekit fs_read": (BIN, ["serve", "--root", tmp, "--tools", "amazonq"], "fs_read",
                                {"mode": "Line", "path": small}),
            f"node server-filesystem {node_version} read_text_file": (
                "node", [entry, tmp], "read_text_file", {"path": small}),
        }
        results = {}
        for name, (command, args, tool, arguments) in cases.items():
            samples = asyncio.run(time_calls(command, args, tool, arguments, opts.calls))
            raw = time_raw_calls(command, args, tool, arguments, opts.calls)
            boot = startup(command, args)
            results[name] = {
                "median_s": statistics.median(samples),
                "p99_s": percentile(samples, 99),
                "raw_median_s": statistics.median(raw),
                "raw_p99_s": percentile(raw, 99),
                "startup_median_s": statistics.median(boot),
            }
    node_name = next(n for n in results if n.startswith("node"))
    node = results[node_name]
    print(f"{opts.calls} sequential calls of a small read (40 lines) over stdio, Python MCP SDK client")
    print("SDK: the Python MCP SDK as client; raw: the same calls as JSON-RPC lines without it")
    print(f"{'server':<52} {'SDK median':>11} {'SDK p99':>11} {'node/this':>10} "
          f"{'raw median':>11} {'raw p99':>11} {'node/this':>10} {'start-up':>11}")
    for name, r in results.items():
        ratio = node["median_s"] / r["median_s"]
        raw_ratio = node["raw_median_s"] / r["raw_median_s"]
        print(f"{name:<52} {ms(r['median_s']):>11} {ms(r['p99_s']):>11} {ratio:>9.2f}x "
              f"{ms(r['raw_median_s']):>11} {ms(r['raw_p99_s']):>11} {raw_ratio:>9.2f}x "
              f"{ms(r['startup_median_s']):>11}")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mcp_latency.json"), "w") as f:
        json.dump({"calls": opts.calls, "results": results}, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
