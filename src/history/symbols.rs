//! `history NAME`: the commits where a symbol was added, modified (its text or signature
//! changed), moved to another file, renamed, and deleted, from the records of the blobs each
//! commit changed. Only commits that changed a file version holding the name are read; a
//! rename found on the way adds the old name's commits to the ones still to come.

use std::collections::{HashMap, HashSet};

use super::walk::{Graph, WalkOptions};
use crate::extract::Role;
use crate::git::{LocalRepo, ObjectId};
use crate::query::pathspec::Pathspecs;
use crate::store::{ChangedSide, CommitRow, Store, StoreError, SymbolRow};

/// What happened to the symbol in one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// It appeared.
    Added,
    /// Its text or signature changed.
    Modified,
    /// It went to another file, unchanged in name.
    Moved,
    /// Its name changed (its text otherwise the same).
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
    pub symbol: SymbolRow,
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
    /// At most this many events.
    pub limit: usize,
}

/// What `history` found.
pub struct SymbolHistory<'g> {
    /// Events, newest first.
    pub events: Vec<Event<'g>>,
    /// Whether the walk reached commits that are not stored.
    pub boundary: bool,
    /// Commits whose changed files were read.
    pub checked: usize,
}

/// Splits `a::b.c` into segments, as `locate` does.
fn segments(qualified: &str) -> Vec<&str> {
    qualified.split(['.', ':', '#', '\\', '/', '>', ' ']).filter(|s| !s.is_empty()).collect()
}

/// Whether a symbol answers to the query's segments: its name equals the last one, and with
/// more segments, its qualified name ends with them.
fn answers(symbol: &SymbolRow, parts: &[&str]) -> bool {
    let Some(last) = parts.last() else { return false };
    if symbol.role != Role::Definition || !symbol.name.eq_ignore_ascii_case(last) {
        return false;
    }
    if parts.len() == 1 {
        return symbol.name == *last;
    }
    let have = segments(&symbol.qualified_name);
    have.len() >= parts.len()
        && have[have.len() - parts.len()..].iter().zip(parts).all(|(a, b)| a.eq_ignore_ascii_case(b))
}

struct Reader<'a> {
    store: &'a Store,
    repo: &'a LocalRepo,
    record_key: &'a dyn Fn(&str) -> String,
    symbols: HashMap<(ObjectId, String), Vec<SymbolRow>>,
    contents: HashMap<ObjectId, Vec<u8>>,
}

impl Reader<'_> {
    fn symbols(&mut self, side: &ChangedSide) -> Result<&[SymbolRow], StoreError> {
        let lang = if side.skip.is_some() { String::new() } else { side.lang.clone() };
        let key = (side.blob, lang.clone());
        if !self.symbols.contains_key(&key) {
            let rows = match self.store.record(side.blob, &lang, &(self.record_key)(&lang))? {
                Some(record) => self.store.symbols_of(record.id)?,
                None => Vec::new(),
            };
            self.symbols.insert(key.clone(), rows);
        }
        Ok(&self.symbols[&key])
    }

    fn text(&mut self, instance: &Instance) -> Vec<u8> {
        let content = self.contents.entry(instance.blob).or_insert_with(|| {
            let mut buf = Vec::new();
            let _ = self.repo.read_blob_into(instance.blob, &mut buf);
            buf
        });
        content.get(instance.symbol.byte_start as usize..instance.symbol.byte_end as usize).unwrap_or_default().to_vec()
    }

    /// The text with the symbol's own name blanked out: equal for a rename that changed
    /// nothing else.
    fn renamed_text(&mut self, instance: &Instance) -> Vec<u8> {
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

/// The history of a symbol from `tip`, newest first.
pub fn symbol_history<'g>(
    store: &Store,
    repo: &LocalRepo,
    graph: &'g Graph,
    tip: ObjectId,
    query: &SymbolQuery<'_>,
) -> Result<SymbolHistory<'g>, StoreError> {
    let mut names: Vec<Vec<String>> = vec![segments(query.name).into_iter().map(str::to_owned).collect()];
    let mut candidates = commits_holding(store, &names[0], query.record_key)?;
    let mut no_simplify = |_: &CommitRow| None;
    let walk = graph.walk(tip, query.walk, &mut no_simplify);
    let mut reader =
        Reader { store, repo, record_key: query.record_key, symbols: HashMap::new(), contents: HashMap::new() };
    let mut out = SymbolHistory { events: Vec::new(), boundary: walk.boundary, checked: 0 };
    for row in walk.commits {
        if out.events.len() >= query.limit {
            break;
        }
        if (row.parents.len() > 1 && !query.walk.first_parent) || !candidates.contains(&row.id) {
            continue;
        }
        out.checked += 1;
        let changes = store.commit_changes(row.id)?;
        let in_paths = |side: &ChangedSide| {
            query.pathspecs.is_empty() || query.pathspecs.matches(&String::from_utf8_lossy(&side.path))
        };
        // The tracked symbols on each side, and every definition of the other sides (for
        // renames).
        let mut olds: Vec<Instance> = Vec::new();
        let mut news: Vec<Instance> = Vec::new();
        let mut old_all: Vec<Instance> = Vec::new();
        let mut new_all: Vec<Instance> = Vec::new();
        for change in &changes {
            for (side, tracked, all) in [(&change.old, &mut olds, &mut old_all), (&change.new, &mut news, &mut new_all)]
            {
                let Some(side) = side.as_ref().filter(|s| in_paths(s)) else { continue };
                let path = String::from_utf8_lossy(&side.path).into_owned();
                for symbol in reader.symbols(side)? {
                    if symbol.role != Role::Definition {
                        continue;
                    }
                    let instance = Instance { path: path.clone(), blob: side.blob, symbol: symbol.clone() };
                    if names.iter().any(|n| answers(symbol, &n.iter().map(String::as_str).collect::<Vec<_>>())) {
                        tracked.push(instance);
                    } else {
                        all.push(instance);
                    }
                }
            }
        }
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
                        events.push(Event {
                            commit: row,
                            kind: EventKind::Modified,
                            before: Some(old.clone()),
                            after: Some(new),
                        });
                    }
                }
                None => pending_new.push(new),
            }
        }
        let mut still_new = Vec::new();
        for new in pending_new {
            // Another file, the same kind and qualified name: moved.
            let moved = olds.iter().enumerate().position(|(i, o)| {
                !used_old[i] && o.symbol.kind == new.symbol.kind && o.symbol.qualified_name == new.symbol.qualified_name
            });
            if let Some(i) = moved {
                used_old[i] = true;
                events.push(Event {
                    commit: row,
                    kind: EventKind::Moved,
                    before: Some(olds[i].clone()),
                    after: Some(new),
                });
                continue;
            }
            // Another name, the same text otherwise: renamed (from a symbol gone from its file).
            let target = reader.renamed_text(&new);
            let from = old_all.iter().position(|o| {
                o.symbol.kind == new.symbol.kind
                    && !new_all.iter().any(|n| n.path == o.path && n.symbol.qualified_name == o.symbol.qualified_name)
                    && reader.renamed_text(o) == target
            });
            match from {
                Some(i) => {
                    let old = old_all.remove(i);
                    // Older commits are about the old name.
                    names.push(segments(&old.symbol.name).into_iter().map(str::to_owned).collect());
                    candidates.extend(commits_holding(store, names.last().expect("just pushed"), query.record_key)?);
                    events.push(Event { commit: row, kind: EventKind::Renamed, before: Some(old), after: Some(new) });
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
            // Renamed away: the same text under another name in the new sides.
            let target = reader.renamed_text(&old);
            let to = new_all.iter().position(|n| {
                n.symbol.kind == old.symbol.kind
                    && !old_all.iter().any(|o| o.path == n.path && o.symbol.qualified_name == n.symbol.qualified_name)
                    && reader.renamed_text(n) == target
            });
            match to {
                Some(j) => {
                    let new = new_all.remove(j);
                    events.push(Event { commit: row, kind: EventKind::Renamed, before: Some(old), after: Some(new) });
                }
                None => events.push(Event { commit: row, kind: EventKind::Deleted, before: Some(old), after: None }),
            }
        }
        out.events.extend(events);
    }
    out.events.truncate(query.limit);
    Ok(out)
}

/// The commits (row ids) that changed a file version holding a definition answering `parts`.
fn commits_holding(
    store: &Store,
    parts: &[String],
    record_key: &dyn Fn(&str) -> String,
) -> Result<HashSet<i64>, StoreError> {
    let Some(last) = parts.last() else { return Ok(HashSet::new()) };
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let mut fvs = Vec::new();
    for (symbol, fv, lang, extractor) in store.symbols_named(last)? {
        if extractor == record_key(&lang) && answers(&symbol, &parts) {
            fvs.push(fv);
        }
    }
    fvs.sort_unstable();
    fvs.dedup();
    store.commits_changing(&fvs)
}
