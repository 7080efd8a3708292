//! The engine's errors from each library module's: one stable code per cause, with the
//! remedy that cause calls for.

use rusqlite::ErrorCode as SqliteCode;

use super::Error;
use crate::error::ErrorCode;
use crate::indexer::IndexError;
use crate::store::StoreError;
use crate::view::WorkspaceError;

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        match &e {
            StoreError::Incompatible { .. } => Error::new(ErrorCode::IndexIncompatible, e.to_string())
                .with_remedy("run `git codecompass index --force` to rebuild it"),
            StoreError::Busy { .. } => {
                Error::new(ErrorCode::StoreBusy, e.to_string()).with_remedy("wait for it to finish, then try again")
            }
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if matches!(f.code, SqliteCode::DatabaseCorrupt | SqliteCode::NotADatabase) =>
            {
                Error::new(ErrorCode::IndexIncompatible, format!("the index is corrupt: {e}"))
                    .with_remedy("run `git codecompass index --force` to rebuild it")
            }
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) if f.code == SqliteCode::DiskFull => {
                Error::new(ErrorCode::Io, e.to_string()).with_remedy(DISK_FULL)
            }
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if matches!(f.code, SqliteCode::ReadOnly | SqliteCode::CannotOpen | SqliteCode::PermissionDenied) =>
            {
                Error::new(ErrorCode::Io, e.to_string()).with_remedy(NOT_WRITABLE)
            }
            // A table or column this build relies on is not there: the schema is damaged.
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(_, Some(message)))
                if message.starts_with("no such table") || message.starts_with("no such column") =>
            {
                Error::new(ErrorCode::IndexIncompatible, format!("the index's database is damaged: {e}"))
                    .with_remedy("run `git codecompass index --force` to rebuild it")
            }
            StoreError::Io { source, .. } => io_error(e.to_string(), source.kind()),
            StoreError::Sqlite(_) => Error::new(ErrorCode::Internal, e.to_string()),
        }
    }
}

/// What to do when the disk holding the index is full.
const DISK_FULL: &str = "free some space on the disk holding the index (or give another place with `--store DIR`), \
                         then run the command again: what was indexed before is kept";
/// What to do when the index cannot be written.
const NOT_WRITABLE: &str = "make the index directory writable (`git codecompass status` shows where it is), \
                            or give a writable one with `--store DIR`";

/// An I/O error with the remedy its kind calls for.
fn io_error(message: String, kind: std::io::ErrorKind) -> Error {
    let error = Error::new(ErrorCode::Io, message);
    match kind {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => error.with_remedy(DISK_FULL),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            error.with_remedy(NOT_WRITABLE)
        }
        _ => error,
    }
}

impl From<IndexError> for Error {
    fn from(e: IndexError) -> Error {
        match e {
            IndexError::Store(s) => s.into(),
            IndexError::Git(g) => g.into(),
            IndexError::Io { ref source, .. } => io_error(e.to_string(), source.kind()),
            IndexError::WorktreeChanging { .. } => Error::new(ErrorCode::WorktreeChanging, e.to_string())
                .with_remedy("run the command again when the checkout is done, or ask at a ref (`--ref HEAD`)"),
            IndexError::Fulltext(_) | IndexError::WorkerPanicked => Error::new(ErrorCode::Internal, e.to_string()),
            IndexError::NoHistory => {
                Error::new(ErrorCode::NotARepository, e.to_string()).with_remedy("run it inside a git repository")
            }
            IndexError::NotARepository { .. } => Error::new(ErrorCode::NotARepository, e.to_string())
                .with_remedy("run it inside a git repository, or drop `--ref` to search the directory as it is"),
        }
    }
}

impl From<crate::git::GitError> for Error {
    fn from(e: crate::git::GitError) -> Error {
        use crate::git::GitError;
        match &e {
            GitError::UnknownRevision { spec, .. } => {
                Error::new(ErrorCode::UnknownRef, format!("unknown ref `{spec}`")).with_remedy(
                    "check the name with `git rev-parse --verify <ref>`; `git codecompass refs` lists indexed refs",
                )
            }
            GitError::NotACommit { .. } => Error::new(ErrorCode::InvalidArgument, e.to_string())
                .with_remedy("give a branch, a tag or a commit (`HEAD`, `main`, `v1.0`, `HEAD~2`, a commit id)"),
            GitError::AmbiguousRevision { spec } => Error::new(ErrorCode::InvalidArgument, e.to_string()).with_remedy(
                format!("give more hex digits; `git rev-parse --disambiguate={spec}` lists the candidates"),
            ),
            GitError::NotARepository { .. } => Error::new(ErrorCode::NotARepository, e.to_string()),
            GitError::Io { .. } => Error::new(ErrorCode::Io, e.to_string()),
            GitError::MissingObject { .. } => Error::new(ErrorCode::ObjectMissing, e.to_string()).with_remedy(
                "a partial clone keeps it on its server until git reads it: `git config codecompass.fetchMissing \
                 true` lets CodeCompass fetch what it needs, and `git checkout <ref>` fetches a commit's files; \
                 otherwise `git fsck` says what the repository lacks (a `--store` made for another repository \
                 serves only that one)",
            ),
            _ => Error::new(ErrorCode::Internal, e.to_string()),
        }
    }
}

impl From<WorkspaceError> for Error {
    fn from(e: WorkspaceError) -> Error {
        match e {
            WorkspaceError::NoSuchDirectory { .. } => Error::new(ErrorCode::InvalidArgument, e.to_string()),
            WorkspaceError::Git(g) => g.into(),
            WorkspaceError::NotARepository { .. } => Error::new(ErrorCode::NotARepository, e.to_string()).with_remedy(
                "run it inside a git repository; to index this directory as it is, run `git codecompass index --live` \
                 (or set CODECOMPASS_LIVE=1, or name it with `--dir DIR`)",
            ),
            WorkspaceError::TooBroad { .. } => Error::new(ErrorCode::InvalidArgument, e.to_string()).with_remedy(
                "run it in a project's directory, or `git codecompass index --live --force` if you mean it",
            ),
            WorkspaceError::NeedsConfirmation { .. } => Error::new(ErrorCode::ConfirmationRequired, e.to_string())
                .with_remedy("run the command again with `--yes` to index it"),
            WorkspaceError::NoCacheDir { .. } => Error::new(ErrorCode::InvalidArgument, e.to_string())
                .with_remedy("set XDG_CACHE_HOME, or give the index a place with `--store DIR`"),
            WorkspaceError::BadConfig { key, example, .. } => Error::new(ErrorCode::InvalidArgument, e.to_string())
                .with_remedy(format!(
                    "run `git config {key} {example}`, or `git config --unset {key}` for the default"
                )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32, message: Option<&str>) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), message.map(str::to_owned)))
    }

    #[test]
    fn a_full_disk_a_read_only_store_and_a_damaged_schema_say_what_to_do() {
        let full = Error::from(sqlite(rusqlite::ffi::SQLITE_FULL, None));
        assert_eq!((full.code, full.remedy.as_deref()), (ErrorCode::Io, Some(DISK_FULL)));
        let read_only = Error::from(sqlite(rusqlite::ffi::SQLITE_READONLY, None));
        assert_eq!((read_only.code, read_only.remedy.as_deref()), (ErrorCode::Io, Some(NOT_WRITABLE)));
        let schema = Error::from(sqlite(rusqlite::ffi::SQLITE_ERROR, Some("no such column: status")));
        assert_eq!(schema.code, ErrorCode::IndexIncompatible);
        let io = std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device");
        let indexing = Error::from(IndexError::Io { path: "fts".into(), source: io });
        assert_eq!(indexing.remedy.as_deref(), Some(DISK_FULL));
        // Anything else stays what it is.
        assert_eq!(Error::from(sqlite(rusqlite::ffi::SQLITE_MISUSE, None)).code, ErrorCode::Internal);
    }
}
