//! The protocol era of one request: modern (2026-07-28) from the request's own `_meta`
//! (version, client capabilities, client info, log level), legacy from the `initialize`d
//! session it arrived on.

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::context::LogGate;
use crate::protocol::meta::{RequestMeta, RequestedVersion};
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel, ProgressToken, ProtocolVersion,
    codes, keys,
};
use crate::session::legacy::LegacySession;

/// The protocol era of one request and what it brings along.
pub(super) struct Era {
    pub(super) version: ProtocolVersion,
    pub(super) caps: Arc<ClientCapabilities>,
    pub(super) client_info: Option<Arc<Implementation>>,
    pub(super) log: LogGate,
    pub(super) session: Option<Arc<LegacySession>>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) meta: Option<Box<RawValue>>,
}

impl Era {
    /// The era of a request whose `_meta` is `meta` (`raw`: the same, unparsed), arriving
    /// on `session` if it came on a legacy one.
    pub(super) fn resolve(
        meta: RequestMeta,
        raw: Option<Box<RawValue>>,
        session: Option<&Arc<LegacySession>>,
    ) -> Result<Self, ErrorObject> {
        let progress_token = meta.progress_token;
        let Some(requested) = meta.protocol_version else {
            return match session {
                Some(s) => Ok(Self::of_session(s, progress_token, raw)),
                None => Err(ErrorObject::invalid_params(format!(
                    "Missing _meta[\"{}\"]: every request must carry its protocol version \
                     (or the client must initialize a legacy session first)",
                    keys::PROTOCOL_VERSION
                ))),
            };
        };
        let version = match requested {
            RequestedVersion::Known(version) => version,
            RequestedVersion::Unknown(text) => return Err(unsupported_version(&text)),
        };
        // A legacy version inside a session is that session; without one it is served
        // statelessly with the legacy result shapes (never rejected with -32022, which would
        // send a client that read `supported` into a loop).
        if !version.is_modern()
            && let Some(s) = session
        {
            return Ok(Self::of_session(s, progress_token, raw));
        }
        let caps = meta.client_capabilities.ok_or_else(|| {
            ErrorObject::invalid_params(format!("Missing _meta[\"{}\"]", keys::CLIENT_CAPABILITIES))
        })?;
        let level = meta
            .log_level
            .map(|l| {
                l.parse::<LoggingLevel>()
                    .map_err(|e| ErrorObject::invalid_params(format!("Invalid log level: {e}")))
            })
            .transpose()?;
        Ok(Self {
            version,
            caps,
            client_info: meta.client_info,
            log: LogGate::Request(level),
            session: None,
            progress_token,
            meta: raw,
        })
    }

    /// A legacy request: the session's version, capabilities, client and log level.
    fn of_session(
        session: &Arc<LegacySession>,
        progress_token: Option<ProgressToken>,
        meta: Option<Box<RawValue>>,
    ) -> Self {
        Self {
            version: session.version,
            caps: session.client_capabilities.clone(),
            client_info: session.client_info.clone(),
            log: LogGate::Session(session.clone()),
            session: Some(session.clone()),
            progress_token,
            meta,
        }
    }

    pub(super) fn legacy(&self) -> bool {
        !self.version.is_modern()
    }
}

fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(serde_json::json!({
        "supported": ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
        "requested": requested,
    }))
}
