//! Questions in words: the weighted term groups a query of any length is searched by.
//!
//! The clues of the text (`clues/`) become groups of index terms: a prose word with its
//! suffix variants (`totals` meets `total`), an identifier as the whole token the `code`
//! tokenizer indexes (`parse_config` -> `parseconfig`) beside its parts, the functions and
//! files of stack frames, the file names a text mentions. Each group counts once however often
//! its word repeats (the repeat raises its weight a little, capped), and past [`MAX_GROUPS`]
//! only the rarest groups in the index are kept: the answer says how many were dropped.

use std::collections::HashSet;

use super::clues::Clues;
use crate::index::tokenizer::code_tokens;

/// At most this many term groups are searched; the rarest are kept.
pub(crate) const MAX_GROUPS: usize = 64;

/// Where a group came from (for weights and `--explain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A prose word.
    Word,
    /// A part of an identifier.
    Part,
    /// A whole identifier.
    Identifier,
    /// A function named by a stack frame.
    Frame,
    /// A file named in the text.
    File,
}

/// Index terms that count as one query term, with its weight.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TermGroup {
    /// The word as the query spelled it (lower-cased), for display.
    pub label: String,
    /// The index terms (`code` tokenizer output): the word and its variants.
    pub terms: Vec<String>,
    /// Relative weight.
    pub weight: f32,
    /// Where it came from.
    pub source: Source,
}

/// Simple English variants, both ways, so `totals` meets `total`, `setting` meets
/// `settings` and `pruned` meets `prune` (the index does not stem; queries do).
pub(crate) fn variants(word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let mut out = vec![w.clone()];
    if w.len() < 3 || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return out;
    }
    let mut push = |v: String| {
        if v.len() >= 3 && !out.contains(&v) {
            out.push(v);
        }
    };
    // To the stem.
    let mut stems = vec![w.clone()];
    if let Some(stem) = w.strip_suffix("ies") {
        stems.push(format!("{stem}y"));
    }
    if let Some(stem) = w.strip_suffix("es") {
        stems.push(stem.to_owned());
    }
    if let Some(stem) = w.strip_suffix('s')
        && !w.ends_with("ss")
    {
        stems.push(stem.to_owned());
    }
    for suffix in ["ed", "ing"] {
        if let Some(stem) = w.strip_suffix(suffix) {
            stems.push(stem.to_owned());
            stems.push(format!("{stem}e"));
        }
    }
    // From the stem (only from the word itself when it looks like one).
    let plain = stems.len() == 1;
    for stem in &stems {
        push(stem.clone());
    }
    if let Some(base) = w.strip_suffix('y') {
        push(format!("{base}ies"));
    } else if w.ends_with(['x']) || w.ends_with("ch") || w.ends_with("sh") || w.ends_with("ss") {
        push(format!("{w}es"));
    } else if !w.ends_with('s') {
        push(format!("{w}s"));
    }
    if plain {
        let base = w.strip_suffix('e').unwrap_or(&w);
        push(format!("{base}ed"));
        push(format!("{base}ing"));
    }
    out
}

/// Words too common in code and prose to say anything as identifier parts.
const WEAK_PARTS: &[&str] = &["self", "this", "get", "set", "is", "to", "of", "the", "new", "and", "or", "in", "on"];

/// The term groups of `clues`, strongest sources first, each label once.
pub(crate) fn groups(clues: &Clues) -> Vec<TermGroup> {
    let mut out: Vec<TermGroup> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut add = |out: &mut Vec<TermGroup>, label: String, terms: Vec<String>, weight: f32, source: Source| {
        if label.len() < 2 || label.chars().all(|c| c.is_ascii_digit()) {
            return;
        }
        if seen.insert(label.clone()) {
            out.push(TermGroup { label, terms, weight, source });
        } else if let Some(g) = out.iter_mut().find(|g| g.label == label) {
            g.weight = g.weight.max(weight);
        }
    };
    let mut identifier = |out: &mut Vec<TermGroup>, name: &str, weight: f32, source: Source| {
        let tokens = code_tokens(name);
        // The last segment of a qualified name is what is defined; its whole token is the
        // sharpest term. Qualifiers count as parts.
        for t in &tokens {
            if t.position_length > 1 {
                add(out, t.text.clone(), vec![t.text.clone()], weight, source);
            }
        }
        for t in tokens.iter().filter(|t| t.position_length == 1) {
            if !WEAK_PARTS.contains(&t.text.as_str()) {
                let terms =
                    if t.text.chars().all(char::is_alphabetic) { variants(&t.text) } else { vec![t.text.clone()] };
                add(out, t.text.clone(), terms, 1.0, Source::Part);
            }
        }
    };
    for frame in &clues.frames {
        if let Some(function) = &frame.function {
            identifier(&mut out, function, 2.5, Source::Frame);
        }
    }
    for name in &clues.identifiers {
        identifier(&mut out, name, 2.0, Source::Identifier);
    }
    for option in &clues.options {
        identifier(&mut out, option.trim_start_matches('-'), 1.5, Source::Identifier);
    }
    for path in clues.paths.iter().map(|p| p.path.as_str()).chain(clues.frames.iter().filter_map(|f| f.path.as_deref()))
    {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let stem = file.split('.').next().unwrap_or(file);
        for t in code_tokens(stem) {
            add(&mut out, t.text.clone(), vec![t.text], 1.5, Source::File);
        }
    }
    for (word, count) in &clues.words {
        for t in code_tokens(word) {
            if t.position_length > 1 {
                continue;
            }
            let terms = if t.text.chars().all(char::is_alphabetic) { variants(&t.text) } else { vec![t.text.clone()] };
            let weight = 1.0 + 0.25 * (count.min(&3).saturating_sub(1)) as f32;
            add(&mut out, t.text, terms, weight, Source::Word);
        }
    }
    out
}

/// Keeps at most `max` groups, the rarest by `doc_freq` (documents holding any of a group's
/// terms), in their original order; returns the labels dropped.
pub(crate) fn keep_rarest(groups: &mut Vec<TermGroup>, max: usize, doc_freq: impl Fn(&str) -> u64) -> Vec<String> {
    if groups.len() <= max {
        return Vec::new();
    }
    let mut by_rarity: Vec<(u64, usize)> =
        groups.iter().enumerate().map(|(i, g)| (g.terms.iter().map(|t| doc_freq(t)).sum::<u64>(), i)).collect();
    // Terms the index holds first (one that occurs nowhere cannot help), then strong sources,
    // then rarity, then query order.
    by_rarity
        .sort_by_key(|&(df, i)| (df == 0, groups[i].source == Source::Word || groups[i].source == Source::Part, df, i));
    let keep: HashSet<usize> = by_rarity.iter().take(max).map(|&(_, i)| i).collect();
    let mut dropped = Vec::new();
    let mut index = 0;
    groups.retain(|g| {
        let kept = keep.contains(&index);
        index += 1;
        if !kept {
            dropped.push(g.label.clone());
        }
        kept
    });
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        groups(&super::super::clues::extract(text)).into_iter().map(|g| g.label).collect()
    }

    #[test]
    fn identifiers_give_whole_tokens_and_parts() {
        let l = labels("Calling parse_config twice loses the cache");
        assert!(l.contains(&"parse_config".to_owned()), "{l:?}");
        assert!(l.contains(&"parse".to_owned()) && l.contains(&"config".to_owned()), "{l:?}");
        assert!(l.contains(&"cache".to_owned()), "{l:?}");
    }

    #[test]
    fn variants_meet_their_stems() {
        assert!(variants("totals").contains(&"total".to_owned()));
        assert!(variants("entries").contains(&"entry".to_owned()));
        assert!(variants("setting").contains(&"settings".to_owned()));
        assert!(variants("prune").contains(&"pruned".to_owned()));
        assert!(variants("pruned").contains(&"prune".to_owned()));
        assert!(variants("class").contains(&"classes".to_owned()));
        assert_eq!(variants("id"), ["id"]);
    }

    #[test]
    fn rarest_groups_are_kept_in_order() {
        let mut g: Vec<TermGroup> = ["alpha", "beta", "gamma", "delta"]
            .iter()
            .map(|w| TermGroup {
                label: (*w).to_owned(),
                terms: vec![(*w).to_owned()],
                weight: 1.0,
                source: Source::Word,
            })
            .collect();
        let df = |t: &str| match t {
            "alpha" => 100,
            "beta" => 1,
            "gamma" => 50,
            _ => 0,
        };
        let dropped = keep_rarest(&mut g, 2, df);
        // `delta` occurs nowhere: the rarest terms that occur are kept.
        assert_eq!(g.iter().map(|g| g.label.as_str()).collect::<Vec<_>>(), ["beta", "gamma"]);
        assert_eq!(dropped, ["alpha", "delta"]);
    }
}
