//! Text as filekit holds it: decoded UTF-8 without its BOM, with the facts needed to write it
//! back exactly as it was (BOM, line-ending style, final newline) and a line index.
//!
//! Lines are 1-based everywhere. Line `n` spans from the start of the line to just after its
//! line terminator (if it has one). A file of `k` line terminators and no trailing partial line
//! has `k` lines; the empty file has none.

use crate::encoding::{self, Encoded};
use crate::error::{ErrorCode, FkError};

pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The line-ending style of a file: the style its first line break uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Eol {
    #[serde(rename = "LF")]
    Lf,
    #[serde(rename = "CRLF")]
    CrLf,
}

impl Eol {
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }

    /// The style of `text`: that of its first line break (LF when it has none).
    pub fn detect(text: &str) -> Eol {
        match memchr::memchr(b'\n', text.as_bytes()) {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => Eol::CrLf,
            _ => Eol::Lf,
        }
    }

    /// Whether [`Eol::convert`] would change `s`.
    pub fn needs_conversion(self, s: &str) -> bool {
        match self {
            // By line break, not by a `memmem` search for CRLF: this runs for every
            // replacement text of a tree-wide replace, most of them a few bytes with no break.
            Eol::Lf => {
                let b = s.as_bytes();
                memchr::memchr_iter(b'\n', b).any(|i| i > 0 && b[i - 1] == b'\r')
            }
            Eol::CrLf => {
                let b = s.as_bytes();
                memchr::memchr_iter(b'\n', b).any(|i| i == 0 || b[i - 1] != b'\r')
            }
        }
    }

    /// `s` with every line break (LF or CRLF) written in this style.
    pub fn convert(self, s: &str) -> String {
        match self {
            Eol::Lf => {
                if s.contains("\r\n") {
                    s.replace("\r\n", "\n")
                } else {
                    s.to_string()
                }
            }
            Eol::CrLf => {
                let mut out = String::with_capacity(s.len() + s.len() / 32);
                let bytes = s.as_bytes();
                let mut last = 0;
                for i in memchr::memchr_iter(b'\n', bytes) {
                    if i == 0 || bytes[i - 1] != b'\r' {
                        out.push_str(&s[last..i]);
                        out.push_str("\r\n");
                        last = i + 1;
                    }
                }
                out.push_str(&s[last..]);
                out
            }
        }
    }
}

/// Start offsets of every line of a text, plus the text's length as a sentinel.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 2);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if *starts.last().unwrap() != text.len() {
            starts.push(text.len());
        }
        LineIndex { starts }
    }

    /// How many lines the text has.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset where 1-based line `n` starts; `n = len() + 1` gives the end of the text.
    pub fn start(&self, n: usize) -> usize {
        self.starts[n - 1]
    }

    /// Byte offset just after line `n` (after its terminator).
    pub fn end(&self, n: usize) -> usize {
        self.starts[n]
    }

    /// The 1-based line that contains byte `offset` (the last line for the end of the text).
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => (i + 1).min(self.len().max(1)),
            Err(i) => i,
        }
    }
}

/// A decoded text file and what is needed to encode it again byte for byte.
#[derive(Debug, Clone)]
pub struct TextDoc {
    /// The text, without BOM.
    pub text: String,
    /// Whether a UTF-8 file starts with a UTF-8 BOM (a UTF-16 one's is in `encoded`).
    pub bom: bool,
    pub eol: Eol,
    /// Whether the last line ends with a line break (true for the empty file).
    pub final_newline: bool,
    /// A file in another encoding than UTF-8: its bytes, which its edits are spliced into.
    pub encoded: Option<Encoded>,
}

impl TextDoc {
    /// Decodes a file's bytes. Binary content and invalid UTF-8 are refused with errors that
    /// name the file (`what`) and say what to do.
    /// [`TextDoc::decode`] of bytes the caller gives up: without a BOM they become the text
    /// without a copy.
    pub fn decode_owned(bytes: Vec<u8>, what: &str) -> Result<TextDoc, FkError> {
        if bytes.starts_with(UTF8_BOM) || is_binary(&bytes) || encoding::detect_bom(&bytes) {
            return TextDoc::decode(&bytes, what);
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(TextDoc::from_text(text, false)),
            Err(e) => TextDoc::decode(e.as_bytes(), what),
        }
    }

    /// Decodes a file's bytes: UTF-8 (with or without its BOM), UTF-16 by its BOM, or the
    /// legacy encoding the detector finds in text that is not UTF-8 (see [`crate::encoding`]).
    pub fn decode(bytes: &[u8], what: &str) -> Result<TextDoc, FkError> {
        TextDoc::decode_as(bytes, None, what)
    }

    /// [`TextDoc::decode`] in the encoding the caller names, when it names one.
    pub fn decode_as(
        bytes: &[u8],
        given: Option<&'static encoding_rs::Encoding>,
        what: &str,
    ) -> Result<TextDoc, FkError> {
        match given {
            Some(enc) if enc != encoding_rs::UTF_8 => {
                return TextDoc::decode_encoded(bytes, enc, what);
            }
            Some(_) => {}
            None if encoding::detect_bom(bytes) => {
                let enc = encoding::detect(bytes).expect("a UTF-16 BOM names its encoding");
                return TextDoc::decode_encoded(bytes, enc, what);
            }
            None => {}
        }
        if is_binary(bytes) {
            return Err(FkError::new(
                ErrorCode::Binary,
                format!(
                    "{what} is a binary file ({} bytes); it cannot be edited as text",
                    bytes.len()
                ),
            )
            .with_hint(
                "edit text files only; to replace a binary file, write it with other tools",
            ));
        }
        let (bom, body) = match bytes.strip_prefix(UTF8_BOM) {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let text = match std::str::from_utf8(body) {
            Ok(t) => t.to_string(),
            Err(_)
                if given.is_none()
                    && !bom
                    && let Some(enc) = encoding::detect(bytes)
                    && enc != encoding_rs::UTF_8 =>
            {
                return TextDoc::decode_encoded(bytes, enc, what);
            }
            Err(e) => {
                let at = e.valid_up_to();
                let line = 1 + memchr::memchr_iter(b'\n', &body[..at]).count();
                return Err(FkError::new(
                    ErrorCode::Encoding,
                    format!(
                        "{what} is not valid UTF-8 (first invalid byte at offset {at}, line {line})"
                    ),
                )
                .with_hint("name its encoding (`encoding`, --encoding: windows-1252, shift_jis, gb18030, euc-kr, ...), or convert the file to UTF-8 first (for example with iconv)"));
            }
        };
        Ok(TextDoc::from_text(text, bom))
    }

    fn decode_encoded(
        bytes: &[u8],
        enc: &'static encoding_rs::Encoding,
        what: &str,
    ) -> Result<TextDoc, FkError> {
        let (text, encoded) = Encoded::decode(bytes, enc, what)?;
        let mut doc = TextDoc::from_text(text, false);
        doc.encoded = Some(encoded);
        Ok(doc)
    }

    pub fn from_text(text: String, bom: bool) -> TextDoc {
        let eol = Eol::detect(&text);
        let final_newline = text.is_empty() || text.ends_with('\n');
        TextDoc {
            text,
            bom,
            eol,
            final_newline,
            encoded: None,
        }
    }

    /// The file's encoding, when it is not UTF-8 (`Shift_JIS`, `UTF-16LE`, `windows-1252`).
    pub fn encoding(&self) -> Option<&'static str> {
        self.encoded.as_ref().map(Encoded::name)
    }

    /// The bytes to write for `text` with this document's BOM.
    /// The file's bytes: its text, after its BOM if it has one.
    pub fn into_bytes(self) -> Vec<u8> {
        if let Some(e) = &self.encoded {
            return e.bytes().to_vec();
        }
        if self.bom {
            self.encode(&self.text)
        } else {
            self.text.into_bytes()
        }
    }

    pub fn encode(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + 3);
        if self.bom {
            out.extend_from_slice(UTF8_BOM);
        }
        out.extend_from_slice(text.as_bytes());
        out
    }
}

/// Whether bytes look like a binary (non-text) file: a NUL byte, or a known binary signature,
/// in the first 8 KiB. UTF-16 text with its BOM is text; UTF-32 counts as not editable here.
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    matches!(
        content_inspector::inspect(head),
        content_inspector::ContentType::BINARY
            | content_inspector::ContentType::UTF_32LE
            | content_inspector::ContentType::UTF_32BE
    )
}

/// Splits `s` into whole lines as a line edit puts them in: a final line
/// break ends the last line rather than starting an empty one, so `"a"` and `"a\n"` are one
/// line, `"\n"` is one empty line and `""` is no line at all. Each returned line is without
/// its terminator; CR before LF is dropped.
pub fn split_new_lines(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// Formats `text` with 1-based line numbers starting at `first`, `cat -n` style:
/// the number right-aligned to six columns, a tab, then the line.
///
/// Every read's reply goes through here, 10,000 lines at a time: the number is written
/// digit by digit into the output, as `format!` would write it, without a string per line.
pub fn number_lines(text: &str, first: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4 + 8);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        push_number(&mut out, first + i);
        out.push('\t');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `n` right-aligned to six columns (wider when it has more digits), as `{:>6}` writes it.
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let width = digits.len() - start;
    for _ in width..6 {
        out.push(' ');
    }
    // ASCII digits.
    out.push_str(std::str::from_utf8(&digits[start..]).expect("ASCII digits"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_cat_n_writes_them() {
        let text = "a\nb\r\n\nlast";
        for first in [1, 7, 99_999, 999_995, 1_234_567_890] {
            let expected: String = text
                .split_inclusive('\n')
                .enumerate()
                .map(|(i, l)| {
                    let l = l.trim_end_matches('\n').trim_end_matches('\r');
                    format!("{:>6}\t{l}\n", first + i)
                })
                .collect();
            assert_eq!(number_lines(text, first), expected, "from {first}");
        }
        assert_eq!(number_lines("", 1), "");
        assert_eq!(number_lines("x\n", 0), "     0\tx\n");
    }

    #[test]
    fn line_index_counts_lines() {
        assert_eq!(LineIndex::new("").len(), 0);
        assert_eq!(LineIndex::new("a").len(), 1);
        assert_eq!(LineIndex::new("a\n").len(), 1);
        assert_eq!(LineIndex::new("a\nb").len(), 2);
        assert_eq!(LineIndex::new("\n\n").len(), 2);
        let li = LineIndex::new("ab\ncd\n");
        assert_eq!((li.start(2), li.end(2)), (3, 6));
        assert_eq!(li.line_of(0), 1);
        assert_eq!(li.line_of(3), 2);
        assert_eq!(li.line_of(6), 2);
    }

    #[test]
    fn new_lines_follow_the_design_rule() {
        assert_eq!(split_new_lines(""), Vec::<&str>::new());
        assert_eq!(split_new_lines("a"), vec!["a"]);
        assert_eq!(split_new_lines("a\n"), vec!["a"]);
        assert_eq!(split_new_lines("\n"), vec![""]);
        assert_eq!(split_new_lines("a\r\nb\r\n"), vec!["a", "b"]);
        assert_eq!(split_new_lines("a\n\n"), vec!["a", ""]);
    }

    #[test]
    fn eol_conversion() {
        assert_eq!(Eol::CrLf.convert("a\nb\r\nc"), "a\r\nb\r\nc");
        assert_eq!(Eol::Lf.convert("a\r\nb"), "a\nb");
        assert_eq!(Eol::detect("x\r\ny\n"), Eol::CrLf);
    }

    #[test]
    fn decode_refuses_binary_and_what_is_not_its_encoding() {
        assert_eq!(
            TextDoc::decode(b"a\0b", "f").unwrap_err().code,
            ErrorCode::Binary
        );
        // Not UTF-8: the detector's encoding, or the one the caller names.
        let d = TextDoc::decode(b"ab\n\xff\n", "f").unwrap();
        assert_eq!(
            (d.text.as_str(), d.encoding()),
            ("ab\n\u{ff}\n", Some("windows-1252"))
        );
        let sjis = crate::encoding::by_label("shift_jis").unwrap();
        assert_eq!(
            TextDoc::decode_as(b"ab\x83", Some(sjis), "f")
                .unwrap_err()
                .code,
            ErrorCode::Encoding
        );
        let d = TextDoc::decode(b"\xFF\xFEa\0\n\0", "f").unwrap();
        assert_eq!((d.text.as_str(), d.encoding()), ("a\n", Some("UTF-16LE")));
        let d = TextDoc::decode(b"\xEF\xBB\xBFhi", "f").unwrap();
        assert!(d.bom && !d.final_newline && d.text == "hi");
        assert_eq!(d.encode("x"), b"\xEF\xBB\xBFx");
    }
}
