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
    let splices = sub.splices(subject);
    let mut at = 0;
    let mut rebuilt = String::new();
    for (start, end, new) in &splices {
        assert!(
            at <= *start && start <= end && *end <= subject.len(),
            "{splices:?}"
        );
        assert!(subject.is_char_boundary(*start) && subject.is_char_boundary(*end));
        rebuilt.push_str(&subject[at..*start]);
        rebuilt.push_str(new);
        at = *end;
    }
    rebuilt.push_str(&subject[at..]);
    assert_eq!(rebuilt, sub.apply(subject));
    if !splices.is_empty() {
        assert!(sub.matches(subject), "splices without a match");
        assert!(
            sub.may_match_bytes(subject.as_bytes()),
            "the byte prefilter missed a match"
        );
    }
});
