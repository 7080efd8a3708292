//! Unit tests of extraction rules that hold across languages.

use super::*;

fn rust() -> &'static Language {
    lang::by_name("rust").expect("rust is in the language table")
}

#[test]
fn broken_syntax_gives_partial_records_and_diagnostics() {
    let source = b"fn good() {}\nfn broken( {\nstruct Later;\n";
    let extraction = extract(rust(), source);
    assert!(extraction.partial);
    assert!(!extraction.diagnostics.is_empty());
    assert!(extraction.symbols.iter().any(|s| s.name == "good"));
}

#[test]
fn signatures_stop_at_the_body_and_docs_take_the_first_paragraph() {
    let source = b"/// Finds it.\n///\n/// More.\npub fn find(\n    a: u8,\n) -> u8 {\n    a\n}\n";
    let extraction = extract(rust(), source);
    let find = &extraction.symbols[0];
    assert_eq!(find.signature, "pub fn find( a: u8, ) -> u8");
    assert_eq!(find.doc.as_deref(), Some("Finds it."));
    assert_eq!(find.visibility.as_deref(), Some("pub"));
    assert_eq!((find.line_start, find.name_line, find.line_end), (4, 4, 8));
}

#[test]
fn stable_id_ignores_position_but_not_signature() {
    let a = extract(rust(), b"fn f(x: u8) {}\n");
    let b = extract(rust(), b"\n\n\nfn f(x: u8) { x; }\n");
    let c = extract(rust(), b"fn f(x: u16) {}\n");
    assert_eq!(a.symbols[0].stable_id, b.symbols[0].stable_id);
    assert_ne!(a.symbols[0].stable_id, c.symbols[0].stable_id);
}

#[test]
fn empty_and_non_utf8_input_never_fail() {
    assert!(extract(rust(), b"").symbols.is_empty());
    let extraction = extract(rust(), b"fn caf\xe9() {}\nfn ok() {}\n");
    assert!(extraction.symbols.iter().any(|s| s.name == "ok"));
}

fn python() -> &'static Language {
    lang::by_name("python").expect("python is in the language table")
}

fn refs(extraction: &Extraction) -> Vec<String> {
    extraction
        .occurrences
        .iter()
        .filter(|o| o.kind.is_use())
        .map(|o| {
            let caller = o.caller.map_or(String::new(), |c| extraction.symbols[c as usize].qualified_name.clone());
            let qualifier = if o.qualifier.is_empty() { String::new() } else { format!("{}.", o.qualifier) };
            format!("{}:{} {} {qualifier}{} in {caller}", o.line, o.column, o.kind.as_str(), o.name)
        })
        .collect()
}

#[test]
fn references_sit_in_their_symbol_and_skip_local_names() {
    let source = b"import os.path\nfrom .util import helper as h\n\ndef run(items, limit=3):\n    total = 0\n    for item in items:\n        total += helper(item, key=limit)\n    return os.path.join(total)\n\nclass A(Base):\n    def go(self) -> Result:\n        return self.run(run)\n";
    let extraction = extract(python(), source);
    let got = refs(&extraction);
    for want in [
        "1:8 import os.path in ",
        "2:6 import .util in ",
        "2:19 import_name .util.helper in ",
        "7:18 call helper in run",
        "8:20 call os.path.join in run",
        "10:9 name Base in A",
        "11:21 type Result in A.go",
        "12:21 call self.run in A.go",
        "12:25 name run in A.go",
    ] {
        assert!(got.iter().any(|g| g == want), "missing `{want}` in {got:#?}");
    }
    for local in ["items", "total", "item", "limit", "self", "key", "h", "util"] {
        assert!(!got.iter().any(|g| g.contains(&format!(" {local} in"))), "`{local}` is local: {got:#?}");
    }
}

#[test]
fn items_inside_item_position_macros_are_symbols() {
    let source = b"cfg_rt! {\n    /// Runs it.\n    pub fn spawn_blocking<F>(f: F) {\n        run(f)\n    }\n}\n\nimpl Handle {\n    cfg_rt! {\n        pub fn enter(&self) {}\n    }\n}\n\nmacro_rules! cfg_rt {\n    ($($item:item)*) => { $($item)* }\n}\n\nfn plain() { println!(\"{}\", 1); }\n";
    let extraction = extract(rust(), source);
    let got: Vec<(String, u32)> = extraction.symbols.iter().map(|s| (s.qualified_name.clone(), s.name_line)).collect();
    assert!(got.contains(&("spawn_blocking".to_owned(), 3)), "{got:?}");
    assert!(got.contains(&("Handle::enter".to_owned(), 10)), "{got:?}");
    assert!(got.contains(&("plain".to_owned(), 18)), "{got:?}");
    let spawn = extraction.symbols.iter().find(|s| s.name == "spawn_blocking").unwrap();
    assert_eq!(spawn.doc.as_deref(), Some("Runs it."));
    assert!(!extraction.partial, "{:?}", extraction.diagnostics);
    let calls: Vec<(&str, u32)> =
        extraction.occurrences.iter().filter(|o| o.kind == RefKind::Call).map(|o| (o.name.as_str(), o.line)).collect();
    assert!(calls.contains(&("run", 4)), "{calls:?}");
}

#[test]
fn python_instance_attributes_are_fields_of_their_class_once_and_later_assignments_uses() {
    let source = b"class A:\n    limit = 1\n\n    def __init__(self):\n        self.x = 1\n        self.limit = 2\n\n    def m(self):\n        if self.x:\n            self.x = 2\n            self.y: int = 3\n\ndef f(self):\n    self.z = 1\n";
    let extraction = extract(python(), source);
    let fields: Vec<(String, u32, Option<String>)> = extraction
        .symbols
        .iter()
        .filter(|s| s.kind == "field")
        .map(|s| {
            let parent = s.parent.map(|p| extraction.symbols[p as usize].qualified_name.clone());
            (s.qualified_name.clone(), s.line_start, parent)
        })
        .collect();
    let a = Some("A".to_owned());
    assert_eq!(
        fields,
        vec![("A.limit".to_owned(), 2, a.clone()), ("A.x".to_owned(), 5, a.clone()), ("A.y".to_owned(), 11, a)]
    );
    // Reads are references, and so are later assignments (and one outside any class).
    let got = refs(&extraction);
    for expected in [
        "9:17 name self.x in A.m",
        "10:18 name self.x in A.m",
        "6:14 name self.limit in A.__init__",
        "14:10 name self.z in f",
    ] {
        assert!(got.iter().any(|g| g == expected), "{expected}: {got:#?}");
    }
    assert!(!got.iter().any(|g| g.starts_with("5:")), "{got:#?}");
}

#[test]
fn python_bindings_keep_the_values_that_type_receivers_and_are_no_uses() {
    let source = b"from .app import App as Base\n\napp = flask.Flask(__name__)\n\ndef client(app):\n    c = app.test_client()\n    with app.app_context() as ctx:\n        yield ctx\n    total = 1 + 2\n    return (await c)\n    for item in c:\n        pass\n    r = requests.Request(m, url=u).prepare().body\n    keys = [k for k in iter(self.jar)]\n    for x in f(a)[0]:\n        pass\n    n = next(iter(self.jar()), None)\n";
    let extraction = extract(python(), source);
    let bindings: Vec<String> = extraction
        .occurrences
        .iter()
        .filter(|o| o.kind == RefKind::Binding)
        .map(|o| {
            let caller = o.caller.map_or(String::new(), |c| extraction.symbols[c as usize].qualified_name.clone());
            format!("{}:{} {} = {} in {caller}", o.line, o.column, o.name, o.qualifier)
        })
        .collect();
    assert_eq!(
        bindings,
        [
            "1:25 Base = App in ",
            "3:1 app = flask.Flask() in app",
            "6:5 c = app.test_client() in client",
            "7:31 ctx = app.app_context() in client",
            "8:15 return = ctx in client",
            "9:5 total =  in client",
            "10:12 return = c in client",
            "11:18 item = c[] in client",
            "13:5 r = requests.Request().prepare().body in client",
            "14:5 keys =  in client",
            "14:12 k = self.jar[] in client",
            "15:21 x =  in client",
            "17:5 n = self.jar()[] in client",
        ],
        "a value that is no name, member or call chain (`1 + 2`, a list, an index) is kept empty; a loop's variable is bound where its body starts"
    );
    // No binding is a use: neither `references` nor the name index sees them.
    assert!(
        refs(&extraction).iter().all(|r| !r.contains(" c in") && !r.contains("return")),
        "{:#?}",
        refs(&extraction)
    );
}

#[test]
fn an_indexed_access_type_names_a_member_of_its_type() {
    let ts = lang::by_name("typescript").expect("typescript is in the language table");
    let source = b"const set: StoreApi<number>['setState'] = (v) => {}\ntype G = api.Store<T>[\"getState\"]\ntype K = T[string]\n";
    let extraction = extract(ts, source);
    let got: Vec<String> = extraction
        .occurrences
        .iter()
        .filter(|o| o.name == "setState" || o.name == "getState")
        .map(|o| format!("{}:{} {} {}.{}", o.line, o.column, o.kind.as_str(), o.qualifier, o.name))
        .collect();
    assert_eq!(got, ["1:30 type StoreApi.setState", "2:24 type api.Store.getState"]);
}

#[test]
fn type_parameters_and_html_elements_are_no_uses_of_the_views_names() {
    let tsx = lang::by_name("tsx").expect("tsx is in the language table");
    let source = b"interface Family<Param> {\n  remove(param: Param): void\n}\n\
type First<T> = T extends [infer A, ...infer Rest] ? A : never\n\
type Keys<T> = { [K in keyof T]: T[K] }\n\
const Page = () => <main><Header /><my-widget /></main>\n\
const Other = (x: Param) => x\n";
    let extraction = extract(tsx, source);
    let names: Vec<String> = extraction
        .occurrences
        .iter()
        .filter(|o| o.kind != RefKind::Binding)
        .map(|o| format!("{}:{}", o.line, o.name))
        .collect();
    // A type parameter is seen in the whole declaration (the method's `Param`), `infer A` and
    // a mapped type's `K` in their type; an HTML element is none of the code's names.
    for local in ["2:Param", "4:A", "4:Rest", "5:K", "6:main", "6:my-widget"] {
        assert!(!names.contains(&local.to_owned()), "{local} in {names:?}");
    }
    // A component is; a `Param` outside the interface is some other `Param`.
    assert!(names.contains(&"6:Header".to_owned()), "{names:?}");
    assert!(names.contains(&"7:Param".to_owned()), "{names:?}");
}

#[test]
fn definitions_alone_are_the_full_extraction_without_occurrences_and_docs() {
    for (language, source) in [
        (
            rust(),
            &b"/// Runs it.\npub fn run(x: u8) -> u8 { helper(x) }\nstruct S { f: u8 }\nimpl S { fn m(&self) {} }\n"[..],
        ),
        (
            python(),
            &b"class A:\n    \"\"\"An A.\"\"\"\n    def m(self):\n        self.x = f(1)\n\ndef f(y):\n    return y\n"[..],
        ),
    ] {
        let full = extract(language, source);
        let alone = definitions(language, source);
        assert!(!full.occurrences.is_empty() && alone.occurrences.is_empty());
        assert!(full.symbols.iter().any(|s| s.doc.is_some()));
        let without_docs: Vec<Symbol> = full.symbols.into_iter().map(|s| Symbol { doc: None, ..s }).collect();
        assert_eq!(alone.symbols, without_docs);
    }
}

#[test]
fn a_typescript_modules_declarations_are_exported_or_private_to_it() {
    let ts = lang::by_name("typescript").expect("typescript is in the language table");
    let source = b"export type A = 1\ntype B = 2\nconst c = 1\nexport const d = 2\nfunction e() {}\nexport { e }\n\
class K {\n  private x = 1\n  y = 2\n}\nexport default class D {}\nnamespace N {\n  export const inner = 1\n}\n\
export { A as Z } from './other'\n";
    let extraction = extract(ts, source);
    let got: Vec<String> = extraction
        .symbols
        .iter()
        .map(|s| format!("{} {}", s.qualified_name, s.visibility.as_deref().unwrap_or("-")))
        .collect();
    for expected in
        ["A export", "B private", "c private", "d export", "e export", "K private", "K.x private", "K.y -", "D export"]
    {
        assert!(got.contains(&expected.to_owned()), "{expected}: {got:?}");
    }
    // A namespace's declaration is no top-level one of the module's.
    assert!(got.iter().any(|g| g.starts_with("N.inner ") && !g.ends_with(" private")), "{got:?}");
}

/// The files under these directories of the crate, in order.
pub(crate) fn files_under(dirs: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_definition_patterns_alone_find_the_same_definitions() {
    // Every language's corpus file, and this crate's own Rust sources as larger real code.
    let files = files_under(&["tests/corpus", "src"]);
    let mut compared = std::collections::BTreeSet::new();
    for path in files {
        let Some(language) = lang::detect_by_path(path.to_string_lossy().as_bytes()) else { continue };
        let source = std::fs::read(&path).unwrap();
        let whole = extract_to(language, &source, false, compiled, Prior::None, None).0;
        let alone = definitions(language, &source);
        assert_eq!(alone.symbols, whole.symbols, "{}", path.display());
        assert_eq!(alone.partial, whole.partial, "{}", path.display());
        // Every definition's kind is one its language's query is read to give.
        let kinds = definition_kinds(language);
        for symbol in alone.symbols.iter().filter(|s| s.role == Role::Definition) {
            assert!(kinds.contains(&symbol.kind), "{}: {} not in {kinds:?}", path.display(), symbol.kind);
        }
        compared.insert(language.name);
    }
    // Each language with definition patterns was compared on at least one file.
    for language in lang::LANGUAGES {
        assert!(compared.contains(language.name), "no corpus file of {}", language.name);
    }
}

#[test]
fn definition_kinds_read_from_a_querys_source_are_its_compiled_captures() {
    for language in lang::LANGUAGES {
        let compiled = compiled(language).unwrap();
        let mut compiled_kinds: Vec<&str> = compiled
            .captures
            .iter()
            .filter_map(|c| match c {
                Capture::Definition(kind) => Some(*kind),
                _ => None,
            })
            .chain(compiled.kinds_if_match())
            .collect();
        compiled_kinds.sort_unstable();
        compiled_kinds.dedup();
        assert_eq!(definition_kinds(language), compiled_kinds.as_slice(), "{}", language.name);
    }
    let python = definition_kinds(lang::by_name("python").unwrap());
    assert!(python.contains(&"function") && python.contains(&"constant"), "{python:?}");
}

#[test]
fn definitions_read_where_their_names_are_spelled_are_a_whole_reads() {
    // For every definition name of every language's corpus file and of this crate's history
    // sources: matching the query only where the name is spelled finds the definitions of
    // that name a whole read finds, with the same qualified names, kinds and ranges.
    let files = files_under(&["tests/corpus", "src/history"]);
    let mut compared = 0;
    for path in files {
        let Some(language) = lang::detect_by_path(path.to_string_lossy().as_bytes()) else { continue };
        let source = std::fs::read(&path).unwrap();
        let whole = definitions(language, &source).symbols;
        let names: std::collections::BTreeSet<&str> = whole.iter().map(|s| s.name.as_str()).collect();
        for name in names {
            let (named, _) = definitions_after(language, &source, Prior::None, Some(&[name]));
            // All but `parent`, an index into the symbols read.
            let key = |s: &Symbol| {
                let mut s = s.clone();
                s.parent = None;
                s
            };
            let expected: Vec<_> = whole.iter().filter(|s| s.name.eq_ignore_ascii_case(name)).map(key).collect();
            assert_eq!(named.symbols.iter().map(key).collect::<Vec<_>>(), expected, "{} {name}", path.display());
            compared += 1;
        }
    }
    assert!(compared > 500, "{compared}");
}
