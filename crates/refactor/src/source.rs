//! A file read whole to be parsed, with the version its edits are tied to.

use filekit_core::read::{ReadOptions, read_file};
use filekit_core::{ErrorCode, FkError, Workspace, limits};

/// A file's text as read, with its version.
#[derive(Debug, Clone)]
pub struct Source {
    pub text: String,
    /// The `content_hash` of `text`: an edit computed on it is refused if the file changed.
    pub hash: String,
}

/// Reads `file` whole, to be parsed: a file larger than the parsers' bound
/// ([`limits::MAX_PARSE_SIZE`]) is refused (TOO_LARGE) before it is read.
pub fn load(ws: &Workspace, file: &str) -> Result<Source, FkError> {
    load_in(ws, file, None).map(|(src, _)| src)
}

/// [`load`] with the text decoded in `encoding` when the caller names one (else the file's
/// own, detected); with the file's encoding when it is not UTF-8 (`Shift_JIS`, `UTF-16LE`).
pub fn load_in(
    ws: &Workspace,
    file: &str,
    encoding: Option<&'static filekit_core::encoding::Encoding>,
) -> Result<(Source, Option<&'static str>), FkError> {
    let p = ws.resolve(file)?;
    if let Some(meta) = ws.metadata(&p)?
        && meta.len > limits::MAX_PARSE_SIZE
    {
        return Err(limits::too_large_to_parse(&ws.display(&p), meta.len));
    }
    let opts = ReadOptions {
        encoding,
        ..ReadOptions::default()
    };
    let read = read_file(ws, file, &opts);
    if let Some(err) = read.error() {
        return Err(err.clone());
    }
    let t = read.text().ok_or_else(|| {
        FkError::new(ErrorCode::Binary, format!("{file} is not a text file"))
            .with_hint("semantic targeting reads source, JSON and Markdown files")
    })?;
    // Grown past the bound since it was measured: read in part, or with no version.
    let Some(hash) = t.content_hash.clone().filter(|_| !t.truncated) else {
        let shown = read.resolved_path.as_deref().unwrap_or(file);
        return Err(limits::too_large_to_parse(shown, t.size));
    };
    Ok((
        Source {
            text: t.content.clone(),
            hash,
        },
        t.encoding,
    ))
}
