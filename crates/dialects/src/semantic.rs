//! The `semantic` table: `file_read` reads a symbol, JSONPath
//! match or Markdown section; `file_edit` (its direct-edit mode) edits them. The curated
//! `filekit` table serves the same two tools.
//!
//! `filekit-semantic` locates targets and computes replacement ranges; this module reads the
//! file through the engine, checks that the edited text still parses, and sends the ranges
//! through the one write pipeline as `Edit::Ranges` tied to the `content_hash` it read (so a
//! file changed in between is refused, never overwritten).

use crate::Call;
use crate::args::schema_for;
use crate::edit_plan::EncodingLabel;
use crate::refactor_mode::RefactorName;
use crate::semantic_reply::{
    Change, Curated, Dependency, EditReply, FileChange, OutlineEntry, OutlineFormat, ReadReply,
    ReadResult, ReadTarget, Seed, Span, Spelling, edit_schema, failed, read_schema, rejected,
};
use crate::shape;
use crate::{ToolReply, ToolSpec};
use filekit_core::edit::{Edit, EditOptions, EditRequest, FileStatus};
use filekit_core::text::number_lines;
use filekit_core::{ErrorCode, FkError};
use filekit_documents::html::HtmlDoc;
use filekit_documents::json::{JsonDoc, JsonlDoc};
use filekit_documents::kind::{self, Query};
use filekit_documents::markdown;
use filekit_documents::xml::XmlDoc;
use filekit_documents::yaml::YamlDoc;
use filekit_refactor::code_actions::{Arg, Given, Kind, Selection};
use filekit_semantic::code::Code;
use filekit_semantic::lang::SUPPORTED;
use filekit_semantic::ops::{self, BodyStyle, Operation, Position, Splice};
use filekit_semantic::style;
use filekit_semantic::ts::extract_type::TypeKind;
use filekit_semantic::{Found, Lang, Lines};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::LazyLock;

pub(crate) fn tools(dialect: &'static str) -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "file_read",
            dialect,
            description: if dialect == "filekit" {
                CURATED_READ_DESCRIPTION
            } else {
                READ_DESCRIPTION
            },
            input_schema: if dialect == "filekit" {
                &READ_SCHEMA
            } else {
                &SEED_READ_SCHEMA
            },
            read_only: true,
            destructive: false,
            idempotent: true,
            run: if dialect == "filekit" {
                file_read::<Curated>
            } else {
                file_read::<Seed>
            },
            reject: if dialect == "filekit" {
                rejected::<Curated>
            } else {
                rejected::<Seed>
            },
            guide: if dialect == "filekit" {
                CURATED_READ_GUIDE.as_str()
            } else {
                ""
            },
            reply: crate::ReplySchema::Typed(if dialect == "filekit" {
                read_schema::<Curated>
            } else {
                read_schema::<Seed>
            }),
        },
        ToolSpec {
            name: "file_edit",
            dialect,
            description: if dialect == "filekit" {
                CURATED_EDIT_DESCRIPTION.as_str()
            } else {
                EDIT_DESCRIPTION.as_str()
            },
            input_schema: if dialect == "filekit" {
                &EDIT_SCHEMA
            } else {
                &SEED_EDIT_SCHEMA
            },
            read_only: false,
            destructive: true,
            idempotent: false,
            run: if dialect == "filekit" {
                file_edit::<Curated>
            } else {
                file_edit::<Seed>
            },
            reject: if dialect == "filekit" {
                rejected::<Curated>
            } else {
                rejected::<Seed>
            },
            guide: if dialect == "filekit" {
                CURATED_EDIT_GUIDE.as_str()
            } else {
                ""
            },
            reply: crate::ReplySchema::Typed(if dialect == "filekit" {
                edit_schema::<Curated>
            } else {
                edit_schema::<Seed>
            }),
        },
    ]
}

pub(crate) use filekit_refactor::source::{Source, load, load_in};

/// A parsed file, whichever parser its type takes.
enum Parsed<'t> {
    Code(Code<'t>),
    Json(JsonDoc<'t>),
    Jsonl(JsonlDoc<'t>),
    Markdown(&'t str),
    Yaml(YamlDoc<'t>),
    Html(HtmlDoc<'t>),
    Xml(XmlDoc<'t>),
}

/// The parser of a file its name does not give one: what its content is. With a `query`
/// named (`xpath`, ...), the content must be a kind that query reads; otherwise any document
/// kind. Refused with what the content is.
fn lang_of_content(file: &str, text: &str, query: Option<Query>) -> Result<Lang, FkError> {
    let lang = match query {
        Some(q) => kind::parse_as(q, text),
        None => kind::content_kind(text),
    };
    if let Some(lang) = lang {
        return Ok(lang);
    }
    let is = kind::describe(text);
    let message = match query {
        Some(q) => format!(
            "{file}: `{}` reads {}, and this file's content is {is}",
            query_arg(q),
            q.reads()
        ),
        None => format!(
            "{file}: semantic targeting reads code and documents, and this file's content is {is}"
        ),
    };
    let hint = match kind::content_kind(text) {
        Some(other) => format!("name its targets with `{}`", other.target_type()),
        None => format!(
            "by extension: {SUPPORTED}; other files by their content (XML, HTML, JSON, YAML, Markdown). Read this one by line range (read_files)"
        ),
    };
    Err(FkError::invalid(message).with_hint(hint))
}

fn query_arg(q: Query) -> &'static str {
    match q {
        Query::Selector => "selector",
        Query::XPath => "xpath",
        Query::Path => "path",
        Query::Heading => "heading",
    }
}

fn parse_file<'t>(lang: Lang, text: &'t str) -> Result<Parsed<'t>, FkError> {
    Ok(match lang {
        Lang::Json => Parsed::Json(JsonDoc::parse(text)?),
        Lang::Jsonl => Parsed::Jsonl(JsonlDoc::parse(text)?),
        Lang::Markdown => Parsed::Markdown(text),
        Lang::Yaml => Parsed::Yaml(YamlDoc::parse(text)?),
        Lang::Html => Parsed::Html(HtmlDoc::parse(text)?),
        Lang::Xml => Parsed::Xml(XmlDoc::parse(text)?),
        _ => Parsed::Code(Code::parse(lang, text)?),
    })
}

/// The targets a string names in a parsed file: one symbol or section, or every JSONPath
/// match.
fn locate(parsed: &Parsed, target: &str) -> Result<Vec<Found>, FkError> {
    Ok(match parsed {
        Parsed::Code(c) => vec![c.find(target)?],
        Parsed::Json(j) => j.query(target)?.into_iter().map(|m| m.found).collect(),
        Parsed::Jsonl(j) => j.query(target)?.into_iter().map(|(_, m)| m.found).collect(),
        Parsed::Markdown(t) => vec![markdown::find(t, target)?],
        Parsed::Yaml(y) => y.query(target)?.into_iter().map(|m| m.found).collect(),
        Parsed::Html(h) => h.select(target)?,
        Parsed::Xml(x) => x.query(target)?,
    })
}

/// [`locate`], with where a JSON object member's key starts: the semantic table's design's JSON path read gives
/// the range of `"scripts": {...}` from its key (line 8, column 2), the content its value.
fn locate_keyed(parsed: &Parsed, target: &str) -> Result<Vec<(Found, Option<usize>)>, FkError> {
    Ok(match parsed {
        Parsed::Json(j) => j
            .query(target)?
            .into_iter()
            .map(|m| {
                let key = m
                    .member
                    .as_ref()
                    .map(|r| r.start)
                    .filter(|s| *s < m.found.range.start);
                (m.found, key)
            })
            .collect(),
        _ => locate(parsed, target)?
            .into_iter()
            .map(|f| (f, None))
            .collect(),
    })
}

// ---------------------------------------------------------------------------------------------
// file_read

/// What the curated table lists; its guide is [`READ_DESCRIPTION`], the `semantic` table's.
const CURATED_READ_DESCRIPTION: &str = "\
Read part of a file by what it is, not by line numbers: a code symbol (`symbol`: \"UserService.findById\"; TS/JS, Python, Rust, Go, Java), a JSON or YAML value (`path`: a JSONPath like \"$.scripts.build\"), a CSS rule or HTML element (`selector`), an XML node (`xpath`), a Markdown section (`heading`), or the file's outline (`format`: \"summary\"). A target not found lists the nearest ones.

Example: {\"file\": \"src/user.ts\", \"symbol\": \"UserService.findById\"}";

const READ_DESCRIPTION: &str = "\
Read part of a file by what it is instead of by line numbers: a code symbol, a JSON or YAML \
value, an HTML or XML element, a CSS rule, a Markdown section, or a file's outline.

Name the target by file type: `symbol` (TS/TSX/JS, Python, Rust, Go, Java: \"UserService\", \
\"UserService.findById\", a unique last name like \"findById\"), `symbols` (several), `path` \
(JSON/JSONC/JSONL/YAML: RFC 9535 JSONPath like \"$.scripts.build\"; every match comes back), `selector` \
(CSS/SCSS/LESS: \".button\", \"@media screen\"; HTML: CSS selectors like \"#main > p.note\", \
\"li:nth-child(2)\"), `xpath` (XML, SVG, XSD, XAML, .csproj: XPath 1.0 like \"//dependency[@id='x']\", \
\"//item/@name\"; a default namespace is the prefix d: \"//d:rect\"), `heading` \
(Markdown: \"Installation\" or \"## Installation\"; a section runs to the next heading of the \
same or a higher level). `format`: full (default), signature, body, or summary (an outline: \
every symbol with kind, signature and lines; without a target, of the whole file). `region`: \
\"imports\" or \"exports\". `around`: {target, context} reads a target with N lines around it. \
Replies give content, range (1-based lines, 0-based columns), kind, signature and, for code, \
`dependencies` (the imports the symbol uses). A target that is not found lists the nearest \
available ones.

Example: {\"file\": \"src/user.ts\", \"symbol\": \"UserService.findById\"}";

/// `file_read`'s arguments, named in snake_case (the curated table's spelling; the `semantic`
/// table spells them in camelCase, see [`Spelling`]).
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ReadArgs {
    /// Path to the file (relative to the first workspace root, or absolute inside a root).
    pub(crate) file: String,
    /// Code: a symbol path, "ClassName" or "ClassName.method".
    pub(crate) symbol: Option<String>,
    /// Code: several symbols.
    pub(crate) symbols: Option<Vec<String>>,
    /// JSON/JSONC/JSONL/YAML: an RFC 9535 JSONPath, "$.dependencies".
    pub(crate) path: Option<String>,
    /// CSS/SCSS/LESS: a rule's selector (\".button\") or an at-rule (\"@media screen\"); HTML: a CSS selector (\"#main > p.note\").
    pub(crate) selector: Option<String>,
    /// XML (SVG, XSD, XAML, .csproj, ...): an XPath 1.0 expression (\"//dep[@id='a']\"); a default namespace is the prefix d.
    pub(crate) xpath: Option<String>,
    /// Markdown: a heading's text, with or without its #s.
    pub(crate) heading: Option<String>,
    /// Read a target with `context` lines before and after it.
    pub(crate) around: Option<Around>,
    /// A structural region: "imports" or "exports".
    pub(crate) region: Option<String>,
    /// "full" (default), "signature", "body" or "summary" (outline).
    pub(crate) format: Option<Format>,
    /// Include kind, signature and dependencies (default true).
    pub(crate) include_metadata: Option<bool>,
    /// Return at most this many lines of content.
    pub(crate) max_lines: Option<usize>,
    /// The file's encoding when detection gets it wrong: a WHATWG label ("shift_jis").
    pub(crate) encoding: Option<EncodingLabel>,
}

#[derive(Deserialize, JsonSchema)]
pub(crate) struct Around {
    /// The symbol, path or heading to read around.
    pub(crate) target: String,
    /// Lines of context before and after (default 3).
    pub(crate) context: Option<usize>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Format {
    Full,
    Signature,
    Body,
    Summary,
}

static READ_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<ReadArgs>);
static SEED_READ_SCHEMA: LazyLock<Value> = LazyLock::new(|| seed_arguments(&READ_SCHEMA));

/// The last line a range covers, for people: a range that ends with its line's newline ends
/// on that line, not at the start of the next.
fn last_line(text: &str, lines: &Lines, r: &std::ops::Range<usize>) -> usize {
    let end = if r.end > r.start && text[..r.end].ends_with('\n') {
        r.end - 1
    } else {
        r.end
    };
    lines.position(end).line
}

/// Bytes `r` widened to whole lines, `context` more on each side.
fn with_context(text: &str, r: &std::ops::Range<usize>, context: usize) -> std::ops::Range<usize> {
    let mut s = r.start;
    s = text[..s].rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..context {
        if s == 0 {
            break;
        }
        s = text[..s - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    let mut e = r.end;
    for _ in 0..=context {
        match text[e..].find('\n') {
            Some(i) => e += i + 1,
            None => {
                e = text.len();
                break;
            }
        }
    }
    s..e
}

fn file_read<S: Spelling>(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let schema = if S::CAMEL {
        &*SEED_READ_SCHEMA
    } else {
        &*READ_SCHEMA
    };
    let args: ReadArgs = S::parse("file_read", schema, args)?;
    read_with::<S>(ws, args)
}

/// `file_read` with its arguments parsed.
pub(crate) fn read_with<S: Spelling>(ws: &Call, args: ReadArgs) -> Result<ToolReply, FkError> {
    let failed = |file: &str, err: &FkError| failed::<S>(file, err, false);
    // The sandbox speaks first: a path outside the roots is refused as such, whatever its type.
    ws.resolve(&args.file)?;
    let encoding = args.encoding.as_ref().map(|e| e.0);
    let named = [
        (Query::XPath, args.xpath.is_some()),
        (Query::Selector, args.selector.is_some()),
        (Query::Path, args.path.is_some()),
        (Query::Heading, args.heading.is_some()),
    ]
    .into_iter()
    .find_map(|(q, given)| given.then_some(q));
    let mut read_first = None;
    let lang = match (Lang::of_path(&args.file), named) {
        (Ok(lang), _) => lang,
        (Err(err), None) => return Err(err),
        (Err(_), Some(query)) => {
            let src = match load_in(ws, &args.file, encoding) {
                Ok(s) => s,
                Err(err) => return Ok(failed(&args.file, &err)),
            };
            let lang = lang_of_content(&args.file, &src.0.text, Some(query))?;
            read_first = Some(src);
            lang
        }
    };
    let format = args.format.unwrap_or(Format::Full);
    let around_context = args.around.as_ref().map(|a| a.context.unwrap_or(3));
    let targets = read_targets(&args, lang, format)?;
    let meta = args.include_metadata.unwrap_or(true);

    let (src, file_encoding) =
        match read_first.map_or_else(|| load_in(ws, &args.file, encoding), Ok) {
            Ok(s) => s,
            Err(err) => return Ok(failed(&args.file, &err)),
        };
    let text = src.text.as_str();
    let lines_of = Lines::new(text);
    let parsed = match parse_file(lang, text) {
        Ok(p) => p,
        Err(err) => return Ok(failed(&args.file, &err)),
    };

    if format == Format::Summary {
        return Ok(outline_reply::<S>(
            &args, &parsed, text, &lines_of, &targets,
        ));
    }

    let mut found: Vec<(&str, String, Found)> = Vec::new();
    if let Some(region) = &args.region {
        let Parsed::Code(c) = &parsed else {
            return Err(FkError::invalid("`region` is for code files")
                .with_hint("read JSON by path and Markdown by heading"));
        };
        match c.region(region) {
            Ok(list) if list.is_empty() => {
                return Ok(failed(
                    &args.file,
                    &FkError::new(
                        ErrorCode::NotFound,
                        format!("{} has no {region}", args.file),
                    ),
                ));
            }
            Ok(list) => found.extend(list.into_iter().map(|f| ("region", region.clone(), f))),
            Err(err) => return Err(err),
        }
    }
    let mut key_starts: std::collections::HashMap<usize, Option<usize>> = Default::default();
    for (ty, t) in &targets {
        match locate_keyed(&parsed, t) {
            Ok(list) => found.extend(list.into_iter().map(|(f, key)| {
                key_starts.insert(f.range.start, key);
                (*ty, t.clone(), f)
            })),
            Err(err) => return Ok(failed(&args.file, &err)),
        }
    }

    // Nested targets overlap (every level of a nested structure holds the ones below): what
    // they take together is bounded before any of it is copied.
    let mut budget = filekit_semantic::bounds::ResultBudget::default();
    for (_, _, f) in &found {
        let size = match (format, around_context) {
            (_, Some(ctx)) => with_context(text, &f.range, ctx).len(),
            (Format::Signature, _) => f.signature.as_ref().map_or(f.range.len(), String::len),
            (Format::Body, _) => f.body.as_ref().map_or(0, |b| b.len()),
            _ => f.range.len(),
        };
        if let Err(err) = budget.spend(size + f.path.len(), "this read") {
            return Ok(failed(&args.file, &err));
        }
    }

    let mut results = Vec::new();
    let mut text_out = String::new();
    for (ty, value, f) in &found {
        let (range, content) = match (format, around_context) {
            (_, Some(ctx)) => {
                let r = with_context(text, &f.range, ctx);
                (r.clone(), text[r].to_string())
            }
            (Format::Signature, _) => (
                f.range.clone(),
                f.signature
                    .clone()
                    .unwrap_or_else(|| text[f.range.clone()].to_string()),
            ),
            (Format::Body, _) => {
                let Some(b) = f.body.clone() else {
                    return Ok(failed(
                        &args.file,
                        &FkError::invalid(format!("{} '{}' has no body", f.kind, f.path))
                            .with_hint("read it with format \"full\" or \"signature\""),
                    ));
                };
                (b.clone(), text[b].to_string())
            }
            _ => (f.range.clone(), text[f.range.clone()].to_string()),
        };
        // A JSON object member's range starts at its key (the semantic table's design's example), its content
        // is the value.
        let shown = match key_starts.get(&f.range.start) {
            Some(Some(key)) if range == f.range => *key..range.end,
            _ => range.clone(),
        };
        let (content, truncated) = cap_lines(&content, args.max_lines);
        let r = ReadResult {
            file: args.file.clone(),
            target: ReadTarget {
                kind: ty.to_string(),
                value: value.clone(),
            },
            content,
            range: Span::of(&lines_of, &shown),
            resolved: (f.path != *value && *ty != "region").then(|| f.path.clone()),
            kind: meta.then(|| f.kind.to_string()),
            signature: if meta { f.signature.clone() } else { None },
            dependencies: match &parsed {
                Parsed::Code(c) if meta => Some(
                    c.dependencies(f.range.clone())
                        .iter()
                        .map(Dependency::of)
                        .collect(),
                ),
                _ => None,
            },
            truncated,
            encoding: file_encoding,
        };
        let first_line = lines_of.position(range.start).line;
        // The numbered lines are the file's lines: the first keeps the indentation before the
        // target, as every other line keeps its own.
        let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let lead = &text[line_start..range.start];
        let lead = if lead.trim().is_empty() { lead } else { "" };
        text_out.push_str(&format!(
            "==> {} {ty} {} ({}, lines {}-{}{}) <==\n{}",
            args.file,
            f.path,
            f.kind,
            first_line,
            last_line(text, &lines_of, &range),
            file_encoding.map_or(String::new(), |e| format!(", {e}")),
            number_lines(&format!("{lead}{}", r.content), first_line)
        ));
        if !text_out.ends_with('\n') {
            text_out.push('\n');
        }
        results.push(r);
    }
    let value = if results.len() == 1 {
        ReadReply::One(results.pop().expect("one result"))
    } else {
        ReadReply::Many {
            file: args.file.clone(),
            results,
        }
    };
    Ok(S::reply(&value, false, text_out))
}

/// The targets a read names, checked against the file's language: each as its kind (the
/// argument's name, or the language's target type for `around`) and its value.
fn read_targets(
    args: &ReadArgs,
    lang: Lang,
    format: Format,
) -> Result<Vec<(&'static str, String)>, FkError> {
    let mut targets: Vec<(&'static str, String)> = Vec::new();
    let wrong_kind = |given: &str| {
        FkError::invalid(format!(
            "`{given}` does not apply to {}: name its targets with `{}`",
            args.file,
            lang.target_type()
        ))
    };
    if let Some(s) = &args.selector {
        if !matches!(lang, Lang::Css | Lang::Html) {
            return Err(wrong_kind("selector"));
        }
        targets.push(("selector", s.clone()));
    }
    if let Some(x) = &args.xpath {
        if lang != Lang::Xml {
            return Err(wrong_kind("xpath"));
        }
        targets.push(("xpath", x.clone()));
    }
    if let Some(s) = &args.symbol {
        if !lang.is_code() || lang == Lang::Css {
            return Err(wrong_kind("symbol"));
        }
        targets.push(("symbol", s.clone()));
    }
    for s in args.symbols.iter().flatten() {
        if !lang.is_code() || lang == Lang::Css {
            return Err(wrong_kind("symbols"));
        }
        targets.push(("symbol", s.clone()));
    }
    if let Some(p) = &args.path {
        if !matches!(lang, Lang::Json | Lang::Jsonl | Lang::Yaml) {
            return Err(wrong_kind("path"));
        }
        targets.push(("path", p.clone()));
    }
    if let Some(h) = &args.heading {
        if lang != Lang::Markdown {
            return Err(wrong_kind("heading"));
        }
        targets.push(("heading", h.clone()));
    }
    if let Some(a) = &args.around {
        if !targets.is_empty() {
            return Err(FkError::invalid(
                "give the target either in `around` or as symbol/path/heading, not both",
            ));
        }
        targets.push((lang.target_type(), a.target.clone()));
    }
    if targets.is_empty() && args.region.is_none() && format != Format::Summary {
        return Err(FkError::invalid(format!(
            "file_read: name a target of {}: `{}`, or `region`, or format \"summary\" for its outline",
            args.file,
            lang.target_type()
        ))
        .with_hint("to read the whole file or a line range, use read_files"));
    }
    if args.region.is_some() && !targets.is_empty() {
        return Err(FkError::invalid(
            "give either `region` or a target, not both",
        ));
    }
    Ok(targets)
}

/// The outline of a file, or of each target's descendants.
fn outline_reply<S: Spelling>(
    args: &ReadArgs,
    parsed: &Parsed,
    text: &str,
    lines_of: &Lines,
    targets: &[(&str, String)],
) -> ToolReply {
    let all = match outline(parsed) {
        Ok(all) => all,
        Err(err) => return failed::<S>(&args.file, &err, false),
    };
    let mut entries = Vec::new();
    let mut lines = String::new();
    let scopes: Vec<Option<Found>> = if targets.is_empty() {
        vec![None]
    } else {
        let mut v = Vec::new();
        for (_, t) in targets {
            match locate(parsed, t) {
                Ok(found) => v.extend(found.into_iter().map(Some)),
                Err(err) => return failed::<S>(&args.file, &err, false),
            }
        }
        v
    };
    for scope in &scopes {
        for f in all.iter().filter(|f| {
            scope.as_ref().is_none_or(|s| {
                f.range.start >= s.range.start && f.range.end <= s.range.end && f.path != s.path
            })
        }) {
            lines.push_str(&format!(
                "{}{} {} (lines {}-{}){}\n",
                "  ".repeat(f.depth),
                f.kind,
                f.path,
                lines_of.position(f.range.start).line,
                last_line(text, lines_of, &f.range),
                f.signature
                    .as_ref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            ));
            entries.push(OutlineEntry {
                name: f.path.clone(),
                kind: f.kind.to_string(),
                signature: f.signature.clone(),
                depth: f.depth,
                range: Span::of(lines_of, &f.range),
            });
        }
    }
    let (content, truncated) = cap_lines(&lines, args.max_lines);
    // The outline once: as lines in the text a model reads, as entries in the reply.
    let value = ReadReply::Outline {
        file: args.file.clone(),
        target: ReadTarget {
            kind: targets.first().map_or("file", |t| t.0).to_string(),
            value: targets.first().map_or(args.file.clone(), |t| t.1.clone()),
        },
        format: OutlineFormat::Summary,
        outline: entries,
        truncated,
    };
    let text_out = format!("==> {} outline <==\n{}", args.file, content);
    S::reply(&value, false, text_out)
}

/// The outline entries of a file: symbols, JSON keys (two levels), or sections.
fn outline(parsed: &Parsed) -> Result<Vec<Found>, FkError> {
    Ok(match parsed {
        Parsed::Code(c) => c.symbols()?,
        Parsed::Markdown(t) => markdown::sections(t),
        Parsed::Yaml(y) => y.outline(),
        Parsed::Html(h) => h.outline()?,
        Parsed::Xml(x) => x.outline()?,
        Parsed::Jsonl(j) => j.outline(),
        Parsed::Json(j) => j.outline()?,
    })
}

fn cap_lines(content: &str, max: Option<usize>) -> (String, bool) {
    match max {
        Some(n) if content.lines().count() > n => {
            (content.split_inclusive('\n').take(n).collect(), true)
        }
        _ => (content.to_string(), false),
    }
}

// ---------------------------------------------------------------------------------------------
// file_edit

/// What the curated table lists; its guide is [`EDIT_DESCRIPTION`], the `semantic` table's.
/// The refactor kinds are listed from the refactor layer's table (`kinds_described`).
static CURATED_EDIT_DESCRIPTION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{CURATED_EDIT_HEAD}Refactors: `refactor` instead of `target`: {}. Every file changes or none; undo reverts it all.{CURATED_EDIT_END}",
        crate::refactor_mode::kinds_described::<Curated>(false)
    )
});

const CURATED_EDIT_HEAD: &str = "\
Edit a file by what it is, not by line numbers. `target` names a code symbol (\"UserService.findById\"), a JSONPath, a CSS selector, an XPath or a Markdown heading; `operation` is replace, replace_body, insert_before, insert_after, insert_into (`position`), wrap (`wrapper`) or delete; `content` is indented to its place for you. Several targets of one file go in `edits`, applied together. A result that would not parse is refused unless `force`. `dry_run` writes nothing; `preview` writes the edit too.

";

const CURATED_EDIT_END: &str = "

Example: {\"file\": \"src/utils.ts\", \"target\": \"calculateTotal\", \"operation\": \"replace_body\", \"content\": \"return items.reduce((s, i) => s + i.price, 0);\"}";

/// The `semantic` table's description, the long form of the curated one.
static EDIT_DESCRIPTION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{EDIT_HEAD}Refactor mode: `refactor` instead of `target`. Each kind is done without a \
language server, on the syntax trees, for the languages named (reply `precision`: \"syntactic\"); \
the language server named does it instead (\"semantic\") when filekit was started with \
--trust-workspace (a language server runs the workspace's code) and the server is on PATH. \
`selectionRange` is {{startLine, startColumn, endLine, endColumn}}: 1-based lines, 0-based \
columns, end exclusive. {}. Every file changes together or none does; undo reverts the whole \
refactor.{EDIT_END}",
        crate::refactor_mode::kinds_described::<Seed>(true)
    )
});

const EDIT_HEAD: &str = "\
Edit a file by what it is instead of by line numbers: replace a function, replace its body, \
add a method to a class, set a JSON value, rewrite a Markdown section.

`target` names what to edit, by file type: a code symbol (\"UserService.findById\"), a \
JSONPath (\"$.scripts.build\", JSON/YAML: every match is edited), a CSS selector (CSS rules, HTML \
elements: every match), an XPath 1.0 (XML elements, attributes, text: every match), or a Markdown \
heading. For HTML/XML, replace_body sets an element's content (an attribute's value), insert_into \
adds a child. `operation`: replace, replace_body, \
insert_before, insert_after, insert_into (a member into a class, object, array or section; \
`position` first, last (default) or sorted), wrap (`wrapper`: {before, after}), delete. \
`content` is indented to its place: send it indented any way. Several targets of one file go \
in `edits` (a list of {target, operation, content?, wrapper?, position?}), applied together or \
not at all. A result that would no longer parse is refused with the error's line and column \
unless `force` is true. `dryRun` shows the diff and writes nothing; `preview` writes the \
edit too (it only adds the old/new text to the reply).

";

const EDIT_END: &str = "

Example: {\"file\": \"src/utils.ts\", \"target\": \"calculateTotal\", \"operation\": \"replace_body\", \"content\": \"return items.reduce((s, i) => s + i.price, 0);\"}
Refactor: {\"file\": \"src/user.ts\", \"refactor\": \"rename_symbol\", \"symbol\": \"UserService\", \"newName\": \"AuthService\"}";

/// `file_edit`'s arguments, named in snake_case like [`ReadArgs`].
#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// The file to edit.
    file: Option<String>,
    /// What to edit: a symbol ("Class.method"), a JSONPath ("$.a.b", JSON and YAML), a CSS selector (CSS, HTML), an XPath (XML) or a heading.
    target: Option<String>,
    /// replace, replace_body, insert_before, insert_after, insert_into, wrap or delete.
    operation: Option<OpName>,
    /// The new text for replace, replace_body and the inserts.
    content: Option<String>,
    /// For wrap: the text to put before and after the target.
    wrapper: Option<Wrapper>,
    /// For insert_into: "first", "last" (default) or "sorted".
    position: Option<PositionName>,
    /// Several edits of the same file, applied together or not at all.
    edits: Option<Vec<EditSpec>>,
    /// Refactor mode: the refactor to run, on the syntax trees without a language server (the
    /// description says for which languages), by the file's language server in a trusted
    /// workspace.
    refactor: Option<crate::refactor_mode::RefactorName>,
    /// rename_symbol: the symbol to rename ("UserService"; with a server also "Class.method").
    symbol: Option<String>,
    /// rename_symbol: the new name.
    new_name: Option<String>,
    /// rename_symbol: "workspace" (default: the files that import it change too) or "file".
    scope: Option<String>,
    /// The range a refactor works on (extract, inline, convert, add_import), or for
    /// rename_symbol the position of the name: 1-based lines, 0-based columns, end exclusive.
    selection_range: Option<crate::refactor_mode::SelectionRange>,
    /// Extract refactors: the name of the extracted function, constant or type.
    extracted_name: Option<String>,
    /// extract_type: declare a `type` alias (default) or, for an object type, an `interface`.
    type_kind: Option<TypeKindName>,
    /// extract_variable, extract_constant: replace every identical occurrence in the same
    /// scope too (default false: the selected one only).
    replace_all: Option<bool>,
    /// add_import: the module to import from ("./util", "@app/util", "rxjs", ".models"),
    /// one of the candidates a call without it listed.
    module: Option<String>,
    /// extract_function, extract_method, extract_variable, extract_constant in TS: write a
    /// parameter whose type cannot be known without a type, even where the project's
    /// tsconfig (`strict`, `noImplicitAny`) refuses that (default false: refused, naming it).
    untyped_parameters: Option<bool>,
    /// Compute the change and its diff; write nothing.
    dry_run: Option<bool>,
    /// Writes the edit and also returns the old and new text of each change; to see a
    /// change without writing it, use dry_run.
    preview: Option<bool>,
    /// Write even if the result no longer parses.
    force: Option<bool>,
    /// The file's encoding when detection gets it wrong: a WHATWG label ("shift_jis").
    encoding: Option<EncodingLabel>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum TypeKindName {
    Type,
    Interface,
}

#[derive(Deserialize, JsonSchema)]
struct EditSpec {
    target: String,
    operation: OpName,
    content: Option<String>,
    wrapper: Option<Wrapper>,
    position: Option<PositionName>,
}

#[derive(Deserialize, JsonSchema, Clone)]
struct Wrapper {
    before: String,
    after: String,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum OpName {
    Replace,
    ReplaceBody,
    InsertBefore,
    InsertAfter,
    InsertInto,
    Wrap,
    Delete,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum PositionName {
    First,
    Last,
    Sorted,
}

static EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<EditArgs>);
static SEED_EDIT_SCHEMA: LazyLock<Value> = LazyLock::new(|| seed_arguments(&EDIT_SCHEMA));

/// The long forms the curated table's tools refer to: the `semantic` table's descriptions with
/// the argument names in the curated spelling.
static CURATED_READ_GUIDE: LazyLock<String> =
    LazyLock::new(|| respell(READ_DESCRIPTION, &argument_names(&READ_SCHEMA), false));
static CURATED_EDIT_GUIDE: LazyLock<String> =
    LazyLock::new(|| respell(&EDIT_DESCRIPTION, &argument_names(&EDIT_SCHEMA), false));

/// The `semantic` table's schema of arguments: the curated one's in camelCase, names and the
/// descriptions that mention them alike.
fn seed_arguments(curated: &Value) -> Value {
    fn describe(node: &mut Value, names: &[String]) {
        match node {
            Value::Object(obj) => {
                for (k, v) in obj.iter_mut() {
                    match v {
                        Value::String(text) if k == "description" => {
                            *text = respell(text, names, true);
                        }
                        v => describe(v, names),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| describe(v, names)),
            _ => {}
        }
    }
    let mut schema = Seed::schema(curated.clone());
    describe(&mut schema, &argument_names(curated));
    schema
}

/// The snake_case names of the arguments `schema` declares, at any depth, that camelCase
/// spells otherwise.
fn argument_names(schema: &Value) -> Vec<String> {
    fn names(node: &Value, out: &mut Vec<String>) {
        match node {
            Value::Object(obj) => {
                if let Some(Value::Object(props)) = obj.get("properties") {
                    out.extend(props.keys().filter(|k| k.contains('_')).cloned());
                }
                obj.values().for_each(|v| names(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| names(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    names(schema, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// `text` with each of the argument `names` (snake_case) spelled in camelCase (`to_camel`) or
/// back, as whole words.
fn respell(text: &str, names: &[String], to_camel: bool) -> String {
    let mut out = text.to_string();
    for name in names {
        let camel = crate::reply::camel(name);
        let (from, to) = if to_camel {
            (name.as_str(), camel.as_str())
        } else {
            (camel.as_str(), name.as_str())
        };
        out = replace_word(&out, from, to);
    }
    out
}

/// `text` with every whole-word `from` (no word character either side, as a regex's `\b`
/// says for an identifier) replaced by `to`. By hand, not a regex: every start of the binary
/// builds the tables' descriptions, and compiling a Unicode `\b` regex per argument name cost
/// half a second per start of a debug build.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(from) {
        let end = at + from.len();
        if is_word(text[..at].chars().next_back()) || is_word(text[end..].chars().next()) {
            continue;
        }
        out.push_str(&text[copied..at]);
        out.push_str(to);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// One edit, checked: the operation with its arguments.
struct Planned {
    target: String,
    op: Operation,
    content: String,
}

/// Which edit of a call a message is about, as the model counts them: nothing for a call of
/// one edit (`target` + `operation`), `edit 2 (edits[1]): ` in a list of `edits` (counted
/// from 1, with the 0-based index of the JSON array beside it).
fn edit_label(index: usize, listed: bool) -> String {
    if listed {
        format!("edit {} (edits[{index}]): ", index + 1)
    } else {
        String::new()
    }
}

fn to_planned(spec: EditSpec, index: usize, listed: bool) -> Result<Planned, FkError> {
    let label = edit_label(index, listed);
    let which = |msg: String| FkError::invalid(format!("{label}{msg}"));
    let needs_content = !matches!(spec.operation, OpName::Delete | OpName::Wrap);
    if needs_content && spec.content.is_none() {
        return Err(which("this operation needs `content`".into())
            .with_hint("give the new text in `content` (it is indented to its place)"));
    }
    if spec.position.is_some() && !matches!(spec.operation, OpName::InsertInto) {
        return Err(which("`position` is only for insert_into".into()));
    }
    let op = match spec.operation {
        OpName::Replace => Operation::Replace,
        OpName::ReplaceBody => Operation::ReplaceBody,
        OpName::InsertBefore => Operation::InsertBefore,
        OpName::InsertAfter => Operation::InsertAfter,
        OpName::InsertInto => Operation::InsertInto(match spec.position {
            Some(PositionName::First) => Position::First,
            Some(PositionName::Sorted) => Position::Sorted,
            _ => Position::Last,
        }),
        OpName::Delete => Operation::Delete,
        OpName::Wrap => {
            let w = spec.wrapper.ok_or_else(|| {
                which("wrap needs `wrapper`: {before, after}".into()).with_hint(
                    "e.g. {\"before\": \"try {\", \"after\": \"} catch (e) { log(e); }\"}",
                )
            })?;
            Operation::Wrap {
                before: w.before,
                after: w.after,
            }
        }
    };
    Ok(Planned {
        target: spec.target,
        op,
        content: spec.content.unwrap_or_default(),
    })
}

fn file_edit<S: Spelling>(ws: &Call, args: Value) -> Result<ToolReply, FkError> {
    let failed = |file: &str, err: &FkError| failed::<S>(file, err, false);
    let schema = if S::CAMEL {
        &*SEED_EDIT_SCHEMA
    } else {
        &*EDIT_SCHEMA
    };
    let args: EditArgs = S::parse("file_edit", schema, args)?;
    let given = Given {
        symbol: args.symbol,
        new_name: args.new_name,
        scope: crate::refactor_mode::scope(args.scope.as_deref())?,
        selection: args.selection_range.map(Selection::from),
        extracted_name: args.extracted_name,
        type_kind: args.type_kind.map(|k| match k {
            TypeKindName::Type => TypeKind::Alias,
            TypeKindName::Interface => TypeKind::Interface,
        }),
        replace_all: args.replace_all.unwrap_or(false),
        module: args.module,
        untyped_parameters: args.untyped_parameters.unwrap_or(false),
    };
    if let Some(RefactorName(kind)) = args.refactor {
        let direct = [
            ("target", args.target.is_some()),
            ("operation", args.operation.is_some()),
            ("content", args.content.is_some()),
            ("edits", args.edits.is_some()),
            ("wrapper", args.wrapper.is_some()),
            ("position", args.position.is_some()),
            ("force", args.force.is_some()),
            ("encoding", args.encoding.is_some()),
        ];
        if let Some((name, _)) = direct.iter().find(|(_, given)| *given) {
            return Err(FkError::invalid(format!(
                "`{name}` belongs to the direct-edit mode; a refactor takes {}",
                crate::refactor_mode::arg_names::<S>().join(", ")
            )));
        }
        let file = args.file.clone().ok_or_else(|| {
            FkError::invalid("file_edit: `file` is missing").with_hint("name the file to refactor")
        })?;
        let refactor = crate::refactor_mode::checked::<S>(kind, &file, given)?;
        return crate::refactor_mode::run::<S>(
            ws,
            crate::refactor_mode::Request {
                file,
                refactor,
                dry_run: args.dry_run.unwrap_or(false),
                preview: args.preview.unwrap_or(false),
            },
        );
    }
    // A switch belongs to the refactor mode even when it is off.
    let refactor_arg = Arg::ALL.into_iter().find(|a| match a {
        Arg::ReplaceAll => args.replace_all.is_some(),
        Arg::UntypedParameters => args.untyped_parameters.is_some(),
        _ => given.has(*a),
    });
    if let Some(arg) = refactor_arg {
        return Err(FkError::invalid(format!(
            "`{}` belongs to the refactor mode: give `refactor` too",
            crate::refactor_mode::arg_name::<S>(arg)
        ))
        .with_hint(format!("refactors: {}", Kind::NAMES.join(", "))));
    }
    let file = args.file.clone().ok_or_else(|| {
        FkError::invalid("file_edit: `file` is missing").with_hint("name the file to edit")
    })?;
    // The sandbox and the write policy (.filekit/, .git/, read-only) speak first.
    let resolved = ws.resolve(&file)?;
    if args.dry_run != Some(true) {
        ws.check_writable(&resolved)?;
    }
    let by_name = Lang::of_path(&file);
    let edits_given = args.edits.is_some();
    let specs: Vec<EditSpec> = match (args.edits, args.target) {
        (Some(_), Some(_)) => {
            return Err(FkError::invalid("give either `target` + `operation` or `edits`, not both"));
        }
        (Some(e), None) if e.is_empty() => return Err(FkError::invalid("`edits` is empty")),
        (Some(e), None) => e,
        (None, Some(target)) => vec![EditSpec {
            target,
            operation: args.operation.ok_or_else(|| {
                FkError::invalid("file_edit: `operation` is missing").with_hint(
                    "operations: replace, replace_body, insert_before, insert_after, insert_into, wrap, delete",
                )
            })?,
            content: args.content,
            wrapper: args.wrapper,
            position: args.position,
        }],
        (None, None) => {
            let what = by_name.as_ref().map_or("symbol, path, selector, xpath or heading", |l| {
                l.target_type()
            });
            return Err(FkError::invalid("file_edit: `target` is missing")
                .with_hint(format!("name what to edit: a {what} of {file}")));
        }
    };
    let listed = specs.len() > 1 || edits_given;
    let planned: Vec<Planned> = specs
        .into_iter()
        .enumerate()
        .map(|(i, s)| to_planned(s, i, listed))
        .collect::<Result<_, _>>()?;
    let dry_run = args.dry_run.unwrap_or(false);
    let preview = args.preview.unwrap_or(false);

    let encoding = args.encoding.map(|e| e.0);
    let src = match load_in(ws, &file, encoding) {
        Ok((s, _)) => s,
        Err(err) => return Ok(failed(&file, &err)),
    };
    let lang = match by_name {
        Ok(lang) => lang,
        Err(_) => lang_of_content(&file, &src.text, None)?,
    };
    match plan_edits(lang, &src.text, &planned, args.force.unwrap_or(false)) {
        Ok(splices) => Ok(write::<S>(
            ws,
            &file,
            &src,
            &planned,
            splices,
            Written {
                dry_run,
                preview,
                encoding,
            },
        )),
        Err(err) => Ok(failed(&file, &err)),
    }
}

/// The splices of every edit (in source order, each with its edit's index), refused when two
/// overlap or when the result no longer parses where the original did (unless `force`).
fn plan_edits(
    lang: Lang,
    text: &str,
    planned: &[Planned],
    force: bool,
) -> Result<Vec<(usize, Splice)>, FkError> {
    let parsed = parse_file(lang, text)?;
    let unit = style::indent_unit(text, lang.default_indent());
    let mut splices = Vec::new();
    for (i, p) in planned.iter().enumerate() {
        let in_edit = |e: FkError| {
            if planned.len() > 1 {
                FkError {
                    message: format!("edit {} ({}): {}", i + 1, p.target, e.message),
                    ..e
                }
            } else {
                e
            }
        };
        match &parsed {
            Parsed::Json(doc) => {
                let matches = doc.query(&p.target).map_err(in_edit)?;
                for m in &matches {
                    splices.push((i, doc.plan(m, &p.op, &p.content, &unit).map_err(in_edit)?));
                }
            }
            Parsed::Yaml(doc) => {
                for m in &doc.query(&p.target).map_err(in_edit)? {
                    splices.push((i, doc.plan(m, &p.op, &p.content, &unit).map_err(in_edit)?));
                }
            }
            Parsed::Html(doc) => {
                for f in &doc.select(&p.target).map_err(in_edit)? {
                    splices.push((i, doc.plan(f, &p.op, &p.content, &unit).map_err(in_edit)?));
                }
            }
            Parsed::Xml(doc) => {
                for f in &doc.query(&p.target).map_err(in_edit)? {
                    splices.push((i, doc.plan(f, &p.op, &p.content, &unit).map_err(in_edit)?));
                }
            }
            Parsed::Jsonl(doc) => {
                for (record, m) in doc.query(&p.target).map_err(in_edit)? {
                    splices.push((i, doc.plan(record, &m, &p.op, &p.content).map_err(in_edit)?));
                }
            }
            Parsed::Code(c) => {
                let f = c.find(&p.target).map_err(in_edit)?;
                // Only insert_into looks at the members (a second walk of the whole file).
                let members: Vec<Found> = if matches!(p.op, Operation::InsertInto(_)) {
                    c.symbols()
                        .map_err(in_edit)?
                        .into_iter()
                        .filter(|m| {
                            m.depth == f.depth + 1
                                && m.range.start >= f.range.start
                                && m.range.end <= f.range.end
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let style = if lang == Lang::Python {
                    BodyStyle::Block
                } else {
                    BodyStyle::Braced
                };
                splices.push((
                    i,
                    ops::plan(text, &f, &p.op, &p.content, style, &members, &unit)
                        .map_err(in_edit)?,
                ));
            }
            Parsed::Markdown(t) => {
                let f = markdown::find(t, &p.target).map_err(in_edit)?;
                let members: Vec<Found> = markdown::sections(t)
                    .into_iter()
                    .filter(|m| {
                        m.depth == f.depth + 1
                            && m.range.start >= f.range.start
                            && m.range.end <= f.range.end
                    })
                    .collect();
                splices.push((
                    i,
                    ops::plan(
                        text,
                        &f,
                        &p.op,
                        &p.content,
                        BodyStyle::Section,
                        &members,
                        "",
                    )
                    .map_err(in_edit)?,
                ));
            }
        }
    }
    // The file's own line ending for every inserted line.
    if text.contains("\r\n") {
        for (_, s) in &mut splices {
            s.text = s.text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
    }
    let (splices, checked) = ops::order(text, splices).map_err(|e| overlap_in_words(e, planned))?;
    if !force {
        let was_ok = match &parsed {
            Parsed::Code(c) => c.syntax_error().is_none(),
            Parsed::Html(_) => filekit_documents::html::check(text).is_none(),
            _ => true,
        };
        let new_text = checked.apply(text)?;
        let err = match &parsed {
            Parsed::Code(c) => c
                .reparse(&new_text, &checked)
                .map_or_else(Some, |edited| edited.syntax_error()),
            Parsed::Json(_) => filekit_documents::json::check(&new_text),
            Parsed::Jsonl(_) => JsonlDoc::check(&new_text),
            Parsed::Markdown(_) => None,
            Parsed::Yaml(_) => filekit_documents::yaml::check(&new_text),
            Parsed::Html(_) => filekit_documents::html::check(&new_text),
            Parsed::Xml(_) => filekit_documents::xml::check(&new_text),
        };
        if let Some(err) = err.as_ref().filter(|e| e.code == ErrorCode::TooLarge) {
            // The result parses, but deeper than semantic targeting reads.
            return Err(err.clone().with_hint(
                "nothing was written; write less deeply nested content, or pass force: true to write it anyway",
            ));
        }
        if let (true, Some(err)) = (was_ok, err) {
            return Err(FkError {
                message: format!("the edited file would not parse: {}", err.message),
                hint: Some(
                    "nothing was written; fix `content`, or pass force: true to write it anyway"
                        .into(),
                ),
                ..err
            });
        }
    }
    Ok(splices)
}

/// Two changes that overlap, named as the model sent them: which edits (counted from 1, and
/// their targets), or one edit whose target matched overlapping places.
fn overlap_in_words(err: FkError, planned: &[Planned]) -> FkError {
    if err.fact() != Some(filekit_core::Fact::EditsOverlap) {
        return err;
    }
    let at = |k: &str| err.details[k].as_u64().unwrap_or(0) as usize;
    let (a, b) = (at("conflicts_with"), at("edit"));
    let target = |i: usize| planned.get(i).map_or("", |p| p.target.as_str());
    let message = if a == b {
        format!(
            "`{}` matches places that overlap (one is inside another), so the edit would change \
             the same text twice",
            target(a)
        )
    } else {
        let (first, second) = (a.min(b), a.max(b));
        format!(
            "edit {} ({}) overlaps edit {} ({}): they change the same text",
            second + 1,
            target(second),
            first + 1,
            target(first)
        )
    };
    let hint = if a == b {
        "target the outer place once, or name each place on its own"
    } else {
        "edit the outer target once, or make two calls"
    };
    FkError {
        message,
        hint: Some(hint.to_string()),
        ..err
    }
}

/// How an edit of `file_edit` is written.
struct Written {
    dry_run: bool,
    preview: bool,
    /// The encoding the caller named for the file (else its own, detected).
    encoding: Option<&'static filekit_core::encoding::Encoding>,
}

fn write<S: Spelling>(
    ws: &Call,
    file: &str,
    src: &Source,
    planned: &[Planned],
    splices: Vec<(usize, Splice)>,
    how: Written,
) -> ToolReply {
    let Written {
        dry_run,
        preview,
        encoding,
    } = how;
    let text = src.text.as_str();
    let lines = Lines::new(text);
    let changes: Vec<Change<S::Place>> = splices
        .iter()
        .map(|(i, splice)| Change {
            kind: planned[*i].op.change_type(),
            range: Span::of(&lines, &(splice.start..splice.end)),
            // The diff says what each edit does; preview asks for the texts too.
            old_content: preview.then(|| text[splice.start..splice.end].to_string()),
            new_content: preview.then(|| splice.text.clone()),
        })
        .collect();
    let request = EditRequest::one_file(
        file,
        vec![Edit::Ranges {
            ranges: splices.into_iter().map(|(_, s)| s).collect(),
            content_hash: src.hash.clone(),
        }],
        EditOptions::builder()
            .dry_run(dry_run)
            .atomic(true)
            .encoding(encoding)
            .build(),
    );
    let report = ws.apply(request);
    let Some(fr) = report.files.first() else {
        let err = FkError::new(ErrorCode::Io, "the engine reported no file");
        return failed::<S>(file, &err, false);
    };
    if let Some(err) = shape::first_error(fr) {
        return failed::<S>(file, err, false);
    }
    let total = changes.len();
    let operation = if planned.len() == 1 {
        planned[0].op.name().to_string()
    } else {
        "batch".to_string()
    };
    let targets: Vec<&str> = planned.iter().map(|p| p.target.as_str()).collect();
    let verb = if dry_run { "Would apply" } else { "Applied" };
    let summary = if fr.status() == FileStatus::Unchanged {
        format!("{file}: the edit leaves the file as it was")
    } else {
        format!(
            "{verb} {operation} to {} in {file} ({total} edit{}, +{} -{} lines)",
            targets.join(", "),
            if total == 1 { "" } else { "s" },
            fr.lines_added,
            fr.lines_removed
        )
    };
    // A semantic edit is made without reading the lines it changes: its reply shows them.
    let (diff, cut) = shape::capped_diff(&fr.diff);
    let mut text_out = format!("{summary}\n{diff}");
    if let Some(entry) = report.history_entry {
        text_out.push_str(&format!("history_entry {entry}\n"));
    }
    let value = EditReply {
        success: true,
        operation: Some(operation),
        refactor: None,
        file: file.to_string(),
        targets: targets.iter().map(|t| t.to_string()).collect(),
        precision: None,
        server: None,
        action: None,
        symbol: None,
        new_name: None,
        files_affected: if fr.status() == FileStatus::Modified {
            vec![file.to_string()]
        } else {
            Vec::new()
        },
        total_edits: total,
        changes: if S::LISTS_CHANGES || preview {
            vec![FileChange {
                file: file.to_string(),
                edits: changes,
            }]
        } else {
            Vec::new()
        },
        summary,
        dry_run,
        content_hash: shape::current_hash(fr),
        encoding: fr.encoding,
        diff: Some(diff.to_string()),
        diff_note: cut,
        warnings: Vec::new(),
        history_entry: report.history_entry,
    };
    S::reply(&value, false, text_out)
}

#[cfg(test)]
mod respell_tests {
    #[test]
    fn only_whole_words_are_respelled() {
        let names = vec!["dry_run".to_string(), "start_line".to_string()];
        assert_eq!(
            super::respell(
                "`dry_run`, dry_runs, start_line_x; start_line.",
                &names,
                true
            ),
            "`dryRun`, dry_runs, start_line_x; startLine."
        );
        assert_eq!(
            super::respell("dryRun and dryRunning", &names, false),
            "dry_run and dryRunning"
        );
    }
}
