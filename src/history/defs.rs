//! The definitions of one side of a change: from the blob's record when one exists, else
//! parsed from its content in memory. History keeps no record of the blobs only its commits
//! hold (a whole history's records would be many times the size of a commit's index); a view
//! that later holds one of them parses it as usual.

use tree_sitter::{InputEdit, Point, Tree};

use super::pickaxe;
use crate::extract::{self, Role};
use crate::store::SymbolRow;

/// A definition, as history compares them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    /// Its name.
    pub name: String,
    /// With its enclosing scopes.
    pub qualified_name: String,
    /// Its kind.
    pub kind: String,
    /// Its head without the body.
    pub signature: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Byte range start.
    pub byte_start: u32,
    /// Byte range end (exclusive).
    pub byte_end: u32,
}

impl From<SymbolRow> for Def {
    fn from(s: SymbolRow) -> Def {
        Def {
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind,
            signature: s.signature,
            line_start: s.line_start,
            line_end: s.line_end,
            byte_start: s.byte_start,
            byte_end: s.byte_end,
        }
    }
}

/// The definitions of `data` read as the language `lang` (`""`: none), parsed now. Content
/// above `max_file_size` or binary has none, as its record would have none.
pub fn parse(lang: &str, data: &[u8], max_file_size: u64) -> Vec<Def> {
    parse_after(lang, data, max_file_size, None, None).0
}

/// [`parse`], from the tree of another version of the same file and the [`edits`] that make
/// that version this one (`before`): tree-sitter re-reads only around them, and the
/// definitions are a whole parse's (`extract::definitions_after`); with `named`, only those
/// of these names (ASCII case aside). With the tree of `data`, for the next version to be
/// parsed from. Without edits (the same content: a side read again for all its definitions),
/// the tree given is `data`'s own and is not parsed again.
pub fn parse_after(
    lang: &str,
    data: &[u8],
    max_file_size: u64,
    before: Option<(&Tree, &[InputEdit])>,
    named: Option<&[&str]>,
) -> (Vec<Def>, Option<Tree>) {
    if lang.is_empty() || data.len() as u64 > max_file_size || crate::indexer::is_binary(data) {
        return (Vec::new(), None);
    }
    let Some(language) = crate::lang::by_name(lang) else {
        return (Vec::new(), None);
    };
    // No edits: the versions' lines, terminators and all, are the same, so is their content,
    // and the tree is this content's own.
    let edited = before.filter(|(_, edits)| !edits.is_empty()).map(|(tree, edits)| {
        let mut tree = tree.clone();
        for edit in edits {
            tree.edit(edit);
        }
        tree
    });
    let prior = match (before, &edited) {
        (_, Some(edited)) => extract::Prior::Edited(edited),
        (Some((tree, _)), None) => extract::Prior::Parsed(tree),
        (None, None) => extract::Prior::None,
    };
    let (extraction, tree) = extract::definitions_after(language, data, prior, named);
    let defs = extraction
        .symbols
        .into_iter()
        .filter(|s| s.role == Role::Definition)
        .map(|s| Def {
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind.to_owned(),
            signature: s.signature,
            line_start: s.line_start,
            line_end: s.line_end,
            byte_start: s.byte_start,
            byte_end: s.byte_end,
        })
        .collect();
    (defs, tree)
}

/// The edits that make `old` into `new`, one per hunk of a line diff of the two, last first:
/// each is given in `old`'s coordinates, which the edits after it (further down) leave as they
/// were.
pub fn edits(old: &[u8], new: &[u8]) -> Vec<InputEdit> {
    let (old_lines, new_lines) = (pickaxe::split_lines(old), pickaxe::split_lines(new));
    let starts = |lines: &[&[u8]]| {
        let mut at = 0;
        let mut out = Vec::with_capacity(lines.len() + 1);
        out.push(0);
        for line in lines {
            at += line.len();
            out.push(at);
        }
        out
    };
    let (old_at, new_at) = (starts(&old_lines), starts(&new_lines));
    // Where the start of line `k` is; past the last line, the end of the content, which is
    // on the last line when it has no newline.
    let point = |data: &[u8], at: &[usize], k: usize| {
        if k + 1 < at.len() || data.is_empty() || data.ends_with(b"\n") {
            Point { row: k, column: 0 }
        } else {
            Point { row: k - 1, column: data.len() - at[k - 1] }
        }
    };
    let mut out = Vec::new();
    for (before, after) in pickaxe::changed_ranges(&old_lines, &new_lines).into_iter().rev() {
        let (a, b) = (before.start as usize, before.end as usize);
        let (c, d) = (after.start as usize, after.end as usize);
        let new_end = point(new, &new_at, d);
        out.push(InputEdit {
            start_byte: old_at[a],
            old_end_byte: old_at[b],
            new_end_byte: old_at[a] + (new_at[d] - new_at[c]),
            start_position: point(old, &old_at, a),
            old_end_position: point(old, &old_at, b),
            // Rows of `new` from its line `c` on are the edited tree's from `old`'s line `a` on.
            new_end_position: Point { row: (new_end.row + a).saturating_sub(c), column: new_end.column },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where byte `at` of `data` is, as tree-sitter counts rows and columns.
    fn point_of(data: &[u8], at: usize) -> Point {
        let before = &data[..at];
        let row = before.iter().filter(|&&b| b == b'\n').count();
        let column = before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        Point { row, column }
    }

    /// A small deterministic generator of versions.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }
    }

    /// Another version of `data`: blocks of lines deleted, copied elsewhere, lines inserted,
    /// the last newline dropped or added.
    fn edit_randomly(data: &[u8], rng: &mut Rng) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = pickaxe::split_lines(data).into_iter().map(<[u8]>::to_vec).collect();
        for _ in 0..1 + rng.below(3) {
            match rng.below(5) {
                0 if !lines.is_empty() => {
                    let at = rng.below(lines.len());
                    let end = (at + 1 + rng.below(5)).min(lines.len());
                    lines.drain(at..end);
                }
                1 if !lines.is_empty() => {
                    let from = rng.below(lines.len());
                    let end = (from + 1 + rng.below(8)).min(lines.len());
                    let block: Vec<Vec<u8>> = lines[from..end].to_vec();
                    let to = rng.below(lines.len() + 1);
                    lines.splice(to..to, block);
                }
                2 => {
                    let to = rng.below(lines.len() + 1);
                    lines.insert(to, b"    x = compute(1, 2)\n".to_vec());
                }
                3 if !lines.is_empty() => {
                    let at = rng.below(lines.len());
                    lines[at].splice(0..0, b"renamed_".iter().copied());
                }
                _ => {}
            }
        }
        let mut out: Vec<u8> = lines.concat();
        match rng.below(6) {
            0 if out.ends_with(b"\n") => {
                out.pop();
            }
            1 if !out.ends_with(b"\n") => out.push(b'\n'),
            _ => {}
        }
        out
    }

    #[test]
    fn the_edits_make_the_old_content_the_new_one_with_its_rows_and_columns() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let base = b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\nlast line without newline".to_vec();
        let mut pairs = vec![
            (Vec::new(), b"x\n".to_vec()),
            (b"x\n".to_vec(), Vec::new()),
            (b"x".to_vec(), b"x\ny\n".to_vec()),
            (b"x\ny\n".to_vec(), b"x".to_vec()),
            (b"a\r\nb\r\n".to_vec(), b"a\r\nc\r\nb\r\n".to_vec()),
        ];
        let mut version = base.clone();
        for _ in 0..300 {
            let next = edit_randomly(&version, &mut rng);
            pairs.push((version, next.clone()));
            version = if rng.below(4) == 0 { base.clone() } else { next };
        }
        for (old, new) in pairs {
            let mut doc = old.clone();
            let mut last_start = usize::MAX;
            for edit in edits(&old, &new) {
                // Last first: each edit lies above the ones before it.
                assert!(edit.old_end_byte <= last_start, "{edit:?}");
                last_start = edit.start_byte;
                assert_eq!(edit.start_position, point_of(&doc, edit.start_byte));
                assert_eq!(edit.old_end_position, point_of(&doc, edit.old_end_byte));
                let inserted = edit.new_end_byte - edit.start_byte;
                // What follows the edit in `doc` is already `new`'s tail.
                let tail = doc[edit.old_end_byte..].to_vec();
                assert!(new.ends_with(&tail));
                let replacement = new[new.len() - tail.len() - inserted..new.len() - tail.len()].to_vec();
                doc.splice(edit.start_byte..edit.old_end_byte, replacement);
                assert_eq!(edit.new_end_position, point_of(&doc, edit.new_end_byte));
            }
            assert_eq!(doc, new, "{:?} -> {:?}", String::from_utf8_lossy(&old), String::from_utf8_lossy(&new));
        }
    }

    #[test]
    fn a_version_read_again_from_its_own_tree_is_not_parsed_again() {
        // Every language's corpus file, syntax errors and all: its tree, given back with no
        // edits, is the one the answer comes from (the same nodes), and the definitions are a
        // whole parse's.
        let files = crate::extract::tests::files_under(&["tests/corpus"]);
        let mut read = 0;
        for path in files {
            let Some(language) = crate::lang::detect_by_path(path.to_string_lossy().as_bytes()) else { continue };
            let source = std::fs::read(&path).unwrap();
            let (whole, tree) = parse_after(language.name, &source, u64::MAX, None, Some(&["no_such_name"]));
            let Some(tree) = tree else { continue };
            let (again, next) = parse_after(language.name, &source, u64::MAX, Some((&tree, &[])), None);
            assert_eq!(again, parse(language.name, &source, u64::MAX), "{}", path.display());
            assert!(whole.is_empty(), "{}", path.display());
            // A node's id is where its subtree is: a copy of a tree shares its root's children,
            // a parse (even from the tree) makes new ones.
            let first_child = |t: &Tree| t.root_node().child(0).map(|n| n.id());
            assert!(first_child(&tree).is_some(), "{}", path.display());
            assert_eq!(next.as_ref().and_then(first_child), first_child(&tree), "{}", path.display());
            read += 1;
        }
        assert!(read >= 20, "{read} files");
    }

    #[test]
    fn definitions_parsed_from_another_version_are_a_whole_parse() {
        // Every language's corpus file, and some of this crate's sources as larger real code,
        // through chains of versions with lines deleted, copied and inserted (many of them
        // syntax errors), each parsed from the tree of the one before.
        let files = crate::extract::tests::files_under(&["tests/corpus", "src/history"]);
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut compared = std::collections::BTreeSet::new();
        // Steps parsed from a tree and without a syntax error, which were not parsed again.
        let (mut steps, mut reused) = (0, 0);
        for path in files {
            let Some(language) = crate::lang::detect_by_path(path.to_string_lossy().as_bytes()) else { continue };
            let original = std::fs::read(&path).unwrap();
            let mut version = original.clone();
            let (mut tree, mut previous) = (None, Vec::new());
            for step in 0..8 {
                let edits = edits(&previous, &version);
                let before = tree.as_ref().map(|t| (t, edits.as_slice()));
                let (defs, next) = parse_after(language.name, &version, u64::MAX, before, None);
                assert_eq!(defs, parse(language.name, &version, u64::MAX), "{} step {step}", path.display());
                compared.insert(language.name);
                steps += 1;
                reused += usize::from(before.is_some() && next.as_ref().is_some_and(|t| !t.root_node().has_error()));
                (tree, previous) = (next, version.clone());
                // Back to the original every other step (without syntax errors, so parsed from
                // the tree before): history's versions are mostly sound code.
                version = if step % 2 == 1 { original.clone() } else { edit_randomly(&version, &mut rng) };
            }
        }
        assert!(compared.len() >= 20, "{compared:?}");
        assert!(reused * 3 >= steps, "{reused} of {steps} steps parsed from a tree");
    }
}
