//! `#[tool_impl]` on an `impl` block: the `#[tool]` methods in it, each taking `&self`. The
//! block is kept, minus the `#[tool]` attributes and the parameter attributes the macros
//! own; each method becomes a `#[tool]` function (checked by `#[tool]` itself, with the
//! user's tokens and spans) whose receiver is the server's state of the type.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Attribute, FnArg, ImplItem, ItemImpl, Meta, Type};

use super::{Errors, error, is_owned_param_attr};
use crate::model::{MethodTool, ToolImplModel};

pub(crate) fn tool_impl(args: TokenStream, item: TokenStream) -> syn::Result<ToolImplModel> {
    let mut acc = Errors::new();
    if !args.is_empty() {
        acc.push(error(args, "`#[tool_impl]` takes no arguments"));
    }
    let mut item: ItemImpl = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "#[tool_impl] goes on an `impl` block (`#[tool_impl] impl Notes { … }`)",
        )
    })?;
    if let Some((path, _)) = &item.trait_ {
        acc.push(error(
            path,
            "#[tool_impl] goes on an inherent `impl` block, not a trait implementation",
        ));
    }
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        acc.push(error(
            &item.generics,
            "#[tool_impl] needs a concrete type: its tools take `&self` from the server's state",
        ));
    }
    let Some(type_ident) = type_ident(&item.self_ty) else {
        return Err(error(
            &item.self_ty,
            "#[tool_impl] goes on the `impl` of a named type (`impl Notes`)",
        ));
    };
    let self_ty = (*item.self_ty).clone();
    let mut methods = Vec::new();
    let mut found = false;
    for impl_item in &mut item.items {
        let ImplItem::Fn(f) = impl_item else { continue };
        let Some(pos) = f.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        found = true;
        let attr = f.attrs.remove(pos);
        let args = match &attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens.clone(),
            Meta::NameValue(_) => {
                acc.push(error(&attr, "expected `#[tool]` or `#[tool(…)]`"));
                continue;
            }
        };
        match f.sig.inputs.first() {
            Some(FnArg::Receiver(r)) => match &r.kind {
                syn::ReceiverKind::Reference(_, _, None) => {}
                syn::ReceiverKind::Reference(_, _, Some(_)) => {
                    acc.push(error(
                        r,
                        "a #[tool] method takes `&self`: the server shares its state between \
                         requests; keep what changes behind a `Mutex` (or another lock)",
                    ));
                    continue;
                }
                _ => {
                    acc.push(error(r, "a #[tool] method takes `&self`"));
                    continue;
                }
            },
            _ => {
                acc.push(error(
                    &f.sig.ident,
                    "a #[tool] method in #[tool_impl] takes `&self` (a function without it \
                     goes outside the `impl`, as a plain #[tool] function)",
                ));
                continue;
            }
        }
        // The generated function's parameters: the method's, with their attributes and
        // `Self` spelled as the type; the method keeps none of the macros' attributes.
        let mut params = Vec::new();
        for input in f.sig.inputs.iter_mut().skip(1) {
            let FnArg::Typed(pt) = input else { continue };
            let mut generated = pt.clone();
            generated.ty = Box::new(replace_self(&pt.ty, &self_ty));
            params.push(generated);
            pt.attrs.retain(|a| !is_owned_param_attr(a));
        }
        let docs: Vec<Attribute> = f
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .cloned()
            .collect();
        let mut sig = f.sig.clone();
        sig.output = match &f.sig.output {
            syn::ReturnType::Type(arrow, ty) => {
                syn::ReturnType::Type(*arrow, Box::new(replace_self(ty, &self_ty)))
            }
            other => other.clone(),
        };
        methods.push(MethodTool {
            path: attr.path().clone(),
            args,
            docs,
            sig,
            params,
        });
    }
    if !found {
        acc.push(error(
            &item.self_ty,
            "#[tool_impl] found no `#[tool]` method in this block",
        ));
    }
    acc.finish_with(ToolImplModel {
        item,
        self_ty,
        type_ident,
        methods,
    })
}

fn is_tool_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tool")
}

/// The last segment of a path type (`Notes`, `crate::store::Notes`).
fn type_ident(ty: &Type) -> Option<syn::Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    }
}

/// `ty` with every `Self` replaced by the type (`Self` means nothing outside the `impl`).
fn replace_self(ty: &Type, self_ty: &Type) -> Type {
    let tokens = replace_tokens(ty.to_token_stream(), self_ty);
    syn::parse2(tokens).unwrap_or_else(|_| ty.clone())
}

fn replace_tokens(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|t| match t {
            TokenTree::Ident(i) if i == "Self" => {
                let mut g = Group::new(proc_macro2::Delimiter::None, self_ty.to_token_stream());
                g.set_span(i.span());
                vec![TokenTree::Group(g)]
            }
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), replace_tokens(g.stream(), self_ty));
                n.set_span(g.span());
                vec![TokenTree::Group(n)]
            }
            other => vec![other],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn methods_are_collected_and_stripped() {
        let m = tool_impl(
            quote!(),
            quote! {
                impl Notes {
                    /// Adds a note.
                    #[tool(title = "Add")]
                    async fn add(&self, /// The text.
                        #[arg(default = 1)] n: u32, other: Option<Self>) -> String { todo!() }
                    fn helper(&self) {}
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.type_ident, "Notes");
        assert_eq!(m.methods.len(), 1);
        let add = &m.methods[0];
        assert_eq!(add.args.to_string(), "title = \"Add\"");
        assert_eq!(add.docs.len(), 1);
        assert_eq!(add.params.len(), 2);
        assert_eq!(add.params[0].attrs.len(), 2);
        assert_eq!(
            add.params[1]
                .ty
                .to_token_stream()
                .to_string()
                .replace(' ', ""),
            "Option<Notes>"
        );
        // The impl keeps the method without the macros' attributes.
        let kept = m.item.to_token_stream().to_string();
        assert!(!kept.contains("tool"), "{kept}");
        assert!(!kept.contains("arg"), "{kept}");
    }

    #[test]
    fn receivers_other_than_shared_references_are_refused() {
        for (item, message) in [
            (
                quote!(impl N { #[tool] fn a(&mut self) {} }),
                "a #[tool] method takes `&self`: the server shares",
            ),
            (
                quote!(impl N { #[tool] fn a(self) {} }),
                "a #[tool] method takes `&self`",
            ),
            (
                quote!(impl N { #[tool] fn a() {} }),
                "a #[tool] method in #[tool_impl] takes",
            ),
            (
                quote!(
                    impl<T> N<T> {
                        #[tool]
                        fn a(&self) {}
                    }
                ),
                "#[tool_impl] needs a concrete type",
            ),
        ] {
            let Err(e) = tool_impl(quote!(), item) else {
                panic!("expected an error")
            };
            let all: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
            assert!(all.iter().any(|m| m.starts_with(message)), "{all:?}");
        }
    }
}
