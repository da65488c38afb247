//! `notes`: a small notes server, the example to start from.
//!
//! - Tools: `create_note`, `search_notes`, `edit_note` and `delete_note`, with structured
//!   output, tool errors the model can read, and a confirmation (elicitation) before the
//!   destructive one.
//! - A prompt, `summarize_note`, whose `title` argument completes from the stored notes.
//! - Resources: `notes://index` (every note, as JSON) and one `notes://note/{id}` per
//!   note (listed, added and removed at run time), plus the template `notes://note/{id}`
//!   (any note by id, with completion of the id).
//! - Change notifications: `resources/updated` when a note changes, `resources/list_changed`
//!   when one is created or deleted.
//!
//! The library exposes [`server()`] so that tests drive it in process
//! (`examples/tests/notes.rs`), and [`builder()`], which `main.rs` runs.

use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use mcp_framework::{
    CompletionRequest, Content, Context, Elicitation, Error, ErrorObject, Form, Json,
    PromptMessage, ResourceContents, ResourceDefinition, ResourceSet, Role, Server, ServerBuilder,
    ServerHandle, ToolError, prompt, prompts, resource, resources, tool, tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The URI of the index of every note.
pub const INDEX_URI: &str = "notes://index";

/// The URI of one note.
pub fn note_uri(id: u64) -> String {
    format!("notes://note/{id}")
}

// ---------------------------------------------------------------------------------------------
// The data. Handlers and completers could share it as a `State<T>` (`ServerBuilder::state`);
// this example keeps it in a static that both read.

#[derive(Debug, Clone)]
struct Note {
    title: String,
    body: String,
    tags: Vec<String>,
}

#[derive(Debug)]
struct Store {
    next_id: u64,
    notes: BTreeMap<u64, Note>,
}

impl Store {
    fn insert(&mut self, title: &str, body: &str, tags: Vec<String>) -> NoteSummary {
        let id = self.next_id;
        self.next_id += 1;
        let note = Note {
            title: title.to_owned(),
            body: body.to_owned(),
            tags,
        };
        let summary = NoteSummary::of(id, &note);
        self.notes.insert(id, note);
        summary
    }

    /// The note with this title (ignoring case).
    fn by_title(&self, title: &str) -> Option<(u64, &Note)> {
        self.notes
            .iter()
            .find(|(_, n)| n.title.eq_ignore_ascii_case(title))
            .map(|(id, n)| (*id, n))
    }
}

static STORE: LazyLock<Mutex<Store>> = LazyLock::new(|| {
    let mut store = Store {
        next_id: 1,
        notes: BTreeMap::new(),
    };
    store.insert("Groceries", "- eggs\n- flour\n- milk", vec!["home".into()]);
    store.insert(
        "Release checklist",
        "1. bump the version\n2. update the changelog\n3. tag and publish",
        vec!["work".into()],
    );
    Mutex::new(store)
});

/// Locks the store. Never hold the guard across an `.await`: it is not `Send`, and
/// handler futures must be.
fn store() -> MutexGuard<'static, Store> {
    STORE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A note as the tools and the index show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoteSummary {
    /// The note's id.
    pub id: u64,
    /// Its title (unique, ignoring case).
    pub title: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Where to read it.
    pub uri: String,
}

impl NoteSummary {
    fn of(id: u64, note: &Note) -> Self {
        Self {
            id,
            title: note.title.clone(),
            tags: note.tags.clone(),
            uri: note_uri(id),
        }
    }
}

/// What `search_notes` found.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchResults {
    /// The matching notes, oldest first.
    pub notes: Vec<NoteSummary>,
    /// How many notes matched (there may be more than `notes` holds).
    pub total: usize,
}

fn render(note: &Note) -> String {
    let tags = if note.tags.is_empty() {
        String::new()
    } else {
        format!("\n\ntags: {}", note.tags.join(", "))
    };
    format!("# {}\n\n{}{tags}\n", note.title, note.body)
}

/// The Markdown of a note, or the "resource not found" error (`-32602` with `data.uri`).
fn read_note(id: u64) -> Result<String, ErrorObject> {
    store()
        .notes
        .get(&id)
        .map(render)
        .ok_or_else(|| ErrorObject::resource_not_found(&note_uri(id)))
}

// ---------------------------------------------------------------------------------------------
// Tools.

/// Creates a note. Titles are unique (ignoring case).
#[tool(title = "Create a note")]
async fn create_note(
    /// A short title, unique among the notes.
    title: String,
    /// The text of the note, in Markdown.
    body: String,
    /// Words to find the note by later.
    tags: Option<Vec<String>>,
    cx: Context,
) -> Result<NoteSummary, ToolError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(ToolError::new("the title must not be empty"));
    }
    // The guard is dropped at the end of this block, before any `.await`.
    let created = {
        let mut store = store();
        if let Some((id, _)) = store.by_title(title) {
            return Err(ToolError::new(format!(
                "note {id} is already titled {title:?}: choose another title, or edit that note"
            )));
        }
        store.insert(title, &body, tags.unwrap_or_default())
    };
    // List the new note (clients listening for resource list changes are told), and tell
    // subscribers of the index that it changed.
    let server = cx.server();
    server.add_resources(listed_note(ResourceSet::new(), created.id, &created.title))?;
    server.resource_updated(INDEX_URI);
    cx.info(format!("created note {}", created.id)).await;
    Ok(created)
}

/// Finds notes whose title or text contains `query` (ignoring case).
#[tool(title = "Search notes", read_only)]
fn search_notes(
    /// The text to look for; empty matches every note.
    query: String,
    /// Only notes with this tag.
    tag: Option<String>,
    /// At most this many notes (default 20, at most 100).
    limit: Option<u32>,
) -> SearchResults {
    let query = query.to_lowercase();
    let limit = limit.unwrap_or(20).clamp(1, 100) as usize;
    let store = store();
    let matches: Vec<NoteSummary> = store
        .notes
        .iter()
        .filter(|(_, n)| tag.as_ref().is_none_or(|t| n.tags.contains(t)))
        .filter(|(_, n)| {
            n.title.to_lowercase().contains(&query) || n.body.to_lowercase().contains(&query)
        })
        .map(|(id, n)| NoteSummary::of(*id, n))
        .collect();
    SearchResults {
        total: matches.len(),
        notes: matches.into_iter().take(limit).collect(),
    }
}

/// Replaces the text of a note.
#[tool(title = "Edit a note", idempotent)]
fn edit_note(
    /// The id of the note.
    id: u64,
    /// The new text, in Markdown.
    body: String,
    #[ctx] server: ServerHandle,
) -> Result<NoteSummary, ToolError> {
    let summary = {
        let mut store = store();
        let note = store
            .notes
            .get_mut(&id)
            .ok_or_else(|| ToolError::new(format!("there is no note {id}")))?;
        note.body = body;
        NoteSummary::of(id, note)
    };
    // Subscribers of this note (or of `notes://note`) get `notifications/resources/updated`.
    server.resource_updated(&summary.uri);
    Ok(summary)
}

/// The confirmation `delete_note` asks for.
#[derive(Debug, Deserialize, JsonSchema, Form)]
struct Confirm {
    /// Check to delete the note.
    confirm: bool,
}

/// Deletes a note. The user is asked to confirm when the client can show a form.
#[tool(title = "Delete a note", destructive)]
async fn delete_note(
    /// The id of the note.
    id: u64,
    cx: Context,
) -> Result<String, ToolError> {
    let title = store()
        .notes
        .get(&id)
        .map(|n| n.title.clone())
        .ok_or_else(|| ToolError::new(format!("there is no note {id}")))?;
    // Ask first, act after: on 2026-07-28 this function runs again from the top once the
    // client answers, so nothing above this line may have side effects.
    if cx.client_capabilities().supports_elicitation_form() {
        let answer = cx
            .elicit::<Confirm>(format!("Delete the note {title:?}?"))
            .await?;
        if !matches!(answer, Elicitation::Accept(Confirm { confirm: true })) {
            return Ok(format!("kept note {id}"));
        }
    }
    if store().notes.remove(&id).is_none() {
        return Err(ToolError::new(format!("note {id} was deleted meanwhile")));
    }
    let server = cx.server();
    server.remove_resource(&note_uri(id));
    server.resource_updated(&note_uri(id));
    server.resource_updated(INDEX_URI);
    cx.info(format!("deleted note {id}")).await;
    Ok(format!("deleted note {id} ({title})"))
}

// ---------------------------------------------------------------------------------------------
// The prompt.

/// How long a summary should be.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Length {
    /// One sentence.
    Short,
    /// A paragraph.
    Long,
}

/// Completes note titles (a completer filters by what the user typed).
fn note_titles(request: CompletionRequest) -> Vec<String> {
    let titles: Vec<String> = store().notes.values().map(|n| n.title.clone()).collect();
    request.matching(titles)
}

/// Completes `length` (optional enums are not completed automatically).
fn lengths(request: CompletionRequest) -> Vec<String> {
    request.matching(["short", "long"])
}

/// Asks the model to summarize a note.
#[prompt(title = "Summarize a note")]
fn summarize_note(
    /// The title of the note.
    #[complete(note_titles)]
    title: String,
    /// `short` (one sentence, the default) or `long` (a paragraph).
    #[complete(lengths)]
    length: Option<Length>,
) -> Result<Vec<PromptMessage>, ErrorObject> {
    let (id, note) = {
        let store = store();
        let (id, note) = store
            .by_title(&title)
            .ok_or_else(|| ErrorObject::invalid_params(format!("there is no note {title:?}")))?;
        (id, note.clone())
    };
    let how = match length.unwrap_or(Length::Short) {
        Length::Short => "in one sentence",
        Length::Long => "in one paragraph",
    };
    Ok(vec![
        PromptMessage::new(
            Role::User,
            Content::embedded_text(note_uri(id), "text/markdown", render(&note)),
        ),
        PromptMessage::user(format!("Summarize the note above {how}.")),
    ])
}

// ---------------------------------------------------------------------------------------------
// Resources.

/// Every note: id, title, tags and URI.
#[resource(
    uri = "notes://index",
    name = "index",
    title = "All notes",
    mime = "application/json"
)]
fn index() -> Json<Vec<NoteSummary>> {
    let store = store();
    Json(
        store
            .notes
            .iter()
            .map(|(id, n)| NoteSummary::of(*id, n))
            .collect(),
    )
}

/// Completes note ids.
fn note_ids(request: CompletionRequest) -> Vec<String> {
    let ids: Vec<String> = store().notes.keys().map(u64::to_string).collect();
    request.matching(ids)
}

/// A note, in Markdown.
#[resource(template = "notes://note/{id}", name = "note", mime = "text/markdown")]
fn note(#[complete(note_ids)] id: u64) -> Result<String, ErrorObject> {
    read_note(id)
}

/// Adds one note to a resource set, so that `resources/list` shows it. (The template
/// above reads any note; listed resources are what clients can browse.)
fn listed_note(set: ResourceSet, id: u64, title: &str) -> ResourceSet {
    set.with_fn(
        ResourceDefinition::fixed(note_uri(id), format!("note-{id}"))
            .title(title.to_owned())
            .mime_type("text/markdown"),
        move |request, _cx| async move {
            let text = read_note(id)?;
            Ok(vec![ResourceContents::text(
                request.uri(),
                "text/markdown",
                text,
            )])
        },
    )
}

// ---------------------------------------------------------------------------------------------
// The server.

/// The notes server, built.
pub fn server() -> Result<Server, Error> {
    builder().build()
}

/// The notes server, before it is built (`main` runs it with what its command line adds).
/// Explicit sets (`tools![…]`…) keep it to exactly these items, whatever else is linked
/// into the binary.
pub fn builder() -> ServerBuilder {
    let listed = store()
        .notes
        .iter()
        .fold(ResourceSet::new(), |set, (id, n)| {
            listed_note(set, *id, &n.title)
        });
    Server::builder()
        .name("notes")
        .version(env!("CARGO_PKG_VERSION"))
        .title("Notes")
        .instructions(
            "Notes the user keeps. Search before creating a note; read notes://index for \
             the list and notes://note/{id} for one note.",
        )
        .tools(tools![create_note, search_notes, edit_note, delete_note])
        .prompts(prompts![summarize_note])
        .resources(resources![index, note])
        .add_resources(listed)
}
