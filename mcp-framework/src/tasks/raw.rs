//! [`RawJson`]: a JSON value kept as its text (a task's result), so that keeping it costs
//! its bytes, not a tree of parsed values, and handing it out costs a reference count.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON value kept as its text, shared: cloning it does not copy the text, and it is
/// serialized verbatim. Two are equal when their texts are.
///
/// Parsed into a [`serde_json::Value`], `[0,0,…]` takes a whole `Value` per two bytes of
/// text; kept as a `RawJson` it takes its length.
#[derive(Clone)]
pub struct RawJson(Arc<RawValue>);

impl RawJson {
    /// The JSON text in `bytes`, checked to be one JSON value.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        let raw: &RawValue = serde_json::from_slice(bytes)?;
        Ok(Self(Arc::from(raw.to_owned())))
    }

    /// `value`, encoded.
    pub fn from_value(value: &Value) -> Self {
        let raw = serde_json::value::to_raw_value(value).expect("a JSON value serializes");
        Self(Arc::from(raw))
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The text as a borrowed raw value (to serialize it inside another value).
    pub fn as_raw(&self) -> &RawValue {
        &self.0
    }

    /// The length of the text, in bytes.
    pub fn len(&self) -> usize {
        self.get().len()
    }

    /// Whether the text is empty (never: the shortest JSON value is one byte).
    pub fn is_empty(&self) -> bool {
        self.get().is_empty()
    }

    /// The value, parsed.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).expect("a RawJson holds valid JSON")
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self::from_value(&value)
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        Self(Arc::from(raw))
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 256;
        let text = self.get();
        if text.len() <= SHOWN {
            write!(f, "RawJson({text})")
        } else {
            let cut = (0..=SHOWN)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            write!(f, "RawJson({}… {} bytes)", &text[..cut], text.len())
        }
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn it_keeps_the_text_and_serializes_it_verbatim() {
        let raw = RawJson::from_slice(br#" {"a": [1, 2]} "#).unwrap();
        assert_eq!(raw.get(), r#"{"a": [1, 2]}"#);
        assert_eq!(raw.to_value(), json!({"a": [1, 2]}));
        let outer = serde_json::to_string(&json!({"x": 1})).unwrap();
        assert_eq!(outer, r#"{"x":1}"#);
        #[derive(Serialize, Deserialize)]
        struct Holder {
            r: RawJson,
        }
        let text = serde_json::to_string(&Holder { r: raw.clone() }).unwrap();
        assert_eq!(text, r#"{"r":{"a": [1, 2]}}"#);
        let back: Holder = serde_json::from_str(&text).unwrap();
        assert_eq!(back.r, raw);
        assert!(RawJson::from_slice(b"[1,").is_err());
        assert_eq!(RawJson::from(json!([0, 0])).get(), "[0,0]");
        assert_eq!(RawJson::from(json!([0, 0])).len(), 5);
    }
}
