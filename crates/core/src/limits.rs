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
//!
//! A file is held whole up to the workspace's bound ([`Workspace::max_file_size`], by
//! default [`DEFAULT_MAX_FILE_SIZE`]); a larger one is not refused but streamed: its reads,
//! line edits, text edits and substitutions pass over it a window at a time and write it by
//! copying it around the edited ranges, so that what they cost in memory does not grow with
//! the file.
//!
//! [`Workspace::max_file_size`]: crate::Workspace::max_file_size

use crate::error::{FkError, Limit};

/// The bound of a file held whole unless the front end sets another (`--max-file-size`).
/// An edit of a file held whole holds it about six times over (its text, the new text and
/// the bytes written, the report's texts, the history's compression of what it was, its line
/// indexes): measured, a one-file edit peaks at 126 MiB for a 16 MB file, 193 MiB for 32 MB
/// and 351 MiB for 63 MB. At 32 MiB it stays under the 256 MiB a filekit process may take,
/// and package locks, generated sources and fixtures of ordinary projects fit; larger files
/// stream, their edits in bounded memory, without merges or near misses.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 32 << 20;

/// Files larger than this are streamed by a tree-wide replace even under the workspace's
/// bound: its walk plans several files at once, and a streamed file's plan holds its edited
/// ranges, not its bytes (the result is the same, the report only keeps no texts, which a
/// tree-wide request does not keep anyway).
pub const MAX_REPLACE_WHOLE: u64 = 4 << 20;

/// The smallest bound a front end lets a person set: below it every source file would
/// stream, which gains nothing (the engine's own tests stream files of a few bytes).
pub const MIN_MAX_FILE_SIZE: u64 = 1 << 10;

/// The most text one read returns: a read that would return more stops at a whole line
/// under it and says where to read on (the next line of a range).
pub const MAX_READ_BYTES: u64 = 2 << 20;

/// The largest file a parser takes whole (semantic reads and edits, refactors, the import
/// graph): a syntax tree costs many times its text.
pub const MAX_PARSE_SIZE: u64 = 2 << 20;

/// The most a search holds of one file: its longest line (with the lines of context around a
/// match), or for a multi-line pattern the whole file. A file that needs more is passed over
/// and counted with the files that could not be read; a minified bundle's lines fit. A
/// streamed file's line longer than this cannot be substituted in (a substitution works
/// line by line).
pub const MAX_SEARCH_BUFFER: u64 = 16 << 20;

/// The largest content one request writes whole (a create, a write of a file's content).
pub const MAX_WRITE_SIZE: u64 = 2 << 20;

/// The largest request a front end reads (one tool call of `filekit call`): room for a
/// write of [`MAX_WRITE_SIZE`] bytes whose JSON string escapes some of its characters.
pub const MAX_REQUEST_SIZE: u64 = 2 * MAX_WRITE_SIZE + (1 << 20);

/// The near-miss search's budget: its crate's, so that the patch placement, which links no
/// engine, pays from the same. (The placement's own budget is `filekit_patch::PLACEMENT_WORK`.)
pub use filekit_nearmiss::NEAR_MISS_WORK;

/// Bytes the edits of one streamed file may hold (each replaced range and its new text, and
/// [`SPLICE_COST`] for each): a substitution of a frequent pattern in a file of gigabytes
/// would otherwise hold one splice per match. Past it the edits are refused, saying how much
/// they would hold.
pub const MAX_STREAMED_EDITS: u64 = 32 << 20;

/// What one splice of a streamed file's edits costs in memory besides its text (its offsets,
/// its string and the allocation of its text), as [`MAX_STREAMED_EDITS`] counts it.
pub const SPLICE_COST: u64 = 64;

/// Bytes of the diff an edit of a streamed file reports: one that would be longer (a
/// substitution on every line of a file of gigabytes) stops after the hunk that passes it,
/// and says so.
pub const MAX_STREAMED_DIFF: u64 = 16 << 20;

/// Occurrences of one search text a text edit of a streamed file keeps track of: one past
/// it, the search text is too frequent for an exact count of its matches.
pub const MAX_STREAMED_MATCHES: usize = 1 << 20;

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

/// The refusal of what needs a file whole (a merge of an older version, a whole new content)
/// when the file is over the workspace's bound `max`.
pub fn too_large_to_edit(shown: &str, size: u64, max: u64) -> FkError {
    file_too_large(
        shown,
        size,
        max,
        "read or edit",
        "read a range of its lines, and edit lines, text or a pattern in it: those stream through a file of any size (or raise the bound with --max-file-size)",
    )
}

/// The refusal of a parse of a file over [`MAX_PARSE_SIZE`] (semantic reads and edits,
/// refactors, the import graph).
pub fn too_large_to_parse(shown: &str, size: u64) -> FkError {
    file_too_large(
        shown,
        size,
        MAX_PARSE_SIZE,
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
pub const MAX_REPLY_BYTES: u64 = 2 * MAX_READ_BYTES;

/// What a reply about many files spends on one file's entry: its path, in the reply's value
/// and in its text, and its status and counts. A reply lists its files while
/// [`MAX_REPLY_BYTES`] (the workspace's bound) lasts at this cost, and a tree-wide dry run
/// keeps the reports of those files only ([`crate::replace::Dropped`]).
pub fn reply_entry_bytes(path: &str) -> u64 {
    2 * path.len() as u64 + 160
}

/// What one reply may still carry: a budget of bytes shared by the parts of one call (its
/// clones share it). Each part asks before it allocates ([`ReplyBudget::reserve`]) and
/// gives back what it did not use ([`ReplyBudget::settle`]). The first part is always
/// admitted, whatever its size (its own bound is the one of its kind, such as
/// [`MAX_READ_BYTES`]), so a call always makes progress and its continuation starts after it.
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

    /// Charges `bytes` that the reply carries whatever the budget says: an entry already
    /// made, such as a file's failure in a reply about many files. It is not a part: the
    /// first file actually read is still admitted whatever its size.
    pub fn charge(&self, bytes: u64) {
        self.inner
            .used
            .fetch_add(bytes, std::sync::atomic::Ordering::AcqRel);
    }

    /// In a reply about many files, when there is no room left for the entry of `path`: the
    /// one refusal that stands for it and the `after` files after it (a reply that said each
    /// of them would grow with the request, not the budget). `None` while there is room.
    pub fn no_room_for_files(&self, path: &str, after: usize) -> Option<FkError> {
        let entry = reply_entry_bytes(path);
        if self.used().saturating_add(entry) <= self.inner.max {
            return None;
        }
        let what = match after {
            0 => format!("{path} was not read"),
            n => format!("{path} and the {n} file(s) after it were not read"),
        };
        Some(self.refusal(
            &what,
            entry,
            &format!(
                "read them in another call, starting with {path}; the files before it in this \
                 call were read"
            ),
        ))
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

/// Parses a size as a person writes it: bytes, or a number with `K`, `M` or `G` (powers of
/// 1024, `KiB`/`KB`/`k` alike). For `--max-file-size` and its like.
pub fn parse_size(given: &str) -> Result<u64, String> {
    let s = given.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("'{given}' is not a size: give bytes, or a number with K, M or G"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => {
            return Err(format!(
                "'{other}' in '{given}' is not a unit: use K, M or G (powers of 1024)"
            ));
        }
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("'{given}' is too large a size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("2m"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1234"), Ok(1234));
        assert!(parse_size("12X").unwrap_err().contains("not a unit"));
        assert!(parse_size("M").unwrap_err().contains("not a size"));
        assert!(
            parse_size("99999999999999G")
                .unwrap_err()
                .contains("too large")
        );
    }
}
