"""Side by side with the real Desktop Commander: the same calls of its file tools go to
`filekit serve --tools desktop-commander` and to @wonderwhy-er/desktop-commander (pinned below;
scripts/setup-test-deps installs it into .test-deps/dc), each on its own fresh copy of one
directory, and their text replies are compared, normalised only for the directory's path and
for times. Every difference is either fixed or listed in DIFFERENCES with why it is
deliberate; the test fails when a listed difference is gone, so the list cannot go stale.

Desktop Commander runs on the Node 22 of .test-deps/mcp-node with HOME set to a temporary
folder whose config turns its telemetry off and allows only the test directory; its feature
flags URL is pointed at a closed local port, so the test uses no network.

Listings are compared as sets of lines: Desktop Commander lists a directory in the order the
file system returns (tmpfs: newest first), filekit by name; the nesting is checked on
filekit's side (each entry right after its directory)."""

import json
import os
import pathlib
import re

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import definition_bytes, stdio_session

pytestmark = pytest.mark.anyio

DC_VERSION = "0.2.52"
REPO = pathlib.Path(__file__).resolve().parents[2]
NODE = REPO / ".test-deps" / "mcp-node" / "node_modules" / ".bin" / "node"
DC_PACKAGE = REPO / ".test-deps" / "dc" / "node_modules" / "@wonderwhy-er" / "desktop-commander"
# The ripgrep its search sessions run (Debian's, unpacked by scripts/setup-test-deps).
RG_BIN = REPO / ".test-deps" / "ripgrep" / "root" / "usr" / "bin"

SIXTY = "".join(f"row {i}\n" for i in range(1, 61))

# (label, tool, arguments); $ROOT is the directory of the side that runs it. In order, on one
# directory per side: later calls see what earlier ones wrote.
CALLS = [
    ("read whole", "read_file", {"path": "$ROOT/a.txt"}),
    ("read range", "read_file", {"path": "$ROOT/a.txt", "offset": 1, "length": 2}),
    ("read tail", "read_file", {"path": "$ROOT/a.txt", "offset": -2}),
    ("read tail longer than the file", "read_file", {"path": "$ROOT/a.txt", "offset": -10}),
    ("read tail ignores length", "read_file", {"path": "$ROOT/a.txt", "offset": -3, "length": 1}),
    ("read past the end", "read_file", {"path": "$ROOT/a.txt", "offset": 10}),
    ("read zero lines", "read_file", {"path": "$ROOT/a.txt", "length": 0}),
    ("read empty file", "read_file", {"path": "$ROOT/empty.txt"}),
    ("read crlf file", "read_file", {"path": "$ROOT/crlf.txt"}),
    ("read without final newline", "read_file", {"path": "$ROOT/tail.txt"}),
    ("read relative path", "read_file", {"path": "a.txt", "offset": 3}),
    ("read directory", "read_file", {"path": "$ROOT/sub"}),
    ("read missing file", "read_file", {"path": "$ROOT/missing.txt"}),
    ("read outside the root", "read_file", {"path": "/etc/hostname"}),
    ("read binary file", "read_file", {"path": "$ROOT/blob.bin"}),
    ("read unknown argument", "read_file", {"path": "$ROOT/a.txt", "lenght": 2}),
    ("read with an encoding it ignores", "read_file", {"path": "$ROOT/a.txt", "encoding": "utf-8"}),
    ("read with a whole-number float offset", "read_file", {"path": "$ROOT/a.txt", "offset": 1.0, "length": 2}),
    ("read a url", "read_file", {"path": "http://127.0.0.1:9/none.txt", "isUrl": True}),
    ("read image", "read_file", {"path": "$ROOT/dot.png"}),
    ("read through a link", "read_file", {"path": "$ROOT/link.txt", "offset": 1}),
    ("read many", "read_multiple_files", {"paths": ["$ROOT/a.txt", "$ROOT/sub/b.md", "$ROOT/dot.png"]}),
    ("read many with a missing one", "read_multiple_files",
     {"paths": ["$ROOT/tail.txt", "$ROOT/missing.txt"]}),
    ("write new file", "write_file", {"path": "$ROOT/new.txt", "content": "hello\n", "mode": "rewrite"}),
    ("write new file without mode", "write_file", {"path": "$ROOT/new2.txt", "content": "x"}),
    ("write over content without mode", "write_file", {"path": "$ROOT/new.txt", "content": "bye\n"}),
    ("write append", "write_file", {"path": "$ROOT/new.txt", "content": "again", "mode": "append"}),
    ("write append to a missing file", "write_file",
     {"path": "$ROOT/log.txt", "content": "first\n", "mode": "append"}),
    ("write rewrite", "write_file", {"path": "$ROOT/a.txt", "content": "ONE\nTWO\n", "mode": "rewrite"}),
    ("write over the line limit", "write_file", {"path": "$ROOT/sixty.txt", "content": SIXTY}),
    ("write outside the root", "write_file", {"path": "/tmp/filekit-dc-peer-never.txt", "content": "x"}),
    ("read after writes", "read_file", {"path": "$ROOT/new.txt"}),
    ("mkdir nested", "create_directory", {"path": "$ROOT/x/y/z"}),
    ("mkdir existing", "create_directory", {"path": "$ROOT/x/y"}),
    ("list depth 1", "list_directory", {"path": "$ROOT", "depth": 1}),
    ("list default depth", "list_directory", {"path": "$ROOT/sub"}),
    ("list depth 3", "list_directory", {"path": "$ROOT/x", "depth": 3}),
    ("list missing", "list_directory", {"path": "$ROOT/nowhere"}),
    ("list a file", "list_directory", {"path": "$ROOT/a.txt"}),
    ("move rename", "move_file", {"source": "$ROOT/new2.txt", "destination": "$ROOT/renamed.txt"}),
    ("move into a directory", "move_file", {"source": "$ROOT/renamed.txt", "destination": "$ROOT/x/renamed.txt"}),
    ("move onto a file", "move_file", {"source": "$ROOT/log.txt", "destination": "$ROOT/tail.txt"}),
    ("move a directory", "move_file", {"source": "$ROOT/x/y", "destination": "$ROOT/moved"}),
    ("move a directory onto an empty one", "move_file",
     {"source": "$ROOT/moved", "destination": "$ROOT/vacant"}),
    ("move a directory onto one with entries", "move_file",
     {"source": "$ROOT/vacant", "destination": "$ROOT/sub"}),
    ("move missing", "move_file", {"source": "$ROOT/missing.txt", "destination": "$ROOT/m.txt"}),
    ("info text file", "get_file_info", {"path": "$ROOT/a.txt"}),
    ("info empty file", "get_file_info", {"path": "$ROOT/empty.txt"}),
    ("info directory", "get_file_info", {"path": "$ROOT/sub"}),
    ("info binary file", "get_file_info", {"path": "$ROOT/blob.bin"}),
    ("info image", "get_file_info", {"path": "$ROOT/dot.png"}),
    ("info latin1 file", "get_file_info", {"path": "$ROOT/latin1.txt"}),
    ("write over a binary file", "write_file", {"path": "$ROOT/blob.bin", "content": "text\n", "mode": "rewrite"}),
    ("info missing", "get_file_info", {"path": "$ROOT/missing.txt"}),
    # Last: the directories it makes on one side only would show in the listings above.
    ("write into a missing directory", "write_file",
     {"path": "$ROOT/made/deep/n.txt", "content": "n\n", "mode": "rewrite"}),
]

# The differences filekit makes on purpose, by call: what each side answers, and why.
DIFFERENCES = {
    "read missing file": "Desktop Commander answers Node's errno text (ENOENT: no such file or "
                         "directory, stat '...'); filekit says the file does not exist and what "
                         "to do (list the directory, names close to it)",
    "read outside the root": "both refuse; Desktop Commander: 'Path not allowed: ... Must be within "
                             "one of these directories', filekit: its sandbox's refusal (the "
                             "path is outside the workspace's roots), with the roots",
    "read binary file": "Desktop Commander tells the model to use start_process (a tool filekit "
                        "does not serve); filekit says what the file is (its kind and size)",
    "read unknown argument": "Desktop Commander strips an unknown argument and reads 1000 lines "
                             "(with a warning line first); filekit refuses the call with the "
                             "closest valid name (`lenght` -> `length`) and does nothing",
    "read with an encoding it ignores": "both read the file; Desktop Commander first says it "
                                        "ignored `encoding` (it reads UTF-8 whatever it says), "
                                        "filekit takes a UTF-8 `encoding` without a word, as it "
                                        "changes nothing (another encoding is refused, since "
                                        "filekit would not read the file in it)",
    "read many with a missing one": "the missing file's error in filekit's words (see 'read "
                                    "missing file')",
    "read a url": "both fail and read nothing; Desktop Commander fetches the URL (here a closed "
                  "port of this machine: its fetch error), filekit reads no URLs by design (no "
                  "network) and says so, with the way to read a local copy",
    "write into a missing directory": "Desktop Commander fails (ENOENT); filekit makes the "
                                      "missing parent directories, as its other writers do",
    "write outside the root": "both refuse, each in its own words (see 'read outside the root')",
    "list a file": "Desktop Commander lists a file as '[DENIED] a.txt' (readdir's ENOTDIR); filekit "
                   "says it is a file, not a directory, and to read it instead",
    "move missing": "Node's errno text (ENOENT: ..., rename '...' -> '...') against filekit's: the "
                    "source does not exist",
    "move a directory onto one with entries": "both refuse and move nothing; Node's errno text "
                                              "(ENOTEMPTY: directory not empty, rename '...' -> "
                                              "'...') against filekit's: the destination is a "
                                              "directory with entries, only an empty one is "
                                              "replaced",
    "write over a binary file": "both refuse and leave it; Desktop Commander points to start_process "
                                "(not served by filekit), filekit says it is a binary file",
    "info missing": "Node's errno text (ENOENT: ..., stat '...') against filekit's: the file does "
                    "not exist",
}

# Calls whose replies are listings: compared as sets of lines (see the module's docstring).
LISTINGS = {"read directory", "list depth 1", "list default depth", "list depth 3"}

# Paths that differ between the two trees at the end because of a listed difference.
TREE_DIFFERENCES = {"made", "made/deep", "made/deep/n.txt"}

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def populate(root):
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    (root / "empty.txt").write_text("")
    (root / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (root / "tail.txt").write_text("no newline\nat the end")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (root / "latin1.txt").write_bytes(b"caf\xe9 cr\xe8me\nna\xefve\n")
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "vacant").mkdir()
    (root / "sub" / "b.md").write_text("# B\n\ntext\n")
    (root / "sub" / "deeper" / "c.txt").write_text("c\n")
    (root / "sub" / ".hidden").write_text("h\n")
    (root / "link.txt").symlink_to("a.txt")
    # A 1x1 PNG.
    (root / "dot.png").write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082"))


def dc_params(tmp_path, root):
    if (not (DC_PACKAGE / "dist" / "index.js").exists() or not NODE.exists()
            or not (RG_BIN / "rg").exists()):
        pytest.fail(f"{DC_PACKAGE}, {NODE} or {RG_BIN}/rg is missing: run scripts/setup-test-deps "
                    f"(it installs @wonderwhy-er/desktop-commander {DC_VERSION} into .test-deps/dc, "
                    "Node 22 into .test-deps/mcp-node and ripgrep into .test-deps/ripgrep)")
    installed = json.loads((DC_PACKAGE / "package.json").read_text())["version"]
    assert installed == DC_VERSION, f"Desktop Commander {installed} installed, {DC_VERSION} pinned"
    home = tmp_path / "dc-home"
    config = home / ".claude-server-commander"
    config.mkdir(parents=True)
    (config / "config.json").write_text(json.dumps(
        {"allowedDirectories": [str(root)], "telemetryEnabled": False}))
    return StdioServerParameters(
        command=str(NODE), args=[str(DC_PACKAGE / "dist" / "index.js")], cwd=str(root),
        env={"HOME": str(home), "PATH": f"{RG_BIN}:{os.environ.get('PATH', '')}",
             "DESKTOP_COMMANDER_DISABLE_TELEMETRY": "true",
             # Its feature flags are fetched in the background: a closed local port, no network.
             "DC_FLAG_URL": "http://127.0.0.1:9/flags.json"})


def with_root(value, root):
    return json.loads(json.dumps(value).replace("$ROOT", str(root)))


async def run_calls(session, root):
    out = {}
    for label, tool, args in CALLS:
        result = await session.call_tool(tool, with_root(args, root))
        text = "".join(c.text for c in result.content if c.type == "text")
        out[label] = (bool(result.isError), TIME.sub("$TIME", text.replace(str(root), "$ROOT")))
    return out


def tree(root):
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in root.rglob("*") if ".filekit" not in p.relative_to(root).parts}


def comparable(label, reply):
    is_error, text = reply
    return (is_error, sorted(text.splitlines())) if label in LISTINGS else reply


async def test_desktop_commanders_file_tools_answer_as_the_real_package(tmp_path):
    dc_root, fk_root = tmp_path / "dc", tmp_path / "fk"
    for root in (dc_root, fk_root):
        root.mkdir()
        populate(root)
    async with stdio_client(dc_params(tmp_path, dc_root)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            their_tools = {t.name: t for t in (await session.list_tools()).tools}
            assert {tool for _, tool, _ in CALLS} <= set(their_tools)
            theirs = await run_calls(session, dc_root)
    async with stdio_session(fk_root, "--tools", "desktop-commander") as session:
        our_tools = (await session.list_tools()).tools
        ours = await run_calls(session, fk_root)

    # The tools both serve cost an agent's session no more than the real package's
    # definitions of them: at most 1.1x, without and with output schemas. (batch_edit_blocks
    # and write_from_line are filekit's own additions to the table.)
    shared = [t for t in our_tools if t.name in their_tools]
    assert len(shared) >= 12, [t.name for t in shared]
    # A tool declares an output schema (and sends structured content) where the real one does:
    # none of the real package's does.
    assert ({t.name for t in shared if t.outputSchema}
            == {t.name for t in shared if their_tools[t.name].outputSchema})
    for outputs in (False, True):
        mine = definition_bytes(shared, outputs)
        real = definition_bytes([their_tools[t.name] for t in shared], outputs)
        assert mine <= 1.1 * real, f"definitions (output schemas {outputs}): {mine} B, the real package's {real} B"

    unexplained = {label: {"desktop-commander": theirs[label], "filekit": ours[label]}
                   for label, _, _ in CALLS
                   if label not in DIFFERENCES
                   and comparable(label, theirs[label]) != comparable(label, ours[label])}
    assert not unexplained, json.dumps(unexplained, indent=1, ensure_ascii=False)
    gone = [label for label in DIFFERENCES if theirs[label] == ours[label]]
    assert not gone, f"listed as different but answered alike (remove from DIFFERENCES): {gone}"
    for label in DIFFERENCES:
        assert label in {c[0] for c in CALLS}, label

    # filekit's listings are in walk order: every entry right after its directory's entries.
    for label in LISTINGS:
        names = [line.split(" ", 1)[1] for line in ours[label][1].splitlines()
                 if line.startswith("[")]
        for i, name in enumerate(names):
            parent = name.rsplit("/", 1)[0] if "/" in name else None
            assert parent is None or parent in names[:i], (label, name)
        assert names == sorted(names, key=lambda n: n.split("/")), (label, names)

    # Both calls sequences left the same files (but where a listed difference wrote).
    ours_tree, theirs_tree = tree(fk_root), tree(dc_root)
    for path in TREE_DIFFERENCES:
        ours_tree.pop(path, None)
        theirs_tree.pop(path, None)
    assert ours_tree == theirs_tree
    assert not pathlib.Path("/tmp/filekit-dc-peer-never.txt").exists()


# ---------------------------------------------------------------------------------------------
# The search sessions: start_search, get_more_search_results, stop_search, list_searches.
#
# Desktop Commander's start_search answers after ripgrep's first output or 40 ms, usually
# before ripgrep has ended: its reply then says RUNNING with the results so far. filekit's
# search runs to its end inside start_search (COMPLETED, every result). So a start_search is
# compared with that tolerance (`search_alike`), and before the next call the test waits for
# Desktop Commander's session to complete (polling list_searches), so that the pages, the lists
# and the stops that follow are compared whole. ripgrep searches files in parallel and prints
# them in the order it finishes them: a reply that lists several files is compared as a set of
# lines; pages (offset, length) are taken of a one-file search, whose order is the file's.

LOG = "".join(f"todo {i}\nplain {i}\n" for i in range(1, 8))

SEARCH_CALLS = [
    ("files by a part of the name", "start_search", {"path": "$ROOT", "pattern": "util"}),
    ("files by glob", "start_search", {"path": "$ROOT", "pattern": "*.ts"}),
    ("files by exact name", "start_search", {"path": "$ROOT", "pattern": "app.ts"}),
    ("files case-sensitive", "start_search",
     {"path": "$ROOT", "pattern": "README", "ignoreCase": False}),
    ("files hidden too", "start_search", {"path": "$ROOT", "pattern": "secret", "includeHidden": True}),
    ("content in several files", "start_search",
     {"path": "$ROOT/src", "pattern": "todo", "searchType": "content", "contextLines": 0}),
    ("content literal, case-sensitive, one type", "start_search",
     {"path": "$ROOT/src", "pattern": "TODO(", "searchType": "content", "literalSearch": True,
      "ignoreCase": False, "filePattern": "*.ts", "contextLines": 0}),
    ("content with context", "start_search",
     {"path": "$ROOT/notes", "pattern": "todo", "searchType": "content", "contextLines": 1}),
    ("content with no match", "start_search",
     {"path": "$ROOT/src", "pattern": "nowhere to be found", "searchType": "content"}),
    ("page: default", "get_more_search_results", {"sessionId": "$SESSION8"}),
    ("page: offset and length", "get_more_search_results",
     {"sessionId": "$SESSION8", "offset": 2, "length": 3}),
    ("page: the tail", "get_more_search_results", {"sessionId": "$SESSION8", "offset": -2}),
    ("page: the tail longer than the results", "get_more_search_results",
     {"sessionId": "$SESSION8", "offset": -100}),
    ("page: past the end", "get_more_search_results", {"sessionId": "$SESSION8", "offset": 500}),
    ("page: a fractional offset", "get_more_search_results",
     {"sessionId": "$SESSION8", "offset": 1.0, "length": 2}),
    # Each search's results whole (start_search showed them as far as ripgrep had got).
    ("page: a part of the name", "get_more_search_results", {"sessionId": "$SESSION1"}),
    ("page: an exact name", "get_more_search_results", {"sessionId": "$SESSION3"}),
    ("page: case-sensitive", "get_more_search_results", {"sessionId": "$SESSION4"}),
    ("page: hidden too", "get_more_search_results", {"sessionId": "$SESSION5"}),
    ("page: literal", "get_more_search_results", {"sessionId": "$SESSION7"}),
    ("page: of several files", "get_more_search_results", {"sessionId": "$SESSION6"}),
    ("page: of a name search", "get_more_search_results", {"sessionId": "$SESSION2"}),
    ("page: of no results", "get_more_search_results", {"sessionId": "$SESSION9"}),
    ("page: an unknown session", "get_more_search_results", {"sessionId": "search_99_1"}),
    ("list", "list_searches", {}),
    ("stop", "stop_search", {"sessionId": "$SESSION8"}),
    ("page after the stop", "get_more_search_results",
     {"sessionId": "$SESSION8", "offset": 0, "length": 1}),
    ("stop an unknown session", "stop_search", {"sessionId": "search_99_1"}),
    ("start without a pattern", "start_search", {"path": "$ROOT"}),
    ("page without a session", "get_more_search_results", {}),
    # After the list: its session finds more on Desktop Commander's side.
    ("files with a filePattern", "start_search",
     {"path": "$ROOT", "pattern": "app", "filePattern": "*.ts"}),
    ("page: names with a filePattern", "get_more_search_results", {"sessionId": "$SESSION10"}),
    # Last: Desktop Commander starts a session for each (filekit refuses them), so that the
    # session numbers above stay alike.
    ("start in a missing directory", "start_search", {"path": "$ROOT/nowhere", "pattern": "x"}),
    ("start outside the root", "start_search", {"path": "/etc", "pattern": "hostname"}),
    ("start with a bad regex", "start_search",
     {"path": "$ROOT/src", "pattern": "todo(", "searchType": "content"}),
]

# The differences filekit makes on purpose, by call: what each side answers, and why.
SEARCH_DIFFERENCES = {
    "page: an unknown session": "both fail; Desktop Commander: 'Search session ... not found', "
                                "filekit adds why (sessions live in a server process; a "
                                "`filekit call` process does not outlive its call) and what to do",
    "page: names with a filePattern": "ripgrep takes a name that either glob matches (app.config.ts, "
                                     "app.ts and util.ts); filekit takes a name that both match: "
                                     "the pattern names the files, filePattern narrows them",
    "start without a pattern": "both refuse; Desktop Commander shows zod's error list, filekit "
                               "names the missing argument and what start_search takes",
    "page without a session": "both refuse (see 'start without a pattern')",
    "start in a missing directory": "Desktop Commander starts a search that finds nothing (ripgrep "
                                    "complains to itself); filekit refuses it: the directory "
                                    "does not exist, with what is there",
    "start outside the root": "both refuse, each in its own words (Desktop Commander: 'Path not "
                              "allowed', filekit: its sandbox's refusal, with the roots)",
    "start with a bad regex": "Desktop Commander starts a search that finds nothing (ripgrep's "
                              "regex error goes unseen); filekit refuses the pattern, showing "
                              "where it is wrong",
}

# Replies that list several files: compared as sets of lines.
SEARCH_LISTINGS = {"files by glob", "files hidden too", "content in several files",
                   "page: of several files", "page: of a name search",
                   "page: names with a filePattern"}

SESSION = re.compile(r"search_(\d+)_\d+")
RUNTIME = re.compile(r"Runtime: \d+(ms|s)")


def populate_search(root):
    (root / "src").mkdir()
    (root / "src" / "app.ts").write_text("const a = 1;\n// TODO(me): first\nexport function main() {}\n")
    (root / "src" / "util.ts").write_text("// todo later\nexport const b = 2;\n")
    (root / "src" / "README.md").write_text("# Notes\nTODO in markdown\n")
    (root / "notes").mkdir()
    (root / "notes" / "log.txt").write_text(LOG)
    (root / "app.config.ts").write_text("export default {};\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.ts").write_text("todo hidden\n")


def normalised(text, root):
    text = TIME.sub("$TIME", text.replace(str(root), "$ROOT"))
    return RUNTIME.sub(lambda m: f"Runtime: $N{m.group(1)}", SESSION.sub(r"search_\1_$T", text))


async def wait_until_complete(session):
    """Polls Desktop Commander's list_searches until no session is running (ripgrep ended)."""
    for _ in range(200):
        listed = await session.call_tool("list_searches", {})
        if "RUNNING" not in "".join(c.text for c in listed.content if c.type == "text"):
            return
        await anyio.sleep(0.05)
    raise AssertionError(f"Desktop Commander's searches still run: {listed}")


async def run_search_calls(session, root, real):
    out, sessions = {}, {}
    for label, tool, args in SEARCH_CALLS:
        args = with_root(args, root)
        for key, value in list(args.items()):
            if isinstance(value, str) and value.startswith("$SESSION"):
                args[key] = sessions[int(value[len("$SESSION"):])]
        result = await session.call_tool(tool, args)
        text = "".join(c.text for c in result.content if c.type == "text")
        if tool == "start_search" and not result.isError:
            found = SESSION.search(text)
            sessions[int(found.group(1))] = found.group(0)
            if real:
                await wait_until_complete(session)
        out[label] = (bool(result.isError), [c.type for c in result.content], normalised(text, root))
    return out


# A start_search of Desktop Commander's that answered before ripgrep ended: its status line,
# its closing line and its count of results say so.
RUNNING = [("Status: RUNNING", "Status: COMPLETED"),
           ("🔄 Search in progress. Use get_more_search_results to get more results.",
            "✅ Search completed.")]


def search_alike(label, theirs, ours):
    """Whether two replies agree: exactly, as sets of lines for SEARCH_LISTINGS, and for a
    start_search Desktop Commander answered while its search ran, when its
    results so far are among filekit's (all of them) and its count is at most filekit's."""
    if theirs[:2] != ours[:2]:
        return False
    their_text, our_text = theirs[2], ours[2]
    if "Status: RUNNING" in their_text:
        for running, complete in RUNNING:
            their_text = their_text.replace(running, complete)
        count = re.compile(r"Total results: (\d+)\n")
        their_count, our_count = count.search(their_text), count.search(our_text)
        if not their_count or not our_count or int(their_count[1]) > int(our_count[1]):
            return False
        their_lines = [line for line in their_text.splitlines()
                       if not line.startswith(("Total results:", "... and ", "Initial results:"))
                       and line]
        our_lines = set(our_text.splitlines())
        return all(line in our_lines for line in their_lines)
    if label in SEARCH_LISTINGS:
        return sorted(their_text.splitlines()) == sorted(our_text.splitlines())
    return their_text == our_text


async def test_desktop_commanders_search_sessions_answer_as_the_real_package(tmp_path):
    dc_root, fk_root = tmp_path / "dc", tmp_path / "fk"
    for root in (dc_root, fk_root):
        root.mkdir()
        populate_search(root)
    async with stdio_client(dc_params(tmp_path, dc_root)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            theirs = await run_search_calls(session, dc_root, real=True)
    async with stdio_session(fk_root, "--tools", "desktop-commander") as session:
        ours = await run_search_calls(session, fk_root, real=False)

    unexplained = {label: {"desktop-commander": theirs[label], "filekit": ours[label]}
                   for label, _, _ in SEARCH_CALLS
                   if label not in SEARCH_DIFFERENCES
                   and not search_alike(label, theirs[label], ours[label])}
    assert not unexplained, json.dumps(unexplained, indent=1, ensure_ascii=False)
    gone = [label for label in SEARCH_DIFFERENCES if theirs[label] == ours[label]]
    assert not gone, f"listed as different but answered alike (remove from SEARCH_DIFFERENCES): {gone}"
    for label in SEARCH_DIFFERENCES:
        assert label in {c[0] for c in SEARCH_CALLS}, label
        # Where both refuse, both flag it.
        assert theirs[label][0] == ours[label][0] or label in (
            "start in a missing directory", "start with a bad regex"), (label, theirs[label], ours[label])
    # A search leaves the tree as it was.
    assert tree(fk_root) == tree(dc_root)
