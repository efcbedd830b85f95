//! Imports: organizing them (sections, order, merging) and removing the unused ones.

use super::*;

use super::scopes::*;

/// isort's sections, in their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    Future,
    Stdlib,
    ThirdParty,
    FirstParty,
    Local,
}

include!("stdlib.rs");

/// Whether a top-level module name is in Python's standard library.
pub fn is_stdlib(top: &str) -> bool {
    STDLIB.binary_search(&top).is_ok()
}

/// One name of an import statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Item {
    pub(super) name: String,
    pub(super) alias: Option<String>,
}

impl Item {
    pub(super) fn bound(&self, straight: bool) -> String {
        match &self.alias {
            Some(a) => a.clone(),
            None if straight => self.name.split('.').next().unwrap_or("").to_string(),
            None => self.name.clone(),
        }
    }

    pub(super) fn render(&self) -> String {
        match &self.alias {
            Some(a) => format!("{} as {a}", self.name),
            None => self.name.clone(),
        }
    }
}

/// One import statement as parsed.
#[derive(Debug, Clone)]
pub(super) struct Stmt {
    /// `None` for `import a, b`; the module of `from m import ...`.
    pub(super) from: Option<String>,
    pub(super) items: Vec<Item>,
    pub(super) star: bool,
    /// The statement's bytes (without its trailing comment).
    pub(super) range: std::ops::Range<usize>,
    /// With a trailing same-line comment.
    pub(super) end: usize,
    /// Comments of the statement (inside its parentheses and after it on its line).
    pub(super) comments: Vec<String>,
    /// Kept whatever its use (`# noqa`, in a try block).
    pub(super) keep: bool,
    pub(super) scope_node: usize,
}

/// Options of the import clean-ups.
pub struct ImportOptions<'a> {
    /// The file is a package's `__init__.py`: its imports of the package's own modules
    /// re-export them.
    pub is_init: bool,
    /// The section of a module name as written (`os.path`, `requests`, `.models`).
    pub section: &'a dyn Fn(&str) -> Section,
}

pub(super) fn in_try(n: Node) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        match x.kind() {
            "try_statement" => return true,
            "function_definition" | "class_definition" | "module" => return false,
            _ => p = x.parent(),
        }
    }
    false
}

pub(super) fn is_import(kind: &str) -> bool {
    matches!(
        kind,
        "import_statement" | "import_from_statement" | "future_import_statement"
    )
}

pub(super) fn parse_stmt(text: &str, n: Node) -> Stmt {
    let from = match n.kind() {
        "future_import_statement" => Some("__future__".to_string()),
        "import_from_statement" => n
            .child_by_field_name("module_name")
            .map(|m| squash(&text[m.byte_range()])),
        _ => None,
    };
    let mut c = n.walk();
    let items: Vec<Item> = n
        .children_by_field_name("name", &mut c)
        .map(|x| {
            if x.kind() == "aliased_import" {
                Item {
                    name: x
                        .child_by_field_name("name")
                        .map(|m| squash(&text[m.byte_range()]))
                        .unwrap_or_default(),
                    alias: x
                        .child_by_field_name("alias")
                        .map(|a| text[a.byte_range()].to_string()),
                }
            } else {
                Item {
                    name: squash(&text[x.byte_range()]),
                    alias: None,
                }
            }
        })
        .collect();
    let mut c = n.walk();
    let star = n
        .named_children(&mut c)
        .any(|x| x.kind() == "wildcard_import");
    let mut comments = Vec::new();
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "comment" {
            comments.push((x.start_byte(), text[x.byte_range()].to_string()));
        }
        let mut c = x.walk();
        stack.extend(x.children(&mut c));
    }
    // A comment after the statement on its line.
    let mut end = n.end_byte();
    if let Some(next) = n.next_sibling()
        && next.kind() == "comment"
        && !text[n.end_byte()..next.start_byte()].contains('\n')
    {
        comments.push((next.start_byte(), text[next.byte_range()].to_string()));
        end = next.end_byte();
    }
    comments.sort();
    let comments: Vec<String> = comments.into_iter().map(|c| c.1).collect();
    let keep = comments.iter().any(|c| c.contains("noqa")) || in_try(n);
    Stmt {
        from,
        items,
        star,
        range: n.byte_range(),
        end,
        comments,
        keep,
        scope_node: n.parent().map_or(0, |p| p.id()),
    }
}

/// Every import statement, with the names it binds and whether they are used.
pub(super) struct ImportScan {
    pub(super) stmts: Vec<Stmt>,
    /// Per statement, per item: used?
    pub(super) used: Vec<Vec<bool>>,
}

pub(super) fn scan(text: &str, tree: &Tree, opts: &ImportOptions) -> ImportScan {
    let a = Analysis::new(text, tree);
    let mut stmts = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut nodes = Vec::new();
    while let Some(n) = stack.pop() {
        if is_import(n.kind()) {
            nodes.push(n);
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    nodes.sort_by_key(|n| n.start_byte());
    let mut used = Vec::new();
    // The same import twice in one block of statements: the second is a duplicate.
    let mut seen: HashSet<(usize, Option<String>, Item)> = HashSet::new();
    for n in nodes {
        let st = parse_stmt(text, n);
        let straight = st.from.is_none();
        let mut u = Vec::new();
        for item in &st.items {
            let bound = item.bound(straight);
            // The scope the statement binds in: that of its binding occurrence.
            let bind_scope = a
                .occs
                .iter()
                .find(|o| o.binding && o.name == bound && st.range.contains(&o.start))
                .map(|o| o.scope);
            let is_used = st.keep
                || st.from.as_deref() == Some("__future__")
                || item.alias.as_deref() == Some(item.name.as_str())
                || (opts.is_init
                    && st.from.as_deref().is_some_and(|m| {
                        matches!((opts.section)(m), Section::Local | Section::FirstParty)
                    }))
                || bind_scope.is_none_or(|s| {
                    a.occs.iter().any(|o| {
                        o.name == bound
                            && !st.range.contains(&o.start)
                            && (!o.binding || o.kind == OccKind::All)
                            && if o.kind == OccKind::All {
                                s == 0
                            } else {
                                a.resolve(o.scope, &bound) == Some(s)
                            }
                    })
                });
            let first = seen.insert((st.scope_node, st.from.clone(), item.clone()));
            u.push(is_used && (first || st.keep));
        }
        used.push(u);
        stmts.push(st);
    }
    ImportScan { stmts, used }
}

pub(super) const LINE_LENGTH: usize = 88;

/// A `from` statement's text, wrapped like isort's black profile when too long.
pub(super) fn render_from(
    indent: &str,
    module: &str,
    names: &[String],
    comments: &[String],
) -> String {
    let comment = if comments.is_empty() {
        String::new()
    } else {
        format!("  {}", comments.join(" "))
    };
    let one = format!("{indent}from {module} import {}{comment}", names.join(", "));
    if one.len() <= LINE_LENGTH || names.len() == 1 {
        return one;
    }
    let mut s = format!("{indent}from {module} import ({comment}\n");
    for n in names {
        s.push_str(&format!("{indent}    {n},\n"));
    }
    s.push_str(&format!("{indent})"));
    s
}

pub(super) fn render_stmt(indent: &str, st: &Stmt, items: &[Item]) -> String {
    match &st.from {
        None => {
            let comment = if st.comments.is_empty() {
                String::new()
            } else {
                format!("  {}", st.comments.join(" "))
            };
            let names: Vec<String> = items.iter().map(Item::render).collect();
            format!("{indent}import {}{comment}", names.join(", "))
        }
        Some(m) => {
            let names: Vec<String> = items.iter().map(Item::render).collect();
            render_from(indent, m, &names, &st.comments)
        }
    }
}

pub(super) fn indent_of(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..at]
}

/// Whole-line removal of `range` (with its line end when it is alone on its lines).
pub(super) fn remove_lines(text: &str, range: std::ops::Range<usize>) -> Splice {
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let alone_before = text[line_start..range.start].trim().is_empty();
    let after = &text[range.end..];
    let eol = after.find('\n');
    let alone_after = after[..eol.unwrap_or(after.len())].trim().is_empty();
    if alone_before && alone_after {
        let end = eol.map_or(text.len(), |e| range.end + e + 1);
        Splice::new(line_start, end, String::new())
    } else {
        Splice::new(range.start, range.end, String::new())
    }
}

/// For statements removed whole: the splices, emptied blocks given a `pass` or, for an
/// `if TYPE_CHECKING:` with nothing else, removed.
pub(super) fn removals(text: &str, tree: &Tree, removed: &[std::ops::Range<usize>]) -> Vec<Splice> {
    let mut out = Vec::new();
    let mut handled: HashSet<usize> = HashSet::new();
    for r in removed {
        if handled.contains(&r.start) {
            continue;
        }
        let node = tree
            .root_node()
            .descendant_for_byte_range(r.start, r.end)
            .map(|n| {
                let mut n = n;
                while !is_import(n.kind()) {
                    match n.parent() {
                        Some(p) => n = p,
                        None => break,
                    }
                }
                n
            });
        let block = node
            .and_then(|n| n.parent())
            .filter(|p| p.kind() == "block");
        if let Some(block) = block {
            let mut c = block.walk();
            let stmts: Vec<Node> = block
                .named_children(&mut c)
                .filter(|x| x.kind() != "comment")
                .collect();
            let all_gone = stmts
                .iter()
                .all(|s| removed.iter().any(|r| r.start == s.start_byte()));
            if all_gone {
                for s in &stmts {
                    handled.insert(s.start_byte());
                }
                let owner = block.parent();
                let type_checking_if = owner.filter(|o| {
                    o.kind() == "if_statement"
                        && o.child_by_field_name("alternative").is_none()
                        && o.child_by_field_name("condition")
                            .is_some_and(|c| text[c.byte_range()].ends_with("TYPE_CHECKING"))
                });
                if let Some(o) = type_checking_if {
                    out.push(remove_lines(text, o.byte_range()));
                } else {
                    let first = stmts[0];
                    let last = stmts[stmts.len() - 1];
                    out.push(Splice::new(
                        first.start_byte(),
                        last.end_byte(),
                        "pass".to_string(),
                    ));
                }
                continue;
            }
        }
        out.push(remove_lines(text, r.clone()));
    }
    out
}

/// Removes the imports whose names the file does not use. Kept: `__future__` imports,
/// `import x as x` re-exports, names listed in `__all__`, imports marked `# noqa`, imports in
/// `try` blocks (availability probes), and in an `__init__.py` its imports of the package's
/// own modules (re-exports). An `if TYPE_CHECKING:` block left empty goes too.
pub fn remove_unused_imports(text: &str, opts: &ImportOptions) -> Result<Vec<Splice>, FkError> {
    let tree = parse(text)?;
    let s = scan(text, &tree, opts);
    let mut out = Vec::new();
    let mut removed = Vec::new();
    for (st, used) in s.stmts.iter().zip(&s.used) {
        if st.star || used.iter().all(|u| *u) {
            continue;
        }
        if used.iter().all(|u| !*u) {
            removed.push(st.range.start..st.end);
            continue;
        }
        let items: Vec<Item> = st
            .items
            .iter()
            .zip(used)
            .filter(|(_, u)| **u)
            .map(|(i, _)| i.clone())
            .collect();
        let indent = indent_of(text, st.range.start);
        let rendered = render_stmt(indent, st, &items);
        out.push(Splice::new(
            st.range.start,
            st.end,
            &rendered[indent.len()..],
        ));
    }
    out.extend(removals(text, &tree, &removed));
    out.sort_by_key(|s| s.start);
    Ok(tidy_deletions(text, out))
}

/// Merges adjacent deletions, and lets a deletion of whole lines that starts the file or
/// follows a blank line take the blank lines after it (no blank lines left at the top, no
/// runs of blank lines where an import block was).
pub(super) fn tidy_deletions(text: &str, splices: Vec<Splice>) -> Vec<Splice> {
    let mut merged: Vec<Splice> = Vec::new();
    for s in splices {
        match merged.last_mut() {
            Some(l) if l.text.is_empty() && s.text.is_empty() && l.end == s.start => l.end = s.end,
            _ => merged.push(s),
        }
    }
    for s in merged.iter_mut() {
        let whole_lines =
            (s.start == 0 || text[..s.start].ends_with('\n')) && text[..s.end].ends_with('\n');
        if !s.text.is_empty() || !whole_lines {
            continue;
        }
        if s.start == 0 || text[..s.start].ends_with("\n\n") {
            let rest = &text[s.end..];
            let blank: usize = rest
                .split_inclusive('\n')
                .take_while(|l| l.trim().is_empty() && l.ends_with('\n'))
                .map(str::len)
                .sum();
            s.end += blank;
        }
    }
    merged
}

pub(super) fn type_rank(name: &str) -> u8 {
    if name.len() > 1 && name.chars().any(char::is_alphabetic) && name.to_uppercase() == name {
        0
    } else if name.chars().next().is_some_and(char::is_uppercase) {
        1
    } else {
        2
    }
}

/// isort's key of a module name: relative dots come first as `.`, then `_`.
pub(super) fn module_key(m: &str) -> String {
    let dots = m.len() - m.trim_start_matches('.').len();
    let key = if dots > 0 {
        format!("{}_{}", &m[..dots], &m[dots..])
    } else {
        m.to_string()
    };
    key.to_lowercase()
}

pub(super) fn name_key(i: &Item) -> (u8, String, String) {
    (
        type_rank(&i.name),
        i.name.to_lowercase(),
        i.alias.clone().unwrap_or_default(),
    )
}

/// Sorts and merges the imports of each block of consecutive import statements (at module
/// level and in `if TYPE_CHECKING:` blocks) the way isort does with its black profile:
/// `__future__`, standard library, third party, first party (modules of the workspace),
/// local (relative) sections, a blank line between; `import x` before `from x import y` in
/// a section; modules and names sorted (constants, classes, then the rest); duplicates
/// merged; `as` imports on lines of their own; lines over 88 columns wrapped in
/// parentheses. Unused imports are dropped as `remove_unused_imports` does. Comments above an
/// import move with it; same-line comments stay on its line.
// Over 200 lines: per block of consecutive imports, the steps in order (sections, merged modules,
// sorted names, comments carried, lines rendered and wrapped), each on the block's statements that
// the one before grouped.
pub fn organize_imports(text: &str, opts: &ImportOptions) -> Result<Vec<Splice>, FkError> {
    let tree = parse(text)?;
    let s = scan(text, &tree, opts);
    // Blocks: consecutive statements with the same parent and only blank lines and comments
    // between.
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for (i, st) in s.stmts.iter().enumerate() {
        if st.keep && in_try_at(&tree, st.range.start) {
            continue;
        }
        match blocks.last_mut() {
            Some(b)
                if s.stmts[*b.last().expect("non-empty")].scope_node == st.scope_node
                    && between_is_blank_or_comments(
                        text,
                        s.stmts[*b.last().expect("non-empty")].end,
                        st.range.start,
                    ) =>
            {
                b.push(i)
            }
            _ => blocks.push(vec![i]),
        }
    }
    let mut out = Vec::new();
    for block in blocks {
        let first = &s.stmts[block[0]];
        let last = &s.stmts[*block.last().expect("non-empty")];
        let indent = indent_of(text, first.range.start).to_string();
        // Section -> straight items (with comments), from-modules -> items.
        type Straight = BTreeMap<(String, Item), (Vec<String>, Vec<String>)>;
        let mut straight: BTreeMap<Section, Straight> = BTreeMap::new();
        type From = BTreeMap<(String, String), (String, Vec<(Item, Vec<String>, Vec<String>)>)>;
        let mut froms: BTreeMap<Section, From> = BTreeMap::new();
        let mut stars: Vec<(Section, String, Vec<String>, Vec<String>)> = Vec::new();
        let mut orphans: Vec<String> = Vec::new();
        let mut prev_end = first.range.start;
        for &i in &block {
            let st = &s.stmts[i];
            // Comments between the previous statement and this one belong to this one.
            let gap = &text[prev_end..st.range.start];
            let mut lead: Vec<String> = gap
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with('#'))
                .map(str::to_string)
                .collect();
            // A comment block that had a blank line above it keeps it (isort does).
            if !lead.is_empty() && gap[..gap.find('#').unwrap_or(0)].matches('\n').count() > 1 {
                lead.insert(0, String::new());
            }
            prev_end = st.end;
            let module = st.from.clone();
            let section = match &module {
                Some(m) if m == "__future__" => Section::Future,
                Some(m) if m.starts_with('.') => Section::Local,
                Some(m) => (opts.section)(m),
                None => Section::Stdlib, // per item below
            };
            let mut lead_used = false;
            let mut take_lead = || {
                if lead_used {
                    vec![]
                } else {
                    lead_used = true;
                    lead.clone()
                }
            };
            if st.star {
                let m = module.clone().unwrap_or_default();
                stars.push((section, m, take_lead(), st.comments.clone()));
                continue;
            }
            for (item, used) in st.items.iter().zip(&s.used[i]) {
                if !*used {
                    continue;
                }
                match &module {
                    None => {
                        let sec = (opts.section)(&item.name);
                        let e = straight
                            .entry(sec)
                            .or_default()
                            .entry((module_key(&item.name), item.clone()))
                            .or_default();
                        e.0.extend(take_lead());
                        e.1.extend(st.comments.iter().cloned());
                    }
                    Some(m) => {
                        let e = froms
                            .entry(section)
                            .or_default()
                            .entry((module_key(m), m.clone()))
                            .or_insert_with(|| (m.clone(), vec![]));
                        e.1.push((item.clone(), take_lead(), st.comments.clone()));
                    }
                }
            }
            if !lead_used {
                // Every name of it dropped: its comments stay, at the end of the block.
                orphans.extend(lead);
            }
        }
        let mut sections: Vec<String> = Vec::new();
        let all_sections = [
            Section::Future,
            Section::Stdlib,
            Section::ThirdParty,
            Section::FirstParty,
            Section::Local,
        ];
        for sec in all_sections {
            let mut lines: Vec<String> = Vec::new();
            for ((_, item), (lead, comments)) in straight.remove(&sec).unwrap_or_default() {
                let mut dedup = comments.clone();
                dedup.dedup();
                for l in &lead {
                    lines.push(if l.is_empty() {
                        l.clone()
                    } else {
                        format!("{indent}{l}")
                    });
                }
                let c = if dedup.is_empty() {
                    String::new()
                } else {
                    format!("  {}", dedup.join(" "))
                };
                lines.push(format!("{indent}import {}{c}", item.render()));
            }
            let mut from_entries: Vec<(String, Vec<String>)> = Vec::new();
            for (_, (m, mut items)) in froms.remove(&sec).unwrap_or_default() {
                items.sort_by_key(|a| name_key(&a.0));
                // Runs of names without `as` form one statement; each `as` import its own.
                let mut run: Vec<String> = Vec::new();
                let mut run_lead: Vec<String> = Vec::new();
                let mut run_comments: Vec<String> = Vec::new();
                let mut seen: HashSet<Item> = HashSet::new();
                let flush = |run: &mut Vec<String>,
                             lead: &mut Vec<String>,
                             comments: &mut Vec<String>,
                             out: &mut Vec<(String, Vec<String>)>| {
                    if run.is_empty() {
                        return;
                    }
                    comments.dedup();
                    out.push((
                        render_from(&indent, &m, run, comments),
                        std::mem::take(lead),
                    ));
                    run.clear();
                    comments.clear();
                };
                for (item, lead, comments) in items {
                    if !seen.insert(item.clone()) {
                        run_lead.extend(lead);
                        continue;
                    }
                    if item.alias.is_some() {
                        flush(
                            &mut run,
                            &mut run_lead,
                            &mut run_comments,
                            &mut from_entries,
                        );
                        let mut l = run_lead.clone();
                        run_lead.clear();
                        l.extend(lead);
                        from_entries
                            .push((render_from(&indent, &m, &[item.render()], &comments), l));
                    } else {
                        run.push(item.render());
                        run_lead.extend(lead);
                        for c in comments {
                            if !run_comments.contains(&c) {
                                run_comments.push(c);
                            }
                        }
                    }
                }
                flush(
                    &mut run,
                    &mut run_lead,
                    &mut run_comments,
                    &mut from_entries,
                );
            }
            for (ssec, m, lead, comments) in &stars {
                if *ssec == sec {
                    let names = vec!["*".to_string()];
                    from_entries.push((render_from(&indent, m, &names, comments), lead.clone()));
                }
            }
            for (line, lead) in from_entries {
                for l in lead {
                    lines.push(if l.is_empty() {
                        l
                    } else {
                        format!("{indent}{l}")
                    });
                }
                lines.push(line);
            }
            if lines.is_empty() {
                continue;
            }
            while lines.first().is_some_and(|l| l.is_empty()) {
                lines.remove(0);
            }
            sections.push(lines.join("\n"));
        }
        if !orphans.is_empty() {
            let c: Vec<String> = orphans.iter().map(|c| format!("{indent}{c}")).collect();
            sections.push(c.join("\n"));
        }
        let new = sections.join("\n\n");
        let new = new
            .strip_prefix(indent.as_str())
            .unwrap_or(&new)
            .to_string();
        let (start, end) = (first.range.start, last.end);
        if text[start..end] != new {
            if new.is_empty() {
                let removed: Vec<std::ops::Range<usize>> = block
                    .iter()
                    .map(|&i| s.stmts[i].range.start..s.stmts[i].end)
                    .collect();
                out.extend(removals(text, &tree, &removed));
            } else {
                out.push(Splice::new(start, end, new));
            }
        }
    }
    out.sort_by_key(|s| s.start);
    Ok(out)
}

pub(super) fn in_try_at(tree: &Tree, at: usize) -> bool {
    tree.root_node()
        .descendant_for_byte_range(at, at)
        .is_some_and(in_try)
}

pub(super) fn between_is_blank_or_comments(text: &str, a: usize, b: usize) -> bool {
    a <= b
        && text[a..b]
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}
