//! File names that talk to the terminal: a name holding ESC and OSC
//! sequences (the window title, OSC 52 that writes the clipboard) or a newline is quoted or
//! escaped in every human-facing output of the CLI (`ls`, `glob`, `grep`, `history`, error
//! messages, diffs), as GNU ls quotes it; no control character reaches the output and a
//! newline never makes a line of its own; `--json` keeps the names exact.

use crate::common;
use common::*;

/// Sets the window title; OSC 52 writes the clipboard.
const TITLE: &str = "title\x1b]0;owned\x07.txt";
const CLIPBOARD: &str = "clip\x1b]52;c;cm0gLXJmIH4=\x07.txt";
/// A newline that would print a forged line.
const FORGED: &str = "two\nfilekit: all files deleted.txt";

fn evil_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    for name in [TITLE, CLIPBOARD, FORGED] {
        sb.write(&format!("dir/{name}"), "needle\n");
    }
    sb.write("dir/plain.txt", "needle\n");
    sb
}

/// No control character but the line ends, and exactly `lines` lines.
fn assert_clean(what: &str, out: &str, lines: usize) {
    assert!(
        !out.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: a control character reached the output: {out:?}"
    );
    assert_eq!(out.lines().count(), lines, "{what}: {out:?}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("filekit: all files deleted")),
        "{what}: a forged line: {out:?}"
    );
}

#[test]
fn listings_and_searches_quote_names_that_hold_control_characters() {
    let sb = evil_sandbox();
    let ls = sb.filekit(&["ls", "dir"], None);
    assert_eq!(ls.code, 0, "{}", ls.stderr);
    assert_clean("ls", &ls.stdout, 4);
    // As GNU ls quotes them on a terminal: a shell reads the name back.
    assert!(
        ls.stdout
            .contains("'two'$'\\n''filekit: all files deleted.txt'"),
        "{}",
        ls.stdout
    );
    assert!(
        ls.stdout.contains("'title'$'\\033'']0;owned'$'\\a''.txt'"),
        "{}",
        ls.stdout
    );
    assert!(ls.stdout.contains(" plain.txt\n"), "{}", ls.stdout);
    let tree = sb.filekit(&["ls", "dir", "--tree"], None);
    assert_clean("ls --tree", &tree.stdout, 5);
    let glob = sb.filekit(&["glob", "**/*.txt"], None);
    assert_clean("glob", &glob.stdout, 4);
    let grep = sb.filekit(&["grep", "needle", "dir"], None);
    assert_clean("grep", &grep.stdout, 4);
    let files = sb.filekit(&["grep", "needle", "dir", "-l"], None);
    assert_clean("grep -l", &files.stdout, 4);
    // JSON keeps every name exact.
    let json = sb.filekit(&["ls", "dir", "--json"], None);
    let names: Vec<&str> = json.json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    for name in [TITLE, CLIPBOARD, FORGED] {
        assert!(names.contains(&name), "{names:?}");
    }
}

#[test]
fn history_diffs_and_errors_escape_control_characters() {
    let sb = evil_sandbox();
    // A change to each file, through a verb that prints names and diffs.
    let run = sb.filekit(&["replace", "s/needle/pin/", "dir"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // One line a file and the summary: a name's newline starts no line of its own.
    assert_clean("replace", &run.stdout, 5);
    let dry = sb.filekit(&["replace", "s/pin/needle/", "dir", "--dry-run"], None);
    assert!(
        !dry.stdout.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        dry.stdout
    );
    // The diff's headers name the file as git does: in quotes, its newline escaped.
    assert!(
        dry.stdout
            .contains("--- \"a/dir/two\\nfilekit: all files deleted.txt\""),
        "{}",
        dry.stdout
    );
    let history = sb.filekit(&["history"], None);
    assert_eq!(history.code, 0, "{}", history.stderr);
    assert!(
        !history.stdout.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        history.stdout
    );
    let show = sb.filekit(&["history", "--show", "1"], None);
    assert!(
        !show.stdout.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        show.stdout
    );
    assert!(
        !show
            .stdout
            .lines()
            .any(|l| l.starts_with("filekit: all files deleted")),
        "{}",
        show.stdout
    );
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert!(
        !undo.stdout.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        undo.stdout
    );
    // An error that names the file (in the verb's report, or on standard error): escaped,
    // on one line.
    let missing = format!("dir/gone{}", &CLIPBOARD[4..]);
    let err = sb.filekit(&["rm", &missing], None);
    assert_ne!(err.code, 0);
    let said = format!("{}{}", err.stdout, err.stderr);
    assert!(
        !said.chars().any(|c| c.is_control() && c != '\n'),
        "{said:?}"
    );
    assert!(said.contains("\\e]52;c;"), "{said}");
    let forged = sb.filekit(&["mv", &format!("dir/{FORGED}x"), "elsewhere"], None);
    assert_ne!(forged.code, 0);
    let said = format!("{}{}", forged.stdout, forged.stderr);
    assert!(said.contains("NOT_FOUND"), "{said}");
    assert!(
        !said
            .lines()
            .any(|l| l.starts_with("filekit: all files deleted")),
        "{said}"
    );
}
