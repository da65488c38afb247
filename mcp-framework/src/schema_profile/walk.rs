//! Where a JSON Schema 2020-12 document has subschemas, and a walk over all of them with
//! their JSON pointers.

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

/// Appends one reference token to a JSON pointer (`~` and `/` escaped).
pub(super) fn push_token(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Calls `visit` on `schema` and then on every subschema below it (as they are after
/// `visit` changed their parent), each with its JSON pointer.
pub(super) fn walk(schema: &mut Value, pointer: &str, visit: &mut impl FnMut(&mut Value, &str)) {
    visit(schema, pointer);
    let Value::Object(obj) = schema else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        let key = key.as_str();
        if let Value::Array(items) = value
            && (LISTS.contains(&key) || key == "items")
        {
            let here = push_token(pointer, key);
            for (i, item) in items.iter_mut().enumerate() {
                walk(item, &push_token(&here, &i.to_string()), visit);
            }
        } else if SINGLE.contains(&key) {
            walk(value, &push_token(pointer, key), visit);
        } else if MAPS.contains(&key)
            && let Value::Object(map) = value
        {
            let here = push_token(pointer, key);
            for (name, item) in map.iter_mut() {
                walk(item, &push_token(&here, name), visit);
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
        walk(&mut schema, "", &mut |_, p| seen.push(p.to_owned()));
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
