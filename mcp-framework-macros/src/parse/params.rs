//! The annotated function's signature and parameters: what may be annotated (free, non-generic
//! functions), which parameters are injected (`#[ctx]`, or one of the framework's own
//! injectables: `Context`, `State<T>`, `ServerHandle`, `CancellationToken`,
//! `Option<Principal>`) and which are arguments (`#[arg]` forces one), the attributes the
//! macros own on them (`#[doc]`, `#[ctx]`, `#[arg]`, `#[header]`, `#[complete]`), and the
//! owned field type each argument gets in the generated struct.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, FnArg, GenericArgument, ItemFn, LitStr, Meta, Pat, Path, PathArguments,
    ReturnType, Type, parse_quote, parse_quote_spanned,
};

use super::header::{check_header_token, check_header_type};
use super::{Errors, Kind, error};
use crate::docs::Docs;
use crate::model::{ArgParam, ContextParam, FnModel, Param, ParamKind};

/// Checks the signature and collects the parameters. Parameter attributes the macro owns
/// are removed from the returned function.
pub(super) fn function(kind: Kind, mut item: ItemFn, acc: &mut Errors) -> FnModel {
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
        if let (Some(_), Some(arg)) = (&attrs.ctx, &attrs.arg) {
            acc.push(error(
                arg,
                "a parameter is either injected (`#[ctx]`) or an argument (`#[arg]`), not both",
            ));
            continue;
        }
        if let Some(ctx) = attrs.ctx.or_else(|| {
            // The framework's own injectables need no `#[ctx]` (unless `#[arg]` says the
            // parameter is an argument after all).
            (attrs.arg.is_none() && is_injected_type(ty)).then(|| ty.to_token_stream())
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
                ty: Box::new(ty.clone()),
                default: attrs.default.map(Box::new),
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
            if kind == Kind::Tool {
                "#[tool] goes on free functions; for methods taking `&self`, put \
                 `#[tool_impl]` on the `impl` block"
                    .to_owned()
            } else {
                format!("{attr} goes on free functions, not methods")
            },
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
    /// `#[arg]` itself.
    arg: Option<TokenStream>,
    /// `#[arg(default = …)]`.
    default: Option<Expr>,
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
            if path.is_ident("arg") {
                if out.arg.is_some() {
                    acc.push(error(attr, "duplicate `#[arg]`"));
                }
                out.arg = Some(attr.to_token_stream());
                match &attr.meta {
                    Meta::Path(_) => {}
                    Meta::List(list) => match list.parse_args_with(ArgOptions::parse) {
                        Ok(options) => {
                            if options.default.is_some() && kind == Kind::Resource {
                                acc.push(error(
                                    attr,
                                    "`#[arg(default = …)]` is not supported on template \
                                     variables: a URI that matches names every variable",
                                ));
                            } else {
                                out.default = options.default;
                            }
                        }
                        Err(e) => acc.push(e),
                    },
                    Meta::NameValue(_) => {
                        acc.push(error(
                            attr,
                            "expected `#[arg]` or `#[arg(default = value)]`",
                        ));
                    }
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

/// The options of `#[arg(…)]`: `default = value`.
struct ArgOptions {
    default: Option<Expr>,
}

impl ArgOptions {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let mut default = None;
        while !input.is_empty() {
            let key: syn::Ident = input.call(syn::Ident::parse_any)?;
            if key != "default" {
                return Err(error(
                    &key,
                    format!("unknown `#[arg]` option `{key}`; expected `default = value`"),
                ));
            }
            input.parse::<syn::Token![=]>()?;
            let value: Expr = input.parse()?;
            if default.is_some() {
                return Err(error(&key, "duplicate `default`"));
            }
            default = Some(value);
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(Self { default })
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

/// The framework's own injectables, by the last segment of their path (optionally behind
/// `&`): `Context`, `ServerHandle` and `CancellationToken` without generics, `State<T>` with
/// one type, `Option<Principal>`. Any other injected type is marked `#[ctx]`; a user's own
/// type of one of these names that is an argument is marked `#[arg]`.
fn is_injected_type(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    let Some(last) = last_segment(ty) else {
        return false;
    };
    match &last.arguments {
        PathArguments::None => ["Context", "ServerHandle", "CancellationToken"]
            .iter()
            .any(|n| last.ident == n),
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(_) if last.ident == "State" => true,
            GenericArgument::Type(inner) if last.ident == "Option" => {
                last_segment(inner).is_some_and(|s| s.ident == "Principal" && s.arguments.is_none())
            }
            _ => false,
        },
        _ => false,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn injected_detection() {
        for yes in [
            parse_quote!(Context),
            parse_quote!(&Context),
            parse_quote!(mcp_framework::Context),
            parse_quote!(State<Db>),
            parse_quote!(&mcp_framework::State<Arc<Db>>),
            parse_quote!(ServerHandle),
            parse_quote!(CancellationToken),
            parse_quote!(Option<Principal>),
            parse_quote!(std::option::Option<mcp_framework::Principal>),
        ] {
            assert!(is_injected_type(&yes), "{}", yes.to_token_stream());
        }
        for no in [
            parse_quote!(Context<T>),
            parse_quote!(MyContext),
            parse_quote!(State),
            parse_quote!(State<A, B>),
            parse_quote!(Principal),
            parse_quote!(Option<String>),
            parse_quote!(Vec<State<Db>>),
        ] {
            assert!(!is_injected_type(&no), "{}", no.to_token_stream());
        }
    }
}
