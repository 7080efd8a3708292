//! History's rows: commits, and the file versions each changed against its first parent.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, params};

use super::{Batch, Store, StoreError};
use crate::git::{CommitInfo, ObjectId};

/// A stored commit as history walks them: its place in the graph and the time `git log`
/// orders by. What a commit shown says besides (author, subject) is read for it alone
/// ([`Store::commit_details`]): reading it for every commit of a long history cost more than
/// many a walk.
#[derive(Clone, Debug)]
pub struct CommitRow {
    /// Row id.
    pub id: i64,
    /// The commit.
    pub oid: ObjectId,
    /// Its parents, first parent first.
    pub parents: Vec<ObjectId>,
    /// Committer time, what `git log` orders by.
    pub commit_time: i64,
}

/// What a stored commit says besides its place in the graph.
#[derive(Clone, Debug)]
pub struct CommitDetails {
    /// `Name <email>`.
    pub author: String,
    /// Author time (seconds since the epoch).
    pub author_time: i64,
    /// The message's first line.
    pub subject: String,
}

/// One side of a changed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedSide {
    /// The file version.
    pub fv: u32,
    /// Its path.
    pub path: Vec<u8>,
    /// Its blob (a submodule's commit for a gitlink).
    pub blob: ObjectId,
    /// Its language (`""` for none).
    pub lang: String,
    /// A reason decided by the path alone (symlink, lock file, vendored, [`SUBMODULE`]), if
    /// any.
    pub skip: Option<String>,
}

/// The skip reason of a file version that is a submodule entry (a gitlink): history stores
/// them, as `git log` shows a submodule's commit change as a file's; nothing reads them as
/// blobs.
pub const SUBMODULE: &str = "submodule";

impl ChangedSide {
    /// Whether the side is a submodule entry, whose "content" is [`crate::git::gitlink_text`].
    pub fn is_gitlink(&self) -> bool {
        self.skip.as_deref() == Some(SUBMODULE)
    }
}

/// A file a commit changed against its first parent.
#[derive(Clone, Debug)]
pub struct ChangeRow {
    /// Before (`None`: added).
    pub old: Option<ChangedSide>,
    /// After (`None`: deleted).
    pub new: Option<ChangedSide>,
    /// Name hashes (`history::name_hash`) of the symbols whose lines it changed.
    pub touched: Vec<u32>,
}

/// A changed file to store.
#[derive(Clone, Debug, Default)]
pub struct NewChange {
    /// The file version before (`None`: added).
    pub old_fv: Option<u32>,
    /// After (`None`: deleted).
    pub new_fv: Option<u32>,
    /// Name hashes of the symbols whose lines it changed.
    pub touched: Vec<u32>,
}

impl ChangeRow {
    /// The path after the change, or before it for a deletion.
    pub fn path(&self) -> &[u8] {
        match (&self.new, &self.old) {
            (Some(side), _) | (None, Some(side)) => &side.path,
            (None, None) => &[],
        }
    }
}

fn oid(bytes: &[u8]) -> ObjectId {
    ObjectId::from_bytes(bytes).unwrap_or(ObjectId([0; 20]))
}

fn commit_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CommitRow> {
    let parents = r.get_ref(2)?.as_blob()?;
    Ok(CommitRow {
        id: r.get(0)?,
        oid: oid(r.get_ref(1)?.as_blob()?),
        parents: parents.chunks_exact(20).filter_map(ObjectId::from_bytes).collect(),
        commit_time: r.get(3)?,
    })
}

const COMMIT_COLUMNS: &str = "id, oid, parents, commit_time";

impl Store {
    /// Every stored commit; with `authors`, each one's author (`Name <email>`) too, in the
    /// same order.
    pub fn history_commits(&self, authors: bool) -> Result<(Vec<CommitRow>, Vec<String>), StoreError> {
        let columns = if authors { format!("{COMMIT_COLUMNS}, author") } else { COMMIT_COLUMNS.to_owned() };
        let mut stmt = self.conn().prepare(&format!("SELECT {columns} FROM commits"))?;
        let mut rows = Vec::new();
        let mut names = Vec::new();
        let mut found = stmt.query([])?;
        while let Some(r) = found.next()? {
            rows.push(commit_row(r)?);
            if authors {
                names.push(r.get(4)?);
            }
        }
        Ok((rows, names))
    }

    /// What the stored commit (row id) says besides its place in the graph.
    pub fn commit_details(&self, id: i64) -> Result<Option<CommitDetails>, StoreError> {
        Ok(self
            .conn()
            .prepare_cached("SELECT author, author_time, subject FROM commits WHERE id = ?1")?
            .query_row([id], |r| Ok(CommitDetails { author: r.get(0)?, author_time: r.get(1)?, subject: r.get(2)? }))
            .optional()?)
    }

    /// The ids of every stored commit.
    pub fn history_known(&self) -> Result<HashSet<ObjectId>, StoreError> {
        let mut stmt = self.conn().prepare("SELECT oid FROM commits")?;
        let rows = stmt.query_map([], |r| r.get::<_, Vec<u8>>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows.iter().map(|b| oid(b)).collect())
    }

    /// The languages of the records that define a symbol named `name` (any case), at most a
    /// few: the queries a `history` of the name will likely need, guessed before its walk.
    pub fn languages_defining(&self, name: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT DISTINCT r.lang FROM symbols s JOIN records r ON r.id = s.record
             WHERE s.name = ?1 COLLATE NOCASE AND s.declaration = 0 LIMIT 4",
        )?;
        let rows = stmt.query_map([name], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// How many commits are stored.
    pub fn history_count(&self) -> Result<u64, StoreError> {
        Ok(self.conn().query_row("SELECT count(*) FROM commits", [], |r| r.get::<_, i64>(0))? as u64)
    }

    /// The stored commit `id`, if any.
    pub fn history_commit(&self, id: ObjectId) -> Result<Option<CommitRow>, StoreError> {
        Ok(self
            .conn()
            .query_row(&format!("SELECT {COMMIT_COLUMNS} FROM commits WHERE oid = ?1"), [&id.0[..]], commit_row)
            .optional()?)
    }

    /// The files the commit (row id) changed against its first parent, in path order.
    pub fn commit_changes(&self, commit: i64) -> Result<Vec<ChangeRow>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT c.old_fv, o.path, ob.oid, o.lang, o.skip, c.new_fv, n.path, nb.oid, n.lang, n.skip, c.touched
             FROM commit_files c
             LEFT JOIN file_versions o ON o.id = c.old_fv LEFT JOIN blobs ob ON ob.id = o.blob
             LEFT JOIN file_versions n ON n.id = c.new_fv LEFT JOIN blobs nb ON nb.id = n.blob
             WHERE c.commit_id = ?1 ORDER BY c.ord",
        )?;
        let side = |r: &rusqlite::Row<'_>, at: usize| -> rusqlite::Result<Option<ChangedSide>> {
            let Some(fv) = r.get::<_, Option<u32>>(at)? else {
                return Ok(None);
            };
            let Some(path) = r.get::<_, Option<Vec<u8>>>(at + 1)? else {
                return Ok(None);
            };
            Ok(Some(ChangedSide {
                fv,
                path,
                blob: oid(r.get_ref(at + 2)?.as_blob()?),
                lang: r.get(at + 3)?,
                skip: r.get(at + 4)?,
            }))
        };
        let rows = stmt
            .query_map([commit], |r| {
                let touched: Option<Vec<u8>> = r.get(10)?;
                let touched = touched
                    .unwrap_or_default()
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect();
                Ok(ChangeRow { old: side(r, 0)?, new: side(r, 5)?, touched })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Forgets every stored commit (their documents are gone or damaged: history is indexed
    /// again from nothing).
    pub fn clear_history(&self) -> Result<(), StoreError> {
        self.conn().execute_batch("BEGIN; DELETE FROM commit_files; DELETE FROM commits; COMMIT;")?;
        Ok(())
    }

    /// The file versions any stored commit names (kept by gc).
    pub fn history_file_versions(&self) -> Result<roaring::RoaringBitmap, StoreError> {
        let mut stmt = self.conn().prepare(
            "SELECT old_fv FROM commit_files WHERE old_fv IS NOT NULL
             UNION SELECT new_fv FROM commit_files WHERE new_fv IS NOT NULL",
        )?;
        let ids = stmt.query_map([], |r| r.get::<_, u32>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(ids.into_iter().collect())
    }
}

impl Batch<'_> {
    /// Stores a commit and the files it changed (file version ids before and after). A commit
    /// already stored is left as it is.
    pub fn insert_commit(&self, info: &CommitInfo, changes: &[NewChange]) -> Result<(), StoreError> {
        let parents: Vec<u8> = info.parents.iter().flat_map(|p| p.0).collect();
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT OR IGNORE INTO commits (oid, parents, author, author_time, commit_time, subject)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                &info.id.0[..],
                parents,
                info.author,
                info.author_time,
                info.commit_time,
                info.subject()
            ])?;
        if inserted == 0 {
            return Ok(());
        }
        self.insert_changes(self.tx.last_insert_rowid(), changes)
    }

    /// Stores the files a stored commit changed anew, in place of those stored with it.
    pub fn replace_commit_changes(&self, commit: ObjectId, changes: &[NewChange]) -> Result<(), StoreError> {
        let id: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM commits WHERE oid = ?1")?
            .query_row([&commit.0[..]], |r| r.get(0))
            .optional()?;
        let Some(id) = id else { return Ok(()) };
        self.tx.prepare_cached("DELETE FROM commit_files WHERE commit_id = ?1")?.execute([id])?;
        self.insert_changes(id, changes)
    }

    fn insert_changes(&self, id: i64, changes: &[NewChange]) -> Result<(), StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO commit_files (commit_id, ord, old_fv, new_fv, touched) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (ord, change) in changes.iter().enumerate() {
            let touched: Option<Vec<u8>> =
                (!change.touched.is_empty()).then(|| change.touched.iter().flat_map(|h| h.to_le_bytes()).collect());
            stmt.execute(params![id, ord as i64, change.old_fv, change.new_fv, touched])?;
        }
        Ok(())
    }
}
