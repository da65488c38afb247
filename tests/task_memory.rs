//! What a finished task costs the memory store: a counting global allocator measures the
//! heap the server still holds once a task whose result is 1 MiB of `[0,0,…]` has
//! completed, against the size of that result. Kept as parsed JSON (`serde_json::Value`),
//! each `0` took a whole `Value`; kept as the JSON text, the result costs its bytes.
//!
//! One test in its own binary: the allocator counts every thread of the process.

use std::alloc::System;
use std::sync::Arc;
use std::time::Duration;

use mcp_framework::client::Client;
use mcp_framework::protocol::{CallToolResult, ClientCapabilities, TaskStatus};
use mcp_framework::tasks::{MemoryTaskStore, TaskStore};
use mcp_framework::{Context, Server, TaskConfig, TaskSupport, ToolDefinition, ToolSet};
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Zeros in the result: `[0,0,…]` is two bytes a zero, so 1 MiB of JSON.
const ZEROS: usize = 512 * 1024;

/// Bytes allocated and not freed since `region` began (a reallocation counts its growth
/// as allocated, its shrinking as freed).
fn live(region: &Region<'_, System>) -> isize {
    let c = region.change();
    c.bytes_allocated as isize - c.bytes_deallocated as isize
}

fn zeros() -> ToolSet {
    let schema = json!({"type": "object"});
    let def = ToolDefinition::new("zeros", schema.as_object().unwrap().clone())
        .task(TaskSupport::Required);
    ToolSet::new().with_fn(def, |_args, _cx: Context| async move {
        Ok(CallToolResult {
            structured_content: Some(Value::Array(vec![json!(0); ZEROS])),
            ..CallToolResult::default()
        })
    })
}

#[tokio::test]
async fn a_one_mib_result_costs_the_memory_store_about_its_size() {
    let store = Arc::new(MemoryTaskStore::new(100));
    let server = Server::builder()
        .tools(zeros())
        .tasks(TaskConfig::default().max_result_bytes(4 << 20))
        .task_store(store.clone())
        .build()
        .unwrap();
    let caps = ClientCapabilities {
        extensions: json!({"io.modelcontextprotocol/tasks": {}})
            .as_object()
            .cloned(),
        ..ClientCapabilities::default()
    };
    let client = Client::builder()
        .capabilities(caps)
        .connect(&server)
        .await
        .unwrap();

    let mut held = Vec::new();
    // The first call warms up what every call shares (the control loop, buffers).
    for round in 0..3 {
        let region = Region::new(GLOBAL);
        let before = live(&region);
        let created = client
            .request("tools/call", json!({"name": "zeros", "arguments": {}}))
            .await
            .unwrap();
        let id = created["taskId"].as_str().unwrap().to_owned();
        drop(created);
        let mut done = false;
        for _ in 0..500 {
            let status = store.get(&id).await.unwrap().map(|r| r.status);
            if status == Some(TaskStatus::Completed) {
                done = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(done, "round {round}: the task never completed");
        let bytes = live(&region) - before;
        if round > 0 {
            held.push(bytes);
        }
    }
    let result_bytes = 2 * ZEROS as isize;
    let ratio = *held.iter().max().unwrap() as f64 / result_bytes as f64;
    eprintln!(
        "a {result_bytes}-byte [0,0,...] result: the store holds {held:?} bytes per task, \
         {ratio:.2}x its size"
    );
    assert!(
        ratio < 1.5,
        "a finished task holds {ratio:.2}x its result's size ({held:?} bytes)"
    );
}
