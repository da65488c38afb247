//! Which browser origins may call the endpoint. A request without `Origin` is not a
//! browser's and passes; one with two `Origin` headers, a value that is not a serialized
//! origin (RFC 6454 §6.2) or an origin not allowed is `403`, as the Streamable HTTP
//! transport requires for an invalid `Origin`. The CORS layer asks the same policy.

use axum::http::{HeaderMap, HeaderValue, header};

use super::authority::{AuthorityError, Origin};

/// Why an `Origin` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OriginError {
    /// More than one `Origin` header.
    #[error("more than one Origin header")]
    Duplicate,
    /// Not a serialized origin.
    #[error("invalid Origin: {0}")]
    Invalid(AuthorityError),
    /// A valid origin that is not allowed.
    #[error("origin not allowed")]
    NotAllowed,
}

/// The origins allowed.
#[derive(Debug, Clone)]
pub(crate) enum OriginPolicy {
    /// `http` and `https` origins on a loopback host (see
    /// [`Host::is_loopback`](super::authority::Host::is_loopback)), any port.
    Loopback,
    /// Every origin, `null` included (`"*"`).
    Any,
    /// These origins (`"null"` may be one of them).
    List(Vec<Origin<'static>>),
}

impl OriginPolicy {
    /// The configured origins, else the loopback ones.
    pub(crate) fn new(allowed: Option<&[String]>) -> Result<Self, (String, AuthorityError)> {
        let Some(allowed) = allowed else {
            return Ok(Self::Loopback);
        };
        if allowed.iter().any(|a| a.trim() == "*") {
            return Ok(Self::Any);
        }
        allowed
            .iter()
            .map(|entry| {
                Origin::parse(entry.trim())
                    .map(Origin::into_owned)
                    .map_err(|e| (entry.clone(), e))
            })
            .collect::<Result<_, _>>()
            .map(Self::List)
    }

    /// Whether origins were listed (rather than the loopback default).
    pub(crate) fn is_configured(&self) -> bool {
        !matches!(self, Self::Loopback)
    }

    /// The `Origin` check of a request.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), OriginError> {
        let mut lines = headers.get_all(header::ORIGIN).iter();
        let Some(value) = lines.next() else {
            return Ok(());
        };
        if lines.next().is_some() {
            return Err(OriginError::Duplicate);
        }
        self.admit(value)
    }

    /// Whether one `Origin` value is a valid origin that is allowed.
    pub(crate) fn admit(&self, value: &HeaderValue) -> Result<(), OriginError> {
        let text = value
            .to_str()
            .map_err(|_| OriginError::Invalid(AuthorityError::Origin))?;
        let origin = Origin::parse(text).map_err(OriginError::Invalid)?;
        let allowed = match self {
            Self::Any => true,
            Self::Loopback => match &origin {
                Origin::Null => false,
                Origin::Tuple { scheme, authority } => {
                    matches!(scheme.as_ref(), "http" | "https") && authority.host.is_loopback()
                }
            },
            Self::List(list) => list.iter().any(|o| o.same(&origin)),
        };
        allowed.then_some(()).ok_or(OriginError::NotAllowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admits(policy: &OriginPolicy, origin: &'static str) -> bool {
        policy.admit(&HeaderValue::from_static(origin)).is_ok()
    }

    #[test]
    fn loopback_by_default() {
        let p = OriginPolicy::new(None).unwrap();
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:8080",
            "http://app.localhost:5173",
        ] {
            assert!(admits(&p, ok), "{ok}");
        }
        for no in [
            "http://evil.example.com",
            "http://localhost:80@evil.com",
            "http://localhost.evil.com",
            "null",
            "file://localhost",
            "http://localhost:3000/",
        ] {
            assert!(!admits(&p, no), "{no}");
        }
    }

    #[test]
    fn configured_origins() {
        let p = OriginPolicy::new(Some(&["https://app.example.com".into()])).unwrap();
        assert!(admits(&p, "https://app.example.com"));
        assert!(admits(&p, "https://app.example.com:443"));
        assert!(!admits(&p, "http://app.example.com"));
        assert!(!admits(&p, "http://localhost:3000"));
        assert!(!admits(&p, "null"));
        let p = OriginPolicy::new(Some(&["null".into()])).unwrap();
        assert!(admits(&p, "null"));
        let p = OriginPolicy::new(Some(&["*".into()])).unwrap();
        assert!(admits(&p, "null") && admits(&p, "https://any.example"));
        assert!(!admits(&p, "https://any.example/path"));
        assert!(OriginPolicy::new(Some(&["https://app.example.com/".into()])).is_err());
        let mut two = HeaderMap::new();
        two.append(header::ORIGIN, HeaderValue::from_static("http://localhost"));
        two.append(header::ORIGIN, HeaderValue::from_static("http://localhost"));
        assert_eq!(
            OriginPolicy::new(None).unwrap().check(&two),
            Err(OriginError::Duplicate)
        );
    }
}
