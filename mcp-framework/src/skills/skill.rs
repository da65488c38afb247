//! [`Skill`]: one skill to serve, built in code or read from a folder of skills
//! (`ServerBuilder::skills_dir`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::future::BoxFuture;

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
    /// Files whose contents are produced when read.
    pub(super) generated: BTreeMap<String, Generate>,
    /// Where it was read from, for messages.
    pub(super) origin: Option<PathBuf>,
}

/// Produces a generated file's contents.
pub(super) type Generate = Arc<dyn Fn() -> BoxFuture<Result<Bytes, String>> + Send + Sync>;

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("path", &self.path)
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .field("generated", &self.generated.keys().collect::<Vec<_>>())
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
            generated: BTreeMap::new(),
            origin: None,
        }
    }

    /// Adds a file at `path` whose contents `generate` produces each time it is read (a
    /// report from live data, say). Its skill then publishes `"resources": "dynamic"`
    /// instead of a manifest: there are no stable digests to publish (hosts may decline
    /// such skills). An error of `generate` answers the read with an internal error.
    #[must_use]
    pub fn generated_file<F, Fut, B, E>(mut self, path: impl Into<String>, generate: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<B, E>> + Send + 'static,
        B: Into<Bytes>,
        E: fmt::Display,
    {
        let generate: Generate = Arc::new(move || {
            let fut = generate();
            Box::pin(async move { fut.await.map(Into::into).map_err(|e| e.to_string()) })
        });
        self.generated.insert(path.into(), generate);
        self
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

/// The skills of a folder (see [`mcp_skill_format::scan`]), read.
pub(crate) fn load_dir(root: &Path) -> (Vec<Skill>, Vec<String>) {
    let (found, mut problems) = mcp_skill_format::scan(root);
    let mut skills = Vec::with_capacity(found.len());
    for f in found {
        let mut skill = Skill {
            path: f.path,
            files: BTreeMap::new(),
            generated: BTreeMap::new(),
            origin: Some(f.dir),
        };
        for file in f.files {
            match std::fs::read(&file.abs) {
                Ok(bytes) => {
                    skill.files.insert(file.rel, Bytes::from(bytes));
                }
                Err(e) => problems.push(format!("{}: cannot be read: {e}", file.abs.display())),
            }
        }
        skills.push(skill);
    }
    (skills, problems)
}
