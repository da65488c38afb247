//! The rules of the [Agent Skills](https://agentskills.io/specification) format as
//! `mcp-framework` serves skills (the MCP Skills extension): a `SKILL.md`'s frontmatter
//! ([`frontmatter`]), names and path segments ([`check_name`], [`check_segment`]), the
//! per-skill limits, every rule of one skill at once ([`check`]), and the skills of a folder
//! ([`scan`]). The runtime (`ServerBuilder::skills_dir`) and the `skills!` macro (at compile
//! time) both use them, so a skill is judged the same either way.

#![deny(missing_docs)]

mod format;
mod scan;

use std::collections::BTreeMap;

pub use format::{
    Frontmatter, JsonObject, MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, check_name, check_segment,
    frontmatter,
};
pub use scan::{Found, FoundFile, MAX_ENTRIES_PER_FOLDER, scan};

/// Every rule of one skill: its `path` in the skill namespace (`/`-separated, the last
/// segment its name) and its files by relative path. The frontmatter of its `SKILL.md`, or
/// every problem found (each one line, prefixed with `label`).
pub fn check<B: AsRef<[u8]>>(
    label: &str,
    path: &str,
    files: &BTreeMap<String, B>,
) -> Result<Frontmatter, Vec<String>> {
    let mut problems = Vec::new();
    let mut bad = |p: String| problems.push(format!("{label}: {p}"));
    let segments: Vec<&str> = path.split('/').collect();
    for segment in &segments {
        if let Err(e) = check_segment(segment) {
            bad(format!("skill path {path:?}: {e}"));
        }
    }
    let folder = segments.last().copied().unwrap_or_default();
    if let Err(e) = check_name(folder) {
        bad(e);
    }
    for rel in files.keys() {
        if let Some(e) = rel.split('/').find_map(|s| check_segment(s).err()) {
            bad(format!("file {rel:?}: {e}"));
        }
    }
    let total: u64 = files.values().map(|b| b.as_ref().len() as u64).sum();
    if files.len() > MAX_FILES_PER_SKILL || total > MAX_BYTES_PER_SKILL {
        bad(format!(
            "{} files of {total} bytes; a skill may have at most {MAX_FILES_PER_SKILL} files \
             and {MAX_BYTES_PER_SKILL} bytes",
            files.len()
        ));
    }
    let parsed = match files
        .get("SKILL.md")
        .map(|b| std::str::from_utf8(b.as_ref()))
    {
        None => Err("no SKILL.md".to_owned()),
        Some(Err(_)) => Err("SKILL.md is not UTF-8 text".to_owned()),
        Some(Ok(text)) => frontmatter(text),
    };
    match parsed {
        Ok(front) => {
            if front.name != folder {
                bad(format!(
                    "the frontmatter names the skill {:?}, but its folder is {folder:?}: they \
                     must be the same",
                    front.name
                ));
            }
            if problems.is_empty() {
                return Ok(front);
            }
        }
        Err(e) => bad(e),
    }
    Err(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_skill_every_rule() {
        let mut files = BTreeMap::new();
        files.insert(
            "SKILL.md".to_owned(),
            b"---\nname: refunds\ndescription: d\n---\n".to_vec(),
        );
        assert_eq!(check("x", "acme/refunds", &files).unwrap().name, "refunds");
        files.insert("a b.md".to_owned(), b"x".to_vec());
        let problems = check("x", "acme/refund", &files).unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().all(|p| p.starts_with("x: ")));
    }
}
