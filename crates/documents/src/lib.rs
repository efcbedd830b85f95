//! # filekit-documents
//!
//! Document targeting: find the parts of a data or markup file's text by the query its format
//! has (RFC 9535 JSONPath over JSON, JSONC, JSON Lines and YAML; CSS selectors over HTML;
//! XPath 1.0 over XML; Markdown sections by heading) as byte ranges, and compute the byte
//! ranges an edit of them replaces, with the layout of the place kept. It never reads or
//! writes files: callers hand it the text they read through the engine and send the ranges
//! back through the one write pipeline.
//!
//! It stands on the steps `filekit-semantic` shares with code targeting: the bounded parse
//! ([`filekit_semantic::bounds`]), the edit operations and their indentation
//! ([`filekit_semantic::ops`]), the value of a target ([`filekit_semantic::Found`]) and the
//! not-found error that lists the nearest ones ([`filekit_semantic::suggest`]).
//!
//! - [`json`]: JSON and JSONC ([`json::JsonDoc`]) and JSON Lines ([`json::JsonlDoc`]).
//! - [`yaml`]: YAML, queried by JSONPath as the value it reads as.
//! - [`html`]: HTML by CSS selector, and the markup edits XML shares.
//! - [`xml`]: XML (SVG, XSD, project files) by XPath.
//! - [`markdown`]: heading sections.
//! - [`kind`]: which of these a text is, for a file whose name does not say.
//!
//! ```
//! use filekit_documents::json::JsonDoc;
//!
//! let text = "{\n  // the build\n  \"scripts\": {\"build\": \"tsc\"}\n}\n";
//! let doc = JsonDoc::parse(text).unwrap();
//! let matches = doc.query("$.scripts.build").unwrap();
//! assert_eq!(&text[matches[0].found.range.clone()], "\"tsc\"");
//! ```

pub mod html;
pub mod json;
pub mod kind;
pub mod markdown;
pub mod xml;
pub mod yaml;

/// Tests' shorthand: `text` with `splices` (in order) applied, through `Splices`.
#[cfg(test)]
pub(crate) fn apply(text: &str, splices: &[filekit_semantic::ops::Splice]) -> String {
    filekit_semantic::ops::Splices::new(text, splices.to_vec())
        .and_then(|s| s.apply(text))
        .unwrap()
}
