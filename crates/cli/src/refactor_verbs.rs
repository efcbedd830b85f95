//! `filekit rename-symbol` and `filekit refactor`: the refactor mode of `file_edit`
//! for people, with colored diffs. Both build a `file_edit` call and go through
//! `filekit_dialects::call`, like every other verb.

use crate::GlobalArgs;
use crate::style::Style;
use clap::Args;
use filekit_core::FkError;
use serde_json::{Value, json};

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

pub const REFACTOR_AFTER_HELP: &str = "\
KIND, done on the syntax trees without a language server (\"syntactic\"):
  extract_function, extract_method   TS/JS and Python; --range on whole statements or one
                                     expression, --name; in TS a parameter whose type
                                     cannot be known is refused where the tsconfig has
                                     `strict` or `noImplicitAny`, unless --untyped-parameters
  extract_variable, extract_constant TS/JS and Python; --range on the expression, --name,
                                     --replace-all for every identical occurrence
  extract_type                       TS/TSX; --range on the type, --name,
                                     --type-kind type|interface
  inline_variable                    TS/JS and Python; --range starting on the variable,
                                     or --symbol
  convert_to_arrow                   TS/JS; --range starting on the function
  convert_to_async                   TS/JS and Python (a @types.coroutine generator);
                                     --range in the function
  inline_function                    TS/JS; --range on the function's name or a call
  organize_imports, remove_unused_imports   TS/JS and Python
  add_import                         TS/JS and Python; --range starting on the name, or
                                     --symbol; --module when several modules export it
  rename_symbol                      a verb of its own: filekit rename-symbol FILE OLD NEW
With --trust-workspace and typescript-language-server on PATH (`npm install -g typescript
typescript-language-server`; a language server runs the workspace's code) the server does
the kinds it offers (\"semantic\"). --range is
START_LINE:START_COLUMN-END_LINE:END_COLUMN, lines from 1, columns from 0, end exclusive.

Examples:
  filekit refactor extract_function src/calc.ts --range 4:2-6:30 --name computeTotal --dry-run
  filekit refactor organize_imports src/app.ts
  filekit refactor add_import src/app.ts --symbol Observable --module ./Observable";

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

#[derive(Args)]
pub struct RefactorArgs {
    /// The refactor (see below).
    kind: String,
    /// The file to refactor.
    file: String,
    /// The range: START_LINE:START_COLUMN-END_LINE:END_COLUMN.
    #[arg(long)]
    range: Option<String>,
    /// The name of what is extracted.
    #[arg(long)]
    name: Option<String>,
    /// extract_type: declare a type alias (default) or, for an object type, an interface.
    #[arg(long, value_parser = ["type", "interface"])]
    type_kind: Option<String>,
    /// extract_variable, extract_constant: replace every identical occurrence in the scope.
    #[arg(long)]
    replace_all: bool,
    /// inline_variable, inline_function, add_import: the name (instead of --range).
    #[arg(long)]
    symbol: Option<String>,
    /// add_import: the module to import from, one of the candidates listed without it.
    #[arg(long)]
    module: Option<String>,
    /// extract_*: write a parameter whose type cannot be known untyped, even where the
    /// project's tsconfig (`strict`, `noImplicitAny`) refuses that.
    #[arg(long)]
    untyped_parameters: bool,
    /// Show the diffs; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the JSON reply.
    #[arg(long)]
    json: bool,
}

fn parse_range(s: &str) -> Result<Value, FkError> {
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
    let (sl, sc) = pos(a)?;
    let (el, ec) = pos(b)?;
    Ok(json!({"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec}))
}

pub fn run_rename(global: &GlobalArgs, json: bool, args: RenameArgs) -> u8 {
    let mut call = json!({
        "file": args.file,
        "refactor": "rename_symbol",
        "symbol": args.symbol,
        "newName": args.new_name,
        "dryRun": args.dry_run,
        "preview": true,
    });
    if let Some(s) = args.scope {
        call["scope"] = json!(s);
    }
    run(global, json || args.json, call, "filekit rename-symbol")
}

pub fn run_refactor(global: &GlobalArgs, json: bool, args: RefactorArgs) -> u8 {
    let mut call = json!({
        "file": args.file,
        "refactor": args.kind,
        "dryRun": args.dry_run,
        "preview": true,
    });
    if let Some(r) = &args.range {
        match parse_range(r) {
            Ok(v) => call["selectionRange"] = v,
            Err(e) => return crate::fail_early(&e),
        }
    }
    if let Some(n) = args.name {
        call["extractedName"] = json!(n);
    }
    if let Some(k) = args.type_kind {
        call["typeKind"] = json!(k);
    }
    if args.replace_all {
        call["replaceAll"] = json!(true);
    }
    if let Some(s) = args.symbol {
        call["symbol"] = json!(s);
    }
    if let Some(m) = args.module {
        call["module"] = json!(m);
    }
    if args.untyped_parameters {
        call["untypedParameters"] = json!(true);
    }
    run(global, json || args.json, call, "filekit refactor")
}

fn run(global: &GlobalArgs, json: bool, call: Value, verb: &'static str) -> u8 {
    let ws = match crate::workspace(global) {
        Ok(ws) => ws,
        Err(e) => return crate::fail_early(&e),
    };
    let reply = filekit_dialects::call_for_verb(&ws, "file_edit", call, verb);
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
            if let Some(id) = v.get("historyEntry").and_then(Value::as_i64) {
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
