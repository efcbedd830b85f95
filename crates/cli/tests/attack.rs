//! The sandbox attack suite: every tool of every table, through `filekit call`,
//! given paths and patterns that try to leave the workspace. Each attempt must be refused
//! with an error that says what was wrong, and must leave the files outside the root unread
//! and unchanged.
//!
//! "Unread" is checked with inotify: the directories outside the root are watched during the
//! attack, and any open, read, write, attribute change, creation or removal of anything in
//! them (or a listing of the directory itself) is an event that fails the test. Their bytes
//! are compared afterwards too.
//!
//! The tools come from `filekit tools --json`, so a new tool is attacked automatically once
//! [`slots`] says which of its arguments carry a path; a new tool or argument that is not
//! classified there fails [`every_argument_of_every_tool_is_classified`].

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Builds a tool's arguments with the attacking path (or pattern) in one argument.
type Build = fn(&str) -> Value;

/// One way to put a path in front of a tool: the argument it goes into, and the call.
struct Slot {
    arg: &'static str,
    build: Build,
    /// The path is only read (the source of a copy), so `.git/` may be given there.
    copied_from: bool,
}

const fn slot(arg: &'static str, build: Build) -> Slot {
    Slot {
        arg,
        build,
        copied_from: false,
    }
}

/// A slot whose path a writing tool only reads: the source of a copy.
const fn copy_source(arg: &'static str, build: Build) -> Slot {
    Slot {
        arg,
        build,
        copied_from: true,
    }
}

/// The arguments of each tool that carry a path: every one of them is attacked. A tool whose
/// name another table defines differently is keyed `table:name` (see [`key_of`]).
fn path_slots(tool: &str) -> Option<Vec<Slot>> {
    Some(match tool {
        "fs_read" => vec![
            slot("path", |p| json!({"mode": "Line", "path": p})),
            slot("paths", |p| json!({"mode": "Line", "paths": ["ok.txt", p]})),
            slot(
                "image_paths",
                |p| json!({"mode": "Image", "image_paths": [p]}),
            ),
            slot(
                "path",
                |p| json!({"mode": "Directory", "path": p, "depth": 3}),
            ),
            slot(
                "path",
                |p| json!({"mode": "Search", "path": p, "pattern": "SECRET"}),
            ),
            // The shipping Q CLI's shape: every mode's path inside `operations`.
            slot(
                "operations",
                |p| json!({"operations": [{"mode": "Line", "path": p}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"mode": "Line", "path": "ok.txt"}, {"mode": "Line", "paths": [p]}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"mode": "Image", "image_paths": [p]}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"mode": "Directory", "path": p, "depth": 3}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"mode": "Search", "path": p, "pattern": "SECRET"}, {"mode": "Line", "path": "ok.txt"}]}),
            ),
        ],
        "fs_write" => vec![
            slot(
                "path",
                |p| json!({"command": "create", "path": p, "file_text": "pwned\n", "overwrite": true}),
            ),
            slot(
                "path",
                |p| json!({"command": "str_replace", "path": p, "old_str": "SECRET", "new_str": "pwned"}),
            ),
            slot(
                "path",
                |p| json!({"command": "append", "path": p, "new_str": "pwned"}),
            ),
            slot(
                "fileEdits",
                |p| json!({"fileEdits": [{"path": p, "edits": [{"command": "append", "new_str": "pwned"}]}]}),
            ),
            slot("directory", |p| {
                json!({"command": "pattern_replace", "directory": p, "file_pattern": "*",
                       "sed_pattern": "s/SECRET/pwned/", "recursive": true})
            }),
        ],
        "file:read_file" => vec![slot("path", |p| json!({"path": p}))],
        "file:edit_file" => vec![slot(
            "path",
            |p| json!({"path": p, "start_line": 1, "end_line": 1, "new_content": "pwned"}),
        )],
        "file:create_file" => vec![slot("path", |p| json!({"path": p, "content": "pwned\n"}))],
        "file:list_files" => vec![slot("path", |p| json!({"path": p, "recursive": true}))],
        "Read" => vec![slot("file_path", |p| json!({"file_path": p}))],
        "Write" => vec![slot(
            "file_path",
            |p| json!({"file_path": p, "content": "pwned\n"}),
        )],
        "Edit" => vec![slot(
            "file_path",
            |p| json!({"file_path": p, "old_string": "SECRET", "new_string": "pwned"}),
        )],
        "MultiEdit" => vec![slot(
            "file_path",
            |p| json!({"file_path": p, "edits": [{"old_string": "SECRET", "new_string": "pwned"}]}),
        )],
        "LS" => vec![slot("path", |p| json!({"path": p, "depth": 3}))],
        "Glob" => vec![slot("path", |p| json!({"pattern": "**/*", "path": p}))],
        "Grep" => vec![slot("path", |p| json!({"pattern": "SECRET", "path": p}))],
        "list_dir" => vec![slot("path", |p| json!({"path": p, "depth": 3}))],
        "find_files" => vec![slot("path", |p| json!({"pattern": "**/*", "path": p}))],
        "grep_files" => vec![slot("path", |p| json!({"pattern": "SECRET", "path": p}))],
        "edit_block" => vec![slot(
            "file_path",
            |p| json!({"file_path": p, "old_string": "SECRET", "new_string": "pwned"}),
        )],
        "batch_edit_blocks" => vec![slot(
            "path",
            |p| json!({"path": p, "edits": [{"search": "SECRET", "replace": "pwned"}]}),
        )],
        "write_from_line" => vec![slot(
            "path",
            |p| json!({"path": p, "startLine": 1, "content": "pwned\n"}),
        )],
        "desktop-commander:read_file" => vec![
            slot("path", |p| json!({"path": p})),
            slot("path", |p| json!({"path": p, "offset": -2})),
        ],
        // Alone: beside a file that is read, the escape is said in its place and the call
        // succeeds, as Desktop Commander's does (no outside content either way).
        "desktop-commander:read_multiple_files" => {
            vec![slot("paths", |p| json!({"paths": [p]}))]
        }
        "desktop-commander:write_file" => vec![
            slot(
                "path",
                |p| json!({"path": p, "content": "pwned\n", "mode": "rewrite"}),
            ),
            slot(
                "path",
                |p| json!({"path": p, "content": "pwned\n", "mode": "append"}),
            ),
        ],
        "desktop-commander:create_directory" => vec![slot("path", |p| json!({"path": p}))],
        "desktop-commander:list_directory" => {
            vec![slot("path", |p| json!({"path": p, "depth": 3}))]
        }
        "desktop-commander:move_file" => vec![
            slot(
                "source",
                |p| json!({"source": p, "destination": "moved.txt"}),
            ),
            slot(
                "destination",
                |p| json!({"source": "ok.txt", "destination": p}),
            ),
        ],
        "desktop-commander:get_file_info" => vec![slot("path", |p| json!({"path": p}))],
        "read_files" => vec![slot("files", |p| json!({"files": [{"path": p}]}))],
        "edit_files" => vec![
            slot(
                "files",
                |p| json!({"files": [{"path": p, "edits": [{"str_replace": {"old": "SECRET", "new": "pwned"}}]}]}),
            ),
            slot(
                "files",
                |p| json!({"files": [{"path": p, "edits": [{"create": {"content": "pwned\n", "overwrite": true}}]}]}),
            ),
        ],
        "replace_in_files" => vec![slot(
            "directory",
            |p| json!({"expression": "s/SECRET/pwned/", "files": "**", "directory": p}),
        )],
        "file:delete_file" => vec![slot("path", |p| json!({"path": p}))],
        "file:rename_file" => vec![
            slot(
                "old_path",
                |p| json!({"old_path": p, "new_path": "moved.txt"}),
            ),
            slot("new_path", |p| json!({"old_path": "ok.txt", "new_path": p})),
        ],
        "file:copy_file" => vec![
            copy_source(
                "source_path",
                |p| json!({"source_path": p, "dest_path": "copied.txt"}),
            ),
            slot(
                "dest_path",
                |p| json!({"source_path": "ok.txt", "dest_path": p}),
            ),
        ],
        "file_create" => vec![slot(
            "path",
            |p| json!({"path": p, "content": "pwned\n", "overwrite": true}),
        )],
        "file_delete" => vec![
            slot("path", |p| json!({"path": p, "recursive": true})),
            slot("paths", |p| json!({"paths": [p], "recursive": true})),
        ],
        "file_move" => vec![
            slot(
                "source",
                |p| json!({"source": p, "destination": "moved.txt"}),
            ),
            slot(
                "destination",
                |p| json!({"source": "ok.txt", "destination": p, "overwrite": true}),
            ),
        ],
        "file_rename" => vec![slot(
            "path",
            |p| json!({"path": p, "newName": "renamed.txt"}),
        )],
        "file_duplicate" => vec![
            copy_source("source", |p| json!({"source": p, "destination": "dup.txt"})),
            slot(
                "destination",
                |p| json!({"source": "ok.txt", "destination": p, "overwrite": true}),
            ),
        ],
        "manage_files" => vec![
            slot(
                "operations",
                |p| json!({"operations": [{"op": "delete", "path": p, "recursive": true}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"op": "move", "from": p, "to": "m.txt"}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"op": "move", "from": "ok.txt", "to": p, "overwrite": true}]}),
            ),
            copy_source(
                "operations",
                |p| json!({"operations": [{"op": "copy", "from": p, "to": "c.txt"}]}),
            ),
            slot(
                "operations",
                |p| json!({"operations": [{"op": "copy", "from": "ok.txt", "to": p, "overwrite": true}]}),
            ),
        ],
        "history" => vec![slot("path", |p| json!({"path": p}))],
        "file_read" | "semantic:file_read" => {
            vec![slot("file", |p| json!({"file": p, "symbol": "SECRET"}))]
        }
        "file_edit" | "semantic:file_edit" => vec![slot(
            "file",
            |p| json!({"file": p, "target": "SECRET", "operation": "replace", "content": "pwned"}),
        )],
        // Entries of the history, by number: no path in the arguments.
        "undo" | "redo" => vec![],
        // The paths are inside the patch text: every kind of file section names one.
        "apply_patch" => vec![
            slot(
                "input",
                |p| json!({"input": format!("*** Begin Patch\n*** Update File: {p}\n@@\n-SECRET outside the workspace\n+pwned\n*** End Patch")}),
            ),
            slot(
                "input",
                |p| json!({"input": format!("*** Begin Patch\n*** Add File: {p}\n+pwned\n*** End Patch")}),
            ),
            slot(
                "input",
                |p| json!({"input": format!("*** Begin Patch\n*** Delete File: {p}\n*** End Patch")}),
            ),
            slot(
                "input",
                |p| json!({"input": format!("*** Begin Patch\n*** Update File: ok.txt\n*** Move to: {p}\n*** End Patch")}),
            ),
            slot(
                "input",
                |p| json!({"input": format!("--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-SECRET outside the workspace\n+pwned\n")}),
            ),
            slot(
                "input",
                |p| json!({"input": format!("{p}\n<<<<<<< SEARCH\nSECRET outside the workspace\n=======\npwned\n>>>>>>> REPLACE\n")}),
            ),
        ],
        // Leases name paths: the same resolution, and no lease where no write may go.
        "lock" => vec![slot(
            "paths",
            |p| json!({"paths": [p], "holder": "attacker"}),
        )],
        "unlock" => vec![slot(
            "paths",
            |p| json!({"paths": [p], "holder": "attacker", "force": true}),
        )],
        // The official MCP filesystem server's tools (mcp-filesystem).
        "read_file"
        | "read_text_file"
        | "read_media_file"
        | "list_directory"
        | "list_directory_with_sizes"
        | "directory_tree"
        | "get_file_info"
        | "create_directory" => vec![slot("path", |p| json!({"path": p}))],
        // Alone: as the server's, a call that read another file succeeds, the escape said in
        // its place (the rows of mcp_filesystem_golden check that text).
        "read_multiple_files" => vec![slot("paths", |p| json!({"paths": [p]}))],
        "write_file" => vec![slot("path", |p| json!({"path": p, "content": "pwned\n"}))],
        "edit_file" => vec![slot(
            "path",
            |p| json!({"path": p, "edits": [{"oldText": "SECRET", "newText": "pwned"}]}),
        )],
        "move_file" => vec![
            slot("source", |p| json!({"source": p, "destination": "m.txt"})),
            slot(
                "destination",
                |p| json!({"source": "ok.txt", "destination": p}),
            ),
        ],
        "search_files" => vec![slot("path", |p| json!({"path": p, "pattern": "**/*"}))],
        "list_allowed_directories" => vec![],
        // Desktop Commander's search sessions: only start_search names a path.
        "start_search" => vec![
            slot("path", |p| json!({"path": p, "pattern": "*"})),
            slot(
                "path",
                |p| json!({"path": p, "pattern": "SECRET", "searchType": "content"}),
            ),
        ],
        "get_more_search_results" | "stop_search" | "list_searches" => vec![],
        _ => return None,
    })
}

/// The arguments of each tool that are globs matched against paths: they must not reach
/// above their directory either.
fn pattern_slots(tool: &str) -> Vec<Slot> {
    match tool {
        "fs_write" => vec![slot("file_pattern", |p| {
            json!({"command": "pattern_replace", "directory": ".", "file_pattern": p,
                   "sed_pattern": "s/SECRET/pwned/", "recursive": true})
        })],
        "file:list_files" => vec![slot(
            "filter",
            |p| json!({"path": ".", "filter": p, "recursive": true}),
        )],
        "Glob" => vec![slot("pattern", |p| json!({"pattern": p}))],
        "Grep" => vec![slot("glob", |p| json!({"pattern": "SECRET", "glob": p}))],
        "find_files" => vec![slot("pattern", |p| json!({"pattern": p}))],
        "grep_files" => vec![slot("glob", |p| json!({"pattern": "SECRET", "glob": p}))],
        "replace_in_files" => vec![slot(
            "files",
            |p| json!({"expression": "s/SECRET/pwned/", "files": p}),
        )],
        "search_files" => vec![slot("pattern", |p| json!({"path": ".", "pattern": p}))],
        "start_search" => vec![
            slot("pattern", |p| json!({"path": ".", "pattern": p})),
            slot(
                "filePattern",
                |p| json!({"path": ".", "pattern": "*", "filePattern": p}),
            ),
        ],
        _ => vec![],
    }
}

/// Arguments that carry no path (texts, numbers, flags, regexes, ignore globs that only
/// remove files from a walk).
fn not_paths(tool: &str) -> &'static [&'static str] {
    match tool {
        "fs_read" => &[
            "mode",
            "start_line",
            "end_line",
            "depth",
            "pattern",
            "context_lines",
            // Ignore globs (they only leave entries out of a listing), paging, Q's summary.
            "exclude_patterns",
            "max_entries",
            "offset",
            "summary",
        ],
        "fs_write" => &[
            "command",
            "file_text",
            "overwrite",
            "old_str",
            "new_str",
            "insert_line",
            "start_line",
            "end_line",
            "content_hash",
            "dry_run",
            "atomic",
            "stop_on_error",
            "sed_pattern",
            "recursive",
            "exclude_patterns",
            "literal",
            "summary",
        ],
        "file:read_file" => &["start_line", "end_line"],
        "file:edit_file" => &[
            "edits",
            "start_line",
            "end_line",
            "new_content",
            "content_hash",
        ],
        "file:create_file" => &["content"],
        "file:list_files" => &["recursive", "depth"],
        "Read" => &["offset", "limit", "pages", "allow_large"],
        "Write" => &["content"],
        "Edit" => &["old_string", "new_string", "replace_all"],
        "read_file" | "read_text_file" => &["head", "tail"],
        "write_file" => &["content"],
        "edit_file" => &["edits", "dryRun"],
        "list_directory_with_sizes" => &["sortBy"],
        // Ignore globs: they only leave entries out of a walk.
        "directory_tree" | "search_files" => &["excludePatterns"],
        "MultiEdit" => &["edits"],
        "LS" => &["ignore", "depth", "include_hidden", "include_ignored"],
        "Glob" => &["include_hidden", "include_ignored"],
        "Grep" => &[
            "pattern",
            "output_mode",
            "-B",
            "-A",
            "-C",
            "-n",
            "-i",
            "type",
            "head_limit",
            "multiline",
            "include_hidden",
            "include_ignored",
            "context",
            "-o",
            "offset",
        ],
        "edit_block" => &[
            "old_string",
            "new_string",
            "expected_replacements",
            // Desktop Commander's range is a cell range of a spreadsheet, not a path.
            "range",
            "content",
            "options",
            "origin",
        ],
        "list_dir" => &[
            "depth",
            "ignore",
            "max_entries",
            "include_hidden",
            "include_ignored",
        ],
        "find_files" => &[
            "ignore_case",
            "max_results",
            "offset",
            "include_hidden",
            "include_ignored",
        ],
        "grep_files" => &[
            "pattern",
            "type",
            "output_mode",
            "ignore_case",
            "literal",
            "multiline",
            "context",
            "before",
            "after",
            "max_results",
            "offset",
            "include_hidden",
            "include_ignored",
            // An encoding's label, checked against the WHATWG names.
            "encoding",
        ],
        // `range` and `sheet` name cells of a spreadsheet; isUrl true is refused.
        "desktop-commander:read_file" => &[
            "isUrl", "offset", "length", "sheet", "range", "options", "origin",
        ],
        "desktop-commander:write_file" => &["content", "mode", "origin"],
        "desktop-commander:list_directory" => &["depth", "origin"],
        "batch_edit_blocks" => &["edits", "stopOnError", "dryRun", "fuzzyThreshold"],
        "write_from_line" => &["startLine", "endLine", "content", "dryRun", "contentHash"],
        "edit_files" => &["options"],
        // An encoding's label, checked against the WHATWG names.
        "read_files" => &["encoding"],
        "replace_in_files" => &[
            "expression",
            "recursive",
            "exclude",
            "literal",
            "dry_run",
            "atomic",
        ],
        // `template` is a name, never a path: names with `/`, `\\` or a leading `.` are
        // refused (crates/cli/tests/history.rs).
        "file_create" => &[
            "content",
            "template",
            "templateVars",
            "overwrite",
            "createDirectories",
            "openInEditor",
        ],
        "file_delete" => &["recursive", "updateImports", "dryRun"],
        "file_move" => &[
            "updateImports",
            "overwrite",
            "renameExports",
            "exportMapping",
            "dryRun",
        ],
        // `newName` is a name, never a path: one with `/` or `\\` is refused
        // (crates/cli/tests/history.rs).
        "file_rename" => &[
            "newName",
            "updateImports",
            "renameExports",
            "exportMapping",
            "dryRun",
        ],
        "file_duplicate" => &["renameSymbols", "symbolMapping", "overwrite"],
        "manage_files" => &["atomic", "dry_run", "update_imports"],
        "apply_patch" => &["format", "dry_run", "update_imports"],
        "lock" => &["ttl_seconds", "holder"],
        "unlock" => &["holder", "force"],
        "history" => &["limit", "entry"],
        "undo" => &["entry", "last", "force", "dry_run"],
        "redo" => &["entry", "force", "dry_run"],
        // `path` of file_read is a JSONPath into the file, not a file path.
        "file_read" => &[
            "symbol",
            "symbols",
            "path",
            "selector",
            "xpath",
            "heading",
            "around",
            "region",
            "max_lines",
            "include_metadata",
            "format",
            "encoding",
        ],
        "file_edit" => &[
            "target",
            "operation",
            "content",
            "wrapper",
            "position",
            "edits",
            "refactor",
            "symbol",
            "new_name",
            "scope",
            "selection_range",
            "extracted_name",
            "type_kind",
            "replace_all",
            // A module specifier compared with the candidates the import graph found,
            // never resolved as a path of its own.
            "module",
            "untyped_parameters",
            "dry_run",
            "preview",
            "force",
            "encoding",
        ],
        // The same two tools in the `semantic` table's spelling.
        "semantic:file_read" => &[
            "symbol",
            "symbols",
            "path",
            "selector",
            "xpath",
            "heading",
            "around",
            "region",
            "maxLines",
            "includeMetadata",
            "format",
            "encoding",
        ],
        "semantic:file_edit" => &[
            "target",
            "operation",
            "content",
            "wrapper",
            "position",
            "edits",
            "refactor",
            "symbol",
            "newName",
            "scope",
            "selectionRange",
            "extractedName",
            "typeKind",
            "replaceAll",
            // A module specifier compared with the candidates the import graph found,
            // never resolved as a path of its own.
            "module",
            "untypedParameters",
            "dryRun",
            "preview",
            "force",
            "encoding",
        ],
        "start_search" => &[
            "searchType",
            "ignoreCase",
            "maxResults",
            "includeHidden",
            "contextLines",
            "timeout_ms",
            "earlyTermination",
            "literalSearch",
            "origin",
        ],
        "get_more_search_results" => &["sessionId", "offset", "length"],
        "stop_search" => &["sessionId"],
        _ => &[],
    }
}

/// The tool table as `filekit tools --json` prints it.
/// The key of a tool of [`tool_table`] in [`path_slots`], [`pattern_slots`] and [`not_paths`]:
/// `table:name` where that is classified (a name tables define differently), else its name.
fn key_of(tool: &Value) -> String {
    let name = tool["name"].as_str().unwrap();
    let qualified = format!("{}:{name}", tool["dialect"].as_str().unwrap());
    if path_slots(&qualified).is_some() {
        qualified
    } else {
        name.to_string()
    }
}

fn tool_table() -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["tools", "--json"])
        .output()
        .expect("run filekit tools");
    assert!(out.status.success());
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("tools --json")
        .as_array()
        .expect("an array of tools")
        .clone()
}

#[test]
fn every_argument_of_every_tool_is_classified() {
    let table = tool_table();
    assert!(table.len() >= 19, "the table shrank: {}", table.len());
    let mut unclassified = Vec::new();
    for tool in &table {
        let name = tool["name"].as_str().unwrap();
        let key = key_of(tool);
        let slots = path_slots(&key).unwrap_or_else(|| {
            panic!(
                "{name} is a new tool: add the arguments that carry a path to path_slots (and \
                 its glob arguments to pattern_slots) in crates/cli/tests/attack.rs, so that \
                 the attack suite covers it"
            )
        });
        assert!(
            !slots.is_empty()
                || matches!(
                    name,
                    "undo"
                        | "redo"
                        | "list_allowed_directories"
                        | "get_more_search_results"
                        | "stop_search"
                        | "list_searches"
                ),
            "{name}: no path argument attacked"
        );
        let mut known: Vec<&str> = slots.iter().map(|s| s.arg).collect();
        known.extend(pattern_slots(&key).iter().map(|s| s.arg));
        known.extend(not_paths(&key));
        for arg in tool["input_schema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            if !known.contains(&arg.as_str()) {
                unclassified.push(format!("{name}: `{arg}`"));
            }
        }
    }
    assert!(
        unclassified.is_empty(),
        "arguments not classified (attack each in path_slots or pattern_slots of \
         crates/cli/tests/attack.rs if it can carry a path, or list it in not_paths):\n{}",
        unclassified.join("\n")
    );
}

/// A workspace root with hostile things inside, beside directories that must stay
/// untouched: `outside/` and `root-evil/` (whose name extends the root's).
struct Arena {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    /// What must stay unread and unchanged.
    guarded: Vec<PathBuf>,
}

const SECRET: &[u8] = b"SECRET outside the workspace\n";

impl Arena {
    fn new() -> Arena {
        let dir = tempfile::tempdir().unwrap();
        // Canonical: symlink targets and messages then name the real paths.
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        let evil = base.join("root-evil");
        for d in [
            &root,
            &outside,
            &evil,
            &outside.join("deeper"),
            &root.join("sub"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for f in [
            outside.join("secret.txt"),
            outside.join("deeper/secret.txt"),
            evil.join("secret.txt"),
        ] {
            std::fs::write(f, SECRET).unwrap();
        }
        std::fs::write(root.join("ok.txt"), "SECRET inside is fine\n").unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::create_dir_all(root.join("nested/.git")).unwrap();
        std::fs::write(root.join("nested/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(root.join(".filekit")).unwrap();
        std::fs::write(root.join(".filekit/data"), "SECRET filekit data\n").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        };
        link(&outside.join("secret.txt"), "link_file");
        link(&outside, "link_dir");
        link(&outside.join("new.txt"), "dangling");
        link(Path::new("chain2"), "chain1");
        link(Path::new("../outside/secret.txt"), "chain2");
        link(Path::new("../outside"), "rel_dir");
        link(Path::new("../../outside"), "sub/parent_link");
        link(Path::new(".."), "up");
        link(&evil, "evil_link");
        link(Path::new("/proc/self/environ"), "proc_link");
        link(Path::new("/dev/zero"), "dev_link");
        let fifo = root.join("fifo");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo");
        Arena {
            _dir: dir,
            guarded: vec![outside, evil],
            base,
            root,
        }
    }

    /// Every file and directory under the guarded directories, with its bytes.
    fn guarded_state(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(p: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            let m = std::fs::symlink_metadata(p).unwrap();
            if m.is_dir() {
                out.insert(p.to_path_buf(), b"<dir>".to_vec());
                for e in std::fs::read_dir(p).unwrap() {
                    walk(&e.unwrap().path(), out);
                }
            } else {
                out.insert(p.to_path_buf(), std::fs::read(p).unwrap());
            }
        }
        let mut out = BTreeMap::new();
        for g in &self.guarded {
            walk(g, &mut out);
        }
        out
    }

    /// Watches every guarded directory (recursively) for any access.
    fn watch(&self) -> Watch {
        use rustix::fs::inotify;
        let fd = inotify::init(inotify::CreateFlags::NONBLOCK | inotify::CreateFlags::CLOEXEC)
            .expect("inotify");
        let mut dirs = Vec::new();
        for g in &self.guarded {
            dirs.push(g.clone());
            for e in std::fs::read_dir(g).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                }
            }
        }
        let mut names = BTreeMap::new();
        for d in dirs {
            // Everything but CLOSE_NOWRITE, which only follows an OPEN (reported anyway) and
            // may come late from the test's own reads of the guarded files.
            let wd = inotify::add_watch(
                &fd,
                &d,
                inotify::WatchFlags::ALL_EVENTS - inotify::WatchFlags::CLOSE_NOWRITE,
            )
            .expect("inotify watch");
            names.insert(wd, d);
        }
        let w = Watch { fd, names };
        // Setting up read the directories: start clean.
        w.events();
        w
    }
}

struct Watch {
    fd: OwnedFd,
    names: BTreeMap<i32, PathBuf>,
}

impl Watch {
    /// The events since the last call, as `path: EVENTS`.
    fn events(&self) -> Vec<String> {
        use rustix::fs::inotify;
        let mut buf = [std::mem::MaybeUninit::uninit(); 8192];
        let mut reader = inotify::Reader::new(&self.fd, &mut buf);
        let mut out = Vec::new();
        loop {
            match reader.next() {
                Ok(e) => {
                    let dir = self.names.get(&e.wd()).cloned().unwrap_or_default();
                    let name = e
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    out.push(format!("{}: {:?}", dir.join(name).display(), e.events()));
                }
                Err(e) if e == rustix::io::Errno::AGAIN => break,
                Err(e) => panic!("reading inotify events: {e}"),
            }
        }
        out
    }
}

/// What a run of `filekit call` gave.
struct Reply {
    code: i32,
    json: Value,
    text: String,
}

/// Runs `filekit --root ROOT call` with `call_json` (raw bytes, so that invalid JSON and
/// invalid UTF-8 can be sent) and environment `env`; kills it if it hangs (a FIFO opened
/// for reading would block forever).
fn run_call(root: &Path, call_json: &[u8], env: &[(&str, &Path)]) -> Reply {
    run_call_in(root, None, call_json, env)
}

/// [`run_call`] of the tool of one table (`filekit call --tools TABLE`): where tables define
/// a name differently, the one attacked.
fn run_call_in(root: &Path, table: Option<&str>, call_json: &[u8], env: &[(&str, &Path)]) -> Reply {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
    // filekit's state beside the root (never watched as "outside": it is filekit's own).
    cmd.current_dir(root)
        .env("XDG_STATE_HOME", root.parent().unwrap().join("state"))
        .arg("--root")
        .arg(root)
        .arg("call");
    if let Some(table) = table {
        cmd.args(["--tools", table]);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run filekit");
    child.stdin.take().unwrap().write_all(call_json).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "filekit call hung (did it open a FIFO or a device?): {}",
                String::from_utf8_lossy(call_json)
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Reply {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        text: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
    }
}

fn call_bytes(tool: &str, args: &Value) -> Vec<u8> {
    json!({"tool_name": tool, "tool_args": args})
        .to_string()
        .into_bytes()
}

/// One `filekit --root ROOT serve --tools TABLE` per table, each an MCP stdio session for
/// every attack on that table's tools: thousands of calls at a JSON-RPC round trip each, not
/// a process start each. `HOME` is the guarded folder, so that a `~` that expanded would reach
/// it.
struct Sessions {
    root: PathBuf,
    home: PathBuf,
    state: PathBuf,
    by_table: BTreeMap<String, crate::common::McpStdio>,
}

impl Sessions {
    fn new(a: &Arena) -> Sessions {
        Sessions {
            root: a.root.clone(),
            home: a.base.join("outside"),
            state: a.base.join("state"),
            by_table: BTreeMap::new(),
        }
    }

    /// Calls `tool` of `table`: the exit code `filekit call` would give (0 done, 1 failed,
    /// 2 rejected), the structured reply, and everything the reply says.
    fn call(&mut self, table: &str, tool: &str, args: &Value) -> Reply {
        let session = self.by_table.entry(table.to_string()).or_insert_with(|| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
            cmd.current_dir(&self.root)
                .env("XDG_STATE_HOME", &self.state)
                .env("HOME", &self.home)
                .arg("--root")
                .arg(&self.root)
                .args(["serve", "--tools", table]);
            crate::common::McpStdio::start(cmd)
        });
        let result = session.call_tool(tool, args);
        let rejected = result["_meta"]["filekit/rejected"] == json!(true);
        let code = match (result["isError"].as_bool().unwrap_or(false), rejected) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        };
        let mut text = String::new();
        for block in result["content"].as_array().into_iter().flatten() {
            text.push_str(block["text"].as_str().unwrap_or_default());
            text.push('\n');
        }
        // A table whose real tools answer in text alone sends no structured reply: its text is
        // the reply (JSON for amazonq's tools, Claude Code's words for claude's).
        let json = match &result["structuredContent"] {
            Value::Null => serde_json::from_str(text.trim()).unwrap_or(Value::Null),
            structured => structured.clone(),
        };
        text.push_str(&json.to_string());
        Reply { code, json, text }
    }
}

/// One attack: the path (or pattern) given, and what the refusal must say.
struct Attack {
    what: &'static str,
    given: String,
    /// Every one of these must be in the reply (case-insensitive).
    says: &'static [&'static str],
}

/// The path attacks, with paths under `arena`.
fn path_attacks(a: &Arena) -> Vec<Attack> {
    let out = a.base.join("outside");
    let abs = |p: &Path| p.display().to_string();
    let outside_msg: &'static [&'static str] = &["outside the workspace"];
    let link_msg: &'static [&'static str] = &["outside the workspace", "symbolic link"];
    let mut v = vec![
        Attack {
            what: "dot-dot",
            given: "../outside/secret.txt".into(),
            says: outside_msg,
        },
        Attack {
            what: "dot-dot to a directory",
            given: "../outside".into(),
            says: outside_msg,
        },
        Attack {
            what: "dot-dot after a name",
            given: "sub/../../outside/secret.txt".into(),
            says: outside_msg,
        },
        Attack {
            what: "many dot-dots",
            given: "../../../../../../../../etc/passwd".into(),
            says: outside_msg,
        },
        Attack {
            what: "absolute outside",
            given: abs(&out.join("secret.txt")),
            says: outside_msg,
        },
        Attack {
            what: "absolute outside directory",
            given: abs(&out),
            says: outside_msg,
        },
        Attack {
            what: "absolute, back out of the root",
            given: format!("{}/../outside/secret.txt", abs(&a.root)),
            says: outside_msg,
        },
        Attack {
            what: "sibling whose name extends the root's",
            given: format!("{}-evil/secret.txt", abs(&a.root)),
            says: outside_msg,
        },
        Attack {
            what: "sibling directory",
            given: format!("{}-evil", abs(&a.root)),
            says: outside_msg,
        },
        Attack {
            what: "tilde (HOME is outside)",
            given: "~/secret.txt".into(),
            says: outside_msg,
        },
        Attack {
            what: "tilde alone",
            given: "~".into(),
            says: outside_msg,
        },
        Attack {
            what: "symlink to an outside file",
            given: "link_file".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink to an outside directory",
            given: "link_dir".into(),
            says: link_msg,
        },
        Attack {
            what: "file through a symlinked directory",
            given: "link_dir/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "deeper through a symlinked directory",
            given: "link_dir/deeper/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "relative symlink to a directory",
            given: "rel_dir/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "dangling symlink (create through it)",
            given: "dangling".into(),
            says: link_msg,
        },
        Attack {
            what: "chained symlinks",
            given: "chain1".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink in a parent component",
            given: "sub/parent_link/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "new file under a symlink in a parent",
            given: "sub/parent_link/new.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink to the root's parent",
            given: "up/outside/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink to the evil sibling",
            given: "evil_link/secret.txt".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink to /proc",
            given: "proc_link".into(),
            says: link_msg,
        },
        Attack {
            what: "symlink to a device",
            given: "dev_link".into(),
            says: link_msg,
        },
        Attack {
            what: "/proc",
            given: "/proc/self/environ".into(),
            says: outside_msg,
        },
        Attack {
            what: "/proc through the root's fd",
            given: "/proc/self/cwd/../outside/secret.txt".into(),
            says: outside_msg,
        },
        Attack {
            what: "a device",
            given: "/dev/zero".into(),
            says: outside_msg,
        },
        Attack {
            what: "a FIFO inside the root",
            given: "fifo".into(),
            says: &["fifo"],
        },
        Attack {
            what: "NUL byte",
            given: "ok.txt\0../../outside/secret.txt".into(),
            says: &["NUL"],
        },
        Attack {
            what: "very long path",
            given: format!("{}x", "a/".repeat(3000)),
            says: &["too long", "shorter"],
        },
        Attack {
            what: "very long name",
            given: "n".repeat(300),
            says: &["too long", "shorter"],
        },
    ];
    v.push(Attack {
        what: "very long path of dot-dots",
        given: format!("{}outside/secret.txt", "../".repeat(2000)),
        says: &["too long"],
    });
    v
}

/// Glob attacks: patterns that try to walk above their directory.
fn pattern_attacks(a: &Arena) -> Vec<Attack> {
    let says: &'static [&'static str] = &[".."];
    vec![
        Attack {
            what: "glob ../**",
            given: "../**".into(),
            says,
        },
        Attack {
            what: "glob ../outside/*",
            given: "../outside/*".into(),
            says,
        },
        Attack {
            what: "glob **/../../outside/*",
            given: "**/../../outside/*".into(),
            says,
        },
        Attack {
            what: "glob ./../*",
            given: "./../*".into(),
            says,
        },
        Attack {
            what: "absolute glob outside",
            given: format!("{}/*", a.base.join("outside").display()),
            says: &[],
        },
    ]
}

/// The end of a long reply: where the error and its hint are.
fn short(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars[chars.len().saturating_sub(1500)..].iter().collect()
}

/// Runs one attack and checks the refusal and the guarded files.
fn assert_refused(
    sessions: &mut Sessions,
    a: &Arena,
    watch: &Watch,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    (table, tool): (&str, &str),
    args: &Value,
    attack: &Attack,
) {
    let reply = sessions.call(table, tool, args);
    let label: String = format!("{tool} {} ({})", args, attack.what)
        .chars()
        .take(400)
        .collect();
    assert_ne!(
        reply.code,
        0,
        "{label}: not refused:\n{}",
        short(&reply.text)
    );
    assert!(
        !reply.json.is_null() || filekit_dialects::TEXT_REPLIES.contains(&table),
        "{label}: the reply is not JSON:\n{}",
        reply.text
    );
    let lower = reply.text.to_lowercase();
    if attack.says.is_empty() {
        // An absolute glob: refused as outside (Glob takes its directory part as the path to
        // search) or as an absolute pattern (the others match relative paths).
        assert!(
            lower.contains("outside the workspace") || lower.contains("is an absolute path"),
            "{label}: the refusal should say why:\n{}",
            short(&reply.text)
        );
    }
    for needle in attack.says {
        assert!(
            lower.contains(&needle.to_lowercase()),
            "{label}: the refusal should say {needle:?}:\n{}",
            short(&reply.text)
        );
    }
    assert!(
        !reply.text.contains("SECRET outside"),
        "{label}: outside content in the reply:\n{}",
        reply.text
    );
    let events = watch.events();
    assert!(
        events.is_empty(),
        "{label}: the guarded directories were accessed:\n{}",
        events.join("\n")
    );
    assert_eq!(
        before,
        &a.guarded_state(),
        "{label}: the guarded files changed"
    );
    // Reading the guarded state made events of its own.
    watch.events();
}

#[test]
fn every_path_argument_of_every_tool_refuses_every_escape() {
    let a = Arena::new();
    let before = a.guarded_state();
    let watch = a.watch();
    let mut sessions = Sessions::new(&a);
    let mut attempts = 0;
    for tool in tool_table() {
        let name = tool["name"].as_str().unwrap();
        let table = tool["dialect"].as_str().unwrap();
        let slots = path_slots(&key_of(&tool)).expect("classified (see the test above)");
        for s in &slots {
            for attack in path_attacks(&a) {
                // A FIFO is refused by tools that open files; a walk (a listing, a search)
                // passes over it harmlessly. Either way the call must not hang on it.
                if attack.what.contains("FIFO") {
                    let args = (s.build)(&attack.given);
                    let reply = sessions.call(table, name, &args);
                    if reply.code != 0 {
                        assert!(reply.text.contains("fifo"), "{name} {args}: {}", reply.text);
                    }
                    continue;
                }
                assert_refused(
                    &mut sessions,
                    &a,
                    &watch,
                    &before,
                    (table, name),
                    &(s.build)(&attack.given),
                    &attack,
                );
                attempts += 1;
            }
        }
        for s in pattern_slots(&key_of(&tool)) {
            for attack in pattern_attacks(&a) {
                // Grep's globs are ripgrep's: a leading `/` anchors the glob at the directory
                // searched, so `/tmp/x/outside/*` names `<root>/tmp/x/outside/*`, which is
                // inside; it must find nothing and touch nothing outside.
                if matches!(name, "Grep" | "grep_files") && attack.given.starts_with('/') {
                    let args = (s.build)(&attack.given);
                    let reply = sessions.call(table, name, &args);
                    // Claude Code's Grep answers in text alone.
                    let found_none = if name == "Grep" {
                        ["No files found", "No matches found", "across 0 files"]
                            .iter()
                            .any(|none| reply.text.contains(none))
                    } else {
                        reply.json["total_files"] == 0
                    };
                    assert!(found_none, "{args}: {}", reply.text);
                    assert!(watch.events().is_empty(), "{args}: outside accessed");
                    assert_eq!(before, a.guarded_state());
                    watch.events();
                    continue;
                }
                assert_refused(
                    &mut sessions,
                    &a,
                    &watch,
                    &before,
                    (table, name),
                    &(s.build)(&attack.given),
                    &attack,
                );
                attempts += 1;
            }
        }
    }
    assert!(attempts > 500, "only {attempts} attempts");
}

/// What filekit itself keeps in `.filekit/` (the backups of atomic requests while they run,
/// the `.gitignore` it writes there): not something a tool wrote there. Its state (history,
/// versions, leases) is not in the tree at all.
fn is_filekit_bookkeeping(root: &Path, p: &Path) -> bool {
    let Ok(rel) = p.strip_prefix(root.join(".filekit")) else {
        return false;
    };
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    matches!(first.as_deref(), Some("journal" | ".gitignore"))
}

/// `.filekit/` always, and `.git/` (at any depth) by default, refuse writes from every
/// writing tool; reading them is allowed.
#[test]
fn reserved_directories_refuse_writes() {
    let a = Arena::new();
    let protected = [
        (".filekit/data", ".filekit"),
        (".filekit/new.txt", ".filekit"),
        (".git/config", ".git"),
        (".git/hooks/pre-commit", ".git"),
        ("nested/.git/HEAD", ".git"),
        (".GIT/config", ".git"),
    ];
    let snapshot = || {
        let mut all = BTreeMap::new();
        for d in [".git", ".filekit", "nested"] {
            let mut stack = vec![a.root.join(d)];
            while let Some(p) = stack.pop() {
                if p.is_dir() {
                    stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
                } else if p.exists() && !is_filekit_bookkeeping(&a.root, &p) {
                    all.insert(p.clone(), std::fs::read(&p).unwrap());
                }
            }
        }
        all
    };
    let before = snapshot();
    let mut sessions = Sessions::new(&a);
    for tool in tool_table() {
        if tool["read_only"] == true {
            continue;
        }
        let name = tool["name"].as_str().unwrap();
        let table = tool["dialect"].as_str().unwrap();
        for s in path_slots(&key_of(&tool)).unwrap() {
            if s.copied_from {
                continue;
            }
            for (path, dir) in protected {
                let args = (s.build)(path);
                let reply = sessions.call(table, name, &args);
                assert_ne!(
                    reply.code, 0,
                    "{name} {args}: wrote into {dir}/:\n{}",
                    reply.text
                );
                assert!(
                    reply.text.contains(&format!("{dir}/")),
                    "{name} {args}: the refusal should name {dir}/:\n{}",
                    reply.text
                );
                assert_eq!(before, snapshot(), "{name} {args}: {dir}/ changed");
            }
        }
    }
    assert!(!a.root.join(".GIT").exists() && !a.root.join(".filekit/new.txt").exists());
    // Reading is fine.
    let reply = run_call(
        &a.root,
        &call_bytes("Read", &json!({"file_path": ".git/config"})),
        &[],
    );
    assert_eq!(reply.code, 0, "{}", reply.text);
}

/// Environment variables are never expanded: `$HOME/x` is a file literally named so, inside
/// the root.
#[test]
fn environment_variables_are_not_expanded() {
    let a = Arena::new();
    let before = a.guarded_state();
    let watch = a.watch();
    let outside = a.base.join("outside");
    for given in [
        "$HOME/secret.txt",
        "${HOME}/secret.txt",
        "%HOME%/secret.txt",
        "$OUT",
    ] {
        for (tool, args) in [
            ("Read", json!({"file_path": given})),
            ("Write", json!({"file_path": given, "content": "literal\n"})),
        ] {
            let reply = run_call(
                &a.root,
                &call_bytes(tool, &args),
                &[("HOME", outside.as_path()), ("OUT", outside.as_path())],
            );
            if tool == "Read" {
                assert_ne!(reply.code, 0, "{tool} {given}:\n{}", reply.text);
                assert!(reply.text.contains("does not exist"), "{}", reply.text);
            } else {
                assert_eq!(reply.code, 0, "{tool} {given}:\n{}", reply.text);
                assert_eq!(std::fs::read(a.root.join(given)).unwrap(), b"literal\n");
            }
            assert!(
                watch.events().is_empty(),
                "{tool} {given}: outside accessed"
            );
        }
    }
    assert_eq!(before, a.guarded_state());
}

/// Paths that are not valid UTF-8 cannot be spelled in a JSON tool call: the call is refused
/// as a whole with a clear error, and nothing is touched.
#[test]
fn invalid_utf8_in_a_call_is_refused() {
    let a = Arena::new();
    let before = a.guarded_state();
    let watch = a.watch();
    let raw: &[u8] = b"{\"tool_name\":\"Write\",\"tool_args\":{\"file_path\":\"bad\xff.txt\",\"content\":\"x\"}}";
    let reply = run_call(&a.root, raw, &[]);
    assert_eq!(reply.code, 2, "{}", reply.text);
    assert!(
        reply.text.contains("not contain valid UTF-8"),
        "{}",
        reply.text
    );
    let lone = br#"{"tool_name":"Write","tool_args":{"file_path":"bad\udcff.txt","content":"x"}}"#;
    let reply = run_call(&a.root, lone, &[]);
    assert_eq!(reply.code, 2, "{}", reply.text);
    assert!(reply.text.contains("surrogate"), "{}", reply.text);
    assert!(
        std::fs::read_dir(&a.root)
            .unwrap()
            .all(|e| { !e.unwrap().file_name().to_string_lossy().starts_with("bad") })
    );
    assert!(watch.events().is_empty());
    assert_eq!(before, a.guarded_state());
}

/// The hard-link policy (SECURITY.md): a hard link inside a root is a file of the root, so
/// reading it reads the shared content; a write never changes the shared inode, it replaces
/// the name inside the root, so the outside name keeps its bytes.
#[test]
fn writes_through_a_hard_link_never_reach_the_outside_inode() {
    let a = Arena::new();
    let outside = a.base.join("outside/secret.txt");
    let inside = a.root.join("hard.txt");
    std::fs::hard_link(&outside, &inside).unwrap();
    let before = a.guarded_state();
    for (tool, args) in [
        (
            "Edit",
            json!({"file_path": "hard.txt", "old_string": "SECRET", "new_string": "edited"}),
        ),
        (
            "Write",
            json!({"file_path": "hard.txt", "content": "overwritten\n"}),
        ),
        (
            "fs_write",
            json!({"command": "append", "path": "hard.txt", "new_str": "appended\n"}),
        ),
    ] {
        // Each write starts from a fresh hard link.
        let _ = std::fs::remove_file(&inside);
        std::fs::hard_link(&outside, &inside).unwrap();
        let reply = run_call(&a.root, &call_bytes(tool, &args), &[]);
        assert_eq!(reply.code, 0, "{tool}: {}", reply.text);
        assert_ne!(
            std::fs::read(&inside).unwrap(),
            SECRET,
            "{tool}: not written"
        );
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(&inside).unwrap().nlink(),
            1,
            "{tool}: still linked"
        );
        assert_eq!(
            before,
            a.guarded_state(),
            "{tool}: the outside inode changed"
        );
    }
}

/// A symlink to the outside swapped in between the check and the use, many times: a file
/// (`swap`) and a directory (`swapdir`) are exchanged atomically (renameat2 EXCHANGE) with
/// symlinks to the outside, by a thread that never stops while reads and writes run on
/// them. No reply may carry outside content, and nothing outside may be opened or changed.
#[test]
fn symlink_swapped_between_check_and_use() {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let a = Arena::new();
    let outside = a.base.join("outside");
    std::fs::write(a.root.join("swap"), "inside\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), a.root.join("swap.alt")).unwrap();
    std::fs::create_dir(a.root.join("swapdir")).unwrap();
    std::fs::write(a.root.join("swapdir/secret.txt"), "inside\n").unwrap();
    std::os::unix::fs::symlink(&outside, a.root.join("swapdir.alt")).unwrap();
    let before = a.guarded_state();
    let watch = a.watch();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, root) = (Arc::clone(&stop), Arc::clone(&swaps), a.root.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for name in ["swap", "swapdir"] {
                    let (x, y) = (root.join(name), root.join(format!("{name}.alt")));
                    // A write may have replaced one of them with a plain file; then only
                    // the other pair keeps swapping.
                    if renameat_with(CWD, &x, CWD, &y, RenameFlags::EXCHANGE).is_ok() {
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        })
    };

    let ws = filekit_core::Workspace::new(std::slice::from_ref(&a.root), false).unwrap();
    let calls = [
        ("Read", json!({"file_path": "swap"})),
        ("Write", json!({"file_path": "swap", "content": "inside\n"})),
        ("Read", json!({"file_path": "swapdir/secret.txt"})),
        (
            "Write",
            json!({"file_path": "swapdir/secret.txt", "content": "inside\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "swapdir/secret.txt", "old_string": "inside", "new_string": "inside"}),
        ),
        (
            "read_files",
            json!({"files": [{"path": "swap"}, {"path": "swapdir/secret.txt"}]}),
        ),
    ];
    let mut refused = 0;
    for i in 0..3000 {
        let (tool, args) = &calls[i % calls.len()];
        let reply = filekit_dialects::call(&ws, tool, args.clone());
        let shown = reply.value.to_string();
        assert!(
            !shown.contains("SECRET outside") && !reply.text.contains("SECRET outside"),
            "{tool} {args} read outside content during a swap: {shown}"
        );
        refused += usize::from(reply.is_error);
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let events = watch.events();
    assert!(
        events.is_empty(),
        "outside accessed during the race:\n{}",
        events.join("\n")
    );
    assert_eq!(before, a.guarded_state(), "outside changed during the race");
    // The race really ran: the links were swapped while calls ran, and some calls met them.
    assert!(
        swaps.load(Ordering::Relaxed) > 100,
        "the swapper barely ran"
    );
    assert!(refused > 0, "no call ever met a swapped-in link");
}

/// `filekit replace --in-place` on a hard link to a file outside the root (as `sed -i` or
/// fastmod would be asked): the file has another name, so it is written by replacing its name
/// in the root, never through the shared inode; the outside name keeps its bytes. Alone, and
/// inside a tree-wide replace.
#[test]
fn in_place_writes_never_reach_a_shared_inode() {
    use std::os::unix::fs::MetadataExt;
    let a = Arena::new();
    let outside = a.base.join("outside/secret.txt");
    let inside = a.root.join("sub/inside.txt");
    let before = a.guarded_state();
    for target in ["sub/inside.txt", "sub"] {
        let _ = std::fs::remove_file(&inside);
        std::fs::hard_link(&outside, &inside).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(&a.root)
            .env("XDG_STATE_HOME", a.base.join("state"))
            .args(["replace", "--in-place", "s/SECRET/edited/", target])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{target}: {said}");
        assert_eq!(
            std::fs::read(&inside).unwrap(),
            b"edited outside the workspace\n",
            "{target}: the name in the root was not written"
        );
        assert_eq!(std::fs::metadata(&inside).unwrap().nlink(), 1, "{target}");
        assert_eq!(
            before,
            a.guarded_state(),
            "{target}: the outside name changed through the shared inode"
        );
    }
}

/// The files whose content makes a program run later, in a root: each path and how it is
/// reached (its name in another case, a link at the protected name, a link to it, a linked
/// folder on the way). Every one holds [`SECRET`], so that the edits of the slots apply and
/// only the write policy can refuse them.
fn protected_arena() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for d in [
        "app/.vscode",
        "sub/deep",
        ".claude",
        ".cursor",
        "proj2",
        "realclaude",
    ] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in [
        "ok.txt",
        ".mcp.json",
        "app/.vscode/tasks.json",
        "sub/deep/.envrc",
        ".claude/settings.local.json",
        "linked.txt",
        "realclaude/settings.json",
    ] {
        std::fs::write(root.join(f), SECRET).unwrap();
    }
    std::os::unix::fs::symlink("../linked.txt", root.join(".cursor/mcp.json")).unwrap();
    std::os::unix::fs::symlink(".mcp.json", root.join("alias.json")).unwrap();
    std::os::unix::fs::symlink("../realclaude", root.join("proj2/.claude")).unwrap();
    (dir, root)
}

/// Every path of [`protected_arena`] the tools are pointed at.
const PROTECTED_PATHS: &[&str] = &[
    ".mcp.json",
    "app/.vscode/tasks.json",
    "app/.VSCODE/MCP.json",
    "sub/deep/.envrc",
    ".claude/settings.local.json",
    ".Claude/Settings.json",
    ".cursor/mcp.json",
    "proj2/.claude/settings.json",
];

/// Every file and link under `root` with its bytes (a link as its target).
fn tree_state(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.file_type().is_symlink() {
            out.insert(
                p.clone(),
                std::fs::read_link(&p)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes(),
            );
        } else if m.is_dir() {
            if p.file_name().is_some_and(|n| n == ".filekit") {
                continue;
            }
            out.insert(p.clone(), b"<dir>".to_vec());
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}

/// Fails naming the paths that differ between two [`tree_state`]s.
#[track_caller]
fn assert_same_tree(
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
    label: &str,
) {
    let differ: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| match (before.contains_key(k), after.contains_key(k)) {
            (true, true) => format!("changed {}", k.display()),
            (true, false) => format!("removed {}", k.display()),
            _ => format!("created {}", k.display()),
        })
        .collect();
    assert!(differ.is_empty(), "{label}:\n{}", differ.join("\n"));
}

/// The protected set (SECURITY.md): every writing tool of every table, in each of its path
/// arguments, pointed at each protected file of a project (in another letter case, through a
/// link at the protected name, through a link to it, through a linked folder): refused, with
/// the way to allow it named, and nothing in the tree changed. Reading them is allowed.
#[test]
fn protected_files_refuse_every_writing_tool() {
    let (_dir, root) = protected_arena();
    let ws = filekit_core::Workspace::new(std::slice::from_ref(&root), false).unwrap();
    let before = tree_state(&root);
    let mut refusals = 0;
    let mut unexplained = Vec::new();
    for tool in tool_table() {
        if tool["read_only"] == true {
            continue;
        }
        let name = tool["name"].as_str().unwrap();
        let table = tool["dialect"].as_str().unwrap();
        for s in path_slots(&key_of(&tool)).unwrap() {
            if s.copied_from {
                continue;
            }
            for path in PROTECTED_PATHS {
                let args = (s.build)(path);
                let reply = filekit_dialects::call_in(&ws, Some(&[table]), name, args.clone());
                let text = format!("{} {}", reply.text, reply.value);
                assert_same_tree(
                    &before,
                    &tree_state(&root),
                    &format!("{table}:{name} {args} changed the tree:\n{text}"),
                );
                // A path that names no file (another case, a file given as a folder) is
                // refused for that before the policy is asked.
                let elsewise = [
                    "does not exist",
                    "not a directory",
                    "is there",
                    "EEXIST",
                    "ENOENT",
                ];
                if reply.is_error && text.contains("--allow-protected-writes") {
                    refusals += 1;
                } else if !elsewise.iter().any(|w| text.contains(w)) {
                    unexplained.push(format!("{table}:{name} {args}: {}", short(&text)));
                }
            }
        }
    }
    // A link to a protected file is a way to write it, not to move or delete it: a move or a
    // delete of `alias.json` acts on the link itself.
    for (tool, args) in [
        (
            "Write",
            json!({"file_path": "alias.json", "content": "pwned\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "alias.json", "old_string": "SECRET", "new_string": "pwned"}),
        ),
        (
            "edit_files",
            json!({"files": [{"path": "alias.json", "edits": [{"str_replace": {"old": "SECRET", "new": "pwned"}}]}]}),
        ),
        (
            "fs_write",
            json!({"command": "str_replace", "path": "alias.json", "old_str": "SECRET", "new_str": "pwned"}),
        ),
    ] {
        let reply = filekit_dialects::call(&ws, tool, args.clone());
        let text = format!("{} {}", reply.text, reply.value);
        assert!(
            text.contains("--allow-protected-writes"),
            "{tool} {args}: {}",
            short(&text)
        );
        assert_same_tree(&before, &tree_state(&root), &format!("{tool} {args}"));
    }
    assert!(
        unexplained.is_empty(),
        "not refused as protected:\n{}",
        unexplained.join("\n")
    );
    assert!(refusals > 300, "only {refusals} refusals");
    for path in PROTECTED_PATHS
        .iter()
        .filter(|p| !p.contains("MCP") && !p.contains("Settings"))
    {
        let reply = filekit_dialects::call(&ws, "Read", json!({"file_path": path}));
        assert!(!reply.is_error, "reading {path}: {}", reply.text);
    }
    // The person who starts filekit may allow it.
    let allowed = filekit_core::Workspace::new(std::slice::from_ref(&root), false)
        .unwrap()
        .with_protected_writes(true);
    let reply = filekit_dialects::call(
        &allowed,
        "Write",
        json!({"file_path": ".mcp.json", "content": "{}\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(std::fs::read(root.join(".mcp.json")).unwrap(), b"{}\n");
}

/// A protected file is not reached by moving or removing a folder whole: a folder made of
/// plain names moved onto `.claude` (its `settings.json` would become Claude Code's settings),
/// the folder holding one moved away or removed, a link made at `.vscode`. Through the tools
/// and the CLI's verbs.
#[test]
fn folders_holding_protected_files_are_not_moved_or_removed() {
    let (_dir, root) = protected_arena();
    std::fs::create_dir_all(root.join("evil")).unwrap();
    std::fs::write(root.join("evil/settings.json"), "{\"hooks\": {}}\n").unwrap();
    std::fs::create_dir_all(root.join("plain")).unwrap();
    std::fs::write(root.join("plain/notes.txt"), "notes\n").unwrap();
    let before = tree_state(&root);
    let ws = filekit_core::Workspace::new(std::slice::from_ref(&root), false).unwrap();
    for (tool, args) in [
        (
            "file_move",
            json!({"source": "evil", "destination": "proj3/.claude"}),
        ),
        (
            "file_move",
            json!({"source": "evil", "destination": "proj3/.CLAUDE"}),
        ),
        ("file_move", json!({"source": "app", "destination": "app2"})),
        (
            "file_move",
            json!({"source": "sub", "destination": "elsewhere"}),
        ),
        ("file_delete", json!({"path": "app", "recursive": true})),
        ("file_delete", json!({"path": ".claude", "recursive": true})),
        (
            "file_move",
            json!({"source": "alias.json", "destination": "app3/.vscode"}),
        ),
        (
            "manage_files",
            json!({"operations": [{"op": "copy", "from": "evil", "to": "x/.claude"}]}),
        ),
    ] {
        let reply = filekit_dialects::call(&ws, tool, args.clone());
        assert!(reply.is_error, "{tool} {args}: {}", reply.text);
        let text = format!("{} {}", reply.text, reply.value);
        assert!(
            text.contains("--allow-protected-writes"),
            "{tool} {args}: the refusal should say how to allow it: {text}"
        );
        assert_same_tree(&before, &tree_state(&root), &format!("{tool} {args}"));
    }
    // A folder with no protected file in it moves as ever.
    let reply = filekit_dialects::call(
        &ws,
        "file_move",
        json!({"source": "plain", "destination": "plain2"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    for verb in [
        vec!["mv", "evil", "proj4/.claude"],
        vec!["rm", "-r", "sub"],
        vec!["cp", "evil", "proj5/.claude"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(&root)
            .env("XDG_STATE_HOME", root.join("../state-of-verbs"))
            .args(&verb)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{verb:?}: {said}");
        assert!(
            said.contains("--allow-protected-writes"),
            "{verb:?}: {said}"
        );
    }
    assert!(root.join("sub/deep/.envrc").exists() && !root.join("proj4").exists());
    assert!(!root.join("proj5/.claude").exists());
}

/// A root that holds the home folder (root = $HOME, as desktop clients are often set up):
/// the clients' user configurations, shell start-up files and `~/.ssh/` are not written,
/// created, moved or deleted through tools or verbs, in any case and through links; the
/// credentials are not read (their public keys are), by a read, a search or a copy; a start
/// option allows each.
#[test]
fn a_root_holding_the_home_folder_protects_its_configuration_and_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home");
    for d in [
        ".ssh",
        ".codex",
        ".config/Claude",
        ".aws",
        "dotfiles",
        "src",
    ] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    for f in [
        ".bashrc.real",
        ".ssh/authorized_keys",
        ".codex/config.toml",
        ".claude.json",
        ".config/Claude/claude_desktop_config.json",
        "dotfiles/zshrc",
        "src/ok.txt",
    ] {
        std::fs::write(home.join(f), SECRET).unwrap();
    }
    std::fs::rename(home.join(".bashrc.real"), home.join(".bashrc")).unwrap();
    std::os::unix::fs::symlink(home.join("dotfiles/zshrc"), home.join(".zshrc")).unwrap();
    let key = b"-----BEGIN OPENSSH PRIVATE KEY-----\nKEYMATERIAL\n";
    std::fs::write(home.join(".ssh/id_ed25519"), key).unwrap();
    std::fs::write(
        home.join(".ssh/id_ed25519.pub"),
        b"ssh-ed25519 AAAA public\n",
    )
    .unwrap();
    std::fs::write(
        home.join(".aws/credentials"),
        b"aws_secret_access_key = KEYMATERIAL\n",
    )
    .unwrap();
    std::fs::write(home.join(".netrc"), b"machine x password KEYMATERIAL\n").unwrap();
    let state = dir.path().join("state");
    let call = |extra: &[&str], tool: &str, args: Value| -> Reply {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
        cmd.current_dir(&home)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", &state)
            .arg("--root")
            .arg(&home)
            .args(extra)
            .arg("call")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&call_bytes(tool, &args))
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        Reply {
            code: out.status.code().unwrap_or(-1),
            json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            text: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
        }
    };
    let before = tree_state(&home);
    for path in [
        ".bashrc",
        ".BASHRC",
        ".zshrc",
        "dotfiles/zshrc",
        ".ssh/authorized_keys",
        ".ssh/new_key",
        ".codex/config.toml",
        ".claude.json",
        ".config/Claude/claude_desktop_config.json",
        ".config/fish/config.fish",
        ".local/bin/git",
        ".profile",
    ] {
        for (tool, args) in [
            ("Write", json!({"file_path": path, "content": "pwned\n"})),
            (
                "Edit",
                json!({"file_path": path, "old_string": "SECRET", "new_string": "pwned"}),
            ),
            (
                "file_move",
                json!({"source": "src/ok.txt", "destination": path, "overwrite": true}),
            ),
            ("file_delete", json!({"path": path})),
            (
                "file_move",
                json!({"source": path, "destination": "src/moved.txt"}),
            ),
        ] {
            let reply = call(&[], tool, args.clone());
            assert_ne!(reply.code, 0, "{tool} {args}: not refused:\n{}", reply.text);
            // `~/.ssh/` holds credentials too: a tool that reads before it writes is refused
            // the read.
            assert!(
                reply.text.contains("--allow-protected-writes")
                    || (path.starts_with(".ssh/") && reply.text.contains("--allow-secret-reads"))
                    || (tool != "Write" && reply.text.contains("does not exist")),
                "{tool} {args}: {}",
                short(&reply.text)
            );
            assert_same_tree(
                &before,
                &tree_state(&home),
                &format!("{tool} {args}: the home folder changed"),
            );
        }
    }
    for folder in [".ssh", ".config", "dotfiles"] {
        let reply = call(
            &[],
            "file_delete",
            json!({"path": folder, "recursive": true}),
        );
        assert_ne!(reply.code, 0, "{folder}: {}", reply.text);
        assert_same_tree(&before, &tree_state(&home), &format!("{folder} removed"));
    }
    // Credentials are not read, searched or copied; public keys are read.
    for (tool, args) in [
        ("Read", json!({"file_path": ".ssh/id_ed25519"})),
        ("Read", json!({"file_path": ".Ssh/id_ed25519"})),
        ("Read", json!({"file_path": ".aws/credentials"})),
        ("Read", json!({"file_path": ".netrc"})),
        (
            "file:copy_file",
            json!({"source_path": ".ssh/id_ed25519", "dest_path": "src/k.txt"}),
        ),
        (
            "Grep",
            json!({"pattern": "KEYMATERIAL", "path": ".", "output_mode": "content", "include_hidden": true, "include_ignored": true}),
        ),
        (
            "grep_files",
            json!({"pattern": "KEYMATERIAL", "path": ".", "include_hidden": true}),
        ),
    ] {
        let reply = call(&[], tool, args.clone());
        assert!(
            !reply.text.contains("KEYMATERIAL\n")
                && !reply.text.contains("= KEYMATERIAL")
                && !reply.text.contains("password KEYMATERIAL"),
            "{tool} {args} read a credential:\n{}",
            short(&reply.text)
        );
        if tool == "Read" || tool == "file:copy_file" {
            assert_ne!(reply.code, 0, "{tool} {args}");
            assert!(
                reply.text.contains("--allow-secret-reads"),
                "{tool} {args}: {}",
                short(&reply.text)
            );
        }
    }
    assert!(!home.join("src/k.txt").exists());
    let reply = call(&[], "Read", json!({"file_path": ".ssh/id_ed25519.pub"}));
    assert_eq!(reply.code, 0, "{}", reply.text);
    let reply = call(
        &["--allow-secret-reads"],
        "Read",
        json!({"file_path": ".ssh/id_ed25519"}),
    );
    assert_eq!(reply.code, 0, "{}", reply.text);
    assert!(reply.text.contains("KEYMATERIAL"));
    let reply = call(
        &["--allow-protected-writes"],
        "Write",
        json!({"file_path": ".bashrc", "content": "allowed\n"}),
    );
    assert_eq!(reply.code, 0, "{}", reply.text);
    assert_eq!(std::fs::read(home.join(".bashrc")).unwrap(), b"allowed\n");
}

/// filekit's state inside a root, found by identity, whatever its path: root = the home
/// folder with the default state folder in it (another project's history there), or
/// `--state-dir` inside the root. No tool reads, lists, searches, writes, moves or removes
/// it, nor a folder that holds it; `serve` says so at start.
#[test]
fn state_inside_a_root_is_out_of_every_tools_view() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home");
    std::fs::create_dir_all(home.join("proj")).unwrap();
    std::fs::write(home.join("proj/a.txt"), "STATEWORD one\n").unwrap();
    let filekit = |args: &[&str], stdin: &[u8]| -> Reply {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(&home)
            .env("HOME", &home)
            .env_remove("XDG_STATE_HOME")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        Reply {
            code: out.status.code().unwrap_or(-1),
            json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            text: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
        }
    };
    // Another project's history, in the default state folder under the home folder.
    let r = filekit(
        &["--root", "proj", "call"],
        &call_bytes(
            "Edit",
            &json!({"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
        ),
    );
    assert_eq!(r.code, 0, "{}", r.text);
    let base = home.join(".local/state/filekit");
    let workspaces: Vec<PathBuf> = std::fs::read_dir(base.join("workspaces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(workspaces.len(), 1);
    let db = workspaces[0].join("history.db");
    assert!(db.exists());
    let rel_db = db
        .strip_prefix(&home)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // The other project's state (this root's own folder is made beside it by each run).
    let snapshot = || tree_state(&workspaces[0]);
    let before = snapshot();
    let root = home.to_string_lossy().into_owned();
    for (tool, args) in [
        ("Read", json!({"file_path": rel_db})),
        ("Read", json!({"file_path": rel_db.to_uppercase()})),
        ("Write", json!({"file_path": rel_db, "content": "x"})),
        ("file_delete", json!({"path": rel_db})),
        ("file_delete", json!({"path": ".local", "recursive": true})),
        (
            "file_delete",
            json!({"path": ".local/state/filekit/workspaces", "recursive": true}),
        ),
        (
            "file_move",
            json!({"source": ".local/state", "destination": "moved"}),
        ),
        (
            "file_create",
            json!({"path": ".local/state/filekit/http-token-1", "content": "x"}),
        ),
        ("LS", json!({"path": ".local/state/filekit"})),
    ] {
        let r = filekit(&["--root", &root, "call"], &call_bytes(tool, &args));
        assert_ne!(r.code, 0, "{tool} {args}: not refused: {}", short(&r.text));
        assert!(
            r.text.contains("filekit's own state") || r.text.contains("does not exist"),
            "{tool} {args}: {}",
            short(&r.text)
        );
        assert_same_tree(
            &before,
            &snapshot(),
            &format!("{tool} {args}: the state changed"),
        );
    }
    // Walks pass over it: a listing, a search and a tree-wide replace from the home folder.
    for (tool, args) in [
        (
            "LS",
            json!({"path": ".", "depth": 6, "include_hidden": true, "include_ignored": true}),
        ),
        (
            "Glob",
            json!({"pattern": "**/*.db", "path": ".", "include_hidden": true, "include_ignored": true}),
        ),
        (
            "grep_files",
            json!({"pattern": "STATEWORD", "path": ".", "include_hidden": true, "include_ignored": true}),
        ),
        (
            "replace_in_files",
            json!({"expression": "s/STATEWORD/replaced/", "files": "**", "directory": "."}),
        ),
    ] {
        let r = filekit(&["--root", &root, "call"], &call_bytes(tool, &args));
        assert!(
            !r.text.contains("history.db") && !r.text.contains("workspaces/"),
            "{tool} {args} showed the state: {}",
            short(&r.text)
        );
        assert_same_tree(
            &before,
            &snapshot(),
            &format!("{tool} {args}: the state changed"),
        );
    }
    assert_eq!(
        std::fs::read_to_string(home.join("proj/a.txt")).unwrap(),
        "replaced two\n"
    );
    // `--state-dir` inside a root: the same.
    let r = filekit(
        &["--root", &root, "--state-dir", "st", "call"],
        &call_bytes(
            "Write",
            &json!({"file_path": "proj/b.txt", "content": "b\n"}),
        ),
    );
    assert_eq!(r.code, 0, "{}", r.text);
    assert!(home.join("st/workspaces").is_dir());
    let r = filekit(
        &["--root", &root, "--state-dir", "st", "call"],
        &call_bytes("file_delete", &json!({"path": "st", "recursive": true})),
    );
    assert_ne!(r.code, 0, "{}", r.text);
    assert!(r.text.contains("filekit's own state"), "{}", r.text);
    assert!(home.join("st/workspaces").is_dir());
    // serve says at start that the state is in a root and out of reach.
    let r = filekit(&["--root", &root, "serve"], b"");
    assert!(
        r.text
            .contains(&format!("{} is inside a root", base.display())),
        "{}",
        r.text
    );
}

/// Runs `filekit ARGS` in `dir` with `env`, killed after a minute (a server that should
/// have refused to start would serve for ever).
fn run_filekit(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Reply {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
    cmd.current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Reply {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        text: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
    }
}

/// A lease on `d/a.txt` covers the folders above it: another holder can neither delete nor
/// move `d` (or its parent), through a tool or a verb; the holder itself can.
#[test]
fn a_lease_covers_the_folders_above_the_leased_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("root");
    std::fs::create_dir_all(root.join("top/d")).unwrap();
    std::fs::write(root.join("top/d/a.txt"), "leased\n").unwrap();
    let state = dir.path().join("state");
    let env = [("XDG_STATE_HOME", state.as_path())];
    let r = run_filekit(&root, &["--holder", "alice", "lock", "top/d/a.txt"], &env);
    assert_eq!(r.code, 0, "{}", r.text);
    for args in [
        vec!["--holder", "bob", "rm", "-r", "top/d"],
        vec!["--holder", "bob", "rm", "-r", "top"],
        vec!["--holder", "bob", "mv", "top/d", "e"],
        vec!["--holder", "bob", "mv", "top", "e"],
    ] {
        let r = run_filekit(&root, &args, &env);
        assert_ne!(r.code, 0, "{args:?}: not refused: {}", r.text);
        assert!(
            r.text.contains("leased by alice") && r.text.contains("top/d/a.txt"),
            "{args:?}: {}",
            r.text
        );
        assert_eq!(
            std::fs::read_to_string(root.join("top/d/a.txt")).unwrap(),
            "leased\n"
        );
    }
    let cmd_call = |holder: &str, tool: &str, args: Value| -> Reply {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(&root)
            .env("XDG_STATE_HOME", &state)
            .args(["--holder", holder, "call"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&call_bytes(tool, &args))
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        Reply {
            code: out.status.code().unwrap_or(-1),
            json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            text: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
        }
    };
    for (tool, args) in [
        ("file_delete", json!({"path": "top/d", "recursive": true})),
        (
            "file_move",
            json!({"source": "top", "destination": "elsewhere"}),
        ),
        (
            "manage_files",
            json!({"operations": [{"op": "delete", "path": "top", "recursive": true}]}),
        ),
    ] {
        let r = cmd_call("bob", tool, args.clone());
        assert_ne!(r.code, 0, "{tool} {args}: {}", r.text);
        assert!(
            r.text.contains("LOCKED") || r.text.contains("leased by alice"),
            "{tool} {args}: {}",
            r.text
        );
        assert!(root.join("top/d/a.txt").exists());
    }
    // The holder moves its own folder.
    let r = run_filekit(&root, &["--holder", "alice", "mv", "top", "moved"], &env);
    assert_eq!(r.code, 0, "{}", r.text);
    assert!(root.join("moved/d/a.txt").exists());
}

/// The bearer token of `serve --http` is written as every file of the state is, with the
/// same checks: a `--state-dir` others may write (a shared 1777 folder) is refused at start,
/// left as it was (not made private behind its owner's back), and holds no token.
#[test]
fn the_http_token_is_not_written_into_a_shared_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let shared_arg = shared.to_string_lossy().into_owned();
    let r = run_filekit(
        &root,
        &[
            "--root",
            ".",
            "--state-dir",
            &shared_arg,
            "serve",
            "--http",
            "127.0.0.1:0",
        ],
        &[],
    );
    assert_ne!(r.code, 0, "the server started: {}", r.text);
    assert!(r.text.contains("others may write"), "{}", r.text);
    assert!(r.text.contains("bearer token"), "{}", r.text);
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o1777, "the shared folder's mode was changed");
    let tokens: Vec<_> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("token"))
        .collect();
    assert!(tokens.is_empty(), "{tokens:?}");
}

/// `~` and `~/...` in `--root`, `--state-dir` and `--history` are the home folder (a client's
/// configuration passes them with no shell to expand them).
#[test]
fn root_and_state_dir_expand_the_home_folder() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home");
    std::fs::create_dir_all(home.join("src/app")).unwrap();
    std::fs::write(home.join("src/app/a.txt"), "one\n").unwrap();
    let elsewhere = dir.path().join("cwd");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let r = run_filekit(
        &elsewhere,
        &[
            "--root",
            "~/src/app",
            "--state-dir",
            "~/st",
            "replace",
            "s/one/two/",
            "a.txt",
        ],
        &[("HOME", home.as_path())],
    );
    assert_eq!(r.code, 0, "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(home.join("src/app/a.txt")).unwrap(),
        "two\n"
    );
    assert!(
        home.join("st/workspaces").is_dir(),
        "the state went elsewhere"
    );
    assert!(!elsewhere.join("~").exists());
    let r = run_filekit(
        &elsewhere,
        &[
            "--root",
            "~/src/app",
            "--state-dir",
            "~/st",
            "history",
            "--json",
        ],
        &[("HOME", home.as_path())],
    );
    assert_eq!(r.code, 0, "{}", r.text);
    assert!(r.text.contains("a.txt"), "{}", r.text);
}
