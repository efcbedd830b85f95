//! Text in an encoding other than UTF-8: which one a file is in, its text as UTF-8, and an
//! edit of that text spliced into the file's own bytes, so that every byte outside the edit
//! stays as it was (re-encoding the whole text would not: a legacy encoding can spell one
//! character two ways, and a decoder maps both to the same one).
//!
//! A file is UTF-16 when it starts with a UTF-16 byte order mark; otherwise, when it is not
//! UTF-8 and has no NUL byte, `chardetng` (Firefox's detector) names the legacy encoding, or
//! the caller does. Only encodings that can be spliced are taken: UTF-16, and the
//! ASCII-compatible ones without shift states (windows-1252, Shift_JIS, GB18030, EUC-KR,
//! Big5, ...), in which a byte below 0x80 at a character's start is that ASCII character.

use crate::error::{ErrorCode, FkError};
pub use encoding_rs::Encoding;
use encoding_rs::{DecoderResult, UTF_16BE, UTF_16LE};
use filekit_splices::Splices;
use std::sync::Arc;

/// The encoding a caller names (`"shift_jis"`, `"latin1"`, `"utf-16le"`: WHATWG labels),
/// refused with what to give when no encoding has that label.
pub fn by_label(label: &str) -> Result<&'static Encoding, FkError> {
    Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
        FkError::invalid(format!("unknown encoding {label:?}")).with_hint(
            "name it as the WHATWG Encoding Standard does: utf-8, utf-16le, utf-16be, windows-1252 (latin1), shift_jis, euc-jp, gb18030, gbk, big5, euc-kr, iso-8859-2, koi8-r, ...",
        )
    })
}

/// Whether `bytes` start with a UTF-16 byte order mark (and not UTF-32's, which starts
/// like UTF-16 LE's).
pub fn detect_bom(bytes: &[u8]) -> bool {
    !bytes.starts_with(b"\xFF\xFE\0\0")
        && matches!(Encoding::for_bom(bytes), Some((enc, _)) if enc == UTF_16LE || enc == UTF_16BE)
}

/// Whether a file's bytes may be text in another encoding than UTF-8 (a UTF-16 BOM, or bytes
/// that are not UTF-8 and hold no NUL): a search of its raw bytes says nothing of its text.
pub fn may_be_other_text(bytes: &[u8]) -> bool {
    detect_bom(bytes)
        || (std::str::from_utf8(bytes).is_err()
            && memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_none())
}

/// The encoding of bytes that are not UTF-8: UTF-16 by its byte order mark, else the
/// detector's guess; `None` for what looks binary (a NUL byte with no UTF-16 mark).
pub fn detect(bytes: &[u8]) -> Option<&'static Encoding> {
    if detect_bom(bytes) {
        return Encoding::for_bom(bytes).map(|(enc, _)| enc);
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return None;
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    // GBK text is GB18030 text (its decoder is GB18030's), and GB18030 can write every
    // character: an edit of a Chinese file is not refused for one outside GBK.
    match detector.guess(None, true) {
        enc if enc == encoding_rs::GBK => Some(encoding_rs::GB18030),
        enc => Some(enc),
    }
}

/// The encoding of a file from its first bytes (`head`), for a search that reads it as a
/// stream: `None` for UTF-8 (a character cut at the end of the head included) and for what
/// looks binary; else [`detect`]'s encoding, when it is one filekit decodes.
pub fn sniff(head: &[u8]) -> Option<&'static Encoding> {
    if !detect_bom(head) {
        match std::str::from_utf8(head) {
            Ok(_) => return None,
            Err(e) if e.error_len().is_none() => return None,
            Err(_) => {}
        }
    }
    detect(head).filter(|enc| {
        *enc != encoding_rs::UTF_8
            && (enc.is_ascii_compatible() || *enc == UTF_16LE || *enc == UTF_16BE)
    })
}

/// A text file's bytes in an encoding other than UTF-8, and what maps its text onto them.
#[derive(Debug, Clone)]
pub struct Encoded {
    encoding: &'static Encoding,
    /// The byte order mark's length (UTF-16's), which belongs to no line.
    bom_len: usize,
    bytes: Arc<[u8]>,
}

impl Encoded {
    /// Decodes `bytes` from `encoding`: the text, and the bytes to splice its edits into.
    /// Refused (ENCODING) when a byte sequence is not of that encoding, or the encoding is
    /// one whose text cannot be spliced (shift states, UTF-32).
    pub fn decode(
        bytes: &[u8],
        encoding: &'static Encoding,
        what: &str,
    ) -> Result<(String, Encoded), FkError> {
        let name = encoding.name();
        let utf16 = encoding == UTF_16LE || encoding == UTF_16BE;
        if !utf16 && !encoding.is_ascii_compatible() {
            return Err(FkError::new(
                ErrorCode::Encoding,
                format!("{what} is {name} text, which filekit cannot edit in place"),
            )
            .with_hint(format!(
                "convert it to UTF-8 first, for example with iconv -f {name} -t UTF-8"
            )));
        }
        let bom_len = match Encoding::for_bom(bytes) {
            Some((enc, len)) if enc == encoding => len,
            _ => 0,
        };
        let body = &bytes[bom_len..];
        let (text, had_errors) = encoding.decode_without_bom_handling(body);
        if had_errors || (utf16 && body.len() % 2 == 1) {
            let at = first_error(body, encoding);
            return Err(FkError::new(
                ErrorCode::Encoding,
                format!(
                    "{what} is not valid {name} (first invalid byte at offset {})",
                    at + bom_len
                ),
            )
            .with_hint(
                "name its encoding (`encoding`, --encoding: windows-1252, shift_jis, gb18030, euc-kr, ...), or convert it to UTF-8 first (for example with iconv)",
            ));
        }
        Ok((
            text.into_owned(),
            Encoded {
                encoding,
                bom_len,
                bytes: bytes.into(),
            },
        ))
    }

    /// The encoding's name as the WHATWG standard spells it (`Shift_JIS`, `windows-1252`).
    pub fn name(&self) -> &'static str {
        self.encoding.name()
    }

    /// The file's bytes as read.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// `s` in this encoding, refused when it holds a character the encoding cannot hold or
    /// would read back as another (Shift_JIS writes `¥` as the byte it reads as `\`).
    pub fn encode(&self, s: &str, what: &str) -> Result<Vec<u8>, FkError> {
        if self.encoding == UTF_16LE {
            return Ok(s.encode_utf16().flat_map(u16::to_le_bytes).collect());
        }
        if self.encoding == UTF_16BE {
            return Ok(s.encode_utf16().flat_map(u16::to_be_bytes).collect());
        }
        let (bytes, _, unmappable) = self.encoding.encode(s);
        let back = (!unmappable).then(|| self.encoding.decode_without_bom_handling(&bytes).0);
        if back.as_deref() == Some(s) {
            return Ok(bytes.into_owned());
        }
        let bad = s
            .chars()
            .find(|c| {
                let mut b = [0; 4];
                let one = c.encode_utf8(&mut b);
                let (enc, _, unmappable) = self.encoding.encode(one);
                unmappable || self.encoding.decode_without_bom_handling(&enc).0 != *one
            })
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        Err(FkError::new(
            ErrorCode::Encoding,
            format!(
                "{what} is {} text, which cannot hold {bad:?} (U+{:04X}); nothing was written",
                self.name(),
                bad as u32
            ),
        )
        .with_hint(format!(
            "write text that {} can hold (for example a character reference or an ASCII spelling), or convert the file to UTF-8 first",
            self.name()
        ))
        .with_details(serde_json::json!({"encoding": self.name(), "character": bad.to_string()})))
    }

    /// The file's bytes with `splices` of its text `text` made: each splice's new text encoded
    /// and put in place of the bytes its range came from; every other byte is the file's.
    pub fn splice(&self, text: &str, splices: &Splices, what: &str) -> Result<Vec<u8>, FkError> {
        let bounds: Vec<usize> = splices.iter().flat_map(|s| [s.start, s.end]).collect();
        let at = self.byte_offsets(text, &bounds);
        let mut out = Vec::with_capacity(self.bytes.len() + 64);
        let mut done = 0;
        for (i, s) in splices.iter().enumerate() {
            let (start, end) = (at[2 * i], at[2 * i + 1]);
            out.extend_from_slice(&self.bytes[done..start]);
            out.extend_from_slice(&self.encode(&s.text, what)?);
            done = end;
        }
        out.extend_from_slice(&self.bytes[done..]);
        Ok(out)
    }

    /// The byte offsets in the file of the text offsets `at` (ascending, on character
    /// boundaries), found by walking the bytes beside the text from the start.
    fn byte_offsets(&self, text: &str, at: &[usize]) -> Vec<usize> {
        let utf16 = self.encoding == UTF_16LE || self.encoding == UTF_16BE;
        let bytes = &self.bytes[..];
        let mut decoder = self.encoding.new_decoder_without_bom_handling();
        let (mut t, mut b) = (0, self.bom_len);
        let mut out = Vec::with_capacity(at.len());
        for &target in at {
            while t < target {
                if utf16 {
                    let c = text[t..].chars().next().expect("a target inside the text");
                    t += c.len_utf8();
                    b += 2 * c.len_utf16();
                } else if bytes[b] < 0x80 {
                    t += 1;
                    b += 1;
                } else {
                    // One character's bytes: fed one at a time until it is decoded.
                    let mut buf = [0u8; 16];
                    loop {
                        let (result, read, written) = decoder.decode_to_utf8_without_replacement(
                            &bytes[b..b + 1],
                            &mut buf,
                            false,
                        );
                        debug_assert!(matches!(result, DecoderResult::InputEmpty));
                        b += read;
                        if written > 0 {
                            t += written;
                            break;
                        }
                    }
                }
            }
            out.push(b);
        }
        out
    }
}

/// Where the first byte sequence that `encoding` cannot decode starts in `body`.
fn first_error(body: &[u8], encoding: &'static Encoding) -> usize {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut buf = vec![0u8; body.len() * 3 + 16];
    match decoder.decode_to_utf8_without_replacement(body, &mut buf, true) {
        (DecoderResult::Malformed(len, back), read, _) => {
            read.saturating_sub(len as usize + back as usize)
        }
        _ => body.len() & !1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_KR, GB18030, SHIFT_JIS, WINDOWS_1252};
    use filekit_splices::Splice;

    fn edit(bytes: &[u8], enc: &'static Encoding, from: &str, to: &str) -> Vec<u8> {
        let (text, e) = Encoded::decode(bytes, enc, "f").unwrap();
        let at = text.find(from).unwrap();
        let splices = Splices::new(
            &text,
            vec![Splice {
                start: at,
                end: at + from.len(),
                text: to.into(),
            }],
        )
        .unwrap();
        e.splice(&text, &splices, "f").unwrap()
    }

    #[test]
    fn an_edit_changes_only_its_own_bytes() {
        // 'ソ' is 0x83 0x5C in Shift_JIS: its trail byte is an ASCII backslash.
        let sjis = b"a\x83\x5c\\b\n";
        assert_eq!(edit(sjis, SHIFT_JIS, "\\", "/"), b"a\x83\x5c/b\n");
        assert_eq!(edit(sjis, SHIFT_JIS, "ソ", "x"), b"ax\\b\n");
        assert_eq!(
            edit(b"caf\xe9 ok\n", WINDOWS_1252, "ok", "d\u{e9}j\u{e0}"),
            b"caf\xe9 d\xe9j\xe0\n"
        );
        let gb = GB18030.encode("中文 x\n").0.into_owned();
        assert_eq!(
            edit(&gb, GB18030, "x", "文"),
            GB18030.encode("中文 文\n").0.as_ref()
        );
        let kr = EUC_KR.encode("한국어 y\n").0.into_owned();
        assert_eq!(
            edit(&kr, EUC_KR, "국", "ab"),
            EUC_KR.encode("한ab어 y\n").0.as_ref()
        );
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("hé\r\nyo\r\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let want: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("hé\r\nYo!\r\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(edit(&le, UTF_16LE, "yo", "Yo!"), want);
    }

    #[test]
    fn what_cannot_round_trip_is_refused_by_name() {
        let (_, e) = Encoded::decode(b"caf\xe9\n", WINDOWS_1252, "f").unwrap();
        let err = e.encode("ok \u{1F600}", "f").unwrap_err();
        assert_eq!(err.code, ErrorCode::Encoding);
        assert!(err.message.contains("U+1F600"), "{}", err.message);
        let (_, e) = Encoded::decode(b"\x83\x5c\n", SHIFT_JIS, "f").unwrap();
        assert!(
            e.encode("\u{a5}", "f")
                .unwrap_err()
                .message
                .contains("U+00A5")
        );
    }

    #[test]
    fn detection_keeps_binary_out() {
        assert_eq!(detect(b"\xff\xfeh\0i\0"), Some(UTF_16LE));
        assert_eq!(detect(b"a\0\0\0b\x90"), None);
        // Valid UTF-8 is UTF-8 to the detector too.
        assert_eq!(
            detect("caf\u{e9} au lait, cr\u{e8}me br\u{fb}l\u{e9}e\n".as_bytes()),
            Some(encoding_rs::UTF_8)
        );
        assert_eq!(
            detect(
                &WINDOWS_1252
                    .encode("caf\u{e9} au lait, cr\u{e8}me br\u{fb}l\u{e9}e, d\u{e9}j\u{e0} vu\n")
                    .0
            ),
            Some(WINDOWS_1252)
        );
        assert_eq!(
            detect(
                &SHIFT_JIS
                    .encode("これは日本語のテキストです。ソースコード\n")
                    .0
            ),
            Some(SHIFT_JIS)
        );
        assert!(Encoded::decode(b"\x83", SHIFT_JIS, "f").is_err());
    }
}
