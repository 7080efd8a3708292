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
//!
//! A container item (a class, an impl block, a C++ namespace, a function, a test's callback)
//! is cut again at the items of its body, and a container among those items again (see
//! [`containers`]): a run of them is parsed with the headers of the containers around it before
//! it and their footers after it (the line `class Session:`, a method's signature, the closing
//! braces), so a question about one statement of a large method parses that statement's run,
//! not the class (Python's and Java's files are often one class).

mod containers;
mod regions;

use std::ops::Range;

use tree_sitter::{Node, Tree, TreeCursor};

use crate::lang::Language;
#[cfg(test)]
pub use containers::chain_kinds;
pub use containers::families_inside;
use containers::{Nested, body_of};
pub use regions::{Region, regions};

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
    /// The container items whose bodies are cut again, in order.
    nested: Vec<Nested>,
}

/// What a fingerprint reads of the items of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// Every node of every item: the outlines of records made before the second scheme, which
    /// are still read (their records are not made again for it).
    EveryNode,
    /// Each item's own node and its children, and every node only of an item that holds an
    /// error (see [`hash_item`]). Stored as scheme 2 without container items cut again, as
    /// scheme 5 with them.
    Items,
    /// As `Items`, leaving out comments and other extras: the runs of a container's items
    /// (a parse of a run alone may attach the comments before its first item to the
    /// container rather than to its body). Never an outline's own scheme.
    Members,
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
        bounds.push(len as u32);
        let mut nested = Vec::new();
        for item in root.named_children(&mut cursor) {
            let run = bounds.partition_point(|&b| b as usize <= item.start_byte()) - 1;
            containers::cut(language.grammar, run, None, (item, item.start_byte()), containers::MAX_DEPTH, &mut nested);
        }
        if bounds.len() < 3 && nested.is_empty() {
            return None;
        }
        let prints = fingerprints(root, &bounds, Scheme::Items);
        Some(Outline { bounds, prints, scheme: Scheme::Items, nested })
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

    /// The same outline with the fingerprints of its containers' runs changed: as if each run
    /// of a container's items read otherwise alone.
    #[cfg(test)]
    pub fn with_container_prints_changed(mut self) -> Outline {
        for nested in &mut self.nested {
            nested.prints.iter_mut().for_each(|p| *p = !*p);
        }
        self
    }

    /// Whether a container item of the file is cut again at its items.
    pub fn has_containers(&self) -> bool {
        !self.nested.is_empty()
    }

    /// The same outline with only the container items of the families in `mask` (a bit each,
    /// see [`families_inside`]) cut again: for a question whose matches may be a container of
    /// another family (a query for classes keeps none of classes, a query for functions none of
    /// functions).
    pub fn keep_families(mut self, mask: u32) -> Outline {
        // A container is kept with all that holds it: its parse has their headers.
        let mut kept_as: Vec<Option<u32>> = Vec::with_capacity(self.nested.len());
        let mut kept = Vec::with_capacity(self.nested.len());
        for nested in std::mem::take(&mut self.nested) {
            let parent = match nested.parent {
                None => Some(None),
                Some(p) => kept_as[p as usize].map(Some),
            };
            match parent {
                Some(parent) if mask & (1 << nested.family) != 0 => {
                    kept_as.push(Some(kept.len() as u32));
                    kept.push(Nested { parent, ..nested });
                }
                _ => kept_as.push(None),
            }
        }
        self.nested = kept;
        self
    }

    /// The containers from the outermost to container `n`: `n` and those whose bodies hold it.
    fn chain(&self, n: usize) -> Vec<usize> {
        let mut chain = vec![n];
        while let Some(parent) = self.nested[chain[chain.len() - 1]].parent {
            chain.push(parent as usize);
        }
        chain.reverse();
        chain
    }

    /// Whether `tree`, a parse of `region` of this outline's file alone (its ranges as if the
    /// rest of the file were not there), has the syntax the whole file's parse has in each run
    /// the region covers. `grammar` is the file's.
    pub fn agrees(&self, tree: &Tree, region: &Region, grammar: &str) -> bool {
        match region.nested {
            None => agree(tree.root_node(), &self.bounds, &self.prints, self.scheme, &region.runs),
            Some(n) => {
                // Down from the file through each container's body to container `n`'s.
                let mut body = tree.root_node();
                for i in self.chain(n) {
                    let nested = &self.nested[i];
                    let mut cursor = body.walk();
                    // The first item from where its parse starts (its line's indentation is
                    // no node).
                    let item = body.named_children(&mut cursor).find(|c| c.start_byte() >= nested.start as usize);
                    match item.and_then(|item| body_of(grammar, item)) {
                        Some((family, inner)) if family == nested.family => body = inner,
                        _ => return false,
                    }
                }
                let nested = &self.nested[n];
                agree(body, &nested.bounds, &nested.prints, Scheme::Members, &region.runs)
            }
        }
    }

    /// The stored form: the scheme's mark and number (none for the first), then per run, its
    /// length as a LEB128 number and its fingerprint in 8 bytes. Scheme 5 (container items cut
    /// again; 3 and 4 were earlier forms of it, not read) counts the runs and the container
    /// items first, and adds per container item: its run, its family, the container holding
    /// it (its place plus one, 0 for none), its start from the run's, its header's length, its
    /// number of runs, their lengths and fingerprints, and its footer's length.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.prints.len() * 11 + 2);
        match self.scheme {
            Scheme::EveryNode | Scheme::Members => {}
            Scheme::Items if self.nested.is_empty() => out.extend_from_slice(&[SCHEME_MARK, 2]),
            Scheme::Items => {
                out.extend_from_slice(&[SCHEME_MARK, 5]);
                put(&mut out, self.prints.len() as u32);
                put(&mut out, self.nested.len() as u32);
            }
        }
        put_runs(&mut out, &self.bounds, &self.prints);
        for nested in &self.nested {
            put(&mut out, nested.run);
            out.push(nested.family);
            put(&mut out, nested.parent.map_or(0, |p| p + 1));
            put(&mut out, nested.start - self.bounds[nested.run as usize]);
            put(&mut out, nested.bounds[0] - nested.start);
            put(&mut out, nested.prints.len() as u32);
            put_runs(&mut out, &nested.bounds, &nested.prints);
            put(&mut out, nested.end - nested.bounds[nested.bounds.len() - 1]);
        }
        out
    }

    /// From the stored form; `None` when it does not decode.
    pub fn decode(mut data: &[u8]) -> Option<Outline> {
        let (scheme, runs, containers) = match data {
            [SCHEME_MARK, 2, rest @ ..] => {
                data = rest;
                (Scheme::Items, None, 0)
            }
            [SCHEME_MARK, 5, rest @ ..] => {
                data = rest;
                let runs = take(&mut data)?;
                (Scheme::Items, Some(runs), take(&mut data)?)
            }
            [SCHEME_MARK, ..] => return None,
            _ => (Scheme::EveryNode, None, 0),
        };
        let (bounds, prints) = take_runs(&mut data, 0, runs)?;
        let mut nested: Vec<Nested> = Vec::new();
        for _ in 0..containers {
            let run = take(&mut data)?;
            if run as usize >= prints.len() {
                return None;
            }
            let run_start = bounds[run as usize];
            let (&family, rest) = data.split_first().filter(|(family, _)| **family < 32)?;
            data = rest;
            let parent = match take(&mut data)? {
                0 => None,
                p => Some(Some(p - 1).filter(|&p| (p as usize) < nested.len())?),
            };
            let start = run_start.checked_add(take(&mut data)?)?;
            let first = start.checked_add(take(&mut data)?)?;
            let count = take(&mut data)?;
            let (inner, inner_prints) = take_runs(&mut data, first, Some(count))?;
            let end = inner[inner.len() - 1].checked_add(take(&mut data)?)?;
            // In the file's order; inside the run, and inside the body of the container that
            // holds it or after the previous top-level container.
            let in_order = nested.last().is_none_or(|n| (n.run, n.start) < (run, start));
            let placed = match parent {
                Some(p) => {
                    let p = &nested[p as usize];
                    p.run == run && p.bounds[0] <= start && end <= p.bounds[p.bounds.len() - 1]
                }
                None => nested.iter().rev().find(|n| n.parent.is_none()).is_none_or(|n| n.end <= start),
            };
            if !in_order || !placed || first == start || end > bounds[run as usize + 1] {
                return None;
            }
            nested.push(Nested { run, family, parent, start, bounds: inner, prints: inner_prints, end });
        }
        (data.is_empty() && (bounds.len() > 2 || !nested.is_empty())).then_some(Outline {
            bounds,
            prints,
            scheme,
            nested,
        })
    }
}

/// Whether the items of `parent` in the runs of `bounds` that `region` covers have the
/// fingerprints `prints` (read as `scheme`).
fn agree(parent: Node<'_>, bounds: &[u32], prints: &[u64], scheme: Scheme, region: &Range<usize>) -> bool {
    // The runs inside the region are consecutive: from the first starting at or after its
    // start to the last ending at or before its end.
    let first = bounds.partition_point(|&b| (b as usize) < region.start);
    let last = bounds.partition_point(|&b| (b as usize) <= region.end);
    if last <= first + 1 {
        return true;
    }
    fingerprints(parent, &bounds[first..last], scheme) == prints[first..last - 1]
}

/// Writes `value` as a LEB128 number.
fn put(out: &mut Vec<u8>, mut value: u32) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads a LEB128 number.
fn take(data: &mut &[u8]) -> Option<u32> {
    let (mut value, mut shift) = (0u32, 0u32);
    loop {
        let (&byte, rest) = data.split_first()?;
        *data = rest;
        if shift > 28 {
            return None;
        }
        value |= u32::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
}

/// Writes per run between `bounds` its length and its fingerprint.
fn put_runs(out: &mut Vec<u8>, bounds: &[u32], prints: &[u64]) {
    for (pair, print) in bounds.windows(2).zip(prints) {
        put(out, pair[1] - pair[0]);
        out.extend_from_slice(&print.to_le_bytes());
    }
}

/// Reads `count` runs (all that is left with `None`) from `start`: their bounds and prints.
fn take_runs(data: &mut &[u8], start: u32, count: Option<u32>) -> Option<(Vec<u32>, Vec<u64>)> {
    let mut bounds = vec![start];
    let mut prints = Vec::new();
    while count.map_or(!data.is_empty(), |c| prints.len() < c as usize) {
        let gap = take(data)?;
        let (print, rest) = data.split_first_chunk::<8>()?;
        *data = rest;
        bounds.push(bounds[bounds.len() - 1].checked_add(gap).filter(|_| gap > 0)?);
        prints.push(u64::from_le_bytes(*print));
    }
    (bounds.len() >= 2).then_some((bounds, prints))
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
                    Scheme::Members if cursor.node().is_extra() => {}
                    Scheme::Members => hash_item(&mut cursor, &mut hashes[run]),
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn outline(bounds: &[u32]) -> Outline {
        Outline {
            bounds: bounds.to_vec(),
            prints: (0..bounds.len() as u64 - 1).map(|i| i << 60 | i).collect(),
            scheme: Scheme::Items,
            nested: Vec::new(),
        }
    }

    /// An outline of runs 0..100, 100..400, 400..500 whose second run holds a container from
    /// 120 to 390: header to 150, items at 150, 200 and 300, the last ending at 380.
    pub(super) fn with_container() -> Outline {
        let mut o = outline(&[0, 100, 400, 500]);
        o.nested.push(Nested {
            run: 1,
            family: 0,
            parent: None,
            start: 120,
            bounds: vec![150, 200, 300, 380],
            prints: vec![7, 8, 9],
            end: 390,
        });
        o
    }

    /// [`with_container`] whose item run 200..300 holds a container of another family from
    /// 210 to 295: header to 230, items at 230, 250 and 280, the last ending at 290.
    pub(super) fn with_containers_inside() -> Outline {
        let mut o = with_container();
        o.nested.push(Nested {
            run: 1,
            family: 1,
            parent: Some(0),
            start: 210,
            bounds: vec![230, 250, 280, 290],
            prints: vec![4, 5, 6],
            end: 295,
        });
        o
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
        assert_eq!(Outline::decode(&[[SCHEME_MARK, 6].as_slice(), &stored[2..]].concat()), None);
    }

    #[test]
    fn an_outline_with_a_container_comes_back_from_its_stored_form() {
        let o = with_container();
        let stored = o.encode();
        assert_eq!(&stored[..2], &[SCHEME_MARK, 5]);
        // The earlier forms of it (schemes 3 and 4) are not read.
        for earlier in [3, 4] {
            assert_eq!(Outline::decode(&[[SCHEME_MARK, earlier].as_slice(), &stored[2..]].concat()), None);
        }
        assert_eq!(Outline::decode(&stored), Some(o.clone()));
        for cut in 1..stored.len() - 2 {
            assert_eq!(Outline::decode(&stored[..stored.len() - cut]), None, "cut {cut}");
        }
        // Without it, the second scheme's form, byte for byte.
        assert_eq!(o.clone().keep_families(0b10).encode(), outline(&[0, 100, 400, 500]).encode());
        assert_eq!(o.clone().keep_families(0b01), o);
        // A container past its run's end, in a run that does not exist, or of a family past
        // the mask's bits does not decode.
        let mut family = o.clone();
        family.nested[0].family = 32;
        assert_eq!(Outline::decode(&family.encode()), None);
        let mut past = o.clone();
        past.nested[0].end = 401;
        assert_eq!(Outline::decode(&past.encode()), None);
        let mut elsewhere = o.clone();
        elsewhere.nested[0] = Nested {
            run: 3,
            family: 0,
            parent: None,
            start: 500,
            bounds: vec![510, 520, 530],
            prints: vec![1, 2],
            end: 540,
        };
        assert_eq!(Outline::decode(&elsewhere.encode()), None);
        // A container inside another.
        let inside = with_containers_inside();
        assert_eq!(Outline::decode(&inside.encode()), Some(inside.clone()));
        assert_eq!(inside.clone().keep_families(0b01), o);
        // Without its holder, a container is not kept.
        assert_eq!(inside.clone().keep_families(0b10).nested, Vec::new());
        let mut outside = inside.clone();
        outside.nested[1].end = 391;
        assert_eq!(Outline::decode(&outside.encode()), None);
        let mut orphan = inside.clone();
        orphan.nested[1].parent = Some(1);
        assert_eq!(Outline::decode(&orphan.encode()), None);
        // One run holding a container is an outline.
        let mut one = outline(&[0, 500]);
        one.nested.push(Nested {
            run: 0,
            family: 1,
            parent: None,
            start: 0,
            bounds: vec![50, 200, 400],
            prints: vec![1, 2],
            end: 450,
        });
        assert_eq!(Outline::decode(&one.encode()), Some(one));
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
            let region = Region { ranges: vec![region.clone()], runs: region, nested: None };
            assert_eq!(first.agrees(&tree, &region, "c"), second.agrees(&tree, &region, "c"), "{region:?}");
            agreed += usize::from(second.agrees(&tree, &region, "c"));
        }
        assert!(agreed > runs.len(), "{agreed} of {} regions agreed", runs.len() * 2 - 1);
    }
}
