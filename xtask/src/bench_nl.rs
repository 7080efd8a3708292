//! `cargo xtask bench nl`: file localization from a repository's own history.
//!
//! Each task is a non-merge commit: its message (subject and body, trailers and bare issue
//! references dropped) is the question, the source files it changed that already exist at its
//! parent are the answer, and both systems search the parent. CodeCompass answers with
//! `search --files` as a whole process; beside it, in the same run, a plain whole-file BM25
//! written here (path and content tokens, k1 1.2, b 0.75) ranks the same tree. A task counts for
//! top-k when at least one answer file is among the first k; MRR takes the first answer file
//! within the top 10.
//!
//! The repository may be a checkout or a bare repository and is only read: tasks come from
//! `git log`, the baseline reads `ls-tree` and one long-lived `cat-file --batch`, and
//! CodeCompass keeps its index in a scratch `--store`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::measure::{Scratch, median, percentile, secs};

mod bm25;
use bm25::Bm25;

/// A message needs this many words (tokens with a letter) to be a question.
const MIN_WORDS: usize = 8;
/// Commits changing more files than this are left out: mass edits say little about any file.
const MAX_FILES: usize = 10;
/// Candidates collected per task wanted, so the tasks spread over more history than the newest.
const SPREAD: usize = 4;
/// Messages longer than this are left out: one argument of a process is limited to 128 KiB.
const MAX_QUERY_BYTES: usize = 100_000;
/// Ranks beyond this count as misses.
const TOP: usize = 10;
/// Snippet results asked for in `--no-files` mode, deduplicated into at most `TOP` files.
const SNIPPET_LIMIT: usize = 50;

/// Directory names whose files are tests, docs, examples or benchmarks, never answers.
const NOT_SOURCE_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "fixtures",
    "docs",
    "doc",
    "examples",
    "example",
    "benches",
    "bench",
];
/// Extensions of source files; anything else (configuration, data, docs) is never an answer.
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "rs", "go", "js", "ts", "tsx", "jsx", "mjs", "cjs", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb",
    "php", "swift", "scala", "sh", "lua", "zig", "ex", "exs", "hs", "ml", "dart", "vue", "svelte",
];
/// Extensions of documentation.
const DOC_EXTENSIONS: &[&str] = &["md", "rst", "txt", "adoc"];
/// File name prefixes of documentation (upper case as projects write them).
const DOC_NAMES: &[&str] = &["CHANGELOG", "CHANGES", "NEWS", "README", "LICENSE", "AUTHORS"];

/// Whether `path` is a test, documentation, an example or a benchmark, by whole path segments
/// and file name.
fn is_test_or_doc(path: &str) -> bool {
    let (dirs, name) = path.rsplit_once('/').unwrap_or(("", path));
    if dirs.split('/').any(|d| NOT_SOURCE_DIRS.contains(&d.to_ascii_lowercase().as_str())) {
        return true;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let test_name = match ext {
        "py" => stem.starts_with("test_") || stem.ends_with("_test") || name == "conftest.py",
        "go" => stem.ends_with("_test"),
        "ts" | "js" | "tsx" | "jsx" | "mjs" | "cjs" => stem.ends_with(".test") || stem.ends_with(".spec"),
        _ => false,
    };
    test_name
        || DOC_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        || DOC_NAMES.iter().any(|d| name.to_ascii_uppercase().starts_with(d))
}

/// Whether `path` is source: a programming language's file that is not a test or docs.
fn is_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
        && !is_test_or_doc(path)
}

/// Whether `word` is a reference to an issue or pull request: `#12`, `GH-12`, `owner/repo#12`
/// or a link to one.
fn is_issue_reference(word: &str) -> bool {
    let word = word.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | '.' | ';'));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let lower = word.to_ascii_lowercase();
    lower.rsplit_once('#').is_some_and(|(_, n)| digits(n))
        || lower.strip_prefix("gh-").is_some_and(digits)
        || ((lower.starts_with("http://") || lower.starts_with("https://"))
            && (lower.contains("/issues/") || lower.contains("/pull/")))
}

/// Whether `line` carries no question: a trailer (`Signed-off-by:`, `Co-authored-by:`, any
/// `*-by:`, `Change-Id:`), a cherry-pick note, or only issue references with an optional
/// keyword (`Fixes #123`, `Closes: owner/repo#4`).
fn is_noise_line(line: &str) -> bool {
    let line = line.trim();
    let lower = line.to_ascii_lowercase();
    if lower.starts_with("(cherry picked from") || lower.starts_with("change-id:") {
        return true;
    }
    if let Some((key, _)) = lower.split_once(": ")
        && key.ends_with("-by")
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return true;
    }
    let mut words = lower.split_whitespace().peekable();
    const KEYWORDS: &[&str] = &[
        "fix", "fixes", "fixed", "close", "closes", "closed", "resolve", "resolves", "resolved", "ref", "refs", "see",
    ];
    if words.peek().is_some_and(|w| KEYWORDS.contains(&w.trim_end_matches(':'))) {
        words.next();
    }
    let rest: Vec<&str> = words.collect();
    !rest.is_empty() && rest.iter().all(|w| is_issue_reference(w))
}

/// The question a commit asks: its subject, a blank line and its body, without noise lines
/// and with runs of blank lines folded.
fn clean_message(subject: &str, body: &str) -> String {
    let mut kept = String::new();
    let mut blank = false;
    for line in body.lines().filter(|l| !is_noise_line(l)) {
        let line = line.trim_end();
        if line.is_empty() {
            blank = !kept.is_empty();
            continue;
        }
        if blank {
            kept.push('\n');
            blank = false;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    let subject = subject.trim();
    let kept = kept.trim_end();
    if kept.is_empty() { subject.to_owned() } else { format!("{subject}\n\n{kept}") }
}

/// Words of a message: whitespace-separated pieces with at least one letter.
fn word_count(message: &str) -> usize {
    message.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count()
}

/// One localization task.
pub(crate) struct Task {
    commit_id: String,
    parent_id: String,
    pub(crate) query: String,
    /// The source files that exist at the parent, sorted.
    answers: Vec<String>,
}

/// The files of a commit's `--name-status` listing that can answer it: changed or deleted
/// source files, and the old path of renamed ones. Added files do not exist yet at the parent.
/// `None` when the commit changes no file or too many.
fn answers_of(name_status: &str) -> Option<Vec<String>> {
    let rows: Vec<&str> = name_status.lines().filter(|l| !l.trim().is_empty()).collect();
    if rows.is_empty() || rows.len() > MAX_FILES {
        return None;
    }
    let mut answers: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let mut fields = row.split('\t');
            let status = fields.next()?;
            let old_path = fields.next()?;
            matches!(status.as_bytes().first(), Some(b'M' | b'D' | b'R')).then_some(old_path)
        })
        // A path git had to quote (control characters, quotes) cannot be compared; drop it.
        .filter(|p| !p.starts_with('"') && is_source(p))
        .map(str::to_owned)
        .collect();
    answers.sort();
    answers.dedup();
    Some(answers)
}

/// The newest tasks of `repo`'s history from `HEAD`, spread over up to `SPREAD * wanted`
/// candidates. Also returns how many candidates there were and how many commits were read.
pub(crate) fn collect_tasks(repo: &Path, wanted: usize) -> Result<(Vec<Task>, usize, usize)> {
    // `%x1e` starts a record and `%x1f` ends the message, so messages and paths need no
    // escaping; the name-status rows follow the message.
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "core.quotePath=false", "log", "--no-merges", "-M", "--name-status"])
        .arg("--format=%x1e%H %P%n%s%n%x1f%b%x1f")
        .arg("HEAD")
        .stdout(Stdio::piped())
        .spawn()
        .context("running git log")?;
    let stdout = child.stdout.take().context("git log has no stdout")?;
    let mut reader = BufReader::new(stdout);
    let mut candidates = Vec::new();
    let mut commits = 0;
    let mut record = Vec::new();
    let mut read_all = false;
    loop {
        record.clear();
        if reader.read_until(0x1e, &mut record)? == 0 {
            read_all = true;
            break;
        }
        if record.last() == Some(&0x1e) {
            record.pop();
        }
        let text = String::from_utf8_lossy(&record);
        let mut parts = text.splitn(3, '\x1f');
        let (Some(head), Some(body), Some(name_status)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        commits += 1;
        let (ids, subject) = head.split_once('\n').unwrap_or((head, ""));
        let ids: Vec<&str> = ids.split_whitespace().collect();
        // A root commit has no parent to search at.
        let [commit_id, parent_id] = ids[..] else { continue };
        let query = clean_message(subject, body);
        if word_count(&query) < MIN_WORDS || query.len() > MAX_QUERY_BYTES {
            continue;
        }
        let Some(answers) = answers_of(name_status) else { continue };
        if answers.is_empty() {
            continue;
        }
        candidates.push(Task { commit_id: commit_id.to_owned(), parent_id: parent_id.to_owned(), query, answers });
        if candidates.len() >= SPREAD * wanted {
            break;
        }
    }
    // Stopping early closes the pipe under git, so its exit status only counts after the end.
    drop(reader);
    if !read_all {
        let _ = child.kill();
    }
    let status = child.wait()?;
    if read_all && !status.success() {
        bail!("git log in {} failed", repo.display());
    }
    let found = candidates.len();
    Ok((spread(candidates, wanted), found, commits))
}

/// `wanted` of `items`, evenly spaced from the first (all of them when there are fewer).
fn spread<T>(items: Vec<T>, wanted: usize) -> Vec<T> {
    let n = items.len();
    if n <= wanted {
        return items;
    }
    let picks: Vec<usize> = (0..wanted).map(|i| i * n / wanted).collect();
    items.into_iter().enumerate().filter(|(i, _)| picks.binary_search(i).is_ok()).map(|(_, t)| t).collect()
}

/// CodeCompass as a whole process, its index in a scratch store.
struct CodeCompass {
    bin: PathBuf,
    /// The directory it runs in: the repository, or a shared clone of it.
    workspace: PathBuf,
    store: PathBuf,
    /// `search --files`; else snippet results deduplicated by file.
    files: bool,
}

impl CodeCompass {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.bin);
        command.arg("--store").arg(&self.store).arg("--quiet").current_dir(&self.workspace);
        command
    }

    /// Indexes `commit_id` (not timed).
    fn index(&self, commit_id: &str) -> Result<()> {
        let output = self.command().args(["index", "--ref", commit_id]).output().context("running git-codecompass")?;
        if !output.status.success() {
            bail!("git-codecompass index --ref {commit_id} failed: {}", String::from_utf8_lossy(&output.stderr).trim());
        }
        Ok(())
    }

    /// The ranked files for `query` at `commit_id`, and how long the process took.
    fn search(&self, commit_id: &str, query: &str) -> Result<(Vec<String>, Duration)> {
        let mut command = self.command();
        command.arg("search");
        if self.files {
            command.args(["--files", "--json", "--limit", &TOP.to_string()]);
        } else {
            command.args(["--json", "--limit", &SNIPPET_LIMIT.to_string()]);
        }
        // `--` so that a message starting with `-` is still the query.
        command.args(["--ref", commit_id, "--", query]);
        let started = Instant::now();
        let output = command.output().context("running git-codecompass")?;
        let wall = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Exit 1 is "nothing found", with the JSON still printed.
        if !matches!(output.status.code(), Some(0 | 1)) {
            if self.files && stderr.contains("--files") {
                bail!(
                    "this git-codecompass has no `search --files`: {}\nbuild one that has it, or pass \
                     --no-files to rank snippet results deduplicated by file",
                    stderr.trim()
                );
            }
            bail!("git-codecompass search at {commit_id} failed: {}", stderr.trim());
        }
        let answer: Value = serde_json::from_slice(&output.stdout)
            .with_context(|| format!("git-codecompass search printed no JSON: {}", stderr.trim()))?;
        let mut ranked: Vec<String> = Vec::new();
        for path in answer["results"].as_array().into_iter().flatten().filter_map(|r| r["path"].as_str()) {
            if !ranked.iter().any(|p| p == path) {
                ranked.push(path.to_owned());
            }
        }
        ranked.truncate(TOP);
        Ok((ranked, wall))
    }
}

/// Whether `repo` is a bare repository.
fn is_bare(repo: &Path) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--is-bare-repository"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true")
}

/// A short name for `repo`: its directory, without `.git`, or its parent's for a `.git`.
fn repository_name(repo: &Path) -> String {
    let name = repo.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name == ".git" {
        return repo.parent().map_or(name, repository_name);
    }
    name.strip_suffix(".git").map_or_else(|| name.clone(), str::to_owned)
}

/// Accuracy and latency of one system over the tasks.
#[derive(Default)]
struct Score {
    /// Tasks with an answer file within the top 1, 5 and 10.
    top: [usize; 3],
    reciprocal_ranks: f64,
    latencies: Vec<Duration>,
}

impl Score {
    /// Records one task; returns the 1-based rank of the first answer file within the top 10.
    fn add(&mut self, ranked: &[String], answers: &[String], latency: Duration) -> Option<usize> {
        let rank = ranked.iter().take(TOP).position(|p| answers.contains(p)).map(|r| r + 1);
        if let Some(rank) = rank {
            for (i, k) in [1, 5, 10].into_iter().enumerate() {
                if rank <= k {
                    self.top[i] += 1;
                }
            }
            self.reciprocal_ranks += 1.0 / rank as f64;
        }
        self.latencies.push(latency);
        rank
    }

    fn share(&self, i: usize) -> f64 {
        self.top[i] as f64 / self.latencies.len().max(1) as f64
    }

    fn figures(&self, system: &str, latency: &str) -> Value {
        json!({
            "system": system,
            "latency_measures": latency,
            "top1": self.share(0),
            "top5": self.share(1),
            "top10": self.share(2),
            "mrr": self.reciprocal_ranks / self.latencies.len().max(1) as f64,
            "latency_p50_ms": percentile(&self.latencies, 50.0).as_secs_f64() * 1e3,
            "latency_p95_ms": percentile(&self.latencies, 95.0).as_secs_f64() * 1e3,
        })
    }

    fn print(&self, system: &str, latency: &str) {
        println!(
            "{system:<30} {:>6.1}% {:>6.1}% {:>6.1}% {:>6.3}  {:>9} {:>9}  {latency}",
            self.share(0) * 100.0,
            self.share(1) * 100.0,
            self.share(2) * 100.0,
            self.reciprocal_ranks / self.latencies.len().max(1) as f64,
            secs(percentile(&self.latencies, 50.0)),
            secs(percentile(&self.latencies, 95.0)),
        );
    }
}

/// `cargo xtask bench nl`.
pub fn nl(args: &BenchArgs) -> Result<()> {
    let repo = &args.repo;
    let (tasks, candidates, commits) = collect_tasks(repo, args.tasks)?;
    if tasks.is_empty() {
        bail!(
            "no commit of {} makes a task (a message of {MIN_WORDS}+ words, 1-{MAX_FILES} files changed, a source \
             file among them that exists at the parent)",
            repo.display()
        );
    }
    eprintln!(
        "{} tasks from {candidates} candidates among the newest {commits} non-merge commits of {}",
        tasks.len(),
        repo.display()
    );
    let bin = crate::bench::release_binary()?;
    let scratch = Scratch::new("bench-nl")?;
    let mut ours = CodeCompass { bin, workspace: repo.clone(), store: scratch.0.join("store"), files: !args.no_files };
    // The first index says whether CodeCompass takes the repository as it is.
    if let Err(error) = ours.index(&tasks[0].parent_id) {
        if !is_bare(repo) {
            return Err(error);
        }
        let clone = scratch.0.join("repo");
        eprintln!("git-codecompass does not take a bare repository ({error:#}); using a shared clone without checkout");
        let status = Command::new("git")
            .args(["clone", "--quiet", "--no-checkout", "--shared"])
            .arg(repo)
            .arg(&clone)
            .status()
            .context("running git clone")?;
        if !status.success() {
            bail!("git clone --shared {} failed", repo.display());
        }
        ours.workspace = clone;
        ours.index(&tasks[0].parent_id)?;
    }
    let mut bm25 = Bm25::new(repo)?;
    let mut our_score = Score::default();
    let mut bm25_score = Score::default();
    let mut rows = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        ours.index(&task.parent_id)?;
        let (ranked, wall) = ours.search(&task.parent_id, &task.query)?;
        let mut walls = vec![wall];
        for _ in 1..args.runs {
            walls.push(ours.search(&task.parent_id, &task.query)?.1);
        }
        let our_rank = our_score.add(&ranked, &task.answers, median(&walls));

        let documents = bm25.load(&task.parent_id)?;
        let mut plain = Vec::new();
        let mut walls = Vec::new();
        for _ in 0..args.runs {
            let started = Instant::now();
            plain = bm25.corpus.rank(&documents, &task.query, TOP);
            walls.push(started.elapsed());
        }
        let bm25_rank = bm25_score.add(&plain, &task.answers, median(&walls));

        let rank = |r: Option<usize>| r.map_or_else(|| "-".to_owned(), |r| r.to_string());
        eprintln!(
            "task {}/{} {}: codecompass {}, bm25 {} ({} files)",
            i + 1,
            tasks.len(),
            &task.commit_id[..task.commit_id.len().min(10)],
            rank(our_rank),
            rank(bm25_rank),
            documents.len(),
        );
        rows.push(json!({
            "commit": task.commit_id,
            "parent": task.parent_id,
            "subject": task.query.lines().next().unwrap_or(""),
            "query": task.query,
            "answers": task.answers,
            "codecompass": {
                "rank": our_rank,
                "top10": &ranked[..ranked.len().min(10)],
                "latency_ms": our_score.latencies.last().map(|d| d.as_secs_f64() * 1e3),
            },
            "bm25": {
                "rank": bm25_rank,
                "top10": &plain[..plain.len().min(10)],
                "latency_ms": bm25_score.latencies.last().map(|d| d.as_secs_f64() * 1e3),
            },
        }));
    }

    let name = repository_name(repo);
    let ours_label = if ours.files { "CodeCompass search --files" } else { "CodeCompass (snippets by file)" };
    let ours_latency = "whole process";
    let bm25_label = "whole-file BM25";
    let bm25_latency = "in process, scoring only (tokens precomputed)";
    let gain = (our_score.share(1) - bm25_score.share(1)) * 100.0;
    println!(
        "repository {name} ({}), {} tasks, latency the median of {} runs per task",
        repo.display(),
        tasks.len(),
        args.runs
    );
    println!(
        "{:<30} {:>7} {:>7} {:>7} {:>6}  {:>9} {:>9}  latency",
        "system", "top-1", "top-5", "top-10", "MRR", "p50", "p95"
    );
    our_score.print(ours_label, ours_latency);
    bm25_score.print(bm25_label, bm25_latency);
    println!("top-5: CodeCompass {gain:+.1} points over whole-file BM25");
    if let Some(path) = &args.json {
        let figures = json!({
            "repository": name,
            "path": repo.display().to_string(),
            "tasks": tasks.len(),
            "candidates": candidates,
            "commits_read": commits,
            "runs": args.runs,
            "codecompass_mode": if ours.files { "files" } else { "snippets_by_file" },
            "systems": {
                "codecompass": our_score.figures(ours_label, ours_latency),
                "bm25": bm25_score.figures(bm25_label, bm25_latency),
            },
            "top5_difference_points": gain,
            "rows": rows,
        });
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::bm25::{Corpus, Document};
    use super::*;

    #[test]
    fn sources_exclude_tests_docs_and_data() {
        assert!(is_source("src/flask/app.py"));
        assert!(is_source("crates/ignore/src/walk.rs"));
        assert!(is_source("src/main/java/App.java"));
        assert!(!is_source("tests/test_app.py"));
        assert!(!is_source("src/flask/test_app.py"));
        assert!(!is_source("src/conftest.py"));
        assert!(!is_source("src/app_test.go"));
        assert!(!is_source("src/test/java/AppTest.java"));
        assert!(!is_source("src/x.spec.ts"));
        assert!(!is_source("src/x.test.tsx"));
        assert!(!is_source("docs/conf.py"));
        assert!(!is_source("benches/search.rs"));
        assert!(!is_source("CHANGES.rst"));
        assert!(!is_source("Cargo.toml"));
        assert!(!is_source("src/config.yml"));
        // Segments, not substrings.
        assert!(is_source("src/testing_utils.py"));
        assert!(is_source("src/latest/mod.rs"));
    }

    #[test]
    fn trailers_and_bare_issue_references_are_dropped() {
        let body = "It was wrong.\n\nFixes #12\nCloses: owner/repo#3\nSigned-off-by: A <a@b>\n\
                    Co-authored-by: B <b@c>\n(cherry picked from commit abc)\n";
        assert_eq!(clean_message("Fix the cache", body), "Fix the cache\n\nIt was wrong.");
        assert_eq!(
            clean_message("Fix the cache", "Fixes a crash in #12 when empty"),
            "Fix the cache\n\nFixes a crash in #12 when empty"
        );
        assert_eq!(clean_message("Subject only", ""), "Subject only");
        assert_eq!(clean_message("A", "one\n\n\n\ntwo"), "A\n\none\n\ntwo");
    }

    #[test]
    fn words_need_a_letter() {
        assert_eq!(word_count("Fix (#1234) a - b 42"), 3);
    }

    #[test]
    fn answers_exist_at_the_parent() {
        let listing = "M\tsrc/a.rs\nA\tsrc/new.rs\nD\tsrc/gone.py\nR087\tsrc/old.go\tsrc/renamed.go\nM\ttests/t.rs\n";
        assert_eq!(answers_of(listing), Some(vec!["src/a.rs".into(), "src/gone.py".into(), "src/old.go".into()]));
        assert_eq!(answers_of(""), None);
        assert_eq!(answers_of(&"M\tsrc/a.rs\n".repeat(MAX_FILES + 1)), None);
    }

    #[test]
    fn spread_is_even_and_keeps_the_newest() {
        assert_eq!(spread((0..12).collect(), 3), vec![0, 4, 8]);
        assert_eq!(spread((0..10).collect(), 4), vec![0, 2, 5, 7]);
        assert_eq!(spread((0..2).collect(), 4), vec![0, 1]);
    }

    #[test]
    fn bm25_prefers_the_file_about_the_question() {
        let files = [
            ("src/cache.rs", "fn evict_cache() { cache.clear() }"),
            ("src/parse.rs", "fn parse(input: &str) -> Tree { Tree::new(input) }"),
            ("src/lib.rs", "mod cache; mod parse;"),
        ];
        let mut corpus = Corpus::default();
        let mut documents = Vec::new();
        for (i, (path, text)) in files.iter().enumerate() {
            let counts = corpus.terms.counts(text);
            corpus.by_blob.insert(i.to_string(), Some(counts));
            let counts = corpus.terms.counts(path);
            corpus.by_path.insert((*path).to_owned(), counts);
            documents.push(Document { path: (*path).to_owned(), blob_id: i.to_string() });
        }
        assert_eq!(corpus.rank(&documents, "the cache is never evicted", 10), ["src/cache.rs", "src/lib.rs"]);
        assert_eq!(corpus.rank(&documents, "parse the input tree", 1), ["src/parse.rs"]);
        assert!(corpus.rank(&documents, "nothing matches here", 10).is_empty());
    }
}
