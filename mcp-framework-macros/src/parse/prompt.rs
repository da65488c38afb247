//! `#[prompt(…)]`.

use darling::FromMeta;
use proc_macro2::TokenStream;

use super::params::function;
use super::{CommonArgs, Errors, Kind, common, parse_args, parse_item};
use crate::model::PromptModel;

/// The arguments of `#[prompt(…)]`.
#[derive(FromMeta)]
struct PromptArgs {
    #[darling(flatten)]
    common: CommonArgs,
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("prompt names cannot be empty".into());
    }
    Ok(())
}

pub(crate) fn prompt(args: TokenStream, item: TokenStream) -> syn::Result<PromptModel> {
    let item = parse_item(Kind::Prompt, item)?;
    let mut acc = Errors::new();
    let args = acc.handle(parse_args::<PromptArgs>(args));
    let func = function(Kind::Prompt, item, &mut acc);
    let Some(args) = args else {
        return Err(acc.finish().expect_err("the arguments failed to parse"));
    };
    let common = common(
        args.common,
        (&func.item.sig.ident, &func.item.attrs),
        &mut acc,
        check_name,
    );
    acc.finish_with(PromptModel { common, func })
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;
    use crate::model::ParamKind;

    #[test]
    fn completers_and_argument_docs() {
        let m = prompt(
            quote!(name = "code-review", title = "Review code"),
            quote! {
                /// Asks for a review.
                fn review(
                    /// The language.
                    #[complete(crate::langs)] language: String,
                    code: String,
                    style: Option<Style>,
                    #[ctx] cx: Context,
                ) -> String { todo!() }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.common.name, "code-review");
        assert_eq!(m.common.title.as_deref(), Some("Review code"));
        let args: Vec<_> = m.func.args().collect();
        assert_eq!(args.len(), 3);
        assert_eq!(
            args[0]
                .1
                .completer
                .as_ref()
                .unwrap()
                .to_token_stream()
                .to_string(),
            "crate :: langs"
        );
        assert_eq!(
            args[0].1.description.as_ref().unwrap().as_text(),
            Some("The language.")
        );
        assert!(args[1].1.completer.is_none());
        assert!(matches!(m.func.params[3].kind, ParamKind::Context(_)));
        let emitted = m.func.item.to_token_stream().to_string();
        assert!(!emitted.contains("complete"), "{emitted}");
    }

    #[test]
    fn headers_are_for_tools() {
        let e = prompt(
            quote!(),
            quote!(
                fn p(#[header("A")] a: String) {}
            ),
        )
        .err()
        .unwrap();
        assert!(
            e.to_string()
                .contains("#[header] is only supported on #[tool]")
        );
    }

    #[test]
    fn unknown_keys() {
        let e = prompt(
            quote!(read_only),
            quote!(
                fn p() {}
            ),
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("Unknown field: `read_only`"), "{e}");
    }
}
