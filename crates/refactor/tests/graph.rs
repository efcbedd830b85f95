//! The import graph kept between calls: parsed once, parsed again only for files that
//! changed, files gone forgotten, configs reloaded when they change.

use filekit_core::Workspace;
use filekit_refactor::graph;
use filekit_refactor::resolve::resolve;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn the_graph_is_cached_and_invalidated_by_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "src/a.ts",
        "import { b } from './b';\nexport const a = b;\n",
    );
    write(dir, "src/b.ts", "export const b = 1;\n");
    write(dir, "src/c.js", "module.exports = require('./b');\n");
    write(dir, "node_modules/x/index.ts", "import './never';\n");
    write(dir, ".gitignore", "dist/\n");
    write(dir, "dist/out.js", "require('./never');\n");
    let ws = Workspace::new(&[dir.to_path_buf()], false).unwrap();

    let g = graph::build(&ws).unwrap();
    assert_eq!(g.parsed, 3, "node_modules and ignored files are not parsed");
    let mut code: Vec<&String> = g.code.keys().collect();
    code.sort();
    assert_eq!(code, ["src/a.ts", "src/b.ts", "src/c.js"]);
    assert_eq!(g.code["src/a.ts"].refs[0].specifier, "./b");

    let g = graph::build(&ws).unwrap();
    assert_eq!(g.parsed, 0, "nothing changed: everything from the cache");

    write(
        dir,
        "src/a.ts",
        "import { b } from './b';\nimport { c } from './c';\nexport const a = b + c;\n",
    );
    std::fs::remove_file(dir.join("src/c.js")).unwrap();
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.parsed, 1);
    assert_eq!(g.code["src/a.ts"].refs.len(), 2);
    assert!(!g.code.contains_key("src/c.js"));

    // A config change is seen at once.
    write(
        dir,
        "tsconfig.json",
        r#"{"compilerOptions": {"baseUrl": "src"}}"#,
    );
    let g = graph::build(&ws).unwrap();
    let config = g.configs.for_dir("src");
    assert_eq!(
        resolve(&g.files, "src/a.ts", "b", config, false).map(|r| r.file),
        Some("src/b.ts".to_string())
    );
    graph::forget(&ws);
    assert_eq!(graph::build(&ws).unwrap().parsed, 2);
}
