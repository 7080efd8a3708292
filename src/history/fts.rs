//! The commits' full-text index (Tantivy, in the store's `history/`): one document per commit
//! with its message, the paths and symbol names it touched, and the trigrams of the lines its
//! diff against the first parent adds or removes. Separate from the code index: its own
//! lifecycle, and no format change for stores that never index history.

use std::path::{Path, PathBuf};

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::git::ObjectId;
use crate::index::FtsError;
use crate::query::prefilter::{Prefilter, Windows};

/// The fields of a commit document.
#[derive(Clone, Copy, Debug)]
struct Fields {
    /// The commit: the first 8 bytes of its id.
    key: Field,
    /// [`Scan`]: whether the commit's changed lines tell all it could match.
    scan: Field,
    message: Field,
    paths: Field,
    symbols: Field,
    grams: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = |tokenizer: &str| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default().set_tokenizer(tokenizer).set_index_option(IndexRecordOption::WithFreqs),
        )
    };
    let fields = Fields {
        key: builder.add_u64_field("key", INDEXED | FAST),
        scan: builder.add_u64_field("scan", INDEXED),
        message: builder.add_text_field("message", text("code")),
        paths: builder.add_text_field("paths", text("path")),
        symbols: builder.add_text_field("symbols", text("code")),
        grams: builder.add_text_field(
            "grams",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default().set_tokenizer("trigram").set_index_option(IndexRecordOption::Basic),
            ),
        ),
    };
    (builder.build(), fields)
}

/// The key of a commit's document.
pub fn key_of(commit: ObjectId) -> u64 {
    u64::from_be_bytes(commit.0[..8].try_into().expect("8 bytes"))
}

/// What one commit's document holds.
#[derive(Debug, Default)]
pub struct CommitDoc {
    /// The whole message.
    pub message: String,
    /// Changed paths, one per line.
    pub paths: String,
    /// Names of the symbols whose lines changed.
    pub symbols: String,
    /// Added and removed lines, and the printable runs of binary sides.
    pub lines: String,
    /// What `lines` does not tell.
    pub scan: Scan,
}

/// What a commit's trigrams do not tell, stored in its `scan` field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scan {
    /// Every change was diffed: its added and removed lines are in the document.
    #[default]
    None = 0,
    /// A change could not be read (too large, missing from the object store): the commit is
    /// a candidate of every search.
    Always = 1,
    /// A side of a change is binary: the document holds its printable runs (see
    /// `pickaxe::push_printable_runs`), which hold every occurrence of a string of six
    /// printable characters or more; the commit is a candidate of any other string's search.
    /// (Stores written before this value have `Always` for such commits.)
    Binary = 2,
}

/// The commits' index of one store.
pub struct CommitIndex {
    index: Index,
    fields: Fields,
    /// The searcher of the queries asked of this opening, made at the first of them: a
    /// `history` asks several (the name's commits, those not diffed, a renamed name's).
    searcher: std::sync::OnceLock<tantivy::Searcher>,
}

/// The directory of the commits' index inside a store.
pub fn dir_of(store_dir: &Path) -> PathBuf {
    store_dir.join("history")
}

impl CommitIndex {
    /// Opens the index, creating it when missing.
    pub fn open(store_dir: &Path) -> Result<CommitIndex, FtsError> {
        let (schema, fields) = schema();
        let index = crate::index::open_at(&dir_of(store_dir), schema)?;
        Ok(CommitIndex { index, fields, searcher: std::sync::OnceLock::new() })
    }

    /// Opens the index when it is there and readable; `None` when it is missing or damaged.
    pub fn open_existing(store_dir: &Path) -> Option<CommitIndex> {
        if !dir_of(store_dir).join("meta.json").exists() {
            return None;
        }
        CommitIndex::open(store_dir).ok().filter(|index| index.reader().is_ok())
    }

    /// Merges every committed segment into one (nothing when there is one or none).
    pub fn merge_all(&self, writer: &mut IndexWriter) -> Result<(), FtsError> {
        crate::index::merge_into_one(&self.index, writer, false).map(|_| ())
    }

    /// How many segments the last commit has.
    pub fn segment_count(&self) -> Result<usize, FtsError> {
        Ok(self.index.searchable_segment_ids()?.len())
    }

    /// A writer (one thread: commit documents are small) that merges nothing by itself: the
    /// run that wrote merges at its end ([`CommitIndex::merge_all`]), with no merge of the
    /// writer's own under way.
    pub fn writer(&self) -> Result<IndexWriter, FtsError> {
        let writer = self.index.writer_with_num_threads(1, 50_000_000)?;
        writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        writer.garbage_collect_files().wait()?;
        Ok(writer)
    }

    /// Adds (or replaces) the document of `commit`.
    pub fn add(&self, writer: &IndexWriter, commit: ObjectId, doc: &CommitDoc) -> Result<(), FtsError> {
        let f = self.fields;
        let key = key_of(commit);
        writer.delete_term(Term::from_field_u64(f.key, key));
        let mut d = TantivyDocument::default();
        d.add_u64(f.key, key);
        d.add_u64(f.scan, doc.scan as u64);
        d.add_text(f.message, &doc.message);
        d.add_text(f.paths, &doc.paths);
        d.add_text(f.symbols, &doc.symbols);
        d.add_text(f.grams, &doc.lines);
        writer.add_document(d)?;
        Ok(())
    }

    /// A reader of the last commit.
    pub fn reader(&self) -> Result<IndexReader, FtsError> {
        Ok(self.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?)
    }

    /// The searcher every query of this opening shares, of the last commit when the first
    /// query came (this opening's queries all come after any history it indexed).
    fn searcher(&self) -> Result<tantivy::Searcher, FtsError> {
        if let Some(searcher) = self.searcher.get() {
            return Ok(searcher.clone());
        }
        let searcher = self.reader()?.searcher();
        Ok(self.searcher.get_or_init(|| searcher).clone())
    }

    /// The keys of the commits whose changed lines can hold a match of `prefilter`, plus those
    /// with changes that could not be read and, with `binary`, those that changed a binary
    /// file; `None` when the prefilter narrows nothing. `windows`: what the store's trigram
    /// terms were made of (`Store::trigram_windows`).
    pub fn candidates(
        &self,
        prefilter: &Prefilter,
        windows: Windows,
        binary: bool,
    ) -> Result<Option<std::collections::HashSet<u64>>, FtsError> {
        let prefilter = &prefilter.within(windows);
        if prefilter.is_any() {
            return Ok(None);
        }
        let mut clauses = vec![(Occur::Should, prefilter.query(self.fields.grams)), self.scan_clause(Scan::Always)];
        if binary {
            clauses.push(self.scan_clause(Scan::Binary));
        }
        self.keys_of(&BooleanQuery::new(clauses)).map(Some)
    }

    /// The keys of the commits with a change the index did not diff as text (binary, too
    /// large, missing): their documents and touched names do not tell all their lines.
    pub fn not_diffed(&self) -> Result<std::collections::HashSet<u64>, FtsError> {
        self.keys_of(&BooleanQuery::new(vec![self.scan_clause(Scan::Always), self.scan_clause(Scan::Binary)]))
    }

    /// A clause matching the commits whose `scan` field is `value`.
    fn scan_clause(&self, value: Scan) -> (Occur, Box<dyn Query>) {
        let term = Term::from_field_u64(self.fields.scan, value as u64);
        (Occur::Should, Box::new(TermQuery::new(term, IndexRecordOption::Basic)))
    }

    /// The keys of the commits whose documents match `query`.
    fn keys_of(&self, query: &dyn Query) -> Result<std::collections::HashSet<u64>, FtsError> {
        let searcher = self.searcher()?;
        let docs = searcher.search(query, &DocSetCollector)?;
        let mut keys = std::collections::HashSet::with_capacity(docs.len());
        for address in docs {
            keys.extend(key_at(&searcher, address)?);
        }
        Ok(keys)
    }

    /// The keys of the commits that changed lines of a symbol named `name` (every token the
    /// name gives is in their `symbols` field: a superset of the commits that did).
    pub fn touching(&self, name: &str) -> Result<std::collections::HashSet<u64>, FtsError> {
        let f = self.fields;
        let mut analyzer = self.index.tokenizer_for_field(f.symbols)?;
        let mut stream = analyzer.token_stream(name);
        let mut terms: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        while let Some(token) = stream.next() {
            let term = Term::from_field_text(f.symbols, &token.text);
            terms.push((Occur::Must, Box::new(TermQuery::new(term, IndexRecordOption::Basic))));
        }
        if terms.is_empty() {
            return Ok(std::collections::HashSet::new());
        }
        self.keys_of(&BooleanQuery::new(terms))
    }

    /// Commits ranked by BM25 of `words` over messages, touched symbols and paths (the message
    /// weighs most), best first, at most `limit`.
    pub fn ranked(&self, words: &str, limit: usize) -> Result<Ranked, FtsError> {
        let f = self.fields;
        // Words only (no query syntax: fields, operators, quotes are not the user's), each
        // field's tokens of them by its own tokenizer, any of them scoring. An identifier such
        // as `url_for` is several tokens (the whole, and its parts); tantivy's query parser
        // made them a phrase, which these fields, keeping no positions, never matched.
        let cleaned: String =
            words.chars().map(|c| if c.is_alphanumeric() || c == '_' || c == '.' { c } else { ' ' }).collect();
        let searcher = self.searcher()?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut dropped = std::collections::HashSet::new();
        for (field, boost) in [(f.message, 2.0), (f.symbols, 1.0), (f.paths, 0.5)] {
            let mut tokenizer = self.index.tokenizer_for_field(field)?;
            let mut stream = tokenizer.token_stream(&cleaned);
            let mut terms: Vec<Term> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            while let Some(token) = stream.next() {
                if seen.insert(token.text.clone()) {
                    terms.push(Term::from_field_text(field, &token.text));
                }
            }
            // A pasted text of thousands of words: the rarest the index holds weigh most, and
            // a query of each would cost time and memory for nothing.
            if terms.len() > MAX_WORD_TERMS {
                // Each segment's index of the field opened once (tantivy's `doc_freq` opens it
                // for every term).
                let inverted = searcher
                    .segment_readers()
                    .iter()
                    .map(|s| s.inverted_index(field))
                    .collect::<Result<Vec<_>, _>>()?;
                // Terms of the clauses of an OR: their order does not matter, so the rarest are
                // put first (terms the index lacks last; ties in the words' order) and the rest
                // cut off.
                let mut by_rarity: Vec<(u64, Term)> = Vec::with_capacity(terms.len());
                for term in terms {
                    let mut found = 0u64;
                    for segment in &inverted {
                        found += u64::from(segment.doc_freq(&term).map_err(tantivy::TantivyError::from)?);
                    }
                    by_rarity.push((if found == 0 { u64::MAX } else { found }, term));
                }
                by_rarity.sort_by_key(|(found, _)| *found);
                for (_, term) in by_rarity.drain(MAX_WORD_TERMS..) {
                    dropped.insert(term.value().as_str().unwrap_or_default().to_owned());
                }
                terms = by_rarity.into_iter().map(|(_, term)| term).collect();
            }
            for term in terms {
                let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(query), boost))));
            }
        }
        let query = BooleanQuery::new(clauses);
        let top = searcher.search(&query, &TopDocs::with_limit(limit.max(1)).order_by_score())?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            hits.extend(key_at(&searcher, address)?.map(|key| (key, score)));
        }
        Ok(Ranked { hits, dropped: dropped.len() })
    }
}

/// The most distinct terms of one field a `log WORDS` query weighs (as code search keeps its
/// 64 rarest word groups).
const MAX_WORD_TERMS: usize = 64;

/// Commits ranked by words: their keys and scores, best first, and how many distinct terms of
/// the words were left out (past [`MAX_WORD_TERMS`] in a field, the most common).
pub struct Ranked {
    pub hits: Vec<(u64, f32)>,
    pub dropped: usize,
}

/// The commit key of a document.
fn key_at(searcher: &tantivy::Searcher, address: tantivy::DocAddress) -> Result<Option<u64>, FtsError> {
    let reader = searcher.segment_reader(address.segment_ord);
    Ok(reader.fast_fields().u64("key")?.first(address.doc_id))
}
