//! The line and encoding layer (crates/core/src/text.rs) on any bytes: CRLF, BOM, invalid
//! UTF-8, binary. A decoded file encodes back to the same bytes; the line index agrees with
//! the text; new text splits into whole lines as DESIGN.md section 3 says.
#![no_main]

use filekit_core::text::{Eol, LineIndex, TextDoc, split_new_lines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match TextDoc::decode(data, "fuzz.txt") {
        Ok(doc) => {
            assert_eq!(
                doc.encode(&doc.text),
                data,
                "decode/encode is not the identity"
            );
            assert_eq!(
                doc.final_newline,
                doc.text.is_empty() || doc.text.ends_with('\n')
            );
            assert_eq!(doc.eol, Eol::detect(&doc.text));
            let index = LineIndex::new(&doc.text);
            assert_eq!(index.len(), doc.text.split_inclusive('\n').count());
            let mut prev = 0;
            for n in 1..=index.len() {
                assert_eq!(index.start(n), prev);
                assert!(index.end(n) > index.start(n));
                assert_eq!(index.line_of(index.start(n)), n);
                prev = index.end(n);
            }
            assert_eq!(prev, doc.text.len());
            // Converting line endings keeps the lines and uses only the chosen style.
            for eol in [Eol::Lf, Eol::CrLf] {
                let converted = eol.convert(&doc.text);
                assert_eq!(
                    converted.matches('\n').count(),
                    doc.text.matches('\n').count()
                );
                if eol == Eol::CrLf {
                    assert_eq!(
                        converted.matches("\r\n").count(),
                        converted.matches('\n').count()
                    );
                }
                assert_eq!(
                    Eol::Lf.convert(&converted).matches('\n').count(),
                    doc.text.matches('\n').count()
                );
                // Without stray CRs, converting there and back is the identity. (With them it
                // is not: in `a\r\r\n` the first CR is content, and once the CRLF becomes LF
                // it forms a CRLF of its own. A first run of this target found that with a
                // wrong oracle; the conversion itself is right.)
                if !doc.text.contains('\r') {
                    assert_eq!(Eol::Lf.convert(&converted), doc.text);
                }
            }
            let lines = split_new_lines(&doc.text);
            if doc.text.is_empty() {
                assert!(lines.is_empty());
            } else {
                let body = doc.text.strip_suffix('\n').unwrap_or(&doc.text);
                assert_eq!(lines.len(), body.matches('\n').count() + 1);
                // Each line is its segment, less the CR of a CRLF (a stray CR before that
                // one is content, as in `a\r\r\n`: the first run of this target caught an
                // oracle that said otherwise).
                for (line, segment) in lines.iter().zip(body.split('\n')) {
                    assert!(*line == segment || segment.strip_suffix('\r') == Some(*line));
                }
            }
        }
        Err(e) => {
            let code = e.code.as_str();
            assert!(code == "BINARY" || code == "ENCODING", "{code}");
            assert!(e.full_message().contains("fuzz.txt"));
        }
    }
});
