#!/usr/bin/env python3
"""Tree-wide replace: filekit against fastmod, sd and sed -i, side by side, in one run.

Corpus: every .rs file of cargo's registry cache (~/.cargo/registry/src, filled by building
this workspace), copied into a scratch directory and restored before every run.

Cases: a literal and a regex with a capture group, each on a rare and on a frequent pattern.
Tools, each run on a fresh copy of the corpus:
  filekit replace      filekit replace 's/PAT/REP/g' . --glob '*.rs' (and with --in-place,
                       --no-history, --no-fsync, and all three: fastmod's terms)
  fastmod              fastmod --accept-all --extensions rs PAT REP
  rg -l | xargs sd     rg -l PAT | xargs sd PAT REP
  rg -l | xargs sed -i rg -l PAT | xargs sed -i -E 's/PAT/REP/g'
and, for the preview: `filekit replace --dry-run` (diffs included) against `rg PAT` finding
the same matches. After each tool the tree is hashed: every tool must leave the same bytes.

fastmod and sd are installed with `cargo install` into benches/.tools (once); rg comes from
Debian's ripgrep package (installed with apt-get when missing).

Usage: python3 benches/replace.py [--runs N] [--scratch DIR] [--filekit BIN]
(--scratch: where the corpus is copied, e.g. /dev/shm to take the disk out of the figures)
Prints median times and ratios (tool / filekit: above 1 means filekit is faster).
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "benches", ".tools")
FILEKIT = os.path.join(ROOT, "target", "release", "filekit")
REGISTRY = os.path.expanduser("~/.cargo/registry/src")

# (name, literal?, pattern (valid in Rust regex and in GNU ERE), replacement for
#  filekit/fastmod/sd, replacement for sed)
CASES = [
    ("literal, rare", True, "unsafe_op_in_unsafe_fn", "UNSAFE_OP_IN_UNSAFE_FN", None),
    ("literal, frequent", True, "self.", "this.", None),
    ("regex+group, rare", False, r"fn ([a-z_]+)_unchecked\(", r"fn ${1}_raw(", r"fn \1_raw("),
    ("regex+group, frequent", False, r"let mut ([a-z_]+) =", r"let mut ${1}_v =", r"let mut \1_v ="),
]


def ensure_tools(build_filekit):
    if shutil.which("rg") is None:
        subprocess.run(["apt-get", "install", "-y", "-q", "ripgrep"], check=True)
    bins = os.path.join(TOOLS, "bin")
    for crate, exe in [("fastmod", "fastmod"), ("sd", "sd")]:
        if not os.path.exists(os.path.join(bins, exe)):
            subprocess.run(
                ["cargo", "install", "--quiet", "--locked", "--root", TOOLS, crate], check=True
            )
    if build_filekit:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "filekit"], cwd=ROOT, check=True)
    return os.path.join(bins, "fastmod"), os.path.join(bins, "sd")


# filekit edits a file only whole and refuses one over 2 MiB (MAX_FILE_SIZE, core/src/limits.rs:
# a workspace file is untrusted input); the peers rewrite any size. Such files (encoding_rs's
# 2.5 MB data.rs) are left out of the corpus, so that every tool is asked the same work.
MAX_FILE_SIZE = 2 << 20


def build_corpus(dest):
    count = 0
    left_out = []
    for dirpath, dirnames, filenames in os.walk(REGISTRY):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".rs"):
                src = os.path.join(dirpath, name)
                rel = os.path.relpath(src, REGISTRY)
                if os.path.getsize(src) > MAX_FILE_SIZE:
                    left_out.append(rel)
                    continue
                out = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(src, out)
                count += 1
    if left_out:
        print(f"left out, over filekit's 2 MiB bound of a whole-file edit: {', '.join(left_out)}")
    return count


def tree_hash(path):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(path):
        # filekit's graph cookies folder (serve only) is not part of the tree the tools produce.
        dirnames[:] = sorted(d for d in dirnames if not (dirpath == path and d == ".filekit"))
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            h.update(os.path.relpath(p, path).encode())
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def run_shell(cmd, cwd):
    # No stdin: rg given no path would search standard input instead of the tree.
    proc = subprocess.run(
        cmd, cwd=cwd, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    # rg exits 1 when nothing matches; xargs passes on a tool's failure.
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {cmd}\n{proc.stderr.decode()[:2000]}")


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--filekit", help="the binary to time (default: build target/release/filekit)")
    args = ap.parse_args()
    filekit = os.path.abspath(args.filekit or FILEKIT)
    fastmod, sd = ensure_tools(build_filekit=args.filekit is None)
    scratch = tempfile.mkdtemp(prefix="filekit-replace-bench-", dir=args.scratch)
    pristine = os.path.join(scratch, "pristine")
    work = os.path.join(scratch, "work")
    files = build_corpus(pristine)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(pristine) for f in fs)
    print(f"corpus: {files} .rs files, {size / 1e6:.0f} MB (cargo registry sources), in {scratch}")

    shutil.copytree(pristine, work)
    # filekit's state (its edit history) in the scratch folder, emptied before each run, as the
    # tree is restored: never the state of the user running the benchmark.
    state_home = os.path.join(scratch, "state")
    os.environ["XDG_STATE_HOME"] = state_home

    def fresh():
        # Restored in place: every file's bytes written back into the file that is there, no
        # tree deleted and copied again. Deleting thousands of files would slow down every
        # tool that then creates files (filekit, sd and sed -i write a temporary file and
        # rename it): ext4 without a journal, as on this machine, skips inodes deleted in the
        # last minutes when it looks for a free one, one by one, so each new file would pay
        # for the benchmark's own deletions. fastmod writes in place and would not.
        shutil.rmtree(state_home, ignore_errors=True)
        for dirpath, _, filenames in os.walk(pristine):
            for name in filenames:
                src = os.path.join(dirpath, name)
                dst = os.path.join(work, os.path.relpath(src, pristine))
                with open(src, "rb") as f:
                    want = f.read()
                with open(dst, "r+b") as f:
                    if f.read() != want:
                        f.seek(0)
                        f.write(want)
                        f.truncate()
        # The restore on disk before the clock starts: a tool that flushes (filekit does)
        # should pay for its own writes, not for the restore.
        os.sync()

    rows = []
    try:
        for name, literal, pat, rep, sed_rep in CASES:
            fk_expr = f"s/{pat.replace('/', chr(92) + '/')}/{rep.replace('/', chr(92) + '/')}/g"
            lit = "-F " if literal else ""
            sed_pat = pat.replace(".", "\\.") if literal else pat
            sed_expr = f"s/{sed_pat}/{(sed_rep or rep)}/g"
            commands = {
                "filekit": f"{filekit} --root . replace {lit}{q(fk_expr)} . --glob '*.rs'",
                "filekit --in-place": f"{filekit} --root . replace --in-place {lit}{q(fk_expr)} . --glob '*.rs'",
                "filekit --no-history": f"{filekit} --root . --no-history replace {lit}{q(fk_expr)} . --glob '*.rs'",
                "filekit --no-fsync": f"{filekit} --root . replace --no-fsync {lit}{q(fk_expr)} . --glob '*.rs'",
                # fastmod's terms: in place, no flush, no history.
                "filekit as fastmod": f"{filekit} --root . --no-history replace --in-place --no-fsync {lit}{q(fk_expr)} . --glob '*.rs'",
                "fastmod": f"{fastmod} --accept-all {'--fixed-strings ' if literal else ''}--extensions rs {q(pat)} {q(rep)}",
                "rg | sd": f"rg -l {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | xargs -r {sd} {'-F ' if literal else ''}{q(pat)} {q(rep)}",
                "rg | sed -i": f"rg -l {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | xargs -r sed -i -E {q(sed_expr)}",
            }
            # Round by round, each tool once per round: this host's load comes and goes over
            # seconds, and consecutive runs of one tool would give that tool all of a busy
            # spell. Each tool's tree is checked after its last run.
            samples = {tool: [] for tool in commands}
            hashes = {}
            for round_ in range(args.runs):
                for tool, cmd in commands.items():
                    fresh()
                    t = time.perf_counter()
                    run_shell(cmd, work)
                    samples[tool].append(time.perf_counter() - t)
                    if round_ == args.runs - 1:
                        hashes[tool] = tree_hash(work)
            times = {tool: statistics.median(s) for tool, s in samples.items()}
            if len(set(hashes.values())) != 1:
                sys.exit(f"{name}: the tools left different trees: {hashes}")
            fresh()
            previews = {
                # Through a pipe: rg writing to /dev/null stops at the first match.
                "filekit --dry-run": f"{filekit} --root . replace {lit}{q(fk_expr)} . --glob '*.rs' --dry-run | cat",
                "rg": f"rg {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | cat",
            }
            preview_samples = {tool: [] for tool in previews}
            for _ in range(args.runs):
                for tool, cmd in previews.items():
                    t = time.perf_counter()
                    run_shell(cmd, work)
                    preview_samples[tool].append(time.perf_counter() - t)
            preview = {tool: statistics.median(s) for tool, s in preview_samples.items()}
            rows.append((name, times, preview))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"{'case':<22} {'filekit':>8} {'in-place':>8} {'no-hist':>8} {'no-fsync':>8} {'as-fm':>8} {'fastmod':>8} {'rg|sd':>8} {'rg|sed':>8}  {'fastmod/fk':>10} {'fastmod/ip':>10} {'fm/as-fm':>8} {'sd/fk':>6} {'sed/fk':>6}  {'dry-run':>8} {'rg':>7} {'dry/rg':>6}")
    ms = lambda v: f"{v*1000:>6.0f}ms"
    for name, t, p in rows:
        fk = t["filekit"]
        ip = t["filekit --in-place"]
        print(
            f"{name:<22} {ms(fk)} {ms(ip)} {ms(t['filekit --no-history'])} {ms(t['filekit --no-fsync'])} {ms(t['filekit as fastmod'])} {ms(t['fastmod'])} {ms(t['rg | sd'])} {ms(t['rg | sed -i'])}"
            f"  {t['fastmod']/fk:>9.2f}x {t['fastmod']/ip:>9.2f}x {t['fastmod']/t['filekit as fastmod']:>7.2f}x {t['rg | sd']/fk:>5.2f}x {t['rg | sed -i']/fk:>5.2f}x"
            f"  {ms(p['filekit --dry-run'])} {p['rg']*1000:>5.0f}ms {p['filekit --dry-run']/p['rg']:>5.2f}x"
        )
    print("filekit flushes each written file and its directory to disk and records every file's old and new")
    print("content in its edit history (in its state directory) so that the replace can be undone; --no-history skips")
    print("the record, --no-fsync the flush (keeping the record), as the other tools do neither. --in-place overwrites")
    print("each file in place, as fastmod does, instead of writing a new file and renaming it over the old one.")
    print("as-fm (\"as fastmod\") is filekit on fastmod's terms: --in-place --no-fsync --no-history.")
    print("Every tool left a byte-identical tree in every case.")


if __name__ == "__main__":
    main()
