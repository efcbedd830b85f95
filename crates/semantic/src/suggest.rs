//! The error for a target that matches nothing, listing the nearest available targets so the
//! agent can correct itself in one step (code symbols here, document targets in
//! `filekit-documents`).

use crate::Found;
use filekit_errors::{ErrorCode, FkError};
use serde_json::json;

/// How many targets of a file a not-found error looks among (the first, in document order):
/// every target's path of a large, deep document would take its size times its depth.
pub const CANDIDATES: usize = 5_000;

/// How many suggestions a not-found error lists.
const MAX_SUGGESTIONS: usize = 10;

/// `NOT_FOUND` for `wanted` (a `what`: "symbol", "path"), with the targets of `available`
/// nearest to it by name and path, and `how` to list them all.
pub fn not_found(what: &str, wanted: &str, available: &[Found], how: &str) -> FkError {
    let key = wanted.to_lowercase();
    let mut scored: Vec<(f64, &Found)> = available
        .iter()
        .map(|f| {
            let by_path = strsim::jaro_winkler(&key, &f.path.to_lowercase());
            let by_name = strsim::jaro_winkler(&key, &f.name.to_lowercase());
            (by_path.max(by_name), f)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let listed: Vec<String> = scored
        .iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, f)| format!("{} ({})", f.path, f.kind))
        .collect();
    let hint = if listed.is_empty() {
        format!("the file has no {what} targets; read it by line range instead")
    } else {
        format!("nearest available: {}; {how}", listed.join(", "))
    };
    FkError::new(ErrorCode::NotFound, format!("{what} '{wanted}' not found"))
        .with_hint(hint)
        .with_details(json!({
            "available": scored.iter().take(MAX_SUGGESTIONS).map(|(_, f)| json!({"target": f.path, "kind": f.kind})).collect::<Vec<_>>()
        }))
}
