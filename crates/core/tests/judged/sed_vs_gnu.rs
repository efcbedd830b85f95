//! filekit's `s` command against the real GNU sed (`sed -E`, on every Debian machine) on a
//! table of expressions whose syntax both share: every flag, every reference form sed has,
//! delimiters, anchors and empty matches. The output must be byte for byte the same.
//! (The forms only filekit has, `$1`, `${name}`, `m`/`s` and the CRLF rule, are tested in
//! the module's own tests, and the differences are listed in its documentation.)

use filekit_core::sed::Substitution;
use std::io::Write;
use std::process::{Command, Stdio};

fn filekit(expr: &str, text: &str) -> String {
    Substitution::parse(expr, false)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .apply(text)
        .unwrap()
}

fn gnu_sed(expr: &str, text: &str) -> String {
    let mut child = Command::new("sed")
        .args(["-E", "-e", expr])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("GNU sed is part of every Debian system");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "sed -E -e {expr} failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn same_output_as_gnu_sed() {
    let text = "alpha beta gamma\nthe cat sat on the mat\nAAA aaa AaA\n\n1,2,3,4\nfoo(bar) /usr/bin\nx*y x+y\n  indented line\nend";
    let cases = [
        // Flags.
        "s/a/X/",
        "s/a/X/g",
        "s/a/X/2",
        "s/a/X/3",
        "s/a/X/2g",
        "s/a/X/I",
        "s/a/X/Ig",
        "s/A/X/gI",
        "s/at/X/3g",
        // Delimiters, escaped delimiters.
        "s|/usr/bin|/opt|",
        "s#the#THE#g",
        "s,\\,,;,g",
        "s:a\\:b:X:",
        "s/\\//SLASH/",
        // Anchors and whole lines.
        "s/^/> /",
        "s/$/;/",
        "s/^$/(empty)/",
        "s/^ +//",
        "s/^(.*)$/[\\1]/",
        // References.
        "s/(\\w+) (\\w+)/\\2 \\1/",
        "s/t(h)e/<&|\\1>/g",
        "s/a/\\&/g",
        "s/a/\\\\/",
        "s/,/\\n/g",
        "s/ /\\t/",
        "s/([0-9]),([0-9])/\\2-\\1/g",
        // Empty matches and classes.
        "s/x*/-/g",
        "s/b*/-/g",
        "s/[aeiou]+/V/g",
        "s/\\(bar\\)/[&]/",
        "s/x\\*y/STAR/",
        "s/x\\+y/PLUS/",
        "s/[[:digit:]]/D/2",
        "s/(a|e)(l|t)/\\2\\1/g",
        "s/.$/!/",
        "s/d$/D/",
    ];
    for expr in cases {
        assert_eq!(
            filekit(expr, text),
            gnu_sed(expr, text),
            "expression {expr} differs from GNU sed"
        );
    }
}

#[test]
fn crlf_files_keep_their_line_endings_where_sed_would_not() {
    // GNU sed sees the \r as part of the line; filekit keeps the line ending whole.
    let text = "a\r\nb\r\n";
    assert_eq!(gnu_sed("s/$/;/", text), "a\r;\nb\r;\n");
    assert_eq!(filekit("s/$/;/", text), "a;\r\nb;\r\n");
}
