//! Scope checks: what the caller of a request may do with the item it names (the server's
//! one rule, [`ServerInner::access`]), and the replies refusing it: a hidden item is
//! answered exactly like an unknown one, an item whose scopes the caller lacks with the
//! `403` step-up challenge. Every method that names an item passes [`admit`]: calls, gets,
//! reads and completions (subscriptions pass the same rule in [`watch`](crate::watch)).

use crate::catalog::Catalog;
use crate::principal::{Access, Requirement};
use crate::runtime::state::ServerInner;

use super::carrier::Carrier;
use super::reply::Reply;
use super::views::RefView;

/// What the caller behind `carrier` may do with an item requiring `requirement`.
pub(super) fn check(server: &ServerInner, carrier: &Carrier, requirement: &Requirement) -> Access {
    server.access(carrier.principal(), requirement)
}

/// Whether the caller may see the item (a hidden one is not listed, and not found).
pub(super) fn visible(server: &ServerInner, carrier: &Carrier, requirement: &Requirement) -> bool {
    check(server, carrier, requirement) != Access::Hidden
}

/// Lets the caller through to an item requiring `requirement`, or refuses it: a hidden item
/// with `unknown` (what a name that is not there gets), a lacking one with the challenge.
pub(super) fn admit(
    server: &ServerInner,
    carrier: &Carrier,
    requirement: &Requirement,
    unknown: impl FnOnce() -> Reply,
) -> Result<(), Reply> {
    match check(server, carrier, requirement) {
        Access::Granted => Ok(()),
        Access::Hidden => Err(unknown()),
        Access::Challenge(scopes) => Err(Reply::forbidden(scopes)),
    }
}

/// The item a completion reference names: a prompt by name, or a resource template by its
/// URI template (else a concrete resource, which has nothing to complete). `None`: nothing
/// the caller may see.
pub(super) fn completion_target<'c>(
    catalog: &'c Catalog,
    reference: &RefView,
    visible: impl Fn(&Requirement) -> bool,
) -> Option<CompletionTarget<'c>> {
    match reference {
        RefView::Prompt { name } => catalog
            .prompt(name)
            .filter(|p| visible(&p.requirement))
            .map(CompletionTarget::Prompt),
        RefView::Resource { uri } => {
            if let Some(t) = catalog.template(uri).filter(|t| visible(&t.requirement)) {
                return Some(CompletionTarget::Template(t));
            }
            catalog
                .resource(uri)
                .filter(|r| visible(&r.requirement))
                .map(|r| CompletionTarget::Resource(&r.requirement))
        }
    }
}

/// What a completion reference names (see [`completion_target`]).
pub(super) enum CompletionTarget<'c> {
    Prompt(&'c std::sync::Arc<crate::registry::entry::PromptEntry>),
    Template(&'c std::sync::Arc<crate::registry::entry::TemplateEntry>),
    /// A concrete resource: its requirement (it has no variables to complete).
    Resource(&'c Requirement),
}

impl CompletionTarget<'_> {
    pub(super) fn requirement(&self) -> &Requirement {
        match self {
            Self::Prompt(p) => &p.requirement,
            Self::Template(t) => &t.requirement,
            Self::Resource(r) => r,
        }
    }
}
