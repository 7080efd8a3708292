//! What the command line allows for a directory that is not a git repository, and the
//! question asked before indexing a large one.

use super::{Cli, Command};
use crate::view::live::LiveOptIn;

/// Asks on the terminal whether to go on with `what`; false when stdin is not a terminal.
pub(super) fn confirmed(what: &str) -> bool {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return false;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{what}.\nIndex it now (kept in your cache directory)? [y/N] ");
    let _ = stderr.flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    matches!(answer.trim(), "y" | "Y" | "yes" | "Yes")
}

/// What the command line allows for a directory that is not a repository: indexing it when
/// named with `--dir`, with `CODECOMPASS_LIVE=1` or by `index --live`; `/` or the home
/// directory only with `index --live --force`; a large one with `--yes`.
pub(super) fn live_opt_in(cli: &Cli) -> LiveOptIn {
    let index_live = matches!(cli.command, Command::Index { live: true, .. });
    LiveOptIn {
        allowed: cli.global.workspace.is_some()
            || std::env::var_os("CODECOMPASS_LIVE").is_some_and(|v| v == "1")
            || index_live,
        force: matches!(cli.command, Command::Index { live: true, force: true, .. }),
        yes: cli.global.yes,
    }
}
