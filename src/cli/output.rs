//! Rendering: the only place that writes to stdout. Text is `path:line:` first, like grep;
//! `--json` prints one document. A closed pipe ends the program quietly.

use std::io::Write;

use serde::Serialize;

pub use crate::quote::quote_path;

use crate::engine::{
    ContextResponse, DiffResponse, Error, IndexResponse, LocateResponse, OutlineResponse, OutlineSymbol,
    PROTOCOL_VERSION, RefsResponse, StatusResponse, WatchState,
};
use crate::hooks::HooksReport;
use crate::indexer::GcReport;
use crate::query::{LineHit, SearchResult};

mod lines;
mod search;
pub use lines::{ColorChoice, LinePrinter};
use lines::{auto_color, for_a_person};

/// Where results go.
pub struct Out {
    json: bool,
    /// Escape codes for colour.
    color: bool,
    /// Line matches under a heading per file, as `rg` shows them on a terminal.
    heading: bool,
    /// What `--color` asked.
    choice: ColorChoice,
    /// Whether a streamed JSON document has opened its `results` array (see
    /// [`Out::json_results`]): what follows must close it.
    json_open: std::cell::Cell<bool>,
}

impl Out {
    /// Text or JSON; colour as `color` says (`NO_COLOR` turns off colour only), headings for
    /// a person unless `heading` says otherwise.
    pub fn new(json: bool, choice: ColorChoice, heading: Option<bool>) -> Out {
        let color = !json
            && match choice {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => auto_color(&|_| None),
            };
        Out {
            json,
            color,
            heading: !json && heading.unwrap_or_else(for_a_person),
            choice,
            json_open: std::cell::Cell::new(false),
        }
    }

    /// Under `--color auto`, follows git's colour settings (`color.ui`, `color.pager`) as
    /// `setting` reads them, once the repository is open.
    pub fn follow_git_colors(&mut self, setting: &dyn Fn(&str) -> Option<String>) {
        if self.choice == ColorChoice::Auto && !self.json {
            self.color = auto_color(setting);
        }
    }

    fn write(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush())
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            std::process::exit(0);
        }
    }

    fn json_doc<T: Serialize>(&self, value: &T) {
        let text = serde_json::to_string_pretty(value).expect("response types serialize because they hold plain data");
        self.write(&format!("{text}\n"));
    }

    /// Whether the answer is JSON.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// One JSON document.
    pub fn json<T: Serialize>(&self, value: &T) {
        self.json_doc(value);
    }

    /// `text` in colour `code` on a terminal.
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// A path as results show it: quoted as `git` quotes odd names, then painted.
    pub fn path(&self, path: &str) -> String {
        self.paint("35", &quote_path(path))
    }

    /// An error: JSON on stdout under `--json`, text on stderr otherwise.
    pub fn error(&self, error: &Error) {
        if self.json {
            let document = serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "error": {
                    "code": error.code.as_str(),
                    "message": error.message,
                    "data": { "remedy": error.remedy },
                }
            });
            // A streamed answer cut short by the error: its document ends with the error.
            if self.json_open.get() {
                return self.close_json(&document);
            }
            self.json_doc(&document);
        } else {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "error: {}", error.message);
            if let Some(remedy) = &error.remedy {
                let _ = writeln!(stderr, "hint: {remedy}");
            }
        }
    }

    /// The answer of `index`.
    pub fn index(&self, response: &IndexResponse) {
        if self.json {
            let mut value = serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "views": response.views,
                "total": response.total,
            });
            if let Some(history) = &response.history {
                value["history"] = serde_json::to_value(history).unwrap_or_default();
            }
            if let Some(seeded) = &response.seeded {
                value["seeded"] = serde_json::to_value(seeded).unwrap_or_default();
            }
            return self.json_doc(&value);
        }
        let mut text = String::new();
        if let Some(s) = &response.seeded {
            let files = if s.rewritten { "its full-text files rewritten" } else { "its full-text files linked" };
            text.push_str(&format!(
                "seeded from the index of {} ({} of {} files shared, {} of its file versions dropped, {files}, {} ms)\n",
                s.donor, s.files_shared, s.files_wanted, s.file_versions_dropped, s.duration_ms
            ));
        }
        for v in &response.views {
            let state = if v.up_to_date { "up to date".to_owned() } else { format!("{} changed", v.files_changed) };
            text.push_str(&format!(
                "{}: {} files ({state}), {} blobs parsed, {} reused, {} symbols, {} ms\n",
                v.scope, v.files, v.blobs_parsed, v.blobs_reused, v.symbols, v.duration_ms
            ));
            if v.missing_objects > 0 {
                text.push_str(&format!(
                    "  {} blobs are missing from the object store and were skipped\n",
                    v.missing_objects
                ));
            }
        }
        if let Some(h) = response.history.as_ref().filter(|h| h.commits_added > 0) {
            text.push_str(&format!("history: {} commits added ({} in all)\n", h.commits_added, h.commits_total));
        }
        self.write(&text);
    }

    /// The answer of `locate`: `path:line: kind name  signature`.
    pub fn locate(&self, response: &LocateResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text = String::new();
        for r in &response.results {
            let location = self.path(&r.path);
            let line = self.paint("32", &r.line.to_string());
            let name = self.paint("1", &r.qualified_name);
            let decl = if r.role == "declaration" { " (declaration)" } else { "" };
            text.push_str(&format!("{location}:{line}: {} {name}{decl}  {}\n", r.kind, r.signature));
        }
        for note in &response.metadata.notes {
            let _ = writeln!(std::io::stderr().lock(), "note: {note}");
        }
        if response.results.is_empty() && !crate::progress::is_quiet() {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(
                stderr,
                "no symbol named `{}` in {}",
                crate::quote::shown_query(&response.query),
                response.scope
            );
            if !response.suggestions.is_empty() {
                let _ = writeln!(stderr, "did you mean: {}", response.suggestions.join(", "));
            }
        }
        self.write(&text);
    }

    /// The answer of `outline`: an indented tree of `line: kind name  signature`.
    pub fn outline(&self, response: &OutlineResponse) {
        if self.json {
            return self.json_doc(response);
        }
        fn walk(out: &Out, symbols: &[OutlineSymbol], depth: usize, path: &str, text: &mut String) {
            for s in symbols {
                let location = out.path(path);
                let line = out.paint("32", &s.line.to_string());
                let indent = "  ".repeat(depth);
                text.push_str(&format!(
                    "{location}:{line}: {indent}{} {}  {}\n",
                    s.kind,
                    out.paint("1", &s.name),
                    s.signature
                ));
                walk(out, &s.children, depth + 1, path, text);
            }
        }
        let mut text = String::new();
        walk(self, &response.symbols, 0, &response.path, &mut text);
        if let Some(reason) = &response.skipped {
            let _ = writeln!(std::io::stderr().lock(), "{} was not parsed: {reason}", quote_path(&response.path));
        }
        self.write(&text);
    }

    /// A line's text with its match ranges highlighted on a terminal.
    fn highlight(&self, hit: &LineHit) -> String {
        if !self.color || hit.ranges.is_empty() {
            return hit.text.clone();
        }
        let mut out = String::with_capacity(hit.text.len() + 16);
        let mut at = 0;
        let mut ranges = hit.ranges.clone();
        ranges.sort_unstable();
        for (a, b) in ranges {
            if a < at || b > hit.text.len() || !hit.text.is_char_boundary(a) || !hit.text.is_char_boundary(b) {
                continue;
            }
            out.push_str(&hit.text[at..a]);
            out.push_str(&self.paint("1;31", &hit.text[a..b]));
            at = b;
        }
        out.push_str(&hit.text[at..]);
        out
    }

    fn result_heading(&self, r: &SearchResult) -> String {
        let location = self.path(&r.path);
        let line = self.paint("32", &r.line_start.to_string());
        let name = match r.qualified_name.as_deref().or(r.name.as_deref()) {
            Some(name) => name.to_owned(),
            None => format!("lines {}-{}", r.line_start, r.line_end),
        };
        let mut text = format!("{location}:{line}: {} {}", r.kind, self.paint("1", &name));
        if let Some(signature) = &r.signature {
            text.push_str("  ");
            text.push_str(signature);
        }
        if !r.also_at.is_empty() {
            text.push_str(&format!("  (also at {})", r.also_at.join(", ")));
        }
        text.push('\n');
        text
    }

    /// After `gc --live`: the plain directories' indexes kept and deleted.
    pub fn live_indexes(&self, kept: &[crate::view::live::LiveIndex], removed: &[crate::view::live::LiveIndex]) {
        if self.json {
            return self.json_doc(&serde_json::json!({ "indexes": kept, "removed": removed }));
        }
        let mut text = String::new();
        for index in kept {
            text.push_str(&format!("{}  {} MiB  {}\n", index.directory, index.bytes >> 20, index.store));
        }
        for index in removed {
            let why = if index.directory_exists { "removed" } else { "removed (directory gone)" };
            text.push_str(&format!("{why}: {}  {} MiB\n", index.directory, index.bytes >> 20));
        }
        if kept.is_empty() && removed.is_empty() {
            text.push_str("no index of a directory outside git is kept\n");
        }
        self.write(&text);
    }

    /// After `install-man`: where the pages went, and whether `man` will look there.
    pub fn man_installed(&self, dir: &std::path::Path, written: &[std::path::PathBuf]) {
        if self.json {
            let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
            return self.json_doc(&serde_json::json!({ "man_dir": dir.display().to_string(), "files": files }));
        }
        let mut text = format!("wrote {} man pages into {}\n", written.len(), dir.join("man1").display());
        let searched = std::process::Command::new("manpath")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).split(':').any(|p| std::path::Path::new(p.trim()) == dir));
        if searched == Some(false) {
            text.push_str(&format!(
                "note: `man` does not search {} yet: add it to MANPATH (export MANPATH=\"{}:$MANPATH\")\n",
                dir.display(),
                dir.display()
            ));
        } else {
            text.push_str("`git codecompass --help` and `git help codecompass` now open them\n");
        }
        self.write(&text);
    }

    /// The answer of `context`.
    pub fn context(&self, response: &ContextResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text = String::new();
        for r in &response.results {
            text.push_str(&self.result_heading(r));
            if let Some(preview) = &r.preview {
                for line in preview.lines() {
                    text.push_str(&format!("  | {line}\n"));
                }
            }
        }
        text.push_str(&format!(
            "-- {} of {} results, about {} of {} tokens{}\n",
            response.returned,
            response.total_candidates,
            response.estimated_tokens,
            response.max_tokens,
            if response.truncated { " (truncated)" } else { "" }
        ));
        self.write(&text);
    }

    /// Plain text, as given.
    pub fn text(&self, text: &str) {
        self.write(text);
    }

    /// A small acknowledgement: JSON under `--json`, nothing otherwise.
    pub fn note_json(&self, value: &serde_json::Value) {
        if self.json {
            self.json_doc(value);
        }
    }

    /// The answer of `refs`.
    pub fn refs(&self, response: &RefsResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text = String::new();
        for r in &response.refs {
            let short = |c: &Option<String>| {
                c.as_deref().map(|c| c[..12.min(c.len())].to_owned()).unwrap_or_else(|| "-".into())
            };
            let default = if response.default_branch.as_deref() == Some(r.name.as_str()) { " (default)" } else { "" };
            let place = r.path.as_deref().map(|p| format!(" at {p}")).unwrap_or_default();
            text.push_str(&format!(
                "{:<8} {}{default}{place}: now {}, indexed {} [{}]\n",
                r.kind,
                r.name,
                short(&r.commit),
                short(&r.indexed_commit),
                r.freshness_status
            ));
        }
        self.write(&text);
    }

    /// The answer of `diff`.
    pub fn diff(&self, response: &DiffResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text =
            format!("{} against {} (merge base {})\n", response.scope, response.base, &response.merge_base[..12]);
        for f in &response.changed_files {
            match &f.old_path {
                Some(old) => {
                    text.push_str(&format!("{:<9} {} -> {}\n", f.status, quote_path(old), quote_path(&f.path)))
                }
                None => text.push_str(&format!("{:<9} {}\n", f.status, quote_path(&f.path))),
            }
        }
        let s = &response.symbols;
        for a in &s.added {
            text.push_str(&format!(
                "{}:{}: + {} {}\n",
                quote_path(&a.path),
                a.line_start,
                a.kind,
                a.qualified_name.as_deref().unwrap_or(&a.name)
            ));
        }
        for m in &s.modified {
            let what = match (m.signature_changed, m.body_changed) {
                (true, true) => "signature and body",
                (true, false) => "signature",
                _ => "body",
            };
            text.push_str(&format!(
                "{}:{}: ~ {} {} ({what})\n",
                quote_path(&m.after.path),
                m.after.line_start,
                m.after.kind,
                m.after.qualified_name.as_deref().unwrap_or(&m.after.name)
            ));
        }
        for d in &s.deleted {
            text.push_str(&format!(
                "{}:{}: - {} {}\n",
                quote_path(&d.path),
                d.line_start,
                d.kind,
                d.qualified_name.as_deref().unwrap_or(&d.name)
            ));
        }
        for r in &s.renamed {
            text.push_str(&format!(
                "{}:{}: > {} {} (moved from {}:{})\n",
                quote_path(&r.to.path),
                r.to.line_start,
                r.to.kind,
                r.to.name,
                quote_path(&r.from.path),
                r.from.line_start
            ));
        }
        self.write(&text);
    }

    /// The answer of `gc`.
    pub fn gc(&self, report: &GcReport) {
        if self.json {
            return self
                .json_doc(&serde_json::json!({ "codecompass_protocol_version": PROTOCOL_VERSION, "gc": report }));
        }
        self.write(&format!(
            "dropped {} refs, {} views, {} file versions, {} records ({} symbols), {} blobs, {} ended jobs; kept {} views; {}{}{:.1} -> {:.1} MiB in {} ms\n",
            report.refs_dropped,
            report.views_dropped,
            report.file_versions_dropped,
            report.records_dropped,
            report.symbols_dropped,
            report.blobs_dropped,
            report.jobs_dropped,
            report.views_kept,
            if report.segments_merged > 1 {
                format!("{} full-text segments merged into one; ", report.segments_merged)
            } else {
                String::new()
            },
            if report.bytes_compacted > 0 {
                format!("{:.1} MiB of free pages given back; ", report.bytes_compacted as f64 / 1048576.0)
            } else {
                String::new()
            },
            report.bytes_before as f64 / 1048576.0,
            report.bytes_after as f64 / 1048576.0,
            report.duration_ms
        ));
    }

    /// The answer of `hooks`.
    pub fn hooks(&self, report: &HooksReport) {
        if self.json {
            return self.json_doc(report);
        }
        let mut text =
            format!("hooks in {}{}\n", report.hooks_dir, if report.core_hooks_path { " (core.hooksPath)" } else { "" });
        for h in &report.hooks {
            text.push_str(&format!("  {:<14} {}\n", h.name, h.state));
        }
        if !report.binary_on_path {
            text.push_str("  warning: git-codecompass is not on PATH, so the hooks do nothing; run `cargo install --locked --path .`\n");
        }
        self.write(&text);
    }

    /// The answer of `watch`.
    pub fn watch(&self, state: &WatchState) {
        if self.json {
            return self.json_doc(state);
        }
        let mut text = format!(
            "watcher for {}: {}\n",
            state.worktree,
            if state.running { format!("running (pid {})", state.pid.unwrap_or(0)) } else { "not running".into() }
        );
        if let Some(at) = state.last_sync_at {
            let how = match state.last_sync_rechecked {
                Some(n) => format!("{n} paths rechecked"),
                None => "the tree walked".to_owned(),
            };
            text.push_str(&format!(
                "  last sync at {at} ({} ms, {how}), {} syncs\n",
                state.last_sync_ms.unwrap_or(0),
                state.syncs
            ));
        }
        if let Some(lag) = state.lag_seconds {
            text.push_str(&format!("  lag: {lag} s\n"));
        }
        if let Some(e) = &state.last_error {
            text.push_str(&format!("  last error: {e}\n"));
        }
        self.write(&text);
    }

    /// The answer of `status`.
    pub fn status(&self, response: &StatusResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text = format!(
            "workspace: {} ({})\nstore: {} [{}]\n",
            response.workspace, response.workspace_kind, response.store_dir, response.store_state
        );
        if !response.store_detail.is_empty() {
            text.push_str(&format!("  {}\n", response.store_detail));
        }
        text.push_str(&format!(
            "indexing: {}{}\nversions: tool {}, schema {}, extractor {}\nsize: {:.1} MiB, {} blobs, {} records, {} symbols, {} file versions, {} views\n",
            response.indexing_status,
            response.writer_pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
            response.versions.tool,
            response.versions.schema,
            response.versions.extractor,
            response.store_bytes as f64 / (1024.0 * 1024.0),
            response.counts.blobs,
            response.counts.records,
            response.counts.symbols,
            response.counts.file_versions,
            response.counts.views,
        ));
        if response.counts.commits > 0 {
            text.push_str(&format!("history: {} commits indexed\n", response.counts.commits));
        }
        for r in &response.refs {
            let commit = r.indexed_commit.as_deref().map(|c| &c[..12.min(c.len())]).unwrap_or("-");
            text.push_str(&format!(
                "  {} {} at {commit}: {} files, {} symbols [{}]\n",
                r.kind, r.name, r.files, r.symbols, r.freshness_status
            ));
        }
        for j in &response.interrupted_jobs {
            text.push_str(&format!("  interrupted {} job on {} (started {})\n", j.kind, j.target, j.started_at));
        }
        self.write(&text);
    }

    /// The answer of `doctor`: one line per check, then each problem with its fix.
    pub fn doctor(&self, response: &crate::engine::DoctorResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let s = &response.store;
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let version = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let mut text = format!("workspace: {} ({})\n", response.workspace, response.workspace_kind);
        text.push_str(&format!("store: {} [{}]\n", s.dir, s.state));
        if let Some(stored) = &s.store_versions {
            text.push_str(&format!(
                "versions: schema {} (build {}), extractor {} (build {}), index format {} (build {})\n",
                version(&stored.schema),
                version(&s.build_versions.schema),
                version(&stored.extractor),
                version(&s.build_versions.extractor),
                version(&stored.index_format),
                version(&s.build_versions.index_format),
            ));
        }
        text.push_str(&format!(
            "size: {:.1} MiB (database {:.1}, full-text {:.1}, dirty contents {:.1}); {} blobs, {} records, {} symbols, {} file versions, {} views\n",
            mib(s.bytes.total),
            mib(s.bytes.database),
            mib(s.bytes.fulltext),
            mib(s.bytes.blobs),
            s.counts.blobs,
            s.counts.records,
            s.counts.symbols,
            s.counts.file_versions,
            s.counts.views
        ));
        let f = &response.fulltext;
        text.push_str(&format!("full-text: {} ({} documents, {} segments)\n", f.state, f.documents, f.segments));
        for v in &response.views {
            text.push_str(&format!("view: {} {} [{}]\n", v.kind, v.name, v.freshness_status));
        }
        if let Some(h) = &response.hooks {
            text.push_str(&format!(
                "hooks: {} of {} installed in {}\n",
                h.installed.len(),
                h.installed.len() + h.missing.len(),
                h.hooks_dir
            ));
        }
        if let Some(i) = &response.ignore_rules {
            text.push_str(&format!(
                "ignore rules: {} patterns ({}); of {} files at HEAD, {} ignored, {} listed but not parsed\n",
                i.patterns, i.source, i.files, i.files_ignored, i.files_builtin_skipped
            ));
        }
        if response.problems.is_empty() {
            text.push_str("no problems found\n");
        }
        for p in &response.problems {
            text.push_str(&format!("{}: {}\n  fix: {}\n", p.severity, p.message, p.fix));
        }
        self.write(&text);
    }

    /// The answer of `snapshot export`.
    pub fn snapshot_export(&self, report: &crate::snapshot::ExportReport) {
        if self.json {
            return self.json_doc(&serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "snapshot": report,
            }));
        }
        let mut text = format!(
            "wrote {} ({:.1} MiB from a {:.1} MiB index, {} entries) in {} ms\n",
            report.file,
            report.bytes as f64 / 1048576.0,
            report.store_bytes as f64 / 1048576.0,
            report.entries,
            report.duration_ms
        );
        for v in &report.views {
            let commit = v.commit.as_deref().map(|c| &c[..12.min(c.len())]).unwrap_or("-");
            text.push_str(&format!(
                "  {} at {commit}: {} files, {} symbols {}\n",
                v.key,
                v.files,
                v.symbols,
                v.refs.join(" ")
            ));
        }
        self.write(&text);
    }

    /// The answer of `snapshot import`.
    pub fn snapshot_import(&self, report: &crate::snapshot::ImportReport) {
        if self.json {
            return self.json_doc(&serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "import": report,
            }));
        }
        let mut text = format!(
            "{} {} ({:.1} MiB, written by codecompass {}) in {} ms\n",
            report.mode,
            report.file,
            report.snapshot_bytes as f64 / 1048576.0,
            report.snapshot_tool_version,
            report.duration_ms
        );
        for v in &report.views {
            let commit = v.commit.as_deref().map(|c| &c[..12.min(c.len())]).unwrap_or("-");
            text.push_str(&format!("  {} {} at {commit} {}\n", v.state, v.key, v.refs.join(" ")));
        }
        text.push_str("next: `git codecompass sync` catches up to HEAD by tree diff\n");
        self.write(&text);
    }

    /// The answer of `snapshot inspect`: the manifest.
    pub fn snapshot_inspect(&self, response: &crate::engine::InspectResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let m = &response.manifest;
        let mut text = format!(
            "{}: {} format {}, written by codecompass {} at {}\nversions: schema {}, extractor {}, index format {}\n",
            response.file,
            m.format,
            m.format_version,
            m.tool_version,
            m.created_at,
            m.schema_version,
            m.extractor_version,
            m.index_format_version
        );
        text.push_str(&match &response.incompatibility {
            None => "this build can import it\n".to_owned(),
            Some(why) => format!("this build cannot import it: {why}\n"),
        });
        match response.same_repository {
            Some(true) => text.push_str("it belongs to this repository\n"),
            Some(false) => text.push_str("it belongs to another repository\n"),
            None => {}
        }
        text.push_str(&format!("root commits: {}\n", m.repository.root_commits.join(", ")));
        for v in &m.views {
            let commit = v.commit.as_deref().unwrap_or("-");
            text.push_str(&format!(
                "view {} at {commit}: {} files, {} symbols {}\n",
                v.key,
                v.files,
                v.symbols,
                v.refs.join(" ")
            ));
        }
        for f in &m.files {
            text.push_str(&format!("  {:>12}  {}  {}\n", f.size, &f.blake3[..16.min(f.blake3.len())], f.path));
        }
        self.write(&text);
    }
}
