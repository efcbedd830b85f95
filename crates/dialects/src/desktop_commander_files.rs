//! Desktop Commander's file tools in the `desktop-commander` table: `read_file`,
//! `read_multiple_files`, `write_file`, `create_directory`, `list_directory`, `move_file` and
//! `get_file_info`, with its argument names and the texts it answers (read from
//! wonderwhy-er/DesktopCommanderMCP 0.2.46: `src/handlers/filesystem-handlers.ts`,
//! `src/tools/filesystem.ts`, `src/utils/files/text.ts`; tests/mcp/test_desktop_commander_peer.py
//! compares the replies with the real package's).
//!
//! Reads go through the engine's read, writes through the one pipeline, the directory and the
//! move through the engine's file operations: every path is the workspace's, every change is
//! in the history. Out of scope, refused with a reason: reading URLs (`isUrl`), spreadsheet
//! sheets and ranges, PDF and DOCX conversion; Desktop Commander's process and terminal tools
//! are not served at all (its search sessions are in `desktop_commander_search`). Unlike
//! Desktop Commander, which reads and writes UTF-8 (a Latin-1 file's accents become U+FFFD for
//! good), each file is read and edited in its own encoding; an `encoding` argument, which
//! Desktop Commander takes and ignores, is taken when it names UTF-8 ([`drop_ignored`]).

use crate::Call;
use crate::args::{parse, schema_for};
use crate::desktop_commander::Origin;
use crate::reply::{self, CamelFailure};
use crate::shape;
use crate::{ReplySchema, ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest};
use filekit_core::fsops::{self, FileOp, FsRequest};
use filekit_core::read::{ReadContent, ReadOptions, TextRead, read_file};
use filekit_core::search::WalkFilter;
use filekit_core::search::list::{EntryKind, ListOptions, list};
use filekit_core::splices::Splice;
use filekit_core::{ErrorCode, FkError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::LazyLock;
use std::time::SystemTime;

pub(crate) fn tools() -> Vec<ToolSpec> {
    let spec = |name,
                description,
                schema: &'static LazyLock<Value>,
                read_only,
                destructive,
                run,
                reply| {
        ToolSpec {
            name,
            dialect: "desktop-commander",
            description,
            input_schema: schema,
            read_only,
            destructive,
            idempotent: read_only,
            run,
            reject,
            guide: "",
            reply: ReplySchema::Typed(reply),
        }
    };
    vec![
        spec(
            "read_file",
            READ_FILE_DESCRIPTION,
            &READ_FILE_SCHEMA,
            true,
            false,
            read_file_tool,
            reply::schema_failing::<ReadReply, CamelFailure>,
        ),
        spec(
            "read_multiple_files",
            READ_MULTIPLE_DESCRIPTION,
            &READ_MULTIPLE_SCHEMA,
            true,
            false,
            read_multiple_files,
            reply::schema_failing::<ReadMultipleReply, CamelFailure>,
        ),
        spec(
            "write_file",
            WRITE_FILE_DESCRIPTION,
            &WRITE_FILE_SCHEMA,
            false,
            true,
            write_file,
            reply::schema_failing::<WriteReply, CamelFailure>,
        ),
        spec(
            "create_directory",
            CREATE_DIRECTORY_DESCRIPTION,
            &PATH_SCHEMA,
            false,
            false,
            create_directory,
            reply::schema_failing::<CreateDirectoryReply, CamelFailure>,
        ),
        spec(
            "list_directory",
            LIST_DIRECTORY_DESCRIPTION,
            &LIST_DIRECTORY_SCHEMA,
            true,
            false,
            list_directory,
            reply::schema_failing::<ListReply, CamelFailure>,
        ),
        spec(
            "move_file",
            MOVE_FILE_DESCRIPTION,
            &MOVE_FILE_SCHEMA,
            false,
            true,
            move_file,
            reply::schema_failing::<MoveReply, CamelFailure>,
        ),
        spec(
            "get_file_info",
            GET_FILE_INFO_DESCRIPTION,
            &PATH_SCHEMA,
            true,
            false,
            get_file_info,
            reply::schema_failing::<FileInfoReply, CamelFailure>,
        ),
    ]
}

fn reject(err: &FkError) -> Value {
    reply::to_value(&CamelFailure::of(err))
}

/// A failure as Desktop Commander answers one (its `createErrorResponse`: "Error: " and the
/// message); filekit's message carries its hint.
fn failed(err: &FkError) -> ToolReply {
    ToolReply::typed(
        &CamelFailure::of(err),
        true,
        format!("Error: {}", err.full_message()),
    )
}

/// What read_file answers for one path; read_multiple_files lists one per file.
#[derive(Serialize, JsonSchema)]
struct ReadReply {
    success: bool,
    /// The path read, as the workspace shows it.
    path: String,
    #[serde(flatten)]
    read: ReadKind,
}

/// What was read: its kind and that kind's fields.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ReadKind {
    /// A directory: its listing, as list_directory gives it.
    Directory { content: String },
    /// Text: the lines asked for.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The lines read, without the status line.
        content: String,
        /// The offset asked for (negative: from the end).
        offset: i64,
        lines_read: usize,
        /// The file's number of lines, when it was read whole.
        #[serde(skip_serializing_if = "Option::is_none")]
        total_lines: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        content_hash: Option<String>,
    },
    /// An image, sent as an image.
    #[serde(rename_all = "camelCase")]
    Image {
        mime_type: String,
        size: u64,
        content_hash: String,
    },
    /// A binary file: what it is.
    #[serde(rename_all = "camelCase")]
    Binary {
        description: String,
        size: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        content_hash: Option<String>,
    },
}

impl ReadReply {
    fn of(path: String, read: ReadKind) -> ReadReply {
        ReadReply {
            success: true,
            path,
            read,
        }
    }
}

/// What read_multiple_files answers.
#[derive(Serialize, JsonSchema)]
struct ReadMultipleReply {
    /// True when every file was read.
    success: bool,
    /// One entry per path, in the order given.
    files: Vec<FileRead>,
    /// How many files could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    failed: Option<usize>,
}

/// One file of read_multiple_files: read, or why not.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum FileRead {
    Read(ReadReply),
    Failed {
        path: String,
        #[serde(flatten)]
        failure: CamelFailure,
    },
}

/// What write_file answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WriteReply {
    success: bool,
    path: String,
    mode: WriteMode,
    /// The lines of `content`, as Desktop Commander counts them.
    lines: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_hash: Option<String>,
}

/// What create_directory answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CreateDirectoryReply {
    success: bool,
    path: String,
    /// The directories made, parents first (none when it was there already).
    created_dirs: Vec<String>,
}

/// What list_directory answers.
#[derive(Serialize, JsonSchema)]
struct ListReply {
    success: bool,
    path: String,
    /// The lines of the listing: "[DIR] name", "[FILE] name", warnings.
    entries: Vec<String>,
}

/// What move_file answers.
#[derive(Serialize, JsonSchema)]
struct MoveReply {
    success: bool,
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    destination: Option<String>,
    /// True when a file was replaced at the destination (undo brings it back).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    overwrote: bool,
}

/// What get_file_info answers: the path, and the fields its text lists, in its order.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileInfoReply {
    success: bool,
    path: String,
    #[serde(flatten)]
    info: FileInfo,
}

/// What get_file_info calls a file (a directory is `text` to it).
#[derive(Serialize, JsonSchema, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum FileType {
    Text,
    Binary,
    Image,
}

/// A file's metadata, as Desktop Commander's get_file_info lists it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileInfo {
    size: u64,
    /// ISO times with milliseconds (JavaScript's `Date.toJSON`).
    created: String,
    modified: String,
    accessed: String,
    is_directory: bool,
    is_file: bool,
    /// Three octal digits.
    permissions: String,
    file_type: FileType,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_count: Option<usize>,
    /// The last line's number, from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    last_line: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    append_position: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_image: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_binary: Option<bool>,
}

/// The lines a read returns when none are asked for (Desktop Commander's `fileReadLineLimit`
/// default).
const READ_LINE_LIMIT: i64 = 1000;

/// Past this many lines a write answers with Desktop Commander's performance tip (its
/// `fileWriteLineLimit` default).
const WRITE_LINE_LIMIT: usize = 50;

/// The entries shown of a directory below the listed one (its `MAX_NESTED_ITEMS`).
const MAX_NESTED_ITEMS: usize = 100;

/// The entries a listing keeps at most, so that a huge tree stays a bounded reply.
const MAX_LISTED: usize = 100_000;

/// The extensions Desktop Commander writes through its converters (DOCX from markdown,
/// spreadsheets from JSON, PDF): filekit has none, and text written under such a name would
/// not be what the agent meant.
const CONVERTED: &[&str] = &["docx", "xlsx", "xls", "xlsm", "pdf"];

// ---------------------------------------------------------------------------------------------
// read_file

const READ_FILE_DESCRIPTION: &str = "\
Read a file of the workspace: text as lines, images as images. `offset` is the first line \
(0-based, default 0); a negative offset reads the last -offset lines (tail; `length` is then \
ignored). `length` is how many lines at most (default 1000). The text starts with a status \
line such as \"[Reading 10 lines from start (total: 250 lines, 240 remaining)]\"; lines come \
without their line endings. A directory answers with its listing. Binary files are described, \
not shown. Not supported (refused, saying so): `isUrl` (filekit reads no URLs), `sheet` and \
`range` (spreadsheets), PDF and DOCX conversion. `options` and `origin` are accepted and not \
used; any other argument is refused (Desktop Commander drops unknown ones silently).

Example: {\"path\": \"src/main.rs\", \"offset\": 100, \"length\": 50}";

#[derive(Deserialize, JsonSchema)]
struct ReadFileArgs {
    /// The file to read.
    path: String,
    /// Desktop Commander reads a URL when true; filekit reads no URLs, so true is refused.
    #[serde(rename = "isUrl")]
    #[schemars(extend("default" = false))]
    is_url: Option<bool>,
    /// First line to read, 0-based; negative: read the last -offset lines.
    #[schemars(extend("default" = 0))]
    #[serde(default, deserialize_with = "whole_number")]
    offset: Option<i64>,
    /// How many lines to read at most (ignored with a negative offset).
    #[schemars(extend("default" = 1000))]
    #[serde(default, deserialize_with = "whole_number")]
    length: Option<i64>,
    /// A spreadsheet's sheet (name or 0-based index). Spreadsheets are not supported: refused
    /// unless empty.
    sheet: Option<String>,
    /// A spreadsheet's cell range ("A1:D100"). Refused unless empty.
    range: Option<String>,
    /// Options of Desktop Commander's format handlers. Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    options: Option<serde_json::Map<String, Value>>,
    /// Who made the call: `llm` or `ui`. Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    origin: Option<Origin>,
}

/// A count of lines as Desktop Commander takes it, any JSON number (`z.number()`): one with no
/// fraction (`1.0`, which some clients send for 1) is that whole number; a fraction is
/// refused, since no line starts there.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(i) = n.as_i64() {
        return Ok(Some(i));
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
        _ => Err(serde::de::Error::custom(format!(
            "{n} is not a whole number of lines"
        ))),
    }
}

static READ_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadFileArgs>);

/// What one read gives: text (the status line and the lines), an image, or a description of
/// a binary file, which Desktop Commander answers with as text too.
enum Read {
    Text {
        text: String,
        value: ReadReply,
    },
    Image {
        mime: String,
        data: String,
        value: ReadReply,
    },
}

fn read_file_tool(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadFileArgs = parse("read_file", &READ_FILE_SCHEMA, args)?;
    if args.is_url == Some(true) {
        return Err(FkError::invalid(format!(
            "read_file: isUrl is not supported: filekit has no network access, by design (it \
             reads and writes the files of its workspace only), so it does not fetch {}",
            args.path
        ))
        .with_hint(
            "fetch the URL with a web or fetch tool of your client, or save the page into the \
             workspace and read that file",
        ));
    }
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.is_empty());
    if given(&args.sheet) || given(&args.range) {
        return Err(FkError::invalid(format!(
            "read_file: sheet and range (spreadsheets) are not supported for {}: filekit reads \
             text files and images",
            args.path
        ))
        .with_hint("leave sheet and range out to read the file as text"));
    }
    let offset = args.offset.unwrap_or(0);
    let length = args.length.unwrap_or(READ_LINE_LIMIT);
    Ok(match read_one(ws, &args.path, offset, length) {
        Ok(Read::Text { text, value }) => ToolReply::typed(&value, false, text),
        Ok(Read::Image { mime, data, value }) => {
            let mut reply = ToolReply::typed(
                &value,
                false,
                format!("Image file: {} ({mime})\n", args.path),
            );
            reply.images.push((mime, data));
            reply
        }
        Err(err) => failed(&err),
    })
}

/// Reads `path` as Desktop Commander's `readFileFromDisk` does: a directory answers with its
/// listing, an image as an image, a binary file with a description, text with a status line
/// and the lines asked for.
fn read_one(ws: &Call, path: &str, offset: i64, length: i64) -> Result<Read, FkError> {
    let p = ws.resolve(path)?;
    let meta = ws.metadata(&p)?.ok_or_else(|| ws.missing(&p))?;
    if meta.is_dir {
        let listing = listing(ws, path, 2)?;
        let text = format!(
            "This is a directory, not a file. Use the list_directory tool instead of read_file \
             for directories.\n\n{listing}"
        );
        let value = ReadReply::of(ws.display(&p), ReadKind::Directory { content: listing });
        return Ok(Read::Text { text, value });
    }
    // A file over the engine's bound (or more than a read returns) is streamed: only the
    // lines asked for are read, and its total is not known (Desktop Commander's status line
    // then has no total either).
    let opts = if meta.len > ws.max_file_size().min(filekit_core::limits::MAX_READ_BYTES) {
        ReadOptions {
            start_line: Some(if offset < 0 { offset } else { offset + 1 }),
            end_line: (offset >= 0).then(|| offset.saturating_add(length.max(1))),
            images: true,
            ..ReadOptions::default()
        }
    } else {
        ReadOptions {
            images: true,
            ..ReadOptions::default()
        }
    };
    let r = read_file(ws, path, &opts);
    let shown = r.resolved_path.clone().unwrap_or_else(|| path.to_string());
    match r.result {
        Ok(ReadContent::Text(t)) => Ok(text_read(&shown, &t, &opts, offset, length)),
        // A streamed file read past its end has nothing to show.
        Err(e) if opts.start_line.is_some() && e.code == ErrorCode::InvalidArgument => {
            Ok(Read::Text {
                text: status(0, offset, None),
                value: ReadReply::of(
                    shown,
                    ReadKind::Text {
                        content: String::new(),
                        offset,
                        lines_read: 0,
                        total_lines: None,
                        content_hash: None,
                    },
                ),
            })
        }
        // The engine does not count a large file's lines from its end without reading all of
        // it: said in read_file's terms.
        Err(e) => Err(e),
        Ok(ReadContent::Image(i)) => {
            let value = ReadReply::of(
                shown,
                ReadKind::Image {
                    mime_type: i.mime.clone(),
                    size: i.size,
                    content_hash: i.content_hash,
                },
            );
            Ok(Read::Image {
                mime: i.mime,
                data: i.data,
                value,
            })
        }
        Ok(ReadContent::Binary(b)) => {
            let name = std::path::Path::new(&shown)
                .file_name()
                .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
            // Desktop Commander's three paragraphs, the middle one ours: it points to its
            // process tools, which filekit does not serve.
            let text = format!(
                "Cannot read binary file as text: {name}\n\n{}.\n\nThe read_file tool only \
                 handles text files and images.",
                b.description
            );
            let value = ReadReply::of(
                shown,
                ReadKind::Binary {
                    description: b.description,
                    size: b.size,
                    content_hash: b.content_hash,
                },
            );
            Ok(Read::Text { text, value })
        }
    }
}

/// The lines of `text` as Node's `readline` yields them: without their line endings, no
/// empty line after a final newline. (A lone `\r`, which readline also takes for a line
/// ending, stays in its line, as every other filekit tool counts lines.)
fn lines_of(text: &str) -> Vec<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

fn text_read(shown: &str, t: &TextRead, opts: &ReadOptions, offset: i64, length: i64) -> Read {
    let lines = lines_of(&t.content);
    let streamed = opts.start_line.is_some();
    let picked: &[&str] = if streamed {
        // The engine read the lines asked for (at least one: it has no empty range).
        let take = if offset < 0 {
            lines.len()
        } else {
            usize::try_from(length.max(0)).unwrap_or(usize::MAX)
        };
        &lines[..take.min(lines.len())]
    } else if offset < 0 {
        let n = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
        &lines[lines.len().saturating_sub(n)..]
    } else {
        let from = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(lines.len());
        let take = usize::try_from(length.max(0)).unwrap_or(usize::MAX);
        &lines[from..from.saturating_add(take).min(lines.len())]
    };
    let total = t.total_lines;
    let content = picked.join("\n");
    let text = format!("{}{content}", status(picked.len(), offset, total));
    let value = ReadReply::of(
        shown.to_string(),
        ReadKind::Text {
            content,
            offset,
            lines_read: picked.len(),
            total_lines: total,
            content_hash: t.content_hash.clone(),
        },
    );
    Read::Text { text, value }
}

/// Desktop Commander's status line and the blank line after it (its
/// `generateEnhancedStatusMessage`).
fn status(read: usize, offset: i64, total: Option<usize>) -> String {
    let line = match (offset < 0, total) {
        (true, Some(t)) => format!("[Reading last {read} lines (total: {t} lines)]"),
        (true, None) => format!("[Reading last {read} lines]"),
        (false, total) => {
            let from = if offset == 0 {
                "from start".to_string()
            } else {
                format!("from line {offset}")
            };
            match total {
                Some(t) => {
                    let end = usize::try_from(offset)
                        .unwrap_or(usize::MAX)
                        .saturating_add(read);
                    format!(
                        "[Reading {read} lines {from} (total: {t} lines, {} remaining)]",
                        t.saturating_sub(end)
                    )
                }
                None => format!("[Reading {read} lines {from}]"),
            }
        }
    };
    format!("{line}\n\n")
}

// ---------------------------------------------------------------------------------------------
// read_multiple_files

const READ_MULTIPLE_DESCRIPTION: &str = "\
Read several files in one call. The reply starts with one line per file (\"path: text/plain \
(text)\", \"path: image/png (image)\" or \"path: Error - why\"), then each file's content \
under \"--- path contents: ---\", read as read_file reads it with no offset (the first 1000 \
lines, under its status line); images come as images. One file's failure does not stop the \
others.

Example: {\"paths\": [\"src/lib.rs\", \"Cargo.toml\"]}";

#[derive(Deserialize, JsonSchema)]
struct ReadMultipleArgs {
    /// The files to read.
    paths: Vec<String>,
}

static READ_MULTIPLE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadMultipleArgs>);

fn read_multiple_files(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ReadMultipleArgs = parse("read_multiple_files", &READ_MULTIPLE_SCHEMA, args)?;
    let mut summary: Vec<String> = Vec::new();
    let mut contents = String::new();
    let mut images = Vec::new();
    let mut files = Vec::new();
    let budget = ws.reply_budget();
    for (i, path) in args.paths.iter().enumerate() {
        // Past the reply's room, one entry stands for the rest.
        if let Some(rest) = budget.no_room_for_files(path, args.paths.len() - i - 1) {
            summary.push(format!("{path}: Error - {}", rest.full_message()));
            files.push(FileRead::Failed {
                path: path.clone(),
                failure: CamelFailure::of(&rest),
            });
            break;
        }
        let entry = filekit_core::limits::reply_entry_bytes(path);
        match read_one(ws, path, 0, READ_LINE_LIMIT) {
            Ok(Read::Text { text, value }) => {
                budget.charge(entry + text.len() as u64);
                summary.push(format!("{path}: text/plain (text)"));
                contents.push_str(&format!("\n--- {path} contents: ---\n{text}"));
                files.push(FileRead::Read(value));
            }
            Ok(Read::Image { mime, data, value }) => {
                budget.charge(entry + data.len() as u64);
                summary.push(format!("{path}: {mime} (image)"));
                images.push((mime, data));
                files.push(FileRead::Read(value));
            }
            Err(err) => {
                let said = format!("{path}: Error - {}", err.full_message());
                budget.charge(entry + said.len() as u64);
                summary.push(said);
                files.push(FileRead::Failed {
                    path: path.clone(),
                    failure: CamelFailure::of(&err),
                });
            }
        }
    }
    let failed = files
        .iter()
        .filter(|f| matches!(f, FileRead::Failed { .. }))
        .count();
    // A file that could not be read is said in its place, and the call succeeds when any file
    // was read, as Desktop Commander's does (an agent told the call failed would read again
    // the files it has); when none was, nothing was done and the call fails.
    let read_none = failed == files.len();
    let value = ReadMultipleReply {
        success: failed == 0,
        files,
        failed: (failed > 0).then_some(failed),
    };
    let mut reply = ToolReply::typed(&value, read_none, summary.join("\n") + &contents);
    reply.images = images;
    Ok(reply)
}

// ---------------------------------------------------------------------------------------------
// write_file

const WRITE_FILE_DESCRIPTION: &str = "\
Write a text file: `mode` \"rewrite\" (the default) replaces its whole content, \"append\" \
adds `content` at its end as it is (no newline is added). A file that exists with content is \
not replaced unless `mode` is given (Desktop Commander's guard against a forgotten \
\"append\"). Missing parent directories are made. Content over 50 lines is written too, with \
a tip to write in chunks of about 30 lines. Every write is atomic and kept in filekit's \
history (undo). Text files only: a binary file is not written over, and names ending .docx, \
.xlsx, .xls, .xlsm or .pdf are refused (Desktop Commander converts content into those formats; \
filekit does not).

Example: {\"path\": \"notes/todo.md\", \"content\": \"- read the logs\\n\", \"mode\": \"append\"}";

#[derive(Deserialize, JsonSchema)]
struct WriteFileArgs {
    /// The file to write.
    path: String,
    /// The text to write or append.
    content: String,
    /// `rewrite` replaces the file's content, `append` adds to its end.
    #[schemars(extend("default" = "rewrite"))]
    mode: Option<WriteMode>,
    /// Who made the call: `llm` or `ui`. Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    origin: Option<Origin>,
}

#[derive(Deserialize, Serialize, JsonSchema, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum WriteMode {
    Rewrite,
    Append,
}

static WRITE_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<WriteFileArgs>);

fn write_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: WriteFileArgs = parse("write_file", &WRITE_FILE_SCHEMA, args)?;
    let extension = std::path::Path::new(&args.path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if let Some(ext) = extension.filter(|e| CONVERTED.contains(&e.as_str())) {
        return Err(FkError::invalid(format!(
            "write_file: .{ext} files are not supported: Desktop Commander converts content into \
             DOCX, spreadsheets and PDF, and filekit writes text files only ({})",
            args.path
        ))
        .with_hint("write the text under a text file's name (.md, .csv, .txt)"));
    }
    let p = match ws.resolve(&args.path) {
        Ok(p) => p,
        Err(e) => return Ok(failed(&e)),
    };
    let existing = match ws.metadata(&p) {
        Ok(m) => m.filter(|m| m.is_file),
        Err(e) => return Ok(failed(&e)),
    };
    if args.mode.is_none()
        && let Some(m) = existing.as_ref().filter(|m| m.len > 0)
    {
        let err = FkError::new(
            ErrorCode::Conflict,
            format!(
                "Write rejected to prevent accidental data loss: {} already exists with content \
                 ({} bytes), and no 'mode' was specified — the default mode 'rewrite' would \
                 REPLACE the entire file. Retry with an explicit mode: 'append' to add your \
                 content to the end of the existing file, or 'rewrite' to replace all existing \
                 content.",
                args.path, m.len
            ),
        )
        .with_details(json!({"fact": filekit_core::Fact::AlreadyExists, "path": ws.display(&p)}));
        return Ok(failed(&err));
    }
    let mode = args.mode.unwrap_or(WriteMode::Rewrite);
    let edit = if mode == WriteMode::Append && existing.is_some() {
        // The content goes after the last byte, as it is: tied to the version read, so a
        // write in between is reported, not lost.
        let r = read_file(ws, &args.path, &ReadOptions::default());
        let t = match &r.result {
            Ok(ReadContent::Text(t)) => t,
            Ok(_) => {
                let err = FkError::new(
                    ErrorCode::Binary,
                    format!(
                        "{} is not a text file: write_file appends to text files",
                        args.path
                    ),
                );
                return Ok(failed(&err));
            }
            Err(e) => return Ok(failed(e)),
        };
        let Some(hash) = t.content_hash.clone() else {
            let err = filekit_core::limits::too_large_to_edit(
                &ws.display(&p),
                t.size,
                ws.max_file_size(),
            );
            return Ok(failed(&err));
        };
        // The text's end: a read returns at most MAX_READ_BYTES of it.
        let end = (t.size - if t.bom { 3 } else { 0 }) as usize;
        Edit::Ranges {
            ranges: vec![Splice::new(end, end, args.content.clone())],
            content_hash: hash,
        }
    } else {
        Edit::Create {
            content: args.content.clone(),
            overwrite: true,
        }
    };
    let report = ws.apply(EditRequest::one_file(
        args.path.clone(),
        vec![edit],
        EditOptions::default(),
    ));
    let f = &report.files[0];
    if let Some(err) = shape::first_error(f) {
        return Ok(failed(err));
    }
    // Desktop Commander counts the pieces of `content.split('\n')`.
    let line_count = args.content.split('\n').count();
    let tip = if line_count > WRITE_LINE_LIMIT {
        format!(
            "✅ File written successfully! ({line_count} lines)\n            \n💡 Performance tip: \
             For optimal speed, consider chunking files into ≤30 line pieces in future operations."
        )
    } else {
        String::new()
    };
    let verb = match mode {
        WriteMode::Append => "appended to",
        WriteMode::Rewrite => "wrote to",
    };
    let text = format!(
        "Successfully {verb} {} ({line_count} lines) {tip}",
        args.path
    );
    let value = WriteReply {
        success: true,
        path: f.path.clone(),
        mode,
        lines: line_count,
        content_hash: shape::current_hash(f),
    };
    Ok(ToolReply::typed(&value, false, text))
}

// ---------------------------------------------------------------------------------------------
// create_directory

const CREATE_DIRECTORY_DESCRIPTION: &str = "\
Create a directory, with any missing parent directories; one that exists already is fine \
(`mkdir -p`). Kept in filekit's history (undo).

Example: {\"path\": \"src/components/forms\"}";

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    /// The path.
    path: String,
}

static PATH_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<PathArgs>);

fn create_directory(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: PathArgs = parse("create_directory", &PATH_SCHEMA, args)?;
    // Whether it is there already (`mkdir -p` then makes nothing): for the reply only.
    let existed = ws
        .resolve(&args.path)
        .ok()
        .and_then(|p| ws.metadata(&p).ok().flatten())
        .is_some_and(|m| m.is_dir);
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
    let op = &report.ops[0];
    if let Some(err) = &op.error {
        return Ok(failed(err));
    }
    // The engine reports the parents it made; the directory itself is the operation.
    let mut made = op.created_dirs.clone();
    if !existed {
        made.push(op.source.clone());
    }
    let value = CreateDirectoryReply {
        success: true,
        path: op.source.clone(),
        created_dirs: made,
    };
    Ok(ToolReply::typed(
        &value,
        false,
        format!("Successfully created directory {}", args.path),
    ))
}

// ---------------------------------------------------------------------------------------------
// list_directory

const LIST_DIRECTORY_DESCRIPTION: &str = "\
List a directory: one line per entry, \"[DIR] name\" or \"[FILE] name\", paths relative to \
the listed directory, each directory followed by its entries down to `depth` levels \
(default 2: the entries and theirs). Below the top level, a directory shows its first 100 \
entries and a \"[WARNING] dir: N items hidden\" line for the rest. Hidden and git-ignored \
entries are listed; filekit's own .filekit/ folder is not. A path that does not exist \
answers \"[NOT_FOUND] name — path does not exist\".

Example: {\"path\": \"src\", \"depth\": 1}";

#[derive(Deserialize, JsonSchema)]
struct ListDirectoryArgs {
    /// The directory to list.
    path: String,
    /// How many levels to list: 1 is the directory's own entries.
    #[schemars(extend("default" = 2))]
    depth: Option<i64>,
    /// Who made the call: `llm` or `ui`. Accepted and not used.
    #[allow(dead_code)] // in the schema so that it is accepted; nothing uses it
    origin: Option<Origin>,
}

static LIST_DIRECTORY_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ListDirectoryArgs>);

fn list_directory(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: ListDirectoryArgs = parse("list_directory", &LIST_DIRECTORY_SCHEMA, args)?;
    let depth = args.depth.unwrap_or(2);
    match listing(ws, &args.path, depth) {
        Ok(text) => {
            let value = ListReply {
                success: true,
                path: args.path,
                entries: text.lines().map(str::to_string).collect(),
            };
            Ok(ToolReply::typed(&value, false, text))
        }
        Err(err) => Ok(failed(&err)),
    }
}

/// The lines Desktop Commander's `listDirectory` answers: entries in walk order (each
/// directory's own entries right after it, here sorted by name), a warning for a nested
/// directory over [`MAX_NESTED_ITEMS`] entries, `[NOT_FOUND]` for a path that is not there.
fn listing(ws: &Call, path: &str, depth: i64) -> Result<String, FkError> {
    let p = ws.resolve(path)?;
    let Some(meta) = ws.metadata(&p)? else {
        let name = p
            .absolute()
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        return Ok(format!("[NOT_FOUND] {name} — path does not exist"));
    };
    if !meta.is_dir {
        return Err(FkError::new(
            ErrorCode::InvalidArgument,
            format!("{} is a file, not a directory", ws.display(&p)),
        )
        .with_hint("read a file with read_file or get_file_info"));
    }
    if depth <= 0 {
        return Ok(String::new());
    }
    let l = list(
        ws,
        &ListOptions {
            path: Some(path.to_string()),
            depth: usize::try_from(depth).unwrap_or(usize::MAX),
            walk: WalkFilter {
                hidden: true,
                ignored: true,
            },
            limit: Some(MAX_LISTED),
            ..ListOptions::default()
        },
    )?;
    let mut out: Vec<String> = Vec::new();
    // Per nested directory: its entries seen so far and how many were left out.
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut hidden_under: Vec<(String, usize)> = Vec::new();
    let parent_of = |name: &str| name.rsplit_once('/').map(|(d, _)| d.to_string());
    let mut shown_dirs: std::collections::HashSet<&str> = Default::default();
    for e in &l.entries {
        flush_warnings(&mut out, &mut hidden_under, &e.name);
        let parent = parent_of(&e.name);
        if let Some(dir) = &parent {
            // Under a directory that was left out itself: not shown.
            if !shown_dirs.contains(dir.as_str()) {
                continue;
            }
            let n = seen.entry(dir.clone()).or_default();
            *n += 1;
            if *n > MAX_NESTED_ITEMS {
                match hidden_under.iter_mut().find(|(d, _)| d == dir) {
                    Some((_, k)) => *k += 1,
                    None => hidden_under.push((dir.clone(), 1)),
                }
                continue;
            }
        }
        if e.kind == EntryKind::Dir {
            shown_dirs.insert(e.name.as_str());
        }
        // Desktop Commander's `Dirent.isDirectory()`: a link is a file.
        let tag = if e.kind == EntryKind::Dir {
            "[DIR]"
        } else {
            "[FILE]"
        };
        out.push(format!("{tag} {}", e.name));
    }
    flush_warnings(&mut out, &mut hidden_under, "");
    if l.truncated {
        out.push(format!(
            "[WARNING] {path}: {} more entries not listed (the first {MAX_LISTED} are)",
            l.omitted()
        ));
    }
    Ok(out.join("\n"))
}

/// Desktop Commander writes a directory's warning after the last of its entries (before the
/// next entry that is not under it): the warnings of the directories that `next` is not in.
fn flush_warnings(out: &mut Vec<String>, hidden: &mut Vec<(String, usize)>, next: &str) {
    hidden.retain(|(dir, n)| {
        let inside = !next.is_empty() && next.starts_with(&format!("{dir}/"));
        if !inside {
            out.push(format!(
                "[WARNING] {dir}: {n} items hidden (showing first {MAX_NESTED_ITEMS} of {} total)",
                n + MAX_NESTED_ITEMS
            ));
        }
        inside
    });
}

/// Removes `encoding` from a call of a tool that reads or writes a file's text when it names
/// UTF-8: Desktop Commander's zod schemas strip a key they do not name, and it reads and
/// writes UTF-8 whatever `encoding` says, which filekit's reads and edits of UTF-8 text do
/// alike. Another encoding is refused with what this table does instead (each file read and
/// edited in its own encoding, detected) and where one is named: the agent would expect the
/// file decoded in it, which neither server would do.
pub(crate) fn drop_ignored(tool: &str, args: &mut Value) -> Result<(), FkError> {
    if !matches!(
        tool,
        "read_file" | "read_multiple_files" | "write_file" | "edit_block"
    ) {
        return Ok(());
    }
    match args.as_object_mut() {
        Some(obj) => crate::args::take_utf8_encoding(tool, obj),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// move_file

const MOVE_FILE_DESCRIPTION: &str = "\
Move or rename a file or a directory. As a rename does, a file moved onto an existing file \
replaces it, and a directory an empty directory (the history keeps what was there: undo \
brings it back); a directory with entries in it is never replaced. Missing parent directories of the destination are made. Both paths must be \
in the workspace.

Example: {\"source\": \"src/old_name.ts\", \"destination\": \"src/lib/new_name.ts\"}";

#[derive(Deserialize, JsonSchema)]
struct MoveFileArgs {
    /// The file or directory to move.
    source: String,
    /// Its new path.
    destination: String,
}

static MOVE_FILE_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<MoveFileArgs>);

fn move_file(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: MoveFileArgs = parse("move_file", &MOVE_FILE_SCHEMA, args)?;
    let report = fsops::apply(
        ws,
        &FsRequest {
            ops: vec![FileOp::Move {
                from: args.source.clone(),
                to: args.destination.clone(),
                overwrite: true,
            }],
            tool: Some(ws.tool_name()),
            ..FsRequest::default()
        },
    );
    let op = &report.ops[0];
    if let Some(err) = &op.error {
        return Ok(failed(err));
    }
    let value = MoveReply {
        success: true,
        source: op.source.clone(),
        destination: op.destination.clone(),
        overwrote: op.overwrote,
    };
    Ok(ToolReply::typed(
        &value,
        false,
        format!("Successfully moved {} to {}", args.source, args.destination),
    ))
}

// ---------------------------------------------------------------------------------------------
// get_file_info

const GET_FILE_INFO_DESCRIPTION: &str = "\
Metadata of a file or directory, one \"key: value\" line each: size, created, modified, \
accessed (quoted ISO times), isDirectory, isFile, permissions (three octal digits), fileType \
(text, binary or image), and for a text file lineCount, lastLine (0-based) and \
appendPosition; isBinary or isImage for those files.

Example: {\"path\": \"package.json\"}";

fn get_file_info(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let args: PathArgs = parse("get_file_info", &PATH_SCHEMA, args)?;
    let p = match ws.resolve(&args.path) {
        Ok(p) => p,
        Err(e) => return Ok(failed(&e)),
    };
    let meta = match ws.metadata(&p) {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(failed(&ws.missing(&p))),
        Err(e) => return Ok(failed(&e)),
    };
    let mut info = FileInfo {
        size: meta.len,
        created: iso_millis(meta.created.unwrap_or(SystemTime::UNIX_EPOCH)),
        modified: iso_millis(meta.modified),
        accessed: iso_millis(meta.accessed.unwrap_or(SystemTime::UNIX_EPOCH)),
        is_directory: meta.is_dir,
        is_file: meta.is_file,
        permissions: format!("{:03o}", meta.mode & 0o777),
        // A directory is "text" to Desktop Commander.
        file_type: FileType::Text,
        line_count: None,
        last_line: None,
        append_position: None,
        is_image: None,
        is_binary: None,
    };
    // Desktop Commander counts the lines of text files under 10 MiB (its LINE_COUNT_LIMIT);
    // filekit those it reads whole (a larger one is only classified, from its first line).
    if meta.is_file {
        let whole = meta.len <= ws.max_file_size().min(filekit_core::limits::MAX_READ_BYTES);
        let r = read_file(
            ws,
            &args.path,
            &ReadOptions {
                images: true,
                max_lines: (!whole).then_some(1),
                ..ReadOptions::default()
            },
        );
        match r.result {
            // Text that is not UTF-8 (Latin-1, Shift_JIS): Desktop Commander's check finds
            // bytes that are not UTF-8 and calls the file binary; its metadata is what was
            // asked for (the engine reads and edits it in its encoding all the same).
            Ok(ReadContent::Text(t)) if t.encoding.is_some() => info.file_type = FileType::Binary,
            Ok(ReadContent::Text(t)) => {
                if let Some(n) = t.total_lines.filter(|_| whole) {
                    info.line_count = Some(n);
                    info.last_line = Some(n as i64 - 1);
                    info.append_position = Some(n);
                }
            }
            Ok(ReadContent::Image(_)) => info.file_type = FileType::Image,
            Ok(ReadContent::Binary(_)) => info.file_type = FileType::Binary,
            // Text that does not decode in its encoding: the same.
            Err(e) if e.code == filekit_core::ErrorCode::Encoding => {
                info.file_type = FileType::Binary
            }
            Err(e) => return Ok(failed(&e)),
        }
    }
    match info.file_type {
        FileType::Image => info.is_image = Some(true),
        FileType::Binary => info.is_binary = Some(true),
        FileType::Text => {}
    }
    // Its formatValue: a Date is written as JSON (quoted), everything else as it is; one
    // line per field, in the reply's order.
    let fields = reply::to_value(&info);
    let text = fields
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| match v {
            Value::String(s) if matches!(k.as_str(), "created" | "modified" | "accessed") => {
                format!("{k}: \"{s}\"")
            }
            Value::String(s) => format!("{k}: {s}"),
            v => format!("{k}: {v}"),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let value = FileInfoReply {
        success: true,
        path: ws.display(&p),
        info,
    };
    Ok(ToolReply::typed(&value, false, text))
}

/// A time as JavaScript's `Date.toJSON` writes it: UTC with milliseconds.
fn iso_millis(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
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
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use filekit_core::Workspace;

    #[test]
    fn lines_are_counted_as_readline_yields_them() {
        assert!(lines_of("").is_empty());
        assert_eq!(lines_of("a\nb\n"), ["a", "b"]);
        assert_eq!(lines_of("a\r\nb"), ["a", "b"]);
        assert_eq!(lines_of("\n"), [""]);
        assert_eq!(lines_of("a\n\n"), ["a", ""]);
    }

    #[test]
    fn status_lines_are_desktop_commanders() {
        assert_eq!(
            status(10, 0, Some(250)),
            "[Reading 10 lines from start (total: 250 lines, 240 remaining)]\n\n"
        );
        assert_eq!(
            status(5, 100, Some(103)),
            "[Reading 5 lines from line 100 (total: 103 lines, 0 remaining)]\n\n"
        );
        assert_eq!(
            status(3, -3, Some(9)),
            "[Reading last 3 lines (total: 9 lines)]\n\n"
        );
        assert_eq!(status(4, 7, None), "[Reading 4 lines from line 7]\n\n");
    }

    #[test]
    fn a_nested_directory_shows_its_first_hundred_entries_and_warns_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for i in 0..105 {
            std::fs::create_dir_all(root.join("big")).unwrap();
            std::fs::write(root.join(format!("big/f{i:03}.txt")), "x").unwrap();
        }
        // A directory past the hundredth is not entered either.
        std::fs::create_dir_all(root.join("big/zz/inner")).unwrap();
        for i in 0..120 {
            std::fs::write(root.join(format!("top{i:03}.txt")), "x").unwrap();
        }
        let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        let reply = crate::call_in(
            &ws,
            Some(&["desktop-commander"]),
            "list_directory",
            json!({"path": root, "depth": 3}),
        );
        assert!(!reply.is_error, "{}", reply.text);
        let lines: Vec<&str> = reply.text.lines().collect();
        assert_eq!(lines[0], "[DIR] big");
        assert_eq!(lines[1], "[FILE] big/f000.txt");
        assert_eq!(lines[100], "[FILE] big/f099.txt");
        assert_eq!(
            lines[101],
            "[WARNING] big: 6 items hidden (showing first 100 of 106 total)"
        );
        // The top level is never cut.
        assert_eq!(lines[102], "[FILE] top000.txt");
        assert_eq!(lines.len(), 102 + 120);
        assert!(!reply.text.contains("zz"), "{}", reply.text);
    }

    #[test]
    fn a_file_over_the_engines_bound_is_read_by_its_lines_not_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let line = "x".repeat(99) + "\n";
        let lines = ((64 << 10) / line.len()) + 10;
        std::fs::write(root.join("big.log"), line.repeat(lines)).unwrap();
        let ws = Workspace::new(std::slice::from_ref(&root), false)
            .unwrap()
            .with_max_file_size(64 << 10);
        let read =
            |args: Value| crate::call_in(&ws, Some(&["desktop-commander"]), "read_file", args);
        let head = read(json!({"path": "big.log", "offset": 5, "length": 2}));
        assert!(!head.is_error, "{}", head.text);
        // Its total is not known without reading it all: the status line has none, as
        // Desktop Commander's has none for files it does not count.
        assert_eq!(
            head.text,
            format!(
                "[Reading 2 lines from line 5]\n\n{}\n{}",
                &line[..99],
                &line[..99]
            )
        );
        let none = read(json!({"path": "big.log", "offset": 5, "length": 0}));
        assert_eq!(none.text, "[Reading 0 lines from line 5]\n\n");
        let info = crate::call_in(
            &ws,
            Some(&["desktop-commander"]),
            "get_file_info",
            json!({"path": "big.log"}),
        );
        assert!(info.text.contains("fileType: text"), "{}", info.text);
        assert!(!info.text.contains("lineCount"), "{}", info.text);
        let past = read(json!({"path": "big.log", "offset": lines + 5}));
        assert!(!past.is_error, "{}", past.text);
        assert!(
            past.text.starts_with("[Reading 0 lines from line"),
            "{}",
            past.text
        );
        // Its last lines are found from its end, without counting the others.
        let tail = read(json!({"path": "big.log", "offset": -3}));
        assert!(!tail.is_error, "{}", tail.text);
        assert_eq!(
            tail.text,
            format!("[Reading last 3 lines]\n\n{}", [&line[..99]; 3].join("\n"))
        );
    }

    #[test]
    fn read_multiple_files_holds_a_bounded_reply() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let file = ("y".repeat(1999) + "\n").repeat(1000);
        let paths: Vec<String> = (0..10).map(|i| format!("f{i}.txt")).collect();
        for p in &paths {
            std::fs::write(root.join(p), &file).unwrap();
        }
        let ws = Workspace::new(std::slice::from_ref(&root), false).unwrap();
        let reply = crate::call_in(
            &ws,
            Some(&["desktop-commander"]),
            "read_multiple_files",
            json!({"paths": paths}),
        );
        // Some files were read: the call succeeds, the rest said in their place.
        assert!(!reply.is_error);
        let files = reply.value["files"].as_array().unwrap();
        let read = files.iter().filter(|f| f["success"] == true).count();
        // Files are read while the reply holds at most the workspace's reply bytes.
        let max = filekit_core::limits::MAX_REPLY_BYTES as usize;
        let fit = max / file.len() + 1;
        assert_eq!(read, fit, "{}", reply.value["files"][fit]);
        // One entry stands for the files not read.
        assert_eq!(files.len(), fit + 1);
        assert_eq!(files[fit]["errorCode"], "TOO_LARGE");
        assert!(
            reply.text.contains(&format!(
                "f{fit}.txt: Error - f{fit}.txt and the {} file(s) after it were not read: this \
                 reply already holds",
                paths.len() - fit - 1
            )),
            "{}",
            &reply.text[..2000]
        );
        assert!(reply.text.len() < max + 2 * file.len());
    }

    #[test]
    fn times_are_written_as_javascript_dates() {
        use std::time::Duration;
        assert_eq!(
            iso_millis(SystemTime::UNIX_EPOCH),
            "1970-01-01T00:00:00.000Z"
        );
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_795_737_600_123);
        assert_eq!(iso_millis(t), "2026-11-27T00:00:00.123Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_661);
        assert_eq!(iso_millis(leap), "2000-02-29T01:01:01.000Z");
    }
}
