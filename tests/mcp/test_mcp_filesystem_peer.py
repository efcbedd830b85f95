"""Side by side with the official MCP filesystem server: `filekit serve --tools mcp-filesystem
--root DIR` and `@modelcontextprotocol/server-filesystem DIR` (the npm release pinned in
scripts/setup-test-deps, in .test-deps/mcp-filesystem), each on its own fresh copy of the same
directory, get the same calls over MCP stdio (every tool, happy paths and bad inputs, in one
order, so that writes change both copies alike), and their text replies are compared.

Normalised, and only that: the root's path (each server's own directory), times (file dates
differ by when each copy was made), and the order of entries that the official server gives
in readdir's order (which the file system decides: filekit sorts by name). Every remaining
difference is listed in DIFFERENCES with the reason filekit differs on purpose; the test fails
when a listed call no longer differs (the list cannot go stale) and when an unlisted one does.
"""

import json
import os
import pathlib
import re

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import definition_bytes, stdio_session

pytestmark = pytest.mark.anyio

REPO = pathlib.Path(__file__).resolve().parents[2]
PEER = (REPO / ".test-deps" / "mcp-filesystem" / "node_modules" / "@modelcontextprotocol"
        / "server-filesystem" / "dist" / "index.js")
NODE22 = REPO / ".test-deps" / "mcp-node" / "node_modules" / ".bin" / "node"

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082")

# A WAV file: a RIFF header and four samples.
WAV = (b"RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00"
       b"\x80\x3e\x00\x00\x02\x00\x10\x00data\x08\x00\x00\x00\x00\x00\x01\x00\x02\x00\x03\x00")


def populate(root):
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef handler(x):\n    y = x\n    z = y\n    return z\n")
    (root / "src" / "util.ts").write_text("export const getUser = 1;\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n\nRead me.\n")
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\n")
    (root / "dup.txt").write_text("x = 1\ny\nx = 1\n")
    # Where the two servers' edits differ on purpose: no later call shows these files' sizes
    # or contents.
    (root / "scratch").mkdir()
    (root / "scratch" / "dup.txt").write_text("x = 1\ny\nx = 1\n")
    (root / "scratch" / "indent.py").write_text(
        "def handler(x):\n    if x:\n        return x + 1\n    return 0\n")
    (root / "scratch" / "keys.txt").write_text("gamma\n")
    (root / "big.txt").write_text("z" * 3000)
    (root / "dot.png").write_bytes(PNG)
    (root / "latin1.txt").write_bytes(b"caf\xe9 cr\xe8me\nna\xefve\n")
    (root / "caf\u00e9.txt").write_text("composed\n")
    (root / "sound.wav").write_bytes(WAV)
    (root / "empty.txt").write_text("")
    # Links that lead out of the root: a directory and a file of the test's own, outside it.
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (root / "links").mkdir()
    (root / "links" / "out").symlink_to(outside)
    (root / "links" / "out.txt").symlink_to(outside / "secret.txt")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.js").write_text("module.exports = 1;\n")


# (label, tool, arguments): `$ROOT` stands for each server's own root. In order: the writes
# change both copies the same way.
CALLS = [
    ("list allowed", "list_allowed_directories", {}),
    ("read whole", "read_text_file", {"path": "$ROOT/notes.txt"}),
    ("read relative", "read_text_file", {"path": "notes.txt"}),
    ("read head", "read_text_file", {"path": "$ROOT/notes.txt", "head": 2}),
    ("read head past the end", "read_text_file", {"path": "$ROOT/notes.txt", "head": 50}),
    ("read tail", "read_text_file", {"path": "$ROOT/notes.txt", "tail": 2}),
    ("read tail past the start", "read_text_file", {"path": "$ROOT/notes.txt", "tail": 50}),
    ("read head zero", "read_text_file", {"path": "$ROOT/notes.txt", "head": 0}),
    ("read negative head", "read_text_file", {"path": "$ROOT/notes.txt", "head": -1}),
    ("read through a link out", "read_text_file", {"path": "$ROOT/links/out/secret.txt"}),
    ("read a link out", "read_text_file", {"path": "$ROOT/links/out.txt"}),
    ("read head and tail", "read_text_file", {"path": "$ROOT/notes.txt", "head": 1, "tail": 1}),
    ("read missing", "read_text_file", {"path": "$ROOT/missing.txt"}),
    ("read a typo", "read_text_file", {"path": "$ROOT/notes.tx"}),
    ("read outside", "read_text_file", {"path": "/etc/hostname"}),
    ("read dot dot", "read_text_file", {"path": "$ROOT/../escape.txt"}),
    ("read a directory", "read_text_file", {"path": "$ROOT/src"}),
    ("read binary", "read_text_file", {"path": "$ROOT/dot.png"}),
    ("read unknown argument", "read_text_file", {"path": "$ROOT/notes.txt", "lines": 3}),
    ("read no path", "read_text_file", {}),
    ("deprecated read_file", "read_file", {"path": "$ROOT/notes.txt"}),
    ("read multiple", "read_multiple_files",
     {"paths": ["$ROOT/notes.txt", "$ROOT/missing.txt", "src/util.ts"]}),
    ("read multiple empty", "read_multiple_files", {"paths": []}),
    ("media image", "read_media_file", {"path": "$ROOT/dot.png"}),
    ("media missing", "read_media_file", {"path": "$ROOT/missing.png"}),
    ("media text", "read_media_file", {"path": "$ROOT/notes.txt"}),
    ("write new", "write_file", {"path": "$ROOT/new.txt", "content": "hello\n"}),
    ("write over", "write_file", {"path": "new.txt", "content": "hello again\n"}),
    ("write missing dir", "write_file", {"path": "$ROOT/no/such/x.txt", "content": "x"}),
    ("write outside", "write_file", {"path": "/tmp/../etc/filekit-peer-test", "content": "x"}),
    ("write content missing", "write_file", {"path": "$ROOT/new.txt"}),
    ("write into .git", "write_file", {"path": "$ROOT/.git/config", "content": "[x]\n"}),
    ("write onto a directory", "write_file", {"path": "$ROOT/docs", "content": "x"}),
    ("write through a link out", "write_file", {"path": "$ROOT/links/out/planted.txt", "content": "x"}),
    ("write onto a link out", "write_file", {"path": "$ROOT/links/out.txt", "content": "x"}),
    ("edit exact dry run", "edit_file",
     {"path": "$ROOT/notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}], "dryRun": True}),
    ("edit exact", "edit_file",
     {"path": "$ROOT/notes.txt", "edits": [{"oldText": "beta\n", "newText": "BETA\n"}]}),
    ("edit in order", "edit_file",
     {"path": "$ROOT/notes.txt", "edits": [{"oldText": "alpha", "newText": "ALPHA"},
                                           {"oldText": "ALPHA\nBETA", "newText": "AB"}]}),
    ("edit indentation tolerated", "edit_file",
     {"path": "$ROOT/src/app.py",
      "edits": [{"oldText": "  y = x\n  z = y", "newText": "  y = x * 2\n  z = y"}]}),
    ("edit inconsistent indentation", "edit_file",
     {"path": "$ROOT/scratch/indent.py",
      "edits": [{"oldText": "def handler(x):\nif x:", "newText": "def handler(y):\nif y:"}]}),
    ("edit indentation kept", "edit_file",
     {"path": "$ROOT/scratch/indent.py",
      "edits": [{"oldText": "if x:\n    return x + 1", "newText": "if x:\n    return x + 2"}]}),
    ("edit not found", "edit_file",
     {"path": "$ROOT/notes.txt", "edits": [{"oldText": "epsilon", "newText": "E"}]}),
    ("edit ambiguous", "edit_file",
     {"path": "$ROOT/scratch/dup.txt", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
    ("edit ambiguous made unique", "edit_file",
     {"path": "$ROOT/dup.txt", "edits": [{"oldText": "x = 1\ny", "newText": "x = 2\ny"}]}),
    ("edit no edits", "edit_file", {"path": "$ROOT/dup.txt", "edits": []}),
    ("edit empty old text", "edit_file",
     {"path": "$ROOT/scratch/keys.txt", "edits": [{"oldText": "", "newText": "top\n"}]}),
    ("edit a directory", "edit_file",
     {"path": "$ROOT/src", "edits": [{"oldText": "a", "newText": "b"}]}),
    ("edit missing file", "edit_file",
     {"path": "$ROOT/missing.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
    ("edit unknown key", "edit_file",
     {"path": "$ROOT/scratch/keys.txt", "edits": [{"oldText": "gamma", "newText": "G", "all": True}]}),
    ("edit near miss", "edit_file",
     {"path": "$ROOT/notes.txt", "edits": [{"oldText": "gamma\ndeltaa", "newText": "G"}]}),
    ("mkdir nested", "create_directory", {"path": "$ROOT/made/deep/dir"}),
    ("mkdir existing", "create_directory", {"path": "src"}),
    ("mkdir over a file", "create_directory", {"path": "$ROOT/notes.txt"}),
    ("mkdir under a file", "create_directory", {"path": "$ROOT/notes.txt/sub"}),
    ("mkdir outside", "create_directory", {"path": "$ROOT/../made-outside"}),
    ("list root", "list_directory", {"path": "$ROOT"}),
    ("list missing", "list_directory", {"path": "$ROOT/nope"}),
    ("list a file", "list_directory", {"path": "$ROOT/notes.txt"}),
    ("sizes by name", "list_directory_with_sizes", {"path": "$ROOT"}),
    ("sizes by size", "list_directory_with_sizes", {"path": "$ROOT/src", "sortBy": "size"}),
    ("sizes bad sort", "list_directory_with_sizes", {"path": "$ROOT", "sortBy": "date"}),
    ("tree", "directory_tree", {"path": "$ROOT/src"}),
    ("tree excluding", "directory_tree",
     {"path": "$ROOT", "excludePatterns": ["node_modules", "*.png", "made", "scratch", ".git"]}),
    ("move rename", "move_file", {"source": "$ROOT/new.txt", "destination": "$ROOT/renamed.txt"}),
    ("move onto existing", "move_file", {"source": "$ROOT/renamed.txt", "destination": "$ROOT/notes.txt"}),
    ("move missing", "move_file", {"source": "$ROOT/gone.txt", "destination": "$ROOT/g2.txt"}),
    ("move into missing dir", "move_file",
     {"source": "$ROOT/renamed.txt", "destination": "$ROOT/nowhere/r.txt"}),
    ("move a directory", "move_file", {"source": "$ROOT/made/deep", "destination": "$ROOT/made/moved"}),
    ("mkdir to move onto", "create_directory", {"path": "$ROOT/made/vacant"}),
    ("move a directory onto an empty one", "move_file",
     {"source": "$ROOT/made/moved", "destination": "$ROOT/made/vacant"}),
    ("move out of the root", "move_file", {"source": "$ROOT/renamed.txt", "destination": "/tmp/../filekit-peer-out.txt"}),
    ("search deep", "search_files", {"path": "$ROOT", "pattern": "**/*.md"}),
    ("search top", "search_files", {"path": "$ROOT", "pattern": "*.txt"}),
    ("search excluding", "search_files",
     {"path": "$ROOT", "pattern": "**/*.js", "excludePatterns": ["node_modules"]}),
    ("search directories", "search_files", {"path": "$ROOT", "pattern": "**/src"}),
    ("search excluding a name glob", "search_files",
     {"path": "$ROOT/src", "pattern": "**/*", "excludePatterns": ["*.ts"]}),
    ("search excluding a nested name glob", "search_files",
     {"path": "$ROOT", "pattern": "src/*", "excludePatterns": ["*.ts"]}),
    ("info file", "get_file_info", {"path": "$ROOT/notes.txt"}),
    ("info directory", "get_file_info", {"path": "$ROOT/src"}),
    ("info missing", "get_file_info", {"path": "$ROOT/gone"}),
    ("info outside", "get_file_info", {"path": "/etc"}),
    ("sizes of links", "list_directory_with_sizes", {"path": "$ROOT/links"}),
    ("search links", "search_files", {"path": "$ROOT/links", "pattern": "*"}),
    ("search a file", "search_files", {"path": "$ROOT/notes.txt", "pattern": "*"}),
    ("tree missing", "directory_tree", {"path": "$ROOT/nope"}),
    ("read latin1", "read_text_file", {"path": "$ROOT/latin1.txt"}),
    ("read latin1 tail", "read_text_file", {"path": "$ROOT/latin1.txt", "tail": 1}),
    ("read latin1 among others", "read_multiple_files", {"paths": ["latin1.txt", "notes.txt"]}),
    ("info latin1", "get_file_info", {"path": "$ROOT/latin1.txt"}),
    ("read an nfd name of an nfc file", "read_text_file", {"path": "$ROOT/cafe\u0301.txt"}),
    ("media audio", "read_media_file", {"path": "$ROOT/sound.wav"}),
    ("media other", "read_media_file", {"path": "$ROOT/docs/guide.md"}),
    ("write a windows path", "write_file", {"path": "C:\\Users\\me\\x.txt", "content": "x"}),
    ("read a windows path", "read_text_file", {"path": "C:/notes.txt"}),
    ("edit fills an empty file", "edit_file",
     {"path": "$ROOT/empty.txt", "edits": [{"oldText": "", "newText": "filled\n"}]}),
    ("read with encoding utf-8", "read_text_file", {"path": "$ROOT/notes.txt", "encoding": "utf-8"}),
    ("edit with replaceAll", "edit_file",
     {"path": "$ROOT/docs/guide.md", "edits": [{"oldText": "Read me.", "newText": "Read me!", "replaceAll": True}]}),
    ("tree excluding a star glob", "directory_tree", {"path": "$ROOT/src", "excludePatterns": ["*.ts"]}),
    ("search excluding a top-level md", "search_files",
     {"path": "$ROOT", "pattern": "**/*.md", "excludePatterns": ["*.md"]}),
]

# label -> why filekit answers otherwise, on purpose.
REFUSES_UNKNOWN = ("filekit refuses an argument the tool does not take, naming the closest valid "
                   "one, and does nothing; the server's schema strips it and goes on")
CLEARER_REJECTION = ("a missing or mistyped argument: filekit names the argument, what it takes "
                     "and what to do, where the server answers with zod's validation error")
NEAR_NAMES = ("a missing file: after Node's ENOENT text, filekit names the existing paths of "
              "similar names")
LATIN1 = ("a file in another encoding is shown decoded (café), the text edit_file matches; the "
          "server shows each byte that is not UTF-8 as U+FFFD (caf\ufffd), which no oldText can "
          "name")
DIFFERENCES = {
    "read tail": "tail N gives the last N lines; the server's tailFile counts the empty string "
                 "after the final newline as a line, so it gives one line fewer",
    "read latin1": LATIN1,
    "read latin1 tail": LATIN1 + "; and as \"read tail\": the last N lines, where the server's "
                        "tailFile counts the empty string after the final newline as a line",
    "read latin1 among others": LATIN1,
    "read a typo": NEAR_NAMES,
    "read binary": "a binary file is refused with what it is (and read_media_file named), not "
                   "decoded as garbled UTF-8",
    "read unknown argument": REFUSES_UNKNOWN,
    "read no path": CLEARER_REJECTION,
    "read multiple empty": CLEARER_REJECTION,
    "write content missing": CLEARER_REJECTION,
    "sizes bad sort": CLEARER_REJECTION,
    "edit indentation kept": "a line matched with other indentation: the new lines keep their "
                             "indentation relative to the first (the server indents every "
                             "line after the first like the first, which breaks the Python "
                             "block here)",
    "edit inconsistent indentation": "lines whose indentation differs from the file's by "
                                     "different amounts are not matched (the near miss shows "
                                     "where); the server matches them trimmed and writes the "
                                     "new lines unindented, breaking the Python block",
    "read negative head": "a negative head is refused as not a number of lines; the server "
                          "answers with an empty text",
    "write into .git": "filekit does not write inside .git/ (git's own data) unless started "
                       "with --allow-git-writes, and says so; the server writes there",
    "write onto a directory": "a write onto a directory names the directory; the server's "
                              "text names its temporary file (a random name)",
    "write through a link out": "a path through a link that leads out names where it leads: the "
                                "link's target and the rest of the path, without looking "
                                "outside the allowed directories (the server names the part "
                                "that exists out there)",
    "sizes of links": "a symbolic link's size is its own: filekit does not look at what a link "
                      "points to out of the allowed directories (the server stats the target)",
    "search links": "a symbolic link whose name matches is listed (using it is refused when it "
                    "leads out); the server leaves out links that lead out",
    "edit ambiguous": "an oldText found in several places is refused with the lines where; the "
                      "server edits the first",
    "edit unknown key": REFUSES_UNKNOWN,
    "write a windows path": "the server's text, then a hint of the paths this host takes",
    "read a windows path": "the server's text, then a hint of the paths this host takes",
    "edit near miss": "an oldText not found: after the server's text, filekit shows the closest "
                      "text in the file and what differs",
}

DATE = re.compile(r"\w{3} \w{3} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4} \([^)]*\)")
UNORDERED = {"list_directory", "search_files"}


def rooted(value, root):
    if isinstance(value, str):
        return value.replace("$ROOT", str(root))
    if isinstance(value, list):
        return [rooted(v, root) for v in value]
    if isinstance(value, dict):
        return {k: rooted(v, root) for k, v in value.items()}
    return value


def sort_tree(entries):
    for e in entries:
        if "children" in e:
            sort_tree(e["children"])
    entries.sort(key=lambda e: e["name"])
    return entries


def normalised(tool, result, root):
    """What the model reads, with the root as <ROOT>, dates as <DATE>, readdir's order sorted."""
    parts = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type in ("image", "audio"):
            parts.append(f"<{block.type} {block.mimeType} {block.data}>")
        elif block.type == "resource":
            r = block.resource
            parts.append(f"<resource {r.uri} {r.mimeType} {getattr(r, 'blob', None)}>")
        else:
            parts.append(f"<{block.type}>")
    text = "\n".join(parts).replace(str(root), "<ROOT>").replace(str(root.parent), "<PARENT>")
    text = DATE.sub("<DATE>", text)
    if not result.isError and tool in UNORDERED:
        text = "\n".join(sorted(text.split("\n")))
    if not result.isError and tool == "directory_tree":
        text = json.dumps(sort_tree(json.loads(text)), indent=2)
    return result.isError, text


def peer_server():
    if not PEER.exists():
        pytest.fail(f"{PEER} is missing: run scripts/setup-test-deps (it installs the official "
                    "MCP filesystem server into .test-deps/mcp-filesystem)")
    return str(NODE22) if NODE22.exists() else "node"


async def replies(session, root):
    out = {}
    for label, tool, args in CALLS:
        result = await session.call_tool(tool, rooted(args, root))
        out[label] = normalised(tool, result, root)
    return out


async def test_filekit_answers_as_the_official_server_but_where_listed(tmp_path):
    node = peer_server()
    theirs_root = tmp_path / "official" / "ws"
    ours_root = tmp_path / "filekit" / "ws"
    for root in (theirs_root, ours_root):
        root.mkdir(parents=True)
        populate(root)
    params = StdioServerParameters(command=node, args=[str(PEER), str(theirs_root)],
                                   env={"PATH": os.environ.get("PATH", "")})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            their_tools = {t.name: t for t in (await session.list_tools()).tools}
            theirs = await replies(session, theirs_root)
    async with stdio_session(ours_root, "--tools", "mcp-filesystem") as session:
        our_tools = {t.name: t for t in (await session.list_tools()).tools}
        ours = await replies(session, ours_root)

    # The same tools, with the same arguments and hints.
    assert sorted(our_tools) == sorted(their_tools)
    for name, theirs_tool in their_tools.items():
        mine = our_tools[name]
        assert set(mine.inputSchema.get("properties", {})) == set(
            theirs_tool.inputSchema.get("properties", {})), name
        assert set(mine.inputSchema.get("required", [])) == set(
            theirs_tool.inputSchema.get("required", [])), name
        a, b = mine.annotations, theirs_tool.annotations
        assert a.readOnlyHint == bool(b.readOnlyHint), name
        assert a.openWorldHint == b.openWorldHint, name
        if b.destructiveHint is not None:
            assert a.destructiveHint == b.destructiveHint, name
        if b.idempotentHint is not None:
            assert a.idempotentHint == b.idempotentHint, name

    # A tool declares an output schema (and sends structured content) where the real one does.
    assert ({n for n, t in our_tools.items() if t.outputSchema}
            == {n for n, t in their_tools.items() if t.outputSchema})

    # A drop-in costs an agent's session no more than the real server does: at most 1.1x its
    # definitions, without and with output schemas.
    for outputs in (False, True):
        mine = definition_bytes(our_tools.values(), outputs)
        real = definition_bytes(their_tools.values(), outputs)
        assert mine <= 1.1 * real, f"definitions (output schemas {outputs}): {mine} B, the real server's {real} B"

    # Every call tried on both.
    assert set(theirs) == set(ours) == {label for label, _, _ in CALLS}
    assert set(DIFFERENCES) <= set(theirs), set(DIFFERENCES) - set(theirs)
    unlisted = []
    stale = []
    for label, _, _ in CALLS:
        same = theirs[label] == ours[label]
        if not same and label not in DIFFERENCES:
            unlisted.append(f"--- {label}\nofficial: {theirs[label]!r}\nfilekit:  {ours[label]!r}")
        if same and label in DIFFERENCES:
            stale.append(label)
    assert not stale, f"listed as different but now the same: {stale}"
    assert not unlisted, "\n".join(unlisted)
    # The files the writes left are the same in both copies.
    for path in ["new.txt", "renamed.txt", "notes.txt", "src/app.py", "dup.txt", "made/deep/dir",
                 "made/moved/dir", "../outside/secret.txt", "../outside/planted.txt", "empty.txt",
                 "docs/guide.md", "latin1.txt", "C:\\Users\\me\\x.txt"]:
        a, b = theirs_root / path, ours_root / path
        assert a.exists() == b.exists(), path
        if a.is_file():
            assert a.read_bytes() == b.read_bytes(), path
    # What filekit refused it left as it was; the server changed it.
    assert (ours_root / "scratch" / "dup.txt").read_text() == "x = 1\ny\nx = 1\n"
    assert (ours_root / "scratch" / "keys.txt").read_text() == "top\ngamma\n"
    assert (theirs_root / "scratch" / "keys.txt").read_text() == "top\nG\n"
    assert (ours_root / "scratch" / "indent.py").read_text() == (
        "def handler(x):\n    if x:\n        return x + 2\n    return 0\n")
    assert (ours_root / ".git" / "config").read_text() == "[core]\n"
