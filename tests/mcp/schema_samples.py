"""Sample calls of every tool of every table, the way an agent makes them: calls that work,
calls that fail (missing file, text not found, bad pattern) and calls that are rejected
(unknown or mistyped arguments). tests/mcp/test_schemas.py checks that the
structuredContent of each reply fits the tool's outputSchema."""

SPELLS = "# Spells\n\n## Detect Magic\nLevel 1 Divination\n\n## Find Traps\nLevel 2\n"
USER_TS = """export class UserService {
  findById(id: number) {
    return id;
  }
}

export function calculateTotal(items: { price: number }[]) {
  return 0;
}
"""
APP_PY = "import os\n\nDEBUG = True\n\ndef handler(x):\n    return x + 1\n"


def populate(root):
    """The workspace every sample call runs in."""
    (root / "src").mkdir()
    (root / "docs").mkdir()
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "src" / "user.ts").write_text(USER_TS)
    (root / "src" / "util.ts").write_text("export const getUser = 1;\n")
    (root / "docs" / "spells.md").write_text(SPELLS)
    (root / "config.json").write_text('{"server": {"port": 80}}\n')
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "twice.txt").write_text("x = 1\ny = 2\nx = 1\ny = 2\n")
    # A tiny PNG (1x1), for the image replies.
    (root / "dot.png").write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082"))


# (tool's MCP name, arguments), in an order that works on one workspace: each table's calls
# run in a fresh workspace.
SAMPLES = {
    "amazonq": [
        ("fs_read", {"mode": "Line", "path": "notes.txt", "start_line": 1, "end_line": 2}),
        ("fs_read", {"mode": "Line", "paths": ["notes.txt", "missing.txt"]}),
        ("fs_read", {"operations": [{"mode": "Line", "path": "notes.txt"}]}) ,
        ("fs_read", {"mode": "Directory", "path": "src", "depth": 1}),
        ("fs_read", {"mode": "Search", "path": "src", "pattern": "handler"}),
        ("fs_read", {"mode": "Image", "image_paths": ["dot.png"]}),
        ("fs_read", {"mode": "Line", "path": "missing.txt"}),
        ("fs_read", {"mode": "Lines", "path": "notes.txt"}),
        ("fs_write", {"command": "str_replace", "path": "notes.txt", "old_str": "beta", "new_str": "BETA"}),
        ("fs_write", {"command": "str_replace", "path": "notes.txt", "old_str": "zzz", "new_str": "y"}),
        ("fs_write", {"command": "create", "path": "new.txt", "file_text": "x\n"}),
        ("fs_write", {"command": "append", "path": "new.txt", "new_str": "y"}),
        ("fs_write", {"command": "pattern_replace", "directory": ".", "file_pattern": "*.txt",
                      "sed_pattern": "s/alpha/ALPHA/", "dry_run": True}),
        ("fs_write", {"fileEdits": [{"path": "notes.txt", "edits": [
            {"command": "insert", "insert_line": 99, "new_str": "z", "content_hash": "00000000"}]}]}),
        ("fs_write", {"command": "create", "path": "n.txt", "filetext": "x"}),
        # The shipping Q CLI's shapes: several operations, create over a file, a single line
        # edit without content_hash; failures whose details carry the engine's facts.
        ("fs_read", {"operations": [{"mode": "Line", "path": "notes.txt"},
                                    {"mode": "Directory", "path": "src"},
                                    {"mode": "Search", "path": "notes.txt", "pattern": "ALPHA"},
                                    {"mode": "Image", "image_paths": ["dot.png"]},
                                    {"mode": "Line", "path": "missing.txt"}]}),
        ("fs_write", {"command": "create", "path": "new.txt", "new_str": "z\n"}),
        ("fs_write", {"command": "insert", "path": "new.txt", "insert_line": 1, "new_str": "w"}),
        ("fs_write", {"command": "replace_lines", "path": "new.txt", "start_line": 2,
                      "end_line": 1, "new_str": "w"}),
        ("fs_write", {"command": "str_replace", "path": "notes.txt", "old_str": "", "new_str": "y"}),
        ("fs_write", {"command": "str_replace", "fileEdits": [{"path": "notes.txt", "edits": [
            {"command": "append", "new_str": "a"}, {"command": "append", "new_str": "a"},
            {"command": "str_replace", "old_str": "a", "new_str": "b"}]}]}),
    ],
    "file": [
        ("file_read_file", {"path": "notes.txt", "start_line": 1, "end_line": 2}),
        ("file_read_file", {"path": "missing.txt"}),
        ("file_edit_file", {"path": "notes.txt", "start_line": 1, "end_line": 1, "new_content": "ALPHA"}),
        ("file_edit_file", {"path": "notes.txt", "edits": [{"start_line": 50, "end_line": 51, "new_content": "x"}]}),
        ("file_create_file", {"path": "made/new.txt", "content": "x\n"}),
        ("file_create_file", {"path": "notes.txt", "content": "x\n"}),
        ("file_list_files", {"path": ".", "recursive": True}),
        ("file_list_files", {"path": "missing"}),
        ("file_copy_file", {"source_path": "notes.txt", "dest_path": "copy.txt"}),
        ("file_rename_file", {"old_path": "copy.txt", "new_path": "moved.txt"}),
        ("file_delete_file", {"path": "moved.txt"}),
        ("file_delete_file", {"path": "moved.txt"}),
        ("file_read_file", {"file_path": "notes.txt"}),
    ],
    "claude": [
        ("Read", {"file_path": "notes.txt", "offset": 1, "limit": 2}),
        ("Read", {"file_path": "dot.png"}),
        ("Read", {"file_path": "missing.txt"}),
        ("Write", {"file_path": "w.txt", "content": "one\n"}),
        ("Edit", {"file_path": "w.txt", "old_string": "one", "new_string": "two"}),
        ("Edit", {"file_path": "w.txt", "old_string": "zzz", "new_string": "y"}),
        ("MultiEdit", {"file_path": "notes.txt", "edits": [{"old_string": "alpha", "new_string": "A"},
                                                          {"old_string": "nope", "new_string": "B"}]}),
        ("MultiEdit", {"file_path": "notes.txt", "edits": [{"old_string": "beta", "new_string": "B"}]}),
        ("LS", {"path": "."}),
        ("LS", {"path": "missing"}),
        ("Glob", {"pattern": "**/*.ts"}),
        ("Grep", {"pattern": "handler", "output_mode": "content", "-C": 1}),
        ("Grep", {"pattern": "handler", "output_mode": "count"}),
        ("Grep", {"pattern": "(", "path": "src"}),
        ("Edit", {"file_path": "w.txt", "old_string": "a", "new_string": "b", "replaceAll": True}),
    ],
    "desktop-commander": [
        ("edit_block", {"file_path": "notes.txt", "old_string": "beta", "new_string": "BETA"}),
        ("edit_block", {"file_path": "notes.txt", "old_string": "betx\ngamma", "new_string": "x"}),
        ("edit_block", {"file_path": "missing.txt", "old_string": "a", "new_string": "b"}),
        ("batch_edit_blocks", {"path": "docs/spells.md", "edits": [
            {"label": "Detect", "search": "## Detect Magic", "replace": "### Detect Magic"},
            {"search": "not there", "replace": "x"}], "stopOnError": False}),
        ("batch_edit_blocks", {"path": "docs/spells.md", "edits": [
            {"search": "Level 2", "replace": "Level 3"}], "dryRun": True}),
        ("write_from_line", {"path": "docs/spells.md", "startLine": 2, "content": "intro\n"}),
        ("write_from_line", {"path": "docs/spells.md", "startLine": 999, "content": "x\n"}),
        ("edit_block", {"file_path": "notes.txt", "old_string": "a", "new_string": "b",
                        "expectedReplacements": 2}),
        ("edit_block", {"file_path": "notes.txt", "old_string": "a", "new_string": "b"}),
        ("edit_block", {"file_path": "notes.txt", "old_string": "", "new_string": "b"}),
        ("write_from_line", {"path": "docs/spells.md", "startLine": 3, "endLine": 2, "content": "x"}),
        ("write_from_line", {"path": "docs/spells.md", "startLine": 1, "content": "x",
                             "contentHash": "0123456789abcdef"}),
        ("read_file", {"path": "notes.txt", "offset": 1, "length": 1}),
        ("read_file", {"path": "notes.txt", "offset": -2}),
        ("read_file", {"path": "dot.png"}),
        ("read_file", {"path": "src"}),
        ("read_file", {"path": "missing.txt"}),
        ("read_file", {"path": "notes.txt", "isUrl": True}),
        ("read_multiple_files", {"paths": ["notes.txt", "dot.png"]}),
        ("read_multiple_files", {"paths": ["notes.txt", "missing.txt"]}),
        ("write_file", {"path": "made/new.txt", "content": "x\n"}),
        ("write_file", {"path": "made/new.txt", "content": "y\n", "mode": "append"}),
        ("write_file", {"path": "notes.txt", "content": "x\n"}),
        ("create_directory", {"path": "made/deeper/dir"}),
        ("create_directory", {"path": "notes.txt"}),
        ("list_directory", {"path": ".", "depth": 1}),
        ("list_directory", {"path": "missing"}),
        ("move_file", {"source": "made/new.txt", "destination": "made/moved.txt"}),
        ("move_file", {"source": "missing.txt", "destination": "x.txt"}),
        ("get_file_info", {"path": "notes.txt"}),
        ("get_file_info", {"path": "dot.png"}),
        ("get_file_info", {"path": "missing.txt"}),
        ("start_search", {"path": ".", "pattern": "alpha", "searchType": "content"}),
        ("start_search", {"path": ".", "pattern": "(", "searchType": "content"}),
        ("start_search", {"path": ".", "pattern": "*.txt", "searchType": "files"}),
        ("list_searches", {}),
        ("get_more_search_results", {"sessionId": "$SESSION", "offset": 0, "length": 10}),
        ("get_more_search_results", {"sessionId": "search_0_0"}),
        ("stop_search", {"sessionId": "$SESSION"}),
        ("stop_search", {"sessionId": "search_0_0"}),
    ],
    "semantic": [
        ("file_read", {"file": "src/user.ts", "symbol": "UserService.findById"}),
        ("file_read", {"file": "config.json", "path": "$.server.port"}),
        ("file_read", {"file": "docs/spells.md", "heading": "Find Traps"}),
        ("file_read", {"file": "src/user.ts", "symbol": "Nope"}),
        ("file_edit", {"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body",
                       "content": "return items.length;"}),
        ("file_edit", {"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body",
                       "content": "return 1;", "dryRun": True}),
        ("file_edit", {"file": "src/user.ts", "target": "Missing", "operation": "delete"}),
        ("file_edit", {"file": "src/user.ts", "refactor": "rename_symbol", "symbol": "UserService",
                       "newName": "AuthService"}),
        ("file_edit", {"file": "src/user.ts", "refactor": "rename_symbol", "symbol": "AuthService",
                       "newName": "Svc", "dryRun": True}),
        ("file_create", {"path": "src/Payment.ts", "template": "typescript-class",
                         "templateVars": {"name": "Payment"}}),
        ("file_create", {"path": "src/plain.txt", "content": "x\n"}),
        ("file_duplicate", {"source": "src/util.ts", "destination": "src/util2.ts"}),
        ("file_rename", {"path": "src/util2.ts", "newName": "util3.ts"}),
        ("file_move", {"source": "src/util3.ts", "destination": "lib/util3.ts"}),
        ("file_delete", {"paths": ["lib/util3.ts"]}),
        ("file_delete", {"path": "lib/missing.ts"}),
        ("file_move", {"src": "a", "dst": "b"}),
    ],
    "filekit": [
        ("read_files", {"files": [{"path": "notes.txt", "start_line": 2}, {"path": "dot.png"}]}),
        ("read_files", {"files": [{"path": "notes.txt"}, {"path": "missing.txt"}]}),
        ("read_files", {"files": "not a list"}),
        ("edit_files", {"files": [{"path": "notes.txt", "edits": [{"str_replace": {"old": "alpha", "new": "beta"}}]}]}),
        ("edit_files", {"files": [{"path": "notes.txt", "edits": [{"str_replace": {"old": "zzz", "new": "y"}}]}]}),
        ("edit_files", {"files": [{"path": "c.txt", "edits": [{"create": {"content": "c\n"}}]}],
                        "options": {"dry_run": True}}),
        ("replace_in_files", {"expression": "s/beta/gamma/", "files": "*.txt"}),
        ("replace_in_files", {"expression": "s/beta/gamma/", "files": "*.none"}),
        ("lock", {"paths": ["notes.txt"], "holder": "me"}),
        ("unlock", {"paths": ["notes.txt"], "holder": "me"}),
        ("lock", {"paths": []}),
        ("grep_files", {"pattern": "handler", "context": 1}),
        ("grep_files", {"pattern": "handler", "output_mode": "count"}),
        ("grep_files", {"pattern": "("}),
        ("find_files", {"pattern": "**/*.ts", "max_results": 1}),
        ("find_files", {"pattern": "*.ts", "path": "missing"}),
        ("list_dir", {"depth": 2}),
        ("list_dir", {"path": "notes.txt"}),
        ("file_read", {"file": "src/user.ts", "symbol": "UserService"}),
        ("file_edit", {"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body",
                       "content": "return 2;"}),
        ("file_edit", {"file": "src/user.ts", "refactor": "rename_symbol", "symbol": "UserService",
                       "new_name": "AuthService"}),
        ("manage_files", {"operations": [{"op": "copy", "from": "notes.txt", "to": "n2.txt"},
                                         {"op": "move", "from": "docs/spells.md", "to": "docs2/spells.md"}]}),
        ("manage_files", {"operations": [{"op": "delete", "path": "nope.txt"}]}),
        ("history", {"limit": 5}),
        ("history", {"entry": 1}),
        ("undo", {"last": 1}),
        ("redo", {"dry_run": True}),
        ("undo", {"entry": 9999}),
        ("history", {"limit": "five"}),
    ],
}

# apply_patch, in the curated table and in codex's: a patch that works, one that cannot be
# placed (near miss), one placed at the first of two places, a malformed one, a dry run, and a
# rejected argument.
APPLY_PATCH_SAMPLES = [
    ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-DEBUG = True\n+DEBUG = False\n"
                              "*** Add File: added.txt\n+x\n*** End Patch"}),
    ("apply_patch", {"input": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-betx\n+b\n",
                     "dry_run": True}),
    ("apply_patch", {"input": "notes.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n",
                     "dry_run": True}),
    ("apply_patch", {"input": "twice.txt\n<<<<<<< SEARCH\nx = 1\ny = 2\n=======\nx = 1\ny = 3\n>>>>>>> REPLACE\n",
                     "dry_run": True}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Frob File: x\n*** End Patch"}),
    ("apply_patch", {"input": "x", "format": "git"}),
]
SAMPLES["filekit"] += APPLY_PATCH_SAMPLES
SAMPLES["codex"] = APPLY_PATCH_SAMPLES

# The official MCP filesystem server's tools (mcp-filesystem): replies are {content} (an image
# block list for read_media_file), failures add the error fields.
SAMPLES["mcp-filesystem"] = [
    ("read_text_file", {"path": "notes.txt", "head": 2}),
    ("read_text_file", {"path": "missing.txt"}),
    ("read_text_file", {"path": "notes.txt", "head": 1, "tail": 1}),
    ("read_file", {"path": "notes.txt"}),
    ("read_media_file", {"path": "dot.png"}),
    ("read_media_file", {"path": "notes.txt"}),
    ("read_multiple_files", {"paths": ["notes.txt", "src/app.py"]}),
    ("read_multiple_files", {"paths": ["notes.txt", "missing.txt"]}),
    ("read_multiple_files", {"paths": "notes.txt"}),
    ("write_file", {"path": "new.txt", "content": "x\n"}),
    ("write_file", {"path": "no/dir/new.txt", "content": "x\n"}),
    ("edit_file", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}], "dryRun": True}),
    ("edit_file", {"path": "notes.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
    ("edit_file", {"path": "notes.txt", "edits": [{"old": "beta", "newText": "y"}]}),
    ("create_directory", {"path": "made/here"}),
    ("create_directory", {"path": "notes.txt"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "nope"}),
    ("list_directory_with_sizes", {"path": ".", "sortBy": "size"}),
    ("list_directory_with_sizes", {"path": ".", "sortBy": "date"}),
    ("directory_tree", {"path": "src", "excludePatterns": ["*.ts"]}),
    ("directory_tree", {"path": "notes.txt"}),
    ("move_file", {"source": "new.txt", "destination": "moved.txt"}),
    ("move_file", {"source": "moved.txt", "destination": "notes.txt"}),
    ("search_files", {"path": ".", "pattern": "**/*.py"}),
    ("search_files", {"path": ".", "pattern": "[", "excludePatterns": []}),
    ("get_file_info", {"path": "notes.txt"}),
    ("get_file_info", {"path": "missing.txt"}),
    ("list_allowed_directories", {}),
    ("list_allowed_directories", {"path": "."}),
]
