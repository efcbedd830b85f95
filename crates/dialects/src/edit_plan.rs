//! The edit plan: a JSON document that maps one to one onto the engine's `EditRequest`, so
//! that what is written is exactly what the engine does. One definition serves both
//! `filekit edit` (plans written by people and scripts) and the curated table's `edit_files`
//! tool (the same shape from agents).
//!
//! Unknown keys are refused, so that a misspelt `dry_rnu` cannot silently write.

use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileEdits};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::borrow::Cow;

pub const AFTER_HELP: &str = "\
PLAN is a JSON file (or - / nothing for standard input):
  {
    \"files\": [
      {\"path\": \"src/app.py\", \"edits\": [
        {\"replace_lines\": {\"start\": 10, \"end\": 12, \"new\": \"    return x\\n\", \"content_hash\": \"3f2a9c1e\"}},
        {\"insert\":        {\"after\": 0, \"text\": \"#!/usr/bin/env python3\\n\"}},
        {\"str_replace\":   {\"old\": \"DEBUG = True\", \"new\": \"DEBUG = False\"}},
        {\"str_replace\":   {\"old\": \"foo(\", \"new\": \"bar(\", \"expected\": \"all\", \"label\": \"rename foo\"}},
        {\"append\":        {\"text\": \"# end\\n\"}}
      ]},
      {\"path\": \"NOTES.md\", \"edits\": [{\"create\": {\"content\": \"# Notes\\n\", \"overwrite\": false}}]}
    ],
    \"options\": {\"dry_run\": false, \"atomic\": false, \"stop_on_error\": false, \"fuzzy_threshold\": 0.9}
  }

Edits (one key each):
  create        {content, overwrite?}          write the whole file; must be the file's first edit
  str_replace   {old, new, expected?, label?}  exact text; expected = a count (default 1) or \"all\"
  replace_lines {start, end?, new, content_hash?}  lines start..end inclusive (no end: to EOF)
  insert        {after, text, content_hash?}   after line `after` (0 = at the top)
  append        {text}                         at the end of the file

A file may name the version its edits were made on: \"base_hash\": \"<content_hash as read>\"
next to \"path\". If the file changed since, the edits are merged into it (reply: merged), or
refused with CONFLICT where they meet the other change (both sides shown, nothing written).

Line numbers are 1-based; negative ones count from the end. All line edits of a file refer to
the file as it was read, whatever their order; str_replace edits then apply in order, each on
the result of the one before; appends last. `new`/`text` are whole lines (a final newline is
optional). content_hash (8+ hex digits of the file's hash, or of exactly the edited lines)
refuses the edit if the file changed. options are all optional; the flags --dry-run, --atomic
and --stop-on-error turn them on. Failed edits are reported and the others still apply,
unless atomic (nothing written if anything fails) or stop_on_error (stop at a file's first
failure). fuzzy_threshold (0..1) lets str_replace apply to a close near miss.

Examples:
  filekit edit plan.json --dry-run
  echo '{\"files\":[{\"path\":\"a.txt\",\"edits\":[{\"str_replace\":{\"old\":\"x\",\"new\":\"y\"}}]}]}' | filekit edit

Exit codes: 0 every edit applied; 1 some edit or file failed; 2 the plan is not valid.";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditPlan {
    /// The files to edit, each with its list of edits. Files are independent unless
    /// `options.atomic` is set.
    files: Vec<PlanFile>,
    /// How to apply the plan (all optional).
    #[serde(default)]
    options: PlanOptions,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    /// The file, relative to the first workspace root or absolute inside a root.
    path: String,
    /// The edits of this file, each an object with exactly one key: create, str_replace,
    /// replace_lines, insert or append.
    edits: Vec<PlanEdit>,
    /// The content_hash of the file as you read it (8+ hex digits): if the file changed
    /// since, your edits (line numbers and texts of that version) are merged into it, or
    /// refused with a CONFLICT showing both sides where they meet changes made since.
    base_hash: Option<String>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanOptions {
    /// Show what would change (diffs, counts); write nothing.
    #[serde(default)]
    dry_run: bool,
    /// All or nothing: write no file unless every edit of every file succeeds.
    #[serde(default)]
    atomic: bool,
    /// Stop a file's edits at its first failure (the edits before it are kept).
    #[serde(default)]
    stop_on_error: bool,
    /// 0..1: let str_replace apply to a near miss at least this similar (default: exact only).
    fuzzy_threshold: Option<f64>,
    /// Report a diff for each edit as well as for each file.
    #[serde(default)]
    per_edit_diffs: bool,
    /// Your lease holder name (see the lock tool): paths you leased are writable by you.
    holder: Option<String>,
    /// The files' encoding, when it is not the one detected (a WHATWG label: "shift_jis",
    /// "windows-1252", "utf-16le"). Default: each file's own; edits are written in it.
    encoding: Option<EncodingLabel>,
}

/// An encoding named by a WHATWG label, checked as it is read.
pub(crate) struct EncodingLabel(pub(crate) &'static filekit_core::encoding::Encoding);

impl JsonSchema for EncodingLabel {
    fn schema_name() -> Cow<'static, str> {
        "EncodingLabel".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string"})
    }
}

impl<'de> Deserialize<'de> for EncodingLabel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let label = String::deserialize(d)?;
        filekit_core::encoding::by_label(&label)
            .map(EncodingLabel)
            .map_err(|e| serde::de::Error::custom(e.full_message()))
    }
}

/// One edit: an object with exactly one key, the command (create, str_replace, replace_lines,
/// insert, append), whose value holds its fields.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum PlanEdit {
    /// Write the whole file (must be the file's first edit).
    Create {
        /// The file's whole content.
        content: String,
        /// Replace the file if it exists (default false: refuse).
        #[serde(default)]
        overwrite: bool,
    },
    /// Replace exact text; applies in order, each on the result of the one before.
    StrReplace {
        /// The exact text to find (whitespace and indentation included).
        old: String,
        /// The text to put in its place.
        new: String,
        /// How many times `old` must occur: a count (default 1) or "all".
        #[serde(default)]
        expected: PlanExpected,
        /// A name for this edit in the report.
        label: Option<String>,
    },
    /// Replace lines start..end (inclusive; no end: to the end of the file).
    ReplaceLines {
        /// First line, 1-based, as in the file when it was read; negative counts from the end.
        start: i64,
        /// Last line, inclusive (default: the last line of the file).
        end: Option<i64>,
        /// The new lines (a final newline is optional; "" deletes the lines).
        new: String,
        /// The content_hash from your read (8+ hex digits, of the file or of exactly these
        /// lines): the edit is refused if the file changed since.
        content_hash: Option<String>,
    },
    /// Insert lines after line `after` (0 = at the top).
    Insert {
        /// The line to insert after, as in the file when it was read (0 = before line 1).
        after: i64,
        /// The lines to insert.
        text: String,
        /// The content_hash from your read: the edit is refused if the file changed since.
        content_hash: Option<String>,
    },
    /// Append lines at the end of the file (applies last).
    Append {
        /// The lines to append.
        text: String,
    },
}

/// A match count, or `"all"`.
struct PlanExpected(Expected);

impl Default for PlanExpected {
    fn default() -> Self {
        PlanExpected(Expected::Exactly(1))
    }
}

impl JsonSchema for PlanExpected {
    fn schema_name() -> Cow<'static, str> {
        "Expected".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "How many times `old` must occur: a count (default 1) or \"all\".",
            "anyOf": [{"type": "integer", "minimum": 1}, {"const": "all"}]
        })
    }
}

impl<'de> Deserialize<'de> for PlanExpected {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PlanExpected;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a match count (1, 2, ...) or \"all\"")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<PlanExpected, E> {
                Ok(PlanExpected(Expected::Exactly(n as usize)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<PlanExpected, E> {
                if s == "all" {
                    Ok(PlanExpected(Expected::All))
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(s), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl EditPlan {
    /// Parses a plan; the error says where (argument path, line and column) and what is wrong.
    pub fn parse(source: &str) -> Result<EditPlan, String> {
        let mut de = serde_json::Deserializer::from_str(source);
        let plan: EditPlan = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let inner = e.inner();
            let message = inner.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map(|(m, _)| m)
                .unwrap_or(&message);
            let path = e.path().to_string();
            let at = if path == "." || path.is_empty() {
                String::new()
            } else {
                format!("{path}: ")
            };
            format!(
                "{at}{message} (line {}, column {})",
                inner.line(),
                inner.column()
            )
        })?;
        de.end().map_err(|e| {
            format!(
                "unexpected text after the plan (line {}, column {})",
                e.line(),
                e.column()
            )
        })?;
        if plan.files.is_empty() {
            return Err(
                "files: the plan has no files; add {\"path\": ..., \"edits\": [...]}".into(),
            );
        }
        Ok(plan)
    }

    /// The engine request, with the command-line flags turned on where given.
    pub fn into_request(self, dry_run: bool, atomic: bool, stop_on_error: bool) -> EditRequest {
        EditRequest {
            files: self
                .files
                .into_iter()
                .map(|f| FileEdits {
                    base_hash: f.base_hash,
                    path: f.path,
                    edits: f.edits.into_iter().map(PlanEdit::into_edit).collect(),
                })
                .collect(),
            options: EditOptions::builder()
                .dry_run(dry_run || self.options.dry_run)
                .atomic(atomic || self.options.atomic)
                .stop_on_error(stop_on_error || self.options.stop_on_error)
                .fuzzy_threshold(self.options.fuzzy_threshold)
                .per_edit_diffs(self.options.per_edit_diffs)
                .holder(self.options.holder)
                .encoding(self.options.encoding.map(|e| e.0))
                .build(),
        }
    }
}

impl PlanEdit {
    fn into_edit(self) -> Edit {
        match self {
            PlanEdit::Create { content, overwrite } => Edit::Create { content, overwrite },
            PlanEdit::StrReplace {
                old,
                new,
                expected,
                label,
            } => Edit::ReplaceText {
                old,
                new,
                expected: expected.0,
                label,
            },
            PlanEdit::ReplaceLines {
                start,
                end,
                new,
                content_hash,
            } => Edit::ReplaceLines {
                start,
                end,
                new,
                content_hash,
            },
            PlanEdit::Insert {
                after,
                text,
                content_hash,
            } => Edit::Insert {
                after,
                text,
                content_hash,
            },
            PlanEdit::Append { text } => Edit::Append { text },
        }
    }
}

/// How a plan names what an edit is about (`filekit edit`).
pub(crate) const PLAN_WORDS: crate::shape::Words = crate::shape::Words {
    search: "old",
    expect: Some("set that edit's \"expected\" to {n} (or \"all\")"),
    empty: "give `old` the exact text to replace, with enough surrounding lines to be unique; \
            to add text without replacing any, use an insert or append edit",
    lines: ["start", "end", "after", "content_hash"],
    exists: Some(
        "set the create's \"overwrite\" to true to replace its whole content, or edit the file \
         instead",
    ),
};

/// The report of a plan's request with every edit error said in the plan's words (`old`,
/// `expected`), for `filekit edit` to print.
pub fn word_report(report: &mut filekit_core::EditReport) {
    crate::shape::word_report(report, &PLAN_WORDS);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_map_to_requests() {
        let plan = EditPlan::parse(
            r#"{"files": [{"path": "a", "edits": [
                {"str_replace": {"old": "x", "new": "y", "expected": "all"}},
                {"replace_lines": {"start": 3, "new": "z"}}]}],
                "options": {"atomic": true}}"#,
        )
        .unwrap();
        let req = plan.into_request(true, false, false);
        assert!(req.options.dry_run() && req.options.atomic() && !req.options.stop_on_error());
        assert!(matches!(
            req.files[0].edits[0],
            Edit::ReplaceText {
                expected: Expected::All,
                ..
            }
        ));
        assert!(matches!(
            req.files[0].edits[1],
            Edit::ReplaceLines {
                start: 3,
                end: None,
                ..
            }
        ));
    }

    #[test]
    fn plan_errors_say_where() {
        let e = EditPlan::parse(
            "{\"files\": [{\"path\": \"a\", \"edits\": [{\"str_replace\": {\"old\": 1}}]}]}",
        )
        .err()
        .unwrap();
        assert!(
            e.starts_with("files[0].edits[0].str_replace.old: invalid type"),
            "{e}"
        );
        assert!(e.contains("line 1"), "{e}");
        let e = EditPlan::parse("{\"files\": [], \"optoins\": {}}")
            .err()
            .unwrap();
        assert!(e.contains("unknown field `optoins`"), "{e}");
        let e = EditPlan::parse("{\"files\": [{\"path\": \"a\", \"edits\": [{\"replace\": {}}]}]}")
            .err()
            .unwrap();
        assert!(e.contains("unknown variant `replace`"), "{e}");
        let e = EditPlan::parse(r#"{"files": [{"path": "a", "edits": [{"str_replace": {"old": "a", "new": "b", "expected": "many"}}]}]}"#)
            .err()
            .unwrap();
        assert!(e.contains("\"all\""), "{e}");
        assert!(EditPlan::parse(r#"{"files": []}"#).is_err());
    }
}
