//! A store built in a staging directory beside the real one and renamed into place (a snapshot
//! being imported, a store seeded from another repository's), and what crashed runs of such
//! builds leave behind.

use std::path::{Path, PathBuf};

use super::{DB_FILE, StoreError};

/// The prefix of a full-text index moved aside while a staged store is installed.
pub const FTS_ASIDE_PREFIX: &str = "fts.old-";

/// The prefix of the staging directories of `what` (`import`, `seed`) beside the store in
/// `store_dir`: `<store>.<what>-staging-`, followed by the pid of the process building it.
pub fn staging_prefix(store_dir: &Path, what: &str) -> String {
    let name = store_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "store".into());
    format!("{name}.{what}-staging-")
}

/// A staging directory, removed on drop whatever happened.
pub struct Staging(PathBuf);

impl Staging {
    /// This process's staging directory of `what` beside the store in `store_dir`, not yet
    /// created; those of the same kind that dead processes left are removed first.
    pub fn beside(store_dir: &Path, what: &str) -> Staging {
        let parent = match store_dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let prefix = staging_prefix(store_dir, what);
        remove_leftovers(&parent, &prefix);
        let staging = Staging(parent.join(format!("{prefix}{}", std::process::id())));
        let _ = std::fs::remove_dir_all(&staging.0);
        staging
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The directory it is made in (where the store's directory is too).
    pub fn parent(&self) -> &Path {
        self.0.parent().unwrap_or(Path::new("."))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Renames the store staged in `staging` into `store_dir`, which holds no store or an empty one
/// (its database is replaced). Call with the write lock held. The database goes first: from
/// then until the last rename the store has no database, which every reader sees as "not
/// indexed", never as half a store (and a new store never keeps an orphaned full-text index,
/// see `Store::create`). `after_fts` runs between the full-text index's rename and the
/// database's.
pub fn install(store_dir: &Path, staging: &Path, after_fts: impl FnOnce()) -> Result<(), StoreError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| StoreError::Io { path, source }
    };
    let db = store_dir.join(DB_FILE);
    if db.exists() {
        std::fs::remove_file(&db).map_err(io(&db))?;
    }
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(store_dir.join(format!("{DB_FILE}{suffix}")));
    }
    let fts = crate::index::dir_of(store_dir);
    if fts.exists() {
        let aside = store_dir.join(format!("{FTS_ASIDE_PREFIX}{}", std::process::id()));
        std::fs::rename(&fts, &aside).map_err(io(&fts))?;
        let _ = std::fs::remove_dir_all(&aside);
    }
    let staged_fts = crate::index::dir_of(staging);
    if staged_fts.exists() {
        std::fs::rename(&staged_fts, &fts).map_err(io(&fts))?;
    }
    after_fts();
    std::fs::rename(staging.join(DB_FILE), &db).map_err(io(&db))?;
    if let Ok(dir) = std::fs::File::open(store_dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Whether a process with this pid is alive (leftover directories of dead ones are removed).
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: kill with signal 0 sends nothing; it only checks that the pid exists.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Paths named `<prefix><pid>` in `dir` whose process is gone.
pub fn dead_leftovers(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(prefix)).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            out.push(entry.path());
        }
    }
    out.sort();
    out
}

/// Removes directories named `<prefix><pid>` in `dir` whose process is gone: what a crashed
/// export, import or seed left behind.
pub fn remove_leftovers(dir: &Path, prefix: &str) {
    for path in dead_leftovers(dir, prefix) {
        let _ = std::fs::remove_dir_all(path);
    }
}
