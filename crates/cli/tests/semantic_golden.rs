//! Golden cases of the `semantic` dialect (`file_read`, `file_edit`, `file_create`,
//! `file_delete`, `file_move`, `file_rename`, `file_duplicate`): no real tool ships this set,
//! so every row is an example of what the table's reference page (docs/tools/semantic.md)
//! and descriptions promise, named beside it, or a bad input of it. Refactors that need a
//! language server are left out: the rename here is the syntactic one (its reply says so).
//! Each row runs through `filekit call` and over MCP stdio (see `golden/mod.rs`); over MCP
//! the text content the model reads is checked (`reads`).
//!
//! Hints are checked word for word, in the tool's own arguments (`overwrite: true`,
//! `recursive: true`, or what to do where it has none); edits of a list are counted from 1.

use crate::golden::*;
use serde_json::json;

const READ_SYMBOL: &str = "file_read, Output Examples, \"Symbol read (TypeScript)\": UserService in src/services/UserService.ts, lines 5-15, kind class, signature \"class UserService\"";
const READ_JSON: &str =
    "file_read, Output Examples, \"JSON path read\": package.json, $.scripts, lines 8-11";
const READ_CSS: &str = "file_read, Output Examples, \"CSS selector read\": src/styles/button.css, .button, lines 15-18";
const TARGETS: &str =
    "Targeting Examples: a target per file type (symbol, path, selector, xpath, heading)";
const READ_PARAMS: &str = "file_read, Parameters: file (required); symbol, symbols, path, selector, xpath, heading (use one based on file type); around, region, format, includeMetadata, maxLines";
const EDIT_BODY: &str = "file_edit, Output Examples, \"Replace body\": {operation: replace_body, file: src/utils.ts, target: calculateTotal, filesAffected: 1, totalEdits: 1}";
const EDIT_PARAMS: &str = "file_edit, Parameters (Direct Edit Mode): file, target, operation (replace, replace_body, insert_before, insert_after, insert_into, wrap, delete), content, position; Options: dryRun";
const EDIT_LIST: &str = "file_edit, Parameters (Direct Edit Mode: target, operation, content), several at once in filekit's `edits` list (its schema: \"Several edits of the same file, applied together or not at all\")";
const EDIT_RENAME: &str = "file_edit, Output Examples, \"Multi-file rename\": rename_symbol UserService → AuthService, summary \"Renamed UserService → AuthService (3 files, 6 edits)\"";
const CREATE: &str = "file_create, Returns: {path: src/services/PaymentService.ts, created: true, template: typescript-class, summary: \"Created src/services/PaymentService.ts (245 bytes)\"}";
const CREATE_PARAMS: &str = "file_create, Parameters: path, content, template, templateVars, overwrite (default false), createDirectories (default true)";
const DELETE: &str = "file_delete, Returns: deleted [src/services/OldService.ts], updatedFiles src/index.ts removedImports OldService, summary \"Deleted 1 file, removed 2 imports\"";
const DELETE_PARAMS: &str = "file_delete, Parameters: path or paths, recursive (default false), updateImports (default true), dryRun";
const MOVE: &str = "file_move, Returns: src/services/UserService.ts → src/auth/services/UserService.ts, importsUpdated in src/controllers/AuthController.ts (\"../services/UserService\" → \"../auth/services/UserService\")";
const MOVE_PARAMS: &str = "file_move, Parameters: source, destination (required), updateImports, overwrite (default false), dryRun";
const RENAME: &str = "file_rename, Returns: src/services/UserService.ts → src/services/AuthService.ts, import \"./UserService\" → \"./AuthService\", exportsRenamed \"class UserService\" → \"class AuthService\"";
const RENAME_PARAMS: &str = "file_rename, Parameters: path, newName (\"New filename (not full path)\"), updateImports (default true), renameExports (default false)";
const DUPLICATE: &str = "file_duplicate, Returns: src/services/UserService.ts → src/services/AdminService.ts, symbolsRenamed UserService → AdminService";
const DUPLICATE_PARAMS: &str = "file_duplicate, Parameters: source, destination (required), renameSymbols (default false), overwrite (default false)";
const STRICT: &str = "strict arguments: an argument the tool does not have is refused, naming the closest one, and nothing is done";

/// src/services/UserService.ts of §4.1's example: the class on lines 5-15.
const USER_SERVICE: &str = "import { Database } from '../db';\nimport { User } from '../types';\n\n// Users, by id\nexport class UserService {\n  private db: Database;\n\n  constructor(db: Database) {\n    this.db = db;\n  }\n\n  async findById(id: string): Promise<User | null> {\n    return this.db.users.findUnique({ where: { id } });\n  }\n}\n";
/// package.json of §4.1's example: "scripts" on lines 8-11.
const PACKAGE_JSON: &str = "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"main\": \"index.js\",\n  \"license\": \"MIT\",\n  \"type\": \"module\",\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"test\": \"vitest\"\n  },\n  \"dependencies\": {\n    \"express\": \"^4.18.0\"\n  }\n}\n";
const UTILS_TS: &str = "export function calculateTotal(items: number[]): number {\n  let total = 0;\n  return total;\n}\n";
const INDEX_TS: &str = "import { UserService } from './services/UserService';\nexport const users: UserService = new UserService(db);\n";
const CONTROLLER_TS: &str = "import { UserService } from '../services/UserService';\nexport function login(s: UserService) { return s; }\n";
const PAGE_HTML: &str = "<html><body>\n<div id=\"header\">Top</div>\n<nav><ul><li>One</li><li>Two</li></ul></nav>\n<div class=\"container\"><p>Body</p></div>\n</body></html>\n";
const README_MD: &str = "# Tool\n\nIntro.\n\n## Getting Started\n\nRun it.\n\n## Installation\n\nnpm i tool\n\n## Usage\n\nCall it.\n";
const SMALL_SERVICE: &str =
    "export class UserService {\n  static make(): UserService { return new UserService(); }\n}\n";

/// src/styles/button.css of §4.1's example: `.button` on lines 15-18.
fn button_css() -> String {
    let mut css = String::new();
    for i in 1..=3 {
        css.push_str(&format!(".c{i} {{\n  margin: {i}px;\n}}\n\n"));
    }
    css.push_str("/* buttons */\n\n");
    css.push_str(".button {\n  padding: 8px 16px;\n  background: var(--primary);\n}\n");
    css
}

fn cases() -> Vec<Case> {
    vec![
        // ---- file_read
        case("read_a_class_by_symbol", READ_SYMBOL, "file_read",
            json!({"file": "src/services/UserService.ts", "symbol": "UserService"}))
            .file("src/services/UserService.ts", USER_SERVICE)
            .shows(&["export class UserService {", "async findById(id: string): Promise<User | null> {"])
            .hides(&["// Users, by id"])
            .reads(&["symbol UserService (class, lines 5-15)"]),
        case("read_a_method_by_class_dot_method", "Targeting Examples, TypeScript: \"UserService.findById\"", "file_read",
            json!({"file": "src/services/UserService.ts", "symbol": "UserService.findById"}))
            .file("src/services/UserService.ts", USER_SERVICE)
            .shows(&["return this.db.users.findUnique({ where: { id } });"])
            .hides(&["constructor"])
            .reads(&["symbol UserService.findById (method, lines 12-14)"]),
        case("read_a_signature_only", READ_PARAMS, "file_read",
            json!({"file": "src/services/UserService.ts", "symbol": "UserService", "format": "signature"}))
            .file("src/services/UserService.ts", USER_SERVICE)
            .shows(&["class UserService"]).hides(&["findUnique"]),
        case("read_json_by_path", READ_JSON, "file_read",
            json!({"file": "package.json", "path": "$.scripts"}))
            .file("package.json", PACKAGE_JSON)
            .shows(&["\"build\": \"tsc\",", "\"test\": \"vitest\""]).hides(&["express"])
            .reads(&["(object, lines 8-11)"]),
        case("read_json_leaf_by_path", "Targeting Examples, JSON: \"$.scripts.build\"", "file_read",
            json!({"file": "package.json", "path": "$.scripts.build"}))
            .file("package.json", PACKAGE_JSON)
            .shows(&["\"tsc\""]).hides(&["vitest"]),
        case("read_yaml_by_path", "Targeting by File Type: YAML (.yaml, .yml) by JSONPath", "file_read",
            json!({"file": "config.yaml", "path": "$.scripts.build"}))
            .file("config.yaml", "name: app\nscripts:\n  build: tsc\n  test: vitest\n")
            .shows(&["tsc"]).hides(&["vitest"]).reads(&["(string, lines 3-3)"]),
        case("read_css_by_selector", READ_CSS, "file_read",
            json!({"file": "src/styles/button.css", "selector": ".button"}))
            .file("src/styles/button.css", button_css())
            .shows(&[".button {", "padding: 8px 16px;", "background: var(--primary);"]).hides(&["margin"])
            .reads(&["(rule, lines 15-18)"]),
        case("read_css_at_rule", TARGETS, "file_read",
            json!({"file": "m.css", "selector": "@media screen"}))
            .file("m.css", ".button { padding: 1px; }\n@media screen {\n  .button { padding: 2px; }\n}\n")
            .shows(&["@media screen {", ".button { padding: 2px; }"]).hides(&["padding: 1px"]),
        case("read_html_by_id", TARGETS, "file_read",
            json!({"file": "page.html", "selector": "#header"}))
            .file("page.html", PAGE_HTML)
            .shows(&["<div id=\"header\">Top</div>"]).hides(&["container"]),
        case("read_html_every_match_of_a_descendant_selector", TARGETS, "file_read",
            json!({"file": "page.html", "selector": "nav ul li"}))
            .file("page.html", PAGE_HTML)
            .shows(&["<li>One</li>", "<li>Two</li>"]).hides(&["Body"]),
        case("read_html_by_class", TARGETS, "file_read",
            json!({"file": "page.html", "selector": "div.container"}))
            .file("page.html", PAGE_HTML)
            .shows(&["<div class=\"container\"><p>Body</p></div>"]).hides(&["Top"]),
        case("read_xml_by_xpath", TARGETS, "file_read",
            json!({"file": "web.config.xml", "xpath": "//configuration/appSettings"}))
            .file("web.config.xml", "<?xml version=\"1.0\"?>\n<configuration>\n  <appSettings>\n    <add key=\"Mode\" value=\"dev\"/>\n  </appSettings>\n  <system.web/>\n</configuration>\n")
            .shows(&["<add key=\"Mode\" value=\"dev\"/>"]).hides(&["system.web"]),
        case("read_csproj_by_xpath", TARGETS, "file_read",
            json!({"file": "app.csproj", "xpath": "//Project/PropertyGroup"}))
            .file("app.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup/>\n</Project>\n")
            .shows(&["<TargetFramework>net8.0</TargetFramework>"]).hides(&["ItemGroup"]),
        case("read_markdown_by_heading_with_hashes", TARGETS, "file_read",
            json!({"file": "README.md", "heading": "## Installation"}))
            .file("README.md", README_MD)
            .shows(&["## Installation", "npm i tool"]).hides(&["## Usage", "Run it."]),
        case("read_markdown_by_heading_text", TARGETS, "file_read",
            json!({"file": "README.md", "heading": "Getting Started"}))
            .file("README.md", README_MD)
            .shows(&["## Getting Started", "Run it."]).hides(&["npm i tool"]),
        case("read_unknown_symbol_names_the_nearest", READ_SYMBOL, "file_read",
            json!({"file": "src/services/UserService.ts", "symbol": "UserServise"}))
            .file("src/services/UserService.ts", USER_SERVICE).fails()
            .shows(&["symbol 'UserServise' not found", "UserService (class)"]),
        case("read_unknown_json_path_names_what_exists", READ_JSON, "file_read",
            json!({"file": "package.json", "path": "$.script"}))
            .file("package.json", PACKAGE_JSON).fails()
            .shows(&["path '$.script' not found", "$.scripts (object)"]),
        case("read_xpath_on_typescript_is_refused", "Targeting by File Type: TypeScript is targeted by Symbol, XML by XPath", "file_read",
            json!({"file": "src/services/UserService.ts", "xpath": "//class"}))
            .file("src/services/UserService.ts", USER_SERVICE).rejected()
            .shows(&["`xpath` does not apply to src/services/UserService.ts: name its targets with `symbol`"]),
        case("read_misspelled_symbol_is_refused", STRICT, "file_read",
            json!({"file": "src/services/UserService.ts", "symbl": "UserService"}))
            .file("src/services/UserService.ts", USER_SERVICE).rejected()
            .shows(&["unknown argument `symbl`; did you mean `symbol`?"]),
        case("read_missing_file_fails", READ_PARAMS, "file_read",
            json!({"file": "src/services/UserService.ts", "symbol": "UserService"}))
            .fails().shows(&["src/services/UserService.ts does not exist"]),
        // ---- file_edit
        case("edit_replace_body", EDIT_BODY, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "replace_body",
                "content": "return items.reduce((a, b) => a + b, 0);"}))
            .file("src/utils.ts", UTILS_TS)
            .shows(&["replace_body", "calculateTotal", "src/utils.ts"])
            .reads(&["+  return items.reduce((a, b) => a + b, 0);"])
            .then("src/utils.ts", Some("export function calculateTotal(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n")),
        case("edit_insert_a_method_into_a_class", "file_edit, question patterns: \"Add a method to this class\" → insert operation (insert_into, position default \"last\")", "file_edit",
            json!({"file": "src/services/UserService.ts", "target": "UserService", "operation": "insert_into",
                "content": "count(): number { return 0; }"}))
            .file("src/services/UserService.ts", SMALL_SERVICE)
            .shows(&["insert_into", "UserService"])
            .then("src/services/UserService.ts", Some("export class UserService {\n  static make(): UserService { return new UserService(); }\n  count(): number { return 0; }\n}\n")),
        case("edit_delete_a_method", EDIT_PARAMS, "file_edit",
            json!({"file": "src/services/UserService.ts", "target": "UserService.constructor", "operation": "delete"}))
            .file("src/services/UserService.ts", USER_SERVICE)
            .shows(&["UserService.constructor"])
            .then("src/services/UserService.ts", Some(&USER_SERVICE.replace("  constructor(db: Database) {\n    this.db = db;\n  }\n\n", ""))),
        case("edit_delete_the_last_method_leaves_no_blank_line", EDIT_PARAMS, "file_edit",
            json!({"file": "src/services/UserService.ts", "target": "UserService.findById", "operation": "delete"}))
            .file("src/services/UserService.ts", USER_SERVICE)
            .shows(&["UserService.findById"])
            .then("src/services/UserService.ts", Some(&USER_SERVICE.replace("\n  async findById(id: string): Promise<User | null> {\n    return this.db.users.findUnique({ where: { id } });\n  }\n", ""))),
        case("edit_wrap_in_a_comment_keeps_the_indentation", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "wrap",
                "wrapper": {"before": "/* disabled", "after": "*/"}}))
            .file("src/utils.ts", UTILS_TS)
            .shows(&["wrap"])
            .then("src/utils.ts", Some(&format!("/* disabled\n{UTILS_TS}*/\n"))),
        case("edit_wrap_in_a_block_indents_the_target", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "wrap",
                "wrapper": {"before": "if (DEBUG) {", "after": "}"}}))
            .file("src/utils.ts", UTILS_TS)
            .shows(&["wrap"])
            .then("src/utils.ts", Some("if (DEBUG) {\n  export function calculateTotal(items: number[]): number {\n    let total = 0;\n    return total;\n  }\n}\n")),
        case("edit_dry_run_changes_nothing", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "replace_body",
                "content": "return 0;", "dryRun": true}))
            .file("src/utils.ts", UTILS_TS)
            .reads(&["Would apply replace_body to calculateTotal", "+  return 0;"])
            .then("src/utils.ts", Some(UTILS_TS)),
        case("edit_rename_symbol_across_files", EDIT_RENAME, "file_edit",
            json!({"refactor": "rename_symbol", "file": "src/services/UserService.ts", "symbol": "UserService", "newName": "AuthService"}))
            .file("src/services/UserService.ts", "export class UserService {}\n")
            .file("src/index.ts", INDEX_TS).file("src/controllers/AuthController.ts", CONTROLLER_TS)
            .shows(&["Renamed UserService → AuthService (3 files, 6 edits; syntactic)"])
            .then("src/services/UserService.ts", Some("export class AuthService {}\n"))
            .then("src/index.ts", Some(&INDEX_TS.replace("UserService }", "AuthService }").replace(": UserService = new UserService", ": AuthService = new AuthService")))
            .then("src/controllers/AuthController.ts", Some(&CONTROLLER_TS.replace("{ UserService }", "{ AuthService }").replace("s: UserService", "s: AuthService"))),
        case("edit_unknown_operation_is_refused", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "replaceBody", "content": "return 0;"}))
            .file("src/utils.ts", UTILS_TS).rejected()
            .shows(&["argument `operation`: unknown value `replaceBody`, expected one of: replace, replace_body, insert_before, insert_after, insert_into, wrap, delete (fix this"])
            .hides(&["(one of replace"]),
        // One edit (target + operation) has no number; edits in a list are counted from 1,
        // with the JSON index beside.
        case("edit_without_content_is_refused", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotal", "operation": "replace_body"}))
            .file("src/utils.ts", UTILS_TS).rejected()
            .shows(&["this operation needs `content`"]).hides(&["edit 0", "edit 1"]),
        case("edit_list_names_the_edit_without_content_from_1", EDIT_LIST, "file_edit",
            json!({"file": "src/services/UserService.ts", "edits": [
                {"target": "UserService.constructor", "operation": "delete"},
                {"target": "UserService.findById", "operation": "replace_body"}]}))
            .file("src/services/UserService.ts", USER_SERVICE).rejected()
            .shows(&["edit 2 (edits[1]): this operation needs `content`"]),
        case("edit_list_overlap_names_both_edits_from_1", EDIT_LIST, "file_edit",
            json!({"file": "src/services/UserService.ts", "edits": [
                {"target": "UserService.findById", "operation": "replace_body", "content": "return null;"},
                {"target": "UserService", "operation": "delete"}]}))
            .file("src/services/UserService.ts", USER_SERVICE).fails()
            .shows(&["edit 2 (UserService) overlaps edit 1 (UserService.findById): they change the same text"])
            .hides(&["edits 0", "edit 0"])
            .then("src/services/UserService.ts", Some(USER_SERVICE)),
        case("edit_unknown_target_names_the_nearest", EDIT_PARAMS, "file_edit",
            json!({"file": "src/utils.ts", "target": "calculateTotals", "operation": "delete"}))
            .file("src/utils.ts", UTILS_TS).fails()
            .shows(&["symbol 'calculateTotals' not found", "calculateTotal (function)"]),
        case("edit_misspelled_new_name_is_refused", STRICT, "file_edit",
            json!({"refactor": "rename_symbol", "file": "src/services/UserService.ts", "symbol": "UserService", "new_name": "AuthService"}))
            .file("src/services/UserService.ts", SMALL_SERVICE).rejected()
            .shows(&["unknown argument `new_name`; did you mean `newName`?"]),
        // ---- file_create
        case("create_from_a_template", CREATE, "file_create",
            json!({"path": "src/services/PaymentService.ts", "template": "typescript-class", "templateVars": {"name": "PaymentService"}}))
            .shows(&["Created src/services/PaymentService.ts (51 bytes)"])
            .then("src/services/PaymentService.ts", Some("export class PaymentService {\n  constructor() {}\n}\n")),
        case("create_with_content_makes_the_directories", CREATE_PARAMS, "file_create",
            json!({"path": "src/services/PaymentService.ts", "content": "export {};\n"}))
            .shows(&["Created src/services/PaymentService.ts (11 bytes)"])
            .then("src/services/PaymentService.ts", Some("export {};\n")),
        case("create_over_an_existing_file_fails", CREATE_PARAMS, "file_create",
            json!({"path": "src/utils.ts", "content": "x"}))
            .file("src/utils.ts", UTILS_TS).fails()
            .shows(&["already exists", "pass overwrite: true to replace its whole content"]),
        case("create_with_overwrite_replaces", CREATE_PARAMS, "file_create",
            json!({"path": "src/utils.ts", "content": "export const x = 1;\n", "overwrite": true}))
            .file("src/utils.ts", UTILS_TS)
            .shows(&["src/utils.ts"]).then("src/utils.ts", Some("export const x = 1;\n")),
        case("create_unknown_template_is_refused", "file_create, Templates: typescript-module, typescript-class, ..., markdown-readme", "file_create",
            json!({"path": "src/Pay.ts", "template": "typescript-klass"}))
            .rejected().shows(&["there is no template 'typescript-klass'", "typescript-class"])
            .then("src/Pay.ts", None),
        // ---- file_delete
        case("delete_removes_the_imports_of_the_file", DELETE, "file_delete",
            json!({"path": "src/services/OldService.ts"}))
            .file("src/services/OldService.ts", "export class OldService {}\n")
            .file("src/index.ts", "import { OldService } from './services/OldService';\nexport const n = 1;\n")
            .reads(&["Deleted src/services/OldService.ts (1 file), removed 1 import(s) from src/index.ts"])
            .then("src/services/OldService.ts", None)
            .then("src/index.ts", Some("export const n = 1;\n")),
        case("delete_several_paths_dry_run", DELETE_PARAMS, "file_delete",
            json!({"paths": ["a.ts", "b.ts"], "dryRun": true}))
            .file("a.ts", "a\n").file("b.ts", "b\n")
            .reads(&["Would delete a.ts, b.ts (2 files)"])
            .then("a.ts", Some("a\n")).then("b.ts", Some("b\n")),
        case("delete_a_directory_needs_recursive", DELETE_PARAMS, "file_delete",
            json!({"path": "src/old"}))
            .file("src/old/a.ts", "a\n").fails()
            .shows(&["is a directory with 1 entry in it", "pass recursive: true to delete it with everything in it"]),
        case("delete_a_directory_recursively", DELETE_PARAMS, "file_delete",
            json!({"path": "src/old", "recursive": true}))
            .file("src/old/a.ts", "a\n").file("src/keep.ts", "k\n")
            .reads(&["Deleted src/old (1 file)"]).then("src/old/a.ts", None).then("src/keep.ts", Some("k\n")),
        case("delete_without_a_path_is_refused", DELETE_PARAMS, "file_delete", json!({}))
            .rejected().shows(&["no path given (give `path`, or several paths in `paths`)"]),
        // ---- file_move
        case("move_updates_the_imports", MOVE, "file_move",
            json!({"source": "src/services/UserService.ts", "destination": "src/auth/services/UserService.ts"}))
            .file("src/services/UserService.ts", SMALL_SERVICE).file("src/controllers/AuthController.ts", CONTROLLER_TS)
            .shows(&["src/auth/services/UserService.ts"])
            .then("src/services/UserService.ts", None)
            .then("src/auth/services/UserService.ts", Some(SMALL_SERVICE))
            .then("src/controllers/AuthController.ts", Some(&CONTROLLER_TS.replace("'../services/UserService'", "'../auth/services/UserService'"))),
        case("move_a_missing_source_fails", MOVE_PARAMS, "file_move",
            json!({"source": "src/services/UserService.ts", "destination": "src/auth/services/UserService.ts"}))
            .fails().shows(&["src/services/UserService.ts does not exist"])
            .then("src/auth/services/UserService.ts", None),
        case("move_onto_an_existing_file_fails", MOVE_PARAMS, "file_move",
            json!({"source": "a.ts", "destination": "b.ts"}))
            .file("a.ts", "a\n").file("b.ts", "b\n").fails().shows(&["already exists"]),
        case("move_with_from_is_refused", STRICT, "file_move",
            json!({"from": "a.ts", "destination": "b.ts"}))
            .file("a.ts", "a\n").rejected()
            .shows(&["unknown argument `from`", "source, destination"]).then("b.ts", None),
        // ---- file_rename
        case("rename_updates_imports_and_exports", RENAME, "file_rename",
            json!({"path": "src/services/UserService.ts", "newName": "AuthService.ts", "renameExports": true}))
            .file("src/services/UserService.ts", SMALL_SERVICE)
            .file("src/index.ts", "import { UserService } from './services/UserService';\nexport const s = UserService.make();\n")
            .shows(&["AuthService.ts"])
            .then("src/services/UserService.ts", None)
            .then("src/services/AuthService.ts", Some(&SMALL_SERVICE.replace("UserService", "AuthService")))
            .then("src/index.ts", Some("import { AuthService } from './services/AuthService';\nexport const s = AuthService.make();\n")),
        case("rename_keeps_the_exports_by_default", RENAME_PARAMS, "file_rename",
            json!({"path": "src/services/UserService.ts", "newName": "AuthService.ts"}))
            .file("src/services/UserService.ts", SMALL_SERVICE)
            .file("src/index.ts", "import { UserService } from './services/UserService';\n")
            .shows(&["AuthService.ts"])
            .then("src/services/AuthService.ts", Some(SMALL_SERVICE))
            .then("src/index.ts", Some("import { UserService } from './services/AuthService';\n")),
        case("rename_to_a_path_is_refused", RENAME_PARAMS, "file_rename",
            json!({"path": "src/services/UserService.ts", "newName": "auth/AuthService.ts"}))
            .file("src/services/UserService.ts", SMALL_SERVICE).rejected()
            .shows(&["newName must be a file name, not a path", "use file_move"]),
        // ---- file_duplicate
        case("duplicate_renaming_the_symbols", DUPLICATE, "file_duplicate",
            json!({"source": "src/services/UserService.ts", "destination": "src/services/AdminService.ts", "renameSymbols": true}))
            .file("src/services/UserService.ts", SMALL_SERVICE)
            .reads(&["Duplicated src/services/UserService.ts to src/services/AdminService.ts with 3 symbol rename(s)"])
            .then("src/services/UserService.ts", Some(SMALL_SERVICE))
            .then("src/services/AdminService.ts", Some(&SMALL_SERVICE.replace("UserService", "AdminService"))),
        case("duplicate_keeps_the_symbols_by_default", DUPLICATE_PARAMS, "file_duplicate",
            json!({"source": "src/services/UserService.ts", "destination": "src/services/AdminService.ts"}))
            .file("src/services/UserService.ts", SMALL_SERVICE)
            .shows(&["src/services/AdminService.ts"])
            .then("src/services/AdminService.ts", Some(SMALL_SERVICE)),
        case("duplicate_onto_an_existing_file_fails", DUPLICATE_PARAMS, "file_duplicate",
            json!({"source": "a.ts", "destination": "b.ts"}))
            .file("a.ts", "a\n").file("b.ts", "b\n").fails()
            .shows(&["already exists", "pass overwrite: true to replace it, or choose another destination"])
            .hides(&["ask to overwrite"]),
        case("duplicate_a_missing_source_fails", DUPLICATE_PARAMS, "file_duplicate",
            json!({"source": "a.ts", "destination": "b.ts"}))
            .fails().shows(&["a.ts does not exist"]).then("b.ts", None),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("semantic", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("semantic", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "semantic",
        &cases(),
        &[
            "file_read",
            "file_edit",
            "file_create",
            "file_delete",
            "file_move",
            "file_rename",
            "file_duplicate",
        ],
        15,
    );
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("semantic", &cases());
}
