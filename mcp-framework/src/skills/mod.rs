//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): Agent Skills served
//! beside the tools. Owns what a skill is ([`Skill`]: a `SKILL.md` and its supporting
//! files, from a folder, embedded by `skills!` or built in code) and the index the methods
//! answer from (`index`: entries with digests, the directories, the files as resources).
//! The rules a skill must keep (frontmatter, names, paths, limits) are the
//! `mcp-skill-format` crate's, shared with the `skills!` macro, which applies them at
//! compile time; `build()` applies them here and reports every problem.
//!
//! Every file of a skill is an ordinary resource (`skill://<skill-path>/<file-path>`), so
//! `resources/list` and `resources/read` serve them in both eras; `skills/list`,
//! `skills/get` and `resources/directory/read` (2026-07-28) are the methods of
//! `extension`, the extension registered through the public extension API like anyone's.
//!
//! Imports: the registry (files become resource definitions), the extension API and the
//! leaves.

pub(crate) mod extension;
pub(crate) mod index;
mod skill;

pub use mcp_skill_format::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};
pub use skill::Skill;
pub(crate) use skill::load_dir;
