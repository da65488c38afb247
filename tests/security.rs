//! Every path that names an item passes the same access rules, and what a client sends is
//! bounded: the regression tests of the security review, over real HTTP (both eras) and
//! stdio framing. Callers are named by an application's own login layer (`x-user`,
//! `x-scopes`), which lets anonymous callers through without a principal.

use std::time::Duration;

use mcp_framework::{
    CompletionRequest, Context, ListenConfig, ResourceSet, Server, ServerBuilder, prompt, prompts,
    resource, resources, tool, tools,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::fixture;
use tests::wire::{
    Listener, Piped, Running, json_of, legacy_post, legacy_session, post, request, sse_events,
};

// --- The server --------------------------------------------------------------------------

/// One page of data: `id` is one path segment.
#[resource(template = "test://template/{id}/data", mime = "text/plain")]
fn template_data(id: String) -> String {
    format!("id={id}")
}

/// A file under the root: `path` may span segments (reserved expansion), so its value is an
/// untrusted path.
#[resource(template = "files:///{+path}", mime = "text/plain")]
fn file(path: String) -> String {
    format!("path={path}")
}

/// A public folder.
#[resource(uri = "docs:///folder/", mime = "text/plain")]
fn folder() -> String {
    "folder".into()
}

/// A public document in the folder.
#[resource(uri = "docs:///folder/public.txt", mime = "text/plain")]
fn public_doc() -> String {
    "public".into()
}

/// A document only admins know of.
#[resource(uri = "docs:///folder/secret.txt", mime = "text/plain", scopes = ["admin"], hidden)]
fn secret_doc() -> String {
    "secret".into()
}

/// A document listed to everyone, readable by admins.
#[resource(uri = "docs:///folder/guarded.txt", mime = "text/plain", scopes = ["admin"])]
fn guarded_doc() -> String {
    "guarded".into()
}

/// The caller's own note titles.
fn note_titles(req: CompletionRequest, cx: Context) -> Vec<String> {
    let owner = cx.principal().map_or("anonymous", |p| p.subject());
    req.matching([format!("{owner}-todo"), format!("{owner}-ideas")])
}

/// Backend data nobody but admins may see.
fn vault_keys(req: CompletionRequest) -> Vec<String> {
    req.matching(["payroll-2026", "passwords"])
}

/// One of the caller's notes.
#[resource(template = "notes://{title}", mime = "text/plain", scopes = ["notes:read"])]
fn note(#[complete(note_titles)] title: String) -> String {
    format!("note {title}")
}

/// A vault entry (hidden from callers without `admin`).
#[resource(template = "vault://{key}", mime = "text/plain", scopes = ["admin"], hidden)]
fn vault(#[complete(vault_keys)] key: String) -> String {
    format!("vault {key}")
}

/// Summarizes one of the caller's notes.
#[prompt(scopes = ["notes:read"])]
fn summarize_note(#[complete(note_titles)] title: String) -> String {
    format!("Summarize {title}")
}

/// An admins' report (hidden from everyone else).
#[prompt(scopes = ["admin"], hidden)]
fn admin_report(#[complete(vault_keys)] what: String) -> String {
    format!("Report on {what}")
}

/// An open prompt.
#[prompt]
fn open_prompt(#[complete(note_titles)] title: String) -> String {
    format!("Open {title}")
}

/// Writes a note (needs `notes:write`).
#[tool(scopes = ["notes:write"])]
fn write_note() -> &'static str {
    "written"
}

/// Purges everything (hidden from callers without `admin`).
#[tool(scopes = ["admin"], hidden)]
fn purge() -> &'static str {
    "purged"
}

fn builder() -> ServerBuilder {
    Server::builder()
        .name("security-test")
        .version("1.0.0")
        .tools(tools![write_note, purge])
        .prompts(prompts![summarize_note, admin_report, open_prompt])
        .resources(resources![
            template_data,
            file,
            folder,
            public_doc,
            secret_doc,
            guarded_doc,
            note,
            vault
        ])
}

fn server() -> Server {
    builder().build().expect("builds")
}

/// The application's own login layer: `x-user` names the principal, `x-scopes` its
/// scopes; a request without `x-user` goes on without a principal.
async fn login(mut req: axum::extract::Request) -> axum::extract::Request {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    if let Some(user) = header("x-user") {
        let scopes = header("x-scopes").unwrap_or_default();
        let principal = mcp_framework::Principal::new(user)
            .with_scopes(scopes.split(' ').filter(|s| !s.is_empty()));
        req.extensions_mut().insert(principal);
    }
    req
}

async fn serve(server: Server) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let router = server.router().layer(axum::middleware::map_request(login));
    tokio::spawn(async move { axum::serve(listener, router).await });
    Running {
        url: format!("http://127.0.0.1:{port}/mcp"),
        server,
        http: reqwest::Client::new(),
    }
}

/// The same server, as seen by `user` with `scopes` (`None`: anonymous).
fn as_user(r: &Running, user: Option<&str>, scopes: &str) -> Running {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(user) = user {
        headers.insert("x-user", user.parse().unwrap());
        headers.insert("x-scopes", scopes.parse().unwrap());
    }
    Running {
        url: r.url.clone(),
        server: r.server.clone(),
        http: reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap(),
    }
}

async fn call(r: &Running, id: u64, method: &str, params: Value) -> (StatusCode, Value) {
    json_of(post(r, &request(id, method, params)).send().await.unwrap()).await
}

fn complete_params(reference: Value, argument: &str, value: &str) -> Value {
    json!({"ref": reference, "argument": {"name": argument, "value": value}})
}

/// The error of a reply with the item's name taken out of its message and data, to compare
/// a hidden item's answer with an unknown one's.
fn anonymized(reply: &Value, name: &str) -> Value {
    let mut error = reply["error"].clone();
    let message = error["message"]
        .as_str()
        .unwrap_or_default()
        .replace(name, "NAME");
    error["message"] = json!(message);
    if let Some(data) = error.get_mut("data").and_then(Value::as_object_mut) {
        for v in data.values_mut() {
            if v.as_str() == Some(name) {
                *v = json!("NAME");
            }
        }
    }
    error
}

/// A legacy request's answer (the last message of its SSE stream).
async fn legacy_answer(r: &Running, session: &str, body: &Value) -> (StatusCode, Value) {
    let resp = legacy_post(r, session, body).send().await.unwrap();
    let status = resp.status();
    if status != StatusCode::OK {
        let text = resp.text().await.unwrap();
        return (status, serde_json::from_str(&text).unwrap_or(Value::Null));
    }
    let events = sse_events(resp, 16).await;
    let answer = events
        .into_iter()
        .rfind(|m| m.get("id").is_some())
        .expect("an answer");
    (status, answer)
}

fn legacy_request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})
}

// --- Completion ----------------------------------------------------------------------------

#[tokio::test]
async fn completions_pass_the_same_access_check_as_the_items_they_complete() {
    let r = serve(server()).await;
    let bob = as_user(&r, Some("bob"), "profile");
    let ada = as_user(&r, Some("ada"), "notes:read");
    let prompt = |name: &str| json!({"type": "ref/prompt", "name": name});
    let template = |uri: &str| json!({"type": "ref/resource", "uri": uri});

    // Without the scope: the challenge, and the completer does not run.
    for reference in [prompt("summarize_note"), template("notes://{title}")] {
        let params = complete_params(reference.clone(), "title", "");
        let (status, reply) = call(&bob, 1, "completion/complete", params).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{reference}: {reply}");
        assert_eq!(reply["error"]["code"], -32003, "{reply}");
        assert_eq!(
            reply["error"]["data"]["requiredScopes"],
            json!(["notes:read"])
        );
        assert!(reply.get("result").is_none());
    }
    // Hidden items answer exactly as unknown ones: no values, no existence oracle.
    let cases = [
        (
            prompt("admin_report"),
            prompt("no_such_prompt"),
            "what",
            "admin_report",
            "no_such_prompt",
        ),
        (
            template("vault://{key}"),
            template("nothing://{key}"),
            "key",
            "vault://{key}",
            "nothing://{key}",
        ),
    ];
    for (hidden, unknown, argument, hidden_name, unknown_name) in cases {
        let (s1, hidden_reply) = call(
            &bob,
            2,
            "completion/complete",
            complete_params(hidden, argument, "p"),
        )
        .await;
        let (s2, unknown_reply) = call(
            &bob,
            2,
            "completion/complete",
            complete_params(unknown, argument, "p"),
        )
        .await;
        assert_eq!(s1, s2);
        assert_eq!(
            anonymized(&hidden_reply, hidden_name),
            anonymized(&unknown_reply, unknown_name),
            "{hidden_reply} vs {unknown_reply}"
        );
        assert!(!hidden_reply.to_string().contains("payroll"));
    }
    // With the scope: the completer runs with the request's context (who asks).
    for reference in [prompt("summarize_note"), template("notes://{title}")] {
        let params = complete_params(reference, "title", "ada-t");
        let (status, reply) = call(&ada, 3, "completion/complete", params).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["result"]["completion"]["values"], json!(["ada-todo"]));
    }
    // An anonymous caller holds no scopes; an open prompt's completer sees no principal.
    let anonymous = as_user(&r, None, "");
    let params = complete_params(prompt("summarize_note"), "title", "");
    let (status, _) = call(&anonymous, 4, "completion/complete", params).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let params = complete_params(prompt("open_prompt"), "title", "anon");
    let (_, reply) = call(&anonymous, 5, "completion/complete", params).await;
    assert_eq!(
        reply["result"]["completion"]["values"],
        json!(["anonymous-todo", "anonymous-ideas"])
    );

    // A legacy session: the 403 comes before its stream starts; hidden is unknown.
    let session = legacy_session(&bob, "2025-11-25").await;
    let body = legacy_request(
        6,
        "completion/complete",
        complete_params(prompt("summarize_note"), "title", ""),
    );
    let (status, reply) = legacy_answer(&bob, &session, &body).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
    assert_eq!(reply["error"]["code"], -32003);
    let body = legacy_request(
        7,
        "completion/complete",
        complete_params(prompt("admin_report"), "what", "p"),
    );
    let (_, reply) = legacy_answer(&bob, &session, &body).await;
    assert_eq!(reply["error"]["message"], "Unknown prompt: admin_report");
}

#[tokio::test]
async fn over_stdio_a_caller_without_a_principal_holds_no_scopes() {
    let mut pipe = Piped::serve(&server());
    let prompt = json!({"type": "ref/prompt", "name": "summarize_note"});
    pipe.send(&request(
        1,
        "completion/complete",
        complete_params(prompt, "title", ""),
    ))
    .await;
    let reply = pipe.next().await;
    assert_eq!(reply["error"]["code"], -32003, "{reply}");
    pipe.send(&request(2, "tools/call", json!({"name": "purge"})))
        .await;
    let reply = pipe.next().await;
    assert_eq!(reply["error"]["message"], "Unknown tool: purge", "{reply}");

    // The server's opt-out, for a trusted local transport.
    let trusting = builder()
        .unauthenticated_callers_have_every_scope()
        .build()
        .unwrap();
    let mut pipe = Piped::serve(&trusting);
    pipe.send(&request(3, "tools/call", json!({"name": "purge"})))
        .await;
    let reply = pipe.next().await;
    assert_eq!(reply["result"]["content"][0]["text"], "purged", "{reply}");
}

// --- No principal --------------------------------------------------------------------------

#[tokio::test]
async fn an_optional_login_layer_gives_anonymous_callers_no_scopes() {
    let r = serve(server()).await;
    let anonymous = as_user(&r, None, "");
    let (status, reply) = call(&anonymous, 1, "tools/call", json!({"name": "write_note"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredScopes"],
        json!(["notes:write"])
    );
    let (_, reply) = call(&anonymous, 2, "tools/call", json!({"name": "purge"})).await;
    assert_eq!(reply["error"]["message"], "Unknown tool: purge");
    let (_, list) = call(&anonymous, 3, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["write_note"], "{list}");
    let (_, reply) = call(
        &anonymous,
        4,
        "resources/read",
        json!({"uri": "docs:///folder/secret.txt"}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // A signed-in caller with the scopes gets through.
    let admin = as_user(&r, Some("root"), "admin notes:write");
    let (status, reply) = call(&admin, 5, "tools/call", json!({"name": "purge"})).await;
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["content"][0]["text"], "purged");

    // Opted out: no principal, every scope.
    let r = serve(
        builder()
            .unauthenticated_callers_have_every_scope()
            .build()
            .unwrap(),
    )
    .await;
    let (status, reply) = call(&r, 6, "tools/call", json!({"name": "write_note"})).await;
    assert_eq!(status, 200, "{reply}");
}

// --- Template variables --------------------------------------------------------------------

#[tokio::test]
async fn a_one_segment_template_variable_never_decodes_to_a_path() {
    let r = serve(server()).await;
    let session = legacy_session(&r, "2025-11-25").await;
    for bad in [
        "..%2F..%2Fetc%2Fpasswd",
        "..",
        "%2E%2E",
        "a%00b",
        "a%5Cb",
        "a%2Fb",
    ] {
        let uri = format!("test://template/{bad}/data");
        let (status, reply) = call(&r, 1, "resources/read", json!({"uri": uri})).await;
        assert_eq!(status, 200);
        assert_eq!(reply["error"]["code"], -32602, "{uri}: {reply}");
        assert_eq!(
            reply["error"]["message"],
            format!("Resource not found: {uri}")
        );
        let body = legacy_request(2, "resources/read", json!({"uri": uri}));
        let (_, reply) = legacy_answer(&r, &session, &body).await;
        assert_eq!(reply["error"]["code"], -32002, "{uri}: {reply}");
    }
    let (_, reply) = call(
        &r,
        3,
        "resources/read",
        json!({"uri": "test://template/a.b/data"}),
    )
    .await;
    assert_eq!(reply["result"]["contents"][0]["text"], "id=a.b");
    // `{+path}` keeps reserved expansion: its value is an untrusted path, as documented.
    let (_, reply) = call(&r, 4, "resources/read", json!({"uri": "files:///a/../b"})).await;
    assert_eq!(reply["result"]["contents"][0]["text"], "path=a/../b");
}

// --- Mcp-Param-* headers -------------------------------------------------------------------

#[tokio::test]
async fn integer_header_parameters_are_compared_exactly() {
    let r = tests::wire::start(fixture::server()).await;
    let send = |shard: Value, header: &'static str| {
        let body = request(
            1,
            "tools/call",
            json!({"name":"regional_echo","arguments":{"region":"eu","shard":shard,"text":"x"}}),
        );
        post(&r, &body)
            .header("Mcp-Param-Region", "eu")
            .header("Mcp-Param-Shard", header)
            .send()
    };
    let big = json!(1_234_567_890_123_456_789_u64);
    assert_eq!(
        send(big.clone(), "1234567890123456789")
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        send(big, "1234567890123456788").await.unwrap().status(),
        400
    );
    // (Spaces around a value are not part of it in HTTP: the unit tests check those.)
    for variant in ["1e3", "+1000", "01000", "1000.5", "0x3e8"] {
        let resp = send(json!(1000), variant).await.unwrap();
        let status = resp.status();
        let (_, reply) = json_of(resp).await;
        assert_eq!(status, 400, "{variant:?}");
        assert_eq!(reply["error"]["code"], -32020, "{variant:?}");
    }
    assert_eq!(send(json!(1000), "1000.0").await.unwrap().status(), 200);
}

// --- Resource subscriptions ----------------------------------------------------------------

fn listen(id: u64, uris: &[String]) -> Value {
    request(
        id,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": uris}}),
    )
}

fn strings(uris: &[&str]) -> Vec<String> {
    uris.iter().map(|u| (*u).to_owned()).collect()
}

#[tokio::test]
async fn listen_filters_are_bounded_and_deduplicated() {
    let r = serve(server()).await;
    // One over the default count of 1,024: refused whole, not truncated.
    let many: Vec<String> = (0..1025)
        .map(|i| format!("test://template/{i}/data"))
        .collect();
    let (status, reply) = json_of(post(&r, &listen(1, &many)).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["maxResourceSubscriptions"], 1024);
    // Longer than the server's URI limit: refused.
    let long = vec![format!("files:///{}", "a".repeat(20 * 1024))];
    let (_, reply) = json_of(post(&r, &listen(2, &long)).send().await.unwrap()).await;
    assert_eq!(reply["error"]["data"]["maxUriBytes"], 16 * 1024, "{reply}");
    // Duplicates are kept once: the acknowledgement lists each URI once.
    let mut repeated = vec!["test://template/1/data".to_owned(); 5000];
    repeated.push("docs:///folder/".into());
    let resp = post(&r, &listen(3, &repeated)).send().await.unwrap();
    let mut stream = Listener::follow(resp);
    let ack = stream.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(["docs:///folder/", "test://template/1/data"]),
        "{ack}"
    );

    // A legacy session's subscriptions follow the same rule (here, at most 3).
    let r = serve(
        builder()
            .listen(ListenConfig::new().max_resource_subscriptions(3))
            .build()
            .unwrap(),
    )
    .await;
    let session = legacy_session(&r, "2025-11-25").await;
    for i in 0..3 {
        let body = legacy_request(
            i,
            "resources/subscribe",
            json!({"uri": format!("test://template/{i}/data")}),
        );
        let (_, reply) = legacy_answer(&r, &session, &body).await;
        assert_eq!(reply["result"], json!({}), "{reply}");
    }
    let again = legacy_request(
        9,
        "resources/subscribe",
        json!({"uri": "test://template/0/data"}),
    );
    let (_, reply) = legacy_answer(&r, &session, &again).await;
    assert_eq!(
        reply["result"],
        json!({}),
        "a subscription made again is the same one"
    );
    let body = legacy_request(
        10,
        "resources/subscribe",
        json!({"uri": "test://template/3/data"}),
    );
    let (_, reply) = legacy_answer(&r, &session, &body).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["maxResourceSubscriptions"], 3);
}

#[tokio::test]
async fn subscriptions_name_only_what_the_caller_may_read() {
    let r = serve(server()).await;
    let bob = as_user(&r, Some("bob"), "notes:read");
    let refused = |uris: &[&str]| {
        let body = listen(1, &strings(uris));
        let bob = &bob;
        async move { json_of(post(bob, &body).send().await.unwrap()).await }
    };
    // A bare scheme or authority names no resource: not a wildcard.
    for bare in ["notes:", "notes://", "docs:", "docs:///"] {
        let (_, reply) = refused(&[bare]).await;
        assert_eq!(
            reply["error"]["message"],
            format!("Resource not found: {bare}"),
            "{reply}"
        );
    }
    // Hidden is unknown; lacking scopes is the challenge.
    let (_, hidden) = refused(&["docs:///folder/secret.txt"]).await;
    let (_, unknown) = refused(&["docs:///folder/nothing.txt"]).await;
    assert_eq!(
        anonymized(&hidden, "docs:///folder/secret.txt"),
        anonymized(&unknown, "docs:///folder/nothing.txt")
    );
    let (status, reply) = refused(&["docs:///folder/guarded.txt"]).await;
    assert_eq!(
        (status, reply["error"]["code"].as_i64()),
        (StatusCode::FORBIDDEN, Some(-32003))
    );
    let (_, reply) = refused(&["vault://payroll"]).await;
    assert_eq!(
        reply["error"]["message"],
        "Resource not found: vault://payroll"
    );

    // What bob may read: the folder (covering what is below it) and his own note.
    let mut stream = Listener::open(
        &bob,
        json!({"resourceSubscriptions": ["docs:///folder/", "notes://bob-todo"]}),
    )
    .await;
    let handle = r.server.handle();
    for uri in [
        "docs:///folder/secret.txt",  // hidden from bob
        "docs:///folder/guarded.txt", // bob lacks its scope
        "notes://ada-todo",           // not subscribed (no wildcard over a template)
        "docs:///folderx/public.txt", // not below the folder
        "docs:///folder/public.txt",
        "docs:///folder/new.txt", // no entry: judged by the folder that covers it
        "notes://bob-todo",
    ] {
        handle.resource_updated(uri);
    }
    let mut heard = Vec::new();
    while let Some(m) = stream.next(Duration::from_millis(500)).await {
        heard.push(m["params"]["uri"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(
        heard,
        [
            "docs:///folder/public.txt",
            "docs:///folder/new.txt",
            "notes://bob-todo"
        ]
    );

    // Catalogs change: deliveries are judged again. The public document becomes hidden.
    assert!(handle.remove_resource("docs:///folder/public.txt"));
    handle
        .add_resources(
            ResourceSet::new().with_fn(
                mcp_framework::ResourceDefinition::fixed("docs:///folder/public.txt", "now-secret")
                    .scopes(["admin"])
                    .scope_policy(mcp_framework::ScopePolicy::Hide),
                |_, _| async move { Ok(Vec::new()) },
            ),
        )
        .unwrap();
    stream.drain(Duration::from_millis(300)).await;
    handle.resource_updated("docs:///folder/public.txt");
    handle.resource_updated("notes://bob-todo");
    let next = stream.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(next["params"]["uri"], "notes://bob-todo", "{next}");

    // A legacy session is judged the same way.
    let session = legacy_session(&bob, "2025-11-25").await;
    let body = legacy_request(1, "resources/subscribe", json!({"uri": "notes:"}));
    let (_, reply) = legacy_answer(&bob, &session, &body).await;
    assert_eq!(reply["error"]["code"], -32002, "{reply}");
    let body = legacy_request(
        2,
        "resources/subscribe",
        json!({"uri": "docs:///folder/guarded.txt"}),
    );
    let (status, reply) = legacy_answer(&bob, &session, &body).await;
    assert_eq!(
        (status, reply["error"]["code"].as_i64()),
        (StatusCode::FORBIDDEN, Some(-32003))
    );
    let body = legacy_request(3, "resources/subscribe", json!({"uri": "docs:///folder/"}));
    let (_, reply) = legacy_answer(&bob, &session, &body).await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    let get = bob
        .http
        .get(&bob.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let mut stream = Listener::follow(get);
    tokio::time::sleep(Duration::from_millis(200)).await;
    handle.resource_updated("docs:///folder/secret.txt");
    handle.resource_updated("docs:///folder/guarded.txt");
    handle.resource_updated("docs:///folder/new.txt");
    let next = stream.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(next["params"]["uri"], "docs:///folder/new.txt", "{next}");
}
