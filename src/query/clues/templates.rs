//! Message templates: the string literals of a source line, with their placeholders, and
//! whether a message could have been printed by one.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A string literal of a source line as a template: the literal pieces between its
/// placeholders.
///
/// A template with `n` placeholders has `n + 1` pieces, one placeholder between each two; one
/// that begins or ends with a placeholder has an empty first or last piece (`"{}: not found"`
/// is `["", ": not found"]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Template {
    /// The literal pieces between placeholders, in order.
    pub pieces: Vec<String>,
}

impl Template {
    /// How many placeholders the template has.
    #[must_use]
    pub fn placeholders(&self) -> usize {
        self.pieces.len().saturating_sub(1)
    }

    /// Whether `message` could have been produced by this template, with the share of the
    /// message's non-space characters its literal pieces cover (0.0..=1.0); `None` when not.
    ///
    /// The rule, all compared case-insensitively with runs of whitespace as one space:
    /// - the template carries meaning: its pieces hold at least [`MIN_TEMPLATE_CHARS`]
    ///   non-space characters (punctuation counts) and [`MIN_TEMPLATE_WORDS`] words (runs of
    ///   two or more letters or digits holding a letter). So `"{}: {}"`, `"%s"` and `"Error"`
    ///   never match, while `"%s: not found"` (9 characters, 2 words) may;
    /// - every piece occurs in the message, in order, each placeholder standing for any text
    ///   (possibly empty); the pieces need not reach the message's ends, as a log line adds
    ///   prefixes;
    /// - and the pieces cover at least half of the message's non-space characters, or the
    ///   message is wholly the template with its placeholders filled in (a leading literal
    ///   piece starts it, a trailing one ends it). `"%s: not found"` thus matches
    ///   `foo.txt: not found` (both ways) but not `foo.txt: not found in the cache`.
    #[must_use]
    pub fn matches(&self, message: &str) -> Option<f32> {
        let msg = fold(message, true);
        let total = non_space(&msg);
        if total == 0 {
            return None;
        }
        let pieces: Vec<String> = self.pieces.iter().map(|p| fold(p, false)).collect();
        let literal: usize = pieces.iter().map(|p| non_space(p)).sum();
        let words: usize = pieces.iter().map(|p| word_runs(p)).sum();
        if literal < MIN_TEMPLATE_CHARS || words < MIN_TEMPLATE_WORDS || !in_order(&msg, &pieces) {
            return None;
        }
        let share = ratio(literal, total);
        (share >= 0.5 || covers(&msg, &pieces)).then_some(share)
    }
}

/// `s` lower-cased with whitespace runs as one space; trimmed when `trim`, else keeping one
/// space at an end that had whitespace (a piece's edge spaces are literal).
pub(super) fn fold(s: &str, trim: bool) -> String {
    let inner = s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if trim || s.is_empty() {
        return inner;
    }
    if inner.is_empty() {
        return " ".to_owned();
    }
    let lead = if s.starts_with(char::is_whitespace) { " " } else { "" };
    let trail = if s.ends_with(char::is_whitespace) { " " } else { "" };
    format!("{lead}{inner}{trail}")
}

pub(super) fn non_space(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// `part / whole`, at most 1.0.
#[allow(clippy::cast_possible_truncation, reason = "a share in 0..=1 fits an f32")]
pub(super) fn ratio(part: usize, whole: usize) -> f32 {
    let part = f64::from(u32::try_from(part).unwrap_or(u32::MAX));
    let whole = f64::from(u32::try_from(whole).unwrap_or(u32::MAX)).max(1.0);
    (part / whole).min(1.0) as f32
}

/// Where to look for `piece` after `pos`: one byte earlier when both sides would need the one
/// space between them (an empty placeholder between `"a "` and `" b"`).
pub(super) fn search_from(msg: &str, pos: usize, piece: &str) -> usize {
    if pos > 0 && piece.starts_with(' ') && msg.as_bytes()[pos - 1] == b' ' { pos - 1 } else { pos }
}

/// Whether the non-empty pieces occur in `msg` in order (leftmost first is optimal).
pub(super) fn in_order(msg: &str, pieces: &[String]) -> bool {
    let mut pos = 0;
    for piece in pieces.iter().filter(|p| !p.is_empty()) {
        let from = search_from(msg, pos, piece);
        match msg[from..].find(piece.as_str()) {
            Some(k) => pos = from + k + piece.len(),
            None => return false,
        }
    }
    true
}

/// Whether `msg` is wholly the template: the first piece starts it, the last ends it, the
/// others occur in order between.
pub(super) fn covers(msg: &str, pieces: &[String]) -> bool {
    let Some((last, rest)) = pieces.split_last() else { return false };
    let Some((first, middle)) = rest.split_first() else { return msg == last.trim() };
    let (first, last) = (first.trim_start(), last.trim_end());
    if !msg.starts_with(first) {
        return false;
    }
    let mut pos = first.len();
    for piece in middle.iter().filter(|p| !p.is_empty()) {
        let from = search_from(msg, pos, piece);
        match msg[from..].find(piece.as_str()) {
            Some(k) => pos = from + k + piece.len(),
            None => return false,
        }
    }
    last.is_empty() || (msg.ends_with(last) && msg.len() - last.len() >= search_from(msg, pos, last))
}

/// A piece of a string literal.
pub(super) enum Part {
    Text(String),
    Hole,
}

/// A string literal: where it is on the line, and its parts.
pub(super) struct Literal {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) parts: Vec<Part>,
}

/// What was found at a quote.
pub(super) enum Lexed {
    Literal(Literal),
    /// Not a literal (an apostrophe, an unclosed single quote): go on after the quote.
    Skip,
    /// A literal that runs past the line: nothing more on it.
    Rest,
}

/// Python and Rust string prefixes, lower-cased.
pub(super) const PREFIXES: &[&str] = &["f", "r", "b", "u", "rb", "br", "fr", "rf", "c", "cr"];

pub(super) static FORMAT_FIELD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\{[A-Za-z0-9_.\[\]]*(?:![rsa])?(?::[^{}\s]*)?\}"));
pub(super) static PRINTF: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^%(?:\([A-Za-z0-9_.-]+\))?[-+#0]*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[sdifFeEgGxXoucrvqpTtbaAw]",
    )
});
pub(super) static SHELL_VAR: LazyLock<Regex> = LazyLock::new(|| re(r"^\$[A-Za-z_][A-Za-z0-9_]*"));

/// The string literals of one source line as templates: literals joined by `+` (or PHP `.`,
/// Lua `..`, Elixir `<>`) on the line make one template, with a placeholder for each
/// expression between them; adjacent literals (`"a" "b"`) join without one. Recognises `"..."`,
/// `'...'` and `` `...` `` with backslash escapes, Python prefixes (`f`, `r`, `b`, `u`, `rb`,
/// `fr`, any case), Rust raw strings (`r"..."`, `r#"..."#`), and triple-quoted strings that
/// close on the line. Placeholders: `{}`, `{0}`, `{name}`, `{self.argname}`, `{x!r}`, `{:?}`,
/// `{name:>10}` and, in f-strings, any `{expression}` (`{{` and `}}` are braces); printf
/// `%s %d %5.2f %-10s %(name)s %v %q` (`%%` is `%`); `${expr}`, `$name` and `#{expr}`.
#[must_use]
pub fn templates_in_line(line: &str) -> Vec<Template> {
    let mut literals = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !matches!(bytes[i], b'"' | b'\'' | b'`') {
            i += 1;
            continue;
        }
        match literal_at(line, i) {
            Lexed::Literal(lit) => {
                i = lit.end;
                literals.push(lit);
            }
            Lexed::Skip => i += 1,
            Lexed::Rest => break,
        }
    }
    join_literals(line, literals)
}

/// Reads the literal whose quote is at byte `q`.
pub(super) fn literal_at(line: &str, q: usize) -> Lexed {
    let bytes = line.as_bytes();
    let quote = bytes[q];
    let mut p = q;
    let mut hashes = 0;
    while p > 0 && bytes[p - 1] == b'#' {
        p -= 1;
        hashes += 1;
    }
    let letters_end = p;
    while p > 0 && bytes[p - 1].is_ascii_alphabetic() {
        p -= 1;
    }
    let prefix = line[p..letters_end].to_ascii_lowercase();
    let known = (p == 0 || !is_ident_byte(bytes[p - 1])) && PREFIXES.contains(&prefix.as_str());
    let (start, prefix) = if known { (p, prefix) } else { (q, String::new()) };
    let raw = prefix.contains('r');
    let hashes = if raw && quote == b'"' && letters_end < q { hashes } else { 0 };
    if quote == b'\''
        && !known
        && q > 0
        && bytes[q - 1].is_ascii_alphanumeric()
        && bytes.get(q + 1).is_some_and(u8::is_ascii_alphabetic)
    {
        return Lexed::Skip;
    }
    let fmt = prefix.contains('f');
    let triple = quote != b'`' && bytes.get(q + 1) == Some(&quote) && bytes.get(q + 2) == Some(&quote);
    let (open_len, closing): (usize, Vec<u8>) = if triple {
        (3, vec![quote; 3])
    } else if hashes > 0 {
        (1, std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect())
    } else {
        (1, vec![quote])
    };
    let content_start = q + open_len;
    let mut k = content_start;
    while k < bytes.len() {
        if bytes[k] == b'\\' && hashes == 0 {
            k += 2;
            continue;
        }
        if bytes[k..].starts_with(&closing) {
            let content = &line[content_start..k];
            let parts = literal_parts(content, raw || hashes > 0, fmt);
            return Lexed::Literal(Literal { start, end: k + closing.len(), parts });
        }
        k += 1;
    }
    if quote == b'\'' && !triple { Lexed::Skip } else { Lexed::Rest }
}

pub(super) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The text and placeholders of a literal's content.
pub(super) fn literal_parts(content: &str, raw: bool, fmt: bool) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let bytes = content.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &content[i..];
        let literal_char = match bytes[i] {
            b'\\' if !raw => {
                let escaped = rest[1..].chars().next();
                text.push(match escaped {
                    Some('n' | 't' | 'r') => ' ',
                    Some(c) => c,
                    None => '\\',
                });
                i += 1 + escaped.map_or(0, char::len_utf8);
                continue;
            }
            b'{' if rest.starts_with("{{") => Some('{'),
            b'}' if rest.starts_with("}}") => Some('}'),
            b'%' if rest.starts_with("%%") => Some('%'),
            _ => None,
        };
        if let Some(c) = literal_char {
            text.push(c);
            i += 2;
            continue;
        }
        let hole = match bytes[i] {
            b'{' if fmt => balanced(rest),
            b'{' => FORMAT_FIELD.find(rest).map(|m| m.end()),
            b'$' | b'#' if rest[1..].starts_with('{') => balanced(&rest[1..]).map(|n| n + 1),
            b'$' => SHELL_VAR.find(rest).map(|m| m.end()),
            b'%' => PRINTF.find(rest).map(|m| m.end()),
            _ => None,
        };
        if let Some(len) = hole {
            parts.push(Part::Text(std::mem::take(&mut text)));
            parts.push(Part::Hole);
            i += len;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        text.push(c);
        i += c.len_utf8();
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    parts
}

/// The length of the `{...}` group `s` starts with, nested braces included.
pub(super) fn balanced(s: &str) -> Option<usize> {
    let mut depth = 0_usize;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Concatenation operators.
pub(super) const CONCAT: &[&str] = &["+", ".", "..", "<>"];

/// How two literals with `between` between them join.
pub(super) enum Join {
    /// One literal continues the other (`"a" "b"`, `"a" + "b"`).
    Direct,
    /// An expression is concatenated between them (`"a " + name + " b"`).
    Hole,
    /// Different templates (`f("a", "b")`).
    Apart,
}

pub(super) fn join(between: &str) -> Join {
    let t = between.trim();
    if t.is_empty() || CONCAT.contains(&t) {
        return Join::Direct;
    }
    for op in CONCAT {
        if let Some(inner) = t.strip_prefix(op).and_then(|s| s.strip_suffix(op))
            && !inner.trim().is_empty()
            && !inner.starts_with('.')
            && top_level_plain(inner)
        {
            return Join::Hole;
        }
    }
    Join::Apart
}

/// Whether `s` has balanced brackets and no `,` or `;` outside them (one expression).
pub(super) fn top_level_plain(s: &str) -> bool {
    let mut depth = 0_i32;
    for c in s.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            ',' | ';' if depth == 0 => return false,
            _ => {}
        }
    }
    depth == 0
}

/// Whether `after` (the code after a literal) concatenates something to it.
pub(super) fn concat_after(after: &str) -> bool {
    let t = after.trim_start();
    (t.starts_with('+') && !t.starts_with("+=") && !t.starts_with("++"))
        || t.starts_with(". ")
        || t.starts_with("..")
        || t.starts_with("<>")
}

/// Whether `before` (the code before a literal) ends concatenating something to it.
pub(super) fn concat_before(before: &str) -> bool {
    let t = before.trim_end();
    (t.ends_with('+') && !t.ends_with("++")) || t.ends_with(" .") || t.ends_with("..") || t.ends_with("<>")
}

/// Groups the literals of `line` into templates.
pub(super) fn join_literals(line: &str, literals: Vec<Literal>) -> Vec<Template> {
    let mut out = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    let mut prev_end: Option<usize> = None;
    for lit in literals {
        match prev_end {
            None => {
                if concat_before(&line[..lit.start]) {
                    parts.push(Part::Hole);
                }
            }
            Some(end) => {
                let between = &line[end..lit.start];
                match join(between) {
                    Join::Direct => {}
                    Join::Hole => parts.push(Part::Hole),
                    Join::Apart => {
                        if concat_after(between) {
                            parts.push(Part::Hole);
                        }
                        out.push(template(std::mem::take(&mut parts)));
                        if concat_before(between) {
                            parts.push(Part::Hole);
                        }
                    }
                }
            }
        }
        parts.extend(lit.parts);
        prev_end = Some(lit.end);
    }
    if let Some(end) = prev_end {
        if concat_after(&line[end..]) {
            parts.push(Part::Hole);
        }
        out.push(template(parts));
    }
    out
}

/// The template of a literal's parts.
pub(super) fn template(parts: Vec<Part>) -> Template {
    let mut pieces = vec![String::new()];
    for part in parts {
        match part {
            Part::Text(t) => {
                if let Some(last) = pieces.last_mut() {
                    last.push_str(&t);
                }
            }
            Part::Hole => pieces.push(String::new()),
        }
    }
    Template { pieces }
}
