//! Which tool tables `--tools` may name, and the tools a choice serves.

use filekit_dialects::ToolSpec;

/// Every table name `--tools` accepts, with what it is (its tools are listed from the tables
/// themselves: `filekit serve --help`, `filekit tools --dialect NAME`).
pub const TABLES: &[(&str, &str)] = &[
    ("filekit", "filekit's own design (the default)"),
    ("amazonq", "Amazon Q Developer CLI's file tools"),
    (
        "file",
        "the file:* tools, served with '_' for ':' (MCP names have no ':')",
    ),
    ("claude", "Claude Code's file tools"),
    (
        "desktop-commander",
        "Desktop Commander's file and edit tools",
    ),
    (
        "semantic",
        "read and edit by symbol, JSONPath or heading; create, delete, move files",
    ),
    (
        "codex",
        "Codex CLI's apply_patch (patch envelopes, unified diffs, SEARCH/REPLACE)",
    ),
    (
        "mcp-filesystem",
        "the official MCP filesystem server's tools (server-filesystem)",
    ),
    ("all", "every table above"),
];

/// The tools a `--tools` value serves: comma-separated table names, in the order given,
/// without duplicates. Errors name the tables that exist, or the tools two named tables define
/// differently (see [`select`]).
pub fn select_tools(list: &str) -> Result<Vec<ToolSpec>, String> {
    select(list).map(|s| s.tools)
}

/// What a `--tools` value serves, and what `all` did with the names tables define
/// differently.
#[derive(Debug)]
pub struct Selection {
    pub tools: Vec<ToolSpec>,
    /// Names that tables define differently (the filesystem server's and Desktop Commander's
    /// `read_file`), which `all` cannot serve as one tool: each with those tables.
    pub left_out: Vec<(String, Vec<&'static str>)>,
    /// Names that the curated table and others define differently (`file_edit`, whose
    /// arguments the `semantic` table spells in camelCase), which `all` serves as the curated
    /// table's tool, as a call naming no table means it: each with the other tables.
    pub curated: Vec<(String, Vec<&'static str>)>,
}

impl Selection {
    /// The lines `serve` writes on stderr (and `serve --help` under `all`), if `all` left
    /// out a tool or chose the curated table's among several.
    pub fn note(&self) -> Option<String> {
        let each = |names: &[(String, Vec<&str>)]| -> String {
            names
                .iter()
                .map(|(name, tables)| format!("{name} ({})", tables.join(", ")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines = Vec::new();
        if !self.curated.is_empty() {
            lines.push(format!(
                "--tools all serves the {} table's version of the tools other tables define \
                 differently: {}; name one of those tables to serve its version",
                filekit_dialects::CURATED,
                each(&self.curated)
            ));
        }
        if !self.left_out.is_empty() {
            lines.push(format!(
                "--tools all leaves out the tools that tables define differently: {}; name one \
                 of those tables to serve its version",
                each(&self.left_out)
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// The tools a `--tools` value serves. A client sees one tool per name, so two named tables
/// that give one name different arguments are refused, naming the clash; `all` serves every
/// tool whose name means one tool, the curated table's where it has the name (said in
/// [`Selection::curated`]), leaves out the others (said in [`Selection::left_out`]), and
/// gives way to a table named beside it.
pub fn select(list: &str) -> Result<Selection, String> {
    select_in(list, &filekit_dialects::tools(None))
}

fn select_in(list: &str, table: &[ToolSpec]) -> Result<Selection, String> {
    let named: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    for t in &named {
        if *t != "all" && !table.iter().any(|spec| spec.dialect == *t) {
            let known: Vec<&str> = TABLES.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "--tools: unknown table '{t}' (tables: {})",
                known.join(", ")
            ));
        }
    }
    if named.is_empty() {
        return Err("--tools: no table given".to_string());
    }
    // Two tools of one (MCP) name that take different arguments are different tools.
    let differ = |a: &ToolSpec, b: &ToolSpec| {
        a.mcp_name() == b.mcp_name()
            && a.dialect != b.dialect
            && !filekit_dialects::same_schema(a, b)
    };
    let explicit: Vec<&ToolSpec> = table
        .iter()
        .filter(|spec| named.contains(&spec.dialect))
        .collect();
    for (i, a) in explicit.iter().enumerate() {
        if let Some(b) = explicit[i + 1..].iter().find(|b| differ(a, b)) {
            return Err(format!(
                "--tools: the tables {} and {} both have a tool named '{}', with different \
                 arguments; a client sees one tool per name, so serve them from two servers \
                 (one --tools each)",
                a.dialect,
                b.dialect,
                a.mcp_name()
            ));
        }
    }
    let mut chosen: Vec<ToolSpec> = Vec::new();
    let mut left_out: Vec<(String, Vec<&'static str>)> = Vec::new();
    let mut curated: Vec<(String, Vec<&'static str>)> = Vec::new();
    for t in named {
        for tool in table.iter().filter(|spec| t == "all" || spec.dialect == t) {
            if chosen.iter().any(|c| c.mcp_name() == tool.mcp_name()) {
                continue;
            }
            if t == "all" {
                // A named table serves its own version wherever it stands in the list.
                if explicit.iter().any(|e| e.mcp_name() == tool.mcp_name()) {
                    continue;
                }
                let rivals: Vec<&ToolSpec> = table.iter().filter(|o| differ(tool, o)).collect();
                let curated_has = |t: &ToolSpec| {
                    t.dialect == filekit_dialects::CURATED
                        || table
                            .iter()
                            .any(|o| o.dialect == filekit_dialects::CURATED && differ(t, o))
                };
                if !rivals.is_empty() && curated_has(tool) {
                    if tool.dialect != filekit_dialects::CURATED {
                        continue;
                    }
                    let mut others: Vec<&'static str> = rivals.iter().map(|r| r.dialect).collect();
                    others.dedup();
                    curated.push((tool.mcp_name(), others));
                } else if !rivals.is_empty() {
                    if !left_out.iter().any(|(n, _)| *n == tool.mcp_name()) {
                        let mut tables = vec![tool.dialect];
                        tables.extend(rivals.iter().map(|r| r.dialect));
                        tables.dedup();
                        left_out.push((tool.mcp_name(), tables));
                    }
                    continue;
                }
            }
            chosen.push(tool.clone());
        }
    }
    Ok(Selection {
        tools: chosen,
        left_out,
        curated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::sync::LazyLock;

    fn names(list: &str) -> Vec<&'static str> {
        select_tools(list).unwrap().iter().map(|t| t.name).collect()
    }

    #[test]
    fn tables_select_their_dialect_in_order_without_duplicates() {
        assert_eq!(
            names("claude"),
            ["Read", "Write", "Edit", "MultiEdit", "LS", "Glob", "Grep"]
        );
        let both = names("amazonq, claude,amazonq");
        assert_eq!(both[..2], ["fs_read", "fs_write"]);
        assert_eq!(both.len(), 9);
        let mut distinct: Vec<&str> = filekit_dialects::tools(None)
            .iter()
            .map(|t| t.name)
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        // `all` leaves out the names tables define differently.
        let left_out = select("all").unwrap().left_out.len();
        assert_eq!(names("all").len(), distinct.len() - left_out);
        assert_eq!(names("claude,all").len(), names("all").len());
    }

    /// `table` with a copy of Desktop Commander's `read_file` (and of its `edit_block`, the
    /// same tool) in a table `peer`, its read_file taking other arguments: the clash that the
    /// filesystem server's table brings.
    fn with_a_rival() -> Vec<ToolSpec> {
        // Two tables and the rival: what other tables define alike or not stays out of it.
        let mut table = filekit_dialects::tools(Some("desktop-commander"));
        table.extend(filekit_dialects::tools(Some("claude")));
        let dc = |name: &str| {
            table
                .iter()
                .find(|t| t.dialect == "desktop-commander" && t.name == name)
                .unwrap()
                .clone()
        };
        // Desktop Commander's read_file schema with one more argument.
        static RIVAL_SCHEMA: LazyLock<Value> = LazyLock::new(|| {
            let mut schema =
                filekit_dialects::find_tool_in(Some(&["desktop-commander"]), "read_file")
                    .map(|t| Value::clone(t.input_schema))
                    .unwrap();
            schema["properties"]["head"] = serde_json::json!({"type": "integer"});
            schema
        });
        let mut rival = dc("read_file");
        rival.dialect = "peer";
        rival.input_schema = &RIVAL_SCHEMA;
        let mut same = dc("edit_block");
        same.dialect = "peer";
        table.extend([rival, same]);
        table
    }

    #[test]
    fn two_named_tables_that_define_a_name_differently_are_refused_naming_the_clash() {
        let table = with_a_rival();
        let err = select_in("desktop-commander,peer", &table).unwrap_err();
        assert!(
            err.contains("desktop-commander and peer")
                && err.contains("'read_file'")
                && err.contains("two servers"),
            "{err}"
        );
        // A tool both define alike is no clash: one is served.
        let peer = select_in("peer", &table).unwrap();
        assert_eq!(peer.tools.len(), 2);
        assert!(peer.left_out.is_empty());
    }

    #[test]
    fn all_serves_what_does_not_clash_and_says_what_it_left_out() {
        let table = with_a_rival();
        let all = select_in("all", &table).unwrap();
        assert!(!all.tools.iter().any(|t| t.name == "read_file"));
        assert_eq!(
            all.tools.iter().filter(|t| t.name == "edit_block").count(),
            1
        );
        assert_eq!(
            all.left_out,
            [("read_file".to_string(), vec!["desktop-commander", "peer"])]
        );
        let note = all.note().unwrap();
        assert!(
            note.contains("read_file (desktop-commander, peer)"),
            "{note}"
        );
        // A table named beside `all` serves its version, wherever it stands.
        for list in ["all,peer", "peer,all"] {
            let s = select_in(list, &table).unwrap();
            let read: Vec<_> = s.tools.iter().filter(|t| t.name == "read_file").collect();
            assert_eq!(read.len(), 1, "{list}");
            assert_eq!(read[0].dialect, "peer", "{list}");
            assert!(s.left_out.is_empty(), "{list}");
        }
        // Today's tables: `all` leaves out exactly the names tables define differently.
        let today = select("all").unwrap();
        for (name, tables) in &today.left_out {
            assert_eq!(&filekit_dialects::tables_disagreeing_on(name), tables);
        }
    }

    #[test]
    fn all_serves_the_curated_tables_version_of_a_name_it_defines_differently() {
        let all = select("all").unwrap();
        for name in ["file_read", "file_edit"] {
            let served: Vec<&ToolSpec> = all.tools.iter().filter(|t| t.name == name).collect();
            assert_eq!(served.len(), 1, "{name}");
            assert_eq!(served[0].dialect, filekit_dialects::CURATED, "{name}");
            assert!(
                all.curated
                    .iter()
                    .any(|(n, tables)| n == name && tables == &["semantic"]),
                "{:?}",
                all.curated
            );
        }
        let note = all.note().unwrap();
        assert!(note.contains("file_edit (semantic)"), "{note}");
        // A table named beside `all` serves its version; the two named together clash.
        let s = select("semantic,all").unwrap();
        let edit: Vec<&ToolSpec> = s.tools.iter().filter(|t| t.name == "file_edit").collect();
        assert_eq!(edit.len(), 1);
        assert_eq!(edit[0].dialect, "semantic");
        let err = select("filekit,semantic").unwrap_err();
        assert!(err.contains("'file_read'"), "{err}");
    }

    #[test]
    fn unknown_tables_are_errors_not_stubs() {
        assert_eq!(
            names("semantic"),
            [
                "file_read",
                "file_edit",
                "file_create",
                "file_delete",
                "file_move",
                "file_rename",
                "file_duplicate"
            ]
        );
        assert_eq!(
            names("filekit"),
            [
                "read_files",
                "edit_files",
                "replace_in_files",
                "lock",
                "unlock",
                "grep_files",
                "find_files",
                "list_dir",
                "file_read",
                "file_edit",
                "manage_files",
                "history",
                "undo",
                "redo",
                "apply_patch"
            ]
        );
        assert_eq!(names("codex"), ["apply_patch"]);
        let err = select_tools("claud").unwrap_err();
        assert!(err.contains("unknown table 'claud'") && err.contains("desktop-commander"));
        assert!(select_tools(" , ").is_err());
    }
}
