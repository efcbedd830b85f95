//! Tool replies as Rust types. A typed tool's reply is a struct (or enum) that derives
//! `Serialize` and `JsonSchema`: the JSON it answers with and its output schema come from that
//! one type, so a reply cannot carry a field its schema lacks, nor the schema promise a field
//! no reply has.
//!
//! [`schema`] is the one generator of output schemas, in two forms. The documented form
//! ([`SchemaForm::Documented`], in `docs/tools/`) is the whole type with its doc comments. The
//! listed form ([`listed`], what `tools/list` serves) is what a model needs to read a reply and
//! no more, because every byte of `tools/list` is paid for in every session: the fields' names
//! and types two levels deep (a reply's fields, and those of the objects it lists), no titles,
//! descriptions, formats or defaults, no `null` in the type of a field that is left out when
//! empty, enums as `enum` lists, a tagged enum's variants as one object. It accepts every
//! reply the documented form accepts.
//!
//! A new tool: give it a reply type (its fields snake_case or in the real tool's spelling,
//! `Option` fields with `skip_serializing_if`), build the reply as a value of it
//! ([`ToolReply::typed`]), list the tool with `reply: ReplySchema::Typed(
//! reply::schema::<ThatType>)`, and answer rejections with [`failure`] (or its table's
//! failure: [`CamelFailure`] for the tables that spell it `errorCode`).

use crate::ToolReply;
use filekit_core::FkError;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::{Map, Value};

/// Defines a reply type twice, field for field: as written (snake_case, the curated tables)
/// and in camelCase (the drop-in tables whose real tools spell `errorCode`), with a
/// conversion from the first to the second, so the two spellings cannot drift apart.
macro_rules! in_both_spellings {
    (
        $(#[$meta:meta])*
        struct $snake:ident, camel $camel:ident {
            $( $(#[$field_meta:meta])* $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Serialize, JsonSchema)]
        pub(crate) struct $snake {
            $( $(#[$field_meta])* $field: $ty, )*
        }

        #[doc = concat!("[`", stringify!($snake), "`] as the camelCase drop-in tables write it.")]
        #[derive(Serialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub(crate) struct $camel {
            $( $(#[$field_meta])* $field: $ty, )*
        }

        impl From<$snake> for $camel {
            fn from(reply: $snake) -> $camel {
                $camel { $( $field: reply.$field, )* }
            }
        }
    };
}

in_both_spellings! {
    /// The fields every typed reply may carry besides its own: a failed or rejected call
    /// answers with `success: false` and these instead of the report's fields, and any call
    /// may carry the `warning` that the history could not record.
    struct Failure, camel CamelFailure {
        success: bool,
        /// What went wrong and, after it, what to do.
        error: String,
        /// The stable code: NOT_FOUND, STALE, INVALID_ARGUMENT, ...
        error_code: &'static str,
        /// The facts of the failure (a near miss, the lines of an ambiguous match, the unknown
        /// arguments, a limit), as the engine or the argument check states them.
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<Details>,
        /// Something that did not fail the call (the history could not record it).
        #[serde(skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
    }
}

impl Failure {
    pub(crate) fn of(err: &FkError) -> Failure {
        Failure {
            success: false,
            error: err.full_message(),
            error_code: err.code.as_str(),
            details: (!err.details.is_null()).then(|| Details((*err.details).clone())),
            warning: None,
        }
    }
}

impl CamelFailure {
    pub(crate) fn of(err: &FkError) -> CamelFailure {
        Failure::of(err).into()
    }
}

in_both_spellings! {
    /// What went wrong with one part of a call (a file, an edit, a path): the same fields, with
    /// the same meaning, as a failed call's.
    struct PartError, camel CamelPartError {
        /// What went wrong and, after it, what to do.
        error: String,
        /// The stable code: NOT_FOUND, STALE, CONFLICT, ...
        error_code: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<Details>,
    }
}

impl PartError {
    pub(crate) fn of(err: &FkError) -> PartError {
        PartError {
            error: err.full_message(),
            error_code: err.code.as_str(),
            details: (!err.details.is_null()).then(|| Details((*err.details).clone())),
        }
    }
}

impl CamelPartError {
    pub(crate) fn of(err: &FkError) -> CamelPartError {
        PartError::of(err).into()
    }
}

/// An error's facts as an object. The engine states them as JSON ([`FkError::details`]); the
/// facts of one error (`fact`, `near_miss`, `limit`, ...) differ from another's.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Details(Value);

impl JsonSchema for Details {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Details".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

impl Details {
    /// Facts the engine states as a serializable value (a bound's facts, ...), as an object.
    pub(crate) fn of<T: Serialize>(facts: &T) -> Details {
        Details(to_value(facts))
    }
}

/// A typed tool's reply to a call it rejected or could not run: [`Failure`] as JSON.
pub(crate) fn failure(err: &FkError) -> Value {
    to_value(&Failure::of(err))
}

/// A reply as JSON. Serializing a reply type cannot fail (its maps have string keys); were it
/// to, the reply says so rather than vanish.
pub(crate) fn to_value<T: Serialize>(reply: &T) -> Value {
    serde_json::to_value(reply).unwrap_or_else(|e| {
        serde_json::json!({"success": false, "error": format!("internal error: the reply could not be serialized: {e}"), "error_code": "IO"})
    })
}

impl ToolReply {
    /// The reply of a typed tool: `reply` as JSON, and the text a model reads.
    pub(crate) fn typed<T: Serialize>(reply: &T, is_error: bool, text: String) -> ToolReply {
        ToolReply::new(to_value(reply), is_error, text)
    }
}

/// A reply type's keys in a table's spelling. Reply types name their fields in snake_case
/// (the curated table's convention); a table whose design spells them in camelCase (the semantic table's design's
/// `semantic` table) serves the same type with every field name converted, in its replies
/// ([`camel_keys`]) and in its schemas ([`camel_schema`]), so that the two tables cannot
/// drift apart. An error's `details` are the engine's facts and keep their own names.
pub(crate) fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The snake_case name of a camelCase key (`dryRun` -> `dry_run`): [`camel`] undone, for the
/// arguments a camelCase table receives.
pub(crate) fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Arguments with their names in snake_case (see [`snake`]), at every depth: a camelCase
/// table's call, parsed by the one argument type both tables share.
pub(crate) fn snake_keys(value: Value) -> Value {
    match value {
        Value::Object(obj) => Value::Object(
            obj.into_iter()
                .map(|(k, v)| (snake(&k), snake_keys(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(snake_keys).collect()),
        other => other,
    }
}

/// A reply with its field names in camelCase (see [`camel`]).
pub(crate) fn camel_keys(value: Value) -> Value {
    match value {
        Value::Object(obj) => Value::Object(
            obj.into_iter()
                .map(|(k, v)| {
                    let v = if k == "details" { v } else { camel_keys(v) };
                    (camel(&k), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

/// A reply schema with its field names in camelCase: the names in `properties` and
/// `required`, at every depth.
pub(crate) fn camel_schema(schema: Value) -> Value {
    match schema {
        Value::Object(obj) => Value::Object(
            obj.into_iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("properties", Value::Object(props)) => Value::Object(
                            props
                                .into_iter()
                                .map(|(name, p)| (camel(&name), camel_schema(p)))
                                .collect(),
                        ),
                        ("required", Value::Array(names)) => Value::Array(
                            names
                                .into_iter()
                                .map(|n| match n {
                                    Value::String(n) => Value::String(camel(&n)),
                                    n => n,
                                })
                                .collect(),
                        ),
                        (_, v) => camel_schema(v),
                    };
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_schema).collect()),
        other => other,
    }
}

/// How much of a reply's schema to give.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SchemaForm {
    /// What `tools/list` serves: [`compact`].
    Listed,
    /// With the types' doc comments as descriptions and no references: the long form, for
    /// the documentation pages (`docs/tools/`).
    Documented,
}

/// The output schema of a tool whose reply is `T`: `T`'s schema with the fields of a
/// [`Failure`] beside its own. Only what both have is required: a failed call answers with the
/// failure's fields, a call that ran with `T`'s.
pub(crate) fn schema<T: JsonSchema>(form: SchemaForm) -> Value {
    schema_failing::<T, Failure>(form)
}

/// [`schema`] of a tool whose failures carry more than a [`Failure`]'s fields (the file it
/// was about, ...): `F` is its failure type.
pub(crate) fn schema_failing<T: JsonSchema, F: JsonSchema>(form: SchemaForm) -> Value {
    match form {
        SchemaForm::Listed => listed(merge(
            inline_all(generate::<T>()),
            inline_all(generate::<F>()),
        )),
        SchemaForm::Documented => {
            let mut own = inline_all(generate::<T>());
            let mut failure = inline_all(generate::<F>());
            for schema in [&mut own, &mut failure] {
                if let Value::Object(root) = schema {
                    root.remove("title");
                }
            }
            // A reply of variants (an enum) is one of them or a failure: the failure is one
            // more variant.
            if let Value::Object(root) = &mut own {
                for key in ["oneOf", "anyOf"] {
                    if let Some(Value::Array(variants)) = root.get_mut(key) {
                        variants.push(failure.clone());
                    }
                }
            }
            merge(own, failure)
        }
    }
}

fn generate<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// `own`'s properties with those of `other` that it lacks; required: what both require.
fn merge(mut own: Value, other: Value) -> Value {
    let Value::Object(root) = &mut own else {
        return own;
    };
    let other_required = names(other.get("required"));
    let required: Vec<Value> = names(root.get("required"))
        .into_iter()
        .filter(|k| other_required.contains(k))
        .map(Value::from)
        .collect();
    let props = root
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let (Value::Object(props), Some(Value::Object(theirs))) = (props, other.get("properties")) {
        for (k, v) in theirs {
            props.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    if required.is_empty() {
        root.remove("required");
    } else {
        root.insert("required".into(), Value::Array(required));
    }
    own
}

fn names(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// How deep the listed schema names a reply's fields: the reply's own fields, and the fields
/// of the objects it lists (`files[].path`); deeper objects are listed as objects, and their
/// fields are in the documented schema (`docs/tools/`).
const LISTED_DEPTH: usize = 1;

/// What `tools/list` serves of a reply's schema (see the module's doc): its fields' names and
/// types to [`LISTED_DEPTH`], the variants of a tagged reply as one object with every
/// variant's fields (the tag an enum of their names), and only the reply's own `required`.
/// Every reply the full schema accepts, this one accepts: it leaves out, never adds.
pub(crate) fn listed(schema: Value) -> Value {
    let mut schema = inline_all(schema);
    strip(&mut schema);
    one_object_of_variants(&mut schema);
    cap(&mut schema, 0, true);
    schema
}

/// A `oneOf`/`anyOf` whose branches are all objects with fields (a tagged enum) as one object
/// with the fields of them all: where two variants give one field different schemas, the
/// field is either (the tag: an enum of the variants' names).
fn one_object_of_variants(node: &mut Value) {
    match node {
        Value::Object(obj) => {
            obj.values_mut().for_each(one_object_of_variants);
            for key in ["oneOf", "anyOf"] {
                let Some(Value::Array(branches)) = obj.get(key) else {
                    continue;
                };
                if branches.is_empty()
                    || !branches
                        .iter()
                        .all(|b| b.get("properties").is_some_and(Value::is_object))
                {
                    continue;
                }
                let Some(Value::Array(branches)) = obj.remove(key) else {
                    continue;
                };
                let mut fields = match obj.remove("properties") {
                    Some(Value::Object(p)) => p,
                    _ => Map::new(),
                };
                for branch in branches {
                    let Some(Value::Object(props)) = branch.get("properties").cloned() else {
                        continue;
                    };
                    for (k, v) in props {
                        match fields.get_mut(&k) {
                            None => {
                                fields.insert(k, v);
                            }
                            Some(mine) => either(mine, v),
                        }
                    }
                }
                obj.insert("type".into(), Value::from("object"));
                obj.insert("properties".into(), Value::Object(fields));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(one_object_of_variants),
        _ => {}
    }
}

/// `mine` widened to accept `theirs` too: constants as one enum, different schemas as `anyOf`.
fn either(mine: &mut Value, theirs: Value) {
    if *mine == theirs {
        return;
    }
    let values = |v: &Value| -> Option<Vec<Value>> {
        v.get("const")
            .map(|c| vec![c.clone()])
            .or_else(|| v.get("enum").and_then(Value::as_array).cloned())
    };
    if let (Some(mut a), Some(b)) = (values(mine), values(&theirs)) {
        for v in b {
            if !a.contains(&v) {
                a.push(v);
            }
        }
        let ty = mine.get("type").cloned();
        let mut merged = Map::new();
        if let Some(ty) = ty {
            merged.insert("type".into(), ty);
        }
        merged.insert("enum".into(), Value::Array(a));
        *mine = Value::Object(merged);
        return;
    }
    match mine.get_mut("anyOf") {
        Some(Value::Array(any)) if !any.contains(&theirs) => any.push(theirs),
        Some(Value::Array(_)) => {}
        _ => *mine = serde_json::json!({"anyOf": [mine.clone(), theirs]}),
    }
}

/// Lists the objects below [`LISTED_DEPTH`] as objects, and drops `required` below the root.
fn cap(node: &mut Value, depth: usize, root: bool) {
    let Value::Object(obj) = node else {
        return;
    };
    if !root {
        obj.remove("required");
    }
    if obj.contains_key("properties") && depth >= LISTED_DEPTH {
        obj.retain(|k, _| k == "type");
        obj.insert("type".into(), Value::from("object"));
        return;
    }
    for (k, v) in obj.iter_mut() {
        match (k.as_str(), v) {
            ("properties", Value::Object(props)) => {
                props.values_mut().for_each(|p| cap(p, depth + 1, false));
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(branches)) => {
                branches.iter_mut().for_each(|b| cap(b, depth, false));
            }
            ("items", items) => cap(items, depth, false),
            _ => {}
        }
    }
}

/// The schema with every definition written out (no `$ref`): for documentation, where size
/// does not matter and a reader should not have to follow references.
fn inline_all(mut schema: Value) -> Value {
    let defs = take_defs(&mut schema);
    for _ in 0..=defs.len() {
        if !write_out(&mut schema, &defs) {
            break;
        }
    }
    schema
}

fn take_defs(schema: &mut Value) -> Map<String, Value> {
    match schema.as_object_mut().and_then(|r| r.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    }
}

fn def_name(reference: &str) -> Option<&str> {
    reference.strip_prefix("#/$defs/")
}

/// Replaces each `$ref` by the definition it names (with the `$ref`'s sibling keywords over
/// it). True when something was replaced.
fn write_out(node: &mut Value, defs: &Map<String, Value>) -> bool {
    match node {
        Value::Object(obj) => {
            let target = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(def_name)
                .and_then(|n| defs.get(n));
            if let Some(Value::Object(def)) = target {
                let mut written = def.clone();
                obj.remove("$ref");
                for (k, v) in std::mem::take(obj) {
                    merge_keyword(&mut written, k, v);
                }
                *obj = written;
                write_out(node, defs);
                return true;
            }
            let mut changed = false;
            for v in obj.values_mut() {
                changed |= write_out(v, defs);
            }
            changed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, v| write_out(v, defs) | changed),
        _ => false,
    }
}

/// Puts a keyword of a `$ref`'s schema over the definition it names: the properties and
/// the required names of both (a tagged enum's variant adds its tag to its struct's fields),
/// any other keyword the `$ref`'s.
fn merge_keyword(def: &mut Map<String, Value>, key: String, value: Value) {
    match (def.get_mut(&key), value) {
        (Some(Value::Object(mine)), Value::Object(theirs)) if key == "properties" => {
            for (k, v) in theirs {
                mine.insert(k, v);
            }
        }
        (Some(Value::Array(mine)), Value::Array(theirs)) if key == "required" => {
            for v in theirs {
                if !mine.contains(&v) {
                    mine.push(v);
                }
            }
        }
        (_, value) => {
            def.insert(key, value);
        }
    }
}

/// Takes out of a schema what a model does not need to read a reply.
fn strip(node: &mut Value) {
    match node {
        Value::Object(obj) => {
            // A map of names to schemas: the names are the reply's, not keywords.
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                props.values_mut().for_each(strip);
            }
            for key in ["title", "description", "default", "examples", "$schema"] {
                obj.remove(key);
            }
            // `format: uint` and the like: Rust's integer widths, not the reply's.
            if obj.get("format").is_some_and(Value::is_string) {
                obj.remove("format");
            }
            if obj.get("minimum") == Some(&Value::from(0)) {
                obj.remove("minimum");
            }
            // A field left out when empty never holds `null`.
            let required = names(obj.get("required"));
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                for (k, v) in props.iter_mut() {
                    if !required.contains(k) {
                        drop_null(v);
                    }
                }
            }
            for (k, v) in obj.iter_mut() {
                if k != "properties" {
                    strip(v);
                }
            }
            enum_of_consts(obj);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

/// Takes `null` out of a schema's types: `["string", "null"]` is `"string"`, an `anyOf` of a
/// schema and `null` is that schema.
fn drop_null(node: &mut Value) {
    let Value::Object(obj) = node else {
        return;
    };
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            obj.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(any)) = obj.get_mut("anyOf") {
        any.retain(|s| s.get("type") != Some(&Value::from("null")));
        if any.len() == 1
            && let Value::Object(only) = any.remove(0)
        {
            obj.remove("anyOf");
            for (k, v) in only {
                obj.entry(k).or_insert(v);
            }
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
}

/// `oneOf` of bare `const` strings (a Rust enum of unit variants with doc comments, once the
/// comments are gone) as one `enum`.
fn enum_of_consts(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("oneOf") else {
        return;
    };
    let values: Option<Vec<Value>> = branches
        .iter()
        .map(|b| {
            let b = b.as_object()?;
            let c = b.get("const").filter(|c| c.is_string())?;
            b.keys()
                .all(|k| k == "const" || k == "type")
                .then(|| c.clone())
        })
        .collect();
    if let Some(values) = values {
        obj.remove("oneOf");
        obj.insert("type".into(), Value::from("string"));
        obj.insert("enum".into(), Value::Array(values));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum Status {
        /// Written.
        Written,
        /// Left as it was.
        Unchanged,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Big {
        /// A long comment that the listing does not carry.
        path: String,
        status: Status,
        #[serde(skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
        lines_added: usize,
        lines_removed: usize,
        edits_applied: usize,
        edits_failed: usize,
        written: bool,
        note: Option<String>,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Small {
        line: u64,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Described {
        /// A field named like a keyword.
        description: String,
        title: String,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Tagged {
        Described(Described),
        Other { size: u64 },
    }

    #[test]
    fn a_tagged_enum_is_listed_as_one_object_with_every_variants_fields() {
        let s = schema::<Tagged>(SchemaForm::Listed);
        assert_eq!(
            s["properties"]["kind"],
            json!({"type": "string", "enum": ["described", "other"]}),
            "{s}"
        );
        // Fields named like keywords stay fields.
        for k in ["description", "title", "size"] {
            assert!(s["properties"].get(k).is_some(), "{k}: {s}");
        }
        assert!(s.get("oneOf").is_none(), "{s}");
        // Documented, the variants stay apart, and a failure is one more: a failed call's
        // reply has no variant's tag.
        let d = schema::<Tagged>(SchemaForm::Documented);
        let variants = d["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), 3, "{d}");
        assert_eq!(
            variants[2]["required"],
            json!(["success", "error", "error_code"]),
            "{d}"
        );
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    /// A reply.
    struct Reply {
        success: bool,
        files: Vec<Big>,
        skipped: Vec<Big>,
        #[serde(skip_serializing_if = "Option::is_none")]
        first: Option<Small>,
        #[serde(skip_serializing_if = "Option::is_none")]
        history_entry: Option<i64>,
    }

    #[test]
    fn a_reply_schema_carries_what_a_model_reads_and_no_more() {
        let s = schema::<Reply>(SchemaForm::Listed);
        let text = s.to_string();
        for gone in [
            "title",
            "description",
            "format",
            "A long comment",
            "$ref",
            "$defs",
        ] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
        // The failure's fields are beside the reply's; only what both have is required.
        assert_eq!(s["required"], json!(["success"]));
        for k in ["error", "error_code", "details", "warning", "history_entry"] {
            assert!(s["properties"].get(k).is_some(), "{k}: {text}");
        }
        // Left out when empty: never null.
        assert_eq!(s["properties"]["history_entry"], json!({"type": "integer"}));
        // One level: the reply's fields; the fields of what it lists are in the documented
        // form.
        assert_eq!(
            s["properties"]["files"],
            json!({"type": "array", "items": {"type": "object"}})
        );
        assert_eq!(s["properties"]["first"], json!({"type": "object"}));
        let full = schema::<Reply>(SchemaForm::Documented);
        let big = &full["properties"]["files"]["items"];
        assert!(big["properties"]["note"].is_object(), "{full}");
        // An enum of documented unit variants is one enum list.
        let e = schema::<WithStatus>(SchemaForm::Listed);
        assert_eq!(
            e["properties"]["status"],
            json!({"type": "string", "enum": ["Written", "Unchanged"]})
        );
        let d = schema::<Deep>(SchemaForm::Listed);
        assert_eq!(d["properties"]["outer"], json!({"type": "object"}), "{d}");
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct WithStatus {
        status: Status,
        success: bool,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        inner: Small,
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Deep {
        outer: Outer,
    }

    #[test]
    fn the_documented_schema_keeps_the_comments_and_has_no_references() {
        let s = schema::<Reply>(SchemaForm::Documented);
        let text = s.to_string();
        assert!(text.contains("A long comment that the listing does not carry."));
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    }

    #[test]
    fn a_failure_is_a_reply_of_the_schema() {
        let err = FkError::invalid("t: `files` is empty").with_hint("list the files");
        let v = failure(&err);
        assert_eq!(v["success"], false);
        assert_eq!(v["error"], err.full_message());
        assert_eq!(v["error_code"], "INVALID_ARGUMENT");
        assert!(v.get("details").is_none(), "{v}");
        let s = schema::<Reply>(SchemaForm::Listed);
        for k in v.as_object().unwrap().keys() {
            assert!(s["properties"].get(k).is_some(), "{k}");
        }
    }
}
