//! X-Ray: structural search over one view. A *driver* (a regex or literal that every match
//! contains) picks the candidate files through the view's trigram index and gives the places
//! it matched; an *evaluator* runs on each candidate's syntax tree: a tree-sitter query
//! ([`pattern`]) or a sandboxed Rhai script ([`script`]). Only candidates are read and parsed;
//! without a driver every file of the view in a language the evaluator accepts is, and the
//! answer says so.
//!
//! Nothing here is stored: a match is computed from the blob's bytes each time, so any ref
//! costs the same as the working tree and no answer can come from another view.

mod batch;
mod demand;
mod explore;
mod lines;
mod parsed;
mod pattern;
mod script;
mod syntax;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

pub use batch::{Batch, DEFAULT_SCAN_LIMIT, Scan};
pub use explore::{ExploreCapture, ExploreNode, ExploreTree, explore};
pub use pattern::CompiledQuery;
pub use script::{ScriptLimits, check_script};

use crate::extract::Outline;
use crate::lang::Language;
use crate::query::grep::Matcher;
use crate::query::{ContentReader, FileFilter, Filters, QueryError, SearchContext};
use crate::store::FileInfo;

/// Files evaluated per round, in path order: a limit stops early and the first results are
/// always the same ones.
const CHUNK: usize = 128;
/// Driver matches kept per file (the positions handed to the evaluator).
const MAX_DRIVER_SPANS: usize = 10_000;
/// Characters of matched or captured text kept in an answer.
const MAX_TEXT: usize = 400;
/// Evaluation errors listed (all are counted).
const MAX_ERRORS_LISTED: usize = 100;

/// What runs on each candidate's tree.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// A tree-sitter query (S-expression patterns, captures, `#eq?`-style predicates).
    Query(String),
    /// A Rhai script.
    Script(String),
}

/// An X-Ray question.
#[derive(Clone, Debug)]
pub struct XrayRequest {
    /// Text every match contains: a regex (Rust syntax), or a literal with `literal`.
    pub driver: Option<String>,
    /// The driver is a literal.
    pub literal: bool,
    /// The driver ignores case.
    pub ignore_case: bool,
    /// The evaluator.
    pub evaluator: Evaluator,
    /// At most this many matches in all.
    pub limit: usize,
    /// At most this many files parsed.
    pub max_files: Option<usize>,
    /// The whole run stops after this long (what was found is kept, marked partial).
    pub timeout: Option<Duration>,
    /// The script's sandbox.
    pub limits: ScriptLimits,
}

/// One match.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct XrayMatch {
    /// Repository-relative path.
    pub path: String,
    /// First line of the match (1-based).
    pub line_start: u32,
    /// Last line of the match.
    pub line_end: u32,
    /// Column of the match's first byte (1-based, in bytes).
    pub column: u32,
    /// The file's language.
    pub language: String,
    /// The node kind matched (empty for a script's line or byte range).
    pub kind: String,
    /// The matched text (at most 400 characters).
    pub text: String,
    /// What the query captured, in the order the query names them (captures named with a
    /// leading `_` are left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captures: Vec<Capture>,
    /// The value a script gave the match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// One capture of a query match.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Capture {
    /// The capture's name, without `@`.
    pub name: String,
    /// The captured node's kind.
    pub kind: String,
    /// Its text (at most 400 characters).
    pub text: String,
    /// First line (1-based).
    pub line: u32,
    /// First column (1-based, in bytes).
    pub column: u32,
    /// Last line.
    pub line_end: u32,
    /// Column after the last byte.
    pub column_end: u32,
}

/// A file the evaluator failed on; the other files still answer.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct EvaluationError {
    /// Repository-relative path.
    pub path: String,
    /// What went wrong: `operations` (the operation budget), `time` (the per-file time
    /// budget), `size` (a value over the size cap), `depth` (calls or expressions nested too
    /// deep), `sandbox` (something the sandbox does not give: files, modules, `eval`),
    /// `script` (any other error of the script), `result` (a result the script gave that is
    /// no match), `parse` (the file could not be parsed), `unreadable`.
    pub kind: &'static str,
    /// The message, with the script's line and column when it has them.
    pub message: String,
}

/// What an X-Ray search found.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct XrayOutput {
    /// `query` or `script`.
    pub evaluator: &'static str,
    /// The driver, as given, or the texts read off a query given none (`a & b`: both, `a|b`:
    /// either, in the file).
    pub driver: Option<String>,
    /// Whether the driver was read off the query (the `#eq?` and `#any-of?` texts of captures
    /// every match has, the keywords every node of its kinds holds): it chose the files;
    /// matches need not overlap it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub driver_derived: bool,
    /// How candidates were chosen: `trigram`, or `none: ...` when every file of the view in
    /// the evaluator's languages was read.
    pub prefilter: String,
    /// Files the driver (or, without one, the languages) selected.
    pub candidates: u64,
    /// Files read, their driver matches checked.
    pub files_scanned: u64,
    /// Files parsed and evaluated (those where the driver matched).
    pub files_parsed: u64,
    /// Bytes of those files parsed: a query each of whose matches lies inside one top-level
    /// item parses only the items that hold driver matches, where the index has the file's
    /// outline.
    pub bytes_parsed: u64,
    /// Files with at least one match.
    pub matched: u64,
    /// Matches found (more than `results` holds when the limit cut them).
    pub total_matches: u64,
    /// Whether `limit` or `max_files` cut the answer.
    pub truncated: bool,
    /// Whether the run's time limit stopped it.
    pub timed_out: bool,
    /// Whether it was cancelled before the end.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// The languages evaluated.
    pub languages: Vec<String>,
    /// Languages of candidate files the query does not compile for, with the reason; their
    /// files were not evaluated.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_languages: BTreeMap<String, String>,
    /// The matches, in path and position order.
    pub results: Vec<XrayMatch>,
    /// Files the evaluator failed on (the first 100).
    pub evaluation_errors: Vec<EvaluationError>,
    /// All evaluation errors.
    pub evaluation_error_count: u64,
    /// What the reader should know.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Why an X-Ray search did not run.
#[derive(Debug, thiserror::Error)]
pub enum XrayError {
    /// The query does not compile.
    #[error("{message}")]
    Query {
        /// What is wrong, per language tried.
        message: String,
        /// Line in the query (1-based).
        line: u32,
        /// Column in the query (1-based).
        column: u32,
    },
    /// The script does not compile.
    #[error("{message}")]
    Script {
        /// What is wrong.
        message: String,
        /// Line in the script (1-based; 0 when unknown).
        line: u32,
        /// Column (1-based; 0 when unknown).
        column: u32,
    },
    /// The driver or the view could not be used.
    #[error(transparent)]
    Search(#[from] QueryError),
}

/// The evaluator compiled for the languages it runs on.
enum Compiled {
    Query(BTreeMap<&'static str, CompiledQuery>),
    Script(String),
}

/// One match as an evaluator gives it, before the file's path is known.
#[derive(Debug)]
pub(crate) struct Found {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start: tree_sitter::Point,
    pub end: tree_sitter::Point,
    pub kind: String,
    pub text: String,
    pub captures: Vec<Capture>,
    pub value: Option<serde_json::Value>,
}

/// What evaluating one file gave.
enum Evaluated {
    /// Not read: the run was stopping, or the file is binary.
    Skipped,
    /// Read, and the driver did not match.
    NoDriverMatch,
    /// Evaluated, with the bytes parsed.
    Matches(Vec<Found>, usize),
    /// The evaluator failed.
    Failed(&'static str, String),
}

/// The text of a node or range, at most [`MAX_TEXT`] characters.
pub(crate) fn clip(source: &[u8], start: usize, end: usize) -> String {
    let end = end.min(source.len()).min(start.saturating_add(MAX_TEXT * 4));
    let text = String::from_utf8_lossy(&source[start.min(end)..end]);
    match text.char_indices().nth(MAX_TEXT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

/// The language of a file whose grammar X-Ray can parse.
fn language_of(info: &FileInfo) -> Option<&'static Language> {
    crate::lang::by_name(&info.lang).filter(|l| codecompass_grammars::NAMES.contains(&l.grammar))
}

/// Called after each round of files with what was found so far; `false` stops the run (the
/// answer is then marked `cancelled`).
pub type Control<'a> = &'a dyn Fn(&XrayOutput) -> bool;

/// Runs `request` over the files of the view that pass `filters`.
pub fn run(
    ctx: &SearchContext<'_>,
    request: &XrayRequest,
    filters: &Filters,
    control: Option<Control<'_>>,
) -> Result<XrayOutput, XrayError> {
    let started = Instant::now();
    if let Evaluator::Script(source) = &request.evaluator {
        check_script(source)?;
    }
    // The filters are checked on the candidates only: on a large view, far fewer files than
    // the view holds.
    let filter = FileFilter::new(filters)?;
    let view = Arc::new(ctx.view.bitmap.clone());
    let given = request.driver.as_deref().filter(|d| !d.is_empty());
    let driver =
        given.map(|d| Matcher::new(d, request.literal, request.ignore_case)).transpose().map_err(QueryError::from)?;
    let (mut infos, mut prefiltered) =
        crate::query::candidate_files(ctx, driver.as_ref().map(|m| m.prefilter()), &view)?;
    infos.retain(|f| language_of(f).is_some() && filter.passes(f));
    // Compile the evaluator for the candidates' languages.
    let languages: BTreeSet<&'static str> = infos.iter().filter_map(language_of).map(|l| l.name).collect();
    let (compiled, mut skipped_languages) = match &request.evaluator {
        Evaluator::Query(text) => {
            let (queries, skipped) = pattern::compile_for(text, &languages)?;
            (Compiled::Query(queries), skipped)
        }
        Evaluator::Script(text) => (Compiled::Script(text.clone()), BTreeMap::new()),
    };
    // A query brings its own driver when it demands texts of every file it can match in (its
    // predicates' literals, its node kinds' keywords): the files without them are never read,
    // given no driver, a driver with no literal text to look up (`[a-z]+\(`), or one whose
    // files the query narrows further (`unwrap` in a function whose type names `Result`). It
    // chooses files only; matches are held to overlap the driver given, not it.
    let unindexed = driver.as_ref().is_none_or(|m| m.prefilter().is_any());
    let demand = match (&request.evaluator, &compiled) {
        (Evaluator::Query(text), Compiled::Query(queries)) => demand::Demand::of(text, queries),
        _ => None,
    };
    if let Some(demand) = &demand {
        let condition = demand.prefilter();
        if driver.as_ref().is_none_or(|m| *m.prefilter() != condition) {
            let allowed = Arc::new(infos.iter().map(|f| f.id).collect::<roaring::RoaringBitmap>());
            let ids = crate::query::candidate_ids(ctx, &condition, &allowed)?;
            infos.retain(|f| ids.contains(f.id));
            prefiltered = true;
        }
    }
    // Only the languages the query compiles for are evaluated; the others of the candidates
    // are said to be skipped.
    if let Compiled::Query(queries) = &compiled {
        let remaining: BTreeSet<&str> = infos.iter().filter_map(language_of).map(|l| l.name).collect();
        skipped_languages.retain(|l, _| remaining.contains(l.as_str()));
        infos.retain(|f| language_of(f).is_some_and(|l| queries.contains_key(l.name)));
    }

    let mut output = XrayOutput {
        evaluator: match request.evaluator {
            Evaluator::Query(_) => "query",
            Evaluator::Script(_) => "script",
        },
        driver: given.map(str::to_owned).or_else(|| demand.as_ref().map(demand::Demand::describe)),
        driver_derived: given.is_none() && demand.is_some(),
        skipped_languages,
        ..XrayOutput::default()
    };
    output.prefilter = match (&driver, prefiltered) {
        (_, true) => "trigram".to_owned(),
        (Some(_), false) => "none: the driver has no literal text to look up, every file was read".to_owned(),
        (None, false) => "none: no driver, every file of the view in the evaluator's languages was parsed".to_owned(),
    };
    output.languages =
        infos.iter().filter_map(language_of).map(|l| l.name.to_owned()).collect::<BTreeSet<_>>().into_iter().collect();
    output.candidates = infos.len() as u64;
    if let Some(demand) = demand.as_ref().filter(|_| unindexed) {
        output.notes.push(format!(
            "{}: the texts every match needs in its file (`{}`: the query's predicates and the keywords \
             of its node kinds) chose the files to parse",
            if given.is_some() { "the driver has no literal text to look up" } else { "no driver given" },
            demand.describe()
        ));
    }
    if driver.is_none() && demand.is_none() {
        output.notes.push(format!(
            "no driver: all {} file(s) of the view in {} were parsed; a driver (text every match contains) \
             reads only the files that contain it",
            infos.len(),
            if output.languages.is_empty() { "no language".to_owned() } else { output.languages.join(", ") }
        ));
    }
    if let Some(max) = request.max_files
        && infos.len() > max
    {
        infos.truncate(max);
        output.truncated = true;
        output.notes.push(format!("only the first {max} candidate file(s) in path order were evaluated (max_files)"));
    }

    // The record key of each language evaluated, once each, for the candidates' outlines.
    let record_keys: BTreeMap<String, String> = output
        .languages
        .iter()
        .map(|name| (name.clone(), crate::indexer::record_key(name, ctx.max_file_size)))
        .collect();
    let deadline = request.timeout.map(|t| started + t);
    let content = ctx.content;
    let stop = AtomicBool::new(false);
    let mut kept = 0usize;
    for chunk in infos.chunks(CHUNK) {
        if deadline.is_some_and(|d| Instant::now() > d) {
            output.timed_out = true;
            break;
        }
        let outlines: Vec<Option<Outline>> =
            chunk.iter().map(|info| outline_of(ctx, &compiled, &record_keys, info)).collect();
        // Each of the pool's threads takes the next file when done with one, the largest first:
        // in path order, a large file met last kept one core busy while the other idled.
        let order = largest_first(chunk);
        let next = AtomicUsize::new(0);
        let mut evaluated: Vec<(usize, Evaluated)> = (0..rayon::current_num_threads().min(chunk.len()))
            .into_par_iter()
            .flat_map_iter(|_| {
                let (local, mut sandbox) = (content.local(), script::Sandbox::new(&request.limits));
                let mut done = Vec::new();
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let info = &chunk[i];
                    if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() > d) {
                        done.push((i, Evaluated::Skipped));
                        continue;
                    }
                    let how = How { compiled: &compiled, driver: driver.as_ref(), demand: demand.as_ref() };
                    done.push((i, evaluate(content, local.as_ref(), &mut sandbox, &how, outlines[i].as_ref(), info)));
                }
                done
            })
            .collect();
        evaluated.sort_unstable_by_key(|(i, _)| *i);
        for (i, result) in evaluated {
            let info = &chunk[i];
            match result {
                Evaluated::Skipped => {}
                Evaluated::NoDriverMatch => output.files_scanned += 1,
                Evaluated::Failed(kind, message) => {
                    output.files_scanned += 1;
                    if kind != "unreadable" {
                        output.files_parsed += 1;
                    }
                    output.evaluation_error_count += 1;
                    if output.evaluation_errors.len() < MAX_ERRORS_LISTED {
                        output.evaluation_errors.push(EvaluationError { path: info.path_str(), kind, message });
                    }
                }
                Evaluated::Matches(found, bytes) => {
                    output.files_scanned += 1;
                    output.files_parsed += 1;
                    output.bytes_parsed += bytes as u64;
                    if found.is_empty() {
                        continue;
                    }
                    output.matched += 1;
                    output.total_matches += found.len() as u64;
                    let language = language_of(info).map_or("", |l| l.name);
                    for f in found {
                        if kept == request.limit {
                            output.truncated = true;
                            break;
                        }
                        kept += 1;
                        output.results.push(XrayMatch {
                            path: info.path_str(),
                            line_start: f.start.row as u32 + 1,
                            line_end: f.end.row as u32 + 1,
                            column: f.start.column as u32 + 1,
                            language: language.to_owned(),
                            kind: f.kind,
                            text: f.text,
                            captures: f.captures,
                            value: f.value,
                        });
                    }
                }
            }
        }
        if kept == request.limit && output.total_matches > kept as u64 {
            output.truncated = true;
            stop.store(true, Ordering::Relaxed);
            break;
        }
        if control.is_some_and(|go_on| !go_on(&output)) {
            output.cancelled = true;
            output
                .notes
                .push(format!("cancelled after {} of {} candidate file(s)", output.files_scanned, output.candidates));
            break;
        }
    }
    if deadline.is_some_and(|d| Instant::now() > d) && output.files_scanned < output.candidates {
        output.timed_out = true;
    }
    if output.timed_out {
        output.notes.push(format!(
            "the time limit stopped the run after {} of {} candidate file(s)",
            output.files_scanned, output.candidates
        ));
    }
    if !output.skipped_languages.is_empty() {
        output.notes.push(format!(
            "the query does not compile for {}: those files were not evaluated",
            output.skipped_languages.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(output)
}

/// The indexes of `chunk`'s files, largest first.
fn largest_first(chunk: &[FileInfo]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..chunk.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(chunk[i].size));
    order
}

/// The outline of a candidate's record when the query can use it: each of its matches in the
/// file's language lies inside one top-level item (with the containers cut again at their
/// items whose items hold every match inside them). `None` otherwise, and when the store has
/// none (a file of one run of items, a record made before outlines): the file is parsed whole.
fn outline_of(
    ctx: &SearchContext<'_>,
    compiled: &Compiled,
    record_keys: &BTreeMap<String, String>,
    info: &FileInfo,
) -> Option<Outline> {
    let Compiled::Query(queries) = compiled else { return None };
    let language = language_of(info)?;
    let query = queries.get(language.name).filter(|q| q.regional())?;
    let outline = ctx.store.outline(info.blob_id, &info.lang, record_keys.get(language.name)?).ok().flatten()?;
    Some(outline.keep_families(query.families()))
}

/// What every file is evaluated with.
struct How<'a> {
    compiled: &'a Compiled,
    driver: Option<&'a Matcher>,
    demand: Option<&'a demand::Demand>,
}

/// Reads, checks the driver, parses and evaluates one file.
fn evaluate(
    content: &ContentReader<'_>,
    local: Option<&crate::git::LocalRepo>,
    sandbox: &mut script::Sandbox,
    how: &How<'_>,
    outline: Option<&Outline>,
    info: &FileInfo,
) -> Evaluated {
    let How { compiled, driver, demand } = *how;
    let Some(language) = language_of(info) else {
        return Evaluated::Skipped;
    };
    let Some(data) = content.read(local, info) else {
        return Evaluated::Failed("unreadable", "the content could not be read (missing object)".to_owned());
    };
    if crate::indexer::is_binary(&data) {
        return Evaluated::Skipped;
    }
    // Where matches can be: around the driver's matches, or the places of the texts the
    // query demands (a match need not overlap those).
    let spans = match (driver, demand) {
        (Some(m), _) => {
            if demand.is_some_and(|d| !d.holds(language.name, &data)) {
                return Evaluated::NoDriverMatch;
            }
            let spans = m.spans(&data, MAX_DRIVER_SPANS);
            if spans.is_empty() {
                return Evaluated::NoDriverMatch;
            }
            Some(spans)
        }
        (None, Some(d)) => match d.places(language.name, &data, MAX_DRIVER_SPANS) {
            Some(places) => Some(places),
            None => return Evaluated::NoDriverMatch,
        },
        (None, None) => None,
    };
    let parsed = match parsed::parse(language, &data, outline, spans.as_deref()) {
        Ok(parsed) => parsed,
        Err(message) => return Evaluated::Failed("parse", message),
    };
    let bytes = parsed.bytes;
    let found = match compiled {
        Compiled::Query(queries) => match queries.get(language.name) {
            Some(q) => Ok(once_each(parsed.trees.iter().map(|tree| q.matches(tree, &data, spans.as_deref())))),
            None => return Evaluated::Skipped,
        },
        Compiled::Script(source) => match parsed.trees.into_iter().next() {
            Some(tree) => {
                sandbox.evaluate(source, tree, data.clone(), language.name, &info.path_str(), spans.as_deref())
            }
            None => return Evaluated::Skipped,
        },
    };
    match found {
        Ok(mut found) => {
            // Every match contains the driver: it overlaps one of its matches.
            if let Some(spans) = spans.as_ref().filter(|_| driver.is_some()) {
                found.retain(|f| overlaps(spans, f.start_byte, f.end_byte));
            }
            found.sort_by_key(|f| (f.start_byte, std::cmp::Reverse(f.end_byte)));
            Evaluated::Matches(found, bytes)
        }
        Err((kind, message)) => Evaluated::Failed(kind, message),
    }
}

/// A match's place and captures: what tells it from another.
type MatchKey = (usize, usize, String, Vec<(String, u32, u32, u32, u32)>);

fn match_key(f: &Found) -> MatchKey {
    let captures = f.captures.iter().map(|c| (c.name.clone(), c.line, c.column, c.line_end, c.column_end)).collect();
    (f.start_byte, f.end_byte, f.kind.clone(), captures)
}

/// The matches of a file's trees, each as many times as the tree that has it most: the parts
/// of a container around its items (its header and footer, and the call or statement that
/// holds them) are parsed with each run of the items, so a match there is found once per run
/// parsed, and once in the whole file.
fn once_each(mut per_tree: impl Iterator<Item = Vec<Found>>) -> Vec<Found> {
    let mut all = per_tree.next().unwrap_or_default();
    let mut most: Option<std::collections::HashMap<MatchKey, usize>> = None;
    for found in per_tree {
        let most = most.get_or_insert_with(|| {
            let mut counts = std::collections::HashMap::new();
            for f in &all {
                *counts.entry(match_key(f)).or_default() += 1;
            }
            counts
        });
        let mut here: std::collections::HashMap<MatchKey, usize> = std::collections::HashMap::new();
        for f in found {
            let key = match_key(&f);
            let count = here.entry(key.clone()).or_default();
            *count += 1;
            let seen = most.entry(key).or_default();
            if *count > *seen {
                *seen = *count;
                all.push(f);
            }
        }
    }
    all
}

/// Whether `[start, end)` overlaps one of `spans` (in order, not overlapping each other); an
/// empty range or span counts as the one byte at its position.
fn overlaps(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    let end = end.max(start + 1);
    // The first span that ends after `start`.
    let i = spans.partition_point(|&(s, e)| e.max(s + 1) <= start);
    spans.get(i).is_some_and(|&(s, _)| s < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_found_in_several_trees_of_a_file_counts_as_often_as_in_the_one_with_most() {
        let found = |start: usize, capture: &str| Found {
            start_byte: start,
            end_byte: start + 10,
            start: tree_sitter::Point::default(),
            end: tree_sitter::Point::default(),
            kind: "call_expression".to_owned(),
            text: String::new(),
            captures: vec![Capture {
                name: capture.to_owned(),
                kind: "identifier".to_owned(),
                text: String::new(),
                line: 1,
                column: start as u32,
                line_end: 1,
                column_end: start as u32 + 3,
            }],
            value: None,
        };
        let places =
            |all: Vec<Found>| all.iter().map(|f| (f.start_byte, f.captures[0].name.clone())).collect::<Vec<_>>();
        // The call around both runs in both trees; two patterns matching one node in the
        // first; a run's own match in each.
        let first = vec![found(0, "f"), found(5, "a"), found(5, "a"), found(20, "x")];
        let second = vec![found(0, "f"), found(5, "a"), found(40, "y"), found(0, "g")];
        assert_eq!(
            places(once_each([first, second].into_iter())),
            vec![
                (0, "f".into()),
                (5, "a".into()),
                (5, "a".into()),
                (20, "x".into()),
                (40, "y".into()),
                (0, "g".into())
            ]
        );
        assert!(once_each(std::iter::empty()).is_empty());
    }

    #[test]
    fn a_match_must_overlap_a_driver_match() {
        let spans = [(10, 14), (30, 31)];
        assert!(overlaps(&spans, 12, 20));
        assert!(overlaps(&spans, 0, 11));
        assert!(!overlaps(&spans, 0, 10));
        assert!(!overlaps(&spans, 14, 30));
        assert!(overlaps(&spans, 14, 31));
        assert!(overlaps(&spans, 30, 30));
        assert!(!overlaps(&spans, 40, 50));
    }

    #[test]
    fn clipped_text_keeps_whole_characters() {
        let long = "é".repeat(500);
        let clipped = clip(long.as_bytes(), 0, long.len());
        assert_eq!(clipped.chars().count(), MAX_TEXT + 1);
        assert!(clipped.ends_with('…'));
        assert_eq!(clip(b"abc", 1, 3), "bc");
    }
}
