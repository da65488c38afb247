//! [`scan`]: the skills of a folder (every directory holding a `SKILL.md`, nested ones too)
//! and their files, without reading them.

use std::path::{Path, PathBuf};

use crate::format::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};

/// A file of a skill found by [`scan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Its path relative to the skill, `/`-separated.
    pub rel: String,
    /// Where it is.
    pub abs: PathBuf,
    /// Its length in bytes.
    pub len: u64,
}

/// A skill found by [`scan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its path in the skill namespace (its directory below the folder, `/`-separated).
    pub path: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Every file below it (hidden entries left out), sorted.
    pub files: Vec<FoundFile>,
}

/// Every file under `dir` as (path relative to `root`, path, length), skipping entries
/// whose name starts with `.`.
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

/// The skills of the folder `root`: every directory below it holding a `SKILL.md` (nested
/// ones too), its path the directory's path below `root`, its files everything below it.
/// Problems (unreadable entries, a `SKILL.md` directly in `root`, a skill over the limits,
/// no skill at all) are returned beside what was found.
pub fn scan(root: &Path) -> (Vec<Found>, Vec<String>) {
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
    let mut found = Vec::new();
    for path in roots {
        let dir = root.join(&path);
        let prefix = format!("{path}/");
        let mine: Vec<FoundFile> = files
            .iter()
            .filter_map(|(rel, abs, len)| {
                rel.strip_prefix(&prefix).map(|r| FoundFile {
                    rel: r.to_owned(),
                    abs: abs.clone(),
                    len: *len,
                })
            })
            .collect();
        let total: u64 = mine.iter().map(|f| f.len).sum();
        if mine.len() > MAX_FILES_PER_SKILL || total > MAX_BYTES_PER_SKILL {
            problems.push(format!(
                "{}: {} files of {total} bytes; a skill may have at most {MAX_FILES_PER_SKILL} \
                 files and {MAX_BYTES_PER_SKILL} bytes",
                dir.display(),
                mine.len()
            ));
            continue;
        }
        found.push(Found {
            path,
            dir,
            files: mine,
        });
    }
    (found, problems)
}
