//! The apply_patch tool on a real, writable workspace: the input is the patch (any bytes,
//! seeded with patches in its three formats naming the workspace's files). No input may
//! panic; a refused patch leaves every file as it was (the patch is checked as one plan
//! before anything is written); no patch leaves a temporary file behind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::path::Path;

/// The workspace each input starts from.
const FILES: &[(&str, &str)] = &[
    ("a.txt", "line 1\nline 2\nline 3\n"),
    ("b.txt", "one\n\ntwo\n  three\n"),
    ("d/c.txt", "x\nx\nx\ny\n"),
    ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
];

/// Every file and folder under `dir` with its bytes (a folder's are empty), `.filekit/` left
/// out: filekit's own (its journal's folder appears with the first write).
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if rel == ".filekit" {
                continue;
            }
            let ty = e.file_type().unwrap();
            if ty.is_dir() {
                out.insert(rel, None);
                stack.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let patch = String::from_utf8_lossy(data).into_owned();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in FILES {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let before = tree(dir.path());
    let ws = filekit_core::Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
    let reply = filekit_dialects::call(&ws, "apply_patch", serde_json::json!({ "input": patch }));
    let _ = reply.value.to_string();
    assert!(
        !reply.is_error || !reply.text.is_empty(),
        "an error without a message"
    );
    let after = tree(dir.path());
    // The commit step's temporary files are named `.filekit.*` beside their file.
    let temps: Vec<&String> = (after.keys())
        .filter(|p| p.rsplit('/').next().is_some_and(|n| n.starts_with(".filekit.")))
        .collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
    if reply.is_error {
        assert_eq!(
            before, after,
            "a refused patch changed the tree: {}",
            reply.text
        );
    }
});
