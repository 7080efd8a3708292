//! How visible a definition is, as its language says: Rust's `pub`, Go's case, Python's
//! underscore, modifier keywords, and an ES module's `export`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::node_text;
use crate::lang::{Language, VisibilityRule};

/// The visibility of the definition `node` named `name`, with its signature; `exported` holds
/// the names an ES module exports by name (`export { a, b as c }`, `export default a`).
pub(super) fn of(
    language: &Language,
    node: Node<'_>,
    name: &str,
    signature: &str,
    exported: &HashSet<String>,
    source: &[u8],
) -> Option<String> {
    match language.visibility {
        VisibilityRule::None => None,
        VisibilityRule::Rust => {
            let mut cursor = node.walk();
            let modifier = node.children(&mut cursor).find(|c| c.kind() == "visibility_modifier");
            Some(modifier.map_or_else(|| "private".to_owned(), |m| node_text(m, source).to_owned()))
        }
        VisibilityRule::GoCase => {
            let first = name.chars().next()?;
            Some(if first.is_uppercase() { "public" } else { "private" }.to_owned())
        }
        VisibilityRule::Underscore => {
            let private = name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__"));
            Some(if private { "private" } else { "public" }.to_owned())
        }
        VisibilityRule::Keywords => keywords(name, signature),
        VisibilityRule::EsModule => match module_statement(node) {
            Some(statement) if statement.kind() == "export_statement" => Some("export".to_owned()),
            Some(_) if exported.contains(name) => Some("export".to_owned()),
            Some(_) => Some("private".to_owned()),
            None => keywords(name, signature),
        },
    }
}

/// The first of the modifier keywords before the name in a signature.
fn keywords(name: &str, signature: &str) -> Option<String> {
    const WORDS: &[&str] = &["public", "private", "protected", "internal", "fileprivate", "open"];
    let head = signature.split(name).next().unwrap_or(signature);
    head.split(|c: char| !c.is_alphanumeric()).find(|w| WORDS.contains(w)).map(str::to_owned)
}

/// The statement of the module's top level that declares `node` (an `export` around it, or
/// the declaration itself), `None` for a definition nested in something else (a class
/// member, a namespace's declaration, a function's local).
fn module_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut statement = node;
    // `const a = 1`: the declarator sits in a lexical declaration.
    if matches!(node.kind(), "variable_declarator") {
        statement = node.parent().filter(|p| matches!(p.kind(), "lexical_declaration" | "variable_declaration"))?;
    }
    let parent = statement.parent()?;
    match parent.kind() {
        "program" => Some(statement),
        "export_statement" if parent.parent().is_some_and(|p| p.kind() == "program") => Some(parent),
        _ => None,
    }
}

/// The names a module exports by name, without declaring them there: `export { a, b as c }`
/// (not `export { a } from "./m"`, which exports another module's) and `export default a`.
pub(super) fn exported_names(any: Node<'_>, source: &[u8]) -> HashSet<String> {
    let mut root = any;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    let mut names = HashSet::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor).filter(|s| s.kind() == "export_statement") {
        if statement.child_by_field_name("source").is_some() {
            continue;
        }
        if let Some(value) = statement.child_by_field_name("value").filter(|v| v.kind() == "identifier") {
            names.insert(node_text(value, source).to_owned());
        }
        let mut inner = statement.walk();
        for clause in statement.named_children(&mut inner).filter(|c| c.kind() == "export_clause") {
            let mut specifiers = clause.walk();
            for specifier in clause.named_children(&mut specifiers).filter(|c| c.kind() == "export_specifier") {
                if let Some(local) = specifier.child_by_field_name("name") {
                    names.insert(node_text(local, source).to_owned());
                }
            }
        }
    }
    names
}
