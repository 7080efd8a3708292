//! The arguments of `search` and `context`, and the search request they make.

use clap::{Args, ValueEnum};

use super::Command;
use super::grep::{apply_grep_args, resolve_pathspecs};
use crate::engine::Error;
use crate::query::{Detail, Explain, Filters, Mode, SearchRequest};

#[derive(Debug, Args)]
pub(super) struct SearchArgs {
    /// Look at this commit-ish instead of the working tree (with `--repo`, `ALIAS=REF` puts
    /// one repository at a ref; repeatable).
    #[arg(long = "ref", value_name = "REF")]
    pub(super) reference: Vec<String>,
    /// How to read the query (auto routes by what it looks like).
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    pub(super) mode: ModeArg,
    /// Only these languages (repeatable).
    #[arg(long = "lang", value_name = "L")]
    pub(super) langs: Vec<String>,
    /// Not these languages (repeatable).
    #[arg(long = "exclude-lang", value_name = "L")]
    pub(super) exclude_langs: Vec<String>,
    /// Only paths matching this glob (repeatable; `**` crosses directories).
    #[arg(long = "path", value_name = "GLOB")]
    pub(super) paths: Vec<String>,
    /// Not paths matching this glob (repeatable).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub(super) excludes: Vec<String>,
    /// Only files with this extension (repeatable).
    #[arg(long = "ext", value_name = "EXT")]
    pub(super) exts: Vec<String>,
    /// At most N results (line matches for regex and literal search); default 20 ranked, 100 lines.
    #[arg(long, value_name = "N")]
    pub(super) limit: Option<usize>,
    /// Tolerate this many edits per word (0-2; not with regex).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(super) fuzzy: u8,
    /// Match case exactly.
    #[arg(long)]
    pub(super) case_sensitive: bool,
    /// Ignore case (regex and literal search).
    #[arg(long, short = 'i')]
    pub(super) ignore_case: bool,
    /// Give up verifying after this many seconds and say the answer is partial.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub(super) timeout: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ModeArg {
    Auto,
    Fts,
    Regex,
    Symbol,
    Path,
    Literal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum DetailArg {
    Location,
    Signature,
    Context,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ExplainArg {
    Off,
    Basic,
    Full,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum StrategyArg {
    Breadth,
    Depth,
}

impl SearchArgs {
    pub(super) fn request(&self, query: &str) -> SearchRequest {
        let mode = match self.mode {
            ModeArg::Auto => Mode::Auto,
            ModeArg::Fts => Mode::Fts,
            ModeArg::Regex => Mode::Regex,
            ModeArg::Symbol => Mode::Symbol,
            ModeArg::Path => Mode::Path,
            ModeArg::Literal => Mode::Literal,
        };
        let exact = matches!(mode, Mode::Regex | Mode::Literal);
        SearchRequest {
            query: query.to_owned(),
            mode,
            limit: self.limit.unwrap_or(if exact { 100 } else { 20 }),
            context: 0,
            detail: Detail::Signature,
            compact: false,
            fuzzy: self.fuzzy,
            case_sensitive: self.case_sensitive,
            ignore_case: self.ignore_case,
            explain: Explain::Off,
            max_tokens: None,
            filters: Filters {
                langs: self.langs.clone(),
                exclude_langs: self.exclude_langs.clone(),
                paths: self.paths.clone(),
                excludes: self.excludes.clone(),
                exts: self.exts.clone(),
                pathspecs: Vec::new(),
            },
            timeout: std::time::Duration::from_secs(self.timeout),
            files: false,
            grep: Default::default(),
            comparable: false,
        }
    }
}

/// The request of a `search` command; its pathspecs are read from `prefix` (the current
/// directory within the repository; empty for `--repo`, whose pathspecs are from each root).
pub(super) fn search_request(command: &Command, prefix: &str) -> Result<SearchRequest, Error> {
    let Command::Search { args, patterns, search, grep, detail, compact, explain, max_tokens, files, .. } = command
    else {
        unreachable!("search_request is called for `search` only");
    };
    let (query, pathspecs) = match patterns.split_first() {
        Some((first, _)) => (first.clone(), args.clone()),
        None => (args[0].clone(), args[1..].to_vec()),
    };
    let mut request = search.request(&query);
    request.files = *files;
    if *files && search.limit.is_none() {
        request.limit = 10;
    }
    apply_grep_args(&mut request, grep, patterns, search)?;
    request.filters.pathspecs = resolve_pathspecs(&pathspecs, prefix)?;
    request.detail = match detail {
        DetailArg::Location => Detail::Location,
        DetailArg::Signature => Detail::Signature,
        DetailArg::Context => Detail::Context,
    };
    request.compact = *compact;
    request.explain = match explain {
        ExplainArg::Off => Explain::Off,
        ExplainArg::Basic => Explain::Basic,
        ExplainArg::Full => Explain::Full,
    };
    request.max_tokens = *max_tokens;
    Ok(request)
}
