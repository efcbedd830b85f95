//! `filekit lock`, `filekit unlock`: advisory leases, as the curated table's `lock` and
//! `unlock` tools take them.

use crate::GlobalArgs;
use clap::Args;
use filekit_core::Workspace;
use filekit_dialects::{ToolReply, verbs};

pub const AFTER_HELP: &str = "\
A lease makes every filekit client (other `filekit` processes, `filekit serve`) refuse writes
to the path by anyone but its holder, with LOCKED, until it is released or expires. The holder
is --holder NAME (or FILEKIT_HOLDER), else filekit-cli-<user>: the same user's later filekit
commands pass the lease and release it; give several agents of one user names of their own.
Leases are kept in the workspace's state directory (locks/). They are advisory: programs other
than filekit do not see them.

Examples:
  filekit --holder alice lock src/schema.sql --ttl 120
  FILEKIT_HOLDER=alice filekit edit plan.json
  filekit --holder alice unlock src/schema.sql";

#[derive(Args)]
pub struct LockArgs {
    /// The files to lease.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Seconds the lease lasts (default 300, at most 86400).
    #[arg(long, value_name = "SECONDS")]
    ttl: Option<u64>,
    /// Print the tool's JSON reply.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct UnlockArgs {
    /// The files to release.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Break another holder's live lease.
    #[arg(long)]
    force: bool,
    /// Print the tool's JSON reply.
    #[arg(long)]
    json: bool,
}

fn run_tool(global: &GlobalArgs, json: bool, run: impl FnOnce(&Workspace) -> ToolReply) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let reply = run(&ws);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reply.value).unwrap_or_default()
        );
    } else if reply.is_error {
        eprint!("{}", reply.text);
    } else {
        print!("{}", reply.text);
    }
    crate::reply_exit_code(&reply)
}

pub fn run_lock(global: &GlobalArgs, json: bool, args: LockArgs) -> u8 {
    run_tool(global, json || args.json, |ws| {
        verbs::lock(ws, args.paths, args.ttl)
    })
}

pub fn run_unlock(global: &GlobalArgs, json: bool, args: UnlockArgs) -> u8 {
    run_tool(global, json || args.json, |ws| {
        verbs::unlock(ws, args.paths, args.force)
    })
}
