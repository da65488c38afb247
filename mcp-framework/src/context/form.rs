//! Elicitation forms: the [`Form`] and [`FormField`] traits `#[derive(Form)]` implements
//! (what a form may hold, checked while compiling), and the `requestedSchema` of a form —
//! the type's schema, inlined and flattened to what forms allow (one primitive type or an
//! enum per field), checked once per type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::JsonObject;

/// A struct a user can be asked to fill in (`ctx.elicit::<T>(…)`): implemented by
/// `#[derive(Form)]`, which checks while compiling that every field is a [`FormField`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "add `#[derive(mcp_framework::Form)]` to it",
    note = "a form is a struct of strings, numbers, booleans and enums (`#[derive(Form)]` checks each field)"
)]
pub trait Form: DeserializeOwned + JsonSchema + Send + 'static {}

/// What a field of a [`Form`] may be: a string, number, integer or boolean, an enum of unit
/// variants that derives `Form` (a choice), a `Vec` of such an enum (several choices), or an
/// `Option` of any of these (a field the user may leave empty).
///
/// Implement it for a type of your own whose JSON Schema is one of those — a newtype around
/// a string with a `format`, say; the schema is still checked when the form is asked.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "forms hold strings, numbers, booleans and enums of unit variants",
    note = "derive `Form` on a unit-only enum to offer a choice (a `Vec` of it for several); ask for lists or nested objects in separate questions"
)]
pub trait FormField {}

macro_rules! form_fields {
    ($($t:ty),*) => { $(impl FormField for $t {})* };
}

form_fields!(
    String, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, char
);

impl FormField for std::borrow::Cow<'static, str> {}
impl<T: FormField> FormField for Option<T> {}
impl<T: FormChoice> FormField for Vec<T> {}
impl<T: FormChoice> FormField for std::collections::BTreeSet<T> {}

/// A choice in a form, offered as one of a list of strings: an enum of unit variants that
/// derives `Form`. A `Vec` of one is a multi-select field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be offered as a choice in an elicitation form",
    label = "a multi-select field is a `Vec` of an enum of unit variants deriving `Form`"
)]
pub trait FormChoice: FormField {}

type SchemaCache = Mutex<HashMap<std::any::TypeId, Result<Arc<JsonObject>, String>>>;

/// The `requestedSchema` for `T`, checked against what elicitation allows (computed once
/// per type).
pub(crate) fn elicitation_schema<T: JsonSchema + 'static>() -> Result<Arc<JsonObject>, String> {
    static CACHE: OnceLock<SchemaCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = std::any::TypeId::of::<T>();
    if let Some(hit) = cache.lock().expect("schema cache").get(&id) {
        return hit.clone();
    }
    let result = build_elicitation_schema::<T>().map(Arc::new);
    cache
        .lock()
        .expect("schema cache")
        .insert(id, result.clone());
    result
}

fn build_elicitation_schema<T: JsonSchema>() -> Result<JsonObject, String> {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let obj = schema
        .as_object_mut()
        .ok_or("its schema is not an object schema")?;
    obj.remove("title");
    obj.remove("$defs");
    obj.remove("additionalProperties");
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err("it must be a struct (an object schema)".into());
    }
    let props = obj
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .ok_or("it has no fields")?;
    for (name, prop) in props.iter_mut() {
        let p = prop
            .as_object_mut()
            .ok_or_else(|| format!("field `{name}` has a boolean schema"))?;
        // `Option<T>` gives `["string", "null"]`: optional fields are simply not required.
        if let Some(Value::Array(types)) = p.get("type") {
            let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if non_null.len() != 1 {
                return Err(format!("field `{name}` must have exactly one type"));
            }
            p.insert("type".into(), non_null[0].clone());
        }
        if let Some(Value::Array(any)) = p.remove("anyOf") {
            // `Option<Enum>` inlines as `anyOf: [{enum…}, {type: null}]`.
            let mut rest: Vec<Value> = any
                .into_iter()
                .filter(|s| s.get("type") != Some(&Value::from("null")))
                .collect();
            if rest.len() != 1 {
                return Err(format!(
                    "field `{name}` uses a union elicitation cannot express"
                ));
            }
            if let Value::Object(inner) = rest.remove(0) {
                for (k, v) in inner {
                    p.entry(k).or_insert(v);
                }
            }
        }
        if let Some(Value::Array(variants)) = p.get("enum") {
            let strings: Vec<Value> = variants.iter().filter(|v| !v.is_null()).cloned().collect();
            p.insert("enum".into(), Value::Array(strings));
        }
        let ty = p
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_else(|| {
                if p.contains_key("enum") || p.contains_key("oneOf") {
                    "string"
                } else {
                    ""
                }
            })
            .to_owned();
        match ty.as_str() {
            "string" | "number" | "integer" | "boolean" => {
                p.entry("type").or_insert_with(|| ty.clone().into());
            }
            "array" => {
                let items_ok = p
                    .get("items")
                    .and_then(Value::as_object)
                    .is_some_and(|i| i.contains_key("enum") || i.contains_key("anyOf"));
                if !items_ok {
                    return Err(format!(
                        "field `{name}` is an array; only arrays of enum values (multi-select) are allowed"
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "field `{name}` is not a string, number, integer, boolean or enum (elicitation forms are flat)"
                ));
            }
        }
        for forbidden in ["properties", "$ref", "allOf", "not", "if"] {
            if p.contains_key(forbidden) {
                return Err(format!(
                    "field `{name}` uses `{forbidden}`, which elicitation forms cannot express"
                ));
            }
        }
    }
    Ok(std::mem::take(obj))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Your name.
        name: String,
        age: Option<u32>,
        color: Color,
        subscribe: bool,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn elicitation_schemas_are_flat() {
        let s = elicitation_schema::<Form>().unwrap();
        assert_eq!(s["properties"]["name"]["type"], "string");
        assert_eq!(s["properties"]["name"]["description"], "Your name.");
        assert_eq!(s["properties"]["age"]["type"], "integer");
        assert_eq!(s["properties"]["color"]["type"], "string");
        assert_eq!(
            s["properties"]["color"]["enum"],
            serde_json::json!(["Red", "Green"])
        );
        let required: Vec<&str> = s["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!required.contains(&"age"));
        let err = elicitation_schema::<Nested>().unwrap_err();
        assert!(err.contains("inner"), "{err}");
    }
}
