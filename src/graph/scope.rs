//! Which definitions a reference can see, by the language's scoping rules, before the
//! confidence tiers of [`ViewGraph::resolve`] choose among them.
//!
//! Everywhere: a definition inside a function body is local to that function. In Python a
//! module's names are its own: a bare name means a definition of the same file or one the file
//! imports by name (`from m import a`, followed through packages that re-export it, or
//! `from m import *`); `m.a`
//! after `import m` means module `m`'s own `a`; any other `x.a` means a member of some class.

use std::collections::HashSet;
use std::rc::Rc;

use super::{Confidence, Def, File, Resolution, Use, ViewGraph, imports, receivers};
use crate::extract::RefKind;
use crate::store::StoreError;
use crate::store::occurrences::name_key;

/// Symbol kinds whose bodies hold local definitions.
const FUNCTION_KINDS: &[&str] = &["function", "method", "constructor"];
/// Symbol kinds whose direct children are members.
const TYPE_KINDS: &[&str] = &["class", "struct", "interface", "trait", "enum", "impl", "object", "type"];
/// Re-exports followed from a definition's module (`flask/__init__.py` re-exporting
/// `flask/app.py`'s `Flask`), at most this many files.
const MAX_EXPORTERS: usize = 64;

/// Methods of Python's builtin types and of the standard library's most used ones (files,
/// context variables, threads): a receiver of unknown type calling one may be any of those.
const BUILTIN_METHODS: &[&str] = &[
    "add",
    "append",
    "clear",
    "close",
    "copy",
    "count",
    "decode",
    "difference",
    "discard",
    "encode",
    "endswith",
    "extend",
    "find",
    "flush",
    "format",
    "fromkeys",
    "get",
    "index",
    "insert",
    "intersection",
    "items",
    "join",
    "keys",
    "lower",
    "lstrip",
    "partition",
    "pop",
    "popitem",
    "read",
    "readline",
    "readlines",
    "remove",
    "replace",
    "reset",
    "reverse",
    "rsplit",
    "rstrip",
    "run",
    "seek",
    "set",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "start",
    "startswith",
    "strip",
    "union",
    "update",
    "upper",
    "values",
    "write",
];

/// Where a name is imported by name: each importing file and the module as written.
pub(super) type ImportNameSites = Vec<(Rc<File>, String)>;

/// A name and the file version defining it.
pub(super) type ExportKey = (String, u32);

/// A decision, or `None` when the generic tiers should choose among the narrowed pool.
pub(super) type Decision = Option<Resolution>;

fn nothing() -> Decision {
    Some(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() })
}

fn pick(targets: Vec<usize>, confidence: Confidence) -> Decision {
    match targets.len() {
        0 => nothing(),
        1 => Some(Resolution { confidence, targets }),
        _ => Some(Resolution { confidence: Confidence::Ambiguous, targets }),
    }
}

impl ViewGraph<'_> {
    /// Drops candidates defined inside a function body unless `u` is in that body.
    pub(super) fn visible(&self, u: &Use, candidates: &[Def], pool: &mut Vec<usize>) -> Result<(), StoreError> {
        let mut keep = Vec::with_capacity(pool.len());
        for &i in pool.iter() {
            let d = &candidates[i];
            let symbols = self.symbols(d.file.record)?;
            let function =
                receivers::ancestors(&symbols, d.symbol.parent).find(|p| FUNCTION_KINDS.contains(&p.kind.as_str()));
            let line = u.occurrence.line;
            let visible = function.is_none_or(|p| u.file.fv == d.file.fv && p.line_start <= line && line <= p.line_end);
            if visible && !self.private_to_its_module(u, d)? {
                keep.push(i);
            }
        }
        *pool = keep;
        Ok(())
    }

    /// Whether `d` is a TypeScript module's top-level declaration that the module does not
    /// export, seen from another file: no other file can name it. A script (a file without
    /// imports or exports) shares its declarations with every file, and so does a declaration
    /// file (`.d.ts`).
    fn private_to_its_module(&self, u: &Use, d: &Def) -> Result<bool, StoreError> {
        if d.file.fv == u.file.fv
            || d.symbol.parent.is_some()
            || d.symbol.visibility.as_deref() != Some("private")
            || !matches!(d.file.lang, "typescript" | "tsx")
            || [".d.ts", ".d.mts", ".d.cts"].iter().any(|e| d.file.path.ends_with(e))
        {
            return Ok(false);
        }
        let exports = self.symbols(d.file.record)?.iter().any(|s| s.visibility.as_deref() == Some("export"));
        Ok(exports || !self.imports_of(&d.file)?.is_empty())
    }

    /// Whether `d` is defined inside something other than a function: a class, an interface,
    /// an object, a namespace; what a member read (`x.name`) can mean.
    pub(super) fn in_a_type(&self, d: &Def) -> Result<bool, StoreError> {
        let Some(parent) = d.symbol.parent else {
            return Ok(false);
        };
        let symbols = self.symbols(d.file.record)?;
        Ok(symbols.get(parent as usize).is_some_and(|p| !FUNCTION_KINDS.contains(&p.kind.as_str())))
    }

    /// Whether `d` is a member: defined directly in a type's body.
    pub(super) fn is_member(&self, d: &Def) -> Result<bool, StoreError> {
        let Some(parent) = d.symbol.parent else {
            return Ok(false);
        };
        let symbols = self.symbols(d.file.record)?;
        Ok(symbols.get(parent as usize).is_some_and(|p| TYPE_KINDS.contains(&p.kind.as_str())))
    }

    /// Python's scoping rules for `u` (see the module's documentation).
    pub(super) fn resolve_python(
        &self,
        u: &Use,
        candidates: &[Def],
        pool: &mut Vec<usize>,
    ) -> Result<Decision, StoreError> {
        let name = u.occurrence.name.as_str();
        let qualifier = u.occurrence.qualifier.as_str();
        if u.occurrence.kind == RefKind::ImportName {
            // `from m import a`: module `m`'s own `a`, or the `a` it re-exports.
            let mut targets = Vec::new();
            for &i in pool.iter() {
                let d = &candidates[i];
                if d.symbol.parent.is_none() && self.imported_from(&u.file, qualifier, name, d)? {
                    targets.push(i);
                }
            }
            return Ok(pick(targets, Confidence::Import));
        }
        if qualifier.is_empty() {
            // A bare name: the same file's, or one the file imports by that name. A class's
            // members are names in its own body only (`@x.setter`), not in its methods.
            let mut same_file = Vec::new();
            for &i in pool.iter() {
                let d = &candidates[i];
                if d.file.fv == u.file.fv && (u.occurrence.caller == d.symbol.parent || !self.is_member(d)?) {
                    same_file.push(i);
                }
            }
            if !same_file.is_empty() {
                return Ok(pick(same_file, Confidence::Resolved));
            }
            // `from m import *` brings every public name of `m`.
            let mut specs = self.imported_names_in(&u.file, name)?;
            specs.extend(self.imported_names_in(&u.file, "*")?);
            let mut targets = Vec::new();
            for &i in pool.iter() {
                for spec in &specs {
                    if self.imported_from(&u.file, spec, name, &candidates[i])? {
                        targets.push(i);
                        break;
                    }
                }
            }
            return Ok(pick(targets, Confidence::Import));
        }
        if !self.bound_locally(u, qualifier.split('.').next().unwrap_or(qualifier))?
            && let Some(module) = self.module_named(&u.file, qualifier)?
        {
            // `flask.json.dumps` after `import flask`: module `flask.json`'s own `dumps`.
            let mut targets = Vec::new();
            for &i in pool.iter() {
                let d = &candidates[i];
                if d.symbol.parent.is_none() && self.imported_from(&u.file, &module.spec, name, d)? {
                    targets.push(i);
                }
            }
            if !targets.is_empty() || module.certain {
                return Ok(pick(targets, Confidence::Import));
            }
        }
        // A receiver whose class the code says: the member of that class or of its bases.
        if let Some(lineage) = self.receiver_lineage(u, qualifier)? {
            return Ok(match self.member_of_lineage(&lineage, name, candidates, pool)? {
                Some(i) if candidates[i].file.fv == u.file.fv => pick(vec![i], Confidence::Resolved),
                Some(i) => pick(vec![i], Confidence::Import),
                None => nothing(),
            });
        }
        // A value or a class before the dot: the name is a member.
        let mut members = Vec::with_capacity(pool.len());
        for &i in pool.iter() {
            if self.is_member(&candidates[i])? {
                members.push(i);
            }
        }
        if members.is_empty() {
            return Ok(nothing());
        }
        let head = qualifier.split('.').next().unwrap_or(qualifier);
        // `self.m` is the enclosing class's (the generic tiers look); `self.app.m`, `x.m` are
        // a value's; `Flask.m` a class's.
        let a_value = !matches!(qualifier, "self" | "cls") && !head.starts_with(char::is_uppercase);
        if a_value {
            // A receiver of unknown type: a member unique in the view, ambiguous among several;
            // none when builtin types have a method of that name too (`d.get()` is as likely a
            // `dict`'s, and listing every `.get()` as maybe this one helps nobody).
            if BUILTIN_METHODS.contains(&name) || self.made_outside(u, head)? {
                return Ok(nothing());
            }
            return Ok(pick(members, Confidence::UniqueName));
        }
        *pool = members;
        Ok(None)
    }

    /// Whether `spec`, imported in `file`, names the module of `d` or a module that re-exports
    /// `name` from it.
    fn imported_from(&self, file: &File, spec: &str, name: &str, d: &Def) -> Result<bool, StoreError> {
        if self.module_is(file, spec, &d.file.path)? {
            return Ok(true);
        }
        for exporter in self.exporters(name, &d.file)?.iter() {
            if self.module_is(file, spec, exporter)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the module `spec`, as written in `file`, is the file at `path`.
    fn module_is(&self, file: &File, spec: &str, path: &str) -> Result<bool, StoreError> {
        for p in imports::patterns(file.lang, &file.path, spec) {
            if p.matches(path) && self.rooted(&p, path)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The modules `from ... import name` lines of `file` take `name` from.
    fn imported_names_in(&self, file: &File, name: &str) -> Result<Vec<String>, StoreError> {
        Ok(self.import_name_sites(name)?.iter().filter(|(f, _)| f.fv == file.fv).map(|(_, s)| s.clone()).collect())
    }

    /// Every `from m import name` of the view: the importing file and `m` as written.
    fn import_name_sites(&self, name: &str) -> Result<Rc<ImportNameSites>, StoreError> {
        if let Some(s) = self.import_name_sites.borrow().get(name) {
            return Ok(s.clone());
        }
        let mut sites = Vec::new();
        for record in self.store.records_using(name_key(name))? {
            let files = self.files_of_record(record)?;
            if !files.iter().any(|f| f.lang == "python") {
                continue;
            }
            let occurrences = self.occurrences(record)?;
            for o in occurrences.iter().filter(|o| o.kind == RefKind::ImportName && o.name == name) {
                for f in &files {
                    sites.push((f.clone(), o.qualifier.clone()));
                }
            }
        }
        let sites = Rc::new(sites);
        self.import_name_sites.borrow_mut().insert(name.to_owned(), sites.clone());
        Ok(sites)
    }

    /// The files that re-export `name` from `target` (`from .app import Flask` in a package's
    /// `__init__.py`), transitively, without defining a `name` of their own.
    fn exporters(&self, name: &str, target: &File) -> Result<Rc<Vec<String>>, StoreError> {
        let key = (name.to_owned(), target.fv);
        if let Some(e) = self.exporters.borrow().get(&key) {
            return Ok(e.clone());
        }
        let sites = self.import_name_sites(name)?;
        let mut reached: Vec<String> = vec![target.path.clone()];
        let mut seen: HashSet<u32> = HashSet::from([target.fv]);
        let mut next = 0;
        while next < reached.len() && reached.len() <= MAX_EXPORTERS {
            let module = reached[next].clone();
            next += 1;
            for (f, spec) in sites.iter() {
                if seen.contains(&f.fv) || !self.module_is(f, spec, &module)? {
                    continue;
                }
                seen.insert(f.fv);
                let defines = self.symbols(f.record)?.iter().any(|s| s.name == name && s.parent.is_none());
                if !defines {
                    reached.push(f.path.clone());
                }
            }
        }
        reached.remove(0);
        let reached = Rc::new(reached);
        self.exporters.borrow_mut().insert(key, reached.clone());
        Ok(reached)
    }

    /// `module.f` in `file`, where `module` is imported as a module (`import requests`): the
    /// module's own top-level function `f`, or the one it re-exports
    /// (`from .api import post` in a package's `__init__.py`), when there is one.
    pub(super) fn module_function(&self, file: &File, module: &str, name: &str) -> Result<Option<Def>, StoreError> {
        let Some(module) = self.module_named(file, module)? else { return Ok(None) };
        let mut found = None;
        for d in self.definitions(name)?.iter() {
            if d.symbol.parent.is_none()
                && d.symbol.kind == "function"
                && self.imported_from(file, &module.spec, name, d)?
            {
                if found.is_some() {
                    return Ok(None);
                }
                found = Some(d.clone());
            }
        }
        Ok(found)
    }

    /// The module a qualifier names in `file`, when its first segment is bound by an import:
    /// `os.path` after `import os`, `views` after `from . import views`.
    pub(super) fn module_named(&self, file: &File, qualifier: &str) -> Result<Option<Module>, StoreError> {
        if qualifier.contains(['(', '[', ' ']) {
            return Ok(None);
        }
        let head = qualifier.split('.').next().unwrap_or(qualifier);
        let rest = qualifier[head.len()..].trim_start_matches('.');
        let imports = self.imports_of(file)?;
        if imports.iter().any(|(spec, _)| !spec.starts_with('.') && spec.split('.').next() == Some(head)) {
            return Ok(Some(Module { spec: qualifier.to_owned(), certain: true }));
        }
        // `import json as _json`: the import's qualifier is the name it binds.
        let renamed = self.occurrences(file.record)?;
        if let Some(import) = renamed.iter().find(|o| o.kind == RefKind::Import && o.qualifier == head) {
            let spec = if rest.is_empty() { import.name.clone() } else { format!("{}.{rest}", import.name) };
            return Ok(Some(Module { spec, certain: true }));
        }
        // `from pkg import mod` binds `mod`, which may be a module or anything `pkg` defines.
        if let Some(from) = self.imported_names_in(file, head)?.into_iter().next() {
            let mut spec = if from.ends_with('.') { format!("{from}{head}") } else { format!("{from}.{head}") };
            if !rest.is_empty() {
                spec = format!("{spec}.{rest}");
            }
            return Ok(Some(Module { spec, certain: false }));
        }
        Ok(None)
    }
}

/// A module named by a qualifier.
pub(super) struct Module {
    /// The module as an import would write it (`flask.json`, `.views`).
    spec: String,
    /// Whether the qualifier is surely a module (`import m`), not maybe a class.
    pub(super) certain: bool,
}
