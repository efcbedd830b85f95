//! # filekit-semantic
//!
//! Semantic targeting of code: find *things* in a source file's text (a symbol, a region) as
//! byte ranges, with their kind and signature, compute the byte ranges a semantic edit
//! replaces, and the refactors that need no language server. It never reads or writes files:
//! callers hand it the text they read through the engine and send the ranges it computes
//! back through the one write pipeline (`Edit::Ranges`, tied to the file's `content_hash`).
//! Documents (JSON, YAML, XML, HTML, Markdown) are `filekit-documents`', built on the steps
//! this crate shares: [`lang`], [`bounds`], [`ops`], [`style`], [`suggest`] and [`Found`].
//!
//! - [`lang`]: which parser a file name gets, and what is supported.
//! - [`bounds`]: every tree-sitter parse, refused past the nesting a walk can take, its tree
//!   kept for the next parse of the same text.
//! - [`code`]: tree-sitter symbols (TS/TSX/JS, Python, Rust, Go, Java, CSS), regions, imports.
//! - [`ops`]: the edit operations (replace, insert, wrap, delete, ...) as byte ranges, with
//!   the indentation of the place.
//! - [`style`]: a file's style as writers read it: indentation, quotes, semicolons.
//! - [`suggest`]: the not-found error that lists the nearest targets.
//! - [`imports`]: every module reference of TS/TSX/JS and Python, with its specifier's bytes.
//! - [`ts`] and [`python`]: the code refactors that need no language server, by language, on
//!   the syntax tree: each language's scopes, rename and import clean-ups, then one module per
//!   refactor (extract, inline, convert, add an import).
//!
//! ```
//! use filekit_semantic::{Lang, ts::extract};
//!
//! let text = "function total(a: number[]) {\n  return a.length * 2;\n}\n";
//! let selected = text.find("a.length").unwrap();
//! let x = extract::extract_variable(
//!     Lang::TypeScript,
//!     text,
//!     selected..selected + "a.length".len(),
//!     "count",
//!     false,
//! )
//! .unwrap();
//! // The result is the edit value: splices of the text it was computed on.
//! assert_eq!(
//!     x.splices.apply(text).unwrap(),
//!     "function total(a: number[]) {\n  const count = a.length;\n  return count * 2;\n}\n"
//! );
//! ```

pub mod bounds;
pub mod code;
pub mod imports;
pub mod lang;
pub mod ops;
pub mod parse_cache;
pub mod python;
mod steps;
pub mod style;
pub mod suggest;
mod tree_memory;
pub mod ts;

use serde::Serialize;
use std::ops::Range;

pub use lang::Lang;

/// One thing found in a file.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// `class`, `function`, `method`, `property`, `object`, `array`, `section`, ...
    pub kind: String,
    /// The name an agent uses to target it again: a symbol path (`UserService.findById`), a
    /// normalized JSONPath (`$['scripts']['build']`), a heading text.
    pub path: String,
    /// Its last name (`findById`, `build`, the heading text).
    pub name: String,
    /// Bytes of the whole thing (for exported code, from `export`; for a section, from the
    /// heading to the next heading of the same or a higher level).
    #[serde(skip)]
    pub range: Range<usize>,
    /// Bytes of its body, when it has one (`{ ... }` of a function or class, a Python block,
    /// a section's text under its heading, an object or array value).
    #[serde(skip)]
    pub body: Option<Range<usize>>,
    /// The declaration without its body, on one line (`async findById(id: string): User`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// How far nested it is (0 for top level), for outlines.
    pub depth: usize,
}

/// An import a symbol uses: the local name and the module it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub symbol: String,
    pub from: String,
}

/// A position in a text: 1-based line, 0-based column in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// The line and column of byte `offset` of `text`.
pub fn position(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: before.bytes().filter(|&b| b == b'\n').count() + 1,
        column: text[line_start..offset].chars().count(),
    }
}

/// Line starts of a text, for many [`position`]s of one text (an outline of thousands of
/// symbols) without rescanning it for each.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { text, starts }
    }

    /// Same as [`position`].
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        Position {
            line,
            column: self.text[start..offset].chars().count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_agree_with_position() {
        let text = "ab\n\nçd\nlast";
        let lines = Lines::new(text);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            assert_eq!(lines.position(offset), position(text, offset), "{offset}");
        }
    }
}
