//! The syntax trees of texts parsed before, kept so that a long-lived process (an MCP server)
//! reading the same file by symbol again does not parse it again: a 10,000-line TypeScript
//! file takes tens of milliseconds to parse, and a look-up a few hundredths of one.
//!
//! A tree is found by what it was parsed from, the language and the text's bytes, never by a
//! file's name, size or modification time: a file changed in any way (by filekit, or from
//! outside with its size and mtime put back) is another text and is parsed afresh. The text
//! is hashed (xxh3) to find the entry and compared byte for byte before its tree is served,
//! so not even a crafted hash collision can hand out the tree of another text.
//!
//! Only trees that passed [`crate::bounds`]'s checks are kept, so a tree served from here
//! needs none again. A served tree is a copy (tree-sitter counts references to its nodes,
//! and an edit of the copy copies what it changes), so a caller that edits it for an
//! incremental parse leaves the kept one as it was.
//!
//! Off until a process asks for it ([`keep_trees`]): a one-shot command parses a file once,
//! and one that parses thousands (a rename across a package) would only grow by what it kept.
//!
//! Beside a tree, the symbols found in it ([`crate::code::Code::symbols`]) once they have
//! been asked for: finding them walks the whole tree, most of what a symbol read costs once
//! the parse is saved. They are dropped with their tree.
//!
//! Bounded by an estimate of memory (tree-sitter does not report a tree's size): the text
//! kept for the comparison plus [`TREE_BYTES_PER_NODE`] for each node of its tree, at most
//! [`BUDGET_BYTES`] in all; the least recently used entries go first. A tree's nodes are
//! counted, not guessed from its text's length: a text of one-character tokens (`[1,1,1,...]`)
//! has a node per byte, ordinary code one per three bytes, and a workspace chooses which.

use crate::{Found, Lang};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use tree_sitter::Tree;

/// What a kept tree takes in resident memory per node (tree-sitter's count of a tree's
/// visible nodes), at most: measured as the resident memory a process grew by per tree kept,
/// 2 MB texts of each kind, release build. Ordinary code takes 107 (TypeScript classes), 109
/// (Rust functions) and 119 (Python classes); calls and operators packed without spaces 123;
/// arrays of one-digit numbers, TypeScript and Python, 205 and 207: the worst is charged.
pub const TREE_BYTES_PER_NODE: usize = 208;

/// What a server keeps: a server stays under 500 MB, and the other work of a call (a
/// reply of 4 MB built, 40 files read for a dry run) takes about 250 MB at its peak. 128 MiB
/// is 650,000 nodes: 2 MB of ordinary TypeScript, 600 KB of the densest text.
pub const BUDGET_BYTES: usize = 128 << 20;

struct Entry {
    lang: Lang,
    text: Box<str>,
    tree: Tree,
    /// The symbols of the tree, once found.
    symbols: Option<Arc<Vec<Found>>>,
    /// What it is charged against the budget.
    charge: usize,
    /// When it was last served or kept, in look-ups since the process began.
    used: u64,
}

/// What a list of symbols is charged: each entry and the strings it holds.
fn symbols_charge(symbols: &[Found]) -> usize {
    symbols
        .iter()
        .map(|f| {
            std::mem::size_of::<Found>()
                + f.kind.len()
                + f.path.len()
                + f.name.len()
                + f.signature.as_ref().map_or(0, String::len)
        })
        .sum()
}

/// What a text and its tree are charged: the text's bytes and the tree's nodes.
fn charge(text: &str, tree: &Tree) -> usize {
    let nodes = tree.root_node().descendant_count();
    text.len()
        .saturating_add(nodes.saturating_mul(TREE_BYTES_PER_NODE))
}

struct Cache {
    entries: HashMap<u64, Entry>,
    charged: usize,
    budget: usize,
    clock: u64,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::new(0)));

/// From now on, keeps the trees of this process's parses, at most `budget` bytes of them
/// (estimated: the texts, and [`TREE_BYTES_PER_NODE`] per node of their trees); 0 keeps
/// none.
pub fn keep_trees(budget: usize) {
    let mut cache = cache();
    cache.budget = budget;
    cache.evict();
}

/// Whether this process keeps trees ([`keep_trees`] with a budget).
pub(crate) fn keeping() -> bool {
    cache().budget > 0
}

fn key(lang: Lang, text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(text.as_bytes(), lang as u64)
}

fn cache() -> std::sync::MutexGuard<'static, Cache> {
    // The cache holds no invariant that a panic elsewhere could leave half-kept.
    CACHE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The kept tree of `text` in `lang`, if there is one.
pub(crate) fn get(lang: Lang, text: &str) -> Option<Tree> {
    let mut cache = cache();
    if cache.budget == 0 {
        return None;
    }
    cache.get(lang, text)
}

/// The symbols kept beside the tree of `text` in `lang`, if there are.
pub(crate) fn symbols(lang: Lang, text: &str) -> Option<Arc<Vec<Found>>> {
    let mut cache = cache();
    if cache.budget == 0 {
        return None;
    }
    cache.symbols(lang, text)
}

/// Keeps `symbols`, found in the tree of `text` in `lang`, beside that tree if it is kept.
pub(crate) fn keep_symbols(lang: Lang, text: &str, symbols: &Arc<Vec<Found>>) {
    let mut cache = cache();
    if cache.budget == 0 {
        return;
    }
    cache.keep_symbols(lang, text, symbols);
}

/// Keeps `tree`, the checked parse of `text` in `lang`.
pub(crate) fn keep(lang: Lang, text: &str, tree: &Tree) {
    let mut cache = cache();
    if cache.budget == 0 {
        return;
    }
    cache.keep(lang, text, tree);
}

impl Cache {
    fn new(budget: usize) -> Cache {
        Cache {
            entries: HashMap::new(),
            charged: 0,
            budget,
            clock: 0,
        }
    }

    fn get(&mut self, lang: Lang, text: &str) -> Option<Tree> {
        self.entry(lang, text).map(|e| e.tree.clone())
    }

    fn symbols(&mut self, lang: Lang, text: &str) -> Option<Arc<Vec<Found>>> {
        self.entry(lang, text).and_then(|e| e.symbols.clone())
    }

    /// The entry of `text` in `lang`, marked as used now.
    fn entry(&mut self, lang: Lang, text: &str) -> Option<&mut Entry> {
        if self.entries.is_empty() {
            return None;
        }
        self.clock += 1;
        let now = self.clock;
        let entry = self.entries.get_mut(&key(lang, text))?;
        if entry.lang != lang || *entry.text != *text {
            return None;
        }
        entry.used = now;
        Some(entry)
    }

    fn keep_symbols(&mut self, lang: Lang, text: &str, symbols: &Arc<Vec<Found>>) {
        let cost = symbols_charge(symbols);
        let budget = self.budget;
        let Some(entry) = self.entry(lang, text) else {
            return;
        };
        if entry.symbols.is_some() || entry.charge + cost > budget / 4 {
            return;
        }
        entry.symbols = Some(Arc::clone(symbols));
        entry.charge += cost;
        self.charged += cost;
        self.evict();
    }

    /// Keeps `tree`, evicting the least recently used trees past the budget. A tree too
    /// large for a quarter of the budget is not kept: it would push out many files to save
    /// one parse.
    fn keep(&mut self, lang: Lang, text: &str, tree: &Tree) {
        let cost = charge(text, tree);
        if cost > self.budget / 4 {
            return;
        }
        self.clock += 1;
        let entry = Entry {
            lang,
            text: text.into(),
            tree: tree.clone(),
            symbols: None,
            charge: cost,
            used: self.clock,
        };
        if let Some(old) = self.entries.insert(key(lang, text), entry) {
            self.charged -= old.charge;
        }
        self.charged += cost;
        self.evict();
    }

    fn evict(&mut self) {
        while self.charged > self.budget {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some(gone) = self.entries.remove(&oldest) {
                self.charged -= gone.charge;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lang: Lang, text: &str) -> Tree {
        keep_trees(BUDGET_BYTES);
        crate::bounds::parse(lang, text, None, false).unwrap()
    }

    /// A text no other test of this process parses.
    fn unique(n: usize) -> String {
        format!("export function only_in_the_cache_test_{n}(a: number) {{ return a * {n}; }}\n")
    }

    #[test]
    fn a_parsed_text_is_kept_and_a_changed_one_is_parsed_afresh() {
        let text = unique(1);
        let first = parse(Lang::TypeScript, &text);
        let kept = get(Lang::TypeScript, &text).expect("the parse kept its tree");
        assert_eq!(kept.root_node().to_sexp(), first.root_node().to_sexp());

        // Same length, one byte changed: not the kept tree, and its own tree sees the change.
        let changed = text.replace("a * 1", "a + 1");
        assert_eq!(changed.len(), text.len());
        assert!(get(Lang::TypeScript, &changed).is_none());
        let tree = parse(Lang::TypeScript, &changed);
        let plus = changed.find('+').unwrap();
        let node = tree
            .root_node()
            .descendant_for_byte_range(plus, plus + 1)
            .unwrap();
        assert_eq!(node.kind(), "+");

        // The same text in another language is another tree.
        assert!(get(Lang::JavaScript, &text).is_none());
    }

    #[test]
    fn the_symbols_of_a_kept_tree_are_kept_beside_it_and_charged() {
        let text = unique(3);
        parse(Lang::TypeScript, &text);
        assert!(
            symbols(Lang::TypeScript, &text).is_none(),
            "not asked for yet"
        );
        let code = crate::code::Code::parse(Lang::TypeScript, &text).unwrap();
        let found = code.find("only_in_the_cache_test_3").unwrap();
        let kept = symbols(Lang::TypeScript, &text).expect("kept once found");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].range, found.range);
        // Another text, even one of the same length, has none of them.
        let changed = text.replace("a * 3", "a + 3");
        assert!(symbols(Lang::TypeScript, &changed).is_none());
        let code = crate::code::Code::parse(Lang::TypeScript, &changed).unwrap();
        assert!(
            code.find("only_in_the_cache_test_3")
                .unwrap()
                .signature
                .is_some()
        );
        assert!(!Arc::ptr_eq(
            &kept,
            &symbols(Lang::TypeScript, &changed).unwrap()
        ));

        let tree = parse(Lang::TypeScript, &text);
        let mut cache = Cache::new(BUDGET_BYTES);
        cache.keep(Lang::TypeScript, &text, &tree);
        let before = cache.charged;
        cache.keep_symbols(Lang::TypeScript, &text, &kept);
        assert_eq!(cache.charged, before + symbols_charge(&kept));
        assert!(cache.symbols(Lang::TypeScript, &text).is_some());
        // Symbols for a text whose tree is not kept are not kept either.
        cache.keep_symbols(Lang::TypeScript, &changed, &kept);
        assert!(cache.symbols(Lang::TypeScript, &changed).is_none());
    }

    #[test]
    fn an_edited_copy_leaves_the_kept_tree_as_it_was() {
        let text = unique(2);
        let kept = parse(Lang::TypeScript, &text);
        let mut copy = get(Lang::TypeScript, &text).expect("kept");
        copy.edit(&tree_sitter::InputEdit {
            start_byte: 0,
            old_end_byte: 6,
            new_end_byte: 0,
            start_position: tree_sitter::Point { row: 0, column: 0 },
            old_end_position: tree_sitter::Point { row: 0, column: 6 },
            new_end_position: tree_sitter::Point { row: 0, column: 0 },
        });
        let served = get(Lang::TypeScript, &text).expect("still kept");
        assert_eq!(served.root_node().end_byte(), text.len());
        assert_eq!(served.root_node().to_sexp(), kept.root_node().to_sexp());
    }

    #[test]
    fn the_least_recently_used_go_first_and_a_text_past_a_quarter_is_not_kept() {
        let texts: Vec<String> = (0..5).map(|i| format!("let v{i} = {i};\n")).collect();
        let trees: Vec<Tree> = texts.iter().map(|t| parse(Lang::JavaScript, t)).collect();
        // Room for four of the five texts (all of one length).
        let mut cache = Cache::new(charge(&texts[0], &trees[0]) * 4);
        for i in 0..4 {
            cache.keep(Lang::JavaScript, &texts[i], &trees[i]);
        }
        // The first is used again, so the second is the least recently used.
        assert!(cache.get(Lang::JavaScript, &texts[0]).is_some());
        cache.keep(Lang::JavaScript, &texts[4], &trees[4]);
        assert!(cache.get(Lang::JavaScript, &texts[1]).is_none());
        for i in [0, 2, 3, 4] {
            assert!(cache.get(Lang::JavaScript, &texts[i]).is_some(), "text {i}");
        }
        assert!(cache.charged <= cache.budget);

        let large = "x".repeat(texts[0].len() + 1);
        cache.keep(Lang::JavaScript, &large, &trees[0]);
        assert!(cache.get(Lang::JavaScript, &large).is_none());
    }

    #[test]
    fn a_text_is_charged_for_its_nodes_not_its_length() {
        // Two texts of one length: one string, and an array of 5,000 numbers.
        let numbers = format!("let v = [{}];\n", vec!["1"; 5_000].join(","));
        let string = format!("let v = \"{}\";\n", "x".repeat(numbers.len() - 12));
        assert_eq!(numbers.len(), string.len());
        let (dense, plain) = (
            parse(Lang::JavaScript, &numbers),
            parse(Lang::JavaScript, &string),
        );
        assert!(charge(&numbers, &dense) >= 5_000 * TREE_BYTES_PER_NODE);
        assert!(charge(&string, &plain) < 2 * string.len());
        // Room for four of the arrays' trees is room for the strings' many times over.
        let budget = 4 * (charge(&numbers, &dense) + 300);
        for (text, lang, kept) in [
            (&numbers, Lang::JavaScript, 4),
            (&string, Lang::TypeScript, 6),
        ] {
            let mut cache = Cache::new(budget);
            for i in 0..6 {
                let text = format!("{text}// {i}\n");
                let tree = parse(lang, &text);
                cache.keep(lang, &text, &tree);
            }
            assert_eq!(cache.entries.len(), kept, "{lang:?}");
            assert!(cache.charged <= cache.budget);
        }
    }
}
