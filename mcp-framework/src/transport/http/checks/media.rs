//! Media types of a POST: its `Content-Type` must be `application/json` (RFC 9110 §8.3, any
//! case, parameters allowed), and its `Accept` (§12.5.1: q-values, `*/*`, `type/*`, the most
//! specific range decides, `q=0` refuses) says whether the answer may be JSON, SSE or both.

use axum::http::{HeaderMap, header};

use super::super::fields;

/// How a POST may be answered, by its `Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// JSON, or SSE when the handler streams notifications first.
    Either,
    /// `application/json` only: notifications cannot reach the client.
    JsonOnly,
    /// `text/event-stream` only: every answer to a request is an SSE stream.
    SseOnly,
}

impl Answer {
    /// Whether an SSE stream may answer.
    pub(crate) fn sse(self) -> bool {
        self != Self::JsonOnly
    }
}

/// Why a media-type header is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MediaError {
    /// No `Content-Type`.
    #[error("Unsupported Media Type: Content-Type is missing, send application/json")]
    MissingContentType,
    /// A `Content-Type` other than `application/json`, several of them, or a malformed one.
    #[error("Unsupported Media Type: send application/json")]
    ContentType,
    /// An `Accept` that admits neither answer.
    #[error("Not Acceptable: accept application/json and text/event-stream")]
    NotAcceptable,
}

/// The body must be JSON: exactly one `Content-Type`, `application/json` with any
/// well-formed parameters.
pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), MediaError> {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let value = values.next().ok_or(MediaError::MissingContentType)?;
    if values.next().is_some() {
        return Err(MediaError::ContentType);
    }
    // What every client sends, without parameters: no parsing needed.
    if value.as_bytes().eq_ignore_ascii_case(b"application/json") {
        return Ok(());
    }
    let text = value.to_str().map_err(|_| MediaError::ContentType)?;
    let json = fields::head(text).is_ok_and(|t| t.eq_ignore_ascii_case("application/json"))
        && fields::parameters(text).all(|p| p.is_ok());
    json.then_some(()).ok_or(MediaError::ContentType)
}

/// What `Accept` allows: no `Accept` (or an empty one) allows anything.
pub(crate) fn negotiate(headers: &HeaderMap) -> Result<Answer, MediaError> {
    // What conforming clients send (one line, both types, no weights): no parsing needed.
    let mut lines = headers.get_all(header::ACCEPT).iter();
    if let (Some(only), None) = (lines.next(), lines.next()) {
        let v = only.as_bytes();
        if v.eq_ignore_ascii_case(b"application/json, text/event-stream")
            || v.eq_ignore_ascii_case(b"text/event-stream, application/json")
        {
            return Ok(Answer::Either);
        }
    }
    let Ok(ranges) = fields::list(headers.get_all(header::ACCEPT)) else {
        return Err(MediaError::NotAcceptable);
    };
    if ranges.is_empty() {
        return Ok(Answer::Either);
    }
    let ranges: Vec<Range<'_>> = ranges.into_iter().filter_map(Range::parse).collect();
    let json = quality(&ranges, "application", "json") > 0;
    let sse = quality(&ranges, "text", "event-stream") > 0;
    match (json, sse) {
        (true, true) => Ok(Answer::Either),
        (true, false) => Ok(Answer::JsonOnly),
        (false, true) => Ok(Answer::SseOnly),
        (false, false) => Err(MediaError::NotAcceptable),
    }
}

/// One media range of `Accept` with its weight in thousandths.
#[derive(Debug, PartialEq, Eq)]
struct Range<'a> {
    kind: &'a str,
    subtype: &'a str,
    q: u16,
}

impl<'a> Range<'a> {
    /// `None` for an element that is not `type/subtype` with well-formed parameters (it is
    /// ignored: it cannot name what the server sends).
    fn parse(element: &'a str) -> Option<Self> {
        let (kind, subtype) = fields::head(element).ok()?.split_once('/')?;
        if !fields::is_token(kind) || !fields::is_token(subtype) || kind == "*" && subtype != "*" {
            return None;
        }
        let mut q = 1000;
        for param in fields::parameters(element) {
            let (name, value) = param.ok()?;
            if name.eq_ignore_ascii_case("q") {
                q = qvalue(&value)?;
                break; // what follows the weight are accept-ext parameters
            }
        }
        Some(Self { kind, subtype, q })
    }

    /// 2 for `type/subtype`, 1 for `type/*`, 0 for `*/*`; `None` when it does not match.
    fn specificity(&self, kind: &str, subtype: &str) -> Option<u8> {
        if self.kind == "*" {
            return Some(0);
        }
        if !self.kind.eq_ignore_ascii_case(kind) {
            return None;
        }
        if self.subtype == "*" {
            return Some(1);
        }
        self.subtype.eq_ignore_ascii_case(subtype).then_some(2)
    }
}

/// The weight of `kind/subtype`: that of the most specific matching range (the highest of
/// equally specific ones), 0 when none matches.
fn quality(ranges: &[Range<'_>], kind: &str, subtype: &str) -> u16 {
    ranges
        .iter()
        .filter_map(|r| Some((r.specificity(kind, subtype)?, r.q)))
        .max()
        .map_or(0, |(_, q)| q)
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
fn qvalue(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{fraction:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(name: &header::HeaderName, values: &[&'static str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(name.clone(), HeaderValue::from_static(v));
        }
        h
    }

    fn accept(values: &[&'static str]) -> Result<Answer, MediaError> {
        negotiate(&with(&header::ACCEPT, values))
    }

    #[test]
    fn accept_is_negotiated() {
        use Answer::*;
        let cases: &[(&[&str], Result<Answer, MediaError>)] = &[
            (&[], Ok(Either)),
            (&[""], Ok(Either)),
            (&["application/json, text/event-stream"], Ok(Either)),
            (&["application/json", "text/event-stream"], Ok(Either)),
            (&["*/*"], Ok(Either)),
            (&["application/*, text/*"], Ok(Either)),
            (&["application/json"], Ok(JsonOnly)),
            (&["application/*"], Ok(JsonOnly)),
            (&["APPLICATION/JSON; charset=utf-8"], Ok(JsonOnly)),
            (&["text/event-stream"], Ok(SseOnly)),
            (&["text/*"], Ok(SseOnly)),
            (&["application/json;q=0, text/event-stream"], Ok(SseOnly)),
            (&["*/*, application/json;q=0"], Ok(SseOnly)),
            (&["text/event-stream;q=0, */*"], Ok(JsonOnly)),
            (
                &["application/json;q=0.001, text/event-stream;q=0.000"],
                Ok(JsonOnly),
            ),
            (
                &["application/json;q=0, text/event-stream;q=0"],
                Err(MediaError::NotAcceptable),
            ),
            (&["text/html"], Err(MediaError::NotAcceptable)),
            (
                &["application/jsonx, text/event-streams"],
                Err(MediaError::NotAcceptable),
            ),
            // Malformed ranges name nothing; a bad weight voids its range.
            (&["application/json;q=2, text/event-stream"], Ok(SseOnly)),
            (&["application, text/event-stream"], Ok(SseOnly)),
            (&["*/json"], Err(MediaError::NotAcceptable)),
            (&["application/json;q=1.5"], Err(MediaError::NotAcceptable)),
        ];
        for (values, want) in cases {
            assert_eq!(&accept(values), want, "{values:?}");
        }
    }

    #[test]
    fn content_type_is_exact() {
        for good in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
        ] {
            assert_eq!(
                check_content_type(&with(&header::CONTENT_TYPE, &[good])),
                Ok(()),
                "{good}"
            );
        }
        for bad in [
            "application/jsonx",
            "application/json-seq",
            "text/json",
            "application/json; charset",
            "application/json, text/plain",
            "",
        ] {
            assert_eq!(
                check_content_type(&with(&header::CONTENT_TYPE, &[bad])),
                Err(MediaError::ContentType),
                "{bad}"
            );
        }
        assert_eq!(
            check_content_type(&HeaderMap::new()),
            Err(MediaError::MissingContentType)
        );
        let two = with(
            &header::CONTENT_TYPE,
            &["application/json", "application/json"],
        );
        assert_eq!(check_content_type(&two), Err(MediaError::ContentType));
    }
}
