//! RFC 6570 URI templates: parsing, and matching a concrete URI back to variable values
//! (what `resources/read` needs to find the template a URI belongs to).
//!
//! Supported: all eight expression operators (`{var}`, `{+var}`, `{#var}`, `{.var}`,
//! `{/var}`, `{;var}`, `{?var}`, `{&var}`), several variables per expression, the explode
//! modifier (`*`, matched values keep their separators) and prefix modifiers (`:n`).
//!
//! Matching is linear in the length of the URI, whatever the client sends: each template is
//! compiled once into a regular expression (the `regex` crate, which never backtracks) that
//! finds where every expression's expansion begins and ends, and each expansion is then
//! decoded once. Where a backtracking matcher would try every split point, the expression
//! gets the expansion the regular expression chose: the shortest that lets the rest match,
//! or the longest for `{+var}` and `{#var}`.

use std::fmt;
use std::fmt::Write as _;

use regex::{Regex, RegexBuilder};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expr { op: Op, vars: Vec<Var> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Var {
    name: String,
    explode: bool,
    prefix: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn first(self) -> &'static str {
        match self {
            Self::Simple | Self::Reserved => "",
            Self::Fragment => "#",
            Self::Label => ".",
            Self::Path => "/",
            Self::PathParam => ";",
            Self::Query => "?",
            Self::QueryCont => "&",
        }
    }

    fn sep(self) -> char {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => ',',
            Self::Label => '.',
            Self::Path => '/',
            Self::PathParam => ';',
            Self::Query | Self::QueryCont => '&',
        }
    }

    fn named(self) -> bool {
        matches!(self, Self::PathParam | Self::Query | Self::QueryCont)
    }

    /// Whether expanded values may contain reserved characters (`/`, `?`, `#`…) unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }

    /// Whether each value (each exploded item) is one path segment once decoded: `{var}`,
    /// `{/var}`, `{.var}` and `{;var}` refuse `/`, `\`, NUL, `.` and `..` even when
    /// percent-encoded. `{+var}` and `{#var}` keep reserved expansion (their values are
    /// untrusted paths), and query values are not path segments.
    fn one_segment(self) -> bool {
        matches!(
            self,
            Self::Simple | Self::Path | Self::Label | Self::PathParam
        )
    }

    /// A regular expression for the whole expansion of an expression with this operator
    /// (prefix and separators included; no capture groups). Non-reserved expansions are as
    /// short as possible and stop at the characters they cannot contain; `{+var}` and
    /// `{#var}` take as much as they can. Only `{var}` and `{+var}` must expand to something.
    fn chunk_pattern(self) -> &'static str {
        match self {
            Self::Simple => r"[^/?#\[\]@]+?",
            Self::Reserved => r"(?s:.+)",
            Self::Fragment => r"(?s:#.*)?",
            Self::Label => r"(?:\.[^/?#\[\]@]*?)??",
            Self::Path => r"(?:/[^?#\[\]@]*?)??",
            Self::PathParam => r"(?:;[^/?#\[\]@]*?)??",
            Self::Query => r"(?:\?[^/?#\[\]@]*?)??",
            Self::QueryCont => r"(?:&[^/?#\[\]@]*?)??",
        }
    }
}

/// A parsed URI template.
#[derive(Clone)]
pub(crate) struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    /// The whole template as an anchored regular expression, one capture group per
    /// expression (in order).
    matcher: Regex,
}

impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for UriTemplate {}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn is_varchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%'
}

impl UriTemplate {
    /// Parses `source`; the error says what is wrong.
    pub(crate) fn parse(source: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = source;
        while let Some(c) = rest.chars().next() {
            if c == '{' {
                let end = rest
                    .find('}')
                    .ok_or_else(|| format!("unclosed `{{` in URI template `{source}`"))?;
                let body = &rest[1..end];
                rest = &rest[end + 1..];
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts
                    .push(parse_expr(body).map_err(|e| format!("{e} in URI template `{source}`"))?);
            } else if c == '}' {
                return Err(format!("unmatched `}}` in URI template `{source}`"));
            } else {
                literal.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        let mut names = Vec::new();
        for part in &parts {
            if let Part::Expr { vars, .. } = part {
                for v in vars {
                    if names.contains(&v.name) {
                        return Err(format!(
                            "variable `{}` appears twice in URI template `{source}`",
                            v.name
                        ));
                    }
                    names.push(v.name.clone());
                }
            }
        }
        let mut pattern = String::from("^");
        for part in &parts {
            match part {
                Part::Literal(lit) => pattern.push_str(&regex::escape(lit)),
                Part::Expr { op, .. } => {
                    let _ = write!(pattern, "({})", op.chunk_pattern());
                }
            }
        }
        pattern.push('$');
        let matcher = RegexBuilder::new(&pattern)
            .build()
            .map_err(|e| format!("URI template `{source}` cannot be compiled: {e}"))?;
        Ok(Self {
            source: source.to_owned(),
            parts,
            matcher,
        })
    }

    /// The variable names, in order of appearance.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|p| match p {
            Part::Expr { vars, .. } => vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            Part::Literal(_) => Vec::new(),
        })
    }

    /// Matches a concrete URI: the decoded value of every variable present in it, or `None`
    /// when the URI is not an expansion of this template. Linear in the URI's length.
    pub(crate) fn match_uri(&self, uri: &str) -> Option<Vec<(String, String)>> {
        // The DFA alone answers "no" about twice as fast as a search for the groups.
        if !self.matcher.is_match(uri) {
            return None;
        }
        let captures = self.matcher.captures(uri)?;
        let expressions = self.parts.iter().filter_map(|p| match p {
            Part::Expr { op, vars } => Some((*op, vars)),
            Part::Literal(_) => None,
        });
        let mut out = Vec::new();
        for (chunk, (op, vars)) in captures.iter().skip(1).zip(expressions) {
            let chunk = chunk.map_or("", |m| m.as_str());
            if !match_expr(op, vars, chunk, &mut out) {
                return None;
            }
        }
        Some(out)
    }
}

fn parse_expr(body: &str) -> Result<Part, String> {
    let (op, list) = match body.chars().next() {
        Some('+') => (Op::Reserved, &body[1..]),
        Some('#') => (Op::Fragment, &body[1..]),
        Some('.') => (Op::Label, &body[1..]),
        Some('/') => (Op::Path, &body[1..]),
        Some(';') => (Op::PathParam, &body[1..]),
        Some('?') => (Op::Query, &body[1..]),
        Some('&') => (Op::QueryCont, &body[1..]),
        Some('=' | ',' | '!' | '@' | '|') => {
            return Err(format!("reserved operator in `{{{body}}}`"));
        }
        Some(_) => (Op::Simple, body),
        None => return Err("empty expression `{}`".into()),
    };
    let mut vars = Vec::new();
    for spec in list.split(',') {
        let (name, explode, prefix) = if let Some(name) = spec.strip_suffix('*') {
            (name, true, None)
        } else if let Some((name, n)) = spec.split_once(':') {
            let n: usize = n
                .parse()
                .ok()
                .filter(|n| (1..10000).contains(n))
                .ok_or_else(|| format!("bad prefix length in `{{{body}}}`"))?;
            (name, false, Some(n))
        } else {
            (spec, false, None)
        };
        if name.is_empty() || !name.chars().all(is_varchar) {
            return Err(format!("bad variable name `{name}`"));
        }
        vars.push(Var {
            name: name.to_owned(),
            explode,
            prefix,
        });
    }
    Ok(Part::Expr { op, vars })
}

fn match_expr(op: Op, vars: &[Var], chunk: &str, out: &mut Vec<(String, String)>) -> bool {
    if chunk.is_empty() {
        // Every variable undefined. Plain `{var}` must match something.
        return op.named() || !matches!(op, Op::Simple | Op::Reserved);
    }
    let Some(body) = chunk.strip_prefix(op.first()) else {
        return false;
    };
    if !op.allows_reserved()
        && body
            .chars()
            .any(|c| matches!(c, '/' | '?' | '#' | '[' | ']' | '@') && op != Op::Path)
    {
        return false;
    }
    if op == Op::Path && body.contains(['?', '#']) {
        return false;
    }
    if op.named() {
        return match_named(op, vars, body, out);
    }
    let sep = op.sep();
    // One variable takes the whole body (exploded lists keep their separators).
    if vars.len() == 1 {
        let v = &vars[0];
        if !v.explode && sep != ',' && body.contains(sep) {
            return false;
        }
        if !v.explode && op == Op::Path && body.contains('/') {
            return false;
        }
        return push_value(v, body, op, out);
    }
    let pieces: Vec<&str> = body.split(sep).collect();
    if pieces.len() > vars.len() {
        return false;
    }
    for (v, piece) in vars.iter().zip(pieces) {
        if !push_value(v, piece, op, out) {
            return false;
        }
    }
    true
}

fn match_named(op: Op, vars: &[Var], body: &str, out: &mut Vec<(String, String)>) -> bool {
    let sep = op.sep();
    for pair in body.split(sep) {
        let (name, value) = match pair.split_once('=') {
            Some((n, v)) => (n, v),
            None if op == Op::PathParam => (pair, ""),
            None => return false,
        };
        let Some(var) = vars.iter().find(|v| v.name == name) else {
            return false;
        };
        if out.iter().any(|(n, _)| n == name) {
            return false;
        }
        if !push_value(var, value, op, out) {
            return false;
        }
    }
    true
}

fn push_value(var: &Var, raw: &str, op: Op, out: &mut Vec<(String, String)>) -> bool {
    if raw.is_empty() && matches!(op, Op::Simple | Op::Reserved) {
        return false;
    }
    let Some(decoded) = percent_decode(raw) else {
        return false;
    };
    if op.one_segment() {
        // An exploded `{/path*}` keeps its separators: each of its segments is one.
        let sep = op.sep();
        let segments: Vec<&str> = if var.explode {
            raw.split(sep).collect()
        } else {
            vec![raw]
        };
        for segment in segments {
            if !percent_decode(segment).is_some_and(|s| is_segment(&s)) {
                return false;
            }
        }
    }
    if let Some(n) = var.prefix
        && decoded.chars().count() > n
    {
        return false;
    }
    out.push((var.name.clone(), decoded));
    true
}

/// Whether a decoded value is one path segment a handler can use as a name: no `/` or `\`
/// (an encoded `%2F` included), no NUL, and not `.` or `..`.
fn is_segment(decoded: &str) -> bool {
    !decoded.contains(['/', '\\', '\0']) && decoded != "." && decoded != ".."
}

/// Decodes `%XX` escapes; `None` for malformed escapes or invalid UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().match_uri(uri)
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(p.iter().map(|(a, b)| ((*a).into(), (*b).into())).collect())
    }

    #[test]
    fn simple_variables() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/123/data"),
            pairs(&[("id", "123")])
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(m("users/{id}", "users/a%20b"), pairs(&[("id", "a b")]));
        assert_eq!(m("x/{a},{b}", "x/1,2"), pairs(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x/{a}", "y/1"), None);
    }

    #[test]
    fn reserved_and_paths() {
        assert_eq!(
            m("file:///{+path}", "file:///a/b/c.txt"),
            pairs(&[("path", "a/b/c.txt")])
        );
        assert_eq!(m("file:///{path}", "file:///a/b"), None);
        assert_eq!(
            m("repo{/owner,name}", "repo/o/n"),
            pairs(&[("owner", "o"), ("name", "n")])
        );
        assert_eq!(m("files{/path*}", "files/a/b"), pairs(&[("path", "a/b")]));
        assert_eq!(
            m("doc{#section}", "doc#intro"),
            pairs(&[("section", "intro")])
        );
        assert_eq!(m("host{.domain}", "host.com"), pairs(&[("domain", "com")]));
    }

    #[test]
    fn queries() {
        assert_eq!(
            m("search{?q,lang}", "search?lang=en&q=rust"),
            pairs(&[("lang", "en"), ("q", "rust")])
        );
        assert_eq!(m("search{?q,lang}", "search"), pairs(&[]));
        assert_eq!(m("search{?q}", "search?x=1"), None);
        assert_eq!(m("a{;x}", "a;x=1"), pairs(&[("x", "1")]));
    }

    #[test]
    fn the_rest_of_the_template_decides_where_an_expression_ends() {
        assert_eq!(
            m("x/{a}.json", "x/foo.bar.json"),
            pairs(&[("a", "foo.bar")])
        );
        assert_eq!(
            m("x/{a}-{b}", "x/1-2-3"),
            pairs(&[("a", "1"), ("b", "2-3")])
        );
        assert_eq!(
            m("{+base}/{name}", "http://h/a/b"),
            pairs(&[("base", "http://h/a"), ("name", "b")])
        );
        assert_eq!(m("a{/x}{?q}", "a/1?q=2"), pairs(&[("x", "1"), ("q", "2")]));
        assert_eq!(m("a{/x}{?q}", "a"), pairs(&[]));
    }

    #[test]
    fn one_segment_values_stay_one_segment_once_decoded() {
        let data = "test://template/{id}/data";
        for bad in [
            "..%2F..%2Fetc%2Fpasswd",
            "..",
            ".",
            "%2E%2E",
            "a%5Cb",
            "a%00b",
            "a%2fb",
        ] {
            assert_eq!(
                m(data, &format!("test://template/{bad}/data")),
                None,
                "{bad}"
            );
        }
        assert_eq!(
            m(data, "test://template/...x/data"),
            pairs(&[("id", "...x")])
        );
        assert_eq!(m(data, "test://template/a.b/data"), pairs(&[("id", "a.b")]));
        assert_eq!(m("repo{/owner}", "repo/%2E%2E"), None);
        assert_eq!(m("files{/path*}", "files/a/../b"), None);
        assert_eq!(m("files{/path*}", "files/a/%2F/b"), None);
        assert_eq!(m("host{.domain}", "host.%2F"), None);
        assert_eq!(m("a{;x}", "a;x=.."), None);
        // Reserved expansion keeps its meaning: the handler gets an untrusted path.
        assert_eq!(
            m("file:///{+path}", "file:///a/../b"),
            pairs(&[("path", "a/../b")])
        );
        // Query values are not path segments.
        assert_eq!(m("search{?q}", "search?q=.."), pairs(&[("q", "..")]));
    }

    #[test]
    fn huge_uris_are_matched_in_one_pass() {
        // A backtracking matcher takes time quadratic in the length (and worse with more
        // expressions); this one reads each byte once.
        let t = UriTemplate::parse("test://{a}/{b}/{c}/x").unwrap();
        let long = "z".repeat(1 << 18);
        assert_eq!(t.match_uri(&format!("test://{long}/{long}/{long}/y")), None);
        let hit = t.match_uri(&format!("test://{long}/b/c/x")).unwrap();
        assert_eq!(hit[0].1.len(), 1 << 18);
        let t = UriTemplate::parse("file:///{+path}.txt").unwrap();
        assert_eq!(t.match_uri(&format!("file:///{long}/{long}.md")), None);
    }

    #[test]
    fn rejects_bad_templates() {
        assert!(UriTemplate::parse("a/{").is_err());
        assert!(UriTemplate::parse("a/}").is_err());
        assert!(UriTemplate::parse("a/{}").is_err());
        assert!(UriTemplate::parse("a/{x}/{x}").is_err());
        assert!(UriTemplate::parse("a/{b c}").is_err());
        let t = UriTemplate::parse("a/{x}{?y,z}").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["x", "y", "z"]);
    }
}
