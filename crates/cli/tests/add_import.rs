//! add_import without a language server, through the real binary: the name a file lacks is
//! imported from the one module of the workspace's import graph (or package with types under
//! `node_modules`) that exports it, in the file's import style; several candidates are listed
//! and nothing is written until the caller passes `module`. Every refusal changes nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

fn edit(sb: &Sandbox, args: Value) -> common::Run {
    sb.call("file_edit", args)
}

fn ok(run: &common::Run) {
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.json["success"], json!(true), "{}", run.stdout);
    assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
}

fn at(line: usize, column: usize) -> Value {
    json!({"start_line": line, "start_column": column, "end_line": line, "end_column": column})
}

/// A refused add_import: the exit code of a failed refactor, the message's words, nothing
/// written.
fn refused(sb: &Sandbox, args: Value, needles: &[&str]) -> common::Run {
    let before = sb.snapshot();
    let run = edit(sb, args.clone());
    assert_ne!(run.code, 0, "{args}: {}", run.stdout);
    assert_eq!(run.json["success"], json!(false), "{}", run.stdout);
    for n in needles {
        assert!(
            run.stdout.contains(n),
            "{args}: expected {n:?} in\n{}",
            run.stdout
        );
    }
    assert_eq!(before, sb.snapshot(), "{args}: files changed");
    run
}

const SHAPES: &str = "export interface Shape { area(): number }\nexport class Circle implements Shape {\n  constructor(public r: number) {}\n  area() { return 3 * this.r * this.r; }\n}\nexport function area(s: Shape): number { return s.area(); }\n";

#[test]
fn one_candidate_is_imported_merged_and_undone() {
    let sb = Sandbox::new();
    sb.write("src/shapes.ts", SHAPES);
    sb.write(
        "src/widget.ts",
        "export default class Widget {}\nexport const size = 1;\n",
    );
    let main = "import { area } from './shapes';\n\nexport const c = new Circle(2);\nexport const a = area(c);\n";
    sb.write("src/main.ts", main);
    // By name: merged into the import of the module, in order.
    let run = edit(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "Circle"}),
    );
    ok(&run);
    assert_eq!(run.json["symbol"], json!("Circle"));
    assert_eq!(
        sb.read("src/main.ts"),
        "import { area, Circle } from './shapes';\n\nexport const c = new Circle(2);\nexport const a = area(c);\n"
    );
    // One request through the pipeline: undo puts the file back.
    let undo = sb.filekit(&["undo"], None);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(sb.read("src/main.ts"), main);

    // By position, on a use; a default export whose declaration has the name.
    sb.write(
        "src/main.ts",
        "import { area } from \"./shapes\"\n\nexport const w = new Widget()\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "selection_range": at(3, 21)}),
    ));
    assert_eq!(
        sb.read("src/main.ts"),
        "import { area } from \"./shapes\"\nimport Widget from \"./widget\"\n\nexport const w = new Widget()\n"
    );

    // Used only as a type, in a file that writes type-only imports: `import type`.
    sb.write(
        "src/types.ts",
        "import type { Circle } from './shapes';\n\nexport let s: Shape | Circle;\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "src/types.ts", "refactor": "add_import", "symbol": "Shape"}),
    ));
    assert_eq!(
        sb.read("src/types.ts"),
        "import type { Circle, Shape } from './shapes';\n\nexport let s: Shape | Circle;\n"
    );

    // The dry run writes nothing and shows the diff.
    sb.write("src/dry.ts", "export const x = area;\n");
    let run = edit(
        &sb,
        json!({"file": "src/dry.ts", "refactor": "add_import", "symbol": "area", "dry_run": true}),
    );
    ok(&run);
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("+import { area } from './shapes';"),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("src/dry.ts"), "export const x = area;\n");
}

#[test]
fn several_candidates_are_listed_then_one_is_chosen() {
    let sb = Sandbox::new();
    sb.write("src/a/log.ts", "export function log(m: string) {}\n");
    sb.write("src/b/log.ts", "export const log = (m: string) => {};\n");
    // A barrel re-exports one of them: the same declaration, not a third candidate.
    sb.write("src/a/index.ts", "export { log } from './log';\n");
    let main = "import { x } from './x.js';\n\nlog(x);\n";
    sb.write("src/main.ts", main);
    sb.write("src/x.ts", "export const x = 'x';\n");
    let run = refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "log"}),
        &["2 modules export `log`", "nothing was written", "`module`"],
    );
    assert_eq!(run.json["error_code"], json!("AMBIGUOUS"));
    let candidates = run.json["details"]["candidates"]
        .as_array()
        .unwrap()
        .clone();
    // Relative, with the `.js` the file's other relative import writes.
    assert_eq!(
        candidates,
        vec![
            json!({"module": "./a/log.js", "file": "src/a/log.ts", "export": "named export"}),
            json!({"module": "./b/log.js", "file": "src/b/log.ts", "export": "named export"}),
        ]
    );
    // A module that is not one of them is refused, naming them.
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "log", "module": "./c/log.js"}),
        &["'./c/log.js' is not among", "./a/log.js", "./b/log.js"],
    );
    // Chosen: through the CLI verb's --module.
    let run = sb.filekit(
        &[
            "refactor",
            "add_import",
            "src/main.ts",
            "--symbol",
            "log",
            "--module",
            "./b/log.js",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/main.ts"),
        "import { x } from './x.js';\nimport { log } from './b/log.js';\n\nlog(x);\n"
    );
}

#[test]
fn paths_aliases_where_the_file_uses_them() {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]}}}"#,
    );
    sb.write("src/lib/a.ts", "export const a = 1;\n");
    sb.write("src/lib/deep/b.ts", "export const b = 2;\n");
    sb.write(
        "src/app/main.ts",
        "import { a } from '@lib/a';\n\nexport const s = a + b;\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "src/app/main.ts", "refactor": "add_import", "symbol": "b"}),
    ));
    assert_eq!(
        sb.read("src/app/main.ts"),
        "import { a } from '@lib/a';\nimport { b } from '@lib/deep/b';\n\nexport const s = a + b;\n"
    );
}

#[test]
fn packages_with_types_under_node_modules() {
    let sb = Sandbox::new();
    sb.write(
        "package.json",
        r#"{"name": "app", "dependencies": {"tiny-streams": "1.0.0", "legacy": "2.0.0", "tiny-streams/../hidden": "1"}}"#,
    );
    // Types through `exports` and an `export *` of the package's own files.
    sb.write(
        "node_modules/tiny-streams/package.json",
        r#"{"name": "tiny-streams", "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}}}"#,
    );
    sb.write(
        "node_modules/tiny-streams/dist/index.d.ts",
        "export * from './of';\n",
    );
    sb.write(
        "node_modules/tiny-streams/dist/of.d.ts",
        "export declare function of<T>(...values: T[]): T[];\n",
    );
    // Types from @types/<name>.
    sb.write(
        "node_modules/legacy/package.json",
        r#"{"name": "legacy", "main": "index.js"}"#,
    );
    sb.write(
        "node_modules/@types/legacy/package.json",
        r#"{"name": "@types/legacy", "types": "index.d.ts"}"#,
    );
    sb.write(
        "node_modules/@types/legacy/index.d.ts",
        "export declare class Legacy {}\n",
    );
    // A dependency "named" like a path is never read: its types would offer `evil`.
    sb.write(
        "node_modules/hidden/package.json",
        r#"{"name": "hidden", "types": "index.d.ts"}"#,
    );
    sb.write(
        "node_modules/hidden/index.d.ts",
        "export declare const evil: number;\n",
    );
    sb.write(
        "src/main.ts",
        "export const xs = of(1, 2);\nexport const l = new Legacy();\nexport const e = evil;\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "of"}),
    ));
    ok(&edit(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "Legacy"}),
    ));
    assert_eq!(
        sb.read("src/main.ts"),
        "import { of } from 'tiny-streams';\nimport { Legacy } from 'legacy';\n\nexport const xs = of(1, 2);\nexport const l = new Legacy();\nexport const e = evil;\n"
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "evil"}),
        &[
            "no module exports `evil`",
            "2 packages",
            "tiny-streams, legacy",
        ],
    );
}

#[test]
fn python_relative_and_absolute() {
    let sb = Sandbox::new();
    sb.write("pkg/__init__.py", "");
    sb.write(
        "pkg/models.py",
        "class Base:\n    pass\n\n\nclass User(Base):\n    pass\n",
    );
    sb.write("pkg/util.py", "def slug(s):\n    return s.lower()\n");
    // Relative, merged into the import of the module, sorted.
    sb.write(
        "pkg/views.py",
        "\"\"\"Views.\"\"\"\nfrom .models import Base\n\n\ndef show(u: User) -> str:\n    return slug(repr(u))\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "pkg/views.py", "refactor": "add_import", "symbol": "User"}),
    ));
    // Relative and new, after the last import; by position.
    ok(&edit(
        &sb,
        json!({"file": "pkg/views.py", "refactor": "add_import", "selection_range": at(6, 11)}),
    ));
    assert_eq!(
        sb.read("pkg/views.py"),
        "\"\"\"Views.\"\"\"\nfrom .models import Base, User\nfrom .util import slug\n\n\ndef show(u: User) -> str:\n    return slug(repr(u))\n"
    );
    // Absolute, as the script's imports are; at its place among the sorted ones of its package.
    sb.write(
        "main.py",
        "import sys\n\nfrom pkg.util import slug\n\nprint(slug(sys.argv[0]), User)\n",
    );
    ok(&edit(
        &sb,
        json!({"file": "main.py", "refactor": "add_import", "symbol": "User"}),
    ));
    assert_eq!(
        sb.read("main.py"),
        "import sys\n\nfrom pkg.models import User\nfrom pkg.util import slug\n\nprint(slug(sys.argv[0]), User)\n"
    );
    // A module of a package is imported from the package; an `__all__` entry is a use.
    sb.write("pkg/api.py", "__all__ = [\"util\"]\n");
    ok(&edit(
        &sb,
        json!({"file": "pkg/api.py", "refactor": "add_import", "symbol": "util"}),
    ));
    assert_eq!(
        sb.read("pkg/api.py"),
        "from . import util\n\n__all__ = [\"util\"]\n"
    );
    // The Python refusals.
    refused(
        &sb,
        json!({"file": "main.py", "refactor": "add_import", "symbol": "slug"}),
        &["`slug` is already imported at module level at line 4"],
    );
    refused(
        &sb,
        json!({"file": "main.py", "refactor": "add_import", "symbol": "Nowhere"}),
        &["`Nowhere` is not used"],
    );
    sb.write("lone.py", "print(Unknown)\n");
    refused(
        &sb,
        json!({"file": "lone.py", "refactor": "add_import", "symbol": "Unknown"}),
        &["no module exports `Unknown`", "Python modules"],
    );
}

#[test]
fn bad_inputs_are_refused_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write("src/shapes.ts", SHAPES);
    sb.write(
        "src/main.ts",
        "import { area } from './shapes';\n\nfunction f(Circle: number) {\n  return Circle + area;\n}\nexport const g = f;\n",
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "area"}),
        &["`area` is already imported in this file at line 1, column 9"],
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "selection_range": at(4, 9)}),
        &["`Circle` at line 4, column 9 is declared in its scope at line 3, column 11"],
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "symbol": "Shape"}),
        &["`Shape` is not used in this file"],
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import", "selection_range": at(2, 0)}),
        &["no identifier at line 2, column 0"],
    );
    sb.write("src/lost.ts", "export const v = mystery();\n");
    refused(
        &sb,
        json!({"file": "src/lost.ts", "refactor": "add_import", "symbol": "mystery"}),
        &[
            "no module exports `mystery`",
            "TS/JS modules of the workspace",
        ],
    );
    sb.write("src/broken.ts", "export const v = (Circle;\n");
    refused(
        &sb,
        json!({"file": "src/broken.ts", "refactor": "add_import", "symbol": "Circle"}),
        &["does not parse", "line 1"],
    );
    sb.write(
        "src/cjs.js",
        "const fs = require('fs');\nmodule.exports = area;\n",
    );
    refused(
        &sb,
        json!({"file": "src/cjs.js", "refactor": "add_import", "symbol": "area"}),
        &["CommonJS", "require"],
    );
    // The arguments: neither a name nor a position; `module` on another refactor.
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "add_import"}),
        &["add_import needs `selection_range`"],
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "refactor": "organize_imports", "module": "./shapes"}),
        &["`module` does not apply to organize_imports"],
    );
    refused(
        &sb,
        json!({"file": "src/main.ts", "target": "f", "operation": "delete", "module": "./shapes"}),
        &["`module` belongs to the refactor mode"],
    );
}

/// A name no module declares but one re-exports (from a package outside the workspace) is
/// imported through the re-export.
#[test]
fn a_re_export_when_nothing_declares_it() {
    let sb = Sandbox::new();
    sb.write("src/vendor.ts", "export { of } from 'outside-lib';\n");
    sb.write("src/deep/use.ts", "export const xs = of(1);\n");
    ok(&edit(
        &sb,
        json!({"file": "src/deep/use.ts", "refactor": "add_import", "symbol": "of"}),
    ));
    assert_eq!(
        sb.read("src/deep/use.ts"),
        "import { of } from '../vendor';\n\nexport const xs = of(1);\n"
    );
}
