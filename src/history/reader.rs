//! What `history NAME` reads of each side of a change: its content, and its definitions from
//! the blob's record when one exists, else parsed now. Parsing is most of a history's time, so
//! it is done for many sides at once on all cores, each version of a file from the tree of the
//! version read before it (tree-sitter re-reads only around the lines that differ), and the
//! tracked names' definitions are read first, by matching the query only where a name is
//! spelled; a side's other definitions are read only when a rename is looked for.

use std::collections::{HashMap, HashSet};

use tree_sitter::{InputEdit, Tree};

use super::defs::{self, Def};
use super::symbols::Instance;
use crate::extract::Role;
use crate::git::{LocalRepo, ObjectId};
use crate::store::{ChangedSide, Store, StoreError};

/// A side's key among the definitions read: its blob and the language it is read as (`""`,
/// none, when its path alone skips it).
type Key = (ObjectId, String);

/// A file: its path and the language it is read as.
type File = (Vec<u8>, String);

/// The versions of a file to read, in order, after the one to start from (its blob and tree).
struct Versions {
    file: File,
    from: Option<(ObjectId, Tree)>,
    keys: Vec<Key>,
}

pub(super) struct Reader<'a> {
    store: &'a Store,
    repo: &'a LocalRepo,
    record_key: &'a dyn Fn(&str) -> String,
    max_file_size: u64,
    /// The last segments of the names tracked: what [`Reader::named`] reads.
    names: Vec<String>,
    /// Each side's definitions of the tracked names.
    named: HashMap<Key, Vec<Def>>,
    /// Each side's definitions, all of them.
    symbols: HashMap<Key, Vec<Def>>,
    contents: HashMap<ObjectId, Vec<u8>>,
    /// The trees of the versions parsed since the last [`Reader::next_batch`], and of the last
    /// version of each file parsed before it.
    trees: HashMap<Key, Tree>,
    /// The version of each file (path, language) parsed last, for the next one read (usually
    /// the one before it in history) to be parsed from.
    last: HashMap<File, ObjectId>,
    /// For a pair of blobs (old, new): each new line's old line, where a diff keeps it.
    line_maps: HashMap<(ObjectId, ObjectId), Vec<Option<u32>>>,
    /// Blobs that could not be read (a partial clone).
    missing: HashSet<ObjectId>,
}

/// Versions of one file to parse in order, each from the tree of the one before it (the first
/// from `from`, when given): walking history back, a commit's old side of a file is mostly its
/// new side with a few hunks undone, and tree-sitter re-reads only around them.
struct Chain {
    file: File,
    /// The tree to start from.
    from: Option<Tree>,
    /// The versions in order, each with the edits from the tree before it.
    steps: Vec<(Key, Vec<InputEdit>)>,
    /// Whether this is the last piece of its file's chain.
    last: bool,
}

impl Chain {
    /// Pieces of fewer versions are not split further: the first version of a piece is parsed
    /// whole, several times the cost of one parsed from another.
    const MIN_PIECE: usize = 4;

    /// A version more hunks away from the one before it is parsed whole: tree-sitter then
    /// re-reads about as much, and the versions on either side are parsed at once.
    const MAX_HUNKS: usize = 8;

    /// Splits the longest chains in two until there are at least `threads` pieces to parse at
    /// once and none has more than its share of all the versions, or none is long enough; each
    /// later piece starts from a whole parse.
    fn split(mut chains: Vec<Chain>, threads: usize) -> Vec<Chain> {
        let share = chains.iter().map(|c| c.steps.len()).sum::<usize>().div_ceil(threads.max(1));
        while let Some(longest) = chains.iter().enumerate().max_by_key(|(_, c)| c.steps.len()).map(|(i, _)| i) {
            let len = chains[longest].steps.len();
            if (chains.len() >= threads && len <= share) || len < 2 * Self::MIN_PIECE {
                break;
            }
            let chain = &mut chains[longest];
            let rest = chain.steps.split_off(len / 2);
            let piece = Chain { file: chain.file.clone(), from: None, steps: rest, last: chain.last };
            chain.last = false;
            chains.push(piece);
        }
        chains
    }

    /// Parses each version in order: its definitions (of `named` alone, when given) and tree.
    fn parse(
        self,
        contents: &HashMap<ObjectId, Vec<u8>>,
        max: u64,
        named: Option<&[&str]>,
    ) -> Vec<(Key, Vec<Def>, Option<Tree>)> {
        let mut out: Vec<(Key, Vec<Def>, Option<Tree>)> = Vec::with_capacity(self.steps.len());
        let mut tree = self.from;
        for (key, edits) in self.steps {
            let before = tree.as_ref().map(|t| (t, edits.as_slice()));
            let (defs, next) = defs::parse_after(&key.1, &contents[&key.0], max, before, named);
            tree = next.clone();
            out.push((key, defs, next));
        }
        out
    }
}

impl<'a> Reader<'a> {
    /// The trees of a batch's versions are kept while their sources come to at most this many
    /// bytes.
    const KEPT_TREES_SOURCE: usize = 2 << 20;

    /// The contents read are kept while they come to at most this many bytes.
    const KEPT_CONTENTS: usize = 16 << 20;

    pub fn new(
        store: &'a Store,
        repo: &'a LocalRepo,
        record_key: &'a dyn Fn(&str) -> String,
        max_file_size: u64,
    ) -> Self {
        Reader {
            store,
            repo,
            record_key,
            max_file_size,
            names: Vec::new(),
            named: HashMap::new(),
            symbols: HashMap::new(),
            contents: HashMap::new(),
            trees: HashMap::new(),
            last: HashMap::new(),
            line_maps: HashMap::new(),
            missing: HashSet::new(),
        }
    }

    /// Tracks these names (their last segments) from now on.
    pub fn track(&mut self, names: Vec<String>) {
        if names != self.names {
            self.names = names;
            self.named.clear();
        }
    }

    /// Forgets the trees of the versions read so far, but the last of each file, and their
    /// contents too once these come to more than [`Reader::KEPT_CONTENTS`]: the sides of the
    /// commits about to be read are parsed next. (A content asked for again, for a definition's
    /// text, is read again.)
    pub fn next_batch(&mut self) {
        let last: HashSet<Key> = self.last.iter().map(|((_, lang), blob)| (*blob, lang.clone())).collect();
        let (kept, done): (HashMap<Key, Tree>, HashMap<Key, Tree>) =
            std::mem::take(&mut self.trees).into_iter().partition(|(key, _)| last.contains(key));
        self.trees = kept;
        if self.contents.values().map(Vec::len).sum::<usize>() > Self::KEPT_CONTENTS {
            self.contents.retain(|blob, _| last.iter().any(|(b, _)| b == blob));
        }
        free_aside(done);
    }

    pub fn content(&mut self, blob: ObjectId) -> &[u8] {
        if !self.contents.contains_key(&blob) {
            let mut buf = Vec::new();
            if self.repo.read_blob_into(blob, &mut buf).is_err() {
                self.missing.insert(blob);
            }
            self.contents.insert(blob, buf);
        }
        &self.contents[&blob]
    }

    fn key(side: &ChangedSide) -> Key {
        (side.blob, if side.skip.is_some() { String::new() } else { side.lang.clone() })
    }

    /// Reads the definitions of the `sides` not read yet, on all cores: of the tracked names
    /// alone, or (`all`) every one. Their contents are read here, on this thread.
    pub fn prefetch<'s>(&mut self, sides: impl Iterator<Item = &'s ChangedSide>, all: bool) -> Result<(), StoreError> {
        let mut seen: HashSet<Key> = HashSet::new();
        let mut wanted: Vec<(Key, &'s ChangedSide)> = Vec::new();
        for side in sides {
            let key = Self::key(side);
            if key.1.is_empty() || self.has(&key, all) || seen.contains(&key) {
                continue;
            }
            seen.insert(key.clone());
            if let Some(defs) = self.recorded(&key)? {
                self.keep_recorded(key, defs);
                continue;
            }
            self.content(side.blob);
            wanted.push((key, side));
        }
        self.parse(wanted, all, 2)
    }

    /// Whether a definition's name is one of the tracked names.
    fn tracks(&self, name: &str) -> bool {
        self.names.iter().any(|n| name.eq_ignore_ascii_case(n))
    }

    /// Whether a side's definitions (`all`, or those of the tracked names) are read; those of
    /// the tracked names are taken from all of them when these are read already.
    fn has(&mut self, key: &Key, all: bool) -> bool {
        if all {
            return self.symbols.contains_key(key);
        }
        if self.named.contains_key(key) {
            return true;
        }
        let Some(symbols) = self.symbols.get(key) else { return false };
        let named = symbols.iter().filter(|d| self.tracks(&d.name)).cloned().collect();
        self.named.insert(key.clone(), named);
        true
    }

    /// A record's definitions: all of them, and those of the tracked names.
    fn keep_recorded(&mut self, key: Key, defs: Vec<Def>) {
        let named = defs.iter().filter(|d| self.tracks(&d.name)).cloned().collect();
        self.named.insert(key.clone(), named);
        self.symbols.insert(key, defs);
    }

    /// Parses the `wanted` sides (their contents read), each version of a file from the one
    /// read before it where few hunks separate them, on all cores when there are at least
    /// `at_once` of them.
    fn parse(&mut self, wanted: Vec<(Key, &ChangedSide)>, all: bool, at_once: usize) -> Result<(), StoreError> {
        use rayon::prelude::*;
        let mut files: Vec<Versions> = Vec::new();
        let mut file_of: HashMap<(&[u8], &str), usize> = HashMap::new();
        for (key, side) in &wanted {
            let file = (side.path.clone(), side.lang.clone());
            // A version whose tree is kept is read from it again: nothing to re-read.
            if let Some(tree) = self.trees.get(key) {
                files.push(Versions { file, from: Some((key.0, tree.clone())), keys: vec![key.clone()] });
                continue;
            }
            let at = *file_of.entry((side.path.as_slice(), side.lang.as_str())).or_insert_with(|| {
                let from = self
                    .last
                    .get(&file)
                    .and_then(|blob| Some((*blob, self.trees.get(&(*blob, file.1.clone()))?.clone())));
                files.push(Versions { file, from, keys: Vec::new() });
                files.len() - 1
            });
            files[at].keys.push(key.clone());
        }
        let contents = &self.contents;
        let parallel = wanted.len() >= at_once;
        // The edits between each version and the one before it, where they are few.
        let pairs: Vec<(ObjectId, ObjectId)> = files
            .iter()
            .flat_map(|Versions { from, keys, .. }| {
                let first = from.as_ref().map(|(blob, _)| *blob);
                let before = std::iter::once(first).chain(keys.iter().map(|k| Some(k.0)));
                before.zip(keys).filter_map(|(b, k)| Some((b?, k.0)))
            })
            .collect();
        let edits_of = |&(before, after): &(ObjectId, ObjectId)| {
            let edits = defs::edits(&contents[&before], &contents[&after]);
            ((before, after), (edits.len() <= Chain::MAX_HUNKS).then_some(edits))
        };
        let linked: HashMap<(ObjectId, ObjectId), Option<Vec<InputEdit>>> =
            if parallel { pairs.par_iter().map(edits_of).collect() } else { pairs.iter().map(edits_of).collect() };
        let mut chains: Vec<Chain> = Vec::new();
        for Versions { file, from, keys } in files {
            let (mut before, tree) = match from {
                Some((blob, tree)) => (Some(blob), Some(tree)),
                None => (None, None),
            };
            let mut chain = Chain { file: file.clone(), from: tree, steps: Vec::new(), last: false };
            for key in keys {
                let edits = before.and_then(|b| linked.get(&(b, key.0)).cloned().flatten());
                if edits.is_none() && (chain.from.is_some() || !chain.steps.is_empty()) {
                    // Parsed whole: a piece of its own.
                    chains.push(std::mem::replace(
                        &mut chain,
                        Chain { file: file.clone(), from: None, steps: Vec::new(), last: false },
                    ));
                }
                before = Some(key.0);
                chain.steps.push((key, edits.unwrap_or_default()));
            }
            chain.last = true;
            chains.push(chain);
        }
        chains.retain(|c| !c.steps.is_empty());
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let named = (!all).then_some(names.as_slice());
        let max = self.max_file_size;
        let parse = |chain: Chain| {
            let (file, last) = (chain.file.clone(), chain.last);
            (file, last, chain.parse(contents, max, named))
        };
        let parsed: Vec<_> = if parallel {
            Chain::split(chains, rayon::current_num_threads()).into_par_iter().map(parse).collect()
        } else {
            chains.into_iter().map(parse).collect()
        };
        // The trees of the batch are kept for a rename search to read all of a side's
        // definitions without parsing it again, up to a bound on memory (a tree takes about
        // twenty times its source); the last version of each file is always kept, for the
        // next one to be parsed from.
        let mut kept: usize = self.trees.keys().map(|(blob, _)| self.contents.get(blob).map_or(0, Vec::len)).sum();
        let mut spare = Vec::new();
        for (file, last, read) in parsed {
            // The last piece of a file's chain holds its last version.
            let last_version = match (last, read.last()) {
                (true, Some((key, _, Some(_)))) => Some(key.0),
                _ => None,
            };
            if let Some(blob) = last_version {
                self.last.insert(file, blob);
            }
            for (key, defs, tree) in read {
                if let Some(tree) = tree {
                    let size = self.contents[&key.0].len();
                    if last_version == Some(key.0) || kept + size <= Self::KEPT_TREES_SOURCE {
                        kept += size;
                        self.trees.insert(key.clone(), tree);
                    } else {
                        spare.push(tree);
                    }
                }
                if all {
                    self.symbols.insert(key, defs)
                } else {
                    self.named.insert(key, defs)
                };
            }
        }
        free_aside(spare);
        Ok(())
    }

    /// How many blobs could not be read.
    pub fn missing(&self) -> usize {
        self.missing.len()
    }

    /// A side's definitions of the tracked names: its record's, else parsed now.
    pub fn named(&mut self, side: &ChangedSide) -> Result<&[Def], StoreError> {
        self.read(side, false)
    }

    /// A side's definitions: its record's, else parsed now.
    pub fn symbols(&mut self, side: &ChangedSide) -> Result<&[Def], StoreError> {
        self.read(side, true)
    }

    fn read(&mut self, side: &ChangedSide, all: bool) -> Result<&[Def], StoreError> {
        let key = Self::key(side);
        if !self.has(&key, all) {
            match self.recorded(&key)? {
                Some(defs) => self.keep_recorded(key.clone(), defs),
                None if key.1.is_empty() => {
                    self.named.insert(key.clone(), Vec::new());
                    self.symbols.insert(key.clone(), Vec::new());
                }
                None => {
                    self.content(side.blob);
                    self.parse(vec![(key.clone(), side)], all, usize::MAX)?;
                }
            }
        }
        let done = if all { &self.symbols } else { &self.named };
        Ok(&done[&key])
    }

    /// The definitions of the record of a blob read as a language (a key), when it has one.
    fn recorded(&self, (blob, lang): &Key) -> Result<Option<Vec<Def>>, StoreError> {
        if lang.is_empty() {
            return Ok(None);
        }
        let Some(record) = self.store.record(*blob, lang, &(self.record_key)(lang))? else {
            return Ok(None);
        };
        let symbols = self.store.symbols_of(record.id)?;
        Ok(Some(symbols.into_iter().filter(|s| s.role == Role::Definition).map(Def::from).collect()))
    }

    pub fn text(&mut self, instance: &Instance) -> Vec<u8> {
        let range = instance.symbol.byte_start as usize..instance.symbol.byte_end as usize;
        self.content(instance.blob).get(range).unwrap_or_default().to_vec()
    }

    /// Which line of `old` each line of `new` is, where a diff (Myers, as git's) of the two
    /// blobs keeps it unchanged; 0-based.
    fn line_map(&mut self, old: ObjectId, new: ObjectId) -> &[Option<u32>] {
        if !self.line_maps.contains_key(&(old, new)) {
            self.content(old);
            self.content(new);
            let old_lines: Vec<&[u8]> = lines(&self.contents[&old]).collect();
            let new_lines: Vec<&[u8]> = lines(&self.contents[&new]).collect();
            let mut map = vec![None; new_lines.len()];
            let (mut i, mut j) = (0u32, 0u32);
            let mut keep_until = |end: u32, i: &mut u32, j: &mut u32| {
                while *j < end {
                    map[*j as usize] = Some(*i);
                    *i += 1;
                    *j += 1;
                }
            };
            for (before, after) in super::pickaxe::changed_ranges(&old_lines, &new_lines) {
                keep_until(after.start, &mut i, &mut j);
                i = before.end;
                j = after.end;
            }
            keep_until(new_lines.len() as u32, &mut i, &mut j);
            self.line_maps.insert((old, new), map);
        }
        &self.line_maps[&(old, new)]
    }

    /// Of the non-blank lines of `of` (one of the two), how many a diff of the two blobs keeps
    /// between `old`'s lines and `new`'s, and how many there are.
    pub fn kept_lines(&mut self, old: &Instance, new: &Instance, of_new: bool) -> (usize, usize) {
        let old_range = old.symbol.line_start.saturating_sub(1)..old.symbol.line_end;
        let new_range = new.symbol.line_start.saturating_sub(1)..new.symbol.line_end;
        let (side, range) = if of_new { (new, &new_range) } else { (old, &old_range) };
        let blank: Vec<bool> = lines(self.content(side.blob)).map(|l| l.trim_ascii().is_empty()).collect();
        let counted = |line: u32| !blank.get(line as usize).copied().unwrap_or(true);
        let total = range.clone().filter(|&l| counted(l)).count();
        let map = self.line_map(old.blob, new.blob);
        let kept = new_range
            .clone()
            .filter_map(|j| Some((j, map.get(j as usize).copied().flatten()?)))
            .filter(|&(j, i)| old_range.contains(&i) && counted(if of_new { j } else { i }))
            .count();
        (kept, total)
    }

    /// The text with the symbol's own name blanked out: equal for a rename that changed
    /// nothing else.
    pub fn renamed_text(&mut self, instance: &Instance) -> Vec<u8> {
        let text = self.text(instance);
        let name = instance.symbol.name.as_bytes();
        let mut out = Vec::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            if !name.is_empty() && text[i..].starts_with(name) {
                out.push(0);
                i += name.len();
            } else {
                out.push(text[i]);
                i += 1;
            }
        }
        out
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        free_aside(std::mem::take(&mut self.trees));
    }
}

/// Frees trees on another thread (which a one-shot process does not wait for): freeing a tree
/// takes as long as a good part of parsing it.
fn free_aside<T: Send + 'static>(trees: T) {
    rayon::spawn(move || drop(trees));
}

/// The lines of `data`, each without its newline.
fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    data.split(|&b| b == b'\n').filter(move |_| !data.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(name: &str, versions: u8) -> Chain {
        let steps = (0..versions).map(|v| ((ObjectId([v; 20]), "python".to_owned()), Vec::new())).collect();
        Chain { file: (name.as_bytes().to_vec(), "python".to_owned()), from: None, steps, last: true }
    }

    #[test]
    fn chains_are_split_into_shares_of_the_versions_in_order() {
        // One long chain and two short ones, two threads: the long one is split until no piece
        // has more than half of all versions (there were pieces enough for the threads
        // already); the pieces keep every version once, in order, and only the last piece of a
        // file is its last.
        let pieces = Chain::split(vec![chain("a.py", 40), chain("b.py", 2), chain("c.py", 2)], 2);
        assert!(
            pieces.iter().all(|p| p.steps.len() <= 22),
            "{:?}",
            pieces.iter().map(|p| p.steps.len()).collect::<Vec<_>>()
        );
        let of_a: Vec<&Chain> = pieces.iter().filter(|p| p.file.0 == b"a.py").collect();
        assert!(of_a.len() >= 2);
        let mut versions: Vec<u8> = of_a.iter().flat_map(|p| p.steps.iter().map(|(k, _)| k.0.0[0])).collect();
        assert_eq!(versions.len(), 40);
        assert!(of_a.iter().all(|p| p.steps.len() >= Chain::MIN_PIECE));
        versions.sort_unstable();
        versions.dedup();
        assert_eq!(versions.len(), 40);
        // Each piece is a run of consecutive versions.
        for piece in &of_a {
            let at: Vec<u8> = piece.steps.iter().map(|(k, _)| k.0.0[0]).collect();
            assert!(at.windows(2).all(|w| w[1] == w[0] + 1), "{at:?}");
        }
        assert_eq!(of_a.iter().filter(|p| p.last).count(), 1);
        assert!(of_a.iter().find(|p| p.last).unwrap().steps.iter().any(|(k, _)| k.0.0[0] == 39));
        // Too short to pay for another whole parse: left whole.
        assert_eq!(Chain::split(vec![chain("c.py", 7)], 2).len(), 1);
    }
}
