//! `diff`: what changed on a branch, file by file and symbol by symbol, against the merge
//! base with another ref. Both sides come from per-blob records: nothing already indexed is
//! parsed again.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::error::ErrorCode;
use crate::extract::Role;
use crate::git::ObjectId;
use crate::query::{ContentReader, Detail};
use crate::store::{FileInfo, Store, SymbolRow};
use crate::view::{self, Scope};

/// A `diff` question.
#[derive(Clone, Debug)]
pub struct DiffRequest {
    /// The side with the changes (default: the working tree, or `HEAD` in a bare repository).
    pub target: Scope,
    /// The ref to compare against (default: the default branch).
    pub base: Option<String>,
    /// How much per symbol.
    pub detail: Detail,
}

/// One changed file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ChangedFile {
    /// The path after the change (before, for a deletion).
    pub path: String,
    /// `added`, `modified`, `deleted` or `renamed`.
    pub status: &'static str,
    /// For a rename: the path before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// The language.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub language: String,
}

/// One side of a changed symbol.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolSide {
    /// Path.
    pub path: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Kind.
    pub kind: String,
    /// Name.
    pub name: String,
    /// Qualified name (detail `signature` and up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified_name: Option<String>,
    /// Signature (detail `signature` and up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The symbol's text (detail `context`, capped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A symbol present on both sides with a difference.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ModifiedSymbol {
    /// Before.
    pub before: SymbolSide,
    /// After.
    pub after: SymbolSide,
    /// Whether the signature changed.
    pub signature_changed: bool,
    /// Whether the text of the symbol changed.
    pub body_changed: bool,
}

/// A symbol with the same stable id at another path.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct MovedSymbol {
    /// Before.
    pub from: SymbolSide,
    /// After.
    pub to: SymbolSide,
}

/// Symbol changes.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct SymbolChanges {
    /// New symbols.
    pub added: Vec<SymbolSide>,
    /// Changed symbols.
    pub modified: Vec<ModifiedSymbol>,
    /// Removed symbols.
    pub deleted: Vec<SymbolSide>,
    /// Symbols that moved to another file unchanged in API (same stable id).
    pub renamed: Vec<MovedSymbol>,
}

/// The answer of `diff`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DiffResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The side with the changes, as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// Its commit.
    pub commit: Option<String>,
    /// The ref compared against.
    pub base: String,
    /// The merge base of the two.
    pub merge_base: String,
    /// Changed files.
    pub changed_files: Vec<ChangedFile>,
    /// Changed symbols.
    pub symbols: SymbolChanges,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

type Key = (String, String); // kind, qualified name

fn side(info: &FileInfo, s: &SymbolRow, detail: Detail, content: Option<&[u8]>) -> SymbolSide {
    SymbolSide {
        path: info.path_str(),
        line_start: s.line_start,
        line_end: s.line_end,
        kind: s.kind.clone(),
        name: s.name.clone(),
        qualified_name: (detail >= Detail::Signature).then(|| s.qualified_name.clone()),
        signature: (detail >= Detail::Signature).then(|| s.signature.clone()),
        body: (detail >= Detail::Context)
            .then(|| content.and_then(|c| c.get(s.byte_start as usize..s.byte_end as usize)))
            .flatten()
            .map(|b| String::from_utf8_lossy(&b[..b.len().min(4000)]).into_owned()),
    }
}

fn symbols_of(store: &Store, engine: &Engine, info: &FileInfo) -> Result<Vec<SymbolRow>, Error> {
    let lang = if info.skip.is_some() { "" } else { info.lang.as_str() };
    let key = crate::indexer::record_key(lang, engine.workspace().max_file_size());
    Ok(match store.record(info.blob_id, lang, &key)? {
        Some(r) => store.symbols_of(r.id)?.into_iter().filter(|s| s.role == Role::Definition).collect(),
        None => Vec::new(),
    })
}

pub(super) fn run(engine: &Engine, request: &DiffRequest) -> Result<DiffResponse, Error> {
    let ws = engine.workspace();
    let repo = ws.git().ok_or_else(|| {
        Error::new(
            ErrorCode::NotARepository,
            format!("{} is not a git repository: diff compares commits", ws.root().display()),
        )
    })?;
    let local = repo.local();
    let base_name = match &request.base {
        Some(b) => b.clone(),
        None => view::default_branch(&local).ok_or_else(|| {
            Error::new(ErrorCode::UnknownRef, "no default branch (origin/HEAD, main or master) to compare with")
                .with_remedy("name the base: `git codecompass diff --base <ref>`")
        })?,
    };
    let base_commit = local.resolve(&base_name)?.commit_id;
    let (store, target) = engine.resolve(&request.target, Freshness::Strict)?;
    let target_commit =
        target.commit.ok_or_else(|| Error::new(ErrorCode::InvalidArgument, "the target has no commit yet"))?;
    let merge_base = local.merge_base(target_commit, base_commit)?.ok_or_else(|| {
        Error::new(ErrorCode::InvalidArgument, format!("`{base_name}` and the target share no history"))
    })?;
    let (_, base_view) = engine.resolve(&Scope::Ref(merge_base.to_hex()), Freshness::Strict)?;

    // Files: what is only on one side, matched by path, then renames by blob.
    let only_before = &base_view.view.bitmap - &target.view.bitmap;
    let only_after = &target.view.bitmap - &base_view.view.bitmap;
    let before: Vec<FileInfo> = store.file_infos(only_before.iter())?;
    let after: Vec<FileInfo> = store.file_infos(only_after.iter())?;
    let before_by_path: HashMap<Vec<u8>, &FileInfo> = before.iter().map(|f| (f.path.clone(), f)).collect();
    let after_by_path: HashMap<Vec<u8>, &FileInfo> = after.iter().map(|f| (f.path.clone(), f)).collect();
    let mut changed: BTreeMap<String, ChangedFile> = BTreeMap::new();
    let mut pairs: Vec<(Option<&FileInfo>, Option<&FileInfo>)> = Vec::new();
    let mut deleted_by_blob: HashMap<ObjectId, &FileInfo> = HashMap::new();
    for f in &before {
        if !after_by_path.contains_key(&f.path) {
            deleted_by_blob.insert(f.blob_id, f);
        }
    }
    let mut renamed_from: Vec<Vec<u8>> = Vec::new();
    for f in &after {
        let lang = f.lang.clone();
        if let Some(old) = before_by_path.get(&f.path) {
            changed.insert(
                f.path_str(),
                ChangedFile { path: f.path_str(), status: "modified", old_path: None, language: lang },
            );
            pairs.push((Some(old), Some(f)));
        } else if let Some(old) = deleted_by_blob.remove(&f.blob_id) {
            renamed_from.push(old.path.clone());
            changed.insert(
                f.path_str(),
                ChangedFile { path: f.path_str(), status: "renamed", old_path: Some(old.path_str()), language: lang },
            );
            pairs.push((Some(old), Some(f)));
        } else {
            changed.insert(
                f.path_str(),
                ChangedFile { path: f.path_str(), status: "added", old_path: None, language: lang },
            );
            pairs.push((None, Some(f)));
        }
    }
    for f in &before {
        if !after_by_path.contains_key(&f.path) && !renamed_from.contains(&f.path) {
            changed.insert(
                f.path_str(),
                ChangedFile { path: f.path_str(), status: "deleted", old_path: None, language: f.lang.clone() },
            );
            pairs.push((Some(f), None));
        }
    }

    // Symbols, from the records of both sides.
    let content = ContentReader { git: ws.git(), store_dir: ws.store_dir(), root: ws.root() };
    let reader = content.local();
    let read = |f: &FileInfo| -> Option<Vec<u8>> { content.read(reader.as_ref(), f) };
    let mut changes = SymbolChanges::default();
    let mut added_all: Vec<(SymbolSide, String)> = Vec::new();
    let mut deleted_all: Vec<(SymbolSide, String)> = Vec::new();
    for (old, new) in pairs {
        let old_syms = match old {
            Some(f) => symbols_of(&store, engine, f)?,
            None => Vec::new(),
        };
        let new_syms = match new {
            Some(f) => symbols_of(&store, engine, f)?,
            None => Vec::new(),
        };
        let old_content = old.and_then(read);
        let new_content = new.and_then(read);
        let old_map: HashMap<Key, &SymbolRow> =
            old_syms.iter().map(|s| ((s.kind.clone(), s.qualified_name.clone()), s)).collect();
        let new_map: HashMap<Key, &SymbolRow> =
            new_syms.iter().map(|s| ((s.kind.clone(), s.qualified_name.clone()), s)).collect();
        for s in &new_syms {
            let key = (s.kind.clone(), s.qualified_name.clone());
            let new_info = new.expect("new symbols come from a new file");
            match old_map.get(&key) {
                Some(o) => {
                    let old_info = old.expect("old symbols come from an old file");
                    let text = |c: &Option<Vec<u8>>, r: &SymbolRow| {
                        c.as_ref().and_then(|c| c.get(r.byte_start as usize..r.byte_end as usize)).map(<[u8]>::to_vec)
                    };
                    let body_changed = text(&old_content, o) != text(&new_content, s);
                    let signature_changed = o.signature != s.signature;
                    if body_changed || signature_changed {
                        changes.modified.push(ModifiedSymbol {
                            before: side(old_info, o, request.detail, old_content.as_deref()),
                            after: side(new_info, s, request.detail, new_content.as_deref()),
                            signature_changed,
                            body_changed,
                        });
                    }
                }
                None => {
                    added_all.push((side(new_info, s, request.detail, new_content.as_deref()), s.stable_id.clone()))
                }
            }
        }
        for s in &old_syms {
            if !new_map.contains_key(&(s.kind.clone(), s.qualified_name.clone())) {
                let old_info = old.expect("old symbols come from an old file");
                deleted_all.push((side(old_info, s, request.detail, old_content.as_deref()), s.stable_id.clone()));
            }
        }
    }
    // A symbol deleted in one file and added with the same stable id in another moved.
    for (added, id) in added_all {
        match deleted_all.iter().position(|(d, did)| *did == id && d.path != added.path) {
            Some(i) => {
                let (from, _) = deleted_all.remove(i);
                changes.renamed.push(MovedSymbol { from, to: added });
            }
            None => changes.added.push(added),
        }
    }
    changes.deleted = deleted_all.into_iter().map(|(d, _)| d).collect();
    Ok(DiffResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: target.name.clone(),
        commit: Some(target_commit.to_hex()),
        base: base_name,
        merge_base: merge_base.to_hex(),
        changed_files: changed.into_values().collect(),
        symbols: changes,
        metadata: metadata(&target, "complete"),
    })
}
