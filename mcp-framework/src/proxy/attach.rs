//! `ServerBuilder::proxy`: connect to an upstream, list it, add its items to the builder,
//! and follow it once the server is built.

use super::items::items;
use super::link::Link;
use super::skills::ProxiedSkills;
use super::upstream::Upstream;
use crate::error::Error;
use crate::extension::Extension as _;
use crate::server::Server;
use crate::server::builder::ServerBuilder;

impl ServerBuilder {
    /// Serves another MCP server's tools and prompts as `<prefix>_<name>`, and its
    /// resources and templates under their own URIs, through this server's pipeline
    /// (authorization, scopes, middleware, metrics, caching hints, listen streams apply).
    /// Connects now (over stdio or HTTP; the upstream's era is found out by the client's
    /// probe) and lists what it serves; fails with [`Error::Upstream`] when it cannot.
    /// Once the server is built, the upstream's list changes replace its items, and a
    /// stdio upstream that dies is started again with backoff (its items answer
    /// "unavailable" meanwhile, never hang).
    ///
    /// `prefix` is a tool-name prefix: letters, digits, `-` and `_`; an empty prefix serves
    /// the upstream's names as they are (a name served twice fails `build()`).
    pub async fn proxy(self, prefix: impl Into<String>, upstream: Upstream) -> Result<Self, Error> {
        let prefix = prefix.into();
        if !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(Error::Config(format!(
                "the proxy prefix `{prefix}` must be letters, digits, `-` and `_`"
            )));
        }
        let (link, snapshot) = Link::open(prefix, upstream).await?;
        let (tools, prompts, resources, names) = items(&link, snapshot);
        let mut builder = self;
        if let Some(skills) = ProxiedSkills::of(&link) {
            if builder.has_extension(skills.id()) {
                tracing::warn!(
                    target: "mcp_framework::proxy",
                    upstream = %link.name,
                    "its skills are not served: another upstream's are (one source of \
                     skills per server); its skill files are still served as resources"
                );
            } else {
                builder = builder.extension(skills);
            }
        }
        Ok(builder
            .add_tools(tools)
            .add_prompts(prompts)
            .add_resources(resources)
            .on_build(Box::new(move |handle| {
                link.supervise(handle.downgrade(), names, items);
            })))
    }

    /// Serves `server`, built in this process, under `prefix` as [`proxy`](Self::proxy)
    /// serves an upstream (over an in-memory pipe in the stdio wire format): its changes
    /// become this server's, its questions reach the caller.
    pub async fn mount(self, prefix: impl Into<String>, server: Server) -> Result<Self, Error> {
        self.proxy(prefix, Upstream::server(server)).await
    }
}
