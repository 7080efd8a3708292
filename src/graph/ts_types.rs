//! The declared type of a TypeScript or JavaScript receiver, where the code says it: a
//! parameter of an enclosing function with a type annotation (`options: Options`), or, for a
//! function assigned to a typed constant (`const persistImpl: PersistImpl = (config,
//! baseOptions) => ...`), the annotation of the same parameter in that function type's
//! definition (`type PersistImpl = (initializer: ..., options: PersistOptions<T>) => ...`).
//! A member on such a receiver (`options.context`) is one of that type's members.
//!
//! An object literal's key passed to a call (`persist(fn, {name: "x"})`, qualified
//! `persist()#1` by the extractor) names a member of the type the callee declares for that
//! parameter: the callee's own annotation, or that of the function type it is declared with
//! (`const f: F = ...`) or cast to (`const persist = persistImpl as unknown as Persist`). Such
//! a key resolves to that member or to nothing: it is never matched by name alone.
//!
//! No inference beyond that: a local binding, a return value, a generic's argument or an
//! intersection has no known type here, and the generic rules apply.

use super::receivers::ancestors;
use super::signatures::{parenthesised, split_top_with};
use super::{Confidence, Def, Resolution, Use, ViewGraph, enclosing_type, last_segment};
use crate::extract::{Occurrence, RefKind};
use crate::store::StoreError;

/// Members of JavaScript's and the web platform's builtin types (arrays, strings, maps and
/// sets, promises, errors, `fetch`'s requests and responses) that code calls or reads on values
/// of those types all the time.
pub(super) const BUILTIN_MEMBERS: &[&str] = &[
    "at",
    "body",
    "catch",
    "charAt",
    "clear",
    "clone",
    "concat",
    "delete",
    "endsWith",
    "entries",
    "every",
    "filter",
    "finally",
    "find",
    "findIndex",
    "flat",
    "flatMap",
    "forEach",
    "get",
    "has",
    "headers",
    "includes",
    "indexOf",
    "join",
    "keys",
    "length",
    "map",
    "match",
    "message",
    "method",
    "ok",
    "pop",
    "push",
    "reduce",
    "replace",
    "reverse",
    "set",
    "shift",
    "signal",
    "size",
    "slice",
    "some",
    "sort",
    "splice",
    "split",
    "stack",
    "startsWith",
    "status",
    "statusText",
    "substring",
    "then",
    "toLowerCase",
    "toString",
    "toUpperCase",
    "trim",
    "unshift",
    "url",
    "values",
];

/// Symbol kinds that declare parameters.
const FUNCTION_KINDS: &[&str] = &["function", "method", "constructor"];
/// Symbol kinds a function type can be declared as.
const TYPE_KINDS: &[&str] = &["type", "interface"];
/// Wrappers whose members are their argument's (`Partial<Options>` has `Options`'s).
const SAME_MEMBERS: &[&str] = &["Partial", "Required", "Readonly", "NonNullable", "Omit", "Pick"];

impl ViewGraph<'_> {
    /// The name of the type `name` is declared with where `u` reads it, when a parameter of an
    /// enclosing function says it.
    pub(super) fn js_receiver_type(&self, u: &Use, name: &str) -> Result<Option<String>, StoreError> {
        let symbols = self.symbols(u.file.record)?;
        for function in ancestors(&symbols, u.occurrence.caller).filter(|s| FUNCTION_KINDS.contains(&s.kind.as_str())) {
            let Some((index, annotation)) = parameter(&function.signature, name) else {
                // Not this function's parameter: an outer function's, perhaps.
                continue;
            };
            if let Some(annotation) = annotation {
                return Ok(type_name(annotation));
            }
            // An untyped parameter of a function assigned to a typed constant.
            let Some(alias) = typed_constant(&function.signature) else { return Ok(None) };
            for def in self.definitions(alias)?.iter().filter(|d| TYPE_KINDS.contains(&d.symbol.kind.as_str())) {
                if let Some(annotation) = nth_parameter(&def.symbol.signature, index).and_then(|(_, a)| a) {
                    return Ok(type_name(annotation));
                }
            }
            return Ok(None);
        }
        self.constant_type(u, name)
    }

    /// The type of a module-level constant `name` as seen from `u`'s file (its own, or one it
    /// imports): its annotation (`const api: Api = ...`), the class it is built from
    /// (`= new Api()`), or the return annotation of the function whose call it holds
    /// (`const ky = createInstance()` with `(...): KyInstance =>`).
    fn constant_type(&self, u: &Use, name: &str) -> Result<Option<String>, StoreError> {
        let definitions = self.definitions(name)?;
        if definitions.is_empty() {
            return Ok(None);
        }
        // A module-level constant, wherever in the file it is read.
        let anywhere = Use { file: u.file.clone(), occurrence: Occurrence { caller: None, ..u.occurrence.clone() } };
        let Some(def) = self.resolved_bare(&anywhere, name, &definitions)? else { return Ok(None) };
        if def.symbol.parent.is_some() || !matches!(def.symbol.kind.as_str(), "constant" | "variable") {
            return Ok(None);
        }
        let signature = &def.symbol.signature;
        let declared = split_top(signature, '=')[0];
        if let Some((_, annotation)) = declared.split_once(':') {
            return Ok(type_name(annotation));
        }
        let Some(value) = split_top(signature, '=').get(1).map(|v| v.trim()) else { return Ok(None) };
        if let Some(class) = value.strip_prefix("new ") {
            return Ok(type_name(class.split('(').next().unwrap_or_default()));
        }
        let Some((callee, _)) = value.split_once('(') else { return Ok(None) };
        let callee = callee.rsplit('.').next().unwrap_or(callee).trim();
        if !super::signatures::is_identifier(callee) {
            return Ok(None);
        }
        let at = Use {
            file: def.file.clone(),
            occurrence: Occurrence { line: def.symbol.name_line, caller: None, ..u.occurrence.clone() },
        };
        let functions = self.definitions(callee)?;
        let Some(function) = self.resolved_bare(&at, callee, &functions)? else { return Ok(None) };
        Ok(return_annotation(&function.symbol.signature).and_then(type_name))
    }

    /// The one definition among `definitions` a bare `name` read where `u` is means, when it
    /// is one (not `ambiguous`).
    fn resolved_bare<'d>(&self, u: &Use, name: &str, definitions: &'d [Def]) -> Result<Option<&'d Def>, StoreError> {
        let bare = Use {
            file: u.file.clone(),
            occurrence: Occurrence {
                kind: RefKind::Name,
                name: name.to_owned(),
                qualifier: String::new(),
                ..u.occurrence.clone()
            },
        };
        let resolution = self.resolve(&bare, definitions)?;
        Ok(match (resolution.targets.as_slice(), resolution.confidence) {
            (_, Confidence::Ambiguous) => None,
            ([one], _) => definitions.get(*one),
            _ => None,
        })
    }
}

/// The return annotation of a function's signature: `KyInstance` of
/// `const createInstance = (defaults?: Partial<Options>): KyInstance =>` or
/// `function f(a: A): R`.
fn return_annotation(signature: &str) -> Option<&str> {
    let (_, after) = parenthesised(signature)?;
    let annotation = after.trim_start().strip_prefix(':')?;
    let end = annotation.find("=>").or_else(|| annotation.find('{')).unwrap_or(annotation.len());
    Some(annotation[..end].trim())
}

impl ViewGraph<'_> {
    /// What an object literal's key passed to `callee`'s argument `index` means: the member
    /// of that name of the parameter's declared type, or nothing.
    pub(super) fn resolve_argument_key(
        &self,
        u: &Use,
        callee: &str,
        index: usize,
        candidates: &[Def],
        pool: &[usize],
    ) -> Result<Resolution, StoreError> {
        let nothing = Resolution { confidence: Confidence::Ambiguous, targets: Vec::new() };
        let Some(ty) = self.argument_type(u, callee, index)? else { return Ok(nothing) };
        let TypedMembers::Found(members) = self.members_of_type(&ty, candidates, pool)? else { return Ok(nothing) };
        Ok(match members.as_slice() {
            [] => nothing,
            [one] => Resolution {
                confidence: if candidates[*one].file.fv == u.file.fv {
                    Confidence::Resolved
                } else {
                    Confidence::Import
                },
                targets: members,
            },
            _ => Resolution { confidence: Confidence::Ambiguous, targets: members },
        })
    }

    /// The type `callee` (as called where `u` is) declares for its parameter `index`.
    fn argument_type(&self, u: &Use, callee: &str, index: usize) -> Result<Option<String>, StoreError> {
        let definitions = self.definitions(callee)?;
        let Some(function) = self.resolved_bare(u, callee, &definitions)? else { return Ok(None) };
        let signature = &function.symbol.signature;
        if let Some((_, Some(annotation))) = nth_parameter(signature, index) {
            return Ok(type_name(annotation));
        }
        let Some(alias) = typed_constant(signature).or_else(|| cast_type(signature)) else { return Ok(None) };
        for def in self.definitions(alias)?.iter().filter(|d| TYPE_KINDS.contains(&d.symbol.kind.as_str())) {
            if let Some((_, Some(annotation))) = nth_parameter(&def.symbol.signature, index) {
                return Ok(type_name(annotation));
            }
        }
        Ok(None)
    }
}

/// What a type's members among the candidates are.
pub(super) enum TypedMembers {
    /// Those of the type or, when it has none of the name, of the nearest type it extends.
    Found(Vec<usize>),
    /// The view does not define the type (a library's, the platform's): none of its members.
    External,
    /// The view defines it, but none of the candidates is its or its bases' member as far as
    /// its declarations say.
    Unknown,
}

/// Bases followed up a type's hierarchy, at most.
const MAX_BASES: usize = 16;

impl ViewGraph<'_> {
    /// The candidates (indices into `candidates`, among `pool`) that are members of type `ty`,
    /// looked up in `ty` first, then in what it extends (`interface A extends B, Omit<C, 'x'>`,
    /// `type A = B & C`), nearest first.
    pub(super) fn members_of_type(
        &self,
        ty: &str,
        candidates: &[Def],
        pool: &[usize],
    ) -> Result<TypedMembers, StoreError> {
        let mut queue = std::collections::VecDeque::from([ty.to_owned()]);
        let mut seen = std::collections::HashSet::new();
        let mut defined = false;
        while let Some(name) = queue.pop_front() {
            if !seen.insert(name.clone()) || seen.len() > MAX_BASES {
                continue;
            }
            let members: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&i| {
                    let c = &candidates[i];
                    last_segment(enclosing_type(&c.symbol.qualified_name, c.file.lang)) == Some(name.as_str())
                })
                .collect();
            if !members.is_empty() {
                return Ok(TypedMembers::Found(members));
            }
            for def in self.definitions(&name)?.iter() {
                if !matches!(def.symbol.kind.as_str(), "interface" | "class" | "type") {
                    continue;
                }
                defined = true;
                queue.extend(bases(&def.symbol.signature));
            }
        }
        Ok(if defined { TypedMembers::Unknown } else { TypedMembers::External })
    }
}

/// The types a class, interface or type alias's signature builds on: `B`, `C` of
/// `interface A extends B, Omit<C, 'x'>`, `class A extends B implements C`, `type A = B & C`.
fn bases(signature: &str) -> Vec<String> {
    let s = signature.trim();
    let list = if let Some((_, right)) = s.split_once(" = ") {
        // A type alias: the parts of an intersection.
        split_top(right, '&')
    } else if let Some((_, right)) = s.split_once(" extends ") {
        let right = right.split(" implements ").next().unwrap_or(right);
        split_top(right, ',')
    } else {
        Vec::new()
    };
    list.into_iter().filter_map(|part| type_name(part.trim())).collect()
}

/// The call and argument an object literal's key is passed to, from its qualifier
/// (`persist()#1`).
pub fn argument_key(qualifier: &str) -> Option<(&str, usize)> {
    let (callee, index) = qualifier.split_once("()#")?;
    Some((callee, index.parse().ok()?))
}

/// The type a constant is cast to: `Persist` of `const persist = persistImpl as unknown as
/// Persist`.
fn cast_type(signature: &str) -> Option<&str> {
    let (_, target) = signature.trim().trim_end_matches(';').rsplit_once(" as ")?;
    let head = target.trim().split('<').next()?.trim();
    (!head.is_empty() && head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')).then_some(head)
}

/// Splits `s` at `separator` where no bracket, angle bracket or string is open.
fn split_top(s: &str, separator: char) -> Vec<&str> {
    split_top_with(s, separator, true)
}

/// The parameters of a signature: each name with its annotation, if any.
fn parameters(signature: &str) -> Vec<(&str, Option<&str>)> {
    // The first parentheses: after the name and any type parameters (`function f<T>(a: T)`,
    // `type F = <T>(a: T) => R`, `const f: F = (a, b) =>`).
    let Some((list, _)) = parenthesised(signature) else { return Vec::new() };
    split_top(list, ',')
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let declared = split_top(p, '=')[0];
            let (name, annotation) = match split_top(declared, ':').as_slice() {
                [name] => (*name, None),
                [name, annotation, ..] => (*name, Some(annotation.trim())),
                [] => ("", None),
            };
            let name = name.trim().trim_start_matches("...").trim_end_matches('?');
            // Constructor parameter properties: `private readonly options: Options`.
            let name = name.rsplit(' ').next().unwrap_or(name);
            (name, annotation)
        })
        .collect()
}

/// Parameter `name` of a signature: its position and annotation.
fn parameter<'s>(signature: &'s str, name: &str) -> Option<(usize, Option<&'s str>)> {
    parameters(signature).into_iter().enumerate().find(|(_, (n, _))| *n == name).map(|(i, (_, a))| (i, a))
}

/// The parameter at `index` of a signature.
fn nth_parameter(signature: &str, index: usize) -> Option<(&str, Option<&str>)> {
    parameters(signature).into_iter().nth(index)
}

/// The type a constant holding a function is declared with: `PersistImpl` of
/// `const persistImpl: PersistImpl = (config, baseOptions) => ...`.
fn typed_constant(signature: &str) -> Option<&str> {
    let s = signature.trim();
    let s = s.strip_prefix("export ").unwrap_or(s);
    let rest = ["const ", "let ", "var "].iter().find_map(|k| s.strip_prefix(k))?;
    let declared = split_top(rest, '=')[0];
    let (_, annotation) = declared.split_once(':')?;
    let head = annotation.trim().split('<').next()?.trim();
    (!head.is_empty() && head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')).then_some(head)
}

/// The name of the one type an annotation names: `Options` of `Options`,
/// `PersistOptions<T, U>`, `Options | undefined`, `Partial<Options>`, `ns.Options`; `None`
/// for a union of types, a function type, an object literal type, an array.
fn type_name(annotation: &str) -> Option<String> {
    let parts: Vec<&str> = split_top(annotation.trim(), '|')
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty() && !matches!(*p, "undefined" | "null"))
        .collect();
    let [one] = parts.as_slice() else { return None };
    let (head, arguments) = match one.split_once('<') {
        Some((head, rest)) => (head.trim(), Some(rest.strip_suffix('>')?)),
        None => (*one, None),
    };
    let last = head.rsplit('.').next().unwrap_or(head);
    if !head.split('.').all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')) {
        return None;
    }
    if SAME_MEMBERS.contains(&last)
        && let Some(arguments) = arguments
    {
        // `Omit<Options, 'x'>` and `Pick<...>` keep (some of) their first argument's members.
        return type_name(split_top(arguments, ',')[0]);
    }
    last.starts_with(|c: char| c.is_uppercase()).then(|| last.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_their_types_from_signatures() {
        let sig = "function createJSONStorage<S, R = unknown>( getStorage: () => StateStorage<R>, \
                   options?: JsonStorageOptions, ): PersistStorage<S, unknown> | undefined";
        assert_eq!(parameter(sig, "options"), Some((1, Some("JsonStorageOptions"))));
        assert_eq!(parameter(sig, "getStorage"), Some((0, Some("() => StateStorage<R>"))));
        assert_eq!(parameter(sig, "missing"), None);
        let alias = "type PersistImpl = <T>( storeInitializer: StateCreator<T, [], []>, \
                     options: PersistOptions<T, T>, ) => StateCreator<T, [], []>";
        assert_eq!(nth_parameter(alias, 1), Some(("options", Some("PersistOptions<T, T>"))));
        let constant = "const persistImpl: PersistImpl = (config, baseOptions) => (set, get, api) =>";
        assert_eq!(parameter(constant, "baseOptions"), Some((1, None)));
        assert_eq!(typed_constant(constant), Some("PersistImpl"));
        assert_eq!(typed_constant("const f = (a) => a"), None);
        assert_eq!(cast_type("const persist = persistImpl as unknown as Persist"), Some("Persist"));
        assert_eq!(cast_type("const x = y"), None);
        assert_eq!(argument_key("persist()#1"), Some(("persist", 1)));
        assert_eq!(argument_key("options"), None);
        assert_eq!(
            return_annotation("const createInstance = (defaults?: Partial<Options>): KyInstance =>"),
            Some("KyInstance")
        );
        assert_eq!(return_annotation("function f(a: A): Promise<R>"), Some("Promise<R>"));
        assert_eq!(return_annotation("function f(a)"), None);
        assert_eq!(
            parameter("constructor(private readonly options: NormalizedOptions, ...rest: Input[])", "options"),
            Some((0, Some("NormalizedOptions")))
        );
    }

    #[test]
    fn an_annotation_names_one_type_or_none() {
        assert_eq!(type_name("Options").as_deref(), Some("Options"));
        assert_eq!(type_name("PersistOptions<T, U>").as_deref(), Some("PersistOptions"));
        assert_eq!(type_name("Options | undefined").as_deref(), Some("Options"));
        assert_eq!(type_name("Partial<Options>").as_deref(), Some("Options"));
        assert_eq!(type_name("ky.Options").as_deref(), Some("Options"));
        assert_eq!(type_name("A | B"), None);
        assert_eq!(type_name("() => void"), None);
        assert_eq!(type_name("{ a: string }"), None);
        assert_eq!(type_name("string"), None);
        assert_eq!(type_name("Options[]"), None);
        assert_eq!(type_name("Omit<RequestInit, 'headers'>").as_deref(), Some("RequestInit"));
        assert_eq!(
            bases("export interface Options extends KyOptions, Omit<RequestInit, 'headers'>"),
            ["KyOptions", "RequestInit"]
        );
        assert_eq!(bases("class A extends B implements C"), ["B"]);
        assert_eq!(bases("type A = B & Partial<C> & {x: number}"), ["B", "C"]);
        assert!(bases("interface Plain").is_empty());
    }
}
