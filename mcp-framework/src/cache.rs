//! Caching hints (`ttlMs`, `cacheScope`) and the serialized-once list pages.

use std::sync::OnceLock;

use base64::Engine as _;
use bytes::Bytes;

use crate::protocol::{CacheScope, ErrorObject, ProtocolVersion};

/// A caching hint: how long a result stays fresh and who may share it. Built with
/// [`public`](Self::public) or [`private`](Self::private).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CachePolicy {
    /// Freshness in milliseconds (`0` = immediately stale).
    pub ttl_ms: u64,
    /// Whether shared caches may keep it.
    pub scope: CacheScope,
}

impl CachePolicy {
    /// Fresh for `ttl_ms`, shareable across users.
    pub const fn public(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl_ms`, reusable only within the same authorization context.
    pub const fn private(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Private,
        }
    }
}

/// The results that carry caching hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cacheable {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `resources/read` (overridable per resource).
    Read,
}

/// Server-wide caching hints, per kind of result.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CacheConfig {
    pub(crate) discover: CachePolicy,
    pub(crate) tools: CachePolicy,
    pub(crate) prompts: CachePolicy,
    pub(crate) resources: CachePolicy,
    pub(crate) templates: CachePolicy,
    pub(crate) read: CachePolicy,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            // Versions and capabilities do not change while the process runs.
            discover: CachePolicy::public(3_600_000),
            // Lists can change at run time; `list_changed` invalidates sooner.
            tools: CachePolicy::public(60_000),
            prompts: CachePolicy::public(60_000),
            resources: CachePolicy::public(60_000),
            templates: CachePolicy::public(60_000),
            // Contents may be per user: nothing shared, nothing assumed fresh.
            read: CachePolicy::private(0),
        }
    }
}

impl CacheConfig {
    pub(crate) fn set(&mut self, kind: Cacheable, policy: CachePolicy) {
        match kind {
            Cacheable::Discover => self.discover = policy,
            Cacheable::Tools => self.tools = policy,
            Cacheable::Prompts => self.prompts = policy,
            Cacheable::Resources => self.resources = policy,
            Cacheable::ResourceTemplates => self.templates = policy,
            Cacheable::Read => self.read = policy,
        }
    }

    /// Sets every list kind and discover at once.
    pub(crate) fn set_all(&mut self, policy: CachePolicy) {
        self.discover = policy;
        self.tools = policy;
        self.prompts = policy;
        self.resources = policy;
        self.templates = policy;
        self.read = policy;
    }

    pub(crate) fn for_list(&self, kind: ListKind) -> CachePolicy {
        match kind {
            ListKind::Tools => self.tools,
            ListKind::Prompts => self.prompts,
            ListKind::Resources => self.resources,
            ListKind::Templates => self.templates,
        }
    }
}

/// The four paginated lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

impl ListKind {
    const ALL: [Self; 4] = [Self::Tools, Self::Prompts, Self::Resources, Self::Templates];

    fn tag(self) -> char {
        match self {
            Self::Tools => 't',
            Self::Prompts => 'p',
            Self::Resources => 'r',
            Self::Templates => 'u',
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Opaque cursors: the list kind and the page number, base64url-encoded.
pub(crate) fn encode_cursor(kind: ListKind, page: usize) -> String {
    encode_page(kind.tag(), page)
}

/// Decodes a cursor for `kind`; `-32602` when it is not one this server issued.
pub(crate) fn decode_cursor(
    kind: ListKind,
    cursor: &str,
    pages: usize,
) -> Result<usize, ErrorObject> {
    decode_page(kind.tag(), cursor, pages)
}

/// The cursor of page `page` of a paginated answer tagged `tag` (a list kind, or another
/// paginated method's own letter).
pub(crate) fn encode_page(tag: char, page: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{tag}{page}"))
}

/// The page a cursor of [`encode_page`] names, among `pages`; `-32602` otherwise.
pub(crate) fn decode_page(tag: char, cursor: &str, pages: usize) -> Result<usize, ErrorObject> {
    let invalid = || ErrorObject::invalid_params(format!("Invalid cursor: {cursor:?}"));
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| invalid())?;
    let text = std::str::from_utf8(&raw).map_err(|_| invalid())?;
    let page: usize = text
        .strip_prefix(tag)
        .and_then(|n| n.parse().ok())
        .ok_or_else(invalid)?;
    if page == 0 || page >= pages.max(1) {
        return Err(invalid());
    }
    Ok(page)
}

const VERSIONS: usize = ProtocolVersion::ALL.len();

fn version_index(v: ProtocolVersion) -> usize {
    ProtocolVersion::ALL
        .iter()
        .position(|x| *x == v)
        .expect("every version is in ALL")
}

/// Rendered list pages for one catalog generation: filled on first use, then served as
/// shared bytes until the catalog changes (a new catalog starts with an empty cache).
#[derive(Debug)]
pub(crate) struct PageCache {
    pages: [[Box<[OnceLock<Bytes>]>; VERSIONS]; 4],
}

impl PageCache {
    pub(crate) fn new(page_counts: [usize; 4]) -> Self {
        Self {
            pages: ListKind::ALL.map(|k| {
                std::array::from_fn(|_| {
                    (0..page_counts[k.index()].max(1))
                        .map(|_| OnceLock::new())
                        .collect()
                })
            }),
        }
    }

    /// The cached bytes of a page, rendering them with `render` the first time.
    pub(crate) fn get_or_render(
        &self,
        kind: ListKind,
        version: ProtocolVersion,
        page: usize,
        render: impl FnOnce() -> Bytes,
    ) -> Bytes {
        self.pages[kind.index()][version_index(version)][page]
            .get_or_init(render)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = encode_cursor(ListKind::Tools, 3);
        assert_eq!(decode_cursor(ListKind::Tools, &c, 5).unwrap(), 3);
        assert!(decode_cursor(ListKind::Prompts, &c, 5).is_err());
        assert!(decode_cursor(ListKind::Tools, &c, 3).is_err());
        assert!(decode_cursor(ListKind::Tools, "not a cursor!", 5).is_err());
        assert!(decode_cursor(ListKind::Tools, "", 5).is_err());
        assert!(decode_cursor(ListKind::Tools, &encode_cursor(ListKind::Tools, 0), 5).is_err());
    }

    #[test]
    fn pages_render_once() {
        let cache = PageCache::new([2, 1, 1, 1]);
        let mut calls = 0;
        for _ in 0..3 {
            let b = cache.get_or_render(ListKind::Tools, ProtocolVersion::LATEST, 1, || {
                calls += 1;
                Bytes::from_static(b"{}")
            });
            assert_eq!(&b[..], b"{}");
        }
        assert_eq!(calls, 1);
    }
}
