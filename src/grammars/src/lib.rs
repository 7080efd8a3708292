//! The tree-sitter grammars CodeCompass links, by name.
//!
//! This crate exists only to keep the grammars' C code (hundreds of megabytes of parse
//! tables) out of the main crate's rebuilds: it changes when a grammar is added or upgraded,
//! and never otherwise. The language table and the query files that give each grammar its
//! meaning live in the main crate (`src/lang/`), so editing a query never recompiles C.
//!
//! Architecture invariant: exactly one crate per exported C symbol (`tree_sitter_<name>`) is
//! linked. Two crates exporting the same symbol link silently to one of them.

use tree_sitter::Language;

/// Every grammar name this crate can give, in a stable order.
pub const NAMES: &[&str] = &[
    "c",
    "cpp",
    "rust",
    "python",
    "go",
    "javascript",
    "typescript",
    "tsx",
    "java",
    "kotlin",
    "c_sharp",
    "bash",
    "html",
    "css",
    "hcl",
    "yaml",
    "sql",
    "xml",
    "groovy",
    "ruby",
    "php",
    "scala",
    "swift",
    "dart",
    "json",
    "toml",
    "markdown",
    "markdown_inline",
    "lua",
    "make",
];

/// The grammar called `name` (one of [`NAMES`]), or `None` for a name this crate lacks.
pub fn language(name: &str) -> Option<Language> {
    let language: Language = match name {
        "c" => tree_sitter_c::LANGUAGE.into(),
        "cpp" => tree_sitter_cpp::LANGUAGE.into(),
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        "kotlin" => tree_sitter_kotlin_sg::LANGUAGE.into(),
        "c_sharp" => tree_sitter_c_sharp::LANGUAGE.into(),
        "bash" => tree_sitter_bash::LANGUAGE.into(),
        "html" => tree_sitter_html::LANGUAGE.into(),
        "css" => tree_sitter_css::LANGUAGE.into(),
        "hcl" => tree_sitter_hcl::LANGUAGE.into(),
        "yaml" => tree_sitter_yaml::LANGUAGE.into(),
        "sql" => tree_sitter_sequel::LANGUAGE.into(),
        "xml" => tree_sitter_xml::LANGUAGE_XML.into(),
        "groovy" => dekobon_tree_sitter_groovy::LANGUAGE.into(),
        "ruby" => tree_sitter_ruby::LANGUAGE.into(),
        "php" => tree_sitter_php::LANGUAGE_PHP.into(),
        "scala" => tree_sitter_scala::LANGUAGE.into(),
        "swift" => tree_sitter_swift::LANGUAGE.into(),
        "dart" => tree_sitter_dart::LANGUAGE.into(),
        "json" => tree_sitter_json::LANGUAGE.into(),
        "toml" => tree_sitter_toml_ng::LANGUAGE.into(),
        "markdown" => tree_sitter_md::LANGUAGE.into(),
        "markdown_inline" => tree_sitter_md::INLINE_LANGUAGE.into(),
        "lua" => tree_sitter_lua::LANGUAGE.into(),
        "make" => tree_sitter_make::LANGUAGE.into(),
        _ => return None,
    };
    Some(language)
}

/// The texts every node of a kind contains, per grammar: lines of
/// `grammar<TAB>kind<TAB>text<TAB>text...` (after `#` comment lines), for the named kinds that
/// have texts of three bytes or more. Generated from the grammars' `grammar.json` by
/// `cargo xtask codegen`, which a test keeps in step with the versions linked here.
pub const KIND_TEXTS: &str = include_str!("kind_texts.tsv");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_grammar_the_core_accepts() {
        for name in NAMES {
            let language = language(name).unwrap_or_else(|| panic!("no grammar for {name}"));
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&language).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn every_kind_with_texts_is_a_named_kind_of_its_grammar() {
        for line in KIND_TEXTS.lines().filter(|l| !l.starts_with('#')) {
            let mut fields = line.split('\t');
            let (grammar, kind) = (fields.next().unwrap(), fields.next().unwrap());
            let language = language(grammar).unwrap_or_else(|| panic!("{line}: no grammar {grammar}"));
            assert_ne!(language.id_for_node_kind(kind, true), 0, "{line}: {grammar} has no named kind {kind}");
            assert!(fields.next().is_some(), "{line}: no texts");
        }
    }
}
