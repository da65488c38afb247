//! What the endpoint checks before a message reaches dispatch, and the rejection of each
//! check: the host ([`host`], DNS-rebinding protection, through a trusted proxy with
//! [`proxy`](super::proxy)) and the `Origin` ([`origin`]) of every request, the media types
//! of a POST ([`media`]) and its body size, and on modern requests the request-metadata
//! headers against the body ([`metadata`], `-32020`). [`authority`] reads host and origin
//! values strictly.

pub(crate) mod authority;
pub(crate) mod host;
pub(crate) mod media;
pub(crate) mod metadata;
pub(crate) mod origin;

use std::net::SocketAddr;

use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use self::authority::AuthorityError;
use self::host::{HostError, HostPolicy};
use self::media::MediaError;
use self::origin::{OriginError, OriginPolicy};
use super::config::HttpConfig;
use super::proxy::{ProxyEntryError, TrustedProxies};
use super::response::rejection;
use crate::peer::client_key;

/// A setting of [`HttpConfig`] that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ConfigError {
    /// An `allow_host` entry.
    #[error("allow_host `{0}`: {1}")]
    Host(String, AuthorityError),
    /// An `allow_origin` entry.
    #[error("allow_origin `{0}`: {1} (write it as a browser sends it: https://app.example.com)")]
    Origin(String, AuthorityError),
    /// A `trust_proxy` entry.
    #[error(transparent)]
    Proxy(#[from] ProxyEntryError),
}

/// Why a request is turned away before dispatch; each reason has its status.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Rejected {
    /// `400`.
    #[error("Bad Request: {0}")]
    Host(#[from] HostError),
    /// `403`: a host not served here.
    #[error("Forbidden: host not allowed")]
    HostNotAllowed,
    /// `403` (the Streamable HTTP transport's status for an invalid `Origin`).
    #[error("Forbidden: {0}")]
    Origin(#[from] OriginError),
    /// `415` or `406`.
    #[error("{0}")]
    Media(#[from] MediaError),
    /// `413`.
    #[error("Payload too large: the limit is {0} bytes")]
    TooLarge(usize),
}

impl Rejected {
    fn status(&self) -> StatusCode {
        match self {
            Self::Host(_) => StatusCode::BAD_REQUEST,
            Self::HostNotAllowed | Self::Origin(_) => StatusCode::FORBIDDEN,
            Self::Media(MediaError::NotAcceptable) => StatusCode::NOT_ACCEPTABLE,
            Self::Media(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        }
    }

    /// The answer: a JSON-RPC error without id (`-32600`) and the status; a `415` says what
    /// is accepted (RFC 9110 §15.5.16).
    pub(crate) fn into_response(self) -> Response {
        let status = self.status();
        let mut r = rejection(status, self.to_string());
        if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            r.headers_mut()
                .insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        }
        r
    }
}

/// The checks every request to one endpoint passes, compiled from its [`HttpConfig`].
#[derive(Debug)]
pub(crate) struct Guard {
    hosts: HostPolicy,
    pub(crate) origins: OriginPolicy,
    proxies: TrustedProxies,
    client_ipv6_prefix: u8,
}

impl Guard {
    /// The policies of `config`, for an endpoint served on `bound` (when known: a loopback
    /// address turns on the loopback-only host check).
    pub(crate) fn new(config: &HttpConfig, bound: Option<SocketAddr>) -> Result<Self, ConfigError> {
        let hosts = HostPolicy::new(config.allowed_hosts.as_deref(), bound)
            .map_err(|(entry, e)| ConfigError::Host(entry, e))?;
        let origins = OriginPolicy::new(config.allowed_origins.as_deref())
            .map_err(|(entry, e)| ConfigError::Origin(entry, e))?;
        let proxies = TrustedProxies::new(&config.trusted_proxies)?;
        if !proxies.is_empty() && matches!(hosts, HostPolicy::Loopback) {
            tracing::warn!(
                "trusted proxies forward the host names clients use, and only localhost is \
                 allowed: list those names with HttpConfig::allow_host (--allow-host)"
            );
        }
        Ok(Self {
            hosts,
            origins,
            proxies,
            client_ipv6_prefix: config.client_ipv6_prefix,
        })
    }

    /// The address that stands for the client behind a request in limits per client: its
    /// address through trusted proxies, keyed by [`client_key`] (an IPv6 client by its
    /// network).
    pub(crate) fn client_addr(&self, parts: &Parts) -> Option<std::net::IpAddr> {
        self.proxies
            .client(parts)
            .map(|ip| client_key(ip, self.client_ipv6_prefix))
    }

    /// `scheme://host[:port]` as the request reached the server (through trusted proxies),
    /// when its host is allowed (the origin is not checked: for public metadata).
    pub(crate) fn reached(&self, parts: &Parts) -> Result<String, Rejected> {
        let target = host::target(parts, &self.proxies)?;
        if !self.hosts.allows(&target) {
            return Err(Rejected::HostNotAllowed);
        }
        let Some(authority) = &target.authority else {
            return Err(Rejected::HostNotAllowed);
        };
        let host = match &authority.host {
            authority::Host::Ip(std::net::IpAddr::V6(ip)) => format!("[{ip}]"),
            authority::Host::Ip(ip) => ip.to_string(),
            authority::Host::Name(name) => name.to_string(),
        };
        Ok(match authority.port {
            Some(port) => format!("{}://{host}:{port}", target.scheme),
            None => format!("{}://{host}", target.scheme),
        })
    }

    /// The host and the origin of a request.
    pub(crate) fn check(&self, parts: &Parts) -> Result<(), Rejected> {
        let target = host::target(parts, &self.proxies)?;
        self.origins.check(&parts.headers)?;
        if self.hosts.allows(&target) {
            Ok(())
        } else {
            Err(Rejected::HostNotAllowed)
        }
    }
}
