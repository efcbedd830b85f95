//! Markdown sections by heading, with `pulldown-cmark` (it knows underlined headings and
//! leaves `#` lines inside code blocks alone). A section runs from its heading to the next
//! heading of the same or a higher level.

use filekit_errors::{ErrorCode, FkError};
use filekit_semantic::ops::after_line;
use filekit_semantic::{Found, suggest};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// Every section of the text, in order: `range` from the heading to the section's end,
/// `body` the text under the heading line, `depth` the heading level minus one.
pub fn sections(text: &str) -> Vec<Found> {
    let mut heads: Vec<(usize, usize, usize, String)> = Vec::new(); // start, body start, level, text
    let mut current: Option<(usize, usize, usize, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                // The body starts after the line of the heading's last character (an
                // underlined heading's is its underline), a character, not a byte: the last
                // byte may be inside one.
                let last = text[range.start..range.end]
                    .char_indices()
                    .next_back()
                    .map_or(range.start, |(i, _)| range.start + i);
                let body_start = after_line(text, last);
                // An indented heading (up to three spaces) starts at its line's start.
                let start = filekit_semantic::ops::line_start(text, range.start);
                let start = if text[start..range.start].trim().is_empty() {
                    start
                } else {
                    range.start
                };
                current = Some((start, body_start, level as usize, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = current.as_mut() {
                    c.3.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => heads.extend(current.take()),
            _ => {}
        }
    }
    heads
        .iter()
        .enumerate()
        .map(|(i, (start, body_start, level, title))| {
            let end = heads[i + 1..]
                .iter()
                .find(|h| h.2 <= *level)
                .map_or(text.len(), |h| h.0);
            Found {
                kind: format!("h{level}"),
                path: title.trim().to_string(),
                name: title.trim().to_string(),
                range: *start..end,
                body: Some((*body_start).min(end)..end),
                signature: Some(format!("{} {}", "#".repeat(*level), title.trim())),
                depth: level - 1,
            }
        })
        .collect()
}

/// The section `heading` names: its text, with or without the `#`s (which then fix the
/// level), ignoring case.
pub fn find(text: &str, heading: &str) -> Result<Found, FkError> {
    let all = sections(text);
    let wanted = heading.trim();
    let hashes = wanted.len() - wanted.trim_start_matches('#').len();
    let title = wanted.trim_start_matches('#').trim().to_lowercase();
    let matches: Vec<&Found> = all
        .iter()
        .filter(|s| s.name.to_lowercase() == title && (hashes == 0 || s.depth + 1 == hashes))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(suggest::not_found(
            "heading",
            heading,
            &all,
            "give the heading's text, with or without its #s",
        )),
        many => Err(FkError::new(
            ErrorCode::Ambiguous,
            format!(
                "heading '{heading}' matches {} sections: {}",
                many.len(),
                many.iter()
                    .map(|s| format!("{} (line {})", s.signature.as_deref().unwrap_or(""), filekit_semantic::position(text, s.range.start).line))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_hint("add the #s to pick the level; for two headings of the same level and text, edit by line range")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Title\n\nIntro.\n\n## Install\n\nRun it.\n\n### From source\n\nBuild.\n\nSetext\n------\n\nText.\n\n```\n# not a heading\n```\n";

    #[test]
    fn sections_run_to_the_next_heading_of_the_same_level() {
        let s = find(DOC, "## Install").unwrap();
        assert_eq!(
            &DOC[s.range.clone()],
            "## Install\n\nRun it.\n\n### From source\n\nBuild.\n\n"
        );
        assert_eq!(
            &DOC[s.body.clone().unwrap()],
            "\nRun it.\n\n### From source\n\nBuild.\n\n"
        );
        let setext = find(DOC, "setext").unwrap();
        assert_eq!(
            &DOC[setext.range.clone()],
            "Setext\n------\n\nText.\n\n```\n# not a heading\n```\n"
        );
        assert_eq!(sections(DOC).len(), 4);
    }

    #[test]
    fn wrong_level_or_text_lists_the_headings() {
        let err = find(DOC, "# Install").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(err.hint.unwrap().contains("Install (h2)"));
    }

    /// Found by the `documents` fuzz target: a heading that ends the file in a multi-byte
    /// character (its last byte is inside it) panicked in slicing.
    #[test]
    fn a_heading_ending_in_a_multibyte_character_has_a_body() {
        let text = "\n# s \u{FFFD}\u{FFFD}_def m\0\0\0\0\0\x003\u{FFFD}";
        let all = sections(text);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].body, Some(text.len()..text.len()));
        let text = "# caf\u{e9}";
        assert_eq!(sections(text)[0].name, "caf\u{e9}");
    }
}
