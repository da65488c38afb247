//! Where a JSON Schema 2020-12 document has subschemas, and a walk over all of them with
//! their JSON pointers.

use std::fmt;

use serde_json::Value;

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "additionalItems",
];

/// Keywords whose value is an array of subschemas.
const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The combinators and conditionals, which clients refuse at the root of an input schema.
pub(super) const COMBINATORS: &[&str] = &["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

/// Where a subschema is: its parent's path and one reference token. Written out as a JSON
/// pointer only when a violation names it (a walk over every schema of a server builds
/// no strings).
#[derive(Clone, Copy, Debug)]
pub(super) enum Path<'a> {
    /// Where the walk started (`/inputSchema`, `/outputSchema`, or `""`).
    Root(&'a str),
    /// A member of the parent.
    Key(&'a Self, &'a str),
    /// An element of the parent.
    Index(&'a Self, usize),
}

impl<'a> Path<'a> {
    /// The member `key` of this schema.
    pub(super) fn key(&'a self, key: &'a str) -> Self {
        Self::Key(self, key)
    }
}

impl fmt::Display for Path<'_> {
    /// The JSON pointer (`~` and `/` in tokens escaped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Root(pointer) => f.write_str(pointer),
            Self::Key(parent, token) => {
                write!(f, "{parent}/")?;
                for c in token.chars() {
                    match c {
                        '~' => f.write_str("~0")?,
                        '/' => f.write_str("~1")?,
                        c => write!(f, "{c}")?,
                    }
                }
                Ok(())
            }
            Self::Index(parent, i) => write!(f, "{parent}/{i}"),
        }
    }
}

/// Calls `visit` on `schema` and then on every subschema below it (as they are after
/// `visit` changed their parent), each with its path.
pub(super) fn walk(
    schema: &mut Value,
    path: &Path<'_>,
    visit: &mut impl FnMut(&mut Value, &Path<'_>),
) {
    visit(schema, path);
    let Value::Object(obj) = schema else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        let key = key.as_str();
        let here = path.key(key);
        if let Value::Array(items) = value
            && (LISTS.contains(&key) || key == "items")
        {
            for (i, item) in items.iter_mut().enumerate() {
                walk(item, &Path::Index(&here, i), visit);
            }
        } else if SINGLE.contains(&key) {
            walk(value, &here, visit);
        } else if MAPS.contains(&key)
            && let Value::Object(map) = value
        {
            for (name, item) in map.iter_mut() {
                walk(item, &here.key(name), visit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visits_every_subschema() {
        let mut schema = json!({
            "type": "object",
            "properties": {"a/b": {"items": {"type": "string"}}, "enum": {"enum": [{"type": 1}]}},
            "anyOf": [{"not": true}],
            "$defs": {"D": {"prefixItems": [{}]}}
        });
        let mut seen = Vec::new();
        walk(&mut schema, &Path::Root(""), &mut |_, p| {
            seen.push(p.to_string());
        });
        assert_eq!(
            seen,
            [
                "",
                "/properties/a~1b",
                "/properties/a~1b/items",
                "/properties/enum",
                "/anyOf/0",
                "/anyOf/0/not",
                "/$defs/D",
                "/$defs/D/prefixItems/0",
            ]
        );
    }
}
