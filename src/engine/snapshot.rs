//! `snapshot export | import | inspect` at the API boundary: which views to export, and how
//! snapshot errors map to the error-code registry.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::{Engine, Error, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::indexer::IndexOptions;
use crate::snapshot::{self, ExportReport, ImportReport, Manifest, SnapshotError};
use crate::store::{Store, StoreState};
use crate::view::{self, Scope};

/// The answer of `snapshot inspect`.
#[derive(Clone, Debug, Serialize)]
pub struct InspectResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The snapshot file.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Whether this build can import it (versions).
    pub compatible: bool,
    /// Why not, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incompatibility: Option<String>,
    /// Whether it belongs to this workspace's repository (`None` outside a repository).
    pub same_repository: Option<bool>,
    /// The manifest as stored.
    pub manifest: Manifest,
}

impl From<SnapshotError> for Error {
    fn from(e: SnapshotError) -> Error {
        let invalid = "the store was left as it was; export the snapshot again, or build the index here with `git codecompass index`";
        match e {
            SnapshotError::Store(s) => s.into(),
            SnapshotError::Index(i) => i.into(),
            SnapshotError::Git(g) => g.into(),
            SnapshotError::Io { .. } | SnapshotError::NoSpace { .. } => Error::new(ErrorCode::Io, e.to_string()),
            SnapshotError::NotARepository { .. } => Error::new(ErrorCode::NotARepository, e.to_string()),
            SnapshotError::NothingToExport => Error::new(ErrorCode::NotIndexed, e.to_string())
                .with_remedy("run `git codecompass index` (or `git codecompass index --ref REF`) first"),
            SnapshotError::Unreadable { .. }
            | SnapshotError::NotASnapshot { .. }
            | SnapshotError::BadManifest { .. }
            | SnapshotError::UnsafeEntry { .. }
            | SnapshotError::DuplicateEntry { .. }
            | SnapshotError::UnlistedEntry { .. }
            | SnapshotError::SizeMismatch { .. }
            | SnapshotError::ChecksumMismatch { .. }
            | SnapshotError::MissingEntry { .. }
            | SnapshotError::DecompressionBomb { .. }
            | SnapshotError::BadStore { .. } => Error::new(ErrorCode::SnapshotInvalid, e.to_string()).with_remedy(invalid),
            SnapshotError::BadSignature { .. } => Error::new(ErrorCode::SnapshotInvalid, e.to_string()).with_remedy(
                "export it again where the same key is set (CODECOMPASS_SNAPSHOT_KEY or `git config codecompass.snapshotKey`), \
                 or unset the key here to take unsigned snapshots",
            ),
            SnapshotError::VersionMismatch { .. } => Error::new(ErrorCode::SnapshotIncompatible, e.to_string())
                .with_remedy(
                    "export it again with this version of git-codecompass, or build the index here with `git codecompass index`",
                ),
            SnapshotError::OtherRepository { .. } => Error::new(ErrorCode::SnapshotMismatch, e.to_string())
                .with_remedy("import a snapshot exported from this repository or a clone of it"),
            SnapshotError::StoreNotImportable { ref path, .. } => {
                let remedy = format!("remove the index (`rm -rf {}`) and import again", path.display());
                Error::new(ErrorCode::IndexIncompatible, e.to_string()).with_remedy(remedy)
            }
        }
    }
}

impl Engine {
    /// Exports the index to `output`: every tree view, or with `refs` only theirs (brought
    /// up to date first).
    pub fn snapshot_export(&self, output: &Path, refs: &[String]) -> Result<ExportReport, Error> {
        let repo = self
            .workspace()
            .git()
            .ok_or_else(|| Error::from(SnapshotError::NotARepository { path: self.workspace().root().to_owned() }))?;
        let keep: Option<BTreeSet<String>> = if refs.is_empty() {
            if Store::classify(self.workspace().store_dir()).0 == StoreState::NotIndexed {
                return Err(SnapshotError::NothingToExport.into());
            }
            None
        } else {
            let scopes: Vec<Scope> = refs.iter().map(|r| Scope::Ref(r.clone())).collect();
            let indexed = self.index(&scopes, IndexOptions::default())?;
            Some(
                indexed
                    .views
                    .iter()
                    .filter_map(|v| v.tree.as_deref())
                    .filter_map(crate::git::ObjectId::from_hex)
                    .map(view::tree_view_key)
                    .collect(),
            )
        };
        Ok(snapshot::export(self.workspace().store_dir(), &repo.local(), output, keep.as_ref())?)
    }

    /// Imports the snapshot `file`: installs it into an empty store, or merges it.
    pub fn snapshot_import(&self, file: &Path) -> Result<ImportReport, Error> {
        Ok(snapshot::import(self.workspace(), file)?)
    }

    /// Reads the manifest of the snapshot `file`, and says whether this build and this
    /// repository can use it.
    pub fn snapshot_inspect(&self, file: &Path) -> Result<InspectResponse, Error> {
        let manifest = snapshot::inspect(file)?;
        let versions = [
            ("snapshot format", manifest.format_version, snapshot::SNAPSHOT_FORMAT_VERSION),
            ("store schema", manifest.schema_version, crate::store::STORE_SCHEMA_VERSION),
            ("full-text index format", manifest.index_format_version, crate::index::INDEX_FORMAT_VERSION),
            ("extractor", manifest.extractor_version, crate::extract::EXTRACTOR_VERSION),
        ];
        let incompatibility = versions
            .iter()
            .find(|(_, theirs, ours)| theirs != ours)
            .map(|(what, theirs, ours)| format!("{what} version {theirs}, this build uses {ours}"));
        let same_repository = self.workspace().git().map(|g| {
            let local = g.local();
            let has_commit = manifest
                .views
                .iter()
                .filter_map(|v| v.commit.as_deref().and_then(crate::git::ObjectId::from_hex))
                .any(|c| local.has_object(c));
            has_commit
                || local
                    .root_commits()
                    .unwrap_or_default()
                    .iter()
                    .any(|r| manifest.repository.root_commits.contains(&r.to_hex()))
        });
        Ok(InspectResponse {
            codecompass_protocol_version: PROTOCOL_VERSION,
            file: file.to_string_lossy().into_owned(),
            bytes: std::fs::metadata(file).map(|m| m.len()).unwrap_or(0),
            compatible: incompatibility.is_none(),
            incompatibility,
            same_repository,
            manifest,
        })
    }
}
