//! Tokenizers, registered with Tantivy by name.
//!
//! - `code`: identifiers split at camelCase, snake_case, kebab-case, dots and letter/digit
//!   boundaries, lower-cased, plus the whole identifier at its first part's position:
//!   `getUserName` gives `get`, `user`, `name` and `getusername`.
//! - `path`: a path split at `/`, `.`, `-`, `_` and case changes, plus each whole file or
//!   directory name.
//! - `trigram`: the distinct, ASCII-lower-cased character trigrams of a text, each once, no
//!   positions: a prefilter for literal and regex search, never an answer on its own.

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

/// A token before its text is materialised: byte offsets, position, and how many parts it
/// spans. Tokenizers keep these in a reused buffer and write each token's lower-cased text
/// into one reused `Token`, so indexing allocates nothing per token.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// Start byte.
    pub from: usize,
    /// End byte.
    pub to: usize,
    /// Token position.
    pub position: usize,
    /// Parts spanned (more than one for a whole identifier).
    pub length: usize,
}

/// The spans of `text` for the `code` tokenizer, appended to `out`.
pub fn code_spans(text: &str, out: &mut Vec<Span>) {
    let mut position = 0usize;
    let bytes = text.as_bytes();
    let is_word_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = 0;
    let mut parts: Vec<(usize, usize)> = Vec::new();
    while i < bytes.len() {
        if !is_word_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_word_byte(bytes[i]) {
            i += 1;
        }
        // Non-ASCII bytes joined the run; keep only alphanumeric characters in words.
        let identifier = &text[start..i];
        let mut piece_start = None;
        parts.clear();
        for (offset, c) in identifier.char_indices() {
            let word_char = c.is_alphanumeric();
            match (word_char, piece_start) {
                (true, None) => piece_start = Some(offset),
                (false, Some(p)) => {
                    parts.extend(split_word(&identifier[p..offset]).into_iter().map(|(a, b)| (p + a, p + b)));
                    piece_start = None;
                }
                _ => {}
            }
        }
        if let Some(p) = piece_start {
            parts.extend(split_word(&identifier[p..]).into_iter().map(|(a, b)| (p + a, p + b)));
        }
        if parts.is_empty() {
            continue;
        }
        let first_position = position;
        for &(a, b) in &parts {
            out.push(Span { from: start + a, to: start + b, position, length: 1 });
            position += 1;
        }
        if parts.len() > 1 {
            // The whole identifier, without leading or trailing underscores.
            let whole_from = start + parts[0].0;
            let whole_to = start + parts[parts.len() - 1].1;
            out.push(Span { from: whole_from, to: whole_to, position: first_position, length: parts.len() });
        }
    }
}

/// `text` lower-cased into `out` (cleared first), as the tokenizers write a token.
pub(crate) fn lower_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// The tokens of `text` for the `code` tokenizer (allocating; for queries and tests).
pub fn code_tokens(text: &str) -> Vec<Token> {
    let mut spans = Vec::new();
    code_spans(text, &mut spans);
    spans
        .into_iter()
        .map(|s| {
            let mut t = String::new();
            lower_into(&text[s.from..s.to], &mut t);
            Token { offset_from: s.from, offset_to: s.to, position: s.position, text: t, position_length: s.length }
        })
        .collect()
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

/// Packs a window's three bytes (ASCII letters already folded) into a code below 2^24.
fn pack(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c)
}

/// The code of every window of three bytes of `text` that does not cross a line end, ASCII
/// letters folded, in order (with repeats). The bytes of other characters are taken as they
/// are: a case-insensitive query spells a letter with other cases each way (see
/// `query::prefilter`). Content is decoded lossily before it is indexed, which
/// replaces only invalid sequences: a valid character is decoded as itself wherever it
/// stands, so every window of any match of a valid UTF-8 pattern is indexed.
fn window_codes(text: &[u8]) -> impl Iterator<Item = u32> + '_ {
    text.windows(3)
        .filter(|w| !w.contains(&b'\n'))
        .map(|w| pack(w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase(), w[2].to_ascii_lowercase()))
}

/// The distinct trigram codes of `text` (see [`window_codes`]), sorted; `seen` is a bitmap
/// of every code, kept clear between calls.
pub fn trigram_codes(text: &[u8], seen: &mut Vec<u64>, out: &mut Vec<u32>) {
    const WORDS: usize = (1 << 24) / 64;
    if seen.len() != WORDS {
        *seen = vec![0u64; WORDS];
    }
    out.clear();
    for code in window_codes(text) {
        let (word, bit) = ((code / 64) as usize, 1u64 << (code % 64));
        if seen[word] & bit == 0 {
            seen[word] |= bit;
            out.push(code);
        }
    }
    for &code in out.iter() {
        seen[(code / 64) as usize] = 0;
    }
    out.sort_unstable();
}

/// A code's term: its three bytes as characters, a byte of another character than ASCII as
/// U+0180 to U+01FF (a term is text, and a window may cut a character in two), so a window of
/// ASCII has the term it had before other windows were indexed.
fn unpack(code: u32, out: &mut String) {
    out.clear();
    for byte in [(code >> 16) as u8, (code >> 8) as u8, code as u8] {
        out.push(if byte.is_ascii() {
            char::from(byte)
        } else {
            char::from_u32(0x100 + u32::from(byte)).expect("U+0180 to U+01FF are characters")
        });
    }
}

/// The distinct trigrams of `text` as terms, sorted (for queries and tests).
pub fn trigrams(text: &str) -> Vec<String> {
    // A query's text is short: no bitmap.
    let mut codes: Vec<u32> = window_codes(text.as_bytes()).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
        .into_iter()
        .map(|c| {
            let mut s = String::new();
            unpack(c, &mut s);
            s
        })
        .collect()
}

/// The `code` tokenizer.
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    spans: Vec<Span>,
    token: Token,
}

/// The stream of [`CodeTokenizer`].
pub struct CodeTokenStream<'a> {
    text: &'a str,
    spans: &'a [Span],
    index: usize,
    token: &'a mut Token,
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(span) = self.spans.get(self.index) else { return false };
        self.index += 1;
        lower_into(&self.text[span.from..span.to], &mut self.token.text);
        self.token.offset_from = span.from;
        self.token.offset_to = span.to;
        self.token.position = span.position;
        self.token.position_length = span.length;
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.spans.clear();
        code_spans(text, &mut self.spans);
        CodeTokenStream { text, spans: &self.spans, index: 0, token: &mut self.token }
    }
}

/// The `path` tokenizer.
#[derive(Clone, Default)]
pub struct PathTokenizer;

impl Tokenizer for PathTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream { tokens: path_tokens(text), index: 0 }
    }
}

/// The `trigram` tokenizer.
#[derive(Clone, Default)]
pub struct TrigramTokenizer {
    seen: Vec<u64>,
    codes: Vec<u32>,
    token: Token,
}

/// The stream of [`TrigramTokenizer`].
pub struct TrigramTokenStream<'a> {
    codes: &'a [u32],
    index: usize,
    token: &'a mut Token,
}

impl TokenStream for TrigramTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(&code) = self.codes.get(self.index) else { return false };
        unpack(code, &mut self.token.text);
        self.token.position = self.index;
        self.index += 1;
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

impl Tokenizer for TrigramTokenizer {
    type TokenStream<'a> = TrigramTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> TrigramTokenStream<'a> {
        trigram_codes(text.as_bytes(), &mut self.seen, &mut self.codes);
        TrigramTokenStream { codes: &self.codes, index: 0, token: &mut self.token }
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
        assert_eq!(texts(code_tokens("getUserName")), ["get", "user", "name", "getusername"]);
        assert_eq!(texts(code_tokens("HTTPServer")), ["http", "server", "httpserver"]);
        assert_eq!(texts(code_tokens("user_id")), ["user", "id", "user_id"]);
        assert_eq!(texts(code_tokens("parseJSON2Value")), ["parse", "json", "2", "value", "parsejson2value"]);
        assert_eq!(texts(code_tokens("kebab-case.dotted")), ["kebab", "case", "dotted"]);
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
        for expected in ["src", "http_server", "http", "server", "requestparser.rs", "request", "parser", "rs"] {
            assert!(t.contains(&expected.to_owned()), "{expected} in {t:?}");
        }
    }

    #[test]
    fn trigrams_are_folded_distinct_and_stop_at_lines() {
        assert_eq!(trigrams("AbAbA"), ["aba", "bab"]);
        assert_eq!(trigrams("ab\ncd"), Vec::<String>::new());
        // Bytes of other characters than ASCII are taken as they are (not folded), shifted
        // to U+0180 to U+01FF in the term; a window may cut a character.
        let shifted = |bytes: &[u8]| -> String {
            bytes
                .iter()
                .map(|&b| if b.is_ascii() { char::from(b) } else { char::from_u32(0x100 + u32::from(b)).unwrap() })
                .collect()
        };
        // "é" is C3 A9, "É" is C3 89.
        assert_eq!(trigrams("été"), [shifted(b"t\xc3\xa9"), shifted(b"\xa9t\xc3"), shifted(b"\xc3\xa9t")]);
        assert_ne!(trigrams("ÉTÉ"), trigrams("été"));
        assert_eq!(trigrams("aÄbcd").len(), 4);
        assert!(trigrams("aÄbcd").contains(&"bcd".to_owned()));
        assert_eq!(trigrams("é\né"), Vec::<String>::new());
        // The same codes through the index's bitmap as through a query's sort.
        let mut seen = Vec::new();
        let mut codes = Vec::new();
        for text in ["AbAbA", "été ÉTÉ 中文字符", "a\nbcd\r\n\u{1F600}x", ""] {
            trigram_codes(text.as_bytes(), &mut seen, &mut codes);
            let terms: Vec<String> = codes
                .iter()
                .map(|&c| {
                    let mut s = String::new();
                    unpack(c, &mut s);
                    s
                })
                .collect();
            assert_eq!(terms, trigrams(text), "{text}");
            assert!(seen.iter().all(|&w| w == 0), "the bitmap is left clear");
        }
    }
}
