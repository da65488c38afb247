//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): the
//! `_meta.ui` of a view (`ui://` resource) and of a tool that names one.

use serde::{Deserialize, Serialize};

/// The extension's identifier (`capabilities.extensions`, client and server).
pub const UI_EXTENSION: &str = super::meta::keys::UI_EXTENSION;

/// The MIME type of an HTML view.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of views.
pub const UI_SCHEME: &str = "ui://";

/// The deprecated flat key of a tool's view (`_meta["ui/resourceUri"]`), still written
/// beside `_meta.ui.resourceUri` for hosts that read only it.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// `_meta.ui` of a view: the origins its Content Security Policy must allow, the browser
/// permissions it asks for, its sandbox origin and border.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiResourceMeta {
    /// Origins the view needs (omitted: none, the host's restrictive default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// Browser permissions the view asks for (hosts may grant them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated sandbox origin (its format is the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host draws a border and background around the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins a view's Content Security Policy allows, directive by directive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiCsp {
    /// `connect-src`: fetch, XHR and WebSocket.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// `img-src`, `script-src`, `style-src`, `font-src`, `media-src`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// `frame-src`: nested iframes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl UiCsp {
    /// Whether no directive names an origin.
    pub fn is_empty(&self) -> bool {
        self.connect_domains.is_empty()
            && self.resource_domains.is_empty()
            && self.frame_domains.is_empty()
            && self.base_uri_domains.is_empty()
    }
}

/// An empty object: a permission asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requested {}

/// The browser permissions a view asks for (Permission Policy features).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiPermissions {
    /// `camera`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Requested>,
    /// `microphone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Requested>,
    /// `geolocation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Requested>,
    /// `clipboard-write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Requested>,
}

/// Who may call a tool: the model (the agent), the app (a view of this server), or both.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed to the agent and callable by it.
    Model,
    /// Callable by this server's views.
    App,
}

/// `_meta.ui` of a tool: the view that renders its results, and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiToolMeta {
    /// The `ui://` resource that renders this tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool (omitted: both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl UiToolMeta {
    /// Whether the model may see and call the tool.
    pub fn model_visible(&self) -> bool {
        self.visibility
            .as_ref()
            .is_none_or(|v| v.contains(&Visibility::Model))
    }
}

impl UiResourceMeta {
    /// No origins, permissions or preferences: the host's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    fn csp_mut(&mut self) -> &mut UiCsp {
        self.csp.get_or_insert_with(UiCsp::default)
    }

    fn permissions_mut(&mut self) -> &mut UiPermissions {
        self.permissions.get_or_insert_with(UiPermissions::default)
    }

    /// Allows fetch, XHR and WebSocket connections to `origin` (`connect-src`).
    #[must_use]
    pub fn connect_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_mut().connect_domains.push(origin.into());
        self
    }

    /// Allows images, scripts, styles, fonts and media from `origin` (wildcard subdomains
    /// such as `https://*.example.com` too).
    #[must_use]
    pub fn resource_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_mut().resource_domains.push(origin.into());
        self
    }

    /// Allows nested iframes from `origin` (`frame-src`).
    #[must_use]
    pub fn frame_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_mut().frame_domains.push(origin.into());
        self
    }

    /// Allows `origin` as the document's base URI (`base-uri`).
    #[must_use]
    pub fn base_uri_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_mut().base_uri_domains.push(origin.into());
        self
    }

    /// Asks for the camera.
    #[must_use]
    pub fn camera(mut self) -> Self {
        self.permissions_mut().camera = Some(Requested {});
        self
    }

    /// Asks for the microphone.
    #[must_use]
    pub fn microphone(mut self) -> Self {
        self.permissions_mut().microphone = Some(Requested {});
        self
    }

    /// Asks for the user's location.
    #[must_use]
    pub fn geolocation(mut self) -> Self {
        self.permissions_mut().geolocation = Some(Requested {});
        self
    }

    /// Asks to write to the clipboard.
    #[must_use]
    pub fn clipboard_write(mut self) -> Self {
        self.permissions_mut().clipboard_write = Some(Requested {});
        self
    }

    /// A dedicated sandbox origin (in the format the host documents).
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Asks the host for a border and background (`true`) or none (`false`).
    #[must_use]
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }
}
