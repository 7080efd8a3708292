//! What a ranking across repositories compares of a result (`engine::across`). Each repository
//! ranks with its own index's statistics, so its scores and ranks say how its results compare
//! with each other, not how its best compares with another repository's: every repository has
//! a first result, whether the question is about it or not. A result's merit can be compared:
//! whether it defines a name the question gives (an identifier, a stack frame's function), its
//! tier (what matched: an exact symbol name, a signature, a path, a body), then how well
//! its own text matches the query, scored as BM25 scores a document: the query's words it
//! holds and how often, each word weighed by its rarity over all the repositories asked.

use std::collections::HashMap;

use tantivy::Term;

use super::SearchContext;
use super::words::{Source, TermGroup};
use crate::index::tokenizer::{code_spans, code_tokens, lower_into};

/// One word of the query: how it is shown, the index terms that spell it, its weight.
#[derive(Clone, Debug)]
pub(crate) struct QueryWord {
    label: String,
    terms: Vec<String>,
    weight: f32,
    /// Whether the question gives it as a name: a whole identifier, a stack frame's function.
    named: bool,
}

/// The words of a query, and the words each index term spells.
#[derive(Clone, Debug, Default)]
pub(crate) struct QueryWords {
    words: Vec<QueryWord>,
    by_term: HashMap<String, Vec<usize>>,
}

impl QueryWords {
    fn new(words: Vec<QueryWord>) -> QueryWords {
        let mut by_term: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, word) in words.iter().enumerate() {
            for term in word.terms.iter().filter(|t| !t.is_empty()) {
                let spelled = by_term.entry(term.clone()).or_default();
                if !spelled.contains(&i) {
                    spelled.push(i);
                }
            }
        }
        QueryWords { words, by_term }
    }
}

/// At most this many words of a question are weighed: each costs a lookup in every
/// repository's index, and a pasted text can hold thousands.
const MAX_WORDS: usize = 256;

/// The words of a question in words: its term groups, the [`MAX_WORDS`] heaviest (names first,
/// then the words in the question's order) when there are more.
pub(crate) fn of_groups(groups: &[TermGroup]) -> QueryWords {
    let mut groups: Vec<&TermGroup> = groups.iter().collect();
    groups.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    groups.truncate(MAX_WORDS);
    QueryWords::new(
        groups
            .into_iter()
            .map(|g| QueryWord {
                label: g.label.clone(),
                terms: g.terms.clone(),
                weight: g.weight,
                named: matches!(g.source, Source::Identifier | Source::Frame),
            })
            .collect(),
    )
}

/// The words of a name or a path: each word's whole identifier and its parts, once each.
pub(crate) fn of_names(words: &[String]) -> QueryWords {
    let mut out: Vec<QueryWord> = Vec::new();
    for token in words.iter().flat_map(|w| code_tokens(w)) {
        if !out.iter().any(|w| w.label == token.text) {
            out.push(QueryWord { label: token.text.clone(), terms: vec![token.text], weight: 1.0, named: false });
        }
    }
    QueryWords::new(out)
}

/// A result's merit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Merit {
    /// Whether it is the definition of a name the question gives.
    pub defines: bool,
    /// What matched: 0 an exact symbol name, 1 a name otherwise or a qualified name, 2 a
    /// signature, 3 a path, 4 a body. Lower is better.
    pub tier: u8,
    /// The query's words it holds (in its lines, its names or its path): each one's label
    /// and how many times it occurs.
    pub holds: Vec<(String, u32)>,
    /// The length of its text in bytes.
    pub length: u32,
}

/// The merit of a result of `tier`, the definition of `name` when it is a symbol, whose texts
/// are `texts`: which of `words` they hold and how often. The texts are read as the index reads
/// code (the `code` tokenizer: identifiers whole and in parts, case aside), once, each token
/// looked up among the query's terms; a word occurs wherever one of its terms is a token.
pub(crate) fn of(tier: u8, words: &QueryWords, name: Option<&str>, texts: &[&str]) -> Merit {
    let defines = name.is_some_and(|name| words.words.iter().any(|w| w.named && w.label.eq_ignore_ascii_case(name)));
    let mut counts = vec![0u32; words.words.len()];
    let (mut spans, mut lower) = (Vec::new(), String::new());
    for text in texts {
        spans.clear();
        code_spans(text, &mut spans);
        for span in &spans {
            lower_into(&text[span.from..span.to], &mut lower);
            for &i in words.by_term.get(lower.as_str()).into_iter().flatten() {
                counts[i] += 1;
            }
        }
    }
    let holds = words.words.iter().zip(counts).filter(|&(_, n)| n > 0).map(|(w, n)| (w.label.clone(), n)).collect();
    let length: usize = texts.iter().map(|t| t.len() + 1).sum();
    Merit { defines, tier, holds, length: u32::try_from(length).unwrap_or(u32::MAX) }
}

/// How common each query word is in one repository's index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WordStats {
    /// Documents of the index.
    pub docs: u64,
    /// Each word: its label, its weight in the query, and the documents holding one of its
    /// terms (summed over the terms).
    pub words: Vec<(String, f32, u64)>,
}

/// The statistics of `words` in this repository's index (the body text, where words are
/// counted for ranking).
pub(crate) fn stats(ctx: &SearchContext<'_>, words: &QueryWords) -> WordStats {
    let body = ctx.fulltext.fields().body;
    let words = words
        .words
        .iter()
        .map(|w| {
            let with: u64 =
                w.terms.iter().map(|t| ctx.searcher.doc_freq(&Term::from_field_text(body, t)).unwrap_or(0)).sum();
            (w.label.clone(), w.weight, with)
        })
        .collect();
    WordStats { docs: ctx.searcher.num_docs(), words }
}

/// Each word's weight over several repositories: its weight in the query times its inverse
/// document frequency over all their documents (BM25's), so a word rare everywhere counts for
/// more than one every repository is full of.
pub fn weights<'a>(stats: impl IntoIterator<Item = &'a WordStats>) -> HashMap<String, f64> {
    let mut docs = 0u64;
    let mut words: HashMap<String, (f32, u64)> = HashMap::new();
    for s in stats {
        docs += s.docs;
        for (label, weight, with) in &s.words {
            let entry = words.entry(label.clone()).or_insert((*weight, 0));
            entry.0 = entry.0.max(*weight);
            entry.1 += with;
        }
    }
    let n = docs as f64;
    words
        .into_iter()
        .map(|(label, (weight, with))| {
            let with = (with as f64).min(n);
            let idf = (1.0 + (n - with + 0.5) / (with + 0.5)).ln();
            (label, f64::from(weight) * idf)
        })
        .collect()
}

/// BM25's saturation of a word's frequency.
const K1: f64 = 1.2;
/// BM25's weight of a text's length against the average.
const B: f64 = 0.75;

/// How well a result's text matches the query, from 0 to 1: its BM25 score with the words'
/// weights (see [`weights`]) and `average` as the texts' average length, over the score of a
/// text of average length holding every word without limit. A text longer than the average
/// scores less for the same words, as in BM25; a shorter one no more than an average one: a
/// line that names one word must not outweigh a function that uses them all.
pub fn relevance(merit: &Merit, weights: &HashMap<String, f64>, average: f64) -> f64 {
    let best: f64 = weights.values().map(|w| w * (K1 + 1.0)).sum();
    if best <= 0.0 {
        return 0.0;
    }
    let norm = K1 * (1.0 - B + B * (f64::from(merit.length) / average.max(1.0)).max(1.0));
    let score: f64 = merit
        .holds
        .iter()
        .filter_map(|(label, n)| {
            let tf = f64::from(*n);
            Some(weights.get(label)? * tf * (K1 + 1.0) / (tf + norm))
        })
        .sum();
    (score / best).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(label: &str, terms: &[&str]) -> QueryWord {
        QueryWord {
            label: label.to_owned(),
            terms: terms.iter().map(|t| (*t).to_owned()).collect(),
            weight: 1.0,
            named: label.contains('_'),
        }
    }

    fn held(merit: &Merit) -> Vec<(&str, u32)> {
        merit.holds.iter().map(|(l, n)| (l.as_str(), *n)).collect()
    }

    #[test]
    fn a_word_is_held_by_any_of_its_terms_in_any_text_and_counted() {
        let words = QueryWords::new(vec![
            word("render", &["render", "renders", "rendered"]),
            word("template", &["template", "templates"]),
            word("context", &["context"]),
        ]);
        let merit = of(4, &words, None, &["src/templating.py", "def _render(ctx, template, Context):"]);
        assert_eq!(held(&merit), [("render", 1), ("template", 1), ("context", 1)]);
        assert_eq!(merit.length, 55);
        assert_eq!(
            held(&of(4, &words, None, &["README.md", "Templates are rendered", "a template"])),
            [("render", 1), ("template", 2)]
        );
        // Whole tokens: an identifier counts whole and by its parts, a word never inside another.
        assert_eq!(
            held(&of(4, &words, None, &["fn render_template()", "prerender contexts"])),
            [("render", 1), ("template", 1)]
        );
        assert!(of(2, &words, None, &[]).holds.is_empty());
        assert!(!merit.defines);
    }

    #[test]
    fn a_long_question_weighs_its_heaviest_words_only() {
        let group = |label: String, weight: f32| TermGroup {
            terms: vec![label.clone()],
            label,
            weight,
            source: if weight > 1.0 { Source::Identifier } else { Source::Word },
        };
        let mut groups: Vec<TermGroup> = (0..1000).map(|i| group(format!("word{i}"), 1.0)).collect();
        groups.push(group("the_name".to_owned(), 2.0));
        let words = of_groups(&groups);
        assert_eq!(words.words.len(), MAX_WORDS);
        assert_eq!(words.words[0].label, "the_name");
        assert!(words.words[0].named);
        assert_eq!(words.words[1].label, "word0");
    }

    #[test]
    fn a_definition_of_a_name_the_question_gives_is_marked() {
        let words = QueryWords::new(vec![word("super_len", &["super_len"]), word("len", &["len"])]);
        assert!(of(4, &words, Some("super_len"), &["def super_len(o):"]).defines);
        // A prose word is no name, and a use of the name no definition.
        assert!(!of(4, &words, Some("len"), &["def len(o):"]).defines);
        assert!(!of(4, &words, None, &["return super_len(o)"]).defines);
    }

    #[test]
    fn names_give_their_whole_identifier_and_its_parts_once() {
        let labels: Vec<String> =
            of_names(&["spawn_blocking".to_owned(), "spawn".to_owned()]).words.into_iter().map(|w| w.label).collect();
        assert!(labels.contains(&"spawn_blocking".to_owned()), "{labels:?}");
        assert!(labels.contains(&"blocking".to_owned()), "{labels:?}");
        assert_eq!(labels.iter().filter(|l| *l == "spawn").count(), 1, "{labels:?}");
    }

    #[test]
    fn rare_words_weigh_more_and_frequent_ones_saturate() {
        let a = WordStats { docs: 1000, words: vec![("spawn".into(), 1.0, 10), ("the".into(), 1.0, 900)] };
        let b = WordStats { docs: 1000, words: vec![("spawn".into(), 1.0, 0), ("the".into(), 1.0, 950)] };
        let w = weights([&a, &b]);
        assert!(w["spawn"] > 5.0 * w["the"], "{w:?}");
        let merit = |holds: &[(&str, u32)], length: u32| Merit {
            defines: false,
            tier: 4,
            holds: holds.iter().map(|(h, n)| ((*h).to_owned(), *n)).collect(),
            length,
        };
        let r = |holds: &[(&str, u32)], length: u32| relevance(&merit(holds, length), &w, 100.0);
        assert_eq!(r(&[], 100), 0.0);
        assert!(r(&[("spawn", 1)], 100) > r(&[("the", 1)], 100));
        assert!(r(&[("spawn", 1), ("the", 1)], 100) > r(&[("spawn", 1)], 100));
        // More occurrences count for more, less and less; a longer text for less.
        let (one, two, three) = (r(&[("spawn", 1)], 100), r(&[("spawn", 2)], 100), r(&[("spawn", 3)], 100));
        assert!(one < two && two < three && three - two < two - one, "{one} {two} {three}");
        assert!(r(&[("spawn", 1)], 400) < one);
        assert_eq!(r(&[("spawn", 1)], 10), one);
        assert!(r(&[("spawn", 1_000), ("the", 1_000)], 1) <= 1.0);
        // Nothing to weigh: no relevance, whatever is held.
        assert_eq!(relevance(&merit(&[("spawn", 1)], 100), &HashMap::new(), 100.0), 0.0);
    }
}
