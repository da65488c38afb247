//! The checks in front of the Streamable HTTP endpoint, on the wire over real TCP on
//! 127.0.0.1: strict `Host`, absolute-form targets, HTTP/2 `:authority` and `Origin`;
//! forwarded hosts from trusted proxies only; CORS; `Accept` negotiation and the exact
//! `Content-Type`. Raw requests are written by hand where a client library would not send
//! them (two `Host` headers, absolute-form targets, malformed values).

use std::net::SocketAddr;

use mcp_framework::{Error, HttpConfig, Server};
use serde_json::{Value, json};
use tests::fixture::{builder, server, server_with};
use tests::listening;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server on a fresh loopback port.
async fn start(server: Server) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_listener(listener, "/mcp").await });
    addr
}

fn discover_body(id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}})
    .to_string()
}

/// An answer read off the socket.
struct Answer {
    status: u16,
    /// The header lines, lowercase names.
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Writes `request_line`, `headers` (each `Name: value`) and a `server/discover` body with
/// the MCP headers (unless `headers` name a `Content-Type`, only that is left out), then
/// reads the whole answer.
async fn raw(addr: SocketAddr, request_line: &str, headers: &[&str]) -> Answer {
    raw_with_body(addr, request_line, headers, &discover_body(1)).await
}

async fn raw_with_body(
    addr: SocketAddr,
    request_line: &str,
    headers: &[&str],
    body: &str,
) -> Answer {
    let mut text = format!("{request_line}\r\n");
    for h in headers {
        text.push_str(h);
        text.push_str("\r\n");
    }
    let has = |name: &str| {
        headers
            .iter()
            .any(|h| h.to_ascii_lowercase().starts_with(&format!("{name}:")))
    };
    if !has("content-type") && !headers.contains(&"X-No-Content-Type: 1") {
        text.push_str("Content-Type: application/json\r\n");
    }
    if !has("accept") {
        text.push_str("Accept: application/json, text/event-stream\r\n");
    }
    text.push_str("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n");
    text.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(text.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let out = String::from_utf8(out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {out:?}"));
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

fn post() -> &'static str {
    "POST /mcp HTTP/1.1"
}

#[tokio::test]
async fn duplicate_and_malformed_hosts_are_bad_requests() {
    let addr = start(server()).await;
    let port = addr.port();
    let bad: Vec<(&str, Vec<String>)> = vec![
        (
            "two Host headers",
            vec![
                format!("Host: 127.0.0.1:{port}"),
                "Host: evil.example.com".into(),
            ],
        ),
        ("userinfo", vec!["Host: localhost:80@evil.com".into()]),
        ("a port that is a name", vec!["Host: 127.0.0.1:evil".into()]),
        (
            "junk after an IPv6 literal",
            vec!["Host: [::1]evil.com".into()],
        ),
        ("a port above 65535", vec!["Host: localhost:99999".into()]),
        ("an empty port", vec!["Host: localhost:".into()]),
        ("a character no name has", vec!["Host: local$host".into()]),
        ("no Host on HTTP/1.1", vec![]),
    ];
    for (what, headers) in &bad {
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let a = raw(addr, post(), &headers).await;
        assert_eq!(a.status, 400, "{what}: {}", a.body);
        let reply: Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(reply["error"]["code"], -32600, "{what}");
        assert_eq!(reply["id"], Value::Null, "{what}");
    }
    for good in [
        format!("Host: localhost:{port}"),
        format!("Host: 127.0.0.1:{port}"),
        "Host: 127.0.0.1".into(),
        format!("Host: [::1]:{port}"),
        "Host: LOCALHOST".into(),
        "Host: app.localhost".into(),
    ] {
        let a = raw(addr, post(), &[good.as_str()]).await;
        assert_eq!(a.status, 200, "{good}: {}", a.body);
    }
    // A well-formed host that is not a localhost name: refused, not malformed.
    let a = raw(addr, post(), &["Host: localhost.evil.com"]).await;
    assert_eq!(a.status, 403);
}

#[tokio::test]
async fn absolute_form_targets_name_the_host() {
    let addr = start(server()).await;
    let port = addr.port();
    // RFC 9112 §3.2.2: the target's authority counts, the Host header is ignored.
    let a = raw(
        addr,
        "POST http://evil.example.com/mcp HTTP/1.1",
        &[&format!("Host: localhost:{port}")],
    )
    .await;
    assert_eq!(a.status, 403, "{}", a.body);
    let line = format!("POST http://localhost:{port}/mcp HTTP/1.1");
    let a = raw(addr, &line, &["Host: evil.example.com"]).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let a = raw(
        addr,
        "POST http://localhost:80@evil.example.com/mcp HTTP/1.1",
        &["Host: localhost"],
    )
    .await;
    assert_eq!(a.status, 400, "{}", a.body);
    // Still one Host at most.
    let a = raw(addr, &line, &["Host: localhost", "Host: localhost"]).await;
    assert_eq!(a.status, 400, "{}", a.body);
}

#[tokio::test]
async fn malformed_duplicate_and_foreign_origins_are_forbidden() {
    let addr = start(server()).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    for origin in [
        vec!["Origin: http://localhost:80@evil.com"],
        vec!["Origin: http://127.0.0.1:evil"],
        vec!["Origin: http://[::1]evil.com"],
        vec!["Origin: http://localhost:3000/"],
        vec!["Origin: localhost:3000"],
        vec!["Origin: null"],
        vec!["Origin: http://evil.example.com"],
        vec![
            "Origin: http://localhost:3000",
            "Origin: http://evil.example.com",
        ],
        vec![
            "Origin: http://localhost:3000",
            "Origin: http://localhost:3000",
        ],
    ] {
        let mut headers = vec![host.as_str()];
        headers.extend(&origin);
        let a = raw(addr, post(), &headers).await;
        assert_eq!(a.status, 403, "{origin:?}: {}", a.body);
        let reply: Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(reply["error"]["code"], -32600);
    }
    for origin in [
        "Origin: http://localhost:3000",
        "Origin: http://[::1]:3000",
        "Origin: https://127.0.0.1",
        "Origin: HTTP://LOCALHOST:5173",
    ] {
        let a = raw(addr, post(), &[host.as_str(), origin]).await;
        assert_eq!(a.status, 200, "{origin}: {}", a.body);
    }
    // `null` only when listed; `*` admits every valid origin, but not a malformed one.
    let addr = start(server_with(|b| {
        b.http(HttpConfig::new().allow_origin("null"))
    }))
    .await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    assert_eq!(
        raw(addr, post(), &[&host, "Origin: null"]).await.status,
        200
    );
    let addr = start(server_with(|b| b.http(HttpConfig::new().allow_origin("*")))).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    assert_eq!(
        raw(addr, post(), &[&host, "Origin: https://any.example"])
            .await
            .status,
        200
    );
    let a = raw(
        addr,
        post(),
        &[&host, "Origin: https://any.example@evil.com"],
    )
    .await;
    assert_eq!(a.status, 403);
}

/// An HTTP/2 (prior knowledge) request to `uri` with extra headers.
async fn h2_request(addr: SocketAddr, uri: &str, headers: &[(&str, &str)]) -> u16 {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut b = http::Request::post(uri)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut send = send.ready().await.unwrap();
    let (resp, mut stream) = send.send_request(b.body(()).unwrap(), false).unwrap();
    stream
        .send_data(bytes::Bytes::from(discover_body(2)), true)
        .unwrap();
    resp.await.unwrap().status().as_u16()
}

#[tokio::test]
async fn http2_authority_is_checked() {
    let addr = start(server()).await;
    let port = addr.port();
    let ok = format!("http://localhost:{port}/mcp");
    assert_eq!(h2_request(addr, &ok, &[]).await, 200);
    assert_eq!(
        h2_request(addr, "http://evil.example.com/mcp", &[]).await,
        403
    );
    // A Host header that contradicts :authority (RFC 9113 §8.3.1) is malformed.
    assert_eq!(
        h2_request(addr, &ok, &[("host", "evil.example.com")]).await,
        400
    );
    let same = format!("localhost:{port}");
    assert_eq!(h2_request(addr, &ok, &[("host", &same)]).await, 200);
    assert_eq!(
        h2_request(addr, "http://localhost:80@evil.example.com/mcp", &[]).await,
        400
    );
}

/// Served on loopback for `mcp.example.com`, behind a proxy at `proxy`.
fn proxied(proxy: &str, host: &str) -> Server {
    let (proxy, host) = (proxy.to_owned(), host.to_owned());
    server_with(move |b| b.http(HttpConfig::new().allow_host(host).trust_proxy(proxy)))
}

#[tokio::test]
async fn a_trusted_proxy_forwards_the_host_the_client_used() {
    // The test client (127.0.0.1) plays the proxy.
    let addr = start(proxied("127.0.0.1", "mcp.example.com")).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let case = |headers: Vec<&'static str>| {
        let host = host.clone();
        async move {
            let mut all = vec![host.as_str()];
            all.extend(headers);
            raw(addr, post(), &all).await.status
        }
    };
    // Without forwarding headers the Host itself is checked.
    assert_eq!(case(vec![]).await, 403);
    assert_eq!(
        raw(addr, post(), &["Host: mcp.example.com"]).await.status,
        200
    );
    assert_eq!(case(vec!["X-Forwarded-Host: mcp.example.com"]).await, 200);
    assert_eq!(case(vec!["X-Forwarded-Host: evil.example.com"]).await, 403);
    assert_eq!(
        case(vec!["X-Forwarded-Host: mcp.example.com, evil.example.com"]).await,
        403,
        "the entry the proxy appended counts"
    );
    assert_eq!(
        case(vec![
            "Forwarded: for=203.0.113.9;host=mcp.example.com;proto=https"
        ])
        .await,
        200
    );
    assert_eq!(
        case(vec![
            "Forwarded: host=mcp.example.com, for=203.0.113.9;host=evil.example.com"
        ])
        .await,
        403,
        "a client's own Forwarded element does not count"
    );
    assert_eq!(case(vec!["Forwarded: host=\"mcp.example.com"]).await, 400);
    assert_eq!(
        case(vec!["X-Forwarded-Host: mcp.example.com@evil"]).await,
        400
    );
    // A port in the allowed host is the port the client used, by the forwarded protocol.
    let addr = start(proxied("127.0.0.0/8", "mcp.example.com:443")).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let tls = [
        "X-Forwarded-Host: mcp.example.com",
        "X-Forwarded-Proto: https",
    ];
    assert_eq!(
        raw(addr, post(), &[&host, tls[0], tls[1]]).await.status,
        200
    );
    assert_eq!(raw(addr, post(), &[&host, tls[0]]).await.status, 403);
    assert_eq!(
        raw(addr, post(), &[&host, tls[0], "X-Forwarded-Proto: h ttp"])
            .await
            .status,
        400
    );
}

#[tokio::test]
async fn an_untrusted_peers_forwarding_headers_are_ignored() {
    let addr = start(proxied("10.0.0.0/8", "mcp.example.com")).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let a = raw(addr, post(), &[&host, "X-Forwarded-Host: mcp.example.com"]).await;
    assert_eq!(a.status, 403);
    let a = raw(addr, post(), &[&host, "Forwarded: host=mcp.example.com"]).await;
    assert_eq!(a.status, 403);
    let a = raw(
        addr,
        post(),
        &[
            "Host: mcp.example.com",
            "X-Forwarded-Host: evil.example.com",
        ],
    )
    .await;
    assert_eq!(a.status, 200);
    // A router served without connect info knows no peer: nothing forwarded is believed.
    let server = proxied("127.0.0.1", "mcp.example.com");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let a = raw(addr, post(), &[&host, "X-Forwarded-Host: mcp.example.com"]).await;
    assert_eq!(a.status, 403);
    // …and served with it, the same router believes its trusted peer.
    let server = proxied("127.0.0.1", "mcp.example.com");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = server
        .router()
        .into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let a = raw(addr, post(), &[&host, "X-Forwarded-Host: mcp.example.com"]).await;
    assert_eq!(a.status, 200);
}

/// A port nothing listens on (bound, read, and let go).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn command_line_options_reach_the_endpoint() {
    let port = free_port();
    let args = owned(&[
        "http",
        "--bind",
        &format!("127.0.0.1:{port}"),
        "--allow-host",
        "mcp.example.com",
        "--trust-proxy",
        "127.0.0.1",
        "--allow-origin",
        "https://app.example.com",
    ]);
    let serving = tokio::spawn(async move { builder().run_with_args(&args).await });
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    listening(addr).await;
    let host = format!("Host: 127.0.0.1:{port}");
    let forwarded = "X-Forwarded-Host: mcp.example.com";
    assert_eq!(raw(addr, post(), &[&host]).await.status, 403);
    assert_eq!(raw(addr, post(), &[&host, forwarded]).await.status, 200);
    let app = "Origin: https://app.example.com";
    let a = raw(addr, post(), &[&host, forwarded, app]).await;
    assert_eq!(a.status, 200);
    assert_eq!(
        a.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    serving.abort();
}

/// What the command line adds is checked with the rest of the settings, once, by
/// `build()`: a value that does not parse is a configuration error, and nothing is served.
#[tokio::test]
async fn build_checks_what_the_command_line_adds() {
    async fn refusal(run: impl std::future::Future<Output = Result<(), Error>>) -> Error {
        tokio::time::timeout(std::time::Duration::from_secs(5), run)
            .await
            .expect("refused, not served")
            .unwrap_err()
    }
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    let bad_host = owned(&["http", "--bind", &bind, "--allow-host", "user@evil.com"]);
    // Refused before serving: a server that served instead would not return.
    let refused = refusal(builder().run_with_args(&bad_host)).await;
    assert!(
        matches!(&refused, Error::Config(m) if m.contains("allow_host `user@evil.com`")),
        "{refused:?}"
    );
    // A bad value set in code is refused the same way, whatever the command line adds.
    let fine = owned(&["http", "--bind", &bind, "--allow-host", "mcp.example.com"]);
    let refused = refusal(
        builder()
            .http(HttpConfig::new().allow_origin("https://app.example.com/"))
            .run_with_args(&fine),
    )
    .await;
    assert!(
        matches!(&refused, Error::Config(m) if m.contains("allow_origin `https://app.example.com/`")),
        "{refused:?}"
    );
    // Authorization needs both an issuer and an audience: the command line's own rule.
    let half = owned(&[
        "http",
        "--bind",
        &bind,
        "--auth-issuer",
        "https://as.example.com",
    ]);
    let refused = refusal(builder().run_with_args(&half)).await;
    assert!(
        matches!(&refused, Error::Usage(m) if m.contains("--auth-audience")),
        "{refused:?}"
    );
    assert!(
        tokio::net::TcpStream::connect(&bind).await.is_err(),
        "served anyway"
    );
}

fn preflight<'a>(host: &'a str, origin: &'a str) -> Vec<&'a str> {
    vec![
        host,
        origin,
        "Access-Control-Request-Method: POST",
        "Access-Control-Request-Headers: content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization",
    ]
}

#[tokio::test]
async fn cors_answers_preflights_and_exposes_the_session_header() {
    let addr = start(server_with(|b| {
        b.http(HttpConfig::new().allow_origin("https://app.example.com"))
    }))
    .await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let app = "Origin: https://app.example.com";
    let a = raw(addr, "OPTIONS /mcp HTTP/1.1", &preflight(&host, app)).await;
    // Answered by the CORS layer: the endpoint itself would say 405 to OPTIONS.
    assert_eq!(a.status, 200, "{}", a.head);
    assert_eq!(
        a.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    let methods = a
        .header("access-control-allow-methods")
        .unwrap()
        .to_ascii_uppercase();
    assert!(methods.contains("POST") && methods.contains("GET") && methods.contains("DELETE"));
    let allowed = a
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    for h in [
        "content-type",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
        "authorization",
    ] {
        assert!(allowed.contains(h), "{h} in {allowed}");
    }
    assert_eq!(a.header("access-control-max-age"), Some("3600"));
    assert!(a.body.is_empty());
    // The request itself: allowed, with the headers a browser app may read.
    let a = raw(addr, post(), &[&host, app]).await;
    assert_eq!(a.status, 200);
    assert_eq!(
        a.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    let exposed = a
        .header("access-control-expose-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        exposed.contains("mcp-session-id") && exposed.contains("www-authenticate"),
        "{exposed}"
    );
    // Another origin: no CORS answer, and its requests are refused.
    let other = "Origin: https://evil.example.com";
    let a = raw(addr, "OPTIONS /mcp HTTP/1.1", &preflight(&host, other)).await;
    assert_eq!(a.header("access-control-allow-origin"), None);
    let a = raw(addr, post(), &[&host, other]).await;
    assert_eq!(a.status, 403);
    assert_eq!(a.header("access-control-allow-origin"), None);
    // Errors an allowed app causes are readable by it.
    let a = raw(addr, post(), &[&host, app, "Content-Type: text/plain"]).await;
    assert_eq!(a.status, 415);
    assert_eq!(
        a.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );

    // Off by default, and off on request: OPTIONS reaches the endpoint (405).
    let off = [
        (HttpConfig::new(), "Origin: http://localhost:3000"),
        (
            HttpConfig::new()
                .allow_origin("https://app.example.com")
                .cors(false),
            app,
        ),
    ];
    for (config, origin) in off {
        let addr = start(server_with(move |b| b.http(config))).await;
        let host = format!("Host: 127.0.0.1:{}", addr.port());
        let a = raw(addr, "OPTIONS /mcp HTTP/1.1", &preflight(&host, origin)).await;
        assert_eq!(a.status, 405, "{origin}");
        assert_eq!(a.header("access-control-allow-origin"), None);
    }
    // cors(true) alone: for the localhost origins.
    let addr = start(server_with(|b| b.http(HttpConfig::new().cors(true)))).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    let a = raw(
        addr,
        "OPTIONS /mcp HTTP/1.1",
        &preflight(&host, "Origin: http://localhost:6274"),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(
        a.header("access-control-allow-origin"),
        Some("http://localhost:6274")
    );
}

/// The `data:` of each SSE event.
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[tokio::test]
async fn accept_decides_between_json_and_sse() {
    let addr = start(server()).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    for accept in [
        "Accept: text/event-stream",
        "Accept: application/json;q=0, text/event-stream",
        "Accept: text/*, application/json;q=0",
    ] {
        let a = raw(addr, post(), &[&host, accept]).await;
        assert_eq!(a.status, 200, "{accept}");
        assert_eq!(
            a.header("content-type"),
            Some("text/event-stream"),
            "{accept}"
        );
        let events = events(&a.body);
        assert_eq!(events.len(), 1, "{accept}: {}", a.body);
        assert_eq!(events[0]["id"], 1);
        assert!(
            events[0]["result"]["supportedVersions"].is_array(),
            "{}",
            events[0]
        );
    }
    for accept in [
        "Accept: application/json",
        "Accept: */*",
        "Accept: application/*",
        "Accept: text/event-stream;q=0, application/json",
        "Accept: application/json, text/event-stream",
    ] {
        let a = raw(addr, post(), &[&host, accept]).await;
        assert_eq!(a.status, 200, "{accept}");
        assert_eq!(
            a.header("content-type"),
            Some("application/json"),
            "{accept}"
        );
    }
    for accept in [
        "Accept: text/html",
        "Accept: application/json;q=0, text/event-stream;q=0",
        "Accept: */*;q=0",
        "Accept: application/jsonx, text/event-streams",
    ] {
        let a = raw(addr, post(), &[&host, accept]).await;
        assert_eq!(a.status, 406, "{accept}");
    }
    // A legacy client that accepts only SSE gets its initialize result as an event.
    let init = json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"l","version":"1"}}});
    let a = raw_with_body(
        addr,
        post(),
        &[&host, "Accept: text/event-stream"],
        &init.to_string(),
    )
    .await;
    assert_eq!(a.header("content-type"), Some("text/event-stream"));
    assert!(a.header("mcp-session-id").is_some());
    assert_eq!(
        events(&a.body)[0]["result"]["protocolVersion"],
        "2025-06-18"
    );
}

#[tokio::test]
async fn the_body_must_be_declared_json() {
    let addr = start(server()).await;
    let host = format!("Host: 127.0.0.1:{}", addr.port());
    for ct in [
        "Content-Type: application/jsonx",
        "Content-Type: application/json-seq",
        "Content-Type: text/plain",
        "Content-Type: application/json; charset",
        "X-No-Content-Type: 1",
    ] {
        let a = raw(addr, post(), &[&host, ct]).await;
        assert_eq!(a.status, 415, "{ct}");
        assert_eq!(a.header("accept"), Some("application/json"), "{ct}");
        let reply: Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(reply["error"]["code"], -32600, "{ct}");
    }
    for ct in [
        "Content-Type: application/json",
        "Content-Type: Application/JSON; charset=utf-8",
        "Content-Type: application/json;charset=\"UTF-8\"",
    ] {
        let a = raw(addr, post(), &[&host, ct]).await;
        assert_eq!(a.status, 200, "{ct}: {}", a.body);
    }
}
