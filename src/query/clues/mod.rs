//! Clues in a query text: the words, identifiers, paths, stack frames, messages, options and
//! code a developer would see in a pasted question or bug report, and the string-literal
//! templates of a source line that could have printed a message.
//!
//! Pure and total: text in, data out, no IO, no errors, no panics. [`extract`] reads the text
//! in two passes: the first marks fenced and indented code blocks, the second reads each line
//! as a stack frame, an exception or error line, a version banner, noise, or prose (code spans,
//! quotes, URLs, paths, options, names and words, in that order, each taking its text out of
//! the line so the next cannot read it twice). The cost is linear in the text, which is read up
//! to [`MAX_TEXT_BYTES`]. [`templates_in_line`] and [`Template::matches`] serve the search for
//! the source line that produced a message (`messages.rs`).
//!
//! Not done here: ranking, weighting and index terms (`words.rs`), and deciding which frames
//! belong to the user's code (every frame is kept as printed).

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

mod collect;
mod lines;
mod scan;
mod templates;
#[cfg(test)]
mod tests;

use collect::*;
use lines::*;
use scan::*;
#[allow(unused_imports)]
use templates::*;
pub use templates::{Template, templates_in_line};

/// Text past this many bytes is not read, so a huge paste costs a bounded time.
pub const MAX_TEXT_BYTES: usize = 100_000;

/// Messages are cut to this many characters.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// How often a word is counted, at most.
pub const MAX_WORD_COUNT: u32 = 3;

/// A template needs at least this many non-space literal characters to match anything.
pub const MIN_TEMPLATE_CHARS: usize = 8;

/// A template needs at least this many literal words to match anything.
pub const MIN_TEMPLATE_WORDS: usize = 2;

/// Everything found in one query text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clues {
    /// Prose words, lower-cased, in first-seen order, each once, with how often it occurred
    /// (capped at [`MAX_WORD_COUNT`]): English stop words, issue boilerplate and version banners
    /// dropped. Words inside identifiers, options, quotes, code and traceback messages count;
    /// paths, URLs, numbers, versions and the frame lines of a stack trace give none.
    pub words: Vec<(String, u32)>,
    /// Identifiers as written: `CamelCase`, `snake_case`, `SCREAMING_CASE`, `mod::path::item`,
    /// `obj.attr.method`, `Foo#bar`, `foo()`-style calls (without the parens), exception types
    /// of traceback lines. Each once.
    pub identifiers: Vec<String>,
    /// File paths mentioned in the text (`src/app.py`, `app.py:123`, `./x/y.rs:12:5`, absolute
    /// paths as written), each once per line number; a mention without a line is folded into a
    /// mention of the same path with one. The paths of stack frames are in [`Clues::frames`].
    pub paths: Vec<PathClue>,
    /// Stack-trace frames in the order printed (Python prints the innermost last, most other
    /// runtimes first). A Rust panic location is a frame without a function.
    pub frames: Vec<Frame>,
    /// Messages: quoted strings of 2+ words, the messages of exception lines
    /// (`ValueError: x must be positive` gives `x must be positive`), of `error:`, `panic:`,
    /// `fatal:` and log-level lines, and Rust panic messages; trimmed of surrounding quotes and
    /// trailing punctuation, cut to [`MAX_MESSAGE_CHARS`], each once.
    pub messages: Vec<String>,
    /// Options: `--flag-name` (never `-x`), dotted setting keys (`core.hooksPath`,
    /// `tool.ruff.line-length`, `server.port=8080`), and `KEY=value` environment names.
    pub options: Vec<String>,
    /// The raw contents of inline code spans, fenced code blocks and indented code blocks, in
    /// the order they appear.
    pub code: Vec<String>,
}

/// A file path named in the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathClue {
    /// The path as written, without its `:line:column` suffix.
    pub path: String,
    /// The line, when given (`app.py:123`).
    pub line: Option<u32>,
}

/// One frame of a stack trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The trace format it was read in: `python`, `rust`, `java`, `kotlin`, `scala`,
    /// `javascript`, `typescript`, `go`, `csharp`, `ruby` or `php`.
    pub language: &'static str,
    /// The file, as printed (`None` for `<stdin>`, `Native Method` and the like).
    pub path: Option<String>,
    /// The line in the file.
    pub line: Option<u32>,
    /// The function, qualified as printed, without its argument list.
    pub function: Option<String>,
}

/// The clues of `text` (read up to [`MAX_TEXT_BYTES`]).
#[must_use]
pub fn extract(text: &str) -> Clues {
    let text = cut(text, MAX_TEXT_BYTES);
    let lines: Vec<&str> = text.lines().collect();
    let blocks = code_blocks(&lines);
    let out = Collector { gates: Gates::of(text), ..Collector::default() };
    let mut reader = Reader { lines: &lines, kinds: &blocks.kinds, out, python: false };
    let mut code = blocks.code.into_iter().peekable();
    let mut i = 0;
    while i < lines.len() {
        while let Some((_, body)) = code.next_if(|(start, _)| *start <= i) {
            reader.out.code(body);
        }
        i += reader.line(i);
    }
    for (_, body) in code {
        reader.out.code(body);
    }
    reader.out.clues
}

/// What the whole text holds at all, tested once so that no line runs a reader for what the
/// text lacks.
#[derive(Default)]
struct Gates {
    /// A log level (`ERROR`), for log lines.
    log_level: bool,
    /// A URL, to take out before paths.
    url: bool,
    /// An issue template's phrase (`Steps to reproduce`).
    boilerplate: bool,
}

impl Gates {
    fn of(text: &str) -> Gates {
        Gates {
            log_level: ["ERROR", "FATAL", "CRITICAL", "PANIC", "SEVERE"].iter().any(|level| text.contains(level)),
            url: text.contains("://") || text.contains("www."),
            boilerplate: BOILERPLATE_PHRASE.is_match(text),
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Whether `word` is one of the space-separated words of `list`.
fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// Compiles one of this module's constant patterns.
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("clue patterns are constants, compiled by the tests")
}

/// The captures of `pattern` in `s`; a cheap match test first, as capturing allocates.
fn caps<'h>(pattern: &Regex, s: &'h str) -> Option<regex::Captures<'h>> {
    if pattern.is_match(s) { pattern.captures(s) } else { None }
}

/// The number in `s`, when it fits.
fn number(s: &str) -> Option<u32> {
    s.parse().ok()
}

// ---------------------------------------------------------------------------------------------
// Pass 1: code blocks.

/// What a line is, as far as Markdown blocks go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Prose (which may still hold code spans, traces and quotes).
    Prose,
    /// Inside a fenced or indented code block.
    Code,
    /// A fence line (```` ``` ```` or `~~~`), read as nothing.
    Marker,
}

/// The block structure of a text.
struct Blocks {
    /// The kind of each line.
    kinds: Vec<Kind>,
    /// Each code block's contents, by the index of its first line.
    code: Vec<(usize, String)>,
}

/// A fence opens a code block; its info string (a language) starts with a letter, so Python's
/// `~~~~^^^^` markers are not fences.
static FENCE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(`{3,}|~{3,})\s*(?:[A-Za-z{][^`]*)?$"));

/// The columns of leading whitespace (a tab counts as four).
fn indent_width(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// `line` without its first four columns of indentation.
fn deindent(line: &str) -> &str {
    let mut columns = 0;
    for (i, c) in line.char_indices() {
        if columns >= 4 || !matches!(c, ' ' | '\t') {
            return &line[i..];
        }
        columns += if c == '\t' { 4 } else { 1 };
    }
    ""
}

/// Marks fenced code blocks (closed by a fence of the same character at least as long, or by
/// the end of the text) and indented code blocks (four columns, after a blank line).
fn code_blocks(lines: &[&str]) -> Blocks {
    let mut kinds = vec![Kind::Prose; lines.len()];
    let mut code = Vec::new();
    let mut prev_blank = true;
    let mut i = 0;
    while i < lines.len() {
        if let Some(cap) = caps(&FENCE, lines[i]) {
            let fence = &cap[1];
            let (ch, n) = (fence.as_bytes()[0], fence.len());
            kinds[i] = Kind::Marker;
            let start = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() {
                let t = lines[i].trim();
                if t.len() >= n && t.bytes().all(|b| b == ch) {
                    kinds[i] = Kind::Marker;
                    i += 1;
                    break;
                }
                kinds[i] = Kind::Code;
                body.push(lines[i]);
                i += 1;
            }
            if body.iter().any(|l| !l.trim().is_empty()) {
                code.push((start, body.join("\n")));
            }
            prev_blank = false;
            continue;
        }
        let blank = lines[i].trim().is_empty();
        if prev_blank && !blank && indent_width(lines[i]) >= 4 {
            let start = i;
            let mut body: Vec<&str> = Vec::new();
            let mut kept = 0;
            while i < lines.len() {
                let l = lines[i];
                if l.trim().is_empty() {
                    body.push("");
                } else if indent_width(l) >= 4 {
                    kinds[i] = Kind::Code;
                    body.push(deindent(l));
                    kept = body.len();
                } else {
                    break;
                }
                i += 1;
            }
            body.truncate(kept);
            code.push((start, body.join("\n")));
            prev_blank = lines[i - 1].trim().is_empty();
            continue;
        }
        prev_blank = blank;
        i += 1;
    }
    Blocks { kinds, code }
}
