//! Tree-wide search and replace: a sed `s` command over every file a [`FileSelection`]
//! chooses, through the one write pipeline (so dry runs, diffs, atomic requests, progress and
//! cancellation work as for any edit).

use crate::edit::{Edit, EditOptions, EditReport, EditRequest, FileEdits};
use crate::error::{ErrorCode, FkError};
use crate::pipeline;
use crate::sed::Substitution;
use crate::select::{FileSelection, select};
use crate::workspace::Workspace;
use std::cell::RefCell;
use std::io::Read;
use std::path::Path;

/// Whether the file at `path` (as [`select`] gives it) may be changed by `sub`. Anything that
/// cannot be decided here (a file of another root, one too large to read, an error) is left
/// to the pipeline, which reports it.
fn may_change(ws: &Workspace, sub: &Substitution, path: &str, limit: u64) -> bool {
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let rel = Path::new(path);
    if rel.is_absolute() {
        return true;
    }
    let Ok(mut file) = ws.open_found(0, rel) else {
        return true;
    };
    if file.metadata().map_or(true, |m| m.len() > limit) {
        return true;
    }
    BUFFER.with_borrow_mut(|buf| {
        buf.clear();
        file.read_to_end(buf).is_err() || sub.may_match_bytes(buf)
    })
}

/// Files larger than this are skipped unless the request sets its own limit: a tree-wide
/// replace is for source text, and a stray dump or log should not stall it.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// One substitution over a tree of files.
#[derive(Debug, Clone)]
pub struct TreeReplace {
    pub selection: FileSelection,
    pub substitution: Substitution,
    /// `dry_run`, `atomic`, `control`, `max_file_size` apply; binary and non-UTF-8 files are
    /// always skipped, not failed.
    pub options: EditOptions,
}

/// What a tree-wide replace did.
#[derive(Debug, Clone)]
pub struct TreeReplaceReport {
    /// Files the selection chose (before binary and size skips).
    pub chosen: usize,
    /// Chosen files ruled out by a search of their bytes: nothing in them matches, so they
    /// were not edited (and are not in `report`).
    pub unmatched: usize,
    /// Entries the walk passed over, with the reason (links, unreadable directories).
    pub walk_skipped: Vec<(String, String)>,
    /// One file report per chosen file, in path order.
    pub report: EditReport,
}

impl TreeReplaceReport {
    /// Matches replaced, over all files.
    pub fn replacements(&self) -> usize {
        self.report
            .files
            .iter()
            .flat_map(|f| &f.edits)
            .filter(|o| o.success)
            .map(|o| o.replacements)
            .sum()
    }
}

/// Runs `req`. Errors are for the request as a whole (the directory, a glob, no file chosen);
/// each file's own failure is in the report.
pub fn tree_replace(ws: &Workspace, req: &TreeReplace) -> Result<TreeReplaceReport, FkError> {
    // Most files of a tree do not match: rule them out during the walk, with one search of
    // their bytes in a buffer each thread reuses, before the pipeline reads, decodes and
    // indexes anything.
    let limit = req.options.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE);
    let keep = |path: &str| may_change(ws, &req.substitution, path, limit);
    let selected = select(ws, &req.selection, &keep)?;
    if selected.chosen == 0 {
        let sel = &req.selection;
        let excluded = if sel.exclude_patterns.is_empty() {
            String::new()
        } else {
            format!(", excluding {}", sel.exclude_patterns.join(", "))
        };
        return Err(FkError::new(
            ErrorCode::NotFound,
            format!(
                "no files matched: file_pattern {:?} in {}{} ({}recursive; .gitignore'd and hidden files {})",
                sel.file_pattern,
                sel.directory,
                excluded,
                if sel.recursive { "" } else { "not " },
                if sel.no_ignore || sel.hidden { "partly included" } else { "left out" },
            ),
        )
        .with_hint("check the directory and the pattern: a pattern without / matches file names (set recursive to look in subdirectories), one with / matches paths relative to the directory")
        .with_details(serde_json::json!({
            "walk_skipped": selected.skipped.len(),
        })));
    }
    let unmatched = selected.chosen - selected.files.len();
    let files: Vec<FileEdits> = selected
        .files
        .iter()
        .map(|path| FileEdits {
            base_hash: None,
            path: path.clone(),
            edits: vec![Edit::Substitute(req.substitution.clone())],
        })
        .collect();
    let options = EditOptions {
        skip_non_text: true,
        max_file_size: req.options.max_file_size.or(Some(DEFAULT_MAX_FILE_SIZE)),
        ..req.options.clone()
    };
    let report = pipeline::apply(ws, &EditRequest { files, options });
    Ok(TreeReplaceReport {
        chosen: selected.chosen,
        unmatched,
        walk_skipped: selected.skipped,
        report,
    })
}
