//! Where a request comes from: the TCP peer's address ([`peer_addr`]), and for requests
//! that come through a reverse proxy, which peers are trusted
//! ([`HttpConfig::trust_proxy`](crate::HttpConfig::trust_proxy), addresses and CIDR ranges),
//! and what a trusted one says the client asked for, from `Forwarded` (RFC 7239) or
//! `X-Forwarded-Host` and `X-Forwarded-Proto`. Headers from any other peer are ignored.
//!
//! A chain of proxies is followed from the nearest one outwards: the element of `Forwarded`
//! (or the entry of `X-Forwarded-Host`) written by the outermost proxy of the trusted
//! chain is the one used. The chain is the TCP peer, then every `for` address (entry of
//! `X-Forwarded-For`), read from the right, that is itself a trusted proxy.

use std::borrow::Cow;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::ConnectInfo;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use ipnet::IpNet;

use super::fields::{self, FieldError};

/// The TCP peer's address (the client's, or its proxy's), when the server is served with
/// connection info (`serve_http`, or a router served with
/// `into_make_service_with_connect_info::<SocketAddr>()`).
pub(super) fn peer_addr(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}

/// Why a trusted proxy's forwarding headers are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ForwardedError {
    /// `Forwarded`, `X-Forwarded-Host` or `X-Forwarded-Proto` does not parse.
    #[error("invalid {0} header ({1})")]
    Syntax(&'static str, FieldError),
    /// A `Forwarded` element names a parameter twice (RFC 7239 §4).
    #[error("invalid Forwarded header (a repeated parameter)")]
    Repeated,
    /// A forwarded protocol that is not a URI scheme.
    #[error("invalid forwarded protocol")]
    Proto,
}

/// A configured proxy entry that is neither an IP address nor a CIDR range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("trust_proxy `{0}`: expected an IP address (10.0.0.7, ::1) or a CIDR range (10.0.0.0/8)")]
pub(crate) struct ProxyEntryError(pub(crate) String);

/// The peers whose forwarding headers are believed.
#[derive(Debug, Default)]
pub(super) struct TrustedProxies {
    nets: Vec<IpNet>,
    /// Whether a request without a peer address was logged (once per endpoint).
    warned: AtomicBool,
}

impl TrustedProxies {
    /// Parses the configured entries.
    pub(super) fn new(entries: &[String]) -> Result<Self, ProxyEntryError> {
        entries
            .iter()
            .map(|e| {
                let e = e.trim();
                IpNet::from_str(e)
                    .or_else(|_| IpAddr::from_str(e).map(IpNet::from))
                    .map_err(|_| ProxyEntryError(e.to_owned()))
            })
            .collect::<Result<_, _>>()
            .map(|nets| Self {
                nets,
                warned: AtomicBool::new(false),
            })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.nets.iter().any(|net| net.contains(&ip))
    }

    /// What a trusted peer forwards: `None` when there are no trusted proxies, when the
    /// request carries no peer address (a router served without connect info) or when the
    /// peer is not trusted.
    pub(super) fn forwarded<'a>(
        &self,
        parts: &'a Parts,
    ) -> Option<Result<Forwarded<'a>, ForwardedError>> {
        if self.is_empty() {
            return None;
        }
        let Some(peer) = peer_addr(parts) else {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "trusted proxies are configured but requests carry no peer address: \
                     forwarding headers are ignored (serve the router with \
                     into_make_service_with_connect_info::<SocketAddr>())"
                );
            }
            return None;
        };
        if !self.contains(peer) {
            return None;
        }
        Some(self.read(&parts.headers))
    }

    /// The client's address, for limits per client: the peer's, or, when the peer is a
    /// trusted proxy, the address the trusted chain forwarded for (`Forwarded`'s `for`
    /// nodes, else `X-Forwarded-For`), read from the right past trusted proxies. A node
    /// that is not an address (`unknown`, an obfuscated name) stops the walk at the last
    /// address read: its proxy stands for the client.
    pub(super) fn client(&self, parts: &Parts) -> Option<IpAddr> {
        let peer = peer_addr(parts)?;
        if self.is_empty() || !self.contains(peer) {
            return Some(peer);
        }
        let headers = &parts.headers;
        let forwarded: Vec<Option<IpAddr>> = fields::list(headers.get_all("forwarded"))
            .map(|elements| {
                elements
                    .iter()
                    .map(|e| {
                        Element::parse(e)
                            .ok()
                            .and_then(|e| e.r#for.as_deref().and_then(node_ip))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let nodes = if forwarded.is_empty() {
            fields::list(headers.get_all("x-forwarded-for"))
                .map(|l| l.iter().map(|n| node_ip(n)).collect())
                .unwrap_or_default()
        } else {
            forwarded
        };
        let mut client = peer;
        for node in nodes.iter().rev() {
            let Some(ip) = node else { break };
            client = *ip;
            if !self.contains(*ip) {
                break;
            }
        }
        Some(client)
    }

    fn read<'a>(&self, headers: &'a HeaderMap) -> Result<Forwarded<'a>, ForwardedError> {
        let standard = self.read_forwarded(headers)?;
        let legacy = self.read_x_forwarded(headers)?;
        let proto = standard.proto.or(legacy.proto);
        if let Some(p) = &proto
            && !is_scheme(p)
        {
            return Err(ForwardedError::Proto);
        }
        Ok(Forwarded {
            host: standard.host.or(legacy.host),
            proto,
        })
    }

    /// The trusted chain's elements of `Forwarded`, and the host and protocol of the
    /// outermost one that names them.
    fn read_forwarded<'a>(&self, headers: &'a HeaderMap) -> Result<Forwarded<'a>, ForwardedError> {
        let syntax = |e| ForwardedError::Syntax("Forwarded", e);
        let elements = fields::list(headers.get_all("forwarded")).map_err(syntax)?;
        let mut parsed = Vec::with_capacity(elements.len());
        for element in elements {
            parsed.push(Element::parse(element).map_err(|e| match e {
                ElementError::Field(f) => syntax(f),
                ElementError::Repeated => ForwardedError::Repeated,
            })?);
        }
        let start = parsed
            .len()
            .saturating_sub(1 + self.trusted_hops(parsed.iter().map(|e| e.r#for.as_deref())));
        let chain = &mut parsed[start..];
        Ok(Forwarded {
            host: chain.iter_mut().find_map(|e| e.host.take()),
            proto: chain.iter_mut().find_map(|e| e.proto.take()),
        })
    }

    /// `X-Forwarded-Host` and `X-Forwarded-Proto`, each taken at the entry of the outermost
    /// trusted proxy (counted with `X-Forwarded-For`); a shorter list (proxies that set the
    /// header rather than append to it) gives its first entry.
    fn read_x_forwarded<'a>(
        &self,
        headers: &'a HeaderMap,
    ) -> Result<Forwarded<'a>, ForwardedError> {
        let fors = fields::list(headers.get_all("x-forwarded-for"))
            .map_err(|e| ForwardedError::Syntax("X-Forwarded-For", e))?;
        // One entry per proxy: the peer's, then one per trusted address in X-Forwarded-For.
        let hops = 1 + self.trusted_hops(fors.iter().copied().map(Some));
        let pick = |name: &'static str| -> Result<Option<Cow<'a, str>>, ForwardedError> {
            let list =
                fields::list(headers.get_all(name)).map_err(|e| ForwardedError::Syntax(name, e))?;
            Ok(list
                .len()
                .checked_sub(hops)
                .and_then(|i| list.get(i))
                .or(list.first())
                .map(|v| Cow::Borrowed(*v)))
        };
        Ok(Forwarded {
            host: pick("x-forwarded-host")?,
            proto: pick("x-forwarded-proto")?,
        })
    }

    /// How many proxies stand between the client and the peer, by the `for` nodes of a
    /// list written one per proxy (the nearest last): the nodes, read from the right, that
    /// are trusted proxies' addresses. The first node never counts: it is the client's.
    fn trusted_hops<'s>(
        &self,
        fors: impl DoubleEndedIterator<Item = Option<&'s str>> + ExactSizeIterator,
    ) -> usize {
        let len = fors.len();
        fors.rev()
            .take(len.saturating_sub(1))
            .take_while(|node| node.and_then(node_ip).is_some_and(|ip| self.contains(ip)))
            .count()
    }
}

/// What a trusted proxy says the client asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Forwarded<'a> {
    /// The `Host` the client sent the outermost proxy.
    pub(super) host: Option<Cow<'a, str>>,
    /// The scheme the client used (`https` when the proxy terminates TLS).
    pub(super) proto: Option<Cow<'a, str>>,
}

enum ElementError {
    Field(FieldError),
    Repeated,
}

/// One `forwarded-element`: the parameters one proxy appended.
#[derive(Default)]
struct Element<'a> {
    r#for: Option<Cow<'a, str>>,
    host: Option<Cow<'a, str>>,
    proto: Option<Cow<'a, str>>,
}

impl<'a> Element<'a> {
    fn parse(element: &'a str) -> Result<Self, ElementError> {
        let mut out = Self::default();
        let mut by = false;
        for pair in fields::split(element, b';') {
            let pair = pair.map_err(ElementError::Field)?;
            if pair.is_empty() {
                continue;
            }
            let (name, value) = pair
                .split_once('=')
                .ok_or(ElementError::Field(FieldError::Malformed))?;
            if !fields::is_token(name) {
                return Err(ElementError::Field(FieldError::Malformed));
            }
            let value = fields::value_of(value).map_err(ElementError::Field)?;
            let slot = match name.to_ascii_lowercase().as_str() {
                "for" => &mut out.r#for,
                "host" => &mut out.host,
                "proto" => &mut out.proto,
                "by" => {
                    if std::mem::replace(&mut by, true) {
                        return Err(ElementError::Repeated);
                    }
                    continue;
                }
                _ => continue, // an extension parameter (RFC 7239 §5.5)
            };
            if slot.replace(value).is_some() {
                return Err(ElementError::Repeated);
            }
        }
        Ok(out)
    }
}

/// The address of a `for` node or an `X-Forwarded-For` entry: an IPv4 address or a
/// bracketed IPv6 one, maybe with a port; also a bare IPv6 address (`X-Forwarded-For`).
/// `unknown` and obfuscated identifiers (`_hidden`) are no address.
fn node_ip(node: &str) -> Option<IpAddr> {
    if let Ok(ip) = IpAddr::from_str(node) {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        let (v6, _port) = rest.split_once(']')?;
        return v6.parse().ok().map(IpAddr::V6);
    }
    let (v4, _port) = node.split_once(':')?;
    v4.parse().ok().map(IpAddr::V4)
}

/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::new(&list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    fn read(
        p: &TrustedProxies,
        pairs: &[(&'static str, &'static str)],
    ) -> (Option<String>, Option<String>) {
        let h = headers(pairs);
        let f = p.read(&h).unwrap();
        (f.host.map(Cow::into_owned), f.proto.map(Cow::into_owned))
    }

    fn client(p: &TrustedProxies, peer: &str, pairs: &[(&'static str, &'static str)]) -> String {
        let mut req = axum::http::Request::new(());
        *req.headers_mut() = headers(pairs);
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::new(peer.parse().unwrap(), 4000)));
        let (parts, ()) = req.into_parts();
        p.client(&parts).unwrap().to_string()
    }

    #[test]
    fn the_client_address_is_read_through_trusted_proxies_only() {
        let p = proxies(&["10.0.0.0/8"]);
        let xff = [("x-forwarded-for", "198.51.100.9, 203.0.113.5, 10.0.0.2")];
        // Not a trusted peer: its headers say nothing.
        assert_eq!(client(&p, "192.0.2.1", &xff), "192.0.2.1");
        // A trusted peer: past trusted proxies to the first other address, from the right
        // (203.0.113.5 is untrusted: what it says about 198.51.100.9 is not believed).
        assert_eq!(client(&p, "10.0.0.1", &xff), "203.0.113.5");
        assert_eq!(
            client(
                &p,
                "10.0.0.1",
                &[("forwarded", "for=198.51.100.9, for=\"[2001:db8::1]:80\"")]
            ),
            "2001:db8::1"
        );
        assert_eq!(
            client(&p, "10.0.0.1", &[("forwarded", "for=unknown")]),
            "10.0.0.1"
        );
        assert_eq!(client(&p, "10.0.0.1", &[]), "10.0.0.1");
        assert_eq!(client(&proxies(&[]), "10.0.0.1", &xff), "10.0.0.1");
    }

    #[test]
    fn entries_are_addresses_or_ranges() {
        let p = proxies(&["10.0.0.0/8", "::1", "192.0.2.7", "fd00::/8"]);
        assert!(p.contains("10.1.2.3".parse().unwrap()));
        assert!(p.contains("::ffff:10.1.2.3".parse().unwrap()));
        assert!(p.contains("::1".parse().unwrap()));
        assert!(p.contains("192.0.2.7".parse().unwrap()));
        assert!(!p.contains("192.0.2.8".parse().unwrap()));
        assert!(p.contains("fd12::1".parse().unwrap()));
        assert!(TrustedProxies::new(&["nginx".to_owned()]).is_err());
        assert!(TrustedProxies::new(&["10.0.0.0/33".to_owned()]).is_err());
    }

    #[test]
    fn forwarded_follows_the_trusted_chain() {
        let p = proxies(&["10.0.0.0/8"]);
        // One proxy: its element.
        let one = [(
            "forwarded",
            "for=203.0.113.9;host=mcp.example.com;proto=https",
        )];
        assert_eq!(
            read(&p, &one),
            (Some("mcp.example.com".into()), Some("https".into()))
        );
        // A client's own element before it is ignored.
        let spoof = [(
            "forwarded",
            "host=localhost;proto=http, for=203.0.113.9;host=mcp.example.com;proto=https",
        )];
        assert_eq!(read(&p, &spoof).0.as_deref(), Some("mcp.example.com"));
        // Two trusted proxies (edge 10.0.0.2, then the peer): the edge's element.
        let two = [(
            "forwarded",
            r#"for=203.0.113.9;host=mcp.example.com, for=10.0.0.2;host="internal:8080""#,
        )];
        assert_eq!(read(&p, &two).0.as_deref(), Some("mcp.example.com"));
        // Quoted IPv6 nodes, several lines, case-insensitive names.
        let v6 = [
            ("forwarded", r#"For="[2001:db8::1]:4711";Host=a.example"#),
            ("forwarded", r#"for="[fd00::1]""#),
        ];
        let p6 = proxies(&["fd00::/8"]);
        assert_eq!(read(&p6, &v6).0.as_deref(), Some("a.example"));
        let h = headers(&[("forwarded", "host=a;host=b")]);
        assert_eq!(p.read(&h), Err(ForwardedError::Repeated));
        let h = headers(&[("forwarded", "host=\"a")]);
        assert!(p.read(&h).is_err());
        let h = headers(&[("forwarded", "proto=\"ht tp\"")]);
        assert_eq!(p.read(&h), Err(ForwardedError::Proto));
    }

    #[test]
    fn x_forwarded_headers_follow_the_trusted_chain() {
        let p = proxies(&["10.0.0.0/8"]);
        let set = [
            ("x-forwarded-host", "mcp.example.com"),
            ("x-forwarded-proto", "https"),
        ];
        assert_eq!(
            read(&p, &set),
            (Some("mcp.example.com".into()), Some("https".into()))
        );
        // Appended to a client's value: the proxy's entry.
        let appended = [
            ("x-forwarded-host", "localhost, mcp.example.com"),
            ("x-forwarded-for", "203.0.113.9"),
        ];
        assert_eq!(read(&p, &appended).0.as_deref(), Some("mcp.example.com"));
        // Two trusted proxies that both append: the outer one's entry.
        let two = [
            ("x-forwarded-host", "localhost, mcp.example.com, internal"),
            ("x-forwarded-for", "203.0.113.9, 10.0.0.2"),
        ];
        assert_eq!(read(&p, &two).0.as_deref(), Some("mcp.example.com"));
        // Forwarded wins over X-Forwarded-Host.
        let both = [
            ("forwarded", "host=a.example"),
            ("x-forwarded-host", "b.example"),
        ];
        assert_eq!(read(&p, &both).0.as_deref(), Some("a.example"));
        assert_eq!(read(&p, &[]), (None, None));
    }

    #[test]
    fn nodes() {
        assert_eq!(node_ip("192.0.2.1:80"), "192.0.2.1".parse().ok());
        assert_eq!(node_ip("[2001:db8::1]:80"), "2001:db8::1".parse().ok());
        assert_eq!(node_ip("2001:db8::1"), "2001:db8::1".parse().ok());
        assert_eq!(node_ip("unknown"), None);
        assert_eq!(node_ip("_hidden"), None);
    }
}
