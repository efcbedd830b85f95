//! Content hashes: the version an agent reads and hands back with a line edit.
//!
//! One fast non-cryptographic hash (xxh3, 64 bits) printed as 16 hex digits. A caller may give
//! any prefix of 8 or more digits.

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The shortest prefix of a hash that a caller may give.
pub const MIN_PREFIX: usize = 8;

/// The content hash of `bytes`, as 16 lowercase hex digits.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("{:016x}", xxh3_64(bytes))
}

/// A hash computed over bytes that arrive in pieces (large files).
#[derive(Default)]
pub struct StreamingHash(Xxh3);

impl StreamingHash {
    pub fn new() -> Self {
        StreamingHash(Xxh3::new())
    }
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    pub fn finish(&self) -> String {
        format!("{:016x}", self.0.digest())
    }
}

/// Whether a caller's `given` hash (full or a prefix of at least [`MIN_PREFIX`] hex digits)
/// names `actual`. Case is ignored.
pub fn matches(given: &str, actual: &str) -> bool {
    let given = given.trim();
    given.len() >= MIN_PREFIX
        && given.len() <= actual.len()
        && actual.as_bytes()[..given.len()].eq_ignore_ascii_case(given.as_bytes())
}

/// Checks that a caller's hash is well formed; the message says what is wrong.
pub fn validate(given: &str) -> Result<(), String> {
    let g = given.trim();
    if g.len() < MIN_PREFIX {
        return Err(format!(
            "content_hash '{given}' is too short: give at least {MIN_PREFIX} hex digits of the hash a read returned"
        ));
    }
    if !g.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "content_hash '{given}' is not hexadecimal: give the content_hash a read returned"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_of_eight_or_more_match() {
        let h = content_hash(b"hello\n");
        assert_eq!(h.len(), 16);
        assert!(matches(&h, &h));
        assert!(matches(&h[..8], &h));
        assert!(matches(&h[..8].to_uppercase(), &h));
        assert!(!matches(&h[..7], &h));
        assert!(!matches("0000000000000000", &h) || h == "0000000000000000");
    }

    #[test]
    fn streaming_equals_one_shot() {
        let mut s = StreamingHash::new();
        s.update(b"hel");
        s.update(b"lo\n");
        assert_eq!(s.finish(), content_hash(b"hello\n"));
    }
}
