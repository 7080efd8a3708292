//! The SCIP oracle: runs `scip-python` / `scip-typescript`, reads its index, and turns its
//! symbols into cases.

use super::*;

/// The language most tracked files are written in.
pub(super) fn main_language(checkout: &Path) -> Result<String> {
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    for path in git(checkout, &["ls-files"])?.lines() {
        if let Some(l) = codecompass::lang::detect_by_path(path.as_bytes())
            && !matches!(l.name, "markdown" | "json" | "yaml" | "toml" | "xml" | "html" | "css")
        {
            *counts.entry(if l.name == "tsx" { "typescript" } else { l.name }).or_default() += 1;
        }
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    Ok(counts.first().map(|(l, _)| (*l).to_owned()).unwrap_or_default())
}

/// Runs `scip-python` or `scip-typescript` (installed from npm into `tmp`) on the checkout;
/// returns the index and what was run.
pub(super) fn run_scip_indexer(checkout: &Path, language: &str, tmp: &Path) -> Result<(PathBuf, String)> {
    let (package, binary) = match language {
        "python" => ("@sourcegraph/scip-python", "scip-python"),
        "typescript" | "javascript" => ("@sourcegraph/scip-typescript", "scip-typescript"),
        other => bail!("no SCIP indexer for {other}; pass --oracle grep or --scip FILE"),
    };
    let prefix = tmp.join("npm");
    let started = Instant::now();
    let status = Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(package)
        .status()
        .context("running npm")?;
    if !status.success() {
        bail!("npm install {package} failed");
    }
    let version = std::fs::read_to_string(prefix.join("node_modules").join(package).join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned))
        .unwrap_or_default();
    eprintln!("npm install --prefix <tmp> {package}: {version} in {}", secs(started.elapsed()));
    let output = tmp.join("index.scip");
    let mut command = Command::new(prefix.join("node_modules/.bin").join(binary));
    command.arg("index").arg("--output").arg(&output).current_dir(checkout);
    let shown = if language == "python" {
        // An empty environment: no `pip` run over the installed packages, whose symbols are
        // not compared anyway.
        let environment = tmp.join("environment.json");
        std::fs::write(&environment, "[]")?;
        command.args(["--project-name", "bench", "--quiet", "--environment"]).arg(&environment);
        // Packages under `src/` or `lib/` are imported by their own names (`import flask` for
        // `src/flask`): without that search path pyright leaves such imports unresolved.
        let config = checkout.join("pyrightconfig.json");
        let roots: Vec<&str> = ["src", "lib"]
            .into_iter()
            .filter(|d| {
                let dir = checkout.join(d);
                !dir.join("__init__.py").exists()
                    && std::fs::read_dir(&dir)
                        .map(|entries| entries.flatten().any(|e| e.path().join("__init__.py").exists()))
                        .unwrap_or(false)
            })
            .collect();
        let mut shown = format!("{binary} index --project-name bench --quiet --environment <tmp>/environment.json");
        if !roots.is_empty() && !config.exists() {
            std::fs::write(&config, json!({ "extraPaths": roots }).to_string())?;
            shown = format!("(pyrightconfig.json {}) {shown}", json!({ "extraPaths": roots }));
        }
        shown
    } else {
        // Every TypeScript and JavaScript file of the repository (tests too, which a
        // project's own tsconfig often leaves out), with the project's compiler options.
        let mut config = json!({
            "compilerOptions": {"allowJs": true, "noEmit": true},
            "include": ["**/*"],
            "exclude": ["**/node_modules"],
        });
        if let Ok(text) = std::fs::read_to_string(checkout.join("tsconfig.json")) {
            // A tsconfig extending a package that is not installed (`@sindresorhus/tsconfig`)
            // stops the indexer: then only its own compiler options are kept.
            let project: Option<Value> = serde_json::from_str(&text).ok();
            let base = project.as_ref().and_then(|p| p["extends"].as_str()).unwrap_or(".");
            let missing = !base.starts_with('.') && !checkout.join("node_modules").join(base).exists();
            match project {
                Some(project) if missing => {
                    if let Some(options) = project["compilerOptions"].as_object() {
                        for (k, v) in options {
                            config["compilerOptions"].as_object_mut().map(|o| o.entry(k).or_insert(v.clone()));
                        }
                    }
                }
                _ => {
                    // The project's own `files` list would narrow what is indexed.
                    config["extends"] = json!("./tsconfig.json");
                    config["files"] = json!([]);
                }
            }
        }
        let name = "tsconfig.codecompass-bench.json";
        std::fs::write(checkout.join(name), config.to_string())?;
        command.args(["--no-progress-bar", name]);
        format!("({name} {config}) {binary} index --no-progress-bar {name}")
    };
    let started = Instant::now();
    let run = command.output().context("running the SCIP indexer")?;
    if !run.status.success() || !output.exists() {
        let said = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
        let tail: Vec<&str> = said.lines().rev().take(20).collect();
        bail!("{binary} failed:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    let note = format!(
        "{package} {version}: `{shown} --output <tmp>/index.scip` in the checkout, {}",
        secs(started.elapsed())
    );
    eprintln!("{note}");
    Ok((output, note))
}

/// Protobuf wire reading, just enough for SCIP.
struct Wire<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Wire<'a> {
    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.at).context("truncated varint")?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        bail!("bad varint")
    }

    /// The next field: number, its bytes (length-delimited) and its value (varint).
    fn field(&mut self) -> Result<Option<(u64, &'a [u8], u64)>> {
        if self.at >= self.data.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (number, kind) = (key >> 3, key & 7);
        Ok(Some(match kind {
            0 => (number, &[][..], self.varint()?),
            1 => {
                self.at += 8;
                (number, &[][..], 0)
            }
            2 => {
                let len = self.varint()? as usize;
                let bytes = self.data.get(self.at..self.at + len).context("truncated field")?;
                self.at += len;
                (number, bytes, 0)
            }
            5 => {
                self.at += 4;
                (number, &[][..], 0)
            }
            other => bail!("unsupported wire type {other}"),
        }))
    }
}

/// One SCIP occurrence: the symbol, where, and whether it defines it.
struct Occurrence {
    symbol: String,
    site: Site,
    definition: bool,
}

/// Reads `Index.documents` (2): `Document.relative_path` (1) and `occurrences` (2), each
/// `Occurrence.range` (1, packed int32, 0-based start line first), `symbol` (2) and
/// `symbol_roles` (3, bit 1 = definition). Local symbols are left out.
fn read_scip(data: &[u8]) -> Result<(Vec<String>, Vec<Occurrence>)> {
    let mut documents = Vec::new();
    let mut occurrences = Vec::new();
    let mut index = Wire { data, at: 0 };
    while let Some((number, bytes, _)) = index.field()? {
        if number != 2 {
            continue;
        }
        let mut document = Wire { data: bytes, at: 0 };
        let mut path = String::new();
        let mut raw = Vec::new();
        while let Some((n, b, _)) = document.field()? {
            match n {
                1 => path = String::from_utf8_lossy(b).into_owned(),
                2 => raw.push(b),
                _ => {}
            }
        }
        for occurrence in raw {
            let mut o = Wire { data: occurrence, at: 0 };
            let (mut line, mut symbol, mut roles) = (None, String::new(), 0);
            while let Some((n, b, v)) = o.field()? {
                match n {
                    // Packed (length-delimited) as written, or one varint per element.
                    1 if !b.is_empty() => line = line.or(Some(Wire { data: b, at: 0 }.varint()? as u32 + 1)),
                    1 => line = line.or(Some(v as u32 + 1)),
                    2 => symbol = String::from_utf8_lossy(b).into_owned(),
                    3 => roles = v,
                    _ => {}
                }
            }
            let Some(line) = line else { continue };
            if symbol.is_empty() || symbol.starts_with("local ") {
                continue;
            }
            occurrences.push(Occurrence { symbol, site: (path.clone(), line), definition: roles & 1 == 1 });
        }
        documents.push(path);
    }
    Ok((documents, occurrences))
}

/// A symbol's module segments, its display module, and its descriptors.
type Split = (Vec<String>, String, Vec<(String, Suffix, String)>);

/// The kinds of SCIP descriptors.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Suffix {
    Namespace,
    Type,
    Term,
    Method,
    Meta,
    Macro,
    Parameter,
    TypeParameter,
}

/// The descriptors of a SCIP symbol (`scheme manager package version descriptors`, a space
/// in a field doubled), as names and kinds; a method keeps its disambiguator in `extra`.
fn descriptors(symbol: &str) -> Option<Vec<(String, Suffix, String)>> {
    // Skip the four header fields.
    let bytes = symbol.as_bytes();
    let mut at = 0;
    for _ in 0..4 {
        loop {
            match bytes.get(at) {
                None => return None,
                Some(b' ') if bytes.get(at + 1) == Some(&b' ') => at += 2,
                Some(b' ') => {
                    at += 1;
                    break;
                }
                Some(_) => at += 1,
            }
        }
    }
    let chars: Vec<char> = symbol[at..].chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let name = |i: &mut usize| -> Option<String> {
        let mut name = String::new();
        if chars.get(*i) == Some(&'`') {
            *i += 1;
            loop {
                match chars.get(*i) {
                    None => return None,
                    Some('`') if chars.get(*i + 1) == Some(&'`') => {
                        name.push('`');
                        *i += 2;
                    }
                    Some('`') => {
                        *i += 1;
                        break;
                    }
                    Some(&c) => {
                        name.push(c);
                        *i += 1;
                    }
                }
            }
        } else {
            while let Some(&c) = chars.get(*i) {
                if c.is_alphanumeric() || matches!(c, '_' | '+' | '-' | '$') {
                    name.push(c);
                    *i += 1;
                } else {
                    break;
                }
            }
        }
        Some(name)
    };
    while i < chars.len() {
        match chars[i] {
            '[' => {
                i += 1;
                let n = name(&mut i)?;
                (chars.get(i) == Some(&']')).then_some(())?;
                i += 1;
                out.push((n, Suffix::TypeParameter, String::new()));
            }
            '(' => {
                i += 1;
                let n = name(&mut i)?;
                (chars.get(i) == Some(&')')).then_some(())?;
                i += 1;
                out.push((n, Suffix::Parameter, String::new()));
            }
            _ => {
                let n = name(&mut i)?;
                let suffix = match chars.get(i)? {
                    '/' => Suffix::Namespace,
                    '#' => Suffix::Type,
                    '.' => Suffix::Term,
                    ':' => Suffix::Meta,
                    '!' => Suffix::Macro,
                    '(' => {
                        let mut disambiguator = String::new();
                        i += 1;
                        while let Some(&c) = chars.get(i) {
                            i += 1;
                            if c == ')' {
                                break;
                            }
                            disambiguator.push(c);
                        }
                        (chars.get(i) == Some(&'.')).then_some(())?;
                        out.push((n, Suffix::Method, disambiguator));
                        i += 1;
                        continue;
                    }
                    _ => return None,
                };
                i += 1;
                out.push((n, suffix, String::new()));
            }
        }
    }
    Some(out)
}

/// Extensions of the source files SCIP namespaces name.
const SOURCE_EXTENSIONS: &[&str] =
    &[".d.ts", ".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

/// A module path's segments, the way a file path or a SCIP namespace names it:
/// `src/flask/app.py`, `` `src.flask.app` `` and `flask.app` end alike.
pub(super) fn module_segments(text: &str) -> Vec<String> {
    let mut stem = text;
    for ext in SOURCE_EXTENSIONS {
        if let Some(s) = stem.strip_suffix(ext) {
            stem = s;
            break;
        }
    }
    let mut segments: Vec<String> = stem.split(['/', '.']).filter(|s| !s.is_empty()).map(str::to_owned).collect();
    if segments.last().is_some_and(|s| s == "__init__" || s == "index") {
        segments.pop();
    }
    segments
}

/// The one symbol of `found` defined in a module whose path ends with `namespace`.
fn unique_in<'a>(found: Option<&Vec<(&'a str, Vec<String>)>>, namespace: &[String]) -> Option<&'a str> {
    let matching: Vec<&str> =
        found?.iter().filter(|(_, module)| module.ends_with(namespace)).map(|(s, _)| *s).collect();
    (matching.len() == 1).then(|| matching[0])
}

/// Descriptors by name only, a term repeated once (`g.g.`) and types and terms alike, for an
/// occurrence whose exact symbol the index never defines.
fn loose(names: &[(String, Suffix, String)]) -> String {
    let mut out: Vec<(&str, bool)> = Vec::new();
    for (name, suffix, _) in names {
        let value = matches!(suffix, Suffix::Type | Suffix::Term);
        if out.last() != Some(&(name.as_str(), value)) || !value {
            out.push((name.as_str(), value));
        }
    }
    out.iter().map(|(n, v)| format!("{n}{}", if *v { "." } else { "?" })).collect::<Vec<_>>().join(" ")
}

/// SCIP symbols defined in the index with their uses, sampled into cases.
///
/// Indexers may name one module two ways (scip-python names `src/flask/app.py` as
/// `src.flask.app` where it defines it and `flask.app` where a test imports it), so a use of
/// a symbol the index does not define is tied to the definition with the same descriptors in
/// the one file whose module path ends with the use's namespace.
pub(super) fn scip_cases(
    file: &Path,
    wanted: usize,
    declarations: &HashSet<(String, u32, String)>,
    texts: &mut FileLines,
) -> Result<Vec<Case>> {
    let data = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let (_documents, occurrences) = read_scip(&data)?;
    let mut definitions: HashMap<&str, BTreeSet<Site>> = HashMap::new();
    for o in occurrences.iter().filter(|o| o.definition) {
        definitions.entry(o.symbol.as_str()).or_default().insert(o.site.clone());
    }
    // Defined symbols by their descriptors after the namespace.
    let split = |symbol: &str| -> Option<Split> {
        let d = descriptors(symbol)?;
        // The module: scip-python's one dotted namespace, or scip-typescript's directories
        // through the file's name; later namespaces (a TypeScript `namespace`) are names.
        let leading = d.iter().take_while(|x| x.1 == Suffix::Namespace).count();
        let namespaces = d[..leading]
            .iter()
            .position(|x| SOURCE_EXTENSIONS.iter().any(|e| x.0.ends_with(e)))
            .map_or(leading.min(1), |i| i + 1);
        let namespace: Vec<String> = d[..namespaces].iter().flat_map(|x| module_segments(&x.0)).collect();
        let rest = d[namespaces..].iter().map(|x| format!("{}{:?}{}", x.0, x.1, x.2)).collect::<Vec<_>>().join(" ");
        Some((namespace, rest, d[namespaces..].to_vec()))
    };
    let mut by_rest: HashMap<String, Vec<(&str, Vec<String>)>> = HashMap::new();
    let mut by_loose: HashMap<String, Vec<(&str, Vec<String>)>> = HashMap::new();
    for (symbol, sites) in &definitions {
        if let Some((_, rest, names)) = split(symbol) {
            let first = sites.iter().next().expect("a definition site");
            by_rest.entry(rest).or_default().push((symbol, module_segments(&first.0)));
            by_loose.entry(loose(&names)).or_default().push((symbol, module_segments(&first.0)));
        }
    }
    // Each occurrence's symbol as the one the index defines.
    let mut aliases: HashMap<&str, Option<&str>> = HashMap::new();
    let mut defined: Vec<Option<&str>> = Vec::with_capacity(occurrences.len());
    for o in &occurrences {
        defined.push(if definitions.contains_key(o.symbol.as_str()) {
            Some(o.symbol.as_str())
        } else {
            *aliases.entry(o.symbol.as_str()).or_insert_with(|| {
                let (namespace, rest, names) = split(&o.symbol)?;
                if namespace.is_empty() {
                    return None;
                }
                // Exactly, else the one defined symbol of the module with these names: the
                // index has no type `g`, so its `flask.globals/g#` in a test is the variable
                // the module defines (`g.g.`).
                unique_in(by_rest.get(&rest), &namespace)
                    .or_else(|| unique_in(by_loose.get(&loose(&names)), &namespace))
            })
        });
    }
    let mut uses: HashMap<&str, BTreeSet<Site>> = HashMap::new();
    for (o, symbol) in occurrences.iter().zip(&defined) {
        let Some(symbol) = *symbol else { continue };
        if o.definition {
            continue;
        }
        uses.entry(symbol).or_default().insert(o.site.clone());
        // `new X()` is a use of the class `X`: scip-typescript gives it the symbol of `X`'s
        // constructor when the class declares one (not that of a parameter or a local of it).
        if let Some(class) = class_of_constructor(symbol) {
            uses.entry(class).or_default().insert(o.site.clone());
        }
    }
    let mut candidates: Vec<(u64, Case)> = Vec::new();
    for (symbol, sites) in &definitions {
        let Some(truth) = uses.remove(symbol) else { continue };
        let Some((_, rest, mut names)) = split(symbol) else { continue };
        // scip-python names an annotated module variable `g.g.`.
        names.dedup_by(|b, a| a.0 == b.0 && a.1 == Suffix::Term && b.1 == Suffix::Term);
        let Some(last) = names.last() else { continue };
        if !matches!(last.1, Suffix::Method | Suffix::Term | Suffix::Type) {
            continue;
        }
        // Only names a program can spell (no `<constructor>`, no parameters or meta).
        if names.iter().any(|(n, s, _)| {
            !matches!(s, Suffix::Method | Suffix::Term | Suffix::Type | Suffix::Namespace)
                || n.is_empty()
                || n.chars().any(|c| !(c.is_alphanumeric() || c == '_' || c == '$'))
        }) {
            continue;
        }
        let definition = sites.iter().next().expect("a definition site").clone();
        // An import binds a name (`import * as path from 'path'`): no symbol of the repository.
        let head = texts.line(&definition);
        if head.starts_with("import ") || head.starts_with("from ") || head.contains("require(") {
            continue;
        }
        let chain: Vec<&str> = names.iter().map(|(n, _, _)| n.as_str()).collect();
        let name = chain.last().expect("a name").to_string();
        let mut sites = sites.clone();
        let truth: BTreeSet<Site> = truth
            .into_iter()
            .filter(|s| {
                let again = declarations.contains(&(s.0.clone(), s.1, name.clone()));
                if again {
                    sites.insert(s.clone());
                }
                !again && !sites.contains(s)
            })
            .collect();
        if truth.is_empty() {
            continue;
        }
        let module = module_segments(&definition.0);
        let mut queries = Vec::new();
        // The path with `/` as `.` (`__init__` and `index` dropped); a file name with a dot
        // of its own (`foo.test.ts`) cannot be spelled so.
        let stem = definition.0.rsplit('/').next().unwrap_or(&definition.0);
        if stem.matches('.').count() <= 1 {
            queries.push((format!("{}.{}", module.join("."), chain.join(".")), "module"));
        }
        if chain.len() > 1 {
            queries.push((chain.join("."), "class"));
        }
        queries.push((chain.last().expect("a name").to_string(), "bare"));
        let kind = match last.1 {
            _ if names[..names.len() - 1].iter().any(|n| n.1 == Suffix::Method) => "nested",
            Suffix::Method => "function",
            Suffix::Type => "type",
            _ => "variable",
        };
        candidates.push((
            hash(&format!("{} {rest}", definition.0)),
            Case {
                symbol: symbol.to_string(),
                name,
                queries,
                kind,
                definition,
                definition_sites: sites,
                truth,
                elsewhere: Some(BTreeSet::new()),
            },
        ));
    }
    candidates.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.symbol.cmp(&b.1.symbol)));
    let mut cases: Vec<Case> = candidates.into_iter().take(wanted).map(|(_, c)| c).collect();
    // Where the index ties a sampled name to another symbol: an extra there is a decided
    // mistake; elsewhere the index may just not know (an untyped receiver).
    let wanted_names: HashMap<&str, Vec<usize>> = cases.iter().enumerate().fold(HashMap::new(), |mut m, (i, c)| {
        m.entry(c.name.as_str()).or_default().push(i);
        m
    });
    let mut elsewhere: Vec<Vec<Site>> = vec![Vec::new(); cases.len()];
    for o in &occurrences {
        let Some(last) = descriptors(&o.symbol).and_then(|d| d.last().cloned()) else { continue };
        if let Some(indices) = wanted_names.get(last.0.as_str()) {
            for &i in indices {
                if !cases[i].truth.contains(&o.site) {
                    elsewhere[i].push(o.site.clone());
                }
            }
        }
    }
    for (case, sites) in cases.iter_mut().zip(elsewhere) {
        case.elsewhere = Some(sites.into_iter().filter(|s| !case.definition_sites.contains(s)).collect());
    }
    Ok(cases)
}

/// The class symbol of a constructor's symbol (`...A#\`<constructor>\`().` or with a
/// disambiguator, `(+1).`), and `None` for any other symbol, a constructor's parameters and
/// locals included (`...A#\`<constructor>\`().(input)`).
fn class_of_constructor(symbol: &str) -> Option<&str> {
    const CONSTRUCTOR: &str = "#`<constructor>`";
    let at = symbol.find(CONSTRUCTOR)?;
    let rest = &symbol[at + CONSTRUCTOR.len()..];
    let disambiguator = rest.strip_prefix('(')?.strip_suffix(").")?;
    (!disambiguator.contains(['(', ')', '.'])).then_some(&symbol[..=at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scip_descriptors() {
        let d = descriptors("scip-python python flask 1.0 `src.flask.app`/Flask#run().").unwrap();
        let names: Vec<(&str, Suffix)> = d.iter().map(|(n, s, _)| (n.as_str(), *s)).collect();
        assert_eq!(names, [("src.flask.app", Suffix::Namespace), ("Flask", Suffix::Type), ("run", Suffix::Method)]);
        let d = descriptors("scip-typescript npm my  pkg 1.0 `src/a.ts`/f().(x)").unwrap();
        assert_eq!(d.last().unwrap().1, Suffix::Parameter);
        assert_eq!(
            class_of_constructor("scip-typescript npm pkg 1.0 `src/a.ts`/A#`<constructor>`()."),
            Some("scip-typescript npm pkg 1.0 `src/a.ts`/A#")
        );
        assert_eq!(
            class_of_constructor("scip-typescript npm pkg 1.0 `src/a.ts`/A#`<constructor>`(+1)."),
            Some("scip-typescript npm pkg 1.0 `src/a.ts`/A#")
        );
        assert_eq!(class_of_constructor("scip-typescript npm pkg 1.0 `src/a.ts`/A#`<constructor>`().(input)"), None);
        assert_eq!(class_of_constructor("scip-typescript npm pkg 1.0 `src/a.ts`/A#run()."), None);
        let d = descriptors("scip-typescript npm pkg 1.0 `src/a.ts`/A#`<constructor>`(+1).").unwrap();
        assert_eq!((d[2].0.as_str(), d[2].1, d[2].2.as_str()), ("<constructor>", Suffix::Method, "+1"));
        assert!(descriptors("scip-python python flask").is_none());
    }

    #[test]
    fn module_paths_and_namespaces_end_alike() {
        assert_eq!(module_segments("src/flask/app.py"), ["src", "flask", "app"]);
        assert!(module_segments("src/flask/app.py").ends_with(&module_segments("flask.app")));
        assert_eq!(module_segments("pkg/__init__.py"), ["pkg"]);
        assert_eq!(module_segments("src/client/index.ts"), ["src", "client"]);
    }
}
