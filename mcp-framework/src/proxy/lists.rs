//! What an upstream serves, listed in full (`Snapshot`): the lists its capabilities
//! offer, every page; a tool that runs only as a task of the upstream's
//! (`execution.taskSupport: "required"`, the 2025-11-25 tasks) is marked, to be called as
//! one (`tasks.rs`).

use serde_json::{Value, json};

use crate::client::{Client, ClientError};
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};

/// What an upstream lists (each list empty when it has no such capability).
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    pub(super) tools: Vec<Listed>,
    pub(super) prompts: Vec<Prompt>,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
}

/// An upstream tool, and whether it runs only as a task of the upstream's.
#[derive(Debug)]
pub(super) struct Listed {
    pub(super) tool: Tool,
    pub(super) task_only: bool,
}

/// Everything the upstream lists (a list its capabilities do not offer is empty).
pub(super) async fn snapshot(client: &Client) -> Result<Snapshot, ClientError> {
    let caps = client.server_capabilities().cloned().unwrap_or_default();
    let unknown = client.server_capabilities().is_none();
    let mut snapshot = Snapshot::default();
    if unknown || caps.tools.is_some() {
        snapshot.tools = callable_tools(client).await?;
    }
    if unknown || caps.prompts.is_some() {
        snapshot.prompts = client.list_prompts().await?;
    }
    if unknown || caps.resources.is_some() {
        snapshot.resources = client.list_resources().await?;
        snapshot.templates = client.list_resource_templates().await?;
    }
    Ok(snapshot)
}

/// Every page of `tools/list`.
async fn callable_tools(client: &Client) -> Result<Vec<Listed>, ClientError> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.request("tools/list", params).await?;
        for tool in page
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let task_only = tool
                .pointer("/execution/taskSupport")
                .and_then(Value::as_str)
                == Some("required");
            tools.push(Listed {
                tool: serde_json::from_value(tool.clone())
                    .map_err(|e| ClientError::Decode(format!("tool `{name}`: {e}")))?,
                task_only,
            });
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => return Ok(tools),
        }
    }
}
