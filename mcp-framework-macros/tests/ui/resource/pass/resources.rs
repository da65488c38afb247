//! Static resources and templates: options, completers, context, return types.
#![deny(warnings)]

use mcp_framework::{
    Blob, CompletionRequest, Context, Json, ResourceContents, Server, ServerHandle, resource,
    resources,
};
use serde::Serialize;

/// A static text.
#[resource(
    uri = "test://static-text",
    mime = "text/plain",
    title = "Static text",
    size = 6,
    ttl_ms = 60000,
    cache_scope = "public",
    icon = "https://example.com/t.png",
    meta = r#"{"k": true}"#
)]
fn static_text() -> String {
    "static".into()
}

/// Binary, with the context.
#[resource(uri = "test://static-blob", name = "blob", cache_scope = "private")]
async fn static_blob(cx: Context) -> Blob {
    let _ = cx.is_cancelled();
    Blob(vec![0, 1, 2])
}

/// Bytes in a result.
#[resource(uri = "test://bytes")]
fn bytes(#[ctx] server: &ServerHandle) -> Result<Vec<u8>, std::io::Error> {
    let _ = server.has_tool("x");
    Ok(vec![1])
}

fn ids(req: CompletionRequest) -> Vec<String> {
    req.matching(["1", "2", "10"])
}

#[derive(Serialize)]
struct Item {
    id: u32,
    section: String,
}

/// A template with several variables.
#[resource(
    template = "test://template/{id}/data{/section}{?page,size}",
    mime = "application/json"
)]
async fn item(
    #[complete(ids)] id: u32,
    section: String,
    page: Option<u32>,
    size: Option<u32>,
    #[ctx] server: ServerHandle,
) -> Json<Item> {
    let _ = (page, size, server.has_tool("x"));
    Json(Item { id, section })
}

/// Explicit contents.
#[resource(template = "file:///{+path}")]
fn file(path: &str) -> Vec<ResourceContents> {
    vec![ResourceContents::text(
        format!("file:///{path}"),
        "text/plain",
        "x",
    )]
}

/// Not registered.
#[resource(uri = "test://later", register = false)]
fn later() -> &'static str {
    "later"
}

fn main() {
    Server::builder()
        .resources(resources![
            static_text,
            static_blob,
            bytes,
            item,
            file,
            later
        ])
        .build()
        .unwrap();
}
