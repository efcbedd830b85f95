//! Patches as models write them, parsed into one neutral structure and placed on a file's
//! text.
//!
//! Three families of formats are read ([`parse`]): Codex's patch envelope (`*** Begin Patch`,
//! called V4A), unified diffs as `git diff` and `diff -u` write them, and SEARCH/REPLACE
//! blocks (aider's, Cline's and Roo Code's). Each becomes a [`Patch`]: a list of files to add,
//! delete or update (with an optional move), an update being hunks of context, removed and
//! added lines.
//!
//! [`place`] finds where each hunk of an update goes in a file's text: exactly first, then with
//! the tolerances for what models get wrong, in order ([`Tolerance`]). The file keeps its own
//! lines: only the lines a hunk removes and adds change, so a context line written with drift
//! never overwrites the file's. A hunk found in several places that neither its line number nor
//! its format's order tells apart, or nowhere, is refused with its candidates and the near
//! miss; SEARCH/REPLACE blocks apply one after another. The work is linear in the file, and
//! what checking a hunk's places costs beyond that is bounded (a hunk that spends the budget is
//! refused with the fact). The result is the engine's edit value, [`Splices`], with a report
//! for every hunk.
//!
//! This crate knows no files, paths on disk, tools or protocols: the front ends read the files,
//! and send the splices through the engine's one pipeline.
//!
//! ```
//! use filekit_patch::{FileOp, Format, HunkOutcome, Tolerance, parse, place};
//!
//! let file = "def main():\n    debug = True\n    run()\n";
//! // The model indented the whole hunk two spaces too deep: placed all the same, and the
//! // added line takes the file's indentation.
//! let patch = parse(
//!     "*** Begin Patch\n*** Update File: app.py\n@@\n   def main():\n-      debug = True\n+      debug = False\n*** End Patch",
//!     None,
//! )
//! .unwrap();
//! assert_eq!(patch.format, Format::V4a);
//! let FileOp::Update { hunks, .. } = &patch.files[0].op else { unreachable!() };
//! let placed = place(file, hunks, patch.format);
//! assert_eq!(placed.hunks[0].outcome, HunkOutcome::Tolerated);
//! assert_eq!(placed.hunks[0].tolerances, vec![Tolerance::Indentation]);
//! let new = placed.splices.unwrap().apply(file).unwrap();
//! assert_eq!(new, "def main():\n    debug = False\n    run()\n");
//! ```

mod parse;
mod place;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod testing;
#[cfg(test)]
mod tests;

pub use filekit_splices::Splices;
pub use parse::{ParseError, parse};
pub use place::{
    HunkOutcome, HunkReport, IndentConvention, PLACEMENT_WORK, Placement, Tolerance, place,
    place_with,
};

use serde::Serialize;

/// The format a patch is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Codex's envelope: `*** Begin Patch` … `*** End Patch`.
    V4a,
    /// `git diff`, `diff -u`.
    Unified,
    /// aider's, Cline's and Roo Code's SEARCH/REPLACE blocks.
    SearchReplace,
}

impl Format {
    /// Every format, in the order a tool's schema lists them.
    pub const ALL: [Format; 3] = [Format::V4a, Format::Unified, Format::SearchReplace];

    /// The format of that name ([`Format::name`]).
    pub fn named(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Its name, as the `format` of a tool's arguments and replies spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::V4a => "v4a",
            Format::Unified => "unified",
            Format::SearchReplace => "search_replace",
        }
    }
}

/// A parsed patch: what it does to each file, in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub format: Format,
    pub files: Vec<FilePatch>,
}

/// What a patch does to one file. `path` is as written in the patch (prefixes such as git's
/// `a/` removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub path: String,
    pub op: FileOp,
    /// 1-based line of the patch where this file's part starts.
    pub patch_line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create the file with this content (an existing one is replaced).
    Add { content: String },
    /// Delete the file.
    Delete,
    /// Change the file by hunks, then move it if `move_to` is set. `create_if_missing`: the
    /// hunks only add lines and the format says that means a new file when there is none
    /// (aider's empty SEARCH block).
    Update {
        move_to: Option<String>,
        hunks: Vec<Hunk>,
        create_if_missing: bool,
    },
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Removed(String),
    Added(String),
}

impl HunkLine {
    pub fn text(&self) -> &str {
        match self {
            HunkLine::Context(t) | HunkLine::Removed(t) | HunkLine::Added(t) => t,
        }
    }
}

/// A run of changed lines with the context around them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// A line the hunk comes after (V4A's `@@ def f():`), searched for first.
    pub header: Option<String>,
    /// 1-based line of the old text where the hunk starts, as the patch says (a hint).
    pub line_hint: Option<usize>,
    pub lines: Vec<HunkLine>,
    /// The hunk's old lines end the file (V4A's `*** End of File`).
    pub end_of_file: bool,
    /// The old, and the new, text has no newline after its last line (`\ No newline at end of
    /// file`).
    pub old_no_newline: bool,
    pub new_no_newline: bool,
    /// 1-based line of the patch where the hunk starts.
    pub patch_line: usize,
}

impl Hunk {
    /// The lines of the old text the hunk expects (context and removed).
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Added(_)))
            .map(HunkLine::text)
            .collect()
    }

    /// The lines of the new text (context and added).
    pub fn new_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Removed(_)))
            .map(HunkLine::text)
            .collect()
    }
}
