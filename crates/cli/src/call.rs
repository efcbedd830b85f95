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

With --lines, a call per line of standard input, each answered by a line of its own
({\"status\": EXIT_CODE, \"reply\": ...}) in one process:
  printf '%s\\n' '{\"name\": \"read_files\", \"arguments\": {\"files\": [{\"path\": \"a.txt\"}]}}' '{\"name\": \"grep_files\", \"arguments\": {\"pattern\": \"TODO\"}}' | filekit call --lines

Prints the tool's reply as compact JSON (indented with --pretty). Exit codes: 0 success; 1 the tool ran and reported a failure
(success: false, or any failed edit); 2 the call was bad (malformed JSON, missing tool_name,
unknown tool, bad arguments) and nothing was attempted.";

#[derive(Args, Debug, PartialEq)]
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
    #[arg(long, conflicts_with = "lines")]
    pub(crate) pretty: bool,
    /// Read one call per line of standard input and answer each on one line,
    /// `{"status": EXIT_CODE, "reply": ...}`, as soon as it is done, in one process: a search
    /// session one call starts serves the next. Exits with the worst call's code.
    #[arg(long, conflicts_with_all = ["call", "call_given"])]
    pub(crate) lines: bool,
}

const NAME_KEYS: &[&str] = &["tool_name", "name", "tool"];
const ARGS_KEYS: &[&str] = &["tool_args", "arguments", "parameters", "args"];

pub fn run(global: &GlobalArgs, args: CallArgs) -> u8 {
    if args.lines {
        return run_lines(global, args.tables.as_deref());
    }
    let source = match args.call.or(args.call_given) {
        Some(s) => s,
        None => {
            if std::io::stdin().is_terminal() {
                return bad_call(
                    "INVALID_ARGUMENT",
                    "no tool call given: pass it with --json '{...}' or on standard input".into(),
                )
                .report(true);
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
                )
                .report(true);
            }
            s
        }
    };
    let answer = match Caller::new(global, args.tables.as_deref()) {
        Ok(caller) => caller.answer(&source),
        Err(answer) => answer,
    };
    let code = answer.print(args.pretty);
    // A reply can be megabytes of small allocations (10,000 edit results); the process ends
    // next, and the OS frees them faster than walking the tree would.
    std::mem::forget(answer);
    code
}

/// `--lines`: a call per line of standard input, each answered on one line of standard output
/// as `{"status": CODE, "reply": ...}` as soon as it is done, in one process, so that what one
/// call starts (a search session) serves the next. The exit code is the worst call's.
fn run_lines(global: &GlobalArgs, tables: Option<&str>) -> u8 {
    let caller = match Caller::new(global, tables) {
        Ok(caller) => caller,
        Err(answer) => return answer.print_line(),
    };
    let mut input = std::io::stdin().lock();
    let mut worst = EXIT_OK;
    loop {
        let answer = match read_line(&mut input, MAX_REQUEST_SIZE) {
            Ok(Line::End) => break,
            Ok(Line::Call(source)) if source.trim().is_empty() => continue,
            Ok(Line::Call(source)) => caller.answer(&source),
            Ok(Line::TooLong(found)) => too_large(found),
            Err(e) => {
                let answer = bad_call(
                    "IO",
                    format!("cannot read a tool call from standard input: {e}"),
                );
                worst = worst.max(answer.print_line());
                break;
            }
        };
        worst = worst.max(answer.print_line());
    }
    worst
}

enum Line {
    Call(String),
    /// Longer than the bound: this many bytes were read (and skipped to its end).
    TooLong(u64),
    End,
}

/// The next line, without its end, holding no more than `max` bytes of it in memory.
fn read_line(input: &mut impl std::io::BufRead, max: u64) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut length: u64 = 0;
    let mut started = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        started = true;
        let (part, ended) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (&buffer[..i], Some(i + 1)),
            None => (buffer, None),
        };
        length += part.len() as u64;
        if length <= max {
            line.extend_from_slice(part);
        }
        let used = ended.unwrap_or(buffer.len());
        input.consume(used);
        if ended.is_some() {
            break;
        }
    }
    if !started {
        return Ok(Line::End);
    }
    if length > max {
        return Ok(Line::TooLong(length));
    }
    // Not UTF-8 cannot be JSON: said by the parser, as any other malformed call.
    Ok(Line::Call(String::from_utf8_lossy(&line).into_owned()))
}

/// What answers calls: the workspace and the tables to look tools up in.
struct Caller {
    ws: filekit_core::Workspace,
    tables: Option<Vec<String>>,
}

impl Caller {
    fn new(global: &GlobalArgs, tables: Option<&str>) -> Result<Caller, Answer> {
        // `all` (as serve takes it) is no restriction.
        let tables: Option<Vec<String>> = tables
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<String>>()
            })
            .filter(|list| !list.iter().any(|t| t == "all"));
        if let Some(unknown) = tables
            .iter()
            .flatten()
            .find(|t| !filekit_dialects::DIALECTS.contains(&t.as_str()))
        {
            return Err(bad_call(
                "INVALID_ARGUMENT",
                format!(
                    "--tools: unknown table '{unknown}' (tables: {})",
                    filekit_dialects::DIALECTS.join(", ")
                ),
            ));
        }
        let ws =
            crate::workspace(global).map_err(|e| bad_call(e.code.as_str(), e.full_message()))?;
        Ok(Caller { ws, tables })
    }

    fn answer(&self, source: &str) -> Answer {
        if source.len() as u64 > MAX_REQUEST_SIZE {
            return too_large(source.len() as u64);
        }
        let (name, tool_args) = match parse_call(source) {
            Ok(call) => call,
            Err((code, message)) => return bad_call(code, message),
        };
        let tables: Option<Vec<&str>> = self
            .tables
            .as_ref()
            .map(|t| t.iter().map(String::as_str).collect());
        let reply = filekit_dialects::call_in(&self.ws, tables.as_deref(), &name, tool_args);
        crate::history_warning(&self.ws);
        let (code, complaint) = if reply.rejected {
            (
                EXIT_BAD_REQUEST,
                Some(crate::terminal::lines(&reply.text).into_owned()),
            )
        } else if reply.is_error {
            (EXIT_FAILED, None)
        } else {
            (EXIT_OK, None)
        };
        Answer {
            reply: reply.value,
            code,
            complaint,
        }
    }
}

/// A call's reply, the exit code it gives, and what to say on standard error.
struct Answer {
    reply: Value,
    code: u8,
    complaint: Option<String>,
}

impl Answer {
    /// The reply alone on standard output (the one-call form); gives the exit code.
    fn print(&self, pretty: bool) -> u8 {
        print_json(&self.reply, pretty);
        self.report(false)
    }

    /// The reply in its `{"status", "reply"}` line (`--lines`); gives its exit code.
    fn print_line(&self) -> u8 {
        print_json(&json!({"status": self.code, "reply": self.reply}), false);
        self.report(false)
    }

    /// Says the complaint on standard error; with `print_reply`, prints the reply first.
    fn report(&self, print_reply: bool) -> u8 {
        if print_reply {
            print_json(&self.reply, false);
        }
        if let Some(complaint) = &self.complaint {
            eprintln!("filekit: {complaint}");
        }
        self.code
    }
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
fn too_large(found: u64) -> Answer {
    let err = FkError::too_large(
        Limit::RequestSize,
        found,
        MAX_REQUEST_SIZE,
        format!("the tool call is larger than the {MAX_REQUEST_SIZE} bytes filekit reads in one call"),
    )
    .with_hint("send the edits or files in several smaller calls; a large file's content is better written in parts");
    Answer {
        reply: json!({
            "success": false,
            "error": err.full_message(),
            "error_code": err.code.as_str(),
            "details": *err.details,
        }),
        code: EXIT_BAD_REQUEST,
        complaint: Some(format!("TOO_LARGE: {}", err.full_message())),
    }
}

fn bad_call(code: &str, message: String) -> Answer {
    Answer {
        reply: json!({"success": false, "error": message, "error_code": code}),
        code: EXIT_BAD_REQUEST,
        complaint: Some(format!("{code}: {message}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_up_to_the_bound_and_skipped_past_it() {
        // A reader that hands out three bytes at a time, so that lines span its buffers.
        let text = b"abc\n\ntoo long a line\nx".to_vec();
        let mut input = std::io::BufReader::with_capacity(3, &text[..]);
        let mut seen = Vec::new();
        loop {
            match read_line(&mut input, 5).unwrap() {
                Line::End => break,
                Line::Call(s) => seen.push(s),
                Line::TooLong(n) => seen.push(format!("too long: {n}")),
            }
        }
        assert_eq!(seen, ["abc", "", "too long: 15", "x"]);
    }

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
