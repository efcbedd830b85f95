//! The edit plan of `filekit edit`: a JSON document that maps one to one onto the engine's
//! `EditRequest`, so that what a person writes is exactly what the engine does.
//!
//! Unlike tool arguments from agents, a plan is written by people and scripts and kept in
//! files: unknown keys are refused, so that a misspelt `dry_rnu` cannot silently write.

use filekit_core::edit::{Edit, EditOptions, EditRequest, Expected, FileEdits};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    files: Vec<PlanFile>,
    #[serde(default)]
    options: PlanOptions,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    path: String,
    edits: Vec<PlanEdit>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PlanOptions {
    #[serde(default)]
    dry_run: bool,
    #[serde(default)]
    atomic: bool,
    #[serde(default)]
    stop_on_error: bool,
    fuzzy_threshold: Option<f64>,
    #[serde(default)]
    per_edit_diffs: bool,
}

/// One edit, named by the engine's command names; fields as in [`Edit`].
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum PlanEdit {
    Create {
        content: String,
        #[serde(default)]
        overwrite: bool,
    },
    StrReplace {
        old: String,
        new: String,
        #[serde(default)]
        expected: PlanExpected,
        label: Option<String>,
    },
    ReplaceLines {
        start: i64,
        end: Option<i64>,
        new: String,
        content_hash: Option<String>,
    },
    Insert {
        after: i64,
        text: String,
        content_hash: Option<String>,
    },
    Append {
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

impl Plan {
    /// Parses a plan; the error says where (argument path, line and column) and what is wrong.
    pub fn parse(source: &str) -> Result<Plan, String> {
        let mut de = serde_json::Deserializer::from_str(source);
        let plan: Plan = serde_path_to_error::deserialize(&mut de).map_err(|e| {
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
                    path: f.path,
                    edits: f.edits.into_iter().map(PlanEdit::into_edit).collect(),
                })
                .collect(),
            options: EditOptions {
                dry_run: dry_run || self.options.dry_run,
                atomic: atomic || self.options.atomic,
                stop_on_error: stop_on_error || self.options.stop_on_error,
                fuzzy_threshold: self.options.fuzzy_threshold,
                per_edit_diffs: self.options.per_edit_diffs,
                ..Default::default()
            },
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_map_to_requests() {
        let plan = Plan::parse(
            r#"{"files": [{"path": "a", "edits": [
                {"str_replace": {"old": "x", "new": "y", "expected": "all"}},
                {"replace_lines": {"start": 3, "new": "z"}}]}],
                "options": {"atomic": true}}"#,
        )
        .unwrap();
        let req = plan.into_request(true, false, false);
        assert!(req.options.dry_run && req.options.atomic && !req.options.stop_on_error);
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
        let e = Plan::parse(
            "{\"files\": [{\"path\": \"a\", \"edits\": [{\"str_replace\": {\"old\": 1}}]}]}",
        )
        .err()
        .unwrap();
        assert!(
            e.starts_with("files[0].edits[0].str_replace.old: invalid type"),
            "{e}"
        );
        assert!(e.contains("line 1"), "{e}");
        let e = Plan::parse("{\"files\": [], \"optoins\": {}}")
            .err()
            .unwrap();
        assert!(e.contains("unknown field `optoins`"), "{e}");
        let e = Plan::parse("{\"files\": [{\"path\": \"a\", \"edits\": [{\"replace\": {}}]}]}")
            .err()
            .unwrap();
        assert!(e.contains("unknown variant `replace`"), "{e}");
        let e = Plan::parse(r#"{"files": [{"path": "a", "edits": [{"str_replace": {"old": "a", "new": "b", "expected": "many"}}]}]}"#)
            .err()
            .unwrap();
        assert!(e.contains("\"all\""), "{e}");
        assert!(Plan::parse(r#"{"files": []}"#).is_err());
    }
}
