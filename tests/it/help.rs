//! Help where git users look: man pages for the command and every subcommand, with every flag
//! and examples; completion scripts for every shell with every subcommand; and bash completion
//! of `git codecompass <TAB>` through git's own completion script.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::support::{TempDir, bin};

fn stdout(args: &[&str]) -> String {
    let output = bin().args(args).output().expect("the binary runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The subcommands `--help` lists (not `help` itself).
fn subcommands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let listed = help.split("Commands:").nth(1).expect("a list of commands").split("\n\n").next().unwrap().to_owned();
    let names: Vec<String> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 20, "{names:?}");
    names
}

/// The long flags a help text lists.
fn long_flags(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '=')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()).to_owned())
        .filter(|w| w.chars().skip(2).all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .collect()
}

#[test]
fn every_subcommand_has_a_man_page_with_its_flags_and_examples() {
    let tmp = TempDir::new("man");
    let out = bin().args(["install-man", "--man-dir"]).arg(tmp.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let man1 = tmp.path().join("man1");
    let main_page = std::fs::read_to_string(man1.join("git-codecompass.1")).unwrap();
    for name in subcommands() {
        assert!(main_page.contains(&name.replace('-', "\\-")), "git-codecompass.1 lists {name}");
        let help = stdout(&[&name, "--help"]);
        assert!(help.contains("Examples:\n  git codecompass"), "{name} --help has examples:\n{help}");
        let page_path = man1.join(format!("git-codecompass-{name}.1"));
        let page = std::fs::read_to_string(&page_path).unwrap_or_else(|_| panic!("{} exists", page_path.display()));
        assert!(page.contains("git codecompass"), "{name}: the page shows examples");
        for flag in long_flags(&help) {
            // roff escapes `-` as `\-`.
            let escaped = flag.replace('-', "\\-");
            assert!(page.contains(&flag) || page.contains(&escaped), "git-codecompass-{name}.1 lacks {flag}");
        }
    }
}

#[test]
fn completion_scripts_name_every_subcommand() {
    let names = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = stdout(&["completions", shell]);
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell} completion lacks {name}");
        }
        assert!(script.contains("max-count") && script.contains("ref"), "{shell}");
    }
    assert!(stdout(&["completions", "bash"]).contains("_git_codecompass()"), "the bridge git's completion calls");
}

/// Git's bash completion script, where distributions put it.
fn git_completion_script() -> &'static Path {
    [
        "/usr/share/bash-completion/completions/git",
        "/etc/bash_completion.d/git",
        "/usr/share/git/completion/git-completion.bash",
    ]
    .iter()
    .map(Path::new)
    .find(|p| p.exists())
    .expect("git's bash completion script is installed with git")
}

#[test]
fn git_codecompass_tab_completes_through_gits_own_bash_completion() {
    let (_tmp, repo) = crate::support::fixture("shop");
    let script = stdout(&["completions", "bash"]);
    let file = repo.join("../cc-completion.bash");
    std::fs::write(&file, script).unwrap();
    let complete = |line: &str| -> String {
        let program = format!(
            "source {git}; source {ours}; COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; __git_wrap__git_main; echo \"${{COMPREPLY[*]}}\"",
            git = git_completion_script().display(),
            ours = file.display()
        );
        let output = Command::new("bash").arg("-c").arg(program).current_dir(&repo).output().unwrap();
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    };
    assert_eq!(complete("git codecompass sea"), "search");
    assert_eq!(complete("git codecompass locate --ki"), "--kind");
    assert_eq!(complete("git codecompass search --mode lit"), "literal");
    assert!(complete("git codecompass search --ref v1").split(' ').any(|r| r == "v1.0"), "refs after --ref");
}

#[test]
fn agent_configurations_parse_and_project_files_hold_no_absolute_path() {
    let (_tmp, repo) = crate::support::fixture("shop");
    let root = repo.canonicalize().unwrap();
    for agent in ["claude", "cursor", "codex", "vscode", "windsurf", "zed", "generic"] {
        let out = bin().args(["mcp", "--print-config", agent]).current_dir(&repo).output().unwrap();
        assert!(out.status.success(), "{agent}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // The snippet itself (the comment lines say where it goes).
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("claude mcp add"))
            .collect::<Vec<_>>()
            .join("\n");
        let body = body.split("\n\n").find(|b| !b.trim().is_empty()).unwrap().trim().to_owned();
        if agent == "codex" {
            assert!(body.contains("[mcp_servers.codecompass]") && body.contains("args = [\"mcp\"]"), "{body}");
        } else {
            let value: serde_json::Value =
                serde_json::from_str(&body).unwrap_or_else(|e| panic!("{agent}: {e}\n{body}"));
            let server = ["mcpServers", "servers", "context_servers"]
                .iter()
                .find_map(|k| value.get(k).and_then(|s| s.get("codecompass")))
                .unwrap_or(&value);
            assert_eq!(server["command"], "git-codecompass", "{agent}");
            assert_eq!(server["args"][0], "mcp", "{agent}");
        }
        // Only Windsurf's user-level file names the repository.
        assert_eq!(text.contains(root.to_str().unwrap()), agent == "windsurf", "{agent}:\n{text}");
    }
    let bad = bin().args(["mcp", "--print-config", "emacs"]).current_dir(&repo).output().unwrap();
    assert!(!bad.status.success());
}
