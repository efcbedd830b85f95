//! The replies of `file_read` and `file_edit`, which two tables serve: the curated table in its
//! convention (snake_case, positions as `{line, column}`), the `semantic` table in the semantic table's design's
//! (camelCase, an edit's positions as `[line, column]`). Each reply is one type for both; a
//! [`Spelling`] says how a table writes it, in its replies and in its schemas alike.

use crate::ToolReply;
use crate::reply::{self, Failure, SchemaForm};
use filekit_core::FkError;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// How a table writes the replies of `file_read` and `file_edit`.
pub(crate) trait Spelling {
    /// Where an edit is, as the table writes a position.
    type Place: Place;
    /// Field names in camelCase (the semantic table's design's `semantic` table); snake_case otherwise.
    const CAMEL: bool;
    /// An edit's reply lists every change with its range even though its diff says the same
    /// (the semantic table's design's design); otherwise only with `preview`, which asks for the texts.
    const LISTS_CHANGES: bool;

    /// A reply value in the table's spelling.
    fn reply<T: Serialize>(value: &T, is_error: bool, text: String) -> ToolReply {
        let mut r = ToolReply::typed(value, is_error, text);
        if Self::CAMEL {
            r.value = reply::camel_keys(std::mem::take(&mut r.value));
        }
        r
    }

    /// A reply schema, or an argument schema, in the table's spelling.
    fn schema(schema: Value) -> Value {
        if Self::CAMEL {
            reply::camel_schema(schema)
        } else {
            schema
        }
    }

    /// An argument or field name (snake_case, as the types name it) as the table spells it.
    fn name(snake: &str) -> String {
        if Self::CAMEL {
            reply::camel(snake)
        } else {
            snake.to_string()
        }
    }

    /// Parses a call's arguments, sent in the table's spelling and checked against `schema`
    /// (the table's), into `T`, whose fields are named in snake_case.
    fn parse<T: serde::de::DeserializeOwned>(
        tool: &str,
        schema: &Value,
        args: Value,
    ) -> Result<T, FkError> {
        if Self::CAMEL {
            crate::args::parse_camel(tool, schema, args)
        } else {
            crate::args::parse(tool, schema, args)
        }
    }
}

/// The curated table: snake_case, positions as objects (as `file_read` gives them).
pub(crate) struct Curated;

impl Spelling for Curated {
    type Place = LineColumn;
    const CAMEL: bool = false;
    const LISTS_CHANGES: bool = false;
}

/// The `semantic` table: camelCase, an edit's positions as `[line, column]`.
pub(crate) struct Seed;

impl Spelling for Seed {
    type Place = [usize; 2];
    const CAMEL: bool = true;
    const LISTS_CHANGES: bool = true;
}

/// A position as a table writes it.
pub(crate) trait Place: Serialize + JsonSchema {
    fn at(p: filekit_semantic::Position) -> Self;
}

/// A position: 1-based line, 0-based column in characters.
#[derive(Serialize, JsonSchema, Clone, Copy)]
pub(crate) struct LineColumn {
    line: usize,
    column: usize,
}

impl Place for LineColumn {
    fn at(p: filekit_semantic::Position) -> Self {
        LineColumn {
            line: p.line,
            column: p.column,
        }
    }
}

impl Place for [usize; 2] {
    fn at(p: filekit_semantic::Position) -> Self {
        [p.line, p.column]
    }
}

/// Where a target or a change is: from `start` to `end` (exclusive).
#[derive(Serialize, JsonSchema)]
pub(crate) struct Span<P> {
    pub(crate) start: P,
    pub(crate) end: P,
}

impl<P: Place> Span<P> {
    pub(crate) fn of(lines: &filekit_semantic::Lines, r: &std::ops::Range<usize>) -> Span<P> {
        Span {
            start: P::at(lines.position(r.start)),
            end: P::at(lines.position(r.end)),
        }
    }
}

/// A failed `file_read` or `file_edit`: the file it was about (none when the call was
/// rejected before it got to one) beside a failure's fields.
#[derive(Serialize, JsonSchema)]
pub(crate) struct FileFailure {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(flatten)]
    failure: Failure,
    /// True when nothing was written because part of a refactor's change failed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rolled_back: bool,
}

/// The reply of a `file_read` or `file_edit` that failed on `file`.
pub(crate) fn failed<S: Spelling>(file: &str, err: &FkError, rolled_back: bool) -> ToolReply {
    let value = FileFailure {
        file: Some(file.to_string()),
        failure: Failure::of(err),
        rolled_back,
    };
    S::reply(&value, true, err.full_message())
}

/// A call `file_read` or `file_edit` rejected, in the table's spelling.
pub(crate) fn rejected<S: Spelling>(err: &FkError) -> Value {
    let value = FileFailure {
        file: None,
        failure: Failure::of(err),
        rolled_back: false,
    };
    S::reply(&value, true, String::new()).value
}

// ---------------------------------------------------------------------------------------------
// file_read

/// What file_read answers: one target's text, several targets' (`results`), or an outline.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ReadReply {
    One(ReadResult),
    Many {
        file: String,
        results: Vec<ReadResult>,
    },
    Outline {
        file: String,
        /// What the outline is of: the file, or the targets whose members it lists.
        target: ReadTarget,
        format: OutlineFormat,
        /// One entry per symbol, key or section, in file order.
        outline: Vec<OutlineEntry>,
        /// True when `max_lines` cut the outline short.
        truncated: bool,
    },
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OutlineFormat {
    Summary,
}

/// What was read: the kind of target (symbol, path, selector, xpath, heading, region, file)
/// and its value.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ReadTarget {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) value: String,
}

/// One target read.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ReadResult {
    pub(crate) file: String,
    pub(crate) target: ReadTarget,
    /// The target's text, exactly as in the file.
    pub(crate) content: String,
    pub(crate) range: Span<LineColumn>,
    /// The full name the target resolved to, when it differs from the one given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resolved: Option<String>,
    /// What the target is (function, class, method, section, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
    /// The target's one-line signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signature: Option<String>,
    /// The imported names the code uses, and where they come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dependencies: Option<Vec<Dependency>>,
    /// True when `max_lines` cut the content short.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) truncated: bool,
    /// The file's encoding when it is not UTF-8 ("Shift_JIS"): `content` is its text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) encoding: Option<&'static str>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct Dependency {
    symbol: String,
    from: String,
}

impl Dependency {
    pub(crate) fn of(d: &filekit_semantic::Dependency) -> Dependency {
        Dependency {
            symbol: d.symbol.clone(),
            from: d.from.clone(),
        }
    }
}

/// One symbol, key or section of an outline.
#[derive(Serialize, JsonSchema)]
pub(crate) struct OutlineEntry {
    /// Its full name: what to pass as a target.
    pub(crate) name: String,
    pub(crate) kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signature: Option<String>,
    /// How deep it is nested (0: at the top).
    pub(crate) depth: usize,
    pub(crate) range: Span<LineColumn>,
}

/// The output schema of `file_read` in a table's spelling.
pub(crate) fn read_schema<S: Spelling>(form: SchemaForm) -> Value {
    S::schema(reply::schema_failing::<ReadReply, FileFailure>(form))
}

// ---------------------------------------------------------------------------------------------
// file_edit

/// What file_edit answers, for a direct edit and for a refactor.
#[derive(Serialize, JsonSchema)]
pub(crate) struct EditReply<P> {
    pub(crate) success: bool,
    /// A direct edit: the operation that ran (`batch` for several edits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) operation: Option<String>,
    /// A refactor: which one ran (rename_symbol, organize_imports, extract_function, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) refactor: Option<&'static str>,
    pub(crate) file: String,
    /// A direct edit: the targets edited, in the order given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) targets: Vec<String>,
    /// A refactor: `semantic` (a language server) or `syntactic` (filekit's own parsers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) precision: Option<&'static str>,
    /// A refactor: the language server that computed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<String>,
    /// A refactor: the title of the server's code action that was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) action: Option<String>,
    /// A refactor: the symbol it acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) symbol: Option<String>,
    /// A rename: the new name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) new_name: Option<String>,
    /// The files the change writes (a dry run: would write).
    pub(crate) files_affected: Vec<String>,
    pub(crate) total_edits: usize,
    /// What changed, per file, with the old and new texts (the curated table: only with
    /// `preview`; the diff says the rest).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) changes: Vec<FileChange<P>>,
    /// One line: what was done.
    pub(crate) summary: String,
    /// True when nothing was written.
    pub(crate) dry_run: bool,
    /// A direct edit: the file's version after the call, for line edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) content_hash: Option<String>,
    /// A direct edit: the file's encoding when it is not UTF-8, which the edit was written in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) encoding: Option<&'static str>,
    /// Unified diff of the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) diff: Option<String>,
    /// Why the diff was cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) diff_note: Option<String>,
    /// Things to check by hand (uses the refactor could not follow, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
    /// The history entry that records the change: `undo` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history_entry: Option<i64>,
}

/// The changes of one file.
#[derive(Serialize, JsonSchema)]
pub(crate) struct FileChange<P> {
    pub(crate) file: String,
    pub(crate) edits: Vec<Change<P>>,
}

/// One change: what it does and where, in the file as it was.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Change<P> {
    /// replace, insert or delete.
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) range: Span<P>,
    /// With `preview`: the text it replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) old_content: Option<String>,
    /// With `preview` (and for a file a refactor creates): the new text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) new_content: Option<String>,
}

/// The output schema of `file_edit` in a table's spelling.
pub(crate) fn edit_schema<S: Spelling>(form: SchemaForm) -> Value {
    S::schema(reply::schema_failing::<EditReply<S::Place>, FileFailure>(
        form,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_spellings_of_one_reply_differ_in_names_only() {
        let snake = edit_schema::<Curated>(SchemaForm::Documented);
        let camel = edit_schema::<Seed>(SchemaForm::Documented);
        let names = |s: &Value| -> Vec<String> {
            s["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        let snake_names: Vec<String> = names(&snake).iter().map(|k| reply::camel(k)).collect();
        let mut camel_names = names(&camel);
        let mut snake_names = snake_names;
        snake_names.sort();
        camel_names.sort();
        assert_eq!(snake_names, camel_names);
        assert!(
            camel["properties"].get("filesAffected").is_some(),
            "{camel}"
        );
        assert!(
            snake["properties"].get("files_affected").is_some(),
            "{snake}"
        );
        assert_eq!(
            snake["properties"]["files_affected"]["type"],
            camel["properties"]["filesAffected"]["type"]
        );
    }
}
