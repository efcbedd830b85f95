//! The three parsers, and the detection of which one a text needs.

use crate::{FileOp, FilePatch, Format, Hunk, HunkLine, Patch};
use serde::Serialize;
use std::fmt;

/// A patch that cannot be read: the line where reading stopped, what was found there and what
/// was expected instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseError {
    /// 1-based line of the patch (0 when the patch as a whole is wrong, e.g. empty).
    pub line: usize,
    pub found: String,
    pub expected: String,
    pub format: Option<Format>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}; expected {}", self.found, self.expected)
        } else {
            write!(
                f,
                "line {}: found {:?}; expected {}",
                self.line, self.found, self.expected
            )
        }
    }
}

impl std::error::Error for ParseError {}

fn err(format: Format, line: usize, found: &str, expected: impl Into<String>) -> ParseError {
    let mut found = found.to_string();
    if found.chars().count() > 80 {
        found = found.chars().take(77).collect::<String>() + "...";
    }
    ParseError {
        line,
        found,
        expected: expected.into(),
        format: Some(format),
    }
}

/// Parses `input` in the format given, or in the one detected when `format` is `None`.
pub fn parse(input: &str, format: Option<Format>) -> Result<Patch, ParseError> {
    let format = match format {
        Some(f) => f,
        None => detect(input).ok_or_else(|| ParseError {
            line: 0,
            found: if input.trim().is_empty() {
                "an empty patch".into()
            } else {
                "no patch format recognised".into()
            },
            expected:
                "a Codex patch (`*** Begin Patch`), a unified diff (`--- a/file`, `+++ b/file`, \
                `@@ -1,3 +1,4 @@`) or SEARCH/REPLACE blocks (a path line, then `<<<<<<< SEARCH`, \
                `=======`, `>>>>>>> REPLACE`)"
                    .into(),
            format: None,
        })?,
    };
    let lines: Vec<&str> = input.lines().collect();
    let files = match format {
        Format::V4a => parse_v4a(&lines)?,
        Format::Unified => parse_unified(&lines)?,
        Format::SearchReplace => parse_search_replace(&lines)?,
    };
    Ok(Patch { format, files })
}

/// The format of a text, from its markers.
pub fn detect(input: &str) -> Option<Format> {
    let lines: Vec<&str> = input.lines().collect();
    if lines.iter().any(|l| l.trim() == "*** Begin Patch") {
        return Some(Format::V4a);
    }
    if lines
        .iter()
        .any(|l| is_search_start(l).is_some() || l.trim_start().starts_with(":start_line:"))
    {
        return Some(Format::SearchReplace);
    }
    let header_pair = lines
        .windows(2)
        .any(|w| w[0].starts_with("--- ") && w[1].starts_with("+++ "));
    if header_pair
        || lines
            .iter()
            .any(|l| l.starts_with("diff --git ") || parse_hunk_header(l).is_some())
    {
        return Some(Format::Unified);
    }
    None
}

// ---------------------------------------------------------------- V4A

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const EOF_MARK: &str = "*** End of File";

fn parse_v4a(all: &[&str]) -> Result<Vec<FilePatch>, ParseError> {
    let f = Format::V4a;
    // The envelope, possibly inside a heredoc (`<<'EOF'` … `EOF`) or a code fence.
    let Some(begin) = all.iter().position(|l| l.trim() == BEGIN) else {
        let first = all.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
        return Err(err(
            f,
            first + 1,
            all.get(first).copied().unwrap_or(""),
            format!("`{BEGIN}` as the first line"),
        ));
    };
    for (k, l) in all[..begin].iter().enumerate() {
        let t = l.trim();
        if !(t.is_empty() || t.starts_with("```") || t.starts_with("<<")) {
            return Err(err(f, k + 1, l, format!("`{BEGIN}` as the first line")));
        }
    }
    let Some(end) = all.iter().rposition(|l| l.trim() == END) else {
        let last = all.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(0);
        return Err(err(
            f,
            last + 1,
            all[last],
            format!("`{END}` as the last line"),
        ));
    };
    for (k, l) in all.iter().enumerate().skip(end + 1) {
        let t = l.trim();
        if !(t.is_empty() || t.starts_with("```") || t == "EOF" || t == "'EOF'") {
            return Err(err(f, k + 1, l, format!("nothing after `{END}`")));
        }
    }
    let mut files = Vec::new();
    let mut i = begin + 1;
    while i < end {
        let line = all[i];
        let t = line.trim();
        let at = i + 1;
        if t.is_empty() {
            i += 1;
            continue;
        }
        if let Some(path) = t.strip_prefix(ADD) {
            let path = file_name(f, at, line, path)?;
            let mut content = String::new();
            i += 1;
            while i < end && all[i].starts_with('+') {
                content.push_str(&all[i][1..]);
                content.push('\n');
                i += 1;
            }
            files.push(FilePatch {
                path,
                op: FileOp::Add { content },
                patch_line: at,
            });
        } else if let Some(path) = t.strip_prefix(DELETE) {
            let path = file_name(f, at, line, path)?;
            files.push(FilePatch {
                path,
                op: FileOp::Delete,
                patch_line: at,
            });
            i += 1;
        } else if let Some(path) = t.strip_prefix(UPDATE) {
            let path = file_name(f, at, line, path)?;
            i += 1;
            let mut move_to = None;
            if i < end
                && let Some(dest) = all[i].trim().strip_prefix(MOVE)
            {
                move_to = Some(file_name(f, i + 1, all[i], dest)?);
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            let mut current: Option<Hunk> = None;
            // Empty lines (not even a space) count as blank context only when more hunk
            // lines follow: at the end of a hunk they separate it from the next.
            let mut blanks = 0usize;
            while i < end {
                let l = all[i];
                let lt = l.trim();
                if !l.starts_with([' ', '-', '+']) && lt.starts_with("*** ") && lt != EOF_MARK {
                    break;
                }
                if lt == EOF_MARK {
                    let Some(h) = current.as_mut().filter(|h| !h.lines.is_empty()) else {
                        return Err(err(
                            f,
                            i + 1,
                            l,
                            "hunk lines (` `, `-`, `+`) before `*** End of File`",
                        ));
                    };
                    h.end_of_file = true;
                    i += 1;
                    continue;
                }
                if l.is_empty() {
                    blanks += 1;
                    i += 1;
                    continue;
                }
                if lt == "@@" || lt.starts_with("@@ ") {
                    blanks = 0;
                    if let Some(h) = current.take() {
                        push_v4a_hunk(&mut hunks, h, all)?;
                    }
                    let header = lt.strip_prefix("@@").unwrap().trim();
                    // A unified-style header (`@@ -3,4 +3,5 @@`) gives a line hint.
                    let (hint, header) = match parse_hunk_header(lt) {
                        Some((old, _, rest)) => (Some(old), rest),
                        None => (None, header.to_string()),
                    };
                    current = Some(Hunk {
                        header: (!header.is_empty()).then_some(header),
                        line_hint: hint,
                        patch_line: i + 1,
                        ..Hunk::default()
                    });
                    i += 1;
                    continue;
                }
                let hl = if let Some(r) = l.strip_prefix('+') {
                    HunkLine::Added(r.to_string())
                } else if let Some(r) = l.strip_prefix('-') {
                    HunkLine::Removed(r.to_string())
                } else if let Some(r) = l.strip_prefix(' ') {
                    HunkLine::Context(r.to_string())
                } else {
                    return Err(err(
                        f,
                        i + 1,
                        l,
                        "a hunk line starting with ` ` (context), `-` (removed) or `+` (added), \
                         `@@`, `*** End of File`, or the next `*** Add/Delete/Update File:`",
                    ));
                };
                let h = current.get_or_insert_with(|| Hunk {
                    patch_line: i + 1,
                    ..Hunk::default()
                });
                if h.end_of_file {
                    return Err(err(
                        f,
                        i + 1,
                        l,
                        "`@@` or the next file after `*** End of File`",
                    ));
                }
                for _ in 0..std::mem::take(&mut blanks) {
                    h.lines.push(HunkLine::Context(String::new()));
                }
                h.lines.push(hl);
                i += 1;
            }
            if let Some(h) = current.take() {
                push_v4a_hunk(&mut hunks, h, all)?;
            }
            if hunks.is_empty() && move_to.is_none() {
                return Err(err(
                    f,
                    at,
                    line,
                    "at least one hunk (`@@`, then ` `, `-`, `+` lines) after `*** Update File:`",
                ));
            }
            files.push(FilePatch {
                path,
                op: FileOp::Update {
                    move_to,
                    hunks,
                    create_if_missing: false,
                },
                patch_line: at,
            });
        } else {
            return Err(err(
                f,
                at,
                line,
                "`*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` or \
                 `*** End Patch`",
            ));
        }
    }
    if files.is_empty() {
        return Err(err(
            f,
            begin + 1,
            all[begin],
            "at least one `*** Add File:`, `*** Delete File:` or `*** Update File:` section",
        ));
    }
    Ok(files)
}

fn push_v4a_hunk(hunks: &mut Vec<Hunk>, h: Hunk, all: &[&str]) -> Result<(), ParseError> {
    if !h.lines.iter().any(|l| !matches!(l, HunkLine::Context(_))) {
        return Err(err(
            Format::V4a,
            h.patch_line,
            all.get(h.patch_line - 1).copied().unwrap_or(""),
            "a hunk with at least one `-` or `+` line",
        ));
    }
    hunks.push(h);
    Ok(())
}

fn file_name(f: Format, at: usize, line: &str, raw: &str) -> Result<String, ParseError> {
    let p = raw.trim();
    if p.is_empty() {
        return Err(err(f, at, line, "a file path after the marker"));
    }
    Ok(p.to_string())
}

// ---------------------------------------------------------------- unified diff

/// `@@ -a[,b] +c[,d] @@ rest` → (the old text's line where the hunk's old part starts, c,
/// rest). With no old lines (`-a,0`), the part goes after line a.
fn parse_hunk_header(line: &str) -> Option<(usize, usize, String)> {
    let rest = line.trim_end().strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@").or_else(|| {
        rest.strip_suffix(" @@")
            .map(|r| (r, ""))
            .or_else(|| rest.strip_suffix("@@").map(|r| (r.trim_end(), "")))
    })?;
    let (old, new) = ranges.split_once(" +")?;
    let start = |r: &str| -> Option<usize> {
        let mut it = r.split(',');
        let a: usize = it.next()?.trim().parse().ok()?;
        let empty = it.next().is_some_and(|c| c.trim() == "0");
        Some(if empty { a + 1 } else { a })
    };
    let counts_ok = |r: &str| r.split(',').all(|n| n.trim().parse::<usize>().is_ok());
    if !counts_ok(old) || !counts_ok(new) {
        return None;
    }
    Some((start(old)?, start(new)?, tail.trim().to_string()))
}

/// What a path written in git's quoting must be, for a parse error.
const QUOTED_PATH: &str = "a path in git's quoting: in double quotes, with `\\\"`, `\\\\`, `\\t`, \
                           `\\n` or three-digit octal escapes (`\\303\\251` for é) of a UTF-8 \
                           file name without NUL";

/// A path as git writes it in a diff: quoted C-style (`"b/caf\303\251.txt"`, `"b/x\ny"`)
/// when it has a quote, a backslash, a control character or a byte past ASCII, else as it is.
/// For a quoted one: the path and what follows its closing quote; `Err` when the quoting is
/// broken or the bytes it decodes to are no UTF-8 file name.
fn unquote(raw: &str) -> Result<(String, &str), ()> {
    let body = raw.strip_prefix('"').ok_or(())?;
    let b = body.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let path = String::from_utf8(out).map_err(|_| ())?;
                if path.is_empty() || path.contains('\0') {
                    return Err(());
                }
                return Ok((path, &body[i + 1..]));
            }
            b'\\' => {
                let c = *b.get(i + 1).ok_or(())?;
                let byte = match c {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 0x0b,
                    b'f' => 0x0c,
                    b'r' => b'\r',
                    b'"' | b'\\' => c,
                    b'0'..=b'3' => {
                        let digits = b.get(i + 1..i + 4).ok_or(())?;
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return Err(());
                        }
                        i += 2;
                        digits
                            .iter()
                            .fold(0u8, |v, d| v.wrapping_mul(8) + (d - b'0'))
                    }
                    _ => return Err(()),
                };
                out.push(byte);
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(())
}

/// A path of a `---`, `+++`, `rename from` or `copy to` line: `diff -u` writes a tab then the
/// time after it; git quotes a path with special characters. `None` for /dev/null; `Err` for a
/// quoted path that does not decode.
fn unified_path(raw: &str) -> Result<Option<String>, ()> {
    let p = raw.split('\t').next().unwrap_or("").trim_end();
    let p = if p.starts_with('"') {
        let (path, rest) = unquote(p)?;
        if !rest.trim().is_empty() {
            return Err(());
        }
        path
    } else {
        p.to_string()
    };
    Ok((p != "/dev/null").then_some(p))
}

/// The two paths of a `diff --git A B` line, each quoted or not. Unquoted paths are split where
/// the second starts with `b/` (a name may have spaces).
fn git_diff_paths(rest: &str) -> Result<Option<(String, String)>, ()> {
    let second = |r: &str| -> Result<String, ()> {
        if r.starts_with('"') {
            match unquote(r)? {
                (p, tail) if tail.trim().is_empty() => Ok(p),
                _ => Err(()),
            }
        } else {
            Ok(r.to_string())
        }
    };
    if rest.starts_with('"') {
        let (a, tail) = unquote(rest)?;
        let tail = tail.strip_prefix(' ').ok_or(())?;
        return Ok(Some((a, second(tail)?)));
    }
    if rest.ends_with('"')
        && let Some(k) = rest.rfind(" \"b/").or_else(|| rest.rfind(" \""))
    {
        return Ok(Some((rest[..k].to_string(), second(&rest[k + 1..])?)));
    }
    Ok(rest
        .split_once(" b/")
        .map(|(a, b)| (a.to_string(), format!("b/{b}"))))
}

fn strip_prefix_ab(p: &str, prefix: &str) -> String {
    p.strip_prefix(prefix).unwrap_or(p).to_string()
}

fn parse_unified(all: &[&str]) -> Result<Vec<FilePatch>, ParseError> {
    let f = Format::Unified;
    let mut files = Vec::new();
    let mut i = 0;
    let mut cur: Option<UnifiedFile> = None;
    while i < all.len() {
        let line = all[i];
        if let Some(rest) = line.strip_prefix("diff --git ") {
            if let Some(c) = cur.take() {
                files.push(c.into_patch(all)?);
            }
            // `diff --git a/x b/y`: the `---`/`+++` lines, when present, say the same.
            let paths = git_diff_paths(rest).map_err(|()| err(f, i + 1, line, QUOTED_PATH))?;
            let headers = paths.is_some();
            let (a, b) = paths.unzip();
            cur = Some(UnifiedFile {
                old: a,
                new: b,
                git: true,
                rename: (None, None),
                created: false,
                deleted: false,
                hunks: Vec::new(),
                at: i + 1,
                headers,
            });
            i += 1;
            continue;
        }
        if line.starts_with("--- ") && all.get(i + 1).is_some_and(|n| n.starts_with("+++ ")) {
            let git = cur.as_ref().is_some_and(|c| c.git && c.hunks.is_empty());
            let (at, rename, created, deleted) = match cur.take() {
                Some(c) if git => (c.at, c.rename, c.created, c.deleted),
                Some(c) => {
                    files.push(c.into_patch(all)?);
                    (i + 1, (None, None), false, false)
                }
                None => (i + 1, (None, None), false, false),
            };
            let old = unified_path(&line[4..]).map_err(|()| err(f, i + 1, line, QUOTED_PATH))?;
            let new = unified_path(&all[i + 1][4..])
                .map_err(|()| err(f, i + 2, all[i + 1], QUOTED_PATH))?;
            cur = Some(UnifiedFile {
                old,
                new,
                git,
                rename,
                created,
                deleted,
                hunks: Vec::new(),
                at,
                headers: true,
            });
            i += 2;
            continue;
        }
        if let Some(c) = cur.as_mut().filter(|c| c.git && c.hunks.is_empty())
            && c.git_extended_header(line, i + 1)?
        {
            i += 1;
            continue;
        }
        if line.starts_with("@@") {
            let Some((old_start, _new_start, header)) = parse_hunk_header(line) else {
                return Err(err(
                    f,
                    i + 1,
                    line,
                    "a hunk header like `@@ -12,5 +12,6 @@` (old start,count then new start,count)",
                ));
            };
            let Some(c) = cur.as_mut() else {
                return Err(err(
                    f,
                    i + 1,
                    line,
                    "`--- OLD` and `+++ NEW` file header lines before the first hunk",
                ));
            };
            let (h, next) = read_hunk(all, i, old_start, header)?;
            c.hunks.push(h);
            i = next;
            continue;
        }
        if let Some(c) = &cur
            && !c.hunks.is_empty()
            && !line.trim().is_empty()
        {
            return Err(err(
                f,
                i + 1,
                line,
                "a hunk line (` `, `-`, `+`), the next `@@` hunk, or the next file's `--- `/`+++ ` lines",
            ));
        }
        // Text before the first file (a commit message, `git format-patch` headers) is skipped.
        i += 1;
    }
    match cur {
        Some(c) => files.push(c.into_patch(all)?),
        None => {
            return Err(err(
                f,
                1,
                all.first().copied().unwrap_or(""),
                "`--- OLD` and `+++ NEW` file header lines, then `@@` hunks",
            ));
        }
    }
    Ok(files)
}

/// The file of a unified diff being read.
struct UnifiedFile {
    old: Option<String>,
    new: Option<String>,
    /// Whether it began with a `diff --git` line.
    git: bool,
    rename: (Option<String>, Option<String>),
    created: bool,
    deleted: bool,
    hunks: Vec<Hunk>,
    /// Its first line in the patch (1-based).
    at: usize,
    /// Whether it had its `---`/`+++` header lines (or a `diff --git` line naming both paths).
    headers: bool,
}

impl UnifiedFile {
    /// The file's operation, once all its lines are read: its paths without their `a/` and
    /// `b/`, an add's content from its hunks, a rename's paths from its `rename` lines.
    fn into_patch(self, all: &[&str]) -> Result<FilePatch, ParseError> {
        let f = Format::Unified;
        let both_ab = self.git
            || (self.old.as_deref().is_none_or(|p| p.starts_with("a/"))
                && self.new.as_deref().is_none_or(|p| p.starts_with("b/"))
                && (self.old.is_some() || self.new.is_some()));
        let old = self.old.as_deref().map(|p| {
            if both_ab {
                strip_prefix_ab(p, "a/")
            } else {
                p.into()
            }
        });
        let new = self.new.as_deref().map(|p| {
            if both_ab {
                strip_prefix_ab(p, "b/")
            } else {
                p.into()
            }
        });
        let (old, new) = match (&self.rename.0, &self.rename.1) {
            (Some(a), Some(b)) => (Some(a.clone()), Some(b.clone())),
            _ => (old, new),
        };
        let line = all.get(self.at - 1).copied().unwrap_or("");
        if !self.headers && self.rename.0.is_none() {
            return Err(err(
                f,
                self.at,
                line,
                "`--- OLD` and `+++ NEW` file header lines",
            ));
        }
        let op_path;
        let op = match (old, new) {
            (None, None) => {
                return Err(err(f, self.at, line, "a file path other than /dev/null"));
            }
            (None, Some(p)) => {
                op_path = p;
                let mut content = String::new();
                for h in &self.hunks {
                    for l in h.new_lines() {
                        content.push_str(l);
                        content.push('\n');
                    }
                    if h.new_no_newline && content.ends_with('\n') {
                        content.pop();
                    }
                }
                FileOp::Add { content }
            }
            (Some(p), None) => {
                op_path = p;
                FileOp::Delete
            }
            (Some(o), Some(n)) => {
                if self.hunks.is_empty() && o == n && !self.created && !self.deleted {
                    return Err(err(
                        f,
                        self.at,
                        line,
                        "at least one `@@` hunk for this file",
                    ));
                }
                let move_to = (o != n).then(|| n.clone());
                op_path = o;
                FileOp::Update {
                    move_to,
                    hunks: self.hunks,
                    create_if_missing: false,
                }
            }
        };
        Ok(FilePatch {
            path: op_path,
            op,
            patch_line: self.at,
        })
    }

    /// Takes `line` (line `at` of the patch) when it is one of git's extended header lines
    /// (renames, modes, index); whether it was. A binary patch is refused.
    fn git_extended_header(&mut self, line: &str, at: usize) -> Result<bool, ParseError> {
        let f = Format::Unified;
        if let Some(p) = line.strip_prefix("rename from ") {
            self.rename.0 = unified_path(p.trim()).map_err(|()| err(f, at, line, QUOTED_PATH))?;
            return Ok(true);
        }
        if let Some(p) = line.strip_prefix("rename to ") {
            self.rename.1 = unified_path(p.trim()).map_err(|()| err(f, at, line, QUOTED_PATH))?;
            return Ok(true);
        }
        if line.starts_with("new file mode") {
            self.created = true;
            self.old = None;
            return Ok(true);
        }
        if line.starts_with("deleted file mode") {
            self.deleted = true;
            self.new = None;
            return Ok(true);
        }
        if [
            "index ",
            "old mode",
            "new mode",
            "similarity index",
            "dissimilarity index",
            "copy from",
            "copy to",
        ]
        .iter()
        .any(|p| line.starts_with(p))
        {
            return Ok(true);
        }
        if line.starts_with("Binary files") || line.starts_with("GIT binary patch") {
            return Err(err(
                f,
                at,
                line,
                "a text diff (binary patches are not applied)",
            ));
        }
        Ok(false)
    }
}

/// Reads the hunk whose `@@` header is line `i` (0-based) of the patch, up to the next hunk,
/// file or line that is not a hunk's; the hunk and the index of the line after it.
fn read_hunk(
    all: &[&str],
    mut i: usize,
    old_start: usize,
    header: String,
) -> Result<(Hunk, usize), ParseError> {
    let f = Format::Unified;
    let mut h = Hunk {
        header: (!header.is_empty()).then_some(header),
        line_hint: Some(old_start),
        patch_line: i + 1,
        ..Hunk::default()
    };
    i += 1;
    let mut last_side = ' ';
    while i < all.len() {
        let l = all[i];
        if l.starts_with("@@")
            || l.starts_with("diff --git ")
            || (l.starts_with("--- ") && all.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
        {
            break;
        }
        if l.starts_with('\\') {
            match last_side {
                '-' => h.old_no_newline = true,
                '+' => h.new_no_newline = true,
                _ => {
                    h.old_no_newline = true;
                    h.new_no_newline = true;
                }
            }
            i += 1;
            continue;
        }
        let hl = if let Some(r) = l.strip_prefix('+') {
            last_side = '+';
            HunkLine::Added(r.to_string())
        } else if let Some(r) = l.strip_prefix('-') {
            last_side = '-';
            HunkLine::Removed(r.to_string())
        } else if let Some(r) = l.strip_prefix(' ') {
            last_side = ' ';
            HunkLine::Context(r.to_string())
        } else if l.is_empty() {
            last_side = ' ';
            HunkLine::Context(String::new())
        } else {
            break;
        };
        h.lines.push(hl);
        i += 1;
    }
    // Blank lines after the last hunk of a diff are the end of the text.
    while matches!(h.lines.last(), Some(HunkLine::Context(t)) if t.is_empty())
        && all[h.patch_line..i].last().is_some_and(|l| l.is_empty())
    {
        h.lines.pop();
    }
    if !h.lines.iter().any(|l| !matches!(l, HunkLine::Context(_))) {
        return Err(err(
            f,
            h.patch_line,
            all[h.patch_line - 1],
            "at least one `-` or `+` line in the hunk",
        ));
    }
    Ok((h, i))
}

// ---------------------------------------------------------------- SEARCH/REPLACE

fn is_search_start(line: &str) -> Option<()> {
    let t = line.trim();
    let head = t.strip_suffix("SEARCH")?.trim_end();
    let ok = (head.len() >= 5 && head.chars().all(|c| c == '<'))
        || (head.len() >= 3 && head.chars().all(|c| c == '-'));
    ok.then_some(())
}

fn is_divider(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 5 && t.len() <= 9 && t.chars().all(|c| c == '=')
}

fn is_replace_end(line: &str) -> bool {
    let t = line.trim();
    let Some(head) = t.strip_suffix("REPLACE") else {
        return false;
    };
    let head = head.trim_end();
    (head.len() >= 5 && head.chars().all(|c| c == '>'))
        || (head.len() >= 3 && head.chars().all(|c| c == '+'))
}

fn path_line(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with("```") {
        return None;
    }
    let t = t
        .trim_start_matches(['#', '*', '`'])
        .trim_end_matches(['*', '`', ':'])
        .trim();
    let t = t
        .strip_prefix("File:")
        .or(t.strip_prefix("file:"))
        .unwrap_or(t)
        .trim()
        .trim_matches('`')
        .trim();
    (!t.is_empty() && !t.contains(char::is_whitespace)).then(|| t.to_string())
}

/// The path written just before a SEARCH block at `i` (aider: the line before the block or
/// before its code fence), if any.
fn path_before(all: &[&str], i: usize) -> Option<String> {
    let mut j = i.checked_sub(1)?;
    if all[j].trim().starts_with("```") {
        j = j.checked_sub(1)?;
    }
    path_line(all[j])
}

fn parse_search_replace(all: &[&str]) -> Result<Vec<FilePatch>, ParseError> {
    let f = Format::SearchReplace;
    let mut files: Vec<FilePatch> = Vec::new();
    let mut path: Option<String> = None;
    let mut i = 0;
    while i < all.len() {
        let line = all[i];
        if is_search_start(line).is_none() {
            if is_divider(line) || is_replace_end(line) {
                return Err(err(f, i + 1, line, "`<<<<<<< SEARCH` before this marker"));
            }
            i += 1;
            continue;
        }
        if let Some(p) = path_before(all, i) {
            path = Some(p);
        }
        let start = i + 1;
        let Some(p) = path.clone() else {
            return Err(err(
                f,
                start,
                line,
                "the file's path on the line before the SEARCH block (or before its ``` fence)",
            ));
        };
        i += 1;
        // Roo Code: `:start_line:N`, optional `:end_line:N`, then a `-------` line.
        let mut hint = None;
        while i < all.len() {
            let t = all[i].trim();
            if let Some(n) = t.strip_prefix(":start_line:") {
                hint =
                    Some(n.trim().parse::<usize>().map_err(|_| {
                        err(f, i + 1, all[i], "`:start_line:N` with N a line number")
                    })?);
                i += 1;
            } else if t.starts_with(":end_line:") {
                i += 1;
            } else if hint.is_some() && t.len() >= 3 && t.chars().all(|c| c == '-') {
                i += 1;
                break;
            } else {
                break;
            }
        }
        let mut search = Vec::new();
        while i < all.len() && !is_divider(all[i]) {
            if is_search_start(all[i]).is_some() || is_replace_end(all[i]) {
                return Err(err(
                    f,
                    i + 1,
                    all[i],
                    "`=======` between the SEARCH and REPLACE parts",
                ));
            }
            search.push(all[i]);
            i += 1;
        }
        if i == all.len() {
            return Err(err(
                f,
                start,
                line,
                "`=======` then `>>>>>>> REPLACE` to close this SEARCH block",
            ));
        }
        i += 1;
        let mut replace = Vec::new();
        while i < all.len() && !is_replace_end(all[i]) {
            if is_search_start(all[i]).is_some() || is_divider(all[i]) {
                return Err(err(
                    f,
                    i + 1,
                    all[i],
                    "`>>>>>>> REPLACE` to close the block",
                ));
            }
            replace.push(all[i]);
            i += 1;
        }
        if i == all.len() {
            return Err(err(
                f,
                start,
                line,
                "`>>>>>>> REPLACE` to close this SEARCH block",
            ));
        }
        i += 1;
        let create = search.is_empty();
        let hunk = Hunk {
            line_hint: hint,
            lines: diff_lines(if create { &[] } else { &search }, &replace),
            patch_line: start,
            ..Hunk::default()
        };
        match files.last_mut() {
            Some(FilePatch {
                path: last,
                op: FileOp::Update { hunks, .. },
                ..
            }) if *last == p => hunks.push(hunk),
            _ => files.push(FilePatch {
                path: p,
                op: FileOp::Update {
                    move_to: None,
                    hunks: vec![hunk],
                    create_if_missing: create,
                },
                patch_line: start,
            }),
        }
    }
    if files.is_empty() {
        return Err(err(
            f,
            1,
            all.first().copied().unwrap_or(""),
            "a path line then `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`",
        ));
    }
    Ok(files)
}

/// A search and its replacement as hunk lines: the lines both share are context, so that the
/// file keeps its own.
fn diff_lines(old: &[&str], new: &[&str]) -> Vec<HunkLine> {
    use similar::{Algorithm, DiffOp, capture_diff_slices};
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        match op {
            DiffOp::Equal { old_index, len, .. } => out.extend(
                old[old_index..old_index + len]
                    .iter()
                    .map(|l| HunkLine::Context(l.to_string())),
            ),
            DiffOp::Delete {
                old_index, old_len, ..
            } => out.extend(
                old[old_index..old_index + old_len]
                    .iter()
                    .map(|l| HunkLine::Removed(l.to_string())),
            ),
            DiffOp::Insert {
                new_index, new_len, ..
            } => out.extend(
                new[new_index..new_index + new_len]
                    .iter()
                    .map(|l| HunkLine::Added(l.to_string())),
            ),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                out.extend(
                    old[old_index..old_index + old_len]
                        .iter()
                        .map(|l| HunkLine::Removed(l.to_string())),
                );
                out.extend(
                    new[new_index..new_index + new_len]
                        .iter()
                        .map(|l| HunkLine::Added(l.to_string())),
                );
            }
        }
    }
    out
}
