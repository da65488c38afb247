//! MCP Apps (`io.modelcontextprotocol/ui`) over the real transports: views (`ui://`
//! resources) with their `_meta.ui` on the listing and on every read, tools linked to them,
//! view-only tools hidden from clients that render no views (both eras), the extension
//! declared, and `build()` refusing a tool whose view the server does not serve. Every
//! `_meta.ui` is validated against the extension's own schema (`tests/spec/apps`).

use mcp_framework::apps::{UiResourceMeta, Visibility};
use mcp_framework::protocol::JsonObject;
use mcp_framework::{
    Error, ResourceDefinition, ResourceSet, Server, ToolDefinition, ToolSet, resource, resources,
    tool, tools,
};
use serde_json::{Value, json};
use tests::wire::{Piped, initialize_with, json_of, legacy_post, post, request, sse_events, start};
use tests::{assert_conforms, assert_legacy, assert_modern};

/// A view produced by a function, with CSP origins and a permission.
#[resource(
    uri = "ui://test/chart",
    ui(
        csp(connect_domains = ["https://api.example.com"], resource_domains = ["https://cdn.example.com"]),
        permissions(clipboard_write),
        prefers_border = false
    ),
    register = false
)]
fn chart_view() -> String {
    "<!DOCTYPE html><html><body>chart</body></html>".to_owned()
}

/// A view whose HTML is a file, embedded while compiling.
#[resource(uri = "ui://test/file", html = "views/chart.html", register = false)]
struct FileView;

/// Draws a chart (its view is `chart_view`).
#[tool(ui = chart_view, register = false)]
fn chart(points: Vec<f64>) -> String {
    format!("{} points", points.len())
}

/// Refreshes the chart: only the view calls it.
#[tool(ui = "ui://test/chart", visibility = "app", register = false)]
fn chart_refresh() -> String {
    "refreshed".into()
}

/// A tool of the file view, for the model and the view.
#[tool(ui = FileView, visibility = ["model", "app"], register = false)]
fn file_chart() -> String {
    "file".into()
}

fn server() -> Server {
    Server::builder()
        .name("apps")
        .tools(tools![chart, chart_refresh, file_chart])
        .resources(resources![chart_view, FileView])
        .build()
        .unwrap()
}

/// `_meta` of a 2026-07-28 request whose client renders views (`ui`) or not.
fn meta(ui: bool) -> Value {
    let caps = if ui {
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

fn with_meta(mut params: Value, ui: bool) -> Value {
    params["_meta"] = meta(ui);
    params
}

fn names(result: &Value) -> Vec<&str> {
    result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

fn tool<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {result}"))
}

#[tokio::test]
async fn tools_name_their_views_and_view_only_tools_need_a_host_that_renders_them() {
    let r = start(server()).await;
    let list = |ui| request(1, "tools/list", with_meta(json!({}), ui));

    let (status, body) = json_of(post(&r, &list(true)).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let result = &body["result"];
    assert_modern("ListToolsResult", result);
    assert_eq!(names(result), ["chart", "chart_refresh", "file_chart"]);
    let expected = [
        ("chart", json!({"resourceUri": "ui://test/chart"})),
        (
            "chart_refresh",
            json!({"resourceUri": "ui://test/chart", "visibility": ["app"]}),
        ),
        (
            "file_chart",
            json!({"resourceUri": "ui://test/file", "visibility": ["model", "app"]}),
        ),
    ];
    for (name, ui) in expected {
        let meta = &tool(result, name)["_meta"];
        assert_eq!(meta["ui"], ui, "{name}");
        assert_conforms("apps", "McpUiToolMeta", &meta["ui"]);
        // The deprecated flat key, for hosts that read only it.
        assert_eq!(meta["ui/resourceUri"], ui["resourceUri"], "{name}");
    }

    // A client that renders no views neither lists nor calls the view-only tool.
    let (_, body) = json_of(post(&r, &list(false)).send().await.unwrap()).await;
    assert_modern("ListToolsResult", &body["result"]);
    assert_eq!(names(&body["result"]), ["chart", "file_chart"]);
    let call = |ui| {
        request(
            2,
            "tools/call",
            with_meta(json!({"name": "chart_refresh", "arguments": {}}), ui),
        )
    };
    let (_, body) = json_of(post(&r, &call(false)).send().await.unwrap()).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["error"]["message"], "Unknown tool: chart_refresh");
    let (_, body) = json_of(post(&r, &call(true)).send().await.unwrap()).await;
    assert_eq!(body["result"]["content"][0]["text"], "refreshed", "{body}");

    // The ordinary tool stays an ordinary tool for everyone (text fallback).
    let plain = request(
        3,
        "tools/call",
        with_meta(
            json!({"name": "chart", "arguments": {"points": [1, 2]}}),
            false,
        ),
    );
    let (_, body) = json_of(post(&r, &plain).send().await.unwrap()).await;
    assert_eq!(body["result"]["content"][0]["text"], "2 points", "{body}");

    // The server declares the extension.
    let discover = request(4, "server/discover", with_meta(json!({}), false));
    let (_, body) = json_of(post(&r, &discover).send().await.unwrap()).await;
    assert_eq!(
        body["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        "{body}"
    );
}

#[tokio::test]
async fn views_carry_their_meta_on_the_listing_and_on_every_read() {
    let r = start(server()).await;
    let (_, body) = json_of(
        post(
            &r,
            &request(1, "resources/list", with_meta(json!({}), false)),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    let result = &body["result"];
    assert_modern("ListResourcesResult", result);
    let listed = result["resources"].as_array().unwrap();
    let chart = listed
        .iter()
        .find(|r| r["uri"] == "ui://test/chart")
        .unwrap();
    let chart_ui = json!({
        "csp": {"connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://cdn.example.com"]},
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": false
    });
    assert_eq!(chart["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(chart["_meta"]["ui"], chart_ui);
    assert_conforms("apps", "McpUiResourceMeta", &chart["_meta"]["ui"]);
    let file = listed
        .iter()
        .find(|r| r["uri"] == "ui://test/file")
        .unwrap();
    assert_eq!(file["mimeType"], "text/html;profile=mcp-app");
    let html = include_str!("views/chart.html");
    assert_eq!(file["size"], html.len(), "the view's size is its file's");
    assert!(
        file.get("_meta").is_none(),
        "no `_meta.ui` was declared: {file}"
    );

    for (uri, ui, text) in [
        (
            "ui://test/chart",
            Some(&chart_ui),
            "<!DOCTYPE html><html><body>chart</body></html>",
        ),
        ("ui://test/file", None, html),
    ] {
        let read = request(2, "resources/read", with_meta(json!({"uri": uri}), false));
        let (_, body) = json_of(post(&r, &read).send().await.unwrap()).await;
        assert_modern("ReadResourceResult", &body["result"]);
        let contents = &body["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(contents["text"], text);
        match ui {
            Some(ui) => {
                assert_eq!(&contents["_meta"]["ui"], ui);
                assert_conforms("apps", "McpUiResourceMeta", &contents["_meta"]["ui"]);
            }
            None => assert!(contents.get("_meta").is_none(), "{contents}"),
        }
    }
}

/// The answer to a request in a legacy session (the last event of its SSE stream).
async fn legacy(r: &tests::wire::Running, session: &str, body: &Value) -> Value {
    let resp = legacy_post(r, session, body).send().await.unwrap();
    sse_events(resp, 1).await.pop().expect("an answer")
}

#[tokio::test]
async fn legacy_sessions_declare_the_extension_in_initialize() {
    let r = start(server()).await;
    for (ui, expected) in [
        (true, vec!["chart", "chart_refresh", "file_chart"]),
        (false, vec!["chart", "file_chart"]),
    ] {
        let caps = meta(ui)["io.modelcontextprotocol/clientCapabilities"].clone();
        let resp = initialize_with(
            &r,
            json!({"protocolVersion": "2025-11-25", "capabilities": caps,
                   "clientInfo": {"name": "host", "version": "1"}}),
        )
        .await;
        let session = resp.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let (_, init) = json_of(resp).await;
        assert_eq!(
            init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"],
            json!(["text/html;profile=mcp-app"]),
            "{init}"
        );
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let body = legacy(&r, &session, &list).await;
        assert_legacy("ListToolsResult", &body["result"]);
        assert_eq!(names(&body["result"]), expected, "ui: {ui}");
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                          "params": {"name": "chart_refresh", "arguments": {}}});
        let body = legacy(&r, &session, &call).await;
        if ui {
            assert_eq!(body["result"]["content"][0]["text"], "refreshed", "{body}");
        } else {
            assert_eq!(body["error"]["code"], -32602, "{body}");
        }
    }
}

#[tokio::test]
async fn stdio_hides_view_only_tools_from_clients_without_views() {
    let server = server();
    let mut pipe = Piped::serve(&server);
    for (id, ui, expected) in [
        (1, false, vec!["chart", "file_chart"]),
        (2, true, vec!["chart", "chart_refresh", "file_chart"]),
    ] {
        pipe.send(&request(id, "tools/list", with_meta(json!({}), ui)))
            .await;
        let answer = pipe.next().await;
        assert_eq!(answer["id"], id);
        assert_eq!(names(&answer["result"]), expected);
    }
}

fn no_arguments() -> JsonObject {
    match json!({"type": "object"}) {
        Value::Object(o) => o,
        _ => unreachable!(),
    }
}

fn tool_set(definition: ToolDefinition) -> ToolSet {
    ToolSet::new().with_fn(definition, |_, _| async { Ok(Default::default()) })
}

fn resource_set(definition: ResourceDefinition) -> ResourceSet {
    ResourceSet::new().with_fn(definition, |request, _| async move {
        Ok(vec![mcp_framework::protocol::ResourceContents::text(
            request.uri(),
            "text/html;profile=mcp-app",
            "<!DOCTYPE html>",
        )])
    })
}

fn build(tools: ToolSet, resources: ResourceSet) -> Result<Server, Error> {
    Server::builder().tools(tools).resources(resources).build()
}

#[test]
fn build_refuses_what_the_extension_forbids() {
    let reason = |r: Result<Server, Error>| match r {
        Err(Error::Definition { reason, .. }) => reason,
        Err(other) => panic!("unexpected error: {other}"),
        Ok(_) => panic!("built"),
    };
    // A tool whose view is not served.
    let e = reason(build(
        tool_set(ToolDefinition::new("t", no_arguments()).ui("ui://nowhere")),
        ResourceSet::new(),
    ));
    assert!(e.contains("its view `ui://nowhere`"), "{e}");
    assert!(e.contains("is not a resource of this server"), "{e}");
    // A view must be a `ui://` URI.
    let e = reason(build(
        tool_set(ToolDefinition::new("t", no_arguments()).ui("https://example.com/view")),
        ResourceSet::new(),
    ));
    assert!(e.contains("not a `ui://` URI"), "{e}");
    // The same through `_meta` written by hand.
    let e = reason(build(
        tool_set(
            ToolDefinition::new("t", no_arguments())
                .meta_json(r#"{"ui": {"resourceUri": "ui://v", "visibility": []}}"#),
        ),
        resource_set(ResourceDefinition::fixed("ui://v", "v")),
    ));
    assert!(e.contains("visibility names no one"), "{e}");
    // A `ui://` resource of another type.
    let e = reason(build(
        ToolSet::new(),
        resource_set(ResourceDefinition::fixed("ui://v", "v").mime_type("text/plain")),
    ));
    assert!(e.contains("its type is `text/html;profile=mcp-app`"), "{e}");
    // `_meta.ui` on something that is not a view.
    let e = reason(build(
        ToolSet::new(),
        resource_set(
            ResourceDefinition::fixed("file:///v.html", "v").ui(UiResourceMeta::new().camera()),
        ),
    ));
    assert!(e.contains("`_meta.ui` is for MCP Apps views"), "{e}");
    // A view is one fixed resource.
    let e = reason(build(
        ToolSet::new(),
        ResourceSet::new().with_fn(
            ResourceDefinition::template("ui://views/{id}", "v", {
                let mut s = no_arguments();
                s.insert("properties".into(), json!({"id": {"type": "string"}}));
                s
            }),
            |_, _| async { Ok(Vec::new()) },
        ),
    ));
    assert!(e.contains("one fixed `ui://` resource"), "{e}");

    // The same definitions, well formed, build; without any view the extension is not
    // declared.
    let server = build(
        tool_set(
            ToolDefinition::new("t", no_arguments())
                .ui("ui://v")
                .visibility([Visibility::App, Visibility::App]),
        ),
        resource_set(ResourceDefinition::fixed("ui://v", "v")),
    );
    assert!(server.is_ok());
}

#[tokio::test]
async fn servers_without_views_do_not_declare_the_extension() {
    let r = start(
        Server::builder()
            .tools(tool_set(ToolDefinition::new("plain", no_arguments())))
            .build()
            .unwrap(),
    )
    .await;
    let (_, body) = json_of(
        post(
            &r,
            &request(1, "server/discover", with_meta(json!({}), false)),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    let extensions = &body["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/ui").is_none(),
        "{body}"
    );
}
