//! Golden cases of the `claude` dialect: one row per call an agent trained on Claude Code
//! makes, with the reply (the part that matters) that Claude Code gives, and beside each the
//! source it was taken from. Every row runs twice against the real binary, in a fresh
//! workspace each time: through `filekit call`, and over MCP stdio (`filekit serve --tools
//! claude`, spoken to in JSON-RPC lines). Where filekit deliberately differs (it refuses what
//! Claude Code would only ask about, it shows near misses), the row says so.
//!
//! Sources, named by the constants below:
//! - the tool input schemas Anthropic publishes with the Agent SDK (`sdk-tools.d.ts` of
//!   `@anthropic-ai/claude-agent-sdk` 0.3.332, Claude Code 2.1.332; the same types are in the
//!   "Agent SDK reference - TypeScript" page, section "Tool Input Types");
//! - Claude Code's tool descriptions and messages as shipped in `@anthropic-ai/claude-code`
//!   (`cli.js` of 2.1.112, the last release published as JavaScript), quoted in each row;
//! - for `MultiEdit` and `LS`, which Claude Code no longer ships, their last documented shapes
//!   (`MultiEditInput`, `LSInput` of the same SDK reference) and seed 002.

use crate::common;
use common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// No call in this table takes long; a hung process fails its case instead of the suite.
const TIMEOUT: Duration = Duration::from_secs(60);

const SDK_SCHEMA: &str = "@anthropic-ai/claude-agent-sdk 0.3.332 sdk-tools.d.ts (Agent SDK reference - TypeScript, Tool Input Types)";
const STRICT: &str = "Claude Code 2.1.112 cli.js: every tool's input is a z.strictObject; an unrecognized key fails validation with \"An unexpected parameter `KEY` was provided\" and the tool does not run";
const COERCE: &str = "Claude Code 2.1.112 cli.js: number arguments are wrapped in a preprocess that reads strings matching /^-?\\d+(\\.\\d+)?$/ as numbers, boolean arguments one that reads \"true\"/\"false\"";
const READ_DESC: &str = "Claude Code Read description: \"By default, it reads up to 2000 lines starting from the beginning of the file\", \"Any lines longer than 2000 characters will be truncated\", \"Results are returned using cat -n format, with line numbers starting at 1\"";
const READ_CALL: &str = "Claude Code 2.1.112 cli.js, Read.call: the first line read is `offset === 0 ? 0 : offset - 1`; schema offset: nonnegative integer, limit: positive integer";
const READ_WARN: &str = "Claude Code 2.1.112 cli.js, Read.mapToolResultToToolResultBlockParam: \"Warning: the file exists but is shorter than the provided offset (N). The file has M lines.\" / \"Warning: the file exists but the contents are empty.\" (in a system-reminder), not an error";
const EDIT_VALIDATE: &str = "Claude Code 2.1.112 cli.js, Edit.validateInput";
const EDIT_CALL: &str = "Claude Code 2.1.112 cli.js, Edit.call: replace_all ? content.replaceAll(old, new) : content.replace(old, new)";
const GREP_SCHEMA_DOC: &str = "GrepInput (sdk-tools.d.ts 0.3.332): head_limit \"Defaults to 250 when unspecified. Pass 0 for unlimited\"; offset \"Skip first N lines/entries before applying head_limit, equivalent to | tail -n +N | head -N\"; context \"Number of lines to show before and after each match (rg -C)\"; -o \"Print only the matched (non-empty) parts of each matching line, one match per output line\"";
const GREP_RESULT: &str = "Claude Code 2.1.112 cli.js, Grep.mapToolResultToToolResultBlockParam: \"Found N files\" + paths; \"No files found\"; content \"No matches found\"; count \"Found N total occurrences across M files.\"";
const GLOB_DESC: &str = "Claude Code Glob description: \"Returns matching file paths sorted by modification time\"; result \"No files found\" when none";
const MULTI_EDIT: &str = "MultiEditInput (Agent SDK reference, Claude Code 1.x-2.0): {file_path, edits: [{old_string, new_string, replace_all?}]}, edits applied in sequence, atomically; its description: to create a file, a first edit with an empty old_string";
const LS_DOC: &str =
    "LSInput (Agent SDK reference, Claude Code 1.x-2.0): {path, ignore?: string[]}; seed 002";
const SEED: &str =
    "seed 002 (claude dialect): ToolResult {success, content, shortResult?, error?, filePath?}";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// The tool ran and succeeded (exit 0; MCP isError false).
    Ok,
    /// The tool ran and failed (exit 1; MCP isError true).
    Failed,
    /// The call was refused before anything was attempted (exit 2; MCP isError true and
    /// `_meta["filekit/rejected"]`).
    Rejected,
}

struct Case {
    name: &'static str,
    source: &'static str,
    /// Files the workspace starts with.
    files: Vec<(&'static str, String)>,
    tool: &'static str,
    /// `$ROOT` in a string stands for the workspace root (absolute paths, as Claude Code sends).
    args: Value,
    outcome: Outcome,
    /// Text the reply must show (`$ROOT` as above), over both channels.
    shows: Vec<&'static str>,
    /// Text the reply must not show.
    hides: Vec<&'static str>,
    /// Files after the call: their content, or `None` for absent. A rejected or failed call
    /// must also leave every file as it was.
    after: Vec<(&'static str, Option<String>)>,
}

fn case(name: &'static str, source: &'static str, tool: &'static str, args: Value) -> Case {
    Case {
        name,
        source,
        files: Vec::new(),
        tool,
        args,
        outcome: Outcome::Ok,
        shows: Vec::new(),
        hides: Vec::new(),
        after: Vec::new(),
    }
}

impl Case {
    fn file(mut self, path: &'static str, content: impl Into<String>) -> Self {
        self.files.push((path, content.into()));
        self
    }
    fn fails(mut self) -> Self {
        self.outcome = Outcome::Failed;
        self
    }
    fn rejected(mut self) -> Self {
        self.outcome = Outcome::Rejected;
        self
    }
    fn shows(mut self, needles: &[&'static str]) -> Self {
        self.shows.extend_from_slice(needles);
        self
    }
    fn hides(mut self, needles: &[&'static str]) -> Self {
        self.hides.extend_from_slice(needles);
        self
    }
    fn then(mut self, path: &'static str, content: Option<&str>) -> Self {
        self.after.push((path, content.map(str::to_string)));
        self
    }
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

const MAIN_RS: &str = "fn main() {\n    let line = read_line();\n    println!(\"{line}\");\n}\n";

fn cases() -> Vec<Case> {
    let ten = TEN_LINES.to_string();
    vec![
        // ---- Item 1: unknown arguments are refused, named, and nothing is done.
        case("grep_file_path_is_not_grep_s", STRICT, "Grep",
            json!({"pattern": "line", "file_path": "$ROOT/src/main.rs"}))
            .file("src/main.rs", MAIN_RS).file("other.rs", "let line = 1;\n").rejected()
            .shows(&["Grep: unknown argument `file_path`; did you mean `path`?", "Grep takes: pattern, path, glob"])
            .hides(&["other.rs"]),
        case("edit_replace_all_camel_case", STRICT, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replaceAll": true}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Edit: unknown argument `replaceAll`; did you mean `replace_all`?", "nothing was done"])
            .then("a.txt", Some(TEN_LINES)),
        case("grep_include_is_glob", STRICT, "Grep", json!({"pattern": "x", "include": "*.py"}))
            .file("a.py", "x = 1\n").rejected()
            .shows(&["unknown argument `include`; did you mean `glob`?"]),
        case("read_misspelled_offset", STRICT, "Read", json!({"file_path": "$ROOT/a.txt", "offest": 5}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Read: unknown argument `offest`; did you mean `offset`?"]),
        case("write_unknown_encoding_writes_nothing", STRICT, "Write",
            json!({"file_path": "$ROOT/new.txt", "content": "x\n", "encoding": "utf8"}))
            .rejected().shows(&["Write: unknown argument `encoding`", "Write takes: file_path, content"])
            .then("new.txt", None),
        case("glob_directory_is_path", STRICT, "Glob", json!({"pattern": "*.rs", "directory": "$ROOT/src"}))
            .file("src/main.rs", MAIN_RS).rejected()
            .shows(&["Glob: unknown argument `directory`; did you mean `path`?"]),
        case("multi_edit_unknown_key_inside_an_edit", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "one\n"},
                {"old_string": "line", "new_string": "row", "replaceAll": true}]}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["MultiEdit: unknown argument `edits[1].replaceAll`; did you mean `replace_all`?", "`edits[1]` takes: old_string, new_string, replace_all"])
            .then("a.txt", Some(TEN_LINES)),
        case("ls_unknown_recursive", LS_DOC, "LS", json!({"path": "$ROOT", "recursive": true}))
            .rejected().shows(&["LS: unknown argument `recursive`", "LS takes: path, ignore"]),
        case("edit_old_str_is_old_string", STRICT, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_str": "line 1", "new_string": "one"}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["unknown argument `old_str`; did you mean `old_string`?"])
            .then("a.txt", Some(TEN_LINES)),
        // ---- Item 3: numbers and booleans sent as strings, as Claude Code takes them.
        case("read_offset_and_limit_as_strings", COERCE, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": "4", "limit": "2"}))
            .file("a.txt", ten.clone())
            .shows(&["     4\tline 4\n     5\tline 5\n"]).hides(&["line 6"]),
        case("edit_replace_all_as_string", COERCE, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": "true"}))
            .file("a.txt", "line a\nline b\n").then("a.txt", Some("row a\nrow b\n")),
        case("grep_flags_and_limits_as_strings", COERCE, "Grep",
            json!({"pattern": "ALPHA", "path": "$ROOT", "-i": "true", "output_mode": "content", "head_limit": "1", "-n": "false"}))
            .file("a.txt", "alpha 1\nalpha 2\n")
            .shows(&["$ROOT/a.txt:alpha 1"]).hides(&["alpha 2\n", "a.txt:1:"]),
        case("a_string_that_is_not_a_number_is_refused", COERCE, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": "two"}))
            .file("a.txt", ten.clone()).rejected()
            .shows(&["Read: argument `offset`: invalid type: string \"two\""]),
        case("only_true_and_false_are_booleans", COERCE, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": "yes"}))
            .file("a.txt", "line a\nline b\n").rejected()
            .shows(&["Edit: argument `replace_all`: invalid type: string \"yes\""])
            .then("a.txt", Some("line a\nline b\n")),
        // ---- Read
        case("read_is_cat_n_from_line_1", READ_DESC, "Read", json!({"file_path": "$ROOT/a.txt"}))
            .file("a.txt", ten.clone())
            .shows(&["     1\tline 1\n", "    10\tline 10\n"]),
        case("read_offset_0_reads_from_the_start", READ_CALL, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": 0, "limit": 2}))
            .file("a.txt", ten.clone())
            .shows(&["     1\tline 1\n     2\tline 2\n"]).hides(&["line 3", "not a line"]),
        case("read_offset_past_the_end_is_a_warning", READ_WARN, "Read",
            json!({"file_path": "$ROOT/a.txt", "offset": 50}))
            .file("a.txt", ten.clone())
            .shows(&["Warning: the file exists but is shorter than the provided offset (50). The file has 10 lines."]),
        case("read_empty_file_is_a_warning", READ_WARN, "Read", json!({"file_path": "$ROOT/empty.txt"}))
            .file("empty.txt", "")
            .shows(&["Warning: the file exists but the contents are empty."]),
        case("read_cuts_lines_over_2000_characters", READ_DESC, "Read", json!({"file_path": "$ROOT/min.js"}))
            .file("min.js", format!("{}\nshort\n", "x".repeat(2500)))
            .shows(&["... [line truncated: 2000 of 2500 characters shown]", "     2\tshort\n"])
            .hides(&[concat!("xxxxxxxxxx", "xxxxxxxxxx", "... [line truncated: 2000 of 2500 characters shown]x")]),
        case("read_stops_at_2000_lines_by_default", READ_DESC, "Read", json!({"file_path": "$ROOT/big.txt"}))
            .file("big.txt", numbered(2100))
            .shows(&["  2000\tline 2000\n", "Read lines 1-2000 of 2100"]).hides(&["line 2001\n"]),
        case("read_limit_0_is_refused", READ_CALL, "Read", json!({"file_path": "$ROOT/a.txt", "limit": 0}))
            .file("a.txt", ten.clone()).rejected().shows(&["`limit` is 0"]),
        case("read_takes_pages_and_allow_large", SDK_SCHEMA, "Read",
            json!({"file_path": "$ROOT/a.txt", "pages": "1-2", "allow_large": true, "limit": 1}))
            .file("a.txt", ten.clone()).shows(&["     1\tline 1\n"]),
        case("read_missing_file", "Claude Code 2.1.112 cli.js, Read: \"File does not exist.\" (with a similar name when there is one)", "Read",
            json!({"file_path": "$ROOT/nope.txt"}))
            .fails().shows(&["$ROOT/nope.txt does not exist"]),
        // ---- Edit
        case("edit_replaces_the_one_occurrence", EDIT_CALL, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 3\n", "new_string": "three\n"}))
            .file("a.txt", ten.clone())
            .shows(&["has been updated", "     3\tthree\n"])
            .then("a.txt", Some(&TEN_LINES.replace("line 3\n", "three\n"))),
        case("edit_replace_all", EDIT_CALL, "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line", "new_string": "row", "replace_all": true}))
            .file("a.txt", ten.clone()).then("a.txt", Some(&TEN_LINES.replace("line", "row"))),
        case("edit_ambiguous_without_replace_all", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"Found N matches of the string to replace, but replace_all is false.\" (filekit: AMBIGUOUS with the lines)", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "a", "new_string": "c"}))
            .file("a.txt", "a\nb\na\n").fails()
            .shows(&["matches 2 times", "at lines 1, 3", "AMBIGUOUS"]).then("a.txt", Some("a\nb\na\n")),
        case("edit_not_found_shows_the_near_miss", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"String to replace not found in file.\" (filekit, better: the closest text, its line and a character diff)", "Edit",
            json!({"file_path": "$ROOT/main.rs", "old_string": "let lin = read_line();", "new_string": "let l = 1;"}))
            .file("main.rs", MAIN_RS).fails()
            .shows(&["not found", "line 2", "NOT_FOUND"]).then("main.rs", Some(MAIN_RS)),
        case("edit_same_strings", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"No changes to make: old_string and new_string are exactly the same.\"", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "line 1", "new_string": "line 1"}))
            .file("a.txt", ten.clone()).rejected().shows(&["exactly the same"]),
        case("edit_empty_old_string_creates_a_missing_file", EDIT_VALIDATE, "Edit",
            json!({"file_path": "$ROOT/src/new.ts", "old_string": "", "new_string": "export const a = 1;\n"}))
            .shows(&["Created $ROOT/src/new.ts"]).then("src/new.ts", Some("export const a = 1;\n")),
        case("edit_empty_old_string_fills_an_empty_file", EDIT_VALIDATE, "Edit",
            json!({"file_path": "$ROOT/empty.txt", "old_string": "", "new_string": "now\n"}))
            .file("empty.txt", "").then("empty.txt", Some("now\n")),
        case("edit_empty_old_string_on_a_file_with_content", "Claude Code 2.1.112 cli.js, Edit.validateInput: \"Cannot create new file - file already exists.\"", "Edit",
            json!({"file_path": "$ROOT/a.txt", "old_string": "", "new_string": "x"}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["cannot create a new file: $ROOT/a.txt already exists", "CONFLICT"])
            .then("a.txt", Some(TEN_LINES)),
        // ---- MultiEdit
        case("multi_edit_applies_in_sequence", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "first\n"},
                {"old_string": "first\nline 2", "new_string": "first\nsecond"}]}))
            .file("a.txt", ten.clone())
            .then("a.txt", Some(&TEN_LINES.replace("line 1\nline 2", "first\nsecond"))),
        case("multi_edit_failure_counts_from_1_and_writes_nothing", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/a.txt", "edits": [
                {"old_string": "line 1\n", "new_string": "first\n"},
                {"old_string": "no such text", "new_string": "x"}]}))
            .file("a.txt", ten.clone()).fails()
            .shows(&["edit 2 of 2 failed, nothing was written"]).hides(&["edit 1 of 2"])
            .then("a.txt", Some(TEN_LINES)),
        case("multi_edit_creates_with_a_first_empty_old_string", MULTI_EDIT, "MultiEdit",
            json!({"file_path": "$ROOT/new.py", "edits": [
                {"old_string": "", "new_string": "a = 1\nb = 2\n"},
                {"old_string": "b = 2", "new_string": "b = 3"}]}))
            .then("new.py", Some("a = 1\nb = 3\n")),
        case("multi_edit_with_no_edits", MULTI_EDIT, "MultiEdit", json!({"file_path": "$ROOT/a.txt", "edits": []}))
            .file("a.txt", ten.clone()).rejected().shows(&["`edits` is empty"]),
        // ---- Write
        case("write_creates_with_parents", "Claude Code Write description: \"Writes a file to the local filesystem. This tool will overwrite the existing file if there is one\"", "Write",
            json!({"file_path": "$ROOT/notes/todo.md", "content": "# TODO\n"}))
            .then("notes/todo.md", Some("# TODO\n")),
        case("write_overwrites", "Claude Code Write description: \"This tool will overwrite the existing file if there is one\"", "Write",
            json!({"file_path": "$ROOT/a.txt", "content": "new\n"}))
            .file("a.txt", ten.clone()).then("a.txt", Some("new\n")),
        // ---- Grep
        case("grep_files_with_matches_is_the_default", GREP_RESULT, "Grep", json!({"pattern": "alpha", "path": "$ROOT"}))
            .file("a.txt", "alpha\n").file("b.txt", "beta\n").file("c.txt", "alpha beta\n")
            .shows(&["Found 2 files", "$ROOT/a.txt", "$ROOT/c.txt"]).hides(&["b.txt"]),
        case("grep_content_with_line_numbers", GREP_RESULT, "Grep",
            json!({"pattern": "println", "path": "$ROOT", "output_mode": "content"}))
            .file("main.rs", MAIN_RS).shows(&["$ROOT/main.rs:3:    println!(\"{line}\");"]),
        case("grep_count", GREP_RESULT, "Grep", json!({"pattern": "a", "path": "$ROOT", "output_mode": "count"}))
            .file("x.txt", "a\na\nb\n").file("y.txt", "a\n")
            .shows(&["$ROOT/x.txt:2", "$ROOT/y.txt:1", "Found 3 total occurrences across 2 files."]),
        case("grep_no_files", GREP_RESULT, "Grep", json!({"pattern": "zzz_none", "path": "$ROOT"}))
            .file("a.txt", "alpha\n").shows(&["No files found"]),
        case("grep_no_content_matches", GREP_RESULT, "Grep",
            json!({"pattern": "zzz_none", "path": "$ROOT", "output_mode": "content"}))
            .file("a.txt", "alpha\n").shows(&["No matches found"]),
        case("grep_head_limit_0_is_unlimited", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content", "head_limit": 0}))
            .file("big.txt", numbered(1100))
            .shows(&["$ROOT/big.txt:1100:line 1100"]).hides(&["not shown"]),
        case("grep_default_cap_says_what_was_left_out", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content"}))
            .file("big.txt", numbered(1100))
            .shows(&["$ROOT/big.txt:1000:line 1000", "100 more lines not shown", "offset=1000"])
            .hides(&["line 1001\n"]),
        case("grep_offset_pages_through_rows", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "^line", "path": "$ROOT", "output_mode": "content", "offset": 2, "head_limit": 2}))
            .file("a.txt", ten.clone())
            .shows(&["$ROOT/a.txt:3:line 3\n$ROOT/a.txt:4:line 4\n", "offset=4"])
            .hides(&["a.txt:2:", "a.txt:5:"]),
        case("grep_offset_in_files_mode", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "x", "path": "$ROOT", "offset": 1, "head_limit": 1}))
            .file("a.txt", "x\n").file("b.txt", "x\n").file("c.txt", "x\n")
            .shows(&["$ROOT/b.txt", "offset=2"]).hides(&["$ROOT/a.txt", "$ROOT/c.txt"]),
        case("grep_context_is_dash_c", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "line 5", "path": "$ROOT", "output_mode": "content", "context": 1}))
            .file("a.txt", ten.clone())
            .shows(&["$ROOT/a.txt-4-line 4\n$ROOT/a.txt:5:line 5\n$ROOT/a.txt-6-line 6\n"]),
        case("grep_only_matching", GREP_SCHEMA_DOC, "Grep",
            json!({"pattern": "v[0-9]+", "path": "$ROOT", "output_mode": "content", "-o": true}))
            .file("a.txt", "use v1 and v22\nnone\n")
            .shows(&["$ROOT/a.txt:1:v1\n$ROOT/a.txt:1:v22\n"]).hides(&["use v1"]),
        // ---- Glob and LS
        case("glob_finds_by_pattern", GLOB_DESC, "Glob", json!({"pattern": "**/*.rs", "path": "$ROOT"}))
            .file("src/main.rs", MAIN_RS).file("README.md", "# r\n")
            .shows(&["$ROOT/src/main.rs"]).hides(&["README.md"]),
        case("glob_nothing", GLOB_DESC, "Glob", json!({"pattern": "*.zzz", "path": "$ROOT"}))
            .shows(&["No files found"]),
        case("ls_lists_a_tree", LS_DOC, "LS", json!({"path": "$ROOT", "ignore": ["*.log"]}))
            .file("src/main.rs", MAIN_RS).file("debug.log", "x\n")
            .shows(&["- $ROOT/", "  - src/", "    - main.rs"]).hides(&["debug.log"]),
        case("a_failed_result_says_why_in_content", SEED, "Read", json!({"file_path": "$ROOT/dir"}))
            .file("dir/x.txt", "x\n").fails().shows(&["directory"]),
    ]
}

/// `$ROOT` replaced by the workspace root, in every string of a value.
fn rooted(v: &Value, root: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("$ROOT", root)),
        Value::Array(a) => Value::Array(a.iter().map(|x| rooted(x, root)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), rooted(x, root)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Every string in a value, one per line: what a reply says, whatever its shape.
fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn setup(c: &Case) -> Sandbox {
    let sb = Sandbox::new();
    for (path, content) in &c.files {
        sb.write(path, content);
    }
    sb
}

fn root_of(sb: &Sandbox) -> String {
    sb.root().canonicalize().unwrap().display().to_string()
}

/// What one channel answered: the outcome and everything the reply says.
struct Answer {
    outcome: Outcome,
    said: String,
}

/// Waits for a child with the table's timeout, reading its output meanwhile.
fn finish(mut child: Child, what: &str) -> (i32, String, String) {
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: no answer within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        status.code().unwrap_or(-1),
        out_reader.join().unwrap(),
        err_reader.join().unwrap(),
    )
}

fn via_call(sb: &Sandbox, tool: &str, args: &Value) -> Answer {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .current_dir(sb.root())
        .arg("--root")
        .arg(sb.root())
        .arg("call")
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run filekit call");
    let call = json!({"tool_name": tool, "tool_args": args});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(call.to_string().as_bytes())
        .unwrap();
    let (code, stdout, stderr) = finish(child, &format!("filekit call {tool}"));
    let outcome = match code {
        0 => Outcome::Ok,
        1 => Outcome::Failed,
        2 => Outcome::Rejected,
        other => panic!("filekit call {tool}: exit code {other}\n{stdout}\n{stderr}"),
    };
    let value: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("filekit call {tool}: not JSON ({e}):\n{stdout}\n{stderr}"));
    let mut said = String::new();
    strings(&value, &mut said);
    said.push_str(&stderr);
    Answer { outcome, said }
}

/// An MCP client over stdio that speaks JSON-RPC lines to `filekit serve --tools claude`.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Mcp {
    fn start(sb: &Sandbox) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
            .current_dir(sb.root())
            .arg("--root")
            .arg(sb.root())
            .args(["serve", "--tools", "claude"])
            .env("XDG_STATE_HOME", sb.xdg_state_home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run filekit serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-golden", "version": "1"}
            }),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("filekit serve: no answer to {method} within {TIMEOUT:?}");
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                panic!("filekit serve wrote a line that is not JSON: {line}");
            };
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, args: &Value) -> Answer {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = response
            .get("result")
            .unwrap_or_else(|| panic!("tools/call {tool}: no result: {response}"));
        let is_error = result["isError"].as_bool().unwrap_or(false);
        let rejected = result["_meta"]["filekit/rejected"] == json!(true);
        let outcome = match (is_error, rejected) {
            (false, false) => Outcome::Ok,
            (true, false) => Outcome::Failed,
            (true, true) => Outcome::Rejected,
            (false, true) => panic!("tools/call {tool}: rejected but not an error: {result}"),
        };
        // What the model reads (the text content) and what a client can show of the rest.
        let mut said = String::new();
        for block in result["content"].as_array().into_iter().flatten() {
            if let Some(text) = block["text"].as_str() {
                said.push_str(text);
                said.push('\n');
            }
        }
        strings(&result["structuredContent"], &mut said);
        Answer { outcome, said }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks one answer against its row; returns what is wrong, if anything.
fn check(
    c: &Case,
    channel: &str,
    sb: &Sandbox,
    before: &[(String, Option<String>)],
    a: &Answer,
) -> Vec<String> {
    let root = root_of(sb);
    let mut wrong = Vec::new();
    let at = format!("{} [{channel}] ({})", c.name, c.source);
    if a.outcome != c.outcome {
        wrong.push(format!(
            "{at}: outcome {:?}, expected {:?}\n{}",
            a.outcome, c.outcome, a.said
        ));
    }
    for n in &c.shows {
        let n = n.replace("$ROOT", &root);
        if !a.said.contains(&n) {
            wrong.push(format!("{at}: expected {n:?} in the reply:\n{}", a.said));
        }
    }
    for n in &c.hides {
        let n = n.replace("$ROOT", &root);
        if a.said.contains(&n) {
            wrong.push(format!(
                "{at}: {n:?} should not be in the reply:\n{}",
                a.said
            ));
        }
    }
    for (path, content) in &c.after {
        let now = std::fs::read_to_string(sb.path(path)).ok();
        if &now != content {
            wrong.push(format!("{at}: {path} is {now:?}, expected {content:?}"));
        }
    }
    if c.outcome != Outcome::Ok {
        for (path, content) in before {
            let now = std::fs::read_to_string(sb.path(path)).ok();
            if &now != content {
                wrong.push(format!("{at}: a call that did not succeed changed {path}"));
            }
        }
    }
    wrong
}

fn contents(sb: &Sandbox, c: &Case) -> Vec<(String, Option<String>)> {
    c.files
        .iter()
        .map(|(p, _)| (p.to_string(), std::fs::read_to_string(sb.path(p)).ok()))
        .collect()
}

#[test]
fn golden_cases_through_filekit_call() {
    let mut wrong = Vec::new();
    let all = cases();
    for c in &all {
        let sb = setup(c);
        let before = contents(&sb, c);
        let answer = via_call(&sb, c.tool, &rooted(&c.args, &root_of(&sb)));
        wrong.extend(check(c, "filekit call", &sb, &before, &answer));
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n")
    );
    println!(
        "{} golden cases of the claude dialect pass through filekit call",
        all.len()
    );
}

#[test]
fn golden_cases_over_mcp_stdio() {
    let mut wrong = Vec::new();
    let all = cases();
    for c in &all {
        let sb = setup(c);
        let before = contents(&sb, c);
        let mut mcp = Mcp::start(&sb);
        let answer = mcp.call(c.tool, &rooted(&c.args, &root_of(&sb)));
        drop(mcp);
        wrong.extend(check(c, "MCP stdio", &sb, &before, &answer));
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ:\n\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n\n")
    );
    println!(
        "{} golden cases of the claude dialect pass over MCP stdio",
        all.len()
    );
}

#[test]
fn every_case_names_its_source_and_the_names_are_unique() {
    let all = cases();
    let mut names = std::collections::HashSet::new();
    for c in &all {
        assert!(names.insert(c.name), "two cases named {}", c.name);
        assert!(c.source.len() > 20, "{}: no source", c.name);
        assert!(
            !c.shows.is_empty() || !c.after.is_empty(),
            "{}: checks nothing",
            c.name
        );
    }
}
