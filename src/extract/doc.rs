//! Doc comments: the first paragraph of the comment above a definition, or of a docstring.

use tree_sitter::Node;

use crate::lang::{DocStyle, Language};

/// Nodes that wrap a definition without being a new scope: the comment sits above the wrapper.
const WRAPPERS: &[&str] = &[
    "export_statement",
    "decorated_definition",
    "template_declaration",
    "ambient_declaration",
    "annotated_declaration",
    "member_declaration",
];

/// Kinds skipped between a comment and its definition (attributes, decorators, annotations).
fn is_decoration(kind: &str) -> bool {
    kind.contains("attribute") || kind.contains("decorator") || kind.contains("annotation")
}

/// At most this many characters of documentation are kept.
const MAX_DOC_CHARS: usize = 400;

/// The first paragraph of `node`'s documentation, if it has any.
pub fn of(language: &Language, node: Node<'_>, source: &[u8]) -> Option<String> {
    if language.doc_style == DocStyle::Docstring
        && let Some(doc) = docstring(node, source)
    {
        return Some(doc);
    }
    preceding_comments(node, source)
}

fn docstring(node: Node<'_>, source: &[u8]) -> Option<String> {
    let body = node.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0).filter(|n| n.kind() == "string")?;
    let text = super::node_text(string, source);
    let inner = text.trim_start_matches(|c: char| c.is_ascii_alphabetic()).trim_matches(|c| c == '"' || c == '\'');
    first_paragraph(inner.lines())
}

fn preceding_comments(mut node: Node<'_>, source: &[u8]) -> Option<String> {
    while let Some(parent) = node.parent() {
        if WRAPPERS.contains(&parent.kind()) && node.prev_named_sibling().is_none_or(|s| is_decoration(s.kind())) {
            node = parent;
        } else {
            break;
        }
    }
    let mut comments: Vec<Node<'_>> = Vec::new();
    let mut next_row = node.start_position().row;
    let mut sibling = node.prev_sibling();
    while let Some(s) = sibling {
        let kind = s.kind();
        if kind.contains("comment") {
            // A blank line between comment and definition detaches the comment.
            if s.end_position().row + 1 < next_row {
                break;
            }
            next_row = s.start_position().row;
            comments.push(s);
        } else if is_decoration(kind) {
            next_row = s.start_position().row;
        } else {
            break;
        }
        sibling = s.prev_sibling();
    }
    if comments.is_empty() {
        return None;
    }
    comments.reverse();
    let text: String = comments.iter().map(|c| super::node_text(*c, source)).collect::<Vec<_>>().join("\n");
    first_paragraph(text.lines().map(strip_comment_markers))
}

fn strip_comment_markers(line: &str) -> &str {
    let mut l = line.trim();
    for prefix in ["///", "//!", "//", "/**", "/*!", "/*", "--[[", "---", "--", "#", ";;", "*"] {
        if let Some(rest) = l.strip_prefix(prefix) {
            l = rest;
            break;
        }
    }
    l = l.strip_suffix("*/").unwrap_or(l);
    l = l.strip_suffix("]]").unwrap_or(l);
    l.trim()
}

fn first_paragraph<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut out = String::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            if out.is_empty() {
                continue;
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
        if out.len() > MAX_DOC_CHARS {
            break;
        }
    }
    if out.is_empty() {
        return None;
    }
    if let Some((cut, _)) = out.char_indices().nth(MAX_DOC_CHARS) {
        out.truncate(cut);
        out.push('…');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_stripped() {
        assert_eq!(strip_comment_markers("/// Finds a thing."), "Finds a thing.");
        assert_eq!(strip_comment_markers(" * more */"), "more");
        assert_eq!(strip_comment_markers("# hash"), "hash");
        assert_eq!(strip_comment_markers("-- sql"), "sql");
        let lines = ["", "First line", "continues.", "", "Second paragraph."];
        assert_eq!(first_paragraph(lines.into_iter()).as_deref(), Some("First line continues."));
    }
}
