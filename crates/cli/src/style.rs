//! Colors for people: red removed lines, green added lines, cyan hunk headers. Only when the
//! output is a terminal (or CLICOLOR_FORCE is set) and NO_COLOR is not (https://no-color.org),
//! or when `--color always` asks for them.

use crate::ColorChoice;
use std::io::IsTerminal;

#[derive(Clone, Copy)]
pub struct Style {
    pub color: bool,
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

impl Style {
    pub fn new(choice: ColorChoice) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            // NO_COLOR wins over everything but an explicit flag; CLICOLOR_FORCE colors a
            // pipe (for pagers such as `less -R`), as in https://bixense.com/clicolors/.
            ColorChoice::Auto => {
                let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
                let forced = std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0");
                !set("NO_COLOR") && (forced || std::io::stdout().is_terminal())
            }
        };
        Style { color }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    pub fn red(&self, text: &str) -> String {
        self.paint(RED, text)
    }

    pub fn green(&self, text: &str) -> String {
        self.paint(GREEN, text)
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint(DIM, text)
    }

    /// A unified diff with each line colored by its kind, and the control characters of its
    /// lines shown as escapes ([`crate::terminal::line`]; the engine quotes its names).
    pub fn diff(&self, diff: &str) -> String {
        let mut out = String::with_capacity(diff.len() + diff.len() / 8);
        for line in diff.split_inclusive('\n') {
            let (body, nl) = match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            };
            let body = &*crate::terminal::line(body);
            let painted = if body.starts_with("+++") || body.starts_with("---") {
                self.bold(body)
            } else if body.starts_with("@@") {
                self.paint(CYAN, body)
            } else if body.starts_with('+') {
                self.green(body)
            } else if body.starts_with('-') {
                self.red(body)
            } else if body.starts_with('\\') {
                self.dim(body)
            } else {
                body.to_string()
            };
            out.push_str(&painted);
            out.push_str(nl);
        }
        out
    }
}
