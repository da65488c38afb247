//! Finding out which era the server speaks, as the 2026-07-28 transports specify: probe
//! with `server/discover` (with this client's preferred modern version in `_meta`); a
//! `DiscoverResult` means modern; a recognized modern error (`-32022` unsupported version,
//! `-32021` missing capability, `-32020` header mismatch) means modern, and a `-32022`
//! listing only legacy versions means `initialize` with the newest of them; anything else
//! (another error, an HTTP refusal without one, no answer within the probe timeout) means
//! legacy: `initialize`, then `notifications/initialized`. A client told its era skips the
//! probe.

use serde_json::{Value, json};

use super::builder::Era;
use super::connection::Handshake;
use super::error::{ClientError, decode};
use super::facade::Client;
use super::requests::RequestOptions;
use crate::protocol::{
    DiscoverResult, Implementation, InitializeResult, ProtocolVersion, codes, keys,
};

impl Client {
    /// Settles the era before the first request: as configured, or by probing.
    pub(super) async fn settle_era(&self, era: Era) -> Result<(), ClientError> {
        match era {
            Era::Modern => {
                self.conn.set_handshake(Handshake::default());
                Ok(())
            }
            Era::Legacy(version) => self.initialize(version).await,
            Era::Auto => self.probe().await,
        }
    }

    /// `server/discover`, and what its outcome says of the server.
    async fn probe(&self) -> Result<(), ClientError> {
        let params = json!({"_meta": self.meta(&RequestOptions::default())});
        let timeout = self.conn.config.probe_timeout;
        match self
            .conn
            .send_within("server/discover", params, timeout)
            .await
        {
            Ok(result) => {
                let discovered: DiscoverResult = decode(result)?;
                let modern = discovered.supported_versions.is_empty()
                    || discovered
                        .supported_versions
                        .iter()
                        .any(|v| v == ProtocolVersion::LATEST.as_str());
                if !modern {
                    let newest = newest_legacy(&discovered.supported_versions).ok_or(
                        ClientError::UnsupportedVersion {
                            supported: discovered.supported_versions,
                        },
                    )?;
                    return self.initialize(newest).await;
                }
                let info = discovered
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(keys::SERVER_INFO))
                    .and_then(|i| serde_json::from_value::<Implementation>(i.clone()).ok());
                self.conn.set_handshake(Handshake {
                    legacy: None,
                    info,
                    capabilities: Some(discovered.capabilities),
                    instructions: discovered.instructions,
                });
                Ok(())
            }
            Err(ClientError::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported: Vec<String> = e
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or_default();
                match newest_legacy(&supported) {
                    Some(version) => self.initialize(version).await,
                    None => Err(ClientError::UnsupportedVersion { supported }),
                }
            }
            Err(ClientError::Rpc(e))
                if e.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY
                    || e.code == codes::HEADER_MISMATCH =>
            {
                // A modern server that wants more of this request: modern, no fallback.
                self.conn.set_handshake(Handshake::default());
                Ok(())
            }
            Err(e @ (ClientError::Closed | ClientError::Spawn { .. })) => Err(e),
            Err(e @ ClientError::Transport(_)) if self.is_http() => Err(e),
            Err(other) => {
                tracing::debug!(
                    target: "mcp_framework::client",
                    "server/discover: {other}; falling back to initialize"
                );
                self.initialize(ProtocolVersion::LATEST_LEGACY).await
            }
        }
    }

    /// The legacy handshake with `version`: the revision the server chose must be one this
    /// client speaks.
    async fn initialize(&self, version: ProtocolVersion) -> Result<(), ClientError> {
        let config = &self.conn.config;
        let params = json!({
            "protocolVersion": version.as_str(),
            "capabilities": config.capabilities,
            "clientInfo": config.info,
        });
        let result: InitializeResult = decode(self.conn.send("initialize", params).await?)?;
        let chosen = ProtocolVersion::parse(&result.protocol_version)
            .filter(|v| *v != ProtocolVersion::LATEST)
            .ok_or_else(|| ClientError::UnsupportedVersion {
                supported: vec![result.protocol_version.clone()],
            })?;
        self.conn.set_handshake(Handshake {
            legacy: Some(chosen),
            info: Some(result.server_info),
            capabilities: Some(result.capabilities),
            instructions: result.instructions,
        });
        self.conn
            .notify(
                "notifications/initialized",
                Value::Object(Default::default()),
            )
            .await?;
        self.open_session_stream();
        Ok(())
    }

    /// Whether the connection is Streamable HTTP.
    fn is_http(&self) -> bool {
        #[cfg(feature = "client-http")]
        if let super::transport::Transport::Http(_) = &self.conn.transport {
            return true;
        }
        false
    }

    /// Over HTTP, the legacy session's GET stream for the server's own messages.
    fn open_session_stream(&self) {
        #[cfg(feature = "client-http")]
        if let super::transport::Transport::Http(http) = &self.conn.transport {
            http.open_listen(&(self.conn.clone() as std::sync::Arc<dyn super::transport::Sink>));
        }
    }
}

/// The newest legacy revision in `supported` that this client speaks.
fn newest_legacy(supported: &[String]) -> Option<ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .filter(|v| *v != ProtocolVersion::LATEST)
        .find(|v| supported.iter().any(|s| s == v.as_str()))
}
