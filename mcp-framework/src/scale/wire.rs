//! The change events replicas send each other over Redis: one JSON object per pub/sub
//! message, `{"v": 1, "from": "<replica>", "kind": "…", …}`. A message of a kind this
//! replica does not know (a newer replica, during a rolling upgrade) is skipped.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::bus::{ChangeEvent, TaskEvent};

/// The version of this format.
const VERSION: u32 = 1;

/// What a message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Message {
    /// A change made on the sending replica.
    Change(ChangeEvent),
    /// The sender may have lost changes (it could not publish for a while): every list
    /// may have changed.
    Resync,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Kind {
    Tools,
    Prompts,
    Resources,
    ResourceUpdated {
        uri: String,
    },
    Task {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
        detail: String,
    },
    /// An extension's listen notification (the filter field that asks for it).
    Extension {
        field: String,
    },
    Resync,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    v: u32,
    from: String,
    #[serde(flatten)]
    kind: Kind,
}

/// `message` from `replica`, as sent.
pub(crate) fn encode(replica: &str, message: &Message) -> String {
    let kind = match message {
        Message::Resync => Kind::Resync,
        Message::Change(event) => match event {
            ChangeEvent::Resync => Kind::Resync,
            ChangeEvent::ToolsChanged => Kind::Tools,
            ChangeEvent::PromptsChanged => Kind::Prompts,
            ChangeEvent::ResourcesChanged => Kind::Resources,
            ChangeEvent::ResourceUpdated(uri) => Kind::ResourceUpdated {
                uri: uri.to_string(),
            },
            ChangeEvent::TaskChanged(task) => Kind::Task {
                id: task.id.to_string(),
                owner: task.owner.as_deref().map(str::to_owned),
                detail: task.detail.to_string(),
            },
            ChangeEvent::Extension(field) => Kind::Extension {
                field: field.to_string(),
            },
        },
    };
    serde_json::to_string(&Envelope {
        v: VERSION,
        from: replica.to_owned(),
        kind,
    })
    .expect("plain data serializes")
}

/// The sender and message of a payload, or why it is not one of this version.
pub(crate) fn decode(payload: &[u8]) -> Result<(String, Message), String> {
    let envelope: Envelope = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    if envelope.v != VERSION {
        return Err(format!(
            "version {} (this replica reads {VERSION})",
            envelope.v
        ));
    }
    let message = match envelope.kind {
        Kind::Resync => Message::Resync,
        Kind::Tools => Message::Change(ChangeEvent::ToolsChanged),
        Kind::Prompts => Message::Change(ChangeEvent::PromptsChanged),
        Kind::Resources => Message::Change(ChangeEvent::ResourcesChanged),
        Kind::ResourceUpdated { uri } => Message::Change(ChangeEvent::ResourceUpdated(uri.into())),
        Kind::Extension { field } => Message::Change(ChangeEvent::Extension(field.into())),
        Kind::Task { id, owner, detail } => {
            Message::Change(ChangeEvent::TaskChanged(Arc::new(TaskEvent {
                id: id.into(),
                owner: owner.map(Into::into),
                detail: detail.into(),
            })))
        }
    };
    Ok((envelope.from, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_round_trips() {
        let task = Arc::new(TaskEvent {
            id: "t1".into(),
            owner: Some("alice".into()),
            detail: r#"{"taskId":"t1"}"#.into(),
        });
        for message in [
            Message::Change(ChangeEvent::ToolsChanged),
            Message::Change(ChangeEvent::PromptsChanged),
            Message::Change(ChangeEvent::ResourcesChanged),
            Message::Change(ChangeEvent::ResourceUpdated("file:///a".into())),
            Message::Change(ChangeEvent::TaskChanged(task)),
            Message::Change(ChangeEvent::Extension("eventsListChanged".into())),
            Message::Resync,
        ] {
            let text = encode("r1", &message);
            assert_eq!(
                decode(text.as_bytes()),
                Ok(("r1".to_owned(), message)),
                "{text}"
            );
        }
        assert_eq!(
            encode(
                "r1",
                &Message::Change(ChangeEvent::ResourceUpdated("u".into()))
            ),
            r#"{"v":1,"from":"r1","kind":"resourceUpdated","uri":"u"}"#
        );
    }

    #[test]
    fn other_versions_and_kinds_are_refused() {
        assert!(decode(br#"{"v":2,"from":"r","kind":"tools"}"#).is_err());
        assert!(decode(br#"{"v":1,"from":"r","kind":"newThing"}"#).is_err());
        assert!(decode(b"not json").is_err());
    }
}
