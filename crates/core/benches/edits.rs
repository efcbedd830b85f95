//! Engine-only timings of the heavy edit cases: many sequential edit blocks on one large file,
//! and reads. `benches/compare.py` times the same cases end to end, beside the naive way.

use criterion::{Criterion, criterion_group, criterion_main};
use filekit_core::read::{ReadOptions, read_file, read_files};
use filekit_core::{Edit, EditOptions, EditRequest, Expected, FileEdits, Workspace, pipeline};
use std::fs;
use std::hint::black_box;
use std::path::Path;

/// A Markdown-like file of `lines` lines where every `every`-th line holds a unique heading.
fn document(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            if i % 10 == 0 {
                format!("Spell {i}\n")
            } else {
                format!("Level {} text of line {i} with some words in it\n", i % 9)
            }
        })
        .collect()
}

/// `count` edit blocks, each turning one heading into a Markdown heading, in file order.
fn blocks(count: usize) -> Vec<Edit> {
    (0..count)
        .map(|k| Edit::ReplaceText {
            old: format!("Spell {}\nLevel", k * 10),
            new: format!("### Spell {}\n\n**Level", k * 10),
            expected: Expected::Exactly(1),
            label: Some(format!("spell {k}")),
        })
        .collect()
}

fn bench_blocks(c: &mut Criterion, lines: usize, count: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.md");
    fs::write(&path, document(lines)).unwrap();
    let ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
    let req = EditRequest {
        files: vec![FileEdits {
            base_hash: None,
            path: "doc.md".into(),
            edits: blocks(count),
        }],
        options: EditOptions::builder().dry_run(true).build(),
    };
    c.bench_function(
        &format!("{count} edit blocks on {lines} lines (dry run)"),
        |b| {
            b.iter(|| {
                let r = pipeline::apply(&ws, black_box(&req));
                assert!(r.success());
            })
        },
    );
}

fn edit_blocks(c: &mut Criterion) {
    bench_blocks(c, 10_000, 400);
    bench_blocks(c, 100_000, 10_000);
}

fn reads(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.md"), document(10_000)).unwrap();
    let small: Vec<String> = (0..1000)
        .map(|i| {
            let name = format!("f{i}.txt");
            fs::write(
                Path::new(dir.path()).join(&name),
                format!("file {i}\nsecond line\n"),
            )
            .unwrap();
            name
        })
        .collect();
    let ws = Workspace::new(&[dir.path().to_path_buf()], true).unwrap();
    c.bench_function("read 10000 lines with numbers", |b| {
        b.iter(|| {
            let r = read_file(&ws, "big.md", &ReadOptions::default());
            let t = r.text().unwrap();
            black_box(filekit_core::text::number_lines(&t.content, t.start_line));
        })
    });
    c.bench_function("batch read of 1000 small files", |b| {
        b.iter(|| black_box(read_files(&ws, &small, &ReadOptions::default())))
    });
}

/// Line edits made on an old version and merged into a file that another agent changed
/// (200 changed lines each side, 100,000 lines), beside the same edits applied without a
/// version; and reads that keep the versions they serve (on disk) beside reads that do not.
fn merges(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let base = document(100_000);
    let theirs: String = base
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i % 500 == 0 {
                format!("theirs {i}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    fs::write(dir.path().join("doc.md"), &theirs).unwrap();
    let mut ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
    let store = std::sync::Arc::new(filekit_core::versions::Versions::in_memory());
    store.record(base.as_bytes(), None);
    ws.set_versions(store);
    let edits: Vec<Edit> = (0..200)
        .map(|k| Edit::ReplaceLines {
            start: k * 500 + 251,
            end: Some(k * 500 + 251),
            new: format!("ours {k}"),
            content_hash: None,
        })
        .collect();
    let request = |base_hash: Option<String>| EditRequest {
        files: vec![FileEdits {
            base_hash,
            path: "doc.md".into(),
            edits: edits.clone(),
        }],
        options: EditOptions::builder().dry_run(true).build(),
    };
    let merged = request(Some(filekit_core::hash::content_hash(base.as_bytes())));
    let plain = request(None);
    c.bench_function(
        "200 line edits on 100000 lines, merged from an old version",
        |b| {
            b.iter(|| {
                let r = pipeline::apply(&ws, black_box(&merged));
                assert!(r.success() && r.files[0].merged());
            })
        },
    );
    c.bench_function("200 line edits on 100000 lines, no version", |b| {
        b.iter(|| {
            let r = pipeline::apply(&ws, black_box(&plain));
            assert!(r.success() && !r.files[0].merged());
        })
    });
    let small: Vec<String> = (0..1000)
        .map(|i| {
            let name = format!("f{i}.txt");
            fs::write(dir.path().join(&name), format!("file {i}\nsecond line\n")).unwrap();
            name
        })
        .collect();
    // A new store each time, as in a new `filekit call` process: each version is looked up on
    // disk (and written the first time).
    let mut kept = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
    let state = tempfile::tempdir().unwrap();
    let versions = state.path().join("versions");
    c.bench_function(
        "batch read of 1000 small files, versions kept on disk (new store)",
        |b| {
            b.iter(|| {
                kept.set_versions(std::sync::Arc::new(
                    filekit_core::versions::Versions::on_disk(versions.clone()),
                ));
                black_box(read_files(&kept, &small, &ReadOptions::default()))
            })
        },
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = edit_blocks, reads, merges
}
criterion_main!(benches);
