//! `subscriptions/listen`: the filter, the acknowledgement, and the stream of change
//! notifications tagged with the subscription id. Transports drive a [`Listen`]. Each open
//! subscription holds a place among the server's listen streams (in all and per client)
//! and, with a maximum lifetime set, ends gracefully when it runs out.

use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::admission::{Refusal, Slot};
use crate::bus::{ChangeEvent, TaskEvent};
use crate::peer::PeerId;
use crate::principal::Principal;
use crate::protocol::jsonrpc::{Request, notification_message};
use crate::protocol::{
    CancelledNotificationParams, ErrorObject, JsonObject, NotificationParams, ProtocolVersion,
    RequestId, ResourceUpdatedNotificationParams, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams, TaskStatusNotificationParams, keys,
};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::tasks::live::Watching;
use crate::watch::Watched;

/// The params of a listen request this module reads (`_meta` is skipped).
#[derive(Deserialize)]
struct ListenView {
    #[serde(default)]
    notifications: SubscriptionFilter,
}

/// What a listen request brings for `notifications/tasks`: whether it declared the Tasks
/// extension, and who is asking (only a task's owner hears about it).
#[derive(Debug, Default)]
pub(crate) struct TaskListen {
    pub(crate) declared: bool,
    pub(crate) owner: Option<String>,
}

/// At most this many task ids per subscription.
pub(crate) const MAX_TASK_IDS: usize = 100;

/// What happens next on a subscription.
#[derive(Debug)]
pub(crate) enum ListenEvent {
    /// A notification to send.
    Notify(Bytes),
    /// The server ends the subscription (shutdown, its lifetime ran out): send this final
    /// result, then close.
    End(Bytes),
    /// The subscriber fell too far behind: tear the subscription down.
    Lagged,
}

/// An open subscription.
#[derive(Debug)]
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// The notifications honored (what was asked and the server supports), but for the
    /// resources: those are in `watched`.
    filter: SubscriptionFilter,
    /// The resources whose updates it asked for (`None`: none).
    watched: Option<Watched>,
    rx: broadcast::Receiver<ChangeEvent>,
    /// What a resync stands for, still to be told (see [`ChangeEvent::Resync`]).
    resync: Vec<ChangeEvent>,
    server: Arc<ServerInner>,
    /// When the server ends the subscription on its own (its maximum lifetime).
    deadline: Option<tokio::time::Instant>,
    /// Whose tasks `notifications/tasks` may report.
    owner: Option<String>,
    /// Makes the server publish task changes while this stream wants them.
    _watching: Option<Watching>,
    _slot: Slot,
    /// What each notification passes through before it is sent (JSON-RPC middleware).
    map: Option<crate::peer::MessageMap>,
    /// Counts the stream among the open ones while it lives.
    #[cfg(feature = "metrics")]
    _counted: Option<crate::telemetry::metrics::GaugeGuard>,
}

/// Why a subscription was not opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The params are malformed.
    Params(ErrorObject),
    /// The server or this client holds its maximum of streams.
    Refused(Refusal),
    /// A resource subscription was refused (see [`watch`](crate::watch)).
    Resources(ErrorObject),
}

impl Listen {
    /// Opens a subscription for a `subscriptions/listen` request from `principal`: honors
    /// what the server supports, checks every resource URI as a subscription (see
    /// [`watch`](crate::watch)) and starts receiving changes right away (before the
    /// acknowledgement is sent, so nothing between the two is lost).
    pub(crate) fn open(
        server: &Arc<ServerInner>,
        request: &Request,
        params: Option<&RawValue>,
        peer: Option<&PeerId>,
        principal: Option<&Principal>,
        tasks: TaskListen,
    ) -> Result<Self, OpenError> {
        let view: ListenView =
            serde_json::from_str(params.map_or("{}", RawValue::get)).map_err(|e| {
                OpenError::Params(ErrorObject::invalid_params(format!("Invalid params: {e}")))
            })?;
        let wants_tasks = view
            .notifications
            .task_ids
            .as_ref()
            .is_some_and(|ids| !ids.is_empty());
        if wants_tasks && !tasks.declared {
            return Err(OpenError::Params(ErrorObject::missing_capability(
                serde_json::json!({"extensions": {keys::TASKS_EXTENSION: {}}}),
            )));
        }
        let caps = &server.capabilities;
        let mut wanted = view.notifications;
        let subscribes = caps
            .resources
            .as_ref()
            .is_some_and(|r| r.subscribe == Some(true));
        let watched = match wanted.resource_subscriptions.take() {
            Some(uris) if subscribes => Some(
                Watched::of_list(server, principal.cloned(), ProtocolVersion::LATEST, uris)
                    .map_err(OpenError::Resources)?,
            ),
            _ => None,
        };
        let slot = server
            .listen_slots
            .admit(peer)
            .map_err(OpenError::Refused)?;
        let honor = |asked: Option<bool>, supported: bool| {
            (asked == Some(true) && supported).then_some(true)
        };
        let filter = SubscriptionFilter {
            tools_list_changed: honor(
                wanted.tools_list_changed,
                caps.tools
                    .as_ref()
                    .is_some_and(|t| t.list_changed == Some(true)),
            ),
            prompts_list_changed: honor(
                wanted.prompts_list_changed,
                caps.prompts
                    .as_ref()
                    .is_some_and(|t| t.list_changed == Some(true)),
            ),
            resources_list_changed: honor(
                wanted.resources_list_changed,
                caps.resources
                    .as_ref()
                    .is_some_and(|t| t.list_changed == Some(true)),
            ),
            resource_subscriptions: None,
            extensions: server
                .extensions
                .listen
                .iter()
                .filter(|(field, _)| wanted.extensions.get(&**field) == Some(&Value::Bool(true)))
                .map(|(field, _)| (field.to_string(), Value::Bool(true)))
                .collect(),
            task_ids: wanted
                .task_ids
                .filter(|ids| server.tasks.is_some() && !ids.is_empty())
                .map(|mut ids| {
                    ids.sort();
                    ids.dedup();
                    ids.truncate(MAX_TASK_IDS);
                    ids
                }),
        };
        let watching = filter
            .task_ids
            .as_ref()
            .and(server.tasks.as_ref())
            .map(|t| t.watch());
        Ok(Self {
            id: request.id.clone(),
            filter,
            watched,
            rx: server.bus.subscribe(),
            resync: Vec::new(),
            server: server.clone(),
            deadline: server
                .config
                .listen
                .max_lifetime
                .map(|d| tokio::time::Instant::now() + d),
            owner: tasks.owner,
            _watching: watching,
            _slot: slot,
            map: None,
            #[cfg(feature = "metrics")]
            _counted: crate::telemetry::metrics::get().map(|m| m.listen_opened()),
        })
    }

    /// Passes every notification through `map` before it is sent (JSON-RPC middleware).
    pub(crate) fn map_notifications(&mut self, map: crate::peer::MessageMap) {
        self.map = Some(map);
    }

    /// `{"io.modelcontextprotocol/subscriptionId": …}`, the `_meta` of every notification.
    fn tag(&self) -> Option<JsonObject> {
        let mut meta = JsonObject::new();
        meta.insert(keys::SUBSCRIPTION_ID.into(), self.id.to_value());
        Some(meta)
    }

    /// `notifications/subscriptions/acknowledged`, the first message of the subscription.
    pub(crate) fn acknowledgement(&self) -> Bytes {
        let mut notifications = self.filter.clone();
        notifications.resource_subscriptions = self.watched.as_ref().map(Watched::uris);
        let params = SubscriptionsAcknowledgedNotificationParams {
            notifications,
            meta: self.tag(),
        };
        Bytes::from(notification_message(
            "notifications/subscriptions/acknowledged",
            &params,
        ))
    }

    /// The notification `event` makes, through the JSON-RPC middleware.
    fn rendered(&self, event: &ChangeEvent) -> Option<Bytes> {
        let n = self.notification(event)?;
        match &self.map {
            Some(map) => map.apply(n),
            None => Some(n),
        }
    }

    /// What a resync stands for, in the order it is told (popped from the end): the three
    /// lists, then every extension's notification (each only if the filter asked for it).
    fn resync_events(&self) -> Vec<ChangeEvent> {
        let extensions = self.server.extensions.listen.iter();
        let mut events: Vec<ChangeEvent> = extensions
            .rev()
            .map(|(field, _)| ChangeEvent::Extension(field.clone()))
            .collect();
        events.extend([
            ChangeEvent::ResourcesChanged,
            ChangeEvent::PromptsChanged,
            ChangeEvent::ToolsChanged,
        ]);
        events
    }

    fn notification(&self, event: &ChangeEvent) -> Option<Bytes> {
        let f = &self.filter;
        let method = match event {
            ChangeEvent::ToolsChanged if f.tools_list_changed == Some(true) => {
                "notifications/tools/list_changed"
            }
            ChangeEvent::PromptsChanged if f.prompts_list_changed == Some(true) => {
                "notifications/prompts/list_changed"
            }
            ChangeEvent::ResourcesChanged if f.resources_list_changed == Some(true) => {
                "notifications/resources/list_changed"
            }
            ChangeEvent::ResourceUpdated(uri) => {
                let hears = (self.watched.as_ref()).is_some_and(|w| w.hears(&self.server, uri));
                if !hears {
                    return None;
                }
                let params = ResourceUpdatedNotificationParams {
                    uri: uri.to_string(),
                    meta: self.tag(),
                };
                return Some(Bytes::from(notification_message(
                    "notifications/resources/updated",
                    &params,
                )));
            }
            ChangeEvent::TaskChanged(task) => return self.task_notification(task),
            ChangeEvent::Extension(field) if f.extensions.contains_key(&**field) => {
                let (_, method) =
                    (self.server.extensions.listen.iter()).find(|(f, _)| f == field)?;
                let params = NotificationParams { meta: self.tag() };
                return Some(Bytes::from(notification_message(method, &params)));
            }
            _ => return None,
        };
        let params = NotificationParams { meta: self.tag() };
        Some(Bytes::from(notification_message(method, &params)))
    }

    /// `notifications/tasks` for a task this subscription asked about, to its owner.
    fn task_notification(&self, event: &TaskEvent) -> Option<Bytes> {
        let asked = self
            .filter
            .task_ids
            .as_ref()
            .is_some_and(|ids| ids.binary_search_by(|id| (**id).cmp(&*event.id)).is_ok());
        if !asked || event.owner.as_deref() != self.owner.as_deref() {
            return None;
        }
        let task = serde_json::from_str(&event.detail).ok()?;
        let params = TaskStatusNotificationParams {
            task,
            meta: self.tag(),
        };
        Some(Bytes::from(notification_message(
            "notifications/tasks",
            &params,
        )))
    }

    /// Waits for the next thing to send.
    pub(crate) async fn next(&mut self) -> ListenEvent {
        let deadline = self.deadline;
        let expired = async move {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expired);
        loop {
            while let Some(event) = self.resync.pop() {
                if let Some(n) = self.rendered(&event) {
                    return ListenEvent::Notify(n);
                }
            }
            tokio::select! {
                biased;
                () = self.server.shutdown.cancelled() => {
                    return ListenEvent::End(render::listen_closed(&self.server, &self.id));
                }
                () = &mut expired => {
                    return ListenEvent::End(render::listen_closed(&self.server, &self.id));
                }
                event = self.rx.recv() => match event {
                    Ok(ChangeEvent::Resync) => self.resync = self.resync_events(),
                    Ok(event) => {
                        if let Some(n) = self.rendered(&event) {
                            return ListenEvent::Notify(n);
                        }
                    }
                    Err(RecvError::Lagged(_)) => return ListenEvent::Lagged,
                    Err(RecvError::Closed) => {
                        return ListenEvent::End(render::listen_closed(&self.server, &self.id));
                    }
                },
            }
        }
    }

    /// `notifications/cancelled` for this subscription: how the server tears it down on
    /// stdio, where there is no stream to close.
    pub(crate) fn teardown(&self, reason: &str) -> Bytes {
        let params = CancelledNotificationParams {
            request_id: Some(self.id.clone()),
            reason: Some(reason.to_owned()),
            meta: None,
        };
        Bytes::from(notification_message("notifications/cancelled", &params))
    }
}
