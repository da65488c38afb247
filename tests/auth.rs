//! Authorization against a real OAuth authorization server (oidc-provider, started by
//! `tests::oidc`): JWT access tokens of three algorithms, the specified refusals and their
//! challenges, scope step-up, hidden items, Protected Resource Metadata, key rotation,
//! an issuer outage, introspection of opaque tokens, and the official Python SDK client.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_framework::auth::{Authorization, JwtVerifier, TokenTypes};
use mcp_framework::{Context, PromptSet, ResourceSet, ScopePolicy, Server, tool, tools};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::issuer::Issuer;
use tests::oidc::{self, Provider};
use tests::wire::{Running, json_of, legacy_post, legacy_session, post, request, sse_events};

/// Says who is calling (needs `profile:read`).
#[tool(scopes = ["profile:read"])]
fn whoami(cx: Context) -> String {
    cx.principal()
        .map_or_else(|| "anonymous".to_owned(), |p| p.subject().to_owned())
}

/// Writes a note (needs `notes:write`; hidden from callers without it).
#[tool(scopes = ["notes:write"], hidden)]
fn write_note(text: String) -> String {
    format!("saved: {text}")
}

/// Anyone with a valid token may call it.
#[tool]
fn ping_me() -> &'static str {
    "pong"
}

/// Serves a server with `auth` built for its own URL (the audience) on a free port.
async fn serve(auth: impl FnOnce(&str) -> Authorization) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let server = Server::builder()
        .name("auth-test")
        .version("1.0.0")
        .tools(tools![whoami, write_note, ping_me])
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .authorization(auth(&url))
        .build()
        .expect("builds");
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    Running {
        url,
        server,
        http: reqwest::Client::new(),
    }
}

/// A server accepting JWTs of `provider` without leeway.
async fn serve_for(provider: &Provider) -> Running {
    let issuer = provider.issuer().to_owned();
    serve(move |url| {
        let verifier = JwtVerifier::new(issuer.clone(), url)
            .unwrap()
            .leeway(Duration::ZERO);
        Authorization::new(url, verifier)
            .unwrap()
            .authorization_server(issuer)
    })
    .await
}

/// A server accepting the tokens of the test issuer (`tests::issuer`), its verifier as
/// `configure` leaves it.
async fn serve_issuer(
    issuer: &Issuer,
    configure: impl FnOnce(JwtVerifier) -> JwtVerifier,
) -> Running {
    let issuer = issuer.url().to_owned();
    serve(move |url| {
        let verifier = configure(JwtVerifier::new(issuer.clone(), url).unwrap());
        Authorization::new(url, verifier)
            .unwrap()
            .authorization_server(issuer)
    })
    .await
}

/// Seconds since the epoch.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn call(id: u64, tool: &str) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": {}}))
}

async fn call_with(r: &Running, token: Option<&str>, tool: &str) -> reqwest::Response {
    let mut b = post(r, &call(1, tool));
    if let Some(t) = token {
        b = b.bearer_auth(t);
    }
    b.send().await.unwrap()
}

fn challenge(resp: &reqwest::Response) -> String {
    resp.headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

fn metadata_url(r: &Running) -> String {
    r.url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
}

#[tokio::test]
async fn tokens_of_every_algorithm_reach_scoped_tools() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    for client in [oidc::SVC, oidc::ES256, oidc::EDDSA] {
        let token = provider
            .token(client.0, client.1, "profile:read", &r.url)
            .await;
        let (status, body) = json_of(call_with(&r, Some(&token), "whoami").await).await;
        assert_eq!(status, StatusCode::OK, "{client:?}: {body}");
        assert_eq!(body["result"]["content"][0]["text"], client.0, "{body}");
        // The same token again comes from the cache and still works.
        let (status, _) = json_of(call_with(&r, Some(&token), "whoami").await).await;
        assert_eq!(status, StatusCode::OK);
    }
}

#[tokio::test]
async fn refusals_carry_the_specified_challenges() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    let metadata = format!("resource_metadata=\"{}\"", metadata_url(&r));

    // No token: 401, the metadata named, no error code.
    let resp = call_with(&r, None, "ping_me").await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let c = challenge(&resp);
    assert!(c.starts_with("Bearer ") && c.contains(&metadata), "{c}");
    assert!(!c.contains("error="), "{c}");
    // Another scheme is no bearer token either.
    let resp = post(&r, &call(1, "ping_me"))
        .header("authorization", "Basic c3ZjOnN2Yy1zZWNyZXQ=")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);

    let good = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    let (header, claims) = oidc::jwt_parts(&good);
    let [h, p, s]: [&str; 3] = good.split('.').collect::<Vec<_>>().try_into().unwrap();
    let b64 = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());

    let mut bad: Vec<(&str, String)> = Vec::new();
    // Another audience.
    let other = provider
        .token(
            oidc::SVC.0,
            oidc::SVC.1,
            "profile:read",
            "http://127.0.0.1:1/other",
        )
        .await;
    bad.push(("another audience", other));
    // A payload changed after signing.
    let mut changed = claims.clone();
    changed["scope"] = json!("profile:read notes:write");
    bad.push(("tampered", format!("{h}.{}.{s}", b64(&changed))));
    // alg: none, unsigned.
    let mut none = header.clone();
    none["alg"] = json!("none");
    bad.push(("alg none", format!("{}.{p}.", b64(&none))));
    // HS256 "signed" with the issuer's public key material (algorithm confusion).
    let jwks = provider.jwks().await;
    let n = jwks["keys"][0]["n"].as_str().unwrap_or("key").to_owned();
    let hs = jsonwebtoken::encode(
        &jsonwebtoken::Header {
            kid: header["kid"].as_str().map(str::to_owned),
            ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256)
        },
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(n.as_bytes()).unwrap(),
    )
    .unwrap();
    bad.push(("HS256 with the public key", hs));
    // A key id the issuer never had.
    let mut unknown = header.clone();
    unknown["kid"] = json!("no-such-key");
    bad.push(("unknown kid", format!("{}.{p}.{s}", b64(&unknown))));
    // Not a JWT at all (and no introspection configured).
    bad.push(("opaque", "c29tZS1vcGFxdWUtdG9rZW4".to_owned()));
    // Another issuer (a second provider, its own keys).
    let elsewhere = Provider::start().await;
    let foreign = elsewhere
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    bad.push(("another issuer", foreign));
    // Expired: 2 s tokens, no leeway.
    let short = provider
        .token(
            oidc::SHORT_LIVED.0,
            oidc::SHORT_LIVED.1,
            "profile:read",
            &r.url,
        )
        .await;
    tokio::time::sleep(Duration::from_millis(3100)).await;
    bad.push(("expired", short));

    for (what, token) in &bad {
        let resp = call_with(&r, Some(token), "ping_me").await;
        let c = challenge(&resp);
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{what}: {c}");
        assert!(c.contains("error=\"invalid_token\""), "{what}: {c}");
        assert!(c.contains(&metadata), "{what}: {c}");
        let (_, body) = json_of(resp).await;
        assert!(body["error"]["message"].is_string(), "{what}: {body}");
    }

    // Malformed requests: 400 invalid_request.
    let resp = post(&r, &call(1, "ping_me"))
        .header("authorization", format!("Bearer {good}"))
        .header("authorization", format!("Bearer {good}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(challenge(&resp).contains("error=\"invalid_request\""));
    let resp = r
        .http
        .post(format!("{}?access_token={good}", r.url))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&good)
        .body(call(1, "ping_me").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let resp = post(&r, &call(1, "ping_me"))
        .header("authorization", "Bearer not a token")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);

    // And the server still serves the good token.
    let (status, body) = json_of(call_with(&r, Some(&good), "ping_me").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "pong");
}

#[tokio::test]
async fn missing_scopes_are_a_403_step_up_and_hidden_items_do_not_exist() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    let reader = provider
        .token(oidc::READER.0, oidc::READER.1, "notes:read", &r.url)
        .await;

    let resp = call_with(&r, Some(&reader), "whoami").await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let c = challenge(&resp);
    assert!(c.contains("error=\"insufficient_scope\""), "{c}");
    assert!(c.contains("scope=\"profile:read\""), "{c}");
    assert!(c.contains(&metadata_url(&r)), "{c}");
    let (_, body) = json_of(resp).await;
    assert_eq!(body["error"]["code"], -32003, "{body}");
    assert_eq!(
        body["error"]["data"]["requiredScopes"],
        json!(["profile:read"])
    );

    // `write_note` is hidden from the reader: not listed, not callable, private lists.
    let (_, list) = json_of(
        post(&r, &request(2, "tools/list", json!({})))
            .bearer_auth(&reader)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ping_me", "whoami"], "{list}");
    assert_eq!(list["result"]["cacheScope"], "private", "{list}");
    let resp = post(
        &r,
        &request(
            3,
            "tools/call",
            json!({"name": "write_note", "arguments": {"text": "x"}}),
        ),
    )
    .bearer_auth(&reader)
    .send()
    .await
    .unwrap();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Unknown tool")
    );

    // A token with `notes:write` sees and calls it.
    let writer = provider
        .token(oidc::SVC.0, oidc::SVC.1, "notes:write", &r.url)
        .await;
    let (_, list) = json_of(
        post(&r, &request(4, "tools/list", json!({})))
            .bearer_auth(&writer)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        list["result"]["tools"].as_array().unwrap().len(),
        3,
        "{list}"
    );
    assert_eq!(list["result"]["cacheScope"], "private", "{list}");
    let resp = post(
        &r,
        &request(
            5,
            "tools/call",
            json!({"name": "write_note", "arguments": {"text": "x"}}),
        ),
    )
    .bearer_auth(&writer)
    .send()
    .await
    .unwrap();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["content"][0]["text"], "saved: x", "{body}");
}

#[tokio::test]
async fn legacy_sessions_get_the_same_403_before_their_stream_starts() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    // A client that sends its token on every request, as the specification asks.
    let as_client = |token: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        Running {
            url: r.url.clone(),
            server: r.server.clone(),
            http: reqwest::Client::builder()
                .default_headers(headers)
                .build()
                .unwrap(),
        }
    };
    let reader = provider
        .token(oidc::READER.0, oidc::READER.1, "notes:read", &r.url)
        .await;
    let legacy = as_client(&reader);
    let session = legacy_session(&legacy, "2025-11-25").await;
    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}});
    let resp = legacy_post(&legacy, &session, &call).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let c = challenge(&resp);
    assert!(
        c.contains("insufficient_scope") && c.contains("scope=\"profile:read\""),
        "{c}"
    );

    let svc = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    let legacy = as_client(&svc);
    let session = legacy_session(&legacy, "2025-11-25").await;
    let resp = legacy_post(&legacy, &session, &call).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let events = sse_events(resp, 1).await;
    assert_eq!(
        events[0]["result"]["content"][0]["text"], "svc",
        "{events:?}"
    );
    // Without its token, the session's requests are refused like any other.
    let anonymous = legacy_post(&r, &session, &call).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn protected_resource_metadata_is_published_and_the_scopes_a_server_requires_are_enforced() {
    let provider = Provider::start().await;
    let issuer = provider.issuer().to_owned();
    let r = serve(|url| {
        Authorization::jwt(issuer.clone(), url)
            .unwrap()
            .required_scopes(["notes:read"])
            .unwrap()
            .resource_name("auth test")
    })
    .await;
    for url in [
        metadata_url(&r),
        r.url
            .replace("/mcp", "/.well-known/oauth-protected-resource"),
    ] {
        let resp = r.http.get(&url).send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{url}");
        let doc: Value = resp.json().await.unwrap();
        assert_eq!(doc["resource"], r.url, "{doc}");
        assert_eq!(doc["authorization_servers"], json!([issuer]), "{doc}");
        // The required scope first, then every scope a served item requires.
        assert_eq!(
            doc["scopes_supported"],
            json!(["notes:read", "notes:write", "profile:read"]),
            "{doc}"
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(doc["resource_name"], "auth test");
    }
    // The 401 names the required scope.
    let resp = call_with(&r, None, "ping_me").await;
    assert!(challenge(&resp).contains("scope=\"notes:read\""));
    // A valid token without it: 403.
    let token = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    let resp = call_with(&r, Some(&token), "ping_me").await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    assert!(challenge(&resp).contains("insufficient_scope"));
    let token = provider
        .token(oidc::SVC.0, oidc::SVC.1, "notes:read", &r.url)
        .await;
    assert_eq!(
        call_with(&r, Some(&token), "ping_me").await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn rotated_keys_are_picked_up_and_old_ones_stay_valid_until_removed() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    let mint = || provider.token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url);
    let before = mint().await;
    let before_unused = mint().await;
    assert_eq!(
        call_with(&r, Some(&before), "whoami").await.status(),
        StatusCode::OK
    );
    provider.rotate().await;
    let after = mint().await;
    assert_ne!(
        oidc::jwt_parts(&before).0["kid"],
        oidc::jwt_parts(&after).0["kid"]
    );
    // A key id the server has not seen: it fetches the keys again.
    let (status, body) = json_of(call_with(&r, Some(&after), "whoami").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A token of the old key, checked for the first time after the refresh, still
    // validates: the issuer still lists that key.
    let (status, body) = json_of(call_with(&r, Some(&before_unused), "whoami").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn made_up_key_ids_cannot_make_the_server_fetch_keys_without_end() {
    let provider = Provider::start().await;
    let r = serve_for(&provider).await;
    let good = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    assert_eq!(
        call_with(&r, Some(&good), "whoami").await.status(),
        StatusCode::OK
    );
    let (header, _) = oidc::jwt_parts(&good);
    let [_, p, s]: [&str; 3] = good.split('.').collect::<Vec<_>>().try_into().unwrap();
    for i in 0..40 {
        let mut forged = header.clone();
        forged["kid"] = json!(format!("made-up-{i}"));
        let token = format!("{}.{p}.{s}", URL_SAFE_NO_PAD.encode(forged.to_string()));
        let resp = call_with(&r, Some(&token), "whoami").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{i}");
    }
    let jwks = provider.state().await["hits"]["/jwks"]
        .as_u64()
        .unwrap_or(0);
    // The first fetch, then a burst of three refreshes; the next one only 30 s later.
    assert!(
        (1..=4).contains(&jwks),
        "{jwks} JWKS fetches for 40 made-up key ids"
    );
    assert_eq!(
        call_with(&r, Some(&good), "whoami").await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn an_issuer_that_is_down_gets_503s_and_the_server_recovers_by_itself() {
    let mut provider = Provider::start().await;
    let port = provider.port();
    let r = serve_for(&provider).await;
    let token = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    // Down before the server ever fetched its keys.
    provider.stop().await;
    let started = std::time::Instant::now();
    let resp = call_with(&r, Some(&token), "whoami").await;
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(resp.headers().contains_key("retry-after"));
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    // No token is no 503: it is refused at once.
    assert_eq!(
        call_with(&r, None, "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );

    // Back on the same address, with new keys: new tokens work once the pause is over.
    let provider = Provider::start_on(port).await;
    let token = provider
        .token(oidc::SVC.0, oidc::SVC.1, "profile:read", &r.url)
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let resp = call_with(&r, Some(&token), "whoami").await;
        if resp.status() == StatusCode::OK {
            break;
        }
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(std::time::Instant::now() < deadline, "did not recover");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let provider = Provider::start().await;
    let issuer = provider.issuer().to_owned();
    let r = serve(|url| {
        let verifier = JwtVerifier::new(issuer.clone(), url)
            .unwrap()
            .introspection(oidc::INTROSPECTOR.0, oidc::INTROSPECTOR.1);
        Authorization::new(url, verifier)
            .unwrap()
            .authorization_server(issuer.clone())
    })
    .await;
    let token = provider
        .token(oidc::OPAQUE.0, oidc::OPAQUE.1, "profile:read", &r.url)
        .await;
    assert_eq!(token.split('.').count(), 1, "an opaque token: {token}");
    let (status, body) = json_of(call_with(&r, Some(&token), "whoami").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "opaque");
    let resp = call_with(&r, Some("bm90LWEtdG9rZW4"), "whoami").await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert!(challenge(&resp).contains("invalid_token"));
}

#[tokio::test]
async fn a_server_may_hide_everything_its_callers_lack_scopes_for() {
    let provider = Provider::start().await;
    let issuer = provider.issuer().to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let server = Server::builder()
        .tools(tools![whoami, ping_me])
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .scope_policy(ScopePolicy::Hide)
        .authorization(Authorization::jwt(issuer, &url).unwrap())
        .build()
        .unwrap();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    let r = Running {
        url,
        server,
        http: reqwest::Client::new(),
    };
    let reader = provider
        .token(oidc::READER.0, oidc::READER.1, "notes:read", &r.url)
        .await;
    let (status, body) = json_of(call_with(&r, Some(&reader), "whoami").await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["error"]["code"], -32602, "{body}");
}

#[tokio::test]
async fn a_middleware_layer_can_challenge_for_scopes_of_its_own() {
    let provider = Provider::start().await;
    let issuer = provider.issuer().to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    // Calls on a weekend need `notes:write`, say: a rule the item's scopes cannot express.
    let layer = mcp_framework::middleware::from_fn(
        |call: mcp_framework::middleware::Call, next: mcp_framework::middleware::Next| async move {
            let granted = call
                .principal()
                .is_some_and(|p| p.scopes().contains("notes:write"));
            if call.name() == "ping_me" && !granted {
                return Err(mcp_framework::ErrorObject::new(
                    mcp_framework::protocol::codes::INSUFFICIENT_SCOPE,
                    "needs notes:write today",
                )
                .with_data(json!({"requiredScopes": ["notes:write"]}))
                .into());
            }
            next.run(call).await
        },
    );
    let server = Server::builder()
        .tools(tools![ping_me])
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .layer(layer)
        .authorization(Authorization::jwt(issuer, &url).unwrap())
        .build()
        .unwrap();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    let r = Running {
        url,
        server,
        http: reqwest::Client::new(),
    };
    let reader = provider
        .token(oidc::READER.0, oidc::READER.1, "notes:read", &r.url)
        .await;
    let resp = call_with(&r, Some(&reader), "ping_me").await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let c = challenge(&resp);
    assert!(
        c.contains("insufficient_scope") && c.contains("scope=\"notes:write\""),
        "{c}"
    );
    let writer = provider
        .token(oidc::SVC.0, oidc::SVC.1, "notes:write", &r.url)
        .await;
    assert_eq!(
        call_with(&r, Some(&writer), "ping_me").await.status(),
        StatusCode::OK
    );
}

/// The official Python SDK (mcp 2.3.0) as a client-credentials client of `everything`:
/// the 401, the metadata, the token request at the provider, the retried call.
#[tokio::test]
async fn the_python_sdk_authenticates_with_client_credentials() {
    let Some(python) = tests::interop_env("INTEROP_PYTHON") else {
        panic!("the Python SDK is not installed: run scripts/interop-setup");
    };
    let provider = Provider::start().await;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut server = tokio::process::Command::new(tests::example_binary("everything"))
        .args(["http", "--bind", &format!("127.0.0.1:{port}")])
        .args(["--auth-issuer", provider.issuer(), "--auth-audience", &url])
        .kill_on_drop(true)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Ready when the endpoint answers (401: it wants a token).
    let http = reqwest::Client::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while http.post(&url).send().await.map(|r| r.status()).ok() != Some(StatusCode::UNAUTHORIZED) {
        assert!(
            std::time::Instant::now() < deadline,
            "everything did not start"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/auth_client.py");
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(python)
            .arg(script)
            .args(["--url", &url, "--issuer", provider.issuer()])
            .args(["--client-id", oidc::SVC.0, "--client-secret", oidc::SVC.1])
            .args(["--tool", "whoami"])
            .output(),
    )
    .await
    .expect("the Python client finishes")
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    let result: Value = serde_json::from_str(stdout.trim()).expect("JSON on stdout");
    assert_eq!(
        result["structuredContent"]["subject"], "svc",
        "{result}\nstderr: {stderr}"
    );
    let _ = server.kill().await;
}

#[tokio::test]
async fn tokens_typed_as_something_else_than_an_access_token_are_refused() {
    let issuer = Issuer::start().await;
    let r = serve_issuer(&issuer, |v| v).await;
    let claims = |aud: &str| {
        json!({"iss": issuer.url(), "aud": aud, "sub": "ada", "scope": "profile:read",
               "exp": now() + 600})
    };
    // The default: access tokens, and tokens that do not say what they are.
    for typ in [
        Some("at+jwt"),
        Some("application/at+jwt"),
        Some("JWT"),
        None,
    ] {
        let token = issuer.sign(typ, &claims(&r.url));
        let (status, body) = json_of(call_with(&r, Some(&token), "whoami").await).await;
        assert_eq!(status, StatusCode::OK, "{typ:?}: {body}");
        assert_eq!(body["result"]["content"][0]["text"], "ada");
    }
    // JWTs the issuer signs for other purposes, with the same keys and the right audience.
    for typ in [
        "logout+jwt",
        "token-introspection+jwt",
        "dpop+jwt",
        "secevent+jwt",
    ] {
        let token = issuer.sign(Some(typ), &claims(&r.url));
        let resp = call_with(&r, Some(&token), "whoami").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{typ}");
        assert!(
            challenge(&resp).contains("error=\"invalid_token\""),
            "{typ}"
        );
    }
    // Strict (RFC 9068 §4): only at+jwt.
    let strict = serve_issuer(&issuer, |v| v.token_types(TokenTypes::AccessOnly)).await;
    for (typ, expected) in [
        (Some("at+jwt"), StatusCode::OK),
        (Some("application/AT+JWT"), StatusCode::OK),
        (Some("JWT"), StatusCode::UNAUTHORIZED),
        (None, StatusCode::UNAUTHORIZED),
    ] {
        let token = issuer.sign(typ, &claims(&strict.url));
        let resp = call_with(&strict, Some(&token), "whoami").await;
        assert_eq!(resp.status(), expected, "{typ:?}");
    }
}

#[tokio::test]
async fn times_beyond_the_clock_are_answered_and_do_not_panic() {
    let issuer = Issuer::start().await;
    let r = serve_issuer(&issuer, |v| v.introspection("rs", "rs-secret")).await;
    let base = json!({"iss": issuer.url(), "aud": r.url, "sub": "ada", "scope": "profile:read"});
    let with = |extra: Value| {
        let mut claims = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            claims[k] = v.clone();
        }
        claims
    };
    let cases = [
        ("exp at u64::MAX", json!({"exp": u64::MAX}), StatusCode::OK),
        (
            "exp past i64::MAX",
            json!({"exp": i64::MAX as u64 + 1}),
            StatusCode::OK,
        ),
        (
            "iat at u64::MAX",
            json!({"exp": now() + 600, "iat": u64::MAX}),
            StatusCode::OK,
        ),
        (
            "nbf at u64::MAX",
            json!({"exp": u64::MAX, "nbf": u64::MAX}),
            StatusCode::UNAUTHORIZED,
        ),
    ];
    for (what, extra, expected) in cases {
        let token = issuer.sign(Some("at+jwt"), &with(extra));
        // Twice: the second answer may come from the cache.
        for round in 0..2 {
            let resp = call_with(&r, Some(&token), "whoami").await;
            assert_eq!(resp.status(), expected, "{what}, round {round}");
        }
    }
    // An introspection answer with such an `exp`.
    let aud = r.url.clone();
    let iss = issuer.url().to_owned();
    issuer.answer_introspection(move |_| {
        json!({"active": true, "iss": iss, "aud": aud, "sub": "opaque-ada",
               "scope": "profile:read", "exp": u64::MAX})
    });
    let (status, body) = json_of(call_with(&r, Some("b3BhcXVl"), "whoami").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "opaque-ada");
}

#[tokio::test]
async fn a_junk_opaque_token_costs_the_issuer_one_introspection() {
    let provider = Provider::start().await;
    let issuer = provider.issuer().to_owned();
    let r = serve(|url| {
        let verifier = JwtVerifier::new(issuer.clone(), url)
            .unwrap()
            .introspection(oidc::INTROSPECTOR.0, oidc::INTROSPECTOR.1);
        Authorization::new(url, verifier)
            .unwrap()
            .authorization_server(issuer.clone())
    })
    .await;
    let introspections = || async {
        provider.state().await["hits"]["/token/introspection"]
            .as_u64()
            .unwrap_or(0)
    };
    for junk in ["bm90LWEtdG9rZW4", "YW5vdGhlci1vbmU"] {
        for i in 0..10 {
            let resp = call_with(&r, Some(junk), "ping_me").await;
            assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{junk} {i}");
            assert!(challenge(&resp).contains("error=\"invalid_token\""));
        }
    }
    assert_eq!(
        introspections().await,
        2,
        "twenty requests with two junk tokens"
    );
    // A token for another resource is refused from memory too.
    let elsewhere = provider
        .token(
            oidc::OPAQUE.0,
            oidc::OPAQUE.1,
            "profile:read",
            "http://127.0.0.1:1/other",
        )
        .await;
    for _ in 0..5 {
        let resp = call_with(&r, Some(&elsewhere), "ping_me").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    }
    assert_eq!(introspections().await, 3);
    // Valid opaque tokens are still introspected, once.
    let token = provider
        .token(oidc::OPAQUE.0, oidc::OPAQUE.1, "profile:read", &r.url)
        .await;
    for _ in 0..3 {
        let (status, body) = json_of(call_with(&r, Some(&token), "whoami").await).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    assert_eq!(introspections().await, 4);
}

#[tokio::test]
async fn introspection_calls_in_flight_to_an_issuer_are_bounded() {
    let issuer = Issuer::start().await;
    let r = serve_issuer(&issuer, |v| {
        v.introspection("rs", "rs-secret")
            .introspection_concurrency(2, Duration::from_millis(200))
    })
    .await;
    // Warm up (metadata fetched): one junk token, answered inactive.
    assert_eq!(
        call_with(&r, Some("d2FybS11cA"), "ping_me").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(issuer.introspections(), 1);
    issuer.hold();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for i in 0..6 {
        let (tx, http, url) = (tx.clone(), r.http.clone(), r.url.clone());
        tokio::spawn(async move {
            let resp = http
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "ping_me")
                .bearer_auth(format!("junk-{i}"))
                .body(call(1, "ping_me").to_string())
                .send()
                .await
                .unwrap();
            let retry_after = resp.headers().contains_key("retry-after");
            let _ = tx.send((resp.status(), retry_after));
        });
    }
    // Two calls reach the issuer and are held there; the four others are told to retry.
    for n in 0..4 {
        let (status, retry_after) = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "answer {n} did not come: {} introspections in flight",
                    issuer.in_flight()
                )
            })
            .unwrap();
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "answer {n}");
        assert!(retry_after, "answer {n} has Retry-After");
    }
    assert_eq!(issuer.in_flight(), 2);
    assert_eq!(issuer.most_in_flight(), 2);
    issuer.release();
    for n in 0..2 {
        let (status, _) = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status, StatusCode::UNAUTHORIZED, "held answer {n}");
    }
    assert_eq!(issuer.introspections(), 3);
    assert_eq!(issuer.most_in_flight(), 2);
}

/// `com.example/whoami`: a custom method that answers with the caller's subject.
struct WhoAmI;

impl mcp_framework::extension::Extension for WhoAmI {
    fn id(&self) -> &str {
        "com.example/whoami"
    }

    fn setup(&self, setup: &mut mcp_framework::extension::Setup) {
        setup.request("com.example/whoami", |_: Value, cx: Context| async move {
            let subject = cx.principal().map(|p| p.subject().to_owned());
            Ok::<_, mcp_framework::protocol::ErrorObject>(json!({ "subject": subject }))
        });
    }
}

#[tokio::test]
async fn proxied_items_and_extension_methods_pass_this_servers_authorization() {
    let issuer = Issuer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let verifier = JwtVerifier::new(issuer.url(), &url).unwrap();
    let server = Server::builder()
        .name("gateway")
        .tools(mcp_framework::ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .authorization(
            Authorization::new(&url, verifier)
                .unwrap()
                .authorization_server(issuer.url()),
        )
        .extension(WhoAmI)
        // Every item of `open` needs a valid token; every item of `guarded` also `inner:use`,
        // and callers without it do not see them.
        .mount("open", tests::fixture::server())
        .await
        .unwrap()
        .proxy(
            "guarded",
            mcp_framework::proxy::Upstream::server(tests::fixture::server())
                .scopes(["inner:use"])
                .scope_policy(ScopePolicy::Hide),
        )
        .await
        .unwrap()
        .build()
        .unwrap();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    let r = tests::wire::Running {
        url,
        server,
        http: reqwest::Client::new(),
    };
    let token = |scope: &str| {
        issuer.sign(
            None,
            &json!({"iss": issuer.url(), "aud": r.url, "sub": "ada", "scope": scope,
                    "exp": now() + 600}),
        )
    };
    let add = |name: &str| {
        request(
            1,
            "tools/call",
            json!({"name": name, "arguments": {"a": 1, "b": 2}}),
        )
    };
    let send = |body: Value, token: Option<String>| {
        let mut b = post(&r, &body);
        if let Some(t) = token {
            b = b.bearer_auth(t);
        }
        b.send()
    };

    // No token: neither proxied items nor the custom method are reached.
    for body in [add("open_add"), request(2, "com.example/whoami", json!({}))] {
        let resp = send(body.clone(), None).await.unwrap();
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{body}");
    }
    // A token without `inner:use`: the open upstream answers, the guarded one does not
    // exist for this caller (not listed, unknown when called).
    let plain = token("profile:read");
    let (status, body) = json_of(send(add("open_add"), Some(plain.clone())).await.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["structuredContent"]["sum"], 3.0);
    let (_, listed) = json_of(
        send(request(3, "tools/list", json!({})), Some(plain.clone()))
            .await
            .unwrap(),
    )
    .await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"open_add"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("guarded_")),
        "{names:?}"
    );
    let (_, refused) = json_of(send(add("guarded_add"), Some(plain.clone())).await.unwrap()).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // With `inner:use`: served.
    let (status, body) = json_of(
        send(add("guarded_add"), Some(token("inner:use")))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["structuredContent"]["sum"], 3.0);
    // The custom method sees the caller's principal.
    let (status, body) = json_of(
        send(request(4, "com.example/whoami", json!({})), Some(plain))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["subject"], "ada");
}
