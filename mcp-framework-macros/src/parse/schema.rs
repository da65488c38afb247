//! The compile-time schema lint of `#[tool]`: the profile a tool is checked against
//! (`schema = "…"`, else `portable`, the runtime's default), what its signature spells that
//! the profile refuses (an error) or degrades (a warning), and the rules it accepts with
//! `allow(…)`. What only the derived schemas show (a recursive type, a map inside a
//! struct) is checked by the runtime in `build()`, under the same rule names.

use darling::util::PathList;
use proc_macro2::Span;
use quote::ToTokens;
use syn::{GenericArgument, Ident, LitStr, PathArguments, Type};

use super::{Errors, error};
use crate::model::{FnModel, Profile, SchemaModel, Warning};

/// A rule of `allow(…)`: its name, and the runtime's `SchemaRule` variant when `build()`
/// checks it too (`None`: only this lint knows it).
const RULES: &[(&str, Option<&str>)] = &[
    ("tool_name", Some("ToolName")),
    ("root_combinator", Some("RootCombinator")),
    ("recursive_type", Some("RecursiveType")),
    ("unresolvable_ref", Some("UnresolvableRef")),
    ("dialect", Some("Dialect")),
    ("open_object", Some("OpenObject")),
    ("optional_field", Some("OptionalField")),
    ("tuple", None),
];

/// The longest tool name a portable tool may have (with the server's name, which `build()`
/// adds, clients keep 64 characters).
const MAX_NAME: usize = 64;

/// `schema = "…"` and `allow(…)` as written.
pub(super) struct SchemaArgs {
    pub(super) schema: Option<LitStr>,
    pub(super) allow: Option<PathList>,
}

/// Where the tool's name comes from, for the diagnostic.
pub(super) enum NameSource<'a> {
    Option(&'a LitStr),
    Function(&'a Ident),
}

/// Checks the tool against its profile; errors go to `acc`, warnings into the model.
pub(super) fn lint(
    args: &SchemaArgs,
    name: &str,
    source: &NameSource<'_>,
    func: &FnModel,
    acc: &mut Errors,
) -> SchemaModel {
    let profile = args.schema.as_ref().and_then(|lit| {
        let p = match lit.value().as_str() {
            "standard" => Profile::Standard,
            "portable" => Profile::Portable,
            "openai_strict" => Profile::OpenAiStrict,
            other => {
                acc.push(error(
                    lit,
                    format!(
                        "unknown schema profile `{other}`: expected \"standard\", \"portable\" \
                         or \"openai_strict\""
                    ),
                ));
                return None;
            }
        };
        Some(p)
    });
    let mut accepted = Vec::new();
    let mut allow = Vec::new();
    for path in args.allow.iter().flat_map(|l| l.iter()) {
        let rule = path.get_ident().and_then(|ident| {
            let name = ident.to_string();
            RULES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(n, variant)| (*n, *variant, ident))
        });
        let Some((name, variant, ident)) = rule else {
            let names: Vec<String> = RULES.iter().map(|(n, _)| format!("`{n}`")).collect();
            acc.push(error(
                path,
                format!("unknown schema rule: expected one of {}", names.join(", ")),
            ));
            continue;
        };
        accepted.push(name);
        if let Some(variant) = variant {
            allow.push(Ident::new(variant, ident.span()));
        }
    }
    let mut model = SchemaModel {
        profile,
        allow,
        warnings: Vec::new(),
    };
    let checked = profile.unwrap_or(Profile::Portable);
    if checked == Profile::Standard {
        return model;
    }
    let checks = |rule: &str| !accepted.contains(&rule);
    if checks("tool_name") {
        check_name(name, source, acc);
    }
    let arg_types: Vec<&Type> = func.args().map(|(_, a)| &a.field_ty).collect();
    if checks("tuple") {
        let mut tuples = Vec::new();
        for ty in &arg_types {
            find(ty, &mut is_tuple, &mut tuples);
        }
        find_in_output(&func.output, &mut tuples);
        for tuple in tuples {
            model.warnings.push(Warning {
                span: first_span(tuple),
                message: format!(
                    "`{}` is a tuple: under the {} schema profile it becomes an array whose \
                     `items` admit every element type, as clients without `prefixItems` \
                     (Gemini, VS Code) would lose the positions. Use a struct with named \
                     fields, or accept it with `#[tool(allow(tuple))]`",
                    compact(tuple),
                    checked.name()
                ),
            });
        }
    }
    if checked == Profile::OpenAiStrict && checks("open_object") {
        let mut maps = Vec::new();
        for ty in &arg_types {
            find(ty, &mut is_map, &mut maps);
        }
        for map in maps {
            acc.push(error(
                map,
                format!(
                    "`{}` is a map: OpenAI's strict mode needs `additionalProperties: false` \
                     on every object, so a map has no strict form. Use a struct (or a list of \
                     key-value structs), or accept it with `allow(open_object)`",
                    compact(map)
                ),
            ));
        }
    }
    model
}

/// `tool_name`: `[A-Za-z0-9_-]`, at most 64 characters.
fn check_name(name: &str, source: &NameSource<'_>, acc: &mut Errors) {
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')));
    let problem = match bad {
        Some(c) => format!(
            "tool name `{name}` has {c:?}: OpenAI function names (and the clients that pass \
             tool names on to them) allow only ASCII letters, digits, `_` and `-`"
        ),
        None if name.len() > MAX_NAME => format!(
            "tool name `{name}` has {} characters: clients that prefix tool names with the \
             server's cut them at {MAX_NAME}, the server's name included",
            name.len()
        ),
        None => return,
    };
    let suggestion: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect();
    let message = format!(
        "{problem}. The portable schema profile refuses it: rename it \
         (`name = \"{suggestion}\"`), serve the tool with `schema = \"standard\"`, or accept \
         it with `allow(tool_name)`"
    );
    match source {
        NameSource::Option(lit) => acc.push(error(lit, message)),
        NameSource::Function(ident) => acc.push(error(ident, message)),
    }
}

/// The tuples of the return type: of `T` in `Result<T, E>`, not of the error type.
fn find_in_output<'a>(output: &'a Type, out: &mut Vec<&'a Type>) {
    if let Type::Path(p) = output
        && let Some(last) = p.path.segments.last()
        && last.ident == "Result"
        && let PathArguments::AngleBracketed(a) = &last.arguments
        && let Some(GenericArgument::Type(ok)) = a.args.first()
    {
        find(ok, &mut is_tuple, out);
    } else {
        find(output, &mut is_tuple, out);
    }
}

/// Collects the outermost types in `ty` (itself included) that match `wanted`.
fn find<'a>(ty: &'a Type, wanted: &mut impl FnMut(&Type) -> bool, out: &mut Vec<&'a Type>) {
    if wanted(ty) {
        out.push(ty);
        return;
    }
    match ty {
        Type::Reference(r) => find(&r.elem, wanted, out),
        Type::Slice(s) => find(&s.elem, wanted, out),
        Type::Array(a) => find(&a.elem, wanted, out),
        Type::Paren(p) => find(&p.elem, wanted, out),
        Type::Group(g) => find(&g.elem, wanted, out),
        Type::Tuple(t) => t.elems.iter().for_each(|e| find(e, wanted, out)),
        Type::Path(p) => {
            for seg in &p.path.segments {
                if let PathArguments::AngleBracketed(a) = &seg.arguments {
                    for arg in &a.args {
                        if let GenericArgument::Type(t) = arg {
                            find(t, wanted, out);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// A tuple other than `()`.
fn is_tuple(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if !t.elems.is_empty())
}

/// `HashMap`, `BTreeMap`, `IndexMap` and `serde_json::Map`, by their last path segment.
fn is_map(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| {
        matches!(s.ident.to_string().as_str(), "HashMap" | "BTreeMap" | "IndexMap" | "Map")
    }))
}

/// The span of a type's first token (a tuple's parentheses cover all of it).
fn first_span(ty: &Type) -> Span {
    ty.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

/// A type as source text, without the spaces `to_string` puts between tokens.
fn compact(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    text.replace(" , ", ", ")
        .replace(" ,", ",")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" :: ", "::")
        .replace(":: ", "::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn finds_nested_types() {
        let ty: Type = parse_quote!(Option<Vec<(u8, String)>>);
        let mut out = Vec::new();
        find(&ty, &mut is_tuple, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(compact(out[0]), "(u8, String)");

        let ty: Type = parse_quote!(Result<(), (u8, u8)>);
        let mut out = Vec::new();
        find_in_output(&ty, &mut out);
        assert!(out.is_empty(), "the error type is not output");

        let ty: Type = parse_quote!(std::collections::HashMap<String, Vec<u8>>);
        assert!(is_map(&ty));
        assert_eq!(compact(&ty), "std::collections::HashMap<String, Vec<u8>>");
    }
}
