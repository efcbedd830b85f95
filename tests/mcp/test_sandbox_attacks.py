"""The sandbox attack suite over MCP (issue 9): every tool the server lists, over stdio and
streamable HTTP, given paths and globs that try to leave the workspace. Every attempt must come
back as a tool error that says why, and the directories outside the root must stay unopened
and unchanged: inotify watches them (any open, read, write, attribute change, creation or
removal fails the test) and their bytes are compared.

The tools come from the server's own tools/list; PATH_ARGS says which argument of each tool
carries a path, and a listed tool missing from it fails the test. crates/cli/tests/attack.rs
runs the same attacks (and more) through `filekit call`."""

import ctypes
import ctypes.util
import os
import struct

import pytest

pytestmark = pytest.mark.anyio

# Builders of each tool's arguments with the attacking path `p` in one path argument
# (MCP names: file:read_file is served as file_read_file).
PATH_ARGS = {
    "fs_read": [
        lambda p: {"mode": "Line", "path": p},
        lambda p: {"mode": "Line", "paths": [p]},
        lambda p: {"mode": "Image", "image_paths": [p]},
        lambda p: {"mode": "Directory", "path": p},
        lambda p: {"mode": "Search", "path": p, "pattern": "SECRET"},
    ],
    "fs_write": [
        lambda p: {"command": "create", "path": p, "file_text": "pwned\n", "overwrite": True},
        lambda p: {"command": "str_replace", "path": p, "old_str": "SECRET", "new_str": "pwned"},
        lambda p: {"fileEdits": [{"path": p, "edits": [{"command": "append", "new_str": "pwned"}]}]},
        lambda p: {"command": "pattern_replace", "directory": p, "file_pattern": "*",
                   "sed_pattern": "s/SECRET/pwned/", "recursive": True},
    ],
    "file_read_file": [lambda p: {"path": p}],
    "file_edit_file": [lambda p: {"path": p, "start_line": 1, "end_line": 1, "new_content": "pwned"}],
    "file_create_file": [lambda p: {"path": p, "content": "pwned\n"}],
    "file_list_files": [lambda p: {"path": p, "recursive": True}],
    "Read": [lambda p: {"file_path": p}],
    "Write": [lambda p: {"file_path": p, "content": "pwned\n"}],
    "Edit": [lambda p: {"file_path": p, "old_string": "SECRET", "new_string": "pwned"}],
    "MultiEdit": [lambda p: {"file_path": p, "edits": [{"old_string": "SECRET", "new_string": "pwned"}]}],
    "LS": [lambda p: {"path": p}],
    "Glob": [lambda p: {"pattern": "**/*", "path": p}],
    "Grep": [lambda p: {"pattern": "SECRET", "path": p}],
    "list_dir": [lambda p: {"path": p, "depth": 3}],
    "find_files": [lambda p: {"pattern": "**/*", "path": p}],
    "grep_files": [lambda p: {"pattern": "SECRET", "path": p}],
    "edit_block": [lambda p: {"file_path": p, "old_string": "SECRET", "new_string": "pwned"}],
    "batch_edit_blocks": [lambda p: {"path": p, "edits": [{"search": "SECRET", "replace": "pwned"}]}],
    "write_from_line": [lambda p: {"path": p, "startLine": 1, "content": "pwned\n"}],
    "read_files": [lambda p: {"files": [{"path": p}]}],
    "edit_files": [lambda p: {"files": [{"path": p, "edits": [{"str_replace": {"old": "SECRET", "new": "pwned"}}]}]}],
    "replace_in_files": [lambda p: {"expression": "s/SECRET/pwned/", "files": "**", "directory": p}],
    "file_delete_file": [lambda p: {"path": p}],
    "file_rename_file": [
        lambda p: {"old_path": p, "new_path": "moved.txt"},
        lambda p: {"old_path": "ok.txt", "new_path": p},
    ],
    "file_copy_file": [
        lambda p: {"source_path": p, "dest_path": "copied.txt"},
        lambda p: {"source_path": "ok.txt", "dest_path": p},
    ],
    "file_create": [lambda p: {"path": p, "content": "pwned\n", "overwrite": True}],
    "file_delete": [lambda p: {"path": p, "recursive": True}, lambda p: {"paths": [p], "recursive": True}],
    "file_move": [
        lambda p: {"source": p, "destination": "moved.txt"},
        lambda p: {"source": "ok.txt", "destination": p, "overwrite": True},
    ],
    "file_rename": [lambda p: {"path": p, "newName": "renamed.txt"}],
    "file_duplicate": [
        lambda p: {"source": p, "destination": "dup.txt"},
        lambda p: {"source": "ok.txt", "destination": p, "overwrite": True},
    ],
    "manage_files": [
        lambda p: {"operations": [{"op": "delete", "path": p, "recursive": True}]},
        lambda p: {"operations": [{"op": "move", "from": p, "to": "m.txt"}]},
        lambda p: {"operations": [{"op": "move", "from": "ok.txt", "to": p, "overwrite": True}]},
        lambda p: {"operations": [{"op": "copy", "from": p, "to": "c.txt"}]},
        lambda p: {"operations": [{"op": "copy", "from": "ok.txt", "to": p, "overwrite": True}]},
    ],
    "history": [lambda p: {"path": p}],
    "lock": [lambda p: {"paths": [p], "holder": "attacker"}],
    "unlock": [lambda p: {"paths": [p], "holder": "attacker", "force": True}],
    "file_read": [lambda p: {"file": p, "symbol": "SECRET"}],
    "file_edit": [lambda p: {"file": p, "target": "SECRET", "operation": "replace", "content": "pwned"}],
}

# apply_patch: the paths are inside the patch text, in every kind of file section.
PATH_ARGS["apply_patch"] = [
    lambda p: {"input": f"*** Begin Patch\n*** Update File: {p}\n@@\n-SECRET outside the workspace\n+pwned\n*** End Patch"},
    lambda p: {"input": f"*** Begin Patch\n*** Add File: {p}\n+pwned\n*** End Patch"},
    lambda p: {"input": f"*** Begin Patch\n*** Delete File: {p}\n*** End Patch"},
    lambda p: {"input": f"*** Begin Patch\n*** Update File: ok.txt\n*** Move to: {p}\n*** End Patch"},
    lambda p: {"input": f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-SECRET outside the workspace\n+pwned\n"},
]

# The official MCP filesystem server's tools (the mcp-filesystem table).
MCP_FILESYSTEM = {
    "read_file": [lambda p: {"path": p}],
    "read_text_file": [lambda p: {"path": p, "head": 5}],
    "read_media_file": [lambda p: {"path": p}],
    "read_multiple_files": [lambda p: {"paths": ["ok.txt", p]}],
    "write_file": [lambda p: {"path": p, "content": "pwned\n"}],
    "edit_file": [lambda p: {"path": p, "edits": [{"oldText": "SECRET", "newText": "pwned"}]}],
    "create_directory": [lambda p: {"path": p}],
    "list_directory": [lambda p: {"path": p}],
    "list_directory_with_sizes": [lambda p: {"path": p, "sortBy": "size"}],
    "directory_tree": [lambda p: {"path": p}],
    "move_file": [
        lambda p: {"source": p, "destination": "moved.txt"},
        lambda p: {"source": "ok.txt", "destination": p},
    ],
    "search_files": [lambda p: {"path": p, "pattern": "**/*"}],
    "get_file_info": [lambda p: {"path": p}],
}
PATH_ARGS.update(MCP_FILESYSTEM)
PATH_ARGS["start_search"] = [
    lambda p: {"path": p, "pattern": "SECRET", "searchType": "content"},
    lambda p: {"path": p, "pattern": "*", "searchType": "files"},
]
# The server's words for a refusal out of the roots, which the table keeps: "Access denied -
# path outside allowed directories", "... symlink target outside allowed directories".
SERVER_WORDS = {"outside the workspace": ("outside allowed directories",),
                "symbolic link": ("symlink target outside", "outside allowed directories")}

# Tools whose arguments carry no path at all (history entries by number, the list of roots).
NO_PATH_ARGS = {"undo", "redo", "list_allowed_directories",
                # Desktop Commander's search sessions, named by id (start_search takes the path).
                "get_more_search_results", "stop_search", "list_searches"}

# Glob arguments, which must not walk above their directory.
GLOB_ARGS = {
    "fs_write": lambda g: {"command": "pattern_replace", "directory": ".", "file_pattern": g,
                           "sed_pattern": "s/SECRET/pwned/", "recursive": True},
    "file_list_files": lambda g: {"path": ".", "filter": g, "recursive": True},
    "Glob": lambda g: {"pattern": g},
    "Grep": lambda g: {"pattern": "SECRET", "glob": g},
    "find_files": lambda g: {"pattern": g},
    "grep_files": lambda g: {"pattern": "SECRET", "glob": g},
    "replace_in_files": lambda g: {"expression": "s/SECRET/pwned/", "files": g},
    "search_files": lambda g: {"path": ".", "pattern": g},
}

SECRET = b"SECRET outside the workspace\n"

IN_ALL_EVENTS = 0x00000FFF
IN_CLOSE_NOWRITE = 0x00000010
IN_NONBLOCK = 0o4000


class Inotify:
    """Watches directories for any access (but CLOSE_NOWRITE, which only follows an OPEN)."""

    def __init__(self, dirs):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(IN_NONBLOCK)
        assert self.fd >= 0, "inotify_init1"
        self.names = {}
        for d in dirs:
            wd = self.libc.inotify_add_watch(self.fd, str(d).encode(), IN_ALL_EVENTS & ~IN_CLOSE_NOWRITE)
            assert wd >= 0, f"inotify_add_watch {d}"
            self.names[wd] = d
        self.events()

    def events(self):
        out = []
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i < len(buf):
                wd, mask, _cookie, length = struct.unpack_from("iIII", buf, i)
                name = buf[i + 16:i + 16 + length].rstrip(b"\0").decode(errors="replace")
                out.append(f"{self.names.get(wd)}/{name}: {mask:#x}")
                i += 16 + length

    def close(self):
        os.close(self.fd)


@pytest.fixture
def arena(tmp_path):
    base = tmp_path.resolve()
    root, outside, evil = base / "root", base / "outside", base / "root-evil"
    for d in (root / "sub", outside / "deeper", evil):
        d.mkdir(parents=True)
    for f in (outside / "secret.txt", outside / "deeper" / "secret.txt", evil / "secret.txt"):
        f.write_bytes(SECRET)
    (root / "ok.txt").write_text("inside\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    os.symlink(outside / "secret.txt", root / "link_file")
    os.symlink(outside, root / "link_dir")
    os.symlink(outside / "new.txt", root / "dangling")
    os.symlink("chain2", root / "chain1")
    os.symlink("../outside/secret.txt", root / "chain2")
    os.symlink("../../outside", root / "sub" / "parent_link")
    os.symlink(evil, root / "evil_link")
    os.mkfifo(root / "fifo")
    return base


def guarded_state(base):
    state = {}
    for d in ("outside", "root-evil"):
        for dirpath, _dirs, files in os.walk(base / d):
            state[dirpath] = "<dir>"
            for f in files:
                with open(os.path.join(dirpath, f), "rb") as fh:
                    state[os.path.join(dirpath, f)] = fh.read()
    return state


def path_attacks(base):
    root, outside = base / "root", base / "outside"
    return [
        ("../outside/secret.txt", "outside the workspace"),
        ("sub/../../outside/secret.txt", "outside the workspace"),
        (str(outside / "secret.txt"), "outside the workspace"),
        (f"{root}-evil/secret.txt", "outside the workspace"),
        (f"{root}/../outside/secret.txt", "outside the workspace"),
        ("~/secret.txt", ("outside the workspace", "HOME is not set")),
        ("link_file", "symbolic link"),
        ("link_dir", "symbolic link"),
        ("link_dir/deeper/secret.txt", "symbolic link"),
        ("dangling", "symbolic link"),
        ("chain1", "symbolic link"),
        ("sub/parent_link/secret.txt", "symbolic link"),
        ("evil_link/secret.txt", "symbolic link"),
        ("/proc/self/environ", "outside the workspace"),
        ("/dev/zero", "outside the workspace"),
        ("ok.txt\0/../../outside/secret.txt", "NUL"),
        ("a/" * 3000 + "x", "too long"),
        ("n" * 300, "too long"),
    ]


GLOB_ATTACKS = ["../**", "../outside/*", "**/../../outside/*"]


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_every_tool_refuses_every_escape(arena, open_session):
    # `~` expands to HOME of the server, which inherits nothing but PATH over stdio: the
    # tilde attack is still refused (HOME unset, or a home outside the root).
    base = arena
    before = guarded_state(base)
    watch = Inotify([base / "outside", base / "outside" / "deeper", base / "root-evil"])
    attempts = 0
    try:
        async with open_session(base / "root", "--tools", "all") as session:
            tools = (await session.list_tools()).tools
            assert len(tools) >= 19
            for tool in tools:
                if tool.name in NO_PATH_ARGS:
                    continue
                builders = PATH_ARGS.get(tool.name)
                assert builders, (
                    f"{tool.name} is a new tool: add its path arguments to PATH_ARGS (and its "
                    "globs to GLOB_ARGS) in tests/mcp/test_sandbox_attacks.py"
                )
                calls = [(b(p), why) for b in builders for p, why in path_attacks(base)]
                if tool.name in GLOB_ARGS:
                    calls += [(GLOB_ARGS[tool.name](g), "..") for g in GLOB_ATTACKS]
                for args, why in calls:
                    result = await session.call_tool(tool.name, args)
                    text = text_of(result)
                    label = f"{tool.name} {str(args)[:200]}"
                    assert result.isError, f"{label}: not refused: {text[:500]}"
                    whys = why if isinstance(why, tuple) else (why,)
                    if tool.name in MCP_FILESYSTEM:
                        whys = whys + tuple(w for y in whys for w in SERVER_WORDS.get(y, ()))
                    assert any(w.lower() in text.lower() for w in whys), (
                        f"{label}: the refusal should say {why!r}: {text[-500:]}"
                    )
                    assert "SECRET outside" not in text, f"{label}: outside content in the reply"
                    events = watch.events()
                    assert not events, f"{label}: outside accessed: {events}"
                    attempts += 1
            # The FIFO inside the root is refused by the tools that read files, without
            # hanging (a blocked open would time the session out).
            for name, args in [("Read", {"file_path": "fifo"}), ("Edit", {"file_path": "fifo", "old_string": "a", "new_string": "b"})]:
                result = await session.call_tool(name, args)
                assert result.isError and "not a regular file" in text_of(result)
            # .git/ is protected from writes by default.
            result = await session.call_tool("Write", {"file_path": ".git/config", "content": "x"})
            assert result.isError and ".git/" in text_of(result)
            assert (base / "root" / ".git" / "config").read_text() == "[core]\n"
    finally:
        watch.close()
    assert attempts > 300
    assert guarded_state(base) == before


PROTECTED = [".mcp.json", ".vscode/tasks.json", ".VSCode/MCP.json", "sub/.envrc",
             ".claude/settings.json", ".Claude/settings.local.json", ".cursor/mcp.json", "alias.json"]


@pytest.fixture
def protected_root(tmp_path, state_home):
    """A project whose root also holds filekit's state (XDG_STATE_HOME is tmp_path/state), with
    the files whose content makes programs run later."""
    root = tmp_path.resolve()
    for d in (".vscode", "sub", ".claude", ".cursor"):
        (root / d).mkdir()
    for f in (".mcp.json", ".vscode/tasks.json", "sub/.envrc", ".claude/settings.json", "notes.txt"):
        (root / f).write_bytes(SECRET)
    os.symlink("../notes.txt", root / ".cursor" / "mcp.json")
    os.symlink(".mcp.json", root / "alias.json")
    return root


def tree_bytes(root, skip=("state", ".filekit")):
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.relpath(os.path.join(dirpath, d), root) not in skip]
        out[dirpath] = "<dir>"
        for f in files:
            p = os.path.join(dirpath, f)
            out[p] = os.readlink(p) if os.path.islink(p) else open(p, "rb").read()
    return out


async def test_protected_files_and_state_over_mcp(protected_root, state_home, open_session):
    """The protected set and filekit's state over MCP (stdio and HTTP): writes, creates,
    moves and deletes of the agent clients' configurations, tasks.json and .envrc (in another
    case, through a link) are refused with the way to allow them; the state folder, inside
    the root here, is neither read, listed, searched nor removed, and the server says so at
    start."""
    root = protected_root
    before = tree_bytes(root)
    async with open_session(root, "--tools", "all") as session:
        for path in PROTECTED:
            for name, args in [
                ("Write", {"file_path": path, "content": "pwned\n"}),
                ("Edit", {"file_path": path, "old_string": "SECRET", "new_string": "pwned"}),
                ("edit_files", {"files": [{"path": path, "edits": [{"create": {"content": "x\n", "overwrite": True}}]}]}),
                ("file_move", {"source": "notes.txt", "destination": path, "overwrite": True}),
                ("file_delete", {"path": path}),
            ]:
                if path == "alias.json" and name.startswith("file_"):
                    # A move or a delete of a link acts on the link, not on what it names.
                    continue
                result = await session.call_tool(name, args)
                text = text_of(result)
                assert result.isError, f"{name} {args}: not refused: {text[:400]}"
                if not ("does not exist" in text and name in ("Edit", "file_delete")):
                    assert "--allow-protected-writes" in text, f"{name} {args}: {text[-400:]}"
                assert tree_bytes(root) == before, f"{name} {args} changed the tree"
        # A folder of plain names moved onto `.claude` would become Claude Code's settings.
        (root / "evil").mkdir()
        (root / "evil" / "settings.json").write_text('{"hooks": {}}\n')
        before = tree_bytes(root)
        result = await session.call_tool("file_move", {"source": "evil", "destination": "p/.claude"})
        assert result.isError and "--allow-protected-writes" in text_of(result), text_of(result)
        assert tree_bytes(root) == before
        # filekit's state, inside the root: out of every tool's view.
        result = await session.call_tool("Write", {"file_path": "plain.txt", "content": "plain\n"})
        assert not result.isError, text_of(result)
        dbs = list((state_home / "filekit" / "workspaces").glob("*/history.db"))
        assert dbs, "the server keeps a history"
        db = os.path.relpath(dbs[0], root)
        for name, args in [
            ("Read", {"file_path": db}),
            ("Write", {"file_path": db, "content": "x"}),
            ("file_delete", {"path": "state", "recursive": True}),
            ("LS", {"path": "state/filekit"}),
        ]:
            result = await session.call_tool(name, args)
            assert result.isError and "filekit's own state" in text_of(result), f"{name}: {text_of(result)}"
        result = await session.call_tool("LS", {"path": ".", "depth": 6, "include_hidden": True, "include_ignored": True})
        assert not result.isError and "history.db" not in text_of(result), text_of(result)
        result = await session.call_tool("grep_files", {"pattern": "SQLite format", "path": ".",
                                                        "include_hidden": True, "include_ignored": True})
        assert "history.db" not in text_of(result), text_of(result)
    assert dbs[0].exists()


async def test_protected_writes_are_allowed_by_the_start_option(protected_root, open_session):
    async with open_session(protected_root, "--tools", "claude", "--allow-protected-writes") as session:
        result = await session.call_tool("Write", {"file_path": ".mcp.json", "content": "{}\n"})
        assert not result.isError, text_of(result)
    assert (protected_root / ".mcp.json").read_text() == "{}\n"
