//! `history NAME`: the commits where a symbol was added, modified (its text or signature
//! changed), moved to another file, renamed, and deleted, from the definitions of the blobs
//! each commit changed. Only commits whose documents name the symbol among those whose lines
//! they changed are read; a rename found on the way adds the old name's commits to the ones
//! still to come.

use std::collections::{HashMap, HashSet};

use super::defs::Def;
use super::fts::{CommitIndex, key_of};
use super::log::LogError;
use super::reader::Reader;
use super::walk::{Graph, WalkOptions};
use crate::extract::{self, name_segments as segments, qualified_suffix};
use crate::git::{LocalRepo, ObjectId};
use crate::query::pathspec::Pathspecs;
use crate::store::{ChangedSide, CommitRow, Store, StoreError};

/// What happened to the symbol in one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// It appeared.
    Added,
    /// Its text or signature changed.
    Modified,
    /// It went to another file, or into or out of a type in its file, unchanged in name.
    Moved,
    /// Its name changed (its text otherwise the same, or at least half of it, by git's
    /// similarity estimate).
    Renamed,
    /// It disappeared.
    Deleted,
}

impl EventKind {
    /// The stable spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Added => "added",
            EventKind::Modified => "modified",
            EventKind::Moved => "moved",
            EventKind::Renamed => "renamed",
            EventKind::Deleted => "deleted",
        }
    }
}

/// One side of a symbol at a commit.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The file.
    pub path: String,
    /// The blob it is in.
    pub blob: ObjectId,
    /// The symbol.
    pub symbol: Def,
    /// The definition's text (capped at 8000 bytes), when the query asked for it.
    pub text: Option<String>,
}

/// One event of a symbol's history.
#[derive(Clone, Debug)]
pub struct Event<'g> {
    /// The commit.
    pub commit: &'g CommitRow,
    /// What happened.
    pub kind: EventKind,
    /// Before (none when added).
    pub before: Option<Instance>,
    /// After (none when deleted).
    pub after: Option<Instance>,
}

/// A `history` question.
pub struct SymbolQuery<'a> {
    /// The name, bare or qualified (`Cart::total`, `Greeter.greet`).
    pub name: &'a str,
    /// Which commits.
    pub walk: &'a WalkOptions,
    /// Only files under these paths.
    pub pathspecs: &'a Pathspecs,
    /// The record key of a language (records of other keys are stale).
    pub record_key: &'a dyn Fn(&str) -> String,
    /// Blobs above this size have no definitions.
    pub max_file_size: u64,
    /// At most this many events.
    pub limit: usize,
    /// Whether each instance carries the definition's text.
    pub show: bool,
}

/// What `history` found.
pub struct SymbolHistory<'g> {
    /// Events, newest first.
    pub events: Vec<Event<'g>>,
    /// Whether the walk reached commits that are not stored.
    pub boundary: bool,
    /// Commits whose changed files were read.
    pub checked: usize,
    /// Blobs missing from the object store (a partial clone): steps may be missing.
    pub missing_blobs: usize,
}

/// Commits to read (those whose documents name a tracked symbol) read ahead at a time: the
/// files their changes touched are parsed in parallel.
const READ_AHEAD: usize = 32;

/// Whether a symbol answers to the query's segments: its name equals the last one, and with
/// more segments, its qualified name ends with them.
fn answers(symbol: &Def, parts: &[&str]) -> bool {
    let Some(last) = parts.last() else { return false };
    if !symbol.name.eq_ignore_ascii_case(last) {
        return false;
    }
    if parts.len() == 1 {
        return symbol.name == *last;
    }
    qualified_suffix(&symbol.qualified_name, parts)
}

/// Whether a symbol answers to one of the tracked names.
fn answers_any(names: &[Vec<String>], symbol: &Def) -> bool {
    names.iter().any(|n| answers(symbol, &n.iter().map(String::as_str).collect::<Vec<_>>()))
}

/// The definition among `others` that `target` was renamed from (or to, `target_is_new`
/// false): of the same kind, gone from its file on the far side (`survivors` are the far
/// side's definitions), with the same text but the name; failing that the most similar, at
/// git's rename threshold (half, by git's own similarity estimate) or more; failing that, in
/// the same file, the one a diff of the file keeps most lines of in the target, when they are
/// at least half of the target's non-blank lines or one name extends the other (`run` and
/// `run2`): a rename with edits, whose lines `git log -L` follows.
fn rename_partner(
    reader: &mut Reader<'_>,
    target: &Instance,
    target_is_new: bool,
    others: &[Instance],
    survivors: &[Instance],
) -> Option<usize> {
    let text = reader.renamed_text(target);
    let mut best: Option<(usize, f64)> = None;
    let mut gone = Vec::new();
    for (i, other) in others.iter().enumerate() {
        if other.symbol.kind != target.symbol.kind
            || survivors.iter().any(|s| s.path == other.path && s.symbol.qualified_name == other.symbol.qualified_name)
        {
            continue;
        }
        gone.push(i);
        let other_text = reader.renamed_text(other);
        if other_text == text {
            return Some(i);
        }
        let share = super::pickaxe::similarity(&other_text, &text);
        if share >= 0.5 && best.is_none_or(|(_, b)| share > b) {
            best = Some((i, share));
        }
    }
    if best.is_some() {
        return best.map(|(i, _)| i);
    }
    let mut by_lines: Option<(usize, usize)> = None;
    for i in gone.into_iter().filter(|&i| others[i].path == target.path) {
        let (old, new) = if target_is_new { (&others[i], target) } else { (target, &others[i]) };
        let (kept, total) = reader.kept_lines(old, new, target_is_new);
        let extended = {
            let (a, b) = (&old.symbol.name, &new.symbol.name);
            a.starts_with(b.as_str()) || b.starts_with(a.as_str())
        };
        if kept > 0 && (kept * 2 >= total || extended) && by_lines.is_none_or(|(_, k)| kept > k) {
            by_lines = Some((i, kept));
        }
    }
    by_lines.map(|(i, _)| i)
}

/// Of the sides of `deferred` (untouched by the tracked names), those that may hold a rename's
/// other half or bear on one: of a language of one of `families` whose query can define one
/// of `kinds`, and any other side at a path where one of those, or of a touched change, is (a
/// candidate counts as gone from its file by that path's definitions on the far side).
fn may_hold<'c>(
    deferred: Vec<(&'c ChangedSide, bool, bool)>,
    mut paths: HashSet<&'c [u8]>,
    (families, kinds): (&HashSet<&str>, &HashSet<String>),
) -> Vec<(&'c ChangedSide, bool, bool)> {
    let can_define = |side: &ChangedSide| {
        side.skip.is_none()
            && families.contains(crate::graph::family(&side.lang))
            && crate::lang::by_name(&side.lang)
                .is_some_and(|l| extract::definition_kinds(l).iter().any(|k| kinds.contains(*k)))
    };
    let (mut wanted, rest): (Vec<_>, Vec<_>) = deferred.into_iter().partition(|(side, ..)| can_define(side));
    paths.extend(wanted.iter().map(|(side, ..)| side.path.as_slice()));
    wanted.extend(rest.into_iter().filter(|(side, ..)| paths.contains(side.path.as_slice())));
    wanted
}

/// An event with both sides: modified, moved or renamed.
fn paired(commit: &CommitRow, kind: EventKind, before: Instance, after: Instance) -> Event<'_> {
    Event { commit, kind, before: Some(before), after: Some(after) }
}

/// Functions and methods are one family: a function that moves into a type is a method.
fn callable(kind: &str) -> &str {
    match kind {
        "function" | "method" => "callable",
        other => other,
    }
}

/// The history of a symbol from `tip`, newest first.
pub fn symbol_history<'g>(
    store: &Store,
    repo: &LocalRepo,
    graph: &'g Graph,
    index: &CommitIndex,
    tip: ObjectId,
    query: &SymbolQuery<'_>,
) -> Result<SymbolHistory<'g>, LogError> {
    let mut names: Vec<Vec<String>> = vec![segments(query.name).into_iter().map(str::to_owned).collect()];
    let mut candidates = index.touching(names[0].last().map_or("", String::as_str))?;
    // Commits with a change the index did not diff as text: their touched names tell less.
    let not_diffed = index.not_diffed()?;
    let mut no_simplify = |_: &CommitRow| None;
    let walk = graph.walk(&[tip], query.walk, &mut no_simplify);
    let mut reader = Reader::new(store, repo, query.record_key, query.max_file_size);
    let last_segments = |names: &[Vec<String>]| names.iter().filter_map(|n| n.last().cloned()).collect();
    reader.track(last_segments(&names));
    let mut out = SymbolHistory { events: Vec::new(), boundary: walk.boundary, checked: 0, missing_blobs: 0 };
    let in_paths = |side: &ChangedSide| {
        query.pathspecs.is_empty() || query.pathspecs.matches(&String::from_utf8_lossy(&side.path))
    };
    // The changes of the commits ahead, read for their files to be parsed in parallel.
    let mut ahead: HashMap<i64, Vec<crate::store::ChangeRow>> = HashMap::new();
    let mut read_ahead_to = 0;
    // Merges are read only along first parents; a commit only when its documents name a
    // tracked symbol.
    let read = |row: &CommitRow, candidates: &std::collections::HashSet<u64>| {
        (row.parents.len() <= 1 || query.walk.first_parent) && candidates.contains(&key_of(row.oid))
    };
    for (at, row) in walk.commits.iter().enumerate() {
        if out.events.len() >= query.limit {
            break;
        }
        if !read(row, &candidates) {
            continue;
        }
        out.checked += 1;
        // The tracked symbols on each side, from the files whose change touched the lines of a
        // symbol with a tracked name; the other files' definitions are read only if a rename
        // is to be looked for.
        let hashes: Vec<u32> = names.iter().filter_map(|n| n.last()).map(|n| super::name_hash(n)).collect();
        if at >= read_ahead_to {
            // The next commits to read, as far as the names tracked so far tell: their
            // touched files' definitions of the tracked names are read at once, on all cores;
            // a name found later (a rename) starts the reading ahead again. Not many more than
            // the events still wanted: a commit read gives one or more, unless its change left
            // the symbol's text as it was.
            let wanted = READ_AHEAD.min(query.limit.saturating_sub(out.events.len()).saturating_mul(2));
            let to_read = walk.commits.iter().enumerate().skip(at).filter(|(_, r)| read(r, &candidates));
            read_ahead_to = walk.commits.len();
            for (taken, (later_at, later)) in to_read.enumerate() {
                if taken == wanted {
                    read_ahead_to = later_at;
                    break;
                }
                ahead.insert(later.id, store.commit_changes(later.id)?);
            }
            let touched = ahead.values().flatten().filter(|c| c.touched.iter().any(|h| hashes.contains(h)));
            let sides = touched.flat_map(|c| [c.old.as_ref(), c.new.as_ref()]).flatten().filter(|s| in_paths(s));
            reader.next_batch();
            reader.prefetch(sides, false)?;
        }
        let all_diffed = !not_diffed.contains(&super::fts::key_of(row.oid));
        let changes = match ahead.remove(&row.id) {
            Some(changes) => changes,
            None => store.commit_changes(row.id)?,
        };
        let mut olds: Vec<Instance> = Vec::new();
        let mut news: Vec<Instance> = Vec::new();
        let mut old_all: Vec<Instance> = Vec::new();
        let mut new_all: Vec<Instance> = Vec::new();
        // Sides of changes that touched no tracked name, each with whether its change touched
        // no definition at all when history was indexed.
        let mut deferred: Vec<(&ChangedSide, bool, bool)> = Vec::new();
        let mut touched_sides: Vec<(&ChangedSide, bool)> = Vec::new();
        let mut touched_paths: HashSet<&[u8]> = HashSet::new();
        let mut families: HashSet<&str> = HashSet::new();
        for change in &changes {
            let touches = change.touched.iter().any(|h| hashes.contains(h));
            for (side, is_new) in [(&change.old, false), (&change.new, true)] {
                let Some(side) = side.as_ref().filter(|s| in_paths(s)) else { continue };
                if !touches {
                    // Its change crossed no definition, as indexed: that holds where the index
                    // diffed every change of the commit as text.
                    deferred.push((side, is_new, change.touched.is_empty() && all_diffed));
                    continue;
                }
                touched_paths.insert(side.path.as_slice());
                touched_sides.push((side, is_new));
                let tracked = if is_new { &mut news } else { &mut olds };
                let path = String::from_utf8_lossy(&side.path).into_owned();
                for symbol in reader.named(side)? {
                    if answers_any(&names, symbol) {
                        families.insert(crate::graph::family(&side.lang));
                        tracked.push(Instance {
                            path: path.clone(),
                            blob: side.blob,
                            symbol: symbol.clone(),
                            text: None,
                        });
                    }
                }
            }
        }
        // A rename's other half is of the same kind, in a language of the same family: the
        // untouched files of other languages, or of languages that cannot define one of these
        // kinds, are never read (nor their queries compiled: SQL's alone takes 150 ms).
        let kinds: HashSet<String> = olds.iter().chain(&news).map(|i| i.symbol.kind.clone()).collect();
        let mut events: Vec<Event<'g>> = Vec::new();
        let mut used_old = vec![false; olds.len()];
        let mut pending_new: Vec<Instance> = Vec::new();
        // Same file, same kind and qualified name: modified when its text or signature changed.
        for new in news {
            let same = olds.iter().enumerate().position(|(i, o)| {
                !used_old[i]
                    && o.path == new.path
                    && o.symbol.kind == new.symbol.kind
                    && o.symbol.qualified_name == new.symbol.qualified_name
            });
            match same {
                Some(i) => {
                    used_old[i] = true;
                    let old = &olds[i];
                    if old.symbol.signature != new.symbol.signature || reader.text(old) != reader.text(&new) {
                        events.push(paired(row, EventKind::Modified, old.clone(), new));
                    }
                }
                None => pending_new.push(new),
            }
        }
        // The other definitions of the touched files, and those of the files whose change
        // touched no tracked name, are read only when a rename is to be looked for: most of a
        // commit that moves many files, where the tracked symbol is found moved, need not be
        // parsed, nor the rest of a file where the tracked symbol is found changed.
        let tracked_now = names.clone();
        let mut untouched = |reader: &mut Reader<'_>, new_all: &mut Vec<Instance>, old_all: &mut Vec<Instance>| {
            if touched_sides.is_empty() && deferred.is_empty() {
                return Ok::<(), StoreError>(());
            }
            let mut wanted = std::mem::take(&mut touched_sides);
            if !deferred.is_empty() {
                let paths = std::mem::take(&mut touched_paths);
                // A change whose lines crossed no definition on either side, as indexed, has
                // none gone nor new: no rename's other half, never read.
                for (side, is_new, quiet) in may_hold(std::mem::take(&mut deferred), paths, (&families, &kinds)) {
                    if !quiet {
                        wanted.push((side, is_new));
                    }
                }
            }
            reader.prefetch(wanted.iter().map(|(side, _)| *side), true)?;
            for (side, is_new) in wanted {
                let path = String::from_utf8_lossy(&side.path).into_owned();
                let all = if is_new { &mut *new_all } else { &mut *old_all };
                for symbol in reader.symbols(side)?.iter().filter(|s| !answers_any(&tracked_now, s)) {
                    all.push(Instance { path: path.clone(), blob: side.blob, symbol: symbol.clone(), text: None });
                }
            }
            Ok(())
        };
        let mut still_new = Vec::new();
        for new in pending_new {
            // Another file, the same kind and qualified name: moved.
            let moved = olds.iter().enumerate().position(|(i, o)| {
                !used_old[i] && o.symbol.kind == new.symbol.kind && o.symbol.qualified_name == new.symbol.qualified_name
            });
            // The same file and name, out of a type or into one (a test method that became a
            // function when its class went): moved too.
            let moved = moved.or_else(|| {
                olds.iter().enumerate().position(|(i, o)| {
                    !used_old[i]
                        && o.path == new.path
                        && o.symbol.name == new.symbol.name
                        && callable(&o.symbol.kind) == callable(&new.symbol.kind)
                })
            });
            if let Some(i) = moved {
                used_old[i] = true;
                events.push(paired(row, EventKind::Moved, olds[i].clone(), new));
                continue;
            }
            untouched(&mut reader, &mut new_all, &mut old_all)?;
            // Another tracked name gone in the same commit (`run` became `run_all`, and the
            // query asked for both).
            let unused: Vec<usize> = (0..olds.len()).filter(|&i| !used_old[i]).collect();
            let gone: Vec<Instance> = unused.iter().map(|&i| olds[i].clone()).collect();
            if let Some(k) = rename_partner(&mut reader, &new, true, &gone, &new_all) {
                used_old[unused[k]] = true;
                events.push(paired(row, EventKind::Renamed, gone[k].clone(), new));
                continue;
            }
            // Another name, the same text otherwise: renamed (from a symbol gone from its file).
            let from = rename_partner(&mut reader, &new, true, &old_all, &new_all);
            match from {
                Some(i) => {
                    let old = old_all.remove(i);
                    // Older commits are about the old name.
                    names.push(segments(&old.symbol.name).into_iter().map(str::to_owned).collect());
                    reader.track(last_segments(&names));
                    // The commits ahead are read again for both names, at once.
                    read_ahead_to = at + 1;
                    candidates.extend(index.touching(&old.symbol.name)?);
                    events.push(paired(row, EventKind::Renamed, old, new));
                }
                None => still_new.push(new),
            }
        }
        for new in still_new {
            events.push(Event { commit: row, kind: EventKind::Added, before: None, after: Some(new) });
        }
        for (i, old) in olds.into_iter().enumerate() {
            if used_old[i] {
                continue;
            }
            untouched(&mut reader, &mut new_all, &mut old_all)?;
            // Renamed away: the same text under another name in the new sides.
            let to = rename_partner(&mut reader, &old, false, &new_all, &old_all);
            match to {
                Some(j) => {
                    let new = new_all.remove(j);
                    events.push(paired(row, EventKind::Renamed, old, new));
                }
                None => events.push(Event { commit: row, kind: EventKind::Deleted, before: Some(old), after: None }),
            }
        }
        out.events.extend(events);
    }
    out.events.truncate(query.limit);
    if query.show {
        for event in &mut out.events {
            for instance in [&mut event.before, &mut event.after].into_iter().flatten() {
                let text = reader.text(instance);
                instance.text = Some(String::from_utf8_lossy(&text[..text.len().min(8000)]).into_owned());
            }
        }
    }
    out.missing_blobs = reader.missing();
    Ok(out)
}
