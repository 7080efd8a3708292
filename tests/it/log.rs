//! `log -S` and `log -G` against `git log -S/-G` on randomized histories (seeded, replayable
//! with `CODECOMPASS_SEED=N`): edits, renames with and without edits, files moved between
//! directories, deletions and re-additions, binary files, branches merged back, commits with
//! equal times. Same commits, same order, with and without paths and `--first-parent`; then a
//! history extended by new commits is indexed incrementally and still agrees.

use std::path::Path;

use crate::support::{Rng, TempDir, bin, cc, cc_env, finish, git_as, git_at, git_command, git_with};

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "needle",
    "Needle",
    "haystack",
    "return x",
    "foo(bar)",
    "Caf\u{e9}",
    "CAF\u{c9}",
    "\u{e9}t\u{e9}",
    "\u{4e2d}\u{6587}\u{5b57}",
];

fn body(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..3 + rng.below(12) {
        let a = WORDS[rng.below(WORDS.len())];
        let b = WORDS[rng.below(WORDS.len())];
        text.push_str(&format!("{a} {} {b}\n", rng.below(5)));
    }
    text
}

/// A random history: `steps` commits on `main` and a side branch merged back now and then.
fn build(dir: &Path, rng: &mut Rng, steps: usize, clock: &mut i64) {
    // Regular files, and submodule entries (gitlinks: mode 160000), from git's index.
    let staged = |dir: &Path, gitlinks: bool| -> Vec<String> {
        git_at(dir, 0, &["ls-files", "--stage"])
            .lines()
            .filter(|l| l.starts_with("160000 ") == gitlinks)
            .filter_map(|l| l.split_once('\t').map(|(_, path)| path.to_owned()))
            .collect()
    };
    let files = |dir: &Path| staged(dir, false);
    for step in 0..steps {
        // Equal times now and then: git's walk breaks ties by the order it met commits.
        if rng.below(4) != 0 {
            *clock += 60;
        }
        let present = files(dir);
        let action = if present.len() < 3 { 0 } else { rng.below(11) };
        match action {
            0 | 1 => {
                let path = format!("{}/f{}.txt", ["src", "lib", "docs"][rng.below(3)], rng.below(40));
                std::fs::create_dir_all(dir.join(&path).parent().unwrap()).unwrap();
                std::fs::write(dir.join(&path), body(rng)).unwrap();
            }
            2..=4 => {
                let path = &present[rng.below(present.len())];
                let mut text = std::fs::read_to_string(dir.join(path)).unwrap_or_default();
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                let at = rng.below(lines.len() + 1);
                match rng.below(3) {
                    0 => lines.insert(at, body(rng).trim_end().to_owned()),
                    1 if !lines.is_empty() => {
                        lines.remove(at.min(lines.len() - 1));
                    }
                    _ => {
                        // Move a line: the same lines, in another order.
                        if lines.len() > 1 {
                            let line = lines.remove(0);
                            lines.push(line);
                        }
                    }
                }
                text = lines.join("\n");
                if rng.below(5) != 0 {
                    text.push('\n');
                }
                std::fs::write(dir.join(path), text).unwrap();
            }
            5 | 6 => {
                // A rename, with an edit half of the time.
                let from = &present[rng.below(present.len())];
                let to = format!("{}/r{}.txt", ["src", "lib", "moved"][rng.below(3)], rng.below(40));
                if dir.join(&to).exists() {
                    continue;
                }
                std::fs::create_dir_all(dir.join(&to).parent().unwrap()).unwrap();
                git_at(dir, *clock, &["mv", from, &to]);
                if rng.below(2) == 0 {
                    let mut text = std::fs::read_to_string(dir.join(&to)).unwrap_or_default();
                    text.push_str("one more line\n");
                    std::fs::write(dir.join(&to), text).unwrap();
                }
            }
            7 => {
                let path = &present[rng.below(present.len())];
                git_at(dir, *clock, &["rm", "-q", path]);
            }
            8 => {
                // A binary file: printable runs (`binary needle `, then the body) around bytes
                // that are not: `binary` and `needle` are found in the kept runs, `café` (not ASCII)
                // and `ary` (shorter than a kept run) by reading every binary change.
                let mut data = b"\0binary needle \xff caf\xc3\xa9\x01".to_vec();
                data.extend(body(rng).bytes());
                std::fs::write(dir.join(format!("bin{}.dat", rng.below(3))), data).unwrap();
            }
            9 => {
                // A submodule entry (no submodule repository is needed for one): added, moved
                // to the next commit, moved to another path, removed, or put where a file was.
                // Its empty directory keeps `git add -A` from taking it for deleted.
                let gitlinks = staged(dir, true);
                let id = format!("cafe{:012x}{:012x}{:012x}", rng.below(1 << 20), rng.below(1 << 20), step);
                let link = |path: &str, id: &str| {
                    std::fs::create_dir_all(dir.join(path)).unwrap();
                    git_at(dir, *clock, &["update-index", "--add", "--cacheinfo", &format!("160000,{id},{path}")]);
                };
                let unlink = |path: &str| {
                    git_at(dir, *clock, &["rm", "-q", "--cached", path]);
                };
                match (gitlinks.is_empty(), rng.below(5)) {
                    (true, _) | (false, 0) => link(&format!("mods/m{}", rng.below(4)), &id),
                    (false, 1) => link(&gitlinks[rng.below(gitlinks.len())], &id),
                    (false, 2) => {
                        let from = &gitlinks[rng.below(gitlinks.len())];
                        let kept = git_at(dir, 0, &["rev-parse", &format!(":{from}")]).trim().to_owned();
                        unlink(from);
                        link(&format!("moved/m{}", rng.below(4)), &kept);
                    }
                    (false, 3) => unlink(&gitlinks[rng.below(gitlinks.len())]),
                    _ => {
                        // A renamed file's path (`r*.txt`): no other step writes one again.
                        let renamed: Vec<&String> = present
                            .iter()
                            .filter(|p| p.rsplit('/').next().is_some_and(|n| n.starts_with('r')))
                            .collect();
                        if renamed.is_empty() {
                            link(&format!("mods/m{}", rng.below(4)), &id);
                        } else {
                            let path = renamed[rng.below(renamed.len())];
                            unlink(path);
                            std::fs::remove_file(dir.join(path)).unwrap();
                            link(path, &id);
                        }
                    }
                }
            }
            _ => {
                // A side branch of two commits, merged back with a merge commit.
                let side = format!("side{clock}");
                git_at(dir, *clock, &["checkout", "-q", "-b", &side]);
                for _ in 0..2 {
                    let path = format!("src/side{}.txt", rng.below(5));
                    std::fs::create_dir_all(dir.join("src")).unwrap();
                    std::fs::write(dir.join(&path), body(rng)).unwrap();
                    git_at(dir, *clock, &["add", "-A"]);
                    git_at(dir, *clock, &["commit", "-q", "-m", &format!("side work {step}")]);
                    *clock += 60;
                }
                git_at(dir, *clock, &["checkout", "-q", "main"]);
                std::fs::write(dir.join("main.txt"), body(rng)).unwrap();
                git_at(dir, *clock, &["add", "-A"]);
                git_at(dir, *clock, &["commit", "-q", "-m", &format!("main work {step}")]);
                *clock += 60;
                git_at(dir, *clock, &["merge", "-q", "--no-ff", "--no-edit", &side]);
                continue;
            }
        }
        git_at(dir, *clock, &["add", "-A"]);
        git_at(
            dir,
            *clock,
            &["commit", "-q", "--allow-empty", "-m", &format!("step {step}: {}", WORDS[rng.below(WORDS.len())])],
        );
    }
}

pub fn ours(dir: &Path, args: &[&str]) -> Vec<String> {
    // `--json` before any `--`, after which every word is a pathspec.
    let mut all = vec!["log", "--json", "--quiet"];
    all.extend_from_slice(args);
    let run = finish(bin().args(&all).current_dir(dir).output().expect("the binary runs"));
    assert!(run.code == 0 || run.code == 1, "log {args:?} failed: {} {}", run.stdout, run.stderr);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete", "{}", run.stdout);
    run.json["commits"].as_array().unwrap().iter().map(|c| c["commit"].as_str().unwrap().to_owned()).collect()
}

pub fn theirs(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["log", "--format=%H"];
    all.extend_from_slice(args);
    // git's `-i` of a string that is not ASCII folds case as the locale does.
    git_with(dir, &all, &[("LC_ALL", "C.UTF-8")]).lines().map(str::to_owned).collect()
}

fn compare(dir: &Path, seed: u64) {
    // `Subproject commit` and `cafe` are in submodule entries' text only.
    let needles = [
        "needle",
        "alpha 3",
        "foo(bar)",
        "one more line",
        "return x gamma",
        "binary",
        "caf\u{e9}",
        "\u{e9}t\u{e9}",
        "\u{4e2d}\u{6587}\u{5b57}",
        "ary",
        "cafe",
        "Subproject",
    ];
    let regexes = ["^needle", "a[lp]+ha [0-2]", "delta$", "foo\\(bar\\) [34]", "line", "commit cafe0*[1-9]"];
    // `-i`: an ASCII string, byte by byte with letters lowered; any other, as a regex that
    // ignores case as a UTF-8 locale folds it (binary files too); the regexes alike.
    for (ours_args, git_args) in [
        (vec!["-S", "NEEDLE", "-i"], vec!["-S", "NEEDLE", "-i"]),
        (vec!["-S", "caf\u{c9}", "-i"], vec!["-S", "caf\u{c9}", "-i"]),
        (vec!["-S", "\u{c9}T\u{c9}", "-i"], vec!["-S", "\u{c9}T\u{c9}", "-i"]),
        (vec!["-G", "\u{e9}t\u{e9} [0-4]"], vec!["-G", "\u{e9}t\u{e9} [0-4]"]),
        (vec!["-S", "Subproject COMMIT", "-i"], vec!["-S", "Subproject COMMIT", "-i"]),
        (vec!["-G", "^needle [0-4]", "-i"], vec!["-G", "^needle [0-4]", "-i"]),
        // `--reverse`: git cuts the walk at `--max-count` before `-S`/`-G` look (so only those
        // of the newest N commits shown that match are listed), and after `--grep` does.
        (vec!["-S", "needle", "--reverse", "-n", "9"], vec!["-S", "needle", "--reverse", "-n", "9"]),
        (
            vec!["-S", "needle", "--reverse", "-n", "9", "--", "src"],
            vec!["-S", "needle", "--reverse", "-n", "9", "--", "src"],
        ),
        (
            vec!["-G", "line", "--reverse", "-n", "7", "--first-parent", "--", "lib"],
            vec!["-G", "line", "--reverse", "-n", "7", "--first-parent", "--", "lib"],
        ),
        (vec!["-G", "line", "--reverse"], vec!["-G", "line", "--reverse"]),
        (vec!["--grep", "alpha", "--reverse", "-n", "2"], vec!["-E", "--grep=alpha", "--reverse", "-n", "2"]),
    ] {
        assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "seed {seed}: log {ours_args:?}");
    }
    for needle in needles {
        let cases: [(Vec<&str>, Vec<&str>); 4] = [
            (vec!["-S", needle], vec!["-S", needle]),
            (vec!["-S", needle, "--", "src"], vec!["-S", needle, "--", "src"]),
            (vec!["-S", needle, "--first-parent"], vec!["-S", needle, "--first-parent"]),
            (vec!["-S", needle, "--path", "*.txt"], vec!["-S", needle, "--", "*.txt"]),
        ];
        for (ours_args, git_args) in cases {
            assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "seed {seed}: log {ours_args:?}");
        }
    }
    // Ranges: the commits B reaches and A does not, with and without first parents.
    let mut ranges = vec!["HEAD~8..HEAD".to_owned(), "HEAD~8..".to_owned()];
    let sides = git_at(dir, 0, &["for-each-ref", "--format=%(refname:short)", "refs/heads/side*"]);
    if let Some(side) = sides.lines().next() {
        ranges.extend([format!("{side}..main"), format!("{side}~1..{side}"), format!("HEAD~12..{side}")]);
    }
    for range in &ranges {
        for first_parent in [false, true] {
            let fp = if first_parent { vec!["--first-parent"] } else { vec![] };
            for (mut ours_args, mut git_args) in [
                (vec!["-S", "needle"], vec!["-S", "needle"]),
                (vec!["-G", "line"], vec!["-G", "line"]),
                (vec!["--grep", "step"], vec!["-E", "--grep=step"]),
            ] {
                ours_args.extend(["--ref", range.as_str()]);
                ours_args.extend(&fp);
                git_args.push(range.as_str());
                git_args.extend(&fp);
                assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "seed {seed}: log {ours_args:?}");
            }
        }
    }
    // Messages, as git log -E --grep reads them.
    for (ours_args, git_args) in [
        (vec!["--grep", "step [0-9]+: (alpha|needle)"], vec!["-E", "--grep=step [0-9]+: (alpha|needle)"]),
        (
            vec!["--grep", "^side work", "--since", "@1700000600"],
            vec!["-E", "--grep=^side work", "--since=@1700000600"],
        ),
        (vec!["--grep", "GAMMA", "-i"], vec!["-E", "-i", "--grep=GAMMA"]),
    ] {
        assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "seed {seed}: log {ours_args:?}");
    }
    for regex in regexes {
        for (ours_args, git_args) in [
            (vec!["-G", regex], vec!["-G", regex]),
            (vec!["-G", regex, "--", "lib"], vec!["-G", regex, "--", "lib"]),
            (vec!["-G", regex, "--first-parent"], vec!["-G", regex, "--first-parent"]),
        ] {
            assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "seed {seed}: log {ours_args:?}");
        }
    }
}

#[test]
fn pickaxe_equals_git_log_on_randomized_histories() {
    let seeds: Vec<u64> = match std::env::var("CODECOMPASS_SEED") {
        Ok(s) => vec![s.parse().expect("a number")],
        Err(_) => vec![11, 29],
    };
    for seed in seeds {
        let tmp = TempDir::new("log");
        let dir = tmp.path();
        git_at(dir, 0, &["init", "-q", "-b", "main"]);
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut clock = 1_700_000_000;
        build(dir, &mut rng, 40, &mut clock);
        compare(dir, seed);
        // New commits: indexed incrementally by the next query, answers still git's.
        build(dir, &mut rng, 15, &mut clock);
        compare(dir, seed);
        let run = cc(dir, &["log", "-S", "needle"]);
        assert_eq!(run.json["history"]["commits_added"], 0, "{}", run.stdout);
    }
}

/// `-G` skips a file its attributes make binary (`-diff`, a diff driver configured `binary`),
/// read from the working tree as git reads them; `-S` still counts in it, as git does.
#[test]
fn pickaxe_follows_the_attributes_that_make_a_text_file_binary() {
    let tmp = TempDir::new("log-attributes");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    git_at(dir, 0, &["config", "diff.opaque.binary", "true"]);
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).unwrap();
    write(".gitattributes", "*.lock -diff\n*.dat diff=opaque\n");
    for path in ["a.txt", "b.lock", "c.dat"] {
        write(path, "first\n");
    }
    git_at(dir, 1_700_000_000, &["add", "-A"]);
    git_at(dir, 1_700_000_000, &["commit", "-q", "-m", "files"]);
    for path in ["a.txt", "b.lock", "c.dat"] {
        write(path, "first\nneedle line\n");
    }
    git_at(dir, 1_700_000_060, &["commit", "-q", "-am", "a needle in each"]);
    write("b.lock", "first\nneedle line\nneedle line 2\n");
    git_at(dir, 1_700_000_120, &["commit", "-q", "-am", "another in the lock file"]);
    let grep = theirs(dir, &["-G", "needle"]);
    assert_eq!(grep.len(), 1, "git: only the text file's change");
    assert_eq!(ours(dir, &["-G", "needle"]), grep);
    assert_eq!(ours(dir, &["-S", "needle"]), theirs(dir, &["-S", "needle"]));
    // `--limit`, as the other commands spell it, is `-n`.
    assert_eq!(ours(dir, &["-S", "needle", "--limit", "1"]), theirs(dir, &["-S", "needle", "-n", "1"]));
}

#[test]
fn log_words_ranks_commits_by_message_and_a_bounded_index_says_it_is_partial() {
    let tmp = TempDir::new("log-words");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let mut clock = 1_700_000_000;
    for (i, message) in
        ["Add the parser", "Fix crash on empty config file", "Document the CLI", "Speed up tokenizer in read_config"]
            .iter()
            .enumerate()
    {
        clock += 60;
        std::fs::write(dir.join(format!("f{i}.py")), format!("def f{i}():\n    return {i}\n")).unwrap();
        git_at(dir, clock, &["add", "-A"]);
        git_at(dir, clock, &["commit", "-q", "-m", message]);
    }
    // Only the newest two commits indexed: an answer that needs older ones says so.
    let run = cc(dir, &["index", "--history", "--max-count", "2"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["commits_added"], 2);
    let run = cc(dir, &["log", "-S", "return 0"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial", "{}", run.stdout);
    assert_eq!(run.json["history"]["boundary"], true);
    // All of it: the words find the commit by its message.
    let run = cc(dir, &["index", "--history"]);
    assert_eq!(run.json["commits_added"], 2, "{}", run.stdout);
    let run = cc(dir, &["log", "crash", "when", "the", "config", "is", "empty"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["commits"][0]["subject"], "Fix crash on empty config file", "{}", run.stdout);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete");
    // An identifier is several tokens (the whole and its parts): the commit that names it
    // leads, by its message, and one that touched a definition, by its symbols.
    let run = cc(dir, &["log", "read_config"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["commits"][0]["subject"], "Speed up tokenizer in read_config", "{}", run.stdout);
    let run = cc(dir, &["log", "f2"]);
    assert_eq!(run.json["commits"][0]["subject"], "Document the CLI", "{}", run.stdout);
    // A paste of more distinct words than a query weighs: the rarest the index holds are kept,
    // and the answer says how many were left out.
    let mut paste: Vec<String> = (0..150).map(|i| format!("filler{i}")).collect();
    paste.extend(["crash", "empty", "config"].map(str::to_owned));
    let mut args = vec!["log".to_owned()];
    args.extend(paste);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = cc(dir, &args);
    assert_eq!(run.json["commits"][0]["subject"], "Fix crash on empty config file", "{}", run.stdout);
    let notes = run.json["metadata"]["notes"].to_string();
    assert!(notes.contains("most common were left out"), "{}", run.stdout);
    // Nothing found: exit 1.
    let run = cc(dir, &["log", "-S", "no such text anywhere"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    // A date git cannot read is an error that says so.
    let run = cc(dir, &["log", "-S", "x", "--since", "the day after"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "invalid_argument", "{}", run.stdout);
}

#[test]
fn sync_extends_history_and_a_lost_commit_index_is_rebuilt_not_trusted() {
    let (_tmp, dir) = crate::support::fixture("symbol-history");
    let run = cc(&dir, &["log", "-S", "vat"]);
    let before = run.json["commits"].as_array().unwrap().len();
    assert_eq!(run.json["history"]["commits_indexed"], 11, "{}", run.stdout);
    // A new commit: the next sync adds it to history.
    std::fs::write(dir.join("shop/extra.py"), "def vat_free(amount):\n    return amount\n").unwrap();
    git_at(&dir, 1_700_100_000, &["add", "-A"]);
    git_at(&dir, 1_700_100_000, &["commit", "-q", "-m", "Add vat_free"]);
    let run = cc(&dir, &["sync"]);
    assert_eq!(run.json["history"]["commits_added"], 1, "{}", run.stdout);
    let run = cc(&dir, &["log", "-S", "vat"]);
    assert_eq!(run.json["history"]["commits_added"], 0);
    assert_eq!(run.json["commits"].as_array().unwrap().len(), before + 1);
    // The commits' documents lost: history is indexed again, never answered from without them.
    let store = dir.join(".git/codecompass");
    let history = std::fs::read_dir(&store)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("history").is_dir())
        .map(|p| p.join("history"))
        .unwrap_or_else(|| store.join("history"));
    std::fs::remove_dir_all(&history).expect("the commits' index is where the store is");
    let run = cc(&dir, &["log", "-S", "vat"]);
    assert_eq!(run.json["commits"].as_array().unwrap().len(), before + 1, "{}", run.stdout);
    assert_eq!(run.json["history"]["commits_added"], 12);
    assert_eq!(theirs(&dir, &["-S", "vat"]), ours(&dir, &["-S", "vat"]));
    assert_eq!(cc(&dir, &["status"]).json["counts"]["commits"], 12);
}

#[test]
fn a_store_made_before_history_gains_its_tables_and_syncs() {
    let (_tmp, dir) = crate::support::fixture("symbol-history");
    assert_eq!(cc(&dir, &["index"]).code, 0);
    // What a build from before history left: the store without its tables.
    let db = rusqlite::Connection::open(dir.join(".git/codecompass/store.sqlite")).unwrap();
    db.execute_batch("DROP TABLE commit_files; DROP TABLE commits;").unwrap();
    drop(db);
    let run = cc(&dir, &["sync"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(theirs(&dir, &["-S", "vat"]), ours(&dir, &["-S", "vat"]));
}

#[test]
fn a_shallow_clone_answers_to_its_boundary_and_says_so() {
    let (tmp, dir) = crate::support::fixture("symbol-history");
    let shallow = tmp.path().join("shallow");
    let url = format!("file://{}", dir.display());
    git_at(tmp.path(), 0, &["clone", "-q", "--depth", "3", &url, shallow.to_str().unwrap()]);
    let run = cc(&shallow, &["log", "-S", "total"]);
    assert_eq!(run.json["history"]["shallow"], true, "{}", run.stdout);
    assert_eq!(run.json["history"]["boundary"], true);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial");
    assert!(run.json["metadata"]["notes"][0].as_str().unwrap().contains("shallow"), "{}", run.stdout);
    // The same commits git itself finds there (its boundary commit shows as a root).
    let ours: Vec<&str> =
        run.json["commits"].as_array().unwrap().iter().map(|c| c["commit"].as_str().unwrap()).collect();
    assert_eq!(ours, theirs(&shallow, &["-S", "total"]));
}

#[test]
fn a_partial_clone_without_its_blobs_says_the_answer_is_partial() {
    let (tmp, dir) = crate::support::fixture("symbol-history");
    git_at(&dir, 0, &["config", "uploadpack.allowFilter", "true"]);
    let partial = tmp.path().join("partial");
    let url = format!("file://{}", dir.display());
    git_at(tmp.path(), 0, &["clone", "-q", "--filter=blob:none", "--no-checkout", &url, partial.to_str().unwrap()]);
    let run = cc(&partial, &["log", "-S", "total", "--ref", "origin/main"]);
    assert!(run.code == 0 || run.code == 1, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial", "{}", run.stdout);
    let notes = run.json["metadata"]["notes"].to_string();
    assert!(notes.contains("missing from the object store"), "{notes}");
}

#[test]
fn log_by_author_and_the_commits_it_shows_say_what_git_says() {
    // Three authors taking turns; a needle added and removed; a merge. `--author` hides the
    // others' commits as git's does, and each commit shown carries git's author, times,
    // subject and parents.
    let tmp = TempDir::new("log-authors");
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git_at(&dir, 1_700_000_000, &["init", "-q", "-b", "main"]);
    let authors = [("Ada Fixture", "ada@example.com"), ("Bob Builder", "bob@example.com"), ("Cy Ng", "cy@example.org")];
    for step in 0..12 {
        let time = 1_700_000_000 + 60 * step as i64;
        let by = authors[step % 3];
        let text = if step % 4 == 1 { format!("needle {step}\n") } else { format!("hay {step}\n") };
        std::fs::write(dir.join(format!("f{}.txt", step % 2)), text).unwrap();
        git_as(&dir, time, by, &["add", "-A"]);
        let message = format!("change {step} by {}\n\nWhy: step {step}.", by.0);
        git_as(&dir, time, by, &["commit", "-q", "-m", &message]);
    }
    git_as(&dir, 1_700_001_000, authors[1], &["checkout", "-q", "-b", "side", "HEAD~3"]);
    std::fs::write(dir.join("side.txt"), "needle on the side\n").unwrap();
    git_as(&dir, 1_700_001_000, authors[1], &["add", "-A"]);
    git_as(&dir, 1_700_001_000, authors[1], &["commit", "-q", "-m", "side needle by Bob"]);
    git_as(&dir, 1_700_001_060, authors[2], &["checkout", "-q", "main"]);
    git_as(&dir, 1_700_001_060, authors[2], &["merge", "-q", "--no-ff", "-m", "merge side", "side"]);

    assert_eq!(cc(&dir, &["index", "--history"]).code, 0);
    for (ours_args, git_args) in [
        (vec!["-S", "needle", "--author", "Bob"], vec!["-S", "needle", "--author=Bob"]),
        (vec!["-G", "needle", "--author", "cy@example"], vec!["-G", "needle", "--author=cy@example"]),
        (vec!["--grep", "change", "--author", "Ada"], vec!["-E", "--grep=change", "--author=Ada"]),
        (vec!["-S", "needle", "--author", "Nobody"], vec!["-S", "needle", "--author=Nobody"]),
        // `-i` ignores the author's case too.
        (vec!["-S", "needle", "--author", "BOB", "-i"], vec!["-S", "needle", "--author=BOB", "-i"]),
    ] {
        let found = ours(&dir, &ours_args);
        assert_eq!(found, theirs(&dir, &git_args), "log {ours_args:?}");
        assert!(!found.is_empty() || ours_args.contains(&"Nobody"), "log {ours_args:?} found nothing");
    }
    // What each commit shown says, against git's own account of it.
    let run = finish(bin().args(["log", "--json", "--quiet", "-S", "needle"]).current_dir(&dir).output().unwrap());
    let shown = run.json["commits"].as_array().unwrap();
    let expected = git_at(&dir, 0, &["log", "-S", "needle", "--format=%H%x00%an <%ae>%x00%at%x00%ct%x00%s%x00%P"]);
    assert_eq!(shown.len(), expected.lines().count(), "{}", run.stdout);
    assert!(shown.len() >= 4, "{}", run.stdout);
    for (commit, line) in shown.iter().zip(expected.lines()) {
        let fields: Vec<&str> = line.split('\0').collect();
        assert_eq!(commit["commit"], fields[0]);
        assert_eq!(commit["author"], fields[1]);
        assert_eq!(commit["author_time"].to_string(), fields[2]);
        assert_eq!(commit["commit_time"].to_string(), fields[3]);
        assert_eq!(commit["subject"], fields[4]);
        let parents: Vec<&str> = commit["parents"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert_eq!(parents.join(" "), fields[5]);
    }
}

/// A submodule's commit change is a change to `git log`: `-S` and `-G` read it as the line
/// `Subproject commit <id>`, and a pathspec naming it selects its commits. History stored by a
/// build that left submodule entries out (a failpoint stores it that way) is completed by the
/// next query, once, before it answers.
#[test]
fn submodule_changes_are_in_history_and_a_store_without_them_gains_them() {
    let tmp = TempDir::new("log-gitlinks");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let link = |time: i64, path: &str, id: &str| {
        std::fs::create_dir_all(dir.join(path)).unwrap();
        git_at(dir, time, &["update-index", "--add", "--cacheinfo", &format!("160000,{id},{path}")]);
    };
    let commit = |time: i64, message: &str| {
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", message]);
    };
    std::fs::write(dir.join("notes.txt"), "x marks the spot\n").unwrap();
    std::fs::write(dir.join("vendor.txt"), "a file for now\n").unwrap();
    commit(1_700_000_000, "files");
    link(1_700_000_060, "deps/lib", "cafe000000000000000000000000000000000001");
    commit(1_700_000_060, "add the submodule");
    link(1_700_000_120, "deps/lib", "cafe000000000000000000000000000000000002");
    commit(1_700_000_120, "bump it");
    git_at(dir, 1_700_000_180, &["rm", "-q", "--cached", "deps/lib"]);
    link(1_700_000_180, "third/lib", "cafe000000000000000000000000000000000002");
    commit(1_700_000_180, "move it");
    git_at(dir, 1_700_000_240, &["rm", "-q", "--cached", "vendor.txt"]);
    std::fs::remove_file(dir.join("vendor.txt")).unwrap();
    link(1_700_000_240, "vendor.txt", "cafe000000000000000000000000000000000003");
    commit(1_700_000_240, "a file becomes a submodule");
    let cases: [(Vec<&str>, Vec<&str>); 7] = [
        (vec!["-S", "cafe"], vec!["-S", "cafe"]),
        (vec!["-S", "0002"], vec!["-S", "0002"]),
        (vec!["-S", "a file"], vec!["-S", "a file"]),
        (vec!["-G", "^Subproject commit"], vec!["-G", "^Subproject commit"]),
        (vec!["-S", "cafe", "--", "deps"], vec!["-S", "cafe", "--", "deps"]),
        (vec!["--grep", "it", "--", "third"], vec!["-E", "--grep=it", "--", "third"]),
        (vec!["--grep", ".", "--", "vendor.txt"], vec!["-E", "--grep=.", "--", "vendor.txt"]),
    ];
    let old_build = [("CODECOMPASS_FAILPOINTS", "history.gitlinks=fail")];
    let stored = cc_env(dir, &["index", "--history", "--json", "--quiet"], &old_build);
    assert_eq!(stored.code, 0, "{} {}", stored.stdout, stored.stderr);
    // As the earlier build answered: no submodule change anywhere.
    let as_before = cc_env(dir, &["log", "-S", "cafe", "--json", "--quiet"], &old_build);
    assert_eq!(as_before.json["commits"].as_array().map(Vec::len), Some(0), "{}", as_before.stdout);
    for (ours_args, git_args) in &cases {
        let expected = theirs(dir, git_args);
        assert!(!expected.is_empty(), "git finds commits for {git_args:?}");
        assert_eq!(ours(dir, ours_args), expected, "log {ours_args:?}");
    }
    // Indexed by this build from the start, the same answers.
    std::fs::remove_dir_all(dir.join(".git/codecompass")).unwrap();
    for (ours_args, git_args) in &cases {
        assert_eq!(ours(dir, ours_args), theirs(dir, git_args), "log {ours_args:?}");
    }
}

/// `--all` walks from every ref under `refs/` (a branch never merged, tags, a stash) and every
/// worktree's `HEAD` (a detached one in a linked worktree), as `git log --all` does.
#[test]
fn all_walks_every_ref_and_worktree_head_as_git_does() {
    let tmp = TempDir::new("log-all");
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git_at(&dir, 0, &["init", "-q", "-b", "main"]);
    let mut rng = Rng(0x5eed_0a11);
    let mut clock = 1_700_000_000;
    build(&dir, &mut rng, 16, &mut clock);
    let commit = |dir: &Path, time: i64, path: &str, text: &str| {
        std::fs::write(dir.join(path), text).unwrap();
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", &format!("{path} at {time}")]);
    };
    // A branch never merged, a tag on it and an annotated one on main's past.
    git_at(&dir, clock, &["checkout", "-q", "-b", "topic", "HEAD~4"]);
    commit(&dir, clock + 60, "topic.txt", "needle on topic\n");
    git_at(&dir, clock + 60, &["tag", "on-topic"]);
    commit(&dir, clock + 120, "topic.txt", "needle on topic\nand a line\n");
    git_at(&dir, clock + 120, &["checkout", "-q", "main"]);
    git_at(&dir, clock + 120, &["tag", "-a", "-m", "old", "old-tag", "HEAD~2"]);
    // A stash: its commits hold a needle no branch has.
    std::fs::write(dir.join("main.txt"), "stashed needle\n").unwrap();
    git_at(&dir, clock + 180, &["stash", "-q"]);
    // A linked worktree with a detached commit of its own.
    let linked = tmp.path().join("linked");
    git_at(&dir, clock + 240, &["worktree", "add", "-q", "--detach", linked.to_str().unwrap(), "HEAD~1"]);
    commit(&linked, clock + 300, "detached.txt", "needle, detached\n");
    for (ours_args, git_args) in [
        (vec!["-S", "needle", "--all"], vec!["-S", "needle", "--all"]),
        (vec!["-G", "needle", "--all", "--first-parent"], vec!["-G", "needle", "--all", "--first-parent"]),
        (vec!["--grep", "at", "--all"], vec!["-E", "--grep=at", "--all"]),
        (vec!["-S", "needle", "--all", "--", "topic.txt"], vec!["-S", "needle", "--all", "--", "topic.txt"]),
    ] {
        let expected = theirs(&dir, &git_args);
        assert_eq!(ours(&dir, &ours_args), expected, "log {ours_args:?}");
    }
    // The stash's and the linked worktree's commits are among them.
    let all = theirs(&dir, &["--all"]);
    assert!(all.len() > theirs(&dir, &["--branches", "--tags"]).len(), "the stash and the detached commit count");
    let run = cc(&dir, &["log", "-S", "needle", "--all", "--ref", "main"]);
    assert_eq!(run.code, 2, "--all and --ref together are refused: {}", run.stderr);
    // Words are ranked, not walked: `--reverse` has no order to turn over there.
    let run = cc(&dir, &["log", "needle", "--reverse"]);
    assert_eq!(run.code, 2, "--reverse with words is refused: {}", run.stdout);
    assert!(run.json["error"]["message"].as_str().is_some_and(|m| m.contains("--reverse")), "{}", run.stdout);
}

/// With paths, git's walk shows a merge that equals none of its parents there (a conflict
/// resolved by hand) and hides one that takes a parent's side: `--grep` lists the first, and
/// `-S`/`-G` diff it with `--first-parent`, as git does.
#[test]
fn a_merge_resolved_by_hand_is_shown_under_its_paths_as_git_shows_it() {
    let tmp = TempDir::new("log-evil-merge");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let commit = |time: i64, path: &str, text: &str, message: &str| {
        std::fs::write(dir.join(path), text).unwrap();
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", message]);
    };
    commit(1_700_000_000, "f.txt", "base\n", "base");
    commit(1_700_000_000, "g.txt", "other\n", "other file");
    git_at(dir, 1_700_000_060, &["checkout", "-q", "-b", "side"]);
    commit(1_700_000_060, "f.txt", "side needle\n", "side edit");
    git_at(dir, 1_700_000_120, &["checkout", "-q", "main"]);
    commit(1_700_000_120, "f.txt", "main edit\n", "main edit");
    // Resolved by hand: neither side's text.
    let merged = git_command(dir, &["merge", "-q", "--no-edit", "side"]).output().unwrap();
    assert!(String::from_utf8_lossy(&merged.stdout).contains("CONFLICT"), "the merge conflicts: {merged:?}");
    commit(1_700_000_180, "f.txt", "resolved needle by hand\n", "merge side, resolved by hand");
    // A clean merge that takes one side under g.txt.
    git_at(dir, 1_700_000_240, &["checkout", "-q", "-b", "later", "HEAD~1"]);
    commit(1_700_000_240, "h.txt", "h\n", "later work");
    git_at(dir, 1_700_000_300, &["checkout", "-q", "main"]);
    git_at(dir, 1_700_000_300, &["merge", "-q", "--no-ff", "-m", "merge later cleanly", "later"]);
    for (ours_args, git_args) in [
        (vec!["--grep", "merge", "--", "f.txt"], vec!["-E", "--grep=merge", "--", "f.txt"]),
        (vec!["--grep", ".", "--", "f.txt"], vec!["-E", "--grep=.", "--", "f.txt"]),
        (vec!["--grep", ".", "--first-parent", "--", "f.txt"], vec!["-E", "--grep=.", "--first-parent", "--", "f.txt"]),
        (vec!["-S", "needle", "--", "f.txt"], vec!["-S", "needle", "--", "f.txt"]),
        (vec!["-S", "needle", "--first-parent", "--", "f.txt"], vec!["-S", "needle", "--first-parent", "--", "f.txt"]),
        (
            vec!["-S", "needle", "--reverse", "-n", "2", "--", "f.txt"],
            vec!["-S", "needle", "--reverse", "-n", "2", "--", "f.txt"],
        ),
    ] {
        assert_eq!(ours(dir, &ours_args), theirs(dir, &git_args), "log {ours_args:?}");
    }
    assert!(theirs(dir, &["-E", "--grep=resolved by hand", "--", "f.txt"]).len() == 1, "git shows the merge");
    assert_eq!(git_at(dir, 0, &["rev-list", "--merges", "--count", "HEAD"]).trim(), "2", "two merges");
}
