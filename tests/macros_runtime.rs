//! `#[tool]`, `#[prompt]` and `#[resource]` end to end: definitions made by the macros,
//! served by a `Server` over an in-memory stream, checked on the wire (2026-07-28).

use std::collections::HashMap;

use mcp_framework::{
    CompletionRequest, Context, Json, PromptMessage, Role, Server, ServerHandle, ToolError, prompt,
    prompts, resource, resources, tool, tools,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

// ---------------------------------------------------------------------------------------------
// What the server serves.

mod math {
    use super::*;

    /// The sum of two numbers.
    #[derive(Serialize, schemars::JsonSchema)]
    pub(crate) struct Sum {
        /// The result.
        pub(crate) value: f64,
    }

    /// Adds two numbers.
    ///
    /// Both may be negative.
    #[tool(read_only, idempotent)]
    pub(crate) async fn add(
        /// The left operand.
        a: f64,
        /** The right operand. */
        b: f64,
    ) -> Sum {
        Sum { value: a + b }
    }

    /// Divides `a` by `b`.
    #[tool]
    pub(crate) fn divide(a: i64, b: i64) -> Result<i64, ToolError> {
        if b == 0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }
}

/// A temperature unit.
#[derive(Deserialize, schemars::JsonSchema, Debug, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// A place.
#[derive(Deserialize, schemars::JsonSchema, Debug)]
pub struct Place {
    city: String,
    country: Option<String>,
}

/// Describes the weather.
#[tool(title = "Weather", open_world = false)]
async fn weather(
    place: &Place,
    unit: Option<Unit>,
    /// Region the request is routed to.
    #[header("Region")]
    region: Option<String>,
    tags: &[String],
    extra: HashMap<String, u32>,
    cx: Context,
) -> String {
    format!(
        "{} ({}) unit={unit:?} region={} tags={} extra={} v={}",
        place.city,
        place.country.as_deref().unwrap_or("?"),
        region.as_deref().unwrap_or("-"),
        tags.join("+"),
        extra.len(),
        cx.protocol_version().as_str(),
    )
}

/// Echoes a text. (`.` is valid in MCP tool names, but not in OpenAI function names: the
/// default `portable` schema profile accepts it only knowingly.)
#[tool(name = "echo.text", allow(tool_name))]
fn echo(text: &str, #[ctx] server: &ServerHandle) -> String {
    let _ = server.has_tool("echo.text");
    text.to_uppercase()
}

/// Fails with a plain `String` error.
#[tool]
fn fail(reason: String) -> Result<String, String> {
    Err(reason)
}

/// Not collected automatically.
#[tool(register = false)]
fn unregistered() -> &'static str {
    "late"
}

#[allow(clippy::needless_pass_by_value)] // completers take the request by value
fn languages(req: CompletionRequest) -> Vec<String> {
    req.matching(["python", "pytorch", "rust"])
}

async fn styles(_: CompletionRequest) -> Vec<&'static str> {
    vec!["strict", "lenient"]
}

/// Asks for a code review.
#[prompt(title = "Code review")]
fn code_review(
    /// The language of the code.
    #[complete(languages)]
    language: &str,
    /// The code.
    code: &str,
    /// How many issues at most.
    max_issues: Option<u32>,
    #[complete(styles)] style: Option<String>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: mcp_framework::Content::text(format!(
                "Review this {language} code (max {} issues, {}):\n{code}",
                max_issues.unwrap_or(3),
                style.unwrap_or_else(|| "any".into()),
            )),
        },
        PromptMessage {
            role: Role::Assistant,
            content: mcp_framework::Content::text("Sure."),
        },
    ]
}

/// A greeting that may fail.
#[prompt]
async fn greet(name: String, cx: &Context) -> Result<String, ToolError> {
    let _ = cx.is_cancelled();
    if name.is_empty() {
        return Err(ToolError::new("empty name"));
    }
    Ok(format!("Hello, {name}!"))
}

/// A static text.
#[resource(
    uri = "test://static-text",
    mime = "text/plain",
    ttl_ms = 60000,
    cache_scope = "private"
)]
fn static_text() -> String {
    "static".into()
}

#[allow(clippy::needless_pass_by_value)]
fn sections(_: CompletionRequest) -> Vec<String> {
    vec!["intro".into(), "usage".into()]
}

#[derive(Serialize)]
struct Data {
    id: u32,
    section: String,
    page: Option<u32>,
}

/// Data by id.
#[resource(
    template = "test://template/{id}/data/{section}{?page}",
    name = "data",
    mime = "application/json"
)]
async fn template_data(
    id: u32,
    #[complete(sections)] section: String,
    page: Option<u32>,
    #[ctx] _server: ServerHandle,
) -> Json<Data> {
    Json(Data { id, section, page })
}

// ---------------------------------------------------------------------------------------------
// A minimal client.

struct Client {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    next_id: u64,
}

impl Client {
    fn start(server: Server) -> Self {
        let (client, server_end) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_end);
        tokio::spawn(async move { server.serve_stream(sr, sw).await });
        let (reader, writer) = tokio::io::split(client);
        Self {
            reader: BufReader::new(reader),
            writer,
            next_id: 1,
        }
    }

    /// Sends a request; the JSON-RPC response (`result` or `error`).
    async fn send(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut bytes = serde_json::to_vec(&line).unwrap();
        bytes.push(b'\n');
        self.writer.write_all(&bytes).await.unwrap();
        self.writer.flush().await.unwrap();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).await.unwrap();
            assert!(n > 0, "the server closed the stream");
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    async fn result(&mut self, method: &str, params: Value) -> Value {
        let msg = self.send(method, params).await;
        assert!(msg.get("error").is_none(), "{method} failed: {msg}");
        msg["result"].clone()
    }
}

fn explicit_server() -> Server {
    Server::builder()
        .name("macros")
        .tools(tools![
            math::add,
            math::divide,
            weather,
            echo,
            fail,
            unregistered
        ])
        .prompts(prompts![code_review, greet])
        .resources(resources![static_text, template_data])
        .build()
        .expect("the definitions are valid")
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {list}"))
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[tokio::test]
async fn tool_definitions() {
    let mut c = Client::start(explicit_server());
    let list = c.result("tools/list", json!({})).await;

    let add = tool(&list, "add");
    assert_eq!(
        add["description"],
        "Adds two numbers.\n\nBoth may be negative."
    );
    let schema = &add["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert!(schema.get("title").is_none(), "{schema}");
    assert!(schema.get("$schema").is_none(), "{schema}");
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["properties"]["a"]["description"],
        "The left operand."
    );
    assert_eq!(
        schema["properties"]["b"]["description"],
        "The right operand."
    );
    assert_eq!(add["annotations"]["readOnlyHint"], true);
    assert_eq!(add["annotations"]["idempotentHint"], true);
    assert!(add["annotations"].get("destructiveHint").is_none());
    let output = &add["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["value"]["type"], "number");

    // Portable output schemas have object roots: an integer goes out as `{"result": …}`,
    // its width (`format: "int64"`) as a range, but for bounds beyond JavaScript's safe
    // integers (those of `i64`), which go.
    let divide = tool(&list, "divide");
    assert_eq!(
        divide["outputSchema"],
        json!({
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"]
        })
    );
    assert!(divide.get("annotations").is_none());

    let weather = tool(&list, "weather");
    assert_eq!(weather["title"], "Weather");
    assert_eq!(weather["annotations"]["openWorldHint"], false);
    let ws = &weather["inputSchema"];
    assert_eq!(ws["required"], json!(["place", "tags", "extra"]));
    assert_eq!(ws["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(
        ws["properties"]["region"]["description"],
        "Region the request is routed to."
    );
    assert_eq!(ws["properties"]["tags"]["type"], "array");
    assert_eq!(ws["properties"]["extra"]["type"], "object");
    assert!(ws["properties"].get("cx").is_none(), "{ws}");
    // Portable schemas have no `$ref`: the definitions are inlined.
    assert!(ws.get("$defs").is_none(), "{ws}");
    assert_eq!(ws["properties"]["place"]["type"], "object", "{ws}");
    assert_eq!(
        ws["properties"]["place"]["required"],
        json!(["city"]),
        "{ws}"
    );
    // `Option<Unit>` is optional, so portable: absent or a unit, without the `null` branch.
    assert_eq!(
        ws["properties"]["unit"]["oneOf"][0]["const"], "celsius",
        "{ws}"
    );
    // Text results have no output schema.
    assert!(weather.get("outputSchema").is_none());

    let echo = tool(&list, "echo.text");
    assert_eq!(echo["inputSchema"]["required"], json!(["text"]));
    assert!(echo["inputSchema"]["properties"].get("server").is_none());

    let unregistered = tool(&list, "unregistered");
    assert_eq!(
        unregistered["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
}

#[tokio::test]
async fn tool_calls() {
    let mut c = Client::start(explicit_server());

    let r = c
        .result(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1.5, "b": 2}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"value": 3.5}));
    assert_eq!(r["content"][0]["type"], "text");
    assert_eq!(
        serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap()).unwrap(),
        json!({"value": 3.5})
    );
    assert!(r.get("isError").is_none());

    let r = c
        .result(
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 2}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"result": 3}));

    let r = c
        .result(
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 0}}),
        )
        .await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "division by zero");

    let r = c
        .result(
            "tools/call",
            json!({"name": "fail", "arguments": {"reason": "nope"}}),
        )
        .await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "nope");

    let r = c
        .result(
            "tools/call",
            json!({"name": "weather", "arguments": {
                "place": {"city": "Lyon", "country": "FR"},
                "unit": "celsius",
                "region": "eu-west",
                "tags": ["a", "b"],
                "extra": {"x": 1},
            }}),
        )
        .await;
    assert_eq!(
        r["content"][0]["text"],
        "Lyon (FR) unit=Some(Celsius) region=eu-west tags=a+b extra=1 v=2026-07-28"
    );
    assert!(r.get("structuredContent").is_none());

    let r = c
        .result(
            "tools/call",
            json!({"name": "echo.text", "arguments": {"text": "hi"}}),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "HI");

    // Unknown arguments are refused (deny_unknown_fields and the schema agree).
    let r = c
        .result(
            "tools/call",
            json!({"name": "echo.text", "arguments": {"text": "hi", "other": 1}}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");

    let r = c
        .result("tools/call", json!({"name": "unregistered"}))
        .await;
    assert_eq!(r["content"][0]["text"], "late");
}

#[tokio::test]
async fn prompts_end_to_end() {
    let mut c = Client::start(explicit_server());
    let list = c.result("prompts/list", json!({})).await;
    let review = list["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "code_review")
        .unwrap();
    assert_eq!(review["title"], "Code review");
    assert_eq!(review["description"], "Asks for a code review.");
    let args: HashMap<String, Value> = review["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), a.clone()))
        .collect();
    assert_eq!(args.len(), 4);
    assert_eq!(args["language"]["required"], true);
    assert_eq!(args["language"]["description"], "The language of the code.");
    assert_eq!(args["max_issues"]["required"], false);
    assert_eq!(args["style"]["required"], false);

    let r = c
        .result(
            "prompts/get",
            json!({"name": "code_review", "arguments": {
                "language": "rust", "code": "fn main() {}", "max_issues": "5", "ignored": "x"
            }}),
        )
        .await;
    assert_eq!(r["messages"][0]["role"], "user");
    assert_eq!(
        r["messages"][0]["content"]["text"],
        "Review this rust code (max 5 issues, any):\nfn main() {}"
    );
    assert_eq!(r["messages"][1]["role"], "assistant");

    let r = c
        .send(
            "prompts/get",
            json!({"name": "code_review", "arguments": {"language": "rust"}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");

    let r = c
        .result(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(r["messages"][0]["content"]["text"], "Hello, Ada!");
    assert_eq!(r["description"], "A greeting that may fail.");

    let r = c
        .result(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "language", "value": "py"},
            }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["python", "pytorch"]));
    let r = c
        .result(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "style", "value": ""},
            }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["strict", "lenient"]));
}

#[tokio::test]
async fn resources_end_to_end() {
    let mut c = Client::start(explicit_server());
    let list = c.result("resources/list", json!({})).await;
    assert_eq!(list["resources"][0]["uri"], "test://static-text");
    assert_eq!(list["resources"][0]["name"], "static_text");
    assert_eq!(list["resources"][0]["mimeType"], "text/plain");
    assert_eq!(list["resources"][0]["description"], "A static text.");

    let templates = c.result("resources/templates/list", json!({})).await;
    let t = &templates["resourceTemplates"][0];
    assert_eq!(
        t["uriTemplate"],
        "test://template/{id}/data/{section}{?page}"
    );
    assert_eq!(t["name"], "data");
    assert_eq!(t["description"], "Data by id.");

    let r = c
        .result("resources/read", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "static");
    assert_eq!(r["contents"][0]["mimeType"], "text/plain");
    assert_eq!(r["ttlMs"], 60000);
    assert_eq!(r["cacheScope"], "private");

    let r = c
        .result(
            "resources/read",
            json!({"uri": "test://template/42/data/intro?page=2"}),
        )
        .await;
    assert_eq!(
        r["contents"][0]["uri"],
        "test://template/42/data/intro?page=2"
    );
    assert_eq!(r["contents"][0]["mimeType"], "application/json");
    assert_eq!(
        serde_json::from_str::<Value>(r["contents"][0]["text"].as_str().unwrap()).unwrap(),
        json!({"id": 42, "section": "intro", "page": 2})
    );

    let r = c
        .result(
            "resources/read",
            json!({"uri": "test://template/7/data/usage"}),
        )
        .await;
    assert_eq!(
        serde_json::from_str::<Value>(r["contents"][0]["text"].as_str().unwrap()).unwrap(),
        json!({"id": 7, "section": "usage", "page": null})
    );

    let r = c
        .result(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "test://template/{id}/data/{section}{?page}"},
                "argument": {"name": "section", "value": "u"},
            }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["intro", "usage"]));
}

#[tokio::test]
async fn automatic_collection_skips_unregistered_tools() {
    let server = Server::builder().build().expect("collected definitions");
    let handle = server.handle();
    let mut c = Client::start(server);
    let list = c.result("tools/list", json!({})).await;
    let mut names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["add", "divide", "echo.text", "fail", "weather"],
        "{list}"
    );
    let prompts = c.result("prompts/list", json!({})).await;
    assert_eq!(prompts["prompts"].as_array().unwrap().len(), 2);
    let resources = c.result("resources/list", json!({})).await;
    assert_eq!(resources["resources"].as_array().unwrap().len(), 1);

    // A `register = false` tool can still be added at run time.
    handle.add_tools(tools![unregistered]).unwrap();
    let r = c
        .result("tools/call", json!({"name": "unregistered"}))
        .await;
    assert_eq!(r["content"][0]["text"], "late");
}

/// A `#[tool]`'s definition given another output schema and served by a closure: its
/// results are checked against the schema it was given, not the one its `definition()`
/// builds (the validators of a macro definition rebuild its schemas unless it was changed).
#[tokio::test]
async fn a_macro_definition_with_another_output_schema_is_checked_against_it() {
    use mcp_framework::{CallToolResult, Content, ToolHandler, ToolSet};
    let total = json!({
        "type": "object",
        "properties": {"total": {"type": "integer"}},
        "required": ["total"]
    });
    let definition = <math::add as ToolHandler>::definition()
        .output_schema(Some(total.as_object().unwrap().clone()));
    let tools = ToolSet::new().with_fn(definition, |args, _cx| async move {
        let total = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
        let structured = if total.fract() == 0.0 {
            json!({"total": total as i64})
        } else {
            json!({"value": total})
        };
        Ok(CallToolResult {
            content: vec![Content::text(structured.to_string())],
            structured_content: Some(structured),
            ..CallToolResult::default()
        })
    });
    let server = Server::builder()
        .tools(tools)
        .build()
        .expect("a valid definition");
    let mut c = Client::start(server);
    let r = c
        .result(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"total": 3}), "{r}");
    // What the macro's own schema asks for breaks the schema the tool was given.
    let e = c
        .send(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 0.5}}),
        )
        .await;
    assert_eq!(e["error"]["code"], -32603, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("outputSchema"),
        "{e}"
    );
    // The input schema is still the macro's: `a` must be a number.
    let r = c
        .result(
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
}

/// Counts calls in application state.
#[tool(register = false)]
fn visits(#[ctx] counter: mcp_framework::State<std::sync::atomic::AtomicU64>) -> String {
    let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    format!("visit {n}")
}

#[tokio::test]
async fn application_state_reaches_handlers() {
    let server = Server::builder()
        .tools(tools![visits])
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        .state(std::sync::atomic::AtomicU64::new(41))
        .build()
        .unwrap();
    let mut c = Client::start(server);
    let r = c.result("tools/call", json!({"name": "visits"})).await;
    assert_eq!(r["content"][0]["text"], "visit 42");
    let r = c.result("tools/call", json!({"name": "visits"})).await;
    assert_eq!(r["content"][0]["text"], "visit 43");
    // Without the state registered: `build()` refuses the tool, naming the type.
    let e = Server::builder()
        .tools(tools![visits])
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        .build()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("State<core::sync::atomic::AtomicU64>"),
        "{e}"
    );
}
