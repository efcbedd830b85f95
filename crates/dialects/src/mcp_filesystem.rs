//! The `mcp-filesystem` table: the tools of the official MCP filesystem server
//! (`@modelcontextprotocol/server-filesystem`, compared with release 2026.8.31) with its
//! names, arguments and reply texts, so that `filekit serve --tools mcp-filesystem --root DIR`
//! replaces `npx @modelcontextprotocol/server-filesystem DIR`.
//!
//! Its replies are one text (`structuredContent: {content}`); its errors are the message of
//! what it threw: Node's for file system calls (`ENOENT: no such file or directory, open
//! '/abs/path'`), its own for the rest (`Access denied - path outside allowed directories:
//! ...`). Both are kept where they say enough. Where filekit does better, on purpose, the
//! description says so: an ambiguous edit is refused (the server edits the first match), a
//! failed edit shows its near miss, unknown arguments are refused, binary files are not read
//! as text, listings are sorted, `tail` counts lines.

use crate::Call;
use crate::Media;
use crate::args::{parse, schema_for};
use crate::reply::{self, CamelFailure, SchemaForm};
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest};
use filekit_core::fsops::{self, FileOp, FsRequest};
use filekit_core::limits::ReplyBudget;
use filekit_core::read::{ReadContent, ReadOptions, read_file, read_file_within};
use filekit_core::search::WalkFilter;
use filekit_core::search::list::{EntryKind, ListOptions, Listing, list};
use filekit_core::splices::Splice;
use filekit_core::{ErrorCode, FkError};
use filekit_patch::{Format, Hunk, HunkLine};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;
use std::time::{SystemTime, UNIX_EPOCH};
use unicode_normalization::UnicodeNormalization;

const DIALECT: &str = "mcp-filesystem";

/// Entries a listing, a tree or a search keeps (the server has no bound; a workspace is
/// untrusted input, so filekit has one, and says when it cut).
const MAX_ENTRIES: usize = 100_000;
/// How deep a tree or a search descends.
const MAX_DEPTH: usize = 256;
/// Lines of context around each change in edit_file's diff: jsdiff's default, which the
/// server's diff has.
const DIFF_CONTEXT: usize = 4;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec = |name,
                description,
                schema: &'static LazyLock<Value>,
                run,
                read_only,
                destructive,
                idempotent| ToolSpec {
        name,
        dialect: DIALECT,
        description,
        input_schema: schema,
        read_only,
        destructive,
        idempotent,
        run,
        reject,
        guide: guide(name),
        reply: crate::ReplySchema::Typed(if name == "read_media_file" {
            media_reply_schema
        } else {
            reply_schema
        }),
    };
    let reader = |name, description, schema: &'static LazyLock<Value>, run| {
        spec(name, description, schema, run, true, false, true)
    };
    vec![
        reader("read_file", READ_FILE_DESCRIPTION, &READ_SCHEMA, read_text),
        reader(
            "read_text_file",
            READ_TEXT_DESCRIPTION,
            &READ_SCHEMA,
            read_text,
        ),
        reader(
            "read_media_file",
            READ_MEDIA_DESCRIPTION,
            &PATH_SCHEMA,
            read_media,
        ),
        reader(
            "read_multiple_files",
            READ_MULTIPLE_DESCRIPTION,
            &READ_MULTIPLE_SCHEMA,
            read_multiple,
        ),
        spec(
            "write_file",
            WRITE_DESCRIPTION,
            &WRITE_SCHEMA,
            write_file,
            false,
            true,
            true,
        ),
        spec(
            "edit_file",
            EDIT_DESCRIPTION,
            &EDIT_SCHEMA,
            edit_file,
            false,
            true,
            false,
        ),
        spec(
            "create_directory",
            CREATE_DIRECTORY_DESCRIPTION,
            &PATH_SCHEMA,
            create_directory,
            false,
            false,
            true,
        ),
        reader(
            "list_directory",
            LIST_DESCRIPTION,
            &PATH_SCHEMA,
            list_directory,
        ),
        reader(
            "list_directory_with_sizes",
            LIST_SIZES_DESCRIPTION,
            &LIST_SIZES_SCHEMA,
            list_with_sizes,
        ),
        reader(
            "directory_tree",
            TREE_DESCRIPTION,
            &TREE_SCHEMA,
            directory_tree,
        ),
        spec(
            "move_file",
            MOVE_DESCRIPTION,
            &MOVE_SCHEMA,
            move_file,
            false,
            true,
            false,
        ),
        reader(
            "search_files",
            SEARCH_DESCRIPTION,
            &SEARCH_SCHEMA,
            search_files,
        ),
        reader(
            "get_file_info",
            INFO_DESCRIPTION,
            &PATH_SCHEMA,
            get_file_info,
        ),
        reader(
            "list_allowed_directories",
            ALLOWED_DESCRIPTION,
            &NO_ARGS_SCHEMA,
            list_allowed,
        ),
    ]
}

/// Removes the arguments the server takes and ignores that cannot change what a call does
/// (its zod schemas strip any key they do not name; filekit refuses unknown keys, so that a
/// misspelt argument is not silently dropped). `encoding` of the read and write tools is
/// taken when it names UTF-8 ([`crate::args::take_utf8_encoding`]).
/// `replaceAll` in an edit is taken either way: an edit whose text occurs once does the same
/// with it or without, and one whose text occurs more often is refused as ambiguous.
pub(crate) fn drop_ignored(tool: &str, args: &mut Value) -> Result<(), FkError> {
    let Some(obj) = args.as_object_mut() else {
        return Ok(());
    };
    match tool {
        "read_text_file" | "read_file" | "write_file" => {
            crate::args::take_utf8_encoding(tool, obj)?;
        }
        "edit_file" => {
            if let Some(Value::Array(edits)) = obj.get_mut("edits") {
                for edit in edits.iter_mut().filter_map(Value::as_object_mut) {
                    if edit.get("replaceAll").is_some_and(Value::is_boolean) {
                        edit.remove("replaceAll");
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// What a tool does differently from the server's, on purpose, and why (the documentation
/// page prints it after the description).
fn guide(tool: &str) -> &'static str {
    match tool {
        "read_file" | "read_text_file" => READ_GUIDE,
        "read_media_file" => MEDIA_GUIDE,
        "read_multiple_files" => MULTIPLE_GUIDE,
        "write_file" => WRITE_GUIDE,
        "edit_file" => EDIT_GUIDE,
        _ => PATHS_GUIDE,
    }
}

const PATHS_GUIDE: &str = "\
Paths are taken as the server takes them: absolute or relative to the first allowed \
directory, `~` expanded; a name spelled in another Unicode normalization than on disk (NFD \
as macOS writes it, NFC) finds the file; a Windows drive path (`C:\\...`) is refused on this \
POSIX host. Unlike the server, filekit refuses an argument the tool does not take (the server \
drops it unseen), so that a misspelt one is not silently ignored, and keeps every reply within \
a budget (at most 100,000 entries, said when cut).";

const READ_GUIDE: &str = "\
Differences from the server, on purpose: a binary file is refused with what it is (the server \
decodes it as garbled UTF-8); a text file in another encoding than UTF-8 (Latin-1, \
Windows-1252, Shift_JIS, UTF-16 with its byte order mark) is shown decoded, the text edit_file \
matches (the server shows each byte that is not UTF-8 as U+FFFD, which no oldText can name, \
and its edit_file writes those U+FFFD into the file for good); `encoding` is taken when it names UTF-8, which both read \
whatever it says, and refused otherwise; `tail` counts lines (the server counts the empty \
string after the last newline as one); a file over 2 MiB is sent up to there and says where it \
was cut. Paths: as every tool of this table (see list_directory).";

const MEDIA_GUIDE: &str = "\
As the server: the MIME type comes from the extension; images and sounds are sent as image and \
audio blocks, any other file as an embedded resource (`file://` URI, blob). filekit also tells \
an image by its content (a PNG without extension is an image), and refuses a file over 2 MiB \
(a reply budget) rather than send it.";

const MULTIPLE_GUIDE: &str = "\
As the server: each file that cannot be read is said in its place and the others are read; the \
call succeeds when any file was read. When none was, filekit's call fails (the server's \
succeeds with only errors in it).";

const WRITE_GUIDE: &str = "\
Differences from the server, on purpose: nothing is written inside `.git/` or into the \
protected files (shell start-up files, credentials, client configurations) unless filekit is \
started to allow it, and never into filekit's own data; the write is atomic and recorded in \
filekit's history, so it can be undone. `encoding` is taken when it names UTF-8.";

const EDIT_GUIDE: &str = "\
Differences from the server, on purpose: an oldText found in more than one place is refused \
with the lines where (the server edits the first, which may not be the one meant; \
`replaceAll` in an edit is taken and changes nothing of this); a failed edit shows the closest \
text in the file; the file keeps its CRLF line endings; a file that is not UTF-8 (Latin-1, \
Shift_JIS, UTF-16) is edited in its own encoding, every byte outside the edit kept, not \
rewritten with U+FFFD in place of its accented letters (a character its encoding cannot hold \
is refused); `.git/` and protected files are refused as write_file says. As the \
server, an empty oldText puts newText at the start of the file.";

/// What every tool of the table answers: the server's `structuredContent`, `{content}`, and
/// on failure the error's fields beside it.
#[derive(Serialize, JsonSchema)]
struct Reply<C = String> {
    /// What the model reads, as the official server's `structuredContent.content` (on failure,
    /// the error's text in the server's words).
    content: C,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    failure: Option<CamelFailure>,
}

/// What read_media_file answers: the file as one content block, or the failure's text.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum MediaContent {
    /// The failure's text. `failed` answers it as every tool's failure, with the same JSON.
    #[allow(dead_code)]
    Text(String),
    Blocks(Vec<Block>),
}

/// A file sent whole, as an MCP content block.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Block {
    Image {
        /// The file's bytes, base64.
        data: String,
        /// The image's MIME type, told by its content.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        /// The file's bytes, base64.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Any other file, named by its `file://` URI.
    Resource { resource: Blob },
}

#[derive(Serialize, JsonSchema)]
struct Blob {
    uri: String,
    #[serde(rename = "mimeType")]
    mime_type: String,
    /// The file's bytes, base64.
    blob: String,
}

fn reply_schema(form: SchemaForm) -> Value {
    reply::schema_failing::<Reply, CamelFailure>(form)
}

fn media_reply_schema(form: SchemaForm) -> Value {
    reply::schema_failing::<Reply<MediaContent>, CamelFailure>(form)
}

fn reject(err: &FkError) -> Value {
    reply::to_value(&Reply {
        content: err.full_message(),
        failure: Some(CamelFailure::of(err)),
    })
}

/// A reply that succeeded: the server's `structuredContent` is `{content: text}`.
fn done(text: String) -> ToolReply {
    let value = Reply {
        content: text.as_str(),
        failure: None,
    };
    ToolReply::new(reply::to_value(&value), false, text)
}

/// A failure said in `text` (the server's words for it), with the engine's facts beside it.
fn failed(text: String, err: &FkError) -> ToolReply {
    Said::new(text, err.clone()).into()
}

/// A failure said in the server's words (`text`), with the engine's error beside it: what
/// the helpers of several tools give back, for the tool to answer with or to list among
/// others' (read_multiple_files).
struct Said {
    text: String,
    err: FkError,
}

impl Said {
    fn new(text: String, err: FkError) -> Said {
        Said { text, err }
    }
}

impl From<Said> for ToolReply {
    fn from(said: Said) -> ToolReply {
        let value = Reply {
            content: said.text.as_str(),
            failure: Some(CamelFailure::of(&said.err)),
        };
        ToolReply::new(reply::to_value(&value), true, said.text)
    }
}

// ---------------------------------------------------------------------------------------------
// Paths and errors in the server's words

/// The absolute path the server would name for `given`: `~` expanded, relative paths taken
/// against the first allowed directory, `.` and `..` folded (Node's `path.resolve`).
fn requested(ws: &Call, given: &str) -> String {
    let expanded = match given.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest.trim_start_matches('/')),
            None => PathBuf::from(given),
        },
        _ => PathBuf::from(given),
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        ws.roots()[0].join(expanded)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.display().to_string()
}

fn allowed(ws: &Call) -> String {
    ws.roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the server says when `syscall` on `path` failed as the engine's `err` says: Node's
/// error texts for what the file system refused, its own access-denied text, and the engine's
/// message (with its hint) for what it refuses that the server does not (binary files, files
/// over the size bound, filekit's own data). A missing path keeps the engine's hint when it
/// names paths of similar names that do exist.
fn server_words(ws: &Call, err: &FkError, syscall: &str, given: &str) -> String {
    let abs = requested(ws, given);
    let with_hint = |text: String| match &err.hint {
        Some(h) if h.starts_with("did you mean") => {
            format!("{text}\n{h}")
        }
        _ => text,
    };
    match err.code {
        // Through a link: where it really leads, as the server names it.
        ErrorCode::OutOfRoot
            if let (Some(link), Some(target)) = (
                err.details.get("link").and_then(Value::as_str),
                err.details.get("target").and_then(Value::as_str),
            ) =>
        {
            let rest = Path::new(&abs)
                .strip_prefix(link)
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let real = if rest.as_os_str().is_empty() {
                PathBuf::from(target)
            } else {
                Path::new(target).join(rest)
            };
            format!(
                "Access denied - symlink target outside allowed directories: {} not in {}",
                real.display(),
                allowed(ws)
            )
        }
        // Only a path out of the roots: filekit's own data and `.git/` are refused in the
        // engine's words, which say why.
        ErrorCode::OutOfRoot if err.message.contains("outside the workspace") => format!(
            "Access denied - path outside allowed directories: {abs} not in {}",
            allowed(ws)
        ),
        ErrorCode::NotFound => with_hint(format!(
            "ENOENT: no such file or directory, {syscall} '{abs}'"
        )),
        ErrorCode::IsDirectory if syscall == "open" => {
            "EISDIR: illegal operation on a directory, read".to_string()
        }
        ErrorCode::PermissionDenied => format!("EACCES: permission denied, {syscall} '{abs}'"),
        _ => err.full_message(),
    }
}

/// The arguments of `tool`, with each path checked as the server's `validatePath` checks it
/// before use: a Windows drive path is refused on this POSIX host (taken as relative, it would
/// name a file called `C:\Users\...` inside the root), and a path whose exact spelling does not
/// exist is taken in the spelling on disk of the same name in another Unicode normalization
/// (macOS writes names decomposed, NFD; most other programs composed, NFC).
fn parse_paths<T: serde::de::DeserializeOwned>(
    ws: &Call,
    tool: &str,
    schema: &Value,
    mut args: Value,
) -> Result<T, FkError> {
    for key in ["path", "source", "destination"] {
        if let Some(Value::String(given)) = args.get_mut(key) {
            windows_path_refused(given)?;
            if let Some(found) = spelled_on_disk(ws, given) {
                *given = found;
            }
        }
    }
    // read_multiple_files says each path's failure beside the other files.
    if let Some(Value::Array(paths)) = args.get_mut("paths") {
        for given in paths.iter_mut() {
            if let Value::String(given) = given
                && windows_path_refused(given).is_ok()
                && let Some(found) = spelled_on_disk(ws, given)
            {
                *given = found;
            }
        }
    }
    parse(tool, schema, args)
}

/// The server's refusal of a Windows drive path (`C:\x`, `c:/x`, `C:`) on a POSIX host.
fn windows_path_refused(given: &str) -> Result<(), FkError> {
    let b = given.as_bytes();
    let drive = b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b.len() == 2 || b[2] == b'\\' || b[2] == b'/');
    if !drive {
        return Ok(());
    }
    Err(FkError::new(
        ErrorCode::InvalidArgument,
        format!("Access denied - Windows-style path received on a POSIX host: {given}"),
    )
    .with_hint(
        "this server runs on a POSIX system: give an absolute path (/...) or one relative to \
         the first allowed directory (list_allowed_directories names them)",
    ))
}

/// The path of an existing file or folder whose name is `given`'s in another Unicode
/// normalization, when `given` itself does not exist: each missing component is looked up
/// among its folder's entries by its NFC form, as the server's `resolveUnicodeEquivalentPath`
/// does. `None` when `given` exists, or when no single entry matches. Every lookup goes
/// through the workspace (its listing and its `resolve`), so nothing outside the roots is
/// named.
fn spelled_on_disk(ws: &Call, given: &str) -> Option<String> {
    if given.is_ascii() || exists(ws, given) {
        return None;
    }
    let abs = PathBuf::from(requested(ws, given));
    let root = ws
        .roots()
        .iter()
        .filter(|r| abs.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())?;
    let parts: Vec<String> = abs
        .strip_prefix(root)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let mut current = root.clone();
    let mut changed = false;
    for (i, part) in parts.iter().enumerate() {
        let exact = current.join(part);
        if exists(ws, &exact.display().to_string()) {
            current = exact;
            continue;
        }
        let listing = list(
            ws,
            &ListOptions {
                path: Some(current.display().to_string()),
                depth: 1,
                walk: WalkFilter {
                    hidden: true,
                    ignored: true,
                },
                ..ListOptions::default()
            },
        )
        .ok()?;
        let mut same = listing
            .entries
            .iter()
            .filter(|e| e.name.nfc().eq(part.nfc()));
        match (same.next(), same.next()) {
            (Some(e), None) => {
                current = current.join(&e.name);
                changed = true;
            }
            // Nothing of that name: what follows is new (a file to write), as spelled.
            (None, _) if changed => {
                let tail = parts[i..].iter().fold(current, |p, c| p.join(c));
                return Some(tail.display().to_string());
            }
            _ => return None,
        }
    }
    changed.then(|| current.display().to_string())
}

fn exists(ws: &Call, path: &str) -> bool {
    ws.resolve(path)
        .and_then(|p| ws.metadata(&p))
        .is_ok_and(|m| m.is_some())
}

// ---------------------------------------------------------------------------------------------
// read_text_file, read_file (deprecated), read_multiple_files

const READ_TEXT_DESCRIPTION: &str = "\
Read the complete contents of a file from the file system as text. Handles various text \
encodings and provides detailed error messages if the file cannot be read. Use this tool when \
you need to examine the contents of a single file. Use the 'head' parameter to read only the \
first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. \
Operates on the file as text regardless of extension. Only works within allowed directories. \
(filekit: a binary file is refused, not shown garbled.)

Example: {\"path\": \"src/main.rs\", \"head\": 40}";

const READ_FILE_DESCRIPTION: &str = "\
Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.

Example: {\"path\": \"README.md\"}";

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    // The file to read: absolute, or relative to the first allowed directory.
    path: String,
    /// If provided, returns only the last N lines of the file
    tail: Option<f64>,
    /// If provided, returns only the first N lines of the file
    head: Option<f64>,
}

static READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadArgs>);

/// A whole read: every line, images described rather than sent.
fn whole() -> ReadOptions {
    ReadOptions::default()
}

/// The text of a file as read: the lines asked for, whether the read stopped early, the last
/// line it has, and the file's size.
struct Shown {
    content: String,
    truncated: bool,
    end_line: usize,
    size: u64,
}

/// A text read of a file, or the reply of the failure: what is not text is refused with
/// what it is. Text in another encoding (Latin-1, Shift_JIS, UTF-16) is shown decoded, as
/// edit_file matches it; the server would show its bytes as UTF-8, U+FFFD for each byte that
/// is not, which no oldText could then name. Bytes that are not text in the encoding found
/// are shown as the server shows them.
fn text_read(ws: &Call, path: &str, opts: &ReadOptions) -> Result<Shown, Box<Said>> {
    text_read_within(ws, path, opts, &ReplyBudget::unlimited())
}

/// [`text_read`] as one part of a reply that `budget` bounds.
fn text_read_within(
    ws: &Call,
    path: &str,
    opts: &ReadOptions,
    budget: &ReplyBudget,
) -> Result<Shown, Box<Said>> {
    let r = read_file_within(ws, path, opts, budget);
    match r.result {
        Ok(ReadContent::Text(t)) => Ok(Shown {
            content: t.content,
            truncated: t.truncated,
            end_line: t.end_line,
            size: t.size,
        }),
        Ok(ReadContent::Image(i)) => {
            let err = FkError::new(
                ErrorCode::Binary,
                format!("{} is an image ({}), not text", r.path, i.mime),
            )
            .with_hint("read it with read_media_file");
            Err(Box::new(Said::new(err.full_message(), err)))
        }
        Ok(ReadContent::Binary(b)) => {
            let err = FkError::new(
                ErrorCode::Binary,
                format!("{} cannot be read as text: {}", r.path, b.description),
            )
            .with_hint("read_text_file shows text files; read_media_file sends any file whole");
            Err(Box::new(Said::new(err.full_message(), err)))
        }
        Err(err) if err.code == ErrorCode::Encoding => not_utf8(ws, path, opts),
        Err(err) => Err(Box::new(Said::new(
            server_words(ws, &err, "open", path),
            err,
        ))),
    }
}

/// A text file that is not UTF-8, as the server's `fs.readFile(path, 'utf-8')` gives it: each
/// byte sequence that is not UTF-8 becomes U+FFFD (the WHATWG decoder's rule, which Rust's
/// lossy decoding follows), then the first or last lines asked for.
fn not_utf8(ws: &Call, path: &str, opts: &ReadOptions) -> Result<Shown, Box<Said>> {
    let file = ws
        .resolve(path)
        .and_then(|p| ws.read(&p))
        .map_err(|err| Box::new(Said::new(server_words(ws, &err, "open", path), err)))?;
    let text = String::from_utf8_lossy(&file.bytes);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (from, to) = match (opts.max_lines, opts.start_line) {
        (Some(n), _) => (0, n.min(lines.len())),
        (None, Some(start)) if start < 0 => (
            lines.len().saturating_sub(start.unsigned_abs() as usize),
            lines.len(),
        ),
        _ => (0, lines.len()),
    };
    Ok(Shown {
        content: lines[from..to].concat(),
        truncated: false,
        end_line: to,
        size: file.bytes.len() as u64,
    })
}

/// The text of a file as the server's text tools give it, or the reply of the failure. A file
/// larger than the engine reads at once comes back cut, and says where (the server sends all
/// of it, whatever its size).
fn read_text_of(ws: &Call, path: &str, opts: &ReadOptions) -> Result<String, Box<Said>> {
    read_text_within(ws, path, opts, &ReplyBudget::unlimited())
}

/// [`read_text_of`] as one part of a reply that `budget` bounds.
fn read_text_within(
    ws: &Call,
    path: &str,
    opts: &ReadOptions,
    budget: &ReplyBudget,
) -> Result<String, Box<Said>> {
    let t = text_read_within(ws, path, opts, budget)?;
    let mut text = t.content;
    if t.truncated && opts.max_lines.is_none() {
        text.push_str(&format!(
            "\n[filekit: cut after line {} of this {}-byte file: it reads at most {} bytes of \
             a file at once; `head` reads its first lines]",
            t.end_line,
            t.size,
            filekit_core::limits::MAX_READ_BYTES
        ));
    }
    Ok(text)
}

/// The last `n` lines of a file the engine does not count from the end: from its whole text,
/// refused when the file is larger than the engine reads at once.
fn tail_of_whole(ws: &Call, path: &str, n: usize) -> Result<String, Box<Said>> {
    let t = text_read(ws, path, &whole())?;
    if t.truncated {
        let err = FkError::new(
            ErrorCode::TooLarge,
            format!(
                "{path} is {} bytes: filekit finds the last lines of files of up to {} bytes",
                t.size,
                filekit_core::limits::MAX_READ_BYTES
            ),
        )
        .with_hint("read its first lines with `head`");
        return Err(Box::new(Said::new(err.full_message(), err)));
    }
    Ok(last_lines(&t.content, n))
}

/// A count the server takes as "given" (JavaScript truthiness: 0 is not), as whole lines.
fn lines_given(n: Option<f64>, name: &str) -> Result<Option<usize>, FkError> {
    match n {
        None => Ok(None),
        Some(v) if v == 0.0 || v.is_nan() => Ok(None),
        Some(v) if v < 0.0 || v.fract() != 0.0 => Err(FkError::invalid(format!(
            "{name} must be a whole number of lines, not {v}"
        ))
        .with_hint(format!(
            "give {name} as a positive integer, or leave it out"
        ))),
        Some(v) => Ok(Some(v as usize)),
    }
}

fn read_text(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let name = ws.tool_name();
    let args: ReadArgs = parse_paths(ws, &name, &READ_SCHEMA, args)?;
    let head = lines_given(args.head, "head")?;
    let tail = lines_given(args.tail, "tail")?;
    if head.is_some() && tail.is_some() {
        return Err(FkError::invalid(
            "Cannot specify both head and tail parameters simultaneously",
        ));
    }
    let opts = match (head, tail) {
        (Some(n), _) => ReadOptions {
            max_lines: Some(n),
            ..whole()
        },
        (_, Some(n)) => ReadOptions {
            start_line: Some(-(n as i64)),
            ..whole()
        },
        _ => whole(),
    };
    let r = read_text_of(ws, &args.path, &opts);
    // The engine counts from the end only in files it reads whole in one go, and refuses a
    // start before the first line: otherwise the last lines are taken from the whole text
    // (a tail longer than the file is all of it).
    let r = match (r, tail) {
        (Err(_), Some(n)) => tail_of_whole(ws, &args.path, n),
        (r, _) => r,
    };
    Ok(match r {
        // The server joins the first N lines with newlines: no newline after the last.
        Ok(text) if head.is_some() => done(text.strip_suffix('\n').unwrap_or(&text).to_string()),
        Ok(text) => done(text),
        Err(said) => (*said).into(),
    })
}

/// The last `n` lines of `text`, each with its line break.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    lines[lines.len().saturating_sub(n)..].concat()
}

const READ_MULTIPLE_DESCRIPTION: &str = "\
Read the contents of multiple files simultaneously. This is more efficient than reading files \
one by one when you need to analyze or compare multiple files. Each file's content is returned \
with its path as a reference. Failed reads for individual files won't stop the entire \
operation. Only works within allowed directories.

Example: {\"paths\": [\"src/lib.rs\", \"Cargo.toml\"]}";

#[derive(Deserialize, JsonSchema)]
struct ReadMultipleArgs {
    /// Array of file paths to read. Each path must be a string pointing to a valid file within
    /// allowed directories.
    #[schemars(length(min = 1))]
    paths: Vec<String>,
}

static READ_MULTIPLE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadMultipleArgs>);

fn read_multiple(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadMultipleArgs =
        parse_paths(ws, "read_multiple_files", &READ_MULTIPLE_SCHEMA, args)?;
    if args.paths.is_empty() {
        return Err(FkError::invalid(
            "read_multiple_files: `paths` is empty: at least one file path must be provided",
        ));
    }
    // Each failure in the engine's words too (the text has the server's), and the code of
    // the first.
    let mut failures: Vec<String> = Vec::new();
    let mut first_code = None;
    let budget = ws.reply_budget();
    let mut parts: Vec<String> = Vec::new();
    let mut read_any = false;
    for (i, p) in args.paths.iter().enumerate() {
        // Past the reply's room, one entry stands for the rest.
        let rest = budget.no_room_for_files(p, args.paths.len() - i - 1);
        let last = rest.is_some();
        let read = match rest {
            Some(err) => Err(Box::new(Said::new(err.full_message(), err))),
            None => windows_path_refused(p)
                .map_err(|err| Box::new(Said::new(err.message.clone(), err)))
                .and_then(|()| read_text_within(ws, p, &whole(), &budget)),
        };
        let (part, failure_bytes) = match read {
            Ok(content) => {
                read_any = true;
                (format!("{p}:\n{content}\n"), 0)
            }
            Err(said) => {
                failures.push(format!("{p}: {}", said.err.full_message()));
                first_code.get_or_insert(said.err.code);
                let part = format!("{p}: Error - {}", said.text);
                let bytes = part.len() as u64;
                (part, bytes)
            }
        };
        // A file's content was charged by its read; its entry and a failure are charged here.
        budget.charge(filekit_core::limits::reply_entry_bytes(p) + failure_bytes);
        parts.push(part);
        if last {
            break;
        }
    }
    // The same text as the server's. A file that could not be read is said in its place and
    // the call succeeds, as the server's does, when any file was read; when none was, nothing
    // was done and the call fails.
    let text = parts.join("\n---\n");
    match first_code {
        Some(code) if !read_any => {
            let err = FkError::new(
                code,
                format!(
                    "none of the {} files could be read: {}",
                    args.paths.len(),
                    failures.join("; ")
                ),
            );
            Ok(Said::new(text, err).into())
        }
        _ => Ok(done(text)),
    }
}

// ---------------------------------------------------------------------------------------------
// read_media_file

const READ_MEDIA_DESCRIPTION: &str = "\
Read a file and return it as a base64-encoded content block with its MIME type. Image and \
audio files are returned as image/audio content; any other file type is returned as an \
embedded resource. Only works within allowed directories. (filekit: an image is also told by \
its content; a file over 2 MiB is refused, not sent.)

Example: {\"path\": \"docs/diagram.png\"}";

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    // The path: absolute, or relative to the first allowed directory.
    path: String,
}

static PATH_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<PathArgs>);

/// The server's MIME types, by extension (lower case); any other file is
/// `application/octet-stream`.
fn media_type(path: &str) -> &'static str {
    let ext = Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        _ => "application/octet-stream",
    }
}

/// A path as a `file://` URL, as Node's `pathToFileURL` writes it: each byte outside the
/// characters a URL path keeps is percent-encoded.
fn file_url(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

fn read_media(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    use base64::Engine as _;
    let args: PathArgs = parse_paths(ws, "read_media_file", &PATH_SCHEMA, args)?;
    let opts = ReadOptions {
        images: true,
        ..whole()
    };
    // An image is told by its content first (a PNG named `photo` is still an image).
    let r = read_file(ws, &args.path, &opts);
    if let Ok(ReadContent::Image(i)) = r.result {
        let item = Block::Image {
            data: i.data.clone(),
            mime_type: i.mime.clone(),
        };
        // The server answers with the image alone: no text beside it.
        let mut reply = media_done(item);
        reply.images.push((i.mime, i.data));
        return Ok(reply);
    }
    let read = ws.resolve(&args.path).and_then(|p| {
        let size = ws.metadata(&p)?.map_or(0, |m| m.len);
        let limit = filekit_core::limits::MAX_READ_BYTES;
        if size > limit {
            return Err(FkError::new(
                ErrorCode::TooLarge,
                format!(
                    "read_media_file: {} is {size} bytes; filekit sends files of up to {limit} \
                     bytes whole",
                    ws.display(&p)
                ),
            )
            .with_hint("read a text file's lines with read_text_file (head, tail)"));
        }
        let file = ws.read(&p)?;
        Ok((p.absolute().to_path_buf(), file.bytes))
    });
    let (abs, bytes) = match read {
        Ok(r) => r,
        Err(err) if err.code == ErrorCode::TooLarge => return Ok(failed(err.full_message(), &err)),
        Err(err) => return Ok(failed(server_words(ws, &err, "open", &args.path), &err)),
    };
    let mime = media_type(&abs.display().to_string()).to_string();
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let reply = if mime.starts_with("image/") {
        let mut reply = media_done(Block::Image {
            data: data.clone(),
            mime_type: mime.clone(),
        });
        reply.images.push((mime, data));
        reply
    } else if mime.starts_with("audio/") {
        let mut reply = media_done(Block::Audio {
            data: data.clone(),
            mime_type: mime.clone(),
        });
        reply.media.push(Media::Audio { mime, data });
        reply
    } else {
        let uri = file_url(&abs);
        let mut reply = media_done(Block::Resource {
            resource: Blob {
                uri: uri.clone(),
                mime_type: mime.clone(),
                blob: data.clone(),
            },
        });
        reply.media.push(Media::Resource { uri, mime, data });
        reply
    };
    Ok(reply)
}

/// read_media_file's reply: the file as one content block, and no text beside it.
fn media_done(item: Block) -> ToolReply {
    ToolReply::typed(
        &Reply {
            content: MediaContent::Blocks(vec![item]),
            failure: None,
        },
        false,
        String::new(),
    )
}

// ---------------------------------------------------------------------------------------------
// write_file

const WRITE_DESCRIPTION: &str = "\
Create a new file or completely overwrite an existing file with new content. Use with caution \
as it will overwrite existing files without warning. Handles text content with proper \
encoding. Only works within allowed directories. (filekit: replaced atomically; undoable.)

Example: {\"path\": \"notes/todo.md\", \"content\": \"# TODO\\n\"}";

#[derive(Deserialize, JsonSchema)]
struct WriteArgs {
    // The file to write: absolute, or relative to the first allowed directory. Its directory
    // must exist (create_directory makes it).
    path: String,
    // The whole new content of the file.
    content: String,
}

static WRITE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<WriteArgs>);

fn write_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: WriteArgs = parse_paths(ws, "write_file", &WRITE_SCHEMA, args)?;
    // Where filekit may not write is said first (a missing `.git/` directory is still
    // `.git/`).
    if let Err(err) = ws.resolve(&args.path).and_then(|p| ws.check_writable(&p)) {
        return Ok(failed(server_words(ws, &err, "open", &args.path), &err));
    }
    let request = EditRequest::one_file(
        args.path.clone(),
        vec![Edit::Create {
            content: args.content,
            overwrite: true,
        }],
        // The server writes into an existing directory only.
        EditOptions::builder().no_create_parents(true).build(),
    );
    let report = ws.apply(request);
    let f = &report.files[0];
    Ok(match shape::first_error(f) {
        Some(err) if err.code == ErrorCode::IsDirectory => failed(
            format!(
                "EISDIR: illegal operation on a directory, open '{}'",
                requested(ws, &args.path)
            ),
            err,
        ),
        Some(err) => failed(server_words(ws, err, "open", &args.path), err),
        None => done(format!("Successfully wrote to {}", args.path)),
    })
}

// ---------------------------------------------------------------------------------------------
// edit_file

const EDIT_DESCRIPTION: &str = "\
Make line-based edits to a text file. Each edit replaces exact line sequences with new \
content. Returns a git-style diff showing the changes made. Only works within allowed \
directories. (filekit: an oldText found more than once is refused with its lines; nothing is \
written unless every edit applies.)

Example: {\"path\": \"src/app.ts\", \"edits\": [{\"oldText\": \"debug: false\", \"newText\": \
\"debug: true\"}], \"dryRun\": true}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EditOperation {
    /// Text to search for - must match exactly
    old_text: String,
    /// Text to replace with
    new_text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EditArgs {
    // The file to edit: absolute, or relative to the first allowed directory.
    path: String,
    // The edits, applied in order.
    edits: Vec<EditOperation>,
    /// Preview changes using git-style diff format
    #[serde(default)]
    #[schemars(extend("default" = false))]
    dry_run: bool,
}

static EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditArgs>);

fn edit_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: EditArgs = parse_paths(ws, "edit_file", &EDIT_SCHEMA, args)?;
    // A file that may not be written (filekit's own data, `.git/`, a read-only session) is
    // refused for that before its edits are matched, as every other editing tool refuses it.
    if !args.dry_run
        && let Err(err) = ws.resolve(&args.path).and_then(|p| ws.check_writable(&p))
    {
        return Ok(failed(server_words(ws, &err, "open", &args.path), &err));
    }
    // One read gives the text and the version it is (any text file the engine edits whole,
    // up to its size bound): the edit is tied to that version, so a file changed since is
    // refused, never overwritten.
    let read = ws.resolve(&args.path).and_then(|p| {
        let shown = ws.display(&p);
        let file = ws.read(&p)?;
        if filekit_core::text::is_binary(&file.bytes) {
            return Err(
                FkError::new(ErrorCode::Binary, format!("{shown} is not a text file"))
                    .with_hint("edit_file edits text files"),
            );
        }
        let hash = filekit_core::hash::content_hash(&file.bytes);
        let doc = filekit_core::text::TextDoc::decode_owned(file.bytes, &shown)?;
        Ok((shown, doc.text, hash))
    });
    let (shown, original, hash) = match read {
        Ok(r) => r,
        Err(err) => return Ok(failed(server_words(ws, &err, "open", &args.path), &err)),
    };
    let crlf = original.contains("\r\n");
    let mut text = original.clone();
    for (k, edit) in args.edits.iter().enumerate() {
        match apply_one(&text, edit, k, crlf) {
            Ok(next) => text = next,
            Err(err) => return Ok(failed(err.full_message(), &err)),
        }
    }
    let lf = |s: &str| s.replace("\r\n", "\n");
    let diff = server_diff(&lf(&original), &lf(&text), &shown);
    let fence = fence_for(&diff);
    let reply = format!("{fence}diff\n{diff}{fence}\n\n");
    if args.dry_run || text == original {
        return Ok(done(reply));
    }
    // One splice of what changed, from the first changed byte to the last, tied to the
    // version read: a file changed since is refused, never overwritten.
    let prefix = common_prefix(&original, &text);
    let suffix = common_suffix(&original[prefix..], &text[prefix..]);
    let splice = Splice::new(
        prefix,
        original.len() - suffix,
        &text[prefix..text.len() - suffix],
    );
    let request = EditRequest::one_file(
        args.path.clone(),
        vec![Edit::Ranges {
            ranges: vec![splice],
            content_hash: hash,
        }],
        EditOptions::default(),
    );
    let report = ws.apply(request);
    let f = &report.files[0];
    Ok(match shape::first_error(f) {
        Some(err) => failed(server_words(ws, err, "open", &args.path), err),
        None => done(reply),
    })
}

/// One edit on `text`: the exact text if it occurs once; refused if it occurs more often;
/// otherwise the lines matched with the patch placer's tolerances (indentation, trailing
/// white space, tabs against spaces), the new lines re-indented as the file's.
fn apply_one(text: &str, edit: &EditOperation, k: usize, crlf: bool) -> Result<String, FkError> {
    let eol = |s: &str| {
        let lf = s.replace("\r\n", "\n");
        if crlf { lf.replace('\n', "\r\n") } else { lf }
    };
    let old = eol(&edit.old_text);
    let new = eol(&edit.new_text);
    // Empty text is found at the start of any text, as the server's `String.replace` finds
    // it: the new text goes before the file's first line (or fills an empty file).
    if old.is_empty() {
        return Ok(format!("{new}{text}"));
    }
    let at: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
    match at.len() {
        1 => {
            let mut out = String::with_capacity(text.len() + new.len());
            out.push_str(&text[..at[0]]);
            out.push_str(&new);
            out.push_str(&text[at[0] + old.len()..]);
            return Ok(out);
        }
        0 => {}
        n => {
            let lines: Vec<String> = at
                .iter()
                .take(10)
                .map(|&i| (text[..i].matches('\n').count() + 1).to_string())
                .collect();
            return Err(FkError::new(
                ErrorCode::Ambiguous,
                format!(
                    "edits[{k}].oldText occurs {n} times in the file (at lines {}{}); edit_file \
                     changes one place at a time",
                    lines.join(", "),
                    if n > lines.len() { ", ..." } else { "" }
                ),
            )
            .with_hint("add surrounding lines to oldText so that it occurs once")
            .with_details(
                json!({"fact": filekit_core::Fact::MatchCount, "count": n, "expected": 1}),
            ));
        }
    }
    let strip = |s: &str| {
        let s = s.strip_suffix('\n').unwrap_or(s);
        s.strip_suffix('\r').unwrap_or(s).to_string()
    };
    let old_lines: Vec<String> = strip(&edit.old_text.replace("\r\n", "\n"))
        .split('\n')
        .map(str::to_string)
        .collect();
    let new_text = edit.new_text.replace("\r\n", "\n");
    let new_lines: Vec<String> = if new_text.is_empty() {
        Vec::new()
    } else {
        strip(&new_text).split('\n').map(str::to_string).collect()
    };
    let hunk = Hunk {
        lines: old_lines
            .into_iter()
            .map(HunkLine::Removed)
            .chain(new_lines.into_iter().map(HunkLine::Added))
            .collect(),
        patch_line: 1,
        ..Hunk::default()
    };
    let placement = filekit_patch::place(text, &[hunk], Format::SearchReplace);
    if let Some(splices) = placement.splices {
        return Ok(splices.apply(text)?);
    }
    let report = &placement.hunks[0];
    if let Some(limit) = report.limit {
        return Err(FkError::too_large(
            limit.kind,
            limit.found,
            limit.max,
            format!(
                "Could not find exact match for edit:\n{}\n(edits[{k}]: {})",
                edit.old_text,
                report
                    .reason
                    .as_deref()
                    .unwrap_or("the placement's work budget was spent")
            ),
        ));
    }
    let mut message = format!("Could not find exact match for edit:\n{}", edit.old_text);
    if !report.candidates.is_empty() {
        let lines: Vec<String> = report.candidates.iter().map(|l| l.to_string()).collect();
        message.push_str(&format!(
            "\n(edits[{k}] matches in {} places, at lines {}, when indentation is ignored: \
             add surrounding lines so that it matches once)",
            lines.len(),
            lines.join(", ")
        ));
    } else if let Some(near) = &report.near_miss {
        message.push_str(&format!(
            "\nThe closest text is at line {} ({:.0}% similar); what differs, from your oldText \
             to the file: {}",
            near.line,
            near.similarity * 100.0,
            near.diff
        ));
    }
    let mut err = FkError::new(ErrorCode::NotFound, message).with_details(json!({
        "fact": filekit_core::Fact::SearchTextNotFound,
        "edit": k,
        "near_miss": report.near_miss,
        "candidates": report.candidates,
    }));
    err.hint = None;
    Err(err)
}

fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) || !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) || !b.is_char_boundary(b.len() - n) {
        n -= 1;
    }
    n
}

/// The server's diff: jsdiff's `createTwoFilesPatch(path, path, old, new, 'original',
/// 'modified')`, which is a unified diff with 4 lines of context under an `Index:` header.
fn server_diff(old: &str, new: &str, path: &str) -> String {
    let (body, _) =
        filekit_core::diff::unified_texts_with_context(old, new, path, path, DIFF_CONTEXT);
    // jsdiff's header: the name, a tab and its label. The name as the engine's headers write
    // it (quoted when it holds a control character, so that it cannot start a line of its
    // own); the label after it, outside any quotes.
    let name = filekit_core::diff::header_name(path);
    let mut out = format!(
        "Index: {name}\n{}\n--- {name}\toriginal\n+++ {name}\tmodified\n",
        "=".repeat(67)
    );
    // The engine's own two header lines give way to jsdiff's.
    out.extend(body.split_inclusive('\n').skip(2));
    out
}

/// Backticks enough to fence `diff`: one more than the longest run in it, at least three.
fn fence_for(diff: &str) -> String {
    let mut n = 3;
    while diff.contains(&"`".repeat(n)) {
        n += 1;
    }
    "`".repeat(n)
}

// ---------------------------------------------------------------------------------------------
// create_directory, move_file

const CREATE_DIRECTORY_DESCRIPTION: &str = "\
Create a new directory or ensure a directory exists. Can create multiple nested directories \
in one operation. If the directory already exists, this operation will succeed silently. \
Perfect for setting up directory structures for projects or ensuring required paths exist. \
Only works within allowed directories.

Example: {\"path\": \"src/components/forms\"}";

fn create_directory(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: PathArgs = parse_paths(ws, "create_directory", &PATH_SCHEMA, args)?;
    let report = fsops::apply(
        ws,
        &FsRequest {
            ops: vec![FileOp::MakeDir {
                path: args.path.clone(),
            }],
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
    );
    Ok(match &report.ops[0].error {
        // The server's path check fails first on a path through a file.
        Some(err) if err.message.ends_with("is not a directory") => failed(
            format!(
                "ENOTDIR: not a directory, realpath '{}'",
                requested(ws, &args.path)
            ),
            err,
        ),
        Some(err) if err.fact() == Some(filekit_core::Fact::AlreadyExists) => failed(
            format!(
                "EEXIST: file already exists, mkdir '{}'",
                requested(ws, &args.path)
            ),
            err,
        ),
        Some(err) => failed(server_words(ws, err, "mkdir", &args.path), err),
        None => done(format!("Successfully created directory {}", args.path)),
    })
}

const MOVE_DESCRIPTION: &str = "\
Move or rename files and directories. Can move files between directories and rename them in \
a single operation. If the destination exists, the operation will fail. Works across \
different directories and can be used for simple renaming within the same directory. Both \
source and destination must be within allowed directories. (filekit: undoable.)

Example: {\"source\": \"src/old_name.ts\", \"destination\": \"src/new_name.ts\"}";

#[derive(Deserialize, JsonSchema)]
struct MoveArgs {
    // What to move: absolute, or relative to the first allowed directory.
    source: String,
    // Where to: a path that does not exist yet, in an existing directory.
    destination: String,
}

static MOVE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<MoveArgs>);

fn move_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: MoveArgs = parse_paths(ws, "move_file", &MOVE_SCHEMA, args)?;
    let report = fsops::apply(
        ws,
        &FsRequest {
            ops: vec![FileOp::Move {
                from: args.source.clone(),
                to: args.destination.clone(),
                overwrite: false,
            }],
            // The server renames into an existing directory only.
            no_create_parents: true,
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
    );
    let r = &report.ops[0];
    Ok(match &r.error {
        // The server refuses any destination that exists, whatever its kind.
        Some(err)
            if matches!(
                err.fact(),
                Some(filekit_core::Fact::AlreadyExists | filekit_core::Fact::CannotReplace)
            ) =>
        {
            failed(
                format!(
                    "Destination already exists: {}",
                    requested(ws, &args.destination)
                ),
                err,
            )
        }
        // A missing source and a missing destination directory both fail the server's one
        // rename.
        Some(err) if err.code == ErrorCode::NotFound => failed(
            format!(
                "ENOENT: no such file or directory, rename '{}' -> '{}'",
                requested(ws, &args.source),
                requested(ws, &args.destination)
            ),
            err,
        ),
        // The path the engine refused is the one its message starts with.
        Some(err) if err.message.starts_with(&args.destination) => {
            failed(server_words(ws, err, "rename", &args.destination), err)
        }
        Some(err) => failed(server_words(ws, err, "rename", &args.source), err),
        None => done(format!(
            "Successfully moved {} to {}",
            args.source, args.destination
        )),
    })
}

// ---------------------------------------------------------------------------------------------
// list_directory, list_directory_with_sizes, directory_tree, search_files

const LIST_DESCRIPTION: &str = "\
Get a detailed listing of all files and directories in a specified path. Results clearly \
distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is \
essential for understanding directory structure and finding specific files within a \
directory. Only works within allowed directories. (filekit: sorted by name.)

Example: {\"path\": \"src\"}";

/// Every entry below `path` to `depth` levels (hidden and git-ignored ones too: the server
/// shows everything), leaving out what `ignore` matches; or the reply of the failure.
fn entries(ws: &Call, path: &str, depth: usize, ignore: Vec<String>) -> Result<Listing, Box<Said>> {
    let opts = ListOptions {
        path: Some(path.to_string()),
        depth,
        filter: None,
        ignore,
        walk: WalkFilter {
            hidden: true,
            ignored: true,
        },
        limit: Some(MAX_ENTRIES),
    };
    list(ws, &opts).map_err(|err| {
        let text = if err.message.ends_with("is a file, not a directory") {
            format!(
                "ENOTDIR: not a directory, scandir '{}'",
                requested(ws, path)
            )
        } else {
            server_words(ws, &err, "scandir", path)
        };
        Box::new(Said::new(text, err))
    })
}

/// `excludePatterns` as the listing's ignore globs, matched as the server's minimatch matches
/// them: against each entry's path relative to the listed directory only (anchored, so that
/// `*.ts` leaves out the directory's own `.ts` files, not those below it), each pattern in
/// the forms `forms` gives. A pattern that is empty or absolute matches no relative path, and
/// is dropped.
fn anchored(patterns: &[String], forms: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    patterns
        .iter()
        .filter(|p| !p.is_empty() && !p.starts_with('/'))
        .flat_map(|p| forms(p))
        .map(|g| format!("/{g}"))
        .collect()
}

/// What a listing left out, said after it (the server has no bound).
fn cut_note(listing: &Listing) -> String {
    if listing.truncated {
        let bound = match &listing.reply_limit {
            Some(l) => format!("one reply carries at most {} bytes of entries", l.max),
            None => format!("filekit lists at most {MAX_ENTRIES}"),
        };
        format!(
            "\n({} more entries not shown: {bound}; list a subdirectory to see them)",
            listing.omitted()
        )
    } else {
        String::new()
    }
}

fn is_dir(kind: EntryKind) -> bool {
    kind == EntryKind::Dir
}

fn list_directory(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: PathArgs = parse_paths(ws, "list_directory", &PATH_SCHEMA, args)?;
    let listing = match entries(ws, &args.path, 1, Vec::new()) {
        Ok(l) => l,
        Err(said) => return Ok((*said).into()),
    };
    let lines: Vec<String> = listing
        .entries
        .iter()
        .map(|e| {
            let tag = if is_dir(e.kind) { "[DIR]" } else { "[FILE]" };
            format!("{tag} {}", e.name)
        })
        .collect();
    Ok(done(lines.join("\n") + &cut_note(&listing)))
}

const LIST_SIZES_DESCRIPTION: &str = "\
Get a detailed listing of all files and directories in a specified path, including sizes. \
Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. \
This tool is useful for understanding directory structure and finding specific files within \
a directory. Only works within allowed directories.

Example: {\"path\": \"assets\", \"sortBy\": \"size\"}";

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum SortBy {
    Name,
    Size,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ListSizesArgs {
    // The directory: absolute, or relative to the first allowed directory.
    path: String,
    /// Sort entries by name or size
    #[schemars(extend("default" = "name"))]
    sort_by: Option<SortBy>,
}

static LIST_SIZES_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ListSizesArgs>);

/// The server's `formatSize`: bytes under 1 KiB as they are, else two decimals of the largest
/// unit (of 1024) that fits.
fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    if bytes == 0 {
        return "0 B".to_string();
    }
    let i = ((bytes as f64).ln() / 1024f64.ln()).floor() as usize;
    if i == 0 {
        return format!("{bytes} B");
    }
    let unit = i.min(UNITS.len() - 1);
    format!(
        "{:.2} {}",
        bytes as f64 / 1024f64.powi(unit as i32),
        UNITS[unit]
    )
}

fn list_with_sizes(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ListSizesArgs =
        parse_paths(ws, "list_directory_with_sizes", &LIST_SIZES_SCHEMA, args)?;
    let listing = match entries(ws, &args.path, 1, Vec::new()) {
        Ok(l) => l,
        Err(said) => return Ok((*said).into()),
    };
    let mut sorted: Vec<_> = listing.entries.iter().collect();
    if args.sort_by == Some(SortBy::Size) {
        // Largest first; a stable sort keeps names in order among equal sizes.
        sorted.sort_by_key(|e| std::cmp::Reverse(e.size));
    } else {
        // Close to JavaScript's localeCompare for names: case folded first.
        sorted.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then_with(|| b.name.cmp(&a.name))
        });
    }
    let mut lines: Vec<String> = sorted
        .iter()
        .map(|e| {
            let dir = is_dir(e.kind);
            format!(
                "{} {:<30} {}",
                if dir { "[DIR]" } else { "[FILE]" },
                e.name,
                if dir {
                    String::new()
                } else {
                    format!("{:>10}", format_size(e.size))
                }
            )
        })
        .collect();
    let files = listing.entries.iter().filter(|e| !is_dir(e.kind)).count();
    let dirs = listing.entries.len() - files;
    let total: u64 = listing
        .entries
        .iter()
        .filter(|e| !is_dir(e.kind))
        .map(|e| e.size)
        .sum();
    lines.push(String::new());
    lines.push(format!("Total: {files} files, {dirs} directories"));
    lines.push(format!("Combined size: {}", format_size(total)));
    Ok(done(lines.join("\n") + &cut_note(&listing)))
}

const TREE_DESCRIPTION: &str = "\
Get a recursive tree view of files and directories as a JSON structure. Each entry includes \
'name', 'type' (file/directory), and 'children' for directories. Files have no children \
array, while directories always have a children array (which may be empty). The output is \
formatted with 2-space indentation for readability. Only works within allowed directories. \
(`excludePatterns`: globs relative to `path`; a name without `*` matches at any depth.)

Example: {\"path\": \".\", \"excludePatterns\": [\"node_modules\", \"*.log\"]}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TreeArgs {
    // The directory: absolute, or relative to the first allowed directory.
    path: String,
    // Globs of paths relative to `path` to leave out (`node_modules`, `**/*.log`).
    #[serde(default)]
    #[schemars(extend("default" = []))]
    exclude_patterns: Vec<String>,
}

static TREE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<TreeArgs>);

fn directory_tree(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: TreeArgs = parse_paths(ws, "directory_tree", &TREE_SCHEMA, args)?;
    let excluded = anchored(&args.exclude_patterns, |p| {
        // The server's directory_tree: a pattern with a `*` is matched as it is; a name or
        // path without one anywhere, and everything under it.
        if p.contains('*') {
            vec![p.to_string()]
        } else {
            vec![p.to_string(), format!("**/{p}"), format!("**/{p}/**")]
        }
    });
    let listing = match entries(ws, &args.path, MAX_DEPTH, excluded) {
        Ok(l) => l,
        Err(said) => return Ok((*said).into()),
    };
    // Entries come in path order, each directory's children right after it: a stack of the
    // directories open on the way down builds the nesting.
    let mut stack: Vec<(String, Vec<Value>)> = vec![(String::new(), Vec::new())];
    for e in &listing.entries {
        let parent = e.name.rsplit_once('/').map_or("", |(p, _)| p);
        while stack.len() > 1 && stack.last().is_some_and(|(p, _)| p != parent) {
            close(&mut stack);
        }
        let name = e.name.rsplit('/').next().unwrap_or(&e.name);
        if is_dir(e.kind) {
            stack.push((e.name.clone(), Vec::new()));
        } else if let Some((_, children)) = stack.last_mut() {
            children.push(json!({"name": name, "type": "file"}));
        }
    }
    while stack.len() > 1 {
        close(&mut stack);
    }
    let tree = Value::Array(stack.pop().map(|(_, c)| c).unwrap_or_default());
    let text = serde_json::to_string_pretty(&tree).unwrap_or_default();
    Ok(done(text + &cut_note(&listing)))
}

/// Ends the innermost open directory of [`directory_tree`]'s stack: it becomes an entry of
/// its parent.
fn close(stack: &mut Vec<(String, Vec<Value>)>) {
    if let Some((path, children)) = stack.pop() {
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        if let Some((_, parent)) = stack.last_mut() {
            parent.push(json!({"name": name, "type": "directory", "children": children}));
        }
    }
}

const SEARCH_DESCRIPTION: &str = "\
Recursively search for files and directories matching a pattern. The patterns should be \
glob-style patterns that match paths relative to the working directory. Use pattern like \
'*.ext' to match files in current directory, and '**/*.ext' to match files in all \
subdirectories. Returns full paths to all matching items. Great for finding files when you \
don't know their exact location. Only searches within allowed directories. (Patterns match \
paths relative to `path`; what `excludePatterns` match is left out with all under it.)

Example: {\"path\": \".\", \"pattern\": \"**/*.test.ts\", \"excludePatterns\": [\"node_modules\"]}";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SearchArgs {
    // The directory to search: absolute, or relative to the first allowed directory.
    path: String,
    // A glob matched against each path relative to `path` (`*.md`, `**/*.rs`).
    pattern: String,
    // Globs of paths relative to `path` to leave out, with everything under them.
    #[serde(default)]
    #[schemars(extend("default" = []))]
    exclude_patterns: Vec<String>,
}

static SEARCH_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<SearchArgs>);

fn search_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: SearchArgs = parse_paths(ws, "search_files", &SEARCH_SCHEMA, args)?;
    let matcher = filekit_core::search::path_glob("pattern", &args.pattern)?;
    // The server's search_files matches each exclude pattern as it is.
    let excluded = anchored(&args.exclude_patterns, |p| vec![p.to_string()]);
    let listing = match entries(ws, &args.path, MAX_DEPTH, excluded) {
        Ok(l) => l,
        Err(said) => return Ok((*said).into()),
    };
    let base = Path::new(&listing.path);
    let found: Vec<String> = listing
        .entries
        .iter()
        .filter(|e| matcher.is_match(&e.name))
        .map(|e| base.join(&e.name).display().to_string())
        .collect();
    let text = if found.is_empty() {
        "No matches found".to_string()
    } else {
        found.join("\n")
    };
    Ok(done(text + &cut_note(&listing)))
}

// ---------------------------------------------------------------------------------------------
// get_file_info, list_allowed_directories

const INFO_DESCRIPTION: &str = "\
Retrieve detailed metadata about a file or directory. Returns comprehensive information \
including size, creation time, last modified time, permissions, and type. This tool is \
perfect for understanding file characteristics without reading the actual content. Only works \
within allowed directories. (Times are given in UTC.)

Example: {\"path\": \"package.json\"}";

/// A time as JavaScript's `Date.prototype.toString` writes it, in UTC:
/// `Fri Nov 27 2026 07:23:38 GMT+0000 (Coordinated Universal Time)`.
fn js_date(t: SystemTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    };
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {day:02} {year} {:02}:{:02}:{:02} GMT+0000 (Coordinated Universal Time)",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn get_file_info(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: PathArgs = parse_paths(ws, "get_file_info", &PATH_SCHEMA, args)?;
    let meta = ws.resolve(&args.path).and_then(|p| match ws.metadata(&p)? {
        Some(m) => Ok(m),
        None => Err(ws.missing(&p)),
    });
    let m = match meta {
        Ok(m) => m,
        Err(err) => return Ok(failed(server_words(ws, &err, "stat", &args.path), &err)),
    };
    let text = [
        format!("size: {}", m.len),
        format!("created: {}", js_date(m.created.unwrap_or(UNIX_EPOCH))),
        format!("modified: {}", js_date(m.modified)),
        format!("accessed: {}", js_date(m.accessed.unwrap_or(m.modified))),
        format!("isDirectory: {}", m.is_dir),
        format!("isFile: {}", m.is_file),
        format!("permissions: {:03o}", m.mode & 0o777),
    ]
    .join("\n");
    Ok(done(text))
}

const ALLOWED_DESCRIPTION: &str = "\
Returns the list of directories that this server is allowed to access. Subdirectories within \
these allowed directories are also accessible. Use this to understand which directories and \
their nested paths are available before trying to access files.

Example: {}";

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

// Written out: the schema of a struct without fields has no `properties`, and the argument
// check refuses unknown keys of the properties a schema names.
static NO_ARGS_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| json!({"type": "object", "properties": {}, "additionalProperties": false}));

fn list_allowed(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let _: NoArgs = parse("list_allowed_directories", &NO_ARGS_SCHEMA, args)?;
    let dirs: Vec<String> = ws.roots().iter().map(|r| r.display().to_string()).collect();
    Ok(done(format!("Allowed directories:\n{}", dirs.join("\n"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_formatted_as_the_server_does() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1024), "1.00 KB");
        assert_eq!(format_size(1536), "1.50 KB");
        assert_eq!(format_size(5 * 1024 * 1024), "5.00 MB");
    }

    #[test]
    fn dates_are_written_as_javascript_writes_them_in_utc() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_795_764_218);
        assert_eq!(
            js_date(t),
            "Fri Nov 27 2026 07:23:38 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(
            js_date(UNIX_EPOCH),
            "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)"
        );
    }

    #[test]
    fn the_last_lines_keep_their_breaks() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(last_lines("a\nb\nc", 2), "b\nc");
        assert_eq!(last_lines("a\n", 5), "a\n");
        assert_eq!(last_lines("", 3), "");
    }

    #[test]
    fn a_fence_is_longer_than_any_run_of_backticks_in_the_diff() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ``` b"), "````");
    }
}
