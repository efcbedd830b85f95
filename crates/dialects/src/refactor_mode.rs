//! The refactor mode of `file_edit` (the semantic table's design), as the table's tool speaks it:
//! the kinds of the refactor layer's table (`filekit_refactor::code_actions::SPECS`). The
//! layer checks the arguments against the kind's entry; what is wrong is worded here in the
//! table's spelling of the tool's names (`new_name`, `selectionRange`, "does not apply to"). The layer chooses the
//! route (a language server, or the syntax trees) and computes the change; it is written here, through the one write pipeline in ONE
//! request (`Edit::Ranges` tied to the `content_hash` read, created files as `Edit::Create`,
//! atomic across files, one history entry, a dry run with diffs), and answered as file_edit
//! answers an edit.

use crate::Call;
use crate::ToolReply;
use crate::semantic::load;
use crate::semantic_reply::{Change, EditReply, FileChange, Span, Spelling, failed};
use crate::shape;
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits, FileStatus};
use filekit_core::{ErrorCode, FkError};
use filekit_refactor::code_actions::{
    self, Arg, ArgError, Given, Kind, Refactor, Scope, Selection,
};
use filekit_semantic::Lang;
use schemars::JsonSchema;
use serde::Deserialize;

/// The `refactor` argument: a kind of the refactor layer's table, by its name. Its schema is
/// the enum of the table's names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RefactorName(pub Kind);

impl<'de> Deserialize<'de> for RefactorName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Kind::parse(&name)
            .map(RefactorName)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, &Kind::NAMES))
    }
}

impl JsonSchema for RefactorName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RefactorName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": Kind::NAMES})
    }
}

/// A range of the file: 1-based lines, 0-based columns (characters), end exclusive.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
pub struct SelectionRange {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

impl From<SelectionRange> for Selection {
    fn from(s: SelectionRange) -> Selection {
        Selection {
            start_line: s.start_line,
            start_column: s.start_column,
            end_line: s.end_line,
            end_column: s.end_column,
        }
    }
}

/// `file`'s refactor request, checked, with the call's own arguments.
#[derive(Debug, Clone)]
pub struct Request {
    pub file: String,
    pub refactor: Refactor,
    pub dry_run: bool,
    pub preview: bool,
}

/// A refactor argument as a table spells it (`new_name` in the curated table, `newName` in
/// the `semantic` table).
pub(crate) fn arg_name<S: Spelling>(arg: Arg) -> String {
    S::name(arg.name())
}

/// Every refactor argument as a table spells them, in the refactor table's order.
pub(crate) fn arg_names<S: Spelling>() -> Vec<String> {
    Arg::ALL.into_iter().map(arg_name::<S>).collect()
}

/// Parses `scope`.
pub fn scope(word: Option<&str>) -> Result<Option<Scope>, FkError> {
    word.map(|w| {
        Scope::parse(w).ok_or_else(|| {
            FkError::invalid(format!(
                "scope must be \"file\" or \"workspace\", not \"{w}\""
            ))
        })
    })
    .transpose()
}

/// Checks the arguments of a refactor of `file` against its kind's entry; what is wrong is
/// said in the table's names of the arguments.
pub(crate) fn checked<S: Spelling>(
    kind: Kind,
    file: &str,
    given: Given,
) -> Result<Refactor, FkError> {
    Refactor::new(kind, file, given).map_err(worded::<S>)
}

fn worded<S: Spelling>(err: ArgError) -> FkError {
    let tool_name = arg_name::<S>;
    let quoted = |a: Arg| format!("`{}`", tool_name(a));
    let range = format!(
        "{{{}}}",
        ["start_line", "start_column", "end_line", "end_column"]
            .map(S::name)
            .join(", ")
    );
    let range = range.as_str();
    match err {
        ArgError::Missing { kind, one_of } => {
            let err = match one_of {
                [Arg::Selection] => FkError::invalid(format!(
                    "{} needs {}: {range}",
                    kind.name(),
                    quoted(Arg::Selection)
                )),
                [one] => FkError::invalid(format!("{} needs {}", kind.name(), quoted(*one))),
                several => {
                    let each: Vec<String> = several
                        .iter()
                        .map(|a| match a {
                            Arg::Selection => format!("{} (its position: {range})", quoted(*a)),
                            Arg::Symbol => format!("{} (its name)", quoted(*a)),
                            _ => quoted(*a),
                        })
                        .collect();
                    FkError::invalid(format!("{} needs {}", kind.name(), each.join(" or ")))
                }
            };
            if one_of.contains(&Arg::Selection) {
                err.with_hint("lines count from 1, columns from 0; the end is exclusive")
            } else if kind == Kind::RenameSymbol {
                err.with_hint(format!(
                    "e.g. {{\"refactor\": \"rename_symbol\", \"symbol\": \"UserService\", \"{}\": \"AuthService\"}}",
                    tool_name(Arg::NewName)
                ))
            } else {
                err
            }
        }
        ArgError::NotTaken { kind, arg } => {
            let takes: Vec<String> = kind.spec().takes.iter().map(|a| quoted(*a)).collect();
            FkError::invalid(format!("{} does not apply to {}", quoted(arg), kind.name()))
                .with_hint(if takes.is_empty() {
                    format!("{} takes no argument but `file`", kind.name())
                } else {
                    format!("{} takes {}", kind.name(), takes.join(", "))
                })
        }
        ArgError::BadName { arg, error } => FkError {
            message: format!("{}: {}", tool_name(arg), error.message),
            ..error
        },
        ArgError::Backwards => FkError::invalid(format!(
            "{} ends before it starts",
            tool_name(Arg::Selection)
        )),
    }
}

/// Runs a refactor and answers as file_edit answers an edit.
pub(crate) fn run<S: Spelling>(ws: &Call, req: Request) -> Result<ToolReply, FkError> {
    let failed = |file: &str, err: &FkError| failed::<S>(file, err, false);
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
    let engine = code_actions::Request {
        file: req.file.clone(),
        refactor: req.refactor.clone(),
    };
    match code_actions::compute(ws, &engine, &src) {
        Ok(change) => write::<S>(ws, &req, change),
        // Edits that do not fit the text they were computed on are filekit's bug, not the
        // file's: the call fails, as any internal error does.
        Err(err) if err.code == ErrorCode::Internal => Err(err),
        Err(mut err) => {
            if err.fact() == Some(filekit_core::Fact::UntypedParameters) {
                err.hint = err
                    .hint
                    .map(|h| format!("{h} with `{}: true`", arg_name::<S>(Arg::UntypedParameters)));
            }
            Ok(failed(&req.file, &err))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing and the reply

// Over 200 lines: one refactor's reply in order: each file's changes as the table words them, the
// edit request, its report, then the summary, warnings and diff of the text a model reads; each
// part reads the change and the report the ones before built.
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
    let name = req.refactor.kind().name();
    let new_name = match &req.refactor {
        Refactor::RenameSymbol { new_name, .. } => Some(new_name.clone()),
        _ => None,
    };
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
        new_name: new_name.clone(),
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
        encoding: None,
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
    let what = match (&symbol, &new_name) {
        (Some(s), Some(new)) => {
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
            "(the diff, {} lines, is left out: read the files to see them, or preview with {})\n",
            diff.lines().count(),
            S::name("dry_run")
        ));
    }
    if let Some(id) = report.history_entry {
        text_out.push_str(&format!("history_entry {id}\n"));
    }
    Ok(S::reply(&value, false, text_out))
}

/// The refactor kinds as a table's `file_edit` description lists them, generated from the
/// refactor layer's table so that a kind added there is described here too. `detailed`: each
/// kind on its own, with its languages, what it needs and takes, what it does and the language
/// servers that do it (the `semantic` table's long description); otherwise the kinds grouped by
/// the arguments they need (the curated table's, every byte of which is read in every session).
pub(crate) fn kinds_described<S: Spelling>(detailed: bool) -> String {
    let arg = |a: &Arg| format!("`{}`", S::name(a.name()));
    let arguments = |spec: &code_actions::Spec| -> Vec<String> {
        let needed = spec
            .needs
            .iter()
            .filter(|group| !group.is_empty())
            .map(|group| group.iter().map(arg).collect::<Vec<_>>().join(" or "));
        let optional = spec
            .takes
            .iter()
            .filter(|a| !spec.needs.iter().any(|g| g.contains(a)))
            .map(arg);
        needed.chain(optional).collect()
    };
    if !detailed {
        // Kinds that need the same arguments share one entry: "a/b (`x` or `y`)". What they
        // may take besides is in the schema.
        let mut groups: Vec<(Vec<&str>, Vec<String>)> = vec![];
        for spec in &code_actions::SPECS {
            let args: Vec<String> = spec
                .needs
                .iter()
                .filter(|group| !group.is_empty())
                .map(|group| group.iter().map(arg).collect::<Vec<_>>().join(" or "))
                .collect();
            match groups.iter_mut().find(|(_, a)| *a == args) {
                Some((names, _)) => names.push(spec.name),
                None => groups.push((vec![spec.name], args)),
            }
        }
        return groups
            .iter()
            .map(|(names, args)| {
                if args.is_empty() {
                    names.join("/")
                } else {
                    format!("{} ({})", names.join("/"), args.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
    }
    let mut out = vec![];
    for spec in &code_actions::SPECS {
        let args = arguments(spec);
        let servers: Vec<&str> = spec.servers.iter().map(|s| s.command().0).collect();
        let mut facts = vec![spec.languages()];
        if !args.is_empty() {
            facts.push(args.join(", "));
        }
        if !servers.is_empty() {
            facts.push(format!("server: {}", servers.join(", ")));
        }
        out.push(format!(
            "{} ({}): {}",
            spec.name,
            facts.join("; "),
            spec.about
        ));
    }
    out.join(". ")
}
