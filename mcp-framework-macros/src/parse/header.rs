//! `#[header = "Name"]` on a tool parameter (`x-mcp-header`): the header name must be an
//! HTTP token, the parameter a string, integer or boolean (optionally in an `Option`).

use syn::{GenericArgument, PathArguments, Type};

/// RFC 9110 `token`: one or more `tchar`.
pub(super) fn check_header_token(value: &str) -> Result<(), String> {
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
pub(super) fn check_header_type(ty: &Type) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

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
}
