//! Pieces of replies that several dialects share: failed edits, edit outcome messages, the
//! numbered lines around what an edit changed, and the version a file is at after a write.

use filekit_core::edit::{EditOutcome, FileReport};
use filekit_core::read::TextRead;
use filekit_core::text::{LineIndex, number_lines};
use filekit_core::{EditReport, Fact, FkError};
use serde_json::Value;

/// The reply as the text a model reads, for the tools whose real counterpart has no public
/// wording of its own (or whose document defines the reply as JSON): the reply itself, as
/// `filekit call` prints it.
pub(crate) fn serialized(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// A path as the curated table shows it: relative to the first root, which is what its tools
/// resolve a relative path against, so that it can be passed on as it is; absolute when it is
/// in another root (a relative path could not name it). `path` is absolute or relative to
/// the first root.
pub(crate) fn shown_path(ws: &filekit_core::Workspace, path: &str) -> String {
    let p = std::path::Path::new(path);
    match ws
        .roots()
        .first()
        .and_then(|root| p.strip_prefix(root).ok())
    {
        Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Some(rel) => rel.display().to_string(),
        None => path.to_string(),
    }
}

/// A text (a message, a summary) with the paths of the first root in it relative to it, as
/// [`shown_path`] shows them: the engine names files by their absolute paths.
pub(crate) fn shown_text(ws: &filekit_core::Workspace, text: &str) -> String {
    let Some(root) = ws.roots().first().map(|r| r.display().to_string()) else {
        return text.to_string();
    };
    let inside = format!("{root}{}", std::path::MAIN_SEPARATOR);
    let text = text.replace(&inside, "");
    // The root itself, where it is not the start of a longer name.
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find(&root) {
        let after = &rest[i + root.len()..];
        let whole = !after.starts_with(|c: char| c.is_alphanumeric() || "._-".contains(c));
        out.push_str(&rest[..i]);
        out.push_str(if whole { "." } else { &root });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// An error said with [`shown_text`]'s paths.
pub(crate) fn shown_error(ws: &filekit_core::Workspace, err: &FkError) -> FkError {
    FkError {
        message: shown_text(ws, &err.message),
        hint: err.hint.as_deref().map(|h| shown_text(ws, h)),
        ..err.clone()
    }
}

/// The content hash of the file as it is on disk after the request: the new version when it
/// was written, otherwise the version that is still there (dry run, failure).
pub(crate) fn current_hash(file: &FileReport) -> Option<String> {
    if file.written() {
        file.new_hash.clone()
    } else {
        file.old_hash.clone()
    }
}

/// The error of a file that had nothing wrong itself but was not written because its request
/// was atomic and something else failed.
pub(crate) fn rolled_back_error(report: &EditReport, file: &FileReport) -> Option<FkError> {
    (report.rolled_back && file.success()).then(|| {
        FkError::new(
            filekit_core::ErrorCode::Conflict,
            format!(
                "{}: not written because the request was all-or-nothing (atomic) and another edit failed",
                file.path
            ),
        )
        .with_hint("fix the failed edit and send the whole request again")
    })
}

/// The first failure of a file: its own error, or its first failed edit's.
pub(crate) fn first_error(file: &FileReport) -> Option<&FkError> {
    file.error()
        .or_else(|| file.edits.iter().find_map(|e| e.error.as_ref()))
}

/// One line about one edit: what it did and where, or why it failed.
pub(crate) fn outcome_message(o: &EditOutcome, dry_run: bool) -> String {
    if o.skipped {
        return "not attempted: an earlier edit failed and stopOnError is set".to_string();
    }
    if let Some(err) = &o.error {
        return err.full_message();
    }
    let verb = if dry_run { "would replace" } else { "replaced" };
    let mut msg = match o.command {
        "str_replace" => format!(
            "{verb} {} occurrence{}",
            o.replacements,
            if o.replacements == 1 { "" } else { "s" }
        ),
        "create" => if dry_run {
            "would create the file"
        } else {
            "created the file"
        }
        .to_string(),
        "replace_lines" => if dry_run {
            "would replace the lines"
        } else {
            "replaced the lines"
        }
        .to_string(),
        "insert" => if dry_run {
            "would insert the lines"
        } else {
            "inserted the lines"
        }
        .to_string(),
        "append" => if dry_run {
            "would append the lines"
        } else {
            "appended the lines"
        }
        .to_string(),
        other => format!("{other} applied"),
    };
    if let Some(line) = o.line {
        msg.push_str(&format!(" at line {line}"));
    }
    if let Some(sim) = o.fuzzy_similarity {
        msg.push_str(&format!(" (fuzzy match, similarity {sim:.2})"));
    }
    msg
}

/// The lines of `new_text` that a unified `diff` shows on its new side (each change with its
/// context), numbered `cat -n` style; separate regions are divided by a `...` line. This is
/// "the updated content with line numbers" that lets a model check an edit without reading
/// the file again.
pub(crate) fn changed_regions(new_text: &str, diff: &str) -> String {
    let index = LineIndex::new(new_text);
    let mut out = String::new();
    for (start, count) in hunk_new_ranges(diff) {
        if count == 0 || start == 0 || start > index.len() {
            continue;
        }
        let end = (start + count - 1).min(index.len());
        if !out.is_empty() {
            out.push_str("   ...\n");
        }
        out.push_str(&number_lines(
            &new_text[index.start(start)..index.end(end)],
            start,
        ));
    }
    out
}

/// [`changed_regions`] of a file's report: from its new text, or, for a file streamed for
/// its size (whose report keeps no text), from the new side of the diff's hunks.
pub(crate) fn updated_lines(file: &FileReport, diff: &str) -> String {
    if let Some(text) = &file.new_text {
        return changed_regions(text, diff);
    }
    let mut out = String::new();
    let mut line = 0usize;
    for l in diff.split_inclusive('\n') {
        if l.starts_with("@@ ") {
            line = hunk_new_ranges(l).first().map_or(0, |(start, _)| *start);
            if !out.is_empty() {
                out.push_str("   ...\n");
            }
        } else if line > 0 && (l.starts_with(' ') || l.starts_with('+')) && !l.starts_with("+++") {
            out.push_str(&number_lines(&l[1..], line));
            line += 1;
        }
    }
    out
}

/// `(first line, line count)` of each hunk's new side, from `@@ -a,b +c,d @@` headers.
fn hunk_new_ranges(diff: &str) -> Vec<(usize, usize)> {
    diff.lines()
        .filter_map(|l| l.strip_prefix("@@ "))
        .filter_map(|rest| {
            let new = rest.split_whitespace().find(|p| p.starts_with('+'))?;
            let new = &new[1..];
            let (start, count) = match new.split_once(',') {
                Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
                None => (new.parse().ok()?, 1),
            };
            Some((start, count))
        })
        .collect()
}

/// Outcomes of the edits that failed, as `{command, error, error_code, index, details?}`.
/// One edit of a file that failed, as the snake_case tables list it (`failed_edits`).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct FailedEdit {
    /// The edit's index in the request's list, counted from 0 (the messages count edits from
    /// 1: index 0 is edit 1).
    index: usize,
    /// The kind of edit.
    command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    error: Option<crate::reply::PartError>,
}

/// The edits of `file` that failed (not those skipped).
pub(crate) fn failed_edit_list(file: &FileReport) -> Vec<FailedEdit> {
    file.edits
        .iter()
        .filter(|o| !o.success && !o.skipped)
        .map(|o| FailedEdit {
            index: o.index,
            command: o.command,
            label: o.label.clone(),
            error: o.error.as_ref().map(crate::reply::PartError::of),
        })
        .collect()
}

/// The most diff a reply carries per file. A model reads every byte of a reply: past this,
/// a diff costs more context than it gives (10,000 edits make megabytes of hunks), so the
/// reply shows the first whole hunks and says how to see the rest.
pub(crate) const MAX_REPLY_DIFF: usize = 128 * 1024;

/// Batches up to this many edits get a diff per edit; larger ones rely on the file's diff.
pub(crate) const MAX_PER_EDIT_DIFFS: usize = 100;

/// `diff` cut to at most [`MAX_REPLY_DIFF`] bytes at a hunk boundary, and when it was cut, a
/// note of what was left out. The file headers and the first hunk are always kept.
pub(crate) fn capped_diff(diff: &str) -> (&str, Option<String>) {
    capped_diff_at(diff, MAX_REPLY_DIFF)
}

fn capped_diff_at(diff: &str, max: usize) -> (&str, Option<String>) {
    if diff.len() <= max {
        return (diff, None);
    }
    let hunk_starts: Vec<usize> = std::iter::once(0)
        .chain(diff.match_indices("\n@@ ").map(|(i, _)| i + 1))
        .filter(|&i| diff[i..].starts_with("@@ "))
        .collect();
    let total = hunk_starts.len();
    // Keep hunks while they fit; always at least the first.
    let mut cut = hunk_starts.get(1).copied().unwrap_or(diff.len());
    let mut shown = 1;
    for (k, &start) in hunk_starts.iter().enumerate().skip(1) {
        if start > max {
            break;
        }
        cut = start;
        shown = k;
    }
    if shown >= total {
        cut = diff.len();
    }
    if cut >= diff.len() {
        return (diff, None);
    }
    let note = format!(
        "diff cut to its first {shown} of {total} hunks ({cut} of {} bytes); the rest of the \
         changes are made as reported: read the file to see them, or preview smaller batches \
         with a dry run",
        diff.len()
    );
    (&diff[..cut], Some(note))
}

/// Runs a tree-wide replace for a tool call: with the call's progress and cancellation, and a
/// lean report (the replies show diffs, never the files' texts).
pub(crate) fn run_tree_replace(
    ws: &crate::Call,
    selection: filekit_core::select::FileSelection,
    substitution: filekit_core::sed::Substitution,
    dry_run: bool,
    atomic: bool,
) -> Result<filekit_core::replace::TreeReplaceReport, FkError> {
    let request = filekit_core::replace::TreeReplace {
        selection,
        substitution,
        options: filekit_core::EditOptions::builder()
            .dry_run(dry_run)
            .atomic(atomic)
            .control(ws.control())
            .tool(Some(ws.tool_name()))
            .lean(true)
            .build(),
    };
    filekit_core::replace::tree_replace(ws, &request)
}

/// What a tree-wide dry run's reply says of the files whose diffs the reply's bytes left out
/// (`narrow` names the tool's arguments that choose the files).
pub(crate) fn previews_cut_note(ws: &filekit_core::Workspace, cut: usize, narrow: &str) -> String {
    format!(
        "; the diffs of {cut} more file(s) are not in this dry run's reply: the ones before them \
         took the {} bytes one reply carries (narrow {narrow} to see them)",
        ws.max_reply_bytes()
    )
}

/// The files a reply about many files lists: while one reply's bytes last (each entry counted
/// at its path, in the value and in the text, and its fields), then none, counting those left
/// out; the reply's counts stay whole. 200,000 files changed by a dry run replied 27 MB.
pub(crate) struct ListBudget {
    left: u64,
    /// Files left out so far.
    pub cut: usize,
}

impl ListBudget {
    pub(crate) fn new(ws: &filekit_core::Workspace) -> ListBudget {
        ListBudget {
            left: ws.max_reply_bytes(),
            cut: 0,
        }
    }

    /// True when the entry of `path` still fits.
    pub(crate) fn take(&mut self, path: &str) -> bool {
        let cost = filekit_core::limits::reply_entry_bytes(path);
        if self.cut > 0 || cost > self.left {
            self.cut += 1;
            return false;
        }
        self.left -= cost;
        true
    }

    /// What the reply says of the files it left out (`narrow` names the tool's arguments that
    /// choose the files), or nothing.
    pub(crate) fn note(&self, ws: &filekit_core::Workspace, narrow: &str) -> String {
        if self.cut == 0 {
            return String::new();
        }
        format!(
            "; {} more file(s) not listed: the ones listed took the {} bytes one reply carries \
             (narrow {narrow} to list them)",
            self.cut,
            ws.max_reply_bytes()
        )
    }
}

/// The diffs of a reply about many files: whole diffs while [`MAX_REPLY_DIFF`] lasts, then
/// none, counting those left out.
pub(crate) struct DiffBudget {
    left: usize,
    /// Diffs left out so far.
    pub cut: usize,
}

impl DiffBudget {
    pub(crate) fn new() -> DiffBudget {
        DiffBudget {
            left: MAX_REPLY_DIFF,
            cut: 0,
        }
    }

    /// `diff` if it still fits (and is not empty).
    pub(crate) fn take<'a>(&mut self, diff: &'a str) -> Option<&'a str> {
        if diff.is_empty() {
            return None;
        }
        if diff.len() > self.left {
            self.cut += 1;
            return None;
        }
        self.left -= diff.len();
        Some(diff)
    }
}

/// A model-facing text for a write: one line per file (and per failed edit), then the diffs.
/// `commands`: name each failed edit's command (`str_replace`, ...), for the tools whose edits
/// are written as commands.
pub(crate) fn write_summary(report: &EditReport, commands: bool, diffs: Diffs) -> String {
    let mut out = String::new();
    for f in &report.files {
        let state = if let Some(err) = f.error().cloned().or_else(|| rolled_back_error(report, f)) {
            format!("FAILED: {}", err.full_message())
        } else if unwritten(report, f) {
            // An all-or-nothing request whose edit failed: nothing of the file changed, so
            // neither "applied" nor the diff of the edits that would have applied.
            format!(
                "FAILED: nothing written, {} of {} edit{} failed{}",
                f.edits_failed,
                f.edits.len(),
                if f.edits.len() == 1 { "" } else { "s" },
                if report.atomic {
                    " (the request is all-or-nothing)"
                } else {
                    ""
                }
            ) + &current_hash(f)
                .map(|h| format!("; content_hash {h}"))
                .unwrap_or_default()
        } else {
            let mut s = format!(
                "{} edit{} applied",
                f.edits_applied,
                if f.edits_applied == 1 { "" } else { "s" }
            );
            if f.edits_failed > 0 {
                s.push_str(&format!(", {} failed", f.edits_failed));
            }
            if report.dry_run {
                s.push_str(" (dry run: nothing written)");
            }
            if let Some(h) = current_hash(f) {
                s.push_str(&format!("; content_hash {h}"));
            }
            if let Some(from) = &f.merged_from {
                s.push_str(&format!(
                    "; merged: the file had changed since version {from}, and your edits were merged into it (the diff is what was written)"
                ));
            }
            s
        };
        out.push_str(&format!("{}: {state}\n", f.path));
        for o in f.edits.iter().filter(|o| !o.success) {
            // Counted from 1 as the model counts what it sent; the JSON index beside it.
            let command = if commands {
                format!(", {}", o.command)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  edit {} (edits[{}]{command}): {}\n",
                o.index + 1,
                o.index,
                outcome_message(o, report.dry_run)
            ));
        }
    }
    for f in &report.files {
        let (diff, note) = match diffs {
            Diffs::All if !f.diff.is_empty() && !unwritten(report, f) => {
                let (diff, note) = capped_diff(&f.diff);
                (Some(diff.to_string()), note)
            }
            Diffs::All => (None, None),
            Diffs::Short => reply_diff(report, f),
        };
        if diff.is_some() || note.is_some() {
            out.push('\n');
        }
        if let Some(diff) = diff {
            out.push_str(&diff);
        }
        if let Some(note) = note {
            out.push_str(&format!("[{}: {note}]\n", f.path));
        }
    }
    out
}

/// Which diffs a write's reply carries.
#[derive(Clone, Copy)]
pub(crate) enum Diffs {
    /// Every file's (cut to [`MAX_REPLY_DIFF`]).
    All,
    /// A dry run's (cut), and a write's only when it is short: what an apply changed is its
    /// files and counts; the agent wrote the edits and has seen a dry run's diff if it asked.
    Short,
}

/// A write's diff at most this many lines long is in its reply.
pub(crate) const SHORT_DIFF_LINES: usize = 40;

/// The diff a reply carries for one file ([`Diffs::Short`]), and a note when it is cut or
/// left out.
pub(crate) fn reply_diff(report: &EditReport, f: &FileReport) -> (Option<String>, Option<String>) {
    if f.diff.is_empty() || unwritten(report, f) {
        return (None, None);
    }
    if report.dry_run || f.merged_from.is_some() || f.diff.lines().count() <= SHORT_DIFF_LINES {
        let (diff, note) = capped_diff(&f.diff);
        return (Some(diff.to_string()), note);
    }
    (
        None,
        Some(format!(
            "the diff ({} lines) is left out: +{} -{} lines; read the file to see them, or preview with dry_run",
            f.diff.lines().count(),
            f.lines_added,
            f.lines_removed
        )),
    )
}

/// A file whose edits did not all succeed and that was not written (not a dry run).
fn unwritten(report: &EditReport, f: &FileReport) -> bool {
    !report.dry_run && !f.written() && f.edits_failed > 0
}

/// "lines 3-5 of 120" for a read's header; a file too large to be read whole has no known
/// count unless the read reached its end: "lines 3-5 of a 107374182400-byte file".
pub(crate) fn read_lines(t: &TextRead) -> String {
    match t.total_lines {
        Some(n) => format!("lines {}-{} of {n}", t.start_line, t.end_line),
        None if t.from_end => format!(
            "lines {}..{} (counted from the end) of a {}-byte file",
            t.first_number(),
            t.last_number(),
            t.size
        ),
        None => format!(
            "lines {}-{} of a {}-byte file",
            t.start_line, t.end_line, t.size
        ),
    }
}

/// For a read cut short: where it stopped and how to read on, with the tool's argument that
/// names the first line (`start_line`).
pub(crate) fn read_on(t: &TextRead, start_arg: &str) -> Option<String> {
    let next = t.next_line?;
    Some(format!(
        "[truncated after line {}: read on with {start_arg} {next}]",
        t.last_number()
    ))
}

/// "content_hash 3f2a9c1e" for a read's header, or, for a file too large to be read whole
/// (which has none), what that means for the reader.
pub(crate) fn read_version(t: &TextRead) -> String {
    match (&t.content_hash, &t.unversioned) {
        (Some(h), _) => format!("content_hash {h}"),
        (None, Some(l)) => format!(
            "no content_hash: the file is {} bytes, over the {} bytes filekit holds whole, so it is streamed and has no whole version; edit its lines with the range_hash of a read of them, or its text",
            l.found, l.max
        ),
        (None, None) => "no content_hash".to_string(),
    }
}

/// The lines after a read's last line, when known.
pub(crate) fn lines_after(t: &TextRead) -> Option<usize> {
    t.total_lines.map(|n| n.saturating_sub(t.end_line))
}

/// How one tool names what a text replacement's failure is about: the engine reports it as
/// a [`Fact`] with its facts in `details`, and [`in_words`] says it with these names.
pub(crate) struct Words {
    /// The argument that holds the search text (`old_string`, `old_str`, `search`).
    pub search: &'static str,
    /// How to ask for `n` matches to be replaced (`{n}` stands for the count), when the tool
    /// can: "set `replace_all` to true", "set `expected_replacements` to {n}".
    pub expect: Option<&'static str>,
    /// What to do instead of an empty search text.
    pub empty: &'static str,
    /// The arguments of a line edit: its first and last line, the line to insert after, and
    /// the version it was made on (`start_line`, `end_line`, `insert_line`, `content_hash`).
    pub lines: [&'static str; 4],
    /// The hint when a create finds the file there: how this tool replaces it ("set the
    /// create's `overwrite` to true"), or what to do instead when it cannot. `None` for the
    /// tools that never refuse an existing file (the engine's neutral words stay).
    pub exists: Option<&'static str>,
}

/// The line-edit argument names of a tool that has no line edits.
pub(crate) const NO_LINES: [&str; 4] = ["start line", "end line", "insert line", "content hash"];

/// The engine's error of a text replacement said in the words of the tool that was called
/// (its argument names, and `path` as it was given); the facts stay in `details`. Errors
/// that name no fact come back as they are.
pub(crate) fn in_words(err: &FkError, path: &str, w: &Words) -> FkError {
    let mut out = err.clone();
    let search = w.search;
    let expect = |n: usize| w.expect.map(|e| e.replace("{n}", &n.to_string()));
    match err.fact() {
        Some(Fact::SearchTextEmpty) => {
            out.message = format!("`{search}` is empty: there is nothing to search for");
            out.hint = Some(w.empty.to_string());
        }
        Some(Fact::MatchCount) => {
            let count = err.details["count"].as_u64().unwrap_or(0) as usize;
            let want = err.details["expected"].as_u64().unwrap_or(1) as usize;
            out.message = format!(
                "`{search}` matches {count} times in {path} (at lines {}), but {want} {} expected",
                match_lines(&err.details, count),
                if want == 1 {
                    "match was"
                } else {
                    "matches were"
                },
            );
            out.hint = Some(match (want, expect(count)) {
                (1, Some(all)) => format!(
                    "add surrounding lines to `{search}` so that it matches once, or {all} to replace all {count}"
                ),
                (1, None) => format!(
                    "add surrounding lines to `{search}` so that it matches once (copy them from the file as they are)"
                ),
                (_, Some(all)) => {
                    format!("{all} if all {count} are meant, or make `{search}` more specific")
                }
                (_, None) => format!("make `{search}` more specific"),
            });
        }
        Some(Fact::SearchTextNotFound) => {
            out.message = out
                .message
                .replacen("the search text", &format!("`{search}`"), 1);
            out.hint = out.hint.map(|h| h.replacen("the search text", search, 1));
        }
        Some(Fact::LineOutOfRange) => {
            let [start, end, after, _] = w.lines;
            let d = &err.details;
            let count = d["line_count"].as_u64().unwrap_or(0);
            let arg = match d["which"].as_str() {
                Some("end") => end,
                Some("after") => after,
                _ => start,
            };
            out.message = format!(
                "`{arg}` {} is out of range: the file has {count} line{}",
                d["value"],
                if count == 1 { "" } else { "s" }
            );
            out.hint = Some(match d["which"].as_str() {
                _ if count == 0 => {
                    format!("the file is empty: insert at the top (`{after}` 0) or append instead")
                }
                Some("after") => format!(
                    "`{arg}` is the line to insert after: 0 inserts at the top, {count} at the end"
                ),
                _ => format!("lines are 1-based: use 1..{count}, or -1 for the last line"),
            });
        }
        Some(Fact::LineOrder) => {
            let [start, end, _, _] = w.lines;
            out.message = format!(
                "`{end}` {} is before `{start}` {}",
                err.details["end"], err.details["start"]
            );
            out.hint = Some(format!(
                "give `{start}` <= `{end}` (both 1-based, inclusive)"
            ));
        }
        Some(Fact::Version) => {
            let version = w.lines[3];
            out.message = out
                .message
                .replacen("the version", &format!("`{version}`"), 1);
        }
        Some(Fact::EditsOverlap) => {
            // Edits counted from 1, as the model counts the edits it sent.
            let d = &err.details;
            let n = |k: &str| d[k].as_u64().unwrap_or(0) + 1;
            out.message = format!(
                "edit {} ({}) overlaps edit {} ({}): line edits and pattern replacements in one \
                 request all refer to the file as read, so they may not change the same text",
                n("edit"),
                d["what"].as_str().unwrap_or(""),
                n("conflicts_with"),
                d["other_what"].as_str().unwrap_or(""),
            );
        }
        Some(Fact::AlreadyExists) => {
            if let Some(hint) = w.exists {
                out.hint = Some(hint.to_string());
            }
        }
        Some(
            Fact::DirectoryNotEmpty
            | Fact::CannotReplace
            | Fact::UntypedParameters
            | Fact::FolderNotWritable,
        ) => {}
        Some(Fact::ExpectedCountZero) => {
            if let Some(one) = expect(1) {
                out.message = "the expected count of matches is 0".to_string();
                out.hint = Some(format!("{one} or more, or leave it out for exactly one"));
            }
        }
        None => {}
    }
    out
}

/// How one tool that deletes, moves or copies files says what its file operations' failures
/// are about: the engine reports an existing destination and a directory with entries as
/// facts ([`Fact::AlreadyExists`], [`Fact::DirectoryNotEmpty`]) in neutral words; these are
/// the hints in the tool's own arguments, or, where it has no argument for it, what the agent
/// can do with the tools it has.
pub struct OpWords {
    /// The hint for a destination (or a file to create) that exists.
    pub exists: &'static str,
    /// The hint for a directory to delete that has entries in it.
    pub not_empty: &'static str,
}

/// The engine's error of a file operation said in the words of the tool that was called.
pub(crate) fn op_in_words(err: &FkError, w: &OpWords) -> FkError {
    let mut out = err.clone();
    match err.fact() {
        Some(Fact::AlreadyExists) => out.hint = Some(w.exists.to_string()),
        Some(Fact::DirectoryNotEmpty) => out.hint = Some(w.not_empty.to_string()),
        _ => {}
    }
    out
}

/// Every failure of a file-operation report said in the words of the tool that was called.
pub fn word_fs_report(report: &mut filekit_core::fsops::FsReport, w: &OpWords) {
    for o in &mut report.ops {
        if let Some(err) = &mut o.error {
            *err = op_in_words(err, w);
        }
    }
}

/// "1, 3, 7" (and ", ..." when there are more than the engine listed).
fn match_lines(details: &Value, count: usize) -> String {
    let lines: Vec<String> = details["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(|l| l.to_string())
        .collect();
    let more = if lines.len() < count { ", ..." } else { "" };
    format!("{}{more}", lines.join(", "))
}

/// Every edit error of a report said in the words of the tool that was called (see
/// [`in_words`]), before the reply is shaped from it.
pub(crate) fn word_report(report: &mut EditReport, w: &Words) {
    for f in &mut report.files {
        let path = f.path.clone();
        for o in &mut f.edits {
            if let Some(err) = &mut o.error {
                *err = in_words(err, &path, w);
            }
        }
        if let Some(err) = f.error_mut() {
            *err = in_words(err, &path, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_diffs_are_cut_at_a_hunk_and_say_so() {
        let hunk = |n: usize| format!("@@ -{n},1 +{n},1 @@\n-old {n}\n+new {n}\n");
        let diff: String = std::iter::once("--- a/f\n+++ b/f\n".to_string())
            .chain((1..=100).map(hunk))
            .collect();
        assert_eq!(capped_diff_at(&diff, diff.len()), (diff.as_str(), None));
        let (cut, note) = capped_diff_at(&diff, 200);
        assert!(cut.len() <= 200 && cut.starts_with("--- a/f\n+++ b/f\n@@ -1,1"));
        assert!(cut.ends_with("+new 5\n") || cut.ends_with("\n"), "{cut}");
        let shown = cut.matches("@@ -").count();
        let note = note.unwrap();
        assert!(
            note.contains(&format!("first {shown} of 100 hunks")),
            "{note}"
        );
        // The first hunk stays even when it alone is over the limit.
        let (cut, note) = capped_diff_at(&diff, 10);
        assert_eq!(cut.matches("@@ -").count(), 1);
        assert!(note.unwrap().contains("first 1 of 100"));
    }

    #[test]
    fn changed_regions_follow_hunks() {
        let new = "1\n2\n3\nX\n5\n6\n7\n8\n9\n10\n11\n12\n13\nY\n";
        let diff = "--- a\n+++ b\n@@ -1,7 +1,7 @@\n 1\n@@ -11,4 +11,4 @@\n 11\n";
        let out = changed_regions(new, diff);
        assert!(out.starts_with("     1\t1\n"), "{out}");
        assert!(out.contains("     4\tX\n"), "{out}");
        assert!(out.contains("   ...\n    11\t11\n"), "{out}");
        assert!(out.ends_with("    14\tY\n"), "{out}");
        assert_eq!(hunk_new_ranges("@@ -3 +3 @@\n"), vec![(3, 1)]);
    }
}
