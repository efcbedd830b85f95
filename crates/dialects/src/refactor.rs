//! The refactor mode of `file_edit` (seed 004 section 4.2): `rename_symbol`,
//! `organize_imports`, `remove_unused_imports`, and the code actions of the refactor table.
//!
//! A language server runs the workspace's code, so one is started only for a workspace the
//! person running filekit trusts ([`Workspace::is_trusted`], `--trust-workspace`), and only
//! from outside the roots (`filekit_lsp::launch`). Then, with the file's language server on
//! PATH (`typescript-language-server`, `pyright-langserver`, `rust-analyzer`), the server is
//! asked (through `filekit-lsp`'s warm pool) and the reply says `precision: "semantic"`.
//! Without it, rename and the import clean-ups of TS/TSX/JS and Python are computed on
//! tree-sitter trees by `filekit_semantic::refactor` (`precision: "syntactic"`); the other
//! refactors need the server and say why there is none: NOT_TRUSTED (how to opt in), or
//! NOT_FOUND (how to install it, and which candidates were passed over).
//!
//! Either way the edits of every file go through the one write pipeline in ONE request:
//! `Edit::Ranges` tied to the `content_hash` read, atomic across files, one history entry, a
//! dry run with diffs. Paths of a server's edit are resolved by `Workspace::resolve`, so an
//! edit outside the roots is refused.

use crate::Call;
use crate::ToolReply;
use crate::semantic::{Source, failed, load};
use crate::shape;
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits, FileStatus};
use filekit_core::{ErrorCode, FkError};
use filekit_lsp::{Client, Launch, ServerKind, WsEdit};
use filekit_semantic::Lang;
use filekit_semantic::ops::{self, Splice, Splices};
use filekit_semantic::refactor::{self as syn, Target};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

/// The refactors of 004's table.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RefactorKind {
    RenameSymbol,
    ExtractFunction,
    ExtractMethod,
    ExtractVariable,
    ExtractConstant,
    ExtractType,
    InlineVariable,
    InlineFunction,
    OrganizeImports,
    AddImport,
    RemoveUnusedImports,
    ConvertToArrow,
    ConvertToAsync,
}

impl RefactorKind {
    pub fn name(self) -> &'static str {
        match self {
            RefactorKind::RenameSymbol => "rename_symbol",
            RefactorKind::ExtractFunction => "extract_function",
            RefactorKind::ExtractMethod => "extract_method",
            RefactorKind::ExtractVariable => "extract_variable",
            RefactorKind::ExtractConstant => "extract_constant",
            RefactorKind::ExtractType => "extract_type",
            RefactorKind::InlineVariable => "inline_variable",
            RefactorKind::InlineFunction => "inline_function",
            RefactorKind::OrganizeImports => "organize_imports",
            RefactorKind::AddImport => "add_import",
            RefactorKind::RemoveUnusedImports => "remove_unused_imports",
            RefactorKind::ConvertToArrow => "convert_to_arrow",
            RefactorKind::ConvertToAsync => "convert_to_async",
        }
    }

    pub fn parse(s: &str) -> Result<RefactorKind, FkError> {
        serde_json::from_value(json!(s)).map_err(|_| {
            FkError::invalid(format!("unknown refactor `{s}`")).with_hint(format!(
                "refactors: {}",
                ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
            ))
        })
    }
}

const ALL: [RefactorKind; 13] = [
    RefactorKind::RenameSymbol,
    RefactorKind::ExtractFunction,
    RefactorKind::ExtractMethod,
    RefactorKind::ExtractVariable,
    RefactorKind::ExtractConstant,
    RefactorKind::ExtractType,
    RefactorKind::InlineVariable,
    RefactorKind::InlineFunction,
    RefactorKind::OrganizeImports,
    RefactorKind::AddImport,
    RefactorKind::RemoveUnusedImports,
    RefactorKind::ConvertToArrow,
    RefactorKind::ConvertToAsync,
];

/// A range of the file: 1-based lines, 0-based columns (characters), end exclusive.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SelectionRange {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// `file`'s refactor request, as `file_edit` and the CLI verbs give it.
#[derive(Debug, Clone)]
pub struct Request {
    pub file: String,
    pub refactor: RefactorKind,
    pub symbol: Option<String>,
    pub new_name: Option<String>,
    /// Workspace (default) or file only.
    pub workspace_scope: bool,
    pub selection: Option<SelectionRange>,
    pub extracted_name: Option<String>,
    /// extract_type: a `type` alias (default) or an `interface`.
    pub type_kind: Option<filekit_semantic::extract_type::TypeKind>,
    /// extract_variable / extract_constant: replace every identical occurrence in the same
    /// scope too, not only the selected one.
    pub replace_all: bool,
    /// add_import: the module specifier to import from, among the candidates.
    pub module: Option<String>,
    pub dry_run: bool,
    pub preview: bool,
}

/// Parses `scope`.
pub fn scope_is_workspace(scope: Option<&str>) -> Result<bool, FkError> {
    match scope {
        None | Some("workspace") => Ok(true),
        Some("file") => Ok(false),
        Some(other) => Err(FkError::invalid(format!(
            "scope must be \"file\" or \"workspace\", not \"{other}\""
        ))),
    }
}

/// Byte offset of a (1-based line, 0-based character column) position.
pub(crate) fn byte_at(
    text: &str,
    line: usize,
    column: usize,
    what: &str,
) -> Result<usize, FkError> {
    let bad = || {
        FkError::invalid(format!(
            "selectionRange {what} (line {line}, column {column}) is outside the file ({} lines)",
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

fn check(req: &Request) -> Result<(), FkError> {
    let k = req.refactor;
    let wrong = |arg: &str| {
        Err(FkError::invalid(format!(
            "`{arg}` does not apply to {}",
            k.name()
        )))
    };
    match k {
        RefactorKind::RenameSymbol => {
            let Some(n) = &req.new_name else {
                return Err(FkError::invalid("rename_symbol needs `newName`")
                    .with_hint("e.g. {\"refactor\": \"rename_symbol\", \"symbol\": \"UserService\", \"newName\": \"AuthService\"}"));
            };
            if req.symbol.is_none() && req.selection.is_none() {
                return Err(FkError::invalid(
                    "rename_symbol needs `symbol` (its name) or `selectionRange` (its position)",
                ));
            }
            let checked = if crate::python_refactor::is_python(&req.file) {
                filekit_semantic::python_refactor::check_identifier(n)
            } else {
                syn::check_identifier(n)
            };
            checked.map_err(|e| FkError {
                message: format!("newName: {}", e.message),
                ..e
            })?;
            if req.extracted_name.is_some() {
                return wrong("extractedName");
            }
        }
        RefactorKind::OrganizeImports | RefactorKind::RemoveUnusedImports => {
            for (arg, given) in [
                ("symbol", req.symbol.is_some()),
                ("newName", req.new_name.is_some()),
                ("selectionRange", req.selection.is_some()),
                ("extractedName", req.extracted_name.is_some()),
            ] {
                if given {
                    return wrong(arg);
                }
            }
        }
        _ => {
            // inline_function and inline_variable also take the name.
            let named = matches!(
                k,
                RefactorKind::InlineFunction
                    | RefactorKind::InlineVariable
                    | RefactorKind::AddImport
            ) && req.symbol.is_some();
            if req.selection.is_none() && !named {
                return Err(FkError::invalid(format!(
                    "{} needs `selectionRange`: {{startLine, startColumn, endLine, endColumn}}",
                    k.name()
                ))
                .with_hint("lines count from 1, columns from 0; the end is exclusive"));
            }
            if req.new_name.is_some() {
                return wrong("newName");
            }
            if let Some(n) = &req.extracted_name {
                if !matches!(
                    k,
                    RefactorKind::ExtractFunction
                        | RefactorKind::ExtractMethod
                        | RefactorKind::ExtractVariable
                        | RefactorKind::ExtractConstant
                        | RefactorKind::ExtractType
                ) {
                    return wrong("extractedName");
                }
                // Each language's own rules: `delete` is a fine Python name, `$x` a JS one.
                let checked = if crate::python_refactor::is_python(&req.file) {
                    filekit_semantic::python_refactor::check_identifier(n)
                } else {
                    syn::check_identifier(n)
                };
                checked.map_err(|e| FkError {
                    message: format!("extractedName: {}", e.message),
                    ..e
                })?;
            }
        }
    }
    if req.type_kind.is_some() && k != RefactorKind::ExtractType {
        return wrong("typeKind");
    }
    if req.module.is_some() && k != RefactorKind::AddImport {
        return wrong("module");
    }
    if req.replace_all
        && !matches!(
            k,
            RefactorKind::ExtractVariable | RefactorKind::ExtractConstant
        )
    {
        return wrong("replaceAll");
    }
    if let Some(s) = req.selection
        && (s.end_line, s.end_column) < (s.start_line, s.start_column)
    {
        return Err(FkError::invalid("selectionRange ends before it starts"));
    }
    Ok(())
}

/// Runs a refactor and answers with 004's FileEditResult.
pub fn run(ws: &Call, req: Request) -> Result<ToolReply, FkError> {
    check(&req)?;
    let resolved = ws.resolve(&req.file)?;
    if !req.dry_run {
        ws.check_writable(&resolved)?;
    }
    let lang = Lang::of_path(&req.file)?;
    let src = match load(ws, &req.file) {
        Ok(s) => s,
        Err(err) => return Ok(failed(&req.file, &err)),
    };
    // A file-scoped rename of TS/JS keeps the names other modules see (`old as new`), which
    // the server's rename (through to the declaration) does not: it is done syntactically.
    let file_scoped_rename = req.refactor == RefactorKind::RenameSymbol
        && !req.workspace_scope
        && matches!(
            lang,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Python
        );
    let server = if file_scoped_rename {
        Server::NotUsed
    } else {
        Server::for_file(ws, &req.file)
    };
    // tsserver offers no inline function: it is done on the syntax trees, server or not.
    let inline_ts = req.refactor == RefactorKind::InlineFunction
        && matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript);
    // tsserver's extract to a type alias is the server's; an interface is asked for by name.
    let interface_ts = req.type_kind == Some(filekit_semantic::extract_type::TypeKind::Interface)
        && matches!(lang, Lang::TypeScript | Lang::Tsx);
    // Every occurrence, and an inline by name, are this layer's own: the servers extract the
    // selection only and inline at a position.
    let own = req.replace_all
        || (req.refactor == RefactorKind::InlineVariable
            && req.selection.is_none()
            && matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript))
        // The server's quick fix takes neither a name nor the module to import from.
        || (req.refactor == RefactorKind::AddImport
            && (req.selection.is_none() || req.module.is_some()));
    let result = match server {
        _ if inline_ts => crate::inline::inline_function(ws, &req, lang, &src),
        _ if interface_ts || own => syntactic(ws, &req, lang, &src),
        // pyright offers no extract, inline variable or convert to async refactors and no
        // import quick fix: Python's are done on the syntax trees, server or not (issue 28).
        _ if lang == Lang::Python
            && matches!(
                req.refactor,
                RefactorKind::ExtractVariable
                    | RefactorKind::ExtractConstant
                    | RefactorKind::ExtractFunction
                    | RefactorKind::ExtractMethod
                    | RefactorKind::InlineVariable
                    | RefactorKind::ConvertToAsync
                    | RefactorKind::AddImport
            ) =>
        {
            syntactic(ws, &req, lang, &src)
        }
        // Python: pyright renames; the import clean-ups are isort's, syntactic.
        ref s
            if lang == Lang::Python
                && match req.refactor {
                    RefactorKind::RenameSymbol => !matches!(s, Server::Ready(_)),
                    RefactorKind::OrganizeImports | RefactorKind::RemoveUnusedImports => true,
                    _ => false,
                } =>
        {
            crate::python_refactor::syntactic(ws, &req, &src)
                .map(|plan| server.warn_passed_over(plan))
        }
        Server::Ready(launch) => {
            semantic(ws, &req, &src, resolved.absolute().to_path_buf(), &launch).map(|mut plan| {
                plan.warnings.extend(launch.warning());
                plan
            })
        }
        ref other => {
            let syntactic_ok = (matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
                && matches!(
                    req.refactor,
                    RefactorKind::RenameSymbol
                        | RefactorKind::OrganizeImports
                        | RefactorKind::RemoveUnusedImports
                        | RefactorKind::ExtractVariable
                        | RefactorKind::ExtractConstant
                        | RefactorKind::ExtractFunction
                        | RefactorKind::ExtractMethod
                        | RefactorKind::InlineVariable
                        | RefactorKind::ConvertToArrow
                        | RefactorKind::ConvertToAsync
                        | RefactorKind::AddImport
                ))
                || (matches!(lang, Lang::TypeScript | Lang::Tsx)
                    && req.refactor == RefactorKind::ExtractType)
                || (lang == Lang::Python
                    && matches!(
                        req.refactor,
                        RefactorKind::ExtractVariable
                            | RefactorKind::ExtractConstant
                            | RefactorKind::ExtractFunction
                            | RefactorKind::ExtractMethod
                            | RefactorKind::AddImport
                    ));
            if !syntactic_ok {
                let err = match other {
                    Server::NotTrusted(kind) => kind.not_trusted(req.refactor.name()),
                    Server::Missing(err) => {
                        let mut err = err.clone();
                        err.message = format!(
                            "{} needs a language server: {}",
                            req.refactor.name(),
                            err.message
                        );
                        err
                    }
                    Server::NotUsed | Server::Ready(_) => FkError::invalid(format!(
                        "{}: {} is built for TS/TSX/JS (and, with their language servers, Python and Rust)",
                        req.file,
                        req.refactor.name()
                    )),
                };
                return Ok(failed(&req.file, &err));
            }
            syntactic(ws, &req, lang, &src).map(|plan| other.warn_passed_over(plan))
        }
    };
    match result {
        Ok(plan) => write(ws, &req, plan),
        Err(err) => Ok(failed(&req.file, &err)),
    }
}

/// The language server a refactor of a file may use.
enum Server {
    /// None for this file's language, or none wanted for this request.
    NotUsed,
    /// The workspace is not trusted: no server is started (the syntactic refactors work).
    NotTrusted(ServerKind),
    /// Trusted, but no server may be started: none found outside the workspace (or its
    /// choices could not be pinned). The error says what was passed over.
    Missing(FkError),
    /// Located outside the roots, ready to start (or warm).
    Ready(Launch),
}

impl Server {
    fn for_file(ws: &Call, file: &str) -> Server {
        let Some(kind) = ServerKind::for_path(file) else {
            return Server::NotUsed;
        };
        if !ws.is_trusted() {
            return Server::NotTrusted(kind);
        }
        match kind.locate(ws.roots()) {
            Ok(launch) => Server::Ready(launch),
            Err(err) => Server::Missing(err),
        }
    }

    /// A plan made without the server says which candidates were passed over, when a server
    /// was looked for and refused for where it lies.
    fn warn_passed_over(&self, mut plan: Plan) -> Plan {
        if let Server::Missing(err) = self
            && err
                .details
                .get("passed_over")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        {
            plan.warnings
                .push(format!("done without a language server: {}", err.message));
        }
        plan
    }
}

/// The edits of a refactor, before writing.
pub(crate) struct Plan {
    pub(crate) precision: &'static str,
    pub(crate) server: Option<&'static str>,
    /// The code action the server applied.
    pub(crate) title: Option<String>,
    /// Per file (as the workspace names it): its text as read, hash, splices.
    pub(crate) files: BTreeMap<String, (Source, Vec<Splice>)>,
    /// New files (server refactors that create one): path and content.
    pub(crate) created: Vec<(String, String)>,
    /// The name renamed (after resolution).
    pub(crate) symbol: Option<String>,
    /// A server to tell about the written files.
    pub(crate) notify: Option<(PathBuf, ServerKind)>,
    pub(crate) warnings: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Without a server

/// A file as the import graph parsed it, as the pipeline reads it (without a UTF-8 BOM, which
/// the graph's text keeps), with `splices` on the graph's text moved onto it.
fn graph_source(
    p: &filekit_refactor::graph::Parsed,
    splices: Vec<Splice>,
) -> (Source, Vec<Splice>) {
    const BOM: &str = "\u{feff}";
    let skip = if p.text.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let src = Source {
        text: p.text[skip..].to_string(),
        hash: p.hash.clone(),
    };
    let splices = splices
        .into_iter()
        .map(|s| {
            Splice::new(
                s.start.saturating_sub(skip),
                s.end.saturating_sub(skip),
                s.text,
            )
        })
        .collect();
    (src, splices)
}

/// The path of `file` as the file walk names it (relative to the first root, `/`-separated).
pub(crate) fn walk_name(ws: &Call, file: &str) -> Result<String, FkError> {
    let p = ws.resolve(file)?;
    Ok(if p.root_index() == 0 {
        p.relative().to_string_lossy().replace('\\', "/")
    } else {
        p.absolute().to_string_lossy().into()
    })
}

fn syntactic(ws: &Call, req: &Request, lang: Lang, src: &Source) -> Result<Plan, FkError> {
    let mut plan = Plan {
        precision: "syntactic",
        server: None,
        title: None,
        files: BTreeMap::new(),
        created: vec![],
        symbol: None,
        notify: None,
        warnings: vec![],
    };
    let text = src.text.as_str();
    match req.refactor {
        RefactorKind::OrganizeImports => {
            let s = syn::organize_imports(lang, text)?;
            plan.files.insert(req.file.clone(), (src.clone(), s));
        }
        RefactorKind::RemoveUnusedImports => {
            let s = syn::remove_unused_imports(lang, text)?;
            plan.files.insert(req.file.clone(), (src.clone(), s));
        }
        RefactorKind::RenameSymbol => {
            let new = req.new_name.as_deref().expect("checked");
            let target = match (req.selection, &req.symbol) {
                (Some(s), _) => Target::At(byte_at(text, s.start_line, s.start_column, "start")?),
                (None, Some(name)) => Target::Name(name.clone()),
                (None, None) => unreachable!("checked"),
            };
            let keep_public = !req.workspace_scope;
            let mut r = syn::rename_in_file(lang, text, &target, new, keep_public)?;
            plan.symbol = Some(r.name.clone());
            let mut origin = walk_name(ws, &req.file)?;
            let mut origin_src = src.clone();
            if !req.workspace_scope {
                if r.exported {
                    plan.warnings.push(format!(
                        "`{}` is exported: with scope \"file\" the files that import it are not changed",
                        r.name
                    ));
                }
                plan.files
                    .insert(req.file.clone(), (src.clone(), r.splices));
                return Ok(plan);
            }
            // One walk and one resolver: the import graph's (kept warm by a server).
            let graph = filekit_refactor::graph::build(ws)?;
            // An imported name is renamed where it is declared.
            if let Some(spec) = r.imported_from.clone() {
                let Some(def) = filekit_refactor::rename::resolve_specifier(&graph, &origin, &spec)
                else {
                    return Err(FkError::invalid(format!(
                        "`{}` is imported from '{spec}', which is not a file of the workspace",
                        r.name
                    ))
                    .with_hint("rename the local name only with scope \"file\""));
                };
                origin_src = match graph.code.get(&def) {
                    Some(p) => graph_source(p, vec![]).0,
                    None => load(ws, &def)?,
                };
                let def_lang = Lang::of_path(&def)?;
                r = syn::rename_in_file(
                    def_lang,
                    &origin_src.text,
                    &Target::Name(r.name.clone()),
                    new,
                    false,
                )?;
                origin = def;
            }
            let old = r.name.clone();
            let exported = r.exported;
            plan.files
                .insert(origin.clone(), (origin_src.clone(), r.splices));
            if exported {
                // Importers by name, and through re-exports, their importers.
                let changes =
                    filekit_refactor::rename::rename_in_importers(&graph, &origin, &old, new)?;
                for (f, c) in changes {
                    let (fsrc, splices) = graph_source(&c.parsed, c.splices);
                    let entry = plan.files.entry(f).or_insert_with(|| (fsrc, vec![]));
                    let have: HashSet<usize> = entry.1.iter().map(|s| s.start).collect();
                    entry
                        .1
                        .extend(splices.into_iter().filter(|s| !have.contains(&s.start)));
                    entry.1.sort_by_key(|s| s.start);
                }
            }
        }
        RefactorKind::ExtractVariable | RefactorKind::ExtractConstant => {
            // issue 28: the engine's kinds, on the syntax tree.
            use filekit_semantic::{extract, python_extract};
            let sel = req.selection.expect("checked");
            let start = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let end = byte_at(text, sel.end_line, sel.end_column, "end")?;
            let constant = req.refactor == RefactorKind::ExtractConstant;
            let default = if constant { "EXTRACTED" } else { "extracted" };
            let name = req.extracted_name.clone().unwrap_or_else(|| default.into());
            let x = match (lang, constant) {
                (Lang::Python, false) => {
                    python_extract::extract_variable(text, start..end, &name, req.replace_all)?
                }
                (Lang::Python, true) => {
                    python_extract::extract_constant(text, start..end, &name, req.replace_all)?
                }
                (_, false) => {
                    extract::extract_variable(lang, text, start..end, &name, req.replace_all)?
                }
                (_, true) => {
                    extract::extract_constant(lang, text, start..end, &name, req.replace_all)?
                }
            };
            if constant {
                // Where the constant went, in tsserver's words for the same choice (in Python,
                // "enclosing scope" is a local assignment: the language has no constants).
                plan.title = Some(
                    if x.module_level {
                        "Extract to constant in module scope"
                    } else {
                        "Extract to constant in enclosing scope"
                    }
                    .into(),
                );
            }
            plan.symbol = Some(name);
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        RefactorKind::ExtractType => {
            use filekit_semantic::extract_type::{TypeKind, extract_type};
            let sel = req.selection.expect("checked");
            let start = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let end = byte_at(text, sel.end_line, sel.end_column, "end")?;
            let name = req
                .extracted_name
                .clone()
                .unwrap_or_else(|| "ExtractedType".into());
            let kind = req.type_kind.unwrap_or(TypeKind::Alias);
            let x = extract_type(lang, text, start..end, &name, kind)?;
            plan.symbol = Some(name);
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        RefactorKind::ExtractFunction | RefactorKind::ExtractMethod => {
            use filekit_semantic::{extract_function, python_extract_function};
            let sel = req.selection.expect("checked");
            let start = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let end = byte_at(text, sel.end_line, sel.end_column, "end")?;
            let method = req.refactor == RefactorKind::ExtractMethod;
            let name = req
                .extracted_name
                .clone()
                .unwrap_or_else(|| "extracted".into());
            let x = match lang {
                Lang::Python => {
                    python_extract_function::extract_function(text, start..end, &name, method)?
                }
                _ => extract_function::extract_function(lang, text, start..end, &name, method)?,
            };
            if let Some(class) = &x.class {
                implemented_elsewhere(ws, class, &name)?;
            }
            plan.warnings.extend(x.untyped.iter().map(|u| {
                format!("parameter {u}: it is left untyped, which `noImplicitAny` (part of `strict`) refuses; give it its type")
            }));
            plan.warnings.extend(x.warnings);
            plan.symbol = Some(name);
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        RefactorKind::InlineVariable => {
            let target = match (req.selection, &req.symbol) {
                (Some(sel), _) => {
                    Target::At(byte_at(text, sel.start_line, sel.start_column, "start")?)
                }
                (None, Some(name)) => Target::Name(name.clone()),
                (None, None) => unreachable!("checked"),
            };
            let (name, splices) = if lang == Lang::Python {
                use filekit_semantic::python_refactor::Target as PyTarget;
                let target = match target {
                    Target::At(at) => PyTarget::At(at),
                    Target::Name(n) => PyTarget::Name(n),
                };
                let x = filekit_semantic::python_refactor::inline_variable::inline_variable(
                    text, &target,
                )?;
                if x.module_level {
                    crate::python_refactor::not_imported(ws, &req.file, &x.name)?;
                }
                (x.name, x.splices)
            } else {
                let x = filekit_semantic::inline_variable::inline_variable(lang, text, &target)?;
                (x.name, x.splices)
            };
            plan.symbol = Some(name);
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&splices)));
        }
        RefactorKind::ConvertToArrow => {
            let sel = req.selection.expect("checked");
            let at = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let x = filekit_semantic::convert::convert_to_arrow(lang, text, at)?;
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        RefactorKind::ConvertToAsync => {
            let sel = req.selection.expect("checked");
            let at = byte_at(text, sel.start_line, sel.start_column, "start")?;
            let x = if lang == Lang::Python {
                filekit_semantic::python_refactor::convert_async::convert_to_async(text, at)?
            } else {
                filekit_semantic::convert_async::convert_to_async(lang, text, at)?
            };
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x)));
        }
        RefactorKind::AddImport => {
            // The candidates are the refactor layer's (the import graph), the edit semantic's.
            let target = match (req.selection, &req.symbol) {
                (Some(sel), _) => {
                    Target::At(byte_at(text, sel.start_line, sel.start_column, "start")?)
                }
                (None, Some(name)) => Target::Name(name.clone()),
                (None, None) => unreachable!("checked"),
            };
            let me = walk_name(ws, &req.file)?;
            let x = filekit_refactor::add_import::add_import(
                ws,
                &me,
                text,
                &target,
                req.module.as_deref(),
            )?;
            plan.symbol = Some(x.name);
            plan.title = Some(format!(
                "import from '{}' ({})",
                x.chosen.module,
                x.chosen.export.as_str()
            ));
            plan.files
                .insert(req.file.clone(), (src.clone(), listed(&x.splices)));
        }
        _ => unreachable!("only the syntactic refactors come here"),
    }
    Ok(plan)
}

/// Refuses a new method of `class` when a TS class of the workspace `implements` it: that
/// class would then lack the method.
fn implemented_elsewhere(ws: &Call, class: &str, name: &str) -> Result<(), FkError> {
    use filekit_core::search::grep::{GrepOptions, OutputMode, grep};
    let found = grep(
        ws,
        &GrepOptions {
            pattern: filekit_semantic::extract_function::implements_pattern(class),
            glob: Some("*.{ts,tsx,mts,cts}".into()),
            mode: OutputMode::FilesWithMatches,
            head_limit: Some(1),
            ..Default::default()
        },
    )?;
    if let Some(f) = found.files.first() {
        return Err(FkError::new(
            ErrorCode::Conflict,
            format!(
                "a class in {} implements `{class}`: it would lack the new method `{name}`",
                f.path
            ),
        )
        .with_hint("use extract_function, or add the method to the classes that implement it"));
    }
    Ok(())
}

/// The engine's edit value as the plan's list of splices (checked again as one edit when
/// written).
fn listed(s: &filekit_core::splices::Splices) -> Vec<Splice> {
    s.iter().cloned().collect()
}

// ---------------------------------------------------------------------------------------------
// With a server

/// What a refactor kind is among a TypeScript server's code actions.
struct Wanted {
    /// `only` kinds to ask for.
    only: &'static [&'static str],
    /// A diagnostic code to send with the request (quick fixes answer to diagnostics).
    diagnostic: Option<(i64, &'static str)>,
    /// Does an action fit?
    fits: fn(kind: &str, title: &str) -> bool,
    /// Among fitting actions, prefer the last (outermost scope) rather than the first.
    outermost: bool,
    /// The name the server gives what it extracts.
    default_names: &'static [&'static str],
}

fn wanted(k: RefactorKind) -> Wanted {
    let w = |only, fits, outermost, default_names| Wanted {
        only,
        diagnostic: None,
        fits,
        outermost,
        default_names,
    };
    match k {
        RefactorKind::ExtractFunction => w(
            &["refactor.extract"],
            |k, t| {
                k.starts_with("refactor.extract.function") && !t.starts_with("Extract to method")
            },
            true,
            &["newFunction"],
        ),
        RefactorKind::ExtractMethod => w(
            &["refactor.extract"],
            |k, t| k.starts_with("refactor.extract.function") && t.starts_with("Extract to method"),
            false,
            &["newMethod"],
        ),
        RefactorKind::ExtractVariable => w(
            &["refactor.extract"],
            |k, _| k.starts_with("refactor.extract.constant"),
            false,
            &["newLocal"],
        ),
        RefactorKind::ExtractConstant => w(
            &["refactor.extract"],
            |k, _| k.starts_with("refactor.extract.constant"),
            true,
            &["newLocal"],
        ),
        RefactorKind::ExtractType => w(
            &["refactor.extract"],
            |k, t| k.starts_with("refactor.extract.type") || t.contains("type alias"),
            false,
            &["NewType"],
        ),
        RefactorKind::InlineVariable => w(
            &["refactor.inline"],
            |k, t| k.starts_with("refactor.inline.variable") || t == "Inline variable",
            false,
            &[],
        ),
        RefactorKind::InlineFunction => w(
            &["refactor.inline"],
            |k, t| k.starts_with("refactor.inline.function") || t.contains("Inline function"),
            false,
            &[],
        ),
        RefactorKind::ConvertToArrow => w(
            &["refactor.rewrite"],
            |k, t| k.starts_with("refactor.rewrite.function.arrow") || t.contains("arrow function"),
            false,
            &[],
        ),
        RefactorKind::ConvertToAsync => Wanted {
            only: &["quickfix"],
            diagnostic: Some((80006, "This may be converted to an async function.")),
            fits: |_, t| t.contains("async function"),
            outermost: false,
            default_names: &[],
        },
        RefactorKind::AddImport => Wanted {
            only: &["quickfix"],
            diagnostic: Some((2304, "Cannot find name.")),
            fits: |_, t| t.starts_with("Add import") || t.starts_with("Update import"),
            outermost: false,
            default_names: &[],
        },
        RefactorKind::RenameSymbol
        | RefactorKind::OrganizeImports
        | RefactorKind::RemoveUnusedImports => unreachable!("not code actions of a range"),
    }
}

fn title_of(a: &Value) -> String {
    a.get("title")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn semantic(
    ws: &Call,
    req: &Request,
    src: &Source,
    abs: PathBuf,
    launch: &Launch,
) -> Result<Plan, FkError> {
    let kind = launch.kind;
    let root = ws.roots()[0].clone();
    let text = src.text.as_str();
    let server_name = kind.command().0;
    filekit_lsp::with_client(launch, &root, |c| {
        resync(ws, c)?;
        let unit = ops::indent_unit(text, "  ");
        if unit.starts_with('\t') {
            c.set_indent(4, false);
        } else {
            c.set_indent(unit.len().max(1) as u32, true);
        }
        c.sync(&abs, text)?;
        let mut title = None;
        let mut symbol = req.symbol.clone();
        let lsp_range = |s: SelectionRange| -> Result<filekit_lsp::LspRange, FkError> {
            let a = byte_at(text, s.start_line, s.start_column, "start")?;
            let b = byte_at(text, s.end_line, s.end_column, "end")?;
            Ok((
                filekit_lsp::position(text, a),
                filekit_lsp::position(text, b),
            ))
        };
        let edit: WsEdit = match req.refactor {
            RefactorKind::RenameSymbol => {
                let new = req.new_name.as_deref().expect("checked");
                let at = match (req.selection, &req.symbol) {
                    (Some(s), _) => byte_at(text, s.start_line, s.start_column, "start")?,
                    (None, Some(name)) => declaration_offset(ws, &req.file, text, name)?,
                    (None, None) => unreachable!("checked"),
                };
                if symbol.is_none() {
                    symbol = Some(word_at(text, at));
                }
                if kind == ServerKind::Python {
                    // pyright finds forward references in strings (`"Foo"` annotations) only
                    // in a file it has checked: let it check the declaring file first.
                    c.wait_diagnostics(&abs, std::time::Duration::from_secs(30))?;
                }
                let e = c.rename(&abs, filekit_lsp::position(text, at), new)?;
                if !req.workspace_scope {
                    // File scope: only this file's edits.
                    let mut only = WsEdit::default();
                    if let Some(v) = e.files.get(&abs) {
                        only.files.insert(abs.clone(), v.clone());
                    }
                    only
                } else {
                    e
                }
            }
            RefactorKind::OrganizeImports if kind == ServerKind::TypeScript => c.execute(
                "_typescript.organizeImports",
                json!([abs.to_string_lossy()]),
            )?,
            RefactorKind::OrganizeImports | RefactorKind::RemoveUnusedImports => {
                let only: &[&str] = match (req.refactor, kind) {
                    (RefactorKind::RemoveUnusedImports, ServerKind::TypeScript) => {
                        &["source.removeUnusedImports.ts"]
                    }
                    (RefactorKind::RemoveUnusedImports, _) => {
                        return Err(FkError::invalid(format!(
                            "remove_unused_imports is built for TS/JS; {server_name} offers organize_imports"
                        )));
                    }
                    _ => &["source.organizeImports"],
                };
                let end = filekit_lsp::position(text, text.len());
                let actions = c.code_actions(&abs, ((0, 0), end), Some(only), json!([]))?;
                match actions.first() {
                    Some(a) => {
                        title = Some(title_of(a));
                        c.perform(a)?
                    }
                    None => WsEdit::default(),
                }
            }
            other => {
                if kind != ServerKind::TypeScript {
                    return Err(FkError::invalid(format!(
                        "{} is built on typescript-language-server's refactors (TS/JS files)",
                        other.name()
                    )));
                }
                let range = lsp_range(req.selection.expect("checked"))?;
                let w = wanted(other);
                if w.diagnostic.is_some() {
                    // The server computes quick fixes only once its diagnostics are in.
                    c.wait_diagnostics(&abs, std::time::Duration::from_secs(20))?;
                }
                let diagnostics = match w.diagnostic {
                    Some((code, message)) => json!([{
                        "range": {"start": {"line": range.0.0, "character": range.0.1}, "end": {"line": range.1.0, "character": range.1.1}},
                        "code": code, "message": message, "severity": 4, "source": "typescript"
                    }]),
                    None => json!([]),
                };
                let actions = c.code_actions(&abs, range, Some(w.only), diagnostics)?;
                let fitting: Vec<&Value> = actions
                    .iter()
                    .filter(|a| {
                        let k = a.get("kind").and_then(Value::as_str).unwrap_or("");
                        (w.fits)(k, &title_of(a))
                    })
                    .collect();
                let chosen = if w.outermost {
                    fitting.last()
                } else {
                    fitting.first()
                };
                let Some(action) = chosen else {
                    // What the server does offer there.
                    let all = c.code_actions(&abs, range, None, json!([]))?;
                    let mut offered: Vec<String> = all.iter().map(title_of).collect();
                    offered.extend(actions.iter().map(title_of));
                    offered.sort();
                    offered.dedup();
                    let s = req.selection.expect("checked");
                    return Err(FkError::new(
                        ErrorCode::NotFound,
                        format!(
                            "{server_name} offers no {} at lines {}:{}-{}:{} of {}",
                            other.name(),
                            s.start_line,
                            s.start_column,
                            s.end_line,
                            s.end_column,
                            req.file
                        ),
                    )
                    .with_hint(if offered.is_empty() {
                        "it offers no refactor there: select a whole expression, statement or function".to_string()
                    } else {
                        format!("it offers there: {}", offered.join("; "))
                    })
                    .with_details(json!({"offered": offered})));
                };
                title = Some(title_of(action));
                let mut e = c.perform(action)?;
                if let Some(name) = &req.extracted_name {
                    rename_extracted(&mut e, w.default_names, name);
                }
                e
            }
        };
        if !edit.unsupported.is_empty() {
            return Err(FkError::invalid(format!(
                "the server's edit also {}: filekit applies text edits and new files only",
                edit.unsupported.join(", ")
            )));
        }
        let mut plan = to_plan(ws, &abs, src, &req.file, edit)?;
        plan.server = Some(server_name);
        plan.title = title;
        plan.symbol = symbol;
        plan.notify = Some((root.clone(), kind));
        Ok(plan)
    })
}

/// The word (identifier) at a byte offset.
fn word_at(text: &str, at: usize) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| at + i);
    text[start..end].to_string()
}

/// Where a named symbol is declared in a file: the name of its definition (by path, as
/// `file_read` names symbols, `Class.method` too), else its module-level binding.
fn declaration_offset(_ws: &Call, file: &str, text: &str, name: &str) -> Result<usize, FkError> {
    let lang = Lang::of_path(file)?;
    let code = filekit_semantic::code::Code::parse(lang, text)?;
    let found = match code.find(name) {
        Ok(f) => f,
        Err(err) => {
            // Not a definition of this file: an imported name, a local, a parameter. Any
            // occurrence of the binding does for the server; the syntactic scopes find one.
            if matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
                && let Ok(r) =
                    syn::rename_in_file(lang, text, &Target::Name(name.to_string()), "x", true)
                && let Some(first) = r.splices.first()
            {
                return Ok(first.start);
            }
            if lang == Lang::Python {
                return filekit_semantic::python_refactor::binding_offset(
                    text,
                    &filekit_semantic::python_refactor::Target::Name(name.to_string()),
                );
            }
            return Err(err);
        }
    };
    let range = found.range.clone();
    // The name inside the definition's text (after `export`, `class`, `function`...).
    let seg = &text[range.clone()];
    let last = found.name.as_str();
    let bytes = seg.as_bytes();
    let mut from = 0;
    while let Some(i) = seg[from..].find(last) {
        let s = from + i;
        let e = s + last.len();
        let before_ok = s == 0
            || !(bytes[s - 1].is_ascii_alphanumeric()
                || bytes[s - 1] == b'_'
                || bytes[s - 1] == b'$');
        let after_ok = e >= bytes.len()
            || !(bytes[e].is_ascii_alphanumeric() || bytes[e] == b'_' || bytes[e] == b'$');
        if before_ok && after_ok {
            return Ok(range.start + s);
        }
        from = e;
    }
    Err(FkError::new(
        ErrorCode::NotFound,
        format!("could not find the name of `{name}` in its definition"),
    )
    .with_hint("give selectionRange with its start on the name"))
}

/// Renames what a server extracted under its default name (`newFunction`, `newLocal`,
/// `NewType`, with a `_1` suffix when taken) to the name asked for: every whole-word
/// occurrence in the new texts of the edit (the declaration and its uses are all there).
fn rename_extracted(e: &mut WsEdit, defaults: &[&str], name: &str) {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    for edits in e.files.values_mut() {
        for te in edits.iter_mut() {
            for d in defaults {
                let mut out = String::new();
                let t = te.new_text.clone();
                let b = t.as_bytes();
                let mut i = 0;
                while let Some(p) = t[i..].find(d) {
                    let s = i + p;
                    let mut e_ = s + d.len();
                    // `newFunction_1`
                    if t[e_..].starts_with('_') {
                        let digits = t[e_ + 1..].bytes().take_while(u8::is_ascii_digit).count();
                        if digits > 0 {
                            e_ += 1 + digits;
                        }
                    }
                    let ok = (s == 0 || !is_word(b[s - 1])) && (e_ >= b.len() || !is_word(b[e_]));
                    out.push_str(&t[i..s]);
                    out.push_str(if ok { name } else { &t[s..e_] });
                    i = e_;
                }
                out.push_str(&t[i..]);
                te.new_text = out;
            }
        }
    }
}

/// Re-sends the documents the server has open with their text on disk now (another process,
/// or an earlier call, may have changed them); closes those that are gone.
fn resync(ws: &Call, c: &mut Client) -> Result<(), FkError> {
    for p in c.open_documents() {
        let s = p.to_string_lossy().to_string();
        match load(ws, &s) {
            Ok(src) => c.sync(&p, &src.text)?,
            Err(_) => c.close(&p)?,
        }
    }
    Ok(())
}

/// A server's workspace edit as splices of the files as read.
fn to_plan(
    ws: &Call,
    abs: &std::path::Path,
    src: &Source,
    file: &str,
    edit: WsEdit,
) -> Result<Plan, FkError> {
    let mut plan = Plan {
        precision: "semantic",
        server: None,
        title: None,
        files: BTreeMap::new(),
        created: vec![],
        symbol: None,
        notify: None,
        warnings: vec![],
    };
    let created: HashSet<PathBuf> = edit.created.iter().cloned().collect();
    for (path, edits) in edit.files {
        if edits.is_empty() {
            continue;
        }
        let name = path.to_string_lossy().to_string();
        // The sandbox decides: a path outside the roots is refused here.
        let wp = ws.resolve(&name)?;
        let display = if path == abs {
            file.to_string()
        } else if wp.root_index() == 0 {
            wp.relative().to_string_lossy().to_string()
        } else {
            name.clone()
        };
        let exists = ws.metadata(&wp)?.is_some();
        if created.contains(&path) && !exists {
            let mut sorted = edits.clone();
            sorted.sort_by_key(|e| e.start);
            let content: String = sorted.iter().map(|e| e.new_text.as_str()).collect();
            plan.created.push((display, content));
            continue;
        }
        let fsrc = if path == abs {
            src.clone()
        } else {
            load(ws, &name)?
        };
        let t = fsrc.text.as_str();
        // The first place the server's positions meet the text: they become byte splices
        // here, checked as one edit of the file when it is written.
        let mut splices: Vec<Splice> = edits
            .iter()
            .map(|e| {
                Splice::new(
                    filekit_lsp::offset(t, e.start.0, e.start.1),
                    filekit_lsp::offset(t, e.end.0, e.end.1),
                    e.new_text.clone(),
                )
            })
            .collect();
        splices.sort_by_key(|s| (s.start, s.end));
        // Several inserts at one place are one insert, in the server's order.
        let mut merged: Vec<Splice> = Vec::new();
        for s in splices {
            match merged.last_mut() {
                Some(l) if l.start == s.start && l.end == l.start && s.end == s.start => {
                    l.text.push_str(&s.text)
                }
                _ => merged.push(s),
            }
        }
        plan.files.insert(display, (fsrc, merged));
    }
    for p in &edit.created {
        let name = p.to_string_lossy().to_string();
        ws.resolve(&name)?;
    }
    Ok(plan)
}

// ---------------------------------------------------------------------------------------------
// Writing and the reply

fn write(ws: &Call, req: &Request, plan: Plan) -> Result<ToolReply, FkError> {
    let Plan {
        precision,
        server,
        title,
        files,
        created,
        symbol,
        notify,
        warnings,
    } = plan;
    let mut changes = Vec::new();
    let mut file_edits = Vec::new();
    let mut total = 0;
    let mut new_texts: Vec<(String, String)> = Vec::new();
    for (path, (src, splices)) in &files {
        if splices.is_empty() {
            continue;
        }
        let text = src.text.as_str();
        // One edit of the file as read, checked before anything is shown or written.
        let checked = Splices::new(text, splices.clone()).map_err(|e| {
            FkError::new(
                ErrorCode::Internal,
                format!("the edits computed for {path} do not fit its text: {e}"),
            )
            .with_hint("nothing was written; report this as a filekit bug, with the request (and the language server's name if one was used)")
        })?;
        let lines = filekit_semantic::Lines::new(text);
        let edits: Vec<Value> = splices
            .iter()
            .map(|s| {
                let (a, b) = (lines.position(s.start), lines.position(s.end));
                let ty = if s.start == s.end {
                    "insert"
                } else if s.text.is_empty() {
                    "delete"
                } else {
                    "replace"
                };
                let mut v = json!({"type": ty, "range": {"start": [a.line, a.column], "end": [b.line, b.column]}});
                if req.preview || req.dry_run {
                    v["oldContent"] = json!(&text[s.start..s.end]);
                    v["newContent"] = json!(s.text);
                }
                v
            })
            .collect();
        total += edits.len();
        changes.push(json!({"file": path, "edits": edits}));
        new_texts.push((path.clone(), checked.apply(text)?));
        file_edits.push(FileEdits {
            path: path.clone(),
            base_hash: None,
            edits: vec![Edit::Ranges {
                ranges: splices.clone(),
                content_hash: src.hash.clone(),
            }],
        });
    }
    for (path, content) in &created {
        total += 1;
        changes.push(json!({"file": path, "edits": [{"type": "insert", "range": {"start": [1, 0], "end": [1, 0]}, "newContent": content}]}));
        new_texts.push((path.clone(), content.clone()));
        file_edits.push(FileEdits {
            path: path.clone(),
            base_hash: None,
            edits: vec![Edit::Create {
                content: content.clone(),
                overwrite: false,
            }],
        });
    }
    let name = req.refactor.name();
    if file_edits.is_empty() {
        let summary = format!("{name}: nothing to change in {}", req.file);
        let value = json!({
            "success": true, "refactor": name, "file": req.file, "precision": precision,
            "server": server, "filesAffected": [], "totalEdits": 0, "changes": [],
            "summary": summary, "dryRun": req.dry_run,
        });
        return Ok(ToolReply::new(value, false, summary));
    }
    let request = EditRequest {
        files: file_edits,
        options: EditOptions::builder()
            .dry_run(req.dry_run)
            .atomic(true)
            .build(),
    };
    let report = ws.apply(request);
    for fr in &report.files {
        if let Some(err) = shape::first_error(fr) {
            let err = FkError {
                message: format!("{}: {}", fr.path, err.message),
                ..err.clone()
            };
            let mut r = failed(&req.file, &err);
            r.value["rolledBack"] = json!(true);
            return Ok(r);
        }
    }
    // The server sees what was written.
    if !req.dry_run
        && let Some((root, kind)) = notify
    {
        let _ = filekit_lsp::with_running_client(&root, kind, |c| {
            for (path, text) in &new_texts {
                if let Ok(p) = ws.resolve(path) {
                    c.changed_on_disk(p.absolute(), text)?;
                }
            }
            Ok(())
        });
    }
    let affected: Vec<String> = report
        .files
        .iter()
        .filter(|f| f.status() != FileStatus::Unchanged)
        .map(|f| f.path.clone())
        .collect();
    let n = affected.len();
    let verb = if req.dry_run {
        "Would apply"
    } else {
        "Applied"
    };
    let what = match (req.refactor, &symbol, &req.new_name) {
        (RefactorKind::RenameSymbol, Some(s), Some(new)) => {
            format!(
                "{} {s} → {new}",
                if req.dry_run {
                    "Would rename"
                } else {
                    "Renamed"
                }
            )
        }
        _ => format!(
            "{verb} {name}{}",
            title
                .as_ref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default()
        ),
    };
    let summary = format!(
        "{what} ({n} file{}, {total} edit{}; {precision})",
        if n == 1 { "" } else { "s" },
        if total == 1 { "" } else { "s" }
    );
    let mut diff = String::new();
    for f in &report.files {
        diff.push_str(&f.diff);
    }
    let mut value = json!({
        "success": true,
        "refactor": name,
        "file": req.file,
        "precision": precision,
        "filesAffected": affected,
        "totalEdits": total,
        "changes": changes,
        "summary": summary,
        "dryRun": req.dry_run,
    });
    if let Some(s) = server {
        value["server"] = json!(s);
    }
    if let Some(t) = &title {
        value["action"] = json!(t);
    }
    if let Some(s) = &symbol {
        value["symbol"] = json!(s);
    }
    if let Some(n) = &req.new_name {
        value["newName"] = json!(n);
    }
    if !warnings.is_empty() {
        value["warnings"] = json!(warnings);
    }
    if let Some(id) = report.history_entry {
        value["historyEntry"] = json!(id);
    }
    let (capped, cut) = shape::capped_diff(&diff);
    if req.dry_run || req.preview {
        value["diff"] = json!(capped);
        if let Some(c) = &cut {
            value["diffTruncated"] = json!(c);
        }
    }
    let mut text_out = format!("{summary}\n");
    for w in &warnings {
        text_out.push_str(&format!("warning: {w}\n"));
    }
    text_out.push_str(capped);
    Ok(ToolReply::new(value, false, text_out))
}
