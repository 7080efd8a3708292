//! Rendering: the only place that writes to stdout. Text is `path:line:` first, like grep;
//! `--json` prints one document. A closed pipe ends the program quietly.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::engine::{
    Error, IndexResponse, LocateResponse, OutlineResponse, OutlineSymbol, PROTOCOL_VERSION,
    StatusResponse,
};

/// Where results go.
pub struct Out {
    json: bool,
    color: bool,
}

impl Out {
    /// Text or JSON; colour only on a terminal.
    pub fn new(json: bool) -> Out {
        Out {
            json,
            color: !json
                && std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn write(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            && e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
    }

    fn json_doc<T: Serialize>(&self, value: &T) {
        let text = serde_json::to_string_pretty(value)
            .expect("response types serialize because they hold plain data");
        self.write(&format!("{text}\n"));
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// An error: JSON on stdout under `--json`, text on stderr otherwise.
    pub fn error(&self, error: &Error) {
        if self.json {
            self.json_doc(&serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "error": {
                    "code": error.code.as_str(),
                    "message": error.message,
                    "data": { "remedy": error.remedy },
                }
            }));
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
            let value = serde_json::json!({
                "codecompass_protocol_version": PROTOCOL_VERSION,
                "views": response.views,
                "total": response.total,
            });
            return self.json_doc(&value);
        }
        let mut text = String::new();
        for v in &response.views {
            let state = if v.up_to_date {
                "up to date".to_owned()
            } else {
                format!("{} changed", v.files_changed)
            };
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
        self.write(&text);
    }

    /// The answer of `locate`: `path:line: kind name  signature`.
    pub fn locate(&self, response: &LocateResponse) {
        if self.json {
            return self.json_doc(response);
        }
        let mut text = String::new();
        for r in &response.results {
            let location = self.paint("35", &r.path);
            let line = self.paint("32", &r.line.to_string());
            let name = self.paint("1", &r.qualified_name);
            let decl = if r.role == "declaration" {
                " (declaration)"
            } else {
                ""
            };
            text.push_str(&format!(
                "{location}:{line}: {} {name}{decl}  {}\n",
                r.kind, r.signature
            ));
        }
        if response.results.is_empty() {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(
                stderr,
                "no symbol named `{}` in {}",
                response.query, response.scope
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
                let location = out.paint("35", path);
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
            let _ = writeln!(
                std::io::stderr().lock(),
                "{} was not parsed: {reason}",
                response.path
            );
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
        for r in &response.refs {
            let commit = r
                .indexed_commit
                .as_deref()
                .map(|c| &c[..12.min(c.len())])
                .unwrap_or("-");
            text.push_str(&format!(
                "  {} {} at {commit}: {} files, {} symbols [{}]\n",
                r.kind, r.name, r.files, r.symbols, r.freshness_status
            ));
        }
        for j in &response.interrupted_jobs {
            text.push_str(&format!(
                "  interrupted {} job on {} (started {})\n",
                j.kind, j.target, j.started_at
            ));
        }
        self.write(&text);
    }
}
