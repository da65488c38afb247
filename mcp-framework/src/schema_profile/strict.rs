//! The `OpenAiStrict` transform of an input schema, after `Portable`: OpenAI's strict
//! function calling wants every property required and `additionalProperties: false` on
//! every object, so optional properties become required and nullable
//! (`type: [T, "null"]`). Clients send `null` for them, which `Option<T>` reads as `None`.

use serde_json::{Map, Value, json};

use super::rules::{Role, SchemaRule, SchemaViolation, Shaped};
use super::walk::{Path, walk};

/// Applies the strict rules to `shaped.schema` (an input schema).
pub(super) fn apply(shaped: &mut Shaped) {
    let mut root = Value::Object(std::mem::take(&mut shaped.schema));
    let violations = &mut shaped.violations;
    walk(
        &mut root,
        &Path::Root(Role::Input.pointer()),
        &mut |schema, path| {
            if let Value::Object(obj) = schema {
                nullable_union(obj);
                if is_object(obj) {
                    close(obj, path, violations);
                    require_all(obj, path, violations);
                }
            }
        },
    );
    shaped.schema = match root {
        Value::Object(obj) => obj,
        _ => unreachable!("the walk keeps the root an object"),
    };
}

fn is_object(obj: &Map<String, Value>) -> bool {
    match obj.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => obj.contains_key("properties"),
    }
}

/// `additionalProperties: false`, or a violation for maps.
fn close(obj: &mut Map<String, Value>, path: &Path<'_>, out: &mut Vec<SchemaViolation>) {
    let open = match obj.get("additionalProperties") {
        None | Some(Value::Bool(false)) => false,
        Some(_) => true,
    } || obj.contains_key("patternProperties");
    if open {
        out.push(SchemaViolation::new(
            SchemaRule::OpenObject,
            path.to_string(),
            "a map (an object with `additionalProperties` or `patternProperties`) has no \
             form in OpenAI's strict mode, which needs `additionalProperties: false`"
                .to_owned(),
        ));
    } else {
        obj.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// Every property in `required`: optional ones must accept `null`.
fn require_all(obj: &mut Map<String, Value>, path: &Path<'_>, out: &mut Vec<SchemaViolation>) {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
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
    let mut all = Vec::with_capacity(props.len());
    for (name, prop) in props {
        if !required.contains(name) && !accepts_null(prop) {
            out.push(SchemaViolation::new(
                SchemaRule::OptionalField,
                path.key("properties").key(name).to_string(),
                format!(
                    "`{name}` is optional but does not accept `null`: OpenAI's strict mode \
                     requires every property, and clients would send `null` for it"
                ),
            ));
        }
        all.push(Value::String(name.clone()));
    }
    if !all.is_empty() {
        obj.insert("required".into(), Value::Array(all));
    }
}

/// Whether a schema (already portable: no `$ref`) admits `null`.
fn accepts_null(schema: &Value) -> bool {
    let Value::Object(obj) = schema else {
        return *schema == json!(true);
    };
    let typed = match obj.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        None => true,
        _ => false,
    };
    let in_enum = obj
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|e| e.contains(&Value::Null));
    let branches = ["anyOf", "oneOf"].iter().all(|k| {
        obj.get(*k)
            .and_then(Value::as_array)
            .is_none_or(|bs| bs.iter().any(accepts_null))
    });
    let all_of = obj
        .get("allOf")
        .and_then(Value::as_array)
        .is_none_or(|bs| bs.iter().all(accepts_null));
    let constant = obj.get("const").is_none_or(Value::is_null);
    typed && in_enum && branches && all_of && constant && !obj.contains_key("not")
}

/// `anyOf: [T, {type: null}]` (schemars' `Option<T>`) as `T` with `type: [t, "null"]`, when
/// `T` has a single `type` and no combinators of its own.
fn nullable_union(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("anyOf") else {
        return;
    };
    let null = json!({"type": "null"});
    let [a, b] = branches.as_slice() else {
        return;
    };
    let other = match (a == &null, b == &null) {
        (true, false) => b,
        (false, true) => a,
        _ => return,
    };
    let Value::Object(other) = other else {
        return;
    };
    let Some(Value::String(kind)) = other.get("type") else {
        return;
    };
    if super::walk::COMBINATORS
        .iter()
        .any(|k| other.contains_key(*k))
        || other.keys().any(|k| obj.contains_key(k) && k != "anyOf")
    {
        return;
    }
    let mut merged = other.clone();
    merged.insert("type".into(), json!([kind, "null"]));
    if let Some(Value::Array(values)) = merged.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    obj.remove("anyOf");
    for (k, v) in merged {
        obj.insert(k, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_profile::{Role, SchemaProfile, shape};

    #[allow(clippy::needless_pass_by_value)] // test cases read best as `json!` literals
    fn strict(schema: Value) -> Shaped {
        shape(
            SchemaProfile::OpenAiStrict,
            Role::Input,
            schema.as_object().unwrap().clone(),
        )
    }

    #[test]
    fn optional_fields_become_required_and_nullable() {
        let s = strict(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "country": {"type": ["string", "null"]},
                "place": {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}], "description": "Where."},
                "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]}
            },
            "required": ["name"],
            "additionalProperties": false,
            "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
        }));
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert_eq!(
            Value::Object(s.schema),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "country": {"type": ["string", "null"]},
                    "place": {"description": "Where.", "type": ["object", "null"],
                              "properties": {"city": {"type": "string"}}, "required": ["city"],
                              "additionalProperties": false},
                    "unit": {"type": ["string", "null"], "enum": ["c", "f", null]}
                },
                "required": ["name", "country", "place", "unit"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn maps_and_defaults_are_refused() {
        let s = strict(json!({
            "type": "object",
            "properties": {
                "m": {"type": "object", "additionalProperties": {"type": "number"}},
                "k": {"type": "object", "additionalProperties": false, "patternProperties": {"^\\d+$": {}}},
                "d": {"type": "integer", "default": 0}
            },
            "required": ["m", "k"]
        }));
        let found: Vec<_> = s
            .violations
            .iter()
            .map(|v| (v.rule(), v.pointer().to_owned()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    SchemaRule::OptionalField,
                    "/inputSchema/properties/d".to_owned()
                ),
                (
                    SchemaRule::OpenObject,
                    "/inputSchema/properties/m".to_owned()
                ),
                (
                    SchemaRule::OpenObject,
                    "/inputSchema/properties/k".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn null_acceptance() {
        for (schema, nullable) in [
            (json!({}), true),
            (json!(true), true),
            (json!({"type": "null"}), true),
            (json!({"type": ["integer", "null"]}), true),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
                true,
            ),
            (json!({"type": "integer"}), false),
            (json!({"enum": ["a", "b"]}), false),
            (json!({"const": 1}), false),
            (json!({"oneOf": [{"type": "string"}]}), false),
        ] {
            assert_eq!(accepts_null(&schema), nullable, "{schema}");
        }
    }
}
