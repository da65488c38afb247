//! The notes server end to end, through the in-process test client (the real stdio wire
//! format). The store is shared by every test of this binary, which run in parallel: each
//! test works on notes it created, with titles no other test uses.

use std::time::Duration;

use mcp_framework::ProtocolVersion;
use mcp_framework::client::{Client, ClientError};
use mcp_framework::protocol::ElicitResult;
use notes::{NoteSummary, SearchResults, note_uri, server};
use serde_json::{Value, json};

/// Fails the test instead of hanging when a notification never comes.
async fn next(sub: &mut mcp_framework::client::Subscription) -> Value {
    tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("a notification within 5 s")
        .expect("the subscription is open")
}

async fn create(client: &Client, title: &str, body: &str) -> NoteSummary {
    let r = client
        .call_tool("create_note", json!({"title": title, "body": body}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{r:?}");
    serde_json::from_value(r.structured_content.unwrap()).unwrap()
}

#[tokio::test]
async fn lists_tools_prompts_resources_and_templates() {
    let client = Client::connect(&server().unwrap()).await.unwrap();

    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["create_note", "delete_note", "edit_note", "search_notes"]
    );
    let create = &tools[0];
    assert_eq!(
        create.description.as_deref(),
        Some("Creates a note. Titles are unique (ignoring case).")
    );
    assert_eq!(create.input_schema["required"], json!(["title", "body"]));
    assert_eq!(
        create.input_schema["properties"]["title"]["description"],
        "A short title, unique among the notes."
    );
    let output = create.output_schema.as_ref().expect("structured output");
    assert_eq!(output["properties"]["id"]["type"], "integer");
    let delete = &tools[1];
    assert_eq!(
        delete.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );

    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "summarize_note");

    let resources = client.list_resources().await.unwrap();
    assert_eq!(resources[0].uri, notes::INDEX_URI);
    assert!(resources.iter().any(|r| r.uri == "notes://note/1"));
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "notes://note/{id}");
}

#[tokio::test]
async fn create_and_search_return_structured_output() {
    let client = Client::connect(&server().unwrap()).await.unwrap();
    let created = create(&client, "Structured kiwi", "kiwis are green").await;
    assert_eq!(created.uri, note_uri(created.id));

    let r = client
        .call_tool("search_notes", json!({"query": "KIWIS ARE"}))
        .await
        .unwrap();
    let found: SearchResults = serde_json::from_value(r.structured_content.unwrap()).unwrap();
    assert_eq!(found.total, 1);
    assert_eq!(found.notes, [created]);
    // The same JSON is in a text block for clients that ignore structured content.
    let text: Value = serde_json::from_str(r.content[0].as_text().unwrap()).unwrap();
    assert_eq!(text["total"], 1);
}

#[tokio::test]
async fn failures_are_tool_errors_the_model_can_read() {
    let client = Client::connect(&server().unwrap()).await.unwrap();
    let r = client
        .call_tool("create_note", json!({"title": "  ", "body": "x"}))
        .await
        .unwrap();
    assert!(r.is_error());
    assert_eq!(r.content[0].as_text(), Some("the title must not be empty"));

    create(&client, "Duplicate plum", "one").await;
    let r = client
        .call_tool(
            "create_note",
            json!({"title": "duplicate PLUM", "body": "two"}),
        )
        .await
        .unwrap();
    assert!(r.is_error());
    assert!(r.content[0].as_text().unwrap().contains("already titled"));

    let r = client
        .call_tool("edit_note", json!({"id": 999_999, "body": "x"}))
        .await
        .unwrap();
    assert!(r.is_error());

    // Arguments that do not match the schema are tool errors too (the model can retry).
    let r = client
        .call_tool("search_notes", json!({"query": 42}))
        .await
        .unwrap();
    assert!(r.is_error());
}

#[tokio::test]
async fn the_prompt_completes_titles_and_embeds_the_note() {
    let client = Client::connect(&server().unwrap()).await.unwrap();
    let created = create(&client, "Prompted quince", "quinces need cooking").await;

    let prompt = json!({"type": "ref/prompt", "name": "summarize_note"});
    let c = client
        .complete(prompt.clone(), "title", "prompted q", None)
        .await
        .unwrap();
    assert_eq!(c.completion.values, ["Prompted quince"]);
    let c = client.complete(prompt, "length", "", None).await.unwrap();
    assert_eq!(c.completion.values, ["short", "long"]);

    let r = client
        .get_prompt(
            "summarize_note",
            json!({"title": "Prompted quince", "length": "long"}),
        )
        .await
        .unwrap();
    assert_eq!(r.messages.len(), 2);
    let embedded = serde_json::to_value(&r.messages[0].content).unwrap();
    assert_eq!(embedded["resource"]["uri"], created.uri);
    assert!(
        embedded["resource"]["text"]
            .as_str()
            .unwrap()
            .contains("quinces need cooking")
    );
    assert_eq!(
        r.messages[1].content.as_text(),
        Some("Summarize the note above in one paragraph.")
    );

    let e = client
        .get_prompt("summarize_note", json!({"title": "no such note"}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32602);
}

#[tokio::test]
async fn resources_and_the_template_read_notes() {
    let client = Client::connect(&server().unwrap()).await.unwrap();
    let created = create(&client, "Readable fig", "figs *ripen* in August").await;

    // Listed at run time.
    let resources = client.list_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == created.uri));

    let index = client.read_resource(notes::INDEX_URI).await.unwrap();
    let text = match &index.contents[0] {
        mcp_framework::ResourceContents::Text(t) => t.text.clone(),
        other => panic!("{other:?}"),
    };
    let all: Vec<NoteSummary> = serde_json::from_str(&text).unwrap();
    assert!(all.contains(&created));

    let r = client.read_resource(&created.uri).await.unwrap();
    assert_eq!(r.contents[0].mime_type(), Some("text/markdown"));
    let json = serde_json::to_value(&r.contents[0]).unwrap();
    assert!(json["text"].as_str().unwrap().starts_with("# Readable fig"));

    // Completion of the template variable.
    let c = client
        .complete(
            json!({"type": "ref/resource", "uri": "notes://note/{id}"}),
            "id",
            &created.id.to_string(),
            None,
        )
        .await
        .unwrap();
    assert!(c.completion.values.contains(&created.id.to_string()));

    // A URI the template matches but that names no note.
    let e = client
        .read_resource("notes://note/987654")
        .await
        .unwrap_err();
    let e = e.rpc().unwrap();
    assert_eq!(e.code, -32602);
    assert_eq!(e.data.as_ref().unwrap()["uri"], "notes://note/987654");
}

#[tokio::test]
async fn listeners_hear_about_edits_and_new_notes() {
    let server = server().unwrap();
    let client = Client::connect(&server).await.unwrap();
    let created = create(&client, "Listened lime", "limes").await;

    let mut sub = client
        .listen(json!({"resourcesListChanged": true, "resourceSubscriptions": [created.uri]}))
        .await
        .unwrap();
    let ack = next(&mut sub).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let r = client
        .call_tool(
            "edit_note",
            json!({"id": created.id, "body": "limes, ripe"}),
        )
        .await
        .unwrap();
    assert!(!r.is_error());
    let n = next(&mut sub).await;
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], created.uri);

    create(&client, "Listened lemon", "lemons").await;
    let n = next(&mut sub).await;
    assert_eq!(n["method"], "notifications/resources/list_changed");
    sub.cancel().await.unwrap();
}

#[tokio::test]
async fn delete_asks_for_confirmation_when_the_client_can_answer() {
    // A client that declines, then one that accepts: the tool runs again with the answer
    // (2026-07-28 multi round-trip requests); the test client retries for us.
    let declining = Client::builder()
        .on_elicit(|_| async { ElicitResult::decline() })
        .connect(&server().unwrap())
        .await
        .unwrap();
    let created = create(&declining, "Deleted date", "dates").await;
    let r = declining
        .call_tool("delete_note", json!({"id": created.id}))
        .await
        .unwrap();
    assert_eq!(
        r.content[0].as_text(),
        Some(format!("kept note {}", created.id).as_str())
    );

    let accepting = Client::builder()
        .on_elicit(|params| async move {
            assert!(params.message().contains("Deleted date"));
            ElicitResult::accept(json!({"confirm": true}).as_object().cloned())
        })
        .connect(&server().unwrap())
        .await
        .unwrap();
    let r = accepting
        .call_tool("delete_note", json!({"id": created.id}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{r:?}");
    let e = accepting.read_resource(&created.uri).await.unwrap_err();
    assert!(matches!(e, ClientError::Rpc(_)));

    // Without the elicitation capability there is nobody to ask: it deletes at once.
    let plain = Client::connect(&server().unwrap()).await.unwrap();
    let other = create(&plain, "Deleted durian", "durians").await;
    let r = plain
        .call_tool("delete_note", json!({"id": other.id}))
        .await
        .unwrap();
    assert!(r.content[0].as_text().unwrap().starts_with("deleted note"));
}

#[tokio::test]
async fn legacy_clients_get_a_session_and_session_notifications() {
    let client = Client::builder()
        .legacy(ProtocolVersion::V2025_06_18)
        .connect(&server().unwrap())
        .await
        .unwrap();
    let created = create(&client, "Legacy lychee", "lychees").await;

    // Legacy results carry none of the 2026-07-28 fields.
    let raw = client
        .request(
            "tools/call",
            json!({"name": "search_notes", "arguments": {"query": "lychee"}}),
        )
        .await
        .unwrap();
    assert!(raw.get("resultType").is_none());
    assert_eq!(raw["structuredContent"]["total"], 1);

    // Resource subscriptions live in the session.
    let mut notifications = client.notifications();
    client
        .request("resources/subscribe", json!({"uri": created.uri}))
        .await
        .unwrap();
    client
        .call_tool(
            "edit_note",
            json!({"id": created.id, "body": "lychees, peeled"}),
        )
        .await
        .unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = notifications.recv().await.unwrap();
            if n["method"] == "notifications/resources/updated" {
                return n;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(n["params"]["uri"], created.uri);
}
