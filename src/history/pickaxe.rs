//! `log -S` and `log -G` decided for one commit as `git log` decides them: the changed files
//! are paired into renames first (git's exact and inexact rename detection, which `git log`
//! runs by default), then each pair is kept when the string's count differs between its sides
//! (`-S`) or a line the diff adds or removes matches the regex (`-G`, never on binary files).

use std::collections::HashMap;
use std::ops::Range;

use crate::git::ObjectId;
use crate::indexer::is_binary;
use crate::query::Matcher;

/// What to look for.
pub enum Pickaxe {
    /// `-S STRING`: commits that change how many times the string occurs in a file.
    Count(Needle),
    /// `-G REGEX`: commits whose diff adds or removes a line that matches.
    Grep(Matcher),
}

/// One side of a changed file, with its content.
pub struct Side<'a> {
    /// The blob.
    pub blob: ObjectId,
    /// Its path.
    pub path: &'a [u8],
    /// Whether it is a regular file (renames other than exact ones pair only those).
    pub regular: bool,
    /// The content.
    pub data: &'a [u8],
    /// What its path's attributes say: binary (`Some(true)`), text (`Some(false)`), or decided
    /// by the content (`None`).
    pub binary: Option<bool>,
}

/// The string of `-S`, counted as git counts it.
pub struct Needle {
    bytes: Vec<u8>,
    /// With `-i`: the string quoted into a regex that ignores case.
    folded: Option<regex::bytes::Regex>,
}

impl Needle {
    /// `string`, its case ignored when `ignore_case` (`-i`). git compares an ASCII string
    /// byte by byte with ASCII letters lowered, and quotes any other into a POSIX regex that
    /// ignores case as the locale folds it (here: Unicode's folding, a UTF-8 locale's).
    pub fn new(string: &str, ignore_case: bool) -> Needle {
        let folded = ignore_case.then(|| {
            regex::bytes::RegexBuilder::new(&regex::escape(string))
                .case_insensitive(true)
                .unicode(!string.is_ascii())
                .build()
                .expect("a quoted string is a regex")
        });
        Needle { bytes: string.as_bytes().to_vec(), folded }
    }

    /// The string.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether case is ignored.
    pub fn ignores_case(&self) -> bool {
        self.folded.is_some()
    }

    /// Its non-overlapping occurrences in `haystack`.
    fn count(&self, haystack: &[u8]) -> usize {
        match &self.folded {
            None => count(haystack, &self.bytes),
            Some(re) => re.find_iter(haystack).count(),
        }
    }
}

/// Non-overlapping occurrences of `needle`, as git counts them for `-S`.
fn count(haystack: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() {
        return 0;
    }
    memchr::memmem::find_iter(haystack, needle)
        .fold((0usize, 0usize), |(n, next), at| if at >= next { (n + 1, at + needle.len()) } else { (n, next) })
        .0
}

/// Lines with their terminators: `foo` at the end of a file and `foo\n` are different lines
/// to git's diff.
pub fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for at in memchr::memchr_iter(b'\n', data) {
        out.push(&data[start..=at]);
        start = at + 1;
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// Whether git's `-G` matches `line`: its regex runs over each line git's diff prints, which
/// ends in a newline (one is printed after a last line that has none); `matcher` is compiled
/// for that ([`Matcher::diff_lines`]).
fn line_matches(matcher: &Matcher, line: &[u8]) -> bool {
    if line.ends_with(b"\n") { matcher.is_match(line) } else { matcher.is_match(&[line, b"\n"].concat()) }
}

impl Pickaxe {
    /// [`Pickaxe::pair_matches`] for two sides of a change, with what their attributes say.
    fn sides_keep(&self, old: Option<&Side<'_>>, new: Option<&Side<'_>>) -> bool {
        self.pair_matches(
            old.map(|s| s.data),
            new.map(|s| s.data),
            [old.and_then(|s| s.binary), new.and_then(|s| s.binary)],
        )
    }

    /// Whether the pair (an absent side is empty) is one `git log` keeps; `binary` per side:
    /// what the attributes say of it, `None` to decide by the content (`-G` skips a binary
    /// side, as git does; `-S` counts in it).
    pub fn pair_matches<'a>(&self, old: Option<&'a [u8]>, new: Option<&'a [u8]>, binary: [Option<bool>; 2]) -> bool {
        let (a, b) = (old.unwrap_or_default(), new.unwrap_or_default());
        match self {
            Pickaxe::Count(needle) => needle.count(a) != needle.count(b),
            Pickaxe::Grep(matcher) => {
                let is =
                    |data: &[u8], attribute: Option<bool>| attribute.unwrap_or(!data.is_empty() && is_binary(data));
                if is(a, binary[0]) || is(b, binary[1]) {
                    return false;
                }
                if a == b {
                    return false;
                }
                let (old_lines, new_lines) = (split_lines(a), split_lines(b));
                let matching = |ls: &[&'a [u8]]| -> Vec<&'a [u8]> {
                    let mut m: Vec<&[u8]> = ls.iter().copied().filter(|l| line_matches(matcher, l)).collect();
                    m.sort_unstable();
                    m
                };
                let (mo, mn) = (matching(&old_lines), matching(&new_lines));
                if mo != mn {
                    // Any diff adds or removes one of the lines the two sides hold a different
                    // number of times.
                    return true;
                }
                if mo.is_empty() {
                    return false;
                }
                // The same matching lines on both sides: whether the diff moves one of them.
                git_changed_lines(&old_lines, &new_lines).into_iter().any(|l| line_matches(matcher, l))
            }
        }
    }
}

/// The changed ranges (0-based line ranges, before and after) of a Myers diff: where a change
/// falls among a file's definitions. (Which lines git's diff changes is
/// [`git_changed_lines`].)
pub fn changed_ranges(old: &[&[u8]], new: &[&[u8]]) -> Vec<(Range<u32>, Range<u32>)> {
    use imara_diff::intern::InternedInput;
    let mut input: InternedInput<&[u8]> = InternedInput::default();
    input.update_before(old.iter().copied());
    input.update_after(new.iter().copied());
    let mut out = Vec::new();
    imara_diff::diff(imara_diff::Algorithm::Myers, &input, |before: Range<u32>, after: Range<u32>| {
        out.push((before, after));
    });
    out
}

/// The lines the diff of [`changed_ranges`] removes and adds, per side: what builds before
/// stop 51 took for a commit's document and its touched definitions.
pub fn changed_lines_of_ranges(old: &[&[u8]], new: &[&[u8]]) -> (Vec<bool>, Vec<bool>) {
    let (mut removed, mut added) = (vec![false; old.len()], vec![false; new.len()]);
    for (before, after) in changed_ranges(old, new) {
        removed[before.start as usize..before.end as usize].fill(true);
        added[after.start as usize..after.end as usize].fill(true);
    }
    (removed, added)
}

/// The lines git's diff removes or adds (`git log -G` reads exactly these).
pub fn git_changed_lines<'a>(old: &[&'a [u8]], new: &[&'a [u8]]) -> Vec<&'a [u8]> {
    let (removed, added) = super::xdiff::changed(old, new);
    let pick = |lines: &[&'a [u8]], changed: Vec<bool>| -> Vec<&'a [u8]> {
        lines.iter().zip(changed).filter(|(_, c)| *c).map(|(l, _)| *l).collect()
    };
    let mut out = pick(old, removed);
    out.extend(pick(new, added));
    out
}

/// Whether git's diff removes or adds a line that the diff of [`changed_ranges`] keeps: the
/// lines of a commit's document stored by builds that took those.
pub fn diffs_differ(old: &[&[u8]], new: &[&[u8]]) -> bool {
    let mut stored = std::collections::HashSet::new();
    for (before, after) in changed_ranges(old, new) {
        stored.extend(old[before.start as usize..before.end as usize].iter().copied());
        stored.extend(new[after.start as usize..after.end as usize].iter().copied());
    }
    git_changed_lines(old, new).into_iter().any(|line| !stored.contains(line))
}

/// Appends a line (without its newline) and a newline: the commit document's text, whose
/// trigrams never cross a line.
pub fn push_line(line: &[u8], out: &mut String) {
    out.push_str(&String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(line)));
    out.push('\n');
}

/// A byte of a printable run: ASCII graphic, space or tab.
fn printable(b: u8) -> bool {
    b.is_ascii_graphic() || b == b' ' || b == b'\t'
}

/// The shortest printable run kept of a binary file. Compressed data (an image) is printable
/// one byte in three: runs of three bytes or more cover a twentieth of it, of six or more a
/// few thousandths.
const MIN_RUN: usize = 6;

/// Whether every occurrence of `needle` in any content lies inside one printable run of
/// [`MIN_RUN`] bytes or more (it is that long, and every byte of it is printable): then the
/// runs' trigrams hold the needle's.
pub fn in_printable_runs(needle: &[u8]) -> bool {
    needle.len() >= MIN_RUN && needle.iter().all(|&b| printable(b))
}

/// Appends the printable runs of `data` (a binary file) of [`MIN_RUN`] bytes or more, one per
/// line: what a commit's document keeps of a binary side, so that a search for a printable
/// string reads only the binary changes that may hold it.
pub fn push_printable_runs(data: &[u8], out: &mut String) {
    for run in data.split(|&b| !printable(b)).filter(|run| run.len() >= MIN_RUN) {
        // Printable bytes are ASCII: the run is text as it is.
        out.push_str(std::str::from_utf8(run).expect("printable runs are ASCII"));
        out.push('\n');
    }
}

/// A file a commit changed, with the contents of its sides.
pub struct Change<'a> {
    /// Before (`None`: added).
    pub old: Option<Side<'a>>,
    /// After (`None`: deleted).
    pub new: Option<Side<'a>>,
}

/// The paths of the commit's changes `git log` would keep for `pickaxe`, after pairing
/// deletions and additions into renames.
pub fn matching_paths(pickaxe: &Pickaxe, changes: &[Change<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut deleted = Vec::new();
    let mut added = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        match (&c.old, &c.new) {
            (Some(old), Some(new)) => {
                if pickaxe.sides_keep(Some(old), Some(new)) {
                    out.push(String::from_utf8_lossy(new.path).into_owned());
                }
            }
            (Some(_), None) => deleted.push(i),
            (None, Some(_)) => added.push(i),
            (None, None) => {}
        }
    }
    // `-S` with the string in none of the deleted and added files: how they pair cannot matter.
    let inert = match pickaxe {
        Pickaxe::Count(needle) => deleted
            .iter()
            .map(|&d| changes[d].old.as_ref().map_or(0, |s| needle.count(s.data)))
            .chain(added.iter().map(|&a| changes[a].new.as_ref().map_or(0, |s| needle.count(s.data))))
            .all(|n| n == 0),
        Pickaxe::Grep(_) => false,
    };
    let pairs = if inert { Vec::new() } else { renames(changes, &deleted, &added) };
    let mut paired_old = vec![false; changes.len()];
    let mut paired_new = vec![false; changes.len()];
    for &(d, a) in &pairs {
        paired_old[d] = true;
        paired_new[a] = true;
        let (old, new) = (changes[d].old.as_ref().expect("a deletion"), changes[a].new.as_ref().expect("an addition"));
        if pickaxe.sides_keep(Some(old), Some(new)) {
            out.push(String::from_utf8_lossy(new.path).into_owned());
        }
    }
    for &d in deleted.iter().filter(|d| !paired_old[**d]) {
        let old = changes[d].old.as_ref().expect("a deletion");
        if pickaxe.sides_keep(Some(old), None) {
            out.push(String::from_utf8_lossy(old.path).into_owned());
        }
    }
    for &a in added.iter().filter(|a| !paired_new[**a]) {
        let new = changes[a].new.as_ref().expect("an addition");
        if pickaxe.sides_keep(None, Some(new)) {
            out.push(String::from_utf8_lossy(new.path).into_owned());
        }
    }
    out.sort();
    out
}

/// git's scores: 60000 is identical; a rename needs half (`-M50%`), or three quarters when
/// it is found by a unique basename.
const MAX_SCORE: u64 = 60_000;
const MIN_SCORE: u64 = 30_000;
const MIN_BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;
/// `diff.renameLimit`'s default: no inexact detection above this many sources times
/// destinations (squared).
const RENAME_LIMIT: usize = 1000;

/// Deletions paired with additions (indexes into `changes`), as git's rename detection pairs
/// them: exact renames (the same blob), then unique basenames at 75% similarity, then the best
/// scores at 50% or more.
fn renames(changes: &[Change<'_>], deleted: &[usize], added: &[usize]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut used_old = vec![false; changes.len()];
    let mut used_new = vec![false; changes.len()];
    let old = |i: usize| changes[i].old.as_ref().expect("a deletion");
    let new = |i: usize| changes[i].new.as_ref().expect("an addition");
    // Exact: the same blob.
    let mut by_blob: HashMap<ObjectId, Vec<usize>> = HashMap::new();
    for &d in deleted {
        by_blob.entry(old(d).blob).or_default().push(d);
    }
    for &a in added {
        if let Some(sources) = by_blob.get_mut(&new(a).blob) {
            // git prefers a source with the same basename among equal blobs.
            let pick = sources.iter().position(|&d| basename(old(d).path) == basename(new(a).path)).unwrap_or(0);
            if !sources.is_empty() {
                let d = sources.remove(pick);
                pairs.push((d, a));
                used_old[d] = true;
                used_new[a] = true;
            }
        }
    }
    let sources: Vec<usize> = deleted.iter().copied().filter(|&d| !used_old[d] && old(d).regular).collect();
    let dests: Vec<usize> = added.iter().copied().filter(|&a| !used_new[a] && new(a).regular).collect();
    if sources.is_empty() || dests.is_empty() || sources.len() * dests.len() > RENAME_LIMIT * RENAME_LIMIT {
        return pairs;
    }
    let mut hashes: HashMap<usize, Vec<(u32, u64)>> = HashMap::new();
    let mut spans =
        |i: usize, data: &[u8]| -> Vec<(u32, u64)> { hashes.entry(i).or_insert_with(|| span_hashes(data)).clone() };
    // Unique basenames first.
    let unique = |list: &[usize], name: &dyn Fn(usize) -> Vec<u8>| -> HashMap<Vec<u8>, usize> {
        let mut count: HashMap<Vec<u8>, (usize, usize)> = HashMap::new();
        for &i in list {
            let e = count.entry(basename(&name(i)).to_vec()).or_insert((0, i));
            e.0 += 1;
        }
        count.into_iter().filter(|(_, (n, _))| *n == 1).map(|(k, (_, i))| (k, i)).collect()
    };
    let unique_sources = unique(&sources, &|i| old(i).path.to_vec());
    let unique_dests = unique(&dests, &|i| new(i).path.to_vec());
    for &d in &sources {
        let name = basename(old(d).path);
        let (Some(&src), Some(&dst)) = (unique_sources.get(name), unique_dests.get(name)) else {
            continue;
        };
        debug_assert_eq!(src, d);
        let (s, t) = (old(src), new(dst));
        if !sizes_allow(s.data.len(), t.data.len(), MIN_BASENAME_SCORE) {
            continue;
        }
        let (hs, ht) = (spans(src, s.data), spans(usize::MAX - dst, t.data));
        if score(s.data.len(), t.data.len(), &hs, &ht, MIN_BASENAME_SCORE) >= MIN_BASENAME_SCORE {
            pairs.push((src, dst));
            used_old[src] = true;
            used_new[dst] = true;
        }
    }
    // Then the best scores, at most four candidates per destination, as git keeps them.
    let mut candidates: Vec<(u64, bool, usize, usize, usize)> = Vec::new();
    let mut seq = 0;
    for &a in dests.iter().filter(|&&a| !used_new[a]) {
        let t = new(a);
        let mut best: Vec<(u64, bool, usize, usize, usize)> = Vec::new();
        for &d in sources.iter().filter(|&&d| !used_old[d]) {
            let s = old(d);
            if !sizes_allow(s.data.len(), t.data.len(), MIN_SCORE) {
                continue;
            }
            let ht = spans(usize::MAX - a, t.data);
            let hs = spans(d, s.data);
            let sc = score(s.data.len(), t.data.len(), &hs, &ht, MIN_SCORE);
            if sc < MIN_SCORE {
                continue;
            }
            let same_name = basename(s.path) == basename(t.path);
            best.push((sc, same_name, seq, d, a));
            seq += 1;
        }
        best.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
        best.truncate(4);
        candidates.extend(best);
    }
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
    for (_, _, _, d, a) in candidates {
        if used_old[d] || used_new[a] {
            continue;
        }
        pairs.push((d, a));
        used_old[d] = true;
        used_new[a] = true;
    }
    pairs
}

/// git's similarity of two contents (`diffcore-delta.c`'s estimate) as a share: 1.0 is
/// identical, and git pairs files into a rename from 0.5 up.
pub fn similarity(a: &[u8], b: &[u8]) -> f64 {
    let sc = score(a.len(), b.len(), &span_hashes(a), &span_hashes(b), MIN_SCORE);
    sc as f64 / MAX_SCORE as f64
}

fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|b| *b == b'/').next().unwrap_or(path)
}

/// Whether two sizes leave room for a score of `minimum`: git compares no contents whose sizes
/// differ by more than that allows.
fn sizes_allow(src_size: usize, dst_size: usize, minimum: u64) -> bool {
    let (max, base) = (src_size.max(dst_size) as u64, src_size.min(dst_size) as u64);
    max * (MAX_SCORE - minimum) >= (max - base) * MAX_SCORE
}

/// git's similarity estimate (`diffcore-delta.c`): content cut into spans at each newline
/// or every 64 bytes, each span hashed; the score is the share of the larger side's bytes
/// whose spans the source also has.
fn score(src_size: usize, dst_size: usize, src: &[(u32, u64)], dst: &[(u32, u64)], minimum: u64) -> u64 {
    if !sizes_allow(src_size, dst_size, minimum) {
        return 0;
    }
    let max = src_size.max(dst_size) as u64;
    if max == 0 {
        return MAX_SCORE;
    }
    let mut copied = 0u64;
    let (mut i, mut j) = (0, 0);
    while i < src.len() && j < dst.len() {
        match src[i].0.cmp(&dst[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                copied += src[i].1.min(dst[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    copied * MAX_SCORE / max
}

/// The span hashes of `data` with their byte counts, sorted by hash.
fn span_hashes(data: &[u8]) -> Vec<(u32, u64)> {
    const HASHBASE: u32 = 107_927;
    let text = !is_binary(data);
    let mut counts: HashMap<u32, u64> = HashMap::new();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u64);
    let mut i = 0;
    while i < data.len() {
        let c = data[i] as u32;
        i += 1;
        // A CR of CRLF does not count in text.
        if text && c == u32::from(b'\r') && data.get(i) == Some(&b'\n') {
            continue;
        }
        let old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(c);
        n += 1;
        if n < 64 && c != u32::from(b'\n') {
            continue;
        }
        let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *counts.entry(hash).or_default() += n;
        n = 0;
        accum1 = 0;
        accum2 = 0;
    }
    if n > 0 {
        let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *counts.entry(hash).or_default() += n;
    }
    let mut out: Vec<(u32, u64)> = counts.into_iter().collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_keeps_its_long_printable_runs() {
        let mut out = String::new();
        push_printable_runs(b"\0\x01PNG\r\n\x1a\nab\xffIHDR chunk\tx\0\xc3\xa9tEXtSoftware\x80zz", &mut out);
        assert_eq!(out, "IHDR chunk\tx\ntEXtSoftware\n");
        assert!(in_printable_runs(b"IHDR chunk\tx"));
        assert!(!in_printable_runs(b"PNG"), "shorter than a kept run");
        assert!(!in_printable_runs("caf\u{e9}s au lait".as_bytes()));
        assert!(!in_printable_runs(b"two\nlines"));
    }

    #[test]
    fn counts_do_not_overlap() {
        assert_eq!(count(b"aaaa", b"aa"), 2);
        assert_eq!(count(b"xfoo foo", b"foo"), 2);
        assert_eq!(count(b"", b"foo"), 0);
    }

    #[test]
    fn grep_sees_a_moved_matching_line_only_when_the_diff_moves_it() {
        let g = Pickaxe::Grep(Matcher::diff_lines("foo", false).unwrap());
        assert!(g.pair_matches(Some(b"a\n"), Some(b"a\nfoo\n"), [None, None]));
        assert!(!g.pair_matches(Some(b"foo\na\n"), Some(b"foo\nb\n"), [None, None]));
        // A last line without its newline is another line to the diff.
        assert!(g.pair_matches(Some(b"foo"), Some(b"foo\nbar\n"), [None, None]));
        assert!(!g.pair_matches(Some(b"\0foo"), Some(b"\0bar"), [None, None]));
    }

    #[test]
    fn a_regex_matching_an_empty_line_matches_every_changed_line_as_in_git() {
        let g = Pickaxe::Grep(Matcher::diff_lines("^$", false).unwrap());
        assert!(g.pair_matches(Some(b"a\n"), Some(b"b\n"), [None, None]));
        assert!(g.pair_matches(Some(b"x\na"), Some(b"x\nb"), [None, None]), "a last line without its newline too");
        assert!(!g.pair_matches(Some(b"a\n"), Some(b"a\n"), [None, None]));
        let g = Pickaxe::Grep(Matcher::diff_lines("=$", false).unwrap());
        assert!(!g.pair_matches(Some(b"a\n"), Some(b"b\n"), [None, None]));
    }

    #[test]
    fn identical_content_scores_full_and_renames_pair_it() {
        let text = b"one\ntwo\nthree\n".repeat(20);
        let h = span_hashes(&text);
        assert_eq!(score(text.len(), text.len(), &h, &h, MIN_SCORE), MAX_SCORE);
        let mut edited = text.clone();
        edited.extend_from_slice(b"four\n");
        let e = span_hashes(&edited);
        assert!(score(text.len(), edited.len(), &h, &e, MIN_SCORE) > MIN_BASENAME_SCORE);
    }
}
