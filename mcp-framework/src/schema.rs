//! JSON Schema generation (schemars, 2020-12), the few schema walks the runtime needs
//! (object roots, local `$ref`s, wrapping outputs), and compiled validators (jsonschema).

use std::sync::OnceLock;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use crate::protocol::JsonObject;

// `generator` and `root_object` are kept out of line: `schema_for` is instantiated for
// every tool's argument and output types, and only `into_root_schema_for` needs to be.
#[inline(never)]
fn generator() -> schemars::SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
        })
        .into_generator()
}

/// The root schema of `T` as a JSON object, without `title` (it would leak internal struct
/// names such as `__mcp_args_add`) and without `$schema` (2020-12 is MCP's default dialect).
#[doc(hidden)]
pub fn schema_for<T: JsonSchema>() -> JsonObject {
    root_object(generator().into_root_schema_for::<T>())
}

#[inline(never)]
fn root_object(schema: schemars::Schema) -> JsonObject {
    let mut obj = match schema.to_value() {
        Value::Object(obj) => obj,
        // `true`/`false` schemas: represent them as objects.
        Value::Bool(true) => Map::new(),
        other => {
            let mut m = Map::new();
            m.insert("not".into(), serde_json::json!({}));
            debug_assert_eq!(other, Value::Bool(false));
            m
        }
    };
    obj.remove("title");
    obj.remove("$schema");
    obj
}

/// The `inputSchema` for a tool whose arguments deserialize into `T`.
#[doc(hidden)]
pub fn input_schema_for<T: JsonSchema>() -> JsonObject {
    normalize_object_schema(schema_for::<T>())
}

/// A parameter's default value (`#[arg(default = …)]`) as JSON, for its schema.
#[doc(hidden)]
pub fn default_value<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// An input schema with each named property's `default`; those properties are optional.
#[doc(hidden)]
pub fn with_defaults<const N: usize>(
    mut schema: JsonObject,
    defaults: [(&str, Value); N],
) -> JsonObject {
    for (name, value) in defaults {
        if let Some(Value::Object(property)) = schema
            .get_mut("properties")
            .and_then(|p| p.as_object_mut())
            .and_then(|p| p.get_mut(name))
        {
            property.insert("default".into(), value);
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| r.as_str() != Some(name));
        }
    }
    normalize_object_schema(schema)
}

/// Tidies an object schema: an object without properties becomes the spec's recommended
/// `{"type":"object","additionalProperties":false}` (when it already forbade extra
/// properties) and empty `required` arrays go away.
pub(crate) fn normalize_object_schema(mut obj: JsonObject) -> JsonObject {
    if obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        obj.remove("properties");
    }
    if obj
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        obj.remove("required");
    }
    obj
}

/// Whether a schema's root admits only objects (`type: "object"`).
pub(crate) fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Wraps a non-object output schema as `{type: object, properties: {result: …}}` for
/// revisions whose `outputSchema` must have an object root.
pub(crate) fn wrap_output_schema(schema: &JsonObject) -> JsonObject {
    let mut inner = schema.clone();
    let defs = inner.remove("$defs");
    let mut props = Map::new();
    props.insert("result".into(), Value::Object(inner));
    let mut wrapped = Map::new();
    wrapped.insert("type".into(), "object".into());
    wrapped.insert("properties".into(), Value::Object(props));
    wrapped.insert("required".into(), serde_json::json!(["result"]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    wrapped
}

/// The definition a local `$ref` (`"#/$defs/Name"`) names, found in `defs` (the root
/// schema's `$defs`); `None` for no reference, a remote one, or a missing definition.
pub(crate) fn local_ref<'a>(
    defs: Option<&'a Value>,
    reference: Option<&Value>,
) -> Option<&'a Value> {
    let name = reference?.as_str()?.strip_prefix("#/$defs/")?;
    defs?.get(name)
}

/// Builds jsonschema's validator of the 2020-12 meta-schema on a thread of its own, once per
/// process: every schema is checked against it as it compiles, so the first tool call of a
/// process would otherwise wait for it (about a millisecond and a half, against a tenth for
/// each later compile). Called when tools are first listed: a client lists before it calls,
/// and start-up, which ends with that first list, does not pay for it.
pub(crate) fn warm_up_validators() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let warm = || drop(jsonschema::draft202012::meta::validator());
        if std::thread::Builder::new()
            .name("mcp-schema-warm-up".into())
            .spawn(warm)
            .is_err()
        {
            // No thread to spare: the first compile builds it, as it would have.
            tracing::debug!("could not start the schema warm-up thread");
        }
    });
}

/// A schema's validator, compiled at its first use: start-up does not pay for the validators
/// of tools nobody calls (compiling the first one also builds the 2020-12 meta-schema's,
/// about a millisecond). A debug build compiles it at once, so a schema that does not
/// compile is an error of `build()` while the server is developed.
pub(crate) struct Validator {
    /// Where the schema comes from when it is compiled.
    source: Source,
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

/// Where a lazy validator finds its schema.
enum Source {
    /// The schema as compact JSON text (a fraction of a `Value`'s memory).
    Text(Box<str>),
    /// A function that builds the schema again, as it was when the validator was made: a
    /// macro-generated definition is rebuilt, so start-up keeps no copy of it.
    Rebuild(Box<dyn Fn() -> JsonObject + Send + Sync>),
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

impl Validator {
    /// A validator for `schema`; `Err` (in a debug build) if it does not compile. External
    /// `$ref`s cannot be resolved (no network, no files): such schemas are rejected instead
    /// of silently accepting anything.
    pub(crate) fn compile(schema: &JsonObject) -> Result<Self, String> {
        let validator = Self::lazy(schema);
        #[cfg(debug_assertions)]
        validator.compiled()?;
        Ok(validator)
    }

    /// A validator for `schema` that, instead of keeping a copy of it, calls `rebuild` for it
    /// when it is compiled; `rebuild` must return `schema` again. A debug build checks that
    /// it does and compiles the schema at once, as [`compile`](Self::compile) does.
    pub(crate) fn rebuilt(
        schema: &JsonObject,
        rebuild: impl Fn() -> JsonObject + Send + Sync + 'static,
    ) -> Result<Self, String> {
        if cfg!(debug_assertions) && rebuild() != *schema {
            return Err("the definition is not the same when it is built again".into());
        }
        let validator = Self {
            source: Source::Rebuild(Box::new(rebuild)),
            compiled: OnceLock::new(),
        };
        #[cfg(debug_assertions)]
        validator.compiled()?;
        Ok(validator)
    }

    /// A validator for `schema`, compiled when first used.
    fn lazy(schema: &JsonObject) -> Self {
        Self {
            source: Source::Text(
                serde_json::to_string(schema)
                    .expect("a JSON object always serializes")
                    .into_boxed_str(),
            ),
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> Result<&jsonschema::Validator, String> {
        self.compiled
            .get_or_init(|| {
                let schema = match &self.source {
                    Source::Text(text) => serde_json::from_str(text).map_err(|e| e.to_string())?,
                    Source::Rebuild(rebuild) => Value::Object(rebuild()),
                };
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// `Ok` or a readable list of what is wrong (at most a few problems). A schema that
    /// does not compile (seen only in a release build) rejects everything, saying so.
    pub(crate) fn check(&self, instance: &Value) -> Result<(), String> {
        let validator = self.compiled().map_err(|e| {
            tracing::error!(error = %e, "a schema of this server does not compile");
            format!("the server's schema does not compile: {e}")
        })?;
        if validator.is_valid(instance) {
            return Ok(());
        }
        let mut problems = Vec::new();
        for err in validator.iter_errors(instance).take(5) {
            let path = err.instance_path().to_string();
            if path.is_empty() {
                problems.push(err.to_string());
            } else {
                problems.push(format!("{path}: {err}"));
            }
        }
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lazy_validator_compiles_at_first_use_and_reports_a_schema_that_does_not() {
        let good = Validator::lazy(&input_schema_for::<Args>());
        assert!(good.compiled.get().is_none(), "nothing compiled before use");
        assert!(good.check(&serde_json::json!({"a": 1.0})).is_ok());
        assert!(good.check(&serde_json::json!({"a": "x"})).is_err());
        let bad = serde_json::json!({"type": "object", "properties": {"a": {"pattern": "(("}}});
        let bad = Validator::lazy(bad.as_object().unwrap());
        let e = bad.check(&serde_json::json!({})).unwrap_err();
        assert!(e.starts_with("the server's schema does not compile"), "{e}");
    }

    #[test]
    fn a_rebuilt_validator_builds_its_schema_again_and_checks_it_is_the_same() {
        let v = Validator::rebuilt(&input_schema_for::<Args>(), input_schema_for::<Args>).unwrap();
        assert!(matches!(v.source, Source::Rebuild(_)), "no copy is kept");
        assert!(v.check(&serde_json::json!({"a": 1.0})).is_ok());
        assert!(v.check(&serde_json::json!({"a": "x"})).is_err());
        // A function that builds something else is caught while the server is developed.
        if cfg!(debug_assertions) {
            let e = Validator::rebuilt(&input_schema_for::<Args>(), input_schema_for::<NoArgs>)
                .unwrap_err();
            assert!(e.contains("not the same"), "{e}");
        }
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        /// Left operand.
        a: f64,
        b: Option<String>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoArgs {}

    #[test]
    fn input_schemas() {
        let s = input_schema_for::<Args>();
        assert_eq!(s["type"], "object");
        assert!(s.get("title").is_none());
        assert!(s.get("$schema").is_none());
        assert_eq!(s["required"], serde_json::json!(["a"]));
        assert_eq!(s["properties"]["a"]["description"], "Left operand.");
        let none = input_schema_for::<NoArgs>();
        assert_eq!(
            Value::Object(none),
            serde_json::json!({"type":"object","additionalProperties":false})
        );
    }

    #[test]
    fn validates() {
        let v = Validator::compile(&input_schema_for::<Args>()).unwrap();
        assert!(v.check(&serde_json::json!({"a": 1})).is_ok());
        let err = v.check(&serde_json::json!({"a": "x"})).unwrap_err();
        assert!(err.contains("/a"), "{err}");
        assert!(v.check(&serde_json::json!({"a": 1, "c": 2})).is_err());
    }

    #[test]
    fn rejects_remote_refs() {
        let schema = serde_json::json!({"$ref": "https://example.com/schema.json"});
        assert!(Validator::compile(schema.as_object().unwrap()).is_err());
    }

    #[test]
    fn wraps_outputs() {
        let s = schema_for::<Vec<u32>>();
        assert!(!is_object_schema(&s));
        let w = wrap_output_schema(&s);
        assert!(is_object_schema(&w));
        assert_eq!(w["properties"]["result"]["type"], "array");
    }
}
