//! Desktop Commander's search sessions (`start_search`, `get_more_search_results`,
//! `list_searches`, `stop_search`) over MCP stdio, one server for a whole session, and their
//! refusals, in the real tool's reply texts.

use crate::common;
use common::*;
use serde_json::{Value, json};

fn server(sb: &Sandbox) -> McpStdio {
    McpStdio::start(sb.command(&["serve", "--tools", "desktop-commander"]))
}

/// The text content of a `tools/call` result.
fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {result}"))
        .to_string()
}

fn is_error(result: &Value) -> bool {
    result["isError"].as_bool().unwrap_or(false)
}

/// The id in "Started ... session: ID".
fn session_id(started: &str) -> String {
    started
        .lines()
        .next()
        .and_then(|l| l.split(": ").nth(1))
        .unwrap_or_else(|| panic!("no session id in {started}"))
        .to_string()
}

fn root(sb: &Sandbox) -> String {
    std::fs::canonicalize(sb.root())
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn a_content_search_session_pages_lists_and_stops() {
    let sb = Sandbox::new();
    for i in 0..15 {
        sb.write(
            &format!("src/m{i:02}.ts"),
            &format!("const a = 1;\n// todo: item {i}\nconst b = 2;\n"),
        );
    }
    sb.write("src/notes.md", "TODO in markdown\n");
    let root = root(&sb);
    let mut mcp = server(&sb);

    let started = mcp.call_tool(
        "start_search",
        &json!({"path": "src", "pattern": "TODO", "searchType": "content",
                "filePattern": "*.ts", "contextLines": 0}),
    );
    assert!(!is_error(&started), "{started}");
    let started = text(&started);
    let id = session_id(&started);
    assert!(id.starts_with("search_"), "{started}");
    assert!(
        started.starts_with(&format!(
            "Started content search session: {id}\nPattern: \"TODO\"\nPath: src\nStatus: \
             COMPLETED\nRuntime: "
        )),
        "{started}"
    );
    // Case is ignored by default; a match shows what matched, not the whole line.
    assert!(
        started.contains("Total results: 15\n\nInitial results:\n"),
        "{started}"
    );
    assert!(
        started.contains(&format!("📄 {root}/src/m00.ts:2 - todo\n")),
        "{started}"
    );
    assert!(started.contains("... and 5 more results\n"), "{started}");
    assert!(started.ends_with("\n✅ Search completed."), "{started}");
    assert!(
        !started.contains("notes.md"),
        "filePattern keeps .ts files: {started}"
    );

    let page = text(&mcp.call_tool(
        "get_more_search_results",
        // JSON numbers as the real tool takes them, 10.0 included.
        &json!({"sessionId": id, "offset": 10.0, "length": 3}),
    ));
    assert!(
        page.starts_with(&format!(
            "Search session: {id}\nStatus: COMPLETED\nRuntime: "
        )),
        "{page}"
    );
    assert!(
        page.contains("Total results found: 15 (15 matches)\nShowing results 10-12\n\nResults:\n"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "📄 {root}/src/m10.ts:2 - todo\n📄 {root}/src/m11.ts:2 - todo\n📄 {root}/src/m12.ts:2 - todo\n"
        )),
        "{page}"
    );
    assert!(
        page.contains("\n📖 More results available. Use get_more_search_results with offset: 13"),
        "{page}"
    );

    let tail = text(&mcp.call_tool(
        "get_more_search_results",
        &json!({"sessionId": id, "offset": -2}),
    ));
    assert!(tail.contains("Showing last 2 results\n\n"), "{tail}");
    assert!(
        tail.contains("m13.ts:2") && tail.contains("m14.ts:2"),
        "{tail}"
    );
    assert!(!tail.contains("More results available"), "{tail}");

    let past = text(&mcp.call_tool(
        "get_more_search_results",
        &json!({"sessionId": id, "offset": 100}),
    ));
    assert!(past.contains("No results in this range."), "{past}");

    // A name search in the same server: a plain pattern is a part of the name.
    let files = text(&mcp.call_tool("start_search", &json!({"path": ".", "pattern": "NOTES"})));
    assert!(
        files.starts_with("Started file search session: "),
        "{files}"
    );
    assert!(files.contains("Total results: 1\n"), "{files}");
    assert!(
        files.contains(&format!("📁 {root}/src/notes.md\n")),
        "{files}"
    );
    let files_id = session_id(&files);

    let listed = text(&mcp.call_tool("list_searches", &json!({})));
    assert!(listed.starts_with("Active Searches (2):\n\n"), "{listed}");
    assert!(
        listed.contains(&format!(
            "Session: {id}\n  Type: content\n  Pattern: \"TODO\"\n  Status: ✅ COMPLETED\n"
        )),
        "{listed}"
    );
    assert!(listed.contains("  Results: 15\n"), "{listed}");
    assert!(
        listed.contains(&format!("Session: {files_id}\n  Type: files\n")),
        "{listed}"
    );

    let stopped = mcp.call_tool("stop_search", &json!({"sessionId": id}));
    assert!(!is_error(&stopped), "{stopped}");
    assert_eq!(
        text(&stopped),
        format!("Search session {id} terminated successfully.")
    );
    // As with the real tool, a stopped session's results stay readable.
    let again = text(&mcp.call_tool("get_more_search_results", &json!({"sessionId": id})));
    assert!(again.contains("Showing results 0-14"), "{again}");
    let unknown = mcp.call_tool("stop_search", &json!({"sessionId": "search_9_1"}));
    assert!(!is_error(&unknown), "{unknown}");
    assert_eq!(
        text(&unknown),
        "Search session search_9_1 not found or already completed."
    );
}

#[test]
fn context_lines_are_results_and_counted_apart() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\n  two\nneedle here\nfour\nfive\n");
    let root = root(&sb);
    let mut mcp = server(&sb);
    let started = text(&mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "needle", "searchType": "content", "contextLines": 1}),
    ));
    assert!(started.contains("Total results: 1\n"), "{started}");
    let id = session_id(&started);
    let page = text(&mcp.call_tool("get_more_search_results", &json!({"sessionId": id})));
    assert!(
        page.contains("Total results found: 3 (1 matches)"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "Results:\n📄 {root}/a.txt:2 - two\n📄 {root}/a.txt:3 - needle\n📄 {root}/a.txt:4 - four\n"
        )),
        "{page}"
    );
}

#[test]
fn name_searches_take_globs_case_and_hidden_files_as_asked() {
    let sb = Sandbox::new();
    sb.write("src/App.test.ts", "")
        .write("src/app.ts", "")
        .write("src/deep/more.test.ts", "")
        .write(".hidden/x.test.ts", "");
    let root = root(&sb);
    let mut mcp = server(&sb);
    let globbed = text(&mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "*.test.ts"}),
    ));
    assert!(globbed.contains("Total results: 2\n"), "{globbed}");
    assert!(
        globbed.contains(&format!(
            "📁 {root}/src/App.test.ts\n📁 {root}/src/deep/more.test.ts\n"
        )),
        "{globbed}"
    );
    let hidden = text(&mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "*.test.ts", "includeHidden": true}),
    ));
    assert!(hidden.contains("Total results: 3\n"), "{hidden}");
    let exact_case = text(&mcp.call_tool(
        "start_search",
        &json!({"path": "src", "pattern": "app", "ignoreCase": false, "filePattern": "*.ts"}),
    ));
    assert!(exact_case.contains("Total results: 1\n"), "{exact_case}");
    assert!(
        exact_case.contains(&format!("📁 {root}/src/app.ts\n")),
        "{exact_case}"
    );
    // maxResults caps what the session keeps; the counts and the reply say what was left.
    let capped = text(&mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "*.test.ts", "includeHidden": true, "maxResults": 2}),
    ));
    assert!(capped.contains("Total results: 3\n"), "{capped}");
    assert!(
        capped.contains("filekit kept the first 2 of 3 results of this search"),
        "{capped}"
    );
    let page = text(&mcp.call_tool(
        "get_more_search_results",
        &json!({"sessionId": session_id(&capped)}),
    ));
    assert!(page.contains("Showing results 0-1\n"), "{page}");
    // Accepted and ignored, as the table's guide says.
    let ignored = mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "app.ts", "timeout_ms": 50, "earlyTermination": true,
                "origin": "llm"}),
    );
    assert!(!is_error(&ignored), "{ignored}");
    assert!(text(&ignored).contains("Total results: 1\n"), "{ignored}");
}

#[test]
fn the_oldest_session_is_dropped_and_the_reply_says_so() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let mut mcp = server(&sb);
    let mut ids = Vec::new();
    for _ in 0..32 {
        let t = text(&mcp.call_tool("start_search", &json!({"path": ".", "pattern": "a"})));
        assert!(!t.contains("was dropped"), "{t}");
        ids.push(session_id(&t));
    }
    let t = text(&mcp.call_tool("start_search", &json!({"path": ".", "pattern": "a"})));
    assert!(
        t.contains(&format!(
            "filekit keeps the 32 newest search sessions: {} was dropped.",
            ids[0]
        )),
        "{t}"
    );
    let gone = mcp.call_tool("get_more_search_results", &json!({"sessionId": ids[0]}));
    assert!(is_error(&gone), "{gone}");
    let kept = mcp.call_tool("get_more_search_results", &json!({"sessionId": ids[1]}));
    assert!(!is_error(&kept), "{kept}");
    assert!(text(&mcp.call_tool("list_searches", &json!({}))).starts_with("Active Searches (32):"));
}

#[test]
fn bad_searches_are_refused_with_what_to_do() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let outside = tempfile::tempdir().unwrap();
    let mut mcp = server(&sb);

    let listed = text(&mcp.call_tool("list_searches", &json!({})));
    assert_eq!(listed, "No active searches.");

    let unknown = mcp.call_tool(
        "get_more_search_results",
        &json!({"sessionId": "search_1_1"}),
    );
    assert!(is_error(&unknown), "{unknown}");
    let t = text(&unknown);
    assert!(
        t.starts_with("Error reading search results: Search session search_1_1 not found")
            && t.contains("sessions live in a running server")
            && t.contains("start_search again"),
        "{t}"
    );

    let regex = mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "fn (", "searchType": "content"}),
    );
    assert!(is_error(&regex), "{regex}");
    let t = text(&regex);
    assert!(
        t.starts_with("Error starting search session: invalid regex 'fn ('")
            && t.contains("escape"),
        "{t}"
    );
    // The same text is found literally when asked.
    let literal = mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "x", "searchType": "content", "literalSearch": true}),
    );
    assert!(!is_error(&literal), "{literal}");

    let out = mcp.call_tool(
        "start_search",
        &json!({"path": outside.path().display().to_string(), "pattern": "x"}),
    );
    assert!(is_error(&out), "{out}");
    let t = text(&out);
    assert!(t.starts_with("Error starting search session: "), "{t}");
    assert!(t.contains("outside"), "{t}");

    let bad_type = mcp.call_tool(
        "start_search",
        &json!({"path": ".", "pattern": "x", "searchType": "regex"}),
    );
    assert!(is_error(&bad_type), "{bad_type}");
    assert!(text(&bad_type).contains("searchType"), "{bad_type}");

    // Nothing was kept of the refused searches.
    let listed = text(&mcp.call_tool("list_searches", &json!({})));
    assert!(listed.starts_with("Active Searches (1):"), "{listed}");
}

#[test]
fn through_filekit_call_a_session_does_not_outlive_its_call() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let run = sb.call("start_search", json!({"path": ".", "pattern": "a.txt"}));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // `filekit call` prints the structured reply.
    let reply: Value = serde_json::from_str(&run.stdout).expect("a JSON reply");
    let id = reply["sessionId"]
        .as_str()
        .expect("a session id")
        .to_string();
    sb.call_fails(
        "get_more_search_results",
        json!({"sessionId": id}),
        1,
        &[
            "Search session search_",
            "not found",
            "sessions live in a running server",
        ],
    );
}

#[test]
fn filekit_call_lines_runs_a_session_in_one_process() {
    use std::io::{BufRead, BufReader, Write};
    let sb = Sandbox::new();
    let matches: String = (0..30).map(|i| format!("hit {i}\n")).collect();
    sb.write("a.txt", &matches);
    let mut child = sb
        .command(&["call", "--lines", "--tools", "desktop-commander"])
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    // Each line is answered before the next is sent: the second call needs the first's id.
    let mut ask = |call: &str| -> Value {
        writeln!(input, "{call}").unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    let started = ask(
        r#"{"name": "start_search", "arguments": {"path": ".", "pattern": "hit", "searchType": "content"}}"#,
    );
    assert_eq!(started["status"], 0, "{started}");
    let id = started["reply"]["sessionId"]
        .as_str()
        .expect("a session id");
    let more = ask(&json!({"name": "get_more_search_results",
        "arguments": {"sessionId": id, "offset": 25, "length": 10}})
    .to_string());
    assert_eq!(more["status"], 0, "{more}");
    let results = more["reply"]["results"].as_array().expect("results");
    assert_eq!(results.len(), 5, "{more}");
    // A bad line is answered as `filekit call` answers it alone, and the next line still runs.
    let bad = ask("{not json");
    assert_eq!(
        (&bad["status"], &bad["reply"]["error_code"]),
        (&json!(2), &json!("PARSE_ERROR")),
        "{bad}"
    );
    let missing = ask(&json!({"name": "get_more_search_results",
        "arguments": {"sessionId": "search_0_0"}})
    .to_string());
    assert_eq!(missing["status"], 1, "{missing}");
    let listed = ask(r#"{"name": "list_searches", "arguments": {}}"#);
    assert_eq!(listed["status"], 0, "{listed}");
    drop(input);
    let status = child.wait().unwrap();
    // The worst call decides the exit code.
    assert_eq!(status.code(), Some(2));
}
