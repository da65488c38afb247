//! The runtime over the real stdio wire format (in-process pipe), without the macros:
//! tools, prompts and resources defined at run time with closures.
#![allow(clippy::needless_pass_by_value)]

use std::time::Duration;

use mcp_framework::client::{Client, ClientError, RequestOptions};
use mcp_framework::protocol::ElicitResult;
use mcp_framework::{
    CallToolResult, Completion, Content, OutputValidation, PromptSet, ProtocolVersion, ResourceSet,
    SchemaProfile, Server, StateKey, ToolDefinition, ToolSet,
};
use serde_json::{Value, json};
use tests::fixture::{obj, sampled, server, server_with};
use tests::{assert_legacy, assert_modern};

fn rpc_code(r: Result<Value, ClientError>) -> (i32, Option<Value>) {
    match r {
        Err(ClientError::Rpc(e)) => (e.code, e.data),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn discover_lists_versions_capabilities_and_caching() {
    let client = Client::connect(&server()).await.unwrap();
    let r = client.request("server/discover", json!({})).await.unwrap();
    assert_modern("DiscoverResult", &r);
    assert_eq!(r["resultType"], "complete");
    assert!(
        r["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert_eq!(r["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(r["capabilities"]["resources"]["subscribe"], true);
    assert_eq!(r["instructions"], "Use it well.");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name":"runtime-test","version":"1.2.3"})
    );
    assert!(r["ttlMs"].as_u64().is_some());
    assert_eq!(r["cacheScope"], "public");
}

#[tokio::test]
async fn lists_are_sorted_cacheable_and_paginated() {
    let client = Client::connect(&server_with(|b| b.page_size(3)))
        .await
        .unwrap();
    let first = client.request("tools/list", json!({})).await.unwrap();
    assert_modern("ListToolsResult", &first);
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "ask_two", "boom"]);
    assert_eq!(first["ttlMs"], 60000);
    assert_eq!(first["cacheScope"], "public");
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = client
        .request("tools/list", json!({"cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(second["tools"][0]["name"], "chatty");
    // Same bytes every time.
    assert_eq!(
        client.request("tools/list", json!({})).await.unwrap(),
        first
    );
    let (code, _) = rpc_code(
        client
            .request("tools/list", json!({"cursor": "bogus"}))
            .await,
    );
    assert_eq!(code, -32602);
    let all = client.list_tools().await.unwrap();
    assert_eq!(all.len(), 11);
    let prompts = client.request("prompts/list", json!({})).await.unwrap();
    assert_modern("ListPromptsResult", &prompts);
    assert_eq!(
        prompts["prompts"][0]["arguments"][0],
        json!({"name":"code","description":"The code","required":true})
    );
    let resources = client.request("resources/list", json!({})).await.unwrap();
    assert_modern("ListResourcesResult", &resources);
    let templates = client
        .request("resources/templates/list", json!({}))
        .await
        .unwrap();
    assert_modern("ListResourceTemplatesResult", &templates);
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "test://items/{id}"
    );
}

#[tokio::test]
async fn tool_calls_results_and_errors() {
    let client = Client::connect(&server()).await.unwrap();
    let r = client
        .request(
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        )
        .await
        .unwrap();
    assert_modern("CallToolResult", &r);
    assert_eq!(r["structuredContent"], json!({"sum": 3.0}));
    assert_eq!(r["resultType"], "complete");
    assert!(r.get("ttlMs").is_none());
    // Schema violations are tool errors the model can read.
    let bad = client
        .request(
            "tools/call",
            json!({"name":"add","arguments":{"a":"one","b":2}}),
        )
        .await
        .unwrap();
    assert_eq!(bad["isError"], true);
    let text = bad["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("add") && text.contains("/a"), "{text}");
    let extra = client
        .request(
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2,"c":3}}),
        )
        .await
        .unwrap();
    assert_eq!(extra["isError"], true);
    // Unknown tools are protocol errors.
    let (code, _) = rpc_code(
        client
            .request("tools/call", json!({"name":"nope","arguments":{}}))
            .await,
    );
    assert_eq!(code, -32602);
    // The default (portable) profile gives outputs object roots: a list goes out wrapped.
    let n = client
        .request("tools/call", json!({"name":"numbers"}))
        .await
        .unwrap();
    assert_eq!(n["structuredContent"], json!({"result": [1, 2, 3]}));
    assert_modern("CallToolResult", &n);
    // Non-object structured output is allowed on 2026-07-28: the standard profile sends it
    // as it is.
    let standard = server_with(|b| b.schema_profile(SchemaProfile::Standard));
    let client = Client::connect(&standard).await.unwrap();
    let n = client
        .request("tools/call", json!({"name":"numbers"}))
        .await
        .unwrap();
    assert_eq!(n["structuredContent"], json!([1, 2, 3]));
    assert_modern("CallToolResult", &n);
    let listed = client.list_tools().await.unwrap();
    let numbers = listed.iter().find(|t| t.name == "numbers").unwrap();
    assert_eq!(numbers.output_schema.as_ref().unwrap()["type"], "array");
}

#[tokio::test]
async fn protocol_errors_for_bad_requests() {
    let client = Client::connect(&server()).await.unwrap();
    // No _meta at all.
    let (code, _) = rpc_code(client.send_raw("tools/list", json!({})).await);
    assert_eq!(code, -32602);
    // Unsupported version.
    let (code, data) = rpc_code(
        client
            .send_raw("server/discover", json!({"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}))
            .await,
    );
    assert_eq!(code, -32022);
    let data = data.unwrap();
    assert_eq!(data["requested"], "1900-01-01");
    assert!(
        data["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    // Missing capabilities.
    let (code, _) = rpc_code(
        client
            .send_raw(
                "tools/list",
                json!({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}),
            )
            .await,
    );
    assert_eq!(code, -32602);
    // Unknown method, unknown log level.
    let (code, _) = rpc_code(client.request("tools/destroy", json!({})).await);
    assert_eq!(code, -32601);
    let (code, _) = rpc_code(
        client
            .send_raw("tools/list", json!({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}))
            .await,
    );
    assert_eq!(code, -32602);
    // Legacy-only methods do not exist on 2026-07-28.
    let (code, _) = rpc_code(client.request("ping", json!({})).await);
    assert_eq!(code, -32601);
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_server_keeps_serving() {
    let client = Client::connect(&server()).await.unwrap();
    let (code, _) = rpc_code(client.request("tools/call", json!({"name":"boom"})).await);
    assert_eq!(code, -32603);
    let r = client
        .request(
            "tools/call",
            json!({"name":"add","arguments":{"a":2,"b":2}}),
        )
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["sum"], 4.0);
}

#[tokio::test]
async fn progress_echoes_the_token_with_its_type() {
    let client = Client::connect(&server()).await.unwrap();
    for token in [json!("tok-1"), json!(42)] {
        let mut notes = client.notifications();
        let r = client
            .request_with(
                "tools/call",
                json!({"name":"count","arguments":{"n":3,"delay_ms":1}}),
                &RequestOptions::default().progress(token.clone()),
            )
            .await
            .unwrap();
        assert_eq!(r["content"][0]["text"], "counted 3");
        let mut seen = Vec::new();
        while let Ok(n) = notes.try_recv() {
            assert_eq!(n["method"], "notifications/progress");
            assert_eq!(n["params"]["progressToken"], token);
            seen.push(n["params"]["progress"].as_f64().unwrap());
        }
        assert_eq!(seen, [1.0, 2.0, 3.0]);
    }
    // Without a token, no progress at all.
    let mut notes = client.notifications();
    client
        .request(
            "tools/call",
            json!({"name":"count","arguments":{"n":2,"delay_ms":1}}),
        )
        .await
        .unwrap();
    assert!(notes.try_recv().is_err());
}

#[tokio::test]
async fn cancelled_requests_get_no_response_and_stop() {
    let client = Client::connect(&server()).await.unwrap();
    let mut notes = client.notifications();
    let (id, outcome) = client
        .start_request(
            "tools/call",
            json!({"name":"count","arguments":{"n":100,"delay_ms":20}}),
            &RequestOptions::default().progress("p"),
        )
        .await
        .unwrap();
    // Wait for the first progress, then cancel.
    let first = tokio::time::timeout(Duration::from_secs(5), notes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first["params"]["progress"], 1.0);
    client.cancel(&id).await.unwrap();
    let late = tokio::time::timeout(Duration::from_millis(300), outcome).await;
    assert!(
        late.is_err(),
        "a cancelled request must not be answered: {late:?}"
    );
    let mut after = 0;
    while notes.try_recv().is_ok() {
        after += 1;
    }
    assert!(
        after <= 1,
        "{after} progress notifications after cancellation"
    );
    // Still serving.
    let r = client
        .request(
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":1}}),
        )
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["sum"], 2.0);
}

#[tokio::test]
async fn log_messages_follow_the_request_level() {
    let client = Client::connect(&server()).await.unwrap();
    let mut notes = client.notifications();
    client
        .request("tools/call", json!({"name":"chatty"}))
        .await
        .unwrap();
    assert!(notes.try_recv().is_err(), "no logLevel, no log messages");
    client
        .request_with(
            "tools/call",
            json!({"name":"chatty"}),
            &RequestOptions::default().log_level(mcp_framework::LoggingLevel::Info),
        )
        .await
        .unwrap();
    let mut levels = Vec::new();
    while let Ok(n) = notes.try_recv() {
        assert_eq!(n["method"], "notifications/message");
        levels.push(n["params"]["level"].as_str().unwrap().to_owned());
    }
    assert_eq!(levels, ["info", "error"]);
}

fn elicit_params(v: Value) -> Value {
    json!({"name":"ask_two","arguments": v})
}

fn meta_with(caps: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities": caps})
}

#[tokio::test]
async fn a_state_key_id_longer_than_a_sealed_state_holds_is_refused_by_build() {
    let long = || StateKey::new("k".repeat(256), [7; 32]);
    let bare = || {
        Server::builder()
            .tools(ToolSet::new())
            .prompts(PromptSet::new())
            .resources(ResourceSet::new())
    };
    for (which, builder) in [
        ("current", bare().state_key(long())),
        (
            "previous",
            bare()
                .state_key(StateKey::new("now", [1; 32]))
                .previous_state_key(long()),
        ),
    ] {
        let err = builder.build().map(|_| ()).unwrap_err().to_string();
        assert!(err.contains("at most 255 bytes"), "{which}: {err}");
    }
    // 255 bytes: built, and it seals a round.
    let server = server_with(|b| b.state_key(StateKey::new("k".repeat(255), [7; 32])));
    let client = Client::connect(&server).await.unwrap();
    let mut params = elicit_params(json!({"greeting":"Hi"}));
    params["_meta"] = meta_with(json!({"elicitation":{"form":{}}}));
    let first = client.send_raw("tools/call", params).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(first["requestState"].is_string());
}

#[tokio::test]
async fn mrtr_asks_two_questions_in_sequence_without_server_memory() {
    let client = Client::connect(&server()).await.unwrap();
    let caps = json!({"elicitation":{"form":{}}});
    let mut params = elicit_params(json!({"greeting":"Hi"}));
    params["_meta"] = meta_with(caps.clone());
    let first = client.send_raw("tools/call", params.clone()).await.unwrap();
    assert_modern("InputRequiredResult", &first);
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("ttlMs").is_none() && first.get("cacheScope").is_none());
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key1, req1) = requests.iter().next().unwrap();
    assert_eq!(req1["method"], "elicitation/create");
    assert_eq!(req1["params"]["message"], "Your name?");
    let state1 = first["requestState"].as_str().unwrap().to_owned();

    // A retry without answers asks again.
    let mut again = params.clone();
    again["requestState"] = json!(state1);
    let r = client.send_raw("tools/call", again).await.unwrap();
    assert_eq!(r["resultType"], "input_required");

    let mut retry = params.clone();
    retry["requestState"] = json!(state1);
    retry["inputResponses"] = json!({ key1.clone(): {"action":"accept","content":{"name":"Ada"}} });
    let second = client.send_raw("tools/call", retry).await.unwrap();
    assert_eq!(second["resultType"], "input_required");
    let (key2, req2) = second["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_ne!(key2, key1);
    assert_eq!(req2["params"]["message"], "Favourite colour?");

    let mut last = params.clone();
    last["requestState"] = second["requestState"].clone();
    last["inputResponses"] =
        json!({ key2.clone(): {"action":"accept","content":{"color":"green"}} });
    let done = client.send_raw("tools/call", last).await.unwrap();
    assert_modern("CallToolResult", &done);
    assert_eq!(done["content"][0]["text"], "Hi Ada, you like green");

    // Tampered state is rejected, never a result.
    let mut chars: Vec<char> = state1.chars().collect();
    let mid = chars.len() / 2;
    chars[mid] = if chars[mid] == 'x' { 'y' } else { 'x' };
    let mut tampered = params.clone();
    tampered["requestState"] = json!(chars.into_iter().collect::<String>());
    tampered["inputResponses"] =
        json!({ key1.clone(): {"action":"accept","content":{"name":"Eve"}} });
    let (code, _) = rpc_code(client.send_raw("tools/call", tampered).await);
    assert_eq!(code, -32602);

    // State replayed on other arguments is rejected.
    let mut other = elicit_params(json!({"greeting":"Yo"}));
    other["_meta"] = meta_with(caps);
    other["requestState"] = json!(state1);
    other["inputResponses"] = json!({ key1.clone(): {"action":"accept","content":{"name":"Eve"}} });
    let e = client.send_raw("tools/call", other).await.unwrap_err();
    assert!(
        e.rpc().unwrap().message.contains("different request"),
        "{e}"
    );
}

#[tokio::test]
async fn named_questions_asked_together_and_answered_ahead() {
    let client = Client::connect(&server()).await.unwrap();
    let mut params = json!({"name":"trip","arguments":{}});
    params["_meta"] = meta_with(json!({"elicitation":{},"roots":{}}));
    // Both questions in one round, under the handler's keys.
    let first = client.send_raw("tools/call", params.clone()).await.unwrap();
    assert_modern("InputRequiredResult", &first);
    let requests = first["inputRequests"].as_object().unwrap();
    let mut keys: Vec<&str> = requests.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["where", "who"]);
    assert_eq!(requests["who"]["method"], "elicitation/create");
    assert_eq!(requests["where"]["method"], "roots/list");
    let who = json!({"action":"accept","content":{"name":"Ada"}});
    let roots = json!({"roots":[{"uri":"file:///home/ada","name":"home"}]});

    // One answer with the state: the other question is asked again, alone.
    let mut half = params.clone();
    half["requestState"] = first["requestState"].clone();
    half["inputResponses"] = json!({"who": who.clone(), "unrelated": 1});
    let second = client.send_raw("tools/call", half).await.unwrap();
    let requests = second["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["where"]);
    let mut rest = params.clone();
    rest["requestState"] = second["requestState"].clone();
    rest["inputResponses"] = json!({"where": roots.clone()});
    let done = client.send_raw("tools/call", rest).await.unwrap();
    assert_eq!(done["content"][0]["text"], "Ada goes to file:///home/ada");

    // A client that knows the keys may answer a first round ahead, without any state.
    let mut ahead = params.clone();
    ahead["inputResponses"] = json!({"who": who, "where": roots.clone()});
    let done = client.send_raw("tools/call", ahead).await.unwrap();
    assert_modern("CallToolResult", &done);
    assert_eq!(done["content"][0]["text"], "Ada goes to file:///home/ada");

    // An answer that is not the question's result type is a protocol error naming its key,
    // not a value handed to the handler.
    let mut bad = params;
    bad["inputResponses"] = json!({"who": 12345, "where": roots});
    let e = client.send_raw("tools/call", bad).await.unwrap_err();
    let e = e.rpc().unwrap();
    assert_eq!(e.code, -32602);
    assert!(e.message.contains("\"who\""), "{}", e.message);
}

#[tokio::test]
async fn expired_state_is_rejected() {
    let client = Client::connect(&server_with(|b| b.state_ttl(Duration::from_millis(1))))
        .await
        .unwrap();
    let mut params = elicit_params(json!({}));
    params["_meta"] = meta_with(json!({"elicitation":{}}));
    let first = client.send_raw("tools/call", params.clone()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    params["requestState"] = first["requestState"].clone();
    params["inputResponses"] =
        json!({"elicitation-1": {"action":"accept","content":{"name":"Ada"}}});
    let e = client.send_raw("tools/call", params).await.unwrap_err();
    assert!(e.rpc().unwrap().message.contains("expired"), "{e}");
}

#[tokio::test]
async fn missing_client_capability_is_32021() {
    let client = Client::connect(&server()).await.unwrap();
    let (code, data) = rpc_code(client.request("tools/call", elicit_params(json!({}))).await);
    assert_eq!(code, -32021);
    assert!(
        data.unwrap()["requiredCapabilities"]
            .get("elicitation")
            .is_some()
    );
}

#[tokio::test]
async fn the_client_resolves_mrtr_with_callbacks() {
    let client = Client::builder()
        .on_elicit(|p| async move {
            let answer = if p.message().contains("name") {
                json!({"name":"Grace"})
            } else {
                json!({"color":"blue"})
            };
            ElicitResult::accept(Some(answer.as_object().cloned().unwrap()))
        })
        .on_sample(|_| async move { sampled("a summary") })
        .connect(&server())
        .await
        .unwrap();
    let r = client.call_tool("ask_two", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hello Grace, you like blue"));
    let r = client.call_tool("summarize", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("LLM said: a summary"));
}

#[tokio::test]
async fn legacy_sessions_get_legacy_shapes_and_real_server_requests() {
    let client = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .on_elicit(|p| async move {
            let answer = if p.message().contains("name") {
                json!({"name":"Linus"})
            } else {
                json!({"color":"red"})
            };
            ElicitResult::accept(Some(answer.as_object().cloned().unwrap()))
        })
        .on_sample(|_| async move { sampled("legacy summary") })
        .connect(&server())
        .await
        .unwrap();
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    assert_eq!(
        client
            .request("logging/setLevel", json!({"level":"debug"}))
            .await
            .unwrap(),
        json!({})
    );
    let list = client.request("tools/list", json!({})).await.unwrap();
    assert_legacy("ListToolsResult", &list);
    assert!(
        list.get("resultType").is_none()
            && list.get("ttlMs").is_none()
            && list.get("_meta").is_none()
    );
    let numbers = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "numbers")
        .unwrap();
    assert_eq!(
        numbers["outputSchema"]["type"], "object",
        "legacy outputSchema roots are objects"
    );
    let r = client
        .request("tools/call", json!({"name":"numbers"}))
        .await
        .unwrap();
    assert_legacy("CallToolResult", &r);
    assert_eq!(r["structuredContent"], json!({"result": [1, 2, 3]}));
    let r = client.call_tool("ask_two", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hello Linus, you like red"));
    let r = client.call_tool("summarize", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("LLM said: legacy summary"));
    let (code, _) = rpc_code(
        client
            .request("resources/read", json!({"uri":"test://missing"}))
            .await,
    );
    assert_eq!(code, -32002);
    let (code, _) = rpc_code(client.request("server/discover", json!({})).await);
    assert_eq!(code, -32601);
}

#[tokio::test]
async fn prompts_coerce_arguments_and_complete() {
    let client = Client::connect(&server()).await.unwrap();
    let r = client
        .request("prompts/get", json!({"name":"code_review","arguments":{"code":"x = 1","language":"python","strict":"true"}}))
        .await
        .unwrap();
    assert_modern("GetPromptResult", &r);
    assert_eq!(
        r["messages"][0]["content"]["text"],
        "Review (\"python\", strict=true): \"x = 1\""
    );
    assert_eq!(r["description"], "Reviews code");
    let (code, _) = rpc_code(
        client
            .request("prompts/get", json!({"name":"code_review","arguments":{}}))
            .await,
    );
    assert_eq!(
        code, -32602,
        "a missing required argument is invalid params"
    );
    let c = client
        .complete(
            json!({"type":"ref/prompt","name":"code_review"}),
            "language",
            "py",
            None,
        )
        .await
        .unwrap();
    assert_eq!(c.completion.values, ["python", "pytorch"]);
    let raw = client
        .request("completion/complete", json!({"ref":{"type":"ref/prompt","name":"code_review"},"argument":{"name":"language","value":"r"}}))
        .await
        .unwrap();
    assert_modern("CompleteResult", &raw);
    let (code, _) = rpc_code(
        client
            .request("completion/complete", json!({"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}))
            .await,
    );
    assert_eq!(code, -32602);
}

#[tokio::test]
async fn resources_static_templates_and_not_found() {
    let client = Client::connect(&server()).await.unwrap();
    let r = client
        .request("resources/read", json!({"uri":"test://static"}))
        .await
        .unwrap();
    assert_modern("ReadResourceResult", &r);
    assert_eq!(r["contents"][0]["text"], "static text");
    assert_eq!(r["ttlMs"], 5000);
    assert_eq!(r["cacheScope"], "private");
    let r = client
        .request("resources/read", json!({"uri":"test://items/42"}))
        .await
        .unwrap();
    assert_eq!(r["contents"][0]["text"], "{\"id\":42}");
    let (code, data) = rpc_code(
        client
            .request("resources/read", json!({"uri":"test://items/420"}))
            .await,
    );
    assert_eq!(code, -32602);
    assert_eq!(data.unwrap()["uri"], "test://items/420");
    let (code, _) = rpc_code(
        client
            .request("resources/read", json!({"uri":"test://nothing"}))
            .await,
    );
    assert_eq!(code, -32602);
}

#[tokio::test]
async fn listen_streams_get_tagged_change_notifications() {
    let server = server();
    let client = Client::connect(&server).await.unwrap();
    let mut sub = client
        .listen(json!({"toolsListChanged": true, "resourceSubscriptions": ["test://items/7"]}))
        .await
        .unwrap();
    let ack = sub.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        sub.id().to_value()
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://items/7"]})
    );
    let handle = server.handle();
    handle
        .add_tools(ToolSet::new().with_fn(
            ToolDefinition::new("extra", obj(json!({"type":"object"}))),
            |_, _| async {
                Ok(CallToolResult {
                    content: vec![Content::text("extra")],
                    ..Default::default()
                })
            },
        ))
        .unwrap();
    let n = sub.next().await.unwrap();
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        sub.id().to_value()
    );
    assert!(
        client
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "extra")
    );
    // Prompts were not asked for, nor other resources (a template's URIs are no wildcard:
    // tests/security.rs has what a subscription covers).
    assert!(handle.remove_prompt("code_review"));
    handle.resource_updated("test://other");
    handle.resource_updated("test://items/8");
    handle.resource_updated("test://items/7");
    let n = sub.next().await.unwrap();
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], "test://items/7");
    // Duplicates are refused, removal works.
    assert!(
        handle
            .add_tools(ToolSet::new().with_fn(
                ToolDefinition::new("extra", obj(json!({"type":"object"}))),
                |_, _| async { Ok(CallToolResult::default()) }
            ))
            .is_err()
    );
    assert!(handle.remove_tool("extra"));
    assert_eq!(
        sub.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    // Graceful shutdown ends the subscription with its result.
    server.shutdown();
    let end = sub.next().await.unwrap();
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(
        end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        sub.id().to_value()
    );
}

#[test]
fn duplicate_definitions_fail_the_build() {
    let dup = ToolSet::new()
        .with_fn(
            ToolDefinition::new("same", obj(json!({"type":"object"}))),
            |_, _| async { Ok(CallToolResult::default()) },
        )
        .with_fn(
            ToolDefinition::new("same", obj(json!({"type":"object"}))),
            |_, _| async { Ok(CallToolResult::default()) },
        );
    let err = Server::builder()
        .tools(dup)
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("duplicate tool `same`"), "{err}");
    let bad_schema = ToolSet::new().with_fn(
        ToolDefinition::new("bad", obj(json!({"type":"array"}))),
        |_, _| async { Ok(CallToolResult::default()) },
    );
    let err = Server::builder()
        .tools(bad_schema)
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("type: \"object\""), "{err}");
    let _ = Completion {
        values: vec![],
        total: None,
        has_more: None,
    };
}

#[tokio::test]
async fn tracing_events_reach_the_client_through_the_bridge() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber =
        tracing_subscriber::registry().with(mcp_framework::logging::layer().target("tests"));
    let _guard = tracing::subscriber::set_default(subscriber);
    let client = Client::connect(&server()).await.unwrap();
    let mut notes = client.notifications();
    client
        .request_with(
            "tools/call",
            json!({"name":"traced"}),
            &RequestOptions::default().log_level(mcp_framework::LoggingLevel::Info),
        )
        .await
        .unwrap();
    let n = notes.try_recv().expect("the info event was forwarded");
    assert_eq!(n["method"], "notifications/message");
    assert_eq!(n["params"]["level"], "info");
    assert_eq!(n["params"]["data"]["message"], "working through tracing");
    assert_eq!(n["params"]["data"]["step"], 1);
    assert!(
        notes.try_recv().is_err(),
        "debug is below the requested level"
    );
}

/// Logs an event of its own and one under another crate's target, then makes an HTTP
/// request through reqwest (whose hyper-util logs what it connects to).
#[mcp_framework::tool(register = false)]
async fn fetch_logged(url: String) -> String {
    tracing::debug!("fetching the page");
    tracing::debug!(target: "h2::codec::framed_write", frame = "Headers", "send");
    let status = reqwest::get(&url).await.map(|r| r.status().as_u16());
    format!("{status:?}")
}

#[tokio::test]
async fn the_bridge_forwards_the_servers_own_events_not_other_crates() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber =
        tracing_subscriber::registry().with(mcp_framework::logging::layer().target(module_path!()));
    let _guard = tracing::subscriber::set_default(subscriber);
    let r = tests::wire::start(
        Server::builder()
            .tools(mcp_framework::tools![fetch_logged])
            .prompts(PromptSet::new())
            .resources(ResourceSet::new())
            .build()
            .unwrap(),
    )
    .await;
    let mut meta = tests::wire::meta();
    meta["io.modelcontextprotocol/logLevel"] = json!("debug");
    let body = tests::wire::request(
        1,
        "tools/call",
        json!({"name": "fetch_logged", "arguments": {"url": r.url}, "_meta": meta}),
    );
    let resp = tests::wire::post(&r, &body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let events = tests::wire::sse_events(resp, 100).await;
    let loggers: Vec<&str> = events
        .iter()
        .filter(|e| e["method"] == "notifications/message")
        .map(|e| e["params"]["logger"].as_str().unwrap_or_default())
        .collect();
    let answer = events.last().unwrap();
    assert!(
        answer["result"]["content"][0]["text"].is_string(),
        "{answer}"
    );
    assert_eq!(loggers, [module_path!()], "{events:?}");
}

/// A tool whose results break its own output schema: a number declared, text sent; no
/// `structuredContent` at all; a tool error (never checked).
fn liar() -> ToolSet {
    let output = obj(json!({
        "type": "object",
        "properties": {"celsius": {"type": "number"}},
        "required": ["celsius"]
    }));
    ToolSet::new().with_fn(
        ToolDefinition::new(
            "liar",
            obj(json!({"type": "object", "properties": {"how": {"type": "string"}}})),
        )
        .output_schema(Some(output)),
        |args, _cx| async move {
            Ok(match args["how"].as_str() {
                Some("unstructured") => CallToolResult::success(vec![Content::text("21.5")]),
                Some("failing") => CallToolResult::error(vec![Content::text("the sensor is down")]),
                Some("honest") => CallToolResult {
                    content: vec![Content::text(r#"{"celsius":21.5}"#)],
                    structured_content: Some(json!({"celsius": 21.5})),
                    ..CallToolResult::default()
                },
                _ => CallToolResult {
                    content: vec![Content::text(r#"{"celsius":"warm"}"#)],
                    structured_content: Some(json!({"celsius": "warm"})),
                    ..CallToolResult::default()
                },
            })
        },
    )
}

/// The code and message of a JSON-RPC error.
fn rpc_message(r: Result<Value, ClientError>) -> (i32, String) {
    match r {
        Err(ClientError::Rpc(e)) => (e.code, e.message),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn call_liar(client: &Client, how: &str) -> Result<Value, ClientError> {
    client
        .request(
            "tools/call",
            json!({"name": "liar", "arguments": {"how": how}}),
        )
        .await
}

#[tokio::test]
async fn results_that_break_their_output_schema_fail_loudly() {
    // Debug builds (tests included) default to a protocol error: the test fails.
    let client = Client::connect(&server_with(|b| b.tools(liar())))
        .await
        .unwrap();
    let (code, message) = rpc_message(call_liar(&client, "lying").await);
    assert_eq!(code, -32603);
    assert!(
        message.contains("`liar` does not match its outputSchema") && message.contains("/celsius"),
        "{message}"
    );
    let (code, message) = rpc_message(call_liar(&client, "unstructured").await);
    assert_eq!(code, -32603);
    assert!(message.contains("no `structuredContent`"), "{message}");
    let honest = call_liar(&client, "honest").await.unwrap();
    assert_eq!(honest["structuredContent"], json!({"celsius": 21.5}));
    let failing = call_liar(&client, "failing").await.unwrap();
    assert_eq!(failing["isError"], true, "tool errors are not checked");

    // Production's default: a tool error the model reads, never a silent success.
    let server = server_with(|b| b.tools(liar()).output_validation(OutputValidation::IsError));
    let client = Client::connect(&server).await.unwrap();
    let r = call_liar(&client, "lying").await.unwrap();
    assert_modern("CallToolResult", &r);
    assert_eq!(r["isError"], true);
    assert!(r.get("structuredContent").is_none(), "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("does not match its outputSchema"), "{text}");

    // Off: sent as the tool made it.
    let server = server_with(|b| b.tools(liar()).output_validation(OutputValidation::Off));
    let client = Client::connect(&server).await.unwrap();
    let r = call_liar(&client, "lying").await.unwrap();
    assert_eq!(r["structuredContent"], json!({"celsius": "warm"}));
}

/// The state machine of one request is moved (into a task, a box) before it runs, so its
/// size is paid on every message: 20 KiB once, when the metrics wrapper copied the routed
/// future into its own and `_meta`'s parsed capabilities travelled by value through every
/// step. Not a timing: a layout, the same on every machine with this compiler.
#[test]
fn the_future_of_one_request_stays_small() {
    let server = server();
    let message = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    let size = std::mem::size_of_val(&server.handle_message(message));
    eprintln!("handle_message future: {size} bytes");
    // The one-request-path issue's bound (1,520 bytes now: the routed run is boxed).
    assert!(size <= 4 * 1024, "handle_message's future is {size} bytes");
}

#[tokio::test]
async fn modern_results_carry_server_info_beside_the_handlers_own_meta() {
    let tools = ToolSet::new()
        .with_fn(
            ToolDefinition::new("plain", obj(json!({"type": "object"}))),
            |_, _| async { Ok(CallToolResult::success(vec![Content::text("p")])) },
        )
        .with_fn(
            ToolDefinition::new("tagged", obj(json!({"type": "object"}))),
            |_, _| async {
                let mut r = CallToolResult::success(vec![Content::text("t")]);
                r.meta = Some(obj(json!({"example.com/tag": 7})));
                Ok(r)
            },
        );
    let server = Server::builder()
        .name("meta-test")
        .version("9")
        .tools(tools)
        .build()
        .unwrap();
    let client = Client::connect(&server).await.unwrap();
    let info = json!({"name": "meta-test", "version": "9"});
    let plain = client
        .request("tools/call", json!({"name": "plain", "arguments": {}}))
        .await
        .unwrap();
    assert_modern("CallToolResult", &plain);
    assert_eq!(
        plain["_meta"],
        json!({"io.modelcontextprotocol/serverInfo": info})
    );
    let tagged = client
        .request("tools/call", json!({"name": "tagged", "arguments": {}}))
        .await
        .unwrap();
    assert_modern("CallToolResult", &tagged);
    assert_eq!(
        tagged["_meta"],
        json!({"example.com/tag": 7, "io.modelcontextprotocol/serverInfo": info})
    );
}
