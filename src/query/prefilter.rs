//! From a regex to the trigrams any match must contain: an AND/OR tree over trigram terms,
//! or `Any` when the pattern requires nothing usable (`.*`, `\w+`, a two-letter literal).
//!
//! The tree is a necessary condition only: a file that lacks it cannot match, a file that has
//! it may not. Literal runs are joined across concatenations; case-folded classes (`[Ff]`,
//! what `(?i)` produces) count as their ASCII-lower-case letter, like the index. Characters
//! other than ASCII count as their UTF-8 bytes, as the index takes them. A class of a few
//! characters (`[Éé]`, what `(?i)` makes of a letter with other cases) is a choice: the run is
//! any of its spellings.

use regex_syntax::hir::{Class, Hir, HirKind};
use tantivy::Term;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use crate::index::tokenizer::{fold, trigrams};

/// Which windows of three bytes an index made trigram terms of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Windows {
    /// Those of ASCII bytes only (index format 4).
    Ascii,
    /// All of them.
    Bytes,
}

/// A boolean condition over trigrams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prefilter {
    /// No constraint: every file is a candidate.
    Any,
    /// The file contains this trigram.
    Trigram(String),
    /// All of these.
    And(Vec<Prefilter>),
    /// Any of these.
    Or(Vec<Prefilter>),
}

impl Prefilter {
    /// All of `parts` (`Any` when there are none).
    pub fn and(parts: Vec<Prefilter>) -> Prefilter {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Prefilter::Any => {}
                Prefilter::And(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        flat.dedup();
        match flat.len() {
            0 => Prefilter::Any,
            1 => flat.pop().expect("one element"),
            _ => Prefilter::And(flat),
        }
    }

    /// Any of `parts` (`Any` when there are none, or when one is `Any`).
    pub fn or(parts: Vec<Prefilter>) -> Prefilter {
        if parts.contains(&Prefilter::Any) || parts.is_empty() {
            return Prefilter::Any;
        }
        let mut flat: Vec<Prefilter> = Vec::new();
        for p in parts {
            let alternatives = match p {
                Prefilter::Or(inner) => inner,
                other => vec![other],
            };
            for a in alternatives {
                // The same condition twice (two languages demanding one text) is one.
                if !flat.contains(&a) {
                    flat.push(a);
                }
            }
        }
        if flat.len() == 1 { flat.pop().expect("one element") } else { Prefilter::Or(flat) }
    }

    /// The trigrams of `text`, folded as the index folds them.
    pub fn of_literal(text: &str) -> Prefilter {
        Prefilter::literal(&text.chars().map(fold).collect::<String>())
    }

    /// The trigrams of a run of `text`. U+FFFD stands where bytes were not UTF-8, in a pattern
    /// made of bytes (`log -S` with a needle that is not text) as in indexed content, and the
    /// same bytes decode to it or not by what follows them: a window holding it is required
    /// of no file.
    fn literal(text: &str) -> Prefilter {
        Prefilter::and(text.split('\u{FFFD}').flat_map(trigrams).map(Prefilter::Trigram).collect())
    }

    /// The condition an index of `windows` can answer: a trigram it has no term for is
    /// required of no file.
    pub fn within(&self, windows: Windows) -> Prefilter {
        match (self, windows) {
            (_, Windows::Bytes) | (Prefilter::Any, _) => self.clone(),
            (Prefilter::Trigram(t), Windows::Ascii) => {
                if t.is_ascii() {
                    self.clone()
                } else {
                    Prefilter::Any
                }
            }
            (Prefilter::And(parts), _) => Prefilter::and(parts.iter().map(|p| p.within(windows)).collect()),
            (Prefilter::Or(parts), _) => Prefilter::or(parts.iter().map(|p| p.within(windows)).collect()),
        }
    }

    /// Whether the condition constrains nothing.
    pub fn is_any(&self) -> bool {
        *self == Prefilter::Any
    }

    /// The condition as a query over a trigram `field` (`Any` matches every document).
    pub fn query(&self, field: Field) -> Box<dyn Query> {
        match self {
            Prefilter::Any => Box::new(AllQuery),
            Prefilter::Trigram(t) => {
                Box::new(TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::Basic))
            }
            Prefilter::And(parts) => {
                Box::new(BooleanQuery::new(parts.iter().map(|q| (Occur::Must, q.query(field))).collect()))
            }
            Prefilter::Or(parts) => {
                Box::new(BooleanQuery::new(parts.iter().map(|q| (Occur::Should, q.query(field))).collect()))
            }
        }
    }
}

/// A piece of a concatenation: a literal character, one of a few (a class such as `[Éé]`,
/// what `(?i)` makes of a letter with other cases), or a sub-condition that breaks literal
/// runs.
enum Piece {
    Char(char),
    Choice(Vec<char>),
    Break(Prefilter),
}

/// A class of at most this many characters is a choice within a run; a larger one breaks it.
const MAX_CHOICE: usize = 4;

/// A run of choices is spelled out as at most this many texts, any of which the file must
/// hold; a run with more is cut where the count would pass it.
const MAX_SPELLINGS: usize = 16;

/// The prefilter of a parsed pattern.
pub fn of(hir: &Hir) -> Prefilter {
    let mut pieces = Vec::new();
    pieces_of(hir, &mut pieces);
    assemble(pieces)
}

fn assemble(pieces: Vec<Piece>) -> Prefilter {
    let mut parts = Vec::new();
    // The characters each position of the current run may be, folded as the index folds.
    let mut run: Vec<Vec<char>> = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Char(c) => run.push(vec![fold(c)]),
            // Folded already.
            Piece::Choice(chars) => run.push(chars),
            Piece::Break(p) => {
                parts.push(spelled(&std::mem::take(&mut run)));
                parts.push(p);
            }
        }
    }
    parts.push(spelled(&run));
    Prefilter::and(parts)
}

/// A run's condition: it is spelled one of its ways, each way's trigrams all present; a run
/// with more than [`MAX_SPELLINGS`] ways is cut into pieces with fewer, each required.
fn spelled(run: &[Vec<char>]) -> Prefilter {
    let mut parts = Vec::new();
    let mut rest = run;
    while !rest.is_empty() {
        // The longest start of the rest with few enough spellings (a position alone has at
        // most `MAX_CHOICE`).
        let mut ways = 1usize;
        let take = rest
            .iter()
            .take_while(|chars| {
                ways = ways.saturating_mul(chars.len());
                ways <= MAX_SPELLINGS
            })
            .count()
            .max(1);
        let mut texts = vec![String::new()];
        for chars in &rest[..take] {
            texts = texts.iter().flat_map(|t| chars.iter().map(move |c| format!("{t}{c}"))).collect();
        }
        parts.push(Prefilter::or(texts.iter().map(|t| Prefilter::literal(t)).collect()));
        rest = &rest[take..];
    }
    Prefilter::and(parts)
}

/// A class as a piece: one character (a letter in either ASCII case counts as one), a choice
/// of a few, or none when it has more. A class of bytes (`(?-u)`) counts only when all its
/// bytes are ASCII: the index holds the UTF-8 of text, not raw bytes.
fn class_piece(class: &Class) -> Option<Piece> {
    let mut chars: Vec<char> = Vec::new();
    match class {
        Class::Unicode(c) => {
            for range in c.ranges() {
                for c in range.start()..=range.end() {
                    if chars.len() == 2 * MAX_CHOICE {
                        return None;
                    }
                    chars.push(c);
                }
            }
        }
        Class::Bytes(c) => {
            for range in c.ranges() {
                for b in range.start()..=range.end() {
                    if !b.is_ascii() || chars.len() == 2 * MAX_CHOICE {
                        return None;
                    }
                    chars.push(char::from(b));
                }
            }
        }
    }
    let mut folded: Vec<char> = chars.iter().map(|&c| fold(c)).collect();
    folded.sort_unstable();
    folded.dedup();
    match folded.len() {
        0 => None,
        1 => Some(Piece::Char(folded[0])),
        n if n <= MAX_CHOICE => Some(Piece::Choice(folded)),
        _ => None,
    }
}

fn pieces_of(hir: &Hir, out: &mut Vec<Piece>) {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(text) => out.extend(text.chars().map(Piece::Char)),
            Err(_) => out.push(Piece::Break(Prefilter::Any)),
        },
        HirKind::Class(class) => out.push(class_piece(class).unwrap_or(Piece::Break(Prefilter::Any))),
        // Zero-width assertions consume no text: the literals around them stay adjacent.
        HirKind::Look(_) => {}
        HirKind::Repetition(rep) => {
            if rep.min == 0 {
                out.push(Piece::Break(Prefilter::Any));
            } else if rep.min == 1 && rep.max == Some(1) {
                pieces_of(&rep.sub, out);
            } else {
                // `x{2,}` must contain `x` at least once, but its copies are not a fixed run.
                out.push(Piece::Break(of(&rep.sub)));
            }
        }
        HirKind::Capture(cap) => pieces_of(&cap.sub, out),
        HirKind::Concat(subs) => {
            for sub in subs {
                pieces_of(sub, out);
            }
        }
        HirKind::Alternation(subs) => out.push(Piece::Break(Prefilter::or(subs.iter().map(of).collect()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefilter(pattern: &str) -> Prefilter {
        of(&regex_syntax::Parser::new().parse(pattern).unwrap())
    }

    fn t(s: &str) -> Prefilter {
        Prefilter::Trigram(s.to_owned())
    }

    #[test]
    fn literals_and_concatenations() {
        assert_eq!(prefilter("abcd"), Prefilter::And(vec![t("abc"), t("bcd")]));
        assert_eq!(prefilter("ab"), Prefilter::Any);
        assert_eq!(prefilter("abc.*def"), Prefilter::And(vec![t("abc"), t("def")]));
        assert_eq!(prefilter(r"\bfoo\b"), t("foo"));
        assert_eq!(prefilter("^Foo$"), t("foo"));
        assert_eq!(prefilter(r"\w+"), Prefilter::Any);
        assert_eq!(prefilter("a(bc)d"), Prefilter::And(vec![t("abc"), t("bcd")]));
    }

    #[test]
    fn alternations_and_case() {
        assert_eq!(prefilter("foo|bar"), Prefilter::Or(vec![t("foo"), t("bar")]));
        // One condition once (two languages demanding one text).
        assert_eq!(Prefilter::or(vec![t("foo"), t("foo")]), t("foo"));
        assert_eq!(
            Prefilter::or(vec![Prefilter::Or(vec![t("foo"), t("bar")]), t("bar")]),
            Prefilter::Or(vec![t("foo"), t("bar")])
        );
        assert_eq!(prefilter("foo|b"), Prefilter::Any);
        assert_eq!(prefilter("(?i)FOO"), t("foo"));
        assert_eq!(prefilter("x(abc)+"), t("abc"));
        assert_eq!(prefilter("x(abc)*"), Prefilter::Any);
        assert_eq!(prefilter("[a-z]+_id"), t("_id"));
        assert_eq!(prefilter("user_[a-z]+"), Prefilter::And(vec![t("er_"), t("ser"), t("use")]));
    }

    #[test]
    fn characters_other_than_ascii_count_as_their_bytes_unless_case_is_ignored() {
        let terms = |text: &str| Prefilter::and(trigrams(text).into_iter().map(Prefilter::Trigram).collect());
        assert_eq!(prefilter("été"), terms("été"));
        assert!(matches!(prefilter("été"), Prefilter::And(ref parts) if parts.len() == 3));
        assert_eq!(prefilter("Größe.*中文"), Prefilter::and(vec![terms("Größe"), terms("中文")]));
        // `é` has another case: under `(?i)` it is a class, a choice of two, and the run is
        // any of its four spellings.
        let spellings = |texts: &[&str]| Prefilter::or(texts.iter().map(|s| terms(s)).collect());
        assert_eq!(prefilter("(?i)été"), spellings(&["ÉtÉ", "Été", "étÉ", "été"]));
        assert_eq!(prefilter("(?i)xyz_é"), spellings(&["xyz_É", "xyz_é"]));
        assert_eq!(prefilter("[内外]核心"), spellings(&["内核心", "外核心"]));
        // `k` and `s` have a third case under `(?i)` (the Kelvin sign, the long s).
        assert_eq!(prefilter("(?i)kern"), spellings(&["kern", "\u{212A}ern"]));
        // A run with more spellings than the bound is cut where it would pass it: each
        // piece is required, spelled its own ways.
        let long = prefilter("(?i)éééééé");
        assert_eq!(
            long,
            Prefilter::and(vec![
                spellings(&[
                    "ÉÉÉÉ", "ÉÉÉé", "ÉÉéÉ", "ÉÉéé", "ÉéÉÉ", "ÉéÉé", "ÉééÉ", "Éééé", "éÉÉÉ", "éÉÉé", "éÉéÉ", "éÉéé",
                    "ééÉÉ", "ééÉé", "éééÉ", "éééé"
                ]),
                spellings(&["ÉÉ", "Éé", "éÉ", "éé"])
            ])
        );
        // Classes of more characters than a choice holds break the run.
        assert_eq!(prefilter("abc[a-e]xyz"), Prefilter::And(vec![t("abc"), t("xyz")]));
        // Characters without cases are literals under `(?i)` too.
        assert_eq!(prefilter("(?i)中文"), terms("中文"));
        // U+FFFD, where a pattern made of bytes was not UTF-8, is required of no file: the
        // windows around it are left out.
        assert_eq!(Prefilter::of_literal("ab\u{FFFD}cd"), Prefilter::Any);
        assert_eq!(Prefilter::of_literal("abc\u{FFFD}"), t("abc"));
        // An index of ASCII windows only (format 4) is asked only for those.
        assert_eq!(prefilter("été").within(Windows::Ascii), Prefilter::Any);
        assert_eq!(prefilter("abcé").within(Windows::Ascii), t("abc"));
        assert_eq!(prefilter("abcé|中文字").within(Windows::Ascii), Prefilter::Any);
        assert_eq!(prefilter("abcé|xyzé").within(Windows::Ascii), Prefilter::Or(vec![t("abc"), t("xyz")]));
        assert_eq!(prefilter("abcé").within(Windows::Bytes), prefilter("abcé"));
        // Bytes that are not UTF-8 (`(?-u)`) require nothing.
        let bytes = regex_syntax::ParserBuilder::new().utf8(false).build().parse(r"(?-u:\xE9\xE9\xE9)").unwrap();
        assert_eq!(of(&bytes), Prefilter::Any);
    }
}
