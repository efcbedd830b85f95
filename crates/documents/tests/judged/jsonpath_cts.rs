//! The RFC 9535 JSONPath Compliance Test Suite (`cts.json`, BSD-2-Clause, as shipped inside
//! the npm package `jsonpath-rfc9535@1.3.0`, which `scripts/setup-test-deps` installs into
//! `.test-deps/node_modules`) run through our JSONPath layer: each document is written out as
//! pretty-printed JSON, parsed by `JsonDoc`, queried, and every match's *source bytes* are
//! parsed back and compared with the expected values (and the normalized paths with
//! `result_paths`). Invalid selectors must be refused as invalid arguments.
//!
//! Known failures are listed in `KNOWN_FAILURES` with the reason; the test fails if any other
//! case fails, and also if a listed case starts passing (so the list stays true).

use filekit_documents::json::JsonDoc;
use filekit_documents::yaml::YamlDoc;
use filekit_errors::ErrorCode;
use filekit_errors::FkError;
use serde_json::Value;
use std::path::Path;

/// Cases that fail, by name, with why.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

fn cts() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../.test-deps/node_modules/jsonpath-rfc9535/src/__tests__/jsonpath-compliance-test-suite/cts.json",
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{} is missing ({e}): run scripts/setup-test-deps, which installs the JSONPath \
             Compliance Test Suite (npm jsonpath-rfc9535@1.3.0) into .test-deps/",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("cts.json is JSON")
}

/// The format a case's document is written in, and its parser.
#[derive(Clone, Copy)]
enum Format {
    Json,
    /// The same pretty-printed JSON read as YAML (JSON is YAML 1.2's flow style).
    Yaml,
}

type Matches = Vec<(std::ops::Range<usize>, String)>;

fn query(format: Format, text: &str, selector: &str) -> Result<Result<Matches, FkError>, String> {
    Ok(match format {
        Format::Json => {
            let doc = JsonDoc::parse(text).map_err(|e| format!("document: {e:?}"))?;
            doc.query(selector).map(|m| {
                m.into_iter()
                    .map(|m| (m.found.range, m.found.path))
                    .collect()
            })
        }
        Format::Yaml => {
            let doc = YamlDoc::parse(text).map_err(|e| format!("document: {e:?}"))?;
            doc.query(selector).map(|m| {
                m.into_iter()
                    .map(|m| (m.found.range, m.found.path))
                    .collect()
            })
        }
    })
}

/// Runs one case; `Err` says how it failed.
fn run(case: &Value, format: Format) -> Result<(), String> {
    let selector = case["selector"].as_str().ok_or("no selector")?;
    let document = &case["document"];
    let text = serde_json::to_string_pretty(document).map_err(|e| e.to_string())?;
    let got = query(format, &text, selector)?;
    if case["invalid_selector"].as_bool() == Some(true) {
        return match got {
            Err(e) if e.code == ErrorCode::InvalidArgument => Ok(()),
            Err(e) => Err(format!("invalid selector refused with {:?}", e.code)),
            Ok(m) => Err(format!("invalid selector accepted ({} matches)", m.len())),
        };
    }
    let matches = match got {
        Ok(m) => m,
        Err(e) if e.code == ErrorCode::NotFound => Vec::new(),
        Err(e) => return Err(format!("error {:?}: {}", e.code, e.message)),
    };
    let values: Vec<Value> = matches
        .iter()
        .map(|(r, _)| serde_json::from_str(&text[r.clone()]).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let paths: Vec<Value> = matches
        .iter()
        .map(|(_, p)| Value::String(p.clone()))
        .collect();
    let ok_values = if let Some(r) = case.get("result") {
        r.as_array() == Some(&values)
    } else {
        case["results"]
            .as_array()
            .is_some_and(|all| all.iter().any(|r| r.as_array() == Some(&values)))
    };
    if !ok_values {
        return Err(format!("values {values:?}"));
    }
    let ok_paths = if let Some(r) = case.get("result_paths") {
        r.as_array() == Some(&paths)
    } else if let Some(all) = case.get("results_paths") {
        all.as_array()
            .is_some_and(|all| all.iter().any(|r| r.as_array() == Some(&paths)))
    } else {
        true
    };
    if !ok_paths {
        return Err(format!("paths {paths:?}"));
    }
    Ok(())
}

#[test]
fn jsonpath_compliance_test_suite() {
    suite(Format::Json, KNOWN_FAILURES, "JSON");
}

/// The suite again with each document read by the YAML layer: its scalars, escapes and
/// ranges must agree with JSON's.
#[test]
fn jsonpath_compliance_test_suite_through_yaml() {
    suite(Format::Yaml, KNOWN_YAML_FAILURES, "YAML");
}

/// Cases that fail through the YAML layer, by name, with why.
const KNOWN_YAML_FAILURES: &[(&str, &str)] = &[];

fn suite(format: Format, known_failures: &[(&str, &str)], label: &str) {
    let cts = cts();
    let tests = cts["tests"].as_array().expect("tests");
    assert!(tests.len() > 600, "the suite has {} cases", tests.len());
    let mut passed = 0;
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    for case in tests {
        let name = case["name"].as_str().unwrap_or("?");
        let known = known_failures.iter().any(|(n, _)| *n == name);
        match (run(case, format), known) {
            (Ok(()), false) => passed += 1,
            (Ok(()), true) => fixed.push(name.to_string()),
            (Err(_), true) => {}
            (Err(why), false) => unexpected.push(format!(
                "{name} ({}): {why}",
                case["selector"].as_str().unwrap_or("")
            )),
        }
    }
    println!(
        "JSONPath CTS ({label}): {passed} of {} passed, {} known failures",
        tests.len(),
        known_failures.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} cases failed:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "listed as known failures but pass now (remove them): {fixed:?}"
    );
}
