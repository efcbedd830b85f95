//! The bounds on what a workspace or a request can make filekit do, in one place.
//!
//! The workspace is untrusted input: a file may be 100 GB (sparse: it costs its maker no
//! disk), a search text may be thousands of lines, a request may be a gigabyte of JSON.
//! Every operation that holds a whole file in memory, parses it, or searches it without an
//! index therefore has a bound, chosen by measuring filekit's resident memory at the bound
//! (ARCHITECTURE.md and SECURITY.md give the figures). Going over one is a
//! [`TooLarge`](crate::ErrorCode::TooLarge) failure whose facts (`details.limit`) each front
//! end can render in its own words; nothing on disk is changed and nothing is read whole
//! first.

use crate::error::{FkError, Limit};

/// The largest file filekit holds whole: edits of every kind, a file's new content (a write,
/// a create), the version of a read (its `content_hash`, what `since_hash` and merges use),
/// a tree-wide replace's files. A read of a larger file streams the lines it returns and
/// costs what they cost; it has no whole-file version.
pub const MAX_FILE_SIZE: u64 = 2 << 20;

/// The most a search holds of one file: its longest line (with the lines of context around a
/// match), or for a multi-line pattern the whole file. A file that needs more is passed over
/// and counted with the files that could not be read; a minified bundle's lines fit.
pub const MAX_SEARCH_BUFFER: u64 = 16 << 20;

/// The largest request a front end reads (one tool call of `filekit call`): room for a
/// write of a [`MAX_FILE_SIZE`] file whose JSON string escapes some of its characters.
pub const MAX_REQUEST_SIZE: u64 = 2 * MAX_FILE_SIZE + (1 << 20);

/// Character comparisons the near-miss search of one failed edit may make (line-ending and
/// white-space matches, the word windows, the character diffs of the best candidates): a
/// search text of thousands of lines against a large file stops here and says it gave up.
pub const NEAR_MISS_WORK: u64 = 50_000_000;

/// Comparisons the placement of one file's patch hunks may make beyond its passes over the
/// file (a few per level of tolerance for each of its first hunks): checking the places a
/// hunk's lines fit (indentation, blank lines between them). A hunk whose lines fit too many
/// places stops here and is refused saying so.
pub const PLACEMENT_WORK: u64 = 100_000_000;

/// `path` (shown as `shown`) is `size` bytes, over `max`, the bound for `what` (what filekit
/// would do with it whole: "edit", "parse"); `instead` says what to do instead.
pub fn file_too_large(shown: &str, size: u64, max: u64, what: &str, instead: &str) -> FkError {
    FkError::too_large(
        Limit::FileSize,
        size,
        max,
        format!("{shown} is {size} bytes, larger than the {max} bytes filekit will {what} whole"),
    )
    .with_hint(instead.to_string())
}

/// The refusal of an edit, a merge or a read of a version of a file over [`MAX_FILE_SIZE`].
pub fn too_large_to_edit(shown: &str, size: u64) -> FkError {
    file_too_large(
        shown,
        size,
        MAX_FILE_SIZE,
        "read or edit",
        "read a range of its lines instead (a start and an end line); a file this large cannot be edited",
    )
}

/// The refusal of a parse of a file over [`MAX_FILE_SIZE`] (semantic reads and edits,
/// refactors, the import graph).
pub fn too_large_to_parse(shown: &str, size: u64) -> FkError {
    file_too_large(
        shown,
        size,
        MAX_FILE_SIZE,
        "parse",
        "read or edit a range of its lines instead (line numbers); find what you need with a search of its text first",
    )
}
