//! The refactor mode of `file_edit` (the semantic table's design), as the table's tool speaks it:
//! `rename_symbol`, `organize_imports`, `remove_unused_imports`, and the code actions of the
//! refactor table. The arguments are checked here, in the tool's words (`newName`,
//! `selectionRange`, "does not apply to"); the refactor layer
//! (`filekit_refactor::code_actions`) chooses the route (a language server, or the syntax
//! trees) and computes the change; it is written here, through the one write pipeline in ONE
//! request (`Edit::Ranges` tied to the `content_hash` read, created files as `Edit::Create`,
//! atomic across files, one history entry, a dry run with diffs), and answered in 004's
//! FileEditResult.

use crate::Call;
use crate::ToolReply;
use crate::semantic::load;
use crate::semantic_reply::{Change, EditReply, FileChange, Span, Spelling, failed};
use crate::shape;
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits, FileStatus};
use filekit_core::{ErrorCode, FkError};
use filekit_refactor::code_actions::{self, Kind, Selection};
use filekit_refactor::python::is_python;
use filekit_semantic::Lang;
use filekit_semantic::ts as syn;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

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
    /// The refactor layer's kind this argument names.
    pub fn kind(self) -> Kind {
        match self {
            RefactorKind::RenameSymbol => Kind::RenameSymbol,
            RefactorKind::ExtractFunction => Kind::ExtractFunction,
            RefactorKind::ExtractMethod => Kind::ExtractMethod,
            RefactorKind::ExtractVariable => Kind::ExtractVariable,
            RefactorKind::ExtractConstant => Kind::ExtractConstant,
            RefactorKind::ExtractType => Kind::ExtractType,
            RefactorKind::InlineVariable => Kind::InlineVariable,
            RefactorKind::InlineFunction => Kind::InlineFunction,
            RefactorKind::OrganizeImports => Kind::OrganizeImports,
            RefactorKind::AddImport => Kind::AddImport,
            RefactorKind::RemoveUnusedImports => Kind::RemoveUnusedImports,
            RefactorKind::ConvertToArrow => Kind::ConvertToArrow,
            RefactorKind::ConvertToAsync => Kind::ConvertToAsync,
        }
    }

    pub fn name(self) -> &'static str {
        self.kind().name()
    }

    pub fn parse(s: &str) -> Result<RefactorKind, FkError> {
        serde_json::from_value(json!(s)).map_err(|_| {
            FkError::invalid(format!("unknown refactor `{s}`")).with_hint(format!(
                "refactors: {}",
                Kind::ALL
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

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
    pub type_kind: Option<filekit_semantic::ts::extract_type::TypeKind>,
    /// extract_variable / extract_constant: replace every identical occurrence in the same
    /// scope too, not only the selected one.
    pub replace_all: bool,
    /// add_import: the module specifier to import from, among the candidates.
    pub module: Option<String>,
    /// extract_function, extract_method, extract_variable, extract_constant: write a
    /// parameter whose type is not known untyped even under `noImplicitAny`.
    pub untyped_parameters: bool,
    pub dry_run: bool,
    pub preview: bool,
}

impl Request {
    /// The refactor layer's request: the arguments without the call's own (dry run, preview).
    fn to_engine(&self) -> code_actions::Request {
        code_actions::Request {
            file: self.file.clone(),
            kind: self.refactor.kind(),
            symbol: self.symbol.clone(),
            new_name: self.new_name.clone(),
            workspace_scope: self.workspace_scope,
            selection: self.selection.map(|s| Selection {
                start_line: s.start_line,
                start_column: s.start_column,
                end_line: s.end_line,
                end_column: s.end_column,
            }),
            extracted_name: self.extracted_name.clone(),
            type_kind: self.type_kind,
            replace_all: self.replace_all,
            module: self.module.clone(),
            untyped_parameters: self.untyped_parameters,
        }
    }
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
            let checked = if is_python(&req.file) {
                filekit_semantic::python::check_identifier(n)
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
                let checked = if is_python(&req.file) {
                    filekit_semantic::python::check_identifier(n)
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
    if req.untyped_parameters
        && !matches!(
            k,
            RefactorKind::ExtractFunction
                | RefactorKind::ExtractMethod
                | RefactorKind::ExtractVariable
                | RefactorKind::ExtractConstant
        )
    {
        return wrong("untypedParameters");
    }
    if let Some(s) = req.selection
        && (s.end_line, s.end_column) < (s.start_line, s.start_column)
    {
        return Err(FkError::invalid("selectionRange ends before it starts"));
    }
    Ok(())
}

/// Runs a refactor and answers with 004's FileEditResult.
pub(crate) fn run<S: Spelling>(ws: &Call, req: Request) -> Result<ToolReply, FkError> {
    let failed = |file: &str, err: &FkError| failed::<S>(file, err, false);
    check(&req)?;
    let resolved = ws.resolve(&req.file)?;
    if !req.dry_run {
        ws.check_writable(&resolved)?;
    }
    // An unsupported file is the call's error, before the file is read; what the file or the
    // refactor refuses is the reply's.
    Lang::of_path(&req.file)?;
    let src = match load(ws, &req.file) {
        Ok(s) => s,
        Err(err) => return Ok(failed(&req.file, &err)),
    };
    match code_actions::compute(ws, &req.to_engine(), &src) {
        Ok(change) => write::<S>(ws, &req, change),
        // Edits that do not fit the text they were computed on are filekit's bug, not the
        // file's: the call fails, as any internal error does.
        Err(err) if err.code == ErrorCode::Internal => Err(err),
        Err(mut err) => {
            if err.fact() == Some(filekit_core::Fact::UntypedParameters) {
                err.hint = err
                    .hint
                    .map(|h| format!("{h} with `untypedParameters: true`"));
            }
            Ok(failed(&req.file, &err))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing and the reply

fn write<S: Spelling>(
    ws: &Call,
    req: &Request,
    change: code_actions::Change,
) -> Result<ToolReply, FkError> {
    let precision = change.precision.as_str();
    let (server, title, symbol, warnings) = (
        change.server,
        &change.title,
        &change.symbol,
        &change.warnings,
    );
    let mut changes = Vec::new();
    let mut file_edits = Vec::new();
    let mut total = 0;
    let mut new_texts: Vec<(String, String)> = Vec::new();
    for (path, file) in &change.files {
        let (src, checked) = (&file.source, &file.splices);
        let splices = checked.as_slice();
        let text = src.text.as_str();
        let lines = filekit_semantic::Lines::new(text);
        let edits: Vec<Change<S::Place>> = splices
            .iter()
            .map(|s| Change {
                kind: if s.start == s.end {
                    "insert"
                } else if s.text.is_empty() {
                    "delete"
                } else {
                    "replace"
                },
                range: Span::of(&lines, &(s.start..s.end)),
                // A dry run's diff says what each edit does; preview asks for the texts too.
                old_content: req.preview.then(|| text[s.start..s.end].to_string()),
                new_content: req.preview.then(|| s.text.clone()),
            })
            .collect();
        total += edits.len();
        changes.push(FileChange {
            file: path.clone(),
            edits,
        });
        new_texts.push((path.clone(), checked.apply(text)?));
        file_edits.push(FileEdits {
            path: path.clone(),
            base_hash: None,
            edits: vec![Edit::Ranges {
                ranges: splices.to_vec(),
                content_hash: src.hash.clone(),
            }],
        });
    }
    for (path, content) in &change.created {
        total += 1;
        let top = filekit_semantic::Lines::new("");
        changes.push(FileChange {
            file: path.clone(),
            edits: vec![Change {
                kind: "insert",
                range: Span::of(&top, &(0..0)),
                old_content: None,
                new_content: Some(content.clone()),
            }],
        });
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
    let mut value = EditReply {
        success: true,
        operation: None,
        refactor: Some(name),
        file: req.file.clone(),
        targets: Vec::new(),
        precision: Some(precision),
        server: server.map(str::to_string),
        action: title.clone(),
        symbol: symbol.clone(),
        new_name: req.new_name.clone(),
        files_affected: Vec::new(),
        total_edits: total,
        changes: if S::LISTS_CHANGES || req.preview {
            changes
        } else {
            Vec::new()
        },
        summary: String::new(),
        dry_run: req.dry_run,
        content_hash: None,
        diff: None,
        diff_note: None,
        warnings: warnings.clone(),
        history_entry: None,
    };
    if file_edits.is_empty() {
        value.summary = format!("{name}: nothing to change in {}", req.file);
        let text = value.summary.clone();
        return Ok(S::reply(&value, false, text));
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
            return Ok(failed::<S>(&req.file, &err, true));
        }
    }
    // The server sees what was written.
    if !req.dry_run {
        change.written(ws, &new_texts);
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
    value.files_affected = affected;
    value.summary = summary.clone();
    value.history_entry = report.history_entry;
    let (capped, cut) = shape::capped_diff(&diff);
    if req.dry_run || req.preview {
        value.diff = Some(capped.to_string());
        value.diff_note = cut;
    }
    let mut text_out = format!("{summary}\n");
    for w in warnings {
        text_out.push_str(&format!("warning: {w}\n"));
    }
    // An apply says what changed; its diff only when short or asked for (the agent has seen
    // a dry run's if it wanted to).
    if req.dry_run || req.preview || diff.lines().count() <= shape::SHORT_DIFF_LINES {
        text_out.push_str(capped);
    } else {
        for f in report
            .files
            .iter()
            .filter(|f| f.status() != FileStatus::Unchanged)
        {
            text_out.push_str(&format!(
                "{} +{} -{}\n",
                f.path, f.lines_added, f.lines_removed
            ));
        }
        text_out.push_str(&format!(
            "(the diff, {} lines, is left out: read the files to see them, or preview with dryRun)\n",
            diff.lines().count()
        ));
    }
    if let Some(id) = report.history_entry {
        text_out.push_str(&format!("history_entry {id}\n"));
    }
    Ok(S::reply(&value, false, text_out))
}
