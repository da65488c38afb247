//! A request that calls an item, resolved once ([`Resolved`]): its params read, the catalog
//! entry it names found, the caller's access checked ([`access`](super::access)), and what
//! the item's kind checks before anything runs (a tool's `Mcp-Param-*` headers, a prompt's
//! arguments coerced from the strings clients send, a resource URI's length and the
//! template it matches). Every later step (the run, a task, the rendering) reads this
//! value; nothing reads the params or looks the item up again.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::access;
use super::carrier::Carrier;
use super::era::Era;
use super::reply::Reply;
use super::views::{CallView, GetPromptView, ReadView, Retry, Sent};
use crate::cache::CachePolicy;
use crate::catalog::FoundResource;
use crate::outcome::coerce_strings;
use crate::principal::Requirement;
use crate::protocol::jsonrpc::Request;
use crate::protocol::meta::Members;
use crate::protocol::{CacheScope, ErrorObject, RequestId};
use crate::registry::entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::runtime::state::ServerInner;

/// A call of an item of kind `K`, resolved.
pub(super) struct Resolved<K> {
    pub(super) id: RequestId,
    pub(super) era: Era,
    pub(super) carrier: Carrier,
    pub(super) item: Arc<K>,
    /// What is called: the tool's or prompt's name, or the URI read.
    pub(super) name: Arc<str>,
    /// As the kind's handler takes them: a tool's arguments object, a prompt's arguments
    /// coerced to its schema's types, a template's variables (an empty object for a
    /// concrete resource).
    pub(super) arguments: Value,
    /// A retry's sealed state and answers (MRTR).
    pub(super) retry: Retry,
    /// The arguments as sent, which a sealed state is bound to.
    pub(super) sent: Sent,
    /// The caching hints of a read (unused for the other kinds).
    pub(super) cache: CachePolicy,
}

/// The hints of a call that has none of its own.
const NO_CACHE: CachePolicy = CachePolicy::private(0);

/// `tools/call`: the tool, unless unknown, hidden from the caller (or, MCP Apps, only for
/// clients that render views), or refused to it; its headers checked against the
/// arguments.
pub(super) fn tool(
    server: &ServerInner,
    request: Request,
    members: Members,
    era: Era,
    carrier: Carrier,
) -> Result<Resolved<ToolEntry>, Reply> {
    let view = CallView::read(request.params.as_deref(), &members).map_err(Reply::bad)?;
    let unknown = || {
        Reply::error(
            ErrorObject::invalid_params(format!("Unknown tool: {}", view.name))
                .with_data(serde_json::json!({"name": view.name})),
        )
    };
    let catalog = server.catalog.load();
    let Some(item) = catalog.tool(&view.name).cloned() else {
        return Err(unknown());
    };
    // A tool an extension hides from this request (MCP Apps: a view-only tool, from a
    // client that renders no views) is not there for it.
    let screens = &server.extensions.screens;
    if !screens.is_empty() {
        let hiding = catalog.screens_hiding(screens, &view.name);
        if hiding != 0 && hiding & server.extensions.screening(&era.caps) != 0 {
            return Err(unknown());
        }
    }
    drop(catalog);
    access::admit(server, &carrier, &item.requirement, unknown)?;
    let mut arguments = view.arguments.unwrap_or_else(|| Value::Object(Map::new()));
    #[cfg(feature = "http")]
    if era.version.is_modern()
        && let Some(http) = &carrier.http
        && let Err(e) =
            crate::headers::check_param_headers(&http.headers, &item.headers, &arguments)
    {
        return Err(Reply::bad(e));
    }
    // Strings sent for numbers and booleans (forms do), under the non-`Standard` profiles.
    crate::outcome::coerce_scalars(&item.scalars, &mut arguments);
    Ok(Resolved {
        id: request.id,
        name: item.name.clone(),
        item,
        era,
        carrier,
        arguments,
        retry: view.retry,
        sent: Sent::new(request.params, &members),
        cache: NO_CACHE,
    })
}

/// Prompt arguments arrive as strings (other JSON values are taken as their text).
fn stringify(values: Map<String, Value>) -> Vec<(String, String)> {
    values
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| match v {
            Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

/// `prompts/get`: the prompt, unless unknown, hidden from the caller or refused to it;
/// its arguments coerced to the types of its schema.
pub(super) fn prompt(
    server: &ServerInner,
    request: Request,
    members: Members,
    era: Era,
    carrier: Carrier,
) -> Result<Resolved<PromptEntry>, Reply> {
    let view = GetPromptView::read(request.params.as_deref(), &members).map_err(Reply::bad)?;
    let unknown = || {
        Reply::error(ErrorObject::invalid_params(format!(
            "Unknown prompt: {}",
            view.name
        )))
    };
    let Some(item) = server.catalog.load().prompt(&view.name).cloned() else {
        return Err(unknown());
    };
    access::admit(server, &carrier, &item.requirement, unknown)?;
    let strings = stringify(view.arguments.unwrap_or_default());
    let arguments = Value::Object(coerce_strings(&item.arguments_schema, strings));
    Ok(Resolved {
        id: request.id,
        name: item.name.clone(),
        item,
        era,
        carrier,
        arguments,
        retry: view.retry,
        sent: Sent::new(request.params, &members),
        cache: NO_CACHE,
    })
}

/// A `resources/read` resolved: of a concrete resource, or of a URI a template matched.
pub(super) enum ResolvedRead {
    Fixed(Resolved<ResourceEntry>),
    Template(Resolved<TemplateEntry>),
}

/// `resources/read`: the resource, else the template matching the URI, among those the
/// caller may see (else "not found" with the era's code), unless refused to it; the
/// caching hints of its result (private for contents not everyone may read).
pub(super) fn read(
    server: &ServerInner,
    request: Request,
    members: Members,
    era: Era,
    carrier: Carrier,
) -> Result<ResolvedRead, Reply> {
    let view = ReadView::read(request.params.as_deref(), &members).map_err(Reply::bad)?;
    server.check_uri(&view.uri).map_err(Reply::bad)?;
    let not_found = || Reply::error(ErrorObject::resource_not_found_in(era.version, &view.uri));
    let visible = |r: &Requirement| access::visible(server, &carrier, r);
    let Some(found) = server.catalog.load().find_resource(&view.uri, visible) else {
        return Err(not_found());
    };
    access::admit(server, &carrier, found.requirement(), not_found)?;
    let (overrides, open) = match &found {
        FoundResource::Fixed(e) => (e.cache, e.requirement.is_open()),
        FoundResource::Template(e, _) => (e.cache, e.requirement.is_open()),
    };
    let mut cache = overrides.apply(server.config.cache.read);
    if !open {
        // Contents not everyone may read are not for shared caches.
        cache.scope = CacheScope::Private;
    }
    let name: Arc<str> = Arc::from(view.uri);
    Ok(match found {
        FoundResource::Fixed(item) => ResolvedRead::Fixed(Resolved {
            id: request.id,
            era,
            carrier,
            item,
            name,
            arguments: Value::Object(Map::new()),
            retry: view.retry,
            sent: Sent::new(request.params, &members),
            cache,
        }),
        FoundResource::Template(item, vars) => ResolvedRead::Template(Resolved {
            id: request.id,
            era,
            carrier,
            arguments: Value::Object(coerce_strings(&item.variables_schema, vars)),
            item,
            name,
            retry: view.retry,
            sent: Sent::new(request.params, &members),
            cache,
        }),
    })
}
