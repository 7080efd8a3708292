//! What an answer costs and what it says back: token estimates, the cut to a token budget,
//! and a better query when the answer looks weak.

use super::{Classified, Intent, SearchOutput, SearchResult, Suggestion};

/// Tokens of a text by the budget's estimate: `ceil(words * 1.3)`.
pub fn estimate_tokens(text: &str) -> usize {
    (text.split_whitespace().count() as f64 * 1.3).ceil() as usize
}

/// The text a result contributes to a budget.
fn result_text(r: &SearchResult) -> String {
    let mut text = format!("{}:{}-{} {} {}", r.path, r.line_start, r.line_end, r.kind, r.name.as_deref().unwrap_or(""));
    for part in [&r.qualified_name, &r.signature, &r.preview].into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    for l in &r.lines {
        text.push(' ');
        text.push_str(&l.text);
        for c in l.before.iter().chain(&l.after) {
            text.push(' ');
            text.push_str(c);
        }
    }
    text
}

/// Keeps whole results, in order, while their estimated tokens fit the budget; never over.
pub(crate) fn fit_budget(output: &mut SearchOutput, budget: usize) {
    let mut used = 0usize;
    let mut kept = Vec::new();
    let before = output.results.len();
    for mut r in output.results.drain(..) {
        let cost = estimate_tokens(&result_text(&r));
        if used + cost > budget {
            continue;
        }
        used += cost;
        r.estimated_tokens = Some(cost);
        kept.push(r);
    }
    if kept.len() < before {
        output.truncated = true;
    }
    output.results = kept;
    output.estimated_tokens = Some(used);
}

/// A better query when the answer looks weak.
pub(crate) fn suggest(query: &str, classified: Classified, output: &SearchOutput) -> Option<Suggestion> {
    let quoted = |q: &str| {
        if q.contains(' ') || q.contains('\'') { format!("\"{}\"", q.replace('"', "\\\"")) } else { q.to_owned() }
    };
    let weak = !output.found() || classified.confidence < 0.6;
    if !weak {
        return None;
    }
    // A name is short: a long text gets no command that repeats it.
    if query.chars().count() > 200 {
        return None;
    }
    if classified.intent == Intent::Symbol || (!query.contains(' ') && output.mode != "regex") {
        return Some(Suggestion {
            mode: "symbol",
            reason: if !output.found() {
                "nothing matched; a definition lookup tolerates case and qualified names".into()
            } else {
                "the query looks like a name; locate answers with definitions only".into()
            },
            command: format!("git codecompass locate {}", quoted(query)),
        });
    }
    if !output.found() && output.mode != "literal" && output.mode != "regex" {
        return Some(Suggestion {
            mode: "literal",
            reason: "no document has every word; an exact search finds the text as written".into(),
            command: format!("git codecompass search --mode regex {}", quoted(&regex::escape(query))),
        });
    }
    if !output.found() {
        return Some(Suggestion {
            mode: "fts",
            reason: "no line matches exactly; a word search tolerates order and case".into(),
            command: format!("git codecompass search --mode fts {}", quoted(query)),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::LineHit;

    #[test]
    fn budget_is_never_exceeded() {
        let result = |words: usize| SearchResult {
            path: "a".into(),
            kind: "line".into(),
            lines: vec![LineHit {
                line: 1,
                column: 1,
                text: vec!["w"; words].join(" "),
                ranges: vec![],
                before: vec![],
                after: vec![],
            }],
            ..SearchResult::default()
        };
        for budget in [0, 5, 13, 50, 200] {
            let mut output = SearchOutput::empty("regex");
            output.results = vec![result(10), result(3), result(40), result(1)];
            output.total_candidates = 4;
            fit_budget(&mut output, budget);
            let used: usize = output.results.iter().map(|r| r.estimated_tokens.unwrap()).sum();
            assert!(used <= budget);
            assert_eq!(output.estimated_tokens, Some(used));
        }
        assert_eq!(estimate_tokens("one two three"), 4);
        assert_eq!(estimate_tokens(""), 0);
    }
}
