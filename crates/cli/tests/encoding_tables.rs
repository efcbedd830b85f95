//! Every table against every encoding of `encodings::CASES`: each table's read, search, edit,
//! replace and patch tools (those it has) over MCP stdio, one `filekit serve --tools TABLE`
//! per table as an agent's client runs it. A read shows the decoded text (no U+FFFD), a search
//! finds it, a write leaves the bytes Python's codecs made (every byte outside the edit the
//! file's), and a character the encoding cannot hold is refused, naming it, with the file
//! untouched. The curated table and the CLI verbs are in `encodings.rs` (and below, where it
//! leaves a gap).

use crate::common;
use crate::encodings::{CASES, Case};
use common::*;
use serde_json::{Value, json};

/// One call of a table's tool for a case, given the file's absolute path.
type CallFor = fn(&Case, &str) -> (&'static str, Value);

/// A table and what each of its tools does to the files of `CASES`.
struct Table {
    name: &'static str,
    /// Reads showing the file's text.
    reads: &'static [CallFor],
    /// Searches for `old2` that show the line it is on.
    searches: &'static [CallFor],
    /// Writes that turn the file into `after`.
    to_after: &'static [CallFor],
    /// Writes that turn the file into `after2`.
    to_after2: &'static [CallFor],
    /// Writes of `old` → `old` followed by U+1F600 (what four of the encodings cannot hold).
    refused: &'static [CallFor],
}

/// The line of the case's text holding `needle`, without its line break, and its number.
fn line_of(c: &Case, needle: &str) -> (String, usize) {
    let (i, line) = c
        .text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap();
    (line.to_string(), i + 1)
}

fn codex_patch(c: &Case, path: &str, old: &str, new: &str) -> String {
    let (line, _) = line_of(c, old);
    format!(
        "*** Begin Patch\n*** Update File: {path}\n@@\n-{line}\n+{}\n*** End Patch\n",
        line.replace(old, new)
    )
}

const NOT_HELD: &str = "😀";

fn with_emoji(c: &Case) -> String {
    format!("{}{NOT_HELD}", c.old)
}

const TABLES: &[Table] = &[
    Table {
        name: "filekit",
        reads: &[|_, p| ("read_files", json!({"files": [{"path": p}]}))],
        searches: &[|c, p| {
            (
                "grep_files",
                json!({"pattern": c.old2, "path": p, "output_mode": "content"}),
            )
        }],
        to_after: &[
            |c, p| {
                (
                    "edit_files",
                    json!({"files": [{"path": p, "edits": [{"str_replace": {"old": c.old, "new": c.new}}]}]}),
                )
            },
            |c, p| {
                (
                    "apply_patch",
                    json!({"input": codex_patch(c, p, c.old, c.new)}),
                )
            },
        ],
        to_after2: &[|c, p| {
            let (dir, name) = p.rsplit_once('/').unwrap();
            (
                "replace_in_files",
                json!({"expression": format!("s/{}/{}/", c.old2, c.new2), "files": name, "directory": dir}),
            )
        }],
        refused: &[
            |c, p| {
                (
                    "edit_files",
                    json!({"files": [{"path": p, "edits": [{"str_replace": {"old": c.old, "new": with_emoji(c)}}]}]}),
                )
            },
            |c, p| {
                (
                    "apply_patch",
                    json!({"input": codex_patch(c, p, c.old, &with_emoji(c))}),
                )
            },
        ],
    },
    Table {
        name: "claude",
        reads: &[|_, p| ("Read", json!({"file_path": p}))],
        searches: &[|c, p| {
            (
                "Grep",
                json!({"pattern": c.old2, "path": p, "output_mode": "content"}),
            )
        }],
        to_after: &[
            |c, p| {
                (
                    "Edit",
                    json!({"file_path": p, "old_string": c.old, "new_string": c.new}),
                )
            },
            |c, p| {
                (
                    "MultiEdit",
                    json!({"file_path": p, "edits": [{"old_string": c.old, "new_string": c.new}]}),
                )
            },
        ],
        to_after2: &[|c, p| {
            (
                "Edit",
                json!({"file_path": p, "old_string": c.old2, "new_string": c.new2, "replace_all": true}),
            )
        }],
        refused: &[|c, p| {
            (
                "Edit",
                json!({"file_path": p, "old_string": c.old, "new_string": with_emoji(c)}),
            )
        }],
    },
    Table {
        name: "codex",
        reads: &[],
        searches: &[],
        to_after: &[|c, p| {
            (
                "apply_patch",
                json!({"input": codex_patch(c, p, c.old, c.new)}),
            )
        }],
        to_after2: &[|c, p| {
            (
                "apply_patch",
                json!({"input": codex_patch(c, p, c.old2, c.new2)}),
            )
        }],
        refused: &[|c, p| {
            (
                "apply_patch",
                json!({"input": codex_patch(c, p, c.old, &with_emoji(c))}),
            )
        }],
    },
    Table {
        name: "amazonq",
        reads: &[|_, p| ("fs_read", json!({"mode": "Line", "path": p}))],
        searches: &[|c, p| {
            (
                "fs_read",
                json!({"mode": "Search", "path": p, "pattern": c.old2, "context_lines": 0}),
            )
        }],
        to_after: &[
            |c, p| {
                (
                    "fs_write",
                    json!({"command": "str_replace", "path": p, "old_str": c.old, "new_str": c.new}),
                )
            },
            |c, p| {
                let (line, n) = line_of(c, c.old);
                (
                    "fs_write",
                    json!({"command": "replace_lines", "path": p, "start_line": n, "end_line": n,
                           "new_str": line.replace(c.old, c.new)}),
                )
            },
        ],
        to_after2: &[|c, p| {
            (
                "fs_write",
                json!({"command": "str_replace", "path": p, "old_str": c.old2, "new_str": c.new2}),
            )
        }],
        refused: &[|c, p| {
            (
                "fs_write",
                json!({"command": "str_replace", "path": p, "old_str": c.old, "new_str": with_emoji(c)}),
            )
        }],
    },
    Table {
        name: "mcp-filesystem",
        reads: &[
            |_, p| ("read_text_file", json!({"path": p})),
            |_, p| ("read_multiple_files", json!({"paths": [p]})),
        ],
        // Its search_files matches names only.
        searches: &[],
        to_after: &[|c, p| {
            (
                "edit_file",
                json!({"path": p, "edits": [{"oldText": c.old, "newText": c.new}]}),
            )
        }],
        to_after2: &[|c, p| {
            (
                "edit_file",
                json!({"path": p, "edits": [{"oldText": c.old2, "newText": c.new2}]}),
            )
        }],
        refused: &[|c, p| {
            (
                "edit_file",
                json!({"path": p, "edits": [{"oldText": c.old, "newText": with_emoji(c)}]}),
            )
        }],
    },
    Table {
        name: "desktop-commander",
        reads: &[
            |_, p| ("read_file", json!({"path": p})),
            |_, p| ("read_multiple_files", json!({"paths": [p]})),
        ],
        searches: &[|c, p| {
            let (dir, name) = p.rsplit_once('/').unwrap();
            (
                "start_search",
                json!({"path": dir, "pattern": c.old2, "searchType": "content",
                       "filePattern": name, "contextLines": 0}),
            )
        }],
        to_after: &[
            |c, p| {
                (
                    "edit_block",
                    json!({"file_path": p, "old_string": c.old, "new_string": c.new}),
                )
            },
            |c, p| {
                (
                    "batch_edit_blocks",
                    json!({"path": p, "edits": [{"search": c.old, "replace": c.new}]}),
                )
            },
            |c, p| {
                let (line, n) = line_of(c, c.old);
                (
                    "write_from_line",
                    json!({"path": p, "startLine": n, "endLine": n,
                           "content": format!("{}\n", line.replace(c.old, c.new))}),
                )
            },
        ],
        to_after2: &[|c, p| {
            (
                "edit_block",
                json!({"file_path": p, "old_string": c.old2, "new_string": c.new2,
                       "expected_replacements": 1}),
            )
        }],
        refused: &[
            |c, p| {
                (
                    "edit_block",
                    json!({"file_path": p, "old_string": c.old, "new_string": with_emoji(c)}),
                )
            },
            |c, p| {
                (
                    "batch_edit_blocks",
                    json!({"path": p, "edits": [{"search": c.old, "replace": with_emoji(c)}]}),
                )
            },
        ],
    },
];

/// The text blocks of a `tools/call` result, joined.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn is_error(result: &Value) -> bool {
    result["isError"].as_bool().unwrap_or(false)
}

/// Whether an encoding holds U+1F600 (the UTF-16 forms and GB18030 hold every character).
fn holds_emoji(c: &Case) -> bool {
    c.encoding.starts_with("UTF-16") || c.encoding == "gb18030"
}

#[test]
fn every_table_reads_searches_and_writes_each_encoding_in_place() {
    for table in TABLES {
        let sb = Sandbox::new();
        // One copy of each file per call, so that each call starts from the file's bytes.
        let copy = |kind: &str, i: usize, c: &Case| -> String {
            let rel = format!("{kind}{i}/{}", c.file);
            sb.write_bytes(&rel, c.bytes);
            sb.path(&rel).display().to_string()
        };
        let mut mcp = McpStdio::start(sb.command(&["serve", "--tools", table.name]));
        for c in CASES {
            let mut call = |(tool, args): (&str, Value)| -> (String, Value) {
                let result = mcp.call_tool(tool, &args);
                (format!("{} {tool} {}", table.name, c.file), result)
            };
            for (i, read) in table.reads.iter().enumerate() {
                let path = copy("read", i, c);
                let (what, result) = call(read(c, &path));
                let shown = text(&result);
                assert!(!is_error(&result), "{what}: {result}");
                for needle in [c.old, c.old2] {
                    assert!(shown.contains(needle), "{what}: {needle} not in {shown}");
                }
                assert!(!shown.contains('\u{FFFD}'), "{what}: {shown}");
            }
            for (i, search) in table.searches.iter().enumerate() {
                let path = copy("search", i, c);
                let (what, result) = call(search(c, &path));
                assert!(!is_error(&result), "{what}: {result}");
                assert!(text(&result).contains(c.old2), "{what}: {result}");
            }
            for (writes, after, kind) in [
                (table.to_after, c.after, "edit"),
                (table.to_after2, c.after2, "replace"),
            ] {
                for (i, write) in writes.iter().enumerate() {
                    let path = copy(kind, i, c);
                    let (what, result) = call(write(c, &path));
                    assert!(!is_error(&result), "{what}: {result}");
                    assert_eq!(std::fs::read(&path).unwrap(), after, "{what}: {result}");
                }
            }
            if holds_emoji(c) {
                continue;
            }
            for (i, write) in table.refused.iter().enumerate() {
                let path = copy("refused", i, c);
                let (what, result) = call(write(c, &path));
                assert!(is_error(&result), "{what}: {result}");
                let said = text(&result);
                assert!(
                    said.contains("U+1F600") && said.contains(c.encoding),
                    "{what}: {said}"
                );
                assert_eq!(std::fs::read(&path).unwrap(), c.bytes, "{what}: {said}");
            }
        }
    }
}

/// The CLI verbs beside `encodings.rs`'s: `filekit read` and `filekit edit` of each file as
/// it is (the encoding detected), and the refusals of `edit`, `replace` and `patch`.
#[test]
fn the_verbs_read_and_edit_each_encoding_and_refuse_what_it_cannot_hold() {
    let sb = Sandbox::new();
    for c in CASES {
        sb.write_bytes(c.file, c.bytes);
        let run = sb.filekit(&["read", c.file], None);
        assert_eq!(run.code, 0, "read {}: {}", c.file, run.stderr);
        for needle in [c.old, c.old2, c.encoding] {
            assert!(
                run.stdout.contains(needle),
                "read {}: {}",
                c.file,
                run.stdout
            );
        }
        let plan = json!({"files": [{"path": c.file, "edits": [{"str_replace": {"old": c.old, "new": c.new}}]}]});
        let run = sb.filekit(&["edit"], Some(&plan.to_string()));
        assert_eq!(run.code, 0, "edit {}: {}{}", c.file, run.stdout, run.stderr);
        assert_eq!(
            std::fs::read(sb.path(c.file)).unwrap(),
            c.after,
            "edit {}",
            c.file
        );
        sb.write_bytes(c.file, c.bytes);
        if holds_emoji(c) {
            continue;
        }
        let plan = json!({"files": [{"path": c.file, "edits": [{"str_replace": {"old": c.old, "new": with_emoji(c)}}]}]});
        let (line, _) = line_of(c, c.old);
        let diff = format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1 +1 @@\n-{line}\n+{}\n",
            line.replace(c.old, &with_emoji(c)),
            f = c.file
        );
        let replace = format!("s/{}/{}/", c.old, with_emoji(c));
        for (verb, args, stdin) in [
            ("edit", vec!["edit"], Some(plan.to_string())),
            ("patch", vec!["patch", "-"], Some(diff)),
            ("replace", vec!["replace", &replace, c.file], None),
        ] {
            let run = sb.filekit(&args, stdin.as_deref());
            let said = format!("{}{}", run.stdout, run.stderr);
            assert_ne!(run.code, 0, "{verb} {}: {said}", c.file);
            assert!(
                said.contains("U+1F600") && said.contains(c.encoding),
                "{verb} {}: {said}",
                c.file
            );
            assert_eq!(
                std::fs::read(sb.path(c.file)).unwrap(),
                c.bytes,
                "{verb} {}",
                c.file
            );
        }
    }
}

/// `encoding` in a drop-in table, by what its real tool does with it: the Q CLI and Codex
/// ignore it (serde), so naming UTF-8 is taken and changes nothing, and another label is
/// refused with nothing done (the agent would expect the file decoded in it); Claude Code
/// refuses any argument its tool does not name, `encoding` too.
#[test]
fn an_encoding_argument_is_taken_or_refused_as_the_real_tool_does() {
    let sb = Sandbox::new();
    let latin1 = CASES.iter().find(|c| c.file == "latin1.txt").unwrap();
    sb.write_bytes(latin1.file, latin1.bytes);
    let path = sb.path(latin1.file).display().to_string();

    let run = sb.call_in(
        "amazonq",
        "fs_read",
        json!({"mode": "Line", "path": path, "encoding": "utf-8"}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(latin1.old), "{}", run.stdout);
    let run = sb.call_in(
        "amazonq",
        "fs_read",
        json!({"operations": [{"mode": "Line", "path": path, "encoding": "UTF8"}]}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let run = sb.call_in(
        "amazonq",
        "fs_write",
        json!({"command": "str_replace", "path": path, "old_str": latin1.old,
               "new_str": latin1.new, "encoding": "utf-8"}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), latin1.after);
    sb.write_bytes(latin1.file, latin1.bytes);
    let patch = codex_patch(latin1, &path, latin1.old, latin1.new);
    let run = sb.call_in(
        "codex",
        "apply_patch",
        json!({"input": patch, "encoding": "utf-8"}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), latin1.after);
    sb.write_bytes(latin1.file, latin1.bytes);

    for (table, tool, args) in [
        (
            "amazonq",
            "fs_write",
            json!({"command": "str_replace", "path": path, "old_str": latin1.old,
                   "new_str": latin1.new, "encoding": "latin1"}),
        ),
        (
            "codex",
            "apply_patch",
            json!({"input": patch, "encoding": "shift_jis"}),
        ),
    ] {
        sb.call_fails_in(
            table,
            tool,
            args,
            2,
            &["`encoding`", "is not taken", "its own encoding, detected"],
        );
    }
    sb.call_fails_in(
        "claude",
        "Edit",
        json!({"file_path": path, "old_string": latin1.old, "new_string": latin1.new,
               "encoding": "utf-8"}),
        2,
        &["unknown argument `encoding`"],
    );
}
