//! A server defined with closures (no macros), shared by the runtime and HTTP tests.
#![allow(clippy::needless_pass_by_value, missing_docs)]

use std::time::Duration;

use mcp_framework::protocol::{
    CreateMessageResult, ErrorObject, JsonObject, Role, SamplingMessageContent,
    SamplingMessageContentBlock,
};
use mcp_framework::{
    CallToolResult, CompletionRequest, Content, Context, Elicitation, PromptDefinition, PromptSet,
    ResourceDefinition, ResourceSet, Server, ToolDefinition, ToolSet, completer,
};
use serde_json::{Value, json};

/// A JSON object from a `json!` value.
pub fn obj(v: Value) -> JsonObject {
    v.as_object().cloned().expect("an object")
}

fn languages(req: CompletionRequest) -> Vec<String> {
    req.matching(["python", "pytorch", "rust", "ruby"])
}

fn tools() -> ToolSet {
    ToolSet::new()
        .with_fn(
            ToolDefinition::new(
                "add",
                obj(json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false})),
            )
            .description("Adds two numbers.")
            .output_schema(Some(obj(json!({"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]})))),
            |args, _cx| async move {
                let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
                let v = json!({"sum": sum});
                Ok(CallToolResult {
                    content: vec![Content::text(v.to_string())],
                    structured_content: Some(v),
                    ..CallToolResult::default()
                })
            },
        )
        .with_fn(
            ToolDefinition::new("numbers", obj(json!({"type":"object","additionalProperties":false})))
                .output_schema(Some(obj(json!({"type":"array","items":{"type":"integer"}})))),
            |_, _| async move {
                Ok(CallToolResult {
                    content: vec![Content::text("[1,2,3]")],
                    structured_content: Some(json!([1, 2, 3])),
                    ..CallToolResult::default()
                })
            },
        )
        .with_fn(
            ToolDefinition::new("boom", obj(json!({"type":"object"}))),
            |_, _| async move { panic!("kaboom") },
        )
        .with_fn(
            ToolDefinition::new(
                "count",
                obj(json!({"type":"object","properties":{"n":{"type":"integer"},"delay_ms":{"type":"integer"}},"required":["n","delay_ms"]})),
            ),
            |args, cx: Context| async move {
                let n = args["n"].as_u64().unwrap_or(0);
                let delay = args["delay_ms"].as_u64().unwrap_or(0);
                for i in 1..=n {
                    // Watches its own cancellation and still returns a value, as a handler
                    // may: the framework must not send that value.
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(delay)) => {}
                        () = cx.cancelled() => {
                            return Ok(CallToolResult { content: vec![Content::text(format!("cancelled at {i}"))], ..Default::default() });
                        }
                    }
                    cx.progress(i as f64, Some(n as f64), None).await;
                }
                Ok(CallToolResult { content: vec![Content::text(format!("counted {n}"))], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new("chatty", obj(json!({"type":"object"}))),
            |_, cx: Context| async move {
                cx.debug("debug line").await;
                cx.info("info line").await;
                cx.error("error line").await;
                Ok(CallToolResult { content: vec![Content::text("done")], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new("ask_two", obj(json!({"type":"object","properties":{"greeting":{"type":"string"}}}))),
            |args, cx: Context| async move {
                let greeting = args["greeting"].as_str().unwrap_or("Hello").to_owned();
                let name = match cx
                    .elicit_with_schema("Your name?", obj(json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})))
                    .await
                {
                    Ok(Elicitation::Accept(c)) => c["name"].as_str().unwrap_or_default().to_owned(),
                    Ok(_) => return Ok(CallToolResult { content: vec![Content::text("no name")], ..Default::default() }),
                    Err(e) => return Err(ErrorObject::internal(e.to_string())),
                };
                let color = match cx
                    .elicit_with_schema("Favourite colour?", obj(json!({"type":"object","properties":{"color":{"type":"string"}},"required":["color"]})))
                    .await
                {
                    Ok(Elicitation::Accept(c)) => c["color"].as_str().unwrap_or_default().to_owned(),
                    Ok(_) => "nothing".to_owned(),
                    Err(e) => return Err(ErrorObject::internal(e.to_string())),
                };
                Ok(CallToolResult {
                    content: vec![Content::text(format!("{greeting} {name}, you like {color}"))],
                    ..Default::default()
                })
            },
        )
        .with_fn(
            // Two named questions awaited together: one InputRequiredResult asks both.
            ToolDefinition::new("trip", obj(json!({"type":"object"}))),
            |_, cx: Context| async move {
                let form = obj(json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}));
                let (who, roots) = tokio::join!(
                    cx.elicit_with_schema("Who travels?", form).key("who"),
                    cx.roots().key("where"),
                );
                let who = match who.map_err(|e| ErrorObject::internal(e.to_string()))? {
                    Elicitation::Accept(c) => c["name"].as_str().unwrap_or_default().to_owned(),
                    _ => "nobody".to_owned(),
                };
                let roots = roots.map_err(|e| ErrorObject::internal(e.to_string()))?;
                let text = format!("{who} goes to {}", roots.first().map_or("nowhere", |r| r.uri.as_str()));
                Ok(CallToolResult { content: vec![Content::text(text)], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new(
                "regional_echo",
                obj(json!({"type":"object","properties":{
                    "region":{"type":"string","x-mcp-header":"Region"},
                    "shard":{"type":"integer","x-mcp-header":"Shard"},
                    "text":{"type":"string"}},"required":["region","text"]})),
            ),
            |args, _| async move {
                Ok(CallToolResult {
                    content: vec![Content::text(format!("{}:{}", args["region"].as_str().unwrap_or_default(), args["text"].as_str().unwrap_or_default()))],
                    ..Default::default()
                })
            },
        )
        .with_fn(
            ToolDefinition::new("traced", obj(json!({"type":"object"}))),
            |_, _| async move {
                tracing::info!(step = 1, "working through tracing");
                tracing::debug!("a detail");
                Ok(CallToolResult { content: vec![Content::text("traced")], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new("reconnect", obj(json!({"type":"object"}))),
            |_, cx: Context| async move {
                cx.info("closing the stream").await;
                cx.close_response_stream();
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(CallToolResult { content: vec![Content::text("after reconnect")], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new("summarize", obj(json!({"type":"object"}))),
            |_, cx: Context| async move {
                let params = mcp_framework::protocol::CreateMessageRequestParams::new(
                    vec![mcp_framework::protocol::SamplingMessage::user("Summarize")],
                    50,
                );
                let r = cx.sample(params).await.map_err(|e| ErrorObject::internal(e.to_string()))?;
                let text = r.content.as_text().unwrap_or_default().to_owned();
                Ok(CallToolResult { content: vec![Content::text(format!("LLM said: {text}"))], ..Default::default() })
            },
        )
}

fn prompts() -> PromptSet {
    PromptSet::new().with_fn(
        PromptDefinition::new(
            "code_review",
            obj(json!({"type":"object","properties":{
                "code":{"type":"string","description":"The code"},
                "language":{"type":"string"},
                "strict":{"type":"boolean"}},"required":["code"]})),
        )
        .description("Reviews code")
        .complete("language", completer(languages)),
        |args, _cx| async move {
            let text = format!(
                "Review ({}, strict={}): {}",
                args["language"], args["strict"], args["code"]
            );
            Ok(mcp_framework::GetPromptResult {
                messages: vec![mcp_framework::PromptMessage {
                    role: Role::User,
                    content: Content::text(text),
                }],
                ..Default::default()
            })
        },
    )
}

fn resources() -> ResourceSet {
    ResourceSet::new()
        .with_fn(
            ResourceDefinition::fixed("test://static", "static").mime_type("text/plain").ttl_ms(5000),
            |req, _| async move {
                Ok(vec![mcp_framework::ResourceContents::Text(mcp_framework::protocol::TextResourceContents {
                    uri: req.uri().to_owned(),
                    mime_type: Some("text/plain".into()),
                    text: "static text".into(),
                    meta: None,
                })])
            },
        )
        .with_fn(
            ResourceDefinition::template(
                "test://items/{id}",
                "items",
                obj(json!({"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]})),
            )
            .mime_type("application/json"),
            |req, _| async move {
                let id = req.variables()["id"].as_u64().ok_or_else(|| ErrorObject::invalid_params("id"))?;
                if id > 100 {
                    return Err(ErrorObject::resource_not_found(req.uri()));
                }
                Ok(vec![mcp_framework::ResourceContents::Text(mcp_framework::protocol::TextResourceContents {
                    uri: req.uri().to_owned(),
                    mime_type: Some("application/json".into()),
                    text: json!({"id": id}).to_string(),
                    meta: None,
                })])
            },
        )
}

/// The fixture server, before it is built (to `run_with_args` it, say).
pub fn builder() -> mcp_framework::ServerBuilder {
    Server::builder()
        .name("runtime-test")
        .version("1.2.3")
        .instructions("Use it well.")
        .tools(tools())
        .prompts(prompts())
        .resources(resources())
}

/// The fixture server, configured further by `f`.
pub fn server_with(
    f: impl FnOnce(mcp_framework::ServerBuilder) -> mcp_framework::ServerBuilder,
) -> Server {
    f(builder()).build().expect("the server builds")
}

/// The fixture server.
pub fn server() -> Server {
    server_with(|b| b)
}

/// A client that answers every question: a name (`Ada`) for elicitation, `a sampled reply`
/// for sampling; requests wait 30 s at most.
pub fn answering_client() -> mcp_framework::client::ClientBuilder {
    mcp_framework::client::Client::builder()
        .on_elicit(|_| async move {
            mcp_framework::protocol::ElicitResult::accept(Some(obj(json!({"name": "Ada"}))))
        })
        .on_sample(|_| async move { sampled("a sampled reply") })
        .timeout(Duration::from_secs(30))
}

/// A sampling answer with this text.
pub fn sampled(text: &str) -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: SamplingMessageContent::One(SamplingMessageContentBlock::text(text)),
        model: "test-model".into(),
        stop_reason: Some("endTurn".into()),
        meta: None,
    }
}
