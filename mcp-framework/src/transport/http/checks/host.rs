//! Which host a request names, and whether it is served here (DNS-rebinding protection).
//!
//! The host is the request target's authority when it has one (an absolute-form target,
//! whose `Host` is then ignored, RFC 9112 §3.2.2; HTTP/2's `:authority`), else the single
//! `Host` header; from a trusted proxy, the host it forwards. Two `Host` headers, a
//! malformed one, none on HTTP/1.1 (RFC 9112 §3.2) and a `Host` that contradicts
//! `:authority` (RFC 9113 §8.3.1) are `400`.

use std::borrow::Cow;
use std::net::SocketAddr;

use axum::http::request::Parts;
use axum::http::{Version, header};

use super::super::proxy::{ForwardedError, TrustedProxies};
use super::authority::{AuthorityError, HostPort, default_port};

/// Why the host of a request cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HostError {
    /// More than one `Host` header.
    #[error("more than one Host header")]
    Duplicate,
    /// An HTTP/1.1 or HTTP/2 request that names no host.
    #[error("no Host header")]
    Missing,
    /// A `Host` (or target authority) that is not a valid `host[:port]`.
    #[error("invalid Host: {0}")]
    Invalid(AuthorityError),
    /// HTTP/2: a `Host` header naming another host than `:authority`.
    #[error("Host differs from :authority")]
    Conflict,
    /// A trusted proxy's forwarding headers do not parse.
    #[error("{0}")]
    Forwarded(#[from] ForwardedError),
    /// A trusted proxy forwards a host that is not a valid `host[:port]`.
    #[error("invalid forwarded host: {0}")]
    ForwardedHost(AuthorityError),
}

/// The host a request is for, and the scheme it came with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    /// `None` only for an HTTP/1.0 request without `Host`.
    pub(crate) authority: Option<HostPort<'a>>,
    /// The target's scheme, a trusted proxy's protocol, else `http`.
    pub(crate) scheme: Cow<'a, str>,
}

impl Target<'_> {
    /// The port the client connected to, the scheme's default when none is written.
    fn port(&self) -> Option<u16> {
        self.authority
            .as_ref()
            .and_then(|a| a.port)
            .or_else(|| default_port(&self.scheme))
    }
}

/// Reads the host of a request.
pub(crate) fn target<'a>(
    parts: &'a Parts,
    proxies: &TrustedProxies,
) -> Result<Target<'a>, HostError> {
    let mut lines = parts.headers.get_all(header::HOST).iter();
    let host = lines.next();
    if lines.next().is_some() {
        return Err(HostError::Duplicate);
    }
    let host = host
        .map(|v| {
            let text = v
                .to_str()
                .map_err(|_| HostError::Invalid(AuthorityError::Syntax))?;
            HostPort::parse(text).map_err(HostError::Invalid)
        })
        .transpose()?;
    let in_target = parts
        .uri
        .authority()
        .map(HostPort::from_authority)
        .transpose()
        .map_err(HostError::Invalid)?;
    let http2 = matches!(parts.version, Version::HTTP_2 | Version::HTTP_3);
    let mut scheme = Cow::Borrowed(parts.uri.scheme_str().unwrap_or("http"));
    let mut authority = match (in_target, host) {
        (Some(t), Some(h)) if http2 => {
            let port = |a: &HostPort<'_>| a.port.or_else(|| default_port(&scheme));
            if !(t.host.same(&h.host) && port(&t) == port(&h)) {
                return Err(HostError::Conflict);
            }
            Some(t)
        }
        (Some(t), _) => Some(t),
        (None, Some(h)) => Some(h),
        (None, None) if http2 || parts.version == Version::HTTP_11 => {
            return Err(HostError::Missing);
        }
        (None, None) => None,
    };
    if let Some(forwarded) = proxies.forwarded(parts) {
        let forwarded = forwarded?;
        if let Some(host) = forwarded.host {
            let parsed = HostPort::parse(&host).map_err(HostError::ForwardedHost)?;
            authority = Some(parsed.into_owned());
        }
        if let Some(proto) = forwarded.proto {
            scheme = Cow::Owned(proto.to_ascii_lowercase());
        }
    }
    Ok(Target { authority, scheme })
}

/// Which hosts are served.
#[derive(Debug, Clone)]
pub(crate) enum HostPolicy {
    /// Any host (also a request without one).
    Any,
    /// `localhost`, `*.localhost` and loopback addresses, any port.
    Loopback,
    /// These hosts; an entry with a port matches that port only (a request without one
    /// is on its scheme's default port).
    List(Vec<HostPort<'static>>),
}

impl HostPolicy {
    /// The configured hosts (`"*"` is any); else loopback names when served on a loopback
    /// address (`bound`), else any (a mounted router does not know how it is bound).
    pub(crate) fn new(
        allowed: Option<&[String]>,
        bound: Option<SocketAddr>,
    ) -> Result<Self, (String, AuthorityError)> {
        let Some(allowed) = allowed else {
            return Ok(
                if bound.is_some_and(|a| a.ip().to_canonical().is_loopback()) {
                    Self::Loopback
                } else {
                    Self::Any
                },
            );
        };
        if allowed.iter().any(|a| a.trim() == "*") {
            return Ok(Self::Any);
        }
        allowed
            .iter()
            .map(|entry| {
                HostPort::parse(entry.trim())
                    .map(HostPort::into_owned)
                    .map_err(|e| (entry.clone(), e))
            })
            .collect::<Result<_, _>>()
            .map(Self::List)
    }

    /// Whether this policy serves `target`.
    pub(crate) fn allows(&self, target: &Target<'_>) -> bool {
        let Some(authority) = &target.authority else {
            return matches!(self, Self::Any);
        };
        match self {
            Self::Any => true,
            Self::Loopback => authority.host.is_loopback(),
            Self::List(list) => list.iter().any(|entry| {
                entry.host.same(&authority.host)
                    && entry.port.is_none_or(|p| Some(p) == target.port())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts(version: Version, uri: &str, hosts: &[&str]) -> Parts {
        let mut b = Request::builder().version(version).uri(uri);
        for h in hosts {
            b = b.header(header::HOST, *h);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn host_of(version: Version, uri: &str, hosts: &[&str]) -> Result<String, HostError> {
        let p = parts(version, uri, hosts);
        let t = target(&p, &TrustedProxies::default())?;
        let a = t.authority.unwrap();
        Ok(format!("{}://{:?}:{:?}", t.scheme, a.host, a.port))
    }

    #[test]
    fn the_host_of_a_request() {
        let v11 = Version::HTTP_11;
        assert!(
            host_of(v11, "/mcp", &["localhost:8080"])
                .unwrap()
                .contains("8080")
        );
        assert_eq!(
            host_of(v11, "/mcp", &["localhost", "evil.com"]),
            Err(HostError::Duplicate)
        );
        assert_eq!(host_of(v11, "/mcp", &[]), Err(HostError::Missing));
        assert_eq!(
            host_of(v11, "/mcp", &["localhost:80@evil.com"]),
            Err(HostError::Invalid(AuthorityError::Userinfo))
        );
        // Absolute form: the target's authority, the Host ignored.
        let abs = host_of(v11, "http://evil.com/mcp", &["localhost"]).unwrap();
        assert!(abs.contains("evil.com"), "{abs}");
        assert_eq!(
            host_of(v11, "http://u@localhost/mcp", &["localhost"]),
            Err(HostError::Invalid(AuthorityError::Userinfo))
        );
        // HTTP/2: :authority, and a Host that agrees with it.
        let h2 = Version::HTTP_2;
        assert!(host_of(h2, "http://localhost:1/mcp", &[]).is_ok());
        assert!(host_of(h2, "http://localhost/mcp", &["LOCALHOST:80"]).is_ok());
        assert_eq!(
            host_of(h2, "http://localhost/mcp", &["evil.com"]),
            Err(HostError::Conflict)
        );
        assert_eq!(host_of(h2, "/mcp", &[]), Err(HostError::Missing));
        // HTTP/1.0 may name no host.
        let p = parts(Version::HTTP_10, "/mcp", &[]);
        assert_eq!(
            target(&p, &TrustedProxies::default()).unwrap().authority,
            None
        );
    }

    #[test]
    fn policies() {
        let t = |host: &'static str, scheme: &'static str| Target {
            authority: Some(HostPort::parse(host).unwrap()),
            scheme: Cow::Borrowed(scheme),
        };
        let loopback = HostPolicy::new(None, Some("127.0.0.1:1".parse().unwrap())).unwrap();
        assert!(loopback.allows(&t("localhost:9", "http")));
        assert!(!loopback.allows(&t("evil.com", "http")));
        assert!(matches!(
            HostPolicy::new(None, None).unwrap(),
            HostPolicy::Any
        ));
        let list = HostPolicy::new(
            Some(&["mcp.example.com".into(), "api.example.com:443".into()]),
            None,
        )
        .unwrap();
        assert!(list.allows(&t("MCP.example.com:8080", "http")));
        assert!(list.allows(&t("api.example.com", "https")));
        assert!(list.allows(&t("api.example.com:443", "http")));
        assert!(!list.allows(&t("api.example.com", "http")));
        assert!(!list.allows(&t("localhost", "http")));
        assert!(!list.allows(&Target {
            authority: None,
            scheme: Cow::Borrowed("http")
        }));
        let star = HostPolicy::new(Some(&["*".into()]), None).unwrap();
        assert!(matches!(star, HostPolicy::Any));
        assert!(HostPolicy::new(Some(&["user@host".into()]), None).is_err());
    }
}
