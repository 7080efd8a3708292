//! The answers of `search`: grep-like lines (grouped under a heading per file on a terminal),
//! ranked results under a heading each, `-l`/`-L`/`-c` file lists, and JSON, one document or
//! a line per result, streamed as exact lines are verified.

use std::io::Write;

use super::{LinePrinter, Out};
use crate::engine::SearchResponse;
use crate::query::SearchResult;

impl Out {
    /// With `-l`, `-L` or `-c`: one line per file, its name (and with `count`, `:N`, the number
    /// of its matching lines), in the order of the results.
    pub fn file_list(&self, response: &SearchResponse, count: bool) {
        self.notes_first(response);
        let mut printer = LinePrinter::new(true, false, true, count);
        let mut text = String::new();
        let mut start = 0;
        let results: Vec<&SearchResult> = response.output.results.iter().collect();
        for end in 1..=results.len() {
            if end == results.len() || results[end].path != results[start].path {
                text.push_str(&printer.file(self, &results[start..end]));
                start = end;
            }
        }
        self.write(&text);
        self.notes_and_summary(response);
    }

    /// The results; exact lines name their file unless `with_filename` is off (`-h`); with
    /// `context` asked for, `--` parts groups of lines, as `git grep -C` does.
    pub fn search_lines(&self, response: &SearchResponse, with_filename: bool, context: bool) {
        if self.json {
            return self.json_doc(response);
        }
        self.notes_first(response);
        let mut text = String::new();
        let mut printer = LinePrinter::new(with_filename, context, false, false);
        let mut in_file: Vec<&SearchResult> = Vec::new();
        for r in &response.output.results {
            if r.kind == "line" {
                if in_file.last().is_some_and(|l| l.path != r.path) {
                    text.push_str(&printer.file(self, &in_file));
                    in_file.clear();
                }
                in_file.push(r);
                continue;
            }
            if !in_file.is_empty() {
                text.push_str(&printer.file(self, &in_file));
                in_file.clear();
            }
            {
                text.push_str(&self.result_heading(r));
                for hit in &r.lines {
                    text.push_str(&format!(
                        "  {}: {}\n",
                        self.paint("32", &hit.line.to_string()),
                        self.highlight(hit).trim()
                    ));
                }
                for symbol in &r.symbols {
                    text.push_str(&format!(
                        "  {}: {} {}\n",
                        self.paint("32", &symbol.line_start.to_string()),
                        symbol.kind,
                        self.paint("1", &symbol.name)
                    ));
                }
                if let Some(preview) = &r.preview {
                    for line in preview.lines() {
                        text.push_str(&format!("  | {line}\n"));
                    }
                }
                for reason in &r.ranking_reasons {
                    text.push_str(&format!("  # {reason}\n"));
                }
            }
        }
        if !in_file.is_empty() {
            text.push_str(&printer.file(self, &in_file));
        }
        self.write(&text);
        self.notes_and_summary(response);
    }

    /// Writes text as it comes (a streamed answer's lines).
    pub fn write_now(&self, text: &str) {
        self.write(text);
    }

    /// After a streamed answer (its results printed as they came): the notes, and on stderr
    /// what a summary says.
    pub fn streamed(&self, response: &SearchResponse) {
        self.notes_first(response);
        self.notes_and_summary(response);
    }

    /// Before the results, on stderr: what the answer must be read with (another mode answered,
    /// notes, the clues a pasted text gave).
    fn notes_first(&self, response: &SearchResponse) {
        // What the answer must be read with comes first: another mode answered, or no
        // definition has the name asked for.
        let mut stderr = std::io::stderr().lock();
        if let Some(f) = &response.metadata.fallback {
            let _ = writeln!(stderr, "note: {}", f.reason);
        }
        for note in &response.metadata.notes {
            let _ = writeln!(stderr, "note: {note}");
        }
        if let Some(c) = &response.output.clues {
            for (label, items) in [
                ("identifiers", &c.identifiers),
                ("paths", &c.paths),
                ("frames", &c.frames),
                ("messages", &c.messages),
                ("options", &c.options),
                ("dropped terms", &c.dropped),
            ] {
                if !items.is_empty() {
                    let _ = writeln!(stderr, "clues: {label}: {}", items.join(" | "));
                }
            }
            let terms: Vec<String> = c.terms.iter().map(|(t, w)| format!("{t}*{w}")).collect();
            let _ = writeln!(stderr, "clues: terms searched: {}", terms.join(" "));
        }
    }

    /// After the results, on stderr: nothing matched, more results, the time limit, a hint.
    /// With `--quiet`, only the time limit (what the answer lacks).
    fn notes_and_summary(&self, response: &SearchResponse) {
        let mut stderr = std::io::stderr().lock();
        if response.output.safety_limit_applied {
            let _ = writeln!(stderr, "(stopped at the time limit: the results are partial)");
        }
        if crate::progress::is_quiet() {
            return;
        }
        if !response.output.found() {
            let _ = writeln!(
                stderr,
                "nothing matched `{}` in {}",
                crate::quote::shown_query(&response.query),
                response.scope
            );
        }
        if response.output.truncated {
            let _ = writeln!(stderr, "(more results: raise --limit)");
        }
        if let Some(s) = &response.output.suggestion {
            let _ = writeln!(stderr, "hint: {}: {}", s.reason, s.command);
        }
    }

    /// Results of a streamed `search --json`, as they come: the document opens with its
    /// `results` array at the first result, each result follows; [`Out::search_json_end`]
    /// (or an error) closes the array and adds the other fields.
    pub fn json_results(&self, results: &[SearchResult]) {
        let mut text = String::new();
        for r in results {
            text.push_str(if self.json_open.replace(true) { ",\n" } else { "{\n  \"results\": [\n" });
            let item = serde_json::to_string_pretty(r).expect("results serialize because they hold plain data");
            for (i, line) in item.lines().enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str("    ");
                text.push_str(line);
            }
        }
        self.write(&text);
    }

    /// The answer of `search --json`; after a streamed one ([`Out::json_results`]), the array
    /// closed and the answer's other fields. Nothing opened (no result came, or not streamed):
    /// the whole document.
    pub fn search_json_end(&self, response: &SearchResponse) {
        if !self.json_open.get() {
            return self.json_doc(response);
        }
        let mut rest = serde_json::to_value(response).expect("responses serialize because they hold plain data");
        if let Some(object) = rest.as_object_mut() {
            object.remove("results");
        }
        self.close_json(&rest);
    }

    /// Closes a streamed document's `results` array and adds the fields of `rest` after it.
    pub(super) fn close_json(&self, rest: &serde_json::Value) {
        self.json_open.set(false);
        let rest = serde_json::to_string_pretty(rest).expect("values serialize");
        // `{\n  "a": 1,\n  ...\n}`: its fields follow the array.
        let fields = rest.strip_prefix("{\n").unwrap_or("}");
        let separator = if fields.starts_with('}') { "\n" } else { ",\n" };
        self.write(&format!("\n  ]{separator}{fields}\n"));
    }

    /// `result` lines of `search --jsonl`, one per result.
    pub fn jsonl_results(&self, results: &[SearchResult]) {
        let mut text = String::new();
        for r in results {
            text.push_str(&serde_json::json!({ "type": "result", "data": r }).to_string());
            text.push('\n');
        }
        self.write(&text);
    }

    /// The answer of `search --jsonl`: a `result` line per result, then a `summary` line. A
    /// streamed answer's results were printed as they came ([`Out::jsonl_results`]): the
    /// summary follows them.
    pub fn search_jsonl(&self, response: &SearchResponse) {
        self.jsonl_results(&response.output.results);
        let mut text = String::new();
        let mut summary = serde_json::to_value(response).expect("responses serialize because they hold plain data");
        if let Some(object) = summary.as_object_mut() {
            object.remove("results");
        }
        text.push_str(&serde_json::json!({ "type": "summary", "data": summary }).to_string());
        text.push('\n');
        self.write(&text);
    }
}
