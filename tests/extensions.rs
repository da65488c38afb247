//! Extensions as packages (SEP-3371 over SEP-2133): an `Extension` declares its settings
//! under `capabilities.extensions`, answers custom requests with typed params (over stdio
//! and HTTP, both eras), hears custom notifications, serves an HTTP route beside the
//! endpoint, and is refused at `build()` — with every problem named, nothing served — when
//! its identifier is taken or malformed, a dependency is missing, or a method is the
//! protocol's own or another extension's; an extension clients must declare refuses, with
//! `-32021`, those that did not.

use std::sync::{Arc, Mutex};

use mcp_framework::client::Client;
use mcp_framework::extension::{Extension, Setup};
use mcp_framework::protocol::{ErrorObject, JsonObject, ProtocolVersion};
use mcp_framework::{Context, Server};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tests::wire;

#[derive(Deserialize)]
struct Query {
    query: String,
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Serialize)]
struct Matches {
    matches: Vec<String>,
}

#[derive(Deserialize)]
struct Selected {
    query: String,
}

/// `com.example/search`: a search method, a selection notification, a route.
struct Search {
    selected: Arc<Mutex<Vec<String>>>,
}

impl Extension for Search {
    fn id(&self) -> &str {
        "com.example/search"
    }

    fn settings(&self) -> JsonObject {
        json!({"selectionNotifications": true})
            .as_object()
            .cloned()
            .unwrap()
    }

    fn requires(&self) -> Vec<String> {
        vec!["com.example/index".into()]
    }

    fn setup(&self, setup: &mut Setup) {
        setup.request("com.example/search", |q: Query, cx: Context| async move {
            if q.query == "boom" {
                panic!("the index fell over");
            }
            let who = if cx.protocol_version().is_modern() {
                "modern"
            } else {
                "legacy"
            };
            let n = q.limit.unwrap_or(2);
            Ok::<_, ErrorObject>(Matches {
                matches: (1..=n).map(|i| format!("{}-{i}-{who}", q.query)).collect(),
            })
        });
        let selected = self.selected.clone();
        setup.notification("com.example/search-selected", move |s: Selected| {
            let selected = selected.clone();
            async move { selected.lock().unwrap().push(s.query) }
        });
        setup.route(
            "/.well-known/com.example-search",
            axum::routing::get(|| async { "search is here" }),
        );
    }
}

/// `com.example/index`: what search needs; contributes nothing else.
struct Index;

impl Extension for Index {
    fn id(&self) -> &str {
        "com.example/index"
    }
}

fn server(selected: &Arc<Mutex<Vec<String>>>) -> Server {
    Server::builder()
        .name("ext")
        .tools(mcp_framework::ToolSet::new())
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        // The dependency is registered after the extension that needs it.
        .extension(Search {
            selected: selected.clone(),
        })
        .extension(Index)
        .build()
        .unwrap()
}

#[tokio::test]
async fn custom_methods_answer_in_both_eras_and_settings_are_declared() {
    let selected = Arc::new(Mutex::new(Vec::new()));
    let server = server(&selected);
    let client = Client::connect(&server).await.unwrap();
    let discovered = client.discover().await.unwrap();
    let extensions = discovered.capabilities.extensions.unwrap();
    assert_eq!(
        extensions["com.example/search"],
        json!({"selectionNotifications": true})
    );
    assert_eq!(extensions["com.example/index"], json!({}));

    let found = client
        .request("com.example/search", json!({"query": "invoices"}))
        .await
        .unwrap();
    assert_eq!(
        found["matches"],
        json!(["invoices-1-modern", "invoices-2-modern"])
    );
    // A 2026-07-28 result carries what every result of the revision does.
    assert_eq!(found["resultType"], "complete", "{found}");
    assert_eq!(
        found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "ext",
        "{found}"
    );
    // Params that do not read as the handler's type.
    let e = client
        .request("com.example/search", json!({"query": 7}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32602, "{e}");
    // A handler that panics is an internal error; the server goes on.
    let e = client
        .request("com.example/search", json!({"query": "boom"}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32603, "{e}");
    assert!(e.to_string().contains("the index fell over"), "{e}");
    // A method nobody registered is still unknown.
    let e = client
        .request("com.example/other", json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32601);

    client
        .notify("com.example/search-selected", json!({"query": "invoices"}))
        .await
        .unwrap();
    for _ in 0..50 {
        if !selected.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(*selected.lock().unwrap(), ["invoices"]);

    let legacy = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect(&server)
        .await
        .unwrap();
    let found = legacy
        .request("com.example/search", json!({"query": "q", "limit": 1}))
        .await
        .unwrap();
    // A legacy result is the handler's, as it wrote it.
    assert_eq!(found, json!({"matches": ["q-1-legacy"]}));
}

#[tokio::test]
async fn over_http_the_methods_answer_and_the_route_is_served() {
    let selected = Arc::new(Mutex::new(Vec::new()));
    let running = wire::start(server(&selected)).await;
    let client = Client::builder().connect_http(&running.url).await.unwrap();
    let found = client
        .request("com.example/search", json!({"query": "x", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(found["matches"], json!(["x-1-modern"]));
    assert_eq!(found["resultType"], "complete", "{found}");
    // A modern notification over HTTP reaches its handler too.
    client
        .notify("com.example/search-selected", json!({"query": "x"}))
        .await
        .unwrap();
    for _ in 0..50 {
        if !selected.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(*selected.lock().unwrap(), ["x"]);
    let route = running
        .http
        .get(
            running
                .url
                .replace("/mcp", "/.well-known/com.example-search"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(route.status(), 200);
    assert_eq!(route.text().await.unwrap(), "search is here");

    // Params that do not read as the handler's type are a malformed request, answered as
    // the core methods answer one (HTTP 400); a handler's failure is an answer (200).
    let (status, bad) = wire::json_of(
        wire::post(
            &running,
            &wire::request(7, "com.example/search", json!({"query": 7})),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let (status, failed) = wire::json_of(
        wire::post(
            &running,
            &wire::request(8, "com.example/search", json!({"query": "boom"})),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
}

/// An extension that takes whatever methods it is given.
struct Taker(&'static str, &'static [&'static str]);

impl Extension for Taker {
    fn id(&self) -> &str {
        self.0
    }

    fn setup(&self, setup: &mut Setup) {
        for method in self.1 {
            setup.request(method, |_: Value, _cx: Context| async move {
                Ok::<_, ErrorObject>(json!({}))
            });
        }
    }
}

#[test]
fn a_misfit_extension_fails_the_build_and_says_why() {
    let e = Server::builder()
        .tools(mcp_framework::ToolSet::new())
        .extension(Search {
            selected: Arc::default(),
        })
        .extension(Taker("com.example/a", &["tools/call", "com.example/x"]))
        .extension(Taker("com.example/b", &["com.example/x"]))
        .extension(Taker("com.example/b", &[]))
        .extension(Taker("unprefixed", &[]))
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("invalid configuration: extensions: "), "{e}");
    for part in [
        "`com.example/search` requires the extension `com.example/index`, which is not registered",
        "`com.example/a` registers `tools/call`, a method of the protocol itself",
        "`com.example/b` registers `com.example/x`, which `com.example/a` already registered",
        "`com.example/b` is registered twice",
        "`unprefixed`: an extension identifier is `vendor-prefix/name`",
    ] {
        assert!(e.contains(part), "missing «{part}» in: {e}");
    }
    let e = Server::builder()
        .tools(mcp_framework::ToolSet::new())
        .extension(Taker("io.modelcontextprotocol/tasks", &[]))
        .task_store(mcp_framework::tasks::MemoryTaskStore::new(10))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`io.modelcontextprotocol/tasks` is an extension this server provides itself"),
        "{e}"
    );
}

/// `com.example/env-identity`: gives stdio sessions the identity named in an environment
/// variable (as a credential the client's launch configuration set would be).
struct EnvIdentity(Option<String>);

impl Extension for EnvIdentity {
    fn id(&self) -> &str {
        "com.example/env-identity"
    }

    fn setup(&self, setup: &mut Setup) {
        if let Some(user) = &self.0 {
            setup.stdio_principal(
                mcp_framework::Principal::new(user.clone()).with_scopes(["notes:read"]),
            );
        }
    }
}

/// A server with one tool that needs `notes:read` and says who calls.
fn guarded() -> mcp_framework::ServerBuilder {
    Server::builder()
        .tools(
            mcp_framework::ToolSet::new().with_fn(
                mcp_framework::ToolDefinition::new(
                    "whoami",
                    json!({"type": "object"}).as_object().cloned().unwrap(),
                )
                .scopes(["notes:read"]),
                |_: Value, cx: Context| async move {
                    let who = cx.principal().map_or("nobody", |p| p.subject()).to_owned();
                    Ok(mcp_framework::CallToolResult {
                        content: vec![mcp_framework::Content::text(who)],
                        ..Default::default()
                    })
                },
            ),
        )
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
}

async fn whoami_over_stdio(server: &Server) -> Value {
    let mut p = wire::Piped::serve(server);
    p.send(&wire::request(
        1,
        "tools/call",
        json!({"name": "whoami", "arguments": {}}),
    ))
    .await;
    p.next().await
}

#[tokio::test]
async fn a_stdio_session_carries_the_identity_the_server_took_from_its_environment() {
    // None: a stdio caller holds no scopes.
    let refused = whoami_over_stdio(&guarded().build().unwrap()).await;
    assert_eq!(refused["error"]["code"], -32003, "{refused}");
    // The application's.
    let app = guarded()
        .stdio_principal(mcp_framework::Principal::new("ada").with_scopes(["notes:read"]))
        .build()
        .unwrap();
    let answer = whoami_over_stdio(&app).await;
    assert_eq!(answer["result"]["content"][0]["text"], "ada", "{answer}");
    // An extension's.
    let from_env = guarded()
        .extension(EnvIdentity(Some("grace".into())))
        .build()
        .unwrap();
    let answer = whoami_over_stdio(&from_env).await;
    assert_eq!(answer["result"]["content"][0]["text"], "grace", "{answer}");
    // Over HTTP it is not used: HTTP callers are who HTTP authentication says.
    let r = wire::start(from_env).await;
    let (_, over_http) = wire::json_of(
        wire::post(
            &r,
            &wire::request(2, "tools/call", json!({"name": "whoami", "arguments": {}})),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(over_http["error"]["code"], -32003, "{over_http}");
    // Two parties may not both set it.
    let err = guarded()
        .stdio_principal(mcp_framework::Principal::new("ada"))
        .extension(EnvIdentity(Some("grace".into())))
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("gives stdio sessions an identity"), "{err}");
}

/// `com.example/ledger`: answered only to clients that declare it.
struct Ledger;

impl Extension for Ledger {
    fn id(&self) -> &str {
        "com.example/ledger"
    }

    fn client_must_declare(&self) -> bool {
        true
    }

    fn setup(&self, setup: &mut Setup) {
        setup.request("com.example/balance", |_: Value, _cx: Context| async move {
            Ok::<_, ErrorObject>(json!({"balance": 42}))
        });
    }
}

#[tokio::test]
async fn an_extension_that_clients_must_declare_refuses_those_that_did_not() {
    let server = Server::builder()
        .tools(mcp_framework::ToolSet::new())
        .extension(Ledger)
        .build()
        .unwrap();
    let running = wire::start(server).await;
    // Over HTTP, a request that does not declare the extension: -32021 naming it, HTTP 400,
    // and the handler never ran.
    let (status, refused) = wire::json_of(
        wire::post(
            &running,
            &wire::request(3, "com.example/balance", json!({})),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("com.example/ledger"),
        "{refused}"
    );
    // A client that declares it is answered, in both eras.
    let mut declared = JsonObject::new();
    declared.insert("com.example/ledger".into(), json!({}));
    let caps = mcp_framework::protocol::ClientCapabilities {
        extensions: Some(declared),
        ..Default::default()
    };
    let modern = Client::builder()
        .capabilities(caps.clone())
        .connect_http(&running.url)
        .await
        .unwrap();
    let answer = modern
        .request("com.example/balance", json!({}))
        .await
        .unwrap();
    assert_eq!(answer["balance"], 42, "{answer}");
    let legacy = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .capabilities(caps)
        .connect_http(&running.url)
        .await
        .unwrap();
    let answer = legacy
        .request("com.example/balance", json!({}))
        .await
        .unwrap();
    assert_eq!(answer["balance"], 42, "{answer}");
    // A legacy client that did not declare it at `initialize` is refused too.
    let bare = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&running.url)
        .await
        .unwrap();
    let e = bare
        .request("com.example/balance", json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().map(|e| e.code), Some(-32021), "{e}");
}

/// `com.example/plugins`: announces on `subscriptions/listen` that its plugins changed.
struct Plugins {
    field: &'static str,
    method: &'static str,
    notifier: Arc<Mutex<Option<mcp_framework::extension::ListenNotifier>>>,
}

impl Extension for Plugins {
    fn id(&self) -> &str {
        "com.example/plugins"
    }

    fn setup(&self, setup: &mut Setup) {
        let notifier = setup.listen_notification(self.field, self.method);
        *self.notifier.lock().unwrap() = Some(notifier);
    }
}

#[tokio::test]
async fn an_extension_adds_a_listen_filter_field_and_its_notification() {
    let notifier = Arc::new(Mutex::new(None));
    let server = Server::builder()
        .tools(mcp_framework::ToolSet::new())
        .extension(Plugins {
            field: "pluginsListChanged",
            method: "notifications/com.example/plugins/list_changed",
            notifier: notifier.clone(),
        })
        .build()
        .unwrap();
    let r = wire::start(server).await;
    let body = wire::request(
        7,
        "subscriptions/listen",
        json!({"notifications": {"pluginsListChanged": true, "unheardOf": true}}),
    );
    let resp = wire::post(&r, &body).send().await.unwrap();
    let mut asked = wire::Listener::follow(resp);
    let ack = asked
        .next(std::time::Duration::from_secs(5))
        .await
        .expect("acknowledged");
    // Granted what the extension added, not what nobody serves.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"pluginsListChanged": true}),
        "{ack}"
    );
    let mut other = wire::Listener::open(&r, json!({"toolsListChanged": true})).await;
    notifier.lock().unwrap().as_ref().unwrap().notify();
    let heard = asked
        .next(std::time::Duration::from_secs(5))
        .await
        .expect("the extension's notification");
    assert_eq!(
        heard["method"], "notifications/com.example/plugins/list_changed",
        "{heard}"
    );
    assert_eq!(
        heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7,
        "{heard}"
    );
    // A listener that did not ask hears nothing of it.
    assert_eq!(
        other.next(std::time::Duration::from_millis(300)).await,
        None
    );

    // Fields of the protocol, fields taken twice, and methods that are not notifications
    // fail the build.
    let refused = |field: &'static str, method: &'static str| {
        Server::builder()
            .tools(mcp_framework::ToolSet::new())
            .extension(Plugins {
                field,
                method,
                notifier: Arc::default(),
            })
            .build()
            .unwrap_err()
            .to_string()
    };
    let e = refused("toolsListChanged", "notifications/x");
    assert!(e.contains("a field of the protocol itself"), "{e}");
    let e = refused("pluginsListChanged", "plugins/changed");
    assert!(e.contains("is not a notification"), "{e}");
}

/// `com.example/card-<n>`: adds `member` to the Server Card.
struct CardMember(&'static str, &'static str);

impl Extension for CardMember {
    fn id(&self) -> &str {
        self.0
    }

    fn setup(&self, setup: &mut Setup) {
        setup.server_card_member(self.1, json!({"from": self.0}));
    }
}

#[tokio::test]
async fn an_extension_adds_a_member_to_the_server_card() {
    let card = |extensions: Vec<CardMember>| {
        let mut builder = Server::builder()
            .description("A card with an extension's member")
            .server_card(mcp_framework::ServerCard::new("com.example/cards"))
            .tools(mcp_framework::ToolSet::new());
        for e in extensions {
            builder = builder.extension(e);
        }
        builder.build()
    };
    let server = card(vec![CardMember("com.example/a", "exampleLinks")]).unwrap();
    let r = wire::start(server).await;
    let document = wire::server_card(&r).await;
    assert_eq!(
        document["exampleLinks"],
        json!({"from": "com.example/a"}),
        "{document}"
    );
    // Each problem is named (the two kinds are found at two stages of `build()`).
    let e = card(vec![
        CardMember("com.example/b", "exampleLinks"),
        CardMember("com.example/c", "exampleLinks"),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "`com.example/c` adds `exampleLinks` to the Server Card, which another extension added"
        ),
        "{e}"
    );
    let e = card(vec![CardMember("com.example/a", "remotes")])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "the Server Card: `com.example/a` adds `remotes`, a member the card defines itself"
        ),
        "{e}"
    );
}

/// `com.example/previews`: tools marked `_meta["com.example/preview"]` are only for clients
/// that declared this extension.
struct Previews;

impl Extension for Previews {
    fn id(&self) -> &str {
        "com.example/previews"
    }

    fn setup(&self, setup: &mut Setup) {
        setup.hide_tools(
            |tool| {
                tool.meta
                    .as_ref()
                    .is_some_and(|m| m.contains_key("com.example/preview"))
            },
            |caps| {
                !caps
                    .extensions
                    .as_ref()
                    .is_some_and(|e| e.contains_key("com.example/previews"))
            },
        );
    }
}

#[tokio::test]
async fn an_extension_hides_tools_from_the_clients_it_picks() {
    use mcp_framework::{ToolDefinition, ToolSet};
    let schema = || tests::fixture::obj(json!({"type": "object"}));
    let answer = |text: &'static str| {
        move |_args: Value, _cx: Context| async move {
            Ok(mcp_framework::protocol::CallToolResult {
                content: vec![mcp_framework::protocol::Content::text(text)],
                ..Default::default()
            })
        }
    };
    let tools = ToolSet::new()
        .with_fn(ToolDefinition::new("stable", schema()), answer("stable"))
        .with_fn(
            ToolDefinition::new("preview", schema()).meta_json(r#"{"com.example/preview": true}"#),
            answer("preview"),
        );
    let server = Server::builder()
        .name("previews")
        .tools(tools)
        .extension(Previews)
        .build()
        .unwrap();
    let running = wire::start(server).await;
    let declaring = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"com.example/previews": {}}}
    });
    let names = |reply: &Value| -> Vec<String> {
        reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let send = |body: Value| {
        let running = &running;
        async move {
            wire::json_of(wire::post(running, &body).send().await.unwrap())
                .await
                .1
        }
    };
    // Not declared: not listed, and a call is an unknown tool's.
    let listed = send(wire::request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&listed), ["stable"], "{listed}");
    let called = send(wire::request(2, "tools/call", json!({"name": "preview"}))).await;
    assert_eq!(called["error"]["code"], -32602, "{called}");
    assert_eq!(called["error"]["message"], "Unknown tool: preview");
    // Declared: listed and called.
    let listed = send(wire::request(
        3,
        "tools/list",
        json!({"_meta": declaring.clone()}),
    ))
    .await;
    assert_eq!(names(&listed), ["preview", "stable"], "{listed}");
    let called = send(wire::request(
        4,
        "tools/call",
        json!({"name": "preview", "_meta": declaring}),
    ))
    .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "preview",
        "{called}"
    );
    // A legacy client declares at initialize: its session's capabilities count.
    let legacy = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&running.url)
        .await
        .unwrap();
    let tools = legacy.list_tools().await.unwrap();
    assert_eq!(
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["stable"]
    );
}

/// The example binary `name` serving HTTP on a free port (killed when dropped), and its
/// endpoint's URL, once it answers.
async fn example_http(name: &str) -> (tokio::process::Child, String) {
    let port = tests::free_port();
    let child = tokio::process::Command::new(tests::example_binary(name))
        .args(["http", "--bind", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    tests::listening(([127, 0, 0, 1], port).into()).await;
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// `examples/search` (a third party's extension, `com.example/search`) as a user runs it:
/// over stdio, or over HTTP on a free port.
async fn search_example(http: bool) -> (Option<tokio::process::Child>, Vec<Client>) {
    let mut clients = Vec::new();
    if http {
        let (child, url) = example_http("search").await;
        clients.push(Client::builder().connect_http(&url).await.unwrap());
        clients.push(
            Client::builder()
                .legacy(ProtocolVersion::V2025_11_25)
                .connect_http(&url)
                .await
                .unwrap(),
        );
        return (Some(child), clients);
    }
    for legacy in [false, true] {
        let mut command = tokio::process::Command::new(tests::example_binary("search"));
        command.arg("stdio").env("RUST_LOG", "warn");
        let builder = Client::builder();
        let builder = if legacy {
            builder.legacy(ProtocolVersion::V2025_11_25)
        } else {
            builder
        };
        clients.push(builder.connect_stdio(command).await.unwrap());
    }
    (None, clients)
}

#[tokio::test]
async fn the_example_extension_is_served_over_both_transports_in_both_eras() {
    for http in [false, true] {
        let (_child, clients) = search_example(http).await;
        for client in &clients {
            let era = (http, client.protocol_version());
            // Declared, with its settings.
            let declared = client.server_capabilities().unwrap().extensions.clone();
            assert_eq!(
                declared.unwrap()["com.example/search"],
                json!({"maxLimit": 50}),
                "{era:?}"
            );
            // Its request, typed both ways.
            let found = client
                .request("com.example/search", json!({"query": "RUST", "limit": 2}))
                .await
                .unwrap();
            let ids: Vec<&str> = found["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap())
                .collect();
            assert_eq!(ids, ["rust-book", "async-book"], "{era:?} {found}");
            assert_eq!(found["truncated"], true, "{era:?}");
            let refused = client
                .request("com.example/search", json!({"query": "rust", "limit": 0}))
                .await
                .unwrap_err();
            assert_eq!(
                refused.rpc().map(|e| e.code),
                Some(-32602),
                "{era:?} {refused}"
            );
            let malformed = client
                .request("com.example/search", json!({"limit": 1}))
                .await
                .unwrap_err();
            assert_eq!(malformed.rpc().map(|e| e.code), Some(-32602), "{era:?}");
        }
        // Its notification, heard (the tool shows what was selected on this server).
        let client = &clients[0];
        client
            .notify("com.example/search/selected", json!({"id": "mcp-spec"}))
            .await
            .unwrap();
        let mut heard = false;
        for _ in 0..100 {
            let selected = client.call_tool("selected", json!({})).await.unwrap();
            if selected.structured_content == Some(json!({"result": ["mcp-spec"]})) {
                heard = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(heard, "the notification was not heard (http: {http})");
        // Its listen filter field: a document added is announced to a modern listener.
        let mut listen = client
            .listen(json!({"searchesChanged": true}))
            .await
            .unwrap();
        let ack = listen.next().await.unwrap();
        assert!(ack.get("error").is_none(), "{ack}");
        client
            .call_tool("add_document", json!({"id": "x", "title": "Rust gateways"}))
            .await
            .unwrap();
        let changed = tokio::time::timeout(std::time::Duration::from_secs(10), listen.next())
            .await
            .expect("searchesChanged announced")
            .unwrap();
        assert_eq!(
            changed["method"],
            "notifications/com.example/search/changed"
        );
    }

    // A server without the extension: the method does not exist there.
    let (_quickstart, running) = example_http("quickstart").await;
    let plain = Client::builder().connect_http(&running).await.unwrap();
    let e = plain
        .request("com.example/search", json!({"query": "rust"}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().map(|e| e.code), Some(-32601), "{e}");
}
