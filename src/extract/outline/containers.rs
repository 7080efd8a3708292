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
    /// The container whose body holds the item, by its place among the outline's containers
    /// (always before it); `None` for a top-level item.
    pub(super) parent: Option<u32>,
    /// Where the item's parse starts (the item's start, or for an item of a container's body
    /// the start of its line): its header runs from here to the first bound.
    pub(super) start: u32,
    /// Places in the body (the starts of the lines its items start), then the end of the
    /// body's last item.
    pub(super) bounds: Vec<u32>,
    /// Per run between them, the fingerprint of its items in the whole file's parse.
    pub(super) prints: Vec<u64>,
    /// Where the item ends: its footer runs from the last bound to here.
    pub(super) end: u32,
}

/// How many containers deep an outline cuts: a class, its methods, a class inside one.
pub(super) const MAX_DEPTH: usize = 3;

/// Appends to `out` the container items of `item` (a node of a file of `grammar` in
/// top-level run `run`, parsed from `start`, an item of container `parent`'s body if any):
/// itself when it is a container whose body makes two runs or more, or one run holding a
/// container item cut again, then the containers among its items, `depth` levels down at most.
/// In the file's order, each after the container that holds it.
pub(super) fn cut(
    grammar: &str,
    run: usize,
    parent: Option<u32>,
    (item, start): (Node<'_>, usize),
    depth: usize,
    out: &mut Vec<Nested>,
) {
    let Some((family, body)) = body_of(grammar, item) else { return };
    // A body cut again, or holding a container cut again, is longer than this.
    if body.end_byte() - body.start_byte() < (MIN_CHUNK + MIN_CHUNK / 2) as usize {
        return;
    }
    let members = members(body);
    let Some(nested) = Nested::of(run, family, parent, start, item, body, &members) else { return };
    let at = out.len();
    let alone = nested.prints.len() < 2;
    out.push(nested);
    if depth > 1 {
        // An item of a container's body is parsed from the start of its line (Python reads
        // its indentation there), so it must start one.
        for member in members.iter().filter(|m| !m.node.is_extra()) {
            if let Some(line) = member.line {
                cut(grammar, run, Some(at as u32), (member.node, line), depth - 1, out);
            }
        }
    }
    if alone && out.len() == at + 1 {
        out.pop();
    }
}

/// A named child of a container's body, with the start of its line when it starts one.
struct Member<'t> {
    node: Node<'t>,
    line: Option<usize>,
}

/// The named children of `body`, in order. A child starts a line when the token before it
/// (the previous child's last, or the header's) ends on an earlier row.
fn members<'t>(body: Node<'t>) -> Vec<Member<'t>> {
    let mut members = Vec::new();
    let mut before_row = body.prev_sibling().map(|b| b.end_position().row);
    let mut cursor = body.walk();
    let mut more = cursor.goto_first_child();
    while more {
        let node = cursor.node();
        more = cursor.goto_next_sibling();
        let starts_line = before_row.is_some_and(|row| row < node.start_position().row);
        before_row = Some(node.end_position().row);
        if node.is_named() {
            let line = starts_line.then(|| node.start_byte() - node.start_position().column);
            members.push(Member { node, line });
        }
    }
    members
}

impl Nested {
    /// The runs of `members`, the items of `body`, the body of `item` (a container in
    /// top-level run `run`, an item of container `parent`'s body if any, parsed from `start`):
    /// places at the starts of the lines its items start, runs of at least [`MIN_CHUNK`]
    /// bytes; `None` when it has no place.
    fn of(
        run: usize,
        family: u8,
        parent: Option<u32>,
        start: usize,
        item: Node<'_>,
        body: Node<'_>,
        members: &[Member<'_>],
    ) -> Option<Nested> {
        let mut bounds: Vec<u32> = Vec::new();
        for member in members.iter().filter(|m| !m.node.is_extra()) {
            let Some(line) = member.line.map(|l| l as u32) else { continue };
            if line > item.start_byte() as u32 && bounds.last().is_none_or(|&b| line >= b + MIN_CHUNK) {
                bounds.push(line);
            }
        }
        let end = members.last()?.node.end_byte() as u32;
        // A last run shorter than the others joins the one before.
        if bounds.len() > 1 && end < bounds[bounds.len() - 1] + MIN_CHUNK / 2 {
            bounds.pop();
        }
        if bounds.is_empty() || end <= bounds[bounds.len() - 1] {
            return None;
        }
        bounds.push(end);
        let prints = fingerprints(body, &bounds, Scheme::Members);
        Some(Nested {
            run: run as u32,
            family,
            parent,
            start: start as u32,
            bounds,
            prints,
            end: item.end_byte() as u32,
        })
    }
}

/// A kind of container item of a grammar (classes, functions): the kinds that wrap such a
/// container (with the field that holds it), the container kinds (each keeps its items in its
/// `body` field), the kinds of those bodies, and the kind of the one child of a body that
/// holds the items, where the grammar has one (Go's `statement_list`). A family of
/// `callbacks` is instead a statement calling a function whose last argument is a function
/// (`describe('...', () => { ... })`), cut at the items of that function's body.
struct Family {
    wrappers: &'static [(&'static str, &'static str)],
    kinds: &'static [&'static str],
    bodies: &'static [&'static str],
    list: Option<&'static str>,
    callbacks: bool,
}

/// The kinds from a callback container's statement down to the body holding its items, each
/// with the field of its child on that way (`None`: a child with no field).
const CALLBACK_CHAIN: &[(&str, Option<&str>)] = &[
    ("expression_statement", None),
    ("call_expression", Some("arguments")),
    ("arguments", None),
    ("arrow_function", Some("body")),
    ("function_expression", Some("body")),
    ("statement_block", None),
];

impl Family {
    /// Whether a node of `kind` may be the container, its wrapper or its body: a match of
    /// that kind need not lie inside one of its items.
    fn holds(&self, kind: &str) -> bool {
        self.wrappers.iter().any(|(w, _)| *w == kind)
            || self.kinds.contains(&kind)
            || self.bodies.contains(&kind)
            || self.list == Some(kind)
    }

    /// Whether a query whose patterns' roots have `kinds` finds its matches in the items of
    /// such containers, or, at a node of a callback's chain, from the parts of the container
    /// before and after its body (its header and footer): `header_only(kind, field)` says
    /// whether each pattern rooted at `kind` asks only for children of its root other than the
    /// one on the way to the body (by `field`, or with no field).
    fn inside(&self, kinds: &[String], header_only: &dyn Fn(&str, Option<&str>) -> bool) -> bool {
        if self.callbacks {
            return CALLBACK_CHAIN.iter().all(|(k, field)| !kinds.iter().any(|q| q == k) || header_only(k, *field));
        }
        !kinds.iter().any(|k| self.holds(k))
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
            callbacks: false,
        },
        Family {
            wrappers: &[("decorated_definition", "definition")],
            kinds: &["function_definition"],
            bodies: &["block"],
            list: None,
            callbacks: false,
        },
    ];
    const JAVA: &[Family] = &[
        Family {
            wrappers: &[],
            kinds: &["class_declaration", "interface_declaration", "record_declaration"],
            bodies: &["class_body", "interface_body"],
            list: None,
            callbacks: false,
        },
        Family {
            wrappers: &[],
            kinds: &["method_declaration", "constructor_declaration"],
            bodies: &["block", "constructor_body"],
            list: None,
            callbacks: false,
        },
    ];
    const SCRIPT: &[Family] = &[
        Family {
            wrappers: &[("export_statement", "declaration")],
            kinds: &["class_declaration", "abstract_class_declaration"],
            bodies: &["class_body"],
            list: None,
            callbacks: false,
        },
        Family {
            wrappers: &[("export_statement", "declaration")],
            kinds: &["function_declaration", "generator_function_declaration", "method_definition"],
            bodies: &["statement_block"],
            list: None,
            callbacks: false,
        },
        Family { wrappers: &[], kinds: &[], bodies: &[], list: None, callbacks: true },
    ];
    const RUST: &[Family] = &[
        Family {
            wrappers: &[],
            kinds: &["impl_item", "trait_item", "mod_item"],
            bodies: &["declaration_list"],
            list: None,
            callbacks: false,
        },
        Family { wrappers: &[], kinds: &["function_item"], bodies: &["block"], list: None, callbacks: false },
    ];
    const C: &[Family] = &[Family {
        wrappers: &[],
        kinds: &["function_definition"],
        bodies: &["compound_statement"],
        list: None,
        callbacks: false,
    }];
    const CPP: &[Family] = &[
        Family {
            wrappers: &[],
            kinds: &["namespace_definition", "linkage_specification"],
            bodies: &["declaration_list"],
            list: None,
            callbacks: false,
        },
        Family {
            wrappers: &[],
            kinds: &["function_definition"],
            bodies: &["compound_statement"],
            list: None,
            callbacks: false,
        },
    ];
    const GO: &[Family] = &[Family {
        wrappers: &[],
        kinds: &["function_declaration", "method_declaration"],
        bodies: &["block"],
        list: Some("statement_list"),
        callbacks: false,
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

/// The family of `item`, a top-level node of a file of `grammar` or an item of a container's
/// body, and the body that holds its items, when it is a container.
pub(super) fn body_of<'t>(grammar: &str, item: Node<'t>) -> Option<(u8, Node<'t>)> {
    for (i, family) in families(grammar).iter().enumerate() {
        if family.callbacks {
            match callback_body(item) {
                Some(body) => return Some((i as u8, body)),
                None => continue,
            }
        }
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

/// The body of the function `item` calls with a function as its last argument, when `item`
/// is such a call statement (see [`CALLBACK_CHAIN`]) whose header and footer (everything but
/// the body) hold no syntax error: a query may read them from a run's parse, so they must be
/// what error recovery cannot arrange otherwise.
fn callback_body(item: Node<'_>) -> Option<Node<'_>> {
    if item.kind() != "expression_statement" {
        return None;
    }
    let call = item.named_child(0).filter(|c| c.kind() == "call_expression")?;
    let arguments = call.child_by_field_name("arguments").filter(|a| a.kind() == "arguments")?;
    let last = arguments.named_child(u32::try_from(arguments.named_child_count().checked_sub(1)?).ok()?)?;
    if !matches!(last.kind(), "arrow_function" | "function_expression") {
        return None;
    }
    let body = last.child_by_field_name("body").filter(|b| b.kind() == "statement_block")?;
    let clean = |node: Node<'_>, next: Node<'_>| {
        let mut cursor = node.walk();
        node.children(&mut cursor).all(|child| child.id() == next.id() || !child.has_error())
    };
    (clean(item, call) && clean(call, arguments) && clean(arguments, last) && clean(last, body)).then_some(body)
}

/// The families of `grammar`'s containers (a bit each, by number) whose items hold every match
/// of a query whose patterns' roots have `kinds`: no root may be such a container, its wrapper
/// or its body, or, for a callback, none may ask there for more than the header and footer
/// show (`header_only`, see [`Family::inside`]). Those matches are found by a parse of the
/// item's run with its container's header and footer.
pub fn families_inside(grammar: &str, kinds: &[String], header_only: &dyn Fn(&str, Option<&str>) -> bool) -> u32 {
    let families = families(grammar);
    (0..families.len()).filter(|&i| families[i].inside(kinds, header_only)).fold(0, |mask, i| mask | 1 << i)
}

/// Every kind of `grammar` that may be a container, its wrapper, its body or its list.
#[cfg(test)]
pub fn chain_kinds(grammar: &str) -> Vec<&'static str> {
    families(grammar)
        .iter()
        .flat_map(|f| {
            let wrappers = f.wrappers.iter().map(|(w, _)| *w);
            let callbacks = CALLBACK_CHAIN.iter().filter(|_| f.callbacks).map(|(k, _)| *k);
            wrappers.chain(f.kinds.iter().copied()).chain(f.bodies.iter().copied()).chain(f.list).chain(callbacks)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_a_callback_container_only_with_a_function_last_and_no_error_around_its_body() {
        let body = |source: &str| {
            let language = crate::lang::by_name("typescript").unwrap();
            let tree = crate::extract::parse_whole(language, source.as_bytes()).unwrap();
            let item = tree.root_node().named_child(0).unwrap();
            body_of("typescript", item).map(|(family, body)| (family, body.start_position().row))
        };
        assert_eq!(body("describe('x', () => {\n  it('a', () => {})\n})\n"), Some((2, 0)));
        assert_eq!(body("describe.each([1])('x', function (k) {\n  go(k)\n})\n"), Some((2, 0)));
        // Not the last argument, not a function, no block, an error in the header.
        assert_eq!(body("it('x', () => {\n  go()\n}, 1000)\n"), None);
        assert_eq!(body("run('x', options)\n"), None);
        assert_eq!(body("it('x', () => go())\n"), None);
        assert_eq!(body("describe('x' 'y', () => {\n  go()\n})\n"), None);
        // An error inside the body is the runs' to find, not the header's.
        assert_eq!(body("describe('x', () => {\n  go(\n})\n").map(|(family, _)| family), Some(2));
    }

    #[test]
    fn a_query_keeps_the_families_of_containers_its_roots_cannot_be() {
        let kinds = |k: &[&str]| k.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>();
        let never = |_: &str, _: Option<&str>| false;
        let inside = |grammar: &str, k: &[&str]| families_inside(grammar, &kinds(k), &never);
        // Python: classes are family 0, functions 1.
        assert_eq!(inside("python", &["call"]), 0b11);
        assert_eq!(inside("python", &["function_definition"]), 0b01);
        assert_eq!(inside("python", &["class_definition", "call"]), 0b10);
        assert_eq!(inside("python", &["decorated_definition"]), 0);
        assert_eq!(inside("python", &["block"]), 0);
        assert_eq!(inside("go", &["statement_list"]), 0);
        assert_eq!(inside("c", &["call_expression"]), 0b1);
        assert_eq!(inside("php", &["call"]), 0);
        // TypeScript: classes 0, functions 1, callbacks 2. A call may be a callback's; it is
        // kept when the patterns rooted at calls ask only for what the header shows.
        assert_eq!(inside("typescript", &["call_expression"]), 0b011);
        assert_eq!(inside("typescript", &["throw_statement"]), 0b111);
        let header = |kind: &str, field: Option<&str>| kind == "call_expression" && field == Some("arguments");
        assert_eq!(families_inside("typescript", &kinds(&["call_expression"]), &header), 0b111);
        assert_eq!(families_inside("typescript", &kinds(&["call_expression", "arguments"]), &header), 0b011);
        assert_eq!(families_inside("typescript", &kinds(&["statement_block"]), &header), 0b001);
    }
}
