//! Untyped requests and notifications: `RequestOptions`, the `_meta` a request carries in
//! each mode (modern: protocol version, capabilities, client info, log level; both: the
//! progress token), and the `Client` methods that send a method and params as given
//! (`request`, `send_raw`, `start_request`, `notify`, `cancel`).

use std::future::Future;

use serde_json::{Map, Value, json};

use super::error::ClientError;
use super::facade::Client;
use crate::protocol::{LoggingLevel, ProtocolVersion, RequestId, keys};

/// Per-request options.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Ask for progress notifications with this token.
    pub progress_token: Option<Value>,
    /// Ask for log messages at or above this level (2026-07-28).
    pub log_level: Option<LoggingLevel>,
    /// Extra `_meta` keys (`io.modelcontextprotocol/clientCapabilities` among them
    /// declares this request's capabilities instead of the client's).
    pub meta: Map<String, Value>,
}

impl RequestOptions {
    /// With a progress token.
    #[must_use]
    pub fn progress(mut self, token: impl Into<Value>) -> Self {
        self.progress_token = Some(token.into());
        self
    }

    /// With a log level.
    #[must_use]
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }
}

impl Client {
    /// The `_meta` of a request with `options`: in modern mode, the protocol version,
    /// capabilities and client info (and the log level) every request carries.
    pub(super) fn meta(&self, options: &RequestOptions) -> Map<String, Value> {
        let declared = &self.conn.declared;
        let mut meta = options.meta.clone();
        if self.conn.legacy().is_none() {
            meta.insert(
                keys::PROTOCOL_VERSION.into(),
                ProtocolVersion::LATEST.as_str().into(),
            );
            // A request may declare capabilities of its own (a proxy forwards its caller's).
            meta.entry(keys::CLIENT_CAPABILITIES)
                .or_insert_with(|| declared.capabilities.clone());
            meta.insert(keys::CLIENT_INFO.into(), declared.info.clone());
            if let Some(level) = options.log_level {
                meta.insert(keys::LOG_LEVEL.into(), level.as_str().into());
            }
        }
        if let Some(token) = &options.progress_token {
            meta.insert(keys::PROGRESS_TOKEN.into(), token.clone());
        }
        meta
    }

    /// `params` with the `_meta` of `options` (unless it has none).
    fn with_meta(&self, mut params: Value, options: &RequestOptions) -> Value {
        let meta = self.meta(options);
        if !meta.is_empty() {
            params["_meta"] = Value::Object(meta);
        }
        params
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        self.conn.notify(method, params).await
    }

    /// Sends a request with `params` exactly as given (no `_meta` added) and returns its
    /// raw `result`.
    pub async fn send_raw(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.conn.send(method, params).await
    }

    /// Sends any request and returns its raw `result` (the `_meta` the mode needs is
    /// added to `params`).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_with(method, params, &RequestOptions::default())
            .await
    }

    /// [`request`](Self::request) with options (progress token, log level).
    pub async fn request_with(
        &self,
        method: &str,
        mut params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if !params.is_object() {
            params = json!({});
        }
        let params = self.with_meta(params, options);
        self.conn.send(method, params).await
    }

    /// Cancels an in-flight request by id: `notifications/cancelled`, or over modern
    /// Streamable HTTP by closing its response stream (the request then fails with
    /// [`ClientError::Cancelled`]).
    pub async fn cancel(&self, id: &RequestId) -> Result<(), ClientError> {
        self.conn.cancel(id).await
    }

    /// Starts a request without waiting; returns its id and a future of its outcome.
    pub async fn start_request(
        &self,
        method: &str,
        params: Value,
        options: &RequestOptions,
    ) -> Result<
        (
            RequestId,
            impl Future<Output = Result<Value, ClientError>> + use<>,
        ),
        ClientError,
    > {
        let params = self.with_meta(params, options);
        self.conn.start(method, params).await
    }
}
