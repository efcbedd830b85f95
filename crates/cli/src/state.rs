//! `filekit state`: where filekit keeps a workspace's state, what it holds, and how to remove
//! it or bring in the history of an older filekit.

use crate::{EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_OK, GlobalArgs};
use clap::{Args, Subcommand};
use filekit_core::FkError;
use filekit_core::history::History;
use serde_json::json;
use std::path::{Path, PathBuf};

pub const AFTER_HELP: &str = "\
filekit keeps what it must trust outside the workspace, in a private folder of yours (mode
700): the edit history, the versions reads served (for merging edits made on them), leases,
and the records of atomic requests in progress. A repository can ship anything in its tree,
so nothing in the tree is ever read as filekit's state. The folder is
$XDG_STATE_HOME/filekit (else ~/.local/state/filekit, or --state-dir DIR), one subfolder per
workspace, named after its first root.

The history and the versions hold copies of what was read and written, secrets (a .env)
included, until they are pruned (the history past 512 MiB, the versions past 256 MiB, oldest
first). `--no-versions` keeps versions in memory only; `--no-history` records nothing.

Examples:
  filekit state                        where this workspace's state is, and its size
  filekit state purge                  remove this workspace's history, versions and leases
  filekit state purge --entry 12       forget history entry 12 and the contents only it kept
  filekit state import .filekit/history.db
                                       take the history an older filekit kept in the tree";

#[derive(Args)]
pub struct StateArgs {
    #[command(subcommand)]
    action: Option<StateAction>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum StateAction {
    /// Show where this workspace's state is and what it holds (the default).
    Show,
    /// Remove this workspace's state (history, versions, leases), or one history entry.
    Purge {
        /// Forget only this history entry and the contents no other entry keeps.
        #[arg(long, value_name = "ENTRY")]
        entry: Option<i64>,
    },
    /// Make a history database (an older filekit's `.filekit/history.db`) this workspace's
    /// history. Refused when the workspace already has one.
    Import {
        /// The database to take.
        file: PathBuf,
    },
}

fn bytes_under(p: &Path) -> u64 {
    let Ok(m) = std::fs::symlink_metadata(p) else {
        return 0;
    };
    if !m.is_dir() {
        return m.len();
    }
    std::fs::read_dir(p)
        .map(|rd| rd.flatten().map(|e| bytes_under(&e.path())).sum())
        .unwrap_or(0)
}

fn fail(json: bool, e: &FkError) -> u8 {
    if json {
        println!("{}", json!({"success": false, "error": e}));
    }
    eprintln!("filekit: {}", crate::terminal::text(&e.to_string()));
    EXIT_FAILED
}

pub fn run(global: &GlobalArgs, json: bool, args: StateArgs) -> u8 {
    let json = json || args.json;
    let roots = if global.roots.is_empty() {
        match std::env::current_dir() {
            Ok(d) => vec![d],
            Err(e) => return crate::fail_early(&FkError::from_io(&e, "the current directory")),
        }
    } else {
        global.roots.clone()
    };
    // The state is looked at, not recovered or written: no workspace is opened for it.
    let first_root = match std::fs::canonicalize(&roots[0]) {
        Ok(p) => p,
        Err(e) => {
            return crate::fail_early(&FkError::from_io(
                &e,
                &format!("workspace root {}", roots[0].display()),
            ));
        }
    };
    // Only an import makes the folder: looking at it or purging it must not.
    let create = matches!(args.action, Some(StateAction::Import { .. }));
    let state = match crate::workspace_state(global, &first_root, create) {
        Ok(Some(s)) => s,
        Ok(None) => return crate::fail_early(&FkError::invalid("no state directory")),
        Err(e) => return crate::fail_early(&e),
    };
    match args.action.unwrap_or(StateAction::Show) {
        StateAction::Show => {
            let parts = [
                ("history", state.history_file()),
                ("versions", state.versions_dir()),
                ("leases", state.locks_dir()),
                ("journals", state.journal_dir()),
            ];
            let sizes: Vec<(&str, u64)> = parts
                .iter()
                .map(|(name, p)| {
                    let mut n = bytes_under(p);
                    if *name == "history" {
                        for suffix in ["-wal", "-shm"] {
                            n += bytes_under(Path::new(&format!("{}{suffix}", p.display())));
                        }
                    }
                    (*name, n)
                })
                .collect();
            if json {
                let mut v = json!({"workspace": first_root, "state_dir": state.path()});
                for (name, n) in &sizes {
                    v[format!("{name}_bytes")] = json!(n);
                }
                println!("{v}");
            } else {
                println!("workspace  {}", first_root.display());
                println!("state      {}", state.path().display());
                for (name, n) in &sizes {
                    println!("{name:<10} {n} bytes");
                }
            }
            EXIT_OK
        }
        StateAction::Purge { entry: Some(id) } => {
            let h = History::new(
                &state.history_file(),
                filekit_core::history::DEFAULT_CAP_BYTES,
            );
            match h.forget(id) {
                Ok(true) => {
                    if json {
                        println!("{}", json!({"success": true, "forgotten": id}));
                    } else {
                        println!("forgot history entry {id} and the contents only it kept");
                    }
                    EXIT_OK
                }
                Ok(false) => {
                    let e = FkError::new(
                        filekit_core::ErrorCode::NotFound,
                        format!("there is no history entry {id}"),
                    )
                    .with_hint("list the entries with `filekit history`");
                    if json {
                        println!("{}", json!({"success": false, "error": e}));
                    }
                    eprintln!("filekit: {}", crate::terminal::text(&e.to_string()));
                    EXIT_BAD_REQUEST
                }
                Err(e) => fail(json, &e),
            }
        }
        StateAction::Purge { entry: None } => match state.purge() {
            Ok(removed) => {
                if json {
                    println!("{}", json!({"success": true, "removed": removed}));
                } else if removed {
                    println!("removed {}", state.path().display());
                } else {
                    println!(
                        "nothing to remove: {} does not exist",
                        state.path().display()
                    );
                }
                EXIT_OK
            }
            Err(e) => fail(json, &e),
        },
        StateAction::Import { file } => {
            let into = global
                .history
                .clone()
                .unwrap_or_else(|| state.history_file());
            match History::import(&file, &into) {
                Ok(n) => {
                    if json {
                        println!(
                            "{}",
                            json!({"success": true, "entries": n, "history": into})
                        );
                    } else {
                        println!(
                            "imported {n} history entries from {} into {}",
                            file.display(),
                            into.display()
                        );
                    }
                    EXIT_OK
                }
                Err(e) => fail(json, &e),
            }
        }
    }
}
