//! Report: the empty reports a plan starts from, and the errors that are the request's
//! rather than one edit's.

use crate::edit::{Edit, EditOutcome, FileOutcome, FileReport, Planned};
use crate::error::{ErrorCode, FkError};

pub(super) fn cancelled_error() -> FkError {
    FkError::new(
        ErrorCode::Cancelled,
        if crate::interrupt::stop_requested() {
            "filekit was asked to end (interrupted) before this file was written"
        } else {
            "the request was cancelled before this file was written"
        },
    )
    .with_hint("send it again to apply it")
}

/// `outcome` of a file of a request that was cancelled: a file not written says so (one
/// written before the cancel, or failed for its own reason, stays as it is).
pub(super) fn not_written_as_cancelled(outcome: FileOutcome) -> FileOutcome {
    not_written_as_cancelled_with(outcome, cancelled_error())
}

/// [`not_written_as_cancelled`], saying it with `error`.
pub(super) fn not_written_as_cancelled_with(outcome: FileOutcome, error: FkError) -> FileOutcome {
    let planned = match outcome {
        FileOutcome::Unchanged => Planned::Unchanged,
        FileOutcome::Changed {
            created,
            written: false,
        } => Planned::Changed { created },
        FileOutcome::Skipped { reason } => Planned::Skipped { reason },
        FileOutcome::Failed { error: None } => {
            return FileOutcome::Failed { error: Some(error) };
        }
        done @ (FileOutcome::Changed { written: true, .. }
        | FileOutcome::Failed { error: Some(_) }
        | FileOutcome::Cancelled { .. }) => return done,
    };
    FileOutcome::Cancelled { planned, error }
}

pub(super) fn empty_report(path: &str) -> FileReport {
    FileReport {
        path: path.to_string(),
        resolved_path: String::new(),
        outcome: FileOutcome::Failed { error: None },
        edits_applied: 0,
        edits_failed: 0,
        edits: Vec::new(),
        diff: String::new(),
        diff_truncated: false,
        lines_added: 0,
        lines_removed: 0,
        old_hash: None,
        new_hash: None,
        last_modified: None,
        created_dirs: Vec::new(),
        merged_from: None,
        encoding: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::FileStatus;

    fn report(outcome: FileOutcome) -> FileReport {
        FileReport {
            outcome,
            ..empty_report("f.txt")
        }
    }

    #[test]
    fn a_cancel_marks_what_was_not_written_and_keeps_what_was() {
        let changed = |written| FileOutcome::Changed {
            created: false,
            written,
        };
        let skipped = FileOutcome::Skipped {
            reason: "binary file".into(),
        };
        let own = FkError::invalid("no edits given for f.txt");
        // (outcome, its status once cancelled, whether it then carries the cancel)
        let cases = [
            (FileOutcome::Unchanged, FileStatus::Unchanged, true),
            (changed(false), FileStatus::Modified, true),
            (skipped, FileStatus::Skipped, true),
            (
                FileOutcome::Failed { error: None },
                FileStatus::Failed,
                true,
            ),
            (changed(true), FileStatus::Modified, false),
            (
                FileOutcome::Failed {
                    error: Some(own.clone()),
                },
                FileStatus::Failed,
                false,
            ),
        ];
        for (outcome, status, marked) in cases {
            let before = report(outcome.clone());
            let after = report(not_written_as_cancelled(outcome));
            assert_eq!(after.status(), status, "{after:?}");
            assert_eq!(after.written(), before.written(), "{after:?}");
            assert_eq!(after.skipped(), before.skipped(), "{after:?}");
            let code = after.error().map(|e| e.code);
            if marked {
                assert_eq!(code, Some(ErrorCode::Cancelled), "{after:?}");
            } else {
                assert_eq!(code, before.error().map(|e| e.code), "{after:?}");
            }
            // Cancelled twice is cancelled once.
            let again = report(not_written_as_cancelled(after.outcome.clone()));
            assert_eq!(again.status(), after.status());
            assert_eq!(again.error().map(|e| e.code), code);
        }
    }
}
