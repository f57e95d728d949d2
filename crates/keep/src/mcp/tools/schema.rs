//! Tool schemas every client can read: references to `$defs` are inlined
//! (some clients do not resolve them), no `type` is an array, and no
//! `format` is a Rust type name. An
//! argument that may be null is simply optional; a result field that may
//! be null says so with `anyOf`.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};

/// Nesting depth past which references are left as they are (a type that
/// contains itself).
const MAX_INLINE_DEPTH: usize = 16;

/// Whether a schema describes what a client sends or what it receives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Input,
    Output,
}

/// The portable form of `schema`.
pub fn portable(schema: Arc<JsonObject>, side: Side) -> Arc<JsonObject> {
    let mut root = schema.as_ref().clone();
    let defs = root.remove("$defs").and_then(|d| match d {
        Value::Object(map) => Some(map),
        _ => None,
    });
    let mut value = Value::Object(root);
    rewrite(&mut value, defs.as_ref(), side, 0);
    match value {
        Value::Object(map) => Arc::new(map),
        _ => schema,
    }
}

/// `schema` without what a model does not need to call the tool well:
/// `$schema` and titles, defaults that say what leaving a value out says
/// anyway (null, false, 0, an empty list), the bounds integer types add
/// (0 and 255), and a choice of constants written as `enum`.
pub fn compact(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    let mut value = Value::Object(schema.as_ref().clone());
    shrink(&mut value);
    match value {
        Value::Object(map) => Arc::new(map),
        _ => schema,
    }
}

fn shrink(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("$schema");
            if !matches!(map.get("title"), Some(Value::Object(_))) {
                map.remove("title");
            }
            let plain_default = matches!(
                map.get("default"),
                Some(Value::Null | Value::Bool(false)) | Some(Value::Array(_))
            ) || map.get("default") == Some(&json!(0));
            if plain_default
                && !matches!(map.get("default"), Some(Value::Array(a)) if !a.is_empty())
            {
                map.remove("default");
            }
            if map.get("minimum") == Some(&json!(0)) {
                map.remove("minimum");
            }
            if map.get("maximum") == Some(&json!(255)) {
                map.remove("maximum");
            }
            constants_as_enum(map);
            for child in map.values_mut() {
                shrink(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shrink),
        _ => {}
    }
}

/// `oneOf` of string constants (each with its own description) as one
/// `enum`.
fn constants_as_enum(map: &mut Map<String, Value>) {
    let Some(Value::Array(choices)) = map.get("oneOf") else {
        return;
    };
    let constants: Option<Vec<Value>> = choices.iter().map(|c| c.get("const").cloned()).collect();
    if let Some(constants) = constants {
        map.remove("oneOf");
        map.insert("type".into(), json!("string"));
        map.insert("enum".into(), Value::Array(constants));
    }
}

fn rewrite(value: &mut Value, defs: Option<&Map<String, Value>>, side: Side, depth: usize) {
    match value {
        Value::Object(map) => {
            inline_reference(map, defs, depth);
            for child in map.values_mut() {
                rewrite(child, defs, side, depth + 1);
            }
            drop_null_type(map, side);
            drop_rust_format(map);
        }
        Value::Array(items) => {
            for item in items {
                rewrite(item, defs, side, depth + 1);
            }
        }
        _ => {}
    }
}

/// Replaces `{"$ref": "#/$defs/Name", ...}` with the definition, keeping
/// the referring schema's own keywords (its description).
fn inline_reference(map: &mut Map<String, Value>, defs: Option<&Map<String, Value>>, depth: usize) {
    if depth > MAX_INLINE_DEPTH {
        return;
    }
    let Some(name) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    else {
        return;
    };
    let Some(Value::Object(definition)) = defs.and_then(|d| d.get(name)) else {
        return;
    };
    map.remove("$ref");
    for (key, value) in definition {
        map.entry(key.clone()).or_insert_with(|| value.clone());
    }
}

/// `type: [X, "null"]` and `anyOf: [S, {type: null}]`: an input becomes
/// X (or S) and stays optional; an output's type array becomes `anyOf`.
fn drop_null_type(map: &mut Map<String, Value>, side: Side) {
    if let Some(Value::Array(types)) = map.get("type") {
        let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let nullable = others.len() < types.len();
        let single = match others.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(others),
        };
        if nullable && side == Side::Output {
            map.remove("type");
            map.insert(
                "anyOf".into(),
                json!([{ "type": single }, { "type": "null" }]),
            );
        } else {
            map.insert("type".into(), single);
        }
    }
    if side == Side::Input
        && let Some(Value::Array(options)) = map.get("anyOf")
    {
        let kept: Vec<Value> = options
            .iter()
            .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if let [Value::Object(only)] = kept.as_slice() {
            let only = only.clone();
            map.remove("anyOf");
            for (key, value) in only {
                map.entry(key).or_insert(value);
            }
        } else if kept.len() < options.len() {
            map.insert("anyOf".into(), Value::Array(kept));
        }
    }
}

/// Number formats named after Rust types (`uint8`, `int64`, `double`)
/// are not JSON Schema formats and clients warn about them; the bounds
/// that matter (`minimum: 0`, `maximum`) are kept.
fn drop_rust_format(map: &mut Map<String, Value>) {
    const RUST_FORMATS: [&str; 12] = [
        "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64",
        "float", "double",
    ];
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| RUST_FORMATS.contains(&f))
    {
        map.remove("format");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Arc<JsonObject> {
        match value {
            Value::Object(map) => Arc::new(map),
            _ => unreachable!("an object literal"),
        }
    }

    #[test]
    fn inputs_lose_null_types_and_references() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "id": { "type": ["string", "null"], "description": "An id." },
                "order": { "anyOf": [{ "$ref": "#/$defs/Order" }, { "type": "null" }] }
            },
            "$defs": { "Order": { "type": "string", "enum": ["newest", "oldest"] } }
        }));
        let out = Value::Object(portable(schema, Side::Input).as_ref().clone());
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "id": { "type": "string", "description": "An id." },
                    "order": { "type": "string", "enum": ["newest", "oldest"] }
                }
            })
        );
    }

    #[test]
    fn outputs_say_null_with_any_of() {
        let schema = object(json!({
            "type": "object",
            "properties": { "rank": { "type": ["integer", "null"], "format": "uint" } }
        }));
        let out = Value::Object(portable(schema, Side::Output).as_ref().clone());
        assert_eq!(
            out["properties"]["rank"],
            json!({ "anyOf": [{ "type": "integer" }, { "type": "null" }] })
        );
    }
}
