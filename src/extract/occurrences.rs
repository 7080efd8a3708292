//! The references of one blob: calls, type uses, imports and other names worth keeping, each
//! with the symbol it sits in. This is the per-blob half of the symbol graph; which definition
//! a reference means is decided per view (`crate::graph`), because the same blob can mean
//! something else at another ref.

use std::collections::HashSet;

use tree_sitter::Node;

use super::parents::Parents;
use super::{Symbol, clean_name, node_text};

/// What a reference does with the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefKind {
    /// An import, include or `use`: the name is the module or path as written.
    Import,
    /// A call or an instantiation.
    Call,
    /// A type named in an annotation, a declaration, a cast.
    Type,
    /// Any other use worth keeping: a function passed as a value, an attribute read.
    Name,
    /// A name imported from a module (`a` of Python's `from m import a`); the qualifier is the
    /// module as written.
    ImportName,
    /// No use: a value bound to a local name, kept to type receivers. The name is the name
    /// bound (`return` for what a function returns or yields), the qualifier the value as
    /// written when it is a name, a member chain or a call of one (`app`, `self.app`,
    /// `Flask()`, `app.test_client()`), empty for any other value (`x = a[0]`, a loop's
    /// element).
    Binding,
}

impl RefKind {
    /// The kind as the captures and the JSON name it.
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Import => "import",
            RefKind::Call => "call",
            RefKind::Type => "type",
            RefKind::Name => "name",
            RefKind::ImportName => "import_name",
            RefKind::Binding => "binding",
        }
    }

    /// The kind of a capture `@reference.<suffix>`: `call` and `class` (an instantiation) are
    /// calls; `type`, `import`; anything else (`name`, `variable`, `table`) is a name.
    pub(super) fn of_capture(suffix: &str) -> RefKind {
        match suffix {
            "call" | "class" => RefKind::Call,
            "type" | "implementation" => RefKind::Type,
            "import" => RefKind::Import,
            "import_name" => RefKind::ImportName,
            "binding" => RefKind::Binding,
            _ => RefKind::Name,
        }
    }

    /// The kind stored as `code`.
    pub fn from_code(code: u8) -> Option<RefKind> {
        Some(match code {
            0 => RefKind::Import,
            1 => RefKind::Call,
            2 => RefKind::Type,
            3 => RefKind::Name,
            4 => RefKind::ImportName,
            5 => RefKind::Binding,
            _ => return None,
        })
    }

    /// Which kind wins when two captures take the same name node: the lower.
    fn strength(self) -> u8 {
        match self {
            RefKind::ImportName => 3,
            RefKind::Name => 4,
            RefKind::Binding => 5,
            other => other.code(),
        }
    }

    /// The stored code of the kind.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Whether occurrences of this kind are uses of their name (every kind but bindings).
    pub fn is_use(self) -> bool {
        self != RefKind::Binding
    }
}

/// One reference. Lines are 1-based; columns are 1-based byte offsets in the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// What the reference does.
    pub kind: RefKind,
    /// The name as written (for an import, the module or path as written, quotes removed).
    pub name: String,
    /// What was written before the name (`self`, `os.path`, `crate::index`), empty when none;
    /// for an import, the name it binds when it renames the module (`import json as _json`);
    /// for an imported name, the module it comes from.
    pub qualifier: String,
    /// Line of the name.
    pub line: u32,
    /// Column of the name.
    pub column: u32,
    /// The index of the innermost symbol of the same extraction the reference sits in.
    pub caller: Option<u32>,
}

/// A reference found by the query, before it is placed in its symbol.
pub(super) struct FoundRef<'t> {
    pub name_node: Node<'t>,
    pub kind: RefKind,
}

/// A value bound to a name, found by the query: `@name` (none for a return or a yield) and
/// `@value` (none where the name is bound to something the code does not spell, a loop's
/// element) of a `@reference.binding` match.
pub(super) struct FoundBinding<'t> {
    pub name_node: Option<Node<'t>>,
    pub value: Option<Node<'t>>,
}

/// Whether `node` names a JSX element that is an HTML element (`<main>`, `<my-widget>`): a
/// lower-case name is no name of the code, as JSX reads it. The parent is asked for only
/// after a `<` or `</` (asking walks down from the root).
fn html_element<'t>(node: Node<'t>, name: &str, source: &[u8], parents: &Parents<'t>) -> bool {
    let before = source.get(..node.start_byte()).unwrap_or_default().trim_ascii_end();
    if !matches!(before.last(), Some(b'<' | b'/'))
        || !(name.starts_with(|c: char| c.is_ascii_lowercase()) || name.contains('-'))
    {
        return false;
    }
    parents.of(node).is_some_and(|p| {
        matches!(p.kind(), "jsx_opening_element" | "jsx_closing_element" | "jsx_self_closing_element")
            && p.child_by_field_name("name").is_some_and(|n| n.id() == node.id())
    })
}

/// Longest qualifier kept: a receiver chain longer than this is cut from the left.
pub const MAX_QUALIFIER: usize = 80;

/// Turns the query's reference matches into occurrences: one per name node (the strongest kind
/// wins), none on a definition's own name, none on a bare name bound locally in the same
/// symbol (`local_definitions`: a parameter, a local assignment), each placed in its innermost
/// symbol.
pub(super) fn collect<'t>(
    source: &[u8],
    mut found: Vec<FoundRef<'t>>,
    definition_names: &HashSet<usize>,
    local_definitions: &[Node<'t>],
    bindings: &[FoundBinding<'t>],
    symbols: &[Symbol],
    parents: &Parents<'t>,
) -> Vec<Occurrence> {
    // `mod x;` names a definition and imports a file: imports keep their node.
    found.retain(|f| f.kind == RefKind::Import || !definition_names.contains(&f.name_node.id()));
    found.sort_by_key(|f| (f.name_node.start_byte(), f.name_node.end_byte(), f.kind.strength()));
    found.dedup_by(|later, earlier| later.name_node.id() == earlier.name_node.id());

    let callers = innermost(symbols, found.iter().map(|f| f.name_node.start_byte()));
    // Locals by the symbol that binds them; a type parameter is seen in the whole of what
    // declares it (`interface Family<Param> { remove(param: Param): void }`).
    let mut locals: HashSet<(Option<u32>, &str)> = HashSet::new();
    let mut type_parameters: HashSet<(u32, &str)> = HashSet::new();
    {
        let starts: Vec<usize> = local_definitions.iter().map(|n| n.start_byte()).collect();
        let mut order: Vec<usize> = (0..starts.len()).collect();
        order.sort_by_key(|&i| starts[i]);
        let sorted: Vec<usize> = order.iter().map(|&i| starts[i]).collect();
        let owners = innermost(symbols, sorted.iter().copied());
        for (&i, owner) in order.iter().zip(owners) {
            let Some(owner) = owner else { continue };
            let node = local_definitions[i];
            let name = node_text(node, source);
            locals.insert((Some(owner), name));
            if parents.of(node).is_some_and(|p| matches!(p.kind(), "type_parameter" | "type_parameter_declaration")) {
                type_parameters.insert((owner, name));
            }
        }
    }
    let type_parameter_in_scope = |caller: Option<u32>, name: &str| {
        let mut at = caller;
        while let Some(symbol) = at {
            if type_parameters.contains(&(symbol, name)) {
                return true;
            }
            at = symbols.get(symbol as usize).and_then(|s| s.parent);
        }
        false
    };
    let local_nodes: HashSet<usize> = local_definitions.iter().map(|n| n.id()).collect();

    let mut out = Vec::with_capacity(found.len());
    for (f, caller) in found.iter().zip(callers) {
        if local_nodes.contains(&f.name_node.id()) {
            continue;
        }
        let raw = node_text(f.name_node, source);
        let name = if f.kind == RefKind::Import { import_text(raw) } else { clean_name(raw) };
        if name.is_empty() || html_element(f.name_node, &name, source, parents) {
            continue;
        }
        let qualifier = match f.kind {
            RefKind::Import => import_alias(f.name_node, source, parents),
            RefKind::ImportName => import_source(f.name_node, source, parents),
            _ => qualifier(f.name_node, source, parents),
        };
        // A local is named bare: `options.storage` is a member even where the function binds
        // a `storage` of its own.
        if f.kind != RefKind::Import
            && qualifier.is_empty()
            && (locals.contains(&(caller, name.as_str())) || type_parameter_in_scope(caller, &name))
        {
            continue;
        }
        let position = f.name_node.start_position();
        out.push(Occurrence {
            kind: f.kind,
            qualifier,
            name,
            line: position.row as u32 + 1,
            column: position.column as u32 + 1,
            caller,
        });
    }
    if !bindings.is_empty() {
        let mut found: Vec<(Node<'_>, String, String, tree_sitter::Point)> = bindings
            .iter()
            .filter_map(|b| {
                // A name bound to a value of no known shape is kept with an empty value: it is
                // still the function's own name, whatever the module has of that name.
                let looped = b.value.and_then(|v| looped_over(v, parents));
                let value = b.value.and_then(|v| binding_value(v, looped.is_some(), source));
                let at = b.name_node.or(b.value)?;
                let name = match b.name_node {
                    Some(n) => node_text(n, source).to_owned(),
                    None if value.is_some() => "return".to_owned(),
                    None => return None,
                };
                // A loop's variable is bound where its body starts: after what a `for` loops
                // over, at the start of a comprehension (its element comes first).
                let position = match looped {
                    Some(l) if l.kind() == "for_in_clause" => parents.of(l).unwrap_or(l).start_position(),
                    Some(_) => b.value.map_or(at.start_position(), |v| v.end_position()),
                    None => at.start_position(),
                };
                Some((at, name, value.unwrap_or_default(), position))
            })
            .collect();
        found.sort_by_key(|(at, ..)| at.start_byte());
        found.dedup_by_key(|(at, ..)| at.start_byte());
        let callers = innermost(symbols, found.iter().map(|(at, ..)| at.start_byte()));
        for ((_, name, value, position), caller) in found.into_iter().zip(callers) {
            out.push(Occurrence {
                kind: RefKind::Binding,
                name,
                qualifier: value,
                line: position.row as u32 + 1,
                column: position.column as u32 + 1,
                caller,
            });
        }
        out.sort_by_key(|o| (o.line, o.column));
    }
    out
}

/// A bound value as a binding keeps it: a name or a member chain (`app`, `self.app`), a call
/// of one with its arguments left out (`Flask()`, `app.test_client()`), and chains of those
/// (`requests.Request().prepare()`); `await x` and `(x)` as `x`, `next(x)` as an element of
/// `x`. A loop's iterable is kept as an element of it, `[]` after the chain (`for c in jar`
/// binds `c` to `jar[]`, `iter(jar)` and `sorted(jar)` as `jar[]` too). `None` for any other
/// value, and for one longer than a qualifier.
fn binding_value(node: Node<'_>, looped: bool, source: &[u8]) -> Option<String> {
    let text = if looped { element_chain(node, source)? } else { value_chain(node, source)? };
    (text.len() <= MAX_QUALIFIER).then_some(text)
}

/// The loop (`for_statement`, `for_in_clause`) whose iterable `node` is.
fn looped_over<'t>(node: Node<'t>, parents: &Parents<'t>) -> Option<Node<'t>> {
    parents.of(node).filter(|p| {
        matches!(p.kind(), "for_statement" | "for_in_clause")
            && p.child_by_field_name("right").is_some_and(|r| r.id() == node.id())
    })
}

/// What a loop over `node` binds its variable to: an element of the chain, `jar[]`.
fn element_chain(node: Node<'_>, source: &[u8]) -> Option<String> {
    // `iter(x)`, `reversed(x)`, `sorted(x)`, `list(x)`... hold the elements of `x`.
    if node.kind() == "call"
        && let Some(function) = node.child_by_field_name("function")
        && matches!(node_text(function, source), "iter" | "reversed" | "sorted" | "list" | "tuple" | "set")
        && let Some(arguments) = node.child_by_field_name("arguments")
        && arguments.named_child_count() == 1
        && let Some(argument) = arguments.named_child(0)
        && argument.kind() != "keyword_argument"
    {
        return element_chain(argument, source);
    }
    value_chain(node, source).map(|chain| format!("{chain}[]"))
}

/// A name, member or call chain with the calls' arguments left out (`a.b().c`), or `None`.
fn value_chain(node: Node<'_>, source: &[u8]) -> Option<String> {
    match node.kind() {
        "identifier" => Some(node_text(node, source).to_owned()),
        "dotted_name" => {
            let text: String = node_text(node, source).split_whitespace().collect();
            let plain = text.split('.').all(|s| {
                !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.starts_with(char::is_numeric)
            });
            plain.then_some(text)
        }
        "attribute" => {
            let object = value_chain(node.child_by_field_name("object")?, source)?;
            let attribute = node.child_by_field_name("attribute").filter(|a| a.kind() == "identifier")?;
            Some(format!("{object}.{}", node_text(attribute, source)))
        }
        "call" => {
            let function = node.child_by_field_name("function")?;
            // `next(it)`, `next(it, None)`: an element of `it`.
            if node_text(function, source) == "next"
                && let Some(iterator) = node.child_by_field_name("arguments").and_then(|a| a.named_child(0))
                && iterator.kind() != "keyword_argument"
            {
                return element_chain(iterator, source);
            }
            value_chain(function, source).map(|f| format!("{f}()"))
        }
        "await" | "parenthesized_expression" => value_chain(node.named_child(0)?, source),
        _ => None,
    }
}

/// For positions in ascending order, the index of the innermost symbol whose byte range holds
/// each. Symbols are ordered by start, outer before inner.
fn innermost(symbols: &[Symbol], positions: impl Iterator<Item = usize>) -> Vec<Option<u32>> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    for at in positions {
        let at = at as u32;
        while next < symbols.len() && symbols[next].byte_start <= at {
            while stack.last().is_some_and(|&s| symbols[s].byte_end <= symbols[next].byte_start) {
                stack.pop();
            }
            stack.push(next);
            next += 1;
        }
        while stack.last().is_some_and(|&s| symbols[s].byte_end <= at) {
            stack.pop();
        }
        // A symbol that ended before `at` may sit below one that still holds it.
        out.push(
            stack.iter().rev().find(|&&s| symbols[s].byte_start <= at && at < symbols[s].byte_end).map(|&s| s as u32),
        );
    }
    out
}

/// The text written before a member name, up to the enclosing member or scoped expression:
/// `self` in `self.greet`, `os.path` in `os.path.join`, `Index` in `Index::find`.
fn qualifier<'t>(name: Node<'t>, source: &[u8], parents: &Parents<'t>) -> String {
    let Some(parent) = parents.of(name) else {
        return String::new();
    };
    // `StoreApi<S>['setState']`: the type before the brackets, without its arguments.
    if name.kind() == "string_fragment"
        && let Some(lookup) = parents.of(parent).and_then(|l| parents.of(l)).filter(|l| l.kind() == "lookup_type")
        && let Some(object) = lookup.named_child(0)
    {
        let text = node_text(object, source);
        let base = text.split('<').next().unwrap_or(text).trim();
        let plain =
            !base.is_empty() && base.split('.').all(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$'));
        return if plain && base.len() <= MAX_QUALIFIER { base.to_owned() } else { String::new() };
    }
    if parent.kind() == "pair" {
        return argument_key(parent, source, parents).unwrap_or_default();
    }
    if parent.start_byte() >= name.start_byte() {
        return String::new();
    }
    // Only member-like parents: a call's own function name has no qualifier.
    let kind = parent.kind();
    // Tokens in a macro's arguments: `a.b(` or `A::b(` have no member node, only siblings.
    if kind == "token_tree" {
        let Some(separator) = name.prev_sibling() else {
            return String::new();
        };
        if !matches!(separator.kind(), "." | "::" | "->") {
            return String::new();
        }
        return match separator.prev_sibling() {
            Some(owner) if matches!(owner.kind(), "identifier" | "self" | "super" | "crate") => {
                super::node_text(owner, source).to_owned()
            }
            // A call's result or an index: a receiver of unknown type.
            _ => "_".to_owned(),
        };
    }
    let member_like =
        ["member", "attribute", "field", "scoped", "qualified", "selector", "navigation", "access", "index"]
            .iter()
            .any(|k| kind.contains(k));
    if !member_like {
        return String::new();
    }
    let text = std::str::from_utf8(&source[parent.start_byte()..name.start_byte()]).unwrap_or("");
    let trimmed = text.trim_end().trim_end_matches(['.', ':', '>', '-', '?', '\\', '#']).trim_end();
    let collapsed: String = trimmed.split_whitespace().collect::<Vec<_>>().join("");
    if collapsed.len() > MAX_QUALIFIER {
        let cut = collapsed.len() - MAX_QUALIFIER;
        let start = (cut..collapsed.len()).find(|&i| collapsed.is_char_boundary(i)).unwrap_or(collapsed.len());
        collapsed[start..].to_owned()
    } else {
        collapsed
    }
}

/// Which call and argument an object literal's key is passed to: `persist()#1` for the key of
/// `persist(fn, {name: "x"})` (the callee's last name, the argument's position from 0).
fn argument_key<'t>(pair: Node<'t>, source: &[u8], parents: &Parents<'t>) -> Option<String> {
    let object = parents.of(pair).filter(|o| o.kind() == "object")?;
    let arguments = parents.of(object).filter(|a| a.kind() == "arguments")?;
    let call = parents.of(arguments).filter(|c| c.kind() == "call_expression")?;
    let mut cursor = arguments.walk();
    let index =
        arguments.named_children(&mut cursor).filter(|n| n.kind() != "comment").position(|n| n.id() == object.id())?;
    let function = call.child_by_field_name("function")?;
    let callee = match function.kind() {
        "identifier" => function,
        "member_expression" => function.child_by_field_name("property")?,
        _ => return None,
    };
    Some(format!("{}()#{index}", node_text(callee, source)))
}

/// The name an import binds instead of the module's own (`_json` of `import json as _json`),
/// empty when none.
fn import_alias<'t>(module: Node<'t>, source: &[u8], parents: &Parents<'t>) -> String {
    parents
        .of(module)
        .filter(|p| p.kind() == "aliased_import")
        .and_then(|p| p.child_by_field_name("alias"))
        .map_or_else(String::new, |alias| node_text(alias, source).to_owned())
}

/// The module an imported name comes from, as written: `.sansio.app` of
/// `from .sansio.app import App`.
fn import_source<'t>(name: Node<'t>, source: &[u8], parents: &Parents<'t>) -> String {
    let mut node = name;
    for _ in 0..4 {
        let Some(parent) = parents.of(node) else { break };
        if let Some(module) = parent.child_by_field_name("module_name").or_else(|| parent.child_by_field_name("source"))
        {
            return import_text(node_text(module, source));
        }
        node = parent;
    }
    String::new()
}

/// An import's module or path as written: quotes and angle brackets removed, no whitespace.
fn import_text(raw: &str) -> String {
    // A grammar without a node for the path alone gives the whole statement (Scala).
    let mut trimmed = raw.trim().trim_end_matches(';').trim();
    for keyword in ["import ", "using ", "use ", "static "] {
        trimmed = trimmed.strip_prefix(keyword).map_or(trimmed, str::trim_start);
    }
    let unquoted = trimmed
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .or_else(|| ['"', '\'', '`'].iter().find_map(|q| trimmed.strip_prefix(*q).and_then(|t| t.strip_suffix(*q))))
        .unwrap_or(trimmed);
    unquoted.split_whitespace().collect()
}
