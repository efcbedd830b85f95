"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
scripts/setup-test-deps, run with the Node 22 installed next to it) against `filekit serve
--http`, every server scenario a tools-only server can pass: the ones that need no tool,
resource, prompt, logging or completion of the suite's own (those name tools such as
`test_simple_text` that filekit does not have, or capabilities it does not offer).

The suite's client sends no Authorization header, so the server runs with --http-no-auth (on
loopback, which is the only place that flag is allowed; see SECURITY.md); the bearer token
itself is tested in test_http_guard.py."""

import json
import subprocess

import pytest

from conftest import http_server
from test_schemas import node_deps

# Scenario -> the checks of it that may fail, because they need a tool of the suite's own
# (SEP-1699's polling scenario calls `test_reconnection`; its priming-event and retry-field
# checks, which it makes on the same SSE stream, apply to every server).
SCENARIOS = {
    "server-initialize": set(),
    "ping": set(),
    "tools-list": set(),
    "dns-rebinding-protection": set(),
    "server-sse-multiple-streams": set(),
    "server-sse-polling": {"Received tool response on POST stream"},
}


def run_suite(deps, url, out):
    """One run of the whole suite (every scenario, pending ones included: one Node start, a
    few seconds); the checks of each scenario, by name."""
    run = subprocess.run(
        [str(deps / ".bin" / "node"),
         str(deps / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"),
         "server", "--url", url, "--suite", "all", "-o", str(out)],
        capture_output=True, timeout=300, cwd=out)
    checks = {}
    for scenario in SCENARIOS:
        found = list(out.glob(f"server-{scenario}-*/checks.json"))
        assert len(found) == 1, (scenario, run.stdout.decode()[-3000:], run.stderr.decode())
        checks[scenario] = json.loads(found[0].read_text())
    return checks


def test_the_conformance_suite_passes_every_scenario_of_a_tools_only_server(workspace, tmp_path):
    deps = node_deps()
    (workspace / "a.txt").write_text("alpha\n")
    failed = []
    with http_server(workspace, auth=False) as server:
        results = run_suite(deps, server.url, tmp_path)
    for scenario, checks in results.items():
        may_fail = SCENARIOS[scenario]
        judged = [c for c in checks if c["status"] != "INFO"]
        assert judged, f"{scenario}: no check was judged: {checks}"
        for c in judged:
            if c["status"] == "SUCCESS":
                continue
            if c["description"] in may_fail:
                # The failure is the missing tool, nothing else.
                assert "unknown tool 'test_reconnection'" in json.dumps(c["details"]), c
                continue
            failed.append(f"{scenario}: {c['status']} {c['id']}: {c['description']}: "
                          f"{c.get('errorMessage')} {json.dumps(c.get('details'))[:400]}")
    assert not failed, "\n".join(failed)
