//! The field-value syntax of RFC 9110 that the checks read: comma-separated lists across
//! all lines of a field (§5.6.1), `;`-separated parameters (§5.6.6), tokens (§5.6.2) and
//! quoted strings (§5.6.4). `Accept`, `Content-Type` and `Forwarded` are read through it.

use std::borrow::Cow;

use axum::http::HeaderValue;

/// A field value that does not follow the syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum FieldError {
    /// Not visible ASCII (or tab and space).
    #[error("not visible ASCII")]
    Characters,
    /// A quoted string without its closing quote.
    #[error("an unterminated quoted string")]
    Unterminated,
    /// A name or value that is not a token, a parameter without `=`.
    #[error("malformed")]
    Malformed,
}

/// The non-empty elements of a list field, over every line of it in order.
pub(super) fn list<'a>(
    lines: impl IntoIterator<Item = &'a HeaderValue>,
) -> Result<Vec<&'a str>, FieldError> {
    let mut out = Vec::new();
    for line in lines {
        let text = line.to_str().map_err(|_| FieldError::Characters)?;
        for element in split(text, b',') {
            let element = element?;
            if !element.is_empty() {
                out.push(element);
            }
        }
    }
    Ok(out)
}

/// Splits `text` at every `sep` outside quoted strings; the parts are trimmed of spaces and
/// tabs.
pub(super) fn split(text: &str, sep: u8) -> impl Iterator<Item = Result<&str, FieldError>> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut i = start;
        let mut quoted = false;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if quoted => i += 1,
                b'"' => quoted = !quoted,
                b if b == sep && !quoted => break,
                _ => {}
            }
            i += 1;
        }
        if quoted || i > bytes.len() {
            done = true;
            return Some(Err(FieldError::Unterminated));
        }
        let part = text[start..i].trim_matches([' ', '\t']);
        if i >= bytes.len() {
            done = true;
        }
        start = i + 1;
        Some(Ok(part))
    })
}

/// `name=value` parameters after the first `;`-separated part of `element` (empty parts
/// are skipped, RFC 9110 §5.6.6); names are tokens, values tokens or quoted strings.
pub(super) fn parameters(
    element: &str,
) -> impl Iterator<Item = Result<(&str, Cow<'_, str>), FieldError>> {
    split(element, b';')
        .skip(1)
        .filter(|p| !matches!(p, Ok("")))
        .map(|part| {
            let (name, value) = part?.split_once('=').ok_or(FieldError::Malformed)?;
            if !is_token(name) {
                return Err(FieldError::Malformed);
            }
            Ok((name, value_of(value)?))
        })
}

/// The first `;`-separated part of `element`: the media type of `Accept` and
/// `Content-Type` elements.
pub(super) fn head(element: &str) -> Result<&str, FieldError> {
    split(element, b';').next().unwrap_or(Ok(""))
}

/// A parameter value: a token, or a quoted string with its quoted pairs undone.
pub(super) fn value_of(value: &str) -> Result<Cow<'_, str>, FieldError> {
    let Some(inner) = value.strip_prefix('"') else {
        return if is_token(value) {
            Ok(Cow::Borrowed(value))
        } else {
            Err(FieldError::Malformed)
        };
    };
    let inner = inner.strip_suffix('"').ok_or(FieldError::Unterminated)?;
    if !inner.contains('\\') {
        return if inner.contains('"') {
            Err(FieldError::Malformed)
        } else {
            Ok(Cow::Borrowed(inner))
        };
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next().ok_or(FieldError::Malformed)?),
            '"' => return Err(FieldError::Malformed),
            c => out.push(c),
        }
    }
    Ok(Cow::Owned(out))
}

/// `1*tchar` (RFC 9110 §5.6.2).
pub(super) fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_quoted_commas() {
        let lines = [
            HeaderValue::from_static(r#"a, "b,c";x=1 ,, "#),
            HeaderValue::from_static("d"),
        ];
        assert_eq!(list(&lines).unwrap(), vec!["a", r#""b,c";x=1"#, "d"]);
        let bad = [HeaderValue::from_static(r#"a, "b"#)];
        assert_eq!(list(&bad), Err(FieldError::Unterminated));
    }

    #[test]
    fn parameters_and_values() {
        let params: Vec<_> = parameters(r#"text/html ; q=0.5;; charset="utf\"8""#)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[0], ("q", Cow::Borrowed("0.5")));
        assert_eq!(params[1].1, "utf\"8");
        assert_eq!(head("text/html ; q=1").unwrap(), "text/html");
        assert!(parameters("a; b").next().unwrap().is_err());
        assert!(parameters("a; b=c d").next().unwrap().is_err());
        assert!(value_of("\"a\"b\"").is_err());
        assert!(is_token("application") && !is_token("a/b") && !is_token(""));
    }
}
