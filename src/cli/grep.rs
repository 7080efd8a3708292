//! `search`'s `git grep` flags: how they read into a request, and pathspecs and paths seen
//! from the directory the command runs in.

use clap::{Args, ValueEnum};

use super::search_args::{ModeArg, SearchArgs};
use crate::engine::Error;
use crate::query::{Mode, SearchRequest};

/// The `git grep` flags of `search`; any of them but the pathspecs makes the search exact.
#[derive(Debug, Args)]
pub(super) struct GrepArgs {
    /// Lines of context around each match.
    #[arg(short = 'C', long, value_name = "N")]
    pub(super) context: Option<usize>,
    /// Lines of context after each match.
    #[arg(short = 'A', long = "after-context", value_name = "N")]
    pub(super) after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long = "before-context", value_name = "N")]
    pub(super) before_context: Option<usize>,
    /// Match whole words only.
    #[arg(short = 'w', long = "word-regexp")]
    pub(super) word: bool,
    /// Patterns are fixed strings (literal mode).
    #[arg(short = 'F', long = "fixed-strings", conflicts_with = "extended")]
    pub(super) fixed: bool,
    /// Patterns are regexes (regex mode; the default of exact search).
    #[arg(short = 'E', long = "extended-regexp")]
    pub(super) extended: bool,
    /// Print only the names of files with matches (also `--name-only`).
    #[arg(short = 'l', long = "files-with-matches", visible_alias = "name-only")]
    pub(super) files_with_matches: bool,
    /// Print only the names of files without a match.
    #[arg(short = 'L', long = "files-without-match", conflicts_with = "files_with_matches")]
    pub(super) files_without_match: bool,
    /// Print each file's number of matching lines.
    #[arg(short = 'c', long, conflicts_with_all = ["files_with_matches", "files_without_match"])]
    pub(super) count: bool,
    /// Do not print file names.
    #[arg(short = 'h', conflicts_with = "with_filename")]
    pub(super) no_filename: bool,
    /// Print file names (the default).
    #[arg(short = 'H')]
    pub(super) with_filename: bool,
    /// At most N matching lines per file.
    #[arg(short = 'm', long = "max-count", value_name = "N")]
    pub(super) max_count: Option<usize>,
    /// Ignore case when the pattern is all lower case, as `rg -S` does.
    #[arg(short = 'S', long = "smart-case")]
    pub(super) smart_case: bool,
    /// Print paths from the repository root, not from the current directory.
    #[arg(long)]
    pub(super) full_name: bool,
    /// Line matches under a heading per file (the default for a person reading).
    #[arg(long, overrides_with = "no_heading")]
    pub(super) heading: bool,
    /// One `path:line:col: text` line per match (the default when piped).
    #[arg(long)]
    pub(super) no_heading: bool,
}

impl GrepArgs {
    /// Whether a flag that only exact search has was given.
    pub(super) fn exact_only(&self) -> bool {
        self.after_context.is_some()
            || self.before_context.is_some()
            || self.word
            || self.fixed
            || self.extended
            || self.files_without_match
            || self.count
            || self.max_count.is_some()
    }
}

/// Reads `git grep`'s flags into `request`: any of them (or `-e`) makes an automatic search
/// exact, literal with `-F`, a regex otherwise.
pub(super) fn apply_grep_args(
    request: &mut SearchRequest,
    grep: &GrepArgs,
    patterns: &[String],
    search: &SearchArgs,
) -> Result<(), Error> {
    let invalid = |message: String| Error::new(crate::error::ErrorCode::InvalidArgument, message);
    if grep.exact_only() || !patterns.is_empty() {
        request.mode = match (search.mode, grep.fixed) {
            (ModeArg::Auto | ModeArg::Literal, true) => Mode::Literal,
            (ModeArg::Auto | ModeArg::Regex, false) => Mode::Regex,
            (ModeArg::Literal, false) if !grep.extended => Mode::Literal,
            (mode, _) => {
                return Err(invalid(format!(
                    "-w, -F, -E, -e, -A, -B, -L, -c and --max-count are for exact search, not --mode {}",
                    mode.to_possible_value().map(|v| v.get_name().to_owned()).unwrap_or_default()
                ))
                .with_remedy("drop --mode, or use --mode regex or --mode literal"));
            }
        };
    }
    if grep.max_count == Some(0) {
        return Err(invalid("--max-count must be at least 1".to_owned()));
    }
    request.context = grep.context.unwrap_or(0);
    request.grep = crate::query::GrepOptions {
        patterns: patterns.iter().skip(1).cloned().collect(),
        word: grep.word,
        max_count: grep.max_count,
        before: grep.before_context,
        after: grep.after_context,
        files_without_match: grep.files_without_match,
        smart_case: grep.smart_case,
        all_lines: search.limit.is_none(),
    };
    Ok(())
}

/// Resolves pathspecs given in the directory `prefix` (relative to the root); from a
/// subdirectory, a search without an including pathspec covers that directory, as `git grep`.
pub(super) fn resolve_pathspecs(pathspecs: &[String], prefix: &str) -> Result<Vec<String>, Error> {
    let mut resolved = pathspecs
        .iter()
        .map(|p| crate::query::pathspec::resolve(p, prefix))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::new(crate::error::ErrorCode::InvalidArgument, e))?;
    if !prefix.is_empty() && !resolved.iter().any(|p| crate::query::pathspec::is_include(p)) {
        resolved.push(crate::query::pathspec::resolve("", prefix).expect("the current directory resolves"));
    }
    Ok(resolved)
}

/// `path` (from the root) as seen from the directory `prefix`: `../` for each level up.
pub(super) fn from_directory(path: &str, prefix: &str) -> String {
    let here: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    let there: Vec<&str> = path.split('/').collect();
    let common = here.iter().zip(&there).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; here.len() - common];
    parts.extend(&there[common..]);
    parts.join("/")
}
