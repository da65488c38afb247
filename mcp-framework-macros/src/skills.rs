//! `skills!("folder")`: the skills of a folder embedded in the binary, every rule of the
//! Agent Skills format checked while compiling (the `mcp-skill-format` crate's, the same
//! the runtime applies), every problem reported at the folder's literal.

use std::collections::BTreeMap;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

/// Expands to a `Vec<mcp_framework::skills::Skill>` of every skill of the folder, each file
/// embedded with `include_bytes!` (so changing a file rebuilds the crate).
pub(crate) fn skills(
    input: TokenStream,
    invoking_file: Option<PathBuf>,
) -> syn::Result<TokenStream> {
    let lit: LitStr = syn::parse2(input).map_err(|e| {
        syn::Error::new(
            e.span(),
            "skills! takes the path of a folder of skills, e.g. `skills!(\"skills\")`",
        )
    })?;
    // Absolute: `include_bytes!` resolves a relative path against the invoking file, the
    // compiler's own paths are relative to its working directory.
    let dir = crate::paths::relative_to_invoking_file(&lit, invoking_file);
    let (found, mut problems) = mcp_skill_format::scan(&dir);
    let mut skills = Vec::new();
    for skill in found {
        let mut files = BTreeMap::new();
        for file in &skill.files {
            match std::fs::read(&file.abs) {
                Ok(bytes) => {
                    files.insert(file.rel.clone(), bytes);
                }
                Err(e) => problems.push(format!("{}: cannot be read: {e}", file.abs.display())),
            }
        }
        let label = format!("{}/{}", lit.value().trim_end_matches('/'), skill.path);
        if let Err(more) = mcp_skill_format::check(&label, &skill.path, &files) {
            problems.extend(more);
            continue;
        }
        let path = &skill.path;
        let mut calls = TokenStream::new();
        let mut skill_md = None;
        for file in &skill.files {
            let abs = file.abs.to_string_lossy().into_owned();
            if file.rel == "SKILL.md" {
                skill_md = Some(abs);
            } else {
                let rel = &file.rel;
                calls.extend(quote!(.file(#rel, &::core::include_bytes!(#abs)[..])));
            }
        }
        let skill_md = skill_md.expect("checked: the skill has a SKILL.md");
        skills.push(quote! {
            ::mcp_framework::__private::Skill::new(#path, &::core::include_bytes!(#skill_md)[..])
                #calls
        });
    }
    if let Some((first, rest)) = problems.split_first() {
        let mut error = syn::Error::new(lit.span(), first);
        for p in rest {
            error.combine(syn::Error::new(lit.span(), p));
        }
        return Err(error);
    }
    Ok(quote!(::std::vec![#(#skills),*]))
}
