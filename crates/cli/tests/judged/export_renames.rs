//! Symbol renames that go with file operations (the semantic table's `renameExports`,
//! `exportMapping`, `symbolMapping`, `renameSymbols`), and import updates of the other
//! tables' file operations (`manage_files`, `file:rename_file`), driven through
//! `filekit call` and checked on disk. The compiler-judged cases on rxjs are in
//! refactor_tsc.rs.

use crate::common;

use common::Sandbox;
use serde_json::json;

fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "src/services/user-service.ts",
        "import { Id } from '../types';\nexport class UserService {\n  id: Id = 0;\n  clone(): UserService { return new UserService(); }\n}\nexport const DEFAULT_ID: Id = 0;\n",
    );
    sb.write("src/types.ts", "export type Id = number;\n");
    sb.write(
        "src/app/main.ts",
        concat!(
            "import { UserService, DEFAULT_ID } from '../services/user-service';\n",
            "import type { UserService as Svc } from '../services/user-service';\n",
            "export { DEFAULT_ID as START } from '../services/user-service';\n",
            "const lazy = () => import('../services/user-service');\n",
            "function make(UserService: number) { return UserService + 1; }\n",
            "export const s: Svc = new UserService();\n",
            "export const all = [DEFAULT_ID, lazy, make];\n",
        ),
    );
    sb.write(
        "src/widget.tsx",
        "export default function Widget() { return <div />; }\nexport const size = Widget.length;\n",
    );
    sb.write(
        "src/app/page.tsx",
        "import Widget, { size } from '../widget';\nexport const P = () => <Widget />;\nexport const n = size;\n",
    );
    sb
}

#[test]
fn rename_exports_follows_kebab_names_keeps_shadowing_locals_and_warns_about_dynamic_imports() {
    let sb = project();
    let run = sb.call(
        "file_rename",
        json!({"path": "src/services/user-service.ts", "newName": "auth-service.ts", "renameExports": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("src/services/auth-service.ts"),
        "import { Id } from '../types';\nexport class AuthService {\n  id: Id = 0;\n  clone(): AuthService { return new AuthService(); }\n}\nexport const DEFAULT_ID: Id = 0;\n"
    );
    assert_eq!(
        sb.read("src/app/main.ts"),
        concat!(
            "import { AuthService, DEFAULT_ID } from '../services/auth-service';\n",
            "import type { AuthService as Svc } from '../services/auth-service';\n",
            "export { DEFAULT_ID as START } from '../services/auth-service';\n",
            "const lazy = () => import('../services/auth-service');\n",
            // A parameter that shadows the import is another binding: it stays.
            "function make(UserService: number) { return UserService + 1; }\n",
            "export const s: Svc = new AuthService();\n",
            "export const all = [DEFAULT_ID, lazy, make];\n",
        )
    );
    let warnings = run.json["warnings"].to_string();
    assert!(warnings.contains("import()"), "{}", run.stdout);
    assert_eq!(run.json["symbolsRenamed"][0]["old"], "UserService");
    assert_eq!(run.json["symbolsRenamed"][0]["new"], "AuthService");
}

#[test]
fn a_default_export_and_the_default_imports_named_after_it_follow() {
    let sb = project();
    let run = sb.call(
        "file_rename",
        json!({"path": "src/widget.tsx", "newName": "Gadget.tsx", "renameExports": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("src/Gadget.tsx"),
        "export default function Gadget() { return <div />; }\nexport const size = Gadget.length;\n"
    );
    assert_eq!(
        sb.read("src/app/page.tsx"),
        "import Gadget, { size } from '../Gadget';\nexport const P = () => <Gadget />;\nexport const n = size;\n"
    );
}

#[test]
fn a_dry_run_shows_the_renames_and_one_undo_reverts_move_imports_and_renames() {
    let sb = project();
    let before = sb.snapshot();
    let run = sb.call(
        "file_move",
        json!({"source": "src/services/user-service.ts", "destination": "src/core/user-service.ts",
               "exportMapping": {"DEFAULT_ID": "FIRST_ID"}, "dryRun": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(before, sb.snapshot(), "a dry run wrote");
    let diffs = run.json["diffs"].to_string();
    assert!(
        diffs.contains("+import { UserService, FIRST_ID } from '../core/user-service';"),
        "{diffs}"
    );
    assert!(
        diffs.contains("+export { FIRST_ID as START } from '../core/user-service';"),
        "{diffs}"
    );

    let run = sb.call(
        "file_move",
        json!({"source": "src/services/user-service.ts", "destination": "src/core/user-service.ts",
               "exportMapping": {"DEFAULT_ID": "FIRST_ID"}}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    // One rewrite per file: the specifier and the names of main.ts in one change.
    assert!(
        sb.read("src/app/main.ts")
            .contains("export const all = [FIRST_ID, lazy, make];")
    );
    assert!(
        sb.read("src/core/user-service.ts")
            .contains("export const FIRST_ID: Id = 0;")
    );
    let history = sb.filekit(&["history", "--json"], None);
    assert_eq!(
        history.json.as_array().unwrap().len(),
        1,
        "{}",
        history.stdout
    );
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    let reserved = sb.path(".filekit");
    let mut after = sb.snapshot();
    after.retain(|p, _| !p.starts_with(&reserved));
    let mut before = before;
    before.retain(|p, _| !p.starts_with(&reserved));
    assert!(before == after, "undo did not restore the tree");
}

#[test]
fn bad_renames_fail_clearly_and_change_nothing() {
    // Refused before anything is planned: exit code 2 (a bad request).
    let sb = project();
    let path = "src/services/user-service.ts";
    sb.call_fails(
        "file_rename",
        json!({"path": path, "newName": "x.ts", "exportMapping": {"Nope": "Yes"}}),
        2,
        &["does not export `Nope`", "UserService, DEFAULT_ID"],
    );
    // main.ts has a parameter named `make`, but a module-level clash is what counts:
    // `Svc` is bound at module level in main.ts.
    sb.call_fails(
        "file_rename",
        json!({"path": path, "newName": "x.ts", "exportMapping": {"UserService": "Svc"}}),
        2,
        &["src/app/main.ts", "`Svc` is already declared"],
    );
    sb.call_fails(
        "file_rename",
        json!({"path": path, "newName": "x.ts", "exportMapping": {"UserService": "DEFAULT_ID"}}),
        2,
        &["already"],
    );
    sb.call_fails(
        "file_rename",
        json!({"path": path, "newName": "x.ts", "exportMapping": {"UserService": "9lives"}}),
        2,
        &["not a valid identifier"],
    );
    sb.call_fails(
        "file_rename",
        json!({"path": path, "newName": "x.ts", "exportMapping": {"UserService": "A", "DEFAULT_ID": "A"}}),
        2,
        &["two symbols would be renamed to `A`"],
    );
    sb.call_fails(
        "file_rename",
        json!({"path": "src/types.ts", "newName": "kinds.ts", "renameExports": true}),
        2,
        &["no symbol named after the file", "Id"],
    );
    sb.call_fails(
        "file_move",
        json!({"source": "src/services", "destination": "src/svc", "renameExports": true}),
        2,
        &["directory"],
    );
    sb.call_fails(
        "file_duplicate",
        json!({"source": path, "destination": "src/x.ts", "symbolMapping": {"Missing": "X"}}),
        2,
        &["Missing"],
    );
}

#[test]
fn a_duplicate_renames_scope_aware_in_code_and_whole_words_elsewhere() {
    let sb = project();
    let run = sb.call(
        "file_duplicate",
        json!({"source": "src/services/user-service.ts", "destination": "src/admin/admin-service.ts",
               "renameSymbols": true, "symbolMapping": {"Id": "Key"}}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["precision"], "syntactic");
    // The imported `Id` is renamed locally (`Id as Key`), the import follows the copy.
    assert_eq!(
        sb.read("src/admin/admin-service.ts"),
        "import { Id as Key } from '../types';\nexport class AdminService {\n  id: Key = 0;\n  clone(): AdminService { return new AdminService(); }\n}\nexport const DEFAULT_ID: Key = 0;\n"
    );
    assert!(
        sb.read("src/app/main.ts")
            .contains("import { UserService, DEFAULT_ID }")
    );
    sb.write("notes/user.md", "UserService is the UserService.\n");
    let run = sb.call(
        "file_duplicate",
        json!({"source": "notes/user.md", "destination": "notes/admin.md", "symbolMapping": {"UserService": "AdminService"}}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["precision"], "textual");
    assert_eq!(
        sb.read("notes/admin.md"),
        "AdminService is the AdminService.\n"
    );
}

#[test]
fn manage_files_and_rename_file_keep_imports_right() {
    let sb = project();
    // manage_files (the curated table): moves, copies and deletes in one call.
    let run = sb.call(
        "manage_files",
        json!({"operations": [
            {"op": "move", "from": "src/services/user-service.ts", "to": "src/core/user-service.ts"},
            {"op": "copy", "from": "src/widget.tsx", "to": "src/ui/widget.tsx"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        sb.read("src/app/main.ts")
            .starts_with("import { UserService, DEFAULT_ID } from '../core/user-service';")
    );
    assert!(
        sb.read("src/core/user-service.ts")
            .starts_with("import { Id } from '../types';")
    );
    // The reply names the files whose imports it rewrote (the diff is in the history).
    assert!(
        run.json["imports_updated"]
            .to_string()
            .contains("src/app/main.ts"),
        "{}",
        run.stdout
    );
    // update_imports: false moves only.
    let main = sb.read("src/app/main.ts");
    let run = sb.call(
        "manage_files",
        json!({"operations": [{"op": "move", "from": "src/core/user-service.ts", "to": "src/user-service.ts"}], "update_imports": false}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("src/app/main.ts"), main);
    let run = sb.call(
        "manage_files",
        json!({"operations": [{"op": "move", "from": "src/user-service.ts", "to": "src/core/user-service.ts"}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    // A delete removes the declarations and lists the uses left behind.
    let run = sb.call(
        "manage_files",
        json!({"operations": [{"op": "delete", "path": "src/widget.tsx"}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("src/app/page.tsx"),
        "export const P = () => <Widget />;\nexport const n = size;\n"
    );
    assert_eq!(
        run.json["unresolved_uses"].as_array().unwrap().len(),
        2,
        "{}",
        run.stdout
    );

    // file:rename_file (no flag): imports always follow, the reply says where.
    let sb = project();
    let call = json!({"tool": "file:rename_file", "arguments": {"old_path": "src/types.ts", "new_path": "src/model/types.ts"}});
    let run = sb.filekit(&["call", "--json", &call.to_string()], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        sb.read("src/services/user-service.ts")
            .starts_with("import { Id } from '../model/types';")
    );
    assert_eq!(
        run.json["imports_updated"][0]["file"],
        "src/services/user-service.ts"
    );
    let run = sb.filekit(&["call", "--json", &json!({"tool": "file:rename_file", "arguments": {"old_path": "src/model/types.ts", "new_path": "src/types.ts"}}).to_string()], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn a_delete_removes_barrel_re_exports_and_lists_the_uses_that_came_through() {
    let sb = Sandbox::new();
    sb.write("src/a.ts", "export const a = 1;\nexport type A = number;\n");
    sb.write("src/b.ts", "export const b = 2;\n");
    sb.write(
        "src/index.ts",
        "export * from './a';\nexport { b } from './b';\nexport const a2 = 3;\n",
    );
    sb.write("src/outer.ts", "export * from './index';\n");
    sb.write(
        "src/app.ts",
        "import { a, b, a2 } from './index';\nimport * as lib from './index';\nimport type {\n  A,\n} from './outer';\nexport const x: A = a + b + a2 + lib.a + lib.a2;\n",
    );
    let run = sb.call("file_delete", json!({"path": "src/a.ts"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("src/index.ts"),
        "export { b } from './b';\nexport const a2 = 3;\n"
    );
    assert_eq!(
        run.json["unresolvedUses"],
        json!([
            {"file": "src/app.ts", "line": 1, "symbol": "a", "from": "./index", "via": "src/index.ts"},
            {"file": "src/app.ts", "line": 6, "symbol": "a", "from": "./index", "via": "src/index.ts"},
            {"file": "src/app.ts", "line": 4, "symbol": "A", "from": "./outer", "via": "src/outer.ts"},
        ]),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("src/app.ts").lines().count(), 6);
    // Without updateImports the barrel keeps its re-export, listed as left behind.
    let sb2 = Sandbox::new();
    sb2.write("src/a.ts", "export const a = 1;\n");
    sb2.write("src/index.ts", "export * from './a';\n");
    let run = sb2.call(
        "file_delete",
        json!({"path": "src/a.ts", "updateImports": false}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb2.read("src/index.ts"), "export * from './a';\n");
    assert_eq!(run.json["leftoverImports"][0]["file"], "src/index.ts");
}
