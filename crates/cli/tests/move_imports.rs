//! Moves, renames, copies and deletes that keep imports right, driven through
//! `filekit call` (the semantic table's file_move, file_rename, file_duplicate, file_delete) and the
//! `mv`/`cp`/`rm` verbs, each checked on disk.

use crate::common;

use common::Sandbox;
use serde_json::json;

/// A small project with every kind of reference, in every style.
fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        r#"{
  // comments and trailing commas, as tsc allows
  "extends": "./tsconfig.base.json",
  "compilerOptions": { "strict": true, },
}"#,
    );
    sb.write(
        "tsconfig.base.json",
        r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"], "@util": ["src/lib/util/index.ts"] } } }"#,
    );
    sb.write("src/lib/user.ts", "import { helper } from './util';\nimport type { Id } from \"../types\";\nexport class User { id: Id = helper(); }\n");
    sb.write("src/lib/util/index.ts", "export const helper = () => 1;\n");
    sb.write("src/types.ts", "export type Id = number;\n");
    sb.write("src/globals.d.ts", "declare const VERSION: string;\n");
    sb.write(
        "src/app/main.ts",
        concat!(
            "/// <reference path=\"../globals.d.ts\" />\n",
            "import { User } from '../lib/user';\n",
            "import { User as U2 } from \"../lib/user.js\";\n",
            "import type { User as U3 } from '@lib/user';\n",
            "export { User as Again } from '../lib/user';\n",
            "const lazy = () => import('../lib/user');\n",
            "const old = require(\"../lib/user\");\n",
            "import { helper } from '@util';\n",
            "import { helper as h2 } from '../lib/util';\n",
            "import { helper as h3 } from '../lib/util/index.js';\n",
            "import pkg from 'react';\n",
            "export const all = [User, U2, lazy, old, helper, h2, h3, pkg];\n",
            "export type T = U3;\n",
        ),
    );
    sb.write(
        "src/app/view.tsx",
        "import { User } from \"../lib/user\";\nexport const V = () => <div>{String(new User())}</div>;\n",
    );
    sb.write(
        "scripts/run.js",
        "const { User } = require('../src/lib/user.ts');\nmodule.exports = User;\n",
    );
    sb
}

#[test]
fn a_move_rewrites_every_importer_in_its_own_style_and_the_moved_files_imports() {
    let sb = project();
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib/user.ts", "destination": "src/domain/models/user.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!sb.exists("src/lib/user.ts"));
    assert_eq!(
        sb.read("src/app/main.ts"),
        concat!(
            "/// <reference path=\"../globals.d.ts\" />\n",
            "import { User } from '../domain/models/user';\n",
            "import { User as U2 } from \"../domain/models/user.js\";\n",
            // The alias no longer covers the new place: a relative specifier.
            "import type { User as U3 } from '../domain/models/user';\n",
            "export { User as Again } from '../domain/models/user';\n",
            "const lazy = () => import('../domain/models/user');\n",
            "const old = require(\"../domain/models/user\");\n",
            "import { helper } from '@util';\n",
            "import { helper as h2 } from '../lib/util';\n",
            "import { helper as h3 } from '../lib/util/index.js';\n",
            "import pkg from 'react';\n",
            "export const all = [User, U2, lazy, old, helper, h2, h3, pkg];\n",
            "export type T = U3;\n",
        )
    );
    assert_eq!(
        sb.read("src/app/view.tsx"),
        "import { User } from \"../domain/models/user\";\nexport const V = () => <div>{String(new User())}</div>;\n"
    );
    assert_eq!(
        sb.read("scripts/run.js"),
        "const { User } = require('../src/domain/models/user.ts');\nmodule.exports = User;\n"
    );
    // The moved file's own relative imports, index folder omitted as it was.
    assert_eq!(
        sb.read("src/domain/models/user.ts"),
        "import { helper } from '../../lib/util';\nimport type { Id } from \"../../types\";\nexport class User { id: Id = helper(); }\n"
    );
    let reply = &run.json;
    assert_eq!(reply["totalFilesUpdated"], 4, "{reply:#}");
    assert_eq!(reply["totalImportsUpdated"], 10, "{reply:#}");
    let main = reply["importsUpdated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "src/app/main.ts")
        .unwrap();
    assert_eq!(
        main["changes"][0],
        json!({"old": "../lib/user", "new": "../domain/models/user", "line": 2})
    );
}

#[test]
fn a_path_alias_is_kept_when_the_target_stays_under_it() {
    let sb = project();
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib/user.ts", "destination": "src/lib/models/user.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let main = sb.read("src/app/main.ts");
    assert!(
        main.contains("import type { User as U3 } from '@lib/models/user';\n"),
        "{main}"
    );
    assert!(main.contains("from '../lib/models/user';\n"), "{main}");
}

#[test]
fn a_directory_moves_as_a_whole_and_imports_inside_it_stay() {
    let sb = project();
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib", "destination": "packages/core/lib"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    // Inside the moved directory: './util' still right, '../types' follows.
    assert_eq!(
        sb.read("packages/core/lib/user.ts"),
        "import { helper } from './util';\nimport type { Id } from \"../../../src/types\";\nexport class User { id: Id = helper(); }\n"
    );
    let main = sb.read("src/app/main.ts");
    assert!(
        main.contains("from '../../packages/core/lib/user';"),
        "{main}"
    );
    // An alias that no longer covers the target becomes a relative specifier, without the
    // `.ts` extension the alias's substitution had (a relative `.ts` import needs a flag).
    assert!(
        main.contains("import { helper } from '../../packages/core/lib/util/index';"),
        "{main}"
    );
    assert!(
        main.contains("import { helper as h3 } from '../../packages/core/lib/util/index.js';"),
        "{main}"
    );
}

#[test]
fn a_dry_run_shows_every_diff_and_changes_nothing() {
    let sb = project();
    let before = sb.snapshot();
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib/user.ts", "destination": "src/user.ts", "dryRun": true}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(before, sb.snapshot());
    let diffs = run.json["diffs"].as_array().expect("diffs");
    assert_eq!(diffs.len(), 4);
    let all: String = diffs.iter().map(|d| d["diff"].as_str().unwrap()).collect();
    assert!(
        all.contains("-import { User } from '../lib/user';\n+import { User } from '../user';"),
        "{all}"
    );
    assert_eq!(run.json["moved"], false);
}

#[test]
fn the_move_and_its_rewrites_are_one_history_entry_and_one_undo() {
    let sb = project();
    let before = sb.snapshot();
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib", "destination": "src/core"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
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
fn update_imports_false_moves_only_the_file() {
    let sb = project();
    let main = sb.read("src/app/main.ts");
    let run = sb.call(
        "file_move",
        json!({"source": "src/lib/user.ts", "destination": "src/user.ts", "updateImports": false}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("src/app/main.ts"), main);
    assert_eq!(run.json["totalImportsUpdated"], 0);
}

#[test]
fn a_rename_into_and_out_of_an_index_file() {
    let sb = project();
    let run = sb.call(
        "file_rename",
        json!({"path": "src/types.ts", "newName": "kinds.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        sb.read("src/lib/user.ts")
            .contains("import type { Id } from \"../kinds\";")
    );
    assert_eq!(
        run.json["importsUpdated"][0]["changes"][0]["new"],
        "../kinds"
    );
    // Into an index folder: the importers name the folder's index explicitly or by folder.
    let run = sb.call(
        "file_move",
        json!({"source": "src/kinds.ts", "destination": "src/kinds/index.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let user = sb.read("src/lib/user.ts");
    assert!(user.contains("from \"../kinds/index\";"), "{user}");
    // And out again.
    let run = sb.call(
        "file_move",
        json!({"source": "src/kinds/index.ts", "destination": "src/types.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("src/lib/user.ts").contains("from \"../types\";"));
}

#[test]
fn a_duplicate_fixes_the_copys_own_imports_and_leaves_the_importers() {
    let sb = project();
    let main = sb.read("src/app/main.ts");
    let run = sb.call(
        "file_duplicate",
        json!({"source": "src/lib/user.ts", "destination": "src/admin/user.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("src/admin/user.ts"),
        "import { helper } from '../lib/util';\nimport type { Id } from \"../types\";\nexport class User { id: Id = helper(); }\n"
    );
    assert!(sb.exists("src/lib/user.ts"));
    assert_eq!(sb.read("src/app/main.ts"), main);
}

#[test]
fn a_delete_removes_the_declarations_and_lists_what_is_left_behind() {
    let sb = project();
    let run = sb.call("file_delete", json!({"path": "src/lib/user.ts"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    let view = sb.read("src/app/view.tsx");
    assert_eq!(
        view,
        "export const V = () => <div>{String(new User())}</div>;\n"
    );
    let reply = &run.json;
    // main.ts: 4 declarations removed; import() and require() left and listed.
    assert_eq!(reply["totalImportsRemoved"], 5, "{reply:#}");
    let left: Vec<_> = reply["leftoverImports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["file"].as_str().unwrap(), l["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        left,
        [
            ("scripts/run.js", "require"),
            ("src/app/main.ts", "dynamic"),
            ("src/app/main.ts", "require")
        ]
    );
    let uses = reply["unresolvedUses"].as_array().unwrap();
    assert!(
        uses.iter()
            .any(|u| u["file"] == "src/app/view.tsx" && u["symbol"] == "User" && u["line"] == 1),
        "{reply:#}"
    );
    // Undo brings the file and the declarations back.
    assert_eq!(sb.filekit(&["undo"], None).code, 0);
    assert!(sb.read("src/app/view.tsx").starts_with("import { User }"));
}

#[test]
fn a_delete_without_updates_lists_every_import_left_behind() {
    let sb = project();
    let main = sb.read("src/app/main.ts");
    let run = sb.call(
        "file_delete",
        json!({"path": "src/lib/user.ts", "updateImports": false}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(sb.read("src/app/main.ts"), main);
    assert_eq!(run.json["leftoverImports"].as_array().unwrap().len(), 8);
    assert_eq!(run.json["totalImportsRemoved"], 0);
}

#[test]
fn bad_moves_fail_clearly_and_change_nothing() {
    let sb = project();
    sb.call_fails(
        "file_move",
        json!({"source": "src/lib/nope.ts", "destination": "src/x.ts"}),
        1,
        &["nope.ts"],
    );
    sb.call_fails(
        "file_move",
        json!({"source": "src/lib/user.ts", "destination": "src/types.ts"}),
        1,
        &["already exists"],
    );
    sb.call_fails(
        "file_move",
        json!({"source": "src/lib", "destination": "src/lib/inner"}),
        1,
        &["into itself"],
    );
}

#[test]
fn the_verbs_update_imports_with_colored_dry_run_diffs() {
    let sb = project();
    let before = sb.snapshot();
    let run = sb.filekit_env(
        &["mv", "src/lib/user.ts", "src/user.ts", "--dry-run"],
        None,
        &[("CLICOLOR_FORCE", "1")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("would update\u{1b}[0m 10 import(s) in 4 file(s)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("\u{1b}[31m-import { User } from '../lib/user';"),
        "{}",
        run.stdout
    );
    assert_eq!(before, sb.snapshot());

    let run = sb.filekit(
        &[
            "mv",
            "src/lib/user.ts",
            "src/user.ts",
            "--no-update-imports",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(sb.read("src/app/main.ts").contains("'../lib/user'"));
    let run = sb.filekit(&["mv", "src/user.ts", "src/lib/user2.ts"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The importers named the old place (now gone) and are left; the moved file's own
    // imports follow.
    assert!(sb.read("src/lib/user2.ts").contains("from './util'"));

    let run = sb.filekit(&["cp", "src/lib/user2.ts", "src/copy/user.ts"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(sb.read("src/copy/user.ts").contains("from '../lib/util'"));

    let run = sb.filekit(&["rm", "src/lib/util/index.ts", "--dry-run"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("unresolved:"), "{}", run.stdout);
}

#[test]
fn workspace_package_exports_are_followed_and_kept() {
    let sb = Sandbox::new();
    sb.write(
        "packages/ui/package.json",
        r#"{"name": "@acme/ui", "exports": {".": {"types": "./src/index.ts"}, "./*": "./src/*.ts"}}"#,
    );
    sb.write("packages/ui/src/index.ts", "export * from './button';\n");
    sb.write("packages/ui/src/button.ts", "export const Button = 1;\n");
    sb.write(
        "apps/web/main.ts",
        "import { Button } from '@acme/ui/button';\nimport * as ui from '@acme/ui';\nexport const x = [Button, ui];\n",
    );
    let run = sb.call(
        "file_move",
        json!({"source": "packages/ui/src/button.ts", "destination": "packages/ui/src/widgets/button.ts"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("apps/web/main.ts"),
        "import { Button } from '@acme/ui/widgets/button';\nimport * as ui from '@acme/ui';\nexport const x = [Button, ui];\n"
    );
    assert_eq!(
        sb.read("packages/ui/src/index.ts"),
        "export * from './widgets/button';\n"
    );
}
