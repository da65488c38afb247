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

/// The most entries one folder's walk visits: a guard against links within the folder that
/// multiply what is walked (two links to the same folder at each of twenty levels).
pub const MAX_ENTRIES_PER_FOLDER: usize = 100_000;

/// A walk of a skills folder: where it started, and what it has seen.
struct Walk<'a> {
    /// The folder as given (paths are reported relative to it).
    root: &'a Path,
    /// The folder with every link resolved: no link may lead out of it.
    real_root: PathBuf,
    /// The real paths of the folders being walked, outermost first: a link to one of them
    /// is a loop.
    open: Vec<PathBuf>,
    entries: usize,
    out: Vec<(String, PathBuf, u64)>,
    problems: Vec<String>,
}

impl Walk<'_> {
    /// Every file under `dir` (whose real path is `real`) as (path relative to the root,
    /// path, length), skipping entries whose name starts with `.`. Symbolic links are
    /// followed when they lead to a file or folder inside the root that is not one of the
    /// folders being walked; any other link is a problem.
    fn dir(&mut self, dir: &Path, real: PathBuf) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.problems
                    .push(format!("{}: cannot be read: {e}", dir.display()));
                return;
            }
        };
        self.open.push(real);
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            self.entries += 1;
            if self.entries > MAX_ENTRIES_PER_FOLDER {
                if self.entries == MAX_ENTRIES_PER_FOLDER + 1 {
                    self.problems.push(format!(
                        "{}: more than {MAX_ENTRIES_PER_FOLDER} entries; the rest is not read",
                        self.root.display()
                    ));
                }
                break;
            }
            self.entry(&entry);
        }
        self.open.pop();
    }

    fn entry(&mut self, entry: &std::fs::DirEntry) {
        let path = entry.path();
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        let real = if is_link {
            match std::fs::canonicalize(&path) {
                Ok(target) if !target.starts_with(&self.real_root) => {
                    return self.problems.push(format!(
                        "{}: a symbolic link out of the skills folder (to {}): only links \
                         within {} are followed",
                        path.display(),
                        target.display(),
                        self.root.display()
                    ));
                }
                Ok(target) => target,
                Err(e) => {
                    return self.problems.push(format!(
                        "{}: a symbolic link that leads nowhere: {e}",
                        path.display()
                    ));
                }
            }
        } else {
            self.open
                .last()
                .map_or_else(|| path.clone(), |dir| dir.join(entry.file_name()))
        };
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                if self.open.contains(&real) {
                    return self.problems.push(format!(
                        "{}: a symbolic link to {}, a folder it is in: a loop",
                        path.display(),
                        real.display()
                    ));
                }
                self.dir(&path, real);
            }
            Ok(m) if m.is_file() => {
                let rel = path.strip_prefix(self.root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                self.out.push((rel.join("/"), path, m.len()));
            }
            Ok(_) => {}
            Err(e) => self.problems.push(format!("{}: {e}", path.display())),
        }
    }
}

/// The skills of the folder `root`: every directory below it holding a `SKILL.md` (nested
/// ones too), its path the directory's path below `root`, its files everything below it.
/// Problems (unreadable entries, a `SKILL.md` directly in `root`, a skill over the limits,
/// a symbolic link that leads out of `root` or to a folder it is in, no skill at all) are
/// returned beside what was found. Links within `root` are followed.
pub fn scan(root: &Path) -> (Vec<Found>, Vec<String>) {
    let real_root = match std::fs::canonicalize(root) {
        Ok(real) => real,
        Err(e) => {
            return (
                Vec::new(),
                vec![format!("{}: cannot be read: {e}", root.display())],
            );
        }
    };
    let mut walk = Walk {
        root,
        real_root: real_root.clone(),
        open: Vec::new(),
        entries: 0,
        out: Vec::new(),
        problems: Vec::new(),
    };
    walk.dir(root, real_root);
    let Walk {
        out: files,
        mut problems,
        ..
    } = walk;
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fresh folder holding `skills/` (the root) and `outside/`.
    fn tree(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("skill-scan-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("skills/a")).unwrap();
        std::fs::create_dir_all(dir.join("skills/common")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::fs::write(dir.join("skills/a/SKILL.md"), "x").unwrap();
        std::fs::write(dir.join("skills/common/shared.md"), "s").unwrap();
        std::fs::write(dir.join("outside/secret"), "k").unwrap();
        dir
    }

    #[test]
    fn links_within_the_folder_are_followed_others_refused_loops_cut() {
        let dir = tree("links");
        let root = dir.join("skills");
        symlink("../common", root.join("a/common")).unwrap();
        symlink("../common/shared.md", root.join("a/shared.md")).unwrap();
        let (found, problems) = scan(&root);
        assert!(problems.is_empty(), "{problems:?}");
        let rels: Vec<&str> = found[0].files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["SKILL.md", "common/shared.md", "shared.md"]);

        symlink("../../outside/secret", root.join("a/secret")).unwrap();
        symlink("../../outside", root.join("a/out")).unwrap();
        symlink(dir.join("outside"), root.join("a/absolute")).unwrap();
        symlink("..", root.join("a/up")).unwrap();
        symlink(".", root.join("a/here")).unwrap();
        symlink("nowhere", root.join("a/dangling")).unwrap();
        let (_, problems) = scan(&root);
        let said = |name: &str, what: &str| {
            problems
                .iter()
                .any(|p| p.contains(&format!("a/{name}:")) && p.contains(what))
        };
        assert!(said("secret", "out of the skills folder"), "{problems:?}");
        assert!(said("out", "out of the skills folder"), "{problems:?}");
        assert!(said("absolute", "out of the skills folder"), "{problems:?}");
        assert!(said("up", "a loop"), "{problems:?}");
        assert!(said("here", "a loop"), "{problems:?}");
        assert!(said("dangling", "leads nowhere"), "{problems:?}");
        assert_eq!(problems.len(), 6, "{problems:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_root_may_be_a_link() {
        let dir = tree("root-link");
        symlink(dir.join("skills"), dir.join("linked")).unwrap();
        let (found, problems) = scan(&dir.join("linked"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(found[0].path, "a");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
