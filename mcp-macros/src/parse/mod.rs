//! Attribute arguments and the annotated function → model. Every diagnostic of the crate
//! is produced here, spanned on the user's tokens, and all of them are reported in one
//! pass ([`Errors`]).

mod prompt;
mod resource;
mod tool;

pub(crate) use prompt::prompt;
pub(crate) use resource::resource;
pub(crate) use tool::tool;

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, ItemFn, Lit, LitStr, Meta, Pat, Path,
    PathArguments, ReturnType, Type, parse_quote, parse_quote_spanned,
};

use crate::docs::Docs;
use crate::model::{ArgParam, Common, ContextParam, FnModel, Param, ParamKind};

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

/// The options every macro takes, before validation.
pub(crate) struct CommonArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<TextExpr>,
    pub(crate) icon: Vec<LitStr>,
    pub(crate) meta: Option<LitStr>,
    pub(crate) register: Option<bool>,
    pub(crate) krate: Option<Path>,
}

/// Validates the shared options. `name_check` validates an explicit `name = …`.
fn common(
    args: CommonArgs,
    func: &ItemFn,
    acc: &mut Errors,
    name_check: impl Fn(&str) -> Result<(), String>,
) -> Common {
    let name = match &args.name {
        Some(lit) => {
            let name = lit.value();
            if let Err(e) = name_check(&name) {
                acc.push(error(lit, e));
            }
            name
        }
        None => {
            let name = func.sig.ident.unraw().to_string();
            if let Err(e) = name_check(&name) {
                acc.push(error(&func.sig.ident, e));
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
    let description = args
        .description
        .map(TextExpr::into_docs)
        .or_else(|| Docs::from_attrs(&func.attrs));
    Common {
        name,
        title: args.title.map(|t| t.value()),
        description,
        icons: args.icon.iter().map(LitStr::value).collect(),
        meta: args.meta.map(|m| m.value()),
        register: args.register.unwrap_or(true),
        krate: args.krate.unwrap_or_else(|| parse_quote!(::mcp_framework)),
    }
}

/// Checks the signature and collects the parameters. Parameter attributes the macro owns
/// are removed from the returned function.
fn function(kind: Kind, mut item: ItemFn, acc: &mut Errors) -> FnModel {
    check_signature(kind, &item, acc);
    let mut params = Vec::new();
    let mut headers: Vec<(String, LitStr)> = Vec::new();
    for arg in &mut item.sig.inputs {
        let FnArg::Typed(pt) = arg else {
            // Receivers were reported by `check_signature`.
            continue;
        };
        let attrs = ParamAttrs::take(kind, &mut pt.attrs, acc);
        let ident = match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                acc.push(error(
                    other,
                    format!(
                        "{} parameters must be plain names (`name: Type`); patterns such as \
                         destructuring or `_` are not supported",
                        kind.attr()
                    ),
                ));
                continue;
            }
        };
        let name = ident.unraw().to_string();
        let ty = &*pt.ty;
        if let Some(ctx) = attrs.ctx.or_else(|| {
            // A parameter of type `Context` (or `&Context`) is injected without `#[ctx]`.
            is_context_type(ty).then(|| ty.to_token_stream())
        }) {
            for (what, present) in [
                ("#[header]", attrs.header.is_some()),
                ("#[complete]", attrs.complete.is_some()),
            ] {
                if present {
                    acc.push(error(
                        &ctx,
                        format!("{what} cannot be used on a context parameter"),
                    ));
                }
            }
            match context_param(ty) {
                Ok(c) => params.push(Param {
                    ident,
                    name,
                    kind: ParamKind::Context(c),
                }),
                Err(e) => acc.push(e),
            }
            continue;
        }
        let (field_ty, by_ref) = match field_type(kind, ty) {
            Ok(t) => t,
            Err(e) => {
                acc.push(e);
                continue;
            }
        };
        let header = attrs.header.and_then(|lit| {
            let value = lit.value();
            let mut ok = true;
            if let Err(e) = check_header_token(&value) {
                acc.push(error(&lit, e));
                ok = false;
            }
            if let Err(e) = check_header_type(ty) {
                acc.push(error(ty, e));
                ok = false;
            }
            if let Some((other, _)) = headers
                .iter()
                .find(|(_, l)| l.value().eq_ignore_ascii_case(&value))
            {
                acc.push(error(
                    &lit,
                    format!(
                        "duplicate header `{value}`: parameter `{other}` already uses it \
                         (header names are case-insensitive)"
                    ),
                ));
                ok = false;
            }
            headers.push((name.clone(), lit));
            ok.then_some(value)
        });
        params.push(Param {
            ident,
            name,
            kind: ParamKind::Arg(ArgParam {
                field_ty,
                by_ref,
                description: attrs.docs,
                header,
                completer: attrs.complete,
            }),
        });
    }
    let output = match &item.sig.output {
        ReturnType::Default => parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    FnModel {
        ident: item.sig.ident.clone(),
        vis: item.vis.clone(),
        is_async: item.sig.asyncness.is_some(),
        params,
        output,
        item,
    }
}

fn check_signature(kind: Kind, item: &ItemFn, acc: &mut Errors) {
    let sig = &item.sig;
    let attr = kind.attr();
    let mut err = |msg: String, span: &dyn ToTokens| {
        acc.push(error(span, msg));
    };
    if let Some(receiver) = sig.receiver() {
        err(
            format!("{attr} goes on free functions, not methods"),
            receiver,
        );
    }
    if !sig.generics.params.is_empty() {
        err(
            format!("{attr} functions cannot be generic: use concrete types"),
            &sig.generics,
        );
    } else if let Some(wc) = &sig.generics.where_clause {
        err(format!("{attr} functions cannot have a where clause"), wc);
    }
    if let syn::Safety::Unsafe(tok) = &sig.safety {
        err(format!("{attr} functions cannot be `unsafe`"), tok);
    }
    if let Some(abi) = &sig.abi {
        err(format!("{attr} functions cannot have an `extern` ABI"), abi);
    }
    if let Some(v) = &sig.variadic {
        err(format!("{attr} functions cannot be variadic"), v);
    }
    for arg in &sig.inputs {
        if let FnArg::Typed(pt) = arg
            && let Some(it) = find_impl_trait(&pt.ty)
        {
            err(
                format!(
                    "`impl Trait` parameters make the function generic; {attr} needs a \
                     concrete type"
                ),
                it,
            );
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(it) = find_impl_trait(ty)
    {
        err(
            format!("return a concrete type from a {attr} function, not `impl Trait`"),
            it,
        );
    }
}

fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    match ty {
        Type::ImplTrait(it) => Some(it),
        Type::Reference(r) => find_impl_trait(&r.elem),
        Type::Slice(s) => find_impl_trait(&s.elem),
        Type::Array(a) => find_impl_trait(&a.elem),
        Type::Paren(p) => find_impl_trait(&p.elem),
        Type::Group(g) => find_impl_trait(&g.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
                GenericArgument::Type(t) => find_impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

/// The parameter attributes the macros own, taken off the parameter.
#[derive(Default)]
struct ParamAttrs {
    docs: Option<Docs>,
    /// `#[ctx]` itself.
    ctx: Option<TokenStream>,
    header: Option<LitStr>,
    complete: Option<Path>,
}

impl ParamAttrs {
    fn take(kind: Kind, attrs: &mut Vec<Attribute>, acc: &mut Errors) -> Self {
        let mut out = Self {
            docs: Docs::from_attrs(attrs),
            ..Self::default()
        };
        attrs.retain(|attr| {
            let path = attr.path();
            if path.is_ident("doc") {
                return false;
            }
            if path.is_ident("ctx") {
                match attr.meta.require_path_only() {
                    Ok(_) => {
                        if out.ctx.is_some() {
                            acc.push(error(attr, "duplicate `#[ctx]`"));
                        }
                        out.ctx = Some(attr.to_token_stream());
                    }
                    Err(_) => acc.push(error(attr, "`#[ctx]` takes no arguments")),
                }
                return false;
            }
            if path.is_ident("header") {
                if kind != Kind::Tool {
                    acc.push(error(
                        attr,
                        format!(
                            "#[header] is only supported on #[tool] parameters, not in {}",
                            kind.attr()
                        ),
                    ));
                } else {
                    match attr_arg::<LitStr>(attr, "#[header(\"Name\")]") {
                        Ok(lit) if out.header.is_some() => {
                            acc.push(error(&lit, "duplicate `#[header]`"));
                        }
                        Ok(lit) => out.header = Some(lit),
                        Err(e) => acc.push(e),
                    }
                }
                return false;
            }
            if path.is_ident("complete") {
                if kind == Kind::Tool {
                    acc.push(error(
                        attr,
                        "#[complete] is only supported on #[prompt] arguments and \
                             #[resource] template variables",
                    ));
                } else {
                    match attr_arg::<Path>(attr, "#[complete(path::to::completer)]") {
                        Ok(p) if out.complete.is_some() => {
                            acc.push(error(&p, "duplicate `#[complete]`"));
                        }
                        Ok(p) => out.complete = Some(p),
                        Err(e) => acc.push(e),
                    }
                }
                return false;
            }
            true
        });
        out
    }
}

/// The single argument of `#[attr(arg)]`.
fn attr_arg<T: syn::parse::Parse>(attr: &Attribute, usage: &str) -> syn::Result<T> {
    let expected = || error(attr, format!("expected `{usage}`"));
    let Meta::List(list) = &attr.meta else {
        return Err(expected());
    };
    syn::parse2::<T>(list.tokens.clone()).map_err(|_| expected())
}

/// `Context`, `&Context`, `path::to::Context`: a last segment `Context` without generics.
fn is_context_type(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Context" && s.arguments.is_none()),
        _ => false,
    }
}

fn context_param(ty: &Type) -> syn::Result<ContextParam> {
    match ty {
        Type::Reference(r) if r.mutability.is_some() => Err(error(
            ty,
            "context parameters are taken by value or by shared reference (`&T`), not `&mut`",
        )),
        Type::Reference(r) => Ok(ContextParam {
            ty: (*r.elem).clone(),
            by_ref: true,
        }),
        other => Ok(ContextParam {
            ty: other.clone(),
            by_ref: false,
        }),
    }
}

/// The type of the generated field for a parameter: `&str` → `String`, `&[T]` → `Vec<T>`,
/// `&T` → `T` (passed back by reference); `Cow<str>` gets a `'static` lifetime.
fn field_type(kind: Kind, ty: &Type) -> syn::Result<(Type, bool)> {
    let (mut field, by_ref) = match ty {
        Type::Reference(r) if r.mutability.is_some() => {
            return Err(error(
                ty,
                format!(
                    "{} parameters cannot be `&mut`; take the value instead",
                    kind.attr()
                ),
            ));
        }
        Type::Reference(r) if r.lifetime.as_ref().is_some_and(|l| l.ident == "static") => {
            return Err(error(
                ty,
                format!(
                    "{} parameters cannot be `&'static`: they borrow from the request's \
                     arguments; take the owned value instead",
                    kind.attr()
                ),
            ));
        }
        Type::Reference(r) => {
            let span = r.elem.span();
            let owned: Type = match &*r.elem {
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                    parse_quote_spanned!(span=> ::std::string::String)
                }
                Type::Slice(s) => {
                    let elem = &s.elem;
                    parse_quote_spanned!(span=> ::std::vec::Vec<#elem>)
                }
                other => other.clone(),
            };
            (owned, true)
        }
        other => (other.clone(), false),
    };
    owned_lifetimes(&mut field)?;
    Ok((field, by_ref))
}

/// Makes a field type nameable in a struct without lifetime parameters: elided and `'_`
/// lifetimes of `Cow` become `'static`; references nested in other types are refused.
fn owned_lifetimes(ty: &mut Type) -> syn::Result<()> {
    match ty {
        Type::Reference(_) => Err(error(
            ty,
            "references inside other types are not supported in parameters; use an owned \
             type (`String`, `Vec<T>`, …)",
        )),
        Type::Slice(s) => owned_lifetimes(&mut s.elem),
        Type::Array(a) => owned_lifetimes(&mut a.elem),
        Type::Paren(p) => owned_lifetimes(&mut p.elem),
        Type::Group(g) => owned_lifetimes(&mut g.elem),
        Type::Tuple(t) => t.elems.iter_mut().try_for_each(owned_lifetimes),
        Type::Path(p) => {
            let mut errors = Errors::new();
            for seg in &mut p.path.segments {
                let is_cow = seg.ident == "Cow";
                if let PathArguments::AngleBracketed(a) = &mut seg.arguments {
                    let has_lifetime = a
                        .args
                        .iter()
                        .any(|a| matches!(a, GenericArgument::Lifetime(l) if l.ident != "_"));
                    for arg in a.args.iter_mut() {
                        match arg {
                            GenericArgument::Lifetime(l) if l.ident == "_" => {
                                *l = syn::Lifetime::new("'static", l.span());
                            }
                            GenericArgument::Type(t) => {
                                errors.handle(owned_lifetimes(t));
                            }
                            _ => {}
                        }
                    }
                    if is_cow && !has_lifetime && !a.args.iter().any(is_lifetime) {
                        a.args.insert(0, parse_quote!('static));
                    }
                }
            }
            errors.finish()
        }
        _ => Ok(()),
    }
}

fn is_lifetime(arg: &GenericArgument) -> bool {
    matches!(arg, GenericArgument::Lifetime(_))
}

/// RFC 9110 `token`: one or more `tchar`.
pub(crate) fn check_header_token(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("the header name is empty".into());
    }
    if let Some(bad) = value
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)))
    {
        return Err(format!(
            "`{value}` is not a valid HTTP header name: {bad:?} is not allowed (use letters, \
             digits and !#$%&'*+-.^_`|~)"
        ));
    }
    Ok(())
}

/// `x-mcp-header` needs a string, integer or boolean parameter (syntactically, optionally
/// in an `Option`).
pub(crate) fn check_header_type(ty: &Type) -> Result<(), String> {
    const MSG: &str = "x-mcp-header needs a string, integer or boolean parameter";
    let mut ty = ty;
    if let Some(inner) = option_inner(ty) {
        ty = inner;
    }
    if let Type::Reference(r) = ty {
        ty = &r.elem;
    }
    let Type::Path(p) = ty else {
        return Err(MSG.into());
    };
    let Some(last) = p.path.segments.last() else {
        return Err(MSG.into());
    };
    let name = last.ident.to_string();
    match name.as_str() {
        "String" | "str" | "bool" | "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16"
        | "u32" | "u64" | "usize"
            if last.arguments.is_none() =>
        {
            Ok(())
        }
        "Cow" => match &last.arguments {
            PathArguments::AngleBracketed(a)
                if a.args.iter().any(
                    |a| matches!(a, GenericArgument::Type(Type::Path(t)) if t.path.is_ident("str")),
                ) =>
            {
                Ok(())
            }
            _ => Err(MSG.into()),
        },
        "f32" | "f64" => Err("x-mcp-header is not allowed on `number` parameters".into()),
        _ => Err(MSG.into()),
    }
}

fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.first()? {
        GenericArgument::Type(t) if a.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// The names of the variables of an RFC 6570 URI template (in order), or what is wrong
/// with it.
pub(crate) fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find(['{', '}']) {
        if rest[start..].starts_with('}') {
            return Err(format!("unmatched `}}` in URI template `{template}`"));
        }
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in URI template `{template}`"))?;
        let body = &after[..end];
        if body.contains('{') {
            return Err(format!("unclosed `{{` in URI template `{template}`"));
        }
        rest = &after[end + 1..];
        let list = match body.chars().next() {
            Some('+' | '#' | '.' | '/' | ';' | '?' | '&') => &body[1..],
            Some('=' | ',' | '!' | '@' | '|') => {
                return Err(format!("reserved operator in `{{{body}}}`"));
            }
            Some(_) => body,
            None => return Err(format!("empty expression `{{}}` in `{template}`")),
        };
        for spec in list.split(',') {
            let name = if let Some(name) = spec.strip_suffix('*') {
                name
            } else if let Some((name, n)) = spec.split_once(':') {
                if !n.parse::<usize>().is_ok_and(|n| (1..10000).contains(&n)) {
                    return Err(format!(
                        "bad prefix length `:{n}` in `{{{body}}}` (1 to 9999)"
                    ));
                }
                name
            } else {
                spec
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'))
            {
                return Err(format!("bad variable name `{name}` in `{{{body}}}`"));
            }
            if names.iter().any(|n| n == name) {
                return Err(format!(
                    "variable `{name}` appears twice in URI template `{template}`"
                ));
            }
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// The user's function with the parameter attributes the macros own removed, for the
/// error path (so that call sites and rustc do not pile errors on top of ours).
pub(crate) fn fallback_item(item: TokenStream) -> TokenStream {
    let Ok(mut func) = syn::parse2::<ItemFn>(item.clone()) else {
        return item;
    };
    for arg in &mut func.sig.inputs {
        if let FnArg::Typed(pt) = arg {
            pt.attrs.retain(|a| {
                let p = a.path();
                !(p.is_ident("doc")
                    || p.is_ident("ctx")
                    || p.is_ident("header")
                    || p.is_ident("complete"))
            });
        }
    }
    func.into_token_stream()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn header_tokens() {
        assert!(check_header_token("Region").is_ok());
        assert!(check_header_token("X-Custom_1.v2~!#$%&'*+^`|").is_ok());
        assert!(check_header_token("").is_err());
        assert!(check_header_token("My Header").is_err());
        assert!(check_header_token("a:b").is_err());
        assert!(check_header_token("é").is_err());
    }

    #[test]
    fn header_types() {
        for ok in [
            quote::quote!(String),
            quote::quote!(&str),
            quote::quote!(std::string::String),
            quote::quote!(Option<String>),
            quote::quote!(Option<&str>),
            quote::quote!(Cow<str>),
            quote::quote!(Cow<'static, str>),
            quote::quote!(bool),
            quote::quote!(u64),
            quote::quote!(Option<i8>),
            quote::quote!(usize),
        ] {
            let ty: Type = syn::parse2(ok.clone()).unwrap();
            assert!(check_header_type(&ty).is_ok(), "{ok}");
        }
        let f: Type = parse_quote!(f64);
        assert_eq!(
            check_header_type(&f).unwrap_err(),
            "x-mcp-header is not allowed on `number` parameters"
        );
        let f: Type = parse_quote!(Option<f32>);
        assert!(check_header_type(&f).unwrap_err().contains("number"));
        for bad in [
            quote::quote!(Vec<String>),
            quote::quote!(MyEnum),
            quote::quote!(Cow<[u8]>),
            quote::quote!((String, String)),
            quote::quote!(i128),
        ] {
            let ty: Type = syn::parse2(bad.clone()).unwrap();
            assert_eq!(
                check_header_type(&ty).unwrap_err(),
                "x-mcp-header needs a string, integer or boolean parameter",
                "{bad}"
            );
        }
    }

    #[test]
    fn template_variable_extraction() {
        assert_eq!(
            template_variables("test://template/{id}/data").unwrap(),
            ["id"]
        );
        assert_eq!(
            template_variables("file:///{+path}{?a,b}{&c}{#frag}{.ext}{/seg*}{;p:3}").unwrap(),
            ["path", "a", "b", "c", "frag", "ext", "seg", "p"]
        );
        assert_eq!(
            template_variables("test://static").unwrap(),
            Vec::<String>::new()
        );
        assert!(
            template_variables("x://{id")
                .unwrap_err()
                .contains("unclosed")
        );
        assert!(
            template_variables("x://id}")
                .unwrap_err()
                .contains("unmatched")
        );
        assert!(template_variables("x://{}").unwrap_err().contains("empty"));
        assert!(
            template_variables("x://{=a}")
                .unwrap_err()
                .contains("reserved")
        );
        assert!(
            template_variables("x://{a}/{a}")
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            template_variables("x://{a b}")
                .unwrap_err()
                .contains("bad variable")
        );
        assert!(
            template_variables("x://{a:0}")
                .unwrap_err()
                .contains("prefix")
        );
    }

    fn field(ty: &Type) -> (String, bool) {
        let (t, by_ref) = field_type(Kind::Tool, ty).unwrap();
        (t.to_token_stream().to_string(), by_ref)
    }

    #[test]
    fn reference_params_map_to_owned_fields() {
        assert_eq!(
            field(&parse_quote!(&str)),
            (":: std :: string :: String".into(), true)
        );
        assert_eq!(
            field(&parse_quote!(&[u32])),
            (":: std :: vec :: Vec < u32 >".into(), true)
        );
        assert_eq!(field(&parse_quote!(&Point)), ("Point".into(), true));
        assert_eq!(field(&parse_quote!(f64)), ("f64".into(), false));
        assert_eq!(
            field(&parse_quote!(Cow<str>)),
            ("Cow < 'static , str >".into(), false)
        );
        assert_eq!(
            field(&parse_quote!(Option<Cow<'_, str>>)),
            ("Option < Cow < 'static , str > >".into(), false)
        );
        assert!(field_type(Kind::Tool, &parse_quote!(&mut String)).is_err());
        assert!(field_type(Kind::Tool, &parse_quote!(Option<&str>)).is_err());
    }

    #[test]
    fn context_detection() {
        assert!(is_context_type(&parse_quote!(Context)));
        assert!(is_context_type(&parse_quote!(&Context)));
        assert!(is_context_type(&parse_quote!(mcp_framework::Context)));
        assert!(!is_context_type(&parse_quote!(Context<T>)));
        assert!(!is_context_type(&parse_quote!(MyContext)));
    }
}
