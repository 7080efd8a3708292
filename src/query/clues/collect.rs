//! Collecting clues, each once, in the order the text gives them.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The clues found so far, with what it takes to keep each once.
#[derive(Default)]
pub(super) struct Collector {
    pub(super) clues: Clues,
    pub(super) word_slots: HashMap<String, usize>,
    pub(super) identifiers: HashSet<String>,
    /// Indexes in `clues.paths` by path.
    pub(super) paths: HashMap<String, Vec<usize>>,
    pub(super) messages: HashSet<String>,
    pub(super) options: HashSet<String>,
    pub(super) code: HashSet<String>,
    pub(super) gates: Gates,
    /// Reused to lower-case words without allocating.
    pub(super) scratch: String,
}

impl Collector {
    pub(super) fn frame(
        &mut self,
        language: &'static str,
        path: Option<&str>,
        line: Option<u32>,
        function: Option<&str>,
    ) {
        let path = path.map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned);
        let function = function.map(str::trim).filter(|f| !f.is_empty()).map(str::to_owned);
        self.clues.frames.push(Frame { language, path, line, function });
    }

    /// An exception type (an identifier when it looks like one) and its message.
    pub(super) fn exception(&mut self, kind: &str, message: Option<&str>) {
        if is_identifier(kind, false) || kind.contains(['.', '$']) {
            self.identifier(kind);
        } else {
            self.plain_words(kind, false);
        }
        if let Some(message) = message {
            self.message_with_clues(message);
        }
    }

    /// A message, and the clues inside it.
    pub(super) fn message_with_clues(&mut self, message: &str) {
        self.message(message, false);
        self.scan(message, Ctx::Prose, true);
    }

    /// Keeps `raw` as a message once cleaned; a quoted one needs two words.
    pub(super) fn message(&mut self, raw: &str, quoted: bool) {
        let m = clean_message(raw);
        if m.is_empty() || (quoted && message_words(&m) < 2) {
            return;
        }
        if self.messages.insert(m.clone()) {
            self.clues.messages.push(m);
        }
    }

    pub(super) fn identifier(&mut self, name: &str) {
        if self.identifiers.insert(name.to_owned()) {
            self.clues.identifiers.push(name.to_owned());
        }
        // `self` and `cls` name the receiver, not what the code is about.
        for part in name.split(|c: char| !c.is_alphanumeric()).filter(|p| !matches!(*p, "self" | "cls")) {
            for word in camel_parts(part) {
                self.word(word, false);
            }
        }
    }

    /// Keeps a code span or block once.
    pub(super) fn code(&mut self, body: String) {
        if self.code.insert(body.clone()) {
            self.clues.code.push(body);
        }
    }

    pub(super) fn option(&mut self, name: &str) {
        if self.options.insert(name.to_owned()) {
            self.clues.options.push(name.to_owned());
        }
    }

    pub(super) fn path(&mut self, path: &str, line: Option<u32>) {
        let slots = self.paths.entry(path.to_owned()).or_default();
        for &i in slots.iter() {
            let known = &mut self.clues.paths[i];
            if known.line == line || line.is_none() {
                return;
            }
            if known.line.is_none() {
                known.line = line;
                return;
            }
        }
        slots.push(self.clues.paths.len());
        self.clues.paths.push(PathClue { path: path.to_owned(), line });
    }

    /// Counts `raw` (lower-cased, apostrophes dropped) as a word when it is one (see
    /// [`keep_word`]); `code` drops keywords too.
    pub(super) fn word(&mut self, raw: &str, code: bool) {
        let mut w = std::mem::take(&mut self.scratch);
        w.clear();
        if raw.is_ascii() {
            w.extend(raw.bytes().filter(|&b| b != b'\'').map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            w.extend(raw.chars().filter(|c| !matches!(c, '\'' | '’')).flat_map(char::to_lowercase));
        }
        if keep_word(&w, code) {
            if let Some(&i) = self.word_slots.get(w.as_str()) {
                let count = &mut self.clues.words[i].1;
                *count = (*count + 1).min(MAX_WORD_COUNT);
            } else {
                self.word_slots.insert(w.clone(), self.clues.words.len());
                self.clues.words.push((w.clone(), 1));
            }
        }
        self.scratch = w;
    }

    /// The words of a token that is not an identifier: lower-cased whole, split only at
    /// punctuation (`GitHub` stays `github`).
    pub(super) fn plain_words(&mut self, token: &str, code: bool) {
        for part in token.split(|c: char| !c.is_alphanumeric() && !matches!(c, '\'' | '’')) {
            self.word(part, code);
        }
    }

    /// Reads a piece of text and keeps what [`find_clues`] finds in it, in the order it appears.
    pub(super) fn scan(&mut self, text: &str, ctx: Ctx, quotes: bool) {
        let mut found = Vec::with_capacity(text.len() / 4);
        find_clues(&self.gates, text, 0, ctx, quotes, &mut found);
        found.sort_by_key(|&(at, _)| at);
        for (_, clue) in found {
            match clue {
                Found::Words(token, code) => self.plain_words(token, code),
                Found::Identifier(name) => self.identifier(name),
                Found::Definition(name) => {
                    if self.identifiers.insert(name.to_owned()) {
                        self.clues.identifiers.push(name.to_owned());
                    }
                }
                Found::Option(name) => self.option(name),
                Found::Path(path, line) => self.path(path, line),
                Found::Quote(q) => self.message(q, true),
                Found::Code(body) => self.code(body.to_owned()),
            }
        }
    }
}

/// Where a piece of text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    /// Prose, which may hold code spans.
    Prose,
    /// An inline code span; `talk` when the prose around it talks about settings.
    Span { talk: bool },
    /// A code block or the source line of a trace.
    Block,
}

/// A clue found in a piece of text, kept by its offset so all kinds keep the text's order.
pub(super) enum Found<'a> {
    /// A token whose words count (`true`: in code).
    Words(&'a str, bool),
    Identifier(&'a str),
    /// A name defined in code (`def load`): an identifier whose words the name itself gives.
    Definition(&'a str),
    Option(&'a str),
    Path(&'a str, Option<u32>),
    /// A quoted string, a message if it has two words.
    Quote(&'a str),
    /// The contents of a code span.
    Code(&'a str),
}

/// The clues of `text` (at byte `base` of the text scanned): quotes (when `quotes`), code
/// spans (read as code), then, each taken out of the text before the next looks, URLs, HTML
/// tags, boilerplate phrases, paths, options, numbers and versions; then the names left.
pub(super) fn find_clues<'a>(
    gates: &Gates,
    text: &'a str,
    base: usize,
    ctx: Ctx,
    quotes: bool,
    found: &mut Vec<(usize, Found<'a>)>,
) {
    let code = ctx != Ctx::Prose;
    if quotes {
        for (at, q) in quoted_strings(text) {
            found.push((base + at, Found::Quote(q)));
        }
    }
    let mut buf = text.to_owned();
    if !code {
        let spans = code_spans(text);
        let talk = !spans.is_empty() && SETTINGS_TALK.is_match(text);
        for (start, end, content) in spans {
            found.push((base + start, Found::Code(&text[content.clone()])));
            find_clues(gates, &text[content.clone()], base + content.start, Ctx::Span { talk }, false, found);
            blank(&mut buf, start, end);
        }
    }
    if gates.url {
        blank_all(&mut buf, &URL);
    }
    if text.contains('<') {
        blank_all(&mut buf, &HTML_TAG);
    }
    if gates.boilerplate {
        blank_all(&mut buf, &BOILERPLATE_PHRASE);
    }
    if buf.as_bytes().windows(2).any(|w| w[0] == b'.' && w[1].is_ascii_alphabetic()) {
        take_paths(text, &mut buf, base, found);
    }
    if buf.bytes().any(|b| matches!(b, b'-' | b'=' | b'.')) {
        take_options(text, &mut buf, base, ctx, found);
    }
    if buf.bytes().any(|b| b.is_ascii_digit()) {
        blank_all(&mut buf, &NUMBERISH);
    }
    if code {
        for cap in DEFINITION.captures_iter(&buf) {
            if let Some(name) = cap.get(1).filter(|n| n.len() > 1) {
                found.push((base + name.start(), Found::Definition(&text[name.range()])));
            }
        }
    }
    take_names(text, &buf, base, code, found);
}

/// Paths (`src/app.py`, `app.py:12:5`), taken out of `buf` (a copy of `text` with what was
/// taken before blanked, so a match in `buf` is the same text in `text`).
pub(super) fn take_paths<'a>(text: &'a str, buf: &mut String, base: usize, found: &mut Vec<(usize, Found<'a>)>) {
    let mut taken = Vec::new();
    for cap in PATH.captures_iter(buf) {
        let (Some(whole), Some(path), Some(ext)) = (cap.get(0), cap.name("path"), cap.name("ext")) else {
            continue;
        };
        let before = buf[..whole.start()].chars().next_back();
        let after = buf[whole.end()..].chars().next();
        if before.is_some_and(|c| c.is_alphanumeric() || "/\\._-@+~$".contains(c))
            || after.is_some_and(|c| c.is_alphanumeric() || "/\\_(".contains(c))
            || !is_path(path.as_str(), &ext.as_str().to_ascii_lowercase())
        {
            continue;
        }
        let line = cap.name("line").and_then(|m| number(m.as_str()));
        found.push((base + whole.start(), Found::Path(&text[path.range()], line)));
        taken.push(whole.range());
    }
    for r in taken {
        blank(buf, r.start, r.end);
    }
}

/// `--long-options`, `KEY=value` names and dotted setting keys, the first and last taken out
/// of `buf` (a `KEY` may still be an identifier). A dotted lower-case key that is not a call is
/// a setting when a later part has a hyphen (`tool.ruff.line-length`), when `=value` follows it
/// (`server.port=8080`), or, outside code blocks (where `settings.name` is an attribute), when
/// it starts with a known settings namespace (`core.hooksPath`); when only the prose around it
/// talks about settings (``set `cache.dir` to ~/.cache``) it is an option and an identifier both.
pub(super) fn take_options<'a>(
    text: &'a str,
    buf: &mut String,
    base: usize,
    ctx: Ctx,
    found: &mut Vec<(usize, Found<'a>)>,
) {
    let mut taken = Vec::new();
    for cap in LONG_OPTION.captures_iter(buf) {
        let Some(m) = cap.get(1) else { continue };
        let name = text[m.range()].trim_end_matches('-');
        found.push((base + m.start(), Found::Option(name)));
        found.push((base + m.start(), Found::Words(name, false)));
        taken.push(m.range());
    }
    for cap in ENV_NAME.captures_iter(buf) {
        if let Some(m) = cap.get(1) {
            found.push((base + m.start(), Found::Option(&text[m.range()])));
        }
    }
    let mut prose_talk: Option<bool> = None;
    for cap in SETTING.captures_iter(buf) {
        let Some(m) = cap.get(1) else { continue };
        let key = &text[m.range()];
        let after = &buf[m.end()..];
        let first = key.split('.').next().unwrap_or(key);
        let assigned = after.starts_with('=') && !matches!(first, "self" | "this" | "cls");
        let hyphen = key.split('.').skip(1).any(|p| p.contains('-'));
        let talk = match ctx {
            Ctx::Prose => *prose_talk.get_or_insert_with(|| SETTINGS_TALK.is_match(text)),
            Ctx::Span { talk } => talk,
            Ctx::Block => false,
        };
        let receiver = matches!(first, "self" | "this" | "cls");
        let root = ctx != Ctx::Block && listed(SETTINGS_ROOTS, first);
        if after.starts_with('(') {
            continue;
        }
        if assigned || hyphen || root {
            found.push((base + m.start(), Found::Option(key)));
            found.push((base + m.start(), Found::Words(key, false)));
            taken.push(m.range());
        } else if talk && !receiver && ctx != Ctx::Block {
            // Talk of settings is a weak sign: the key stays an identifier too.
            found.push((base + m.start(), Found::Option(key)));
        }
    }
    for r in taken {
        blank(buf, r.start, r.end);
    }
}

/// The names left in `buf`: identifiers, and the words of the others.
pub(super) fn take_names<'a>(text: &'a str, buf: &str, base: usize, code: bool, found: &mut Vec<(usize, Found<'a>)>) {
    for span in name_spans(buf) {
        let at = base + span.start;
        let name = &text[span.clone()];
        let (name, call) = match name.find(['\'', '’']) {
            Some(k) if name[k..].eq_ignore_ascii_case("'s") || name[k..] == *"’s" || name[k..] == *"’S" => {
                (&name[..k], false)
            }
            Some(_) => {
                found.push((at, Found::Words(name, code)));
                continue;
            }
            None => (name, is_call(&buf[span.end..], code)),
        };
        if is_identifier(name, call) {
            found.push((at, Found::Identifier(name)));
        } else {
            found.push((at, Found::Words(name, code)));
        }
    }
}

/// Whether `c` starts a name.
pub(super) fn name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `c` continues a name.
pub(super) fn name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The end of the run of name characters at `from`.
pub(super) fn name_run_end(s: &str, from: usize) -> usize {
    s[from..].find(|c: char| !name_char(c)).map_or(s.len(), |k| from + k)
}

/// Contraction endings: `'s`, `n't`, `'re`, `'ve`, `'ll`, `'d`, `'m`.
pub(super) const CONTRACTIONS: &[&str] = &["s", "t", "re", "ve", "ll", "d", "m"];

/// The names of `s`: a run of letters, digits and `_` that starts with a letter or `_` (not
/// inside a longer run), then either a contraction ending (`doesn't`, `Foo's`) or parts joined
/// by `.`, `::` or `#` (`os.path.join`, `std::fs::read`, `Foo#bar`). Hand-written: most of a
/// text is names, and a Unicode regex costs several times more here.
pub(super) fn name_spans(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut prev_name_char = false;
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if prev_name_char || !name_start(c) {
            prev_name_char = name_char(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let mut end = name_run_end(s, i);
        if let Some(q) = s[end..].chars().next().filter(|q| matches!(q, '\'' | '’')) {
            let tail_start = end + q.len_utf8();
            let tail_end = name_run_end(s, tail_start);
            let tail = &s[tail_start..tail_end];
            if CONTRACTIONS.iter().any(|t| tail.eq_ignore_ascii_case(t)) {
                end = tail_end;
            }
        } else {
            loop {
                let rest = &s[end..];
                let sep = if rest.starts_with("::") { 2 } else { usize::from(rest.starts_with(['.', '#'])) };
                if sep == 0 || !s[end + sep..].chars().next().is_some_and(name_start) {
                    break;
                }
                end = name_run_end(s, end + sep);
            }
        }
        out.push(start..end);
        prev_name_char = s[..end].chars().next_back().is_some_and(name_char);
        i = end;
    }
    out
}

/// Replaces `buf[start..end]` with spaces (the same number of bytes, so offsets hold).
pub(super) fn blank(buf: &mut String, start: usize, end: usize) {
    buf.replace_range(start..end, &" ".repeat(end - start));
}

/// Blanks every match of `pattern` in `buf`.
pub(super) fn blank_all(buf: &mut String, pattern: &Regex) {
    let ranges: Vec<_> = pattern.find_iter(buf).map(|m| m.range()).collect();
    for r in ranges {
        blank(buf, r.start, r.end);
    }
}

/// `raw` trimmed of surrounding quotes and trailing punctuation, cut to [`MAX_MESSAGE_CHARS`].
pub(super) fn clean_message(raw: &str) -> String {
    let trailing: &[char] = &['.', ',', ';', ':', '!', '?'];
    let mut m = raw.trim().trim_end_matches(trailing).trim_end();
    for (open, close) in [('"', '"'), ('\'', '\''), ('`', '`'), ('“', '”'), ('‘', '’')] {
        if let Some(inner) = m.strip_prefix(open).and_then(|s| s.strip_suffix(close))
            && !inner.contains(open)
            && !inner.contains(close)
        {
            m = inner.trim().trim_end_matches(trailing).trim_end();
            break;
        }
    }
    match m.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => m[..end].trim_end().to_owned(),
        None => m.to_owned(),
    }
}

/// The words of a message: whitespace-separated tokens with two letters or digits in a row.
pub(super) fn message_words(m: &str) -> usize {
    m.split_whitespace().filter(|t| has_word_run(t)).count()
}

/// Whether `s` holds two alphanumeric characters in a row, one of them a letter.
pub(super) fn has_word_run(s: &str) -> bool {
    word_runs(s) > 0
}

/// The runs of two or more alphanumeric characters in `s` that hold a letter.
pub(super) fn word_runs(s: &str) -> usize {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|r| r.chars().count() >= 2 && r.chars().any(char::is_alphabetic))
        .count()
}
