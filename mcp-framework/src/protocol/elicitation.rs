//! Elicitation: `elicitation/create` params and result, and the restricted JSON Schema
//! subset a form may use (`PrimitiveSchemaDefinition`).
//!
//! On 2026-07-28 an elicitation travels inside an
//! [`InputRequiredResult`](super::mrtr::InputRequiredResult); on legacy sessions it is a
//! server-to-client request.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;

/// The `"form"` value of `mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElicitFormMode {
    /// `"form"`.
    #[default]
    #[serde(rename = "form")]
    Form,
}

/// The `"url"` value of `mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElicitUrlMode {
    /// `"url"`.
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// Params of `elicitation/create`: a form, or a URL to open.
///
/// Discriminated by `mode`: `"url"` is [`Url`](Self::Url); `"form"` or no `mode` at all
/// (the schema makes it optional for forms, and 2025-06-18 had no modes) is
/// [`Form`](Self::Form).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Ask for structured, non-sensitive data in a form.
    Form(ElicitRequestFormParams),
    /// Send the user to a URL (for sensitive data or out-of-band flows).
    Url(ElicitRequestUrlParams),
}

impl ElicitRequestParams {
    /// A form elicitation (with an explicit `"mode": "form"`).
    pub fn form(message: impl Into<String>, requested_schema: JsonObject) -> Self {
        Self::Form(ElicitRequestFormParams {
            mode: Some(ElicitFormMode::Form),
            message: message.into(),
            requested_schema,
            meta: None,
        })
    }

    /// A URL elicitation.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url(ElicitRequestUrlParams {
            mode: ElicitUrlMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
            meta: None,
        })
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(f) => &f.message,
            Self::Url(u) => &u.message,
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let obj = JsonObject::deserialize(d)?;
        match obj.get("mode") {
            None => from_object(obj).map(Self::Form),
            Some(Value::String(m)) if m == "form" => from_object(obj).map(Self::Form),
            Some(Value::String(m)) if m == "url" => from_object(obj).map(Self::Url),
            Some(other) => Err(de::Error::custom(format!(
                "unknown elicitation mode {other}, expected \"form\" or \"url\""
            ))),
        }
    }
}

fn from_object<T: DeserializeOwned, E: de::Error>(obj: JsonObject) -> Result<T, E> {
    serde_json::from_value(Value::Object(obj)).map_err(E::custom)
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        Self::Form(p)
    }
}

impl From<ElicitRequestUrlParams> for ElicitRequestParams {
    fn from(p: ElicitRequestUrlParams) -> Self {
        Self::Url(p)
    }
}

/// Params of a form elicitation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"mode": "form"`, or `None` to leave it out (required for 2025-06-18 peers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitFormMode>,
    /// What is being asked for.
    pub message: String,
    /// A flat object schema whose properties are [`PrimitiveSchemaDefinition`]s.
    pub requested_schema: JsonObject,
    /// Request metadata (legacy revisions only; 2026-07-28 defines none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of a URL elicitation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: ElicitUrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// 2025-11-25 only, and required there: correlates the later
    /// `notifications/elicitation/complete`. 2026-07-28 removed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Request metadata (legacy revisions only; 2026-07-28 defines none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form or confirmed.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// Result of `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form data: only with `accept` in form mode. Values are strings, integers,
    /// booleans or arrays of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Result metadata (legacy revisions only; 2026-07-28 defines none here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ElicitResult {
    /// `accept` with form data (`None` for URL mode).
    pub fn accept(content: Option<JsonObject>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content,
            meta: None,
        }
    }

    /// `decline`.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// `cancel`.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The restricted JSON Schema subset of `requestedSchema.properties`.

/// `"type": "string"` in a primitive schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringSchemaType {
    /// `"string"`.
    #[default]
    #[serde(rename = "string")]
    String,
}

/// `"type": "boolean"` in a primitive schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BooleanSchemaType {
    /// `"boolean"`.
    #[default]
    #[serde(rename = "boolean")]
    Boolean,
}

/// `"type": "array"` in a primitive schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArraySchemaType {
    /// `"array"`.
    #[default]
    #[serde(rename = "array")]
    Array,
}

/// `"type"` of a [`NumberSchema`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberSchemaType {
    /// `"number"`.
    #[default]
    Number,
    /// `"integer"`.
    Integer,
}

/// The `format` of a [`StringSchema`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// `"email"`.
    Email,
    /// `"uri"`.
    Uri,
    /// `"date"`.
    Date,
    /// `"date-time"`.
    DateTime,
}

/// A string field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A number or integer field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Maximum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
}

/// A boolean field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// One option of a titled enum: `{"const": value, "title": label}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// Its label.
    pub title: String,
}

/// Single choice among plain values (`enum`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice among labelled values (`oneOf` of `{const, title}`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<EnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringSchemaType,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options.
    pub any_of: Vec<EnumOption>,
}

/// Multiple choice among plain values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArraySchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Multiple choice among labelled values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArraySchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Deprecated single choice with labels in a parallel `enumNames` array.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringSchemaType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Labels, index for index with `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One property of an elicitation form's `requestedSchema`.
///
/// Deserialization looks at `type` and then at the distinguishing keyword (`oneOf`,
/// `enumNames`, `enum`, `items.anyOf`), so each shape lands in its own variant.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// A string.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// Single choice, plain values.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Single choice, labelled values.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Multiple choice, plain values.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Multiple choice, labelled values.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Deprecated `enum` + `enumNames`.
    LegacyTitled(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let obj = JsonObject::deserialize(d)?;
        let has = |k: &str| obj.contains_key(k);
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "string" if has("oneOf") => from_object(obj).map(Self::TitledSingleSelect),
            "string" if has("enumNames") => from_object(obj).map(Self::LegacyTitled),
            "string" if has("enum") => from_object(obj).map(Self::UntitledSingleSelect),
            "string" => from_object(obj).map(Self::String),
            "number" | "integer" => from_object(obj).map(Self::Number),
            "boolean" => from_object(obj).map(Self::Boolean),
            "array" if obj.get("items").is_some_and(|i| i.get("anyOf").is_some()) => {
                from_object(obj).map(Self::TitledMultiSelect)
            }
            "array" => from_object(obj).map(Self::UntitledMultiSelect),
            other => Err(de::Error::custom(format!(
                "unsupported elicitation field type {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn form_mode_is_optional_and_preserved() {
        let schema = json!({"type": "object", "properties": {}});
        let without: ElicitRequestParams =
            serde_json::from_value(json!({"message": "m", "requestedSchema": schema})).unwrap();
        let ElicitRequestParams::Form(f) = &without else {
            panic!("form")
        };
        assert_eq!(f.mode, None);
        assert!(
            serde_json::to_value(&without)
                .unwrap()
                .get("mode")
                .is_none()
        );

        let explicit = ElicitRequestParams::form("m", schema.as_object().unwrap().clone());
        assert_eq!(serde_json::to_value(&explicit).unwrap()["mode"], "form");
    }

    #[test]
    fn url_mode() {
        let p = ElicitRequestParams::url("go", "https://example.com/x");
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            v,
            json!({"mode": "url", "message": "go", "url": "https://example.com/x"})
        );
        assert_eq!(serde_json::from_value::<ElicitRequestParams>(v).unwrap(), p);
        assert_eq!(p.message(), "go");
        let err =
            serde_json::from_value::<ElicitRequestParams>(json!({"mode": "popup", "message": "m"}))
                .unwrap_err();
        assert!(err.to_string().contains("popup"), "{err}");
    }

    #[test]
    fn decline_has_no_content() {
        let v = serde_json::to_value(ElicitResult::decline()).unwrap();
        assert_eq!(v, json!({"action": "decline"}));
        let r: ElicitResult = serde_json::from_value(v).unwrap();
        assert_eq!(r, ElicitResult::decline());
        assert_eq!(
            serde_json::to_value(ElicitResult::cancel()).unwrap(),
            json!({"action": "cancel"})
        );
    }

    #[test]
    fn primitive_schemas_land_in_their_variant() {
        let cases = [
            (json!({"type": "string"}), "String"),
            (json!({"type": "integer", "minimum": 1.5}), "Number"),
            (json!({"type": "boolean"}), "Boolean"),
            (
                json!({"type": "string", "enum": ["a"]}),
                "UntitledSingleSelect",
            ),
            (
                json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
                "TitledSingleSelect",
            ),
            (
                json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}),
                "LegacyTitled",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["a"]}}),
                "UntitledMultiSelect",
            ),
            (
                json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
                "TitledMultiSelect",
            ),
        ];
        for (v, want) in cases {
            let p: PrimitiveSchemaDefinition = serde_json::from_value(v.clone()).unwrap();
            let got = format!("{p:?}");
            assert!(got.starts_with(want), "{v} parsed as {got}");
            assert_eq!(serde_json::to_value(&p).unwrap(), v);
        }
        assert!(
            serde_json::from_value::<PrimitiveSchemaDefinition>(json!({"type": "object"})).is_err()
        );
    }
}
