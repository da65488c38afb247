//! A Redis URL as it may be shown in errors, logs and `Debug` output: its userinfo
//! (`user:password@`) and its query (where `redis+unix://` URLs carry `pass=`) replaced
//! by `***`, so that a password never leaves the process.

/// `url` with its userinfo and query hidden: `redis://:s3cret@host:6379/0` becomes
/// `redis://***@host:6379/0`.
pub(crate) fn redacted(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => url.split_at(i + 3),
        None => ("", url),
    };
    let (before_query, query) = match rest.find('?') {
        Some(i) => (&rest[..i], Some(())),
        None => (rest, None),
    };
    let authority_end = before_query.find('/').unwrap_or(before_query.len());
    let (authority, path) = before_query.split_at(authority_end);
    let host = match authority.rfind('@') {
        Some(at) => format!("***@{}", &authority[at + 1..]),
        None => authority.to_owned(),
    };
    // Without `://`, the whole text may be a mistyped URL holding a password: show none.
    if scheme.is_empty() && host.starts_with("***@") {
        return "***".to_owned();
    }
    let query = if query.is_some() { "?***" } else { "" };
    format!("{scheme}{host}{path}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden() {
        for (url, shown) in [
            ("redis://127.0.0.1:6379/", "redis://127.0.0.1:6379/"),
            (
                "redis://:s3cret@127.0.0.1:6379/0",
                "redis://***@127.0.0.1:6379/0",
            ),
            ("redis://ada:s3cret@h", "redis://***@h"),
            ("redis://ada:s3c@ret@h/1", "redis://***@h/1"),
            (
                "redis+unix:///run/redis.sock?db=1&pass=s3cret",
                "redis+unix:///run/redis.sock?***",
            ),
            ("ada:s3cret@h", "***"),
            ("redis://[::1]:6379", "redis://[::1]:6379"),
        ] {
            assert_eq!(redacted(url), shown, "{url}");
        }
    }
}
