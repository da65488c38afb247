//! Resource URIs compared as RFC 8707 and the MCP specification ask: the canonical form has
//! a lowercase scheme and host and no trailing slash on an empty path, and uppercase
//! schemes and hosts are accepted.

/// `uri` in canonical form, or why it is not a resource URI (no scheme or host, a fragment).
pub(crate) fn canonical(uri: &str) -> Result<String, String> {
    let (scheme, rest) = uri
        .split_once("://")
        .ok_or_else(|| format!("`{uri}` is not an absolute URI (no scheme)"))?;
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    {
        return Err(format!("`{uri}` has no valid scheme"));
    }
    if uri.contains('#') {
        return Err(format!("`{uri}` has a fragment"));
    }
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(format!("`{uri}` has no host (or has user information)"));
    }
    let path = if path == "/" { "" } else { path };
    Ok(format!(
        "{}://{}{path}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase()
    ))
}

/// Whether `candidate` (an `aud` value) names the resource whose canonical URI is
/// `resource`.
pub(crate) fn same_resource(resource: &str, candidate: &str) -> bool {
    canonical(candidate).is_ok_and(|c| c == resource)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(
            canonical("HTTPS://MCP.Example.com/mcp").unwrap(),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical("https://mcp.example.com/").unwrap(),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical("https://mcp.example.com:8443").unwrap(),
            "https://mcp.example.com:8443"
        );
        // The path is case-sensitive.
        assert_eq!(canonical("https://h/MCP").unwrap(), "https://h/MCP");
        assert!(canonical("mcp.example.com").is_err());
        assert!(canonical("https://mcp.example.com#fragment").is_err());
        assert!(canonical("https://user@mcp.example.com").is_err());
        assert!(same_resource("https://h/mcp", "HTTPS://H/mcp"));
        assert!(!same_resource("https://h/mcp", "https://h/mcp/other"));
        assert!(!same_resource("https://h/mcp", "https://evil/mcp"));
    }
}
