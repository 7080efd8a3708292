//! The text of a tree-sitter query pattern read as tokens: what X-Ray needs to know of a
//! pattern beyond what tree-sitter tells (the kind of its root, whether it is a run of
//! siblings, the kinds every match has), read one way for all of them.

/// A query string's text after its opening quote: the unescaped text and what follows the
/// closing quote, or `None` when it is not closed.
pub(super) fn unquote(quoted: &str) -> Option<(String, &str)> {
    let mut literal = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((literal, &quoted[i + 1..])),
            '\\' => match chars.next() {
                Some((_, 'n')) => literal.push('\n'),
                Some((_, 't')) => literal.push('\t'),
                Some((_, other)) => literal.push(other),
                None => return None,
            },
            other => literal.push(other),
        }
    }
    None
}

/// A token of a query pattern's text.
#[derive(Debug, PartialEq)]
pub(super) enum Token<'t> {
    Open,
    Close,
    OpenAlternation,
    CloseAlternation,
    /// A node kind, `_`, a predicate's name (`#eq?`), or a predicate's argument.
    Word(&'t str),
    /// A quoted string (an anonymous node, or a predicate's argument).
    Text,
    /// `?`, `*` or `+`.
    Quantifier(char),
    /// A capture (`@name`).
    Capture,
    /// A negated field (`!name`).
    Negated,
    /// A field name (`name:`).
    Field(&'t str),
    /// An anchor (`.`).
    Anchor,
}

pub(super) fn tokens(pattern: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let bytes = pattern.as_bytes();
    let mut i = 0;
    let word_end = |from: usize| {
        pattern[from..]
            .find(|c: char| c.is_whitespace() || "()[]\";@:?*+!".contains(c))
            .map_or(pattern.len(), |n| from + n)
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'(' => out.push(Token::Open),
            b')' => out.push(Token::Close),
            b'[' => out.push(Token::OpenAlternation),
            b']' => out.push(Token::CloseAlternation),
            b'?' | b'*' | b'+' => out.push(Token::Quantifier(c as char)),
            b';' => {
                i = pattern[i..].find('\n').map_or(pattern.len(), |n| i + n);
                continue;
            }
            b'"' => {
                i = match unquote(&pattern[i + 1..]) {
                    Some((_, after)) => pattern.len() - after.len(),
                    None => pattern.len(),
                };
                out.push(Token::Text);
                continue;
            }
            b'@' | b'!' => {
                i = word_end(i + 1);
                out.push(if c == b'@' { Token::Capture } else { Token::Negated });
                continue;
            }
            _ if c.is_ascii_whitespace() => {}
            _ => {
                let end = word_end(i);
                if end == i {
                    // A character that ends words and is none of the query's (`:` alone,
                    // whitespace beyond ASCII): passed over whole.
                    i += pattern[i..].chars().next().map_or(1, char::len_utf8);
                    continue;
                }
                let word = &pattern[i..end];
                if bytes.get(end) == Some(&b':') {
                    out.push(Token::Field(word));
                    i = end + 1;
                } else {
                    out.push(if word == "." { Token::Anchor } else { Token::Word(word) });
                    i = end;
                }
                continue;
            }
        }
        i += 1;
    }
    out
}
