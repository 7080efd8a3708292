//! Tokenizers, registered with Tantivy by name.
//!
//! - `code`: identifiers split at camelCase, snake_case, kebab-case, dots and letter/digit
//!   boundaries, lower-cased, plus the whole identifier at its first part's position:
//!   `getUserName` gives `get`, `user`, `name` and `getusername`.
//! - `path`: a path split at `/`, `.`, `-`, `_` and case changes, plus each whole file or
//!   directory name.
//! - `trigram`: the distinct, ASCII-lower-cased character trigrams of a text, each once, no
//!   positions: a prefilter for literal and regex search, never an answer on its own.

use std::collections::HashSet;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// A token stream over precomputed tokens.
pub struct VecTokenStream {
    tokens: Vec<Token>,
    index: usize,
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        if self.index < self.tokens.len() {
            self.index += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.index - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index - 1]
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class(c: char) -> CharClass {
    if c.is_lowercase() {
        CharClass::Lower
    } else if c.is_uppercase() {
        CharClass::Upper
    } else if c.is_numeric() {
        CharClass::Digit
    } else if c.is_alphabetic() {
        CharClass::Lower
    } else {
        CharClass::Other
    }
}

/// Splits one word (letters and digits only) into its parts: `HTTPServer2` gives `HTTP`,
/// `Server`, `2`. Returns byte ranges into `word`.
pub fn split_word(word: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (class(chars[i - 1].1), class(chars[i].1));
        let next = chars.get(i + 1).map(|&(_, c)| class(c));
        let boundary = match (prev, cur) {
            (CharClass::Lower, CharClass::Upper) => true,
            (CharClass::Digit, CharClass::Lower | CharClass::Upper) => true,
            (CharClass::Lower | CharClass::Upper, CharClass::Digit) => true,
            // `HTTPServer`: the last capital of a run starts the next word.
            (CharClass::Upper, CharClass::Upper) => next == Some(CharClass::Lower),
            _ => false,
        };
        if boundary {
            parts.push((start, chars[i].0));
            start = chars[i].0;
        }
    }
    if !word.is_empty() {
        parts.push((start, word.len()));
    }
    parts
}

/// The tokens of `text` for the `code` tokenizer.
pub fn code_tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut position = 0usize;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut iter = text.char_indices().peekable();
    while let Some(&(start, c)) = iter.peek() {
        if !is_word(c) {
            iter.next();
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = iter.peek() {
            if !is_word(c) {
                break;
            }
            end = i + c.len_utf8();
            iter.next();
        }
        let identifier = &text[start..end];
        // Parts: split at underscores, then within each piece at case and digit changes.
        let mut parts: Vec<(usize, usize)> = Vec::new();
        let mut offset = 0;
        for piece in identifier.split('_') {
            if !piece.is_empty() {
                parts.extend(
                    split_word(piece)
                        .into_iter()
                        .map(|(a, b)| (offset + a, offset + b)),
                );
            }
            offset += piece.len() + 1;
        }
        if parts.is_empty() {
            continue;
        }
        let first_position = position;
        for &(a, b) in &parts {
            tokens.push(Token {
                offset_from: start + a,
                offset_to: start + b,
                position,
                text: identifier[a..b].to_lowercase(),
                position_length: 1,
            });
            position += 1;
        }
        let whole = identifier.trim_matches('_').to_lowercase();
        if parts.len() > 1 && !whole.is_empty() {
            tokens.push(Token {
                offset_from: start,
                offset_to: end,
                position: first_position,
                text: whole,
                position_length: parts.len(),
            });
        }
    }
    tokens
}

/// The tokens of a path for the `path` tokenizer.
pub fn path_tokens(path: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut position = 0;
    let mut offset = 0;
    for segment in path.split('/') {
        if !segment.is_empty() {
            tokens.push(Token {
                offset_from: offset,
                offset_to: offset + segment.len(),
                position,
                text: segment.to_lowercase(),
                position_length: 1,
            });
            position += 1;
            for token in code_tokens(segment) {
                if token.text != segment.to_lowercase() {
                    tokens.push(Token {
                        offset_from: offset + token.offset_from,
                        offset_to: offset + token.offset_to,
                        position,
                        ..token
                    });
                    position += 1;
                }
            }
        }
        offset += segment.len() + 1;
    }
    tokens
}

/// Lower-cases ASCII letters only: the same folding at index and query time, so the
/// prefilter stays a superset for case-insensitive queries on ASCII text.
pub fn fold(c: char) -> char {
    c.to_ascii_lowercase()
}

/// The distinct trigrams of `text` after [`fold`], as strings.
pub fn trigrams(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().map(fold).collect();
    let mut seen: HashSet<[char; 3]> = HashSet::with_capacity(chars.len() / 2);
    for window in chars.windows(3) {
        if window.contains(&'\n') {
            continue;
        }
        seen.insert([window[0], window[1], window[2]]);
    }
    let mut out: Vec<String> = seen.into_iter().map(|t| t.iter().collect()).collect();
    out.sort_unstable();
    out
}

/// The `code` tokenizer.
#[derive(Clone, Default)]
pub struct CodeTokenizer;

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream {
            tokens: code_tokens(text),
            index: 0,
        }
    }
}

/// The `path` tokenizer.
#[derive(Clone, Default)]
pub struct PathTokenizer;

impl Tokenizer for PathTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream {
            tokens: path_tokens(text),
            index: 0,
        }
    }
}

/// The `trigram` tokenizer.
#[derive(Clone, Default)]
pub struct TrigramTokenizer;

impl Tokenizer for TrigramTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        let tokens = trigrams(text)
            .into_iter()
            .enumerate()
            .map(|(position, text)| Token {
                offset_from: 0,
                offset_to: 0,
                position,
                text,
                position_length: 1,
            })
            .collect();
        VecTokenStream { tokens, index: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(tokens: Vec<Token>) -> Vec<String> {
        tokens.into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn code_tokens_split_identifiers_and_keep_the_whole() {
        assert_eq!(
            texts(code_tokens("getUserName")),
            ["get", "user", "name", "getusername"]
        );
        assert_eq!(
            texts(code_tokens("HTTPServer")),
            ["http", "server", "httpserver"]
        );
        assert_eq!(texts(code_tokens("user_id")), ["user", "id", "user_id"]);
        assert_eq!(
            texts(code_tokens("parseJSON2Value")),
            ["parse", "json", "2", "value", "parsejson2value"]
        );
        assert_eq!(
            texts(code_tokens("kebab-case.dotted")),
            ["kebab", "case", "dotted"]
        );
        assert_eq!(texts(code_tokens("fn  main()")), ["fn", "main"]);
        assert_eq!(texts(code_tokens("__init__")), ["init"]);
        assert_eq!(texts(code_tokens("Größe")), ["größe"]);
        assert!(code_tokens("+-*/ ").is_empty());
    }

    #[test]
    fn whole_identifier_sits_at_its_first_part() {
        let tokens = code_tokens("a getUserName b");
        let whole = tokens.iter().find(|t| t.text == "getusername").unwrap();
        assert_eq!((whole.position, whole.position_length), (1, 3));
        assert_eq!(tokens.iter().find(|t| t.text == "b").unwrap().position, 4);
    }

    #[test]
    fn path_tokens_keep_segments_and_parts() {
        let t = texts(path_tokens("src/http_server/RequestParser.rs"));
        for expected in [
            "src",
            "http_server",
            "http",
            "server",
            "requestparser.rs",
            "request",
            "parser",
            "rs",
        ] {
            assert!(t.contains(&expected.to_owned()), "{expected} in {t:?}");
        }
    }

    #[test]
    fn trigrams_are_folded_distinct_and_stop_at_lines() {
        assert_eq!(trigrams("AbAbA"), ["aba", "bab"]);
        assert_eq!(trigrams("ab\ncd"), Vec::<String>::new());
        assert_eq!(trigrams("ÄÖü"), ["ÄÖü"]);
    }
}
