//! `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1): the parameters a
//! refusal carries, quoted safely.

/// Why a request is refused, as the challenge states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(super) enum ErrorCode {
    /// No error code: the request had no credentials.
    None,
    /// `invalid_request`: a malformed `Authorization` header, or a token in the query.
    InvalidRequest,
    /// `invalid_token`: the token is not valid here.
    InvalidToken,
    /// `insufficient_scope`: valid, without the scopes needed.
    InsufficientScope,
}

impl ErrorCode {
    fn as_str(self) -> Option<&'static str> {
        match self {
            Self::None => None,
            Self::InvalidRequest => Some("invalid_request"),
            Self::InvalidToken => Some("invalid_token"),
            Self::InsufficientScope => Some("insufficient_scope"),
        }
    }
}

/// The value of a `WWW-Authenticate` header.
pub(super) fn bearer(
    resource_metadata: Option<&str>,
    error: ErrorCode,
    scopes: &[String],
    description: Option<&str>,
) -> String {
    let mut params = Vec::new();
    if let Some(code) = error.as_str() {
        params.push(format!("error=\"{code}\""));
    }
    if !scopes.is_empty() {
        params.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
    }
    if let Some(url) = resource_metadata {
        params.push(format!("resource_metadata=\"{}\"", quoted(url)));
    }
    if let Some(d) = description {
        params.push(format!("error_description=\"{}\"", quoted(d)));
    }
    if params.is_empty() {
        "Bearer".to_owned()
    } else {
        format!("Bearer {}", params.join(", "))
    }
}

/// Text safe inside a quoted string of a header: printable ASCII without `"` and `\`
/// (RFC 6750 limits `error_description` to that set).
fn quoted(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' | '!' | '#'..='[' | ']'..='~' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges() {
        assert_eq!(
            bearer(
                Some("https://h/.well-known/oauth-protected-resource"),
                ErrorCode::None,
                &["a:b".into()],
                None
            ),
            r#"Bearer scope="a:b", resource_metadata="https://h/.well-known/oauth-protected-resource""#
        );
        assert_eq!(
            bearer(None, ErrorCode::InvalidToken, &[], Some("bad \"sig\"\n")),
            r#"Bearer error="invalid_token", error_description="bad ?sig??""#
        );
        assert_eq!(bearer(None, ErrorCode::None, &[], None), "Bearer");
    }
}
