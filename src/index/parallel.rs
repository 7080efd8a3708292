//! One search over several segments on several threads. Tantivy searches a query's segments
//! one after the other on the calling thread unless its index is given a thread pool, whose
//! idle workers spin before they sleep and whose start a one-shot query pays whether or not
//! its index has more than one segment. Here a search of several segments starts threads of
//! its own for that search alone and collects each thread's share of the segments; the
//! fruits are merged in segment order, so the answer is the one a search on one thread gives.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::{EnableScoring, Query};
use tantivy::{Searcher, SegmentOrdinal};

/// A segment's fruit, by its ordinal.
type Fruits<C> = Vec<(usize, <<C as Collector>::Child as SegmentCollector>::Fruit)>;

/// Searches `query` with `collector` over the segments of `searcher` on at most `threads`
/// threads, the calling one among them; one segment, or one thread, is a plain search.
pub fn search<C: Collector>(
    searcher: &Searcher,
    query: &dyn Query,
    collector: &C,
    threads: usize,
) -> tantivy::Result<C::Fruit> {
    let readers = searcher.segment_readers();
    if threads < 2 || readers.len() < 2 {
        return searcher.search(query, collector);
    }
    // As `Searcher::search` scores: with the statistics of the whole index.
    let scoring = if collector.requires_scoring() {
        EnableScoring::enabled_from_searcher(searcher)
    } else {
        EnableScoring::disabled_from_searcher(searcher)
    };
    let weight = query.weight(scoring)?;
    collector.check_schema(searcher.schema())?;
    let shares = shares(&readers.iter().map(|r| u64::from(r.max_doc())).collect::<Vec<_>>(), threads);
    let collect = |share: &[usize]| -> tantivy::Result<Fruits<C>> {
        share
            .iter()
            .map(|&ord| Ok((ord, collector.collect_segment(weight.as_ref(), ord as SegmentOrdinal, &readers[ord])?)))
            .collect()
    };
    let mut fruits: Fruits<C> = Vec::with_capacity(readers.len());
    std::thread::scope(|scope| -> tantivy::Result<()> {
        let others: Vec<_> = shares[1..].iter().map(|share| scope.spawn(|| collect(share))).collect();
        let mine = collect(&shares[0]);
        // Every thread is joined before an error or a panic is passed on; a panic (a damaged
        // segment's decoder) reaches the caller as it would from a search on its own thread.
        let theirs: Vec<_> = others.into_iter().map(|h| h.join()).collect();
        fruits.extend(mine?);
        for joined in theirs {
            match joined {
                Ok(share) => fruits.extend(share?),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(())
    })?;
    fruits.sort_by_key(|(ord, _)| *ord);
    collector.merge_fruits(fruits.into_iter().map(|(_, fruit)| fruit).collect())
}

/// The segments (by ordinal) each of at most `threads` threads collects, the first share the
/// calling thread's: the largest segment first to the least loaded share, by documents. No
/// share is empty.
fn shares(docs: &[u64], threads: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by_key(|&ord| (std::cmp::Reverse(docs[ord]), ord));
    let mut shares: Vec<(u64, Vec<usize>)> = vec![(0, Vec::new()); threads.min(docs.len()).max(1)];
    for ord in order {
        let least = shares.iter_mut().min_by_key(|(load, share)| (*load, share.len())).expect("at least one share");
        least.0 += docs[ord];
        least.1.push(ord);
    }
    shares.into_iter().map(|(_, share)| share).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use roaring::RoaringBitmap;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, TermQuery};
    use tantivy::schema::IndexRecordOption;

    use super::*;
    use crate::index::docs::add_test_file;
    use crate::index::{Columns, DocSymbol, FullText, TopInView, ViewFileVersions};

    #[test]
    fn a_search_on_several_threads_answers_as_one_on_one_thread() {
        let tmp = tempfile::tempdir().unwrap();
        let fulltext = FullText::open(tmp.path()).unwrap();
        let fields = *fulltext.fields();
        let mut writer = fulltext.index().writer_with_num_threads(1, 20_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        // Five segments of different sizes; the words in different numbers in each file, so
        // that the scores differ and the top ones come from several segments.
        let mut fv = 0u32;
        for (segment, files) in [3usize, 40, 7, 25, 1].into_iter().enumerate() {
            for file in 0..files {
                fv += 1;
                let repeats = (file * 7 + segment * 3) % 11 + 1;
                let content =
                    format!("fn task_{fv}() {{\n{}}}\n// lock {segment}\n", "    spawn_task(mutex);\n".repeat(repeats));
                let symbols = [DocSymbol {
                    ord: 0,
                    name: format!("task_{fv}"),
                    qualified_name: format!("task_{fv}"),
                    kind: "function".into(),
                    signature: format!("fn task_{fv}()"),
                    doc: None,
                    line_start: 1,
                    line_end: repeats as u32 + 2,
                }];
                add_test_file(&mut writer, &fields, fv, &content, &symbols);
            }
            writer.commit().unwrap();
        }
        let searcher = fulltext.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 5);
        // Every other file version is in the view.
        let view: Arc<RoaringBitmap> = Arc::new((1..=fv).filter(|v| v % 2 == 1).collect());
        let term = |field, text: &str| {
            Box::new(TermQuery::new(tantivy::Term::from_field_text(field, text), IndexRecordOption::WithFreqs))
                as Box<dyn Query>
        };
        let queries: Vec<Box<dyn Query>> = vec![
            term(fields.body, "spawn"),
            term(fields.body, "lock"),
            Box::new(BooleanQuery::new(vec![
                (Occur::Should, term(fields.body, "mutex")),
                (Occur::Should, term(fields.name, "task_3")),
            ])),
            term(fields.trigrams, "spa"),
            term(fields.body, "absent"),
        ];
        let columns = Columns::at(fulltext.dir());
        let hits = |hits: Vec<crate::index::Hit>| -> Vec<_> {
            hits.iter().map(|h| (h.score.to_bits(), h.kind, h.fv, h.ord, h.line_start, h.line_end)).collect()
        };
        for query in &queries {
            let top = TopInView { bitmap: view.clone(), limit: 12, columns: columns.clone() };
            let files = ViewFileVersions { bitmap: view.clone(), columns: columns.clone() };
            let docs = TopDocs::with_limit(9).order_by_score();
            let expected = (
                hits(searcher.search(&**query, &top).unwrap()),
                searcher.search(&**query, &files).unwrap(),
                searcher.search(&**query, &docs).unwrap(),
            );
            for threads in [1, 2, 3, 8] {
                let found = (
                    hits(search(&searcher, &**query, &top, threads).unwrap()),
                    search(&searcher, &**query, &files, threads).unwrap(),
                    search(&searcher, &**query, &docs, threads).unwrap(),
                );
                assert_eq!(found, expected, "{threads} threads");
            }
        }
        // The view's hits span the segments.
        let top = TopInView { bitmap: view.clone(), limit: 100, columns };
        assert!(search(&searcher, &*queries[0], &top, 2).unwrap().len() > 30);
    }

    #[test]
    fn segments_are_shared_by_size_and_none_is_left_out() {
        assert_eq!(shares(&[10, 1_000, 20, 900], 2), [vec![1], vec![3, 2, 0]]);
        assert_eq!(shares(&[5, 5, 5], 4), [vec![0], vec![1], vec![2]]);
        assert_eq!(shares(&[5, 7], 1), [vec![1, 0]]);
        let many = shares(&[3, 9, 1, 4, 4, 8, 2, 7], 3);
        let mut all: Vec<usize> = many.concat();
        all.sort();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        assert!(many.iter().all(|s| !s.is_empty()));
    }
}
