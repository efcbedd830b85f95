//! Renames: a binding and every use of it in its file, and the import sites of other
//! modules.

use super::*;

use super::scopes::*;

/// Which binding a rename starts from.
#[derive(Debug, Clone)]
pub enum Target {
    /// A name or a path of names: `helper` (its module binding, or its only binding in the
    /// file), `Class.method`, `function.local`, `Class.method.local`.
    Name(String),
    /// The name at this byte offset (a binding or a use).
    At(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    Name(usize),
    ClassAttr(usize),
}

/// What a rename in one file found out about the renamed binding.
#[derive(Debug, Clone, Default)]
pub struct PyRename {
    pub splices: Vec<Splice>,
    /// The old name.
    pub name: String,
    /// The binding is a module-level name (other modules may import it).
    pub module_level: bool,
    /// The binding is `from MODULE import name` (unaliased): MODULE as written.
    pub imported_from: Option<String>,
    pub warnings: Vec<String>,
}

pub(super) fn not_found(what: String) -> FkError {
    FkError::new(ErrorCode::NotFound, what).with_hint(
        "name a binding of this file: `name` (module level), `Class.method`, `function.local`, or give the selection on it",
    )
}

impl Analysis<'_> {
    pub(super) fn find_target(&self, target: &Target) -> Result<(Binding, String), FkError> {
        match target {
            Target::At(off) => {
                if let Some(o) = self
                    .occs
                    .iter()
                    .find(|o| o.start <= *off && *off <= o.end && o.kind != OccKind::All)
                {
                    let b = self.resolve(o.scope, &o.name).ok_or_else(|| {
                        not_found(format!(
                            "`{}` at {} is not bound in this file (a builtin or an undefined name)",
                            o.name,
                            self.line_col(o.start)
                        ))
                    })?;
                    let binding = if self.scopes[b].kind == ScopeKind::Class {
                        Binding::ClassAttr(b)
                    } else {
                        Binding::Name(b)
                    };
                    return Ok((binding, o.name.clone()));
                }
                if let Some(a) = self.attrs.iter().find(|a| a.start <= *off && *off <= a.end) {
                    for (c, _) in self
                        .scopes
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.kind == ScopeKind::Class)
                    {
                        if self
                            .class_attrs(c, &a.name)
                            .iter()
                            .any(|&i| self.attrs[i].start == a.start)
                        {
                            return Ok((Binding::ClassAttr(c), a.name.clone()));
                        }
                    }
                    return Err(FkError::invalid(format!(
                        "`{}.{}` at {}: an attribute of an object whose type only a type checker knows",
                        a.obj,
                        a.name,
                        self.line_col(a.start)
                    ))
                    .with_hint("point at the attribute's declaration in its class (or use pyright-langserver for a semantic rename)"));
                }
                Err(FkError::new(
                    ErrorCode::NotFound,
                    format!("no name at {}", self.line_col(*off)),
                )
                .with_hint("point the selection's start at the name to rename"))
            }
            Target::Name(path) => {
                let segs: Vec<&str> = path.split('.').collect();
                for s in &segs {
                    check_identifier(s).map_err(|e| FkError {
                        message: format!("symbol: {}", e.message),
                        ..e
                    })?;
                }
                let last = *segs.last().expect("split yields one");
                if segs.len() == 1 {
                    if self.scopes[0].bound.contains(last) {
                        return Ok((Binding::Name(0), last.to_string()));
                    }
                    let mut scopes: Vec<usize> = (0..self.scopes.len())
                        .filter(|&i| {
                            self.scopes[i].bound.contains(last)
                                && self.scopes[i].kind != ScopeKind::Class
                        })
                        .collect();
                    let classes: Vec<usize> = (0..self.scopes.len())
                        .filter(|&i| {
                            self.scopes[i].bound.contains(last)
                                && self.scopes[i].kind == ScopeKind::Class
                        })
                        .collect();
                    if scopes.is_empty() && classes.len() == 1 {
                        return Ok((Binding::ClassAttr(classes[0]), last.to_string()));
                    }
                    scopes.extend(classes);
                    return match scopes.len() {
                        0 => Err(not_found(format!("no binding of `{last}` in this file"))),
                        1 => Ok((Binding::Name(scopes[0]), last.to_string())),
                        n => {
                            let mut at: Vec<String> = scopes
                                .iter()
                                .filter_map(|&s| {
                                    self.occs
                                        .iter()
                                        .find(|o| o.binding && o.scope == s && o.name == last)
                                        .map(|o| self.line_col(o.start))
                                })
                                .collect();
                            at.sort();
                            Err(FkError::new(
                                ErrorCode::Ambiguous,
                                format!("`{last}` is bound in {n} scopes of this file ({})", at.join("; ")),
                            )
                            .with_hint("name it by path (`function.local`, `Class.method`) or give the selection on the one to rename"))
                        }
                    };
                }
                let mut cur = 0;
                for seg in &segs[..segs.len() - 1] {
                    let d = self
                        .defs
                        .iter()
                        .find(|d| d.scope == cur && d.name == *seg)
                        .ok_or_else(|| {
                            not_found(format!("`{path}`: no function or class `{seg}` there"))
                        })?;
                    cur = d.inner;
                }
                if self.scopes[cur].kind == ScopeKind::Class {
                    let declared = self.scopes[cur].bound.contains(last)
                        || self
                            .class_attrs(cur, last)
                            .iter()
                            .any(|&i| self.attrs[i].assigned);
                    if declared {
                        return Ok((Binding::ClassAttr(cur), last.to_string()));
                    }
                } else if self.scopes[cur].bound.contains(last) {
                    return Ok((Binding::Name(cur), last.to_string()));
                }
                Err(not_found(format!(
                    "`{path}`: `{last}` is not declared there"
                )))
            }
        }
    }

    /// The splices and checks of renaming a binding; `keep_public` keeps an unaliased
    /// `from m import old` importing `old` (as `old as new`).
    pub(super) fn rename(
        &self,
        binding: Binding,
        old: &str,
        new: &str,
        keep_public: bool,
    ) -> Result<Vec<Splice>, FkError> {
        let mut out: Vec<Splice> = Vec::new();
        let clash = |at: usize, why: &str| {
            FkError::new(
                ErrorCode::Conflict,
                format!("renaming `{old}` to `{new}`: {why} ({})", self.line_col(at)),
            )
            .with_hint("choose another name, or rename that one first")
        };
        match binding {
            Binding::Name(s) => {
                if let Some(o) = self
                    .occs
                    .iter()
                    .find(|o| o.name == new && o.binding && self.resolve(o.scope, new) == Some(s))
                {
                    return Err(clash(
                        o.start,
                        &format!("`{new}` is already bound in the same scope"),
                    ));
                }
                let refs = self.refs_of(s, old);
                for &i in &refs {
                    let o = &self.occs[i];
                    if o.kind == OccKind::All {
                        continue;
                    }
                    if let Some(other) = self.resolve(o.scope, new)
                        && other != s
                    {
                        return Err(clash(
                            o.start,
                            &format!("this use would refer to another `{new}`"),
                        ));
                    }
                }
                // An unbound use of `new` (a builtin, a global of another module) that the
                // renamed binding would capture.
                if let Some(o) = self.occs.iter().find(|o| {
                    o.name == new
                        && o.kind != OccKind::All
                        && self.resolve(o.scope, new).is_none()
                        && self.visible_from(o.scope, s)
                }) {
                    return Err(clash(
                        o.start,
                        &format!(
                            "`{new}` is used here for a builtin or undefined name that it would shadow"
                        ),
                    ));
                }
                for &i in &refs {
                    let o = &self.occs[i];
                    match o.kind {
                        OccKind::ModuleImport => {
                            return Err(FkError::invalid(format!(
                                "`{old}` is bound by `import {old}...`: it names a module"
                            ))
                            .with_hint("rename the module with file_rename (imports follow), or import it `as` another name"));
                        }
                        OccKind::FromImport if keep_public => {
                            out.push(Splice::new(o.start, o.end, format!("{old} as {new}")))
                        }
                        _ => out.push(Splice::new(o.start, o.end, new.to_string())),
                    }
                }
            }
            Binding::ClassAttr(c) => {
                if self.scopes[c].bound.contains(new) || !self.class_attrs(c, new).is_empty() {
                    let at = self
                        .occs
                        .iter()
                        .find(|o| o.binding && o.scope == c && o.name == new)
                        .map(|o| o.start)
                        .or_else(|| {
                            self.class_attrs(c, new)
                                .first()
                                .map(|&i| self.attrs[i].start)
                        })
                        .unwrap_or(0);
                    return Err(clash(
                        at,
                        &format!("the class already has an attribute `{new}`"),
                    ));
                }
                for i in self.refs_of(c, old) {
                    let o = &self.occs[i];
                    out.push(Splice::new(o.start, o.end, new.to_string()));
                }
                for i in self.class_attrs(c, old) {
                    let a = &self.attrs[i];
                    out.push(Splice::new(a.start, a.end, new.to_string()));
                }
            }
        }
        out.sort_by_key(|s| s.start);
        out.dedup_by_key(|s| s.start);
        Ok(out)
    }
}

/// Renames a binding of one Python file and its references in their scopes. `keep_public`
/// keeps the names other modules see: an unaliased imported name becomes `old as new`
/// (the file scope). A module-level rename also renames `__all__`'s entry.
pub fn rename_in_file(
    text: &str,
    target: &Target,
    new: &str,
    keep_public: bool,
) -> Result<PyRename, FkError> {
    check_identifier(new)?;
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let (binding, name) = a.find_target(target)?;
    let mut out = PyRename {
        name: name.clone(),
        ..PyRename::default()
    };
    if name == new {
        return Ok(out);
    }
    out.splices = a.rename(binding, &name, new, keep_public)?;
    match binding {
        Binding::Name(0) => {
            out.module_level = true;
            out.imported_from = a
                .from_items
                .iter()
                .find(|f| f.scope == 0 && f.alias.is_none() && f.name.2 == name)
                .map(|f| f.module.clone());
        }
        Binding::Name(s) => {
            if let Some(d) = a.defs.iter().find(|d| d.inner == s && !d.class)
                && a.occs.iter().any(|o| {
                    o.binding && o.scope == s && o.name == name && is_param(&tree, o.start)
                })
            {
                // `f(name=...)` calls of this function in this file follow.
                let calls_it = |k: &Kwarg| match (k.func_occ, k.func_attr) {
                    (Some(i), _) => {
                        a.occs[i].name == d.name && a.resolve(a.occs[i].scope, &d.name) == Some(d.scope)
                    }
                    (_, Some(j)) => {
                        a.scopes[d.scope].kind == ScopeKind::Class
                            && a.class_attrs(d.scope, &d.name).contains(&j)
                    }
                    _ => false,
                };
                let calls: Vec<&Kwarg> = a.kwargs.iter().filter(|k| calls_it(k)).collect();
                if let Some(k) = calls.iter().find(|k| k.name == new) {
                    return Err(FkError::new(
                        ErrorCode::Conflict,
                        format!("renaming `{name}` to `{new}`: the call at {} already passes `{new}=`", a.line_col(k.start)),
                    )
                    .with_hint("choose another name"));
                }
                for k in calls.iter().filter(|k| k.name == name) {
                    out.splices.push(Splice::new(k.start, k.end, new.to_string()));
                }
                out.splices.sort_by_key(|s| s.start);
                out.warnings.push(format!(
                    "`{name}` is a parameter: keyword arguments `{name}=` are renamed in this file's calls of `{}`, not in other modules",
                    d.name
                ));
            }
        }
        Binding::ClassAttr(_) => out.warnings.push(format!(
            "`{name}` is a class attribute: renamed in its class, through `self`/`cls` and the class's name; uses through other objects and subclasses are not renamed"
        )),
    }
    Ok(out)
}

/// Where the binding a target names is first bound (for a language server's rename, which
/// takes a position).
pub fn binding_offset(text: &str, target: &Target) -> Result<usize, FkError> {
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let (binding, name) = a.find_target(target)?;
    let scope = match binding {
        Binding::Name(s) | Binding::ClassAttr(s) => s,
    };
    a.occs
        .iter()
        .find(|o| o.binding && o.scope == scope && o.name == name)
        .map(|o| o.start)
        .or_else(|| {
            a.class_attrs(scope, &name)
                .first()
                .map(|&i| a.attrs[i].start)
        })
        .ok_or_else(|| not_found(format!("no binding of `{name}` in this file")))
}

pub(super) fn is_param(tree: &Tree, at: usize) -> bool {
    let mut n = tree.root_node().descendant_for_byte_range(at, at);
    while let Some(x) = n {
        match x.kind() {
            "parameters" | "lambda_parameters" => return true,
            "function_definition" | "block" | "module" => return false,
            _ => n = x.parent(),
        }
    }
    false
}

/// What renaming a module-level name changes in a file that may import it.
#[derive(Debug, Clone, Default)]
pub struct ImporterRename {
    pub splices: Vec<Splice>,
    /// The file binds the name at module level under the old name (`from m import old`,
    /// `from m import *`): modules importing it from this file change too.
    pub re_exports: bool,
}

/// In a file that may import from the renamed module (`resolves(spec)` says whether a module
/// name as written, `pkg.mod` or `.mod`, names it), the splices renaming `old` to `new`:
/// `from m import old` (and its uses, when unaliased), `m.old` through `import m`/`import
/// pkg.m`/`from pkg import m`, string annotations, `__all__`.
pub fn rename_in_importer(
    text: &str,
    resolves: &dyn Fn(&str) -> bool,
    old: &str,
    new: &str,
) -> Result<ImporterRename, FkError> {
    let tree = parse(text)?;
    let a = Analysis::new(text, &tree);
    let mut out = ImporterRename::default();
    let mut module_names: HashSet<String> = HashSet::new();
    let mut splices: Vec<Splice> = Vec::new();
    for f in &a.from_items {
        let sub = if f.module.ends_with('.') {
            format!("{}{}", f.module, f.name.2)
        } else {
            format!("{}.{}", f.module, f.name.2)
        };
        if resolves(&sub) {
            module_names.insert(f.alias.clone().unwrap_or_else(|| f.name.2.clone()));
            continue;
        }
        if f.name.2 != old || !resolves(&f.module) {
            continue;
        }
        match &f.alias {
            Some(_) => splices.push(Splice::new(f.name.0, f.name.1, new.to_string())),
            None => {
                splices.extend(a.rename(Binding::Name(f.scope), old, new, false)?);
                if f.scope == 0 {
                    out.re_exports = true;
                }
            }
        }
    }
    if a.star_from.iter().any(|m| resolves(m)) {
        out.re_exports = true;
        // Unbound uses of `old` come from the star import.
        for o in &a.occs {
            if o.name == old && o.kind != OccKind::All && a.resolve(o.scope, old).is_none() {
                splices.push(Splice::new(o.start, o.end, new.to_string()));
            }
            if o.name == new && o.binding && o.scope == 0 {
                return Err(FkError::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{new}` is already bound at {}, where `{old}` comes from a star import",
                        a.line_col(o.start)
                    ),
                ));
            }
        }
    }
    for s in &a.straight {
        if resolves(&s.module) {
            module_names.insert(s.alias.clone().unwrap_or_else(|| s.module.clone()));
        }
    }
    if !module_names.is_empty() {
        for at in &a.attrs {
            if at.name == old && module_names.contains(&at.obj) {
                // The object's first name must be the module's import, not a local.
                let root = at.obj.split('.').next().unwrap_or("");
                let scope = at.obj_occ.map(|i| a.occs[i].scope).unwrap_or(at.scope);
                if a.resolve(scope, root).is_some_and(|b| b != 0)
                    && !a.from_items.iter().any(|f| f.scope != 0)
                {
                    continue;
                }
                splices.push(Splice::new(at.start, at.end, new.to_string()));
            }
        }
    }
    splices.sort_by_key(|s| s.start);
    splices.dedup_by_key(|s| s.start);
    out.splices = splices;
    Ok(out)
}
