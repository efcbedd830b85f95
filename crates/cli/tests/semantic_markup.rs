//! The semantic tools on YAML (JSONPath), HTML (CSS selectors) and XML (XPath 1.0), through
//! `filekit call` and `filekit read --path/--selector/--xpath`, with the results checked on
//! disk and every bad input leaving the files as they were.

use crate::common;
use common::*;
use serde_json::json;

const CONFIG: &str = "\
# deployment settings
name: shop   # the service
replicas: 2
env:
  - name: PORT
    value: \"8080\"
  - name: MODE
    value: prod
ports: [80, 443]
base: &base {cpu: 1}
worker: *base
";

const PAGE: &str = "\
<!DOCTYPE html>
<html>
<body>
  <nav id=\"top\" class=\"bar dark\">
    <a href=\"/\">Home</a>
    <a href=\"/docs\" class=\"active\">Docs</a>
  </nav>
  <ul class=\"items\">
    <li>one</li>
    <li>two</li>
  </ul>
  <img src=\"logo.png\" alt=\"logo\">
</body>
</html>
";

const PROJ: &str = "\
<Project Sdk=\"Microsoft.NET.Sdk\">
  <!-- build settings -->
  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <Nullable>enable</Nullable>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include=\"Serilog\" Version=\"3.1.1\" />
    <PackageReference Include=\"Dapper\" Version=\"2.1.0\" />
  </ItemGroup>
</Project>
";

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("deploy.yaml", CONFIG);
    sb.write("site/index.html", PAGE);
    sb.write("App.csproj", PROJ);
    sb
}

#[test]
fn yaml_reads_by_jsonpath_with_exact_ranges() {
    let sb = sandbox();
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "path": "$.env[?@.name == 'MODE'].value"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["content"], "prod");
    assert_eq!(run.json["kind"], "string");
    assert_eq!(run.json["resolved"], "$['env'][1]['value']");
    assert_eq!(
        run.json["range"],
        json!({"start": {"line": 8, "column": 11}, "end": {"line": 8, "column": 15}})
    );
    // Every match comes back.
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "path": "$.env[*].name"}),
    );
    assert_eq!(run.json["results"].as_array().unwrap().len(), 2);
    // The outline: keys two levels deep.
    let run = sb.filekit(&["read", "--outline", "deploy.yaml"], None);
    let content = &run.stdout;
    assert!(
        content.contains("string $['name'] (lines 2-2)"),
        "{content}"
    );
    assert!(
        content.contains("  mapping $['env'][0] (lines 5-6)"),
        "{content}"
    );
    // The read verb.
    let run = sb.filekit(&["read", "deploy.yaml", "--path", "$.ports"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("[80, 443]"), "{}", run.stdout);
}

#[test]
fn yaml_edits_keep_comments_anchors_and_layout() {
    let sb = sandbox();
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "deploy.yaml", "edits": [
            {"target": "$.replicas", "operation": "replace", "content": "3"},
            {"target": "$.env", "operation": "insert_into", "content": "name: DEBUG\nvalue: \"0\""},
            {"target": "$.ports", "operation": "insert_into", "position": "first", "content": "8080"},
            {"target": "$.name", "operation": "insert_after", "content": "owner: team-a"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("deploy.yaml"),
        "\
# deployment settings
name: shop   # the service
owner: team-a
replicas: 3
env:
  - name: PORT
    value: \"8080\"
  - name: MODE
    value: prod
  - name: DEBUG
    value: \"0\"
ports: [8080, 80, 443]
base: &base {cpu: 1}
worker: *base
"
    );
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "deploy.yaml", "target": "$.env[0]", "operation": "delete"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("deploy.yaml").contains("env:\n  - name: MODE\n"));
}

#[test]
fn yaml_bad_inputs_change_nothing() {
    let sb = sandbox();
    sb.write("broken.yml", "a: [1, 2\nb: 3\n");
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "path": "$.replica"}),
        1,
        &["path '$.replica' not found", "$.replicas (number)"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "path": "$.env[?"}),
        1,
        &["invalid JSONPath", "at character"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "path": "$.worker.cpu"}),
        1,
        &["alias *base", "&base"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "broken.yml", "path": "$.a"}),
        1,
        &["the YAML does not parse", "line"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "deploy.yaml", "target": "$.ports", "operation": "replace", "content": "[1, 2"}),
        1,
        &["would not parse", "force"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "deploy.yaml", "target": "$.name", "operation": "replace_body", "content": "x"}),
        1,
        &["replace_body does not apply to YAML"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.yaml", "selector": "a"}),
        2,
        &["name its targets with `path`"],
    );
    // force writes what would not parse.
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "deploy.yaml", "target": "$.ports", "operation": "replace", "content": "[1, 2", "force": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("deploy.yaml").contains("ports: [1, 2\n"));
}

#[test]
fn html_reads_by_css_selector() {
    let sb = sandbox();
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "site/index.html", "selector": "#top > a.active"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.json["content"],
        "<a href=\"/docs\" class=\"active\">Docs</a>"
    );
    assert_eq!(run.json["kind"], "element");
    assert_eq!(run.json["resolved"], "#top > a:nth-of-type(2)");
    let run = sb.call_in("semantic", 
        "file_read",
        json!({"file": "site/index.html", "selector": "ul.items li:nth-child(2)", "format": "body"}),
    );
    assert_eq!(run.json["content"], "two");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "site/index.html", "selector": "li, img"}),
    );
    assert_eq!(run.json["results"].as_array().unwrap().len(), 3);
    let run = sb.filekit(&["read", "--outline", "site/index.html"], None);
    let content = &run.stdout;
    assert!(
        content.contains("    element #top (lines 4-7): <nav id=\"top\" class=\"bar dark\">"),
        "{content}"
    );
    let run = sb.filekit(
        &["read", "site/index.html", "--selector", "img[alt=logo]"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("<img src=\"logo.png\" alt=\"logo\">"),
        "{}",
        run.stdout
    );
}

#[test]
fn html_edits_by_selector() {
    let sb = sandbox();
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "site/index.html", "edits": [
            {"target": "ul.items", "operation": "insert_into", "content": "<li>three</li>"},
            {"target": "nav a:first-child", "operation": "replace_body", "content": "Start"},
            {"target": "img", "operation": "wrap", "wrapper": {"before": "<figure>", "after": "</figure>"}},
            {"target": "a[href='/docs']", "operation": "insert_after", "content": "<a href=\"/blog\">Blog</a>"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("site/index.html"),
        "\
<!DOCTYPE html>
<html>
<body>
  <nav id=\"top\" class=\"bar dark\">
    <a href=\"/\">Start</a>
    <a href=\"/docs\" class=\"active\">Docs</a>
    <a href=\"/blog\">Blog</a>
  </nav>
  <ul class=\"items\">
    <li>one</li>
    <li>two</li>
    <li>three</li>
  </ul>
  <figure>
    <img src=\"logo.png\" alt=\"logo\">
  </figure>
</body>
</html>
"
    );
    // Every match of a selector is edited.
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "site/index.html", "target": "li", "operation": "delete"}),
    );
    assert_eq!(run.json["totalEdits"], 3, "{}", run.stdout);
    assert!(
        sb.read("site/index.html")
            .contains("<ul class=\"items\">\n  </ul>")
    );
}

#[test]
fn html_bad_inputs_change_nothing() {
    let sb = sandbox();
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "site/index.html", "selector": "nav >> a"}),
        1,
        &["invalid CSS selector", "at character 6"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "site/index.html", "selector": "a:hover"}),
        1,
        &[":hover is not supported", "supported:"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "site/index.html", "selector": "section"}),
        1,
        &["selector 'section' not found", "nearest available"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "site/index.html", "target": "img", "operation": "replace_body", "content": "x"}),
        1,
        &["void or self-closing"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "site/index.html", "target": "ul", "operation": "replace", "content": "<ul><li>x</ul"}),
        1,
        &["would not parse"],
    );
}

#[test]
fn xml_reads_by_xpath() {
    let sb = sandbox();
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "xpath": "//PackageReference[@Include='Dapper']"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.json["content"],
        "<PackageReference Include=\"Dapper\" Version=\"2.1.0\" />"
    );
    assert_eq!(
        run.json["resolved"],
        "/Project/ItemGroup/PackageReference[2]"
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "xpath": "//PackageReference/@Version"}),
    );
    let results = run.json["results"].as_array().unwrap();
    assert_eq!(results[1]["content"], "Version=\"2.1.0\"");
    assert_eq!(results[1]["kind"], "attribute");
    let run = sb.call_in("semantic", 
        "file_read",
        json!({"file": "App.csproj", "xpath": "/Project/PropertyGroup/TargetFramework", "format": "body"}),
    );
    assert_eq!(run.json["content"], "net8.0");
    let run = sb.filekit(&["read", "--outline", "App.csproj"], None);
    assert!(
        run.stdout
            .contains("  element /Project/ItemGroup (lines 7-10): <ItemGroup>"),
        "{}",
        run.stdout
    );
    let run = sb.filekit(&["read", "App.csproj", "--xpath", "//Nullable"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("<Nullable>enable</Nullable>"),
        "{}",
        run.stdout
    );
    // SVG: the default namespace is the prefix d.
    sb.write(
        "icon.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\">\n  <rect width=\"4\"/>\n</svg>\n",
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "icon.svg", "xpath": "//d:rect/@width"}),
    );
    assert_eq!(run.json["content"], "width=\"4\"", "{}", run.stdout);
}

#[test]
fn xml_edits_by_xpath() {
    let sb = sandbox();
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "App.csproj", "edits": [
            {"target": "//PackageReference[@Include='Serilog']/@Version", "operation": "replace_body", "content": "4.0.0"},
            {"target": "/Project/ItemGroup", "operation": "insert_into", "content": "<PackageReference Include=\"Polly\" Version=\"8.0.0\" />"},
            {"target": "//Nullable", "operation": "delete"},
            {"target": "//TargetFramework/text()", "operation": "replace", "content": "net9.0"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("App.csproj"),
        "\
<Project Sdk=\"Microsoft.NET.Sdk\">
  <!-- build settings -->
  <PropertyGroup>
    <TargetFramework>net9.0</TargetFramework>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include=\"Serilog\" Version=\"4.0.0\" />
    <PackageReference Include=\"Dapper\" Version=\"2.1.0\" />
    <PackageReference Include=\"Polly\" Version=\"8.0.0\" />
  </ItemGroup>
</Project>
"
    );
    // dry run writes nothing.
    let before = sb.snapshot();
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "App.csproj", "target": "//PackageReference", "operation": "delete", "dryRun": true}),
    );
    assert_eq!(run.json["totalEdits"], 3, "{}", run.stdout);
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("-    <PackageReference Include=\"Dapper\"")
    );
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn xml_bad_inputs_change_nothing() {
    let sb = sandbox();
    sb.write("bad.xml", "<a>\n  <b>\n</a>\n");
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "xpath": "//ItemGroup]"}),
        1,
        &["invalid XPath", "at character 12"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "xpath": "count(//PackageReference)"}),
        1,
        &["evaluates to the number 2, not to nodes"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "xpath": "//Package"}),
        1,
        &[
            "xpath '//Package' not found",
            "/Project/ItemGroup/PackageReference[1]",
        ],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "bad.xml", "xpath": "//b"}),
        1,
        &["the XML does not parse", "line 3"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "App.csproj", "target": "//Nullable", "operation": "replace", "content": "<Nullable>x</Null>"}),
        1,
        &["would not parse"],
    );
    sb.call_fails_in("semantic", 
        "file_edit",
        json!({"file": "App.csproj", "target": "//PackageReference[1]", "operation": "replace_body", "content": "x"}),
        1,
        &["void or self-closing"],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "App.csproj", "selector": "Project"}),
        2,
        &["name its targets with `xpath`"],
    );
}

const WEB_CONFIG: &str = "\
<?xml version=\"1.0\" encoding=\"utf-8\"?>
<configuration>
  <appSettings>
    <add key=\"mode\" value=\"prod\" />
  </appSettings>
</configuration>
";

/// A file whose name says nothing of its kind is targeted by its content: the same XML as
/// `web.config`, with no extension and as `settings.data`; JSON, YAML, HTML and Markdown too.
#[test]
fn a_file_of_unknown_name_is_targeted_by_its_content() {
    let sb = Sandbox::new();
    for name in ["web.config", "appsettings", "settings.data"] {
        sb.write(name, WEB_CONFIG);
        let run = sb.call_in(
            "semantic",
            "file_read",
            json!({"file": name, "xpath": "//configuration/appSettings"}),
        );
        assert_eq!(run.code, 0, "{name}: {}", run.stdout);
        assert_eq!(
            run.json["content"],
            "<appSettings>\n    <add key=\"mode\" value=\"prod\" />\n  </appSettings>",
            "{name}"
        );
    }
    sb.write(
        "package.lock.data",
        "{\"deps\": {\"left-pad\": \"1.3.0\"}}\n",
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "package.lock.data", "path": "$.deps['left-pad']"}),
    );
    assert_eq!(run.json["content"], "\"1.3.0\"", "{}", run.stdout);
    sb.write("deploy.conf", CONFIG);
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "deploy.conf", "path": "$.replicas"}),
    );
    assert_eq!(run.json["content"], "2", "{}", run.stdout);
    sb.write("page.tpl", PAGE);
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "page.tpl", "selector": "a.active"}),
    );
    assert_eq!(
        run.json["content"], "<a href=\"/docs\" class=\"active\">Docs</a>",
        "{}",
        run.stdout
    );
    sb.write("NOTES", "# Notes\n\nintro\n\n## Build\n\nrun make\n");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "NOTES", "heading": "Build"}),
    );
    assert_eq!(
        run.json["content"], "## Build\n\nrun make\n",
        "{}",
        run.stdout
    );
    let run = sb.filekit(&["read", "web.config", "--xpath", "//add/@value"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("value=\"prod\""), "{}", run.stdout);

    // file_edit names no kind: the content's decides.
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "web.config", "target": "//add[@key='mode']/@value", "operation": "replace_body", "content": "dev"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("web.config"),
        WEB_CONFIG.replace("value=\"prod\"", "value=\"dev\"")
    );
}

/// A query the content is not for is refused with what the content is, and nothing is written.
#[test]
fn a_query_the_content_does_not_read_is_refused_with_what_it_is() {
    let sb = Sandbox::new();
    sb.write("settings.data", "{\"a\": 1}\n");
    sb.write("readme.txt", "just some words\n");
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "settings.data", "xpath": "//a"}),
        2,
        &[
            "`xpath` reads XML",
            "content is JSON",
            "name its targets with `path`",
        ],
    );
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "readme.txt", "heading": "Intro"}),
        2,
        &[
            "`heading` reads Markdown",
            "content is plain text",
            "read_files",
        ],
    );
    sb.call_fails_in(
        "semantic",
        "file_edit",
        json!({"file": "readme.txt", "target": "$.a", "operation": "delete"}),
        2,
        &["content is plain text"],
    );
    // No target kind named: the name decides, as before.
    sb.call_fails_in(
        "semantic",
        "file_read",
        json!({"file": "settings.data", "symbol": "a"}),
        2,
        &["does not support this file type"],
    );
}
