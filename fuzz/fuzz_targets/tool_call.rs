//! The tool-call JSON decoder of every table: the first byte picks a tool, the rest is its
//! arguments (JSON when it parses, else the raw string as a JSON string). No input may panic.
//! The workspace is read-only, so that a decoding bug cannot make the fuzzer write anywhere;
//! every tool still parses and checks its arguments, and the edit tools run their dry-run
//! checks up to the refusal to write.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::LazyLock;

static WS: LazyLock<(tempfile::TempDir, filekit_core::Workspace)> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "line 1\nline 2\nline 3\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\r\n").unwrap();
    let ws = filekit_core::Workspace::new(&[dir.path().to_path_buf()], true).unwrap();
    (dir, ws)
});

static TOOLS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    filekit_dialects::tools(None)
        .iter()
        .map(|t| t.name)
        .collect()
});

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let tool = TOOLS[pick as usize % TOOLS.len()];
    let text = String::from_utf8_lossy(rest);
    let args = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text.into_owned()));
    let reply = filekit_dialects::call(&WS.1, tool, args);
    // Every reply is serializable and a failure always says something.
    let _ = reply.value.to_string();
    assert!(
        !reply.is_error || !reply.text.is_empty(),
        "{tool}: an error without a message"
    );
});
