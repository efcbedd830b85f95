//! Python modules: `from .x import y`, `from pkg.mod import y`, `import pkg.mod as m`
//! resolved to `.py`/`.pyi` files and packages (`__init__.py`), relative to the importing
//! file's package, or absolute from a source root (the workspace root, `src/`); and the
//! dotted name of a module at a new place, relative or absolute as it was written.

use crate::paths::{dir_of, join, name_of};
use crate::resolve::FileSet;

/// The source roots absolute imports are looked up from.
const ROOTS: &[&str] = &["", "src"];

/// How a Python module name resolved: leading dots (0 for absolute) and the source root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyVia {
    pub dots: usize,
    pub root: String,
}

/// The file `spec` (as written after `from`/`import`) names, from `importer`.
pub fn resolve(files: &dyn FileSet, importer: &str, spec: &str) -> Option<(String, PyVia)> {
    let dots = spec.len() - spec.trim_start_matches('.').len();
    let rest = &spec[dots..];
    let rel = rest.replace('.', "/");
    if dots > 0 {
        let mut base = dir_of(importer).to_string();
        for _ in 1..dots {
            if base.is_empty() {
                return None;
            }
            base = dir_of(&base).to_string();
        }
        let file = module_file(files, &join(&base, &rel))?;
        return Some((
            file,
            PyVia {
                dots,
                root: String::new(),
            },
        ));
    }
    if rest.is_empty() {
        return None;
    }
    ROOTS.iter().find_map(|root| {
        module_file(files, &join(root, &rel)).map(|f| {
            (
                f,
                PyVia {
                    dots: 0,
                    root: root.to_string(),
                },
            )
        })
    })
}

fn module_file(files: &dyn FileSet, path: &str) -> Option<String> {
    let candidates = [
        format!("{path}.py"),
        format!("{path}.pyi"),
        join(path, "__init__.py"),
        join(path, "__init__.pyi"),
    ];
    candidates.into_iter().find(|c| files.has_file(c))
}

/// The module path of a file: `a/b.py` → `a/b`, `a/__init__.py` → `a`.
fn module_path(file: &str) -> String {
    let stem = file
        .strip_suffix(".py")
        .or_else(|| file.strip_suffix(".pyi"))
        .unwrap_or(file);
    if name_of(stem) == "__init__" {
        dir_of(stem).to_string()
    } else {
        stem.to_string()
    }
}

/// The name of `target` seen from `importer`, in the form of `via`.
pub fn specifier(importer: &str, target: &str, via: &PyVia) -> Option<String> {
    let module = module_path(target);
    if via.dots == 0 {
        let rel = if via.root.is_empty() {
            module.as_str()
        } else {
            module.strip_prefix(&format!("{}/", via.root))?
        };
        return (!rel.is_empty()).then(|| rel.replace('/', "."));
    }
    let from: Vec<&str> = dir_of(importer)
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let to: Vec<&str> = module.split('/').filter(|s| !s.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let dots = from.len() - common + 1;
    Some(format!("{}{}", ".".repeat(dots), to[common..].join(".")))
}

/// Whether a file is Python.
pub fn is_python(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".pyi")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Files;

    #[test]
    fn relative_and_absolute_modules() {
        let f = Files::new(
            [
                "app/__init__.py",
                "app/core/models.py",
                "app/api/views.py",
                "src/lib/util.py",
            ]
            .map(String::from),
        );
        let (t, via) = resolve(&f, "app/api/views.py", "..core.models").unwrap();
        assert_eq!(t, "app/core/models.py");
        assert_eq!(via.dots, 2);
        assert_eq!(
            resolve(&f, "app/api/views.py", "..").unwrap().0,
            "app/__init__.py"
        );
        assert_eq!(
            resolve(&f, "app/api/views.py", "app.core.models")
                .unwrap()
                .0,
            "app/core/models.py"
        );
        let (t, via) = resolve(&f, "app/api/views.py", "lib.util").unwrap();
        assert_eq!((t.as_str(), via.root.as_str()), ("src/lib/util.py", "src"));
        assert_eq!(resolve(&f, "app/api/views.py", "os"), None);

        let rel = PyVia {
            dots: 1,
            root: String::new(),
        };
        assert_eq!(
            specifier("app/api/views.py", "app/domain/models.py", &rel).as_deref(),
            Some("..domain.models")
        );
        assert_eq!(
            specifier("app/api/views.py", "app/api/models.py", &rel).as_deref(),
            Some(".models")
        );
        assert_eq!(
            specifier("app/api/views.py", "app/__init__.py", &rel).as_deref(),
            Some("..")
        );
        let abs = PyVia {
            dots: 0,
            root: "src".into(),
        };
        assert_eq!(
            specifier("x.py", "src/lib/deep/util.py", &abs).as_deref(),
            Some("lib.deep.util")
        );
        assert_eq!(specifier("x.py", "other/util.py", &abs), None);
    }
}
