//! An upstream's skills (the Skills extension, 2026-07-28) served as this server's: when
//! the upstream declares `io.modelcontextprotocol/skills`, this server declares it too
//! (with the upstream's settings) and forwards its three methods — `skills/list`,
//! `skills/get`, `resources/directory/read` — to the upstream, as the caller (its
//! capabilities), through the public extension API like any extension. The skills' files
//! are the upstream's resources, already served here under their own `skill://` URIs.
//!
//! One source of skills per server: the first upstream that serves them; another is not
//! forwarded (a warning says so), and skills of this server's own beside them fail
//! `build()` (the extension registered twice). An upstream whose items require scopes
//! has its skills not forwarded either: its skill files stay behind those scopes, and the
//! three methods have no item to check them against.

use std::sync::Arc;

use serde_json::Value;

use super::callers::as_caller;
use super::link::Link;
use super::meta::drop_meta;
use crate::client::ClientError;
use crate::context::Context;
use crate::extension::{Extension, Setup};
use crate::protocol::{ErrorObject, JsonObject, keys};

/// The methods forwarded.
const METHODS: [&str; 3] = ["skills/list", "skills/get", "resources/directory/read"];

/// The Skills extension of an upstream, forwarded.
pub(super) struct ProxiedSkills {
    link: Arc<Link>,
    /// What the upstream declared for it.
    settings: JsonObject,
}

impl ProxiedSkills {
    /// The extension for `link`'s upstream, if it serves skills and they can be forwarded
    /// (it is modern and its items require no scopes).
    pub(super) fn of(link: &Arc<Link>) -> Option<Self> {
        let client = link.client().ok()?;
        if client.protocol_version() != crate::protocol::ProtocolVersion::LATEST {
            return None;
        }
        let settings = client
            .server_capabilities()?
            .extensions
            .as_ref()?
            .get(keys::SKILLS_EXTENSION)?
            .as_object()
            .cloned()
            .unwrap_or_default();
        let access = link.upstream.access();
        if !access.scopes.is_empty() {
            tracing::warn!(
                target: "mcp_framework::proxy",
                upstream = %link.name,
                "its skills are not served: its items require scopes, which the skills \
                 methods cannot check (its skill files are still served as resources)"
            );
            return None;
        }
        Some(Self {
            link: link.clone(),
            settings,
        })
    }
}

impl Extension for ProxiedSkills {
    fn id(&self) -> &str {
        keys::SKILLS_EXTENSION
    }

    fn settings(&self) -> JsonObject {
        self.settings.clone()
    }

    fn modern_only(&self) -> bool {
        true
    }

    fn setup(&self, setup: &mut Setup) {
        for method in METHODS {
            let link = self.link.clone();
            setup.request(method, move |params: Value, cx: Context| {
                let link = link.clone();
                async move { forward(&link, method, params, &cx).await }
            });
        }
    }
}

/// `method` with `params` asked of the upstream for the caller of `cx`; its answer as
/// this server's (without the upstream's identity).
async fn forward(
    link: &Link,
    method: &str,
    params: Value,
    cx: &Context,
) -> Result<Value, ErrorObject> {
    let client = link.client()?;
    let mut result = client
        .request_with(method, params, &as_caller(cx))
        .await
        .map_err(|e| link.error(e))?;
    drop_meta(&mut result, &[keys::SERVER_INFO]);
    if !result.is_object() {
        return Err(link.error(ClientError::Decode(format!(
            "`{method}` answered with something other than an object"
        ))));
    }
    Ok(result)
}
