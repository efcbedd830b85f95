//! What each refactor kind is, in one entry of [`SPECS`]: its name, the languages it is done
//! for on the syntax trees, the language servers that do it, and the arguments it takes and
//! needs. The front ends derive from the table what they check, list and offer (the tool's
//! enum of kinds and its argument checks, the command line's flags and help), and the routing
//! of [`super::compute`] reads it. A request is checked against its kind's entry once, into a
//! [`Refactor`] that carries that kind's own data; what is wrong with it is an [`ArgError`],
//! a fact each front end words with its own names for the arguments.

use filekit_core::FkError;
use filekit_lsp::ServerKind;
use filekit_semantic::Lang;
use filekit_semantic::ts::extract_type::TypeKind;

/// The refactor kinds, in the table's order.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Kind {
    RenameSymbol,
    ExtractFunction,
    ExtractMethod,
    ExtractVariable,
    ExtractConstant,
    ExtractType,
    InlineVariable,
    InlineFunction,
    OrganizeImports,
    AddImport,
    RemoveUnusedImports,
    ConvertToArrow,
    ConvertToFunction,
    ConvertToAsync,
}

/// An argument of a refactor, named once; each front end spells it its own way (a tool's
/// `newName` or `new_name`, the command line's `--new-name`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Arg {
    /// The name of the symbol acted on, instead of its position.
    Symbol,
    /// rename_symbol's new name: an identifier of the file's language.
    NewName,
    /// Whether a rename changes the files that import the name too.
    Scope,
    /// A range of the file: where the refactor applies, or a position at its start.
    Selection,
    /// The name given to what is extracted: an identifier of the file's language.
    ExtractedName,
    /// What an extracted type is declared as.
    TypeKind,
    /// Every identical occurrence in the scope, not only the selected one.
    ReplaceAll,
    /// The module to import from.
    Module,
    /// Write parameters whose type is not known without one, even where the project's
    /// compiler settings refuse an implicit `any`.
    UntypedParameters,
}

/// What an argument's value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ArgValue {
    /// Free text (a symbol path, a module specifier).
    Text,
    /// An identifier of the file's language, checked by its rules.
    Identifier,
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A range: 1-based lines, 0-based columns (characters), end exclusive.
    Range,
    /// A yes/no switch (off unless given).
    Flag,
}

impl Arg {
    pub const ALL: [Arg; 9] = [
        Arg::Symbol,
        Arg::NewName,
        Arg::Scope,
        Arg::Selection,
        Arg::ExtractedName,
        Arg::TypeKind,
        Arg::ReplaceAll,
        Arg::Module,
        Arg::UntypedParameters,
    ];

    /// The argument's name, in snake_case words.
    pub fn name(self) -> &'static str {
        match self {
            Arg::Symbol => "symbol",
            Arg::NewName => "new_name",
            Arg::Scope => "scope",
            Arg::Selection => "selection_range",
            Arg::ExtractedName => "extracted_name",
            Arg::TypeKind => "type_kind",
            Arg::ReplaceAll => "replace_all",
            Arg::Module => "module",
            Arg::UntypedParameters => "untyped_parameters",
        }
    }

    pub fn value(self) -> ArgValue {
        match self {
            Arg::Symbol | Arg::Module => ArgValue::Text,
            Arg::NewName | Arg::ExtractedName => ArgValue::Identifier,
            Arg::Scope => ArgValue::OneOf(&["workspace", "file"]),
            Arg::TypeKind => ArgValue::OneOf(&["type", "interface"]),
            Arg::Selection => ArgValue::Range,
            Arg::ReplaceAll | Arg::UntypedParameters => ArgValue::Flag,
        }
    }

    /// What it is, for a front end's help (without the front end's names of other arguments).
    pub fn about(self) -> &'static str {
        match self {
            Arg::Symbol => "the symbol's name, instead of its position",
            Arg::NewName => "the new name",
            Arg::Scope => {
                "workspace (default): the files that import it change too; file: this file only"
            }
            Arg::Selection => "the range it works on (lines from 1, columns from 0, end exclusive)",
            Arg::ExtractedName => "the name of what is extracted",
            Arg::TypeKind => "declare a type alias (default) or, for an object type, an interface",
            Arg::ReplaceAll => {
                "replace every identical occurrence in the scope, not only the selected one"
            }
            Arg::Module => "the module to import from, one of the candidates listed without it",
            Arg::UntypedParameters => {
                "write a parameter whose type cannot be known untyped, even where the project's tsconfig (`strict`, `noImplicitAny`) refuses that"
            }
        }
    }

    /// The kinds that take it, in the table's order.
    pub fn taken_by(self) -> impl Iterator<Item = Kind> {
        SPECS
            .iter()
            .filter(move |s| s.takes.contains(&self))
            .map(|s| s.kind)
    }
}

/// One refactor kind: what it is called, where it is done, what it takes.
#[derive(Debug)]
pub struct Spec {
    pub kind: Kind,
    pub name: &'static str,
    /// Done on the syntax trees, without a language server, for files of these languages.
    pub syntactic: &'static [Lang],
    /// The language servers that do it, in a workspace trusted to run one.
    pub servers: &'static [ServerKind],
    /// The arguments it takes; any other is refused.
    pub takes: &'static [Arg],
    /// What it needs: at least one argument of each group.
    pub needs: &'static [&'static [Arg]],
    /// What it does, and where its selection goes, in no front end's names of the arguments.
    pub about: &'static str,
}

const TS_JS: &[Lang] = &[Lang::TypeScript, Lang::Tsx, Lang::JavaScript];
const TS_JS_PY: &[Lang] = &[Lang::TypeScript, Lang::Tsx, Lang::JavaScript, Lang::Python];
const TS: &[ServerKind] = &[ServerKind::TypeScript];
const AT: &[Arg] = &[Arg::Selection, Arg::Symbol];
/// A rename is asked of a name first.
const NAMED: &[Arg] = &[Arg::Symbol, Arg::Selection];
const SELECTION: &[Arg] = &[Arg::Selection];
const NEW_NAME: &[Arg] = &[Arg::NewName];

/// Every kind, in [`Kind`]'s order.
pub const SPECS: [Spec; 14] = [
    Spec {
        kind: Kind::RenameSymbol,
        name: "rename_symbol",
        syntactic: TS_JS_PY,
        servers: &[ServerKind::TypeScript, ServerKind::Python, ServerKind::Rust],
        takes: &[Arg::Symbol, Arg::Selection, Arg::NewName, Arg::Scope],
        needs: &[NEW_NAME, NAMED],
        about: "renames a declaration and its references (the selection starts on the name); Python symbols by path too: Class.method, function.local",
    },
    Spec {
        kind: Kind::ExtractFunction,
        name: "extract_function",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[Arg::Selection, Arg::ExtractedName, Arg::UntypedParameters],
        needs: &[SELECTION],
        about: "the selection is whole statements or one expression; the locals it uses become parameters, what it declares or assigns that is used after it the result",
    },
    Spec {
        kind: Kind::ExtractMethod,
        name: "extract_method",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[Arg::Selection, Arg::ExtractedName, Arg::UntypedParameters],
        needs: &[SELECTION],
        about: "as extract_function, into a method of the enclosing class",
    },
    Spec {
        kind: Kind::ExtractVariable,
        name: "extract_variable",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[
            Arg::Selection,
            Arg::ExtractedName,
            Arg::ReplaceAll,
            Arg::UntypedParameters,
        ],
        needs: &[SELECTION],
        about: "the selection is an expression",
    },
    Spec {
        kind: Kind::ExtractConstant,
        name: "extract_constant",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[
            Arg::Selection,
            Arg::ExtractedName,
            Arg::ReplaceAll,
            Arg::UntypedParameters,
        ],
        needs: &[SELECTION],
        about: "the selection is an expression, declared as far out as what it uses allows",
    },
    Spec {
        kind: Kind::ExtractType,
        name: "extract_type",
        syntactic: &[Lang::TypeScript, Lang::Tsx],
        servers: TS,
        takes: &[Arg::Selection, Arg::ExtractedName, Arg::TypeKind],
        needs: &[SELECTION],
        about: "the selection is a type; the type parameters it uses become the alias's",
    },
    Spec {
        kind: Kind::InlineVariable,
        name: "inline_variable",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[Arg::Selection, Arg::Symbol],
        needs: &[AT],
        about: "the selection starts on the variable (Python: a name assigned once, in a function, or a private module-level one no other module imports)",
    },
    Spec {
        kind: Kind::InlineFunction,
        name: "inline_function",
        syntactic: TS_JS,
        servers: &[],
        takes: &[Arg::Selection, Arg::Symbol],
        needs: &[AT],
        about: "the selection starts on the function's name or a call; its calls in the workspace become its expression",
    },
    Spec {
        kind: Kind::OrganizeImports,
        name: "organize_imports",
        syntactic: TS_JS_PY,
        // Python's are isort's order, done on the syntax trees.
        servers: &[ServerKind::TypeScript, ServerKind::Rust],
        takes: &[],
        needs: &[],
        about: "sorts and merges the file's imports",
    },
    Spec {
        kind: Kind::AddImport,
        name: "add_import",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[Arg::Selection, Arg::Symbol, Arg::Module],
        needs: &[AT],
        about: "the selection starts on a name the file uses without declaring it; imported from the one module of the workspace (or package with types) that exports it, or the module given among several",
    },
    Spec {
        kind: Kind::RemoveUnusedImports,
        name: "remove_unused_imports",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[],
        needs: &[],
        about: "removes the imports the file does not use",
    },
    Spec {
        kind: Kind::ConvertToArrow,
        name: "convert_to_arrow",
        syntactic: TS_JS,
        servers: TS,
        takes: &[Arg::Selection],
        needs: &[SELECTION],
        about: "the selection starts on the function",
    },
    Spec {
        kind: Kind::ConvertToFunction,
        name: "convert_to_function",
        syntactic: TS_JS,
        servers: TS,
        takes: &[Arg::Selection],
        needs: &[SELECTION],
        about: "the selection starts in an arrow function: the whole value of a `const` becomes a function declaration, any other a function expression",
    },
    Spec {
        kind: Kind::ConvertToAsync,
        name: "convert_to_async",
        syntactic: TS_JS_PY,
        servers: TS,
        takes: &[Arg::Selection],
        needs: &[SELECTION],
        about: "the selection starts in a function ending in `return p.then(...)`, or a Python @types.coroutine generator",
    },
];

impl Kind {
    /// Every kind, in the table's order.
    pub const ALL: [Kind; 14] = {
        let mut all = [Kind::RenameSymbol; 14];
        let mut i = 0;
        while i < SPECS.len() {
            all[i] = SPECS[i].kind;
            i += 1;
        }
        all
    };

    /// Every kind's name, in the table's order.
    pub const NAMES: [&'static str; 14] = {
        let mut all = [""; 14];
        let mut i = 0;
        while i < SPECS.len() {
            all[i] = SPECS[i].name;
            i += 1;
        }
        all
    };

    pub fn spec(self) -> &'static Spec {
        &SPECS[self as usize]
    }

    /// The kind's name, which messages use.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(name: &str) -> Option<Kind> {
        SPECS.iter().find(|s| s.name == name).map(|s| s.kind)
    }

    pub fn takes(self, arg: Arg) -> bool {
        self.spec().takes.contains(&arg)
    }
}

impl Spec {
    /// The languages it is done for without a language server ("TS/JS and Python").
    pub fn languages(&self) -> String {
        let has = |l: Lang| self.syntactic.contains(&l);
        let mut parts = vec![];
        match (has(Lang::TypeScript), has(Lang::Tsx), has(Lang::JavaScript)) {
            (true, true, true) => parts.push("TS/JS"),
            (true, true, false) => parts.push("TS/TSX"),
            (true, false, false) => parts.push("TS"),
            (_, _, true) => parts.push("JS"),
            _ => {}
        }
        if has(Lang::Python) {
            parts.push("Python");
        }
        parts.join(" and ")
    }

    /// Whether the language server of `file`'s language does it.
    pub fn served_for(&self, file: &str) -> bool {
        ServerKind::for_path(file).is_some_and(|k| self.servers.contains(&k))
    }
}

/// A range of the file: 1-based lines, 0-based columns (characters), end exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// What a refactor acts on: a position (a selection's start) or a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    Selection(Selection),
    Symbol(String),
}

/// extract_function and extract_method's data.
#[derive(Clone, Debug)]
pub struct ExtractCode {
    pub selection: Selection,
    pub name: Option<String>,
    pub untyped_parameters: bool,
}

/// extract_variable and extract_constant's data.
#[derive(Clone, Debug)]
pub struct ExtractValue {
    pub selection: Selection,
    pub name: Option<String>,
    pub replace_all: bool,
    pub untyped_parameters: bool,
}

/// A refactor, its arguments checked against its kind's entry: each kind with its own data.
#[derive(Clone, Debug)]
pub enum Refactor {
    RenameSymbol {
        at: At,
        new_name: String,
        /// The files that import the name change too (else this file only).
        workspace_scope: bool,
    },
    ExtractFunction(ExtractCode),
    ExtractMethod(ExtractCode),
    ExtractVariable(ExtractValue),
    ExtractConstant(ExtractValue),
    ExtractType {
        selection: Selection,
        name: Option<String>,
        type_kind: TypeKind,
    },
    InlineVariable(At),
    InlineFunction(At),
    OrganizeImports,
    AddImport {
        at: At,
        module: Option<String>,
    },
    RemoveUnusedImports,
    ConvertToArrow(Selection),
    ConvertToFunction(Selection),
    ConvertToAsync(Selection),
}

/// Whether a rename changes the importers too.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Scope {
    #[default]
    Workspace,
    File,
}

impl Scope {
    pub fn parse(word: &str) -> Option<Scope> {
        match word {
            "workspace" => Some(Scope::Workspace),
            "file" => Some(Scope::File),
            _ => None,
        }
    }
}

/// The arguments of a refactor as a front end received them, before they are checked
/// against the kind's entry ([`Refactor::new`]).
#[derive(Clone, Debug, Default)]
pub struct Given {
    pub symbol: Option<String>,
    pub new_name: Option<String>,
    pub scope: Option<Scope>,
    pub selection: Option<Selection>,
    pub extracted_name: Option<String>,
    pub type_kind: Option<TypeKind>,
    /// A switch counts as given when it is on.
    pub replace_all: bool,
    pub module: Option<String>,
    pub untyped_parameters: bool,
}

impl Given {
    pub fn has(&self, arg: Arg) -> bool {
        match arg {
            Arg::Symbol => self.symbol.is_some(),
            Arg::NewName => self.new_name.is_some(),
            Arg::Scope => self.scope.is_some(),
            Arg::Selection => self.selection.is_some(),
            Arg::ExtractedName => self.extracted_name.is_some(),
            Arg::TypeKind => self.type_kind.is_some(),
            Arg::ReplaceAll => self.replace_all,
            Arg::Module => self.module.is_some(),
            Arg::UntypedParameters => self.untyped_parameters,
        }
    }

    /// A position (the selection, which wins) or a name.
    fn at(&mut self) -> Option<At> {
        match (self.selection, self.symbol.take()) {
            (Some(s), _) => Some(At::Selection(s)),
            (None, Some(name)) => Some(At::Symbol(name)),
            (None, None) => None,
        }
    }
}

/// What is wrong with a refactor's arguments, for each front end to word in its own names.
#[derive(Debug)]
pub enum ArgError {
    /// The kind needs one of these arguments and none was given.
    Missing { kind: Kind, one_of: &'static [Arg] },
    /// Given, but the kind takes no such argument.
    NotTaken { kind: Kind, arg: Arg },
    /// Not an identifier of the file's language: the language's error.
    BadName { arg: Arg, error: FkError },
    /// The selection ends before it starts.
    Backwards,
}

impl Refactor {
    /// Checks `given` against `kind`'s entry, for a refactor of `file` (whose language's
    /// rules say what a name may be).
    pub fn new(kind: Kind, file: &str, mut given: Given) -> Result<Refactor, ArgError> {
        let spec = kind.spec();
        for group in spec.needs {
            if !group.iter().any(|a| given.has(*a)) {
                return Err(ArgError::Missing {
                    kind,
                    one_of: group,
                });
            }
        }
        if let Some(arg) = Arg::ALL
            .into_iter()
            .find(|a| given.has(*a) && !spec.takes.contains(a))
        {
            return Err(ArgError::NotTaken { kind, arg });
        }
        for (arg, name) in [
            (Arg::NewName, &given.new_name),
            (Arg::ExtractedName, &given.extracted_name),
        ] {
            if let Some(name) = name {
                // Each language's own rules: `delete` is a fine Python name, `$x` a JS one.
                let checked = if crate::python::is_python(file) {
                    filekit_semantic::python::check_identifier(name)
                } else {
                    filekit_semantic::ts::check_identifier(name)
                };
                checked.map_err(|error| ArgError::BadName { arg, error })?;
            }
        }
        if let Some(s) = given.selection
            && (s.end_line, s.end_column) < (s.start_line, s.start_column)
        {
            return Err(ArgError::Backwards);
        }
        let missing = |one_of| ArgError::Missing { kind, one_of };
        let selection = given.selection.ok_or(missing(SELECTION));
        let code = |g: &Given, selection| ExtractCode {
            selection,
            name: g.extracted_name.clone(),
            untyped_parameters: g.untyped_parameters,
        };
        let value = |g: &Given, selection| ExtractValue {
            selection,
            name: g.extracted_name.clone(),
            replace_all: g.replace_all,
            untyped_parameters: g.untyped_parameters,
        };
        Ok(match kind {
            Kind::RenameSymbol => Refactor::RenameSymbol {
                new_name: given.new_name.take().ok_or(missing(NEW_NAME))?,
                at: given.at().ok_or(missing(NAMED))?,
                workspace_scope: given.scope.unwrap_or_default() == Scope::Workspace,
            },
            Kind::ExtractFunction => Refactor::ExtractFunction(code(&given, selection?)),
            Kind::ExtractMethod => Refactor::ExtractMethod(code(&given, selection?)),
            Kind::ExtractVariable => Refactor::ExtractVariable(value(&given, selection?)),
            Kind::ExtractConstant => Refactor::ExtractConstant(value(&given, selection?)),
            Kind::ExtractType => Refactor::ExtractType {
                selection: selection?,
                name: given.extracted_name,
                type_kind: given.type_kind.unwrap_or(TypeKind::Alias),
            },
            Kind::InlineVariable => Refactor::InlineVariable(given.at().ok_or(missing(AT))?),
            Kind::InlineFunction => Refactor::InlineFunction(given.at().ok_or(missing(AT))?),
            Kind::OrganizeImports => Refactor::OrganizeImports,
            Kind::AddImport => Refactor::AddImport {
                at: given.at().ok_or(missing(AT))?,
                module: given.module,
            },
            Kind::RemoveUnusedImports => Refactor::RemoveUnusedImports,
            Kind::ConvertToArrow => Refactor::ConvertToArrow(selection?),
            Kind::ConvertToFunction => Refactor::ConvertToFunction(selection?),
            Kind::ConvertToAsync => Refactor::ConvertToAsync(selection?),
        })
    }

    pub fn kind(&self) -> Kind {
        match self {
            Refactor::RenameSymbol { .. } => Kind::RenameSymbol,
            Refactor::ExtractFunction(_) => Kind::ExtractFunction,
            Refactor::ExtractMethod(_) => Kind::ExtractMethod,
            Refactor::ExtractVariable(_) => Kind::ExtractVariable,
            Refactor::ExtractConstant(_) => Kind::ExtractConstant,
            Refactor::ExtractType { .. } => Kind::ExtractType,
            Refactor::InlineVariable(_) => Kind::InlineVariable,
            Refactor::InlineFunction(_) => Kind::InlineFunction,
            Refactor::OrganizeImports => Kind::OrganizeImports,
            Refactor::AddImport { .. } => Kind::AddImport,
            Refactor::RemoveUnusedImports => Kind::RemoveUnusedImports,
            Refactor::ConvertToArrow(_) => Kind::ConvertToArrow,
            Refactor::ConvertToFunction(_) => Kind::ConvertToFunction,
            Refactor::ConvertToAsync(_) => Kind::ConvertToAsync,
        }
    }

    /// Whether a language server can do this request as given, where it does the kind: the
    /// servers extract the selection only, inline at a position, import without choosing the
    /// module, and rename through to the declaration.
    pub fn server_can_take(&self, lang: Lang) -> bool {
        let ts_js = matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript);
        match self {
            // A file-scoped rename keeps the names other modules see (`old as new`).
            Refactor::RenameSymbol {
                workspace_scope, ..
            } => *workspace_scope || !(ts_js || lang == Lang::Python),
            Refactor::ExtractVariable(x) | Refactor::ExtractConstant(x) => !x.replace_all,
            // tsserver's extract to a type alias is the server's; an interface is asked for
            // by name.
            Refactor::ExtractType { type_kind, .. } => *type_kind == TypeKind::Alias,
            Refactor::InlineVariable(at) => matches!(at, At::Selection(_)) || !ts_js,
            Refactor::AddImport { at, module } => {
                matches!(at, At::Selection(_)) && module.is_none()
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range() -> Selection {
        Selection {
            start_line: 1,
            start_column: 0,
            end_line: 1,
            end_column: 3,
        }
    }

    fn given_with(args: &[Arg]) -> Given {
        let mut g = Given::default();
        for a in args {
            match a {
                Arg::Symbol => g.symbol = Some("x".into()),
                Arg::NewName => g.new_name = Some("y".into()),
                Arg::Scope => g.scope = Some(Scope::File),
                Arg::Selection => g.selection = Some(range()),
                Arg::ExtractedName => g.extracted_name = Some("z".into()),
                Arg::TypeKind => g.type_kind = Some(TypeKind::Interface),
                Arg::ReplaceAll => g.replace_all = true,
                Arg::Module => g.module = Some("./m".into()),
                Arg::UntypedParameters => g.untyped_parameters = true,
            }
        }
        g
    }

    #[test]
    fn the_table_is_in_the_order_of_the_kinds_and_names_each_once() {
        for (i, spec) in SPECS.iter().enumerate() {
            assert_eq!(spec.kind as usize, i, "{}", spec.name);
            assert_eq!(Kind::parse(spec.name), Some(spec.kind));
            assert!(!spec.syntactic.is_empty() || !spec.servers.is_empty());
            for group in spec.needs {
                for a in *group {
                    assert!(spec.takes.contains(a), "{} needs {a:?}", spec.name);
                }
            }
        }
        assert_eq!(Kind::parse("extract"), None);
    }

    /// Every kind is built from one argument of each group it needs, and with all it takes;
    /// without a group it is refused naming the group; an argument it does not take is
    /// refused by name.
    #[test]
    fn a_request_is_what_its_kind_takes_and_needs() {
        for spec in &SPECS {
            let firsts: Vec<Arg> = spec.needs.iter().map(|g| g[0]).collect();
            let built = Refactor::new(spec.kind, "a.ts", given_with(&firsts)).unwrap();
            assert_eq!(built.kind(), spec.kind);
            Refactor::new(spec.kind, "a.ts", given_with(spec.takes)).unwrap();
            for (i, group) in spec.needs.iter().enumerate() {
                let mut without = firsts.clone();
                without.remove(i);
                match Refactor::new(spec.kind, "a.ts", given_with(&without)) {
                    Err(ArgError::Missing { kind, one_of }) => {
                        assert_eq!((kind, one_of), (spec.kind, *group))
                    }
                    other => panic!("{}: {other:?}", spec.name),
                }
            }
            for arg in Arg::ALL.iter().filter(|a| !spec.takes.contains(a)) {
                let mut with = firsts.clone();
                with.push(*arg);
                match Refactor::new(spec.kind, "a.ts", given_with(&with)) {
                    Err(ArgError::NotTaken { kind, arg: a }) => {
                        assert_eq!((kind, a), (spec.kind, *arg))
                    }
                    other => panic!("{} with {arg:?}: {other:?}", spec.name),
                }
            }
        }
    }

    #[test]
    fn names_follow_the_files_language_and_a_selection_runs_forwards() {
        let named = |name: &str| Given {
            selection: Some(range()),
            extracted_name: Some(name.into()),
            ..Given::default()
        };
        let x = Refactor::new(Kind::ExtractVariable, "a.py", named("delete"));
        assert!(x.is_ok(), "{x:?}");
        let x = Refactor::new(Kind::ExtractVariable, "a.ts", named("delete"));
        assert!(
            matches!(
                x,
                Err(ArgError::BadName {
                    arg: Arg::ExtractedName,
                    ..
                })
            ),
            "{x:?}"
        );
        let backwards = Given {
            selection: Some(Selection {
                start_line: 2,
                start_column: 0,
                end_line: 1,
                end_column: 4,
            }),
            ..Given::default()
        };
        let x = Refactor::new(Kind::ConvertToArrow, "a.ts", backwards);
        assert!(matches!(x, Err(ArgError::Backwards)), "{x:?}");
    }

    #[test]
    fn languages_are_said_as_people_say_them() {
        assert_eq!(Kind::ExtractFunction.spec().languages(), "TS/JS and Python");
        assert_eq!(Kind::ExtractType.spec().languages(), "TS/TSX");
        assert_eq!(Kind::ConvertToArrow.spec().languages(), "TS/JS");
    }
}
