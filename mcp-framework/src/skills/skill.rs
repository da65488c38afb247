//! [`Skill`]: one skill to serve, built in code or read from a folder of skills
//! (`ServerBuilder::skills_dir`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use bytes::Bytes;

use super::format::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};

/// A skill to serve ([`ServerBuilder::skill`](crate::ServerBuilder::skill)): where it sits
/// in the server's skill namespace and its files. Its resources are
/// `skill://<path>/<file>`; `build()` checks it against the Agent Skills rules.
///
/// ```
/// use mcp_framework::skills::Skill;
///
/// let skill = Skill::new(
///     "acme/billing/refunds", // `refunds` is the name; `acme/billing` a prefix
///     "---\nname: refunds\ndescription: Process refund requests per policy\n---\n# Refunds\n",
/// )
/// .file("examples/email.md", "Dear customer, …");
/// assert_eq!(skill.path(), "acme/billing/refunds");
/// ```
#[derive(Clone)]
pub struct Skill {
    pub(super) path: String,
    pub(super) files: BTreeMap<String, Bytes>,
    /// Where it was read from, for messages.
    pub(super) origin: Option<PathBuf>,
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("path", &self.path)
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// A skill at `path` (`/`-separated; its last segment must be the frontmatter's
    /// `name`) whose `SKILL.md` is `skill_md`.
    pub fn new(path: impl Into<String>, skill_md: impl Into<Bytes>) -> Self {
        let mut files = BTreeMap::new();
        files.insert("SKILL.md".to_owned(), skill_md.into());
        Self {
            path: path.into(),
            files,
            origin: None,
        }
    }

    /// Adds a supporting file at `path` (relative to the skill, `/`-separated).
    #[must_use]
    pub fn file(mut self, path: impl Into<String>, contents: impl Into<Bytes>) -> Self {
        self.files.insert(path.into(), contents.into());
        self
    }

    /// The skill's path in the server's skill namespace.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What the skill is called in messages: its folder, or its path.
    pub(super) fn label(&self) -> String {
        match &self.origin {
            Some(dir) => dir.display().to_string(),
            None => format!("skill `{}`", self.path),
        }
    }
}

/// Every file under `dir` (relative `/`-separated paths), skipping hidden entries.
fn walk(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, PathBuf, u64)>,
    problems: &mut Vec<String>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(format!("{}: cannot be read: {e}", dir.display()));
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk(root, &path, out, problems),
            Ok(m) if m.is_file() => {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push((rel.join("/"), path, m.len()));
            }
            Ok(_) => {}
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
}

/// The skills of a folder: every directory holding a `SKILL.md` is a skill (nested ones
/// too), its path the directory's path below `root`, its files everything below it.
pub(crate) fn load_dir(root: &Path) -> (Vec<Skill>, Vec<String>) {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    walk(root, root, &mut files, &mut problems);
    if files.is_empty() && problems.is_empty() {
        problems.push(format!("{}: no skills in this folder", root.display()));
    }
    let roots: Vec<String> = files
        .iter()
        .filter_map(|(rel, _, _)| {
            if rel == "SKILL.md" {
                problems.push(format!(
                    "{}: a SKILL.md directly in the skills folder; put each skill in a folder \
                     named after it",
                    root.join("SKILL.md").display()
                ));
                None
            } else {
                rel.strip_suffix("/SKILL.md").map(str::to_owned)
            }
        })
        .collect();
    let mut skills = Vec::new();
    for skill_path in roots {
        let dir = root.join(&skill_path);
        let prefix = format!("{skill_path}/");
        let mine: Vec<_> = files
            .iter()
            .filter_map(|(rel, path, len)| rel.strip_prefix(&prefix).map(|r| (r, path, *len)))
            .collect();
        let total: u64 = mine.iter().map(|(_, _, len)| len).sum();
        if mine.len() > MAX_FILES_PER_SKILL || total > MAX_BYTES_PER_SKILL {
            problems.push(format!(
                "{}: {} files of {total} bytes; a skill may have at most {MAX_FILES_PER_SKILL} \
                 files and {MAX_BYTES_PER_SKILL} bytes",
                dir.display(),
                mine.len()
            ));
            continue;
        }
        let mut skill = Skill {
            path: skill_path.clone(),
            files: BTreeMap::new(),
            origin: Some(dir.clone()),
        };
        for (rel, path, _) in mine {
            match std::fs::read(path) {
                Ok(bytes) => {
                    skill.files.insert(rel.to_owned(), Bytes::from(bytes));
                }
                Err(e) => problems.push(format!("{}: cannot be read: {e}", path.display())),
            }
        }
        skills.push(skill);
    }
    (skills, problems)
}
