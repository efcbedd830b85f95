//! Tool arguments: one Rust struct per tool is the single source of truth for both the JSON
//! Schema a model is shown and the parser that checks what it sends.
//!
//! Every call goes through [`prepare`] before its tool sees it: the arguments are walked
//! against the tool's schema and a key the schema does not have, at any depth, refuses the
//! call (an ignored `expectedReplacements` would replace fewer places than the agent meant, an
//! ignored `file_path` would search the whole workspace), naming the key by its full path and
//! the closest valid key at that place. For the dialects whose real tool accepts them
//! ([`coerces`]), numbers and booleans sent as strings are taken first. Known keys are then
//! type-checked by serde ([`parse`]), and every problem names the argument by its full path
//! (`fileEdits[0].edits[1].start_line`), says what was wrong, and recalls from the schema what
//! the argument is.

use filekit_core::FkError;
use schemars::{JsonSchema, generate::SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The JSON Schema of `T` as tool clients want it: one self-contained object schema, no
/// `$schema`/`title`/root description, no `$ref`s, no `"null"` in types (an optional argument
/// is simply not required), no Rust-specific `format`s.
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
        root.remove("description");
        root.remove("$defs");
    }
    tidy(&mut value);
    value
}

/// Removes what generic JSON Schema output adds but tool schemas should not carry.
fn tidy(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            // The `format` annotation (`uint`, `double`), not an argument named `format`.
            if obj.get("format").is_some_and(Value::is_string) {
                obj.remove("format");
            }
            // `["integer", "null"]` -> `"integer"`.
            if let Some(Value::Array(types)) = obj.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    obj.insert("type".into(), only);
                }
            }
            // `{"anyOf": [S, {"type": "null"}]}` -> S; also a one-member `oneOf`, which an enum
            // with variants hidden from the schema becomes.
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(any)) = obj.get(key) {
                    let non_null: Vec<Value> = any
                        .iter()
                        .filter(|s| {
                            s.get("type") != Some(&Value::from("null"))
                                && s.get("const") != Some(&Value::Null)
                        })
                        .cloned()
                        .collect();
                    if non_null.len() == 1 {
                        obj.remove(key);
                        if let Value::Object(inner) = &non_null[0] {
                            for (k, v) in inner {
                                obj.entry(k.clone()).or_insert_with(|| v.clone());
                            }
                        }
                    }
                }
            }
            // Doc comments keep their line wrapping; a description reads better unwrapped.
            if let Some(Value::String(d)) = obj.get_mut("description") {
                *d = unwrap_lines(d);
            }
            if let Some(Value::Array(values)) = obj.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            // A `"default": null` says nothing useful.
            if obj.get("default") == Some(&Value::Null) {
                obj.remove("default");
            }
            // Unknown keys are refused ([`prepare`]): the schema says so.
            if obj.contains_key("properties") && !obj.contains_key("additionalProperties") {
                obj.insert("additionalProperties".into(), Value::Bool(false));
            }
            for v in obj.values_mut() {
                tidy(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// An argument schema as a table that lists its arguments bare serves it ([`crate::BARE_ARGUMENTS`]):
/// the names, types, enums and what is required, no descriptions (the tool's description says
/// what a model must know, `docs/tools/` the rest), and the same constraints in fewer bytes:
/// a choice of constants is one `enum`, a choice of one-key objects (an edit that is
/// `{"create": ...}` or `{"str_replace": ...}`) one object that takes exactly one of the keys.
/// It accepts exactly the arguments the full schema accepts, but for `minimum: 0` and the
/// conditions that tie a command to its arguments (an `allOf` of `if`/`then`: fs_write's
/// `create` takes `file_text`), which the parsing still enforces and the tool's description
/// says.
pub(crate) fn bare(schema: &Value) -> Value {
    let mut schema = schema.clone();
    bare_in_place(&mut schema);
    schema
}

fn bare_in_place(node: &mut Value) {
    match node {
        Value::Object(obj) => {
            obj.remove("description");
            obj.remove("examples");
            let conditions = |branches: &Vec<Value>| {
                branches
                    .iter()
                    .all(|b| b.get("if").is_some() && b.get("then").is_some())
            };
            if obj
                .get("allOf")
                .and_then(Value::as_array)
                .is_some_and(conditions)
            {
                obj.remove("allOf");
            }
            if obj.get("minimum") == Some(&Value::from(0)) {
                obj.remove("minimum");
            }
            for (k, v) in obj.iter_mut() {
                match (k.as_str(), v) {
                    // A map of argument names to schemas: the names are arguments, not keywords.
                    ("properties", Value::Object(props)) => {
                        props.values_mut().for_each(bare_in_place)
                    }
                    (_, v) => bare_in_place(v),
                }
            }
            for key in ["oneOf", "anyOf"] {
                let Some(Value::Array(branches)) = obj.get(key) else {
                    continue;
                };
                if let Some(values) = constants(branches) {
                    obj.remove(key);
                    obj.insert("type".into(), Value::from("string"));
                    obj.insert("enum".into(), Value::Array(values));
                } else if let Some(props) = one_key_objects(branches) {
                    obj.remove(key);
                    obj.insert("type".into(), Value::from("object"));
                    obj.insert("properties".into(), Value::Object(props));
                    obj.insert("minProperties".into(), Value::from(1));
                    obj.insert("maxProperties".into(), Value::from(1));
                    obj.insert("additionalProperties".into(), Value::Bool(false));
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(bare_in_place),
        _ => {}
    }
}

/// The values of a choice of string constants.
fn constants(branches: &[Value]) -> Option<Vec<Value>> {
    branches
        .iter()
        .map(|b| {
            let b = b.as_object()?;
            let c = b.get("const").filter(|c| c.is_string())?;
            b.keys()
                .all(|k| k == "const" || k == "type")
                .then(|| c.clone())
        })
        .collect()
}

/// The keys and schemas of a choice of objects that each have exactly one key, required, and
/// refuse others.
fn one_key_objects(branches: &[Value]) -> Option<serde_json::Map<String, Value>> {
    let mut all = serde_json::Map::new();
    for b in branches {
        let b = b.as_object()?;
        let props = b.get("properties")?.as_object()?;
        let (key, schema) = props.iter().next().filter(|_| props.len() == 1)?;
        let required = b.get("required")?.as_array()?;
        let closed = b.get("additionalProperties") == Some(&Value::Bool(false));
        if required.len() != 1 || required[0] != *key || !closed || all.contains_key(key) {
            return None;
        }
        all.insert(key.clone(), schema.clone());
    }
    Some(all)
}

/// Joins the lines of a paragraph with spaces; blank lines and list items stay.
fn unwrap_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            let starts_block = line.is_empty() || line.starts_with("- ") || out.ends_with('\n');
            out.push(if starts_block { '\n' } else { ' ' });
        }
        out.push_str(line);
    }
    out
}

/// The dialects whose real tool takes numbers and booleans sent as strings (`"3"`, `"true"`)
/// for its number and boolean arguments. Claude Code does (its tool schemas wrap them in a
/// preprocess that turns `"3"` into 3 and `"true"`/`"false"` into booleans); the Amazon Q CLI
/// (serde) and Desktop Commander (zod without coercion) refuse them, and the other dialects
/// are filekit's own. The schemas keep describing the canonical types.
pub(crate) fn coerces(dialect: &str) -> bool {
    dialect == "claude"
}

/// Removes the arguments a dialect's real tool takes and ignores where ignoring them cannot
/// change what the call does (each table decides which, and says why); one that would is
/// refused with what to send instead.
pub(crate) fn drop_ignored(dialect: &str, tool: &str, args: &mut Value) -> Result<(), FkError> {
    match dialect {
        "mcp-filesystem" => crate::mcp_filesystem::drop_ignored(tool, args),
        "desktop-commander" => crate::desktop_commander_files::drop_ignored(tool, args),
        // The Q CLI's serde structs and Codex's `ApplyPatchToolArgs` ignore a key they do
        // not name; both read and write UTF-8 text, as filekit does a UTF-8 file.
        "amazonq" | "codex" => {
            let Some(obj) = args.as_object_mut() else {
                return Ok(());
            };
            take_utf8_encoding(tool, obj)?;
            for inner in ["operations", "fileEdits"] {
                if let Some(Value::Array(entries)) = obj.get_mut(inner) {
                    for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                        take_utf8_encoding(tool, entry)?;
                    }
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Removes `encoding` from the arguments `obj` of a drop-in table's tool whose real tool takes
/// and ignores it, when it names UTF-8: the real tool reads and writes UTF-8 whatever it says,
/// which filekit does of a UTF-8 file. Another label is refused: the agent would expect the file
/// decoded or written in it, which the real tool would not do and this table does on its own
/// (each file in its encoding, detected), so what is meant is unclear.
pub(crate) fn take_utf8_encoding(
    tool: &str,
    obj: &mut serde_json::Map<String, Value>,
) -> Result<(), FkError> {
    let Some(given) = obj.get("encoding") else {
        return Ok(());
    };
    let utf8 = given
        .as_str()
        .and_then(|label| filekit_core::encoding::by_label(label).ok())
        .is_some_and(|e| e.name() == "UTF-8");
    if !utf8 {
        return Err(FkError::invalid(format!(
            "{tool}: `encoding` {given} is not taken: this table reads and edits each file in \
             its own encoding, detected (UTF-8, UTF-16 by its byte order mark, Latin-1, \
             Shift_JIS, ...)"
        ))
        .with_hint(
            "leave `encoding` out (or give \"utf-8\"); to name a file's encoding, use the \
             curated table's read_files or edit_files (`encoding`)",
        ));
    }
    obj.remove("encoding");
    Ok(())
}

/// Readies a call's arguments for its tool: coerces strings where the dialect's real tool
/// does ([`coerces`]), then refuses any key the tool's schema does not have, at any depth.
/// Arguments that are not an object are left for [`parse`] to refuse. A refusal is
/// INVALID_ARGUMENT naming each unknown key by its full path, the closest valid key at that
/// place, and what that place takes; nothing has been done when it comes back.
pub(crate) fn prepare(
    tool: &str,
    schema: &Value,
    coerce: bool,
    args: &mut Value,
) -> Result<(), FkError> {
    if !args.is_object() {
        return Ok(());
    }
    if coerce {
        coerce_strings(schema, args);
    }
    let mut unknown = Vec::new();
    find_unknown(schema, args, "", &mut unknown);
    if unknown.is_empty() {
        return Ok(());
    }
    Err(unknown_error(tool, &unknown))
}

/// A key the schema does not have: where, what the closest valid key there is, and all the
/// valid keys there.
struct Unknown {
    path: String,
    parent: String,
    closest: Option<String>,
    valid: Vec<String>,
    /// Where the key belongs when it is an argument one level down (`path` of `read_files`
    /// goes in each of `files`): the containing argument, and the call's shape with it there.
    inside: Option<(String, String)>,
}

fn unknown_error(tool: &str, unknown: &[Unknown]) -> FkError {
    let one = |u: &Unknown| match &u.closest {
        Some(c) => format!("`{}`; did you mean `{c}`?", u.path),
        None => format!("`{}`", u.path),
    };
    let takes = |u: &Unknown| {
        let place = if u.parent.is_empty() {
            tool.to_string()
        } else {
            format!("`{}`", u.parent)
        };
        if u.valid.is_empty() {
            format!("{place} takes no arguments")
        } else {
            format!("{place} takes: {}", u.valid.join(", "))
        }
    };
    let message = if let [u] = unknown {
        format!("{tool}: unknown argument {} ({})", one(u), takes(u))
    } else {
        let listed: Vec<String> = unknown.iter().map(one).collect();
        let mut places: Vec<String> = Vec::new();
        for u in unknown {
            let t = takes(u);
            if !places.contains(&t) {
                places.push(t);
            }
        }
        format!(
            "{tool}: unknown arguments {} ({})",
            listed.join(" "),
            places.join("; ")
        )
    };
    let renames: Vec<String> = unknown
        .iter()
        .filter_map(|u| {
            u.closest
                .as_ref()
                .map(|c| format!("`{c}` instead of `{}`", u.path))
        })
        .collect();
    let moves: Vec<String> = unknown
        .iter()
        .filter_map(|u| {
            u.inside
                .as_ref()
                .map(|(arg, shape)| format!("`{}` goes inside `{arg}`: {shape}", u.path))
        })
        .collect();
    let hint = if !moves.is_empty() {
        format!(
            "nothing was done: {}; send the call again in that shape",
            moves.join("; ")
        )
    } else if renames.is_empty() {
        "nothing was done: leave out what the tool does not take and send the call again"
            .to_string()
    } else {
        format!(
            "nothing was done: send the call again with {}",
            renames.join(", ")
        )
    };
    let details: Vec<Value> = unknown
        .iter()
        .map(|u| {
            object(vec![
                ("argument", Some(Value::from(u.path.clone()))),
                ("closest", u.closest.clone().map(Value::from)),
                ("valid", Some(Value::from(u.valid.clone()))),
            ])
        })
        .collect();
    FkError::invalid(message)
        .with_hint(hint)
        .with_details(serde_json::json!({ "unknown_arguments": details }))
}

/// What an object value may hold according to the schemas that apply to it.
#[derive(Default)]
struct ObjectView<'a> {
    /// Any key is allowed (a free-form object, or `additionalProperties: true`).
    open: bool,
    /// The named keys, in schema order, each with the schemas that describe its value.
    keys: Vec<(&'a str, Vec<&'a Value>)>,
    /// Schemas of the values of a map (`additionalProperties: {schema}`): any key.
    map_values: Vec<&'a Value>,
}

impl<'a> ObjectView<'a> {
    fn of(node: &'a Value, value: &Value) -> ObjectView<'a> {
        let mut applied = Vec::new();
        collect_applied(node, value, &mut applied);
        let mut view = ObjectView::default();
        let mut any_properties = false;
        let mut closed = false;
        for s in applied {
            if let Some(Value::Object(props)) = s.get("properties") {
                any_properties = true;
                for (k, v) in props {
                    match view.keys.iter_mut().find(|(name, _)| name == k) {
                        Some((_, schemas)) => schemas.push(v),
                        None => view.keys.push((k.as_str(), vec![v])),
                    }
                }
            }
            match s.get("additionalProperties") {
                Some(Value::Bool(true)) => view.open = true,
                Some(Value::Bool(false)) => closed = true,
                Some(extra @ Value::Object(_)) => view.map_values.push(extra),
                _ => {}
            }
            if s.get("patternProperties").is_some() {
                view.open = true;
            }
        }
        // A schema that names no key and does not close the object says nothing about keys.
        if !any_properties && !closed && view.map_values.is_empty() {
            view.open = true;
        }
        view
    }

    fn schemas_of(&self, key: &str) -> Option<Vec<&'a Value>> {
        match self.keys.iter().find(|(name, _)| *name == key) {
            Some((_, schemas)) => Some(schemas.clone()),
            None if !self.map_values.is_empty() => Some(self.map_values.clone()),
            None if self.open => Some(Vec::new()),
            None => None,
        }
    }
}

/// `node` and every subschema that applies to `value` with it: the members of `allOf`, the
/// branches of `anyOf`/`oneOf` that fit the value, and `then` or `else` as `if` decides.
fn collect_applied<'a>(node: &'a Value, value: &Value, out: &mut Vec<&'a Value>) {
    if !node.is_object() || out.len() > 64 {
        return;
    }
    out.push(node);
    if let Some(Value::Array(all)) = node.get("allOf") {
        for s in all {
            collect_applied(s, value, out);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(key) {
            for b in fitting_branches(branches, value) {
                collect_applied(b, value, out);
            }
        }
    }
    if let Some(cond) = node.get("if") {
        let branch = if if_holds(cond, value) {
            node.get("then")
        } else {
            node.get("else")
        };
        if let Some(b) = branch {
            collect_applied(b, value, out);
        }
    }
}

/// The branches of an `anyOf`/`oneOf` that fit `value`: of its type, not contradicted by a
/// `const`/`enum` of a key the value has (`{"op": "move"}` rules out the `delete` branch),
/// and, when some branch has all its required keys in the value, only those. When none fits,
/// all of them (the key check then offers every branch's keys).
fn fitting_branches<'a>(branches: &'a [Value], value: &Value) -> Vec<&'a Value> {
    let consistent: Vec<&Value> = branches
        .iter()
        .filter(|b| type_allows(b, value) && consts_agree(b, value))
        .collect();
    let complete: Vec<&Value> = consistent
        .iter()
        .copied()
        .filter(|b| required_present(b, value))
        .collect();
    if !complete.is_empty() {
        complete
    } else if !consistent.is_empty() {
        consistent
    } else {
        branches.iter().collect()
    }
}

fn type_allows(schema: &Value, value: &Value) -> bool {
    let name = match value {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::Null => "null",
    };
    let fits = |t: &Value| {
        t.as_str()
            .is_some_and(|t| t == name || (t == "integer" && name == "number"))
    };
    match schema.get("type") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(fits),
        Some(t) => fits(t),
    }
}

fn consts_agree(schema: &Value, value: &Value) -> bool {
    let (Some(Value::Object(props)), Value::Object(given)) = (schema.get("properties"), value)
    else {
        return true;
    };
    props.iter().all(|(k, p)| match given.get(k) {
        None => true,
        Some(v) => {
            p.get("const").is_none_or(|c| c == v)
                && p.get("enum")
                    .and_then(Value::as_array)
                    .is_none_or(|e| e.contains(v))
        }
    })
}

fn required_present(schema: &Value, value: &Value) -> bool {
    let Value::Object(given) = value else {
        return true;
    };
    schema
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .all(|k| given.contains_key(k))
        })
}

fn if_holds(cond: &Value, value: &Value) -> bool {
    consts_agree(cond, value) && required_present(cond, value)
}

/// The schemas that describe the items of an array value.
fn item_schemas<'a>(schemas: &[&'a Value], value: &Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    for s in schemas {
        let mut applied = Vec::new();
        collect_applied(s, value, &mut applied);
        for a in applied {
            match a.get("items") {
                Some(items @ Value::Object(_)) => out.push(items),
                Some(Value::Array(tuple)) => out.extend(tuple.iter()),
                _ => {}
            }
            if let Some(Value::Array(prefix)) = a.get("prefixItems") {
                out.extend(prefix.iter());
            }
        }
    }
    out
}

/// Walks `value` against `schemas` (any of which may describe it) and lists the keys none of
/// them has.
fn find_unknown_in(schemas: &[&Value], value: &Value, path: &str, out: &mut Vec<Unknown>) {
    match value {
        Value::Object(map) => {
            // One view over every schema that may describe this object.
            let combined;
            let node = match schemas {
                [] => return,
                [one] => *one,
                many => {
                    combined = serde_json::json!({ "anyOf": many });
                    &combined
                }
            };
            let view = ObjectView::of(node, value);
            for (k, v) in map {
                let child_path = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match view.schemas_of(k) {
                    Some(children) => find_unknown_in(&children, v, &child_path, out),
                    None => {
                        let valid: Vec<String> =
                            view.keys.iter().map(|(k, _)| k.to_string()).collect();
                        let inside = belongs_inside(&view, k, v);
                        out.push(Unknown {
                            // A key that belongs one level down is not a misspelling here.
                            closest: if inside.is_some() {
                                None
                            } else {
                                closest_key(k, &valid)
                            },
                            path: child_path,
                            parent: path.to_string(),
                            valid,
                            inside,
                        });
                    }
                }
            }
        }
        Value::Array(items) => {
            let item_schemas = item_schemas(schemas, value);
            if item_schemas.is_empty() {
                return;
            }
            for (i, item) in items.iter().enumerate() {
                find_unknown_in(&item_schemas, item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The argument of `view` whose value (an object, or a list of objects) takes `key`, and the
/// shape of the call with `key` there, `value` as its value: `{"files": [{"path": "a.py"}]}`.
fn belongs_inside(view: &ObjectView, key: &str, value: &Value) -> Option<(String, String)> {
    let takes = |s: &Value| {
        s.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(key))
    };
    let shown = match value {
        Value::String(t) if t.chars().count() > 40 => Value::from("..."),
        Value::String(_) | Value::Number(_) | Value::Bool(_) => value.clone(),
        _ => Value::from("..."),
    };
    view.keys.iter().find_map(|(name, schemas)| {
        schemas.iter().find_map(|s| {
            let inner = serde_json::json!({ key: shown.clone() });
            if takes(s) {
                Some(serde_json::json!({ *name: inner }))
            } else if s.get("items").is_some_and(takes) {
                Some(serde_json::json!({ *name: [inner] }))
            } else {
                None
            }
            .map(|shape| (name.to_string(), shape.to_string()))
        })
    })
}

fn find_unknown(schema: &Value, value: &Value, path: &str, out: &mut Vec<Unknown>) {
    find_unknown_in(&[schema], value, path, out);
}

/// Names that mean the same thing in the tools agents know: a key sent under one of them is
/// pointed to the one this tool takes (`file_path` to Grep's `path`, `include` to its `glob`).
/// Hints only: nothing is renamed.
const SYNONYMS: &[&[&str]] = &[
    &[
        "file_path",
        "path",
        "filepath",
        "file",
        "filename",
        "target_file",
    ],
    &["old_string", "old_str", "old", "search", "old_text"],
    &[
        "new_string",
        "new_str",
        "new",
        "replace",
        "new_text",
        "replacement",
    ],
    &["pattern", "regex", "query", "search"],
    &["glob", "include", "includes", "file_pattern", "filter"],
    &["file_text", "content", "contents", "text", "new_content"],
    &[
        "ignore_case",
        "-i",
        "case_insensitive",
        "insensitive",
        "nocase",
        "icase",
    ],
    &["path", "directory", "dir", "folder", "cwd"],
    &["limit", "max_lines", "lines", "count"],
    &["offset", "start_line", "start", "line"],
];

/// Lower case, without `_` and `-`: `replaceAll`, `replace_all` and `-replace-all` agree.
fn normalize(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The valid key closest to `key`: the same name in another case style, then a synonym, then
/// the most similar name (if similar enough).
fn closest_key(key: &str, valid: &[String]) -> Option<String> {
    let wanted = normalize(key);
    if let Some(v) = valid.iter().find(|v| normalize(v) == wanted) {
        return Some(v.clone());
    }
    for group in SYNONYMS {
        if group.iter().any(|g| normalize(g) == wanted)
            && let Some(v) = group
                .iter()
                .find_map(|g| valid.iter().find(|v| normalize(v) == normalize(g)))
        {
            return Some(v.clone());
        }
    }
    valid
        .iter()
        .map(|v| {
            let candidate = normalize(v);
            let mut score = strsim::normalized_damerau_levenshtein(&wanted, &candidate);
            if wanted.len() >= 3 && (candidate.contains(&wanted) || wanted.contains(&candidate)) {
                score = score.max(0.7);
            }
            (score, v)
        })
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, v)| v.clone())
}

/// Turns `"3"` into 3 and `"true"`/`"false"` into booleans where the schema wants a number or
/// a boolean (the real tool's tolerance; see [`coerces`]). Other strings stay as they are, for
/// serde to refuse with the argument's name.
fn coerce_strings(schema: &Value, value: &mut Value) {
    coerce_in(&[schema], value);
}

fn coerce_in(schemas: &[&Value], value: &mut Value) {
    match value {
        Value::Object(_) => {
            let combined;
            let node = match schemas {
                [] => return,
                [one] => *one,
                many => {
                    combined = serde_json::json!({ "anyOf": many });
                    &combined
                }
            };
            let view = ObjectView::of(node, value);
            let Value::Object(map) = value else {
                return;
            };
            for (k, v) in map.iter_mut() {
                let Some(children) = view.schemas_of(k) else {
                    continue;
                };
                if let Value::String(s) = v {
                    if let Some(new) = coerced(&children, s) {
                        *v = new;
                    }
                } else {
                    coerce_in(&children, v);
                }
            }
        }
        Value::Array(_) => {
            let items = item_schemas(schemas, value);
            if let Value::Array(values) = value {
                for v in values.iter_mut() {
                    if let Value::String(s) = v {
                        if let Some(new) = coerced(&items, s) {
                            *v = new;
                        }
                    } else {
                        coerce_in(&items, v);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The number or boolean a string stands for, when the schemas want one and none takes a
/// string.
fn coerced(schemas: &[&Value], s: &str) -> Option<Value> {
    let mut types = Vec::new();
    for schema in schemas {
        let mut applied = Vec::new();
        collect_applied(schema, &Value::String(s.to_string()), &mut applied);
        for a in applied {
            match a.get("type") {
                Some(Value::String(t)) => types.push(t.as_str()),
                Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str)),
                _ => {}
            }
        }
    }
    if types.contains(&"string") {
        return None;
    }
    if types.contains(&"boolean") {
        match s {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    if types.iter().any(|t| *t == "integer" || *t == "number") && is_decimal(s) {
        if s.contains('.') {
            return s
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number);
        }
        if let Ok(n) = s.parse::<i64>() {
            return Some(Value::from(n));
        }
        if let Ok(n) = s.parse::<u64>() {
            return Some(Value::from(n));
        }
    }
    None
}

/// `-?digits(.digits)?`: the strings the real tool reads as numbers.
fn is_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    digits(int) && frac.is_none_or(digits)
}

/// Parses a tool's arguments into `T`. On failure the error names the tool, the argument's
/// path and type, and what the argument is for (from `schema`).
pub(crate) fn parse<T: DeserializeOwned>(
    tool: &str,
    schema: &Value,
    args: Value,
) -> Result<T, FkError> {
    if !args.is_object() {
        return Err(FkError::invalid(format!(
            "{tool}: the arguments must be a JSON object, not {}",
            kind_of(&args)
        ))
        .with_hint(format!(
            "send the arguments as an object, for example {}",
            example_object(schema)
        )));
    }
    serde_path_to_error::deserialize::<_, T>(args)
        .map_err(|e| describe_error(tool, schema, &e.path().to_string(), &e.inner().to_string()))
}

/// [`parse`] for a table that spells the arguments of `T` (snake_case fields) in camelCase:
/// `schema` is that table's (camelCase) schema, and every problem names the argument as the
/// table spells it.
pub(crate) fn parse_camel<T: DeserializeOwned>(
    tool: &str,
    schema: &Value,
    args: Value,
) -> Result<T, FkError> {
    if !args.is_object() {
        return parse(tool, schema, args);
    }
    serde_path_to_error::deserialize::<_, T>(crate::reply::snake_keys(args)).map_err(|e| {
        let path = crate::reply::camel(&e.path().to_string());
        let message = e.inner().to_string();
        let message = match message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            Some(field) => format!("missing field `{}`", crate::reply::camel(field)),
            None => message,
        };
        describe_error(tool, schema, &path, &message)
    })
}

/// [`parse`] without taking the arguments: for checking one part of them on its own.
pub(crate) fn parse_ref<T: DeserializeOwned>(
    tool: &str,
    schema: &Value,
    args: &Value,
) -> Result<T, FkError> {
    serde_path_to_error::deserialize::<_, T>(args)
        .map_err(|e| describe_error(tool, schema, &e.path().to_string(), &e.inner().to_string()))
}

fn describe_error(tool: &str, schema: &Value, path: &str, message: &str) -> FkError {
    // serde reports a missing field at the path of the object that lacks it.
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let full = if path == "." || path.is_empty() {
            field.to_string()
        } else {
            format!("{path}.{field}")
        };
        let about = schema_at(schema, &full).map(describe).unwrap_or_default();
        return FkError::invalid(format!("{tool}: missing required argument `{full}`{about}"))
            .with_hint(format!("add `{full}` to the arguments"));
    }
    let about_node = schema_at(schema, path);
    let mut about = about_node.map(describe).unwrap_or_default();
    let message = match (
        message.strip_prefix("unknown variant"),
        about_node.and_then(enum_values),
    ) {
        // serde lists every variant it knows, including those the schema does not offer yet.
        // The values are listed once: the schema's type and description would list them again.
        (Some(rest), Some(allowed)) => {
            let given = rest.split(',').next().unwrap_or("").trim();
            about.clear();
            format!(
                "unknown value {given}, expected one of: {}",
                allowed.join(", ")
            )
        }
        // serde names the Rust type an object is read into; the caller needs its shape.
        _ => match (message.split_once(", expected struct "), about_node) {
            (Some((given, _)), Some(node)) if node.get("properties").is_some() => {
                about.clear();
                format!(
                    "{given}, expected an object such as {}",
                    example_object(node)
                )
            }
            _ => message.to_string(),
        },
    };
    FkError::invalid(format!("{tool}: argument `{path}`: {message}{about}"))
        .with_hint("fix this argument's value to match its type and send the call again")
}

/// The schema node for an argument path such as `fileEdits[0].edits[1].start_line`.
fn schema_at<'a>(schema: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = schema;
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let (name, indexes) = match segment.find('[') {
            Some(i) => (&segment[..i], segment[i..].matches('[').count()),
            None => (segment, 0),
        };
        if !name.is_empty() {
            node = node.get("properties")?.get(name)?;
        }
        for _ in 0..indexes {
            node = node.get("items")?;
        }
    }
    Some(node)
}

fn enum_values(node: &Value) -> Option<Vec<String>> {
    let values = node
        .get("enum")
        .or_else(|| node.get("items")?.get("enum"))?;
    Some(
        values
            .as_array()?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .collect(),
    )
}

/// ` (integer: The first line ...)`: the argument's type and the first sentence of its
/// description, to remind the caller what it is for.
fn describe(node: &Value) -> String {
    let ty = type_name(node);
    let desc = node
        .get("description")
        .and_then(Value::as_str)
        .map(first_sentence)
        .unwrap_or_default();
    match (ty.is_empty(), desc.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" ({ty})"),
        (true, false) => format!(" ({desc})"),
        (false, false) => format!(" ({ty}: {desc})"),
    }
}

fn type_name(node: &Value) -> String {
    if let Some(values) = enum_values(node).filter(|_| node.get("enum").is_some()) {
        return format!("one of {}", values.join(", "));
    }
    match node.get("type").and_then(Value::as_str) {
        Some("array") => match node
            .get("items")
            .and_then(|i| i.get("type"))
            .and_then(Value::as_str)
        {
            Some(item) => format!("array of {item}s"),
            None => "array".into(),
        },
        Some(t) => t.to_string(),
        None => String::new(),
    }
}

fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map(|i| i + 1).unwrap_or(text.len());
    let s = &text[..end];
    if s.chars().count() > 160 {
        let cut: String = s.chars().take(157).collect();
        format!("{cut}...")
    } else {
        s.to_string()
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `{"path": ..., "content": ...}` built from the schema's required arguments.
fn example_object(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = required.iter().map(|r| format!("\"{r}\": ...")).collect();
    format!("{{{}}}", fields.join(", "))
}

/// A required-when argument that a command needs but was not given, e.g. `old_str` for
/// `str_replace`. `path` is where it belongs (`fileEdits[0].edits[2]`, or "" at the top).
pub(crate) fn missing_for(
    tool: &str,
    schema: &Value,
    path: &str,
    field: &str,
    why: &str,
) -> FkError {
    let full = if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    };
    let about = schema_at(schema, &full).map(describe).unwrap_or_default();
    FkError::invalid(format!("{tool}: missing argument `{full}`{about}: {why}"))
        .with_hint(format!("add `{full}` to the arguments"))
}

/// A JSON object from pairs, leaving out `None` values (replies omit absent fields).
pub(crate) fn object(pairs: Vec<(&str, Option<Value>)>) -> Value {
    let mut map = Map::new();
    for (k, v) in pairs {
        if let Some(v) = v {
            map.insert(k.to_string(), v);
        }
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// The first line. More text.
        start_line: i64,
        kind: Option<Kind>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Kind {
        Line,
        #[schemars(skip)]
        Hidden,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        /// Where to write.
        path: String,
        #[serde(rename = "fileEdits")]
        file_edits: Option<Vec<Inner>>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "op", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Op {
        Delete {
            path: String,
            recursive: Option<bool>,
        },
        Move {
            from: String,
            to: String,
        },
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Ops {
        operations: Vec<Op>,
        /// A map: any key.
        vars: Option<std::collections::BTreeMap<String, String>>,
        count: Option<u32>,
        ratio: Option<f64>,
        flag: Option<bool>,
        name: Option<String>,
        /// An argument named like the schema annotation `format` (`uint`), which is dropped.
        format: Option<u32>,
    }

    fn refused(schema: &Value, args: Value) -> FkError {
        let mut args = args;
        prepare("t", schema, false, &mut args).expect_err("refused")
    }

    #[test]
    fn unknown_keys_are_refused_at_any_depth_with_the_closest_valid_key() {
        let s = schema_for::<Outer>();
        let e = refused(
            &s,
            serde_json::json!({"path": "a", "fileEdits": [{"start_line": 1}, {"startLine": 2}]}),
        );
        assert_eq!(e.code, filekit_core::ErrorCode::InvalidArgument);
        assert!(
            e.message.contains(
                "unknown argument `fileEdits[1].startLine`; did you mean `start_line`? \
                 (`fileEdits[1]` takes: start_line, kind)"
            ),
            "{}",
            e.message
        );
        assert_eq!(
            e.details["unknown_arguments"][0]["closest"], "start_line",
            "{:?}",
            e.details
        );
        // At the top: the tool's own keys are listed; a synonym points to the key it means.
        let e = refused(&s, serde_json::json!({"path": "a", "file_path": "b"}));
        assert!(
            e.message
                .contains("`file_path`; did you mean `path`? (t takes: path, fileEdits)"),
            "{}",
            e.message
        );
        // Several at once, each named.
        let e = refused(&s, serde_json::json!({"path": "a", "x1": 1, "zzzz": 2}));
        assert!(e.message.contains("`x1`") && e.message.contains("`zzzz`"));
        // Known keys pass, whatever their values (serde checks those).
        let mut ok = serde_json::json!({"path": 1, "fileEdits": "nope"});
        prepare("t", &s, false, &mut ok).unwrap();
    }

    #[test]
    fn a_key_of_an_inner_object_sent_at_the_top_gets_the_right_shape() {
        let s = schema_for::<Outer>();
        let e = refused(&s, serde_json::json!({"path": "a", "start_line": 3}));
        assert!(
            e.hint.as_deref().is_some_and(|h| h.contains(
                "`start_line` goes inside `fileEdits`: {\"fileEdits\":[{\"start_line\":3}]}"
            )),
            "{e:?}"
        );
        assert_eq!(e.details["unknown_arguments"][0]["closest"], Value::Null);
    }

    #[test]
    fn branches_are_chosen_by_their_tag_and_maps_take_any_key() {
        let s = schema_for::<Ops>();
        // `recursive` is a key of `delete`, not of `move`.
        let e = refused(
            &s,
            serde_json::json!({"operations": [{"op": "move", "from": "a", "to": "b", "recursive": true}]}),
        );
        assert!(
            e.message
                .contains("`operations[0].recursive` (`operations[0]` takes: op, from, to)"),
            "{}",
            e.message
        );
        // An argument named `format` is kept; the annotation `format: uint32` is not.
        assert_eq!(
            s["properties"]["format"],
            serde_json::json!({"type": "integer", "minimum": 0, "description": "An argument named like the schema annotation `format` (`uint`), which is dropped."})
        );
        let mut ok = serde_json::json!({
            "operations": [{"op": "delete", "path": "a", "recursive": true}],
            "vars": {"anything": "goes"},
            "format": 3
        });
        prepare("t", &s, false, &mut ok).unwrap();
    }

    #[test]
    fn strings_are_coerced_only_where_the_dialect_coerces_and_the_schema_wants_it() {
        let s = schema_for::<Ops>();
        let args = serde_json::json!({
            "operations": [],
            "count": "3", "ratio": "0.5", "flag": "true", "name": "7"
        });
        let mut coerced = args.clone();
        prepare("t", &s, true, &mut coerced).unwrap();
        assert_eq!(
            coerced,
            serde_json::json!({
                "operations": [], "count": 3, "ratio": 0.5, "flag": true, "name": "7"
            })
        );
        // What does not read as a number or a boolean stays, for serde to refuse by name.
        let mut odd = serde_json::json!({"operations": [], "count": "3x", "flag": "yes"});
        prepare("t", &s, true, &mut odd).unwrap();
        assert_eq!(odd["count"], "3x");
        assert_eq!(odd["flag"], "yes");
        // Without coercion nothing changes.
        let mut kept = args.clone();
        prepare("t", &s, false, &mut kept).unwrap();
        assert_eq!(kept, args);
    }

    #[test]
    fn closest_keys_prefer_the_same_name_then_a_synonym_then_a_similar_one() {
        let valid: Vec<String> = ["pattern", "path", "glob", "include_hidden", "head_limit"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            closest_key("headLimit", &valid).as_deref(),
            Some("head_limit")
        );
        assert_eq!(closest_key("include", &valid).as_deref(), Some("glob"));
        assert_eq!(closest_key("file_path", &valid).as_deref(), Some("path"));
        assert_eq!(closest_key("patern", &valid).as_deref(), Some("pattern"));
        assert_eq!(closest_key("qqqqqqqq", &valid), None);
        // A synonym wins over a longer name that merely contains the key.
        let edit: Vec<String> = ["path", "start_line", "new_content", "content_hash"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            closest_key("content", &edit).as_deref(),
            Some("new_content")
        );
        let grep = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            closest_key("case_insensitive", &grep(&["pattern", "ignore_case"])).as_deref(),
            Some("ignore_case")
        );
        assert_eq!(
            closest_key("case_insensitive", &grep(&["pattern", "-i", "-n"])).as_deref(),
            Some("-i")
        );
    }

    #[test]
    fn schema_is_tidy() {
        let s = schema_for::<Outer>();
        assert_eq!(s["properties"]["fileEdits"]["type"], "array");
        assert_eq!(
            s["properties"]["fileEdits"]["items"]["properties"]["start_line"]["type"],
            "integer"
        );
        assert_eq!(s["required"], serde_json::json!(["path"]));
        assert!(!s.to_string().contains("null"));
        assert!(!s.to_string().contains("Hidden"));
    }

    #[test]
    fn errors_name_the_argument_path_and_type() {
        let s = schema_for::<Outer>();
        let e = parse::<Outer>(
            "t",
            &s,
            serde_json::json!({"path": "a", "fileEdits": [{"start_line": "10"}]}),
        )
        .err()
        .unwrap();
        assert!(
            e.message.contains("fileEdits[0].start_line"),
            "{}",
            e.message
        );
        assert!(e.message.contains("expected i64"), "{}", e.message);
        assert!(
            e.message.contains("integer: The first line."),
            "{}",
            e.message
        );

        let e = parse::<Outer>("t", &s, serde_json::json!({"extra": 1}))
            .err()
            .unwrap();
        assert!(
            e.message
                .contains("missing required argument `path` (string: Where to write.)"),
            "{}",
            e.message
        );

        let e = parse::<Outer>(
            "t",
            &s,
            serde_json::json!({"path": "a", "fileEdits": [{"start_line": 1, "kind": "Nope"}]}),
        )
        .err()
        .unwrap();
        assert!(e.message.contains("expected one of: Line"), "{}", e.message);
        assert!(!e.message.contains("Hidden"), "{}", e.message);

        // A value where an object belongs: the object's shape, not the Rust type's name.
        let e = parse::<Outer>(
            "t",
            &s,
            serde_json::json!({"path": "a", "fileEdits": ["line 1"]}),
        )
        .err()
        .unwrap();
        assert!(
            e.message.contains(
                "argument `fileEdits[0]`: invalid type: string \"line 1\", expected an object \
                 such as {\"start_line\": ...}"
            ),
            "{}",
            e.message
        );
        assert!(!e.message.contains("Inner"), "{}", e.message);

        let e = parse::<Outer>("t", &s, serde_json::json!([1]))
            .err()
            .unwrap();
        assert!(e.message.contains("must be a JSON object"), "{}", e.message);
    }
}
