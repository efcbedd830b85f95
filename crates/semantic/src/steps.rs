//! The steps the code refactors share, whatever the language: the values they produce, their
//! refusals, the node tests of their analyses, and the edit they end with.

use crate::ts::types::Untyped;
use filekit_errors::{ErrorCode, FkError};
use filekit_splices::{Splice, Splices};
use tree_sitter::Node;

/// What an extraction produced.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The edit of the text as given.
    pub splices: Splices,
    /// How many occurrences were replaced by the name.
    pub replaced: usize,
    /// Identical occurrences left as they are, with the reason (with `all`).
    pub skipped: Vec<String>,
    /// Declared at module level (a constant of the module), not before the statement in the
    /// enclosing scope.
    pub module_level: bool,
    /// TS names the declaration leaves without the type they had where the expression was
    /// written (a callback's parameters, an empty array), each with the reason.
    pub untyped: Vec<Untyped>,
}

/// What an extraction of a function produced.
#[derive(Debug, Clone)]
pub struct ExtractedFunction {
    /// The edit of the text as given.
    pub splices: Splices,
    /// The new function's parameters, in order.
    pub params: Vec<String>,
    /// What it returns to the call site.
    pub returns: Vec<String>,
    /// TS parameters left without a type, each with the reason.
    pub untyped: Vec<Untyped>,
    /// Whether it is `async` (the selection awaits).
    pub is_async: bool,
    /// What the caller should know (e.g. a base class that may have a member of that name).
    pub warnings: Vec<String>,
    /// For a method added to a named TS class: its name. A class of another file that
    /// `implements` it would then lack the method (and a private one breaks it at all), which
    /// only a look at the other files tells: `ts::extract_function::implements_pattern` finds them.
    pub class: Option<String>,
}

/// A refusal of the selection or the arguments, with what to do instead.
pub(crate) fn invalid(msg: impl Into<String>, hint: &str) -> FkError {
    FkError::new(ErrorCode::InvalidArgument, msg.into()).with_hint(hint.to_string())
}

/// The 1-based line of byte `at`.
pub(crate) fn line(text: &str, at: usize) -> usize {
    crate::position(text, at).line
}

/// A short one-line quote of a node's text.
pub(crate) fn quote(text: &str, n: Node) -> String {
    let s: String = text[n.byte_range()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// Whether `child` is `parent`'s `field`.
pub(crate) fn field_is(parent: Node, field: &str, child: Node) -> bool {
    parent.child_by_field_name(field).map(|c| c.id()) == Some(child.id())
}

/// The refactor's splices as one checked edit of `text`; overlapping ones are a bug of the
/// refactor, refused as a conflict.
pub(crate) fn to_splices(text: &str, list: Vec<Splice>) -> Result<Splices, FkError> {
    Splices::sorted(text, list).map_err(|e| {
        FkError::new(
            ErrorCode::Conflict,
            format!("the refactor computed overlapping edits: {e}"),
        )
    })
}
