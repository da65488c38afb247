//! `x-mcp-header`: which tool parameters are mirrored into `Mcp-Param-{Name}` headers,
//! the checks the spec puts on such annotations, the value encoding (`=?base64?…?=`), and
//! (HTTP) the check of a call's headers against its arguments.

use serde_json::Value;

#[cfg(feature = "http")]
use axum::http::{HeaderMap, HeaderValue};

#[cfg(feature = "http")]
use crate::protocol::ErrorObject;
use crate::protocol::JsonObject;
use crate::schema;

const KEY: &str = "x-mcp-header";

/// A tool parameter mirrored into an `Mcp-Param-{header}` HTTP header (`x-mcp-header`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The chain of `properties` keys from the schema root.
    pub(crate) path: Vec<String>,
    /// The `{name}` part of `Mcp-Param-{name}`.
    pub(crate) header: String,
    pub(crate) kind: HeaderKind,
}

/// The JSON type of a mirrored parameter (what its header value is compared as).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderKind {
    String,
    Integer,
    Boolean,
}

/// RFC 9110 `tchar`.
pub(crate) fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The parameters an input schema mirrors into headers, its annotated properties
/// [normalized](normalize_header_properties) first and the annotations
/// [checked](collect_header_params). Most schemas annotate nothing: they are only counted,
/// not copied or rewritten.
pub(crate) fn header_params(schema: &mut JsonObject) -> Result<Vec<HeaderParam>, String> {
    if annotations_in(schema) == 0 {
        return Ok(Vec::new());
    }
    normalize_header_properties(schema);
    collect_header_params(schema)
}

/// Rewrites annotated properties into the plain shape clients check: a local `$ref` is
/// inlined (an enum, say) and a nullable type (`["string", "null"]`, from `Option<T>`)
/// becomes the single primitive type; the parameter stays optional by not being required.
fn normalize_header_properties(schema: &mut JsonObject) {
    let defs = schema.get("$defs").cloned();
    fn walk(props: &mut JsonObject, defs: Option<&Value>) {
        for prop in props.values_mut() {
            let Some(p) = prop.as_object_mut() else {
                continue;
            };
            if p.contains_key(KEY) {
                if let Some(target) =
                    schema::local_ref(defs, p.get("$ref")).and_then(|t| t.as_object().cloned())
                {
                    p.remove("$ref");
                    for (k, v) in target {
                        p.entry(k).or_insert(v);
                    }
                }
                if let Some(Value::Array(types)) = p.get("type") {
                    let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    if non_null.len() == 1 {
                        let t = non_null[0].clone();
                        p.insert("type".into(), t);
                    }
                }
                if let Some(Value::Array(values)) = p.get_mut("enum") {
                    values.retain(|v| !v.is_null());
                }
            }
            if let Some(Value::Object(inner)) = p.get_mut("properties") {
                walk(inner, defs);
            }
        }
    }
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        walk(props, defs.as_ref());
    }
}

/// Finds every `x-mcp-header` annotation of an input schema and checks it against the
/// spec: a non-empty token, unique case-insensitively, on a statically reachable property
/// (a chain of `properties` keys) of type string, integer or boolean.
fn collect_header_params(schema: &JsonObject) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk_properties(schema, &mut Vec::new(), &mut found)?;
    // Any annotation not reached through `properties` alone is invalid.
    let total = annotations_in(schema);
    if total != found.len() {
        return Err(format!(
            "`{KEY}` may only annotate properties reachable from the schema root through \
             `properties` (not through items, $ref, anyOf/oneOf/allOf/not or if/then/else)"
        ));
    }
    for (i, a) in found.iter().enumerate() {
        if let Some(b) = found[..i]
            .iter()
            .find(|b| b.header.eq_ignore_ascii_case(&a.header))
        {
            return Err(format!(
                "`{KEY}` values must be unique case-insensitively: `{}` and `{}`",
                b.header, a.header
            ));
        }
    }
    Ok(found)
}

fn annotations_in(map: &JsonObject) -> usize {
    usize::from(map.contains_key(KEY)) + map.values().map(count_annotations).sum::<usize>()
}

fn count_annotations(v: &Value) -> usize {
    match v {
        Value::Object(map) => annotations_in(map),
        Value::Array(items) => items.iter().map(count_annotations).sum(),
        _ => 0,
    }
}

fn walk_properties<'a>(
    schema: &'a JsonObject,
    path: &mut Vec<&'a str>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, prop) in props {
        let Some(prop) = prop.as_object() else {
            continue;
        };
        path.push(name);
        if let Some(header) = prop.get(KEY) {
            let header = header
                .as_str()
                .ok_or_else(|| format!("`{KEY}` on `{}` must be a string", path.join(".")))?;
            if header.is_empty() || !header.chars().all(is_tchar) {
                return Err(format!(
                    "`{KEY}` value {header:?} on `{}` is not an HTTP header token",
                    path.join(".")
                ));
            }
            let kind = primitive_kind(prop).ok_or_else(|| {
                format!(
                    "`{KEY}` on `{}` needs a string, integer or boolean parameter \
                     (`number` is not allowed)",
                    path.join(".")
                )
            })?;
            found.push(HeaderParam {
                path: path.iter().map(|&p| p.to_owned()).collect(),
                header: header.to_owned(),
                kind,
            });
        }
        walk_properties(prop, path, found)?;
        path.pop();
    }
    Ok(())
}

/// The primitive type of an annotated property: `type` must be the single string
/// `string`, `integer` or `boolean` (what clients check; see
/// [`normalize_header_properties`] for how `Option<T>` and enums get there).
fn primitive_kind(prop: &JsonObject) -> Option<HeaderKind> {
    match prop.get("type")?.as_str()? {
        "string" => Some(HeaderKind::String),
        "integer" => Some(HeaderKind::Integer),
        "boolean" => Some(HeaderKind::Boolean),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP: header values against the body

/// Decodes a header value that may use the `=?base64?…?=` sentinel. Plain values must be
/// visible ASCII, space or tab.
#[cfg(feature = "http")]
pub(crate) fn decode_value(raw: &[u8]) -> Result<String, String> {
    use base64::Engine as _;
    if raw
        .iter()
        .any(|&b| !(b == b'\t' || (0x20..=0x7e).contains(&b)))
    {
        return Err("contains characters not allowed in a header value".into());
    }
    let text = std::str::from_utf8(raw).map_err(|_| "is not ASCII".to_owned())?;
    if let Some(inner) = text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .map_err(|_| "has an invalid base64 payload".to_owned())?;
        return String::from_utf8(bytes).map_err(|_| "decodes to invalid UTF-8".to_owned());
    }
    Ok(text.to_owned())
}

/// Encodes a header value as a client must (`Mcp-Name`, `Mcp-Param-*`): as it is when it
/// is visible ASCII or inner spaces and tabs, else (non-ASCII, control characters, leading
/// or trailing whitespace, or a value that looks like the sentinel itself) as
/// `=?base64?…?=` of its UTF-8.
#[cfg(feature = "client-http")]
pub(crate) fn encode_value(value: &str) -> String {
    use base64::Engine as _;
    let plain = value
        .bytes()
        .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && value.trim_matches([' ', '\t']) == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// The `Mcp-Param-{Name}` headers a client sends with a `tools/call` of a tool whose
/// input schema mirrors `params` into headers: each present, non-null argument of the
/// parameter's type, encoded.
#[cfg(feature = "client-http")]
pub(crate) fn param_headers(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| {
            let value = argument_at(arguments, &p.path)?;
            let text = match (p.kind, value) {
                (HeaderKind::String, Value::String(s)) => s.clone(),
                (HeaderKind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
                    n.to_string()
                }
                (HeaderKind::Boolean, Value::Bool(b)) => b.to_string(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", p.header), encode_value(&text)))
        })
        .collect()
}

/// The argument value at a parameter's path, if present and not null.
#[cfg(any(feature = "http", feature = "client-http"))]
fn argument_at<'a>(arguments: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut v = arguments;
    for key in path {
        v = v.get(key)?;
    }
    (!v.is_null()).then_some(v)
}

/// Whether a decoded header value matches the body value.
#[cfg(feature = "http")]
fn matches(kind: HeaderKind, header: &str, value: &Value) -> bool {
    match (kind, value) {
        (HeaderKind::String, Value::String(s)) => header == s,
        (HeaderKind::Boolean, Value::Bool(b)) => header == if *b { "true" } else { "false" },
        (HeaderKind::Integer, Value::Number(n)) => {
            integer_of_header(header).is_some_and(|h| integer_of_body(n) == Some(h))
        }
        _ => false,
    }
}

/// An integer header value, exactly: an optional `-`, decimal digits without a leading
/// zero, and at most a fraction of zeros (`42.0`, which the specification counts as equal
/// to `42`). No sign `+`, exponent, spaces or other variants: a proxy routing on the
/// header and this server reading the body must agree on the value.
#[cfg(feature = "http")]
fn integer_of_header(header: &str) -> Option<i128> {
    let (whole, fraction) = header.split_once('.').unwrap_or((header, "0"));
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    let canonical = !digits.is_empty()
        && digits.len() <= 20
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b == b'0');
    canonical.then(|| whole.parse().ok()).flatten()
}

/// A body number as an exact integer: `u64`/`i64` as they are, a float only when it is
/// integral and exactly representable (below 2^53).
#[cfg(feature = "http")]
fn integer_of_body(n: &serde_json::Number) -> Option<i128> {
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    n.as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < EXACT)
        // In range and integral: the conversion is exact.
        .map(|f| f as i128)
}

/// The single value of a header (several values are ambiguous: rejected).
#[cfg(feature = "http")]
pub(crate) fn single_header<'a>(
    headers: &'a HeaderMap,
    name: &str,
) -> Result<Option<&'a HeaderValue>, ErrorObject> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(ErrorObject::header_mismatch(format!(
            "{name} has several values"
        )));
    }
    Ok(first)
}

/// Checks the `Mcp-Param-{Name}` headers of a modern HTTP `tools/call` against its
/// arguments: every mirrored argument that is present needs its header, with the same value.
#[cfg(feature = "http")]
pub(crate) fn check_param_headers(
    headers: &HeaderMap,
    params: &[HeaderParam],
    arguments: &Value,
) -> Result<(), ErrorObject> {
    for p in params {
        let header_name = format!("mcp-param-{}", p.header);
        let header = single_header(headers, &header_name)?;
        let Some(value) = argument_at(arguments, &p.path) else {
            // A null or missing argument has no header; a stray header is tolerated.
            continue;
        };
        let Some(header) = header else {
            return Err(ErrorObject::header_mismatch(format!(
                "missing header Mcp-Param-{} for argument `{}`",
                p.header,
                p.path.join(".")
            )));
        };
        let decoded = decode_value(header.as_bytes())
            .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Param-{} {e}", p.header)))?;
        if !matches(p.kind, &decoded, value) {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Param-{} header value {decoded:?} does not match body value {value}",
                p.header
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn collect(v: &Value) -> Result<Vec<HeaderParam>, String> {
        collect_header_params(v.as_object().unwrap())
    }

    #[test]
    fn finds_valid_annotations() {
        let found = collect(&json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "nested": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}}
            }
        }))
        .unwrap();
        assert_eq!(found.len(), 3);
        assert!(
            found
                .iter()
                .any(|h| h.path == ["nested", "flag"] && h.kind == HeaderKind::Boolean)
        );
    }

    #[test]
    fn rejects_invalid_annotations() {
        assert!(
            collect(
                &json!({"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}})
            )
            .is_err()
        );
        assert!(
            collect(
                &json!({"type":"object","properties":{"x":{"type":"string","x-mcp-header":"A B"}}})
            )
            .is_err()
        );
        assert!(
            collect(
                &json!({"type":"object","properties":{"x":{"type":"string","x-mcp-header":""}}})
            )
            .is_err()
        );
        assert!(collect(&json!({"type":"object","properties":{
            "a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}})).is_err());
        assert!(collect(&json!({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"I"}}}})).is_err());
        assert!(collect(&json!({"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]})).is_err());
    }

    #[test]
    fn normalizes_optional_and_enum_parameters() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"], "x-mcp-header": "N"},
                "r": {"$ref": "#/$defs/Region", "x-mcp-header": "R"},
                "o": {"type": ["string", "null"]}
            },
            "$defs": {"Region": {"type": "string", "enum": ["eu", "us"]}}
        })
        .as_object()
        .cloned()
        .unwrap();
        normalize_header_properties(&mut schema);
        assert_eq!(schema["properties"]["n"]["type"], "integer");
        assert_eq!(
            schema["properties"]["r"],
            json!({"type": "string", "enum": ["eu", "us"], "x-mcp-header": "R"})
        );
        assert_eq!(
            schema["properties"]["o"]["type"],
            json!(["string", "null"]),
            "unannotated: untouched"
        );
        assert_eq!(collect_header_params(&schema).unwrap().len(), 2);
        assert!(collect(&json!({"type":"object","properties":{"x":{"type":["string","integer"],"x-mcp-header":"X"}}})).is_err());
    }

    #[cfg(feature = "http")]
    #[test]
    fn decodes_values() {
        assert_eq!(decode_value(b"us-west1").unwrap(), "us-west1");
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert!(decode_value(b"a\nb").is_err());
        assert!(decode_value(b"=?base64?!!?=").is_err());
        assert!(matches(HeaderKind::Integer, "42.0", &json!(42)));
        assert!(!matches(HeaderKind::Integer, "43", &json!(42)));
        assert!(matches(HeaderKind::Boolean, "true", &json!(true)));
        assert!(!matches(HeaderKind::Boolean, "True", &json!(true)));
    }

    /// The spec's encoding examples (streamable-http, "Value Encoding"), and each encoded
    /// value decodes back to what was encoded.
    #[cfg(feature = "client-http")]
    #[test]
    fn encodes_values_as_the_spec_shows() {
        for (value, wire) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(encode_value(value), wire);
            #[cfg(feature = "http")]
            assert_eq!(decode_value(wire.as_bytes()).unwrap(), value);
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn integers_are_compared_exactly() {
        let int = |h: &str, body: Value| matches(HeaderKind::Integer, h, &body);
        assert!(int(
            "1234567890123456789",
            json!(1_234_567_890_123_456_789_u64)
        ));
        assert!(!int(
            "1234567890123456789",
            json!(1_234_567_890_123_456_788_u64)
        ));
        assert!(int("-7", json!(-7)));
        assert!(int("0", json!(0)));
        assert!(int("42", json!(42.0)));
        assert!(int("42.00", json!(42)));
        for variant in [
            "1e3", "+1000", " 1000", "1000 ", "01000", "1000.5", "1000.", ".0", "-", "0x3e8",
        ] {
            assert!(!int(variant, json!(1000)), "{variant}");
        }
        // A float body beyond 2^53 is not an exact integer.
        assert!(!int("18014398509481984", json!(18_014_398_509_481_984.0)));
        assert!(!int("1", json!(1.5)));
    }
}
