//! `cargo xtask bench xray --repo PATH`: X-Ray's rules beside ast-grep (the `ast-grep-cli`
//! package from PyPI, installed into a temp virtualenv) with the same rules written in
//! ast-grep's pattern language. For every rule of the repository's languages: whether the match
//! sets are equal (files and first lines), the matches only one of them finds, and both tools'
//! median time as whole processes — CodeCompass at the working tree and at `--ref HEAD`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::bench::release_binary;
use crate::measure::{self, Scratch, median, secs};

/// One rule, written for both tools.
struct Rule {
    name: &'static str,
    /// CodeCompass's language name.
    lang: &'static str,
    /// ast-grep's.
    sg_lang: &'static str,
    /// File extensions of the language (to tell whether the repository has it).
    extensions: &'static [&'static str],
    /// The driver, a literal every match contains whatever its spacing (`memcpy`, not
    /// `memcpy(`: `memcpy (buf, ...)` is a call too); `None` for a driverless rule.
    driver: Option<&'static str>,
    /// The tree-sitter query.
    query: &'static str,
    /// The same rule as an ast-grep pattern.
    pattern: &'static str,
    /// The node kind ast-grep reports of the pattern (`--selector`), for a pattern that is
    /// only a call in a context: C reads `kfree($X)` alone as a declaration, `kfree($X);` as
    /// a statement whose `call_expression` is the match.
    selector: Option<&'static str>,
    /// A node kind ast-grep matches every node of (an inline rule `kind:`) instead of the
    /// pattern: a pattern names one spelling, `loop { $$$ }` leaves out labeled loops.
    sg_kind: Option<&'static str>,
}

const PY: &[&str] = &["py"];
const TS: &[&str] = &["ts", "tsx"];
const RS: &[&str] = &["rs"];
const C: &[&str] = &["c", "h"];

/// Rules of a fixed number of arguments skip comments before, between and after them
/// (`(comment)+` first in the second alternative, `(comment)*` after each argument, and no
/// argument is a comment), as ast-grep's patterns do: a comment is a named node in
/// tree-sitter's trees, and `(argument_list . (_) . (_) .)` alone would count it.
const RULES: &[Rule] = &[
    Rule {
        name: "open() with two arguments",
        lang: "python",
        sg_lang: "python",
        extensions: PY,
        driver: Some("open"),
        query: r#"(call function: (identifier) @_f (#eq? @_f "open") arguments: [(argument_list . (_) @_a . (comment)* . (_) @_b . (comment)* .) (argument_list . (comment)+ . (_) @_a . (comment)* . (_) @_b . (comment)* .)] (#not-match? @_a "^#") (#not-match? @_b "^#")) @match"#,
        pattern: "open($A, $B)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "isinstance() calls",
        lang: "python",
        sg_lang: "python",
        extensions: PY,
        driver: Some("isinstance"),
        query: r#"(call function: (identifier) @_f (#eq? @_f "isinstance") arguments: [(argument_list . (_) @_a . (comment)* . (_) @_b . (comment)* .) (argument_list . (comment)+ . (_) @_a . (comment)* . (_) @_b . (comment)* .)] (#not-match? @_a "^#") (#not-match? @_b "^#")) @match"#,
        pattern: "isinstance($A, $B)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "x.append(y)",
        lang: "python",
        sg_lang: "python",
        extensions: PY,
        driver: Some("append"),
        query: r#"(call function: (attribute attribute: (identifier) @_m (#eq? @_m "append")) arguments: [(argument_list . (_) @_a . (comment)* .) (argument_list . (comment)+ . (_) @_a . (comment)* .)] (#not-match? @_a "^#")) @match"#,
        pattern: "$X.append($Y)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "return None (no driver)",
        lang: "python",
        sg_lang: "python",
        extensions: PY,
        driver: None,
        query: "(return_statement (none)) @match",
        pattern: "return None",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "console.log(...)",
        lang: "typescript",
        sg_lang: "typescript",
        extensions: TS,
        driver: Some("console.log"),
        query: r#"(call_expression function: (member_expression object: (identifier) @_o (#eq? @_o "console") property: (property_identifier) @_p (#eq? @_p "log"))) @match"#,
        pattern: "console.log($$$)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "JSON.stringify(...)",
        lang: "typescript",
        sg_lang: "typescript",
        extensions: TS,
        driver: Some("JSON.stringify"),
        query: r#"(call_expression function: (member_expression object: (identifier) @_o (#eq? @_o "JSON") property: (property_identifier) @_p (#eq? @_p "stringify"))) @match"#,
        pattern: "JSON.stringify($$$)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "expect(...).toBe(...)",
        lang: "typescript",
        sg_lang: "typescript",
        extensions: TS,
        driver: Some("toBe("),
        query: r#"(call_expression function: (member_expression object: (call_expression function: (identifier) @_e (#eq? @_e "expect")) property: (property_identifier) @_p (#eq? @_p "toBe"))) @match"#,
        pattern: "expect($$$A).toBe($$$B)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "throw (no driver)",
        lang: "typescript",
        sg_lang: "typescript",
        extensions: TS,
        driver: None,
        query: "(throw_statement) @match",
        pattern: "throw $E",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "x.unwrap()",
        lang: "rust",
        sg_lang: "rust",
        extensions: RS,
        driver: Some("unwrap"),
        query: r#"(call_expression function: (field_expression field: (field_identifier) @_f (#eq? @_f "unwrap")) arguments: (arguments) @_a (#eq? @_a "()")) @match"#,
        pattern: "$X.unwrap()",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "Box::new(x)",
        lang: "rust",
        sg_lang: "rust",
        extensions: RS,
        driver: Some("Box::new"),
        query: r#"(call_expression function: (scoped_identifier path: (identifier) @_p (#eq? @_p "Box") name: (identifier) @_n (#eq? @_n "new")) arguments: (arguments . (_) .)) @match"#,
        pattern: "Box::new($X)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "loop { } (no driver)",
        lang: "rust",
        sg_lang: "rust",
        extensions: RS,
        driver: None,
        query: "(loop_expression) @match",
        pattern: "loop { $$$ }",
        selector: None,
        sg_kind: Some("loop_expression"),
    },
    Rule {
        name: "memcpy(a, b, n)",
        lang: "c",
        sg_lang: "c",
        extensions: C,
        driver: Some("memcpy"),
        query: r#"(call_expression function: (identifier) @_f (#eq? @_f "memcpy") arguments: [(argument_list . (_) @_a . (comment)* . (_) @_b . (comment)* . (_) @_c . (comment)* .) (argument_list . (comment)+ . (_) @_a . (comment)* . (_) @_b . (comment)* . (_) @_c . (comment)* .)] (#not-match? @_a "^/[*/]") (#not-match? @_b "^/[*/]") (#not-match? @_c "^/[*/]")) @match"#,
        pattern: "memcpy($A, $B, $C)",
        selector: None,
        sg_kind: None,
    },
    Rule {
        name: "kfree(x)",
        lang: "c",
        sg_lang: "c",
        extensions: C,
        driver: Some("kfree"),
        query: r#"(call_expression function: (identifier) @_f (#eq? @_f "kfree") arguments: [(argument_list . (_) @_a . (comment)* .) (argument_list . (comment)+ . (_) @_a . (comment)* .)] (#not-match? @_a "^/[*/]")) @match"#,
        pattern: "kfree($X);",
        selector: Some("call_expression"),
        sg_kind: None,
    },
    Rule {
        name: "goto (no driver)",
        lang: "c",
        sg_lang: "c",
        extensions: C,
        driver: None,
        query: "(goto_statement) @match",
        pattern: "goto $L;",
        selector: None,
        sg_kind: None,
    },
];

/// Installs `ast-grep-cli` into a virtualenv under `dir`; returns the `ast-grep` program.
fn install_ast_grep(dir: &Path) -> Result<PathBuf> {
    let venv = dir.join("venv");
    let started = Instant::now();
    let status = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().context("python3 -m venv")?;
    if !status.success() {
        bail!("python3 -m venv failed");
    }
    let status = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "ast-grep-cli"])
        .status()
        .context("pip install ast-grep-cli")?;
    if !status.success() {
        bail!("pip install ast-grep-cli failed");
    }
    let program = venv.join("bin/ast-grep");
    let version = Command::new(&program).arg("--version").output()?;
    eprintln!(
        "pip install ast-grep-cli: {} in {}",
        String::from_utf8_lossy(&version.stdout).trim(),
        secs(started.elapsed())
    );
    Ok(program)
}

/// `path:line` of each match, and the whole process's time.
type Found = (BTreeSet<String>, Duration);

fn timed(command: &mut Command) -> Result<(Vec<u8>, Duration)> {
    let started = Instant::now();
    let output = command.output().with_context(|| format!("running {command:?}"))?;
    let elapsed = started.elapsed();
    if output.status.code().is_none_or(|c| c > 1) {
        bail!("{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok((output.stdout, elapsed))
}

fn ours(bin: &Path, store: &Path, repo: &Path, rule: &Rule, reference: Option<&str>) -> Result<(Found, Value)> {
    let mut c = Command::new(bin);
    c.arg("--store").arg(store).args(["--quiet", "--json", "xray"]);
    if let Some(driver) = rule.driver {
        c.args([driver, "-F"]);
    }
    c.args(["--query", rule.query, "--lang", rule.lang, "--limit", "1000000"]);
    if let Some(r) = reference {
        c.args(["--ref", r]);
    }
    let (stdout, elapsed) = timed(c.current_dir(repo))?;
    let answer: Value = serde_json::from_slice(&stdout).context("xray --json")?;
    let places = answer["results"]
        .as_array()
        .context("xray answers have results")?
        .iter()
        .map(|r| format!("{}:{}", r["path"].as_str().unwrap_or(""), r["line_start"]))
        .collect();
    Ok(((places, elapsed), answer))
}

fn theirs(sg: &Path, repo: &Path, rule: &Rule) -> Result<Found> {
    let mut command = Command::new(sg);
    match rule.sg_kind {
        Some(kind) => {
            let inline = format!("id: bench\nlanguage: {}\nrule:\n  kind: {kind}\n", rule.sg_lang);
            command.args(["scan", "--inline-rules", &inline, "--json=stream"])
        }
        None => command.args(["run", "--pattern", rule.pattern, "--lang", rule.sg_lang, "--json=stream"]),
    };
    if let Some(kind) = rule.selector {
        command.args(["--selector", kind]);
    }
    let (stdout, elapsed) = timed(command.arg(".").current_dir(repo))?;
    let mut places = BTreeSet::new();
    for line in stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let m: Value = serde_json::from_slice(line).context("ast-grep --json=stream")?;
        let path = m["file"].as_str().unwrap_or("").trim_start_matches("./").to_owned();
        let line = m["range"]["start"]["line"].as_u64().unwrap_or(0) + 1;
        places.insert(format!("{path}:{line}"));
    }
    Ok((places, elapsed))
}

fn has_language(repo: &Path, extensions: &[&str]) -> Result<bool> {
    let output = Command::new("git").args(["ls-files"]).current_dir(repo).output()?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .any(|p| extensions.iter().any(|e| p.ends_with(&format!(".{e}")))))
}

pub fn xray(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-xray")?;
    let store = scratch.0.join("store");
    let _stop = measure::StopWatcher { bin: &bin, store: &store, repo };
    let sg = install_ast_grep(&scratch.0)?;
    let (index, _) =
        measure::run(Command::new(&bin).arg("--store").arg(&store).args(["--quiet", "index"]).current_dir(repo))?;
    eprintln!("corpus: {}; indexed in {}", repo.display(), secs(index.wall));
    let rows = compare(&bin, &store, &sg, repo, args.runs.max(1), args.lang.as_deref())?;
    if rows.is_empty() {
        bail!("{} has no Python, TypeScript, Rust or C files for the rules", repo.display());
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_vec_pretty(&json!({ "repo": repo, "rules": rows }))?)?;
    }
    Ok(())
}

/// Runs every rule of the repository's languages with both tools; prints the table and returns
/// its rows.
fn compare(bin: &Path, store: &Path, sg: &Path, repo: &Path, runs: usize, lang: Option<&str>) -> Result<Vec<Value>> {
    let mut rows = Vec::new();
    println!(
        "| rule | driver | ours / ast-grep matches | equal | only ours | only ast-grep | in files without the extension | candidates / parsed | MB parsed | ours (worktree) | ours (--ref HEAD) | ast-grep | ast-grep / ours |"
    );
    println!("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for rule in RULES {
        if lang.is_some_and(|l| l != rule.lang) || !has_language(repo, rule.extensions)? {
            continue;
        }
        // Warm both (the page cache, our first worktree check), then alternate. ast-grep picks
        // files by extension only; ours by extension, name and shebang: the files only we
        // parse (scripts without an extension) are counted apart, not compared.
        let ((all_ours, _), answer) = ours(bin, store, repo, rule, None)?;
        let by_extension = |place: &String| {
            rule.extensions.iter().any(|e| place.rsplit_once(':').is_some_and(|(p, _)| p.ends_with(&format!(".{e}"))))
        };
        let our_places: BTreeSet<String> = all_ours.iter().filter(|p| by_extension(p)).cloned().collect();
        let unextended = all_ours.len() - our_places.len();
        let (their_places, _) = theirs(sg, repo, rule)?;
        let (mut t_ours, mut t_ref, mut t_theirs) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            t_ours.push(ours(bin, store, repo, rule, None)?.0.1);
            t_ref.push(ours(bin, store, repo, rule, Some("HEAD"))?.0.1);
            t_theirs.push(theirs(sg, repo, rule)?.1);
        }
        let only_ours: Vec<&String> = our_places.difference(&their_places).collect();
        let only_theirs: Vec<&String> = their_places.difference(&our_places).collect();
        let (m_ours, m_ref, m_theirs) = (median(&t_ours), median(&t_ref), median(&t_theirs));
        let ratio = m_theirs.as_secs_f64() / m_ours.as_secs_f64().max(1e-9);
        println!(
            "| {} ({}) | {} | {} / {} | {} | {} | {} | {} | {} / {} | {:.1} | {} | {} | {} | {:.1}x |",
            rule.name,
            rule.lang,
            rule.driver.map_or("none".to_owned(), |d| format!("`{d}`")),
            our_places.len(),
            their_places.len(),
            if only_ours.is_empty() && only_theirs.is_empty() { "yes" } else { "no" },
            only_ours.len(),
            only_theirs.len(),
            unextended,
            answer["candidates"],
            answer["files_parsed"],
            answer["bytes_parsed"].as_f64().unwrap_or(0.0) / 1e6,
            secs(m_ours),
            secs(m_ref),
            secs(m_theirs),
            ratio
        );
        for (who, list) in [("only ours", &only_ours), ("only ast-grep", &only_theirs)] {
            for place in list.iter().take(5) {
                eprintln!("  {}: {who}: {place}", rule.name);
            }
        }
        rows.push(json!({
            "rule": rule.name, "lang": rule.lang, "driver": rule.driver, "query": rule.query, "pattern": rule.pattern,
            "ours": our_places.len(), "ast_grep": their_places.len(),
            "only_ours": only_ours, "only_ast_grep": only_theirs, "in_files_without_the_extension": unextended,
            "candidates": answer["candidates"], "files_parsed": answer["files_parsed"],
            "bytes_parsed": answer["bytes_parsed"],
            "ours_ms": m_ours.as_secs_f64() * 1000.0, "ours_ref_ms": m_ref.as_secs_f64() * 1000.0,
            "ast_grep_ms": m_theirs.as_secs_f64() * 1000.0, "speedup": ratio, "runs": runs,
        }));
    }
    Ok(rows)
}
