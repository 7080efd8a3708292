//! Which paths are indexed: `.codecompassignore` (gitignore syntax, read from the tree being
//! indexed) leaves paths out of a view; built-in rules keep noise (lock files, minified
//! bundles, vendored dependencies) out of parsing while leaving it visible to exact search.

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The file whose gitignore-syntax patterns leave paths out of every view.
pub const IGNORE_FILE: &str = ".codecompassignore";

/// Lock files: generated, huge, and never where a definition lives.
const LOCK_FILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "Gemfile.lock",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "mix.lock",
    "Podfile.lock",
    "packages.lock.json",
    "pubspec.lock",
    "gradle.lockfile",
];

/// Directories of vendored or installed dependencies and caches.
const VENDORED_DIRS: &[&str] =
    &["node_modules", "bower_components", "jspm_packages", "vendor", "__pycache__", ".venv", ".tox", ".git"];

/// A built-in reason not to parse `path`, decided by the path alone.
pub fn builtin_skip(path: &[u8]) -> Option<&'static str> {
    let mut segments = path.split(|&b| b == b'/');
    let file_name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let dirs = segments.by_ref().take(path.iter().filter(|&&b| b == b'/').count());
    for dir in dirs {
        if VENDORED_DIRS.iter().any(|v| v.as_bytes() == dir) {
            return Some("vendored");
        }
    }
    if LOCK_FILES.iter().any(|l| l.as_bytes() == file_name) {
        return Some("lock_file");
    }
    let lower = file_name.to_ascii_lowercase();
    if [&b".min.js"[..], b".min.css", b".min.mjs", b"-min.js", b".js.map", b".css.map"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        return Some("minified");
    }
    None
}

/// Patterns of a `.codecompassignore`, matched against repository-relative paths.
pub struct IgnoreRules {
    matcher: Option<Gitignore>,
}

impl IgnoreRules {
    /// No patterns: nothing is left out.
    pub fn none() -> IgnoreRules {
        IgnoreRules { matcher: None }
    }

    /// The rules of a `.codecompassignore` with this content. Lines that are not valid
    /// patterns are skipped, as git skips them.
    pub fn parse(content: &[u8]) -> IgnoreRules {
        let text = String::from_utf8_lossy(content);
        let mut builder = GitignoreBuilder::new("");
        let mut any = false;
        for line in text.lines() {
            if builder.add_line(None, line).is_ok() && !line.trim().is_empty() && !line.starts_with('#') {
                any = true;
            }
        }
        let matcher = if any { builder.build().ok() } else { None };
        IgnoreRules { matcher }
    }

    /// Whether `path` (relative, `/`-separated) is left out.
    pub fn excludes(&self, path: &[u8]) -> bool {
        let Some(matcher) = &self.matcher else {
            return false;
        };
        let Ok(text) = std::str::from_utf8(path) else {
            return false;
        };
        matcher.matched_path_or_any_parents(text, false).is_ignore()
    }

    /// How many patterns are active.
    pub fn len(&self) -> usize {
        self.matcher.as_ref().map_or(0, Gitignore::num_ignores) as usize
    }

    /// Whether no pattern is active.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules_go_by_whole_segments() {
        assert_eq!(builtin_skip(b"Cargo.lock"), Some("lock_file"));
        assert_eq!(builtin_skip(b"web/node_modules/x/index.js"), Some("vendored"));
        assert_eq!(builtin_skip(b"src/vendor.rs"), None);
        assert_eq!(builtin_skip(b"vendors/x.go"), None);
        assert_eq!(builtin_skip(b"static/app.min.js"), Some("minified"));
        assert_eq!(builtin_skip(b"src/main.rs"), None);
    }

    #[test]
    fn ignore_file_patterns() {
        let rules = IgnoreRules::parse(b"# comment\ngenerated/\n*.pb.go\n!keep.pb.go\n");
        assert!(rules.excludes(b"generated/a.rs"));
        assert!(rules.excludes(b"src/generated/a.rs"));
        assert!(rules.excludes(b"api/x.pb.go"));
        assert!(!rules.excludes(b"api/keep.pb.go"));
        assert!(!rules.excludes(b"src/main.rs"));
        assert!(IgnoreRules::parse(b"\n# only comments\n").is_empty());
    }
}
