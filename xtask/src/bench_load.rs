//! `bench mcp-load`: the MCP server over HTTP under concurrent, hostile and slow clients, with
//! the official Python client (`scripts/mcp_load.py`).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::BenchArgs;
use crate::bench::{binary_and_mcp_client, sample_names};
use crate::measure::{self, Scratch, secs};

/// Seconds per phase unless `--seconds` says otherwise.
const SECONDS: usize = 20;

pub fn mcp_load(args: &BenchArgs) -> Result<()> {
    let (bin, python) = binary_and_mcp_client()?;
    let scratch = Scratch::new("bench-mcp-load")?;
    let store = scratch.0.join("store");
    let (indexed, _) = measure::run(
        Command::new(&bin)
            .arg("--store")
            .arg(&store)
            .args(["--quiet", "index", "--ref", "HEAD"])
            .current_dir(&args.repo),
    )?;
    eprintln!("indexed in {}", secs(indexed.wall));
    let names = sample_names(&store, 16, false)?;
    let seconds = args.seconds.unwrap_or(SECONDS).max(1);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp_load.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&bin)
        .arg(&args.repo)
        .arg(&store)
        .arg(seconds.to_string())
        .args(&names)
        .output()
        .context("running the MCP load client")?;
    if !output.status.success() {
        bail!("the MCP load bench failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let v: Value = serde_json::from_slice(&output.stdout).context("reading the load client's figures")?;
    let mib = |x: &Value| x.as_f64().map_or("-".to_owned(), |b| format!("{:.0} MiB", b / 1048576.0));
    let ms = |x: &Value| x.as_f64().map_or("-".to_owned(), |m| format!("{m:.1} ms"));
    println!("### MCP over HTTP under load ({} s per phase, {} names)\n", seconds, names.len());
    println!("| phase | ordinary calls answered / failed | p50 | p95 | max | server peak RSS |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for phase in ["quiet", "load", "after"] {
        let p = &v[phase];
        println!(
            "| {phase} | {} / {} | {} | {} | {} | {} |",
            p["counts"]["ordinary_ok"],
            p["counts"]["ordinary_failed"],
            ms(&p["latency_ms"]["p50"]),
            ms(&p["latency_ms"]["p95"]),
            ms(&p["latency_ms"]["max"]),
            if phase == "after" { "-".to_owned() } else { mib(&p["peak_rss"]) },
        );
    }
    let c = &v["load"]["counts"];
    println!(
        "\nbeside them: hostile-size queries answered {} / refused {} / failed {}; calls abandoned {}; \
         slow connections closed by the server {} / kept open to the end {}; server alive at the end: {}",
        c["hostile_answered"],
        c["hostile_refused"],
        c["hostile_failed"],
        c["abandoned"],
        c["slow_closed_by_server"],
        c["slow_kept_open"],
        v["server_alive"]
    );
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&v)?)?;
    }
    Ok(())
}
