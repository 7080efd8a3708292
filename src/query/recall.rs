//! The recall side of ranked search: a query's words and phrases, and the Tantivy queries
//! that recall symbol, snippet and file documents for them.

use tantivy::Term;
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use super::SearchContext;
use super::words::TermGroup;
use crate::index::DocKind;
use crate::index::tokenizer::code_tokens;

/// Words and quoted phrases of a query, in order.
pub(super) fn parse_terms(query: &str) -> (Vec<String>, Vec<String>) {
    let mut words = Vec::new();
    let mut phrases = Vec::new();
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        words.push(rest[..open].to_owned());
        let after = &rest[open + 1..];
        match after.find('"') {
            Some(close) => {
                phrases.push(after[..close].to_owned());
                rest = &after[close + 1..];
            }
            None => {
                rest = after;
            }
        }
    }
    words.push(rest.to_owned());
    let words = words.iter().flat_map(|w| w.split_whitespace().map(str::to_owned)).collect();
    (words, phrases)
}

pub(super) const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "by",
    "with",
    "and",
    "or",
    "how",
    "what",
    "where",
    "which",
    "who",
    "why",
    "when",
    "do",
    "does",
    "did",
    "we",
    "i",
    "you",
    "it",
    "this",
    "that",
    "there",
    "here",
    "can",
    "get",
    "find",
    "show",
    "me",
    "our",
    "my",
    "into",
    "function",
    "functions",
    "method",
    "methods",
    "code",
    "file",
    "files",
    "implement",
    "implemented",
    "implements",
    "defined",
    "define",
    "called",
    "used",
    "use",
    "uses",
    "handle",
    "handled",
    "should",
    "would",
];

/// A term, fuzzy when asked and long enough.
pub(super) fn term_query(field: Field, text: &str, fuzzy: u8) -> Box<dyn Query> {
    let term = Term::from_field_text(field, text);
    if fuzzy > 0 && text.chars().count() > usize::from(fuzzy) + 2 {
        Box::new(FuzzyTermQuery::new(term, fuzzy, true))
    } else {
        Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
    }
}

/// The fields a document kind is searched in, with their boosts.
pub(super) fn kind_fields(f: &crate::index::Fields, kind: DocKind) -> Vec<(Field, f32)> {
    match kind {
        DocKind::Symbol => vec![(f.name, 4.0), (f.qualified, 3.0), (f.signature, 2.0), (f.doc, 1.0)],
        DocKind::Snippet => vec![(f.body, 1.0)],
        DocKind::File => vec![(f.path, 2.0), (f.name, 3.0)],
    }
}

/// One query word as a clause: its whole identifier, or all its parts.
pub(super) fn word_clause(fields: &[(Field, f32)], word: &str, fuzzy: u8) -> Option<Box<dyn Query>> {
    let tokens = code_tokens(word);
    if tokens.is_empty() {
        return None;
    }
    let any_field = |text: &str| -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            fields
                .iter()
                .map(|&(f, boost)| {
                    (Occur::Should, Box::new(BoostQuery::new(term_query(f, text, fuzzy), boost)) as Box<dyn Query>)
                })
                .collect(),
        ))
    };
    let whole = tokens.iter().find(|t| t.position_length > 1).map(|t| t.text.clone());
    let parts: Vec<String> = tokens.iter().filter(|t| t.position_length == 1).map(|t| t.text.clone()).collect();
    match whole {
        Some(whole) => {
            let all_parts: Box<dyn Query> =
                Box::new(BooleanQuery::new(parts.iter().map(|p| (Occur::Must, any_field(p))).collect()));
            Some(Box::new(BooleanQuery::new(vec![
                (Occur::Should, Box::new(BoostQuery::new(any_field(&whole), 2.0))),
                (Occur::Should, all_parts),
            ])))
        }
        None => Some(any_field(&parts[0])),
    }
}

/// A quoted phrase recalls documents that have all of its words; adjacency is then verified
/// against the text itself (`phrase_holds`), which keeps positions out of the index.
pub(super) fn phrase_clause(fields: &[(Field, f32)], phrase: &str) -> Option<Box<dyn Query>> {
    let tokens: Vec<String> =
        code_tokens(phrase).into_iter().filter(|t| t.position_length == 1).map(|t| t.text).collect();
    if tokens.is_empty() {
        return None;
    }
    let any_field = |text: &str| -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            fields
                .iter()
                .map(|&(f, _)| {
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(Term::from_field_text(f, text), IndexRecordOption::WithFreqs))
                            as Box<dyn Query>,
                    )
                })
                .collect(),
        ))
    };
    Some(Box::new(BooleanQuery::new(tokens.iter().map(|t| (Occur::Must, any_field(t))).collect())))
}

/// Whether `text` holds `phrase`: case-insensitive, any run of whitespace matching any other.
pub(super) fn phrase_holds(text: &str, phrase: &str) -> bool {
    let normalize = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    normalize(text).contains(&normalize(phrase))
}

/// `clauses`, plus every quoted phrase, restricted to documents of `kind`; `None` when there
/// is nothing to match.
pub(super) fn with_phrases_and_kind(
    f: &crate::index::Fields,
    fields: &[(Field, f32)],
    kind: DocKind,
    mut clauses: Vec<(Occur, Box<dyn Query>)>,
    phrases: &[String],
) -> Option<Box<dyn Query>> {
    for p in phrases {
        if let Some(q) = phrase_clause(fields, p) {
            clauses.push((Occur::Must, q));
        }
    }
    if clauses.is_empty() {
        return None;
    }
    clauses.push((Occur::Must, kind_filter(f, kind)));
    Some(Box::new(BooleanQuery::new(clauses)))
}

/// Documents of `kind`, as a filter that adds nothing to a score. Scored as a term, it would
/// add the same amount to every document of the kind, and read the kind's field norm of each
/// document the other clauses match: a common word's documents reach every page of it.
pub(super) fn kind_filter(f: &crate::index::Fields, kind: DocKind) -> Box<dyn Query> {
    let term = TermQuery::new(Term::from_field_u64(f.kind, kind as u64), IndexRecordOption::Basic);
    Box::new(ConstScoreQuery::new(Box::new(term), 0.0))
}

/// The recall query of a name or a path for one document kind: every word must match.
pub(super) fn recall_query(
    ctx: &SearchContext<'_>,
    kind: DocKind,
    words: &[String],
    phrases: &[String],
    fuzzy: u8,
) -> Option<Box<dyn Query>> {
    let f = ctx.fulltext.fields();
    let fields = kind_fields(f, kind);
    let clauses: Vec<(Occur, Box<dyn Query>)> =
        words.iter().filter_map(|w| word_clause(&fields, w, fuzzy)).map(|q| (Occur::Must, q)).collect();
    with_phrases_and_kind(f, &fields, kind, clauses, phrases)
}

/// The recall query of a question in words for one document kind: each term group a
/// clause (its terms in any field, weighted), at least `required` groups matching; quoted
/// phrases must all be there.
pub(super) fn group_recall(
    ctx: &SearchContext<'_>,
    kind: DocKind,
    groups: &[TermGroup],
    phrases: &[String],
    required: usize,
    fuzzy: u8,
) -> Option<Box<dyn Query>> {
    let f = ctx.fulltext.fields();
    let fields = kind_fields(f, kind);
    let group_clauses: Vec<(Occur, Box<dyn Query>)> = groups
        .iter()
        .map(|g| {
            let any: Vec<(Occur, Box<dyn Query>)> = g
                .terms
                .iter()
                .flat_map(|t| {
                    fields.iter().map(move |&(field, boost)| {
                        (Occur::Should, Box::new(BoostQuery::new(term_query(field, t, fuzzy), boost)) as Box<dyn Query>)
                    })
                })
                .collect();
            (Occur::Should, Box::new(BoostQuery::new(Box::new(BooleanQuery::new(any)), g.weight)) as Box<dyn Query>)
        })
        .collect();
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !group_clauses.is_empty() {
        let required = required.clamp(1, group_clauses.len());
        clauses.push((Occur::Must, Box::new(BooleanQuery::with_minimum_required_clauses(group_clauses, required))));
    }
    with_phrases_and_kind(f, &fields, kind, clauses, phrases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_across_whitespace_and_case() {
        assert!(phrase_holds("fn  Total\n cents()", "total cents"));
        assert!(!phrase_holds("total of cents", "total cents"));
    }

    #[test]
    fn terms_and_phrases() {
        let (words, phrases) = parse_terms("parse \"config file\" loader");
        assert_eq!(words, ["parse", "loader"]);
        assert_eq!(phrases, ["config file"]);
    }
}
