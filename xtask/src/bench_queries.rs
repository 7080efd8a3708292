//! `cargo xtask bench queries`: the one-time cost of compiling each language's query, and with
//! `--patterns`, which of its patterns cost the most. Tree-sitter analyses every pattern that
//! nests one node in another against the grammar's parse states when the query is compiled;
//! that analysis is most of the time an index that parses a few files spends (a fork's first
//! index, a hook's), so it is worth knowing which patterns pay for it.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};

use crate::measure::secs;

/// Compiles each language's query (or only `lang`'s) and prints the times, slowest first; with
/// `patterns`, each of the `top` slowest patterns of each language too, compiled alone.
pub fn queries(lang: Option<&str>, patterns: bool, top: usize, file: Option<&Path>) -> Result<()> {
    if let Some(file) = file {
        return query_file(lang.ok_or_else(|| anyhow!("--query needs --lang"))?, file, patterns, top);
    }
    let languages: Vec<&codecompass::lang::Language> = match lang {
        Some(name) => vec![language_named(name)?],
        None => codecompass::lang::LANGUAGES.iter().collect(),
    };
    let mut rows = Vec::new();
    for language in &languages {
        let started = Instant::now();
        codecompass::extract::check_query(language).map_err(anyhow::Error::msg)?;
        rows.push((started.elapsed(), language));
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.0));
    for (time, language) in rows {
        println!("{:12} {}", language.name, secs(time));
        if patterns {
            for (time, line, text) in slowest_patterns(language, top)? {
                println!("    {:>10}  line {line:>4}  {text}", secs(time));
            }
        }
    }
    Ok(())
}

/// Compiles the query in `file` against `lang`'s grammar (a query being rewritten, before the
/// build takes it in): the median of 5 compiles, and the slowest patterns with `patterns`.
fn query_file(lang: &str, file: &Path, patterns: bool, top: usize) -> Result<()> {
    let language = language_named(lang)?;
    let source = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let grammar = grammar_of(language)?;
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        tree_sitter::Query::new(&grammar, &source).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        times.push(started.elapsed());
    }
    println!("{:12} {} (median of 5)", file.display(), secs(crate::measure::median(&times)));
    if patterns {
        for (time, line, text) in slowest(&grammar, &source, top)? {
            println!("    {:>10}  line {line:>4}  {text}", secs(time));
        }
    }
    Ok(())
}

/// The language `name` names, as `--lang` reads it everywhere (`ts`, `c++` and other aliases).
fn language_named(name: &str) -> Result<&'static codecompass::lang::Language> {
    codecompass::lang::by_name(name).ok_or_else(|| anyhow!("no language `{name}`"))
}

fn grammar_of(language: &codecompass::lang::Language) -> Result<tree_sitter::Language> {
    codecompass_grammars::language(language.grammar).ok_or_else(|| anyhow!("no grammar `{}`", language.grammar))
}

/// The `top` patterns of `language`'s query that take longest to compile alone: time, line,
/// the pattern's first line.
fn slowest_patterns(language: &codecompass::lang::Language, top: usize) -> Result<Vec<(Duration, usize, String)>> {
    slowest(&grammar_of(language)?, language.query, top)
}

fn slowest(grammar: &tree_sitter::Language, source: &str, top: usize) -> Result<Vec<(Duration, usize, String)>> {
    let whole = tree_sitter::Query::new(grammar, source).map_err(|e| anyhow!("{e}"))?;
    let starts: Vec<usize> = (0..whole.pattern_count()).map(|i| whole.start_byte_for_pattern(i)).collect();
    let mut times = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(source.len());
        let pattern = &source[start..end];
        let started = Instant::now();
        tree_sitter::Query::new(grammar, pattern).map_err(|e| anyhow!("pattern {i}: {e}"))?;
        let line = source[..start].lines().count() + 1;
        let first = pattern.lines().next().unwrap_or_default();
        let first: String = first.chars().take(100).collect();
        times.push((started.elapsed(), line, first));
    }
    times.sort_by_key(|time| std::cmp::Reverse(time.0));
    times.truncate(top);
    Ok(times)
}
