//! The regions a part parse reads for some places of a file: runs of top-level items, or a
//! container's header, a run of its items and its footer.

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
    // Per container: its index and the first and last of its runs taken.
    let mut inner: Vec<(usize, usize, usize)> = Vec::new();
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
            match inner.last_mut() {
                Some(previous) if previous.0 == n && a <= previous.2 + 1 => previous.2 = previous.2.max(b),
                _ => inner.push((n, a, b)),
            }
            continue;
        }
        let range = bounds[first] as usize..bounds[last + 1] as usize;
        match whole.last_mut() {
            Some(previous) if range.start <= previous.end => previous.end = previous.end.max(range.end),
            _ => whole.push(range),
        }
    }
    let mut out: Vec<Region> =
        whole.iter().map(|range| Region { ranges: vec![range.clone()], runs: range.clone(), nested: None }).collect();
    for (n, a, b) in inner {
        let nested = &outline.nested[n];
        if whole.iter().any(|w| w.contains(&(nested.start as usize))) {
            continue;
        }
        let runs = nested.bounds[a] as usize..nested.bounds[b + 1] as usize;
        let mut ranges: Vec<Range<usize>> = Vec::with_capacity(3);
        let body_end = nested.bounds[nested.bounds.len() - 1] as usize;
        for range in [nested.start as usize..nested.bounds[0] as usize, runs.clone(), body_end..nested.end as usize] {
            match ranges.last_mut() {
                _ if range.is_empty() => {}
                Some(previous) if previous.end == range.start => previous.end = range.end,
                _ => ranges.push(range),
            }
        }
        out.push(Region { ranges, runs, nested: Some(n) });
    }
    out.sort_by_key(|r| r.ranges[0].start);
    out
}

impl Outline {
    /// The container item of top-level run `run` whose runs of items hold all of `[start,
    /// end)`, and the first and last of those runs.
    fn inner_runs(&self, run: usize, start: usize, end: usize) -> Option<(usize, usize, usize)> {
        let from = self.nested.partition_point(|n| (n.run as usize) < run);
        let n = from
            + self.nested[from..]
                .iter()
                .take_while(|n| n.run as usize == run)
                .position(|n| n.bounds[0] as usize <= start && end <= n.bounds[n.bounds.len() - 1] as usize)?;
        let bounds = &self.nested[n].bounds;
        let a = bounds.partition_point(|&b| b as usize <= start) - 1;
        let b = bounds.partition_point(|&b| (b as usize) < end) - 1;
        Some((n, a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{outline, with_container};
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
