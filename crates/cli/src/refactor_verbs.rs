//! `filekit rename-symbol` and `filekit refactor`: the refactor mode of `file_edit`
//! for people, with colored diffs. `filekit refactor`'s flags, their checks and its help come
//! from the refactor layer's table of kinds; both verbs run `file_edit`'s refactor mode as a
//! typed function (`filekit_dialects::verbs::refactor`).

use crate::GlobalArgs;
use crate::style::Style;
use clap::Args;
use filekit_core::FkError;
use filekit_dialects::verbs::{
    self, Arg, ArgError, ArgValue, Given, Kind, Refactor, SPECS, Scope, Selection, TypeKind,
};
use serde_json::Value;

pub const RENAME_AFTER_HELP: &str = "\
Renames a declaration and its references. With --trust-workspace and
typescript-language-server (or pyright-langserver, rust-analyzer) on PATH the server computes
the rename (precision \"semantic\"); a language server runs the workspace's code, so none is
started without that option. Without a server TS/TSX/JS and Python files are renamed by scope on their syntax
trees (\"syntactic\"; Python symbols by path too: Class.method, function.local): the
declaration's scope in the file and, with --scope workspace (the default), the files that
import it by name. All files change together; `filekit undo` reverts them.

Examples:
  filekit rename-symbol src/user.ts UserService AuthService --dry-run
  filekit rename-symbol src/math.ts add sum --scope file --json";

/// `filekit refactor --help`'s text after the flags: each kind of the refactor table, with
/// the languages it is done for and the flags it needs and takes.
pub fn refactor_after_help() -> String {
    let mut out = String::from(
        "KIND, done on the syntax trees without a language server (\"syntactic\") for the\n\
         languages named, and by the language servers named in a trusted workspace:\n",
    );
    for spec in &SPECS {
        let servers: Vec<&str> = spec.servers.iter().map(|s| s.command().0).collect();
        out.push_str(&format!("  {:<22}{}\n", spec.name, spec.languages()));
        let needs: Vec<String> = spec
            .needs
            .iter()
            .map(|group| {
                let each: Vec<String> = group.iter().map(|a| format!("--{}", flag(*a))).collect();
                each.join(" or ")
            })
            .collect();
        let optional: Vec<String> = spec
            .takes
            .iter()
            .filter(|a| !spec.needs.iter().any(|g| g.contains(a)))
            .map(|a| format!("--{}", flag(*a)))
            .collect();
        let mut flags = vec![];
        if !needs.is_empty() {
            flags.push(format!("needs {}", needs.join(" and ")));
        }
        if !optional.is_empty() {
            flags.push(format!("takes {}", optional.join(", ")));
        }
        let mut about = spec.about.to_string();
        if spec.kind == Kind::RenameSymbol {
            about.push_str("; also a verb of its own: filekit rename-symbol FILE OLD NEW");
        }
        if !flags.is_empty() {
            about = format!("{}; {about}", flags.join("; "));
        }
        if !servers.is_empty() {
            about.push_str(&format!("; server: {}", servers.join(", ")));
        }
        out.push_str(&wrapped(&about, 6, 92));
    }
    out.push_str(
        "With --trust-workspace and typescript-language-server on PATH (`npm install -g typescript\n\
         typescript-language-server`; a language server runs the workspace's code) the server does\n\
         the kinds it offers (\"semantic\"). --range is START_LINE:START_COLUMN-END_LINE:END_COLUMN,\n\
         lines from 1, columns from 0, end exclusive.\n\
         \n\
         Examples:\n  \
         filekit refactor extract_function src/calc.ts --range 4:2-6:30 --name computeTotal --dry-run\n  \
         filekit refactor organize_imports src/app.ts\n  \
         filekit refactor add_import src/app.ts --symbol Observable --module ./Observable",
    );
    out
}

/// `text` in lines of at most `width` columns, each indented by `indent`.
fn wrapped(text: &str, indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > width {
            out.push_str(&format!("{:indent$}{line}\n", ""));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{:indent$}{line}\n", ""));
    }
    out
}

/// A refactor argument's flag, without its dashes.
fn flag(arg: Arg) -> &'static str {
    match arg {
        Arg::Symbol => "symbol",
        Arg::NewName => "new-name",
        Arg::Scope => "scope",
        Arg::Selection => "range",
        Arg::ExtractedName => "name",
        Arg::TypeKind => "type-kind",
        Arg::ReplaceAll => "replace-all",
        Arg::Module => "module",
        Arg::UntypedParameters => "untyped-parameters",
    }
}

#[derive(Args)]
pub struct RenameArgs {
    /// The file that declares (or imports) the symbol.
    file: String,
    /// The symbol's name ("UserService"; with a language server also "Class.method").
    symbol: String,
    /// Its new name.
    new_name: String,
    /// workspace (default): the files that import it change too; file: this file only.
    #[arg(long, value_parser = ["file", "workspace"])]
    scope: Option<String>,
    /// Show the diffs; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the JSON reply.
    #[arg(long)]
    json: bool,
}

/// `filekit refactor`'s arguments: the kind, the file, and a flag for each argument of the
/// refactor table (each refused by the kinds that do not take it).
pub struct RefactorArgs {
    kind: String,
    file: String,
    /// The refactor flags given, with their values as typed (a switch: "true").
    flags: Vec<(Arg, String)>,
    dry_run: bool,
    json: bool,
}

impl clap::FromArgMatches for RefactorArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let text = |id: &str| m.get_one::<String>(id).cloned().unwrap_or_default();
        let mut flags = vec![];
        for arg in Arg::ALL {
            let id = flag(arg);
            if arg.value() == ArgValue::Flag {
                if m.get_flag(id) {
                    flags.push((arg, "true".into()));
                }
            } else if let Some(v) = m.get_one::<String>(id) {
                flags.push((arg, v.clone()));
            }
        }
        Ok(RefactorArgs {
            kind: text("kind"),
            file: text("file"),
            flags,
            dry_run: m.get_flag("dry-run"),
            json: m.get_flag("json"),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for RefactorArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        use clap::{Arg as Flag, ArgAction};
        let mut cmd = cmd
            .arg(
                Flag::new("kind")
                    .required(true)
                    .value_name("KIND")
                    .value_parser(Kind::NAMES)
                    .hide_possible_values(true)
                    .help("The refactor (see below)."),
            )
            .arg(
                Flag::new("file")
                    .required(true)
                    .value_name("FILE")
                    .help("The file to refactor."),
            );
        for arg in Arg::ALL {
            let id = flag(arg);
            let kinds: Vec<&str> = arg.taken_by().map(Kind::name).collect();
            let help = format!("{}: {}.", kinds.join(", "), arg.about());
            let f = Flag::new(id).long(id).help(help);
            cmd = cmd.arg(match arg.value() {
                ArgValue::Flag => f.action(ArgAction::SetTrue),
                ArgValue::OneOf(words) => f.value_parser(words.to_vec()),
                ArgValue::Range => f.value_name("RANGE"),
                ArgValue::Text | ArgValue::Identifier => f.value_name("NAME"),
            });
        }
        cmd.arg(
            Flag::new("dry-run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Show the diffs; write nothing."),
        )
        .arg(
            Flag::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print the JSON reply."),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

fn parse_range(s: &str) -> Result<Selection, FkError> {
    let bad = || {
        FkError::invalid(format!(
            "--range {s}: expected START_LINE:START_COLUMN-END_LINE:END_COLUMN"
        ))
        .with_hint("e.g. --range 4:2-6:30 (lines from 1, columns from 0)")
    };
    let (a, b) = s.split_once('-').ok_or_else(bad)?;
    let pos = |p: &str| -> Result<(usize, usize), FkError> {
        let (l, c) = p.split_once(':').ok_or_else(bad)?;
        Ok((
            l.trim().parse().map_err(|_| bad())?,
            c.trim().parse().map_err(|_| bad())?,
        ))
    };
    let (start_line, start_column) = pos(a)?;
    let (end_line, end_column) = pos(b)?;
    Ok(Selection {
        start_line,
        start_column,
        end_line,
        end_column,
    })
}

/// The flags as the refactor layer's arguments (clap has checked the words of each choice).
fn given(flags: &[(Arg, String)]) -> Result<Given, FkError> {
    let mut given = Given::default();
    for (arg, value) in flags {
        let value = value.clone();
        match arg {
            Arg::Symbol => given.symbol = Some(value),
            Arg::NewName => given.new_name = Some(value),
            Arg::Scope => given.scope = Scope::parse(&value),
            Arg::Selection => given.selection = Some(parse_range(&value)?),
            Arg::ExtractedName => given.extracted_name = Some(value),
            Arg::TypeKind => {
                given.type_kind = Some(if value == "interface" {
                    TypeKind::Interface
                } else {
                    TypeKind::Alias
                })
            }
            Arg::ReplaceAll => given.replace_all = true,
            Arg::Module => given.module = Some(value),
            Arg::UntypedParameters => given.untyped_parameters = true,
        }
    }
    Ok(given)
}

/// What is wrong with a refactor's flags, in the flags' names.
fn worded(err: ArgError) -> FkError {
    let flagged = |a: Arg| format!("--{}", flag(a));
    match err {
        ArgError::Missing { kind, one_of } => {
            let each: Vec<String> = one_of.iter().map(|a| flagged(*a)).collect();
            let err = FkError::invalid(format!("{} needs {}", kind.name(), each.join(" or ")));
            if one_of.contains(&Arg::Selection) {
                err.with_hint("--range START_LINE:START_COLUMN-END_LINE:END_COLUMN, lines from 1, columns from 0, end exclusive")
            } else {
                err
            }
        }
        ArgError::NotTaken { kind, arg } => {
            let takes: Vec<String> = kind.spec().takes.iter().map(|a| flagged(*a)).collect();
            FkError::invalid(format!(
                "{} does not apply to {}",
                flagged(arg),
                kind.name()
            ))
            .with_hint(if takes.is_empty() {
                format!("{} takes no flag but --dry-run and --json", kind.name())
            } else {
                format!("{} takes {}", kind.name(), takes.join(", "))
            })
        }
        ArgError::BadName { arg, error } => FkError {
            message: format!("{}: {}", flagged(arg), error.message),
            ..error
        },
        ArgError::Backwards => FkError::invalid("--range ends before it starts")
            .with_hint("START_LINE:START_COLUMN comes first"),
    }
}

pub fn run_rename(global: &GlobalArgs, json: bool, args: RenameArgs) -> u8 {
    let given = Given {
        symbol: Some(args.symbol),
        new_name: Some(args.new_name),
        // clap has checked the word against the scopes' names.
        scope: args.scope.as_deref().and_then(Scope::parse),
        ..Given::default()
    };
    let refactor = match Refactor::new(Kind::RenameSymbol, &args.file, given) {
        Ok(r) => r,
        // The symbol and the new name are the verb's operands, not flags.
        Err(ArgError::BadName { arg, error }) => {
            let operand = if arg == Arg::NewName {
                "NEW_NAME"
            } else {
                "SYMBOL"
            };
            return crate::fail_early(&FkError {
                message: format!("{operand}: {}", error.message),
                ..error
            });
        }
        Err(e) => return crate::fail_early(&worded(e)),
    };
    let json = json || args.json;
    run(
        global,
        json,
        args.file,
        refactor,
        args.dry_run,
        "filekit rename-symbol",
    )
}

pub fn run_refactor(global: &GlobalArgs, json: bool, args: RefactorArgs) -> u8 {
    // clap has checked the kind against the table's names.
    let Some(kind) = Kind::parse(&args.kind) else {
        return crate::fail_early(&FkError::invalid(format!("unknown refactor {}", args.kind)));
    };
    let given = match given(&args.flags) {
        Ok(g) => g,
        Err(e) => return crate::fail_early(&e),
    };
    let refactor = match Refactor::new(kind, &args.file, given) {
        Ok(r) => r,
        Err(e) => return crate::fail_early(&worded(e)),
    };
    let json = json || args.json;
    run(
        global,
        json,
        args.file,
        refactor,
        args.dry_run,
        "filekit refactor",
    )
}

fn run(
    global: &GlobalArgs,
    json: bool,
    file: String,
    refactor: Refactor,
    dry_run: bool,
    verb: &'static str,
) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let reply = verbs::refactor(&ws, file, refactor, dry_run, verb);
    filekit_dialects::stop_language_servers();
    crate::history_warning(&ws);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reply.value).unwrap_or_default()
        );
    } else {
        let style = Style::new(global.color);
        let v = &reply.value;
        if reply.is_error {
            let msg = v.get("error").and_then(Value::as_str).unwrap_or("failed");
            eprintln!("{} {msg}", style.red("error:"));
            if let Some(h) = v.get("hint").and_then(Value::as_str) {
                eprintln!("{} {h}", style.dim("hint:"));
            }
            if v["details"]["fact"] == "untyped_parameters" {
                eprintln!(
                    "{} --untyped-parameters writes them untyped",
                    style.dim("hint:")
                );
            }
        } else {
            if let Some(d) = v.get("diff").and_then(Value::as_str) {
                print!("{}", style.diff(d));
            }
            for w in v
                .get("warnings")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                println!("{} {}", style.bold("warning:"), w.as_str().unwrap_or(""));
            }
            let summary = v.get("summary").and_then(Value::as_str).unwrap_or("");
            println!("{}", style.green(summary));
            if let Some(id) = v.get("history_entry").and_then(Value::as_i64) {
                println!(
                    "{}",
                    style.dim(&format!(
                        "history entry {id}: `filekit undo {id}` reverts it"
                    ))
                );
            }
        }
    }
    crate::reply_exit_code(&reply)
}
