//! Help where git users look: examples in every subcommand's help, man pages generated from
//! the same definitions (`git codecompass --help` and `git help codecompass` open
//! `man git-codecompass`), and shell completions wired into git's own.

use std::path::{Path, PathBuf};

use clap::{Command, CommandFactory};

use super::Cli;

/// Examples per subcommand, shown at the end of its help and in its man page.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "index",
        "git codecompass index                          # the working tree\n\
         git codecompass index --ref main --ref v1.0    # commits; equal trees share one view\n\
         git codecompass index --force                  # rebuild (and repair) from nothing\n\
         git codecompass index --history --since '2 years ago'  # commits, for log and history",
    ),
    (
        "search",
        "git codecompass search parse_config                    # ranked: definitions first\n\
         git codecompass search -w -e spawn -e block_on -- src  # exact, as git grep reads it\n\
         git codecompass search --files \"$(cat issue.txt)\"      # which files to read\n\
         git codecompass search charge_card --repo 'svc-*'      # across registered repositories",
    ),
    (
        "context",
        "git codecompass context \"cart totals\" --max-tokens 2000\n\
         git codecompass context Cart --max-tokens 800 --strategy depth",
    ),
    (
        "locate",
        "git codecompass locate Cart\n\
         git codecompass locate Cart::total_cents --ref v1.0\n\
         git codecompass locate parse --kind function --lang rust\n\
         git codecompass locate Invoice --repo '*' --aggregate per-repo --ref api=release",
    ),
    (
        "references",
        "git codecompass references Cart::total_cents\n\
         git codecompass references parse --lang python --json\n\
         git codecompass references charge_card --repo billing --repo fork --group-by repo",
    ),
    ("callers", "git codecompass callers run --depth 2\ngit codecompass callers Cart.total --ref main"),
    ("callees", "git codecompass callees main --depth 2\ngit codecompass callees handle_request --json"),
    (
        "graph",
        "git codecompass graph run --direction both --format mermaid\n\
         git codecompass graph Cart.total --direction up --depth 3 --format dot",
    ),
    ("imports", "git codecompass imports src/app.py\ngit codecompass imports src/main.ts --ref v1.0"),
    ("importers", "git codecompass importers src/util.py\ngit codecompass importers lib/index.ts --json"),
    ("tests-for", "git codecompass tests-for Cart.total\ngit codecompass tests-for src/cart.py"),
    (
        "xray",
        "git codecompass xray open --query '(call function: (identifier) @f (#eq? @f \"open\")) @match' --lang python\n\
         git codecompass xray unwrap --script rules/unwrap_in_result.rhai --ref main\n\
         git codecompass xray explore src/app.py --line 42",
    ),
    (
        "repos",
        "git codecompass repos add ~/src/billing --alias billing --ref release\n\
         git codecompass repos list --json\n\
         git codecompass repos sync 'svc-*'\n\
         git codecompass repos remove billing",
    ),
    (
        "jobs",
        "git codecompass xray --batch scans.json --background   # prints the job id\n\
         git codecompass jobs show xray-1764060000-4242-00af --wait\n\
         git codecompass jobs cancel xray-1764060000-4242-00af",
    ),
    ("outline", "git codecompass outline src/cart.rs\ngit codecompass outline src/cart.rs --depth top --ref v1.0"),
    ("status", "git codecompass status\ngit codecompass status --json"),
    ("doctor", "git codecompass doctor\ngit codecompass doctor --quick --json"),
    (
        "snapshot",
        "git codecompass snapshot export -o index.tar.zst --ref main\n\
         git codecompass snapshot import index.tar.zst\n\
         git codecompass snapshot inspect index.tar.zst",
    ),
    ("sync", "git codecompass sync\ngit codecompass sync --background"),
    ("refs", "git codecompass refs\ngit codecompass refs --json"),
    (
        "diff",
        "git codecompass diff                    # the working tree against the default branch\ngit codecompass diff feature --base main",
    ),
    (
        "log",
        "git codecompass log \"crash when the config file is empty\"   # commits ranked by words\n\
         git codecompass log -S parse_config -- src              # as git log -S, from the index\n\
         git codecompass log -G 'timeout *= *[0-9]+' --since '1 year ago' --json",
    ),
    (
        "history",
        "git codecompass history Cart::total_cents          # added, modified, moved, renamed, deleted\n\
         git codecompass history parse_config --show --at v1.2\n\
         git codecompass history handle_request --since '6 months ago' --json",
    ),
    ("gc", "git codecompass gc\ngit codecompass gc --grace-days 0"),
    ("hooks", "git codecompass hooks install\ngit codecompass hooks status"),
    (
        "mcp",
        "git codecompass mcp\n\
         git codecompass mcp --print-config claude\n\
         git codecompass mcp --transport http --bind 127.0.0.1:8765 --auth-token \"$TOKEN\"",
    ),
    ("watch", "git codecompass watch --background\ngit codecompass watch --status"),
    (
        "completions",
        "git codecompass completions bash > ~/.local/share/bash-completion/completions/git-codecompass\n\
         git codecompass completions zsh > ~/.zfunc/_git-codecompass\n\
         git codecompass completions fish > ~/.config/fish/completions/git-codecompass.fish",
    ),
    ("install-man", "git codecompass install-man\ngit codecompass install-man --man-dir ~/.local/share/man"),
];

/// The command line's definition, with the examples in each subcommand's help.
pub(super) fn command() -> Command {
    let mut cmd = Cli::command();
    for (name, examples) in EXAMPLES {
        cmd = cmd.mut_subcommand(*name, |sub| sub.after_help(format!("Examples:\n{}", indent(examples))));
    }
    cmd.after_help(format!(
        "Examples:\n{}\n\nEvery command: `git codecompass <command> -h`, or `man git-codecompass-<command>`.",
        indent("git codecompass search \"connection refused\"\ngit codecompass locate Cart\ngit codecompass doctor")
    ))
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
}

/// Every man page: the command's and one per subcommand (`git-codecompass-search.1`), as
/// (file name, roff).
pub(super) fn man_pages() -> Vec<(String, Vec<u8>)> {
    fn walk(cmd: &Command, out: &mut Vec<(String, Vec<u8>)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out);
        }
        let man = clap_mangen::Man::new(cmd.clone()).manual("CodeCompass Manual").source("codecompass");
        let mut roff = Vec::new();
        man.render(&mut roff).expect("rendering into memory does not fail");
        out.push((man.get_filename(), roff));
    }
    let mut cmd = command().name("git-codecompass").bin_name("git-codecompass").disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    walk(&cmd, &mut pages);
    pages.sort();
    pages
}

/// Where `install-man` writes by default: `share/man` beside the binary's directory, which
/// `man` searches for every directory on `PATH` (`~/.cargo/bin` -> `~/.cargo/share/man`).
pub(super) fn default_man_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.join("share").join("man"))
}

/// Writes every man page into `dir/man1`, returning the files written.
pub(super) fn install_man(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let section = dir.join("man1");
    std::fs::create_dir_all(&section)?;
    let mut written = Vec::new();
    for (name, roff) in man_pages() {
        let path = section.join(name);
        crate::replace::replace(&path, &roff)?;
        written.push(path);
    }
    Ok(written)
}

/// The completion script for `shell`; for bash it also defines `_git_codecompass`, which
/// git's own completion calls for `git codecompass <TAB>`, and completes refs after `--ref`.
pub(super) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = command().name("git-codecompass").bin_name("git-codecompass");
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "git-codecompass", &mut script);
    if shell == clap_complete::Shell::Bash {
        // The generator names the command's cases `git__codecompass` in one place and
        // `git__subcmd__codecompass` in another (a `-` in the name): made one here.
        let text = String::from_utf8_lossy(&script).replace("git__subcmd__codecompass", "git__codecompass");
        script = text.into_bytes();
        script.extend_from_slice(BASH_GIT_BRIDGE.as_bytes());
    }
    script
}

/// Hands `git codecompass ...` from git's bash completion to the generated function, as if
/// `git-codecompass ...` had been typed; refs complete after `--ref` and `--base`.
const BASH_GIT_BRIDGE: &str = r#"
_git_codecompass() {
    local i start=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        if [[ ${COMP_WORDS[i]} == codecompass ]]; then
            start=$i
            break
        fi
    done
    local -a COMP_WORDS=("git-codecompass" "${COMP_WORDS[@]:start+1}")
    local COMP_CWORD=$((COMP_CWORD - start))
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ $prev == --ref || $prev == --base ]]; then
        COMPREPLY=($(compgen -W "HEAD $(git for-each-ref --format='%(refname:short)' 2>/dev/null)" -- "$cur"))
        return 0
    fi
    _git__codecompass git-codecompass "$cur" "$prev"
}
"#;
