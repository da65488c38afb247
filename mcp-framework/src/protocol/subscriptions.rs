//! `subscriptions/listen` (2026-07-28): one long-lived request over which the server sends
//! the change notifications the client asked for.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;
use super::jsonrpc::RequestId;
use super::meta::keys;
use super::result::{ResultType, impl_result_fields};

/// Which notifications a listener wants (in the request) or gets (in the acknowledgement).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these resource URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the Tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// The fields extensions add (the Events extension's `eventsListChanged`: `true` asks
    /// for `notifications/events/list_changed`).
    #[serde(flatten)]
    pub extensions: JsonObject,
}

/// Params of `subscriptions/listen`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// The notifications wanted.
    pub notifications: SubscriptionFilter,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `notifications/subscriptions/acknowledged`: what the server will actually send.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The notifications granted.
    pub notifications: SubscriptionFilter,
    /// Notification metadata (`io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `subscriptions/listen`, sent only when the server ends the subscription
/// gracefully. Its `_meta` must carry `io.modelcontextprotocol/subscriptionId`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SubscriptionsListenResult {
    /// A `complete` result for the subscription `id` (the listen request's id).
    pub fn closed(id: &RequestId) -> Self {
        let mut meta = JsonObject::new();
        meta.insert(keys::SUBSCRIPTION_ID.into(), id.to_value());
        Self {
            result_type: Some(ResultType::Complete),
            meta: Some(meta),
        }
    }

    /// The `io.modelcontextprotocol/subscriptionId` in `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        let v = self.meta.as_ref()?.get(keys::SUBSCRIPTION_ID)?;
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }
}

impl_result_fields!(SubscriptionsListenResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listen_result_carries_the_subscription_id() {
        let r = SubscriptionsListenResult::closed(&RequestId::from("listen-1"));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"resultType": "complete",
                   "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}})
        );
        let back: SubscriptionsListenResult = serde_json::from_value(v).unwrap();
        assert_eq!(back.subscription_id(), Some(RequestId::from("listen-1")));
    }

    #[test]
    fn filter_round_trip() {
        let p = SubscriptionsListenRequestParams {
            notifications: SubscriptionFilter {
                tools_list_changed: Some(true),
                resource_subscriptions: Some(vec!["file:///a".into()]),
                ..SubscriptionFilter::default()
            },
            meta: None,
        };
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            v,
            json!({"notifications": {"toolsListChanged": true,
                                     "resourceSubscriptions": ["file:///a"]}})
        );
        assert_eq!(
            serde_json::from_value::<SubscriptionsListenRequestParams>(v).unwrap(),
            p
        );
    }
}
