//! What an author meets writing tools (issue 43), checked on the wire (2026-07-28, the
//! stdio wire format over an in-memory pipe): the framework's injectables without
//! `#[ctx]`, default values, mistakes `build()` reports, `confirm`, `#[tool_impl]` methods.

use mcp_framework::client::Client;
use mcp_framework::protocol::{ElicitRequestParams, ElicitResult};
use mcp_framework::{
    Context, ResourceSet, Server, ServerHandle, State, ToolError, prompt, prompts, tool, tool_impl,
    tools,
};
use serde_json::{Value, json};

/// The application's state.
struct Store {
    prefix: String,
}

/// Lists notes.
#[tool(register = false)]
fn list(
    store: State<Store>,
    server: ServerHandle,
    /// How many notes.
    #[arg(default = 10)]
    limit: u32,
    #[arg(default = "all")] tag: &str,
    #[arg(default = Some(2))] page: Option<u32>,
    query: Option<String>,
) -> String {
    let _ = server;
    format!(
        "{} limit={limit} tag={tag} page={page:?} query={query:?}",
        store.prefix
    )
}

/// Summarizes.
#[prompt(register = false)]
fn summary(#[arg(default = "short".to_owned())] style: String) -> String {
    format!("style={style}")
}

fn server() -> Server {
    Server::builder()
        .tools(tools![list])
        .prompts(prompts![summary])
        .resources(ResourceSet::new())
        .state(Store {
            prefix: "notes:".into(),
        })
        .build()
        .expect("valid")
}

async fn text(c: &Client, name: &str, arguments: Value) -> String {
    let r = c
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await
        .unwrap();
    assert_ne!(r["isError"], true, "{r}");
    r["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn injectables_need_no_ctx() {
    let c = Client::connect(&server()).await.unwrap();
    let list = c.request("tools/list", json!({})).await.unwrap();
    let props = &list["tools"][0]["inputSchema"]["properties"];
    // `State<Store>` and `ServerHandle` are injected, not arguments.
    assert!(props.get("store").is_none(), "{props}");
    assert!(props.get("server").is_none(), "{props}");
    assert!(text(&c, "list", json!({})).await.starts_with("notes:"));
}

#[tokio::test]
async fn defaults_are_in_the_schema_and_filled_in() {
    let c = Client::connect(&server()).await.unwrap();
    let list = c.request("tools/list", json!({})).await.unwrap();
    let schema = &list["tools"][0]["inputSchema"];
    let props = &schema["properties"];
    assert_eq!(props["limit"]["default"], 10, "{schema}");
    assert_eq!(props["limit"]["type"], "integer", "{schema}");
    assert_eq!(props["limit"]["description"], "How many notes.", "{schema}");
    assert_eq!(props["tag"]["default"], "all", "{schema}");
    assert_eq!(props["page"]["default"], 2, "{schema}");
    // Optional: nothing is required.
    assert!(schema.get("required").is_none(), "{schema}");

    assert_eq!(
        text(&c, "list", json!({})).await,
        "notes: limit=10 tag=all page=Some(2) query=None"
    );
    assert_eq!(
        text(
            &c,
            "list",
            json!({"limit": 3, "tag": "work", "page": 5, "query": "q"})
        )
        .await,
        "notes: limit=3 tag=work page=Some(5) query=Some(\"q\")"
    );
    // The type is still checked.
    let r = c
        .request(
            "tools/call",
            json!({"name": "list", "arguments": {"limit": "x"}}),
        )
        .await;
    assert!(
        r.as_ref().is_err() || r.as_ref().unwrap()["isError"] == true,
        "{r:?}"
    );
}

#[tokio::test]
async fn prompt_defaults_make_the_argument_optional() {
    let c = Client::connect(&server()).await.unwrap();
    let list = c.request("prompts/list", json!({})).await.unwrap();
    let arg = &list["prompts"][0]["arguments"][0];
    assert_eq!(arg["name"], "style", "{list}");
    assert_ne!(arg["required"], true, "{list}");
    let r = c
        .request("prompts/get", json!({"name": "summary"}))
        .await
        .unwrap();
    assert_eq!(r["messages"][0]["content"]["text"], "style=short", "{r}");
    let r = c
        .request(
            "prompts/get",
            json!({"name": "summary", "arguments": {"style": "long"}}),
        )
        .await
        .unwrap();
    assert_eq!(r["messages"][0]["content"]["text"], "style=long", "{r}");
}

mod other {
    use super::*;

    /// Another `list`, elsewhere (unregistered, as if from another crate).
    #[tool(name = "list", register = false)]
    pub(crate) fn list_again() -> String {
        String::new()
    }
}

#[test]
fn duplicate_names_are_a_readable_build_error() {
    let e = Server::builder()
        .tools(tools![list, other::list_again])
        .prompts(prompts![summary])
        .resources(ResourceSet::new())
        .state(Store {
            prefix: String::new(),
        })
        .build()
        .unwrap_err();
    // `unwrap()`'s output: the sentence, with both places.
    let shown = format!("{e:?}");
    assert!(
        shown.starts_with("duplicate tool `list`: defined at "),
        "{shown}"
    );
    assert_eq!(shown.matches("tests/authoring.rs:").count(), 2, "{shown}");
}

#[test]
fn a_state_never_registered_is_a_build_error() {
    let e = Server::builder()
        .tools(tools![list])
        .prompts(prompts![summary])
        .resources(ResourceSet::new())
        .build()
        .unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with("tool `list` (tests/authoring.rs:"),
        "{shown}"
    );
    assert!(
        shown.contains("takes `State<authoring::Store>`, but no state of that type is registered"),
        "{shown}"
    );
    assert!(
        matches!(e, mcp_framework::Error::MissingState { .. }),
        "{e:?}"
    );
}

/// Deletes a note, once the user agrees.
#[tool(register = false)]
async fn delete(id: u32, cx: Context) -> Result<String, ToolError> {
    if cx.confirm(format!("Delete note {id}?")).await? {
        Ok(format!("deleted {id}"))
    } else {
        Ok("kept".into())
    }
}

fn confirming_server() -> Server {
    Server::builder()
        .tools(tools![delete])
        .prompts(prompts![])
        .resources(ResourceSet::new())
        .build()
        .expect("valid")
}

#[tokio::test]
async fn confirm_is_a_form_without_fields() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let c = Client::builder()
        .on_elicit(move |p| {
            let log = log.clone();
            async move {
                let ElicitRequestParams::Form(form) = &p else {
                    panic!("a form")
                };
                let answer = form.message == "Delete note 3?";
                log.lock()
                    .unwrap()
                    .push(serde_json::to_value(&form.requested_schema).unwrap());
                if answer {
                    ElicitResult::accept(Some(serde_json::Map::new()))
                } else {
                    ElicitResult::decline()
                }
            }
        })
        .connect(&confirming_server())
        .await
        .unwrap();
    // `call_tool` answers the input requests (MRTR rounds) through the callback.
    let r = c.call_tool("delete", json!({"id": 3})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("deleted 3"));
    let r = c.call_tool("delete", json!({"id": 4})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("kept"));
    assert_eq!(
        seen.lock().unwrap()[0],
        json!({"type": "object", "properties": {}})
    );
}

#[tokio::test]
async fn a_missing_capability_is_named_in_the_message() {
    // A client without elicitation.
    let c = Client::connect(&confirming_server()).await.unwrap();
    let e = c
        .request(
            "tools/call",
            json!({"name": "delete", "arguments": {"id": 3}}),
        )
        .await
        .unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains("-32021"), "{shown}");
    assert!(
        shown.contains("Missing required client capability `elicitation.form`"),
        "{shown}"
    );
}

/// A notebook: its tools are methods.
#[derive(Default)]
struct Notebook {
    notes: std::sync::Mutex<Vec<String>>,
}

#[tool_impl]
impl Notebook {
    /// Adds a note.
    #[tool(title = "Add a note", register = false)]
    async fn add(
        &self,
        /// The note's text.
        text: String,
        /// How many times.
        #[arg(default = 1)]
        times: usize,
    ) -> String {
        let mut notes = self.notes.lock().unwrap();
        for _ in 0..times {
            notes.push(text.clone());
        }
        format!("{} notes", notes.len())
    }

    /// Counts the notes.
    #[tool(read_only, register = false)]
    fn count(&self, cx: Context) -> usize {
        let _ = cx;
        self.notes.lock().unwrap().len()
    }

    /// Not a tool.
    fn helper(&self) -> usize {
        self.notes.lock().unwrap().len()
    }
}

#[tokio::test]
async fn methods_are_tools_with_their_receiver_from_the_state() {
    let server = Server::builder()
        .tools(Notebook::tool_set())
        .prompts(prompts![])
        .resources(ResourceSet::new())
        .state(Notebook::default())
        .build()
        .expect("valid");
    let c = Client::connect(&server).await.unwrap();
    let list = c.request("tools/list", json!({})).await.unwrap();
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{list}");
    let add = tools.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["title"], "Add a note");
    assert_eq!(add["description"], "Adds a note.");
    // The schema a `#[tool]` function with these parameters would have.
    let schema = &add["inputSchema"];
    assert_eq!(
        schema["properties"]["text"],
        json!({"type": "string", "description": "The note's text."})
    );
    assert_eq!(schema["properties"]["times"]["default"], 1, "{schema}");
    assert_eq!(schema["properties"]["times"]["type"], "integer", "{schema}");
    assert_eq!(schema["required"], json!(["text"]), "{schema}");
    assert!(schema["properties"].get("__mcp_self").is_none(), "{schema}");
    assert_eq!(text(&c, "add", json!({"text": "a"})).await, "1 notes");
    assert_eq!(
        text(&c, "add", json!({"text": "b", "times": 2})).await,
        "3 notes"
    );
    let r = c
        .request("tools/call", json!({"name": "count", "arguments": {}}))
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["result"], 3, "{r}");
    assert_eq!(Notebook::default().helper(), 0);

    // Without the state, `build()` says what to register.
    let e = Server::builder()
        .tools(Notebook::tool_set())
        .prompts(prompts![])
        .resources(ResourceSet::new())
        .build()
        .unwrap_err();
    assert!(
        e.to_string().contains("takes `State<authoring::Notebook>`"),
        "{e}"
    );
}

/// Pages through notes.
#[tool(register = false)]
fn page(
    /// The page.
    number: Option<u32>,
    /// A cursor.
    after: u64,
    /// Newest first.
    newest: Option<bool>,
) -> String {
    format!("{number:?} {after} {newest:?}")
}

/// Pages through notes (the standard profile: no coercion).
#[tool(register = false, schema = "standard")]
fn page_standard(number: Option<u32>) -> String {
    format!("{number:?}")
}

#[tokio::test]
async fn portable_schemas_are_portable_and_scalars_are_coerced() {
    let server = Server::builder()
        .tools(tools![page, page_standard])
        .prompts(prompts![])
        .resources(ResourceSet::new())
        .build()
        .expect("valid");
    let c = Client::connect(&server).await.unwrap();
    let list = c.request("tools/list", json!({})).await.unwrap();
    let page = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "page")
        .unwrap();
    let props = &page["inputSchema"]["properties"];
    // Optional: absent or `T`, not `[T, "null"]`.
    assert_eq!(props["number"]["type"], "integer", "{props}");
    assert_eq!(props["newest"]["type"], "boolean", "{props}");
    // `u64`: no bound beyond JavaScript's safe integers.
    assert!(props["after"].get("maximum").is_none(), "{props}");
    assert_eq!(props["after"]["minimum"], 0, "{props}");

    // Strings for numbers and booleans are coerced; `null` is still accepted.
    assert_eq!(
        text(
            &c,
            "page",
            json!({"number": "2", "after": "7", "newest": "true"})
        )
        .await,
        "Some(2) 7 Some(true)"
    );
    assert_eq!(
        text(&c, "page", json!({"number": null, "after": 1})).await,
        "None 1 None"
    );
    // A string that spells no number is refused, as before.
    let r = c
        .request(
            "tools/call",
            json!({"name": "page", "arguments": {"after": "x"}}),
        )
        .await
        .unwrap();
    assert_eq!(r["isError"], true, "{r}");
    // Under `standard`, no coercion.
    let r = c
        .request(
            "tools/call",
            json!({"name": "page_standard", "arguments": {"number": "2"}}),
        )
        .await
        .unwrap();
    assert_eq!(r["isError"], true, "{r}");
}
