//! The `git-codecompass` binary: `git codecompass <command>`.

fn main() -> std::process::ExitCode {
    codecompass::cli::main()
}
