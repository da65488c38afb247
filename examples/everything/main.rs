//! `everything`: the whole MCP surface in one server, for the official conformance suite
//! (legacy, `initialize`-based) and for 2026-07-28 clients alike.
//!
//! ```text
//! everything stdio
//! everything http --bind 127.0.0.1:8080      # endpoint: http://127.0.0.1:8080/mcp
//! ```

use std::time::Duration;

use mcp_framework::protocol::{CreateMessageRequestParams, JsonObject, SamplingMessage};
use mcp_framework::{
    CallToolResult, CompletionRequest, Content, Context, Elicitation, PromptMessage, Role, Server,
    ServerHandle, ToolDefinition, ToolError, ToolSet, prompt, resource, tool, tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A tiny WAV file (8 kHz, 8-bit mono, a few samples of silence).
const WAV: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA";

const WATCHED: &str = "test://watched-resource";

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

// --- Part 1: the conformance suite's fixtures ---------------------------------------------

/// Returns a simple text response.
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[tool]
fn test_image_content() -> Content {
    Content::image(PNG, "image/png")
}

/// Returns an audio clip.
#[tool]
fn test_audio_content() -> Content {
    Content::audio(WAV, "audio/wav")
}

/// Returns an embedded resource.
#[tool]
fn test_embedded_resource() -> Content {
    Content::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and an embedded resource.
#[tool]
fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Sends three log messages while it works.
#[tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.info("Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool execution completed").await;
    "Tool with logging executed successfully"
}

/// Reports progress 0, 50 and 100 of 100.
#[tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(done, Some(100.0), None).await;
    }
    "Tool with progress executed successfully"
}

/// Always fails (a tool execution error, not a protocol error).
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Asks the client's LLM to answer `prompt`.
#[tool]
async fn test_sampling(
    /// What to ask the LLM.
    prompt: String,
    ctx: Context,
) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user(prompt)], 100);
    let answer = ctx.sample(params).await?;
    Ok(format!(
        "LLM response: {}",
        answer.content.as_text().unwrap_or_default()
    ))
}

fn describe(outcome: Elicitation<JsonObject>) -> String {
    match outcome {
        Elicitation::Accept(content) => format!(
            "User response: action=accept, content={}",
            Value::Object(content)
        ),
        Elicitation::Decline => "User response: action=decline, content=null".to_owned(),
        Elicitation::Cancel => "User response: action=cancel, content=null".to_owned(),
    }
}

/// Asks the user for a username and an email.
#[tool]
async fn test_elicitation(
    /// The message shown to the user.
    message: String,
    ctx: Context,
) -> Result<String, ToolError> {
    let schema = object(json!({
        "type": "object",
        "properties": {"username": {"type": "string"}, "email": {"type": "string"}},
        "required": ["username", "email"]
    }));
    Ok(describe(ctx.elicit_with_schema(message, schema).await?))
}

/// Elicitation whose fields all have defaults (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ToolError> {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    }));
    Ok(describe(
        ctx.elicit_with_schema("Please review your profile", schema)
            .await?,
    ))
}

/// Elicitation with every enum shape (SEP-1330).
#[tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ToolError> {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        }
    }));
    Ok(describe(
        ctx.elicit_with_schema("Pick some options", schema).await?,
    ))
}

/// Legacy Streamable HTTP (SEP-1699): closes its SSE stream mid-call; the client resumes it
/// with `Last-Event-ID` and still receives the result.
#[tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.info("Closing the stream; reconnect to get the result")
        .await;
    ctx.close_response_stream();
    tokio::time::sleep(Duration::from_millis(200)).await;
    "Reconnection test completed"
}

/// A static text resource.
#[resource(uri = "test://static-text", mime = "text/plain", name = "static-text")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a PNG).
#[resource(
    uri = "test://static-binary",
    mime = "image/png",
    name = "static-binary"
)]
fn static_binary() -> mcp_framework::Blob {
    use base64::Engine as _;
    mcp_framework::Blob(
        base64::engine::general_purpose::STANDARD
            .decode(PNG)
            .unwrap_or_default(),
    )
}

/// Data for any id.
#[resource(
    template = "test://template/{id}/data",
    mime = "application/json",
    name = "template-data"
)]
fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

/// A resource whose updates can be watched (see `touch_watched_resource`).
#[resource(
    uri = "test://watched-resource",
    mime = "text/plain",
    name = "watched-resource"
)]
fn watched_resource() -> &'static str {
    "This resource changes when touch_watched_resource is called."
}

/// A simple prompt.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

fn complete_arg1(req: CompletionRequest) -> Vec<String> {
    req.matching(["test", "testing", "tested", "value"])
}

/// A prompt with two required arguments.
#[prompt]
fn test_prompt_with_arguments(
    /// First argument.
    #[complete(complete_arg1)]
    arg1: String,
    /// Second argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed.
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: Content::embedded_text(
                resourceUri,
                "text/plain",
                "Embedded resource content for testing.",
            ),
        },
        PromptMessage {
            role: Role::User,
            content: Content::text("Please process the embedded resource above."),
        },
    ]
}

/// A prompt with an image.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: Content::image(PNG, "image/png"),
        },
        PromptMessage {
            role: Role::User,
            content: Content::text("Please analyze the image above."),
        },
    ]
}

// --- Part 2: 2026-07-28 extras --------------------------------------------------------------

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

/// Adds two numbers.
#[tool(read_only, idempotent)]
fn add(
    /// Left operand.
    a: f64,
    /// Right operand.
    b: f64,
) -> Sum {
    Sum { sum: a + b }
}

/// Echoes the text back.
#[tool(read_only)]
fn echo(
    /// Any text.
    text: String,
) -> String {
    text
}

/// Only listed after `toggle_extra_tool`.
#[tool(register = false)]
fn extra_tool() -> &'static str {
    "extra"
}

/// Adds `extra_tool` if it is absent, removes it otherwise.
#[tool]
fn toggle_extra_tool(#[ctx] server: ServerHandle) -> Result<&'static str, ToolError> {
    if server.remove_tool("extra_tool") {
        Ok("extra_tool removed")
    } else {
        server
            .add_tools(tools![extra_tool])
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok("extra_tool added")
    }
}

/// Announces an update of `test://watched-resource`.
#[tool]
fn touch_watched_resource(#[ctx] server: ServerHandle) -> &'static str {
    server.resource_updated(WATCHED);
    "touched test://watched-resource"
}

/// Counts to `n`, sleeping `delay_ms` before each step and reporting progress.
#[tool]
async fn count_slowly(
    /// How far to count.
    n: u32,
    /// Milliseconds before each step.
    delay_ms: u64,
    ctx: Context,
) -> String {
    for i in 1..=n {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(delay_ms)) => {}
            () = ctx.cancelled() => return format!("cancelled at {i}"),
        }
        ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
    }
    format!("counted {n}")
}

/// Echoes text prefixed with a region that intermediaries can route on.
#[tool]
fn regional_echo(
    /// The region (mirrored in the `Mcp-Param-Region` header).
    #[header("Region")]
    region: String,
    /// Any text.
    text: String,
) -> String {
    format!("{region}:{text}")
}

/// The name asked of the user.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

/// Greets the user by the name it asks them for.
#[tool]
async fn ask_name(ctx: Context) -> Result<String, ToolError> {
    match ctx.elicit::<Name>("What is your name?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
        Elicitation::Decline | Elicitation::Cancel => Ok("Hello, stranger!".to_owned()),
    }
}

fn json_schema_2020_12_tool() -> ToolSet {
    let schema = object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
        "additionalProperties": false
    }));
    ToolSet::new().with_fn(
        ToolDefinition::new("json_schema_2020_12_tool", schema)
            .description("Tool with JSON Schema 2020-12 features"),
        |args, _cx| async move {
            Ok(CallToolResult {
                content: vec![Content::text(format!("Received: {args}"))],
                ..CallToolResult::default()
            })
        },
    )
}

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    let server = Server::builder()
        .name("everything")
        .version(env!("CARGO_PKG_VERSION"))
        .title("Everything")
        .instructions("A test server exercising every MCP feature.")
        .add_tools(json_schema_2020_12_tool())
        .build()?;
    server.run().await
}
