//! Report: the empty reports a plan starts from, and the errors that are the request's
//! rather than one edit's.

use crate::edit::{Edit, EditOutcome, FileReport, FileStatus};
use crate::error::{ErrorCode, FkError};

pub(super) fn cancelled_error() -> FkError {
    FkError::new(
        ErrorCode::Cancelled,
        "the request was cancelled before anything was written",
    )
    .with_hint("send it again to apply it")
}

pub(super) fn empty_report(path: &str) -> FileReport {
    FileReport {
        path: path.to_string(),
        resolved_path: String::new(),
        status: FileStatus::Failed,
        written: false,
        edits_applied: 0,
        edits_failed: 0,
        edits: Vec::new(),
        diff: String::new(),
        lines_added: 0,
        lines_removed: 0,
        old_hash: None,
        new_hash: None,
        last_modified: None,
        error: None,
        skipped: None,
        created_dirs: Vec::new(),
        merged: false,
        merged_from: None,
        new_text: None,
        old_text: None,
    }
}

pub(super) fn outcome(index: usize, edit: &Edit) -> EditOutcome {
    EditOutcome {
        index,
        command: edit.command(),
        label: edit.label().map(str::to_string),
        success: false,
        replacements: 0,
        fuzzy_similarity: None,
        line: None,
        diff: None,
        error: None,
        skipped: false,
    }
}
