//! # filekit-core
//!
//! The filekit engine: file operations for AI coding agents that are batched, safe and exact.
//! It knows nothing of MCP, JSON-RPC or terminals; the dialect tables (`filekit-dialects`) and
//! front ends (`filekit` CLI, MCP server) are thin layers over it.
//!
//! - [`workspace`]: the allowed roots and sandboxed path resolution; every open and every
//!   write goes through it. [`limits`]: the bounds on what a workspace or request can make
//!   filekit do (sizes, depths, work).
//! - [`read`]: versioned reads of one or many files (line ranges, `content_hash`,
//!   `last_modified`, images, binary files described).
//! - [`pipeline`]: the one pipeline for every write: snapshot, resolve, preview, commit, report.
//!   [`edit`] is its vocabulary; [`lines`], [`sequential`] and [`sed`] resolve edits into
//!   [`splices`] (the `filekit-splices` crate: the edit value), and [`nearmiss`] (the
//!   `filekit-nearmiss` crate) says where a text not found nearly is; [`merge`] carries
//!   edits made on an older version into the file as it is; [`diff`] previews them.
//! - [`transaction`]: the commit step, the only code that changes the file tree (the
//!   pipeline, [`fsops`] and [`undo`] all commit through it); `removable` checks a tree can
//!   be removed before any of it is.
//! - [`fsops`]: delete, move, copy and create of files and directories, with the rewrites (imports)
//!   that go with them. [`replace`]: the tree-wide sed `s` over the files [`select`] chooses.
//! - [`search`]: read-only listings, glob and grep on ripgrep's crates (`ignore`,
//!   `globset`, `grep-searcher`, `grep-regex`).
//! - [`text`] and [`hash`]: how text is decoded, indexed and versioned.
//! - [`state`]: where filekit keeps what it trusts, a private directory of the user's outside
//!   the workspace: [`history`] (every commit, for undo), [`versions`] (the content of every
//!   version served or written, for merges), [`leases`] (advisory locks across processes).
//! - [`error`]: `FkError`, what every failure is: a stable code, words, a hint and facts (the
//!   `filekit-errors` crate, which the parsers' crates use without linking the engine).
//!
//! Two edits of one file in one request, both placed on the file as it was read, then written
//! atomically:
//!
//! ```
//! use filekit_core::Workspace;
//! use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileEdits};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("app.py"), "DEBUG = True\nNAME = 'app'\n").unwrap();
//! let ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
//! let request = EditRequest {
//!     files: vec![FileEdits {
//!         path: "app.py".into(),
//!         edits: vec![
//!             Edit::ReplaceText {
//!                 old: "True".into(),
//!                 new: "False".into(),
//!                 expected: Expected::Exactly(1),
//!                 label: None,
//!             },
//!             Edit::Insert { after: 0, text: "# settings\n".into(), content_hash: None },
//!         ],
//!         base_hash: None,
//!     }],
//!     options: EditOptions::default(),
//! };
//! let report = filekit_core::pipeline::apply(&ws, &request);
//! assert!(report.success());
//! assert_eq!(
//!     std::fs::read_to_string(dir.path().join("app.py")).unwrap(),
//!     "# settings\nDEBUG = False\nNAME = 'app'\n"
//! );
//! ```

/// The edit value every writer produces: see the `filekit-splices` crate.
pub use filekit_splices as splices;

/// What every failure is: see the `filekit-errors` crate.
pub use filekit_errors as error;
pub mod content;
pub mod encoding;
pub mod fsops;
pub mod hash;
pub mod history;
mod intent_log;
pub mod interrupt;
pub mod leases;
pub mod limits;
pub mod merge;
pub mod pipeline;
pub mod protect;
// The pipeline's vocabulary and its resolvers live in its folder; their paths stay the crate's.
/// Where a text not found nearly is: see the `filekit-nearmiss` crate.
pub use filekit_nearmiss as nearmiss;
pub use pipeline::{diff, edit, lines, sed, sequential};
pub mod read;
mod removable;
pub mod replace;
pub mod search;
pub mod select;
pub mod state;
pub mod text;
pub mod transaction;
pub mod undo;
pub mod versions;
pub mod workspace;

pub use edit::{
    Control, Edit, EditOptions, EditOptionsBuilder, EditReport, EditRequest, Expected, FileEdits,
    FileOutcome, FileReport, Progress,
};
pub use error::{ErrorCode, Fact, FkError, Limit, LimitFacts};
pub use workspace::Workspace;
