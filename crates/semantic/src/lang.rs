//! Which parser a file gets, by its extension (004 section 3.1, plus the languages of the
//! issue beyond TS/JS).

use filekit_core::{ErrorCode, FkError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Rust,
    Go,
    Java,
    Json,
    Markdown,
}

/// What the unsupported-file error lists, so an agent knows what would work.
pub const SUPPORTED: &str = "symbol: .ts .tsx .mts .cts .js .jsx .mjs .cjs .py .pyi .rs .go .java; \
path (JSONPath): .json .jsonc; heading: .md .mdx";

impl Lang {
    /// The parser for `path`, by extension.
    pub fn of_path(path: &str) -> Result<Lang, FkError> {
        let ext = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let lang = match ext.as_str() {
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            // JSX is part of tree-sitter-javascript's grammar.
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "py" | "pyi" => Lang::Python,
            "rs" => Lang::Rust,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "json" | "jsonc" => Lang::Json,
            "md" | "mdx" | "markdown" => Lang::Markdown,
            _ => {
                return Err(FkError::new(
                    ErrorCode::InvalidArgument,
                    format!("{path}: semantic targeting does not support this file type"),
                )
                .with_hint(format!(
                    "supported: {SUPPORTED}; read other files by line range (read_files)"
                )));
            }
        };
        Ok(lang)
    }

    /// The target argument this language is addressed by (`symbol`, `path`, `heading`).
    pub fn target_type(self) -> &'static str {
        match self {
            Lang::Json => "path",
            Lang::Markdown => "heading",
            _ => "symbol",
        }
    }

    pub fn is_code(self) -> bool {
        !matches!(self, Lang::Json | Lang::Markdown)
    }

    /// The indentation step used when the file gives no hint.
    pub fn default_indent(self) -> &'static str {
        match self {
            Lang::Go => "\t",
            Lang::Python | Lang::Rust | Lang::Java => "    ",
            _ => "  ",
        }
    }
}
