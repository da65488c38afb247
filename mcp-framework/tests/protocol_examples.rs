//! The protocol types against the spec: every example of revision 2026-07-28 parses into its
//! Rust type and serializes back to the same JSON, and what we serialize validates against the
//! schema's `$defs/<Name>`. A few constructed values are validated the same way, including
//! legacy renderings against the 2025-11-25 schema.
//!
//! The spec is vendored in `tests/spec/` (see its README for the source and licence).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use mcp_framework::protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec")
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// Schema validation

/// Validators for `$defs/<Name>` of one schema revision, built on first use.
struct Schema {
    defs: Value,
    validators: HashMap<String, jsonschema::Validator>,
}

impl Schema {
    fn load(revision: &str) -> Self {
        let schema = read_json(&spec_dir().join(revision).join("schema.json"));
        Self {
            defs: schema["$defs"].clone(),
            validators: HashMap::new(),
        }
    }

    /// Every validation error of `instance` against `$defs/<name>`, one line each.
    fn errors(&mut self, name: &str, instance: &Value) -> Vec<String> {
        if self.defs.get(name).is_none() {
            return vec![format!("the schema has no $defs/{name}")];
        }
        let defs = &self.defs;
        let validator = self.validators.entry(name.to_owned()).or_insert_with(|| {
            let schema = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": format!("#/$defs/{name}"),
                "$defs": defs,
            });
            jsonschema::validator_for(&schema)
                .unwrap_or_else(|e| panic!("compiling $defs/{name}: {e}"))
        });
        validator
            .iter_errors(instance)
            .map(|e| format!("at {:?}: {e}", e.instance_path().as_str()))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips

type Trip = Result<Value, String>;

/// Parses `v` as `T` and serializes it again.
fn rt<T: Serialize + DeserializeOwned>(v: &Value) -> Trip {
    rt_check::<T>(v, |_| true, "")
}

/// Like [`rt`], and `check` must accept the parsed value (`what` names the expectation).
fn rt_check<T: Serialize + DeserializeOwned>(v: &Value, check: fn(&T) -> bool, what: &str) -> Trip {
    let parsed: T = serde_json::from_value(v.clone())
        .map_err(|e| format!("does not parse as {}: {e}", std::any::type_name::<T>()))?;
    if !check(&parsed) {
        return Err(format!("parsed, but not as {what}"));
    }
    serde_json::to_value(&parsed).map_err(|e| format!("does not serialize: {e}"))
}

/// Checks a JSON-RPC envelope's fixed members.
fn envelope(v: &Value, method: Option<&str>) -> Result<(), String> {
    if v["jsonrpc"] != "2.0" {
        return Err("envelope without \"jsonrpc\": \"2.0\"".into());
    }
    match method {
        Some(m) if v["method"] != m => Err(format!("method is {}, expected {m:?}", v["method"])),
        _ => Ok(()),
    }
}

/// Round-trips the `member` of an envelope through `T`, leaving the rest as it is.
fn inner<T: Serialize + DeserializeOwned>(v: &Value, member: &str, required: bool) -> Trip {
    let mut out = v.clone();
    match v.get(member) {
        Some(m) => out[member] = rt::<T>(m).map_err(|e| format!("{member}: {e}"))?,
        None if required => return Err(format!("missing {member:?}")),
        None => {}
    }
    Ok(out)
}

/// A JSON-RPC request whose `params` are `T`.
fn request<T: Serialize + DeserializeOwned>(v: &Value, method: &str) -> Trip {
    envelope(v, Some(method))?;
    if v.get("id").is_none() {
        return Err("request without id".into());
    }
    inner::<T>(v, "params", true)
}

/// A JSON-RPC notification whose `params` are `T` (optional for the `list_changed` ones).
fn notification<T: Serialize + DeserializeOwned>(v: &Value, method: &str, required: bool) -> Trip {
    envelope(v, Some(method))?;
    inner::<T>(v, "params", required)
}

/// A JSON-RPC result response whose `result` is `T`.
fn response<T: Serialize + DeserializeOwned>(v: &Value) -> Trip {
    envelope(v, None)?;
    inner::<T>(v, "result", true)
}

/// A JSON-RPC error response with this code.
fn error_response(v: &Value, code: i32) -> Trip {
    envelope(v, None)?;
    let out = inner::<ErrorObject>(v, "error", true)?;
    error_code(&out["error"], code)?;
    Ok(out)
}

fn error_code(v: &Value, code: i32) -> Result<(), String> {
    if v["code"] == code {
        Ok(())
    } else {
        Err(format!("error code {}, expected {code}", v["code"]))
    }
}

/// A bare error object with this code.
fn error_object(v: &Value, code: i32) -> Trip {
    let out = rt::<ErrorObject>(v)?;
    error_code(&out, code)?;
    Ok(out)
}

/// An [`InputRequest`] (`{method, params}`). Some examples also carry a JSON-RPC `id` or
/// `jsonrpc`, which an `InputRequest` does not model; they are set aside and put back.
fn input_request(v: &Value, method: &str) -> Trip {
    let mut rest = v.as_object().ok_or("not an object")?.clone();
    let envelope_members: Vec<_> = ["jsonrpc", "id"]
        .into_iter()
        .filter_map(|k| rest.remove(k).map(|val| (k, val)))
        .collect();
    let parsed: InputRequest = serde_json::from_value(Value::Object(rest))
        .map_err(|e| format!("does not parse as InputRequest: {e}"))?;
    if parsed.method() != method {
        return Err(format!("parsed as {}, expected {method}", parsed.method()));
    }
    let mut out = serde_json::to_value(&parsed).map_err(|e| e.to_string())?;
    for (k, val) in envelope_members {
        out[k] = val;
    }
    Ok(out)
}

/// Round-trips one example of `$defs/<kind>`. `None`: the kind has no mapping yet.
fn round_trip(kind: &str, v: &Value) -> Option<Trip> {
    use PrimitiveSchemaDefinition as P;
    use SamplingMessageContentBlock as S;

    Some(match kind {
        // Content blocks: the `type` tag belongs to the enum.
        "TextContent" => rt_check::<Content>(v, |c| matches!(c, Content::Text(_)), "text"),
        "ImageContent" => rt_check::<Content>(v, |c| matches!(c, Content::Image(_)), "image"),
        "AudioContent" => rt_check::<Content>(v, |c| matches!(c, Content::Audio(_)), "audio"),
        "ResourceLink" => rt_check::<Content>(
            v,
            |c| matches!(c, Content::ResourceLink(_)),
            "resource_link",
        ),
        "EmbeddedResource" => {
            rt_check::<Content>(v, |c| matches!(c, Content::Resource(_)), "resource")
        }
        "ContentBlock" => rt::<Content>(v),
        "ToolUseContent" => rt_check::<S>(v, |c| matches!(c, S::ToolUse(_)), "tool_use"),
        "ToolResultContent" => rt_check::<S>(v, |c| matches!(c, S::ToolResult(_)), "tool_result"),
        "SamplingMessageContentBlock" => rt::<S>(v),
        "TextResourceContents" => rt_check::<ResourceContents>(
            v,
            |c| matches!(c, ResourceContents::Text(_)),
            "text contents",
        ),
        "BlobResourceContents" => rt_check::<ResourceContents>(
            v,
            |c| matches!(c, ResourceContents::Blob(_)),
            "blob contents",
        ),
        "Annotations" => rt::<Annotations>(v),

        // Elicitation form fields.
        "StringSchema" => rt_check::<P>(v, |p| matches!(p, P::String(_)), "StringSchema"),
        "NumberSchema" => rt_check::<P>(v, |p| matches!(p, P::Number(_)), "NumberSchema"),
        "BooleanSchema" => rt_check::<P>(v, |p| matches!(p, P::Boolean(_)), "BooleanSchema"),
        "UntitledSingleSelectEnumSchema" => rt_check::<P>(
            v,
            |p| matches!(p, P::UntitledSingleSelect(_)),
            "UntitledSingleSelect",
        ),
        "TitledSingleSelectEnumSchema" => rt_check::<P>(
            v,
            |p| matches!(p, P::TitledSingleSelect(_)),
            "TitledSingleSelect",
        ),
        "UntitledMultiSelectEnumSchema" => rt_check::<P>(
            v,
            |p| matches!(p, P::UntitledMultiSelect(_)),
            "UntitledMultiSelect",
        ),
        "TitledMultiSelectEnumSchema" => rt_check::<P>(
            v,
            |p| matches!(p, P::TitledMultiSelect(_)),
            "TitledMultiSelect",
        ),
        "LegacyTitledEnumSchema" => {
            rt_check::<P>(v, |p| matches!(p, P::LegacyTitled(_)), "LegacyTitled")
        }
        "PrimitiveSchemaDefinition" => rt::<P>(v),

        // Capabilities and identity.
        "ClientCapabilities" => rt::<ClientCapabilities>(v),
        "ServerCapabilities" => rt::<ServerCapabilities>(v),
        "Implementation" => rt::<Implementation>(v),
        "Icon" => rt::<Icon>(v),

        // Discovery.
        "DiscoverRequest" => request::<RequestParams>(v, "server/discover"),
        "DiscoverResult" => rt::<DiscoverResult>(v),
        "DiscoverResultResponse" => response::<DiscoverResult>(v),

        // Tools.
        "Tool" => rt::<Tool>(v),
        "ToolAnnotations" => rt::<ToolAnnotations>(v),
        "ListToolsRequest" => request::<PaginatedRequestParams>(v, "tools/list"),
        "ListToolsResult" => rt::<ListToolsResult>(v),
        "ListToolsResultResponse" => response::<ListToolsResult>(v),
        "CallToolRequest" => request::<CallToolRequestParams>(v, "tools/call"),
        "CallToolRequestParams" => rt::<CallToolRequestParams>(v),
        "CallToolResult" => rt::<CallToolResult>(v),
        "CallToolResultResponse" => response::<MaybeInputRequired<CallToolResult>>(v),
        "ToolListChangedNotification" => {
            notification::<NotificationParams>(v, "notifications/tools/list_changed", false)
        }

        // Prompts.
        "Prompt" => rt::<Prompt>(v),
        "PromptArgument" => rt::<PromptArgument>(v),
        "PromptMessage" => rt::<PromptMessage>(v),
        "ListPromptsRequest" => request::<PaginatedRequestParams>(v, "prompts/list"),
        "ListPromptsResult" => rt::<ListPromptsResult>(v),
        "ListPromptsResultResponse" => response::<ListPromptsResult>(v),
        "GetPromptRequest" => request::<GetPromptRequestParams>(v, "prompts/get"),
        "GetPromptRequestParams" => rt::<GetPromptRequestParams>(v),
        "GetPromptResult" => rt::<GetPromptResult>(v),
        "GetPromptResultResponse" => response::<MaybeInputRequired<GetPromptResult>>(v),
        "PromptListChangedNotification" => {
            notification::<NotificationParams>(v, "notifications/prompts/list_changed", false)
        }

        // Resources.
        "Resource" => rt::<Resource>(v),
        "ResourceTemplate" => rt::<ResourceTemplate>(v),
        "ListResourcesRequest" => request::<PaginatedRequestParams>(v, "resources/list"),
        "ListResourcesResult" => rt::<ListResourcesResult>(v),
        "ListResourcesResultResponse" => response::<ListResourcesResult>(v),
        "ListResourceTemplatesRequest" => {
            request::<PaginatedRequestParams>(v, "resources/templates/list")
        }
        "ListResourceTemplatesResult" => rt::<ListResourceTemplatesResult>(v),
        "ListResourceTemplatesResultResponse" => response::<ListResourceTemplatesResult>(v),
        "ReadResourceRequest" => request::<ReadResourceRequestParams>(v, "resources/read"),
        "ReadResourceRequestParams" => rt::<ReadResourceRequestParams>(v),
        "ReadResourceResult" => rt::<ReadResourceResult>(v),
        "ReadResourceResultResponse" => response::<MaybeInputRequired<ReadResourceResult>>(v),
        "ResourceListChangedNotification" => {
            notification::<NotificationParams>(v, "notifications/resources/list_changed", false)
        }
        "ResourceUpdatedNotification" => notification::<ResourceUpdatedNotificationParams>(
            v,
            "notifications/resources/updated",
            true,
        ),
        "ResourceUpdatedNotificationParams" => rt::<ResourceUpdatedNotificationParams>(v),

        // Completion.
        "CompleteRequest" => request::<CompleteRequestParams>(v, "completion/complete"),
        "CompleteRequestParams" => rt::<CompleteRequestParams>(v),
        "CompleteResult" => rt::<CompleteResult>(v),
        "CompleteResultResponse" => response::<CompleteResult>(v),

        // Pagination and shared params.
        "PaginatedRequestParams" => rt::<PaginatedRequestParams>(v),
        "RequestParams" => rt::<RequestParams>(v),
        "NotificationParams" => rt::<NotificationParams>(v),

        // Subscriptions.
        "SubscriptionFilter" => rt::<SubscriptionFilter>(v),
        "SubscriptionsListenRequest" => {
            request::<SubscriptionsListenRequestParams>(v, "subscriptions/listen")
        }
        "SubscriptionsListenRequestParams" => rt::<SubscriptionsListenRequestParams>(v),
        "SubscriptionsListenResult" => rt::<SubscriptionsListenResult>(v),
        "SubscriptionsListenResultResponse" => response::<SubscriptionsListenResult>(v),
        "SubscriptionsAcknowledgedNotification" => {
            notification::<SubscriptionsAcknowledgedNotificationParams>(
                v,
                "notifications/subscriptions/acknowledged",
                true,
            )
        }
        "SubscriptionsAcknowledgedNotificationParams" => {
            rt::<SubscriptionsAcknowledgedNotificationParams>(v)
        }

        // Multi round-trip requests and the three client-side requests.
        "InputRequest" => rt::<InputRequest>(v),
        "InputRequests" => rt::<InputRequests>(v),
        "InputResponse" => rt::<InputResponse>(v),
        "InputResponses" => rt::<InputResponses>(v),
        "InputRequiredResult" => rt::<InputRequiredResult>(v),
        "CreateMessageRequest" => input_request(v, "sampling/createMessage"),
        "CreateMessageRequestParams" => rt::<CreateMessageRequestParams>(v),
        "CreateMessageResult" => rt::<CreateMessageResult>(v),
        "SamplingMessage" => rt::<SamplingMessage>(v),
        "ModelPreferences" => rt::<ModelPreferences>(v),
        "ModelHint" => rt::<ModelHint>(v),
        "ToolChoice" => rt::<ToolChoice>(v),
        "ListRootsRequest" => input_request(v, "roots/list"),
        "ListRootsResult" => rt::<ListRootsResult>(v),
        "Root" => rt::<Root>(v),
        "ElicitRequest" => input_request(v, "elicitation/create"),
        "ElicitRequestParams" => rt::<ElicitRequestParams>(v),
        "ElicitRequestFormParams" => rt_check::<ElicitRequestParams>(
            v,
            |p| matches!(p, ElicitRequestParams::Form(_)),
            "form params",
        ),
        "ElicitRequestURLParams" => rt_check::<ElicitRequestParams>(
            v,
            |p| matches!(p, ElicitRequestParams::Url(_)),
            "URL params",
        ),
        "ElicitResult" => rt::<ElicitResult>(v),

        // Notifications.
        "ProgressNotification" => {
            notification::<ProgressNotificationParams>(v, "notifications/progress", true)
        }
        "ProgressNotificationParams" => rt::<ProgressNotificationParams>(v),
        "LoggingMessageNotification" => {
            notification::<LoggingMessageNotificationParams>(v, "notifications/message", true)
        }
        "LoggingMessageNotificationParams" => rt::<LoggingMessageNotificationParams>(v),
        "CancelledNotification" => {
            notification::<CancelledNotificationParams>(v, "notifications/cancelled", true)
        }
        "CancelledNotificationParams" => rt::<CancelledNotificationParams>(v),

        // Errors: bare error objects, and whole error responses.
        "Error" => rt::<ErrorObject>(v),
        "ParseError" => error_object(v, codes::PARSE_ERROR),
        "InvalidRequestError" => error_object(v, codes::INVALID_REQUEST),
        "MethodNotFoundError" => error_object(v, codes::METHOD_NOT_FOUND),
        "InvalidParamsError" => error_object(v, codes::INVALID_PARAMS),
        "InternalError" => error_object(v, codes::INTERNAL_ERROR),
        "HeaderMismatchError" => error_response(v, codes::HEADER_MISMATCH),
        "MissingRequiredClientCapabilityError" => {
            error_response(v, codes::MISSING_REQUIRED_CLIENT_CAPABILITY)
        }
        "UnsupportedProtocolVersionError" => error_response(v, codes::UNSUPPORTED_PROTOCOL_VERSION),

        _ => return None,
    })
}

/// Makes integral floats integers, so that `50` and the `50.0` an `f64` field writes back
/// compare equal (JSON does not tell them apart).
fn normalize_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 2f64.powi(53) {
                let i = f as i64;
                *v = Value::from(i);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Every `examples/<Type>/<name>.json` of a revision, sorted.
fn examples(revision: &str) -> Vec<(String, PathBuf)> {
    let root = spec_dir().join(revision).join("examples");
    let mut out = Vec::new();
    let dirs = fs::read_dir(&root).unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
    for dir in dirs {
        let dir = dir.expect("directory entry").path();
        if !dir.is_dir() {
            continue;
        }
        let kind = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in fs::read_dir(&dir).expect("example directory") {
            let file = file.expect("directory entry").path();
            if file.extension().is_some_and(|e| e == "json") {
                out.push((kind.clone(), file));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_example_round_trips_and_validates() {
    let mut schema = Schema::load(MODERN);
    let all = examples(MODERN);
    assert!(
        all.len() > 100,
        "expected the spec's examples, found {}",
        all.len()
    );

    let mut failures = Vec::new();
    for (kind, path) in &all {
        let name = format!("{kind}/{}", path.file_name().unwrap().to_string_lossy());
        let original = read_json(path);
        let Some(trip) = round_trip(kind, &original) else {
            failures.push(format!(
                "{name}: no Rust type is mapped to {kind:?} (add it to round_trip)"
            ));
            continue;
        };
        let written = match trip {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        for e in schema.errors(kind, &written) {
            failures.push(format!(
                "{name}: re-serialized value fails $defs/{kind} {e}"
            ));
        }
        let (mut want, mut got) = (original, written);
        normalize_numbers(&mut want);
        normalize_numbers(&mut got);
        if want != got {
            failures.push(format!(
                "{name}: round trip changed the JSON\n--- example\n{}\n--- re-serialized\n{}",
                pretty(&want),
                pretty(&got)
            ));
        }
    }

    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

/// Values built with the constructors are valid 2026-07-28 messages once the dispatcher's
/// fields (`resultType`, cache hints) are set.
#[test]
fn constructed_values_validate() {
    let mut schema = Schema::load(MODERN);
    assert!(
        !schema.errors("CallToolResult", &json!({})).is_empty(),
        "the validator must reject a result without content"
    );
    let mut input_schema = JsonObject::new();
    input_schema.insert("type".into(), json!("object"));
    let mut tools = ListToolsResult {
        tools: vec![Tool::new("add", input_schema)],
        ..ListToolsResult::default()
    };
    tools.set_result_type(Some(ResultType::Complete));
    tools.set_cache_hints(Some(0), Some(CacheScope::Public));

    let mut call = CallToolResult::structured(json!({"sum": 3}));
    call.set_result_type(Some(ResultType::Complete));

    let form = ElicitRequestParams::form(
        "Name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let ask = InputRequiredResult::new()
        .with_input_request("name", form)
        .with_input_request("roots", InputRequest::list_roots())
        .with_input_request(
            "llm",
            CreateMessageRequestParams::new(vec![SamplingMessage::user("hi")], 10),
        )
        .with_request_state("opaque");

    let cases: Vec<(&str, Value)> = vec![
        ("ListToolsResult", serde_json::to_value(&tools).unwrap()),
        ("CallToolResult", serde_json::to_value(&call).unwrap()),
        ("InputRequiredResult", serde_json::to_value(&ask).unwrap()),
        (
            "InputRequiredResult",
            serde_json::to_value(InputRequiredResult::new().with_request_state("s")).unwrap(),
        ),
        (
            "ElicitResult",
            serde_json::to_value(ElicitResult::decline()).unwrap(),
        ),
        (
            "ContentBlock",
            serde_json::to_value(Content::embedded_blob("file:///x", "image/png", "AAAA")).unwrap(),
        ),
        (
            "ContentBlock",
            serde_json::to_value(Content::resource_link(Resource::new("file:///x", "x"))).unwrap(),
        ),
        (
            "SubscriptionsListenResult",
            serde_json::to_value(SubscriptionsListenResult::closed(&RequestId::Number(3))).unwrap(),
        ),
        (
            "CompleteResult",
            serde_json::to_value(CompleteResult {
                completion: Completion::from_matches((0..300).map(|i| i.to_string()).collect()),
                result_type: Some(ResultType::Complete),
                meta: None,
            })
            .unwrap(),
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|(name, v)| {
            schema
                .errors(name, v)
                .into_iter()
                .map(move |e| format!("{name} {}: {e}", pretty(v)))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Legacy renderings (no `resultType`, no cache hints, `elicitationId` on URL elicitations)
/// validate against the 2025-11-25 schema.
#[test]
fn legacy_renderings_validate_against_2025_11_25() {
    let mut schema = Schema::load(LEGACY);
    let mut input_schema = JsonObject::new();
    input_schema.insert("type".into(), json!("object"));

    let initialize = InitializeRequestParams {
        protocol_version: LEGACY.into(),
        capabilities: ClientCapabilities::default(),
        client_info: Implementation {
            name: "client".into(),
            version: "1.0.0".into(),
            ..Implementation::default()
        },
        meta: None,
    };
    let initialized = InitializeResult {
        protocol_version: LEGACY.into(),
        capabilities: ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            ..ServerCapabilities::default()
        },
        server_info: Implementation {
            name: "server".into(),
            version: "1.0.0".into(),
            ..Implementation::default()
        },
        instructions: Some("Be nice.".into()),
        meta: None,
    };
    let ElicitRequestParams::Url(mut url) = ElicitRequestParams::url("Log in", "https://x.test")
    else {
        unreachable!()
    };
    url.elicitation_id = Some("e1".into());

    let cases: Vec<(&str, Value)> = vec![
        (
            "InitializeRequestParams",
            serde_json::to_value(&initialize).unwrap(),
        ),
        (
            "InitializeResult",
            serde_json::to_value(&initialized).unwrap(),
        ),
        (
            "SetLevelRequestParams",
            serde_json::to_value(SetLevelRequestParams {
                level: LoggingLevel::Info,
                meta: None,
            })
            .unwrap(),
        ),
        (
            "SubscribeRequestParams",
            serde_json::to_value(SubscribeRequestParams {
                uri: "file:///a".into(),
                meta: None,
            })
            .unwrap(),
        ),
        (
            "UnsubscribeRequestParams",
            serde_json::to_value(UnsubscribeRequestParams {
                uri: "file:///a".into(),
                meta: None,
            })
            .unwrap(),
        ),
        (
            "ElicitRequestURLParams",
            serde_json::to_value(&url).unwrap(),
        ),
        (
            "ListToolsResult",
            serde_json::to_value(ListToolsResult {
                tools: vec![Tool::new("t", input_schema)],
                ..ListToolsResult::default()
            })
            .unwrap(),
        ),
        (
            "CallToolResult",
            serde_json::to_value(CallToolResult::structured(json!({"a": 1}))).unwrap(),
        ),
        (
            "ReadResourceResult",
            serde_json::to_value(ReadResourceResult::new(vec![ResourceContents::text(
                "file:///a",
                "text/plain",
                "x",
            )]))
            .unwrap(),
        ),
        (
            "CancelledNotificationParams",
            serde_json::to_value(CancelledNotificationParams::default()).unwrap(),
        ),
        (
            "EmptyResult",
            serde_json::to_value(EmptyResult::default()).unwrap(),
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|(name, v)| {
            schema
                .errors(name, v)
                .into_iter()
                .map(move |e| format!("{name} {}: {e}", pretty(v)))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
