//! # filekit-core
//!
//! The filekit engine: file operations for AI coding agents that are batched, safe and exact.
//! It knows nothing of MCP, JSON-RPC or terminals; the dialect tables (`filekit-dialects`) and
//! front ends (`filekit` CLI, MCP server) are thin layers over it.
//!
//! - [`workspace`]: the allowed roots and sandboxed path resolution; every open and every
//!   write goes through it.
//! - [`read`]: versioned reads of one or many files (line ranges, `content_hash`,
//!   `last_modified`, images, binary files described).
//! - [`pipeline`]: the one pipeline for every write: snapshot, resolve, preview, commit, report.
//!   [`edit`] is its vocabulary; [`lines`], [`sequential`] and [`nearmiss`] resolve edits;
//!   [`diff`] previews them.
//! - [`search`]: read-only listings, glob and grep on ripgrep's crates (`ignore`,
//!   `globset`, `grep-searcher`, `grep-regex`).
//! - [`text`] and [`hash`]: how text is decoded, indexed and versioned.
//! - [`state`]: where filekit keeps what it trusts (history, versions, leases, journals):
//!   a private directory of the user's, outside the workspace.

/// The edit value every writer produces: see the `filekit-splices` crate.
pub use filekit_splices as splices;

pub mod diff;
pub mod edit;
pub mod error;
pub mod fsops;
pub mod hash;
pub mod history;
pub mod leases;
pub mod limits;
pub mod lines;
pub mod merge;
pub mod nearmiss;
pub mod pipeline;
pub mod read;
mod removable;
pub mod replace;
pub mod search;
pub mod sed;
pub mod select;
pub mod sequential;
pub mod state;
pub mod text;
pub mod transaction;
pub mod undo;
pub mod versions;
pub mod workspace;

pub use edit::{
    Control, Edit, EditOptions, EditReport, EditRequest, Expected, FileEdits, FileReport, Progress,
};
pub use error::{ErrorCode, Fact, FkError, Limit, LimitFacts};
pub use workspace::Workspace;
