//! Tool arguments: one Rust struct per tool is the single source of truth for both the JSON
//! Schema a model is shown and the parser that checks what it sends.
//!
//! Unknown fields are accepted (agents add their own), known ones are type-checked, and every
//! problem names the argument by its full path (`fileEdits[0].edits[1].start_line`), says
//! what was wrong, and recalls from the schema what the argument is.

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
            obj.remove("format");
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
            for v in obj.values_mut() {
                tidy(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
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
    let about = about_node.map(describe).unwrap_or_default();
    let message = match (
        message.strip_prefix("unknown variant"),
        about_node.and_then(enum_values),
    ) {
        // serde lists every variant it knows, including those the schema does not offer yet.
        (Some(rest), Some(allowed)) => {
            let given = rest.split(',').next().unwrap_or("").trim();
            format!(
                "unknown value {given}, expected one of: {}",
                allowed.join(", ")
            )
        }
        _ => message.to_string(),
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

        let e = parse::<Outer>("t", &s, serde_json::json!([1]))
            .err()
            .unwrap();
        assert!(e.message.contains("must be a JSON object"), "{}", e.message);
    }
}
