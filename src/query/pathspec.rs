//! Git pathspecs, as `git grep PATTERN -- PATHSPEC...` reads them: a path or directory prefix,
//! a wildcard pattern whose `*` also crosses `/`, and the magic `:(exclude)` (`:!`, `:^`),
//! `:(top)` (`:/`), `:(icase)`, `:(literal)` and `:(glob)` (`*` stays within a directory, `**`
//! crosses them).
//!
//! The command line resolves each pathspec against the current directory ([`resolve`]) into
//! the long form, relative to the repository root with `top` set; the engine matches those
//! ([`Pathspecs`]), so a request means the same wherever it comes from.

/// What a pathspec's magic says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Magic {
    top: bool,
    exclude: bool,
    icase: bool,
    literal: bool,
    glob: bool,
}

/// Splits `spec` into its magic and its pattern.
fn parse(spec: &str) -> Result<(Magic, &str), String> {
    let mut magic = Magic::default();
    let Some(rest) = spec.strip_prefix(':') else {
        return Ok((magic, spec));
    };
    if let Some(long) = rest.strip_prefix('(') {
        let Some((words, pattern)) = long.split_once(')') else {
            return Err(format!("pathspec `{spec}`: missing `)` after its magic"));
        };
        for word in words.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "top" => magic.top = true,
                "exclude" => magic.exclude = true,
                "icase" => magic.icase = true,
                "literal" => magic.literal = true,
                "glob" => magic.glob = true,
                other => {
                    return Err(format!(
                        "pathspec `{spec}`: unsupported magic `{other}` (top, exclude, icase, literal and glob are)"
                    ));
                }
            }
        }
        return Ok((magic, pattern));
    }
    // The short form: magic signs, then an optional `:` before the pattern.
    let mut chars = rest.char_indices();
    let mut end = rest.len();
    for (i, c) in chars.by_ref() {
        match c {
            '/' => magic.top = true,
            '!' | '^' => magic.exclude = true,
            ':' => {
                end = i + 1;
                break;
            }
            _ => {
                end = i;
                break;
            }
        }
    }
    Ok((magic, &rest[end..]))
}

/// Normalises a `/`-separated path: no `.`, no empty parts, `..` applied. `None` when it
/// leaves the repository.
fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Resolves `spec`, given in the directory `prefix` (relative to the repository root, `""` at
/// the root), into the long form relative to the root that [`Pathspecs`] matches.
pub fn resolve(spec: &str, prefix: &str) -> Result<String, String> {
    let (magic, pattern) = parse(spec)?;
    let full = if magic.top || prefix.is_empty() { pattern.to_owned() } else { format!("{prefix}/{pattern}") };
    let keeps_slash = pattern.ends_with('/');
    let mut path = normalise(&full).ok_or_else(|| format!("pathspec `{spec}` is outside the repository"))?;
    if keeps_slash && !path.is_empty() {
        path.push('/');
    }
    let mut words = vec!["top"];
    for (set, word) in
        [(magic.exclude, "exclude"), (magic.icase, "icase"), (magic.literal, "literal"), (magic.glob, "glob")]
    {
        if set {
            words.push(word);
        }
    }
    Ok(format!(":({}){path}", words.join(",")))
}

/// Whether a resolved pathspec includes (rather than excludes).
pub fn is_include(resolved: &str) -> bool {
    parse(resolved).is_ok_and(|(magic, _)| !magic.exclude)
}

/// One pathspec, ready to match.
#[derive(Debug)]
struct Spec {
    exclude: bool,
    icase: bool,
    /// The pattern, lowered under `icase`.
    pattern: String,
    /// The pattern as a wildcard, unless it has no wildcard or is literal.
    wildcard: Option<globset::GlobMatcher>,
}

impl Spec {
    fn matches(&self, path: &str) -> bool {
        let lowered;
        let path = if self.icase {
            lowered = path.to_lowercase();
            lowered.as_str()
        } else {
            path
        };
        if self.pattern.is_empty() {
            return true;
        }
        // A path, or a directory: the path itself or anything under it.
        let prefix = self.pattern.trim_end_matches('/');
        let by_prefix = if self.pattern.ends_with('/') {
            path.starts_with(&self.pattern)
        } else {
            path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
        };
        by_prefix || self.wildcard.as_ref().is_some_and(|w| w.is_match(path))
    }
}

/// A list of resolved pathspecs: a path is in when some include matches (or none is given)
/// and no exclude does.
#[derive(Debug, Default)]
pub struct Pathspecs {
    specs: Vec<Spec>,
}

impl Pathspecs {
    /// Compiles resolved pathspecs.
    pub fn new(resolved: &[String]) -> Result<Pathspecs, String> {
        let mut specs = Vec::new();
        for spec in resolved {
            let (magic, pattern) = parse(spec)?;
            let pattern = if magic.icase { pattern.to_lowercase() } else { pattern.to_owned() };
            let wild = !magic.literal && pattern.contains(['*', '?', '[']);
            let wildcard = if wild {
                let glob = globset::GlobBuilder::new(&pattern)
                    .literal_separator(magic.glob)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| format!("pathspec `{spec}`: {e}"))?;
                Some(glob.compile_matcher())
            } else {
                None
            };
            specs.push(Spec { exclude: magic.exclude, icase: magic.icase, pattern, wildcard });
        }
        Ok(Pathspecs { specs })
    }

    /// Whether no pathspec is given.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Whether `path` (relative to the root) is in.
    pub fn matches(&self, path: &str) -> bool {
        let mut includes = self.specs.iter().filter(|s| !s.exclude).peekable();
        let included = includes.peek().is_none() || includes.any(|s| s.matches(path));
        included && !self.specs.iter().any(|s| s.exclude && s.matches(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(list: &[&str], prefix: &str) -> Pathspecs {
        let resolved: Vec<String> = list.iter().map(|s| resolve(s, prefix).unwrap()).collect();
        Pathspecs::new(&resolved).unwrap()
    }

    #[test]
    fn paths_and_directories_match_what_is_under_them() {
        let p = specs(&["src/task"], "");
        assert!(p.matches("src/task/mod.rs"));
        assert!(p.matches("src/task"));
        assert!(!p.matches("src/tasks.rs"));
        let p = specs(&["task", "../README.md"], "src");
        assert!(p.matches("src/task/a.rs"));
        assert!(p.matches("README.md"));
        assert!(!p.matches("task/a.rs"));
        assert!(resolve("../../x", "src").is_err());
    }

    #[test]
    fn wildcards_cross_directories_unless_glob_magic() {
        assert!(specs(&["*.rs"], "").matches("src/deep/a.rs"));
        assert!(!specs(&[":(glob)*.rs"], "").matches("src/deep/a.rs"));
        assert!(specs(&[":(glob)**/*.rs"], "").matches("src/deep/a.rs"));
        assert!(specs(&[":(literal)a*"], "").matches("a*/x"));
        assert!(!specs(&[":(literal)a*"], "").matches("ab/x"));
        assert!(specs(&[":(icase)SRC"], "").matches("src/a.rs"));
    }

    #[test]
    fn excludes_top_and_short_magic() {
        let p = specs(&[":(exclude)src/gen", ":!*.md"], "");
        assert!(p.matches("src/a.rs"));
        assert!(!p.matches("src/gen/b.rs"));
        assert!(!p.matches("docs/x.md"));
        let p = specs(&[":/docs", ":/!docs/old"], "src");
        assert!(p.matches("docs/a.md"));
        assert!(!p.matches("docs/old/a.md"));
        assert!(!p.matches("src/docs/a.md"));
        assert!(specs(&[":/"], "src").matches("anything/at/all"));
        assert!(resolve(":(bogus)x", "").is_err());
        assert!(is_include(&resolve("src", "").unwrap()));
        assert!(!is_include(&resolve(":!src", "").unwrap()));
    }
}
