//! Golden cases of the curated table `filekit` (the default of `filekit serve`): no real tool
//! and no seed defines it, so its document is README.md's tool sections (*The tools*, *History
//! and undo*, *Tool tables*) and the tools' own descriptions (what `tools/list` gives the
//! model, each with an `Example:`). Every row is one of those examples, named beside it, or a
//! bad input of it. A row may start from calls made before it (`given`: a change to undo, a
//! lease another agent holds). Each row runs through `filekit call` and over MCP stdio (see
//! `golden/mod.rs`); over MCP the text content the model reads is checked (`reads`).

use crate::golden::*;
use serde_json::json;

const READ_EX: &str = "read_files description, Example: {\"files\": [{\"path\": \"src/app.py\"}, {\"path\": \"src/util.py\", \"start_line\": 40, \"end_line\": 80}]}; \"Text comes back numbered ... under a header with the file's content_hash\"";
const READ_FAIL: &str = "read_files description: \"A file that fails (missing, outside the workspace, binary) is reported on its own; the others still come back.\"";
const EDIT_EX: &str = "edit_files description, Example: replace_lines {start: 10, end: 12, new, content_hash} and str_replace {old: \"DEBUG = True\", new: \"DEBUG = False\"}; options.dry_run \"shows the diffs without writing\"";
const EDIT_RULES: &str = "edit_files description: \"each edit is an object with one key\"; create {content} \"parents are created\"; \"a failed edit is reported (with the closest near miss for str_replace)\"; \"if the file changed, the edit is refused\"";
const EDIT_ORDER: &str = "edit_files description, Ordering: \"all line numbers in one call refer to the file as you read it, whatever the order of the edits\"; README §The tools, shared rules";
const REPLACE_EX: &str = "replace_in_files description, Example: {\"expression\": \"s/getUser/fetchUser/g\", \"files\": \"*.ts\", \"directory\": \"src\", \"dry_run\": true}";
const REPLACE_SYNTAX: &str = "replace_in_files description: \"The pattern is a regular expression like sed -E (escape ( [ . * to match them as text)\"; README §Using it, the sed dialect";
const GREP_EX: &str = "grep_files description, Example: {\"pattern\": \"def \\\\w+_handler\", \"path\": \"src\", \"type\": \"py\", \"context\": 2}; content rows path:line:text, context path-line-text";
const GREP_MODES: &str =
    "grep_files description: output_mode `content` (default), `files` or `count`";
const FIND_EX: &str = "find_files description, Example: {\"pattern\": \"src/**/*.test.{ts,tsx}\"}; \"`*` stays within one directory, `**` crosses any number\"";
const LIST_EX: &str = "list_dir description, Example: {\"path\": \"src\", \"depth\": 2, \"ignore\": [\"__pycache__\", \"*.snap\"]}; \"directories end with /\"";
const MANAGE_EX: &str = "manage_files description, Example: move src/old.ts -> src/lib/new.ts and delete tmp recursive, atomic: true; \"Each call is one entry in the edit history\"";
const MANAGE_RULES: &str = "manage_files description: \"a destination is never replaced unless `overwrite`; a directory is deleted with its contents only when `recursive`\"";
const MANAGE_IMPORTS: &str = "manage_files description: \"update_imports (default true) keeps TS/JS (and Python) imports right in the same step\"; README §Moves that keep imports right";
const HISTORY_EX: &str = "history description, Example: {\"path\": \"src/app.ts\", \"limit\": 5}; README §History and undo (\"filekit history\": id, time, tool, summary)";
const UNDO_EX: &str = "undo description, Example: {\"last\": 2}; \"Without `entry`, undoes the newest change not yet undone\"; README §History and undo";
const REDO_EX: &str = "redo description, Example: {\"dry_run\": true}; \"Redo what an undo reverted\"; README §History and undo";
const LOCK_EX: &str = "lock description, Example: {\"paths\": [\"src/schema.sql\"], \"ttl_seconds\": 120}; \"Other holders' writes get LOCKED with your name and the expiry\"; ttl at most 86400";
const UNLOCK_EX: &str = "unlock description, Example: {\"paths\": [\"src/schema.sql\"]}; \"Only the holder releases a lease (force breaks another's). Releasing a path that has no live lease is not an error.\"";
const STRICT: &str = "strict arguments, over the tools' input schemas: an argument the tool does not have is refused, naming what it takes, and nothing is done";

const PATCH_EX: &str = "apply_patch description, Example: {\"input\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def main():\\n-    debug = True\\n+    debug = False\\n*** End Patch\"}; the reply is Codex's applier's (Success. Updated the following files: / M path)";
const PATCH_FORMATS: &str = "apply_patch description: \"in any of these formats (detected; `format` forces one)\": Codex's envelope, a unified diff as git diff or diff -u write it, SEARCH/REPLACE blocks (aider's, Cline's, Roo Code's :start_line:)";
const PATCH_PLACE: &str = "apply_patch description: \"exactly or allowing for white space, indentation, tabs, typographic quotes and blank lines (the file keeps its own context lines). Hunks of the envelope and SEARCH blocks go in file order: one whose lines are in several places goes to the first after the hunk before it (the reply names the others). SEARCH blocks apply one after another, each to the text the blocks before it left\"; \"In a diff, a hunk whose line number names none of its places is refused with them\"";
const PATCH_MISC: &str = "apply_patch description: \"Adding a file that exists replaces it (the reply says so)\"; \"`dry_run` shows the diffs and writes nothing\"; bad inputs (malformed envelope, unknown file, delete of a missing file, .git/)";
const WORDS_LITERAL: &str = "words that do not mislead: \"zero matches of a regex whose text occurs literally says so (and literal: true)\"";
const WORDS_SHAPE: &str = "words that do not mislead: \"misplaced arguments get the right shape as an example\" (read_files {\"path\": ...})";
const WORDS_HISTORY: &str = "words that do not mislead: \"history and undo say what the agent did (undid: ...), not the chain of entries\"";
const MAIN_PY: &str = "def main():\n    debug = True\n    run()\n";

const APP_PY: &str = "import os\n\ndef get_handler():\n    pass\n\ndef post_handler():\n    pass\n";
const UTIL_PY: &str = "DEBUG = True\nx = 1\n";

fn cases() -> Vec<Case> {
    let twenty: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    vec![
        // ---- read_files
        case("read_a_file_and_a_range", READ_EX, "read_files",
            json!({"files": [{"path": "src/app.py"}, {"path": "src/util.py", "start_line": 2, "end_line": 2}]}))
            .file("src/app.py", APP_PY).file("src/util.py", UTIL_PY)
            .shows(&["def get_handler():", "x = 1"]).hides(&["DEBUG"])
            .reads(&["     3\tdef get_handler():\n", "     2\tx = 1\n", "==> src/app.py (lines 1-7 of 7, content_hash ", "==> src/util.py (lines 2-2 of 2, content_hash "]),
        case("read_negative_start_counts_from_the_end", "read_files description: \"negative numbers count from the end (-1 is the last line)\"", "read_files",
            json!({"files": [{"path": "src/app.py", "start_line": -2}]}))
            .file("src/app.py", APP_PY)
            .shows(&["def post_handler():"]).hides(&["get_handler"])
            .reads(&["     6\tdef post_handler():\n     7\t    pass\n"]),
        case("read_a_missing_file_among_others", READ_FAIL, "read_files",
            json!({"files": [{"path": "src/app.py"}, {"path": "src/gone.py"}]}))
            .file("src/app.py", APP_PY).fails()
            .shows(&["import os\n", "src/gone.py does not exist"]).hides(&["$ROOT"])
            .reads(&["     1\timport os\n"]),
        case("read_with_paths_is_refused", STRICT, "read_files",
            json!({"paths": ["src/app.py"]}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["unknown argument `paths`", "read_files takes: files"]),
        case("read_with_a_misplaced_path_gets_the_right_shape", WORDS_SHAPE, "read_files",
            json!({"path": "src/app.py"}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["unknown argument `path`", "`path` goes inside `files`: {\"files\":[{\"path\":\"src/app.py\"}]}"])
            .hides(&["did you mean"]),
        case("read_with_paths_as_strings_gets_the_object_s_shape", WORDS_SHAPE, "read_files",
            json!({"files": ["src/app.py"]}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["argument `files[0]`: invalid type: string \"src/app.py\", expected an object such as {\"path\": ...}"])
            .hides(&["struct", "ReadSpec"]),
        // ---- edit_files
        case("edit_str_replace_dry_run", EDIT_EX, "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [{"str_replace": {"old": "DEBUG = True", "new": "DEBUG = False"}}]}], "options": {"dry_run": true}}))
            .file("src/util.py", UTIL_PY)
            .shows(&["-DEBUG = True", "+DEBUG = False"]).reads(&["dry run: nothing written"])
            .then("src/util.py", Some(UTIL_PY)),
        case("edit_line_numbers_refer_to_the_file_as_read", EDIT_ORDER, "edit_files",
            json!({"files": [{"path": "a.txt", "edits": [
                {"insert": {"after": 0, "text": "top\n"}},
                {"replace_lines": {"start": 10, "end": 12, "new": "ten to twelve\n"}},
                {"str_replace": {"old": "line 20", "new": "last"}}
            ]}]}))
            .file("a.txt", twenty.clone())
            .shows(&["+ten to twelve", "+top"])
            .then("a.txt", Some(&format!("top\n{}ten to twelve\n{}last\n",
                (1..=9).map(|i| format!("line {i}\n")).collect::<String>(),
                (13..=19).map(|i| format!("line {i}\n")).collect::<String>()))),
        case("edit_create_makes_the_parents", EDIT_RULES, "edit_files",
            json!({"files": [{"path": "src/pkg/new.py", "edits": [{"create": {"content": "print(1)\n"}}]}]}))
            .shows(&["+print(1)"]).then("src/pkg/new.py", Some("print(1)\n")),
        case("edit_create_over_an_existing_file_names_overwrite", "edit_files description: create {content, overwrite?}: \"write the whole file\"", "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [{"create": {"content": "x = 2\n"}}]}]}))
            .file("src/util.py", UTIL_PY).fails()
            .shows(&["already exists", "set the create's \"overwrite\" to true to replace its whole content"])
            .then("src/util.py", Some(UTIL_PY)),
        case("edit_str_replace_not_found_shows_the_near_miss", EDIT_RULES, "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [{"str_replace": {"old": "DEBUG = true", "new": "DEBUG = False"}}]}]}))
            .file("src/util.py", UTIL_PY).fails()
            .shows(&["`old` was not found", "the closest near miss is at line 1", "\"DEBUG = True\""]),
        case("edit_failed_second_edit_is_counted_from_1", EDIT_RULES, "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [
                {"str_replace": {"old": "x = 1", "new": "x = 2"}},
                {"str_replace": {"old": "y = 1", "new": "y = 2"}}]}]}))
            .file("src/util.py", UTIL_PY).fails().partly()
            .shows(&["`old` was not found"])
            .reads(&["src/util.py: 1 edit applied, 1 failed", "edit 2 (edits[1], str_replace): `old` was not found"])
            .hides(&["edit 1 (edits[0]"])
            .then("src/util.py", Some("DEBUG = True\nx = 2\n")),
        case("edit_stale_content_hash_is_refused", EDIT_RULES, "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [{"replace_lines": {"start": 1, "new": "A\n", "content_hash": "0000000000000000"}}]}]}))
            .file("src/util.py", UTIL_PY).fails()
            .shows(&["`content_hash` 0000000000000000 names neither the file as it is now", "read the file again"]),
        case("edit_with_two_commands_in_one_edit_is_refused", EDIT_RULES, "edit_files",
            json!({"files": [{"path": "src/util.py", "edits": [{"str_replace": {"old": "x", "new": "y"}, "append": {"text": "z"}}]}]}))
            .file("src/util.py", UTIL_PY).rejected()
            .shows(&["argument `files[0].edits[0]`", "expected map with a single key"]),
        // ---- replace_in_files
        case("replace_across_ts_files_dry_run", REPLACE_EX, "replace_in_files",
            json!({"expression": "s/getUser/fetchUser/g", "files": "*.ts", "directory": "src", "dry_run": true}))
            .file("src/a.ts", "const a = getUser();\n").file("src/deep/b.ts", "getUser(); getUser();\n").file("src/c.js", "getUser();\n")
            .shows(&["+const a = fetchUser();", "+fetchUser(); fetchUser();"]).hides(&["c.js"])
            .reads(&["s/getUser/fetchUser/g: 3 replacement(s) in 2 of 2 file(s) matched (dry run: nothing written)"])
            .then("src/a.ts", Some("const a = getUser();\n")),
        case("replace_across_ts_files", REPLACE_EX, "replace_in_files",
            json!({"expression": "s/getUser/fetchUser/g", "files": "*.ts", "directory": "src"}))
            .file("src/a.ts", "const a = getUser();\n").file("src/c.js", "getUser();\n")
            .shows(&["+const a = fetchUser();"])
            .then("src/a.ts", Some("const a = fetchUser();\n")).then("src/c.js", Some("getUser();\n")),
        case("replace_unescaped_paren_is_refused", REPLACE_SYNTAX, "replace_in_files",
            json!({"expression": "s/getUser(/fetchUser(/g", "files": "*.ts", "directory": "src"}))
            .file("src/a.ts", "const a = getUser();\n").rejected()
            .shows(&["invalid regex in the sed expression", "unclosed group", "escape operators such as ( [ . *"]),
        case("replace_without_the_s_command_is_refused", REPLACE_SYNTAX, "replace_in_files",
            json!({"expression": "getUser/fetchUser", "files": "*.ts"}))
            .file("src/a.ts", "const a = getUser();\n").rejected()
            .shows(&["a substitution starts with `s`", "write it as s/pattern/replacement/flags"]),
        case("replace_a_regex_that_means_the_text", WORDS_LITERAL, "replace_in_files",
            json!({"expression": "s/Version(parts[1])/Version(parts[2])/", "files": "*.py"}))
            .file("v.py", "v = Version(parts[1])\n")
            .shows(&["taken as plain text the pattern would replace 1 place(s)", "literal: true"])
            .then("v.py", Some("v = Version(parts[1])\n")),
        // ---- grep_files
        case("grep_python_handlers_with_context", GREP_EX, "grep_files",
            json!({"pattern": "def \\w+_handler", "path": "src", "type": "py", "context": 1}))
            .file("src/app.py", APP_PY).file("src/handlers.js", "function def_handler() {}\n")
            .shows(&["src/app.py", "def get_handler():", "def post_handler():"])
            .hides(&["handlers.js", "import os"])
            .reads(&["src/app.py:3:def get_handler():", "src/app.py:6:def post_handler():", "src/app.py-4-    pass"]),
        case("grep_a_regex_that_means_the_text", WORDS_LITERAL, "grep_files",
            json!({"pattern": "Version(parts[1])"}))
            .file("v.py", "v = Version(parts[1])\n")
            .shows(&["as plain text it occurs in 1 file(s)", "literal: true"]),
        case("grep_files_mode_lists_paths", GREP_MODES, "grep_files",
            json!({"pattern": "handler", "output_mode": "files"}))
            .file("src/app.py", APP_PY).file("src/util.py", UTIL_PY)
            .shows(&["src/app.py"]).hides(&["src/util.py", "def get_handler"]),
        case("grep_bad_regex_is_refused_before_searching", "grep_files description: \"The pattern is a Rust regex (`fn \\\\w+\\\\(`, `TODO|FIXME`); `literal` takes it as plain text\"; a bad regex is refused as replace_in_files refuses one", "grep_files",
            json!({"pattern": "def (", "path": "src"}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["`pattern` \"def (\" is not a valid regex at line 1, column 5", "unclosed group", "`literal: true`"])
            .hides(&["files searched"]),
        case("grep_no_match_says_so", GREP_EX, "grep_files",
            json!({"pattern": "nothing_here"}))
            .file("src/app.py", APP_PY).reads(&["No match for nothing_here"]),
        case("grep_case_insensitive_means_ignore_case", STRICT, "grep_files",
            json!({"pattern": "DEBUG", "case_insensitive": true}))
            .file("src/util.py", UTIL_PY).rejected()
            .shows(&["unknown argument `case_insensitive`; did you mean `ignore_case`?"]),
        case("grep_claude_output_mode_is_refused", GREP_MODES, "grep_files",
            json!({"pattern": "def", "output_mode": "files_with_matches"}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["unknown variant `files_with_matches`, expected one of `content`, `files`, `count`"]),
        // ---- find_files
        case("find_test_files_by_glob", FIND_EX, "find_files",
            json!({"pattern": "src/**/*.test.{ts,tsx}"}))
            .file("src/a.test.ts", "t\n").file("src/ui/b.test.tsx", "t\n").file("src/a.ts", "a\n")
            .shows(&["src/a.test.ts", "src/ui/b.test.tsx"]).hides(&["src/a.ts\n"]),
        case("find_star_stays_at_the_top", FIND_EX, "find_files",
            json!({"pattern": "*.py"}))
            .file("src/app.py", APP_PY).file("setup.py", "s\n")
            .shows(&["setup.py"]).hides(&["src/app.py"]),
        case("find_in_a_missing_directory_fails", FIND_EX, "find_files",
            json!({"pattern": "**/*.py", "path": "lib"}))
            .file("src/app.py", APP_PY).fails().shows(&["lib does not exist"]),
        // ---- list_dir
        case("list_a_tree_leaving_out_ignored", LIST_EX, "list_dir",
            json!({"path": "src", "depth": 2, "ignore": ["__pycache__", "*.snap"]}))
            .file("src/app.py", APP_PY).file("src/pkg/mod.py", "m\n")
            .file("src/__pycache__/app.pyc", "c\n").file("src/ui.snap", "s\n")
            .shows(&["app.py", "pkg/", "mod.py"]).hides(&["__pycache__", "ui.snap"]),
        case("list_a_file_fails", LIST_EX, "list_dir",
            json!({"path": "src/app.py"}))
            .file("src/app.py", APP_PY).fails()
            .shows(&["src/app.py is a file, not a directory"]),
        case("list_recursive_is_refused", STRICT, "list_dir",
            json!({"path": "src", "recursive": true}))
            .file("src/app.py", APP_PY).rejected()
            .shows(&["unknown argument `recursive`", "depth"]),
        // ---- manage_files
        case("manage_move_and_delete_atomically", MANAGE_EX, "manage_files",
            json!({"operations": [{"op": "move", "from": "src/old.ts", "to": "src/lib/new.ts"}, {"op": "delete", "path": "tmp", "recursive": true}], "atomic": true}))
            .file("src/old.ts", "export const x = 1;\n").file("tmp/a.log", "a\n")
            .shows(&["src/lib/new.ts"]).reads(&["history_entry 1"])
            .then("src/old.ts", None).then("src/lib/new.ts", Some("export const x = 1;\n")).then("tmp/a.log", None),
        case("manage_move_and_copy_read_as_given", MANAGE_EX, "manage_files",
            json!({"operations": [{"op": "move", "from": "a.txt", "to": "c.txt"}, {"op": "copy", "from": "src/b.txt", "to": "d.txt"}]}))
            .file("a.txt", "a\n").file("src/b.txt", "b\n")
            .shows(&["c.txt", "d.txt"])
            .reads(&["moved a.txt -> c.txt (1 file)\n", "copied src/b.txt -> d.txt (1 file)\n"])
            .unread(&["$ROOT"])
            .then("c.txt", Some("a\n")).then("d.txt", Some("b\n")).then("src/b.txt", Some("b\n")),
        case("history_names_each_operation_of_a_request", HISTORY_EX, "history", json!({}))
            .file("a.txt", "a\n").file("src/b.txt", "b\n")
            .given("manage_files", json!({"operations": [{"op": "move", "from": "a.txt", "to": "c.txt"}, {"op": "copy", "from": "src/b.txt", "to": "d.txt"}]}))
            .shows(&["moved a.txt to c.txt, copied src/b.txt to d.txt"]).hides(&["moved 3 paths"]),
        case("manage_move_updates_imports", MANAGE_IMPORTS, "manage_files",
            json!({"operations": [{"op": "move", "from": "src/old.ts", "to": "src/lib/new.ts"}]}))
            .file("src/old.ts", "export const x = 1;\n").file("src/main.ts", "import { x } from './old';\n")
            .shows(&["src/lib/new.ts"])
            .then("src/main.ts", Some("import { x } from './lib/new';\n")),
        case("manage_delete_a_directory_needs_recursive", MANAGE_RULES, "manage_files",
            json!({"operations": [{"op": "delete", "path": "tmp"}]}))
            .file("tmp/a.log", "a\n").fails()
            .shows(&["is a directory with 1 entry in it", "set that operation's `recursive` to true to delete it with everything in it"])
            .hides(&["ask for a recursive delete"]),
        case("manage_copy_onto_an_existing_file_fails", MANAGE_RULES, "manage_files",
            json!({"operations": [{"op": "copy", "from": "a.txt", "to": "b.txt"}]}))
            .file("a.txt", "a\n").file("b.txt", "b\n").fails()
            .shows(&["already exists", "set that operation's `overwrite` to true to replace it, or choose another `to`"])
            .hides(&["ask to overwrite"]),
        case("manage_atomic_failure_changes_nothing", MANAGE_EX, "manage_files",
            json!({"operations": [{"op": "move", "from": "a.txt", "to": "c.txt"}, {"op": "copy", "from": "gone.txt", "to": "d.txt"}], "atomic": true}))
            .file("a.txt", "a\n").fails()
            .shows(&["gone.txt does not exist"]).then("c.txt", None).then("d.txt", None),
        case("manage_rename_op_is_refused", MANAGE_EX, "manage_files",
            json!({"operations": [{"op": "rename", "from": "a.txt", "to": "b.txt"}]}))
            .file("a.txt", "a\n").rejected()
            .shows(&["unknown variant `rename`, expected one of `delete`, `move`, `copy`"]),
        // ---- history, undo, redo
        case("history_lists_the_changes_of_a_path", HISTORY_EX, "history",
            json!({"path": "src/app.ts", "limit": 5}))
            .given("edit_files", json!({"files": [{"path": "src/app.ts", "edits": [{"create": {"content": "a\n"}}]}]}))
            .given("edit_files", json!({"files": [{"path": "src/other.ts", "edits": [{"create": {"content": "b\n"}}]}]}))
            .shows(&["edit_files", "src/app.ts"]).hides(&["src/other.ts"]),
        case("history_of_an_unknown_entry_fails", HISTORY_EX, "history",
            json!({"entry": 5}))
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"create": {"content": "a\n"}}]}]}))
            .fails().shows(&["there is no history entry 5", "the history holds entries 1 to 1"]),
        case("undo_the_newest_change", UNDO_EX, "undo", json!({}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .shows(&["a.txt"]).reads(&["undid: changed 1 path: a.txt; history_entry 2"]).then("a.txt", Some("one\n")),
        case("undo_the_last_two", UNDO_EX, "undo", json!({"last": 2}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "two", "new": "three"}}]}]}))
            .shows(&["a.txt"]).reads(&["undid: changed 1 path: a.txt; history_entry 3\nundid: changed 1 path: a.txt; history_entry 4"]).then("a.txt", Some("one\n")),
        case("undo_refuses_when_the_file_changed_since", "undo description: \"Refuses, naming the files, when a file changed after the entry, unless `force`\"", "undo", json!({"entry": 1}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "two", "new": "three"}}]}]}))
            .fails().shows(&["cannot undo entry 1: a path changed after it: $ROOT/a.txt", "force"])
            .then("a.txt", Some("three\n")),
        case("undo_the_newest_of_several_files", UNDO_EX, "undo", json!({}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("manage_files", json!({"operations": [{"op": "copy", "from": "a.txt", "to": "b.txt"}]}))
            .shows(&["b.txt"]).reads(&["undid: copied a.txt to b.txt; history_entry 3"]).then("b.txt", None).then("a.txt", Some("two\n")),
        case("redo_dry_run_after_an_undo", REDO_EX, "redo", json!({"dry_run": true}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("undo", json!({}))
            .shows(&["a.txt"]).reads(&["would redo: changed 1 path: a.txt"]).then("a.txt", Some("one\n")),
        case("redo_brings_the_change_back", REDO_EX, "redo", json!({}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("undo", json!({}))
            .shows(&["a.txt"]).reads(&["redid: changed 1 path: a.txt; history_entry 3"]).then("a.txt", Some("two\n")),
        case("history_says_what_each_undo_and_redo_did", WORDS_HISTORY, "history", json!({}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("undo", json!({}))
            .given("redo", json!({}))
            .given("undo", json!({}))
            .reads(&["undid: changed 1 path: a.txt", "redid: changed 1 path: a.txt", "changed 1 path: a.txt"])
            .hides(&["of entry"]),
        case("undo_after_a_redo_says_what_it_undid", WORDS_HISTORY, "undo", json!({}))
            .file("a.txt", "one\n")
            .given("edit_files", json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "one", "new": "two"}}]}]}))
            .given("undo", json!({}))
            .given("redo", json!({}))
            .reads(&["undid: changed 1 path: a.txt; history_entry 4"]).hides(&["of entry"])
            .then("a.txt", Some("one\n")),
        // ---- lock, unlock
        // The descriptions' examples as written, without `holder`: `filekit serve` names its
        // session (filekit-serve-<pid>), `filekit call` its user (filekit-cli-<user>: each
        // call is a process of its own, and the lease must still serve the agent that took it).
        case("lock_a_path", LOCK_EX, "lock",
            json!({"paths": ["src/schema.sql"], "ttl_seconds": 120}))
            .file("src/schema.sql", "create table t;\n")
            .shows(&["src/schema.sql", "filekit-"]).reads(&["src/schema.sql: leased to filekit-serve-"])
            .hides(&["no holder"]),
        case("lock_a_path_as_a_named_holder", LOCK_EX, "lock",
            json!({"paths": ["src/schema.sql"], "ttl_seconds": 120, "holder": "agent-a"}))
            .file("src/schema.sql", "create table t;\n")
            .shows(&["src/schema.sql", "agent-a"]).reads(&["src/schema.sql: leased to agent-a until "]),
        case("lock_longer_than_a_day_fails", LOCK_EX, "lock",
            json!({"paths": ["src/schema.sql"], "ttl_seconds": 100000, "holder": "agent-a"}))
            .file("src/schema.sql", "create table t;\n").fails()
            .shows(&["a lease lasts 1 to 86400 seconds; 100000 was asked"]),
        case("a_write_to_a_leased_path_is_refused", LOCK_EX, "edit_files",
            json!({"files": [{"path": "src/schema.sql", "edits": [{"append": {"text": "drop table t;\n"}}]}]}))
            .file("src/schema.sql", "create table t;\n")
            .given("lock", json!({"paths": ["src/schema.sql"], "holder": "agent-b"}))
            .fails().shows(&["is leased by agent-b", "writing is refused"]),
        case("unlock_by_the_holder", UNLOCK_EX, "unlock",
            json!({"paths": ["src/schema.sql"], "holder": "agent-a"}))
            .file("src/schema.sql", "create table t;\n")
            .given("lock", json!({"paths": ["src/schema.sql"], "holder": "agent-a"}))
            .shows(&["src/schema.sql"]).hides(&["FAILED"]),
        case("unlock_another_holders_lease_is_refused", UNLOCK_EX, "unlock",
            json!({"paths": ["src/schema.sql"], "holder": "agent-a"}))
            .file("src/schema.sql", "create table t;\n")
            .given("lock", json!({"paths": ["src/schema.sql"], "holder": "agent-b"}))
            .fails().shows(&["is leased by agent-b", "only the holder releases a lease", "pass force to break it"]),
        case("unlock_without_a_lease_is_not_an_error", UNLOCK_EX, "unlock",
            json!({"paths": ["src/schema.sql"]}))
            .file("src/schema.sql", "create table t;\n")
            .shows(&["src/schema.sql"]).reads(&["src/schema.sql: had no live lease"]),
        // ---- apply_patch
        case("patch_the_example", PATCH_EX, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    debug = True\n+    debug = False\n*** End Patch"}))
            .file("src/app.py", MAIN_PY)
            .reads(&["Success. Updated the following files:\nM src/app.py\n"]).hides(&["$ROOT"])
            .then("src/app.py", Some("def main():\n    debug = False\n    run()\n")),
        case("patch_a_git_diff_of_two_files", PATCH_FORMATS, "apply_patch",
            json!({"input": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\ndiff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n"}))
            .file("a.txt", "one\ntwo\n")
            .reads(&["M a.txt\nA b.txt\n"])
            .then("a.txt", Some("one\nTWO\n")).then("b.txt", Some("bee\n")),
        case("patch_aider_search_replace_in_a_fence", PATCH_FORMATS, "apply_patch",
            json!({"input": "src/app.py\n```python\n<<<<<<< SEARCH\n    run()\n=======\n    run(debug)\n>>>>>>> REPLACE\n```\n"}))
            .file("src/app.py", MAIN_PY)
            .reads(&["M src/app.py\n"]).then("src/app.py", Some("def main():\n    debug = True\n    run(debug)\n")),
        case("patch_cline_blocks", PATCH_FORMATS, "apply_patch",
            json!({"input": "src/app.py\n------- SEARCH\n    run()\n=======\n    return run()\n+++++++ REPLACE\n"}))
            .file("src/app.py", MAIN_PY)
            .reads(&["M src/app.py\n"]).then("src/app.py", Some("def main():\n    debug = True\n    return run()\n")),
        case("patch_roo_blocks_with_a_start_line", PATCH_FORMATS, "apply_patch",
            json!({"input": "src/app.py\n<<<<<<< SEARCH\n:start_line:2\n-------\n    debug = True\n=======\n    debug = None\n>>>>>>> REPLACE\n"}))
            .file("src/app.py", MAIN_PY)
            .reads(&["M src/app.py\n"]).then("src/app.py", Some("def main():\n    debug = None\n    run()\n")),
        case("patch_with_indentation_drift_keeps_the_files_lines", PATCH_PLACE, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n   debug = True\n-  run()\n+  run()\n+  return 0\n*** End Patch"}))
            .file("src/app.py", MAIN_PY)
            .shows(&["indentation"]).reads(&["hunk 1 was placed at line 2 allowing for indentation"])
            .then("src/app.py", Some("def main():\n    debug = True\n    run()\n    return 0\n")),
        case("patch_found_nowhere_shows_the_near_miss", PATCH_PLACE, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n def main():\n-    debug = Maybe\n+    debug = False\n*** End Patch"}))
            .file("src/app.py", MAIN_PY).fails()
            .shows(&["Failed to find expected lines in src/app.py", "The closest text is at line 1", "Nothing was written"]),
        case("patch_block_matching_twice_goes_to_the_first_and_names_the_other", PATCH_PLACE, "apply_patch",
            json!({"input": "t.txt\n<<<<<<< SEARCH\nx = 1\ny = 2\n=======\nx = 1\ny = 3\n>>>>>>> REPLACE\n"}))
            .file("t.txt", "x = 1\ny = 2\nx = 1\ny = 2\n")
            .reads(&["t.txt hunk 1 matches at lines 1, 3: it was placed at the first, line 1"])
            .then("t.txt", Some("x = 1\ny = 3\nx = 1\ny = 2\n")),
        case("patch_diff_hunk_matching_twice_is_refused_with_candidates", PATCH_PLACE, "apply_patch",
            json!({"input": "--- a/t.txt\n+++ b/t.txt\n@@ -2,2 +2,2 @@\n x = 1\n-y = 2\n+y = 3\n"}))
            .file("t.txt", "x = 1\ny = 2\nx = 1\ny = 2\n").fails()
            .shows(&["matches more than one place", "at lines 1, 3"]),
        case("patch_malformed_names_the_line", PATCH_MISC, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/app.py\nrun()\n*** End Patch"}))
            .file("src/app.py", MAIN_PY).rejected()
            .shows(&["Invalid patch hunk on line 3", "expected a hunk line starting with ` ` (context)"]),
        case("patch_adding_an_existing_file_replaces_it", PATCH_MISC, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch"}))
            .file("a.txt", "old\n")
            .reads(&["A a.txt\n", "a.txt existed and was replaced"]).then("a.txt", Some("new\n")),
        case("patch_dry_run_writes_nothing", PATCH_MISC, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    debug = True\n+    debug = False\n*** End Patch", "dry_run": true}))
            .file("src/app.py", MAIN_PY)
            .shows(&["+    debug = False"]).reads(&["Dry run: nothing was written"])
            .then("src/app.py", Some(MAIN_PY)),
        case("patch_deleting_a_missing_file_fails", PATCH_MISC, "apply_patch",
            json!({"input": "*** Begin Patch\n*** Delete File: gone.txt\n*** Add File: b.txt\n+b\n*** End Patch"}))
            .fails().shows(&["Failed to delete file gone.txt: it does not exist"]).then("b.txt", None),
        case("patch_inside_git_is_refused", PATCH_MISC, "apply_patch",
            json!({"input": "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-[core]\n+[core] x\n"}))
            .file(".git/config", "[core]\n").fails()
            .shows(&["is inside .git/"]).then(".git/config", Some("[core]\n")),
        case("patch_with_an_unknown_argument_is_refused", STRICT, "apply_patch",
            json!({"patch": "*** Begin Patch\n*** End Patch"}))
            .rejected().shows(&["unknown argument `patch`"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates.
    through_filekit_call_against_schemas("filekit", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("filekit", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "filekit",
        &cases(),
        &[
            "read_files",
            "edit_files",
            "replace_in_files",
            "grep_files",
            "find_files",
            "list_dir",
            "manage_files",
            "history",
            "undo",
            "redo",
            "lock",
            "unlock",
            "apply_patch",
        ],
        15,
    );
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("filekit", &cases());
}
