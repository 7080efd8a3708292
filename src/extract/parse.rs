//! This thread's parsers, one per grammar, and the parses made with them: a whole file, or
//! only some byte ranges of it (a macro's body, the top-level items X-Ray needs).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::Instant;

use tree_sitter::{Parser, Tree};

use super::PARSE_TIMEOUT;
use crate::lang::Language;

thread_local! {
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// Parses a whole file with this thread's parser for its grammar, within the time extraction
/// allows a file; the error says why there is no tree (the parser stopped or gave up).
pub fn parse_whole(language: &'static Language, source: &[u8]) -> Result<Tree, String> {
    parse_with(language, source, &[], None)
}

/// Parses a whole file reusing `old`, the tree of an earlier version of it already told of
/// every edit that makes that version this one (`Tree::edit`): tree-sitter then re-reads only
/// around the edits. Errors as [`parse_whole`].
pub fn parse_after(language: &'static Language, source: &[u8], old: &Tree) -> Result<Tree, String> {
    parse_with(language, source, &[], Some(old))
}

/// Parses only `ranges` of `source` (in order, not overlapping), as if the rest were not
/// there; nodes keep their places in the whole of `source`. An empty `ranges` is the whole
/// file. Errors as [`parse_whole`].
pub(crate) fn parse_in(
    language: &'static Language,
    source: &[u8],
    ranges: &[tree_sitter::Range],
) -> Result<Tree, String> {
    parse_with(language, source, ranges, None)
}

fn parse_with(
    language: &'static Language,
    source: &[u8],
    ranges: &[tree_sitter::Range],
    old: Option<&Tree>,
) -> Result<Tree, String> {
    PARSERS.with_borrow_mut(|parsers| {
        let parser = match parsers.entry(language.grammar) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let grammar = codecompass_grammars::language(language.grammar)
                    .ok_or_else(|| format!("no grammar for {}", language.name))?;
                let mut parser = Parser::new();
                parser.set_language(&grammar).map_err(|e| e.to_string())?;
                e.insert(parser)
            }
        };
        parser.set_included_ranges(ranges).map_err(|e| format!("bad ranges to parse: {e:?}"))?;
        let started = Instant::now();
        let mut timed_out = false;
        let mut progress = |_: &tree_sitter::ParseState| {
            if started.elapsed() > PARSE_TIMEOUT {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
        let len = source.len();
        let tree = parser.parse_with_options(
            &mut |offset, _| {
                if offset < len { &source[offset..] } else { &[][..] }
            },
            old,
            Some(options),
        );
        if !ranges.is_empty() {
            // Back to whole files for the next parse.
            let _ = parser.set_included_ranges(&[]);
        }
        tree.ok_or_else(|| {
            parser.reset();
            if timed_out {
                format!("parsing took over {}s and was stopped", PARSE_TIMEOUT.as_secs())
            } else {
                "the parser gave up".to_owned()
            }
        })
    })
}
