//! What a refactor that declares parameters may leave without a type: the project's own
//! compiler settings decide. Under `noImplicitAny` (directly, or through `strict`; read from
//! the tsconfig chain that governs the file, through the workspace) a parameter the compiler
//! would take as `any` makes a result the project does not compile, so the refactor is
//! refused, naming each such parameter and why its type is not known, unless the request asks
//! for untyped parameters. Otherwise they are written untyped and the reply's warnings name
//! them.

use crate::tsconfig::{ImplicitAny, implicit_any};
use filekit_core::{ErrorCode, Fact, FkError, Workspace};
use filekit_semantic::Lang;
use filekit_semantic::ts::types::Untyped;
use serde_json::json;

/// Checks the parameters a refactor of `file` would leave untyped against the rule (unless
/// the request `allowed` them), adding the warnings of those it may write.
pub(super) fn check(
    ws: &Workspace,
    file: &str,
    allowed: bool,
    lang: Lang,
    untyped: &[Untyped],
    warnings: &mut Vec<String>,
) -> Result<(), FkError> {
    if untyped.is_empty() || !matches!(lang, Lang::TypeScript | Lang::Tsx) {
        return Ok(());
    }
    if allowed {
        warnings.extend(
            untyped
                .iter()
                .map(|u| format!("{u}: it is left untyped, as asked")),
        );
        return Ok(());
    }
    let rule = settings(ws, file)?;
    if !rule.refused {
        warnings.extend(untyped.iter().map(|u| {
            format!(
                "{u}: it is left untyped (implicitly `any`, which the project allows: {})",
                rule.because
            )
        }));
        return Ok(());
    }
    Err(refusal(untyped, &rule))
}

/// The refusal: what would be untyped and why, what refuses it, and what to do, in neutral
/// words (the front end names its own way to ask for untyped parameters).
fn refusal(untyped: &[Untyped], rule: &ImplicitAny) -> FkError {
    let (what, them) = match untyped {
        [u] => (
            format!(
                "{} `{}` would have no type: {}",
                u.declared.as_str(),
                u.name,
                u.why
            ),
            "it",
        ),
        _ => (
            format!(
                "{} would have no type ({})",
                untyped
                    .iter()
                    .map(|u| format!("`{}`", u.name))
                    .collect::<Vec<_>>()
                    .join(", "),
                untyped
                    .iter()
                    .map(Untyped::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            "them",
        ),
    };
    FkError::new(
        ErrorCode::InvalidArgument,
        format!(
            "{what}; the project's compiler refuses an implicit `any` ({})",
            rule.because
        ),
    )
    .with_hint(format!(
        "give {them} a type where {} declared, select code that does not use {them}, or ask for untyped parameters",
        if untyped.len() == 1 { "it is" } else { "they are" }
    ))
    .with_details(json!({
        "fact": Fact::UntypedParameters,
        "parameters": untyped
            .iter()
            .map(|u| json!({"name": u.name, "declared": u.declared.as_str(), "why": u.why}))
            .collect::<Vec<_>>(),
        "because": rule.because,
    }))
}

/// `noImplicitAny` for `file`, from the tsconfig chain above it in its root, each config read
/// through the workspace (a config that resolves outside the roots cannot be read, so its
/// settings are not known and the rule holds).
fn settings(ws: &Workspace, file: &str) -> Result<ImplicitAny, FkError> {
    let resolved = ws.resolve(file)?;
    let root = &ws.roots()[resolved.root_index()];
    let rel = resolved.relative().to_string_lossy().replace('\\', "/");
    let read = |p: &str| -> Result<Option<String>, String> {
        let abs = root.join(p);
        let found = ws.resolve(&abs.to_string_lossy()).and_then(|p| ws.read(&p));
        match found {
            Ok(file) => String::from_utf8(file.bytes)
                .map(Some)
                .map_err(|_| "it is not UTF-8 text".to_string()),
            Err(e) if e.code == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e.message),
        }
    };
    Ok(implicit_any(crate::paths::dir_of(&rel), &read))
}
