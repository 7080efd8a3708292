//! The parents of many nodes of one tree. tree-sitter keeps no parent links: `Node::parent`
//! walks down from the root, and at each level steps through every child before the one that
//! holds the node, so in a file of a thousand top-level items (C) or an initializer of a
//! thousand entries each call pays a thousand steps. Here the children of a wide node are
//! listed once, in order, and the one holding a node is found by binary search; narrow levels
//! take tree-sitter's own step. Anything the search cannot decide goes to `Node::parent`.
//!
//! Nodes are mostly asked about in the order of the file (references, then the nodes around
//! each), so the path from the root down to the last node asked about is kept, and a search
//! starts from the deepest node of it that holds the next one: two references a few lines
//! apart share all but the last few levels of their paths.

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::Node;

/// Nodes with at least this many children have them listed for binary search.
const WIDE: u32 = 16;

/// Parents of nodes of the tree of `root`.
pub(super) struct Parents<'t> {
    root: Node<'t>,
    /// The children of each wide node met so far, by node id.
    wide: RefCell<HashMap<usize, Vec<Node<'t>>>>,
    /// The root, then each node's child down to the last node asked about: a path of the tree.
    path: RefCell<Vec<Node<'t>>>,
}

impl<'t> Parents<'t> {
    /// Parents of nodes of the tree whose root is `root`.
    pub(super) fn new(root: Node<'t>) -> Parents<'t> {
        Parents { root, wide: RefCell::new(HashMap::new()), path: RefCell::new(vec![root]) }
    }

    /// The parent of `node`, as `node.parent()` gives it.
    pub(super) fn of(&self, node: Node<'t>) -> Option<Node<'t>> {
        let (start, end) = (node.start_byte(), node.end_byte());
        // An empty node may sit between siblings or inside either: tree-sitter decides.
        if start == end || node.id() == self.root.id() || start < self.root.start_byte() || end > self.root.end_byte() {
            return node.parent();
        }
        let mut path = self.path.borrow_mut();
        // On the path (the node asked before, or one of its ancestors): the node above it.
        if let Some(i) = path.iter().rposition(|n| n.id() == node.id()) {
            path.truncate(i + 1);
            return Some(path[i - 1]);
        }
        // Else from the deepest node of the path that spans it. Non-empty nodes that are not
        // one another's ancestors do not overlap, so a node of the path spanning a non-empty
        // node that is not on the path is its ancestor; the root spans every node of its tree.
        while path.len() > 1 && path.last().is_some_and(|n| start < n.start_byte() || n.end_byte() < end) {
            path.pop();
        }
        let mut at = *path.last().expect("the path keeps the root");
        loop {
            let next =
                if at.child_count() >= WIDE { self.wide_child(at, node) } else { at.child_with_descendant(node) };
            match next {
                Some(child) if child.id() == node.id() => {
                    path.push(child);
                    return Some(at);
                }
                Some(child) if child.id() != at.id() => {
                    path.push(child);
                    at = child;
                }
                // Not in this tree (a macro body's own parse), or a case the search left open.
                _ => return node.parent(),
            }
        }
    }

    /// The child of the wide node `at` that is `node` or holds it.
    fn wide_child(&self, at: Node<'t>, node: Node<'t>) -> Option<Node<'t>> {
        let mut wide = self.wide.borrow_mut();
        let children = wide.entry(at.id()).or_insert_with(|| {
            let mut cursor = at.walk();
            at.children(&mut cursor).collect()
        });
        let (start, end) = (node.start_byte(), node.end_byte());
        // Siblings do not overlap, except empty ones: the last child starting at or before a
        // non-empty node is the node, the one holding it, or none that does.
        let last = children.partition_point(|c| c.start_byte() <= start).checked_sub(1).map(|i| children[i]);
        match last {
            Some(child) if child.id() == node.id() => Some(child),
            Some(child) if child.start_byte() < child.end_byte() && end <= child.end_byte() => Some(child),
            _ => at.child_with_descendant(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang;

    /// Every node of `source`'s tree, in order.
    fn every_node(tree: &tree_sitter::Tree) -> Vec<Node<'_>> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        'walk: loop {
            out.push(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        out
    }

    fn parse(grammar: &str, source: &str) -> tree_sitter::Tree {
        let language = lang::LANGUAGES.iter().find(|l| l.grammar == grammar).expect("a known grammar");
        super::super::parse::parse_whole(language, source.as_bytes()).expect("a tree")
    }

    #[test]
    fn every_nodes_parent_is_tree_sitters() {
        let mut wide_c = String::new();
        for i in 0..300 {
            wide_c.push_str(&format!("int f{i}(struct s *p) {{ return g(p->x{i}, {i}); }}\n"));
        }
        wide_c.push_str("static const int table[] = {\n");
        for i in 0..200 {
            wide_c.push_str(&format!("  [{i}] = h{i}, /* entry */\n"));
        }
        wide_c.push_str("};\n");
        let cases = [
            ("c", wide_c),
            // Syntax errors leave missing (empty) nodes and error nodes.
            ("c", "int f( { return (1 + ; }\nstruct { int a int b; };\n".repeat(20)),
            ("python", "import os\n".repeat(40) + "def f(a, b):\n    return [x for x in a if x]\n"),
            ("rust", "fn f() { g!(a, b); }\n".repeat(30) + "impl A { fn b(&self) -> u8 { self.0 } }\n"),
            ("typescript", "export const a = { b: 1, c: [1, 2, 3], d: (x: number) => x };\n".repeat(25)),
        ];
        for (grammar, source) in cases {
            let tree = parse(grammar, &source);
            let parents = Parents::new(tree.root_node());
            // In the file's order, backwards, and in an order that jumps about (each node's
            // parent, then its grandparent, as the references' qualifiers ask).
            let nodes = every_node(&tree);
            let mut asked: Vec<Node<'_>> = nodes.clone();
            asked.extend(nodes.iter().rev());
            asked.extend((0..nodes.len()).map(|i| nodes[(i * 7919) % nodes.len()]));
            asked.extend(
                nodes.iter().filter_map(|n| n.parent()).chain(nodes.iter().filter_map(|n| n.parent()?.parent())),
            );
            for node in asked {
                assert_eq!(
                    parents.of(node).map(|p| p.id()),
                    node.parent().map(|p| p.id()),
                    "{grammar}: the parent of {} at {:?}",
                    node.kind(),
                    node.byte_range()
                );
            }
        }
    }
}
