//! Content blocks (`ContentBlock`) and resource contents.
//!
//! The `type` discriminator belongs to the enum ([`Content`], and
//! [`SamplingMessageContentBlock`](super::sampling::SamplingMessageContentBlock) for sampling),
//! not to the block structs: serialize a [`TextContent`] on its own and it has no `type`.
//! Wrap it in [`Content`] to put it on the wire.

use serde::{Deserialize, Serialize};

pub use super::annotations::{Annotations, Role};
use super::capabilities::JsonObject;
use super::primitives::Resource;

/// Text (`{"type":"text"}` inside [`Content`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl TextContent {
    /// Text without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// An image (`{"type":"image"}` inside [`Content`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image data.
    pub data: String,
    /// The image's MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Audio (`{"type":"audio"}` inside [`Content`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio data.
    pub data: String,
    /// The audio's MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A link to a resource (`{"type":"resource_link"}` inside [`Content`]).
///
/// The schema gives `ResourceLink` exactly the fields of [`Resource`] plus `type`, and the
/// `type` lives in [`Content`], so this is the same struct.
pub type ResourceLink = Resource;

/// A resource embedded in a message (`{"type":"resource"}` inside [`Content`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The contents of a resource: text or a base64 blob.
///
/// Untagged: an object with `text` is [`Text`](Self::Text), otherwise one with `blob` is
/// [`Blob`](Self::Blob).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The resource's URI.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }

    /// The MIME type, if known.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Self::Text(t) => t.mime_type.as_deref(),
            Self::Blob(b) => b.mime_type.as_deref(),
        }
    }

    /// Text contents with a MIME type.
    pub fn text(uri: impl Into<String>, mime: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            text: text.into(),
            meta: None,
        })
    }

    /// Binary contents (already base64-encoded) with a MIME type.
    pub fn blob(
        uri: impl Into<String>,
        mime: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        Self::Blob(BlobResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            blob: base64.into(),
            meta: None,
        })
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(c: TextResourceContents) -> Self {
        Self::Text(c)
    }
}

impl From<BlobResourceContents> for ResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        Self::Blob(c)
    }
}

/// A text resource's contents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A binary resource's contents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded data.
    pub blob: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A content block (`ContentBlock`): tool results, prompt messages, tool results in sampling.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"resource_link"`.
    ResourceLink(ResourceLink),
    /// `"resource"`: an embedded resource.
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent {
            data: base64_data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An audio block from base64 data and a MIME type.
    pub fn audio(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent {
            data: base64_data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// A link to a resource.
    pub fn resource_link(resource: Resource) -> Self {
        Self::ResourceLink(resource)
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::embedded(ResourceContents::text(uri, mime_type, text))
    }

    /// An embedded binary resource (`base64` is already encoded).
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        Self::embedded(ResourceContents::blob(uri, mime_type, base64))
    }

    /// An embedded resource.
    pub fn embedded(resource: ResourceContents) -> Self {
        Self::Resource(EmbeddedResource {
            resource,
            annotations: None,
            meta: None,
        })
    }

    /// Replaces the block's annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        *self.annotations_mut() = Some(annotations);
        self
    }

    /// The block's annotations.
    pub fn annotations(&self) -> Option<&Annotations> {
        match self {
            Self::Text(c) => c.annotations.as_ref(),
            Self::Image(c) => c.annotations.as_ref(),
            Self::Audio(c) => c.annotations.as_ref(),
            Self::ResourceLink(c) => c.annotations.as_ref(),
            Self::Resource(c) => c.annotations.as_ref(),
        }
    }

    fn annotations_mut(&mut self) -> &mut Option<Annotations> {
        match self {
            Self::Text(c) => &mut c.annotations,
            Self::Image(c) => &mut c.annotations,
            Self::Audio(c) => &mut c.annotations,
            Self::ResourceLink(c) => &mut c.annotations,
            Self::Resource(c) => &mut c.annotations,
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for Content {
    fn from(c: TextContent) -> Self {
        Self::Text(c)
    }
}

impl From<ImageContent> for Content {
    fn from(c: ImageContent) -> Self {
        Self::Image(c)
    }
}

impl From<AudioContent> for Content {
    fn from(c: AudioContent) -> Self {
        Self::Audio(c)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(c: EmbeddedResource) -> Self {
        Self::Resource(c)
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Self::text(s)
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Self::text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(c: &Content) -> serde_json::Value {
        let v = serde_json::to_value(c).unwrap();
        assert_eq!(&serde_json::from_value::<Content>(v.clone()).unwrap(), c);
        v
    }

    #[test]
    fn constructors_put_the_tag_on_the_wire() {
        assert_eq!(
            round_trip(&Content::text("hi")),
            json!({"type": "text", "text": "hi"})
        );
        assert_eq!(
            round_trip(&Content::image("AAAA", "image/png")),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
        );
        assert_eq!(
            round_trip(&Content::audio("AAAA", "audio/wav")),
            json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"})
        );
        assert_eq!(
            round_trip(&Content::resource_link(Resource::new("file:///a", "a"))),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"})
        );
        assert_eq!(
            round_trip(&Content::embedded_text("file:///a", "text/plain", "x")),
            json!({"type": "resource",
                   "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "x"}})
        );
        assert_eq!(
            round_trip(&Content::embedded_blob("file:///b", "image/png", "AAAA")),
            json!({"type": "resource",
                   "resource": {"uri": "file:///b", "mimeType": "image/png", "blob": "AAAA"}})
        );
    }

    #[test]
    fn annotations_and_accessors() {
        let c = Content::text("hi").with_annotations(Annotations {
            audience: Some(vec![Role::User]),
            priority: Some(0.5),
            last_modified: None,
        });
        assert_eq!(
            round_trip(&c),
            json!({"type": "text", "text": "hi",
                   "annotations": {"audience": ["user"], "priority": 0.5}})
        );
        assert_eq!(c.as_text(), Some("hi"));
        assert_eq!(c.annotations().unwrap().priority, Some(0.5));
        assert_eq!(Content::image("A", "image/png").as_text(), None);
    }

    #[test]
    fn resource_contents_pick_the_right_variant() {
        let blob: ResourceContents =
            serde_json::from_value(json!({"uri": "file:///b", "blob": "AAAA"})).unwrap();
        assert!(matches!(blob, ResourceContents::Blob(_)));
        assert_eq!(blob.uri(), "file:///b");
        assert_eq!(blob.mime_type(), None);
        let text: ResourceContents =
            serde_json::from_value(json!({"uri": "file:///t", "text": ""})).unwrap();
        assert!(matches!(text, ResourceContents::Text(_)));
    }

    #[test]
    fn rejects_unknown_block_types() {
        assert!(serde_json::from_value::<Content>(json!({"type": "video", "data": ""})).is_err());
        assert!(serde_json::from_value::<Content>(json!({"text": "untagged"})).is_err());
    }
}
