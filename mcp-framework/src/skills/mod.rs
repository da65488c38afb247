//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): Agent Skills served
//! beside the tools. Owns what a skill is ([`Skill`]: a `SKILL.md` and its supporting
//! files, from a folder or built in code), the rules a skill must keep (`format`: the
//! frontmatter, names, paths, limits; every problem reported by `build()`), and the index
//! the methods answer from (`index`: entries with digests, the directories, the files as
//! resources).
//!
//! Every file of a skill is an ordinary resource (`skill://<skill-path>/<file-path>`), so
//! `resources/list` and `resources/read` serve them in both eras; `skills/list`,
//! `skills/get` and `resources/directory/read` (2026-07-28) are answered by dispatch from
//! the index.
//!
//! Imports: the registry (files become resource definitions) and the leaves.

mod format;
pub(crate) mod index;
mod skill;

pub use format::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};
pub use skill::Skill;
pub(crate) use skill::load_dir;
