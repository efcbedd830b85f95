//! # filekit-dialects
//!
//! The tool tables that front ends serve. A *dialect* is the set of tools one family of agents
//! already knows (amazonq's `fs_read`/`fs_write`, the `file:*` tools, claude's
//! `Read`/`Write`/`Edit`/`MultiEdit`/`LS`/`Glob`/`Grep`, Desktop Commander's edit blocks). Each tool here is a
//! thin mapping: its JSON arguments -> one engine request -> the reply shape its document
//! promises. Edit semantics (ordering, hashes, fuzzy matching, atomicity) live in the engine;
//! this crate only translates, so the same edit gives the same file whichever tool carried it.
//!
//! Nothing here knows MCP or terminals: the MCP server and the `filekit call` verb serve the
//! same table through [`tools`] and [`call`].
//!
//! One edit through two tables: the same engine request, each table's reply.
//!
//! ```
//! use filekit_core::Workspace;
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("s.py"), "DEBUG = True\n").unwrap();
//! let ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
//!
//! let reply = filekit_dialects::call(
//!     &ws,
//!     "fs_write",
//!     json!({"command": "str_replace", "path": "s.py", "old_str": "True", "new_str": "False"}),
//! );
//! assert!(!reply.is_error);
//! assert!(reply.value["diff"].as_str().unwrap().contains("+DEBUG = False"));
//!
//! let reply = filekit_dialects::call(
//!     &ws,
//!     "edit_block",
//!     json!({"file_path": "s.py", "old_string": "False", "new_string": "True"}),
//! );
//! // What the model reads is Desktop Commander's own text.
//! assert!(reply.text.contains("1 replacement"), "{}", reply.text);
//! assert_eq!(std::fs::read_to_string(dir.path().join("s.py")).unwrap(), "DEBUG = True\n");
//!
//! // An argument the tool does not have is refused, naming the closest one.
//! let reply = filekit_dialects::call(&ws, "fs_write", json!({"command": "create", "pth": "x"}));
//! assert!(reply.rejected && reply.text.contains("path"), "{}", reply.text);
//! ```

mod amazonq;
mod apply_patch;
mod args;
mod claude;
mod claude_search;
mod desktop_commander;
mod desktop_commander_files;
mod desktop_commander_search;
pub mod edit_plan;
mod file;
mod file_ops;
mod filekit;
mod filekit_search;
mod history_tools;
mod mcp_filesystem;
pub mod refactor_mode;
mod reply;
mod semantic;
mod semantic_reply;
mod shape;
mod templates;
pub mod verbs;
pub mod wire;

pub use history_tools::{undo_did, what_it_did};
pub use reply::SchemaForm;

use filekit_core::edit::{EditReport, EditRequest};
use filekit_core::{Control, ErrorCode, FkError, Workspace, pipeline};
use serde_json::{Value, json};
use std::sync::LazyLock;

/// The failures of `filekit mv`, `cp` and `rm` said with the CLI's flags (the engine's
/// facts: an existing destination, a directory with entries).
pub fn word_cli_fs_report(report: &mut filekit_core::fsops::FsReport) {
    shape::word_fs_report(
        report,
        &shape::OpWords {
            exists: "pass --overwrite to replace it, or choose another destination",
            not_empty: "pass -r (--recursive) to delete it with everything in it",
        },
    );
}

/// A path as filekit shows it to people and models: relative to the first root (absolute in
/// another root), for the CLI's words as for the curated table's replies.
pub fn shown_path(ws: &Workspace, path: &str) -> String {
    shape::shown_path(ws, path)
}

/// Keeps parse trees between calls in this process (a server's), bounded in memory: a front
/// end that serves many calls turns it on; a one-shot command leaves it off.
pub fn keep_parse_trees() {
    filekit_semantic::parse_cache::keep_trees(filekit_semantic::parse_cache::BUDGET_BYTES);
}

/// A text (a message, a summary) with the paths of the first root in it shown as
/// [`shown_path`] shows them.
pub fn shown_text(ws: &Workspace, text: &str) -> String {
    shape::shown_text(ws, text)
}

/// Runs one call of `tool` (a tool of the tables a front end serves, from [`tools`] or
/// [`find_tool_in`]) under `control`: the edit request the tool makes reports each planned file
/// to it, and stops, writing nothing, when it is cancelled before writing starts (once writing
/// starts it stops before its next file: see `filekit_core::Control`). Front ends that serve
/// a set of tables call this with the spec they listed, so two tables' tools of one name never
/// mix.
pub fn call_tool(ws: &Workspace, tool: &ToolSpec, args: Value, control: Control) -> ToolReply {
    dispatch(ws, tool, args, control, tool.name)
}

/// One tool call as a tool sees it: the workspace it runs in (`Call` dereferences to it), the
/// control of the call (progress, cancellation) and the name the requests it makes carry to
/// the engine for the history: the tool's, or the command-line verb's that ran it.
pub struct Call<'a> {
    ws: &'a Workspace,
    control: Control,
    tool: &'static str,
}

impl std::ops::Deref for Call<'_> {
    type Target = Workspace;

    fn deref(&self) -> &Workspace {
        self.ws
    }
}

impl Call<'_> {
    /// The tool's name, for the history of requests that do not go through [`Call::apply`].
    pub(crate) fn tool_name(&self) -> String {
        self.tool.to_string()
    }

    /// The call's control, for requests that do not go through [`Call::apply`].
    pub(crate) fn control(&self) -> Control {
        self.control.clone()
    }

    /// Applies an edit request under the call's control and name.
    pub(crate) fn apply(&self, mut request: EditRequest) -> EditReport {
        request.options = request
            .options
            .to_builder()
            .control(self.control())
            .tool(Some(self.tool_name()))
            .build();
        pipeline::apply(self.ws, &request)
    }
}

/// Stops the language servers that refactors started (a CLI process's end, a server's).
pub fn stop_language_servers() {
    filekit_lsp::shutdown_all();
}

/// One tool of one dialect: its name, what a model is told about it, and its argument schema.
#[derive(Clone)]
pub struct ToolSpec {
    /// The exact name its design document uses (`fs_write`, `file:read_file`, `Edit`).
    pub name: &'static str,
    /// `amazonq`, `file`, `claude`, `desktop-commander` or `filekit` (the curated table).
    pub dialect: &'static str,
    /// Written for a model: what the tool does, when to prefer it, its line-number and
    /// ordering rules, and one short example.
    pub description: &'static str,
    /// The long form for people and for a model that looks it up: what the description leaves
    /// out (every rule, the edge cases, more examples). The documentation page
    /// (`docs/tools/`) prints it after the description; `tools/list` does not carry it, since
    /// every byte there is read in every session. Empty when the description says it all.
    pub guide: &'static str,
    /// JSON Schema of the arguments, with exactly the document's argument names: built the
    /// first time it is asked for, so that a call (a process that runs one) builds its own
    /// tool's schema and no other.
    pub input_schema: &'static LazyLock<Value>,
    /// True when the tool never writes.
    pub read_only: bool,
    /// True when the tool may overwrite or remove what was there.
    pub destructive: bool,
    /// True when calling it twice with the same arguments leaves the same files as once.
    pub idempotent: bool,
    /// Parses the arguments and runs the tool. `Err` means the call itself was rejected
    /// (arguments that do not parse or do not fit): nothing was attempted.
    pub(crate) run: fn(&Call, Value) -> Result<ToolReply, FkError>,
    /// The dialect's reply for a rejected call, in that dialect's shape.
    pub(crate) reject: fn(&FkError) -> Value,
    /// Where the JSON Schema of its reply (MCP's `outputSchema`) comes from.
    pub reply: ReplySchema,
}

/// Where a tool's output schema comes from: the Rust type of its reply
/// (`reply::schema::<T>`), so that the reply and its schema cannot drift apart.
#[derive(Clone, Copy)]
pub enum ReplySchema {
    /// The schema of the reply's type, in the form asked for.
    Typed(fn(SchemaForm) -> Value),
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl ToolSpec {
    /// The name MCP clients accept (`^[a-zA-Z0-9_-]{1,64}$`): every other character becomes
    /// `_`, so `file:read_file` is served as `file_read_file`.
    pub fn mcp_name(&self) -> String {
        mcp_name(self.name)
    }
}

fn mcp_name(name: &str) -> String {
    name.chars().map(mcp_char).take(64).collect()
}

fn mcp_char(c: char) -> char {
    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
        c
    } else {
        '_'
    }
}

/// Whether `given` is the MCP name of the tool called `name` (`mcp_name(name) == given`),
/// without making that name: every call looks its tool up among all the tables' names.
fn is_mcp_name_of(given: &str, name: &str) -> bool {
    given.chars().eq(name.chars().map(mcp_char).take(64))
}

/// Whether two tools take the same arguments. Tools that share one schema (a tool served by
/// two tables) are not compared, so that neither schema is built for it.
pub fn same_schema(a: &ToolSpec, b: &ToolSpec) -> bool {
    std::ptr::eq(a.input_schema, b.input_schema) || **a.input_schema == **b.input_schema
}

/// What a tool answers.
#[derive(Debug, Clone)]
pub struct ToolReply {
    /// The reply in the dialect's own shape (what `filekit call` prints).
    pub value: Value,
    /// True when the call failed, or any part of it did (a file, an edit).
    pub is_error: bool,
    /// True when the call itself was rejected before anything was attempted: unknown tool,
    /// arguments missing, mistyped or contradictory. Implies `is_error`.
    pub rejected: bool,
    /// The text a model sees (an MCP reply's text content, which many clients show instead
    /// of `value`): the real tool's own wording where it is public (Claude Code's, Desktop
    /// Commander's edit_block), otherwise `value` serialized (amazonq, the desktop-commander batch tools);
    /// never a summary in another tool's words. A rejected call's text is its full error
    /// message (with its hint).
    pub text: String,
    /// Images to show the model, as (mime type, base64 data).
    pub images: Vec<(String, String)>,
    /// Sounds and other files sent whole (the MCP filesystem server's read_media_file), after
    /// the images.
    pub media: Vec<Media>,
}

/// A file sent whole to the model, base64-encoded, as MCP carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum Media {
    /// A sound (MCP's audio content).
    Audio { mime: String, data: String },
    /// Any other file (MCP's embedded resource with a blob), named by its `file://` URI.
    Resource {
        uri: String,
        mime: String,
        data: String,
    },
}

impl ToolReply {
    pub(crate) fn new(value: Value, is_error: bool, text: String) -> Self {
        ToolReply {
            value,
            is_error,
            rejected: false,
            text,
            images: Vec::new(),
            media: Vec::new(),
        }
    }
}

static TABLE: LazyLock<Vec<ToolSpec>> = LazyLock::new(|| {
    let mut all = Vec::new();
    all.extend(amazonq::tools());
    all.extend(file::tools());
    all.extend(claude::tools());
    all.extend(claude_search::tools());
    all.extend(desktop_commander::tools());
    all.extend(desktop_commander_files::tools());
    all.extend(desktop_commander_search::tools());
    all.extend(semantic::tools("semantic"));
    all.extend(file_ops::tools());
    all.extend(filekit::tools());
    all.extend(filekit_search::tools());
    all.extend(semantic::tools("filekit"));
    all.extend(history_tools::tools());
    all.extend(apply_patch::tools("filekit"));
    all.extend(apply_patch::tools("codex"));
    all.extend(mcp_filesystem::tools());
    all
});

/// The dialects this crate serves, in table order.
pub const DIALECTS: &[&str] = &[
    "amazonq",
    "file",
    "claude",
    "desktop-commander",
    "semantic",
    "filekit",
    "codex",
    "mcp-filesystem",
];

/// The tools of one dialect, or of all when `dialect` is `None`.
pub fn tools(dialect: Option<&str>) -> Vec<ToolSpec> {
    TABLE
        .iter()
        .filter(|t| dialect.is_none_or(|d| t.dialect == d))
        .cloned()
        .collect()
}

/// The JSON Schema of a tool's reply as `tools/list` serves it (MCP's `outputSchema`, the
/// listed form of [`reply::listed`]), generated from its reply's type.
pub fn output_schema(tool: &ToolSpec) -> Value {
    let ReplySchema::Typed(schema) = tool.reply;
    schema(SchemaForm::Listed)
}

/// The tables whose real tools answer in text alone (Claude Code's, Codex's, Amazon Q's,
/// Desktop Commander's): as those do, their tools declare no output schema and their replies
/// carry no structured part, so a model reads their text only. Their replies are typed all the same: `filekit call`
/// prints them, and [`output_schema`] is the schema of their type.
pub const TEXT_REPLIES: &[&str] = &["claude", "codex", "amazonq", "desktop-commander"];

/// Whether a tool's listing declares its output schema and its replies carry their structured
/// part beside the text (every table but [`TEXT_REPLIES`]).
pub fn structured_replies(tool: &ToolSpec) -> bool {
    !TEXT_REPLIES.contains(&tool.dialect)
}

/// The tables whose `tools/list` entries give their arguments bare ([`args::bare`]): the
/// curated table, whose budget of listed bytes the descriptions of arguments would break;
/// `codex`, whose real tool describes no argument; `amazonq`, whose additions to Q's two tools
/// would take it past what Q's own definitions cost. The other drop-in tables list their real
/// tools' argument schemas, descriptions and all.
pub const BARE_ARGUMENTS: &[&str] = &["filekit", "codex", "amazonq"];

/// A tool's argument schema as `tools/list` serves it (MCP's `inputSchema`): bare for the
/// tables of [`BARE_ARGUMENTS`], otherwise [`ToolSpec::input_schema`] as it is (which the
/// documentation pages and the argument checks use with its descriptions).
pub fn input_schema(tool: &ToolSpec) -> Value {
    if BARE_ARGUMENTS.contains(&tool.dialect) {
        args::bare(tool.input_schema)
    } else {
        Value::clone(tool.input_schema)
    }
}

/// The JSON Schema of a tool's reply with the descriptions of its fields: the long form, for
/// the documentation pages, and every field at every depth.
pub fn documented_output_schema(tool: &ToolSpec) -> Value {
    let ReplySchema::Typed(schema) = tool.reply;
    schema(SchemaForm::Documented)
}

/// The curated table: filekit's own design, which a tool name means when no table is named
/// and the curated table has a tool of that name.
pub const CURATED: &str = "filekit";

/// The tool called `name` (its document name or its MCP name): the curated table's, else the
/// first table's that has one. Where tables share a name (`read_file`), [`find_tool_in`] says
/// which is meant.
pub fn find_tool(name: &str) -> Option<&'static ToolSpec> {
    find_tool_in(None, name)
}

/// The tool called `name` (document or MCP name) among the tools of `dialects`: the first in
/// table order, or with all tables (`None`) the curated table's if it has one.
pub fn find_tool_in(dialects: Option<&[&str]>, name: &str) -> Option<&'static ToolSpec> {
    let in_scope = |t: &&ToolSpec| dialects.is_none_or(|d| d.contains(&t.dialect));
    let named = |t: &&ToolSpec| t.name == name || is_mcp_name_of(name, t.name);
    let curated = dialects
        .is_none()
        .then(|| TABLE.iter().filter(|t| t.dialect == CURATED).find(named))
        .flatten();
    curated.or_else(|| {
        TABLE
            .iter()
            .filter(in_scope)
            .find(|t| t.name == name)
            .or_else(|| {
                TABLE
                    .iter()
                    .filter(in_scope)
                    .find(|t| is_mcp_name_of(name, t.name))
            })
    })
}

/// The tables whose tool called `name` (document or MCP name) takes other arguments than the
/// first table's: empty when the name means one tool wherever it is served (`apply_patch` is
/// one tool in two tables). A caller that does not say which table it means is asked to.
pub fn tables_disagreeing_on(name: &str) -> Vec<&'static str> {
    let named: Vec<&ToolSpec> = TABLE
        .iter()
        .filter(|t| t.name == name || is_mcp_name_of(name, t.name))
        .collect();
    let Some(first) = named.first() else {
        return Vec::new();
    };
    if named.iter().all(|t| same_schema(t, first)) {
        return Vec::new();
    }
    let mut tables: Vec<&str> = named.iter().map(|t| t.dialect).collect();
    tables.dedup();
    tables
}

/// Runs one tool call. `tool_name` is the document name or the MCP name (the curated table's
/// tool where tables share it); `args` the JSON arguments (`null` counts as no arguments). Never panics on bad input: every problem comes
/// back as an error reply with a code and a message that says what to do.
pub fn call(ws: &Workspace, tool_name: &str, args: Value) -> ToolReply {
    call_in(ws, None, tool_name, args)
}

/// Runs one tool call like [`call`], with the tool looked up among the tools of `dialects`
/// (all tables when `None`). A name that tables use for different tools means the curated
/// table's tool if it has one; otherwise, looked up in all tables, it is refused with the
/// tables to choose from.
pub fn call_in(
    ws: &Workspace,
    dialects: Option<&[&str]>,
    tool_name: &str,
    args: Value,
) -> ToolReply {
    look_up_and_dispatch(ws, dialects, tool_name, args)
}

fn look_up_and_dispatch(
    ws: &Workspace,
    dialects: Option<&[&str]>,
    tool_name: &str,
    args: Value,
) -> ToolReply {
    let disagreeing = tables_disagreeing_on(tool_name);
    let ambiguous = match dialects {
        None => disagreeing.len() > 1 && !disagreeing.contains(&CURATED),
        Some(d) => disagreeing.iter().filter(|t| d.contains(t)).count() > 1,
    };
    if ambiguous {
        return ambiguous_tool(tool_name, &disagreeing);
    }
    match find_tool_in(dialects, tool_name) {
        Some(tool) => dispatch(ws, tool, args, Control::default(), tool.name),
        None => unknown_tool(tool_name),
    }
}

/// The stack every tool call runs on. The parsers' walks recurse once per level of a file's
/// nesting, up to `filekit_semantic::bounds::MAX_DEPTH` levels; the deepest of them (the
/// Python scope analysis) takes about 2.5 KiB of stack per level in a release build and
/// 11 KiB in a debug build, more than the 2 MiB that the threads of tokio's blocking pool
/// (the MCP server) have, so no call runs on its caller's stack: each gets a thread of its
/// own with this much (address space: only the pages a call touches are ever committed).
pub const CALL_STACK: usize = 64 << 20;

/// The one place every tool call of every front end goes through: the tool runs on a thread
/// of [`CALL_STACK`] bytes of stack, and a panic in it (a bug, in filekit or in a library
/// under it) becomes an error reply naming the tool, so the process (an MCP server with
/// other calls in flight) lives on.
fn dispatch(
    ws: &Workspace,
    tool: &ToolSpec,
    args: Value,
    control: Control,
    history_label: &'static str,
) -> ToolReply {
    let mut args = if args.is_null() { json!({}) } else { args };
    // The one argument check of every table: unknown keys refused, strings coerced where the
    // dialect's real tool coerces them. The tool then only sees keys its schema has.
    let result = match args::drop_ignored(tool.dialect, tool.name, &mut args).and_then(|()| {
        args::prepare(
            tool.name,
            tool.input_schema,
            args::coerces(tool.dialect),
            &mut args,
        )
    }) {
        Ok(()) => guarded(tool.name, move || {
            let call = Call {
                ws,
                control,
                tool: history_label,
            };
            (tool.run)(&call, args)
        }),
        Err(err) => Err(err),
    };
    answered(ws, tool.reject, result)
}

/// Runs a tool's work as [`dispatch`] runs a call, for an entry that takes typed arguments
/// (`verbs`): on a thread with the call stack, a panic answered as an error, a rejection in
/// the tool's shape (`reject`), the history's warning said. `label` names the change in the
/// history.
pub(crate) fn run_typed(
    ws: &Workspace,
    tool: &'static str,
    label: &'static str,
    reject: fn(&FkError) -> Value,
    run: impl FnOnce(&Call) -> Result<ToolReply, FkError> + Send,
) -> ToolReply {
    let result = guarded(tool, move || {
        run(&Call {
            ws,
            control: Control::default(),
            tool: label,
        })
    });
    answered(ws, reject, result)
}

/// A call's reply: its tool's, or its rejection in the tool's shape; with the history's
/// warning when it could not record.
fn answered(
    ws: &Workspace,
    reject: fn(&FkError) -> Value,
    result: Result<ToolReply, FkError>,
) -> ToolReply {
    let mut reply = match result {
        Ok(reply) => reply,
        Err(err) => ToolReply {
            value: reject(&err),
            is_error: true,
            rejected: true,
            text: err.full_message(),
            images: Vec::new(),
            media: Vec::new(),
        },
    };
    // A history that cannot record does not fail the edit; it is said once, here, so that
    // whoever drives the tools learns it and how to repair it.
    if let Some(warning) = ws.history().and_then(|h| h.take_warning()) {
        reply.text.push_str(&format!("\nwarning: {warning}"));
        if let Some(m) = reply.value.as_object_mut() {
            m.insert("warning".into(), json!(warning));
        }
    }
    reply
}

thread_local! {
    /// Set on the threads [`spawn_call_thread`] starts, which have [`CALL_STACK`] bytes.
    static HAS_CALL_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Starts a thread of [`CALL_STACK`] bytes of stack that runs `body`; the tool calls made on
/// it run in place instead of on a thread of their own. A server keeps a few of them across
/// calls, so that a call does not pay for a thread started and ended.
pub fn spawn_call_thread(
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name)
        .stack_size(CALL_STACK)
        .spawn(move || {
            HAS_CALL_STACK.set(true);
            body()
        })
}

/// Runs `run` (the tool `tool`) on a thread of [`CALL_STACK`] bytes of stack (the caller's,
/// on a thread of [`spawn_call_thread`]; else one of its own); a panic becomes an error
/// naming the tool.
fn guarded<T: Send>(
    tool: &str,
    run: impl FnOnce() -> Result<T, FkError> + Send,
) -> Result<T, FkError> {
    if HAS_CALL_STACK.get() {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
            .unwrap_or_else(|panic| Err(panicked(tool, &*panic)));
    }
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name(format!("filekit {tool}"))
            .stack_size(CALL_STACK)
            .spawn_scoped(scope, run)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| Err(panicked(tool, &*panic))),
            Err(e) => Err(FkError::new(
                ErrorCode::Io,
                format!("{tool}: cannot start a thread for the call: {e}"),
            )
            .with_hint("the system is out of threads or memory; try again when it has some")),
        }
    })
}

/// The error reply of a tool call that panicked (the panic's message was printed on stderr).
fn panicked(tool: &str, panic: &(dyn std::any::Any + Send)) -> FkError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    FkError::new(
        ErrorCode::Io,
        format!("internal error in {tool}: it panicked ({what}); the call was stopped"),
    )
    .with_hint(
        "this is a bug in filekit (please report it); every file a call writes is written whole \
or not at all, so check the files it named (or the history) before trying again",
    )
}

/// The reply to a call naming a tool that several tables define differently, without saying
/// which table it means.
fn ambiguous_tool(name: &str, tables: &[&str]) -> ToolReply {
    let err = FkError::new(
        ErrorCode::InvalidArgument,
        format!(
            "'{name}' is a tool of several tables that take different arguments ({})",
            tables.join(", ")
        ),
    )
    .with_hint(format!(
        "say which table you mean: filekit call --tools {} (or serve that table alone)",
        tables[0]
    ))
    .with_details(json!({ "tables": tables }));
    ToolReply {
        value: json!({
            "success": false,
            "error": err.full_message(),
            "error_code": err.code.as_str(),
            "tables": tables,
        }),
        is_error: true,
        rejected: true,
        text: err.full_message(),
        images: Vec::new(),
        media: Vec::new(),
    }
}

/// The reply to a call naming no known tool: the closest names, so that a model that typed
/// `read_file` or `fs_reed` is told what it meant.
fn unknown_tool(name: &str) -> ToolReply {
    let close = closest_tool_names(name);
    let mut all: Vec<&str> = TABLE.iter().map(|t| t.name).collect();
    all.sort_unstable();
    all.dedup();
    // The whole list (over 60 names) would bury the answer: `filekit tools` shows it by table.
    let list = "`filekit tools` lists every tool by table";
    let hint = if close.is_empty() {
        list.to_string()
    } else {
        format!("did you mean {}? ({list})", close.join(" or "))
    };
    let err = FkError::new(ErrorCode::UnknownTool, format!("unknown tool '{name}'"))
        .with_hint(hint)
        .with_details(json!({ "closest": close, "tools": all }));
    ToolReply {
        value: json!({
            "success": false,
            "error": err.full_message(),
            "error_code": err.code.as_str(),
            "closest": close,
        }),
        is_error: true,
        rejected: true,
        text: err.full_message(),
        images: Vec::new(),
        media: Vec::new(),
    }
}

/// Up to three tool names (document names) closest to `name`, best first. Compares case-
/// insensitively against both the document and MCP names, and also against the part after a
/// `prefix:` so that `read_file` finds `file:read_file`.
pub fn closest_tool_names(name: &str) -> Vec<&'static str> {
    let wanted = name.to_ascii_lowercase();
    let mut scored: Vec<(f64, &'static str)> = TABLE
        .iter()
        .map(|t| {
            let doc = t.name.to_ascii_lowercase();
            let bare = doc.rsplit(':').next().unwrap_or(&doc).to_string();
            let mcp = t.mcp_name().to_ascii_lowercase();
            let score = [doc, bare, mcp]
                .iter()
                .map(|candidate| {
                    let s = strsim::normalized_damerau_levenshtein(&wanted, candidate);
                    // A name that contains what was typed (or the reverse) is a strong hint.
                    if candidate.contains(&wanted) || wanted.contains(candidate.as_str()) {
                        s.max(0.75)
                    } else {
                        s
                    }
                })
                .fold(0.0, f64::max);
            (score, t.name)
        })
        .filter(|(score, _)| *score >= 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Two tables may have a tool of one name: it is one suggestion.
    let mut names: Vec<&'static str> = Vec::new();
    for (_, n) in scored {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names.truncate(3);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_a_call_is_an_error_naming_the_tool_and_the_caller_goes_on() {
        let err = guarded::<()>("file_read", || panic!("the parser lost its way")).unwrap_err();
        assert_eq!(err.code, ErrorCode::Io);
        assert!(
            err.message.contains("internal error in file_read")
                && err.message.contains("the parser lost its way"),
            "{err:?}"
        );
        let owned = guarded::<()>("Glob", || std::panic::panic_any(format!("owned {}", 1)));
        assert!(owned.unwrap_err().message.contains("owned 1"));
        // The next call on the same caller works.
        assert_eq!(guarded("file_read", || Ok(7)).unwrap(), 7);
    }

    #[test]
    fn a_call_has_the_stack_its_walks_need() {
        // 4,000 frames of at least 4 KiB (16 MiB): more than the 2 MiB of tokio's blocking
        // threads or the 8 MiB of a main thread.
        fn down(n: usize) -> usize {
            let frame = std::hint::black_box([n as u8; 4096]);
            if n == 0 {
                0
            } else {
                down(n - 1) + frame[0] as usize % 2
            }
        }
        assert!(guarded("file_read", || Ok(down(4_000))).is_ok());
        // On a call thread, in place: the same stack, and a panic still an error.
        let on_a_call_thread = spawn_call_thread("test".into(), || {
            assert!(guarded("file_read", || Ok(down(4_000))).is_ok());
            let err = guarded::<()>("Glob", || panic!("lost")).unwrap_err();
            assert!(err.message.contains("internal error in Glob"), "{err:?}");
            assert_eq!(
                guarded("Glob", || Ok(std::thread::current()
                    .name()
                    .map(String::from)))
                .unwrap(),
                Some("test".to_string())
            );
        });
        on_a_call_thread.unwrap().join().unwrap();
    }

    #[test]
    fn a_broken_history_is_reported_once_per_session_and_never_fails_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".filekit")).unwrap();
        std::fs::write(
            root.join(".filekit/history.db"),
            "not a database at all, just text",
        )
        .unwrap();
        let mut ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        let db = root.join(".filekit/history.db");
        ws.set_history(std::sync::Arc::new(filekit_core::history::History::new(
            &db,
            1 << 20,
        )));
        let write = |content: &str| {
            call(
                &ws,
                "Write",
                json!({"file_path": root.join("a.txt"), "content": content}),
            )
        };
        let first = write("one\n");
        assert!(!first.is_error, "{}", first.text);
        assert!(first.text.contains("--repair"), "{}", first.text);
        assert!(first.value["warning"].is_string());
        let second = write("two\n");
        assert!(!second.is_error, "{}", second.text);
        assert!(
            second.value.get("warning").is_none(),
            "warned twice: {}",
            second.text
        );
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "two\n"
        );
    }

    #[test]
    fn every_tool_of_every_table_refuses_an_unknown_argument_and_does_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        for t in tools(None) {
            let reply = call_in(
                &ws,
                Some(&[t.dialect]),
                t.name,
                json!({"zz_not_an_argument": 1}),
            );
            assert!(reply.rejected, "{}: {}", t.name, reply.text);
            assert!(
                reply.text.contains(&format!(
                    "{}: unknown argument `zz_not_an_argument`",
                    t.name
                )),
                "{}: {}",
                t.name,
                reply.text
            );
            assert!(
                reply.value.to_string().contains("INVALID_ARGUMENT"),
                "{}: {}",
                t.name,
                reply.value
            );
        }
        assert_eq!(
            std::fs::read_dir(&root).unwrap().count(),
            0,
            "a refused call changed the workspace"
        );
    }

    #[test]
    fn the_examples_in_tool_descriptions_use_only_keys_the_tools_take() {
        for t in tools(None) {
            let Some(at) = t.description.find("Example: ") else {
                continue;
            };
            let text = &t.description[at + "Example: ".len()..];
            let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
            let Some(Ok(mut example)) = stream.next() else {
                panic!("{}: the example is not JSON: {text}", t.name);
            };
            args::prepare(t.name, t.input_schema, false, &mut example)
                .unwrap_or_else(|e| panic!("{}: {}", t.name, e.full_message()));
        }
    }

    #[test]
    fn schemas_close_every_object_they_describe() {
        fn walk(name: &str, node: &Value) {
            match node {
                Value::Object(obj) => {
                    if obj.contains_key("properties") {
                        assert_eq!(
                            obj.get("additionalProperties"),
                            Some(&Value::Bool(false)),
                            "{name}: an object schema that does not say unknown keys are refused"
                        );
                    }
                    // An `if` is a condition on the object, not a description of it; a
                    // `then` only names the schemas of the keys it requires, of an object
                    // its parent closes.
                    obj.iter()
                        .filter(|(k, _)| *k != "if" && *k != "then")
                        .for_each(|(_, v)| walk(name, v));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(name, v)),
                _ => {}
            }
        }
        for t in tools(None) {
            walk(t.name, t.input_schema);
        }
    }

    #[test]
    fn every_tool_has_an_output_schema_that_describes_its_fields() {
        // Every value a schema describes says what it is (MCP Inspector's --strict warns
        // about a schema that carries no validation keyword); an `anyOf` branch may only add
        // what its parent's type already says.
        fn typed(name: &str, at: &str, node: &Value) {
            let Some(obj) = node.as_object() else {
                panic!("{name}: {at} is not a schema object");
            };
            assert!(
                at.ends_with('|')
                    || ["type", "enum", "const", "anyOf"]
                        .iter()
                        .any(|k| obj.contains_key(*k)),
                "{name}: {at} carries no validation keyword"
            );
            if let Some(Value::Object(props)) = obj.get("properties") {
                for (k, v) in props {
                    typed(name, &format!("{at}.{k}"), v);
                }
            }
            if let Some(items) = obj.get("items") {
                typed(name, &format!("{at}[]"), items);
            }
            if let Some(Value::Array(any)) = obj.get("anyOf") {
                for (i, v) in any.iter().enumerate() {
                    let branch = if v.get("type").is_some() {
                        format!("{at}|{i}")
                    } else {
                        format!("{at}{i}|")
                    };
                    typed(name, &branch, v);
                }
            }
        }
        for t in tools(None) {
            let schema = output_schema(&t);
            assert_eq!(schema["type"], "object", "{}", t.name);
            let props = schema["properties"].as_object();
            assert!(
                props.is_some_and(|p| p.len() >= 3),
                "{}: a bare output schema",
                t.name
            );
            typed(t.name, "outputSchema", &schema);
        }
    }

    #[test]
    fn mcp_names_are_valid_and_unique() {
        let all = tools(None);
        let mut seen = std::collections::HashSet::new();
        // The one tool served by two tables (the semantic tools are also in the curated
        // table) is the same spec: a name never means two different tools.
        let mut by_name: std::collections::HashMap<String, &ToolSpec> = Default::default();
        for t in &all {
            let n = t.mcp_name();
            assert!(!n.is_empty() && n.len() <= 64);
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            );
            if let Some(first) = by_name.get(&n) {
                assert!(
                    first.dialect != t.dialect,
                    "two tools named {} in one table",
                    t.name
                );
                // Tables may define one name differently (the filesystem server's and Desktop
                // Commander's read_file): then the name is known to disagree, so that no caller
                // gets one table's tool for another's arguments, and serving both is refused.
                if !same_schema(first, t) {
                    let tables = tables_disagreeing_on(t.name);
                    assert!(
                        tables.contains(&first.dialect) && tables.contains(&t.dialect),
                        "{}: {tables:?}",
                        t.name
                    );
                } else {
                    // One tool, said in full in one table and in short (with the full text
                    // as its guide) in the other.
                    assert!(
                        first.description == t.description
                            || first.guide == t.description
                            || t.guide == first.description,
                        "two different tools named {}",
                        t.name
                    );
                }
                continue;
            }
            by_name.insert(n.clone(), t);
            assert!(seen.insert(n), "duplicate MCP name for {}", t.name);
            assert!(DIALECTS.contains(&t.dialect));
        }
        assert_eq!(mcp_name("file:read_file"), "file_read_file");
    }

    #[test]
    fn a_name_the_curated_table_has_means_its_tool_where_no_table_is_named() {
        for name in ["file_read", "file_edit"] {
            assert_eq!(
                tables_disagreeing_on(name),
                ["semantic", CURATED],
                "the two tables spell {name}'s arguments differently"
            );
            assert_eq!(find_tool(name).unwrap().dialect, CURATED);
            assert_eq!(
                find_tool_in(Some(&["semantic"]), name).unwrap().dialect,
                "semantic"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
        let ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
        let args = json!({"file": "a.py", "refactor": "rename_symbol", "symbol": "f", "new_name": "g", "dry_run": true});
        let reply = call(&ws, "file_edit", args.clone());
        assert!(!reply.is_error, "{}", reply.text);
        assert_eq!(reply.value["dry_run"], true);
        let reply = call_in(&ws, Some(&["semantic"]), "file_edit", args);
        assert!(reply.rejected, "{}", reply.text);
        assert!(
            reply.text.contains("did you mean `newName`?"),
            "{}",
            reply.text
        );
    }

    #[test]
    fn tools_are_found_by_either_name() {
        assert_eq!(find_tool("file:edit_file").unwrap().name, "file:edit_file");
        assert_eq!(find_tool("file_edit_file").unwrap().name, "file:edit_file");
        assert_eq!(
            find_tool("file_delete_file").unwrap().name,
            "file:delete_file"
        );
        assert!(find_tool("file:shred_file").is_none());
    }

    #[test]
    fn closest_names_help_with_typos() {
        assert_eq!(closest_tool_names("fs_reed")[0], "fs_read");
        assert!(closest_tool_names("read_file").contains(&"file:read_file"));
        assert_eq!(closest_tool_names("multiedit")[0], "MultiEdit");
        assert!(closest_tool_names("zzzzzzzzzzzz").is_empty());
    }

    #[test]
    fn schemas_are_objects_with_described_properties() {
        for t in tools(None) {
            let s = &t.input_schema;
            assert_eq!(s["type"], "object", "{}", t.name);
            assert!(
                s.get("$schema").is_none() && s.get("title").is_none(),
                "{}",
                t.name
            );
            let props = s["properties"].as_object().unwrap();
            // The official filesystem server describes only some properties, and its drop-in
            // costs at most 1.1x its definitions (the judged peer test): it describes the ones
            // the real server does.
            let described_as_the_real_tool = t.dialect == "mcp-filesystem";
            for (k, v) in props {
                assert!(
                    described_as_the_real_tool || v.get("description").is_some(),
                    "{}: property {k} has no description",
                    t.name
                );
            }
            let text = s.to_string();
            assert!(
                !text.contains("\"null\""),
                "{}: nullable type in schema",
                t.name
            );
            assert!(!text.contains("$ref"), "{}: unresolved $ref", t.name);
            assert!(
                t.description.len() > 80,
                "{}: description too short",
                t.name
            );
        }
    }
}
