//! Text a terminal can trust. A file name is workspace content: it may hold an escape
//! sequence (one that sets the window title, or OSC 52, which writes the clipboard) or a
//! newline that forges a line of output. Every name, message and diff line that the CLI
//! prints for people goes through here: a name with a control character is quoted as GNU ls
//! quotes it (`'a'$'\n''b'`), a message or a diff line shows its control characters as
//! escapes (`\e`, `\n`). JSON output is left exact: its encoder escapes them itself.

use std::borrow::Cow;

/// A control character: C0, DEL or C1 (what a terminal may act on).
fn is_control(c: char) -> bool {
    c.is_control()
}

/// `name` as GNU ls prints it on a terminal (`--quoting-style=shell-escape`) when it holds a
/// control character: the plain runs in single quotes, each control character as `$'\n'`
/// (`$'\033'` for ESC), so a shell reads the name back; other names as they are.
pub fn name(name: &str) -> Cow<'_, str> {
    if !name.chars().any(is_control) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    let mut quoted = false;
    for c in name.chars() {
        if is_control(c) {
            if quoted {
                out.push('\'');
                quoted = false;
            }
            out.push_str("$'");
            push_escape(&mut out, c, true);
            out.push('\'');
        } else {
            if !quoted {
                out.push('\'');
                quoted = true;
            }
            if c == '\'' {
                out.push_str("'\\''");
            } else {
                out.push(c);
            }
        }
    }
    if quoted {
        out.push('\'');
    }
    Cow::Owned(out)
}

/// A `/`-separated path with each name quoted as [`name`] quotes it.
pub fn path(path: &str) -> Cow<'_, str> {
    if !path.chars().any(is_control) {
        return Cow::Borrowed(path);
    }
    Cow::Owned(path.split('/').map(name).collect::<Vec<_>>().join("/"))
}

/// A message (an error, a note) with its control characters shown as escapes, newlines
/// included: what a name in it holds cannot act on the terminal or start a line.
pub fn text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_control(c) {
            push_escape(&mut out, c, false);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line of a diff or of a file's lines (without its end): tabs stay, a carriage return
/// that ends it stays (a CRLF file), every other control character is shown as an escape.
pub fn line(line: &str) -> Cow<'_, str> {
    let (body, cr) = match line.strip_suffix('\r') {
        Some(b) => (b, "\r"),
        None => (line, ""),
    };
    if !body.chars().any(|c| is_control(c) && c != '\t') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in body.chars() {
        if is_control(c) && c != '\t' {
            push_escape(&mut out, c, false);
        } else {
            out.push(c);
        }
    }
    out.push_str(cr);
    Cow::Owned(out)
}

/// Text of many lines, each as [`line`] shows it.
pub fn lines(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_control(c) && !matches!(c, '\t' | '\n' | '\r'))
        && !text.replace("\r\n", "").contains('\r')
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for piece in text.split_inclusive('\n') {
        match piece.strip_suffix('\n') {
            Some(body) => {
                out.push_str(&line(body));
                out.push('\n');
            }
            None => out.push_str(&line(piece)),
        }
    }
    Cow::Owned(out)
}

/// The escape of one control character: C's names where it has one, `\e` (or ls's `\033`
/// inside `$'...'`) for ESC, else octal of its UTF-8 bytes (`$'...'` style) or `\xHH`.
fn push_escape(out: &mut String, c: char, shell: bool) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0b' => out.push_str("\\v"),
        '\x0c' => out.push_str("\\f"),
        '\x1b' if !shell => out.push_str("\\e"),
        _ => {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                if shell {
                    out.push_str(&format!("\\{b:03o}"));
                } else {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_gnu_ls_quotes_them() {
        assert_eq!(name("plain name.txt"), "plain name.txt");
        assert_eq!(name("a\nb"), "'a'$'\\n''b'");
        assert_eq!(
            name("\x1b]0;owned\x07.txt"),
            "$'\\033'']0;owned'$'\\a''.txt'"
        );
        assert_eq!(name("it's\n"), "'it'\\''s'$'\\n'");
        assert_eq!(name("\u{9b}31m"), "$'\\302\\233''31m'");
    }

    #[test]
    fn messages_and_lines_show_control_characters() {
        assert_eq!(text("no such file: a\nb"), "no such file: a\\nb");
        assert_eq!(text("\x1b]52;c;aGk=\x07"), "\\e]52;c;aGk=\\a");
        assert_eq!(line("+\tkeep\r"), "+\tkeep\r");
        assert_eq!(line("+\x1b[2Jx\ry"), "+\\e[2Jx\\ry");
        assert_eq!(lines("a\r\nb\x1b\n"), "a\r\nb\\e\n");
        assert_eq!(lines("a\rb\n"), "a\\rb\n");
    }
}
