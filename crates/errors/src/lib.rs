//! # filekit-errors
//!
//! Errors an agent can act on.
//!
//! Every failure carries a stable [`ErrorCode`] (for programs), a message that says what was
//! wrong and where, and a hint that says what to try next (for models and people). Some
//! failures carry structured details: the lines of ambiguous matches, the closest near miss,
//! the current excerpt of a stale range, the [`Fact`] a front end words in its own vocabulary,
//! the [`Limit`] a request hit. An error made from an OS error keeps it as its
//! [`source`](std::error::Error::source).
//!
//! A leaf crate (it needs only serde and the edit value's crate), so that the parsers'
//! crates (`filekit-semantic`, `filekit-lsp`) return filekit's errors without linking the
//! engine and SQLite.
//!
//! ```
//! use filekit_errors::{ErrorCode, FkError};
//!
//! let io = std::io::Error::from(std::io::ErrorKind::NotFound);
//! let err = FkError::from_io(&io, "src/app.py");
//! assert_eq!(err.code, ErrorCode::NotFound);
//! assert_eq!(err.to_string(), "NOT_FOUND: src/app.py: no such file or directory");
//! assert!(std::error::Error::source(&err).is_some());
//!
//! let err = FkError::invalid("the range 9..4 is reversed").with_hint("give start <= end");
//! assert_eq!(err.full_message(), "the range 9..4 is reversed (give start <= end)");
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Stable, machine-readable classification of a failure. New codes may come: match with a
/// wildcard arm outside this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The file or directory does not exist.
    NotFound,
    /// A search string matched more often than expected.
    Ambiguous,
    /// The file changed since the caller read it (`content_hash` mismatch).
    Stale,
    /// The path leaves the allowed roots.
    OutOfRoot,
    /// What was asked clashes with itself or with what is there: edits of one request that
    /// change the same text, a destination that already exists, a new name already taken in
    /// its scope, a refactor that would change what a name means.
    Conflict,
    /// Text could not be parsed (a request, a pattern, a document).
    ParseError,
    /// The file is binary and cannot be handled as text.
    Binary,
    /// The file is not valid UTF-8.
    Encoding,
    /// An argument is missing, of the wrong type, or out of range.
    InvalidArgument,
    /// A directory was given where a file is wanted (or the reverse).
    IsDirectory,
    /// The operating system refused access.
    PermissionDenied,
    /// The workspace is read-only.
    ReadOnly,
    /// The request names a tool that does not exist.
    UnknownTool,
    /// The caller stopped the request before it wrote anything.
    Cancelled,
    /// The system ran out of something the request needs (open files, disk space, a quota):
    /// nothing is wrong with the request; it can succeed once there is more of it.
    ResourceExhausted,
    /// Any other input/output failure.
    Io,
    /// Another holder has a lease on the path (see `leases`).
    Locked,
    /// The input is over one of the bounds filekit keeps on what a workspace or a request
    /// can make it do (a file's size, a document's nesting, a count); see [`Limit`].
    TooLarge,
    /// The request needs a program that would run the workspace's code (a language server),
    /// and the person who started filekit has not said they trust this workspace.
    NotTrusted,
    /// filekit got something wrong itself (an edit it computed does not fit the text it was
    /// computed on): a bug to report, not something the request can change.
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Ambiguous => "AMBIGUOUS",
            ErrorCode::Stale => "STALE",
            ErrorCode::OutOfRoot => "OUT_OF_ROOT",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::Binary => "BINARY",
            ErrorCode::Encoding => "ENCODING",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::IsDirectory => "IS_DIRECTORY",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ReadOnly => "READ_ONLY",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
            ErrorCode::Io => "IO",
            ErrorCode::Locked => "LOCKED",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::NotTrusted => "NOT_TRUSTED",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// A failure with a code, a message, an optional hint and optional structured details.
#[derive(Debug, Clone, Serialize)]
pub struct FkError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Structured facts for the caller (near miss, matching lines, current content). Boxed
    /// so that `Result<_, FkError>` stays small on the happy path.
    #[serde(skip_serializing_if = "details_is_null")]
    pub details: Box<serde_json::Value>,
    /// The OS error this one was made from ([`FkError::from_io`]), for programs that look
    /// at causes; never serialized (the message says it).
    #[serde(skip)]
    pub source: Option<Arc<std::io::Error>>,
}

fn details_is_null(details: &serde_json::Value) -> bool {
    details.is_null()
}

impl FkError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        FkError {
            code,
            message: message.into(),
            hint: None,
            details: Box::new(serde_json::Value::Null),
            source: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Box::new(details);
        self
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        FkError::new(ErrorCode::InvalidArgument, message)
    }

    /// Splices a caller gave (byte ranges of a text it read) that do not fit that text:
    /// `INVALID_ARGUMENT`, naming the range as given and saying why. Splices filekit
    /// computed itself convert with `From` instead, as an internal error.
    pub fn caller_splices(
        err: &filekit_splices::SpliceError,
        given: &[filekit_splices::Splice],
        text_len: usize,
    ) -> Self {
        use filekit_splices::SpliceError as E;
        let k = match err {
            E::Reversed { splice, .. }
            | E::OutOfBounds { splice, .. }
            | E::NotOnCharBoundary { splice, .. }
            | E::NotSorted { splice } => Some(*splice),
            E::Overlap { second, .. } => Some(*second),
            E::WrongText { .. } => None,
        };
        let range = match k.and_then(|k| given.get(k).map(|s| (k, s))) {
            Some((k, s)) => format!("range {k} ({}..{})", s.start, s.end),
            None => "the ranges".to_string(),
        };
        FkError::invalid(format!(
            "{range} does not fit the text of {text_len} bytes ({err}): ranges must be sorted, disjoint and on character boundaries"
        ))
        .with_hint("compute the ranges on the decoded text of the file as read")
    }

    /// Maps an OS error on `what` (a displayable path) to the matching code, keeping the OS
    /// error as the source (the same OS error number, or its kind and words).
    pub fn from_io(err: &std::io::Error, what: &str) -> Self {
        let source = match err.raw_os_error() {
            Some(n) => std::io::Error::from_raw_os_error(n),
            None => std::io::Error::new(err.kind(), err.to_string()),
        };
        let mut out = FkError::from_io_kind(err, what);
        out.source = Some(Arc::new(source));
        out
    }

    fn from_io_kind(err: &std::io::Error, what: &str) -> Self {
        use std::io::ErrorKind as K;
        // Too many open files: of this process (EMFILE) or of the whole system (ENFILE).
        const EMFILE: i32 = 24;
        const ENFILE: i32 = 23;
        match err.raw_os_error() {
            Some(EMFILE) => {
                return FkError::new(
                    ErrorCode::ResourceExhausted,
                    format!(
                        "{what}: this process has as many files open as its limit allows ({err}); the file was left as it was"
                    ),
                )
                .with_hint("raise the open-file limit (ulimit -n, up to its hard limit), or send the request again in smaller parts");
            }
            Some(ENFILE) => {
                return FkError::new(
                    ErrorCode::ResourceExhausted,
                    format!(
                        "{what}: the system has as many files open as it allows ({err}); the file was left as it was"
                    ),
                )
                .with_hint("close programs that hold many files, or raise the system's limit (fs.file-max), then send the request again");
            }
            _ => {}
        }
        match err.kind() {
            K::NotFound => FkError::new(
                ErrorCode::NotFound,
                format!("{what}: no such file or directory"),
            ),
            K::PermissionDenied => FkError::new(
                ErrorCode::PermissionDenied,
                format!("{what}: permission denied"),
            )
            .with_hint("check the file's permissions, or choose a file this process may access"),
            K::IsADirectory => FkError::new(
                ErrorCode::IsDirectory,
                format!("{what} is a directory, not a file"),
            )
            .with_hint("give the path of a file inside it; list the directory to see its files"),
            K::StorageFull | K::QuotaExceeded => FkError::new(
                ErrorCode::ResourceExhausted,
                format!(
                    "{what}: the disk is full or over quota ({err}); the file was left as it was"
                ),
            )
            .with_hint("free some space on that filesystem, then send the request again"),
            K::ReadOnlyFilesystem => FkError::new(
                ErrorCode::Io,
                format!("{what}: the filesystem is mounted read-only; the file was left as it was"),
            )
            .with_hint("work on files of a writable filesystem"),
            _ => FkError::new(ErrorCode::Io, format!("{what}: {err}")),
        }
    }

    /// The message followed by the hint, as one line of text for a model or a terminal.
    pub fn full_message(&self) -> String {
        match &self.hint {
            Some(h) => format!("{} ({})", self.message, h),
            None => self.message.clone(),
        }
    }
}

/// What an edit's failure is about, as a fact a front end names in its own words (its
/// argument names, its numbering of edits): kept in `details["fact"]`, beside the facts
/// it names. The engine's own message and hint say it in neutral words ("the search
/// text"), never a tool's argument or a CLI flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    /// The search text of a text replacement is empty: there is nothing to search for.
    SearchTextEmpty,
    /// The search text occurs `details.count` times (first lines in `details.lines`), not
    /// the `details.expected` times the edit asked for. The edit may ask for every match.
    MatchCount,
    /// The search text is not in the file; `details.near_miss` is the closest text (line,
    /// similarity, what was found, a character diff), or null.
    SearchTextNotFound,
    /// The expected count of matches is 0.
    ExpectedCountZero,
    /// A line number is outside the file: `details.which` is `start`, `end` or `after` (the
    /// line to insert after), `details.value` the number given, `details.line_count` the
    /// file's.
    LineOutOfRange,
    /// The end line (`details.end`) is before the start line (`details.start`).
    LineOrder,
    /// The version an edit named (`details.given`) is neither the file as it is now
    /// (`details.file_hash`) nor the lines it edits (`details.lines_hash`): the file changed
    /// since it was read; `details.current` has those lines as they are now.
    Version,
    /// Two edits of one file change the same text: this one (`details.edit`, counted from
    /// 0 in the request, described by `details.what`) and an earlier one
    /// (`details.conflicts_with`, `details.other_what`).
    EditsOverlap,
    /// The path a file would be created at, or an operation's destination (`details.path`),
    /// already exists, and the request did not ask to replace it. Whether and how a caller
    /// may ask is the caller's (an `overwrite` argument, a flag, or no way at all).
    AlreadyExists,
    /// A directory to delete (`details.path`) has entries in it (`details.entries`, when
    /// counted), and the request did not ask to delete them with it.
    DirectoryNotEmpty,
    /// An operation's destination (`details.path`) exists and its source cannot replace it
    /// even when asked to, as a rename cannot: a directory by a file, a file or link by a
    /// directory, or a directory with entries in it (`details.entries`) by a directory.
    CannotReplace,
    /// A refactor would declare parameters without a type (`details.parameters`: each
    /// `name` and `why` no type is known), which the project's compiler refuses
    /// (`details.because`: the setting and the file that says so), and the request did not
    /// ask for them untyped. Whether and how a caller may ask is the caller's.
    UntypedParameters,
    /// A file (`details.path`) exists and may be writable, but its folder does not let this
    /// process create the new file that an atomic write makes beside it. A write in place
    /// needs only the file's own permission; whether and how a caller may ask for one is the
    /// caller's.
    FolderNotWritable,
}

impl FkError {
    /// The fact this error reports, when the engine named one (see [`Fact`]).
    pub fn fact(&self) -> Option<Fact> {
        self.details
            .get("fact")
            .and_then(|f| serde_json::from_value(f.clone()).ok())
    }
}

impl fmt::Display for FkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.full_message())
    }
}

impl std::error::Error for FkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Which bound a [`TooLarge`](ErrorCode::TooLarge) failure hit. The bounds exist because the
/// workspace is untrusted input: a file, a name or a document in it must not make filekit use
/// unbounded memory, time or stack. A failure carries the facts (`details.limit`: what, how
/// much was found, the bound), so that each front end can say it in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Bytes of a file that an operation would hold whole (edits, semantic reads).
    FileSize,
    /// Levels of nesting of a document or a syntax tree.
    Nesting,
    /// Nodes a document expands to (YAML aliases, entity-like expansion).
    Expansion,
    /// Bytes of one request (a tool call, a JSON-RPC message).
    RequestSize,
    /// Leases held in one workspace, or paths in one lease request.
    Leases,
    /// Work a search may do: for a near miss, or for the place of a patch's hunk.
    SearchWork,
    /// Nesting of a pattern a request gives: a glob's braces, a query's brackets.
    Pattern,
    /// Bytes of text a document's references add when expanded (XML entities, YAML aliases).
    ExpandedText,
    /// Targets (matches of a path, selector or XPath) one semantic read or edit takes.
    Targets,
    /// Bytes one reply carries together (the files a read returns, a listing's entries, a
    /// search's matches, a dry run's diffs), or the targets of one semantic read (their paths
    /// and content).
    ResultSize,
    /// Bytes the syntax tree of one parse takes.
    SyntaxTree,
}

impl Limit {
    /// The unit the counts of this bound are in, for messages.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::FileSize
            | Limit::RequestSize
            | Limit::ExpandedText
            | Limit::ResultSize
            | Limit::SyntaxTree => "bytes",
            Limit::Nesting | Limit::Pattern => "levels",
            Limit::Expansion => "nodes",
            Limit::Leases => "leases",
            Limit::SearchWork => "comparisons",
            Limit::Targets => "targets",
        }
    }
}

/// A bound and what was found against it: the facts of a [`TooLarge`](ErrorCode::TooLarge)
/// failure (`details.limit`), also reported where an operation went on within the bound (a
/// read of a file too large to have a version, a near-miss search that gave up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LimitFacts {
    pub kind: Limit,
    pub found: u64,
    pub max: u64,
    pub unit: &'static str,
}

impl LimitFacts {
    pub fn new(kind: Limit, found: u64, max: u64) -> LimitFacts {
        LimitFacts {
            kind,
            found,
            max,
            unit: kind.unit(),
        }
    }
}

impl FkError {
    /// A [`TooLarge`](ErrorCode::TooLarge) failure: `subject` (a path, "the request", ...)
    /// has `found` where the bound is `max`. `message` says it for people; the facts are also
    /// in `details.limit` (`kind`, `found`, `max`, `unit`).
    pub fn too_large(kind: Limit, found: u64, max: u64, message: impl Into<String>) -> FkError {
        FkError::new(ErrorCode::TooLarge, message).with_details(serde_json::json!({
            "limit": LimitFacts::new(kind, found, max)
        }))
    }
}

pub type Result<T, E = FkError> = std::result::Result<T, E>;

/// Splices filekit computed that do not fit the text they were computed for: a bug, reported
/// as `INTERNAL` rather than written. (A caller's ranges are [`FkError::caller_splices`].)
impl From<filekit_splices::SpliceError> for FkError {
    fn from(err: filekit_splices::SpliceError) -> Self {
        FkError::new(
            ErrorCode::Internal,
            format!("filekit computed an edit that does not fit its file: {err}"),
        )
        .with_hint("nothing was written; report this as a filekit bug, with the request")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filekit_splices::{Splice, SpliceError, Splices};

    #[test]
    fn running_out_of_files_or_space_is_resource_exhausted_with_the_way_on() {
        let too_many = std::io::Error::from_raw_os_error(24);
        let e = FkError::from_io(&too_many, "/w/a.txt");
        assert_eq!(e.code, ErrorCode::ResourceExhausted);
        assert_eq!(e.code.as_str(), "RESOURCE_EXHAUSTED");
        assert!(e.message.starts_with("/w/a.txt: "), "{e}");
        assert!(e.message.contains("left as it was"), "{e}");
        assert!(e.hint.as_deref().unwrap().contains("ulimit -n"), "{e:?}");
        let system = FkError::from_io(&std::io::Error::from_raw_os_error(23), "/w/a.txt");
        assert_eq!(system.code, ErrorCode::ResourceExhausted);
        assert!(system.hint.as_deref().unwrap().contains("file-max"));
        let full = FkError::from_io(&std::io::Error::from(std::io::ErrorKind::StorageFull), "x");
        assert_eq!(full.code, ErrorCode::ResourceExhausted);
        assert!(full.message.contains("disk is full"), "{full}");
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn splice_errors_are_the_callers_or_filekits_by_origin() {
        let text = "héllo world\n";
        let refused = |given: Vec<Splice>| {
            let err = Splices::new(text, given.clone()).unwrap_err();
            FkError::caller_splices(&err, &given, text.len())
        };
        // A caller's ranges: INVALID_ARGUMENT, naming the range as given and why.
        let e = refused(vec![Splice::new(5, 2, "x")]);
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(
            e.message
                .contains("range 0 (5..2) does not fit the text of 13 bytes"),
            "{e}"
        );
        assert!(e.message.contains("ends before it starts"), "{e}");
        let e = refused(vec![Splice::new(0, 6, "a"), Splice::new(3, 8, "b")]);
        assert!(e.message.contains("range 1 (3..8)"), "{e}");
        assert!(e.message.contains("overlapping"), "{e}");
        let e = refused(vec![Splice::new(2, 3, "x")]);
        assert!(e.message.contains("range 0 (2..3)"), "{e}");
        assert!(e.message.contains("cuts a character at byte 2"), "{e}");
        assert!(e.hint.as_deref().unwrap().contains("decoded text"));
        // Splices filekit computed: INTERNAL, nothing for the caller to fix.
        let e = FkError::from(SpliceError::Overlap {
            first: 0,
            second: 1,
        });
        assert_eq!(e.code, ErrorCode::Internal);
        assert_eq!(e.code.as_str(), "INTERNAL");
        assert!(
            e.message
                .contains("splices 0 and 1 change overlapping text"),
            "{e}"
        );
        assert!(e.hint.as_deref().unwrap().contains("nothing was written"));
    }
}
