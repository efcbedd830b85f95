//! Golden cases of the `mcp-filesystem` table: one row per call an agent trained on the
//! official MCP filesystem server makes, with the reply text it gets, and beside each the
//! source it was taken from. Every row runs through `filekit call --tools mcp-filesystem`,
//! over MCP stdio and over MCP streamable HTTP (see `golden/mod.rs`); over MCP the text the
//! model reads is checked, which is the server's own wording. Where filekit deliberately
//! differs (an ambiguous edit refused, a near miss shown, unknown arguments refused, a binary
//! file not read as text), the row says so. `tests/mcp/test_mcp_filesystem_peer.py` sends the
//! same calls to the real server and to filekit and compares the replies.
//!
//! Sources, named by the constants below: `@modelcontextprotocol/server-filesystem`
//! 2026.8.31 from npm (`dist/index.js`: the tool handlers and their reply texts; `dist/lib.js`:
//! `validatePath`, `applyFileEdits`, `headFile`, `tailFile`, `formatSize`, `moveFile`).

use crate::common::*;
use crate::golden::*;
use serde_json::json;

const READ: &str = "server-filesystem 2026.8.31 index.js, readTextFileHandler: the file's content as the text; head N: the first N lines joined by \\n (headFile)";
const BOTH: &str = "server-filesystem index.js, readTextFileHandler: \"Cannot specify both head and tail parameters simultaneously\"";
const ENOENT: &str = "server-filesystem: a missing file reaches fs.readFile, whose error is Node's \"ENOENT: no such file or directory, open '<absolute path>'\", the tool's text with isError";
const DENIED: &str = "server-filesystem lib.js, validatePath: \"Access denied - path outside allowed directories: <absolute> not in <allowed, comma-separated>\"";
const MULTI: &str = "server-filesystem index.js, read_multiple_files: \"<path>:\\n<content>\\n\" per file, \"<path>: Error - <message>\" for a failed one, joined by \"\\n---\\n\", isError false";
const LATIN1: &str = "server-filesystem lib.js, readFileContent: fs.readFile(path, 'utf-8'): a byte that is not UTF-8 becomes U+FFFD; filekit shows the text decoded in its own encoding on purpose (the text edit_file matches: no oldText can name a U+FFFD), the server's layout kept";
const UNICODE: &str = "server-filesystem lib.js, resolveUnicodeEquivalentPath: a missing component is looked up among its folder's entries by its NFC form";
const MEDIA: &str = "server-filesystem index.js, read_media_file: MIME by extension (png jpg jpeg gif webp bmp svg mp3 wav ogg flac, else application/octet-stream); image/* an image block, audio/* an audio block, else an embedded resource {uri: pathToFileURL, mimeType, blob}";
const WINDOWS: &str = "server-filesystem lib.js, validatePath: \"Access denied - Windows-style path received on a POSIX host: <path>\" for a drive path on a POSIX host";
const EDIT_EMPTY: &str = "server-filesystem lib.js, applyFileEdits: content.includes('') is true and String.replace('', new) puts new at the start";
const MINIMATCH: &str = "server-filesystem: search_files (lib.js searchFilesWithValidation) matches minimatch(relativePath, pattern, {dot: true}) and does not enter what it excludes; directory_tree (index.js buildTree) the same for a pattern with `*`, and for one without also `**/p` and `**/p/**`";
const IGNORED: &str = "server-filesystem: zod strips keys a schema does not name; filekit takes `encoding` when it names UTF-8 (the server reads and writes UTF-8 whatever it says) and `replaceAll` in an edit (an edit whose text occurs once does the same; one whose text occurs more often is refused), and refuses an encoding it would not use";

/// A WAV file: a RIFF header and four samples.
const WAV: &[u8] = b"RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x08\x00\x00\x00\x00\x00\x01\x00\x02\x00\x03\x00";
const WRITE: &str = "server-filesystem index.js, write_file: \"Successfully wrote to <path as given>\"; lib.js writeFileContent: an existing file is replaced";
const EDIT: &str = "server-filesystem lib.js, applyFileEdits: edits in order; exact text first, else lines compared trimmed with the first line's indentation kept; the reply is jsdiff's createTwoFilesPatch(path, path, old, new, 'original', 'modified') in a ```diff fence, followed by a blank line; dryRun writes nothing";
const EDIT_MISS: &str = "server-filesystem lib.js, applyFileEdits: \"Could not find exact match for edit:\\n<oldText>\"; filekit adds the closest text (deliberate: the agent sees what to fix)";
const AMBIGUOUS: &str = "filekit, deliberately: the server replaces the first of several matches (String.replace); filekit refuses and names the lines, so the agent picks the place";
const MKDIR: &str = "server-filesystem index.js, create_directory: fs.mkdir recursive, \"Successfully created directory <path as given>\", also when it exists";
const LIST: &str = "server-filesystem index.js, list_directory: \"[DIR] name\" / \"[FILE] name\" lines (filekit sorts them by name; the server gives readdir's order)";
const SIZES: &str = "server-filesystem index.js, list_directory_with_sizes: `${tag} ${name.padEnd(30)} ${dir ? '' : formatSize(size).padStart(10)}`, then \"\", \"Total: F files, D directories\", \"Combined size: S\"; sortBy size: largest first";
const TREE: &str = "server-filesystem index.js, directory_tree: JSON.stringify(tree, null, 2) of {name, type, children (directories only)}; excludePatterns leave out a name at any depth";
const MOVE: &str = "server-filesystem index.js, move_file: \"Successfully moved <source> to <destination>\"; lib.js moveFile: \"Destination already exists: <absolute destination>\"";
const SEARCH: &str = "server-filesystem lib.js, searchFilesWithValidation: minimatch of each path relative to `path` (dot: true), full paths one per line, \"No matches found\" when none";
const INFO: &str = "server-filesystem lib.js, getFileStats: size, created, modified, accessed, isDirectory, isFile, permissions (last 3 octal digits), one \"key: value\" per line";
const ALLOWED: &str = "server-filesystem index.js, list_allowed_directories: \"Allowed directories:\\n\" and the directories, one per line";
const STRICT: &str = "filekit, deliberately stricter than the server (whose zod schemas strip unknown keys): an unknown argument is refused with the closest valid name and nothing is done";
const BINARY: &str = "filekit, deliberately: the server decodes any file as UTF-8 (garbled text for a binary); filekit says what the file is and points to read_media_file";

/// The server's diff of a one-line change on line 2 of a three-line file.
const ONE_LINE_DIFF: &str = "```diff\nIndex: $ROOT/a.py\n===================================================================\n--- $ROOT/a.py\toriginal\n+++ $ROOT/a.py\tmodified\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n \n```\n\n";

/// A log of 100,000 lines (about 2.3 MB): more than one read returns.
fn big_log() -> String {
    (0..100_000)
        .map(|i| format!("line {i} of the log\n"))
        .collect()
}

fn cases() -> Vec<Case> {
    let py = "def f():\n    return 1\n\n";
    vec![
        // ---- read_text_file, read_file
        case("read_text_file_returns_the_content", READ, "read_text_file",
            json!({"path": "$ROOT/a.txt"}))
            .file("a.txt", TEN_LINES).reads(&["line 1\nline 2\n", "line 10\n"]),
        case("read_text_file_takes_a_path_relative_to_the_allowed_directory", READ, "read_text_file",
            json!({"path": "a.txt"}))
            .file("a.txt", "alpha\n").reads(&["alpha\n"]),
        case("read_text_file_head", READ, "read_text_file",
            json!({"path": "$ROOT/a.txt", "head": 2}))
            .file("a.txt", TEN_LINES).reads(&["line 1\nline 2"]).hides(&["line 3"]),
        case("read_text_file_tail_counts_lines", "filekit, deliberately: the server's tailFile keeps the empty string after the final newline as a line (tail 2 of a file ending in a newline gives one line); filekit gives the last N lines", "read_text_file",
            json!({"path": "$ROOT/a.txt", "tail": 2}))
            .file("a.txt", TEN_LINES).reads(&["line 9\nline 10\n"]).hides(&["line 8"]),
        case("read_text_file_tail_longer_than_the_file", READ, "read_text_file",
            json!({"path": "$ROOT/a.txt", "tail": 50}))
            .file("a.txt", "one\ntwo\n").reads(&["one\ntwo\n"]),
        case("read_text_file_tail_of_a_file_over_2_mib", READ, "read_text_file",
            json!({"path": "$ROOT/big.log", "tail": 2}))
            .file("big.log", big_log())
            .reads(&["line 99998 of the log\nline 99999 of the log\n"]).unread(&["line 99997 of"]),
        case("read_text_file_of_a_file_over_2_mib_says_where_it_was_cut", "filekit, deliberately: the server sends a file of any size whole; filekit sends what it reads at once (2 MiB) and says where it cut", "read_text_file",
            json!({"path": "$ROOT/big.log"}))
            .file("big.log", big_log())
            .reads(&["line 0 of the log\n", "[filekit: cut after line "])
            .hides(&["line 99999 of the log"]),
        case("read_text_file_head_of_a_file_over_2_mib", READ, "read_text_file",
            json!({"path": "$ROOT/big.log", "head": 2}))
            .file("big.log", big_log())
            .reads(&["line 0 of the log\nline 1 of the log"]).unread(&["line 2 of", "cut after"]),
        case("read_text_file_head_and_tail_is_refused", BOTH, "read_text_file",
            json!({"path": "$ROOT/a.txt", "head": 1, "tail": 1}))
            .file("a.txt", TEN_LINES).rejected()
            .shows(&["Cannot specify both head and tail parameters simultaneously"]),
        case("read_text_file_missing_file", ENOENT, "read_text_file",
            json!({"path": "$ROOT/nope.txt"}))
            .fails().shows(&["ENOENT: no such file or directory, open '$ROOT/nope.txt'"]),
        case("read_text_file_outside_the_allowed_directories", DENIED, "read_text_file",
            json!({"path": "/etc/hostname"}))
            .fails().shows(&["Access denied - path outside allowed directories: /etc/hostname not in $ROOT"]),
        case("read_text_file_dot_dot_out_of_the_root", DENIED, "read_text_file",
            json!({"path": "$ROOT/../outside.txt"}))
            .fails().shows(&["Access denied - path outside allowed directories:"]),
        case("read_text_file_refuses_a_binary_file", BINARY, "read_text_file",
            json!({"path": "$ROOT/data.bin"}))
            .file("data.bin", "\u{0}\u{1}\u{2}binary\u{0}").fails()
            .shows(&["cannot be read as text"]),
        case("read_text_file_refuses_an_unknown_argument", STRICT, "read_text_file",
            json!({"path": "$ROOT/a.txt", "lines": 3}))
            .file("a.txt", TEN_LINES).rejected()
            .shows(&["read_text_file: unknown argument `lines`"]),
        case("read_file_deprecated_reads_like_read_text_file", READ, "read_file",
            json!({"path": "$ROOT/a.txt", "head": 1}))
            .file("a.txt", TEN_LINES).reads(&["line 1"]).hides(&["line 2"]),
        // ---- read_multiple_files
        case("read_multiple_files_joins_files_and_errors", MULTI, "read_multiple_files",
            json!({"paths": ["$ROOT/a.txt", "$ROOT/gone.txt"]}))
            .file("a.txt", "alpha\n")
            .shows(&["$ROOT/a.txt:\nalpha\n\n\n---\n$ROOT/gone.txt: Error - ENOENT: no such file or directory, open '$ROOT/gone.txt'"]),
        case("read_multiple_files_reads_every_file", MULTI, "read_multiple_files",
            json!({"paths": ["a.txt", "$ROOT/b.txt"]}))
            .file("a.txt", "alpha\n").file("b.txt", "beta\n")
            .reads(&["a.txt:\nalpha\n\n\n---\n$ROOT/b.txt:\nbeta\n\n"]),
        case("read_multiple_files_needs_a_path", MULTI, "read_multiple_files",
            json!({"paths": []}))
            .rejected().shows(&["at least one file path"]),
        // ---- read_media_file
        case("read_media_file_missing_file", ENOENT, "read_media_file",
            json!({"path": "$ROOT/nope.png"}))
            .fails().shows(&["ENOENT: no such file or directory, open '$ROOT/nope.png'"]),
        // ---- write_file
        case("write_file_creates_a_file", WRITE, "write_file",
            json!({"path": "$ROOT/new.txt", "content": "hello\n"}))
            .reads(&["Successfully wrote to $ROOT/new.txt"]).then("new.txt", Some("hello\n")),
        case("write_file_replaces_a_file", WRITE, "write_file",
            json!({"path": "new.txt", "content": "two\n"}))
            .file("new.txt", "one\n")
            .reads(&["Successfully wrote to new.txt"]).then("new.txt", Some("two\n")),
        case("write_file_into_a_missing_directory_fails", "server-filesystem lib.js, writeFileContent: fs.writeFile into a directory that does not exist fails with Node's \"ENOENT: no such file or directory, open '<path>'\"", "write_file",
            json!({"path": "$ROOT/no/such/dir/x.txt", "content": "x"}))
            .fails().shows(&["ENOENT: no such file or directory, open '$ROOT/no/such/dir/x.txt'"])
            .then("no", None),
        case("write_file_outside_is_refused", DENIED, "write_file",
            json!({"path": "/tmp/../etc/filekit-should-not-exist", "content": "x"}))
            .fails().shows(&["Access denied - path outside allowed directories: /etc/filekit-should-not-exist"]),
        case("write_file_inside_git_is_refused", "filekit, deliberately: nothing is written inside .git/ (git's own data) unless filekit is started with --allow-git-writes; the server writes there", "write_file",
            json!({"path": "$ROOT/.git/config", "content": "[x]\n"}))
            .file(".git/config", "[core]\n").fails()
            .shows(&["is inside .git/", "--allow-git-writes"])
            .hides(&["Access denied"])
            .then(".git/config", Some("[core]\n")),
        case("write_file_onto_a_directory_fails", "server-filesystem lib.js, writeFileContent: a directory at the path fails with Node's EISDIR (filekit names the directory; the server's text names its temporary file)", "write_file",
            json!({"path": "$ROOT/src", "content": "x"}))
            .file("src/x.txt", "x").fails()
            .shows(&["EISDIR: illegal operation on a directory, open '$ROOT/src'"])
            .then("src/x.txt", Some("x")),
        // ---- edit_file
        case("edit_file_exact_edit_and_its_diff", EDIT, "edit_file",
            json!({"path": "$ROOT/a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]}))
            .file("a.py", py).reads(&[ONE_LINE_DIFF])
            .then("a.py", Some("def f():\n    return 2\n\n")),
        case("edit_file_dry_run_writes_nothing", EDIT, "edit_file",
            json!({"path": "$ROOT/a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}], "dryRun": true}))
            .file("a.py", py).reads(&[ONE_LINE_DIFF]).then("a.py", Some(py)),
        case("edit_file_edits_apply_in_order", EDIT, "edit_file",
            json!({"path": "$ROOT/a.txt", "edits": [
                {"oldText": "line 2", "newText": "LINE TWO"},
                {"oldText": "LINE TWO\nline 3", "newText": "two and three"}]}))
            .file("a.txt", TEN_LINES)
            .reads(&["-line 2\n-line 3\n+two and three\n"])
            .then("a.txt", Some(&TEN_LINES.replace("line 2\nline 3\n", "two and three\n"))),
        case("edit_file_tolerates_indentation_and_keeps_the_files", EDIT, "edit_file",
            json!({"path": "$ROOT/m.py", "edits": [{"oldText": "if x:\n    go(x)\n    stop()", "newText": "if x:\n    go(x, fast=True)\n    stop()"}]}))
            .file("m.py", "def m(x):\n        if x:\n            go(x)\n            stop()\n")
            .reads(&["+            go(x, fast=True)\n"])
            .then("m.py", Some("def m(x):\n        if x:\n            go(x, fast=True)\n            stop()\n")),
        case("edit_file_not_found_shows_the_near_miss", EDIT_MISS, "edit_file",
            json!({"path": "$ROOT/a.py", "edits": [{"oldText": "return 100", "newText": "return 2"}]}))
            .file("a.py", py).fails()
            .shows(&["Could not find exact match for edit:\nreturn 100", "The closest text is at line 2"])
            .then("a.py", Some(py)),
        case("edit_file_refuses_an_ambiguous_match", AMBIGUOUS, "edit_file",
            json!({"path": "$ROOT/d.txt", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}))
            .file("d.txt", "x = 1\ny\nx = 1\n").fails()
            .shows(&["occurs 2 times in the file (at lines 1, 3)"])
            .then("d.txt", Some("x = 1\ny\nx = 1\n")),
        case("edit_file_writes_nothing_when_a_later_edit_fails", EDIT_MISS, "edit_file",
            json!({"path": "$ROOT/a.py", "edits": [{"oldText": "def f", "newText": "def g"}, {"oldText": "nowhere at all", "newText": "x"}]}))
            .file("a.py", py).fails().shows(&["Could not find exact match for edit:\nnowhere at all"])
            .then("a.py", Some(py)),
        case("edit_file_keeps_crlf_line_endings", "filekit, deliberately: the server normalizes the file to LF when it edits it; filekit keeps the file's CRLF line endings (the diff is shown with LF, as the server shows it)", "edit_file",
            json!({"path": "$ROOT/w.txt", "edits": [{"oldText": "one\ntwo", "newText": "1\n2"}]}))
            .file("w.txt", "one\r\ntwo\r\nthree\r\n")
            .reads(&["-one\n-two\n+1\n+2\n three\n"])
            .then("w.txt", Some("1\r\n2\r\nthree\r\n")),
        case("edit_file_refuses_an_edit_without_old_text", STRICT, "edit_file",
            json!({"path": "$ROOT/a.py", "edits": [{"old_text": "return 1", "newText": "return 2"}]}))
            .file("a.py", py).rejected().shows(&["unknown argument `edits[0].old_text`", "oldText"])
            .then("a.py", Some(py)),
        case("edit_file_missing_file", ENOENT, "edit_file",
            json!({"path": "$ROOT/none.py", "edits": [{"oldText": "a", "newText": "b"}]}))
            .fails().shows(&["ENOENT: no such file or directory, open '$ROOT/none.py'"]),
        // ---- create_directory
        case("create_directory_makes_nested_directories", MKDIR, "create_directory",
            json!({"path": "$ROOT/a/b/c"}))
            .reads(&["Successfully created directory $ROOT/a/b/c"]),
        case("create_directory_that_exists_succeeds", MKDIR, "create_directory",
            json!({"path": "src"}))
            .file("src/x.txt", "x").reads(&["Successfully created directory src"])
            .then("src/x.txt", Some("x")),
        case("create_directory_over_a_file_fails", "server-filesystem index.js, create_directory: fs.mkdir over a file fails with Node's \"EEXIST: file already exists, mkdir '<path>'\"", "create_directory",
            json!({"path": "$ROOT/f.txt"}))
            .file("f.txt", "x").fails().shows(&["EEXIST: file already exists, mkdir '$ROOT/f.txt'"])
            .then("f.txt", Some("x")),
        case("create_directory_under_a_file_fails", "server-filesystem lib.js, validatePath: fs.realpath of a path through a file fails with Node's \"ENOTDIR: not a directory, realpath '<path>'\"", "create_directory",
            json!({"path": "$ROOT/f.txt/sub"}))
            .file("f.txt", "x").fails().shows(&["ENOTDIR: not a directory, realpath '$ROOT/f.txt/sub'"])
            .then("f.txt", Some("x")),
        // ---- list_directory, list_directory_with_sizes, directory_tree
        case("list_directory_tags_files_and_directories", LIST, "list_directory",
            json!({"path": "$ROOT"}))
            .file("b.txt", "b").file("a/x.txt", "x").file(".hidden", "h")
            .reads(&["[FILE] .hidden\n[DIR] a\n[FILE] b.txt"]),
        case("list_directory_of_a_file_fails", "server-filesystem index.js, list_directory: fs.readdir of a file fails with Node's \"ENOTDIR: not a directory, scandir '<path>'\"", "list_directory",
            json!({"path": "$ROOT/b.txt"}))
            .file("b.txt", "b").fails().shows(&["ENOTDIR: not a directory, scandir '$ROOT/b.txt'"]),
        case("list_directory_with_sizes_pads_and_totals", SIZES, "list_directory_with_sizes",
            json!({"path": "$ROOT"}))
            .file("big.txt", "x".repeat(2048)).file("small.txt", "abc").file("d/e.txt", "e")
            .reads(&["[FILE] big.txt                           2.00 KB\n[DIR] d                              \n[FILE] small.txt                             3 B\n\nTotal: 2 files, 1 directories\nCombined size: 2.00 KB"]),
        case("list_directory_with_sizes_by_size", SIZES, "list_directory_with_sizes",
            json!({"path": "$ROOT", "sortBy": "size"}))
            .file("small.txt", "abc").file("big.txt", "x".repeat(2048))
            .reads(&["[FILE] big.txt                           2.00 KB\n[FILE] small.txt                             3 B\n"]),
        case("list_directory_with_sizes_refuses_another_sort", SIZES, "list_directory_with_sizes",
            json!({"path": "$ROOT", "sortBy": "date"}))
            .rejected().shows(&["sortBy"]),
        case("directory_tree_nests_as_json", TREE, "directory_tree",
            json!({"path": "$ROOT"}))
            .file("src/lib.rs", "").file("README.md", "")
            .reads(&["[\n  {\n    \"name\": \"README.md\",\n    \"type\": \"file\"\n  },\n  {\n    \"name\": \"src\",\n    \"type\": \"directory\",\n    \"children\": [\n      {\n        \"name\": \"lib.rs\",\n        \"type\": \"file\"\n      }\n    ]\n  }\n]"]),
        case("directory_tree_excludes_patterns", TREE, "directory_tree",
            json!({"path": "$ROOT", "excludePatterns": ["node_modules", "*.log"]}))
            .file("node_modules/x/index.js", "").file("app.log", "").file("app.js", "")
            .reads(&["\"name\": \"app.js\""]).unread(&["node_modules", "app.log", "index.js"]),
        // ---- move_file
        case("move_file_renames", MOVE, "move_file",
            json!({"source": "$ROOT/a.txt", "destination": "$ROOT/b.txt"}))
            .file("a.txt", "alpha\n")
            .reads(&["Successfully moved $ROOT/a.txt to $ROOT/b.txt"])
            .then("a.txt", None).then("b.txt", Some("alpha\n")),
        case("move_file_onto_an_existing_file_fails", MOVE, "move_file",
            json!({"source": "a.txt", "destination": "b.txt"}))
            .file("a.txt", "alpha\n").file("b.txt", "beta\n").fails()
            .shows(&["Destination already exists: $ROOT/b.txt"])
            .then("a.txt", Some("alpha\n")).then("b.txt", Some("beta\n")),
        case("move_file_of_a_folder_onto_an_empty_folder_fails", MOVE, "move_file",
            json!({"source": "src", "destination": "dest"}))
            .file("src/a.txt", "alpha\n").file("dest/.keep", "").given("file:delete_file", json!({"path": "dest/.keep"})).fails()
            .shows(&["Destination already exists: $ROOT/dest"])
            .then("src/a.txt", Some("alpha\n")),
        case("move_file_missing_source", "server-filesystem index.js, move_file: fs.rename of a missing source fails with Node's ENOENT", "move_file",
            json!({"source": "$ROOT/gone.txt", "destination": "$ROOT/b.txt"}))
            .fails().shows(&["ENOENT: no such file or directory, rename '$ROOT/gone.txt' -> '$ROOT/b.txt'"]),
        case("move_file_out_of_the_root_names_the_destination", DENIED, "move_file",
            json!({"source": "a.txt", "destination": "/tmp/../filekit-golden-out.txt"}))
            .file("a.txt", "alpha\n").fails()
            .shows(&["Access denied - path outside allowed directories: /filekit-golden-out.txt not in $ROOT"])
            .then("a.txt", Some("alpha\n")),
        case("edit_file_without_edits_shows_an_empty_diff", EDIT, "edit_file",
            json!({"path": "$ROOT/a.txt", "edits": []}))
            .file("a.txt", "alpha\n")
            .reads(&["```diff\nIndex: $ROOT/a.txt\n===================================================================\n--- $ROOT/a.txt\toriginal\n+++ $ROOT/a.txt\tmodified\n```\n\n"])
            .then("a.txt", Some("alpha\n")),
        // ---- search_files
        case("search_files_matches_relative_paths", SEARCH, "search_files",
            json!({"path": "$ROOT", "pattern": "**/*.md"}))
            .file("README.md", "").file("docs/guide.md", "").file("src/main.rs", "")
            .reads(&["$ROOT/README.md\n$ROOT/docs/guide.md"]).unread(&["main.rs"]),
        case("search_files_star_stays_in_the_directory", SEARCH, "search_files",
            json!({"path": "$ROOT", "pattern": "*.md"}))
            .file("README.md", "").file("docs/guide.md", "")
            .reads(&["$ROOT/README.md"]).unread(&["guide.md"]),
        case("search_files_excludes_and_says_when_nothing_matches", SEARCH, "search_files",
            json!({"path": "$ROOT", "pattern": "**/*.js", "excludePatterns": ["node_modules"]}))
            .file("node_modules/x.js", "")
            .reads(&["No matches found"]),
        // ---- get_file_info, list_allowed_directories
        case("get_file_info_lists_the_metadata", INFO, "get_file_info",
            json!({"path": "$ROOT/a.txt"}))
            .file("a.txt", "12345")
            .reads(&["size: 5\ncreated: ", "\nmodified: ", "GMT+0000 (Coordinated Universal Time)", "\nisDirectory: false\nisFile: true\npermissions: "]),
        case("get_file_info_missing", "server-filesystem lib.js, getFileStats: fs.stat of a missing path fails with Node's \"ENOENT: no such file or directory, stat '<path>'\"", "get_file_info",
            json!({"path": "$ROOT/gone"}))
            .fails().shows(&["ENOENT: no such file or directory, stat '$ROOT/gone'"]),
        case("list_allowed_directories_names_the_roots", ALLOWED, "list_allowed_directories",
            json!({}))
            .reads(&["Allowed directories:\n$ROOT"]),
        // ---- drop-in fidelity: what the server does that an agent relies on
        case("read_text_file_shows_a_latin1_file_decoded", LATIN1, "read_text_file",
            json!({"path": "$ROOT/l1.txt"}))
            .bytes("l1.txt", b"caf\xe9 cr\xe8me\n".to_vec())
            .reads(&["caf\u{e9} cr\u{e8}me\n"]),
        case("read_text_file_tail_of_a_latin1_file", LATIN1, "read_text_file",
            json!({"path": "$ROOT/l1.txt", "tail": 1}))
            .bytes("l1.txt", b"one\ncaf\xe9\n".to_vec())
            .reads(&["caf\u{e9}\n"]).unread(&["one"]),
        case("read_multiple_files_shows_a_latin1_file", LATIN1, "read_multiple_files",
            json!({"paths": ["l1.txt"]}))
            .bytes("l1.txt", b"caf\xe9\n".to_vec())
            .reads(&["l1.txt:\ncaf\u{e9}\n\n"]),
        case("read_text_file_of_an_nfd_name_reads_the_nfc_file", UNICODE, "read_text_file",
            json!({"path": "$ROOT/cafe\u{301}.txt"}))
            .file("caf\u{e9}.txt", "composed\n").reads(&["composed\n"]),
        case("read_text_file_of_an_nfc_name_reads_the_nfd_file", UNICODE, "read_text_file",
            json!({"path": "caf\u{e9}.txt"}))
            .file("cafe\u{301}.txt", "decomposed\n").reads(&["decomposed\n"]),
        case("write_file_under_an_nfd_folder_name_writes_into_the_nfc_folder", UNICODE, "write_file",
            json!({"path": "$ROOT/re\u{301}sume\u{301}/new.txt", "content": "n\n"}))
            .file("r\u{e9}sum\u{e9}/a.txt", "a\n")
            .reads(&["Successfully wrote to "])
            .then("r\u{e9}sum\u{e9}/new.txt", Some("n\n")).then("r\u{e9}sum\u{e9}/a.txt", Some("a\n")),
        case("read_media_file_sends_a_sound_as_audio", MEDIA, "read_media_file",
            json!({"path": "$ROOT/sound.wav"}))
            .bytes("sound.wav", WAV.to_vec())
            .shows(&["audio/wav"]).reads(&["[audio block: audio/wav"]),
        case("read_media_file_sends_another_file_as_an_embedded_resource", MEDIA, "read_media_file",
            json!({"path": "$ROOT/a.txt"}))
            .file("a.txt", "alpha\n")
            .shows(&["application/octet-stream", "file://$ROOT/a.txt"])
            .reads(&["[resource block: application/octet-stream file://$ROOT/a.txt]"]),
        case("read_media_file_of_an_svg_sends_an_image", MEDIA, "read_media_file",
            json!({"path": "$ROOT/icon.svg"}))
            .file("icon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n")
            .reads(&["[image block: image/svg+xml"]),
        case("read_multiple_files_with_every_path_missing_fails", "filekit, deliberately: the server answers isError false even when no file was read; filekit's call fails then (the text is the server's)", "read_multiple_files",
            json!({"paths": ["$ROOT/gone.txt"]}))
            .fails().shows(&["$ROOT/gone.txt: Error - ENOENT: no such file or directory, open '$ROOT/gone.txt'"]),
        case("read_multiple_files_says_a_windows_path_in_its_place", WINDOWS, "read_multiple_files",
            json!({"paths": ["a.txt", "C:\\a.txt"]}))
            .file("a.txt", "alpha\n")
            .reads(&["a.txt:\nalpha\n\n\n---\nC:\\a.txt: Error - Access denied - Windows-style path received on a POSIX host: C:\\a.txt"]),
        case("write_file_to_a_windows_path_is_refused", WINDOWS, "write_file",
            json!({"path": "C:\\Users\\me\\x.txt", "content": "x"}))
            .rejected()
            .shows(&["Access denied - Windows-style path received on a POSIX host: C:\\Users\\me\\x.txt"])
            .then("C:\\Users\\me\\x.txt", None),
        case("read_text_file_of_a_windows_path_is_refused", WINDOWS, "read_text_file",
            json!({"path": "c:/notes.txt"}))
            .rejected().shows(&["Windows-style path received on a POSIX host: c:/notes.txt"]),
        case("edit_file_with_empty_old_text_inserts_at_the_start", EDIT_EMPTY, "edit_file",
            json!({"path": "$ROOT/a.txt", "edits": [{"oldText": "", "newText": "first\n"}]}))
            .file("a.txt", "second\n")
            .reads(&["+first\n second\n"]).then("a.txt", Some("first\nsecond\n")),
        case("edit_file_with_empty_old_text_fills_an_empty_file", EDIT_EMPTY, "edit_file",
            json!({"path": "$ROOT/e.txt", "edits": [{"oldText": "", "newText": "hello\n"}]}))
            .file("e.txt", "")
            .reads(&["+hello\n"]).then("e.txt", Some("hello\n")),
        case("directory_tree_star_pattern_leaves_out_the_top_level_only", MINIMATCH, "directory_tree",
            json!({"path": "$ROOT", "excludePatterns": ["*.ts"]}))
            .file("a.ts", "").file("src/b.ts", "").file("c.js", "")
            .reads(&["\"name\": \"b.ts\"", "\"name\": \"c.js\""]).unread(&["\"name\": \"a.ts\""]),
        case("directory_tree_name_pattern_leaves_out_every_depth", MINIMATCH, "directory_tree",
            json!({"path": "$ROOT", "excludePatterns": ["node_modules"]}))
            .file("node_modules/a.js", "").file("pkg/node_modules/b.js", "").file("pkg/c.js", "")
            .reads(&["\"name\": \"c.js\""]).unread(&["node_modules", "a.js", "b.js"]),
        case("search_files_exclude_matches_paths_as_minimatch", MINIMATCH, "search_files",
            json!({"path": "$ROOT", "pattern": "**/*.md", "excludePatterns": ["*.md"]}))
            .file("top.md", "").file("docs/x.md", "")
            .reads(&["$ROOT/docs/x.md"]).unread(&["$ROOT/top.md"]),
        case("search_files_exclude_of_a_name_is_the_top_level_one", MINIMATCH, "search_files",
            json!({"path": "$ROOT", "pattern": "**/*.js", "excludePatterns": ["node_modules"]}))
            .file("node_modules/a.js", "").file("pkg/node_modules/b.js", "")
            .reads(&["$ROOT/pkg/node_modules/b.js"]).unread(&["$ROOT/node_modules/a.js"]),
        case("read_text_file_takes_encoding_utf8", IGNORED, "read_text_file",
            json!({"path": "$ROOT/a.txt", "encoding": "utf-8"}))
            .file("a.txt", "alpha\n").reads(&["alpha\n"]),
        case("read_text_file_refuses_another_encoding", IGNORED, "read_text_file",
            json!({"path": "$ROOT/a.txt", "encoding": "latin1"}))
            .file("a.txt", "alpha\n").rejected().shows(&["`encoding` \"latin1\" is not taken", "its own encoding, detected"]),
        case("edit_file_takes_replace_all_in_an_edit", IGNORED, "edit_file",
            json!({"path": "$ROOT/a.txt", "edits": [{"oldText": "one", "newText": "1", "replaceAll": true}]}))
            .file("a.txt", "one\ntwo\n").then("a.txt", Some("1\ntwo\n")),
    ]
}

#[test]
fn golden_cases_through_filekit_call() {
    // Each reply also fits the output schema its type generates, listed and whole.
    through_filekit_call_against_schemas("mcp-filesystem", &cases());
}

#[test]
fn golden_cases_over_mcp_stdio() {
    over_mcp_stdio("mcp-filesystem", &cases());
}

#[test]
fn golden_cases_over_mcp_http() {
    over_mcp_http("mcp-filesystem", &cases());
}

#[test]
fn every_case_names_its_source_and_every_tool_has_rows() {
    well_formed(
        "mcp-filesystem",
        &cases(),
        &[
            "read_file",
            "read_text_file",
            "read_media_file",
            "read_multiple_files",
            "write_file",
            "edit_file",
            "create_directory",
            "list_directory",
            "list_directory_with_sizes",
            "directory_tree",
            "move_file",
            "search_files",
            "get_file_info",
            "list_allowed_directories",
        ],
        40,
    );
}
