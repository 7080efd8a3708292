//! Messages copied from a log or a report, found where they are produced: lines that hold the
//! message as written (case-insensitively), and lines whose string literal is a template that
//! produces it (`f"fixture '{name}' not found"` for `fixture 'tmp_path' not found`).
//!
//! Templates are looked for only in the snippets that share the most words with the message
//! (recalled from the full-text index of the view), so a message never scans the view.

use std::sync::Arc;
use std::time::Instant;

use roaring::RoaringBitmap;
use tantivy::Term;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;

use super::grep::Matcher;
use super::{Details, QueryError, SearchContext};
use crate::index::tokenizer::code_tokens;
use crate::index::{DocKind, TopInView};

/// Messages looked for, at most.
const MAX_MESSAGES: usize = 6;
/// Literal matches kept per message.
const LITERAL_LIMIT: usize = 100;
/// Snippets whose lines are tried as templates, per message.
const TEMPLATE_CANDIDATES: usize = 150;

/// A line that holds or produces a message.
#[derive(Clone, Debug)]
pub(crate) struct MessageHit {
    /// File version.
    pub fv: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column of the match (1 for templates).
    pub column: u32,
    /// The line.
    pub text: String,
    /// Byte ranges of the match in `text`.
    pub ranges: Vec<(usize, usize)>,
    /// Share of the message the line covers (1.0 for the text itself).
    pub coverage: f32,
}

/// Lines of the view that hold or produce one of `messages`.
pub(crate) fn find(
    ctx: &SearchContext<'_>,
    messages: &[String],
    allowed: &Arc<RoaringBitmap>,
    deadline: Instant,
) -> Result<Vec<MessageHit>, QueryError> {
    let mut out: Vec<MessageHit> = Vec::new();
    for message in messages.iter().filter(|m| m.split_whitespace().count() >= 2).take(MAX_MESSAGES) {
        let mut found = literal(ctx, message, allowed, deadline)?;
        found.extend(templates(ctx, message, allowed)?);
        for hit in found {
            if !out.iter().any(|h| h.fv == hit.fv && h.line == hit.line) {
                out.push(hit);
            }
        }
    }
    Ok(out)
}

/// Lines holding `message` as written, ignoring case.
pub(crate) fn literal(
    ctx: &SearchContext<'_>,
    message: &str,
    allowed: &Arc<RoaringBitmap>,
    deadline: Instant,
) -> Result<Vec<MessageHit>, QueryError> {
    let Ok(matcher) = Matcher::new(message, true, true) else { return Ok(Vec::new()) };
    let outcome = super::exact::search(
        ctx,
        &matcher,
        allowed,
        &super::exact::ExactOptions { limit: LITERAL_LIMIT, max_count: None, unmatched: false },
        deadline,
        None,
    )?;
    Ok(outcome
        .files
        .into_iter()
        .flat_map(|(info, lines)| {
            lines.into_iter().map(move |m| MessageHit {
                fv: info.id,
                line: m.line,
                column: m.column,
                text: m.text,
                ranges: m.ranges,
                coverage: 1.0,
            })
        })
        .collect())
}

/// Lines whose string literals are templates that produce `message`.
pub(crate) fn templates(
    ctx: &SearchContext<'_>,
    message: &str,
    allowed: &Arc<RoaringBitmap>,
) -> Result<Vec<MessageHit>, QueryError> {
    let f = ctx.fulltext.fields();
    let words: Vec<String> = {
        let mut w: Vec<String> = code_tokens(message)
            .into_iter()
            .filter(|t| t.position_length == 1 && t.text.len() >= 2)
            .map(|t| t.text)
            .collect();
        w.sort();
        w.dedup();
        w
    };
    if words.len() < 2 {
        return Ok(Vec::new());
    }
    let any: Vec<(Occur, Box<dyn Query>)> = words
        .iter()
        .map(|w| {
            (
                Occur::Should,
                Box::new(TermQuery::new(Term::from_field_text(f.body, w), IndexRecordOption::WithFreqs))
                    as Box<dyn Query>,
            )
        })
        .collect();
    // At least half the message's words: a template holds its fixed words.
    let required = words.len().div_ceil(2).min(words.len());
    let query = BooleanQuery::new(vec![
        (Occur::Must, Box::new(BooleanQuery::with_minimum_required_clauses(any, required)) as Box<dyn Query>),
        (Occur::Must, super::recall::kind_filter(f, DocKind::Snippet)),
    ]);
    let hits = ctx.search(
        &query,
        &TopInView { bitmap: allowed.clone(), limit: TEMPLATE_CANDIDATES, columns: ctx.columns.clone() },
    )?;
    let mut details = Details::new(ctx.store, ctx.max_file_size);
    let mut contents = super::contents::Contents::default();
    let mut out = Vec::new();
    for hit in hits {
        let Some(info) = details.info(hit.fv)?.cloned() else { continue };
        let Some(content) = contents.get(ctx, &info) else { continue };
        let from = hit.line_start.saturating_sub(1) as usize;
        let count = (hit.line_end as usize + 1).saturating_sub(hit.line_start as usize);
        for (offset, raw) in content.lines(from, count).enumerate() {
            if !raw.iter().any(|&b| matches!(b, b'"' | b'\'' | b'`')) || raw.len() > 2000 {
                continue;
            }
            let line = String::from_utf8_lossy(raw.strip_suffix(b"\r").unwrap_or(raw));
            let best = super::clues::templates_in_line(&line)
                .iter()
                .filter_map(|t| t.matches(message))
                .fold(None, |best: Option<f32>, s| Some(best.map_or(s, |b| b.max(s))));
            if let Some(coverage) = best {
                let column = line.find(['"', '\'', '`']).unwrap_or(0);
                out.push(MessageHit {
                    fv: hit.fv,
                    line: (from + offset) as u32 + 1,
                    column: column as u32 + 1,
                    text: line.chars().take(500).collect(),
                    ranges: Vec::new(),
                    coverage,
                });
            }
        }
    }
    Ok(out)
}
