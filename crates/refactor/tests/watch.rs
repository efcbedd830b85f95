//! The import graph kept current by a file watcher (what `filekit serve` turns on): after the
//! first build, a build looks only at what the watcher reported (no walk), and still sees
//! every change made behind its back: edits, new files in new folders, deletes, folders
//! renamed; an ignore file that changes makes it walk again.

use filekit_core::Workspace;
use filekit_refactor::graph::{self, Freshness};

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn code(g: &graph::Graph) -> Vec<String> {
    let mut c: Vec<String> = g.code.keys().cloned().collect();
    c.sort();
    c
}

#[test]
fn a_watched_graph_sees_changes_without_walking() {
    graph::watch_between_calls(true);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "src/a.ts",
        "import { b } from './b';\nexport const a = b;\n",
    );
    write(dir, "src/b.ts", "export const b = 1;\n");
    write(dir, "src/empty/.keep", "");
    write(dir, "node_modules/x/index.ts", "import './never';\n");
    write(dir, ".gitignore", "dist/\n");
    let ws = Workspace::new(&[dir.to_path_buf()], false).unwrap();

    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Walked, "the first build walks");
    assert_eq!(code(&g), ["src/a.ts", "src/b.ts"]);

    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(g.parsed, 0, "nothing changed");

    // An edit behind the graph's back, right before the build.
    write(
        dir,
        "src/a.ts",
        "import { b } from './b';\nimport { c } from './lib/c';\nexport const a = b;\n",
    );
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(g.parsed, 1);
    assert_eq!(g.code["src/a.ts"].refs.len(), 2);

    // New files: in a folder that was empty, and in new folders (then watched too).
    write(dir, "src/empty/e.ts", "import { a } from '../a';\n");
    write(dir, "src/lib/deep/c.ts", "export const c = 2;\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(
        code(&g),
        [
            "src/a.ts",
            "src/b.ts",
            "src/empty/e.ts",
            "src/lib/deep/c.ts"
        ]
    );
    assert!(g.files.files.contains("src/lib/deep/c.ts"));
    write(dir, "src/lib/deep/d.ts", "export const d = 3;\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert!(g.code.contains_key("src/lib/deep/d.ts"));

    // Ignored and hidden places stay out.
    write(dir, "node_modules/y/index.ts", "export {};\n");
    write(dir, "dist/out.ts", "export {};\n");
    write(dir, ".hidden/h.ts", "export {};\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(code(&g).len(), 5, "{:?}", code(&g));

    // A folder renamed, a file deleted.
    std::fs::rename(dir.join("src/lib"), dir.join("src/core")).unwrap();
    std::fs::remove_file(dir.join("src/b.ts")).unwrap();
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(
        code(&g),
        [
            "src/a.ts",
            "src/core/deep/c.ts",
            "src/core/deep/d.ts",
            "src/empty/e.ts"
        ]
    );
    assert!(!g.files.files.contains("src/lib/deep/c.ts"));
    // The renamed folder is watched under its new name.
    write(dir, "src/core/deep/c.ts", "export const c = 22;\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert_eq!(g.parsed, 1);
    assert_eq!(
        &*g.code["src/core/deep/c.ts"].text,
        "export const c = 22;\n"
    );

    // A folder deleted and made again between two builds: watched again, its files seen.
    std::fs::remove_dir_all(dir.join("src/core")).unwrap();
    write(dir, "src/core/deep/again.ts", "export const again = 1;\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert!(g.code.contains_key("src/core/deep/again.ts"));
    assert!(!g.code.contains_key("src/core/deep/c.ts"));
    write(dir, "src/core/deep/later.ts", "export const later = 1;\n");
    let g = graph::build(&ws).unwrap();
    assert!(g.code.contains_key("src/core/deep/later.ts"));

    // A file that becomes a folder.
    std::fs::remove_file(dir.join("src/a.ts")).unwrap();
    write(dir, "src/a.ts/inner.ts", "export {};\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    assert!(!g.code.contains_key("src/a.ts"));
    assert!(g.code.contains_key("src/a.ts/inner.ts"));

    // An ignore file changed: which files count is the walk's to say.
    write(dir, ".gitignore", "dist/\nsrc/empty/\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Walked);
    assert!(!g.code.contains_key("src/empty/e.ts"));
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Watched);
    graph::forget(&ws);
}

/// Without a watcher (here: a read-only workspace with no `.filekit/` for the cookies) every
/// build walks, and still sees every change.
#[test]
fn without_a_watcher_each_build_walks() {
    graph::watch_between_calls(true);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "src/a.ts", "import { b } from './b';\n");
    write(dir, "src/b.ts", "export const b = 1;\n");
    let ws = Workspace::new(&[dir.to_path_buf()], true).unwrap();
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Walked);
    assert!(
        !dir.join(".filekit").exists(),
        "nothing written in a read-only workspace"
    );
    write(dir, "src/new/c.ts", "import { b } from '../b';\n");
    let g = graph::build(&ws).unwrap();
    assert_eq!(g.freshness, Freshness::Walked);
    assert!(g.code.contains_key("src/new/c.ts"));
    graph::forget(&ws);
}
