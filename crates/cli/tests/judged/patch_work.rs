//! The work and memory a patch's placement takes, at the sizes of the attack that found it
//! unbounded: hunks of 400, 1,000 and 10,000 identical lines against a 2 MB file of them, and
//! a hunk whose places cost more than the placement's budget. Each ends, placed or refused
//! with the fact, within bounded memory; none asserts a time. Heavy (megabyte files through
//! the debug binary): a judged test.

use crate::common;
use common::*;

/// A 2 MB file: a million lines `x`.
const LINES: usize = 1_000_000;

fn patch_measured(sb: &Sandbox, patch: &str) -> Measured {
    run_measured(
        sb.command(&["--no-history", "patch", "-", "--json"]),
        patch.as_bytes().to_vec(),
        COMMAND_TIMEOUT,
    )
}

/// A hunk of `len` old lines `x` whose middle one becomes `y`: as a unified diff starting at
/// line `at`, or in Codex's envelope (no line number).
fn hunk(len: usize, at: usize, unified: bool) -> String {
    let before = len / 2;
    let after = len - before - 1;
    let body = format!("{}-x\n+y\n{}", " x\n".repeat(before), " x\n".repeat(after));
    if unified {
        format!("--- a/big.txt\n+++ b/big.txt\n@@ -{at},{len} +{at},{len} @@\n{body}")
    } else {
        format!("*** Begin Patch\n*** Update File: big.txt\n@@\n{body}*** End Patch\n")
    }
}

#[test]
fn hunks_of_identical_lines_on_a_2_mb_file_end_in_bounded_memory() {
    let sb = Sandbox::new();
    let file = "x\n".repeat(LINES);
    for len in [400, 1_000, 10_000] {
        sb.write("big.txt", &file);
        // A line number names one of the million places: placed there.
        let at = 500_000;
        let m = patch_measured(&sb, &hunk(len, at, true));
        assert_eq!(m.run.code, 0, "{len}: {}\n{}", m.run.stdout, m.run.stderr);
        assert_eq!(m.run.json["files"][0]["hunks"][0]["outcome"], "exact");
        let out = sb.read("big.txt");
        assert_eq!(
            out.lines().position(|l| l == "y"),
            Some(at - 1 + len / 2),
            "{len}"
        );
        assert!(m.peak_mib() < 256, "{len} lines: {} MiB", m.peak_mib());
        // Without one, its places overlap: refused as ambiguous, naming the first ones.
        sb.write("big.txt", &file);
        let m = patch_measured(&sb, &hunk(len, 1, false));
        assert_eq!(m.run.code, 1, "{len}: {}\n{}", m.run.stdout, m.run.stderr);
        assert_eq!(m.run.json["error_code"], "AMBIGUOUS", "{}", m.run.stdout);
        assert_eq!(
            m.run.json["files"][0]["hunks"][0]["candidates"][0], 1,
            "{}",
            m.run.stdout
        );
        assert!(m.peak_mib() < 256, "{len} lines: {} MiB", m.peak_mib());
        assert_eq!(sb.read("big.txt"), file);
    }
}

#[test]
fn a_hunk_whose_places_cost_more_than_the_budget_is_refused_with_the_fact() {
    let sb = Sandbox::new();
    // Lines `a`, every 1,000th indented: once indentation is allowed for, a hunk of 1,000
    // lines `a` fits every one of a million places, and each is refused only at its indented
    // line, after 500 lines on average: more comparisons than the budget allows.
    let file: String = (0..LINES)
        .map(|k| if k % 1_000 == 999 { " a\n" } else { "a\n" })
        .collect();
    sb.write("big.txt", &file);
    let patch = format!(
        "--- a/big.txt\n+++ b/big.txt\n@@ -1,1000 +1,1000 @@\n{}-a\n+b\n{}",
        " a\n".repeat(500),
        " a\n".repeat(499)
    );
    let m = patch_measured(&sb, &patch);
    assert_eq!(m.run.code, 1, "{}\n{}", m.run.stdout, m.run.stderr);
    assert_eq!(m.run.json["error_code"], "TOO_LARGE", "{}", m.run.stdout);
    let limit = &m.run.json["files"][0]["hunks"][0]["limit"];
    assert_eq!(limit["kind"], "search_work", "{}", m.run.stdout);
    assert!(limit["max"].as_u64().unwrap() > 0);
    assert!(
        m.run.json["error"]
            .as_str()
            .unwrap()
            .contains("add context lines"),
        "{}",
        m.run.stdout
    );
    assert!(m.peak_mib() < 256, "{} MiB", m.peak_mib());
    assert_eq!(sb.read("big.txt"), file);
}

#[test]
fn the_mcp_filesystem_edit_file_placement_is_bounded_the_same_way() {
    let sb = Sandbox::new();
    // The same million places, through the drop-in's edit_file, which places an oldText it
    // does not find exactly with the same placer.
    // Its lines are indented where the file's are not, so that it is nowhere as written.
    let file: String = (0..LINES)
        .map(|k| if k % 1_000 == 999 { "    a\n" } else { "a\n" })
        .collect();
    sb.write("big.txt", &file);
    let old_text = "  a\n".repeat(1_000);
    let new_text = format!("{}  b\n{}", "  a\n".repeat(500), "  a\n".repeat(499));
    let call = serde_json::json!({"tool_name": "edit_file", "tool_args": {
        "path": sb.path("big.txt"),
        "edits": [{"oldText": old_text, "newText": new_text}],
    }});
    let m = run_measured(
        sb.command(&["call", "--tools", "mcp-filesystem"]),
        call.to_string().into_bytes(),
        COMMAND_TIMEOUT,
    );
    let all = format!("{}\n{}", m.run.stdout, m.run.stderr);
    assert_ne!(m.run.code, 0, "{all}");
    assert!(all.contains("comparisons a file's hunks may take"), "{all}");
    assert!(m.peak_mib() < 256, "{} MiB", m.peak_mib());
    assert_eq!(sb.read("big.txt"), file);
}

#[test]
fn sixty_search_replace_blocks_on_a_2_mb_file_apply_within_the_budget() {
    let sb = Sandbox::new();
    // Each block is placed on the text the ones before it left: a pass over 2 MB per block.
    let file: String = (0..40_000)
        .map(|k| format!("line {k:05} of a large file, padded out to fifty\n"))
        .collect();
    sb.write("big.txt", &file);
    let blocks: String = (0..60)
        .map(|b| {
            let k = 300 + b * 600;
            format!(
                "big.txt\n<<<<<<< SEARCH\nline {k:05} of a large file, padded out to fifty\n=======\nline {k:05} changed\n>>>>>>> REPLACE\n\n"
            )
        })
        .collect();
    let m = patch_measured(&sb, &blocks);
    assert_eq!(m.run.code, 0, "{}\n{}", m.run.stdout, m.run.stderr);
    let out = sb.read("big.txt");
    assert_eq!(out.matches(" changed\n").count(), 60);
    assert!(out.contains("line 35700 changed\n"));
    assert!(m.peak_mib() < 256, "{} MiB", m.peak_mib());
}
