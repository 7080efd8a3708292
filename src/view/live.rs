//! Plain directories, not git repositories: indexed only when the user asks (`--dir`,
//! `CODECOMPASS_LIVE=1`, `index --live`), never `/` or the home directory without `--force`,
//! only after a confirmation when large, and kept in the user's cache directory, never inside
//! the directory itself.

use std::path::{Path, PathBuf};

/// Files above which indexing a plain directory asks first (`CODECOMPASS_LIVE_CONFIRM_FILES`
/// overrides).
pub const CONFIRM_FILES: u64 = 50_000;
/// Bytes above which indexing a plain directory asks first.
pub const CONFIRM_BYTES: u64 = 1 << 30;
/// The file inside a plain directory's store naming the directory.
const DIRECTORY_FILE: &str = "directory";

/// What the user allowed for a plain directory.
#[derive(Clone, Copy, Debug, Default)]
pub struct LiveOptIn {
    /// Index a plain directory at all.
    pub allowed: bool,
    /// Even `/` or the home directory.
    pub force: bool,
    /// Even above the size that asks first.
    pub yes: bool,
}

/// Where plain directories' indexes live: `$XDG_CACHE_HOME/codecompass/live`, or
/// `~/.cache/codecompass/live`.
pub fn cache_root() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home().map(|h| h.join(".cache")))?;
    Some(base.join("codecompass").join("live"))
}

/// The user's home directory.
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// The store of the plain directory `dir` (canonical).
pub fn store_for(dir: &Path) -> Option<PathBuf> {
    let digest = blake3::hash(dir.as_os_str().as_encoded_bytes()).to_hex();
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".to_owned());
    let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).take(32).collect();
    Some(cache_root()?.join(format!("{name}-{}", &digest[..16])))
}

/// Records which directory `store` indexes, for `gc --live`.
pub fn record(store: &Path, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(store)?;
    std::fs::write(store.join(DIRECTORY_FILE), dir.as_os_str().as_encoded_bytes())
}

/// How much a plain directory holds, counted as indexing would walk it, up to just past the
/// thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Files counted.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Whether either threshold was passed (the counts then stop there).
    pub over: bool,
}

/// The file threshold in force.
pub fn confirm_files() -> u64 {
    std::env::var("CODECOMPASS_LIVE_CONFIRM_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(CONFIRM_FILES)
}

/// Counts the files under `dir` that indexing would read.
pub fn measure(dir: &Path) -> Size {
    let max_files = confirm_files();
    let mut size = Size { files: 0, bytes: 0, over: false };
    let cache = cache_root();
    let walker = ::ignore::WalkBuilder::new(dir)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(move |e| e.file_name() != ".git" && cache.as_deref().is_none_or(|c| e.path() != c))
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        size.files += 1;
        size.bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
        if size.files > max_files || size.bytes > CONFIRM_BYTES {
            size.over = true;
            break;
        }
    }
    size
}

/// One plain directory's index in the cache.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LiveIndex {
    /// The directory indexed.
    pub directory: String,
    /// Where its index is.
    pub store: String,
    /// Bytes on disk.
    pub bytes: u64,
    /// Whether the directory still exists.
    pub directory_exists: bool,
}

/// Every plain directory's index in the cache.
pub fn list() -> Vec<LiveIndex> {
    let Some(root) = cache_root() else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(&root) else { return Vec::new() };
    let mut found: Vec<LiveIndex> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| {
            let store = e.path();
            let directory = std::fs::read(store.join(DIRECTORY_FILE))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            LiveIndex {
                directory_exists: !directory.is_empty() && Path::new(&directory).is_dir(),
                directory,
                bytes: crate::store::dir_size(&store),
                store: store.display().to_string(),
            }
        })
        .collect();
    found.sort_by(|a, b| a.directory.cmp(&b.directory));
    found
}
