//! Which segments an index run's writer merges: tantivy's log merge policy, with a bound on
//! the size of what one merge makes.
//!
//! Left alone, the log policy merges any eight segments of about the same size, however large:
//! on the Linux kernel, an index run that wrote every document again ended by merging segments
//! of about a million documents each into one of 4.9 to 7.8 million, 70-125 s with up to
//! 1.6 GiB of their files mapped into the process (docs/speed.md, "Bounded merges"). The same
//! could fall on the small run of a query after an edit, which waits for its merges. A query
//! pays per segment only a term lookup and the opening of its columns, so merges stop at
//! [`MAX_MERGED_DOCS`]; `gc` still merges everything into one.

use tantivy::index::SegmentMeta;
use tantivy::indexer::{LogMergePolicy, MergeCandidate, MergePolicy};

/// The most live documents one merge of an index run makes: on the kernel about 150 MB of
/// segment files to read, and six to eight segments for its 7.8 million documents.
pub const MAX_MERGED_DOCS: u32 = 1_500_000;

/// Tantivy's log merge policy, each merge cut down to its smallest segments whose live
/// documents fit in `max_docs`; a merge left with one segment is dropped.
#[derive(Debug)]
pub struct BoundedMerges {
    log: LogMergePolicy,
    max_docs: u32,
}

impl BoundedMerges {
    /// The policy that merges at most `max_docs` live documents at once.
    pub fn new(max_docs: u32) -> BoundedMerges {
        BoundedMerges { log: LogMergePolicy::default(), max_docs }
    }
}

impl Default for BoundedMerges {
    fn default() -> BoundedMerges {
        BoundedMerges::new(MAX_MERGED_DOCS)
    }
}

impl MergePolicy for BoundedMerges {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        self.log
            .compute_merge_candidates(segments)
            .into_iter()
            .filter_map(|MergeCandidate(ids)| {
                let mut metas: Vec<&SegmentMeta> = segments.iter().filter(|s| ids.contains(&s.id())).collect();
                metas.sort_by_key(|s| s.num_docs());
                let mut total = 0u64;
                let kept: Vec<_> = metas
                    .into_iter()
                    .take_while(|s| {
                        total += u64::from(s.num_docs());
                        total <= u64::from(self.max_docs)
                    })
                    .map(SegmentMeta::id)
                    .collect();
                (kept.len() >= 2).then_some(MergeCandidate(kept))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::index::SegmentId;
    use tantivy::indexer::MergePolicy;

    use super::BoundedMerges;

    fn segments(index: &tantivy::Index, sizes: &[u32]) -> Vec<tantivy::index::SegmentMeta> {
        sizes.iter().map(|&n| index.new_segment_meta(SegmentId::generate_random(), n)).collect()
    }

    fn index() -> tantivy::Index {
        tantivy::Index::create_in_ram(tantivy::schema::Schema::builder().build())
    }

    fn merged_sizes(policy: &BoundedMerges, metas: &[tantivy::index::SegmentMeta]) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = policy
            .compute_merge_candidates(metas)
            .into_iter()
            .map(|candidate| {
                let mut sizes: Vec<u32> =
                    candidate.0.iter().map(|id| metas.iter().find(|m| m.id() == *id).unwrap().num_docs()).collect();
                sizes.sort_unstable();
                sizes
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn small_segments_merge_as_the_log_policy_merges_them() {
        let ram = index();
        let metas = segments(&ram, &[3000; 8]);
        assert_eq!(merged_sizes(&BoundedMerges::new(1_000_000), &metas), vec![vec![3000; 8]]);
        let seven = segments(&ram, &[3000; 7]);
        assert!(merged_sizes(&BoundedMerges::new(1_000_000), &seven).is_empty(), "seven wait for an eighth");
    }

    #[test]
    fn a_merge_stops_at_the_bound_and_large_segments_stay() {
        let ram = index();
        // Eight segments of about a million documents: the log policy merges them all.
        let large = segments(&ram, &[900_000, 950_000, 1_000_000, 1_000_000, 1_050_000, 1_100_000, 980_000, 990_000]);
        let log = tantivy::indexer::LogMergePolicy::default();
        assert_eq!(log.compute_merge_candidates(&large).len(), 1, "the log policy alone merges them");
        assert!(merged_sizes(&BoundedMerges::new(1_500_000), &large).is_empty());
        // Eight of 300,000: the smallest five fit.
        let mid = segments(&ram, &[300_000, 310_000, 290_000, 305_000, 295_000, 320_000, 315_000, 299_000]);
        assert_eq!(
            merged_sizes(&BoundedMerges::new(1_500_000), &mid),
            vec![vec![290_000, 295_000, 299_000, 300_000, 305_000]]
        );
    }
}
