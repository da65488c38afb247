//! `com.example/search`: an MCP extension written as a third party would write one, on
//! the framework's public extension API only (`mcp_framework::extension`). In a crate of
//! its own it would be this file and a `Cargo.toml` naming `mcp-framework`.
//!
//! It declares itself under `capabilities.extensions["com.example/search"]` with its
//! settings, answers the custom request `com.example/search` (typed params, typed
//! result, both eras, every transport), hears the notification
//! `com.example/search/selected` (a client says which match it used), and adds
//! `searchesChanged` to the `subscriptions/listen` filter, fired when a document is added.

use std::sync::{Arc, RwLock};

use mcp_framework::Context;
use mcp_framework::extension::{Extension, ListenNotifier, Setup};
use mcp_framework::protocol::{ErrorObject, JsonObject};
use serde::{Deserialize, Serialize};

/// The extension's identifier.
pub(crate) const ID: &str = "com.example/search";

/// The most matches one search returns.
const MAX_LIMIT: usize = 50;

/// `com.example/search`'s params.
#[derive(Deserialize)]
struct Query {
    /// Words every match contains (case-insensitive).
    query: String,
    /// At most this many matches (default 10, at most 50).
    #[serde(default)]
    limit: Option<usize>,
}

/// `com.example/search`'s result.
#[derive(Serialize)]
struct Matches {
    matches: Vec<Match>,
    /// Whether more documents matched than were returned.
    truncated: bool,
}

#[derive(Serialize)]
struct Match {
    id: String,
    title: String,
}

/// `com.example/search/selected`'s params.
#[derive(Deserialize)]
struct Selected {
    id: String,
}

/// A searchable document.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    /// Its identifier.
    pub(crate) id: String,
    /// Its title, which searches look in.
    pub(crate) title: String,
}

/// The extension: the documents it searches, and what it has heard was selected.
#[derive(Clone, Default)]
pub(crate) struct Search {
    documents: Arc<RwLock<Vec<Document>>>,
    selected: Arc<RwLock<Vec<String>>>,
    changed: Arc<RwLock<Option<ListenNotifier>>>,
}

impl Search {
    /// The extension over `documents`.
    pub(crate) fn new(documents: impl IntoIterator<Item = Document>) -> Self {
        let search = Self::default();
        search
            .documents
            .write()
            .expect("documents")
            .extend(documents);
        search
    }

    /// Adds a document, and tells the listeners that asked for `searchesChanged`.
    pub(crate) fn add(&self, document: Document) {
        self.documents.write().expect("documents").push(document);
        if let Some(changed) = &*self.changed.read().expect("notifier") {
            changed.notify();
        }
    }

    /// How many documents there are.
    pub(crate) fn document_count(&self) -> usize {
        self.documents.read().expect("documents").len()
    }

    /// The ids clients said they selected, oldest first.
    pub(crate) fn selected(&self) -> Vec<String> {
        self.selected.read().expect("selected").clone()
    }
}

impl Extension for Search {
    fn id(&self) -> &str {
        ID
    }

    fn settings(&self) -> JsonObject {
        let mut settings = JsonObject::new();
        settings.insert("maxLimit".into(), MAX_LIMIT.into());
        settings
    }

    fn setup(&self, setup: &mut Setup) {
        let documents = self.documents.clone();
        setup.request(ID, move |q: Query, _cx: Context| {
            let documents = documents.clone();
            async move {
                let limit = q.limit.unwrap_or(10);
                if limit == 0 || limit > MAX_LIMIT {
                    return Err(ErrorObject::invalid_params(format!(
                        "limit must be 1 to {MAX_LIMIT}, not {limit}"
                    )));
                }
                let words: Vec<String> =
                    q.query.split_whitespace().map(str::to_lowercase).collect();
                let documents = documents.read().expect("documents");
                let mut found = documents.iter().filter(|d| {
                    let title = d.title.to_lowercase();
                    words.iter().all(|w| title.contains(w))
                });
                let matches: Vec<Match> = found
                    .by_ref()
                    .take(limit)
                    .map(|d| Match {
                        id: d.id.clone(),
                        title: d.title.clone(),
                    })
                    .collect();
                let truncated = found.next().is_some();
                Ok(Matches { matches, truncated })
            }
        });
        let selected = self.selected.clone();
        setup.notification("com.example/search/selected", move |s: Selected| {
            selected.write().expect("selected").push(s.id);
            std::future::ready(())
        });
        let changed = setup.listen_notification(
            "searchesChanged",
            "notifications/com.example/search/changed",
        );
        *self.changed.write().expect("notifier") = Some(changed);
    }
}
