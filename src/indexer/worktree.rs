//! The working tree's view (derived from `HEAD`'s tree view and the walk's changes) and the
//! live view of a directory that is not a repository.

use std::collections::HashMap;

use roaring::RoaringBitmap;

use super::state::{WorktreeState, derivation, gaps_filled, worktree_state};
use super::{Entry, IndexError, Indexer, Plan, ViewReport, repo_ignore_bytes};
use crate::git::{FileMode, ObjectId};
use crate::view::{
    self,
    ignore_rules::{IGNORE_FILE, IgnoreRules},
};

impl Indexer<'_> {
    pub(super) fn index_worktree(&self) -> Result<ViewReport, IndexError> {
        // The worktree view derives from HEAD's tree view: after a checkout that one is new,
        // so it is derived while the tree is walked (the walk needs no lock and reads only).
        let head = self.git().head()?;
        let (state, prepared) = std::thread::scope(|scope| {
            let walk = scope.spawn(|| worktree_state(self.ws));
            let prepared = head.map(|h| self.ensure_tree_view(&self.git(), h.commit_id, h.tree_id));
            let state = walk.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (state, prepared)
        });
        self.index_worktree_state(state?, prepared.transpose()?)
    }

    /// Brings the worktree view up to date with an already computed state; `prepared` is
    /// HEAD's tree view if it was already brought up to date (used when it is the state's).
    pub(super) fn index_worktree_state(
        &self,
        state: WorktreeState,
        prepared: Option<ViewReport>,
    ) -> Result<ViewReport, IndexError> {
        let repo = self.git();
        let WorktreeState { head, changes, disk_rules, fingerprint } = state;
        let mut head_report = None;
        if let Some(head) = head {
            let mut report = match prepared {
                Some(report) if report.tree == Some(head.tree_id) => report,
                _ => self.ensure_tree_view(&repo, head.commit_id, head.tree_id)?,
            };
            if let Some(branch) = repo.head_ref_name() {
                let view_id =
                    self.store.view(&report.view_key)?.map(|v| v.id).expect("the HEAD view was just published");
                let batch = self.store.begin()?;
                batch.put_ref(&branch, "ref", Some(head.commit_id), Some(head.tree_id), view_id, None)?;
                batch.commit()?;
                report.ref_name = branch;
            }
            head_report = Some(report);
        }
        let key = self.ws.worktree_view_key();
        let detail = serde_json::json!({
            "path": self.ws.root().to_string_lossy(),
            "head": repo.head_ref_name(),
        })
        .to_string();
        if let (false, Some(existing)) = (self.options.force, self.store.view(&key)?)
            && existing.fingerprint.as_deref() == Some(fingerprint.as_str())
            && existing.tree == head.map(|h| h.tree_id)
            && !gaps_filled(self.store, &repo, &existing, self.ws.fetch_missing())?
        {
            let batch = self.store.begin()?;
            batch.put_ref(
                &key,
                "worktree",
                head.map(|h| h.commit_id),
                head.map(|h| h.tree_id),
                existing.id,
                Some(&detail),
            )?;
            batch.commit()?;
            return Ok(ViewReport {
                ref_name: key.clone(),
                view_key: key,
                commit: head.map(|h| h.commit_id),
                tree: head.map(|h| h.tree_id),
                files: existing.files as u64,
                symbols: existing.symbols as u64,
                up_to_date: true,
                ..head_report.unwrap_or_default()
            });
        }

        let (base_key, base_view) = match head {
            Some(h) => {
                let k = view::tree_view_key(h.tree_id);
                let v = self.store.view(&k)?;
                (Some(k), v)
            }
            None => (None, None),
        };
        let head_rules_same = match head {
            Some(h) => {
                self.tree_rules(&repo, h.tree_id)?.len() == IgnoreRules::parse(&disk_rules).len()
                    && repo_ignore_bytes(&repo, h.tree_id)? == disk_rules
            }
            None => disk_rules.is_empty(),
        };
        let mut plan = match (head, base_view, head_rules_same) {
            (Some(_), Some(base), true) => Plan {
                base_key,
                base_bitmap: base.bitmap,
                base_scan_bitmap: base.scan_bitmap,
                base_symbols: base.symbols,
                removed: Vec::new(),
                added: Vec::new(),
                rules: IgnoreRules::parse(&disk_rules),
            },
            (Some(h), _, _) => {
                let mut plan = self.full_plan(&repo, h.tree_id)?;
                plan.rules = IgnoreRules::parse(&disk_rules);
                plan
            }
            (None, _, _) => Plan {
                base_key: None,
                base_bitmap: RoaringBitmap::new(),
                base_scan_bitmap: RoaringBitmap::new(),
                base_symbols: 0,
                removed: Vec::new(),
                added: Vec::new(),
                rules: IgnoreRules::parse(&disk_rules),
            },
        };
        let head_tree = head.map(|h| h.tree_id);
        let head_files: HashMap<Vec<u8>, ObjectId> = if plan.base_key.is_none() && head_tree.is_some() {
            // Full plan: the HEAD files are in `added`; apply the changes to that list.
            plan.added.iter().map(|e| (e.path.clone(), e.blob_id)).collect()
        } else {
            HashMap::new()
        };
        let mut replace: HashMap<Vec<u8>, Option<Entry>> = HashMap::new();
        for change in changes {
            let head_blob = if plan.base_key.is_some() {
                self.blob_in_view(&plan.base_bitmap, &change.path)?
            } else {
                head_files.get(&change.path).copied()
            };
            match change.now {
                None => {
                    if let Some(old) = head_blob {
                        plan.removed.push((change.path.clone(), old));
                        replace.insert(change.path, None);
                    }
                }
                Some((blob_id, _, _)) if Some(blob_id) == head_blob => {}
                Some((blob_id, mode, data)) => {
                    if let Some(old) = head_blob {
                        plan.removed.push((change.path.clone(), old));
                    }
                    let entry = Entry { path: change.path.clone(), blob_id, mode, content: Some(data) };
                    replace.insert(change.path, Some(entry));
                }
            }
        }
        if plan.base_key.is_none() && head_tree.is_some() {
            plan.added.retain(|e| !replace.contains_key(&e.path));
            plan.removed.clear();
        }
        plan.added.extend(replace.into_values().flatten());
        let mut report = self.build(Some(&repo), plan, &key, "worktree", head_tree, Some(&fingerprint))?;
        let view_id = self.store.view(&key)?.map(|v| v.id).expect("the worktree view was just published");
        let batch = self.store.begin()?;
        batch.put_ref(&key, "worktree", head.map(|h| h.commit_id), head_tree, view_id, Some(&detail))?;
        batch.commit()?;
        report.ref_name = key;
        report.commit = head.map(|h| h.commit_id);
        report.tree = head_tree;
        if let Some(h) = head_report {
            // The HEAD view's work is part of this run's work.
            report.blobs_parsed += h.blobs_parsed;
            report.blobs_shared += h.blobs_shared;
            report.symbols_extracted += h.symbols_extracted;
            report.missing_objects += h.missing_objects;
            for (reason, n) in h.skipped {
                *report.skipped.entry(reason).or_default() += n;
            }
        }
        Ok(report)
    }

    /// The blob at `path` among the file versions of `bitmap`.
    fn blob_in_view(&self, bitmap: &RoaringBitmap, path: &[u8]) -> Result<Option<ObjectId>, IndexError> {
        let batch = self.store.begin()?;
        let found = batch.file_versions_at(path)?.into_iter().find(|(id, _)| bitmap.contains(*id)).map(|(_, b)| b);
        drop(batch);
        Ok(found)
    }

    pub(super) fn index_live(&self) -> Result<ViewReport, IndexError> {
        let root = self.ws.root().to_owned();
        let store_dir = self.ws.store_dir().to_owned();
        let rules = IgnoreRules::parse(&std::fs::read(root.join(IGNORE_FILE)).unwrap_or_default());
        let cache = crate::view::live::cache_root();
        let mut added = Vec::new();
        let walker = ::ignore::WalkBuilder::new(&root)
            .hidden(false)
            .git_ignore(true)
            .git_exclude(false)
            .require_git(false)
            // Never the index itself, nor any other kept in the cache (under a home directory).
            .filter_entry(move |e| {
                e.path() != store_dir && e.file_name() != ".git" && cache.as_deref().is_none_or(|c| e.path() != c)
            })
            .build();
        for entry in walker {
            let Ok(entry) = entry else { continue };
            let Some(file_type) = entry.file_type() else {
                continue;
            };
            if !file_type.is_file() {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(&root) else {
                continue;
            };
            let path = relative.to_string_lossy().replace('\\', "/").into_bytes();
            let data =
                std::fs::read(entry.path()).map_err(|e| IndexError::Io { path: entry.path().to_owned(), source: e })?;
            let blob_id = ObjectId::for_blob(&data);
            added.push(Entry { path, blob_id, mode: FileMode::Regular, content: Some(data) });
        }
        added.sort_by(|a, b| a.path.cmp(&b.path));
        let mut hasher = blake3::Hasher::new();
        for e in &added {
            hasher.update(&e.path);
            hasher.update(&e.blob_id.0);
        }
        hasher.update(derivation(self.max_file_size).as_bytes());
        let fingerprint = hasher.finalize().to_hex()[..32].to_owned();
        let key = "live".to_owned();
        if let (false, Some(existing)) = (self.options.force, self.store.view(&key)?)
            && existing.fingerprint.as_deref() == Some(fingerprint.as_str())
        {
            return Ok(ViewReport {
                ref_name: key.clone(),
                view_key: key,
                files: existing.files as u64,
                symbols: existing.symbols as u64,
                up_to_date: true,
                ..ViewReport::default()
            });
        }
        let plan = Plan {
            base_key: None,
            base_bitmap: RoaringBitmap::new(),
            base_scan_bitmap: RoaringBitmap::new(),
            base_symbols: 0,
            removed: Vec::new(),
            added,
            rules,
        };
        let mut report = self.build(None, plan, &key, "live", None, Some(&fingerprint))?;
        let view_id = self.store.view(&key)?.map(|v| v.id).expect("the live view was just published");
        let batch = self.store.begin()?;
        batch.put_ref(&key, "live", None, None, view_id, None)?;
        batch.commit()?;
        report.ref_name = key;
        Ok(report)
    }
}
