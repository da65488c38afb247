//! Fields every result shares: `resultType`, `_meta` and, on cacheable results, `ttlMs` and
//! `cacheScope`.
//!
//! Each concrete result struct spells these fields out itself (no `#[serde(flatten)]`), each
//! as an `Option` so that a legacy rendering (2025-11-25 and older, which know none of them)
//! simply leaves them out. [`ResultFields`] and [`Cacheable`] give generic access to them.

use serde::{Deserialize, Deserializer, Serialize};

use super::capabilities::JsonObject;

/// How the client should read a result (`resultType`, 2026-07-28).
///
/// A result without `resultType` (every legacy server) means [`ResultType::Complete`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The request completed; the result is final.
    #[default]
    Complete,
    /// The server needs more input: the result is an
    /// [`InputRequiredResult`](super::mrtr::InputRequiredResult).
    InputRequired,
    /// The request runs as a task (the Tasks extension): the result is a
    /// [`CreateTaskResult`](super::tasks::CreateTaskResult) to poll with `tasks/get`.
    Task,
}

impl ResultType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
        }
    }
}

/// Who may cache a result (`cacheScope`), like HTTP `Cache-Control: public` / `private`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any client or intermediary may cache and share it.
    Public,
    /// May be reused only within the same authorization context.
    Private,
}

/// A result with only the common fields (`ping`, `logging/setLevel`, `resources/subscribe` …).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// `resultType` (2026-07-28); `None` in legacy renderings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Keeps [`ResultFields`] (and so [`Cacheable`]) to the protocol's own result types.
pub(crate) mod sealed {
    /// Implemented by [`impl_result_fields!`](super::impl_result_fields) only.
    pub trait Sealed {}
}

/// Generic access to the `resultType` and `_meta` fields of a result (implemented by the
/// protocol's result types; sealed).
pub trait ResultFields: sealed::Sealed {
    /// The `resultType` field.
    fn result_type(&self) -> Option<ResultType>;
    /// Sets or clears `resultType`.
    fn set_result_type(&mut self, result_type: Option<ResultType>);
    /// The `_meta` object.
    fn meta_mut(&mut self) -> &mut Option<JsonObject>;
}

/// Results that carry caching hints (`ttlMs`, `cacheScope`).
pub trait Cacheable: ResultFields {
    /// Sets or clears both caching hints.
    fn set_cache_hints(&mut self, ttl_ms: Option<u64>, cache_scope: Option<CacheScope>);
    /// The current hints.
    fn cache_hints(&self) -> (Option<u64>, Option<CacheScope>);
}

/// Implements [`ResultFields`] (and, with `cacheable`, [`Cacheable`]) for result structs that
/// have the conventional `result_type`, `meta`, `ttl_ms` and `cache_scope` fields.
macro_rules! impl_result_fields {
    (cacheable: $($ty:ty),* $(,)?) => {$(
        $crate::protocol::result::impl_result_fields!($ty);
        impl $crate::protocol::result::Cacheable for $ty {
            fn set_cache_hints(
                &mut self,
                ttl_ms: Option<u64>,
                cache_scope: Option<$crate::protocol::result::CacheScope>,
            ) {
                self.ttl_ms = ttl_ms;
                self.cache_scope = cache_scope;
            }
            fn cache_hints(&self) -> (Option<u64>, Option<$crate::protocol::result::CacheScope>) {
                (self.ttl_ms, self.cache_scope)
            }
        }
    )*};
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::protocol::result::sealed::Sealed for $ty {}
        impl $crate::protocol::result::ResultFields for $ty {
            fn result_type(&self) -> Option<$crate::protocol::result::ResultType> {
                self.result_type
            }
            fn set_result_type(&mut self, result_type: Option<$crate::protocol::result::ResultType>) {
                self.result_type = result_type;
            }
            fn meta_mut(&mut self) -> &mut Option<$crate::protocol::capabilities::JsonObject> {
                &mut self.meta
            }
        }
    )*};
}
pub(crate) use impl_result_fields;

impl_result_fields!(EmptyResult);

/// Reads `ttlMs` leniently: the caching spec says a negative TTL is to be treated as `0`.
pub(crate) fn de_ttl<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(v) = n.as_u64() {
        Ok(Some(v))
    } else if n.as_i64().is_some() || n.as_f64().is_some_and(|f| f < 0.0) {
        Ok(Some(0))
    } else {
        Err(serde::de::Error::custom(format!(
            "ttlMs must be an integer, got {n}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enums_use_wire_names() {
        assert_eq!(
            serde_json::to_value(ResultType::InputRequired).unwrap(),
            json!("input_required")
        );
        assert_eq!(ResultType::InputRequired.as_str(), "input_required");
        assert_eq!(
            serde_json::to_value(CacheScope::Private).unwrap(),
            json!("private")
        );
    }

    #[test]
    fn empty_result_omits_absent_fields() {
        assert_eq!(
            serde_json::to_value(EmptyResult::default()).unwrap(),
            json!({})
        );
        let mut r = EmptyResult::default();
        r.set_result_type(Some(ResultType::Complete));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "complete"})
        );
    }

    #[test]
    fn negative_ttl_reads_as_zero() {
        #[derive(Deserialize)]
        struct T {
            #[serde(default, deserialize_with = "de_ttl")]
            ttl: Option<u64>,
        }
        let t: T = serde_json::from_str(r#"{"ttl":-5}"#).unwrap();
        assert_eq!(t.ttl, Some(0));
        let t: T = serde_json::from_str(r#"{"ttl":5}"#).unwrap();
        assert_eq!(t.ttl, Some(5));
        let t: T = serde_json::from_str(r#"{}"#).unwrap();
        assert_eq!(t.ttl, None);
        assert!(serde_json::from_str::<T>(r#"{"ttl":1.5}"#).is_err());
    }
}
