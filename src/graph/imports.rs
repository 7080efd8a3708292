//! Which files of a view an import means: `from .util import x`, `import "./util"`,
//! `use crate::index::Index`, `#include "x/y.h"`, `import "example.com/m/pkg"`. Resolved by path
//! within the view, by the rules of the importing file's language; nothing outside the view (a
//! package, the standard library) resolves.

use std::collections::HashMap;

/// One way an import may name a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// This repository path.
    Exact(String),
    /// A path ending in these whole segments.
    Suffix(String),
    /// Any file of a directory whose path ends in these segments (Java `a.b.*`, C# namespaces).
    Directory(String),
    /// Any file of a directory whose path is a suffix of this import path (Go packages).
    Package(String),
    /// A Python module by its absolute dotted path: a path ending in these segments whose
    /// directory above them is not itself a package (`json` is not `flask/json/__init__.py`
    /// when `flask/__init__.py` exists). Checked against the view by [`Pattern::rooted_at`].
    Rooted(String),
}

/// The directory of a repository path (`""` at the root).
pub fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// The file name of a repository path.
pub fn file_name(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// `base` joined with a relative path of `.` and `..` segments; `None` above the root.
fn join(base: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

fn with_extensions(stem: &str, extensions: &[&str], exact: bool, out: &mut Vec<Pattern>) {
    for ext in extensions {
        let path = format!("{stem}{ext}");
        out.push(if exact { Pattern::Exact(path) } else { Pattern::Suffix(path) });
    }
}

const JS_EXTENSIONS: &[&str] = &[
    "",
    ".ts",
    ".tsx",
    ".d.ts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    "/index.ts",
    "/index.tsx",
    "/index.js",
    "/index.jsx",
    "/index.mjs",
];

/// The patterns of an import `spec` written in `importer`, a file of language `lang`.
pub fn patterns(lang: &str, importer: &str, spec: &str) -> Vec<Pattern> {
    let dir = dir_of(importer);
    let mut out = Vec::new();
    match lang {
        "python" => {
            let dots = spec.chars().take_while(|&c| c == '.').count();
            let rest = spec[dots..].replace('.', "/");
            if dots > 0 {
                let mut base = dir.to_owned();
                for _ in 1..dots {
                    base = dir_of(&base).to_owned();
                }
                let stem = if rest.is_empty() { base } else { join(&base, &rest).unwrap_or_default() };
                let sep = if stem.is_empty() { "" } else { "/" };
                out.push(Pattern::Exact(format!("{stem}.py")));
                out.push(Pattern::Exact(format!("{stem}{sep}__init__.py")));
            } else if !rest.is_empty() {
                out.push(Pattern::Rooted(format!("{rest}.py")));
                out.push(Pattern::Rooted(format!("{rest}/__init__.py")));
                out.push(Pattern::Rooted(format!("{rest}.pyi")));
            }
        }
        "javascript" | "typescript" | "tsx" => {
            let relative = spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..";
            // A TypeScript import of `./x.js` means `./x.ts`.
            let stem = spec.strip_suffix(".js").or_else(|| spec.strip_suffix(".mjs")).unwrap_or(spec);
            if relative {
                if let Some(path) = join(dir, stem) {
                    with_extensions(&path, JS_EXTENSIONS, true, &mut out);
                    if stem != spec
                        && let Some(p) = join(dir, spec)
                    {
                        out.push(Pattern::Exact(p));
                    }
                }
            } else if spec.contains('/') && !spec.starts_with('@') {
                with_extensions(stem.trim_start_matches('/'), JS_EXTENSIONS, false, &mut out);
            }
        }
        "rust" => {
            let segments: Vec<&str> = spec.split("::").filter(|s| !s.is_empty()).collect();
            let (base, rest): (Option<String>, &[&str]) = match segments.first().copied() {
                Some("crate") => (None, &segments[1..]),
                Some("self") => (Some(rust_module_dir(importer)), &segments[1..]),
                Some("super") => {
                    let mut base = rust_module_dir(importer);
                    let mut i = 0;
                    while segments.get(i) == Some(&"super") {
                        base = dir_of(&base).to_owned();
                        i += 1;
                    }
                    (Some(base), &segments[i..])
                }
                // `mod x;` is written as the bare name: a file beside this module.
                Some(_) if segments.len() == 1 => (Some(rust_module_dir(importer)), &segments[..]),
                _ => (None, &segments[..]),
            };
            for n in (1..=rest.len()).rev() {
                let path = rest[..n].join("/");
                match &base {
                    Some(b) => {
                        let stem = if b.is_empty() { path } else { format!("{b}/{path}") };
                        out.push(Pattern::Exact(format!("{stem}.rs")));
                        out.push(Pattern::Exact(format!("{stem}/mod.rs")));
                    }
                    None => {
                        out.push(Pattern::Suffix(format!("src/{path}.rs")));
                        out.push(Pattern::Suffix(format!("src/{path}/mod.rs")));
                        // Another crate of the workspace: `ignore::gitignore` is
                        // `ignore/src/gitignore.rs` (or the crate's `lib.rs`).
                        if segments.first() != Some(&"crate") && n >= 2 {
                            let inner = rest[1..n].join("/");
                            out.push(Pattern::Suffix(format!("{}/src/{inner}.rs", rest[0])));
                            out.push(Pattern::Suffix(format!("{}/src/{inner}/mod.rs", rest[0])));
                        }
                        if segments.first() != Some(&"crate") && n == 1 {
                            out.push(Pattern::Suffix(format!("{}/src/lib.rs", rest[0])));
                        }
                    }
                }
            }
        }
        "go" => {
            if !spec.is_empty() {
                out.push(Pattern::Package(spec.to_owned()));
            }
        }
        "c" | "cpp" => {
            if let Some(p) = join(dir, spec) {
                out.push(Pattern::Exact(p));
            }
            out.push(Pattern::Suffix(spec.trim_start_matches("./").to_owned()));
        }
        "java" | "kotlin" | "scala" | "groovy" => {
            let path = spec.trim_end_matches(".*").trim_end_matches("._").replace('.', "/");
            if spec.ends_with(".*") || spec.ends_with("._") {
                out.push(Pattern::Directory(path));
            } else {
                for ext in [".java", ".kt", ".scala", ".groovy"] {
                    out.push(Pattern::Suffix(format!("{path}{ext}")));
                    // A static import or a member names the class one segment up.
                    if let Some(class) = path.rsplit_once('/').map(|(c, _)| c) {
                        out.push(Pattern::Suffix(format!("{class}{ext}")));
                    }
                }
            }
        }
        "c_sharp" => out.push(Pattern::Directory(spec.replace('.', "/"))),
        "ruby" => {
            if spec.starts_with('.') {
                if let Some(p) = join(dir, spec) {
                    out.push(Pattern::Exact(if p.ends_with(".rb") { p } else { format!("{p}.rb") }));
                }
            } else {
                out.push(Pattern::Suffix(if spec.ends_with(".rb") { spec.to_owned() } else { format!("{spec}.rb") }));
            }
        }
        "php" => out.push(Pattern::Suffix(format!("{}.php", spec.trim_start_matches('\\').replace('\\', "/")))),
        "lua" => {
            let path = spec.replace('.', "/");
            out.push(Pattern::Suffix(format!("{path}.lua")));
            out.push(Pattern::Suffix(format!("{path}/init.lua")));
        }
        "dart" => {
            if let Some(rest) = spec.strip_prefix("package:") {
                let path = rest.split_once('/').map_or(rest, |(_, p)| p);
                out.push(Pattern::Suffix(format!("lib/{path}")));
            } else if !spec.contains(':')
                && let Some(p) = join(dir, spec)
            {
                out.push(Pattern::Exact(p));
            }
        }
        "swift" => out.push(Pattern::Directory(spec.to_owned())),
        _ => {
            if let Some(p) = join(dir, spec) {
                out.push(Pattern::Exact(p));
            }
            out.push(Pattern::Suffix(spec.trim_start_matches("./").to_owned()));
        }
    }
    out.retain(|p| match p {
        Pattern::Exact(s) | Pattern::Suffix(s) | Pattern::Directory(s) | Pattern::Package(s) | Pattern::Rooted(s) => {
            !s.is_empty()
        }
    });
    out
}

/// The directory a Rust file's child modules live in: beside `lib.rs`, `main.rs` and `mod.rs`,
/// in a directory of the module's own name otherwise.
fn rust_module_dir(importer: &str) -> String {
    let name = file_name(importer);
    let dir = dir_of(importer);
    match name {
        "lib.rs" | "main.rs" | "mod.rs" => dir.to_owned(),
        _ => {
            let stem = name.strip_suffix(".rs").unwrap_or(name);
            if dir.is_empty() { stem.to_owned() } else { format!("{dir}/{stem}") }
        }
    }
}

fn ends_with_segments(path: &str, suffix: &str) -> bool {
    path == suffix
        || (path.len() > suffix.len()
            && path.ends_with(suffix)
            && path.as_bytes()[path.len() - suffix.len() - 1] == b'/')
}

impl Pattern {
    /// Whether the repository path `target` is a file this pattern names.
    pub fn matches(&self, target: &str) -> bool {
        match self {
            Pattern::Exact(p) => target == p,
            Pattern::Suffix(p) | Pattern::Rooted(p) => ends_with_segments(target, p),
            Pattern::Directory(p) => ends_with_segments(dir_of(target), p),
            Pattern::Package(spec) => {
                let dir = dir_of(target);
                !dir.is_empty() && ends_with_segments(spec, dir)
            }
        }
    }

    /// The file name every match has, when there is one (for the name index).
    fn file_name(&self) -> Option<&str> {
        match self {
            Pattern::Exact(p) | Pattern::Suffix(p) | Pattern::Rooted(p) => Some(file_name(p)),
            Pattern::Directory(_) | Pattern::Package(_) => None,
        }
    }
}

impl Pattern {
    /// For a [`Pattern::Rooted`] match of `target`: the directory above the module (`src` of
    /// `src/flask/app.py` for `flask.app`), which must not be a package. `None` for other
    /// patterns, or a module at the top.
    pub fn rooted_at<'t>(&self, target: &'t str) -> Option<&'t str> {
        match self {
            Pattern::Rooted(p) if target.len() > p.len() => Some(&target[..target.len() - p.len() - 1]),
            _ => None,
        }
    }
}

/// Whether the import `spec`, written in `importer` (language `lang`), can mean `target`.
pub fn resolves_to(lang: &str, importer: &str, spec: &str, target: &str) -> bool {
    patterns(lang, importer, spec).iter().any(|p| p.matches(target))
}

/// The paths of a view, indexed by file name and by directory, to resolve imports to files.
pub struct PathIndex<'p> {
    by_name: HashMap<&'p str, Vec<&'p str>>,
    by_dir: HashMap<&'p str, Vec<&'p str>>,
}

impl<'p> PathIndex<'p> {
    /// Indexes `paths`.
    pub fn new(paths: impl IntoIterator<Item = &'p str>) -> PathIndex<'p> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut by_dir: HashMap<&str, Vec<&str>> = HashMap::new();
        for path in paths {
            by_name.entry(file_name(path)).or_default().push(path);
            by_dir.entry(dir_of(path)).or_default().push(path);
        }
        PathIndex { by_name, by_dir }
    }

    /// The files the import `spec` in `importer` means, best first: the first pattern that
    /// matches anything decides (an exact relative path before a suffix anywhere).
    pub fn resolve(&self, lang: &str, importer: &str, spec: &str) -> Vec<&'p str> {
        for pattern in patterns(lang, importer, spec) {
            let mut found: Vec<&str> = match pattern.file_name() {
                Some(name) => {
                    self.by_name.get(name).into_iter().flatten().copied().filter(|p| pattern.matches(p)).collect()
                }
                None => self
                    .by_dir
                    .iter()
                    .filter(|(dir, _)| match &pattern {
                        Pattern::Directory(p) => ends_with_segments(dir, p),
                        Pattern::Package(spec) => !dir.is_empty() && ends_with_segments(spec, dir),
                        _ => false,
                    })
                    .flat_map(|(_, files)| files.iter().copied())
                    .filter(|p| same_language(lang, p))
                    .collect(),
            };
            if !found.is_empty() {
                found.retain(|p| *p != importer);
                found.sort_unstable();
                found.dedup();
                return found;
            }
        }
        Vec::new()
    }
}

/// Whether `path` is a file of `lang`'s family (a Go package directory holds more than Go).
fn same_language(lang: &str, path: &str) -> bool {
    crate::lang::detect_by_path(path.as_bytes()).is_some_and(|l| super::family(l.name) == super::family(lang))
}

/// The lookup segments under which imports of `path` are found: its stem, and the directory
/// name for a package's index file (`__init__.py`, `index.ts`, `mod.rs`, a Go file).
pub fn segments_naming(lang: &str, path: &str) -> Vec<String> {
    let name = file_name(path);
    let stem = name.split('.').next().unwrap_or(name);
    let mut out = vec![stem.to_owned()];
    let dir_name = file_name(dir_of(path));
    let index_file = matches!(stem, "__init__" | "index" | "mod" | "lib" | "init");
    if (index_file || matches!(lang, "go" | "c_sharp" | "swift" | "java" | "kotlin" | "scala" | "groovy"))
        && !dir_name.is_empty()
    {
        out.push(dir_name.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_resolve_by_the_rules_of_their_language() {
        assert!(resolves_to("python", "pkg/app.py", ".util", "pkg/util.py"));
        assert!(resolves_to("python", "pkg/sub/app.py", "..util", "pkg/util.py"));
        assert!(resolves_to("python", "pkg/app.py", ".", "pkg/__init__.py"));
        assert!(resolves_to("python", "x.py", "flask.app", "src/flask/app.py"));
        assert!(!resolves_to("python", "x.py", "flask.app", "src/myflask/app.py"));
        assert!(resolves_to("typescript", "src/a/b.ts", "../c", "src/c/index.ts"));
        assert!(resolves_to("typescript", "src/a/b.ts", "./d.js", "src/a/d.ts"));
        assert!(!resolves_to("typescript", "src/a/b.ts", "lodash", "node_modules/lodash/index.js"));
        assert!(resolves_to("rust", "src/engine/mod.rs", "crate::index::FullText", "src/index/mod.rs"));
        assert!(resolves_to("rust", "src/engine/mod.rs", "locate", "src/engine/locate.rs"));
        assert!(resolves_to("rust", "src/query/words.rs", "super::clues::Clues", "src/query/clues/mod.rs"));
        assert!(resolves_to("rust", "tests/a.rs", "ignore::gitignore::Gitignore", "crates/ignore/src/gitignore.rs"));
        assert!(resolves_to("go", "cmd/main.go", "example.com/m/pkg/store", "pkg/store/db.go"));
        assert!(!resolves_to("go", "cmd/main.go", "example.com/m/pkg/store", "store.go"));
        assert!(resolves_to("c", "fs/ext4/inode.c", "ext4.h", "fs/ext4/ext4.h"));
        assert!(resolves_to("c", "fs/ext4/inode.c", "linux/slab.h", "include/linux/slab.h"));
        assert!(resolves_to("java", "A.java", "com.x.util.Strings", "src/main/java/com/x/util/Strings.java"));
        assert!(resolves_to("java", "A.java", "com.x.util.*", "src/main/java/com/x/util/Lists.java"));
    }

    #[test]
    fn a_path_index_prefers_the_exact_relative_file() {
        let paths = ["pkg/util.py", "other/pkg/util.py", "pkg/app.py", "lib/store/a.go", "lib/store/b.go", "x.go"];
        let index = PathIndex::new(paths);
        assert_eq!(index.resolve("python", "pkg/app.py", ".util"), vec!["pkg/util.py"]);
        assert_eq!(index.resolve("python", "main.py", "pkg.util"), vec!["other/pkg/util.py", "pkg/util.py"]);
        assert_eq!(index.resolve("go", "x.go", "example.com/m/lib/store"), vec!["lib/store/a.go", "lib/store/b.go"]);
        assert_eq!(segments_naming("python", "pkg/__init__.py"), vec!["__init__", "pkg"]);
    }
}
