//! Schema profiles: how a tool's JSON Schemas are shaped for the clients that read them
//! ([`SchemaProfile`]), the rules a profile refuses a tool for ([`SchemaRule`]) and what a
//! refusal says ([`SchemaViolation`]). [`shape`] runs once per tool, when its entry is
//! built, never per request; the server keeps validating arguments against the schema the
//! tool was defined with.
//!
//! `rules` names the profiles and their rules, `inline` resolves `$ref`s, `portable` and
//! `strict` are the two transforms, `walk` visits the subschemas of a 2020-12 schema.

mod inline;
mod portable;
mod rules;
mod strict;
mod walk;

pub(crate) use rules::{Role, Shaped};
pub use rules::{SchemaProfile, SchemaRule, SchemaViolation};

use crate::protocol::JsonObject;

/// Shapes one of a tool's schemas for `profile` (in place: the schema is taken, not copied).
pub(crate) fn shape(profile: SchemaProfile, role: Role, schema: JsonObject) -> Shaped {
    let mut shaped = Shaped {
        schema,
        wrap: false,
        violations: Vec::new(),
    };
    match profile {
        SchemaProfile::Standard => {}
        SchemaProfile::Portable => {
            portable::apply(&mut shaped, role);
            // Not under `OpenAiStrict`, which needs optional properties nullable.
            if role == Role::Input {
                portable::optional_without_null(&mut shaped);
            }
        }
        SchemaProfile::OpenAiStrict => {
            portable::apply(&mut shaped, role);
            if role == Role::Input {
                strict::apply(&mut shaped);
            }
        }
    }
    shaped
}

impl SchemaProfile {
    /// Shapes a schema of arguments a client sends as this profile shapes a tool's
    /// `inputSchema` (`$ref`s inlined, optional properties without `null`, …), with what the
    /// profile refuses in it (pointers under `/inputSchema`). An extension that lists
    /// schemas of its own to clients (an event type's arguments, say) shapes them with the
    /// server's profile ([`Setup::schema_profile`](crate::extension::Setup::schema_profile)),
    /// and validates what it receives against the schema as written.
    pub fn shape_input(self, schema: JsonObject) -> (JsonObject, Vec<SchemaViolation>) {
        let shaped = shape(self, Role::Input, schema);
        (shaped.schema, shaped.violations)
    }
}

/// The longest server name plus tool name the common clients keep whole.
const MAX_QUALIFIED_NAME: usize = 64;

/// The `tool_name` rule of `profile` for a tool of the server `server`.
pub(crate) fn check_name(
    profile: SchemaProfile,
    server: &str,
    tool: &str,
) -> Option<SchemaViolation> {
    if profile == SchemaProfile::Standard {
        return None;
    }
    let violation = |message| Some(SchemaViolation::new(SchemaRule::ToolName, "/name", message));
    if let Some(bad) = tool
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
    {
        return violation(format!(
            "`{tool}` has {bad:?}: OpenAI function names (and clients that pass tool names \
             on to them) allow only ASCII letters, digits, `_` and `-`"
        ));
    }
    let total = server.len() + tool.len();
    if total > MAX_QUALIFIED_NAME {
        return violation(format!(
            "the server name `{server}` and the tool name `{tool}` have {total} characters \
             together: clients that prefix tool names with the server's cut them at \
             {MAX_QUALIFIED_NAME}"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let p = SchemaProfile::Portable;
        assert!(check_name(p, "notes", "create_note").is_none());
        assert!(check_name(SchemaProfile::Standard, "notes", "math.add").is_none());
        let v = check_name(p, "notes", "math.add").unwrap();
        assert_eq!((v.rule(), v.pointer()), (SchemaRule::ToolName, "/name"));
        assert!(v.message().contains("'.'"), "{v}");
        let long = "t".repeat(60);
        assert!(check_name(p, "abcd", &long).is_none());
        let v = check_name(SchemaProfile::OpenAiStrict, "abcde", &long).unwrap();
        assert!(v.message().contains("65 characters"), "{v}");
        assert!(v.to_string().contains("allow(tool_name)"), "{v}");
    }

    #[test]
    fn standard_changes_nothing() {
        let schema = serde_json::json!({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}});
        let s = shape(
            SchemaProfile::Standard,
            Role::Output,
            schema.as_object().unwrap().clone(),
        );
        assert_eq!(serde_json::Value::Object(s.schema), schema);
        assert!(!s.wrap && s.violations.is_empty());
    }
}
