//! `#[doc]` attributes → a description: every line trimmed, lines joined with `\n`, blank
//! lines at both ends dropped. `#[doc = include_str!(…)]` (any non-literal value) is kept
//! as an expression, and the whole description then becomes a `concat!(…)`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// A description assembled from doc attributes (or given as `description = "…"`).
#[derive(Debug, Clone)]
pub(crate) struct Docs {
    parts: Vec<DocPart>,
}

#[derive(Debug, Clone)]
enum DocPart {
    Text(String),
    Expr(Expr),
}

impl Docs {
    /// A description given as text.
    pub(crate) fn text(text: impl Into<String>) -> Self {
        Self {
            parts: vec![DocPart::Text(text.into())],
        }
    }

    /// A description computed by an expression (`description = include_str!(…)`).
    pub(crate) fn from_expr(expr: Expr) -> Self {
        Self {
            parts: vec![DocPart::Expr(expr)],
        }
    }

    /// The description, if it is known at expansion time (no `include_str!`).
    #[cfg(test)]
    pub(crate) fn as_text(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [DocPart::Text(t)] => Some(t),
            _ => None,
        }
    }

    /// Collects the `#[doc]` attributes of an item; `None` when there are none (or only
    /// blank ones).
    pub(crate) fn from_attrs(attrs: &[Attribute]) -> Option<Self> {
        let mut parts = Vec::new();
        let mut lines: Vec<String> = Vec::new();
        for attr in attrs {
            let Meta::NameValue(nv) = &attr.meta else {
                continue;
            };
            if !nv.path.is_ident("doc") {
                continue;
            }
            match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => lines.extend(doc_lines(&s.value())),
                other => {
                    flush(&mut lines, &mut parts);
                    parts.push(DocPart::Expr(other.clone()));
                }
            }
        }
        flush(&mut lines, &mut parts);
        // Blank lines at both ends go; text parts that end up empty go with them.
        if let Some(DocPart::Text(first)) = parts.first_mut() {
            *first = first.trim_start_matches('\n').to_owned();
        }
        if let Some(DocPart::Text(last)) = parts.last_mut() {
            *last = last.trim_end_matches('\n').to_owned();
        }
        parts.retain(|p| !matches!(p, DocPart::Text(t) if t.is_empty()));
        (!parts.is_empty()).then_some(Self { parts })
    }
}

/// The lines of one doc attribute's text, trimmed. A block comment's continuation lines
/// lose their leading `*` when every one of them has it.
fn doc_lines(text: &str) -> Vec<String> {
    let raw: Vec<&str> = text.split('\n').collect();
    let starred = raw.len() > 1
        && raw[1..]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with('*'));
    raw.iter()
        .enumerate()
        .map(|(i, l)| {
            let l = l.trim();
            if starred && i > 0 {
                l.trim_start_matches('*').trim().to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect()
}

fn flush(lines: &mut Vec<String>, parts: &mut Vec<DocPart>) {
    if !lines.is_empty() {
        parts.push(DocPart::Text(lines.join("\n")));
        lines.clear();
    }
}

impl ToTokens for Docs {
    /// A string literal, or `::core::concat!(…)` when an expression is involved.
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self.parts.as_slice() {
            [DocPart::Text(t)] => return t.to_tokens(tokens),
            [DocPart::Expr(e)] => return e.to_tokens(tokens),
            _ => {}
        }
        let mut args = TokenStream::new();
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                args.extend(quote!("\n",));
            }
            match part {
                DocPart::Text(t) => args.extend(quote!(#t,)),
                DocPart::Expr(e) => args.extend(quote!(#e,)),
            }
        }
        tokens.extend(quote!(::core::concat!(#args)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn docs(attrs: &[Attribute]) -> Option<Docs> {
        Docs::from_attrs(attrs)
    }

    #[test]
    fn line_comments_are_trimmed_and_joined() {
        let d = docs(&[
            parse_quote!(#[doc = ""]),
            parse_quote!(#[doc = " Adds two numbers.  "]),
            parse_quote!(#[doc = ""]),
            parse_quote!(#[doc = "   Second paragraph."]),
            parse_quote!(#[doc = " "]),
        ])
        .unwrap();
        assert_eq!(d.as_text(), Some("Adds two numbers.\n\nSecond paragraph."));
    }

    #[test]
    fn block_comments_lose_their_stars() {
        let d = docs(&[parse_quote!(#[doc = "\n * first\n * second\n "])]).unwrap();
        assert_eq!(d.as_text(), Some("first\nsecond"));
        let d = docs(&[parse_quote!(#[doc = " right operand "])]).unwrap();
        assert_eq!(d.as_text(), Some("right operand"));
    }

    #[test]
    fn other_attributes_are_ignored() {
        assert!(docs(&[parse_quote!(#[doc(hidden)]), parse_quote!(#[inline])]).is_none());
        assert!(docs(&[parse_quote!(#[doc = "  "])]).is_none());
    }

    #[test]
    fn include_str_becomes_concat() {
        let d = docs(&[
            parse_quote!(#[doc = " Intro."]),
            parse_quote!(#[doc = include_str!("README.md")]),
        ])
        .unwrap();
        assert!(d.as_text().is_none());
        assert_eq!(
            d.to_token_stream().to_string(),
            quote!(::core::concat!("Intro.", "\n", include_str!("README.md"),)).to_string()
        );
    }
}
