//! Text in every encoding, through the curated table (`filekit call`), the CLI verbs and the
//! drop-in tables: read as UTF-8 text with its encoding named, searched as text, and edited,
//! replaced and patched in its own encoding with every byte outside the edit unchanged (each
//! file's bytes compared with bytes Python's codecs made); a character the encoding cannot
//! hold is refused with nothing written; undo puts the exact bytes back.

use crate::common;
use common::*;
use serde_json::json;

pub(crate) struct Case {
    pub(crate) file: &'static str,
    pub(crate) encoding: &'static str,
    pub(crate) text: &'static str,
    pub(crate) old: &'static str,
    pub(crate) new: &'static str,
    pub(crate) old2: &'static str,
    pub(crate) new2: &'static str,
    pub(crate) bytes: &'static [u8],
    pub(crate) after: &'static [u8],
    pub(crate) after2: &'static [u8],
}

/// Files in each encoding, made by Python's codecs (not the engine's): the text, two edits
/// (`old` → `new`), and the file's bytes before and after each.
pub(crate) const CASES: &[Case] = &[
    Case {
        file: "utf16le.txt",
        encoding: "UTF-16LE",
        text: "héllo wörld\r\nsecond ñ line\r\n",
        old: "wörld",
        new: "Welt €",
        old2: "second ñ",
        new2: "zweite ñ",
        bytes: b"\xff\xfe\x68\x00\xe9\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x77\x00\xf6\x00\x72\x00\x6c\x00\x64\x00\x0d\x00\x0a\x00\x73\x00\x65\x00\x63\x00\x6f\x00\x6e\x00\x64\x00\x20\x00\xf1\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0d\x00\x0a\x00",
        after: b"\xff\xfe\x68\x00\xe9\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x57\x00\x65\x00\x6c\x00\x74\x00\x20\x00\xac\x20\x0d\x00\x0a\x00\x73\x00\x65\x00\x63\x00\x6f\x00\x6e\x00\x64\x00\x20\x00\xf1\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0d\x00\x0a\x00",
        after2: b"\xff\xfe\x68\x00\xe9\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x77\x00\xf6\x00\x72\x00\x6c\x00\x64\x00\x0d\x00\x0a\x00\x7a\x00\x77\x00\x65\x00\x69\x00\x74\x00\x65\x00\x20\x00\xf1\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0d\x00\x0a\x00",
    },
    Case {
        file: "utf16be.txt",
        encoding: "UTF-16BE",
        text: "héllo wörld\nsecond ñ line\n",
        old: "ñ",
        new: "n~",
        old2: "héllo",
        new2: "hallo",
        bytes: b"\xfe\xff\x00\x68\x00\xe9\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x77\x00\xf6\x00\x72\x00\x6c\x00\x64\x00\x0a\x00\x73\x00\x65\x00\x63\x00\x6f\x00\x6e\x00\x64\x00\x20\x00\xf1\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0a",
        after: b"\xfe\xff\x00\x68\x00\xe9\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x77\x00\xf6\x00\x72\x00\x6c\x00\x64\x00\x0a\x00\x73\x00\x65\x00\x63\x00\x6f\x00\x6e\x00\x64\x00\x20\x00\x6e\x00\x7e\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0a",
        after2: b"\xfe\xff\x00\x68\x00\x61\x00\x6c\x00\x6c\x00\x6f\x00\x20\x00\x77\x00\xf6\x00\x72\x00\x6c\x00\x64\x00\x0a\x00\x73\x00\x65\x00\x63\x00\x6f\x00\x6e\x00\x64\x00\x20\x00\xf1\x00\x20\x00\x6c\x00\x69\x00\x6e\x00\x65\x00\x0a",
    },
    Case {
        file: "cp1252.txt",
        encoding: "windows-1252",
        text: "price: 5 € or “about” that\ncafé au lait\n",
        old: "café",
        new: "thé",
        old2: "5 €",
        new2: "6 €",
        bytes: b"\x70\x72\x69\x63\x65\x3a\x20\x35\x20\x80\x20\x6f\x72\x20\x93\x61\x62\x6f\x75\x74\x94\x20\x74\x68\x61\x74\x0a\x63\x61\x66\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x0a",
        after: b"\x70\x72\x69\x63\x65\x3a\x20\x35\x20\x80\x20\x6f\x72\x20\x93\x61\x62\x6f\x75\x74\x94\x20\x74\x68\x61\x74\x0a\x74\x68\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x0a",
        after2: b"\x70\x72\x69\x63\x65\x3a\x20\x36\x20\x80\x20\x6f\x72\x20\x93\x61\x62\x6f\x75\x74\x94\x20\x74\x68\x61\x74\x0a\x63\x61\x66\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x0a",
    },
    Case {
        file: "latin1.txt",
        encoding: "windows-1252",
        text: "naïve café au lait, crème brûlée\ndéjà vu\n",
        old: "déjà",
        new: "déjà-vu",
        old2: "crème",
        new2: "crema",
        bytes: b"\x6e\x61\xef\x76\x65\x20\x63\x61\x66\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x2c\x20\x63\x72\xe8\x6d\x65\x20\x62\x72\xfb\x6c\xe9\x65\x0a\x64\xe9\x6a\xe0\x20\x76\x75\x0a",
        after: b"\x6e\x61\xef\x76\x65\x20\x63\x61\x66\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x2c\x20\x63\x72\xe8\x6d\x65\x20\x62\x72\xfb\x6c\xe9\x65\x0a\x64\xe9\x6a\xe0\x2d\x76\x75\x20\x76\x75\x0a",
        after2: b"\x6e\x61\xef\x76\x65\x20\x63\x61\x66\xe9\x20\x61\x75\x20\x6c\x61\x69\x74\x2c\x20\x63\x72\x65\x6d\x61\x20\x62\x72\xfb\x6c\xe9\x65\x0a\x64\xe9\x6a\xe0\x20\x76\x75\x0a",
    },
    Case {
        file: "sjis.txt",
        encoding: "Shift_JIS",
        text: "パス\\ソース\\表示\nこれは日本語のテキストです。\n",
        old: "日本語",
        new: "にほんご",
        old2: "表示",
        new2: "ひょうじ",
        bytes: b"\x83\x70\x83\x58\x5c\x83\x5c\x81\x5b\x83\x58\x5c\x95\x5c\x8e\xa6\x0a\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42\x0a",
        after: b"\x83\x70\x83\x58\x5c\x83\x5c\x81\x5b\x83\x58\x5c\x95\x5c\x8e\xa6\x0a\x82\xb1\x82\xea\x82\xcd\x82\xc9\x82\xd9\x82\xf1\x82\xb2\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42\x0a",
        after2: b"\x83\x70\x83\x58\x5c\x83\x5c\x81\x5b\x83\x58\x5c\x82\xd0\x82\xe5\x82\xa4\x82\xb6\x0a\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42\x0a",
    },
    Case {
        file: "gb18030.txt",
        encoding: "gb18030",
        text: "中文文本测试，你好世界。\n第二行：编码\n",
        old: "你好",
        new: "再见",
        old2: "编码",
        new2: "字符",
        bytes: b"\xd6\xd0\xce\xc4\xce\xc4\xb1\xbe\xb2\xe2\xca\xd4\xa3\xac\xc4\xe3\xba\xc3\xca\xc0\xbd\xe7\xa1\xa3\x0a\xb5\xda\xb6\xfe\xd0\xd0\xa3\xba\xb1\xe0\xc2\xeb\x0a",
        after: b"\xd6\xd0\xce\xc4\xce\xc4\xb1\xbe\xb2\xe2\xca\xd4\xa3\xac\xd4\xd9\xbc\xfb\xca\xc0\xbd\xe7\xa1\xa3\x0a\xb5\xda\xb6\xfe\xd0\xd0\xa3\xba\xb1\xe0\xc2\xeb\x0a",
        after2: b"\xd6\xd0\xce\xc4\xce\xc4\xb1\xbe\xb2\xe2\xca\xd4\xa3\xac\xc4\xe3\xba\xc3\xca\xc0\xbd\xe7\xa1\xa3\x0a\xb5\xda\xb6\xfe\xd0\xd0\xa3\xba\xd7\xd6\xb7\xfb\x0a",
    },
    Case {
        file: "euckr.txt",
        encoding: "EUC-KR",
        text: "한국어 텍스트입니다. 안녕하세요\n두 번째 줄\n",
        old: "안녕",
        new: "반갑",
        old2: "번째",
        new2: "째번",
        bytes: b"\xc7\xd1\xb1\xb9\xbe\xee\x20\xc5\xd8\xbd\xba\xc6\xae\xc0\xd4\xb4\xcf\xb4\xd9\x2e\x20\xbe\xc8\xb3\xe7\xc7\xcf\xbc\xbc\xbf\xe4\x0a\xb5\xce\x20\xb9\xf8\xc2\xb0\x20\xc1\xd9\x0a",
        after: b"\xc7\xd1\xb1\xb9\xbe\xee\x20\xc5\xd8\xbd\xba\xc6\xae\xc0\xd4\xb4\xcf\xb4\xd9\x2e\x20\xb9\xdd\xb0\xa9\xc7\xcf\xbc\xbc\xbf\xe4\x0a\xb5\xce\x20\xb9\xf8\xc2\xb0\x20\xc1\xd9\x0a",
        after2: b"\xc7\xd1\xb1\xb9\xbe\xee\x20\xc5\xd8\xbd\xba\xc6\xae\xc0\xd4\xb4\xcf\xb4\xd9\x2e\x20\xbe\xc8\xb3\xe7\xc7\xcf\xbc\xbc\xbf\xe4\x0a\xb5\xce\x20\xc2\xb0\xb9\xf8\x20\xc1\xd9\x0a",
    },
];

/// `sjis.txt` with its two ASCII backslashes made slashes: the trail byte 0x5C of 'ソ'
/// (0x83 0x5C) stays.
const SJIS_SLASHES: &[u8] = b"\x83\x70\x83\x58\x2f\x83\x5c\x81\x5b\x83\x58\x2f\x95\x5c\x8e\xa6\x0a\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42\x0a";

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    for c in CASES {
        sb.write_bytes(c.file, c.bytes);
    }
    sb
}

fn bytes(sb: &Sandbox, c: &Case) -> Vec<u8> {
    std::fs::read(sb.path(c.file)).unwrap()
}

/// The line of `text` holding `needle`, without its line break.
fn line_with<'t>(text: &'t str, needle: &str) -> &'t str {
    text.lines().find(|l| l.contains(needle)).unwrap()
}

#[test]
fn each_encoding_is_read_as_text_and_named() {
    let sb = sandbox();
    let files: Vec<_> = CASES.iter().map(|c| json!({"path": c.file})).collect();
    let run = sb.call("read_files", json!({ "files": files }));
    assert_eq!(run.code, 0, "{}", run.stdout);
    for (c, f) in CASES.iter().zip(run.json["files"].as_array().unwrap()) {
        assert_eq!(f["content"], c.text, "{}", c.file);
        assert_eq!(f["encoding"], c.encoding, "{}", c.file);
    }
    // A file without a BOM that holds NUL bytes is still binary, not UTF-16.
    sb.write_bytes("data.bin", b"h\0e\0l\0l\0o\0\0\0\0\x01\x02");
    let run = sb.call("read_files", json!({"files": [{"path": "data.bin"}]}));
    assert_eq!(run.json["files"][0]["kind"], "binary", "{}", run.stdout);
}

#[test]
fn grep_finds_the_decoded_text() {
    let sb = sandbox();
    for c in CASES {
        let run = sb.call(
            "grep_files",
            json!({"pattern": c.old, "path": c.file, "output_mode": "content"}),
        );
        assert_eq!(run.code, 0, "{}", run.stdout);
        let files = run.json["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{}: {}", c.file, run.stdout);
        assert_eq!(files[0]["path"], c.file);
        let shown = files[0]["lines"][0].as_str().unwrap();
        assert!(
            shown.ends_with(line_with(c.text, c.old)),
            "{}: {shown}",
            c.file
        );
        let run = sb.filekit(&["grep", c.old2, c.file], None);
        assert!(
            run.stdout.contains(&format!("{}:", c.file))
                && run.stdout.contains(line_with(c.text, c.old2)),
            "{}: {}",
            c.file,
            run.stdout
        );
    }
    // The trail byte of 'ソ' (0x83 0x5C) is no backslash: one line holds backslashes.
    let run = sb.call(
        "grep_files",
        json!({"pattern": "\\\\", "output_mode": "count"}),
    );
    assert_eq!(run.json["total_matches"], 1, "{}", run.stdout);
}

#[test]
fn edit_files_writes_each_edit_in_the_files_encoding_and_undo_restores_its_bytes() {
    let sb = sandbox();
    for c in CASES {
        let run = sb.call(
            "edit_files",
            json!({"files": [{"path": c.file, "edits": [{"str_replace": {"old": c.old, "new": c.new}}]}]}),
        );
        assert_eq!(run.code, 0, "{}: {}", c.file, run.stdout);
        assert_eq!(run.json["files"][0]["encoding"], c.encoding, "{}", c.file);
        assert_eq!(bytes(&sb, c), c.after, "{}", c.file);
    }
    for c in CASES.iter().rev() {
        let run = sb.filekit(&["undo"], None);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(bytes(&sb, c), c.bytes, "{}: undo", c.file);
    }
}

#[test]
fn replace_in_files_and_the_replace_verb_write_in_the_files_encoding() {
    let sb = sandbox();
    for c in CASES {
        let run = sb.call(
            "replace_in_files",
            json!({"expression": format!("s/{}/{}/", c.old, c.new), "files": c.file}),
        );
        assert_eq!(run.code, 0, "{}: {}", c.file, run.stdout);
        assert_eq!(bytes(&sb, c), c.after, "{}", c.file);
        sb.write_bytes(c.file, c.bytes);
    }
    // The verb, a file at a time.
    for c in CASES {
        let run = sb.filekit(
            &["replace", &format!("s/{}/{}/", c.old2, c.new2), c.file],
            None,
        );
        assert_eq!(run.code, 0, "{}: {}{}", c.file, run.stdout, run.stderr);
        assert_eq!(bytes(&sb, c), c.after2, "{}", c.file);
    }
    // Over the tree: the files in other encodings are searched as their text.
    for c in CASES {
        sb.write_bytes(c.file, c.bytes);
    }
    let run = sb.filekit(&["replace", "s/世界/天下/", "."], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let gb = &CASES[5];
    assert_eq!(
        bytes(&sb, gb),
        [&gb.bytes[..18], b"\xcc\xec\xcf\xc2", &gb.bytes[22..]].concat()
    );
    // An ASCII backslash, never the trail byte of 'ソ'.
    sb.write_bytes("sjis.txt", CASES[4].bytes);
    let run = sb.filekit(&["replace", "s/\\\\/\\//g", "sjis.txt"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(std::fs::read(sb.path("sjis.txt")).unwrap(), SJIS_SLASHES);
}

#[test]
fn patches_apply_in_the_files_encoding() {
    let sb = sandbox();
    for c in CASES {
        let line = line_with(c.text, c.old);
        let patch = format!(
            "*** Begin Patch\n*** Update File: {}\n@@\n-{line}\n+{}\n*** End Patch\n",
            c.file,
            line.replace(c.old, c.new)
        );
        let run = sb.call("apply_patch", json!({ "input": patch }));
        assert_eq!(run.code, 0, "{}: {}", c.file, run.stdout);
        assert_eq!(bytes(&sb, c), c.after, "{}", c.file);
        sb.write_bytes(c.file, c.bytes);
        let line = line_with(c.text, c.old2);
        let diff = format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1 +1 @@\n-{line}\n+{}\n",
            line.replace(c.old2, c.new2),
            f = c.file
        );
        let run = sb.filekit(&["patch", "-"], Some(&diff));
        assert_eq!(run.code, 0, "{}: {}{}", c.file, run.stdout, run.stderr);
        assert_eq!(bytes(&sb, c), c.after2, "{}", c.file);
    }
}

/// A patch that moves a file and changes it goes through the file operations (the change
/// as a rewrite of the moved file): each encoding is spliced there too, and undo brings the
/// file back where it was with its exact bytes.
#[test]
fn a_patch_moves_and_changes_a_file_in_its_encoding() {
    let sb = sandbox();
    for c in CASES {
        let line = line_with(c.text, c.old);
        let moved = format!("moved/{}", c.file);
        let patch = format!(
            "*** Begin Patch\n*** Update File: {}\n*** Move to: {moved}\n@@\n-{line}\n+{}\n*** End Patch\n",
            c.file,
            line.replace(c.old, c.new)
        );
        let run = sb.filekit(&["patch", "-"], Some(&patch));
        assert_eq!(run.code, 0, "{}: {}{}", c.file, run.stdout, run.stderr);
        assert!(!sb.path(c.file).exists(), "{}", c.file);
        assert_eq!(
            std::fs::read(sb.path(&moved)).unwrap(),
            c.after,
            "{}",
            c.file
        );
        let run = sb.filekit(&["undo"], None);
        assert_eq!(run.code, 0, "{}: {}{}", c.file, run.stdout, run.stderr);
        assert!(!sb.path(&moved).exists(), "{}", c.file);
        assert_eq!(bytes(&sb, c), c.bytes, "{}", c.file);
    }
}

#[test]
fn the_drop_in_tables_edit_in_the_files_encoding() {
    let sb = sandbox();
    for (i, c) in CASES.iter().enumerate() {
        let path = sb.path(c.file).display().to_string();
        let (tool, args) = match i % 3 {
            0 => (
                "Edit",
                json!({"file_path": path, "old_string": c.old, "new_string": c.new}),
            ),
            1 => (
                "edit_file",
                json!({"path": path, "edits": [{"oldText": c.old, "newText": c.new}]}),
            ),
            _ => (
                "edit_block",
                json!({"file_path": path, "old_string": c.old, "new_string": c.new}),
            ),
        };
        let run = sb.call(tool, args);
        assert_eq!(run.code, 0, "{tool} {}: {}", c.file, run.stdout);
        assert_eq!(bytes(&sb, c), c.after, "{tool} {}", c.file);
    }
}

#[test]
fn a_character_the_encoding_cannot_hold_is_refused_with_nothing_written() {
    let sb = sandbox();
    sb.call_fails(
        "edit_files",
        json!({"files": [{"path": "latin1.txt", "edits": [{"str_replace": {"old": "déjà", "new": "déjà 😀"}}]}]}),
        1,
        &["windows-1252", "U+1F600", "nothing was written"],
    );
    sb.call_fails(
        "replace_in_files",
        json!({"expression": "s/crème/cr😀me/", "files": "latin1.txt"}),
        1,
        &["U+1F600"],
    );
    // Shift_JIS writes '¥' as the byte it reads as '\\': it would not read back.
    sb.call_fails(
        "edit_files",
        json!({"files": [{"path": "sjis.txt", "edits": [{"str_replace": {"old": "表示", "new": "¥"}}]}]}),
        1,
        &["Shift_JIS", "U+00A5"],
    );
    assert_eq!(bytes(&sb, &CASES[3]), CASES[3].bytes);
}

/// UTF-16 without a byte order mark is binary to the detector (NUL bytes): the caller names
/// the encoding, in the curated table (`encoding`, `options.encoding`) and the verbs
/// (`--encoding`).
#[test]
fn the_caller_names_an_encoding_the_detector_cannot_see() {
    let sb = Sandbox::new();
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    sb.write_bytes("plain16.txt", &utf16("key = wert\nzwei = 2\n"));
    let run = sb.call("read_files", json!({"files": [{"path": "plain16.txt"}]}));
    assert_eq!(run.json["files"][0]["kind"], "binary", "{}", run.stdout);
    let run = sb.call(
        "read_files",
        json!({"files": [{"path": "plain16.txt"}], "encoding": "utf-16le"}),
    );
    assert_eq!(
        run.json["files"][0]["content"], "key = wert\nzwei = 2\n",
        "{}",
        run.stdout
    );
    assert_eq!(run.json["files"][0]["encoding"], "UTF-16LE");
    let run = sb.call(
        "edit_files",
        json!({"files": [{"path": "plain16.txt", "edits": [{"str_replace": {"old": "wert", "new": "Wert ä"}}]}], "options": {"encoding": "UTF-16LE"}}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        std::fs::read(sb.path("plain16.txt")).unwrap(),
        utf16("key = Wert ä\nzwei = 2\n")
    );
    let run = sb.filekit(&["read", "--encoding", "utf-16le", "plain16.txt"], None);
    assert!(
        run.stdout.contains("UTF-16LE") && run.stdout.contains("zwei = 2"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    let run = sb.filekit(
        &[
            "replace",
            "--encoding",
            "utf-16le",
            "s/zwei/two/",
            "plain16.txt",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read(sb.path("plain16.txt")).unwrap(),
        utf16("key = Wert ä\ntwo = 2\n")
    );
    let plan = json!({"files": [{"path": "plain16.txt", "edits": [{"str_replace": {"old": "two", "new": "zwo"}}]}]});
    let run = sb.filekit(&["edit", "--encoding", "utf-16le"], Some(&plan.to_string()));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read(sb.path("plain16.txt")).unwrap(),
        utf16("key = Wert ä\nzwo = 2\n")
    );
    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read(sb.path("plain16.txt")).unwrap(),
        utf16("key = Wert ä\ntwo = 2\n")
    );
    // grep skips it as binary, unless told its encoding.
    let run = sb.filekit(&["grep", "Wert ä", "plain16.txt"], None);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let run = sb.filekit(&["grep", "-E", "utf-16le", "Wert ä", "plain16.txt"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "plain16.txt:1:key = Wert ä\n");
    sb.call_fails(
        "read_files",
        json!({"files": [{"path": "plain16.txt"}], "encoding": "klingon"}),
        2,
        &["unknown encoding \"klingon\"", "shift_jis"],
    );
    let run = sb.filekit(&["read", "--encoding", "klingon", "plain16.txt"], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("unknown encoding"), "{}", run.stderr);
}

/// The curated table's targeted read and edit and its grep take the caller's encoding too,
/// and so does the read verb's targeted read: a UTF-16 JSON file without a byte order mark
/// (binary to the detector) is read by path, edited in UTF-16, and found.
#[test]
fn file_read_file_edit_and_grep_files_take_the_callers_encoding() {
    let sb = Sandbox::new();
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    sb.write_bytes("conf.json", &utf16("{\"name\": \"café\", \"port\": 80}\n"));
    let run = sb.call("file_read", json!({"file": "conf.json", "path": "$.name"}));
    assert_eq!(run.code, 1, "{}", run.stdout);
    let run = sb.call(
        "file_read",
        json!({"file": "conf.json", "path": "$.name", "encoding": "utf-16le"}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["content"], "\"café\"", "{}", run.stdout);
    assert_eq!(run.json["encoding"], "UTF-16LE", "{}", run.stdout);

    let run = sb.call(
        "file_edit",
        json!({"file": "conf.json", "target": "$.port", "operation": "replace", "content": "8080", "encoding": "UTF-16LE"}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["encoding"], "UTF-16LE", "{}", run.stdout);
    assert_eq!(
        std::fs::read(sb.path("conf.json")).unwrap(),
        utf16("{\"name\": \"café\", \"port\": 8080}\n")
    );

    let run = sb.call(
        "grep_files",
        json!({"pattern": "café", "path": "conf.json", "output_mode": "count", "encoding": "utf-16le"}),
    );
    assert_eq!(run.json["total_matches"], 1, "{}", run.stdout);

    let run = sb.filekit(
        &[
            "read",
            "--encoding",
            "utf-16le",
            "--path",
            "$.port",
            "conf.json",
        ],
        None,
    );
    assert!(
        run.stdout.contains("lines 1-1, UTF-16LE) <==") && run.stdout.contains("8080"),
        "{}{}",
        run.stdout,
        run.stderr
    );

    // A label that names no encoding is refused, saying what labels are; nothing written.
    for (tool, args) in [
        (
            "file_read",
            json!({"file": "conf.json", "path": "$.name", "encoding": "klingon"}),
        ),
        (
            "file_edit",
            json!({"file": "conf.json", "target": "$.port", "operation": "replace", "content": "1", "encoding": "klingon"}),
        ),
        ("grep_files", json!({"pattern": "x", "encoding": "klingon"})),
    ] {
        sb.call_fails(tool, args, 2, &["unknown encoding \"klingon\"", "WHATWG"]);
    }
    // A refactor reads each file it changes in its own encoding: naming one is refused.
    sb.write("a.ts", "export const a = 1;\n");
    sb.call_fails(
        "file_edit",
        json!({"file": "a.ts", "refactor": "rename_symbol", "symbol": "a", "new_name": "b", "encoding": "utf-8"}),
        2,
        &["`encoding` belongs to the direct-edit mode"],
    );
}
