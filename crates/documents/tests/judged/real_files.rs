//! Real files, for every language and format: each target of a file (every symbol of the
//! outline; every JSON/YAML value; every HTML/XML element and XML attribute; every CSS rule;
//! every Markdown section) is read and written back with `replace` through the same planning
//! code `file_edit` uses, and the file must come out byte-identical.
//!
//! The files come from registry packages, never from the network at test time:
//! - `.test-deps/node_modules` (npm, by `scripts/setup-test-deps`): `typescript@5.9.3`'s
//!   declarations (its 9 MB `typescript.js` meets the syntax tree budget), pyright's and
//!   rxjs's JavaScript, and `jsonpath-rfc9535`'s JSON;
//! - `.test-deps/debian` (Debian packages unpacked by the same script): Go sources of
//!   `golang-github-src-d-gcfg-dev`, Java sources of `openjdk-17-source`, the HTML and XML
//!   of `libxml2-doc`;
//! - `.venv` (PyPI, same script): the modules of pytest and the MCP SDK, jsonschema's JSON;
//! - `~/.cargo/registry/src` (crates the workspace builds): Rust sources, CSS, Markdown,
//!   YAML workflows, XML/SVG/HTML files shipped in crates.
//!
//! A splice `(s, e, new)` leaves a text unchanged exactly when `new == text[s..e]`; that is
//! what is checked (applying each of tens of thousands of splices to a large text would
//! only copy it around).

use filekit_documents::html::HtmlDoc;
use filekit_documents::json::JsonDoc;
use filekit_documents::markdown;
use filekit_documents::xml::XmlDoc;
use filekit_documents::yaml::YamlDoc;
use filekit_semantic::Lang;
use filekit_semantic::code::Code;
use filekit_semantic::ops::{self, BodyStyle, Operation, Splice};
use std::path::{Path, PathBuf};

use filekit_testkit as test_data;
use test_data::{krate, need, repo, site_packages};

/// Files under `dir` (recursively) ending in `ext`, sorted, at most `max`.
fn files(dir: &Path, ext: &str, max: usize) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&need(dir.to_path_buf()), ext, &mut out);
    out.sort();
    out.truncate(max);
    assert!(!out.is_empty(), "no {ext} files under {}", dir.display());
    out
}

fn check(path: &Path, text: &str, what: &str, splice: Result<Splice, filekit_errors::FkError>) {
    let Splice {
        start: s,
        end: e,
        text: new,
    } = splice.unwrap_or_else(|err| panic!("{}: replace {what}: {}", path.display(), err.message));
    assert!(
        new == text[s..e],
        "{}: writing back {what} changes the file:\n--- was\n{}\n--- written\n{new}",
        path.display(),
        &text[s..e]
    );
}

/// Round-trips every target of `path`; returns how many.
fn roundtrip(lang: Lang, path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.as_str();
    let unit = filekit_semantic::style::indent_unit(text, lang.default_indent());
    let replace = Operation::Replace;
    match lang {
        Lang::Json => {
            let doc = JsonDoc::parse(text).unwrap();
            let all = doc.query("$..*").unwrap_or_default();
            for m in &all {
                check(
                    path,
                    text,
                    &m.found.path,
                    doc.plan(m, &replace, &text[m.found.range.clone()], &unit),
                );
            }
            all.len()
        }
        Lang::Yaml => {
            let doc = YamlDoc::parse(text)
                .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
            let all = doc.query("$..*").unwrap_or_default();
            for m in &all {
                check(
                    path,
                    text,
                    &m.found.path,
                    doc.plan(m, &replace, &text[m.found.range.clone()], &unit),
                );
            }
            all.len()
        }
        Lang::Html => {
            let doc = HtmlDoc::parse(text).unwrap();
            let all = doc.outline().unwrap();
            for f in &all {
                check(
                    path,
                    text,
                    &f.path,
                    doc.plan(f, &replace, &text[f.range.clone()], &unit),
                );
            }
            all.len()
        }
        Lang::Xml => {
            let doc = XmlDoc::parse(text).unwrap();
            let mut all = doc.outline().unwrap();
            all.extend(doc.query("//@*").unwrap_or_default());
            for f in &all {
                check(
                    path,
                    text,
                    &f.path,
                    doc.plan(f, &replace, &text[f.range.clone()], &unit),
                );
            }
            all.len()
        }
        Lang::Markdown => {
            let all = markdown::sections(text);
            for f in &all {
                check(
                    path,
                    text,
                    &f.path,
                    ops::plan(
                        text,
                        f,
                        &replace,
                        &text[f.range.clone()],
                        BodyStyle::Section,
                        &[],
                        "",
                    ),
                );
            }
            all.len()
        }
        _ => {
            let code = Code::parse(lang, text).unwrap();
            assert!(
                code.syntax_error().is_none(),
                "{} does not parse",
                path.display()
            );
            let style = if lang == Lang::Python {
                BodyStyle::Block
            } else {
                BodyStyle::Braced
            };
            let all = code.symbols().unwrap();
            for f in &all {
                check(
                    path,
                    text,
                    &format!("{} ({})", f.path, f.kind),
                    ops::plan(text, f, &replace, &text[f.range.clone()], style, &[], &unit),
                );
            }
            all.len()
        }
    }
}

fn table(lang: Lang, files: &[PathBuf], at_least: usize) {
    let mut n = 0;
    for f in files {
        n += roundtrip(lang, f);
    }
    println!("{lang:?}: {} files, {n} targets round-tripped", files.len());
    assert!(n >= at_least, "{lang:?}: only {n} targets in {files:?}");
}

fn typescript_lib() -> PathBuf {
    need(repo().join(".test-deps/node_modules/typescript/lib"))
}

#[test]
fn typescript_declarations() {
    let lib = typescript_lib();
    table(
        Lang::TypeScript,
        &[
            lib.join("typescript.d.ts"),
            lib.join("lib.es5.d.ts"),
            lib.join("lib.dom.d.ts"),
        ],
        10_000,
    );
}

/// JavaScript as filekit parses it (files under `MAX_PARSE_SIZE`): pyright's bundled vendor
/// code (760 KB, minified and not) and rxjs's CommonJS build.
#[test]
fn javascript_bundles_and_modules() {
    let modules = repo().join(".test-deps/node_modules");
    let mut f = vec![need(modules.join("pyright/dist/vendor.js"))];
    f.extend(files(&modules.join("rxjs/dist/cjs/internal"), ".js", 400));
    table(Lang::JavaScript, &f, 3_000);
}

/// The compiler itself, 9 MB of ordinary JavaScript, would build a syntax tree of some 240
/// MiB: the parse stops at the tree budget and says so (filekit refuses a file this size
/// before parsing it; this is the budget met by a real file, not a made-up one).
#[test]
fn the_typescript_compilers_tree_is_past_the_budget() {
    let path = typescript_lib().join("typescript.js");
    let text = std::fs::read_to_string(&path).unwrap();
    let err = Code::parse(Lang::JavaScript, &text)
        .err()
        .expect("a 9 MB file's tree is past the budget");
    assert_eq!(err.code, filekit_errors::ErrorCode::TooLarge, "{err:?}");
    assert_eq!(err.details["limit"]["kind"], "syntax_tree", "{err:?}");
}

#[test]
fn python_modules() {
    let sp = site_packages();
    let mut f = files(&sp.join("_pytest"), ".py", 40);
    f.extend(files(&sp.join("mcp/server"), ".py", 20));
    table(Lang::Python, &f, 1_000);
}

#[test]
fn rust_crate_sources() {
    let mut f = files(&krate("serde_json").join("src"), ".rs", 30);
    f.extend(files(&krate("roxmltree").join("src"), ".rs", 10));
    f.extend(files(&krate("tokio").join("src/sync"), ".rs", 30));
    table(Lang::Rust, &f, 2_000);
}

#[test]
fn go_sources() {
    let root = repo().join(".test-deps/debian/root/usr/share/gocode/src/github.com/src-d/gcfg");
    table(Lang::Go, &files(&root, ".go", 100), 100);
}

#[test]
fn java_sources() {
    table(
        Lang::Java,
        &files(&repo().join(".test-deps/debian/java"), ".java", 10),
        300,
    );
}

#[test]
fn css_files() {
    table(Lang::Css, &files(&krate("syn").join("src"), ".css", 5), 20);
}

#[test]
fn json_files() {
    let mut f = files(
        &site_packages().join("jsonschema_specifications"),
        ".json",
        30,
    );
    f.push(typescript_lib().join("../package.json"));
    f.push(krate("tree-sitter-typescript").join("typescript/src/node-types.json"));
    table(Lang::Json, &f, 5_000);
}

#[test]
fn yaml_files() {
    let mut f = Vec::new();
    // CI workflows some crates ship, and roxmltree's YAML descriptions of its XML tests.
    f.extend(files(&krate("log"), ".yml", 20));
    f.extend(files(&krate("indexmap"), ".yml", 20));
    f.extend(files(&krate("serde_json"), ".yml", 20));
    f.extend(files(&krate("roxmltree").join("tests"), ".yaml", 60));
    f.extend(files(&krate("libmimalloc-sys"), ".yml", 20));
    assert!(f.len() >= 10, "only {} YAML files", f.len());
    table(Lang::Yaml, &f, 200);
}

#[test]
fn html_files() {
    let doc = repo().join(".test-deps/debian/root/usr/share/doc/libxml2/html");
    let mut f = files(&doc, ".html", 40);
    f.extend(files(&krate("oorandom"), ".html", 5));
    table(Lang::Html, &f, 5_000);
}

#[test]
fn xml_and_svg_files() {
    let mut f: Vec<PathBuf> = files(&krate("roxmltree").join("tests"), ".xml", 400);
    f.extend(files(&krate("base64"), ".svg", 5));
    // libxml2's API description (1.5 MB) and examples.
    f.extend(files(
        &repo().join(".test-deps/debian/root/usr/share/doc/libxml2/html"),
        ".xml",
        20,
    ));
    // Test suites hold malformed documents (to be refused) and ones with external entities.
    let f: Vec<PathBuf> = f
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| filekit_documents::xml::check(&t).is_none())
        })
        .collect();
    assert!(f.len() >= 20, "only {} XML files", f.len());
    table(Lang::Xml, &f, 10_000);
}

#[test]
fn markdown_files() {
    let mut f = Vec::new();
    for c in ["tokio", "serde_json", "axum-core", "tempfile", "indexmap"] {
        f.extend(files(&krate(c), ".md", 5));
    }
    table(Lang::Markdown, &f, 100);
}
