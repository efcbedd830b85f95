//! The refactors a language server computes (`precision: "semantic"`): the table's kinds mapped
//! onto the server's rename, commands and code actions (kinds and titles); a refactor not
//! offered at the range is an error that lists what is offered. The server's workspace edit
//! becomes splices of the files as read, its paths resolved by the sandbox.

use super::{At, Draft, Kind, Precision, Refactor, Request, Selection, byte_at};
use crate::source::{Source, load};
use filekit_core::splices::Splice;
use filekit_core::{ErrorCode, FkError, Workspace};
use filekit_lsp::{Client, Launch, ServerKind, WsEdit};
use filekit_semantic::Lang;
use filekit_semantic::style;
use filekit_semantic::ts::{self as syn, Target};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::PathBuf;

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

/// What `k` is among the server's code actions, for the kinds done by one.
fn wanted(k: Kind) -> Option<Wanted> {
    let w = |only, fits, outermost, default_names| Wanted {
        only,
        diagnostic: None,
        fits,
        outermost,
        default_names,
    };
    Some(match k {
        Kind::ExtractFunction => w(
            &["refactor.extract"],
            |k, t| {
                k.starts_with("refactor.extract.function") && !t.starts_with("Extract to method")
            },
            true,
            &["newFunction"],
        ),
        Kind::ExtractMethod => w(
            &["refactor.extract"],
            |k, t| k.starts_with("refactor.extract.function") && t.starts_with("Extract to method"),
            false,
            &["newMethod"],
        ),
        Kind::ExtractVariable => w(
            &["refactor.extract"],
            |k, _| k.starts_with("refactor.extract.constant"),
            false,
            &["newLocal"],
        ),
        Kind::ExtractConstant => w(
            &["refactor.extract"],
            |k, _| k.starts_with("refactor.extract.constant"),
            true,
            &["newLocal"],
        ),
        Kind::ExtractType => w(
            &["refactor.extract"],
            |k, t| k.starts_with("refactor.extract.type") || t.contains("type alias"),
            false,
            &["NewType"],
        ),
        Kind::InlineVariable => w(
            &["refactor.inline"],
            |k, t| k.starts_with("refactor.inline.variable") || t == "Inline variable",
            false,
            &[],
        ),
        Kind::InlineFunction => w(
            &["refactor.inline"],
            |k, t| k.starts_with("refactor.inline.function") || t.contains("Inline function"),
            false,
            &[],
        ),
        Kind::ConvertToArrow => w(
            &["refactor.rewrite"],
            |k, t| k.starts_with("refactor.rewrite.function.arrow") || t.contains("arrow function"),
            false,
            &[],
        ),
        Kind::ConvertToAsync => Wanted {
            only: &["quickfix"],
            diagnostic: Some((80006, "This may be converted to an async function.")),
            fits: |_, t| t.contains("async function"),
            outermost: false,
            default_names: &[],
        },
        Kind::AddImport => Wanted {
            only: &["quickfix"],
            diagnostic: Some((2304, "Cannot find name.")),
            fits: |_, t| t.starts_with("Add import") || t.starts_with("Update import"),
            outermost: false,
            default_names: &[],
        },
        Kind::RenameSymbol | Kind::OrganizeImports | Kind::RemoveUnusedImports => return None,
    })
}

fn title_of(a: &Value) -> String {
    a.get("title")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

pub(super) fn semantic(
    ws: &Workspace,
    req: &Request,
    src: &Source,
    abs: PathBuf,
    launch: &Launch,
) -> Result<Draft, FkError> {
    let kind = launch.kind;
    let root = ws.roots()[0].clone();
    let text = src.text.as_str();
    let server_name = kind.command().0;
    filekit_lsp::with_client(launch, &root, |c| {
        resync(ws, c)?;
        let unit = style::indent_unit(text, "  ");
        if unit.starts_with('\t') {
            c.set_indent(4, false);
        } else {
            c.set_indent(unit.len().max(1) as u32, true);
        }
        c.sync(&abs, text)?;
        let mut title = None;
        let mut symbol = None;
        let lsp_range = |s: Selection| -> Result<filekit_lsp::LspRange, FkError> {
            let a = byte_at(text, s.start_line, s.start_column, "start")?;
            let b = byte_at(text, s.end_line, s.end_column, "end")?;
            Ok((
                filekit_lsp::position(text, a),
                filekit_lsp::position(text, b),
            ))
        };
        let edit: WsEdit = match &req.refactor {
            Refactor::RenameSymbol {
                at,
                new_name: new,
                workspace_scope,
            } => {
                let at = match at {
                    At::Selection(s) => byte_at(text, s.start_line, s.start_column, "start")?,
                    At::Symbol(name) => {
                        symbol = Some(name.clone());
                        declaration_offset(&req.file, text, name)?
                    }
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
                if !workspace_scope {
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
            Refactor::OrganizeImports if kind == ServerKind::TypeScript => c.execute(
                "_typescript.organizeImports",
                json!([abs.to_string_lossy()]),
            )?,
            Refactor::OrganizeImports | Refactor::RemoveUnusedImports => {
                let only: &[&str] = match &req.refactor {
                    Refactor::RemoveUnusedImports => &["source.removeUnusedImports.ts"],
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
                let other = other.kind();
                let (Some(w), Some(selection)) =
                    (wanted(other), action_range(&req.refactor, &req.file, text)?)
                else {
                    return Err(FkError::invalid(format!(
                        "{server_name} does no {} of {}: none is offered for it",
                        other.name(),
                        req.file
                    )));
                };
                let range = lsp_range(selection)?;
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
                    let s = selection;
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
                if let Some(name) = extracted_name(&req.refactor) {
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
        let mut draft = to_draft(ws, &abs, src, &req.file, edit)?;
        draft.server = Some(server_name);
        draft.title = title;
        draft.symbol = symbol;
        draft.notify = Some((root.clone(), kind));
        Ok(draft)
    })
}

/// The range a code action is asked at: the selection, or the declaration of the name
/// (zero-width); none for a kind that is no code action of a range.
fn action_range(r: &Refactor, file: &str, text: &str) -> Result<Option<Selection>, FkError> {
    let at = match r {
        Refactor::ExtractFunction(x) | Refactor::ExtractMethod(x) => return Ok(Some(x.selection)),
        Refactor::ExtractVariable(x) | Refactor::ExtractConstant(x) => {
            return Ok(Some(x.selection));
        }
        Refactor::ExtractType { selection, .. }
        | Refactor::ConvertToArrow(selection)
        | Refactor::ConvertToAsync(selection) => return Ok(Some(*selection)),
        Refactor::InlineVariable(at)
        | Refactor::InlineFunction(at)
        | Refactor::AddImport { at, .. } => at,
        Refactor::RenameSymbol { .. }
        | Refactor::OrganizeImports
        | Refactor::RemoveUnusedImports => {
            return Ok(None);
        }
    };
    Ok(Some(match at {
        At::Selection(s) => *s,
        At::Symbol(name) => {
            let offset = declaration_offset(file, text, name)?;
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count();
            Selection {
                start_line: line,
                start_column: column,
                end_line: line,
                end_column: column,
            }
        }
    }))
}

/// The name the request gives what is extracted.
fn extracted_name(r: &Refactor) -> Option<&str> {
    match r {
        Refactor::ExtractFunction(x) | Refactor::ExtractMethod(x) => x.name.as_deref(),
        Refactor::ExtractVariable(x) | Refactor::ExtractConstant(x) => x.name.as_deref(),
        Refactor::ExtractType { name, .. } => name.as_deref(),
        _ => None,
    }
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
fn declaration_offset(file: &str, text: &str, name: &str) -> Result<usize, FkError> {
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
                return filekit_semantic::python::binding_offset(
                    text,
                    &filekit_semantic::python::Target::Name(name.to_string()),
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
    .with_hint("give the selection with its start on the name"))
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
fn resync(ws: &Workspace, c: &mut Client) -> Result<(), FkError> {
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
fn to_draft(
    ws: &Workspace,
    abs: &std::path::Path,
    src: &Source,
    file: &str,
    edit: WsEdit,
) -> Result<Draft, FkError> {
    let mut draft = Draft::new(Precision::Semantic);
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
            draft.created.push((display, content));
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
        draft.files.insert(display, (fsrc, merged));
    }
    for p in &edit.created {
        let name = p.to_string_lossy().to_string();
        ws.resolve(&name)?;
    }
    Ok(draft)
}
