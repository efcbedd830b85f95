//! Golden cases of the `file` dialect (`file:read_file`, `file:edit_file`, `file:create_file`,
//! `file:delete_file`, `file:rename_file`, `file:copy_file`, `file:list_files`): no real tool
//! ships this set, so every row is an example of what the table's reference page
//! (docs/tools/file.md) and descriptions promise, named beside it, or a bad input of it.
//! Each row runs through `filekit call` and over MCP stdio (see `golden/mod.rs`); over MCP
//! the row's text is checked in the text content the model reads.
//!
//! Where filekit answers beyond the table's first design (content hashes, the numbered updated content, did-you-
//! mean for a misspelled argument) the row checks it. Hints are checked word for word: they
//! name only what these tools have (no `overwrite`, no recursive delete: the hint says what
//! the agent can do instead), and edits are counted from 1.

use crate::golden::*;
use serde_json::json;

const READ_WHOLE: &str = "file:read_file, \"Usage (read entire file)\": {\"path\": \"src/app.js\"}; \"Always displays content with line numbers\"";
const READ_RANGE: &str = "file:read_file, \"Usage (read specific line range)\": {\"path\": \"middleware/auth.js\", \"start_line\": 40, \"end_line\": 60}; both 1-based, inclusive";
const READ_ARGS: &str =
    "file:read_file, Arguments: path: str, start_line: int (Optional), end_line: int (Optional)";
const EDIT_SINGLE: &str = "file:edit_file, \"Usage (single edit)\": {\"path\": \"config/api.js\", \"start_line\": 15, \"end_line\": 15, \"new_content\": ...}; \"Returns unified diff and shows updated content with line numbers\"";
const EDIT_MULTI: &str = "file:edit_file, \"Usage (multiple edits)\": edits [{1-3}, {25-27}] on src/utils.js; \"Edits are applied bottom-to-top to preserve line numbers during multi-edit operations\"";
const EDIT_ARGS: &str = "file:edit_file, Arguments: edits: list[dict] (multi-edit) or start_line, end_line (1-based, inclusive), new_content (single edit)";
const CREATE: &str = "file:create_file, Usage: {\"path\": \"src/utils/validation.js\", \"content\": ...}; \"Automatically creates parent directories if they don't exist\"";
const CREATE_ARGS: &str = "file:create_file, Arguments: content: str (Optional) - Initial file content (default: empty string)";
const DELETE: &str = "file:delete_file, Usage: {\"path\": \"config/old-settings.json\"}; \"Delete an existing file. Provides confirmation of successful deletion.\"";
const RENAME: &str = "file:rename_file, Usage: {\"old_path\": \"src/UserProfile.jsx\", \"new_path\": \"src/components/UserProfile.jsx\"}; \"Creates destination directories if needed\"";
const COPY: &str = "file:copy_file, Usage: {\"source_path\": \"src/components/UserCard.jsx\", \"dest_path\": \"src/components/ProductCard.jsx\"}";
const LIST: &str =
    "file:list_files, \"Usage (list project files)\": {\"path\": \"src\", \"filter\": \"*.js\"}";
const LIST_REC: &str = "file:list_files, \"Usage (recursive listing)\": {\"path\": \"src\", \"filter\": \"*.jsx\", \"recursive\": true}";
const LIST_ARGS: &str = "file:list_files, Arguments: path (Optional, \"defaults to project root\"), filter (default \"*\"), recursive: bool (default false)";
const STRICT: &str = "strict arguments: an argument the tool does not have is refused, naming the closest one, and nothing is done";

/// `n` lines `line 1` .. `line n`, with some lines replaced (1-based).
fn numbered(n: usize, with: &[(usize, &str)]) -> String {
    let mut out = String::new();
    for i in 1..=n {
        match with.iter().find(|(at, _)| *at == i) {
            Some((_, text)) => out.push_str(text),
            None => out.push_str(&format!("line {i}")),
        }
        out.push('\n');
    }
    out
}

/// `n` lines `line 1` .. `line n` without line `skip`.
fn without(n: usize, skip: usize) -> String {
    (1..=n)
        .filter(|i| *i != skip)
        .map(|i| format!("line {i}\n"))
        .collect()
}

const API_OLD: &str = "const API_URL = 'https://api.myapp.com/v1';";
const API_NEW: &str = "const API_URL = 'https://api.myapp.com/v2';";
const IMPORTS_NEW: &str = "import axios from 'axios';\nimport { logger } from './logger';\nimport { validateInput } from './validation';";
const TRY_NEW: &str = "try {\n    const result = await apiCall(data);\n    return result;\n} catch (error) {\n    logger.error('API call failed:', error);\n    throw error;\n}";

/// src/utils.js of the multi-edit example: imports on lines 1-3, the call on lines 25-27.
fn utils_js() -> String {
    numbered(
        30,
        &[
            (1, "import axios from 'axios';"),
            (2, "import { logger } from './log';"),
            (3, "import { check } from './check';"),
            (25, "const result = await apiCall(data);"),
            (26, "return result;"),
            (27, "// no error handling"),
        ],
    )
}

fn utils_js_after() -> String {
    let before = utils_js();
    let lines: Vec<&str> = before.lines().collect();
    let mut out = format!("{IMPORTS_NEW}\n");
    for l in &lines[3..24] {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(TRY_NEW);
    out.push('\n');
    for l in &lines[27..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

const VALIDATION_JS: &str = "/**\n * Data validation utilities\n */\n\nexport function validateEmail(email) {\n    const emailRegex = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;\n    return emailRegex.test(email);\n}\n\nexport function validateRequired(value) {\n    return value != null && value.trim() !== '';\n}";

fn cases() -> Vec<Case> {
    let auth = numbered(80, &[(45, "function authenticate(req, res, next) {")]);
    let api = numbered(20, &[(15, API_OLD)]);
    vec![
        // ---- file:read_file
        case("read_entire_file_with_line_numbers", READ_WHOLE, "file:read_file",
            json!({"path": "src/app.js"}))
            .file("src/app.js", "const app = express();\napp.listen(3000);\n")
            .shows(&["     1\tconst app = express();\n     2\tapp.listen(3000);\n"]),
        case("read_line_range_40_to_60", READ_RANGE, "file:read_file",
            json!({"path": "middleware/auth.js", "start_line": 40, "end_line": 60}))
            .file("middleware/auth.js", auth.clone())
            .shows(&["    40\tline 40\n", "    45\tfunction authenticate(req, res, next) {\n", "    60\tline 60\n"])
            .hides(&["    39\t", "    61\t"]),
        case("read_absolute_path_inside_the_project", "file:read_file, Arguments: \"path: str - File path to read (relative to project or absolute)\"", "file:read_file",
            json!({"path": "$ROOT/src/app.js", "end_line": 1}))
            .file("src/app.js", "first\nsecond\n")
            .shows(&["     1\tfirst\n"]).hides(&["second"]),
        case("read_start_past_the_end_fails", READ_RANGE, "file:read_file",
            json!({"path": "middleware/auth.js", "start_line": 90}))
            .file("middleware/auth.js", auth.clone()).fails()
            .shows(&["start line 90 is past the end", "has 80 lines"]),
        case("read_range_backwards_fails", READ_RANGE, "file:read_file",
            json!({"path": "middleware/auth.js", "start_line": 60, "end_line": 40}))
            .file("middleware/auth.js", auth.clone()).fails()
            .shows(&["the start (line 60) is after the end (line 40)"]),
        case("read_missing_file_fails", READ_WHOLE, "file:read_file",
            json!({"path": "src/app.js"}))
            .fails().shows(&["src/app.js does not exist"]),
        case("read_outside_the_project_is_refused", "file:read_file, Arguments: path is \"relative to project or absolute\" (within it); SECURITY.md: nothing outside the roots", "file:read_file",
            json!({"path": "../outside.txt"}))
            .fails().shows(&["is outside the workspace"]),
        case("read_without_path_is_refused", READ_ARGS, "file:read_file", json!({"start_line": 1}))
            .rejected().shows(&["missing required argument `path`"]),
        case("read_misspelled_start_line_is_refused", STRICT, "file:read_file",
            json!({"path": "src/app.js", "startLine": 2}))
            .file("src/app.js", "a\nb\n").rejected()
            .shows(&["unknown argument `startLine`; did you mean `start_line`?"]),
        // ---- file:edit_file
        case("edit_single_line_15", EDIT_SINGLE, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 15, "new_content": API_NEW}))
            .file("config/api.js", api.clone())
            .shows(&["--- a/config/api.js", "+++ b/config/api.js", "-const API_URL = 'https://api.myapp.com/v1';",
                "+const API_URL = 'https://api.myapp.com/v2';", "    15\tconst API_URL = 'https://api.myapp.com/v2';\n"])
            .then("config/api.js", Some(&numbered(20, &[(15, API_NEW)]))),
        case("edit_multiple_ranges_bottom_to_top", EDIT_MULTI, "file:edit_file",
            json!({"path": "src/utils.js", "edits": [
                {"start_line": 1, "end_line": 3, "new_content": IMPORTS_NEW},
                {"start_line": 25, "end_line": 27, "new_content": TRY_NEW}
            ]}))
            .file("src/utils.js", utils_js())
            .shows(&["+import { validateInput } from './validation';", "-// no error handling",
                "+    logger.error('API call failed:', error);",
                // the updated content is numbered: the try block starts on line 25 still
                "    25\ttry {\n", "    31\t}\n"])
            .then("src/utils.js", Some(&utils_js_after())),
        case("edit_empty_new_content_deletes_the_lines", EDIT_SINGLE, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 15, "new_content": ""}))
            .file("config/api.js", api.clone())
            .shows(&["-const API_URL"])
            .then("config/api.js", Some(&without(20, 15))),
        case("edit_end_before_start_fails", EDIT_ARGS, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 14, "new_content": API_NEW}))
            .file("config/api.js", api.clone()).fails()
            .shows(&["`end_line` 14 is before `start_line` 15", "give `start_line` <= `end_line`"]),
        case("edit_past_the_end_fails", EDIT_SINGLE, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 25, "new_content": API_NEW}))
            .file("config/api.js", api.clone()).fails()
            .shows(&["`end_line` 25 is out of range: the file has 20 lines"]),
        case("edit_multi_with_one_bad_range_changes_nothing", EDIT_MULTI, "file:edit_file",
            json!({"path": "src/utils.js", "edits": [
                {"start_line": 1, "end_line": 3, "new_content": IMPORTS_NEW},
                {"start_line": 35, "end_line": 37, "new_content": TRY_NEW}
            ]}))
            .file("src/utils.js", utils_js()).fails()
            .shows(&["`start_line` 35 is out of range: the file has 30 lines"]),
        // The edits of `edits` counted from 1, as the model counts what it sent (the JSON
        // field `index` of failed_edits stays the array's index, from 0).
        case("edit_multi_overlapping_ranges_fail", EDIT_MULTI, "file:edit_file",
            json!({"path": "src/utils.js", "edits": [
                {"start_line": 1, "end_line": 3, "new_content": IMPORTS_NEW},
                {"start_line": 2, "end_line": 4, "new_content": "x"}
            ]}))
            .file("src/utils.js", utils_js()).fails()
            .shows(&["edit 2 (lines 2-4) overlaps edit 1 (lines 1-3)"])
            .hides(&["edit 0", "1 edit applied", "+x"])
            .reads(&["FAILED: nothing written, 1 of 2 edits failed (the request is all-or-nothing)"])
            .then("src/utils.js", Some(&utils_js())),
        case("edit_both_single_and_multi_is_refused", EDIT_ARGS, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 15, "new_content": API_NEW,
                "edits": [{"start_line": 1, "end_line": 1, "new_content": "x"}]}))
            .file("config/api.js", api.clone()).rejected()
            .shows(&["give either start_line/end_line/new_content (one edit) or `edits` (several), not both"]),
        case("edit_single_without_end_line_is_refused", EDIT_ARGS, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "new_content": API_NEW}))
            .file("config/api.js", api.clone()).rejected()
            .shows(&["missing argument `end_line`"]),
        case("edit_misspelled_key_in_edits_is_refused", STRICT, "file:edit_file",
            json!({"path": "src/utils.js", "edits": [{"start_line": 1, "end_line": 3, "newContent": IMPORTS_NEW}]}))
            .file("src/utils.js", utils_js()).rejected()
            .shows(&["unknown argument `edits[0].newContent`; did you mean `new_content`?"]),
        case("edit_content_means_new_content", STRICT, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 15, "content": API_NEW}))
            .file("config/api.js", api.clone()).rejected()
            .shows(&["unknown argument `content`; did you mean `new_content`?"])
            .hides(&["did you mean `content_hash`"]),
        case("edit_missing_file_fails", EDIT_SINGLE, "file:edit_file",
            json!({"path": "config/api.js", "start_line": 15, "end_line": 15, "new_content": API_NEW}))
            .fails().shows(&["config/api.js does not exist"]).then("config/api.js", None),
        // ---- file:create_file
        case("create_makes_the_parent_directories", CREATE, "file:create_file",
            json!({"path": "src/utils/validation.js", "content": VALIDATION_JS}))
            .shows(&["src/utils/validation.js"]).then("src/utils/validation.js", Some(VALIDATION_JS)),
        case("create_without_content_is_empty", CREATE_ARGS, "file:create_file",
            json!({"path": "src/empty.js"}))
            .shows(&["src/empty.js"]).then("src/empty.js", Some("")),
        case("create_over_an_existing_file_fails", "file:create_file: \"Create a new file\" (editing an existing one is file:edit_file's)", "file:create_file",
            json!({"path": "src/utils/validation.js", "content": "x"}))
            .file("src/utils/validation.js", "keep\n").fails()
            .shows(&["already exists", "the file exists: change it with file:edit_file, or pick another path"])
            .then("src/utils/validation.js", Some("keep\n")),
        case("create_misspelled_content_is_refused", STRICT, "file:create_file",
            json!({"path": "src/a.js", "contents": "x"}))
            .rejected().shows(&["unknown argument `contents`; did you mean `content`?"])
            .then("src/a.js", None),
        // ---- file:delete_file
        case("delete_an_obsolete_file", DELETE, "file:delete_file",
            json!({"path": "config/old-settings.json"}))
            .file("config/old-settings.json", "{}\n").file("config/settings.json", "{}\n")
            .shows(&["config/old-settings.json"])
            .then("config/old-settings.json", None).then("config/settings.json", Some("{}\n")),
        case("delete_a_missing_file_fails", DELETE, "file:delete_file",
            json!({"path": "config/old-settings.json"}))
            .fails().shows(&["config/old-settings.json does not exist"]),
        // The tool has no recursive option: the hint says what the agent can do instead.
        case("delete_a_directory_fails", DELETE, "file:delete_file",
            json!({"path": "config"}))
            .file("config/settings.json", "{}\n").fails()
            .shows(&["is a directory with 1 entry in it", "file:delete_file deletes a directory only when it is empty: delete the files in it first"])
            .hides(&["recursive delete"])
            .then("config/settings.json", Some("{}\n")),
        case("delete_an_empty_directory", "file:delete_file, and filekit's description: \"Delete a file (or an empty directory)\"", "file:delete_file",
            json!({"path": "config"}))
            .file("config/.keep", "").given("file:delete_file", json!({"path": "config/.keep"}))
            .shows(&["config"]).reads(&["deleted $ROOT/config"]),
        // ---- file:rename_file
        case("rename_moves_into_a_new_directory", RENAME, "file:rename_file",
            json!({"old_path": "src/UserProfile.jsx", "new_path": "src/components/UserProfile.jsx"}))
            .file("src/UserProfile.jsx", "export const UserProfile = 1;\n")
            .shows(&["src/components/UserProfile.jsx"])
            .then("src/UserProfile.jsx", None)
            .then("src/components/UserProfile.jsx", Some("export const UserProfile = 1;\n")),
        case("rename_a_missing_file_fails", RENAME, "file:rename_file",
            json!({"old_path": "src/UserProfile.jsx", "new_path": "src/components/UserProfile.jsx"}))
            .fails().shows(&["src/UserProfile.jsx does not exist"])
            .then("src/components/UserProfile.jsx", None),
        // The tool has no argument to replace a file: the hint says what the agent can do.
        case("rename_onto_an_existing_file_fails", RENAME, "file:rename_file",
            json!({"old_path": "src/UserProfile.jsx", "new_path": "src/components/UserProfile.jsx"}))
            .file("src/UserProfile.jsx", "new\n").file("src/components/UserProfile.jsx", "old\n").fails()
            .shows(&["already exists", "file:rename_file never replaces a file: choose another new_path, or, if that file is to be replaced, delete it first with file:delete_file"])
            .hides(&["overwrite"]),
        case("rename_with_from_to_is_refused", STRICT, "file:rename_file",
            json!({"old_path": "src/UserProfile.jsx", "new_name": "src/components/UserProfile.jsx"}))
            .file("src/UserProfile.jsx", "p\n").rejected()
            .shows(&["unknown argument `new_name`; did you mean `new_path`?"])
            .then("src/UserProfile.jsx", Some("p\n")),
        // ---- file:copy_file
        case("copy_a_template_component", COPY, "file:copy_file",
            json!({"source_path": "src/components/UserCard.jsx", "dest_path": "src/components/ProductCard.jsx"}))
            .file("src/components/UserCard.jsx", "export function UserCard() {}\n")
            .shows(&["src/components/ProductCard.jsx"])
            .then("src/components/UserCard.jsx", Some("export function UserCard() {}\n"))
            .then("src/components/ProductCard.jsx", Some("export function UserCard() {}\n")),
        case("copy_into_a_new_directory", "file:copy_file: \"Useful for creating templates or backups\" (a backup under a new directory; parents created as create_file and rename_file do)", "file:copy_file",
            json!({"source_path": "src/components/UserCard.jsx", "dest_path": "backup/UserCard.jsx"}))
            .file("src/components/UserCard.jsx", "card\n")
            .shows(&["backup/UserCard.jsx"]).then("backup/UserCard.jsx", Some("card\n")),
        case("copy_a_missing_source_fails", COPY, "file:copy_file",
            json!({"source_path": "src/components/UserCard.jsx", "dest_path": "src/components/ProductCard.jsx"}))
            .fails().shows(&["src/components/UserCard.jsx does not exist"])
            .then("src/components/ProductCard.jsx", None),
        case("copy_onto_an_existing_file_fails", COPY, "file:copy_file",
            json!({"source_path": "src/components/UserCard.jsx", "dest_path": "src/components/ProductCard.jsx"}))
            .file("src/components/UserCard.jsx", "user\n").file("src/components/ProductCard.jsx", "product\n")
            .fails().shows(&["already exists", "file:copy_file never replaces a file: choose another dest_path, or, if that file is to be replaced, delete it first with file:delete_file"])
            .hides(&["overwrite"]),
        case("copy_with_source_is_refused", STRICT, "file:copy_file",
            json!({"source": "src/components/UserCard.jsx", "dest_path": "src/components/ProductCard.jsx"}))
            .file("src/components/UserCard.jsx", "user\n").rejected()
            .shows(&["unknown argument `source`; did you mean `source_path`?"])
            .then("src/components/ProductCard.jsx", None),
        // ---- file:list_files
        case("list_js_files_in_src", LIST, "file:list_files",
            json!({"path": "src", "filter": "*.js"}))
            .file("src/app.js", "a\n").file("src/util.js", "u\n").file("src/App.jsx", "x\n")
            .file("src/lib/deep.js", "d\n")
            .shows(&[" app.js\n", " util.js\n"]).hides(&["App.jsx", "deep.js"]),
        case("list_jsx_files_recursively", LIST_REC, "file:list_files",
            json!({"path": "src", "filter": "*.jsx", "recursive": true}))
            .file("src/App.jsx", "x\n").file("src/components/UserCard.jsx", "c\n").file("src/app.js", "a\n")
            .shows(&[" App.jsx\n", " components/UserCard.jsx\n"]).hides(&["app.js"]),
        case("list_defaults_to_the_project_root", LIST_ARGS, "file:list_files", json!({}))
            .file("src/app.js", "a\n").file("README.md", "r\n")
            .shows(&[" README.md\n", " src/\n"]).hides(&["app.js"]),
        case("list_a_missing_directory_fails", LIST_ARGS, "file:list_files",
            json!({"path": "lib"}))
            .file("src/app.js", "a\n").fails().shows(&["lib does not exist"]),
        case("list_recursive_must_be_a_boolean", LIST_ARGS, "file:list_files",
            json!({"path": "src", "recursive": "yes"}))
            .file("src/app.js", "a\n").rejected()
            .shows(&["argument `recursive`", "expected a boolean"]),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("file", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("file", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "file",
        &cases(),
        &[
            "file:read_file",
            "file:edit_file",
            "file:create_file",
            "file:delete_file",
            "file:rename_file",
            "file:copy_file",
            "file:list_files",
        ],
        15,
    );
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("file", &cases());
}
