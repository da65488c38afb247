//! Attribute arguments and the annotated function → model. Every diagnostic of the crate
//! is produced here, spanned on the user's tokens, and all of them are reported in one
//! pass ([`Errors`]).

mod header;
mod methods;
mod params;
mod prompt;
mod resource;
mod schema;
mod template;
mod tool;
mod ui;

pub(crate) use methods::tool_impl;
pub(crate) use prompt::prompt;
pub(crate) use resource::{html_view, resource};
pub(crate) use tool::tool;

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, FnArg, ItemFn, Lit, LitStr, Path, parse_quote};

use crate::docs::Docs;
use crate::model::Common;

/// Which macro is parsing: decides the messages and the parameter attributes allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    fn attr(self) -> &'static str {
        match self {
            Self::Tool => "#[tool]",
            Self::Prompt => "#[prompt]",
            Self::Resource => "#[resource]",
        }
    }
}

/// The diagnostics of one macro invocation, all reported at once.
///
/// Errors are `syn::Error`s made with `new_spanned`, which underline the offending tokens
/// from the first to the last (darling's errors carry the span of one token only, as
/// joining spans is not stable); darling's own errors are converted as they come.
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn new() -> Self {
        Self(None)
    }

    pub(crate) fn push(&mut self, e: impl Into<syn::Error>) {
        let e = e.into();
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// The value, or `None` with the error recorded.
    pub(crate) fn handle<T, E: Into<syn::Error>>(&mut self, r: Result<T, E>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }

    pub(crate) fn finish_with<T>(self, value: T) -> syn::Result<T> {
        self.finish().map(|()| value)
    }
}

/// An error underlining `tokens`.
fn error(tokens: impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message)
}

/// Parses the attribute arguments with darling.
fn parse_args<T: FromMeta>(args: TokenStream) -> darling::Result<T> {
    let items = NestedMeta::parse_meta_list(args)?;
    T::from_list(&items)
}

/// Parses the annotated item; anything but a function is an error.
fn parse_item(kind: Kind, item: TokenStream) -> syn::Result<ItemFn> {
    syn::parse2::<ItemFn>(item.clone()).map_err(|e| {
        // Point at the item itself when it is not a function at all.
        match syn::parse2::<syn::Item>(item) {
            Ok(other) => syn::Error::new(
                item_keyword_span(&other),
                format!("{} goes on a function (`fn` or `async fn`)", kind.attr()),
            ),
            Err(_) => e,
        }
    })
}

fn item_keyword_span(item: &syn::Item) -> Span {
    let tokens = item.to_token_stream();
    tokens
        .into_iter()
        .find(|t| matches!(t, proc_macro2::TokenTree::Ident(_)))
        .map_or_else(Span::call_site, |t| t.span())
}

/// `description = "…"` or `description = include_str!("…")`: a string literal is taken
/// verbatim, any other expression is kept for `concat!`. (darling's own `Expr` support would
/// parse the contents of a string literal as an expression.)
#[derive(Debug, Clone)]
pub(crate) struct TextExpr(pub(crate) Expr);

impl FromMeta for TextExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit { lit, .. }) if !matches!(lit, Lit::Str(_)) => {
                Err(darling::Error::unexpected_lit_type(lit).with_span(expr))
            }
            _ => Ok(Self(expr.clone())),
        }
    }
}

impl TextExpr {
    fn into_docs(self) -> Docs {
        match self.0 {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Docs::text(s.value()),
            other => Docs::from_expr(other),
        }
    }
}

/// `layer = <expr>`: an expression building a middleware layer, evaluated where the
/// definition is built. A literal is refused here (a string would name nothing).
#[derive(Debug, Clone)]
pub(crate) struct LayerExpr(pub(crate) Expr);

impl FromMeta for LayerExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(_) => Err(darling::Error::custom(
                "`layer` takes an expression that builds a tower layer, such as \
                 `layer = my_layer()` or `layer = mcp_framework::middleware::timeout(…)`",
            )
            .with_span(expr)),
            _ => Ok(Self(expr.clone())),
        }
    }
}

/// `scopes = ["notes:read", …]`: string literals, each kept with its span.
#[derive(Debug, Clone)]
pub(crate) struct ScopeList(pub(crate) Vec<LitStr>, pub(crate) Span);

impl FromMeta for ScopeList {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let wrong = || {
            darling::Error::custom(
                "`scopes` takes a list of string literals, such as `scopes = [\"notes:read\"]`",
            )
            .with_span(expr)
        };
        let Expr::Array(array) = expr else {
            return Err(wrong());
        };
        let mut scopes = Vec::new();
        for elem in &array.elems {
            match elem {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => scopes.push(s.clone()),
                _ => return Err(wrong()),
            }
        }
        Ok(Self(scopes, expr.span()))
    }
}

/// Whether `scope` is an RFC 6749 scope token (the runtime checks the same in `build()`).
fn valid_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// The options every macro takes, before validation (flattened into each macro's own).
#[derive(FromMeta)]
pub(crate) struct CommonArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<TextExpr>,
    #[darling(multiple)]
    pub(crate) icon: Vec<LitStr>,
    pub(crate) meta: Option<LitStr>,
    #[darling(multiple)]
    pub(crate) layer: Vec<LayerExpr>,
    pub(crate) scopes: Option<ScopeList>,
    pub(crate) hidden: darling::util::Flag,
    pub(crate) register: Option<bool>,
    #[darling(rename = "crate")]
    pub(crate) krate: Option<Path>,
}

/// Validates the shared options of the item named `ident` (its doc comment among `attrs`).
/// `name_check` validates the name.
fn common(
    args: CommonArgs,
    (ident, attrs): (&syn::Ident, &[syn::Attribute]),
    acc: &mut Errors,
    name_check: impl Fn(&str) -> Result<(), String>,
) -> Common {
    let name_span = args
        .name
        .as_ref()
        .map_or_else(|| ident.span(), LitStr::span);
    let name = match &args.name {
        Some(lit) => {
            let name = lit.value();
            if let Err(e) = name_check(&name) {
                acc.push(error(lit, e));
            }
            name
        }
        None => {
            let name = ident.unraw().to_string();
            if let Err(e) = name_check(&name) {
                acc.push(error(ident, e));
            }
            name
        }
    };
    for icon in &args.icon {
        if !icon.value().contains(':') {
            acc.push(error(
                icon,
                "an icon is a URI (`https:` or `data:`), such as \"https://example.com/icon.png\"",
            ));
        }
    }
    if let Some(meta) = &args.meta {
        let v = meta.value();
        let v = v.trim();
        if !(v.starts_with('{') && v.ends_with('}')) {
            acc.push(error(
                meta,
                "meta must be a JSON object literal, such as r#\"{\"com.example/key\": 1}\"#",
            ));
        }
    }
    let scopes = args.scopes.map(|list| {
        if list.0.is_empty() {
            acc.push(syn::Error::new(
                list.1,
                "`scopes` lists at least one scope; leave it out for an item anyone may use",
            ));
        }
        for scope in &list.0 {
            if !valid_scope(&scope.value()) {
                acc.push(error(
                    scope,
                    "a scope is printable ASCII without spaces, `\"` or `\\` (RFC 6749), \
                     such as \"notes:read\"; list several as separate strings",
                ));
            }
        }
        list.0.iter().map(LitStr::value).collect::<Vec<_>>()
    });
    if args.hidden.is_present() && scopes.as_ref().is_none_or(Vec::is_empty) {
        acc.push(syn::Error::new(
            args.hidden.span(),
            "`hidden` hides the item from callers without its scopes: add `scopes = [\"…\"]`",
        ));
    }
    let description = args
        .description
        .map(TextExpr::into_docs)
        .or_else(|| Docs::from_attrs(attrs));
    Common {
        name,
        name_span,
        title: args.title.map(|t| t.value()),
        description,
        icons: args.icon.iter().map(LitStr::value).collect(),
        meta: args.meta.map(|m| m.value()),
        layers: args.layer.into_iter().map(|l| l.0).collect(),
        scopes: scopes.unwrap_or_default(),
        hidden: args.hidden.is_present(),
        register: args.register.unwrap_or(true),
        krate: args.krate.unwrap_or_else(|| parse_quote!(::mcp_framework)),
    }
}

/// A `#[tool_impl]` block on the error path: as written, minus the `#[tool]` attributes
/// and the parameter attributes the macros own (so that rustc does not report them).
pub(crate) fn fallback_impl(item: TokenStream) -> TokenStream {
    let Ok(mut block) = syn::parse2::<syn::ItemImpl>(item.clone()) else {
        return item;
    };
    for impl_item in &mut block.items {
        if let syn::ImplItem::Fn(f) = impl_item {
            f.attrs
                .retain(|a| a.path().segments.last().is_none_or(|s| s.ident != "tool"));
            for arg in &mut f.sig.inputs {
                if let FnArg::Typed(pt) = arg {
                    pt.attrs.retain(|a| !is_owned_param_attr(a));
                }
            }
        }
    }
    block.into_token_stream()
}

/// `#[doc]`, `#[ctx]`, `#[arg]`, `#[header]`, `#[complete]` on a parameter.
fn is_owned_param_attr(a: &syn::Attribute) -> bool {
    let p = a.path();
    p.is_ident("doc")
        || p.is_ident("ctx")
        || p.is_ident("arg")
        || p.is_ident("header")
        || p.is_ident("complete")
}

/// The user's function with the parameter attributes the macros own removed, for the
/// error path (so that call sites and rustc do not pile errors on top of ours).
pub(crate) fn fallback_item(item: TokenStream) -> TokenStream {
    let Ok(mut func) = syn::parse2::<ItemFn>(item.clone()) else {
        return item;
    };
    for arg in &mut func.sig.inputs {
        if let FnArg::Typed(pt) = arg {
            pt.attrs.retain(|a| !is_owned_param_attr(a));
        }
    }
    func.into_token_stream()
}
