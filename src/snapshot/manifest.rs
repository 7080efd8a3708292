//! The snapshot manifest: what a snapshot holds and how to check it, and the rule for the
//! paths inside an archive.
//!
//! The manifest is the archive's first entry (`manifest.json`). It names the versions the
//! store was written with, the repository it belongs to (its root commits), the views it
//! holds, and every other entry with its size and blake3 hash. Import trusts nothing else in
//! the archive: an entry the manifest does not list, or that differs from it by one byte, is
//! refused.

use serde::{Deserialize, Serialize};

/// The name of the manifest entry, always first.
pub const MANIFEST_ENTRY: &str = "manifest.json";
/// The SQLite store entry.
pub const STORE_ENTRY: &str = "store.sqlite";
/// The directory of the full-text index entries.
pub const FTS_PREFIX: &str = "fts/";
/// What `format` says in every manifest.
pub const FORMAT_NAME: &str = "codecompass-snapshot";

/// The version of the snapshot layout (archive entries and manifest fields). A snapshot of
/// another version is refused.
///
/// History:
/// - 1: `manifest.json`, then `store.sqlite` (rollback-journal mode, jobs cleared, tree views
///   and refs only) and `fts/` (the segments of one Tantivy commit and a `.managed.json`
///   listing them), in a zstd-compressed tar.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 1;

/// The manifest of a snapshot.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// [`SNAPSHOT_FORMAT_VERSION`] of the build that wrote it.
    pub format_version: u32,
    /// The version of the tool that wrote it.
    pub tool_version: String,
    /// When it was written (Unix seconds).
    pub created_at: i64,
    /// The store schema version.
    pub schema_version: u32,
    /// The extractor version.
    pub extractor_version: u32,
    /// The full-text index format version.
    pub index_format_version: u32,
    /// Which repository it belongs to.
    pub repository: RepositoryIdentity,
    /// The views it holds.
    pub views: Vec<ManifestView>,
    /// Whether it was limited to some refs with `--ref`.
    pub limited_to_refs: bool,
    /// Full-text documents of file versions no view in it holds. They are harmless (a query
    /// only sees documents of its view's file versions, and the ids are never handed out
    /// again), and they are queued for deletion by the next `gc` after import.
    pub extra_documents: u64,
    /// Every entry but the manifest.
    pub files: Vec<ManifestFile>,
    /// A keyed hash of the rest of the manifest (which holds every entry's checksum), when a
    /// signing key was set at export ([`signing_key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// The environment variable holding the key snapshots are signed and verified with.
pub const KEY_VARIABLE: &str = "CODECOMPASS_SNAPSHOT_KEY";

/// The signing key: the environment's [`KEY_VARIABLE`], else `git config
/// codecompass.snapshotKey`; `None` when neither is set (or both are empty).
pub fn signing_key(repo: &crate::git::LocalRepo) -> Option<String> {
    std::env::var(KEY_VARIABLE).ok().or_else(|| repo.config_string("codecompass.snapshotKey")).filter(|k| !k.is_empty())
}

impl Manifest {
    /// The signature of this manifest under `key`: a keyed BLAKE3 hash of the manifest
    /// without its signature.
    pub fn signature_with(&self, key: &str) -> String {
        let unsigned = Manifest { signature: None, ..self.clone() };
        let bytes = serde_json::to_vec(&unsigned).expect("a manifest serializes: it holds only strings and numbers");
        let key = blake3::derive_key("codecompass snapshot signature v1", key.as_bytes());
        blake3::keyed_hash(&key, &bytes).to_hex().to_string()
    }
}

/// A repository's identity: its root commits, and where it was exported from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepositoryIdentity {
    /// The root commits reachable from `HEAD` when it was exported (hex, sorted).
    pub root_commits: Vec<String>,
}

/// One view of a snapshot.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ManifestView {
    /// The view key (`tree:<id>`).
    pub key: String,
    /// The tree id.
    pub tree: String,
    /// A commit with this tree (the one a ref pointed at when indexed), if any is known.
    pub commit: Option<String>,
    /// The names that resolved to it (`refs/heads/main`, commit ids).
    pub refs: Vec<String>,
    /// File versions in it.
    pub files: i64,
    /// Symbols in it.
    pub symbols: i64,
}

/// One entry of a snapshot.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ManifestFile {
    /// Its path in the archive (`store.sqlite`, `fts/<name>`).
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// The blake3 hash of its content, hex.
    pub blake3: String,
}

impl Manifest {
    /// The total size of the entries.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// Why a path cannot be an entry of a snapshot, or `None` when it can: `store.sqlite`, or
/// `fts/<name>` with a plain file name (letters, digits, `.`, `_`, `-`; not `.` or `..`).
/// Absolute paths, `..`, backslashes, nested directories and anything else are refused.
pub fn path_problem(path: &[u8]) -> Option<&'static str> {
    if path.is_empty() {
        return Some("an empty path");
    }
    if path.starts_with(b"/") || path.contains(&b'\\') || path.contains(&b':') {
        return Some("an absolute path");
    }
    if path.split(|&b| b == b'/').any(|part| part == b"..") {
        return Some("a path leaving the snapshot (`..`)");
    }
    if path == STORE_ENTRY.as_bytes() {
        return None;
    }
    let Some(name) = path.strip_prefix(FTS_PREFIX.as_bytes()) else {
        return Some("a path outside the snapshot layout");
    };
    let plain = name.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if name.is_empty() || !plain || name == b"." || name == b".." {
        return Some("a path outside the snapshot layout");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_layout_paths_are_entries() {
        assert_eq!(path_problem(b"store.sqlite"), None);
        assert_eq!(path_problem(b"fts/meta.json"), None);
        assert_eq!(path_problem(b"fts/.managed.json"), None);
        assert_eq!(path_problem(b"fts/8a28f59cc703412b94d014b52aa5ad24.3.del"), None);
        assert!(path_problem(b"/etc/passwd").is_some());
        assert!(path_problem(b"../store.sqlite").is_some());
        assert!(path_problem(b"fts/../../x").is_some());
        assert!(path_problem(b"fts/..").is_some());
        assert!(path_problem(b"fts/a/b").is_some());
        assert!(path_problem(b"fts/").is_some());
        assert!(path_problem(b"fts\\meta.json").is_some());
        assert!(path_problem(b"C:/x").is_some());
        assert!(path_problem(b"blobs/ab/cd.zst").is_some());
        assert!(path_problem(b"manifest.json").is_some(), "the manifest is not a file entry");
        assert!(path_problem(b"").is_some());
    }
}
