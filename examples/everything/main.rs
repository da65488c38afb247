//! `everything`: the whole MCP surface in one server, for the official conformance suite
//! (legacy, `initialize`-based) and for 2026-07-28 clients alike. Every call goes through
//! an audit layer (one `tracing` line per call on stderr), and `count_slowly` has a
//! timeout of its own.
//!
//! ```text
//! everything stdio
//! everything http --bind 127.0.0.1:8080      # endpoint: http://127.0.0.1:8080/mcp
//! # behind nginx on this machine, for a browser app on another origin:
//! everything http --bind 127.0.0.1:8080 --allow-host mcp.example.com \
//!     --trust-proxy 127.0.0.1 --allow-origin https://app.example.com
//! ```
//!
//! With an authorization server, every HTTP request needs its bearer token, `whoami`
//! needs the scope `profile:read`, and the `summarize_note` prompt and the `notes://{title}`
//! template (and their completions) need `notes:read`. A caller without a principal (stdio,
//! or HTTP without `--auth-*`) holds no scopes and is refused them. With authorization:
//!
//! ```text
//! everything http --auth-issuer https://auth.example.com \
//!     --auth-audience http://127.0.0.1:8080/mcp
//! ```
//!
//! The deployment options are those of every server's
//! [`ServerBuilder::run`](mcp_framework::ServerBuilder::run) command line; `--instructions`
//! is this server's own (see [`Options`]), added with
//! [`run_with`](mcp_framework::ServerBuilder::run_with).

mod apps;

use std::time::Duration;

use mcp_framework::clap;
use mcp_framework::events::{Emitter, EventType, EventTypes, Events};
use mcp_framework::middleware::{self, AuditLayer};
use mcp_framework::protocol::{CreateMessageRequestParams, JsonObject, Root, SamplingMessage};
use mcp_framework::{
    CallToolResult, CompletionRequest, Content, Context, Elicitation, Form, PromptMessage, Role,
    SchemaProfile, Server, ServerHandle, State, ToolDefinition, ToolError, ToolSet, prompt,
    prompts, resource, tool, tools,
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

// --- Authorization -------------------------------------------------------------------------

/// Who is calling: the token's subject, client and scopes.
#[derive(Serialize, JsonSchema)]
struct Caller {
    /// The subject (`sub`), or `anonymous` when the server runs without authorization.
    subject: String,
    /// The OAuth client the token was issued to.
    client_id: Option<String>,
    /// The scopes the token grants.
    scopes: Vec<String>,
}

/// Says who the caller is. Needs the scope `profile:read` when the server runs with
/// `--auth-issuer` and `--auth-audience`.
#[tool(scopes = ["profile:read"], read_only = true)]
fn whoami(cx: Context) -> Caller {
    match cx.principal() {
        Some(p) => Caller {
            subject: p.subject().to_owned(),
            client_id: p.client_id().map(str::to_owned),
            scopes: p.scopes().iter().map(str::to_owned).collect(),
        },
        None => Caller {
            subject: "anonymous".to_owned(),
            client_id: None,
            scopes: Vec::new(),
        },
    }
}

/// The titles of the caller's own notes that start with what was typed: a completer runs
/// only for callers that may use the prompt or template it completes, and sees who asks.
fn note_titles(req: CompletionRequest, cx: Context) -> Vec<String> {
    let owner = cx.principal().map_or("anonymous", |p| p.subject());
    req.matching([format!("{owner}-todo"), format!("{owner}-ideas")])
}

/// Summarizes one of the caller's notes. Needs the scope `notes:read`: a caller without it
/// is challenged for it, and its completer answers nobody else.
#[prompt(scopes = ["notes:read"])]
fn summarize_note(
    /// The note's title.
    #[complete(note_titles)]
    title: String,
    cx: Context,
) -> String {
    let owner = cx.principal().map_or("anonymous", |p| p.subject());
    format!("Summarize the note `{title}` of {owner}.")
}

/// One of the caller's notes. Needs the scope `notes:read` (a read, a subscription or a
/// completion of `title` without it is challenged).
#[resource(template = "notes://{title}", mime = "text/plain", scopes = ["notes:read"])]
fn note(
    /// The note's title.
    #[complete(note_titles)]
    title: String,
    cx: Context,
) -> String {
    let owner = cx.principal().map_or("anonymous", |p| p.subject());
    format!("Note `{title}` of {owner}: nothing yet.")
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
    let answer = ctx.sample(question(&prompt, 100)).await?;
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

/// An alert was raised (an occurrence of the `alert.raised` event).
#[derive(Serialize, Deserialize, JsonSchema)]
struct Alert {
    /// `info`, `warning` or `critical`.
    level: String,
    /// What happened.
    message: String,
}

/// Which alerts a subscription to `alert.raised` hears about.
#[derive(Deserialize, JsonSchema)]
struct AlertFilter {
    /// Only alerts of this level.
    level: Option<String>,
}

/// The event types this server publishes (the Events extension): `alert.raised`, which
/// `raise_alert` emits, polled with `events/poll` or streamed with `events/stream`.
fn events(heartbeat: Duration) -> Events {
    Events::new()
        .heartbeat(heartbeat)
        .event(EventType::new::<Alert>("alert.raised").arguments(
            |alert: &Alert, wanted: &AlertFilter| {
                wanted
                    .level
                    .as_ref()
                    .is_none_or(|level| *level == alert.level)
            },
        ))
}

/// Raises an alert: subscribers of `alert.raised` (polls, streams) hear of it.
#[tool]
fn raise_alert(
    emitter: State<Emitter>,
    /// `info`, `warning` or `critical`.
    level: String,
    /// What happened.
    message: String,
) -> Result<String, ToolError> {
    let id = emitter
        .emit(Alert { level, message })
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("raised {id}"))
}

/// A maintenance window was announced (`maintenance.window`, an event type served only
/// after `toggle_maintenance_events`).
#[derive(Serialize, Deserialize, JsonSchema)]
struct Maintenance {
    /// What is being maintained.
    system: String,
}

/// Adds the event type `maintenance.window` if it is absent, removes it otherwise (as a
/// plugin would, loaded and unloaded): listeners that asked for `eventsListChanged` are
/// told, and the removed type's streams end with `notifications/events/terminated`.
#[tool]
fn toggle_maintenance_events(types: State<EventTypes>) -> Result<&'static str, ToolError> {
    if types.remove("maintenance.window") {
        Ok("maintenance.window removed")
    } else {
        types
            .add(EventType::new::<Maintenance>("maintenance.window"))
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok("maintenance.window added")
    }
}

/// Only listed after `toggle_extra_tool`.
#[tool(register = false)]
fn extra_tool() -> &'static str {
    "extra"
}

/// Adds `extra_tool` if it is absent, removes it otherwise.
#[tool]
fn toggle_extra_tool(#[ctx] server: ServerHandle) -> Result<&'static str, ToolError> {
    toggle_extra(&server)
}

fn toggle_extra(server: &ServerHandle) -> Result<&'static str, ToolError> {
    if server.remove_tool("extra_tool") {
        Ok("extra_tool removed")
    } else {
        server
            .add_tools(tools![extra_tool])
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok("extra_tool added")
    }
}

/// Prints to the process's stdout and reads its stdin, as careless code does: on stdio the
/// framework sends such prints to stderr and gives such reads nothing, so the protocol
/// stream stays clean.
#[tool]
fn print_to_stdout(
    /// What to print.
    text: String,
) -> String {
    println!("{text}");
    print!("no newline either ");
    let mut line = String::new();
    let read = std::io::stdin().read_line(&mut line).unwrap_or(0);
    format!("printed; stdin gave {read} bytes")
}

/// Announces an update of `test://watched-resource`.
#[tool]
fn touch_watched_resource(#[ctx] server: ServerHandle) -> &'static str {
    server.resource_updated(WATCHED);
    "touched test://watched-resource"
}

/// Counts to `n`, sleeping `delay_ms` before each step and reporting progress. Stopped
/// after 30 s (a middleware timeout: the call fails with "tool `count_slowly` timed out").
#[tool(layer = middleware::timeout(Duration::from_secs(30)))]
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

/// A reading whose declared type and value disagree, as when a `#[schemars(with = …)]`
/// goes stale: the schema says a number, the value is text.
#[derive(Serialize, JsonSchema)]
struct Reading {
    /// Degrees Celsius.
    #[schemars(with = "f64")]
    celsius: String,
}

/// Returns a result that does not match its own `outputSchema`. It is never sent as a
/// success: debug builds answer with an internal error (`-32603`), release builds with a
/// tool error (`isError`), and both log the mismatch.
#[tool]
fn test_invalid_structured_output() -> Reading {
    Reading {
        celsius: "warm".into(),
    }
}

/// The name asked of the user.
#[derive(Deserialize, JsonSchema, Form)]
struct Name {
    /// Your name.
    name: String,
}

/// Greets the user by the name it asks them for.
#[tool]
async fn ask_name(ctx: Context) -> Result<String, ToolError> {
    hello(ctx.elicit::<Name>("What is your name?").await?)
}

// --- Part 3: 2026-07-28 fixtures of the conformance suite (0.2.0) -----------------------------
//
// Ordinary tools and prompts: the suite calls them by name and checks what they answer.

/// Asks the client's LLM a question: without the client's `sampling` capability the
/// request fails with `-32021` naming it.
#[tool]
async fn test_missing_capability(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.sample(question("Say hello.", 20)).await?;
    Ok(format!(
        "LLM response: {}",
        answer.content.as_text().unwrap_or_default()
    ))
}

/// Asks the user for their name; the question travels in the result, never as a request
/// of its own on the response stream.
#[tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    hello(ctx.elicit::<Name>("What is your name?").await?)
}

fn hello(outcome: Elicitation<Name>) -> Result<String, ToolError> {
    Ok(match outcome {
        Elicitation::Accept(Name { name }) => format!("Hello, {name}!"),
        Elicitation::Decline | Elicitation::Cancel => "Hello, stranger!".to_owned(),
    })
}

/// Logs at info while it works (only a request that asks for a log level sees them).
#[tool]
async fn test_logging_tool(ctx: Context) -> &'static str {
    ctx.info("test_logging_tool started").await;
    ctx.info("test_logging_tool finished").await;
    "logged"
}

/// Changes the tool list (adds or removes `extra_tool`, as `toggle_extra_tool`).
#[tool]
fn test_trigger_tool_change(#[ctx] server: ServerHandle) -> Result<&'static str, ToolError> {
    toggle_extra(&server)
}

/// Only listed after `test_trigger_prompt_change`.
#[prompt(register = false)]
fn extra_prompt() -> &'static str {
    "An extra prompt."
}

/// Changes the prompt list (adds `extra_prompt` if it is absent, removes it otherwise).
#[tool]
fn test_trigger_prompt_change(#[ctx] server: ServerHandle) -> Result<&'static str, ToolError> {
    if server.remove_prompt("extra_prompt") {
        Ok("extra_prompt removed")
    } else {
        server
            .add_prompts(prompts![extra_prompt])
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok("extra_prompt added")
    }
}

/// Greets the user by the name it asks for (input key `user_name`).
#[tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, ToolError> {
    hello(
        ctx.elicit::<Name>("What is your name?")
            .key("user_name")
            .await?,
    )
}

fn question(text: &str, max_tokens: u64) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user(text)], max_tokens)
}

/// Asks the client's LLM for the capital of France (input key `capital_question`).
#[tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .sample(question("What is the capital of France?", 100))
        .key("capital_question")
        .await?;
    Ok(format!(
        "The LLM says: {}",
        answer.content.as_text().unwrap_or_default()
    ))
}

fn root_list(roots: &[Root]) -> String {
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    format!("roots: {}", uris.join(", "))
}

/// Lists the client's roots (input key `client_roots`).
#[tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, ToolError> {
    Ok(root_list(&ctx.roots().key("client_roots").await?))
}

/// A yes-or-no answer.
#[derive(Deserialize, JsonSchema, Form)]
struct Confirmation {
    /// Whether to go ahead.
    ok: bool,
}

/// Asks for a confirmation (input key `confirm`); the answer comes back with the sealed
/// `requestState`, which the server checks before the handler runs again.
#[tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, ToolError> {
    let outcome = ctx
        .elicit::<Confirmation>("Please confirm")
        .key("confirm")
        .await?;
    let ok = outcome.accepted().is_some_and(|c| c.ok);
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks three questions at once: a name, a greeting from the LLM and the roots.
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, ToolError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit::<Name>("What is your name?").key("user_name"),
        ctx.sample(question("Generate a greeting", 50))
            .key("greeting"),
        ctx.roots().key("client_roots"),
    );
    Ok(format!(
        "{} {} ({})",
        hello(name?)?,
        greeting?.content.as_text().unwrap_or_default(),
        root_list(&roots?)
    ))
}

/// A favourite colour.
#[derive(Deserialize, JsonSchema, Form)]
struct Color {
    /// The colour.
    color: String,
}

/// Asks two questions, one round each (`step1`, then `step2`).
#[tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit::<Name>("Step 1: What is your name?")
        .key("step1")
        .await?
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    let color = ctx
        .elicit::<Color>("Step 2: What is your favorite color?")
        .key("step2")
        .await?
        .accepted()
        .map_or_else(|| "no colour".to_owned(), |c| c.color);
    Ok(format!("{name} likes {color}"))
}

/// Asks for a confirmation; a tampered `requestState` on the retry is refused (`-32602`).
#[tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, ToolError> {
    let outcome = ctx.elicit::<Confirmation>("Please confirm").await?;
    Ok(format!(
        "confirmed={}",
        outcome.accepted().is_some_and(|c| c.ok)
    ))
}

/// Asks only what the client can answer: a form if it declared `elicitation`, a sampling
/// request if `sampling`, its roots if `roots`.
#[tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, ToolError> {
    let caps = ctx.client_capabilities();
    let mut answers = Vec::new();
    if caps.supports_elicitation_form() {
        answers.push(hello(ctx.elicit::<Name>("What is your name?").await?)?);
    }
    if caps.supports_sampling() {
        let answer = ctx.sample(question("Say hello.", 20)).await?;
        answers.push(answer.content.as_text().unwrap_or_default().to_owned());
    }
    if caps.supports_roots() {
        answers.push(root_list(&ctx.roots().await?));
    }
    Ok(if answers.is_empty() {
        "nothing to ask this client".to_owned()
    } else {
        answers.join("; ")
    })
}

/// Some context for the prompt.
#[derive(Deserialize, JsonSchema, Form)]
struct PromptContext {
    /// What the prompt should be about.
    context: String,
}

/// A prompt that asks the user what it should be about (input key `user_context`).
#[prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, ToolError> {
    let about = ctx
        .elicit::<PromptContext>("What context should the prompt use?")
        .key("user_context")
        .await?
        .accepted()
        .map_or_else(|| "anything".to_owned(), |c| c.context);
    Ok(format!("Write a short note about {about}."))
}

// --- Long-running tools (the Tasks extension) ------------------------------------------------

/// Says hello (always inline: it is never a task).
#[tool(read_only)]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds (at most 600), reporting progress each second, then answers.
/// A task when the client declared the Tasks extension; `tasks/cancel` stops it.
#[tool(task)]
async fn slow_compute(
    ctx: Context,
    /// How long to work, in seconds.
    seconds: u64,
    /// A label for the result.
    label: Option<String>,
) -> Result<String, ToolError> {
    let seconds = seconds.min(600);
    let label = label.unwrap_or_else(|| "slow_compute".to_owned());
    for done in 0..seconds {
        ctx.progress(done as f64, Some(seconds as f64), Some(&label))
            .await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(format!("{label}: done after {seconds} s"))
}

/// Fails after a second with a tool error (`isError`), and only ever runs as a task.
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("failing_job failed, as it always does"))
}

/// Panics: its task fails with a protocol error.
#[tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job crashed on purpose")
}

/// A yes-or-no answer to go ahead.
#[derive(Deserialize, JsonSchema, Form)]
struct DeleteConfirmation {
    /// Whether to go ahead.
    confirm: bool,
}

/// Asks before deleting `filename` (nothing is deleted: it is a fixture); as a task, the
/// question waits in the task's `inputRequests`.
#[tool(task, destructive)]
async fn confirm_delete(ctx: Context, filename: String) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<DeleteConfirmation>(format!("Delete {filename}?"))
        .await?;
    Ok(match answer {
        Elicitation::Accept(DeleteConfirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// Asks two questions at once (two `inputRequests` pending together), then answers both.
#[tool(task)]
async fn multi_input(ctx: Context) -> Result<String, ToolError> {
    let (name, confirmation) = tokio::join!(
        ctx.elicit::<Name>("What is your name?"),
        ctx.elicit::<DeleteConfirmation>("Shall I go on?"),
    );
    let go_on = matches!(
        confirmation?,
        Elicitation::Accept(DeleteConfirmation { confirm: true })
    );
    Ok(format!("{} Going on: {go_on}.", hello(name?)?))
}

/// Asks the user's name as an ordinary request (input key `user_name`), then becomes a task
/// (`cx.run_as_task()`) that greets them. Only runs as a task.
#[tool(task = "required", task_start = "handler")]
async fn test_tool_with_task(ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit::<Name>("What is your name?")
        .key("user_name")
        .await?;
    ctx.run_as_task().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    hello(name)
}

fn json_schema_2020_12_tool() -> ToolSet {
    // Composition, conditionals and `$anchor` (SEP-2106) are listed as written: the tool opts
    // into the standard schema profile (the server's portable one would inline `$ref`, drop
    // `$schema` and refuse the root `allOf`/`if`).
    let schema = object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }));
    ToolSet::new().with_fn(
        ToolDefinition::new("json_schema_2020_12_tool", schema)
            .description("Tool with JSON Schema 2020-12 features")
            .schema_profile(SchemaProfile::Standard),
        |args, _cx| async move {
            Ok(CallToolResult {
                content: vec![Content::text(format!("Received: {args}"))],
                ..CallToolResult::default()
            })
        },
    )
}

/// This server's own options, next to the built-in ones of the command line.
#[derive(clap::Args)]
struct Options {
    /// The instructions given to clients (what `initialize` answers)
    #[arg(long, value_name = "TEXT", env = "EVERYTHING_INSTRUCTIONS")]
    instructions: Option<String>,
    /// How often an open event stream beats when nothing happens, in milliseconds
    #[arg(
        long,
        value_name = "MS",
        env = "EVERYTHING_EVENT_HEARTBEAT_MS",
        default_value_t = 15_000
    )]
    event_heartbeat_ms: u64,
}

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    Server::builder()
        .name("everything")
        .version(env!("CARGO_PKG_VERSION"))
        .title("Everything")
        .description("A test server exercising every MCP feature")
        // A Server Card at <endpoint>/server-card, listed in /.well-known/ai-catalog.json.
        .server_card(
            mcp_framework::ServerCard::new("io.github.mcp-framework/everything")
                .ai_catalog("urn:air:mcp-framework.github.io:mcp:everything"),
        )
        .layer(AuditLayer::new())
        .add_tools(json_schema_2020_12_tool())
        // Agent Skills (the Skills extension), embedded and checked at compile time: one
        // with supporting files in subfolders, one under a prefix (`acme/billing`), one
        // with a nested skill.
        .skills(mcp_framework::skills!("skills"))
        .run_with(|options: Options, builder| {
            let events = events(Duration::from_millis(options.event_heartbeat_ms));
            builder
                .state(events.emitter())
                .state(events.event_types())
                .extension(events)
                .instructions(
                    options.instructions.unwrap_or_else(|| {
                        "A test server exercising every MCP feature.".to_owned()
                    }),
                )
        })
        .await
}
