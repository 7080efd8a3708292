//! Collectors that see only one view: a document counts when its file version is in the
//! view's bitmap. The filter runs inside the collection, per document, so a view's top-k is
//! never cut from a global top-k.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use roaring::RoaringBitmap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::index::SegmentId;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::{DocKind, Place};

/// The columns the collectors read, opened once per segment for every search of one query:
/// opening a column decodes its header, and `fv`'s code keeps a line per 512 documents (13,000
/// of them in the kernel's segment), which each of a query's searches would decode again. The
/// file versions come from the segment's runs file when it has a sound one (see
/// [`super::runs`]), which opens at once.
#[derive(Clone, Default)]
pub struct Columns {
    open: Arc<Mutex<HashMap<SegmentId, Arc<SegmentColumns>>>>,
    /// The index's directory, where the runs files are (none: the columns alone).
    fts: Option<Arc<Path>>,
}

/// One segment's columns.
pub struct SegmentColumns {
    fv: FileVersions,
    /// The segment's columns, for `place` and `span`.
    fast: tantivy::fastfield::FastFieldReaders,
    /// `place` and `span` (see [`Place`]), opened when a document first needs them: opening
    /// one decodes a line per 512 documents (11,000 lines in a segment of the kernel's index),
    /// which an exact search, that reads only file versions, never needs, nor a ranked search
    /// in a segment where no document of its view matches.
    places: OnceLock<tantivy::Result<Places>>,
}

/// The `place` and `span` columns of a segment.
struct Places {
    place: Column<u64>,
    span: Column<u64>,
}

impl Columns {
    /// The columns of the index in `fts`, with its runs files.
    pub fn at(fts: &Path) -> Columns {
        Columns { open: Arc::default(), fts: Some(fts.into()) }
    }

    /// The columns of `reader`'s segment, opened on first use.
    pub fn of(&self, reader: &SegmentReader) -> tantivy::Result<Arc<SegmentColumns>> {
        let mut open = self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(columns) = open.get(&reader.segment_id()) {
            return Ok(columns.clone());
        }
        let fv = match self.fts.as_deref().and_then(|fts| super::runs::load(fts, reader)) {
            Some(runs) => FileVersions::Runs(runs),
            None => FileVersions::of(reader)?,
        };
        let columns = Arc::new(SegmentColumns { fv, fast: reader.fast_fields().clone(), places: OnceLock::new() });
        open.insert(reader.segment_id(), columns.clone());
        Ok(columns)
    }
}

impl SegmentColumns {
    /// The file versions.
    pub fn file_versions(&self) -> &FileVersions {
        &self.fv
    }

    /// `place` and `span`, opened on first use.
    fn places(&self) -> &tantivy::Result<Places> {
        self.places.get_or_init(|| Ok(Places { place: self.fast.u64("place")?, span: self.fast.u64("span")? }))
    }
}

/// The file version of each document of a segment: its runs, or its `fv` column.
pub enum FileVersions {
    /// From the runs file.
    Runs(super::runs::Runs),
    /// From the column.
    Column(Column<u64>),
}

impl FileVersions {
    /// The column of `reader`'s segment.
    pub fn of(reader: &SegmentReader) -> tantivy::Result<FileVersions> {
        Ok(FileVersions::Column(reader.fast_fields().u64("fv")?))
    }

    /// The file version of `doc`.
    pub fn get(&self, doc: DocId) -> Option<u32> {
        self.get_at(doc, &mut 0)
    }

    /// The file version of `doc`, where `at` is where the last lookup ended (see
    /// [`super::runs::Runs::get`]).
    pub fn get_at(&self, doc: DocId, at: &mut usize) -> Option<u32> {
        match self {
            FileVersions::Runs(runs) => runs.get(doc, at),
            FileVersions::Column(column) => column.first(doc).map(|fv| fv as u32),
        }
    }
}

/// Every file version in the view with a matching document (no scores).
pub struct ViewFileVersions {
    /// The view.
    pub bitmap: Arc<RoaringBitmap>,
    /// The query's columns.
    pub columns: Columns,
}

/// Per-segment part of [`ViewFileVersions`].
pub struct ViewFileVersionsSegment {
    bitmap: Arc<RoaringBitmap>,
    columns: Arc<SegmentColumns>,
    /// Where the last file version lookup ended.
    at: usize,
    out: RoaringBitmap,
}

impl Collector for ViewFileVersions {
    type Fruit = RoaringBitmap;
    type Child = ViewFileVersionsSegment;

    fn for_segment(&self, _: SegmentOrdinal, reader: &SegmentReader) -> tantivy::Result<Self::Child> {
        Ok(ViewFileVersionsSegment {
            bitmap: self.bitmap.clone(),
            columns: self.columns.of(reader)?,
            at: 0,
            out: RoaringBitmap::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<RoaringBitmap>) -> tantivy::Result<RoaringBitmap> {
        Ok(fruits.into_iter().fold(RoaringBitmap::new(), |a, b| a | b))
    }
}

impl SegmentCollector for ViewFileVersionsSegment {
    type Fruit = RoaringBitmap;

    fn collect(&mut self, doc: DocId, _: Score) {
        if let Some(fv) = self.columns.fv.get_at(doc, &mut self.at)
            && self.bitmap.contains(fv)
        {
            self.out.insert(fv);
        }
    }

    fn harvest(self) -> RoaringBitmap {
        self.out
    }
}

/// One scored document of a view.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// BM25 score.
    pub score: f32,
    /// Document kind.
    pub kind: DocKind,
    /// File version.
    pub fv: u32,
    /// Ordinal (symbol documents).
    pub ord: u32,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
}

impl Hit {
    fn key(&self) -> (u32, u32, u32) {
        (self.fv, self.line_start, self.ord)
    }
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Hit {}
impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Hit {
    /// Better hits are greater: higher score, then the smaller (fv, line) for determinism.
    fn cmp(&self, other: &Self) -> Ordering {
        self.score.total_cmp(&other.score).then_with(|| other.key().cmp(&self.key()))
    }
}

/// The `limit` best-scored documents of the view.
pub struct TopInView {
    /// The view.
    pub bitmap: Arc<RoaringBitmap>,
    /// How many.
    pub limit: usize,
    /// The query's columns.
    pub columns: Columns,
}

/// Per-segment part of [`TopInView`].
pub struct TopInViewSegment {
    bitmap: Arc<RoaringBitmap>,
    limit: usize,
    columns: Arc<SegmentColumns>,
    /// Where the last file version lookup ended.
    at: usize,
    heap: BinaryHeap<std::cmp::Reverse<Hit>>,
}

impl Collector for TopInView {
    type Fruit = Vec<Hit>;
    type Child = TopInViewSegment;

    fn for_segment(&self, _: SegmentOrdinal, reader: &SegmentReader) -> tantivy::Result<Self::Child> {
        Ok(TopInViewSegment {
            bitmap: self.bitmap.clone(),
            limit: self.limit,
            columns: self.columns.of(reader)?,
            at: 0,
            heap: BinaryHeap::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<tantivy::Result<Vec<Hit>>>) -> tantivy::Result<Vec<Hit>> {
        let mut all = Vec::new();
        for hits in fruits {
            all.extend(hits?);
        }
        all.sort_by(|a, b| b.cmp(a));
        all.truncate(self.limit);
        Ok(all)
    }
}

impl SegmentCollector for TopInViewSegment {
    /// The segment's hits, or why its `place` and `span` could not be read.
    type Fruit = tantivy::Result<Vec<Hit>>;

    fn collect(&mut self, doc: DocId, score: Score) {
        // The score first: a document that cannot enter the heap is never read further (each
        // column read maps pages of the index, and a common word matches most documents).
        if self.heap.len() == self.limit
            && let Some(std::cmp::Reverse(worst)) = self.heap.peek()
            && score <= worst.score
        {
            return;
        }
        // The file version first: `place` and `span` are read for the documents that enter.
        let Some(fv) = self.columns.fv.get_at(doc, &mut self.at).filter(|&fv| self.bitmap.contains(fv)) else {
            return;
        };
        let Ok(places) = self.columns.places() else {
            return;
        };
        let Some(place) = places.place.first(doc).map(Place::unpack) else {
            return;
        };
        let (line_start, line_end) = Place::lines(places.span.first(doc).unwrap_or(0));
        let hit = Hit { score, kind: place.kind, fv, ord: place.ord, line_start, line_end };
        self.heap.push(std::cmp::Reverse(hit));
        if self.heap.len() > self.limit {
            self.heap.pop();
        }
    }

    fn harvest(self) -> tantivy::Result<Vec<Hit>> {
        if let Some(Err(e)) = self.columns.places.get() {
            return Err(e.clone());
        }
        Ok(self.heap.into_iter().map(|std::cmp::Reverse(h)| h).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::docs::add_test_file;
    use crate::index::{DocSymbol, FullText};
    use tantivy::query::TermQuery;
    use tantivy::schema::IndexRecordOption;

    fn function(ord: u32, name: &str, line_start: u32, line_end: u32) -> DocSymbol {
        DocSymbol {
            ord,
            name: name.into(),
            qualified_name: name.into(),
            kind: "function".into(),
            signature: format!("fn {name}()"),
            doc: None,
            line_start,
            line_end,
        }
    }

    #[test]
    fn hits_carry_the_file_version_kind_ordinal_and_lines_of_their_view_only() {
        let tmp = tempfile::tempdir().unwrap();
        let fulltext = FullText::open(tmp.path()).unwrap();
        let fields = *fulltext.fields();
        let mut writer = fulltext.index().writer_with_num_threads(1, 20_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        let content = "fn other() {}\n\nfn spawn_task() {\n    spawn_task_inner();\n}\n";
        let symbols = [function(0, "other", 1, 1), function(1, "spawn_task", 3, 5)];
        // Two commits, two segments; file versions far apart, as a long-lived store has them.
        for batch in [[7u32, 1_000_003], [40_000, 2]] {
            for fv in batch {
                add_test_file(&mut writer, &fields, fv, content, &symbols);
            }
            writer.commit().unwrap();
        }
        let searcher = fulltext.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 2);
        let view: RoaringBitmap = [7u32, 40_000].into_iter().collect();
        // The file versions from the columns, then from the runs files written for both
        // segments: the same answers.
        assert_eq!(fulltext.write_runs().unwrap(), 2);
        assert_eq!(fulltext.write_runs().unwrap(), 0, "written once");
        for columns in [Columns::default(), Columns::at(fulltext.dir())] {
            let query =
                TermQuery::new(tantivy::Term::from_field_text(fields.name, "spawn_task"), IndexRecordOption::WithFreqs);
            let top = TopInView { bitmap: Arc::new(view.clone()), limit: 10, columns: columns.clone() };
            let mut hits: Vec<(u32, DocKind, u32, u32, u32)> = searcher
                .search(&query, &top)
                .unwrap()
                .iter()
                .map(|h| (h.fv, h.kind, h.ord, h.line_start, h.line_end))
                .collect();
            hits.sort_by_key(|h| h.0);
            assert_eq!(hits, [(7, DocKind::Symbol, 1, 3, 5), (40_000, DocKind::Symbol, 1, 3, 5)]);

            // Snippets through the same columns, and the file documents' trigrams through them too.
            let body =
                TermQuery::new(tantivy::Term::from_field_text(fields.body, "inner"), IndexRecordOption::WithFreqs);
            let mut snippets: Vec<(u32, DocKind, u32, u32)> = searcher
                .search(&body, &TopInView { bitmap: Arc::new(view.clone()), limit: 10, columns: columns.clone() })
                .unwrap()
                .iter()
                .map(|h| (h.fv, h.kind, h.line_start, h.line_end))
                .collect();
            snippets.sort_by_key(|h| h.0);
            assert_eq!(snippets, [(7, DocKind::Snippet, 3, 5), (40_000, DocKind::Snippet, 3, 5)]);
            let trigram =
                TermQuery::new(tantivy::Term::from_field_text(fields.trigrams, "spa"), IndexRecordOption::Basic);
            let found = searcher
                .search(&trigram, &ViewFileVersions { bitmap: Arc::new(view.clone()), columns: columns.clone() })
                .unwrap();
            assert_eq!(found, view);
            // An exact search reads file versions alone: `place` and `span` stay unopened.
            let exact = Columns { open: Arc::default(), fts: columns.fts.clone() };
            let found = searcher
                .search(&trigram, &ViewFileVersions { bitmap: Arc::new(view.clone()), columns: exact.clone() })
                .unwrap();
            assert_eq!(found, view);
            for reader in searcher.segment_readers() {
                assert!(exact.of(reader).unwrap().places.get().is_none(), "opened for an exact search");
                assert!(matches!(columns.of(reader).unwrap().places.get(), Some(Ok(_))), "opened for the ranked ones");
            }

            // Each segment's columns were opened once for all three searches.
            for reader in searcher.segment_readers() {
                assert!(Arc::ptr_eq(&columns.of(reader).unwrap(), &columns.of(reader).unwrap()));
            }
            assert_eq!(columns.open.lock().unwrap().len(), 2);
            let from_runs = columns.fts.is_some();
            for reader in searcher.segment_readers() {
                let fv = columns.of(reader).unwrap();
                assert_eq!(matches!(fv.file_versions(), FileVersions::Runs(_)), from_runs);
            }
        }
    }
}
