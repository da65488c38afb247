//! `Client`: the handle every request goes through (cheap to clone, one connection
//! shared), and connecting one: `Client::connect`, `Client::builder`, and
//! `ClientBuilder::connect` (the connection, then, in legacy mode, the `initialize`
//! handshake).

use std::fmt;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::builder::ClientBuilder;
use super::connection::Connection;
use super::error::ClientError;
use crate::server::Server;

/// A connected test client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    pub(super) conn: Arc<Connection>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("legacy", &self.conn.config.legacy)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects in modern (2026-07-28) mode with no capabilities.
    pub async fn connect(server: &Server) -> Result<Self, ClientError> {
        Self::builder().connect(server).await
    }

    /// Configures a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// Every notification not tied to a subscription (progress, log messages, legacy
    /// list changes), from now on.
    pub fn notifications(&self) -> broadcast::Receiver<Value> {
        self.conn.notifications()
    }
}

impl ClientBuilder {
    /// Connects to `server` (and initializes, in legacy mode).
    pub async fn connect(self, server: &Server) -> Result<Client, ClientError> {
        let client = Client {
            conn: Connection::open(server, self),
        };
        let config = &client.conn.config;
        if let Some(version) = config.legacy {
            let params = json!({
                "protocolVersion": version.as_str(),
                "capabilities": config.capabilities,
                "clientInfo": config.info,
            });
            client.conn.send("initialize", params).await?;
            client
                .notify("notifications/initialized", json!({}))
                .await?;
        }
        Ok(client)
    }
}
