//! Merges on real files: two consecutive releases of an npm package (lodash 4.17.20 and
//! 4.17.21, underscore 1.13.6 and 1.13.7, unpacked by `scripts/setup-test-deps`) are the
//! version an agent read and "another agent's change"; random line edits of the older one are
//! "ours". Each case goes through the real pipeline (a read that records the version, the
//! other change written to disk, our edits sent with `base_hash`), and the verdict and the
//! merged file are checked against `git merge-file`, the reference three-way merge.

use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits};
use filekit_core::read::{ReadOptions, read_file};
use filekit_core::versions::Versions;
use filekit_core::{ErrorCode, Workspace, pipeline};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const PAIRS: &[(&str, &str)] = &[
    ("lodash-4.17.20", "lodash-4.17.21"),
    ("underscore-1.13.6", "underscore-1.13.7"),
];
const TRIALS_PER_FILE: usize = 6;

fn deps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.test-deps/merge")
}

/// Files (relative) of `old` that `new` changed, both UTF-8 text.
fn changed_files(old: &Path, new: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_path_buf());
            }
        }
    }
    let mut all = Vec::new();
    walk(old, old, &mut all);
    all.sort();
    all.into_iter()
        .filter(|rel| {
            let (Ok(a), Ok(b)) = (std::fs::read(old.join(rel)), std::fs::read(new.join(rel)))
            else {
                return false;
            };
            a != b && std::str::from_utf8(&a).is_ok() && std::str::from_utf8(&b).is_ok()
        })
        .collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Random disjoint line edits of `lines` (replace, insert, delete), as edits for the pipeline
/// and applied to the lines here, independently of the engine.
fn random_edits(lines: &[&str], rng: &mut Rng, tag: &str) -> (Vec<Edit>, Vec<String>) {
    let n = lines.len();
    let count = 1 + rng.below(4);
    let mut starts: Vec<usize> = (0..count).map(|_| rng.below(n)).collect();
    starts.sort();
    starts.dedup();
    let mut edits = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut at = 0; // next base line (0-based) not yet copied
    for (k, &s) in starts.iter().enumerate() {
        if s < at + 1 && k > 0 {
            continue; // keep one untouched line between two edits of ours
        }
        let len = 1 + rng.below(3);
        let e = (s + len)
            .min(n)
            .min(starts.get(k + 1).copied().unwrap_or(n));
        out.extend(lines[at..s].iter().map(|l| l.to_string()));
        let new: Vec<String> = (0..rng.below(3))
            .map(|j| format!("/* {tag} edit {k} line {j} */"))
            .collect();
        match rng.below(3) {
            0 => {
                // insert after line s (1-based s), keeping it
                out.push(lines[s].to_string());
                let new: Vec<String> = (0..=rng.below(2))
                    .map(|j| format!("/* {tag} insert {k} line {j} */"))
                    .collect();
                out.extend(new.iter().cloned());
                edits.push(Edit::Insert {
                    after: s as i64 + 1,
                    text: new.join("\n"),
                    content_hash: None,
                });
                at = s + 1;
            }
            _ => {
                out.extend(new.iter().cloned());
                edits.push(Edit::ReplaceLines {
                    start: s as i64 + 1,
                    end: Some(e as i64),
                    new: new.join("\n"),
                    content_hash: None,
                });
                at = e;
            }
        }
    }
    out.extend(lines[at..].iter().map(|l| l.to_string()));
    (edits, out)
}

fn git_merge_file(dir: &Path, ours: &str, base: &str, theirs: &str) -> (bool, String) {
    std::fs::write(dir.join("ours"), ours).unwrap();
    std::fs::write(dir.join("base"), base).unwrap();
    std::fs::write(dir.join("theirs"), theirs).unwrap();
    let out = Command::new("git")
        .args(["merge-file", "-p", "ours", "base", "theirs"])
        .current_dir(dir)
        .output()
        .expect("git is needed for this test");
    let code = out.status.code().expect("git merge-file exited");
    assert!(
        code >= 0,
        "git merge-file failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code == 0, String::from_utf8(out.stdout).unwrap())
}

#[test]
fn merges_of_real_releases_agree_with_git_merge_file() {
    let deps = deps_dir();
    assert!(
        PAIRS
            .iter()
            .all(|(a, b)| deps.join(a).join("package").is_dir()
                && deps.join(b).join("package").is_dir()),
        "the npm packages of the merge tests are missing from {}: run scripts/setup-test-deps",
        deps.display()
    );
    let scratch = tempfile::tempdir().unwrap();
    let (mut cases, mut merged, mut conflicts) = (0, 0, 0);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (old, new) in PAIRS {
        let old_dir = deps.join(old).join("package");
        let new_dir = deps.join(new).join("package");
        let files = changed_files(&old_dir, &new_dir);
        assert!(!files.is_empty());
        for rel in files {
            let base = std::fs::read_to_string(old_dir.join(&rel)).unwrap();
            let theirs = std::fs::read_to_string(new_dir.join(&rel)).unwrap();
            let lines: Vec<&str> = base.lines().collect();
            if lines.is_empty() || !base.ends_with('\n') || base.contains('\r') {
                continue;
            }
            for trial in 0..TRIALS_PER_FILE {
                cases += 1;
                let root = tempfile::tempdir().unwrap();
                let path = root.path().join("f.js");
                std::fs::write(&path, &base).unwrap();
                let mut ws = Workspace::new(&[root.path().to_path_buf()], false).unwrap();
                let state = tempfile::tempdir().unwrap();
                ws.set_versions(Arc::new(Versions::on_disk(state.path().join("versions"))));
                let read = read_file(&ws, "f.js", &ReadOptions::default());
                let base_hash = read.text().unwrap().content_hash.clone().unwrap();
                // The other agent's change: the next release.
                std::fs::write(&path, &theirs).unwrap();
                let (edits, ours_lines) = random_edits(&lines, &mut rng, &format!("ours {trial}"));
                let ours: String = ours_lines.iter().map(|l| format!("{l}\n")).collect();
                let report = pipeline::apply(
                    &ws,
                    &EditRequest {
                        files: vec![FileEdits {
                            path: "f.js".into(),
                            edits,
                            base_hash: Some(base_hash),
                        }],
                        options: EditOptions::default(),
                    },
                );
                let f = &report.files[0];
                let on_disk = std::fs::read_to_string(&path).unwrap();
                let (git_clean, git_text) = git_merge_file(scratch.path(), &ours, &base, &theirs);
                let what = format!("{}/{} trial {trial}", old, rel.display());
                match f.error() {
                    None => {
                        merged += 1;
                        assert!(f.merged() && f.written(), "{what}");
                        assert!(
                            git_clean,
                            "{what}: filekit merged where git merge-file finds a conflict:\n{}",
                            f.diff
                        );
                        assert_eq!(
                            on_disk, git_text,
                            "{what}: filekit and git merge-file merged differently"
                        );
                        // Both changes are in: every line ours added, and the other side's.
                        for l in ours_lines.iter().filter(|l| l.starts_with("/* ours")) {
                            assert!(on_disk.contains(l.as_str()), "{what}: lost {l}");
                        }
                    }
                    Some(e) => {
                        conflicts += 1;
                        assert_eq!(e.code, ErrorCode::Conflict, "{what}: {e:?}");
                        assert!(
                            !git_clean,
                            "{what}: filekit found a conflict where git merge-file merges: {}",
                            e.message
                        );
                        assert_eq!(on_disk, theirs, "{what}: a conflict must write nothing");
                        assert!(!e.details["conflicts"].as_array().unwrap().is_empty());
                    }
                }
            }
        }
    }
    eprintln!("{cases} merges of real files: {merged} merged, {conflicts} conflicts");
    assert!(
        merged > cases / 2 && conflicts > 0,
        "{cases} cases: {merged} merged, {conflicts} conflicts"
    );
}
