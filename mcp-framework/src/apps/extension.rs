//! The MCP Apps extension as an [`Extension`]: its declaration (the view media types this
//! server serves, under `extensions` in both eras) and its view-only tools hidden from
//! clients that render no views ([`Setup::hide_tools`]), registered by `build()` through
//! the public extension API when some tool has a view. The extension adds no method; its
//! rule for `_meta.ui` itself (well formed) is applied where tools are checked (see the
//! parent module).

use crate::extension::{Extension, Setup};
use crate::protocol::JsonObject;
use crate::protocol::apps::{APP_MIME_TYPE, UI_EXTENSION};

/// The extension, declared when the catalog serves a view.
pub(crate) struct AppsExtension;

impl Extension for AppsExtension {
    fn id(&self) -> &str {
        UI_EXTENSION
    }

    fn settings(&self) -> JsonObject {
        let mut settings = JsonObject::new();
        settings.insert("mimeTypes".into(), serde_json::json!([APP_MIME_TYPE]));
        settings
    }

    fn setup(&self, setup: &mut Setup) {
        setup.hide_tools(
            |tool| !super::for_model(tool),
            |caps| !super::client_renders(caps),
        );
    }
}
