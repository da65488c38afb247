//! `$ref` inlining: every local reference (`#/$defs/Name`) replaced by a copy of its
//! definition, so that clients without `$ref` support (Gemini) see whole schemas. A type
//! that contains itself cannot be inlined: its reference stays, with `$defs`, and is
//! reported, as is any other kind of reference (anchors, other documents).

use serde_json::{Map, Value};

use super::rules::{SchemaRule, SchemaViolation};
use super::walk::Path;
use crate::protocol::JsonObject;

/// Keywords that only annotate: on a `$ref`, the referring schema's value wins.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Inlines the references of `root`; `pointer` is where `root` is in the tool definition.
pub(super) fn inline_refs(root: &mut JsonObject, pointer: &str, out: &mut Vec<SchemaViolation>) {
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        Some(other) => {
            root.insert("$defs".into(), other);
            Map::new()
        }
        None => Map::new(),
    };
    let mut inliner = Inliner {
        defs: &defs,
        stack: Vec::new(),
        kept: false,
        out,
    };
    let mut whole = Value::Object(std::mem::take(root));
    inliner.schema(&mut whole, &Path::Root(pointer));
    *root = match whole {
        Value::Object(obj) => obj,
        // A root `$ref` to a `true`/`false` definition.
        other => Map::from_iter([("allOf".to_owned(), Value::Array(vec![other]))]),
    };
    if inliner.kept && !defs.is_empty() {
        // Some references remain (reported): they need their definitions.
        root.insert("$defs".into(), Value::Object(defs));
    }
}

struct Inliner<'a> {
    defs: &'a JsonObject,
    /// The definitions being inlined, outermost first.
    stack: Vec<&'a str>,
    /// A reference was left in place.
    kept: bool,
    out: &'a mut Vec<SchemaViolation>,
}

impl<'a> Inliner<'a> {
    /// Inlines in the subschemas under `key` of a schema at `pointer`. Values that are not
    /// schemas (`enum`, `const`, `default`…) are left alone.
    fn subschemas(&mut self, key: &str, value: &mut Value, path: &Path<'_>) {
        match key {
            "enum" | "const" | "default" | "examples" | "required" | "type" => {}
            _ => match value {
                Value::Object(_) if !is_map_keyword(key) => {
                    self.schema(value, &path.key(key));
                }
                Value::Object(map) => {
                    let here = path.key(key);
                    for (name, item) in map.iter_mut() {
                        self.schema(item, &here.key(name));
                    }
                }
                Value::Array(items) => {
                    let here = path.key(key);
                    for (i, item) in items.iter_mut().enumerate() {
                        self.schema(item, &Path::Index(&here, i));
                    }
                }
                _ => {}
            },
        }
    }

    /// Inlines `schema` (at `path`) and everything below it.
    fn schema(&mut self, schema: &mut Value, path: &Path<'_>) {
        let Value::Object(obj) = schema else {
            return;
        };
        // Found while passing over the members (no lookup of its own: start-up inlines every
        // schema of every tool, and most have no reference).
        let mut reference = None;
        for (key, value) in obj.iter_mut() {
            if key == "$ref" {
                reference = value.as_str().map(str::to_owned);
            } else {
                self.subschemas(key, value, path);
            }
        }
        let Some(reference) = reference else {
            return;
        };
        let Some(name) = reference.strip_prefix("#/$defs/").map(unescape) else {
            let message = if reference == "#" {
                "the schema refers to its own root (a recursive type) and cannot be inlined"
                    .to_owned()
            } else {
                format!("`$ref: {reference}` is not a local `#/$defs/…` reference")
            };
            let rule = if reference == "#" {
                SchemaRule::RecursiveType
            } else {
                SchemaRule::UnresolvableRef
            };
            self.keep(rule, path, message);
            return;
        };
        let Some((name, definition)) = self.defs.get_key_value(&name) else {
            self.keep(
                SchemaRule::UnresolvableRef,
                path,
                format!("`$ref: {reference}` names no definition in `$defs`"),
            );
            return;
        };
        if self.stack.contains(&name.as_str()) {
            let cycle: Vec<&str> = self.stack.iter().copied().chain([name.as_str()]).collect();
            self.keep(
                SchemaRule::RecursiveType,
                path,
                format!(
                    "`{name}` contains itself ({}) and cannot be inlined",
                    cycle.join(" → ")
                ),
            );
            return;
        }
        let mut copy = definition.clone();
        self.stack.push(name);
        self.schema(&mut copy, path);
        self.stack.pop();
        obj.remove("$ref");
        *schema = merge(copy, std::mem::take(obj));
    }

    fn keep(&mut self, rule: SchemaRule, path: &Path<'_>, message: String) {
        self.kept = true;
        self.out
            .push(SchemaViolation::new(rule, path.to_string(), message));
    }
}

fn is_map_keyword(key: &str) -> bool {
    matches!(
        key,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// A JSON pointer token unescaped (`~1` → `/`, `~0` → `~`).
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// A definition with the keywords of the schema that referred to it: annotations of the
/// referring schema win; other keywords that both have are kept apart in an `allOf`.
fn merge(definition: Value, siblings: JsonObject) -> Value {
    if siblings.is_empty() {
        return definition;
    }
    let Value::Object(mut def) = definition else {
        // `true`/`false` definitions: keep the meaning with an `allOf`.
        let mut out = siblings;
        out.insert("allOf".into(), Value::Array(vec![definition]));
        return Value::Object(out);
    };
    let clash = siblings
        .keys()
        .any(|k| def.contains_key(k) && !ANNOTATIONS.contains(&k.as_str()));
    if clash {
        let mut out = siblings;
        out.insert("allOf".into(), Value::Array(vec![Value::Object(def)]));
        return Value::Object(out);
    }
    for (k, v) in siblings {
        def.insert(k, v);
    }
    Value::Object(def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inlined(schema: Value) -> (Value, Vec<(SchemaRule, String)>) {
        let Value::Object(mut obj) = schema else {
            panic!()
        };
        let mut out = Vec::new();
        inline_refs(&mut obj, "/inputSchema", &mut out);
        let found = out
            .iter()
            .map(|v| (v.rule(), v.pointer().to_owned()))
            .collect();
        (Value::Object(obj), found)
    }

    #[test]
    fn inlines_nested_definitions() {
        let (s, found) = inlined(json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "An A."},
                "b": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
                "e": {"enum": [{"$ref": "#/$defs/A"}]}
            },
            "$defs": {
                "A": {"type": "object", "description": "A.", "properties": {"n": {"$ref": "#/$defs/N"}}},
                "N": {"type": "integer"}
            }
        }));
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "object", "description": "An A.", "properties": {"n": {"type": "integer"}}},
                    "b": {"anyOf": [
                        {"type": "object", "description": "A.", "properties": {"n": {"type": "integer"}}},
                        {"type": "null"}
                    ]},
                    "e": {"enum": [{"$ref": "#/$defs/A"}]}
                }
            })
        );
    }

    #[test]
    fn clashing_siblings_go_to_all_of() {
        let (s, _) = inlined(json!({
            "properties": {"a": {"$ref": "#/$defs/A", "minimum": 1}},
            "$defs": {"A": {"type": "integer", "minimum": 0}}
        }));
        assert_eq!(
            s["properties"]["a"],
            json!({"minimum": 1, "allOf": [{"type": "integer", "minimum": 0}]})
        );
    }

    #[test]
    fn root_references_are_inlined() {
        let (s, found) = inlined(json!({
            "$ref": "#/$defs/Args",
            "$defs": {"Args": {"type": "object", "properties": {"x": {"type": "string"}}}}
        }));
        assert!(found.is_empty());
        assert_eq!(
            s,
            json!({"type": "object", "properties": {"x": {"type": "string"}}})
        );
    }

    #[test]
    fn recursion_is_reported_and_kept() {
        let (s, found) = inlined(json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}},
            "$defs": {"Tree": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
            }}}
        }));
        assert_eq!(
            found,
            [(
                SchemaRule::RecursiveType,
                "/inputSchema/properties/tree/properties/children/items".to_owned()
            )]
        );
        assert!(s["$defs"]["Tree"].is_object());
        assert_eq!(
            s["properties"]["tree"]["properties"]["children"]["items"]["$ref"],
            "#/$defs/Tree"
        );

        let (_, found) = inlined(json!({"properties": {"next": {"$ref": "#"}}}));
        assert_eq!(found[0].0, SchemaRule::RecursiveType);
    }

    #[test]
    fn other_references_are_reported() {
        let (_, found) = inlined(json!({"properties": {
            "a": {"$ref": "#addressDef"},
            "b": {"$ref": "https://example.com/s.json"},
            "c": {"$ref": "#/$defs/Missing"}
        }}));
        let rules: Vec<_> = found.iter().map(|f| f.0).collect();
        assert_eq!(rules, [SchemaRule::UnresolvableRef; 3]);
    }
}
