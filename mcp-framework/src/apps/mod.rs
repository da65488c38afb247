//! The MCP Apps extension (`io.modelcontextprotocol/ui`): tools that come with an
//! interactive view. A view is a `ui://` resource of type `text/html;profile=mcp-app`
//! (with `_meta.ui`: its CSP origins, permissions, sandbox domain, border); a tool names
//! it in `_meta.ui.resourceUri` and may be callable by the view only
//! (`visibility: ["app"]`).
//!
//! This module owns the rules of the extension: which `_meta.ui` is well formed, what a
//! definition's typed options add to its `_meta`, whether a client renders views. The
//! registry applies them when it checks definitions, the catalog when it checks that every
//! tool's view is served, and the extension (`extension`) hides the view-only tools from
//! a client that renders no views, through the public extension API.
//!
//! ```
//! use mcp_framework::apps::{UiResourceMeta, Visibility};
//! use mcp_framework::{ResourceDefinition, ToolDefinition};
//!
//! let view = ResourceDefinition::fixed("ui://charts/forecast", "forecast-view")
//!     .ui(UiResourceMeta::new().connect_domain("https://api.example.com").prefers_border(true));
//! let refresh = ToolDefinition::new("refresh", Default::default())
//!     .ui("ui://charts/forecast")
//!     .visibility([Visibility::App]);
//! # let _ = (view, refresh);
//! ```

pub(crate) mod extension;

pub use crate::protocol::apps::{
    APP_MIME_TYPE, Requested, UI_EXTENSION, UI_SCHEME, UiCsp, UiPermissions, UiResourceMeta,
    UiToolMeta, Visibility,
};

use serde_json::Value;

use crate::protocol::apps::LEGACY_RESOURCE_URI_KEY;
use crate::protocol::{ClientCapabilities, JsonObject, ResourceContents};

/// A view defined with `#[resource(uri = "ui://…")]`: `#[tool(ui = ViewType)]` reads its
/// URI through this trait, so a tool naming something that is not a view fails to compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP Apps view",
    label = "not a `ui://` resource",
    note = "a view is a `#[resource(uri = \"ui://…\")]`; or name its URI: `ui = \"ui://…\"`"
)]
pub trait UiView {
    /// The view's `ui://` URI.
    const URI: &'static str;
}

/// Whether the client renders views: it declared the extension with the HTML view type.
pub(crate) fn client_renders(caps: &ClientCapabilities) -> bool {
    caps.extensions
        .as_ref()
        .and_then(|e| e.get(UI_EXTENSION))
        .and_then(|v| v.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|m| m.as_str().is_some_and(is_app_mime)))
}

/// Whether the model may see and call `tool` (its `_meta.ui.visibility` lets it, or it
/// has none).
pub(crate) fn for_model(tool: &crate::protocol::Tool) -> bool {
    tool.meta
        .as_ref()
        .and_then(|m| m.get("ui"))
        .and_then(|ui| serde_json::from_value::<UiToolMeta>(ui.clone()).ok())
        .is_none_or(|ui| ui.model_visible())
}

/// Whether `uri` is a view's (`ui://…`).
pub(crate) fn is_view_uri(uri: &str) -> bool {
    uri.get(..UI_SCHEME.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(UI_SCHEME))
}

/// Whether `mime` is `text/html;profile=mcp-app` (case and spaces around `;` aside).
pub(crate) fn is_app_mime(mime: &str) -> bool {
    let mut parts = mime.split(';').map(str::trim);
    parts
        .next()
        .is_some_and(|t| t.eq_ignore_ascii_case("text/html"))
        && parts.next().is_some_and(|p| {
            p.split_once('=').is_some_and(|(k, v)| {
                k.trim().eq_ignore_ascii_case("profile") && v.trim().trim_matches('"') == "mcp-app"
            })
        })
        && parts.next().is_none()
}

/// A tool's `_meta` with its typed options (`ToolDefinition::ui`/`visibility`) laid over
/// the `ui` object of `meta`, the deprecated flat `ui/resourceUri` kept in step, and the
/// result checked: the `_meta.ui` the tool is served with, if any.
pub(crate) fn tool_meta(
    meta: &mut Option<JsonObject>,
    typed: &UiToolMeta,
) -> Result<Option<UiToolMeta>, String> {
    let given = meta
        .as_ref()
        .is_some_and(|m| m.contains_key("ui") || m.contains_key(LEGACY_RESOURCE_URI_KEY));
    if !given && *typed == UiToolMeta::default() {
        return Ok(None);
    }
    let obj = meta.get_or_insert_with(JsonObject::new);
    let mut ui: UiToolMeta = match obj.get("ui") {
        None => UiToolMeta::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("_meta.ui: {e}"))?,
    };
    if let Some(flat) = obj.get(LEGACY_RESOURCE_URI_KEY) {
        let flat = flat
            .as_str()
            .ok_or_else(|| format!("_meta[\"{LEGACY_RESOURCE_URI_KEY}\"] must be a string"))?;
        match &ui.resource_uri {
            Some(uri) if uri != flat => {
                return Err(format!(
                    "_meta.ui.resourceUri ({uri}) and _meta[\"{LEGACY_RESOURCE_URI_KEY}\"] \
                     ({flat}) name different views"
                ));
            }
            _ => ui.resource_uri = Some(flat.to_owned()),
        }
    }
    if typed.resource_uri.is_some() {
        ui.resource_uri.clone_from(&typed.resource_uri);
    }
    if typed.visibility.is_some() {
        ui.visibility.clone_from(&typed.visibility);
    }
    if let Some(uri) = &ui.resource_uri
        && !is_view_uri(uri)
    {
        return Err(format!(
            "the view `{uri}` is not a `ui://` URI (MCP Apps views are `ui://` resources)"
        ));
    }
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err("visibility names no one: give \"model\", \"app\" or both".into());
    }
    obj.insert(
        "ui".into(),
        serde_json::to_value(&ui).expect("plain data serializes"),
    );
    match &ui.resource_uri {
        Some(uri) => obj.insert(LEGACY_RESOURCE_URI_KEY.into(), Value::String(uri.clone())),
        None => obj.remove(LEGACY_RESOURCE_URI_KEY),
    };
    Ok(Some(ui))
}

/// A resource's `_meta` with its typed `ui` options laid over `meta.ui`, checked: the
/// `_meta.ui` the view is served with (on the listing and on every read), if any.
pub(crate) fn resource_meta(
    uri: &str,
    meta: &mut Option<JsonObject>,
    typed: Option<&UiResourceMeta>,
) -> Result<Option<UiResourceMeta>, String> {
    let given = meta.as_ref().and_then(|m| m.get("ui"));
    if !is_view_uri(uri) {
        if given.is_some() || typed.is_some() {
            return Err(format!(
                "`_meta.ui` is for MCP Apps views, whose URIs are `ui://…`, not `{uri}`"
            ));
        }
        return Ok(None);
    }
    let mut ui: UiResourceMeta = match given {
        None => UiResourceMeta::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("_meta.ui: {e}"))?,
    };
    if let Some(typed) = typed {
        overlay(&mut ui, typed);
    }
    if ui == UiResourceMeta::default() {
        if let Some(m) = meta.as_mut() {
            m.remove("ui");
        }
        return Ok(Some(ui));
    }
    meta.get_or_insert_with(JsonObject::new).insert(
        "ui".into(),
        serde_json::to_value(&ui).expect("plain data serializes"),
    );
    Ok(Some(ui))
}

/// Adds a view's `_meta.ui` to the contents of its `uri` that have none, and its type to
/// those without one.
pub(crate) fn stamp(contents: &mut [ResourceContents], uri: &str, ui: &Value) {
    for c in contents {
        let (mime, meta) = match c {
            ResourceContents::Text(t) if t.uri == uri => (&mut t.mime_type, &mut t.meta),
            ResourceContents::Blob(b) if b.uri == uri => (&mut b.mime_type, &mut b.meta),
            _ => continue,
        };
        mime.get_or_insert_with(|| APP_MIME_TYPE.to_owned());
        meta.get_or_insert_with(JsonObject::new)
            .entry("ui")
            .or_insert_with(|| ui.clone());
    }
}

/// `typed`'s fields over `ui`'s: origins are added, the rest replaced.
fn overlay(ui: &mut UiResourceMeta, typed: &UiResourceMeta) {
    if let Some(csp) = &typed.csp {
        let mine = ui.csp.get_or_insert_with(UiCsp::default);
        for (to, from) in [
            (&mut mine.connect_domains, &csp.connect_domains),
            (&mut mine.resource_domains, &csp.resource_domains),
            (&mut mine.frame_domains, &csp.frame_domains),
            (&mut mine.base_uri_domains, &csp.base_uri_domains),
        ] {
            for origin in from {
                if !to.contains(origin) {
                    to.push(origin.clone());
                }
            }
        }
    }
    if let Some(p) = &typed.permissions {
        let mine = ui.permissions.get_or_insert_with(UiPermissions::default);
        mine.camera = mine.camera.or(p.camera);
        mine.microphone = mine.microphone.or(p.microphone);
        mine.geolocation = mine.geolocation.or(p.geolocation);
        mine.clipboard_write = mine.clipboard_write.or(p.clipboard_write);
    }
    if typed.domain.is_some() {
        ui.domain.clone_from(&typed.domain);
    }
    if typed.prefers_border.is_some() {
        ui.prefers_border = typed.prefers_border;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(v: Value) -> Option<JsonObject> {
        match v {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    #[test]
    fn app_mime_types() {
        for yes in [
            "text/html;profile=mcp-app",
            "text/html; profile=mcp-app",
            "TEXT/HTML;profile=\"mcp-app\"",
        ] {
            assert!(is_app_mime(yes), "{yes}");
        }
        for no in [
            "text/html",
            "text/html;profile=other",
            "text/plain;profile=mcp-app",
        ] {
            assert!(!is_app_mime(no), "{no}");
        }
    }

    #[test]
    fn typed_tool_options_meet_the_flat_key() {
        let mut meta = None;
        let typed = UiToolMeta {
            resource_uri: Some("ui://a/b".into()),
            visibility: Some(vec![Visibility::App]),
        };
        let ui = tool_meta(&mut meta, &typed).unwrap().unwrap();
        assert!(!ui.model_visible());
        assert_eq!(
            Value::Object(meta.unwrap()),
            json!({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]},
                   "ui/resourceUri": "ui://a/b"})
        );

        let mut meta = object(json!({"ui/resourceUri": "ui://x"}));
        let ui = tool_meta(&mut meta, &UiToolMeta::default())
            .unwrap()
            .unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://x"));
        assert!(ui.model_visible());

        for (bad, why) in [
            (
                json!({"ui": {"resourceUri": "https://x"}}),
                "not a `ui://` URI",
            ),
            (json!({"ui": {"visibility": []}}), "names no one"),
            (json!({"ui": {"visibility": ["agent"]}}), "unknown variant"),
            (json!({"ui": {"csp": {}}}), "unknown field"),
            (
                json!({"ui": {"resourceUri": "ui://a"}, "ui/resourceUri": "ui://b"}),
                "different views",
            ),
        ] {
            let e = tool_meta(&mut object(bad), &UiToolMeta::default()).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn resource_meta_only_on_views() {
        let typed = UiResourceMeta::new()
            .connect_domain("https://api.example.com")
            .camera()
            .prefers_border(true);
        let mut meta = object(json!({"ui": {"csp": {"resourceDomains": ["https://cdn"]}}}));
        resource_meta("ui://v", &mut meta, Some(&typed)).unwrap();
        assert_eq!(
            Value::Object(meta.unwrap()),
            json!({"ui": {
                "csp": {"connectDomains": ["https://api.example.com"],
                        "resourceDomains": ["https://cdn"]},
                "permissions": {"camera": {}},
                "prefersBorder": true
            }})
        );
        let e = resource_meta("file:///x", &mut None, Some(&typed)).unwrap_err();
        assert!(e.contains("not `file:///x`"), "{e}");
        let e =
            resource_meta("ui://v", &mut object(json!({"ui": {"border": 1}})), None).unwrap_err();
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn clients_that_render_views() {
        let caps = |v: Value| -> ClientCapabilities { serde_json::from_value(v).unwrap() };
        assert!(client_renders(&caps(json!({"extensions": {
            UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}
        }}))));
        assert!(!client_renders(&caps(
            json!({"extensions": {UI_EXTENSION: {}}})
        )));
        assert!(!client_renders(&caps(json!({}))));
    }
}
