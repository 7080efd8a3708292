//! Languages are data: one table says how to recognise each language and which grammar and
//! query file give it meaning.
//!
//! Adding a language means adding a row here, a `queries/<lang>/tags.scm` and an annotated
//! corpus file under `tests/corpus/`, not code. A query names what it finds with the
//! conventions of tree-sitter's tags queries:
//!
//! - `@definition.<kind>` on the whole definition node, `@name` on its name;
//! - `@declaration.<kind>` for a declaration or prototype (a definition of the same name wins);
//! - `@scope` with `@name` for a node that qualifies the names inside it without being a
//!   symbol itself (a Rust `impl Foo` block);
//! - `@context` for text that prefixes the qualified name (the `t` of HCL's `resource "t" "n"`);
//! - captures starting with `_` are for predicates only.
//!
//! `<kind>` is one of [`KINDS`]; a test compiles every query and rejects unknown kinds.
//!
//! Architecture invariant: this module never parses; it only describes.

/// The closed set of symbol kinds, normalised across languages.
pub const KINDS: &[&str] = &[
    "function",
    "method",
    "constructor",
    "class",
    "struct",
    "union",
    "enum",
    "enum_member",
    "interface",
    "trait",
    "module",
    "constant",
    "variable",
    "field",
    "property",
    "type",
    "macro",
    // Data and markup languages.
    "table",
    "view",
    "index",
    "trigger",
    "heading",
    "selector",
    "keyframes",
    "key",
    "element",
    // HCL / Terraform blocks.
    "resource",
    "data",
    "output",
    "provider",
    "block",
    // Makefiles.
    "target",
];

/// Whether definitions nested in a symbol of `kind` are qualified by it and have it as their
/// parent. A C `typedef struct list {..} list_t` holds `struct list`, but `list` is not
/// `list_t::list`: aliases, variables and other leaves pass their children through.
pub fn is_container_kind(kind: &str) -> bool {
    !matches!(kind, "type" | "variable" | "constant" | "field" | "property" | "macro" | "keyframes" | "target")
}

/// How a language marks a symbol as visible outside its scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VisibilityRule {
    /// The language has no notion of visibility we report.
    None,
    /// Rust: a `visibility_modifier` (`pub`, `pub(crate)`) or private.
    Rust,
    /// Go: an exported name starts with an upper-case letter.
    GoCase,
    /// Python, Dart: a leading underscore means private by convention.
    Underscore,
    /// Java, C#, Kotlin, PHP, Scala, Swift: modifier keywords before the name.
    Keywords,
    /// TypeScript: a module's top-level declaration is `export` (by an `export` before it or
    /// in an `export { ... }` list) or `private` to its module; a class member has its
    /// modifier keywords.
    EsModule,
}

/// Where a language writes a symbol's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStyle {
    /// Comments right above the definition (`///`, `/** */`, `#`, `--`).
    Preceding,
    /// Python: a string literal as the first statement of the body, else preceding comments.
    Docstring,
}

/// One language: how to recognise its files and how to read them.
#[derive(Debug)]
pub struct Language {
    /// The name used in records, filters (`--lang`) and output.
    pub name: &'static str,
    /// The grammar's name in the grammars crate.
    pub grammar: &'static str,
    /// Lower-case file extensions, without the dot.
    pub extensions: &'static [&'static str],
    /// Whole file names (`Rakefile`, `Jenkinsfile`).
    pub filenames: &'static [&'static str],
    /// Interpreter names a `#!` line may give (`python3` matches `python`).
    pub interpreters: &'static [&'static str],
    /// The query file's text.
    pub query: &'static str,
    /// The separator of qualified names (`::` in Rust, `.` in Java).
    pub separator: &'static str,
    /// How visibility is read.
    pub visibility: VisibilityRule,
    /// Where documentation is read from.
    pub doc_style: DocStyle,
}

macro_rules! query {
    ($lang:literal) => {
        include_str!(concat!("queries/", $lang, "/tags.scm"))
    };
}

/// The language table. Order matters only for display.
pub static LANGUAGES: &[Language] = &[
    Language {
        name: "c",
        grammar: "c",
        extensions: &["c", "h"],
        filenames: &[],
        interpreters: &[],
        query: query!("c"),
        separator: "::",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "cpp",
        grammar: "cpp",
        extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tcc", "inl"],
        filenames: &[],
        interpreters: &[],
        query: query!("cpp"),
        separator: "::",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "rust",
        grammar: "rust",
        extensions: &["rs"],
        filenames: &[],
        interpreters: &[],
        query: query!("rust"),
        separator: "::",
        visibility: VisibilityRule::Rust,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "python",
        grammar: "python",
        extensions: &["py", "pyi", "pyw"],
        filenames: &["SConstruct", "SConscript"],
        interpreters: &["python", "python2", "python3", "pypy", "pypy3"],
        query: query!("python"),
        separator: ".",
        visibility: VisibilityRule::Underscore,
        doc_style: DocStyle::Docstring,
    },
    Language {
        name: "go",
        grammar: "go",
        extensions: &["go"],
        filenames: &[],
        interpreters: &[],
        query: query!("go"),
        separator: ".",
        visibility: VisibilityRule::GoCase,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "javascript",
        grammar: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        filenames: &[],
        interpreters: &["node", "nodejs", "deno", "bun"],
        query: query!("javascript"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "typescript",
        grammar: "typescript",
        extensions: &["ts", "mts", "cts"],
        filenames: &[],
        interpreters: &["ts-node"],
        query: query!("typescript"),
        separator: ".",
        visibility: VisibilityRule::EsModule,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "tsx",
        grammar: "tsx",
        extensions: &["tsx"],
        filenames: &[],
        interpreters: &[],
        query: query!("typescript"),
        separator: ".",
        visibility: VisibilityRule::EsModule,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "java",
        grammar: "java",
        extensions: &["java"],
        filenames: &[],
        interpreters: &[],
        query: query!("java"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "kotlin",
        grammar: "kotlin",
        extensions: &["kt", "kts"],
        filenames: &[],
        interpreters: &[],
        query: query!("kotlin"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "c_sharp",
        grammar: "c_sharp",
        extensions: &["cs", "csx"],
        filenames: &[],
        interpreters: &[],
        query: query!("c_sharp"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "bash",
        grammar: "bash",
        extensions: &["sh", "bash", "zsh", "ksh", "bats"],
        filenames: &[".bashrc", ".bash_profile", ".profile", ".zshrc", "PKGBUILD"],
        interpreters: &["sh", "bash", "zsh", "ksh", "dash", "ash"],
        query: query!("bash"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "html",
        grammar: "html",
        extensions: &["html", "htm", "xhtml"],
        filenames: &[],
        interpreters: &[],
        query: query!("html"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "css",
        grammar: "css",
        extensions: &["css"],
        filenames: &[],
        interpreters: &[],
        query: query!("css"),
        separator: " ",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "hcl",
        grammar: "hcl",
        extensions: &["tf", "hcl", "tfvars"],
        filenames: &[],
        interpreters: &[],
        query: query!("hcl"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "yaml",
        grammar: "yaml",
        extensions: &["yml", "yaml"],
        filenames: &[],
        interpreters: &[],
        query: query!("yaml"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "sql",
        grammar: "sql",
        extensions: &["sql"],
        filenames: &[],
        interpreters: &[],
        query: query!("sql"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "xml",
        grammar: "xml",
        extensions: &["xml", "xsd", "xsl", "xslt", "svg", "plist", "csproj", "fsproj", "vbproj", "props", "targets"],
        filenames: &[],
        interpreters: &[],
        query: query!("xml"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "groovy",
        grammar: "groovy",
        extensions: &["groovy", "gradle", "gvy", "gy", "gsh"],
        filenames: &["Jenkinsfile"],
        interpreters: &["groovy"],
        query: query!("groovy"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "ruby",
        grammar: "ruby",
        extensions: &["rb", "rake", "gemspec", "ru"],
        filenames: &["Rakefile", "Gemfile", "Guardfile", "Vagrantfile"],
        interpreters: &["ruby", "jruby"],
        query: query!("ruby"),
        separator: "::",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "php",
        grammar: "php",
        extensions: &["php", "phtml", "php5", "php7", "phps"],
        filenames: &[],
        interpreters: &["php"],
        query: query!("php"),
        separator: "\\",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "scala",
        grammar: "scala",
        extensions: &["scala", "sc", "sbt"],
        filenames: &[],
        interpreters: &["scala"],
        query: query!("scala"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "swift",
        grammar: "swift",
        extensions: &["swift"],
        filenames: &[],
        interpreters: &["swift"],
        query: query!("swift"),
        separator: ".",
        visibility: VisibilityRule::Keywords,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "dart",
        grammar: "dart",
        extensions: &["dart"],
        filenames: &[],
        interpreters: &["dart"],
        query: query!("dart"),
        separator: ".",
        visibility: VisibilityRule::Underscore,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "json",
        grammar: "json",
        extensions: &["json", "jsonc", "geojson", "webmanifest"],
        filenames: &[".babelrc", ".eslintrc"],
        interpreters: &[],
        query: query!("json"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "toml",
        grammar: "toml",
        extensions: &["toml"],
        filenames: &[],
        interpreters: &[],
        query: query!("toml"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "markdown",
        grammar: "markdown",
        extensions: &["md", "markdown", "mdown", "mkd"],
        filenames: &[],
        interpreters: &[],
        query: query!("markdown"),
        separator: " > ",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "lua",
        grammar: "lua",
        extensions: &["lua"],
        filenames: &[],
        interpreters: &["lua", "luajit"],
        query: query!("lua"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
    Language {
        name: "make",
        grammar: "make",
        extensions: &["mk", "mak", "make"],
        filenames: &["Makefile", "makefile", "GNUmakefile", "Kbuild", "Makefile.am", "Makefile.in"],
        interpreters: &["make"],
        query: query!("make"),
        separator: ".",
        visibility: VisibilityRule::None,
        doc_style: DocStyle::Preceding,
    },
];

/// The language called `name`, case-insensitively, accepting common aliases
/// (`ts`, `c++`, `csharp`, `sh`, `md`, `terraform`).
pub fn by_name(name: &str) -> Option<&'static Language> {
    let lower = name.to_ascii_lowercase();
    let canonical = match lower.as_str() {
        "c++" | "cxx" => "cpp",
        "rs" => "rust",
        "py" => "python",
        "golang" => "go",
        "js" | "jsx" => "javascript",
        "ts" => "typescript",
        "csharp" | "cs" | "c#" => "c_sharp",
        "sh" | "shell" | "zsh" => "bash",
        "terraform" | "tf" => "hcl",
        "yml" => "yaml",
        "kt" => "kotlin",
        "rb" => "ruby",
        "md" => "markdown",
        "makefile" | "mk" => "make",
        other => other,
    };
    LANGUAGES.iter().find(|l| l.name == canonical)
}

/// The index of `language` in [`LANGUAGES`].
pub fn index_of(language: &Language) -> usize {
    LANGUAGES
        .iter()
        .position(|l| std::ptr::eq(l, language))
        .expect("every Language value lives in LANGUAGES because none is built elsewhere")
}

/// The language of a file from its path alone (file name, then extension).
pub fn detect_by_path(path: &[u8]) -> Option<&'static Language> {
    let file_name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    if let Ok(name) = std::str::from_utf8(file_name)
        && let Some(language) = LANGUAGES.iter().find(|l| l.filenames.contains(&name))
    {
        return Some(language);
    }
    // The extension decides even when the rest of the name is not UTF-8.
    let dot = file_name.iter().rposition(|&b| b == b'.')?;
    let extension = std::str::from_utf8(&file_name[dot + 1..]).ok()?.to_ascii_lowercase();
    LANGUAGES.iter().find(|l| l.extensions.contains(&extension.as_str()))
}

/// The language of a file from its path, or else from a `#!` line at the top of `content`.
pub fn detect(path: &[u8], content: &[u8]) -> Option<&'static Language> {
    detect_by_path(path).or_else(|| detect_by_shebang(content))
}

/// The language a `#!` line names, looking through `env` and its flags.
pub fn detect_by_shebang(content: &[u8]) -> Option<&'static Language> {
    let rest = content.strip_prefix(b"#!")?;
    let line_end = memchr::memchr(b'\n', rest).unwrap_or(rest.len()).min(256);
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    // `python3.11` is `python3`; `ruby2.7` is `ruby`.
    let trimmed = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    LANGUAGES.iter().find(|l| l.interpreters.contains(&program) || l.interpreters.contains(&trimmed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_by_name_extension_and_shebang() {
        let name = |p: &str, c: &str| detect(p.as_bytes(), c.as_bytes()).map(|l| l.name);
        assert_eq!(name("src/lib.rs", ""), Some("rust"));
        assert_eq!(name("include/util.h", ""), Some("c"));
        assert_eq!(name("include/util.hpp", ""), Some("cpp"));
        assert_eq!(name("App.TSX", ""), Some("tsx"));
        assert_eq!(name("Rakefile", ""), Some("ruby"));
        assert_eq!(name("bin/tool", "#!/usr/bin/env python3\nprint(1)\n"), Some("python"));
        assert_eq!(name("bin/tool", "#!/usr/bin/env -S node --harmony\n"), Some("javascript"));
        assert_eq!(name("bin/run", "#!/bin/sh\n"), Some("bash"));
        assert_eq!(name("bin/run", "#!/usr/bin/python3.11\n"), Some("python"));
        assert_eq!(name("README", "plain text"), None);
        assert_eq!(name("archive.tar.gz", ""), None);
        assert_eq!(detect_by_path(b"odd-\xff.rs").map(|l| l.name), Some("rust"));
    }

    #[test]
    fn every_language_has_a_grammar_and_names_are_unique() {
        let mut names: Vec<_> = LANGUAGES.iter().map(|l| l.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), LANGUAGES.len());
        assert_eq!(LANGUAGES.len(), 29, "the 28 parsers of deps.md and Makefiles");
        for language in LANGUAGES {
            assert!(codecompass_grammars::language(language.grammar).is_some(), "no grammar for {}", language.name);
            assert_eq!(by_name(language.name).map(|l| l.name), Some(language.name));
        }
    }
}
