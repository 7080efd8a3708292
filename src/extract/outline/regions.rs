//! The regions a part parse reads for some places of a file: runs of top-level items, or a
//! container's header, a run of its items and its footer.

use std::collections::BTreeMap;
use std::ops::Range;

use super::Outline;

/// What a part parse reads: byte ranges of the file, in order, and the runs its parse is
/// checked on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The ranges to parse: runs of top-level items, or a container's header, a run of its
    /// items and its footer.
    pub ranges: Vec<Range<usize>>,
    /// The runs checked: top-level ones, or those of the outline's container item `nested`.
    pub(super) runs: Range<usize>,
    pub(super) nested: Option<usize>,
}

impl Region {
    /// The bytes it parses.
    pub fn len(&self) -> usize {
        self.ranges.iter().map(ExactSizeIterator::len).sum()
    }

    /// Whether it parses nothing (never so for a region of [`regions`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The regions to parse for `spans` (in order; an empty span is the byte at its place): a
/// span inside a run of a container's items takes that run (with the container's header and
/// footer), any other the top-level runs it touches; adjacent runs are joined, and runs of a
/// container whose top-level run is parsed anyway are left to it. In the file's order.
pub fn regions(outline: &Outline, spans: &[(usize, usize)]) -> Vec<Region> {
    let bounds = &outline.bounds;
    let mut whole: Vec<Range<usize>> = Vec::new();
    // Per container: the first and last of its runs taken, in runs apart.
    let mut inner: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    for &(start, end) in spans {
        let end = end.max(start + 1).min(outline.len());
        if start >= end {
            continue;
        }
        // The runs from the one holding `start` to the one holding `end - 1`.
        let first = bounds.partition_point(|&b| b as usize <= start) - 1;
        let last = bounds.partition_point(|&b| (b as usize) < end) - 1;
        if first == last
            && let Some((n, a, b)) = outline.inner_runs(first, start, end)
        {
            inner.entry(n).or_default().push((a, b));
            continue;
        }
        let range = bounds[first] as usize..bounds[last + 1] as usize;
        match whole.last_mut() {
            Some(previous) if range.start <= previous.end => previous.end = previous.end.max(range.end),
            _ => whole.push(range),
        }
    }
    // Each container's runs joined where they touch.
    let inner: BTreeMap<usize, Vec<Range<usize>>> = inner
        .into_iter()
        .map(|(n, mut picks)| {
            picks.sort_unstable();
            let mut joined: Vec<Range<usize>> = Vec::new();
            for (a, b) in picks {
                match joined.last_mut() {
                    Some(previous) if a <= previous.end => previous.end = previous.end.max(b + 1),
                    _ => joined.push(a..b + 1),
                }
            }
            let bounds = &outline.nested[n].bounds;
            (n, joined.into_iter().map(|r| bounds[r.start] as usize..bounds[r.end] as usize).collect())
        })
        .collect();
    // A container inside a run parsed anyway (a top-level run, or a run of items of a
    // container that holds it) is left to that run.
    let parsed_anyway = |n: usize, chain: &[usize]| {
        let at = outline.nested[n].start as usize;
        whole.iter().any(|w| w.contains(&at))
            || chain[..chain.len() - 1]
                .iter()
                .any(|holder| inner.get(holder).is_some_and(|runs| runs.iter().any(|r| r.contains(&at))))
    };
    let mut out: Vec<Region> =
        whole.iter().map(|range| Region { ranges: vec![range.clone()], runs: range.clone(), nested: None }).collect();
    for (&n, runs) in &inner {
        let chain = outline.chain(n);
        if parsed_anyway(n, &chain) {
            continue;
        }
        for run in runs {
            // The headers of the containers from the outermost, the run, their footers from
            // the innermost.
            let headers = chain.iter().map(|&i| {
                let c = &outline.nested[i];
                c.start as usize..c.bounds[0] as usize
            });
            let footers = chain.iter().rev().map(|&i| {
                let c = &outline.nested[i];
                c.bounds[c.bounds.len() - 1] as usize..c.end as usize
            });
            let mut ranges: Vec<Range<usize>> = Vec::with_capacity(chain.len() * 2 + 1);
            for range in headers.chain(std::iter::once(run.clone())).chain(footers) {
                match ranges.last_mut() {
                    _ if range.is_empty() => {}
                    Some(previous) if previous.end == range.start => previous.end = range.end,
                    _ => ranges.push(range),
                }
            }
            out.push(Region { ranges, runs: run.clone(), nested: Some(n) });
        }
    }
    out.sort_by_key(|r| r.runs.start);
    out
}

impl Outline {
    /// The innermost container item of top-level run `run` whose runs of items hold all of
    /// `[start, end)`, and the first and last of those runs.
    fn inner_runs(&self, run: usize, start: usize, end: usize) -> Option<(usize, usize, usize)> {
        let from = self.nested.partition_point(|n| (n.run as usize) < run);
        let to = self.nested.partition_point(|n| (n.run as usize) <= run);
        // Containers come after those that hold them: the last that holds the span is the
        // innermost.
        let n = from
            + self.nested[from..to]
                .iter()
                .rposition(|n| n.bounds[0] as usize <= start && end <= n.bounds[n.bounds.len() - 1] as usize)?;
        let bounds = &self.nested[n].bounds;
        let a = bounds.partition_point(|&b| b as usize <= start) - 1;
        let b = bounds.partition_point(|&b| (b as usize) < end) - 1;
        Some((n, a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{outline, with_container, with_containers_inside};
    use super::*;

    #[test]
    fn a_span_inside_a_containers_items_takes_their_run_with_the_header_and_footer() {
        let o = with_container();
        let one = |range: Range<usize>| vec![range];
        let ranges = |spans: &[(usize, usize)]| -> Vec<Vec<Range<usize>>> {
            regions(&o, spans).into_iter().map(|r| r.ranges).collect()
        };
        assert_eq!(ranges(&[(210, 220)]), [vec![120..150, 200..300, 380..390]]);
        // The first run of items follows the header: one range.
        assert_eq!(ranges(&[(160, 161)]), [vec![120..200, 380..390]]);
        // Adjacent runs join; a span across runs of items takes them all.
        assert_eq!(ranges(&[(210, 220), (310, 320)]), [vec![120..150, 200..390]]);
        assert_eq!(ranges(&[(190, 210)]), [vec![120..300, 380..390]]);
        // Runs apart are two regions, each with the header.
        assert_eq!(ranges(&[(160, 161), (310, 311)]), [vec![120..200, 380..390], vec![120..150, 300..390]]);
        // The header, the footer, or the run's bytes outside the container: the whole run.
        for span in [(125, 126), (385, 386), (395, 396), (105, 106)] {
            assert_eq!(ranges(&[span]), [one(100..400)], "{span:?}");
        }
        // A span that takes the whole run leaves no region of its items; others come in order.
        assert_eq!(ranges(&[(50, 51), (210, 220), (395, 396)]), [one(0..400)]);
        assert_eq!(ranges(&[(210, 220), (395, 396)]), [one(100..400)]);
        assert_eq!(ranges(&[(210, 220), (450, 451)]), [vec![120..150, 200..300, 380..390], one(400..500)]);
        // Without the container, its run.
        let top = o.clone().keep_families(0);
        assert_eq!(regions(&top, &[(210, 220)]).into_iter().map(|r| r.ranges).collect::<Vec<_>>(), [one(100..400)]);
    }

    #[test]
    fn a_span_inside_a_container_inside_another_takes_both_headers_and_footers() {
        let o = with_containers_inside();
        let ranges = |spans: &[(usize, usize)]| -> Vec<Vec<Range<usize>>> {
            regions(&o, spans).into_iter().map(|r| r.ranges).collect()
        };
        assert_eq!(ranges(&[(260, 261)]), [vec![120..150, 210..230, 250..280, 290..295, 380..390]]);
        assert_eq!(ranges(&[(235, 236)]), [vec![120..150, 210..250, 290..295, 380..390]]);
        // The inner container's header or footer: the outer container's run that holds it.
        for span in [(215, 216), (292, 293)] {
            assert_eq!(ranges(&[span]), [vec![120..150, 200..300, 380..390]], "{span:?}");
        }
        // A run of the outer container taken leaves the inner one's runs to it.
        assert_eq!(ranges(&[(215, 216), (260, 261)]), [vec![120..150, 200..300, 380..390]]);
        assert_eq!(
            ranges(&[(260, 261), (305, 306)]),
            [vec![120..150, 210..230, 250..280, 290..295, 380..390], vec![120..150, 300..390]]
        );
        // Runs of the inner container apart are two regions; the whole top-level run takes all.
        assert_eq!(ranges(&[(235, 236), (285, 286)]).len(), 2);
        let whole_run = 100..400;
        assert_eq!(ranges(&[(260, 261), (105, 106)]), [vec![whole_run]]);
    }

    #[test]
    fn regions_are_the_runs_the_spans_touch_joined() {
        let o = outline(&[0, 100, 200, 300, 400]);
        let ranges = |spans: &[(usize, usize)]| -> Vec<Range<usize>> {
            regions(&o, spans)
                .into_iter()
                .map(|r| {
                    assert_eq!(r.ranges.len(), 1);
                    r.ranges[0].clone()
                })
                .collect()
        };
        assert_eq!(ranges(&[(150, 160)]), vec![100..200]);
        // A span across a place takes both runs; an empty span its byte's run.
        assert_eq!(ranges(&[(190, 210), (300, 300)]), vec![100..400]);
        assert_eq!(ranges(&[(0, 1), (399, 400)]), [0..100, 300..400]);
        assert_eq!(ranges(&[(100, 100), (250, 260)]), vec![100..300]);
        // A span past the end touches nothing.
        assert_eq!(ranges(&[(400, 410)]), Vec::<Range<usize>>::new());
    }
}
