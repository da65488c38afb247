//! `#[derive(Form)]`: the compile-time half of elicitation forms. On a struct it checks that
//! every field is something a form can ask for (each field type must be a `FormField`: an
//! error at the field otherwise) and implements `Form`; on an enum of unit variants it
//! implements `FormField`, as a choice of strings. What only the derived schema shows (a
//! `#[schemars(…)]` that changes a field's shape) is still checked when the form is asked.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

/// The expansion of `#[derive(Form)]` on `input`, or every problem found in it.
pub(crate) fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    match &input.data {
        Data::Struct(data) => form(&input, &data.fields),
        Data::Enum(data) => {
            let mut errors = Vec::new();
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    errors.push(syn::Error::new(
                        variant.fields.span(),
                        "a choice in an elicitation form is a unit variant (a form offers \
                         strings to pick from, not values that carry data)",
                    ));
                }
            }
            if data.variants.is_empty() {
                errors.push(syn::Error::new(
                    input.ident.span(),
                    "an enum with no variants offers nothing to choose",
                ));
            }
            combine(errors)?;
            let ident = &input.ident;
            let (imp, ty, wh) = input.generics.split_for_impl();
            Ok(quote! {
                impl #imp ::mcp_framework::__private::FormField for #ident #ty #wh {}
                impl #imp ::mcp_framework::__private::FormChoice for #ident #ty #wh {}
            })
        }
        Data::Union(data) => Err(syn::Error::new(
            data.union_token.span(),
            "an elicitation form is a struct with named fields",
        )),
    }
}

/// `Form` for a struct, with an assertion per field that its type is a `FormField`.
fn form(input: &DeriveInput, fields: &Fields) -> syn::Result<TokenStream> {
    let named = match fields {
        Fields::Named(named) => &named.named,
        Fields::Unnamed(_) | Fields::Unit => {
            return Err(syn::Error::new(
                input.ident.span(),
                "an elicitation form is a struct with named fields (each one a question \
                 of the form); for a yes-or-no question use `ctx.confirm(…)`",
            ));
        }
    };
    let mut errors = Vec::new();
    let mut checks = Vec::new();
    for field in named {
        let serde = serde_words(&field.attrs);
        if serde
            .iter()
            .any(|w| w == "skip" || w == "skip_deserializing")
        {
            continue;
        }
        if let Some(flatten) = serde.iter().find(|w| *w == "flatten") {
            errors.push(syn::Error::new(
                flatten.span(),
                "elicitation forms are flat: `#[serde(flatten)]` cannot be part of one \
                 (list the fields here)",
            ));
            continue;
        }
        let ty = &field.ty;
        checks.push(quote_spanned! {ty.span()=> __mcp_form_field::<#ty>(); });
    }
    combine(errors)?;
    let ident = &input.ident;
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::mcp_framework::__private::Form for #ident #ty #wh {}
        const _: () = {
            #[allow(dead_code, non_snake_case, clippy::extra_unused_type_parameters)]
            fn __mcp_form_fields #imp () #wh {
                fn __mcp_form_field<T: ::mcp_framework::__private::FormField + ?::core::marker::Sized>() {}
                #(#checks)*
            }
        };
    })
}

/// The words of a field's `#[serde(…)]` attributes (`skip`, `flatten`, `default`, …), as
/// identifiers with their spans; `key = value` pairs give their key.
fn serde_words(attrs: &[syn::Attribute]) -> Vec<syn::Ident> {
    let mut words = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // Attributes serde itself rejects are serde's to report.
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(word) = meta.path.get_ident() {
                words.push(word.clone());
            }
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|_| Ok(()));
            }
            Ok(())
        });
    }
    words
}

/// Every error at once, or none.
fn combine(errors: Vec<syn::Error>) -> syn::Result<()> {
    let mut errors = errors.into_iter();
    let Some(mut first) = errors.next() else {
        return Ok(());
    };
    first.extend(errors);
    Err(first)
}
