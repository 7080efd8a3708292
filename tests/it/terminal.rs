//! What a person at a terminal sees, against what a pipe gets: progress on stderr only on a
//! terminal and never with `-q`; line matches under a heading per file on a terminal, flat when
//! piped or with `--no-heading`; colour as `--color` says, `NO_COLOR` turning off colour but
//! not the layout. The terminal is a pseudo-terminal (`script`, from util-linux).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{bin, fixture};

/// Runs the binary with `args` on a pseudo-terminal in `dir`; returns all it showed.
fn on_terminal(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> String {
    let mut line = String::from(env!("CARGO_BIN_EXE_git-codecompass"));
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    let mut command = Command::new("script");
    command.args(["-qec", &line, "/dev/null"]).current_dir(dir).stdin(Stdio::null());
    command.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").env_remove("NO_COLOR");
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().expect("script (util-linux) runs a command on a pseudo-terminal");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn piped(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> (String, String) {
    let mut command = bin();
    command.args(args).current_dir(dir).env_remove("NO_COLOR");
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn progress_is_drawn_on_a_terminal_only() {
    let (_tmp, repo) = fixture("shop");
    let shown = on_terminal(&repo, &["index", "--force"], &[]);
    assert!(shown.contains("parsing: "), "{shown}");
    let (_, stderr) = piped(&repo, &["index", "--force"], &[]);
    assert!(!stderr.contains("parsing: "), "{stderr}");
    let quiet = on_terminal(&repo, &["index", "--force", "-q"], &[]);
    assert!(!quiet.contains("parsing: "), "{quiet}");
}

#[test]
fn a_terminal_gets_headings_and_colour_and_a_pipe_gets_lines() {
    let (_tmp, repo) = fixture("shop");
    let args = ["search", "-F", "cents"];
    let shown = on_terminal(&repo, &args, &[]);
    assert!(shown.contains("\x1b["), "colour on a terminal: {shown:?}");
    assert!(shown.lines().any(|l| l.contains("src/cart.rs") && !l.contains(":7:")), "a heading: {shown}");
    // NO_COLOR: no colour, the same layout.
    let plain = on_terminal(&repo, &args, &[("NO_COLOR", "1")]);
    assert!(!plain.contains("\x1b["), "{plain:?}");
    assert!(plain.lines().any(|l| l.trim_end() == "src/cart.rs"), "{plain}");
    assert!(plain.lines().any(|l| l.starts_with("7:")), "{plain}");
    // --no-heading on a terminal: `path:line:col: text`.
    let flat = on_terminal(&repo, &["search", "-F", "cents", "--no-heading", "--color", "never"], &[]);
    assert!(flat.lines().any(|l| l.starts_with("src/cart.rs:7:")), "{flat}");
    // A pipe: flat, no colour; `--color always` colours it, `--heading` groups it.
    let (out, _) = piped(&repo, &args, &[]);
    assert!(out.lines().all(|l| l.starts_with("src/cart.rs:")) && !out.contains("\x1b["), "{out}");
    let (out, _) = piped(&repo, &["search", "-F", "cents", "--color", "always"], &[]);
    assert!(out.contains("\x1b["), "{out:?}");
    let (out, _) = piped(&repo, &["search", "-F", "cents", "--heading"], &[]);
    assert_eq!(out.lines().next(), Some("src/cart.rs"), "{out}");
    // Under git's pager, colour follows git's color.pager.
    let (out, _) = piped(&repo, &args, &[("GIT_PAGER_IN_USE", "1")]);
    assert!(out.contains("\x1b["), "{out:?}");
    crate::support::git(&repo, &["config", "color.pager", "false"]);
    let (out, _) = piped(&repo, &args, &[("GIT_PAGER_IN_USE", "1")]);
    assert!(!out.contains("\x1b[") && out.lines().next() == Some("src/cart.rs"), "{out:?}");
}
