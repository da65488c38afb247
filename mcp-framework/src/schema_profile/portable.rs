//! The `Portable` transform: what every major client accepts. Each rule says which client
//! behaviour it answers (the guide's "Schemas and client compatibility" chapter has the
//! table).

use serde_json::{Map, Number, Value, json};

use super::inline::inline_refs;
use super::rules::{Role, SchemaRule, SchemaViolation, Shaped};
use super::walk::{COMBINATORS, Path, walk};
use crate::schema::is_object_schema;

/// The formats every major client accepts. Gemini refuses any other string format
/// ("only 'enum' and 'date-time' are supported for STRING type"), validators in strict
/// mode (Ajv) refuse formats they do not know, such as schemars' `"uint32"` or `"double"`.
pub(super) const FORMATS: &[&str] = &["date-time"];

/// The JSON Schema 2020-12 meta-schema, the only `$schema` the transform understands.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Applies the `Portable` rules to `shaped.schema`.
pub(super) fn apply(shaped: &mut Shaped, role: Role) {
    let pointer = role.pointer();
    // `$schema` inside a tool schema: clients that embed tool schemas in larger documents
    // (OpenAI, Gemini) refuse it, and 2020-12 is MCP's default anyway.
    if let Some(dialect) = shaped.schema.get("$schema").and_then(Value::as_str) {
        if dialect.trim_end_matches('#') == DIALECT {
            shaped.schema.remove("$schema");
        } else {
            shaped.violations.push(SchemaViolation::new(
                SchemaRule::Dialect,
                format!("{pointer}/$schema"),
                format!("`$schema: {dialect}` is not JSON Schema 2020-12"),
            ));
        }
    }
    // `$ref`/`$defs`: Gemini has no references; others refuse a root `$ref` without
    // `type: "object"`.
    inline_refs(&mut shaped.schema, pointer, &mut shaped.violations);
    let mut root = Value::Object(std::mem::take(&mut shaped.schema));
    walk(&mut root, &Path::Root(pointer), &mut |schema, _| {
        if let Value::Object(obj) = schema {
            let seen = Seen::of(obj);
            formats(obj, &seen);
            if seen.lower_bound || seen.upper_bound || seen.dropped_format.is_some() {
                safe_bounds(obj);
            }
            arrays(obj, &seen);
            if seen.true_property {
                true_properties(obj);
            }
            if role == Role::Output {
                nullable_as_any_of(obj);
            }
        }
    });
    shaped.schema = match root {
        Value::Object(obj) => obj,
        _ => unreachable!("the walk keeps the root an object"),
    };
    let combinators: Vec<&str> = COMBINATORS
        .iter()
        .copied()
        .filter(|k| shaped.schema.keys().any(|key| key == k))
        .collect();
    match role {
        // Clients build argument forms and function declarations from the root object's
        // properties: a root `oneOf`/`anyOf`/`allOf`/`if` is refused or silently dropped
        // (OpenAI, Claude, Gemini).
        Role::Input => {
            if !combinators.is_empty() {
                shaped.violations.push(SchemaViolation::new(
                    SchemaRule::RootCombinator,
                    pointer,
                    format!(
                        "the input schema has `{}` at its root",
                        combinators.join("`, `")
                    ),
                ));
            }
        }
        // Clients that validate `structuredContent` expect an object root (as the
        // 2025-06-18 and 2025-11-25 revisions required): other outputs go out wrapped.
        Role::Output => {
            shaped.wrap = !is_object_schema(&shaped.schema) || !combinators.is_empty();
        }
    }
}

/// What one schema object holds of the keywords the transform rewrites, found in one pass
/// over its members: a tool's schemas are mostly small objects, where comparing a few names
/// costs less than hashing each keyword looked up (start-up shapes every schema of every
/// tool).
#[derive(Debug, Default)]
struct Seen {
    /// `format`, when it is a string the transform drops (not one of [`FORMATS`]), with
    /// the range of its integer width.
    dropped_format: Option<(Option<Number>, Option<Number>)>,
    /// `minimum` or `exclusiveMinimum` is there.
    lower_bound: bool,
    /// `maximum` or `exclusiveMaximum` is there.
    upper_bound: bool,
    /// `type` admits arrays, or `prefixItems` is there.
    array: bool,
    /// `prefixItems` is there (whatever its value).
    prefix_items: bool,
    /// `items` is there and is not `true`.
    items: bool,
    /// `properties` has a `true` member.
    true_property: bool,
}

impl Seen {
    fn of(obj: &Map<String, Value>) -> Self {
        let mut seen = Self::default();
        for (key, value) in obj {
            match (key.as_str(), value) {
                ("format", Value::String(format)) if !FORMATS.contains(&format.as_str()) => {
                    seen.dropped_format = Some(integer_range(format));
                }
                ("minimum" | "exclusiveMinimum", _) => seen.lower_bound = true,
                ("maximum" | "exclusiveMaximum", _) => seen.upper_bound = true,
                ("type", Value::String(t)) => seen.array |= t == "array",
                ("type", Value::Array(ts)) => seen.array |= ts.iter().any(|t| t == "array"),
                ("prefixItems", _) => {
                    seen.prefix_items = true;
                    seen.array = true;
                }
                ("items", Value::Bool(true)) => {}
                ("items", _) => seen.items = true,
                ("properties", Value::Object(props)) => {
                    seen.true_property = props.values().any(|p| *p == Value::Bool(true));
                }
                _ => {}
            }
        }
        seen
    }
}

/// Schemars' formats for Rust numbers (`"uint32"`, `"int64"`, `"double"`…) and standard
/// formats outside [`FORMATS`] go; an integer width stays as `minimum`/`maximum`.
fn formats(obj: &mut Map<String, Value>, seen: &Seen) {
    let Some((min, max)) = seen.dropped_format.clone() else {
        return;
    };
    obj.remove("format");
    for (key, present, bound) in [
        ("minimum", seen.lower_bound, min),
        ("maximum", seen.upper_bound, max),
    ] {
        if let Some(bound) = bound
            && !present
        {
            obj.insert(key.to_owned(), Value::Number(bound));
        }
    }
}

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Integer bounds beyond JavaScript's safe integers go (`u64`'s `maximum`,
/// 18446744073709551615): clients written in JavaScript (the Inspector among them) cannot
/// hold them. Dropped, not narrowed, so that every value the server accepts still fits the
/// schema clients see; the server checks the Rust type's whole range.
fn safe_bounds(obj: &mut Map<String, Value>) {
    for key in ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"] {
        let beyond = match obj.get(key) {
            Some(Value::Number(n)) => n
                .as_i64()
                .map(|v| v.unsigned_abs())
                .or_else(|| n.as_u64())
                .is_some_and(|v| v > MAX_SAFE_INTEGER),
            _ => false,
        };
        if beyond {
            obj.remove(key);
        }
    }
}

/// Optional properties of the input schema (those not in their object's `required`) as
/// absent-or-`T`: `type: [T, "null"]` and schemars' `anyOf: [T, {type: null}]` lose their
/// `null` (and `enum`s their `null` member). The Inspector's strict mode warns on the
/// nullable shapes, and its forms send `"2"` for them; a client that omits the property
/// says the same thing. The server still accepts `null`: it validates against the schema
/// as defined.
pub(super) fn optional_without_null(shaped: &mut Shaped) {
    let mut root = Value::Object(std::mem::take(&mut shaped.schema));
    walk(&mut root, &Path::Root(""), &mut |schema, _| {
        let Value::Object(obj) = schema else { return };
        let required: Vec<String> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                if !required.contains(name)
                    && let Value::Object(prop) = prop
                {
                    without_null(prop);
                }
            }
        }
    });
    shaped.schema = match root {
        Value::Object(obj) => obj,
        _ => unreachable!("the walk keeps the root an object"),
    };
}

/// An output schema's `type: [T, "null"]` (an `Option<T>` field, serialized as `null` when
/// `None`) as `anyOf: [{type: T}, {type: "null"}]`: the same values, in the shape clients
/// that map schemas onto a single-`type` dialect accept (the Inspector's strict mode warns
/// on the array). The other keywords stay beside it (they constrain the `T` branch's values
/// only, as before). Left alone when the schema has an `anyOf` already.
fn nullable_as_any_of(obj: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = obj.get("type") else {
        return;
    };
    let [a, b] = types.as_slice() else { return };
    let other = match (a.as_str(), b.as_str()) {
        (Some("null"), Some(t)) | (Some(t), Some("null")) if t != "null" => t.to_owned(),
        _ => return,
    };
    if obj.contains_key("anyOf") {
        return;
    }
    obj.remove("type");
    obj.insert("anyOf".into(), json!([{"type": other}, {"type": "null"}]));
}

/// One schema without `null`, when it admits something else.
fn without_null(prop: &mut Map<String, Value>) {
    let null = json!({"type": "null"});
    if let Some(Value::Array(types)) = prop.get_mut("type")
        && types.len() > 1
    {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            prop.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = prop.get_mut("enum")
        && values.len() > 1
    {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = prop.get_mut(key) else {
            continue;
        };
        if branches.len() < 2 || !branches.contains(&null) {
            continue;
        }
        branches.retain(|b| *b != null);
        // One branch left: it becomes the schema (its keywords beside the description and
        // default the property already has).
        let only = match branches.as_slice() {
            [Value::Object(only)] => only.clone(),
            _ => continue,
        };
        if !only.keys().any(|k| prop.contains_key(k) && k != key) {
            prop.remove(key);
            for (k, v) in only {
                prop.insert(k, v);
            }
        }
    }
}

/// The range of schemars' integer formats (`int`/`uint` are 64-bit `isize`/`usize`; the
/// 128-bit ones have no bound a JSON number keeps exactly).
fn integer_range(format: &str) -> (Option<Number>, Option<Number>) {
    let signed = |bits: u32| {
        let max = i64::MAX >> (64 - bits);
        (Some(Number::from(-max - 1)), Some(Number::from(max)))
    };
    let unsigned = |bits: u32| {
        let max = u64::MAX >> (64 - bits);
        (Some(Number::from(0u64)), Some(Number::from(max)))
    };
    match format {
        "int8" => signed(8),
        "int16" => signed(16),
        "int32" => signed(32),
        "int64" | "int" => signed(64),
        "uint8" => unsigned(8),
        "uint16" => unsigned(16),
        "uint32" => unsigned(32),
        "uint64" | "uint" => unsigned(64),
        "uint128" => (Some(Number::from(0u64)), None),
        _ => (None, None),
    }
}

/// Every array gets `items` (VS Code refuses arrays without): a missing one is `{}`, a
/// tuple's `prefixItems` become `items` admitting each element type (the positions are
/// lost; the server still checks them).
fn arrays(obj: &mut Map<String, Value>, seen: &Seen) {
    if !seen.array {
        return;
    }
    if seen.prefix_items
        && let Some(Value::Array(elements)) = obj.remove("prefixItems")
    {
        let mut kinds: Vec<Value> = Vec::new();
        let rest = obj.remove("items");
        for element in elements
            .into_iter()
            .chain(rest.filter(|r| r != &json!(false)))
        {
            let element = if element == json!(true) {
                json!({})
            } else {
                element
            };
            if !kinds.contains(&element) {
                kinds.push(element);
            }
        }
        let items = match kinds.len() {
            0 => json!({}),
            1 => kinds.remove(0),
            _ => json!({"anyOf": kinds}),
        };
        obj.insert("items".into(), items);
    } else if !seen.items {
        obj.insert("items".into(), json!({}));
    }
}

/// `true` properties (`serde_json::Value`) as `{}`: the same meaning, and a schema object
/// where clients expect one.
fn true_properties(obj: &mut Map<String, Value>) {
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for prop in props.values_mut() {
            if *prop == json!(true) {
                *prop = json!({});
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_profile::{SchemaProfile, shape};

    #[allow(clippy::needless_pass_by_value)] // test cases read best as `json!` literals
    fn portable(role: Role, schema: Value) -> Shaped {
        shape(
            SchemaProfile::Portable,
            role,
            schema.as_object().unwrap().clone(),
        )
    }

    #[test]
    fn formats_become_ranges() {
        let s = portable(
            Role::Input,
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "b": {"type": "integer", "format": "int32"},
                "c": {"type": "integer", "format": "uint64", "minimum": 1},
                "d": {"type": "number", "format": "double"},
                "e": {"type": "string", "format": "date-time"},
                "f": {"type": "string", "format": "uri"},
                "g": {"type": "integer", "format": "int64"},
                "h": {"type": "integer", "format": "int128"}
            }}),
        );
        assert_eq!(
            Value::Object(s.schema),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0, "maximum": 255},
                "b": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647},
                "c": {"type": "integer", "minimum": 1},
                "d": {"type": "number"},
                "e": {"type": "string", "format": "date-time"},
                "f": {"type": "string"},
                "g": {"type": "integer"},
                "h": {"type": "integer"}
            }})
        );
    }

    #[test]
    fn bounds_stay_within_safe_integers() {
        let s = portable(
            Role::Output,
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0, "maximum": u64::MAX},
                "b": {"type": "integer", "exclusiveMinimum": i64::MIN, "maximum": 10},
                "c": {"type": "integer", "maximum": MAX_SAFE_INTEGER},
                "d": {"type": "number", "maximum": 1.5e300}
            }}),
        );
        assert_eq!(
            Value::Object(s.schema),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0},
                "b": {"type": "integer", "maximum": 10},
                "c": {"type": "integer", "maximum": MAX_SAFE_INTEGER},
                "d": {"type": "number", "maximum": 1.5e300}
            }})
        );
    }

    #[test]
    fn optional_inputs_are_absent_or_t() {
        let input = json!({"type": "object", "properties": {
            "a": {"type": ["integer", "null"], "minimum": 0},
            "b": {"anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}], "description": "B."},
            "c": {"type": ["string", "null"], "enum": ["x", null]},
            "d": {"type": ["integer", "null"]},
            "e": {"type": "object", "properties": {"f": {"type": ["boolean", "null"]}}}
        }, "required": ["d"]});
        let s = portable(Role::Input, input.clone());
        assert_eq!(
            Value::Object(s.schema),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0},
                "b": {"type": "string", "enum": ["x", "y"], "description": "B."},
                "c": {"type": "string", "enum": ["x"]},
                "d": {"type": ["integer", "null"]},
                "e": {"type": "object", "properties": {"f": {"type": "boolean"}}}
            }, "required": ["d"]})
        );
        // Outputs keep `null` (a `None` is serialized as one), as a branch of its own; and
        // `OpenAiStrict` inputs keep the array, as OpenAI asks.
        let s = portable(Role::Output, input.clone());
        assert_eq!(
            Value::Object(s.schema["properties"]["a"].as_object().unwrap().clone()),
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "minimum": 0})
        );
        assert_eq!(
            s.schema["properties"]["e"]["properties"]["f"],
            json!({"anyOf": [{"type": "boolean"}, {"type": "null"}]})
        );
        let s = shape(
            SchemaProfile::OpenAiStrict,
            Role::Input,
            input.as_object().unwrap().clone(),
        );
        assert_eq!(
            s.schema["properties"]["a"]["type"],
            json!(["integer", "null"])
        );
    }

    #[test]
    fn arrays_get_items() {
        let s = portable(
            Role::Input,
            json!({"type": "object", "properties": {
                "any": {"type": "array"},
                "t": {"type": "array", "items": true},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2},
                "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]},
                "v": true
            }}),
        );
        assert_eq!(
            Value::Object(s.schema),
            json!({"type": "object", "properties": {
                "any": {"type": "array", "items": {}},
                "t": {"type": "array", "items": {}},
                "pair": {"type": "array", "minItems": 2, "maxItems": 2,
                         "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                "same": {"type": "array", "items": {"type": "string"}},
                "v": {}
            }})
        );
    }

    #[test]
    fn dialects() {
        let s = portable(
            Role::Input,
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        );
        assert_eq!(Value::Object(s.schema), json!({"type": "object"}));
        let s = portable(
            Role::Input,
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
        );
        assert_eq!(s.violations[0].rule(), SchemaRule::Dialect);
        assert_eq!(s.violations[0].pointer(), "/inputSchema/$schema");
    }

    #[test]
    fn roots() {
        let s = portable(
            Role::Input,
            json!({"type": "object", "anyOf": [{"required": ["a"]}], "if": {}, "then": {}}),
        );
        assert_eq!(s.violations.len(), 1);
        assert_eq!(s.violations[0].rule(), SchemaRule::RootCombinator);
        assert!(
            s.violations[0].message().contains("`anyOf`, `if`, `then`"),
            "{}",
            s.violations[0]
        );

        for (output, wrap) in [
            (json!({"type": "object", "properties": {}}), false),
            (json!({"type": "array", "items": {"type": "integer"}}), true),
            (
                json!({"oneOf": [{"type": "object"}, {"type": "string"}]}),
                true,
            ),
            (
                json!({"type": "object", "anyOf": [{"type": "object"}]}),
                true,
            ),
            (
                json!({"$ref": "#/$defs/O", "$defs": {"O": {"type": "object"}}}),
                false,
            ),
        ] {
            let s = portable(Role::Output, output.clone());
            assert_eq!(s.wrap, wrap, "{output}");
            assert!(s.violations.is_empty());
        }
    }
}
