//! The MCP server, driven by the official Python SDK (in the virtualenv `.ci/test` prepares):
//! every tool over stdio, partial answers while indexing, HTTP with two clients, tokens,
//! `Host`/`Origin` checks, malformed and huge requests, abandoned calls; and raw stdio input
//! that is not JSON.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{TempDir, fixture};

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python");
    assert!(venv.exists(), "the MCP client is missing: run `.ci/test`, which installs it into target/mcp-venv");
    venv
}

fn scenario(name: &str, repo: &Path, other: &Path) {
    scenario_with(name, repo, other, &[]);
}

fn scenario_with(name: &str, repo: &Path, other: &Path, envs: &[(&str, &Path)]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client_test.py");
    let output = Command::new(python())
        .envs(envs.iter().map(|(k, v)| (*k, *v)))
        .arg(script)
        .arg(name)
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_git-codecompass"))
        .arg("--repo")
        .arg(repo)
        .arg("--other")
        .arg(other)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{name}:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr).lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_tool_over_stdio_with_the_official_client() {
    let (_tmp, repo) = fixture("shop");
    std::os::unix::fs::symlink("/etc", repo.join("escape")).unwrap();
    let other = TempDir::new("outside");
    scenario("stdio", &repo, other.path());
}

#[test]
fn an_unindexed_workspace_answers_partially_and_indexes_behind() {
    let (_tmp, repo) = fixture("shop");
    scenario("partial", &repo, &repo);
}

#[test]
fn http_with_tokens_host_checks_two_clients_and_abandoned_calls() {
    let (_tmp, repo) = fixture("shop");
    scenario("http", &repo, &repo);
    scenario("wrong_token", &repo, &repo);
}

/// `mcp --all-repos` over HTTP: `repo` by alias or glob, `list_repos`, and tokens scoped to
/// repositories, checked before anything is read.
#[test]
fn one_server_for_the_registry_with_tokens_scoped_to_repositories() {
    let (tmp, root) = fixture("many-repos");
    let home = tmp.path().join("home");
    // billing keeps its branch `v2` indexed too (`repos add --ref`).
    for (dir, alias, refs) in
        [("billing", "billing", &["--ref", "v2"][..]), ("billing-fork", "fork", &[]), ("storefront", "storefront", &[])]
    {
        let added = crate::support::bin()
            .args(["repos", "add", "--quiet", "--alias", alias])
            .args(refs)
            .arg(root.join(dir))
            .env("CODECOMPASS_HOME", &home)
            .output()
            .unwrap();
        assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    }
    scenario_with("repos", &root, &home, &[("CODECOMPASS_HOME", &home)]);
}

#[test]
fn stdio_answers_input_that_is_not_json_rpc_with_its_error_and_goes_on() {
    let (_tmp, repo) = fixture("shop");
    let mut child = Command::new(env!("CARGO_BIN_EXE_git-codecompass"))
        .args(["mcp", "--no-prewarm"])
        .current_dir(&repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("codecompass"), "{line}");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    // Text that is not JSON, bytes that are not UTF-8, a lone surrogate: each gets JSON-RPC's
    // parse error (id null); JSON that is no request gets "invalid request" with its id.
    writeln!(stdin, "this is not json").unwrap();
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"p\xffing\"}\n").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"x":"\ud800"}}}}"#).unwrap();
    writeln!(stdin, r#"{{"id":5,"method":"ping"}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"health_check","arguments":{{}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut errors = Vec::new();
    let mut answered = false;
    for _ in 0..10 {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let message: serde_json::Value = serde_json::from_str(&line).expect("the server writes JSON lines");
        if message["id"] == 7 {
            answered = line.contains("\"status\"");
            break;
        }
        errors.push((message["id"].clone(), message["error"]["code"].clone()));
    }
    drop(stdin);
    let _ = child.wait();
    let null = serde_json::Value::Null;
    assert_eq!(
        errors,
        vec![
            (null.clone(), serde_json::json!(-32700)),
            (null.clone(), serde_json::json!(-32700)),
            (null, serde_json::json!(-32700)),
            (serde_json::json!(5), serde_json::json!(-32600)),
        ]
    );
    assert!(answered, "the server answered after bad input: {line}");
}
