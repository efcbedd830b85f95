#!/usr/bin/env python3
"""What an agent pays to use filekit, in bytes a model reads.

  - definitions: each table's `tools/list` array as compact JSON, without output schemas
    (names, descriptions, input schemas) and with them, beside the official MCP filesystem
    server's (@modelcontextprotocol/server-filesystem, installed in .test-deps/mcp-filesystem by
    scripts/setup-test-deps; left out with a note when it is not there) and, for the claude,
    codex and amazonq tables, beside their real tools' (crates/mcp/tests/real_tools.json);
  - a fixed everyday workload on a small Python package, done through the curated table
    (`filekit serve --tools filekit`) and through the Claude-shaped table (`--tools claude`),
    each on its own fresh copy: read a range, grep, one edit, three edits in one file, one edit
    in each of two files, glob, list, a rename's dry run and apply, a tree-wide replace, an
    undo. The Claude-shaped table has no rename, replace or undo: it does the same work the
    way an agent with those tools would (a grep, then an edit of each file). The bytes counted
    are the model-facing ones: the text content of each reply (what clients hand the model);
    the structured content is counted beside them.

Printed as a table and as ratios; the workload is done when the curated table costs no more
model-facing bytes than the Claude-shaped one. Speaks JSON-RPC lines to `filekit serve` over
stdio (no SDK needed).

Usage: python3 benches/agent_surface.py [--bin PATH] [--json OUT] [--test-deps DIR]
Uses target/release/filekit, else target/debug/filekit (or --bin).
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def official_server(deps):
    """The official server's entry point and the Node that runs it, in `deps` (.test-deps)."""
    entry = (deps / "mcp-filesystem" / "node_modules" / "@modelcontextprotocol" / "server-filesystem"
             / "dist" / "index.js")
    node = deps / "mcp-node" / "node_modules" / ".bin" / "node"
    return entry, (str(node) if node.exists() else shutil.which("node"))
TABLES = ["filekit", "claude", "amazonq", "file", "desktop-commander", "semantic", "codex",
          "mcp-filesystem"]


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Server:
    """One MCP server over stdio, spoken to in JSON-RPC lines."""

    def __init__(self, argv, cwd=None):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "agent_surface", "version": "1"}})
        self.notify("notifications/initialized")

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.proc.stdin.write(compact(message) + "\n")

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(compact({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                       "params": params}) + "\n")
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{method}: the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def tools(self):
        return self.request("tools/list", {})["tools"]

    def call(self, name, arguments):
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def definition_bytes(tools):
    lean = [{k: t[k] for k in ("name", "description", "inputSchema") if k in t} for t in tools]
    return len(compact(lean).encode()), len(compact(tools).encode())


# ---------------------------------------------------------------------------------------------
# The workload's package

def module(name):
    lines = [f'"""The {name} module."""', "", "import math", "", ""]
    for i in range(6):
        lines += [f"def {name}_step_{i}(items, scale={i + 1}):",
                  f'    """Step {i} of {name}: scale, round and total the items."""',
                  "    scaled = [item * scale for item in items]",
                  "    rounded = [math.floor(value) for value in scaled]",
                  "    return compute_total(rounded)" if name != "core" or i else
                  "    return sum(rounded)",
                  "", ""]
    if name == "core":
        lines += ["def compute_total(values):", '    """The total of the values."""',
                  "    return sum(values)", "", ""]
    lines.append("DEBUG = False")
    return "\n".join(lines) + "\n"


def populate(root):
    pkg = root / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""The package."""\n')
    (pkg / "core.py").write_text(module("core"))
    for name in ("orders", "invoices", "reports"):
        text = module(name).replace("import math\n", "import math\n\nfrom pkg.core import compute_total\n")
        (pkg / f"{name}.py").write_text(text)
    (root / "README.md").write_text("# pkg\n\nTotals with compute_total.\n")


# ---------------------------------------------------------------------------------------------
# The workload, as each table does it

def curated_steps(root):
    return [
        ("read a range", "read_files", {"files": [{"path": "src/pkg/orders.py", "start_line": 8, "end_line": 30}]}),
        ("grep", "grep_files", {"pattern": "def \\w+_step_1", "path": "src"}),
        ("one edit", "edit_files", {"files": [{"path": "src/pkg/orders.py", "edits": [
            {"str_replace": {"old": "DEBUG = False", "new": "DEBUG = True"}}]}]}),
        ("three edits in a file", "edit_files", {"files": [{"path": "src/pkg/invoices.py", "edits": [
            {"str_replace": {"old": "Step 0 of invoices", "new": "Step zero of invoices"}},
            {"str_replace": {"old": "Step 1 of invoices", "new": "Step one of invoices"}},
            {"str_replace": {"old": "Step 2 of invoices", "new": "Step two of invoices"}}]}]}),
        ("one edit in each of two files", "edit_files", {"files": [
            {"path": "src/pkg/reports.py", "edits": [{"str_replace": {"old": "DEBUG = False", "new": "DEBUG = True"}}]},
            {"path": "src/pkg/core.py", "edits": [{"str_replace": {"old": "DEBUG = False", "new": "DEBUG = True"}}]}]}),
        ("glob", "find_files", {"pattern": "**/*.py"}),
        ("list", "list_dir", {"path": "src/pkg"}),
        ("rename: dry run", "file_edit", {"file": "src/pkg/core.py", "refactor": "rename_symbol",
                                          "symbol": "compute_total", "new_name": "sum_values", "dry_run": True}),
        ("rename: apply", "file_edit", {"file": "src/pkg/core.py", "refactor": "rename_symbol",
                                        "symbol": "compute_total", "new_name": "sum_values"}),
        ("tree-wide replace", "replace_in_files", {"expression": "s/math\\.floor/math.trunc/g", "files": "*.py"}),
        ("undo", "undo", {}),
    ]


def claude_steps(root, files_with):
    """The same work through Read, Grep, Edit, MultiEdit, Glob and LS. `files_with(text)` is
    the files of the fixture (as the step finds them) that hold `text` when the step runs."""
    a = lambda p: str(root / p)
    steps = [
        ("read a range", [("Read", {"file_path": a("src/pkg/orders.py"), "offset": 8, "limit": 23})]),
        ("grep", [("Grep", {"pattern": "def \\w+_step_1", "path": a("src"), "output_mode": "content", "-n": True})]),
        ("one edit", [("Edit", {"file_path": a("src/pkg/orders.py"), "old_string": "DEBUG = False", "new_string": "DEBUG = True"})]),
        ("three edits in a file", [("MultiEdit", {"file_path": a("src/pkg/invoices.py"), "edits": [
            {"old_string": "Step 0 of invoices", "new_string": "Step zero of invoices"},
            {"old_string": "Step 1 of invoices", "new_string": "Step one of invoices"},
            {"old_string": "Step 2 of invoices", "new_string": "Step two of invoices"}]})]),
        ("one edit in each of two files", [
            ("Edit", {"file_path": a("src/pkg/reports.py"), "old_string": "DEBUG = False", "new_string": "DEBUG = True"}),
            ("Edit", {"file_path": a("src/pkg/core.py"), "old_string": "DEBUG = False", "new_string": "DEBUG = True"})]),
        ("glob", [("Glob", {"pattern": "**/*.py", "path": a(".")})]),
        ("list", [("LS", {"path": a("src/pkg")})]),
        # No rename: the occurrences found with grep (the dry run), then each file edited.
        ("rename: dry run", [("Grep", {"pattern": "compute_total", "path": a("src"), "output_mode": "content", "-n": True})]),
        ("rename: apply", lambda: [("Edit", {"file_path": a(p), "old_string": "compute_total",
                                             "new_string": "sum_values", "replace_all": True})
                                   for p in files_with("compute_total")]),
        ("tree-wide replace", lambda: [("Grep", {"pattern": "math\\.floor", "path": a("."), "output_mode": "files_with_matches"})]
         + [("Edit", {"file_path": a(p), "old_string": "math.floor", "new_string": "math.trunc", "replace_all": True})
            for p in files_with("math.floor")]),
        # No undo: each file of the replace edited back.
        ("undo", lambda: [("Edit", {"file_path": a(p), "old_string": "math.trunc", "new_string": "math.floor", "replace_all": True})
                          for p in files_with("math.trunc")]),
    ]
    return steps


def reply_bytes(result):
    text = sum(len(b.get("text", "").encode()) for b in result.get("content", []) if b.get("type") == "text")
    structured = len(compact(result["structuredContent"]).encode()) if "structuredContent" in result else 0
    return text, structured


def run_workload(binary, table, work):
    root = pathlib.Path(work) / table
    root.mkdir()
    populate(root)
    state = pathlib.Path(work) / f"{table}-state"
    server = Server([binary, "--state-dir", str(state), "serve", "--tools", table, "--root", str(root),
                     "--holder", "agent_surface"], cwd=root)
    rows = []

    def files_with(text):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if text in p.read_text())

    try:
        if table == "filekit":
            for label, tool, args in curated_steps(root):
                result = server.call(tool, args)
                if result.get("isError"):
                    raise RuntimeError(f"{table} {label}: {result['content'][0].get('text', '')}")
                text, structured = reply_bytes(result)
                rows.append((label, 1, text, structured))
        else:
            for label, calls in claude_steps(root, files_with):
                calls = calls() if callable(calls) else calls
                text = structured = 0
                for tool, args in calls:
                    result = server.call(tool, args)
                    if result.get("isError"):
                        raise RuntimeError(f"{table} {label}: {result['content'][0].get('text', '')}")
                    t, s = reply_bytes(result)
                    text, structured = text + t, structured + s
                rows.append((label, len(calls), text, structured))
    finally:
        server.close()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", help="the filekit binary")
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--test-deps", default=str(ROOT / ".test-deps"),
                        help="where scripts/setup-test-deps installed the official server")
    args = parser.parse_args()
    binary = args.bin or next((str(p) for p in (ROOT / "target" / "release" / "filekit",
                                                ROOT / "target" / "debug" / "filekit") if p.exists()), None)
    if not binary:
        sys.exit("no filekit binary: cargo build --release (or pass --bin)")
    out = {"definitions": {}, "workload": {}}

    print("Definitions: bytes of tools/list as compact JSON")
    print(f"{'table':<22}{'tools':>6}{'without output':>16}{'with output':>13}")
    with tempfile.TemporaryDirectory() as empty:
        for table in TABLES + ["all"]:
            server = Server([binary, "--state-dir", os.path.join(empty, "state"), "serve", "--tools", table,
                             "--root", empty])
            tools = server.tools()
            server.close()
            lean, full = definition_bytes(tools)
            out["definitions"][table] = {"tools": len(tools), "without_output": lean, "with_output": full}
            print(f"{table:<22}{len(tools):>6}{lean:>16}{full:>13}")
        # The drop-in tables beside their real tools' definitions, as recorded (and checked
        # against the real packages by the judged tests).
        real = json.loads((ROOT / "crates" / "mcp" / "tests" / "real_tools.json").read_text())
        for table, measured in real["tables"].items():
            mine = out["definitions"][table]["without_output"]
            out["definitions"][table]["real_tools"] = measured["bytes"]
            print(f"{table} / its real tools' {measured['bytes']} B: {mine / measured['bytes']:.2f}x")
        official, node = official_server(pathlib.Path(args.test_deps))
        if official.exists():
            server = Server([node, str(official), empty])
            tools = server.tools()
            server.close()
            lean, full = definition_bytes(tools)
            out["definitions"]["official server-filesystem"] = {"tools": len(tools), "without_output": lean,
                                                                "with_output": full}
            print(f"{'official filesystem':<22}{len(tools):>6}{lean:>16}{full:>13}")
            mine = out["definitions"]["filekit"]
            print(f"curated / official: {mine['without_output'] / lean:.2f}x without output schemas, "
                  f"{mine['with_output'] / full:.2f}x with them")
        else:
            print(f"(the official server is not installed at {official}: scripts/setup-test-deps)")

    print("\nWorkload: model-facing bytes (text content) per step; structured content beside")
    with tempfile.TemporaryDirectory() as work:
        curated = run_workload(binary, "filekit", work)
        claude = run_workload(binary, "claude", work)
    print(f"{'step':<32}{'filekit':>9}{'claude':>9}{'ratio':>7}   {'calls':>5} {'structured':>11}")
    totals = [0, 0, 0, 0]
    for (label, _, ct, cs), (_, calls, kt, ks) in zip(curated, claude):
        ratio = ct / kt if kt else float("inf")
        print(f"{label:<32}{ct:>9}{kt:>9}{ratio:>7.2f}   1/{calls:<3} {cs:>5}/{ks:<5}")
        out["workload"][label] = {"filekit": ct, "claude": kt, "claude_calls": calls,
                                  "filekit_structured": cs, "claude_structured": ks}
        totals = [totals[0] + ct, totals[1] + kt, totals[2] + cs, totals[3] + ks]
    ratio = totals[0] / totals[1]
    print(f"{'total':<32}{totals[0]:>9}{totals[1]:>9}{ratio:>7.2f}   "
          f"{len(curated)}/{sum(c[1] for c in claude):<3} {totals[2]:>5}/{totals[3]:<5}")
    out["workload_total"] = {"filekit": totals[0], "claude": totals[1], "ratio": ratio}
    print("done: the curated table costs no more than the Claude-shaped one" if ratio <= 1 else
          "not yet: the curated table costs more model-facing bytes than the Claude-shaped one")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
