//! Server Cards (SEP-2127): the static document that describes this server before anyone
//! connects — its reverse-DNS name, version, title, description, icons, website and
//! repository, and the Streamable HTTP endpoints it serves (`remotes`) with the protocol
//! versions each speaks — and the AI Catalog entry that lists it for domain-level discovery
//! (`/.well-known/ai-catalog.json`). Built once from what the server already knows (the
//! same name, version and versions `server/discover` gives), checked at `build()` against
//! the card schema's rules; the HTTP transport serves it (`transport/http/card.rs`).

use serde_json::{Value, json};

use crate::protocol::{Implementation, ProtocolVersion};

/// The card's media type.
pub(crate) const CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";
/// The AI Catalog's media type.
pub(crate) const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";
/// The members the card schema defines: an extension adds others.
const CARD_MEMBERS: &[&str] = &[
    "$schema",
    "_meta",
    "name",
    "version",
    "description",
    "title",
    "icons",
    "websiteUrl",
    "repository",
    "remotes",
];
/// The schema every card names.
const CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// What a Server Card needs that the server cannot know: its reverse-DNS name, where it is
/// reached from outside, its source repository, and whether to list it in an AI Catalog.
/// Given to [`ServerBuilder::server_card`](crate::ServerBuilder::server_card).
///
/// ```
/// use mcp_framework::ServerCard;
/// let card = ServerCard::new("com.example/notes")
///     .public_url("https://notes.example.com/mcp")
///     .repository("github", "https://github.com/example/notes")
///     .ai_catalog("urn:air:example.com:mcp:notes");
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ServerCard {
    pub(crate) name: String,
    pub(crate) public_urls: Vec<String>,
    pub(crate) repository: Option<(String, String)>,
    pub(crate) catalog_identifier: Option<String>,
}

impl ServerCard {
    /// A card for the server named `name` in reverse-DNS form, exactly one `/` between
    /// namespace and name (`com.example/notes`, `io.github.someone/notes`).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            public_urls: Vec::new(),
            repository: None,
            catalog_identifier: None,
        }
    }

    /// A URL the endpoint is reached at from outside (behind a proxy or a load balancer);
    /// repeat for several. Without one, each request's card names the endpoint as that
    /// request reached it (`http://<Host><path>`).
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_urls.push(url.into());
        self
    }

    /// The source repository: its host (`github`, `gitlab`…) and URL.
    pub fn repository(mut self, source: impl Into<String>, url: impl Into<String>) -> Self {
        self.repository = Some((source.into(), url.into()));
        self
    }

    /// Also serves an AI Catalog at `/.well-known/ai-catalog.json` listing this card under
    /// `identifier` (`urn:air:{publisher}:{namespace}:{name}`).
    pub fn ai_catalog(mut self, identifier: impl Into<String>) -> Self {
        self.catalog_identifier = Some(identifier.into());
        self
    }
}

/// A checked card: the document without its remotes (added per request when no public URL
/// is set), and the catalog entry's identifier.
#[derive(Debug, Clone)]
pub(crate) struct Card {
    document: serde_json::Map<String, Value>,
    public_urls: Vec<String>,
    pub(crate) catalog_identifier: Option<String>,
}

impl Card {
    /// Checks `card` and the server's identity against the card schema's rules; every
    /// problem is named.
    /// `members` are the extensions' own (which extension, the member, its value), checked
    /// not to be the card's.
    pub(crate) fn new(
        card: ServerCard,
        info: &Implementation,
        members: &[(String, String, Value)],
    ) -> Result<Self, String> {
        let mut problems = Vec::new();
        for (extension, name, _) in members {
            if CARD_MEMBERS.contains(&name.as_str()) {
                problems.push(format!(
                    "`{extension}` adds `{name}`, a member the card defines itself"
                ));
            }
        }
        if !is_reverse_dns(&card.name) {
            problems.push(format!(
                "the card name `{}` is not reverse-DNS with one `/` (`com.example/notes`)",
                card.name
            ));
        }
        let description = info.description.clone().or_else(|| info.title.clone());
        match &description {
            None => problems.push(
                "a Server Card needs a description: ServerBuilder::description(…)".to_owned(),
            ),
            Some(d) if d.chars().count() > 100 => problems.push(format!(
                "a Server Card's description is at most 100 characters (this one has {})",
                d.chars().count()
            )),
            Some(d) if d.is_empty() => {
                problems.push("a Server Card's description is empty".to_owned());
            }
            Some(_) => {}
        }
        if info.version.is_empty() || info.version.chars().count() > 255 {
            problems.push("a Server Card's version is 1 to 255 characters".to_owned());
        }
        for url in &card.public_urls {
            if !(url.starts_with("http://") || url.starts_with("https://"))
                || url.chars().any(char::is_whitespace)
            {
                problems.push(format!("the public URL `{url}` is not an http(s) URL"));
            }
        }
        if let Some(id) = &card.catalog_identifier
            && (id.is_empty() || id.chars().any(char::is_whitespace))
        {
            problems.push(format!("the AI Catalog identifier `{id}` is not usable"));
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let mut document = serde_json::Map::new();
        document.insert("$schema".into(), CARD_SCHEMA.into());
        document.insert("name".into(), card.name.into());
        document.insert("version".into(), info.version.clone().into());
        document.insert(
            "description".into(),
            description.expect("checked above").into(),
        );
        if let Some(title) = &info.title {
            document.insert("title".into(), title.clone().into());
        }
        if let Some(icons) = info.icons.as_ref().filter(|i| !i.is_empty()) {
            document.insert(
                "icons".into(),
                serde_json::to_value(icons).expect("icons serialize"),
            );
        }
        if let Some(url) = &info.website_url {
            document.insert("websiteUrl".into(), url.clone().into());
        }
        if let Some((source, url)) = card.repository {
            document.insert("repository".into(), json!({"source": source, "url": url}));
        }
        for (_, name, value) in members {
            document.insert(name.clone(), value.clone());
        }
        Ok(Self {
            document,
            public_urls: card.public_urls,
            catalog_identifier: card.catalog_identifier,
        })
    }

    /// The card's URL under the first public URL, if one is set.
    pub(crate) fn public_card_url(&self) -> Option<String> {
        self.public_urls
            .first()
            .map(|url| format!("{}/server-card", url.trim_end_matches('/')))
    }

    /// The card, with `reached` (the endpoint as the request reached it) as its remote when
    /// no public URL is set.
    pub(crate) fn document(&self, reached: Option<&str>) -> Value {
        let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        let urls: Vec<&str> = if self.public_urls.is_empty() {
            reached.into_iter().collect()
        } else {
            self.public_urls.iter().map(String::as_str).collect()
        };
        let mut document = self.document.clone();
        if !urls.is_empty() {
            let remotes: Vec<Value> = urls
                .into_iter()
                .map(|url| {
                    json!({
                        "type": "streamable-http",
                        "url": url,
                        "supportedProtocolVersions": versions,
                    })
                })
                .collect();
            document.insert("remotes".into(), Value::Array(remotes));
        }
        Value::Object(document)
    }

    /// The AI Catalog listing this card at `card_url`.
    pub(crate) fn catalog(&self, card_url: &str) -> Option<Value> {
        let identifier = self.catalog_identifier.as_ref()?;
        Some(json!({
            "specVersion": "1.0",
            "entries": [{
                "identifier": identifier,
                "type": CARD_MEDIA_TYPE,
                "url": card_url,
            }],
        }))
    }
}

/// `namespace/name` as the card schema's `name` pattern allows
/// (`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200 characters).
fn is_reverse_dns(name: &str) -> bool {
    let Some((namespace, rest)) = name.split_once('/') else {
        return false;
    };
    (3..=200).contains(&name.len())
        && !namespace.is_empty()
        && !rest.is_empty()
        && namespace
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_schema_pattern() {
        assert!(is_reverse_dns("com.example/notes"));
        assert!(is_reverse_dns("io.github.some-one/notes_v2.1"));
        assert!(!is_reverse_dns("notes"));
        assert!(!is_reverse_dns("a/b/c"));
        assert!(!is_reverse_dns("com.example/"));
        assert!(!is_reverse_dns("com example/notes"));
    }

    #[test]
    fn every_problem_is_named() {
        let info = Implementation {
            name: "notes".into(),
            version: "1.0.0".into(),
            description: Some("x".repeat(101)),
            ..Implementation::default()
        };
        let e = Card::new(ServerCard::new("notes").public_url("ftp://x"), &info, &[]).unwrap_err();
        assert!(e.contains("`notes` is not reverse-DNS"), "{e}");
        assert!(
            e.contains("at most 100 characters (this one has 101)"),
            "{e}"
        );
        assert!(e.contains("`ftp://x` is not an http(s) URL"), "{e}");
    }
}
