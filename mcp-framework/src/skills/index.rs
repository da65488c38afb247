//! [`SkillIndex`]: the skills a server serves, checked and indexed once at `build()`: the
//! entries of `skills/list` and `skills/get` (frontmatter and manifest with SHA-256
//! digests), the directories of `resources/directory/read`, and every file as a resource.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::skill::{Generate, Skill};
use crate::outcome::IntoResourceContents as _;
use crate::protocol::{Dynamic, ErrorObject, Resource, SkillEntry, SkillResource, SkillResources};
use crate::registry::definition::ResourceDefinition;
use crate::registry::handler::{ReadResult, ResourceRequest};
use crate::registry::set::ResourceSet;

/// The MIME type of directory resources.
pub(crate) const DIRECTORY: &str = "inode/directory";

/// The checked skills of a server.
#[derive(Debug, Default)]
pub(crate) struct SkillIndex {
    /// What it was built from (to build it again with a skill more or less).
    sources: Vec<Skill>,
    /// Sorted by URI.
    entries: Vec<SkillEntry>,
    /// Each directory's direct children, sorted by URI.
    directories: BTreeMap<String, Vec<Resource>>,
    /// Every file's URI (generated ones too).
    file_uris: std::collections::BTreeSet<String>,
}

/// A file as a resource: what `resources/list` shows and what `resources/read` returns.
struct File {
    resource: Resource,
    source: Source,
}

/// A file's contents: fixed, or produced when read.
enum Source {
    Fixed(Bytes),
    Generated(Generate),
}

fn sha256(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in Sha256::digest(bytes) {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn mime_of(path: &str, bytes: &[u8]) -> String {
    if path.ends_with(".md") || path.ends_with(".markdown") {
        return "text/markdown".into();
    }
    match mime_guess::from_path(path).first_raw() {
        Some(mime) => mime.to_owned(),
        None if std::str::from_utf8(bytes).is_ok() => "text/plain".into(),
        None => "application/octet-stream".into(),
    }
}

/// A file's contents as any resource handler's: text for UTF-8 files of a textual type,
/// base64 otherwise (the request carries the URI and the file's MIME type).
fn contents(request: &ResourceRequest, bytes: &Bytes) -> ReadResult {
    let mime = request.mime_type().unwrap_or_default();
    let binary = ["image/", "audio/", "video/", "font/"]
        .iter()
        .any(|p| mime.starts_with(p))
        || [
            "application/octet-stream",
            "application/pdf",
            "application/zip",
        ]
        .contains(&mime);
    match std::str::from_utf8(bytes) {
        Ok(text) if !binary => text.to_owned().into_contents(request),
        _ => bytes.clone().into_contents(request),
    }
}

impl SkillIndex {
    /// Checks `skills` against the rules and indexes them; every problem of every skill is
    /// reported at once. The resources are the skills' files.
    pub(crate) fn build(skills: Vec<Skill>) -> Result<(Self, ResourceSet), Vec<String>> {
        let sources = skills.clone();
        let mut problems = Vec::new();
        let mut entries: Vec<SkillEntry> = Vec::new();
        let mut files: BTreeMap<String, File> = BTreeMap::new();
        for skill in skills {
            let label = skill.label();
            // Generated files count as files (their sizes are not known).
            let mut all: BTreeMap<String, &[u8]> = skill
                .files
                .iter()
                .map(|(k, v)| (k.clone(), v.as_ref()))
                .collect();
            for rel in skill.generated.keys() {
                all.entry(rel.clone()).or_insert(&[]);
            }
            let front = match mcp_skill_format::check(&label, &skill.path, &all) {
                Ok(front) => front,
                Err(more) => {
                    problems.extend(more);
                    continue;
                }
            };
            let uri = format!("skill://{}/SKILL.md", skill.path);
            if entries.iter().any(|e| e.uri == uri) {
                problems.push(format!("{label}: a second skill at {uri}"));
                continue;
            }
            let mut manifest = Vec::with_capacity(skill.files.len());
            for (rel, bytes) in &skill.files {
                let file_uri = format!("skill://{}/{rel}", skill.path);
                manifest.push(SkillResource {
                    uri: file_uri.clone(),
                    digest: sha256(bytes),
                    size: bytes.len() as u64,
                });
                let is_skill_md = rel == "SKILL.md";
                // A nested skill's files are its enclosing skill's too: the SKILL.md keeps
                // the metadata of the skill it opens.
                if files.contains_key(&file_uri) && !is_skill_md {
                    continue;
                }
                let mime = mime_of(rel, bytes);
                let mut resource = Resource::new(
                    file_uri.clone(),
                    if is_skill_md {
                        front.name.clone()
                    } else {
                        rel.rsplit('/').next().unwrap_or(rel).to_owned()
                    },
                );
                resource.mime_type = Some(mime);
                resource.size = Some(bytes.len() as u64);
                if is_skill_md {
                    resource.description = Some(front.description.clone());
                }
                files.insert(
                    file_uri,
                    File {
                        resource,
                        source: Source::Fixed(bytes.clone()),
                    },
                );
            }
            for (rel, generate) in &skill.generated {
                let file_uri = format!("skill://{}/{rel}", skill.path);
                let mut resource = Resource::new(
                    file_uri.clone(),
                    rel.rsplit('/').next().unwrap_or(rel).to_owned(),
                );
                resource.mime_type = Some(mime_of(rel, b""));
                files.insert(
                    file_uri,
                    File {
                        resource,
                        source: Source::Generated(generate.clone()),
                    },
                );
            }
            let resources = if skill.generated.is_empty() {
                SkillResources::Files(manifest)
            } else {
                SkillResources::Dynamic(Dynamic::Dynamic)
            };
            entries.push(SkillEntry {
                uri,
                frontmatter: front.object,
                resources,
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        entries.sort_by(|a, b| a.uri.cmp(&b.uri));
        let mut directories: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
        for (uri, file) in &files {
            let path = uri.strip_prefix("skill://").unwrap_or(uri);
            let segments: Vec<&str> = path.split('/').collect();
            for depth in 1..segments.len() {
                let dir = format!("skill://{}", segments[..depth].join("/"));
                let child_uri = format!("skill://{}", segments[..=depth].join("/"));
                let child = if depth + 1 == segments.len() {
                    let mut r = file.resource.clone();
                    r.name = segments[depth].to_owned();
                    r.description = None;
                    r
                } else {
                    let mut r = Resource::new(child_uri.clone(), segments[depth]);
                    r.mime_type = Some(DIRECTORY.into());
                    r
                };
                directories.entry(dir).or_default().insert(child_uri, child);
            }
        }
        let directories = directories
            .into_iter()
            .map(|(dir, children)| (dir, children.into_values().collect()))
            .collect();
        let file_uris = files.keys().cloned().collect();
        let mut set = ResourceSet::new();
        for (uri, file) in files {
            let r = &file.resource;
            let mut def = ResourceDefinition::fixed(uri.clone(), r.name.clone())
                .mime_type(r.mime_type.clone().unwrap_or_default());
            if let Some(size) = r.size {
                def = def.size(size);
            }
            if let Some(d) = &r.description {
                def = def.description(d.clone());
            }
            set = match file.source {
                Source::Fixed(bytes) => set.with_fn(def, move |request, _cx| {
                    std::future::ready(contents(&request, &bytes))
                }),
                Source::Generated(generate) => set.with_fn(def, move |request, _cx| {
                    let produced = generate();
                    async move {
                        match produced.await {
                            Ok(bytes) => contents(&request, &bytes),
                            Err(e) => Err(ErrorObject::internal(format!(
                                "the skill file {} could not be generated: {e}",
                                request.uri()
                            ))),
                        }
                    }
                }),
            };
        }
        Ok((
            Self {
                sources,
                entries,
                directories,
                file_uris,
            },
            set,
        ))
    }

    /// The skills it was built from.
    pub(crate) fn sources(&self) -> &[Skill] {
        &self.sources
    }

    /// Every file URI of every skill (generated ones too).
    pub(crate) fn file_uris(&self) -> &std::collections::BTreeSet<String> {
        &self.file_uris
    }

    /// Every skill, sorted by URI.
    pub(crate) fn entries(&self) -> &[SkillEntry] {
        &self.entries
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn entry(&self, uri: &str) -> Option<&SkillEntry> {
        self.entries
            .binary_search_by(|e| e.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The direct children of the directory at `uri` (no trailing slash).
    pub(crate) fn directory(&self, uri: &str) -> Option<&[Resource]> {
        self.directories.get(uri).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{BlobResourceContents, ResourceContents};

    const MD: &str = "---\nname: refunds\ndescription: Refund requests\n---\n# Refunds\n";

    #[test]
    fn indexes_entries_directories_and_files() {
        let skills = vec![
            Skill::new("acme/billing/refunds", MD)
                .file("examples/email.md", "Dear customer")
                .file("img/logo.png", vec![0x89, b'P', b'N', b'G', 0xff]),
            Skill::new(
                "git-workflow",
                "---\nname: git-workflow\ndescription: Git conventions\n---\n",
            ),
        ];
        let (index, set) = SkillIndex::build(skills).unwrap();
        assert_eq!(set.len(), 4);
        let e = index
            .entry("skill://acme/billing/refunds/SKILL.md")
            .unwrap();
        let SkillResources::Files(files) = &e.resources else {
            panic!("a manifest")
        };
        assert_eq!(files.len(), 3);
        assert!(files.iter().all(|f| f.digest.len() == 71));
        assert_eq!(
            files
                .iter()
                .find(|f| f.uri.ends_with("SKILL.md"))
                .unwrap()
                .size,
            MD.len() as u64
        );
        let root = index.directory("skill://acme/billing/refunds").unwrap();
        let names: Vec<_> = root
            .iter()
            .map(|r| (r.name.as_str(), r.mime_type.as_deref()))
            .collect();
        assert_eq!(
            names,
            [
                ("SKILL.md", Some("text/markdown")),
                ("examples", Some(DIRECTORY)),
                ("img", Some(DIRECTORY))
            ]
        );
        assert!(index.directory("skill://acme").is_some());
        assert!(
            index
                .directory("skill://acme/billing/refunds/SKILL.md")
                .is_none()
        );
        let request = ResourceRequest {
            uri: "u".into(),
            mime_type: Some("image/png".into()),
            variables: serde_json::Map::new(),
        };
        assert_eq!(
            contents(&request, &Bytes::from_static(b"\x89PNG")).unwrap(),
            [ResourceContents::Blob(BlobResourceContents {
                uri: "u".into(),
                mime_type: Some("image/png".into()),
                blob: "iVBORw==".into(),
                meta: None
            })]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let problems = SkillIndex::build(vec![
            Skill::new("refund", MD),
            Skill::new("Bad_Name", "---\nname: Bad_Name\ndescription: d\n---\n"),
            Skill::new("empty", "no frontmatter"),
            Skill::new("refunds", MD).file("a b.md", "x"),
        ])
        .unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(
            problems[0].contains("folder is \"refund\""),
            "{}",
            problems[0]
        );
        assert!(problems[1].contains("lowercase"), "{}", problems[1]);
        assert!(problems[2].contains("must begin"), "{}", problems[2]);
        assert!(problems[3].contains("\"a b.md\""), "{}", problems[3]);
    }
}
