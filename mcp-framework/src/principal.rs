//! Who is calling and what they may do: the authenticated [`Principal`] of a request
//! (subject, client, granted scopes, the token's claims), the scopes an item requires and
//! its [`ScopePolicy`], and [`ScopeRules`], which decide whether granted scopes cover
//! required ones (a broader scope implies narrower ones).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use crate::protocol::JsonObject;

/// The authenticated principal of a request: who the token was issued to, for which
/// client, with which scopes and claims.
///
/// With authorization configured (`auth::Authorization`, feature
/// `auth`), every HTTP request carries one, built from its validated access token. A layer
/// of your own can insert one into the HTTP request's extensions instead. Handlers read it
/// with [`Context::principal`](crate::Context::principal); sealed MRTR `requestState` is
/// bound to it. Cheap to clone. Two principals are equal when their subject and client
/// are (the rate limits of [`middleware`](crate::middleware) count per principal).
///
/// ```
/// use mcp_framework::Principal;
///
/// let p = Principal::new("ada").with_client_id("notes-app").with_scopes(["notes:read"]);
/// assert_eq!(p.subject(), "ada");
/// assert!(p.scopes().contains("notes:read"));
/// ```
#[derive(Clone)]
pub struct Principal {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    subject: String,
    client_id: Option<String>,
    scopes: Scopes,
    claims: JsonObject,
}

impl Principal {
    /// A principal with this subject, no client id, no scopes and no claims.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                subject: subject.into(),
                client_id: None,
                scopes: Scopes::default(),
                claims: JsonObject::new(),
            }),
        }
    }

    /// With the id of the OAuth client the token was issued to.
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.inner).client_id = Some(client_id.into());
        self
    }

    /// With these granted scopes (in addition to those it has).
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        inner.scopes.0.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// With the validated claims of its token.
    #[must_use]
    pub fn with_claims(mut self, claims: JsonObject) -> Self {
        Arc::make_mut(&mut self.inner).claims = claims;
        self
    }

    /// The subject (`sub`): who the token was issued to.
    pub fn subject(&self) -> &str {
        &self.inner.subject
    }

    /// The OAuth client the token was issued to (`client_id` or `azp`), if known.
    pub fn client_id(&self) -> Option<&str> {
        self.inner.client_id.as_deref()
    }

    /// The granted scopes, as the token lists them.
    pub fn scopes(&self) -> &Scopes {
        &self.inner.scopes
    }

    /// Every validated claim of the token (empty for a principal built by hand).
    pub fn claims(&self) -> &JsonObject {
        &self.inner.claims
    }

    /// One claim of the token.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.inner.claims.get(name)
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Claims can be personal data: not in logs.
        f.debug_struct("Principal")
            .field("subject", &self.inner.subject)
            .field("client_id", &self.inner.client_id)
            .field("scopes", &self.inner.scopes)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.inner.subject == other.inner.subject && self.inner.client_id == other.inner.client_id
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.inner.subject.hash(state);
        self.inner.client_id.hash(state);
    }
}

/// A set of OAuth scopes (granted to a principal, or required by an item).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Scopes(BTreeSet<String>);

impl Scopes {
    /// The scopes of a space-separated `scope` value (RFC 6749 §3.3).
    pub fn parse(scope: &str) -> Self {
        Self(
            scope
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Whether this exact scope is in the set (no implication: see [`ScopeRules`]).
    pub fn contains(&self, scope: &str) -> bool {
        self.0.contains(scope)
    }

    /// The scopes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// How many scopes there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<S: Into<String>> FromIterator<S> for Scopes {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Self(iter.into_iter().map(Into::into).collect())
    }
}

/// Whether granted scopes cover required ones, where a broader scope implies narrower
/// ones: a scope implies every scope it prefixes up to a `:` (`notes` implies
/// `notes:read` and `notes:write:drafts`), and implications declared with
/// [`implies`](Self::implies) hold transitively (`admin` implies `notes`, so also
/// `notes:read`).
#[derive(Debug, Clone, Default)]
pub struct ScopeRules {
    /// Everything each declared scope implies, closed transitively.
    implied: BTreeMap<String, BTreeSet<String>>,
}

impl ScopeRules {
    /// Declares that `broader` implies each of `narrower`.
    #[must_use]
    pub fn implies<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied
            .entry(broader.into())
            .or_default()
            .extend(narrower.into_iter().map(Into::into));
        self.close();
        self
    }

    /// Adds what each implied scope implies in turn, until nothing changes.
    fn close(&mut self) {
        loop {
            let mut grew = false;
            let snapshot = self.implied.clone();
            for implied in self.implied.values_mut() {
                let more: Vec<String> = implied
                    .iter()
                    .filter_map(|s| snapshot.get(s))
                    .flatten()
                    .filter(|s| !implied.contains(*s))
                    .cloned()
                    .collect();
                grew |= !more.is_empty();
                implied.extend(more);
            }
            if !grew {
                return;
            }
        }
    }

    /// Whether `granted` covers the one scope `required`.
    pub fn grants(&self, granted: &Scopes, required: &str) -> bool {
        let direct = |g: &str| {
            g == required
                || required
                    .strip_prefix(g)
                    .is_some_and(|rest| rest.starts_with(':'))
        };
        granted.iter().any(|g| {
            direct(g)
                || self
                    .implied
                    .get(g)
                    .is_some_and(|implied| implied.iter().any(|i| direct(i)))
        })
    }

    /// The scopes of `required` that `granted` does not cover (empty: access).
    pub fn missing<'r>(&self, granted: &Scopes, required: &'r [Arc<str>]) -> Vec<&'r str> {
        required
            .iter()
            .map(|r| &**r)
            .filter(|r| !self.grants(granted, r))
            .collect()
    }
}

/// What a caller whose token lacks an item's scopes sees of the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ScopePolicy {
    /// Listed to everyone; a call without the scopes is refused with `403 Forbidden` and
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, so that the
    /// client can ask for them (step-up authorization). The default.
    #[default]
    Challenge,
    /// Neither listed nor reachable: to a caller without the scopes the item does not
    /// exist (lists are then `cacheScope: private`).
    Hide,
}

/// The scopes an item requires, and its policy (`None`: the server's).
#[derive(Debug, Clone, Default)]
pub(crate) struct Requirement {
    pub(crate) scopes: Arc<[Arc<str>]>,
    pub(crate) policy: Option<ScopePolicy>,
}

/// What a caller may do with an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Access {
    /// Go ahead.
    Granted,
    /// Refuse with a step-up challenge for these scopes (every scope the item requires).
    Challenge(Vec<String>),
    /// Behave as if the item did not exist.
    Hidden,
}

impl Requirement {
    /// Whether `scope` is a scope token of RFC 6749 §3.3: printable ASCII but space, `"`
    /// and `\`, at least one character.
    pub(crate) fn valid_scope(scope: &str) -> bool {
        !scope.is_empty()
            && scope
                .bytes()
                .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
    }

    /// Whether the item requires nothing.
    pub(crate) fn is_open(&self) -> bool {
        self.scopes.is_empty()
    }

    /// What a caller granted `scopes` may do with the item; `None`: nothing is checked
    /// (a caller the server trusts with every scope).
    pub(crate) fn access(
        &self,
        scopes: Option<&Scopes>,
        rules: &ScopeRules,
        default: ScopePolicy,
    ) -> Access {
        let Some(scopes) = scopes else {
            return Access::Granted;
        };
        if self.is_open() || rules.missing(scopes, &self.scopes).is_empty() {
            return Access::Granted;
        }
        match self.policy.unwrap_or(default) {
            ScopePolicy::Hide => Access::Hidden,
            ScopePolicy::Challenge => {
                Access::Challenge(self.scopes.iter().map(|s| s.to_string()).collect())
            }
        }
    }
}

/// What a request without a [`Principal`] may do with items that require scopes: over
/// stdio, over HTTP without authorization, or past an application's own "optional" login
/// layer that lets anonymous callers through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Unauthenticated {
    /// It holds no scopes: scoped items are challenged or hidden (by their policy). The
    /// default.
    #[default]
    NoScopes,
    /// It holds every scope (the server's own opt-out, for a trusted local transport).
    EveryScope,
}

impl Unauthenticated {
    /// The scopes a caller holds: its principal's, or none, or (opted out) unchecked.
    pub(crate) fn scopes_of(self, principal: Option<&Principal>) -> Option<&Scopes> {
        static NONE: Scopes = Scopes(BTreeSet::new());
        match (principal, self) {
            (Some(p), _) => Some(p.scopes()),
            (None, Self::NoScopes) => Some(&NONE),
            (None, Self::EveryScope) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(s: &str) -> Scopes {
        Scopes::parse(s)
    }

    #[test]
    fn a_scope_implies_the_scopes_it_prefixes_at_a_colon() {
        let rules = ScopeRules::default();
        assert!(rules.grants(&scopes("notes"), "notes:read"));
        assert!(rules.grants(&scopes("notes:write"), "notes:write:drafts"));
        assert!(rules.grants(&scopes("notes:read"), "notes:read"));
        assert!(!rules.grants(&scopes("notes:read"), "notes"));
        assert!(!rules.grants(&scopes("note"), "notes:read"));
        assert!(!rules.grants(&scopes("notes:re"), "notes:read"));
        assert!(!rules.grants(&scopes(""), "notes:read"));
    }

    #[test]
    fn declared_implications_are_transitive() {
        let rules = ScopeRules::default()
            .implies("admin", ["notes"])
            .implies("notes", ["profile:read"]);
        assert!(rules.grants(&scopes("admin"), "notes:write"));
        assert!(rules.grants(&scopes("admin"), "profile:read"));
        assert!(!rules.grants(&scopes("notes"), "admin"));
        let required: Vec<Arc<str>> = vec!["notes:read".into(), "billing".into()];
        assert_eq!(rules.missing(&scopes("admin"), &required), ["billing"]);
    }

    #[test]
    fn principals_are_equal_by_subject_and_client() {
        let a = Principal::new("ada").with_scopes(["x"]);
        let b = Principal::new("ada").with_scopes(["y"]);
        assert_eq!(a, b);
        assert_ne!(a, Principal::new("ada").with_client_id("c"));
        assert!(!format!("{a:?}").contains("claims"));
    }

    #[test]
    fn access_challenges_for_every_required_scope_or_hides() {
        let rules = ScopeRules::default();
        let need = Requirement {
            scopes: vec![Arc::from("notes:read"), Arc::from("profile:read")].into(),
            policy: None,
        };
        let reader = Principal::new("r").with_scopes(["notes:read"]);
        let both = Principal::new("b").with_scopes(["notes", "profile"]);
        let of = |p| Unauthenticated::NoScopes.scopes_of(p);
        assert_eq!(
            need.access(of(Some(&reader)), &rules, ScopePolicy::Challenge),
            Access::Challenge(vec!["notes:read".into(), "profile:read".into()])
        );
        assert_eq!(
            need.access(of(Some(&reader)), &rules, ScopePolicy::Hide),
            Access::Hidden
        );
        assert_eq!(
            need.access(of(Some(&both)), &rules, ScopePolicy::Hide),
            Access::Granted
        );
        // No principal: no scopes, unless the server grants every scope to such callers.
        assert_eq!(
            need.access(of(None), &rules, ScopePolicy::Hide),
            Access::Hidden
        );
        let trusted = Unauthenticated::EveryScope.scopes_of(None);
        assert_eq!(
            need.access(trusted, &rules, ScopePolicy::Hide),
            Access::Granted
        );
        assert!(Requirement::valid_scope("notes:read"));
        assert!(!Requirement::valid_scope("notes read"));
        assert!(!Requirement::valid_scope(""));
        assert!(!Requirement::valid_scope("a\"b"));
    }
}
