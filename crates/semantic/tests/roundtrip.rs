//! Reading every symbol of a real file's outline and writing it back with `replace` must
//! leave the file byte-identical: the re-indentation of written content may not disturb code
//! that was copied from the file. The files are this repository's own sources (Rust, and the
//! Python of the MCP test suite), so the test runs anywhere the repository is checked out.

use filekit_semantic::Lang;
use filekit_semantic::code::Code;
use filekit_semantic::ops::{self, BodyStyle, Operation};
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

fn roundtrip(lang: Lang, path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let code = Code::parse(lang, &text).unwrap();
    assert!(
        code.syntax_error().is_none(),
        "{} does not parse",
        path.display()
    );
    let symbols = code.symbols().unwrap();
    let style = if lang == Lang::Python {
        BodyStyle::Block
    } else {
        BodyStyle::Braced
    };
    for s in &symbols {
        let own = &text[s.range.clone()];
        let splice = ops::plan(&text, s, &Operation::Replace, own, style, &[], "    ").unwrap();
        let out = ops::Splices::new(&text, vec![splice])
            .unwrap()
            .apply(&text)
            .unwrap();
        assert!(
            out == text,
            "{}: writing back {} ({}) changed the file",
            path.display(),
            s.path,
            s.kind
        );
    }
    symbols.len()
}

#[test]
fn rust_sources_of_this_repository_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut n = 0;
    for dir in ["core/src", "dialects/src", "semantic/src"] {
        for f in files(&root.join(dir), "rs") {
            n += roundtrip(Lang::Rust, &f);
        }
    }
    assert!(n > 300, "only {n} symbols: the walk is missing definitions");
}

#[test]
fn python_sources_of_this_repository_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp");
    let mut n = 0;
    for f in files(&dir, "py") {
        n += roundtrip(Lang::Python, &f);
    }
    assert!(n > 30, "only {n} symbols");
}

#[test]
fn typescript_with_template_literals_and_nesting_round_trips() {
    let src = r#"import { a } from "./a";

export namespace Outer {
  export class Inner<T> extends Base implements I {
    @decorated()
    static readonly x: number = 1;
    private cache = new Map<string, T>();

    constructor(private readonly dep: Dep) {
      super();
    }

    get value(): T | undefined {
      return this.cache.get(`key
at column zero
`);
    }

    async *items(): AsyncGenerator<T> {
      for (const v of this.cache.values()) {
        yield v;
      }
    }
  }
}

export default function main(): void {
  const helper = (n: number) => {
    return n * 2;
  };
  helper(a);
}

export const api = {
  get(url: string) {
    return fetch(url);
  },
  nested: {
    deep: () => 1,
  },
};
"#;
    let dir = std::env::temp_dir().join(format!("filekit-semantic-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.ts");
    std::fs::write(&f, src).unwrap();
    let n = roundtrip(Lang::TypeScript, &f);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(n >= 12, "{n}");
}
