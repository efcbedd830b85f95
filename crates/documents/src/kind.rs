//! What kind of document a text is, for a file whose name does not say (`web.config`, a
//! `.nuspec`, a file with no extension): decided by parsing its content, never by a longer
//! list of extensions.

use crate::html::HtmlDoc;
use crate::json::{JsonDoc, JsonlDoc};
use crate::markdown;
use crate::xml::XmlDoc;
use crate::yaml::YamlDoc;
use filekit_semantic::Lang;

/// A query language a caller names a target in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// A CSS selector: HTML elements.
    Selector,
    /// XPath 1.0: XML.
    XPath,
    /// JSONPath: JSON, JSON Lines, YAML.
    Path,
    /// A Markdown heading.
    Heading,
}

impl Query {
    /// The kinds of text this query reads, as a message names them.
    pub fn reads(self) -> &'static str {
        match self {
            Query::Selector => "HTML",
            Query::XPath => "XML",
            Query::Path => "JSON or YAML",
            Query::Heading => "Markdown",
        }
    }
}

/// The parser `query` reads `text` with, when the text is a document that query reads.
pub fn parse_as(query: Query, text: &str) -> Option<Lang> {
    match query {
        Query::XPath => is_xml(text).then_some(Lang::Xml),
        Query::Selector => is_markup(text).then_some(Lang::Html),
        Query::Path => data_kind(text),
        Query::Heading => is_markdown(text).then_some(Lang::Markdown),
    }
}

/// The document kind `text` is, tried in an order where each test is strict enough not to
/// take the next kind's texts: markup first (XML when it is well-formed), then JSON, JSON
/// Lines, a YAML mapping or sequence, and Markdown with a heading. `None` for anything else.
pub fn content_kind(text: &str) -> Option<Lang> {
    if is_markup(text) {
        return Some(if is_xml(text) { Lang::Xml } else { Lang::Html });
    }
    data_kind(text).or_else(|| is_markdown(text).then_some(Lang::Markdown))
}

/// What `text` is, in a refusal's words ("its content is JSON").
pub fn describe(text: &str) -> &'static str {
    if text.trim().is_empty() {
        return "empty";
    }
    match content_kind(text) {
        Some(Lang::Xml) => "XML",
        Some(Lang::Html) => "markup that is not well-formed XML",
        Some(Lang::Json) => "JSON",
        Some(Lang::Jsonl) => "JSON Lines",
        Some(Lang::Yaml) => "YAML",
        Some(Lang::Markdown) => "Markdown",
        _ => "plain text, none of XML, HTML, JSON, YAML or Markdown",
    }
}

/// Text whose first character (after a byte order mark and white space) opens a tag.
fn is_markup(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
        && HtmlDoc::parse(text).is_ok()
}

fn is_xml(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
        && XmlDoc::parse(text).is_ok()
}

/// JSON, JSON Lines, or YAML holding a mapping or a sequence (a line of prose is a YAML
/// string too, and is not data).
fn data_kind(text: &str) -> Option<Lang> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with(['{', '[']) {
        if JsonDoc::parse(text).is_ok() {
            return Some(Lang::Json);
        }
        if JsonlDoc::parse(text).is_ok() {
            return Some(Lang::Jsonl);
        }
    }
    if start.starts_with('<') {
        return None;
    }
    YamlDoc::parse(text)
        .is_ok_and(|d| d.is_collection())
        .then_some(Lang::Yaml)
}

fn is_markdown(text: &str) -> bool {
    !markdown::sections(text).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "<?xml version=\"1.0\"?>\n<configuration>\n  <appSettings>\n    <add key=\"a\" value=\"1\"/>\n  </appSettings>\n</configuration>\n";

    #[test]
    fn each_kind_is_known_by_its_content() {
        assert_eq!(content_kind(CONFIG), Some(Lang::Xml));
        assert_eq!(
            content_kind("<!DOCTYPE html>\n<p>a<br>b\n"),
            Some(Lang::Html)
        );
        assert_eq!(content_kind("{\"a\": [1, 2]}\n"), Some(Lang::Json));
        assert_eq!(content_kind("{\"a\": 1}\n{\"a\": 2}\n"), Some(Lang::Jsonl));
        assert_eq!(
            content_kind("# settings\nname: shop\nports: [80]\n"),
            Some(Lang::Yaml)
        );
        assert_eq!(
            content_kind("# Notes\n\nSome prose here.\n\n## More\n"),
            Some(Lang::Markdown)
        );
        assert_eq!(content_kind("just a line of prose\n"), None);
        assert_eq!(content_kind(""), None);
    }

    #[test]
    fn a_query_takes_only_the_texts_it_reads() {
        assert_eq!(parse_as(Query::XPath, CONFIG), Some(Lang::Xml));
        assert_eq!(parse_as(Query::XPath, "<p>a<br>b</p>\n"), None);
        assert_eq!(parse_as(Query::XPath, "{\"a\": 1}"), None);
        assert_eq!(parse_as(Query::Selector, CONFIG), Some(Lang::Html));
        assert_eq!(parse_as(Query::Path, "a: 1\n"), Some(Lang::Yaml));
        assert_eq!(parse_as(Query::Path, "prose\n"), None);
        assert_eq!(parse_as(Query::Path, CONFIG), None);
        assert_eq!(
            parse_as(Query::Heading, "Title\n=====\n\ntext\n"),
            Some(Lang::Markdown)
        );
        assert_eq!(parse_as(Query::Heading, "no heading here\n"), None);
        assert_eq!(describe("{\"a\": 1}"), "JSON");
        assert_eq!(describe("  \n"), "empty");
    }
}
