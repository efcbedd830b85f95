//! Which parser a file gets, by its extension.

use filekit_errors::{ErrorCode, FkError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Rust,
    Go,
    Java,
    Css,
    Json,
    Jsonl,
    Markdown,
    Yaml,
    Html,
    Xml,
}

/// What the unsupported-file error lists, so an agent knows what would work.
pub const SUPPORTED: &str = "symbol: .ts .tsx .mts .cts .js .jsx .mjs .cjs .py .pyi .rs .go .java; \
selector: .css .scss .less .html .htm .xhtml; path (JSONPath): .json .jsonc .jsonl .ndjson .yaml .yml; \
xpath: .xml .svg .xsd .xsl .xslt .xaml .csproj .fsproj .vbproj .props .targets .resx .plist .pom; heading: .md .mdx";

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
            // tree-sitter-css reads plain CSS and CSS nesting; SCSS and LESS files parse as
            // far as they are CSS (a rule the grammar cannot read is a syntax error).
            "css" | "scss" | "less" => Lang::Css,
            "json" | "jsonc" => Lang::Json,
            "jsonl" | "ndjson" => Lang::Jsonl,
            "md" | "mdx" | "markdown" => Lang::Markdown,
            "yaml" | "yml" => Lang::Yaml,
            "html" | "htm" | "xhtml" => Lang::Html,
            "xml" | "svg" | "xsd" | "xsl" | "xslt" | "xaml" | "csproj" | "fsproj" | "vbproj"
            | "props" | "targets" | "resx" | "plist" | "pom" => Lang::Xml,
            _ => {
                return Err(FkError::new(
                    ErrorCode::InvalidArgument,
                    format!("{path}: semantic targeting does not support this file type"),
                )
                .with_hint(format!(
                    "supported: {SUPPORTED}; an XML, HTML, JSON, YAML or Markdown file of another name by its content, when the target names its kind (xpath, selector, path, heading); read other files by line range (read_files)"
                )));
            }
        };
        Ok(lang)
    }

    /// The target argument this language is addressed by (`symbol`, `path`, `heading`).
    pub fn target_type(self) -> &'static str {
        match self {
            Lang::Json | Lang::Jsonl | Lang::Yaml => "path",
            Lang::Markdown => "heading",
            Lang::Css | Lang::Html => "selector",
            Lang::Xml => "xpath",
            _ => "symbol",
        }
    }

    pub fn is_code(self) -> bool {
        !matches!(
            self,
            Lang::Json | Lang::Jsonl | Lang::Markdown | Lang::Yaml | Lang::Html | Lang::Xml
        )
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
