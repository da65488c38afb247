//! What an upstream serves, listed in full (`Snapshot`): the lists its capabilities
//! offer, every page.

use crate::client::{Client, ClientError};
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};

/// What an upstream lists (each list empty when it has no such capability).
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    pub(super) tools: Vec<Tool>,
    pub(super) prompts: Vec<Prompt>,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
}

/// Everything the upstream lists (a list its capabilities do not offer is empty).
pub(super) async fn snapshot(client: &Client) -> Result<Snapshot, ClientError> {
    let caps = client.server_capabilities().cloned().unwrap_or_default();
    let unknown = client.server_capabilities().is_none();
    let mut snapshot = Snapshot::default();
    if unknown || caps.tools.is_some() {
        snapshot.tools = client.list_tools().await?;
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
