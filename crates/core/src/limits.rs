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

/// The most one reply carries, all its parts together: the content of the files a read of
/// many files returns, the entries of a listing or a tree, the paths and lines a search
/// finds, the diffs of a dry run. Past it a reply is cut and says where to go on (another
/// call, a narrower path). Twice what one read of one file returns: that read fits with room
/// beside it; and what a call holds for its reply is bounded before it is read, so that one
/// call cannot take the memory a server's other sessions need (measured: the attacks of
/// SECURITY.md's "Replies" peak under 100 MB in a release server).
pub const MAX_REPLY_BYTES: u64 = 4 << 20;

/// What one reply may still carry: a budget of bytes shared by the parts of one call (its
/// clones share it). Each part asks before it allocates ([`ReplyBudget::reserve`]) and
/// gives back what it did not use ([`ReplyBudget::settle`]). The first part is always
/// admitted, whatever its size (its own bound is the one of its kind, such as
/// [`MAX_FILE_SIZE`]), so a call always makes progress and its continuation starts after it.
#[derive(Debug, Clone)]
pub struct ReplyBudget {
    inner: std::sync::Arc<BudgetState>,
}

#[derive(Debug)]
struct BudgetState {
    max: u64,
    used: std::sync::atomic::AtomicU64,
    parts: std::sync::atomic::AtomicU64,
}

impl Default for ReplyBudget {
    fn default() -> Self {
        ReplyBudget::new(MAX_REPLY_BYTES)
    }
}

impl ReplyBudget {
    /// A budget of `max` bytes.
    pub fn new(max: u64) -> Self {
        ReplyBudget {
            inner: std::sync::Arc::new(BudgetState {
                max,
                used: Default::default(),
                parts: Default::default(),
            }),
        }
    }

    /// A budget that never runs out (a caller that bounds its output itself).
    pub fn unlimited() -> Self {
        ReplyBudget::new(u64::MAX)
    }

    /// The bytes the whole reply may carry.
    pub fn max(&self) -> u64 {
        self.inner.max
    }

    /// The bytes taken so far.
    pub fn used(&self) -> u64 {
        self.inner.used.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Takes `bytes` for one part of the reply when they fit in what is left, or when no part
    /// was taken yet; false (nothing taken) otherwise.
    pub fn reserve(&self, bytes: u64) -> bool {
        use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
        let first = self.inner.parts.fetch_add(1, AcqRel) == 0;
        let taken = self
            .inner
            .used
            .fetch_update(AcqRel, Acquire, |used| {
                let after = used.saturating_add(bytes);
                (first || after <= self.inner.max).then_some(after)
            })
            .is_ok();
        if !taken {
            self.inner.parts.fetch_sub(1, Relaxed);
        }
        taken
    }

    /// Charges a part that reserved `reserved` bytes with what it turned out to take, `used`:
    /// the rest goes back, or the excess is added (a diff longer than its file).
    pub fn settle(&self, reserved: u64, used: u64) {
        use std::sync::atomic::Ordering::AcqRel;
        if used < reserved {
            self.inner.used.fetch_sub(reserved - used, AcqRel);
        } else if used > reserved {
            self.inner.used.fetch_add(used - reserved, AcqRel);
        }
    }

    /// True when a part of `bytes` would no longer be admitted.
    pub fn spent_for(&self, bytes: u64) -> bool {
        self.inner.parts.load(std::sync::atomic::Ordering::Acquire) > 0
            && self.used().saturating_add(bytes) > self.inner.max
    }

    /// The refusal of a part the budget no longer admits (`TOO_LARGE`, [`Limit::ResultSize`]):
    /// `what` is the part ("not read"), `instead` says how to get it (another call, an
    /// offset).
    pub fn refusal(&self, what: &str, needed: u64, instead: &str) -> FkError {
        let (used, max) = (self.used(), self.inner.max);
        let message = if needed == 0 {
            format!(
                "{what}: this reply already holds {used} bytes, all of the {max} one reply carries"
            )
        } else {
            format!(
                "{what}: this reply already holds {used} bytes, and {needed} more would pass the \
                 {max} bytes one reply carries"
            )
        };
        FkError::too_large(Limit::ResultSize, used.saturating_add(needed), max, message)
            .with_hint(instead.to_string())
    }
}
