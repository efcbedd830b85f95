//! The README's quick start, as a new user follows it on a fresh clone.

/// The README's install command, as a new user pastes it: it builds the release binary, puts
/// `filekit` on PATH (the install root's `bin/`, which PATH names as `~/.cargo/bin` is
/// named), and its edit runs in a scratch folder of its own. The distributed binary stays
/// under 30 MB. A release build takes minutes (3.5 on two idle cores): a judged-stage test.
#[test]
fn the_readme_install_command_puts_filekit_on_path() {
    let repo = filekit_testkit::repo();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let quick = &readme[readme.find("## Quick start").expect("a quick start")..];
    let command = quick
        .lines()
        .find(|l| l.starts_with("cargo install"))
        .expect("the quick start's first command installs filekit");
    let install_root = tempfile::tempdir().unwrap();
    let bin = install_root.path().join("bin");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", command])
        .current_dir(&repo)
        .env("CARGO_INSTALL_ROOT", install_root.path())
        // A new user's shell: not CI's lints riding on its builds (.ci/run).
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        // Kept between runs, so that a second run does not build from scratch.
        .env("CARGO_TARGET_DIR", repo.join("target/readme-install"))
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command}\n{stdout}\n{stderr}");
    // The last command of the line prints the edited file.
    assert!(stdout.ends_with("hello filekit\n"), "{stdout}");
    let installed = bin.join("filekit");
    let mb = std::fs::metadata(&installed).unwrap().len() as f64 / 1e6;
    let stated = readme_figure(&readme, "the binary is about");
    assert!(
        (mb - stated).abs() / stated < 0.1,
        "README says the binary is about {stated} MB; {} is {mb:.1} MB",
        installed.display()
    );
}

/// The number after `before` in the README's text (line breaks read as spaces).
fn readme_figure(readme: &str, before: &str) -> f64 {
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("README: no \"{before}\""))
        + before.len();
    let word = text[at..].trim_start().split(' ').next().unwrap();
    word.parse()
        .unwrap_or_else(|_| panic!("README: \"{before}\" is followed by {word:?}, not a number"))
}

/// The README's figure of the judged stage's tools ("take about N GB") is within a quarter of
/// what `.test-deps/` and `.venv/` hold (the registries' releases move it).
#[test]
fn the_readmes_figure_of_the_judged_tools_holds() {
    let repo = filekit_testkit::repo();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let costs = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let figure = |before: &str| -> f64 {
        let at = costs
            .find(before)
            .unwrap_or_else(|| panic!("README: no \"{before}\""))
            + before.len();
        costs[at..]
            .trim_start()
            .split(" ")
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let du = |dir: &str| -> u64 {
        let mut total = 0;
        let mut stack = vec![repo.join(dir)];
        while let Some(p) = stack.pop() {
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if m.is_dir() {
                stack.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
            } else {
                total += m.len();
            }
        }
        total
    };
    let gb = (du(".test-deps") + du(".venv")) as f64 / 1e9;
    let stated = figure("the judged stage's tools take about");
    assert!(
        (gb - stated).abs() / stated < 0.25,
        "README says {stated} GB; .test-deps and .venv hold {gb:.2} GB"
    );
}
