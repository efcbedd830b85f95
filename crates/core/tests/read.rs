//! Versioned reads through the public API, against real files.

use base64::Engine as _;
use filekit_core::hash::content_hash;
use filekit_core::limits::MAX_READ_BYTES;
use filekit_core::read::{FileRead, ReadContent, ReadOptions, TextRead, read_file, read_files};
use filekit_core::text::{LineIndex, TextDoc};
use filekit_core::workspace::{Workspace, rfc3339};
use filekit_core::{ErrorCode, Limit};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The bound of files held whole in these tests: a file of a few megabytes streams.
const BOUND: u64 = 64 << 10;

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    ws: Workspace,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let ws = Workspace::new(std::slice::from_ref(&root), false)
            .unwrap()
            .with_max_file_size(BOUND);
        Fx {
            _tmp: tmp,
            root,
            ws,
        }
    }

    fn file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
        self
    }

    fn read(&self, rel: &str, opts: &ReadOptions) -> FileRead {
        read_file(&self.ws, rel, opts)
    }

    fn text(&self, rel: &str, start: Option<i64>, end: Option<i64>) -> TextRead {
        let r = self.read(rel, &range(start, end));
        match r.result {
            Ok(ReadContent::Text(t)) => t,
            other => panic!("{rel} {start:?}..{end:?}: expected text, got {other:?}"),
        }
    }

    fn err(&self, rel: &str, start: Option<i64>, end: Option<i64>) -> filekit_core::FkError {
        self.read(rel, &range(start, end))
            .result
            .expect_err("expected an error")
    }
}

fn range(start: Option<i64>, end: Option<i64>) -> ReadOptions {
    ReadOptions {
        start_line: start,
        end_line: end,
        ..Default::default()
    }
}

fn ten_lines() -> String {
    (1..=10).map(|i| format!("line{i}\n")).collect()
}

fn lines(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("line{i}\n")).collect()
}

#[test]
fn whole_file_read_is_versioned() {
    let fx = Fx::new();
    fx.file("a.txt", ten_lines());
    let t = fx.text("a.txt", None, None);
    assert_eq!(t.content, ten_lines());
    assert_eq!(
        (t.start_line, t.end_line, t.total_lines.unwrap()),
        (1, 10, 10)
    );
    assert_eq!(
        t.content_hash.clone().unwrap(),
        content_hash(ten_lines().as_bytes())
    );
    assert_eq!(t.range_hash, None, "no range asked");
    assert_eq!(t.size, ten_lines().len() as u64);
    assert!(!t.truncated);
    let mtime = fs::metadata(fx.root.join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(t.last_modified, rfc3339(mtime));
    assert_eq!(t.last_modified.len(), "2025-05-11T10:15:30Z".len());
    assert!(t.last_modified.ends_with('Z'));
}

#[test]
fn line_ranges_positive_and_negative() {
    let fx = Fx::new();
    fx.file("a.txt", ten_lines());
    let cases: &[(Option<i64>, Option<i64>, usize, usize)] = &[
        (Some(3), Some(5), 3, 5),
        (Some(1), Some(1), 1, 1),
        (Some(10), None, 10, 10),
        (None, Some(2), 1, 2),
        (Some(-3), None, 8, 10),
        (Some(-3), Some(-2), 8, 9),
        (Some(-1), Some(-1), 10, 10),
        (Some(2), Some(-2), 2, 9),
        (Some(-10), Some(1), 1, 1),
        // An end past the last line stops there; a start before the first starts there.
        (Some(8), Some(100), 8, 10),
        (Some(-100), Some(2), 1, 2),
    ];
    for &(s, e, want_s, want_e) in cases {
        let t = fx.text("a.txt", s, e);
        assert_eq!((t.start_line, t.end_line), (want_s, want_e), "{s:?}..{e:?}");
        assert_eq!(t.content, lines(want_s, want_e), "{s:?}..{e:?}");
        assert_eq!(t.total_lines.unwrap(), 10);
        assert_eq!(
            t.range_hash.as_deref(),
            Some(content_hash(t.content.as_bytes()).as_str())
        );
        assert_eq!(
            t.content_hash.clone().unwrap(),
            content_hash(ten_lines().as_bytes()),
            "whole file's hash"
        );
    }
}

#[test]
fn out_of_range_reads_say_how_many_lines_there_are() {
    let fx = Fx::new();
    fx.file("a.txt", ten_lines());
    for (s, e) in [
        (Some(11), None),
        (Some(11), Some(12)),
        (Some(5), Some(3)),
        (Some(-2), Some(-5)),
        (None, Some(-11)),
        (Some(0), None),
        (None, Some(0)),
    ] {
        let err = fx.err("a.txt", s, e);
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{s:?}..{e:?}");
        let full = err.full_message();
        assert!(full.contains("10 lines"), "{s:?}..{e:?}: {full}");
        assert!(err.hint.is_some(), "{s:?}..{e:?}");
    }
    let full = fx.err("a.txt", Some(11), None).full_message();
    assert!(full.contains("1..10"), "{full}");
    let r = fx.read(
        "a.txt",
        &ReadOptions {
            max_lines: Some(0),
            ..Default::default()
        },
    );
    assert_eq!(r.error().unwrap().code, ErrorCode::InvalidArgument);
}

#[test]
fn max_lines_truncates_and_hashes_what_it_returns() {
    let fx = Fx::new();
    fx.file("a.txt", ten_lines());
    let opts = ReadOptions {
        max_lines: Some(4),
        ..Default::default()
    };
    let t = match fx.read("a.txt", &opts).result.unwrap() {
        ReadContent::Text(t) => t,
        other => panic!("{other:?}"),
    };
    assert!(t.truncated);
    assert_eq!(
        (t.start_line, t.end_line, t.total_lines.unwrap()),
        (1, 4, 10)
    );
    assert_eq!(t.content, lines(1, 4));
    assert_eq!(t.range_hash, Some(content_hash(lines(1, 4).as_bytes())));

    let opts = ReadOptions {
        start_line: Some(-3),
        max_lines: Some(5),
        ..Default::default()
    };
    let r = fx.read("a.txt", &opts);
    let t = r.text().unwrap();
    assert!(!t.truncated, "3 lines fit in 5");
    assert_eq!((t.start_line, t.end_line), (8, 10));
}

#[test]
fn empty_files_and_files_without_final_newline() {
    let fx = Fx::new();
    fx.file("empty.txt", "");
    let t = fx.text("empty.txt", None, None);
    assert_eq!(
        (t.content.as_str(), t.total_lines.unwrap(), t.end_line),
        ("", 0, 0)
    );
    assert_eq!(t.content_hash.clone().unwrap(), content_hash(b""));
    let t = fx.text("empty.txt", Some(1), Some(-1));
    assert_eq!((t.content.as_str(), t.end_line), ("", 0));
    let e = fx.err("empty.txt", Some(2), None);
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.full_message().contains("empty"), "{}", e.full_message());

    fx.file("partial.txt", "a\nb");
    let t = fx.text("partial.txt", Some(-1), None);
    assert_eq!(
        (t.content.as_str(), t.start_line, t.total_lines.unwrap()),
        ("b", 2, 2)
    );

    fx.file("blank.txt", "\n\n");
    let t = fx.text("blank.txt", Some(2), Some(2));
    assert_eq!((t.content.as_str(), t.total_lines.unwrap()), ("\n", 2));
}

#[test]
fn crlf_and_bom_files() {
    let fx = Fx::new();
    fx.file("crlf.txt", "a\r\nb\r\nc\r\n");
    let t = fx.text("crlf.txt", Some(2), Some(2));
    assert_eq!(t.content, "b\r\n");
    assert_eq!(t.range_hash, Some(content_hash(b"b\r\n")));
    assert_eq!(t.total_lines.unwrap(), 3);

    let raw = b"\xEF\xBB\xBFfirst\r\nsecond\r\n";
    fx.file("bom.txt", raw);
    let t = fx.text("bom.txt", None, None);
    assert_eq!(
        t.content, "first\r\nsecond\r\n",
        "BOM stripped, terminators kept"
    );
    assert_eq!(
        t.content_hash.clone().unwrap(),
        content_hash(raw),
        "the whole file's raw bytes, BOM included"
    );
    assert_eq!(t.size, raw.len() as u64);
    let t = fx.text("bom.txt", Some(1), Some(1));
    assert_eq!(t.content, "first\r\n");
    assert_eq!(t.range_hash, Some(content_hash(b"first\r\n")));
}

/// The edit pipeline checks a line edit's `content_hash` against the hash of
/// `text[li.start(s)..li.end(e)]`; every range a read reports must give exactly that.
#[test]
fn range_hash_equals_the_line_index_hash_of_the_decoded_text() {
    let fx = Fx::new();
    let files: &[(&str, &[u8])] = &[
        ("lf.txt", b"one\ntwo\nthree\n"),
        ("crlf.txt", b"one\r\ntwo\r\nthree\r\n"),
        ("mixed.txt", b"one\r\ntwo\nthree"),
        ("bom.txt", b"\xEF\xBB\xBFone\ntwo\n\nfour"),
        (
            "utf8.txt",
            "h\u{e9}llo\n\u{65e5}\u{672c}\n\u{1f600}\n".as_bytes(),
        ),
        ("blank.txt", b"\n\n\n"),
    ];
    for (name, bytes) in files {
        fx.file(name, bytes);
        let doc = TextDoc::decode(bytes, name).unwrap();
        let li = LineIndex::new(&doc.text);
        let n = li.len() as i64;
        for s in 1..=n {
            for e in s..=n {
                let want = &doc.text.as_bytes()[li.start(s as usize)..li.end(e as usize)];
                for (qs, qe) in [(s, e), (s - n - 1, e - n - 1)] {
                    let t = fx.text(name, Some(qs), Some(qe));
                    assert_eq!(t.content.as_bytes(), want, "{name} {qs}..{qe}");
                    assert_eq!(
                        t.range_hash.as_deref(),
                        Some(content_hash(want).as_str()),
                        "{name} {qs}..{qe}"
                    );
                    assert_eq!(
                        t.content_hash.clone().unwrap(),
                        content_hash(bytes),
                        "{name}"
                    );
                    assert_eq!(t.total_lines.unwrap(), li.len());
                }
            }
        }
    }
}

#[test]
fn many_files_in_order_with_one_missing() {
    let fx = Fx::new();
    fx.file("src/main.rs", "fn main() {}\n")
        .file("src/lib.rs", "pub fn f() {}\n")
        .file("README.md", "# hi\n");
    let paths: Vec<String> = [
        "src/main.rs",
        "src/mian.rs",
        "README.md",
        "/etc/passwd",
        "src/lib.rs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = read_files(&fx.ws, &paths, &ReadOptions::default());
    assert_eq!(out.len(), 5);
    for (r, p) in out.iter().zip(&paths) {
        assert_eq!(
            &r.path, p,
            "results in the order given, with the path as given"
        );
    }
    assert_eq!(out[0].text().unwrap().content, "fn main() {}\n");
    assert_eq!(out[2].text().unwrap().content, "# hi\n");
    assert_eq!(out[4].text().unwrap().content, "pub fn f() {}\n");

    let missing = out[1].error().unwrap();
    assert_eq!(missing.code, ErrorCode::NotFound);
    let hint = missing.hint.as_deref().unwrap();
    assert!(
        hint.contains("src/main.rs"),
        "suggests the similar path: {hint}"
    );
    assert_eq!(
        out[1].resolved_path.as_deref(),
        Some(fx.root.join("src/mian.rs").to_str().unwrap())
    );

    assert_eq!(out[3].error().unwrap().code, ErrorCode::OutOfRoot);
    assert_eq!(out[3].resolved_path, None);
}

#[test]
fn suggestions_for_missing_files() {
    let fx = Fx::new();
    for name in [
        "config.yaml",
        "config.yml",
        "Cargo.toml",
        "app.ts",
        "app.test.ts",
        "zeta.rs",
    ] {
        fx.file(name, "x\n");
    }
    let hint = |p: &str| {
        fx.read(p, &ReadOptions::default())
            .error()
            .unwrap()
            .hint
            .clone()
            .unwrap()
    };
    let h = hint("config.json");
    assert!(h.contains("config.yaml") && h.contains("config.yml"), "{h}");
    assert!(hint("cargo.toml").contains("Cargo.toml"));
    assert!(hint("app.js").contains("app.ts"));
    assert!(!hint("app.js").contains("zeta.rs"));
    let h = hint("nothing_like_it.xyz");
    assert!(h.contains("list"), "{h}");
    // Never more than five.
    for i in 0..10 {
        fx.file(&format!("note{i}.txt"), "x\n");
    }
    let h = hint("note.txt");
    assert_eq!(h.matches("note").count(), 5, "{h}");
}

#[test]
fn directory_is_an_error_that_says_to_list_it() {
    let fx = Fx::new();
    fx.file("src/main.rs", "");
    for p in ["src", ".", "src/"] {
        let r = fx.read(p, &ReadOptions::default());
        let e = r.error().unwrap();
        assert_eq!(e.code, ErrorCode::IsDirectory, "{p}");
        assert!(e.full_message().contains("list"), "{}", e.full_message());
    }
}

#[test]
fn binary_files_are_described_not_shown() {
    let fx = Fx::new();
    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0".to_vec();
    elf.resize(300, 0);
    fx.file("prog", &elf);
    let r = fx.read("prog", &ReadOptions::default());
    let ReadContent::Binary(b) = r.result.unwrap() else {
        panic!("binary expected")
    };
    assert_eq!(b.size, 300);
    assert_eq!(b.content_hash.clone().unwrap(), content_hash(&elf));
    assert_eq!(
        b.description,
        "binary file (ELF executable), 300 bytes; not shown"
    );
    assert!(b.mime.is_some());

    fx.file("blob.bin", b"\x01\x02\0\0\x03random");
    let r = fx.read(
        "blob.bin",
        &ReadOptions {
            images: true,
            ..Default::default()
        },
    );
    let ReadContent::Binary(b) = r.result.unwrap() else {
        panic!("binary expected")
    };
    assert!(
        b.description
            .starts_with("binary file (binary data), 11 bytes"),
        "{}",
        b.description
    );

    // Text files that merely start with an image's ASCII signature are text.
    for text in [
        "BMW and Mercedes\n",
        "GIF89a is a format\n",
        "RIFFraffWEBP\n",
    ] {
        fx.file("sig.txt", text);
        assert_eq!(fx.text("sig.txt", None, None).content, text);
    }
}

/// A valid 1x1 RGBA PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

#[test]
fn images_come_back_as_images_when_asked() {
    let fx = Fx::new();
    fx.file("dot.png", PNG);
    let r = fx.read(
        "dot.png",
        &ReadOptions {
            images: true,
            ..Default::default()
        },
    );
    let ReadContent::Image(img) = r.result.unwrap() else {
        panic!("image expected")
    };
    assert_eq!(img.mime, "image/png");
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&img.data)
            .unwrap(),
        PNG
    );
    assert_eq!(img.size, PNG.len() as u64);
    assert_eq!(img.content_hash, content_hash(PNG));
    assert!(img.last_modified.ends_with('Z'));

    let r = fx.read("dot.png", &ReadOptions::default());
    let ReadContent::Binary(b) = r.result.unwrap() else {
        panic!("described image expected")
    };
    assert_eq!(b.mime.as_deref(), Some("image/png"));
    assert!(
        b.description.contains("PNG") && b.description.contains("1x1"),
        "{}",
        b.description
    );
    assert!(
        b.description.contains("images"),
        "says how to get it: {}",
        b.description
    );

    // Detected by content, not by name.
    fx.file("picture.dat", PNG);
    let r = fx.read(
        "picture.dat",
        &ReadOptions {
            images: true,
            ..Default::default()
        },
    );
    assert!(matches!(r.result, Ok(ReadContent::Image(_))));
    for (name, bytes, mime) in [
        ("a.gif", &b"GIF89a\x01\0\x01\0\x80\0\0\0\0\0\xff\xff\xff!\xf9\x04\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;"[..], "image/gif"),
        ("a.jpg", &b"\xFF\xD8\xFF\xE0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xFF\xD9"[..], "image/jpeg"),
        ("a.webp", &b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0\x2f\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0"[..], "image/webp"),
    ] {
        fx.file(name, bytes);
        let r = fx.read(name, &ReadOptions { images: true, ..Default::default() });
        let ReadContent::Image(img) = r.result.unwrap() else { panic!("{name}: image expected") };
        assert_eq!(img.mime, mime);
    }
}

#[test]
fn text_that_is_not_utf8_is_read_in_its_encoding() {
    let fx = Fx::new();
    fx.file("latin1.txt", b"caf\xe9\nok\n");
    let t = fx.text("latin1.txt", None, None);
    assert_eq!(
        (t.content.as_str(), t.encoding),
        ("caf\u{e9}\nok\n", Some("windows-1252"))
    );
    assert_eq!(
        t.content_hash.as_deref(),
        Some(content_hash(b"caf\xe9\nok\n").as_str())
    );

    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("hi\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    fx.file("utf16.txt", &utf16);
    let t = fx.text("utf16.txt", None, None);
    assert_eq!((t.content.as_str(), t.encoding), ("hi\n", Some("UTF-16LE")));
    // Cut in the middle of a character: not UTF-16, refused with where.
    fx.file("cut16.txt", &utf16[..utf16.len() - 1]);
    let e = fx
        .read("cut16.txt", &ReadOptions::default())
        .result
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Encoding);
    assert!(e.message.contains("UTF-16LE") && e.hint.is_some(), "{e}");
    // UTF-32 is refused with what to do.
    fx.file("utf32.txt", b"\xff\xfe\0\0h\0\0\0");
    let e = fx
        .read("utf32.txt", &ReadOptions::default())
        .result
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Encoding);
    assert!(e.message.contains("UTF-32"), "{e}");
}

#[test]
fn results_serialize_with_success_kind_and_error() {
    let fx = Fx::new();
    fx.file("a.txt", "x\ny\n");
    let ok = serde_json::to_value(fx.read("a.txt", &range(Some(2), None))).unwrap();
    assert_eq!(ok["path"], "a.txt");
    assert_eq!(ok["resolved_path"], fx.root.join("a.txt").to_str().unwrap());
    assert_eq!(ok["success"], true);
    assert_eq!(ok["kind"], "text");
    assert_eq!(ok["content"], "y\n");
    assert_eq!(ok["start_line"], 2);
    assert_eq!(ok["total_lines"], 2);
    assert_eq!(ok["content_hash"], content_hash(b"x\ny\n"));
    assert_eq!(ok["range_hash"], content_hash(b"y\n"));
    assert!(ok.get("error").is_none());

    let err = serde_json::to_value(fx.read("../nope", &ReadOptions::default())).unwrap();
    assert_eq!(err["success"], false);
    assert_eq!(err["error"]["code"], "OUT_OF_ROOT");
    assert!(err["error"]["message"].is_string());
    assert!(err.get("resolved_path").is_none() && err.get("kind").is_none());

    let whole = serde_json::to_value(fx.read("a.txt", &ReadOptions::default())).unwrap();
    assert!(whole.get("range_hash").is_none());

    fx.file("dot.png", PNG);
    let img = serde_json::to_value(fx.read(
        "dot.png",
        &ReadOptions {
            images: true,
            ..Default::default()
        },
    ))
    .unwrap();
    assert_eq!(
        (img["kind"].as_str(), img["mime"].as_str()),
        (Some("image"), Some("image/png"))
    );
}

/// Writes `n` lines made by `line(i)` (1-based) and returns the file's bytes.
fn write_big(path: &Path, prefix: &[u8], n: usize, line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut bytes = prefix.to_vec();
    for i in 1..=n {
        bytes.extend_from_slice(line(i).as_bytes());
    }
    let mut f = fs::File::create(path).unwrap();
    f.write_all(&bytes).unwrap();
    bytes
}

#[test]
fn big_files_are_streamed_a_range_costing_what_the_range_costs_with_no_version() {
    let fx = Fx::new();
    let n = 100_000;
    // 40 bytes a line: about 4 MB, far over the bound of whole-file operations and more
    // than one read returns.
    let line = |i: usize| format!("line {i:09} of the big file, padded.\n");
    let bytes = write_big(&fx.root.join("big.txt"), b"", n, line);
    assert!(bytes.len() as u64 > 50 * BOUND && bytes.len() as u64 > MAX_READ_BYTES);
    let unversioned = |t: &TextRead| {
        let l = t
            .unversioned
            .expect("a file over the bound says it has no version");
        assert_eq!(
            (l.kind, l.found, l.max, l.unit),
            (Limit::FileSize, bytes.len() as u64, BOUND, "bytes")
        );
        assert_eq!(t.content_hash, None, "no whole-file hash");
    };

    let t = fx.text("big.txt", Some(50_000), Some(50_002));
    assert_eq!(
        t.content,
        format!("{}{}{}", line(50_000), line(50_001), line(50_002))
    );
    // The read stopped after its last line: how many lines follow is not known.
    assert_eq!(
        (t.start_line, t.end_line, t.total_lines),
        (50_000, 50_002, None)
    );
    unversioned(&t);
    assert_eq!(t.range_hash, Some(content_hash(t.content.as_bytes())));
    assert_eq!(t.size, bytes.len() as u64);
    // The same lines by the line index of the whole text, as the edit pipeline sees them.
    let text = std::str::from_utf8(&bytes).unwrap();
    let li = LineIndex::new(text);
    assert_eq!(
        t.content.as_bytes(),
        &bytes[li.start(50_000)..li.end(50_002)]
    );

    // A range that reaches the end counts the lines on its way.
    let t = fx.text("big.txt", Some(99_999), Some(2_000_000));
    assert_eq!(t.content, format!("{}{}", line(n - 1), line(n)));
    assert_eq!(
        (t.start_line, t.end_line, t.total_lines),
        (n - 1, n, Some(n))
    );
    unversioned(&t);

    // Lines counted from the end are found from the end, and numbered from it: the lines
    // before them are not counted.
    let t = fx.text("big.txt", Some(-2), None);
    assert_eq!(t.content, format!("{}{}", line(n - 1), line(n)));
    assert!(t.from_end);
    assert_eq!(
        (t.first_number(), t.last_number(), t.total_lines),
        (-2, -1, None)
    );
    assert_eq!(t.range_hash, Some(content_hash(t.content.as_bytes())));
    unversioned(&t);
    let t = fx.text("big.txt", Some(-5), Some(-4));
    assert_eq!(t.content, format!("{}{}", line(n - 4), line(n - 3)));
    assert_eq!((t.first_number(), t.last_number()), (-5, -4));
    // Both ends counted the same way, or the range would need the whole file.
    let e = fx.err("big.txt", Some(1), Some(-1));
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert_eq!(e.details["limit"]["kind"], "file_size");
    assert!(e.full_message().contains("both from the end"), "{e}");

    let r = fx.read(
        "big.txt",
        &ReadOptions {
            max_lines: Some(3),
            ..Default::default()
        },
    );
    let t = r.text().unwrap();
    assert!(t.truncated);
    assert_eq!(
        (t.start_line, t.end_line, t.content.as_str()),
        (1, 3, format!("{}{}{}", line(1), line(2), line(3)).as_str())
    );
    assert_eq!(t.range_hash, Some(content_hash(t.content.as_bytes())));
    unversioned(t);

    // The whole file asked for: what a reply may hold (whole lines), and truncated, with
    // the line to read on from.
    let t = fx.text("big.txt", None, None);
    assert!(t.truncated);
    assert!(t.content.len() as u64 <= MAX_READ_BYTES);
    assert!(t.content.len() as u64 > MAX_READ_BYTES - 100);
    assert_eq!(t.content, lines_of(&bytes, 1, t.end_line));
    assert_eq!(t.next_line, Some(t.end_line as i64 + 1));
    unversioned(&t);

    // A since_hash does not apply: the lines come back, and the reply says why.
    let r = fx.read(
        "big.txt",
        &ReadOptions {
            start_line: Some(1),
            end_line: Some(1),
            since_hash: Some("0123456789abcdef".into()),
            ..Default::default()
        },
    );
    let t = r.text().unwrap();
    assert_eq!(
        (t.content.as_str(), t.since_unknown),
        (line(1).as_str(), true)
    );
    unversioned(t);

    let e = fx.err("big.txt", Some(100_001), None);
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(
        e.full_message().contains("100000 lines"),
        "{}",
        e.full_message()
    );
}

/// Lines `from..=to` of `bytes`.
fn lines_of(bytes: &[u8], from: usize, to: usize) -> String {
    let text = std::str::from_utf8(bytes).unwrap();
    let li = LineIndex::new(text);
    text[li.start(from)..li.end(to)].to_string()
}

#[test]
fn big_files_with_bom_crlf_multibyte_text_and_no_final_newline() {
    let fx = Fx::new();
    let n = 90_000;
    // Multi-byte characters land on every chunk boundary sooner or later.
    let line = |i: usize| {
        if i == n {
            format!("last \u{1f600} {i}")
        } else {
            format!("\u{e9}t\u{e9} \u{65e5}\u{672c} {i:07}\r\n")
        }
    };
    let bytes = write_big(&fx.root.join("big.txt"), b"\xEF\xBB\xBF", n, line);
    // Past the first window of a pass (1 MiB) both ways.
    assert!(bytes.len() as u64 > 1 << 20);
    let doc = TextDoc::decode(&bytes, "big.txt").unwrap();
    let li = LineIndex::new(&doc.text);
    assert_eq!(li.len(), n);
    for (s, e) in [(1, 2), (1, 1), (12_345, 12_348), (n - 1, n), (n, n)] {
        let t = fx.text("big.txt", Some(s as i64), Some(e as i64));
        let want = &doc.text.as_bytes()[li.start(s)..li.end(e)];
        assert_eq!(t.content.as_bytes(), want, "{s}..{e}");
        assert_eq!(t.range_hash, Some(content_hash(want)), "{s}..{e}");
        // The last line has no line break: only a read that met the end knows the count.
        let total = (e == n).then_some(n);
        assert_eq!((t.start_line, t.end_line, t.total_lines), (s, e, total));
        assert_eq!(t.content_hash, None);
    }
    let t = fx.text("big.txt", None, Some(1));
    assert!(t.content.starts_with('\u{e9}'), "BOM stripped");
    // From the end: the last line has no line break, and is line -1 all the same.
    for (s, e) in [(1, 1), (2, 1), (4, 3), (60_000, 59_990), (n, n), (n, n - 1)] {
        let t = fx.text("big.txt", Some(-(s as i64)), Some(-(e as i64)));
        let (first, last) = (n + 1 - s, n + 1 - e);
        let want = &doc.text.as_bytes()[li.start(first)..li.end(last)];
        assert_eq!(t.content.as_bytes(), want, "-{s}..-{e}");
        assert_eq!(t.range_hash, Some(content_hash(want)), "-{s}..-{e}");
        if s < n {
            assert!(t.from_end);
            assert_eq!(
                (t.first_number(), t.last_number()),
                (-(s as i64), -(e as i64))
            );
        } else {
            // The top was reached: every line was counted, and numbered from the start.
            assert!(!t.from_end);
            assert_eq!(
                (t.start_line, t.end_line, t.total_lines),
                (first, last, Some(n))
            );
        }
    }
    // More lines than the file has from the end: from its top, as `tail -n` reads.
    let t = fx.text("big.txt", Some(-(n as i64) - 100), None);
    assert_eq!(t.content, doc.text);
    assert_eq!((t.start_line, t.end_line, t.total_lines), (1, n, Some(n)));
    assert_eq!(t.next_line, None);
}

#[test]
fn big_files_that_are_not_utf8_or_binary() {
    let fx = Fx::new();
    let line = |i: usize| format!("plain line number {i:08}\n");
    let mut bytes = write_big(&fx.root.join("bad.txt"), b"", 70_000, line);
    // An invalid byte deep in the file, after the first chunks.
    let at = bytes.len() - 1000;
    bytes[at] = 0xFF;
    fs::write(fx.root.join("bad.txt"), &bytes).unwrap();
    let shown = fx.root.join("bad.txt").to_str().unwrap().to_string();
    // A read is checked as far as it reads: the first line is text...
    assert_eq!(fx.text("bad.txt", Some(1), Some(1)).content, line(1));
    // ... and a read that passes the bad byte says where it is, as for a small file.
    let e = fx.err("bad.txt", Some(69_990), None);
    assert_eq!(e.code, ErrorCode::Encoding);
    // Streamed, the file is UTF-8 or not text: its words are those of a small file read as
    // UTF-8 (held whole, a small one would be decoded as windows-1252).
    let small = TextDoc::decode_as(&bytes, Some(encoding_rs::UTF_8), &shown).unwrap_err();
    assert_eq!(
        e.message, small.message,
        "same words as a small file's error"
    );

    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0".to_vec();
    elf.resize(BOUND as usize + 12_345, 7);
    fs::write(fx.root.join("huge.so"), &elf).unwrap();
    let r = fx.read("huge.so", &ReadOptions::default());
    let ReadContent::Binary(b) = r.result.unwrap() else {
        panic!("binary expected")
    };
    assert_eq!(b.size, elf.len() as u64);
    assert_eq!(b.content_hash, None, "not read whole to be hashed");
    assert_eq!(b.unversioned.map(|l| l.found), Some(elf.len() as u64));
    assert!(b.description.contains("ELF"), "{}", b.description);
}
