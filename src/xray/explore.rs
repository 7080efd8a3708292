//! `xray explore`: a file's syntax tree as the evaluators see it (node kinds, field names,
//! positions, the text of small nodes), whole or around one line, and what each capture of a
//! query matched there, so that a query or a script can be written against real nodes.

use std::collections::BTreeSet;

use serde::Serialize;
use tree_sitter::{Node, QueryCursor, StreamingIterator};

use super::lines::Lines;
use super::{XrayError, clip};
use crate::lang::Language;

/// Text shown for nodes at most this long and on one line (and for every leaf).
const SHORT_TEXT: usize = 60;

/// One node of the tree, in document order.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExploreNode {
    /// Depth below the shown subtree's top (0).
    pub depth: u32,
    /// The node kind (the name a query uses).
    pub kind: String,
    /// The field its parent holds it in (`name:`, `body:`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Named, or anonymous punctuation and keywords.
    pub named: bool,
    /// First line (1-based).
    pub line_start: u32,
    /// First column (1-based, in bytes).
    pub column: u32,
    /// Last line.
    pub line_end: u32,
    /// Column after the last byte.
    pub column_end: u32,
    /// Its text, for leaves and short one-line nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A syntax error or a missing node the parser inserted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
}

/// What one capture of a query matched.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExploreCapture {
    /// The pattern of the query (0-based) that matched.
    pub pattern: u32,
    /// The capture's name.
    pub capture: String,
    /// The captured node's kind.
    pub kind: String,
    /// First line.
    pub line: u32,
    /// First column.
    pub column: u32,
    /// Its text (at most 400 characters).
    pub text: String,
}

/// A syntax tree, or part of one.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExploreTree {
    /// The file's language.
    pub language: String,
    /// With a line: the kinds from the root down to the shown node's parent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ancestors: Vec<String>,
    /// The nodes shown, in document order.
    pub nodes: Vec<ExploreNode>,
    /// Nodes in the shown subtree (more than `nodes` holds when truncated).
    pub total_nodes: u64,
    /// Whether `max_nodes` cut the list.
    pub truncated: bool,
    /// With a query: what each capture matched, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captures: Option<Vec<ExploreCapture>>,
    /// Whether the file has syntax errors (queries still run on the rest of the tree).
    pub has_errors: bool,
}

/// The tree of `source`: whole, or the subtree of `line` (the outermost node that starts on
/// that line, else the smallest that holds it); with `query`, what it captures there instead
/// of nodes. `all` shows anonymous nodes too.
pub fn explore(
    language: &'static Language,
    source: &[u8],
    line: Option<u32>,
    query: Option<&str>,
    all: bool,
    max_nodes: usize,
) -> Result<ExploreTree, XrayError> {
    let tree = crate::extract::parse_whole(language, source)
        .map_err(|m| XrayError::Search(crate::query::QueryError::Invalid(format!("cannot parse the file: {m}"))))?;
    let root = tree.root_node();
    let (top, ancestors) = match line {
        Some(line) => {
            let top = node_for_line(root, source, line).ok_or_else(|| {
                XrayError::Search(crate::query::QueryError::Invalid(format!(
                    "line {line} is past the end of the file ({} lines)",
                    root.end_position().row + 1
                )))
            })?;
            let mut up = Vec::new();
            let mut at = top.parent();
            while let Some(p) = at {
                up.push(p.kind().to_owned());
                at = p.parent();
            }
            up.reverse();
            (top, up)
        }
        None => (root, Vec::new()),
    };
    let mut out = ExploreTree {
        language: language.name.to_owned(),
        ancestors,
        nodes: Vec::new(),
        total_nodes: 0,
        truncated: false,
        captures: None,
        has_errors: root.has_error(),
    };
    if let Some(text) = query {
        let (compiled, _) = super::pattern::compile_for(text, &BTreeSet::from([language.name]))?;
        let Some(compiled) = compiled.get(language.name) else {
            return Ok(out);
        };
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(compiled.query(), top, source);
        let names = compiled.query().capture_names();
        let mut captures = Vec::new();
        while let Some(m) = matches.next() {
            for c in m.captures() {
                out.total_nodes += 1;
                if captures.len() == max_nodes {
                    out.truncated = true;
                    continue;
                }
                let p = c.node.start_position();
                captures.push(ExploreCapture {
                    pattern: m.pattern_index as u32,
                    capture: names[c.index as usize].to_owned(),
                    kind: c.node.kind().to_owned(),
                    line: p.row as u32 + 1,
                    column: p.column as u32 + 1,
                    text: clip(source, c.node.start_byte(), c.node.end_byte()),
                });
            }
        }
        out.captures = Some(captures);
        return Ok(out);
    }
    let mut cursor = top.walk();
    let mut depth = 0u32;
    loop {
        let node = cursor.node();
        if all || node.is_named() || node.is_missing() {
            out.total_nodes += 1;
            if out.nodes.len() < max_nodes {
                out.nodes.push(describe(node, cursor.field_name(), depth, source));
            } else {
                out.truncated = true;
            }
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return Ok(out);
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

fn describe(node: Node<'_>, field: Option<&str>, depth: u32, source: &[u8]) -> ExploreNode {
    let (start, end) = (node.start_position(), node.end_position());
    let short = start.row == end.row && node.end_byte() - node.start_byte() <= SHORT_TEXT;
    ExploreNode {
        depth,
        kind: if node.is_missing() { format!("MISSING {}", node.kind()) } else { node.kind().to_owned() },
        field: field.map(str::to_owned),
        named: node.is_named(),
        line_start: start.row as u32 + 1,
        column: start.column as u32 + 1,
        line_end: end.row as u32 + 1,
        column_end: end.column as u32 + 1,
        text: (node.child_count() == 0 || short).then(|| clip(source, node.start_byte(), node.end_byte())),
        error: node.is_error() || node.is_missing(),
    }
}

/// Node kinds that hold a sequence of statements or declarations (by the grammars' names).
fn is_sequence(kind: &str) -> bool {
    ["block", "body", "module", "program", "source_file", "translation_unit", "compilation_unit", "declaration_list"]
        .iter()
        .any(|k| kind.contains(k))
        || matches!(kind, "compound_statement" | "statement_list" | "document" | "stylesheet" | "chunk" | "makefile")
}

/// The node that stands for `line` (1-based): the outermost that starts on its first
/// non-blank byte below the block or file holding it, else the smallest named node there.
fn node_for_line<'t>(root: Node<'t>, source: &[u8], line: u32) -> Option<Node<'t>> {
    let lines = Lines::of(source);
    let row = line.checked_sub(1)? as usize;
    let start = lines.start(row)?;
    if start > source.len() || (start == source.len() && line > 1) {
        return None;
    }
    let end = lines.end(row);
    let first = (start..end).find(|&i| !source[i].is_ascii_whitespace()).unwrap_or(start);
    let mut node = root.named_descendant_for_byte_range(first, first)?;
    // Up while the parent starts at the same byte (the statement, not its first token), but
    // not into the block, body or file that holds the statement.
    while let Some(p) = node.parent() {
        if p.start_byte() != first || p == root || is_sequence(p.kind()) {
            break;
        }
        node = p;
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "import os\n\ndef f(a):\n    return os.path.join(a, 'x')\n";

    #[test]
    fn the_whole_tree_shows_kinds_fields_and_text() {
        let python = crate::lang::by_name("python").unwrap();
        let t = explore(python, PY.as_bytes(), None, None, false, 1000).unwrap();
        assert_eq!(t.nodes[0].kind, "module");
        let name = t.nodes.iter().find(|n| n.field.as_deref() == Some("name") && n.kind == "identifier").unwrap();
        assert_eq!(
            (name.kind.as_str(), name.text.as_deref(), name.line_start, name.column),
            ("identifier", Some("f"), 3, 5)
        );
        assert!(t.nodes.iter().all(|n| n.named));
        let all = explore(python, PY.as_bytes(), None, None, true, 1000).unwrap();
        assert!(all.nodes.iter().any(|n| n.kind == "def" && !n.named));
        let cut = explore(python, PY.as_bytes(), None, None, false, 3).unwrap();
        assert_eq!(cut.nodes.len(), 3);
        assert!(cut.truncated && cut.total_nodes > 3);
    }

    #[test]
    fn a_line_shows_its_statement_and_where_it_sits() {
        let python = crate::lang::by_name("python").unwrap();
        let t = explore(python, PY.as_bytes(), Some(4), None, false, 1000).unwrap();
        assert_eq!(t.nodes[0].kind, "return_statement");
        assert_eq!(t.ancestors, vec!["module", "function_definition", "block"]);
        let t = explore(python, PY.as_bytes(), Some(3), None, false, 1000).unwrap();
        assert_eq!(t.nodes[0].kind, "function_definition");
        assert!(explore(python, PY.as_bytes(), Some(40), None, false, 1000).is_err());
    }

    #[test]
    fn a_query_shows_its_captures() {
        let python = crate::lang::by_name("python").unwrap();
        let t = explore(
            python,
            PY.as_bytes(),
            None,
            Some("(call function: (attribute attribute: (identifier) @m)) @call"),
            false,
            1000,
        )
        .unwrap();
        let captures = t.captures.unwrap();
        assert_eq!(captures.len(), 2);
        assert_eq!((captures[0].capture.as_str(), captures[0].text.as_str()), ("call", "os.path.join(a, 'x')"));
        assert_eq!((captures[1].capture.as_str(), captures[1].text.as_str(), captures[1].line), ("m", "join", 4));
    }
}
