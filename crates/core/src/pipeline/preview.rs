//! Preview: what a file's splices make of it, shown without building more than needed (the
//! hash of the new text from the splices, one edit's hunk).

use crate::hash;
use filekit_splices::Splices;

/// The content hash of the file `base` (after a BOM if `bom`) becomes with `splices` applied.
pub(super) fn spliced_hash(bom: bool, base: &str, splices: &Splices) -> String {
    if !bom {
        // The file's bytes are the text: its hash is the one the splices computed.
        return splices.result_hash();
    }
    let mut h = hash::StreamingHash::new();
    h.update(crate::text::UTF8_BOM);
    let mut at = 0;
    for s in splices {
        h.update(&base.as_bytes()[at..s.start]);
        h.update(s.text.as_bytes());
        at = s.end;
    }
    h.update(&base.as_bytes()[at..]);
    h.finish()
}

/// The content hash of what a streamed file becomes: its bytes read once more, around the
/// edited ranges, never held.
pub(super) fn spliced_hash_of_file(file: &crate::content::SplicedFile) -> std::io::Result<String> {
    let mut h = hash::StreamingHash::new();
    file.for_each_piece(|piece| h.update(piece))?;
    Ok(h.finish())
}

/// A unified hunk for one text edit: the whole lines it stood in, before and after.
pub(super) fn edit_hunk(line: usize, before: &str, old: &str, new: &str, after: &str) -> String {
    let old_text = format!("{before}{old}{after}");
    let new_text = format!("{before}{new}{after}");
    let old_lines: Vec<&str> = old_text.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new_text.split_inclusive('\n').collect();
    let mut out = format!(
        "@@ -{line},{} +{line},{} @@\n",
        old_lines.len(),
        new_lines.len()
    );
    for l in old_lines {
        out.push('-');
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    }
    for l in new_lines {
        out.push('+');
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextDoc;
    use filekit_splices::Splice;

    #[test]
    fn the_hash_of_spliced_text_is_that_of_the_text_built() {
        let base = "one two\nthree two\n";
        let splices = vec![Splice::new(4, 7, "2"), Splice::new(14, 17, "deux")];
        let splices = Splices::new(base, splices).unwrap();
        let built = splices.apply(base).unwrap();
        assert_eq!(built, "one 2\nthree deux\n");
        assert_eq!(
            spliced_hash(false, base, &splices),
            hash::content_hash(built.as_bytes())
        );
        let with_bom = TextDoc::from_text(built.clone(), true).encode(&built);
        assert_eq!(
            spliced_hash(true, base, &splices),
            hash::content_hash(&with_bom)
        );
        assert_eq!(
            spliced_hash(false, base, &Splices::none(base)),
            hash::content_hash(base.as_bytes())
        );
    }
}
