//! `doctor`: everything `status` says, plus the full-text index, hooks, ignore rules and
//! leftovers of crashed runs, each problem with the exact command that fixes it.
//!
//! Doctor only reads: it never creates, repairs or locks anything, so it is safe to run on a
//! broken store and while another process writes.

use serde::Serialize;

use super::status::{Counts, JobStatus, ViewStatus};
use super::{Engine, Error, PROTOCOL_VERSION};
use crate::store::{self, StoreState};
use crate::view::ignore_rules::{self, IGNORE_FILE, IgnoreRules};

/// The answer of `doctor`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DoctorResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// No problem of severity `error` or `warning`.
    pub healthy: bool,
    /// The workspace root.
    pub workspace: String,
    /// `git` or `live`.
    pub workspace_kind: &'static str,
    /// The store.
    pub store: StoreHealth,
    /// The full-text index.
    pub fulltext: FulltextHealth,
    /// Indexed refs and worktrees with their freshness.
    pub views: Vec<ViewStatus>,
    /// The git hooks (`None` outside a repository with a working tree).
    pub hooks: Option<HooksHealth>,
    /// `.codecompassignore` and the built-in skips, counted over `HEAD`'s tree.
    pub ignore_rules: Option<IgnoreHealth>,
    /// Jobs interrupted and not yet followed by a success.
    pub interrupted_jobs: Vec<JobStatus>,
    /// Directories crashed runs left behind.
    pub leftovers: Vec<String>,
    /// What is wrong, each with its fix.
    pub problems: Vec<Problem>,
}

/// The store's state, versions and sizes.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct StoreHealth {
    /// Where it is.
    pub dir: String,
    /// `compatible`, `not_indexed`, `reindex_required` or `corrupt`.
    pub state: &'static str,
    /// Why, when not compatible.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The pid of the process writing it now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_pid: Option<u32>,
    /// The versions of this build.
    pub build_versions: VersionSet,
    /// The versions the store was written with (from its `meta`).
    pub store_versions: Option<VersionSet>,
    /// The tool that created it.
    pub created_by: Option<String>,
    /// Bytes on disk.
    pub bytes: Sizes,
    /// Row counts.
    pub counts: Counts,
}

/// A set of version numbers.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct VersionSet {
    /// Store schema.
    pub schema: Option<String>,
    /// Extractor.
    pub extractor: Option<String>,
    /// Full-text index format.
    pub index_format: Option<String>,
}

/// Bytes on disk, by part.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Sizes {
    /// Everything.
    pub total: u64,
    /// `store.sqlite` and its WAL.
    pub database: u64,
    /// `fts/`.
    pub fulltext: u64,
    /// `blobs/` (contents of dirty files).
    pub blobs: u64,
}

/// The full-text index.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FulltextHealth {
    /// `ok`, `missing`, `unreadable` or `not_checked` (the store is not compatible).
    pub state: &'static str,
    /// Documents (including those of file versions no view holds).
    pub documents: u64,
    /// Segments.
    pub segments: u64,
    /// Why, when unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The hooks.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HooksHealth {
    /// Where git runs hooks from.
    pub hooks_dir: String,
    /// Ours, installed (alone or chained to the user's).
    pub installed: Vec<String>,
    /// Ours, absent (possibly with someone else's in their place).
    pub missing: Vec<String>,
    /// Whether `git-codecompass` is on `PATH`.
    pub binary_on_path: bool,
}

/// The ignore rules.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct IgnoreHealth {
    /// Which `.codecompassignore` was read: `worktree` (on disk), `HEAD`, or `none`.
    pub source: &'static str,
    /// Active patterns.
    pub patterns: usize,
    /// Files in `HEAD`'s tree.
    pub files: u64,
    /// Of them, left out by `.codecompassignore`.
    pub files_ignored: u64,
    /// Of the rest, listed but not parsed by a built-in rule (lock files, vendored, minified).
    pub files_builtin_skipped: u64,
}

/// One problem and its fix.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Problem {
    /// `error` (answers are refused or wrong), `warning` (answers are stale or slow) or
    /// `info`.
    pub severity: &'static str,
    /// A stable name for the problem.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// The exact command that fixes it.
    pub fix: String,
}

fn problem(severity: &'static str, code: &'static str, message: String, fix: impl Into<String>) -> Problem {
    Problem { severity, code, message, fix: fix.into() }
}

fn file_size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Quotes a path for a shell command.
fn quoted(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    if text.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b)) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// With `quick`, SQLite's quick check instead of its integrity check, and only the full-text
/// files changed since they were last verified (no per-document count).
pub(super) fn run(engine: &Engine, quick: bool) -> Result<DoctorResponse, Error> {
    let ws = engine.workspace();
    let dir = ws.store_dir();
    let mut problems = Vec::new();
    let (state, detail) = store::Store::classify(dir);
    let status = match engine.status() {
        Ok(s) => Some(s),
        Err(e) => {
            problems.push(problem(
                "error",
                "store_unreadable",
                format!("the index cannot be read: {e}"),
                "git codecompass index --force",
            ));
            None
        }
    };

    // Store: state, versions, sizes.
    let meta = |key: &str| -> Option<String> {
        let conn = store::read_connection(dir).ok()?;
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).ok()
    };
    let store_versions = (state != StoreState::NotIndexed).then(|| VersionSet {
        schema: meta("schema_version"),
        extractor: meta("extractor_version"),
        index_format: meta("index_format_version"),
    });
    let database = file_size(&dir.join("store.sqlite")) + file_size(&dir.join("store.sqlite-wal"));
    let fts_dir = crate::index::dir_of(dir);
    let health = StoreHealth {
        dir: dir.to_string_lossy().into_owned(),
        state: state.as_str(),
        detail: detail.clone(),
        writer_pid: status.as_ref().and_then(|s| s.writer_pid),
        build_versions: VersionSet {
            schema: Some(store::STORE_SCHEMA_VERSION.to_string()),
            extractor: Some(crate::extract::EXTRACTOR_VERSION.to_string()),
            index_format: Some(crate::index::INDEX_FORMAT_VERSION.to_string()),
        },
        store_versions,
        created_by: if state == StoreState::NotIndexed { None } else { meta("created_by") },
        bytes: Sizes {
            total: crate::store::dir_size(dir),
            database,
            fulltext: crate::store::dir_size(&fts_dir),
            blobs: crate::store::dir_size(&dir.join("blobs")),
        },
        counts: status.as_ref().map(|s| s.counts.clone()).unwrap_or_default(),
    };
    match state {
        StoreState::Compatible => {}
        StoreState::NotIndexed => problems.push(problem(
            "warning",
            "not_indexed",
            "nothing is indexed yet: the first query will index the repository".to_owned(),
            "git codecompass index",
        )),
        StoreState::ReindexRequired | StoreState::Corrupt => problems.push(problem(
            "error",
            "index_incompatible",
            format!("the index is {state}: {detail}"),
            "git codecompass index --force",
        )),
    }
    let older_format = health
        .store_versions
        .as_ref()
        .and_then(|v| v.index_format.as_deref()?.parse::<u32>().ok())
        .filter(|&f| f < crate::index::INDEX_FORMAT_VERSION);
    if let Some(format) = older_format.filter(|_| state == StoreState::Compatible) {
        problems.push(problem(
            "info",
            "index_format_older",
            format!(
                "the full-text index has format version {format}: exact search reads every file for a pattern \
                 without three ASCII characters in a row (`été`, `中文`), where version {} narrows them",
                crate::index::INDEX_FORMAT_VERSION
            ),
            "git codecompass index --force",
        ));
    }
    if let Some(pid) = health.writer_pid {
        problems.push(problem(
            "info",
            "writer_running",
            format!("process {pid} is writing the index now; readers answer from the last published state"),
            "none needed",
        ));
    }

    // SQLite's own check of its pages and indexes.
    if state == StoreState::Compatible {
        let damage = crate::store::Store::damage(dir, !quick);
        if !damage.is_empty() {
            problems.push(problem(
                "error",
                "store_damaged",
                format!("the store's database is damaged: {}", damage.join("; ")),
                "git codecompass index --force",
            ));
        }
    }

    // The full-text index: present and readable.
    let fulltext = if state != StoreState::Compatible {
        FulltextHealth { state: "not_checked", documents: 0, segments: 0, detail: None }
    } else if !crate::index::exists(dir) {
        if health.counts.file_versions > 0 {
            problems.push(problem(
                "error",
                "fulltext_missing",
                "the full-text index is missing, so search finds nothing".to_owned(),
                "git codecompass index --force",
            ));
        }
        FulltextHealth { state: "missing", documents: 0, segments: 0, detail: None }
    } else {
        match crate::index::FullText::open(dir).and_then(|f| f.reader().map(|r| (r.searcher(), f))) {
            Ok((searcher, fulltext)) => {
                let mut health = FulltextHealth {
                    state: "ok",
                    documents: searcher.num_docs(),
                    segments: searcher.segment_readers().len() as u64,
                    detail: None,
                };
                // Every file's checksum, then every documented file version's documents.
                let scope = if quick { crate::index::Verify::Changed } else { crate::index::Verify::All };
                let damaged = fulltext.verify(scope, false);
                let missing = (!quick)
                    .then(|| crate::store::Store::open(dir, false).ok())
                    .flatten()
                    .and_then(|store| store.documented_file_versions().ok())
                    .map(|documented| {
                        let mut present = roaring::RoaringBitmap::new();
                        for segment in searcher.segment_readers() {
                            if let Ok(column) = crate::index::FileVersions::of(segment) {
                                present.extend(segment.doc_ids_alive().filter_map(|doc| column.get(doc)));
                            }
                        }
                        documented.len() - (&documented & &present).len()
                    })
                    .unwrap_or(0);
                match damaged {
                    Ok(files) if !files.is_empty() => {
                        problems.push(problem(
                            "error",
                            "fulltext_damaged",
                            format!("full-text files fail their checksum: {}", files.join(", ")),
                            "git codecompass index --force",
                        ));
                        health.state = "damaged";
                        health.detail = Some(files.join(", "));
                    }
                    Err(e) => {
                        problems.push(problem(
                            "error",
                            "fulltext_damaged",
                            format!("the full-text files cannot be verified: {e}"),
                            "git codecompass index --force",
                        ));
                        health.state = "damaged";
                        health.detail = Some(e.to_string());
                    }
                    Ok(_) if missing > 0 => {
                        problems.push(problem(
                            "error",
                            "fulltext_incomplete",
                            format!("{missing} indexed files have no full-text documents, so search misses them"),
                            "git codecompass index --force",
                        ));
                        health.state = "incomplete";
                    }
                    Ok(_) => {}
                }
                health
            }
            Err(e) => {
                problems.push(problem(
                    "error",
                    "fulltext_unreadable",
                    format!("the full-text index cannot be opened: {e}"),
                    "git codecompass index --force",
                ));
                FulltextHealth { state: "unreadable", documents: 0, segments: 0, detail: Some(e.to_string()) }
            }
        }
    };

    if state == StoreState::Compatible
        && let Ok(store) = crate::store::Store::open(dir, false)
    {
        // The references of records (the symbol graph): every stored record decodes.
        if let Ok((_, damaged)) = store.check_occurrences()
            && damaged > 0
        {
            problems.push(problem(
                "error",
                "references_damaged",
                format!(
                    "the stored references of {damaged} files do not decode, so references and call graphs miss them"
                ),
                "git codecompass index --force",
            ));
        }

        // Space gc would give back: records no file version needs (an older size limit or
        // extractor, files of dropped views) and the database's free pages.
        let unneeded = if quick {
            0
        } else {
            crate::indexer::unneeded_records(store.conn(), ws.max_file_size()).map_or(0, |r| r.len())
        };
        let free = store.sparse().ok().flatten().map_or(0, |(free, _)| free);
        if unneeded > 0 || free > 0 {
            let mut held = Vec::new();
            if unneeded > 0 {
                held.push(format!(
                    "{unneeded} records no indexed file needs (of an older size limit or extractor, or of files no view holds)"
                ));
            }
            if free > 0 {
                held.push(format!("{:.1} MiB of free pages in its database", free as f64 / 1048576.0));
            }
            problems.push(problem(
                "info",
                "space_reclaimable",
                format!("the store holds {}: gc gives the space back", held.join(" and ")),
                "git codecompass gc",
            ));
        }
    }

    // Views and their freshness.
    let views = status.as_ref().map(|s| s.refs.clone()).unwrap_or_default();
    for v in views.iter().filter(|v| v.freshness_status != "fresh") {
        let (message, fix) = match (v.kind.as_str(), &v.commit, &v.path) {
            ("worktree", _, Some(path)) => (
                format!("the worktree view of {path} is stale"),
                format!("git -C {} codecompass index", quoted(std::path::Path::new(path))),
            ),
            ("ref", None, _) => (format!("`{}` no longer exists", v.name), "git codecompass gc".to_owned()),
            _ => (format!("`{}` is stale", v.name), format!("git codecompass index --ref {}", v.name)),
        };
        problems.push(problem("warning", "stale_view", message, fix));
    }

    // Hooks.
    let hooks = match ws.git() {
        Some(repo) if ws.has_worktree() => match crate::hooks::status(repo) {
            Ok(report) => {
                let (installed, missing): (Vec<_>, Vec<_>) =
                    report.hooks.iter().partition(|h| h.state == "installed" || h.state == "installed_chained");
                if !missing.is_empty() {
                    problems.push(problem(
                        "info",
                        "hooks_not_installed",
                        format!(
                            "{} of {} hooks are not installed: branch switches, merges and commits are indexed on the next query instead of in the background",
                            missing.len(),
                            report.hooks.len()
                        ),
                        "git codecompass hooks install",
                    ));
                }
                if !installed.is_empty() && !report.binary_on_path {
                    problems.push(problem(
                        "warning",
                        "binary_not_on_path",
                        "hooks are installed but git-codecompass is not on PATH, so they do nothing".to_owned(),
                        "cargo install --locked --path <codecompass source>",
                    ));
                }
                Some(HooksHealth {
                    hooks_dir: report.hooks_dir.clone(),
                    installed: installed.iter().map(|h| h.name.to_owned()).collect(),
                    missing: missing.iter().map(|h| h.name.to_owned()).collect(),
                    binary_on_path: report.binary_on_path,
                })
            }
            Err(e) => {
                problems.push(problem(
                    "warning",
                    "hooks_unreadable",
                    format!("the hooks cannot be read: {e}"),
                    "git codecompass hooks status",
                ));
                None
            }
        },
        _ => None,
    };

    // Ignore rules, counted over HEAD's tree.
    let ignore_rules = ws.git().and_then(|repo| {
        let local = repo.local();
        let head = local.head().ok().flatten()?;
        let files = local.list_tree(head.tree_id).ok()?;
        let disk = ws.has_worktree().then(|| std::fs::read(ws.root().join(IGNORE_FILE)).ok()).flatten();
        let (source, rules) = match disk {
            Some(bytes) => ("worktree", IgnoreRules::parse(&bytes)),
            None => match files.iter().find(|f| f.path == IGNORE_FILE.as_bytes()) {
                Some(f) => {
                    let mut buf = Vec::new();
                    local.read_blob_into(f.blob_id, &mut buf).ok()?;
                    ("HEAD", IgnoreRules::parse(&buf))
                }
                None => ("none", IgnoreRules::none()),
            },
        };
        let ignored = files.iter().filter(|f| rules.excludes(&f.path)).count() as u64;
        let builtin =
            files.iter().filter(|f| !rules.excludes(&f.path) && ignore_rules::builtin_skip(&f.path).is_some()).count()
                as u64;
        Some(IgnoreHealth {
            source,
            patterns: rules.len(),
            files: files.len() as u64,
            files_ignored: ignored,
            files_builtin_skipped: builtin,
        })
    });

    // Interrupted jobs.
    let interrupted_jobs = status.as_ref().map(|s| s.interrupted_jobs.clone()).unwrap_or_default();
    for job in &interrupted_jobs {
        let fix = match job.kind.as_str() {
            "gc" => "git codecompass gc".to_owned(),
            "import" => format!("git codecompass snapshot import {}", quoted(std::path::Path::new(&job.target))),
            _ if job.target == "worktree" || job.target == "live" => "git codecompass index".to_owned(),
            _ => format!("git codecompass index --ref {}", job.target),
        };
        problems.push(problem(
            "warning",
            "interrupted_job",
            format!(
                "a {} job on `{}` was interrupted (started at {}); the last published state is serving",
                job.kind, job.target, job.started_at
            ),
            fix,
        ));
    }

    // Leftovers of crashed runs (of processes that are gone: a run still going is not one).
    let leftovers = crate::snapshot::leftovers(dir);
    for path in &leftovers {
        problems.push(problem(
            "warning",
            "leftover",
            format!("{} was left behind by an interrupted run", path.display()),
            format!("rm -rf {}", quoted(path)),
        ));
    }

    let healthy = !problems.iter().any(|p| p.severity != "info");
    Ok(DoctorResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        healthy,
        workspace: ws.root().to_string_lossy().into_owned(),
        workspace_kind: if ws.git().is_some() { "git" } else { "live" },
        store: health,
        fulltext,
        views,
        hooks,
        ignore_rules,
        interrupted_jobs,
        leftovers: leftovers.iter().map(|p| p.to_string_lossy().into_owned()).collect(),
        problems,
    })
}
