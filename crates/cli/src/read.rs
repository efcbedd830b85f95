//! `filekit read`: files with line numbers for people, the engine's `FileRead` list for
//! programs.

use crate::style::Style;
use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::Args;
use filekit_core::read::{FileRead, ReadContent, ReadOptions, read_files};
use filekit_dialects::verbs::{self, ReadFormat, SemanticRead};

pub const AFTER_HELP: &str = "\
Line numbers are 1-based and ranges inclusive; negative numbers count from the end (-1 is the
last line). Each file gets a header with its path, the lines shown, the total, and its
content_hash (give it to line edits so they are refused if the file changed).

Examples:
  filekit read src/main.rs
  filekit read src/main.rs Cargo.toml --lines 1:20
  filekit read --lines=-10: log.txt        (the last ten lines)
  filekit read src/lib.rs --start 40 --end 60 --json
  filekit read src/lib.rs --since 3f2a9c1e  (only what changed since that version)

Semantic targets (one file; the semantic table's file_read):
  filekit read src/user.ts --symbol UserService.findById
  filekit read src/user.ts --outline
  filekit read package.json --path '$.scripts'      (JSON, JSONL, YAML)
  filekit read index.html --selector 'nav > a.active'   (HTML, CSS)
  filekit read App.csproj --xpath '//PackageReference[@Include=\"Serilog\"]'
  filekit read README.md --heading Installation";

#[derive(Args)]
pub struct ReadArgs {
    /// The files to read (relative to the first root, or absolute inside a root).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// The lines to show, A:B (inclusive); A: runs to the end, :B starts at 1, A alone is one line.
    #[arg(long, value_name = "A:B", allow_hyphen_values = true, conflicts_with_all = ["start", "end"])]
    lines: Option<String>,
    /// First line to show.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    start: Option<i64>,
    /// Last line to show.
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    end: Option<i64>,
    /// Print the reads as JSON (the engine's FileRead list).
    #[arg(long)]
    json: bool,
    /// The content_hash of the version you already have: print only the diff from it to the
    /// file now (or "unchanged"); the whole file when filekit does not hold that version.
    #[arg(long, value_name = "HASH", conflicts_with_all = ["symbol", "path", "selector", "xpath", "heading", "outline"])]
    since: Option<String>,
    /// Code: the symbol to show ("Class", "Class.method"); repeat for several.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["lines", "start", "end"])]
    symbol: Vec<String>,
    /// JSON/JSONC/JSONL/YAML: an RFC 9535 JSONPath ("$.scripts").
    #[arg(long, value_name = "JSONPATH", conflicts_with_all = ["lines", "start", "end"])]
    path: Option<String>,
    /// HTML/CSS: a CSS selector.
    #[arg(long, value_name = "SELECTOR", conflicts_with_all = ["lines", "start", "end"])]
    selector: Option<String>,
    /// XML (SVG, XSD, XAML, .csproj, ...): an XPath 1.0 expression.
    #[arg(long, value_name = "XPATH", conflicts_with_all = ["lines", "start", "end"])]
    xpath: Option<String>,
    /// Markdown: a heading's text, with or without its #s.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["lines", "start", "end"])]
    heading: Option<String>,
    /// The file's outline: every symbol (or key, or heading) with its kind and lines.
    #[arg(long, conflicts_with_all = ["lines", "start", "end"])]
    outline: bool,
    /// With a target: full (default), signature or body.
    #[arg(long, value_name = "FORMAT", value_parser = ["full", "signature", "body", "summary"])]
    format: Option<String>,
    /// The files' encoding, when it is not the one detected (shift_jis, windows-1252,
    /// utf-16le, gb18030, euc-kr, ...). Default: each file's own, named in its header.
    #[arg(long, value_name = "LABEL", value_parser = crate::encoding_arg)]
    encoding: Option<&'static filekit_core::encoding::Encoding>,
}

impl ReadArgs {
    /// The semantic read, when a target or the outline was asked.
    fn semantic(&self) -> Option<SemanticRead> {
        let asked = !self.symbol.is_empty()
            || self.path.is_some()
            || self.selector.is_some()
            || self.xpath.is_some()
            || self.heading.is_some()
            || self.outline;
        if !asked {
            return None;
        }
        let format = if self.outline {
            Some(ReadFormat::Summary)
        } else {
            // clap has checked the word against the formats' names.
            self.format.as_deref().and_then(ReadFormat::named)
        };
        Some(SemanticRead {
            file: self.paths[0].clone(),
            symbols: self.symbol.clone(),
            path: self.path.clone(),
            selector: self.selector.clone(),
            xpath: self.xpath.clone(),
            heading: self.heading.clone(),
            format,
            encoding: self.encoding,
        })
    }
}

/// A semantic read, printed as its text (or its JSON reply).
fn run_semantic(global: &GlobalArgs, json: bool, read: SemanticRead) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let reply = verbs::read(&ws, read);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reply.value).unwrap_or_default()
        );
    } else if reply.is_error {
        eprintln!("filekit: {}", crate::terminal::lines(&reply.text));
    } else {
        print!("{}", reply.text);
    }
    crate::reply_exit_code(&reply)
}

pub fn run(global: &GlobalArgs, json: bool, args: ReadArgs) -> u8 {
    if let Some(semantic) = args.semantic() {
        if args.paths.len() != 1 {
            eprintln!(
                "filekit: --symbol, --path, --selector, --xpath, --heading and --outline read one file"
            );
            return EXIT_BAD_REQUEST;
        }
        return run_semantic(global, json || args.json, semantic);
    }
    let (start_line, end_line) = match &args.lines {
        Some(spec) => match parse_lines(spec) {
            Ok(range) => range,
            Err(msg) => {
                eprintln!("filekit: --lines {spec}: {msg}");
                return EXIT_BAD_REQUEST;
            }
        },
        None => (args.start, args.end),
    };
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let opts = ReadOptions {
        since_hash: args.since.clone(),
        start_line,
        end_line,
        images: false,
        max_lines: None,
        encoding: args.encoding,
    };
    let reads = read_files(&ws, &args.paths, &opts);
    let failed = reads.iter().any(|r| !r.is_ok());
    let bad_request = reads.iter().any(|r| {
        r.error()
            .is_some_and(|e| e.code == filekit_core::ErrorCode::InvalidArgument)
    });
    if json || args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reads).unwrap_or_default()
        );
    } else {
        let style = Style::new(global.color);
        for (i, r) in reads.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print_read(&style, r);
        }
    }
    if bad_request && args.since.is_some() {
        EXIT_BAD_REQUEST
    } else if failed {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

fn print_read(style: &Style, r: &FileRead) {
    match &r.result {
        Ok(ReadContent::Text(t)) => {
            let range = match t.total_lines {
                Some(0) => "empty".to_string(),
                Some(n) => format!("lines {}-{} of {n}", t.start_line, t.end_line),
                None if t.from_end => format!(
                    "lines {}..{} (from the end) of a {}-byte file",
                    t.first_number(),
                    t.last_number(),
                    t.size
                ),
                None => format!(
                    "lines {}-{} of a {}-byte file",
                    t.start_line, t.end_line, t.size
                ),
            };
            let version = match (&t.content_hash, &t.unversioned, &t.range_hash) {
                (Some(h), _, _) => format!("content_hash {h}"),
                (None, Some(l), Some(r)) => format!(
                    "range_hash {r} (over the {} bytes filekit holds whole: streamed; edit these lines with this hash)",
                    l.max
                ),
                (None, Some(l), None) => format!(
                    "no content_hash (over the {} bytes filekit holds whole: streamed; read a line range for a hash to edit it with)",
                    l.max
                ),
                (None, None, _) => "no content_hash".to_string(),
            };
            let version = match t.encoding {
                Some(enc) => format!("{version}, {enc}"),
                None => version,
            };
            println!(
                "{} {}",
                style.bold(&format!("==> {} <==", r.path)),
                style.dim(&format!("{range}, {version}, modified {}", t.last_modified))
            );
            if t.unchanged {
                println!("{}", style.dim("unchanged since the version given"));
                return;
            }
            if let Some(diff) = &t.diff {
                println!(
                    "{}",
                    style.dim("changed since the version given; the diff:")
                );
                print!("{diff}");
                return;
            }
            if t.since_unknown {
                println!(
                    "{}",
                    style.dim("the version given is not one filekit kept; the whole file:")
                );
            }
            print!("{}", t.numbered());
            if t.truncated {
                let on = match t.next_line {
                    Some(n) => format!("... (truncated: read on with --lines={n}:)"),
                    None => "... (truncated)".to_string(),
                };
                println!("{}", style.dim(&on));
            }
        }
        Ok(ReadContent::Image(i)) => println!(
            "{} {}",
            style.bold(&format!("==> {} <==", r.path)),
            style.dim(&format!(
                "image {}, {} bytes, content_hash {} (not shown)",
                i.mime, i.size, i.content_hash
            ))
        ),
        Ok(ReadContent::Binary(b)) => println!(
            "{} {}",
            style.bold(&format!("==> {} <==", r.path)),
            style.dim(&format!(
                "binary: {} (content_hash {})",
                b.description,
                b.content_hash
                    .as_deref()
                    .unwrap_or("none: too large to be read whole")
            ))
        ),
        Err(e) => {
            println!(
                "{} {}",
                style.bold(&format!("==> {} <==", r.path)),
                style.red("error")
            );
            eprintln!("filekit: {}: {e}", r.path);
        }
    }
}

/// `A:B`, `A:`, `:B` or `A` -> (start, end).
fn parse_lines(spec: &str) -> Result<(Option<i64>, Option<i64>), String> {
    let num = |s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            Ok(None)
        } else {
            s.parse::<i64>()
                .map(Some)
                .map_err(|_| format!("'{s}' is not a line number"))
        }
    };
    match spec.split_once(':') {
        Some((a, b)) => Ok((num(a)?, num(b)?)),
        None => {
            let n = num(spec)?.ok_or("give a range such as 10:20")?;
            Ok((Some(n), Some(n)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_specs() {
        assert_eq!(parse_lines("3:7"), Ok((Some(3), Some(7))));
        assert_eq!(parse_lines("-10:"), Ok((Some(-10), None)));
        assert_eq!(parse_lines(":4"), Ok((None, Some(4))));
        assert_eq!(parse_lines("5"), Ok((Some(5), Some(5))));
        assert!(parse_lines("a:b").is_err());
    }
}
