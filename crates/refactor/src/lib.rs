//! # filekit-refactor
//!
//! The refactor layer: what moving, renaming, copying and deleting files does to the imports
//! of a workspace, and the refactors of a file (`file_edit`'s refactor mode), computed and
//! handed to the caller to write. Dialects translate, this layer orchestrates, semantic parses.
//!
//! - [`graph`]: the import graph (every file; every TS/TSX/JS and Python file's module
//!   references), built with the engine's walk and reads, parsed in parallel, cached between
//!   calls; [`watch`] keeps it current in a long-lived server without walking.
//! - [`tsconfig`]: `baseUrl`, `paths` and `extends` of tsconfig.json / jsconfig.json;
//!   [`packages`]: the workspace's own packages (`package.json` `exports`, `main`, `types`).
//! - [`resolve`]: specifiers to files like TypeScript and Node, and specifiers written back
//!   in the style they had; [`python`]: Python's module names to files and back; [`paths`]:
//!   workspace-relative paths as specifiers write them.
//! - [`rename`]: the files that a rename of an exported symbol changes (importers, through
//!   re-exports too), found with the graph and its resolver; [`symbols`]: export renames that
//!   go with a move or copy.
//! - [`add_import`]: the modules that export a name a file lacks, and its import from one.
//! - [`import_rewrites`]: the import rewrites of a move/copy, the clean-up of a delete, as
//!   [`filekit_core::fsops::Rewrite`]s that the caller commits in the same request as the
//!   file operations (one commit step run, one history entry, one undo); [`barrels`]: what a
//!   delete takes from the modules that re-export it; [`ops`]: the file operations with their
//!   import updates, as one engine request.
//! - [`code_actions`]: the refactor mode: which route a refactor takes (a language server
//!   through `filekit-lsp`, or the syntax trees of `filekit-semantic`), the calls of each,
//!   and the edits of every file gathered into one [`code_actions::Change`] that the caller
//!   writes through the pipeline; [`source`]: a file read whole to be parsed.
//!
//! It sits between the engine and the parsers: it reads through the engine, parses with
//! `filekit-semantic` and asks language servers through `filekit-lsp` (only for a trusted
//! workspace), so that none of those needs the others' knowledge. It writes no
//! file of the workspace (the engine's `fsops::apply` does); the one thing it creates is the
//! watcher's cookie files in the root's `.filekit/`, through a descriptor opened when the
//! watch started, removed as soon as their event is seen.
//!
//! A move that takes its importers along, in one request:
//!
//! ```
//! use filekit_core::Workspace;
//! use filekit_core::fsops::{FileOp, FsRequest};
//! use std::fs;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let root = dir.path();
//! fs::create_dir(root.join("src")).unwrap();
//! fs::write(root.join("src/util.ts"), "export const u = 1;\n").unwrap();
//! fs::write(root.join("src/main.ts"), "import { u } from './util';\n").unwrap();
//! let ws = Workspace::new(&[root.to_path_buf()], false).unwrap();
//!
//! let request = FsRequest {
//!     ops: vec![FileOp::Move {
//!         from: "src/util.ts".into(),
//!         to: "src/lib/util.ts".into(),
//!         overwrite: false,
//!     }],
//!     ..FsRequest::default()
//! };
//! let applied = filekit_refactor::ops::apply(&ws, request, true, false).unwrap();
//! assert!(applied.report.unwrap().success());
//! assert_eq!(
//!     fs::read_to_string(root.join("src/main.ts")).unwrap(),
//!     "import { u } from './lib/util';\n"
//! );
//! ```

pub mod add_import;
pub mod barrels;
pub mod code_actions;
pub mod graph;
pub mod import_rewrites;
pub mod ops;
pub mod packages;
pub mod patch;
pub mod paths;
pub mod python;
pub mod rename;
pub mod resolve;
pub mod source;
pub mod symbols;
pub mod tsconfig;
pub mod watch;
