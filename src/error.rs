//! The one error-code registry, shared by the command line and the MCP server.
//!
//! Every error a user or an agent can see has a stable `code` from [`ErrorCode`], a message
//! saying what happened, and a remedy saying what to do next.

/// Stable error codes. Their `as_str` spelling is a contract: scripts and agents match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The path is in no git repository and no live index was asked for.
    NotARepository,
    /// A ref or commit-ish names nothing.
    UnknownRef,
    /// The store was written by an incompatible version, or is damaged.
    IndexIncompatible,
    /// Nothing is indexed yet for what was asked.
    NotIndexed,
    /// A file path names nothing in the view.
    FileNotFound,
    /// A path from a request leaves the workspace.
    PathOutsideWorkspace,
    /// An argument is malformed or out of range.
    InvalidArgument,
    /// Another process holds the write lock and waiting for it timed out.
    StoreBusy,
    /// A snapshot file is damaged, truncated or unsafe (checksums, paths, links, sizes).
    SnapshotInvalid,
    /// A snapshot was made by a build with other schema, extractor or index versions.
    SnapshotIncompatible,
    /// A snapshot belongs to another repository.
    SnapshotMismatch,
    /// An MCP request names a workspace the server does not serve.
    WorkspaceNotRegistered,
    /// An MCP request names a workspace outside the allowed roots.
    WorkspaceNotAllowed,
    /// The working tree kept changing while it was read (a checkout or rebase running), and
    /// no earlier state of it was indexed to answer from.
    WorktreeChanging,
    /// Indexing a large plain directory asks first: run again with `--yes`.
    ConfirmationRequired,
    /// A `--repo` alias or pattern names no registered repository.
    RepoNotRegistered,
    /// A registered repository is gone from where it was registered, or is no repository.
    RepoMissing,
    /// The repository lacks an object the answer needs (a partial clone's tree left on its
    /// server, a damaged repository, a store made for another repository).
    ObjectMissing,
    /// Reading or writing files failed.
    Io,
    /// Something that should not happen did; a bug to report.
    Internal,
}

impl ErrorCode {
    /// The stable spelling of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotARepository => "not_a_repository",
            ErrorCode::UnknownRef => "unknown_ref",
            ErrorCode::IndexIncompatible => "index_incompatible",
            ErrorCode::NotIndexed => "not_indexed",
            ErrorCode::FileNotFound => "file_not_found",
            ErrorCode::PathOutsideWorkspace => "path_outside_workspace",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::StoreBusy => "store_busy",
            ErrorCode::SnapshotInvalid => "snapshot_invalid",
            ErrorCode::SnapshotIncompatible => "snapshot_incompatible",
            ErrorCode::SnapshotMismatch => "snapshot_mismatch",
            ErrorCode::WorkspaceNotRegistered => "workspace_not_registered",
            ErrorCode::WorkspaceNotAllowed => "workspace_not_allowed",
            ErrorCode::WorktreeChanging => "worktree_changing",
            ErrorCode::ConfirmationRequired => "confirmation_required",
            ErrorCode::RepoNotRegistered => "repo_not_registered",
            ErrorCode::RepoMissing => "repo_missing",
            ErrorCode::ObjectMissing => "object_missing",
            ErrorCode::Io => "io_error",
            ErrorCode::Internal => "internal_error",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
