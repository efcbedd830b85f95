//! # filekit-refactor
//!
//! The refactoring engine: what moving, renaming, copying and deleting files does to the
//! imports of a workspace, computed without a language server.
//!
//! - [`graph`]: the import graph (every file; every TS/TSX/JS file's module references),
//!   built with the engine's walk and reads, parsed in parallel, cached between calls.
//! - [`tsconfig`]: `baseUrl`, `paths` and `extends` of tsconfig.json / jsconfig.json.
//! - [`resolve`]: specifiers to files like TypeScript and Node, and specifiers written back
//!   in the style they had.
//! - [`rename`]: the files that a rename of an exported symbol changes (importers, through
//!   re-exports too), found with the graph and its resolver.
//! - [`plan`]: the import rewrites of a move/copy, the clean-up of a delete, as
//!   [`filekit_core::fsops::Rewrite`]s that the caller commits in the same request as the
//!   file operations (one commit step run, one history entry, one undo).
//!
//! It sits between the engine and the parsers: it reads through the engine and parses with
//! `filekit-semantic`, so that neither of those two needs the other's knowledge; it never
//! writes (the engine's `fsops::apply` does).

pub mod barrels;
pub mod graph;
pub mod ops;
pub mod packages;
pub mod paths;
pub mod plan;
pub mod python;
pub mod rename;
pub mod resolve;
pub mod symbols;
pub mod tsconfig;
pub mod watch;
