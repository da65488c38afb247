//! Typed requests: `server/discover`, the lists (every page, following `nextCursor`),
//! `tools/call`, `prompts/get` and `resources/read` (their MRTR rounds and tasks resolved),
//! and `completion/complete`, each result decoded into its protocol type.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::error::{ClientError, decode};
use super::facade::Client;
use super::requests::RequestOptions;
use crate::protocol::{
    CallToolResult, CompleteResult, DiscoverResult, GetPromptResult, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool, codes,
};

impl Client {
    /// Every item of a paginated list: the `field` array of each page, following
    /// `nextCursor` to the last page.
    async fn list_all<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.request(method, params).await?;
            let items = page.get(field).cloned().unwrap_or_else(|| json!([]));
            out.extend(decode::<Vec<T>>(items)?);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(out),
            }
        }
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        decode(self.request("server/discover", json!({})).await?)
    }

    /// Every tool (following `nextCursor`).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.list_all("tools/list", "tools").await
    }

    /// Every prompt.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Every resource.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Calls a tool, answering input requests through the callbacks.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, &RequestOptions::default())
            .await
    }

    /// [`call_tool`](Self::call_tool) with options.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: &RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        match self
            .request_resolving("tools/call", params.clone(), options)
            .await
        {
            // The tool mirrors arguments into headers this client has not learnt (or its
            // schema changed): list the tools, as the spec asks, and retry once.
            Err(ClientError::Rpc(e)) if e.code == codes::HEADER_MISMATCH => {
                self.list_tools().await?;
                decode(
                    self.request_resolving("tools/call", params, options)
                        .await?,
                )
            }
            outcome => decode(outcome?),
        }
    }

    /// Gets a prompt.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        decode(
            self.request_resolving("prompts/get", params, &RequestOptions::default())
                .await?,
        )
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = json!({"uri": uri});
        decode(
            self.request_resolving("resources/read", params, &RequestOptions::default())
                .await?,
        )
    }

    /// Completes a prompt argument (`reference` = `ref/prompt` name) or a template variable
    /// (`ref/resource` URI template).
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Result<CompleteResult, ClientError> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if let Some(ctx) = context {
            params["context"] = json!({"arguments": ctx});
        }
        decode(self.request("completion/complete", params).await?)
    }
}
