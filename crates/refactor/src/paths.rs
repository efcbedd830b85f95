//! Workspace-relative paths as `/`-separated strings (`src/lib/a.ts`), the way import
//! specifiers are written.

/// `path` with `.` and `..` components resolved; `None` if it climbs above the root.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The directory of a file path (`""` for a file at the root).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The last component.
pub fn name_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, n)| n)
}

/// `a/b` joined with `c` (either may be empty).
pub fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else if rel.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// The relative path from directory `from` to `to` (`../lib/a`), without a `./` prefix
/// (`""` when they are the same).
pub fn relative(from: &str, to: &str) -> String {
    let f: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let t: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; f.len() - common];
    out.extend(&t[common..]);
    out.join("/")
}

/// The extensions of module files, longest first where one ends another (`.d.ts`).
pub const MODULE_EXTS: &[&str] = &[
    ".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

/// The module extension `name` ends with, if any.
pub fn module_ext(name: &str) -> Option<&'static str> {
    MODULE_EXTS.iter().copied().find(|e| name.ends_with(e))
}

/// Whether the file is parsed for module references.
pub fn is_code(path: &str) -> bool {
    let name = name_of(path);
    module_ext(name).is_some() || crate::python::is_python(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("src/a", "src/b/c"), "../b/c");
        assert_eq!(relative("src", "src/x"), "x");
        assert_eq!(relative("", "x/y"), "x/y");
        assert_eq!(relative("a/b", "a/b"), "");
        assert_eq!(relative("a/b/c", ""), "../../..");
        assert_eq!(normalize("src/a/../b/./c").as_deref(), Some("src/b/c"));
        assert_eq!(normalize("../x"), None);
        assert_eq!(module_ext("types.d.ts"), Some(".d.ts"));
        assert_eq!(module_ext("a.tsx"), Some(".tsx"));
        assert_eq!(module_ext("a.json"), None);
    }
}
