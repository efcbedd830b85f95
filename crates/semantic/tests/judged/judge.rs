//! What the compiler-judged suites share: a refusal's reason reduced to its shape, so that
//! refusals can be counted by kind.

/// A refusal's reason without its names and numbers: a quoted name becomes `_`, a quoted
/// construct whose first word is one of `keywords` (`return`, `global x`) stays as that
/// word, a number becomes `N`; only the part before the first `:` is kept.
pub fn reason(msg: &str, keywords: &[&str]) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut word = String::new();
    for ch in msg.chars() {
        match ch {
            '`' => {
                quoted = !quoted;
                if quoted {
                    word.clear();
                } else {
                    let first = word.split(' ').next().unwrap_or("");
                    if keywords.contains(&first) {
                        out.push_str(&format!("`{first}`"));
                    } else {
                        out.push('_');
                    }
                }
            }
            c if quoted => word.push(c),
            c if c.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    out.split(':').next().unwrap_or("").trim().to_string()
}

#[test]
fn a_reason_keeps_keywords_and_drops_names_and_numbers() {
    let keywords = ["return", "global"];
    assert_eq!(
        reason("`global counter` at line 12 is refused: x", &keywords),
        "`global` at line N is refused"
    );
    assert_eq!(
        reason("`return` leaves the selection (`foo`, line 3)", &keywords),
        "`return` leaves the selection (_, line N)"
    );
}
