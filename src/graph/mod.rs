//! The symbol graph's per-view half: which definition a reference means, in one view.
//!
//! The per-blob half (`extract::occurrences`, `store::occurrences`) says what each blob
//! references, by name. Here a reference is resolved against the definitions *of the view*:
//! the same file first, then the files its imports name, then its directory, then a name unique
//! in the view; anything else is `ambiguous` with its candidates. Nothing is cached across
//! views: the same blob can resolve differently at two refs (an import that now points
//! elsewhere), so every answer is computed from the view it is asked of.

pub mod imports;
mod receivers;
mod scope;
mod signatures;
mod ts_types;

use ts_types::TypedMembers;
pub use ts_types::argument_key;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use roaring::RoaringBitmap;

use crate::extract::{Occurrence, RefKind, Role};
use crate::git::ObjectId;
use crate::lang;
use crate::store::occurrences::{import_key, name_key};
use crate::store::{Store, StoreError, SymbolRow};

/// Lines between two imports of a module's leading block, at most (a statement importing many
/// names spans several lines).
const IMPORT_BLOCK_GAP: u32 = 40;

/// How sure a resolution is, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// Defined in the same file.
    Resolved,
    /// Defined in a file the referencing file imports.
    Import,
    /// Defined in the referencing file's directory.
    SamePackage,
    /// The only definition of the name in the view.
    UniqueName,
    /// Several definitions could be meant; none is preferred.
    Ambiguous,
}

impl Confidence {
    /// The name used in JSON and text.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Resolved => "resolved",
            Confidence::Import => "import",
            Confidence::SamePackage => "same_package",
            Confidence::UniqueName => "unique_name",
            Confidence::Ambiguous => "ambiguous",
        }
    }
}

/// Languages whose files reference each other's definitions.
pub fn family(lang: &str) -> &str {
    match lang {
        "c" | "cpp" => "c",
        "javascript" | "typescript" | "tsx" => "js",
        "java" | "kotlin" | "scala" | "groovy" => "jvm",
        other => other,
    }
}

/// A file of the view with a parsed record.
#[derive(Debug)]
pub struct File {
    /// File version id.
    pub fv: u32,
    /// Repository path.
    pub path: String,
    /// Language name.
    pub lang: &'static str,
    /// The blob.
    pub blob: ObjectId,
    /// Its record (symbols and references).
    pub record: i64,
}

/// A definition in the view.
#[derive(Clone, Debug)]
pub struct Def {
    /// Where.
    pub file: Rc<File>,
    /// What.
    pub symbol: SymbolRow,
}

impl Def {
    /// Identity within a view: file version and symbol.
    pub fn key(&self) -> (u32, u32) {
        (self.file.fv, self.symbol.ord)
    }
}

/// A reference in the view.
#[derive(Clone, Debug)]
pub struct Use {
    /// Where.
    pub file: Rc<File>,
    /// What.
    pub occurrence: Occurrence,
}

/// A reference resolved against candidate definitions.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// How sure.
    pub confidence: Confidence,
    /// Indices into the candidates: one unless ambiguous.
    pub targets: Vec<usize>,
}

/// A file's import specifiers with their lines.
pub type Imports = Vec<(String, u32)>;

/// One view's graph: lookups by name, cached for the life of one request.
pub struct ViewGraph<'s> {
    store: &'s Store,
    bitmap: &'s RoaringBitmap,
    max_file_size: u64,
    files: RefCell<HashMap<u32, Option<Rc<File>>>>,
    record_files: RefCell<HashMap<i64, Vec<Rc<File>>>>,
    occurrences: RefCell<HashMap<i64, Rc<Vec<Occurrence>>>>,
    symbols: RefCell<HashMap<i64, Rc<Vec<SymbolRow>>>>,
    definitions: RefCell<HashMap<String, Rc<Vec<Def>>>>,
    imports: RefCell<HashMap<i64, Rc<Imports>>>,
    symbol_cache: RefCell<HashMap<(i64, u32), Option<SymbolRow>>>,
    import_patterns: RefCell<HashMap<u32, Rc<Vec<imports::Pattern>>>>,
    import_name_sites: RefCell<HashMap<String, Rc<scope::ImportNameSites>>>,
    exporters: RefCell<HashMap<scope::ExportKey, Rc<Vec<String>>>>,
    receivers: RefCell<HashMap<receivers::ReceiverKey, Option<receivers::Lineage>>>,
    imported_by_name: RefCell<HashMap<u32, Rc<HashSet<String>>>>,
    lineages: RefCell<HashMap<(u32, u32), receivers::Lineage>>,
    bindings: RefCell<HashMap<i64, Rc<receivers::Bindings>>>,
}

impl<'s> ViewGraph<'s> {
    /// The graph of the view whose file versions are `bitmap`.
    pub fn new(store: &'s Store, bitmap: &'s RoaringBitmap, max_file_size: u64) -> ViewGraph<'s> {
        ViewGraph {
            store,
            bitmap,
            max_file_size,
            files: RefCell::default(),
            record_files: RefCell::default(),
            occurrences: RefCell::default(),
            symbols: RefCell::default(),
            definitions: RefCell::default(),
            imports: RefCell::default(),
            symbol_cache: RefCell::default(),
            import_patterns: RefCell::default(),
            import_name_sites: RefCell::default(),
            exporters: RefCell::default(),
            receivers: RefCell::default(),
            imported_by_name: RefCell::default(),
            lineages: RefCell::default(),
            bindings: RefCell::default(),
        }
    }

    /// The store.
    pub fn store(&self) -> &'s Store {
        self.store
    }

    /// The view's file versions.
    pub fn bitmap(&self) -> &'s RoaringBitmap {
        self.bitmap
    }

    fn current_key(&self, lang: &str) -> String {
        crate::indexer::record_key(lang, self.max_file_size)
    }

    /// The file version `fv` of the view, with its current record; `None` when it has none.
    pub fn file(&self, fv: u32) -> Result<Option<Rc<File>>, StoreError> {
        if let Some(f) = self.files.borrow().get(&fv) {
            return Ok(f.clone());
        }
        let file = match self.store.file_infos([fv])?.pop() {
            Some(info) if info.skip.is_none() && self.bitmap.contains(fv) => match lang::by_name(&info.lang) {
                Some(language) => {
                    self.store.record(info.blob_id, language.name, &self.current_key(language.name))?.map(|r| {
                        Rc::new(File {
                            fv,
                            path: info.path_str(),
                            lang: language.name,
                            blob: info.blob_id,
                            record: r.id,
                        })
                    })
                }
                None => None,
            },
            _ => None,
        };
        self.files.borrow_mut().insert(fv, file.clone());
        Ok(file)
    }

    /// The file at `path` in the view.
    pub fn file_at(&self, path: &str) -> Result<Option<Rc<File>>, StoreError> {
        let path = path.trim_start_matches("./").trim_start_matches('/');
        for info in self.store.file_versions_at(path.as_bytes())? {
            if self.bitmap.contains(info.id) {
                return self.file(info.id);
            }
        }
        Ok(None)
    }

    /// The files of the view holding record `record`.
    fn files_of_record(&self, record: i64) -> Result<Vec<Rc<File>>, StoreError> {
        if let Some(f) = self.record_files.borrow().get(&record) {
            return Ok(f.clone());
        }
        let mut files = Vec::new();
        for (info, extractor) in self.store.file_versions_of_record(record)? {
            if !self.bitmap.contains(info.id) || info.skip.is_some() {
                continue;
            }
            let Some(language) = lang::by_name(&info.lang) else { continue };
            if extractor != self.current_key(language.name) {
                continue;
            }
            let file =
                Rc::new(File { fv: info.id, path: info.path_str(), lang: language.name, blob: info.blob_id, record });
            self.files.borrow_mut().insert(info.id, Some(file.clone()));
            files.push(file);
        }
        self.record_files.borrow_mut().insert(record, files.clone());
        Ok(files)
    }

    /// The references of a record.
    pub fn occurrences(&self, record: i64) -> Result<Rc<Vec<Occurrence>>, StoreError> {
        if let Some(o) = self.occurrences.borrow().get(&record) {
            return Ok(o.clone());
        }
        // Damaged data reads as no references; `doctor` reports it and `index --force` repairs it.
        let list = Rc::new(self.store.occurrences_of(record)?.unwrap_or_default());
        self.occurrences.borrow_mut().insert(record, list.clone());
        Ok(list)
    }

    /// The symbols of a record, by ord.
    pub fn symbols(&self, record: i64) -> Result<Rc<Vec<SymbolRow>>, StoreError> {
        if let Some(s) = self.symbols.borrow().get(&record) {
            return Ok(s.clone());
        }
        let list = Rc::new(self.store.symbols_of(record)?);
        self.symbols.borrow_mut().insert(record, list.clone());
        Ok(list)
    }

    /// The symbol a reference sits in.
    pub fn caller_of(&self, u: &Use) -> Result<Option<SymbolRow>, StoreError> {
        let Some(ord) = u.occurrence.caller else {
            return Ok(None);
        };
        if let Some(symbols) = self.symbols.borrow().get(&u.file.record) {
            return Ok(symbols.get(ord as usize).cloned());
        }
        let key = (u.file.record, ord);
        if let Some(s) = self.symbol_cache.borrow().get(&key) {
            return Ok(s.clone());
        }
        let symbol = self.store.symbol_at(u.file.record, ord)?;
        self.symbol_cache.borrow_mut().insert(key, symbol.clone());
        Ok(symbol)
    }

    /// The definitions (not declarations) named `name` in the view, exactly; declarations
    /// only when there is no definition.
    pub fn definitions(&self, name: &str) -> Result<Rc<Vec<Def>>, StoreError> {
        if let Some(d) = self.definitions.borrow().get(name) {
            return Ok(d.clone());
        }
        let mut defs = Vec::new();
        let mut declarations = Vec::new();
        for (symbol, fv, _, _) in self.store.symbols_named(name)? {
            if symbol.name != name || !self.bitmap.contains(fv) {
                continue;
            }
            let Some(file) = self.file(fv)? else { continue };
            if file.record != symbol.record {
                continue;
            }
            let def = Def { file, symbol };
            if def.symbol.role == Role::Definition { defs.push(def) } else { declarations.push(def) }
        }
        if defs.is_empty() {
            defs = declarations;
        }
        defs.sort_by(|a, b| (&a.file.path, a.symbol.ord).cmp(&(&b.file.path, b.symbol.ord)));
        defs.dedup_by_key(|d| d.key());
        let defs = Rc::new(defs);
        self.definitions.borrow_mut().insert(name.to_owned(), defs.clone());
        Ok(defs)
    }

    /// Every reference to the name `name` in the view (imports excluded), by path and line.
    pub fn uses(&self, name: &str) -> Result<Vec<Use>, StoreError> {
        let mut out = Vec::new();
        for record in self.store.records_using(name_key(name))? {
            let files = self.files_of_record(record)?;
            if files.is_empty() {
                continue;
            }
            // Damaged data reads as no references; `doctor` reports it and `index --force` repairs it. The imports come in the
            // same read: resolving these uses needs them.
            let (imports, occurrences): (Vec<Occurrence>, Vec<Occurrence>) = self
                .store
                .occurrences_named_and_imports(record, name)?
                .unwrap_or_default()
                .into_iter()
                .partition(|o| o.kind == RefKind::Import);
            if !self.imports.borrow().contains_key(&record) {
                let list = imports.into_iter().map(|o| (o.name, o.line)).collect();
                self.imports.borrow_mut().insert(record, Rc::new(list));
            }
            for o in occurrences.iter().filter(|o| o.name == name) {
                for file in &files {
                    out.push(Use { file: file.clone(), occurrence: o.clone() });
                }
            }
        }
        out.sort_by(|a, b| {
            (&a.file.path, a.occurrence.line, a.occurrence.column).cmp(&(
                &b.file.path,
                b.occurrence.line,
                b.occurrence.column,
            ))
        });
        Ok(out)
    }

    /// The import specifiers of a file, with their lines.
    pub fn imports_of(&self, file: &File) -> Result<Rc<Imports>, StoreError> {
        if let Some(i) = self.imports.borrow().get(&file.record) {
            return Ok(i.clone());
        }
        let list: Rc<Imports> = Rc::new(
            self.store.imports_of(file.record)?.unwrap_or_default().into_iter().map(|o| (o.name, o.line)).collect(),
        );
        self.imports.borrow_mut().insert(file.record, list.clone());
        Ok(list)
    }

    /// Every path pattern a file's imports name (an import's meaning depends on the importing
    /// file's path, so this is per file version, not per record).
    fn import_patterns(&self, file: &File) -> Result<Rc<Vec<imports::Pattern>>, StoreError> {
        if let Some(p) = self.import_patterns.borrow().get(&file.fv) {
            return Ok(p.clone());
        }
        let patterns: Rc<Vec<imports::Pattern>> = Rc::new(
            self.imports_of(file)?
                .iter()
                .flat_map(|(spec, _)| imports::patterns(file.lang, &file.path, spec))
                .collect(),
        );
        self.import_patterns.borrow_mut().insert(file.fv, patterns.clone());
        Ok(patterns)
    }

    /// The files of the view whose imports may name `target`, with the importing line.
    pub fn importers(&self, target: &File) -> Result<Vec<(Rc<File>, String, u32)>, StoreError> {
        let mut records: Vec<i64> = Vec::new();
        for segment in imports::segments_naming(target.lang, &target.path) {
            records.extend(self.store.records_using(import_key(&segment))?);
        }
        records.sort_unstable();
        records.dedup();
        let mut out = Vec::new();
        for record in records {
            for file in self.files_of_record(record)? {
                if file.fv == target.fv || family(file.lang) != family(target.lang) {
                    continue;
                }
                for (spec, line) in self.imports_of(&file)?.iter() {
                    if imports::resolves_to(file.lang, &file.path, spec, &target.path) {
                        out.push((file.clone(), spec.clone(), *line));
                        break;
                    }
                }
            }
        }
        out.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        Ok(out)
    }

    /// Whether a pattern's match of `path` starts at a source root: a Python module is not
    /// found inside another package (`json` is not `flask/json`).
    fn rooted(&self, pattern: &imports::Pattern, path: &str) -> Result<bool, StoreError> {
        let Some(above) = pattern.rooted_at(path) else {
            return Ok(true);
        };
        Ok(self.file_at(&format!("{above}/__init__.py"))?.is_none())
    }

    /// The names an ES module imports by name: those on the lines of its leading import
    /// block (imports come first in a module; a dynamic `import()` far below is no part of it).
    fn imported_by_name(&self, file: &File) -> Result<Rc<HashSet<String>>, StoreError> {
        if let Some(names) = self.imported_by_name.borrow().get(&file.fv) {
            return Ok(names.clone());
        }
        let mut lines: Vec<u32> = self.imports_of(file)?.iter().map(|(_, line)| *line).collect();
        lines.sort_unstable();
        let last_import = lines.iter().skip(1).fold(lines.first().copied().unwrap_or(0), |end, &line| {
            if line <= end + IMPORT_BLOCK_GAP { line } else { end }
        });
        let names: HashSet<String> = self
            .occurrences(file.record)?
            .iter()
            .filter(|o| o.kind != RefKind::Import && o.kind.is_use() && o.line <= last_import)
            .map(|o| o.name.clone())
            .collect();
        let names = Rc::new(names);
        self.imported_by_name.borrow_mut().insert(file.fv, names.clone());
        Ok(names)
    }

    /// Which of `candidates` the reference `u` means.
    pub fn resolve(&self, u: &Use, candidates: &[Def]) -> Result<Resolution, StoreError> {
        let family_of_use = family(u.file.lang);
        let mut pool: Vec<usize> =
            (0..candidates.len()).filter(|&i| family(candidates[i].file.lang) == family_of_use).collect();
        self.visible(u, candidates, &mut pool)?;
        if pool.is_empty() {
            return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
        }
        if family_of_use == "python"
            && let Some(decided) = self.resolve_python(u, candidates, &mut pool)?
        {
            return Ok(decided);
        }
        // A qualifier that names a type or module (`Index::find`, `Greeter.greet`, `util.run`)
        // narrows the candidates to that type's or module's members, when any match.
        let qualifier = u.occurrence.qualifier.as_str();
        let self_like = matches!(qualifier, "self" | "this" | "cls" | "Self" | "super" | "@" | "$this" | "static");
        if family_of_use == "js"
            && let Some((callee, index)) = ts_types::argument_key(qualifier)
        {
            return self.resolve_argument_key(u, callee, index, candidates, &pool);
        }
        // A member read on a value (`options.timeout`) is no module-level function or variable
        // of that name, nor a function's local: those are reached by a namespace import only.
        if family_of_use == "js" && !qualifier.is_empty() && !self_like {
            let imports = self.imports_of(&u.file)?;
            if !names_an_imported_module(qualifier, &imports) {
                let mut members = Vec::with_capacity(pool.len());
                for &i in &pool {
                    if self.in_a_type(&candidates[i])? {
                        members.push(i);
                    }
                }
                if members.is_empty() {
                    return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
                }
                pool = members;
            }
        }
        // A receiver whose type a parameter declares (`options: Options`): that type's members.
        let typed = match family_of_use {
            "js" if !self_like && signatures::is_identifier(qualifier) => {
                match self.js_receiver_type(u, qualifier)? {
                    Some(ty) => match self.members_of_type(&ty, candidates, &pool)? {
                        TypedMembers::Found(members) => Some(members),
                        // A type the view does not define (`request: Request`): its members
                        // are not the view's.
                        TypedMembers::External => {
                            return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
                        }
                        TypedMembers::Unknown => None,
                    },
                    None => None,
                }
            }
            _ => None,
        };
        let typed = typed.filter(|m| !m.is_empty());
        // A value of unknown type (`items`, `this.request`) using what builtin types have too
        // (`items.push()`, `error.message`, `this.request.headers`): as likely the builtin's,
        // and listing every such use as maybe this one helps nobody.
        if family_of_use == "js"
            && typed.is_none()
            && !self_like
            && last_segment(qualifier).is_some_and(|last| {
                signatures::is_identifier(last) && last.starts_with(|c: char| c.is_ascii_lowercase())
            })
            && ts_types::BUILTIN_MEMBERS.contains(&u.occurrence.name.as_str())
            && !names_an_imported_module(qualifier, &self.imports_of(&u.file)?)
        {
            return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
        }
        if let Some(members) = typed {
            pool = members;
        } else if self_like {
            if let Some(caller) = self.caller_of(u)? {
                let class = enclosing_type(&caller.qualified_name, u.file.lang);
                let same_class: Vec<usize> = pool
                    .iter()
                    .copied()
                    .filter(|&i| {
                        candidates[i].file.fv == u.file.fv
                            && enclosing_type(&candidates[i].symbol.qualified_name, u.file.lang) == class
                    })
                    .collect();
                if same_class.len() == 1 {
                    return Ok(Resolution { confidence: Confidence::Resolved, targets: same_class });
                }
            }
        } else if let Some(last) = last_segment(qualifier) {
            let narrowed: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&i| {
                    let c = &candidates[i];
                    let parent = enclosing_type(&c.symbol.qualified_name, c.file.lang);
                    // Python's modules were matched by their imports above.
                    last_segment(parent) == Some(last)
                        || (family_of_use != "python"
                            && (file_stem(&c.file.path) == last
                                || imports::file_name(imports::dir_of(&c.file.path)) == last))
                })
                .collect();
            let imports = self.imports_of(&u.file)?;
            if !narrowed.is_empty() && names_an_imported_module(qualifier, &imports) {
                // `json.load` after `import json`: only the module that import means.
                let patterns = self.import_patterns(&u.file)?;
                let mut imported = Vec::new();
                for &i in &narrowed {
                    let path = &candidates[i].file.path;
                    for p in patterns.iter().filter(|p| p.matches(path)) {
                        if self.rooted(p, path)? {
                            imported.push(i);
                            break;
                        }
                    }
                }
                if imported.is_empty() {
                    return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
                }
                pool = imported;
            } else if !narrowed.is_empty() {
                pool = narrowed;
            } else if names_a_type_or_module(qualifier, &imports) {
                // `Vec::new`, `os.path.join`, `fmt.Println`: a member of something the view
                // does not define.
                return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
            }
        }
        // Where a method needs a receiver (`self.m()`, `x.m()`, `Type::m()`), a bare name never
        // means one: `append(xs)` in Go is the builtin, not a method named `append`.
        if qualifier.is_empty() && matches!(u.file.lang, "python" | "go" | "rust" | "javascript" | "typescript" | "tsx")
        {
            pool.retain(|&i| !matches!(candidates[i].symbol.kind.as_str(), "method" | "field" | "property"));
            if pool.is_empty() {
                return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
            }
        }
        let pick = |pool: &[usize], confidence: Confidence| -> Option<Resolution> {
            match pool.len() {
                0 => None,
                1 => Some(Resolution { confidence, targets: pool.to_vec() }),
                _ => Some(Resolution { confidence: Confidence::Ambiguous, targets: pool.to_vec() }),
            }
        };
        let same_file: Vec<usize> = pool.iter().copied().filter(|&i| candidates[i].file.fv == u.file.fv).collect();
        if let Some(r) = pick(&same_file, Confidence::Resolved) {
            return Ok(r);
        }
        let patterns = self.import_patterns(&u.file)?;
        let mut imported = Vec::new();
        for &i in &pool {
            let path = &candidates[i].file.path;
            for p in patterns.iter().filter(|p| p.matches(path)) {
                if self.rooted(p, path)? {
                    imported.push(i);
                    break;
                }
            }
        }
        if let Some(r) = pick(&imported, Confidence::Import) {
            return Ok(r);
        }
        // An ES module sees its own names and those it imports, not a sibling file's (types
        // excepted: a `.d.ts` declares them for every file). A script without imports shares
        // the page's globals. A name imported from a package (`import {create} from
        // "zustand"` in zustand's own tests) may be the view's: the tiers below look.
        if qualifier.is_empty() && family_of_use == "js" && u.occurrence.kind != RefKind::Type {
            let module = u.file.lang != "javascript" || !self.imports_of(&u.file)?.is_empty();
            if module && !self.imported_by_name(&u.file)?.contains(u.occurrence.name.as_str()) {
                return Ok(Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() });
            }
        }
        let dir = imports::dir_of(&u.file.path);
        let same_dir: Vec<usize> =
            pool.iter().copied().filter(|&i| imports::dir_of(&candidates[i].file.path) == dir).collect();
        if let Some(r) = pick(&same_dir, Confidence::SamePackage) {
            return Ok(r);
        }
        Ok(pick(&pool, Confidence::UniqueName).expect("the pool is not empty"))
    }
}

/// The last segment of a qualifier (`b` of `a.b`, `Index` of `crate::index::Index`), `None`
/// for an empty one or a call's result (`f()`).
fn last_segment(qualifier: &str) -> Option<&str> {
    let last = qualifier.rsplit(['.', ':', '>', '\\']).next()?.trim();
    (!last.is_empty() && last.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')).then_some(last)
}

/// Whether a qualifier's first segment is the name an import binds (`os` of `import os.path`,
/// `fmt` of `import "fmt"`).
fn names_an_imported_module(qualifier: &str, imports: &[(String, u32)]) -> bool {
    let Some(first) = qualifier.split(['.', ':', '>', '-']).find(|s| !s.is_empty()) else {
        return false;
    };
    imports.iter().any(|(spec, _)| {
        let parts: Vec<&str> = spec.split(['/', '.', ':', '\\']).filter(|s| !s.is_empty()).collect();
        parts.first() == Some(&first) || parts.last() == Some(&first)
    })
}

/// Whether a qualifier names a type or a module rather than a value: a path (`a::b`), a
/// capitalized segment (`Vec`, `System.out`), or an imported module's name (`os`, `fmt`).
fn names_a_type_or_module(qualifier: &str, imports: &[(String, u32)]) -> bool {
    if qualifier.contains("::") || qualifier.contains('\\') {
        return true;
    }
    let segments: Vec<&str> = qualifier.split(['.', ':', '>', '-']).filter(|s| !s.is_empty()).collect();
    if segments.iter().any(|s| s.chars().next().is_some_and(char::is_uppercase)) {
        return true;
    }
    let Some(first) = segments.first() else {
        return false;
    };
    imports.iter().any(|(spec, _)| {
        let parts: Vec<&str> = spec.split(['/', '.', ':', '\\']).filter(|s| !s.is_empty()).collect();
        parts.first() == Some(first) || parts.last() == Some(first)
    })
}

/// The qualified name of what encloses a symbol (`Greeter` of `Greeter.greet`).
fn enclosing_type<'q>(qualified: &'q str, lang: &str) -> &'q str {
    let separator = lang::by_name(lang).map_or(".", |l| l.separator);
    qualified.rfind(separator).map_or("", |i| &qualified[..i])
}

fn file_stem(path: &str) -> &str {
    let name = imports::file_name(path);
    name.split('.').next().unwrap_or(name)
}

/// Whether a path is a test file: a test directory, or a test file name by the conventions of
/// the common languages (`test_x.py`, `x_test.go`, `x.spec.ts`, `XTest.java`, `x_spec.rb`).
pub fn is_test_path(path: &str) -> bool {
    const DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "specs", "testing", "testdata", "e2e"];
    let name = imports::file_name(path);
    let stem = name.split('.').next().unwrap_or(name);
    imports::dir_of(path).split('/').any(|d| DIRS.contains(&d))
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with("_tests")
        || name.contains(".test.")
        || name.contains(".spec.")
        || (stem.len() > 4 && (stem.ends_with("Test") || stem.ends_with("Tests") || stem.ends_with("Spec")))
        || stem == "conftest"
}

/// The name a test file is about, by convention: `x` of `test_x.py`, `x_test.go`, `x.spec.ts`,
/// `XTest.java`; `None` for a file that is no test by its name.
pub fn tested_stem(path: &str) -> Option<&str> {
    let name = imports::file_name(path);
    let stem = name.split('.').next().unwrap_or(name);
    if let Some(s) = stem.strip_prefix("test_") {
        return Some(s);
    }
    for suffix in ["_test", "_tests", "_spec", "Test", "Tests", "Spec"] {
        if let Some(s) = stem.strip_suffix(suffix)
            && !s.is_empty()
        {
            return Some(s);
        }
    }
    (name.contains(".test.") || name.contains(".spec.")).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_and_the_names_they_test() {
        assert!(is_test_path("tests/test_app.py"));
        assert!(is_test_path("pkg/store_test.go"));
        assert!(is_test_path("src/a.spec.ts"));
        assert!(is_test_path("src/test/java/x/StoreTest.java"));
        assert!(!is_test_path("src/contest.py"));
        assert!(!is_test_path("src/Test.java"));
        assert_eq!(tested_stem("tests/test_app.py"), Some("app"));
        assert_eq!(tested_stem("pkg/store_test.go"), Some("store"));
        assert_eq!(tested_stem("src/a.spec.ts"), Some("a"));
        assert_eq!(tested_stem("StoreTest.java"), Some("Store"));
        assert_eq!(tested_stem("src/app.py"), None);
        assert_eq!(last_segment("crate::index::Index"), Some("Index"));
        assert_eq!(last_segment("self.a"), Some("a"));
        assert_eq!(last_segment("f()"), None);
        assert_eq!(enclosing_type("Greeter.greet", "python"), "Greeter");
        assert_eq!(enclosing_type("Index::find", "rust"), "Index");
    }
}
