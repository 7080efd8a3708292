//! A ranked unit made into the result the answer shows: its symbol's names, its matching lines,
//! its preview, its merit for a ranking across repositories and why it ranks where it does.

use std::collections::HashMap;

use super::super::contents::Contents;
use super::super::{Detail, Explain, LineHit, SearchContext, SearchRequest, SearchResult};
use super::{Unit, tier_name};
use crate::extract::Role;
use crate::index::DocKind;

/// What shaping results needs besides the result itself.
pub(super) struct Shaping<'s, 'c> {
    pub(super) ctx: &'s SearchContext<'c>,
    pub(super) request: &'s SearchRequest,
    pub(super) word_tokens: &'s [String],
    pub(super) merit_words: &'s super::super::merit::QueryWords,
    pub(super) classes: &'s HashMap<u32, (i8, String)>,
    pub(super) contents: Contents,
}

pub(super) fn shape(
    shaping: &mut Shaping<'_, '_>,
    unit: &Unit,
    info: &crate::store::FileInfo,
    symbols: &[crate::store::SymbolRow],
) -> SearchResult {
    let (ctx, request, word_tokens, classes) = (shaping.ctx, shaping.request, shaping.word_tokens, shaping.classes);
    let contents = &mut shaping.contents;
    let mut result = SearchResult {
        path: info.path_str(),
        line_start: unit.line_start,
        line_end: unit.line_end,
        kind: match unit.kind {
            DocKind::File => "file".to_owned(),
            DocKind::Snippet => "snippet".to_owned(),
            DocKind::Symbol => String::new(),
        },
        language: (!info.lang.is_empty() && !request.compact).then(|| info.lang.clone()),
        ..SearchResult::default()
    };
    let symbol = unit.symbol.as_ref();
    if let Some(s) = symbol {
        result.kind = s.kind.clone();
        result.name = Some(s.name.clone());
        result.role = Some(if s.role == Role::Definition { "definition" } else { "declaration" });
        if request.detail >= Detail::Signature && !request.compact {
            result.qualified_name = Some(s.qualified_name.clone());
            result.signature = Some(s.signature.clone());
            result.visibility = s.visibility.clone();
        }
        if request.detail >= Detail::Context && !request.compact {
            result.parent =
                s.parent.and_then(|p| symbols.iter().find(|x| x.ord == p)).map(|p| p.qualified_name.clone());
            result.related = symbols
                .iter()
                .filter(|x| x.ord != s.ord && (x.parent == s.parent || x.parent == Some(s.ord)))
                .take(8)
                .map(|x| x.qualified_name.clone())
                .collect();
        }
    } else if unit.kind == DocKind::File {
        result.name = Some(result.path.rsplit('/').next().unwrap_or(&result.path).to_owned());
    }
    // The unit's lines: for display and highlighting, and for its merit.
    let shown = !request.compact && (!word_tokens.is_empty() || request.detail >= Detail::Context);
    let from = unit.line_start.saturating_sub(1) as usize;
    let mut lines: Option<Vec<String>> = None;
    if unit.kind != DocKind::File
        && (shown || request.comparable)
        && let Some(content) = contents.get(ctx, info)
    {
        // Only the unit's lines are decoded.
        let wanted = (unit.line_end as usize).saturating_sub(from).max(1);
        lines = Some(
            content
                .lines(from, wanted)
                .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
                .collect(),
        );
    }
    if request.comparable {
        let mut texts: Vec<&str> = vec![&result.path];
        if let Some(s) = symbol {
            texts.extend([s.name.as_str(), &s.qualified_name, &s.signature]);
        }
        texts.extend(lines.iter().flatten().map(String::as_str));
        let name = symbol.filter(|s| s.role == Role::Definition).map(|s| s.name.as_str());
        result.merit = Some(super::super::merit::of(unit.tier, shaping.merit_words, name, &texts));
    }
    if !request.compact {
        result.score = Some((unit.rrf * 1e4).round() / 1e4);
        // Matching lines inside the unit, for display and highlighting.
        if shown && let Some(lines) = &lines {
            for (offset, line) in lines.iter().enumerate() {
                if result.lines.len() == 5 || word_tokens.is_empty() {
                    break;
                }
                let lower = line.to_lowercase();
                let ranges: Vec<(usize, usize)> = word_tokens
                    .iter()
                    .filter_map(|t| lower.find(t.as_str()).map(|a| (a, a + t.len())))
                    .filter(|&(a, b)| line.is_char_boundary(a) && line.is_char_boundary(b))
                    .collect();
                if let Some(&(first, _)) = ranges.iter().min() {
                    result.lines.push(LineHit {
                        line: (from + offset) as u32 + 1,
                        column: first as u32 + 1,
                        text: line.chars().take(500).collect(),
                        ranges,
                        before: Vec::new(),
                        after: Vec::new(),
                    });
                }
            }
            if request.detail >= Detail::Context {
                result.preview = Some(lines.iter().take(15).cloned().collect::<Vec<_>>().join("\n"));
            }
        }
    }
    if request.explain != Explain::Off {
        let (class, _) = classes.get(&unit.fv).cloned().unwrap_or((0, String::new()));
        result.ranking_reasons.push(format!("tier {}: {}", unit.tier, tier_name(unit.tier)));
        result.ranking_reasons.push(if unit.declaration { "declaration".into() } else { "definition or text".into() });
        result.ranking_reasons.push(match class {
            -1 => "path up (source directory)".into(),
            1 => "path down (tests, vendored, docs or examples)".into(),
            _ => "path neutral".into(),
        });
        result.ranking_reasons.push(format!("fused score {:.4}", unit.rrf));
        if request.explain == Explain::Full {
            result.ranking_reasons.extend(unit.reasons.iter().cloned());
        }
    }
    result
}
