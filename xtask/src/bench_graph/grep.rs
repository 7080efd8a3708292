//! The grep oracle: names defined once, and the `git grep -w` lines whose syntax shows a use.

use super::*;

/// Names defined exactly once (functions and methods), checked against `git grep -w`.
pub(super) fn grep_cases(engine: &Engine, checkout: &Path, wanted: usize, language: &str) -> Result<Vec<Case>> {
    let symbols = engine
        .all_symbols(&Scope::Ref("HEAD".to_owned()), Freshness::BestEffort)
        .map_err(|e| anyhow::anyhow!("listing symbols: {e}"))?;
    let mut by_name: BTreeMap<String, Vec<(Site, bool, String)>> = BTreeMap::new();
    let mut declared: HashMap<String, BTreeSet<Site>> = HashMap::new();
    for s in &symbols {
        let name = s.qualified_name.rsplit(['.', ':']).next().unwrap_or(&s.qualified_name).to_owned();
        declared.entry(name.clone()).or_default().insert((s.path.clone(), s.line));
        if matches!(s.kind.as_str(), "function" | "method") {
            by_name.entry(name).or_default().push((
                (s.path.clone(), s.line),
                s.kind == "method",
                s.qualified_name.clone(),
            ));
        }
    }
    let family = |path: &str| {
        codecompass::lang::detect_by_path(path.as_bytes()).map(|l| codecompass::graph::family(l.name).to_owned())
    };
    let main = codecompass::lang::by_name(language).map(|l| codecompass::graph::family(l.name).to_owned());
    // Functions of the main language (a Go program's shell scripts are not what is measured).
    let mut candidates: Vec<(u64, String, Site, bool, String)> = by_name
        .into_iter()
        .filter(|(name, defs)| defs.len() == 1 && declared.get(name).map_or(0, BTreeSet::len) <= 2 && name.len() >= 5)
        .filter(|(_, defs)| main.is_none() || family(&defs[0].0.0) == main)
        .map(|(name, mut defs)| {
            let (site, method, qualified) = defs.remove(0);
            (hash(&name), name, site, method, qualified)
        })
        .collect();
    candidates.sort();
    let mut cases = Vec::new();
    for (_, name, definition, method, qualified) in candidates {
        let home = family(&definition.0);
        if cases.len() == wanted {
            break;
        }
        let output =
            Command::new("git").args(["grep", "-n", "-w", "-I", "-e", &name, "HEAD"]).current_dir(checkout).output()?;
        let text = String::from_utf8_lossy(&output.stdout);
        let term = name.clone();
        // The type a method belongs to (`GramQuery` of `GramQuery::nothing`), and a Go
        // function's package: a use qualified by another type or package is not this one's.
        let segments: Vec<&str> = qualified.split(['.', ':']).filter(|s| !s.is_empty()).collect();
        let owner = (segments.len() > 1).then(|| segments[segments.len() - 2].to_owned());
        let package = (home.as_deref() == Some("go"))
            .then(|| std::fs::read_to_string(checkout.join(&definition.0)).ok())
            .flatten()
            .and_then(|t| t.lines().find_map(|l| l.strip_prefix("package ").map(|p| p.trim().to_owned())));
        let syntax = syntactic_use(&term, method, owner, package);
        let mut truth = BTreeSet::new();
        let definition_sites = declared.get(&name).cloned().unwrap_or_default();
        for line in text.lines() {
            // `HEAD:path:line:text`
            let mut parts = line.splitn(4, ':');
            let (_, Some(path), Some(number), Some(content)) = (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let Ok(number) = number.parse::<u32>() else { continue };
            let site = (path.to_owned(), number);
            let trimmed = content.trim_start();
            let comment = ["//", "/*", "*", "#"].iter().any(|c| trimmed.starts_with(c));
            // The definition and its declarations (a prototype in a header) are no uses;
            // uses in other languages (docs, shell completions of a Go program) are not this
            // definition's.
            if !definition_sites.contains(&site) && !comment && family(path) == home && syntax(content) {
                truth.insert(site);
            }
        }
        if !truth.is_empty() && truth.len() <= 500 {
            cases.push(Case {
                symbol: name.clone(),
                name: name.clone(),
                queries: vec![(name, "bare")],
                kind: "function",
                definition,
                definition_sites,
                truth,
                elsewhere: None,
            });
        }
    }
    Ok(cases)
}

/// Whether a line uses `name` by its syntax: called, reached through `.`, `::` or `->`,
/// taken by `&`, or passed as an argument. A method is only reached through a receiver; a use
/// qualified by a type (a capitalised qualifier) other than `owner`, or, for a Go function,
/// by a package other than `package`, is another definition's.
fn syntactic_use(
    name: &str,
    method: bool,
    owner: Option<String>,
    package: Option<String>,
) -> impl Fn(&str) -> bool + '_ {
    move |line: &str| {
        let bytes = line.as_bytes();
        let mut from = 0;
        while let Some(found) = line[from..].find(name) {
            let start = from + found;
            let end = start + name.len();
            from = end;
            let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
            if (start > 0 && word(start - 1)) || word(end) {
                continue;
            }
            // Inside a string literal (an odd number of quotes before it): a message, no use.
            let quotes = line[..start]
                .bytes()
                .enumerate()
                .filter(|&(i, b)| b == b'"' && (i == 0 || bytes[i - 1] != b'\\'))
                .count();
            if quotes % 2 == 1 {
                continue;
            }
            // An import names it (`use crate::escape::{escape, escape_os};`).
            let statement = line.trim_start();
            if statement.starts_with("use ") || statement.starts_with("pub use ") || statement.starts_with("import ") {
                return true;
            }
            let after = line[end..].trim_start();
            let before = line[..start].trim_end();
            let through_receiver = before.ends_with('.') || before.ends_with("::") || before.ends_with("->");
            if method && !through_receiver {
                continue;
            }
            if through_receiver {
                let head = before.trim_end_matches(['.', ':', '>', '-']).trim_end_matches('<').trim_end();
                let qualifier: String = head
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let typed = qualifier.chars().next().is_some_and(char::is_uppercase);
                if typed && qualifier != "Self" && owner.as_deref() != Some(qualifier.as_str()) {
                    continue;
                }
                if !method && !qualifier.is_empty() && package.as_ref().is_some_and(|p| *p != qualifier) {
                    continue;
                }
            }
            if after.starts_with('(')
                || after.starts_with(',')
                || after.starts_with(')')
                || after.starts_with(';') && (before.ends_with('=') || before.ends_with(','))
                || through_receiver
                || before.ends_with('&')
                || before.ends_with('(')
            {
                return true;
            }
            // A call without parentheses (Ruby, shell): the name first in a statement, then an
            // argument.
            let statement_start = before.is_empty() || before.ends_with(['=', '{', '|', ';']) || before.ends_with("&&");
            let argument = line[end..].starts_with(' ')
                && after.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '"' | '\'' | ':' | '@' | '$' | '['));
            if statement_start && argument {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_of_a_use() {
        let plain = syntactic_use("parse_args", false, None, None);
        assert!(plain("    let a = parse_args(x);"));
        assert!(plain("    run(parse_args, 1)"));
        assert!(!plain("    // parse_args is documented"));
        assert!(!plain("let parse_args_more = 1;"));
        assert!(!plain("    t.Errorf(\"parse_args(%q) failed\", x)"));
        assert!(plain("use crate::cli::{parse_args, other};"));
        let method = syntactic_use("finish", true, Some("Builder".to_owned()), None);
        assert!(method("    self.finish()"));
        assert!(method("    Builder::finish(b)"));
        assert!(!method("    finish()"));
        assert!(!method("    Hir::finish(b)"));
        let go = syntactic_use("NewReader", false, None, Some("fzf".to_owned()));
        assert!(go("    r := NewReader(x)"));
        assert!(go("    r := fzf.NewReader(x)"));
        assert!(!go("    r := bufio.NewReader(x)"));
    }
}
