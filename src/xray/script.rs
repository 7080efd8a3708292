//! The script evaluator: a Rhai script run on each candidate file's syntax tree, in a sandbox.
//!
//! The script sees `root` (the file's root node), `source`, `lang`, `file_path` and
//! `match_positions` (the driver's matches: maps of `start`, `end` (bytes), `line`, `column`),
//! and returns its matches: a node, a map `#{node: n, value: v}`, a map of a line range
//! `#{line: l, end_line: e, value: v}` or of a byte range `#{start: s, end: e, value: v}`, or
//! an array of those. Nodes have `kind`, `text`, `is_named`, `has_error`, `start_line`,
//! `end_line`, `start_column`, `end_column`, `start_byte`, `end_byte`, `parent`, `children`,
//! `named_children`, `child_count`, `field_name`, the siblings, and the methods `child(i)`,
//! `field(name)`, `fields(name)`, `descendants()`, `descendants(kind)`, `ancestors()`,
//! `node_at(byte)`, `contains(node)` and `query(pattern)` (a tree-sitter query run on the
//! node: an array of maps from capture name to node).
//!
//! The sandbox: no file, network or process access (Rhai has none, `import` finds no module
//! and `eval` is disabled), an operation budget and a wall-clock budget per file, caps on
//! string, array and map sizes and on call and expression depth. Breaking one is an error of
//! that file, reported with its kind; the other files still answer.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rhai::{AST, Array, Dynamic, Engine, EvalAltResult, INT, Map, Position, Scope};
use tree_sitter::{Node, Query, QueryCursor, StreamingIterator, Tree};

use super::lines::Lines;
use super::{Found, XrayError, clip};

/// The sandbox's budgets.
#[derive(Clone, Copy, Debug)]
pub struct ScriptLimits {
    /// Operations per file (Rhai counts an expression node, a call, a loop turn each as one).
    pub max_operations: u64,
    /// Wall-clock time per file.
    pub file_time: Duration,
}

impl Default for ScriptLimits {
    fn default() -> ScriptLimits {
        ScriptLimits { max_operations: 1_000_000, file_time: Duration::from_secs(2) }
    }
}

/// Longest string a script may build (bytes).
const MAX_STRING: usize = 16 << 20;
/// Most elements in one array (and nodes one helper returns).
const MAX_ARRAY: usize = 200_000;
/// Most entries in one map.
const MAX_MAP: usize = 10_000;
/// Deepest call stack.
const MAX_CALL_LEVELS: usize = 64;
/// Deepest expression nesting, at the top level and in functions.
const MAX_EXPR_DEPTH: usize = 128;
/// Matches one file may give.
const MAX_RESULTS_PER_FILE: usize = 100_000;

/// A parsed file the script's nodes point into.
struct FileTree {
    tree: Tree,
    source: Vec<u8>,
    lang: &'static str,
}

/// A node handed to a script. It keeps its file alive, so the node it wraps stays valid.
#[derive(Clone)]
struct XNode {
    node: Node<'static>,
    file: Rc<FileTree>,
}

impl XNode {
    fn root(file: Rc<FileTree>) -> XNode {
        let node = file.tree.root_node();
        // SAFETY: a `Node` points into its `Tree`'s heap allocation, which does not move when
        // the `Tree` value does. Every `XNode` holds an `Rc` of the `FileTree` that owns that
        // tree, so the tree outlives every node made from it; the `'static` lifetime is never
        // exposed outside this module.
        let node = unsafe { std::mem::transmute::<Node<'_>, Node<'static>>(node) };
        XNode { node, file }
    }

    fn wrap(&self, node: Node<'_>) -> XNode {
        // SAFETY: as in `root`: `node` comes from `self.file.tree`, kept alive by the clone of
        // `self.file` stored beside it.
        let node = unsafe { std::mem::transmute::<Node<'_>, Node<'static>>(node) };
        XNode { node, file: self.file.clone() }
    }

    fn dynamic(&self, node: Option<Node<'_>>) -> Dynamic {
        node.map_or(Dynamic::UNIT, |n| Dynamic::from(self.wrap(n)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.file.source[self.node.start_byte()..self.node.end_byte()]).into_owned()
    }

    fn array(&self, nodes: impl Iterator<Item = Node<'static>>) -> Result<Array, Box<EvalAltResult>> {
        let mut out = Array::new();
        for n in nodes {
            if out.len() == MAX_ARRAY {
                return Err(too_large("an array of nodes"));
            }
            out.push(Dynamic::from(self.wrap(n)));
        }
        Ok(out)
    }

    /// Every descendant in document order (not the node itself).
    fn descendants(&self) -> impl Iterator<Item = Node<'static>> {
        let mut cursor = self.node.walk();
        let mut done = !cursor.goto_first_child();
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let current = cursor.node();
            if !cursor.goto_first_child() {
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() || cursor.node() == self.node {
                        done = true;
                        break;
                    }
                }
            }
            Some(current)
        })
    }
}

fn too_large(what: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorDataTooLarge(format!("{what} over {MAX_ARRAY} elements"), Position::NONE).into()
}

fn point_line(p: tree_sitter::Point) -> INT {
    p.row as INT + 1
}

fn point_column(p: tree_sitter::Point) -> INT {
    p.column as INT + 1
}

/// Compiles `source` with the sandbox's settings, to refuse a script that does not compile
/// before anything runs.
pub fn check_script(source: &str) -> Result<(), XrayError> {
    let engine = engine(&ScriptLimits::default(), Rc::new(Cell::new(None)));
    engine.compile(source).map(|_| ()).map_err(|e| {
        let position = e.position();
        XrayError::Script {
            message: format!("the script does not compile: {}", e.err_type()),
            line: position.line().unwrap_or(0) as u32,
            column: position.position().unwrap_or(0) as u32,
        }
    })
}

/// A configured engine. `deadline` is the current file's end of time.
fn engine(limits: &ScriptLimits, deadline: Rc<Cell<Option<Instant>>>) -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(limits.max_operations.max(1));
    engine.set_max_string_size(MAX_STRING);
    engine.set_max_array_size(MAX_ARRAY);
    engine.set_max_map_size(MAX_MAP);
    engine.set_max_call_levels(MAX_CALL_LEVELS);
    engine.set_max_expr_depths(MAX_EXPR_DEPTH, MAX_EXPR_DEPTH);
    engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    engine.disable_symbol("eval");
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine.on_progress(move |operations| {
        // Reading the clock on every operation would cost more than the operation.
        if operations % 1024 == 0 && deadline.get().is_some_and(|d| Instant::now() > d) {
            return Some(Dynamic::from("time"));
        }
        None
    });
    register_node(&mut engine);
    engine
}

fn register_node(engine: &mut Engine) {
    engine.register_type_with_name::<XNode>("Node");
    engine.register_get("kind", |n: &mut XNode| n.node.kind().to_owned());
    engine.register_get("text", |n: &mut XNode| n.text());
    engine.register_get("is_named", |n: &mut XNode| n.node.is_named());
    engine.register_get("has_error", |n: &mut XNode| n.node.has_error());
    engine.register_get("start_line", |n: &mut XNode| point_line(n.node.start_position()));
    engine.register_get("end_line", |n: &mut XNode| point_line(n.node.end_position()));
    engine.register_get("start_column", |n: &mut XNode| point_column(n.node.start_position()));
    engine.register_get("end_column", |n: &mut XNode| point_column(n.node.end_position()));
    engine.register_get("start_byte", |n: &mut XNode| n.node.start_byte() as INT);
    engine.register_get("end_byte", |n: &mut XNode| n.node.end_byte() as INT);
    engine.register_get("child_count", |n: &mut XNode| n.node.child_count() as INT);
    engine.register_get("parent", |n: &mut XNode| n.dynamic(n.node.parent()));
    engine.register_get("next_sibling", |n: &mut XNode| n.dynamic(n.node.next_sibling()));
    engine.register_get("prev_sibling", |n: &mut XNode| n.dynamic(n.node.prev_sibling()));
    engine.register_get("next_named_sibling", |n: &mut XNode| n.dynamic(n.node.next_named_sibling()));
    engine.register_get("prev_named_sibling", |n: &mut XNode| n.dynamic(n.node.prev_named_sibling()));
    engine.register_get("field_name", |n: &mut XNode| -> Dynamic {
        let Some(parent) = n.node.parent() else { return Dynamic::UNIT };
        let mut cursor = parent.walk();
        for (i, child) in parent.children(&mut cursor).enumerate() {
            if child == n.node {
                return parent.field_name_for_child(i as u32).map_or(Dynamic::UNIT, |f| Dynamic::from(f.to_owned()));
            }
        }
        Dynamic::UNIT
    });
    engine.register_get("children", |n: &mut XNode| -> Result<Array, Box<EvalAltResult>> {
        let mut cursor = n.node.walk();
        let children: Vec<Node<'static>> = n.node.children(&mut cursor).collect();
        n.array(children.into_iter())
    });
    engine.register_get("named_children", |n: &mut XNode| -> Result<Array, Box<EvalAltResult>> {
        let mut cursor = n.node.walk();
        let children: Vec<Node<'static>> = n.node.named_children(&mut cursor).collect();
        n.array(children.into_iter())
    });
    engine.register_fn("child", |n: &mut XNode, i: INT| -> Dynamic {
        usize::try_from(i).ok().map_or(Dynamic::UNIT, |i| n.dynamic(n.node.child(i as u32)))
    });
    engine.register_fn("field", |n: &mut XNode, name: &str| n.dynamic(n.node.child_by_field_name(name)));
    engine.register_fn("fields", |n: &mut XNode, name: &str| -> Result<Array, Box<EvalAltResult>> {
        let mut cursor = n.node.walk();
        let children: Vec<Node<'static>> = n.node.children_by_field_name(name, &mut cursor).collect();
        n.array(children.into_iter())
    });
    engine.register_fn("descendants", |n: &mut XNode| -> Result<Array, Box<EvalAltResult>> {
        n.array(n.descendants().filter(|d| d.is_named()))
    });
    engine.register_fn("descendants", |n: &mut XNode, kind: &str| -> Result<Array, Box<EvalAltResult>> {
        n.array(n.descendants().filter(|d| d.kind() == kind))
    });
    engine.register_fn("ancestors", |n: &mut XNode| -> Result<Array, Box<EvalAltResult>> {
        let mut up = Vec::new();
        let mut at = n.node.parent();
        while let Some(p) = at {
            up.push(p);
            at = p.parent();
        }
        n.array(up.into_iter())
    });
    engine.register_fn("node_at", |n: &mut XNode, byte: INT| -> Dynamic {
        let Ok(byte) = usize::try_from(byte) else { return Dynamic::UNIT };
        if byte < n.node.start_byte() || byte >= n.node.end_byte().max(n.node.start_byte() + 1) {
            return Dynamic::UNIT;
        }
        n.dynamic(n.node.named_descendant_for_byte_range(byte, byte))
    });
    engine.register_fn("contains", |n: &mut XNode, other: XNode| {
        Rc::ptr_eq(&n.file, &other.file)
            && n.node.start_byte() <= other.node.start_byte()
            && other.node.end_byte() <= n.node.end_byte()
    });
    engine.register_fn("==", |a: XNode, b: XNode| Rc::ptr_eq(&a.file, &b.file) && a.node == b.node);
    engine.register_fn("!=", |a: XNode, b: XNode| !(Rc::ptr_eq(&a.file, &b.file) && a.node == b.node));
    engine.register_fn("query", |n: &mut XNode, pattern: &str| -> Result<Array, Box<EvalAltResult>> {
        run_query(n, pattern)
    });
    engine.register_fn("to_string", |n: &mut XNode| describe(n));
    engine.register_fn("to_debug", |n: &mut XNode| describe(n));
}

fn describe(n: &XNode) -> String {
    let p = n.node.start_position();
    format!("{}@{}:{}", n.node.kind(), p.row + 1, p.column + 1)
}

thread_local! {
    /// Queries scripts ran, by language and text.
    static QUERIES: RefCell<HashMap<(&'static str, String), Rc<Query>>> = RefCell::new(HashMap::new());
}

fn run_query(n: &XNode, pattern: &str) -> Result<Array, Box<EvalAltResult>> {
    let lang = n.file.lang;
    let query = QUERIES.with_borrow_mut(|cache| -> Result<Rc<Query>, Box<EvalAltResult>> {
        if let Some(q) = cache.get(&(lang, pattern.to_owned())) {
            return Ok(q.clone());
        }
        let grammar =
            crate::lang::by_name(lang).and_then(|l| codecompass_grammars::language(l.grammar)).ok_or_else(|| {
                Box::new(EvalAltResult::ErrorRuntime(format!("no grammar for {lang}").into(), Position::NONE))
            })?;
        let query = Query::new(&grammar, pattern).map_err(|e| {
            Box::new(EvalAltResult::ErrorRuntime(
                format!("query(): {} at line {}, column {}", e.message.trim(), e.row + 1, e.column + 1).into(),
                Position::NONE,
            ))
        })?;
        let query = Rc::new(query);
        if cache.len() < 64 {
            cache.insert((lang, pattern.to_owned()), query.clone());
        }
        Ok(query)
    })?;
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&query, n.node, n.file.source.as_slice());
    let names = query.capture_names();
    let mut out = Array::new();
    while let Some(m) = matches.next() {
        if out.len() == MAX_ARRAY {
            return Err(too_large("query()'s matches"));
        }
        let mut map = Map::new();
        for c in m.captures() {
            map.insert(names[c.index as usize].into(), Dynamic::from(n.wrap(c.node)));
        }
        out.push(Dynamic::from_map(map));
    }
    Ok(out)
}

/// One thread's sandbox: its engine and the scripts it compiled.
pub struct Sandbox {
    limits: ScriptLimits,
    deadline: Rc<Cell<Option<Instant>>>,
    engine: Option<Engine>,
    compiled: Option<(String, Rc<AST>)>,
}

impl Sandbox {
    /// A sandbox with these budgets; its engine is made on first use.
    pub fn new(limits: &ScriptLimits) -> Sandbox {
        Sandbox { limits: *limits, deadline: Rc::new(Cell::new(None)), engine: None, compiled: None }
    }

    /// Runs `script` on one file. The error is the kind of failure and its message.
    pub(super) fn evaluate(
        &mut self,
        script: &str,
        tree: Tree,
        source: Vec<u8>,
        lang: &'static str,
        path: &str,
        driver: Option<&[(usize, usize)]>,
    ) -> Result<Vec<Found>, (&'static str, String)> {
        let engine = self.engine.get_or_insert_with(|| engine(&self.limits, self.deadline.clone()));
        let ast = match &self.compiled {
            Some((text, ast)) if text == script => ast.clone(),
            _ => {
                let ast = Rc::new(engine.compile(script).map_err(|e| ("script", e.to_string()))?);
                self.compiled = Some((script.to_owned(), ast.clone()));
                ast
            }
        };
        let file = Rc::new(FileTree { tree, source, lang });
        let root = XNode::root(file.clone());
        let mut scope = Scope::new();
        let positions: Array = driver
            .unwrap_or_default()
            .iter()
            .map(|&(start, end)| {
                let line = file.source[..start].iter().filter(|&&b| b == b'\n').count() + 1;
                let line_start = file.source[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let mut m = Map::new();
                m.insert("start".into(), (start as INT).into());
                m.insert("end".into(), (end as INT).into());
                m.insert("line".into(), (line as INT).into());
                m.insert("column".into(), ((start - line_start + 1) as INT).into());
                Dynamic::from_map(m)
            })
            .collect();
        scope.push_constant("root", root.clone());
        scope.push_constant("source", String::from_utf8_lossy(&file.source).into_owned());
        scope.push_constant("lang", lang.to_owned());
        scope.push_constant("file_path", path.to_owned());
        scope.push_constant("match_positions", positions);
        self.deadline.set(Some(Instant::now() + self.limits.file_time));
        let result = engine.eval_ast_with_scope::<Dynamic>(&mut scope, &ast);
        self.deadline.set(None);
        let value = result.map_err(|e| classify(&e))?;
        let items = if value.is_array() { value.into_array().unwrap_or_default() } else { vec![value] };
        let mut found = Vec::new();
        for item in items {
            if item.is_unit() {
                continue;
            }
            if found.len() == MAX_RESULTS_PER_FILE {
                return Err(("size", format!("the script gave over {MAX_RESULTS_PER_FILE} matches")));
            }
            found.push(to_found(item, &file)?);
        }
        Ok(found)
    }
}

/// The kind and message of a script's failure.
fn classify(e: &EvalAltResult) -> (&'static str, String) {
    let mut inner = e;
    while let EvalAltResult::ErrorInFunctionCall(_, _, next, _) | EvalAltResult::ErrorInModule(_, next, _) = inner {
        inner = next;
    }
    let kind = match inner {
        EvalAltResult::ErrorTooManyOperations(_) => "operations",
        EvalAltResult::ErrorTerminated(..) => "time",
        EvalAltResult::ErrorDataTooLarge(..) => "size",
        EvalAltResult::ErrorStackOverflow(_) => "depth",
        EvalAltResult::ErrorModuleNotFound(..) => "sandbox",
        _ => "script",
    };
    let message = match inner {
        EvalAltResult::ErrorTerminated(..) => format!("the script ran over its time budget per file ({e})"),
        EvalAltResult::ErrorTooManyOperations(_) => format!("the script ran over its operation budget ({e})"),
        EvalAltResult::ErrorModuleNotFound(..) => format!("scripts cannot load modules or files ({e})"),
        _ => e.to_string(),
    };
    (kind, message)
}

/// One item a script returned, as a match.
fn to_found(item: Dynamic, file: &Rc<FileTree>) -> Result<Found, (&'static str, String)> {
    let bad = |what: &str| {
        (
            "result",
            format!(
                "a result must be a node, #{{node: n, value: v}}, #{{line: l, end_line: e, value: v}} or \
                 #{{start: s, end: e, value: v}}; got {what}"
            ),
        )
    };
    let source = &file.source;
    if item.is::<XNode>() {
        let node = item.cast::<XNode>();
        return Ok(node_found(&node, None));
    }
    let Some(map) = item.clone().try_cast::<Map>() else {
        return Err(bad(item.type_name()));
    };
    let value = map.get("value").map(to_json);
    if let Some(node) = map.get("node") {
        let Some(node) = node.clone().try_cast::<XNode>() else {
            return Err(bad("a `node` that is no node"));
        };
        return Ok(node_found(&node, value));
    }
    let int = |key: &str| map.get(key).and_then(|v| v.as_int().ok());
    let lines = Lines::of(source);
    let (start, end) = if let Some(line) = int("line") {
        let end_line = int("end_line").unwrap_or(line);
        let line_count = lines.count() as INT;
        if line < 1 || end_line < line || end_line > line_count {
            return Err(bad(&format!("lines {line}-{end_line} of a file of {line_count}")));
        }
        let start = lines.start(line as usize - 1).unwrap_or(source.len());
        let end = lines.end(end_line as usize - 1);
        (start, end.max(start))
    } else if let (Some(s), Some(e)) = (int("start"), int("end")) {
        if s < 0 || e < s || e as usize > source.len() {
            return Err(bad(&format!("bytes {s}-{e} of a file of {}", source.len())));
        }
        (s as usize, e as usize)
    } else {
        return Err(bad("a map without node, line or start/end"));
    };
    Ok(Found {
        start_byte: start,
        end_byte: end,
        start: lines.point(start),
        end: lines.point(end),
        kind: String::new(),
        text: clip(source, start, end),
        captures: Vec::new(),
        value,
    })
}

fn node_found(node: &XNode, value: Option<serde_json::Value>) -> Found {
    let n = node.node;
    Found {
        start_byte: n.start_byte(),
        end_byte: n.end_byte(),
        start: n.start_position(),
        end: n.end_position(),
        kind: n.kind().to_owned(),
        text: clip(&node.file.source, n.start_byte(), n.end_byte()),
        captures: Vec::new(),
        value,
    }
}

/// A script's value as JSON; a node as its kind, place and text.
fn to_json(value: &Dynamic) -> serde_json::Value {
    use serde_json::Value;
    if value.is_unit() {
        Value::Null
    } else if let Ok(b) = value.as_bool() {
        Value::Bool(b)
    } else if let Ok(i) = value.as_int() {
        Value::from(i)
    } else if let Ok(f) = value.as_float() {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    } else if value.is_string() || value.is_char() {
        Value::String(value.to_string())
    } else if value.is_array() {
        Value::Array(value.clone().into_array().unwrap_or_default().iter().map(to_json).collect())
    } else if let Some(map) = value.clone().try_cast::<Map>() {
        Value::Object(map.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
    } else if let Some(node) = value.clone().try_cast::<XNode>() {
        let p = node.node.start_position();
        serde_json::json!({
            "kind": node.node.kind(),
            "line": p.row + 1,
            "column": p.column + 1,
            "text": clip(&node.file.source, node.node.start_byte(), node.node.end_byte()),
        })
    } else {
        Value::String(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(
        script: &str,
        lang: &'static str,
        source: &str,
        limits: ScriptLimits,
    ) -> Result<Vec<Found>, (&'static str, String)> {
        let language = crate::lang::by_name(lang).unwrap();
        let tree = crate::extract::parse_whole(language, source.as_bytes()).unwrap();
        let mut sandbox = Sandbox::new(&limits);
        sandbox.evaluate(script, tree, source.as_bytes().to_vec(), lang, "a.py", Some(&[(0, 3)]))
    }

    fn run(script: &str, source: &str) -> Result<Vec<Found>, (&'static str, String)> {
        run_with(script, "python", source, ScriptLimits::default())
    }

    const PY: &str = "def f(a, b, c):\n    return g(a)\n\ndef h():\n    pass\n";

    #[test]
    fn helpers_walk_the_tree() {
        let script = r#"
            let out = [];
            for f in root.descendants("function_definition") {
                let params = f.field("parameters").named_children;
                out.push(#{node: f.field("name"), value: #{params: params.len(), kind: f.kind, parent: f.parent.kind,
                    line: f.start_line, body_first: f.field("body").named_children[0].kind, field: f.field("name").field_name}});
            }
            out
        "#;
        let found = run(script, PY).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].text, "f");
        let v = found[0].value.as_ref().unwrap();
        assert_eq!(v["params"], 3);
        assert_eq!(v["kind"], "function_definition");
        assert_eq!(v["parent"], "module");
        assert_eq!(v["line"], 1);
        assert_eq!(v["body_first"], "return_statement");
        assert_eq!(v["field"], "name");
        assert_eq!(found[1].start.row, 3);
    }

    #[test]
    fn scripts_see_the_file_and_the_driver() {
        let script = r#"
            let m = match_positions[0];
            let n = root.node_at(m.start);
            [#{line: m.line, value: [lang, file_path, m.start, m.end, m.column, n.kind, n.text, source.len()]}]
        "#;
        let found = run(script, PY).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].text, "def f(a, b, c):");
        assert_eq!(
            found[0].value.as_ref().unwrap(),
            &serde_json::json!([
                "python",
                "a.py",
                0,
                3,
                1,
                "function_definition",
                PY.split("\n\n").next().unwrap(),
                PY.len()
            ])
        );
    }

    #[test]
    fn queries_ancestors_ranges_and_equality() {
        let script = r#"
            let calls = root.query("(call function: (identifier) @f) @c");
            let c = calls[0].c;
            let fun = c.ancestors().filter(|a| a.kind == "function_definition")[0];
            [#{start: c.start_byte, end: c.end_byte, value: [calls.len(), calls[0].f.text, fun.field("name").text,
                fun.contains(c), c.contains(fun), c == calls[0].c, c != fun, c.parent.kind]}]
        "#;
        let found = run(script, PY).unwrap();
        assert_eq!(found[0].text, "g(a)");
        assert_eq!(found[0].start.row, 1);
        assert_eq!(
            found[0].value.as_ref().unwrap(),
            &serde_json::json!([1, "g", "f", true, false, true, true, "return_statement"])
        );
    }

    #[test]
    fn the_sandbox_refuses_and_reports() {
        // No files: no such function, and no module.
        assert_eq!(run(r#"open("/etc/passwd")"#, PY).unwrap_err().0, "script");
        assert_eq!(run(r#"import "os" as os; 1"#, PY).unwrap_err().0, "sandbox");
        // Loops: the operation budget.
        let (kind, message) = run("loop { }", PY).unwrap_err();
        assert_eq!(kind, "operations", "{message}");
        // Time: the wall clock per file, with a budget the operations do not reach first.
        let slow = ScriptLimits { max_operations: u64::MAX / 2, file_time: Duration::from_millis(50) };
        assert_eq!(run_with("loop { }", "python", PY, slow).unwrap_err().0, "time");
        // Allocations: a string or array over its cap.
        assert_eq!(run(r#"let s = "x"; loop { s += s; }"#, PY).unwrap_err().0, "size");
        assert_eq!(run("let a = []; a.pad(1000000, 0); a", PY).unwrap_err().0, "size");
        // Recursion.
        assert_eq!(run("fn r(x) { r(x + 1) } r(0)", PY).unwrap_err().0, "depth");
        // No eval.
        assert!(run(r#"eval("1")"#, PY).is_err());
        // A result that is no match.
        assert_eq!(run("42", PY).unwrap_err().0, "result");
        assert_eq!(run("#{line: 99}", PY).unwrap_err().0, "result");
        // Nothing is fine.
        assert!(run("()", PY).unwrap().is_empty());
        assert!(run("[]", PY).unwrap().is_empty());
    }

    #[test]
    fn a_script_that_does_not_compile_says_where() {
        match check_script("let x = ;\n").unwrap_err() {
            XrayError::Script { line, column, message } => {
                assert_eq!(line, 1, "{message}");
                assert!(column > 0);
            }
            other => panic!("{other:?}"),
        }
        assert!(check_script("root.kind").is_ok());
    }
}
