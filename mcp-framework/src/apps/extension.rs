//! The MCP Apps extension as an [`Extension`]: its declaration (the view media types this
//! server serves, under `extensions` in both eras), registered by `build()` through the
//! public extension API when some tool has a view. The extension adds no method: its rules
//! (well-formed `_meta.ui`, views hidden from clients that render none) are applied where
//! tools are checked and listed (see the parent module).

use crate::extension::Extension;
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
}
