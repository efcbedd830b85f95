//! `filekit call`'s command line, read without building the command tree.
//!
//! An agent starts filekit once per tool call, and clap's parser (the whole tree of twenty
//! verbs, or even the global options and `call` alone) was a fifth of such a process's time.
//! The call's line is short and regular: global options, `call`, its few options and the call
//! itself. This reads exactly that, in the forms clap takes (`--name value`, `--name=value`),
//! with the same value parsers, and gives up on anything else (another verb, a help, a short
//! flag, an option given twice, options that conflict, a value that does not parse, a value
//! that starts with `-`): that line goes to clap, which parses it or says what is wrong.
//! What it reads, clap reads the same way: a test compares the two on many lines.

use crate::call::CallArgs;
use crate::{Cli, ColorChoice, GlobalArgs, Verb};
use std::ffi::OsString;

/// The command line (`args` without the program name) as clap would read it, when it is a
/// `call` line in the forms above; `None` for clap to read.
pub(crate) fn parse(args: &[OsString]) -> Option<Cli> {
    let mut line = CallLine::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        let Some(option) = arg.strip_prefix("--") else {
            if arg.starts_with('-') {
                return None;
            }
            match line.after_call {
                false if arg == "call" => line.after_call = true,
                true if line.call_given.is_none() => line.call_given = Some(arg.to_string()),
                _ => return None,
            }
            continue;
        };
        let (name, inline) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        if name.is_empty() {
            return None;
        }
        if let Some(flag) = line.flag(name) {
            if inline.is_some() || *flag {
                return None;
            }
            *flag = true;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => args.next()?.to_str()?,
        };
        if value.is_empty() || value.starts_with('-') {
            return None;
        }
        line.value(name, value)?;
    }
    line.into_cli()
}

/// What [`parse`] has read so far.
#[derive(Default)]
struct CallLine {
    after_call: bool,
    roots: Vec<std::path::PathBuf>,
    /// The roots so far were given before `call`.
    roots_before_call: bool,
    read_only: bool,
    allow_git_writes: bool,
    allow_protected_writes: bool,
    allow_secret_reads: bool,
    max_reply_bytes: Option<u64>,
    trust_workspace: bool,
    color: Option<ColorChoice>,
    no_history: bool,
    history: Option<std::path::PathBuf>,
    no_versions: bool,
    state_dir: Option<std::path::PathBuf>,
    holder: Option<String>,
    max_file_size: Option<u64>,
    /// `--json` before `call`: the top-level flag.
    json: bool,
    /// `--json CALL` after `call`.
    call: Option<String>,
    call_given: Option<String>,
    tables: Option<String>,
    pretty: bool,
    lines: bool,
}

impl CallLine {
    /// The flag (an option without a value) called `name` where the line is.
    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "read-only" => &mut self.read_only,
            "allow-git-writes" => &mut self.allow_git_writes,
            "allow-protected-writes" => &mut self.allow_protected_writes,
            "allow-secret-reads" => &mut self.allow_secret_reads,
            "trust-workspace" => &mut self.trust_workspace,
            "no-history" => &mut self.no_history,
            "no-versions" => &mut self.no_versions,
            "json" if !self.after_call => &mut self.json,
            "pretty" if self.after_call => &mut self.pretty,
            "lines" if self.after_call => &mut self.lines,
            _ => return None,
        })
    }

    /// Takes the option `name`'s `value`; `None` when the option is not one of the line's, is
    /// given twice, or its value does not parse.
    fn value(&mut self, name: &str, value: &str) -> Option<()> {
        fn once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
            if slot.is_some() {
                return None;
            }
            *slot = Some(value?);
            Some(())
        }
        match name {
            "root" => {
                // clap keeps the roots given after `call` alone when some came before it.
                if self.roots_before_call && self.after_call {
                    return None;
                }
                self.roots_before_call = !self.after_call;
                self.roots.push(crate::home_path(value).ok()?);
            }
            "history" => once(&mut self.history, crate::home_path(value).ok())?,
            "state-dir" => once(&mut self.state_dir, crate::home_path(value).ok())?,
            "holder" => once(&mut self.holder, Some(value.to_string()))?,
            "max-file-size" => once(
                &mut self.max_file_size,
                crate::parse_max_file_size(value).ok(),
            )?,
            "max-reply-bytes" => once(
                &mut self.max_reply_bytes,
                crate::parse_max_reply_bytes(value).ok(),
            )?,
            "color" => once(
                &mut self.color,
                match value {
                    "auto" => Some(ColorChoice::Auto),
                    "always" => Some(ColorChoice::Always),
                    "never" => Some(ColorChoice::Never),
                    _ => None,
                },
            )?,
            "json" if self.after_call => once(&mut self.call, Some(value.to_string()))?,
            "tools" if self.after_call => once(&mut self.tables, Some(value.to_string()))?,
            _ => return None,
        }
        Some(())
    }

    /// The command line, when it was a whole call line whose options do not conflict.
    fn into_cli(self) -> Option<Cli> {
        let conflict = (self.call.is_some() && self.call_given.is_some())
            || (self.pretty && self.lines)
            || (self.lines && (self.call.is_some() || self.call_given.is_some()));
        if !self.after_call || conflict {
            return None;
        }
        Some(Cli {
            global: GlobalArgs {
                roots: self.roots,
                read_only: self.read_only,
                allow_git_writes: self.allow_git_writes,
                allow_protected_writes: self.allow_protected_writes,
                allow_secret_reads: self.allow_secret_reads,
                max_reply_bytes: self.max_reply_bytes,
                trust_workspace: self.trust_workspace,
                color: self.color.unwrap_or(ColorChoice::Auto),
                no_history: self.no_history,
                history: self.history,
                no_versions: self.no_versions,
                state_dir: self.state_dir,
                holder: self.holder,
                max_file_size: self.max_file_size,
            },
            json: self.json,
            verb: Verb::Call(CallArgs {
                call: self.call,
                call_given: self.call_given,
                tables: self.tables,
                pretty: self.pretty,
                lines: self.lines,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn by_hand(line: &[&str]) -> Option<Cli> {
        let args: Vec<OsString> = line.iter().map(OsString::from).collect();
        parse(&args)
    }

    fn by_clap(line: &[&str]) -> Option<Cli> {
        Cli::try_parse_from(std::iter::once("filekit").chain(line.iter().copied())).ok()
    }

    /// The two readings of a line agree: what is read by hand, clap reads the same way.
    fn agree(line: &[&str]) -> bool {
        let Some(hand) = by_hand(line) else {
            return false;
        };
        let clap = by_clap(line).unwrap_or_else(|| panic!("clap refuses {line:?}"));
        assert_eq!(hand.global, clap.global, "{line:?}");
        assert_eq!(hand.json, clap.json, "{line:?}");
        let (Verb::Call(h), Verb::Call(c)) = (hand.verb, clap.verb) else {
            panic!("not a call: {line:?}")
        };
        assert_eq!(h, c, "{line:?}");
        true
    }

    #[test]
    fn the_call_lines_agents_run_are_read_by_hand_as_clap_reads_them() {
        for line in [
            &["call"][..],
            &["--root", "/tmp", "call"],
            &[
                "--root=/tmp",
                "--root",
                "~/src",
                "call",
                "--tools",
                "claude",
            ],
            &[
                "call",
                "--root",
                "/tmp",
                "--pretty",
                "{\"tool_name\": \"Read\"}",
            ],
            &["--json", "call", "--json", "{}", "--no-history"],
            &[
                "--read-only",
                "--state-dir",
                "/s",
                "call",
                "--lines",
                "--holder=me",
            ],
            &[
                "--max-file-size",
                "64K",
                "--max-reply-bytes=2M",
                "call",
                "--color",
                "never",
            ],
            &[
                "--allow-git-writes",
                "--allow-protected-writes",
                "--allow-secret-reads",
                "call",
            ],
            &[
                "--trust-workspace",
                "--no-versions",
                "--history",
                "/h.db",
                "call",
                "x",
            ],
        ] {
            assert!(agree(line), "not read by hand: {line:?}");
        }
    }

    #[test]
    fn other_lines_go_to_clap() {
        for line in [
            &["read", "call"][..],
            &["--root", "call", "read", "x"],
            &["call", "--help"],
            &["-h", "call"],
            &["call", "-V"],
            &["--read-only", "--read-only", "call"],
            &["--read-only=true", "call"],
            &["call", "--json", "{}", "{}"],
            &["call", "--lines", "--pretty"],
            &["call", "--lines", "{}"],
            &["--max-file-size", "1", "call"],
            &["--color", "blue", "call"],
            &["--root", "--read-only", "call"],
            &["--holder", "a", "--holder", "b", "call"],
            &["call", "--", "{}"],
            &["call", "a", "b"],
            &["--pretty", "call"],
            &["--tools", "claude", "call"],
            &["call", "--unknown"],
            &["--root", "/a", "call", "--root", "/b"],
            &[],
        ] {
            assert!(by_hand(line).is_none(), "read by hand: {line:?}");
        }
    }

    /// Lines made of the call line's words in random orders (a fixed seed): wherever the
    /// reading by hand takes one, clap reads it the same way.
    #[test]
    fn random_lines_are_read_by_hand_only_as_clap_reads_them() {
        const WORDS: &[&str] = &[
            "call",
            "call",
            "--root",
            "/tmp",
            "--root=/r",
            "~/x",
            "--read-only",
            "--json",
            "{}",
            "--pretty",
            "--lines",
            "--tools",
            "claude,filekit",
            "--tools=all",
            "--no-history",
            "--no-versions",
            "--holder",
            "h",
            "--state-dir=/s",
            "--history",
            "/h",
            "--max-file-size=2K",
            "--max-reply-bytes",
            "1M",
            "--color=always",
            "--trust-workspace",
            "-x",
            "--",
            "read",
            "--json={}",
            "--allow-git-writes",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        let mut read = 0;
        for _ in 0..20_000 {
            let len = 1 + next(7);
            let line: Vec<&str> = (0..len).map(|_| WORDS[next(WORDS.len())]).collect();
            if agree(&line) {
                read += 1;
            }
        }
        // The words make enough call lines that the comparison means something.
        assert!(read > 500, "only {read} lines were read by hand");
    }
}
