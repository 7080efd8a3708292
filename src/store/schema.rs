//! The SQLite schema and its version.

/// The version of the store's SQLite schema. A store written with another version is
/// `reindex_required`.
///
/// History:
/// - 1: blobs, records, symbols, file_versions, views, refs, jobs, meta; `occurrences`,
///   `occurrence_names` and `view_missing` were added later in place ([`ADDITIONS`]): a store
///   without them gains them when opened, and a build that does not know them ignores them;
///   so were `commits` and `commit_files` (history), and `outlines` (X-Ray's partial parses).
pub const STORE_SCHEMA_VERSION: u32 = 1;

/// The tables [`ADDITIONS`] creates: a store that lacks any of them gains them when opened.
pub const ADDITION_TABLES: [&str; 6] =
    ["occurrences", "view_missing", "occurrence_names", "commits", "commit_files", "outlines"];

/// Tables added to schema version 1 after it shipped: created when a store is opened.
pub const ADDITIONS: &str = r#"
-- The references of a record (calls, types, imports, names), packed: see store/occurrences.rs.
CREATE TABLE IF NOT EXISTS occurrences (
    record INTEGER PRIMARY KEY,
    data   BLOB NOT NULL
);
-- Where a parse of a record's file may start and stop, and a fingerprint of the syntax
-- between, packed: see extract/outline.rs. Only records in grammars whose items parse alone.
CREATE TABLE IF NOT EXISTS outlines (
    record INTEGER PRIMARY KEY,
    data   BLOB NOT NULL
);
-- Blobs a view holds that were missing from the object store when it was built (a partial
-- clone): its answers are partial until they arrive and it is re-derived.
CREATE TABLE IF NOT EXISTS view_missing (
    view INTEGER NOT NULL,
    blob BLOB NOT NULL,
    PRIMARY KEY (view, blob)
) WITHOUT ROWID;
-- Which records use a name (a 64-bit hash of it) or import a module segment.
CREATE TABLE IF NOT EXISTS occurrence_names (
    key    INTEGER NOT NULL,
    record INTEGER NOT NULL,
    PRIMARY KEY (key, record)
) WITHOUT ROWID;
-- History (see src/history): the commits reachable from the refs it was asked for, and the
-- files each changed against its first parent (the empty tree for a root commit).
CREATE TABLE IF NOT EXISTS commits (
    id          INTEGER PRIMARY KEY,
    oid         BLOB NOT NULL UNIQUE,
    parents     BLOB NOT NULL,            -- the parents' 20-byte ids, first parent first
    author      TEXT NOT NULL,            -- Name <email>
    author_time INTEGER NOT NULL,
    commit_time INTEGER NOT NULL,
    subject     TEXT NOT NULL
);
-- A changed file of a commit: the file version before (NULL: added) and after (NULL: deleted),
-- and the 32-bit name hashes of the symbols whose lines it changed (little-endian).
-- File versions it names are kept by gc.
CREATE TABLE IF NOT EXISTS commit_files (
    commit_id INTEGER NOT NULL,
    ord       INTEGER NOT NULL,
    old_fv    INTEGER,
    new_fv    INTEGER,
    touched   BLOB,
    PRIMARY KEY (commit_id, ord)
) WITHOUT ROWID;
"#;

/// Creates every table of an empty store.
pub const CREATE: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per distinct content ever seen. `oid` is the 20-byte git blob id.
CREATE TABLE IF NOT EXISTS blobs (
    id   INTEGER PRIMARY KEY,
    oid  BLOB NOT NULL UNIQUE,
    size INTEGER NOT NULL DEFAULT -1
);

-- What was derived from one blob read as one language by one extractor. Immutable once
-- written; a new extractor key writes a new row beside the old one.
CREATE TABLE IF NOT EXISTS records (
    id          INTEGER PRIMARY KEY,
    blob        INTEGER NOT NULL REFERENCES blobs(id),
    lang        TEXT NOT NULL,            -- '' for text in no known language
    extractor   TEXT NOT NULL,
    status      TEXT NOT NULL,            -- ok | partial | generated | skipped
    skip_reason TEXT,                     -- binary | too_large | minified | generated | missing | ...
    line_count  INTEGER NOT NULL DEFAULT 0,
    symbol_count INTEGER NOT NULL DEFAULT 0,
    diagnostics TEXT,                     -- JSON array of {line, message}
    created_at  INTEGER NOT NULL,
    UNIQUE (blob, lang, extractor)
);

CREATE TABLE IF NOT EXISTS symbols (
    record         INTEGER NOT NULL,
    ord            INTEGER NOT NULL,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    kind           TEXT NOT NULL,
    declaration    INTEGER NOT NULL,      -- 0 definition, 1 declaration
    line_start     INTEGER NOT NULL,
    line_end       INTEGER NOT NULL,
    name_line      INTEGER NOT NULL,
    byte_start     INTEGER NOT NULL,
    byte_end       INTEGER NOT NULL,
    signature      TEXT NOT NULL,
    parent         INTEGER,               -- ord of the enclosing symbol
    visibility     TEXT,
    doc            TEXT,
    stable_id      TEXT NOT NULL,
    PRIMARY KEY (record, ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS symbols_by_name ON symbols (name COLLATE NOCASE);

-- A path holding a blob. `lang` is decided once, from the path and the blob's first line.
-- `skip` is a reason decided by the path alone (a lock file, a vendored directory).
CREATE TABLE IF NOT EXISTS file_versions (
    -- AUTOINCREMENT: an id is never reused after gc, so full-text documents keyed by it can
    -- never be mistaken for another file version's.
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    path  BLOB NOT NULL,
    blob  INTEGER NOT NULL REFERENCES blobs(id),
    mode  INTEGER NOT NULL,               -- 0 regular, 1 executable, 2 symlink
    lang  TEXT NOT NULL,
    skip  TEXT,
    fts_key  TEXT,                        -- the record key its full-text documents were made with
    fts_scan INTEGER NOT NULL DEFAULT 0,  -- 1: no trigram document; exact search scans it
    UNIQUE (path, blob)
);
CREATE INDEX IF NOT EXISTS file_versions_by_blob ON file_versions (blob);

-- A set of file versions: a tree's (`tree:<id>`), a worktree's (`worktree:<id>`) or a
-- plain directory's (`live`). `bitmap` is a serialized roaring bitmap of file version ids.
CREATE TABLE IF NOT EXISTS views (
    id           INTEGER PRIMARY KEY,
    key          TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL,           -- tree | worktree | live
    tree         BLOB,                    -- the tree id (for a worktree: HEAD's tree)
    bitmap       BLOB NOT NULL,
    scan_bitmap  BLOB,                    -- the file versions exact search must scan
    files        INTEGER NOT NULL,
    symbols      INTEGER NOT NULL DEFAULT 0,
    fingerprint  TEXT,                    -- worktree: what the uncommitted changes were; tree: its derivation
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL
);

-- Names that resolve to views: `HEAD`, `refs/heads/main`, a commit id, `worktree:<id>`.
CREATE TABLE IF NOT EXISTS refs (
    name       TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,             -- ref | worktree | live
    commit_oid BLOB,
    tree       BLOB,
    view       INTEGER NOT NULL REFERENCES views(id),
    indexed_at INTEGER NOT NULL,
    detail     TEXT                       -- JSON: worktree path, HEAD name, ...
);

-- File versions gc removed whose full-text documents are still to be deleted.
CREATE TABLE IF NOT EXISTS gc_pending_documents (
    fv INTEGER PRIMARY KEY
);

CREATE TABLE IF NOT EXISTS jobs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,            -- index | sync | gc | import
    target      TEXT NOT NULL,
    state       TEXT NOT NULL,            -- running | published | failed | interrupted
    pid         INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    error       TEXT,
    stats       TEXT
);
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_addition_tables_are_the_ones_additions_creates() {
        let created: Vec<&str> = ADDITIONS
            .split("CREATE TABLE IF NOT EXISTS ")
            .skip(1)
            .map(|rest| rest.split([' ', '(']).next().unwrap_or_default())
            .collect();
        let mut listed = ADDITION_TABLES.to_vec();
        let mut sorted = created.clone();
        listed.sort_unstable();
        sorted.sort_unstable();
        assert_eq!(sorted, listed);
    }
}
