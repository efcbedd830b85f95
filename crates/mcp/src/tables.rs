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
/// without duplicates. Errors name the tables that exist.
pub fn select_tools(list: &str) -> Result<Vec<ToolSpec>, String> {
    let mut chosen: Vec<ToolSpec> = Vec::new();
    for table in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let tools = if table == "all" {
            filekit_dialects::tools(None)
        } else if filekit_dialects::DIALECTS.contains(&table) {
            filekit_dialects::tools(Some(table))
        } else {
            let known: Vec<&str> = TABLES.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "--tools: unknown table '{table}' (tables: {})",
                known.join(", ")
            ));
        };
        for tool in tools {
            if !chosen.iter().any(|t| t.name == tool.name) {
                chosen.push(tool);
            }
        }
    }
    if chosen.is_empty() {
        return Err("--tools: no table given".to_string());
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(names("all").len(), distinct.len());
        assert_eq!(names("claude,all").len(), names("all").len());
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
