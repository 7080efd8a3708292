//! A record's outline: the places between top-level items where a parse of the file may
//! start and stop, and a fingerprint of the syntax the whole file's parse has between them. A
//! question about a few places of a large file (X-Ray's driver matches) needs the syntax of
//! the items around them only: those items are parsed alone, as if the rest of the file were
//! not there, and the trees they give are checked against the fingerprints; where one differs
//! (error recovery may read less text otherwise), the whole file is parsed.
//!
//! Places are at items that start a line (Python's indentation starts afresh there), in a
//! grammar whose file is a run of items each parsed from the state the file starts in; items
//! are grouped into runs of at least [`MIN_CHUNK`] bytes, so a file has few places.

use std::ops::Range;

use tree_sitter::{Node, Tree, TreeCursor};

use crate::lang::Language;

/// The grammars whose top-level items parse alone as they do in the file (checked by the
/// tests on every grammar listed). Not PHP (a file starts in HTML until `<?php`), not the
/// markup and configuration grammars (one item, or nesting by indentation).
pub const GRAMMARS: &[&str] = &["c", "cpp", "rust", "go", "python", "java", "javascript", "typescript", "tsx"];

/// A run of items is cut after it reaches this many bytes.
const MIN_CHUNK: u32 = 512;

/// Byte offsets where a parse may start or stop (the first is 0, the last the file's length),
/// and per run between them, the fingerprint of its syntax in the whole file's parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outline {
    bounds: Vec<u32>,
    prints: Vec<u64>,
    scheme: Scheme,
}

/// What a fingerprint reads of the items of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// Every node of every item: the outlines of records made before the second scheme, which
    /// are still read (their records are not made again for it).
    EveryNode,
    /// Each item's own node and its children, and every node only of an item that holds an
    /// error (see [`hash_item`]).
    Items,
}

/// The first byte of a stored outline of a scheme after the first (whose first byte starts the
/// length of a run, never 0), followed by the scheme's number.
const SCHEME_MARK: u8 = 0;

impl Outline {
    /// The outline of a file whose whole parse is `tree`; `None` when the grammar is not one
    /// whose items parse alone, or the file is one run of items.
    pub fn of(language: &Language, tree: &Tree, len: usize) -> Option<Outline> {
        let root = tree.root_node();
        if !GRAMMARS.contains(&language.grammar) || len > u32::MAX as usize {
            return None;
        }
        let mut bounds = vec![0u32];
        let mut cursor = root.walk();
        for item in root.named_children(&mut cursor) {
            let start = item.start_byte() as u32;
            if item.start_position().column == 0 && start >= bounds[bounds.len() - 1] + MIN_CHUNK {
                bounds.push(start);
            }
        }
        // A last run shorter than the others joins the one before.
        if bounds.len() > 1 && (len as u32) < bounds[bounds.len() - 1] + MIN_CHUNK / 2 {
            bounds.pop();
        }
        if bounds.len() < 2 {
            return None;
        }
        bounds.push(len as u32);
        let prints = fingerprints(root, &bounds, Scheme::Items);
        Some(Outline { bounds, prints, scheme: Scheme::Items })
    }

    /// The file's length the outline was made for.
    pub fn len(&self) -> usize {
        self.bounds.last().map_or(0, |&b| b as usize)
    }

    /// Always false: an outline has at least two runs.
    pub fn is_empty(&self) -> bool {
        self.bounds.len() < 2
    }

    /// The runs of items, in order.
    pub fn runs(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.bounds.windows(2).map(|pair| pair[0] as usize..pair[1] as usize)
    }

    /// Whether `tree`, a parse of some runs of this outline's file alone, has the syntax the
    /// whole file's parse has in each run it covers (`region`: the byte range parsed).
    pub fn agrees(&self, tree: &Tree, region: &Range<usize>) -> bool {
        // The runs inside the region are consecutive: from the first starting at or after its
        // start to the last ending at or before its end.
        let first = self.bounds.partition_point(|&b| (b as usize) < region.start);
        let last = self.bounds.partition_point(|&b| (b as usize) <= region.end);
        if last <= first + 1 {
            return true;
        }
        fingerprints(tree.root_node(), &self.bounds[first..last], self.scheme) == self.prints[first..last - 1]
    }

    /// The stored form: the scheme's mark and number (none for the first), then per run, its
    /// length as a LEB128 number and its fingerprint in 8 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.prints.len() * 11 + 2);
        if self.scheme == Scheme::Items {
            out.extend_from_slice(&[SCHEME_MARK, 2]);
        }
        for (pair, print) in self.bounds.windows(2).zip(&self.prints) {
            let mut value = pair[1] - pair[0];
            loop {
                let byte = (value & 0x7f) as u8;
                value >>= 7;
                if value == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
            out.extend_from_slice(&print.to_le_bytes());
        }
        out
    }

    /// From the stored form; `None` when it does not decode.
    pub fn decode(mut data: &[u8]) -> Option<Outline> {
        let scheme = match data {
            [SCHEME_MARK, 2, rest @ ..] => {
                data = rest;
                Scheme::Items
            }
            [SCHEME_MARK, ..] => return None,
            _ => Scheme::EveryNode,
        };
        let mut bounds = vec![0u32];
        let mut prints = Vec::new();
        while !data.is_empty() {
            let (mut gap, mut shift) = (0u32, 0u32);
            loop {
                let (&byte, rest) = data.split_first()?;
                data = rest;
                if shift > 28 {
                    return None;
                }
                gap |= u32::from(byte & 0x7f) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            let (print, rest) = data.split_first_chunk::<8>()?;
            data = rest;
            bounds.push(bounds[bounds.len() - 1].checked_add(gap).filter(|_| gap > 0)?);
            prints.push(u64::from_le_bytes(*print));
        }
        (bounds.len() > 2).then_some(Outline { bounds, prints, scheme })
    }
}

/// Per run between consecutive `bounds`, the fingerprint of the syntax of the top-level items
/// of `root` that start in it, read as `scheme` says. One walk along the items for all runs (a
/// file may have thousands of items).
fn fingerprints(root: Node<'_>, bounds: &[u32], scheme: Scheme) -> Vec<u64> {
    let mut hashes: Vec<Fingerprint> = (1..bounds.len()).map(|_| Fingerprint(0x9e37_79b9_7f4a_7c15)).collect();
    let mut cursor = root.walk();
    let mut run = 0;
    if cursor.goto_first_child() {
        loop {
            let start = cursor.node().start_byte();
            while run < hashes.len() && start >= bounds[run + 1] as usize {
                run += 1;
            }
            if run == hashes.len() {
                break;
            }
            if start >= bounds[run] as usize {
                match scheme {
                    Scheme::Items => hash_item(&mut cursor, &mut hashes[run]),
                    Scheme::EveryNode => hash_every_node(&mut cursor, &mut hashes[run]),
                }
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    hashes.into_iter().map(|h| h.0).collect()
}

/// Adds the item under `cursor`: its kind, field, place, whether it is missing or holds an
/// error, and how many nodes are below it (kept in every node); then the same of each node
/// below it when it holds an error (error recovery may arrange the same nodes otherwise), else
/// of its children only. Walking every item's whole subtree cost a fifth of the whole parse;
/// an item without an error parsed from the same state reads the same. Leaves the cursor on
/// the item.
fn hash_item(cursor: &mut TreeCursor<'_>, hash: &mut Fingerprint) {
    let deep = cursor.node().has_error();
    visit_item(cursor, deep, &mut |cursor| hash_node(cursor, hash));
}

/// Adds the item under `cursor` and every node below it, each by its kind, field, place and
/// whether it is missing (the first scheme); leaves the cursor on the item.
fn hash_every_node(cursor: &mut TreeCursor<'_>, hash: &mut Fingerprint) {
    visit_item(cursor, true, &mut |cursor| {
        let node = cursor.node();
        let field = cursor.field_id().map_or(0, |f| u64::from(f.get()));
        hash.add(u64::from(node.kind_id()) | (field << 16) | (u64::from(node.is_missing()) << 32));
        hash.add(((node.start_byte() as u64) << 32) | node.end_byte() as u64);
    });
}

/// Visits the node under `cursor`, then its children, and with `deep` every node below them,
/// in order; leaves the cursor on the node.
fn visit_item(cursor: &mut TreeCursor<'_>, deep: bool, visit: &mut dyn FnMut(&TreeCursor<'_>)) {
    visit(cursor);
    if !cursor.goto_first_child() {
        return;
    }
    let mut depth = 0usize;
    loop {
        visit(cursor);
        if deep && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            cursor.goto_parent();
            if depth == 0 {
                return;
            }
            depth -= 1;
        }
    }
}

fn hash_node(cursor: &TreeCursor<'_>, hash: &mut Fingerprint) {
    let node = cursor.node();
    let field = cursor.field_id().map_or(0, |f| u64::from(f.get()));
    let flags = u64::from(node.is_missing()) | u64::from(node.has_error()) << 1;
    hash.add(u64::from(node.kind_id()) | (field << 16) | (flags << 32));
    hash.add(((node.start_byte() as u64) << 32) | node.end_byte() as u64);
    hash.add(node.descendant_count() as u64);
}

/// A 64-bit running hash of words (the multiply-rotate mix of FxHash): a check that two parses
/// agree, not a defence against chosen input.
struct Fingerprint(u64);

impl Fingerprint {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// The byte ranges of the runs of `outline` that hold a byte of one of `spans` (in order; an
/// empty span is the byte at its place), adjacent runs joined.
pub fn regions(outline: &Outline, spans: &[(usize, usize)]) -> Vec<Range<usize>> {
    let bounds = &outline.bounds;
    let mut out: Vec<Range<usize>> = Vec::new();
    for &(start, end) in spans {
        let end = end.max(start + 1).min(outline.len());
        if start >= end {
            continue;
        }
        // The runs from the one holding `start` to the one holding `end - 1`.
        let first = bounds.partition_point(|&b| b as usize <= start) - 1;
        let last = bounds.partition_point(|&b| (b as usize) < end) - 1;
        let range = bounds[first] as usize..bounds[last + 1] as usize;
        match out.last_mut() {
            Some(previous) if range.start <= previous.end => previous.end = previous.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(bounds: &[u32]) -> Outline {
        Outline {
            bounds: bounds.to_vec(),
            prints: (0..bounds.len() as u64 - 1).map(|i| i << 60 | i).collect(),
            scheme: Scheme::Items,
        }
    }

    #[test]
    fn an_outline_comes_back_from_its_stored_form() {
        let o = outline(&[0, 512, 700, 100_000, 100_001]);
        assert_eq!(Outline::decode(&o.encode()), Some(o.clone()));
        // Cut short, a zero gap, or fewer than two runs do not decode.
        let stored = o.encode();
        assert_eq!(Outline::decode(&stored[..stored.len() - 1]), None);
        assert_eq!(Outline::decode(&[0x80]), None);
        assert_eq!(Outline::decode(&[[5].as_slice(), &[0; 8], &[0], &[0; 8]].concat()), None);
        assert_eq!(Outline::decode(&[[5].as_slice(), &[0; 8]].concat()), None);
        assert_eq!(Outline::decode(&[]), None);
        // Stored before the mark existed: the first scheme; an unknown scheme does not decode.
        let first = Outline { scheme: Scheme::EveryNode, ..o.clone() };
        assert_eq!(first.encode(), stored[2..]);
        assert_eq!(Outline::decode(&stored[2..]), Some(first));
        assert_eq!(Outline::decode(&[[SCHEME_MARK, 3].as_slice(), &stored[2..]].concat()), None);
    }

    #[test]
    fn an_outline_stored_by_the_first_scheme_agrees_where_the_second_does() {
        let language = crate::lang::by_name("c").unwrap();
        let mut source = String::new();
        for i in 0..40 {
            if i % 7 == 3 {
                source.push_str("int broken(;\nstatic int (*table[])(void) = { f, g, };\n");
            }
            source.push_str(&format!(
                "/* {i} */\nstatic int copy_{i}(struct buf *b, const char *s)\n{{\n\tif (!b)\n\t\tgoto out;\n\
                 \tmemcpy(b->data, s, b->len);\nout:\n\treturn {i};\n}}\n\n#define LIMIT_{i} {i}\n"
            ));
        }
        let data = source.as_bytes();
        let whole = super::super::parse::parse_whole(language, data).unwrap();
        let second = Outline::of(language, &whole, data.len()).unwrap();
        let first = Outline {
            prints: fingerprints(whole.root_node(), &second.bounds, Scheme::EveryNode),
            scheme: Scheme::EveryNode,
            ..second.clone()
        };
        let runs: Vec<Range<usize>> = second.runs().collect();
        let mut agreed = 0;
        for region in runs.iter().cloned().chain(runs.windows(2).map(|p| p[0].start..p[1].end)) {
            let start = tree_sitter::Point { row: source[..region.start].matches('\n').count(), column: 0 };
            let end = tree_sitter::Point { row: source[..region.end].matches('\n').count(), column: 0 };
            let range = tree_sitter::Range {
                start_byte: region.start,
                end_byte: region.end,
                start_point: start,
                end_point: end,
            };
            let tree = super::super::parse::parse_in(language, data, &[range]).unwrap();
            assert_eq!(first.agrees(&tree, &region), second.agrees(&tree, &region), "{region:?}");
            agreed += usize::from(second.agrees(&tree, &region));
        }
        assert!(agreed > runs.len(), "{agreed} of {} regions agreed", runs.len() * 2 - 1);
    }

    #[test]
    fn regions_are_the_runs_the_spans_touch_joined() {
        let o = outline(&[0, 100, 200, 300, 400]);
        assert_eq!(regions(&o, &[(150, 160)]), vec![100..200]);
        // A span across a place takes both runs; an empty span its byte's run.
        assert_eq!(regions(&o, &[(190, 210), (300, 300)]), vec![100..400]);
        assert_eq!(regions(&o, &[(0, 1), (399, 400)]), [0..100, 300..400]);
        assert_eq!(regions(&o, &[(100, 100), (250, 260)]), vec![100..300]);
        // A span past the end touches nothing.
        assert_eq!(regions(&o, &[(400, 410)]), Vec::<Range<usize>>::new());
    }
}
