//! The sed-expression parser (crates/core/src/pipeline/sed.rs): any expression either parses or is
//! refused with a message; a parsed one applies to any text without panicking, and its
//! splices are sorted, disjoint, on character boundaries, and give what `apply` gives.
#![no_main]

use filekit_core::sed::Substitution;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    // The expression is the first line, the text to apply it to is the rest.
    let (expression, subject) = text.split_once('\n').unwrap_or((&text, "a b\nfoo bar\r\n"));
    let sub = match Substitution::parse(expression, flags & 1 == 1) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.full_message().is_empty());
            return;
        }
    };
    // Matches are found in order and never overlap: splices that do not check are a bug.
    let splices = sub
        .splices(subject)
        .unwrap_or_else(|e| panic!("{expression:?} on {subject:?}: {e}"));
    let mut at = 0;
    let mut rebuilt = String::new();
    for s in &splices {
        assert!(
            at <= s.start && s.start <= s.end && s.end <= subject.len(),
            "{splices:?}"
        );
        assert!(subject.is_char_boundary(s.start) && subject.is_char_boundary(s.end));
        rebuilt.push_str(&subject[at..s.start]);
        rebuilt.push_str(&s.text);
        at = s.end;
    }
    rebuilt.push_str(&subject[at..]);
    assert_eq!(Ok(rebuilt), sub.apply(subject));
    if !splices.is_empty() {
        assert!(sub.matches(subject), "splices without a match");
        assert!(
            sub.may_match_bytes(subject.as_bytes()),
            "the byte prefilter missed a match"
        );
    }
});
