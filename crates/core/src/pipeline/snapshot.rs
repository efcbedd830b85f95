//! Snapshot: the file as it is before the request, and the version the edits were made on
//! when that is an older one the version store keeps (what a merge starts from).

use crate::edit::{Edit, FileEdits};
use crate::error::{ErrorCode, FkError};
use crate::hash;
use crate::text::TextDoc;
use crate::workspace::{FileBytes, FileMeta, Workspace, WsPath};

/// The file as it is on disk before the request.
pub(super) struct Before {
    /// The decoded file; taken as the base text when the edits apply to it (not a create).
    pub(super) doc: Option<TextDoc>,
    pub(super) hash: Option<String>,
    pub(super) meta: Option<FileMeta>,
}

/// `known`: the file as the caller read it, if it did. `hashed`: whether its content hash is
/// wanted.
pub(super) fn read_before(
    ws: &Workspace,
    p: &WsPath,
    display: &str,
    known: Option<FileBytes>,
    hashed: bool,
    encoding: Option<&'static encoding_rs::Encoding>,
) -> Result<Before, FkError> {
    let fb = match known {
        Some(fb) => fb,
        None => ws.read(p)?,
    };
    let hash = hashed.then(|| hash::content_hash(&fb.bytes));
    let doc = match encoding {
        None => TextDoc::decode_owned(fb.bytes, display)?,
        Some(_) => TextDoc::decode_as(&fb.bytes, encoding, display)?,
    };
    Ok(Before {
        hash,
        doc: Some(doc),
        meta: Some(fb.meta),
    })
}

/// A create (a whole new content) with a `base_hash` is only written over that version.
pub(super) fn check_create_base(
    fe: &FileEdits,
    current: Option<&str>,
    display: &str,
) -> Result<(), FkError> {
    let Some(given) = &fe.base_hash else {
        return Ok(());
    };
    hash::validate(given).map_err(|m| FkError::invalid(m.replace("content_hash", "base_hash")))?;
    match current {
        Some(h) if !hash::matches(given, h) => Err(FkError::new(
            ErrorCode::Stale,
            format!(
                "{display} changed since version {given} (it is {h} now); a create writes the whole file, so it is not merged"
            ),
        )
        .with_hint("read the file again and edit it, or create it without base_hash to overwrite it")
        .with_details(serde_json::json!({"base_hash": given, "current_hash": h}))),
        _ => Ok(()),
    }
}

/// The version of the file that the edits were made on, when it is not the current one
/// (`current`) and the workspace's store holds it: `fe.base_hash`, or else a `content_hash`
/// of a line edit that names a stored version of the whole file.
pub(super) fn find_merge_base(
    ws: &Workspace,
    fe: &FileEdits,
    current: &str,
    display: &str,
) -> Result<Option<(String, TextDoc)>, FkError> {
    use crate::versions::Lookup;
    let decode = |h: String, bytes: &[u8]| -> Result<Option<(String, TextDoc)>, FkError> {
        Ok(Some((h, TextDoc::decode(bytes, display)?)))
    };
    if let Some(given) = &fe.base_hash {
        hash::validate(given)
            .map_err(|m| FkError::invalid(m.replace("content_hash", "base_hash")))?;
        if hash::matches(given, current) {
            return Ok(None);
        }
        let unknown = || {
            FkError::new(
                ErrorCode::Stale,
                format!(
                    "{display} changed since version {given} (it is {current} now), and that version is not among those filekit kept, so the edits cannot be merged"
                ),
            )
            .with_hint("read the file again and redo the edits on what it holds now (filekit keeps the versions it served in reads and wrote; older ones are pruned)")
            .with_details(serde_json::json!({"base_hash": given, "current_hash": current}))
        };
        let Some(store) = ws.versions() else {
            return Err(unknown());
        };
        return match store.lookup(given, ws.history().map(|h| &**h)) {
            Lookup::Found { hash, bytes } => decode(hash, &bytes),
            Lookup::Unknown => Err(unknown()),
            Lookup::Ambiguous(names) => Err(FkError::invalid(format!(
                "base_hash {given} names {} stored versions ({})",
                names.len(),
                names.join(", ")
            ))
            .with_hint("give more digits of the content_hash a read returned")),
        };
    }
    let Some(store) = ws.versions() else {
        return Ok(None);
    };
    let mut found: Option<(String, std::sync::Arc<Vec<u8>>)> = None;
    for e in &fe.edits {
        let h = match e {
            Edit::ReplaceLines {
                content_hash: Some(h),
                ..
            }
            | Edit::Insert {
                content_hash: Some(h),
                ..
            }
            | Edit::Ranges {
                content_hash: h, ..
            } => h,
            _ => continue,
        };
        if hash::validate(h).is_err() || hash::matches(h, current) {
            continue;
        }
        if let Lookup::Found { hash, bytes } = store.lookup(h, ws.history().map(|h| &**h)) {
            match &found {
                Some((first, _)) if *first != hash => {
                    return Err(FkError::invalid(format!(
                        "the edits of {display} name two versions of it ({first} and {hash})"
                    ))
                    .with_hint(
                        "make all edits of one file on one version, or send them in two requests",
                    ));
                }
                Some(_) => {}
                None => found = Some((hash, bytes)),
            }
        }
    }
    match found {
        Some((h, bytes)) => decode(h, &bytes),
        None => Ok(None),
    }
}
