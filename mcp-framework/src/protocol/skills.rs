//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`,
//! `skills/get` and `resources/directory/read`, and the [`SkillEntry`] they carry (a skill's
//! verbatim frontmatter and the manifest of its files).

use serde::{Deserialize, Serialize};

use super::capabilities::JsonObject;
use super::primitives::Resource;
use super::result::{CacheScope, ResultType};

/// One file of a skill: its URI, the SHA-256 of its bytes and their number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// The files of a skill: every one of them, or `"dynamic"` for generated content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// The complete manifest: `SKILL.md` and every supporting file, each once.
    Files(Vec<SkillResource>),
    /// `"dynamic"`: generated content, no stable digests.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dynamic {
    /// `"dynamic"`.
    Dynamic,
}

/// A skill as `skills/list` and `skills/get` describe it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, verbatim, as a JSON object.
    pub frontmatter: JsonObject,
    /// Its files.
    pub resources: SkillResources,
}

/// `skills/list`'s result: a page of skills (an entry is never split across pages).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// `resultType` (`"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skills of this page.
    pub skills: Vec<SkillEntry>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the listing may be reused, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `skills/get`'s result: one skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// `resultType` (`"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skill.
    pub skill: SkillEntry,
    /// How long the entry may be reused, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `resources/directory/read`'s result: a page of a directory's direct children
/// (subdirectories as `inode/directory` resources).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryResult {
    /// `resultType` (`"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The children.
    pub resources: Vec<Resource>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_are_a_manifest_or_dynamic() {
        let files = SkillResources::Files(vec![SkillResource {
            uri: "skill://a/SKILL.md".into(),
            digest: format!("sha256:{}", "0".repeat(64)),
            size: 3,
        }]);
        assert_eq!(serde_json::to_value(&files).unwrap()[0]["size"], 3);
        let dynamic = SkillResources::Dynamic(Dynamic::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let back: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(back, dynamic);
    }
}
