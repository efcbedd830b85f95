//! Tree-wide search and replace: a sed `s` command over every file a [`FileSelection`]
//! chooses, through the one write pipeline (so dry runs, diffs, atomic requests, progress and
//! cancellation work as for any edit). Each file is read and planned on the walk's threads
//! as the walk finds it; where the request allows, it is written there too.

use crate::edit::Progress;
use crate::edit::{Edit, EditOptions, EditReport, FileEdits, FileReport, FileStatus};
use crate::error::{ErrorCode, FkError};
use crate::pipeline::{Batch, FilePlan, Known};
use crate::sed::Substitution;
use crate::select::{FileSelection, select};
use crate::workspace::Workspace;
use crate::workspace::{FileBytes, FileMeta};
use std::cell::RefCell;
use std::collections::BTreeMap;
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

thread_local! {
    /// The buffer a walk thread reads files into: see [`look`] and [`recycle`].
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Makes `bytes` (a file's bytes, written and no longer needed) the thread's read buffer if
/// it holds more than the one it has: the next file is read into memory already in use,
/// rather than into fresh memory the system must zero first.
fn recycle(bytes: Vec<u8>) {
    BUFFER.with_borrow_mut(|buf| {
        if buf.capacity() < bytes.capacity() {
            *buf = bytes;
        }
    });
}

/// Reads the file at `path` (as [`select`] gives it) and searches its bytes for `sub`, in a
/// buffer each thread reuses: most files of a tree do not match, and those are settled before
/// anything is decoded, indexed or copied. A file that may change takes the buffer with it
/// (the thread starts a new one), so its bytes are not copied either.
fn look(ws: &Workspace, sub: &Substitution, path: &str, limit: u64, decode_all: bool) -> Look {
    let rel = Path::new(path);
    if rel.is_absolute() {
        return Look::Undecided;
    }
    let opened = match ws.open_resolved(rel) {
        Some((file, target)) => Ok((file, Some(target))),
        None => ws.open_found(0, rel).map(|file| (file, None)),
    };
    let Ok((file, target)) = opened else {
        return Look::Undecided;
    };
    let Ok(meta) = cap_std::fs::Metadata::from_file(&file) else {
        return Look::Undecided;
    };
    if meta.len() > limit || !meta.is_file() {
        return Look::Undecided;
    }
    BUFFER.with_borrow_mut(|buf| {
        let read = |buf: &mut Vec<u8>| {
            rustix::io::read(&file, rustix::buffer::spare_capacity(buf)).map_err(Into::into)
        };
        if read_whole(read, buf, meta.len()).is_err() {
            return Look::Undecided;
        }
        // Grown past the limit since it was measured: the pipeline decides.
        if buf.len() as u64 > limit {
            return Look::Undecided;
        }
        // The bytes of a file in another encoding are not its text: the pipeline decodes it.
        if !decode_all && !sub.may_match_bytes(buf) && !crate::encoding::may_be_other_text(buf) {
            return Look::NoMatch;
        }
        Look::Read(Known {
            target: target.map(|t| t.path()),
            bytes: FileBytes {
                bytes: std::mem::take(buf),
                meta: FileMeta::from_cap(&meta),
            },
        })
    })
}

/// Makes `buf` the whole of a file measured at `size` bytes, with `read`, which appends to
/// `buf` what one read gives, into its spare capacity, and says how much (0 at the end). The
/// spare capacity is not zeroed first, and `buf` is sized by `size` once: not
/// `read_to_end`, which for a file asks its size and position again (two system calls per
/// file, a tenth of a tree's). Once the measured size is read (more than nothing), no read
/// looks for the end: a file that grew meanwhile differs from its measure when it is written,
/// and the write refuses it as stale.
fn read_whole(
    mut read: impl FnMut(&mut Vec<u8>) -> std::io::Result<usize>,
    buf: &mut Vec<u8>,
    size: u64,
) -> std::io::Result<()> {
    // One more byte than the size: a read that fills it shows the file has grown.
    let want = usize::try_from(size).unwrap_or(usize::MAX - 1) + 1;
    if buf.capacity() < want {
        // Not grown in place: that would copy the last file's bytes along. Grown to a power
        // of two (from 64 KiB), not to each larger file's size: buffers of a few sizes are
        // reused by the allocator, where each new size would take fresh memory, which the
        // system zeroes first.
        let capacity = want
            .checked_next_power_of_two()
            .unwrap_or(want)
            .max(64 << 10);
        *buf = Vec::new();
        // A size no memory holds is an error for this file, not the end of the process.
        buf.try_reserve_exact(capacity)
            .or_else(|_| buf.try_reserve_exact(want))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    }
    buf.clear();
    loop {
        if buf.len() == buf.capacity() {
            buf.try_reserve(buf.len())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
        }
        match read(buf) {
            Ok(0) => return Ok(()),
            Ok(_) if size > 0 && buf.len() as u64 == size => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// One substitution over a tree of files.
#[derive(Debug, Clone)]
pub struct TreeReplace {
    pub selection: FileSelection,
    pub substitution: Substitution,
    /// `dry_run`, `atomic`, `control`, `max_file_size` (files larger are skipped) apply;
    /// files over the workspace's bound are streamed; binary files, text that does not decode, and special files met where the walk saw a file,
    /// are always skipped, not failed.
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
    /// Files of a lean dry run whose diff the report leaves out: the diffs before them
    /// took the bytes one reply carries ([`crate::limits::ReplyBudget`]). Their counts are
    /// in the report; a narrower selection shows their diffs.
    pub previews_cut: usize,
    /// Files of a lean dry run that `report` has no report of: past the ones a reply lists,
    /// or unchanged. Counted here; the methods below count them with the rest.
    pub dropped: Dropped,
}

impl TreeReplaceReport {
    /// Matches replaced, over all files.
    pub fn replacements(&self) -> usize {
        replacements_in(&self.report.files, None) + self.dropped.replacements.iter().sum::<usize>()
    }

    /// Matches replaced in the files of `status`.
    pub fn replacements_with(&self, status: FileStatus) -> usize {
        replacements_in(&self.report.files, Some(status)) + self.dropped.replacements[at(status)]
    }

    /// Files of `status`, over all files.
    pub fn count(&self, status: FileStatus) -> usize {
        let kept = self.report.files.iter().filter(|f| f.status() == status);
        kept.count() + self.dropped.by_status[at(status)]
    }

    /// Files whose edits did not all succeed, over all files.
    pub fn failed(&self) -> usize {
        let kept = self.report.files.iter().filter(|f| !f.success()).count();
        kept + self.dropped.failed
    }

    /// True when every edit of every file succeeded (see [`EditReport::success`]).
    pub fn success(&self) -> bool {
        self.report.success() && self.dropped.failed == 0
    }
}

fn replacements_in(files: &[FileReport], status: Option<FileStatus>) -> usize {
    files
        .iter()
        .filter(|f| status.is_none_or(|s| f.status() == s))
        .flat_map(|f| &f.edits)
        .filter(|o| o.success)
        .map(|o| o.replacements)
        .sum()
}

/// The files of a lean dry run whose reports are not kept: those past the first in path
/// order whose entries fill one reply ([`crate::limits::reply_entry_bytes`]), and the
/// unchanged ones, which a reply only counts. Without them a preview of 200,000 files held
/// every file's report (its paths, hashes, outcome) until the walk ended: 650 MB.
#[derive(Debug, Clone, Default)]
pub struct Dropped {
    /// Files counted here.
    pub files: usize,
    /// Of them, by [`FileStatus`] (in the order of its variants).
    by_status: [usize; 5],
    /// Matches replaced in them, by status.
    replacements: [usize; 5],
    /// Of them, the files whose edits did not all succeed.
    pub failed: usize,
    /// Of them, the files not unchanged: those a reply would have listed.
    pub not_listed: usize,
}

impl Dropped {
    /// Of the files counted here, those of `status`.
    pub fn files_with(&self, status: FileStatus) -> usize {
        self.by_status[at(status)]
    }

    /// Matches replaced in the files counted here of `status`.
    pub fn replacements_with(&self, status: FileStatus) -> usize {
        self.replacements[at(status)]
    }

    fn count(&mut self, f: &FileReport) {
        let status = f.status();
        self.files += 1;
        self.by_status[at(status)] += 1;
        self.replacements[at(status)] += replacements_in(std::slice::from_ref(f), None);
        self.failed += usize::from(!f.success());
        self.not_listed += usize::from(!unlisted(f));
    }
}

/// A file a reply counts and does not list: unchanged, its edits all successful.
fn unlisted(f: &FileReport) -> bool {
    f.status() == FileStatus::Unchanged && f.success()
}

fn at(status: FileStatus) -> usize {
    match status {
        FileStatus::Created => 0,
        FileStatus::Modified => 1,
        FileStatus::Unchanged => 2,
        FileStatus::Failed => 3,
        FileStatus::Skipped => 4,
    }
}

/// Runs `req`. Errors are for the request as a whole (the directory, a glob, no file chosen);
/// each file's own failure is in the report.
pub fn tree_replace(ws: &Workspace, req: &TreeReplace) -> Result<TreeReplaceReport, FkError> {
    // Each file is looked at and planned on the walk's threads as the walk finds it: a file's
    // bytes are read once and freed once planned, and the walk and the planning overlap.
    // Files up to a few megabytes are read whole here; larger ones stream through the
    // pipeline's own reads, so that the walk's threads do not hold several large files.
    let whole = ws.max_file_size().min(crate::limits::MAX_REPLACE_WHOLE);
    let limit = req.options.max_file_size().map_or(whole, |m| m.min(whole));
    let options = req
        .options
        .to_builder()
        .skip_non_text(true)
        .stream_above(Some(whole))
        .build();
    let entry = |path: &str| FileEdits {
        base_hash: None,
        path: path.to_string(),
        edits: vec![Edit::Substitute(req.substitution.clone())],
    };
    // Files that stand alone are written as soon as they are planned: nothing of them is
    // held until the walk ends (see `Batch::streaming`).
    let batch = Batch::streaming(ws, &options);
    // A lean dry run's report is a reply (diffs, no texts): each file's diff is kept while
    // the reply's bytes last. (An interactive review asks for the texts, and keeps them all.)
    let preview = Preview {
        budget: ws.reply_budget(),
        cut: AtomicUsize::new(0),
        bounded: options.dry_run() && options.lean(),
    };
    let plans = Mutex::new(Plans {
        // A lean dry run's plans are its report and nothing else: those a reply lists are kept.
        bound: preview.bounded.then(|| ws.max_reply_bytes()),
        ..Plans::default()
    });
    let without_diffs = options.to_builder().no_diffs(true).build();
    // Files in an encoding the caller names are not searched as bytes: each is decoded.
    let decode_all = options.encoding().is_some_and(|e| e != encoding_rs::UTF_8);
    let keep = |path: &str| {
        let known = match look(ws, &req.substitution, path, limit, decode_all) {
            Look::NoMatch => return false,
            Look::Read(bytes) => Some(bytes),
            Look::Undecided => None,
        };
        // A file whose diff no reply would show is planned without one: past the files the
        // reply lists, or once the diffs before it took the reply's bytes.
        let past_cut = preview.bounded
            && plans
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .past_cut(path);
        let spent = preview.bounded && preview.spent();
        let (mut plan, written) = if past_cut || spent {
            batch.plan_with(&entry(path), known, &without_diffs)
        } else {
            batch.plan(&entry(path), known)
        };
        let changes = matches!(
            plan.report().status(),
            FileStatus::Created | FileStatus::Modified
        );
        if !past_cut && spent && changes {
            preview.cut.fetch_add(1, Ordering::Relaxed);
        }
        preview.bound(&mut plan);
        if let Some(written) = written {
            recycle(written);
        }
        let dropped = plans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(path, Box::new(plan));
        // A dropped plan's diff leaves the reply room for another's.
        if dropped > 0 {
            preview.budget.settle(dropped, 0);
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
        .with_hint("check the directory and the pattern: a pattern without / matches file names (in subdirectories too only when the search is recursive), one with / matches paths relative to the directory")
        .with_details(serde_json::json!({
            "walk_skipped": selected.skipped.len(),
        })));
    }
    let unmatched = selected.chosen - selected.files.len();
    // How many files there are is known now that the walk has ended.
    let done = batch.planned();
    options.control().report(Progress { done, total: done });
    let Plans {
        kept, mut dropped, ..
    } = plans.into_inner().unwrap_or_else(|e| e.into_inner());
    // In the selection's (path) order: both sorted, then walked side by side. Every file the
    // walk chose was planned: kept, or dropped.
    let mut kept = kept.into_iter().peekable();
    let (files, plans): (Vec<FileEdits>, Vec<FilePlan>) = selected
        .files
        .iter()
        .filter_map(|path| {
            let (_, plan) = kept.next_if(|(planned, _)| planned == path)?;
            Some((entry(path), *plan))
        })
        .unzip();
    let report = batch.finish(&files, plans);
    if report.cancelled {
        // As the kept files: none of them was written, each counted as not reached.
        dropped.failed = dropped.files;
    }
    Ok(TreeReplaceReport {
        chosen: selected.chosen,
        unmatched,
        walk_skipped: selected.skipped,
        report,
        previews_cut: preview.cut.into_inner(),
        dropped,
    })
}

/// The plans of a tree-wide replace as its walk makes them.
#[derive(Default)]
struct Plans {
    /// The plans kept, by path. Boxed: a plan is a kilobyte.
    kept: BTreeMap<String, Box<FilePlan>>,
    /// Keep only the first plans in path order whose entries take these bytes of a reply
    /// ([`crate::limits::reply_entry_bytes`]); the rest are counted in `dropped`.
    bound: Option<u64>,
    /// The bytes the kept plans' entries take.
    used: u64,
    /// Once a plan was dropped for the bound: the first path dropped. Every plan before it
    /// in path order is kept, none after it.
    cut_at: Option<String>,
    dropped: Dropped,
}

impl Plans {
    /// Whether the plan of `path` would be dropped (past the plans kept), whatever it is.
    fn past_cut(&self, path: &str) -> bool {
        self.cut_at.as_deref().is_some_and(|cut| path >= cut)
    }

    /// Keeps `plan` of `path`, or counts it, dropping the last kept plans in path order while
    /// the kept entries are past the bound (the first is always kept). Returns the bytes of
    /// the diffs dropped.
    fn add(&mut self, path: &str, plan: Box<FilePlan>) -> u64 {
        let Some(bound) = self.bound else {
            self.kept.insert(path.to_string(), plan);
            return 0;
        };
        let report = plan.report();
        if unlisted(report) || self.past_cut(path) {
            self.dropped.count(report);
            return report.diff.len() as u64;
        }
        self.used += crate::limits::reply_entry_bytes(path);
        self.kept.insert(path.to_string(), plan);
        let mut freed = 0;
        while self.used > bound && self.kept.len() > 1 {
            let Some((last, plan)) = self.kept.pop_last() else {
                break;
            };
            self.used -= crate::limits::reply_entry_bytes(&last);
            self.dropped.count(plan.report());
            freed += plan.report().diff.len() as u64;
            self.cut_at = Some(last);
        }
        freed
    }
}

/// What a dry run's report keeps of each file's preview.
struct Preview {
    budget: crate::limits::ReplyBudget,
    cut: AtomicUsize,
    bounded: bool,
}

impl Preview {
    /// Whether the diffs kept so far took every byte of the reply: no other diff fits.
    fn spent(&self) -> bool {
        self.budget.used() >= self.budget.max()
    }

    /// Keeps the diff and texts of a planned file while the reply's bytes last (planned on
    /// the walk's threads, so in no fixed order: which files keep theirs depends on the walk);
    /// past them the file keeps its outcome and counts only.
    fn bound(&self, plan: &mut FilePlan) {
        if !self.bounded {
            return;
        }
        let report = plan.report_mut();
        let texts = [&report.old_text, &report.new_text]
            .into_iter()
            .flatten()
            .map(String::len)
            .sum::<usize>();
        let cost = (report.diff.len() + texts) as u64;
        if cost == 0 || self.budget.reserve(cost) {
            return;
        }
        report.diff = String::new();
        report.old_text = None;
        report.new_text = None;
        self.cut.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::read_whole;
    use std::cell::Cell;

    /// A reader of `text` for `read_whole`: each read gives at most `step` bytes (as a pipe or
    /// a slow filesystem may) and never more than the buffer's spare capacity, as a read into
    /// it would; `reads` counts them.
    fn reader<'a>(
        mut text: &'a [u8],
        step: usize,
        reads: &'a Cell<usize>,
    ) -> impl FnMut(&mut Vec<u8>) -> std::io::Result<usize> + 'a {
        move |buf| {
            reads.set(reads.get() + 1);
            let n = text.len().min(step).min(buf.capacity() - buf.len());
            buf.extend_from_slice(&text[..n]);
            text = &text[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_file_of_its_measured_size_takes_one_read() {
        let mut buf = Vec::new();
        let text = b"fn main() {}\n".repeat(10);
        let reads = Cell::new(0);
        read_whole(
            reader(&text, usize::MAX, &reads),
            &mut buf,
            text.len() as u64,
        )
        .unwrap();
        assert_eq!((&buf[..], reads.get()), (&text[..], 1));
        // Measured empty (a file may say 0 and still have bytes): read to the end.
        read_whole(reader(&text, usize::MAX, &reads), &mut buf, 0).unwrap();
        assert_eq!(&buf[..], &text[..]);
        read_whole(reader(b"", usize::MAX, &reads), &mut buf, 0).unwrap();
        assert_eq!(buf, b"");
        // Grown since it was measured: the read fills the byte past the size; on to the end.
        read_whole(reader(&text, usize::MAX, &reads), &mut buf, 5).unwrap();
        assert_eq!(&buf[..], &text[..]);
    }

    #[test]
    fn a_whole_file_comes_back_whatever_its_measured_size() {
        let mut buf = Vec::new();
        let text = b"fn main() {}\n".repeat(10);
        let reads = Cell::new(0);
        // As measured, smaller (the file grew since), and larger (it shrank).
        for size in [text.len() as u64, 4, 0, 10_000] {
            read_whole(reader(&text, 3, &reads), &mut buf, size).unwrap();
            assert_eq!(&buf[..], &text[..], "measured as {size}");
        }
        // The buffer held a longer file before: only this file's bytes are in it.
        read_whole(reader(b"ab", 3, &reads), &mut buf, 2).unwrap();
        assert_eq!(buf, b"ab");
        read_whole(reader(b"", 3, &reads), &mut buf, 0).unwrap();
        assert_eq!(buf, b"");
    }
}
