//! `filekit call`: one tool call in, the tool's JSON reply out.
//!
//! The call format is the `file` document's `{"tool_name": ..., "tool_args": {...}}`; keys
//! such as `thoughts` and `headline` are ignored. The spellings of the other documents and of
//! MCP (`name` + `arguments`/`parameters`, `tool` + `args`) are accepted too, so a call copied
//! from any of them runs as it is.

use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::limits::MAX_REQUEST_SIZE;
use filekit_core::{FkError, Limit};
use serde_json::{Value, json};
use std::io::{IsTerminal, Read, Write};

pub const AFTER_HELP: &str = "\
The call is a JSON object naming the tool and its arguments:
  {\"tool_name\": \"fs_write\", \"tool_args\": {\"command\": \"str_replace\", \"path\": \"a.txt\", \"old_str\": \"x\", \"new_str\": \"y\"}}
Other keys (thoughts, headline, ...) are ignored; {\"name\", \"arguments\"} (MCP),
{\"name\", \"parameters\"} and {\"tool\", \"args\"} are accepted as well. Tools are named by their
document name (file:read_file) or MCP name (file_read_file); `filekit tools` lists them.

Examples:
  echo '{\"tool_name\": \"file:read_file\", \"tool_args\": {\"path\": \"src/app.js\", \"start_line\": 40, \"end_line\": 60}}' | filekit call
  filekit call --json '{\"tool_name\": \"batch_edit_blocks\", \"tool_args\": {\"path\": \"doc.md\", \"edits\": [{\"search\": \"a\", \"replace\": \"b\"}], \"dryRun\": true}}'

Prints the tool's reply as compact JSON (indented with --pretty). Exit codes: 0 success; 1 the tool ran and reported a failure
(success: false, or any failed edit); 2 the call was bad (malformed JSON, missing tool_name,
unknown tool, bad arguments) and nothing was attempted.";

#[derive(Args)]
pub struct CallArgs {
    /// The tool call as JSON; without it the call is read from standard input.
    #[arg(long = "json", value_name = "CALL")]
    pub(crate) call: Option<String>,
    /// The tool call as JSON, as --json takes it (`filekit call '{"tool_name": ...}'`).
    #[arg(value_name = "CALL", conflicts_with = "call")]
    pub(crate) call_given: Option<String>,
    /// Look the tool up in these tables only (comma-separated, as `serve --tools`): needed
    /// where two tables have a tool of one name that takes different arguments.
    #[arg(long = "tools", value_name = "TABLES")]
    pub(crate) tables: Option<String>,
    /// Print the reply indented, for people; the default is compact JSON on one line, as a
    /// program or a model reads it.
    #[arg(long)]
    pub(crate) pretty: bool,
}

const NAME_KEYS: &[&str] = &["tool_name", "name", "tool"];
const ARGS_KEYS: &[&str] = &["tool_args", "arguments", "parameters", "args"];

pub fn run(global: &GlobalArgs, args: CallArgs) -> u8 {
    let source = match args.call.or(args.call_given) {
        Some(s) => s,
        None => {
            if std::io::stdin().is_terminal() {
                return bad_call(
                    "INVALID_ARGUMENT",
                    "no tool call given: pass it with --json '{...}' or on standard input".into(),
                );
            }
            // Never more than the bound (and one byte to tell that it was passed): a call is
            // read whole before it is parsed.
            let mut s = String::new();
            if let Err(e) = std::io::stdin()
                .take(MAX_REQUEST_SIZE + 1)
                .read_to_string(&mut s)
            {
                return bad_call(
                    "IO",
                    format!("cannot read the tool call from standard input: {e}"),
                );
            }
            s
        }
    };
    if source.len() as u64 > MAX_REQUEST_SIZE {
        return too_large(source.len() as u64);
    }
    let (name, tool_args) = match parse_call(&source) {
        Ok(call) => call,
        Err((code, message)) => return bad_call(code, message),
    };
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return bad_call(e.code.as_str(), e.full_message()),
    };
    // `all` (as serve takes it) is no restriction.
    let tables: Option<Vec<&str>> = args
        .tables
        .as_deref()
        .map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect::<Vec<&str>>()
        })
        .filter(|list| !list.contains(&"all"));
    if let Some(unknown) = tables
        .iter()
        .flatten()
        .find(|t| !filekit_dialects::DIALECTS.contains(t))
    {
        return bad_call(
            "INVALID_ARGUMENT",
            format!(
                "--tools: unknown table '{unknown}' (tables: {})",
                filekit_dialects::DIALECTS.join(", ")
            ),
        );
    }
    let reply = filekit_dialects::call_in(&ws, tables.as_deref(), &name, tool_args);
    crate::history_warning(&ws);
    print_json(&reply.value, args.pretty);
    let code = if reply.rejected {
        eprintln!("filekit: {}", crate::terminal::lines(&reply.text));
        EXIT_BAD_REQUEST
    } else if reply.is_error {
        EXIT_FAILED
    } else {
        EXIT_OK
    };
    // A reply can be megabytes of small allocations (10,000 edit results); the process ends
    // next, and the OS frees them faster than walking the tree would.
    std::mem::forget(reply);
    code
}

/// The reply as JSON on standard output (indented with `pretty`), streamed rather than built
/// as one string first.
fn print_json(value: &Value, pretty: bool) {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if pretty {
        serde_json::to_writer_pretty(&mut out, value)
    } else {
        serde_json::to_writer(&mut out, value)
    };
    // Writing fails only when standard output is closed; there is no one left to tell.
    let _ = written
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
}

/// The tool name and arguments of a call document, or a code and a message saying what is
/// wrong with it.
fn parse_call(source: &str) -> Result<(String, Value), (&'static str, String)> {
    if source.trim().is_empty() {
        return Err((
            "PARSE_ERROR",
            "the tool call is empty: expected a JSON object such as {\"tool_name\": \"fs_read\", \"tool_args\": {...}}".into(),
        ));
    }
    let doc: Value = serde_json::from_str(source).map_err(|e| {
        (
            "PARSE_ERROR",
            format!(
                "the tool call is not valid JSON: {} at line {}, column {}",
                strip_position(&e.to_string()),
                e.line(),
                e.column()
            ),
        )
    })?;
    let Value::Object(mut obj) = doc else {
        return Err((
            "INVALID_ARGUMENT",
            "the tool call must be a JSON object such as {\"tool_name\": \"fs_read\", \"tool_args\": {...}}".into(),
        ));
    };
    let name = match NAME_KEYS.iter().find_map(|k| obj.get(*k)) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err((
                "INVALID_ARGUMENT",
                format!("tool_name must be a string, not {other}"),
            ));
        }
        None => {
            return Err((
                "INVALID_ARGUMENT",
                "the tool call has no tool_name: add \"tool_name\": \"<tool>\" (`filekit tools` lists them)".into(),
            ));
        }
    };
    let tool_args = match ARGS_KEYS.iter().find_map(|k| obj.remove(*k)) {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            return Err((
                "INVALID_ARGUMENT",
                format!("tool_args must be a JSON object of arguments, not {other}"),
            ));
        }
    };
    Ok((name, tool_args))
}

/// serde_json ends its messages with " at line L column C"; the position is said separately.
fn strip_position(message: &str) -> &str {
    message
        .rsplit_once(" at line ")
        .map(|(m, _)| m)
        .unwrap_or(message)
}

/// A call over [`MAX_REQUEST_SIZE`] bytes (`found`: as many as were read, one more than the
/// bound when it came on standard input), refused before it is parsed.
fn too_large(found: u64) -> u8 {
    let err = FkError::too_large(
        Limit::RequestSize,
        found,
        MAX_REQUEST_SIZE,
        format!("the tool call is larger than the {MAX_REQUEST_SIZE} bytes filekit reads in one call"),
    )
    .with_hint("send the edits or files in several smaller calls; a large file's content is better written in parts");
    let reply = json!({
        "success": false,
        "error": err.full_message(),
        "error_code": err.code.as_str(),
        "details": *err.details,
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&reply).unwrap_or_default()
    );
    eprintln!("filekit: TOO_LARGE: {}", err.full_message());
    EXIT_BAD_REQUEST
}

fn bad_call(code: &str, message: String) -> u8 {
    let reply = json!({"success": false, "error": message, "error_code": code});
    println!(
        "{}",
        serde_json::to_string_pretty(&reply).unwrap_or_default()
    );
    eprintln!("filekit: {code}: {message}");
    EXIT_BAD_REQUEST
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_documents() {
        let (n, a) = parse_call(
            r#"{"thoughts": ["x"], "tool_name": "Read", "tool_args": {"file_path": "a"}}"#,
        )
        .unwrap();
        assert_eq!((n.as_str(), a["file_path"].as_str()), ("Read", Some("a")));
        let (n, a) = parse_call(r#"{"name": "fs_read", "parameters": {"mode": "Line"}}"#).unwrap();
        assert_eq!((n.as_str(), a["mode"].as_str()), ("fs_read", Some("Line")));
        let (_, a) = parse_call(r#"{"tool": "x"}"#).unwrap();
        assert_eq!(a, json!({}));
        let e = parse_call("{\n  \"tool_name\": \"x\",\n  \"tool_args\": {\n}").unwrap_err();
        assert!(e.1.contains("line 4"), "{}", e.1);
        assert!(
            parse_call(r#"{"tool_args": {}}"#)
                .unwrap_err()
                .1
                .contains("no tool_name")
        );
        assert!(parse_call(r#"{"tool_name": "x", "tool_args": [1]}"#).is_err());
    }
}
