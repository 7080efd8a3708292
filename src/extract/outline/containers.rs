//! Container items (classes, impl blocks, namespaces, functions) whose bodies an outline cuts
//! again at their items, by families per grammar, and the runs of those items.

use tree_sitter::Node;

use super::{MIN_CHUNK, Scheme, fingerprints};

/// A container item whose body is cut at its items: the runs of them parse alone with the
/// header and footer around them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Nested {
    /// The top-level run that holds the item.
    pub(super) run: u32,
    /// The item's family (see [`families`]).
    pub(super) family: u8,
    /// Where the item starts: its header runs from here to the first bound.
    pub(super) start: u32,
    /// Places in the body (the starts of the lines its items start), then the end of the
    /// body's last item.
    pub(super) bounds: Vec<u32>,
    /// Per run between them, the fingerprint of its items in the whole file's parse.
    pub(super) prints: Vec<u64>,
    /// Where the item ends: its footer runs from the last bound to here.
    pub(super) end: u32,
}

impl Nested {
    /// The runs of the items of `body`, the body of `item` (a container in top-level run
    /// `run`): places at the starts of the lines its items start, runs of at least
    /// [`MIN_CHUNK`] bytes; `None` when that makes fewer than two runs.
    pub(super) fn of(run: usize, family: u8, item: Node<'_>, body: Node<'_>) -> Option<Nested> {
        // Two runs need more bytes than this.
        if body.end_byte() - body.start_byte() < (MIN_CHUNK + MIN_CHUNK / 2) as usize {
            return None;
        }
        let mut bounds: Vec<u32> = Vec::new();
        let mut last_end = None;
        // The row the token before a child ends on: the previous child's last, or the
        // header's; a child starts a line when it starts on a later row.
        let mut before_row = body.prev_sibling().map(|b| b.end_position().row);
        let mut cursor = body.walk();
        let mut more = cursor.goto_first_child();
        while more {
            let child = cursor.node();
            more = cursor.goto_next_sibling();
            let starts_line = before_row.is_some_and(|row| row < child.start_position().row);
            before_row = Some(child.end_position().row);
            if !child.is_named() {
                continue;
            }
            last_end = Some(child.end_byte() as u32);
            if child.is_extra() || !starts_line {
                continue;
            }
            let line = (child.start_byte() - child.start_position().column) as u32;
            if line > item.start_byte() as u32 && bounds.last().is_none_or(|&b| line >= b + MIN_CHUNK) {
                bounds.push(line);
            }
        }
        let end = last_end?;
        // A last run shorter than the others joins the one before.
        if bounds.len() > 1 && end < bounds[bounds.len() - 1] + MIN_CHUNK / 2 {
            bounds.pop();
        }
        if bounds.len() < 2 || end <= bounds[bounds.len() - 1] {
            return None;
        }
        bounds.push(end);
        let prints = fingerprints(body, &bounds, Scheme::Members);
        Some(Nested {
            run: run as u32,
            family,
            start: item.start_byte() as u32,
            bounds,
            prints,
            end: item.end_byte() as u32,
        })
    }
}

/// A kind of container item of a grammar (classes, functions): the kinds that wrap such a
/// container (with the field that holds it), the container kinds (each keeps its items in its
/// `body` field), the kinds of those bodies, and the kind of the one child of a body that
/// holds the items, where the grammar has one (Go's `statement_list`).
struct Family {
    wrappers: &'static [(&'static str, &'static str)],
    kinds: &'static [&'static str],
    bodies: &'static [&'static str],
    list: Option<&'static str>,
}

impl Family {
    /// Whether a node of `kind` may be the container, its wrapper or its body: a match of
    /// that kind need not lie inside one of its items.
    fn holds(&self, kind: &str) -> bool {
        self.wrappers.iter().any(|(w, _)| *w == kind)
            || self.kinds.contains(&kind)
            || self.bodies.contains(&kind)
            || self.list == Some(kind)
    }
}

/// The families of container items of `grammar`, in the order an outline numbers them (a
/// stored outline names its containers' families by that number: append, never reorder).
fn families(grammar: &str) -> &'static [Family] {
    const PYTHON: &[Family] = &[
        Family {
            wrappers: &[("decorated_definition", "definition")],
            kinds: &["class_definition"],
            bodies: &["block"],
            list: None,
        },
        Family {
            wrappers: &[("decorated_definition", "definition")],
            kinds: &["function_definition"],
            bodies: &["block"],
            list: None,
        },
    ];
    const JAVA: &[Family] = &[Family {
        wrappers: &[],
        kinds: &["class_declaration", "interface_declaration", "record_declaration"],
        bodies: &["class_body", "interface_body"],
        list: None,
    }];
    const SCRIPT: &[Family] = &[
        Family {
            wrappers: &[("export_statement", "declaration")],
            kinds: &["class_declaration", "abstract_class_declaration"],
            bodies: &["class_body"],
            list: None,
        },
        Family {
            wrappers: &[("export_statement", "declaration")],
            kinds: &["function_declaration", "generator_function_declaration"],
            bodies: &["statement_block"],
            list: None,
        },
    ];
    const RUST: &[Family] = &[
        Family {
            wrappers: &[],
            kinds: &["impl_item", "trait_item", "mod_item"],
            bodies: &["declaration_list"],
            list: None,
        },
        Family { wrappers: &[], kinds: &["function_item"], bodies: &["block"], list: None },
    ];
    const C: &[Family] =
        &[Family { wrappers: &[], kinds: &["function_definition"], bodies: &["compound_statement"], list: None }];
    const CPP: &[Family] = &[
        Family {
            wrappers: &[],
            kinds: &["namespace_definition", "linkage_specification"],
            bodies: &["declaration_list"],
            list: None,
        },
        Family { wrappers: &[], kinds: &["function_definition"], bodies: &["compound_statement"], list: None },
    ];
    const GO: &[Family] = &[Family {
        wrappers: &[],
        kinds: &["function_declaration", "method_declaration"],
        bodies: &["block"],
        list: Some("statement_list"),
    }];
    match grammar {
        "python" => PYTHON,
        "java" => JAVA,
        "javascript" | "typescript" | "tsx" => SCRIPT,
        "rust" => RUST,
        "c" => C,
        "cpp" => CPP,
        "go" => GO,
        _ => &[],
    }
}

/// The family of `item`, a top-level node of a file of `grammar`, and the body that holds its
/// items, when it is a container.
pub(super) fn body_of<'t>(grammar: &str, item: Node<'t>) -> Option<(u8, Node<'t>)> {
    for (i, family) in families(grammar).iter().enumerate() {
        let mut node = item;
        if let Some((_, field)) = family.wrappers.iter().find(|(kind, _)| *kind == node.kind()) {
            match node.child_by_field_name(field) {
                Some(inner) => node = inner,
                None => continue,
            }
        }
        if family.kinds.contains(&node.kind()) {
            let body = node.child_by_field_name("body").filter(|body| family.bodies.contains(&body.kind()))?;
            let body = match family.list {
                Some(list) => body.named_child(0).filter(|child| child.kind() == list)?,
                None => body,
            };
            return Some((i as u8, body));
        }
    }
    None
}

/// The families of `grammar`'s containers (a bit each, by number) whose items hold every match
/// of a query whose patterns' roots have `kinds`: no root may be such a container, its wrapper
/// or its body. Those matches are found by a parse of the item's run with its container's
/// header and footer.
pub fn families_inside(grammar: &str, kinds: &[String]) -> u32 {
    let families = families(grammar);
    (0..families.len()).filter(|&i| !kinds.iter().any(|k| families[i].holds(k))).fold(0, |mask, i| mask | 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_keeps_the_families_of_containers_its_roots_cannot_be() {
        let kinds = |k: &[&str]| k.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>();
        // Python: classes are family 0, functions 1.
        assert_eq!(families_inside("python", &kinds(&["call"])), 0b11);
        assert_eq!(families_inside("python", &kinds(&["function_definition"])), 0b01);
        assert_eq!(families_inside("python", &kinds(&["class_definition", "call"])), 0b10);
        assert_eq!(families_inside("python", &kinds(&["decorated_definition"])), 0);
        assert_eq!(families_inside("python", &kinds(&["block"])), 0);
        assert_eq!(families_inside("go", &kinds(&["statement_list"])), 0);
        assert_eq!(families_inside("c", &kinds(&["call_expression"])), 0b1);
        assert_eq!(families_inside("php", &kinds(&["call"])), 0);
    }
}
