//! The rows the store hands out and takes in: views, refs, jobs, file versions, records and
//! symbols, each read from its table by one `from_row`.

use crate::extract::{Extraction, Role};
use crate::git::ObjectId;

pub(super) const SYMBOL_COLUMNS: &str = "s.record, s.ord, s.name, s.qualified_name, s.kind, s.declaration, s.line_start, \
     s.line_end, s.name_line, s.byte_start, s.byte_end, s.signature, s.parent, s.visibility, s.doc, s.stable_id";

/// Row counts of the main tables.
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreCounts {
    /// Distinct contents.
    pub blobs: i64,
    /// Blob records.
    pub records: i64,
    /// Symbols over all records.
    pub symbols: i64,
    /// Distinct (path, blob) pairs.
    pub file_versions: i64,
    /// Views.
    pub views: i64,
    /// Commits indexed for history.
    pub commits: i64,
}

/// A row of `views`.
#[derive(Clone, Debug)]
pub struct ViewRow {
    /// Row id.
    pub id: i64,
    /// `tree:<id>`, `worktree:<id>` or `live`.
    pub key: String,
    /// `tree`, `worktree` or `live`.
    pub kind: String,
    /// The tree id (HEAD's tree for a worktree view).
    pub tree: Option<ObjectId>,
    /// The file version ids.
    pub bitmap: roaring::RoaringBitmap,
    /// How many file versions.
    pub files: i64,
    /// A worktree or live view's fingerprint (its changes and derivation); a tree view's
    /// derivation (`indexer::derivation`).
    pub fingerprint: Option<String>,
    /// When first built.
    pub created_at: i64,
    /// When last rebuilt or confirmed.
    pub updated_at: i64,
    /// Symbols over all its file versions.
    pub symbols: i64,
    /// The file versions without a trigram document: exact search reads them directly.
    pub scan_bitmap: roaring::RoaringBitmap,
    /// Blobs it holds that were missing from the object store when it was built.
    pub missing: u64,
}

impl ViewRow {
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ViewRow> {
        let bitmap: Vec<u8> = r.get(4)?;
        let bitmap = roaring::RoaringBitmap::deserialize_from(&bitmap[..])
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Blob, Box::new(e)))?;
        Ok(ViewRow {
            id: r.get(0)?,
            key: r.get(1)?,
            kind: r.get(2)?,
            tree: r.get::<_, Option<Vec<u8>>>(3)?.and_then(|t| ObjectId::from_bytes(&t)),
            bitmap,
            files: r.get(5)?,
            fingerprint: r.get(6)?,
            created_at: r.get(7)?,
            updated_at: r.get(8)?,
            symbols: r.get(9)?,
            scan_bitmap: match r.get::<_, Option<Vec<u8>>>(10)? {
                Some(bytes) => roaring::RoaringBitmap::deserialize_from(&bytes[..]).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(10, rusqlite::types::Type::Blob, Box::new(e))
                })?,
                None => roaring::RoaringBitmap::new(),
            },
            missing: r.get::<_, i64>(11)? as u64,
        })
    }
}

/// A row of `refs`.
#[derive(Clone, Debug)]
pub struct RefRow {
    /// `HEAD`, `refs/heads/main`, a commit id, `worktree:<id>` or `live`.
    pub name: String,
    /// `ref`, `worktree` or `live`.
    pub kind: String,
    /// The commit the name pointed at when indexed.
    pub commit: Option<ObjectId>,
    /// That commit's tree.
    pub tree: Option<ObjectId>,
    /// The view it resolved to.
    pub view: i64,
    /// When it was indexed (Unix seconds).
    pub indexed_at: i64,
    /// JSON details (worktree path, HEAD name).
    pub detail: Option<String>,
}

impl RefRow {
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RefRow> {
        Ok(RefRow {
            name: r.get(0)?,
            kind: r.get(1)?,
            commit: r.get::<_, Option<Vec<u8>>>(2)?.and_then(|t| ObjectId::from_bytes(&t)),
            tree: r.get::<_, Option<Vec<u8>>>(3)?.and_then(|t| ObjectId::from_bytes(&t)),
            view: r.get(4)?,
            indexed_at: r.get(5)?,
            detail: r.get(6)?,
        })
    }
}

/// A row of `jobs`.
#[derive(Clone, Debug)]
pub struct JobRow {
    /// Row id.
    pub id: i64,
    /// `index`, `sync`, `gc`, `import`.
    pub kind: String,
    /// What it worked on.
    pub target: String,
    /// `running`, `published`, `failed`, `interrupted`.
    pub state: String,
    /// The process that ran it.
    pub pid: i64,
    /// Unix seconds.
    pub started_at: i64,
    /// Unix seconds.
    pub finished_at: Option<i64>,
    /// Why it failed.
    pub error: Option<String>,
}

impl JobRow {
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobRow> {
        Ok(JobRow {
            id: r.get(0)?,
            kind: r.get(1)?,
            target: r.get(2)?,
            state: r.get(3)?,
            pid: r.get(4)?,
            started_at: r.get(5)?,
            finished_at: r.get(6)?,
            error: r.get(7)?,
        })
    }
}

/// A file version with its blob.
#[derive(Clone, Debug)]
pub struct FileInfo {
    /// File version id.
    pub id: u32,
    /// Path bytes.
    pub path: Vec<u8>,
    /// Blob id.
    pub blob_id: ObjectId,
    /// 0 regular, 1 executable, 2 symlink.
    pub mode: u8,
    /// Language name, or `""`.
    pub lang: String,
    /// A reason from the path alone not to parse the file.
    pub skip: Option<String>,
    /// Blob size in bytes, -1 when unknown.
    pub size: i64,
}

impl FileInfo {
    pub(crate) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FileInfo> {
        let oid: Vec<u8> = r.get(2)?;
        Ok(FileInfo {
            id: r.get(0)?,
            path: r.get(1)?,
            blob_id: ObjectId::from_bytes(&oid).unwrap_or(ObjectId([0; 20])),
            mode: r.get(3)?,
            lang: r.get(4)?,
            skip: r.get(5)?,
            size: r.get(6)?,
        })
    }

    /// The path as text (lossy for non-UTF-8 names).
    pub fn path_str(&self) -> String {
        String::from_utf8_lossy(&self.path).into_owned()
    }
}

/// A record's summary.
#[derive(Clone, Debug)]
pub struct RecordRow {
    /// Row id.
    pub id: i64,
    /// `ok`, `partial` or `skipped`.
    pub status: String,
    /// Why the blob was not parsed.
    pub skip_reason: Option<String>,
    /// Lines in the blob.
    pub line_count: i64,
    /// JSON diagnostics.
    pub diagnostics: Option<String>,
}

/// A stored symbol.
#[derive(Clone, Debug)]
pub struct SymbolRow {
    /// The record it belongs to.
    pub record: i64,
    /// Its position in the record.
    pub ord: u32,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// Definition or declaration.
    pub role: Role,
    /// First line (1-based).
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Line of the name.
    pub name_line: u32,
    /// Byte range start.
    pub byte_start: u32,
    /// Byte range end.
    pub byte_end: u32,
    /// Signature.
    pub signature: String,
    /// Ord of the enclosing symbol.
    pub parent: Option<u32>,
    /// Visibility.
    pub visibility: Option<String>,
    /// Doc paragraph.
    pub doc: Option<String>,
    /// Stable id.
    pub stable_id: String,
}

impl SymbolRow {
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SymbolRow> {
        Ok(SymbolRow {
            record: r.get(0)?,
            ord: r.get(1)?,
            name: r.get(2)?,
            qualified_name: r.get(3)?,
            kind: r.get(4)?,
            role: if r.get::<_, i64>(5)? == 0 { Role::Definition } else { Role::Declaration },
            line_start: r.get(6)?,
            line_end: r.get(7)?,
            name_line: r.get(8)?,
            byte_start: r.get(9)?,
            byte_end: r.get(10)?,
            signature: r.get(11)?,
            parent: r.get(12)?,
            visibility: r.get(13)?,
            doc: r.get(14)?,
            stable_id: r.get(15)?,
        })
    }
}

/// What a parsed (or skipped) blob gives the store.
#[derive(Clone, Debug)]
pub struct NewRecord {
    /// The blob.
    pub blob_id: ObjectId,
    /// Its size in bytes.
    pub size: i64,
    /// The language it was read as (`""` for none).
    pub lang: String,
    /// The extractor key of that language.
    pub extractor: String,
    /// Why it was not parsed, if it was not.
    pub skip_reason: Option<&'static str>,
    /// Lines.
    pub line_count: u32,
    /// The extraction, empty when skipped.
    pub extraction: Extraction,
}

/// A stored file version: its id, blob row, language and path skip reason.
pub type FileVersionHit = (u32, i64, String, Option<String>);

/// A stored file version as the indexer needs it.
#[derive(Clone, Debug)]
pub struct StoredFileVersion {
    /// Its id.
    pub id: u32,
    /// Language name or `""`.
    pub lang: String,
    /// A reason from the path alone not to parse it.
    pub skip: Option<String>,
    /// The record key its documents were made with, if they were.
    pub fts_key: Option<String>,
    /// Whether it has no trigram document.
    pub fts_scan: bool,
}

/// A view to publish.
#[derive(Clone, Copy)]
pub struct NewView<'a> {
    /// `tree:<id>`, `worktree:<id>` or `live`.
    pub key: &'a str,
    /// `tree`, `worktree` or `live`.
    pub kind: &'a str,
    /// The tree (HEAD's for a worktree view).
    pub tree: Option<ObjectId>,
    /// Its file versions.
    pub bitmap: &'a roaring::RoaringBitmap,
    /// Those of them exact search must scan.
    pub scan_bitmap: &'a roaring::RoaringBitmap,
    /// Symbols over all its file versions.
    pub symbols: i64,
    /// A worktree view's fingerprint.
    pub fingerprint: Option<&'a str>,
}
