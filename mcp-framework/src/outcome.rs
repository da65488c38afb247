//! What handlers may return, and how each return type becomes a protocol result.
//!
//! Tools pick their conversion at compile time through autoref specialization on
//! [`Probe`] (no type-name sniffing in the macro): `Result<T, E>` is unwrapped first, then
//! content-like types ([`IntoToolResult`]) become content, and anything else that is
//! `Serialize + JsonSchema` becomes `structuredContent` with an `outputSchema`.

use std::any::Any;
use std::borrow::Cow;
use std::fmt::Display;
use std::marker::PhantomData;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;
use crate::protocol::{
    BlobResourceContents, CallToolResult, Content, ErrorObject, GetPromptResult, JsonObject,
    PromptMessage, ResourceContents, Role, TextResourceContents,
};
use crate::registry::handler::{PromptResult, ReadResult, ResourceRequest, ToolResult};
use crate::schema;

// ---------------------------------------------------------------------------------------------
// Tools

/// Return types that become a tool result's `content` (no `outputSchema`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[tool]` function",
    note = "return a String, Content, Vec<Content>, CallToolResult, or a type that implements `Serialize + JsonSchema` (it becomes structuredContent)"
)]
pub trait IntoToolResult {
    /// Converts into a tool result.
    fn into_tool_result(self) -> ToolResult;
}

fn text_result(text: String) -> CallToolResult {
    CallToolResult {
        content: vec![Content::text(text)],
        ..CallToolResult::default()
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        Ok(text_result(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        Ok(text_result(self.to_owned()))
    }
}

impl IntoToolResult for Cow<'static, str> {
    fn into_tool_result(self) -> ToolResult {
        Ok(text_result(self.into_owned()))
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult {
            content: vec![self],
            ..CallToolResult::default()
        })
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult {
            content: self,
            ..CallToolResult::default()
        })
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> ToolResult {
        Ok(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::default())
    }
}

impl IntoToolResult for ToolError {
    fn into_tool_result(self) -> ToolResult {
        Ok(error_result(self.message))
    }
}

/// A result with `isError: true` and the message as text.
pub(crate) fn error_result(message: String) -> CallToolResult {
    CallToolResult {
        content: vec![Content::text(message)],
        is_error: Some(true),
        ..CallToolResult::default()
    }
}

/// Turns a handler's error into the tool outcome: `ErrorObject` stays a protocol error,
/// anything else becomes an `isError` result with its message.
fn tool_error<E: Display + 'static>(e: E) -> ToolResult {
    let any: &dyn Any = &e;
    if let Some(obj) = any.downcast_ref::<ErrorObject>() {
        return Err(obj.clone());
    }
    Ok(error_result(e.to_string()))
}

/// Structured output: `structuredContent` plus the same JSON as a text block.
fn structured<T: Serialize>(value: &T) -> ToolResult {
    let v = serde_json::to_value(value)
        .map_err(|e| ErrorObject::internal(format!("could not serialize the tool output: {e}")))?;
    let text = serde_json::to_string(&v).expect("a Value always serializes");
    Ok(CallToolResult {
        content: vec![Content::text(text)],
        structured_content: Some(v),
        ..CallToolResult::default()
    })
}

/// Types usable as structured tool output.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[tool]` function",
    note = "return a String, Content, Vec<Content>, CallToolResult, or a type that implements `Serialize + JsonSchema` (it becomes structuredContent)"
)]
pub trait StructuredOutput: Serialize + JsonSchema {}
impl<T: Serialize + JsonSchema> StructuredOutput for T {}

/// Selects a return type's conversion; see the module docs.
#[doc(hidden)]
#[allow(missing_debug_implementations)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    #[doc(hidden)]
    pub const NEW: Self = Self(PhantomData);
}

/// How a tool's return type is converted, and its `outputSchema`.
#[doc(hidden)]
#[allow(missing_debug_implementations)]
pub struct ToolOutput<T> {
    pub schema: Option<fn() -> JsonObject>,
    pub convert: fn(T) -> ToolResult,
}

#[doc(hidden)]
pub trait ViaResultContent<T> {
    fn tool_output(&self) -> ToolOutput<T>;
}
impl<T: IntoToolResult, E: Display + 'static> ViaResultContent<Result<T, E>>
    for &&&Probe<Result<T, E>>
{
    fn tool_output(&self) -> ToolOutput<Result<T, E>> {
        ToolOutput {
            schema: None,
            convert: |r| match r {
                Ok(v) => v.into_tool_result(),
                Err(e) => tool_error(e),
            },
        }
    }
}

#[doc(hidden)]
pub trait ViaResultStructured<T> {
    fn tool_output(&self) -> ToolOutput<T>;
}
impl<T: StructuredOutput, E: Display + 'static> ViaResultStructured<Result<T, E>>
    for &&Probe<Result<T, E>>
{
    fn tool_output(&self) -> ToolOutput<Result<T, E>> {
        ToolOutput {
            schema: Some(schema::schema_for::<T>),
            convert: |r| match r {
                Ok(v) => structured(&v),
                Err(e) => tool_error(e),
            },
        }
    }
}

#[doc(hidden)]
pub trait ViaContent<T> {
    fn tool_output(&self) -> ToolOutput<T>;
}
impl<T: IntoToolResult> ViaContent<T> for &Probe<T> {
    fn tool_output(&self) -> ToolOutput<T> {
        ToolOutput {
            schema: None,
            convert: T::into_tool_result,
        }
    }
}

#[doc(hidden)]
pub trait ViaStructured<T> {
    fn tool_output(&self) -> ToolOutput<T>;
}
impl<T: StructuredOutput> ViaStructured<T> for Probe<T> {
    fn tool_output(&self) -> ToolOutput<T> {
        ToolOutput {
            schema: Some(schema::schema_for::<T>),
            convert: |v| structured(&v),
        }
    }
}

/// A handler parameter decoded from the request (a tool's or prompt's argument, a
/// template's variable): `Deserialize` and `JsonSchema`.
///
/// The macros make the arguments struct generic over its field types and instantiate it
/// once, through a function bounded by `Argument` and called with the user's types: a type
/// that is neither an argument nor injected is reported once, at the parameter, with both
/// ways out (not by every use serde's and schemars' derives make of it).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an argument, and the parameter is not marked `#[ctx]`",
    label = "neither decoded from the arguments nor injected",
    note = "an argument is decoded from the request: derive `serde::Deserialize` and `schemars::JsonSchema` for it",
    note = "a value the server provides is injected: mark the parameter `#[ctx]` and implement `FromContext` for its type"
)]
pub trait Argument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> Argument for T {}

/// A handler's arguments struct `T`: its schema and its decoder, taken where `T`'s bounds
/// hold (so that its users need none).
#[doc(hidden)]
#[derive(Debug)]
pub struct Arguments<T> {
    /// The input schema.
    pub schema: fn() -> JsonObject,
    decode: fn(Value) -> serde_json::Result<T>,
}

impl<T> Clone for Arguments<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Arguments<T> {}

impl<T: DeserializeOwned + JsonSchema> Arguments<T> {
    /// `T`'s.
    pub const NEW: Self = Self {
        schema: schema::input_schema_for::<T>,
        decode: serde_json::from_value::<T>,
    };
}

/// Decodes a tool's (already validated) arguments; a failure is an `isError` result.
#[doc(hidden)]
// The error is the rare path (the arguments already passed the schema).
#[allow(clippy::result_large_err)]
pub fn decode_arguments<T>(args: Arguments<T>, arguments: Value) -> Result<T, ToolResult> {
    (args.decode)(arguments).map_err(|e| Ok(error_result(format!("Invalid arguments: {e}"))))
}

// ---------------------------------------------------------------------------------------------
// Prompts

/// Return types of `#[prompt]` functions.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[prompt]` function",
    note = "return a String, PromptMessage, Vec<PromptMessage> or GetPromptResult (optionally in a Result)"
)]
pub trait IntoPromptResult {
    /// Converts into a `prompts/get` result.
    fn into_prompt_result(self) -> PromptResult;
}

fn prompt_messages(messages: Vec<PromptMessage>) -> PromptResult {
    Ok(GetPromptResult {
        messages,
        ..GetPromptResult::default()
    })
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> PromptResult {
        prompt_messages(vec![PromptMessage {
            role: Role::User,
            content: Content::text(self),
        }])
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> PromptResult {
        self.to_owned().into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> PromptResult {
        prompt_messages(vec![self])
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> PromptResult {
        prompt_messages(self)
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> PromptResult {
        Ok(self)
    }
}

/// `ErrorObject` errors keep their code; anything else is `-32603` with its message.
fn protocol_error<E: Display + 'static>(e: E) -> ErrorObject {
    let any: &dyn Any = &e;
    match any.downcast_ref::<ErrorObject>() {
        Some(obj) => obj.clone(),
        None => ErrorObject::internal(e.to_string()),
    }
}

impl<T: IntoPromptResult, E: Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> PromptResult {
        self.map_err(protocol_error)?.into_prompt_result()
    }
}

/// Decodes prompt arguments (coerced from strings); a failure is `-32602`.
#[doc(hidden)]
pub fn decode_prompt_arguments<T>(args: Arguments<T>, arguments: Value) -> Result<T, ErrorObject> {
    (args.decode)(arguments)
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid prompt arguments: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Resources

/// Return types of `#[resource]` functions.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[resource]` function",
    note = "return a String (text), Vec<u8> or Blob (binary), Json<T>, ResourceContents or Vec<ResourceContents> (optionally in a Result)"
)]
pub trait IntoResourceContents {
    /// Converts into the contents of `request`'s resource.
    fn into_contents(self, request: &ResourceRequest) -> ReadResult;
}

fn text_contents(request: &ResourceRequest, text: String, default_mime: &str) -> ReadResult {
    Ok(vec![ResourceContents::Text(TextResourceContents {
        uri: request.uri().to_owned(),
        mime_type: Some(request.mime_type().unwrap_or(default_mime).to_owned()),
        text,
        meta: None,
    })])
}

fn blob_contents(request: &ResourceRequest, bytes: &[u8]) -> ReadResult {
    Ok(vec![ResourceContents::Blob(BlobResourceContents {
        uri: request.uri().to_owned(),
        mime_type: Some(
            request
                .mime_type()
                .unwrap_or("application/octet-stream")
                .to_owned(),
        ),
        blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        meta: None,
    })])
}

impl IntoResourceContents for String {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        text_contents(request, self, "text/plain")
    }
}

impl IntoResourceContents for &'static str {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        text_contents(request, self.to_owned(), "text/plain")
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        blob_contents(request, &self)
    }
}

impl IntoResourceContents for bytes::Bytes {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        blob_contents(request, &self)
    }
}

/// Binary resource contents (base64-encoded on the wire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob(pub Vec<u8>);

impl IntoResourceContents for Blob {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        blob_contents(request, &self.0)
    }
}

/// A value served as JSON text (`application/json` unless the definition says otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        let text = serde_json::to_string(&self.0)
            .map_err(|e| ErrorObject::internal(format!("could not serialize: {e}")))?;
        text_contents(request, text, "application/json")
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _: &ResourceRequest) -> ReadResult {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(self, _: &ResourceRequest) -> ReadResult {
        Ok(self)
    }
}

impl<T: IntoResourceContents, E: Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_contents(self, request: &ResourceRequest) -> ReadResult {
        self.map_err(protocol_error)?.into_contents(request)
    }
}

/// Decodes template variables into the handler's parameters; a failure is `-32602`.
#[doc(hidden)]
pub fn decode_variables<T>(
    args: Arguments<T>,
    request: &ResourceRequest,
) -> Result<T, ErrorObject> {
    (args.decode)(Value::Object(request.variables().clone())).map_err(|e| {
        ErrorObject::invalid_params(format!("Invalid resource URI {}: {e}", request.uri()))
    })
}

/// Coerces string values (prompt arguments, template variables) to the JSON types the
/// schema's properties declare: `"42"` becomes `42` for an integer property, `"true"`
/// becomes `true` for a boolean. Values that do not parse stay strings (and fail decoding
/// with a clear message).
pub(crate) fn coerce_strings(
    schema: &JsonObject,
    values: impl IntoIterator<Item = (String, String)>,
) -> serde_json::Map<String, Value> {
    let props = schema.get("properties").and_then(Value::as_object);
    values
        .into_iter()
        .map(|(k, v)| {
            let wants_string = props
                .and_then(|p| p.get(&k))
                .map(|p| admits_string(schema, p))
                .unwrap_or(true);
            let value = if wants_string {
                Value::String(v)
            } else {
                serde_json::from_str::<Value>(&v).unwrap_or(Value::String(v))
            };
            (k, value)
        })
        .collect()
}

/// The scalar type a tool argument sent as a string is coerced to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    Integer,
    Number,
    Boolean,
}

/// The top-level properties of a tool's input schema whose type is an integer, a number or
/// a boolean, and not a string: a string sent for one of them is coerced before
/// validation (forms such as the Inspector's send `"2"` for an `Option<u32>`).
pub(crate) fn scalar_properties(schema: &JsonObject) -> Vec<(String, Scalar)> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(name, prop)| {
            let prop = schema::local_ref(schema.get("$defs"), prop.get("$ref")).unwrap_or(prop);
            if admits_string(schema, prop) {
                return None;
            }
            let types: Vec<&str> = match prop.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => return None,
            };
            let scalar = if types.contains(&"integer") {
                Scalar::Integer
            } else if types.contains(&"number") {
                Scalar::Number
            } else if types.contains(&"boolean") {
                Scalar::Boolean
            } else {
                return None;
            };
            Some((name.clone(), scalar))
        })
        .collect()
}

/// Replaces each string argument of a scalar property by the scalar it spells (`"2"`,
/// `"-1.5"`, `"true"`); a string that spells none is left for the validator to refuse.
pub(crate) fn coerce_scalars(scalars: &[(String, Scalar)], arguments: &mut Value) {
    let Value::Object(args) = arguments else {
        return;
    };
    if scalars.is_empty() {
        return;
    }
    // By the arguments, which are few: those that are not strings (most) cost a match.
    for (name, value) in args.iter_mut() {
        let Value::String(text) = value else {
            continue;
        };
        let Some((_, scalar)) = scalars.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let text = text.trim();
        let coerced = match scalar {
            Scalar::Integer => text
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| text.parse::<u64>().map(Value::from))
                .ok(),
            Scalar::Number => text.parse::<i64>().map(Value::from).ok().or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
            }),
            Scalar::Boolean => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
        };
        if let Some(coerced) = coerced {
            *value = coerced;
        }
    }
}

fn admits_string(root: &JsonObject, prop: &Value) -> bool {
    if let Some(def) = schema::local_ref(root.get("$defs"), prop.get("$ref")) {
        return admits_string(root, def);
    }
    match prop.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        // enums of strings, oneOf of consts…: assume strings.
        _ => prop
            .get("enum")
            .and_then(Value::as_array)
            .is_none_or(|e| e.iter().any(Value::is_string)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalar_strings_are_coerced() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"]},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
            "s": {"type": "string"},
            "either": {"type": ["string", "integer"]}
        }});
        let scalars = scalar_properties(schema.as_object().unwrap());
        assert_eq!(scalars.len(), 3, "{scalars:?}");
        let mut args = json!({"n": "2", "x": "-1.5", "b": "true", "s": "3", "either": "4"});
        coerce_scalars(&scalars, &mut args);
        assert_eq!(
            args,
            json!({"n": 2, "x": -1.5, "b": true, "s": "3", "either": "4"})
        );
        let mut args = json!({"n": "two", "x": "1e400", "b": "yes"});
        coerce_scalars(&scalars, &mut args);
        assert_eq!(args, json!({"n": "two", "x": "1e400", "b": "yes"}));
    }

    #[test]
    fn coerces_to_declared_types() {
        let schema = json!({"type":"object","properties":{
            "n":{"type":"integer"},"s":{"type":"string"},"b":{"type":["boolean","null"]},
            "e":{"$ref":"#/$defs/E"}},"$defs":{"E":{"type":"string","enum":["a"]}}});
        let out = coerce_strings(
            schema.as_object().unwrap(),
            [
                ("n", "42"),
                ("s", "42"),
                ("b", "true"),
                ("e", "a"),
                ("x", "1"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned())),
        );
        assert_eq!(
            Value::Object(out),
            json!({"n":42,"s":"42","b":true,"e":"a","x":"1"})
        );
    }
}
