//! Strict values of `Host`, `:authority`, a forwarded host and `Origin`: what the `http`
//! crate's [`Authority`] and [`Uri`] parse, minus what RFC 9110 and RFC 6454 do not allow
//! there (userinfo, a port that is not 1 to 5 digits up to 65535, anything after an IPv6
//! literal or a host that is no IP address nor DNS name, a path after an origin).

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use axum::http::Uri;
use axum::http::uri::Authority;

/// Why a host or origin value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AuthorityError {
    /// Not an authority at all.
    #[error("not a host[:port]")]
    Syntax,
    /// `user@host` (RFC 9110 §4.2.4: userinfo is an error in an http(s) authority).
    #[error("userinfo is not allowed")]
    Userinfo,
    /// A port that is empty, not decimal digits or above 65535.
    #[error("invalid port")]
    Port,
    /// An IPv6 literal that is not one, or text after it.
    #[error("invalid IPv6 literal")]
    Ipv6,
    /// A name with characters no DNS name has, or an empty one.
    #[error("invalid host name")]
    Name,
    /// An origin that is not `scheme://host[:port]` (RFC 6454 §6.2) nor `null`.
    #[error("not a serialized origin")]
    Origin,
}

/// A host: an IP address or a DNS name (kept as written; compared without case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host<'a> {
    /// An IPv4 address or a bracketed IPv6 literal.
    Ip(IpAddr),
    /// A registered name.
    Name(Cow<'a, str>),
}

impl Host<'_> {
    /// The same host, owning its name.
    pub(crate) fn into_owned(self) -> Host<'static> {
        match self {
            Self::Ip(ip) => Host::Ip(ip),
            Self::Name(n) => Host::Name(Cow::Owned(n.into_owned())),
        }
    }

    /// `localhost`, a name under `.localhost` (RFC 6761 §6.3) or a loopback address: a
    /// host a DNS-rebinding page cannot be served from.
    pub(crate) fn is_loopback(&self) -> bool {
        match self {
            Self::Ip(ip) => ip.to_canonical().is_loopback(),
            Self::Name(n) => {
                n.eq_ignore_ascii_case("localhost")
                    || n.len() > ".localhost".len()
                        && n[n.len() - ".localhost".len()..].eq_ignore_ascii_case(".localhost")
            }
        }
    }

    /// The same host: equal addresses, or names equal without case.
    pub(crate) fn same(&self, other: &Host<'_>) -> bool {
        match (self, other) {
            (Self::Ip(a), Host::Ip(b)) => a.to_canonical() == b.to_canonical(),
            (Self::Name(a), Host::Name(b)) => a.eq_ignore_ascii_case(b),
            _ => false,
        }
    }
}

/// A host and maybe a port: the value of `Host`, `:authority` or a forwarded host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostPort<'a> {
    pub(crate) host: Host<'a>,
    pub(crate) port: Option<u16>,
}

impl<'a> HostPort<'a> {
    /// Parses `host[:port]` strictly.
    pub(crate) fn parse(text: &'a str) -> Result<Self, AuthorityError> {
        let authority = Authority::from_str(text).map_err(|_| AuthorityError::Syntax)?;
        Self::checked(&authority)?;
        Self::split(text)
    }

    /// The strict reading of an authority the `http` crate parsed (an absolute-form target,
    /// HTTP/2's `:authority`).
    pub(crate) fn from_authority(authority: &'a Authority) -> Result<Self, AuthorityError> {
        Self::checked(authority)?;
        Self::split(authority.as_str())
    }

    /// What the `http` crate lets through but an http(s) authority may not hold.
    fn checked(authority: &Authority) -> Result<(), AuthorityError> {
        if authority.as_str().contains('@') {
            return Err(AuthorityError::Userinfo);
        }
        Ok(())
    }

    fn split(text: &'a str) -> Result<Self, AuthorityError> {
        let (host, rest) = if let Some(inner) = text.strip_prefix('[') {
            let (literal, rest) = inner.split_once(']').ok_or(AuthorityError::Ipv6)?;
            let ip = Ipv6Addr::from_str(literal).map_err(|_| AuthorityError::Ipv6)?;
            if !(rest.is_empty() || rest.starts_with(':')) {
                return Err(AuthorityError::Ipv6);
            }
            (Host::Ip(IpAddr::V6(ip)), rest)
        } else {
            let (name, rest) = match text.find(':') {
                Some(i) => text.split_at(i),
                None => (text, ""),
            };
            (host_name(name)?, rest)
        };
        let port = match rest.strip_prefix(':') {
            None if rest.is_empty() => None,
            None => return Err(AuthorityError::Syntax),
            Some(digits) => Some(port(digits)?),
        };
        Ok(Self { host, port })
    }

    /// The same value, owning its name.
    pub(crate) fn into_owned(self) -> HostPort<'static> {
        HostPort {
            host: self.host.into_owned(),
            port: self.port,
        }
    }
}

/// An IPv4 address in dotted-decimal form, or a DNS name (letters, digits, `-`, `.`, `_`).
fn host_name(name: &str) -> Result<Host<'_>, AuthorityError> {
    if let Ok(ip) = Ipv4Addr::from_str(name) {
        return Ok(Host::Ip(IpAddr::V4(ip)));
    }
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    if ok {
        Ok(Host::Name(Cow::Borrowed(name)))
    } else {
        Err(AuthorityError::Name)
    }
}

/// 1 to 5 decimal digits, at most 65535.
fn port(digits: &str) -> Result<u16, AuthorityError> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AuthorityError::Port);
    }
    digits.parse().map_err(|_| AuthorityError::Port)
}

/// The port a scheme implies when none is written.
pub(crate) fn default_port(scheme: &str) -> Option<u16> {
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// An `Origin` value (RFC 6454 §7): `null`, or a scheme, a host and maybe a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin<'a> {
    /// `null`: an opaque origin (a sandboxed frame, a `file:` page, a redirect…).
    Null,
    /// `scheme://host[:port]`.
    Tuple {
        /// Lowercase.
        scheme: Cow<'a, str>,
        /// The host and the port as written.
        authority: HostPort<'a>,
    },
}

impl<'a> Origin<'a> {
    /// Parses a serialized origin strictly: exactly `scheme "://" host [ ":" port ]`, or
    /// `null`.
    pub(crate) fn parse(text: &'a str) -> Result<Self, AuthorityError> {
        if text == "null" {
            return Ok(Self::Null);
        }
        let uri = Uri::from_str(text).map_err(|_| AuthorityError::Origin)?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return Err(AuthorityError::Origin);
        };
        // Nothing after the authority: no path, not even `/`, no query, no fragment.
        let rest = text
            .get(scheme.len()..)
            .and_then(|r| r.strip_prefix("://"))
            .ok_or(AuthorityError::Origin)?;
        if rest.len() != authority.as_str().len() {
            return Err(AuthorityError::Origin);
        }
        if authority.as_str().contains('@') {
            return Err(AuthorityError::Userinfo);
        }
        Ok(Self::Tuple {
            scheme: Cow::Owned(scheme.to_ascii_lowercase()),
            authority: HostPort::split(rest)?,
        })
    }

    /// The same origin (scheme, host, and port with the scheme's default filled in).
    pub(crate) fn same(&self, other: &Origin<'_>) -> bool {
        match (self, other) {
            (Self::Null, Origin::Null) => true,
            (
                Self::Tuple { scheme, authority },
                Origin::Tuple {
                    scheme: s2,
                    authority: a2,
                },
            ) => {
                let port = |s: &str, a: &HostPort<'_>| a.port.or_else(|| default_port(s));
                scheme == s2
                    && authority.host.same(&a2.host)
                    && port(scheme, authority) == port(s2, a2)
            }
            _ => false,
        }
    }

    /// The same origin, owning its parts.
    pub(crate) fn into_owned(self) -> Origin<'static> {
        match self {
            Self::Null => Origin::Null,
            Self::Tuple { scheme, authority } => Origin::Tuple {
                scheme: Cow::Owned(scheme.into_owned()),
                authority: authority.into_owned(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Result<HostPort<'_>, AuthorityError> {
        HostPort::parse(text)
    }

    #[test]
    fn hosts_are_parsed_strictly() {
        for good in [
            "localhost",
            "localhost:8080",
            "LOCALHOST:1",
            "127.0.0.1",
            "[::1]:3000",
            "[::ffff:127.0.0.1]",
            "mcp.example.com",
            "a_b-c.example",
            "app.localhost:65535",
        ] {
            assert!(host(good).is_ok(), "{good}");
        }
        let cases = [
            ("localhost:80@evil.com", AuthorityError::Userinfo),
            ("@evil.com", AuthorityError::Userinfo),
            ("127.0.0.1:evil", AuthorityError::Port),
            ("localhost:", AuthorityError::Port),
            ("localhost:99999", AuthorityError::Port),
            ("localhost:+80", AuthorityError::Port),
            ("localhost:000080", AuthorityError::Port),
            ("[::1]evil.com", AuthorityError::Ipv6),
            ("[::1]:80evil", AuthorityError::Port),
            ("[v1.x]", AuthorityError::Ipv6),
            ("[fe80::1%25eth0]", AuthorityError::Ipv6),
            ("ex$ample.com", AuthorityError::Name),
            ("", AuthorityError::Syntax),
            ("a b", AuthorityError::Syntax),
            ("::1", AuthorityError::Syntax),
        ];
        for (bad, why) in cases {
            assert_eq!(host(bad).err(), Some(why), "{bad}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "LocalHost:1",
            "app.localhost",
            "127.0.0.1",
            "127.8.0.1",
            "[::1]",
            "[::ffff:127.0.0.1]",
        ] {
            assert!(host(h).unwrap().host.is_loopback(), "{h}");
        }
        for h in [
            "evil.com",
            "localhost.evil.com",
            "127.0.0.1.evil.com",
            "xlocalhost",
            "10.0.0.1",
        ] {
            assert!(!host(h).unwrap().host.is_loopback(), "{h}");
        }
    }

    #[test]
    fn origins_are_serialized_origins() {
        assert_eq!(Origin::parse("null"), Ok(Origin::Null));
        let o = Origin::parse("https://App.example.com").unwrap();
        assert!(o.same(&Origin::parse("HTTPS://app.example.com:443").unwrap()));
        assert!(!o.same(&Origin::parse("http://app.example.com").unwrap()));
        assert!(!o.same(&Origin::parse("https://app.example.com:8443").unwrap()));
        assert!(Origin::parse("chrome-extension://abcdef").is_ok());
        assert!(Origin::parse("http://[::1]:3000").is_ok());
        for bad in [
            "http://localhost:80@evil.com",
            "https://app.example.com/",
            "https://app.example.com/path",
            "https://app.example.com?x",
            "https://app.example.com#x",
            "http://127.0.0.1:evil",
            "http://[::1]evil.com",
            "app.example.com",
            "Null",
            "",
            "https://",
        ] {
            assert!(Origin::parse(bad).is_err(), "{bad}");
        }
    }
}
