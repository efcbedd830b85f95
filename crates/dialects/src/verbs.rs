//! What the command line's verbs run: the curated table's tools as functions of typed
//! arguments. A verb names no tool and builds no JSON; each function runs the tool's own work
//! past its argument parse (the same checks, the one write pipeline, the same reply), on a
//! call thread with a panic answered as an error, as a tool call is run.

use crate::semantic_reply::{Curated, rejected};
use crate::{ToolReply, run_typed};
use filekit_core::fsops::FsRequest;
use filekit_core::{FkError, Workspace};

pub use filekit_lsp::launch::SearchPath;
pub use filekit_patch::Format as PatchFormat;
/// The refactor layer's table of kinds and its checked request, for the verbs' flags.
pub use filekit_refactor::code_actions::{
    Arg, ArgError, ArgValue, Given, Kind, Refactor, SPECS, Scope, Selection, TypeKind,
};
pub use filekit_refactor::graph::watch_between_calls;
pub use filekit_refactor::ops::Applied;

/// Moves, copies and deletes of `req` with the import updates they need, in one atomic
/// request, as `file_move` and `manage_files` do them (`update_imports`: rewrite what names a
/// moved file; `remove_on_delete`: remove the imports of a deleted one).
pub fn file_ops(
    ws: &Workspace,
    req: FsRequest,
    update_imports: bool,
    remove_on_delete: bool,
) -> Result<Applied, FkError> {
    filekit_refactor::ops::apply(ws, req, update_imports, remove_on_delete)
}

/// What a semantic read returns of its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFormat {
    Full,
    Signature,
    Body,
    /// The outline: every symbol (key, heading) with its kind and lines.
    Summary,
}

impl ReadFormat {
    pub const ALL: [ReadFormat; 4] = [
        ReadFormat::Full,
        ReadFormat::Signature,
        ReadFormat::Body,
        ReadFormat::Summary,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ReadFormat::Full => "full",
            ReadFormat::Signature => "signature",
            ReadFormat::Body => "body",
            ReadFormat::Summary => "summary",
        }
    }

    pub fn named(name: &str) -> Option<ReadFormat> {
        ReadFormat::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A read of one file by what it is: symbols of code, a JSONPath, a CSS selector, an XPath,
/// a Markdown heading; with none of them, the file's outline.
#[derive(Debug, Clone, Default)]
pub struct SemanticRead {
    pub file: String,
    pub symbols: Vec<String>,
    pub path: Option<String>,
    pub selector: Option<String>,
    pub xpath: Option<String>,
    pub heading: Option<String>,
    pub format: Option<ReadFormat>,
    /// The file's encoding when the caller names it (else its own, detected).
    pub encoding: Option<&'static filekit_core::encoding::Encoding>,
}

/// `file_read`: the targets of `read`, or its outline.
pub fn read(ws: &Workspace, read: SemanticRead) -> ToolReply {
    let (symbol, symbols) = match <[String; 1]>::try_from(read.symbols) {
        Ok([one]) => (Some(one), None),
        Err(many) if many.is_empty() => (None, None),
        Err(many) => (None, Some(many)),
    };
    let args = crate::semantic::ReadArgs {
        file: read.file,
        symbol,
        symbols,
        path: read.path,
        selector: read.selector,
        xpath: read.xpath,
        heading: read.heading,
        around: None,
        region: None,
        format: read.format.map(|f| match f {
            ReadFormat::Full => crate::semantic::Format::Full,
            ReadFormat::Signature => crate::semantic::Format::Signature,
            ReadFormat::Body => crate::semantic::Format::Body,
            ReadFormat::Summary => crate::semantic::Format::Summary,
        }),
        include_metadata: None,
        max_lines: None,
        encoding: read.encoding.map(crate::edit_plan::EncodingLabel),
    };
    run_typed(ws, "file_read", "file_read", rejected::<Curated>, |call| {
        crate::semantic::read_with::<Curated>(call, args)
    })
}

/// `file_edit`'s refactor mode: `refactor` (checked by the refactor layer's table) done on
/// `file`, its diff in the reply; the history names the change after `verb`.
pub fn refactor(
    ws: &Workspace,
    file: String,
    refactor: Refactor,
    dry_run: bool,
    verb: &'static str,
) -> ToolReply {
    let request = crate::refactor_mode::Request {
        file,
        refactor,
        dry_run,
        preview: true,
    };
    run_typed(ws, "file_edit", verb, rejected::<Curated>, |call| {
        crate::refactor_mode::run::<Curated>(call, request)
    })
}

/// `apply_patch`: `input` in `format` (detected when `None`), a moved module's imports
/// rewritten; the history names the change after `verb`.
pub fn patch(
    ws: &Workspace,
    input: &str,
    format: Option<PatchFormat>,
    dry_run: bool,
    verb: &'static str,
) -> ToolReply {
    run_typed(
        ws,
        "apply_patch",
        verb,
        crate::apply_patch::reject,
        |call| crate::apply_patch::apply(call, input, format, dry_run, true),
    )
}

/// `lock`: leases on `paths` for this session's holder, `ttl_seconds` long (the default
/// when `None`).
pub fn lock(ws: &Workspace, paths: Vec<String>, ttl_seconds: Option<u64>) -> ToolReply {
    let args = crate::filekit::LockArgs {
        paths,
        ttl_seconds,
        holder: None,
    };
    run_typed(ws, "lock", "lock", crate::filekit::reject, |call| {
        crate::filekit::lock(call, args)
    })
}

/// `unlock`: this session's leases on `paths` released (another holder's too with `force`).
pub fn unlock(ws: &Workspace, paths: Vec<String>, force: bool) -> ToolReply {
    let args = crate::filekit::UnlockArgs {
        paths,
        holder: None,
        force: Some(force),
    };
    run_typed(ws, "unlock", "unlock", crate::filekit::reject, |call| {
        crate::filekit::unlock(call, args)
    })
}
