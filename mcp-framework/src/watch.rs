//! Which resource changes a subscriber hears of: the one rule every subscription to resource
//! URIs passes (a `subscriptions/listen` stream's `resourceSubscriptions`, a legacy
//! session's `resources/subscribe`), and the match of a changed URI against what was
//! subscribed.
//!
//! A subscription names something the subscriber may read: a concrete resource, or a URI a
//! template matches, through the same access check as `resources/read` (a hidden item is
//! not found, a lacking caller gets the scope challenge). A subscriber watches at most
//! `max_resource_subscriptions` URIs of at most `max_uri_bytes` each and
//! [`MAX_WATCHED_BYTES`] in all, each once; more is refused, never dropped silently.
//!
//! A change reaches the subscriber when its URI is one it watches, or lies below one that
//! ends in `/` after a non-empty path (`file:///dir/` covers `file:///dir/a.txt`; `notes:`,
//! `notes://` and `notes://host/` cover nothing below them), and when the subscriber may
//! still see the changed item in the catalog of that moment (catalogs change; a URI no
//! entry names is judged by the subscription that covers it).

use crate::catalog::FoundResource;
use crate::principal::{Access, Principal, Requirement};
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::runtime::state::ServerInner;

/// The most bytes of URIs one subscriber watches in all (listen stream or legacy session).
pub(crate) const MAX_WATCHED_BYTES: usize = 256 * 1024;

/// The resource URIs one subscriber watches, and who it is.
#[derive(Debug, Default)]
pub(crate) struct Watched {
    /// Sorted, each once.
    uris: Vec<Box<str>>,
    /// Those that cover the URIs below them (see [`covers_below`]), sorted.
    dirs: Vec<Box<str>>,
    bytes: usize,
    /// Whose access deliveries are judged by (a legacy session: its latest subscriber).
    principal: Option<Principal>,
}

/// Whether `uri` covers the URIs below it: it ends in `/` after a path with at least one
/// segment. A bare scheme (`notes:`) or authority (`notes://host/`) never does.
fn covers_below(uri: &str) -> bool {
    let Some((_, rest)) = uri.split_once(':') else {
        return false;
    };
    let path = match rest.strip_prefix("//") {
        Some(after) => after.find('/').map_or("", |i| &after[i..]),
        None => rest,
    };
    path.ends_with('/') && !path.trim_matches('/').is_empty()
}

impl Watched {
    /// Nothing watched yet, for `principal`.
    pub(crate) fn new(principal: Option<Principal>) -> Self {
        Self {
            principal,
            ..Self::default()
        }
    }

    /// A listen stream's list: every URI admitted (see [`admit`]), each kept once; the
    /// first refusal refuses the whole list.
    pub(crate) fn of_list(
        server: &ServerInner,
        principal: Option<Principal>,
        version: ProtocolVersion,
        uris: Vec<String>,
    ) -> Result<Self, ErrorObject> {
        let mut watched = Self::new(principal);
        for uri in uris {
            watched.add(server, version, uri)?;
        }
        Ok(watched)
    }

    /// Watches one more URI (a legacy `resources/subscribe`), for `principal` from now on.
    pub(crate) fn subscribe(
        &mut self,
        server: &ServerInner,
        principal: Option<Principal>,
        version: ProtocolVersion,
        uri: String,
    ) -> Result<(), ErrorObject> {
        self.principal = principal;
        self.add(server, version, uri)
    }

    fn add(
        &mut self,
        server: &ServerInner,
        version: ProtocolVersion,
        uri: String,
    ) -> Result<(), ErrorObject> {
        let Err(at) = self.uris.binary_search_by(|u| (**u).cmp(&uri)) else {
            return Ok(());
        };
        let max = server.config.listen.max_resource_subscriptions;
        if self.uris.len() >= max {
            return Err(ErrorObject::invalid_params(format!(
                "A subscriber watches at most {max} resources"
            ))
            .with_data(serde_json::json!({ "maxResourceSubscriptions": max })));
        }
        if self.bytes + uri.len() > MAX_WATCHED_BYTES {
            return Err(ErrorObject::invalid_params(format!(
                "A subscriber watches at most {MAX_WATCHED_BYTES} bytes of resource URIs"
            ))
            .with_data(serde_json::json!({ "maxResourceSubscriptionBytes": MAX_WATCHED_BYTES })));
        }
        admit(server, self.principal.as_ref(), version, &uri)?;
        self.bytes += uri.len();
        let uri = uri.into_boxed_str();
        if covers_below(&uri)
            && let Err(d) = self.dirs.binary_search(&uri)
        {
            self.dirs.insert(d, uri.clone());
        }
        self.uris.insert(at, uri);
        Ok(())
    }

    /// Stops watching `uri`.
    pub(crate) fn remove(&mut self, uri: &str) {
        if let Ok(at) = self.uris.binary_search_by(|u| (**u).cmp(uri)) {
            self.bytes -= uri.len();
            self.uris.remove(at);
            if let Ok(d) = self.dirs.binary_search_by(|u| (**u).cmp(uri)) {
                self.dirs.remove(d);
            }
        }
    }

    /// The watched URIs, sorted.
    pub(crate) fn uris(&self) -> Vec<String> {
        self.uris.iter().map(|u| u.to_string()).collect()
    }

    /// The watched URI that covers `changed`: itself, or the nearest one ending in `/`
    /// above it.
    fn covering<'a>(&'a self, changed: &str) -> Option<&'a str> {
        if let Ok(at) = self.uris.binary_search_by(|u| (**u).cmp(changed)) {
            return Some(&self.uris[at]);
        }
        if self.dirs.is_empty() {
            return None;
        }
        changed
            .char_indices()
            .filter(|&(i, c)| c == '/' && i + 1 < changed.len())
            .rev()
            .find_map(|(i, _)| {
                let above = &changed[..=i];
                let at = self.dirs.binary_search_by(|u| (**u).cmp(above)).ok()?;
                Some(&*self.dirs[at])
            })
    }

    /// Whether a change of `changed` reaches this subscriber: it watches it (or a URI
    /// above it), and may read it in the server's catalog of now. A URI no entry names is
    /// judged by the watched URI that covers it.
    pub(crate) fn hears(&self, server: &ServerInner, changed: &str) -> bool {
        let Some(covering) = self.covering(changed) else {
            return false;
        };
        let principal = self.principal.as_ref();
        let catalog = server.catalog.load();
        let visible = |r: &Requirement| server.access(principal, r) != Access::Hidden;
        let granted =
            |f: FoundResource| server.access(principal, f.requirement()) == Access::Granted;
        if let Some(found) = catalog.find_resource(changed, visible) {
            return granted(found);
        }
        // Named by an entry hidden from the subscriber: not for it.
        if catalog.find_resource(changed, |_| true).is_some() {
            return false;
        }
        catalog
            .find_resource(covering, visible)
            .is_some_and(granted)
    }
}

/// Whether `principal` may subscribe to `uri`: not longer than the server accepts, and
/// naming a resource (or a template's URI) the caller may read. The refusal is what
/// `resources/read` of the URI would answer: not found (with `version`'s code), or the
/// scope challenge.
pub(crate) fn admit(
    server: &ServerInner,
    principal: Option<&Principal>,
    version: ProtocolVersion,
    uri: &str,
) -> Result<(), ErrorObject> {
    server.check_uri(uri)?;
    let catalog = server.catalog.load();
    let visible = |r: &Requirement| server.access(principal, r) != Access::Hidden;
    let found: Option<FoundResource> = catalog.find_resource(uri, visible);
    let Some(found) = found else {
        return Err(ErrorObject::resource_not_found_in(version, uri));
    };
    match server.access(principal, found.requirement()) {
        Access::Granted => Ok(()),
        Access::Hidden => Err(ErrorObject::resource_not_found_in(version, uri)),
        Access::Challenge(scopes) => Err(ErrorObject::insufficient_scope(scopes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_path_ending_in_a_slash_covers_what_is_below_it() {
        assert!(covers_below("file:///dir/"));
        assert!(covers_below("notes://host/folder/"));
        assert!(covers_below("urn:a/b/"));
        for bare in [
            "notes:",
            "notes://",
            "notes://host/",
            "notes://host",
            "file:///",
            "file:///dir",
            "nocolon/",
        ] {
            assert!(!covers_below(bare), "{bare}");
        }
    }

    #[test]
    fn a_change_is_covered_by_its_uri_or_a_directory_above_it() {
        let mut w = Watched::default();
        for uri in ["file:///a.txt", "file:///dir/", "notes:"] {
            let uri: Box<str> = uri.into();
            if covers_below(&uri) {
                w.dirs.push(uri.clone());
            }
            w.uris.push(uri);
        }
        w.uris.sort();
        assert_eq!(w.covering("file:///a.txt"), Some("file:///a.txt"));
        assert_eq!(w.covering("file:///dir/b/c.txt"), Some("file:///dir/"));
        assert_eq!(w.covering("file:///dir/"), Some("file:///dir/"));
        assert_eq!(w.covering("file:///directory/x"), None);
        assert_eq!(w.covering("notes://secret/1"), None);
        assert_eq!(w.covering("file:///a.txt/x"), None);
    }
}
