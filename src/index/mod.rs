//! The full-text index (Tantivy, in `fts/`): symbol, snippet and file documents, each keyed by
//! a file version id, so one document serves every view that holds that file version.
//!
//! Useful for: ranked recall of symbols, code snippets and paths by words and identifier parts;
//! the trigram prefilter of literal and regex search. Not useful for: exact answers on its own
//! (regex results are always verified against the content), or anything a view needs to be
//! consistent (a view's bitmap decides what is visible; documents of file versions no published
//! view holds are simply never returned).
//!
//! Every structure follows writer -> commit -> immutable reader: documents are added during an
//! index run and committed before the view that needs them is published.

mod collect;
mod docs;
mod merges;
mod parallel;
mod runs;
pub mod tokenizer;
mod verify;

use std::path::Path;

use tantivy::schema::{FAST, Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy};

pub use collect::{Columns, FileVersions, Hit, SegmentColumns, TopInView, ViewFileVersions};
pub use docs::{DocInput, DocSymbol, documents_for, snippet_ranges};
pub use parallel::search as search_segments;
pub use verify::{STAMPS, Verify, commit_files};

/// The version of the documents' layout and tokenizers. A store whose index was written with
/// another version is `reindex_required`.
///
/// History:
/// - 1: file (path, trigrams of ASCII windows), symbol (name, qualified, signature, doc; not
///   fields or enum members) and snippet (body) documents; `code`, `path`, `trigram` tokenizers;
///   no positions (phrases are verified against the text).
/// - 2: what a hit needs is read from two columns, not five (`place`: file version, ordinal and
///   kind; `span`: first and last line): opening a column of the kernel's 6.9 million
///   documents decodes a header per 512 of them.
/// - 3: `fv` is indexed only: its column was `place`'s file version written twice.
/// - 4: the file version has its own column again and `place` holds only the ordinal and the
///   kind: a query filters every matching document by its file version, and a common word's
///   documents reach every page of the column it reads (on the kernel: `place` 34 MB before,
///   now `fv` 7.8 MB and `place` 7.5 MB); the columns are opened once per query (see
///   [`Columns`]); `kind` (a filter that adds nothing to a score), `fv` and `trigrams`, never
///   scored, have no field norms.
/// - 5: trigrams of every window of three bytes, not of ASCII windows only: a pattern with no
///   three ASCII characters in a row (`été`, `中文`, an emoji) narrows the files to read as any
///   other does, where it read every file. A store of version 4 is still read (and written:
///   the terms a query leaves out harm nothing), its queries without those windows (see
///   [`trigram_windows`]); a build that reads only version 4 refuses a store of version 5,
///   whose documents it would write without them.
pub const INDEX_FORMAT_VERSION: u32 = 5;

/// The oldest format version this build reads.
pub const OLDEST_INDEX_FORMAT_VERSION: u32 = 4;

/// Which windows a store's trigram terms were made of, by its index format version: every
/// window of three bytes from version 5, ASCII windows before.
pub fn trigram_windows(format: u32) -> crate::query::prefilter::Windows {
    if format >= 5 { crate::query::prefilter::Windows::Bytes } else { crate::query::prefilter::Windows::Ascii }
}

/// What went wrong in the full-text index.
#[derive(Debug, thiserror::Error)]
pub enum FtsError {
    /// Tantivy failed.
    #[error("full-text index error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The index directory could not be made.
    #[error("full-text index I/O error at {path}: {source}")]
    Io { path: std::path::PathBuf, source: std::io::Error },
}

/// Kinds of documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKind {
    /// A file: path, name, language, trigrams of its content.
    File = 0,
    /// A symbol: name, qualified name, signature, doc.
    Symbol = 1,
    /// A code snippet: a function body or the top-level code between definitions.
    Snippet = 2,
}

impl DocKind {
    /// From the stored number.
    pub fn from_u64(v: u64) -> DocKind {
        match v {
            0 => DocKind::File,
            1 => DocKind::Symbol,
            _ => DocKind::Snippet,
        }
    }
}

/// The packed values of a document's fast columns besides `fv`: `place` holds the symbol's
/// ordinal above the kind in its low 2 bits; `span` the first line in its high 32 bits and the
/// last line in its low 32. A column is as wide as its largest value: the file version has a
/// column of its own, which queries read for every matching document, so that neither column
/// is as wide as both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Document kind.
    pub kind: DocKind,
    /// The symbol's ordinal in its record (symbol documents).
    pub ord: u32,
}

impl Place {
    /// Ordinals above this do not fit the column (a record never holds a billion symbols).
    const MAX_ORD: u32 = (1 << 30) - 1;

    /// The `place` value.
    pub fn pack(self) -> u64 {
        (u64::from(self.ord.min(Self::MAX_ORD)) << 2) | self.kind as u64
    }

    /// From a `place` value.
    pub fn unpack(value: u64) -> Place {
        Place { kind: DocKind::from_u64(value & 3), ord: ((value >> 2) as u32) & Self::MAX_ORD }
    }

    /// The `span` value of lines `start..=end`.
    pub fn span(start: u32, end: u32) -> u64 {
        (u64::from(start) << 32) | u64::from(end)
    }

    /// The first and last line of a `span` value.
    pub fn lines(value: u64) -> (u32, u32) {
        ((value >> 32) as u32, value as u32)
    }
}

/// Merges every committed segment of `index` into one with `writer`; returns how many there
/// were. A single segment is left as it is unless `rewrite_one`: rewriting it leaves its
/// deleted documents out of its files. The writer's own merge policy would merge some of them
/// meanwhile, so it is turned off: the writer must not have merges under way (a fresh writer,
/// or one that merges nothing). Used by the code index and the commits' index alike.
pub fn merge_into_one(index: &Index, writer: &mut IndexWriter, rewrite_one: bool) -> Result<usize, FtsError> {
    writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 || (rewrite_one && !segments.is_empty()) {
        writer.merge(&segments).wait()?;
    }
    Ok(segments.len())
}

/// The schema's fields.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// Document kind.
    pub kind: Field,
    /// File version id: indexed, to find and delete a file version's documents, and a column
    /// to filter documents by view (see [`FileVersions`]).
    pub fv: Field,
    /// Language index + 1 (0: none).
    pub lang: Field,
    /// What a hit needs besides its score, in one column: the file version, the symbol's
    /// ordinal in its record (symbol docs; 0 otherwise) and the document kind (see [`Place`]).
    pub place: Field,
    /// The document's lines in one column: first line above, last line below (see [`Place`]).
    pub span: Field,
    /// Symbol name / file name.
    pub name: Field,
    /// Qualified name.
    pub qualified: Field,
    /// Signature.
    pub signature: Field,
    /// Doc comment.
    pub doc: Field,
    /// Snippet text.
    pub body: Field,
    /// File path.
    pub path: Field,
    /// Content trigrams.
    pub trigrams: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = |tokenizer: &str, positions: bool| {
        let option = if positions { IndexRecordOption::WithFreqsAndPositions } else { IndexRecordOption::WithFreqs };
        TextOptions::default()
            .set_indexing_options(TextFieldIndexing::default().set_tokenizer(tokenizer).set_index_option(option))
    };
    let fields = Fields {
        kind: builder.add_u64_field("kind", NumericOptions::default().set_indexed()),
        fv: builder.add_u64_field("fv", NumericOptions::default().set_indexed().set_fast()),
        lang: builder.add_u64_field("lang", FAST),
        place: builder.add_u64_field("place", FAST),
        span: builder.add_u64_field("span", FAST),
        name: builder.add_text_field("name", text("code", false)),
        qualified: builder.add_text_field("qualified", text("code", false)),
        signature: builder.add_text_field("signature", text("code", false)),
        doc: builder.add_text_field("doc", text("code", false)),
        body: builder.add_text_field("body", text("code", false)),
        path: builder.add_text_field("path", text("path", false)),
        trigrams: builder.add_text_field(
            "trigrams",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("trigram")
                    .set_index_option(IndexRecordOption::Basic)
                    .set_fieldnorms(false),
            ),
        ),
    };
    (builder.build(), fields)
}

fn register_tokenizers(index: &Index) {
    index.tokenizers().register("code", TextAnalyzer::builder(tokenizer::CodeTokenizer::default()).build());
    index.tokenizers().register("path", TextAnalyzer::builder(tokenizer::PathTokenizer).build());
    index.tokenizers().register("trigram", TextAnalyzer::builder(tokenizer::TrigramTokenizer::default()).build());
}

/// Opens (or creates) a Tantivy index with `schema` in `dir`, with the `code`, `path` and
/// `trigram` tokenizers registered: the code index and the commits' index alike.
pub fn open_at(dir: &Path, schema: Schema) -> Result<Index, FtsError> {
    std::fs::create_dir_all(dir).map_err(|e| FtsError::Io { path: dir.to_owned(), source: e })?;
    let directory =
        tantivy::directory::MmapDirectory::open(dir).map_err(|e| FtsError::Tantivy(tantivy::TantivyError::from(e)))?;
    let index = Index::open_or_create(directory, schema)?;
    register_tokenizers(&index);
    Ok(index)
}

/// Below this many blobs an index run writes with one thread (the parsing runs on every core
/// either way): one segment for a repository of hundreds of files, where each indexing thread
/// wrote its own (tokio's first index, 868 files: two segments; ripgrep's, with tantivy's
/// smallest budget, four, one of 26 documents). A query looks each term up, and opens columns,
/// once per segment: one segment instead of three or four made a one-shot search on ripgrep's
/// checkout 0.5-1.2 ms faster, and the first index was no slower (docs/speed.md).
const SMALL_RUN: usize = 2048;
/// The one thread's budget: what the documents of hundreds of files take (tokio's 27,700), so
/// that they make one segment. Only tantivy's term table (capped at 2^19 entries) is allocated
/// at the start; the rest as it fills.
const SMALL_RUN_BUDGET: usize = 64 * 1024 * 1024;

/// The full-text index of one store.
pub struct FullText {
    index: Index,
    fields: Fields,
    dir: std::path::PathBuf,
}

/// The directory of the full-text index inside a store.
pub fn dir_of(store_dir: &Path) -> std::path::PathBuf {
    store_dir.join("fts")
}

/// Whether the store in `store_dir` has a full-text index (its `fts/meta.json`): opening one
/// that has not creates it.
pub fn exists(store_dir: &Path) -> bool {
    dir_of(store_dir).join("meta.json").exists()
}

impl FullText {
    /// Opens the index in `store_dir/fts`, creating it when missing.
    pub fn open(store_dir: &Path) -> Result<FullText, FtsError> {
        let dir = dir_of(store_dir);
        let (schema, fields) = schema();
        let index = open_at(&dir, schema)?;
        Ok(FullText { index, fields, dir })
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the runs file of each segment that lacks one (see [`runs`]) and removes those of
    /// segments gone; returns how many it wrote.
    pub fn write_runs(&self) -> Result<usize, FtsError> {
        runs::write_missing(&self.index, &self.dir)
    }

    /// What a writer's work ends with: the files changed since they were last verified are
    /// verified and the sound ones stamped, so queries need not read them again; when all are
    /// sound, each segment gets its runs file. Damage found here is left to the next query,
    /// which checks the same files and refuses to answer from them.
    pub fn settle(&self) {
        if self.verify(Verify::Changed, true).is_ok_and(|damaged| damaged.is_empty()) {
            // Only a speed-up: a segment without one is read from its column.
            let _ = self.write_runs();
        }
    }

    /// The fields.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The Tantivy index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Whether a run of `blobs` blobs gets a small writer.
    pub fn is_small_run(blobs: usize) -> bool {
        blobs < SMALL_RUN
    }

    /// How many segments the last commit has.
    pub fn segment_count(&self) -> Result<usize, FtsError> {
        Ok(self.index.searchable_segment_ids()?.len())
    }

    /// Whether a segment of the last commit holds deleted documents: still in its files,
    /// masked.
    pub fn holds_deleted_documents(&self) -> Result<bool, FtsError> {
        Ok(self.index.load_metas()?.segments.iter().any(|segment| segment.has_deletes()))
    }

    /// Merges every committed segment into one, which also drops deleted documents; returns
    /// how many segments there were. Each segment has its own term dictionary and columns, so
    /// a query looks a term up, and opens columns, once per segment. With `rewrite_one`, a
    /// single segment is rewritten too, so that no file keeps its deleted documents.
    pub fn compact(&self, writer: &mut IndexWriter, rewrite_one: bool) -> Result<usize, FtsError> {
        merge_into_one(&self.index, writer, rewrite_one)
    }

    /// A writer with a memory budget, for one index run of about `blobs` blobs: a small run
    /// (a branch switch, a few edits, a repository of hundreds of files) gets one indexing
    /// thread, so it writes one segment. Its merges stop at a bound (see [`merges`]), one at
    /// a time for each two indexing threads.
    pub fn writer(&self, blobs: usize) -> Result<IndexWriter, FtsError> {
        let (threads, budget) = if FullText::is_small_run(blobs) {
            (1, SMALL_RUN_BUDGET)
        } else {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
            (threads, 64 * 1024 * 1024 * threads)
        };
        // Each merge under way maps the segments it reads into the process; tantivy's default
        // of four at once only competes with the parse for the cores.
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .num_worker_threads(threads)
            .memory_budget_per_thread(budget / threads)
            .num_merge_threads(threads.div_ceil(2))
            .build();
        let writer = self.index.writer_with_options(options)?;
        writer.set_merge_policy(Box::new(merges::BoundedMerges::default()));
        // A writer killed during a commit leaves files no commit refers to; delete files are
        // named by operation stamp, which restart from the last commit, so the next writer
        // would collide with them. Collecting first makes every run start clean.
        writer.garbage_collect_files().wait()?;
        Ok(writer)
    }

    /// A reader of the last commit.
    pub fn reader(&self) -> Result<IndexReader, FtsError> {
        Ok(self.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?)
    }

    /// Whether `searcher` reads exactly the segments (and deletes) of the last commit on
    /// disk: a reader opened moments ago needs no reload, which would open every segment
    /// again. Any doubt (meta.json unreadable) answers `false`.
    pub fn holds_last_commit(&self, searcher: &tantivy::Searcher) -> bool {
        let Ok(metas) = self.index.load_metas() else {
            return false;
        };
        let mut on_disk: Vec<_> = metas.segments.iter().map(|s| (s.id(), s.delete_opstamp())).collect();
        let mut held: Vec<_> =
            searcher.segment_readers().iter().map(|r| (r.segment_id(), r.delete_opstamp())).collect();
        on_disk.sort_unstable();
        held.sort_unstable();
        on_disk == held
    }

    /// The files of the last commit whose checksum fails (or that cannot be read), sorted:
    /// empty when all are sound. `Verify::Changed` reads only the files changed since they
    /// were last verified; `record` stamps the sound ones for the next such check.
    pub fn verify(&self, scope: Verify, record: bool) -> Result<Vec<String>, FtsError> {
        verify::damaged(&self.index, &self.dir, scope, record)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::{Term, doc};

    use super::FullText;

    #[test]
    fn a_reader_holds_the_last_commit_until_a_commit_adds_or_deletes() {
        let tmp = tempfile::tempdir().unwrap();
        let fulltext = FullText::open(tmp.path()).unwrap();
        let fields = *fulltext.fields();
        let mut writer = fulltext.index().writer_with_num_threads(1, 20_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        for i in 0..10u64 {
            writer.add_document(doc!(fields.fv => i, fields.body => "alpha")).unwrap();
        }
        writer.commit().unwrap();
        let reader = fulltext.reader().unwrap();
        assert!(fulltext.holds_last_commit(&reader.searcher()), "a reader just opened");

        // A commit that adds a segment.
        writer.add_document(doc!(fields.fv => 10u64, fields.body => "beta")).unwrap();
        writer.commit().unwrap();
        assert!(!fulltext.holds_last_commit(&reader.searcher()));
        reader.reload().unwrap();
        assert!(fulltext.holds_last_commit(&reader.searcher()));
        assert_eq!(reader.searcher().num_docs(), 11);
        assert!(!fulltext.holds_deleted_documents().unwrap());

        // A commit that only deletes: the same segments, a newer delete stamp on one.
        writer.delete_term(Term::from_field_u64(fields.fv, 3));
        writer.commit().unwrap();
        assert!(!fulltext.holds_last_commit(&reader.searcher()));
        reader.reload().unwrap();
        assert!(fulltext.holds_last_commit(&reader.searcher()));
        assert_eq!(reader.searcher().num_docs(), 10);
        assert!(fulltext.holds_deleted_documents().unwrap(), "the deleted document is still in its segment");
    }
}
