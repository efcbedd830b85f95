//! `filekit tools --markdown --dialect TABLE`: the documentation page of a tool table
//! (docs/tools/TABLE.md), generated from the table itself: each tool's description, the
//! arguments it takes and the fields it returns, from its input and output schemas. A test
//! compares the committed pages with what this prints, so they cannot drift.

use serde_json::Value;
use std::fmt::Write;

/// The page of `table` (a dialect name).
pub fn page(table: &str) -> String {
    let what = filekit_mcp::TABLES
        .iter()
        .find(|(name, _)| *name == table)
        .map_or("", |(_, what)| *what);
    let tools = filekit_dialects::tools(Some(table));
    let mut out = String::new();
    let _ = writeln!(out, "# The `{table}` tool table\n");
    let _ = writeln!(
        out,
        "<!-- Generated from the tool table by `filekit tools --markdown --dialect {table}`; \
         do not edit: a test fails when this page differs from what the table generates. -->\n"
    );
    let mut first = what.to_string();
    if let Some(c) = first.get(..1) {
        first.replace_range(..1, &c.to_uppercase());
    }
    let _ = writeln!(
        out,
        "{first}. Served over MCP by `filekit serve --tools {table}`; each tool is also a \
         `filekit call` from the command line \
         (`{{\"tool_name\": \"{}\", \"tool_args\": {{...}}}}`).\n",
        tools.first().map_or("", |t| t.name)
    );
    out.push_str("| tool | MCP name | reads only | destructive | idempotent |\n");
    out.push_str("|---|---|---|---|---|\n");
    let yes = |b: bool| if b { "yes" } else { "no" };
    for t in &tools {
        let _ = writeln!(
            out,
            "| [`{}`](#{}) | `{}` | {} | {} | {} |",
            t.name,
            anchor(t.name),
            t.mcp_name(),
            yes(t.read_only),
            yes(t.destructive),
            yes(t.idempotent)
        );
    }
    for t in &tools {
        let _ = writeln!(out, "\n## {}\n", t.name);
        if t.mcp_name() != t.name {
            let _ = writeln!(out, "Served over MCP as `{}`.\n", t.mcp_name());
        }
        let _ = writeln!(out, "{}\n", t.description.trim_end());
        if !t.guide.is_empty() {
            let _ = writeln!(out, "{}\n", t.guide.trim_end());
        }
        out.push_str("**Takes**\n\n");
        let inputs = rows(t.input_schema);
        if inputs.is_empty() {
            out.push_str("No arguments.\n");
        } else {
            out.push_str("| argument | type | required | description |\n|---|---|---|---|\n");
            for r in inputs {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    r.path,
                    cell(&r.kind),
                    if r.required { "yes" } else { "" },
                    cell(&r.description)
                );
            }
        }
        let output = filekit_dialects::documented_output_schema(t);
        let outputs = rows(&output);
        out.push_str("\n**Returns**");
        if let Some(d) = output.get("description").and_then(Value::as_str) {
            let _ = write!(out, ": {}", d.trim());
        }
        out.push_str("\n\n");
        if outputs.is_empty() {
            out.push_str("A text reply.\n");
        } else {
            out.push_str("| field | type | description |\n|---|---|---|\n");
            for r in outputs {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} |",
                    r.path,
                    cell(&r.kind),
                    cell(&r.description)
                );
            }
        }
    }
    out
}

/// GitHub's heading anchor: lower case, spaces to '-', other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}

/// Text for a table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

struct Row {
    path: String,
    kind: String,
    required: bool,
    description: String,
}

/// A row per property, nested ones named by path (`files[].path`), in the schema's order.
fn rows(schema: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    collect(schema, "", &mut out, 0);
    out
}

fn collect(schema: &Value, prefix: &str, out: &mut Vec<Row>, depth: usize) {
    if depth > 4 {
        return;
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let path = format!("{prefix}{name}");
            if !out.iter().any(|r| r.path == path) {
                out.push(Row {
                    path: path.clone(),
                    kind: kind(prop),
                    required: required.contains(&name.as_str()),
                    description: prop
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                });
            }
            nested(prop, &path, out, depth);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for alt in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(alt, prefix, out, depth + 1);
        }
    }
}

/// The properties inside a property: an object's, or its items' when it is an array.
fn nested(prop: &Value, path: &str, out: &mut Vec<Row>, depth: usize) {
    if prop.get("properties").is_some() {
        collect(prop, &format!("{path}."), out, depth + 1);
    }
    if let Some(items) = prop.get("items") {
        collect(items, &format!("{path}[]."), out, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        for alt in prop
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            nested(alt, path, out, depth + 1);
            if alt.get("properties").is_some() {
                collect(alt, &format!("{path}."), out, depth + 1);
            }
        }
    }
}

/// A schema's type in words: `string`, `array of object`, `one of \`a\`, \`b\``, ...
fn kind(schema: &Value) -> String {
    if let Some(c) = schema.get("const") {
        return format!("`{c}`");
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
        return format!("one of {}", values.join(", "));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = schema.get(key).and_then(Value::as_array) {
            let mut kinds: Vec<String> = Vec::new();
            for k in alts.iter().map(kind) {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
            return kinds.join(" or ");
        }
    }
    let mut base = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_string(),
    };
    if base == "array"
        && let Some(items) = schema.get("items")
    {
        base = format!("array of {}", kind(items));
    }
    let (min, max) = (schema.get("minimum"), schema.get("maximum"));
    match (min, max) {
        (Some(lo), Some(hi)) => base.push_str(&format!(" ({lo} to {hi})")),
        (Some(lo), None) => base.push_str(&format!(" (at least {lo})")),
        _ => {}
    }
    base
}
