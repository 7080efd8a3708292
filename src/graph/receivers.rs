//! The class of a Python receiver, where the code says it: `self` and `cls` are the enclosing
//! class, `super()` its bases, a parameter or a module variable has the class its annotation or
//! its constructor call names, and `a.b` the class of `a`'s attribute `b` (its annotation, the
//! class it is constructed from, or the annotation of the parameter it was assigned from). A
//! local name has the class of the value last bound to it above the use (`app = Flask(...)`,
//! `client = app.test_client()`, `with app.app_context() as ctx`), a call the class its
//! function's return annotation names or, without one, the class of what it returns; a test's
//! parameter without an annotation is the pytest fixture of that name (the test file's own, or
//! one of a `conftest.py` above it) and has the class the fixture returns or yields. A member
//! is then looked up in that class and its bases, nearest first, as Python does.
//!
//! No inference beyond that: a value of any other origin (an argument of no annotation outside
//! tests, an element of a container, a branch of an expression) has no known class, and the
//! generic rules of [`super::scope`] apply to it.

use std::collections::HashSet;
use std::rc::Rc;

use super::signatures::{
    annotation_class, assigned_name, base_names, constructed, element_annotation, field_annotation, field_written,
    is_identifier, parameter, parameter_annotation, parameter_written, receiver_chain, return_annotation,
    return_written,
};
use super::{Def, File, Use, ViewGraph};
use crate::extract::{MAX_QUALIFIER, RefKind};
use crate::store::{StoreError, SymbolRow};

/// Classes followed up a hierarchy, at most.
const MAX_CLASSES: usize = 16;
/// Attributes followed along a receiver (`self.app.json`), at most.
const MAX_CHAIN: usize = 4;
/// Values followed through bindings, calls and fixtures for one receiver, at most (this also
/// ends a cycle such as `a = b` / `b = a`).
const MAX_DEPTH: usize = 8;

/// Annotations that name no class an instance has members of.
const NOT_A_CLASS: &[&str] = &["Any", "Self", "Never", "NoReturn", "LiteralString", "Callable", "Type", "TypeVar"];

/// What a call calls.
enum Callee {
    /// A class: the call makes an instance (no class when the view does not define it).
    Class(Lineage),
    /// A function or method of the view: the call gives what it returns.
    Function(Box<Def>),
}

/// The classes a member is looked up in, nearest first (none for a class the view does not
/// define: none of its members are the view's).
pub(super) type Lineage = Rc<Vec<Def>>;

/// A record's bound values by the symbol they sit in and the name bound: `(line, column,
/// value)` in the order of the text.
pub(super) type Bindings = std::collections::HashMap<(Option<u32>, String), Vec<(u32, u32, String)>>;

/// A cache key for a receiver: the file version, the symbol the use sits in, its line, the
/// receiver.
pub(super) type ReceiverKey = (u32, Option<u32>, u32, String);

/// Where a value is read: the file, the symbol the code sits in, the line and the column
/// (0: before anything on the line).
struct At {
    file: Rc<File>,
    caller: Option<u32>,
    line: u32,
    column: u32,
}

impl ViewGraph<'_> {
    /// The classes `qualifier` (the receiver of a member use `u`) is an instance of, with its
    /// bases, nearest first; `None` when the code does not say, and no class when it says a
    /// class the view does not define (see [`Self::lineage_named_or_outside`]).
    pub(super) fn receiver_lineage(&self, u: &Use, qualifier: &str) -> Result<Option<Lineage>, StoreError> {
        let key = (u.file.fv, u.occurrence.caller, u.occurrence.line, qualifier.to_owned());
        if let Some(l) = self.receivers.borrow().get(&key) {
            return Ok(l.clone());
        }
        let at = At {
            file: u.file.clone(),
            caller: u.occurrence.caller,
            line: u.occurrence.line,
            column: u.occurrence.column,
        };
        let lineage = match receiver_chain(qualifier, MAX_QUALIFIER) {
            Some(chain) => self.lineage_of_value(&at, &chain, 0)?,
            None => None,
        };
        self.receivers.borrow_mut().insert(key, lineage.clone());
        Ok(lineage)
    }

    /// Whether the local `name` before use `u` holds what a function of an imported module
    /// returned that the view does not define (`tomllib = pytest.importorskip("tomllib")`): a
    /// value of another project's making, whose members are not the view's.
    pub(super) fn made_outside(&self, u: &Use, name: &str) -> Result<bool, StoreError> {
        let Some((_, value)) =
            self.bound_value(&u.file, u.occurrence.caller, name, Some((u.occurrence.line, u.occurrence.column)))?
        else {
            return Ok(false);
        };
        let Some((module, function)) = value.strip_suffix("()").and_then(|callee| callee.rsplit_once('.')) else {
            return Ok(false);
        };
        if !is_identifier(function) || module.split('.').any(|part| !is_identifier(part)) {
            return Ok(false);
        }
        let head = module.split('.').next().unwrap_or(module);
        let imported = !self.bound_locally(u, head)? && self.module_named(&u.file, module)?.is_some_and(|m| m.certain);
        Ok(imported && self.definitions(function)?.is_empty())
    }

    /// The lineage of the value a name or member chain (`app`, `self.app.json`) holds at `at`.
    fn lineage_of(&self, at: &At, qualifier: &str, depth: usize) -> Result<Option<Lineage>, StoreError> {
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        let mut segments = qualifier.split('.');
        let head = segments.next().unwrap_or_default();
        let rest: Vec<&str> = segments.collect();
        if rest.len() > MAX_CHAIN || !rest.iter().all(|s| is_identifier(s)) {
            return Ok(None);
        }
        let symbols = self.symbols(at.file.record)?;
        let enclosing: Vec<&SymbolRow> = ancestors(&symbols, at.caller).collect();
        let class = enclosing.iter().find(|s| s.kind == "class");
        let lineage = match head {
            "self" | "cls" => match class {
                Some(c) => self.lineage(&Def { file: at.file.clone(), symbol: (*c).clone() })?,
                None => return Ok(None),
            },
            "super()" => match class {
                Some(c) => {
                    let all = self.lineage(&Def { file: at.file.clone(), symbol: (*c).clone() })?;
                    Rc::new(all.iter().skip(1).cloned().collect())
                }
                None => return Ok(None),
            },
            name if is_identifier(name) => match self.lineage_of_name(at, &enclosing, name, depth)? {
                Some(l) => l,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        self.read_attributes(lineage, &rest, depth)
    }

    /// The lineage of what `attributes` read in turn from an instance of `lineage` hold.
    fn read_attributes(
        &self,
        lineage: Lineage,
        attributes: &[&str],
        depth: usize,
    ) -> Result<Option<Lineage>, StoreError> {
        let mut lineage = lineage;
        for attribute in attributes {
            let Some(member) = self.member(&lineage, attribute)? else { return Ok(None) };
            let Some(class) = self.class_of_member(&member, depth + 1)? else { return Ok(None) };
            lineage = class;
        }
        Ok(Some(lineage))
    }

    /// Whether `name` is a parameter of a function enclosing `u` or bound in one above it: then
    /// it is that function's, whatever a module of that name may be.
    pub(super) fn bound_locally(&self, u: &Use, name: &str) -> Result<bool, StoreError> {
        let symbols = self.symbols(u.file.record)?;
        for function in ancestors(&symbols, u.occurrence.caller)
            .filter(|s| matches!(s.kind.as_str(), "function" | "method" | "constructor"))
        {
            if parameter(&function.signature, name).is_some()
                || self
                    .bound_value(&u.file, Some(function.ord), name, Some((u.occurrence.line, u.occurrence.column)))?
                    .is_some()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The lineage of a plain name at `at`: in each enclosing function, innermost first, the
    /// value last bound to it above the line, else its parameter (the annotation's class, or
    /// the pytest fixture of that name); then the module's variable or class of that name.
    fn lineage_of_name(
        &self,
        at: &At,
        enclosing: &[&SymbolRow],
        name: &str,
        depth: usize,
    ) -> Result<Option<Lineage>, StoreError> {
        for function in enclosing.iter().filter(|s| matches!(s.kind.as_str(), "function" | "method" | "constructor")) {
            if let Some((line, value)) =
                self.bound_value(&at.file, Some(function.ord), name, Some((at.line, at.column)))?
            {
                let scope = At { file: at.file.clone(), caller: Some(function.ord), line, column: 0 };
                return self.lineage_of_value(&scope, &value, depth + 1);
            }
            if let Some(written) = parameter_written(&function.signature, name) {
                if let Some(annotation) = annotation_class(written) {
                    return self.lineage_named_or_outside(&at.file, &annotation);
                }
                if !written.is_empty() {
                    return Ok(None);
                }
                return match self.inherited_parameter(&at.file, function, name)? {
                    Some((file, written)) => match annotation_class(&written) {
                        Some(annotation) => self.lineage_named_or_outside(&file, &annotation),
                        None => Ok(None),
                    },
                    None => self.fixture_lineage(&at.file, name, depth + 1),
                };
            }
        }
        self.class_of_module_name(&at.file, name, depth)
    }

    /// The annotation, as written, that the method overridden by `method` (of a class in
    /// `file`) gives its parameter `name`, with the file it is written in: a type checker reads
    /// an override's parameter without an annotation as its base's.
    fn inherited_parameter(
        &self,
        file: &Rc<File>,
        method: &SymbolRow,
        name: &str,
    ) -> Result<Option<(Rc<File>, String)>, StoreError> {
        if method.kind != "method" {
            return Ok(None);
        }
        let symbols = self.symbols(file.record)?;
        let Some(class) = method.parent.and_then(|p| symbols.get(p as usize)).filter(|c| c.kind == "class") else {
            return Ok(None);
        };
        let lineage = self.lineage(&Def { file: file.clone(), symbol: class.clone() })?;
        let Some(overridden) = self.member(lineage.get(1..).unwrap_or_default(), &method.name)? else {
            return Ok(None);
        };
        Ok(parameter_written(&overridden.symbol.signature, name)
            .filter(|w| !w.is_empty())
            .map(|w| (overridden.file.clone(), w.to_owned())))
    }

    /// The values a record binds (see [`RefKind::Binding`]), by the symbol they sit in and the
    /// name bound, in line order.
    fn bindings(&self, record: i64) -> Result<Rc<Bindings>, StoreError> {
        if let Some(b) = self.bindings.borrow().get(&record) {
            return Ok(b.clone());
        }
        let mut out = Bindings::new();
        for o in self.occurrences(record)?.iter().filter(|o| o.kind == RefKind::Binding) {
            out.entry((o.caller, o.name.clone())).or_default().push((o.line, o.column, o.qualifier.clone()));
        }
        let out = Rc::new(out);
        self.bindings.borrow_mut().insert(record, out.clone());
        Ok(out)
    }

    /// The value last bound to `name` in the symbol `caller` of `file` above the line of
    /// `before` (anywhere in it when `None`), with its line. A loop's variable is bound from
    /// where its loop's body starts (the comprehension's start for one), so it counts from
    /// there on its own line too (`[c.name for c in jar]`).
    fn bound_value(
        &self,
        file: &File,
        caller: Option<u32>,
        name: &str,
        before: Option<(u32, u32)>,
    ) -> Result<Option<(u32, String)>, StoreError> {
        let bindings = self.bindings(file.record)?;
        let Some(values) = bindings.get(&(caller, name.to_owned())) else { return Ok(None) };
        let above = |line: u32, column: u32, value: &str| {
            before.is_none_or(|(l, c)| line < l || (line == l && column < c && value.ends_with("[]")))
        };
        Ok(values
            .iter()
            .rev()
            .find(|(line, column, value)| above(*line, *column, value))
            .map(|(l, _, v)| (*l, v.clone())))
    }

    /// The lineage of a bound value (see [`RefKind::Binding`]): a class called is its
    /// instance, a method or function called gives what it returns, a name or member chain
    /// what it holds, `x[]` an element of `x`; a chain of those (`a.b().c`) step by step.
    fn lineage_of_value(&self, at: &At, value: &str, depth: usize) -> Result<Option<Lineage>, StoreError> {
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        if let Some(container) = value.strip_suffix("[]") {
            return self.element_lineage(at, container, depth + 1);
        }
        // The last call of the chain, and the members read from what it returns: `a.b().c.d`.
        let Some(call) = value.rfind("()") else {
            return self.lineage_of(at, value, depth + 1);
        };
        let (callee, after) = (&value[..call], &value[call + 2..]);
        let attributes: Vec<&str> = match after.strip_prefix('.') {
            Some(after) => after.split('.').collect(),
            None if after.is_empty() => Vec::new(),
            None => return Ok(None),
        };
        if attributes.len() > MAX_CHAIN || !attributes.iter().all(|a| is_identifier(a)) {
            return Ok(None);
        }
        let lineage = match self.callee(at, callee, depth + 1)? {
            Some(Callee::Class(lineage)) => lineage,
            Some(Callee::Function(function)) => match self.returned(&function, depth + 1)? {
                Some(lineage) => lineage,
                None => return Ok(None),
            },
            None => return Ok(None),
        };
        self.read_attributes(lineage, &attributes, depth)
    }

    /// What `callee` (a chain without its last call's `()`) calls: a class, or a function or
    /// method of the view. A class the view does not define (an uppercase name defined nowhere
    /// in it) is a class of no lineage.
    fn callee(&self, at: &At, callee: &str, depth: usize) -> Result<Option<Callee>, StoreError> {
        if callee == "super" {
            return Ok(self.lineage_of(at, "super()", depth + 1)?.map(Callee::Class));
        }
        let plain = !callee.contains('(');
        let last = callee.rsplit('.').next().unwrap_or(callee);
        if plain
            && last.starts_with(char::is_uppercase)
            && let Some(class) = self.class_named(&at.file, callee)?
        {
            return Ok(Some(Callee::Class(self.lineage(&class)?)));
        }
        let function = match callee.rsplit_once('.') {
            Some((receiver, method)) => match self.lineage_of_value(at, receiver, depth + 1)? {
                Some(lineage) => self.member(&lineage, method)?,
                // `requests.post(...)`: a function of an imported module.
                None if plain => self.module_function(&at.file, receiver, method)?,
                None => None,
            },
            None => self.top_level_named(&at.file, callee, "function")?,
        };
        if let Some(function) = function {
            return Ok(Some(Callee::Function(Box::new(function))));
        }
        if plain && last.starts_with(char::is_uppercase) && self.defined_nowhere(last)? {
            return Ok(Some(Callee::Class(Rc::new(Vec::new()))));
        }
        Ok(None)
    }

    /// The lineage of an element of `container` (a value chain): the class the container's
    /// annotation says it holds (`apps: list[App]`, `-> Iterator[Cookie]`), else the class its
    /// class's `__iter__` says it yields. An element of a container of a class the view does
    /// not define is of no known class: such a container may well hold the view's objects.
    fn element_lineage(&self, at: &At, container: &str, depth: usize) -> Result<Option<Lineage>, StoreError> {
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        if let Some((file, annotation)) = self.written_annotation(at, container, depth + 1)?
            && let Some(element) = element_annotation(&annotation)
        {
            return self.lineage_named_or_outside(&file, &element);
        }
        let Some(lineage) = self.lineage_of_value(at, container, depth + 1)? else { return Ok(None) };
        let Some(iter) = self.member(&lineage, "__iter__")? else { return Ok(None) };
        match return_written(&iter.symbol.signature).and_then(element_annotation) {
            Some(element) => self.lineage_named_or_outside(&iter.file, &element),
            None => Ok(None),
        }
    }

    /// The annotation a value chain has as written where it is declared, with the file it is
    /// written in: a parameter's (`apps: list[App]`), an attribute's (`self.apps: list[App]`)
    /// or what the function called returns (`def apps(self) -> list[App]`).
    fn written_annotation(&self, at: &At, chain: &str, depth: usize) -> Result<Option<(Rc<File>, String)>, StoreError> {
        if let Some(callee) = chain.strip_suffix("()") {
            return Ok(match self.callee(at, callee, depth + 1)? {
                Some(Callee::Function(f)) => {
                    return_written(&f.symbol.signature).map(|a| (f.file.clone(), a.to_owned()))
                }
                _ => None,
            });
        }
        if is_identifier(chain) {
            let symbols = self.symbols(at.file.record)?;
            for function in ancestors(&symbols, at.caller)
                .filter(|s| matches!(s.kind.as_str(), "function" | "method" | "constructor"))
            {
                if self.bound_value(&at.file, Some(function.ord), chain, Some((at.line, at.column)))?.is_some() {
                    return Ok(None);
                }
                if let Some(written) = parameter_written(&function.signature, chain) {
                    if written.is_empty() {
                        return self.inherited_parameter(&at.file, function, chain);
                    }
                    return Ok(Some((at.file.clone(), written.to_owned())));
                }
            }
            return Ok(None);
        }
        let Some((receiver, attribute)) = chain.rsplit_once('.') else { return Ok(None) };
        let Some(lineage) = self.lineage_of_value(at, receiver, depth + 1)? else { return Ok(None) };
        let Some(member) = self.member(&lineage, attribute)? else { return Ok(None) };
        Ok(field_written(&member.symbol.signature, attribute).map(|a| (member.file.clone(), a.to_owned())))
    }

    /// The lineage of what a function or method returns: its return annotation's class, else
    /// that of the first of its `return`/`yield` values whose class is known.
    fn returned(&self, function: &Def, depth: usize) -> Result<Option<Lineage>, StoreError> {
        if !matches!(function.symbol.kind.as_str(), "function" | "method") || depth > MAX_DEPTH {
            return Ok(None);
        }
        if let Some(annotation) = return_annotation(&function.symbol.signature) {
            return self.lineage_named_or_outside(&function.file, &annotation);
        }
        let bindings = self.bindings(function.file.record)?;
        let values = bindings.get(&(Some(function.symbol.ord), "return".to_owned())).cloned().unwrap_or_default();
        for (line, _, value) in values {
            let at = At { file: function.file.clone(), caller: Some(function.symbol.ord), line: line + 1, column: 0 };
            if let Some(l) = self.lineage_of_value(&at, &value, depth + 1)? {
                return Ok(Some(l));
            }
        }
        Ok(None)
    }

    /// The lineage of pytest fixture `name` as a parameter of a test in `file`: the fixture is
    /// a module-level function of that name in the test file itself or in the nearest
    /// `conftest.py` above it. Only test files (`test_*.py`, `*_test.py`, `conftest.py`) have
    /// fixtures for parameters.
    fn fixture_lineage(&self, file: &Rc<File>, name: &str, depth: usize) -> Result<Option<Lineage>, StoreError> {
        let (dir, base) = file.path.rsplit_once('/').unwrap_or(("", file.path.as_str()));
        let test_file =
            (base.starts_with("test_") && base.ends_with(".py")) || base.ends_with("_test.py") || base == "conftest.py";
        if !test_file {
            return Ok(None);
        }
        let fixtures = self.definitions(name)?;
        let nearest = fixtures
            .iter()
            .filter(|d| d.symbol.parent.is_none() && d.symbol.kind == "function" && d.file.lang == "python")
            .filter_map(|d| {
                if d.file.fv == file.fv {
                    return Some((usize::MAX, d));
                }
                let (fixture_dir, fixture_base) = d.file.path.rsplit_once('/').unwrap_or(("", d.file.path.as_str()));
                let above = fixture_dir.is_empty() || dir == fixture_dir || dir.starts_with(&format!("{fixture_dir}/"));
                (fixture_base == "conftest.py" && above).then_some((fixture_dir.len(), d))
            })
            .max_by_key(|(rank, _)| *rank);
        match nearest {
            Some((_, fixture)) => self.returned(&fixture.clone(), depth + 1),
            None => Ok(None),
        }
    }

    /// A class and its bases in the view, depth first, left to right (Python's order for the
    /// hierarchies people write), each once.
    fn lineage(&self, class: &Def) -> Result<Lineage, StoreError> {
        let key = class.key();
        if let Some(l) = self.lineages.borrow().get(&key) {
            return Ok(l.clone());
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        self.walk_bases(class.clone(), &mut out, &mut seen)?;
        let out = Rc::new(out);
        self.lineages.borrow_mut().insert(key, out.clone());
        Ok(out)
    }

    fn walk_bases(&self, class: Def, out: &mut Vec<Def>, seen: &mut HashSet<(u32, u32)>) -> Result<(), StoreError> {
        if out.len() >= MAX_CLASSES || !seen.insert(class.key()) {
            return Ok(());
        }
        let bases = base_names(&class.symbol.signature);
        let file = class.file.clone();
        out.push(class);
        for base in bases {
            if let Some(b) = self.class_named(&file, &base)? {
                self.walk_bases(b, out, seen)?;
            }
        }
        Ok(())
    }

    /// The member `name` of the nearest class of `lineage` defining it. An attribute is the
    /// one the nearest class body declares (`name: str`, `name = ...`), as a type checker reads
    /// it, even where a subclass assigns it (`self.name = ...`); with no class body declaring
    /// it, the furthest base assigning it (the one that set it up).
    pub(super) fn member(&self, lineage: &[Def], name: &str) -> Result<Option<Def>, StoreError> {
        let found = self.members_in(lineage, name)?;
        let Some(nearest) = found.first() else { return Ok(None) };
        if nearest.1.symbol.kind == "field" {
            let fields: Vec<Def> =
                found.into_iter().filter(|(_, d)| d.symbol.kind == "field").map(|(_, d)| d).collect();
            let declared = fields.iter().find(|d| !d.symbol.signature.trim_start().starts_with("self."));
            return Ok(declared.or(fields.last()).cloned());
        }
        Ok(Some(nearest.1.clone()))
    }

    /// The definitions named `name` directly in a class of `lineage`, with the class's position.
    fn members_in(&self, lineage: &[Def], name: &str) -> Result<Vec<(usize, Def)>, StoreError> {
        let mut found = Vec::new();
        for d in self.definitions(name)?.iter() {
            let Some(parent) = d.symbol.parent else { continue };
            if let Some(at) = lineage.iter().position(|c| c.file.fv == d.file.fv && c.symbol.ord == parent) {
                found.push((at, d.clone()));
            }
        }
        found.sort_by_key(|(at, d)| (*at, d.symbol.ord));
        Ok(found)
    }

    /// Of the candidates of a member use, the one a receiver of class `lineage` means (see
    /// [`Self::member`]), as an index into `candidates`.
    pub(super) fn member_of_lineage(
        &self,
        lineage: &[Def],
        name: &str,
        candidates: &[Def],
        pool: &[usize],
    ) -> Result<Option<usize>, StoreError> {
        let Some(member) = self.member(lineage, name)? else { return Ok(None) };
        Ok(pool.iter().copied().find(|&i| candidates[i].key() == member.key()))
    }

    /// The lineage of what an attribute or a property holds, as its definition says.
    fn class_of_member(&self, member: &Def, depth: usize) -> Result<Option<Lineage>, StoreError> {
        let signature = member.symbol.signature.as_str();
        match member.symbol.kind.as_str() {
            "method" | "function" => return self.returned(member, depth + 1),
            "field" => {
                if let Some(annotation) = field_annotation(signature, &member.symbol.name) {
                    return self.lineage_named_or_outside(&member.file, &annotation);
                }
                if let Some(class) = constructed(signature) {
                    return self.lineage_named(&member.file, &class);
                }
            }
            _ => return Ok(None),
        }
        // `self.app = app` in a method whose parameter `app` is annotated.
        let Some(source) = assigned_name(signature, &member.symbol.name) else { return Ok(None) };
        let symbols = self.symbols(member.file.record)?;
        let line = member.symbol.line_start;
        let method = symbols
            .iter()
            .filter(|s| matches!(s.kind.as_str(), "method" | "constructor" | "function"))
            .filter(|s| s.line_start <= line && line <= s.line_end)
            .max_by_key(|s| s.line_start);
        match method.and_then(|m| parameter_annotation(&m.signature, &source)) {
            Some(annotation) => self.lineage_named_or_outside(&member.file, &annotation),
            None => Ok(None),
        }
    }

    /// The lineage of an instance of the class `written` names in `file`.
    fn lineage_named(&self, file: &Rc<File>, written: &str) -> Result<Option<Lineage>, StoreError> {
        match self.class_named(file, written)? {
            Some(class) => Ok(Some(self.lineage(&class)?)),
            None => Ok(None),
        }
    }

    /// The lineage of an instance of the class an annotation names; a class the view does not
    /// define anywhere (`cookiejar: CookieJar` of the standard library) has no lineage: its
    /// members are not the view's. `Any`, `Self`, `object` and their like say nothing.
    fn lineage_named_or_outside(&self, file: &Rc<File>, written: &str) -> Result<Option<Lineage>, StoreError> {
        if let Some(lineage) = self.lineage_named(file, written)? {
            return Ok(Some(lineage));
        }
        let name = written.rsplit('.').next().unwrap_or(written);
        if NOT_A_CLASS.contains(&name) || !self.defined_nowhere(name)? {
            return Ok(None);
        }
        Ok(Some(Rc::new(Vec::new())))
    }

    /// Whether the view defines nothing (of any kind, in any Python file) named `name`.
    fn defined_nowhere(&self, name: &str) -> Result<bool, StoreError> {
        Ok(!self.definitions(name)?.iter().any(|d| d.file.lang == "python"))
    }

    /// The lineage of a module-level name of `file`: a variable (`app = Flask(__name__)`,
    /// `app: Flask = ...`, `app = create_app()`), or a class name itself (`Flask`).
    fn class_of_module_name(&self, file: &Rc<File>, name: &str, depth: usize) -> Result<Option<Lineage>, StoreError> {
        let symbols = self.symbols(file.record)?;
        if let Some(v) = symbols
            .iter()
            .find(|s| s.parent.is_none() && s.name == name && matches!(s.kind.as_str(), "variable" | "constant"))
        {
            if let Some(annotation) = field_annotation(&v.signature, name) {
                return self.lineage_named_or_outside(file, &annotation);
            }
            return match self.bound_value(file, Some(v.ord), name, None)? {
                Some((line, value)) => {
                    let at = At { file: file.clone(), caller: None, line: line + 1, column: 0 };
                    self.lineage_of_value(&at, &value, depth + 1)
                }
                None => Ok(None),
            };
        }
        if name.starts_with(char::is_uppercase) {
            return self.lineage_named(file, name);
        }
        Ok(None)
    }

    /// The class a (possibly dotted) name written in `file` means (see
    /// [`Self::top_level_named`]).
    fn class_named(&self, file: &Rc<File>, written: &str) -> Result<Option<Def>, StoreError> {
        self.top_level_named(file, written, "class")
    }

    /// The module-level class or function (`kind`) a (possibly dotted) name written in `file`
    /// means: the file's own, one it imports by that name, else the only one of that name in
    /// the view.
    fn top_level_named(&self, file: &Rc<File>, written: &str, kind: &str) -> Result<Option<Def>, StoreError> {
        let name = written.rsplit('.').next().unwrap_or(written);
        let classes: Vec<Def> = self
            .definitions(name)?
            .iter()
            .filter(|d| d.symbol.kind == kind && d.file.lang == "python")
            .filter(|d| kind == "class" || d.symbol.parent.is_none())
            .cloned()
            .collect();
        if classes.is_empty() && name == written {
            return self.imported_under_alias(file, name, kind);
        }
        if classes.is_empty() {
            return Ok(None);
        }
        if let Some(own) = classes.iter().find(|d| d.file.fv == file.fv && d.symbol.parent.is_none()) {
            return Ok(Some(own.clone()));
        }
        let qualifier = written[..written.len() - name.len()].trim_end_matches('.');
        if let Some(decided) = self.written_as(file, RefKind::Type, name, qualifier, &classes)? {
            return Ok(Some(decided));
        }
        Ok((classes.len() == 1).then(|| classes[0].clone()))
    }
}

impl ViewGraph<'_> {
    /// The class or function (`kind`) that `file` imports as `alias`
    /// (`from .sansio.blueprints import Blueprint as SansioBlueprint`).
    fn imported_under_alias(&self, file: &Rc<File>, alias: &str, kind: &str) -> Result<Option<Def>, StoreError> {
        let Some((_, original)) = self.bound_value(file, None, alias, None)? else { return Ok(None) };
        let occurrences = self.occurrences(file.record)?;
        let Some(module) = occurrences
            .iter()
            .find(|o| o.kind == RefKind::ImportName && o.name == original)
            .map(|o| o.qualifier.clone())
        else {
            return Ok(None);
        };
        let candidates: Vec<Def> = self
            .definitions(&original)?
            .iter()
            .filter(|d| d.symbol.kind == kind && d.file.lang == "python" && d.symbol.parent.is_none())
            .cloned()
            .collect();
        self.written_as(file, RefKind::ImportName, &original, &module, &candidates)
    }

    /// The one of `candidates` that `name` written in `file` as a reference of `kind` with
    /// `qualifier` means, by Python's scoping rules; `None` unless exactly one.
    fn written_as(
        &self,
        file: &Rc<File>,
        kind: RefKind,
        name: &str,
        qualifier: &str,
        candidates: &[Def],
    ) -> Result<Option<Def>, StoreError> {
        let probe = Use {
            file: file.clone(),
            occurrence: crate::extract::Occurrence {
                kind,
                name: name.to_owned(),
                qualifier: qualifier.to_owned(),
                line: 0,
                column: 0,
                caller: None,
            },
        };
        let mut pool: Vec<usize> = (0..candidates.len()).collect();
        Ok(match self.resolve_python(&probe, candidates, &mut pool)? {
            Some(decided) if decided.targets.len() == 1 => Some(candidates[decided.targets[0]].clone()),
            _ => None,
        })
    }
}

/// The symbol at `ord` and its enclosing symbols, innermost first (ords index the record's
/// symbols; a chain is short, and bad data never loops).
pub(super) fn ancestors(symbols: &[SymbolRow], ord: Option<u32>) -> impl Iterator<Item = &SymbolRow> {
    let mut next = ord;
    std::iter::from_fn(move || {
        let s = symbols.get(next? as usize)?;
        next = s.parent.filter(|&p| (p as usize) < symbols.len() && Some(p) != next);
        Some(s)
    })
    .take(32)
}
