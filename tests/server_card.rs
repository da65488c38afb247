//! Server Cards (SEP-2127) over a real socket: the card at `<endpoint>/server-card` valid
//! against the extension's schema (vendored in `mcp-framework/tests/spec/server-card/`), in
//! step with `server/discover`, with its media type, open CORS, caching and `ETag` / `304`;
//! the AI Catalog at `/.well-known/ai-catalog.json` pointing at it; public URLs; the build
//! errors of a card the schema would refuse; `inspect --card` of `everything`; and `curl`
//! revalidating it with `If-None-Match` as a user would.

use mcp_framework::{Server, ServerCard};
use serde_json::{Value, json};
use tests::assert_conforms;
use tests::wire::{self, Running};

/// A notes server with a card.
fn notes(card: ServerCard) -> Server {
    Server::builder()
        .name("notes")
        .version("1.4.2")
        .title("Notes")
        .description("Keeps short notes")
        .website_url("https://notes.example.com")
        .tools(mcp_framework::ToolSet::new())
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        .server_card(card)
        .build()
        .unwrap()
}

async fn get(r: &Running, url: &str) -> reqwest::Response {
    r.http
        .get(url)
        .header("accept", "application/mcp-server-card+json")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_card_is_served_beside_the_endpoint_and_agrees_with_discover() {
    let running = wire::start(notes(
        ServerCard::new("com.example/notes")
            .repository("github", "https://github.com/example/notes"),
    ))
    .await;
    let card_url = format!("{}/server-card", running.url);
    let response = get(&running, &card_url).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "application/mcp-server-card+json");
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert_eq!(headers["access-control-expose-headers"], "ETag");
    assert_eq!(headers["cache-control"], "public, max-age=3600");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let card: Value = response.json().await.unwrap();
    assert_conforms("server-card", "ServerCard", &card);
    assert_eq!(card["name"], "com.example/notes");
    assert_eq!(card["title"], "Notes");
    assert_eq!(card["description"], "Keeps short notes");
    assert_eq!(card["websiteUrl"], "https://notes.example.com");
    assert_eq!(
        card["repository"],
        json!({"source": "github", "url": "https://github.com/example/notes"})
    );
    // The endpoint as this request reached it.
    assert_eq!(card["remotes"][0]["type"], "streamable-http");
    assert_eq!(card["remotes"][0]["url"], running.url);

    // Never contradicting server/discover.
    let discover: Value = wire::post(&running, &wire::request(1, "server/discover", json!({})))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let result = &discover["result"];
    assert_eq!(
        card["remotes"][0]["supportedProtocolVersions"],
        result["supportedVersions"]
    );
    let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(card["version"], info["version"]);

    // Revalidation: the same ETag is 304 with no body; another is the card again.
    let again = running
        .http
        .get(&card_url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().await.unwrap().is_empty());
    let stale = running
        .http
        .get(&card_url)
        .header("if-none-match", "\"something-else\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 200);

    // A browser's preflight, and methods a read-only document does not take.
    let preflight = running
        .http
        .request(reqwest::Method::OPTIONS, &card_url)
        .header("origin", "https://elsewhere.example")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert_eq!(preflight.headers()["access-control-allow-methods"], "GET");
    assert_eq!(
        preflight.headers()["access-control-allow-headers"],
        "Content-Type, If-None-Match"
    );
    let post = running.http.post(&card_url).send().await.unwrap();
    assert_eq!(post.status(), 405);
    // A page on another origin may read it (public metadata), which it may not do to the
    // endpoint itself.
    let cross = running
        .http
        .get(&card_url)
        .header("origin", "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), 200);
    // No catalog unless asked for.
    let catalog = running
        .http
        .get(running.url.replace("/mcp", "/.well-known/ai-catalog.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(catalog.status(), 404);
}

#[tokio::test]
async fn a_host_the_endpoint_refuses_gets_no_card() {
    let running = wire::start(notes(ServerCard::new("com.example/notes"))).await;
    let refused = running
        .http
        .get(format!("{}/server-card", running.url))
        .header("host", "attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    assert_eq!(refused.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn public_urls_and_the_ai_catalog() {
    let running = wire::start(notes(
        ServerCard::new("com.example/notes")
            .public_url("https://notes.example.com/mcp")
            .public_url("https://eu.notes.example.com/mcp")
            .ai_catalog("urn:air:example.com:mcp:notes"),
    ))
    .await;
    let card: Value = get(&running, &format!("{}/server-card", running.url))
        .await
        .json()
        .await
        .unwrap();
    assert_conforms("server-card", "ServerCard", &card);
    let urls: Vec<&str> = card["remotes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "https://notes.example.com/mcp",
            "https://eu.notes.example.com/mcp"
        ]
    );
    let response = running
        .http
        .get(running.url.replace("/mcp", "/.well-known/ai-catalog.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/ai-catalog+json"
    );
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    let catalog: Value = response.json().await.unwrap();
    assert_eq!(
        catalog,
        json!({
            "specVersion": "1.0",
            "entries": [{
                "identifier": "urn:air:example.com:mcp:notes",
                "type": "application/mcp-server-card+json",
                "url": "https://notes.example.com/mcp/server-card",
            }],
        })
    );
}

#[tokio::test]
async fn without_public_urls_the_catalog_points_at_the_card_it_was_reached_beside() {
    let running = wire::start(notes(
        ServerCard::new("com.example/notes").ai_catalog("urn:air:example.com:mcp:notes"),
    ))
    .await;
    let catalog: Value = running
        .http
        .get(running.url.replace("/mcp", "/.well-known/ai-catalog.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let url = catalog["entries"][0]["url"].as_str().unwrap();
    assert_eq!(url, format!("{}/server-card", running.url));
    let card: Value = get(&running, url).await.json().await.unwrap();
    assert_eq!(card["name"], "com.example/notes");
}

#[test]
fn a_card_the_schema_would_refuse_fails_the_build() {
    let e = Server::builder()
        .name("notes")
        .tools(mcp_framework::ToolSet::new())
        .server_card(ServerCard::new("notes").public_url("notes.example.com/mcp"))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("invalid configuration: the Server Card: "),
        "{e}"
    );
    assert!(e.contains("`notes` is not reverse-DNS"), "{e}");
    assert!(e.contains("needs a description"), "{e}");
    assert!(
        e.contains("`notes.example.com/mcp` is not an http(s) URL"),
        "{e}"
    );
}

#[test]
fn everything_shows_its_card_on_the_command_line() {
    let output = std::process::Command::new(tests::example_binary("everything"))
        .args(["inspect", "--card"])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let card: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_conforms("server-card", "ServerCard", &card);
    assert_eq!(card["name"], "io.github.mcp-framework/everything");
    assert_eq!(card["title"], "Everything");
}

/// `curl ARGS…`'s standard output (the real curl, as a user fetches the card).
fn curl(args: &[&str]) -> String {
    let out = std::process::Command::new("curl")
        .args(["--silent", "--show-error", "--max-time", "10"])
        .args(args)
        .output()
        .expect("curl is installed (Debian: apt-get install curl)");
    assert!(
        out.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn curl_revalidates_the_card_with_if_none_match() {
    let running = wire::start(notes(ServerCard::new("com.example/notes"))).await;
    let card_url = format!("{}/server-card", running.url);
    let url = card_url.clone();
    // Off the runtime: curl blocks.
    let (headers, revalidated, stale) = tokio::task::spawn_blocking(move || {
        let headers = curl(&["--dump-header", "-", "--output", "/dev/null", &url]);
        let etag = headers
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("etag")
                    .then(|| value.trim().to_owned())
            })
            .expect("an ETag header");
        let code = |tag: &str| {
            curl(&[
                "--output",
                "/dev/null",
                "--write-out",
                "%{http_code}",
                "--header",
                &format!("If-None-Match: {tag}"),
                &url,
            ])
        };
        (headers, code(&etag), code("\"something-else\""))
    })
    .await
    .unwrap();
    assert!(headers.starts_with("HTTP/1.1 200"), "{headers}");
    assert!(
        headers
            .to_ascii_lowercase()
            .contains("content-type: application/mcp-server-card+json"),
        "{headers}"
    );
    assert_eq!(revalidated, "304");
    assert_eq!(stale, "200");
}
