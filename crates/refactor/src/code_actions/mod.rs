//! The refactors of a file (`rename_symbol`, `organize_imports`,
//! `remove_unused_imports` and the code actions of the refactor table) as one [`Change`] of
//! the workspace, computed and never written: the caller sends it through the one write
//! pipeline and words the reply.
//!
//! Which route a refactor takes is decided here ([`compute`]). A language server runs the
//! workspace's code, so one is started only for a workspace the person running filekit
//! trusts ([`Workspace::is_trusted`], `--trust-workspace`), and only from outside the roots
//! (`filekit_lsp::launch`). Then, with the file's language server on PATH
//! (`typescript-language-server`, `pyright-langserver`, `rust-analyzer`), the server is asked
//! through `filekit-lsp`'s warm pool ([`server`], [`Precision::Semantic`]). Without it, rename
//! and the import clean-ups of TS/TSX/JS and Python, and the other syntactic kinds, are
//! computed on tree-sitter trees by `filekit-semantic` ([`syntactic`], [`python`],
//! [`inline_function`]; [`Precision::Syntactic`]); the other refactors need the server and
//! say why there is none: NOT_TRUSTED (how to opt in), or NOT_FOUND (how to install it, and
//! which candidates were passed over). Paths of a server's edit are resolved by
//! [`Workspace::resolve`], so an edit outside the roots is refused.

mod inline_function;
mod python;
mod server;
mod spec;
mod syntactic;
mod untyped;

/// What an extracted type is declared as (a [`Given`] and [`Refactor`] field).
pub use filekit_semantic::ts::extract_type::TypeKind;
pub use spec::{
    Arg, ArgError, ArgValue, At, ExtractCode, ExtractValue, Given, Kind, Refactor, SPECS, Scope,
    Selection, Spec,
};

use crate::source::Source;
use filekit_core::splices::{Splice, Splices};
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_lsp::{Launch, ServerKind};
use filekit_semantic::Lang;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A refactor of one file, its arguments checked against its kind's entry.
#[derive(Debug, Clone)]
pub struct Request {
    /// The file as the caller names it (the reply's paths name it so too).
    pub file: String,
    pub refactor: Refactor,
}

/// How a change was computed: by a language server, or on the syntax trees.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Precision {
    Semantic,
    Syntactic,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Semantic => "semantic",
            Precision::Syntactic => "syntactic",
        }
    }
}

/// The edit of one file: splices of its text as read, tied to that text's hash.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub source: Source,
    pub splices: Splices,
}

/// A refactor's edits of the workspace, before anything is written.
#[derive(Debug)]
pub struct Change {
    pub precision: Precision,
    /// The language server that computed it.
    pub server: Option<&'static str>,
    /// The code action applied (the server's title, or this layer's for the same choice).
    pub title: Option<String>,
    /// Per file (as the workspace names it; the file asked about as the caller named it).
    pub files: BTreeMap<String, FileChange>,
    /// New files (server refactors that create one): path and content.
    pub created: Vec<(String, String)>,
    /// The name renamed, extracted or inlined (after resolution).
    pub symbol: Option<String>,
    pub warnings: Vec<String>,
    /// A server to tell about the written files.
    notify: Option<(PathBuf, ServerKind)>,
}

impl Change {
    /// Tells the language server that computed the change (if it is still running) the texts
    /// now on disk, so that its next answer is about them. `written`: path and new text.
    pub fn written(&self, ws: &Workspace, written: &[(String, String)]) {
        let Some((root, kind)) = &self.notify else {
            return;
        };
        // The files are written: a server that cannot be told only answers from older texts
        // until it is re-synced, which the next refactor does first.
        let _ = filekit_lsp::with_running_client(root, *kind, |c| {
            for (path, text) in written {
                if let Ok(p) = ws.resolve(path) {
                    c.changed_on_disk(p.absolute(), text)?;
                }
            }
            Ok(())
        });
    }
}

/// A change being gathered: per file its text as read and splices in any order, checked as
/// one edit of each file by [`Draft::finish`].
struct Draft {
    precision: Precision,
    server: Option<&'static str>,
    title: Option<String>,
    files: BTreeMap<String, (Source, Vec<Splice>)>,
    created: Vec<(String, String)>,
    symbol: Option<String>,
    notify: Option<(PathBuf, ServerKind)>,
    warnings: Vec<String>,
}

impl Draft {
    fn new(precision: Precision) -> Draft {
        Draft {
            precision,
            server: None,
            title: None,
            files: BTreeMap::new(),
            created: vec![],
            symbol: None,
            notify: None,
            warnings: vec![],
        }
    }

    /// The change, each file's splices checked against the text they were computed on (a
    /// file with none is left out).
    fn finish(self) -> Result<Change, FkError> {
        let mut files = BTreeMap::new();
        for (path, (source, splices)) in self.files {
            if splices.is_empty() {
                continue;
            }
            let splices = Splices::new(&source.text, splices).map_err(|e| {
                FkError::new(
                    ErrorCode::Internal,
                    format!("the edits computed for {path} do not fit its text: {e}"),
                )
                .with_hint("nothing was written; report this as a filekit bug, with the request (and the language server's name if one was used)")
            })?;
            files.insert(path, FileChange { source, splices });
        }
        Ok(Change {
            precision: self.precision,
            server: self.server,
            title: self.title,
            files,
            created: self.created,
            symbol: self.symbol,
            warnings: self.warnings,
            notify: self.notify,
        })
    }
}

/// Computes a refactor of `req.file`, whose text the caller read as `src`: by the file's
/// language server where the kind's entry names it and the request is one it can take, else
/// on the syntax trees where the entry names the language.
pub fn compute(ws: &Workspace, req: &Request, src: &Source) -> Result<Change, FkError> {
    let lang = Lang::of_path(&req.file)?;
    let kind = req.refactor.kind();
    let spec = kind.spec();
    let server = if spec.served_for(&req.file) && req.refactor.server_can_take(lang) {
        Server::for_file(ws, &req.file)
    } else {
        Server::NotUsed
    };
    let draft = match server {
        Server::Ready(launch) => {
            let abs = ws.resolve(&req.file)?.absolute().to_path_buf();
            server::semantic(ws, req, src, abs, &launch).map(|mut draft| {
                draft.warnings.extend(launch.warning());
                draft
            })
        }
        ref other if spec.syntactic.contains(&lang) => {
            let draft = match lang {
                Lang::Python => python::syntactic(ws, req, src),
                _ => syntactic::syntactic(ws, req, lang, src),
            };
            draft.map(|draft| other.warn_passed_over(draft))
        }
        Server::NotTrusted(server) => Err(server.not_trusted(kind.name())),
        Server::Missing { error, .. } => {
            let mut err = error.clone();
            err.message = format!("{} needs a language server: {}", kind.name(), err.message);
            Err(err)
        }
        Server::NotUsed => Err(not_for_language(&req.file, spec)),
    };
    draft?.finish()
}

/// A kind asked of a file whose language neither the syntax trees nor a server do it for.
fn not_for_language(file: &str, spec: &Spec) -> FkError {
    let servers: Vec<&str> = spec.servers.iter().map(|s| s.command().0).collect();
    FkError::invalid(format!(
        "{file}: {} is done for {} files{}",
        spec.name,
        spec.languages(),
        if servers.is_empty() {
            String::new()
        } else {
            format!(" (and, in a trusted workspace, by {})", servers.join(", "))
        }
    ))
}

/// The language server a refactor of a file may use.
enum Server {
    /// None for this file's language, or none wanted for this request.
    NotUsed,
    /// The workspace is not trusted: no server is started (the syntactic refactors work).
    NotTrusted(ServerKind),
    /// Trusted, but no server may be started: none found outside the workspace (or its
    /// choices could not be pinned). The error says what was passed over.
    Missing {
        error: FkError,
        /// Candidates were found and refused for where they lie.
        passed_over: bool,
    },
    /// Located outside the roots, ready to start (or warm).
    Ready(Launch),
}

impl Server {
    fn for_file(ws: &Workspace, file: &str) -> Server {
        let Some(kind) = ServerKind::for_path(file) else {
            return Server::NotUsed;
        };
        if !ws.is_trusted() {
            return Server::NotTrusted(kind);
        }
        match kind.locate(ws.roots()) {
            Ok(launch) => Server::Ready(launch),
            Err(error) => {
                let passed_over = error
                    .details
                    .get("passed_over")
                    .and_then(|v| v.as_array())
                    .is_some_and(|a| !a.is_empty());
                Server::Missing { error, passed_over }
            }
        }
    }

    /// A change made without the server says which candidates were passed over, when a
    /// server was looked for and refused for where it lies.
    fn warn_passed_over(&self, mut draft: Draft) -> Draft {
        if let Server::Missing {
            error,
            passed_over: true,
        } = self
        {
            draft
                .warnings
                .push(format!("done without a language server: {}", error.message));
        }
        draft
    }
}

/// Byte offset of a (1-based line, 0-based character column) position; `what` says which
/// end of the selection it is.
pub fn byte_at(text: &str, line: usize, column: usize, what: &str) -> Result<usize, FkError> {
    let bad = || {
        FkError::invalid(format!(
            "the selection's {what} (line {line}, column {column}) is outside the file ({} lines)",
            text.lines().count()
        ))
        .with_hint("lines count from 1, columns from 0")
    };
    if line == 0 {
        return Err(bad());
    }
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n').ok_or_else(bad)? + 1;
    }
    let line_text = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
    if column > line_text.chars().count() {
        return Err(bad());
    }
    Ok(start
        + line_text
            .char_indices()
            .nth(column)
            .map_or(line_text.len(), |(i, _)| i))
}

/// The path of `file` as the file walk names it (relative to the first root, `/`-separated).
fn walk_name(ws: &Workspace, file: &str) -> Result<String, FkError> {
    let p = ws.resolve(file)?;
    Ok(if p.root_index() == 0 {
        p.relative().to_string_lossy().replace('\\', "/")
    } else {
        p.absolute().to_string_lossy().into()
    })
}

#[cfg(test)]
mod tests;
