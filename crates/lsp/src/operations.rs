//! What filekit asks a server for: renames, commands, code actions and performing them,
//! each answered as a workspace edit (never applied here).

use super::*;

impl Client {
    /// textDocument/rename at an LSP position.
    pub fn rename(
        &mut self,
        path: &Path,
        pos: (u32, u32),
        new_name: &str,
    ) -> Result<WsEdit, FkError> {
        let r = self.request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(path)}, "position": {"line": pos.0, "character": pos.1}, "newName": new_name}),
        )?;
        if r.is_null() {
            return Err(FkError::new(
                ErrorCode::InvalidArgument,
                "the language server cannot rename this symbol (it is not a renameable name, or a library's)",
            )
            .with_hint("point at a declaration or a use of a symbol of the workspace"));
        }
        let mut e = WsEdit::default();
        e.add(&r);
        Ok(e)
    }

    /// Runs a command and collects the edits the server asks to apply while it runs.
    pub fn execute(&mut self, command: &str, arguments: Value) -> Result<WsEdit, FkError> {
        self.applied.clear();
        self.last_error = None;
        self.request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": arguments}),
        )?;
        let mut e = WsEdit::default();
        for v in std::mem::take(&mut self.applied) {
            e.add(&v);
        }
        Ok(e)
    }

    /// The code actions at a range (LSP positions), with `only` kinds and diagnostics.
    pub fn code_actions(
        &mut self,
        path: &Path,
        range: LspRange,
        only: Option<&[&str]>,
        diagnostics: Value,
    ) -> Result<Vec<Value>, FkError> {
        let mut context = json!({"diagnostics": diagnostics, "triggerKind": 1});
        if let Some(o) = only {
            context["only"] = json!(o);
        }
        let r = self.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(path)},
                "range": {"start": {"line": range.0.0, "character": range.0.1}, "end": {"line": range.1.0, "character": range.1.1}},
                "context": context
            }),
        )?;
        Ok(r.as_array().cloned().unwrap_or_default())
    }

    /// The workspace edit of a code action (or command): its edit, resolved if need be, and
    /// what its command asks to apply.
    pub fn perform(&mut self, action: &Value) -> Result<WsEdit, FkError> {
        let mut action = action.clone();
        if action.get("edit").is_none()
            && action.get("data").is_some()
            && action.get("command").is_none()
        {
            action = self.request("codeAction/resolve", action)?;
        }
        let mut e = WsEdit::default();
        if let Some(edit) = action.get("edit") {
            e.add(edit);
        }
        // A Command literal has a string `command`; a CodeAction may carry a Command.
        let command = match action.get("command") {
            Some(Value::String(_)) => Some(action.clone()),
            Some(c @ Value::Object(_)) => Some(c.clone()),
            _ => None,
        };
        if let Some(c) = command {
            let name = c.get("command").and_then(Value::as_str).unwrap_or("");
            let args = c.get("arguments").cloned().unwrap_or(json!([]));
            let more = self.execute(name, args)?;
            for (p, edits) in more.files {
                e.files.entry(p).or_default().extend(edits);
            }
            e.created.extend(more.created);
            e.unsupported.extend(more.unsupported);
        }
        if e.is_empty()
            && let Some(msg) = self.last_error.take()
        {
            return Err(FkError::new(
                ErrorCode::InvalidArgument,
                format!("the language server could not apply it: {msg}"),
            ));
        }
        Ok(e)
    }
}
