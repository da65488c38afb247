//! `search`: a server with a third party's extension. `extension.rs` is the extension
//! (`com.example/search`, on the public extension API only, as its own crate would be);
//! this file is the application that enables it beside its tools with
//! `ServerBuilder::extension`. Run `search stdio` or `search http --bind 127.0.0.1:8080`,
//! then ask `com.example/search` with `{"query": "rust"}`.

mod extension;

use extension::{Document, Search};
use mcp_framework::{Error, Server, State, tool};

/// Says how many documents there are to search.
#[tool(read_only)]
fn document_count(search: State<Search>) -> usize {
    search.document_count()
}

/// The documents clients said they used (`com.example/search/selected`), oldest first.
#[tool(read_only)]
fn selected(search: State<Search>) -> Vec<String> {
    search.selected()
}

/// Adds a document to search (its listeners of `searchesChanged` are told).
#[tool]
fn add_document(
    search: State<Search>,
    /// Its identifier.
    id: String,
    /// Its title, which searches look in.
    title: String,
) -> String {
    search.add(Document {
        id: id.clone(),
        title,
    });
    format!("added {id}")
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let search = Search::new(
        [
            ("rust-book", "The Rust Programming Language"),
            ("async-book", "Asynchronous Programming in Rust"),
            ("mcp-spec", "Model Context Protocol specification"),
            ("tokio-guide", "Tokio tutorial: async Rust in practice"),
        ]
        .map(|(id, title)| Document {
            id: id.into(),
            title: title.into(),
        }),
    );
    Server::builder()
        .name("search")
        .version(env!("CARGO_PKG_VERSION"))
        .title("Search example")
        .description("A server with a third party's extension: com.example/search")
        .state(search.clone())
        .tools(mcp_framework::tools![
            document_count,
            add_document,
            selected
        ])
        .extension(search)
        .run()
        .await
}
