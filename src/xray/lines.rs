//! Where a file's lines end: byte offsets to rows and columns, lines to their bytes. Found
//! once per file, then asked as often as needed.

use std::ops::Range;

use tree_sitter::Point;

/// The newlines of a file, and its length.
pub(super) struct Lines {
    newlines: Vec<usize>,
    len: usize,
}

impl Lines {
    pub(super) fn of(data: &[u8]) -> Lines {
        Lines { newlines: memchr::memchr_iter(b'\n', data).collect(), len: data.len() }
    }

    /// How many lines the file has (a last line without a newline counts; an empty file has
    /// one).
    pub(super) fn count(&self) -> usize {
        self.newlines.len() + 1
    }

    /// Where line `row` (0-based) starts; `None` past the last.
    pub(super) fn start(&self, row: usize) -> Option<usize> {
        match row {
            0 => Some(0),
            _ => self.newlines.get(row - 1).map(|newline| newline + 1),
        }
    }

    /// Where line `row` (0-based) ends: at its newline, or the file's end.
    pub(super) fn end(&self, row: usize) -> usize {
        self.newlines.get(row).copied().unwrap_or(self.len)
    }

    /// The row and column of byte `at`.
    pub(super) fn point(&self, at: usize) -> Point {
        let row = self.newlines.partition_point(|&newline| newline < at);
        let line_start = row.checked_sub(1).map_or(0, |previous| self.newlines[previous] + 1);
        Point { row, column: at - line_start }
    }

    /// The parser's ranges of byte `regions` (in order).
    pub(super) fn ranges(&self, regions: &[Range<usize>]) -> Vec<tree_sitter::Range> {
        regions
            .iter()
            .map(|region| tree_sitter::Range {
                start_byte: region.start,
                end_byte: region.end,
                start_point: self.point(region.start),
                end_point: self.point(region.end),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_get_their_rows_and_columns() {
        let data = b"ab\n\ncd\ne";
        let lines = Lines::of(data);
        for at in 0..=data.len() {
            let row = data[..at].iter().filter(|&&b| b == b'\n').count();
            let column = at - data[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            assert_eq!(lines.point(at), Point { row, column }, "{at}");
        }
    }

    #[test]
    fn lines_have_their_starts_and_ends() {
        let data = b"ab\n\ncd\ne";
        let lines = Lines::of(data);
        assert_eq!(lines.count(), 4);
        let spans: Vec<(usize, usize)> = (0..lines.count()).map(|r| (lines.start(r).unwrap(), lines.end(r))).collect();
        assert_eq!(spans, vec![(0, 2), (3, 3), (4, 6), (7, 8)]);
        assert_eq!(lines.start(4), None);
        let ended = Lines::of(b"ab\n");
        assert_eq!((ended.count(), ended.start(1), ended.end(1)), (2, Some(3), 3));
    }
}
