//! What state a store is in, read from its versions: of this build's schema and full-text
//! format, of another, or damaged.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{DB_FILE, STORE_SCHEMA_VERSION, Store, StoreState};

impl Store {
    /// Classifies the store in `dir` without changing anything.
    pub fn classify(dir: &Path) -> (StoreState, String) {
        let db = dir.join(DB_FILE);
        if !db.exists() {
            return (StoreState::NotIndexed, "no index has been built yet".to_owned());
        }
        let conn = match Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY) {
            Ok(c) => c,
            Err(e) => return (StoreState::Corrupt, e.to_string()),
        };
        let (state, detail, _) = Store::classify_open(&conn);
        (state, detail)
    }

    /// Classifies the store behind an open connection by its versions; with the full-text
    /// index format version it was made with.
    pub(crate) fn classify_open(conn: &Connection) -> (StoreState, String, u32) {
        Store::classify_schema(conn, "main")
    }

    /// [`Store::classify_open`] of the database attached to `conn` as `schema`.
    pub(crate) fn classify_schema(conn: &Connection, schema: &str) -> (StoreState, String, u32) {
        let meta = |key: &str| -> Result<Option<String>, rusqlite::Error> {
            conn.query_row(&format!("SELECT value FROM {schema}.meta WHERE key = '{key}'"), [], |r| r.get(0)).optional()
        };
        let version = meta("schema_version");
        match version {
            Ok(Some(v)) if v == STORE_SCHEMA_VERSION.to_string() => {
                // The full-text documents must have the layout this build reads and writes.
                let format = meta("index_format_version");
                let ours = crate::index::INDEX_FORMAT_VERSION;
                let read = crate::index::OLDEST_INDEX_FORMAT_VERSION..=ours;
                match format {
                    Ok(Some(f)) => match f.parse::<u32>() {
                        Ok(f) if read.contains(&f) => (StoreState::Compatible, String::new(), f),
                        _ => (
                            StoreState::ReindexRequired,
                            format!(
                                "its full-text index has format version {f}, this build reads versions {} to {ours}",
                                read.start()
                            ),
                            0,
                        ),
                    },
                    // No version said: read as the oldest, whose queries ask the least.
                    Ok(None) => (StoreState::Compatible, String::new(), *read.start()),
                    Err(e) => (StoreState::Corrupt, e.to_string(), 0),
                }
            }
            Ok(Some(v)) => (
                StoreState::ReindexRequired,
                format!("written with schema version {v}, this build reads version {STORE_SCHEMA_VERSION}"),
                0,
            ),
            Ok(None) => (StoreState::Corrupt, "the store has no schema version".to_owned(), 0),
            Err(e) => (StoreState::Corrupt, e.to_string(), 0),
        }
    }
}
