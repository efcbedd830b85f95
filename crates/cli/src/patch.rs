//! `filekit patch FILE|-`: apply a patch (Codex's envelope, a unified diff, SEARCH/REPLACE
//! blocks) as the `apply_patch` tool does, so that the verb, `filekit call` and MCP give the
//! same result.

use crate::{EXIT_BAD_REQUEST, GlobalArgs};
use clap::Args;
use filekit_core::limits::MAX_REQUEST_SIZE;
use filekit_dialects::verbs::{self, PatchFormat};
use std::io::Read;

pub const AFTER_HELP: &str = "\
The patch is read from FILE, or from standard input with `-`. Its format is detected:
  Codex's envelope   *** Begin Patch / *** Update File: PATH / @@ / -old / +new / *** End Patch
  a unified diff     as git diff or diff -u write it (several files, /dev/null, renames)
  SEARCH/REPLACE     a path line, <<<<<<< SEARCH, old lines, =======, new lines, >>>>>>> REPLACE
                     (also Cline's ------- SEARCH / +++++++ REPLACE and Roo Code's :start_line:)
Each hunk is placed where its context and removed lines are: exactly, or allowing for white
space, indentation, tabs, typographic quotes, blank lines and wrong line numbers (each such
hunk is named in the output). A hunk found nowhere or in several places is refused with the
closest text or the candidate lines, and then nothing is written. All files are written
at once or none; `filekit undo` reverts the whole patch.

Examples:
  git diff > change.diff; filekit patch change.diff --dry-run
  filekit patch - < reply.txt

Exit codes: 0 applied; 1 the patch could not be applied (nothing written); 2 the patch could
not be read (malformed; the line and what was expected are printed).";

#[derive(Args)]
pub struct PatchArgs {
    /// The patch file, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    file: String,
    /// Its format, when it should not be detected: v4a, unified or search_replace.
    #[arg(long, value_name = "FORMAT", value_parser = PatchFormat::ALL.map(PatchFormat::name))]
    format: Option<String>,
    /// Show the diffs; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the tool's JSON reply.
    #[arg(long)]
    json: bool,
}

pub fn run(global: &GlobalArgs, json: bool, args: PatchArgs) -> u8 {
    let mut input = String::new();
    let read = if args.file == "-" {
        std::io::stdin()
            .take(MAX_REQUEST_SIZE + 1)
            .read_to_string(&mut input)
            .map(|_| ())
    } else {
        std::fs::File::open(&args.file).and_then(|f| {
            f.take(MAX_REQUEST_SIZE + 1)
                .read_to_string(&mut input)
                .map(|_| ())
        })
    };
    if let Err(e) = read {
        let from = if args.file == "-" {
            "standard input".to_string()
        } else {
            args.file.clone()
        };
        eprintln!("filekit: cannot read the patch from {from}: {e}");
        return EXIT_BAD_REQUEST;
    }
    if input.len() as u64 > MAX_REQUEST_SIZE {
        eprintln!(
            "filekit: the patch is larger than {MAX_REQUEST_SIZE} bytes; split it into several"
        );
        return EXIT_BAD_REQUEST;
    }
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    // clap has checked the word against the formats' names.
    let format = args.format.as_deref().and_then(PatchFormat::named);
    let reply = verbs::patch(&ws, &input, format, args.dry_run, "filekit patch");
    crate::history_warning(&ws);
    if json || args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reply.value).unwrap_or_default()
        );
    } else if reply.is_error {
        eprint!("{}", reply.text);
        if !reply.text.ends_with('\n') {
            eprintln!();
        }
    } else {
        print!("{}", reply.text);
    }
    crate::reply_exit_code(&reply)
}
