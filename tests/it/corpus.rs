//! The language corpus: for every language, files under `tests/corpus/<language>/` carry the
//! definitions they expect, annotated next to them, and extraction must find exactly those.
//!
//! An annotation is `@def <kind> <qualified_name>` (or `@decl` for a declaration) in a comment
//! on the line of the symbol's name. A qualified name with spaces is written in double quotes.
//! Languages without comments (JSON), or where a comment would change the name (a markdown
//! heading), put the annotations in a sidecar `<file>.expected`, one per line, prefixed with
//! the line number: `12: @def key name`. A file whose name contains `broken` may have syntax
//! errors; every other corpus file must parse cleanly.
//!
//! References are pinned the same way: `@ref <kind> <name> [in <caller>]` on the line of the
//! reference, where kind is `call`, `type`, `import` or `name`, name is the name as written
//! (an import's module or path as written) and caller the qualified name of the symbol it sits
//! in (none at a file's top level). Every annotated reference must be extracted, and on an
//! annotated line the calls and imports extracted must be exactly the annotated ones.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use codecompass::extract::{self, Role};
use codecompass::lang;

type Expected = BTreeSet<(u32, &'static str, String, String)>;
/// (line, kind, name, caller)
type ExpectedRefs = BTreeSet<(u32, String, String, String)>;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn parse_annotations(line_no: u32, text: &str, out: &mut Expected) {
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        rest = &rest[at + 1..];
        let role = if let Some(r) = rest.strip_prefix("def ") {
            rest = r;
            "def"
        } else if let Some(r) = rest.strip_prefix("decl ") {
            rest = r;
            "decl"
        } else {
            continue;
        };
        let r = rest.trim_start();
        let kind_end = r.find(char::is_whitespace).unwrap_or(r.len());
        let kind = r[..kind_end].to_owned();
        let r = r[kind_end..].trim_start();
        let (name, after) = if let Some(quoted) = r.strip_prefix('"') {
            let end = quoted.find('"').expect("an annotation's quoted name is closed");
            (quoted[..end].to_owned(), &quoted[end + 1..])
        } else {
            let end = r.find(char::is_whitespace).unwrap_or(r.len());
            (r[..end].to_owned(), &r[end..])
        };
        out.insert((line_no, role, kind, name));
        rest = after;
    }
}

fn parse_ref_annotations(line_no: u32, text: &str, out: &mut ExpectedRefs) {
    for part in text.split("@ref ").skip(1) {
        let part = part.split('@').next().unwrap_or(part);
        let words: Vec<&str> = part.split_whitespace().collect();
        let (kind, name) = match words.as_slice() {
            [kind, name, ..] => (kind.to_string(), name.to_string()),
            _ => panic!("line {line_no}: `@ref` needs a kind and a name"),
        };
        let caller = match words.get(2) {
            Some(&"in") => words.get(3).expect("`in` is followed by the caller").to_string(),
            _ => String::new(),
        };
        out.insert((line_no, kind, name, caller));
    }
}

fn expected_refs_for(content: &str) -> ExpectedRefs {
    let mut expected = ExpectedRefs::new();
    for (i, line) in content.lines().enumerate() {
        parse_ref_annotations(i as u32 + 1, line, &mut expected);
    }
    expected
}

fn expected_for(path: &Path, content: &str) -> Expected {
    let mut expected = Expected::new();
    let sidecar = PathBuf::from(format!("{}.expected", path.display()));
    if sidecar.exists() {
        let text = std::fs::read_to_string(&sidecar).expect("sidecar is readable");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (number, annotation) = line.split_once(':').expect("sidecar lines are `N: @def kind name`");
            let number: u32 = number.trim().parse().expect("sidecar line numbers are numbers");
            parse_annotations(number, annotation, &mut expected);
        }
    } else {
        for (i, line) in content.lines().enumerate() {
            parse_annotations(i as u32 + 1, line, &mut expected);
        }
    }
    expected
}

#[test]
fn every_query_compiles_with_known_captures() {
    for language in lang::LANGUAGES {
        extract::check_query(language).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_language_has_an_annotated_corpus() {
    let mut failures = Vec::new();
    for language in lang::LANGUAGES {
        let dir = corpus_dir().join(language.name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!("{}: no corpus directory {}", language.name, dir.display()));
            continue;
        };
        let mut annotated = 0;
        for entry in entries {
            let path = entry.expect("corpus entries are readable").path();
            if path.extension().is_some_and(|e| e == "expected") {
                continue;
            }
            let content = std::fs::read_to_string(&path).expect("corpus files are UTF-8");
            annotated += expected_for(&path, &content).len();
        }
        if annotated < 5 {
            failures.push(format!("{}: only {annotated} annotated definitions", language.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_language_with_calls_has_annotated_references() {
    let mut failures = Vec::new();
    for language in lang::LANGUAGES {
        if !language.query.contains("@reference.call") {
            continue;
        }
        let dir = corpus_dir().join(language.name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut kinds = BTreeSet::new();
        for entry in entries {
            let path = entry.expect("corpus entries are readable").path();
            let content = std::fs::read_to_string(&path).unwrap_or_default();
            kinds.extend(expected_refs_for(&content).into_iter().map(|r| r.1));
        }
        if !kinds.contains("call") {
            failures.push(format!("{}: no `@ref call` annotation", language.name));
        }
        if language.query.contains("@reference.import") && !kinds.contains("import") {
            failures.push(format!("{}: no `@ref import` annotation", language.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_definitions_match_their_annotations() {
    let mut failures = Vec::new();
    for language in lang::LANGUAGES {
        let dir = corpus_dir().join(language.name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|e| e.expect("corpus entries are readable").path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().is_some_and(|e| e == "expected") {
                continue;
            }
            let relative = path.strip_prefix(corpus_dir()).expect("corpus paths are under the corpus").to_owned();
            let content = std::fs::read(&path).expect("corpus files are readable");
            let detected = lang::detect(relative.to_string_lossy().as_bytes(), &content);
            if detected.map(|l| l.name) != Some(language.name) {
                failures.push(format!("{}: detected as {:?}", relative.display(), detected.map(|l| l.name)));
                continue;
            }
            let extraction = extract::extract(language, &content);
            let text = String::from_utf8_lossy(&content);
            let expected = expected_for(&path, &text);
            let actual: Expected = extraction
                .symbols
                .iter()
                .map(|s| {
                    let role = if s.role == Role::Definition { "def" } else { "decl" };
                    (s.name_line, role, s.kind.to_owned(), s.qualified_name.clone())
                })
                .collect();
            let broken = relative.to_string_lossy().contains("broken");
            if !broken && extraction.partial {
                failures.push(format!("{}: does not parse cleanly: {:?}", relative.display(), extraction.diagnostics));
            }
            for s in &extraction.symbols {
                let sane = s.line_start <= s.name_line && s.name_line <= s.line_end && s.byte_start < s.byte_end;
                if !sane {
                    failures.push(format!("{}: inconsistent ranges in {s:?}", relative.display()));
                }
            }
            let expected_refs = expected_refs_for(&text);
            let actual_refs: ExpectedRefs = extraction
                .occurrences
                .iter()
                .map(|o| {
                    let caller =
                        o.caller.map_or(String::new(), |c| extraction.symbols[c as usize].qualified_name.clone());
                    (o.line, o.kind.as_str().to_owned(), o.name.clone(), caller)
                })
                .collect();
            let annotated_lines: BTreeSet<u32> = expected_refs.iter().map(|r| r.0).collect();
            let missing_refs: Vec<_> = expected_refs.difference(&actual_refs).collect();
            let extra_refs: Vec<_> = actual_refs
                .iter()
                .filter(|r| annotated_lines.contains(&r.0) && (r.1 == "call" || r.1 == "import"))
                .filter(|r| !expected_refs.contains(*r))
                .collect();
            if !missing_refs.is_empty() || !extra_refs.is_empty() {
                let all: Vec<String> =
                    actual_refs.iter().map(|(l, k, n, c)| format!("\n    {l}: @ref {k} {n} in {c}")).collect();
                failures.push(format!(
                    "{}:\n  missing references: {missing_refs:?}\n  unexpected references: {extra_refs:?}\n  everything extracted:{}",
                    relative.display(),
                    all.concat()
                ));
            }
            if expected != actual {
                let missing: Vec<_> = expected.difference(&actual).collect();
                let extra: Vec<_> = actual.difference(&expected).collect();
                let mut all = String::new();
                for (line, role, kind, name) in &actual {
                    all.push_str(&format!("\n    {line}: @{role} {kind} {name}"));
                }
                failures.push(format!(
                    "{}:\n  missing: {missing:?}\n  unexpected: {extra:?}\n  everything extracted:{all}",
                    relative.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
