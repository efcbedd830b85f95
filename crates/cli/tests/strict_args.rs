//! Strict arguments in every table, and the arguments of the real tools, through `filekit
//! call`: a key a tool does not take is refused, named with the key it most likely meant, and
//! nothing is done; every argument the real tool's current schema has is accepted.

use crate::common;
use common::*;
use serde_json::{Value, json};

const BAD_REQUEST: i32 = 2;

/// Calls `tool` and checks that it was refused (exit 2, INVALID_ARGUMENT) with every one of
/// `needles` in the message, and that no file changed.
fn refused(sb: &Sandbox, tool: &str, args: Value, needles: &[&str]) -> Run {
    let before = sb.snapshot();
    let run = call_timed(sb, tool, args.clone());
    assert_eq!(
        run.code, BAD_REQUEST,
        "{tool} {args}: {}\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.contains("INVALID_ARGUMENT"),
        "{tool} {args}: {}",
        run.stdout
    );
    for n in needles {
        assert!(
            run.stderr.contains(n),
            "{tool} {args}: expected {n:?} in:\n{}",
            run.stderr
        );
    }
    assert_eq!(before, sb.snapshot(), "{tool} {args}: files changed");
    run
}

/// Calls `tool` and checks that it ran and failed (exit 1) with every one of `needles` in the
/// message, and that no file changed.
fn failed(sb: &Sandbox, tool: &str, args: Value, needles: &[&str]) -> Run {
    let before = sb.snapshot();
    let run = call_timed(sb, tool, args.clone());
    assert_eq!(run.code, 1, "{tool} {args}: {}\n{}", run.stdout, run.stderr);
    // The reply's own message (the MCP text of these tools is a summary).
    let message = run.error();
    for n in needles {
        assert!(
            message.contains(n),
            "{tool} {args}: expected {n:?} in:\n{message}"
        );
    }
    assert_eq!(before, sb.snapshot(), "{tool} {args}: files changed");
    run
}

#[test]
fn the_unknown_arguments_of_the_issue_are_refused_with_the_key_they_meant() {
    let sb = Sandbox::new();
    sb.write("src/main.rs", "let line = 1;\n")
        .write("other.py", "line = 2\n")
        .write("cfg.ts", "debug: false\nx\ndebug: false\n");
    // Searching the whole workspace instead of one file, including everything instead of *.py.
    refused(
        &sb,
        "Grep",
        json!({"pattern": "line", "file_path": "src/main.rs"}),
        &["Grep: unknown argument `file_path`; did you mean `path`?"],
    );
    refused(
        &sb,
        "Grep",
        json!({"pattern": "line", "include": "*.py"}),
        &["unknown argument `include`; did you mean `glob`?"],
    );
    refused(
        &sb,
        "Edit",
        json!({"file_path": "cfg.ts", "old_string": "debug: false", "new_string": "debug: true", "replaceAll": true}),
        &["unknown argument `replaceAll`; did you mean `replace_all`?"],
    );
    // Replacing one place where the agent meant two: nothing is replaced.
    refused(
        &sb,
        "edit_block",
        json!({"file_path": "cfg.ts", "old_string": "debug: false", "new_string": "debug: true", "expectedReplacements": 2}),
        &["unknown argument `expectedReplacements`; did you mean `expected_replacements`?"],
    );
    let run = refused(
        &sb,
        "fs_write",
        json!({"command": "create", "path": "n.txt", "filetext": "x"}),
        &["unknown argument `filetext`; did you mean `file_text`?"],
    );
    assert_eq!(
        run.json["details"]["unknown_arguments"][0],
        json!({"argument": "filetext", "closest": "file_text", "valid": [
            "path", "fileEdits", "command", "file_text", "overwrite", "old_str", "new_str",
            "insert_line", "start_line", "end_line", "content_hash", "dry_run", "atomic",
            "stop_on_error", "directory", "file_pattern", "sed_pattern", "recursive",
            "exclude_patterns", "literal", "summary"
        ]})
    );
    assert!(!sb.exists("n.txt"));
}

#[test]
fn nested_keys_are_checked_in_every_table() {
    let sb = Sandbox::new();
    sb.write("a.txt", TEN_LINES);
    refused(
        &sb,
        "fs_write",
        json!({"fileEdits": [{"path": "a.txt", "edits": [{"command": "str_replace", "oldStr": "line 1", "new_str": "x"}]}]}),
        &["unknown argument `fileEdits[0].edits[0].oldStr`; did you mean `old_str`?"],
    );
    refused(
        &sb,
        "batch_edit_blocks",
        json!({"path": "a.txt", "edits": [{"search": "line 1", "replace": "x", "expected_replacements": 1}]}),
        &["`edits[0].expected_replacements`; did you mean `expectedReplacements`?"],
    );
    refused(
        &sb,
        "file:edit_file",
        json!({"path": "a.txt", "edits": [{"start_line": 1, "end_line": 1, "newContent": "x"}]}),
        &["`edits[0].newContent`; did you mean `new_content`?"],
    );
    refused(
        &sb,
        "edit_files",
        json!({"files": [{"path": "a.txt", "edits": [{"str_replace": {"old": "line 1", "new": "x", "expected_count": 1}}]}]}),
        &["`files[0].edits[0].str_replace.expected_count`; did you mean `expected`?"],
    );
    // The branch of a tagged operation is chosen by its tag: `recursive` is delete's.
    refused(
        &sb,
        "manage_files",
        json!({"operations": [{"op": "move", "from": "a.txt", "to": "b.txt", "recursive": true}]}),
        &[
            "unknown argument `operations[0].recursive` (`operations[0]` takes: op, from, to, overwrite)",
        ],
    );
    // file_read's `format` is an argument (it was missing from the schema).
    sb.write("u.ts", "export class U {\n  f(): number { return 1; }\n}\n");
    let run = call_timed(
        &sb,
        "file_read",
        json!({"file": "u.ts", "symbol": "U.f", "format": "signature"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn fs_read_directory_takes_exclude_patterns_max_entries_offset_and_summary() {
    let sb = Sandbox::new();
    for name in ["a.txt", "b.txt", "c.txt", "d.log", "e.txt"] {
        sb.write(name, "x\n");
    }
    sb.write("node_modules/m.js", "x\n");
    let run = call_timed(
        &sb,
        "fs_read",
        json!({"mode": "Directory", "path": ".", "exclude_patterns": ["*.log", "node_modules"],
               "max_entries": 2, "offset": 1, "summary": "look around"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let content = run.json["content"].as_str().unwrap();
    // Entries in path order: a b c e (d.log and node_modules left out); 2 from offset 1.
    assert!(
        content.contains(" b.txt\n") && content.contains(" c.txt\n"),
        "{content}"
    );
    for gone in [" a.txt", " e.txt", "d.log", "node_modules"] {
        assert!(!content.contains(gone), "{gone}: {content}");
    }
    assert!(
        content.contains("showing entries 2-3 of 4") && content.contains("offset=3"),
        "{content}"
    );
    assert_eq!(run.json["truncated"], true);
    // The next page ends the listing.
    let run = call_timed(
        &sb,
        "fs_read",
        json!({"mode": "Directory", "path": ".", "exclude_patterns": ["*.log", "node_modules"], "max_entries": 2, "offset": 3}),
    );
    let content = run.json["content"].as_str().unwrap();
    assert!(
        content.contains(" e.txt\n") && !content.contains("offset="),
        "{content}"
    );
    assert_eq!(run.json["truncated"], false);
    refused(
        &sb,
        "fs_read",
        json!({"mode": "Directory", "path": ".", "max_entries": 0}),
        &["`max_entries` is 0"],
    );
}

#[test]
fn fs_write_takes_the_q_cli_s_summary() {
    let sb = Sandbox::new();
    let run = call_timed(
        &sb,
        "fs_write",
        json!({"command": "create", "path": "n.txt", "file_text": "x\n", "summary": "a new file"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(sb.read("n.txt"), "x\n");
}

#[test]
fn edit_block_takes_desktop_commander_s_arguments_and_words() {
    let sb = Sandbox::new();
    let code = "fn main() {\n    let value = compute_total(items);\n}\n";
    sb.write("a.rs", code);
    // Clients that send every argument send range and content empty: accepted.
    let run = call_timed(
        &sb,
        "edit_block",
        json!({"file_path": "a.rs", "old_string": "fn main", "new_string": "fn start",
               "range": "", "content": "", "options": {}, "origin": "llm"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(sb.read("a.rs").starts_with("fn start"));
    refused(
        &sb,
        "edit_block",
        json!({"file_path": "a.rs", "range": "Sheet1!A1:B2", "content": [[1, 2]], "old_string": "x", "new_string": "y"}),
        &["range-based editing is not supported"],
    );
    // A near miss above Desktop Commander's 70% threshold, and one below it: both shown.
    let run = failed(
        &sb,
        "edit_block",
        json!({"file_path": "a.rs", "old_string": "let valeu = compute_totals(item);", "new_string": "x"}),
        &[
            "Exact match not found, but found a similar text with 94% similarity at line 2",
            "let value = compute_total(items);",
        ],
    );
    assert_eq!(run.json["details"]["near_miss"]["line"], 2);
    failed(
        &sb,
        "edit_block",
        json!({"file_path": "a.rs", "old_string": "let v = totally(other);", "new_string": "x"}),
        &[
            "The closest match was \"let value = compute_total(items);\" (line 2) with only",
            "% similarity, which is below the 70% threshold",
        ],
    );
}

/// `file_read` and `file_edit`, which the curated and the `semantic` table both serve, take
/// each table's own spelling of one set of arguments: the curated table (also what a call
/// naming no table gets) snake_case, the `semantic` table camelCase; the other spelling is
/// refused with the name the table takes.
#[test]
fn the_shared_semantic_tools_take_each_tables_spelling_only() {
    let sb = Sandbox::new();
    let source = "export function area(r: number): number {\n  return r * r * 3;\n}\n";
    sb.write("a.ts", source);
    // Camel case sent to the curated table, with no table named and named.
    refused(
        &sb,
        "file_edit",
        json!({"file": "a.ts", "refactor": "rename_symbol", "symbol": "area", "newName": "surface", "dryRun": true}),
        &[
            "`newName`; did you mean `new_name`?",
            "`dryRun`; did you mean `dry_run`?",
        ],
    );
    let run = sb.call_in(
        "filekit",
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extractedName": "sq",
               "selection_range": {"start_line": 2, "start_column": 9, "end_line": 2, "end_column": 14}}),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("did you mean `extracted_name`?"),
        "{}",
        run.stderr
    );
    let run = sb.call_in(
        "filekit",
        "file_read",
        json!({"file": "a.ts", "symbol": "area", "maxLines": 1}),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `max_lines`?"),
        "{}",
        run.stderr
    );
    // Snake case sent to the semantic table, nested too.
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extractedName": "sq",
               "selectionRange": {"start_line": 2, "startColumn": 9, "endLine": 2, "endColumn": 14}}),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`selectionRange.start_line`; did you mean `startLine`?"),
        "{}",
        run.stderr
    );
    assert_eq!(sb.read("a.ts"), source);

    // What each table takes works, and answers in its spelling. No table named: the curated
    // table's tool.
    let run = sb.call(
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extracted_name": "sq",
               "selection_range": {"start_line": 2, "start_column": 9, "end_line": 2, "end_column": 14},
               "dry_run": true}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["dry_run"], true, "{}", run.stdout);
    assert!(run.json.get("dryRun").is_none(), "{}", run.stdout);
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extractedName": "sq",
               "selectionRange": {"startLine": 2, "startColumn": 9, "endLine": 2, "endColumn": 14}}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.json["historyEntry"].is_u64(), "{}", run.stdout);
    assert!(
        sb.read("a.ts").contains("const sq = r * r;"),
        "{}",
        sb.read("a.ts")
    );

    // A mistyped argument is named as the table spells it.
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extractedName": "sq2",
               "selectionRange": {"startLine": "two", "startColumn": 9, "endLine": 2, "endColumn": 14}}),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stderr);
    assert!(
        run.stderr.contains("argument `selectionRange.startLine`"),
        "{}",
        run.stderr
    );
    let run = sb.call(
        "file_edit",
        json!({"file": "a.ts", "refactor": "extract_variable", "extracted_name": "sq2",
               "selection_range": {"start_line": 2, "start_column": 9, "end_line": 2}}),
    );
    assert_eq!(run.code, BAD_REQUEST, "{}", run.stderr);
    assert!(
        run.stderr.contains("`selection_range.end_column`"),
        "{}",
        run.stderr
    );
    // The refactor layer's refusals, in each table's names.
    let run = sb.call(
        "file_edit",
        json!({"file": "a.ts", "refactor": "rename_symbol", "symbol": "area"}),
    );
    assert!(run.stderr.contains("`new_name`"), "{}", run.stderr);
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "a.ts", "refactor": "rename_symbol", "symbol": "area"}),
    );
    assert!(run.stderr.contains("`newName`"), "{}", run.stderr);
}
