//! Workspace edits as the servers send them: text edits per file, creates, renames and
//! deletes, as data for the caller to apply through the one write pipeline.

use super::*;

/// An LSP range: (line, UTF-16 column) of its start and end.
pub type LspRange = ((u32, u32), (u32, u32));

/// One text edit of a server's workspace edit, in LSP positions of the file as the server saw
/// it. Positions only, without the text they are positions of, so not yet splices: the
/// refactor step that reads the file turns a file's edits into `Splices` of its text
/// (`filekit_lsp::offset` for each position).
#[derive(Debug, Clone, PartialEq)]
pub struct TextEdit {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub new_text: String,
}

/// A server's workspace edit: text edits per file, files to create, and operations filekit
/// does not apply (renames and deletes of files), described.
#[derive(Debug, Clone, Default)]
pub struct WsEdit {
    pub files: BTreeMap<PathBuf, Vec<TextEdit>>,
    pub created: Vec<PathBuf>,
    pub unsupported: Vec<String>,
}

impl WsEdit {
    pub fn is_empty(&self) -> bool {
        self.files.values().all(|e| e.is_empty()) && self.created.is_empty()
    }

    pub(crate) fn add(&mut self, v: &Value) {
        if let Some(changes) = v.get("changes").and_then(Value::as_object) {
            for (u, edits) in changes {
                self.add_edits(u, edits);
            }
        }
        for dc in v
            .get("documentChanges")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match dc.get("kind").and_then(Value::as_str) {
                Some("create") => {
                    if let Some(p) = dc.get("uri").and_then(Value::as_str).and_then(path_of) {
                        self.created.push(p);
                    }
                }
                Some(k) => self.unsupported.push(format!(
                    "{k} {}",
                    dc.get("oldUri")
                        .or_else(|| dc.get("uri"))
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                )),
                None => {
                    if let Some(u) = dc.pointer("/textDocument/uri").and_then(Value::as_str) {
                        self.add_edits(u, dc.get("edits").unwrap_or(&Value::Null));
                    }
                }
            }
        }
    }

    pub(crate) fn add_edits(&mut self, u: &str, edits: &Value) {
        let Some(p) = path_of(u) else { return };
        let list = self.files.entry(p).or_default();
        for e in edits.as_array().into_iter().flatten() {
            let pos = |k: &str| {
                (
                    e.pointer(&format!("/range/{k}/line"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0) as u32,
                    e.pointer(&format!("/range/{k}/character"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0) as u32,
                )
            };
            list.push(TextEdit {
                start: pos("start"),
                end: pos("end"),
                new_text: e
                    .get("newText")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            });
        }
    }
}
