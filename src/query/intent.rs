//! Intent routing for `--mode auto`: what kind of question a query is.
//!
//! Rules, in order: a quoted string is error text; text of several lines, of more than
//! [`MESSAGE_WORDS`] words, or a question is natural language (a pasted issue, however much
//! it quotes); regex syntax that would not appear in code makes a regex; a slash or a file
//! extension makes a path; one identifier (possibly qualified) is a symbol; a short text that
//! reads like a message is error text; several plain words are natural language. Each answer
//! carries a confidence the caller reports and can act on. Error text that matches nothing
//! exactly falls back to a ranked word search, so a wrong guess costs little.

/// What a query asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// A definition by name: `parse_config`, `Cart::total`.
    Symbol,
    /// A file: `src/cart.rs`, `cart.rs`.
    Path,
    /// An exact string: a quoted phrase or a log/error message.
    ErrorText,
    /// A question in words.
    NaturalLanguage,
    /// A regular expression.
    Regex,
}

impl Intent {
    /// The stable spelling used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Symbol => "symbol",
            Intent::Path => "path",
            Intent::ErrorText => "error_text",
            Intent::NaturalLanguage => "natural_language",
            Intent::Regex => "regex",
        }
    }
}

/// An intent with how sure the router is (0.0 to 1.0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Classified {
    /// The intent.
    pub intent: Intent,
    /// The router's confidence.
    pub confidence: f32,
}

const EXTENSIONS: &[&str] = &[
    "rs", "py", "go", "js", "ts", "tsx", "jsx", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift",
    "scala", "dart", "lua", "sh", "md", "toml", "yaml", "yml", "json", "xml", "html", "css", "sql", "tf", "gradle",
    "groovy", "txt", "lock", "cfg", "ini", "mk",
];

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whether `q` is one identifier, optionally qualified (`a::b`, `a.b`, `a#b`, `a->b`).
fn is_symbol_like(q: &str) -> bool {
    let normalized = q.replace("::", ".").replace("->", ".").replace('#', ".");
    !normalized.is_empty()
        && normalized.split('.').all(|part| {
            !part.is_empty()
                && part.chars().all(is_identifier_char)
                && !part.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
}

fn has_regex_syntax(q: &str) -> bool {
    const SIGNS: &[&str] = &[
        ".*", ".+", "\\w", "\\d", "\\s", "\\b", "\\W", "\\S", "\\D", "[^", "(?", "[a-z", "[A-Z", "[0-9", "+?", "*?",
        "{2", "{1", "{3", "$)", "|^",
    ];
    SIGNS.iter().any(|s| q.contains(s)) || (q.starts_with('^') && q.len() > 1) || (q.ends_with('$') && !q.contains(' '))
}

fn looks_like_message(q: &str) -> bool {
    let words: Vec<&str> = q.split_whitespace().collect();
    if words.len() < 2 {
        return false;
    }
    let punctuation = q.chars().filter(|c| matches!(c, ':' | '\'' | '"' | '%' | '{' | '}' | '=' | '!' | ',')).count();
    let starts_upper = q.chars().next().is_some_and(char::is_uppercase);
    let error_word = [
        "error",
        "failed",
        "cannot",
        "can't",
        "unable",
        "invalid",
        "panic",
        "exception",
        "not found",
        "denied",
        "refused",
        "expected",
        "unknown",
        "missing",
        "no such",
        "not allowed",
        "unsupported",
        "must be",
        "could not",
        "couldn't",
        "does not exist",
        "already exists",
        "timed out",
        "too many",
        "undefined",
        "unexpected",
    ]
    .iter()
    .any(|w| q.to_lowercase().contains(w));
    let quoted_value = q.contains('\'') || q.contains('`') || q.contains('"');
    punctuation >= 1 && (error_word || starts_upper) || error_word && (starts_upper || quoted_value)
}

/// Messages longer than this many words are read as prose: log lines are short.
const MESSAGE_WORDS: usize = 16;

/// Words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "where", "why", "which", "when", "who", "whom", "whose", "is", "are", "does", "do", "can", "should",
];

/// Whether `q` is a text of several lines or more words than a message has: a paste.
pub(crate) fn is_long_text(q: &str) -> bool {
    q.trim_end().contains('\n') || q.split_whitespace().count() > MESSAGE_WORDS
}

/// Whether `q` is a question or prose too long to be one message.
fn reads_as_prose(q: &str) -> bool {
    let words: Vec<&str> = q.split_whitespace().collect();
    let first = words.first().map(|w| w.to_lowercase()).unwrap_or_default();
    q.trim_end().contains('\n')
        || words.len() > MESSAGE_WORDS
        || (words.len() >= 3 && (q.trim_end().ends_with('?') || QUESTION_WORDS.contains(&first.as_str())))
}

/// Classifies a query.
pub fn classify(query: &str) -> Classified {
    let q = query.trim();
    let c = |intent, confidence| Classified { intent, confidence };
    let quoted = q.len() >= 2 && (q.starts_with('"') && q.ends_with('"') || q.starts_with('\'') && q.ends_with('\''));
    if quoted && !q[1..q.len() - 1].contains(['"', '\n']) {
        return c(Intent::ErrorText, 0.95);
    }
    if reads_as_prose(q) {
        return c(Intent::NaturalLanguage, 0.85);
    }
    if has_regex_syntax(q) && !q.contains("::") {
        return c(Intent::Regex, 0.8);
    }
    if !q.contains(' ')
        && (q.contains('/')
            || q.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext)))
    {
        return c(Intent::Path, if q.contains('/') { 0.9 } else { 0.75 });
    }
    if is_symbol_like(q) {
        let mixed = q.chars().any(char::is_uppercase) && q.chars().any(char::is_lowercase);
        let joined = q.contains('_') || q.contains("::") || q.contains('.') || mixed;
        return c(Intent::Symbol, if joined { 0.9 } else { 0.6 });
    }
    if looks_like_message(q) {
        return c(Intent::ErrorText, 0.7);
    }
    let words = q.split_whitespace().count();
    if words >= 2 {
        return c(Intent::NaturalLanguage, if words >= 3 { 0.8 } else { 0.55 });
    }
    c(Intent::ErrorText, 0.4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn router_table() {
        let table = [
            ("parse_config", Intent::Symbol),
            ("HttpServer", Intent::Symbol),
            ("Cart::total_cents", Intent::Symbol),
            ("Greeter.greet", Intent::Symbol),
            ("main", Intent::Symbol),
            ("src/cart.rs", Intent::Path),
            ("cart.rs", Intent::Path),
            ("\"connection refused\"", Intent::ErrorText),
            ("error: could not compile `foo`", Intent::ErrorText),
            ("Failed to open config file: {}", Intent::ErrorText),
            ("fn \\w+_test", Intent::Regex),
            ("^impl.*Display", Intent::Regex),
            ("foo.*bar", Intent::Regex),
            ("how are carts totalled", Intent::NaturalLanguage),
            ("where do we parse the config", Intent::NaturalLanguage),
            (
                "Where does pytest store and read the list of last failed tests, and where are stale entries pruned?",
                Intent::NaturalLanguage,
            ),
            ("fixture 'tmp_path' not found", Intent::ErrorText),
            ("unknown setting 'verbose' in tracker.toml", Intent::ErrorText),
            (
                "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nKeyError: 'x'",
                Intent::NaturalLanguage,
            ),
            (
                "When the cart is empty the total is wrong, and the checkout page shows an error instead of zero for every user",
                Intent::NaturalLanguage,
            ),
        ];
        for (query, expected) in table {
            assert_eq!(classify(query).intent, expected, "{query}");
        }
    }
}
