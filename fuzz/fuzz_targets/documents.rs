//! The semantic parsers on arbitrary text: the first byte picks a language or format, the
//! rest is the file. No input may panic, overflow the stack or abort: every tree and
//! document is measured before it is walked (`filekit_semantic::bounds`), so what passes
//! the bounds is walked on this thread's stack like a tool call's.
#![no_main]

use filekit_semantic::code::Code;
use filekit_documents::html::HtmlDoc;
use filekit_documents::json::{JsonDoc, JsonlDoc};
use filekit_documents::markdown;
use filekit_documents::xml::XmlDoc;
use filekit_documents::yaml::YamlDoc;
use filekit_semantic::Lang;
use libfuzzer_sys::fuzz_target;

const FILES: &[&str] = &[
    "a.ts", "a.tsx", "a.js", "a.py", "a.rs", "a.go", "a.java", "a.css", "a.json", "a.jsonl",
    "a.md", "a.yaml", "a.html", "a.xml",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let file = FILES[pick as usize % FILES.len()];
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();
    let lang = Lang::of_path(file).expect("a supported extension");
    // Errors are fine; each says something.
    let said = |e: filekit_core::FkError| assert!(!e.message.is_empty(), "{file}: {e:?}");
    match lang {
        Lang::Json => match JsonDoc::parse(text) {
            Ok(d) => {
                let _ = d.query("$..*").map_err(said);
                let _ = d.outline().map_err(said);
            }
            Err(e) => said(e),
        },
        Lang::Jsonl => match JsonlDoc::parse(text) {
            Ok(d) => {
                let _ = d.query("$[*]..*").map_err(said);
            }
            Err(e) => said(e),
        },
        Lang::Yaml => match YamlDoc::parse(text) {
            Ok(d) => {
                let _ = d.query("$..*").map_err(said);
                let _ = d.outline();
            }
            Err(e) => said(e),
        },
        Lang::Html => match HtmlDoc::parse(text) {
            Ok(d) => {
                let _ = d.select("div p, a > b, :not(x) ~ y").map_err(said);
                let _ = d.outline().map_err(said);
            }
            Err(e) => said(e),
        },
        Lang::Xml => match XmlDoc::parse(text) {
            Ok(d) => {
                let _ = d.query("//*").map_err(said);
                let _ = d.outline().map_err(said);
            }
            Err(e) => said(e),
        },
        Lang::Markdown => {
            let _ = markdown::sections(text);
        }
        _ => match Code::parse(lang, text) {
            Ok(c) => {
                let _ = c.symbols().map_err(said);
                let _ = c.find("a").map_err(said);
                let _ = c.syntax_error();
                if matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript) {
                    let _ = filekit_semantic::ts::organize_imports(lang, text).map_err(said);
                    let _ = filekit_semantic::ts::rename_in_file(
                        lang,
                        text,
                        &filekit_semantic::ts::Target::Name("a".into()),
                        "b",
                        true,
                    )
                    .map_err(said);
                }
                if lang == Lang::Python {
                    use filekit_semantic::python::{ImportOptions, Section};
                    let section = |_: &str| Section::ThirdParty;
                    let opts = ImportOptions {
                        is_init: false,
                        section: &section,
                    };
                    let _ = filekit_semantic::python::organize_imports(text, &opts)
                        .map_err(said);
                }
            }
            Err(e) => said(e),
        },
    }
});
