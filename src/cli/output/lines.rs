//! How text looks: exact lines laid out as `git grep` lays them out (one file at a time, so an
//! answer can stream), and when to colour.

use std::io::IsTerminal;

use super::Out;
use crate::query::SearchResult;
use crate::quote::quote_path;

/// Prints exact line results one file at a time, as `git grep` lays them out: context merged
/// (a line printed once, a matching line always as a match, `--` between groups that do not
/// touch), a heading per file for a person; or, with `names`/`count`, one line per file.
pub struct LinePrinter {
    with_filename: bool,
    context: bool,
    names: bool,
    count: bool,
    any: bool,
}

impl LinePrinter {
    /// A printer; `names` prints file names only (`-l`), `count` names with counts (`-c`).
    pub fn new(with_filename: bool, context: bool, names: bool, count: bool) -> LinePrinter {
        LinePrinter { with_filename, context, names, count, any: false }
    }

    /// The text of one file's line results (all of one path, in line order).
    pub fn file(&mut self, out: &Out, results: &[&SearchResult]) -> String {
        let Some(first) = results.first() else { return String::new() };
        let path = first.path.as_str();
        let mut text = String::new();
        if self.names || self.count {
            let n: usize = results.iter().map(|r| r.lines.len().max(1)).sum();
            text = if self.count { format!("{}:{n}\n", out.path(path)) } else { format!("{}\n", out.path(path)) };
            self.any = true;
            return text;
        }
        let matched: std::collections::HashSet<u32> =
            results.iter().flat_map(|r| r.lines.iter().map(|h| h.line)).collect();
        let mut printed_to = 0usize;
        let mut started = false;
        let (name, sep, context_sep) = if out.heading || !self.with_filename {
            (String::new(), "", "")
        } else {
            (quote_path(path).into_owned(), ":", "-")
        };
        let number = |n: usize| if out.color { out.paint("32", &n.to_string()) } else { n.to_string() };
        for hit in results.iter().flat_map(|r| &r.lines) {
            let first_context = hit.line as usize - hit.before.len();
            let with_context = self.context || !hit.before.is_empty() || !hit.after.is_empty();
            let first_new = first_context.max(printed_to + 1);
            if with_context && (if started { first_new > printed_to + 1 } else { self.any }) {
                text.push_str("--\n");
            }
            if !started && out.heading && self.with_filename {
                if self.any && !with_context {
                    text.push('\n');
                }
                text.push_str(&out.path(path));
                text.push('\n');
            }
            started = true;
            for (i, b) in hit.before.iter().enumerate() {
                let n = first_context + i;
                if n > printed_to && !matched.contains(&(n as u32)) {
                    text.push_str(&format!("{name}{context_sep}{}-{b}\n", number(n)));
                }
            }
            let shown = if out.color { out.highlight(hit) } else { hit.text.clone() };
            text.push_str(&format!("{name}{sep}{}:{}: {shown}\n", number(hit.line as usize), hit.column));
            printed_to = hit.line as usize;
            for (i, a) in hit.after.iter().enumerate() {
                let n = hit.line as usize + 1 + i;
                if matched.contains(&(n as u32)) {
                    break;
                }
                text.push_str(&format!("{name}{context_sep}{}-{a}\n", number(n)));
                printed_to = n;
            }
        }
        self.any = true;
        text
    }
}

/// When to use colour (`--color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal (or under git's pager, as `color.pager` says), unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Whether stdout is read by a person: a terminal, or git's pager (`git -p`, `pager.codecompass`).
pub(super) fn for_a_person() -> bool {
    std::io::stdout().is_terminal() || std::env::var_os("GIT_PAGER_IN_USE").is_some()
}

/// Colour under `auto`: on a terminal unless `NO_COLOR`; under git's pager as git's own
/// `color.pager` and `color.ui` say (both default to on). `setting` reads a git setting (the
/// repository's configuration, already loaded; nothing before it is open).
pub(super) fn auto_color(setting: &dyn Fn(&str) -> Option<String>) -> bool {
    let on = |key: &str| setting(key).and_then(|v| colour_setting(&v)).unwrap_or(true);
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if std::io::stdout().is_terminal() {
        return on("color.ui");
    }
    std::env::var_os("GIT_PAGER_IN_USE").is_some() && on("color.pager") && on("color.ui")
}

/// A git colour setting read as git reads it (`true`, `always`, `auto` on; `false`, `never`
/// off).
fn colour_setting(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "always" | "auto" | "yes" | "on" | "1" => Some(true),
        "false" | "never" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}
