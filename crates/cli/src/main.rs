//! `filekit`: batched, safe file reads and edits from the command line.
//!
//! The verbs are thin: `call` runs one tool of any dialect (the same table the MCP server
//! serves), `read` and `edit` put the engine's reads and edit requests in front of people and
//! scripts. Exit codes are the same on every verb: 0 success, 1 the operation ran and something
//! in it failed, 2 the request itself was bad (nothing was attempted).

mod call;
mod call_line;
mod edit;
mod fileops;
mod history;
mod lease;
mod patch;
mod read;
mod refactor_verbs;
mod replace;
mod review;
mod search;
mod serve;
mod setup;
mod signals;
mod state;
mod style;
mod terminal;
mod tooldocs;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use filekit_core::history::History;
use filekit_core::state::StateDir;
use filekit_core::versions::Versions;
use filekit_core::{FkError, Workspace, transaction};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The operation ran and everything in it succeeded.
pub const EXIT_OK: u8 = 0;
/// The operation ran and reported a failure (a file, an edit).
pub const EXIT_FAILED: u8 = 1;
/// The request itself was bad: malformed JSON, unknown tool, bad arguments, bad plan.
pub const EXIT_BAD_REQUEST: u8 = 2;

/// The exit code of a verb that is one tool call.
pub fn reply_exit_code(reply: &filekit_dialects::ToolReply) -> u8 {
    if reply.rejected {
        EXIT_BAD_REQUEST
    } else if reply.is_error {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

const ABOUT: &str = "Batched, safe file reads and edits for AI coding agents, people and scripts.";

const LONG_ABOUT: &str = "\
filekit reads many files at once with versions (content_hash, last_modified) and makes many \
edits to many files in one request without line numbers drifting: line edits all refer to the \
file as it was read, text replacements apply in order, every write is atomic per file, and \
failures say what to fix (the closest near miss of a search text, the lines of an ambiguous \
match, the current lines of a stale range). Paths are confined to the workspace roots, and every \
change is recorded in an edit history (in filekit's state directory, outside the workspace: see \
`filekit state`) so that `filekit undo` can put it back.";

const AFTER_HELP: &str = "\
Verbs:
  call    Run one tool call of any dialect (filekit read_files/edit_files/replace_in_files,
          amazonq fs_read/fs_write, file:*, claude Read/Write/Edit/MultiEdit/LS/Glob/Grep,
          desktop-commander edit_block/batch_edit_blocks/write_from_line) and print its JSON
          reply.
            echo '{\"tool_name\": \"file:read_file\", \"tool_args\": {\"path\": \"src/app.js\"}}' | filekit call
            filekit call --json '{\"tool_name\": \"Edit\", \"tool_args\": {\"file_path\": \"a.txt\", \"old_string\": \"x\", \"new_string\": \"y\"}}'
  read    Print files with line numbers and their content_hash.
            filekit read src/main.rs --lines 10:40
  edit    Apply an edit plan (JSON) and show colored diffs; see `filekit edit --help`.
            filekit edit plan.json --dry-run
  replace Replace across a tree with a sed expression, like sed -i but with diffs first.
            filekit replace 's/const /let /g' src --glob '*.js' --dry-run
  patch   Apply a patch (Codex's envelope, a unified diff, SEARCH/REPLACE blocks), tolerant
          of drift, refusing what it cannot place with certainty.
            git diff > change.diff; filekit patch change.diff --dry-run
  grep    Search contents with a Rust regex; glob: find files newest first; ls: list.
            filekit grep 'fn \\w+' src -t rust -C 2
            filekit glob '**/*.rs' --json
            filekit ls src --tree --depth 2
  mv, cp, rm
          Move, copy and delete files and directories inside the roots.
            filekit mv src/old.ts src/lib/new.ts
  rename-symbol, refactor
          Rename a symbol across files; extract, inline, convert, organize imports (with
          typescript-language-server on PATH and --trust-workspace, or syntactically for
          renames and imports).
            filekit rename-symbol src/user.ts UserService AuthService --dry-run
            filekit refactor extract_function src/calc.ts --range 4:2-6:30 --name total
  history, undo, redo
          Every change is recorded in the edit history; undo reverts one (or the last N).
            filekit history --path src/app.ts
            filekit undo            (the newest change)     filekit undo 12 --dry-run
  state   Where filekit keeps a workspace's history, versions and leases (outside it, in a
          private folder of yours), and how to purge them.
            filekit state           filekit state purge --entry 12
  tools   List the tools `call` accepts, with their argument schemas under --json.
            filekit tools --dialect claude
  serve   Serve the tools over MCP (stdio) to an agent; see `filekit serve --help`.
            claude mcp add filekit -- filekit serve --root /path/to/project
  setup   Print or write the configuration of an MCP client (claude-code, claude-desktop,
          vscode, cursor, codex) that starts this filekit; see `filekit setup --help`.
            filekit setup claude-desktop --root ~/src/app --write

Exit codes: 0 success; 1 the operation ran and something failed (a file, an edit); 2 the
request was bad (malformed JSON, unknown tool, bad arguments or plan): nothing was attempted.";

#[derive(Parser)]
#[command(name = "filekit", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    /// Print machine-readable JSON instead of text (every verb).
    #[arg(long)]
    json: bool,
    #[command(subcommand)]
    verb: Verb,
}

#[derive(Args, Clone, Debug, PartialEq)]
pub struct GlobalArgs {
    /// A directory filekit may read and write in (repeatable; default: the current directory).
    /// Relative paths resolve against the first root; nothing outside the roots is touched.
    #[arg(long = "root", value_name = "DIR", global = true, value_parser = home_path)]
    roots: Vec<PathBuf>,
    /// Refuse every write (dry runs still work).
    #[arg(long, global = true)]
    read_only: bool,
    /// Allow writes inside `.git/` directories (refused by default: git's objects, refs,
    /// hooks and config are not the project's files).
    #[arg(long, global = true)]
    allow_git_writes: bool,
    /// Allow tools to write the files whose content makes programs run later, refused by
    /// default: MCP and agent clients' configurations (.mcp.json, .vscode/mcp.json,
    /// .cursor/mcp.json, .claude/settings*.json, ~/.claude.json, ~/.codex/config.toml, ...),
    /// .vscode/tasks.json, .envrc, shell start-up files, ~/.ssh/ (SECURITY.md lists them).
    /// filekit's own state stays out of reach either way.
    #[arg(long, global = true)]
    allow_protected_writes: bool,
    /// Allow tools to read credentials under the home folder (~/.ssh/ but its public keys,
    /// ~/.aws/, ~/.netrc, ~/.git-credentials, ...), refused by default when a root holds them.
    #[arg(long, global = true)]
    allow_secret_reads: bool,
    /// The most one reply carries (bytes, or with K, M or G; default 4M): the files a read
    /// of many returns, a listing's entries, a search's matches, a dry run's diffs. Past it a
    /// reply is cut and says where to go on.
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_max_reply_bytes)]
    max_reply_bytes: Option<u64>,
    /// Trust the workspace's code: allow the language servers of the semantic refactors
    /// (typescript-language-server, pyright-langserver, rust-analyzer) to be started. A
    /// language server runs the workspace's code (its configuration, toolchain, compiler,
    /// plugins, build scripts), so without this option filekit starts no program at all, and
    /// every refactor kind still runs, on the syntax trees (precision "syntactic"); with it, a
    /// server does the kinds it offers. Even with it, no program inside the roots or found
    /// through a relative PATH entry is started, and the server's toolchain and TypeScript are
    /// the ones installed outside the workspace.
    #[arg(long, global = true)]
    trust_workspace: bool,
    /// When to color the output: auto (when stdout is a terminal or CLICOLOR_FORCE is set,
    /// and NO_COLOR is not set), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    color: ColorChoice,
    /// Do not record writes in the edit history (they cannot be undone then).
    #[arg(long, global = true)]
    no_history: bool,
    /// The edit history database (default: history.db in the workspace's state directory).
    #[arg(long = "history", value_name = "FILE", global = true, value_parser = home_path)]
    history: Option<PathBuf>,
    /// Keep versions in memory only, not in the state directory (edits made on an older
    /// version can then be merged only within this process).
    #[arg(long, global = true)]
    no_versions: bool,
    /// Where filekit keeps its state: history, versions, leases, journals, one folder per
    /// workspace, and the bearer token of `serve --http` (default: $XDG_STATE_HOME/filekit,
    /// else ~/.local/state/filekit). Never inside a workspace: see `filekit state --help`.
    #[arg(long, value_name = "DIR", global = true, value_parser = home_path)]
    state_dir: Option<PathBuf>,
    /// Your name as a lease holder (see `filekit lock`): your writes pass your own leases.
    /// Default: the FILEKIT_HOLDER environment variable, else `filekit-cli-<user>` (for
    /// `serve`: `filekit-serve-<pid>`).
    #[arg(long, value_name = "NAME", global = true)]
    holder: Option<String>,
    /// The largest file filekit holds whole (bytes, or with K, M or G; default 32M). Larger
    /// files are streamed: read by line ranges (from either end), edited by lines, text and
    /// patterns, and replaced across a tree in bounded memory, without merges of older
    /// versions or near-miss suggestions.
    #[arg(long, value_name = "SIZE", global = true, value_parser = parse_max_file_size)]
    max_file_size: Option<u64>,
}

/// `--max-file-size`: a size, at least [`filekit_core::limits::MIN_MAX_FILE_SIZE`].
fn parse_max_file_size(given: &str) -> Result<u64, String> {
    use filekit_core::limits::{MIN_MAX_FILE_SIZE, parse_size};
    let size = parse_size(given)?;
    if size < MIN_MAX_FILE_SIZE {
        return Err(format!(
            "{size} bytes is less than the smallest bound, {MIN_MAX_FILE_SIZE} bytes (1K)"
        ));
    }
    Ok(size)
}

/// `--max-reply-bytes`: a size, at least the 1K of a reply that still says where to go on.
fn parse_max_reply_bytes(given: &str) -> Result<u64, String> {
    let size = filekit_core::limits::parse_size(given)?;
    if size < 1024 {
        return Err(format!(
            "{size} bytes is less than the smallest bound, 1024 bytes (1K)"
        ));
    }
    Ok(size)
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Verb {
    /// Run one tool call (JSON from stdin or --json) and print the tool's JSON reply.
    #[command(after_help = call::AFTER_HELP)]
    Call(call::CallArgs),
    /// Print files with line numbers, a header per file (path, lines, content_hash).
    #[command(after_help = read::AFTER_HELP)]
    Read(read::ReadArgs),
    /// Apply an edit plan (JSON): colored diffs and a summary per edit.
    #[command(after_help = filekit_dialects::edit_plan::AFTER_HELP)]
    Edit(edit::EditArgs),
    /// Replace across a tree with a sed expression: diffs, dry run, atomic, interactive review.
    #[command(after_help = replace::AFTER_HELP)]
    Replace(replace::ReplaceArgs),
    /// Apply a patch: Codex's envelope, a unified diff or SEARCH/REPLACE blocks (undoable).
    #[command(after_help = patch::AFTER_HELP)]
    Patch(patch::PatchArgs),
    /// Search file contents with a Rust regex (ripgrep's rules).
    #[command(after_help = search::GREP_AFTER_HELP)]
    Grep(search::GrepArgs),
    /// Find files by glob, newest first.
    #[command(after_help = search::GLOB_AFTER_HELP)]
    Glob(search::GlobArgs),
    /// List a directory: flat, recursive or as a tree.
    #[command(after_help = search::LS_AFTER_HELP)]
    Ls(search::LsArgs),
    /// Move or rename a file or directory (undoable).
    #[command(after_help = fileops::AFTER_HELP)]
    Mv(fileops::MoveArgs),
    /// Copy a file or directory (undoable).
    #[command(after_help = fileops::AFTER_HELP)]
    Cp(fileops::MoveArgs),
    /// Delete files or directories (undoable).
    #[command(after_help = fileops::AFTER_HELP)]
    Rm(fileops::RemoveArgs),
    /// Rename a symbol and its references (across the files that import it).
    #[command(name = "rename-symbol", after_help = refactor_verbs::RENAME_AFTER_HELP)]
    RenameSymbol(refactor_verbs::RenameArgs),
    /// Run a refactor (extract, inline, convert, imports) on a file's range.
    #[command(after_help = refactor_verbs::refactor_after_help())]
    Refactor(refactor_verbs::RefactorArgs),
    /// List the edit history, or show one entry's diff.
    #[command(after_help = history::HISTORY_AFTER_HELP)]
    History(history::HistoryArgs),
    /// Undo a change filekit made (the newest, an entry, or the last N).
    #[command(after_help = history::HISTORY_AFTER_HELP)]
    Undo(history::UndoArgs),
    /// Redo what an undo reverted.
    #[command(after_help = history::HISTORY_AFTER_HELP)]
    Redo(history::RedoArgs),
    /// Lease files: other filekit clients' writes to them are refused until unlock or expiry.
    #[command(after_help = lease::AFTER_HELP)]
    Lock(lease::LockArgs),
    /// Release leases taken with lock.
    #[command(after_help = lease::AFTER_HELP)]
    Unlock(lease::UnlockArgs),
    /// Show or purge filekit's state of this workspace (history, versions, leases), kept
    /// outside the workspace.
    #[command(after_help = state::AFTER_HELP)]
    State(state::StateArgs),
    /// List the tools that `filekit call` accepts.
    Tools(ToolsArgs),
    /// Serve the tool tables over MCP (stdio) for Claude Code, Cursor, VS Code and others.
    // Its after-help, every table's tools, is added by `parse_command_line`.
    Serve(serve::ServeArgs),
    /// Print (or --write) the configuration that makes an MCP client start this filekit:
    /// claude-code, claude-desktop, vscode, cursor, codex.
    #[command(after_help = setup::AFTER_HELP)]
    Setup(setup::SetupArgs),
}

#[derive(Args)]
struct ToolsArgs {
    /// Only the tools of this dialect.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(filekit_dialects::DIALECTS))]
    dialect: Option<String>,
    /// Print the tool specs (names, descriptions, input and output schemas) as JSON.
    #[arg(long)]
    json: bool,
    /// Print the documentation page of the --dialect's table in Markdown (docs/tools/).
    #[arg(long, requires = "dialect", conflicts_with = "json")]
    markdown: bool,
}

/// The command line, as `Cli::parse` reads it, but for `serve`'s help: it lists every table's
/// tools, and listing them builds every tool of every table (their schemas, descriptions),
/// which cost each start a few milliseconds. It is written only when a help is asked for.
fn parse_command_line() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let help = args
        .iter()
        .any(|a| a == "-h" || a == "--help" || a == "help");
    if !help && let Some(cli) = call_line::parse(&args) {
        return cli;
    }
    // What clap prints for it, without building the tree to print it.
    if args.len() == 1 && (args[0] == "--version" || args[0] == "-V") {
        use std::io::Write;
        let _ = std::io::stdout().write_all(version_line().as_bytes());
        std::process::exit(0);
    }
    let mut command = Cli::command();
    if help {
        command = command.mut_subcommand("serve", |s| s.after_help(serve::after_help()));
    }
    let mut matches = command.get_matches();
    Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut Cli::command()).exit())
}

/// `filekit --version`'s line.
fn version_line() -> String {
    format!("filekit {}\n", env!("CARGO_PKG_VERSION"))
}

fn main() -> ExitCode {
    let cli = parse_command_line();
    signals::raise_open_file_limit();
    one_arena_for_the_c_allocator();
    if matches!(cli.verb, Verb::Serve(_)) {
        signals::install(signals::Ending::OnceWritesStop);
    } else {
        signals::install(signals::Ending::AfterTheVerb);
        keep_freed_memory();
        use_small_pages();
        end_quietly_on_a_closed_pipe();
    }
    let code = match cli.verb {
        Verb::Call(args) => call::run(&cli.global, args),
        Verb::Read(args) => read::run(&cli.global, cli.json, args),
        Verb::Edit(args) => edit::run(&cli.global, cli.json, args),
        Verb::Replace(args) => replace::run(&cli.global, cli.json, args),
        Verb::Patch(args) => patch::run(&cli.global, cli.json, args),
        Verb::Grep(args) => search::run_grep(&cli.global, cli.json, args),
        Verb::Glob(args) => search::run_glob(&cli.global, cli.json, args),
        Verb::Ls(args) => search::run_ls(&cli.global, cli.json, args),
        Verb::Mv(args) => fileops::run_move(&cli.global, cli.json, args, false),
        Verb::Cp(args) => fileops::run_move(&cli.global, cli.json, args, true),
        Verb::Rm(args) => fileops::run_remove(&cli.global, cli.json, args),
        Verb::RenameSymbol(args) => refactor_verbs::run_rename(&cli.global, cli.json, args),
        Verb::Refactor(args) => refactor_verbs::run_refactor(&cli.global, cli.json, args),
        Verb::History(args) => history::run_history(&cli.global, cli.json, args),
        Verb::Undo(args) => history::run_undo(&cli.global, cli.json, args),
        Verb::Redo(args) => history::run_redo(&cli.global, cli.json, args),
        Verb::Lock(args) => lease::run_lock(&cli.global, cli.json, args),
        Verb::Unlock(args) => lease::run_unlock(&cli.global, cli.json, args),
        Verb::State(args) => state::run(&cli.global, cli.json, args),
        Verb::Tools(args) => tools(
            cli.json || args.json,
            args.markdown,
            args.dialect.as_deref(),
        ),
        Verb::Serve(args) => serve::run(&cli.global, args),
        Verb::Setup(args) => setup::run(&cli.global, cli.json, args),
    };
    // Language servers started for this process end with it.
    filekit_dialects::stop_language_servers();
    // Asked to end while writing: the request stopped and said so; the process now ends by
    // the signal, as a shell expects of an interrupted program.
    if let Some(signal) = signals::received_signal() {
        signals::end_by(signal);
    }
    ExitCode::from(code)
}

/// `filekit read big.txt | head` must end quietly when `head` has read enough, as `cat` does,
/// not panic in `println!`: Rust ignores SIGPIPE, so a write to a closed pipe is an error that
/// the printing macros panic on. A one-shot verb takes the default action back (the process
/// ends, exit status 128 + SIGPIPE in the shell); what it changed on disk was committed before
/// it printed, and an atomic request cut short is rolled back at the next start. `serve` keeps
/// ignoring it: a client that goes away is an error its transport handles.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: signal(2) with SIG_DFL installs no handler; nothing else in this process has
    // set one for SIGPIPE, and no thread has been started yet.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Opens the workspace the global options describe, with its state directory, edit history
/// (unless `--no-history`) and versions, after rolling back any atomic request a killed
/// filekit left half done.
pub fn workspace(global: &GlobalArgs) -> Result<Workspace, FkError> {
    let roots = if global.roots.is_empty() {
        vec![std::env::current_dir().map_err(|e| FkError::from_io(&e, "the current directory"))?]
    } else {
        global.roots.clone()
    };
    let mut ws = Workspace::new(&roots, global.read_only)?
        .with_git_writes(global.allow_git_writes)
        .with_protected_writes(global.allow_protected_writes)
        .with_secret_reads(global.allow_secret_reads)
        .with_max_reply_bytes(
            global
                .max_reply_bytes
                .unwrap_or(filekit_core::limits::MAX_REPLY_BYTES),
        )
        .with_trust(global.trust_workspace)
        .with_add_root_hint(Some("add its folder with --root DIR"))
        .with_max_file_size(
            global
                .max_file_size
                .unwrap_or(filekit_core::limits::DEFAULT_MAX_FILE_SIZE),
        );
    let state = match workspace_state(global, &ws.roots()[0], !global.read_only) {
        Ok(state) => state,
        Err(e) => {
            eprintln!(
                "filekit: warning: {e}; this session keeps no history, leases or versions on disk"
            );
            None
        }
    };
    if !global.no_history {
        let path = global
            .history
            .clone()
            .or_else(|| state.as_ref().map(StateDir::history_file));
        if let Some(path) = path {
            ws.set_history(Arc::new(History::new(
                &path,
                filekit_core::history::DEFAULT_CAP_BYTES,
            )));
        }
    }
    // The versions this process reads and writes, kept in the state directory so that a later
    // process (or a server) can merge an edit made on one of them.
    let versions = match &state {
        Some(state) if !global.read_only && !global.no_versions => {
            Versions::on_disk(state.versions_dir())
        }
        _ => Versions::in_memory(),
    };
    ws.set_versions(Arc::new(versions));
    if let Some(state) = state {
        ws.set_state(state);
    }
    ws.set_holder(holder_name(global).unwrap_or_else(default_cli_holder));
    match transaction::recover(&ws) {
        Ok(r) => {
            for tx in &r.rolled_back {
                eprintln!("filekit: rolled back an interrupted atomic request (journal {tx})");
            }
            for done in r.finished.iter().filter(|d| d.files > 0) {
                let entry = done
                    .entry
                    .map(|e| format!(" as history entry {e} (undo reverts it)"))
                    .unwrap_or_default();
                eprintln!(
                    "filekit: finished a request stopped part way (journal {}): its temporary files removed, the {} files it had written recorded{entry}",
                    done.journal, done.files
                );
            }
            for tx in &r.refused {
                eprintln!(
                    "filekit: warning: the journal {tx} names paths no write may reach; it was cleared without being replayed"
                );
            }
        }
        Err(e) => eprintln!("filekit: warning: {e}"),
    }
    Ok(ws)
}

/// A path option as given, with `~` and `~/...` expanded as in every path filekit takes
/// (`filekit_core::workspace::expand_home`): an MCP client's configuration passes
/// `--root ~/src/app` to filekit with no shell to expand it.
pub fn home_path(given: &str) -> Result<PathBuf, String> {
    filekit_core::workspace::expand_home(given).map_err(|e| e.message)
}

/// The folder under which filekit keeps the state of every workspace: `--state-dir`, else
/// `$XDG_STATE_HOME/filekit`, else `~/.local/state/filekit` (the XDG base directory rules:
/// a relative `XDG_STATE_HOME` is ignored).
pub fn state_base(global: &GlobalArgs) -> Option<PathBuf> {
    if let Some(dir) = &global.state_dir {
        return std::path::absolute(dir).ok();
    }
    let absolute = |v: std::ffi::OsString| {
        let p = PathBuf::from(v);
        p.is_absolute().then_some(p)
    };
    std::env::var_os("XDG_STATE_HOME")
        .and_then(absolute)
        .map(|p| p.join("filekit"))
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/state/filekit"))
        })
}

/// The state directory of the workspace whose first root is `first_root`, made (mode 0700)
/// when `create`, and named by the real path of the base so that no link on the way is
/// followed later (SQLite refuses to open the history through one).
pub fn workspace_state(
    global: &GlobalArgs,
    first_root: &std::path::Path,
    create: bool,
) -> Result<Option<StateDir>, FkError> {
    let Some(base) = state_base(global) else {
        return Err(FkError::invalid(
            "filekit has no state directory: neither XDG_STATE_HOME nor HOME is set",
        )
        .with_hint("set HOME, or give --state-dir DIR"));
    };
    if create {
        StateDir::for_root(&base, first_root).ensure()?;
    }
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    Ok(Some(StateDir::for_root(&base, first_root)))
}

/// The lease holder of the CLI when none is named: one per user, `filekit-cli-<user>`. Each
/// `filekit call` (or verb) is a process of its own, so a name per process would make a lease
/// useless to the agent that took it (its next write refused, its unlock another holder's);
/// the same user's CLI calls are one holder, and agents that share a user name themselves
/// (`--holder`, FILEKIT_HOLDER, or `holder` in the call). `filekit serve` names its session.
pub fn default_cli_holder() -> String {
    let user = ["USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.trim().is_empty()))
        .unwrap_or_else(|| "user".to_string());
    format!("filekit-cli-{user}")
}

/// The lease holder name: `--holder`, else FILEKIT_HOLDER.
pub fn holder_name(global: &GlobalArgs) -> Option<String> {
    global
        .holder
        .clone()
        .or_else(|| std::env::var("FILEKIT_HOLDER").ok())
        .filter(|h| !h.trim().is_empty())
}

/// Where the history of `ws` is kept under the global options (`None`: nowhere, the session
/// has no state directory).
pub fn history_path(global: &GlobalArgs, ws: &Workspace) -> Option<PathBuf> {
    global
        .history
        .clone()
        .or_else(|| ws.state().map(StateDir::history_file))
}

/// Prints the history's warning, if recording failed (once per process).
pub fn history_warning(ws: &Workspace) {
    if let Some(w) = ws.history().and_then(|h| h.take_warning()) {
        eprintln!("filekit: warning: {w}");
    }
}

/// Prints a failure that stopped a verb before it ran, and gives the exit code for it.
/// `--encoding`'s value: an encoding by its WHATWG label.
pub fn encoding_arg(label: &str) -> Result<&'static filekit_core::encoding::Encoding, String> {
    filekit_core::encoding::by_label(label).map_err(|e| e.full_message())
}

pub fn fail_early(err: &FkError) -> u8 {
    eprintln!("filekit: {}", terminal::text(&err.to_string()));
    EXIT_BAD_REQUEST
}

fn tools(json: bool, markdown: bool, dialect: Option<&str>) -> u8 {
    // clap has checked `dialect` against the tables (possible values).
    if markdown && let Some(d) = dialect {
        print!("{}", tooldocs::page(d));
        return EXIT_OK;
    }
    let tools = filekit_dialects::tools(dialect);
    if json {
        let specs: Vec<serde_json::Value> = tools
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "mcp_name": t.mcp_name(),
                    "dialect": t.dialect,
                    "description": t.description,
                    "input_schema": filekit_dialects::input_schema(t),
                    "output_schema": filekit_dialects::output_schema(t),
                    "read_only": t.read_only,
                    "destructive": t.destructive,
                    "idempotent": t.idempotent,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&specs).unwrap_or_default()
        );
    } else {
        for t in &tools {
            let first_line = t.description.lines().next().unwrap_or("");
            let summary = first_line.split(". ").next().unwrap_or(first_line);
            println!(
                "{:<20} {:<18} {:<19} {summary}",
                t.name,
                t.mcp_name(),
                t.dialect
            );
        }
    }
    EXIT_OK
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Keeps the C library's allocator to one arena. filekit's own memory comes from mimalloc;
/// glibc's malloc serves only the C code it links (SQLite's history), yet it gives each thread
/// that calls it an arena of its own, 64 MiB of address space reserved apiece: a server's
/// call, walk and blocking threads reserved some 900 MiB that way, and under an address-space
/// limit (`ulimit -v`) a thread could then not be started, or an allocation failed and ended
/// every session. One arena is what that little C code needs.
fn one_arena_for_the_c_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt sets one of the allocator's parameters; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Tells the allocator to keep the memory freed in this process instead of giving it back to
/// the system after a delay. A verb that runs once and ends gains nothing from giving it back,
/// and pays twice for it: the system call, then zeroed pages when the memory is needed again.
/// A tree-wide replace frees and allocates hundreds of megabytes across its threads; giving
/// them back took a fifth of its time. `filekit serve` runs for hours and keeps the default.
fn keep_freed_memory() {
    // `mi_option_purge_delay` in mimalloc's `mi_option_e` (15 in the mimalloc.h of both the
    // v2 and v3 sources libmimalloc-sys builds); -1 means never. libmimalloc-sys exports
    // neither the constant nor, without its `extended` feature, the function.
    const MI_OPTION_PURGE_DELAY: i32 = 15;
    unsafe extern "C" {
        fn mi_option_set(option: i32, value: std::ffi::c_long);
    }
    // SAFETY: `mi_option_set` only stores a value in mimalloc's option table; the index is
    // that of `mi_option_purge_delay` in the mimalloc this binary links, and -1 is a value the
    // option documents.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

/// Asks the system for no transparent huge pages in this process. Where they are on (as on
/// most distributions), the first touch of each 2 MiB region the allocator hands a thread
/// makes the kernel zero all 2 MiB at once; a verb that runs once and ends touches many
/// fresh regions and keeps few of them long, so that zeroing was up to a tenth of its time
/// (a tree-wide replace of a rare pattern: median 118 ms with them, 107 ms without, 20 runs
/// alternated; a frequent one and the default mode gained 5-10%). Memory already touched
/// keeps its pages; programs this process starts (tsc, a language server) inherit the
/// setting, which costs them no more than it costs us. Failure (an old kernel, a seccomp
/// filter) only leaves the default, so it is ignored.
fn use_small_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed_and_the_version_line_is_clap_s() {
        Cli::command().debug_assert();
        assert_eq!(version_line(), Cli::command().render_version());
    }
}
