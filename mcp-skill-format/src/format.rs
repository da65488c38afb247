//! The rules of the Agent Skills format as mcp-framework keeps them: a `SKILL.md` starts
//! with YAML frontmatter holding at least `name` and `description`; names are 1 to 64
//! lowercase letters, digits and single hyphens; paths are made of plain URI segments;
//! `metadata` keys under `io.modelcontextprotocol/` are reserved.

use serde_json::Value;

/// A JSON object.
pub type JsonObject = serde_json::Map<String, Value>;

/// Files per skill a host must accept (and the most a skill may have here).
pub const MAX_FILES_PER_SKILL: usize = 512;
/// Bytes per skill (the sum of its files) a host must accept (and the most here).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;

/// The frontmatter of a `SKILL.md`, verbatim, with the two fields every skill has.
#[derive(Debug, Clone)]
pub struct Frontmatter {
    /// Every field, as the author wrote it.
    pub object: JsonObject,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
}

/// Reads the YAML frontmatter that opens `text` (between a first line `---` and the next
/// line `---`).
pub fn frontmatter(text: &str) -> Result<Frontmatter, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err("SKILL.md must begin with YAML frontmatter (a first line `---`)".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("the frontmatter of SKILL.md is not closed by a line `---`".into());
    }
    let value: Value = yaml_serde::from_str(&yaml)
        .map_err(|e| format!("the frontmatter of SKILL.md is not valid YAML: {e}"))?;
    let Value::Object(object) = value else {
        return Err("the frontmatter of SKILL.md must be a YAML mapping".into());
    };
    let field = |key: &str| match object.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(format!("the frontmatter field `{key}` is empty")),
        Some(_) => Err(format!("the frontmatter field `{key}` must be a string")),
        None => Err(format!("the frontmatter has no `{key}`")),
    };
    let name = field("name")?;
    let description = field("description")?;
    if description.chars().count() > 1024 {
        return Err("the frontmatter `description` is longer than 1024 characters".into());
    }
    if let Some(metadata) = object.get("metadata") {
        let Value::Object(metadata) = metadata else {
            return Err("the frontmatter field `metadata` must be a mapping".into());
        };
        if let Some(key) = metadata
            .keys()
            .find(|k| k.starts_with("io.modelcontextprotocol/"))
        {
            return Err(format!(
                "the metadata key `{key}` uses the prefix `io.modelcontextprotocol/`, \
                 reserved for MCP extensions (which define none yet)"
            ));
        }
    }
    Ok(Frontmatter {
        object,
        name,
        description,
    })
}

/// A skill name: 1 to 64 of `a-z 0-9 -`, no hyphen first, last or twice in a row.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().count() > 64 {
        return Err(format!(
            "the skill name {name:?} must be 1 to 64 characters long"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(format!(
            "the skill name {name:?} may contain only lowercase letters, digits and `-`, not {bad:?}"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "the skill name {name:?} may not start or end with `-` or contain `--`"
        ));
    }
    Ok(())
}

/// A segment of a skill path or a file path: plain URI characters (`A-Z a-z 0-9 - . _ ~`),
/// not `.` or `..`.
pub fn check_segment(segment: &str) -> Result<(), String> {
    if segment.is_empty() || segment == "." || segment == ".." {
        return Err(format!("{segment:?} is not a path segment"));
    }
    if let Some(bad) = segment
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')))
    {
        return Err(format!(
            "{segment:?} contains {bad:?}: path segments may contain only ASCII letters, \
             digits, `-`, `.`, `_` and `~`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_kept_verbatim() {
        let f = frontmatter(
            "---\nname: pdf-processing\ndescription: Fill PDF forms\nlicense: MIT\nmetadata:\n  version: \"2.1\"\n---\n# Body\n",
        )
        .unwrap();
        assert_eq!(f.name, "pdf-processing");
        assert_eq!(f.description, "Fill PDF forms");
        assert_eq!(f.object["license"], "MIT");
        assert_eq!(f.object["metadata"]["version"], "2.1");
    }

    #[test]
    fn broken_frontmatter_is_refused() {
        for (text, needle) in [
            ("# no frontmatter", "must begin"),
            ("---\nname: a\n", "not closed"),
            ("---\nname: [a\n---\n", "not valid YAML"),
            ("---\n- a\n---\n", "mapping"),
            ("---\ndescription: d\n---\n", "no `name`"),
            ("---\nname: a\ndescription: \"\"\n---\n", "empty"),
            ("---\nname: 3\ndescription: d\n---\n", "must be a string"),
            (
                "---\nname: a\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n",
                "reserved",
            ),
        ] {
            let e = frontmatter(text).unwrap_err();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for ok in ["a", "pdf-processing", "v2", &"a".repeat(64)] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "PDF", "a_b", "-a", "a-", "a--b", &"a".repeat(65), "é"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_segment("FORMS.md").is_ok());
        for bad in ["..", "a b", "a/b", "", "ü"] {
            assert!(check_segment(bad).is_err(), "{bad}");
        }
    }
}
