//! `log --since` and `--until` take the commits `git log` takes for the same date, in the
//! same time zone: a day without a time is that day at the current time of day (so a day's
//! commits before that time are left out by `--since`), a time without a zone is local.

use crate::support::{TempDir, bin, cc, finish, git_at, git_with};

/// The commits `log --grep . ARGS` lists, run with `TZ` set to `tz`.
fn ours(dir: &std::path::Path, tz: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["log", "--json", "--quiet", "--grep", ".", "-n", "1000"];
    all.extend_from_slice(args);
    let run = finish(bin().args(&all).env("TZ", tz).current_dir(dir).output().expect("the binary runs"));
    assert!(run.code == 0 || run.code == 1, "log {args:?} failed: {} {}", run.stdout, run.stderr);
    run.json["commits"].as_array().unwrap().iter().map(|c| c["commit"].as_str().unwrap().to_owned()).collect()
}

/// The commits `git log --grep . ARGS` lists, with `TZ` set to `tz`.
fn theirs(dir: &std::path::Path, tz: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["log", "--format=%H", "--grep", "."];
    all.extend_from_slice(args);
    git_with(dir, &all, &[("TZ", tz)]).lines().map(str::to_owned).collect()
}

#[test]
fn since_and_until_take_the_commits_git_takes_for_the_same_date() {
    let tmp = TempDir::new("log-dates");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    // A commit every 40 minutes over 2024-01-04 to 2024-01-06 (UTC), and over 2024-06-30 to
    // 2024-07-02, a day of summer time where zones have one: whatever the time of day now,
    // some commits of the day named lie between its midnight and that time.
    let mut times: Vec<i64> = Vec::new();
    for start in [1_704_326_400_i64, 1_719_705_600] {
        times.extend((0..108).map(|k| start + k * 2400));
    }
    for (n, time) in times.iter().enumerate() {
        std::fs::write(dir.join("f.txt"), format!("{n}\n")).unwrap();
        git_at(dir, 0, &["add", "f.txt"]);
        git_at(dir, *time, &["commit", "-q", "-m", &format!("change {n}")]);
    }
    let forms = [
        "2024-01-05",
        "Jan 5 2024",
        "01/05/2024",
        "5.1.2024",
        "2024-01-05 12:00",
        "2024-01-05T06:30:00",
        "2024-07-01",
        "Jul 1 2024 10:00",
        "2024-07-01 23:30:00 +0200",
    ];
    for tz in ["UTC", "America/New_York", "Asia/Kolkata"] {
        for form in forms {
            for flag in ["--since", "--until"] {
                let arg = format!("{flag}={form}");
                let git = theirs(dir, tz, &[&arg]);
                assert!(!git.is_empty() && git.len() < times.len(), "{tz} {arg}: git takes {}", git.len());
                assert_eq!(ours(dir, tz, &[flag, form]), git, "{tz} {arg}");
            }
        }
    }
}

/// A form git reads that is not read here is refused, with the forms that are, never read as
/// another date.
#[test]
fn a_date_form_not_read_is_refused_with_the_forms_that_are() {
    let tmp = TempDir::new("log-dates-refused");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("f.txt"), "x\n").unwrap();
    git_at(dir, 0, &["add", "f.txt"]);
    git_at(dir, 1_700_000_000, &["commit", "-q", "-m", "one"]);
    for (flag, form) in [("--since", "last monday"), ("--until", "noon yesterday"), ("--since", "3 days ago 12:00")] {
        let run = cc(dir, &["log", "--grep", ".", flag, form]);
        assert_eq!(run.code, 2, "{flag} {form}: {}", run.stdout);
        assert_eq!(run.json["error"]["code"], "invalid_argument", "{}", run.stdout);
        let message = run.json["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(form) && message.contains("2024-01-31") && message.contains("3 weeks ago"),
            "{message}"
        );
    }
}
