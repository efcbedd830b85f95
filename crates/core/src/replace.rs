//! Tree-wide search and replace: a sed `s` command over every file a [`FileSelection`]
//! chooses, through the one write pipeline (so dry runs, diffs, atomic requests, progress and
//! cancellation work as for any edit). Each file is read and planned on the walk's threads
//! as the walk finds it; where the request allows, it is written there too.

use crate::edit::Progress;
use crate::edit::{Edit, EditOptions, EditReport, EditRequest, FileEdits};
use crate::error::{ErrorCode, FkError};
use crate::pipeline::{self, FilePlan, Known};
use crate::sed::Substitution;
use crate::select::{FileSelection, select};
use crate::workspace::Workspace;
use crate::workspace::{FileBytes, FileMeta};
use std::cell::RefCell;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one look at a chosen file found.
enum Look {
    /// Nothing in its bytes matches: it is left alone.
    NoMatch,
    /// It may change; here are its bytes.
    Read(Known),
    /// Not decided here (a file of another root, one too large, an error): the pipeline
    /// reads it and reports what it finds.
    Undecided,
}

/// Reads the file at `path` (as [`select`] gives it) and searches its bytes for `sub`, in a
/// buffer each thread reuses: most files of a tree do not match, and those are settled before
/// anything is decoded, indexed or copied.
fn look(ws: &Workspace, sub: &Substitution, path: &str, limit: u64) -> Look {
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let rel = Path::new(path);
    if rel.is_absolute() {
        return Look::Undecided;
    }
    let opened = match ws.open_resolved(rel) {
        Some((file, target)) => Ok((file, Some(target))),
        None => ws.open_found(0, rel).map(|file| (file, None)),
    };
    let Ok((mut file, target)) = opened else {
        return Look::Undecided;
    };
    let Ok(meta) = cap_std::fs::Metadata::from_file(&file) else {
        return Look::Undecided;
    };
    if meta.len() > limit || !meta.is_file() {
        return Look::Undecided;
    }
    BUFFER.with_borrow_mut(|buf| {
        let Ok(len) = read_whole(&mut file, buf, meta.len()) else {
            return Look::Undecided;
        };
        let bytes = &buf[..len];
        // Grown past the limit since it was measured: the pipeline decides.
        if len as u64 > limit {
            return Look::Undecided;
        }
        if !sub.may_match_bytes(bytes) {
            return Look::NoMatch;
        }
        Look::Read(Known {
            target: target.map(|t| t.path(ws)),
            bytes: FileBytes {
                bytes: bytes.to_vec(),
                meta: FileMeta::from_cap(&meta),
            },
        })
    })
}

/// Reads all of `file` into the front of `buf` and returns how many bytes it has. `buf` keeps
/// its length between files, so it is zeroed only when it grows; `size` (the file's measured
/// size) sizes it. Not `read_to_end`: that asks the file's size and position again, two
/// system calls per file (a tenth of a tree's) when the size is known already. Once the
/// measured size is read (more than nothing), no read looks for the end: a file that grew
/// meanwhile differs from its measure when it is written, and the write refuses it as stale.
fn read_whole(file: &mut impl Read, buf: &mut Vec<u8>, size: u64) -> std::io::Result<usize> {
    // One more byte than the size: a read that fills it shows the file has grown.
    let want = usize::try_from(size).unwrap_or(usize::MAX - 1) + 1;
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(filled * 2, 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => return Ok(filled),
            Ok(n) if size > 0 && (filled + n) as u64 == size => return Ok(filled + n),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
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
    // Each file is looked at and planned on the walk's threads as the walk finds it: a file's
    // bytes are read once and freed once planned, and the walk and the planning overlap.
    let limit = req.options.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE);
    let options = EditOptions {
        skip_non_text: true,
        max_file_size: req.options.max_file_size.or(Some(DEFAULT_MAX_FILE_SIZE)),
        ..req.options.clone()
    };
    let entry = |path: &str| FileEdits {
        base_hash: None,
        path: path.to_string(),
        edits: vec![Edit::Substitute(req.substitution.clone())],
    };
    let leases = pipeline::leases_of(ws, &options);
    // Files that stand alone are written as soon as they are planned: nothing of them is
    // held until the walk ends (see `pipeline::writes_as_planned`).
    let as_planned = pipeline::writes_as_planned(&options);
    let plans: Mutex<Vec<(String, FilePlan)>> = Mutex::new(Vec::new());
    let planned = AtomicUsize::new(0);
    let keep = |path: &str| {
        let known = match look(ws, &req.substitution, path, limit) {
            Look::NoMatch => return false,
            Look::Read(bytes) => Some(bytes),
            Look::Undecided => None,
        };
        let mut plan = pipeline::plan_one(ws, &entry(path), &options, &leases, known);
        // How many files there are is known when the walk ends (total 0: not known yet).
        let done = planned.fetch_add(1, Ordering::Relaxed) + 1;
        options.control.report(Progress { done, total: 0 });
        if as_planned {
            pipeline::write_now(ws, &mut plan, &options);
        }
        if let Ok(mut plans) = plans.lock() {
            plans.push((path.to_string(), plan));
        }
        true
    };
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
    let done = planned.into_inner();
    options.control.report(Progress { done, total: done });
    // In the selection's (path) order: both sorted, then walked side by side.
    let mut plans = plans.into_inner().unwrap_or_else(|e| e.into_inner());
    plans.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut plans = plans.into_iter().peekable();
    let (files, plans): (Vec<FileEdits>, Vec<FilePlan>) = selected
        .files
        .iter()
        .map(|path| {
            let plan = match plans.next_if(|(planned, _)| planned == path) {
                Some((_, plan)) => plan,
                None => pipeline::plan_one(ws, &entry(path), &options, &leases, None),
            };
            (entry(path), plan)
        })
        .unzip();
    let report = pipeline::finish(ws, &EditRequest { files, options }, plans);
    Ok(TreeReplaceReport {
        chosen: selected.chosen,
        unmatched,
        walk_skipped: selected.skipped,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::read_whole;
    use std::io::Read;

    /// Gives its bytes a few at a time, as a pipe or a slow filesystem may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(self.0.len()).min(3);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Counts the reads it is asked for.
    struct Counted<'a>(&'a [u8], usize);

    impl Read for Counted<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.1 += 1;
            let n = out.len().min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_file_of_its_measured_size_takes_one_read() {
        let mut buf = Vec::new();
        let text = b"fn main() {}\n".repeat(10);
        let mut file = Counted(&text, 0);
        let n = read_whole(&mut file, &mut buf, text.len() as u64).unwrap();
        assert_eq!((&buf[..n], file.1), (&text[..], 1));
        // Measured empty (a file may say 0 and still have bytes): read to the end.
        let mut file = Counted(&text, 0);
        let n = read_whole(&mut file, &mut buf, 0).unwrap();
        assert_eq!(&buf[..n], &text[..]);
        let mut file = Counted(b"", 0);
        assert_eq!(read_whole(&mut file, &mut buf, 0).unwrap(), 0);
        // Grown since it was measured: the read fills the byte past the size; on to the end.
        let mut file = Counted(&text, 0);
        let n = read_whole(&mut file, &mut buf, 5).unwrap();
        assert_eq!(&buf[..n], &text[..]);
    }

    #[test]
    fn a_whole_file_comes_back_whatever_its_measured_size() {
        let mut buf = Vec::new();
        let text = b"fn main() {}\n".repeat(10);
        // As measured, smaller (the file grew since), and larger (it shrank).
        for size in [text.len() as u64, 4, 0, 10_000] {
            let n = read_whole(&mut Trickle(&text), &mut buf, size).unwrap();
            assert_eq!(&buf[..n], &text[..], "measured as {size}");
        }
        // The buffer is longer than the next file now: only that file's bytes count.
        let n = read_whole(&mut Trickle(b"ab"), &mut buf, 2).unwrap();
        assert_eq!(&buf[..n], b"ab");
        let n = read_whole(&mut Trickle(b""), &mut buf, 0).unwrap();
        assert_eq!(n, 0);
    }
}
