//! Where a webhook may be delivered (SSRF rules): only to globally routable addresses
//! unless the server allows private ones, checked when the connection is made — a host
//! name is resolved by [`Resolver`], which drops every address it may not use, and the
//! connection goes to an address it kept (the original name still in `Host` and SNI), so a
//! name cannot point elsewhere between the check and the connection (DNS rebinding). An IP
//! literal in the URL is checked the same way before the request.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Whether `ip` is globally routable (IANA's special-purpose registries: loopback, private,
/// shared, link-local, documentation, benchmarking, multicast, reserved and the like are
/// not).
pub(super) fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => is_global_v6(v6),
    }
}

fn is_global_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 0 && c == 2)
        || (a == 192 && b == 88 && c == 99)
        || (a == 192 && b == 168)
        || (a == 198 && (18..20).contains(&b))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

fn is_global_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_global_v4(v4);
    }
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] == 0x0064 && s[1] == 0xff9b) // NAT64
        || (s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0) // discard-only
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments (Teredo, ORCHIDs…)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2002)) // 6to4
}

/// Resolves a webhook's host name to the addresses it may be delivered to.
pub(super) struct Resolver {
    pub(super) private_allowed: bool,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let private_allowed = self.private_allowed;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let all: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = all
                .iter()
                .copied()
                .filter(|a| private_allowed || is_global(a.ip()))
                .collect();
            if kept.is_empty() {
                return Err(format!(
                    "`{host}` resolves to no globally routable address ({} found)",
                    all.len()
                )
                .into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_and_special_addresses_are_not_global() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "192.0.2.1",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2001:db8::1",
            "ff02::1",
        ] {
            assert!(!is_global(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_global(ip.parse().unwrap()), "{ip}");
        }
    }
}
