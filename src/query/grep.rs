//! Exact line search: a regex (or an escaped literal) compiled so that no match can cross a
//! line end, run over whole contents, reported per line like `git grep -n`.

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{self, Class, Hir, HirKind};

use super::prefilter::{self, Prefilter};

/// Regexes compiled larger than this are refused: a bound on pathological patterns.
const REGEX_SIZE_LIMIT: usize = 16 * 1024 * 1024;
/// Text of one reported line is cut to this many bytes.
const MAX_LINE_TEXT: usize = 500;

/// Why a pattern cannot be searched.
#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    /// Not a valid regex.
    #[error("invalid regex: {0}")]
    Syntax(String),
    /// Valid, but too large to compile within the limits.
    #[error("the regex is too large to search safely ({0}); simplify it or search for a literal part of it")]
    TooLarge(String),
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMatch {
    /// 1-based line number.
    pub line: u32,
    /// 1-based byte column of the first match.
    pub column: u32,
    /// The line's text (lossy UTF-8, without its line end, cut to a bound).
    pub text: String,
    /// Byte ranges of the matches within `text`.
    pub ranges: Vec<(usize, usize)>,
}

/// A compiled line matcher and the trigram condition any matching file satisfies.
#[derive(Clone, Debug)]
pub struct Matcher {
    regex: Regex,
    prefilter: Prefilter,
    /// Only matches that are whole words (`git grep -w`).
    word: bool,
}

/// A word character, as `git grep -w` counts them.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The matches of a matcher in a buffer, as byte ranges, in order.
struct Matches<'m, 'c> {
    matcher: &'m Matcher,
    content: &'c [u8],
    at: usize,
    done: bool,
}

impl Iterator for Matches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let content = self.content;
        while !self.done && self.at <= content.len() {
            let m = self.matcher.regex.find_at(content, self.at)?;
            let (start, end) = (m.start(), m.end());
            // Past an empty match, step one byte so the search moves on.
            self.at = if end > start { end } else { end + 1 };
            if !self.matcher.word {
                return Some((start, end));
            }
            // `git grep -w`: non-empty, a non-word byte (or the line's edge) on both sides;
            // otherwise look again from the next place a word can start.
            let before_ok = start == 0 || !is_word(content[start - 1]);
            let after_ok = end == content.len() || !is_word(content[end]);
            if end > start && before_ok && after_ok {
                return Some((start, end));
            }
            let mut next = start + 1;
            while next < content.len() && is_word(content[next - 1]) && content[next - 1] != b'\n' {
                next += 1;
            }
            self.at = next;
        }
        self.done = true;
        None
    }
}

/// Removes `\n` from every class and turns literals containing it into never-matching
/// expressions: line-by-line semantics on a whole buffer.
fn without_newlines(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => h.clone(),
        HirKind::Literal(lit) => {
            if lit.0.contains(&b'\n') {
                Hir::fail()
            } else {
                h.clone()
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut class = class.clone();
            class.difference(&hir::ClassUnicode::new([hir::ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(class))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut class = class.clone();
            class.difference(&hir::ClassBytes::new([hir::ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Repetition(rep) => Hir::repetition(hir::Repetition {
            min: rep.min,
            max: rep.max,
            greedy: rep.greedy,
            sub: Box::new(without_newlines(&rep.sub)),
        }),
        HirKind::Capture(cap) => Hir::capture(hir::Capture {
            index: cap.index,
            name: cap.name.clone(),
            sub: Box::new(without_newlines(&cap.sub)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(without_newlines).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(without_newlines).collect()),
    }
}

/// Compiles a translated regex within the size limits.
fn compile(hir: &Hir) -> Result<Regex, PatternError> {
    RegexBuilder::new(&hir.to_string()).size_limit(REGEX_SIZE_LIMIT).dfa_size_limit(REGEX_SIZE_LIMIT).build().map_err(
        |e| match e {
            regex::Error::CompiledTooBig(_) => PatternError::TooLarge(e.to_string()),
            other => PatternError::Syntax(other.to_string()),
        },
    )
}

impl Matcher {
    /// Compiles `pattern` (Rust regex syntax, or a literal when `literal`).
    pub fn new(pattern: &str, literal: bool, case_insensitive: bool) -> Result<Matcher, PatternError> {
        Matcher::any_of(&[pattern], literal, case_insensitive)
    }

    /// Compiles a line matcher for any of `patterns` (`git grep -e A -e B`).
    pub fn any_of(patterns: &[&str], literal: bool, case_insensitive: bool) -> Result<Matcher, PatternError> {
        let source = if let [one] = patterns {
            if literal { regex::escape(one) } else { (*one).to_owned() }
        } else {
            patterns
                .iter()
                .map(|p| format!("(?:{})", if literal { regex::escape(p) } else { (*p).to_owned() }))
                .collect::<Vec<_>>()
                .join("|")
        };
        let parsed = regex_syntax::ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .utf8(false)
            .nest_limit(200)
            .build()
            .parse(&source)
            .map_err(|e| PatternError::Syntax(e.to_string()))?;
        let prefilter = prefilter::of(&parsed);
        let regex = compile(&without_newlines(&parsed))?;
        Ok(Matcher { regex, prefilter, word: false })
    }

    /// Compiles `pattern` to match one line given with its newline as git's `log -G` matches
    /// it (see [`super::reg_newline`]): `is_match` takes the line with its newline.
    pub fn diff_lines(pattern: &str, case_insensitive: bool) -> Result<Matcher, PatternError> {
        let syntax = |e: &dyn std::fmt::Display| PatternError::Syntax(e.to_string());
        let mut ast = regex_syntax::ast::parse::ParserBuilder::new()
            .nest_limit(200)
            .build()
            .parse(pattern)
            .map_err(|e| syntax(&e))?;
        let translate = |ast: &regex_syntax::ast::Ast| {
            regex_syntax::hir::translate::TranslatorBuilder::new()
                .case_insensitive(case_insensitive)
                .multi_line(true)
                .utf8(false)
                .build()
                .translate(pattern, ast)
                .map_err(|e| syntax(&e))
        };
        let prefilter = prefilter::of(&translate(&ast)?);
        super::reg_newline::negations_without_newline(&mut ast);
        let regex = compile(&translate(&ast)?)?;
        Ok(Matcher { regex, prefilter, word: false })
    }

    /// Only whole-word matches, as `git grep -w` has them.
    pub fn words_only(mut self) -> Matcher {
        self.word = true;
        self
    }

    fn matches<'c>(&self, content: &'c [u8]) -> Matches<'_, 'c> {
        Matches { matcher: self, content, at: 0, done: false }
    }

    /// The trigram condition.
    pub fn prefilter(&self) -> &Prefilter {
        &self.prefilter
    }

    /// Whether anything in `content` matches.
    pub fn is_match(&self, content: &[u8]) -> bool {
        // `find`, not `Regex::is_match`: for a pattern around an inner literal
        // (`[a-z]+_lock_irq[a-z]+\(`), the regex crate's `is_match` can fall back to its
        // slowest engine, and was 14x slower than `find` over 3,000 kernel files; `find` is
        // never slower on the patterns measured.
        if self.word { self.matches(content).next().is_some() } else { self.regex.find(content).is_some() }
    }

    /// The byte ranges of the first `limit` matches in `content`, in order.
    pub fn spans(&self, content: &[u8], limit: usize) -> Vec<(usize, usize)> {
        self.matches(content).take(limit).collect()
    }

    /// The matching lines of `content`, at most `limit`.
    pub fn lines(&self, content: &[u8], limit: usize) -> Vec<LineMatch> {
        let mut out: Vec<LineMatch> = Vec::new();
        let mut line = 1u32;
        let mut counted_to = 0usize;
        let mut current: Option<(u32, usize, usize)> = None; // line, line start, line end
        if content.is_empty() {
            // `git grep` never reports a line of an empty file.
            return out;
        }
        for (start, end) in self.matches(content) {
            // An empty match after the final line end: `git grep` reports it as one more
            // (empty) line when its look-ahead reaches it, which happens exactly when the last
            // real line did not match. Matching that keeps results equal to git's.
            if start == content.len() && content.ends_with(b"\n") {
                let last_line = memchr::memchr_iter(b'\n', content).count() as u32;
                if out.len() < limit && out.last().is_none_or(|m| m.line != last_line) {
                    out.push(LineMatch { line: last_line + 1, column: 1, text: String::new(), ranges: Vec::new() });
                }
                break;
            }
            line += memchr::memchr_iter(b'\n', &content[counted_to..start]).count() as u32;
            counted_to = start;
            let same_line = current.is_some_and(|(l, _, _)| l == line);
            if !same_line {
                if out.len() == limit {
                    break;
                }
                let line_start = memchr::memrchr(b'\n', &content[..start]).map_or(0, |i| i + 1);
                let line_end = memchr::memchr(b'\n', &content[start..]).map_or(content.len(), |i| start + i);
                let raw = &content[line_start..line_end];
                let cut = raw.len().min(MAX_LINE_TEXT);
                out.push(LineMatch {
                    line,
                    column: (start - line_start + 1) as u32,
                    text: String::from_utf8_lossy(&raw[..cut]).into_owned(),
                    ranges: Vec::new(),
                });
                current = Some((line, line_start, line_end));
            }
            if let (Some((_, line_start, _)), Some(last)) = (current, out.last_mut()) {
                let (a, b) = (start - line_start, end - line_start);
                if b <= MAX_LINE_TEXT && a < b {
                    last.ranges.push((a, b));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pattern: &str, text: &str) -> Vec<(u32, u32)> {
        Matcher::new(pattern, false, false)
            .unwrap()
            .lines(text.as_bytes(), 100)
            .iter()
            .map(|m| (m.line, m.column))
            .collect()
    }

    #[test]
    fn matches_never_cross_lines() {
        assert_eq!(lines(r"a\s+b", "a\nb\na  b\n"), [(3, 1)]);
        assert_eq!(lines("[^x]+y", "ab\ny\n"), []);
        assert_eq!(lines("a.b", "a\nb\n"), []);
        assert_eq!(lines(r"a\nb", "a\nb\n"), []);
    }

    #[test]
    fn anchors_and_empty_matches_follow_git_grep() {
        assert_eq!(lines("^", "a\nb\n"), [(1, 1), (2, 1)]);
        // git's quirk: an empty match at the end counts as one more line when the last
        // line does not match.
        assert_eq!(lines("^$", "ab\n\ncd\n"), [(2, 1), (4, 1)]);
        assert_eq!(lines("^$", "\n"), [(1, 1)]);
        assert_eq!(lines("^$", ""), []);
        assert_eq!(lines("^", "a\nb"), [(1, 1), (2, 1)]);
        assert_eq!(lines("x*", "a\n\nb\n"), [(1, 1), (2, 1), (3, 1)]);
        assert_eq!(lines("b$", "ab\r\nab\n"), [(2, 2)]);
        assert_eq!(lines("^b", "ab\nba\n"), [(2, 1)]);
    }

    #[test]
    fn whole_words_follow_git_grep_w() {
        let words = |pattern: &str, text: &str| -> Vec<(u32, u32)> {
            Matcher::new(pattern, false, false)
                .unwrap()
                .words_only()
                .lines(text.as_bytes(), 100)
                .iter()
                .map(|m| (m.line, m.column))
                .collect()
        };
        assert_eq!(
            words(
                "foo",
                "foobar foo
foo_x
(foo)
"
            ),
            [(1, 8), (3, 2)]
        );
        // The first match is inside a word; a later one on the line is whole.
        assert_eq!(
            words(
                "ab", "xab ab
"
            ),
            [(1, 5)]
        );
        assert_eq!(
            words(
                "a*", "bbb
"
            ),
            []
        );
        let any = Matcher::any_of(&["one", "two"], true, false).unwrap();
        assert_eq!(
            any.lines(
                b"two
three
one
",
                10
            )
            .iter()
            .map(|l| l.line)
            .collect::<Vec<_>>(),
            [1, 3]
        );
    }

    #[test]
    fn literal_and_case_options() {
        let m = Matcher::new("a.b(", true, false).unwrap();
        assert_eq!(m.lines(b"axb(\na.b(\n", 10).iter().map(|l| l.line).collect::<Vec<_>>(), [2]);
        let m = Matcher::new("HELLO", false, true).unwrap();
        assert_eq!(m.lines(b"say hello\n", 10)[0].column, 5);
        assert!(matches!(Matcher::new("(", false, false), Err(PatternError::Syntax(_))));
        assert!(matches!(Matcher::new("\\w{1000}{1000}", false, false), Err(PatternError::TooLarge(_))));
    }
}
